"""Every public signature of the library is annotated, and the package says so (``py.typed``).

The public API is discovered, not listed: the names in ``unlabeled.__all__`` and, recursively, in
the ``__all__`` of every public module among them (``unlabeled.pu.priors`` through
``unlabeled.pu``), so that a new name cannot be forgotten. For every public function, and every
public method (``__init__`` and ``__call__`` included, properties by their getter) defined by a
class of the library, each parameter but ``self``/``cls`` must be annotated (``*args`` and
``**kwargs`` may be left bare), and so must the return. Methods that the library's classes
inherit from scikit-learn or ``object`` are not the library's and are skipped.
"""

from __future__ import annotations

import inspect
import types
from collections.abc import Callable, Iterator
from functools import cached_property
from pathlib import Path

import unlabeled

PACKAGE = "unlabeled"
#: the dunder methods that are part of a class's public interface
PUBLIC_DUNDERS = ("__init__", "__call__")


def _ours(obj: object) -> bool:
    module = getattr(obj, "__module__", None) or ""
    return module == PACKAGE or module.startswith(PACKAGE + ".")


def _public_names(module: types.ModuleType) -> list[str]:
    names = getattr(module, "__all__", None)
    assert names is not None, f"public module {module.__name__} has no __all__"
    return list(names)


def _public_api() -> tuple[list[str], list[tuple[str, object]]]:
    """The public modules, and ``(qualified name, object)`` for every other public name: a walk
    from ``unlabeled`` through the ``__all__`` of each public module, each object taken once."""
    modules: list[str] = []
    objects: list[tuple[str, object]] = []
    seen: set[int] = set()
    todo = [unlabeled]
    while todo:
        module = todo.pop(0)
        if module.__name__ in modules:
            continue
        modules.append(module.__name__)
        for name in _public_names(module):
            try:
                obj = getattr(module, name)
            except ImportError:  # the torch functions of unlabeled.generative, without torch
                continue
            if isinstance(obj, types.ModuleType):
                if obj.__name__.startswith(PACKAGE + "."):
                    todo.append(obj)
            elif id(obj) not in seen:
                seen.add(id(obj))
                objects.append((f"{module.__name__}.{name}", obj))
    return modules, objects


def _callables() -> Iterator[tuple[str, Callable[..., object]]]:
    """Every public function and every public method of a library class, by qualified name."""
    for qualname, obj in _public_api()[1]:
        if inspect.isclass(obj):
            if not _ours(obj):
                continue
            done: set[str] = set()
            for klass in obj.__mro__:
                if not _ours(klass):
                    continue  # scikit-learn's, torch's or object's
                for name, attr in vars(klass).items():
                    if name in done:
                        continue  # overridden lower in the MRO: that one is checked
                    done.add(name)
                    if name.startswith("_") and name not in PUBLIC_DUNDERS:
                        continue
                    if isinstance(attr, (staticmethod, classmethod)):
                        attr = attr.__func__
                    elif isinstance(attr, property):
                        attr = attr.fget
                    elif isinstance(attr, cached_property):
                        attr = attr.func
                    if not inspect.isfunction(attr):
                        continue  # class attributes, constants
                    yield f"{qualname}.{name} (from {klass.__module__}.{klass.__qualname__})", attr
        elif inspect.isfunction(obj) and _ours(obj):
            yield qualname, obj


def _missing(func: Callable[..., object]) -> list[str]:
    """What is not annotated in ``func``'s signature: parameter names, and ``return``."""
    signature = inspect.signature(func)
    parameters = list(signature.parameters.values())
    missing = []
    for i, p in enumerate(parameters):
        if i == 0 and p.name in ("self", "cls"):
            continue
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        if p.annotation is p.empty:
            missing.append(p.name)
    if signature.return_annotation is signature.empty:
        missing.append("return")
    return missing


def test_the_public_api_is_discovered() -> None:
    """The walk reaches every public module and the names the issue lists."""
    modules = _public_api()[0]
    for name in (
        "unlabeled.base",
        "unlabeled.cluster",
        "unlabeled.datasets",
        "unlabeled.exceptions",
        "unlabeled.generative",
        "unlabeled.lupi",
        "unlabeled.metrics",
        "unlabeled.mil",
        "unlabeled.model_io",
        "unlabeled.model_selection",
        "unlabeled.pu",
        "unlabeled.pu.priors",
        "unlabeled.ssl",
    ):
        assert name in modules
    names = {qualname for qualname, _ in _callables()}
    for expected in (
        "unlabeled.PUSVC.fit",
        "unlabeled.CLSST.predict_proba",
        "unlabeled.PlummerAutoencoder.transform",
        "unlabeled.set_config",
        "unlabeled.pu.priors.KM2.fit",
        "unlabeled.model_selection.PUStratifiedKFold.split",
        "unlabeled.base.KernelMachine.decision_function",
    ):
        assert any(n == expected or n.startswith(expected + " ") for n in names), expected


def test_every_public_signature_is_annotated() -> None:
    offenders = []
    for qualname, func in _callables():
        missing = _missing(func)
        if missing:
            offenders.append(f"{qualname}: {', '.join(missing)}")
    assert not offenders, f"{len(offenders)} public signatures lack annotations:\n" + "\n".join(
        offenders
    )


def test_the_package_is_marked_typed() -> None:
    assert (Path(unlabeled.__file__).parent / "py.typed").is_file()
