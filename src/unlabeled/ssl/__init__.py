"""Semi-supervised learning: CLSST (a variational Bayesian mixture of factor analysers)."""

from ._clsst import CLSST

__all__ = ["CLSST"]
