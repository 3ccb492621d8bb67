"""The public API of the package, discovered rather than listed: the names in
``unlabeled.__all__`` and, recursively, in the ``__all__`` of every public module among them
(test_typing.py checks their signatures, test_docs.py their docstrings)."""

from __future__ import annotations

import inspect
import types
from collections.abc import Callable, Iterator
from functools import cached_property

import unlabeled

PACKAGE = "unlabeled"
#: the dunder methods that are part of a class's public interface
PUBLIC_DUNDERS = ("__init__", "__call__")


def ours(obj: object) -> bool:
    module = getattr(obj, "__module__", None) or ""
    return module == PACKAGE or module.startswith(PACKAGE + ".")


def public_names(module: types.ModuleType) -> list[str]:
    names = getattr(module, "__all__", None)
    assert names is not None, f"public module {module.__name__} has no __all__"
    return list(names)


def public_api() -> tuple[list[str], list[tuple[str, object]]]:
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
        for name in public_names(module):
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


def public_callables() -> Iterator[tuple[str, Callable[..., object]]]:
    """Every public function and every public method of a library class, by qualified name."""
    for qualname, obj in public_api()[1]:
        if inspect.isclass(obj):
            if not ours(obj):
                continue
            done: set[str] = set()
            for klass in obj.__mro__:
                if not ours(klass):
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
        elif inspect.isfunction(obj) and ours(obj):
            yield qualname, obj
