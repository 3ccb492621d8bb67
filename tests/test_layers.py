"""The import contract of the package, read from the source (no import needed).

Layers, lowest first; a module imports only from lower layers or from its own package:

0. ``_engine`` (the compiled code), ``_kernels`` (kernel blocks), ``_threads`` (cores, BLAS
   threads), ``_version``, ``exceptions``, ``registry`` (the one list of estimators)
1. ``_validation`` (checks and parameter constraints)
2. ``_config`` (global settings)
3. ``_budget`` (the dense-memory budget), ``_solving`` (engine data, step caps, progress, the
   convergence warning)
4. ``_clarabel`` (the reference solvers' QPs), ``_files`` (the file readers), ``_products``,
   ``_label_generation``, ``metrics``, ``_calibration``, ``_dask`` (the Dask layer: input
   checks, blockwise methods, map-reduce)
5. ``base`` (the public estimator base), ``model_io`` (model files)
6. the methods and data: ``pu``, ``ssl``, ``lupi``, ``mil``, ``cluster``, ``generative``,
   ``datasets``, ``model_selection``
7. ``cli``
8. the package itself (``unlabeled/__init__.py``, ``__main__``)

No import runs upward, none inside a function except the deferred imports listed in
``DEFERRED`` (each with its reason; a stale entry fails), and nothing outside a package
imports its private modules or names, nor uses a private member of another module's class on
an object (``est._gamma``: a kernel machine's go through the protocol ``_solving.KernelModel``;
the exceptions in ``PRIVATE_MEMBER_USES``). Tests (every folder of ``tests/`` but
``engine/``, the engine's tests, and ``internals/``, the tests of private modules the public
API cannot reach), benchmarks outside the harness and README.md import public names only.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "unlabeled"

LAYERS = {
    **dict.fromkeys(["_engine", "_kernels", "_threads", "_version", "exceptions", "registry"], 0),
    "_validation": 1,
    "_config": 2,
    **dict.fromkeys(["_budget", "_solving"], 3),
    **dict.fromkeys(
        ["_clarabel", "_files", "_products", "_label_generation", "metrics", "_calibration"]
        + ["_dask"],
        4,
    ),
    **dict.fromkeys(["base", "model_io"], 5),
    **dict.fromkeys(
        ["pu", "ssl", "lupi", "mil", "cluster", "generative", "datasets", "model_selection"], 6
    ),
    "plotting": 6,  # plots of fitted estimators; matplotlib imported inside its functions
    "cli": 7,
    "": 8,  # unlabeled/__init__.py
    "__main__": 8,
}

#: imports of the package's own modules made inside a function, and why
DEFERRED = {
    # the command line imports its heavy parts (skops, the search) only for the command that
    # needs them, so that `unlabeled --help` starts at once
    ("cli._commands", "model_selection"),
    ("cli._commands", "model_io"),
    ("cli._demo", "pu"),
    # ... the commands' code itself (NumPy, scikit-learn) only when a command runs ...
    ("cli._parser", "cli._commands"),
    # ... and the options generated from an estimator's declared parameters (they load
    # scikit-learn through the validation module) only for `fit --estimator NAME`
    ("cli._parser", "cli._estimators"),
    ("cli._parser", "cli._options"),
    # torch is optional: imported when an autoencoder is fitted or loaded
    ("generative._pae", "generative._torch_ops"),
    ("pu._nnpu_mlp", "pu._nnpu_torch"),  # NNPUMLPClassifier's training
}


def _modules():
    if not SRC.is_dir():
        pytest.skip("the source tree is not next to the tests (installed package only)")
    for path in sorted(SRC.rglob("*.py")):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        is_pkg = parts[-1] == "__init__"
        if is_pkg:
            parts = parts[:-1]
        yield path, ".".join(parts), is_pkg


def _imports(path, module, is_pkg):
    """(imported module relative to unlabeled, names, inside a function) for each import."""
    tree = ast.parse(path.read_text())
    inner = {
        id(n)
        for f in ast.walk(tree)
        if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
        for n in ast.walk(f)
        if n is not f
    }
    package = module.split(".") if is_pkg else module.split(".")[:-1]
    package = [p for p in package if p]
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            elif (node.module or "").split(".")[0] == "unlabeled":
                target = node.module.partition("unlabeled")[2].lstrip(".")
            else:
                continue
            names = [a.name for a in node.names]
            if node.module is None or target in ("", *package):
                # `from . import x` / `from .. import x`: the imported modules themselves
                for name in names:
                    yield ".".join(filter(None, [target, name])), [], id(node) in inner
            else:
                yield target, names, id(node) in inner
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] == "unlabeled":
                    yield a.name.partition("unlabeled")[2].lstrip("."), [], id(node) in inner


def _layer(module: str) -> int:
    head = module.split(".")[0]
    return LAYERS[head]


def _private_step(importer: str, target: str) -> str | None:
    """The first private part of ``target`` that ``importer`` may not reach: a module
    ``a._m`` may be imported only from inside package ``a``."""
    parts = target.split(".")
    for i, part in enumerate(parts):
        if part.startswith("_") and not part.startswith("__"):
            owner = parts[:i]
            if importer.split(".")[: len(owner)] != owner:
                return ".".join(parts[: i + 1])
            return None
    return None


def test_every_module_has_a_layer():
    for _, module, _ in _modules():
        assert module.split(".")[0] in LAYERS, f"{module}: give it a layer in LAYERS"


def test_no_upward_import_and_no_import_inside_a_function():
    problems = []
    for path, module, is_pkg in _modules():
        for target, _, inside in _imports(path, module, is_pkg):
            own = target.split(".")[0] == module.split(".")[0]
            if not own and _layer(target) >= _layer(module):
                problems.append(f"{module} imports {target}: not a lower layer")
            if inside and (module, target) not in DEFERRED:
                problems.append(f"{module} imports {target} inside a function")
    assert problems == []


def test_deferred_imports_are_current():
    """Every DEFERRED entry is an import made inside a function: a stale one would let a new
    deferred import in unreviewed."""
    made = {
        (module, target)
        for path, module, is_pkg in _modules()
        for target, _, inside in _imports(path, module, is_pkg)
        if inside
    }
    assert DEFERRED - made == set(), "stale DEFERRED entries"


def test_no_private_module_imported_from_outside_its_package():
    problems = []
    for path, module, is_pkg in _modules():
        for target, names, _ in _imports(path, module, is_pkg):
            step = _private_step(module, target)
            if step:
                problems.append(f"{module} imports {step}")
            private = [n for n in names if n.startswith("_") and not n.startswith("__")]
            if private:
                problems.append(f"{module} imports the private names {private} of {target}")
    assert problems == []


#: (module, member): the private members of another module's class that a module may use, and
#: why; every other use goes through a public name (a kernel machine's through the package's
#: protocol, _solving.KernelModel)
PRIVATE_MEMBER_USES = {
    # a loaded model's parameters and fitted attributes are checked as fit checks them
    ("model_io", "_validate_params"),
    ("model_io", "_fitted_declarations"),
    # the search refuses a bad candidate before any fit
    ("model_selection._search", "_validate_params"),
}

#: the declared tables that a subclass extends from its base's (``Base._parameter_constraints``)
CLASS_TABLES = {"_parameter_constraints", "_fitted_attributes"}


def _class_members(tree) -> set[str]:
    """The private members of the classes of a module: methods and class attributes of their
    bodies, and the attributes their methods set on ``self``."""
    found = set()
    for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
        for node in cls.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found.add(node.name)
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                found |= {t.id for t in targets if isinstance(t, ast.Name)}
        for node in ast.walk(cls):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.ctx, ast.Store)
                and isinstance(node.value, ast.Name)
                and node.value.id == "self"
            ):
                found.add(node.attr)
    return {name for name in found if _private(name)}


def _foreign_private_uses(trees: dict) -> list[str]:
    """``obj._name`` on an object other than ``self``/``cls``/``super()`` where ``_name`` is a
    member of another module's class and of none of this module's: duck-typed private use,
    which no import shows."""
    members = {module: _class_members(tree) for module, tree in trees.items()}
    owners: dict[str, set[str]] = {}
    for module, names in members.items():
        for name in names:
            owners.setdefault(name, set()).add(module)
    found = []
    for module, tree in trees.items():
        for node in ast.walk(tree):
            if not isinstance(node, ast.Attribute) or node.attr not in owners:
                continue
            if node.attr in members[module] or (module, node.attr) in PRIVATE_MEMBER_USES:
                continue
            value = node.value
            if isinstance(value, ast.Name) and value.id in ("self", "cls"):
                continue  # a subclass's own (inherited) member
            if isinstance(value, ast.Call) and getattr(value.func, "id", None) == "super":
                continue
            if node.attr in CLASS_TABLES and isinstance(value, ast.Name):
                continue
            found.append(
                f"{module}:{node.lineno} {ast.unparse(value)}.{node.attr} "
                f"(a member of {', '.join(sorted(owners[node.attr]))})"
            )
    return found


def test_no_private_member_of_another_modules_class_used():
    """No module reads or calls a private member of another module's class on an object
    (``est._gamma``): a kernel machine's go through its protocol (``kernel_gamma_``,
    ``kernel_params``, ``kernel_dot``, ``set_expansion``); the few other uses are listed in
    PRIVATE_MEMBER_USES, each with its reason."""
    trees = {module: ast.parse(path.read_text()) for path, module, _ in _modules()}
    assert _foreign_private_uses(trees) == []


#: (file, member): the private members of the package's classes that a test or benchmark
#: reads or calls, and why (every other use goes through public names)
TEST_PRIVATE_MEMBER_USES = {
    # the declared fitted attributes of a model, tampered with one by one
    ("tests/test_fuzz_files.py", "_fitted_declarations"),
    ("tests/test_model_files_all.py", "_fitted_declarations"),
    ("tests/test_mil_probabilities.py", "_fit"),  # wrapped to watch the folds' solves
    # the warm start's optimizer state; the device-memory check without a GPU
    ("tests/test_pae.py", "_optimizer"),
    ("tests/test_pae.py", "_check_batch_memory"),
    ("tests/test_svmplus.py", "_gamma_star"),  # the privileged kernel's width: no public name
}


def _private_member_uses_outside(files, members: set) -> set:
    """(file, member) for each ``obj.member`` of ``files`` that reads a private member of the
    package's classes (``members``) on an object other than ``self`` / ``cls``, where the file
    defines no class with that member itself."""
    found = set()
    for path in files:
        tree = ast.parse(path.read_text())
        own = _class_members(tree)
        for node in ast.walk(tree):
            if not isinstance(node, ast.Attribute) or node.attr not in members - own:
                continue
            if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
                continue
            found.add((str(path.relative_to(ROOT)), node.attr))
    return found


def test_tests_and_benchmarks_use_no_private_member():
    """Tests (but the engine's and the private modules' own) and benchmarks read fitted models
    through public names (``kernel_gamma_``, not ``_gamma``); the exceptions are listed in
    TEST_PRIVATE_MEMBER_USES with their reasons, and none is stale."""
    members = set().union(*(_class_members(ast.parse(p.read_text())) for p, _, _ in _modules()))
    tests = [
        p
        for p in sorted((ROOT / "tests").rglob("*.py"))
        if p.relative_to(ROOT / "tests").parts[0] not in PRIVATE_TEST_FOLDERS
    ]
    benchmarks = [p for p in sorted((ROOT / "benchmarks").glob("*.py")) if p.name[0] != "_"]
    found = _private_member_uses_outside(tests + benchmarks, members - CLASS_TABLES)
    assert sorted(found - TEST_PRIVATE_MEMBER_USES) == []
    assert sorted(TEST_PRIVATE_MEMBER_USES - found) == [], "stale entries"


def test_private_member_check_finds_duck_typed_use():
    base = ast.parse("class KernelMachine:\n    def _kernel_dot(self): ...\n    _t = 1\n")
    user = ast.parse(
        "class Sub(KernelMachine):\n    _t = {**KernelMachine._t}\n\n"
        "    def f(self, est):\n        self._kernel_dot()\n        return est._kernel_dot()\n"
    )
    found = _foreign_private_uses({"base": base, "pu._x": user})
    assert found == ["pu._x:6 est._kernel_dot (a member of base)"]


def test_private_member_uses_are_current():
    """Every PRIVATE_MEMBER_USES entry is still needed: a stale one would hide a new use."""
    trees = {module: ast.parse(path.read_text()) for path, module, _ in _modules()}
    saved = set(PRIVATE_MEMBER_USES)
    try:
        PRIVATE_MEMBER_USES.clear()
        found = _foreign_private_uses(trees)
    finally:
        PRIVATE_MEMBER_USES.update(saved)
    used = {(line.split(":")[0], line.split(" ")[1].rpartition(".")[2]) for line in found}
    assert saved - used == set(), "stale PRIVATE_MEMBER_USES entries"


#: the parameter constraints, defined in _validation and re-exported by base for the users:
#: the package's own modules take them from _validation, one route
CONSTRAINTS = {"Real", "Integer", "Options", "Boolean", "Instance", "Callable", "validate_params"}


def test_constraint_types_imported_from_validation_only():
    problems = []
    for path, module, is_pkg in _modules():
        for target, names, _ in _imports(path, module, is_pkg):
            if target == "base" and CONSTRAINTS & set(names):
                problems.append(f"{module} imports {sorted(CONSTRAINTS & set(names))} from base")
    assert problems == []


def test_no_private_scikit_learn_helpers():
    pattern = re.compile(r"from sklearn[\w.]* import [^\n]*\b_[a-z]\w*|sklearn\.\w*\._")
    for path, module, _ in _modules():
        assert not pattern.search(path.read_text()), f"{module} uses a private scikit-learn name"


#: test folders exempt from the public-name rule: the engine's own tests (the compiled
#: ``_engine`` and the thin modules around it) and the tests of private modules that cannot go
#: through the public API
PRIVATE_TEST_FOLDERS = ("engine", "internals")


def _private(dotted: str) -> bool:
    return any(p.startswith("_") and not p.startswith("__") for p in dotted.split("."))


def _private_imports(path: Path) -> list[str]:
    """The imports of ``path`` that name a private module or a private name of the package."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and not node.level:
            module = node.module or ""
            if module.split(".")[0] != "unlabeled":
                continue
            names = [a.name for a in node.names]
            if _private(module) or any(_private(n) for n in names):
                found.append(f"from {module} import {', '.join(names)}")
        elif isinstance(node, ast.Import):
            found += [
                f"import {a.name}"
                for a in node.names
                if a.name.split(".")[0] == "unlabeled" and _private(a.name)
            ]
    return [f"{path.relative_to(ROOT)}: {imp}" for imp in found]


_PRIVATE_IMPORT = re.compile(
    r"^\s*(from\s+unlabeled(\.\w+)*\.(_\w+)|import\s+unlabeled(\.\w+)*\.(_\w+))", re.M
)


def _public_only(paths):
    """README.md's private imports (its code blocks, read as text)."""
    return [
        f"{p.relative_to(ROOT)}: {m.group(0).strip()}"
        for p in paths
        for m in _PRIVATE_IMPORT.finditer(p.read_text())
        if not m.group(0).strip().startswith("from unlabeled.__")
    ]


def test_tests_benchmarks_and_readme_use_public_names():
    """Every Python file under tests/ (every folder but PRIVATE_TEST_FOLDERS) and benchmarks/
    (but the harness) imports public names only."""
    tests = [
        p
        for p in sorted((ROOT / "tests").rglob("*.py"))
        if p.relative_to(ROOT / "tests").parts[0] not in PRIVATE_TEST_FOLDERS
    ]
    benchmarks = [p for p in (ROOT / "benchmarks").glob("*.py") if not p.name.startswith("_")]
    found = [imp for p in tests + benchmarks for imp in _private_imports(p)]
    assert found + _public_only([ROOT / "README.md"]) == []


#: what a distributed client does; outside the Dask layer only its Chunks place work
CLIENT_CALLS = {"submit", "gather", "scatter", "compute", "persist", "map", "who_has"}


def test_no_raw_client_call_outside_the_dask_layer():
    """Every task of a fit on a cluster goes through ``_dask.Chunks`` (one placement rule,
    one tree reduction): no module outside ``_dask`` calls a client's methods."""
    problems = []
    for path, module, _ in _modules():
        if module.split(".")[0] == "_dask":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                continue
            owner = ast.unparse(node.func.value)
            if node.func.attr in CLIENT_CALLS and "client" in owner.lower():
                problems.append(f"{module}:{node.lineno} {owner}.{node.func.attr}(...)")
    assert problems == []
