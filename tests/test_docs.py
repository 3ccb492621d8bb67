"""The documentation's own checks that need no Sphinx: its code blocks run, its API
reference covers every public module and names no private one (the Sphinx build, with warnings
as errors, checks the rest: every public name gets a page, every reference resolves, every
gallery example runs)."""

from __future__ import annotations

import ast
import re
import sys
import types
import warnings
from pathlib import Path

import pytest
from public_api import public_api, public_callables

import unlabeled

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
_BLOCK = re.compile(r"^\.\. code-block:: python\n\n((?:(?:   .*)?\n)+)", re.M)


def _blocks():
    if not DOCS.is_dir():
        return []
    out = []
    for path in sorted(DOCS.rglob("*.rst")):
        if "_build" in path.parts or path.parts[len(DOCS.parts)] in ("api", "auto_examples"):
            continue
        for i, m in enumerate(_BLOCK.finditer(path.read_text())):
            code = "\n".join(line[3:] for line in m.group(1).splitlines())
            out.append(pytest.param(code, id=f"{path.relative_to(DOCS)}[{i}]"))
    return out


@pytest.mark.parametrize("code", _blocks())
def test_code_block_runs(code, tmp_path, monkeypatch):
    if "PlummerAutoencoder" in code:
        pytest.importorskip("torch")
    monkeypatch.chdir(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(compile(code, "<docs>", "exec"), {"__name__": "__docs__"})


def test_api_reference_lists_every_public_module():
    if not (DOCS / "conf.py").is_file():
        pytest.skip("no docs/ next to the tests (installed package only)")
    tree = ast.parse((DOCS / "conf.py").read_text())
    listed = next(
        ast.literal_eval(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign)
        and any(getattr(t, "id", None) == "PUBLIC_MODULES" for t in node.targets)
    )
    public = {
        f"unlabeled.{name}"
        for name in unlabeled.__all__
        if isinstance(getattr(unlabeled, name), types.ModuleType)
    }
    public |= {"unlabeled", "unlabeled.pu.priors", "unlabeled.plotting"}
    assert sorted(public - set(listed)) == []


_PRIVATE = re.compile(r"^\s*(from|import)\s+unlabeled(\.\w+)*\._\w+", re.M)


def _examples():
    folder = ROOT / "examples"
    return sorted(folder.rglob("plot_*.py")) if folder.is_dir() else []


def test_gallery_scripts_are_self_contained():
    """Each gallery script has a title, draws a figure, imports public names only and needs
    no data beyond the package and scikit-learn (the docs build runs them)."""
    scripts = _examples()
    if not scripts:
        pytest.skip("no examples/ next to the tests (installed package only)")
    assert len(scripts) >= 15
    for path in scripts:
        text = path.read_text()
        name = path.relative_to(ROOT)
        assert re.match(r'"""\n[^\n]+\n=+\n', text), f"{name}: no title in its docstring"
        assert "plt.show()" in text, f"{name}: draws no figure"
        assert not _PRIVATE.search(text), f"{name}: imports a private module"
        assert "shared" not in text and "load_uci_small" not in text, f"{name}: needs ../shared"


#: the modules whose ``__all__`` makes up the public API
_PUBLIC_MODULES = [
    "unlabeled", "unlabeled.base", "unlabeled.exceptions", "unlabeled.model_io",
    "unlabeled.metrics", "unlabeled.datasets", "unlabeled.pu", "unlabeled.pu.priors",
    "unlabeled.ssl", "unlabeled.mil", "unlabeled.cluster", "unlabeled.lupi",
    "unlabeled.generative", "unlabeled.model_selection", "unlabeled.plotting",
    "unlabeled.registry",
]  # fmt: skip


def test_every_public_class_and_function_has_examples():
    """Every public class and function has a numpydoc ``Examples`` section (run as a
    doctest by ``pytest --doctest-modules --pyargs unlabeled``), new names included."""
    import importlib
    import importlib.util
    import inspect

    no_torch = importlib.util.find_spec("torch") is None  # its functions load only with it
    missing = []
    for module_name in _PUBLIC_MODULES:
        module = importlib.import_module(module_name)
        for name in getattr(module, "__all__", []):
            if no_torch and name in ("plummer_kernel", "mmd2_u", "pae_loss"):
                continue
            obj = getattr(module, name)
            if (inspect.isclass(obj) or inspect.isfunction(obj)) and "Examples" not in (
                obj.__doc__ or ""
            ):
                missing.append(f"{obj.__module__}.{obj.__qualname__}")
    assert not missing, f"no Examples section in the docstring of: {missing}"


#: a reference in a docstring: ``literal``, `default role` or :role:`target`
_REFERENCE = re.compile(r"(?::[\w:]+:)?(``?)([^`]+)\1")
#: a private part of a name: ``_x`` at its start, after a dot, a space or an opening bracket
#: (not ``n_SV`` or ``x*_i``, not a dunder such as ``__init__``)
_PRIVATE_PART = re.compile(r"(?:^|[\s.(\[,=])_(?!_)[A-Za-z]\w*")


def _api_docstrings():
    """``(where, docstring)`` for every page of the API reference: the public modules, classes
    and functions, and the public methods and properties of the library's classes."""
    modules, objects = public_api()
    for name in modules:
        yield name, sys.modules[name].__doc__
    for name, obj in objects:
        if isinstance(obj, (type, types.FunctionType)):
            yield name, obj.__doc__
    for name, func in public_callables():
        yield name, func.__doc__


def _private_references(doc: str, public: set[str]) -> list[str]:
    """The references of ``doc`` to a private name: a private module or attribute, or a
    :data: constant that no public module exports. Code in Examples (``>>>`` lines, a
    subclass written out) is left alone: it may show the base's extension points."""
    prose = "\n".join(
        line for line in doc.splitlines() if not line.lstrip().startswith(("...", ">>>"))
    )
    found = []
    for match in _REFERENCE.finditer(prose):
        target = match.group(2).lstrip("~.")
        if _PRIVATE_PART.search(target):
            found.append(match.group(0))
        elif match.group(0).startswith(":data:") and target.rpartition(".")[2] not in public:
            found.append(match.group(0))
    return found


def test_api_reference_names_no_private_name():
    """The API pages are the public docstrings: they say what a user can use, in public terms
    (a constant's value, "the parameter constraints"), never a private module, attribute or
    method that the user cannot rely on."""
    public = {name for module in public_api()[0] for name in sys.modules[module].__all__}
    offenders = []
    for where, doc in _api_docstrings():
        offenders += [f"{where}: {ref}" for ref in _private_references(doc or "", public)]
    assert offenders == []


def test_private_references_are_found():
    """The check above finds what it looks for (and leaves alone what it should)."""
    public = {"TRUSTED_TYPES"}
    doc = """See :meth:`KernelMachine._set_expansion` and ``unlabeled._products.DENSIFY_MB``,
    :data:`MAX_MODEL_BYTES`, `_gram`; but ``n_SV``, :data:`TRUSTED_TYPES`, ``__init__``.

    >>> self._set_expansion(X, alpha)
    """
    assert _private_references(doc, public) == [
        ":meth:`KernelMachine._set_expansion`",
        "``unlabeled._products.DENSIFY_MB``",
        ":data:`MAX_MODEL_BYTES`",
        "`_gram`",
    ]
