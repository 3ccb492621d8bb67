"""The data of the CLSST chapter (Sansone, thesis ch. 2): the CAKE, TOES and G50C generators and a
loader for the FCPS shapes (Atom, Chainlink, Ring, Spiral) of the authors' demos."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
from scipy.io import loadmat
from sklearn.utils import check_random_state

from .._files import shared_file
from .._validation import check_int

FCPS_NAMES = ("Atom", "Chainlink", "Ring", "Spiral")
FCPS_ENV_VAR = "UNLABELED_DATA_FCPS"
FCPS_DEFAULT_DIR = Path("..", "shared", "data", "fcps")

# TOES: the five Gaussians of the authors' demo_gauss (means, covariances); the first two form
# class 0 and the last three class 1, so that each class is a union of whole Gaussians
TOES_MEANS = np.array([[-10.0, 0.0], [-20.0, -2.0], [-2.0, 20.0], [6.0, 13.0], [10.0, 5.0]])
TOES_COVS = np.array(
    [
        [[1.0, 0.6], [0.6, 0.9]],
        [[1.0, 0.9], [0.9, 1.5]],
        [[1.0, 0.4], [0.4, 1.0]],
        [[0.9, -0.8], [-0.8, 0.9]],
        [[2.0, 0.5], [0.5, 0.9]],
    ]
)
TOES_CLASS = np.array([0, 0, 1, 1, 1])


def make_cake(
    n_samples: int = 1000, random_state: int | np.random.RandomState | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """CAKE: points uniform in the disk of radius 3 centred at (2, 1), labeled by an XOR of the
    two axis-parallel cuts through the centre (the authors' demo_cake).

    Class 0 is ``{x < 2 and y > 1} or {x > 2 and y < 1}``, class 1 the other two quarters, so
    each class is two opposite quarters of the disk: two clusters per class.

    Parameters
    ----------
    n_samples : int, default=1000
    random_state : int, RandomState or None

    Returns
    -------
    X : ndarray (n_samples, 2)
    y : ndarray (n_samples,) of int64 in {0, 1}

    Examples
    --------
    >>> import numpy as np
    >>> from unlabeled.datasets import make_cake
    >>> X, y = make_cake(200, random_state=0)
    >>> X.shape, sorted(set(y.tolist()))
    ((200, 2), [0, 1])
    >>> bool(np.all(np.hypot(X[:, 0] - 2, X[:, 1] - 1) <= 3))  # inside the disk
    True
    """
    n = check_int(n_samples, "n_samples", low=1)
    rng = check_random_state(random_state)
    r = 3.0 * np.sqrt(rng.random_sample(n))
    theta = 2.0 * np.pi * rng.random_sample(n)
    X = np.c_[2.0 + r * np.cos(theta), 1.0 + r * np.sin(theta)]
    first = ((X[:, 0] < 2) & (X[:, 1] > 1)) | ((X[:, 0] > 2) & (X[:, 1] < 1))
    return X, (~first).astype(np.int64)


def make_toes(
    n_samples: int = 1000,
    n_features: int = 2,
    random_state: int | np.random.RandomState | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """TOES: five 2-D Gaussians, two for class 0 and three for class 1, balanced classes.

    The thesis does not give the parameters; the means and covariances are those of the
    authors' demo_gauss (means (-10, 0), (-20, -2), (-2, 20), (6, 13) and (10, 5), variances
    from 0.9 to 2 and correlated coordinates), but the labels follow the
    thesis (whole Gaussians per class: class 0 = the Gaussians at (-10, 0) and (-20, -2)) instead
    of demo_gauss's threshold ``x > -2``, which cuts a Gaussian in two. Half the points go to each
    class and are shared evenly among its Gaussians.

    Parameters
    ----------
    n_samples : int, default=1000
    n_features : int, default=2
        Columns beyond the first two hold standard normal noise (the thesis's TOES is 2-D).
    random_state : int, RandomState or None

    Returns
    -------
    X : ndarray (n_samples, n_features)
    y : ndarray (n_samples,) of int64 in {0, 1}
    component : ndarray (n_samples,) of int64
        The Gaussian (0-4) each point came from.

    Examples
    --------
    >>> import numpy as np
    >>> from unlabeled.datasets import make_toes
    >>> X, y, component = make_toes(200, random_state=0)
    >>> X.shape, sorted(set(component.tolist()))
    ((200, 2), [0, 1, 2, 3, 4])
    >>> np.bincount(y).tolist()  # balanced classes
    [100, 100]
    """
    n = check_int(n_samples, "n_samples", low=5)
    d = check_int(n_features, "n_features", low=2)
    rng = check_random_state(random_state)
    n0 = n // 2
    sizes = [
        len(part) for half, m in ((n0, 2), (n - n0, 3)) for part in np.array_split(range(half), m)
    ]
    component = np.repeat(np.arange(5), sizes)
    chol = np.linalg.cholesky(TOES_COVS)
    Z = rng.standard_normal((n, 2))
    X = TOES_MEANS[component] + np.einsum("nij,nj->ni", chol[component], Z)
    if d > 2:
        X = np.c_[X, rng.standard_normal((n, d - 2))]
    return X, TOES_CLASS[component].astype(np.int64), component.astype(np.int64)


def make_g50c(
    n_samples: int = 550,
    n_features: int = 50,
    random_state: int | np.random.RandomState | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """G50C: two Gaussians N(+-m, I) in 50 dimensions with equal priors, the means placed so
    that the Bayes error is 5% (``|m_1 - m_2| = 2 * 1.645``, ``m = 1.645 / sqrt(d) * 1``).

    Parameters
    ----------
    n_samples : int, default=550
    n_features : int, default=50
    random_state : int, RandomState or None

    Returns
    -------
    X : ndarray (n_samples, n_features)
    y : ndarray (n_samples,) of int64, the first half 0 and the rest 1

    Examples
    --------
    >>> import numpy as np
    >>> from unlabeled.datasets import make_g50c
    >>> X, y = make_g50c(100, random_state=0)
    >>> X.shape, np.bincount(y).tolist()
    ((100, 50), [50, 50])
    """
    n = check_int(n_samples, "n_samples", low=2)
    d = check_int(n_features, "n_features", low=1)
    rng = check_random_state(random_state)
    y = (np.arange(n) >= n // 2).astype(np.int64)
    m = 1.645 / np.sqrt(d)
    return rng.standard_normal((n, d)) + np.where(y == 1, m, -m)[:, None], y


def load_fcps(
    name: str, data_home: str | os.PathLike[str] | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """One of the FCPS shapes shipped with the authors' CLSST demos: Atom, Chainlink, Ring or
    Spiral (Ultsch, "Clustering with SOM: U*C", 2005), as MATLAB files ``{name}.mat`` holding
    ``{name.lower()}`` (n x d) and ``{name.lower()}_labels`` (n x 2, one-hot).

    The folder is ``data_home``, else ``$UNLABELED_DATA_FCPS``, else ``../shared/data/fcps``
    relative to the working directory. Nothing is downloaded.

    Parameters
    ----------
    name : {"Atom", "Chainlink", "Ring", "Spiral"}
    data_home : str, os.PathLike or None

    Returns
    -------
    X : ndarray (n, d) of float64
    y : ndarray (n,) of int64, the column of the one-hot label (0 or 1)

    Examples
    --------
    A file in the expected layout, written to a temporary folder:

    >>> import os, tempfile
    >>> import numpy as np
    >>> from scipy.io import savemat
    >>> from unlabeled.datasets import load_fcps
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     savemat(os.path.join(folder, "Ring.mat"),
    ...             {"ring": np.eye(3), "ring_labels": np.array([[1, 0], [0, 1], [0, 1]])})
    ...     X, y = load_fcps("Ring", data_home=folder)
    >>> X.shape, y.tolist()
    ((3, 3), [0, 1, 1])
    """
    path = shared_file(
        name, FCPS_NAMES, "FCPS set", data_home, FCPS_ENV_VAR, FCPS_DEFAULT_DIR, ".mat"
    )
    mat = loadmat(path)
    key = name.lower()
    if key not in mat or f"{key}_labels" not in mat:
        raise ValueError(f"{path} must hold the variables {key!r} and {key + '_labels'!r}")
    X = np.ascontiguousarray(mat[key], dtype=np.float64)
    onehot = np.asarray(mat[f"{key}_labels"])
    if onehot.shape != (X.shape[0], 2) or not (onehot.sum(1) == 1).all():
        raise ValueError(f"{path}: the labels must be one-hot of shape ({X.shape[0]}, 2)")
    return X, onehot.argmax(1).astype(np.int64)
