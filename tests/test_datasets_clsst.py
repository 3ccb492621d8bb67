"""The CLSST data: the CAKE, TOES and G50C generators against their definitions, and the FCPS
loader against the shapes described in shared/spec/clsst.md."""

from pathlib import Path

import numpy as np
import pytest

from unlabeled.datasets import load_fcps, make_cake, make_g50c, make_toes

FCPS_DIR = Path("../shared/data/fcps")


def test_cake_is_an_xor_of_quarters_of_a_disk():
    X, y = make_cake(2000, random_state=0)
    assert X.shape == (2000, 2)
    r = np.hypot(X[:, 0] - 2, X[:, 1] - 1)
    assert r.max() <= 3 and r.min() >= 0
    first = (X[:, 0] < 2) == (X[:, 1] > 1)
    np.testing.assert_array_equal(y, (~first).astype(int))
    assert abs(np.mean(r**2 <= 2.25) - 0.25) < 0.03  # uniform in the disk: P(r <= 1.5) = 1/4
    np.testing.assert_array_equal(
        make_cake(50, random_state=3)[0], make_cake(50, random_state=3)[0]
    )


def test_toes_is_five_gaussians_two_and_three_per_class():
    X, y, comp = make_toes(1000, random_state=0)
    np.testing.assert_array_equal(np.bincount(comp), [250, 250, 167, 167, 166])
    np.testing.assert_array_equal(y, (comp >= 2).astype(int))
    # the Gaussians' moments against the generator's constants: tests/internals/test_generators.py
    X10, _, _ = make_toes(300, n_features=10, random_state=0)
    assert X10.shape == (300, 10)


def test_g50c_has_bayes_error_five_percent():
    X, y = make_g50c(40000, random_state=0)
    assert X.shape == (40000, 50) and y.mean() == 0.5
    bayes = (X.sum(1) > 0).astype(int)  # the means are +-m * ones: the Bayes rule is the sign
    assert abs(np.mean(bayes != y) - 0.05) < 0.005


@pytest.mark.parametrize(
    "name, shape, counts", [("Atom", (800, 3), [400, 400]), ("Ring", (607, 2), [300, 307])]
)
def test_fcps_loader(name, shape, counts):
    if not FCPS_DIR.is_dir():
        pytest.skip(f"{FCPS_DIR} not found: the FCPS tests need the shared data folder")
    X, y = load_fcps(name, data_home=FCPS_DIR)
    assert X.shape == shape
    assert sorted(np.bincount(y).tolist()) == counts


def test_fcps_loader_errors(tmp_path):
    with pytest.raises(ValueError, match="must be one of"):
        load_fcps("Hepta")
    with pytest.raises(FileNotFoundError, match="data_home"):
        load_fcps("Atom", data_home=tmp_path)
