"""Independent references. For PUSVC: the primal of the spec solved by cvxpy + Clarabel, and
the primal objective evaluated from any (alpha, beta) with a dense Gram matrix. For the Plummer
autoencoder: the Plummer kernel and the unbiased MMD by direct double loops in NumPy."""

from __future__ import annotations

import numpy as np
from sklearn.metrics.pairwise import linear_kernel, rbf_kernel

from unlabeled import PUSVC


def gram(X, kernel, gamma):
    X = np.asarray(X, dtype=np.float64)
    return linear_kernel(X) if kernel == "linear" else rbf_kernel(X, gamma=gamma)


def primal_objective(K, mask, alpha, beta, prior, lam):
    """J(f) = -(pi/p) sum_P f + (1/n) sum_U max(f, (1+f)/2, 0) + lam alpha'K alpha."""
    f = K @ alpha + beta
    fp, fu = f[mask], f[~mask]
    return float(
        -prior * fp.mean()
        + np.maximum(np.maximum(fu, (1 + fu) / 2), 0).mean()
        + lam * alpha @ K @ alpha
    )


def assert_dual_structure(alpha, s, prior, lam):
    """The spec's dual structure: alpha = c1 on P, alpha = -sigma on U with 0 <= sigma <= c2
    and sum(sigma) = c1 p."""
    p, n = (s == 1).sum(), (s == 0).sum()
    c1, c2 = prior / (2 * lam * p), 1 / (2 * lam * n)
    np.testing.assert_allclose(alpha[s == 1], c1)
    sigma = -alpha[s == 0]
    assert sigma.min() >= 0 and sigma.max() <= c2 * (1 + 1e-12)
    assert abs(sigma.sum() - c1 * p) <= 1e-9 * c1 * p


def psd_factor(K):
    """V with V V' = K (K psd, its eigenvalues below 1e-12 of the largest dropped), for
    cvxpy's sum_squares."""
    ev, Q = np.linalg.eigh((K + K.T) / 2)
    keep = ev > 1e-12 * max(ev.max(), 1e-300)
    return Q[:, keep] * np.sqrt(ev[keep])


def _factor(X, kernel, gamma):
    """V with K = V V' (features for the linear kernel, a clipped eigen-factor otherwise)."""
    if kernel == "linear":
        return np.asarray(X, dtype=np.float64)
    return psd_factor(gram(X, kernel, gamma))


def svm_dual_cvxpy(K, y, C, offset):
    """max 1'a - 1/2 (a y)'K(a y) over 0 <= a <= C (and y'a = 0 with an offset), Clarabel."""
    import cvxpy as cp

    V = psd_factor(K)
    a = cp.Variable(len(y))
    cons = [a >= 0, a <= C] + ([y @ a == 0] if offset else [])
    obj = cp.Maximize(cp.sum(a) - 0.5 * cp.sum_squares(V.T @ cp.multiply(y, a)))
    problem = cp.Problem(obj, cons)
    problem.solve(solver="CLARABEL", tol_gap_abs=1e-10, tol_gap_rel=1e-10, tol_feas=1e-10)
    assert problem.status == "optimal", problem.status
    return float(problem.value)


def solve_primal(X, mask, prior, lam, kernel="rbf", gamma=0.5):
    """J* = min over f = <w, phi(x)> + b of the spec's primal, by Clarabel at tight tolerances."""
    import cvxpy as cp

    V = _factor(X, kernel, gamma)
    Vp, Vu = V[mask], V[~mask]
    w, b = cp.Variable(V.shape[1]), cp.Variable()
    xi = cp.Variable(Vu.shape[0])
    fu = Vu @ w + b
    obj = -prior * cp.sum(Vp @ w + b) / Vp.shape[0] + cp.sum(xi) / Vu.shape[0]
    obj = obj + lam * cp.sum_squares(w)
    problem = cp.Problem(cp.Minimize(obj), [xi >= 0, xi >= fu, xi >= (1 + fu) / 2])
    problem.solve(
        solver="CLARABEL", tol_gap_abs=1e-11, tol_gap_rel=1e-11, tol_feas=1e-11, max_iter=500
    )
    assert problem.status == "optimal", problem.status
    return float(problem.value)


def check_against(J_star, X, s, prior, lam, kernel, gamma, solver):
    """PUSVC at tol=1e-3 and 1e-8 against the optimum ``J_star``: J recomputed from the fitted
    expansion within 1e-3 and 1e-6 relative (never below J_star), objective_ equal to it, and
    the dual structure of the spec."""
    K = gram(X, kernel, gamma)
    scale = max(1.0, abs(J_star))
    for tol, bound in [(1e-3, 1e-3), (1e-8, 1e-6)]:
        clf = PUSVC(prior=prior, lam=lam, kernel=kernel, gamma=gamma, solver=solver, tol=tol)
        clf.fit(X, s)
        alpha = np.zeros(len(s))
        alpha[clf.support_] = clf.dual_coef_[0]
        # the solver's offset: the threshold rule moved intercept_ by threshold_
        J = primal_objective(K, s == 1, alpha, clf.intercept_[0] + clf.threshold_, prior, lam)
        assert J - J_star <= bound * scale, (tol, J, J_star)
        assert J - J_star >= -1e-7 * scale, "below the optimum: the reference is inaccurate"
        assert abs(clf.objective_ - J) <= 1e-9 * scale
        assert_dual_structure(alpha, s, prior, lam)


# ---------------------------------------------------------------------------- Plummer kernel
EPS = 1e-4  # the kernel's default softening


def np_kernel(a, b, eps=EPS, beta=1.0):
    return np.array([[(np.sum((x - y) ** 2) + eps) ** (-beta / 2) for y in b] for x in a])


def np_mmd2_u(z, q, eps=EPS, beta=1.0):
    """Gretton's U-statistic by a direct double loop."""
    n, s = len(z), 0.0
    for i in range(n):
        for j in range(n):
            if i != j:
                s += sum(
                    (np.sum((u - v) ** 2) + eps) ** (-beta / 2) * w
                    for u, v, w in ((z[i], z[j], 1), (z[i], q[j], -2), (q[i], q[j], 1))
                )
    return s / (n * (n - 1))
