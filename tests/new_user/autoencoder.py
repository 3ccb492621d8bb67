"""A new user's autoencoder session, written from the docstrings: fit a short run, sample,
encode, save, load, continue training."""

import numpy as np
from _common import WORK, unlabeled_cli, write_csv

import unlabeled
from unlabeled import PlummerAutoencoder

X = np.random.default_rng(0).normal(size=(200, 2))
pae = PlummerAutoencoder(lam=1.0, learning_rate=1e-3, max_iter=30, random_state=0).fit(X)
codes = pae.transform(X)
assert np.isfinite(codes).all() and codes.shape[0] == 200
samples = pae.sample(10, random_state=0)
assert samples.shape == (10, 2) and np.isfinite(samples).all()

path = WORK / "pae.skops"
unlabeled.save(pae, path)
again = unlabeled.load(path)
assert np.array_equal(again.transform(X), codes)
assert np.array_equal(again.sample(10, random_state=0), samples)
again.set_params(warm_start=True, max_iter=10).fit(X)  # continues from the loaded weights
assert again.n_iter_ == pae.n_iter_ + 10, (again.n_iter_, pae.n_iter_)

# the command line: fit without labels, then draw samples from the model file
data = write_csv("points.csv", X)
unlabeled_cli(
    "fit",
    data,
    "--estimator",
    "pae",
    "--lam",
    "1",
    "--learning-rate",
    "1e-3",
    "--max-iter",
    "30",
    "--random-state",
    "0",
    "-o",
    "pae-cli.skops",
)
unlabeled_cli("sample", "pae-cli.skops", "-n", "20", "-o", WORK / "samples.csv")
drawn = np.loadtxt(WORK / "samples.csv", delimiter=",", skiprows=1, ndmin=2)
assert drawn.shape == (20, 2) and np.isfinite(drawn).all(), drawn.shape
print("autoencoder: ok")
