"""A new user's semi-supervised session, written from the docstrings: a few labels and -1 for
the rest, every semi-supervised estimator with probabilities, cross-validation on the labeled
points, save, load, reuse."""

import numpy as np
from _common import WORK, read_column, unlabeled_cli, write_csv
from sklearn.metrics import brier_score_loss

import unlabeled
from unlabeled import CLSST, TSVM, LabeledSVM, LapSVM, WellSVM

rng = np.random.default_rng(0)
X = np.r_[rng.normal(-2, 1, (60, 2)), rng.normal(2, 1, (60, 2))]
truth = np.repeat([0, 1], 60)
y = np.full(120, -1)
labeled = np.r_[0:4, 60:64]
y[labeled] = truth[labeled]

for est in [  # registry: a user's script names what it compares
    WellSVM(gamma=0.5, probability=True, random_state=0),
    TSVM(probability=True, random_state=0),
    LapSVM(probability=True, random_state=0),
    LabeledSVM(probability=True, random_state=0),
    CLSST(random_state=0),
]:
    name = type(est).__name__
    est.fit(X, y)
    accuracy = np.mean(est.predict(X) == truth)  # CLSST.score is a log-likelihood
    assert accuracy > 0.9, (name, accuracy)
    proba = est.predict_proba(X)
    assert np.allclose(proba.sum(axis=1), 1), name
    assert brier_score_loss(truth, proba[:, 1]) < 0.15, name
    path = WORK / f"{name}.skops"
    unlabeled.save(est, path)
    again = unlabeled.load(path)
    assert np.array_equal(again.predict(X), est.predict(X)), name
    assert np.allclose(again.predict_proba(X), proba, rtol=0, atol=1e-12), name

# the command line: -1 marks the unlabeled rows; the same fit as from Python
data = write_csv("ssl.csv", X, y=y, truth=truth)
Xr = np.loadtxt(data, delimiter=",", skiprows=1)[:, :2]
python_fit = WellSVM(gamma=0.5, probability=True, random_state=0).fit(Xr, y)
unlabeled_cli(
    "fit",
    data,
    "--estimator",
    "wellsvm",
    "--label-column",
    "y",
    "--ignore-column",
    "truth",
    "--gamma",
    "0.5",
    "--probability",
    "--random-state",
    "0",
    "-o",
    "w.skops",
)
out = WORK / "ssl-pred.csv"
unlabeled_cli("predict", "w.skops", data, "--proba", "-o", out)
assert np.array_equal(read_column(out, 0), python_fit.predict(Xr))
assert np.allclose(read_column(out, 2), python_fit.predict_proba(Xr)[:, 1], rtol=0, atol=1e-9)
report = unlabeled_cli("evaluate", "w.skops", data, "--true-labels", "truth")
assert "accuracy" in report, report
print("semi_supervised: ok")
