"""Cross-validation splitters stratified on the PU labels ``s``.

scikit-learn's splitters stratify on the classes ``y``, which a PU data set does not have; these
stratify on ``s`` instead, so that every test fold holds labeled positives and unlabeled points
(the two samples the PU risk of :mod:`unlabeled.metrics` needs) and every training fold can
train a PU model. ``s`` may use any encoding the estimators accept (1 / 0, 1 / -1, booleans).
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from sklearn.model_selection import StratifiedKFold, StratifiedShuffleSplit

from .._validation import check_int, check_pu_labels

__all__ = ["PUStratifiedKFold", "PUStratifiedShuffleSplit", "check_pu_cv"]


def _pu_mask_for_split(s: ArrayLike | None, X: Any) -> tuple[np.ndarray, int, int]:
    """The mask of labeled positives, their number and the number of unlabeled points."""
    n_samples = X.shape[0] if hasattr(X, "shape") else len(X)
    if s is None:
        raise ValueError(
            "s is None: a PU splitter stratifies on the PU labels; call split(X, s) with "
            "s = 1 for labeled positives and 0 for unlabeled points"
        )
    mask = check_pu_labels(s, n_samples)
    return mask, int(mask.sum()), int((~mask).sum())


class PUStratifiedKFold(StratifiedKFold):
    """K-fold cross-validation stratified on the PU labels ``s``.

    Every fold gets its share of the labeled positives (and of the unlabeled points), so every
    test fold can estimate the PU risk and every training fold can train a PU model. ``s`` may
    use any encoding the estimators accept (1 / 0, 1 / -1, booleans).

    Parameters
    ----------
    n_splits : int >= 2, default=5
    shuffle : bool, default=False
        Shuffle each class before splitting into folds.
    random_state : int, RandomState instance or None, default=None
        Used when ``shuffle=True``.

    Raises
    ------
    ValueError
        From ``split`` when there are fewer labeled positives (or unlabeled points) than
        ``n_splits``: some test fold would hold none.

    See Also
    --------
    PUStratifiedShuffleSplit : random splits stratified on ``s``.
    check_pu_cv : the splitter behind ``cv=int`` in :class:`PUGridSearchCV`.

    Examples
    --------
    >>> import numpy as np
    >>> from unlabeled.model_selection import PUStratifiedKFold
    >>> s = np.r_[np.ones(6, dtype=int), np.zeros(12, dtype=int)]
    >>> [int(s[test].sum()) for _, test in PUStratifiedKFold(3).split(np.zeros((18, 1)), s)]
    [2, 2, 2]
    """

    def __init__(
        self, n_splits: int = 5, *, shuffle: bool = False, random_state: Any = None
    ) -> None:
        check_int(n_splits, "n_splits", low=2)
        super().__init__(n_splits=n_splits, shuffle=shuffle, random_state=random_state)

    def split(
        self, X: Any, y: ArrayLike | None = None, groups: Any = None
    ) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        mask, p, n = _pu_mask_for_split(y, X)
        if p < self.n_splits:
            raise ValueError(
                f"s has {p} labeled positives, fewer than n_splits={self.n_splits}: some test "
                f"fold would hold no labeled positive and its PU score would be undefined; use "
                f"n_splits <= {p} or label more positives"
            )
        if n < self.n_splits:
            raise ValueError(
                f"s has {n} unlabeled points, fewer than n_splits={self.n_splits}: use "
                f"n_splits <= {n}"
            )
        return super().split(X, mask.astype(np.int64), groups)


class PUStratifiedShuffleSplit(StratifiedShuffleSplit):
    """Random train/test splits stratified on the PU labels ``s``.

    Parameters are those of :class:`sklearn.model_selection.StratifiedShuffleSplit`
    (``n_splits=10, test_size=None, train_size=None, random_state=None``).

    Raises
    ------
    ValueError
        From ``split`` when a test (or training) set would hold no labeled positive or no
        unlabeled point: fewer than 2 of either kind, or a test size too small for them.

    See Also
    --------
    PUStratifiedKFold : k-fold cross-validation stratified on ``s``.

    Examples
    --------
    >>> import numpy as np
    >>> from unlabeled.model_selection import PUStratifiedShuffleSplit
    >>> s = np.r_[np.ones(10, dtype=int), np.zeros(30, dtype=int)]
    >>> cv = PUStratifiedShuffleSplit(n_splits=2, test_size=0.25, random_state=0)
    >>> [int(s[test].sum()) for _, test in cv.split(np.zeros((40, 1)), s)]  # 2 or 3 of 10
    [2, 3]
    """

    def __init__(
        self,
        n_splits: int = 10,
        *,
        test_size: float | int | None = None,
        train_size: float | int | None = None,
        random_state: Any = None,
    ) -> None:
        check_int(n_splits, "n_splits", low=1)
        super().__init__(
            n_splits=n_splits, test_size=test_size, train_size=train_size, random_state=random_state
        )

    def split(
        self, X: Any, y: ArrayLike | None = None, groups: Any = None
    ) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        mask, p, n = _pu_mask_for_split(y, X)
        if min(p, n) < 2:
            kind = "labeled positives" if p < 2 else "unlabeled points"
            raise ValueError(
                f"s has {min(p, n)} {kind}: a stratified split needs at least 2 (one for the "
                "training set, one for the test set)"
            )
        for train, test in super().split(X, mask.astype(np.int64), groups):
            for name, idx in (("test", test), ("training", train)):
                if not mask[idx].any() or mask[idx].all():
                    raise ValueError(
                        f"a {name} set of {idx.size} points holds "
                        f"{'no labeled positive' if not mask[idx].any() else 'no unlabeled point'}"
                        f" ({p} labeled positives, {n} unlabeled in all): increase "
                        f"{'test_size' if name == 'test' else 'train_size'}"
                    )
            yield train, test


_SPLIT_DOC = """Generate the train and test indices of each split.

Parameters
----------
X : array-like or sparse matrix of shape (n_samples, n_features)
    The data; only its number of rows is used.
y : array-like of shape (n_samples,)
    The PU labels ``s`` (1 = labeled positive, 0 or -1 = unlabeled), on which the split is
    stratified. Required.
groups : None
    Ignored, for scikit-learn's interface.

Yields
------
train : ndarray of int
    Indices of the training set.
test : ndarray of int
    Indices of the test set.

See Also
--------
PUStratifiedKFold, PUStratifiedShuffleSplit
"""
PUStratifiedKFold.split.__doc__ = PUStratifiedShuffleSplit.split.__doc__ = _SPLIT_DOC


def check_pu_cv(cv: int | Any | Iterable | None = 5, *, random_state: Any = None) -> Any:
    """The splitter for ``cv``, as :func:`sklearn.model_selection.check_cv` but stratified on ``s``.

    Parameters
    ----------
    cv : int, splitter, iterable of (train, test) or None, default=5
        An int gives :class:`PUStratifiedKFold` with that many folds (None: 5); a splitter
        (with ``split`` and ``get_n_splits``) is used as is; an iterable of (train, test)
        index pairs is used as fixed splits.
    random_state : int, RandomState instance or None, default=None
        With an int ``cv``: shuffles the folds with this seed (None: no shuffle).

    Returns
    -------
    splitter
        An object with ``split(X, s)`` and ``get_n_splits()``.

    Raises
    ------
    TypeError
        When ``cv`` is none of the above.
    ValueError
        When ``cv`` is an int below 2.

    See Also
    --------
    PUStratifiedKFold

    Examples
    --------
    >>> import numpy as np
    >>> from unlabeled.model_selection import check_pu_cv
    >>> cv = check_pu_cv(3, random_state=0)
    >>> cv
    PUStratifiedKFold(n_splits=3, random_state=0, shuffle=True)
    >>> X = np.zeros((20, 2))
    >>> s = np.r_[np.ones(6, int), np.zeros(14, int)]
    >>> [int(s[test].sum()) for _, test in cv.split(X, s)]   # labeled positives per fold
    [2, 2, 2]
    """
    if cv is None:
        cv = 5
    if isinstance(cv, numbers.Integral) and not isinstance(cv, bool):
        if cv < 2:  # (the splitter would say "n_splits must be >= 2", naming no argument)
            raise ValueError(f"cv must be >= 2 folds when an int, got {cv!r}")
        return PUStratifiedKFold(
            int(cv),
            shuffle=random_state is not None,
            random_state=random_state,
        )
    if hasattr(cv, "split") and hasattr(cv, "get_n_splits"):
        return cv
    if isinstance(cv, Iterator | Sequence) and not isinstance(cv, str | bytes):
        splits = list(cv)
        if all(isinstance(pair, Sequence) and len(pair) == 2 for pair in splits):
            return _FixedSplits(splits)
    raise TypeError(
        f"cv must be an int (number of folds), a splitter with split() or an iterable of "
        f"(train, test) index pairs, got {cv!r}"
    )


class _FixedSplits:
    def __init__(self, splits):
        self.splits = splits

    def split(self, X=None, y=None, groups=None):
        yield from self.splits

    def get_n_splits(self, X=None, y=None, groups=None):
        return len(self.splits)
