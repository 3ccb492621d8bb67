"""Semi-supervised learning: WellSVM and its baselines (the SVM on the labeled points, TSVM,
LapSVM), and CLSST (a variational Bayesian mixture of factor analysers)."""

from ..registry import exported
from ._clsst import CLSST as CLSST
from ._labeled import LabeledSVM as LabeledSVM
from ._lapsvm import LapSVM as LapSVM
from ._tsvm import TSVM as TSVM
from ._wellsvm import WellSVM as WellSVM

__all__ = exported(__name__)
