"""A new user's multi-instance session, written from the docstrings: bags as a list of arrays
and as instances with bag ids, probabilities per bag, scikit-learn's cross-validation with
groups, save, load, reuse."""

import numpy as np
import sklearn
from _common import WORK, unlabeled_cli, write_csv
from sklearn.model_selection import GroupKFold, cross_val_score

import unlabeled
from unlabeled import MISVM, MILWellSVM, miSVM

rng = np.random.default_rng(0)
bags = [rng.normal(0, 1, (5, 2)) for _ in range(40)]
for b in bags[:20]:
    b[0] += 4  # one key instance per positive bag
y = np.repeat([1, 0], 20)

for est in [  # registry: a user's script names what it compares
    MISVM(probability=True, random_state=0),
    miSVM(probability=True, random_state=0),
    MILWellSVM(gamma=0.5, probability=True, random_state=0),
]:
    name = type(est).__name__
    est.fit(bags, y)
    assert est.score(bags, y) > 0.9, name
    proba = est.predict_proba(bags)
    assert proba.shape == (40, 2) and np.allclose(proba.sum(axis=1), 1), name
    path = WORK / f"{name}.skops"
    unlabeled.save(est, path)
    again = unlabeled.load(path)
    assert np.array_equal(again.predict(bags), est.predict(bags)), name
    assert np.allclose(again.predict_proba(bags), proba, rtol=0, atol=1e-12), name

# the instance layout: one row per instance, its bag id in groups, routed to fit and score;
# cross_val_score must give the bag accuracies of a manual loop over the same folds
X = np.concatenate(bags)
ids = np.repeat(np.arange(40), 5)
y_instances = np.repeat(y, 5)
cv = GroupKFold(4)
with sklearn.config_context(enable_metadata_routing=True):
    scores = cross_val_score(miSVM(), X, y_instances, cv=cv, params={"groups": ids})
manual = []
for train, test in cv.split(X, y_instances, ids):
    model = miSVM().fit(X[train], y_instances[train], groups=ids[train])
    bag_pred = model.predict(X[test], groups=ids[test])
    manual.append(np.mean(bag_pred == y[np.unique(ids[test])]))
assert np.allclose(scores, manual), (scores, manual)
assert min(manual) > 0.8, manual

# the command line: a bag-id column and each bag's label on its rows; one prediction per bag
data = write_csv("bags.csv", X, bag=ids, y=y_instances)
Xr = np.loadtxt(data, delimiter=",", skiprows=1)[:, :2]
python_fit = MISVM(C=10.0).fit(Xr, y_instances, groups=ids)
unlabeled_cli(
    "fit",
    data,
    "--estimator",
    "misvm-bag",
    "--bag-column",
    "bag",
    "--label-column",
    "y",
    "--C",
    "10",
    "-o",
    "mil.skops",
)
out = WORK / "mil-pred.csv"
unlabeled_cli("predict", "mil.skops", data, "-o", out)
cli_pred = np.loadtxt(out, delimiter=",", skiprows=1, ndmin=2)[:, -1]
assert np.array_equal(cli_pred, python_fit.predict(Xr, groups=ids)), cli_pred
assert "accuracy" in unlabeled_cli("evaluate", "mil.skops", data)
print("multi_instance: ok")
