"""unlabeled: learning from unlabeled and weakly labeled data with exact kernel solvers."""

from . import datasets, generative, lupi, metrics, model_selection, pu
from .generative import PlummerAutoencoder
from .lupi import SVMPlus
from .pu import PUSVC

__version__ = "0.1.0"

__all__ = [
    "PUSVC",
    "PlummerAutoencoder",
    "SVMPlus",
    "datasets",
    "generative",
    "lupi",
    "metrics",
    "model_selection",
    "pu",
    "__version__",
]
