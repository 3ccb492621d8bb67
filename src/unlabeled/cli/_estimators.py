"""The estimators the command fits: the registry's entries with a command-line name.

Nothing here imports an estimator at module level: ``unlabeled --help`` must not pay for
scikit-learn. The table is read from the declarations (:mod:`unlabeled.registry`, which reads
the source), and :func:`estimator_class` imports the one subpackage asked for. The families
(their data layouts) are the registry's :data:`~unlabeled.registry.FAMILIES`.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator, Mapping

from ..registry import FAMILIES, Entry, all_estimators, command_of

__all__ = ["ESTIMATORS", "canonical", "estimator_class", "family_of_class"]


class _Table(Mapping[str, Entry]):
    """--estimator NAME -> its registry entry (its class, family and line of help): the
    registered estimators that have a command-line name, by family, then by name, read when
    used (a class registered later joins it)."""

    def _entries(self) -> dict[str, Entry]:
        order = {family: i for i, family in enumerate(FAMILIES)}
        found = sorted(all_estimators(), key=lambda e: order.get(e.family, len(order)))
        return {e.command: e for e in found if e.command is not None}

    def __getitem__(self, name: str) -> Entry:
        return self._entries()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries())

    def __len__(self) -> int:
        return len(self._entries())


ESTIMATORS: Mapping[str, Entry] = _Table()


def canonical(name: str, *, warn: bool = False) -> str:
    """The ``--estimator`` name that ``name`` stands for: itself, or for a former name (an
    alias) the current one, with a deprecation warning when ``warn``. An unknown name is
    returned as it is, for the parser to refuse."""
    found = command_of(name)
    if found is None or not found[1]:
        return name
    entry = found[0]
    if warn:
        warnings.warn(
            f"--estimator {name} is deprecated and will be removed: use --estimator "
            f"{entry.command}",
            FutureWarning,
            stacklevel=2,
        )
    return str(entry.command)


def estimator_class(name: str) -> type:
    """The class of ``--estimator name``, importing only its subpackage (deferred: each costs
    scikit-learn and the engine, which ``--help`` of other commands must not load)."""
    return ESTIMATORS[canonical(name)].load()


def family_of_class(class_name: str) -> str | None:
    """The family of a saved model's class (its last dotted part), or None when the command
    does not fit it."""
    for entry in ESTIMATORS.values():
        if entry.name == class_name:
            return entry.family
    return None
