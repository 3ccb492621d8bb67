"""
Model files: save, load, predict
================================

:func:`unlabeled.save` writes any fitted estimator of the library to a file, and
:func:`unlabeled.load` reads it back. The files are `skops <https://skops.readthedocs.io>`_
archives, loaded without pickle, with the types they may contain listed explicitly
(:data:`unlabeled.model_io.TRUSTED_TYPES`); a loaded model is checked completely (its
parameters, shapes and values) before it is returned, and a file written by another version
of ``unlabeled`` is refused. The same files are read and written by the command line.
"""

# %%
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

import unlabeled
from unlabeled import PUSVC, WellSVMClustering
from unlabeled.datasets import make_cake
from unlabeled.ssl import CLSST

X, y = make_cake(600, random_state=0)
rng = np.random.default_rng(0)
s = np.zeros(600, dtype=int)  # PU labels: 60 labeled positives
s[rng.choice(np.flatnonzero(y == 1), 60, replace=False)] = 1
y_semi = np.full(600, -1)  # semi-supervised labels: 40 points with their class
some = rng.choice(600, 40, replace=False)
y_semi[some] = y[some]

models = {
    "PUSVC": PUSVC(prior=y[s == 0].mean(), gamma=1.0).fit(X, s),
    "CLSST": CLSST(random_state=0).fit(X, y_semi),
    "WellSVMClustering": WellSVMClustering(gamma=0.5, random_state=0).fit(X),
}
folder = Path(tempfile.mkdtemp(prefix="unlabeled-models-"))
loaded = {}
for name, model in models.items():
    path = folder / f"{name}.skops"
    unlabeled.save(model, path)
    loaded[name] = unlabeled.load(path)
    same = np.array_equal(model.predict(X), loaded[name].predict(X))
    size = path.stat().st_size / 1024
    print(f"{name:>18}: {size:.0f} kB, same predictions after loading: {same}")

# %%
# The loaded models predict
# -------------------------
fig, axes = plt.subplots(1, 3, figsize=(15, 4.3), sharex=True, sharey=True)
for ax, (name, model) in zip(axes, loaded.items(), strict=True):
    ax.scatter(*X.T, c=model.predict(X), cmap="coolwarm", s=8)
    ax.set(title=f"unlabeled.load('{name}.skops')", xlabel="feature 0")
axes[0].set_ylabel("feature 1")
fig.tight_layout()
plt.show()

# %%
# A file is treated as untrusted input: one with too many members or too much uncompressed
# data is refused before anything is decompressed, and anything but the listed types is
# refused, not loaded (:class:`unlabeled.exceptions.ModelFileError`).
