"""Positive naive Bayes for categorical features (Denis, Gilleron and Tommasi 2002; Calvo,
Larranaga and Lozano 2007)."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.special import expit, log_expit
from sklearn.base import ClassifierMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted, validate_data

from .._validation import RANDOM_STATE, Options, Real, check_not_strings, check_pu_labels
from ..base import ANY_FINITE, ArrayLike, Fitted, MatrixLike, ValidatedEstimator, set_init_params
from ..metrics import pu_accuracy_score
from ..registry import Case, register
from .priors import Blend

#: the most distinct values of one feature (its table has one entry per value and class)
MAX_CATEGORIES = 100_000


def _dense_finite(X, who, est, reset):
    """X checked as a dense finite float64 matrix (categories are its values)."""
    check_not_strings(X)
    if sp.issparse(X):
        raise TypeError(
            f"{who} takes X as a dense array of category codes, got a sparse matrix: pass "
            "X.toarray() (categorical data has few columns)"
        )
    return validate_data(est, X, dtype=np.float64, reset=reset, ensure_all_finite=True)


@register(
    family="pu",
    summary="positive naive Bayes (PNB) for categorical features",
    cases=(Case({"prior": 0.4}),),
)
class PositiveNaiveBayes(ClassifierMixin, ValidatedEstimator):
    r"""Positive naive Bayes (PNB) for categorical features, from positive and unlabeled data.

    Naive Bayes needs, for each feature ``i`` and value ``k``, ``P(x_i = k | y)`` for both
    classes. From the ``p`` labeled positives ``P`` and the ``n`` unlabeled points ``U``, whose
    share of positives is the prior ``pi``, Denis, Gilleron and Tommasi (2002) and Calvo,
    Larranaga and Lozano (2007) estimate the negatives' counts by subtracting the positives
    expected among the unlabeled points:

    .. math::

        N_-(k) = \max\bigl(0,\ N_U(k) - \pi\, n\, N_P(k) / p\bigr), \qquad
        P(x_i = k \mid +) = \frac{N_P(k) + \alpha}{p + \alpha (r_i + 1)}, \qquad
        P(x_i = k \mid -) = \frac{N_-(k) + \alpha}{\sum_{k'} N_-(k') + \alpha (r_i + 1)},

    with ``N_P(k)``, ``N_U(k)`` the counts of the value among ``P`` and ``U``, ``r_i`` the
    values of feature ``i`` seen in training, and one more slot of count 0 for a value not
    seen (Laplace's ``alpha``). Without clipping ``sum_k N_-(k) = (1 - pi) n``, Calvo et al.'s
    denominator; the sum keeps the table a distribution when values are clipped. The
    posterior on the unlabeled population is then

    .. math::

        P(y = 1 \mid x) = \frac{\pi \prod_i P(x_i \mid +)}
        {\pi \prod_i P(x_i \mid +) + (1 - \pi) \prod_i P(x_i \mid -)},

    ``decision_function`` its log-odds and ``predict`` 1 where it is positive.

    The features are categories: each column's distinct values (integer codes, typically)
    are its categories; a value not seen in training falls in the unseen slot.

    Parameters
    ----------
    prior : float in (0, 1) or "auto", default="auto"
        ``pi``, the share of positives among the unlabeled points; ``"auto"`` estimates it
        with :class:`unlabeled.pu.priors.Blend` (the estimate of ``PUSVC(prior="auto")``).
    alpha : float in [1e-300, 1e10], default=1.0
        Laplace smoothing (smaller values, subnormal floats, underflowed to a probability
        of 0 over a category's count).
    random_state : int, RandomState instance or None, default=None
        For ``prior="auto"``'s estimate.

    Attributes
    ----------
    prior_ : float
    categories_ : ndarray of shape (n_features, max_categories)
        Each row the sorted values of a feature, padded with its last value.
    n_categories_ : ndarray of shape (n_features,)
        ``r_i``.
    feature_log_prob_ : ndarray of shape (2, n_features, max_categories + 1)
        ``log P(x_i = k | y)`` for ``y = 0, 1``; entry ``r_i`` is the unseen value's.
    classes_ : ndarray ``[0, 1]``
    n_features_in_ : int

    References
    ----------
    F. Denis, R. Gilleron, M. Tommasi, "Text classification from positive and unlabeled
    examples", IPMU 2002. B. Calvo, P. Larranaga, J. A. Lozano, "Learning Bayesian
    classifiers from positive and unlabeled examples", Pattern Recognition Letters 28, 2007.

    Examples
    --------
    >>> import numpy as np
    >>> from unlabeled.pu import PositiveNaiveBayes
    >>> X = np.array([[0, 1], [0, 1], [0, 0], [1, 0], [1, 1], [0, 1], [1, 0], [1, 0]])
    >>> s = np.array([1, 1, 1, 0, 0, 0, 0, 0])
    >>> clf = PositiveNaiveBayes(prior=0.4).fit(X, s)
    >>> clf.predict([[0, 1], [1, 0]]).tolist()
    [1, 0]
    """

    _parameter_constraints: dict = {
        "prior": [Options(("auto",)), Real(0.0, 1.0)],
        "alpha": [Real(1e-300, 1e10, low_open=False, high_open=False)],
        "random_state": RANDOM_STATE,
    }

    _fitted_attributes: dict = {
        "prior_": Fitted("float", above=0.0, below=1.0),
        "categories_": Fitted("f", ("n_features_in_", "n_cat"), high=ANY_FINITE),
        "n_categories_": Fitted("iu", ("n_features_in_",), low=1, high="n_cat"),
        "feature_log_prob_": Fitted("f", (2, "n_features_in_", "n_cat+1"), high=0.0),
        "classes_": Fitted("iu", (2,), low=0, high=1),
    }

    def __init__(
        self,
        prior: float | str = "auto",
        *,
        alpha: float = 1.0,
        random_state: int | np.random.RandomState | None = None,
    ) -> None:
        set_init_params(self, locals())

    def fit(
        self, X: MatrixLike, s: ArrayLike, *, propensity: ArrayLike | None = None
    ) -> PositiveNaiveBayes:
        """Estimate the tables from ``X`` (categories) and PU labels ``s``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Category codes (any finite numbers; each distinct value a category).
        s : array-like of shape (n_samples,)
            1 = labeled positive, 0 or -1 = unlabeled.
        propensity : None
            Refused (accepted only as None, so that a SAR pipeline fails with a clear
            message): the tables subtract the prior's share of the labeled positives'
            profile from the unlabeled counts, which assumes labels selected completely at
            random; the inverse-propensity weighting of ``PUSVC.fit(propensity=)`` is not
            available for them.

        Returns
        -------
        self : PositiveNaiveBayes
        """
        if propensity is not None:
            raise ValueError(
                f"{type(self).__name__} does not take propensity=: inverse-propensity "
                "weighting is not available for positive naive Bayes / TAN, whose tables "
                "assume labels selected completely at random (SCAR). For labels that depend "
                "on the "
                "features use PUSVC, NNPUClassifier, BiasedSVM, BaggingPUClassifier or "
                "ElkanNotoClassifier(weighted=True) with fit(X, s, propensity=e)"
            )
        params = self._validate_params()
        who = type(self).__name__
        X = _dense_finite(X, who, self, reset=True)
        mask = check_pu_labels(s, X.shape[0], who=who)
        cats = [np.unique(X[:, i]) for i in range(X.shape[1])]
        width = max(c.size for c in cats)
        self._check_width(width, X.shape[1])
        prior = params["prior"]
        if prior == "auto":
            seed = check_random_state(self.random_state).randint(np.iinfo(np.int32).max)
            prior = float(np.clip(Blend(random_state=seed).fit(X, mask).prior_, 1e-6, 1 - 1e-6))
        table = np.empty((len(cats), width))
        for i, c in enumerate(cats):
            table[i, : c.size], table[i, c.size :] = c, c[-1]
        self.categories_ = table
        self.n_categories_ = np.array([c.size for c in cats], dtype=np.int64)
        codes = self._codes(X)
        self.feature_log_prob_ = self._tables(codes, mask, float(prior), params["alpha"], width)
        self.prior_ = float(prior)
        self.classes_ = np.array([0, 1])
        return self

    def _check_width(self, width: int, n_features: int) -> None:
        """Refuse columns of too many distinct values (continuous ones), naming X."""
        if width > MAX_CATEGORIES:
            raise ValueError(
                f"X has a column of {width:,} distinct values, over {MAX_CATEGORIES:,}: "
                f"{type(self).__name__} takes categorical features (bin continuous ones first, "
                "e.g. with sklearn.preprocessing.KBinsDiscretizer(encode='ordinal'))"
            )

    def _codes(self, X) -> np.ndarray:
        """Each value's category index (``r_i`` for a value not seen in training)."""
        codes = np.empty(X.shape, dtype=np.int64)
        for i in range(X.shape[1]):
            r = int(self.n_categories_[i])
            cats = self.categories_[i, :r]
            idx = np.minimum(np.searchsorted(cats, X[:, i]), r - 1)
            codes[:, i] = np.where(cats[idx] == X[:, i], idx, r)
        return codes

    def _tables(self, codes, mask, prior, alpha, width) -> np.ndarray:
        """``log P(x_i = k | y)``, shape (2, n_features, width + 1), by the class docstring."""
        d = codes.shape[1]
        p, n = int(mask.sum()), int((~mask).sum())
        out = np.zeros((2, d, width + 1))
        for i in range(d):
            r = int(self.n_categories_[i])
            n_pos = np.bincount(codes[mask, i], minlength=r + 1)[: r + 1].astype(np.float64)
            n_unl = np.bincount(codes[~mask, i], minlength=r + 1)[: r + 1].astype(np.float64)
            n_neg = np.maximum(0.0, n_unl - prior * n * n_pos / p)
            pos = (n_pos + alpha) / (p + alpha * (r + 1))
            neg = (n_neg + alpha) / (n_neg.sum() + alpha * (r + 1))
            out[1, i, : r + 1], out[0, i, : r + 1] = np.log(pos), np.log(neg)
        return out

    def decision_function(self, X: MatrixLike) -> np.ndarray:
        """The log-odds ``log P(y = 1 | x) - log P(y = 0 | x)``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        check_is_fitted(self)
        X = _dense_finite(X, type(self).__name__, self, reset=False)
        logp = self._log_likelihoods(self._codes(X))  # (2, n)
        return logp[1] - logp[0] + np.log(self.prior_) - np.log1p(-self.prior_)

    def _log_likelihoods(self, codes) -> np.ndarray:
        """``log P(x | y)`` for ``y = 0, 1``: shape (2, n_samples)."""
        cols = np.arange(codes.shape[1])
        return self.feature_log_prob_[:, cols, codes].sum(axis=2)

    def predict(self, X: MatrixLike) -> np.ndarray:
        """1 where the posterior exceeds 1/2, else 0.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        return self.classes_[(self.decision_function(X) > 0).astype(int)]

    def predict_proba(self, X: MatrixLike) -> np.ndarray:
        """``[P(y = 0 | x), P(y = 1 | x)]`` on the unlabeled population.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, 2)
        """
        z = self.decision_function(X)
        return np.c_[expit(-z), expit(z)]

    def predict_log_proba(self, X: MatrixLike) -> np.ndarray:
        """The logarithm of :meth:`predict_proba`, without underflow.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, 2)
        """
        z = self.decision_function(X)
        return np.c_[log_expit(-z), log_expit(z)]

    def score(
        self,
        X: MatrixLike,
        s: ArrayLike | None = None,
        sample_weight: ArrayLike | None = None,
        *,
        y: ArrayLike | None = None,
    ) -> float:
        """The estimated accuracy on the unlabeled population from PU labels at ``prior_``
        (:func:`unlabeled.metrics.pu_accuracy_score`).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        s : array-like of shape (n_samples,)
            PU labels.
        sample_weight : array-like of shape (n_samples,), optional
        y : array-like of shape (n_samples,), optional
            An alias of ``s``.

        Returns
        -------
        float
        """
        check_is_fitted(self)
        if y is not None:
            if s is not None:
                raise TypeError("score got both s and y: pass the PU labels once, as s")
            s = y
        if s is None:
            raise ValueError("PositiveNaiveBayes.score needs the PU labels s")
        return pu_accuracy_score(s, self.predict(X), self.prior_, sample_weight=sample_weight)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        tags.classifier_tags.multi_class = False
        return tags


#: the most entries of PositiveTAN's tables (2 classes x features x (values + 1)^2)
MAX_TAN_ENTRIES = 2**25


def _negative_counts(n_unl, n_pos, prior, n, p):
    """The negatives' counts among the unlabeled points: ``max(0, N_U - pi n N_P / p)``."""
    return np.maximum(0.0, n_unl - prior * n * n_pos / p)


def _pair_counts(a, b, ra, rb, rows):
    """The table of ``(a, b)`` code pairs over ``rows``: shape (ra + 1, rb + 1)."""
    flat = a[rows] * (rb + 1) + b[rows]
    return np.bincount(flat, minlength=(ra + 1) * (rb + 1)).reshape(ra + 1, rb + 1)


def _conditional_mi(joints, prior) -> float:
    """``I(X_i; X_j | Y)`` from the smoothed joint tables of both classes (negative first)."""
    total = 0.0
    for joint, weight in zip(joints, (1.0 - prior, prior), strict=True):
        pa, pb = joint.sum(axis=1, keepdims=True), joint.sum(axis=0, keepdims=True)
        total += weight * float(np.sum(joint * (np.log(joint) - np.log(pa) - np.log(pb))))
    return max(total, 0.0)


def _max_spanning_tree(weights) -> np.ndarray:
    """Prim's maximum spanning tree from feature 0: the parent of each feature (-1: root)."""
    d = weights.shape[0]
    parents = np.full(d, -1)
    inside = np.zeros(d, dtype=bool)
    inside[0] = True
    best, link = weights[0].copy(), np.zeros(d, dtype=int)
    for _ in range(d - 1):
        j = int(np.argmax(np.where(inside, -np.inf, best)))
        inside[j], parents[j] = True, link[j]
        closer = ~inside & (weights[j] > best)
        best[closer], link[closer] = weights[j][closer], j
    return parents


@register(
    family="pu",
    summary="positive tree-augmented naive Bayes (PTAN) for categorical features",
    cases=(Case({"prior": 0.4}),),
)
class PositiveTAN(PositiveNaiveBayes):
    r"""Positive tree-augmented naive Bayes (PTAN; Calvo, Larranaga and Lozano 2007).

    As :class:`PositiveNaiveBayes`, with each feature conditioned on one other feature as
    well as the class: ``P(x | y) = prod_i P(x_i | x_{pa(i)}, y)`` over a tree of features.
    The counts of the negatives are those of the unlabeled points less the positives expected
    among them, now for pairs of values:

    .. math::

        N_-(k, l) = \maxigl(0,\ N_U(k, l) - \pi\, n\, N_P(k, l) / pigr).

    The tree is Chow and Liu's maximum spanning tree (Prim's, from feature 0) under the
    conditional mutual information ``I(X_i; X_j | Y)`` of the smoothed pair tables
    ``P(k, l | y) = (N_y(k, l) + alpha) / (N_y + alpha (r_i + 1)(r_j + 1))`` (``pi`` weighing
    the positives), and each feature's table is
    ``P(x_i = k | x_{pa(i)} = l, y) = (N_y(k, l) + alpha) / (N_y(l) + alpha (r_i + 1))``,
    an unseen value in its own slot as in :class:`PositiveNaiveBayes`.

    Parameters
    ----------
    prior : float in (0, 1) or "auto", default="auto"
        ``pi``, the share of positives among the unlabeled points; ``"auto"`` estimates it
        with :class:`unlabeled.pu.priors.Blend`.
    alpha : float in [1e-300, 1e10], default=1.0
        Laplace smoothing (smaller values, subnormal floats, underflowed to a probability
        of 0 over a category's count).
    random_state : int, RandomState instance or None, default=None
        For ``prior="auto"``'s estimate.

    Attributes
    ----------
    prior_, categories_, n_categories_, classes_, n_features_in_
        As for :class:`PositiveNaiveBayes`.
    parents_ : ndarray of shape (n_features,)
        The parent of each feature in the tree (-1: the root, feature 0).
    feature_log_prob_ : ndarray of shape (2, n_features, max_categories + 1, max_categories + 1)
        ``log P(x_i = k | x_{pa(i)} = l, y)`` at ``[y, i, k, l]`` (the root's the same for
        every ``l``).

    References
    ----------
    B. Calvo, P. Larranaga, J. A. Lozano, "Learning Bayesian classifiers from positive and
    unlabeled examples", Pattern Recognition Letters 28, 2007. N. Friedman, D. Geiger,
    M. Goldszmidt, "Bayesian network classifiers", Machine Learning 29, 1997.

    Examples
    --------
    >>> import numpy as np
    >>> from unlabeled.pu import PositiveTAN
    >>> X = np.array([[0, 1, 1], [0, 1, 1], [0, 0, 0], [1, 0, 0], [1, 1, 1], [0, 1, 1],
    ...               [1, 0, 0], [1, 0, 0]])
    >>> s = np.array([1, 1, 1, 0, 0, 0, 0, 0])
    >>> clf = PositiveTAN(prior=0.4).fit(X, s)
    >>> clf.parents_.tolist(), clf.predict([[0, 1, 1], [1, 0, 0]]).tolist()
    ([-1, 0, 1], [1, 0])
    """

    _fitted_attributes: dict = {
        "parents_": Fitted("i", ("n_features_in_",), low=-1, below="n_features_in_"),
        "feature_log_prob_": Fitted("f", (2, "n_features_in_", "n_cat+1", "n_cat+1"), high=0.0),
    }

    def _check_width(self, width: int, n_features: int) -> None:
        super()._check_width(width, n_features)
        entries = 2 * n_features * (width + 1) ** 2
        if entries > MAX_TAN_ENTRIES:
            raise ValueError(
                f"X has {n_features} columns of up to {width:,} distinct values: PositiveTAN's "
                f"tables would hold {entries:,} entries, over {MAX_TAN_ENTRIES:,}; bin the "
                "columns into fewer values (KBinsDiscretizer(encode='ordinal')), or use "
                "PositiveNaiveBayes"
            )

    def _tables(self, codes, mask, prior, alpha, width) -> np.ndarray:
        """The tree (``parents_``) and ``log P(x_i = k | x_pa = l, y)``, by the class
        docstring; shape (2, n_features, width + 1, width + 1)."""
        d = codes.shape[1]
        p, n = int(mask.sum()), int((~mask).sum())
        pos, unl = np.flatnonzero(mask), np.flatnonzero(~mask)
        r = [int(v) for v in self.n_categories_]

        def pair_tables(i, j):  # counts of (x_i, x_j) among negatives and positives
            n_pos = _pair_counts(codes[:, i], codes[:, j], r[i], r[j], pos).astype(float)
            n_unl = _pair_counts(codes[:, i], codes[:, j], r[i], r[j], unl).astype(float)
            return _negative_counts(n_unl, n_pos, prior, n, p), n_pos

        weights = np.zeros((d, d))
        for i in range(d):
            for j in range(i + 1, d):
                joints = [(c + alpha) / (c.sum() + alpha * c.size) for c in pair_tables(i, j)]
                weights[i, j] = weights[j, i] = _conditional_mi(joints, prior)
        self.parents_ = _max_spanning_tree(weights)
        out = np.zeros((2, d, width + 1, width + 1))
        for i in range(d):
            j = int(self.parents_[i])
            for y, counts in enumerate(pair_tables(i, i if j < 0 else j)):
                if j < 0:  # the root: its marginal, the same for every l
                    marg = np.diag(counts)
                    col = (marg + alpha) / (marg.sum() + alpha * (r[i] + 1))
                    out[y, i, : r[i] + 1, :] = np.log(col)[:, None]
                else:
                    cond = (counts + alpha) / (counts.sum(axis=0) + alpha * (r[i] + 1))
                    out[y, i, : r[i] + 1, : r[j] + 1] = np.log(cond)
        return out

    def _log_likelihoods(self, codes) -> np.ndarray:
        cols = np.arange(codes.shape[1])
        parent = codes[:, np.maximum(self.parents_, 0)]
        return self.feature_log_prob_[:, cols, codes, parent].sum(axis=2)
