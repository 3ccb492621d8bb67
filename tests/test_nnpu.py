"""NNPUClassifier: the solve against independent references (cvxpy + Clarabel for the convex
uPU with the logistic loss, linear and exact-kernel; for the non-convex and non-smooth nnPU, a
derivative-free multi-start and random directions that find no better point), the risk
written out here in NumPy, sample weights as repeated rows, and the parameters' checks."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import minimize
from scipy.special import expit, log_expit

from unlabeled import NNPUClassifier
from unlabeled.pu import PUSVC


def _data(seed=0, n_pos=12, n_unl=60, d=2, prior=0.4, shift=1.5):
    rng = np.random.default_rng(seed)
    y_u = rng.random(n_unl) < prior
    Xu = rng.normal(size=(n_unl, d)) + shift * y_u[:, None]
    Xp = rng.normal(size=(n_pos, d)) + shift
    X = np.r_[Xp, Xu]
    s = np.r_[np.ones(n_pos, int), np.zeros(n_unl, int)]
    return X, s, prior


def _risk(f, s, prior, loss, non_negative, weight=None, beta=0.0):
    """The PU risk of the class docstring, written out independently of the library."""
    weight = np.ones(s.size) if weight is None else weight
    p, u = s == 1, s == 0
    a, c = weight[p] / weight[p].sum(), weight[u] / weight[u].sum()
    if loss == "sigmoid":
        ell = lambda z: expit(-z)  # noqa: E731
    else:
        ell = lambda z: -log_expit(z)  # noqa: E731
    pos = prior * a @ ell(f[p])
    g = c @ ell(-f[u]) - prior * a @ ell(-f[p])
    return pos + (max(-beta, g) if non_negative else g)


def _objective(theta, X, s, prior, lam, loss, non_negative, weight=None):
    w, b = theta[:-1], theta[-1]
    return _risk(X @ w + b, s, prior, loss, non_negative, weight) + 0.5 * lam * w @ w


def _fit(**params):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no convergence warning on these problems
        return NNPUClassifier(threshold="zero", **params)


@pytest.mark.parametrize("weighted", [False, True])
def test_upu_logistic_matches_cvxpy(weighted):
    cp = pytest.importorskip("cvxpy")
    X, s, prior = _data(1, d=3)
    lam = 0.05
    weight = np.random.default_rng(3).uniform(0.2, 2.0, s.size) if weighted else None
    est = _fit(prior=prior, lam=lam, loss="logistic", non_negative=False, tol=1e-9)
    est.fit(X, s, sample_weight=weight)

    wt = np.ones(s.size) if weight is None else weight
    p, u = s == 1, s == 0
    a, c = wt[p] / wt[p].sum(), wt[u] / wt[u].sum()
    w, b = cp.Variable(3), cp.Variable()
    # logistic l(z) - l(-z) = -z: uPU is -pi mean_P f + mean_U log(1 + e^f) + lam |w|^2 / 2
    obj = -prior * a @ (X[p] @ w + b) + c @ cp.logistic(X[u] @ w + b) + lam / 2 * cp.sum_squares(w)
    problem = cp.Problem(cp.Minimize(obj))
    problem.solve(solver="CLARABEL", tol_gap_abs=1e-10, tol_gap_rel=1e-10, tol_feas=1e-10)
    assert est.objective_ == pytest.approx(problem.value, abs=1e-8)
    np.testing.assert_allclose(est.coef_[0], w.value, atol=1e-4)
    assert est.intercept_[0] == pytest.approx(float(b.value), abs=1e-4)
    theta = np.r_[est.coef_[0], est.intercept_[0]]
    assert _objective(theta, X, s, prior, lam, "logistic", False, weight) == pytest.approx(
        est.objective_, abs=1e-12
    )


def test_exact_kernel_expansion_matches_cvxpy():
    """rbf with every training point a landmark: the representer-theorem expansion of the
    regularised uPU risk, lam ||f||_H^2 / 2 = lam alpha' K alpha / 2."""
    cp = pytest.importorskip("cvxpy")
    X, s, prior = _data(2, n_pos=10, n_unl=40)
    lam, gamma = 0.05, 0.5
    est = _fit(prior=prior, lam=lam, loss="logistic", non_negative=False, kernel="rbf")
    est.set_params(gamma=gamma, tol=1e-9).fit(X, s)

    K = np.exp(-gamma * ((X[:, None] - X[None]) ** 2).sum(-1))
    vals, vecs = np.linalg.eigh(K)
    L = vecs * np.sqrt(np.clip(vals, 0, None))  # K = L L'
    p, u = s == 1, s == 0
    v, b = cp.Variable(X.shape[0]), cp.Variable()  # f = L v + b, ||f||_H = ||v||
    f = L @ v + b
    obj = -prior * cp.sum(f[p]) / p.sum() + cp.sum(cp.logistic(f[u])) / u.sum()
    problem = cp.Problem(cp.Minimize(obj + lam / 2 * cp.sum_squares(v)))
    problem.solve(solver="CLARABEL", tol_gap_abs=1e-10, tol_gap_rel=1e-10, tol_feas=1e-10)
    assert est.objective_ == pytest.approx(problem.value, abs=1e-7)
    np.testing.assert_allclose(est.decision_function(X), L @ v.value + b.value, atol=1e-3)


@pytest.mark.parametrize("loss", ["sigmoid", "logistic"])
def test_nnpu_is_a_minimum_no_multistart_beats(loss):
    """Few labeled positives, where uPU drives g below zero: nnPU's point has g at the kink
    (or above), its objective is the risk written out here, random directions find no lower
    value near it, and a derivative-free search (Nelder-Mead on the exact, non-smooth
    objective) from 5 random starts and from it finds none lower either."""
    X, s, prior = _data(4, n_pos=6, n_unl=40, shift=2.0)
    lam = 1e-3
    upu = _fit(prior=prior, lam=lam, loss=loss, non_negative=False).fit(X, s)
    assert upu.negative_risk_ < -1e-3  # uPU overfits: the non-negative correction acts
    est = _fit(prior=prior, lam=lam, loss=loss).fit(X, s)
    assert est.negative_risk_ >= -1e-4
    assert est.stationarity_ < 1e-4
    theta = np.r_[est.coef_[0], est.intercept_[0]]
    J = lambda t: _objective(t, X, s, prior, lam, loss, True)  # noqa: E731
    assert J(theta) == pytest.approx(est.objective_, abs=1e-12)
    rng = np.random.default_rng(0)
    for _ in range(100):
        d = rng.normal(size=theta.size)
        d /= np.linalg.norm(d)
        for eps in (1e-2, 1e-3):
            assert J(theta + eps * d) >= J(theta) - 1e-7
    best = np.inf
    starts = [theta] + [rng.normal(scale=2.0, size=theta.size) for _ in range(5)]
    for t0 in starts:
        res = minimize(
            J, t0, method="Nelder-Mead", options={"xatol": 1e-9, "fatol": 1e-12, "maxiter": 20000}
        )
        best = min(best, res.fun)
    assert est.objective_ <= best + 1e-6


def test_nnpu_is_upu_where_the_negative_risk_stays_positive():
    X, s, prior = _data(5, n_pos=30, n_unl=80)
    kw = {"prior": prior, "lam": 0.1, "loss": "logistic"}
    upu = _fit(non_negative=False, **kw).fit(X, s)
    assert upu.negative_risk_ > 0
    nnpu = _fit(**kw).fit(X, s)
    np.testing.assert_array_equal(nnpu.coef_, upu.coef_)
    assert nnpu.objective_ == upu.objective_


def test_beta_interpolates_between_nnpu_and_upu():
    X, s, prior = _data(4, n_pos=6, n_unl=40, shift=2.0)
    kw = {"prior": prior, "lam": 1e-3, "loss": "logistic"}
    upu = _fit(non_negative=False, **kw).fit(X, s)
    loose = _fit(beta=1e6, **kw).fit(X, s)  # g never reaches -1e6: uPU
    np.testing.assert_allclose(loose.coef_, upu.coef_)
    mid = _fit(beta=-upu.negative_risk_ / 2, **kw).fit(X, s)
    assert mid.negative_risk_ == pytest.approx(upu.negative_risk_ / 2, abs=1e-4)


def test_sample_weight_is_repeating_rows():
    X, s, prior = _data(6)
    weight = np.where(np.arange(s.size) % 3 == 0, 2.0, 1.0)
    rows = np.repeat(np.arange(s.size), weight.astype(int))
    kw = {"prior": prior, "lam": 0.01, "tol": 1e-9}
    a = _fit(**kw).fit(X, s, sample_weight=weight)
    b = _fit(**kw).fit(X[rows], s[rows])
    np.testing.assert_allclose(a.coef_, b.coef_, atol=1e-6)
    np.testing.assert_allclose(a.intercept_, b.intercept_, atol=1e-6)


def test_sparse_and_standardized_inputs():
    X, s, prior = _data(7, d=3)
    X = X * [1.0, 100.0, 0.01] + [0.0, 50.0, 0.0]
    kw = {"prior": prior, "lam": 0.01, "tol": 1e-9}
    dense = _fit(standardize=True, **kw).fit(X, s)
    mean, sd = X.mean(0), X.std(0)
    pre = _fit(**kw).fit((X - mean) / sd, s)
    np.testing.assert_allclose(
        dense.decision_function(X), pre.decision_function((X - mean) / sd), atol=1e-5
    )
    Xs = np.abs(X[:, :2])
    a = _fit(**kw).fit(Xs, s)
    b = _fit(**kw).fit(sp.csr_matrix(Xs), s)
    np.testing.assert_allclose(
        a.decision_function(Xs), b.decision_function(sp.csr_matrix(Xs)), atol=1e-10
    )


def test_threshold_prior_and_auto_prior():
    X, s, prior = _data(8, n_pos=20, n_unl=100)
    est = NNPUClassifier(prior=prior).fit(X, s)  # the default threshold="prior"
    unl = s == 0
    assert est.predict(X[unl]).sum() == round(prior * unl.sum())
    assert est.threshold_ != 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # a wide prior interval
        auto = NNPUClassifier(prior="auto", random_state=0).fit(X, s)
        ref = PUSVC(prior="auto", random_state=0).fit(X, s)
    assert auto.prior_estimator_ == ref.prior_estimator_ == "Blend"
    assert auto.prior_ == ref.prior_ and auto.prior_interval_ == ref.prior_interval_


def test_probability_and_outputs():
    X, s, prior = _data(9, n_pos=20, n_unl=100)
    est = NNPUClassifier(prior=prior, probability=True, random_state=0).fit(X, s)
    P = est.predict_proba(X)
    f = est.decision_function(X)
    assert np.all(np.diff(P[np.argsort(f), 1]) >= -1e-12)  # non-decreasing in f
    np.testing.assert_allclose(P.sum(1), 1.0)
    assert set(np.unique(est.predict(X))) <= {0, 1}


def test_memory_budget_refuses_the_nystroem_features():
    from unlabeled import config_context
    from unlabeled.exceptions import MemoryBudgetError

    X, s, prior = _data(0)
    est = NNPUClassifier(prior=prior, kernel="rbf")
    with config_context(max_dense_bytes=1000), pytest.raises(MemoryBudgetError, match="n_comp"):
        est.fit(X, s)
    assert not hasattr(est, "coef_") and not hasattr(est, "support_")


@pytest.mark.parametrize(
    ("params", "fit_kw", "match"),
    [
        ({"beta": -1.0}, {}, "beta"),
        ({"loss": "hinge"}, {}, "loss"),
        ({"kernel": "precomputed"}, {}, "kernel"),
        ({"n_components": 0}, {}, "n_components"),
        ({}, {"sample_weight": -np.ones(72)}, "non-negative"),
        ({}, {"sample_weight": np.ones(5)}, "shape"),
        ({}, {"sample_weight": np.r_[np.zeros(12), np.ones(60)]}, "labeled positives"),
    ],
)
def test_bad_parameters_are_refused_before_work(params, fit_kw, match):
    X, s, prior = _data(0)
    est = NNPUClassifier(prior=prior, **params)
    with pytest.raises((ValueError, TypeError), match=match):
        est.fit(X, s, **fit_kw)
    assert not hasattr(est, "coef_") or not hasattr(est, "n_features_in_")
    with pytest.raises(ValueError, match="prior"):
        NNPUClassifier().fit(X, s)


# ---------------------------------------------------------------------- the network
def _mlp(**params):
    from unlabeled.pu import NNPUMLPClassifier

    base = {
        "hidden_layer_sizes": (32, 32),
        "batch_size": 100,
        "learning_rate": 1e-2,
        "weight_decay": 0.0,
        "random_state": 0,
        "n_jobs": 1,
    }
    return NNPUMLPClassifier(**{**base, **params})


def test_mlp_non_negative_rule_stops_the_negative_risk_going_below_zero():
    """The paper's figure 1 in small: a flexible network on few labeled positives drives the
    uPU estimate of the negative risk far below zero (it memorises the positives); the nnPU
    rule keeps it near zero, and the test F1 is higher."""
    pytest.importorskip("torch")
    from sklearn.metrics import f1_score

    rng = np.random.default_rng(0)
    y = (rng.random(700) < 0.4).astype(int)
    X = rng.normal(size=(700, 5)) + 1.0 * y[:, None]
    s = np.zeros(700, int)
    s[np.flatnonzero(y[:500])[:15]] = 1  # 15 labeled positives among the 500 training rows
    prior = float(y[:500][s[:500] == 0].mean())
    kw = {"prior": prior, "max_iter": 40, "threshold": "zero", "loss": "sigmoid"}
    upu = _mlp(non_negative=False, **kw).fit(X[:500], s[:500])
    nnpu = _mlp(**kw).fit(X[:500], s[:500])
    assert upu.negative_risk_ < -0.1
    assert nnpu.negative_risk_ > -0.03
    f1 = [f1_score(y[500:], m.predict(X[500:])) for m in (upu, nnpu)]
    assert f1[1] > f1[0] + 0.05, f1


def test_mlp_reproducible_weighted_and_checked():
    pytest.importorskip("torch")
    X, s, prior = _data(3, n_pos=20, n_unl=80)
    kw = {"prior": prior, "max_iter": 5, "hidden_layer_sizes": (8,)}
    a, b = _mlp(**kw).fit(X, s), _mlp(**kw).fit(X, s)
    np.testing.assert_array_equal(a.weights_, b.weights_)
    assert a.layer_sizes_ == (2, 8, 1) and a.weights_.size == 2 * 8 + 8 + 8 + 1
    # threshold="prior": round(prior n) of the training unlabeled points predicted positive
    assert a.predict(X[s == 0]).sum() == round(prior * (s == 0).sum())
    # weights 2 on some rows: as the rows repeated, up to the batches drawn (no exact check)
    w = _mlp(**kw).fit(X, s, sample_weight=np.where(np.arange(s.size) % 2, 2.0, 1.0))
    assert np.all(np.isfinite(w.decision_function(X)))
    for params, match in (
        ({"hidden_layer_sizes": (0,)}, "hidden_layer_sizes"),
        ({"device": "tpu"}, "device"),
        ({"gamma": 0.0}, "gamma"),
    ):
        est = _mlp(prior=prior, **params)
        with pytest.raises(ValueError, match=match):
            est.fit(X, s)
        assert not hasattr(est, "weights_")
