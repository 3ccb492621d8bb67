"""BestBin and Bracket: the class prior from a classifier's held-out scores (best-bin
estimation)."""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.base import BaseEstimator, clone

from .._validation import (
    Instance,
    Integer,
    Real,
)
from ..base import (
    Fitted,
    set_init_params,
)
from ..registry import Case, register
from ._priors_base import (
    PriorEstimator,
    check_classifier,
    default_scorer,
    fold_fits,
    shared_docs,
    stacked,
)
from ._priors_frequency import TIcE

#: the public module of these estimators: their model files and pickles name them there
PUBLIC_MODULE = "unlabeled.pu.priors"


# ------------------------------------------------------------------------ best-bin estimation


def _held_out_scores(X, s, estimator, cv, seed):
    """Scores of every point by a classifier of labeled (1) against unlabeled (0) points that
    was not trained on it (``cv``-fold cross-fitting, stratified on ``s``)."""
    scores = np.empty(s.size)
    for est, test in fold_fits(X, s, estimator, default_scorer, cv, seed):
        if hasattr(est, "decision_function"):
            scores[test] = np.asarray(est.decision_function(X[test]), dtype=float).ravel()
        else:
            scores[test] = est.predict_proba(X[test])[:, list(est.classes_).index(1)]
    return scores


def _upper_fractions(sorted_scores, cuts):
    """The share of ``sorted_scores`` at or above each cut."""
    return 1.0 - np.searchsorted(sorted_scores, cuts, side="left") / sorted_scores.size


def best_bin(score_p, score_u, delta, gamma, confidence):
    """Garg et al.'s top bin and the interval of ``BestBin.bin_interval_``: (cut, q_p, q_u,
    (lo, hi))."""
    sp_, su = np.sort(score_p), np.sort(score_u)
    p, n = sp_.size, su.size
    cuts = np.unique(sp_)  # q_p changes only at the positives' scores; q_u is smallest there
    qp, qu = _upper_fractions(sp_, cuts), _upper_fractions(su, cuts)
    eps = np.sqrt(np.log(4.0 / delta) / 2.0) * (1 / np.sqrt(p) + 1 / np.sqrt(n))
    i = int(np.argmin((qu + (1.0 + gamma) * eps) / qp))
    # lo: the ratio at the cut with both shares at the ends of their exact binomial intervals;
    # hi: uniform in the cut (Dvoretzky-Kiefer-Wolfowitz bands on both shares), so it bounds
    # pi from above whether or not any bin is free of negatives
    level = np.sqrt(confidence)
    qp_hi = _binomial_interval(round(qp[i] * p), p, level)[1]
    qu_lo = _binomial_interval(round(qu[i] * n), n, level)[0]
    a = np.sqrt(np.log(2.0 / (1.0 - level)) / 2.0)
    lower_p = qp - a / np.sqrt(p)
    ok = lower_p > 0
    hi = np.min((qu[ok] + a / np.sqrt(n)) / lower_p[ok]) if ok.any() else 1.0
    ratio = qu[i] / qp[i]
    interval = (min(1.0, qu_lo / qp_hi), min(1.0, max(float(hi), ratio)))
    return float(cuts[i]), float(qp[i]), float(qu[i]), interval


def _binomial_interval(k, n, level):
    """Clopper-Pearson interval of a proportion k / n at ``level``."""
    from scipy.stats import beta as beta_dist

    a = (1.0 - level) / 2.0
    lo = 0.0 if k == 0 else float(beta_dist.ppf(a, k, n - k + 1))
    hi = 1.0 if k == n else float(beta_dist.ppf(1.0 - a, k + 1, n - k))
    return lo, hi


@shared_docs("the cross-fitting folds", example=(0.2, 0.4), see_also="TIcE KM1")
@register(
    family="pu",
    summary="class prior: the best bin of a classifier's scores",
    cases=(Case({"random_state": 0}),),
)
class BestBin(PriorEstimator):
    r"""Class prior by best-bin estimation (BBE) of Garg, Wu, Smola, Balakrishnan and Lipton
    (NeurIPS 2021) on held-out scores of a classifier of labeled against unlabeled points.

    The unlabeled points are a sample of the mixture ``F = pi H + (1 - pi) G`` of the positive
    and negative distributions, the labeled positives a sample of ``H``. For any score ``z``
    and cut ``c``, with ``q_H(c) = P_H(z >= c)`` and the same for ``F`` and ``G``,

    .. math::  q_F(c) = \pi\, q_H(c) + (1 - \pi)\, q_G(c) \ \ge\ \pi\, q_H(c),

    so every ratio ``q_F(c) / q_H(c)`` bounds ``pi`` from above, with equality on a top bin
    that holds no negative. The score is that of a classifier trained to tell labeled from
    unlabeled points, which ranks the positives first; every point is scored by a model not
    trained on it (``cv``-fold cross-fitting, stratified on the labels, so that all points
    count, where the paper holds out one split). With the empirical fractions ``\hat q_P``
    and ``\hat q_U`` of the ``p`` labeled and ``n`` unlabeled held-out scores at or above
    ``c``, the cut minimises the ratio's upper confidence bound

    .. math::

        \hat c = \arg\min_c \frac{\hat q_U(c) + (1 + \gamma)\,\epsilon}{\hat q_P(c)},\qquad
        \epsilon = \sqrt{\tfrac{\log(4/\delta)}{2}}\Bigl(\tfrac{1}{\sqrt{p}} +
        \tfrac{1}{\sqrt{n}}\Bigr),

    and ``prior_ = q_U(c) / q_P(c)`` there (clipped to 1). The paper bounds its error by
    ``O(1 / q_H(c*) (1/sqrt(p) + 1/sqrt(n)))``: with few labeled positives the estimate is
    only as good as its ``p``, and ``bin_interval_`` says so.

    Parameters
    ----------
    estimator : classifier or None, default=None
        Scores labeled (1) against unlabeled (0) points through ``decision_function`` (or
        the positive column of ``predict_proba``); cloned for each fold. Only the order of
        the scores matters. None: ``LogisticRegression(class_weight="balanced",
        max_iter=1000)``, which reads sparse ``X`` as it is. Its ``random_state``, if left
        at None, is set from ``random_state``.
    cv : int >= 2, default=5
        Cross-fitting folds, at most the number of labeled positives (fewer are used when
        there are fewer labeled positives; at least 2 are needed).
    delta : float in (0, 1), default=0.1
        Confidence parameter of the bound that chooses the cut (the paper's).
    gamma : float >= 0, default=0.01
        Slack of that bound (the paper's).
    %(bootstrap_params)s

    Attributes
    ----------
    prior_ : float
    cut_ : float
        The chosen cut ``c`` on the held-out scores.
    top_labeled_, top_unlabeled_ : float
        ``q_P(c)`` and ``q_U(c)``: the shares of labeled and unlabeled points at or above it.
    bin_interval_ : tuple (lo, hi)
        Always computed, with no refit, at level ``confidence``. ``hi`` bounds ``pi`` from
        above at every cut at once: ``min_c (q_U(c) + e_n) / (q_P(c) - e_p)`` with the
        Dvoretzky-Kiefer-Wolfowitz band ``e_m = sqrt(log(2 / (1 - sqrt(confidence))) /
        (2 m))`` of each share, valid whether or not a bin is free of negatives. ``lo`` is
        the ratio at the chosen cut with both shares at the ends of their exact binomial
        (Clopper-Pearson) intervals at level ``sqrt(confidence)``: it bounds ``pi`` from
        below only if that bin holds no negative. Where the classes overlap the estimate
        lies above ``pi`` (a bin that holds negatives raises it), and ``lo`` may too.
    %(bootstrap_attributes)s

    References
    ----------
    S. Garg, Y. Wu, A. J. Smola, S. Balakrishnan, Z. C. Lipton, "Mixture proportion
    estimation and PU learning: a modern approach", NeurIPS 2021.

    """

    __module__ = PUBLIC_MODULE

    _min_unlabeled = 2  # (its folds' classifiers)

    _parameter_constraints: dict = {
        **PriorEstimator._parameter_constraints,
        # "estimator" is checked by its methods, in _check_values
        "cv": [Integer(2)],
        "delta": [Real(0.0, 1.0)],
        "gamma": [Real(0.0, low_open=False)],
    }

    _fitted_attributes: dict = {
        "cut_": Fitted("float"),
        "top_labeled_": Fitted("float", above=0.0, high=1.0),
        "top_unlabeled_": Fitted("float", low=0.0, high=1.0),
        "bin_interval_": Fitted("floats", (2,), low=0.0, high=1.0),
    }

    def __init__(
        self,
        estimator: BaseEstimator | None = None,
        *,
        cv: int = 5,
        delta: float = 0.1,
        gamma: float = 0.01,
        n_bootstrap: int = 0,
        confidence: float = 0.95,
        random_state: int | np.random.RandomState | None = None,
    ) -> None:
        set_init_params(self, locals())

    def _check_values(self, params):
        """``estimator``: None or a classifier with ``fit`` and a score method."""
        needs = ("decision_function", "predict_proba")
        check_classifier(self.estimator, needs, "LogisticRegression()")
        return params

    def _check_sizes(self, n_labeled, n_unlabeled, params):
        if n_labeled < 2:
            raise ValueError(
                "BestBin scores every labeled positive by a model trained without it, which "
                f"needs at least 2 labeled positives (s == 1), got {n_labeled}: label more "
                "positives, or pass the prior as a number"
            )

    def _estimate(self, Xp, Xu, rng, params):
        p = Xp.shape[0]
        X, s = stacked(Xp, Xu)
        seed = int(rng.randint(np.iinfo(np.int32).max))
        z = _held_out_scores(X, s, self.estimator, min(params["cv"], p), seed)
        cut, qp, qu, interval = best_bin(
            z[:p], z[p:], params["delta"], params["gamma"], params["confidence"]
        )
        info = {"cut_": cut, "top_labeled_": qp, "top_unlabeled_": qu, "bin_interval_": interval}
        return min(1.0, qu / qp), info


@shared_docs("the estimators' folds and halvings", example=(0.2, 0.45), see_also="BestBin TIcE")
@register(
    family="pu",
    summary="class prior: an interval bracketing several estimators",
    cases=(Case({"random_state": 0}),),
)
class Bracket(PriorEstimator):
    r"""Class prior as the midpoint of an interval of plausible priors (the estimator of
    :class:`~unlabeled.PUSVC`'s ``prior="auto"`` before :class:`Blend`).

    The interval ``[low, high]`` is built from two estimators that err in opposite
    directions. ``high`` is :class:`BestBin`'s upper confidence bound (the high end of its
    ``bin_interval_``): every cut ``c`` of a score gives ``q_U(c) / q_P(c) >= pi``, and the
    bound holds at every cut at once at level ``confidence``, whether or not the classes
    overlap. ``low`` is the smaller of :class:`TIcE`'s estimate, which errs low when few of
    the positives are labeled (its label frequency is the largest of many lower bounds over
    subsets, which noise raises), and the low end of ``BestBin``'s interval. The estimate

    .. math::  \hat\pi = \frac{low + high}{2}

    is the value whose largest absolute error over the interval is least. With many labeled
    positives the interval is narrow and the estimate close to both ends; with few it is wide
    and the estimate moves to its middle: with fewer than 2 labeled positives ``BestBin``
    cannot score them held out and ``high = 1`` (the data bound nothing), so the estimate is
    ``(low + 1) / 2``. Measured with ``PUSVC(prior="auto")`` on the 12 UCI sets and the Adult
    and Shuttle tables at 1%, 5% and 20% of the positives labeled in
    ``benchmarks/archive/bench_pu_defaults-2026-11-28.md``; :class:`Blend` replaced it as the
    default (``benchmarks/results/bench_pu_defaults.md``).

    Parameters
    ----------
    upper : BestBin or None, default=None
        The estimator of ``high``; None: ``BestBin()``. Cloned, with ``random_state`` and
        ``confidence`` set from this estimator's.
    lower : prior estimator or None, default=None
        The estimator whose estimate bounds ``low`` from above; None: ``TIcE()``. Cloned,
        with ``random_state`` set from this estimator's.
    %(bootstrap_params)s

    Attributes
    ----------
    prior_ : float
    bracket_ : tuple (low, high)
        The interval of plausible priors; ``prior_`` is its midpoint.
    lower_estimate_, upper_estimate_ : float
        The estimates of ``lower`` and ``upper`` (both ``lower``'s with fewer than 2 labeled
        positives).
    %(bootstrap_attributes)s

    References
    ----------
    S. Garg, Y. Wu, A. J. Smola, S. Balakrishnan, Z. C. Lipton, "Mixture proportion
    estimation and PU learning: a modern approach", NeurIPS 2021. J. Bekker, J. Davis,
    "Estimating the class prior in positive and unlabeled data through decision tree
    induction", AAAI 2018.

    """

    __module__ = PUBLIC_MODULE

    _min_unlabeled = 2  # (its folds' classifiers)

    _parameter_constraints: dict = {
        **PriorEstimator._parameter_constraints,
        "upper": [None, Instance((BestBin,), "a BestBin()")],
        "lower": [None, Instance((PriorEstimator,), "a prior estimator such as TIcE()")],
    }

    _fitted_attributes: dict = {
        "bracket_": Fitted("floats", (2,), low=0.0, high=1.0),
        "lower_estimate_": Fitted("float"),
        "upper_estimate_": Fitted("float"),
    }

    def __init__(
        self,
        upper: BestBin | None = None,
        lower: PriorEstimator | None = None,
        *,
        n_bootstrap: int = 0,
        confidence: float = 0.95,
        random_state: int | np.random.RandomState | None = None,
    ) -> None:
        set_init_params(self, locals())

    def _estimate(self, Xp, Xu, rng, params):
        p = Xp.shape[0]
        X, s = stacked(Xp, Xu)
        seeds = rng.randint(np.iinfo(np.int32).max, size=2)
        lower = TIcE() if self.lower is None else clone(self.lower)
        with warnings.catch_warnings():  # ElkanNoto's out-of-range warning: clipped below
            warnings.simplefilter("ignore", RuntimeWarning)
            low_est = float(lower.set_params(random_state=int(seeds[0])).fit(X, s).prior_)
        low, high, high_est = min(max(low_est, 0.0), 1.0), 1.0, low_est
        if p >= 2:  # BestBin scores every labeled positive by a model trained without it
            upper = BestBin() if self.upper is None else clone(self.upper)
            upper.set_params(random_state=int(seeds[1]), confidence=params["confidence"])
            high_est = float(upper.fit(X, s).prior_)
            lo, high = upper.bin_interval_
            low = min(low, lo)
        info = {
            "bracket_": (float(low), float(max(high, low))),
            "lower_estimate_": low_est,
            "upper_estimate_": high_est,
        }
        return (low + max(high, low)) / 2, info
