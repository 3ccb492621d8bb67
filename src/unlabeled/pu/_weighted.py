r"""PUSVC with weighted labeled positives (``fit(X, s, propensity=...)``): the double-hinge
dual with one coefficient per positive, on the engine's general pair solver.

With weights ``a_p >= 0`` summing to ``pi`` over the labeled positives (``pi w_p / sum w``),

.. math::

    J(f) = -\sum_{p\in P} a_p f(x_p) + \frac1n\sum_{u\in U}\max\bigl(f(x_u), \tfrac{1+f(x_u)}{2},
           0\bigr) + \lambda\|f\|^2 ,

whose dual is that of the spec (``../shared/spec/usmo.md``) with ``alpha_p = a_p / (2 lam)`` in
place of ``c1``: ``min 1/2 sigma' K_UU sigma - (K_UP alpha_P)' sigma + sum_u max(-sigma_u,
sigma_u - c2)`` over ``0 <= sigma_u <= c2 = 1/(2 lam n)``, ``sum_u sigma_u = sum_p alpha_p``.
Each ``sigma_u`` is split as ``a_u + b_u`` with ``a_u, b_u`` in ``[0, c2/2]`` and costs
``-a_u + b_u`` (two variables on one point): a problem of :func:`unlabeled._engine.
solve_kernel_qp`. Equal weights give the unweighted problem (``alpha_p = c1``)."""

from __future__ import annotations

import numpy as np

from .. import _engine
from .._products import KernelProducts
from .._solving import engine_data
from .._threads import engine_threads
from ._base import double_hinge_offset


def _products(est, X):
    """``K(X[rows], X[cols]) @ v`` for the fitted kernel (a Gram matrix read as it is)."""
    if est.kernel == "precomputed":
        return lambda rows, cols, v: np.asarray(X[np.ix_(rows, cols)] @ v, dtype=np.float64)
    params = {"gamma": est._gamma, "degree": int(est.degree), "coef0": float(est.coef0)}
    prod = KernelProducts(X, est.kernel, params, engine_threads(est.n_jobs))
    return lambda rows, cols, v: prod(rows, cols, np.asarray(v)[:, None])[:, 0]


def fit_weighted(est, X, mask, prior, lam, weights, kparams):
    """Solve the weighted problem on checked ``X`` (``weights`` at the labeled positives, in
    row order), store the model in ``est`` and return the decision values at the unlabeled
    points."""
    pos = np.flatnonzero(mask)
    unl = np.flatnonzero(~mask)
    n = unl.size
    a = prior * weights / weights.sum()
    alpha_p = a / (2 * lam)
    c2 = 1.0 / (2 * lam * n)
    prod = _products(est, X)
    h = prod(unl, pos, alpha_p)  # K_UP alpha_P
    rows = _engine.KernelRows(
        engine_data(X, est.kernel), kparams["kernel"], unl.astype(np.int32),
        kparams["cache_bytes"],
    )  # fmt: skip
    sigma0 = np.full(n, alpha_p.sum() / n)  # = prior c2: feasible
    half = c2 / 2
    start = np.r_[np.minimum(sigma0, half), np.maximum(sigma0 - half, 0.0)]
    cap = est._max_iter(2 * n)
    res = _engine.solve_kernel_qp(
        rows, np.r_[np.arange(n), np.arange(n)].astype(np.int64), np.r_[-h - 1.0, -h + 1.0],
        np.full(2 * n, half), start,
        options=_engine.SolverOptions(float(est.tol), bool(est.shrinking), cap),
    )  # fmt: skip
    est._warn_if_not_converged(res, "PUSVC", limit=cap)
    sigma = res.alpha[:n] + res.alpha[n:]
    g_unl = -(res.G[:n] + 1.0)  # G = K_UU sigma - h - 1 on the a part
    g_pos = prod(pos, np.r_[pos, unl], np.r_[alpha_p, -sigma])
    beta = double_hinge_offset(g_pos, g_unl, prior)
    alpha = np.empty(X.shape[0])
    alpha[pos], alpha[unl] = alpha_p, -sigma
    est._set_expansion(X, alpha, beta)
    f_pos, f_unl = g_pos + beta, g_unl + beta
    norm2 = alpha_p @ g_pos - sigma @ g_unl
    loss_u = np.maximum(np.maximum(f_unl, (1 + f_unl) / 2), 0).mean()
    est.objective_ = float(-a @ f_pos + loss_u + lam * norm2)
    est.n_iter_ = int(res.n_iter)
    est.prior_ = float(prior)
    stats = rows.stats()
    est.cache_stats_ = {
        "hits": int(stats["hits"]),
        "misses": int(stats["misses"]),
        "bytes": int(stats["bytes"]),
        "kernel_rows": int(res.kernel_rows),
        "kernel_path": None,
    }
    return f_unl
