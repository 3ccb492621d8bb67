"""Positive-unlabeled learning: PUSVC, NNPUClassifier (nnPU / uPU), the USMO paper's
comparison methods, the classic PU classifiers (biased SVM, bagging SVM, Elkan-Noto, positive
naive Bayes and TAN), class-prior estimation (:mod:`unlabeled.pu.priors`), and learning when
the labels are not selected completely at random (:mod:`unlabeled.pu.sar`).

Its modules: ``_base`` what the PU classifiers share (the threshold at a share's quantile
among them, ``_threshold_share``; ``PUProblem``, a fit's double-hinge dual built once and
passed to the starts of ``_starts``, the solve and ``store_solution``); ``_pusvc`` PUSVC;
``_select`` its ``gamma="cv"`` / ``lam="cv"`` (folds of a subsample scored by held-out recall
at the prior's quantile); ``_weighted`` ``PUSVC.fit(propensity=)``'s dual (one coefficient per
positive); ``_dask_linear`` linear PUSVC on Dask input (CoCoA+ rounds at a fixed offset, the
offset search, a duality gap from two bracketing states); ``_classic`` the classic PU SVMs as
C-SVM duals with per-variable boxes (one ``KernelRows`` per fit for all its folds and bags);
``_bayes`` positive naive Bayes and TAN; ``_nnpu`` the nnPU / uPU risk of a model linear in its
features by L-BFGS (``_nnpu_solver``: the risk, its smoothing, the stationarity test) and
``_nnpu_mlp`` its network form (trained by ``_nnpu_torch``, torch imported by ``fit`` only);
``_baselines`` the USMO paper's comparison methods; ``priors`` the class-prior estimators (one
private module per family: ``_priors_*``; ``Blend``, ``prior="auto"``'s, the mean of repeated
best-bin and TIcE estimates); ``sar`` labels not selected at random."""

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
