r"""Class-prior estimation from positive and unlabeled data.

Every estimator here answers one question: given ``p`` labeled positives ``P`` and ``n``
unlabeled points ``U`` (labels ``s``: 1 = labeled positive, 0 or -1 = unlabeled, as for
:class:`~unlabeled.PUSVC`), what proportion ``pi`` of the unlabeled points is positive? That
``pi`` is the ``prior`` of :class:`~unlabeled.PUSVC`.

Two families of methods, two views of the same data:

* **Mixture proportion estimation** (case-control view): ``U`` is a sample of the mixture
  ``F = pi H + (1 - pi) G`` and ``P`` a sample of the component ``H`` (the positives).
  :class:`KM1`, :class:`KM2` (Ramaswamy, Scott and Tewari, ICML 2016) and :class:`PenalizedL1`
  (du Plessis, Niu and Sugiyama, ACML 2015) estimate ``pi`` directly.
* **Label frequency** (single-training-set view, "selected completely at random"): every
  positive of the data set was labeled with the same probability ``c = P(s=1 | y=1)``.
  :class:`ElkanNoto` (KDD 2008) and :class:`TIcE` (Bekker and Davis, AAAI 2018) estimate ``c``;
  then, since the ``p`` labeled positives are a fraction ``c`` of all ``p / c`` positives, the
  unlabeled points hold ``p / c - p`` positives and

  .. math::  \pi = \frac{p/c - p}{n} = \frac{p (1 - c)}{c\, n}.

* **Combinations** of an estimate that errs high (best-bin estimation, :class:`BestBin`, Garg
  et al., NeurIPS 2021) and one that errs low with few labels (:class:`TIcE`):
  :class:`Blend`, the mean of the two averaged over repeated splits (``PUSVC``'s
  ``prior="auto"``), and :class:`Bracket`.

All estimators share ``fit(X, s)``, the fitted ``prior_``, and a bootstrap interval: with
``n_bootstrap > 0`` the estimate is repeated on ``n_bootstrap`` resamples that draw ``P`` and
``U`` separately with replacement (keeping ``p`` and ``n``), and ``prior_interval_`` holds the
percentile interval at level ``confidence``. It quantifies the sampling spread of the estimator,
not its bias: a biased estimator can have a narrow interval that misses the truth, and for a
skewed bootstrap distribution the interval need not contain ``prior_`` (:class:`TIcE`'s
docstring gives its coverage on generated data).

Example
-------
>>> import numpy as np
>>> from unlabeled.pu.priors import KM2
>>> rng = np.random.default_rng(0)
>>> Xp = rng.normal(2, 1, (200, 2))                                   # labeled positives
>>> Xu = np.r_[rng.normal(2, 1, (120, 2)), rng.normal(-2, 1, (280, 2))]  # 30% positives
>>> X, s = np.r_[Xp, Xu], np.r_[np.ones(200), np.zeros(400)]
>>> est = KM2(random_state=0).fit(X, s)
>>> round(est.prior_, 1)
0.3
"""

from __future__ import annotations

import heapq
import warnings
from collections.abc import Iterable
from functools import partial

import numpy as np
import scipy.sparse as sp
from scipy.linalg import lapack
from scipy.optimize import nnls
from sklearn.base import BaseEstimator, clone
from sklearn.linear_model import LogisticRegression
from sklearn.metrics.pairwise import euclidean_distances
from sklearn.model_selection import StratifiedKFold
from sklearn.utils import check_random_state
from sklearn.utils.validation import validate_data

from .._budget import check_dense_budget
from .._engine import Data, KernelRows, KernelSpec, SolverOptions, solve_kernel_qp
from .._validation import (
    RANDOM_STATE,
    Instance,
    Integer,
    Real,
    canonical_sparse,
    check_pu_labels,
)
from ..base import (
    ANY_FINITE,
    ArrayLike,
    Fitted,
    InvalidParameterError,
    MatrixLike,
    ValidatedEstimator,
    set_init_params,
)
from ..exceptions import QPSolverError
from ..registry import Case, exported, register

__all__ = [*exported(__name__), "prior_from_label_frequency"]


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
class _PriorEstimator(ValidatedEstimator):
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

    def fit(self, X: MatrixLike, s: ArrayLike) -> _PriorEstimator:
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
#: entries :func:`_check_positive_grid` checks
_GRID_CONSTRAINT = [None, Instance((Iterable,), "a non-empty 1-d sequence of numbers")]


def _check_positive_grid(values, name, *, high=None):
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


def _subsample(X, cap, rng):
    if cap is None or X.shape[0] <= cap:
        return X
    return X[np.sort(rng.choice(X.shape[0], cap, replace=False))]


def _stacked(Xp, Xu):
    """The labeled positives and unlabeled points as one X, with labels s (1 and 0)."""
    X = sp.vstack([Xp, Xu], format="csr") if sp.issparse(Xp) else np.vstack([Xp, Xu])
    return X, np.r_[np.ones(Xp.shape[0], dtype=int), np.zeros(Xu.shape[0], dtype=int)]


def _check_classifier(
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


def _sq_dists(A, B=None):
    D = euclidean_distances(A, A if B is None else B, squared=True)
    return np.maximum(D, 0.0, out=D)


#: the largest magnitudes whose squared distances stay normal floats: outside
#: [2**-300, 2**300], the kernel estimators compute in units of a power of two
_UNIT_RANGE = (2.0**-300, 2.0**300)


def _unit_exponent(*arrays) -> int:
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


def _in_units(X, k: int):
    """``X / 2**k``, exactly (a copy; ``X`` itself when ``k`` is 0)."""
    if k == 0:
        return X
    if sp.issparse(X):
        X = X.copy()
        X.data = np.ldexp(X.data, -k)
        return X
    return np.ldexp(X, -k)


def _at_zero_width(K, D, w) -> None:
    """``K = exp(-D / (2 w^2))`` where ``2 w^2`` underflows to 0 (a width of 1e-3 given for
    points of 1e300, 1e-303 in their units): the limit, 1 at distance 0 (not 0/0, NaN) and
    0 elsewhere (as computed). Nothing to do for any other width."""
    if not 2.0 * w * w > 0.0:
        K[D == 0.0] = 1.0


def _width_in_data_units(width: float, k: int, name: str) -> float:
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


def _shared_docs(draws: str, *, example: tuple[float, float], see_also: str):
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


# ------------------------------------------------------------------------- KM1 and KM2
_KM_WIDTH_FACTORS = np.logspace(-1, 1, 5)  # times the median distance, as in the paper's code
_KM_LAMBDA_MAX = 8.0  # lambda = 1 / (1 - kappa) searched in [1, 8]: kappa in [0, 7/8]
_KM_EPS = 0.04  # bisection resolution in lambda and the step of the slope
#: the most points (both subsamples) in the QPs: each of the ~17 QPs is dense in them, and
#: its active-set fallback's work grows as their cube (1,600 points, the default's, take
#: seconds); the paper's samples are of a few hundred to 2,000 points each
_KM_MAX_POINTS = 4_000


#: the pairwise solver's stopping tolerance on the KKT violation of a simplex QP (the
#: gradient K (v - u) is in kernel units): the distances then agree with the exact active-set
#: solution to about 1e-10, and the estimates of benchmarks/results/bench_km.md with the
#: active-set method's alone to the bit
_KM_TOL = 1e-8
#: the pairwise solver's steps per point before a QP goes to the active-set method: a QP whose
#: target lies close to the hull of an ill-conditioned kernel converges slowly by pairs
_KM_SMO_STEPS = 50


def _smo_simplex(rows, K, u, start, max_iter):
    """argmin over the probability simplex of (u - v)' K (u - v) from the feasible ``start``,
    or None when not converged in ``max_iter`` steps.

    The dual of an SVM without labels: min 1/2 v'Kv - (Ku)'v over 0 <= v <= 1 with 1'v = 1,
    by the engine's pairwise (SMO) solver on the precomputed ``K`` (its kernel ``rows``) to
    the KKT tolerance ``_KM_TOL``, warm-started from the solution at a nearby lambda."""
    res = solve_kernel_qp(
        rows, np.arange(u.size, dtype=np.int64), -(K @ u), np.ones(u.size), start,
        options=SolverOptions(tol=_KM_TOL, max_iter=max_iter),
    )  # fmt: skip
    return np.clip(np.asarray(res.alpha), 0.0, 1.0) if res.converged else None


def _low_rank_factor(K):
    """R with R R' = K up to 1e-11 per entry (pivoted Cholesky; R has rank(K) columns)."""
    c, piv, rank, _ = lapack.dpstrf(K, lower=1, tol=1e-11)
    R = np.empty((K.shape[0], max(rank, 1)))
    R[piv - 1] = np.tril(c)[:, : max(rank, 1)]
    return R


def _simplex_qp(R, u, max_iter, who="KM"):
    """argmin over the probability simplex of (u - v)' K (u - v), with K = R R'.

    Written as the non-negative least-squares problem min ||R'(v - u)||^2 + M^2 (1'v - 1)^2
    over v >= 0, solved exactly by the active-set method of Lawson and Hanson
    (:func:`scipy.optimize.nnls`); the weight M = 1000 (against kernel values <= 1) holds the
    sum to about 1e-6, and v is then rescaled to sum to one."""
    big = 1e3
    A = np.vstack([R.T, np.full((1, R.shape[0]), big)])
    b = np.r_[R.T @ u, big]
    try:
        v = nnls(A, b, maxiter=max_iter)[0]
    except RuntimeError as exc:  # scipy's bare "Maximum number of iterations reached."
        raise QPSolverError(
            f"{who}: the projection onto the simplex (scipy.optimize.nnls, an active-set "
            f"method) did not finish in max_iter={max_iter} iterations ({exc}); increase "
            "max_iter, or pass None for 10 (n_positive + n_unlabeled)"
        ) from None
    total = v.sum()
    return v / total if total > 0 else np.full(v.size, 1.0 / v.size)


class _KernelMean(_PriorEstimator):
    r"""The shared machinery of KM1 and KM2 (Ramaswamy, Scott and Tewari, ICML 2016).

    With mixture ``F`` (the unlabeled points) and component ``H`` (the positives), for
    ``lambda >= 1`` let ``d(lambda)`` be the RKHS distance from ``lambda phi(F) +
    (1 - lambda) phi(H)`` to the convex hull of the embedded sample points. It is (close to)
    zero while ``lambda phi(F) + (1 - lambda) phi(H)`` is the embedding of a distribution,
    i.e. up to ``lambda* = 1 / (1 - kappa*)``, and grows linearly beyond. ``d`` is convex;
    each value is a QP over simplex weights. ``lambda*`` is found by bisection on the slope
    of ``d`` against a threshold, and ``kappa* = (lambda* - 1) / lambda*``.
    """

    _parameter_constraints: dict = {
        **_PriorEstimator._parameter_constraints,
        "max_samples": [None, Integer(2)],
        "kernel_width": [None, Real(0.0)],
        "max_iter": [None, Integer(1)],
    }

    _fitted_attributes: dict = {
        # in the points' units (a multiple of their median distance): any finite value
        "kernel_width_": Fitted("float", above=0.0, high=ANY_FINITE),
        "rkhs_distance_": Fitted("float", low=0.0),
        "threshold_": Fitted("float", none=True),
        "lambda_": Fitted("float"),
    }

    def __init__(
        self,
        *,
        max_samples: int | None = 800,
        kernel_width: float | None = None,
        max_iter: int | None = None,
        n_bootstrap: int = 0,
        confidence: float = 0.95,
        random_state: int | np.random.RandomState | None = None,
    ) -> None:
        set_init_params(self, locals())

    def _threshold(self, begin_slope, dist, n_mix, n_comp):  # pragma: no cover
        """The slope threshold of the bisection; ``begin_slope()`` computes d'(1)."""
        raise NotImplementedError

    def _check_memory(self, n_labeled, n_unlabeled, n_features, params):
        """The distances and one kernel matrix at a time (two m x m arrays, m the subsampled
        points), the pairwise solver's cache of kernel rows and, for the QPs it leaves to the
        active-set method, the kernel's factor and the least-squares matrix (two more); the
        bootstrap resamples keep m."""
        super()._check_memory(n_labeled, n_unlabeled, n_features, params)
        cap = params["max_samples"]
        m = n_unlabeled + n_labeled if cap is None else min(cap, n_unlabeled) + min(cap, n_labeled)
        if m > _KM_MAX_POINTS:
            raise ValueError(
                f"{type(self).__name__} with max_samples={cap} solves its QPs over {m:,} points "
                f"({min(n_unlabeled, cap or n_unlabeled):,} unlabeled and "
                f"{min(n_labeled, cap or n_labeled):,} labeled), over the {_KM_MAX_POINTS:,} "
                "that bound its work; lower max_samples (default 800), which subsamples each "
                "sample to that size"
            )
        check_dense_budget(
            32.0 * m * m + _km_cache_bytes(m),
            f"{type(self).__name__} with max_samples={cap} builds {m:,} x {m:,} kernel matrices",
            "lower max_samples (default 800), which subsamples each sample to that size",
        )

    def _estimate(self, Xp, Xu, rng, params):
        F = _subsample(Xu, params["max_samples"], rng)
        H = _subsample(Xp, params["max_samples"], rng)
        N, M = F.shape[0], H.shape[0]
        X = sp.vstack([F, H], format="csr") if sp.issparse(F) else np.vstack([F, H])
        K, width, dist = _km_kernel(X, N, M, params["kernel_width"], type(self).__name__)
        info = {"kernel_width_": float(width), "rkhs_distance_": float(dist)}
        if not dist > 1e-12:  # (no bisection: lambda = 1, the prior 0, and no threshold)
            info.update(threshold_=None, lambda_=1.0)
            return 0.0, info
        d = _km_distance(K, N, M, params["max_iter"], type(self).__name__)
        # the initial slope, d(1) = 0: asked for by KM2, and by KM1 only when its own
        # threshold is too close to the final slope
        thr = self._threshold(lambda: (d(1.05) - d(1.0)) / 0.05, dist, N, M)
        left, right = 1.0, _KM_LAMBDA_MAX
        while right - left > _KM_EPS:
            mid = (left + right) / 2.0
            slope = (d(mid + _KM_EPS / 2) - d(mid)) * 2.0 / _KM_EPS
            if slope > thr:
                right = mid
            else:
                left = mid
        lam = (left + right) / 2.0
        info.update(threshold_=float(thr), lambda_=float(lam))
        return (lam - 1.0) / lam, info


def _km_cache_bytes(m):
    """The solver's cache of kernel rows: 64 rows (a row of the precomputed kernel is a copy
    of one of K's, so a larger cache would only duplicate K)."""
    return 8.0 * m * min(m, 64)


def _km_kernel(X, N, M, kernel_width, who):
    """(K, w, ||phi(F) - phi(H)||) for the Gaussian kernel of width ``kernel_width``, or, for
    None, the paper's code's choice: the width among 0.1..10 times the median distance that
    maximises the RKHS distance between the two samples' embeddings. Two m x m arrays at a
    time: the distances and one kernel matrix."""
    k = _unit_exponent(X)  # (in units of 2**k: the same kernel, finite distances)
    D = _sq_dists(_in_units(X, k))
    diff = np.r_[np.full(N, 1.0 / N), np.full(M, -1.0 / M)]
    K = np.empty_like(D)

    def gram(w):  # exp(-D / (2 w^2)) into K, the same bits as that expression
        with np.errstate(divide="ignore", invalid="ignore"):
            np.exp(np.divide(D, -(2.0 * w * w), out=K), out=K)
        _at_zero_width(K, D, w)
        return np.sqrt(max(diff @ K @ diff, 0.0))

    if kernel_width is not None:
        return K, kernel_width, gram(float(np.ldexp(kernel_width, -k)))
    med = np.sqrt(np.median(D))
    if not med > 0:
        med = np.sqrt(np.median(D[D > 0])) if (D > 0).any() else 1.0
    best = None
    for w in _KM_WIDTH_FACTORS * med:
        dist = gram(w)
        if best is None or dist > best[1]:
            best = (w, dist)
    width, dist = best
    gram(width)
    return K, _width_in_data_units(width, k, who), dist


def _km_distance(K, N, M, max_iter, who):
    """d(lambda), the RKHS distance from lambda phi(F) + (1 - lambda) phi(H) to the convex hull
    of the sample points' embeddings. At lambda = 1 the target, the uniform weights on F, is
    on the simplex: the distance is 0. Beyond, each QP goes first to the pairwise solver,
    started from the solution at the nearest lambda solved so far, for ``_KM_SMO_STEPS``
    steps per point; one that does not converge, and every later one at a lambda no larger
    (closer to the hull, harder), to the exact active-set method (:func:`_simplex_qp`)."""
    m = N + M
    rows = KernelRows(
        Data.dense(K), KernelSpec(3), np.arange(m, dtype=np.int32), cache_bytes=_km_cache_bytes(m)
    )
    steps = _KM_SMO_STEPS * m if max_iter is None else min(_KM_SMO_STEPS * m, max_iter)
    max_iter = 10 * m if max_iter is None else max_iter
    solved = {1.0: np.r_[np.full(N, 1.0 / N), np.zeros(M)]}
    state = {"hard": 1.0, "R": None}

    def d(lam):
        # u = lam * (uniform on F) + (1 - lam) * (uniform on H)
        u = np.r_[np.full(N, lam / N), np.full(M, (1.0 - lam) / M)]
        if lam <= 1.0:
            return 0.0
        v = None
        if lam > state["hard"]:
            start = solved[min(solved, key=lambda done: abs(done - lam))]
            v = _smo_simplex(rows, K, u, start, steps)
        if v is None:
            state["hard"] = max(state["hard"], lam)
            if state["R"] is None:
                state["R"] = _low_rank_factor(K)
            v = _simplex_qp(state["R"], u, max_iter, who)
        solved[lam] = v
        r = u - v
        return np.sqrt(max(r @ K @ r, 0.0))

    return d


_KM_DOC_PARAMS = """
    Parameters
    ----------
    max_samples : int >= 2 or None, default=800
        At most this many labeled positives and this many unlabeled points (drawn at random
        without replacement) enter the QPs, whose size is their sum and whose kernel matrix is
        built densely; the paper uses samples of a few hundred to 2,000 points. None: all.
        The QPs take at most 4,000 points in all: more is refused before any work.
    kernel_width : float > 0 or None, default=None
        Width ``w`` of the Gaussian kernel ``exp(-||x - y||^2 / (2 w^2))``. None: the paper's
        choice, among 0.1, 0.32, 1, 3.2 and 10 times the median pairwise distance the one
        that maximises the RKHS distance between the embeddings of ``U`` and ``P``.
    max_iter : int >= 1 or None, default=None
        Cap on the iterations of one QP (see :class:`KM2`): the pairwise solver's steps (at
        most 50 per point before the active-set method takes over) and the active-set
        method's iterations, whose cap it is (None: 10 times the QP's size).
    %(bootstrap_params)s

    Attributes
    ----------
    prior_ : float
        Estimated proportion of positives among the unlabeled points, in ``[0, 7/8]``
        (``lambda`` is searched in ``[1, 8]`` as in the paper's code).
    kernel_width_ : float
    rkhs_distance_ : float
        RKHS distance between the kernel mean embeddings of ``U`` and ``P``.
    threshold_ : float or None
        The slope threshold used in the bisection; None when the two samples' embeddings
        coincide (``rkhs_distance_`` of 1e-12 or less: no bisection, ``prior_`` is 0).
    lambda_ : float
        The estimate of ``lambda* = 1 / (1 - prior)`` (1 when the embeddings coincide).
    %(bootstrap_attributes)s

    References
    ----------
    H. G. Ramaswamy, C. Scott, A. Tewari, "Mixture Proportion Estimation via Kernel Embedding
    of Distributions", ICML 2016.
"""


@_shared_docs("the subsamples", example=(0.2, 0.4), see_also="KM2 PenalizedL1")
@register(family="pu", summary="class prior: kernel mean embedding (KM1)")
class KM1(_KernelMean):
    __doc__ = (
        r"""Class prior by kernel mean embedding, KM1 threshold (Ramaswamy et al., ICML 2016).

    Estimates ``kappa*``, the largest proportion of the positive distribution ``H`` in the
    unlabeled mixture ``F``: under irreducibility (no part of the negatives looks exactly like
    the positives) it is the proportion of positives among the unlabeled points. See
    :class:`KM2` for the construction; KM1 stops the bisection where the slope of
    ``d(lambda)`` exceeds ``1 / sqrt(min(|U|, |P|))`` (the paper's finite-sample threshold,
    as a fraction of the RKHS distance ``||phi(F) - phi(H)||`` the ratio
    ``nu = 1 / (sqrt(min(|U|, |P|)) ||phi(F) - phi(H)||)``); when that ratio exceeds 0.9 the
    threshold is too close to the largest possible slope and KM2's threshold is used, as in
    the authors' code.
"""
        + _KM_DOC_PARAMS
        + """
    """
    )

    def _threshold(self, begin_slope, dist, n_mix, n_comp):
        thr = 1.0 / np.sqrt(min(n_mix, n_comp))
        if thr / dist > 0.9:
            thr = 0.8 * begin_slope() + 0.2 * dist
        return thr


@_shared_docs("the subsamples", example=(0.2, 0.4), see_also="KM1 PenalizedL1")
@register(
    family="pu",
    summary="class prior: kernel mean embedding (KM2)",
    cases=(Case({"n_bootstrap": 3, "random_state": 0}),),
)
class KM2(_KernelMean):
    __doc__ = (
        r"""Class prior by kernel mean embedding, KM2 threshold (Ramaswamy et al., ICML 2016).

    The unlabeled points are a sample of the mixture ``F = kappa* H + (1 - kappa*) G`` of the
    positives ``H`` and the negatives ``G``. With the kernel mean embedding ``phi`` of a
    Gaussian kernel and, for ``lambda >= 1``,

    .. math::

        d(\lambda) = \min_{w \in \Delta} \bigl\| \lambda \hat\phi(F) + (1 - \lambda)
        \hat\phi(H) - \textstyle\sum_i w_i \phi(x_i) \bigr\|

    over the simplex weights ``w`` on all sample points (a QP: first by the engine's pairwise
    solver, warm-started from the solution at the nearest ``lambda`` already solved, to a KKT
    tolerance of 1e-8; a QP it does not finish in 50 steps per point, and any at a smaller
    ``lambda``, exactly as a non-negative least-squares problem on a pivoted-Cholesky factor of
    the kernel matrix; ``d(1) = 0`` needs no QP),
    ``d`` is about zero up to ``lambda* = 1 / (1 - kappa*)`` (where ``G`` itself is
    reached) and grows with slope near ``||phi(F) - phi(H)||`` beyond. KM2 (the gradient
    threshold of the paper's experiments) bisects ``lambda`` in ``[1, 8]`` to resolution 0.04
    for the point where the slope ``(d(lambda + 0.02) - d(lambda)) / 0.02`` exceeds
    ``nu = 0.8 d'(1) + 0.2 ||phi(F) - phi(H)||``: a fifth of the way from the initial slope
    to the final one. The estimate is ``prior_ = (lambda - 1) / lambda``.
"""
        + _KM_DOC_PARAMS
        + """
    """
    )

    def _threshold(self, begin_slope, dist, n_mix, n_comp):
        return 0.8 * begin_slope() + 0.2 * dist


# ------------------------------------------------------------------------- penalised L1
@_shared_docs("the centres, the folds", example=(0.15, 0.45), see_also="KM2 TIcE")
@register(family="pu", summary="class prior: penalised L1 divergence")
class PenalizedL1(_PriorEstimator):
    r"""Class prior by penalised L1-distance minimisation (du Plessis, Niu, Sugiyama, ACML 2015).

    With ``p_P`` the density of the positives and ``p_U = pi p_P + (1 - pi) p_N`` that of the
    unlabeled points, ``theta p_P <= p_U`` everywhere as long as ``theta <= pi``, where the
    L1 distance ``int |theta p_P - p_U| = 1 - theta`` decreases; beyond ``pi`` the positive
    part ``theta p_P - p_U > 0`` is penalised without bound. Writing the penalised distance
    in its variational form ``sup_{r >= -1} int r (theta p_P - p_U)``, modelling
    ``r(x) = -1 + sum_l alpha_l k(x, c_l)`` with ``alpha >= 0``, Gaussian basis functions
    ``k(x, c) = exp(-||x - c||^2 / (2 sigma^2))`` centred on ``n_basis`` unlabeled points, and
    adding ``(lambda / 2) ||alpha||^2``, the maximiser is in closed form:

    .. math::

        \beta(\theta) = \theta \hat h_P - \hat h_U, \qquad
        \alpha = \max(0, \beta) / \lambda, \qquad
        \mathrm{PL1}(\theta) = \alpha^\top \beta - \theta + 1,

    with ``h_P``, ``h_U`` the basis functions' means over ``P`` and ``U``. The estimate is the
    minimiser of ``PL1`` over the grid ``theta_grid``. For each ``theta``, ``sigma`` and
    ``lambda`` are chosen by ``n_folds``-fold cross-validation: the held-out criterion is
    ``-alpha_train' beta_test`` (the held-out value of the variational objective, negated),
    as in the authors' MATLAB code.

    Parameters
    ----------
    n_basis : int >= 1, default=300
        Gaussian centres, drawn at random from the unlabeled points.
    sigmas : sequence of float > 0 or None, default=None
        Candidate widths; None: ``median distance * logspace(-2, 1, 10)``, the median of the
        distances between the unlabeled points and the centres (authors' code).
    lambdas : sequence of float > 0 or None, default=None
        Candidate regularisation; None: ``logspace(-3, 1, 10)``.
    theta_grid : sequence of float in (0, 1) or None, default=None
        Candidate priors; None: ``0.01, 0.02, ..., 0.99``.
    n_folds : int >= 2, default=5
    %(bootstrap_params)s

    Attributes
    ----------
    prior_ : float
    penalized_l1_ : ndarray of shape (n_grid,)
        ``PL1(theta)`` over ``theta_grid_``.
    theta_grid_ : ndarray
    sigma_, lambda_ : float
        The cross-validated width and regularisation at ``theta = prior_``.
    %(bootstrap_attributes)s

    References
    ----------
    M. C. du Plessis, G. Niu, M. Sugiyama, "Class-prior estimation for learning from positive
    and unlabeled data", ACML 2015 (Machine Learning 106, 2017).

    """

    _parameter_constraints: dict = {
        **_PriorEstimator._parameter_constraints,
        "n_basis": [Integer(1)],
        "sigmas": _GRID_CONSTRAINT,
        "lambdas": _GRID_CONSTRAINT,
        "theta_grid": _GRID_CONSTRAINT,
        "n_folds": [Integer(2)],
    }

    _fitted_attributes: dict = {
        "penalized_l1_": Fitted("f", ("n_grid",)),
        "theta_grid_": Fitted("f", ("n_grid",)),
        "sigma_": Fitted("float", above=0.0, high=ANY_FINITE),  # (as KM's kernel_width_)
        "lambda_": Fitted("float", low=0.0),
    }

    def __init__(
        self,
        *,
        n_basis: int = 300,
        sigmas: ArrayLike | None = None,
        lambdas: ArrayLike | None = None,
        theta_grid: ArrayLike | None = None,
        n_folds: int = 5,
        n_bootstrap: int = 0,
        confidence: float = 0.95,
        random_state: int | np.random.RandomState | None = None,
    ) -> None:
        set_init_params(self, locals())

    def _check_values(self, params):
        """The grids' entries: finite and > 0 (theta_grid's < 1), as arrays (theta_grid sorted,
        or the default 0.01, ..., 0.99)."""
        grid = _check_positive_grid(params["theta_grid"], "theta_grid", high=1.0)
        return {
            **params,
            "sigmas": _check_positive_grid(params["sigmas"], "sigmas"),
            "lambdas": _check_positive_grid(params["lambdas"], "lambdas"),
            "theta_grid": np.arange(1, 100) / 100 if grid is None else np.sort(grid),
        }

    def _check_sizes(self, n_labeled, n_unlabeled, params):
        folds = params["n_folds"]
        if min(n_labeled, n_unlabeled) < folds:
            raise ValueError(
                f"n_folds={folds} needs at least {folds} labeled positives and {folds} "
                f"unlabeled points, got {n_labeled} and {n_unlabeled}; lower n_folds"
            )

    def _check_memory(self, n_labeled, n_unlabeled, n_features, params):
        """The distances to the centres and their kernel values (n_samples x n_basis, two
        each, and a temporary), the (theta, basis) arrays of a fold and the cross-validation
        scores (sigmas x lambdas x theta_grid)."""
        super()._check_memory(n_labeled, n_unlabeled, n_features, params)
        n, b = n_labeled + n_unlabeled, min(params["n_basis"], n_unlabeled)
        check_dense_budget(
            24.0 * n * b,
            f"PenalizedL1 with n_basis={params['n_basis']:,} holds {n:,} x {b:,} kernel values",
            "lower n_basis (default 300)",
        )
        n_s, n_l, n_t = (
            10 if params[k] is None else params[k].size for k in ("sigmas", "lambdas", "theta_grid")
        )
        check_dense_budget(
            8.0 * n_s * n_l * n_t + 32.0 * n_t * b,
            f"PenalizedL1 scores {n_s:,} sigmas x {n_l:,} lambdas x {n_t:,} theta_grid values "
            f"(and {n_t:,} x {b:,} arrays per fold)",
            "pass shorter sigmas, lambdas or theta_grid",
        )

    def _estimate(self, Xp, Xu, rng, params):
        p, n = Xp.shape[0], Xu.shape[0]
        folds = params["n_folds"]
        b = min(params["n_basis"], n)
        centres = Xu[np.sort(rng.choice(n, b, replace=False))]
        unit = _unit_exponent(Xp, Xu)  # (in units of 2**unit: the same kernel, finite)
        Xp, Xu, centres = _in_units(Xp, unit), _in_units(Xu, unit), _in_units(centres, unit)
        dp, du = _sq_dists(Xp, centres), _sq_dists(Xu, centres)
        sigmas = params["sigmas"]
        if sigmas is None:
            med = np.sqrt(np.median(du))
            sigmas = (med if med > 0 else 1.0) * np.logspace(-2, 1, 10)
        else:  # (given in the points' units)
            sigmas = np.ldexp(sigmas, -unit)
        lambdas = params["lambdas"]
        if lambdas is None:
            lambdas = np.logspace(-3, 1, 10)
        grid = params["theta_grid"]
        fold_p = rng.permutation(np.arange(p) * folds // p)
        fold_u = rng.permutation(np.arange(n) * folds // n)
        # score[s, l, t]: cross-validated -alpha_train' beta_test for sigma s, lambda l, theta t
        score = np.zeros((sigmas.size, lambdas.size, grid.size))
        for si, sigma in enumerate(sigmas):
            with np.errstate(divide="ignore", invalid="ignore"):
                Kp, Ku = np.exp(-dp / (2 * sigma**2)), np.exp(-du / (2 * sigma**2))
            _at_zero_width(Kp, dp, sigma), _at_zero_width(Ku, du, sigma)
            for k in range(folds):
                hp_tr, hp_te = Kp[fold_p != k].mean(0), Kp[fold_p == k].mean(0)
                hu_tr, hu_te = Ku[fold_u != k].mean(0), Ku[fold_u == k].mean(0)
                beta_tr = grid[:, None] * hp_tr - hu_tr  # (theta, basis)
                beta_te = grid[:, None] * hp_te - hu_te
                val = (np.maximum(beta_tr, 0) * beta_te).sum(1)  # lambda * alpha_tr' beta_te
                score[si] -= val[None, :] / lambdas[:, None] / folds
        pl1 = np.empty(grid.size)
        chosen = []
        flat = score.reshape(-1, grid.size)
        for t, theta in enumerate(grid):
            si, li = np.unravel_index(int(np.argmin(flat[:, t])), score.shape[:2])
            sigma, lam = sigmas[si], lambdas[li]
            with np.errstate(divide="ignore", invalid="ignore"):
                Kp, Ku = np.exp(-dp / (2 * sigma**2)), np.exp(-du / (2 * sigma**2))
            _at_zero_width(Kp, dp, sigma), _at_zero_width(Ku, du, sigma)
            hp, hu = Kp.mean(0), Ku.mean(0)
            beta = theta * hp - hu
            pl1[t] = np.maximum(beta, 0) @ beta / lam - theta + 1
            chosen.append((sigma, lam))
        best = int(np.argmin(pl1))
        info = {
            "penalized_l1_": pl1,
            "theta_grid_": grid.copy(),
            "sigma_": _width_in_data_units(chosen[best][0], unit, "PenalizedL1"),
            "lambda_": float(chosen[best][1]),
        }
        return float(grid[best]), info


# -------------------------------------------------------------------- label-frequency methods
def _warn_range(name, prior, c, p, n):
    if not 0.0 <= prior <= 1.0:
        warnings.warn(
            f"{name}: the estimated label frequency c = {c:.4g} implies a proportion "
            f"{prior:.4g} of positives among the unlabeled points, outside [0, 1] (it is in "
            f"range only for {p / (p + n):.4g} <= c <= 1). The classifier's probabilities are "
            "probably miscalibrated; prior_ is returned unclipped so that you can see it.",
            RuntimeWarning,
            stacklevel=5,  # _estimate, fit, its transactional wrapper, the caller
        )


@_shared_docs("the folds", example=(0.2, 0.4), see_also="TIcE KM2")
@register(family="pu", summary="class prior: Elkan and Noto's estimator")
class ElkanNoto(_PriorEstimator):
    r"""Class prior from the label frequency of Elkan and Noto (KDD 2008), estimator e1.

    Under "selected completely at random" a classifier ``g(x) ~ P(s=1 | x)`` trained to tell
    labeled from unlabeled points satisfies ``g(x) = c P(y=1 | x)`` with
    ``c = P(s=1 | y=1)``, so ``g = c`` on the positives: ``c`` is estimated by the mean of
    ``g`` over labeled positives that ``g`` was not trained on (the paper's e1). Here every
    labeled positive is held out once, by ``cv``-fold cross-fitting (the paper holds out one
    validation set; cross-fitting uses every positive and so has less variance).

    From ``c`` to the prior among the unlabeled points: the ``p`` labeled positives are a
    fraction ``c`` of about ``p / c`` positives in all, so ``p / c - p`` of the ``n``
    unlabeled points are positive,

    .. math::  \pi = \frac{p/c - p}{n} = \frac{p (1 - c)}{c\, n}.

    It lies in ``[0, 1]`` only when ``p / (p + n) <= c <= 1``. A ``c`` outside that range
    means ``g`` is miscalibrated; the estimate is then returned as is, with a
    ``RuntimeWarning`` (it is not clipped, so the problem stays visible).

    Parameters
    ----------
    estimator : classifier with ``predict_proba`` or None, default=None
        Cloned for each fold. None: ``LogisticRegression(max_iter=1000)``; the paper used an
        SVM with Platt scaling, i.e. ``CalibratedClassifierCV(SVC())``. Its
        ``random_state``, if it has one left at None, is set from ``random_state``.
    cv : int >= 2, default=5
        Folds of the cross-fitting (stratified on ``s``).
    %(bootstrap_params)s

    Attributes
    ----------
    prior_ : float
    c_ : float
        Estimated label frequency ``P(s=1 | y=1)``.
    %(bootstrap_attributes)s

    References
    ----------
    C. Elkan, K. Noto, "Learning classifiers from only positive and unlabeled data",
    KDD 2008.

    """

    _min_unlabeled = 2  # (its folds' classifiers)

    _parameter_constraints: dict = {
        **_PriorEstimator._parameter_constraints,
        # "estimator" is checked by its methods (fit and predict_proba), in _check_values
        "cv": [Integer(2)],
    }

    # a miscalibrated g gives an estimate outside [0, 1], kept as it is (see above)
    _fitted_attributes: dict = {
        "c_": Fitted("float", low=0.0),
        "prior_": Fitted("float"),
        "bootstrap_priors_": Fitted("f", ("n_bootstrap",), none=True),
    }

    def __init__(
        self, estimator: BaseEstimator | None = None, *, cv: int = 5, n_bootstrap: int = 0,
        confidence: float = 0.95, random_state: int | np.random.RandomState | None = None,
    ) -> None:  # fmt: skip
        set_init_params(self, locals())

    def _check_values(self, params):
        """``estimator``: None or a classifier with ``fit`` and ``predict_proba``."""
        example = "LogisticRegression() or CalibratedClassifierCV(SVC())"
        _check_classifier(self.estimator, ("predict_proba",), example)
        return params

    def _check_sizes(self, n_labeled, n_unlabeled, params):
        if n_labeled < params["cv"]:
            raise ValueError(
                f"cv={params['cv']} folds need at least {params['cv']} labeled positives, "
                f"got {n_labeled}; lower cv"
            )

    def _estimate(self, Xp, Xu, rng, params):
        p, n = Xp.shape[0], Xu.shape[0]
        X, s = _stacked(Xp, Xu)
        seed = int(rng.randint(np.iinfo(np.int32).max))
        g_pos = np.empty(p)
        default = partial(LogisticRegression, max_iter=1000)
        for est, test in _fold_fits(X, s, self.estimator, default, params["cv"], seed):
            pos_test = test[test < p]
            g_pos[pos_test] = est.predict_proba(X[pos_test])[:, list(est.classes_).index(1)]
        c = float(g_pos.mean())
        prior = prior_from_label_frequency(c, p, n)
        _warn_range("ElkanNoto", prior, c, p, n)
        return prior, {"c_": c}


#: TIcE's cap on n_iter: the iterations' work, after the trees, is n_iter x the subsets
_TICE_MAX_ITER = 10_000


@_shared_docs("the halvings", example=(0.1, 0.5), see_also="ElkanNoto KM2")
@register(family="pu", summary="class prior: tree induction (TIcE)")
class TIcE(_PriorEstimator):
    r"""Class prior from the label frequency by tree induction (Bekker and Davis, AAAI 2018).

    Under "selected completely at random" with label frequency ``c = P(s=1 | y=1)``, any
    subset ``S`` of the data has ``c = L_S / P_S >= L_S / |S|`` (``L_S`` labeled, ``P_S``
    positive points in ``S``), with equality on a purely positive subset. TIcE searches for
    such subsets by growing a decision tree on one half of the data (best-first, up to
    ``max_splits`` splits; the split maximising the biased positive proportion
    ``max_child L / (|S| + k)`` with ``k = 5``, nodes with fewer than ``min_size`` points are
    not split) and evaluates each node on the other half with the one-sided Chebyshev
    (Cantelli) lower bound

    .. math::  \hat c_S = \frac{L_S}{|S|} - \sqrt{\frac{c (1 - c) (1 - \delta)}{\delta |S|}},

    taking the largest. The ``c`` inside the root is the previous iteration's estimate
    (0.5 at first; ``n_iter`` iterations), the result is averaged over ``n_folds`` random
    halvings, and ``delta = max(0.025, 1 / (1 + 0.004 N))`` for ``N`` points, the authors'
    default. Continuous features are split at their ``n_bins - 1`` inner quantiles (the paper
    works with binarised features). As ``c >= p / N`` always (every labeled point is
    positive), the estimate is floored there, which keeps ``prior_ <= 1``. Then, as for
    :class:`ElkanNoto`, ``prior_ = p (1 - c) / (c n)``.

    ``X`` may be sparse; it is densified (``n_samples x n_features``) for the binning.

    ``prior_interval_`` is the bootstrap percentile interval of a biased estimator, and need
    not contain ``prior_``: the estimate is a maximum over subsets, and the duplicates of a
    resample make small subsets look purely labeled, which raises ``c`` and lowers the
    resampled priors, so the interval tends to lie below ``prior_`` (australian, 20 % of the
    positives labeled, seed 1: 0.22 to 0.53 around 0.543, truth 0.499). That shift partly
    offsets the estimator's upward bias when the classes overlap, so the interval is left
    where it is: moved onto the estimate (by ``prior_ - median(bootstrap_priors_)``) it would
    cover the truth less often. Coverage measured on generated data (300 points, half of them
    positive; two unit-variance Gaussian classes in 4 dimensions, the negatives' mean at 0
    and the positives' at ``m`` in every coordinate; 30 % of the positives labeled: a true
    prior of 0.41 among the unlabeled points; 100 resamples, ``confidence=0.95``):

    ====  ===========  ==============  ================  =================  =====
    m     data sets    estimate        holds ``prior_``  holds the truth    moved
    ====  ===========  ==============  ================  =================  =====
    1     40           0.55 +- 0.10    24                40                 25
    2     40           0.43 +- 0.07    32                37                 37
    3     20           0.42 +- 0.07    15                18                 19
    ====  ===========  ==============  ================  =================  =====

    ("moved": the data sets whose moved interval holds the truth.) Read the interval as the
    estimator's sampling spread, not as a confidence interval for the true prior.

    Parameters
    ----------
    n_folds : int >= 1, default=5
        Random halvings (tree half / estimation half) averaged over.
    n_iter : int in [1, 10000], default=2
        Iterations of the ``c`` inside the bound. The trees and the counts of their subsets
        do not depend on ``c`` (the splits maximise the biased positive proportion), so they
        are grown once per halving and each iteration is a function of the previous ``c``
        alone: once ``c`` repeats an earlier value the sequence is periodic, and the
        remaining iterations are read off the cycle instead of computed (it repeats after a
        few dozen iterations in practice). The work after the trees is at most ``n_iter x``
        the evaluated subsets, hence the cap.
    max_splits : int >= 1, default=500
        A tree stops earlier when no node can be split: each split separates the points of
        its half, so at most ``N / 2`` splits are made whatever ``max_splits``.
    min_size : int >= 1, default=10
    n_bins : int >= 2, default=8
        Quantile bins per feature. More than the ``N`` points are used as ``N``: the ``N - 1``
        inner quantiles (linear interpolation) already put an edge between any two distinct
        values of a feature (up to rounding), so more bins split no further and would only
        cost memory (``n_features x n_bins`` counts at every split).
    delta : float in (0, 1) or None, default=None
        Confidence parameter of the bound; None: ``max(0.025, 1 / (1 + 0.004 N))``.
    %(bootstrap_params)s

    Attributes
    ----------
    prior_ : float
    c_ : float
        Estimated label frequency.
    %(bootstrap_attributes)s

    References
    ----------
    J. Bekker, J. Davis, "Estimating the class prior in positive and unlabeled data through
    decision tree induction", AAAI 2018.

    """

    _BEPP_K = 5

    _parameter_constraints: dict = {
        **_PriorEstimator._parameter_constraints,
        "n_folds": [Integer(1)],
        "n_iter": [Integer(1, _TICE_MAX_ITER)],
        "max_splits": [Integer(1)],
        "min_size": [Integer(1)],
        "n_bins": [Integer(2)],
        "delta": [None, Real(0.0, 1.0)],
    }

    _fitted_attributes: dict = {"c_": Fitted("float", low=0.0)}

    def __init__(
        self,
        *,
        n_folds: int = 5,
        n_iter: int = 2,
        max_splits: int = 500,
        min_size: int = 10,
        n_bins: int = 8,
        delta: float | None = None,
        n_bootstrap: int = 0,
        confidence: float = 0.95,
        random_state: int | np.random.RandomState | None = None,
    ) -> None:
        set_init_params(self, locals())

    def _check_memory(self, n_labeled, n_unlabeled, n_features, params):
        """The dense X and its bin indices, the counts of a split (``n_features x n_bins``)
        and the subsets' counts kept for the iterations (``n_folds`` trees)."""
        super()._check_memory(n_labeled, n_unlabeled, n_features, params)
        N, d = n_labeled + n_unlabeled, n_features
        check_dense_budget(  # sparse input is densified
            16.0 * N * d,
            f"TIcE bins every feature of every point: {N:,} x {d:,} dense arrays",
            "select features first (e.g. with sklearn.feature_selection), or use ElkanNoto or "
            "KM2, which read sparse X as it is",
        )
        nb = min(params["n_bins"], N)
        check_dense_budget(  # the quantile levels, then about nine d x nb arrays per split
            8.0 * nb + 72.0 * d * nb,
            f"TIcE with n_bins={params['n_bins']:,} counts {d:,} features x {nb:,} bins at "
            "every split",
            "lower n_bins (default 8)",
        )
        nodes = 2 * min(params["max_splits"], N // 2 + 1) + 2
        check_dense_budget(
            48.0 * params["n_folds"] * nodes,
            f"TIcE with n_folds={params['n_folds']:,} keeps the counts of up to {nodes:,} "
            "subsets per halving",
            "lower n_folds (default 5)",
        )

    def _estimate(self, Xp, Xu, rng, params):
        p, n = Xp.shape[0], Xu.shape[0]
        X = np.vstack([_dense(Xp), _dense(Xu)])
        lab = np.r_[np.ones(p, dtype=bool), np.zeros(n, dtype=bool)]
        N = p + n
        nb = min(params["n_bins"], N)  # more bins split no further (see n_bins)
        # bin index of every value: feature j split at its inner quantiles
        B = np.empty(X.shape, dtype=np.int64)
        for j in range(X.shape[1]):
            edges = np.unique(np.quantile(X[:, j], np.arange(1, nb) / nb))
            B[:, j] = np.searchsorted(edges, X[:, j], side="right")
        delta = params["delta"] or max(0.025, 1.0 / (1.0 + 0.004 * N))
        halves = []
        for _ in range(params["n_folds"]):
            perm = rng.permutation(N)
            halves.append((perm[: N // 2], perm[N // 2 :]))
        subsets = [
            _tice_subsets(B, lab, a, b, nb, params["max_splits"], params["min_size"])
            for a, b in halves
        ]
        c = _tice_iterate(subsets, params["n_iter"], delta)
        c = min(max(c, p / N), 1.0)
        # at c = p / N the prior is 1 in exact arithmetic; rounding can give 1 + 2e-16
        prior = min(prior_from_label_frequency(c, p, n), 1.0)
        return prior, {"c_": c}


def _dense(X):
    return X.toarray() if sp.issparse(X) else X


def _tice_subsets(B, lab, tree_idx, est_idx, nb, max_splits, min_size):
    """One TIcE halving: grow the tree on tree_idx (its splits do not depend on c) and return
    the (labeled, total) counts on est_idx of the root and of every child, those with fewer
    than min_size points left out (their bound is 0), and whether any was."""
    k = TIcE._BEPP_K
    d = B.shape[1]
    counts, small = [], False

    def keep(child_e):
        nonlocal small
        if child_e.size < min_size:
            small = True
        else:
            counts.append((lab[child_e].sum(), child_e.size))

    keep(est_idx)
    counter = 0
    heap = [(-lab[tree_idx].sum() / (tree_idx.size + k), counter, tree_idx, est_idx)]
    splits = 0
    offsets = np.arange(d) * nb
    while heap and splits < max_splits:
        _, _, ta, te = heapq.heappop(heap)
        if ta.size < min_size:
            continue
        Bt = B[ta]
        flat = (Bt + offsets).ravel()
        tot = np.bincount(flat, minlength=d * nb).reshape(d, nb)
        labc = np.bincount(flat, weights=np.repeat(lab[ta], d), minlength=d * nb).reshape(d, nb)
        T_left, L_left = np.cumsum(tot, 1)[:, :-1], np.cumsum(labc, 1)[:, :-1]
        T_right, L_right = ta.size - T_left, lab[ta].sum() - L_left
        valid = (T_left > 0) & (T_right > 0)
        if not valid.any():
            continue
        bepp = np.maximum(L_left / (T_left + k), L_right / (T_right + k))
        bepp[~valid] = -np.inf
        j, t = np.unravel_index(int(np.argmax(bepp)), bepp.shape)
        splits += 1
        left_a, left_e = B[ta, j] <= t, B[te, j] <= t
        for child_a, child_e in ((ta[left_a], te[left_e]), (ta[~left_a], te[~left_e])):
            keep(child_e)
            counter += 1
            prio = -lab[child_a].sum() / (child_a.size + k)
            heapq.heappush(heap, (prio, counter, child_a, child_e))
    L, T = np.array(counts, dtype=np.float64).reshape(-1, 2).T
    return L, T, small


def _tice_iterate(subsets, n_iter, delta):
    """``n_iter`` iterations of ``c <- mean over halvings of max over subsets S of
    L_S / T_S - sqrt(c (1 - c) (1 - delta) / (delta T_S))`` (Cantelli's lower bound; 0 for
    the subsets below min_size) from ``c = 0.5``. Each ``c`` is a function of the previous one
    alone, so once a value repeats the rest of the sequence is its cycle: the iterations left
    are read off it, not computed."""
    # one array over all halvings, each halving's subsets then one slot for its floor
    L = np.concatenate([np.r_[h[0], 0.0] for h in subsets])
    T = np.concatenate([np.r_[h[1], 1.0] for h in subsets])
    ends = np.cumsum([h[0].size + 1 for h in subsets]) - 1
    starts = np.r_[0, ends[:-1] + 1]
    floors = np.array([0.0 if h[2] else -np.inf for h in subsets])
    ratio, scale = L / T, delta * T
    seen, history, c = {}, [], 0.5
    for it in range(n_iter):
        if c in seen:  # periodic from seen[c] on: c_{n_iter} is on the cycle
            first = seen[c]
            return history[first + (n_iter - first) % (it - first)]
        seen[c] = it
        history.append(c)
        # c (1 - c) >= 0 on [0, 1]; a bound below 0 (c < 0) is read as no variance term
        vals = ratio - np.sqrt(max(c * (1 - c), 0.0) * (1 - delta) / scale)
        vals[ends] = floors
        c = float(np.mean(np.maximum.reduceat(vals, starts)))
    return c


# ------------------------------------------------------------------------ best-bin estimation
def _default_scorer():
    # balanced: with 1% of the positives labeled, an unweighted fit of labeled against
    # unlabeled points predicts "unlabeled" everywhere and ranks poorly
    return LogisticRegression(class_weight="balanced", max_iter=1000)


def _fold_fits(X, s, estimator, default, cv, seed):
    """Cross-fitting of labeled (1) against unlabeled (0) points: for each of ``cv`` folds
    stratified on ``s``, (a clone of ``estimator``, or ``default()``, fitted on the other
    folds; the fold's indices). A ``random_state`` left at None is set to ``seed``."""
    folds = StratifiedKFold(cv, shuffle=True, random_state=seed)
    for train, test in folds.split(np.zeros(s.size), s):
        est = default() if estimator is None else clone(estimator)
        if est.get_params().get("random_state", 0) is None:
            est.set_params(random_state=seed)
        yield est.fit(X[train], s[train]), test


def _held_out_scores(X, s, estimator, cv, seed):
    """Scores of every point by a classifier of labeled (1) against unlabeled (0) points that
    was not trained on it (``cv``-fold cross-fitting, stratified on ``s``)."""
    scores = np.empty(s.size)
    for est, test in _fold_fits(X, s, estimator, _default_scorer, cv, seed):
        if hasattr(est, "decision_function"):
            scores[test] = np.asarray(est.decision_function(X[test]), dtype=float).ravel()
        else:
            scores[test] = est.predict_proba(X[test])[:, list(est.classes_).index(1)]
    return scores


def _upper_fractions(sorted_scores, cuts):
    """The share of ``sorted_scores`` at or above each cut."""
    return 1.0 - np.searchsorted(sorted_scores, cuts, side="left") / sorted_scores.size


def _best_bin(score_p, score_u, delta, gamma, confidence):
    """Garg et al.'s top bin and the interval of ``BestBin.bin_interval_``: (cut, q_p, q_u,
    (lo, hi))."""
    sp_, su = np.sort(score_p), np.sort(score_u)
    p, n = sp_.size, su.size
    cuts = np.unique(sp_)  # q_p changes only at the positives' scores; q_u is smallest there
    qp, qu = _upper_fractions(sp_, cuts), _upper_fractions(su, cuts)
    eps = np.sqrt(np.log(4.0 / delta) / 2.0) * (1 / np.sqrt(p) + 1 / np.sqrt(n))
    i = int(np.argmin((qu + (1.0 + gamma) * eps) / qp))
    # lo: the ratio at the cut with both shares at the ends of their exact binomial intervals;
    # hi: uniform in the cut (Dvoretzky-Kiefer-Wolfowitz bands on both shares), so it bounds
    # pi from above whether or not any bin is free of negatives
    level = np.sqrt(confidence)
    qp_hi = _binomial_interval(round(qp[i] * p), p, level)[1]
    qu_lo = _binomial_interval(round(qu[i] * n), n, level)[0]
    a = np.sqrt(np.log(2.0 / (1.0 - level)) / 2.0)
    lower_p = qp - a / np.sqrt(p)
    ok = lower_p > 0
    hi = np.min((qu[ok] + a / np.sqrt(n)) / lower_p[ok]) if ok.any() else 1.0
    ratio = qu[i] / qp[i]
    interval = (min(1.0, qu_lo / qp_hi), min(1.0, max(float(hi), ratio)))
    return float(cuts[i]), float(qp[i]), float(qu[i]), interval


def _binomial_interval(k, n, level):
    """Clopper-Pearson interval of a proportion k / n at ``level``."""
    from scipy.stats import beta as beta_dist

    a = (1.0 - level) / 2.0
    lo = 0.0 if k == 0 else float(beta_dist.ppf(a, k, n - k + 1))
    hi = 1.0 if k == n else float(beta_dist.ppf(1.0 - a, k + 1, n - k))
    return lo, hi


@_shared_docs("the cross-fitting folds", example=(0.2, 0.4), see_also="TIcE KM1")
@register(
    family="pu",
    summary="class prior: the best bin of a classifier's scores",
    cases=(Case({"random_state": 0}),),
)
class BestBin(_PriorEstimator):
    r"""Class prior by best-bin estimation (BBE) of Garg, Wu, Smola, Balakrishnan and Lipton
    (NeurIPS 2021) on held-out scores of a classifier of labeled against unlabeled points.

    The unlabeled points are a sample of the mixture ``F = pi H + (1 - pi) G`` of the positive
    and negative distributions, the labeled positives a sample of ``H``. For any score ``z``
    and cut ``c``, with ``q_H(c) = P_H(z >= c)`` and the same for ``F`` and ``G``,

    .. math::  q_F(c) = \pi\, q_H(c) + (1 - \pi)\, q_G(c) \ \ge\ \pi\, q_H(c),

    so every ratio ``q_F(c) / q_H(c)`` bounds ``pi`` from above, with equality on a top bin
    that holds no negative. The score is that of a classifier trained to tell labeled from
    unlabeled points, which ranks the positives first; every point is scored by a model not
    trained on it (``cv``-fold cross-fitting, stratified on the labels, so that all points
    count, where the paper holds out one split). With the empirical fractions ``\hat q_P``
    and ``\hat q_U`` of the ``p`` labeled and ``n`` unlabeled held-out scores at or above
    ``c``, the cut minimises the ratio's upper confidence bound

    .. math::

        \hat c = \arg\min_c \frac{\hat q_U(c) + (1 + \gamma)\,\epsilon}{\hat q_P(c)},\qquad
        \epsilon = \sqrt{\tfrac{\log(4/\delta)}{2}}\Bigl(\tfrac{1}{\sqrt{p}} +
        \tfrac{1}{\sqrt{n}}\Bigr),

    and ``prior_ = q_U(c) / q_P(c)`` there (clipped to 1). The paper bounds its error by
    ``O(1 / q_H(c*) (1/sqrt(p) + 1/sqrt(n)))``: with few labeled positives the estimate is
    only as good as its ``p``, and ``bin_interval_`` says so.

    Parameters
    ----------
    estimator : classifier or None, default=None
        Scores labeled (1) against unlabeled (0) points through ``decision_function`` (or
        the positive column of ``predict_proba``); cloned for each fold. Only the order of
        the scores matters. None: ``LogisticRegression(class_weight="balanced",
        max_iter=1000)``, which reads sparse ``X`` as it is. Its ``random_state``, if left
        at None, is set from ``random_state``.
    cv : int >= 2, default=5
        Cross-fitting folds, at most the number of labeled positives (fewer are used when
        there are fewer labeled positives; at least 2 are needed).
    delta : float in (0, 1), default=0.1
        Confidence parameter of the bound that chooses the cut (the paper's).
    gamma : float >= 0, default=0.01
        Slack of that bound (the paper's).
    %(bootstrap_params)s

    Attributes
    ----------
    prior_ : float
    cut_ : float
        The chosen cut ``c`` on the held-out scores.
    top_labeled_, top_unlabeled_ : float
        ``q_P(c)`` and ``q_U(c)``: the shares of labeled and unlabeled points at or above it.
    bin_interval_ : tuple (lo, hi)
        Always computed, with no refit, at level ``confidence``. ``hi`` bounds ``pi`` from
        above at every cut at once: ``min_c (q_U(c) + e_n) / (q_P(c) - e_p)`` with the
        Dvoretzky-Kiefer-Wolfowitz band ``e_m = sqrt(log(2 / (1 - sqrt(confidence))) /
        (2 m))`` of each share, valid whether or not a bin is free of negatives. ``lo`` is
        the ratio at the chosen cut with both shares at the ends of their exact binomial
        (Clopper-Pearson) intervals at level ``sqrt(confidence)``: it bounds ``pi`` from
        below only if that bin holds no negative. Where the classes overlap the estimate
        lies above ``pi`` (a bin that holds negatives raises it), and ``lo`` may too.
    %(bootstrap_attributes)s

    References
    ----------
    S. Garg, Y. Wu, A. J. Smola, S. Balakrishnan, Z. C. Lipton, "Mixture proportion
    estimation and PU learning: a modern approach", NeurIPS 2021.

    """

    _min_unlabeled = 2  # (its folds' classifiers)

    _parameter_constraints: dict = {
        **_PriorEstimator._parameter_constraints,
        # "estimator" is checked by its methods, in _check_values
        "cv": [Integer(2)],
        "delta": [Real(0.0, 1.0)],
        "gamma": [Real(0.0, low_open=False)],
    }

    _fitted_attributes: dict = {
        "cut_": Fitted("float"),
        "top_labeled_": Fitted("float", above=0.0, high=1.0),
        "top_unlabeled_": Fitted("float", low=0.0, high=1.0),
        "bin_interval_": Fitted("floats", (2,), low=0.0, high=1.0),
    }

    def __init__(
        self, estimator: BaseEstimator | None = None, *, cv: int = 5, delta: float = 0.1,
        gamma: float = 0.01, n_bootstrap: int = 0, confidence: float = 0.95,
        random_state: int | np.random.RandomState | None = None,
    ) -> None:  # fmt: skip
        set_init_params(self, locals())

    def _check_values(self, params):
        """``estimator``: None or a classifier with ``fit`` and a score method."""
        needs = ("decision_function", "predict_proba")
        _check_classifier(self.estimator, needs, "LogisticRegression()")
        return params

    def _check_sizes(self, n_labeled, n_unlabeled, params):
        if n_labeled < 2:
            raise ValueError(
                "BestBin scores every labeled positive by a model trained without it, which "
                f"needs at least 2 labeled positives (s == 1), got {n_labeled}: label more "
                "positives, or pass the prior as a number"
            )

    def _estimate(self, Xp, Xu, rng, params):
        p = Xp.shape[0]
        X, s = _stacked(Xp, Xu)
        seed = int(rng.randint(np.iinfo(np.int32).max))
        z = _held_out_scores(X, s, self.estimator, min(params["cv"], p), seed)
        cut, qp, qu, interval = _best_bin(
            z[:p], z[p:], params["delta"], params["gamma"], params["confidence"]
        )
        info = {"cut_": cut, "top_labeled_": qp, "top_unlabeled_": qu, "bin_interval_": interval}
        return min(1.0, qu / qp), info


@_shared_docs("the estimators' folds and halvings", example=(0.2, 0.45), see_also="BestBin TIcE")
@register(
    family="pu",
    summary="class prior: an interval bracketing several estimators",
    cases=(Case({"random_state": 0}),),
)
class Bracket(_PriorEstimator):
    r"""Class prior as the midpoint of an interval of plausible priors (the estimator of
    :class:`~unlabeled.PUSVC`'s ``prior="auto"`` before :class:`Blend`).

    The interval ``[low, high]`` is built from two estimators that err in opposite
    directions. ``high`` is :class:`BestBin`'s upper confidence bound (the high end of its
    ``bin_interval_``): every cut ``c`` of a score gives ``q_U(c) / q_P(c) >= pi``, and the
    bound holds at every cut at once at level ``confidence``, whether or not the classes
    overlap. ``low`` is the smaller of :class:`TIcE`'s estimate, which errs low when few of
    the positives are labeled (its label frequency is the largest of many lower bounds over
    subsets, which noise raises), and the low end of ``BestBin``'s interval. The estimate

    .. math::  \hat\pi = \frac{low + high}{2}

    is the value whose largest absolute error over the interval is least. With many labeled
    positives the interval is narrow and the estimate close to both ends; with few it is wide
    and the estimate moves to its middle: with fewer than 2 labeled positives ``BestBin``
    cannot score them held out and ``high = 1`` (the data bound nothing), so the estimate is
    ``(low + 1) / 2``. Measured with ``PUSVC(prior="auto")`` on the 12 UCI sets and the Adult
    and Shuttle tables at 1%, 5% and 20% of the positives labeled in
    ``benchmarks/archive/bench_pu_defaults-2026-11-28.md``; :class:`Blend` replaced it as the
    default (``benchmarks/results/bench_pu_defaults.md``).

    Parameters
    ----------
    upper : BestBin or None, default=None
        The estimator of ``high``; None: ``BestBin()``. Cloned, with ``random_state`` and
        ``confidence`` set from this estimator's.
    lower : prior estimator or None, default=None
        The estimator whose estimate bounds ``low`` from above; None: ``TIcE()``. Cloned,
        with ``random_state`` set from this estimator's.
    %(bootstrap_params)s

    Attributes
    ----------
    prior_ : float
    bracket_ : tuple (low, high)
        The interval of plausible priors; ``prior_`` is its midpoint.
    lower_estimate_, upper_estimate_ : float
        The estimates of ``lower`` and ``upper`` (both ``lower``'s with fewer than 2 labeled
        positives).
    %(bootstrap_attributes)s

    References
    ----------
    S. Garg, Y. Wu, A. J. Smola, S. Balakrishnan, Z. C. Lipton, "Mixture proportion
    estimation and PU learning: a modern approach", NeurIPS 2021. J. Bekker, J. Davis,
    "Estimating the class prior in positive and unlabeled data through decision tree
    induction", AAAI 2018.

    """

    _min_unlabeled = 2  # (its folds' classifiers)

    _parameter_constraints: dict = {
        **_PriorEstimator._parameter_constraints,
        "upper": [None, Instance((BestBin,), "a BestBin()")],
        "lower": [None, Instance((_PriorEstimator,), "a prior estimator such as TIcE()")],
    }

    _fitted_attributes: dict = {
        "bracket_": Fitted("floats", (2,), low=0.0, high=1.0),
        "lower_estimate_": Fitted("float"),
        "upper_estimate_": Fitted("float"),
    }

    def __init__(
        self,
        upper: BestBin | None = None,
        lower: _PriorEstimator | None = None,
        *,
        n_bootstrap: int = 0,
        confidence: float = 0.95,
        random_state: int | np.random.RandomState | None = None,
    ) -> None:
        set_init_params(self, locals())

    def _estimate(self, Xp, Xu, rng, params):
        p = Xp.shape[0]
        X, s = _stacked(Xp, Xu)
        seeds = rng.randint(np.iinfo(np.int32).max, size=2)
        lower = TIcE() if self.lower is None else clone(self.lower)
        with warnings.catch_warnings():  # ElkanNoto's out-of-range warning: clipped below
            warnings.simplefilter("ignore", RuntimeWarning)
            low_est = float(lower.set_params(random_state=int(seeds[0])).fit(X, s).prior_)
        low, high, high_est = min(max(low_est, 0.0), 1.0), 1.0, low_est
        if p >= 2:  # BestBin scores every labeled positive by a model trained without it
            upper = BestBin() if self.upper is None else clone(self.upper)
            upper.set_params(random_state=int(seeds[1]), confidence=params["confidence"])
            high_est = float(upper.fit(X, s).prior_)
            lo, high = upper.bin_interval_
            low = min(low, lo)
        info = {
            "bracket_": (float(low), float(max(high, low))),
            "lower_estimate_": low_est,
            "upper_estimate_": high_est,
        }
        return (low + max(high, low)) / 2, info


# ------------------------------------------------------------------------------- Blend
#: Blend's repeats and TIcE's halvings: about this many points' worth of each (at least 2,
#: at most _BLEND_MAX_REPEATS repeats and _BLEND_MAX_HALVINGS halvings), so that small
#: samples, whose estimates vary most, are averaged most
_BLEND_WORK = 40_000
_BLEND_MAX_REPEATS = 50
_BLEND_MAX_HALVINGS = 200
_BLOCK_BYTES = 32 * 2**20  # the kernel scorer's row blocks


@_shared_docs("the folds, the subsamples and TIcE's halvings", example=(0.2, 0.45),
              see_also="Bracket BestBin TIcE")  # fmt: skip
@register(
    family="pu",
    summary="class prior: the mean of repeated BestBin and TIcE (prior='auto')",
    cases=(Case({"random_state": 0, "n_repeats": 2}),),
)
class Blend(_PriorEstimator):
    r"""Class prior as the mean of two estimates that err in opposite directions, each
    averaged over repeated random splits: the estimator of :class:`~unlabeled.PUSVC`'s
    ``prior="auto"``.

    *From above*: best-bin estimation (:class:`BestBin`, Garg et al. 2021). For any score and
    cut ``c``, the shares ``q_U(c)`` and ``q_P(c)`` of unlabeled and labeled points at or
    above it satisfy ``q_U(c) >= pi q_P(c)``: every ratio bounds ``pi`` from above, and the
    best cut's ratio errs high wherever the top bin holds negatives. The scores are held out
    (``cv``-fold cross-fitting, stratified on the labels) and come from two scorers of
    labeled against unlabeled points that need no training beyond sums over the training
    folds' points ``P_tr`` and ``U_tr``: a linear one, the difference of the class means,
    and a nonlinear one, the ratio of Gaussian-kernel (Parzen) density estimates,

    .. math::

        z_{lin}(x) = x^\top \bigl(\bar x_{P_{tr}} - \bar x_{U_{tr}}\bigr),\qquad
        z_{ker}(x) = \frac{\frac{1}{|P_{tr}|}\sum_{j \in P_{tr}} k(x, x_j)}
                          {\frac{1}{|U_{tr}|}\sum_{j \in U_{tr}} k(x, x_j)},\qquad
        k(x, y) = e^{-\gamma \|x - y\|^2},\ \gamma = \frac{1}{d\, \mathrm{Var}(X)}

    (the kernel width of :class:`~unlabeled.PUSVC`'s ``gamma="scale"``; ``z_ker`` orders the
    points as the Bayes classifier of the two density estimates does), and any classifiers
    in ``scorers``. As each scorer's ratio bounds ``pi`` from above, the least of the
    scorers' estimates is taken; that is repeated on ``R`` random fold splits and averaged,

    .. math::  \hat\pi_{up} = \frac1R \sum_{r=1}^R \min_{k} \hat\pi^{BBE}_{k,r}.

    *From below* (with few labeled positives): :class:`TIcE` (Bekker and Davis 2018), whose
    label frequency is the largest of lower bounds over many subsets, which noise raises
    when few positives are labeled, so that its prior errs low there (either way with many
    labels), averaged over many random halvings (``lower``). The estimate is the mean

    .. math::  \hat\pi = \tfrac12 \bigl(\hat\pi_{TIcE} + \hat\pi_{up}\bigr).

    Where the two lie on opposite sides of ``pi`` the mean's error is at most half the
    larger one. Equal weights are what the measurements chose, not a tuned constant: on the
    tuning half of the issue-51 suite (``benchmarks/_harness/pu_tables.py``: 13 tables of
    189 to 2,100 training rows, 1%, 5% and 20% of the positives labeled, 2 labelings) the
    weight of TIcE that minimised the mean absolute error (with logistic-regression and SVM
    scorers) lay between 0.4 and 0.7 at every number of labeled positives from 2 to 200.
    There, over 5 values of ``random_state``, the mean absolute error was 0.19 / 0.09 /
    0.06 at 1% / 5% / 20%, against at best 0.22 / 0.16 / 0.08 for a single estimator of
    this module; the standard deviation over ``random_state`` was at most 0.016 on every
    table and labeling; ``bracket_`` held the truth in 95% / 97% / 88% of fits.

    With fewer than 2 labeled positives (or unlabeled points) no point can be scored by a
    model trained without it on both classes, nothing bounds ``pi`` from above, and the
    estimate is the midpoint of ``bracket_`` (``TIcE``'s estimate to ``1 - 1 / (2 n)``), the
    value whose largest error over it is least.

    ``bracket_ = (low, high)`` is an interval of plausible priors: ``high`` is the median over
    repeats of the least of :class:`BestBin`'s upper confidence bounds at level
    ``confidence`` (uniform over the cuts: valid whether or not a bin is free of negatives);
    ``low`` is the least of ``TIcE``'s estimate, ``\hat\pi_{up}`` and the median over
    repeats of the least ratio at the chosen cut with both shares at the far ends of their
    Dvoretzky-Kiefer-Wolfowitz bands at level ``sqrt(confidence)``, ``(q_U - e_n) / (q_P +
    e_p)``, ``e_m = sqrt(log(2 / (1 - sqrt(confidence))) / (2 m))``: the bands hold at every
    cut at once, so also at a cut chosen from the data. ``low`` is not a confidence bound for
    ``pi``: where the classes overlap, every ratio exceeds ``pi`` and so may ``low``. The
    estimate and both ends are kept inside ``[1 / (2 n), 1 - 1 / (2 n)]`` for ``n``
    unlabeled points, the shares that ``n`` points tell apart from 0 and 1: an upper end
    there means that the data bound ``pi`` by nothing better than 1. A wide interval says
    that the data hold little information on ``pi`` (:class:`~unlabeled.PUSVC` warns from a
    width of 0.3).

    Parameters
    ----------
    scorers : sequence of classifiers or None, default=None
        Scorers besides the two above: classifiers of labeled (1) against unlabeled (0)
        points, each with ``fit`` and ``decision_function`` or ``predict_proba`` (the
        positive column); only the order of their scores matters. Cloned for each fold of
        each repeat (``cv R`` fits each); a ``random_state`` left at None is set from
        ``random_state``. None: none. E.g. ``[LogisticRegression(class_weight="balanced")]``.
    lower : prior estimator or None, default=None
        The estimate from below; None: ``TIcE`` with ``ceil(40000 / N)`` halvings (at least
        2, at most 200: about 40,000 points' worth of trees). Cloned, with ``random_state``
        set from this estimator's.
    n_repeats : int in [1, 100] or None, default=None
        Repeats ``R`` of the cross-fitting on new random folds. None: ``ceil(40000 / N)`` for
        ``N`` points, at least 2 and at most 50 (small samples, whose estimates vary most,
        are averaged most). The kernel is computed once for all repeats (``N x
        min(N, max_samples)`` values).
    cv : int >= 2, default=5
        Cross-fitting folds (at most the number of labeled positives and of unlabeled
        points).
    max_samples : int >= 2 or None, default=2000
        The scorers learn from at most this many points: all labeled positives and a random
        subset of the unlabeled points (the kernel's columns; each fold's training part of
        them); every point is scored. Bounds the kernel's work at ``N x max_samples``.
        None: all.
    %(bootstrap_params)s

    Attributes
    ----------
    prior_ : float
    bracket_ : tuple (low, high)
        Plausible priors, inside ``(0, 1)``; see above.
    lower_estimate_ : float
        ``lower``'s estimate.
    upper_estimate_ : float
        ``\hat\pi_{up}``, the mean over repeats of the least best-bin estimate; ``high``
        with fewer than 2 labeled positives or unlabeled points.
    n_repeats_ : int
        The repeats ``R`` used.
    %(bootstrap_attributes)s

    References
    ----------
    S. Garg, Y. Wu, A. J. Smola, S. Balakrishnan, Z. C. Lipton, "Mixture proportion
    estimation and PU learning: a modern approach", NeurIPS 2021. J. Bekker, J. Davis,
    "Estimating the class prior in positive and unlabeled data through decision tree
    induction", AAAI 2018. V. Chernozhukov et al., "Double/debiased machine learning for
    treatment and structural parameters", Econometrics Journal 21, 2018 (repeated
    cross-fitting, aggregated).

    """

    _parameter_constraints: dict = {
        **_PriorEstimator._parameter_constraints,
        # "scorers" is checked by its members' methods, in _check_values
        "lower": [None, Instance((_PriorEstimator,), "a prior estimator such as TIcE()")],
        "n_repeats": [None, Integer(1, 100)],
        "cv": [Integer(2)],
        "max_samples": [None, Integer(2)],
    }

    _fitted_attributes: dict = {
        "bracket_": Fitted("floats", (2,), above=0.0, below=1.0),
        "lower_estimate_": Fitted("float"),
        "upper_estimate_": Fitted("float"),
        "n_repeats_": Fitted("int", low=1),
    }

    def __init__(
        self,
        scorers: Iterable[BaseEstimator] | None = None,
        lower: _PriorEstimator | None = None,
        *,
        n_repeats: int | None = None,
        cv: int = 5,
        max_samples: int | None = 2000,
        n_bootstrap: int = 0,
        confidence: float = 0.95,
        random_state: int | np.random.RandomState | None = None,
    ) -> None:
        set_init_params(self, locals())

    def _check_values(self, params):
        """``scorers``: None or a sequence of classifiers with a score method."""
        scorers = self.scorers
        if scorers is not None:
            if isinstance(scorers, (BaseEstimator, str)) or not isinstance(scorers, Iterable):
                raise InvalidParameterError(
                    "scorers must be None or a sequence of classifiers (e.g. "
                    f"[LogisticRegression()]), got {scorers!r}"
                )
            scorers = tuple(scorers)
            for i, est in enumerate(scorers):
                needs = ("decision_function", "predict_proba")
                _check_classifier(est, needs, "LogisticRegression()", f"scorers[{i}]", none=False)
        return {**params, "scorers": scorers}

    def _check_memory(self, n_labeled, n_unlabeled, n_features, params):
        """The kernel scorer's sums (``N x 2 cv R``) besides the bootstrap's."""
        super()._check_memory(n_labeled, n_unlabeled, n_features, params)
        N = n_labeled + n_unlabeled
        R = params["n_repeats"] or _BLEND_MAX_REPEATS
        check_dense_budget(
            8.0 * N * (2 * params["cv"] * R + 4),
            f"Blend keeps {2 * params['cv'] * R} kernel sums for each of {N:,} points",
            "lower n_repeats or cv",
        )

    def _estimate(self, Xp, Xu, rng, params):
        p, n = Xp.shape[0], Xu.shape[0]
        X, s = _stacked(Xp, Xu)
        N = p + n
        work = max(2, -(-_BLEND_WORK // N))
        R = params["n_repeats"] or int(min(_BLEND_MAX_REPEATS, work))
        seeds = rng.randint(np.iinfo(np.int32).max, size=R + 2)
        halvings = int(min(_BLEND_MAX_HALVINGS, work))
        lower = TIcE(n_folds=halvings) if self.lower is None else clone(self.lower)
        with warnings.catch_warnings():  # ElkanNoto's out-of-range warning: clipped below
            warnings.simplefilter("ignore", RuntimeWarning)
            low_est = float(lower.set_params(random_state=int(seeds[R])).fit(X, s).prior_)
        eps = 0.5 / n
        lowc = min(max(low_est, 0.0), 1.0)
        cv = min(params["cv"], p, n)
        if cv < 2:  # no labeled positive can be held out: nothing bounds pi from above
            low, high = min(lowc, 1.0 - eps), 1.0 - eps
            prior, up = (low + high) / 2, high
        else:
            scorers = params["scorers"] or ()
            cols = _training_subset(s, params["max_samples"], np.random.RandomState(seeds[-1]))
            splits = [_folds(s, cv, int(sd)) for sd in seeds[:R]]
            linear, kernel = _built_in_scores(X, s, cols, splits)
            # the Dvoretzky-Kiefer-Wolfowitz bands of BestBin's upper bound, at the cut chosen
            a = np.sqrt(np.log(2.0 / (1.0 - np.sqrt(params["confidence"]))) / 2.0)
            ups, los, his = [], [], []
            for r, fold in enumerate(splits):
                extra = _held_out_classifiers(X, s, scorers, fold, cols, int(seeds[r]))
                z = [linear[r], kernel[r], *extra]
                ests, lo_r, hi_r = [], [], []
                for zk in z:
                    _, qp, qu, (_, hi) = _best_bin(zk[:p], zk[p:], 0.1, 0.01,
                                                   params["confidence"])  # fmt: skip
                    ests.append(min(1.0, qu / qp))
                    lo_r.append(max(qu - a / np.sqrt(n), 0.0) / min(qp + a / np.sqrt(p), 1.0))
                    hi_r.append(hi)
                ups.append(min(ests))
                los.append(min(lo_r))
                his.append(min(hi_r))
            up = float(np.mean(ups))
            prior = (lowc + up) / 2
            low = min(lowc, up, float(np.median(los)))
            high = max(float(np.median(his)), prior)
        lo_c, hi_c = float(np.clip(low, eps, 1.0 - eps)), float(np.clip(high, eps, 1.0 - eps))
        info = {
            "bracket_": (lo_c, hi_c),
            "lower_estimate_": low_est,
            "upper_estimate_": float(up),
            "n_repeats_": R,
        }
        return float(np.clip(prior, lo_c, hi_c)), info


def _training_subset(s, max_samples, rng):
    """The points the scorers may train on: every labeled positive and, up to
    ``max_samples`` in all (at least half of them unlabeled), unlabeled points at random."""
    pos, unl = np.flatnonzero(s == 1), np.flatnonzero(s == 0)
    if max_samples is None or s.size <= max_samples:
        return np.arange(s.size)
    keep = min(unl.size, max(max_samples - pos.size, max_samples // 2))
    return np.sort(np.r_[pos, rng.choice(unl, keep, replace=False)])


def _folds(s, cv, seed):
    """The fold of every point in one ``cv``-fold split stratified on ``s``."""
    fold = np.empty(s.size, dtype=np.int64)
    split = StratifiedKFold(cv, shuffle=True, random_state=seed)
    for k, (_, test) in enumerate(split.split(np.zeros(s.size), s)):
        fold[test] = k
    return fold


def _built_in_scores(X, s, cols, splits):
    """For each split (the fold of every point), two held-out scores of every point from the
    points of ``cols`` outside its fold: the linear ``x . (mean_P - mean_U)`` and the log
    ratio of the Gaussian-kernel density estimates of the labeled and unlabeled points,
    ``gamma = 1 / (d Var(X))``. One pass over the kernel rows for all splits: each row's sums
    over the columns of every (split, fold, class), of which a point's score leaves out its
    own fold. Returns two arrays of shape (n_splits, N)."""
    N, d = X.shape
    if sp.issparse(X):
        var = float(X.multiply(X).mean() - np.square(X.mean()))
    else:
        var = float(X.var())
    gamma = 1.0 / (d * var) if var > 0 else 1.0
    cv = int(max(f.max() for f in splits)) + 1
    R, G = len(splits), 2 * cv
    # one-hot of each column's (split, fold, class): the kernel rows times it are the sums
    lab = (s[cols] == 1).astype(np.int64)
    onehot = np.zeros((cols.size, R * G))
    for r, fold in enumerate(splits):
        onehot[np.arange(cols.size), r * G + fold[cols] * 2 + lab] = 1.0
    counts = onehot.sum(0)
    Xc = X[cols]
    feature_sums = np.asarray(onehot.T @ Xc if not sp.issparse(Xc) else (Xc.T @ onehot).T)
    sums = np.empty((N, R * G))
    block = max(1, int(_BLOCK_BYTES // (8 * 3 * max(cols.size, 1))))
    for a in range(0, N, block):
        b = min(N, a + block)
        K = _sq_dists(X[a:b], Xc)
        np.multiply(K, -gamma, out=K)
        np.exp(K, out=K)
        sums[a:b] = K @ onehot
    tiny = np.finfo(float).tiny
    rows = np.arange(N)
    linear, kernel = np.empty((R, N)), np.empty((R, N))
    for r, fold in enumerate(splits):
        S = sums[:, r * G : (r + 1) * G].reshape(N, cv, 2)
        C = counts[r * G : (r + 1) * G].reshape(cv, 2)
        F = feature_sums[r * G : (r + 1) * G].reshape(cv, 2, d)
        held_c = np.maximum(C.sum(0)[None, :] - C, 1.0)  # (fold, class): outside the fold
        # the kernel: each point's mean kernel value over each class outside its fold
        dens = (S.sum(1) - S[rows, fold]) / held_c[fold]
        kernel[r] = np.log(np.maximum(dens[:, 1], tiny)) - np.log(np.maximum(dens[:, 0], tiny))
        # the linear score: the difference of the class means outside each fold
        means = (F.sum(0)[None] - F) / held_c[:, :, None]  # (fold, class, d)
        w = means[:, 1] - means[:, 0]  # (fold, d)
        proj = np.asarray(X @ w.T)  # (N, fold)
        linear[r] = proj[rows, fold]
    return linear, kernel


def _held_out_classifiers(X, s, scorers, fold, cols, seed):
    """Held-out scores of every point by each of ``scorers`` (one row each), trained on the
    points of ``cols`` outside its fold (all points outside it if those lack a class)."""
    Z = np.empty((len(scorers), s.size))
    in_cols = np.zeros(s.size, dtype=bool)
    in_cols[cols] = True
    for k in range(int(fold.max()) + 1):
        test = np.flatnonzero(fold == k)
        train = np.flatnonzero(in_cols & (fold != k))
        if np.unique(s[train]).size < 2:  # few columns: the fold's own training part
            train = np.flatnonzero(fold != k)
        for j, scorer in enumerate(scorers):
            est = clone(scorer)
            if est.get_params().get("random_state", 0) is None:
                est.set_params(random_state=seed)
            est.fit(X[train], s[train])
            if hasattr(est, "decision_function"):
                Z[j, test] = np.asarray(est.decision_function(X[test]), dtype=float).ravel()
            else:
                Z[j, test] = est.predict_proba(X[test])[:, list(est.classes_).index(1)]
    return Z
