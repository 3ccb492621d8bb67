"""Semi-supervised learning: WellSVM and its baselines (the SVM on the labeled points, TSVM,
LapSVM)."""

from ._labeled import LabeledSVM
from ._lapsvm import LapSVM
from ._tsvm import TSVM
from ._wellsvm import WellSVM

__all__ = ["LabeledSVM", "LapSVM", "TSVM", "WellSVM"]
