"""The classic PU classifiers of issue 55 against independent references: the biased SVM's
dual against cvxpy + Clarabel, the bagging SVM against the mean of scikit-learn SVCs fitted
by hand on its samples, the weighted Elkan-Noto SVM against an SVC on the duplicated data,
Elkan-Noto's c against the true label frequency, and positive naive Bayes against its
closed form computed by hand on a tiny table."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC
from sklearn.tree import DecisionTreeClassifier

import unlabeled
from unlabeled.exceptions import ModelFileError
from unlabeled.pu import (
    BaggingPUClassifier,
    BiasedSVM,
    ElkanNotoClassifier,
    PositiveNaiveBayes,
    PositiveTAN,
)


def _blobs(n=60, seed=0, shift=1.5, label_rate=0.4):
    rng = np.random.default_rng(seed)
    y = (np.arange(n) % 2 == 0).astype(int)
    X = rng.normal(size=(n, 2)) + np.where(y[:, None] == 1, shift, -shift)
    s = ((y == 1) & (rng.random(n) < label_rate)).astype(int)
    return X, y, s


# ---------------------------------------------------------------------- biased SVM
def test_biased_svm_dual_matches_cvxpy():
    cp = pytest.importorskip("cvxpy")
    X, _, s = _blobs(30, seed=1)
    w, C, gamma = 2.0, 0.7, 0.5
    est = BiasedSVM(positive_weight=w, C=C, gamma=gamma, tol=1e-9).fit(X, s)
    p, n = s.sum(), (s == 0).sum()
    y = np.where(s == 1, 1.0, -1.0)
    box = np.where(s == 1, C * w * n / p, C)
    K = rbf_kernel(X, gamma=gamma)
    Q = K * np.outer(y, y) + 1e-12 * np.eye(s.size)
    a = cp.Variable(s.size)
    prob = cp.Problem(
        cp.Minimize(0.5 * cp.quad_form(a, cp.psd_wrap(Q)) - cp.sum(a)),
        [a >= 0, a <= box, y @ a == 0],
    )
    prob.solve(solver=cp.CLARABEL, tol_gap_abs=1e-10, tol_gap_rel=1e-10)
    coef = np.zeros(s.size)
    coef[est.support_] = est.dual_coef_[0]
    ours = 0.5 * coef @ K @ coef - np.abs(coef).sum()
    assert ours == pytest.approx(prob.value, rel=1e-6)
    np.testing.assert_allclose(coef, a.value * y, atol=1e-4 * box.max())
    # the offset: y_i f(x_i) = 1 on the free support vectors
    free = (a.value > 1e-4 * box) & (a.value < box * (1 - 1e-4))
    f = est.decision_function(X)
    np.testing.assert_allclose(y[free] * f[free], 1.0, atol=1e-4)


def test_biased_svm_picks_the_lee_liu_best_weight():
    X, y, s = _blobs(80, seed=2, label_rate=0.3)
    est = BiasedSVM(cv=2, random_state=0, gamma=0.5).fit(X, s)
    assert est.lee_liu_scores_.shape == (6,)
    pairs = [(c, w) for c in (0.01, 0.1, 1.0) for w in (1.0, 4.0)]
    assert (est.C_, est.positive_weight_) == pairs[int(np.argmax(est.lee_liu_scores_))]
    fixed = BiasedSVM(est.positive_weight_, C=est.C_, gamma=0.5).fit(X, s)
    np.testing.assert_array_equal(fixed.decision_function(X), est.decision_function(X))
    assert np.mean(est.predict(X) == y) > 0.85
    assert est.score(X, s) > 0


# ---------------------------------------------------------------------- bagging SVM
def test_bagging_is_the_mean_of_svms_fitted_by_hand():
    X, _, s = _blobs(50, seed=3)
    params = {"C": 2.0, "gamma": 0.4, "tol": 1e-10}
    est = BaggingPUClassifier(n_estimators=4, max_samples=12, random_state=0, **params)
    est.fit(X, s)
    pos = np.flatnonzero(s == 1)
    test = np.random.default_rng(9).normal(scale=2, size=(40, 2))
    f_test, f_oob = [], []
    for bag in est.estimators_samples_:
        assert bag.size == 12 and np.all(s[bag] == 0)
        rows, counts = np.unique(bag, return_counts=True)  # a point drawn twice weighs twice
        svc = SVC(C=2.0, gamma=0.4, tol=1e-10)
        svc.fit(
            X[np.r_[pos, rows]],
            np.r_[np.ones(pos.size), np.zeros(rows.size)],
            sample_weight=np.r_[np.ones(pos.size), counts],
        )
        f_test.append(svc.decision_function(test))
        f_oob.append(np.where(np.isin(np.arange(s.size), bag), np.nan, svc.decision_function(X)))
    np.testing.assert_allclose(est.decision_function(test), np.mean(f_test, axis=0), atol=1e-5)
    unl = np.flatnonzero(s == 0)
    oob = np.nanmean(np.array(f_oob)[:, unl], axis=0)
    seen = ~np.isnan(oob)
    np.testing.assert_allclose(est.oob_decision_function_[unl][seen], oob[seen], atol=1e-5)


def test_bagging_with_a_tree_is_the_mean_of_trees_fitted_by_hand(tmp_path):
    X, _, s = _blobs(50, seed=3)
    est = BaggingPUClassifier(
        n_estimators=5, estimator=DecisionTreeClassifier(random_state=0), random_state=1
    ).fit(X, s)
    pos = np.flatnonzero(s == 1)
    test = np.random.default_rng(9).normal(scale=2, size=(40, 2))
    by_hand = []
    for bag in est.estimators_samples_:
        rows, counts = np.unique(bag, return_counts=True)
        tree = DecisionTreeClassifier(random_state=0)
        tree.fit(
            X[np.r_[pos, rows]],
            np.r_[np.ones(pos.size), np.zeros(rows.size)],
            sample_weight=np.r_[np.ones(pos.size), counts],
        )
        by_hand.append(tree.predict_proba(test)[:, 1] - 0.5)
    np.testing.assert_allclose(est.decision_function(test), np.mean(by_hand, axis=0))
    back = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(back.predict(test), est.predict(test))
    with pytest.raises(ModelFileError, match="pickle it"):
        unlabeled.save(est, tmp_path / "trees.skops")
    with pytest.raises(TypeError, match="estimator must be a classifier"):
        BaggingPUClassifier(estimator=StandardScaler()).fit(X, s)


def test_bagging_random_state_and_pickle():
    X, _, s = _blobs(40, seed=4)
    a = BaggingPUClassifier(n_estimators=3, random_state=5).fit(X, s)
    b = BaggingPUClassifier(n_estimators=3, random_state=5).fit(X, s)
    c = BaggingPUClassifier(n_estimators=3, random_state=6).fit(X, s)
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))
    assert not np.array_equal(a.decision_function(X), c.decision_function(X))
    back = pickle.loads(pickle.dumps(a))
    np.testing.assert_array_equal(back.decision_function(X), a.decision_function(X))
    sparse = BaggingPUClassifier(n_estimators=3, random_state=5).fit(sp.csr_matrix(X), s)
    np.testing.assert_allclose(sparse.decision_function(X), a.decision_function(X), atol=1e-8)


# ---------------------------------------------------------------------- Elkan-Noto
def test_elkan_noto_c_is_the_label_frequency_on_scar_data():
    rng = np.random.default_rng(5)
    n = 600
    y = (rng.random(n) < 0.5).astype(int)
    X = rng.normal(size=(n, 2)) + np.where(y[:, None] == 1, 2.5, -2.5)
    for c in (0.2, 0.5):
        s = ((y == 1) & (rng.random(n) < c)).astype(int)
        est = ElkanNotoClassifier(random_state=0).fit(X, s)
        true_c = s.sum() / y.sum()
        assert abs(est.c_ - true_c) < 0.05, (est.c_, true_c)
        true_prior = y[s == 0].mean()
        assert abs(est.prior_ - true_prior) < 0.06
        proba = est.predict_proba(X)[:, 1]
        np.testing.assert_array_equal(est.predict(X), (proba > 0.5).astype(int))
        assert np.mean(est.predict(X) == y) > 0.95


def test_weighted_elkan_noto_is_an_svm_on_the_duplicated_data():
    X, y, s = _blobs(50, seed=6, label_rate=0.5)
    est = ElkanNotoClassifier(weighted=True, cv=3, C=1.5, gamma=0.5, tol=1e-10, random_state=0)
    est.fit(X, s)
    pos, unl = np.flatnonzero(s == 1), np.flatnonzero(s == 0)
    w = est.weights_
    assert w.shape == (unl.size,) and np.all((w >= 0) & (w <= 1))
    rows = np.r_[pos, unl, unl]
    labels = np.r_[np.ones(pos.size + unl.size), np.zeros(unl.size)]
    weight = np.r_[np.ones(pos.size), w, 1 - w]
    keep = weight > 0
    svc = SVC(C=1.5, gamma=0.5, tol=1e-10).fit(X[rows[keep]], labels[keep], weight[keep])
    test = np.random.default_rng(1).normal(scale=2, size=(30, 2))
    np.testing.assert_allclose(est.decision_function(test), svc.decision_function(test), atol=1e-5)
    proba = est.predict_proba(test)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)


def test_folds_follow_the_labeled_positives():
    X, _, s = _blobs(30, seed=7)
    s[:] = 0
    s[:2] = 1  # 2 positives: 2 folds, not 5
    est = ElkanNotoClassifier(random_state=0).fit(X, s)
    assert 0 < est.c_ <= 1
    s[1] = 0
    with pytest.raises(ValueError, match="1 labeled positives .* at least 2 of each"):
        ElkanNotoClassifier().fit(X, s)
    with pytest.raises(ValueError, match="at least 2 of each; give C and positive_weight"):
        BiasedSVM().fit(X, s)
    BiasedSVM(positive_weight=1.0, C=1.0).fit(X, s)  # no folds: one positive is enough


# ---------------------------------------------------------------------- positive naive Bayes
def test_positive_naive_bayes_closed_form_by_hand():
    # feature 0: values {0, 1}; feature 1: values {0, 1, 2}
    X = np.array(
        [
            [0, 0],
            [0, 1],
            [0, 0],  # labeled positives
            [0, 0],
            [1, 2],
            [1, 1],
            [1, 2],
            [0, 1],
            [1, 2],
        ]
    )
    s = np.r_[np.ones(3, int), np.zeros(6, int)]
    prior, alpha = 1 / 3, 1.0
    est = PositiveNaiveBayes(prior=prior, alpha=alpha).fit(X, s)
    # p = 3, n = 6, pi n / p = 2/3. Positives: f0 counts (0: 3, 1: 0), f1 (0: 2, 1: 1, 2: 0)
    # with the unseen slot, r + 1 = 3 and 4 slots
    pos0 = np.array([3 + 1, 0 + 1, 0 + 1]) / (3 + 3)
    pos1 = np.array([2 + 1, 1 + 1, 0 + 1, 0 + 1]) / (3 + 4)
    # unlabeled: f0 (0: 2, 1: 4) -> negatives max(0, 2 - 2) = 0, max(0, 4 - 0) = 4 (sum 4)
    neg0 = np.array([0 + 1, 4 + 1, 0 + 1]) / (4 + 3)
    # f1 (0: 1, 1: 2, 2: 3) -> 1 - 4/3 < 0: 0; 2 - 2/3 = 4/3; 3 - 0 = 3 (sum 13/3)
    neg1 = np.array([0 + 1, 4 / 3 + 1, 3 + 1, 0 + 1]) / (13 / 3 + 4)
    for x, (i, j) in [([0, 1], (0, 1)), ([1, 2], (1, 2)), ([0, 0], (0, 0)), ([7, 1], (2, 1))]:
        num = prior * pos0[i] * pos1[j]
        expected = num / (num + (1 - prior) * neg0[i] * neg1[j])
        got = est.predict_proba(np.array([x]))[0, 1]
        assert got == pytest.approx(expected, rel=1e-12), x
    assert est.predict([[0, 0], [1, 2]]).tolist() == [1, 0]
    np.testing.assert_allclose(np.exp(est.predict_log_proba(X)), est.predict_proba(X))


def test_positive_naive_bayes_finds_the_positive_categories():
    rng = np.random.default_rng(8)
    n = 600
    y = (rng.random(n) < 0.4).astype(int)
    # three categorical features, each value more frequent in one class
    X = np.where(rng.random((n, 3)) < 0.8, y[:, None], 1 - y[:, None]) * 2 + rng.integers(
        0, 2, (n, 3)
    )
    s = ((y == 1) & (rng.random(n) < 0.3)).astype(int)
    est = PositiveNaiveBayes(prior=float(y[s == 0].mean())).fit(X, s)
    assert np.mean(est.predict(X) == y) > 0.85
    auto = PositiveNaiveBayes(random_state=0).fit(X, s)
    assert abs(auto.prior_ - y[s == 0].mean()) < 0.15


def test_positive_naive_bayes_refuses_bad_input():
    X = np.array([[0, 1], [1, 0], [1, 1], [0, 0]])
    s = np.array([1, 0, 0, 0])
    with pytest.raises(TypeError, match="dense array of category codes"):
        PositiveNaiveBayes(prior=0.3).fit(sp.csr_matrix(X), s)
    with pytest.raises(ValueError, match="prior"):
        PositiveNaiveBayes(prior=1.5).fit(X, s)
    with pytest.raises(ValueError, match="alpha"):
        PositiveNaiveBayes(prior=0.3, alpha=0.0).fit(X, s)
    with pytest.raises(ValueError, match="NaN"):
        PositiveNaiveBayes(prior=0.3).fit(np.where(X == 0, np.nan, X), s)


# ---------------------------------------------------------------------- positive TAN
def _count(pairs, k, v):
    return sum(1 for a, b in pairs if a == k and b == v)


def _ptan_by_hand(X, s, prior, alpha, parents, x):
    """P(y = 1 | x) of PTAN with the tree ``parents``, written with Python counts."""
    P, U = X[s == 1], X[s == 0]
    p, n = len(P), len(U)
    cats = [sorted(set(X[:, i])) for i in range(X.shape[1])]
    logs = [0.0, 0.0]  # negative, positive
    for i, j in enumerate(parents):
        r = len(cats[i]) + 1  # values seen, and the unseen slot
        pairs_p = [(row[i], row[i] if j < 0 else row[j]) for row in P]
        pairs_u = [(row[i], row[i] if j < 0 else row[j]) for row in U]
        parent_value = x[i] if j < 0 else x[j]
        parent_values = cats[i] if j < 0 else cats[j]
        if parent_value not in parent_values:  # an unseen parent value: no counts
            parent_value = None

        def neg(k, v, pairs_u=pairs_u, pairs_p=pairs_p):
            return max(0.0, _count(pairs_u, k, v) - prior * n * _count(pairs_p, k, v) / p)

        if j < 0:
            num_p, den_p = _count(pairs_p, x[i], x[i]), p
            num_n = neg(x[i], x[i])
            den_n = sum(neg(k, k) for k in cats[i])
        else:
            num_p = _count(pairs_p, x[i], parent_value)
            den_p = sum(1 for _, b in pairs_p if b == parent_value)
            num_n = neg(x[i], parent_value)
            den_n = sum(neg(k, parent_value) for k in cats[i])
        if x[i] not in cats[i]:
            num_p = num_n = 0.0
        logs[1] += np.log((num_p + alpha) / (den_p + alpha * r))
        logs[0] += np.log((num_n + alpha) / (den_n + alpha * r))
    a = np.log(prior) + logs[1]
    b = np.log(1 - prior) + logs[0]
    return 1 / (1 + np.exp(b - a))


def test_positive_tan_against_its_formula_by_hand():
    rng = np.random.default_rng(10)
    n = 60
    y = (rng.random(n) < 0.5).astype(int)
    X = np.c_[rng.integers(0, 3, n), np.zeros(n, int), rng.integers(0, 2, n)]
    X[:, 0] = np.where(rng.random(n) < 0.7, y * 2, X[:, 0])
    X[:, 1] = np.where(rng.random(n) < 0.9, X[:, 0] % 2, 1 - X[:, 0] % 2)  # tied to x0
    s = ((y == 1) & (rng.random(n) < 0.5)).astype(int)
    prior, alpha = 0.35, 0.5
    est = PositiveTAN(prior=prior, alpha=alpha).fit(X, s)
    assert est.parents_[0] == -1 and est.parents_[1] == 0
    tests = [[0, 0, 1], [2, 0, 0], [1, 1, 1], [5, 0, 1], [0, 7, 0]]  # unseen values last
    for x in tests:
        expected = _ptan_by_hand(X, s, prior, alpha, est.parents_, x)
        assert est.predict_proba(np.array([x]))[0, 1] == pytest.approx(expected, rel=1e-10), x


def test_positive_tan_refuses_tables_too_large():
    X = np.c_[np.arange(3000.0), np.arange(3000.0)]
    s = (np.arange(3000) < 300).astype(int)
    with pytest.raises(ValueError, match="bin the columns"):
        PositiveTAN(prior=0.3).fit(X, s)
