"""unlabeled.model_selection: PU metrics, scorers, splitters and the warm-started search."""

import numpy as np
import pytest
from conftest import make_pu, small_pu
from scipy import integrate
from scipy.stats import norm
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from unlabeled import PUSVC, model_selection
from unlabeled.metrics import (
    lee_liu_score,
    lee_liu_scorer,
    make_pu_scorer,
    pu_accuracy_score,
    pu_accuracy_scorer,
    pu_double_hinge_scorer,
    pu_risk,
    pu_zero_one_scorer,
)
from unlabeled.model_selection import PUGridSearchCV, PUStratifiedKFold, PUStratifiedShuffleSplit
from unlabeled.pu import USMOInit


@pytest.fixture(scope="module")
def problem():
    return make_pu(0, n=150, d=3, p=30)


def test_public_module():
    import unlabeled

    assert "model_selection" in unlabeled.__all__
    assert unlabeled.model_selection is model_selection
    for name in model_selection.__all__:
        assert hasattr(model_selection, name), name


def test_metrics_module_and_no_names_kept_here():
    """The metrics live in unlabeled.metrics; model_selection no longer exports them."""
    from unlabeled import metrics

    assert {"pu_risk", "pu_accuracy_score", "lee_liu_score", "make_pu_scorer"} <= set(
        metrics.__all__
    )
    for name in metrics.__all__:
        assert name not in model_selection.__all__, name
        assert not hasattr(model_selection, name), name


# --------------------------------------------------------------------------- metrics
DOUBLE_HINGE = lambda z: np.maximum(-z, np.maximum(0, (1 - z) / 2))  # noqa: E731


# loss of f when the point is a positive, l(f), and when it is a negative, l(-f); the
# zero-one loss counts f = 0 as a negative prediction, as predict() does
_LOSSES_BY_HAND = {
    "zero-one": (lambda f: (f <= 0).astype(float), lambda f: (f > 0).astype(float)),
    "double-hinge": (DOUBLE_HINGE, lambda f: DOUBLE_HINGE(-f)),
    "sigmoid": (lambda f: 1 / (1 + np.exp(f)), lambda f: 1 / (1 + np.exp(-f))),
}


def _expected(loss, mean, sd):
    """E[loss(f)] for f ~ N(mean, sd^2), by quadrature (split at the kinks 0 and +-1)."""
    pdf = lambda z: loss(np.array([z]))[0] * norm.pdf(z, mean, sd)  # noqa: E731
    lo, hi = mean - 12 * sd, mean + 12 * sd
    return integrate.quad(pdf, lo, hi, points=[-1.0, 0.0, 1.0], limit=200)[0]


@pytest.mark.parametrize("loss", ["zero-one", "double-hinge", "sigmoid"])
def test_pu_risk_is_unbiased(loss):
    """Mean of the PU estimate over many draws = the risk computed with the true labels.

    The classes are Gaussian in 3-d and f is a fixed linear function, so f(x) given the class is
    normal and the true risk pi E_P[l(f)] + (1 - pi) E_N[l(-f)] is a 1-d integral."""
    rng = np.random.default_rng(1)
    pi, p, n, draws = 0.3, 20, 60, 3000
    w, b = np.array([1.0, -0.5, 0.8]), -0.7
    mu_pos, mu_neg = np.full(3, 0.8), np.zeros(3)
    m_pos, m_neg, sd = w @ mu_pos + b, w @ mu_neg + b, np.linalg.norm(w)
    pos_loss, neg_loss = _LOSSES_BY_HAND[loss]
    true = pi * _expected(pos_loss, m_pos, sd) + (1 - pi) * _expected(neg_loss, m_neg, sd)
    if loss == "zero-one":  # the closed form, as a check of the quadrature
        assert true == pytest.approx(pi * norm.cdf(0, m_pos, sd) + (1 - pi) * norm.sf(0, m_neg, sd))
    s = np.r_[np.ones(p, int), np.zeros(n, int)]
    est, naive, known = np.empty(draws), np.empty(draws), np.empty(draws)
    for k in range(draws):
        y_u = rng.random(n) < pi
        X_u = rng.normal(size=(n, 3)) + np.where(y_u[:, None], mu_pos, mu_neg)
        f = np.r_[rng.normal(size=(p, 3)) + mu_pos, X_u] @ w + b
        est[k] = pu_risk(s, f, pi, loss)
        # the risk on this draw's unlabeled points computed with their hidden labels
        known[k] = np.where(y_u, pos_loss(f[p:]), neg_loss(f[p:])).mean()
        # the naive estimate that takes every unlabeled point for a negative
        naive[k] = pi * pos_loss(f[:p]).mean() + (1 - pi) * neg_loss(f[p:]).mean()
    se = est.std(ddof=1) / np.sqrt(draws)
    assert abs(est.mean() - true) <= 4 * se, (est.mean(), true, se)
    gap = est - known
    assert abs(gap.mean()) <= 4 * gap.std(ddof=1) / np.sqrt(draws)
    assert abs(known.mean() - true) <= 4 * known.std(ddof=1) / np.sqrt(draws)
    # the test has power: ignoring the unlabeled positives is detectably biased
    assert abs(naive.mean() - true) > 8 * se


def test_pu_risk_by_hand():
    s = np.array([1, 1, 0, 0, 0, 0])
    f = np.array([2.0, -1.0, 1.0, -1.0, 0.0, -2.0])
    # zero-one: positives err at f <= 0 (1 of 2); negatives err at f > 0; f = 0 is negative
    assert pu_risk(s, f, 0.25) == pytest.approx(0.25 * 0.5 - 0.25 * 0.5 + 1 / 4)
    # double hinge: l(z) - l(-z) = -z, so the risk is -pi mean_P f + mean_U l(-f)
    dh = -0.25 * f[:2].mean() + DOUBLE_HINGE(-f[2:]).mean()
    assert pu_risk(s, f, 0.25, "double-hinge") == pytest.approx(dh)
    assert pu_risk(s, f, 0.25, DOUBLE_HINGE) == pytest.approx(dh)
    # encodings of s and weights
    assert pu_risk(np.where(s == 1, 1, -1), f, 0.25) == pu_risk(s == 1, f, 0.25)
    w = np.array([1.0, 3.0, 1.0, 1.0, 1.0, 1.0])
    assert pu_risk(s, f, 0.25, sample_weight=w) == pytest.approx(0.25 * 0.75 - 0.25 * 0.25 + 0.25)
    np.testing.assert_allclose(pu_risk(s, f, 0.25, sample_weight=np.ones(6)), pu_risk(s, f, 0.25))


def test_pu_risk_matches_double_hinge_objective(problem):
    """PUSVC's objective_ is the PU double-hinge risk on its training data plus lam ||f||^2."""
    X, s, prior = problem
    clf = PUSVC(prior=prior, lam=0.05, kernel="linear", tol=1e-10).fit(X, s)
    # the objective is at the solver's offset; the threshold rule moved intercept_ from it
    risk = pu_risk(s, clf.decision_function(X) + clf.threshold_, prior, "double-hinge")
    norm2 = float(clf.coef_[0] @ clf.coef_[0])
    assert clf.objective_ == pytest.approx(risk + 0.05 * norm2, rel=1e-8)


def test_lee_liu_by_hand():
    s = np.array([1, 1, 1, 1, 0, 0, 0, 0, 0, 0])
    y_pred = np.array([1, 1, 1, 0, 1, 1, 0, 0, 0, 0])
    # recall on the labeled positives 3/4, predicted positive 5 of 10
    assert lee_liu_score(s, y_pred) == pytest.approx((3 / 4) ** 2 / (5 / 10))
    assert lee_liu_score(s, np.where(y_pred == 1, 1, -1)) == lee_liu_score(s, y_pred)
    assert lee_liu_score(s, np.zeros(10, int)) == 0.0
    assert lee_liu_score(s, np.ones(10, int)) == pytest.approx(1.0)


def test_pu_accuracy_is_one_minus_zero_one_risk():
    s = np.array([1, 1, 0, 0, 0, 0])
    y_pred = np.array([1, 0, 1, 0, 0, 0])
    acc = pu_accuracy_score(s, y_pred, 0.25)
    assert acc == pytest.approx(1 - pu_risk(s, 2.0 * y_pred - 1, 0.25))
    assert acc == pytest.approx(1 - (2 * 0.25 * 0.5 - 0.25 + 0.25))


# --------------------------------------------------------------------------- scorers
def test_scorers_use_fitted_or_fixed_prior(problem):
    X, s, prior = problem
    clf = PUSVC(prior=prior, gamma=0.5).fit(X, s)
    f, y_pred = clf.decision_function(X), clf.predict(X)
    assert pu_zero_one_scorer(clf, X, s) == pytest.approx(-pu_risk(s, 2.0 * y_pred - 1, prior))
    assert pu_double_hinge_scorer(clf, X, s) == pytest.approx(-pu_risk(s, f, prior, "double-hinge"))
    assert pu_accuracy_scorer(clf, X, s) == pytest.approx(pu_accuracy_score(s, y_pred, prior))
    assert lee_liu_scorer(clf, X, s) == pytest.approx(lee_liu_score(s, y_pred))
    fixed = make_pu_scorer("double-hinge", prior=0.2)
    assert fixed(clf, X, s) == pytest.approx(-pu_risk(s, f, 0.2, "double-hinge"))
    assert "prior=0.2" in repr(fixed)


def test_score_is_pu_accuracy_and_higher_is_better():
    X, s, prior = make_pu(1, n=300, d=2, p=60, shift=2.0)
    clf = PUSVC(prior=prior, lam=0.01, gamma=0.5).fit(X, s)
    # a fresh test set with known classes: the PU score estimates the accuracy on U
    rng = np.random.default_rng(7)
    y_u = rng.random(2000) < prior
    Xt = np.r_[rng.normal(size=(400, 2)) + 2.0, rng.normal(size=(2000, 2)) + 2.0 * y_u[:, None]]
    st = np.r_[np.ones(400, int), np.zeros(2000, int)]
    score = clf.score(Xt, st)
    assert score == pytest.approx(pu_accuracy_score(st, clf.predict(Xt), prior))
    assert abs(score - np.mean(clf.predict(Xt[400:]) == y_u)) < 0.05
    assert score == clf.score(Xt, y=st)
    # a good model beats constant and flipped predictions
    assert score > pu_accuracy_score(st, np.zeros(st.size, int), prior) + 0.1
    assert score > pu_accuracy_score(st, np.ones(st.size, int), prior) + 0.1
    flipped = clone(clf).fit(X, s)
    flipped.dual_coef_, flipped.intercept_ = -flipped.dual_coef_, -flipped.intercept_
    assert score > flipped.score(Xt, st) + 0.5
    with pytest.raises(TypeError, match="both s and y"):
        clf.score(Xt, st, y=st)


# --------------------------------------------------------------------------- splitters
@pytest.mark.parametrize("encoding", [lambda s: s, lambda s: np.where(s == 1, 1, -1)])
def test_kfold_stratifies_on_s(encoding):
    X, s, _ = make_pu(2, n=100, d=2, p=12)
    cv = PUStratifiedKFold(4, shuffle=True, random_state=0)
    tests = []
    for train, test in cv.split(X, encoding(s)):
        assert s[test].sum() == 3 and (s[test] == 0).sum() == 25
        assert np.intersect1d(train, test).size == 0
        tests.append(test)
    np.testing.assert_array_equal(np.sort(np.concatenate(tests)), np.arange(len(s)))
    assert cv.get_n_splits() == 4


def test_shuffle_split_stratifies_on_s():
    X, s, _ = make_pu(2, n=100, d=2, p=20)
    cv = PUStratifiedShuffleSplit(5, test_size=0.25, random_state=0)
    for train, test in cv.split(X, s):
        assert s[test].sum() == 5 and s[train].sum() == 15


def test_splitter_errors():
    X, s, _ = make_pu(2, n=100, d=2, p=3)
    match = r"3 labeled positives, fewer than n_splits=5.*n_splits <= 3"
    with pytest.raises(ValueError, match=match):
        list(PUStratifiedKFold(5).split(X, s))
    with pytest.raises(ValueError, match="s is None"):
        list(PUStratifiedKFold(2).split(X))
    with pytest.raises(ValueError, match="n_splits"):
        PUStratifiedKFold(1)
    with pytest.raises(ValueError, match="no labeled positive"):
        list(PUStratifiedKFold(2).split(X, np.zeros(len(s))))
    s1 = np.r_[1, np.zeros(99, int)]
    match = "1 labeled positives: a stratified split needs at least 2"
    with pytest.raises(ValueError, match=match):
        list(PUStratifiedShuffleSplit(2).split(X[:100], s1))


# --------------------------------------------------------------------------- search
GRID = {"lam": [1e-1, 1e-2, 1e-3], "gamma": [0.3, 1.0]}


@pytest.mark.parametrize("scoring", [None, "double-hinge", "lee-liu"])
def test_search_equals_cold_sklearn_grid_search(problem, scoring):
    X, s, prior = problem
    est = PUSVC(prior=prior, tol=1e-8, n_jobs=1)
    cv = PUStratifiedKFold(3, shuffle=True, random_state=0)
    ours = PUGridSearchCV(est, GRID, cv=cv, scoring=scoring).fit(X, s)
    sk_scoring = None if scoring is None else make_pu_scorer(scoring, prior=prior)
    ref = GridSearchCV(est, GRID, cv=cv, scoring=sk_scoring).fit(X, s)
    assert ours.cv_results_["params"] == ref.cv_results_["params"]
    for key in ["mean_test_score", "std_test_score", *(f"split{k}_test_score" for k in range(3))]:
        np.testing.assert_allclose(ours.cv_results_[key], ref.cv_results_[key], atol=1e-6)
    for key in ["rank_test_score", "param_lam", "param_gamma"]:
        np.testing.assert_array_equal(ours.cv_results_[key], ref.cv_results_[key])
    assert ours.best_params_ == ref.best_params_ and ours.best_index_ == ref.best_index_
    assert ours.best_score_ == pytest.approx(ref.best_score_, abs=1e-6)
    np.testing.assert_allclose(
        ours.decision_function(X), ref.best_estimator_.decision_function(X), atol=1e-9
    )
    assert ours.n_splits_ == 3 and ours.predict(X).shape == s.shape


def test_search_walks_the_lam_path_warm(problem):
    """The warm path needs fewer solver iterations than cold fits, with the same scores."""
    X, s, prior = problem
    est = PUSVC(prior=prior, tol=1e-8, n_jobs=1)
    kw = {"cv": 3, "random_state": 0, "refit": False}
    grid = {"lam": [1e-1, 3e-2, 1e-2, 3e-3, 1e-3], "gamma": [0.5]}
    warm = PUGridSearchCV(est, grid, **kw).fit(X, s)
    cold = PUGridSearchCV(est, grid, warm_start=False, **kw).fit(X, s)
    np.testing.assert_allclose(
        warm.cv_results_["mean_test_score"], cold.cv_results_["mean_test_score"], atol=1e-6
    )
    assert warm.n_solver_iter_ < 0.9 * cold.n_solver_iter_
    assert not hasattr(warm, "best_estimator_")
    with pytest.raises(AttributeError, match="refit=False"):
        warm.predict(X)


def test_default_grid(problem):
    X, s, prior = problem
    search = PUGridSearchCV(PUSVC(prior=prior, n_jobs=1), cv=2).fit(X, s)
    grid = search.param_grid_
    np.testing.assert_allclose(grid["lam"], np.logspace(-4, -1, 7))
    scale = 1 / (X.shape[1] * X.var())
    np.testing.assert_allclose(grid["gamma"], scale * np.array([0.1, 0.3, 1, 3, 10]))
    assert len(search.cv_results_["params"]) == 35
    assert search.best_estimator_.prior == prior
    linear = PUGridSearchCV(PUSVC(prior=prior, kernel="linear"), cv=2, refit=False).fit(X, s)
    assert set(linear.param_grid_) == {"lam"}


def test_prior_search_scores_at_a_fixed_prior(problem):
    X, s, prior = problem
    grid = {"prior": [0.2, 0.4, 0.6], "lam": [1e-2]}
    search = PUGridSearchCV(PUSVC(prior=0.4, gamma=0.5, n_jobs=1), grid, cv=3).fit(X, s)
    assert search.scorer_.prior == 0.4
    # with each candidate's own prior_ the scores are not comparable: refused
    with pytest.raises(ValueError, match="searches prior.*make_pu_scorer"):
        PUGridSearchCV(PUSVC(prior=0.4), grid, scoring=pu_accuracy_scorer).fit(X, s)
    # a prior-free scorer is fine
    PUGridSearchCV(PUSVC(prior=0.4, n_jobs=1), grid, cv=2, scoring=lee_liu_scorer).fit(X, s)


def test_search_over_a_pipeline(problem):
    """A pipeline ending with PUSVC: the same scores as scikit-learn's cold search, its last
    step's prior, a warm lam path and a default grid with the step's prefix."""
    X, s, prior = problem
    X = X * [1.0, 10.0, 0.1] + 5.0  # scales that StandardScaler changes
    pipe = make_pipeline(StandardScaler(), PUSVC(prior=prior, tol=1e-8, n_jobs=1))
    grid = {"pusvc__lam": [1e-1, 3e-2, 1e-2, 3e-3], "pusvc__gamma": [0.3, 1.0]}
    cv = PUStratifiedKFold(3, shuffle=True, random_state=0)
    ours = PUGridSearchCV(pipe, grid, cv=cv).fit(X, s)
    assert ours.scorer_.prior == prior
    ref = GridSearchCV(pipe, grid, cv=cv, scoring=make_pu_scorer(prior=prior)).fit(X, s)
    np.testing.assert_allclose(
        ours.cv_results_["mean_test_score"], ref.cv_results_["mean_test_score"], atol=1e-6
    )
    assert ours.best_params_ == ref.best_params_
    np.testing.assert_allclose(
        ours.decision_function(X), ref.best_estimator_.decision_function(X), atol=1e-9
    )
    cold = PUGridSearchCV(pipe, grid, cv=cv, warm_start=False, refit=False).fit(X, s)
    assert ours.n_solver_iter_ < 0.9 * cold.n_solver_iter_
    # prior="auto": each fit is scored with its last step's prior_
    auto = make_pipeline(StandardScaler(), PUSVC(prior="auto", n_jobs=1, random_state=0))
    search = PUGridSearchCV(auto, {"pusvc__lam": [1e-2]}, cv=2).fit(X, s)
    assert np.isfinite(search.best_score_)
    # the default grid: the last step's, prefixed, gamma="scale" on the scaled data
    default = PUGridSearchCV(pipe, cv=2, refit=False).fit(X, s)
    np.testing.assert_allclose(default.param_grid_["pusvc__lam"], np.logspace(-4, -1, 7))
    np.testing.assert_allclose(
        default.param_grid_["pusvc__gamma"], np.array([0.1, 0.3, 1, 3, 10]) / X.shape[1]
    )
    with pytest.raises(ValueError, match="param_grid: .*lam"):
        PUGridSearchCV(pipe, {"pusvc__lam": [-1.0]}).fit(X, s)


def test_search_on_an_estimator_without_warm_start(problem):
    X, s, prior = problem
    grid = {"lam": [1e-1, 1e-2], "gamma": [0.5]}
    cv = PUStratifiedKFold(2)
    ours = PUGridSearchCV(USMOInit(prior=prior), grid, cv=cv).fit(X, s)
    ref = GridSearchCV(USMOInit(prior=prior), grid, cv=cv).fit(X, s)
    np.testing.assert_allclose(
        ours.cv_results_["mean_test_score"], ref.cv_results_["mean_test_score"], atol=1e-9
    )


def test_sklearn_tools_over_pu_estimators(problem):
    X, s, prior = problem
    cv = PUStratifiedKFold(3, shuffle=True, random_state=1)
    est = PUSVC(prior=prior, gamma=0.5, n_jobs=1)
    scores = cross_val_score(est, X, s, cv=cv)  # PUSVC.score: the PU accuracy
    assert scores.shape == (3,) and np.all((scores > 0.5) & (scores < 1.2))
    for scoring in [pu_zero_one_scorer, pu_double_hinge_scorer, lee_liu_scorer]:
        assert np.all(np.isfinite(cross_val_score(est, X, s, cv=cv, scoring=scoring)))
    search = GridSearchCV(est, {"lam": [1e-2, 1e-1]}, cv=cv, scoring=lee_liu_scorer).fit(X, s)
    assert search.best_params_["lam"] in (1e-2, 1e-1)
    # the search itself inside cross_val_score: nested cross-validation
    inner = PUGridSearchCV(est, {"lam": [1e-2, 1e-1]}, cv=2)
    nested = cross_val_score(inner, X, s, cv=3)  # a classifier: stratified on s
    assert nested.shape == (3,) and np.all(np.isfinite(nested))


# --------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    "call, err, match",
    [
        (lambda s, f: pu_risk(s, f, 1.5), ValueError, "prior must be < 1"),
        (lambda s, f: pu_risk(s, f, "0.3"), TypeError, "prior must be a real number"),
        (lambda s, f: pu_risk(s, f, 0.3, "f1"), ValueError, "loss must be one of"),
        (lambda s, f: pu_risk(s, f[:-1], 0.3), ValueError, "f has 5 entries but s has 6"),
        (lambda s, f: pu_risk(s, np.r_[f[:-1], np.nan], 0.3), ValueError, "NaN or infinity"),
        (lambda s, f: pu_risk(np.zeros(6), f, 0.3), ValueError, "no labeled positive"),
        (lambda s, f: pu_risk(s, f, 0.3, sample_weight=-np.ones(6)), ValueError, "non-negative"),
        (lambda s, f: pu_risk(np.r_[s[:-1], 2], f, 0.3), ValueError, "s must hold 1"),
        (lambda s, f: lee_liu_score(s, f), ValueError, "y_pred must hold predicted classes"),
        (lambda s, f: pu_accuracy_score(s, np.ones(3), 0.3), ValueError, "one prediction per"),
        (lambda s, f: make_pu_scorer("f1"), ValueError, "metric must be one of"),
        (lambda s, f: make_pu_scorer(prior=0), ValueError, "prior must be > 0"),
    ],
)
def test_metric_errors(call, err, match):
    s = np.array([1, 1, 0, 0, 0, 0])
    f = np.array([2.0, -1.0, 1.0, -1.0, 0.5, -2.0])
    with pytest.raises(err, match=match):
        call(s, f)


def test_search_errors(problem):
    X, s, prior = problem
    est = PUSVC(prior=prior)
    with pytest.raises(ValueError, match="scoring must be one of"):
        PUGridSearchCV(est, GRID, scoring="f1").fit(X, s)
    with pytest.raises(ValueError, match=r"\['C'\], which PUSVC does not have"):
        PUGridSearchCV(est, {"C": [1.0]}).fit(X, s)
    with pytest.raises(ValueError, match="fewer than n_splits=40"):
        PUGridSearchCV(est, GRID, cv=40).fit(X, s)
    with pytest.raises(TypeError, match="cv must be"):
        PUGridSearchCV(est, GRID, cv="five").fit(X, s)
    with pytest.raises(TypeError, match="param_grid must be"):
        PUGridSearchCV(est, "lam").fit(X, s)
    with pytest.raises(ValueError, match="no labeled positive"):
        PUGridSearchCV(est, GRID).fit(X, np.zeros(len(s)))
    with pytest.raises(ValueError, match="lam parameter"):
        from sklearn.svm import SVC

        PUGridSearchCV(SVC()).fit(X, s)
    with pytest.raises(ValueError, match="no fitted prior_"):
        from sklearn.svm import SVC

        PUGridSearchCV(SVC(), {"C": [1.0]}, cv=2, scoring=pu_zero_one_scorer).fit(X, s)


@pytest.mark.parametrize("n_jobs, phrase", [(1.5, "integer"), (0, "non-zero"), (2**40, "<=")])
def test_search_n_jobs_checked(n_jobs, phrase):
    from unlabeled.model_selection import PUGridSearchCV

    X, s = small_pu()
    search = PUGridSearchCV(PUSVC(prior=0.4), {"lam": [0.1]}, cv=2, n_jobs=n_jobs)
    with pytest.raises((TypeError, ValueError), match=phrase):
        search.fit(X, s)


@pytest.mark.parametrize("cv", [1, 0, -3])
def test_search_cv_below_two_names_cv(cv):
    """Found by the long fuzz run: cv=1 gave the splitter's "n_splits must be >= 2"."""
    from unlabeled.model_selection import PUGridSearchCV

    X, s = small_pu()
    with pytest.raises(ValueError, match=r"^cv must be >= 2"):
        PUGridSearchCV(PUSVC(prior=0.4), {"lam": [0.1]}, cv=cv).fit(X, s)


def test_search_grid_values_checked_before_the_folds():
    """PUGridSearchCV with lam=[-1.0] and 2 labeled positives for 5 folds reported the folds
    (naming n_splits and s), not the bad grid value; grid values are checked first now."""
    from unlabeled.exceptions import InvalidParameterError
    from unlabeled.model_selection import PUGridSearchCV

    X, s = small_pu()
    s = np.zeros_like(s)
    s[:2] = 1
    for grid, phrase in [
        ({"lam": [-1.0]}, "lam must be >= 1e-30"),
        ({"lam": [0.1], "gamma": ["wide"]}, "gamma must be"),
        ([{"lam": [0.1]}, {"prior": [1.5]}], "prior must be"),
    ]:
        with pytest.raises(InvalidParameterError, match=f"^param_grid: {phrase}"):
            PUGridSearchCV(PUSVC(prior=0.4), grid, cv=5).fit(X, s)
    with pytest.raises(ValueError, match="n_splits"):  # a valid grid: the folds come next
        PUGridSearchCV(PUSVC(prior=0.4), {"lam": [0.1]}, cv=5).fit(X, s)


def test_search_in_two_processes_and_on_sparse_data(problem):
    """joblib's process pool (results come back out of order) and CSR input: same results."""
    import scipy.sparse as sp

    X, s, prior = problem
    est = PUSVC(prior=prior, kernel="linear", tol=1e-8, n_jobs=1)
    grid = {"lam": [1e-1, 1e-2, 1e-3]}
    serial = PUGridSearchCV(est, grid, cv=3, scoring="double-hinge").fit(X, s)
    for kw, data in [({"n_jobs": 2}, X), ({}, sp.csr_matrix(X))]:
        other = PUGridSearchCV(est, grid, cv=3, scoring="double-hinge", **kw).fit(data, s)
        np.testing.assert_allclose(
            other.cv_results_["mean_test_score"], serial.cv_results_["mean_test_score"], atol=1e-9
        )
        assert other.best_params_ == serial.best_params_


def test_search_on_a_precomputed_kernel(problem):
    """A Gram matrix is split on both axes (train x train to fit, test x train to score)."""
    from sklearn.metrics.pairwise import rbf_kernel

    X, s, prior = problem
    grid = {"lam": [1e-1, 1e-2]}
    kw = {"cv": 3, "scoring": "double-hinge", "refit": False}
    rbf = PUGridSearchCV(PUSVC(prior=prior, gamma=0.5, tol=1e-8, n_jobs=1), grid, **kw).fit(X, s)
    pre = PUSVC(prior=prior, kernel="precomputed", tol=1e-8, n_jobs=1)
    gram = PUGridSearchCV(pre, grid, **kw).fit(rbf_kernel(X, gamma=0.5), s)
    np.testing.assert_allclose(
        gram.cv_results_["mean_test_score"], rbf.cv_results_["mean_test_score"], atol=1e-6
    )
