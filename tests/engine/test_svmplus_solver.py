"""The SVM+ aSMO solver (solve_svmplus) on problems with many free variables: shrinking on
and off reach the same optimum, and the result's KKT conditions hold when checked from dense
kernels computed here (sklearn), not from the engine's own F and f."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics.pairwise import rbf_kernel

from unlabeled import _engine
from unlabeled._engine import KernelSpec, SolverOptions


def overlapping(seed, n):
    """Two heavily overlapping classes: hundreds of free alphas at the optimum."""
    rng = np.random.default_rng(seed)
    y = np.where(rng.random(n) < 0.5, 1, -1).astype(np.int8)
    X = 0.4 * y[:, None] + rng.normal(size=(n, 3))
    Xs = np.c_[X[:, :1] + 0.3 * rng.normal(size=n), rng.normal(size=n)]
    return np.ascontiguousarray(X), y, np.ascontiguousarray(Xs)


def solve(X, y, Xs, C, gamma_plus, shrinking, tol=1e-6):
    return _engine.solve_svmplus(
        _engine.Data.dense(X),
        _engine.Data.dense(Xs),
        y,
        kernel=KernelSpec(2, gamma=0.5),
        kernel_star=KernelSpec(2, gamma=0.5),
        C=C,
        gamma_plus=gamma_plus,
        options=SolverOptions(tol, shrinking, -1),
    )


@pytest.mark.parametrize("C, gamma_plus", [(1.0, 1.0), (10.0, 0.1)])
def test_kkt_from_dense_kernels_with_and_without_shrinking(C, gamma_plus):
    X, y, Xs = overlapping(0, 300)
    K, Ks = rbf_kernel(X, gamma=0.5), rbf_kernel(Xs, gamma=0.5)
    results = {s: solve(X, y, Xs, C, gamma_plus, s) for s in (False, True)}
    for r in results.values():
        a, b = np.asarray(r.alpha), np.asarray(r.beta)
        assert r.converged and (a >= 0).all() and (b >= 0).all()
        assert abs(y @ a) <= 1e-9 * a.sum() and abs((a + b - C).sum()) <= 1e-9 * C * y.size
        delta = a + b - C
        G = 1 - y * (K @ (y * a)) - Ks @ delta / gamma_plus
        s = -(Ks @ delta) / gamma_plus
        free = a > 0
        assert free.sum() > 100  # many free variables: Newton steps on large free sets
        tol = 1e-5  # a few times the solver's tol of 1e-6 (the polish goes below it)
        level = y * r.b + r.d  # G_i <= y_i b + d, = where alpha_i > 0
        assert np.abs(G[free] - level[free]).max() <= tol
        assert (G - level).max() <= tol
        assert (s - r.d).max() <= tol and np.abs(s[b > 0] - r.d).max() <= tol
        # the objective from the dense kernels
        D = a.sum() - 0.5 * (y * a) @ K @ (y * a) - 0.5 / gamma_plus * delta @ Ks @ delta
        assert r.objective == pytest.approx(D, rel=1e-9)
    off, on = results[False], results[True]
    assert on.objective == pytest.approx(off.objective, rel=1e-10)
