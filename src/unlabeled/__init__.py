"""unlabeled: learning from unlabeled and weakly labeled data with exact kernel solvers.

The names below are imported on first use (PEP 562): ``import unlabeled`` alone loads neither
scikit-learn nor NumPy, so that the ``unlabeled`` command (whose entry point lives in this
package) answers ``--help`` at once. ``from unlabeled import PUSVC`` works as usual.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from . import registry as registry
from ._version import __version__ as __version__

if TYPE_CHECKING:  # what the lazy names are, for type checkers
    from . import (
        base as base,
        cluster as cluster,
        datasets as datasets,
        exceptions as exceptions,
        generative as generative,
        lupi as lupi,
        metrics as metrics,
        mil as mil,
        model_io as model_io,
        model_selection as model_selection,
        plotting as plotting,
        pu as pu,
        ssl as ssl,
    )

    # the registry's top-level estimators, for type checkers (tests/test_registry.py checks
    # that these are exactly the registered ones with a command-line name)
    from ._config import (
        config_context as config_context,
        get_config as get_config,
        set_config as set_config,
    )
    from .cluster import WellSVMClustering as WellSVMClustering
    from .generative import PlummerAutoencoder as PlummerAutoencoder
    from .lupi import SVMPlus as SVMPlus
    from .mil import MISVM as MISVM, MILWellSVM as MILWellSVM, miSVM as miSVM
    from .model_io import load as load, save as save
    from .pu import PUSVC as PUSVC
    from .ssl import (
        CLSST as CLSST,
        TSVM as TSVM,
        LabeledSVM as LabeledSVM,
        LapSVM as LapSVM,
        WellSVM as WellSVM,
    )

_SUBMODULES = frozenset(
    ["base", "cluster", "datasets", "exceptions", "generative", "lupi", "metrics", "mil",
     "model_io", "model_selection", "plotting", "pu", "registry", "ssl"]
)  # fmt: skip
#: each public name that is neither a submodule nor an estimator, and the module defining it;
#: the estimators are the registry's (unlabeled.registry: those with a command-line name)
_HOMES = {
    "config_context": "_config",
    "get_config": "_config",
    "set_config": "_config",
    "load": "model_io",
    "save": "model_io",
}


def _estimators() -> dict[str, str]:
    """Each top-level estimator's name -> its public module (read from the declarations, so
    that finding a name imports only its subpackage)."""
    return {e.name: e.home for e in registry.all_estimators() if e.command is not None}


def _public_names() -> list[str]:
    return sorted([*_SUBMODULES, *_HOMES, *_estimators(), "__version__"], key=str.lower)


def __getattr__(name: str) -> object:
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    if name == "__all__":
        return _public_names()
    home = f"{__name__}.{_HOMES[name]}" if name in _HOMES else _estimators().get(name)
    if home is not None:
        value = getattr(importlib.import_module(home), name)
        globals()[name] = value  # later look-ups skip this function
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_public_names()))
