"""A PU estimator registered from outside the library (here, a class defined in this test)
works on the command line with no edit of ``unlabeled.cli``: ``fit``, ``predict`` and
``evaluate`` take it through its family's declaration (the registry's ``FAMILIES``) and
report what it has. The toy is shaped nothing like PUSVC: no kernel, no ``lam``, no
``decision_function``, no support vectors, no objective; a logistic regression of the PU
labels with Elkan and Noto's correction by a known class prior. Its model files are trusted
while it is registered, and only then."""

import csv
import json

import numpy as np
import pytest
from scipy.special import expit
from sklearn.base import ClassifierMixin
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import f1_score, roc_auc_score

import unlabeled
from unlabeled.base import Fitted, Real, ValidatedEstimator
from unlabeled.cli import main
from unlabeled.exceptions import ModelFileError
from unlabeled.metrics import pu_risk
from unlabeled.model_io import trusted_types
from unlabeled.registry import register, unregister


class LogisticPU(ClassifierMixin, ValidatedEstimator):
    """A logistic regression of the PU labels, divided by the labeling frequency.

    Elkan and Noto's classifier: ``g(x) = P(s = 1 | x)`` by logistic regression, then
    ``P(y = 1 | x) = g(x) / c`` with ``c = P(s = 1 | y = 1) = (n_labeled / n) / prior``.

    Parameters
    ----------
    prior : float
        The class prior, the share of positives among all points.
    C : float, default=1.0
        Inverse strength of the logistic regression's l2 penalty.

    References
    ----------
    C. Elkan and K. Noto, "Learning classifiers from only positive and unlabeled data",
    KDD 2008.
    """

    _parameter_constraints = {
        "prior": [Real(0.0, 1.0)],
        "C": [Real(0.0, None)],
    }
    _required_params = {"prior": "the class prior, a number in (0, 1)"}
    _fitted_attributes = {
        "classes_": Fitted("iu", (2,)),
        "coef_": Fitted("f", ("n_features_in_",)),
        "intercept_": Fitted("float"),
        "c_": Fitted("float", above=0.0),
        "prior_": Fitted("float", above=0.0, below=1.0),
    }

    def __init__(self, prior=None, *, C=1.0):
        self.prior = prior
        self.C = C

    def fit(self, X, s):
        params = self._validate_params()
        X, s = np.asarray(X, dtype=np.float64), np.asarray(s)
        model = LogisticRegression(C=params["C"]).fit(X, s)
        self.coef_ = model.coef_[0].copy()
        self.intercept_ = float(model.intercept_[0])
        self.c_ = float(np.mean(s == 1) / params["prior"])
        self.prior_ = params["prior"]
        self.classes_ = np.array([0, 1])
        self.n_features_in_ = X.shape[1]
        return self

    def predict_proba(self, X):
        p = np.clip(expit(np.asarray(X) @ self.coef_ + self.intercept_) / self.c_, 0.0, 1.0)
        return np.c_[1 - p, p]

    def predict(self, X):
        return self.classes_[(self.predict_proba(X)[:, 1] > 0.5).astype(int)]


@pytest.fixture
def registered():
    register(family="pu", command="logistic-pu", summary="a toy: Elkan-Noto's logistic")(LogisticPU)
    yield LogisticPU
    unregister(LogisticPU)


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    """60 points of two Gaussians, a third of the positives labeled (s = 1)."""
    rng = np.random.default_rng(3)
    X = np.r_[rng.normal(1.2, 1, (30, 2)), rng.normal(-1.2, 1, (30, 2))]
    y = np.r_[np.ones(30, int), np.zeros(30, int)]
    s = np.zeros(60, int)
    s[rng.permutation(30)[:10]] = 1
    path = tmp_path_factory.mktemp("plugin") / "pu.csv"
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["a", "b", "s", "y"])
        w.writerows([[*map(repr, x), si, yi] for x, si, yi in zip(X.tolist(), s, y, strict=True)])
    return path, X, s, y


def run(argv, capsys):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_pu_estimator_from_outside_fits_predicts_and_evaluates(
    registered, data, tmp_path, capsys
):
    path, X, s, y = data
    model = tmp_path / "toy.skops"
    argv = ["fit", path, "--estimator", "logistic-pu", "--prior", "0.5", "--C", "2"]
    code, out, err = run(
        [*argv, "--label-column", "s", "--ignore-column", "y", "-o", model], capsys
    )
    assert code == 0, err
    # what it has is reported (its prior), what it lacks is not (kernel, lam, iterations, ...)
    assert (
        out
        == f"LogisticPU(prior=0.5) fitted on 60 points (10 labeled positive); saved to {model}\n"
    )
    api = LogisticPU(prior=0.5, C=2.0).fit(X, s)

    code, out, err = run(["predict", model, path, "--proba"], capsys)
    assert code == 0, err
    rows = list(csv.reader(out.splitlines()))
    assert rows[0] == ["prediction", "proba_0", "proba_1"]
    got = np.array(rows[1:], dtype=float)
    np.testing.assert_array_equal(got[:, 0], api.predict(X))
    np.testing.assert_array_equal(got[:, 1:], api.predict_proba(X))  # repr: exact

    code, out, err = run(["evaluate", model, path, "--true-labels", "y", "--json"], capsys)
    assert code == 0, err
    result = json.loads(out)
    pred, p = api.predict(X), api.predict_proba(X)[:, 1]
    assert result["prior"] == 0.5 and (result["n_labeled"], result["n_unlabeled"]) == (10, 50)
    # the PU zero-one risk of the predictions (du Plessis et al.), and the true-label metrics
    assert result["pu_risk"] == pytest.approx(pu_risk(s, np.where(pred == 1, 1.0, -1.0), 0.5))
    assert result["f1"] == pytest.approx(f1_score(y, pred))
    assert result["roc_auc"] == pytest.approx(roc_auc_score(y, p))
    assert 0.7 < result["roc_auc"] <= 1  # the toy learns: the classes are well apart

    code, out, err = run(["evaluate", model, path, "--true-labels", "y"], capsys)
    assert code == 0 and "PU risk" in out and "prior        0.5000" in out, err
    code, _, err = run(["predict", model, path, "--decision"], capsys)  # none to give
    assert code == 2 and "LogisticPU has no decision values" in err


def test_its_model_files_are_trusted_only_while_registered(registered, data, tmp_path, capsys):
    path, *_ = data
    model = tmp_path / "toy.skops"
    argv = ["fit", path, "--estimator", "logistic-pu", "--prior", "0.5", "--label-column", "s"]
    assert run([*argv, "--ignore-column", "y", "-o", model, "-q"], capsys)[0] == 0
    assert isinstance(unlabeled.load(model), LogisticPU)
    unregister(LogisticPU)
    assert "test_cli_plugin.LogisticPU" not in trusted_types()
    with pytest.raises(ModelFileError, match="LogisticPU"):
        unlabeled.load(model)
    code, out, err = run(["predict", model, path], capsys)
    assert code == 1 and out == "" and "LogisticPU" in err
    code, _, err = run([*argv, "--estimator", "logistic-pu", "-o", tmp_path / "x.skops"], capsys)
    assert code == 2 and "invalid choice" in err
