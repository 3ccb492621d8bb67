"""The label generation of the semi-supervised WellSVM (``unlabeled._label_generation``)
against independent references: every inner SVM and the MKL step against cvxpy + Clarabel,
the relaxation against the brute-force mixed-integer optimum and the minimax value over all
balanced labelings (cvxpy), with the hinge and the squared hinge; the engine's backends."""

from __future__ import annotations

import itertools
from types import SimpleNamespace

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import time_limit
from oracle import psd_factor
from problems import signs_of, ssl_problem
from sklearn.metrics.pairwise import rbf_kernel

from unlabeled._engine import KernelSpec, solve_kernel_qp
from unlabeled._label_generation import (
    KernelBackend,
    LinearBackend,
    _violated_label,
    label_generation,
    solve_mkl,
)
from unlabeled.ssl import WellSVM
from unlabeled.ssl._base import BalancedLabels, n_negative_unlabeled

cp = pytest.importorskip("cvxpy")

GAMMA = 0.5
SOLVE = {"solver": "CLARABEL", "tol_gap_abs": 1e-8, "tol_gap_rel": 1e-8, "tol_feas": 1e-8}


def box(y, C1, C2):
    return np.where(y != -1, C1, C2).astype(float)


def backend(X, C, tol=1e-10):
    return KernelBackend(X, KernelSpec(2, gamma=GAMMA), C, 1e7, tol)


def minimax(K, C, labelings):
    """max_alpha min_t G(alpha, y_t) over 0 <= alpha <= C by Clarabel: the MKL value on
    ``labelings`` (Proposition 1), and the constraints' multipliers (the optimal mu)."""
    a, s = cp.Variable(len(C)), cp.Variable()
    cons = [a >= 0, a <= C]
    V = psd_factor(K)
    lab = [cp.sum(a) - 0.5 * cp.sum_squares(V.T @ cp.multiply(y, a)) >= s for y in labelings]
    prob = cp.Problem(cp.Maximize(s), cons + lab)
    prob.solve(**SOLVE)
    assert prob.status == "optimal", prob.status
    return float(prob.value), np.array([float(np.ravel(c.dual_value)[0]) for c in lab])


def svm_value(K, C, y):
    """max_alpha G(alpha, y) over the box, by Clarabel."""
    a = cp.Variable(len(C))
    obj = cp.sum(a) - 0.5 * cp.sum_squares(psd_factor(K * np.outer(y, y)).T @ a)
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
        cp.Minimize(0.5 * cp.sum_squares(psd_factor(K * M).T @ a_cp) - cp.sum(a_cp)),
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
            C1=1.0,
            C2=0.5,
            gamma=GAMMA,
            tol=1e-7,
            max_mkl_iter=5000,
            refine_oracle=refine,
            loss="hinge",
            standardize=False,  # (the reference problem is on X as given)
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
    ref = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(psd_factor(Q).T @ a) - cp.sum(a)), [a >= 0])
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
    ref = cp.Problem(
        cp.Minimize(0.5 * cp.sum_squares(psd_factor(Q).T @ a) - cp.sum(a)), [a >= 0, ys @ a == 0]
    )
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
    model = WellSVM(
        C1=1.0, C2=0.5, gamma=GAMMA, tol=1e-7, max_mkl_iter=5000, loss="squared_hinge"
    ).fit(X, y)
    assert model.objective_history_[-1] >= p_star * (1 - 1e-5)
    assert np.all(np.diff(model.objective_history_) <= 0)


# --------------------------------------------------------------------------- the backends
@pytest.mark.parametrize("sparse", [False, True])
def test_linear_kernel_outgrowing_the_cache_takes_the_linear_backend(sparse):
    """kernel='linear' with a Gram matrix larger than cache_size (here 10 kB) runs on the
    linear dual solver with w kept (tests/test_wellsvm.py: the same fit as the SMO path)."""
    X, _, _ = ssl_problem(12, n_unl=60, d=4, shift=0.8)
    Xf = sp.csr_matrix(X) if sparse else X
    assert isinstance(
        WellSVM(kernel="linear", cache_size=0.01)._backend(Xf, np.ones(72)), LinearBackend
    )


def test_engine_diag_is_checked():
    X, y, _ = ssl_problem(0)
    b = backend(X, np.ones(len(y)))
    args = (b.rows, b.vp, -np.ones(b.n), np.ones(b.n), np.zeros(b.n))
    for diag, match in ((np.ones(3), "one entry per variable"), (-np.ones(b.n), "non-negative")):
        with pytest.raises(ValueError, match=match):
            solve_kernel_qp(*args, y=np.ones(b.n, dtype=np.int8), diag=diag)


def test_refined_oracle_ascent_stops_without_a_rise():
    """WellSVM's refined oracle repeated the label sort while y'Hy rose; a NaN value never
    compared as "no rise", so two alternating label vectors looped for ever."""
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
