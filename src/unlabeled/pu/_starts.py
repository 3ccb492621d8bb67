"""PUSVC's starting points: any feasible start reaches the same optimum; a good one saves time.

The dual variables are ``sigma_u`` in ``[0, c2]`` for the unlabeled points, with
``sum_u sigma_u = c1 p`` (``= pi / (2 lam)``). A start is a heuristic guess of which of the
five optimality states (``sigma = 0``, in ``(0, c2/2)``, ``c2/2``, in ``(c2/2, c2)``, ``c2``)
each point ends in, made feasible by :func:`repair_sum`:

* mean-kernel: the points most similar to the positives (largest ``h = K_UP 1``) at ``c2``;
* pilot: the same problem solved loosely on a subsample, its decision values giving the states;
* ocsvm: the USMO paper's section 4.5, a one-class SVM ranking with group sizes from its eq. 18;
* warm: the previous solution on the same data, rescaled to the new ``lam`` and repaired to the
  new prior, with its kernel products.

For large rbf/poly problems the start's kernel sums (``K_UP 1``, ``K_UU sigma0``) are computed
here by BLAS in blocks rather than row by row in the engine (:class:`BlasProducts`).
"""

from __future__ import annotations

import hashlib
import sys
import time

import numpy as np
import scipy.sparse as sp
from scipy.optimize import minimize
from sklearn.svm import OneClassSVM

from .. import _engine
from .._products import KernelProducts
from .._solving import default_max_iter
from ._base import PUProblem

PILOT_SIZE = 1000  # unlabeled points in the pilot problem of init="pilot"
# Kernel work (multiply-adds) from which the start's products K_UP 1 and K_UU sigma0, and g at
# the positives, are computed here by BLAS in blocks rather than row by row in the engine.
_BLAS_MIN_WORK = 2**26


def repair_sum(sigma, score, target, c2):
    """Make sum(sigma) == target inside [0, c2], raising the points of highest ``score`` first
    (or lowering the lowest; ties as a stable ascending sort orders them), so that any
    heuristic start becomes feasible. Only the points that can move are ranked, and of those
    only as many as the gap needs: O(n + k log k), not a full sort (0.1 s at 1M points)."""
    sigma = np.clip(np.asarray(sigma, dtype=np.float64), 0.0, c2)
    gap = target - sigma.sum()
    if gap == 0:
        return sigma
    room = (c2 - sigma) if gap > 0 else sigma
    cand = np.flatnonzero(room > 0)
    if gap > 0:  # the highest first; reversed so that a stable sort puts tied later points first
        cand = cand[::-1]
        key = -np.asarray(score, dtype=np.float64)[cand]
    else:
        key = np.asarray(score, dtype=np.float64)[cand]
    k = min(cand.size, int(2 * abs(gap) / c2) + 64)
    while True:
        sel = np.arange(cand.size)  # every key up to the k-th smallest, boundary ties included
        if k < cand.size:
            sel = np.flatnonzero(key <= np.partition(key, k - 1)[k - 1])
        idx = cand[sel[np.argsort(key[sel], kind="stable")]]
        if sel.size == cand.size or room[idx].sum() >= abs(gap):
            break
        k *= 4
    before = np.concatenate(([0.0], np.cumsum(room[idx])[:-1]))
    move = np.clip(abs(gap) - before, 0.0, room[idx])
    sigma[idx] += move if gap > 0 else -move
    return np.clip(sigma, 0.0, c2, out=sigma)


def mean_kernel_start(h, total, c2):
    """The engine's default start, largest ``h = K_UP 1`` first at ``sigma = c2``."""
    return repair_sum(np.zeros(h.size), h, total, c2)


def ocsvm_start(X, problem: PUProblem, kernel, gamma, degree, coef0):
    """The paper's section 4.5: rank U by a one-class SVM trained on P, then fill the states
    5, 4, 3, 2, 1 from the top with group sizes from its eq. 18."""
    pos, unl, prior, c2 = problem.pos, problem.unl, problem.prior, problem.c2
    n = unl.size
    cap = default_max_iter(pos.size)  # LIBSVM's own default in sklearn is no cap at all
    if kernel == "precomputed":
        oc = OneClassSVM(kernel="precomputed", max_iter=cap).fit(X[np.ix_(pos, pos)])
        score = oc.decision_function(X[np.ix_(unl, pos)])
    else:
        oc = OneClassSVM(kernel=kernel, gamma=gamma, degree=degree, coef0=coef0, max_iter=cap).fit(
            X[pos]
        )
        score = oc.decision_function(X[unl])
    order = np.argsort(score, kind="stable")  # ascending: state 1 first
    a, b, c, s2, s4 = _eq18_groups(n, prior, problem.total, c2)
    # (clipped to n before rounding, as the sizes are below: with prior=5e-324, a = 1/prior
    # is infinite, which int() refused)
    n1 = int(round(min((1 - prior) * a * n, n)))
    n2 = max(1, int(round(b * n)))
    n4 = max(1, int(round(c * n)))
    n5 = int(round(min(prior * a * n, n)))
    n3 = max(0, n - n1 - n2 - n4 - n5)
    # a tiny prior makes a = 1/prior huge and n1 far beyond n (prior=1e-9: 7 GiB for the
    # repeat below); only the first n values are used, which the sizes clipped to n keep
    sizes = np.minimum(np.array([n1, n2, n3, n4, n5]), n)
    values = np.array([0.0, s2, c2 / 2, s4, c2])
    sigma_sorted = np.repeat(values, sizes)[:n]
    sigma_sorted = np.pad(sigma_sorted, (0, n - sigma_sorted.size), constant_values=c2)
    sigma = np.empty(n)
    sigma[order] = sigma_sorted
    return repair_sum(sigma, score, problem.total, c2)


def _eq18_groups(n, prior, total, c2):
    """The paper's eq. 18: group proportions (a, b, c) and the free values (s2, s4) whose
    states sum to ``total``, by SLSQP within the paper's bounds."""

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
    return minimize(resid, x0, bounds=bounds, constraints=cons, method="SLSQP").x


def pilot_start(est, X, data, kparams, problem: PUProblem, seed):
    """Solve the same problem (same lam and prior) loosely on a random subsample, then start
    every unlabeled point in the state that the pilot's f(x) suggests: sigma = 0, c2/2 or
    c2 for f <= -1, |f| < 1, f >= 1. Which state dominates depends on lam and the data, so
    this beats any fixed-shape start; it costs O(n * pilot size) kernel evaluations.
    Returns the start and the pilot's offset (the linear solver's first guess)."""
    pos, unl, prior, lam, c2 = problem.pos, problem.unl, problem.prior, problem.lam, problem.c2
    rng = np.random.default_rng(seed)
    sub_u = np.sort(rng.choice(unl, PILOT_SIZE, replace=False)).astype(np.int32)
    sub_p = pos
    if pos.size > PILOT_SIZE:
        sub_p = np.sort(rng.choice(pos, PILOT_SIZE, replace=False)).astype(np.int32)
    pilot_problem = PUProblem.of(sub_p, sub_u, prior, lam)
    report, t0 = _reporter(est), time.perf_counter()
    if report is not None:
        report(f"start: pilot problem on {sub_p.size:,} positives and {sub_u.size:,} unlabeled")
    pilot = _engine.solve_pu(
        data,
        **kparams,
        **pilot_problem.engine_args(),
        options=_engine.SolverOptions(1e-2, True, default_max_iter(sub_p.size + sub_u.size)),
        seed=seed,
    )
    if report is not None:
        report(f"start: pilot solved, {time.perf_counter() - t0:.2f}s")
    nz = pilot.sigma > 0
    sv = np.r_[sub_p, sub_u[nz]]
    coef = np.r_[np.full(sub_p.size, pilot_problem.c1), -pilot.sigma[nz]]
    if est.kernel == "linear":
        f = np.asarray(X @ pilot.w, dtype=np.float64).ravel()[unl]  # no copy of the rows
    elif est.kernel == "precomputed":
        f = est.kernel_dot(X, sv, coef, rows=unl)
    else:
        f = BlasProducts(est, X, kparams)(unl, sv, coef, "start: pilot's f(x)")[:, 0]
    f += pilot.beta
    sigma = np.where(f <= -1, 0.0, np.where(f >= 1, c2, c2 / 2))
    return repair_sum(sigma, f, prior / (2 * lam), c2), float(pilot.beta)


def fingerprint(X, mask, *params):
    """A digest of the training data and kernel, to tell whether a warm start applies."""
    h = hashlib.blake2b(digest_size=16)
    arrays = (X.data, X.indices, X.indptr) if sp.issparse(X) else (X,)
    for a in (*arrays, mask):
        h.update(np.ascontiguousarray(a))
    h.update(repr((X.shape, X.dtype.str, params)).encode())
    return h.hexdigest()


def warm_sigma(warm, problem: PUProblem):
    """The previous solution as a start for the new ``lam`` and ``prior``: c1 and c2 scale
    with 1/lam, so rescaling keeps sigma feasible for the new lam, and the repair (in the
    order of the previous decision values) moves the sum to the new prior."""
    prior, lam = problem.prior, problem.lam
    sigma = warm["sigma"] * (warm["lam"] / lam)
    return repair_sum(sigma, warm["f_unl"], prior / (2 * lam), problem.c2)


def warm_state(key, lam, res):
    """What a later warm start needs from the engine's result ``res`` on this problem."""
    products = res.products
    has_products = products.size > 0
    return {
        "key": key,
        "lam": lam,
        "sigma": res.sigma,
        "f_unl": res.g_unl + res.beta,
        "beta": res.beta,
        "h": res.h if has_products else None,
        "products": products.reshape(-1, 2) if has_products else None,
    }


def warm_products(warm, problem: PUProblem, sigma0, upper, blas):
    """The engine's start products for a warm start, from those of the previous solution.

    c1, c2 and sigma all scale with 1/lam, so K_UU sigma and K_UU upper scale by lam_old / lam
    and keep their states; only the points that the prior's repair moved (or whose state
    changed) need kernel work, usually none along a lam path."""
    c2, unl = problem.c2, problem.unl
    ratio = warm["lam"] / problem.lam
    _, upper_old = _engine.pu_start_weights(warm["sigma"], c2 / ratio)
    delta = np.c_[sigma0 - ratio * warm["sigma"], upper - ratio * upper_old]
    delta[np.abs(delta) <= 1e-12 * c2] = 0.0  # rounding of the rescaling, not a move
    start = ratio * warm["products"]
    moved = np.flatnonzero(delta.any(axis=1))
    if moved.size:
        start += blas(unl, unl[moved], delta[moved], "warm start: K_UU (moved points)")
    return {"h": warm["h"], "start_products": start}


def BlasProducts(est, X, kparams) -> KernelProducts:
    """K(X[rows], X[cols]) @ V for a fitted-data PUSVC: by its ``kernel_path``, float32 for
    float32 data that its kernel cache stores in float32 too."""
    path = getattr(est, "kernel_path", "auto")
    if path == "auto" and kparams["cache_float32"] and X.dtype == np.float32:
        path = "dense32"
    threads = kparams["kernel"].n_jobs
    return KernelProducts(X, est.kernel, est.kernel_params(), threads, path, _reporter(est))


def _reporter(est):
    """With ``est.verbose``: a function printing a progress line of the start under the
    estimator's name (as the engine's progress lines), else None."""
    if not getattr(est, "verbose", False):
        return None
    prefix = f"[{type(est).__name__}]"
    return lambda text: print(f"{prefix} {text}", file=sys.stderr, flush=True)


def start_products(est, X, kparams, solver, problem: PUProblem, sigma0, warm):
    """Products of the SMO solver's start computed here rather than row by row in the
    engine: from a warm start's previous ones, or through BLAS on large rbf/poly problems.
    Returns (sigma0, the engine's extra arguments, the BLAS helper or None)."""
    pos, unl, c2 = problem.pos, problem.unl, problem.c2
    blas = None
    if solver == "smo" and est.kernel in ("rbf", "poly"):
        per_entry = X.nnz / max(X.shape[0], 1) if sp.issparse(X) else X.shape[1]
        if unl.size * unl.size * per_entry >= _BLAS_MIN_WORK:
            blas = BlasProducts(est, X, kparams)
    if warm is not None:
        sigma0, upper = _engine.pu_start_weights(sigma0, c2)
        helper = blas or BlasProducts(est, X, kparams)
        return sigma0, warm_products(warm, problem, sigma0, upper, helper), blas
    if blas is None:
        return sigma0, {}, None
    h = blas(unl, pos, np.ones(pos.size), "start: h = K_UP 1")[:, 0]
    if sigma0 is None:  # the engine's default start: largest h first at sigma = c2
        sigma0 = mean_kernel_start(h, problem.total, c2)
    sigma0, upper = _engine.pu_start_weights(sigma0, c2)
    start = blas(unl, unl, np.c_[sigma0, upper], "start: K_UU [sigma0, upper]")
    return sigma0, {"h": h, "start_products": start, "positive_g": False}, blas
