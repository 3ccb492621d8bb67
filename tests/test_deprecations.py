"""No deprecation warning, of ours or of scikit-learn's, reaches a user of the estimators
(scikit-learn 1.9 deprecates ``SVC(probability=True)``; the library keeps its own
``probability=``, whose calibrations are not SVC's, see the user guide's "Probabilities")."""

from __future__ import annotations

import inspect
import warnings

import pytest
import test_model_files_all as files
from sklearn.base import clone

DEPRECATIONS = (DeprecationWarning, PendingDeprecationWarning, FutureWarning)


def _cases():
    """Every model of the model-file suite, and with probability=True where it is offered."""
    for name, (make, args, data) in files.CASES.items():
        yield name, make, args, data
        if "probability" in inspect.signature(type(make())).parameters:
            yield (
                f"{name}-proba",
                lambda make=make: clone(make()).set_params(probability=True, random_state=0),
                args,
                data,
            )


CASES = list(_cases())


@pytest.mark.parametrize("name, make, args, data", CASES, ids=[c[0] for c in CASES])
def test_no_deprecation_warning_in_fit_and_predict(name, make, args, data):
    if name.startswith("PlummerAutoencoder"):
        pytest.importorskip("torch")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est = make().fit(*args)
        if data is not None:
            files._outputs(est, data)
    found = [f"{w.category.__name__}: {w.message} ({w.filename}:{w.lineno})" for w in caught
             if issubclass(w.category, DEPRECATIONS)]  # fmt: skip
    assert not found, found
