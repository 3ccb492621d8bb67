"""A new user's SVM+ session, written from the docstrings: privileged features at training
time only, probabilities, cross-validation, save, load, reuse."""

import numpy as np
from _common import WORK, read_column, unlabeled_cli, write_csv
from sklearn.model_selection import cross_val_score

import unlabeled
from unlabeled import SVMPlus

rng = np.random.default_rng(0)
X_star = rng.normal(size=(120, 2))
y = np.where(X_star.sum(axis=1) > 0, 1, -1)
X = X_star + 0.3 * rng.normal(size=(120, 2))

clf = SVMPlus(kernel="linear", probability=True, random_state=0).fit(X, y, X_star)
assert clf.score(X, y) > 0.8
proba = clf.predict_proba(X)
assert np.allclose(proba.sum(axis=1), 1) and list(clf.classes_) == [-1, 1]
# the privileged features follow the training folds as a fit parameter
scores = cross_val_score(SVMPlus(kernel="linear"), X, y, cv=3, params={"X_star": X_star})
assert scores.mean() > 0.8, scores

path = WORK / "svmplus.skops"
unlabeled.save(clf, path)
again = unlabeled.load(path)
assert np.array_equal(again.predict(X), clf.predict(X))
assert np.allclose(again.predict_proba(X), proba, rtol=0, atol=1e-12)

# the command line: the privileged columns are read by fit only
data = write_csv("lupi.csv", X, p0=X_star[:, 0], p1=X_star[:, 1], y=y)
table = np.loadtxt(data, delimiter=",", skiprows=1)
python_fit = SVMPlus(kernel="linear").fit(table[:, :2], y, table[:, 2:4])
unlabeled_cli(
    "fit",
    data,
    "--estimator",
    "svmplus",
    "--privileged-columns",
    "p0,p1",
    "--label-column",
    "y",
    "--kernel",
    "linear",
    "-o",
    "svmplus-cli.skops",
)
out = WORK / "lupi-pred.csv"
unlabeled_cli("predict", "svmplus-cli.skops", data, "-o", out)
assert np.array_equal(read_column(out, 0), python_fit.predict(table[:, :2]))
print("privileged: ok")
