"""KM1 and KM2: the class prior from kernel mean embeddings (Ramaswamy et al., 2016)."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.linalg import lapack
from scipy.optimize import nnls

from .._budget import check_dense_budget
from .._engine import Data, KernelRows, SolverOptions, solve_kernel_qp
from .._solving import kernel_spec
from .._validation import (
    Integer,
    Real,
)
from ..base import (
    ANY_FINITE,
    Fitted,
    set_init_params,
)
from ..exceptions import QPSolverError
from ..registry import Case, register
from ._priors_base import (
    PriorEstimator,
    at_zero_width,
    in_units,
    shared_docs,
    sq_dists,
    subsample,
    unit_exponent,
    width_in_data_units,
)

#: the public module of these estimators: their model files and pickles name them there
PUBLIC_MODULE = "unlabeled.pu.priors"


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
        rows,
        np.arange(u.size, dtype=np.int64),
        -(K @ u),
        np.ones(u.size),
        start,
        options=SolverOptions(tol=_KM_TOL, max_iter=max_iter),
    )
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


class _KernelMean(PriorEstimator):
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
        **PriorEstimator._parameter_constraints,
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
        F = subsample(Xu, params["max_samples"], rng)
        H = subsample(Xp, params["max_samples"], rng)
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
    k = unit_exponent(X)  # (in units of 2**k: the same kernel, finite distances)
    D = sq_dists(in_units(X, k))
    diff = np.r_[np.full(N, 1.0 / N), np.full(M, -1.0 / M)]
    K = np.empty_like(D)

    def gram(w):  # exp(-D / (2 w^2)) into K, the same bits as that expression
        with np.errstate(divide="ignore", invalid="ignore"):
            np.exp(np.divide(D, -(2.0 * w * w), out=K), out=K)
        at_zero_width(K, D, w)
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
    return K, width_in_data_units(width, k, who), dist


def _km_distance(K, N, M, max_iter, who):
    """d(lambda), the RKHS distance from lambda phi(F) + (1 - lambda) phi(H) to the convex hull
    of the sample points' embeddings. At lambda = 1 the target, the uniform weights on F, is
    on the simplex: the distance is 0. Beyond, each QP goes first to the pairwise solver,
    started from the solution at the nearest lambda solved so far, for ``_KM_SMO_STEPS``
    steps per point; one that does not converge, and every later one at a lambda no larger
    (closer to the hull, harder), to the exact active-set method (:func:`_simplex_qp`)."""
    m = N + M
    rows = KernelRows(
        Data.dense(K),
        kernel_spec("precomputed"),
        np.arange(m, dtype=np.int32),
        cache_bytes=_km_cache_bytes(m),
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


@shared_docs("the subsamples", example=(0.2, 0.4), see_also="KM2 PenalizedL1")
@register(family="pu", summary="class prior: kernel mean embedding (KM1)")
class KM1(_KernelMean):
    __module__ = PUBLIC_MODULE
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


@shared_docs("the subsamples", example=(0.2, 0.4), see_also="KM1 PenalizedL1")
@register(
    family="pu",
    summary="class prior: kernel mean embedding (KM2)",
    cases=(Case({"n_bootstrap": 3, "random_state": 0}),),
)
class KM2(_KernelMean):
    __module__ = PUBLIC_MODULE
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
