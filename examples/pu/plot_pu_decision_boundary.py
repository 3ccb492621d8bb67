"""
PU decision boundary against a naive SVC
========================================

Positive-unlabeled (PU) data: some positives are labeled (``s = 1``), every other point is
unlabeled (``s = 0``), and the unlabeled points are a mixture of positives and negatives. A
classifier that treats the unlabeled points as negatives (the "naive" SVC on ``s``) learns to
separate the *labeled* positives from everything else: with nine unlabeled points for each
labeled one it calls the unlabeled positives negative, here every point.

:class:`unlabeled.PUSVC` minimises an unbiased estimate of the classification risk on the
unlabeled population instead, given the class prior ``pi`` (the share of positives among the
unlabeled points), and recovers a boundary close to the one a fully supervised SVC would find.
"""

# %%
# Data: two Gaussian classes, 20 % of the positives labeled
# ----------------------------------------------------------
import matplotlib.pyplot as plt
import numpy as np
from sklearn.svm import SVC

from unlabeled import PUSVC
from unlabeled.datasets import make_pu_labels
from unlabeled.plotting import plot_decision_boundary

rng = np.random.default_rng(0)
X = np.r_[rng.normal([1.2, 1.2], 1.0, (300, 2)), rng.normal([-1.2, -1.2], 1.0, (300, 2))]
y = np.repeat([1, 0], 300)  # the truth, unknown to the PU learner
s = make_pu_labels(y, labeled_fraction=0.2, random_state=0)  # 1 = labeled positive
prior = y[s == 0].mean()  # share of positives among the unlabeled points
print(f"{s.sum()} labeled positives, {np.sum(s == 0)} unlabeled, prior = {prior:.3f}")

# %%
# Three classifiers
# -----------------
# The naive SVC sees ``s`` as the class; the PU classifier sees ``s`` and the prior; the
# supervised SVC, for reference, sees the truth ``y`` (which a PU learner never has).
# (``PUSVC.score(X, s)`` is an *estimate* of the accuracy from PU labels; with the truth at
# hand we count directly.)
naive = SVC(kernel="rbf", gamma=0.5).fit(X, s)
pu = PUSVC(prior=prior, lam=0.01, gamma=0.5).fit(X, s)
oracle = SVC(kernel="rbf", gamma=0.5).fit(X, y)
for name, clf in [("naive SVC", naive), ("PUSVC", pu), ("supervised SVC", oracle)]:
    acc = np.mean(clf.predict(X[s == 0]) == y[s == 0])
    print(f"{name:>15}: accuracy on the unlabeled points {acc:.3f}")

# %%
# The boundaries
# --------------
# Filled colours are the decision values (red positive, blue negative), the black line is
# ``f(x) = 0``; dark points are the labeled positives, grey ones unlabeled.
fig, axes = plt.subplots(1, 3, figsize=(13, 4.2), sharex=True, sharey=True)
labels = np.where(s == 1, 1, -1)  # -1 is drawn as "unlabeled"
for ax, (name, clf) in zip(
    axes, [("naive SVC on s", naive), ("PUSVC", pu), ("supervised SVC on y", oracle)], strict=True
):
    plot_decision_boundary(
        clf, X, labels, ax=ax, grid_resolution=120, title=name, names={1: "labeled positive"}
    )
fig.tight_layout()
plt.show()

# %%
# The naive SVC's decision values are negative everywhere (no black line: it predicts no
# positive at all, an accuracy equal to the share of negatives); PUSVC's boundary lies
# between the two classes, close to the supervised one, though it learned from the same
# labels as the naive SVC. The prior matters:
# :ref:`sphx_glr_auto_examples_pu_plot_prior_estimators.py` estimates it from the same data.
