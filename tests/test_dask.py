"""Searches on a real Dask cluster (worker processes on this machine) equal the serial run."""

from pathlib import Path

import joblib
import numpy as np
import pytest
from conftest import make_pu
from distributed import get_task_stream
from sklearn.model_selection import GridSearchCV

import unlabeled
from unlabeled import PUSVC
from unlabeled.metrics import make_pu_scorer
from unlabeled.model_selection import PUGridSearchCV, PUStratifiedKFold

GRID = {"lam": [1e-1, 1e-2, 1e-3], "gamma": [0.3, 1.0]}


def _package_file():
    import unlabeled

    return str(Path(unlabeled.__file__).resolve())


def test_workers_run_this_code(dask_client):
    files = dask_client.run(_package_file)
    assert len(files) == 2
    assert set(files.values()) == {str(Path(unlabeled.__file__).resolve())}


@pytest.fixture(scope="module")
def problem():
    X, s, prior = make_pu(4, n=120, d=3, p=30)
    est = PUSVC(prior=prior, tol=1e-8, n_jobs=1)  # one engine thread per worker
    cv = PUStratifiedKFold(3, shuffle=True, random_state=0)
    return X, s, prior, est, cv


def _assert_same_results(a, b):
    assert a.cv_results_["params"] == b.cv_results_["params"]
    for key in ["mean_test_score", "split0_test_score", "split1_test_score", "split2_test_score"]:
        np.testing.assert_allclose(a.cv_results_[key], b.cv_results_[key], rtol=0, atol=1e-12)
    ranks = a.cv_results_["rank_test_score"], b.cv_results_["rank_test_score"]
    np.testing.assert_array_equal(*ranks)
    assert a.best_params_ == b.best_params_
    assert a.best_score_ == pytest.approx(b.best_score_, abs=1e-12)


def test_pu_grid_search_on_dask_equals_serial(dask_client, problem):
    X, s, prior, est, cv = problem
    serial = PUGridSearchCV(est, GRID, cv=cv, scoring="double-hinge").fit(X, s)
    with get_task_stream(dask_client) as stream, joblib.parallel_backend("dask"):
        dist = PUGridSearchCV(est, GRID, cv=cv, scoring="double-hinge").fit(X, s)
    _assert_same_results(dist, serial)
    assert dist.n_solver_iter_ == serial.n_solver_iter_  # the same warm paths ran
    assert len(stream.data) > 0  # the fits ran on the cluster's workers
    np.testing.assert_allclose(dist.decision_function(X), serial.decision_function(X), atol=1e-12)


def test_sklearn_grid_search_on_dask_equals_serial(dask_client, problem):
    X, s, prior, est, cv = problem
    scoring = make_pu_scorer("pu-accuracy", prior=prior)
    serial = GridSearchCV(est, GRID, cv=cv, scoring=scoring).fit(X, s)
    with joblib.parallel_backend("dask"):
        dist = GridSearchCV(est, GRID, cv=cv, scoring=scoring).fit(X, s)
    _assert_same_results(dist, serial)
    # without scoring: PUSVC.score, the PU accuracy at the fitted prior
    serial = GridSearchCV(est, GRID, cv=cv).fit(X, s)
    with joblib.parallel_backend("dask"):
        dist = GridSearchCV(est, GRID, cv=cv).fit(X, s)
    _assert_same_results(dist, serial)
