"""
Predictions on a Dask array
===========================

Every estimator's ``predict``, ``decision_function``, ``predict_proba``, ``transform`` and
``score_samples`` take a Dask array or DataFrame and return a lazy Dask array: the method runs
on each chunk of rows where the chunk lies, with the fitted model sent once to each worker,
and the data are never gathered in one place. Here a PU classifier fitted on 1,000 points
predicts the class probability on a grid of 90,000 points held as a Dask array of nine
chunks. The scheduler is Dask's default (threads of this process); with a
``distributed.Client`` the same call runs on the cluster's workers. See
:doc:`/user_guide/dask`.
"""

# %%
import dask
import dask.array as da
import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import make_moons

from unlabeled import PUSVC
from unlabeled.datasets import make_pu_labels

X, y = make_moons(1000, noise=0.2, random_state=0)
s = make_pu_labels(y, labeled_fraction=0.25, random_state=0)
prior = float(y[s == 0].mean())
clf = PUSVC(prior=prior, gamma=1.0, probability=True, random_state=0).fit(X, s)

# the grid as a Dask array: 90,000 rows in chunks of 10,000 (from Zarr, Parquet, ... alike)
xx, yy = np.meshgrid(np.linspace(-1.6, 2.6, 300), np.linspace(-1.1, 1.6, 300))
grid = da.from_array(np.c_[xx.ravel(), yy.ravel()], chunks=(10_000, 2))
proba = clf.predict_proba(grid)  # lazy: one task per chunk, nothing computed yet
print(proba)
(p1,) = dask.compute(proba[:, 1])
same = np.max(np.abs(p1 - clf.predict_proba(grid.compute())[:, 1]))
print(f"largest difference from the in-memory call: {same:.1e}")

# %%
# The probability of the positive class, computed chunk by chunk
# ---------------------------------------------------------------
fig, ax = plt.subplots(figsize=(7, 4.5))
im = ax.contourf(xx, yy, p1.reshape(xx.shape), levels=20, cmap="coolwarm")
ax.scatter(*X[s == 1].T, s=8, c="k", label="labeled positive")
ax.scatter(*X[s == 0].T, s=4, c="w", edgecolors="none", alpha=0.6, label="unlabeled")
for start in np.cumsum(grid.chunks[0])[:-1]:  # where the chunks of rows meet
    ax.axhline(yy.ravel()[start], color="k", lw=0.5, ls=":")
fig.colorbar(im, ax=ax, label="P(y = 1 | x)")
ax.set(xlabel="feature 0", ylabel="feature 1", title="predict_proba on 9 Dask chunks")
ax.legend(loc="lower left")
fig.tight_layout()
plt.show()

# %%
# The dotted lines mark where one chunk of rows ends and the next begins: each chunk is
# predicted alone, by the same code as a NumPy array, so the map shows no seams. The result
# equals the in-memory call on the same chunks to the bit, and on the whole grid up to the
# last bits of its own blocked kernel products.
