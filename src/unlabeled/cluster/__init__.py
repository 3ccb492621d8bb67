"""Clustering: maximum-margin clustering into two clusters by WellSVM's convex relaxation."""

from ..registry import exported
from ._wellsvm import WellSVMClustering as WellSVMClustering

__all__ = exported(__name__)
