"""The estimators the command fits: their names, classes and families, from the registry.

Nothing here imports an estimator at module level: ``unlabeled --help`` must not pay for
scikit-learn. The table is read from the declarations (:mod:`unlabeled.registry`, which reads
the source), and :func:`estimator_class` imports the one subpackage asked for.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import NamedTuple

from ..registry import all_estimators

__all__ = ["ESTIMATORS", "FAMILIES", "estimator_class", "family_of_class"]


class Entry(NamedTuple):
    package: str  # the public module of unlabeled that exports it
    cls: str
    family: str
    summary: str


class _Table(Mapping[str, Entry]):
    """--estimator NAME -> where its class lives, its data layout (family) and a line of help:
    the registered estimators that have a command-line name, by family, read when used (a
    class registered later joins it)."""

    def _entries(self) -> dict[str, Entry]:
        found = sorted(all_estimators(), key=lambda e: _ORDER.get(e.family, len(_ORDER)))
        return {
            e.command: Entry(e.home, e.name, e.family, e.summary)
            for e in found  # by family, then by name
            if e.command is not None and e.family in FAMILIES
        }

    def __getitem__(self, name: str) -> Entry:
        return self._entries()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries())

    def __len__(self) -> int:
        return len(self._entries())


ESTIMATORS: Mapping[str, Entry] = _Table()

#: family -> how its data file is laid out, for the help
FAMILIES = {
    "pu": "label column: --positive-value (default 1) marks the labeled positives, "
    "anything else is unlabeled",
    "ssl": "label column: the classes (two or more), -1 marks an unlabeled row",
    "mil": "--bag-column holds each row's bag id, the label column the bag's label (the same "
    "on each of its rows); predictions are one per bag",
    "lupi": "label column with two classes; --privileged-columns a,b,c are used by fit only",
    "cluster": "no label column (every column but --ignore-column is a feature)",
    "generative": "no label column (every column but --ignore-column is a feature)",
}


_ORDER = {family: i for i, family in enumerate(FAMILIES)}


def estimator_class(name: str) -> type:
    """The class of ``--estimator name``, importing only its subpackage (deferred: each costs
    scikit-learn and the engine, which ``--help`` of other commands must not load)."""
    entry = next(e for e in all_estimators() if e.command == name)
    return entry.load()


def family_of_class(class_name: str) -> str | None:
    """The family of a saved model's class (its last dotted part), or None when the command
    does not fit it."""
    for entry in ESTIMATORS.values():
        if entry.cls == class_name:
            return entry.family
    return None
