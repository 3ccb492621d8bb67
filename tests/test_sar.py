"""Labels not selected completely at random: SAREM's propensity against the true one,
PUSVC's propensity-weighted fit against cvxpy + Clarabel, and scar_check's flags."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy.special import expit
from sklearn.metrics.pairwise import rbf_kernel

from unlabeled import PUSVC
from unlabeled.exceptions import InvalidParameterError, SCARViolationWarning
from unlabeled.pu.sar import SAREM, propensity_weights, scar_check


def _sar_data(n, seed, frequency=None, slope=3.0, e_slope=2.0):
    """y from x0 and x2, labels from x1 (SAR) or at a constant frequency (SCAR)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    f = expit(slope * X[:, 0] + X[:, 2])
    y = rng.random(n) < f
    e = expit(e_slope * X[:, 1] - 0.5) if frequency is None else np.full(n, frequency)
    return X, y, f, e, (y & (rng.random(n) < e)).astype(int)


def test_sarem_recovers_the_propensity():
    # n = 3,000: the estimate's error shrinks as the sample grows (0.007 at n = 20,000)
    X, y, f, e, s = _sar_data(3000, 0)
    sar = SAREM(propensity_features=[1]).fit(X, s)
    assert np.abs(sar.propensity(X) - e).mean() < 0.06
    assert np.abs(sar.predict_proba(X)[:, 1] - f).mean() < 0.1
    assert abs(sar.prior_ - y[s == 0].mean()) < 0.1
    assert sar.log_likelihood_ < 0 and sar.n_iter_ >= 1
    np.testing.assert_allclose(sar.predict_proba(X).sum(axis=1), 1.0)
    # the EM's classifier beats taking the labeled positives for all of them (SCAR)
    scar = SAREM(propensity_features=[]).fit(X, s)
    assert np.ptp(scar.propensity(X)) < 1e-12  # no propensity attributes: a constant
    assert (
        np.abs(scar.predict_proba(X)[:, 1] - f).mean()
        > np.abs(sar.predict_proba(X)[:, 1] - f).mean()
    )


@pytest.mark.parametrize("classifier, tolerance", [("linear", 0.08), ("quadratic", 0.12)])
def test_sarem_scar_labeling_gives_a_flat_propensity(classifier, tolerance):
    # the data's own (linear) classifier, and the default with its squares: more variance
    X, y, f, e, s = _sar_data(2000, 1, frequency=0.4)
    sar = SAREM(propensity_features=[1], classifier=classifier).fit(X, s)
    assert np.abs(sar.propensity(X) - 0.4).mean() < tolerance
    assert abs(sar.label_frequency_ - s.sum() / y.sum()) < tolerance
    assert (sar.quadratic_coef_ is None) == (classifier == "linear")


def test_sarem_warns_at_its_iteration_cap():
    from sklearn.exceptions import ConvergenceWarning

    X, _, _, _, s = _sar_data(300, 4)
    with pytest.warns(ConvergenceWarning, match="max_iter=1"):
        SAREM(propensity_features=[1], max_iter=1).fit(X, s)


def test_sarem_checks_its_columns_before_work():
    X, _, _, _, s = _sar_data(50, 2)
    for bad in ([3], [0, 0], ["a"], np.ones(2, bool)):
        with pytest.raises(InvalidParameterError, match="propensity_features"):
            SAREM(propensity_features=bad).fit(X, s)
    assert not hasattr(SAREM(propensity_features=[3]), "coef_")
    # a boolean mask and negative indices name the same columns
    a = SAREM(propensity_features=np.array([False, True, False])).fit(X, s)
    b = SAREM(propensity_features=[-2]).fit(X, s)
    np.testing.assert_array_equal(a.propensity_features_, b.propensity_features_)
    np.testing.assert_allclose(a.propensity(X), b.propensity(X))


def test_propensity_weights_closed_form_and_errors():
    np.testing.assert_allclose(propensity_weights([0.25, 0.5, 0.0], [1, 1, 0]), [4.0, 2.0, 0.0])
    with pytest.raises(ValueError, match=r"\(0, 1\]"):
        propensity_weights([0.0, 0.5], [1, 0])
    with pytest.raises(ValueError, match="entries"):
        propensity_weights([0.5, 0.5, 0.5], [1, 0])


def _sar_primal(X, s, e, prior, lam, kernel, gamma):
    """The SAR risk of PUSVC.fit(propensity=e) solved by cvxpy + Clarabel: every point in the
    loss term, the labeled positives weighted by 1 / e at the share of positives overall."""
    import cvxpy as cp

    mask = s == 1
    share = (mask.sum() + prior * (~mask).sum()) / s.size
    w = 1 / e[mask]
    a = share * w / w.sum()
    if kernel == "linear":
        V = X
    else:
        ev, Q = np.linalg.eigh(rbf_kernel(X, gamma=gamma))
        keep = ev > 1e-12 * ev.max()
        V = Q[:, keep] * np.sqrt(ev[keep])
    theta, b = cp.Variable(V.shape[1]), cp.Variable()
    f = V @ theta + b
    loss = cp.sum(cp.maximum(cp.maximum(f, (1 + f) / 2), 0)) / s.size
    problem = cp.Problem(cp.Minimize(-a @ f[mask] + loss + lam * cp.sum_squares(theta)))
    problem.solve(solver=cp.CLARABEL)
    return problem.value, share, a


@pytest.mark.parametrize("kernel", ["linear", "rbf"])
def test_weighted_pusvc_matches_cvxpy(kernel):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 2))
    X[:15] += 1
    s = np.r_[np.ones(15, int), np.zeros(45, int)]
    e = rng.uniform(0.1, 0.9, 60)
    clf = PUSVC(prior=0.4, lam=0.05, kernel=kernel, gamma=0.5, tol=1e-6).fit(X, s, propensity=e)
    reference, share, a = _sar_primal(X, s, e, 0.4, 0.05, kernel, 0.5)
    assert abs(clf.objective_ - reference) <= 1e-6 * max(1.0, abs(reference))
    assert clf.positive_share_ == pytest.approx(share) and clf.prior_ == 0.4
    # the objective of the model itself, from its expansion (not the solver's own sums)
    f = clf.decision_function(X) + clf.threshold_
    K = X @ X.T if kernel == "linear" else rbf_kernel(X, gamma=0.5)
    alpha = np.zeros(60)
    alpha[clf.support_] = clf.dual_coef_[0]
    J = -a @ f[s == 1] + np.maximum(np.maximum(f, (1 + f) / 2), 0).mean() + 0.05 * alpha @ K @ alpha
    assert abs(J - reference) <= 1e-5 * max(1.0, abs(reference))
    # threshold="prior": the share of positives among all training points above it
    assert (clf.decision_function(X) > 0).mean() == pytest.approx(share, abs=1 / 60)


def test_constant_propensity_is_the_unweighted_fit_on_the_population():
    # a constant e weights every labeled positive alike: the unweighted PUSVC on the data where
    # each labeled point is also an unlabeled one (the population sample), at the share of
    # positives among all points
    rng = np.random.default_rng(1)
    X = rng.normal(size=(80, 3))
    s = (rng.random(80) < 0.3).astype(int)
    plain = PUSVC(prior=0.3, tol=1e-6).fit(X, s)
    same = PUSVC(prior=0.3, tol=1e-6).fit(X, s, propensity=None)
    np.testing.assert_array_equal(plain.dual_coef_, same.dual_coef_)  # the SCAR path itself
    flat = PUSVC(prior=0.3, gamma=0.5, tol=1e-7).fit(X, s, propensity=np.full(80, 0.2))
    lab = np.flatnonzero(s == 1)
    Xa, sa = np.r_[X, X[lab]], np.r_[s, np.zeros(lab.size, int)]
    ref = PUSVC(prior=flat.positive_share_, gamma=0.5, tol=1e-7).fit(Xa, sa)
    assert abs(flat.objective_ - ref.objective_) <= 1e-6 * abs(ref.objective_)
    np.testing.assert_allclose(
        flat.decision_function(X) + flat.threshold_,
        ref.decision_function(X) + ref.threshold_,
        atol=1e-4,
    )


def test_weighted_pusvc_refusals_leave_the_estimator_as_it_was():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(40, 2))
    s = np.r_[np.ones(10, int), np.zeros(30, int)]
    e = np.full(40, 0.5)
    clf = PUSVC(prior=0.3).fit(X, s)
    before = clf.decision_function(X)
    for params, match in (
        ({"prior": "auto"}, "prior='auto'"),
        ({"lam": "cv"}, "lam='cv'"),
        ({"gamma": "cv"}, "gamma='cv'"),
    ):
        with pytest.raises(ValueError, match=match):
            clf.set_params(**params).fit(X, s, propensity=e)
        clf.set_params(prior=0.3, lam=0.01, gamma="scale")
    for bad, match in ((np.full(40, 1.5), r"\(0, 1\]"), (np.zeros(40), r"\(0, 1\]")):
        with pytest.raises(ValueError, match=match):
            clf.fit(X, s, propensity=bad)
    np.testing.assert_array_equal(clf.decision_function(X), before)
    assert not hasattr(clf, "_sar")


def test_weighted_pusvc_ranks_better_than_the_scar_fit():
    from sklearn.metrics import roc_auc_score

    X, y, f, e, s = _sar_data(300, 3)
    sar = PUSVC(prior=0.4).fit(X, s, propensity=e)
    scar = PUSVC(prior=0.4).fit(X, s)
    assert roc_auc_score(y, sar.decision_function(X)) > roc_auc_score(y, scar.decision_function(X))
    with pytest.raises(ValueError, match="probability=True"):
        PUSVC(prior=0.4, probability=True).fit(X, s, propensity=e)


def test_scar_check_flags_sar_and_stays_quiet_on_scar():
    flags = {"sar": 0, "scar": 0}
    for seed in range(10):
        for kind, frequency in (("sar", None), ("scar", 0.3)):
            X, _, _, _, s = _sar_data(1000, 100 + seed, frequency, e_slope=3.0)
            result = scar_check(X, s, n_permutations=50, random_state=seed, warn=False)
            flags[kind] += result.flagged
            if result.flagged:
                assert result.top_features[0] == 1  # the column the labeling depends on
    assert flags["scar"] <= 1  # false alarms in at most 1 of 10
    assert flags["sar"] >= 9


def test_scar_check_effect_is_in_standard_deviations_and_signed():
    # the features are standardised first: rescaling and shifting a column changes nothing,
    # and mirroring the labeling's column mirrors its effect
    X, _, _, _, s = _sar_data(1000, 5, e_slope=3.0)
    base = scar_check(X, s, random_state=0, warn=False)
    moved = X * np.array([1.0, 1000.0, 0.01]) + np.array([5.0, -3.0, 0.0])
    np.testing.assert_allclose(
        scar_check(moved, s, random_state=0, warn=False).effect, base.effect, atol=1e-8
    )
    mirrored = X * np.array([1.0, -1.0, 1.0])
    flipped = scar_check(mirrored, s, random_state=0, warn=False).effect
    np.testing.assert_allclose(flipped[1], -base.effect[1], atol=1e-8)
    assert base.effect[1] > 1.0 and base.n_labeled == s.sum()


def test_scar_check_warns_and_checks_its_arguments():
    X, _, _, _, s = _sar_data(1000, 7, e_slope=3.0)
    with pytest.warns(SCARViolationWarning, match="column 1"):
        scar_check(X, s, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", SCARViolationWarning)
        assert scar_check(X, s, random_state=0, warn=False).flagged
    for name, bad in (("quantile", 1.0), ("n_permutations", 5), ("alpha", 0.0), ("cv", 1)):
        with pytest.raises(InvalidParameterError, match=name):
            scar_check(X, s, **{name: bad})
    with pytest.raises(ValueError, match="2 labeled"):
        scar_check(X, np.r_[1, np.zeros(999, int)])


def test_weighted_pusvc_on_a_gram_matrix_and_sparse_rows():
    import scipy.sparse as sp

    rng = np.random.default_rng(6)
    X = rng.normal(size=(60, 4))
    X[:15] += 1
    X[np.abs(X) < 0.5] = 0
    s = np.r_[np.ones(15, int), np.zeros(45, int)]
    e = rng.uniform(0.2, 0.9, 60)
    dense = PUSVC(prior=0.3, gamma=0.5, tol=1e-7).fit(X, s, propensity=e)
    gram = PUSVC(prior=0.3, kernel="precomputed", tol=1e-7)
    gram.fit(rbf_kernel(X, gamma=0.5), s, propensity=e)
    sparse = PUSVC(prior=0.3, gamma=0.5, tol=1e-7).fit(sp.csr_matrix(X), s, propensity=e)
    for other in (gram, sparse):
        assert abs(other.objective_ - dense.objective_) <= 1e-9 * abs(dense.objective_)
    np.testing.assert_allclose(
        gram.decision_function(rbf_kernel(X, gamma=0.5)), dense.decision_function(X), atol=1e-9
    )
