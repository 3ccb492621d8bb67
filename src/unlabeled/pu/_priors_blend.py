"""Blend, ``PUSVC(prior="auto")``'s estimator: the mean of repeated best-bin and TIcE
estimates."""

from __future__ import annotations

import warnings
from collections.abc import Iterable

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, clone
from sklearn.model_selection import StratifiedKFold

from .._budget import check_dense_budget
from .._validation import (
    Instance,
    Integer,
)
from ..base import (
    Fitted,
    InvalidParameterError,
    set_init_params,
)
from ..registry import Case, register
from ._priors_base import PriorEstimator, check_classifier, shared_docs, sq_dists, stacked
from ._priors_bins import best_bin
from ._priors_frequency import TIcE

#: the public module of these estimators: their model files and pickles name them there
PUBLIC_MODULE = "unlabeled.pu.priors"


# ------------------------------------------------------------------------------- Blend
#: Blend's repeats and TIcE's halvings: about this many points' worth of each (at least 2,
#: at most _BLEND_MAX_REPEATS repeats and _BLEND_MAX_HALVINGS halvings), so that small
#: samples, whose estimates vary most, are averaged most
_BLEND_WORK = 40_000
_BLEND_MAX_REPEATS = 50
_BLEND_MAX_HALVINGS = 200
_BLOCK_BYTES = 32 * 2**20  # the kernel scorer's row blocks


@shared_docs(
    "the folds, the subsamples and TIcE's halvings",
    example=(0.2, 0.45),
    see_also="Bracket BestBin TIcE",
)
@register(
    family="pu",
    summary="class prior: the mean of repeated BestBin and TIcE (prior='auto')",
    cases=(Case({"random_state": 0, "n_repeats": 2}),),
)
class Blend(PriorEstimator):
    r"""Class prior as the mean of two estimates that err in opposite directions, each
    averaged over repeated random splits: the estimator of :class:`~unlabeled.PUSVC`'s
    ``prior="auto"``.

    *From above*: best-bin estimation (:class:`BestBin`, Garg et al. 2021). For any score and
    cut ``c``, the shares ``q_U(c)`` and ``q_P(c)`` of unlabeled and labeled points at or
    above it satisfy ``q_U(c) >= pi q_P(c)``: every ratio bounds ``pi`` from above, and the
    best cut's ratio errs high wherever the top bin holds negatives. The scores are held out
    (``cv``-fold cross-fitting, stratified on the labels) and come from two scorers of
    labeled against unlabeled points that need no training beyond sums over the training
    folds' points ``P_tr`` and ``U_tr``: a linear one, the difference of the class means,
    and a nonlinear one, the ratio of Gaussian-kernel (Parzen) density estimates,

    .. math::

        z_{lin}(x) = x^\top \bigl(\bar x_{P_{tr}} - \bar x_{U_{tr}}\bigr),\qquad
        z_{ker}(x) = \frac{\frac{1}{|P_{tr}|}\sum_{j \in P_{tr}} k(x, x_j)}
                          {\frac{1}{|U_{tr}|}\sum_{j \in U_{tr}} k(x, x_j)},\qquad
        k(x, y) = e^{-\gamma \|x - y\|^2},\ \gamma = \frac{1}{d\, \mathrm{Var}(X)}

    (the kernel width of :class:`~unlabeled.PUSVC`'s ``gamma="scale"``; ``z_ker`` orders the
    points as the Bayes classifier of the two density estimates does), and any classifiers
    in ``scorers``. As each scorer's ratio bounds ``pi`` from above, the least of the
    scorers' estimates is taken; that is repeated on ``R`` random fold splits and averaged,

    .. math::  \hat\pi_{up} = \frac1R \sum_{r=1}^R \min_{k} \hat\pi^{BBE}_{k,r}.

    *From below* (with few labeled positives): :class:`TIcE` (Bekker and Davis 2018), whose
    label frequency is the largest of lower bounds over many subsets, which noise raises
    when few positives are labeled, so that its prior errs low there (either way with many
    labels), averaged over many random halvings (``lower``). The estimate is the mean

    .. math::  \hat\pi = \tfrac12 \bigl(\hat\pi_{TIcE} + \hat\pi_{up}\bigr).

    Where the two lie on opposite sides of ``pi`` the mean's error is at most half the
    larger one. Equal weights are what the measurements chose, not a tuned constant: on the
    tuning half of the issue-51 suite (``benchmarks/_harness/pu_tables.py``: 13 tables of
    189 to 2,100 training rows, 1%, 5% and 20% of the positives labeled, 2 labelings) the
    weight of TIcE that minimised the mean absolute error (with logistic-regression and SVM
    scorers) lay between 0.4 and 0.7 at every number of labeled positives from 2 to 200.
    There, over 5 values of ``random_state``, the mean absolute error was 0.19 / 0.09 /
    0.06 at 1% / 5% / 20%, against at best 0.22 / 0.16 / 0.08 for a single estimator of
    this module; the standard deviation over ``random_state`` was at most 0.016 on every
    table and labeling; ``bracket_`` held the truth in 95% / 97% / 88% of fits.

    With fewer than 2 labeled positives (or unlabeled points) no point can be scored by a
    model trained without it on both classes, nothing bounds ``pi`` from above, and the
    estimate is the midpoint of ``bracket_`` (``TIcE``'s estimate to ``1 - 1 / (2 n)``), the
    value whose largest error over it is least.

    ``bracket_ = (low, high)`` is an interval of plausible priors: ``high`` is the median over
    repeats of the least of :class:`BestBin`'s upper confidence bounds at level
    ``confidence`` (uniform over the cuts: valid whether or not a bin is free of negatives);
    ``low`` is the least of ``TIcE``'s estimate, ``\hat\pi_{up}`` and the median over
    repeats of the least ratio at the chosen cut with both shares at the far ends of their
    Dvoretzky-Kiefer-Wolfowitz bands at level ``sqrt(confidence)``, ``(q_U - e_n) / (q_P +
    e_p)``, ``e_m = sqrt(log(2 / (1 - sqrt(confidence))) / (2 m))``: the bands hold at every
    cut at once, so also at a cut chosen from the data. ``low`` is not a confidence bound for
    ``pi``: where the classes overlap, every ratio exceeds ``pi`` and so may ``low``. The
    estimate and both ends are kept inside ``[1 / (2 n), 1 - 1 / (2 n)]`` for ``n``
    unlabeled points, the shares that ``n`` points tell apart from 0 and 1: an upper end
    there means that the data bound ``pi`` by nothing better than 1. A wide interval says
    that the data hold little information on ``pi`` (:class:`~unlabeled.PUSVC` warns from a
    width of 0.3).

    Parameters
    ----------
    scorers : sequence of classifiers or None, default=None
        Scorers besides the two above: classifiers of labeled (1) against unlabeled (0)
        points, each with ``fit`` and ``decision_function`` or ``predict_proba`` (the
        positive column); only the order of their scores matters. Cloned for each fold of
        each repeat (``cv R`` fits each); a ``random_state`` left at None is set from
        ``random_state``. None: none. E.g. ``[LogisticRegression(class_weight="balanced")]``.
    lower : prior estimator or None, default=None
        The estimate from below; None: ``TIcE`` with ``ceil(40000 / N)`` halvings (at least
        2, at most 200: about 40,000 points' worth of trees). Cloned, with ``random_state``
        set from this estimator's.
    n_repeats : int in [1, 100] or None, default=None
        Repeats ``R`` of the cross-fitting on new random folds. None: ``ceil(40000 / N)`` for
        ``N`` points, at least 2 and at most 50 (small samples, whose estimates vary most,
        are averaged most). The kernel is computed once for all repeats (``N x
        min(N, max_samples)`` values).
    cv : int >= 2, default=5
        Cross-fitting folds (at most the number of labeled positives and of unlabeled
        points).
    max_samples : int >= 2 or None, default=2000
        The scorers learn from at most this many points: all labeled positives and a random
        subset of the unlabeled points (the kernel's columns; each fold's training part of
        them); every point is scored. Bounds the kernel's work at ``N x max_samples``.
        None: all.
    %(bootstrap_params)s

    Attributes
    ----------
    prior_ : float
    bracket_ : tuple (low, high)
        Plausible priors, inside ``(0, 1)``; see above.
    lower_estimate_ : float
        ``lower``'s estimate.
    upper_estimate_ : float
        ``\hat\pi_{up}``, the mean over repeats of the least best-bin estimate; ``high``
        with fewer than 2 labeled positives or unlabeled points.
    n_repeats_ : int
        The repeats ``R`` used.
    %(bootstrap_attributes)s

    References
    ----------
    S. Garg, Y. Wu, A. J. Smola, S. Balakrishnan, Z. C. Lipton, "Mixture proportion
    estimation and PU learning: a modern approach", NeurIPS 2021. J. Bekker, J. Davis,
    "Estimating the class prior in positive and unlabeled data through decision tree
    induction", AAAI 2018. V. Chernozhukov et al., "Double/debiased machine learning for
    treatment and structural parameters", Econometrics Journal 21, 2018 (repeated
    cross-fitting, aggregated).

    """

    __module__ = PUBLIC_MODULE

    _parameter_constraints: dict = {
        **PriorEstimator._parameter_constraints,
        # "scorers" is checked by its members' methods, in _check_values
        "lower": [None, Instance((PriorEstimator,), "a prior estimator such as TIcE()")],
        "n_repeats": [None, Integer(1, 100)],
        "cv": [Integer(2)],
        "max_samples": [None, Integer(2)],
    }

    _fitted_attributes: dict = {
        "bracket_": Fitted("floats", (2,), above=0.0, below=1.0),
        "lower_estimate_": Fitted("float"),
        "upper_estimate_": Fitted("float"),
        "n_repeats_": Fitted("int", low=1),
    }

    def __init__(
        self,
        scorers: Iterable[BaseEstimator] | None = None,
        lower: PriorEstimator | None = None,
        *,
        n_repeats: int | None = None,
        cv: int = 5,
        max_samples: int | None = 2000,
        n_bootstrap: int = 0,
        confidence: float = 0.95,
        random_state: int | np.random.RandomState | None = None,
    ) -> None:
        set_init_params(self, locals())

    def _check_values(self, params):
        """``scorers``: None or a sequence of classifiers with a score method."""
        scorers = self.scorers
        if scorers is not None:
            if isinstance(scorers, (BaseEstimator, str)) or not isinstance(scorers, Iterable):
                raise InvalidParameterError(
                    "scorers must be None or a sequence of classifiers (e.g. "
                    f"[LogisticRegression()]), got {scorers!r}"
                )
            scorers = tuple(scorers)
            for i, est in enumerate(scorers):
                needs = ("decision_function", "predict_proba")
                check_classifier(est, needs, "LogisticRegression()", f"scorers[{i}]", none=False)
        return {**params, "scorers": scorers}

    def _check_memory(self, n_labeled, n_unlabeled, n_features, params):
        """The kernel scorer's sums (``N x 2 cv R``) besides the bootstrap's."""
        super()._check_memory(n_labeled, n_unlabeled, n_features, params)
        N = n_labeled + n_unlabeled
        R = params["n_repeats"] or _BLEND_MAX_REPEATS
        check_dense_budget(
            8.0 * N * (2 * params["cv"] * R + 4),
            f"Blend keeps {2 * params['cv'] * R} kernel sums for each of {N:,} points",
            "lower n_repeats or cv",
        )

    def _estimate(self, Xp, Xu, rng, params):
        p, n = Xp.shape[0], Xu.shape[0]
        X, s = stacked(Xp, Xu)
        N = p + n
        work = max(2, -(-_BLEND_WORK // N))
        R = params["n_repeats"] or int(min(_BLEND_MAX_REPEATS, work))
        seeds = rng.randint(np.iinfo(np.int32).max, size=R + 2)
        halvings = int(min(_BLEND_MAX_HALVINGS, work))
        lower = TIcE(n_folds=halvings) if self.lower is None else clone(self.lower)
        with warnings.catch_warnings():  # ElkanNoto's out-of-range warning: clipped below
            warnings.simplefilter("ignore", RuntimeWarning)
            low_est = float(lower.set_params(random_state=int(seeds[R])).fit(X, s).prior_)
        eps = 0.5 / n
        lowc = min(max(low_est, 0.0), 1.0)
        cv = min(params["cv"], p, n)
        if cv < 2:  # no labeled positive can be held out: nothing bounds pi from above
            low, high = min(lowc, 1.0 - eps), 1.0 - eps
            prior, up = (low + high) / 2, high
        else:
            scorers = params["scorers"] or ()
            cols = _training_subset(s, params["max_samples"], np.random.RandomState(seeds[-1]))
            splits = [_folds(s, cv, int(sd)) for sd in seeds[:R]]
            linear, kernel = _built_in_scores(X, s, cols, splits)
            # the Dvoretzky-Kiefer-Wolfowitz bands of BestBin's upper bound, at the cut chosen
            a = np.sqrt(np.log(2.0 / (1.0 - np.sqrt(params["confidence"]))) / 2.0)
            ups, los, his = [], [], []
            for r, fold in enumerate(splits):
                extra = _held_out_classifiers(X, s, scorers, fold, cols, int(seeds[r]))
                z = [linear[r], kernel[r], *extra]
                ests, lo_r, hi_r = [], [], []
                for zk in z:
                    _, qp, qu, (_, hi) = best_bin(zk[:p], zk[p:], 0.1, 0.01, params["confidence"])
                    ests.append(min(1.0, qu / qp))
                    lo_r.append(max(qu - a / np.sqrt(n), 0.0) / min(qp + a / np.sqrt(p), 1.0))
                    hi_r.append(hi)
                ups.append(min(ests))
                los.append(min(lo_r))
                his.append(min(hi_r))
            up = float(np.mean(ups))
            prior = (lowc + up) / 2
            low = min(lowc, up, float(np.median(los)))
            high = max(float(np.median(his)), prior)
        lo_c, hi_c = float(np.clip(low, eps, 1.0 - eps)), float(np.clip(high, eps, 1.0 - eps))
        info = {
            "bracket_": (lo_c, hi_c),
            "lower_estimate_": low_est,
            "upper_estimate_": float(up),
            "n_repeats_": R,
        }
        return float(np.clip(prior, lo_c, hi_c)), info


def _training_subset(s, max_samples, rng):
    """The points the scorers may train on: every labeled positive and, up to
    ``max_samples`` in all (at least half of them unlabeled), unlabeled points at random."""
    pos, unl = np.flatnonzero(s == 1), np.flatnonzero(s == 0)
    if max_samples is None or s.size <= max_samples:
        return np.arange(s.size)
    keep = min(unl.size, max(max_samples - pos.size, max_samples // 2))
    return np.sort(np.r_[pos, rng.choice(unl, keep, replace=False)])


def _folds(s, cv, seed):
    """The fold of every point in one ``cv``-fold split stratified on ``s``."""
    fold = np.empty(s.size, dtype=np.int64)
    split = StratifiedKFold(cv, shuffle=True, random_state=seed)
    for k, (_, test) in enumerate(split.split(np.zeros(s.size), s)):
        fold[test] = k
    return fold


def _built_in_scores(X, s, cols, splits):
    """For each split (the fold of every point), two held-out scores of every point from the
    points of ``cols`` outside its fold: the linear ``x . (mean_P - mean_U)`` and the log
    ratio of the Gaussian-kernel density estimates of the labeled and unlabeled points,
    ``gamma = 1 / (d Var(X))``. One pass over the kernel rows for all splits: each row's sums
    over the columns of every (split, fold, class), of which a point's score leaves out its
    own fold. Returns two arrays of shape (n_splits, N)."""
    N, d = X.shape
    if sp.issparse(X):
        var = float(X.multiply(X).mean() - np.square(X.mean()))
    else:
        var = float(X.var())
    gamma = 1.0 / (d * var) if var > 0 else 1.0
    cv = int(max(f.max() for f in splits)) + 1
    R, G = len(splits), 2 * cv
    # one-hot of each column's (split, fold, class): the kernel rows times it are the sums
    lab = (s[cols] == 1).astype(np.int64)
    onehot = np.zeros((cols.size, R * G))
    for r, fold in enumerate(splits):
        onehot[np.arange(cols.size), r * G + fold[cols] * 2 + lab] = 1.0
    counts = onehot.sum(0)
    Xc = X[cols]
    feature_sums = np.asarray(onehot.T @ Xc if not sp.issparse(Xc) else (Xc.T @ onehot).T)
    sums = np.empty((N, R * G))
    block = max(1, int(_BLOCK_BYTES // (8 * 3 * max(cols.size, 1))))
    for a in range(0, N, block):
        b = min(N, a + block)
        K = sq_dists(X[a:b], Xc)
        np.multiply(K, -gamma, out=K)
        np.exp(K, out=K)
        sums[a:b] = K @ onehot
    tiny = np.finfo(float).tiny
    rows = np.arange(N)
    linear, kernel = np.empty((R, N)), np.empty((R, N))
    for r, fold in enumerate(splits):
        S = sums[:, r * G : (r + 1) * G].reshape(N, cv, 2)
        C = counts[r * G : (r + 1) * G].reshape(cv, 2)
        F = feature_sums[r * G : (r + 1) * G].reshape(cv, 2, d)
        held_c = np.maximum(C.sum(0)[None, :] - C, 1.0)  # (fold, class): outside the fold
        # the kernel: each point's mean kernel value over each class outside its fold
        dens = (S.sum(1) - S[rows, fold]) / held_c[fold]
        kernel[r] = np.log(np.maximum(dens[:, 1], tiny)) - np.log(np.maximum(dens[:, 0], tiny))
        # the linear score: the difference of the class means outside each fold
        means = (F.sum(0)[None] - F) / held_c[:, :, None]  # (fold, class, d)
        w = means[:, 1] - means[:, 0]  # (fold, d)
        proj = np.asarray(X @ w.T)  # (N, fold)
        linear[r] = proj[rows, fold]
    return linear, kernel


def _held_out_classifiers(X, s, scorers, fold, cols, seed):
    """Held-out scores of every point by each of ``scorers`` (one row each), trained on the
    points of ``cols`` outside its fold (all points outside it if those lack a class)."""
    Z = np.empty((len(scorers), s.size))
    in_cols = np.zeros(s.size, dtype=bool)
    in_cols[cols] = True
    for k in range(int(fold.max()) + 1):
        test = np.flatnonzero(fold == k)
        train = np.flatnonzero(in_cols & (fold != k))
        if np.unique(s[train]).size < 2:  # few columns: the fold's own training part
            train = np.flatnonzero(fold != k)
        for j, scorer in enumerate(scorers):
            est = clone(scorer)
            if est.get_params().get("random_state", 0) is None:
                est.set_params(random_state=seed)
            est.fit(X[train], s[train])
            if hasattr(est, "decision_function"):
                Z[j, test] = np.asarray(est.decision_function(X[test]), dtype=float).ravel()
            else:
                Z[j, test] = est.predict_proba(X[test])[:, list(est.classes_).index(1)]
    return Z
