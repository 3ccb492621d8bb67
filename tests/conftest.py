import os
from pathlib import Path

import numpy as np
import pytest

# relative to the project root, where CI and the README run pytest
UCI_DIR = Path(os.environ.get("UNLABELED_UCI_DIR", "../shared/data/uci-small"))


@pytest.fixture(scope="session")
def uci_dir():
    if not UCI_DIR.is_dir():
        pytest.skip(f"{UCI_DIR} not found: the UCI oracle tests need the shared data folder")
    return UCI_DIR


def make_pu(seed, n=120, d=3, p=25, shift=1.0, prior=0.4):
    """A small PU problem: p labeled positives plus an unlabeled mixture with the given prior."""
    rng = np.random.default_rng(seed)
    y_u = rng.random(n) < prior
    Xu = rng.normal(size=(n, d)) + shift * y_u[:, None]
    Xp = rng.normal(size=(p, d)) + shift
    X = np.r_[Xp, Xu]
    s = np.r_[np.ones(p, int), np.zeros(n, int)]
    return X, s, float(y_u.mean()) if y_u.any() else prior
