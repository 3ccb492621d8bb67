"""Learning using privileged information (LUPI): SVM+ with the aSMO and gSMO solvers."""

from ..registry import exported
from ._svmplus import SVMPlus as SVMPlus

__all__ = exported(__name__)
