"""Exact generator of the UCI Poker-hand data set."""

from __future__ import annotations

import numpy as np
from sklearn.utils import check_random_state

from .._validation import check_int

_N_CARDS = 52
_HAND = 5
_ROYAL = np.array([1, 10, 11, 12, 13])


def make_poker_hands(
    n_samples: int, random_state: int | np.random.RandomState | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Deal poker hands exactly as in the UCI Poker-hand data set.

    Each sample is five cards dealt without replacement from a standard 52-card deck, every one
    of the ``52 * 51 * 50 * 49 * 48`` ordered deals being equally likely, so the classes follow
    the exact poker probabilities (e.g. 1,302,540 / 2,598,960 for "nothing"). The cards are
    drawn one after the other (card ``k`` uniformly among the ``52 - k`` cards left), which is
    exact, vectorised and needs ``O(n_samples)`` memory: a million hands take about a second.

    Parameters
    ----------
    n_samples : int >= 1
        Number of hands.
    random_state : int, RandomState instance or None, default=None
        Seed or generator, as in scikit-learn (:func:`sklearn.utils.check_random_state`).

    Returns
    -------
    X : ndarray of shape (n_samples, 10), dtype float64
        Features in UCI order ``S1, C1, S2, C2, ..., S5, C5``: suit in 1..4 (hearts, spades,
        diamonds, clubs) and rank in 1..13 (1 = ace, 11 = jack, 12 = queen, 13 = king) of each
        card, in the order dealt. The values are integers stored as float64 so that ``X`` goes
        straight into the kernel solvers.
    y : ndarray of shape (n_samples,), dtype int64
        Class in 0..9: 0 nothing, 1 one pair, 2 two pairs, 3 three of a kind, 4 straight,
        5 flush, 6 full house, 7 four of a kind, 8 straight flush, 9 royal flush. Straights
        may be ace-low (A-2-3-4-5) or ace-high (10-J-Q-K-A) but do not wrap around
        (Q-K-A-2-3 is not a straight); a straight flush 10-J-Q-K-A is a royal flush (9), any
        other straight flush, ace-low included, is class 8.

    References
    ----------
    .. [1] R. Cattral and F. Oppacher, "Poker Hand", UCI Machine Learning Repository, 2007,
       https://doi.org/10.24432/C5KW38.
    .. [2] "Poker probability", Wikipedia: frequencies of the five-card hands out of
       C(52, 5) = 2,598,960.

    Examples
    --------
    >>> from unlabeled.datasets import make_poker_hands
    >>> X, y = make_poker_hands(1000, random_state=0)
    >>> X.shape, y.shape
    ((1000, 10), (1000,))
    """
    n = check_int(n_samples, "n_samples", low=1)
    rng = check_random_state(random_state)
    cards = np.empty((n, _HAND), dtype=np.int64)
    for k in range(_HAND):
        # r-th (0-based) of the 52 - k cards not dealt yet: step r past each dealt card <= r
        r = rng.randint(0, _N_CARDS - k, size=n)
        for c in np.sort(cards[:, :k], axis=1).T:
            r += r >= c
        cards[:, k] = r
    X = np.empty((n, 2 * _HAND), dtype=np.float64)
    X[:, 0::2] = cards // 13 + 1
    X[:, 1::2] = cards % 13 + 1
    return X, _classify(X)


def _classify(X) -> np.ndarray:
    """Poker class (0..9) of hands given in UCI layout ``S1, C1, ..., S5, C5``, one per row."""
    H = np.asarray(X)
    if H.ndim != 2 or H.shape[1] != 2 * _HAND:
        raise ValueError(f"X must have shape (n_hands, 10) in UCI layout, got {H.shape}")
    suits = H[:, 0::2].astype(np.int8)
    ranks = np.sort(H[:, 1::2].astype(np.int8), axis=1)
    mult = (ranks[:, :, None] == ranks[:, None, :]).sum(axis=2, dtype=np.int8)  # multiplicities
    top = mult.max(axis=1)
    n_distinct = 1 + (np.diff(ranks, axis=1) != 0).sum(axis=1)
    flush = (suits == suits[:, :1]).all(axis=1)
    ace_high = (ranks == _ROYAL).all(axis=1)
    straight = (n_distinct == _HAND) & ((ranks[:, -1] - ranks[:, 0] == 4) | ace_high)
    return np.select(
        [
            straight & flush & ace_high,
            straight & flush,
            top == 4,
            (top == 3) & (n_distinct == 2),
            flush,
            straight,
            top == 3,
            n_distinct == 3,
            n_distinct == 4,
        ],
        [9, 8, 7, 6, 5, 4, 3, 2, 1],
        default=0,
    ).astype(np.int64)
