"""A new user's clustering session, written from the docstrings: WellSVMClustering and CLSST
without labels, save, load, reuse."""

import numpy as np
from _common import WORK, read_column, unlabeled_cli, write_csv
from sklearn.metrics import adjusted_rand_score

import unlabeled
from unlabeled import CLSST, WellSVMClustering

rng = np.random.default_rng(0)
X = np.r_[rng.normal(-2, 1, (50, 2)), rng.normal(2, 1, (50, 2))]
truth = np.repeat([0, 1], 50)

# registry: a user's script names what it compares
for est in [WellSVMClustering(gamma=0.5, random_state=0), CLSST(random_state=0)]:
    name = type(est).__name__
    labels = est.fit_predict(X) if hasattr(est, "fit_predict") else est.fit(X).predict(X)
    assert adjusted_rand_score(truth, labels) > 0.8, name
    path = WORK / f"{name}.skops"
    unlabeled.save(est, path)
    again = unlabeled.load(path)
    assert np.array_equal(again.predict(X), est.predict(X)), name

# the command line: no label column; the adjusted Rand index against a column of the truth
data = write_csv("points.csv", X, truth=truth)
Xr = np.loadtxt(data, delimiter=",", skiprows=1)[:, :2]
python_fit = WellSVMClustering(gamma=0.5, random_state=0).fit(Xr)
unlabeled_cli(
    "fit",
    data,
    "--estimator",
    "cluster-wellsvm",
    "--ignore-column",
    "truth",
    "--gamma",
    "0.5",
    "--random-state",
    "0",
    "-o",
    "clusters.skops",
)
out = WORK / "clusters.csv"
unlabeled_cli("predict", "clusters.skops", data, "-o", out)
assert np.array_equal(read_column(out, 0), python_fit.predict(Xr))
report = unlabeled_cli("evaluate", "clusters.skops", data, "--true-labels", "truth")
assert "rand" in report.lower(), report
print("clustering: ok")
