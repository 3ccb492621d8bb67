"""
Choosing parameters from PU labels: PUGridSearchCV
==================================================

Held-out PU data carry ``s``, not classes, so scikit-learn's accuracy would score a PU model
against the wrong target. :class:`unlabeled.model_selection.PUGridSearchCV` scores each
candidate with the PU accuracy estimate (an unbiased estimate of the accuracy on the
unlabeled population, from ``s`` and the prior alone), splits the folds stratified on ``s``,
and walks each fold's ``lam`` path from the largest value down with warm starts: every fit
starts from the previous solution, rescaled to the new ``lam``. The scores equal those of cold
fits up to the solver's tolerance; only the time changes.
"""

# %%
import time

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import make_moons

from unlabeled import PUSVC
from unlabeled.datasets import make_pu_labels
from unlabeled.model_selection import PUGridSearchCV

X, y = make_moons(800, noise=0.2, random_state=0)
s = make_pu_labels(y, labeled_fraction=0.25, random_state=0)
prior = y[s == 0].mean()

grid = {"lam": np.logspace(-4, -1, 7).tolist(), "gamma": [0.3, 1.0, 3.0]}
results = {}
for warm in (True, False):
    search = PUGridSearchCV(PUSVC(prior=prior), grid, cv=5, warm_start=warm, random_state=0)
    t0 = time.perf_counter()
    search.fit(X, s)
    results[warm] = (search, time.perf_counter() - t0)
    print(f"warm_start={warm}: {results[warm][1]:.2f} s, best {search.best_params_}")

search = results[True][0]
cold = results[False][0]
gap = np.max(np.abs(search.cv_results_["mean_test_score"] - cold.cv_results_["mean_test_score"]))
print(f"largest difference between warm and cold scores: {gap:.2e}")

# %%
# The PU accuracy estimate along the path, and the truth
# ------------------------------------------------------
# The search never sees ``y``; here we also compute the true accuracy of each candidate on
# the unlabeled points, to see that the estimate ranks the candidates as the truth does.
fig, (ax0, ax1) = plt.subplots(1, 2, figsize=(11, 4))
res = search.cv_results_
for gamma in grid["gamma"]:
    mask = np.asarray(res["param_gamma"], dtype=float) == gamma
    lams = np.asarray(res["param_lam"], dtype=float)[mask]
    ax0.semilogx(lams, res["mean_test_score"][mask], marker="o", label=f"gamma={gamma}")
    truth = [
        np.mean(PUSVC(prior=prior, lam=lam, gamma=gamma).fit(X, s).predict(X[s == 0]) == y[s == 0])
        for lam in lams
    ]
    ax1.semilogx(lams, truth, marker="o", label=f"gamma={gamma}")
ax0.set(xlabel="lam", ylabel="PU accuracy estimate (5-fold CV)", title="What the search sees")
ax1.set(xlabel="lam", ylabel="true accuracy on the unlabeled points", title="The truth")
ax0.legend()
ax1.legend()
fig.tight_layout()

# %%
# Time with and without warm starts
# ---------------------------------
fig, ax = plt.subplots(figsize=(5, 3))
ax.barh(["cold fits", "warm starts"], [results[False][1], results[True][1]], color=["C7", "C0"])
ax.set_xlabel("search time (s)")
ax.set_title("PUGridSearchCV, 21 candidates x 5 folds")
fig.tight_layout()
plt.show()

# %%
# The gain grows with the data and the length of the path: on the committed benchmark
# (``benchmarks/results/model_selection.md``) warm starts cut the solver's iterations along
# the path; :doc:`/user_guide/pu_model_selection` has the numbers. When the prior itself is
# searched, every candidate is scored at one evaluation prior (the base estimator's), since a
# PU risk under each candidate's own prior favours the largest prior of the grid.
