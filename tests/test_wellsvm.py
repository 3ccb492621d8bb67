"""WellSVM (semi-supervised): the expansion, the balance, the squared hinge as the hinge on
K + diag(1/C), the linear path against the kernel path, the estimator's API and input checks.
Its label generation against cvxpy + Clarabel and the brute-force optimum:
tests/internals/test_label_generation.py."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.sparse as sp
from oracle import psd_factor
from problems import signs_of, ssl_problem
from sklearn.metrics.pairwise import rbf_kernel

from unlabeled.ssl import WellSVM

GAMMA = 0.5


def paper_balance(signs):
    """The unlabeled points labeled negative: ceil(n_U (1 - p)), p the share of positives
    among the labeled points (the paper's balance, balance=None)."""
    n_u, p = int(np.sum(signs == 0)), float(np.mean(signs[signs != 0] == 1))
    return min(n_u, max(0, math.ceil(n_u * (1.0 - p) - 1e-9)))


def box(y, C1, C2):
    return np.where(y != -1, C1, C2).astype(float)


# ---- the squared hinge (loss="squared_hinge"): K + D = diag(1/C), no upper bound ----------
BIG = 1e4  # a box that never binds


def test_squared_hinge_is_the_hinge_on_k_plus_d_without_a_box():
    """The identity behind the option: the same fit as the hinge on the precomputed kernel
    K + diag(1/C) with a box that never binds; predict on the training points gives
    transduction_ (the self term D is not part of f on new points)."""
    X, y, _ = ssl_problem(7, n_lab=6, n_unl=60, shift=0.8)
    Xt = np.random.default_rng(8).normal(size=(40, 2))
    sq = WellSVM(C1=1.0, C2=0.2, gamma=GAMMA, standardize=False, loss="squared_hinge").fit(X, y)
    KD = rbf_kernel(X, gamma=GAMMA) + np.diag(box(y, 1.0, 0.2) ** -1)
    pre = WellSVM(C1=BIG, C2=BIG, kernel="precomputed", loss="hinge").fit(KD, y)
    np.testing.assert_allclose(sq.objective_history_, pre.objective_history_, rtol=1e-6)
    np.testing.assert_array_equal(sq.predict(Xt), pre.predict(rbf_kernel(Xt, X, gamma=GAMMA)))
    np.testing.assert_array_equal(sq.predict(X), sq.transduction_)
    hinge = WellSVM(C1=1.0, C2=0.2, gamma=GAMMA, standardize=False, loss="hinge").fit(X, y)
    assert not np.allclose(hinge.alpha_, sq.alpha_)


def test_squared_hinge_needs_the_kernel_path():
    X, y, _ = ssl_problem(0)
    with pytest.raises(ValueError, match="loss='squared_hinge' runs on the kernel path"):
        WellSVM(kernel="linear", cache_size=1e-4, loss="squared_hinge").fit(X, y)


def test_objective_history_never_increases():
    X, y, truth = ssl_problem(5, n_lab=6, n_unl=80, shift=1.0)
    model = WellSVM(C2=0.3, gamma=GAMMA, standardize=False, loss="hinge").fit(X, y)
    h = model.objective_history_
    assert h.size == model.n_iter_ >= 3
    assert np.all(np.diff(h) <= 0)
    # the stopping rule: no two steps in a row lower p by at most tol |p| before the last
    small = -np.diff(h) <= model.tol * np.maximum(1.0, np.abs(h[:-1]))
    assert not np.any(small[:-2] & small[1:-1])
    # each label vector is balanced and keeps the given labels
    s = signs_of(y)
    n_neg = paper_balance(s)
    L = model.label_vectors_
    np.testing.assert_array_equal(L[s != 0], np.repeat(s[s != 0, None], L.shape[1], axis=1))
    assert np.all((L[s == 0] == -1).sum(axis=0) == n_neg)
    assert model.mu_.sum() == pytest.approx(1.0) and np.all(model.mu_ >= 0)


def test_model_is_the_mixed_expansion():
    """f(x) = sum_i alpha_i (sum_t mu_t y_ti) k(x_i, x); transduction_ is its sign."""
    X, y, truth = ssl_problem(6, n_unl=50)
    model = WellSVM(C2=0.2, gamma=GAMMA, standardize=False).fit(X, y)
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
    model = WellSVM(balance=0.25, gamma=GAMMA, standardize=False).fit(X, y)
    assert np.all((model.label_vectors_[y == -1] == 1).sum(axis=0) == 10)


def test_alignment_start_is_reproducible():
    X, y, _ = ssl_problem(8, n_unl=40)
    a = WellSVM(init="alignment", random_state=0, gamma=GAMMA, standardize=False).fit(X, y)
    b = WellSVM(init="alignment", random_state=0, gamma=GAMMA, standardize=False).fit(X, y)
    np.testing.assert_array_equal(a.label_vectors_, b.label_vectors_)


# --------------------------------------------------------------------------- estimator API
@pytest.mark.parametrize("fmt", ["sparse", "float32", "precomputed"])
def test_input_formats_agree(fmt):
    X, y, _ = ssl_problem(9, n_unl=40)
    ref = WellSVM(gamma=GAMMA, standardize=False).fit(X, y)
    if fmt == "precomputed":
        model = WellSVM(kernel="precomputed").fit(rbf_kernel(X, gamma=GAMMA), y)
        got = model.decision_function(rbf_kernel(X[:5], X, gamma=GAMMA))
    else:
        Xf = sp.csr_matrix(X) if fmt == "sparse" else X.astype(np.float32)
        model = WellSVM(gamma=GAMMA, standardize=False).fit(Xf, y)
        got = model.decision_function(Xf[:5])
    atol = 1e-4 if fmt == "float32" else 1e-8
    np.testing.assert_allclose(got, ref.decision_function(X[:5]), atol=atol)
    np.testing.assert_array_equal(model.transduction_, ref.transduction_)


def test_string_labels_and_inputs_unchanged():
    X, y, _ = ssl_problem(10, n_unl=30)
    ys = np.array([-1 if v == -1 else ("spam" if v == 1 else "ham") for v in y], dtype=object)
    X0, ys0 = X.copy(), ys.copy()
    model = WellSVM(gamma=GAMMA, standardize=False).fit(X, ys)
    assert model.classes_.tolist() == ["ham", "spam"]
    assert set(model.predict(X)) <= {"ham", "spam"}
    np.testing.assert_array_equal(X, X0)
    np.testing.assert_array_equal(ys, ys0)


@pytest.mark.parametrize(
    "change, match",
    [
        ({"y": "one class"}, "only one class is labeled"),
        ({"y": "three classes", "balance": 0.3}, "y holds 3 classes: leave balance=None"),
        ({"y": "three classes", "probability": True}, r"the classes \[2\.0\] have fewer"),
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

    monkeypatch.setattr(WellSVM, "_backend", no_work)  # the engine's kernel rows or solver
    with pytest.raises((ValueError, TypeError), match=match):
        WellSVM(**params).fit(X, y)


@pytest.mark.parametrize("sparse", [False, True])
def test_linear_path_equals_kernel_path(sparse):
    """kernel='linear' runs on the linear dual solver with w kept (the large-scale path, taken
    once the Gram matrix outgrows cache_size: here 10 kB; the backend chosen is checked in
    tests/internals/test_label_generation.py); the same relaxation on the SMO solver with the
    precomputed linear Gram matrix agrees."""
    from sklearn.metrics.pairwise import linear_kernel

    from unlabeled.ssl import TSVM

    X, y, _ = ssl_problem(12, n_unl=60, d=4, shift=0.8)
    Xf = sp.csr_matrix(X) if sparse else X
    kw = {"tol": 1e-7, "max_mkl_iter": 3000, "loss": "hinge", "standardize": False}
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
    t_lin = TSVM(kernel="linear", tol=1e-7, cache_size=0.01, standardize=False).fit(Xf, y)
    t_ref = TSVM(kernel="precomputed", tol=1e-7).fit(linear_kernel(X), y)
    np.testing.assert_array_equal(t_lin.transduction_, t_ref.transduction_)
    np.testing.assert_allclose(
        t_lin.decision_function(Xf), t_ref.decision_function(linear_kernel(X)), atol=1e-4
    )


# ---- the authors' code's options: the finish and the two-kernel MKL step ------------------
CVX = {"solver": "CLARABEL", "tol_gap_abs": 1e-9, "tol_gap_rel": 1e-9, "tol_feas": 1e-9}


def balanced_by(f, y):
    """The paper's balance applied to decision values: the given labels, and of the unlabeled
    points the ceil(n_U p) with the largest f positive (p the labeled positive share)."""
    s = signs_of(y)
    out = s.astype(int).copy()
    unl = np.flatnonzero(s == 0)
    n_neg = paper_balance(s)
    order = unl[np.argsort(-f[unl], kind="stable")]
    out[order[: unl.size - n_neg]] = 1
    out[order[unl.size - n_neg :]] = -1
    return out


@pytest.mark.parametrize("finish", ["self_training", "authors"])
@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
def test_finish_is_the_svm_on_its_own_balanced_labels(finish, loss):
    """The finish ends at a self-training fixed point: the model is the SVM without offset
    (cvxpy + Clarabel) on the labels that its own decision values give under the balance
    constraint."""
    cp = pytest.importorskip("cvxpy")
    X, y, _ = ssl_problem(21, n_lab=6, n_unl=30, shift=0.7)
    C = box(y, 1.0, 0.2)
    model = WellSVM(
        C1=1.0, C2=0.2, gamma=GAMMA, standardize=False, loss=loss, finish=finish, tol=1e-6
    ).fit(X, y)
    lab = balanced_by(model.decision_function(X), y)
    K = rbf_kernel(X, gamma=GAMMA)
    Q = K * np.outer(lab, lab) + (np.diag(1.0 / C) if loss == "squared_hinge" else 0.0)
    a = cp.Variable(len(y))
    cons = [a >= 0] + ([a <= C] if loss == "hinge" else [])
    cp.Problem(cp.Minimize(0.5 * cp.sum_squares(psd_factor(Q).T @ a) - cp.sum(a)), cons).solve(
        **CVX
    )
    T = np.random.default_rng(2).normal(size=(9, 2))
    np.testing.assert_allclose(
        model.decision_function(T), rbf_kernel(T, X, gamma=GAMMA) @ (a.value * lab), atol=1e-3
    )
    np.testing.assert_array_equal(model.transduction_[y != -1], y[y != -1])


@pytest.mark.filterwarnings("ignore:WellSVM stopped after max_iter")
def test_two_kernels_is_a_looser_relaxation():
    """two_kernels=True learns only the weights of the folded working set and of the new label
    kernel: its value is the SVM on its final combined kernel (a saddle point, cvxpy), at least
    the full MKL optimum over the same label vectors (cvxpy), and it never increases."""
    cp = pytest.importorskip("cvxpy")
    X, y, _ = ssl_problem(5, n_lab=6, n_unl=60, shift=1.0)
    C = box(y, 1.0, 0.3)
    K = rbf_kernel(X, gamma=GAMMA)
    kw = {
        "C2": 0.3,
        "gamma": GAMMA,
        "standardize": False,
        "tol": 1e-6,
        "max_mkl_iter": 3000,
        "max_iter": 4,
        "loss": "hinge",
    }
    two = WellSVM(two_kernels=True, **kw).fit(X, y)
    h = two.objective_history_
    assert h.size >= 3 and np.all(np.diff(h) <= 0)
    Y = two.label_vectors_.astype(float)
    a, s = cp.Variable(len(y)), cp.Variable()
    V = psd_factor(K)
    cons = [a >= 0, a <= C]
    cons += [
        cp.sum(a) - 0.5 * cp.sum_squares(V.T @ cp.multiply(Y[:, t], a)) >= s
        for t in range(Y.shape[1])
    ]
    cp.Problem(cp.Maximize(s), cons).solve(**CVX)
    assert h[-1] >= s.value - 1e-5 * abs(s.value)
    M = K * (Y @ np.diag(two.mu_) @ Y.T)
    b = cp.Variable(len(y))
    svm = cp.Problem(
        cp.Maximize(cp.sum(b) - 0.5 * cp.sum_squares(psd_factor(M).T @ b)), [b >= 0, b <= C]
    )
    svm.solve(**CVX)
    assert h[-1] == pytest.approx(svm.value, rel=1e-4)
    full = WellSVM(**kw).fit(X, y)
    assert not np.allclose(full.mu_[: two.mu_.size], two.mu_[: full.mu_.size], atol=1e-3)


def test_finish_and_two_kernels_are_checked():
    X, y, _ = ssl_problem(11, n_unl=10)
    with pytest.raises(ValueError, match="finish must be"):
        WellSVM(finish="later").fit(X, y)
    with pytest.raises((ValueError, TypeError), match="two_kernels must be"):
        WellSVM(two_kernels="yes").fit(X, y)


def test_auto_loss_is_the_squared_hinge_where_it_runs():
    """loss='auto' (the default): the squared hinge on the kernel path, the hinge where
    kernel='linear' takes the linear solver."""
    X, y, _ = ssl_problem(12, n_unl=60, d=4, shift=0.8)
    auto = WellSVM(gamma=GAMMA, standardize=False).fit(X, y)
    sq = WellSVM(gamma=GAMMA, standardize=False, loss="squared_hinge").fit(X, y)
    np.testing.assert_array_equal(auto.objective_history_, sq.objective_history_)
    np.testing.assert_array_equal(auto.decision_function(X), sq.decision_function(X))
    lin = WellSVM(kernel="linear", cache_size=0.01).fit(X, y)
    hinge = WellSVM(kernel="linear", cache_size=0.01, loss="hinge").fit(X, y)
    np.testing.assert_array_equal(lin.objective_history_, hinge.objective_history_)


def test_squared_hinge_on_an_indefinite_kernel_names_the_kernel_and_fix():
    rng = np.random.default_rng(0)
    A = rng.normal(size=(30, 30))
    K = (A + A.T) / 2
    y = np.full(30, -1)
    y[:3], y[3:6] = 0, 1
    est = WellSVM(kernel="precomputed", loss="squared_hinge")
    with pytest.raises(ValueError, match=r"positive semi-definite.*precomputed.*loss='hinge'"):
        est.fit(K, y)
    assert not hasattr(est, "support_")
