"""A new user's PU-learning session, written from the docstrings: fit PUSVC on positive and
unlabeled data, rank by probability, cross-validate with the PU tools, save, load, reuse."""

import numpy as np
from _common import WORK, read_column, unlabeled_cli, write_csv
from sklearn.metrics import roc_auc_score

import unlabeled
from unlabeled import PUSVC
from unlabeled.datasets import make_pu_labels
from unlabeled.model_selection import PUGridSearchCV, PUStratifiedKFold

rng = np.random.default_rng(0)
X = np.r_[rng.normal(1, 1, (150, 2)), rng.normal(-1, 1, (150, 2))]
y = np.repeat([1, 0], 150)
s = make_pu_labels(y, labeled_fraction=0.3, random_state=0)

clf = PUSVC(prior="auto", probability=True, random_state=0).fit(X, s)
proba = clf.predict_proba(X)[:, 1]
assert proba.min() >= 0 and proba.max() <= 1
assert roc_auc_score(y, proba) > 0.85, roc_auc_score(y, proba)
assert abs(clf.prior_ - 105 / 255) < 0.15, clf.prior_  # the unlabeled set's true share

search = PUGridSearchCV(
    PUSVC(prior=clf.prior_),
    {"lam": [0.01, 0.1]},
    cv=PUStratifiedKFold(3, shuffle=True, random_state=0),
).fit(X, s)
assert search.best_params_["lam"] in (0.01, 0.1)

path = WORK / "pu.skops"
unlabeled.save(clf, path)
again = unlabeled.load(path)
assert np.array_equal(again.predict(X), clf.predict(X))
assert np.array_equal(again.predict_proba(X), clf.predict_proba(X))

# the same model from the command line: identical predictions, and its file loads in Python
data = write_csv("pu.csv", X, s=s)
unlabeled_cli(
    "fit",
    data,
    "--label-column",
    "s",
    "--prior",
    "auto",
    "--probability",
    "--random-state",
    "0",
    "-o",
    "pu-cli.skops",
)
out = WORK / "pu-pred.csv"
unlabeled_cli("predict", "pu-cli.skops", data, "--proba", "-o", out)
from_file = unlabeled.load(WORK / "pu-cli.skops")
Xr = np.loadtxt(data, delimiter=",", skiprows=1)[:, :2]  # what the CSV holds
assert np.array_equal(read_column(out, 0), from_file.predict(Xr))
assert np.allclose(read_column(out, 2), from_file.predict_proba(Xr)[:, 1], rtol=0, atol=1e-12)
assert np.mean(read_column(out, 0) == clf.predict(X)) > 0.95
print("pu_learning: ok")
