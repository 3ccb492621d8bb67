"""fit(X, s, propensity=e) beyond PUSVC: nnPU (linear, kernel, network), the biased SVM, the
bagging SVM and the weighted Elkan-Noto method, against independent references (cvxpy +
Clarabel on the convex SAR risks, the risk written out here, the SCAR fit on the population
sample for a constant propensity) and on generated SAR data (labels depend on one feature)
where the weighted fit must beat the SCAR one."""

from __future__ import annotations

import inspect
import pickle
import warnings

import numpy as np
import pytest
from conftest import registered_params
from scipy.special import expit, log_expit
from sklearn.metrics import f1_score
from sklearn.neighbors import KNeighborsClassifier
from sklearn.tree import DecisionTreeClassifier

import unlabeled
from unlabeled.pu import (
    PUSVC,
    BaggingPUClassifier,
    BiasedSVM,
    DoubleHingeQP,
    ElkanNotoClassifier,
    NNPUClassifier,
    NNPUMLPClassifier,
    PositiveNaiveBayes,
)


def _sar_data(n, seed):
    """y from x0 and x2, a positive labeled with probability e(x) = sigmoid(3 x1 - 1): x1 is
    independent of the class, so a SCAR fit learns that x1 predicts it."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = rng.random(n) < expit(3 * X[:, 0] + X[:, 2])
    e = expit(3 * X[:, 1] - 1.0)
    return X, y, e, (y & (rng.random(n) < e)).astype(int)


def _small(seed, n=60, n_pos=15):
    """Small data, the labeled positives last (so that the population sample in row order is
    the unlabeled points then the labeled ones, as in the augmented data below)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    X[-n_pos:] += 1.0
    X[: n // 3] += 0.8  # some positives among the unlabeled points
    s = np.r_[np.zeros(n - n_pos, int), np.ones(n_pos, int)]
    return X, s, rng.uniform(0.1, 0.9, n)


def _population(X, s):
    """The data where each labeled point is also an unlabeled one (appended, in order)."""
    lab = np.flatnonzero(s == 1)
    return np.r_[X, X[lab]], np.r_[s, np.zeros(lab.size, int)]


def _shares(s, e, prior):
    """(pi_N, the labeled positives' weights a summing to 1) of the SAR risk."""
    mask = s == 1
    share = (mask.sum() + prior * (~mask).sum()) / s.size
    w = 1.0 / e[mask]
    return share, w / w.sum()


# ---------------------------------------------------------------------- nnPU
@pytest.mark.parametrize("kernel", ["linear", "precomputed"])
def test_sar_upu_logistic_matches_cvxpy(kernel):
    # uPU with the logistic loss is convex (l(z) - l(-z) = -z): the SAR risk is
    # -pi_N sum_P a_p f_p + mean over all points of log(1 + e^f) + lam |w|^2 / 2
    cp = pytest.importorskip("cvxpy")
    X, s, e = _small(0)
    lam, prior = 0.05, 0.3
    Xf = X @ X.T if kernel == "precomputed" else X  # a Gram matrix: the exact expansion
    est = NNPUClassifier(
        prior=prior,
        lam=lam,
        loss="logistic",
        non_negative=False,
        kernel=kernel,
        tol=1e-9,
        threshold="zero",
    ).fit(Xf, s, propensity=e)
    share, a = _shares(s, e, prior)
    w, b = cp.Variable(2), cp.Variable()
    f = X @ w + b
    obj = -share * a @ f[s == 1] + cp.sum(cp.logistic(f)) / s.size + lam / 2 * cp.sum_squares(w)
    problem = cp.Problem(cp.Minimize(obj))
    problem.solve(solver="CLARABEL", tol_gap_abs=1e-10, tol_gap_rel=1e-10, tol_feas=1e-10)
    assert est.objective_ == pytest.approx(problem.value, abs=1e-7)
    np.testing.assert_allclose(est.decision_function(Xf), X @ w.value + b.value, atol=1e-4)
    assert est.positive_share_ == pytest.approx(share) and est.prior_ == prior


@pytest.mark.parametrize("loss", ["sigmoid", "logistic"])
def test_sar_nnpu_reports_the_weighted_risk_written_out(loss):
    X, s, e = _small(1)
    prior, lam = 0.3, 1e-3
    est = NNPUClassifier(prior=prior, lam=lam, loss=loss, tol=1e-8, threshold="zero")
    est.fit(X, s, propensity=e)
    f = est.decision_function(X)
    ell = (lambda z: expit(-z)) if loss == "sigmoid" else (lambda z: -log_expit(z))
    share, a = _shares(s, e, prior)
    p = s == 1
    g = ell(-f).mean() - share * a @ ell(-f[p])
    w = est.coef_[0]
    J = share * a @ ell(f[p]) + max(0.0, g) + lam / 2 * w @ w
    assert est.negative_risk_ == pytest.approx(g, abs=1e-12)
    assert est.objective_ == pytest.approx(J, abs=1e-12)
    assert g >= -1e-6  # the non-negative correction holds the weighted g at zero or above


@pytest.mark.parametrize("kernel", ["linear", "rbf"])
def test_sar_nnpu_constant_propensity_is_the_population_fit(kernel):
    # a constant e = c weights every labeled positive alike, whatever c: the SCAR fit on the
    # data where each labeled point is also an unlabeled one, at the share pi_N
    X, s, _ = _small(2)
    fits = [
        NNPUClassifier(prior=0.3, kernel=kernel, gamma=0.5, tol=1e-9).fit(
            X, s, propensity=np.full(s.size, c)
        )
        for c in (0.2, 0.7)
    ]
    Xa, sa = _population(X, s)
    ref = NNPUClassifier(prior=fits[0].positive_share_, kernel=kernel, gamma=0.5, tol=1e-9)
    ref.fit(Xa, sa)
    for est in fits:
        assert est.objective_ == pytest.approx(ref.objective_, rel=1e-7, abs=1e-10)
        np.testing.assert_allclose(est.decision_function(X), ref.decision_function(X), atol=1e-4)
    np.testing.assert_array_equal(fits[0].predict(X), fits[1].predict(X))


def test_sar_nnpu_with_sample_weight_is_repeated_rows():
    # sample weights multiply 1 / e: weight 2 on a row is that row twice
    X, s, e = _small(3)
    wt = np.ones(s.size)
    wt[[0, 50]] = 2.0
    est = NNPUClassifier(prior=0.3, tol=1e-10).fit(X, s, sample_weight=wt, propensity=e)
    rows = np.r_[np.arange(s.size), 0, 50]
    ref = NNPUClassifier(prior=0.3, tol=1e-10).fit(X[rows], s[rows], propensity=e[rows])
    assert est.positive_share_ == pytest.approx(ref.positive_share_)
    np.testing.assert_allclose(est.decision_function(X), ref.decision_function(X), atol=1e-5)


def test_sar_mlp_trains_on_the_weighted_risk():
    pytest.importorskip("torch")
    X, y, e, s = _sar_data(1200, 4)
    Xt, yt, _, _ = _sar_data(3000, 5)
    prior = float(y[s == 0].mean())
    kw = {"prior": prior, "max_iter": 30, "random_state": 0}
    scar = NNPUMLPClassifier(**kw).fit(X, s)
    sar = NNPUMLPClassifier(**kw).fit(X, s, propensity=e)
    # the reported g is the SAR risk's, from the network's outputs
    f = sar.decision_function(X) + sar.threshold_
    share, a = _shares(s, e, prior)
    ell_neg = -log_expit(-f)  # the default logistic loss at -f
    g = ell_neg.mean() - share * a @ ell_neg[s == 1]
    assert sar.negative_risk_ == pytest.approx(g, abs=1e-6)
    assert sar.positive_share_ == pytest.approx(share)
    # threshold="prior": the share pi_N of all the training points above it
    assert (sar.decision_function(X) > 0).mean() == pytest.approx(share, abs=2 / s.size)
    f1 = [f1_score(yt, m.predict(Xt)) for m in (scar, sar)]
    assert f1[1] > f1[0] + 0.05, f1


# ---------------------------------------------------------------------- baselines
@pytest.mark.parametrize("kernel", ["linear", "rbf"])
def test_sar_double_hinge_qp_is_pusvc_sar_problem(kernel):
    # the same SAR dual by Clarabel on the dense Gram matrix and by the engine's pair solver
    pytest.importorskip("clarabel")
    X, s, e = _small(14)
    kw = {"prior": 0.3, "lam": 0.05, "kernel": kernel, "gamma": 0.5}
    qp = DoubleHingeQP(**kw).fit(X, s, propensity=e)
    ref = PUSVC(**kw, tol=1e-7).fit(X, s, propensity=e)
    assert qp.objective_ == pytest.approx(ref.objective_, rel=1e-6)
    assert qp.positive_share_ == pytest.approx(ref.positive_share_)
    np.testing.assert_allclose(qp.decision_function(X), ref.decision_function(X), atol=1e-4)
    # a SCAR refit drops the SAR fit's share: the threshold is the prior's again
    scar = qp.fit(X, s)
    assert not hasattr(scar, "positive_share_") and not hasattr(scar, "_sar")
    assert scar.objective_ == pytest.approx(DoubleHingeQP(**kw).fit(X, s).objective_)


# ---------------------------------------------------------------------- classic SVMs
def _svm_primal(X, s, e, C, c_pos):
    """The SAR biased SVM's primal with a linear kernel, by cvxpy + Clarabel: positives by
    r = (1 / e) / mean(1 / e), every point a negative."""
    import cvxpy as cp

    p = s == 1
    r = 1.0 / e[p]
    r /= r.mean()
    w, b = cp.Variable(X.shape[1]), cp.Variable()
    f = X @ w + b
    obj = 0.5 * cp.sum_squares(w) + c_pos * r @ cp.pos(1 - f[p]) + C * cp.sum(cp.pos(1 + f))
    problem = cp.Problem(cp.Minimize(obj))
    problem.solve(solver="CLARABEL")
    return problem.value, r


def test_sar_biased_svm_matches_cvxpy():
    pytest.importorskip("cvxpy")
    X, s, e = _small(5)
    C, weight = 0.1, 2.0
    est = BiasedSVM(weight, C=C, kernel="linear", tol=1e-8).fit(X, s, propensity=e)
    c_pos = weight * C * s.size / s.sum()
    reference, r = _svm_primal(X, s, e, C, c_pos)
    f = est.decision_function(X)
    w = est.coef_[0]
    p = s == 1
    J = 0.5 * w @ w + c_pos * r @ np.maximum(0, 1 - f[p]) + C * np.maximum(0, 1 + f).sum()
    assert J == pytest.approx(reference, rel=1e-5)


def test_sar_biased_svm_and_bagging_constant_propensity_is_the_population_fit():
    X, s, _ = _small(6)
    Xa, sa = _population(X, s)
    flat = np.full(s.size, 0.4)
    # registry: each classic estimator with its own constant-propensity reference
    for est in (
        BiasedSVM(2.0, C=0.1, gamma=0.5, tol=1e-8),
        BaggingPUClassifier(4, C=0.5, gamma=0.5, tol=1e-8, random_state=0),
        BaggingPUClassifier(4, estimator=DecisionTreeClassifier(max_depth=2), random_state=0),
    ):
        sar = est.fit(X, s, propensity=flat).decision_function(X)
        ref = est.fit(Xa, sa).decision_function(X)
        np.testing.assert_allclose(sar, ref, atol=1e-6)


def test_sar_elkan_noto_constant_propensity_is_the_scar_fit_at_c():
    # the weights (1 - e)/e g/(1 - g) with e = c are the SCAR method's at the label frequency c
    X, s, _ = _small(7)
    scar = ElkanNotoClassifier(weighted=True, gamma=0.5, random_state=0).fit(X, s)
    sar = ElkanNotoClassifier(weighted=True, gamma=0.5, random_state=0)
    sar.fit(X, s, propensity=np.full(s.size, scar.c_))
    np.testing.assert_allclose(sar.weights_, scar.weights_, rtol=1e-12)
    np.testing.assert_allclose(sar.decision_function(X), scar.decision_function(X), atol=1e-10)
    # c_ is then the labeled share of the expected positives, prior_ the mean weight
    assert sar.prior_ == pytest.approx(sar.weights_.mean())
    assert sar.c_ == pytest.approx(s.sum() / (s.sum() + sar.weights_.sum()))


@pytest.mark.parametrize(
    "make",
    # registry: the SAR estimators with settings of their own
    [
        lambda prior: NNPUClassifier(prior=prior),
        lambda prior: BiasedSVM(random_state=0),
        lambda prior: BaggingPUClassifier(random_state=0),
        lambda prior: ElkanNotoClassifier(weighted=True, random_state=0),
    ],
    ids=["nnpu", "biased", "bagging", "elkan-noto"],
)
def test_sar_fit_beats_the_scar_fit_and_saves_like_it(make, tmp_path):
    X, y, e, s = _sar_data(800, 8)
    Xt, yt, _, _ = _sar_data(2000, 9)
    prior = float(y[s == 0].mean())
    scar = make(prior).fit(X, s)
    sar = make(prior).fit(X, s, propensity=e)
    f1 = [f1_score(yt, m.predict(Xt)) for m in (scar, sar)]
    assert f1[1] > f1[0] + 0.05, f1
    # fit's arguments are not part of the model: pickling and model files as for SCAR
    before = sar.decision_function(Xt)
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(sar)).decision_function(Xt), before)
    unlabeled.save(sar, tmp_path / "sar.skops")
    np.testing.assert_array_equal(
        unlabeled.load(tmp_path / "sar.skops").decision_function(Xt), before
    )


def test_sar_refusals_name_the_setting_and_leave_the_estimator_as_it_was():
    X, s, e = _small(10)
    # registry: each estimator's SCAR-only setting and its message
    for est, match in (
        (NNPUClassifier(prior="auto"), "prior='auto'"),
        (NNPUClassifier(prior=0.3, probability=True), "probability=True"),
        (BiasedSVM(probability=True), "probability=True"),
        (BaggingPUClassifier(probability=True), "probability=True"),
        (ElkanNotoClassifier(), "weighted=False"),
        (BaggingPUClassifier(estimator=KNeighborsClassifier()), "sample_weight"),
    ):
        with pytest.raises(ValueError, match=match):
            est.fit(X, s, propensity=e)
        assert not hasattr(est, "n_features_in_")
    bad = e.copy()
    bad[0] = 0.0  # an unlabeled point: Elkan-Noto's weights read e there too
    with pytest.raises(ValueError, match="every point"):
        ElkanNotoClassifier(weighted=True).fit(X, s, propensity=bad)


def _takes_propensity(entry) -> bool:
    return "propensity" in inspect.signature(entry.load().fit).parameters


@pytest.mark.parametrize("entry", registered_params(_takes_propensity, family="pu"))
def test_propensity_none_is_the_scar_fit_and_bad_values_are_refused(entry):
    # every PU classifier whose fit names propensity: None is SCAR bit for bit; a propensity
    # of 0 at a labeled positive is refused before any work, naming propensity
    cls = entry.load()
    rng = np.random.default_rng(11)
    X = np.round(rng.normal(size=(60, 2)), 1)  # few distinct values: categories too
    X[-15:] += 1.0
    s = np.r_[np.zeros(45, int), np.ones(15, int)]
    params = dict(entry.cases[0].params)
    if "random_state" in cls._get_param_names():
        params["random_state"] = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plain = cls(**params).fit(X, s)
        same = cls(**params).fit(X, s, propensity=None)
        out = "decision_function" if hasattr(plain, "decision_function") else "predict_proba"
        np.testing.assert_array_equal(getattr(same, out)(X), getattr(plain, out)(X))
        before = getattr(plain, out)(X)
        with pytest.raises(ValueError, match="propensity"):
            plain.fit(X, s, propensity=np.r_[np.full(45, 0.5), np.zeros(15)])
        np.testing.assert_array_equal(getattr(plain, out)(X), before)


def test_positive_naive_bayes_refuses_any_propensity():
    X = np.random.default_rng(12).integers(0, 3, (40, 3))
    s = np.r_[np.ones(10, int), np.zeros(30, int)]
    with pytest.raises(ValueError, match="does not take propensity="):
        PositiveNaiveBayes(prior=0.3).fit(X, s, propensity=np.full(40, 0.5))


def test_sar_fit_refuses_dask_input():
    da = pytest.importorskip("dask.array")
    X, s, e = _small(13)
    # registry: one kernel and one linear SAR estimator
    for est in (NNPUClassifier(prior=0.3), BiasedSVM()):
        with pytest.raises(ValueError, match="Dask"):
            est.fit(da.from_array(X, chunks=20), s, propensity=e)
