"""Semi-supervised learning: WellSVM and its baselines TSVM and LapSVM."""

from ._lapsvm import LapSVM
from ._tsvm import TSVM
from ._wellsvm import WellSVM

__all__ = ["LapSVM", "TSVM", "WellSVM"]
