"""The one list of the library's estimators: each declares itself once, with :func:`register`;
and of their families (:data:`FAMILIES`: each data layout declared once, as a :class:`Family`).

Everything that needs the set of estimators reads it here: the lazy top-level names of
``unlabeled`` (those with a command-line name), the types that model files may hold
(:data:`unlabeled.model_io.TRUSTED_TYPES`), the command line's ``--estimator`` list, the
documentation's estimator table and the tests that run on every estimator (the common suite,
from each entry's :class:`Case` list).

The library's own declarations are also read from the source, without importing it (a
decorator's arguments are literals): ``import unlabeled`` and ``unlabeled --help`` must not load
NumPy or scikit-learn to know which estimators exist. A class registered at run time (a
test's toy estimator, a plug-in) joins the declared ones until :func:`unregister`.

This module imports nothing of the package (layer 0 of ARCHITECTURE.md).
"""

from __future__ import annotations

import importlib
import os
import re
from collections.abc import Callable, Mapping
from typing import NamedTuple, TypeVar

__all__ = [
    "FAMILIES",
    "Case",
    "Entry",
    "Family",
    "all_estimators",
    "command_of",
    "exported",
    "register",
    "unregister",
]

T = TypeVar("T", bound=type)

#: how a case's data is made: dense X, a CSR copy, the rbf Gram matrix (kernel="precomputed"),
#: or X alone (no labels: fit(X))
DATA = ("dense", "sparse", "precomputed", "unlabeled")


class Family(NamedTuple):
    """A family of estimators: one data layout, declared once (:data:`FAMILIES`).

    Everything that differs between families follows from these fields: what ``fit`` is
    given (the common suite's data, the command line's reading of a data file), the help on
    the data file's layout, and what the command line does with the label column. The rest
    of the command's behaviour is read from each estimator (its methods and fitted
    attributes), so that a new estimator of a family needs no edit of the command line.

    Attributes
    ----------
    name : str
        The family's one name: its subpackage of ``unlabeled`` and ``register(family=)``.
    title : str
        What it is, in words.
    fit : tuple of str
        ``fit``'s positional arguments, by role: ``"X"`` the points, ``"s"`` the PU labels
        (1: labeled positive, 0: unlabeled), ``"y"`` the labels, ``"X_star"`` the privileged
        features.
    keywords : tuple of str
        ``fit``'s keyword arguments by role, which the row-wise methods (``predict``,
        ``score``) take too: ``"groups"``, the bag of each row.
    labels : {"pu", "ssl", "classes"} or None
        What a data file's label column holds: the labeled positives (``--positive-value``),
        two classes with -1 for an unlabeled row, classes; None: no label column.
    layout : str
        The data file's layout, for the command line's help.

    Examples
    --------
    >>> from unlabeled.registry import FAMILIES
    >>> FAMILIES["lupi"].arguments({"X": 1, "y": 2, "X_star": 3, "s": 4})
    ((1, 2, 3), {})
    """

    name: str
    title: str
    fit: tuple[str, ...]
    keywords: tuple[str, ...] = ()
    labels: str | None = "classes"
    layout: str = ""

    def arguments(self, data: Mapping[str, object]) -> tuple[tuple, dict]:
        """``fit``'s positional and keyword arguments, taken by role from ``data``."""
        return tuple(data[k] for k in self.fit), {k: data[k] for k in self.keywords}


_NO_LABELS = "no label column (every column but --ignore-column is a feature)"
#: the families, by name: the data layouts, as the command line and the common suite read them
FAMILIES: dict[str, Family] = {
    f.name: f
    for f in (
        Family(
            "pu",
            "positive-unlabeled",
            ("X", "s"),
            labels="pu",
            layout="label column: --positive-value (default 1) marks the labeled positives, "
            "anything else is unlabeled",
        ),
        Family(
            "ssl",
            "semi-supervised",
            ("X", "y"),
            labels="ssl",
            layout="label column: the classes (two or more), -1 marks an unlabeled row",
        ),
        Family(
            "mil",
            "multi-instance",
            ("X", "y"),
            ("groups",),
            layout="--bag-column holds each row's bag id, the label column the bag's label "
            "(the same on each of its rows); predictions are one per bag",
        ),
        Family(
            "lupi",
            "learning using privileged information",
            ("X", "y", "X_star"),
            layout="label column with two classes; --privileged-columns a,b,c are used by fit only",
        ),
        Family("cluster", "clustering", ("X",), labels=None, layout=_NO_LABELS),
        Family("generative", "generative models", ("X",), labels=None, layout=_NO_LABELS),
    )
}


class Case(NamedTuple):
    """One instance that the common suite fits and checks.

    Parameters
    ----------
    params : dict
        Constructor parameters (small, fast settings).
    data : {"dense", "sparse", "precomputed", "unlabeled"}
        The training data: the family's dense data, a CSR copy, its rbf Gram matrix, or the
        points without labels.
    name : str
        Added to the estimator's name in the test's id (empty for the first case).

    Examples
    --------
    >>> from unlabeled.registry import Case
    >>> Case({"prior": 0.4}, data="sparse", name="sparse").data
    'sparse'
    """

    params: dict = {}  # noqa: RUF012 - a NamedTuple's default, never changed
    data: str = "dense"
    name: str = ""


class Entry(NamedTuple):
    """A registered estimator.

    Attributes
    ----------
    name : str
        The class's name.
    module : str
        The module that defines it.
    family : str
        Its data layout, a key of :data:`FAMILIES`: ``"pu"``, ``"ssl"``, ``"mil"``,
        ``"lupi"``, ``"cluster"``, ``"generative"``.
    command : str or None
        Its ``unlabeled fit --estimator`` name; an estimator with one is also a top-level name
        of ``unlabeled``.
    summary : str
        One line of help.
    cases : tuple of Case
        The instances the common suite tests (empty until its module is imported).
    needs : tuple of str
        Optional modules it needs to fit (``"torch"``, ``"clarabel"``).
    aliases : tuple of str
        Former ``--estimator`` names, still accepted with a deprecation warning.
    cls : type or None
        The class, once registered (None: only declared, its module not imported yet).

    Examples
    --------
    >>> from unlabeled.registry import all_estimators
    >>> next(e for e in all_estimators() if e.name == "PUSVC").command
    'pusvc'
    """

    name: str
    module: str
    family: str
    command: str | None = None
    summary: str = ""
    cases: tuple[Case, ...] = ()
    needs: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()
    cls: type | None = None

    @property
    def path(self) -> str:
        """``module.name``, as a model file names the class."""
        return f"{self.module}.{self.name}"

    @property
    def home(self) -> str:
        """The public module that exports it: its module up to the first private part."""
        parts = self.module.split(".")
        private = [i for i, part in enumerate(parts) if part.startswith("_")]
        return ".".join(parts[: private[0]]) if private and private[0] else self.module

    def load(self) -> type:
        """The class (importing its public module, and so the method's subpackage)."""
        if self.cls is not None:
            return self.cls
        return getattr(importlib.import_module(self.home), self.name)


#: the entries registered at run time, by path (classes defined or imported so far)
_REGISTERED: dict[str, Entry] = {}


def register(
    *,
    family: str,
    command: str | None = None,
    summary: str = "",
    cases: tuple[Case, ...] = (Case(),),
    needs: tuple[str, ...] = (),
    aliases: tuple[str, ...] = (),
) -> Callable[[T], T]:
    """Declare an estimator class: the decorator that puts it on the library's one list.

    It is the last decorator, directly above the class, and its arguments other than
    ``cases`` are literals: strings in double quotes without escapes (a tuple of them for
    ``needs``), as they are read from the source without importing it.

    Parameters
    ----------
    family : str
        Its data layout (see :class:`Entry`).
    command : str, optional
        Its ``--estimator`` name (and so a top-level name of ``unlabeled``).
    summary : str
        One line of help for the command line and the documentation.
    cases : tuple of Case
        The instances the common suite fits and checks.
    needs : tuple of str
        Optional modules that fitting it needs.
    aliases : tuple of str
        Former ``--estimator`` names of the class, accepted with a deprecation warning.

    Returns
    -------
    decorator : callable
        Registers the class and returns it unchanged.

    Examples
    --------
    >>> from unlabeled.registry import register, unregister
    >>> @register(family="cluster", summary="a toy")
    ... class Toy:
    ...     pass
    >>> unregister(Toy)
    """
    if family not in FAMILIES:
        raise ValueError(f"register: family must be one of {tuple(FAMILIES)}, got {family!r}")
    if aliases and command is None:
        raise ValueError("register: aliases are former command names: give the command too")
    if not isinstance(cases, tuple) or not all(isinstance(c, Case) for c in cases):
        raise TypeError(f"register: cases must be a tuple of Case, got {cases!r}")
    bad = [c.data for c in cases if c.data not in DATA]
    if bad:
        raise ValueError(f"register: a case's data must be one of {DATA}, got {bad[0]!r}")

    def decorate(cls: T) -> T:
        entry = Entry(
            cls.__qualname__, cls.__module__, family, command, summary, cases, needs, aliases
        )
        for name in (command, *aliases) if command is not None else ():
            clash = [e.path for e in all_estimators() if name in (e.command, *e.aliases)]
            if clash and clash != [entry.path]:
                raise ValueError(f"register: command {name!r} is already {clash[0]}'s")
        _REGISTERED[entry.path] = entry._replace(cls=cls)
        return cls

    return decorate


def unregister(cls: type) -> None:
    """Remove a class registered at run time (a test's toy estimator) from the list.

    Parameters
    ----------
    cls : type
        The class.

    Examples
    --------
    >>> from unlabeled.registry import register, unregister
    >>> Toy = register(family="pu")(type("Toy", (), {}))
    >>> unregister(Toy)
    """
    _REGISTERED.pop(f"{cls.__module__}.{cls.__qualname__}", None)


def all_estimators(*, family: str | None = None, load: bool = False) -> list[Entry]:
    """The registered estimators, sorted by name (a stable order).

    Parameters
    ----------
    family : str, optional
        Only those of this family.
    load : bool
        Import the method subpackages first, so that every entry has its cases (the tests).
        Without it nothing is imported.

    Returns
    -------
    entries : list of Entry

    Examples
    --------
    >>> from unlabeled.registry import all_estimators
    >>> [e.command for e in all_estimators(family="lupi")]
    ['svmplus']
    """
    found = {e.path: e for e in _declared()}
    if load:
        for entry in found.values():
            importlib.import_module(entry.home)
    found.update(_REGISTERED)
    entries = sorted(found.values(), key=lambda e: (e.name.lower(), e.name, e.module))
    return [e for e in entries if family is None or e.family == family]


def command_of(name: str) -> tuple[Entry, bool] | None:
    """The estimator whose ``--estimator`` name, or former name, is ``name``.

    Parameters
    ----------
    name : str

    Returns
    -------
    (entry, deprecated) or None
        The entry, and whether ``name`` is one of its former names (an alias); None when no
        estimator has that name.

    Examples
    --------
    >>> from unlabeled.registry import command_of
    >>> entry, deprecated = command_of("clustering")
    >>> entry.command, deprecated
    ('cluster-wellsvm', True)
    """
    for e in all_estimators():
        if e.command is not None and name in (e.command, *e.aliases):
            return e, name != e.command
    return None


def exported(module: str) -> list[str]:
    """The names of the estimators that a public module exports (its ``__all__``'s share).

    Parameters
    ----------
    module : str
        The public module, such as ``"unlabeled.ssl"``.

    Returns
    -------
    names : list of str

    Examples
    --------
    >>> from unlabeled.registry import exported
    >>> exported("unlabeled.lupi")
    ['SVMPlus']
    """
    return [e.name for e in all_estimators() if e.home == module]


# ---------------------------------------------------------------------- the declarations
_DECORATED = re.compile(r"@register\((.*?)\)\n(?:@.*\n)*class (\w+)", re.S)
#: the arguments read from the source: strings and tuples of strings, in double quotes, without
#: escapes (what ruff format writes; tests/test_registry.py checks them against the classes)
_LITERAL = re.compile(
    r'\b(family|command|summary|needs|aliases)=("[^"\\]*"|\((?:\s*"[^"\\]*",?)*\s*\))'
)


#: a private module whose classes' public home is another module (pu/_priors_*: their model
#: files name them in unlabeled.pu.priors) says so in one line, and sets each registered
#: class's ``__module__`` to it
_PUBLIC_MODULE = re.compile(r'^PUBLIC_MODULE = "([\w.]+)"$', re.M)

_DECLARED: list[Entry] = []


def _declared() -> list[Entry]:
    """The package's own declarations, read from its source once (no import: a few ms)."""
    if _DECLARED:
        return _DECLARED
    root = os.path.dirname(os.path.abspath(__file__))
    package = os.path.basename(root)
    for folder, dirs, files in os.walk(root):  # top-down: the pruned folders are not read
        dirs[:] = [d for d in dirs if d not in ("_engine", "cli", "__pycache__")]
        for filename in (f for f in files if f.endswith(".py") and f != "registry.py"):
            with open(os.path.join(folder, filename), "rb") as f:
                raw = f.read()
            if b"\n@register(" not in raw:
                continue
            parts = os.path.relpath(os.path.join(folder, filename[:-3]), root).split(os.sep)
            _DECLARED.extend(_parse(raw.decode("utf-8"), ".".join([package, *parts])))
    if not _DECLARED:  # an install without its sources: import the subpackages instead
        _DECLARED.extend(_imported(root, package))
    return _DECLARED


def _imported(root: str, package: str) -> list[Entry]:
    """The package's registrations after importing each of its public subpackages."""
    for name in sorted(os.listdir(root)):
        inits = [os.path.join(root, name, f"__init__.{ext}") for ext in ("py", "pyc")]
        if name[0] != "_" and name != "cli" and any(map(os.path.exists, inits)):
            importlib.import_module(f"{package}.{name}")
    return [e._replace(cls=None) for e in _REGISTERED.values() if e.module.startswith(package)]


def _parse(text: str, module: str) -> list[Entry]:
    """The entries that a module's ``@register(...)`` lines declare (no ``ast``: a regular
    expression per argument keeps the command line's start-up at a few milliseconds)."""
    entries = []
    public = _PUBLIC_MODULE.search(text)
    module = public.group(1) if public else module
    start = text.find("\n@register(")
    while start >= 0:
        m = _DECORATED.match(text, start + 1)
        start = text.find("\n@register(", start + 1)
        if m is None:
            continue
        kw: dict = {}
        for key, value in _LITERAL.findall(m.group(1)):
            strings = re.findall(r'"([^"]*)"', value)
            kw[key] = tuple(strings) if value.startswith("(") else strings[0]
        entries.append(Entry(m.group(2), module, **kw))
    return entries
