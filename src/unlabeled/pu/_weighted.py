r"""PUSVC with labels not selected completely at random (``fit(X, s, propensity=e)``): the SAR
risk of Bekker, Robberechts and Davis (ECML-PKDD 2019) with the double hinge loss, on the
engine's general pair solver.

A labeled positive with propensity ``e_p = P(s=1 | y=1, x_p)`` stands for ``1 / e_p``
positives of the population; every training point, labeled or not, is a draw of the population
``p(x)``. With ``N`` points, ``pi_N`` the share of positives among them and
``a_p = pi_N (1 / e_p) / sum_q (1 / e_q)``,

.. math::

    J(f) = -\sum_{p\in P} a_p f(x_p) + \frac1N\sum_{i=1}^{N}\max\bigl(f(x_i),
           \tfrac{1+f(x_i)}{2}, 0\bigr) + \lambda\|f\|^2 ,

the PU risk of du Plessis et al. with the positives' expectation taken by inverse-propensity
weights. Its dual is that of the spec (``../shared/spec/usmo.md``) over all ``N`` points in
place of the unlabeled ones, with ``alpha_p = a_p / (2 lam)`` in place of ``c1``:
``min 1/2 sigma' K sigma - (K_:P alpha_P)' sigma + sum_i max(-sigma_i, sigma_i - c2)`` over
``0 <= sigma_i <= c2 = 1/(2 lam N)``, ``sum_i sigma_i = sum_p alpha_p``; a labeled point's
coefficient is ``alpha_p - sigma_p``. Each ``sigma_i`` is split as ``a_i + b_i`` with
``a_i, b_i`` in ``[0, c2/2]`` and costs ``-a_i + b_i`` (two variables on one point): a problem
of :func:`unlabeled._engine.solve_kernel_qp`. A constant propensity gives the unweighted
problem on the data where each labeled point is also an unlabeled one."""

from __future__ import annotations

import numpy as np

from .. import _engine
from .._products import KernelProducts
from .._solving import engine_data, resolve_max_iter, warn_not_converged
from .._threads import engine_threads
from ._base import double_hinge_offset


def _products(est, X):
    """``K(X[rows], X[cols]) @ v`` for the fitted kernel (a Gram matrix read as it is)."""
    if est.kernel == "precomputed":
        return lambda rows, cols, v: np.asarray(X[np.ix_(rows, cols)] @ v, dtype=np.float64)
    params = {"gamma": est.kernel_gamma_, "degree": int(est.degree), "coef0": float(est.coef0)}
    prod = KernelProducts(X, est.kernel, params, engine_threads(est.n_jobs))
    return lambda rows, cols, v: prod(rows, cols, np.asarray(v)[:, None])[:, 0]


def population_share(mask, prior) -> float:
    """``pi_N``: the share of positives among all points when the share among the unlabeled
    ones is ``prior`` (every labeled point is positive)."""
    return float((mask.sum() + prior * (~mask).sum()) / mask.size)


def fit_weighted(est, X, mask, prior, lam, propensity, kparams):
    """Solve the SAR problem on checked ``X`` (``propensity`` at the labeled positives, in row
    order; ``prior`` the share of positives among the unlabeled points), store the model in
    ``est`` and return the decision values at every training point."""
    pos = np.flatnonzero(mask)
    unl = np.arange(mask.size)  # the population sample: every point
    n = unl.size
    share = population_share(mask, prior)
    weights = 1.0 / propensity
    a = share * weights / weights.sum()
    alpha_p = a / (2 * lam)
    c2 = 1.0 / (2 * lam * n)
    prod = _products(est, X)
    h = prod(unl, pos, alpha_p)  # K_:P alpha_P
    rows = _engine.KernelRows(
        engine_data(X, est.kernel),
        kparams["kernel"],
        unl.astype(np.int32),
        kparams["cache_bytes"],
    )
    sigma0 = np.full(n, alpha_p.sum() / n)  # = share c2: feasible
    half = c2 / 2
    start = np.r_[np.minimum(sigma0, half), np.maximum(sigma0 - half, 0.0)]
    cap = resolve_max_iter(est.max_iter, 2 * n)
    res = _engine.solve_kernel_qp(
        rows,
        np.r_[np.arange(n), np.arange(n)].astype(np.int64),
        np.r_[-h - 1.0, -h + 1.0],
        np.full(2 * n, half),
        start,
        options=_engine.SolverOptions(float(est.tol), bool(est.shrinking), cap),
    )
    if not res.converged:
        warn_not_converged(
            "PUSVC",
            limit=cap,
            used=res.n_iter,
            unit="iterations",
            stacklevel=2,
            detail=f". KKT violation {res.violation:.3g} > tol={est.tol}.",
            default_cap=est.max_iter is None,
        )
    sigma = res.alpha[:n] + res.alpha[n:]
    g_unl = -(res.G[:n] + 1.0)  # G = K sigma - h - 1 on the a part
    g_pos = g_unl[pos]
    beta = double_hinge_offset(g_pos, g_unl, share)
    alpha = -sigma
    alpha[pos] += alpha_p
    est.set_expansion(X, alpha, beta)
    f_pos, f_unl = g_pos + beta, g_unl + beta
    norm2 = alpha_p @ g_pos - sigma @ g_unl  # alpha' K alpha
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
