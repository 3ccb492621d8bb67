"""
A grid search on a Dask cluster
===============================

:class:`~unlabeled.model_selection.PUGridSearchCV` and scikit-learn's searches run their fits
through joblib, so joblib's Dask backend sends them to a Dask cluster. Here the "cluster" is
a local one with two workers in this process (``LocalCluster(processes=False)``, so that the
example runs anywhere, even pasted into a notebook); with a real one, pass the scheduler's
address to ``Client("tcp://scheduler:8786")``. The workers need ``unlabeled`` installed (the same
version). ``n_jobs=1`` on the estimator keeps each fit to one engine thread, so that the
cluster's processes, not threads inside each fit, share the cores. The results equal those of
the serial run.
"""

# %%
import logging
import time

import joblib
import matplotlib.pyplot as plt
import numpy as np
from dask.distributed import Client, LocalCluster
from sklearn.datasets import make_moons

from unlabeled import PUSVC
from unlabeled.datasets import make_pu_labels
from unlabeled.model_selection import PUGridSearchCV

X, y = make_moons(1000, noise=0.2, random_state=0)
s = make_pu_labels(y, labeled_fraction=0.25, random_state=0)
prior = float(y[s == 0].mean())
grid = {"lam": [1e-3, 1e-2, 1e-1], "gamma": [0.3, 1.0, 3.0]}

t0 = time.perf_counter()
serial = PUGridSearchCV(PUSVC(prior=prior, n_jobs=1), grid, cv=5).fit(X, s)
t_serial = time.perf_counter() - t0

cluster = LocalCluster(
    n_workers=2,
    threads_per_worker=1,
    processes=False,
    dashboard_address=None,
    silence_logs=logging.ERROR,
)
with cluster:
    with Client(cluster) as client:
        print(f"{len(client.scheduler_info()['workers'])} workers")
        t0 = time.perf_counter()
        with joblib.parallel_backend("dask"):
            distributed = PUGridSearchCV(PUSVC(prior=prior, n_jobs=1), grid, cv=5).fit(X, s)
        t_dask = time.perf_counter() - t0

scores = serial.cv_results_["mean_test_score"], distributed.cv_results_["mean_test_score"]
gap = np.max(np.abs(scores[0] - scores[1]))
print(f"serial {t_serial:.2f} s, on Dask {t_dask:.2f} s; best {distributed.best_params_}")
print(f"largest difference between the two runs' scores: {gap:.1e}")

# %%
# The scores of both runs
# -----------------------
fig, ax = plt.subplots(figsize=(6, 4))
ax.plot(serial.cv_results_["mean_test_score"], "o", ms=9, label="serial")
ax.plot(distributed.cv_results_["mean_test_score"], "x", ms=9, mew=2, label="Dask")
ax.set(xlabel="candidate", ylabel="PU accuracy estimate (5-fold CV)", title="Same scores")
ax.legend()
fig.tight_layout()
plt.show()

# %%
# On a laptop a local cluster only adds overhead for fits this small; the backend pays off
# when each fit takes seconds and the cluster has many cores.
