"""Prediction from many threads at once: every public estimator's prediction methods, called
from 8 threads together on one fitted model, return the serial results bit for bit and leave
the model as it was (no shared state mutated during a call: issue 44, item 4, where 1 of 400
concurrent ``PlummerAutoencoder.transform`` calls failed with a dtype mismatch)."""

from __future__ import annotations

import pickle
import sys
import threading
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.preprocessing import StandardScaler
from test_model_files_all import _has_torch

import unlabeled
from unlabeled import (
    CLSST,
    MISVM,
    PUSVC,
    TSVM,
    LabeledSVM,
    LapSVM,
    MILWellSVM,
    PlummerAutoencoder,
    SVMPlus,
    WellSVM,
    WellSVMClustering,
    miSVM,
)
from unlabeled.mil import BagTransformer
from unlabeled.model_selection import PUGridSearchCV
from unlabeled.pu import DoubleHingeQP, RampPU, USMOInit, priors

N_THREADS, N_CALLS = 8, 6
#: the prediction methods, each called on the test data (inverse_transform on the codes)
METHODS = (
    "predict",
    "transform",
    "predict_proba",
    "predict_log_proba",
    "decision_function",
    "score_samples",
    "inverse_transform",
)


def _data():
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(1, 1, (30, 3)), rng.normal(-1, 1, (30, 3))]
    y = np.r_[np.ones(30, int), np.zeros(30, int)]
    y_ssl = np.full(60, -1)
    y_ssl[:5], y_ssl[30:35] = 1, 0
    s = np.r_[np.ones(12, int), np.zeros(48, int)]
    bags = [X[i : i + 4] for i in range(0, 60, 4)]
    y_bags = np.r_[np.ones(8, int), np.zeros(7, int)]
    return X, y, y_ssl, s, bags, y_bags


X, Y, Y_SSL, S, BAGS, Y_BAGS = _data()
X_TEST = np.random.default_rng(1).normal(scale=2.0, size=(2000, 3))  # calls that overlap
BAGS_TEST = [X_TEST[i : i + 5] for i in range(0, 2000, 5)]
X_CSR = sp.csr_matrix(np.where(np.abs(X) > 0.5, X, 0.0))
PAE = pytest.mark.skipif(not _has_torch(), reason="the autoencoder needs torch")

#: name -> (estimator, fit arguments, test data); small fits
CASES = {
    "PUSVC": (lambda: PUSVC(0.4, probability=True, random_state=0), (X, S), X_TEST),
    "PUSVC-sparse": (lambda: PUSVC(0.4), (X_CSR, S), sp.csr_matrix(X_TEST)),
    "PUSVC-linear": (lambda: PUSVC(0.4, kernel="linear"), (X, S), X_TEST),
    "DoubleHingeQP": (lambda: DoubleHingeQP(0.4), (X, S), X_TEST),
    "RampPU": (lambda: RampPU(0.4), (X, S), X_TEST),
    "USMOInit": (lambda: USMOInit(0.4), (X, S), X_TEST),
    "WellSVM": (lambda: WellSVM(probability=True, random_state=0), (X, Y_SSL), X_TEST),
    "TSVM": (lambda: TSVM(), (X, Y_SSL), X_TEST),
    "LapSVM": (lambda: LapSVM(), (X, Y_SSL), X_TEST),
    "LabeledSVM": (lambda: LabeledSVM(probability=True, random_state=0), (X, Y_SSL), X_TEST),
    "CLSST": (
        lambda: CLSST(n_components=2, n_factors=1, max_iter=30, random_state=0),
        (X, Y_SSL),
        X_TEST,
    ),  # fmt: skip
    "SVMPlus": (lambda: SVMPlus(probability=True, random_state=0), (X, Y, X[:, ::-1]), X_TEST),
    "WellSVMClustering": (lambda: WellSVMClustering(random_state=0), (X,), X_TEST),
    "MILWellSVM": (lambda: MILWellSVM(), (BAGS, Y_BAGS), BAGS_TEST),
    "MISVM": (lambda: MISVM(probability=True, random_state=0), (BAGS, Y_BAGS), BAGS_TEST),
    "miSVM": (lambda: miSVM(), (BAGS, Y_BAGS), BAGS_TEST),
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


def _calls(est, data):
    """The prediction calls the estimator offers: name -> zero-argument function."""
    calls = {}
    for method in METHODS:
        if not hasattr(est, method):  # (probabilities only with probability=True)
            continue
        arg = data
        if method == "inverse_transform":
            arg = est.transform(data)
        calls[method] = (lambda f, a: lambda: f(a))(getattr(est, method), arg)
    if isinstance(est, PlummerAutoencoder):  # its score and sampler are predictions too
        calls["score"] = lambda: est.score(data[:500])
        calls["sample"] = lambda: est.sample(300, random_state=0)
    return calls


def _in_threads(call):
    """``call()`` N_CALLS times in each of N_THREADS threads started together: the results,
    or the first exception raised in a thread."""
    start = threading.Barrier(N_THREADS)
    results, errors = [], []

    def work():
        start.wait()
        try:
            for _ in range(N_CALLS):
                results.append(call())
        except BaseException as exc:  # noqa: BLE001 - re-raised in the main thread
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(N_THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    return results


def _as_array(value):
    if isinstance(value, list):  # BagTransformer: a list of bags
        return np.concatenate(value)
    return np.asarray(value)


@pytest.mark.parametrize("name", NAMES)
def test_prediction_from_many_threads_equals_serial(name):
    est = _fit(name)
    data = CASES[name][2]
    calls = _calls(est, data)
    assert calls, f"{name} offers no prediction method"
    state, torch_threads = pickle.dumps(est), _torch_threads()
    for method, call in calls.items():
        serial = _as_array(call())
        results = _in_threads(call)
        assert len(results) == N_THREADS * N_CALLS
        for got in results:
            np.testing.assert_array_equal(_as_array(got), serial, err_msg=f"{name}.{method}")
    assert pickle.dumps(est) == state, f"{name}: a prediction changed the fitted model"
    assert _torch_threads() == torch_threads  # the process's count restored


def _torch_threads():
    torch = sys.modules.get("torch")
    return None if torch is None else torch.get_num_threads()


def test_every_public_estimator_is_covered():
    """Every public estimator with a prediction method is a case; the class-prior estimators
    have none (their result is the fitted ``prior_``)."""
    classes = {type(make()).__name__ for make, _, _ in CASES.values()}
    public = {n for n in unlabeled.__all__ if n[0].isupper() or n == "miSVM"}
    public |= {n for n in unlabeled.pu.__all__ if n[0].isupper()}
    public |= {"BagTransformer", "PUGridSearchCV"}
    assert public <= classes, public - classes
    for name in (n for n in priors.__all__ if n[0].isupper()):
        offered = [m for m in (*METHODS, "score", "sample") if hasattr(getattr(priors, name), m)]
        assert not offered, f"{name} now has {offered}: add it to CASES"
