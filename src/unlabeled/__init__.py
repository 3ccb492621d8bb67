"""unlabeled: learning from unlabeled and weakly labeled data with exact kernel solvers."""

from . import datasets, pu
from .pu import PUSVC

__version__ = "0.1.0"

__all__ = ["PUSVC", "datasets", "pu", "__version__"]
