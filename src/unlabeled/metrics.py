r"""Scores of a classifier from positive-unlabeled labels: the unbiased and non-negative PU risks,
the PU accuracy, the Lee-Liu criterion, ROC and precision-recall curves, their areas,
precision, recall, F1 and specificity estimated with the class prior, a check for degenerate
predictors, posterior calibration, the sensitivity of each metric to the prior, and
scikit-learn scorers built on them.

In positive-unlabeled (PU) learning the held-out data carry PU labels ``s`` (1 = labeled
positive, 0 or -1 = unlabeled), not the classes ``y``, so scikit-learn's metrics (which compare
predictions with ``y``) would score a PU model against the wrong target: a correct model
*disagrees* with ``s`` on every unlabeled positive. This module estimates the quantities that
matter from PU labels alone. It depends on no estimator and no search, so that methods
(``PUSVC.score``) and searches (:mod:`unlabeled.model_selection`) can both import it.

**The unbiased PU risk** (du Plessis, Niu, Sugiyama, NIPS 2014; ICML 2015). With labeled
positives ``P`` drawn from ``p(x | y = 1)``, unlabeled points ``U`` drawn from the mixture
``p(x) = pi p(x | y = 1) + (1 - pi) p(x | y = 0)`` and ``pi`` the class prior among the unlabeled
(the library's ``prior`` everywhere), the risk of ``f`` on the unlabeled population is

.. math::

    R(f) = \pi\,E_{P}[\ell(f(x))] + (1 - \pi)\,E_{N}[\ell(-f(x))]
         = \pi\,E_{P}[\ell(f(x))] - \pi\,E_{P}[\ell(-f(x))] + E_{U}[\ell(-f(x))],

because ``E_U[l(-f)] = pi E_P[l(-f)] + (1 - pi) E_N[l(-f)]``. Replacing the expectations by
sample means over the labeled positives and the unlabeled points gives an unbiased estimate of
``R(f)`` for any fixed ``f`` and any loss ``l(z)`` of the margin ``z = y f(x)`` (``y = +-1``).
The estimate can be negative on a finite sample; that is the price of unbiasedness.

**The Lee-Liu criterion** (Lee and Liu, ICML 2003): ``recall^2 / P(f(x) = 1)``, where the recall
is measured on the labeled positives (which, under "selected completely at random", have the
recall of all positives) and ``P(f(x) = 1)`` on the whole validation set. It equals
``precision * recall / P(y = 1)``, a quantity that behaves like the F-measure and needs no
class prior.

**Metrics of positives against negatives** (Sakai, Niu and Sugiyama 2018; Claesen et al.
2015). Under SCAR the labeled positives have the scores of all positives, so the true positive
rate ``TPR(t)`` of a threshold is measured on them, while the rate of predicted positives among
the unlabeled points is ``R_U(t) = pi TPR(t) + (1 - pi) FPR(t)``. Hence the negatives' false
positive rate ``(R_U - pi TPR) / (1 - pi)`` (:func:`pu_roc_curve`, :func:`pu_specificity_score`),
the AUC ``(AUC_PU - pi/2) / (1 - pi)`` (:func:`pu_roc_auc_score`), and the precision on the
unlabeled population ``pi TPR / R_U`` (:func:`pu_precision_score`,
:func:`pu_precision_recall_curve`, :func:`pu_average_precision_score`). Each needs the prior;
:func:`prior_sensitivity` evaluates them over the interval a prior estimator reports.

**Why the scorers take a fixed prior when the prior is searched.** ``R`` depends on ``pi``
(``pi (E_P[l(f)] - E_P[l(-f)])`` is negative for any classifier better than chance on the
positives), so comparing each candidate's risk under *its own* ``prior_`` rewards the largest
prior in the grid regardless of the classifier. A search over the prior must score every
candidate with the same evaluation prior: a scorer's ``prior`` argument fixes it, and
:class:`~unlabeled.model_selection.PUGridSearchCV` fixes it to the base estimator's ``prior``
by default. With ``prior=None`` a scorer uses the fitted ``prior_`` of the estimator it scores,
which is right when the prior is not searched. ``lee_liu_scorer`` needs no prior at all.

References
----------
M. C. du Plessis, G. Niu, M. Sugiyama, "Analysis of learning from positive and unlabeled data",
NIPS 2014. M. C. du Plessis, G. Niu, M. Sugiyama, "Convex formulation for learning from
positive and unlabeled data", ICML 2015. W. S. Lee, B. Liu, "Learning with positive and
unlabeled examples using weighted logistic regression", ICML 2003. R. Kiryo, G. Niu, M. C. du
Plessis, M. Sugiyama, "Positive-unlabeled learning with non-negative risk estimator", NeurIPS
2017. T. Sakai, G. Niu, M. Sugiyama, "Semi-supervised AUC optimization based on
positive-unlabeled learning", Machine Learning 107, 2018. M. Claesen, J. Davis, F. De Smet,
B. De Moor, "Assessing binary classifiers using only positive and unlabeled data",
arXiv:1504.06837, 2015. C. Elkan, K. Noto, "Learning classifiers from only positive and
unlabeled data", KDD 2008.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ._validation import check_int, check_pu_labels, check_real

__all__ = [
    "LOSSES",
    "SCORING_NAMES",
    "SENSITIVITY_METRICS",
    "DegenerateCheck",
    "PriorSensitivity",
    "PUScorer",
    "calibrate_pu_posterior",
    "detect_degenerate_predictor",
    "lee_liu_score",
    "lee_liu_scorer",
    "make_pu_scorer",
    "prior_sensitivity",
    "pu_accuracy_score",
    "pu_accuracy_scorer",
    "pu_average_precision_score",
    "pu_double_hinge_scorer",
    "pu_f1_score",
    "pu_label_frequency",
    "pu_precision_recall_curve",
    "pu_precision_score",
    "pu_recall_score",
    "pu_risk",
    "pu_roc_auc_score",
    "pu_roc_curve",
    "pu_specificity_score",
    "pu_zero_one_scorer",
]

# ------------------------------------------------------------------------------ losses
# Each loss is a pair of functions of the decision value f: the loss when the point is a
# positive, l(f), and when it is a negative, l(-f). For margin losses l(z) these are l(f) and
# l(-f); the zero-one loss is written out so that f = 0 counts as a negative prediction,
# exactly as predict() does (1 where f > 0).


def _margin(loss: Callable[[np.ndarray], np.ndarray]):
    return (lambda f: loss(f)), (lambda f: loss(-f))


_LOSSES: dict[str, tuple[Callable, Callable]] = {
    "zero-one": (lambda f: (f <= 0).astype(np.float64), lambda f: (f > 0).astype(np.float64)),
    # l(z) = max(-z, max(0, (1 - z)/2)): l(z) - l(-z) = -z, the loss PUSVC minimises
    "double-hinge": _margin(lambda z: np.maximum(-z, np.maximum(0.0, (1.0 - z) / 2))),
    # l(z) = min(1, max(0, (1 - z)/2)): l(z) + l(-z) = 1 (du Plessis et al., NIPS 2014)
    "ramp": _margin(lambda z: np.clip((1.0 - z) / 2, 0.0, 1.0)),
    # l(z) = 1 / (1 + exp(z)): l(z) + l(-z) = 1
    "sigmoid": _margin(lambda z: 0.5 * (1.0 - np.tanh(z / 2))),
    # l(z) = (z - 1)^2 / 4: l(z) - l(-z) = -z (du Plessis et al., ICML 2015)
    "squared": _margin(lambda z: (z - 1.0) ** 2 / 4),
    # l(z) = max(0, 1 - z): not symmetric; the estimate is still unbiased, but not convex in f
    "hinge": _margin(lambda z: np.maximum(0.0, 1.0 - z)),
    # l(z) = log(1 + exp(-z))
    "logistic": _margin(lambda z: np.logaddexp(0.0, -z)),
}
LOSSES = tuple(_LOSSES)

# the names make_pu_scorer and PUGridSearchCV(scoring=...) accept: the metrics of predicted
# classes, of scores (_RANKING_SCORERS), and the negated risks of each loss
_RANKING_SCORERS = ("pu-roc-auc", "pu-average-precision")
SCORING_NAMES = (
    "pu-accuracy",
    "lee-liu",
    "pu-recall",
    "pu-precision",
    "pu-f1",
    "pu-specificity",
    *_RANKING_SCORERS,
    *LOSSES,
)


def _pu_mask(s) -> np.ndarray:
    """The boolean mask of labeled positives, with the library's checks and messages."""
    arr = np.asarray(s) if s is not None else None
    n = arr.shape[0] if arr is not None and arr.ndim >= 1 else 0
    if arr is not None and arr.ndim == 0:
        raise ValueError(f"s must be a 1-d array of PU labels, got the scalar {s!r}")
    return check_pu_labels(arr, n)


def _check_scores(f, n: int, name: str) -> np.ndarray:
    f = np.asarray(f)
    if f.ndim == 2 and f.shape[1] == 1:
        f = f.ravel()
    if f.ndim != 1:
        raise ValueError(
            f"{name} must be a 1-d array, one value per entry of s; got shape {f.shape}"
        )
    if f.shape[0] != n:
        raise ValueError(
            f"{name} has {f.shape[0]} entries but s has {n}: give one value per entry of s"
        )
    if f.dtype.kind == "b":
        f = f.astype(np.float64)
    if f.dtype.kind not in "iuf":
        raise TypeError(f"{name} must hold numbers, got values of dtype {f.dtype}")
    f = f.astype(np.float64)
    if not np.all(np.isfinite(f)):
        raise ValueError(f"{name} contains NaN or infinity: score finite decision values")
    return f


def _check_weights(sample_weight, n: int) -> np.ndarray | None:
    if sample_weight is None:
        return None
    w = np.asarray(sample_weight, dtype=np.float64)
    if w.shape != (n,):
        raise ValueError(f"sample_weight must have shape ({n},), one weight per entry of s")
    if not np.all(np.isfinite(w)) or np.any(w < 0):
        raise ValueError("sample_weight must hold finite, non-negative weights")
    return w


def _mean(values: np.ndarray, w: np.ndarray | None, what: str) -> float:
    if w is None:
        return float(values.mean())
    total = w.sum()
    if total <= 0:
        raise ValueError(f"sample_weight gives the {what} a total weight of 0")
    return float(values @ w / total)


def pu_risk(
    s: ArrayLike,
    f: ArrayLike,
    prior: float,
    loss: str | Callable[[np.ndarray], np.ndarray] = "zero-one",
    *,
    sample_weight: ArrayLike | None = None,
    non_negative: bool = False,
) -> float:
    r"""Unbiased (or non-negative) estimate of the risk of ``f`` from PU labels.

    .. math::

        \hat R(f) = \pi\,\frac{1}{p}\sum_{x\in P}\ell(f(x))
                    - \pi\,\frac{1}{p}\sum_{x\in P}\ell(-f(x))
                    + \frac{1}{n}\sum_{x\in U}\ell(-f(x)),

    the sample version of ``R(f) = pi E_P[l(f)] + (1 - pi) E_N[l(-f)]``, the expected loss on the
    unlabeled population (a mixture with ``pi`` positives), with ``P`` the ``p`` labeled positives
    and ``U`` the ``n`` unlabeled points (du Plessis, Niu, Sugiyama). It is unbiased for a
    fixed ``f`` when the labeled positives are a sample of the positive class, and can be
    negative on a small sample. Lower is better.

    The last two terms estimate the negatives' part ``(1 - pi) E_N[l(-f)] >= 0``; a flexible
    model fitted to ``P`` drives their estimate below zero. The **non-negative** estimate
    (nnPU, Kiryo et al. 2017) clips that part at zero:

    .. math::

        \tilde R(f) = \pi\,\frac{1}{p}\sum_{x\in P}\ell(f(x))
                    + \max\Bigl(0,\ \frac{1}{n}\sum_{x\in U}\ell(-f(x))
                    - \pi\,\frac{1}{p}\sum_{x\in P}\ell(-f(x))\Bigr),

    biased upwards (``E[max(0, Z)] >= max(0, E[Z])``) but never below the positives' part, and
    equal to the unbiased estimate whenever the negatives' part is non-negative.

    Parameters
    ----------
    s : array-like of shape (n_samples,)
        PU labels: 1 = labeled positive, 0 or -1 = unlabeled (or booleans). Both kinds must
        occur.
    f : array-like of shape (n_samples,)
        Decision values (``f > 0`` predicts positive), e.g. ``estimator.decision_function(X)``.
        For the zero-one loss, predictions in {0, 1} work too: ``2 * y_pred - 1``.
    prior : float in (0, 1)
        Class prior ``pi``: the proportion of positives among the unlabeled points.
    loss : str or callable, default="zero-one"
        ``"zero-one"`` (``f <= 0`` is an error on a positive, ``f > 0`` on a negative),
        ``"double-hinge"`` (``max(-z, max(0, (1 - z)/2))``, PUSVC's loss), ``"ramp"``,
        ``"sigmoid"``, ``"squared"`` (``(z - 1)^2 / 4``), ``"hinge"``, ``"logistic"``, or a
        vectorised callable ``l(z)`` of the margin ``z = y f(x)``.
    sample_weight : array-like of shape (n_samples,), default=None
        Weights of the points; the means over ``P`` and over ``U`` become weighted means.
    non_negative : bool, default=False
        The non-negative estimate of Kiryo et al. (the negatives' part clipped at 0).

    Returns
    -------
    float
        The estimated risk.

    See Also
    --------
    pu_accuracy_score : ``1 -`` the zero-one risk, from predicted classes.
    make_pu_scorer : the negated risk as a scorer for scikit-learn's searches.

    References
    ----------
    M. C. du Plessis, G. Niu, M. Sugiyama, "Analysis of learning from positive and unlabeled
    data", NIPS 2014; "Convex formulation for learning from positive and unlabeled data",
    ICML 2015. R. Kiryo, G. Niu, M. C. du Plessis, M. Sugiyama, "Positive-unlabeled learning
    with non-negative risk estimator", NeurIPS 2017.

    Examples
    --------
    >>> import numpy as np
    >>> s = np.array([1, 1, 0, 0, 0, 0])
    >>> f = np.array([2.0, -1.0, 1.0, -1.0, -1.0, -2.0])
    >>> float(pu_risk(s, f, prior=0.25))   # 0.25*(1/2) - 0.25*(1/2) + 1/4
    0.25
    >>> f = np.array([2.0, 2.0, 1.0, -1.0, -1.0, -2.0])   # negatives: 1/4 - 0.5 * 1 < 0
    >>> float(pu_risk(s, f, prior=0.5)), float(pu_risk(s, f, prior=0.5, non_negative=True))
    (-0.25, 0.0)
    """
    mask = _pu_mask(s)
    n = mask.size
    f = _check_scores(f, n, "f")
    prior = check_real(prior, "prior", low=0.0, high=1.0)
    if isinstance(loss, str):
        if loss not in _LOSSES:
            raise ValueError(f"loss must be one of {list(LOSSES)} or a callable, got {loss!r}")
        pos_loss, neg_loss = _LOSSES[loss]
    elif callable(loss):
        pos_loss, neg_loss = _margin(loss)
    else:
        raise TypeError(f"loss must be a loss name or a callable l(z), got {loss!r}")
    if not isinstance(non_negative, bool | np.bool_):
        raise TypeError(f"non_negative must be True or False, got {non_negative!r}")
    w = _check_weights(sample_weight, n)
    fp, fu = f[mask], f[~mask]
    wp, wu = (None, None) if w is None else (w[mask], w[~mask])
    lp = np.asarray(pos_loss(fp), dtype=np.float64)
    lp_neg = np.asarray(neg_loss(fp), dtype=np.float64)
    lu_neg = np.asarray(neg_loss(fu), dtype=np.float64)
    negatives = _mean(lu_neg, wu, "unlabeled points") - prior * _mean(
        lp_neg, wp, "labeled positives"
    )
    if non_negative:
        negatives = max(0.0, negatives)
    return prior * _mean(lp, wp, "labeled positives") + negatives


def _check_predictions(y_pred, n: int) -> np.ndarray:
    y = np.asarray(y_pred)
    if y.ndim != 1 or y.shape[0] != n:
        raise ValueError(
            f"y_pred must be a 1-d array with one prediction per entry of s ({n}), "
            f"got shape {y.shape}"
        )
    if y.dtype == bool:
        return y
    if y.dtype.kind not in "iuf" or not set(np.unique(y).tolist()) <= {0, 1, -1}:
        raise ValueError(
            "y_pred must hold predicted classes 1 (positive) and 0 or -1 (negative), "
            "e.g. estimator.predict(X)"
        )
    return y == 1


def pu_accuracy_score(
    s: ArrayLike, y_pred: ArrayLike, prior: float, *, sample_weight: ArrayLike | None = None
) -> float:
    r"""Unbiased estimate of the accuracy on the unlabeled population from PU labels.

    ``1 - R01``, with ``R01`` the unbiased PU zero-one risk of :func:`pu_risk`:

    .. math::

        1 - \Bigl[\frac{2\pi}{p}\sum_{x\in P}1(\hat y(x) = 0) - \pi
        + \frac{1}{n}\sum_{x\in U}1(\hat y(x) = 1)\Bigr],

    with ``P`` the ``p`` labeled positives and ``U`` the ``n`` unlabeled points. It is what
    ``accuracy_score(y, y_pred)`` would be on the unlabeled points if their classes were known,
    in expectation; higher is better.

    Parameters
    ----------
    s : array-like of shape (n_samples,)
        PU labels, as for :func:`pu_risk`.
    y_pred : array-like of shape (n_samples,)
        Predicted classes, 1 (positive) and 0 or -1 (negative), e.g. ``estimator.predict(X)``.
    prior : float in (0, 1)
        The class prior among the unlabeled points, as for :func:`pu_risk`.
    sample_weight : array-like of shape (n_samples,), default=None
        Weights of the points, as for :func:`pu_risk`.

    Returns
    -------
    float
        The estimated accuracy; it can leave ``[0, 1]`` on a small sample (it is unbiased, not
        clipped).

    See Also
    --------
    pu_risk : the unbiased risk for any loss.
    lee_liu_score : a criterion that needs no prior.

    References
    ----------
    M. C. du Plessis, G. Niu, M. Sugiyama, "Analysis of learning from positive and unlabeled
    data", NIPS 2014.

    Examples
    --------
    >>> import numpy as np
    >>> s = np.array([1, 1, 0, 0, 0, 0])
    >>> y_pred = np.array([1, 0, 1, 0, 0, 0])
    >>> float(pu_accuracy_score(s, y_pred, prior=0.25))   # 1 - (0.25 - 0.25 + 1/4)
    0.75
    """
    mask = _pu_mask(s)
    pred = _check_predictions(y_pred, mask.size)
    f = np.where(pred, 1.0, -1.0)
    return 1.0 - pu_risk(mask, f, prior, "zero-one", sample_weight=sample_weight)


def lee_liu_score(
    s: ArrayLike, y_pred: ArrayLike, *, sample_weight: ArrayLike | None = None
) -> float:
    r"""The Lee-Liu criterion ``recall^2 / P(y_pred = 1)`` from PU labels (ICML 2003).

    .. math::

        \frac{r^2}{\Pr[\hat y = 1]}, \qquad
        r = \frac{\#\{x \in P : \hat y(x) = 1\}}{|P|}, \qquad
        \Pr[\hat y = 1] = \frac{\#\{x : \hat y(x) = 1\}}{\#\{x\}},

    with ``P`` the labeled positives and the probability taken over all points given (labeled
    and unlabeled), as in Lee and Liu. Since ``r p / Pr[y = 1] = r^2 / Pr[y_pred = 1]`` (``p`` the
    precision), it ranks classifiers like ``precision * recall`` does and needs no class prior;
    higher is better. A classifier that predicts no positive scores 0.

    Parameters
    ----------
    s : array-like of shape (n_samples,)
        PU labels: 1 = labeled positive, 0 or -1 = unlabeled (or booleans).
    y_pred : array-like of shape (n_samples,)
        Predicted classes, 1 (positive) and 0 or -1 (negative), e.g. ``estimator.predict(X)``.
    sample_weight : array-like of shape (n_samples,), default=None
        Weights of the points; the recall and ``Pr[y_pred = 1]`` become weighted means.

    Returns
    -------
    float
        The criterion, ``>= 0``; higher is better.

    See Also
    --------
    pu_accuracy_score : the unbiased accuracy estimate, which needs the class prior.

    References
    ----------
    W. S. Lee, B. Liu, "Learning with positive and unlabeled examples using weighted logistic
    regression", ICML 2003.

    Examples
    --------
    >>> import numpy as np
    >>> from unlabeled.metrics import lee_liu_score
    >>> s = np.array([1, 1, 0, 0, 0, 0])
    >>> y_pred = np.array([1, 0, 1, 0, 0, 0])
    >>> lee_liu_score(s, y_pred)   # recall 1/2, P(y_pred = 1) = 2/6: (1/4) / (1/3)
    0.75
    """
    mask = _pu_mask(s)
    pred = _check_predictions(y_pred, mask.size).astype(np.float64)
    w = _check_weights(sample_weight, mask.size)
    recall = _mean(pred[mask], None if w is None else w[mask], "labeled positives")
    rate = _mean(pred, w, "points")
    return 0.0 if rate == 0 else recall**2 / rate


# ------------------------------------------------------------------ evaluation from PU data
# The ranking metrics and the confusion-matrix estimates below all rest on two rates measured
# on the data: the true positive rate TPR(t), measured on the labeled positives (which, under
# SCAR, have the score distribution of all positives), and the rate of predicted positives
# among the unlabeled points, R_U(t) = pi TPR(t) + (1 - pi) FPR(t) (the unlabeled points are a
# mixture with a share pi of positives). Solving for FPR gives the false positive rate of the
# negatives, and pi TPR / R_U the precision on the unlabeled population.


def _check_prior(prior) -> float:
    return check_real(prior, "prior", low=0.0, high=1.0)


def _pu_rates(s, y_score, sample_weight, name: str = "y_score"):
    """Distinct thresholds (descending) and, predicting positive where ``score >= t``, the
    weighted TPR on the labeled positives and the rate of predicted positives among the
    unlabeled points at each; both start from the point (0, 0) of threshold +inf."""
    mask = _pu_mask(s)
    n = mask.size
    f = _check_scores(y_score, n, name)
    w = _check_weights(sample_weight, n)
    order = np.argsort(-f, kind="mergesort")
    f, mask = f[order], mask[order]
    w = np.ones(n) if w is None else w[order]
    last = np.r_[np.flatnonzero(np.diff(f) != 0), n - 1]  # the last of each group of ties
    tp = np.cumsum(np.where(mask, w, 0.0))[last]
    up = np.cumsum(np.where(mask, 0.0, w))[last]
    for total, what in ((tp[-1], "labeled positives"), (up[-1], "unlabeled points")):
        if total <= 0:
            raise ValueError(f"sample_weight gives the {what} a total weight of 0")
    tpr = np.r_[0.0, tp / tp[-1]]
    rate = np.r_[0.0, up / up[-1]]
    return np.r_[np.inf, f[last]], tpr, rate


def _negative_fpr(tpr: np.ndarray, rate: np.ndarray, prior: float) -> np.ndarray:
    """The negatives' false positive rate (R_U - pi TPR) / (1 - pi), clipped to [0, 1] and
    made non-decreasing along the thresholds (the mean of its running maximum from the start
    and its running minimum from the end, both monotone)."""
    raw = np.clip((rate - prior * tpr) / (1.0 - prior), 0.0, 1.0)
    up = np.maximum.accumulate(raw)
    down = np.minimum.accumulate(raw[::-1])[::-1]
    return (up + down) / 2


def _pu_precision(tpr: np.ndarray, rate: np.ndarray, prior: float) -> np.ndarray:
    """pi TPR / R_U clipped to [0, 1]; 1 where R_U = 0 < TPR (no unlabeled point predicted
    positive), 0 where both are 0."""
    with np.errstate(divide="ignore", invalid="ignore"):
        prec = np.where(rate > 0, prior * tpr / np.where(rate > 0, rate, 1.0), 1.0)
    return np.where(tpr > 0, np.clip(prec, 0.0, 1.0), 0.0)


def pu_roc_auc_score(
    s: ArrayLike,
    y_score: ArrayLike,
    prior: float,
    *,
    sample_weight: ArrayLike | None = None,
    clip: bool = True,
) -> float:
    r"""The ROC AUC of positives against negatives, estimated from PU labels and the prior.

    The AUC of the labeled positives against the unlabeled points is a mixture: an unlabeled
    point is a positive with probability ``pi`` (against which a positive wins half the time)
    and a negative otherwise, so (Sakai, Niu and Sugiyama 2018)

    .. math::

        \mathrm{AUC}_{PU} = \frac{\pi}{2} + (1 - \pi)\,\mathrm{AUC}_{PN}, \qquad
        \widehat{\mathrm{AUC}}_{PN} = \frac{\mathrm{AUC}_{PU} - \pi / 2}{1 - \pi},

    with ``AUC_PU`` the Mann-Whitney statistic of the labeled positives against the unlabeled
    points (ties count one half). Unclipped, the estimate is unbiased and is the area under the
    unclipped corrected ROC curve of :func:`pu_roc_curve`; on a small sample, or with a prior
    that is off, it can leave ``[0, 1]`` (a perfect ranker's estimate exceeds 1 half the time),
    and by default it is clipped to ``[0, 1]``, which only moves it towards any AUC.

    Parameters
    ----------
    s : array-like of shape (n_samples,)
        PU labels: 1 = labeled positive, 0 or -1 = unlabeled (or booleans). Both must occur.
    y_score : array-like of shape (n_samples,)
        Scores, higher meaning more likely positive (``decision_function`` or the positive
        class's ``predict_proba``); held out from the fit, or the labeled positives win.
    prior : float in (0, 1)
        The share of positives among the unlabeled points (the library's ``prior``).
    sample_weight : array-like of shape (n_samples,), default=None
        Weights of the points.
    clip : bool, default=True
        Clip the estimate to ``[0, 1]``; False: the unbiased value.

    Returns
    -------
    float
        The estimated AUC of positives against negatives.

    See Also
    --------
    pu_roc_curve : the corrected curve.
    prior_sensitivity : the estimate over an interval of priors.

    References
    ----------
    T. Sakai, G. Niu, M. Sugiyama, "Semi-supervised AUC optimization based on
    positive-unlabeled learning", Machine Learning 107, 2018.

    Examples
    --------
    >>> import numpy as np
    >>> from unlabeled.metrics import pu_roc_auc_score
    >>> s = np.array([1, 1, 0, 0, 0, 0])
    >>> score = np.array([4.0, 3.0, 3.5, 2.0, 1.0, 0.0])
    >>> # AUC_PU = 7/8 (one of the 8 pairs ranked wrong); with pi = 1/4: (7/8 - 1/8) / (3/4)
    >>> pu_roc_auc_score(s, score, prior=0.25)
    1.0
    """
    prior = _check_prior(prior)
    _, tpr, rate = _pu_rates(s, y_score, sample_weight)
    if not isinstance(clip, bool | np.bool_):
        raise TypeError(f"clip must be True or False, got {clip!r}")
    auc_pu = float(np.sum(np.diff(rate) * (tpr[1:] + tpr[:-1]) / 2))
    auc = (auc_pu - prior / 2) / (1.0 - prior)
    return float(np.clip(auc, 0.0, 1.0)) if clip else auc


def pu_roc_curve(
    s: ArrayLike, y_score: ArrayLike, prior: float, *, sample_weight: ArrayLike | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""The ROC curve of positives against negatives, estimated from PU labels and the prior.

    At each threshold ``t`` (predicting positive where ``y_score >= t``) the true positive
    rate is measured on the labeled positives and the rate ``R_U(t)`` of predicted positives
    on the unlabeled points, a mixture with a share ``pi`` of positives, so the negatives'
    false positive rate is

    .. math::

        \widehat{\mathrm{FPR}}(t) = \frac{R_U(t) - \pi\,\mathrm{TPR}(t)}{1 - \pi},

    clipped to ``[0, 1]`` and made non-decreasing in ``1/t`` (the mean of its running maximum
    from the first threshold and its running minimum from the last). Without the clip and the
    monotone step the area under the curve is :func:`pu_roc_auc_score` exactly.

    Parameters
    ----------
    s : array-like of shape (n_samples,)
        PU labels: 1 = labeled positive, 0 or -1 = unlabeled (or booleans). Both must occur.
    y_score : array-like of shape (n_samples,)
        Scores, higher meaning more likely positive.
    prior : float in (0, 1)
        The share of positives among the unlabeled points.
    sample_weight : array-like of shape (n_samples,), default=None
        Weights of the points.

    Returns
    -------
    fpr : ndarray of shape (n_thresholds + 1,)
        Estimated false positive rates, non-decreasing, from 0 to 1.
    tpr : ndarray of shape (n_thresholds + 1,)
        True positive rates on the labeled positives, non-decreasing, from 0 to 1.
    thresholds : ndarray of shape (n_thresholds + 1,)
        ``+inf``, then the distinct scores in decreasing order (as
        :func:`sklearn.metrics.roc_curve` with ``drop_intermediate=False``).

    See Also
    --------
    pu_roc_auc_score : the area under the curve.
    unlabeled.plotting.plot_pu_roc_curve : the curve, with a band over a prior interval.

    References
    ----------
    T. Sakai, G. Niu, M. Sugiyama, "Semi-supervised AUC optimization based on
    positive-unlabeled learning", Machine Learning 107, 2018. M. Claesen, J. Davis, F. De
    Smet, B. De Moor, "Assessing binary classifiers using only positive and unlabeled data",
    arXiv:1504.06837, 2015.

    Examples
    --------
    >>> import numpy as np
    >>> from unlabeled.metrics import pu_roc_curve
    >>> s = np.array([1, 1, 0, 0, 0, 0])
    >>> fpr, tpr, _ = pu_roc_curve(s, [5, 4, 3, 2, 1, 0], prior=0.5)
    >>> tpr.tolist()
    [0.0, 0.5, 1.0, 1.0, 1.0, 1.0, 1.0]
    >>> fpr.tolist()   # U ranked 3, 2 (as positives would be: FPR 0), then 1, 0
    [0.0, 0.0, 0.0, 0.0, 0.0, 0.5, 1.0]
    """
    prior = _check_prior(prior)
    thresholds, tpr, rate = _pu_rates(s, y_score, sample_weight)
    return _negative_fpr(tpr, rate, prior), tpr, thresholds


def pu_precision_recall_curve(
    s: ArrayLike, y_score: ArrayLike, prior: float, *, sample_weight: ArrayLike | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""The precision-recall curve on the unlabeled population, from PU labels and the prior.

    At each threshold ``t`` the recall is the true positive rate on the labeled positives and
    the precision the share of positives among the unlabeled points predicted positive,

    .. math::

        \widehat{\mathrm{precision}}(t) = \frac{\pi\,\mathrm{TPR}(t)}{R_U(t)},

    with ``R_U(t)`` the rate of predicted positives among the unlabeled points; clipped to
    ``[0, 1]`` (1 where no unlabeled point is predicted positive). It is the precision on a
    population with a share ``pi`` of positives, as the unlabeled points are.

    Parameters
    ----------
    s : array-like of shape (n_samples,)
        PU labels: 1 = labeled positive, 0 or -1 = unlabeled (or booleans). Both must occur.
    y_score : array-like of shape (n_samples,)
        Scores, higher meaning more likely positive.
    prior : float in (0, 1)
        The share of positives among the unlabeled points.
    sample_weight : array-like of shape (n_samples,), default=None
        Weights of the points.

    Returns
    -------
    precision : ndarray of shape (n_thresholds + 1,)
        Estimated precision at each threshold, then 1 (as scikit-learn's).
    recall : ndarray of shape (n_thresholds + 1,)
        Recall at each threshold, non-increasing, then 0.
    thresholds : ndarray of shape (n_thresholds,)
        The distinct scores, increasing (as :func:`sklearn.metrics.precision_recall_curve`,
        which also stops at the first threshold of full recall: this keeps them all).

    See Also
    --------
    pu_average_precision_score : the curve's summary.
    unlabeled.plotting.plot_pu_precision_recall_curve : the curve, with a prior interval's band.

    References
    ----------
    M. Claesen, J. Davis, F. De Smet, B. De Moor, "Assessing binary classifiers using only
    positive and unlabeled data", arXiv:1504.06837, 2015.

    Examples
    --------
    >>> import numpy as np
    >>> from unlabeled.metrics import pu_precision_recall_curve
    >>> s = np.array([1, 1, 0, 0, 0, 0])
    >>> precision, recall, _ = pu_precision_recall_curve(s, [5, 3, 4, 2, 1, 0], prior=0.5)
    >>> precision.tolist()   # at t = 0: pi * 1 / 1; at t = 3: 0.5 * 1 / (1/4), clipped
    [0.5, 0.6666666666666666, 1.0, 1.0, 1.0, 1.0, 1.0]
    >>> recall.tolist()
    [1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.0]
    """
    prior = _check_prior(prior)
    thresholds, tpr, rate = _pu_rates(s, y_score, sample_weight)
    precision = _pu_precision(tpr[1:], rate[1:], prior)
    return np.r_[precision[::-1], 1.0], np.r_[tpr[1:][::-1], 0.0], thresholds[1:][::-1]


def pu_average_precision_score(
    s: ArrayLike, y_score: ArrayLike, prior: float, *, sample_weight: ArrayLike | None = None
) -> float:
    r"""Average precision on the unlabeled population, from PU labels and the prior.

    scikit-learn's definition, the precision summed over the steps of the recall, on the
    curve of :func:`pu_precision_recall_curve`:

    .. math::

        \widehat{\mathrm{AP}} = \sum_k (\mathrm{TPR}_k - \mathrm{TPR}_{k-1})\,
        \mathrm{clip}\Bigl(\frac{\pi\,\mathrm{TPR}_k}{R_{U,k}}, 0, 1\Bigr),

    over the distinct thresholds in decreasing order; ``TPR`` is measured on the labeled
    positives (so the recall steps at them) and ``R_U`` on the unlabeled points. It estimates
    what :func:`sklearn.metrics.average_precision_score` gives on the unlabeled points with
    their true classes (a population with a share ``pi`` of positives). pulearn's function of
    the same name returns the area under the lift chart, a different quantity.

    Parameters
    ----------
    s : array-like of shape (n_samples,)
        PU labels: 1 = labeled positive, 0 or -1 = unlabeled (or booleans). Both must occur.
    y_score : array-like of shape (n_samples,)
        Scores, higher meaning more likely positive.
    prior : float in (0, 1)
        The share of positives among the unlabeled points.
    sample_weight : array-like of shape (n_samples,), default=None
        Weights of the points.

    Returns
    -------
    float
        The estimated average precision, in ``[0, 1]``.

    See Also
    --------
    pu_precision_recall_curve : the curve it summarises.

    References
    ----------
    M. Claesen, J. Davis, F. De Smet, B. De Moor, "Assessing binary classifiers using only
    positive and unlabeled data", arXiv:1504.06837, 2015.

    Examples
    --------
    >>> import numpy as np
    >>> from unlabeled.metrics import pu_average_precision_score
    >>> s = np.array([1, 1, 0, 0, 0, 0])
    >>> pu_average_precision_score(s, [5, 3, 4, 2, 1, 0], prior=0.5)   # (1 + 1) / 2
    1.0
    """
    prior = _check_prior(prior)
    _, tpr, rate = _pu_rates(s, y_score, sample_weight)
    return float(np.sum(np.diff(tpr) * _pu_precision(tpr[1:], rate[1:], prior)))


def _pu_confusion(s, y_pred, sample_weight) -> tuple[float, float]:
    """The recall on the labeled positives and the rate of predicted positives among the
    unlabeled points."""
    mask = _pu_mask(s)
    pred = _check_predictions(y_pred, mask.size).astype(np.float64)
    w = _check_weights(sample_weight, mask.size)
    recall = _mean(pred[mask], None if w is None else w[mask], "labeled positives")
    rate = _mean(pred[~mask], None if w is None else w[~mask], "unlabeled points")
    return recall, rate


def pu_recall_score(
    s: ArrayLike, y_pred: ArrayLike, *, sample_weight: ArrayLike | None = None
) -> float:
    r"""The recall, measured on the labeled positives (needs no prior).

    .. math::

        \widehat{\mathrm{recall}} = \frac{\#\{x \in P : \hat y(x) = 1\}}{|P|},

    an unbiased estimate of the recall of all positives when the labeled ones are a sample of
    them (SCAR).

    Parameters
    ----------
    s : array-like of shape (n_samples,)
        PU labels: 1 = labeled positive, 0 or -1 = unlabeled (or booleans). Both must occur.
    y_pred : array-like of shape (n_samples,)
        Predicted classes, 1 (positive) and 0 or -1 (negative), e.g. ``estimator.predict(X)``.
    sample_weight : array-like of shape (n_samples,), default=None
        Weights of the points.

    Returns
    -------
    float
        The estimated recall, in ``[0, 1]``.

    See Also
    --------
    pu_precision_score, pu_f1_score, pu_specificity_score

    References
    ----------
    W. S. Lee, B. Liu, "Learning with positive and unlabeled examples using weighted logistic
    regression", ICML 2003.

    Examples
    --------
    >>> from unlabeled.metrics import pu_recall_score
    >>> pu_recall_score([1, 1, 0, 0], [1, 0, 1, 0])
    0.5
    """
    return _pu_confusion(s, y_pred, sample_weight)[0]


def pu_precision_score(
    s: ArrayLike, y_pred: ArrayLike, prior: float, *, sample_weight: ArrayLike | None = None
) -> float:
    r"""The precision on the unlabeled population, from PU labels and the prior.

    Among the unlabeled points, a share ``pi`` positive, the rate of predicted positives is
    ``R_U = pi r + (1 - pi) FPR``, of which the true positives are ``pi r``:

    .. math::

        \widehat{\mathrm{precision}} = \mathrm{clip}\Bigl(\frac{\pi\,\hat r}{R_U}, 0, 1\Bigr),

    with ``r`` the recall on the labeled positives (:func:`pu_recall_score`). 0 when no
    unlabeled point is predicted positive (scikit-learn's ``zero_division=0``).

    Parameters
    ----------
    s : array-like of shape (n_samples,)
        PU labels: 1 = labeled positive, 0 or -1 = unlabeled (or booleans). Both must occur.
    y_pred : array-like of shape (n_samples,)
        Predicted classes, 1 (positive) and 0 or -1 (negative).
    prior : float in (0, 1)
        The share of positives among the unlabeled points.
    sample_weight : array-like of shape (n_samples,), default=None
        Weights of the points.

    Returns
    -------
    float
        The estimated precision, in ``[0, 1]``.

    See Also
    --------
    pu_f1_score, pu_recall_score, pu_precision_recall_curve

    References
    ----------
    M. Claesen, J. Davis, F. De Smet, B. De Moor, "Assessing binary classifiers using only
    positive and unlabeled data", arXiv:1504.06837, 2015.

    Examples
    --------
    >>> from unlabeled.metrics import pu_precision_score
    >>> # recall 1/2; 1 of the 2 unlabeled predicted positive: 0.5 * 0.5 / 0.5
    >>> pu_precision_score([1, 1, 0, 0], [1, 0, 1, 0], prior=0.5)
    0.5
    """
    prior = _check_prior(prior)
    recall, rate = _pu_confusion(s, y_pred, sample_weight)
    return 0.0 if rate == 0 else float(np.clip(prior * recall / rate, 0.0, 1.0))


def pu_f1_score(
    s: ArrayLike, y_pred: ArrayLike, prior: float, *, sample_weight: ArrayLike | None = None
) -> float:
    r"""The F1 score on the unlabeled population, from PU labels and the prior.

    .. math::

        \widehat{F_1} = \frac{2\,\hat p\,\hat r}{\hat p + \hat r},

    the harmonic mean of :func:`pu_precision_score` and :func:`pu_recall_score` (0 when both
    are 0).

    Parameters
    ----------
    s : array-like of shape (n_samples,)
        PU labels: 1 = labeled positive, 0 or -1 = unlabeled (or booleans). Both must occur.
    y_pred : array-like of shape (n_samples,)
        Predicted classes, 1 (positive) and 0 or -1 (negative).
    prior : float in (0, 1)
        The share of positives among the unlabeled points.
    sample_weight : array-like of shape (n_samples,), default=None
        Weights of the points.

    Returns
    -------
    float
        The estimated F1, in ``[0, 1]``.

    See Also
    --------
    lee_liu_score : ``p r / pi``, a criterion that ranks like ``p r`` without a prior.

    References
    ----------
    M. Claesen, J. Davis, F. De Smet, B. De Moor, "Assessing binary classifiers using only
    positive and unlabeled data", arXiv:1504.06837, 2015.

    Examples
    --------
    >>> from unlabeled.metrics import pu_f1_score
    >>> pu_f1_score([1, 1, 0, 0], [1, 0, 1, 0], prior=0.5)   # p = r = 1/2
    0.5
    """
    prior = _check_prior(prior)
    recall, rate = _pu_confusion(s, y_pred, sample_weight)
    precision = 0.0 if rate == 0 else float(np.clip(prior * recall / rate, 0.0, 1.0))
    total = precision + recall
    return 0.0 if total == 0 else 2 * precision * recall / total


def pu_specificity_score(
    s: ArrayLike, y_pred: ArrayLike, prior: float, *, sample_weight: ArrayLike | None = None
) -> float:
    r"""The specificity (true negative rate), from PU labels and the prior.

    .. math::

        \widehat{\mathrm{specificity}} = 1 - \mathrm{clip}\Bigl(
        \frac{R_U - \pi\,\hat r}{1 - \pi}, 0, 1\Bigr),

    with ``R_U`` the rate of predicted positives among the unlabeled points and ``r`` the
    recall on the labeled positives: the negatives' false positive rate solved from
    ``R_U = pi r + (1 - pi) FPR``.

    Parameters
    ----------
    s : array-like of shape (n_samples,)
        PU labels: 1 = labeled positive, 0 or -1 = unlabeled (or booleans). Both must occur.
    y_pred : array-like of shape (n_samples,)
        Predicted classes, 1 (positive) and 0 or -1 (negative).
    prior : float in (0, 1)
        The share of positives among the unlabeled points.
    sample_weight : array-like of shape (n_samples,), default=None
        Weights of the points.

    Returns
    -------
    float
        The estimated specificity, in ``[0, 1]``.

    See Also
    --------
    pu_roc_curve : the false positive rate at every threshold.

    References
    ----------
    M. Claesen, J. Davis, F. De Smet, B. De Moor, "Assessing binary classifiers using only
    positive and unlabeled data", arXiv:1504.06837, 2015.

    Examples
    --------
    >>> from unlabeled.metrics import pu_specificity_score
    >>> pu_specificity_score([1, 1, 0, 0], [1, 0, 1, 0], prior=0.5)   # FPR (0.5 - 0.25) / 0.5
    0.5
    """
    prior = _check_prior(prior)
    recall, rate = _pu_confusion(s, y_pred, sample_weight)
    return 1.0 - float(np.clip((rate - prior * recall) / (1.0 - prior), 0.0, 1.0))


# ------------------------------------------------------------------ checks and calibration
@dataclass(frozen=True)
class DegenerateCheck:
    """What :func:`detect_degenerate_predictor` found.

    Attributes
    ----------
    is_degenerate : bool
        Whether any flag is raised.
    flags : tuple of str
        The flags raised, of ``"all-positive"``, ``"all-negative"``, ``"recall-zero"``,
        ``"constant-scores"``, ``"worse-than-chance"`` and ``"rate-far-from-prior"``.
    stats : dict of str to float
        What the flags were decided on: ``"recall"`` (on the labeled positives),
        ``"rate_unlabeled"`` (predicted positives among the unlabeled points),
        ``"score_std"``, ``"auc_pu"`` (labeled positives against unlabeled points), each when
        its input was given, and ``"prior"``.

    Examples
    --------
    >>> from unlabeled.metrics import detect_degenerate_predictor
    >>> check = detect_degenerate_predictor([1, 0, 0, 0], y_score=[0.5, 0.5, 0.5, 0.5])
    >>> check.is_degenerate, check.flags
    (True, ('constant-scores',))
    >>> check.message
    'degenerate predictor (constant-scores): score_std=0'
    """

    is_degenerate: bool
    flags: tuple[str, ...]
    stats: dict[str, float]

    @property
    def message(self) -> str:
        """The flags and their statistics in one sentence ("" when nothing is flagged)."""
        if not self.flags:
            return ""
        stats = ", ".join(f"{k}={v:.4g}" for k, v in self.stats.items())
        return f"degenerate predictor ({', '.join(self.flags)}): {stats}"


def _rate_far(rate: float, prior: float, ratio: float) -> bool:
    """Whether the predicted-positive rate is more than ``ratio`` times off the prior, on the
    positive side (rate / pi) or the negative side ((1 - rate) / (1 - pi))."""
    off = (rate, prior), (1.0 - rate, 1.0 - prior)
    return any(a > ratio * b or b > ratio * a for a, b in off)


def detect_degenerate_predictor(
    s: ArrayLike,
    y_pred: ArrayLike | None = None,
    *,
    y_score: ArrayLike | None = None,
    prior: float | None = None,
    max_rate_ratio: float = 2.0,
    warn: bool = False,
) -> DegenerateCheck:
    r"""Flag a predictor whose PU evaluation would be meaningless or misleading.

    Flags, each from PU labels alone:

    - ``"all-positive"`` / ``"all-negative"``: ``y_pred`` is one class on every point;
    - ``"recall-zero"``: no labeled positive is predicted positive;
    - ``"constant-scores"``: ``y_score`` takes one value (to ``1e-12`` of its scale);
    - ``"worse-than-chance"``: the labeled positives score below the unlabeled points on
      average (``AUC_PU < 1/2``, which is ``AUC < 1/2`` for any prior, as
      ``AUC_PU = pi/2 + (1 - pi) AUC``);
    - ``"rate-far-from-prior"`` (with ``prior``): the rate ``R_U`` of predicted positives
      among the unlabeled points is off the prior by more than ``max_rate_ratio`` times, on
      the positives' side (``R_U / pi`` or ``pi / R_U``) or the negatives'
      (``(1 - R_U) / (1 - pi)`` or its inverse). A good classifier has
      ``R_U = pi r + (1 - pi) FPR`` near ``pi``.

    Parameters
    ----------
    s : array-like of shape (n_samples,)
        PU labels: 1 = labeled positive, 0 or -1 = unlabeled (or booleans). Both must occur.
    y_pred : array-like of shape (n_samples,), default=None
        Predicted classes, 1 and 0 (or -1).
    y_score : array-like of shape (n_samples,), default=None
        Scores, higher meaning more likely positive. At least one of ``y_pred`` and
        ``y_score`` is needed.
    prior : float in (0, 1), default=None
        The share of positives among the unlabeled points; without it the rate is not checked.
    max_rate_ratio : float > 1, default=2.0
        How far off the prior the predicted-positive rate may be.
    warn : bool, default=False
        Also warn (``UserWarning``) with the check's message when a flag is raised.

    Returns
    -------
    DegenerateCheck
        ``is_degenerate``, ``flags`` and ``stats``.

    See Also
    --------
    pu_roc_auc_score, pu_precision_score

    References
    ----------
    J. Bekker, J. Davis, "Learning from positive and unlabeled data: a survey", Machine
    Learning 109, 2020 (section 9, evaluation).

    Examples
    --------
    >>> from unlabeled.metrics import detect_degenerate_predictor
    >>> check = detect_degenerate_predictor([1, 1, 0, 0, 0, 0], [1, 1, 1, 1, 1, 1], prior=0.25)
    >>> check.flags
    ('all-positive', 'rate-far-from-prior')
    """
    if y_pred is None and y_score is None:
        raise ValueError("give y_pred, y_score or both: there is nothing to check")
    mask = _pu_mask(s)
    if prior is not None:
        prior = _check_prior(prior)
    max_rate_ratio = check_real(max_rate_ratio, "max_rate_ratio", low=1.0)
    flags: list[str] = []
    stats: dict[str, float] = {}
    if y_pred is not None:
        pred = _check_predictions(y_pred, mask.size)
        recall, rate = float(pred[mask].mean()), float(pred[~mask].mean())
        stats.update(recall=recall, rate_unlabeled=rate)
        if pred.all():
            flags.append("all-positive")
        if not pred.any():
            flags.append("all-negative")
        elif recall == 0:
            flags.append("recall-zero")
        if prior is not None and _rate_far(rate, prior, max_rate_ratio):
            flags.append("rate-far-from-prior")
    if y_score is not None:
        f = _check_scores(y_score, mask.size, "y_score")
        stats["score_std"] = float(f.std())
        if np.ptp(f) <= 1e-12 * max(1.0, float(np.abs(f).max())):
            flags.append("constant-scores")
        else:
            _, tpr, rate_u = _pu_rates(mask, f, None)
            stats["auc_pu"] = float(np.sum(np.diff(rate_u) * (tpr[1:] + tpr[:-1]) / 2))
            if stats["auc_pu"] < 0.5:
                flags.append("worse-than-chance")
    if prior is not None:
        stats["prior"] = prior
    check = DegenerateCheck(bool(flags), tuple(flags), stats)
    if warn and flags:
        warnings.warn(check.message, UserWarning, stacklevel=2)
    return check


def pu_label_frequency(
    s: ArrayLike, s_proba: ArrayLike | None = None, prior: float | None = None
) -> float:
    r"""The label frequency ``c``: the share of all positives (labeled or not) that are labeled.

    With the prior, from the counts: ``p`` labeled positives and ``pi n`` positives among the
    ``n`` unlabeled points give

    .. math::

        c = \frac{p}{p + \pi n}.

    Without it, Elkan and Noto's estimator ``e_1``: the mean of ``g(x) = P(s = 1 | x)`` over
    the labeled positives, for a classifier ``g`` of labeled against unlabeled points (held
    out: ``cross_val_predict``), which is ``c`` where the classes do not overlap and larger
    where they do. Either is bounded below by ``p / (p + n)`` (every point positive).

    Parameters
    ----------
    s : array-like of shape (n_samples,)
        PU labels: 1 = labeled positive, 0 or -1 = unlabeled (or booleans). Both must occur.
    s_proba : array-like of shape (n_samples,), default=None
        ``P(s = 1 | x)`` of each point; needed without ``prior``.
    prior : float in (0, 1), default=None
        The share of positives among the unlabeled points.

    Returns
    -------
    float
        ``c`` in ``(0, 1]``.

    See Also
    --------
    calibrate_pu_posterior : the posterior ``P(y = 1 | x)`` from ``P(s = 1 | x)`` and ``c``.

    References
    ----------
    C. Elkan, K. Noto, "Learning classifiers from only positive and unlabeled data", KDD 2008.

    Examples
    --------
    >>> from unlabeled.metrics import pu_label_frequency
    >>> pu_label_frequency([1, 1, 0, 0, 0, 0], prior=0.5)   # 2 / (2 + 2)
    0.5
    """
    mask = _pu_mask(s)
    p, n = int(mask.sum()), int((~mask).sum())
    if prior is not None:
        return p / (p + _check_prior(prior) * n)
    if s_proba is None:
        raise ValueError("give the prior or s_proba (P(s = 1 | x) of each point)")
    g = _check_probabilities(s_proba, mask.size, "s_proba")
    return float(np.clip(g[mask].mean(), p / (p + n), 1.0))


def _check_probabilities(values, n: int | None, name: str) -> np.ndarray:
    """Finite values in [0, 1], one per point (``n`` of them when given)."""
    if n is None:
        n = int(np.shape(values)[0]) if np.ndim(values) else 0
    g = _check_scores(values, n, name)
    if np.any((g < 0) | (g > 1)):
        raise ValueError(f"{name} must hold probabilities in [0, 1]")
    return g


def calibrate_pu_posterior(
    s_proba: ArrayLike,
    *,
    s: ArrayLike | None = None,
    prior: float | None = None,
    label_frequency: float | None = None,
    population: str = "unlabeled",
) -> np.ndarray:
    r"""The class posterior ``P(y = 1 | x)`` from a classifier of labeled against unlabeled.

    For ``g(x) = P(s = 1 | x)``, fitted on the pooled labeled and unlabeled points, and the
    label frequency ``c`` (:func:`pu_label_frequency`), SCAR gives ``g(x) = c P(y = 1 | x)``
    on the pooled points (Elkan and Noto 2008), and on the unlabeled population
    (a share ``pi`` of positives, the library's prior)

    .. math::

        P(y = 1 \mid x, s = 0) = \frac{1 - c}{c}\,\frac{g(x)}{1 - g(x)}
        = \pi\,\frac{n}{p}\,\frac{g(x)}{1 - g(x)},

    with ``p`` labeled positives and ``n`` unlabeled points (the second form when ``c`` is
    ``p / (p + pi n)``). Both are clipped to ``[0, 1]``. ``g`` must come from a classifier
    fitted on data with the labeled share of ``s`` (held out for the points it was fitted on:
    ``cross_val_predict``).

    Parameters
    ----------
    s_proba : array-like of shape (n_samples,)
        ``g(x)``, probabilities in ``[0, 1]``.
    s : array-like, default=None
        The PU labels of the data ``g`` was fitted on (the labeled share, and ``c`` from
        ``s_proba`` by Elkan and Noto's ``e_1`` when there is no ``prior``: then ``s_proba``
        is of those points).
    prior : float in (0, 1), default=None
        The share of positives among the unlabeled points: ``c = p / (p + pi n)``.
    label_frequency : float in (0, 1], default=None
        ``c`` itself; then ``s`` and ``prior`` are not needed.
    population : {"unlabeled", "all"}, default="unlabeled"
        ``"unlabeled"``: ``P(y = 1 | x)`` on the unlabeled population (where ``prior`` is the
        share of positives); ``"all"``: on the pooled labeled and unlabeled points, ``g / c``.

    Returns
    -------
    ndarray of shape (n_samples,)
        The calibrated posterior.

    See Also
    --------
    pu_label_frequency : ``c``.

    References
    ----------
    C. Elkan, K. Noto, "Learning classifiers from only positive and unlabeled data", KDD 2008.

    Examples
    --------
    >>> from unlabeled.metrics import calibrate_pu_posterior
    >>> calibrate_pu_posterior([0.2, 0.5], label_frequency=0.5, population="all").tolist()
    [0.4, 1.0]
    >>> calibrate_pu_posterior([0.2, 0.25], label_frequency=0.5).tolist()   # g / (1 - g)
    [0.25, 0.3333333333333333]
    """
    if population not in ("unlabeled", "all"):
        raise ValueError(f'population must be "unlabeled" or "all", got {population!r}')
    if label_frequency is not None:
        c = check_real(label_frequency, "label_frequency", low=0.0, high=1.0, high_open=False)
        g = _check_probabilities(s_proba, None, "s_proba")
    elif s is None:
        raise ValueError("give label_frequency, or s (with prior or with s_proba of its points)")
    else:
        g = _check_probabilities(s_proba, None, "s_proba")
        c = pu_label_frequency(s, g if prior is None else None, prior)
    if population == "all":
        return np.clip(g / c, 0.0, 1.0)
    with np.errstate(divide="ignore"):
        odds = np.where(g < 1, g / np.where(g < 1, 1.0 - g, 1.0), np.inf)
    return np.clip((1.0 - c) / c * odds, 0.0, 1.0)


# ------------------------------------------------------------------ sensitivity to the prior
# name: (the metric of (s, y, prior, sample_weight=), what y is)
_SENSITIVITY: dict[str, tuple[Callable[..., float], str]] = {
    "roc-auc": (pu_roc_auc_score, "scores"),
    "average-precision": (pu_average_precision_score, "scores"),
    "precision": (pu_precision_score, "predictions"),
    "f1": (pu_f1_score, "predictions"),
    "specificity": (pu_specificity_score, "predictions"),
    "accuracy": (pu_accuracy_score, "predictions"),
}
#: the metric names :func:`prior_sensitivity` accepts
SENSITIVITY_METRICS = tuple(_SENSITIVITY)


@dataclass(frozen=True)
class PriorSensitivity:
    """A metric over a grid of class priors (:func:`prior_sensitivity`).

    Attributes
    ----------
    metric : str
        The metric's name.
    priors : ndarray of shape (n_priors,)
        The grid, increasing.
    values : ndarray of shape (n_priors,)
        The metric at each prior.
    prior : float or None
        The point estimate of the prior (an estimator's ``prior_``), when known.
    value : float or None
        The metric at ``prior``.

    Examples
    --------
    >>> from unlabeled.metrics import prior_sensitivity
    >>> result = prior_sensitivity([1, 0, 0, 0], [2, 3, 1, 0], "roc-auc", (0.2, 0.4), num=3)
    >>> result.priors.tolist(), round(result.low, 3), round(result.high, 3)
    ([0.2, 0.30000000000000004, 0.4], 0.708, 0.778)
    """

    metric: str
    priors: np.ndarray
    values: np.ndarray
    prior: float | None = None
    value: float | None = None

    @property
    def low(self) -> float:
        """The smallest value over the grid."""
        return float(np.min(self.values))

    @property
    def high(self) -> float:
        """The largest value over the grid."""
        return float(np.max(self.values))


def _prior_grid(priors, num: int) -> tuple[np.ndarray, float | None]:
    """The grid and the point estimate of ``priors``: a fitted object with ``prior_interval_``
    (and ``prior_``), an interval ``(lo, hi)`` or more than two priors."""
    point = None
    if hasattr(priors, "prior_interval_"):
        interval = priors.prior_interval_
        if interval is None:
            raise ValueError(
                f"{type(priors).__name__} has prior_interval_ None (a prior given as a number, "
                "or an estimator fitted without bootstrap): pass the interval (lo, hi) instead"
            )
        point = getattr(priors, "prior_", None)
        point = None if point is None else _check_prior(float(point))
        priors = interval
    elif isinstance(priors, str) or not hasattr(priors, "__len__"):
        raise TypeError(
            "priors must be an interval (lo, hi), a sequence of priors or a fitted estimator "
            f"with prior_interval_ (PUSVC(prior='auto'), unlabeled.pu.priors), got {priors!r}"
        )
    values = [_check_prior(p) for p in np.asarray(priors, dtype=object).ravel().tolist()]
    if len(values) == 2:
        lo, hi = sorted(values)
        return np.linspace(lo, hi, num), point
    if len(values) < 2:
        raise ValueError(f"priors must hold an interval (lo, hi) or more priors, got {priors!r}")
    return np.sort(np.asarray(values)), point


def prior_sensitivity(
    s: ArrayLike,
    y: ArrayLike,
    metric: str | Callable[..., float],
    priors: Any,
    *,
    num: int = 11,
    sample_weight: ArrayLike | None = None,
) -> PriorSensitivity:
    r"""A PU metric over an interval of class priors: how much the prior's uncertainty moves it.

    Every metric from PU labels but the recall depends on the prior ``pi``, which is itself
    estimated; ``PUSVC(prior="auto")`` and the estimators of :mod:`unlabeled.pu.priors`
    report an interval for it (``prior_interval_``). This evaluates the metric at ``num``
    priors evenly spaced over that interval (and at the point estimate ``prior_``), so that
    a metric is reported with the range the prior allows.

    Parameters
    ----------
    s : array-like of shape (n_samples,)
        PU labels: 1 = labeled positive, 0 or -1 = unlabeled (or booleans). Both must occur.
    y : array-like of shape (n_samples,)
        Scores for ``"roc-auc"`` and ``"average-precision"``; predicted classes (1 and 0 or
        -1) for ``"precision"``, ``"f1"``, ``"specificity"`` and ``"accuracy"``.
    metric : str or callable
        A name of ``SENSITIVITY_METRICS`` (:func:`pu_roc_auc_score`,
        :func:`pu_average_precision_score`, :func:`pu_precision_score`, :func:`pu_f1_score`,
        :func:`pu_specificity_score`, :func:`pu_accuracy_score`) or a callable
        ``metric(s, y, prior) -> float``.
    priors : fitted estimator, (lo, hi) or sequence of float
        A fitted estimator with ``prior_interval_`` (and ``prior_``, the point estimate), an
        interval, or the priors themselves (more than two).
    num : int >= 2, default=11
        Points of the grid over an interval.
    sample_weight : array-like of shape (n_samples,), default=None
        Weights of the points (for the named metrics).

    Returns
    -------
    PriorSensitivity
        ``priors``, ``values``, ``prior`` and ``value``; ``low`` and ``high``.

    See Also
    --------
    unlabeled.plotting.plot_prior_sensitivity : the values as curves with their bands.

    References
    ----------
    M. Claesen, J. Davis, F. De Smet, B. De Moor, "Assessing binary classifiers using only
    positive and unlabeled data", arXiv:1504.06837, 2015 (metrics as functions of the prior).

    Examples
    --------
    >>> from unlabeled.metrics import prior_sensitivity
    >>> result = prior_sensitivity([1, 1, 0, 0], [1, 0, 1, 0], "precision", (0.25, 0.5), num=2)
    >>> result.values.tolist()   # pi * (1/2) / (1/2)
    [0.25, 0.5]
    """
    num = check_int(num, "num", low=2)
    grid, point = _prior_grid(priors, num)
    if isinstance(metric, str):
        if metric not in _SENSITIVITY:
            raise ValueError(
                f"metric must be one of {list(SENSITIVITY_METRICS)} or a callable "
                f"metric(s, y, prior), got {metric!r}"
            )
        name, (fn, _) = metric, _SENSITIVITY[metric]

        def value(p: float) -> float:
            return fn(s, y, p, sample_weight=sample_weight)

    elif callable(metric):
        name = getattr(metric, "__name__", type(metric).__name__)

        def value(p: float) -> float:
            return float(metric(s, y, p))

    else:
        raise TypeError(f"metric must be a name or a callable, got {metric!r}")
    values = np.array([value(float(p)) for p in grid])
    at_point = None if point is None else value(point)
    return PriorSensitivity(name, grid, values, point, at_point)


# ------------------------------------------------------------------------------ scorers
_PREDICTION_SCORERS: dict[str, Callable[..., float]] = {
    "pu-accuracy": pu_accuracy_score,
    "pu-precision": pu_precision_score,
    "pu-f1": pu_f1_score,
    "pu-specificity": pu_specificity_score,
}


def _ranking_scores(estimator, X) -> np.ndarray:
    """The estimator's scores of the positive class: ``decision_function``, else the last
    column of ``predict_proba``."""
    if hasattr(estimator, "decision_function"):
        return np.asarray(estimator.decision_function(X))
    if hasattr(estimator, "predict_proba"):
        return np.asarray(estimator.predict_proba(X))[:, -1]
    raise TypeError(
        f"{type(estimator).__name__} has neither decision_function nor predict_proba: the "
        "ranking scorers need scores"
    )


class PUScorer:
    """A scikit-learn scorer (``scorer(estimator, X, s) -> float``, higher is better) that needs
    only PU labels. Build one with :func:`make_pu_scorer`, which checks the arguments.

    Parameters
    ----------
    metric : str
        One of ``SCORING_NAMES``: ``"pu-accuracy"``, ``"lee-liu"``, ``"pu-recall"``,
        ``"pu-precision"``, ``"pu-f1"``, ``"pu-specificity"``, ``"pu-roc-auc"``,
        ``"pu-average-precision"`` or a loss name of :func:`pu_risk`.
    prior : float or None, default=None
        The evaluation prior; None: the fitted ``prior_`` of the estimator being scored (of
        its last step for a :class:`~sklearn.pipeline.Pipeline`).

    Attributes
    ----------
    metric : str
        One of ``SCORING_NAMES``.
    prior : float or None
        The evaluation prior; None: the fitted ``prior_`` of the estimator being scored.

    Examples
    --------
    >>> import numpy as np
    >>> from unlabeled import PUSVC
    >>> from unlabeled.metrics import make_pu_scorer
    >>> rng = np.random.default_rng(0)
    >>> X = np.r_[rng.normal(1, 1, (40, 2)), rng.normal(-1, 1, (40, 2))]
    >>> s = np.zeros(80, dtype=int); s[:12] = 1
    >>> scorer = make_pu_scorer("pu-accuracy")  # at the fitted prior_
    >>> 0.5 < scorer(PUSVC(prior=28 / 68).fit(X, s), X, s) <= 1
    True
    """

    def __init__(self, metric: str, prior: float | None = None) -> None:
        self.metric = metric
        self.prior = prior

    @property
    def needs_prior(self) -> bool:
        """Whether the metric depends on the class prior (all but ``"lee-liu"`` and
        ``"pu-recall"``)."""
        return self.metric not in ("lee-liu", "pu-recall")

    def _prior_for(self, estimator) -> float:
        if self.prior is not None:
            return self.prior
        prior = getattr(estimator, "prior_", None)
        while prior is None and hasattr(estimator, "steps"):  # a Pipeline: its last step's
            estimator = estimator.steps[-1][1]
            prior = getattr(estimator, "prior_", None)
        if prior is None:
            raise ValueError(
                f"the {self.metric!r} scorer has no prior: the estimator "
                f"{type(estimator).__name__} has no fitted prior_; pass "
                f"make_pu_scorer({self.metric!r}, prior=...) with the class prior among the "
                "unlabeled points"
            )
        return float(prior)

    def __call__(
        self, estimator: Any, X: Any, s: ArrayLike, sample_weight: ArrayLike | None = None
    ) -> float:
        """Score the fitted ``estimator`` on ``X`` with PU labels ``s``.

        Parameters
        ----------
        estimator : fitted classifier
            With ``predict`` (and ``decision_function`` for the losses other than zero-one;
            ``decision_function`` or ``predict_proba`` for ``"pu-roc-auc"`` and
            ``"pu-average-precision"``; ``prior_`` when the scorer has no ``prior``).
        X : array-like or sparse matrix of shape (n_samples, n_features)
            The held-out points.
        s : array-like of shape (n_samples,)
            Their PU labels: 1 = labeled positive, 0 or -1 = unlabeled.
        sample_weight : array-like of shape (n_samples,), default=None
            Weights of the points.

        Returns
        -------
        float
            The score, higher is better: :func:`pu_accuracy_score`, :func:`lee_liu_score` or
            the negated :func:`pu_risk`.
        """
        if self.metric in ("lee-liu", "pu-recall"):
            no_prior = lee_liu_score if self.metric == "lee-liu" else pu_recall_score
            return no_prior(s, estimator.predict(X), sample_weight=sample_weight)
        prior = self._prior_for(estimator)
        if self.metric in _PREDICTION_SCORERS:
            fn = _PREDICTION_SCORERS[self.metric]
            return fn(s, estimator.predict(X), prior, sample_weight=sample_weight)
        if self.metric in _RANKING_SCORERS:
            ranked = pu_roc_auc_score if self.metric == "pu-roc-auc" else pu_average_precision_score
            return ranked(s, _ranking_scores(estimator, X), prior, sample_weight=sample_weight)
        if self.metric == "zero-one":
            f = np.where(np.asarray(estimator.predict(X)) == 1, 1.0, -1.0)
        else:
            f = estimator.decision_function(X)
        return -pu_risk(s, f, prior, self.metric, sample_weight=sample_weight)

    def __repr__(self) -> str:
        prior = "" if self.prior is None else f", prior={self.prior!r}"
        return f"make_pu_scorer({self.metric!r}{prior})"


def make_pu_scorer(metric: str = "pu-accuracy", *, prior: float | None = None) -> PUScorer:
    """A scorer for ``scoring=`` in scikit-learn's searches, computed from PU labels only.

    Parameters
    ----------
    metric : str, default="pu-accuracy"
        ``"pu-accuracy"``: :func:`pu_accuracy_score` of ``predict`` (1 - the PU zero-one risk).
        ``"lee-liu"``: :func:`lee_liu_score` of ``predict`` (needs no prior).
        ``"pu-recall"`` (needs no prior), ``"pu-precision"``, ``"pu-f1"``,
        ``"pu-specificity"``: :func:`pu_recall_score` and the others of ``predict``.
        ``"pu-roc-auc"``, ``"pu-average-precision"``: :func:`pu_roc_auc_score` and
        :func:`pu_average_precision_score` of ``decision_function`` (or of the positive
        class's ``predict_proba``).
        A loss name of :func:`pu_risk` (``"zero-one"``, ``"double-hinge"``, ...): the negated
        unbiased PU risk, of ``predict`` for ``"zero-one"`` and of ``decision_function``
        otherwise. All are higher-is-better.
    prior : float in (0, 1) or None, default=None
        The class prior among the unlabeled points used to evaluate every candidate. None: the
        fitted ``prior_`` of the estimator being scored, which is right when the prior is not
        searched. When it is, give a fixed value: the PU risk under each candidate's own prior is
        biased towards the largest prior of the grid.

    Returns
    -------
    PUScorer
        ``scorer(estimator, X, s, sample_weight=None) -> float``.

    See Also
    --------
    unlabeled.model_selection.PUGridSearchCV : takes the same names as ``scoring=``.

    Examples
    --------
    >>> from sklearn.model_selection import GridSearchCV
    >>> from unlabeled import PUSVC
    >>> search = GridSearchCV(PUSVC(prior=0.4), {"prior": [0.3, 0.4, 0.5]},
    ...                       scoring=make_pu_scorer("pu-accuracy", prior=0.4))
    """
    if not isinstance(metric, str) or metric not in SCORING_NAMES:
        raise ValueError(f"metric must be one of {list(SCORING_NAMES)}, got {metric!r}")
    if prior is not None:
        prior = check_real(prior, "prior", low=0.0, high=1.0)
    return PUScorer(metric, prior)


#: negated unbiased PU zero-one risk, with the estimator's fitted ``prior_``
pu_zero_one_scorer = make_pu_scorer("zero-one")
#: negated unbiased PU double-hinge risk, with the estimator's fitted ``prior_``
pu_double_hinge_scorer = make_pu_scorer("double-hinge")
#: unbiased PU accuracy estimate, with the estimator's fitted ``prior_`` (what ``PUSVC.score`` is)
pu_accuracy_scorer = make_pu_scorer("pu-accuracy")
#: the Lee-Liu criterion recall^2 / P(y_pred = 1); needs no prior
lee_liu_scorer = make_pu_scorer("lee-liu")
