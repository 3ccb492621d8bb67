"""Semi-supervised learning: WellSVM and its baselines (the SVM on the labeled points, TSVM,
LapSVM), and CLSST (a variational Bayesian mixture of factor analysers)."""

from ._clsst import CLSST
from ._labeled import LabeledSVM
from ._lapsvm import LapSVM
from ._tsvm import TSVM
from ._wellsvm import WellSVM

__all__ = ["CLSST", "LabeledSVM", "LapSVM", "TSVM", "WellSVM"]
