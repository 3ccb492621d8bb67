"""The engine's solver contract, checked directly against cvxpy + Clarabel.

Every problem here is solved twice: by the engine (typed data, kernel, options; a kernel-row
cache) and by a generic conic solver on the same QP written out densely. The optimal values
must agree, and the engine's returned gradient must equal Q alpha + p computed independently.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.metrics.pairwise import linear_kernel, polynomial_kernel, rbf_kernel

from unlabeled import _engine
from unlabeled._engine import KernelRows, KernelSpec, SolverOptions, as_data

solve_kernel_qp, solve_linear_dual = _engine.solve_kernel_qp, _engine.solve_linear_dual

cp = pytest.importorskip("cvxpy")

KINDS = {"linear": 0, "poly": 1, "rbf": 2}


def gram(X, kernel, gamma=0.5, degree=2, coef0=1.0):
    if kernel == "linear":
        return linear_kernel(X)
    if kernel == "poly":
        return polynomial_kernel(X, degree=degree, gamma=gamma, coef0=coef0)
    return rbf_kernel(X, gamma=gamma)


def reference(Q, p, C, y=None, total=None):
    """min 1/2 a'Qa + p'a over 0 <= a <= C (and y'a = total), by Clarabel."""
    ev, U = np.linalg.eigh((Q + Q.T) / 2)
    keep = ev > 1e-12 * max(ev.max(), 1e-300)
    V = U[:, keep] * np.sqrt(ev[keep])
    a = cp.Variable(len(p))
    cons = [a >= 0, a <= C]
    if y is not None:
        cons.append(y @ a == total)
    prob = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(V.T @ a) + p @ a), cons)
    prob.solve(solver="CLARABEL", tol_gap_abs=1e-12, tol_gap_rel=1e-12, tol_feas=1e-12)
    assert prob.status == "optimal", prob.status
    return float(prob.value)


def objective(Q, p, a):
    return float(0.5 * a @ Q @ a + p @ a)


def random_problem(rng, n_points=14, shared=True, kernel="rbf"):
    X = rng.normal(size=(n_points, 3))
    var_point = np.arange(n_points)
    if shared:  # some points carry two variables (as the PU split and epsilon-SVR)
        var_point = np.r_[var_point, rng.choice(n_points, n_points // 2, replace=False)]
    var_point = var_point.astype(np.int64)
    K = gram(X, kernel)[np.ix_(var_point, var_point)]
    n_var = len(var_point)
    p = rng.normal(size=n_var)
    C = rng.uniform(0.2, 2.0, size=n_var)
    return X, var_point, K, p, C


def engine_rows(X, kernel, float32=False, cache_bytes=1e6, sparse=False):
    spec = KernelSpec(KINDS[kernel], gamma=0.5, coef0=1.0, degree=2)
    data = as_data(sp.csr_matrix(X) if sparse else X)
    return KernelRows(data, spec, np.arange(X.shape[0], dtype=np.int32), cache_bytes, float32)


def check_solution(res, Q, p, C, ref, tol_obj=1e-6):
    a = res.alpha
    assert np.all(a >= 0) and np.all(a <= C)
    np.testing.assert_allclose(res.G, Q @ a + p, atol=1e-9)
    assert res.converged
    assert objective(Q, p, a) <= ref + tol_obj * max(1.0, abs(ref))
    np.testing.assert_allclose(res.objective, objective(Q, p, a), atol=1e-9)


@pytest.mark.parametrize("kernel", ["rbf", "linear", "poly"])
@pytest.mark.parametrize("shrinking", [True, False])
@pytest.mark.parametrize("seed", [0, 1])
def test_signed_qp_with_equality(kernel, shrinking, seed):
    rng = np.random.default_rng(seed)
    X, vp, K, p, C = random_problem(rng, kernel=kernel)
    y = rng.choice([-1, 1], size=len(vp)).astype(np.int8)
    a0 = np.zeros(len(vp))
    a0[0] = min(C[0], 0.5)
    Q = K * np.outer(y, y)
    ref = reference(Q, p, C, y.astype(float), float(y @ a0))
    res = solve_kernel_qp(
        engine_rows(X, kernel), vp, p, C, a0, y=y, options=SolverOptions(1e-8, shrinking)
    )
    check_solution(res, Q, p, C, ref)
    assert abs(y @ res.alpha - y @ a0) <= 1e-10
    # the offset: free variables satisfy y_t G_t = rho
    free = (res.alpha > 1e-9) & (res.alpha < C - 1e-9)
    if free.any():
        np.testing.assert_allclose((y * res.G)[free], res.rho, atol=1e-6)


@pytest.mark.parametrize("kernel", ["rbf", "linear", "poly"])
@pytest.mark.parametrize("shrinking", [True, False])
@pytest.mark.parametrize("seed", [0, 1])
def test_box_qp_without_equality(kernel, shrinking, seed):
    rng = np.random.default_rng(10 + seed)
    X, vp, K, p, C = random_problem(rng, kernel=kernel)
    y = rng.choice([-1, 1], size=len(vp)).astype(np.int8)
    Q = K * np.outer(y, y)
    ref = reference(Q, p, C)
    res = solve_kernel_qp(
        engine_rows(X, kernel),
        vp,
        p,
        C,
        np.zeros(len(vp)),
        y=y,
        equality=False,
        options=SolverOptions(1e-8, shrinking),
    )
    check_solution(res, Q, p, C, ref)
    assert res.rho == 0.0
    # projected gradient vanishes at the optimum of a box QP
    a, G = res.alpha, res.G
    pg = np.where(a <= 0, np.minimum(G, 0), np.where(a >= C, np.maximum(G, 0), G))
    assert np.abs(pg).max() <= 1e-8


@pytest.mark.parametrize("equality", [True, False])
@pytest.mark.parametrize("float32", [False, True])
def test_label_mixed_q(equality, float32):
    """Q = K .* sum_k mu_k y_k y_k' (WellSVM's multiple-kernel step) on one kernel row."""
    rng = np.random.default_rng(3)
    X, vp, K, p, C = random_problem(rng, n_points=16, shared=False)
    m = 4
    labels = rng.choice([-1, 1], size=(len(vp), m)).astype(np.int8)
    mu = rng.dirichlet(np.ones(m))
    mix = sum(mu[k] * np.outer(labels[:, k], labels[:, k]) for k in range(m))
    Q = K * mix
    if float32:  # the cache stores rows in float32: the QP solved is Q rounded to float32
        Kf = gram(X, "rbf").astype(np.float32).astype(np.float64)
        np.fill_diagonal(Kf, np.diag(gram(X, "rbf")))  # the diagonal is kept in double
        Q = Kf[np.ix_(vp, vp)] * mix
    ones = np.ones(len(vp))
    a0 = np.zeros(len(vp))
    ref = reference(Q, p, C, ones if equality else None, 0.0) if equality else reference(Q, p, C)
    res = solve_kernel_qp(
        engine_rows(X, "rbf", float32=float32),
        vp,
        p,
        C,
        a0,
        labels=labels,
        mu=mu,
        equality=equality,
        options=SolverOptions(1e-8),
    )
    np.testing.assert_allclose(res.G, Q @ res.alpha + p, atol=1e-6 if float32 else 1e-9)
    assert objective(Q, p, res.alpha) <= ref + 1e-6 * max(1.0, abs(ref))


@pytest.mark.parametrize("equality", [True, False])
@pytest.mark.parametrize("shrinking", [True, False])
def test_label_mixed_rows_are_numpys_bit_for_bit(equality, shrinking):
    """The label-mixed rows (summed over the labels in vectors) are the values of NumPy's
    elementwise sum in the labels' order times K, to the bit: a solve on them and a solve on
    that matrix as a precomputed kernel make the same choices and the same model."""
    rng = np.random.default_rng(11)
    n, m = 203, 9  # lengths that leave a remainder in every vector width and 16-blocks
    X = rng.normal(size=(n, 4))
    K = gram(X, "rbf")
    labels = rng.choice([-1, 1], size=(n, m)).astype(np.int8)
    mu = rng.dirichlet(np.ones(m))
    mu[3] = 0.0
    mix = np.zeros((n, n))
    for k in range(m):
        mix = mix + np.outer(mu[k] * labels[:, k], labels[:, k])
    vp, p, C, a0 = np.arange(n), -np.ones(n), np.full(n, 3.0), np.zeros(n)
    opts = SolverOptions(1e-6, shrinking)

    def rows(M):
        return KernelRows(as_data(M), KernelSpec(3), np.arange(n, dtype=np.int32), 1e7)

    mixed = solve_kernel_qp(
        rows(K), vp, p, C, a0, labels=labels, mu=mu, equality=equality, options=opts
    )
    plain = solve_kernel_qp(
        rows(mix * K), vp, p, C, a0, y=np.ones(n, np.int8), equality=equality, options=opts
    )
    assert mixed.converged and mixed.n_iter == plain.n_iter
    assert mixed.alpha.tobytes() == plain.alpha.tobytes()
    assert mixed.G.tobytes() == plain.G.tobytes()


def test_one_label_vector_equals_signed_q():
    rng = np.random.default_rng(4)
    X, vp, K, p, C = random_problem(rng, shared=False)
    y = rng.choice([-1, 1], size=len(vp)).astype(np.int8)
    a0 = np.zeros(len(vp))
    signed = solve_kernel_qp(
        engine_rows(X, "rbf"), vp, p, C, a0, y=y, equality=False, options=SolverOptions(1e-10)
    )
    mixed = solve_kernel_qp(
        engine_rows(X, "rbf"),
        vp,
        p,
        C,
        a0,
        labels=y[:, None].copy(),
        mu=np.ones(1),
        equality=False,
        options=SolverOptions(1e-10),
    )
    np.testing.assert_allclose(mixed.alpha, signed.alpha, atol=1e-9)


def test_cache_reused_across_solves_gives_the_same_optimum():
    """A KernelRows object outlives a solve: later solves (other weights, a warm start) reuse
    its rows, compute fewer, and reach the optimum of a fresh cache."""
    rng = np.random.default_rng(5)
    X, vp, K, p, C = random_problem(rng, n_points=30, shared=False)
    labels = rng.choice([-1, 1], size=(len(vp), 2)).astype(np.int8)
    rows = engine_rows(X, "rbf")
    first = solve_kernel_qp(
        rows, vp, p, C, np.zeros(len(vp)), labels=labels, mu=np.array([0.5, 0.5]), equality=False
    )
    mu = np.array([0.2, 0.8])
    warm = solve_kernel_qp(
        rows,
        vp,
        p,
        C,
        first.alpha,
        labels=labels,
        mu=mu,
        equality=False,
        options=SolverOptions(1e-9),
    )
    cold = solve_kernel_qp(
        engine_rows(X, "rbf"),
        vp,
        p,
        C,
        np.zeros(len(vp)),
        labels=labels,
        mu=mu,
        equality=False,
        options=SolverOptions(1e-9),
    )
    Q = K * sum(mu[k] * np.outer(labels[:, k], labels[:, k]) for k in range(2))
    assert abs(objective(Q, p, warm.alpha) - objective(Q, p, cold.alpha)) <= 1e-8
    assert warm.kernel_rows < cold.kernel_rows
    assert rows.stats()["hits"] > 0


def test_sparse_and_dense_data_agree():
    rng = np.random.default_rng(6)
    X, vp, K, p, C = random_problem(rng, shared=False)
    X[np.abs(X) < 0.7] = 0.0
    y = rng.choice([-1, 1], size=len(vp)).astype(np.int8)
    a0 = np.zeros(len(vp))
    out = [
        solve_kernel_qp(
            engine_rows(X, "rbf", sparse=s), vp, p, C, a0, y=y, options=SolverOptions(1e-10)
        ).alpha
        for s in (False, True)
    ]
    np.testing.assert_allclose(out[0], out[1], atol=1e-9)


def test_as_data_canonicalises_sparse_input_on_a_copy():
    """Duplicate entries are summed (as scipy reads them) and unsorted indices sorted, on a
    copy: the caller's matrix is unchanged and the engine's kernel equals the dense one."""
    X = sp.csr_matrix(
        (np.array([1.0, 2.0, 0.5, 3.0]), np.array([2, 0, 2, 1]), np.array([0, 3, 4])),
        shape=(2, 3),
    )
    before = (X.data.copy(), X.indices.copy(), X.indptr.copy())
    data = as_data(X)
    for a, b in zip(before, (X.data, X.indices, X.indptr), strict=True):
        np.testing.assert_array_equal(a, b)
    rows = KernelRows(data, KernelSpec(0), np.arange(2, dtype=np.int32))
    res = solve_kernel_qp(
        rows,
        np.arange(2),
        np.array([-1.0, -1.0]),
        np.ones(2),
        np.zeros(2),
        equality=False,
        options=SolverOptions(1e-12),
    )
    K = X.toarray() @ X.toarray().T
    np.testing.assert_allclose(res.G, K @ res.alpha - 1.0, atol=1e-12)


def test_engine_refuses_malformed_input():
    from unlabeled._engine import Data

    with pytest.raises(ValueError, match="sorted and unique"):
        Data.csr(np.ones(2), np.array([1, 0], np.int32), np.array([0, 2], np.int64), 3)
    with pytest.raises(ValueError, match="out of range"):
        Data.csr(np.ones(1), np.array([7], np.int32), np.array([0, 1], np.int64), 3)
    X = np.eye(3)
    rows = engine_rows(X, "rbf")
    vp, p, C = np.arange(3), np.zeros(3), np.ones(3)
    with pytest.raises(ValueError, match="alpha0"):
        solve_kernel_qp(rows, vp, p, C, np.full(3, 2.0))
    with pytest.raises(ValueError, match="C must be positive"):
        solve_kernel_qp(rows, vp, p, np.zeros(3), np.zeros(3))
    with pytest.raises(ValueError, match="labels must have shape"):
        solve_kernel_qp(rows, vp, p, C, np.zeros(3), labels=np.ones((2, 1), np.int8), mu=np.ones(1))
    with pytest.raises(IndexError, match="var_point"):
        solve_kernel_qp(rows, np.array([0, 1, 5]), p, C, np.zeros(3))
    with pytest.raises(ValueError, match="kernel kind"):
        KernelSpec(7)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**31 - 1),
    n=st.integers(1, 9),
    kernel=st.sampled_from(["rbf", "linear", "poly"]),
    equality=st.booleans(),
    shrinking=st.booleans(),
    mixed=st.booleans(),
)
def test_random_small_problems(seed, n, kernel, equality, shrinking, mixed):
    """A battery of tiny problems, duplicates and degenerate kernels included."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    if n > 2 and rng.random() < 0.3:
        X[1] = X[0]  # duplicate points: eta = 0 along their pair
    vp = np.r_[np.arange(n), rng.integers(0, n, size=rng.integers(0, n + 1))].astype(np.int64)
    n_var = len(vp)
    K = gram(X, kernel)[np.ix_(vp, vp)]
    p = rng.normal(size=n_var)
    C = rng.uniform(0.1, 3.0, size=n_var)
    a0 = rng.uniform(0, 1, size=n_var) * C
    if mixed:
        m = int(rng.integers(1, 4))
        labels = rng.choice([-1, 1], size=(n_var, m)).astype(np.int8)
        mu = rng.dirichlet(np.ones(m))
        Q = K * sum(mu[k] * np.outer(labels[:, k], labels[:, k]) for k in range(m))
        kw, ysolve = {"labels": labels, "mu": mu}, np.ones(n_var)
    else:
        y = rng.choice([-1, 1], size=n_var).astype(np.int8)
        Q = K * np.outer(y, y)
        kw, ysolve = {"y": y}, y.astype(float)
    ref = reference(Q, p, C, ysolve, float(ysolve @ a0)) if equality else reference(Q, p, C)
    res = solve_kernel_qp(
        engine_rows(X, kernel),
        vp,
        p,
        C,
        a0,
        equality=equality,
        options=SolverOptions(1e-9, shrinking),
        **kw,
    )
    assert np.all(res.alpha >= 0) and np.all(res.alpha <= C)
    np.testing.assert_allclose(res.G, Q @ res.alpha + p, atol=1e-8)
    assert objective(Q, p, res.alpha) <= ref + 1e-6 * max(1.0, abs(ref))
    if equality:
        assert abs(ysolve @ res.alpha - ysolve @ a0) <= 1e-9 * max(1.0, C.sum())


# --------------------------------------------------------------------------- linear dual
def linear_problem(rng, n_rows=12, d=4, m=1, shared=True, sparse=False):
    X = rng.normal(size=(n_rows, d))
    if sparse:
        X[np.abs(X) < 0.6] = 0.0
    row = np.arange(n_rows)
    if shared:  # two adjacent variables on some rows (the PU split)
        row = np.sort(np.r_[row, rng.choice(n_rows, n_rows // 2, replace=False)])
    row = row.astype(np.int32)
    n_var = len(row)
    signs = rng.choice([-1, 1], size=(n_var, m)).astype(np.int8)
    mu = rng.dirichlet(np.ones(m)) if m > 1 else None
    w0 = rng.normal(size=(m, d)) * 0.3
    p = rng.normal(size=n_var)
    C = rng.uniform(0.2, 2.0, size=n_var)
    mus = mu if mu is not None else np.ones(1)
    Xr = X[row]
    Q = sum(mus[k] * np.outer(signs[:, k], signs[:, k]) for k in range(m)) * (Xr @ Xr.T)
    q = p + sum(mus[k] * signs[:, k] * (Xr @ w0[k]) for k in range(m))
    return X, row, signs, mu, w0, p, C, Q, q


def check_linear(res, Q, q, C, ref):
    a = res.alpha
    assert res.converged and np.all(a >= 0) and np.all(a <= C)
    assert objective(Q, q, a) <= ref + 1e-7 * max(1.0, abs(ref))
    return a


@pytest.mark.parametrize("m", [1, 3, 8])
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("shrinking", [True, False])
def test_linear_dual_box(m, sparse, shrinking):
    """Coordinate descent without the equality constraint (LIBLINEAR's dual) and one w per
    label vector (for m > 1 kept as a majority vector and per-label corrections), against the
    same QP written out densely."""
    rng = np.random.default_rng(20 + m)
    X, row, signs, mu, w0, p, C, Q, q = linear_problem(rng, m=m, sparse=sparse)
    shift = 0.3
    qs = q - shift  # y = +1: the shift moves every linear term
    ref = reference(Q, qs, C)
    data = as_data(sp.csr_matrix(X) if sparse else X)
    res = solve_linear_dual(
        data,
        row,
        p,
        C,
        np.zeros(len(row)),
        signs,
        mu=mu,
        w0=w0,
        shift=shift,
        options=SolverOptions(1e-10, shrinking),
    )
    a = check_linear(res, Q, qs, C, ref)
    for k in range(m):  # the kept w_k equal w0_k + sum_t s_tk a_t x_row(t)
        np.testing.assert_allclose(res.w[k], w0[k] + (signs[:, k] * a) @ X[row], atol=1e-10)


@pytest.mark.parametrize("shrinking", [True, False])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_linear_dual_with_equality(shrinking, seed):
    rng = np.random.default_rng(30 + seed)
    m = 1 + 2 * seed  # one w, and label-mixed duals
    X, row, signs, mu, w0, p, C, Q, q = linear_problem(rng, n_rows=40, d=3, m=m)
    y = rng.choice([-1, 1], size=len(row)).astype(np.int8)
    a0 = rng.uniform(0, 1, size=len(row)) * C
    ref = reference(Q, q, C, y.astype(float), float(y @ a0))
    res = solve_linear_dual(
        as_data(X),
        row,
        p,
        C,
        a0,
        signs,
        y=y,
        w0=w0,
        mu=mu,
        equality=True,
        options=SolverOptions(1e-10, shrinking),
    )
    a = check_linear(res, Q, q, C, ref)
    assert abs(y @ a - y @ a0) <= 1e-10 * C.sum()


def kinked_objective(Q, q, a, kink, jump):
    return 0.5 * a @ Q @ a + q @ a + jump @ np.maximum(a - kink, 0.0)


@pytest.mark.parametrize("equality", [False, True])
@pytest.mark.parametrize("shrinking", [True, False])
@pytest.mark.parametrize("seed", [0, 1])
def test_linear_dual_kinked_cost(equality, shrinking, seed):
    """A convex piecewise-linear cost with one kink per variable (slope p_t, then p_t + jump_t:
    the double hinge of PU learning as one variable), against Clarabel on the same problem
    with the cost written as max(p a, (p + jump) a - jump kink)."""
    rng = np.random.default_rng(50 + seed)
    X, row, signs, mu, w0, p, C, Q, q = linear_problem(rng, n_rows=30, d=3, shared=False)
    kink = C * rng.uniform(0.0, 1.0, size=len(row))
    kink[:3] = [0.0, C[1], C[2] / 2]  # a kink at each end and at the middle
    jump = rng.uniform(0.0, 3.0, size=len(row))
    y = rng.choice([-1, 1], size=len(row)).astype(np.int8) if equality else None
    a0 = rng.uniform(0, 1, size=len(row)) * C if equality else np.zeros(len(row))
    ev, U = np.linalg.eigh(Q)
    V = U * np.sqrt(np.maximum(ev, 0.0))
    a = cp.Variable(len(row))
    cons = [a >= 0, a <= C] + ([y.astype(float) @ a == float(y @ a0)] if equality else [])
    cost = 0.5 * cp.sum_squares(V.T @ a) + q @ a + jump @ cp.pos(a - kink)
    ref = cp.Problem(cp.Minimize(cost), cons)
    ref.solve(solver=cp.CLARABEL, tol_gap_abs=1e-12, tol_gap_rel=1e-12, tol_feas=1e-12)
    opts = SolverOptions(1e-10, shrinking)
    res = solve_linear_dual(
        as_data(X),
        row,
        p,
        C,
        a0,
        signs,
        y=y,
        w0=w0,
        equality=equality,
        options=opts,
        kink=kink,
        jump=jump,
    )
    x = res.alpha
    assert res.converged and np.all(x >= 0) and np.all(x <= C)
    assert kinked_objective(Q, q, x, kink, jump) <= ref.value + 1e-7 * max(1.0, abs(ref.value))
    if equality:
        assert abs(y @ x - y @ a0) <= 1e-10 * C.sum()
    np.testing.assert_allclose(res.w[0], w0[0] + (signs[:, 0] * x) @ X[row], atol=1e-10)


def test_linear_dual_rejects_a_concave_or_misplaced_kink():
    rng = np.random.default_rng(0)
    X, row, signs, _, _, p, C, _, _ = linear_problem(rng, shared=False)
    a0 = np.zeros(len(row))
    for kink, jump in [(C / 2, -np.ones(len(row))), (C * 2, np.ones(len(row)))]:
        with pytest.raises(ValueError, match="kink"):
            solve_linear_dual(as_data(X), row, p, C, a0, signs, kink=kink, jump=jump)
    with pytest.raises(ValueError, match="together"):
        solve_linear_dual(as_data(X), row, p, C, a0, signs, kink=C / 2)


def test_linear_dual_equals_kernel_solver():
    """The linear dual solver and the pairwise solver on the linear kernel reach one optimum."""
    rng = np.random.default_rng(40)
    X = rng.normal(size=(30, 3))
    y = rng.choice([-1, 1], size=30).astype(np.int8)
    p, C = -np.ones(30), np.full(30, 0.5)
    lin = solve_linear_dual(
        as_data(X),
        np.arange(30, dtype=np.int32),
        p,
        C,
        np.zeros(30),
        y[:, None].copy(),
        options=SolverOptions(1e-12),
    )
    ker = solve_kernel_qp(
        engine_rows(X, "linear"),
        np.arange(30),
        p,
        C,
        np.zeros(30),
        y=y,
        equality=False,
        options=SolverOptions(1e-12),
    )
    # Q has rank 3: alpha need not be unique, but the optimal value and w = X'(y a) are
    assert abs(lin.alpha @ (-1 + 0 * p) + 0.5 * np.sum(lin.w**2) - ker.objective) <= 1e-9
    np.testing.assert_allclose(lin.w[0], (y * ker.alpha) @ X, atol=1e-6)
