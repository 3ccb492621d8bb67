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
    )
    from . import (
        cluster as cluster,
    )
    from . import (
        datasets as datasets,
    )
    from . import (
        exceptions as exceptions,
    )
    from . import (
        generative as generative,
    )
    from . import (
        lupi as lupi,
    )
    from . import (
        metrics as metrics,
    )
    from . import (
        mil as mil,
    )
    from . import (
        model_io as model_io,
    )
    from . import (
        model_selection as model_selection,
    )
    from . import (
        plotting as plotting,
    )
    from . import (
        pu as pu,
    )
    from . import (
        ssl as ssl,
    )

    # the registry's top-level estimators, for type checkers (tests/test_registry.py checks
    # that these are exactly the registered ones with a command-line name)
    from ._config import (
        config_context as config_context,
    )
    from ._config import (
        get_config as get_config,
    )
    from ._config import (
        set_config as set_config,
    )
    from .cluster import WellSVMClustering as WellSVMClustering
    from .generative import PlummerAutoencoder as PlummerAutoencoder
    from .lupi import SVMPlus as SVMPlus
    from .mil import MISVM as MISVM
    from .mil import MILWellSVM as MILWellSVM
    from .mil import miSVM as miSVM
    from .model_io import load as load
    from .model_io import save as save
    from .pu import PUSVC as PUSVC
    from .pu import NNPUClassifier as NNPUClassifier
    from .ssl import (
        CLSST as CLSST,
    )
    from .ssl import (
        TSVM as TSVM,
    )
    from .ssl import (
        LabeledSVM as LabeledSVM,
    )
    from .ssl import (
        LapSVM as LapSVM,
    )
    from .ssl import (
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
    """Each top-level estimator's name -> its public module: the library's registered
    estimators with a command-line name, read from their declarations (so that finding a name
    imports only its subpackage)."""
    entries = registry.all_estimators()
    return {e.name: e.home for e in entries if e.command and e.module.startswith(f"{__name__}.")}


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
