"""The API reference's table of estimators, made from :mod:`unlabeled.registry` (imported by
docs/conf.py; tests/test_registry.py checks that a registered class appears in it)."""

from __future__ import annotations

from unlabeled.registry import all_estimators


def estimator_table() -> list[str]:
    """RST lines: one row per registered estimator (its page, family, command, summary)."""
    lines = [
        ".. _api-estimators:",
        "",
        "Estimators",
        "----------",
        "",
        "Every estimator of the library, as it declares itself (:mod:`unlabeled.registry`): the",
        "layout of its data (its family), its ``unlabeled fit --estimator`` name and what it is.",
        "",
        ".. list-table::",
        "   :header-rows: 1",
        "",
        "   * - Estimator",
        "     - Family",
        "     - Command line",
        "     - Summary",
    ]
    for e in all_estimators():
        top = e.command and e.module.startswith("unlabeled.")  # documented under unlabeled
        page = f"unlabeled.{e.name}" if top else f"{e.home}.{e.name}"
        lines += [
            f"   * - :class:`~{page}`",
            f"     - {e.family}",
            f"     - ``{e.command}``" if e.command else "     - (none)",
            f"     - {e.summary}",
        ]
    return [*lines, ""]
