"""unlabeled: learning from unlabeled and weakly labeled data with exact kernel solvers."""

from . import datasets, lupi, model_selection, pu, ssl
from .lupi import SVMPlus
from .pu import PUSVC
from .ssl import TSVM, LabeledSVM, LapSVM, WellSVM

__version__ = "0.1.0"

__all__ = [
    "PUSVC",
    "LabeledSVM",
    "LapSVM",
    "SVMPlus",
    "TSVM",
    "WellSVM",
    "datasets",
    "lupi",
    "model_selection",
    "pu",
    "ssl",
    "__version__",
]
