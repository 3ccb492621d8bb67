"""unlabeled: learning from unlabeled and weakly labeled data with exact kernel solvers."""

from . import datasets, lupi, metrics, model_selection, pu
from .lupi import SVMPlus
from .pu import PUSVC

__version__ = "0.1.0"

__all__ = [
    "PUSVC",
    "SVMPlus",
    "datasets",
    "lupi",
    "metrics",
    "model_selection",
    "pu",
    "__version__",
]
