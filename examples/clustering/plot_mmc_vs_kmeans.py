"""
Maximum-margin clustering against k-means
=========================================

Maximum-margin clustering looks for the split of the data into two clusters whose SVM has the
largest margin, under a balance constraint (``|sum of labels| <= beta n``).
:class:`unlabeled.WellSVMClustering` solves WellSVM's convex relaxation of it. k-means, which
cuts by distance to two centres, splits elongated clusters across; a maximum-margin split
follows the widest gap in the data.
"""

# %%
import matplotlib.pyplot as plt
import numpy as np
from sklearn.cluster import KMeans

from unlabeled import WellSVMClustering
from unlabeled.plotting import plot_decision_boundary, plot_loss_history

rng = np.random.default_rng(0)
# two long, parallel clusters: the gap runs along them, the long axis across
X = np.r_[rng.normal([0, -1.6], [3.0, 0.4], (150, 2)), rng.normal([0, 1.6], [3.0, 0.4], (150, 2))]
truth = np.repeat([0, 1], 150)


def agreement(labels):
    """Accuracy up to swapping the two cluster names."""
    return max(np.mean(labels == truth), np.mean(labels != truth))


mmc = WellSVMClustering(C=1.0, beta=0.03, gamma=0.2, random_state=0).fit(X)
km = KMeans(n_clusters=2, n_init=10, random_state=0).fit(X)
print(f"WellSVMClustering: {agreement(mmc.labels_):.3f} of the points in their true cluster")
print(f"KMeans:            {agreement(km.labels_):.3f}")

# %%
# The two clusterings, and the relaxation's objective
# ---------------------------------------------------
fig, axes = plt.subplots(1, 3, figsize=(16, 4.2))
plot_decision_boundary(mmc, X, mmc.labels_, ax=axes[0], grid_resolution=100)
axes[0].set_title("WellSVMClustering (maximum margin)")
axes[1].scatter(*X.T, c=km.labels_, cmap="coolwarm", s=10)
axes[1].scatter(*km.cluster_centers_.T, c="k", marker="x", s=120)
axes[1].set(title="KMeans", xlabel="feature 0", ylabel="feature 1")
plot_loss_history(mmc, ax=axes[2])
fig.tight_layout()
plt.show()

# %%
# The kernel width matters: with ``gamma=0.1`` instead of 0.2 the relaxation settles on
# a worse split here (about 64 % agreement), with a linear kernel on the exact one.
# ``beta`` bounds the imbalance of the clusters (the paper uses 0.03 for balanced and 0.3
# for imbalanced data). On the 12 UCI sets of the WellSVM paper, with parameters chosen with
# the labels as in the paper, the committed benchmark measures a mean accuracy of 0.727
# (0.754 with ``offset="balance"``) against 0.708 for ``SpectralClustering`` and 0.693 for
# ``KMeans`` (``benchmarks/results/wellsvm_clustering-reduced.md``; see
# :doc:`/user_guide/clustering`).
