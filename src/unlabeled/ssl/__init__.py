"""Semi-supervised learning: WellSVM and its baselines TSVM and LapSVM."""

from ._wellsvm import WellSVM

__all__ = ["WellSVM"]
