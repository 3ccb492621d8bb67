"""The one registry of estimators (unlabeled.registry, issue 45): a class declared with
``@register`` (or registered in one line) is found by the model files, the command line, the
common suite and the documentation's API list, and leaves them all when unregistered; the
declarations read from the source are the classes'; and no list of estimators is written by
hand anywhere else."""

from __future__ import annotations

import ast
import importlib
import sys
from pathlib import Path

import numpy as np
import pytest
import test_common
from test_common import X

import unlabeled
from unlabeled import registry
from unlabeled.model_io import trusted_types
from unlabeled.registry import Case, all_estimators, command_of, register, unregister
from unlabeled.ssl import LabeledSVM

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "docs"))
from estimator_table import estimator_table  # noqa: E402


class Toy(LabeledSVM):
    """A toy estimator defined here: the SVM on the labeled rows under another name."""


@pytest.fixture
def toy():
    register(family="ssl", command="toy", summary="a toy", cases=(Case({"C1": 2.0}),))(Toy)
    yield Toy
    unregister(Toy)


def _everywhere() -> dict[str, bool]:
    """Where the toy is found: trusted types, CLI table, common suite, API list."""
    from unlabeled.cli import build_parser

    fit = next(a for a in build_parser()._actions if a.dest == "command").choices["fit"]
    choices = next(a for a in fit._actions if a.dest == "estimator").choices
    return {
        "model files": "test_registry.Toy" in trusted_types(),
        "command line": "toy" in choices,
        "common suite": "Toy" in test_common.cases(),
        "API list": any(":class:`~test_registry.Toy`" in line for line in estimator_table()),
    }


def test_a_registered_toy_is_found_everywhere(toy, tmp_path):
    assert all(_everywhere().values()), _everywhere()
    # the common suite's checks: fit, outputs, probabilities, save / load, threads, and the
    # command line in process (fit --estimator toy --C1 2.0 makes the model LabeledSVM's fit
    # makes under this name; predict runs on its file)
    table = test_common.cases([e for e in all_estimators() if e.name == "Toy"])
    entry, case = table["Toy"]
    assert entry.command == "toy" and case.params == {"C1": 2.0}
    model = test_common.fitted("Toy", table)
    assert isinstance(model, Toy) and model.C1 == 2.0
    test_common.run_checks(entry, case, model, tmp_path)
    expected = LabeledSVM(C1=2.0).fit(*test_common.fit_args(entry, case))
    np.testing.assert_array_equal(model.decision_function(X), expected.decision_function(X))


def test_without_its_line_the_toy_is_nowhere():
    assert not any(_everywhere().values()), _everywhere()


def test_register_refuses_bad_declarations():
    with pytest.raises(ValueError, match="family must be one of"):
        register(family="nonsense")
    with pytest.raises(ValueError, match="data must be one of"):
        register(family="pu", cases=(Case(data="wide"),))
    with pytest.raises(TypeError, match="cases must be a tuple of Case"):
        register(family="pu", cases=[Case()])  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="command 'pusvc' is already"):
        register(family="pu", command="pusvc")(Toy)
    with pytest.raises(ValueError, match="command 'clustering' is already"):
        register(family="pu", command="toy", aliases=("clustering",))(Toy)  # a former name
    with pytest.raises(ValueError, match="aliases are former command names"):
        register(family="pu", aliases=("toy",))
    assert "Toy" not in [e.name for e in all_estimators()]


def test_former_command_names_resolve_to_the_current_ones():
    """Each alias names one estimator, which has its own command; no alias is a command."""
    commands = {e.command for e in all_estimators() if e.command}
    for entry in (e for e in all_estimators() if e.aliases):
        for alias in entry.aliases:
            assert alias not in commands and command_of(alias) == (entry, True)
        assert command_of(entry.command) == (entry, False)
    assert command_of("nonsense") is None


def test_declarations_read_from_the_source_are_the_classes():
    """What the registry reads without importing equals what the classes registered, and
    names each class where its module defines it."""
    read = {e.path: e._replace(cases=(), cls=None) for e in all_estimators()}
    loaded = {e.path: e._replace(cases=(), cls=None) for e in all_estimators(load=True)}
    assert read == loaded and len(read) >= 20
    for entry in all_estimators(load=True):
        cls = entry.load()
        assert (cls.__module__, cls.__qualname__) == (entry.module, entry.name)
        assert entry.cases, f"{entry.name}: no case for the common suite"
        assert entry.name in importlib.import_module(entry.home).__all__


def test_without_its_sources_the_registry_imports_the_subpackages(monkeypatch):
    """An install without .py files (only compiled ones) finds the same declarations by
    importing the method subpackages."""
    expected = {e.path: e._replace(cases=(), cls=None) for e in all_estimators(load=True)}
    monkeypatch.setattr(registry, "_DECLARED", [])
    monkeypatch.setattr(registry.os, "walk", lambda root: iter(()))
    found = {e.path: e._replace(cases=(), cls=None) for e in registry._declared()}
    assert found == expected


def test_top_level_names_are_the_registered_commands():
    """unlabeled's estimators are those with a command-line name, and the imports that tell
    type checkers about them (unlabeled/__init__.py) name exactly these."""
    commands = {e.name for e in all_estimators() if e.command}
    classes = {n for n in unlabeled.__all__ if isinstance(getattr(unlabeled, n), type)}
    assert classes == commands
    tree = ast.parse((ROOT / "src" / "unlabeled" / "__init__.py").read_text())
    typed = {
        a.asname or a.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        and node.level == 1
        and node.module not in (None, "_config", "_version", "model_io")
        for a in node.names
    }
    assert typed == commands


# ---------------------------------------------------------------------- no hand-written list
#: a literal with this marker on its first line (or alone on the line above) is data about
#: particular estimators (a cross-reference, an algorithm's choice among them), not a list of
#: the library's estimators
PRAGMA = "# registry: "
#: the test files whose estimator lists are not yet derived from the registry, and how many
#: such literals each holds: lower it as they go (a new one fails). The Dask tests' two lists
#: are their owner's to derive.
LEFT: dict[str, int] = {}


def _named(node, names: dict) -> str | None:
    """The estimator a node names (its class, or its command: ``names`` maps both to the
    class's name)."""
    if isinstance(node, ast.Name):
        return names.get(node.id)
    if isinstance(node, ast.Attribute):
        return names.get(node.attr)
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return names.get(node.value)
    return None


def _names_in(node, names) -> set:
    """The registered estimators (or commands) an element names anywhere inside it: itself,
    a call (``PUSVC(kernel="linear")``, ``pytest.param(PUSVC, ...)``), a pair with its data
    (``(PUSVC, {"C": 1})``), a lambda that builds one."""
    return {_named(n, names) for n in ast.walk(node)} - {None}


def _marked(lines: list[str], lineno: int) -> bool:
    """The marker on the literal's first line, or alone on the line above it."""
    above = lines[lineno - 2].strip() if lineno >= 2 else ""
    return PRAGMA in lines[lineno - 1] or above.startswith(PRAGMA)


def _estimator_names() -> dict:
    """Each registered estimator's class name and command, to its class name."""
    entries = all_estimators()
    return {e.name: e.name for e in entries} | {e.command: e.name for e in entries if e.command}


def _lists(path: Path, names: dict) -> list[str]:
    """The literals of a file (lists, tuples, sets, dicts: keys and values) whose elements
    name two or more registered estimators (or commands) between them."""
    text = path.read_text()
    lines = text.splitlines()
    found = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            elements = node.elts
        elif isinstance(node, ast.Dict):
            elements = [k for k in node.keys if k is not None] + node.values
        else:
            continue
        named = set().union(*(_names_in(e, names) for e in elements))
        if len(named) >= 2 and not _marked(lines, node.lineno):
            where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name
            found.append(f"{where}:{node.lineno} {sorted(named)}")
    return found


def test_list_checker_sees_through_calls_pairs_and_values(tmp_path):
    """The literals a test writes by hand, whatever their shape: instances, pytest parameters,
    pairs with data, dict values, a class and its command counted once; a marked one passes."""
    path = tmp_path / "test_x.py"
    path.write_text(
        "A = [PUSVC(prior=0.5), pytest.param(WellSVM(), id='w')]\n"
        "B = [(PUSVC, {'C': 1}), (TSVM, {})]\n"
        "C = {'a': lambda: PUSVC(), 'b': lambda: TSVM()}\n"
        "D = [('pusvc', PUSVC), ('x', 1)]\n"
        "E = [PUSVC(), TSVM()]  # registry: a reason\n"
        "# registry: a reason\n"
        "F = [PUSVC(), TSVM()]\n"
    )
    found = _lists(path, _estimator_names())
    assert [line.split(":")[1].split()[0] for line in found] == ["1", "2", "3"]


def test_no_hand_written_list_of_estimators():
    names = _estimator_names()
    derived = {"test_common.py", "test_registry.py", "test_model_files_all.py", "test_fuzz.py",
               "test_cli_families.py", "test_threads.py", "test_transactional.py",
               "test_predict_proba_contract.py"}  # fmt: skip
    strict = []
    for path in sorted([*(ROOT / "src").rglob("*.py"), *(ROOT / "tests").rglob("*.py")]):
        found = _lists(path, names)
        if "src" in path.parts or path.name in derived or len(found) > LEFT.get(path.name, 0):
            strict.extend(found)
    assert not strict, "derive these from unlabeled.registry.all_estimators():\n" + "\n".join(
        strict
    )
