"""Prediction from many threads at once, beyond the common suite (tests/test_common.py runs it
on every registered estimator): the wrappers that are not estimators of their own
(BagTransformer, PUGridSearchCV) and the autoencoder at a size whose calls overlap long enough
to have shown issue 44, item 4 (1 of 400 concurrent ``transform`` calls failed with a dtype
mismatch)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.preprocessing import StandardScaler
from test_common import check_threads_equal_serial
from test_model_files_all import _has_torch

from unlabeled import PUSVC, PlummerAutoencoder
from unlabeled.mil import BagTransformer
from unlabeled.model_selection import PUGridSearchCV


def _data():
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(1, 1, (30, 3)), rng.normal(-1, 1, (30, 3))]
    s = np.r_[np.ones(12, int), np.zeros(48, int)]
    bags = [X[i : i + 4] for i in range(0, 60, 4)]
    return X, s, bags


X, S, BAGS = _data()
X_TEST = np.random.default_rng(1).normal(scale=2.0, size=(2000, 3))  # calls that overlap
BAGS_TEST = [X_TEST[i : i + 5] for i in range(0, 2000, 5)]
PAE = pytest.mark.skipif(not _has_torch(), reason="the autoencoder needs torch")

#: name -> (estimator, fit arguments, test data); small fits
CASES = {  # registry: composites and torch, not in the common suite's threads
    "BagTransformer": (lambda: BagTransformer(StandardScaler()), (BAGS,), BAGS_TEST),
    "PUGridSearchCV": (
        lambda: PUGridSearchCV(PUSVC(0.4, n_jobs=1), {"lam": [0.1, 1.0]}, cv=2, random_state=0),
        (X, S),
        X_TEST,
    ),
    "PlummerAutoencoder": (
        lambda: PlummerAutoencoder(
            hidden_layer_sizes=(64, 64), max_iter=5, batch_size=30, device="cpu", random_state=0
        ),
        (X,),
        np.random.default_rng(2).normal(size=(4000, 3)),  # calls long enough to overlap
    ),
}
NAMES = [pytest.param(n, marks=PAE) if n == "PlummerAutoencoder" else n for n in CASES]


def _fit(name):
    make, args, _ = CASES[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return make().fit(*args)


@pytest.mark.parametrize("name", NAMES)
def test_prediction_from_many_threads_equals_serial(name):
    check_threads_equal_serial(name, _fit(name), CASES[name][2])
