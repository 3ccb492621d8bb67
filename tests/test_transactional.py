"""Every estimator's fit is transactional: a fit that fails leaves the estimator as it was
(issue 35), through the one mechanism of unlabeled.base (ValidatedEstimator's subclass hook)."""

import inspect

import numpy as np
import pytest
from sklearn.preprocessing import StandardScaler

from unlabeled import PUSVC
from unlabeled.base import ValidatedEstimator
from unlabeled.mil import BagTransformer
from unlabeled.model_selection import PUGridSearchCV

MODULES = ["unlabeled", "unlabeled.pu", "unlabeled.pu.priors", "unlabeled.ssl", "unlabeled.mil",
           "unlabeled.cluster", "unlabeled.lupi", "unlabeled.generative",
           "unlabeled.model_selection"]  # fmt: skip


def _public_estimators():
    found = {}
    for name in MODULES:
        module = __import__(name, fromlist=["__all__"])
        for attr in getattr(module, "__all__", []):
            obj = getattr(module, attr)
            if inspect.isclass(obj) and issubclass(obj, ValidatedEstimator):
                found[obj.__name__] = obj
    return sorted(found.items())


@pytest.mark.parametrize("name, cls", _public_estimators())
def test_every_public_fit_is_transactional(name, cls):
    assert getattr(cls.fit, "_transactional", False), name


def _same_state(before, est):
    assert set(vars(est)) == set(before)
    for key, value in before.items():
        assert vars(est)[key] is value, key


def test_failed_search_refit_keeps_the_fitted_search():
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(1, 1, (40, 2)), rng.normal(-1, 1, (40, 2))]
    s = np.r_[np.ones(15, int), np.zeros(65, int)]
    search = PUGridSearchCV(PUSVC(prior=0.4), {"lam": [0.01, 0.1]}, cv=3).fit(X, s)
    before = dict(vars(search))
    with pytest.raises(ValueError):
        search.fit(np.c_[X, X], np.r_[s[:-1], 7])  # a label that is not PU
    _same_state(before, search)
    assert search.best_estimator_.n_features_in_ == 2


def test_failed_bag_transformer_refit_keeps_the_fitted_one():
    rng = np.random.default_rng(0)
    bags = [rng.normal(size=(3, 2)) for _ in range(4)]
    bt = BagTransformer(StandardScaler()).fit(bags)
    before = dict(vars(bt))
    bad = [*bags, rng.normal(size=(3, 5))]  # a bag with other features
    with pytest.raises(ValueError):
        bt.fit(bad)
    _same_state(before, bt)
    assert bt.n_features_in_ == 2
