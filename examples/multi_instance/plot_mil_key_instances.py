"""
Multi-instance learning: key instances on their bags
====================================================

In multi-instance learning the labels belong to *bags* of instances: a bag is positive when
at least one of its instances is (its "key instance", say the one region of an image that
shows the object), negative when none is. The instance labels are never given.

:class:`unlabeled.MILWellSVM` relaxes the MI-SVM problem (one key instance per positive bag)
to a convex one and solves it by a cutting plane; after ``fit``, ``key_instances_`` gives
each training bag's instance with the largest decision value, and ``predict_instances``
labels single instances. :class:`unlabeled.MISVM` and :class:`unlabeled.miSVM` are Andrews et
al.'s alternating heuristics on the same engine.
"""

# %%
import matplotlib.pyplot as plt
import numpy as np

from unlabeled import MISVM, MILWellSVM, miSVM

rng = np.random.default_rng(0)
n_bags = 40
bags = [rng.normal(0, 1, (int(rng.integers(3, 8)), 2)) for _ in range(n_bags)]
key = np.zeros(n_bags, dtype=int)
for i in range(n_bags // 2):  # the first 20 bags are positive: one instance moved up right
    key[i] = rng.integers(len(bags[i]))
    bags[i][key[i]] += [3.0, 3.0]
y = np.repeat([1, 0], n_bags // 2)  # one label per bag

clf = MILWellSVM(C1=10.0, C2=1.0, gamma=0.5).fit(bags, y)
found = np.mean([clf.key_instances_[i] == key[i] for i in range(n_bags // 2)])
print(f"key instance found in {found:.0%} of the positive bags")
for name, model in [
    ("MILWellSVM", clf),
    ("MISVM", MISVM(C=10.0, gamma=0.5).fit(bags, y)),
    ("miSVM", miSVM(C=10.0, gamma=0.5).fit(bags, y)),
]:
    print(f"{name:>10}: bag accuracy on the training bags {model.score(bags, y):.3f}")

# %%
# Bags, key instances and the instance classifier
# -----------------------------------------------
# Each bag's instances are joined to their centre by thin lines (red: positive bags, blue:
# negative). Stars mark the key instance MILWellSVM chose in each positive bag; the black
# line is the instance classifier's boundary ``f(x) = 0``: a bag is positive when any of its
# instances lies beyond it.
fig, ax = plt.subplots(figsize=(7, 6))
g0, g1 = np.meshgrid(np.linspace(-3.5, 6.5, 150), np.linspace(-3.5, 6.5, 150))
grid = np.c_[g0.ravel(), g1.ravel()]
f = clf.decision_function(grid, groups=np.arange(len(grid)))  # each point its own bag
ax.contourf(g0, g1, f.reshape(g0.shape), levels=20, cmap="RdBu_r", alpha=0.3)
ax.contour(g0, g1, f.reshape(g0.shape), levels=[0], colors="k")
for i, bag in enumerate(bags):
    colour = "C3" if y[i] == 1 else "C0"
    centre = bag.mean(axis=0)
    for point in bag:
        ax.plot(*np.c_[centre, point], color=colour, lw=0.5, alpha=0.5)
    ax.scatter(*bag.T, color=colour, s=12)
    if y[i] == 1:
        ax.scatter(*bag[clf.key_instances_[i]], marker="*", s=250, color="gold", edgecolors="k")
ax.set(xlabel="feature 0", ylabel="feature 1", title="MILWellSVM: key instances (stars)")
fig.tight_layout()
plt.show()

# %%
# The same data can be given as one 2-D array of instances with a bag id per row
# (``fit(X, y, groups=ids)``), the layout of scikit-learn's group splitters; see
# :doc:`/user_guide/multi_instance`.
