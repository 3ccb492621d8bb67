r"""Model selection without negatives: PU metrics, scorers, splitters and a warm-started search.

In positive-unlabeled (PU) learning the held-out data carry PU labels ``s`` (1 = labeled
positive, 0 or -1 = unlabeled), not the classes ``y``, so scikit-learn's metrics (which compare
predictions with ``y``) would score a PU model against the wrong target: a correct model
*disagrees* with ``s`` on every unlabeled positive. This module estimates the quantities that
matter from PU labels alone.

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
:class:`PUGridSearchCV` fixes it to the base estimator's ``prior`` by default. With ``prior=None``
a scorer uses the fitted ``prior_`` of the estimator it scores, which is right when the prior is
not searched. ``lee_liu_scorer`` needs no prior at all.

**The search.** :class:`PUGridSearchCV` evaluates the same candidates on the same folds as
scikit-learn's ``GridSearchCV`` but walks each fold's regularisation path from large ``lam`` to
small with ``warm_start=True``, so each fit starts from the previous solution; the scores are
those of cold fits up to the solver tolerance. Its tasks (one per fold and combination of the
other parameters) run through joblib, so ``joblib.parallel_backend("dask")`` distributes them
over a Dask cluster.

References
----------
M. C. du Plessis, G. Niu, M. Sugiyama, "Analysis of learning from positive and unlabeled data",
NIPS 2014. M. C. du Plessis, G. Niu, M. Sugiyama, "Convex formulation for learning from
positive and unlabeled data", ICML 2015. W. S. Lee, B. Liu, "Learning with positive and
unlabeled examples using weighted logistic regression", ICML 2003.
"""

from __future__ import annotations

import numbers
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from copy import deepcopy
from itertools import groupby

import numpy as np
from joblib import Parallel, delayed
from scipy.stats import rankdata
from sklearn.base import BaseEstimator, MetaEstimatorMixin, clone
from sklearn.model_selection import ParameterGrid, StratifiedKFold, StratifiedShuffleSplit
from sklearn.utils import get_tags
from sklearn.utils.validation import check_is_fitted

from ._validation import check_gamma, check_int, check_pu_labels, check_real

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
    s,
    f,
    prior: float,
    loss: str | Callable[[np.ndarray], np.ndarray] = "zero-one",
    *,
    sample_weight=None,
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


def pu_accuracy_score(s, y_pred, prior: float, *, sample_weight=None) -> float:
    """Unbiased estimate of the accuracy on the unlabeled population from PU labels.

    ``1 - R01``, with ``R01`` the unbiased PU zero-one risk of :func:`pu_risk`:

        1 - [2 pi (1/p) sum_P 1(y_pred = 0) - pi + (1/n) sum_U 1(y_pred = 1)].

    It is what ``accuracy_score(y, y_pred)`` would be on the unlabeled points if their classes
    were known, in expectation; higher is better. ``y_pred`` holds 1 (positive) and 0 or -1.
    """
    mask = _pu_mask(s)
    pred = _check_predictions(y_pred, mask.size)
    f = np.where(pred, 1.0, -1.0)
    return 1.0 - pu_risk(mask, f, prior, "zero-one", sample_weight=sample_weight)


def lee_liu_score(s, y_pred, *, sample_weight=None) -> float:
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

    References
    ----------
    W. S. Lee, B. Liu, "Learning with positive and unlabeled examples using weighted logistic
    regression", ICML 2003.
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
    only PU labels. Build one with :func:`make_pu_scorer`.

    Attributes
    ----------
    metric : str
        One of ``SCORING_NAMES``.
    prior : float or None
        The evaluation prior; None: the fitted ``prior_`` of the estimator being scored.
    """

    def __init__(self, metric: str, prior: float | None = None):
        self.metric = metric
        self.prior = prior

    @property
    def needs_prior(self) -> bool:
        return self.metric != "lee-liu"

    def _prior_for(self, estimator) -> float:
        if self.prior is not None:
            return self.prior
        prior = getattr(estimator, "prior_", None)
        if prior is None:
            raise ValueError(
                f"the {self.metric!r} scorer has no prior: the estimator "
                f"{type(estimator).__name__} has no fitted prior_; pass "
                f"make_pu_scorer({self.metric!r}, prior=...) with the class prior among the "
                "unlabeled points"
            )
        return float(prior)

    def __call__(self, estimator, X, s, sample_weight=None) -> float:
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


# ------------------------------------------------------------------------------ splitters
def _pu_mask_for_split(s, n_samples: int) -> np.ndarray:
    if s is None:
        raise ValueError(
            "s is None: a PU splitter stratifies on the PU labels; call split(X, s) with "
            "s = 1 for labeled positives and 0 for unlabeled points"
        )
    return check_pu_labels(s, n_samples)


class PUStratifiedKFold(StratifiedKFold):
    """K-fold cross-validation stratified on the PU labels ``s``.

    Every fold gets its share of the labeled positives (and of the unlabeled points), so every
    test fold can estimate the PU risk and every training fold can train a PU model. ``s`` may
    use any encoding the estimators accept (1 / 0, 1 / -1, booleans).

    Parameters
    ----------
    n_splits : int >= 2, default=5
    shuffle : bool, default=False
        Shuffle each class before splitting into folds.
    random_state : int, RandomState instance or None, default=None
        Used when ``shuffle=True``.

    Raises
    ------
    ValueError
        From ``split`` when there are fewer labeled positives (or unlabeled points) than
        ``n_splits``: some test fold would hold none.
    """

    def __init__(self, n_splits: int = 5, *, shuffle: bool = False, random_state=None):
        check_int(n_splits, "n_splits", low=2)
        super().__init__(n_splits=n_splits, shuffle=shuffle, random_state=random_state)

    def split(self, X, y=None, groups=None) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """Train and test indices; ``y`` is the PU labels ``s``."""
        n_samples = X.shape[0] if hasattr(X, "shape") else len(X)
        mask = _pu_mask_for_split(y, n_samples)
        p, n = int(mask.sum()), int((~mask).sum())
        if p < self.n_splits:
            raise ValueError(
                f"s has {p} labeled positives, fewer than n_splits={self.n_splits}: some test "
                f"fold would hold no labeled positive and its PU score would be undefined; use "
                f"n_splits <= {p} or label more positives"
            )
        if n < self.n_splits:
            raise ValueError(
                f"s has {n} unlabeled points, fewer than n_splits={self.n_splits}: use "
                f"n_splits <= {n}"
            )
        return super().split(X, mask.astype(np.int64), groups)


class PUStratifiedShuffleSplit(StratifiedShuffleSplit):
    """Random train/test splits stratified on the PU labels ``s``.

    Parameters are those of :class:`sklearn.model_selection.StratifiedShuffleSplit`
    (``n_splits=10, test_size=None, train_size=None, random_state=None``).

    Raises
    ------
    ValueError
        From ``split`` when a test (or training) set would hold no labeled positive or no
        unlabeled point: fewer than 2 of either kind, or a test size too small for them.
    """

    def __init__(self, n_splits: int = 10, *, test_size=None, train_size=None, random_state=None):
        check_int(n_splits, "n_splits", low=1)
        super().__init__(
            n_splits=n_splits, test_size=test_size, train_size=train_size, random_state=random_state
        )

    def split(self, X, y=None, groups=None) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """Train and test indices; ``y`` is the PU labels ``s``."""
        n_samples = X.shape[0] if hasattr(X, "shape") else len(X)
        mask = _pu_mask_for_split(y, n_samples)
        p, n = int(mask.sum()), int((~mask).sum())
        if min(p, n) < 2:
            kind = "labeled positives" if p < 2 else "unlabeled points"
            raise ValueError(
                f"s has {min(p, n)} {kind}: a stratified split needs at least 2 (one for the "
                "training set, one for the test set)"
            )
        for train, test in super().split(X, mask.astype(np.int64), groups):
            for name, idx in (("test", test), ("training", train)):
                if not mask[idx].any() or mask[idx].all():
                    raise ValueError(
                        f"a {name} set of {idx.size} points holds "
                        f"{'no labeled positive' if not mask[idx].any() else 'no unlabeled point'}"
                        f" ({p} labeled positives, {n} unlabeled in all): increase "
                        f"{'test_size' if name == 'test' else 'train_size'}"
                    )
            yield train, test


def check_pu_cv(cv=5, *, random_state=None):
    """The splitter for ``cv``: an int gives :class:`PUStratifiedKFold` (shuffled when
    ``random_state`` is given); a splitter or an iterable of (train, test) is used as is."""
    if cv is None:
        cv = 5
    if isinstance(cv, numbers.Integral) and not isinstance(cv, bool):
        return PUStratifiedKFold(
            int(cv),
            shuffle=random_state is not None,
            random_state=random_state,
        )
    if hasattr(cv, "split") and hasattr(cv, "get_n_splits"):
        return cv
    if isinstance(cv, Iterator | Sequence) and not isinstance(cv, str | bytes):
        splits = list(cv)
        if all(isinstance(pair, Sequence) and len(pair) == 2 for pair in splits):
            return _FixedSplits(splits)
    raise TypeError(
        f"cv must be an int (number of folds), a splitter with split() or an iterable of "
        f"(train, test) index pairs, got {cv!r}"
    )


class _FixedSplits:
    def __init__(self, splits):
        self.splits = splits

    def split(self, X=None, y=None, groups=None):
        yield from self.splits

    def get_n_splits(self, X=None, y=None, groups=None):
        return len(self.splits)


# ------------------------------------------------------------------------------ search
#: regularisation path of the default grid (walked from the largest value down)
DEFAULT_LAMS = tuple(np.logspace(-4, -1, 7).tolist())
#: kernel widths of the default grid, as multiples of gamma="scale" on the data given to fit
DEFAULT_GAMMA_FACTORS = (0.1, 0.3, 1.0, 3.0, 10.0)


def default_param_grid(estimator, X) -> dict[str, list]:
    """The grid :class:`PUGridSearchCV` uses when ``param_grid=None``.

    ``lam`` over ``DEFAULT_LAMS`` (1e-4 to 1e-1, 7 values) and, for the ``rbf`` and ``poly``
    kernels, ``gamma`` over ``DEFAULT_GAMMA_FACTORS`` times the ``"scale"`` value of ``X``
    (``1 / (n_features * X.var())``, as in :class:`sklearn.svm.SVC`). The prior is the
    estimator's own (searching it needs an explicit grid and a fixed evaluation prior).
    """
    params = estimator.get_params()
    if "lam" not in params:
        raise ValueError(
            f"param_grid=None gives a default grid only for estimators with a lam parameter "
            f"(PUSVC, DoubleHingeQP, RampPU, ...); {type(estimator).__name__} has none: pass "
            "param_grid"
        )
    grid: dict[str, list] = {"lam": list(DEFAULT_LAMS)}
    if params.get("kernel") in ("rbf", "poly") and "gamma" in params:
        scale = check_gamma("scale", params["kernel"], X)
        grid["gamma"] = [float(scale * c) for c in DEFAULT_GAMMA_FACTORS]
    return grid


def _index(X, idx):
    return X[idx] if hasattr(X, "shape") else [X[i] for i in idx]


def _fit_path(estimator, X, s, train, test, fold, path, scorer, warm):
    """Fit and score the candidates of one fold and one combination of the non-path parameters.

    ``path`` lists (candidate index, parameters) in the order to fit them (lam from large to
    small). With ``warm`` one estimator is refitted along the path with ``warm_start=True``,
    so that each fit starts from the previous solution on the same training data.
    """
    if get_tags(estimator).input_tags.pairwise:  # X is a Gram matrix: columns of train
        X_tr, X_te = X[np.ix_(train, train)], X[np.ix_(test, train)]
    else:
        X_tr, X_te = _index(X, train), _index(X, test)
    s_tr, s_te = _index(s, train), _index(s, test)
    out = []
    est = None
    for cand, params in path:
        if est is None or not warm:
            est = clone(estimator)
            if warm:
                est.set_params(warm_start=True)
        est.set_params(**params)
        t0 = time.perf_counter()
        est.fit(X_tr, s_tr)
        fit_time = time.perf_counter() - t0
        t0 = time.perf_counter()
        score = float(scorer(est, X_te, s_te))
        score_time = time.perf_counter() - t0
        out.append((cand, fold, score, fit_time, score_time, int(getattr(est, "n_iter_", 0))))
    return out


class PUGridSearchCV(MetaEstimatorMixin, BaseEstimator):
    """Grid search over a PU estimator's parameters, scored from PU labels, with warm starts
    along the regularisation path.

    Candidates, folds and the layout of ``cv_results_`` are those of scikit-learn's
    ``GridSearchCV(estimator, param_grid, scoring=..., cv=...)``, and so are the scores up to the
    solver tolerance: for each fold and each combination of the other parameters (``gamma``,
    ``prior``, ...), one task fits the ``lam`` values from the largest to the smallest with
    ``warm_start=True`` (when the estimator has that parameter, as PUSVC does), so each fit
    starts from the previous solution on the same training fold; only the time changes. The
    tasks run through joblib: ``n_jobs`` processes locally, or a Dask cluster under
    ``joblib.parallel_backend("dask")``.

    Parameters
    ----------
    estimator : estimator
        A PU estimator, e.g. ``PUSVC(prior=0.4)``.
    param_grid : dict or list of dicts or None, default=None
        As in ``GridSearchCV``. None: :func:`default_param_grid` (``lam`` from 1e-4 to 1e-1 and
        ``gamma`` as multiples of the ``"scale"`` value; the prior stays the estimator's).
    scoring : str, callable or None, default=None
        A name of ``SCORING_NAMES`` (``"pu-accuracy"``, ``"lee-liu"``, ``"zero-one"``,
        ``"double-hinge"``, ...), or a callable ``scorer(estimator, X, s)`` such as
        :func:`make_pu_scorer`'s. None: ``"pu-accuracy"``, what ``PUSVC.score`` computes. A name
        is evaluated at a fixed prior, the base estimator's ``prior`` (every candidate is scored
        at the same prior even when the grid searches ``prior``; see the module docstring). A
        scorer built with ``prior=None`` uses each fit's ``prior_`` and is refused when the grid
        searches ``prior``.
    cv : int, splitter or iterable, default=5
        An int gives :class:`PUStratifiedKFold` (stratified on ``s``).
    n_jobs : int or None, default=None
        joblib's ``n_jobs`` over the (fold, parameter-combination) tasks; None uses the active
        joblib backend's default (one process, or every Dask worker under ``"dask"``).
    refit : bool, default=True
        Refit the best candidate on all the data as ``best_estimator_``. A fit that raises
        stops the search (scikit-learn's ``error_score="raise"``).
    verbose : int, default=0
    random_state : int, RandomState instance or None, default=None
        Shuffles the folds when ``cv`` is an int (None: no shuffle, as scikit-learn).
    warm_start : bool, default=True
        Walk the ``lam`` path with warm starts; False fits every candidate from scratch (to
        measure the gain; the scores agree up to the solver tolerance).

    Attributes
    ----------
    cv_results_ : dict of arrays
        As in ``GridSearchCV``: ``params``, ``param_<name>``, ``split<k>_test_score``,
        ``mean_test_score``, ``std_test_score``, ``rank_test_score``, ``mean_fit_time``, ...
    best_index_, best_params_, best_score_ :
        The candidate with the highest mean test score (the first one on ties).
    best_estimator_ : estimator
        The best candidate refitted on all the data (``refit=True``).
    scorer_ : callable
    n_splits_ : int
    param_grid_ : dict or list of dicts
        The grid searched (the default one resolved on ``X`` when ``param_grid=None``).
    n_solver_iter_ : int
        Solver iterations summed over all the cross-validation fits (``n_iter_`` of each fit),
        a measure of the work the warm starts save.
    refit_time_ : float

    Examples
    --------
    >>> from unlabeled import PUSVC
    >>> from unlabeled.model_selection import PUGridSearchCV
    >>> search = PUGridSearchCV(PUSVC(prior=0.4), {"lam": [1e-3, 1e-2], "gamma": [0.1, 1.0]})
    >>> # search.fit(X, s); search.best_params_, search.best_estimator_.predict(X_new)
    """

    def __init__(
        self,
        estimator,
        param_grid=None,
        *,
        scoring=None,
        cv=5,
        n_jobs=None,
        refit=True,
        verbose=0,
        random_state=None,
        warm_start=True,
    ):
        self.estimator = estimator
        self.param_grid = param_grid
        self.scoring = scoring
        self.cv = cv
        self.n_jobs = n_jobs
        self.refit = refit
        self.verbose = verbose
        self.random_state = random_state
        self.warm_start = warm_start

    # ---------------------------------------------------------------- checks
    def _resolve_scorer(self, searches_prior: bool):
        base_prior = self.estimator.get_params().get("prior")
        fixed = (
            float(base_prior)
            if isinstance(base_prior, numbers.Real) and not isinstance(base_prior, bool)
            else None
        )
        scoring = "pu-accuracy" if self.scoring is None else self.scoring
        if isinstance(scoring, str):
            if scoring not in SCORING_NAMES:
                raise ValueError(
                    f"scoring must be one of {list(SCORING_NAMES)} or a callable "
                    f"scorer(estimator, X, s), got {scoring!r} (scikit-learn's metrics compare "
                    "predictions with s, which a correct PU model contradicts)"
                )
            if scoring != "lee-liu" and fixed is None and searches_prior:
                raise ValueError(
                    f"scoring={scoring!r} needs one evaluation prior for all candidates, but the "
                    "estimator's prior is not a number; pass "
                    f"scoring=make_pu_scorer({scoring!r}, prior=...)"
                )
            return make_pu_scorer(scoring, prior=fixed)
        if not callable(scoring):
            raise TypeError(f"scoring must be a name, a callable or None, got {scoring!r}")
        if (
            isinstance(scoring, PUScorer)
            and scoring.needs_prior
            and scoring.prior is None
            and searches_prior
        ):
            raise ValueError(
                f"param_grid searches prior but the scorer {scoring!r} scores each candidate "
                "with its own prior_, which favours the largest prior; pass "
                f"make_pu_scorer({scoring.metric!r}, prior=...) with one evaluation prior"
            )
        return scoring

    def _candidate_grid(self, X):
        grid = self.param_grid
        if grid is None:
            grid = default_param_grid(self.estimator, X)
        elif not isinstance(grid, Mapping | Sequence) or isinstance(grid, str):
            raise TypeError(f"param_grid must be a dict, a list of dicts or None, got {grid!r}")
        candidates = list(ParameterGrid(grid))
        valid = set(self.estimator.get_params())
        for params in candidates:
            unknown = set(params) - valid
            if unknown:
                raise ValueError(
                    f"param_grid names {sorted(unknown)}, which {type(self.estimator).__name__} "
                    f"does not have; its parameters are {sorted(valid)}"
                )
        return grid, candidates

    # ---------------------------------------------------------------- fit
    def fit(self, X, s, **fit_params) -> PUGridSearchCV:
        """Run the search on ``X`` with PU labels ``s`` (1 = labeled positive, 0 = unlabeled)."""
        if fit_params:
            raise TypeError(f"fit takes no extra arguments, got {sorted(fit_params)}")
        check_int(self.verbose, "verbose", low=0)
        if not isinstance(self.refit, bool | np.bool_):
            raise TypeError(f"refit must be True or False, got {self.refit!r}")
        if not isinstance(self.warm_start, bool | np.bool_):
            raise TypeError(f"warm_start must be True or False, got {self.warm_start!r}")
        if not hasattr(self.estimator, "fit") or not hasattr(self.estimator, "get_params"):
            raise TypeError(f"estimator must be a scikit-learn estimator, got {self.estimator!r}")
        if not hasattr(X, "shape"):
            X = np.asarray(X)
        s = np.asarray(s)
        check_pu_labels(s, X.shape[0])

        grid, candidates = self._candidate_grid(X)
        searches_prior = len({repr(c.get("prior")) for c in candidates}) > 1
        scorer = self._resolve_scorer(searches_prior)
        cv = check_pu_cv(self.cv, random_state=self.random_state)
        splits = list(cv.split(X, s))
        n_splits = len(splits)
        if n_splits < 1:
            raise ValueError("cv gave no split")

        warm = bool(self.warm_start) and "warm_start" in self.estimator.get_params()
        tasks = _path_tasks(candidates)
        if self.verbose:
            print(
                f"[PUGridSearchCV] {n_splits} folds x {len(candidates)} candidates = "
                f"{n_splits * len(candidates)} fits in {n_splits * len(tasks)} tasks "
                f"({'warm' if warm else 'cold'} lam paths)",
                file=sys.stderr,
            )
        parallel = Parallel(n_jobs=self.n_jobs, verbose=self.verbose)
        results = parallel(
            delayed(_fit_path)(self.estimator, X, s, train, test, k, path, scorer, warm)
            for k, (train, test) in enumerate(splits)
            for path in tasks
        )

        n_cand = len(candidates)
        scores = np.full((n_splits, n_cand), np.nan)
        fit_times = np.zeros((n_splits, n_cand))
        score_times = np.zeros((n_splits, n_cand))
        n_iter = 0
        for task in results:
            for cand, fold, score, ft, st, it in task:
                scores[fold, cand], fit_times[fold, cand], score_times[fold, cand] = score, ft, st
                n_iter += it

        self.cv_results_ = _format_results(candidates, scores, fit_times, score_times)
        self.best_index_ = int(self.cv_results_["rank_test_score"].argmin())
        self.best_params_ = candidates[self.best_index_]
        self.best_score_ = float(self.cv_results_["mean_test_score"][self.best_index_])
        self.scorer_ = scorer
        self.n_splits_ = n_splits
        self.param_grid_ = grid
        self.n_solver_iter_ = n_iter
        self.multimetric_ = False
        if self.refit:
            t0 = time.perf_counter()
            self.best_estimator_ = clone(self.estimator).set_params(**self.best_params_)
            self.best_estimator_.fit(X, s)
            self.refit_time_ = time.perf_counter() - t0
            if hasattr(self.best_estimator_, "n_features_in_"):
                self.n_features_in_ = self.best_estimator_.n_features_in_
        return self

    # ---------------------------------------------------------------- delegation
    def __sklearn_tags__(self):
        # a classifier when the estimator is one, as scikit-learn's searches are, so that
        # cross_val_score(search, X, s, cv=k) stratifies and scorers treat it as one
        tags = super().__sklearn_tags__()
        sub = get_tags(self.estimator)
        tags.estimator_type = sub.estimator_type
        tags.classifier_tags = deepcopy(sub.classifier_tags)
        tags.input_tags.pairwise = sub.input_tags.pairwise
        tags.input_tags.sparse = sub.input_tags.sparse
        return tags

    def _best(self):
        check_is_fitted(self, "cv_results_")
        if not self.refit:
            raise AttributeError(
                "this PUGridSearchCV was fitted with refit=False: best_estimator_ does not exist; "
                "set refit=True to predict with the best candidate"
            )
        return self.best_estimator_

    @property
    def classes_(self) -> np.ndarray:
        return self._best().classes_

    def predict(self, X) -> np.ndarray:
        """``best_estimator_.predict(X)``."""
        return self._best().predict(X)

    def decision_function(self, X) -> np.ndarray:
        """``best_estimator_.decision_function(X)``."""
        return self._best().decision_function(X)

    def score(self, X, s) -> float:
        """``scorer_(best_estimator_, X, s)``: the search's own PU score on new data."""
        return float(self.scorer_(self._best(), X, s))


def _path_tasks(candidates: list[dict]) -> list[list[tuple[int, dict]]]:
    """Group the candidates by everything but ``lam``; each group, sorted by decreasing ``lam``,
    is one warm-start path. Candidates without ``lam`` form paths of one."""

    def key(i):
        params = candidates[i]
        return repr(sorted((k, repr(v)) for k, v in params.items() if k != "lam"))

    order = sorted(range(len(candidates)), key=key)
    tasks = []
    for _, members in groupby(order, key=key):
        members = list(members)
        with_lam = [i for i in members if isinstance(candidates[i].get("lam"), numbers.Real)]
        others = [i for i in members if i not in with_lam]
        with_lam.sort(key=lambda i: -float(candidates[i]["lam"]))
        if with_lam:
            tasks.append([(i, candidates[i]) for i in with_lam])
        tasks.extend([[(i, candidates[i])] for i in others])
    return tasks


def _format_results(candidates, scores, fit_times, score_times) -> dict:
    """cv_results_ in GridSearchCV's layout and ranking (ties share the smallest rank)."""
    n_splits, n_cand = scores.shape
    results: dict = {
        "mean_fit_time": fit_times.mean(axis=0),
        "std_fit_time": fit_times.std(axis=0),
        "mean_score_time": score_times.mean(axis=0),
        "std_score_time": score_times.std(axis=0),
    }
    names = sorted({k for c in candidates for k in c})
    for name in names:
        col = np.ma.MaskedArray(np.empty(n_cand, dtype=object), mask=True)
        for i, c in enumerate(candidates):
            if name in c:
                col[i] = c[name]
        results[f"param_{name}"] = col
    results["params"] = candidates
    for k in range(n_splits):
        results[f"split{k}_test_score"] = scores[k]
    means = scores.mean(axis=0)
    results["mean_test_score"] = means
    results["std_test_score"] = scores.std(axis=0)
    if np.isnan(means).all():
        ranks = np.ones(n_cand, dtype=np.int32)
    else:
        filled = np.nan_to_num(means, nan=np.nanmin(means) - 1)
        ranks = rankdata(-filled, method="min").astype(np.int32)
    results["rank_test_score"] = ranks
    return results


__all__ = [
    "LOSSES",
    "SCORING_NAMES",
    "PUGridSearchCV",
    "PUScorer",
    "PUStratifiedKFold",
    "PUStratifiedShuffleSplit",
    "check_pu_cv",
    "default_param_grid",
    "lee_liu_score",
    "lee_liu_scorer",
    "make_pu_scorer",
    "pu_accuracy_score",
    "pu_accuracy_scorer",
    "pu_double_hinge_scorer",
    "pu_risk",
    "pu_zero_one_scorer",
]
