"""No deprecation warning, of ours or of scikit-learn's, reaches a user of the estimators
(scikit-learn 1.9 deprecates ``SVC(probability=True)``; the library keeps its own
``probability=``, whose calibrations are not SVC's, see the user guide's "Probabilities")."""

from __future__ import annotations

import inspect
import warnings

import pytest
from sklearn.base import clone
from test_common import CASES, compare_data, fit_args, make, outputs

DEPRECATIONS = (DeprecationWarning, PendingDeprecationWarning, FutureWarning)


def _cases():
    """Every case of the common suite, and with probability=True where it is offered."""
    for key, (entry, case) in CASES.items():
        build = lambda entry=entry, case=case: make(entry, case)  # noqa: E731
        yield key, entry, case, build
        if "probability" in inspect.signature(entry.load()).parameters:
            proba = lambda build=build: clone(build()).set_params(probability=True, random_state=0)  # noqa: E731
            yield f"{key}-proba", entry, case, proba


CASES_PROBA = list(_cases())


@pytest.mark.parametrize("name, entry, case, build", CASES_PROBA, ids=[c[0] for c in CASES_PROBA])
def test_no_deprecation_warning_in_fit_and_predict(name, entry, case, build):
    for module in entry.needs:
        pytest.importorskip(module)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est = build().fit(*fit_args(entry, case))
        outputs(est, compare_data(entry, case))
    found = [
        f"{w.category.__name__}: {w.message} ({w.filename}:{w.lineno})"
        for w in caught
        if issubclass(w.category, DEPRECATIONS)
    ]
    assert not found, found
