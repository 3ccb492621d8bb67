"""
The command line, end to end
============================

Installing the package also installs the ``unlabeled`` command (``python -m unlabeled`` is
the same). ``unlabeled fit`` trains an estimator on a data file (CSV, LIBSVM/svmlight or
``.npz``) and saves it to a model file; ``unlabeled predict`` and ``unlabeled evaluate`` use
it. Here the command runs from Python through ``subprocess``, exactly as a shell would
run it; the commands are printed as you would type them.

The data: scikit-learn's breast cancer set as a CSV file with a header, the benign class as
positives, 30 % of the training positives labeled (column ``s``), and the true class (column
``y``) kept for the evaluation but left out of the features.
"""

# %%
import json
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

from unlabeled.datasets import make_pu_labels

folder = Path(tempfile.mkdtemp(prefix="unlabeled-cli-"))
X, target = load_breast_cancer(return_X_y=True)
y = (target == 1).astype(int)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.4, random_state=0)
scaler = StandardScaler().fit(X_train)
header = ",".join([f"f{i}" for i in range(X.shape[1])] + ["s", "y"])
for name, Xp, yp in (("train", X_train, y_train), ("test", X_test, y_test)):
    s = make_pu_labels(yp, labeled_fraction=0.3, random_state=0)
    table = np.c_[scaler.transform(Xp), s, yp]
    np.savetxt(folder / f"{name}.csv", table, delimiter=",", header=header, comments="", fmt="%.6g")


def unlabeled(*args):
    """Run ``unlabeled ARGS`` in the example's folder, print it and its output."""
    print("$ unlabeled " + shlex.join(args))
    done = subprocess.run(
        [sys.executable, "-m", "unlabeled", *args],
        cwd=folder,
        capture_output=True,
        text=True,
        check=True,
    )
    print(done.stdout, end="")
    return done.stdout


# %%
# Fit: the prior estimated from the data, the model saved to a file
# -----------------------------------------------------------------
# Progress goes to stderr (``--quiet`` silences it), results to stdout. ``--random-state``
# seeds the prior's estimation (``--prior auto``), so that the run is reproducible.
unlabeled(
    "fit", "train.csv", "--label-column", "s", "--ignore-column", "y",
    "--prior", "auto", "--random-state", "0", "--lam", "0.01", "-o", "model.skops",
)  # fmt: skip

# %%
# Predict: labels and decision values for new data
# ------------------------------------------------
unlabeled("predict", "model.skops", "test.csv", "--decision", "-o", "pred.csv")
pred = np.genfromtxt(folder / "pred.csv", delimiter=",", names=True)
print(pred[:5])

# %%
# Evaluate: the PU risk from PU labels alone, and with the true labels
# --------------------------------------------------------------------
report = json.loads(
    unlabeled("evaluate", "model.skops", "test.csv", "--true-labels", "y", "--json")
)

# %%
# The decision values by true class, and the scores
# -------------------------------------------------
# The PU risk is an unbiased estimate of the error rate on the unlabeled population, from
# the file's PU labels alone (it can come out slightly negative on a small file); F1,
# precision, recall and ROC AUC need the true labels.
fig, (ax0, ax1) = plt.subplots(1, 2, figsize=(12, 4))
for c, label in ((1, "benign (positive)"), (0, "malignant")):
    ax0.hist(pred["decision"][y_test == c], bins=30, alpha=0.6, label=label)
ax0.axvline(0, color="k", lw=1)
ax0.set(xlabel="decision value f(x)", ylabel="test points", title="unlabeled predict --decision")
ax0.legend()
names = ["f1", "precision", "recall", "roc_auc", "pu_risk"]
bars = ax1.bar(names, [report[n] for n in names], color=["C0"] * 4 + ["C3"])
ax1.bar_label(bars, fmt="%.3f")
ax1.axhline(0, color="k", lw=0.8)
ax1.set(ylim=(min(0, report["pu_risk"]) - 0.05, 1.1), ylabel="value")
ax1.set_title("unlabeled evaluate --true-labels y")
fig.tight_layout()
plt.show()

# %%
# ``unlabeled fit --estimator NAME`` fits the other families the same way (``--help`` lists
# them and their options); ``unlabeled demo`` runs the breast cancer demo in one command.
