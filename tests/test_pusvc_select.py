"""PUSVC's kernel width and regularisation chosen from PU data (gamma="cv", lam="cv") and its
feature standardisation (standardize=True)."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.preprocessing import StandardScaler

from unlabeled import PUSVC
from unlabeled.exceptions import InvalidParameterError
from unlabeled.model_selection import DEFAULT_GAMMA_FACTORS, default_param_grid


def labeled(X, y, n_labeled, seed=2):
    """PU labels: ``n_labeled`` of the positives of ``y``; the prior among the rest."""
    rng = np.random.default_rng(seed)
    s = np.zeros(y.size, dtype=int)
    s[rng.choice(np.flatnonzero(y), n_labeled, replace=False)] = 1
    return s, float(y[s == 0].mean())


def checkerboard(n, seed):
    """A 3 x 3 checkerboard: only the narrower of the two candidate widths resolves it."""
    X = np.random.default_rng(seed).uniform(0, 3, (n, 2))
    return X, ((np.floor(X[:, 0]) + np.floor(X[:, 1])) % 2 == 0).astype(int)


def shifted_blobs(n, seed):
    """A mean shift in 20 of 200 dimensions: the narrower width overfits the noise."""
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.4).astype(int)
    X = rng.normal(0, 1, (n, 200))
    X[:, :20] += 0.5 * y[:, None]
    return X, y


@pytest.mark.parametrize("make, factor", [(checkerboard, 1.0), (shifted_blobs, 0.1)])
def test_cv_picks_the_width_that_predicts_better(make, factor):
    X, y = make(900, 0)
    X_test, y_test = make(2000, 1)
    s, prior = labeled(X, y, 80)
    scale = 1.0 / (X.shape[1] * X.var())
    accuracy = {
        c: np.mean(PUSVC(prior, gamma=c * scale).fit(X, s).predict(X_test) == y_test)
        for c in (0.1, 1.0)
    }
    other = 0.1 if factor == 1.0 else 1.0
    assert accuracy[factor] > accuracy[other] + 0.02  # the answer is clear
    model = PUSVC(prior, gamma="cv", random_state=0).fit(X, s)
    assert model.gamma_ == pytest.approx(factor * scale, rel=1e-12)
    assert model.lam_ == 0.01  # lam given: kept


def test_cv_is_reproducible_and_refits_with_the_chosen_values():
    X, y = shifted_blobs(400, 3)
    s, prior = labeled(X, y, 40)
    a = PUSVC(prior, gamma="cv", lam="cv", random_state=5).fit(X, s)
    b = PUSVC(prior, gamma="cv", lam="cv", random_state=5).fit(X, s)
    assert (a.gamma_, a.lam_) == (b.gamma_, b.lam_)
    np.testing.assert_array_equal(a.dual_coef_, b.dual_coef_)
    assert a.lam_ in (1e-2, 1e-3)
    # the final model is the fit with the chosen numbers (the optimum does not depend on
    # the solver's seed)
    c = PUSVC(prior, gamma=a.gamma_, lam=a.lam_, random_state=0).fit(X, s)
    np.testing.assert_allclose(a.decision_function(X), c.decision_function(X), atol=1e-3)


def test_numbers_are_kept_and_reported():
    X, y = checkerboard(200, 4)
    s, prior = labeled(X, y, 20)
    model = PUSVC(prior, gamma=0.7, lam=0.05).fit(X, s)
    assert (model.gamma_, model.lam_) == (0.7, 0.05)
    assert model.mean_ is None and model.scale_ is None


def test_cv_without_evidence_takes_the_first_candidates():
    """One labeled positive: nothing to hold out, so the wider width and the larger lam."""
    X, y = checkerboard(300, 5)
    s, prior = labeled(X, y, 1)
    model = PUSVC(prior, gamma="cv", lam="cv", random_state=0).fit(X, s)
    assert model.gamma_ == pytest.approx(0.1 / (2 * X.var()), rel=1e-12)
    assert model.lam_ == 0.01


class CountingPUSVC(PUSVC):
    """PUSVC that records the number of rows of every fit (clones share the list)."""

    sizes: list = []

    def fit(self, X, s):
        type(self).sizes.append(X.shape[0])
        return super().fit(X, s)


def test_cv_cost_is_bounded():
    """The search fits 3 folds x 2 widths x 2 lams on at most 600 rows, whatever n."""
    X, y = checkerboard(3000, 6)
    s, prior = labeled(X, y, 300)
    CountingPUSVC.sizes = []
    CountingPUSVC(prior, gamma="cv", lam="cv", random_state=0).fit(X, s)
    sizes = CountingPUSVC.sizes
    assert sizes[0] == 3000 and len(sizes) == 1 + 3 * 2 * 2
    assert max(sizes[1:]) <= 400  # two folds of three of 600 rows


def test_cv_with_probability_calibrates_at_the_chosen_lam():
    X, y = checkerboard(300, 7)
    s, prior = labeled(X, y, 30)
    model = PUSVC(prior, gamma="cv", lam="cv", probability=True, random_state=0).fit(X, s)
    p = model.predict_proba(X)[:, 1]
    assert np.all((0 <= p) & (p <= 1))


@pytest.mark.parametrize(
    "params, name",
    [
        ({"gamma": "wide"}, "gamma"),
        ({"lam": "auto"}, "lam"),
        ({"lam": -1.0}, "lam"),
        ({"standardize": "yes"}, "standardize"),
    ],
)
def test_bad_values_are_refused_by_name(params, name):
    X, y = checkerboard(60, 8)
    s, prior = labeled(X, y, 5)
    with pytest.raises(InvalidParameterError, match=name):
        PUSVC(prior, **params).fit(X, s)


# --------------------------------------------------------------------------- standardize
def mixed_table(n, seed):
    """Features in very different units, one far from zero, and two 0/1 columns."""
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.4).astype(int)
    Z = rng.normal(0, 1, (n, 4)) + y[:, None]
    X = np.c_[Z * [1.0, 10.0, 100.0, 1e-3] + [1e8, 0.0, 5.0, 0.0], rng.integers(0, 2, (n, 2))]
    return X, y


@pytest.mark.parametrize("kernel", ["rbf", "linear"])
def test_standardize_matches_a_scaler_on_the_non_binary_columns(kernel):
    X, y = mixed_table(300, 0)
    s, prior = labeled(X, y, 30)
    model = PUSVC(prior, kernel=kernel, standardize=True, tol=1e-8, random_state=0).fit(X, s)
    Z = X.copy()
    Z[:, :4] = StandardScaler().fit_transform(X[:, :4])
    # "scale" on standardised features: 1 / sum of the column variances (X.var() once centred)
    gamma = 1.0 / Z.var(axis=0).sum()
    reference = PUSVC(prior, kernel=kernel, gamma=gamma, tol=1e-8, random_state=0).fit(Z, s)
    np.testing.assert_allclose(model.mean_[:4], X[:, :4].mean(axis=0), rtol=1e-12)
    np.testing.assert_array_equal(model.mean_[4:], 0.0)
    np.testing.assert_array_equal(model.scale_[4:], 1.0)
    np.testing.assert_allclose(
        model.decision_function(X), reference.decision_function(Z), atol=1e-5
    )


def test_standardize_scales_sparse_input_without_centring():
    X, y = mixed_table(200, 1)
    X = np.abs(X[:, 1:])
    s, prior = labeled(X, y, 20)
    dense = PUSVC(prior, standardize=True, random_state=0).fit(X, s)
    sparse = PUSVC(prior, standardize=True, random_state=0).fit(sp.csr_matrix(X), s)
    np.testing.assert_array_equal(sparse.mean_, 0.0)
    np.testing.assert_allclose(sparse.scale_[:3], X[:, :3].std(axis=0), rtol=1e-12)
    assert not np.allclose(dense.mean_[:3], 0.0)  # dense input is centred as well


def test_default_grid_measures_scale_on_the_standardised_features():
    X, y = mixed_table(200, 2)
    Z = X.copy()
    Z[:, :4] = StandardScaler().fit_transform(X[:, :4])
    grid = default_param_grid(PUSVC(0.4, standardize=True), X)
    scale = 1.0 / Z.var(axis=0).sum()
    np.testing.assert_allclose(grid["gamma"], [c * scale for c in DEFAULT_GAMMA_FACTORS])
