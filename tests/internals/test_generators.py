"""The dataset generators' private parts against independent references: the poker-hand
classifier against hand-made hands and the exact counts of all C(52, 5) hands, and the
generators' constants (TOES' means and covariances, Adult's attribute groups)."""

import itertools
from math import comb

import numpy as np
import pytest
from problems import POKER_COUNTS

from unlabeled.datasets import make_adult_like, make_poker_hands, make_toes
from unlabeled.datasets._clsst import TOES_COVS, TOES_MEANS
from unlabeled.datasets._poker import _classify
from unlabeled.datasets._tabular import ADULT_GROUPS

SUITS = {"h": 1, "s": 2, "d": 3, "c": 4}
RANKS = {"A": 1, "T": 10, "J": 11, "Q": 12, "K": 13, **{str(r): r for r in range(2, 10)}}


def hand(text):
    """'Ah Kd 2c ...' -> one UCI row S1, C1, ..., S5, C5."""
    return [v for card in text.split() for v in (SUITS[card[-1]], RANKS[card[:-1]])]


HANDS = [
    ("2h 5d 9c Js Kh", 0),
    ("Qh Kd Ac 2s 3h", 0),  # wrap-around is no straight
    ("Jh Qh Kh Ah 2h", 5),  # wrap-around flush is a plain flush
    ("9h Td Jc Qs 2h", 0),
    ("Ah Ad 9c Js Kh", 1),
    ("2h 2d 9c 9s Kh", 2),
    ("7h 7d 7c Js Kh", 3),
    ("Ah 2d 3c 4s 5h", 4),  # ace-low straight
    ("Th Jd Qc Ks Ah", 4),  # ace-high straight
    ("5h 6d 7c 8s 9h", 4),
    ("2h 6h 9h Jh Kh", 5),
    ("7h 7d 7c Ks Kh", 6),
    ("9h 9d 9c 9s Kh", 7),
    ("Ah 2h 3h 4h 5h", 8),  # ace-low straight flush
    ("9c Tc Jc Qc Kc", 8),
    ("Ts Js Qs Ks As", 9),
    ("Ad Kd Qd Jd Td", 9),
]


def all_hands():
    """Every one of the C(52, 5) hands, cards 0..51 in increasing order, built row by row."""
    combos = np.arange(52, dtype=np.int8)[:, None]
    for _ in range(4):
        last = combos[:, -1].astype(np.int64)
        reps = 51 - last  # each row is extended by every card above its last one
        start = np.repeat(last + 1 - np.r_[0, np.cumsum(reps)[:-1]], reps)
        nxt = (start + np.arange(start.size)).astype(np.int8)
        combos = np.c_[np.repeat(combos, reps, axis=0), nxt]
    X = np.empty((combos.shape[0], 10), dtype=np.int8)
    X[:, 0::2], X[:, 1::2] = combos // 13 + 1, combos % 13 + 1
    return X


# ---------------------------------------------------------------- poker
@pytest.mark.parametrize("text, cls", HANDS)
def test_classify_hand_made(text, cls):
    row = np.array(hand(text))
    cards = row.reshape(5, 2)
    perms = np.array([cards[list(p)].ravel() for p in itertools.permutations(range(5))])
    assert (_classify(perms) == cls).all()  # the order of the cards does not matter


def test_classify_every_hand_matches_exact_counts():
    X = all_hands()
    assert X.shape[0] == comb(52, 5)
    np.testing.assert_array_equal(np.bincount(_classify(X), minlength=10), POKER_COUNTS)


def test_classify_rejects_bad_shape():
    with pytest.raises(ValueError, match="shape"):
        _classify(np.zeros((3, 9)))


def test_poker_hands_are_labeled_by_their_class():
    X, y = make_poker_hands(20000, random_state=1)
    np.testing.assert_array_equal(y, _classify(X))


# ---------------------------------------------------------------- constants
def test_toes_gaussians_have_the_stated_moments():
    Xb, _, cb = make_toes(50000, random_state=1)
    for c in range(5):
        np.testing.assert_allclose(Xb[cb == c].mean(0), TOES_MEANS[c], atol=0.05)
        np.testing.assert_allclose(np.cov(Xb[cb == c].T), TOES_COVS[c], atol=0.06)


def test_adult_like_has_one_category_per_attribute():
    X, _ = make_adult_like(3000, random_state=0)
    assert sum(ADULT_GROUPS) == 123 == X.shape[1] and len(ADULT_GROUPS) == 14
    starts = np.r_[0, np.cumsum(ADULT_GROUPS)]
    for a, b in zip(starts[:-1], starts[1:], strict=True):  # one category per attribute
        assert np.all(X[:, a:b].sum(axis=1) == 1)
