"""What the class-prior estimators share: their base class (the bootstrap interval, the
checks), grids, subsamples, distances in units of a power of two, the cross-fitting of
labeled against unlabeled points, and their documentation."""

from __future__ import annotations

import warnings
from collections.abc import Iterable

import numpy as np
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression
from sklearn.metrics.pairwise import euclidean_distances
from sklearn.model_selection import StratifiedKFold
from sklearn.utils import check_random_state
from sklearn.utils.validation import validate_data

from .._budget import check_dense_budget
from .._validation import (
    RANDOM_STATE,
    Instance,
    Integer,
    Real,
    canonical_sparse,
    check_pu_labels,
)
from ..base import (
    ArrayLike,
    Fitted,
    InvalidParameterError,
    MatrixLike,
    ValidatedEstimator,
    set_init_params,
)


def prior_from_label_frequency(c: float, n_labeled: int, n_unlabeled: int) -> float:
    r"""The proportion of positives among the unlabeled points implied by a label frequency.

    Under "selected completely at random", each positive was labeled with probability ``c``,
    so the ``n_labeled`` labeled positives are a fraction ``c`` of about ``n_labeled / c``
    positives in all; the other ``n_labeled / c - n_labeled`` are among the ``n_unlabeled``
    points:

    .. math::  \pi = \frac{p (1 - c)}{c\, n}, \qquad p = n_{labeled},\ n = n_{unlabeled}.

    It lies in ``[0, 1]`` exactly when ``n_labeled / (n_labeled + n_unlabeled) <= c <= 1`` (a
    smaller ``c`` would need more positives than there are points).

    Parameters
    ----------
    c : float
        The label frequency ``P(s = 1 | y = 1)``.
    n_labeled : int
        Number of labeled positives ``p``.
    n_unlabeled : int
        Number of unlabeled points ``n``.

    Returns
    -------
    float
        ``pi``; ``inf`` when ``c <= 0``. Not clipped to ``[0, 1]``.

    See Also
    --------
    ElkanNoto, TIcE : estimators of ``c`` that return this prior.

    References
    ----------
    C. Elkan, K. Noto, "Learning classifiers from only positive and unlabeled data",
    KDD 2008.

    Examples
    --------
    >>> prior_from_label_frequency(0.5, 50, 150)   # 100 positives, 50 of them unlabeled
    0.3333333333333333
    """
    c = float(c)
    if not c > 0:
        return float("inf")
    return n_labeled * (1.0 - c) / (c * n_unlabeled)


#: the bootstrap refits the estimator once per resample: its work is n_bootstrap fits, so
#: n_bootstrap is bounded (Bracket(n_bootstrap=10_000) on 500 points ran for 8 minutes); 1,000
#: is the usual count for a percentile interval at level 0.95 (Efron and Tibshirani, 1993)
_MAX_BOOTSTRAP = 1_000


# ---------------------------------------------------------------------------- the base class
class PriorEstimator(ValidatedEstimator):
    """fit(X, s) -> prior_, and the bootstrap interval; subclasses supply _estimate.

    Subclasses add their parameters to ``_parameter_constraints``, check what the constraints
    cannot say in :meth:`_check_values` (no data) and :meth:`_check_sizes` (the numbers of
    labeled and unlabeled points), and estimate with the checked values in ``_estimate``."""

    _accept_sparse = True

    _parameter_constraints: dict = {
        "n_bootstrap": [Integer(0)],  # and not 1: see _validate_params
        "confidence": [Real(0.0, 1.0)],
        "random_state": RANDOM_STATE,
    }

    _fitted_attributes: dict = {
        "prior_": Fitted("float", low=0.0, high=1.0),
        "n_labeled_": Fitted("int", low=1),
        "n_unlabeled_": Fitted("int", low=1),
        "bootstrap_priors_": Fitted("f", ("n_bootstrap",), low=0.0, high=1.0, none=True),
        "prior_interval_": Fitted("floats", (2,), none=True),
    }

    # set by fit, None without bootstrap: declared for the type checker
    bootstrap_priors_: np.ndarray | None
    prior_interval_: tuple[float, float] | None

    def __init__(
        self,
        *,
        n_bootstrap: int = 0,
        confidence: float = 0.95,
        random_state: int | np.random.RandomState | None = None,
    ) -> None:
        # the parameters every estimator has; each subclass lists them in its own signature
        set_init_params(self, locals())

    def _validate_params(self) -> dict:
        """The declared constraints, then what they cannot say: ``n_bootstrap`` is not 1, and
        each estimator's own checks of :meth:`_check_values`. Returns the checked values."""
        params = super()._validate_params()
        nb = params["n_bootstrap"]
        if nb == 1:
            raise InvalidParameterError(
                "n_bootstrap must be 0 (no interval) or at least 2 (an interval needs a spread)"
            )
        if nb > _MAX_BOOTSTRAP:
            raise InvalidParameterError(
                f"n_bootstrap={nb:,} would refit {type(self).__name__} {nb:,} times: at most "
                f"{_MAX_BOOTSTRAP:,} resamples (the bootstrap's work is n_bootstrap fits); lower "
                "n_bootstrap (a 95% percentile interval settles within a few hundred to a "
                "thousand resamples)"
            )
        return self._check_values(params)

    def _check_values(self, params: dict) -> dict:
        """The checks of a subclass's parameters that the declared constraints cannot express
        (the entries of a grid, the methods of an estimator); ``params`` with the values to use
        (a grid as an array, say)."""
        return params

    #: the fewest unlabeled points the estimate takes (checked with s: 2 for a classifier of
    #: labeled against unlabeled points on folds, whose every training set needs one)
    _min_unlabeled = 1

    def _check_sizes(self, n_labeled: int, n_unlabeled: int, params: dict) -> None:
        """The checks of the parameters against the data (folds against the points), before
        any estimate; the bootstrap resamples keep both numbers."""

    def _check_memory(self, n_labeled: int, n_unlabeled: int, n_features: int, params: dict):
        """The memory that the parameters make the fit hold, against the budget
        (:func:`check_dense_budget`), before any work; subclasses add their own arrays. Here
        the bootstrap's: the seeds, the estimates and the quantiles' copy of them."""
        nb = params["n_bootstrap"]
        check_dense_budget(
            24.0 * nb,
            f"{type(self).__name__} with n_bootstrap={nb:,} keeps {nb:,} seeds and estimates",
            "lower n_bootstrap: a few thousand resamples settle a percentile interval",
        )

    def fit(self, X: MatrixLike, s: ArrayLike) -> PriorEstimator:
        """Estimate the proportion of positives among the unlabeled points.

        Transactional: a fit that fails, however late (Ctrl-C in the bootstrap included),
        leaves the estimator as it was.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Not modified.
        s : array-like of shape (n_samples,)
            1 for labeled positives, 0 (or -1) for unlabeled points, or booleans.

        Returns
        -------
        self
            Fitted: ``prior_`` and, with ``n_bootstrap > 0``, ``prior_interval_`` and
            ``bootstrap_priors_``.

        See Also
        --------
        unlabeled.PUSVC : takes the estimate as its ``prior``.
        """
        params = self._validate_params()
        X = validate_data(
            self,
            X,
            accept_sparse="csr" if self._accept_sparse else False,
            dtype=np.float64,
            order="C",
            reset=True,
        )
        X = canonical_sparse(X)
        mask = check_pu_labels(
            s, X.shape[0], min_unlabeled=self._min_unlabeled, who=type(self).__name__
        )
        Xp, Xu = X[mask], X[~mask]
        self._check_sizes(Xp.shape[0], Xu.shape[0], params)
        self._check_memory(Xp.shape[0], Xu.shape[0], X.shape[1], params)
        rng = check_random_state(self.random_state)
        # the estimate's seed is drawn first, so that prior_ does not depend on n_bootstrap
        seed = int(rng.randint(np.iinfo(np.int32).max))
        prior, info = self._estimate(Xp, Xu, np.random.RandomState(seed), params)
        for key, value in info.items():
            setattr(self, key, value)
        self.prior_ = float(prior)
        self.n_labeled_, self.n_unlabeled_ = int(Xp.shape[0]), int(Xu.shape[0])
        if params["n_bootstrap"]:
            seeds = rng.randint(np.iinfo(np.int32).max, size=params["n_bootstrap"])
            draws = np.empty(params["n_bootstrap"])
            p, n = Xp.shape[0], Xu.shape[0]
            for b, sd in enumerate(seeds):
                r = np.random.RandomState(sd)
                ip, iu = r.randint(p, size=p), r.randint(n, size=n)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", RuntimeWarning)
                    draws[b] = self._estimate(Xp[ip], Xu[iu], r, params)[0]
            a = (1.0 - params["confidence"]) / 2
            self.bootstrap_priors_ = draws
            self.prior_interval_ = (
                float(np.quantile(draws, a)),
                float(np.quantile(draws, 1.0 - a)),
            )
        else:
            self.bootstrap_priors_ = None
            self.prior_interval_ = None
        return self

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        tags.input_tags.sparse = self._accept_sparse
        return tags


#: a grid of candidate values: None (the default grid) or a 1-d sequence of numbers, whose
#: entries :func:`check_positive_grid` checks
GRID_CONSTRAINT = [None, Instance((Iterable,), "a non-empty 1-d sequence of numbers")]


def check_positive_grid(values, name, *, high=None):
    """None, or a non-empty 1-d array of finite numbers > 0 (and < high)."""
    if values is None:
        return None
    arr = np.asarray(values, dtype=np.float64) if _numeric_seq(values) else None
    if arr is None or arr.ndim != 1 or arr.size == 0:
        raise InvalidParameterError(
            f"{name} must be None or a non-empty 1-d sequence of numbers, got {values!r}"
        )
    bad = ~np.isfinite(arr) | (arr <= 0) | ((arr >= high) if high is not None else False)
    if bad.any():
        where = f"in (0, {high})" if high is not None else "> 0"
        raise InvalidParameterError(
            f"every value of {name} must be finite and {where}, got {values!r}"
        )
    return arr


def _numeric_seq(values):
    try:
        arr = np.asarray(values)
    except Exception:  # noqa: BLE001 - anything that is not array-like is refused below
        return False
    return arr.dtype.kind in "iuf" and not isinstance(values, (str, bytes))


def subsample(X, cap, rng):
    if cap is None or X.shape[0] <= cap:
        return X
    return X[np.sort(rng.choice(X.shape[0], cap, replace=False))]


def stacked(Xp, Xu):
    """The labeled positives and unlabeled points as one X, with labels s (1 and 0)."""
    X = sp.vstack([Xp, Xu], format="csr") if sp.issparse(Xp) else np.vstack([Xp, Xu])
    return X, np.r_[np.ones(Xp.shape[0], dtype=int), np.zeros(Xu.shape[0], dtype=int)]


def check_classifier(
    est, needs: tuple[str, ...], example: str, name: str = "estimator", none: bool = True
) -> None:
    """The parameter ``name`` (``estimator``, or an entry of ``scorers``): None (where
    ``none``) or a classifier with ``fit`` and one of the methods ``needs``."""
    if est is None and none:
        return
    if not (hasattr(est, "fit") and any(hasattr(est, m) for m in needs)):
        raise InvalidParameterError(
            f"{name} must be a classifier with fit and {' or '.join(needs)} (e.g. "
            f"{example}), got {est!r}"
        )


def sq_dists(A, B=None):
    D = euclidean_distances(A, A if B is None else B, squared=True)
    return np.maximum(D, 0.0, out=D)


#: the largest magnitudes whose squared distances stay normal floats: outside
#: [2**-300, 2**300], the kernel estimators compute in units of a power of two
_UNIT_RANGE = (2.0**-300, 2.0**300)


def unit_exponent(*arrays) -> int:
    """``k`` such that the points over ``2**k`` have their largest magnitude in [0.5, 1),
    when it lies outside :data:`_UNIT_RANGE`; else 0 (the points as they are, to the bit).

    The Gaussian kernels of KM1, KM2 and PenalizedL1 depend on the points only through
    ``||x - y|| / w``, with the width ``w`` a multiple of the median distance (or given in
    the points' units): scaling the points and the width by ``2**-k`` is exact and leaves
    the kernel unchanged, while the squared distances of points of 1e160 overflow (the
    width was infinite) and those of points of 1e-160 underflow to 0."""
    top = 0.0
    for a in arrays:
        values = a.data if sp.issparse(a) else a
        if values.size:
            top = max(top, float(np.max(np.abs(values))))
    if top == 0.0 or _UNIT_RANGE[0] <= top <= _UNIT_RANGE[1]:
        return 0
    return int(np.frexp(top)[1])


def in_units(X, k: int):
    """``X / 2**k``, exactly (a copy; ``X`` itself when ``k`` is 0)."""
    if k == 0:
        return X
    if sp.issparse(X):
        X = X.copy()
        X.data = np.ldexp(X.data, -k)
        return X
    return np.ldexp(X, -k)


def at_zero_width(K, D, w) -> None:
    """``K = exp(-D / (2 w^2))`` where ``2 w^2`` underflows to 0 (a width of 1e-3 given for
    points of 1e300, 1e-303 in their units): the limit, 1 at distance 0 (not 0/0, NaN) and
    0 elsewhere (as computed). Nothing to do for any other width."""
    if not 2.0 * w * w > 0.0:
        K[D == 0.0] = 1.0


def width_in_data_units(width: float, k: int, name: str) -> float:
    """A width found in units of ``2**k`` back in the data's units; a ValueError naming X
    when it is past the largest float (points spread over more than about 1e307)."""
    out = float(np.ldexp(width, k))
    if not np.isfinite(out):
        raise ValueError(
            f"{name}: the points of X are spread so far (up to {np.ldexp(1.0, k):.3g}) that "
            "the kernel's width is past the largest float; rescale X"
        )
    return out


# ------------------------------------------------------------------------- shared docs
_SEE_ALSO = {  # registry: the See Also line of each
    "BestBin": "BestBin : best-bin estimation on held-out scores of labeled against unlabeled.",
    "Bracket": "Bracket : the midpoint of BestBin (errs high) and TIcE (errs low).",
    "Blend": "Blend : the mean of repeated BestBin and TIcE estimates (prior='auto').",
    "KM1": "KM1 : kernel mean embedding, KM1 threshold.",
    "KM2": "KM2 : kernel mean embedding, KM2 threshold (mixture proportion estimation).",
    "PenalizedL1": "PenalizedL1 : penalised L1-distance minimisation.",
    "ElkanNoto": "ElkanNoto : the label frequency from a classifier's probabilities.",
    "TIcE": "TIcE : the label frequency from a lower bound over tree-induced subsets.",
}


def shared_docs(draws: str, *, example: tuple[float, float], see_also: str):
    """Fill the blocks that every estimator's docstring shares: the bootstrap parameters and
    attributes, a See Also section (before References) and the example on two Gaussians, in
    which the true prior among the unlabeled points is 0.3 and the estimate lies in
    ``example``."""

    def decorate(cls):
        name = cls.__name__
        params = f"""n_bootstrap : int in [0, 1000], default=0
        Bootstrap resamples for ``prior_interval_``; 0 for none, else at least 2. Each
        resample refits the estimator, hence the cap.
    confidence : float in (0, 1), default=0.95
        Level of the percentile interval.
    random_state : int, RandomState instance or None, default=None
        Draws {draws} and the bootstrap resamples."""
        attributes = """prior_interval_ : tuple (lo, hi) or None
        Bootstrap percentile interval at level ``confidence`` (None when ``n_bootstrap=0``).
    bootstrap_priors_ : ndarray of shape (n_bootstrap,) or None
        The estimates on the bootstrap resamples.
    n_labeled_, n_unlabeled_, n_features_in_ : int
        The labeled positives, unlabeled points and features seen by ``fit``."""
        others = "\n".join(f"    {_SEE_ALSO[other]}" for other in see_also.split())
        see = f"""See Also
    --------
    prior_from_label_frequency : the prior implied by a label frequency ``c``.
{others}
    unlabeled.PUSVC : ``prior="auto"`` estimates the prior with these estimators.

    References"""
        lo, hi = example
        examples = f"""    Examples
    --------
    >>> import numpy as np
    >>> from unlabeled.pu.priors import {name}
    >>> rng = np.random.default_rng(0)
    >>> pos, neg = rng.normal(2, 1, (260, 2)), rng.normal(-2, 1, (140, 2))
    >>> X = np.r_[pos, neg]
    >>> s = np.r_[np.ones(200), np.zeros(200)]        # 60 of the 200 unlabeled are positive
    >>> {lo} < {name}(random_state=0).fit(X, s).prior_ < {hi}
    True
    """
        if cls.__doc__ is None:  # python -OO strips docstrings
            return cls
        doc = cls.__doc__.replace("%(bootstrap_params)s", params)
        doc = doc.replace("%(bootstrap_attributes)s", attributes)
        doc = doc.replace("\n    References\n", f"\n    {see}\n", 1)
        cls.__doc__ = doc.rstrip() + "\n\n" + examples
        return cls

    return decorate


def default_scorer():
    # balanced: with 1% of the positives labeled, an unweighted fit of labeled against
    # unlabeled points predicts "unlabeled" everywhere and ranks poorly
    return LogisticRegression(class_weight="balanced", max_iter=1000)


def fold_fits(X, s, estimator, default, cv, seed):
    """Cross-fitting of labeled (1) against unlabeled (0) points: for each of ``cv`` folds
    stratified on ``s``, (a clone of ``estimator``, or ``default()``, fitted on the other
    folds; the fold's indices). A ``random_state`` left at None is set to ``seed``."""
    folds = StratifiedKFold(cv, shuffle=True, random_state=seed)
    for train, test in folds.split(np.zeros(s.size), s):
        est = default() if estimator is None else clone(estimator)
        if est.get_params().get("random_state", 0) is None:
            est.set_params(random_state=seed)
        yield est.fit(X[train], s[train]), test
