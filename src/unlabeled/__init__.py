"""unlabeled: learning from unlabeled and weakly labeled data with exact kernel solvers.

The names below are imported on first use (PEP 562): ``import unlabeled`` alone loads neither
scikit-learn nor NumPy, so that the ``unlabeled`` command (whose entry point lives in this
package) answers ``--help`` at once. ``from unlabeled import PUSVC`` works as usual.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from ._version import __version__

if TYPE_CHECKING:  # what the lazy names are, for type checkers
    from . import (
        base,
        cluster,
        datasets,
        exceptions,
        generative,
        lupi,
        metrics,
        mil,
        model_io,
        model_selection,
        plotting,
        pu,
        ssl,
    )
    from ._config import config_context, get_config, set_config
    from .cluster import WellSVMClustering
    from .generative import PlummerAutoencoder
    from .lupi import SVMPlus
    from .mil import MISVM, MILWellSVM, miSVM
    from .model_io import load, save
    from .pu import PUSVC
    from .ssl import CLSST, TSVM, LabeledSVM, LapSVM, WellSVM

_SUBMODULES = frozenset(
    ["base", "cluster", "datasets", "exceptions", "generative", "lupi", "metrics", "mil",
     "model_io", "model_selection", "plotting", "pu", "ssl"]
)  # fmt: skip
#: each public name that is not a submodule, and the module that defines it
_HOMES = {
    "config_context": "_config",
    "get_config": "_config",
    "set_config": "_config",
    "WellSVMClustering": "cluster",
    "PlummerAutoencoder": "generative",
    "SVMPlus": "lupi",
    "MISVM": "mil",
    "MILWellSVM": "mil",
    "miSVM": "mil",
    "PUSVC": "pu",
    "CLSST": "ssl",
    "TSVM": "ssl",
    "LabeledSVM": "ssl",
    "LapSVM": "ssl",
    "WellSVM": "ssl",
    "load": "model_io",
    "save": "model_io",
}

__all__ = [
    "CLSST",
    "PUSVC",
    "LabeledSVM",
    "LapSVM",
    "MILWellSVM",
    "MISVM",
    "PlummerAutoencoder",
    "SVMPlus",
    "TSVM",
    "WellSVM",
    "WellSVMClustering",
    "base",
    "cluster",
    "config_context",
    "datasets",
    "exceptions",
    "generative",
    "get_config",
    "load",
    "lupi",
    "metrics",
    "mil",
    "miSVM",
    "model_io",
    "model_selection",
    "plotting",
    "pu",
    "save",
    "set_config",
    "ssl",
    "__version__",
]


def __getattr__(name: str) -> object:
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    if name in _HOMES:
        value = getattr(importlib.import_module(f"{__name__}.{_HOMES[name]}"), name)
        globals()[name] = value  # later look-ups skip this function
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
