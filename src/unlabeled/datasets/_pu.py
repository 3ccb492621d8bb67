"""PU labels drawn from fully labeled data (selected-completely-at-random scheme)."""

from __future__ import annotations

import numpy as np
from sklearn.utils import check_random_state

from .._validation import ArrayLike, check_real


def make_pu_labels(
    y: ArrayLike,
    labeled_fraction: float = 0.2,
    positive_class: object = 1,
    random_state: int | np.random.RandomState | None = None,
) -> np.ndarray:
    """Label a random subset of the positives and leave everything else unlabeled.

    ``k = round(labeled_fraction * n_positives)`` positives (at least one; Python's ``round``,
    halves to even) are drawn uniformly at random without replacement, as under the
    "selected completely at random" assumption of Elkan and Noto [1]_. The remaining positives
    and all negatives form the unlabeled set, whose class prior is
    ``(n_positives - k) / (n_samples - k)``.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        True class labels (any values; compared with ``positive_class``). Not modified.
    labeled_fraction : float in (0, 1], default=0.2
        Fraction of the positives to label.
    positive_class : scalar, default=1
        The value of ``y`` that denotes the positive class; it must occur in ``y``.
    random_state : int, RandomState instance or None, default=None
        Seed or generator, as in scikit-learn (:func:`sklearn.utils.check_random_state`).

    Returns
    -------
    s : ndarray of shape (n_samples,), dtype int64
        1 for the labeled positives, 0 for the unlabeled points; ready for ``PUSVC.fit(X, s)``.

    Raises
    ------
    ValueError
        If ``y`` is not 1-D, ``labeled_fraction`` is outside (0, 1], ``positive_class`` does not
        occur in ``y``, or no unlabeled point would remain.
    TypeError
        If ``labeled_fraction`` is not a real number.

    References
    ----------
    .. [1] C. Elkan and K. Noto, "Learning classifiers from only positive and unlabeled data",
       Proc. 14th ACM SIGKDD, pp. 213-220, 2008.

    Examples
    --------
    >>> from unlabeled.datasets import make_pu_labels
    >>> s = make_pu_labels([1, 0, 1, 1, 0, 1], labeled_fraction=0.5, random_state=0)
    >>> int(s.sum())
    2
    """
    frac = check_real(labeled_fraction, "labeled_fraction", low=0.0, high=1.0, high_open=False)
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(
            f"y must be 1-D, got an array of shape {y.shape}; pass a flat label vector "
            "(e.g. y.ravel())"
        )
    positives = np.flatnonzero(y == positive_class)
    if positives.size == 0:
        present = np.unique(y)[:10].tolist()
        raise ValueError(
            f"positive_class={positive_class!r} does not occur in y (values include {present}); "
            "set positive_class to the label of the positive class"
        )
    k = max(1, round(frac * positives.size))
    if k >= y.size:
        raise ValueError(
            f"labeling {k} of the {positives.size} positives leaves no unlabeled point among the "
            f"{y.size} samples; lower labeled_fraction or include negatives in y"
        )
    rng = check_random_state(random_state)
    s = np.zeros(y.size, dtype=np.int64)
    s[rng.choice(positives, size=k, replace=False)] = 1
    return s
