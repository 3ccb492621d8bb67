"""Usability frictions of issue 31: a missing required parameter, DataFrame inputs."""

import warnings

import numpy as np
import pytest
from conftest import make_pu, small_pu

from unlabeled import PUSVC, TSVM, LabeledSVM, LapSVM, SVMPlus, WellSVM, WellSVMClustering
from unlabeled.exceptions import InvalidParameterError
from unlabeled.pu import DoubleHingeQP, RampPU, USMOInit, priors


@pytest.mark.parametrize("cls", [PUSVC, DoubleHingeQP, USMOInit, RampPU])
def test_missing_prior_names_it_and_the_choices(cls):
    X, s = small_pu()
    est = cls()
    with pytest.raises(InvalidParameterError, match=r"'prior'.*a number in \(0, 1\)") as info:
        est.fit(X, s)
    assert ("prior='auto'" in str(info.value)) == (cls is PUSVC)
    assert not hasattr(est, "prior_")  # refused before any work


def _frame(X, prefix="x"):
    pd = pytest.importorskip("pandas")
    return pd.DataFrame(X, columns=[f"{prefix}{j}" for j in range(X.shape[1])])


_SSL = [WellSVM, TSVM, LapSVM, LabeledSVM]
_PU = [
    lambda: PUSVC(prior=0.4, n_jobs=1),
    lambda: DoubleHingeQP(prior=0.4),
    lambda: USMOInit(prior=0.4),
    lambda: RampPU(prior=0.4, random_state=0),
]


@pytest.mark.parametrize("make", _SSL + _PU + [WellSVMClustering, SVMPlus, priors.TIcE])
def test_dataframes_fit_and_predict_without_feature_name_warnings(make):
    """Fitted on a DataFrame and used on one: no "X does not have valid feature names"
    (an internal call used to pass the checked array back through the column-name check)."""
    X, s, _ = make_pu(0, n=60, d=3, p=15)
    df = _frame(X)
    y = np.where(X[:, 0] > 0.5, 1, 0)
    est = make()
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message=".*feature names")
        if make in _SSL:
            y_ssl = np.where(np.arange(len(y)) % 3 == 0, y, -1)
            est.fit(df, y_ssl)
            est.score(df, y_ssl)
        elif make is WellSVMClustering:
            est.fit_predict(df)
        elif make is SVMPlus:
            est.fit(df, y, _frame(X[:, :2] ** 2, "star"))
        else:
            est.fit(df, s)
        if hasattr(est, "predict"):
            est.predict(df)
        if hasattr(est, "decision_function"):
            est.decision_function(df)
    if hasattr(est, "feature_names_in_"):
        np.testing.assert_array_equal(est.feature_names_in_, ["x0", "x1", "x2"])


def test_pusvc_verbose_reports_the_start(capsys):
    """verbose=True reports the start-up (the pilot and the BLAS kernel products, most of a
    large rbf fit) before the solver's own lines, so that a long fit is never silent."""
    X, s, _ = make_pu(0, n=4200, d=20, p=200)
    PUSVC(prior=0.4, lam=1e-3, n_jobs=1, verbose=True).fit(X, s)
    err = capsys.readouterr().err
    for phase in ["pilot problem", "pilot's f(x)", "h = K_UP 1", "K_UU [sigma0, upper]"]:
        assert f"[PUSVC] start: {phase}" in err
    assert "K_UU [sigma0, upper]: 4,200 x " in err  # rows x the columns with sigma0 > 0
    assert err.index("start: K_UU") < err.index("[PUSVC] done")
    PUSVC(prior=0.4, lam=1e-3, n_jobs=1).fit(X, s)
    assert capsys.readouterr().err == ""
