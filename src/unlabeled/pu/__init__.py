"""Positive-unlabeled learning: PUSVC, NNPUClassifier (nnPU / uPU), the USMO paper's
comparison methods, the classic PU classifiers (biased SVM, bagging SVM, Elkan-Noto, positive
naive Bayes and TAN), class-prior estimation (:mod:`unlabeled.pu.priors`), and learning when
the labels are not selected completely at random (:mod:`unlabeled.pu.sar`)."""

from ..registry import exported
from . import priors as priors
from . import sar as sar
from ._baselines import DoubleHingeQP as DoubleHingeQP
from ._baselines import RampPU as RampPU
from ._baselines import USMOInit as USMOInit
from ._bayes import PositiveNaiveBayes as PositiveNaiveBayes
from ._bayes import PositiveTAN as PositiveTAN
from ._classic import BaggingPUClassifier as BaggingPUClassifier
from ._classic import BiasedSVM as BiasedSVM
from ._classic import ElkanNotoClassifier as ElkanNotoClassifier
from ._nnpu import NNPUClassifier as NNPUClassifier
from ._nnpu_mlp import NNPUMLPClassifier as NNPUMLPClassifier
from ._pusvc import PUSVC as PUSVC

__all__ = [*exported(__name__), "priors", "sar"]
