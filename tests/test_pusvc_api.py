"""PUSVC's behaviour as an estimator: validation, invariances, code paths, scikit-learn API."""

import inspect
import pickle
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import assert_passes_check_estimator, by_name, declares, make_pu, registered, small_pu
from oracle import gram
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning, NotFittedError

from unlabeled import PUSVC
from unlabeled.exceptions import InvalidParameterError


@pytest.fixture(scope="module")
def problem():
    return make_pu(0, n=150, d=4, p=30)


def fitted(X, s, **kw):
    params = {"prior": 0.4, "lam": 0.01, "gamma": 0.5, "tol": 1e-8, **kw}
    return PUSVC(**params).fit(X, s)


# --------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    "s_bad, match",
    [
        (np.zeros(180, int), "no labeled positive"),
        (np.ones(180, int), "no unlabeled point"),
        (np.r_[np.ones(30, int), np.full(150, 2)], "s must hold"),
        (np.r_[np.ones(30, int), np.zeros(75, int), -np.ones(75, int)], "s must hold"),
        (np.ones(10, int), "s has 10 entries"),
        (np.array(["a"] * 180), "s must hold"),
    ],
)
def test_bad_labels(problem, s_bad, match):
    X, _, _ = problem
    with pytest.raises(ValueError, match=match):
        PUSVC(prior=0.4).fit(X, s_bad)


@pytest.mark.parametrize(
    "params, err, match",
    [
        ({"prior": 0.0}, ValueError, "prior"),
        ({"prior": 1.0}, ValueError, "prior"),
        ({"prior": -0.1}, ValueError, "prior"),
        ({"prior": 1.5}, ValueError, "prior"),
        ({"prior": float("nan")}, ValueError, "prior"),
        ({"prior": "0.3"}, TypeError, "prior"),
        ({"lam": 0.0}, ValueError, "lam"),
        ({"lam": -1.0}, ValueError, "lam"),
        ({"kernel": "sigmoid"}, ValueError, "kernel"),
        ({"gamma": -1.0}, ValueError, "gamma"),
        ({"gamma": "wide"}, ValueError, "gamma"),
        ({"tol": 0}, ValueError, "tol"),
        ({"cache_size": 0}, ValueError, "cache_size"),
        ({"max_iter": 0}, ValueError, "max_iter"),
        ({"solver": "cg"}, ValueError, "solver"),
        ({"init": "random"}, ValueError, "init"),
        ({"n_jobs": 0}, ValueError, "n_jobs"),
        ({"degree": 1.5}, TypeError, "degree"),
    ],
)
def test_bad_params(problem, params, err, match):
    X, s, _ = problem
    with pytest.raises(err, match=match):
        PUSVC(**{"prior": 0.4, **params}).fit(X, s)


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_non_finite_X(problem, bad):
    X, s, _ = problem
    X = X.copy()
    X[3, 1] = bad
    with pytest.raises(ValueError, match="NaN|infinity"):
        PUSVC(prior=0.4).fit(X, s)


def test_precomputed_shapes(problem):
    X, s, _ = problem
    K = gram(X, "rbf", 0.5)
    with pytest.raises(ValueError, match="square"):
        PUSVC(prior=0.4, kernel="precomputed").fit(K[:, :-1], s)
    clf = PUSVC(prior=0.4, kernel="precomputed").fit(K, s)
    with pytest.raises(ValueError, match="kernel matrix of shape"):
        clf.decision_function(K[:5, :-2])


def test_predict_errors(problem):
    X, s, _ = problem
    with pytest.raises(NotFittedError):
        PUSVC(prior=0.4).predict(X)
    clf = PUSVC(prior=0.4).fit(X, s)
    with pytest.raises(ValueError, match="features"):
        clf.decision_function(X[:, :2])
    with pytest.raises(AttributeError, match="linear"):
        _ = clf.coef_


def test_inputs_not_modified(problem):
    X, s, _ = problem
    X0, s0 = X.copy(), s.copy()
    Xs = sp.csr_matrix(X)
    data0 = Xs.data.copy()
    PUSVC(prior=0.4, solver="usmo", init="ocsvm").fit(X, s)
    PUSVC(prior=0.4, kernel="linear").fit(Xs, s)
    np.testing.assert_array_equal(X, X0)
    np.testing.assert_array_equal(s, s0)
    np.testing.assert_array_equal(Xs.data, data0)


# --------------------------------------------------------------------------- invariances
@pytest.mark.parametrize("kernel", ["rbf", "linear", "poly"])
def test_input_formats_agree(problem, kernel):
    X, s, _ = problem
    ref = fitted(X, s, kernel=kernel)
    Xt = X[:40] + 0.1
    f = ref.decision_function(Xt)
    for Xv in (sp.csr_matrix(X), sp.csc_matrix(X)):
        np.testing.assert_allclose(fitted(Xv, s, kernel=kernel).decision_function(Xt), f, atol=1e-6)
    # float32 data: the engine reads it as stored, so the problem differs by rounding only
    f32 = fitted(X.astype(np.float32), s, kernel=kernel).decision_function(Xt)
    np.testing.assert_allclose(f32, f, atol=1e-4)
    perm = np.random.default_rng(1).permutation(len(s))
    np.testing.assert_allclose(
        fitted(X[perm], s[perm], kernel=kernel).decision_function(Xt), f, atol=1e-6
    )
    for s_alt in (np.where(s == 1, 1, -1), s == 1):
        np.testing.assert_allclose(
            fitted(X, s_alt, kernel=kernel).decision_function(Xt), f, atol=1e-9
        )


@pytest.mark.parametrize("kernel", ["rbf", "linear"])
def test_code_paths_reach_the_same_optimum(problem, kernel):
    """solvers, starts, shrinking, threads and warm start change the time, not the optimum."""
    X, s, _ = problem
    ref = fitted(X, s, kernel=kernel)
    variants = [
        {"solver": "usmo"},
        {"solver": "usmo", "init": "mean-kernel"},
        {"init": "ocsvm"},
        {"init": "pilot"},
        {"shrinking": False},
        {"n_jobs": 1},
        {"n_jobs": 2},
        {"cache_size": 0.001},  # two rows: every row is recomputed
        {"cache_dtype": "float32"},  # rows rounded to ~7 digits: the optimum moves by ~1e-7
    ]
    for kw in variants:
        clf = fitted(X, s, kernel=kernel, **kw)
        assert abs(clf.objective_ - ref.objective_) <= 1e-7 * max(1, abs(ref.objective_)), kw
        np.testing.assert_allclose(
            clf.decision_function(X), ref.decision_function(X), atol=1e-4, err_msg=str(kw)
        )


def test_warm_start_with_a_precomputed_kernel(problem):
    """A precomputed Gram matrix takes the warm start through sigma alone (its products
    cannot be recomputed from features): the optimum matches a cold fit after a prior change."""
    X, s, _ = problem
    K = gram(X, "rbf", 0.5)
    warm = PUSVC(prior=0.4, kernel="precomputed", tol=1e-8, warm_start=True)
    for lam, prior in [(1e-1, 0.4), (1e-2, 0.3)]:
        warm.set_params(lam=lam, prior=prior).fit(K, s)
        cold = PUSVC(prior=prior, lam=lam, kernel="precomputed", tol=1e-8).fit(K, s)
        assert abs(warm.objective_ - cold.objective_) <= 1e-7 * max(1, abs(cold.objective_))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_cache_stays_within_its_budget(dtype):
    X, s, prior = make_pu(2, n=2000, d=3, p=40)
    clf = PUSVC(prior=prior, gamma=0.5, cache_size=2, cache_dtype=dtype).fit(X, s)
    stats = clf.cache_stats_
    assert 0 < stats["bytes"] <= 2 * 2**20
    assert stats["misses"] > 0 and stats["kernel_rows"] >= stats["misses"]
    # float32 rows take half the memory: the same budget holds twice as many
    row_bytes = (s == 0).sum() * (4 if dtype == "float32" else 8)
    assert stats["bytes"] // row_bytes == (2 * 2**20) // row_bytes


@pytest.mark.parametrize("kernel", ["rbf", "linear"])
def test_warm_start_along_a_path(problem, kernel):
    X, s, _ = problem
    warm = PUSVC(prior=0.3, kernel=kernel, gamma=0.5, tol=1e-8, warm_start=True)
    for lam, prior in [(1e-1, 0.3), (1e-2, 0.3), (1e-3, 0.35), (1e-2, 0.25)]:
        warm.set_params(lam=lam, prior=prior).fit(X, s)
        cold = fitted(X, s, kernel=kernel, lam=lam, prior=prior)
        assert abs(warm.objective_ - cold.objective_) <= 1e-7 * max(1, abs(cold.objective_))


def test_large_problem_uses_pilot_start():
    """Above 4,000 unlabeled points init='pilot' solves a subsample first; same optimum."""
    X, s, prior = make_pu(3, n=4500, d=3, p=60)
    a = PUSVC(prior=prior, lam=0.01, gamma=0.5, tol=1e-6, init="pilot").fit(X, s)
    b = PUSVC(prior=prior, lam=0.01, gamma=0.5, tol=1e-6, init="mean-kernel").fit(X, s)
    assert abs(a.objective_ - b.objective_) <= 1e-5 * max(1, abs(b.objective_))


def test_precomputed_matches_rbf(problem):
    X, s, _ = problem
    ref = fitted(X, s)
    K = gram(X, "rbf", 0.5)
    for solver in ["smo", "usmo"]:
        pre = fitted(K, s, kernel="precomputed", solver=solver)
        assert abs(pre.objective_ - ref.objective_) <= 1e-8
        Kt = gram(np.r_[X, X[:10] + 0.2], "rbf", 0.5)[-10:, : len(s)]
        np.testing.assert_allclose(
            pre.decision_function(Kt), ref.decision_function(X[:10] + 0.2), atol=1e-5
        )


def test_not_quite_psd_kernel_converges(problem):
    """Duplicated rows and symmetric noise at rounding level make K indefinite by ~1e-12."""
    X, s, _ = problem
    X = np.r_[X, X[:20]]
    s = np.r_[s, s[:20]]
    K = gram(X, "rbf", 0.5)
    noise = np.random.default_rng(0).normal(scale=1e-12, size=K.shape)
    K = K + (noise + noise.T) / 2
    assert np.linalg.eigvalsh(K).min() < 0
    for solver in ["smo", "usmo"]:
        with warnings.catch_warnings():
            warnings.simplefilter("error", ConvergenceWarning)
            clf = PUSVC(prior=0.4, kernel="precomputed", solver=solver, tol=1e-6).fit(K, s)
        assert np.isfinite(clf.objective_)


def test_bias_is_exact_when_no_point_is_free():
    """With no free point beta is the midpoint of the interval the KKT conditions allow:
    f <= -1 where sigma = 0, |f| <= 1 where sigma = c2/2, f >= 1 where sigma = c2."""
    X, s, _ = make_pu(0, n=10, d=2, p=4)
    found = 0
    for lam, prior in [(1e-3, 0.5), (1e-2, 0.5), (1e-1, 0.25), (1e-1, 0.5)]:
        # threshold="zero": intercept_ is the solver's offset
        clf = PUSVC(prior=prior, lam=lam, kernel="linear", tol=1e-10, threshold="zero")
        clf.fit(X, s)
        n = (s == 0).sum()
        c2 = 1 / (2 * lam * n)
        sigma = np.zeros(len(s))
        sigma[clf.support_] = -clf.dual_coef_[0]
        sigma = sigma[s == 0]
        g = clf.decision_function(X[s == 0]) - clf.intercept_[0]
        free = ((sigma > 0) & (sigma < c2 / 2)) | ((sigma > c2 / 2) & (sigma < c2))
        if free.any():
            continue
        found += 1
        # interval of beta from the bound states (f = g + beta)
        lo, hi = -np.inf, np.inf
        hi = min(hi, np.min(-1 - g[sigma == 0], initial=np.inf))
        lo = max(lo, np.max(-1 - g[sigma == c2 / 2], initial=-np.inf))
        hi = min(hi, np.min(1 - g[sigma == c2 / 2], initial=np.inf))
        lo = max(lo, np.max(1 - g[sigma == c2], initial=-np.inf))
        assert lo - 1e-8 <= clf.intercept_[0] <= hi + 1e-8
        if np.isfinite(lo) and np.isfinite(hi):
            assert abs(clf.intercept_[0] - (lo + hi) / 2) <= 1e-6
    assert found >= 3, "too few configurations without free points: adjust the test problem"


# --------------------------------------------------------------------------- sklearn API
def test_attributes(problem):
    X, s, _ = problem
    clf = fitted(X, s, kernel="linear")
    assert clf.classes_.tolist() == [0, 1]
    assert clf.n_features_in_ == X.shape[1]
    assert clf.dual_coef_.shape == (1, clf.support_.size)
    assert clf.support_vectors_.shape == (clf.support_.size, X.shape[1])
    assert clf.intercept_.shape == (1,) and clf.n_iter_ > 0
    np.testing.assert_allclose(clf.decision_function(X), X @ clf.coef_[0] + clf.intercept_[0])
    np.testing.assert_array_equal(clf.predict(X), (clf.decision_function(X) > 0).astype(int))
    # the linear model's w equals sum_i alpha_i x_i
    np.testing.assert_allclose(clf.coef_[0], clf.dual_coef_[0] @ clf.support_vectors_, atol=1e-10)


def test_pickle_and_clone(problem):
    X, s, _ = problem
    clf = PUSVC(prior=0.4, warm_start=True).fit(X, s)
    back = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(back.decision_function(X), clf.decision_function(X))
    c = clone(clf)
    assert c.get_params() == clf.get_params() and not hasattr(c, "support_")
    c.set_params(lam=0.1, kernel="linear")
    assert c.lam == 0.1 and c.kernel == "linear"


def test_check_estimator():
    assert_passes_check_estimator(PUSVC(prior=0.5))


def test_verbose_and_max_iter(problem, capsys):
    X, s, _ = problem
    PUSVC(prior=0.4, verbose=True).fit(X, s)
    assert "[PUSVC] done" in capsys.readouterr().err
    with pytest.warns(ConvergenceWarning, match="max_iter"):
        PUSVC(prior=0.4, max_iter=2, tol=1e-10).fit(X, s)


# ---------------------------------------------------------------------------- the threshold
def test_prior_threshold_predicts_the_prior_share_and_keeps_the_optimum():
    """threshold="prior" puts the boundary at the prior's quantile of the unlabeled points'
    decision values; the optimum (coefficients, objective) is the solver's either way, and
    intercept_ + threshold_ is the solver's offset."""
    X, s, _ = make_pu(3, n=300, d=3, p=40)
    for kernel in ("rbf", "linear"):
        zero = PUSVC(prior=0.3, kernel=kernel, threshold="zero").fit(X, s)
        prior = PUSVC(prior=0.3, kernel=kernel).fit(X, s)
        np.testing.assert_array_equal(zero.dual_coef_, prior.dual_coef_)
        assert zero.objective_ == prior.objective_ and zero.threshold_ == 0.0
        assert prior.intercept_[0] + prior.threshold_ == pytest.approx(zero.intercept_[0])
        f = prior.decision_function(X[s == 0])
        assert (f > 0).sum() == round(0.3 * (s == 0).sum())  # no ties in continuous data
        np.testing.assert_allclose(f, zero.decision_function(X[s == 0]) - prior.threshold_)


def test_no_single_class_with_defaults_where_zero_predicts_none():
    """The issue's case in small: an Adult-shaped table with 1.7% of the positives labeled.
    At f > 0 the default lam predicts no positive; the prior's quantile predicts the prior's
    share, and the F1 on the unlabeled part is far above the trivial classifier's 0."""
    from unlabeled.datasets import make_adult_like, make_pu_labels

    X, y = make_adult_like(3000, random_state=0)
    s = make_pu_labels(y, 0.017 * 4, random_state=0)  # 49 labeled positives
    u = s == 0
    prior = float(y[u].mean())
    zero = PUSVC(prior=prior, threshold="zero").fit(X, s)
    assert zero.predict(X[u]).sum() == 0
    for clf in (PUSVC(prior=prior), PUSVC(prior="auto", random_state=0)):
        pred = clf.fit(X, s).predict(X[u])
        assert 0 < pred.mean() < 1
        tp = (pred & y[u]).sum()
        assert 2 * tp / (pred.sum() + y[u].sum()) > 0.4


def test_a_model_of_one_class_warns_with_its_cause():
    """A PU fit that predicts one class for every training point said nothing.
    With threshold="zero" a small prior leaves f < 0 everywhere (the double hinge's constant
    part is least at beta = -1): the warning names the cause and the default that avoids it."""
    from sklearn.datasets import load_breast_cancer

    X, y = load_breast_cancer(return_X_y=True)
    rng = np.random.default_rng(0)
    s = ((y == 1) & (rng.random(y.size) < 0.3)).astype(int)
    with pytest.warns(UserWarning, match="every training point negative.*threshold='prior'"):
        clf = PUSVC(prior=0.001, threshold="zero").fit(X, s)
    assert not np.any(clf.predict(X) == 1)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        assert 0 < np.mean(PUSVC(prior=0.6).fit(X, s).predict(X)) < 1


def _prior_required(entry) -> bool:
    """The estimator declares ``prior`` with no default (positive naive Bayes: "auto")."""
    cls = entry.load()
    return declares(cls, "prior") and inspect.signature(cls).parameters["prior"].default is None


@pytest.mark.parametrize("cls", registered(_prior_required, family="pu"), ids=by_name)
def test_missing_prior_names_it_and_the_choices(cls):
    X, s = small_pu()
    est = cls()
    with pytest.raises(InvalidParameterError, match=r"'prior'.*a number in \(0, 1\)") as info:
        est.fit(X, s)
    takes_auto = "auto" in str(cls._parameter_constraints["prior"])  # PUSVC, the nnPU ones
    assert ("prior='auto'" in str(info.value)) == takes_auto
    assert not hasattr(est, "prior_")  # refused before any work


def test_pusvc_verbose_reports_the_start(capsys):
    """verbose=True reports the start-up (the pilot and the BLAS kernel products, most of a
    large rbf fit) before the solver's own lines, so that a long fit is never silent."""
    X, s, _ = make_pu(0, n=4200, d=20, p=200)
    PUSVC(prior=0.4, lam=1e-3, n_jobs=1, verbose=True).fit(X, s)
    err = capsys.readouterr().err
    for phase in ["pilot problem", "pilot's f(x)", "h = K_UP 1", "K_UU [sigma0, upper]"]:
        assert f"[PUSVC] start: {phase}" in err
    assert "K_UU [sigma0, upper]: 4,200 x " in err  # rows x the columns with sigma0 > 0
    assert err.index("start: K_UU") < err.index("[PUSVC] done")
    PUSVC(prior=0.4, lam=1e-3, n_jobs=1).fit(X, s)
    assert capsys.readouterr().err == ""


@pytest.mark.filterwarnings("ignore:prior='auto' estimated")
def test_auto_prior_threshold_share_is_blends_best_bin_estimate():
    """prior="auto": threshold="prior" predicts positive the share of Blend's best-bin
    estimate (never below prior_, at most the interval's end); with one labeled positive
    (no held-out estimate) and with a given prior, the prior's share."""
    from unlabeled.pu.priors import Blend

    rng = np.random.default_rng(4)
    X = np.r_[rng.normal(1, 1, (150, 2)), rng.normal(-1, 1, (250, 2))]
    s = np.zeros(400, dtype=int)
    s[:40] = 1
    clf = PUSVC(prior="auto", random_state=0).fit(X, s)
    ref = Blend(random_state=0).fit(X, s)
    assert clf.prior_ == ref.prior_
    share = min(max(ref.upper_estimate_, ref.prior_), ref.bracket_[1])
    assert clf.positive_share_ == share > clf.prior_
    f_unl = clf.decision_function(X[s == 0])
    assert np.sum(f_unl > 0) == round(share * f_unl.size)

    s1 = np.zeros(400, dtype=int)
    s1[0] = 1
    one = PUSVC(prior="auto", random_state=0).fit(X, s1)
    assert one.positive_share_ == one.prior_
    assert np.sum(one.decision_function(X[1:]) > 0) == round(one.prior_ * 399)
    assert PUSVC(prior=0.3).fit(X, s).positive_share_ == 0.3
