"""PUSVC: exact positive-unlabeled learning with the double hinge loss."""

from __future__ import annotations

import hashlib
import os
import warnings

import numpy as np
import scipy.sparse as sp
from scipy.optimize import minimize
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import OneClassSVM
from sklearn.utils import check_random_state

from .. import _engine
from .._shared import EngineProgress, engine_data
from .._validation import KERNEL_CODES, check_choice, check_int, check_real
from ._base import KernelPUModel, blockwise, double_hinge_objective, kernel_products

_SOLVERS = ("auto", "smo", "usmo")
_INITS = ("auto", "pilot", "ocsvm", "mean-kernel")
_PILOT_SIZE = 1000  # unlabeled points in the pilot problem of init="pilot"
# prior="auto": the class-prior estimators of unlabeled.pu.priors in the order of their mean
# absolute error in benchmarks/results/bench_priors.md (12 UCI sets, 10 labelings each); the
# first one whose estimate lies in (0, 1) is used (TIcE can estimate 1 on small samples)
AUTO_PRIOR_ESTIMATORS = ("TIcE", "KM1", "KM2")
# Kernel work (multiply-adds) from which the start's products K_UP 1 and K_UU sigma0, and g at
# the positives, are computed here by BLAS in blocks rather than row by row in the engine.
_BLAS_MIN_WORK = 2**26
# linear kernel: the engine's offset search by coordinate descent before the pair solver
# (-1: from 5,000 unlabeled points on; tests force 0 or 1 to check both paths)
_LINEAR_CD = -1


class PUSVC(KernelPUModel):
    r"""Positive-unlabeled kernel classifier with the double hinge loss, solved exactly.

    Given ``p`` labeled positives ``P`` and ``n`` unlabeled points ``U`` drawn from a mixture
    with class prior ``pi``, PUSVC minimises the convex PU risk of du Plessis, Niu and
    Sugiyama (ICML 2015) over ``f(x) = sum_i alpha_i k(x_i, x) + beta``:

    .. math::

        J(f) = -\frac{\pi}{p}\sum_{x\in P} f(x)
               + \frac{1}{n}\sum_{x\in U}\max\bigl(f(x), \tfrac{1+f(x)}{2}, 0\bigr)
               + \lambda \|f\|^2 .

    Its dual is a box-constrained QP with one equality constraint, solved to tolerance ``tol``
    by a sequential-minimal-optimisation engine whose memory is linear in the number of samples
    plus a kernel-row cache of ``cache_size`` MB; no ``n x n`` matrix is ever built unless
    ``kernel="precomputed"``. At the solution every positive has ``alpha = c1 = pi/(2 lam p)``
    and every unlabeled point ``alpha_u = -sigma_u`` with ``0 <= sigma_u <= c2 = 1/(2 lam n)``.

    Parameters
    ----------
    prior : float in (0, 1) or "auto"
        Class prior ``pi``: the proportion of positives among the unlabeled points. ``"auto"``
        estimates it from ``X`` and ``s`` with :class:`~unlabeled.pu.priors.TIcE`, the most
        accurate estimator in ``benchmarks/bench_priors.py``, seeded with ``random_state``.
        On small samples TIcE can find no subset that bounds the label frequency and estimate
        1 (every unlabeled point positive); then the next most accurate, ``KM1`` and ``KM2``,
        are tried in turn, and ``prior_estimator_`` names the one used. If none gives a value
        in (0, 1), ``fit`` raises ``ValueError``: pass a number then. Not available with
        ``kernel="precomputed"``, which gives no feature vectors to estimate it from.
    lam : float > 0, default=0.01
        Regularisation ``lambda`` of the paper.
    kernel : {"rbf", "linear", "poly", "precomputed"}, default="rbf"
        ``rbf``: exp(-gamma ||x - y||^2); ``poly``: (gamma <x, y> + coef0)^degree;
        ``precomputed``: ``X`` is the Gram matrix (``n_samples x n_samples`` at fit time,
        ``n_test x n_train`` at predict time).
    gamma : {"scale", "auto"} or float >= 0, default="scale"
        Kernel width, resolved as in :class:`sklearn.svm.SVC`.
    degree : int >= 0, default=3
    coef0 : float, default=0.0
    tol : float > 0, default=1e-3
        Stopping tolerance on the maximal KKT violation, in units of ``f`` (the paper's tau).
    cache_size : float > 0, default=200
        Kernel-row cache budget in MB.
    max_iter : int >= 1 or None, default=None
        Cap on solver iterations (pair updates); None means no cap.
    solver : {"auto", "smo", "usmo"}, default="auto"
        ``usmo``: the paper's algorithm (violating pairs over the sets D1/D2/D3, non-bound set
        with function cache, full scans). ``smo``: full gradient, second-order pair selection,
        shrinking and kernel-row cache. ``auto`` is ``smo``. For the linear kernel both keep
        the primal vector ``w`` so that a step costs O(nnz) rather than O(n d); from 5,000
        unlabeled points on, ``smo`` first finds the offset ``beta`` (for a fixed offset the
        dual separates into single coordinates, solved by LIBLINEAR-style coordinate
        descent, and ``sum sigma`` grows with ``beta``), then finishes with pairs. For
        ``rbf`` and ``poly`` kernels on large problems the start's kernel sums are matrix
        products through BLAS, in blocks of at most 64 MB.
    init : {"auto", "pilot", "ocsvm", "mean-kernel"}, default="auto"
        Starting point (any feasible start reaches the same optimum; a good one saves time).
        ``pilot``: solve the same problem loosely on 1,000 random unlabeled points and start
        each point in the state its pilot decision value suggests (used when there are more
        than 4,000 unlabeled points, ``mean-kernel`` below that); ``ocsvm``: the paper's
        section 4.5 (one-class SVM ranking, group sizes from its eq. 18); ``mean-kernel``: the
        points most similar to the positives start at ``sigma = c2``. ``auto`` is ``ocsvm``
        for ``usmo`` and ``pilot`` for ``smo``.
    verbose : bool, default=False
        Print progress (iterations, KKT violation, objective, elapsed time) about once a second.
    random_state : int, RandomState instance or None, default=None
        Draws the pilot subsample of ``init="pilot"`` and the order in which ``usmo``'s full
        scans visit the points. The optimum does not depend on it.
    shrinking : bool, default=True
        Let the ``smo`` solver set aside bound points that are unlikely to move (and the linear
        solver skip them between sweeps); the optimum does not depend on it.
    n_jobs : int or None, default=None
        Threads for long kernel rows (at least ~2 million multiply-adds each). ``-1``: all
        cores the process may use; ``None``: those cores minus the processes already running
        on them when ``fit`` starts (at least one), because a thread that has to wait for a
        busy core stalls every row it takes part in.
    warm_start : bool, default=False
        Start the next ``fit`` on the same data (same ``X``, ``s`` and kernel) from the previous
        solution, rescaled to the new ``lam`` and repaired to the new ``prior``: a cheap way
        to walk a regularisation path. On other data it has no effect.
    cache_dtype : {"auto", "float64", "float32"}, default="auto"
        Storage of the cached kernel rows of the ``smo`` solver. ``float32`` holds twice as
        many rows in ``cache_size`` at about 7 significant digits, which moves the optimum by
        about 1e-7 relative; ``auto`` uses it when ``X`` is a dense float32 array.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        ``[0, 1]``.
    support_ : ndarray of shape (n_SV,)
        Indices into the training ``X`` of the points with a non-zero coefficient.
    support_vectors_ : ndarray or sparse matrix of shape (n_SV, n_features)
        Empty for ``kernel="precomputed"``.
    dual_coef_ : ndarray of shape (1, n_SV)
        ``c1`` for labeled positives, ``-sigma_u`` for unlabeled points.
    intercept_ : ndarray of shape (1,)
        The bias ``beta``: averaged over free points, or the midpoint of the interval that the
        bound points allow when no point is free.
    coef_ : ndarray of shape (1, n_features)
        Primal weights; linear kernel only.
    objective_ : float
        The primal objective ``J`` at the solution, computed from the decision values.
    n_iter_ : int
        Updates made by the solver: pair steps, plus the single-coordinate steps of the
        linear solver's offset search.
    cache_stats_ : dict
        Kernel-row cache of the ``smo`` solver: ``hits``, ``misses``, ``bytes`` (memory the
        cache holds, at most ``cache_size`` MB) and ``kernel_rows`` (rows computed).
    prior_ : float
        The class prior used (the estimate when ``prior="auto"``).
    prior_estimator_ : str or None
        Name of the class-prior estimator used by ``prior="auto"``; None when the prior was
        given.
    n_features_in_ : int

    References
    ----------
    E. Sansone, F. G. B. De Natale, Z.-H. Zhou, "Efficient Training for Positive Unlabeled
    Learning", IEEE TPAMI 41(11), 2019. M. C. du Plessis, G. Niu, M. Sugiyama, "Convex
    formulation for learning from positive and unlabeled data", ICML 2015.

    Examples
    --------
    >>> import numpy as np
    >>> from unlabeled import PUSVC
    >>> rng = np.random.default_rng(0)
    >>> X = np.r_[rng.normal(1, 1, (100, 2)), rng.normal(-1, 1, (100, 2))]
    >>> s = np.zeros(200, dtype=int); s[:30] = 1          # 30 labeled positives
    >>> clf = PUSVC(prior=70 / 170, lam=0.01).fit(X, s)
    >>> clf.predict(X[:3])
    array([1, 1, 1])
    """

    def __init__(
        self,
        prior,
        lam=0.01,
        kernel="rbf",
        gamma="scale",
        degree=3,
        coef0=0.0,
        tol=1e-3,
        cache_size=200,
        max_iter=None,
        solver="auto",
        init="auto",
        verbose=False,
        random_state=None,
        shrinking=True,
        n_jobs=None,
        warm_start=False,
        cache_dtype="auto",
    ):
        self.prior = prior
        self.lam = lam
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.tol = tol
        self.cache_size = cache_size
        self.max_iter = max_iter
        self.solver = solver
        self.init = init
        self.verbose = verbose
        self.random_state = random_state
        self.shrinking = shrinking
        self.n_jobs = n_jobs
        self.warm_start = warm_start
        self.cache_dtype = cache_dtype

    # ------------------------------------------------------------------ fitting
    def _check_params(self):
        if isinstance(self.prior, str) and self.prior == "auto":
            prior = None  # estimated in fit
            if self.kernel == "precomputed":
                raise ValueError(
                    "prior='auto' needs feature vectors, but kernel='precomputed' gives a Gram "
                    "matrix: pass the prior as a number, e.g. estimated with "
                    f"unlabeled.pu.priors.{AUTO_PRIOR_ESTIMATORS[0]} on the features"
                )
        else:
            name = "prior (a number in (0, 1) or 'auto')"
            prior = check_real(self.prior, name, low=0.0, high=1.0)
        lam = check_real(self.lam, "lam", low=0.0)
        self._check_kernel_params()
        check_real(self.tol, "tol", low=0.0)
        check_real(self.cache_size, "cache_size", low=0.0)
        check_int(self.max_iter, "max_iter", low=1, allow_none=True)
        check_choice(self.solver, "solver", _SOLVERS)
        check_choice(self.init, "init", _INITS)
        check_choice(self.cache_dtype, "cache_dtype", ("auto", "float64", "float32"))
        if not isinstance(self.shrinking, (bool, np.bool_)):
            raise TypeError(f"shrinking must be True or False, got {self.shrinking!r}")
        if not isinstance(self.warm_start, (bool, np.bool_)):
            raise TypeError(f"warm_start must be True or False, got {self.warm_start!r}")
        n_jobs = check_int(self.n_jobs, "n_jobs", low=-1, allow_none=True)
        if n_jobs == 0:
            raise ValueError("n_jobs must be a positive number of threads, -1 or None (all cores)")
        return prior, lam

    def fit(self, X, s) -> PUSVC:
        """Fit on ``X`` with PU labels ``s`` (1 = labeled positive, 0 or -1 = unlabeled).

        ``X`` may be a dense array (float64 or float32) or a scipy sparse matrix; with
        ``kernel="precomputed"`` it is the square Gram matrix of the training points.
        """
        prior, lam = self._check_params()
        X, mask = self._validate_fit(X, s)
        self.prior_estimator_ = None
        if prior is None:
            prior, self.prior_estimator_ = _auto_prior(X, mask, self.random_state)
        gamma = self._gamma
        solver = "smo" if self.solver == "auto" else self.solver
        init = self.init
        if init == "auto":
            init = "ocsvm" if solver == "usmo" else "pilot"
        rng = check_random_state(self.random_state)

        pos = np.flatnonzero(mask).astype(np.int32)
        unl = np.flatnonzero(~mask).astype(np.int32)
        p, n = pos.size, unl.size
        c1, c2 = prior / (2 * lam * p), 1.0 / (2 * lam * n)

        data = engine_data(X)
        kparams = _engine_kernel(self, self.cache_size, self.n_jobs)
        kparams["cache_float32"] = self.cache_dtype == "float32" or (
            self.cache_dtype == "auto" and data["X32"] is not None
        )
        seed = int(rng.randint(np.iinfo(np.int32).max))
        sigma0, beta0 = None, np.nan  # beta0: the offset guess of the linear solver
        # hashing X costs a pass over the data: only when a warm start may use it
        warm_key = (
            _fingerprint(X, mask, self.kernel, gamma, self.degree, self.coef0)
            if self.warm_start
            else None
        )
        warm = getattr(self, "_warm", None) if self.warm_start else None
        warm_products = None
        if warm is not None and warm["key"] == warm_key:
            # c1 and c2 scale with 1/lam: rescaling keeps sigma feasible for the new lam, and
            # the repair (in the order of the previous decision values) moves the sum to the
            # new prior
            beta0 = warm["beta"]
            sigma0 = _repair_sum(
                warm["sigma"] * (warm["lam"] / lam),
                np.argsort(warm["f_unl"], kind="stable"),
                prior / (2 * lam),
                c2,
            )
            if warm["products"] is not None and self.kernel in ("rbf", "poly"):
                warm_products = warm  # (kernel_products evaluates these kernels only)
        elif init == "ocsvm":
            sigma0 = _ocsvm_start(
                X, pos, unl, self.kernel, gamma, self.degree, self.coef0, prior, c1 * p, c2
            )
        elif init == "pilot" and n > 4 * _PILOT_SIZE:
            sigma0, beta0 = self._pilot_start(X, data, kparams, pos, unl, prior, lam, c2, seed)

        sigma0, products, blas = self._start_products(
            X, kparams, solver, pos, unl, sigma0, c1, c2, lam, warm_products
        )

        progress = EngineProgress(self.verbose, "[PUSVC]")
        res = _engine.solve_pu(
            **data,
            **kparams,
            pos=pos,
            unl=unl,
            c1=c1,
            c2=c2,
            tol=float(self.tol),
            max_iter=-1 if self.max_iter is None else int(self.max_iter),
            solver=0 if solver == "smo" else 1,
            shrinking=bool(self.shrinking),
            sigma0=sigma0,
            progress=progress,
            seed=seed,
            linear_cd=_LINEAR_CD,
            beta0=float(beta0),
            **products,
        )
        progress.done(res)
        if not res["converged"]:
            if self.max_iter is not None and res["n_iter"] >= self.max_iter:
                why = f"stopped after max_iter={self.max_iter} iterations; increase max_iter"
            else:
                why = "stalled: no violating pair can move in floating point (degenerate data?)"
            warnings.warn(
                f"PUSVC {why}. KKT violation {res['violation']:.3g} > tol={self.tol}.",
                ConvergenceWarning,
                stacklevel=2,
            )

        if blas is not None:
            res["g_pos"] = blas(pos, np.r_[pos, unl], np.r_[np.full(p, c1), -res["sigma"]])[:, 0]
        _store_solution(self, X, pos, unl, res, c1, prior, lam)
        self.cache_stats_ = {
            "hits": int(res["cache_hits"]),
            "misses": int(res["cache_misses"]),
            "bytes": int(res["cache_bytes"]),
            "kernel_rows": int(res["kernel_rows"]),
        }
        self.solver_ = solver
        if self.warm_start:
            f_unl = res["g_unl"] + res["beta"]
            self._warm = {
                "key": warm_key,
                "lam": lam,
                "sigma": res["sigma"],
                "f_unl": f_unl,
                "beta": res["beta"],
                "h": res["h"] if res["products"].size else None,
                "products": res["products"].reshape(-1, 2) if res["products"].size else None,
            }
        return self

    def _start_products(self, X, kparams, solver, pos, unl, sigma0, c1, c2, lam, warm):
        """Products of the SMO solver's start computed here rather than row by row in the
        engine: from a warm start's previous ones, or through BLAS on large rbf/poly problems.
        Returns (sigma0, the engine's extra arguments, the BLAS helper or None)."""
        blas = None
        if solver == "smo" and self.kernel in ("rbf", "poly"):
            per_entry = X.nnz / max(X.shape[0], 1) if sp.issparse(X) else X.shape[1]
            if unl.size * unl.size * per_entry >= _BLAS_MIN_WORK:
                blas = _BlasProducts(self, X, kparams)
        if warm is not None:
            sigma0, upper = _engine.pu_start_weights(sigma0, c2)
            helper = blas or _BlasProducts(self, X, kparams)
            return sigma0, _warm_products(warm, lam, c2, sigma0, upper, helper, unl), blas
        if blas is None:
            return sigma0, {}, None
        h = blas(unl, pos, np.ones(pos.size))[:, 0]
        if sigma0 is None:  # the engine's default start: largest h first at sigma = c2
            order = np.argsort(h, kind="stable")
            sigma0 = _repair_sum(np.zeros(unl.size), order, c1 * pos.size, c2)
        sigma0, upper = _engine.pu_start_weights(sigma0, c2)
        start = blas(unl, unl, np.c_[sigma0, upper])
        return sigma0, {"h": h, "start_products": start, "positive_g": False}, blas

    def _pilot_start(self, X, data, kparams, pos, unl, prior, lam, c2, seed):
        """Solve the same problem (same lam and prior) loosely on a random subsample, then start
        every unlabeled point in the state that the pilot's f(x) suggests: sigma = 0, c2/2 or
        c2 for f <= -1, |f| < 1, f >= 1. Which state dominates depends on lam and the data, so
        this beats any fixed-shape start; it costs O(n * pilot size) kernel evaluations.
        Returns the start and the pilot's offset (the linear solver's first guess)."""
        rng = np.random.default_rng(seed)
        sub_u = np.sort(rng.choice(unl, _PILOT_SIZE, replace=False)).astype(np.int32)
        sub_p = pos
        if pos.size > _PILOT_SIZE:
            sub_p = np.sort(rng.choice(pos, _PILOT_SIZE, replace=False)).astype(np.int32)
        c1s, c2s = prior / (2 * lam * sub_p.size), 1.0 / (2 * lam * sub_u.size)
        pilot = _engine.solve_pu(
            **data,
            **kparams,
            pos=sub_p,
            unl=sub_u,
            c1=c1s,
            c2=c2s,
            tol=1e-2,
            max_iter=-1,
            solver=0,
            shrinking=True,
            sigma0=None,
            progress=None,
            seed=seed,
        )
        nz = pilot["sigma"] > 0
        sv = np.r_[sub_p, sub_u[nz]]
        coef = np.r_[np.full(sub_p.size, c1s), -pilot["sigma"][nz]]
        if self.kernel == "linear":
            f = blockwise(unl.size, 1, lambda r: X[unl[r]] @ pilot["w"])
        elif self.kernel == "precomputed":
            f = self._kernel_dot(X, sv, coef, rows=unl)
        else:
            f = _BlasProducts(self, X, kparams)(unl, sv, coef)[:, 0]
        f += pilot["beta"]
        sigma = np.where(f <= -1, 0.0, np.where(f >= 1, c2, c2 / 2))
        order = np.argsort(f, kind="stable")
        return _repair_sum(sigma, order, prior / (2 * lam), c2), float(pilot["beta"])


# ---------------------------------------------------------------------- helpers
def _auto_prior(X, mask, random_state):
    """prior="auto": (estimate, estimator name) from the first of AUTO_PRIOR_ESTIMATORS whose
    estimate lies in (0, 1)."""
    from . import priors

    found = []
    for name in AUTO_PRIOR_ESTIMATORS:
        est = getattr(priors, name)(random_state=random_state)
        prior = est.fit(X, mask.astype(np.int8)).prior_
        if 0.0 < prior < 1.0:
            return float(prior), name
        found.append(f"{name} {prior:.4g}")
    raise ValueError(
        "prior='auto': no estimator gave a proportion of positives among the unlabeled points "
        f"inside (0, 1) ({', '.join(found)}), which PUSVC needs; pass the prior as a number "
        "in (0, 1)"
    )


def _fingerprint(X, mask, *params):
    """A digest of the training data and kernel, to tell whether a warm start applies."""
    h = hashlib.blake2b(digest_size=16)
    arrays = (X.data, X.indices, X.indptr) if sp.issparse(X) else (X,)
    for a in (*arrays, mask):
        h.update(np.ascontiguousarray(a))
    h.update(repr((X.shape, X.dtype.str, params)).encode())
    return h.hexdigest()


class _BlasProducts:
    """K(X[rows], X[cols]) @ V for a fitted-data PUSVC, in the precision of its kernel cache."""

    def __init__(self, est, X, kparams):
        self.X, self.metric, self.params = X, est.kernel, est._pairwise_params()
        self.threads = kparams["n_jobs"]
        single = kparams["cache_float32"] and X.dtype == np.float32
        self.dtype = np.float32 if single else np.float64

    def __call__(self, rows, cols, V):
        X, metric, params = self.X, self.metric, self.params
        return kernel_products(X, rows, cols, V, metric, params, self.threads, self.dtype)


def _warm_products(warm, lam, c2, sigma0, upper, blas, unl):
    """The engine's start products for a warm start, from those of the previous solution.

    c1, c2 and sigma all scale with 1/lam, so K_UU sigma and K_UU upper scale by lam_old / lam
    and keep their states; only the points that the prior's repair moved (or whose state
    changed) need kernel work, usually none along a lam path."""
    ratio = warm["lam"] / lam
    _, upper_old = _engine.pu_start_weights(warm["sigma"], c2 / ratio)
    delta = np.c_[sigma0 - ratio * warm["sigma"], upper - ratio * upper_old]
    delta[np.abs(delta) <= 1e-12 * c2] = 0.0  # rounding of the rescaling, not a move
    start = ratio * warm["products"]
    moved = np.flatnonzero(delta.any(axis=1))
    if moved.size:
        start += blas(unl, unl[moved], delta[moved])
    return {"h": warm["h"], "start_products": start}


def _engine_kernel(est, cache_size, n_jobs):
    """The engine's kernel arguments for a fitted-data estimator (``_gamma`` resolved)."""
    return {
        "kernel": KERNEL_CODES[est.kernel],
        "gamma": est._gamma,
        "coef0": float(est.coef0),
        "degree": int(est.degree),
        "cache_bytes": float(cache_size) * 2**20,
        "n_jobs": _threads(n_jobs),
    }


def _store_solution(est, X, pos, unl, res, c1, prior, lam):
    """Set the fitted attributes of a PU double-hinge model from the engine's result."""
    sigma, beta = res["sigma"], float(res["beta"])
    alpha = np.empty(X.shape[0])
    alpha[pos] = c1
    alpha[unl] = -sigma
    est._set_expansion(X, alpha, beta, w=res["w"] if est.kernel == "linear" else None)
    est.n_iter_ = int(res["n_iter"])
    est.prior_ = prior
    norm2 = c1 * res["g_pos"].sum() - sigma @ res["g_unl"]  # alpha' K alpha
    est.objective_ = double_hinge_objective(res["g_pos"], res["g_unl"], norm2, beta, prior, lam)


def _threads(n_jobs):
    """Threads for the engine: n_jobs itself, every usable core (-1), or the idle ones (None)."""
    if n_jobs is not None and n_jobs != -1:
        return int(n_jobs)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    if n_jobs == -1:
        return cores
    try:  # the 4th field of /proc/loadavg is "runnable/total", this process included
        with open("/proc/loadavg") as fh:
            others = int(fh.read().split()[3].split("/")[0]) - 1
    except (OSError, ValueError, IndexError):
        others = 0
    return max(1, min(cores, cores - others))


def _repair_sum(sigma, order, target, c2):
    """Make sum(sigma) == target inside [0, c2], raising the highest-ranked points first
    (or lowering the lowest-ranked), so that any heuristic start becomes feasible.
    ``order`` ranks the points from least to most positive-looking."""
    sigma = np.clip(np.asarray(sigma, dtype=np.float64), 0.0, c2)
    gap = target - sigma.sum()
    if gap == 0:
        return sigma
    idx = order[::-1] if gap > 0 else order
    room = (c2 - sigma[idx]) if gap > 0 else sigma[idx]
    before = np.concatenate(([0.0], np.cumsum(room)[:-1]))
    move = np.clip(abs(gap) - before, 0.0, room)
    sigma[idx] += move if gap > 0 else -move
    return np.clip(sigma, 0.0, c2, out=sigma)


def _ocsvm_start(X, pos, unl, kernel, gamma, degree, coef0, prior, total, c2):
    """The paper's section 4.5: rank U by a one-class SVM trained on P, then fill the states
    5, 4, 3, 2, 1 from the top with group sizes from its eq. 18."""
    n = unl.size
    if kernel == "precomputed":
        oc = OneClassSVM(kernel="precomputed").fit(X[np.ix_(pos, pos)])
        score = oc.decision_function(X[np.ix_(unl, pos)])
    else:
        oc = OneClassSVM(kernel=kernel, gamma=gamma, degree=degree, coef0=coef0).fit(X[pos])
        score = oc.decision_function(X[unl])
    order = np.argsort(score, kind="stable")  # ascending: state 1 first

    def resid(v):
        a, b, c, s2, s4 = v
        return (total - b * n * s2 - c * n * s4 - c2 * n * (prior * a + (1 - a - b - c) / 2)) ** 2

    lo_a = max(1 / (prior * n), 1 / ((1 - prior) * n))
    hi_a = min(1 / (1 - prior), 1 / prior)
    hi_bc = max(np.log(n) / n, 1 / n)
    bounds = [
        (lo_a, max(lo_a, hi_a)),
        (1 / n, hi_bc),
        (1 / n, hi_bc),
        (1e-9 * c2, c2 / 2 * (1 - 1e-9)),
        (c2 / 2 * (1 + 1e-9), c2 * (1 - 1e-9)),
    ]
    x0 = [min(max(1.0, lo_a), bounds[0][1]), 1 / n, 1 / n, c2 / 4, 3 * c2 / 4]
    cons = [{"type": "ineq", "fun": lambda v: 1 - 1 / n - v[0] - v[1] - v[2]}]
    sol = minimize(resid, x0, bounds=bounds, constraints=cons, method="SLSQP")
    a, b, c, s2, s4 = sol.x
    n1 = int(round((1 - prior) * a * n))
    n2 = max(1, int(round(b * n)))
    n4 = max(1, int(round(c * n)))
    n5 = int(round(prior * a * n))
    n3 = max(0, n - n1 - n2 - n4 - n5)
    sizes = np.array([n1, n2, n3, n4, n5])
    values = np.array([0.0, s2, c2 / 2, s4, c2])
    sigma_sorted = np.repeat(values, sizes)[:n]
    sigma_sorted = np.pad(sigma_sorted, (0, n - sigma_sorted.size), constant_values=c2)
    sigma = np.empty(n)
    sigma[order] = sigma_sorted
    return _repair_sum(sigma, order, total, c2)


__all__ = ["PUSVC"]
