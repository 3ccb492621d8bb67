r"""Scores of a classifier from positive-unlabeled labels: the unbiased PU risk, the PU accuracy,
the Lee-Liu criterion, and scikit-learn scorers built on them.

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
unlabeled examples using weighted logistic regression", ICML 2003.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ._validation import check_pu_labels, check_real

__all__ = [
    "LOSSES",
    "SCORING_NAMES",
    "PUScorer",
    "lee_liu_score",
    "lee_liu_scorer",
    "make_pu_scorer",
    "pu_accuracy_score",
    "pu_accuracy_scorer",
    "pu_double_hinge_scorer",
    "pu_risk",
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

# the names make_pu_scorer and PUGridSearchCV(scoring=...) accept
SCORING_NAMES = ("pu-accuracy", "lee-liu", *LOSSES)


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
) -> float:
    r"""Unbiased estimate of the risk of ``f`` from PU labels (du Plessis, Niu, Sugiyama).

    .. math::

        \hat R(f) = \pi\,\frac{1}{p}\sum_{x\in P}\ell(f(x))
                    - \pi\,\frac{1}{p}\sum_{x\in P}\ell(-f(x))
                    + \frac{1}{n}\sum_{x\in U}\ell(-f(x)),

    the sample version of ``R(f) = pi E_P[l(f)] + (1 - pi) E_N[l(-f)]``, the expected loss on the
    unlabeled population (a mixture with ``pi`` positives), with ``P`` the ``p`` labeled positives
    and ``U`` the ``n`` unlabeled points. It is unbiased for a fixed ``f`` when the labeled
    positives are a sample of the positive class, and can be negative on a small sample. Lower
    is better.

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
    ICML 2015.

    Examples
    --------
    >>> import numpy as np
    >>> s = np.array([1, 1, 0, 0, 0, 0])
    >>> f = np.array([2.0, -1.0, 1.0, -1.0, -1.0, -2.0])
    >>> float(pu_risk(s, f, prior=0.25))   # 0.25*(1/2) - 0.25*(1/2) + 1/4
    0.25
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
    w = _check_weights(sample_weight, n)
    fp, fu = f[mask], f[~mask]
    wp, wu = (None, None) if w is None else (w[mask], w[~mask])
    lp = np.asarray(pos_loss(fp), dtype=np.float64)
    lp_neg = np.asarray(neg_loss(fp), dtype=np.float64)
    lu_neg = np.asarray(neg_loss(fu), dtype=np.float64)
    return (
        prior * _mean(lp, wp, "labeled positives")
        - prior * _mean(lp_neg, wp, "labeled positives")
        + _mean(lu_neg, wu, "unlabeled points")
    )


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


# ------------------------------------------------------------------------------ scorers
class PUScorer:
    """A scikit-learn scorer (``scorer(estimator, X, s) -> float``, higher is better) that needs
    only PU labels. Build one with :func:`make_pu_scorer`, which checks the arguments.

    Parameters
    ----------
    metric : str
        One of ``SCORING_NAMES``: ``"pu-accuracy"``, ``"lee-liu"`` or a loss name of
        :func:`pu_risk`.
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
        """Whether the metric depends on the class prior (all but ``"lee-liu"``)."""
        return self.metric != "lee-liu"

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
            ``prior_`` when the scorer has no ``prior``).
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
        if self.metric == "lee-liu":
            return lee_liu_score(s, estimator.predict(X), sample_weight=sample_weight)
        prior = self._prior_for(estimator)
        if self.metric == "pu-accuracy":
            return pu_accuracy_score(s, estimator.predict(X), prior, sample_weight=sample_weight)
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
