"""Generators of two tabular shapes that most PU problems have: a sparse one-hot census table
(Adult's shape) and a low-dimensional dense sensor table with a dominant class (Shuttle's)."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_random_state

from .._validation import check_int, check_real

#: the category counts of Adult's 14 attributes as LIBSVM's a9a encodes them (123 columns)
ADULT_GROUPS = (9, 16, 7, 15, 6, 5, 2, 10, 10, 10, 8, 12, 5, 8)


def make_adult_like(
    n_samples: int = 20_000,
    *,
    positive_share: float = 0.24,
    random_state: int | np.random.RandomState | None = None,
) -> tuple[sp.csr_matrix, np.ndarray]:
    """A census-income table of Adult's shape: 14 categorical attributes one-hot encoded into
    123 binary columns (exactly 14 non-zeros per row), stored as CSR.

    Within each attribute the categories have Zipf-like frequencies (``1 / (rank + 1.5)``), as
    real census categories do. The class is a noisy additive score: each category carries a
    weight drawn from N(0, 1), a row's score is the sum of its 14 weights plus logistic
    noise, and the rows with the top ``positive_share`` of scores are positive (Adult's
    ">50K" class is 24%).

    Parameters
    ----------
    n_samples : int
    positive_share : float in (0, 1)
    random_state : int, RandomState or None

    Returns
    -------
    X : scipy.sparse.csr_matrix of shape (n_samples, 123), float64 in {0, 1}
    y : ndarray of shape (n_samples,), int64 in {0, 1}

    Examples
    --------
    >>> import numpy as np
    >>> from unlabeled.datasets import make_adult_like
    >>> X, y = make_adult_like(1000, random_state=0)
    >>> X.shape, X.nnz  # 14 one-hot attributes per row
    ((1000, 123), 14000)
    >>> float(np.mean(y))
    0.24
    """
    n = check_int(n_samples, "n_samples", low=2)
    share = check_real(positive_share, "positive_share", low=0.0, high=1.0)
    rng = check_random_state(random_state)
    groups = np.asarray(ADULT_GROUPS)
    offsets = np.r_[0, np.cumsum(groups)[:-1]]
    cols = np.empty((n, groups.size), dtype=np.int32)
    score = rng.logistic(size=n)
    for g, k in enumerate(groups):
        freq = 1.0 / (np.arange(k) + 1.5)
        cat = rng.choice(k, size=n, p=freq / freq.sum())
        score += rng.normal(size=k)[cat]
        cols[:, g] = offsets[g] + cat
    y = (score > np.quantile(score, 1.0 - share)).astype(np.int64)
    ptr = np.arange(0, cols.size + 1, groups.size)
    X = sp.csr_matrix((np.ones(cols.size), cols.ravel(), ptr), shape=(n, int(groups.sum())))
    return X, y


def make_shuttle_like(
    n_samples: int = 43_500,
    *,
    majority_share: float = 0.80,
    positive_share: float = 0.15,
    random_state: int | np.random.RandomState | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """A sensor table of Shuttle's shape: 9 dense standardised features, one class holding
    ``majority_share`` of the rows (Shuttle's class 1: 78%), the positive class
    ``positive_share`` (Shuttle's class 4: 15%), the rest scattered.

    The majority class is four tight Gaussian clusters (standard deviation 0.6) around centres
    drawn from N(0, 1.5^2), the positives two such clusters, the remaining rows a wide
    N(0, 2.5^2) cloud; the features are then standardised.

    Parameters
    ----------
    n_samples : int
    majority_share, positive_share : float in (0, 1), summing to at most 1
    random_state : int, RandomState or None

    Returns
    -------
    X : ndarray of shape (n_samples, 9), float64
    y : ndarray of shape (n_samples,), int64 in {0, 1} (1: the positive class)

    Examples
    --------
    >>> import numpy as np
    >>> from unlabeled.datasets import make_shuttle_like
    >>> X, y = make_shuttle_like(1000, random_state=0)
    >>> X.shape, sorted(set(y.tolist()))
    ((1000, 9), [0, 1])
    """
    n = check_int(n_samples, "n_samples", low=2)
    major = check_real(majority_share, "majority_share", low=0.0, high=1.0)
    pos = check_real(positive_share, "positive_share", low=0.0, high=1.0)
    if major + pos > 1.0:
        raise ValueError(
            f"majority_share + positive_share = {major + pos:g} exceeds 1: lower one of them"
        )
    rng = check_random_state(random_state)
    comp = rng.choice(3, size=n, p=[major, pos, 1.0 - major - pos])
    X = rng.normal(0.0, 2.5, size=(n, 9))
    for label, k in ((0, 4), (1, 2)):
        rows = np.flatnonzero(comp == label)
        centres = rng.normal(0.0, 1.5, size=(k, 9))
        X[rows] = centres[rng.randint(k, size=rows.size)] + rng.normal(0, 0.6, (rows.size, 9))
    X = (X - X.mean(axis=0)) / np.where(X.std(axis=0) > 0, X.std(axis=0), 1.0)
    return X, (comp == 1).astype(np.int64)
