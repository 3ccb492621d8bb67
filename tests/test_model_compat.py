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
