"""A generator of sparse text-like data of RCV1's shape (the WellSVM paper's large set)."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_random_state

from .._validation import check_int, check_real

RCV1_SHAPE = (677_399, 47_236)
RCV1_DENSITY = 0.0016


def make_rcv1_like(
    n_samples: int = RCV1_SHAPE[0],
    n_features: int = RCV1_SHAPE[1],
    *,
    density: float = RCV1_DENSITY,
    n_topic_words: int = 100,
    topic_share: float = 0.15,
    random_state: int | np.random.RandomState | None = None,
) -> tuple[sp.csr_matrix, np.ndarray]:
    r"""Two-class sparse data shaped like RCV1 (binary, LIBSVM's ``rcv1.binary`` full set).

    RCV1 itself cannot be downloaded here; this matches what its timings depend on: the
    shape (677,399 x 47,236 by default), the density (0.16% non-zeros, ~76 per row), a
    Zipf-like word frequency, non-negative tf-idf-like values and unit-length rows. There are
    two balanced classes with a margin. Each class owns ``n_topic_words`` words, and about
    ``topic_share`` of a document's words (at least 2) come from its class's vocabulary.
    ``w = 1[class-1 words] - 1[class-0 words]`` therefore separates the classes with a
    positive margin.

    Row ``i`` has ``1 + Poisson((1 - topic_share) density n_features - 1)`` background word
    draws plus ``max(2, Poisson(topic_share density n_features))`` topic words. Background
    words are drawn from the other columns with probability proportional to
    ``1 / (rank + 10)``; duplicates are summed. The values are ``-log(U)`` (exponential,
    tf-idf-like), and rows are scaled to unit norm.

    Parameters
    ----------
    n_samples, n_features : int
        Shape; RCV1's by default.
    density : float in (0, 1)
        Expected share of non-zeros.
    n_topic_words : int
        Size of each class's vocabulary.
    topic_share : float in [0, 1)
        Expected share of a document's words from its class's vocabulary.
    random_state : int, RandomState or None

    Returns
    -------
    X : scipy.sparse.csr_matrix of shape (n_samples, n_features), float64
        Sorted indices, no duplicates.
    y : ndarray of shape (n_samples,), int64 in {0, 1}

    See Also
    --------
    unlabeled.datasets.load_svmlight : For the real ``rcv1_train.binary`` file.

    Examples
    --------
    A small set of the same density (the default is RCV1's full size):

    >>> from unlabeled.datasets import make_rcv1_like
    >>> X, y = make_rcv1_like(1000, 5000, random_state=0)
    >>> X.shape, X.format, sorted(set(y.tolist()))
    ((1000, 5000), 'csr', [0, 1])
    """
    n = check_int(n_samples, "n_samples", low=1)
    d = check_int(n_features, "n_features", low=2 * n_topic_words + 2)
    check_real(density, "density", low=0.0, high=1.0)
    check_real(topic_share, "topic_share", low=0.0, high=1.0, low_open=False)
    rng = np.random.default_rng(check_random_state(random_state).randint(2**31))
    y = rng.integers(0, 2, n)
    per_row = 1 + rng.poisson(max(density * d * (1 - topic_share) - 1, 0.0), n)
    n_topic = np.maximum(2, rng.poisson(density * d * topic_share, n))
    indptr = np.r_[0, np.cumsum(per_row + n_topic)].astype(np.int64)
    # background words: Zipf-like frequencies over a random permutation of the columns
    d_bg = d - 2 * n_topic_words
    weights = 1.0 / (np.arange(d_bg) + 10.0)
    cdf = np.cumsum(weights / weights.sum())
    draws = np.minimum(np.searchsorted(cdf, rng.random(per_row.sum())), d_bg - 1)
    cols = rng.permutation(d_bg)[draws]
    topic = rng.integers(0, n_topic_words, n_topic.sum()) + np.repeat(y, n_topic) * n_topic_words
    row_of = np.repeat(np.arange(n), per_row + n_topic)
    is_topic = np.ones(indptr[-1], dtype=bool)
    start = indptr[:-1]
    is_topic[_ranges(start, per_row)] = False
    indices = np.empty(indptr[-1], dtype=np.int64)
    indices[~is_topic] = cols
    indices[is_topic] = d_bg + topic  # the class vocabularies: the last 2 n_topic_words columns
    X = sp.csr_matrix(
        (-np.log(rng.random(indptr[-1])), (row_of, indices)), shape=(n, d)
    )  # duplicates summed, indices sorted
    norms = np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())
    X = sp.diags(1.0 / norms) @ X
    X.sort_indices()
    return X.tocsr(), y.astype(np.int64)


def _ranges(starts, lengths):
    """The concatenated index ranges [s, s + l) for each start s and length l."""
    offsets = np.repeat(starts - np.r_[0, np.cumsum(lengths)[:-1]], lengths)
    return np.arange(lengths.sum()) + offsets
