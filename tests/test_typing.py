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
from collections.abc import Callable
from pathlib import Path

from public_api import public_api, public_callables

import unlabeled


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
    modules = public_api()[0]
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
    names = {qualname for qualname, _ in public_callables()}
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
    for qualname, func in public_callables():
        missing = _missing(func)
        if missing:
            offenders.append(f"{qualname}: {', '.join(missing)}")
    assert not offenders, f"{len(offenders)} public signatures lack annotations:\n" + "\n".join(
        offenders
    )


def test_the_package_is_marked_typed() -> None:
    assert (Path(unlabeled.__file__).parent / "py.typed").is_file()
