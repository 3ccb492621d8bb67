"""Positive-unlabeled learning: PUSVC, the USMO paper's comparison methods, and class-prior
estimation (:mod:`unlabeled.pu.priors`)."""

from . import priors
from ._baselines import DoubleHingeQP, RampPU, USMOInit
from ._pusvc import PUSVC

__all__ = ["PUSVC", "DoubleHingeQP", "RampPU", "USMOInit", "priors"]
