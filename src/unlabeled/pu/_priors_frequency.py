"""The label-frequency estimators: ElkanNoto (Elkan and Noto, 2008) and TIcE (Bekker and
Davis, 2018)."""

from __future__ import annotations

import heapq
import warnings
from functools import partial

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from sklearn.linear_model import LogisticRegression

from .._budget import check_dense_budget
from .._validation import (
    Integer,
    Real,
)
from ..base import (
    Fitted,
    set_init_params,
)
from ..registry import register
from ._priors_base import (
    PriorEstimator,
    check_classifier,
    fold_fits,
    prior_from_label_frequency,
    shared_docs,
    stacked,
)

#: the public module of these estimators: their model files and pickles name them there
PUBLIC_MODULE = "unlabeled.pu.priors"


# -------------------------------------------------------------------- label-frequency methods
def _warn_range(name, prior, c, p, n):
    if not 0.0 <= prior <= 1.0:
        warnings.warn(
            f"{name}: the estimated label frequency c = {c:.4g} implies a proportion "
            f"{prior:.4g} of positives among the unlabeled points, outside [0, 1] (it is in "
            f"range only for {p / (p + n):.4g} <= c <= 1). The classifier's probabilities are "
            "probably miscalibrated; prior_ is returned unclipped so that you can see it.",
            RuntimeWarning,
            stacklevel=5,  # _estimate, fit, its transactional wrapper, the caller
        )


@shared_docs("the folds", example=(0.2, 0.4), see_also="TIcE KM2")
@register(family="pu", summary="class prior: Elkan and Noto's estimator")
class ElkanNoto(PriorEstimator):
    r"""Class prior from the label frequency of Elkan and Noto (KDD 2008), estimator e1.

    Under "selected completely at random" a classifier ``g(x) ~ P(s=1 | x)`` trained to tell
    labeled from unlabeled points satisfies ``g(x) = c P(y=1 | x)`` with
    ``c = P(s=1 | y=1)``, so ``g = c`` on the positives: ``c`` is estimated by the mean of
    ``g`` over labeled positives that ``g`` was not trained on (the paper's e1). Here every
    labeled positive is held out once, by ``cv``-fold cross-fitting (the paper holds out one
    validation set; cross-fitting uses every positive and so has less variance).

    From ``c`` to the prior among the unlabeled points: the ``p`` labeled positives are a
    fraction ``c`` of about ``p / c`` positives in all, so ``p / c - p`` of the ``n``
    unlabeled points are positive,

    .. math::  \pi = \frac{p/c - p}{n} = \frac{p (1 - c)}{c\, n}.

    It lies in ``[0, 1]`` only when ``p / (p + n) <= c <= 1``. A ``c`` outside that range
    means ``g`` is miscalibrated; the estimate is then returned as is, with a
    ``RuntimeWarning`` (it is not clipped, so the problem stays visible).

    Parameters
    ----------
    estimator : classifier with ``predict_proba`` or None, default=None
        Cloned for each fold. None: ``LogisticRegression(max_iter=1000)``; the paper used an
        SVM with Platt scaling, i.e. ``CalibratedClassifierCV(SVC())``. Its
        ``random_state``, if it has one left at None, is set from ``random_state``.
    cv : int >= 2, default=5
        Folds of the cross-fitting (stratified on ``s``).
    %(bootstrap_params)s

    Attributes
    ----------
    prior_ : float
    c_ : float
        Estimated label frequency ``P(s=1 | y=1)``.
    %(bootstrap_attributes)s

    References
    ----------
    C. Elkan, K. Noto, "Learning classifiers from only positive and unlabeled data",
    KDD 2008.

    """

    __module__ = PUBLIC_MODULE

    _min_unlabeled = 2  # (its folds' classifiers)

    _parameter_constraints: dict = {
        **PriorEstimator._parameter_constraints,
        # "estimator" is checked by its methods (fit and predict_proba), in _check_values
        "cv": [Integer(2)],
    }

    # a miscalibrated g gives an estimate outside [0, 1], kept as it is (see above)
    _fitted_attributes: dict = {
        "c_": Fitted("float", low=0.0),
        "prior_": Fitted("float"),
        "bootstrap_priors_": Fitted("f", ("n_bootstrap",), none=True),
    }

    def __init__(
        self,
        estimator: BaseEstimator | None = None,
        *,
        cv: int = 5,
        n_bootstrap: int = 0,
        confidence: float = 0.95,
        random_state: int | np.random.RandomState | None = None,
    ) -> None:
        set_init_params(self, locals())

    def _check_values(self, params):
        """``estimator``: None or a classifier with ``fit`` and ``predict_proba``."""
        example = "LogisticRegression() or CalibratedClassifierCV(SVC())"
        check_classifier(self.estimator, ("predict_proba",), example)
        return params

    def _check_sizes(self, n_labeled, n_unlabeled, params):
        if n_labeled < params["cv"]:
            raise ValueError(
                f"cv={params['cv']} folds need at least {params['cv']} labeled positives, "
                f"got {n_labeled}; lower cv"
            )

    def _estimate(self, Xp, Xu, rng, params):
        p, n = Xp.shape[0], Xu.shape[0]
        X, s = stacked(Xp, Xu)
        seed = int(rng.randint(np.iinfo(np.int32).max))
        g_pos = np.empty(p)
        default = partial(LogisticRegression, max_iter=1000)
        for est, test in fold_fits(X, s, self.estimator, default, params["cv"], seed):
            pos_test = test[test < p]
            g_pos[pos_test] = est.predict_proba(X[pos_test])[:, list(est.classes_).index(1)]
        c = float(g_pos.mean())
        prior = prior_from_label_frequency(c, p, n)
        _warn_range("ElkanNoto", prior, c, p, n)
        return prior, {"c_": c}


#: TIcE's cap on n_iter: the iterations' work, after the trees, is n_iter x the subsets
_TICE_MAX_ITER = 10_000


@shared_docs("the halvings", example=(0.1, 0.5), see_also="ElkanNoto KM2")
@register(family="pu", summary="class prior: tree induction (TIcE)")
class TIcE(PriorEstimator):
    r"""Class prior from the label frequency by tree induction (Bekker and Davis, AAAI 2018).

    Under "selected completely at random" with label frequency ``c = P(s=1 | y=1)``, any
    subset ``S`` of the data has ``c = L_S / P_S >= L_S / |S|`` (``L_S`` labeled, ``P_S``
    positive points in ``S``), with equality on a purely positive subset. TIcE searches for
    such subsets by growing a decision tree on one half of the data (best-first, up to
    ``max_splits`` splits; the split maximising the biased positive proportion
    ``max_child L / (|S| + k)`` with ``k = 5``, nodes with fewer than ``min_size`` points are
    not split) and evaluates each node on the other half with the one-sided Chebyshev
    (Cantelli) lower bound

    .. math::  \hat c_S = \frac{L_S}{|S|} - \sqrt{\frac{c (1 - c) (1 - \delta)}{\delta |S|}},

    taking the largest. The ``c`` inside the root is the previous iteration's estimate
    (0.5 at first; ``n_iter`` iterations), the result is averaged over ``n_folds`` random
    halvings, and ``delta = max(0.025, 1 / (1 + 0.004 N))`` for ``N`` points, the authors'
    default. Continuous features are split at their ``n_bins - 1`` inner quantiles (the paper
    works with binarised features). As ``c >= p / N`` always (every labeled point is
    positive), the estimate is floored there, which keeps ``prior_ <= 1``. Then, as for
    :class:`ElkanNoto`, ``prior_ = p (1 - c) / (c n)``.

    ``X`` may be sparse; it is densified (``n_samples x n_features``) for the binning.

    ``prior_interval_`` is the bootstrap percentile interval of a biased estimator, and need
    not contain ``prior_``: the estimate is a maximum over subsets, and the duplicates of a
    resample make small subsets look purely labeled, which raises ``c`` and lowers the
    resampled priors, so the interval tends to lie below ``prior_`` (australian, 20 % of the
    positives labeled, seed 1: 0.22 to 0.53 around 0.543, truth 0.499). That shift partly
    offsets the estimator's upward bias when the classes overlap, so the interval is left
    where it is: moved onto the estimate (by ``prior_ - median(bootstrap_priors_)``) it would
    cover the truth less often. Coverage measured on generated data (300 points, half of them
    positive; two unit-variance Gaussian classes in 4 dimensions, the negatives' mean at 0
    and the positives' at ``m`` in every coordinate; 30 % of the positives labeled: a true
    prior of 0.41 among the unlabeled points; 100 resamples, ``confidence=0.95``):

    ====  ===========  ==============  ================  =================  =====
    m     data sets    estimate        holds ``prior_``  holds the truth    moved
    ====  ===========  ==============  ================  =================  =====
    1     40           0.55 +- 0.10    24                40                 25
    2     40           0.43 +- 0.07    32                37                 37
    3     20           0.42 +- 0.07    15                18                 19
    ====  ===========  ==============  ================  =================  =====

    ("moved": the data sets whose moved interval holds the truth.) Read the interval as the
    estimator's sampling spread, not as a confidence interval for the true prior.

    Parameters
    ----------
    n_folds : int >= 1, default=5
        Random halvings (tree half / estimation half) averaged over.
    n_iter : int in [1, 10000], default=2
        Iterations of the ``c`` inside the bound. The trees and the counts of their subsets
        do not depend on ``c`` (the splits maximise the biased positive proportion), so they
        are grown once per halving and each iteration is a function of the previous ``c``
        alone: once ``c`` repeats an earlier value the sequence is periodic, and the
        remaining iterations are read off the cycle instead of computed (it repeats after a
        few dozen iterations in practice). The work after the trees is at most ``n_iter x``
        the evaluated subsets, hence the cap.
    max_splits : int >= 1, default=500
        A tree stops earlier when no node can be split: each split separates the points of
        its half, so at most ``N / 2`` splits are made whatever ``max_splits``.
    min_size : int >= 1, default=10
    n_bins : int >= 2, default=8
        Quantile bins per feature. More than the ``N`` points are used as ``N``: the ``N - 1``
        inner quantiles (linear interpolation) already put an edge between any two distinct
        values of a feature (up to rounding), so more bins split no further and would only
        cost memory (``n_features x n_bins`` counts at every split).
    delta : float in (0, 1) or None, default=None
        Confidence parameter of the bound; None: ``max(0.025, 1 / (1 + 0.004 N))``.
    %(bootstrap_params)s

    Attributes
    ----------
    prior_ : float
    c_ : float
        Estimated label frequency.
    %(bootstrap_attributes)s

    References
    ----------
    J. Bekker, J. Davis, "Estimating the class prior in positive and unlabeled data through
    decision tree induction", AAAI 2018.

    """

    __module__ = PUBLIC_MODULE

    _BEPP_K = 5

    _parameter_constraints: dict = {
        **PriorEstimator._parameter_constraints,
        "n_folds": [Integer(1)],
        "n_iter": [Integer(1, _TICE_MAX_ITER)],
        "max_splits": [Integer(1)],
        "min_size": [Integer(1)],
        "n_bins": [Integer(2)],
        "delta": [None, Real(0.0, 1.0)],
    }

    _fitted_attributes: dict = {"c_": Fitted("float", low=0.0)}

    def __init__(
        self,
        *,
        n_folds: int = 5,
        n_iter: int = 2,
        max_splits: int = 500,
        min_size: int = 10,
        n_bins: int = 8,
        delta: float | None = None,
        n_bootstrap: int = 0,
        confidence: float = 0.95,
        random_state: int | np.random.RandomState | None = None,
    ) -> None:
        set_init_params(self, locals())

    def _check_memory(self, n_labeled, n_unlabeled, n_features, params):
        """The dense X and its bin indices, the counts of a split (``n_features x n_bins``)
        and the subsets' counts kept for the iterations (``n_folds`` trees)."""
        super()._check_memory(n_labeled, n_unlabeled, n_features, params)
        N, d = n_labeled + n_unlabeled, n_features
        check_dense_budget(  # sparse input is densified
            16.0 * N * d,
            f"TIcE bins every feature of every point: {N:,} x {d:,} dense arrays",
            "select features first (e.g. with sklearn.feature_selection), or use ElkanNoto or "
            "KM2, which read sparse X as it is",
        )
        nb = min(params["n_bins"], N)
        check_dense_budget(  # the quantile levels, then about nine d x nb arrays per split
            8.0 * nb + 72.0 * d * nb,
            f"TIcE with n_bins={params['n_bins']:,} counts {d:,} features x {nb:,} bins at "
            "every split",
            "lower n_bins (default 8)",
        )
        nodes = 2 * min(params["max_splits"], N // 2 + 1) + 2
        check_dense_budget(
            48.0 * params["n_folds"] * nodes,
            f"TIcE with n_folds={params['n_folds']:,} keeps the counts of up to {nodes:,} "
            "subsets per halving",
            "lower n_folds (default 5)",
        )

    def _estimate(self, Xp, Xu, rng, params):
        p, n = Xp.shape[0], Xu.shape[0]
        X = np.vstack([_dense(Xp), _dense(Xu)])
        lab = np.r_[np.ones(p, dtype=bool), np.zeros(n, dtype=bool)]
        N = p + n
        nb = min(params["n_bins"], N)  # more bins split no further (see n_bins)
        # bin index of every value: feature j split at its inner quantiles
        B = np.empty(X.shape, dtype=np.int64)
        for j in range(X.shape[1]):
            edges = np.unique(np.quantile(X[:, j], np.arange(1, nb) / nb))
            B[:, j] = np.searchsorted(edges, X[:, j], side="right")
        delta = params["delta"] or max(0.025, 1.0 / (1.0 + 0.004 * N))
        halves = []
        for _ in range(params["n_folds"]):
            perm = rng.permutation(N)
            halves.append((perm[: N // 2], perm[N // 2 :]))
        subsets = [
            _tice_subsets(B, lab, a, b, nb, params["max_splits"], params["min_size"])
            for a, b in halves
        ]
        c = _tice_iterate(subsets, params["n_iter"], delta)
        c = min(max(c, p / N), 1.0)
        # at c = p / N the prior is 1 in exact arithmetic; rounding can give 1 + 2e-16
        prior = min(prior_from_label_frequency(c, p, n), 1.0)
        return prior, {"c_": c}


def _dense(X):
    return X.toarray() if sp.issparse(X) else X


def _tice_subsets(B, lab, tree_idx, est_idx, nb, max_splits, min_size):
    """One TIcE halving: grow the tree on tree_idx (its splits do not depend on c) and return
    the (labeled, total) counts on est_idx of the root and of every child, those with fewer
    than min_size points left out (their bound is 0), and whether any was."""
    k = TIcE._BEPP_K
    d = B.shape[1]
    counts, small = [], False

    def keep(child_e):
        nonlocal small
        if child_e.size < min_size:
            small = True
        else:
            counts.append((lab[child_e].sum(), child_e.size))

    keep(est_idx)
    counter = 0
    heap = [(-lab[tree_idx].sum() / (tree_idx.size + k), counter, tree_idx, est_idx)]
    splits = 0
    offsets = np.arange(d) * nb
    while heap and splits < max_splits:
        _, _, ta, te = heapq.heappop(heap)
        if ta.size < min_size:
            continue
        Bt = B[ta]
        flat = (Bt + offsets).ravel()
        tot = np.bincount(flat, minlength=d * nb).reshape(d, nb)
        labc = np.bincount(flat, weights=np.repeat(lab[ta], d), minlength=d * nb).reshape(d, nb)
        T_left, L_left = np.cumsum(tot, 1)[:, :-1], np.cumsum(labc, 1)[:, :-1]
        T_right, L_right = ta.size - T_left, lab[ta].sum() - L_left
        valid = (T_left > 0) & (T_right > 0)
        if not valid.any():
            continue
        bepp = np.maximum(L_left / (T_left + k), L_right / (T_right + k))
        bepp[~valid] = -np.inf
        j, t = np.unravel_index(int(np.argmax(bepp)), bepp.shape)
        splits += 1
        left_a, left_e = B[ta, j] <= t, B[te, j] <= t
        for child_a, child_e in ((ta[left_a], te[left_e]), (ta[~left_a], te[~left_e])):
            keep(child_e)
            counter += 1
            prio = -lab[child_a].sum() / (child_a.size + k)
            heapq.heappush(heap, (prio, counter, child_a, child_e))
    L, T = np.array(counts, dtype=np.float64).reshape(-1, 2).T
    return L, T, small


def _tice_iterate(subsets, n_iter, delta):
    """``n_iter`` iterations of ``c <- mean over halvings of max over subsets S of
    L_S / T_S - sqrt(c (1 - c) (1 - delta) / (delta T_S))`` (Cantelli's lower bound; 0 for
    the subsets below min_size) from ``c = 0.5``. Each ``c`` is a function of the previous one
    alone, so once a value repeats the rest of the sequence is its cycle: the iterations left
    are read off it, not computed."""
    # one array over all halvings, each halving's subsets then one slot for its floor
    L = np.concatenate([np.r_[h[0], 0.0] for h in subsets])
    T = np.concatenate([np.r_[h[1], 1.0] for h in subsets])
    ends = np.cumsum([h[0].size + 1 for h in subsets]) - 1
    starts = np.r_[0, ends[:-1] + 1]
    floors = np.array([0.0 if h[2] else -np.inf for h in subsets])
    ratio, scale = L / T, delta * T
    seen, history, c = {}, [], 0.5
    for it in range(n_iter):
        if c in seen:  # periodic from seen[c] on: c_{n_iter} is on the cycle
            first = seen[c]
            return history[first + (n_iter - first) % (it - first)]
        seen[c] = it
        history.append(c)
        # c (1 - c) >= 0 on [0, 1]; a bound below 0 (c < 0) is read as no variance term
        vals = ratio - np.sqrt(max(c * (1 - c), 0.0) * (1 - delta) / scale)
        vals[ends] = floors
        c = float(np.mean(np.maximum.reduceat(vals, starts)))
    return c
