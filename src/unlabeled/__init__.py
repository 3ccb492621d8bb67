"""unlabeled: learning from unlabeled and weakly labeled data with exact kernel solvers."""

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
    pu,
    ssl,
)
from ._config import config_context, get_config, set_config
from ._version import __version__
from .cluster import WellSVMClustering
from .generative import PlummerAutoencoder
from .lupi import SVMPlus
from .mil import MISVM, MILWellSVM, miSVM
from .pu import PUSVC
from .ssl import CLSST, TSVM, LabeledSVM, LapSVM, WellSVM

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
    "lupi",
    "metrics",
    "mil",
    "miSVM",
    "model_io",
    "model_selection",
    "pu",
    "set_config",
    "ssl",
    "__version__",
]
