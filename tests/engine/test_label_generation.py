"""The label generation of the WellSVMs (``unlabeled._label_generation``): every inner SVM and
the MKL step against cvxpy + Clarabel, the relaxation against the brute-force optimum with an
exact oracle, the engine's backends and the cap on their solves."""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from unlabeled import _label_generation


def _capped_solves(monkeypatch, cap=3):
    """Every SVM solve of the label-generation backends capped at ``cap`` steps."""
    monkeypatch.setattr(_label_generation, "resolve_max_iter", lambda *a, **k: cap)


@pytest.mark.parametrize("name", ["LabeledSVM", "TSVM", "miSVM", "MISVM"])
def test_inner_svm_solve_at_its_cap_warns(monkeypatch, name):
    """LabeledSVM(max_iter=10) stopped its solve at the cap without a ConvergenceWarning,
    and its result then depended on the layout of X (the fuzz case: COO against dense); TSVM,
    mi-SVM and MI-SVM did not look at their inner solves either. Every one warns now."""
    from unlabeled import TSVM, LabeledSVM
    from unlabeled.mil import MISVM, miSVM

    rng = np.random.default_rng(2)
    X = rng.normal(size=(40, 3))
    y = np.where(X[:, 0] > 0, 1, 0)
    if name in ("LabeledSVM", "TSVM"):
        y = np.where(rng.random(40) < 0.5, -1, y)
        y[:2], y[-2:] = 1, 0
    est = {"LabeledSVM": LabeledSVM, "TSVM": TSVM, "miSVM": miSVM, "MISVM": MISVM}[name]()
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        est.fit(X, y)  # converges: no warning
    if name == "LabeledSVM":
        est.set_params(max_iter=2)
    else:
        _capped_solves(monkeypatch)
    with pytest.warns(ConvergenceWarning, match=f"^{name} stopped an SVM solve before tol"):
        est.fit(X, y)
