"""Positive-unlabeled learning: PUSVC and the USMO paper's comparison methods."""

from ._baselines import DoubleHingeQP, RampPU, USMOInit
from ._pusvc import PUSVC

__all__ = ["PUSVC", "DoubleHingeQP", "RampPU", "USMOInit"]
