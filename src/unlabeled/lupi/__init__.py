"""Learning using privileged information (LUPI): SVM+ with the aSMO and gSMO solvers."""

from ._svmplus import SVMPlus

__all__ = ["SVMPlus"]
