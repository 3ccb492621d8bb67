"""PUSVC model files written by an earlier build still load and predict the same.

The files in tests/data were written by unlabeled 0.1.0 at commit 7816e40, before the package's
modules were reorganised (``_kernel_machine`` -> ``base``, ``_model_io`` -> ``model_io``), with
the decision values that build computed on the test points. A model file names only the
estimator's own class, so a reorganisation of the modules under it must not break it.
"""

from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from unlabeled import PUSVC
from unlabeled.model_io import load_model
from unlabeled.registry import all_estimators

DATA = Path(__file__).resolve().parent / "data"
EXPECTED = np.load(DATA / "pusvc-0.1.0-expected.npz")


def _sparse(A):
    return sp.csr_matrix(A * (np.abs(A) > 0.5))


@pytest.mark.parametrize(
    "name, params",
    [
        ("rbf", {"kernel": "rbf", "gamma": 0.5}),
        ("linear", {"kernel": "linear"}),
        ("sparse", {"kernel": "rbf", "gamma": 0.5}),
    ],
)
def test_earlier_model_files_load_and_predict_the_same(name, params):
    est, record = load_model(DATA / f"pusvc-0.1.0-{name}.skops")
    assert type(est) is PUSVC and record["written_by"].startswith("unlabeled 0.1.0")
    Xt = EXPECTED["Xt"] if name != "sparse" else _sparse(EXPECTED["Xt"])
    np.testing.assert_allclose(
        est.decision_function(Xt), EXPECTED[f"{name}_decision"], rtol=0, atol=1e-12
    )
    # this build reaches the same optimum on the same data (at the solver's offset, as 0.1.0
    # predicted: threshold="zero", the value a loaded 0.1.0 file gets)
    assert est.threshold == "zero" and est.threshold_ == 0.0
    X = EXPECTED["X"] if name != "sparse" else _sparse(EXPECTED["X"])
    refit = PUSVC(0.45, 0.01, tol=1e-8, threshold="zero", **params).fit(X, EXPECTED["s"])
    assert refit.objective_ == pytest.approx(float(EXPECTED[f"{name}_objective"]), abs=1e-9)
    np.testing.assert_allclose(
        refit.decision_function(Xt), EXPECTED[f"{name}_decision"], rtol=0, atol=1e-6
    )


SSL_EXPECTED = np.load(DATA / "ssl-0.2.0-expected.npz")


#: the estimators that gained the standardize parameter after 0.2.0, by command name
STANDARDIZED = {
    e.command: e.load()
    for e in all_estimators(family="ssl", load=True)
    if "standardize" in e.load()._get_param_names()
}


@pytest.mark.parametrize("name", sorted(STANDARDIZED))
def test_semi_supervised_files_before_standardize_predict_the_same(name):
    """Files of the semi-supervised SVMs written by 0.2.0 at commit 2424e5a, before the
    ``standardize`` parameter, on features of unequal scales: they load with
    ``standardize=False`` (model_io.ADDED_PARAMS) and no ``scale_``, and predict to the bit
    what that build computed; a refit with ``standardize=False`` is that model."""
    est, _ = load_model(DATA / f"{name}-0.2.0.skops")
    assert est.standardize is False and getattr(est, "scale_", None) is None
    Xt = SSL_EXPECTED["Xt"]
    np.testing.assert_array_equal(est.decision_function(Xt), SSL_EXPECTED[name])
    cls = STANDARDIZED[name]
    refit = cls(standardize=False).fit(SSL_EXPECTED["X"], SSL_EXPECTED["y"])
    np.testing.assert_allclose(refit.decision_function(Xt), SSL_EXPECTED[name], atol=1e-12)
    default = cls().fit(SSL_EXPECTED["X"], SSL_EXPECTED["y"])  # the new default differs
    assert np.abs(default.decision_function(Xt) - SSL_EXPECTED[name]).max() > 1e-3


STD_EXPECTED = np.load(DATA / "ssl-0.2.0-std-expected.npz")


@pytest.mark.parametrize("name", sorted(STANDARDIZED))
def test_files_of_the_first_standardize_rule_predict_the_same(name):
    """Files of the semi-supervised SVMs written at commit 929a41a, when ``standardize``
    divided every column by its standard deviation, on a table with binary and one-hot
    columns (which the rule of issue 52 divides by half their range): they load with the
    scales they were fitted with and predict to the bit what that build computed; a refit
    of the same table takes the new scales and another model."""
    est, _ = load_model(DATA / f"{name}-0.2.0-std.skops")
    X, Xt = STD_EXPECTED["X"], STD_EXPECTED["Xt"]
    np.testing.assert_allclose(est.scale_[0], np.std(X, axis=0), rtol=1e-14)
    np.testing.assert_array_equal(est.decision_function(Xt), STD_EXPECTED[name])
    refit = STANDARDIZED[name]().fit(X, STD_EXPECTED["y"])
    np.testing.assert_array_equal(refit.scale_[0, 1:], 0.5)  # the 0/1 columns
    np.testing.assert_array_equal(refit.scale_[0, 0], est.scale_[0, 0])  # the continuous one
