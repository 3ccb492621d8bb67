"""unlabeled: learning from unlabeled and weakly labeled data with exact kernel solvers."""

from . import cluster, datasets, generative, lupi, metrics, mil, model_selection, pu, ssl
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
    "cluster",
    "datasets",
    "generative",
    "lupi",
    "metrics",
    "mil",
    "miSVM",
    "model_selection",
    "pu",
    "ssl",
    "__version__",
]
