"""WellSVMClustering's label generation against independent references: every inner SVM of a
fit against cvxpy + Clarabel, the MKL value of every step against cvxpy's minimax value on the
working set, the relaxation against the brute-force mixed-integer optimum over all balanced
labelings, the sorting, tie-breaking and exact oracles against enumeration, the balance
helpers, and the input checks made before the engine is called."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from oracle import psd_factor
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics.pairwise import rbf_kernel

import unlabeled.cluster._wellsvm as wellsvm_module
from unlabeled._engine import KernelSpec
from unlabeled._label_generation import BalancedLabels, KernelBackend, label_generation
from unlabeled.cluster import WellSVMClustering
from unlabeled.cluster._wellsvm import (
    BalancedClusters,
    ExactClusters,
    balance_range,
    balanced_threshold,
)

cp = pytest.importorskip("cvxpy")

GAMMA = 0.5
SOLVE = {"solver": "CLARABEL", "tol_gap_abs": 1e-8, "tol_gap_rel": 1e-8, "tol_feas": 1e-8}


def blobs(seed, n=40, d=2, shift=1.5):
    """Two Gaussian blobs (n // 2 and n - n // 2 points) centred at -shift and +shift."""
    rng = np.random.default_rng(seed)
    truth = (np.arange(n) >= n // 2).astype(int)
    X = rng.normal(size=(n, d)) + shift * (2 * truth[:, None] - 1)
    return X, truth


class SVMValues:
    """max_alpha G(alpha, y) over the box for many label vectors y: one cvxpy problem with y
    as a parameter, compiled once (Clarabel for each y)."""

    def __init__(self, K, C):
        self.a, self.y = cp.Variable(K.shape[0]), cp.Parameter(K.shape[0])
        obj = cp.sum(self.a) - 0.5 * cp.sum_squares(psd_factor(K).T @ cp.multiply(self.y, self.a))
        self.prob = cp.Problem(cp.Maximize(obj), [self.a >= 0, self.a <= C])

    def __call__(self, labelings):
        out = []
        for y in labelings:
            self.y.value = np.asarray(y, dtype=float)
            self.prob.solve(**SOLVE)
            assert self.prob.status == "optimal", self.prob.status
            out.append(float(self.prob.value))
        return out


def minimax(K, C, labelings):
    """max_alpha min_t G(alpha, y_t) over the box: the MKL value on ``labelings``."""
    a, s = cp.Variable(K.shape[0]), cp.Variable()
    V = psd_factor(K)
    cons = [a >= 0, a <= C]
    cons += [cp.sum(a) - 0.5 * cp.sum_squares(V.T @ cp.multiply(y, a)) >= s for y in labelings]
    prob = cp.Problem(cp.Maximize(s), cons)
    prob.solve(**SOLVE)
    assert prob.status == "optimal", prob.status
    return float(prob.value)


def all_balanced(n, beta):
    """Every label vector of B = {y : |1'y| <= beta n}, one of each pair {y, -y}
    (the first point fixed at +1: both have the same label kernel)."""
    lo, hi = balance_range(n, beta)
    for k in range(lo, hi + 1):
        for neg in itertools.combinations(range(1, n), k):
            y = np.ones(n, dtype=np.int8)
            y[list(neg)] = -1
            yield y


def _spec():
    return KernelSpec(2, gamma=GAMMA)


class RecordingBackend(KernelBackend):
    """The engine's backend, keeping every SVM it solves: (Y, mu, alpha)."""

    solves: list = []

    def solve(self, Y, mu, alpha0):
        alpha = super().solve(Y, mu, alpha0)
        RecordingBackend.solves.append((np.array(Y), np.array(mu), alpha.copy()))
        return alpha


# --------------------------------------------------------------------------- exactness
@pytest.mark.parametrize("ties", ["decision", "positive"])
def test_every_inner_svm_and_mkl_step_matches_cvxpy(ties, monkeypatch):
    """A whole fit on 16 points (at most 4 cutting-plane steps): each SVM without offset on
    K .* sum_t mu_t y_t y_t' (the engine's, several hundred of them) reaches Clarabel's
    optimum, and the objective after each cutting-plane step is the minimax value of the
    MKL problem on the working set at that step."""
    X, _ = blobs(0, n=16, shift=0.5)
    C = 0.7
    RecordingBackend.solves = []
    monkeypatch.setattr(
        wellsvm_module,
        "make_backend",
        lambda est, X, Cv, tol, max_iter=-1: RecordingBackend(X, _spec(), Cv, 1e7, tol),
    )
    model = WellSVMClustering(
        C=C,
        beta=0.25,
        gamma=GAMMA,
        tol=1e-4,
        max_mkl_iter=2000,
        max_iter=4,
        ties=ties,
        init="alignment",  # the random start leaves several steps to check
        random_state=0,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # max_iter=4 may stop it early
        model.fit(X)
    solves = RecordingBackend.solves
    assert model.n_iter_ >= 3 and len(solves) >= model.n_iter_
    K = rbf_kernel(X, gamma=GAMMA)
    for Y, mu, alpha in solves:
        M = (Y * mu) @ Y.T
        a = cp.Variable(len(X))
        ref = cp.Problem(
            cp.Maximize(cp.sum(a) - 0.5 * cp.sum_squares(psd_factor(K * M).T @ a)), [a >= 0, a <= C]
        )
        ref.solve(**SOLVE)
        assert np.all(alpha >= 0) and np.all(alpha <= C)
        ours = alpha.sum() - 0.5 * alpha @ (K * M) @ alpha
        assert ours == pytest.approx(ref.value, rel=1e-7, abs=1e-7)
        # alpha itself to 1e-3 only: two nearby points make the optimum nearly flat along
        # alpha_i - alpha_j (1e-4 apart here at equal objectives to 1e-9)
        np.testing.assert_allclose(alpha, a.value, atol=1e-3)
    L = model.label_vectors_
    for t, value in enumerate(model.objective_history_):
        assert value == pytest.approx(minimax(K, C, L[:, : t + 1].T), rel=2e-4)


class ExactOracle:
    """The most violated label vector, argmax_{y in B} (alpha .* y)' K (alpha .* y), by
    enumerating B: what the sorting oracle approximates."""

    def __init__(self, K, labelings):
        self.K, self.B = K, np.array(list(labelings))

    def __call__(self, r, alpha):
        V = self.B * alpha
        return self.B[int(np.argmax(np.einsum("ti,ij,tj->t", V, self.K, V)))]


@pytest.mark.parametrize(
    "n, beta, seed", [(10, 0.03, 0), (10, 0.03, 1), (9, 0.3, 2), (12, 0.03, 3)]
)
def test_relaxation_is_below_the_brute_force_optimum(n, beta, seed):
    """Tiny problems: the mixed-integer optimum min_{y in B} max_alpha G(alpha, y), by
    enumerating every balanced labeling (Clarabel for each SVM), is at least the relaxation's
    value p* (cvxpy's minimax over all of B). The cutting plane on the engine with an exact
    oracle reaches p*: through label_generation directly and through the estimator with
    oracle="exact", whose final objective is then at most the mixed-integer optimum.

    With the paper's sort (oracle="sort", a heuristic: Proposition 4 certifies a violated
    label vector, not the most violated one) the value is an upper bound on p* that never
    increases and is at most the SVM value of each label vector it generated; on these four
    problems it stops at or above the mixed-integer optimum (the sort returns a label vector
    already in the working set while a violated one exists)."""
    X, _ = blobs(seed, n=n, shift=0.6)
    C = 1.0
    K = rbf_kernel(X, gamma=GAMMA)
    B = list(all_balanced(n, beta))
    mip = min(SVMValues(K, C)(B))
    p_star = minimax(K, C, B)
    assert p_star <= mip + 1e-7
    kw = {"max_iter": 300, "max_mkl_iter": 5000, "tol": 1e-8}
    backend = KernelBackend(X, _spec(), np.full(n, C), 1e7, 1e-10)
    exact = label_generation(backend, ExactOracle(K, B), B[0], **kw)
    assert exact.history[-1] == pytest.approx(p_star, rel=1e-4)
    assert exact.history[-1] <= mip * (1 + 1e-6)
    assert np.all(np.diff(exact.history) <= 0)
    kw = {"C": C, "beta": beta, "gamma": GAMMA, "tol": 1e-8, "max_mkl_iter": 5000,
          "max_iter": 300, "random_state": seed}  # fmt: skip
    model = WellSVMClustering(oracle="exact", **kw).fit(X)
    h = model.objective_history_
    assert np.all(np.diff(h) <= 0) and model.stop_reason_ == "no violated label vector"
    assert h[-1] == pytest.approx(p_star, rel=1e-4)
    assert h[-1] <= mip * (1 + 1e-6)
    for ties, refine in itertools.product(("decision", "positive"), (False, True)):
        model = WellSVMClustering(ties=ties, refine_oracle=refine, **kw).fit(X)
        h = model.objective_history_
        assert np.all(np.diff(h) <= 0)
        assert h[-1] >= p_star * (1 - 1e-5)
        own = min(SVMValues(K, C)(model.label_vectors_.T))
        assert h[-1] <= own * (1 + 1e-6)


@pytest.mark.parametrize("n, beta", [(8, 0.0), (8, 0.25), (9, 0.0), (9, 0.4), (7, 0.9)])
def test_sorting_oracle_is_the_argmax_over_B(n, beta):
    """argmax_{y in B} r'y by enumerating B = {y : |1'y| <= beta n} (both signs)."""
    lo, hi = balance_range(n, beta)
    oracle = BalancedLabels(np.zeros(n, dtype=np.int8), lo, hi)
    rng = np.random.default_rng(n)
    every = np.array(
        [y for y in itertools.product([-1, 1], repeat=n) if lo <= y.count(-1) <= hi], dtype=float
    )
    for _ in range(20):
        r = rng.normal(size=n) + rng.normal()
        y = oracle(r)
        assert lo <= np.sum(y == -1) <= hi
        assert r @ y == pytest.approx((every @ r).max(), abs=1e-12)


def test_ties_decision_oracle_is_an_argmax_over_B():
    """The default oracle breaks the ties of r (points with alpha_i = 0) by the decision
    values of its answer, and its answer still maximises r'y over B (enumeration)."""
    X, _ = blobs(4, n=10)
    n, beta = 10, 0.2
    lo, hi = balance_range(n, beta)
    backend = KernelBackend(X, _spec(), np.ones(n), 1e7, 1e-8)
    oracle = BalancedClusters(n, lo, hi, backend)
    every = np.array(
        [y for y in itertools.product([-1, 1], repeat=n) if lo <= y.count(-1) <= hi], dtype=float
    )
    K = rbf_kernel(X, gamma=GAMMA)
    rng = np.random.default_rng(0)
    for _ in range(10):
        alpha = rng.uniform(0, 1, n) * (rng.random(n) < 0.5)
        r = alpha * (K @ (alpha * rng.choice([-1.0, 1.0], n)))
        y = oracle(r, alpha)
        assert lo <= np.sum(y == -1) <= hi
        assert r @ y == pytest.approx((every @ r).max(), abs=1e-12)
        g = K @ (alpha * y)
        free = alpha == 0
        # the free points follow g wherever the balance leaves them free
        if lo < np.sum(y == -1) < hi:
            np.testing.assert_array_equal(y[free], np.where(g[free] < 0, -1, 1))


@pytest.mark.parametrize("n, beta", [(9, 0.0), (9, 0.4), (10, 0.03)])
def test_exact_oracle_is_the_most_violated_label_vector(n, beta):
    """oracle='exact': argmax_{y in B} (alpha .* y)' K (alpha .* y) by enumerating B, on the
    side of ybar (r'y >= 0)."""
    X, _ = blobs(7, n=n)
    lo, hi = balance_range(n, beta)
    oracle = ExactClusters(n, lo, hi, KernelBackend(X, _spec(), np.ones(n), 1e7, 1e-8))
    every = np.array(
        [y for y in itertools.product([-1, 1], repeat=n) if lo <= y.count(-1) <= hi], dtype=float
    )
    K = rbf_kernel(X, gamma=GAMMA)
    rng = np.random.default_rng(n)
    for _ in range(5):
        alpha = rng.uniform(0, 1, n) * (rng.random(n) < 0.7)
        ybar = every[rng.integers(len(every))]
        r = alpha * (K @ (alpha * ybar))
        y = oracle(r, alpha)
        assert lo <= np.sum(y == -1) <= hi and r @ y >= 0
        V = every * alpha
        best = np.einsum("ti,ij,tj->t", V, K, V).max()
        assert (alpha * y) @ K @ (alpha * y) == pytest.approx(best, rel=1e-10)


@pytest.mark.parametrize("seed", range(5))
def test_balanced_threshold(seed):
    """theta = 0 when sign(f) is in B; else sign(f - theta) = argmax_{y in B} f'y."""
    rng = np.random.default_rng(seed)
    n = 31
    f = rng.normal(size=n) + rng.normal(scale=2)
    for beta in (0.03, 0.3):
        lo, hi = balance_range(n, beta)
        theta = balanced_threshold(f, lo, hi)
        y = np.where(f - theta > 0, 1, -1)
        assert lo <= np.sum(y == -1) <= hi
        if lo <= np.sum(f <= 0) <= hi:
            assert theta == 0.0
        best = BalancedLabels(np.zeros(n, dtype=np.int8), lo, hi)(f)
        assert f @ y == pytest.approx(f @ best, abs=1e-12)


@pytest.mark.parametrize(
    "n, beta, expected",
    [
        (10, 0.03, (5, 5)),
        (11, 0.03, (5, 6)),
        (11, 0.1, (5, 6)),
        (100, 0.3, (35, 65)),
        (9, 0.3, (4, 5)),
        (2, 0.0, (1, 1)),
        (3, 0.99, (1, 2)),
    ],
)
def test_balance_range(n, beta, expected):
    """-beta n <= n - 2k <= beta n; an odd n with beta n < 1 gets |1'y| = 1; never a single
    cluster; symmetric (lo + hi = n: -y is in B with y)."""
    assert balance_range(n, beta) == expected
    assert sum(expected) == n


# --------------------------------------------------------------------------- input checks
@pytest.mark.parametrize(
    "change, match",
    [
        ({"beta": 1.0}, "beta must be < 1"),
        ({"beta": -0.1}, "beta must be >= 0"),
        ({"beta": "balanced"}, "beta must be a real number"),
        ({"C": 0.0}, "C must be > 0"),
        ({"n_init": 0}, "n_init must be >= 1"),
        ({"max_iter": 0}, "max_iter must be >= 1"),
        ({"max_mkl_iter": 0}, "max_mkl_iter must be >= 1"),
        ({"tol": -1.0}, "tol must be > 0"),
        ({"kernel": "sigmoid"}, "kernel must be one of"),
        ({"random_state": -1}, "random_state must be"),
        ({"X": "nan"}, "NaN"),
        ({"X": "inf"}, "infinity"),
        ({"X": "one sample"}, "at least 2 samples"),
        ({"X": "empty"}, "0 sample"),
        ({"X": "1d"}, "Expected 2D array"),
        ({"X": "not square", "kernel": "precomputed"}, "square Gram matrix"),
        ({"X": "21 samples", "oracle": "exact"}, "at most 20 samples"),
        ({"oracle": "enumerate"}, "oracle must be one of"),
        ({"ties": "negative"}, "ties must be one of"),
        ({"offset": "auto"}, "offset must be one of"),
    ],
)
def test_bad_input_is_refused_before_any_work(change, match, monkeypatch):
    X, _ = blobs(11, n=10)
    bad = {
        "nan": np.where(np.eye(10, 2) == 1, np.nan, X),
        "inf": np.where(X > 1, np.inf, X),
        "one sample": X[:1],
        "empty": X[:0],
        "1d": X[:, 0],
        "not square": X,
        "21 samples": np.r_[X, X, X[:1]],
    }
    X = bad.get(change.get("X"), X)
    params = {k: v for k, v in change.items() if k != "X"}

    def no_work(*a, **k):
        raise AssertionError("the engine was called before the input was checked")

    monkeypatch.setattr("unlabeled._label_generation.KernelRows", no_work)
    monkeypatch.setattr("unlabeled._label_generation.solve_linear_dual", no_work)
    with pytest.raises((ValueError, TypeError), match=match):
        WellSVMClustering(**params).fit(X)
