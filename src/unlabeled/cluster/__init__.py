"""Clustering: maximum-margin clustering into two clusters by WellSVM's convex relaxation."""

from ._wellsvm import WellSVMClustering

__all__ = ["WellSVMClustering"]
