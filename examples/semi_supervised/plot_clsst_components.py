"""
CLSST: clusters that carry classes, on CAKE
===========================================

:class:`~unlabeled.ssl.CLSST` ("classtering") fits a mixture of factor analysers to labeled
and unlabeled points together, in which each cluster carries a distribution over the classes
(``class_association_``): a class may be made of several clusters. The number of clusters is
found by splitting clusters while the variational lower bound rises.

CAKE (:func:`unlabeled.datasets.make_cake`) is a disk whose two classes are an XOR of
quadrants: no single Gaussian per class fits it, several per class do.
"""

# %%
import matplotlib.pyplot as plt
import numpy as np
from sklearn.semi_supervised import LabelSpreading

from unlabeled.datasets import make_cake
from unlabeled.plotting import plot_clsst_components
from unlabeled.ssl import CLSST

X, y = make_cake(1000, random_state=0)
rng = np.random.default_rng(0)
y_semi = np.full(len(y), -1)
for c in (0, 1):  # 10 labels per class
    y_semi[rng.choice(np.flatnonzero(y == c), 10, replace=False)] = c

clf = CLSST(max_iter=2000, random_state=0).fit(X, y_semi)
spread = LabelSpreading(kernel="knn", n_neighbors=10).fit(X, y_semi)
unl = y_semi == -1
print(f"CLSST: {clf.n_components_} clusters, error {np.mean(clf.predict(X[unl]) != y[unl]):.3f}")
print(f"LabelSpreading: error {np.mean(spread.transduction_[unl] != y[unl]):.3f}")
print("class association of each cluster (rows: clusters, columns: classes):")
print(np.round(clf.class_association_, 2))

# %%
# Components, classes and probabilities
# -------------------------------------
# Left: each cluster's ellipse (two standard deviations) in the colour of its main class,
# with the association's weight. Middle: the true classes. Right: ``predict_proba``.
fig, axes = plt.subplots(1, 3, figsize=(15, 4.5), sharex=True, sharey=True)
plot_clsst_components(clf, X, ax=axes[0])
axes[0].scatter(*X[~unl].T, c="k", marker="*", s=80, label="labeled")
axes[0].legend(loc="lower left", fontsize="small")
axes[1].scatter(*X.T, c=y, cmap="coolwarm", s=8)
axes[1].set(title="true classes", xlabel="feature 0")
sc = axes[2].scatter(*X.T, c=clf.predict_proba(X)[:, 1], cmap="coolwarm", s=8, vmin=0, vmax=1)
axes[2].set(title="CLSST: P(class 1 | x)", xlabel="feature 0")
fig.colorbar(sc, ax=axes[2])
fig.tight_layout()
plt.show()

# %%
# On CAKE over 20 draws, the committed benchmark (``benchmarks/results/clsst_demos.md``)
# compares CLSST with LabelSpreading, a self-trained SVC, a Gaussian per class and k-means
# against the number of labels; :doc:`/user_guide/semi_supervised` quotes it.
