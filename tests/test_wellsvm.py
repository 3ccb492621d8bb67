"""WellSVM against independent references: every inner SVM and the MKL step against cvxpy +
Clarabel, the relaxation against the brute-force mixed-integer optimum and the minimax value
over all balanced labelings (cvxpy), plus the estimator's API and input checks."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import time_limit
from sklearn.metrics.pairwise import rbf_kernel

from unlabeled._engine import KernelSpec
from unlabeled._label_generation import KernelBackend, label_generation, solve_mkl
from unlabeled.ssl import WellSVM
from unlabeled.ssl._base import BalancedLabels, n_negative_unlabeled

cp = pytest.importorskip("cvxpy")

GAMMA = 0.5
SOLVE = {"solver": "CLARABEL", "tol_gap_abs": 1e-8, "tol_gap_rel": 1e-8, "tol_feas": 1e-8}


def ssl_problem(seed, n_lab=6, n_unl=30, d=2, shift=1.5):
    """Two Gaussian classes; the first n_lab points labeled (both classes), -1 elsewhere."""
    rng = np.random.default_rng(seed)
    n = n_lab + n_unl
    truth = np.r_[np.tile([0, 1], n_lab // 2), rng.integers(0, 2, n_unl)]
    X = rng.normal(size=(n, d)) + shift * (2 * truth[:, None] - 1)
    y = np.where(np.arange(n) < n_lab, truth, -1)
    return X, y, truth


def signs_of(y):
    return np.where(y == -1, 0, np.where(y == 1, 1, -1)).astype(np.int8)


def factor(K):
    """V with V V' = K (K psd), for cvxpy's sum_squares."""
    ev, U = np.linalg.eigh((K + K.T) / 2)
    keep = ev > 1e-12 * ev.max()
    return U[:, keep] * np.sqrt(ev[keep])


def box(y, C1, C2):
    return np.where(y != -1, C1, C2).astype(float)


def backend(X, C, tol=1e-10):
    return KernelBackend(X, KernelSpec(2, gamma=GAMMA), C, 1e7, tol)


def minimax(K, C, labelings):
    """max_alpha min_t G(alpha, y_t) over 0 <= alpha <= C by Clarabel: the MKL value on
    ``labelings`` (Proposition 1), and the constraints' multipliers (the optimal mu)."""
    a, s = cp.Variable(len(C)), cp.Variable()
    cons = [a >= 0, a <= C]
    V = factor(K)
    lab = [cp.sum(a) - 0.5 * cp.sum_squares(V.T @ cp.multiply(y, a)) >= s for y in labelings]
    prob = cp.Problem(cp.Maximize(s), cons + lab)
    prob.solve(**SOLVE)
    assert prob.status == "optimal", prob.status
    return float(prob.value), np.array([float(np.ravel(c.dual_value)[0]) for c in lab])


def svm_value(K, C, y):
    """max_alpha G(alpha, y) over the box, by Clarabel."""
    a = cp.Variable(len(C))
    obj = cp.sum(a) - 0.5 * cp.sum_squares(factor(K * np.outer(y, y)).T @ a)
    prob = cp.Problem(cp.Maximize(obj), [a >= 0, a <= C])
    prob.solve(**SOLVE)
    assert prob.status == "optimal", prob.status
    return float(prob.value)


# --------------------------------------------------------------------------- exactness
@pytest.mark.parametrize("seed", [0, 1])
def test_inner_svm_matches_cvxpy(seed):
    """One SVM without offset on the label-mixed kernel K .* sum_t mu_t y_t y_t'."""
    X, y, _ = ssl_problem(seed, n_unl=20)
    rng = np.random.default_rng(seed)
    Y = rng.choice([-1, 1], size=(len(y), 3)).astype(np.int8)
    mu = np.array([0.5, 0.3, 0.2])
    C = box(y, 1.0, 0.3)
    K = rbf_kernel(X, gamma=GAMMA)
    M = sum(m * np.outer(Y[:, t], Y[:, t]) for t, m in enumerate(mu))
    a_cp = cp.Variable(len(C))
    ref = cp.Problem(
        cp.Minimize(0.5 * cp.sum_squares(factor(K * M).T @ a_cp) - cp.sum(a_cp)),
        [a_cp >= 0, a_cp <= C],
    )
    ref.solve(**SOLVE)
    alpha = backend(X, C).solve(Y, mu, np.zeros(len(C)))
    assert np.all(alpha >= 0) and np.all(alpha <= C)
    ours = 0.5 * alpha @ (K * M) @ alpha - alpha.sum()
    assert ours <= ref.value + 1e-7 * max(1.0, abs(ref.value))
    np.testing.assert_allclose(alpha, a_cp.value, atol=1e-4)


def test_products_are_kernel_times_signed_alpha():
    X, y, _ = ssl_problem(3)
    Y = np.random.default_rng(3).choice([-1, 1], size=(len(y), 2)).astype(np.int8)
    alpha = np.random.default_rng(4).uniform(0, 1, len(y)) * (np.arange(len(y)) % 3 != 0)
    P = backend(X, np.ones(len(y))).products(alpha, Y)
    np.testing.assert_allclose(P, rbf_kernel(X, gamma=GAMMA) @ (alpha[:, None] * Y), atol=1e-12)


@pytest.mark.parametrize("seed", [0, 2])
def test_mkl_step_matches_cvxpy(seed):
    """The alternation on a fixed set of label vectors reaches the MKL optimum (cvxpy)."""
    X, y, truth = ssl_problem(seed, n_unl=16)
    s = signs_of(y)
    oracle = BalancedLabels(s, n_negative_unlabeled(s, None))
    rng = np.random.default_rng(seed)
    Y = np.stack([oracle(rng.normal(size=len(y))) for _ in range(3)], axis=1)
    C = box(y, 1.0, 0.5)
    ref, ref_mu = minimax(rbf_kernel(X, gamma=GAMMA), C, Y.T)
    res = solve_mkl(backend(X, C), Y, np.ones(3), np.zeros(len(y)), max_iter=5000, tol=1e-7)
    assert res.converged
    assert res.value == pytest.approx(ref, rel=1e-5)
    # the weights: Clarabel's multipliers of the constraints G(alpha, y_t) >= s
    np.testing.assert_allclose(res.mu, ref_mu / ref_mu.sum(), atol=2e-2)


def all_balanced(signs, n_negative):
    """Every label vector of B: the labeled signs, n_negative -1's among the unlabeled."""
    unl = np.flatnonzero(signs == 0)
    for neg in itertools.combinations(unl, n_negative):
        y = np.where(signs == 0, 1, signs).astype(np.int8)
        y[list(neg)] = -1
        yield y


class ExactOracle:
    """The most violated label vector, argmax_{y in B} (alpha .* y)' K (alpha .* y), by
    enumerating B: what the sorting oracle approximates (Section 4.1.3)."""

    def __init__(self, K, labelings):
        self.K, self.B = K, np.array(list(labelings))

    def __call__(self, r, alpha):
        V = self.B * alpha
        return self.B[int(np.argmax(np.einsum("ti,ij,tj->t", V, self.K, V)))]


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_relaxation_against_brute_force(seed):
    """Tiny problems (8 unlabeled points, all 70 balanced labelings): the relaxation's value
    is the minimax value over all of B (cvxpy) and at most the mixed-integer optimum."""
    X, y, _ = ssl_problem(seed, n_lab=4, n_unl=8, shift=0.7)
    s = signs_of(y)
    n_neg = n_negative_unlabeled(s, None)
    B = list(all_balanced(s, n_neg))
    K = rbf_kernel(X, gamma=GAMMA)
    C = box(y, 1.0, 0.5)
    mip = min(svm_value(K, C, yb) for yb in B)
    p_star, _ = minimax(K, C, B)
    assert p_star <= mip + 1e-7
    kw = {"max_iter": 200, "max_mkl_iter": 5000, "tol": 1e-7}
    start = BalancedLabels(s, n_neg)(np.arange(len(y), dtype=float))
    exact = label_generation(backend(X, C), ExactOracle(K, B), start, **kw)
    assert exact.history[-1] == pytest.approx(p_star, rel=1e-4)
    assert exact.history[-1] <= mip * (1 + 1e-6)
    # the estimator, with the paper's sorting oracle (a heuristic: Proposition 4 certifies a
    # violated label vector, not the most violated one): an upper bound on the relaxation
    for refine in (False, True):
        model = WellSVM(
            C1=1.0, C2=0.5, gamma=GAMMA, tol=1e-7, max_mkl_iter=5000, refine_oracle=refine
        ).fit(X, y)
        assert model.objective_history_[-1] >= p_star * (1 - 1e-5)
        assert np.all(np.diff(model.objective_history_) <= 0)


# ---- the squared hinge (loss="squared_hinge"): K + D = diag(1/C), no upper bound ----------
BIG = 1e4  # cvxpy's box for "unbounded": the tests check that it does not bind


def squared_backend(X, C):
    b = backend(X, C)
    b.use_squared_hinge()
    return b


@pytest.mark.parametrize("seed", [0, 1])
def test_squared_hinge_inner_svm_matches_cvxpy(seed):
    X, y, _ = ssl_problem(seed, n_unl=20)
    Y = np.random.default_rng(seed).choice([-1, 1], size=(len(y), 3)).astype(np.int8)
    mu = np.array([0.5, 0.3, 0.2])
    C = box(y, 1.0, 0.3)
    Q = rbf_kernel(X, gamma=GAMMA) * sum(m * np.outer(Y[:, t], Y[:, t]) for t, m in enumerate(mu))
    Q += np.diag(1.0 / C)
    a = cp.Variable(len(C))
    ref = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(factor(Q).T @ a) - cp.sum(a)), [a >= 0])
    ref.solve(**SOLVE)
    alpha = squared_backend(X, C).solve(Y, mu, np.zeros(len(C)))
    assert 0.5 * alpha @ Q @ alpha - alpha.sum() <= ref.value + 1e-7 * max(1.0, abs(ref.value))
    np.testing.assert_allclose(alpha, a.value, atol=1e-4)
    assert np.any(alpha > C)  # beyond the hinge's box: the test is not vacuous


def test_squared_hinge_start_svm_matches_cvxpy():
    """The start SVM with offset on the labeled points, with the same loss."""
    X, y, _ = ssl_problem(3, n_lab=10, n_unl=10, shift=0.6)
    lab = np.flatnonzero(y != -1)
    ys = np.where(y[lab] == 1, 1, -1)
    C = np.full(lab.size, 1.0)
    Q = rbf_kernel(X[lab], gamma=GAMMA) * np.outer(ys, ys) + np.diag(1.0 / C)
    a = cp.Variable(lab.size)
    ref = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(factor(Q).T @ a) - cp.sum(a)),
                     [a >= 0, ys @ a == 0])  # fmt: skip
    ref.solve(**SOLVE)
    alpha, _, _ = squared_backend(X, box(y, 1.0, 0.5)).signed_solve(lab, ys, C, np.zeros(lab.size))
    np.testing.assert_allclose(alpha, a.value, atol=1e-4)


@pytest.mark.parametrize("seed", [0, 1])
def test_squared_hinge_relaxation_against_brute_force(seed):
    """As for the hinge: the relaxation's value is the minimax value over all of B with the
    label kernels (K + D) .* y y' (cvxpy), and at most the mixed-integer optimum."""
    X, y, _ = ssl_problem(seed, n_lab=4, n_unl=8, shift=0.7)
    s = signs_of(y)
    n_neg = n_negative_unlabeled(s, None)
    B = list(all_balanced(s, n_neg))
    C = box(y, 1.0, 0.5)
    KD = rbf_kernel(X, gamma=GAMMA) + np.diag(1.0 / C)
    mip = min(svm_value(KD, np.full(len(C), BIG), yb) for yb in B)
    p_star, _ = minimax(KD, np.full(len(C), BIG), B)
    assert p_star <= mip + 1e-7
    kw = {"max_iter": 200, "max_mkl_iter": 5000, "tol": 1e-7}
    start = BalancedLabels(s, n_neg)(np.arange(len(y), dtype=float))
    K = rbf_kernel(X, gamma=GAMMA)  # argmax over B: the D part is the same for every y
    exact = label_generation(squared_backend(X, C), ExactOracle(K, B), start, **kw)
    assert exact.history[-1] == pytest.approx(p_star, rel=1e-4)
    assert exact.alpha.max() < 0.01 * BIG
    model = WellSVM(C1=1.0, C2=0.5, gamma=GAMMA, tol=1e-7, max_mkl_iter=5000,
                    loss="squared_hinge").fit(X, y)  # fmt: skip
    assert model.objective_history_[-1] >= p_star * (1 - 1e-5)
    assert np.all(np.diff(model.objective_history_) <= 0)


def test_squared_hinge_is_the_hinge_on_k_plus_d_without_a_box():
    """The identity behind the option: the same fit as the hinge on the precomputed kernel
    K + diag(1/C) with a box that never binds; predict on the training points gives
    transduction_ (the self term D is not part of f on new points)."""
    X, y, _ = ssl_problem(7, n_lab=6, n_unl=60, shift=0.8)
    Xt = np.random.default_rng(8).normal(size=(40, 2))
    sq = WellSVM(C1=1.0, C2=0.2, gamma=GAMMA, loss="squared_hinge").fit(X, y)
    KD = rbf_kernel(X, gamma=GAMMA) + np.diag(box(y, 1.0, 0.2) ** -1)
    pre = WellSVM(C1=BIG, C2=BIG, kernel="precomputed").fit(KD, y)
    np.testing.assert_allclose(sq.objective_history_, pre.objective_history_, rtol=1e-6)
    np.testing.assert_array_equal(sq.predict(Xt), pre.predict(rbf_kernel(Xt, X, gamma=GAMMA)))
    np.testing.assert_array_equal(sq.predict(X), sq.transduction_)
    hinge = WellSVM(C1=1.0, C2=0.2, gamma=GAMMA).fit(X, y)
    assert not np.allclose(hinge.alpha_, sq.alpha_)


def test_squared_hinge_needs_the_kernel_path():
    X, y, _ = ssl_problem(0)
    with pytest.raises(ValueError, match="loss='squared_hinge' runs on the kernel path"):
        WellSVM(kernel="linear", cache_size=1e-4, loss="squared_hinge").fit(X, y)


def test_engine_diag_is_checked():
    from unlabeled._engine import solve_kernel_qp

    X, y, _ = ssl_problem(0)
    b = backend(X, np.ones(len(y)))
    args = (b.rows, b.vp, -np.ones(b.n), np.ones(b.n), np.zeros(b.n))
    for diag, match in ((np.ones(3), "one entry per variable"), (-np.ones(b.n), "non-negative")):
        with pytest.raises(ValueError, match=match):
            solve_kernel_qp(*args, y=np.ones(b.n, dtype=np.int8), diag=diag)


def test_objective_history_never_increases():
    X, y, truth = ssl_problem(5, n_lab=6, n_unl=80, shift=1.0)
    model = WellSVM(C2=0.3, gamma=GAMMA).fit(X, y)
    h = model.objective_history_
    assert h.size == model.n_iter_ >= 3
    assert np.all(np.diff(h) <= 0)
    # the stopping rule: no two steps in a row lower p by at most tol |p| before the last
    small = -np.diff(h) <= model.tol * np.maximum(1.0, np.abs(h[:-1]))
    assert not np.any(small[:-2] & small[1:-1])
    # each label vector is balanced and keeps the given labels
    s = signs_of(y)
    n_neg = n_negative_unlabeled(s, None)
    L = model.label_vectors_
    np.testing.assert_array_equal(L[s != 0], np.repeat(s[s != 0, None], L.shape[1], axis=1))
    assert np.all((L[s == 0] == -1).sum(axis=0) == n_neg)
    assert model.mu_.sum() == pytest.approx(1.0) and np.all(model.mu_ >= 0)


def test_model_is_the_mixed_expansion():
    """f(x) = sum_i alpha_i (sum_t mu_t y_ti) k(x_i, x); transduction_ is its sign."""
    X, y, truth = ssl_problem(6, n_unl=50)
    model = WellSVM(C2=0.2, gamma=GAMMA).fit(X, y)
    coef = model.alpha_ * (model.label_vectors_ @ model.mu_)
    T = np.random.default_rng(0).normal(size=(7, 2))
    np.testing.assert_allclose(
        model.decision_function(T), rbf_kernel(T, X, gamma=GAMMA) @ coef, atol=1e-10
    )
    assert model.intercept_.tolist() == [0.0]
    unl = y == -1
    np.testing.assert_array_equal(model.transduction_[unl], model.predict(X[unl]))
    np.testing.assert_array_equal(model.transduction_[~unl], y[~unl])
    assert model.score(X, truth) >= 0.9


def test_balance_parameter():
    X, y, _ = ssl_problem(7, n_unl=40)
    model = WellSVM(balance=0.25, gamma=GAMMA).fit(X, y)
    assert np.all((model.label_vectors_[y == -1] == 1).sum(axis=0) == 10)


def test_alignment_start_is_reproducible():
    X, y, _ = ssl_problem(8, n_unl=40)
    a = WellSVM(init="alignment", random_state=0, gamma=GAMMA).fit(X, y)
    b = WellSVM(init="alignment", random_state=0, gamma=GAMMA).fit(X, y)
    np.testing.assert_array_equal(a.label_vectors_, b.label_vectors_)


# --------------------------------------------------------------------------- estimator API
@pytest.mark.parametrize("fmt", ["sparse", "float32", "precomputed"])
def test_input_formats_agree(fmt):
    X, y, _ = ssl_problem(9, n_unl=40)
    ref = WellSVM(gamma=GAMMA).fit(X, y)
    if fmt == "precomputed":
        model = WellSVM(kernel="precomputed").fit(rbf_kernel(X, gamma=GAMMA), y)
        got = model.decision_function(rbf_kernel(X[:5], X, gamma=GAMMA))
    else:
        Xf = sp.csr_matrix(X) if fmt == "sparse" else X.astype(np.float32)
        model = WellSVM(gamma=GAMMA).fit(Xf, y)
        got = model.decision_function(Xf[:5])
    atol = 1e-4 if fmt == "float32" else 1e-8
    np.testing.assert_allclose(got, ref.decision_function(X[:5]), atol=atol)
    np.testing.assert_array_equal(model.transduction_, ref.transduction_)


def test_string_labels_and_inputs_unchanged():
    X, y, _ = ssl_problem(10, n_unl=30)
    ys = np.array([-1 if v == -1 else ("spam" if v == 1 else "ham") for v in y], dtype=object)
    X0, ys0 = X.copy(), ys.copy()
    model = WellSVM(gamma=GAMMA).fit(X, ys)
    assert model.classes_.tolist() == ["ham", "spam"]
    assert set(model.predict(X)) <= {"ham", "spam"}
    np.testing.assert_array_equal(X, X0)
    np.testing.assert_array_equal(ys, ys0)


@pytest.mark.parametrize(
    "change, match",
    [
        ({"y": "one class"}, "only one class is labeled"),
        ({"y": "three classes"}, "Only binary classification"),
        ({"y": "none labeled"}, "no point is labeled"),
        ({"y": "nan"}, "NaN"),
        ({"y": "short"}, "inconsistent numbers of samples"),
        ({"X": "nan"}, "NaN"),
        ({"C2": 0.0}, "C2 must be > 0"),
        ({"C1": -1.0}, "C1 must be > 0"),
        ({"balance": 1.0}, "balance must be"),
        ({"balance": 0.0}, "balance must be"),
        ({"init": "random"}, "init must be"),
        ({"max_mkl_iter": 0}, "max_mkl_iter must be >= 1"),
    ],
)
def test_bad_input_is_refused_before_any_work(change, match, monkeypatch):
    X, y, _ = ssl_problem(11, n_unl=10)
    y = y.astype(float)
    bad = {
        "one class": np.where(y == 1, -1, y),
        "three classes": np.where(np.arange(len(y)) == 0, 2, y),
        "none labeled": np.full(len(y), -1.0),
        "nan": np.where(np.arange(len(y)) == 0, np.nan, y),
        "short": y[:-1],
    }
    if "y" in change:
        y = bad[change["y"]]
    if "X" in change:
        X = X.copy()
        X[0, 0] = np.nan
    params = {k: v for k, v in change.items() if k not in ("X", "y")}

    def no_work(*a, **k):
        raise AssertionError("the engine was called before the input was checked")

    monkeypatch.setattr("unlabeled._label_generation.KernelRows", no_work)
    with pytest.raises((ValueError, TypeError), match=match):
        WellSVM(**params).fit(X, y)


@pytest.mark.parametrize("sparse", [False, True])
def test_linear_path_equals_kernel_path(sparse):
    """kernel='linear' runs on the linear dual solver with w kept (the large-scale path, taken
    once the Gram matrix outgrows cache_size: here 10 kB); the same relaxation on the SMO
    solver with the precomputed linear Gram matrix agrees."""
    from sklearn.metrics.pairwise import linear_kernel

    from unlabeled._label_generation import LinearBackend
    from unlabeled.ssl import TSVM

    X, y, _ = ssl_problem(12, n_unl=60, d=4, shift=0.8)
    Xf = sp.csr_matrix(X) if sparse else X
    kw = {"tol": 1e-7, "max_mkl_iter": 3000}
    assert isinstance(WellSVM(kernel="linear", cache_size=0.01)._backend(Xf, np.ones(72)),
                      LinearBackend)  # fmt: skip
    lin = WellSVM(kernel="linear", cache_size=0.01, **kw).fit(Xf, y)
    ref = WellSVM(kernel="precomputed", **kw).fit(linear_kernel(X), y)
    np.testing.assert_allclose(lin.objective_history_, ref.objective_history_, rtol=1e-5)
    np.testing.assert_array_equal(lin.label_vectors_, ref.label_vectors_)
    np.testing.assert_allclose(
        lin.decision_function(Xf), ref.decision_function(linear_kernel(X)), atol=1e-4
    )
    np.testing.assert_allclose(lin.coef_[0], lin.dual_coef_[0] @ X[lin.support_], atol=1e-10)
    small = WellSVM(kernel="linear", **kw).fit(Xf, y)  # the default cache: the SMO path
    np.testing.assert_allclose(small.objective_history_, ref.objective_history_, rtol=1e-5)
    np.testing.assert_allclose(small.coef_, lin.coef_, atol=1e-4)
    t_lin = TSVM(kernel="linear", tol=1e-7, cache_size=0.01).fit(Xf, y)
    t_ref = TSVM(kernel="precomputed", tol=1e-7).fit(linear_kernel(X), y)
    np.testing.assert_array_equal(t_lin.transduction_, t_ref.transduction_)
    np.testing.assert_allclose(
        t_lin.decision_function(Xf), t_ref.decision_function(linear_kernel(X)), atol=1e-4
    )


def test_refined_oracle_ascent_stops_without_a_rise():
    """WellSVM's refined oracle repeated the label sort while y'Hy rose; a NaN value never
    compared as "no rise", so two alternating label vectors looped for ever."""
    from types import SimpleNamespace

    from unlabeled._label_generation import _violated_label

    n = 6
    ys = [np.array([1, 1, 1, -1, -1, -1], np.int8), np.array([1, -1, 1, -1, 1, -1], np.int8)]
    calls = []

    def oracle(r, a):
        calls.append(1)
        return ys[len(calls) % 2]

    backend = SimpleNamespace(products=lambda a, Y: np.full((n, Y.shape[1]), np.nan))
    cur = SimpleNamespace(alpha=np.ones(n), q=np.array([1.0]))
    Y = np.ones((n, 1), np.int8)

    with time_limit(5, "the ascent"):
        best, _ = _violated_label(backend, oracle, cur, Y, refine=True)
    assert len(calls) == 2 and best is not None
