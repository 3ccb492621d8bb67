"""
CLSST finds the number of clusters
==================================

With ``n_components=None`` (the default), :class:`~unlabeled.ssl.CLSST` starts small and
offers each cluster a split; a split is kept only if it raises the variational lower bound
(CLSST+). TOES (:func:`unlabeled.datasets.make_toes`) has two classes made of 2 and 3
Gaussians: five clusters in all.

Fixing the number instead (``n_components=k``, CLSST*) and comparing the lower bounds
shows what the search compares.
"""

# %%
import matplotlib.pyplot as plt
import numpy as np

from unlabeled.datasets import make_toes
from unlabeled.plotting import plot_clsst_components, plot_loss_history
from unlabeled.ssl import CLSST

X, y, components = make_toes(1000, random_state=0)
y_semi = np.full(len(y), -1)
y_semi[::100] = y[::100]  # 10 labeled points
print(f"{len(np.unique(components))} Gaussians generated the data")

auto = CLSST(n_factors=1, random_state=0).fit(X, y_semi)
print(f"found {auto.n_components_} clusters ({auto.n_births_} births kept)")

bounds = {}
for k in range(2, 9):
    bounds[k] = CLSST(n_components=k, n_factors=1, random_state=0).fit(X, y_semi).lower_bound_
    print(f"n_components={k}: lower bound {bounds[k]:.1f}")

# %%
# The clusters found, the bound along the search, and the bound for fixed numbers
# -------------------------------------------------------------------------------
fig, axes = plt.subplots(1, 3, figsize=(15, 4.2))
plot_clsst_components(auto, X, ax=axes[0])
plot_loss_history(auto, ax=axes[1])
axes[1].set_title("lower bound along the fit (births included)")
axes[2].plot(list(bounds), list(bounds.values()), marker="o")
axes[2].axvline(auto.n_components_, color="k", ls="--", label="found by CLSST+")
axes[2].set(xlabel="n_components (fixed)", ylabel="lower bound", title="CLSST* for each k")
axes[2].legend()
fig.tight_layout()
plt.show()

# %%
# The bound rises steeply up to five clusters and is flat, even slightly lower, after: a
# sixth cluster buys less than its parameters cost in the bound. (Fixed-``k`` fits start from
# k-means and can stop in a local optimum, so their curve need not be monotone.)
