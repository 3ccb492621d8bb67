"""
WellSVM's transductive labels and its cutting plane
===================================================

:class:`~unlabeled.ssl.WellSVM` does more than predict: after ``fit`` its ``transduction_``
holds the class it settled on for every training point (as scikit-learn's
``LabelSpreading.transduction_``), labeled or not. It gets there by a cutting plane: each step
adds the label vector that most violates the current solution (``label_vectors_``), then
re-weights all label vectors found so far by multiple kernel learning (``mu_``). The
relaxation's objective (``objective_history_``) never increases.
"""

# %%
import matplotlib.pyplot as plt
import numpy as np

from unlabeled.plotting import plot_loss_history
from unlabeled.ssl import WellSVM

rng = np.random.default_rng(0)
X = np.r_[rng.normal([-2, 0], [1.0, 1.6], (200, 2)), rng.normal([2, 0], [1.0, 1.6], (200, 2))]
truth = np.repeat([0, 1], 200)
y = np.full(400, -1)  # -1 = unlabeled
y[[0, 1, 200, 201]] = truth[[0, 1, 200, 201]]  # two labels per class

clf = WellSVM(C1=1.0, C2=0.1, gamma=0.5).fit(X, y)
print(f"transductive accuracy: {np.mean(clf.transduction_ == truth):.3f}")
print(f"{len(clf.mu_)} label vectors generated; weights {np.round(clf.mu_, 3)}")

# %%
# The labels it chose, the weights of the label vectors, the objective
# --------------------------------------------------------------------
fig, axes = plt.subplots(1, 3, figsize=(15, 4.2))
wrong = clf.transduction_ != truth
axes[0].scatter(*X.T, c=clf.transduction_, cmap="coolwarm", s=12)
axes[0].scatter(*X[wrong].T, facecolors="none", edgecolors="k", s=60, label="differs from truth")
axes[0].scatter(*X[y != -1].T, c="gold", marker="*", s=300, edgecolors="k", label="labeled")
axes[0].set(title="transduction_", xlabel="feature 0", ylabel="feature 1")
axes[0].legend(loc="lower left", fontsize="small")
axes[1].bar(np.arange(1, len(clf.mu_) + 1), clf.mu_)
axes[1].set(title="mu_: MKL weight of each label vector", xlabel="label vector", ylabel="weight")
plot_loss_history(clf, ax=axes[2])
fig.tight_layout()
plt.show()

# %%
# The first label vector comes from the SVM on the labeled points (``init="svm"``); the
# later ones correct it where the margin on the unlabeled points is violated. The weights
# concentrate on few vectors: the mixture is close to one labeling, whose signs are
# ``transduction_``.
