"""The classic PU classifiers that users compare against, each an SVM on the engine.

* :class:`BiasedSVM`: the unlabeled points as negatives with class weights (Liu, Dai, Li, Lee
  and Yu 2003), the unlabeled box and the positive weight chosen by the Lee-Liu criterion on
  held-out folds;
* :class:`BaggingPUClassifier`: the bagging SVM of Mordelet and Vert (2014), the mean of SVMs
  of the labeled positives against bootstrap samples of the unlabeled points, with
  out-of-bag scores (or of any scikit-learn classifier, ``estimator=``);
* :class:`ElkanNotoClassifier`: Elkan and Noto (2008), a calibrated classifier of labeled
  against unlabeled points divided by the label frequency ``c`` (plain), or the unlabeled
  points duplicated as weighted positives and negatives (weighted).

Each solves the dual of a C-SVM with per-variable boxes,

.. math::

    \\min_a \\tfrac12 a^\\top Q a - 1^\\top a \\quad\\text{s.t.}\\quad
    0 \\le a_t \\le C_t,\\ y^\\top a = 0, \\qquad Q_{ts} = y_t y_s k(x_{p(t)}, x_{p(s)}),

on the engine's pairwise solver (``solve_kernel_qp``: variables mapped to points, so a point
may carry several variables, as the duplicated points of a bootstrap or of the weighted
Elkan-Noto method), and stores ``f(x) = sum_t a_t y_t k(x_{p(t)}, x) + b`` as one kernel
expansion (a mean of such expansions is one too: the bagging SVM's model is a single
expansion, saved like any other).
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.base import BaseEstimator, clone
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted, has_fit_parameter, validate_data

from .. import _engine
from .._budget import check_dense_budget
from .._calibration import (
    ProbabilisticMixin,
    calibration_folds,
    platt_sigmoid,
    pu_sigmoid,
    sigmoid_proba,
)
from .._solving import engine_data, resolve_max_iter, warn_not_converged
from .._validation import (
    MAX_C,
    MAX_CACHE_MB,
    RANDOM_STATE,
    Boolean,
    Instance,
    Integer,
    Options,
    Real,
    check_not_strings,
    check_pu_labels,
)
from ..base import (
    ANY_FINITE,
    ArrayLike,
    Fitted,
    KernelClassifier,
    MatrixLike,
    fill_docstring,
    set_init_params,
)
from ..exceptions import ModelFileError
from ..metrics import lee_liu_score
from ..registry import Case, register
from ._base import engine_settings
from .priors import prior_from_label_frequency
from .sar import checked_propensity

#: BiasedSVM's default grids: the unlabeled points' box C_- (small: the unlabeled positives
#: may stay on the wrong side) and the positive weight, in units of n_unlabeled / n_labeled
#: (1: both classes weigh the same in all; above 1 the labeled positives weigh more, as the
#: unlabeled "negatives" hold positives). On the PU suite (3,000 rows, 5% and 20% labeled,
#: krvskp, heart, digits, australian) the test F1 was best at C_- of 0.01 or 0.1 and worst
#: at 1 or 10; the weight mattered less, 4 better than 1 where C_- = 0.01 at 5%
C_GRID = (0.01, 0.1, 1.0)
WEIGHT_GRID = (1.0, 4.0)
#: the most estimators of a bagging fit
MAX_ESTIMATORS = 10_000

_SHARED_DOC = {
    "svm_params": """C : float > 0, default=1.0
        The box of the SVMs' dual (the weight of the hinge loss against ``||f||^2 / 2``).
    kernel : {"rbf", "linear", "poly", "precomputed"}, default="rbf"
    gamma : {"scale", "auto"} or float >= 0, default="scale"
    degree : int, default=3
    coef0 : float, default=0.0
        The kernel, as for :class:`sklearn.svm.SVC` (``"scale"``: ``1 / (d var(X))`` on all
        the training points, shared by every SVM of the fit).
    tol : float > 0, default=1e-3
        The engine's KKT tolerance.
    cache_size : float, default=200
        MB of kernel rows kept (one cache for every SVM of the fit).
    max_iter : int >= 1 or None, default=None
        The solver's steps per SVM at most (None: ``max(10^7, 100 n)``); a solve stopped there
        warns.
    n_jobs : int, -1 or None, default=None
        Threads of the engine's kernel rows (None: 1; -1: the cores this process may use).
        The SVMs are solved one after the other, so the threads never exceed ``n_jobs``.""",
    "probability": """probability : bool, default=False
        Enable ``predict_proba``: a sigmoid ``P(y = 1 | x) = 1 / (1 + exp(A f(x) + B))``
        fitted by the PU log-likelihood (as :class:`~unlabeled.PUSVC`'s ``probability=True``)
        to held-out decision values (:class:`BiasedSVM`: of its ``cv`` folds;
        :class:`BaggingPUClassifier`: of 5 internal folds, 5 more bagging fits), at the prior
        ``prior_`` = the share of held-out unlabeled points with ``f > 0`` (the method's own
        estimate: it needs no prior).""",
}


def _kernel_rows(est, X, params):
    """One row cache over every training point, for all the SVMs of a fit."""
    return _engine.KernelRows(
        engine_data(X, est.kernel),
        rows=np.arange(X.shape[0], dtype=np.int32),
        **engine_settings(est, params["cache_size"], params["n_jobs"]),
    )


def solve_svm(est, rows, points, y, C, params, who) -> tuple[np.ndarray, float, int]:
    """The C-SVM of the module docstring on the variables ``points`` (rows of the training
    data, repeats allowed), labels ``y`` (+-1) and boxes ``C``: ``(coef, b, n_iter)`` with
    ``coef`` the expansion coefficient of every training point (the sum of its variables'
    ``a_t y_t``) and ``b = -rho``. Variables with ``C_t = 0`` are left out."""
    keep = C > 0
    points, y, C = points[keep], y[keep], C[keep]
    max_iter = resolve_max_iter(est.max_iter, points.size)
    res = _engine.solve_kernel_qp(
        rows,
        var_point=np.ascontiguousarray(points, dtype=np.int64),
        p=-np.ones(points.size),
        C=np.ascontiguousarray(C, dtype=np.float64),
        alpha0=np.zeros(points.size),
        y=np.ascontiguousarray(y, dtype=np.int8),
        options=_engine.SolverOptions(params["tol"], True, max_iter),
    )
    if not res.converged:
        warn_not_converged(
            who,
            limit=max_iter,
            used=res.n_iter,
            default_cap=params["max_iter"] is None,
            detail=f". KKT violation {res.violation:.3g} > tol={params['tol']}.",
            stacklevel=4,
        )
    coef = np.zeros(est._n_train)
    np.add.at(coef, points, np.asarray(res.alpha) * y)
    return coef, -float(res.rho), int(res.n_iter)


def expansion_values(est, X, rows, coef, b) -> np.ndarray:
    """``f(x) = sum_i coef_i k(x_i, x) + b`` at the training points ``rows`` (``X`` the checked
    training data; a Gram matrix for ``kernel="precomputed"``)."""
    sv = np.flatnonzero(coef)
    if sv.size == 0:
        return np.full(len(rows), float(b))
    if est.kernel == "precomputed":
        return est.kernel_dot(X[np.asarray(rows)], sv, coef[sv]) + b
    return est.kernel_dot(X[np.asarray(rows)], X[sv], coef[sv]) + b


def _sar_refused(est) -> tuple:
    """What ``fit(propensity=...)`` refuses: ``probability=True``, whose sigmoid assumes
    SCAR."""
    fix = "use probability=False (its sigmoid assumes SCAR)"
    return (("probability", getattr(est, "probability", False), fix),)


def _lee_liu(mask, pred, propensity) -> float:
    """The Lee-Liu criterion ``r^2 / P(pred = 1)``; with ``propensity``, the recall weighted
    by ``1 / e`` over the labeled positives (an estimate of the recall on all positives
    under SAR), ``P(pred = 1)`` over all the points."""
    if propensity is None:
        return lee_liu_score(mask, pred)
    w = 1.0 / propensity[mask]
    recall, rate = float(w @ pred[mask] / w.sum()), float(np.mean(pred))
    return 0.0 if rate == 0 else recall**2 / rate


def _prior_share(f_unl) -> float:
    """The share of unlabeled values above 0, kept in (0, 1) (half a point from each end)."""
    n = max(len(f_unl), 1)
    return float(np.clip(np.mean(np.asarray(f_unl) > 0), 0.5 / n, 1 - 0.5 / n))


def _fold_count(mask, cv: int, fix: str) -> int:
    """``cv`` folds, or fewer when fewer labeled positives or unlabeled points (each fold
    holds one of each out); at least 2 of each are needed, else a ValueError with ``fix``."""
    p, n = int(mask.sum()), int((~mask).sum())
    if min(p, n) < 2:
        raise ValueError(
            f"s has {p} labeled positives and {n} unlabeled points: the held-out folds need "
            f"at least 2 of each; {fix}"
        )
    return min(cv, p, n)


class _EngineSVMPU(ProbabilisticMixin, KernelClassifier):
    """What the classic PU SVMs share: the SVM parameters, the checks of ``(X, s)``, the
    classes ``[0, 1]`` and a ``score`` from PU labels alone (the Lee-Liu criterion)."""

    _parameter_constraints: dict = {
        **KernelClassifier._parameter_constraints,
        "C": [Real(0.0, MAX_C, high_open=False)],
        "tol": [Real(0.0)],
        "cache_size": [Real(0.0, MAX_CACHE_MB, high_open=False)],
        "max_iter": [None, Integer(1)],
        "n_jobs": [None, Options((-1,)), Integer(1)],
        "random_state": RANDOM_STATE,
    }

    _fitted_attributes: dict = {
        "n_iter_": Fitted("int", low=0),
        "_n_train": None,
    }

    def _validate_fit(self, X, s, min_unlabeled=1):
        X = self._validate_X(X)
        mask = check_pu_labels(s, X.shape[0], min_unlabeled=min_unlabeled, who=type(self).__name__)
        self._n_train = X.shape[0]
        return X, mask

    def _probability_sigmoid(self, f_held, mask) -> None:
        """``probability=True``'s sigmoid from held-out values ``f_held`` (see the class
        docstring); removes that of an earlier fit otherwise."""
        if not self.probability:
            self._set_sigmoid(None)
            return
        prior = _prior_share(f_held[~mask])
        self.prior_ = prior
        self._set_sigmoid(*pu_sigmoid(f_held[mask], f_held[~mask], prior))

    def score(
        self,
        X: MatrixLike,
        s: ArrayLike | None = None,
        sample_weight: ArrayLike | None = None,
        *,
        y: ArrayLike | None = None,
    ) -> float:
        """The Lee-Liu criterion of the predictions against PU labels (higher is better):
        ``recall^2 / P(predict = 1)``, see :func:`unlabeled.metrics.lee_liu_score`.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
        s : array-like of shape (n_samples,)
            PU labels: 1 = labeled positive, 0 or -1 = unlabeled.
        sample_weight : array-like of shape (n_samples,), optional
        y : array-like of shape (n_samples,), optional
            An alias of ``s`` (scikit-learn's checks pass the labels by keyword).

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
            raise ValueError(f"{type(self).__name__}.score needs the PU labels s")
        return lee_liu_score(s, self.predict(X), sample_weight=sample_weight)

    def _folds(self, mask, cv, rng):
        """``cv`` stratified folds of the labeled and unlabeled points."""
        seed = int(rng.randint(np.iinfo(np.int32).max))
        split = StratifiedKFold(cv, shuffle=True, random_state=seed)
        return list(split.split(np.zeros((mask.size, 1)), mask))


@register(
    family="pu",
    summary="biased SVM: unlabeled as negative, class weights chosen by Lee-Liu",
    cases=(
        Case({"cv": 2}),
        Case({"C": 0.1, "positive_weight": 2.0, "probability": True}, name="proba"),
    ),
)
class BiasedSVM(_EngineSVMPU):
    r"""The biased SVM of Liu, Dai, Li, Lee and Yu (2003): every unlabeled point a negative,
    with a smaller weight than the labeled positives.

    .. math::

        \min_{f, b}\ \tfrac12 \|f\|^2 + C_+ \sum_{i \in P} (1 - f(x_i))_+
        + C_- \sum_{u \in U} (1 + f(x_u))_+,
        \qquad C_- = C,\ C_+ = w\, C\, \frac{|U|}{|P|},

    solved on the engine's SMO solver. The unlabeled points hold positives, so their box
    ``C_-`` should be small (the unlabeled positives may then stay on the positive side at
    little cost) and the positive weight ``w`` at least the balance ``w = 1``. As in the
    paper both are chosen from a grid, by the criterion of Lee and Liu (2003)
    ``r^2 / P(f > 0)`` (recall ``r`` on the labeled positives), which needs no negative
    labels: each candidate is fitted on ``cv - 1`` of ``cv`` stratified folds and scored on
    the held-out points of all folds, and the best (the first of equals) is refitted on all
    the data. ``predict`` is the sign of ``f``.

    Parameters
    ----------
    positive_weight : float > 0 or None, default=None
        ``w`` above; None chooses it from ``(1, 4)`` by the Lee-Liu criterion.
    cv : int >= 2, default=3
        Folds of the choice of ``w`` (and of ``probability=True``'s sigmoid); fewer with
        fewer labeled positives (at least 2 needed).
    C : float > 0 or None, default=None
        ``C_-``, the box of the unlabeled points; None chooses it from ``(0.01, 0.1, 1)``
        (with ``w``: the grid is every pair, ``C`` first).
    %(svm_params)s
    %(probability)s
    random_state : int, RandomState instance or None, default=None
        Draws the folds.

    Attributes
    ----------
    C_, positive_weight_ : float
        The ``C_-`` and ``w`` used.
    lee_liu_scores_ : ndarray of shape (n_candidates,) or None
        The held-out criterion of each candidate pair (None when both are given).
    support_, support_vectors_, dual_coef_, intercept_, coef_, classes_, n_features_in_
        The expansion, as for :class:`~unlabeled.PUSVC`; ``classes_ = [0, 1]``.
    prior_, probA_, probB_ : with ``probability=True``, the sigmoid and its prior.
    n_iter_ : int
        The final SVM's solver steps.

    References
    ----------
    B. Liu, Y. Dai, X. Li, W. S. Lee, P. S. Yu, "Building text classifiers using positive and
    unlabeled examples", ICDM 2003. W. S. Lee, B. Liu, "Learning with positive and unlabeled
    examples using weighted logistic regression", ICML 2003.

    Examples
    --------
    >>> import numpy as np
    >>> from unlabeled.pu import BiasedSVM
    >>> rng = np.random.default_rng(0)
    >>> X = np.r_[rng.normal(1.5, 1, (60, 2)), rng.normal(-1.5, 1, (60, 2))]
    >>> s = np.zeros(120, dtype=int); s[:20] = 1
    >>> clf = BiasedSVM(random_state=0).fit(X, s)
    >>> float(np.mean(clf.predict(X) == (np.arange(120) < 60))) > 0.9
    True
    """

    _parameter_constraints: dict = {
        **_EngineSVMPU._parameter_constraints,
        "positive_weight": [None, Real(0.0, MAX_C, high_open=False)],
        "C": [None, Real(0.0, MAX_C, high_open=False)],
        "cv": [Integer(2, 100)],
        "probability": [Boolean()],
    }

    _fitted_attributes: dict = {
        "positive_weight_": Fitted("float", above=0.0),
        "C_": Fitted("float", above=0.0),
        "lee_liu_scores_": Fitted("f", (None,), low=0.0, none=True),
        "prior_": Fitted("float", above=0.0, below=1.0, optional=True, needs=("probability",)),
    }

    def __init__(
        self,
        positive_weight: float | None = None,
        *,
        cv: int = 3,
        C: float | None = None,
        kernel: str = "rbf",
        gamma: str | float = "scale",
        degree: int = 3,
        coef0: float = 0.0,
        tol: float = 1e-3,
        cache_size: float = 200.0,
        max_iter: int | None = None,
        n_jobs: int | None = None,
        probability: bool = False,
        random_state: int | np.random.RandomState | None = None,
    ) -> None:
        set_init_params(self, locals())

    def fit(self, X: MatrixLike, s: ArrayLike, *, propensity: ArrayLike | None = None) -> BiasedSVM:
        r"""Fit on ``X`` with PU labels ``s`` (1 = labeled positive, 0 or -1 = unlabeled).

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
            Dense, sparse, or the square Gram matrix with ``kernel="precomputed"``.
        s : array-like of shape (n_samples,)
        propensity : array-like of shape (n_samples,), optional
            For labels not selected completely at random: ``e(x_i) = P(s=1 | y=1, x_i)`` in
            (0, 1] at the labeled positives, as for :meth:`unlabeled.PUSVC.fit`. The
            labeled positives, weighted by ``1 / e``
            (:func:`unlabeled.pu.sar.propensity_weights`), then stand for the whole positive
            class, and the negative side is the population sample: every training point,
            labeled or not (Bekker, Robberechts and Davis 2019: under SAR the unlabeled
            points alone lack the positives that were likely to be labeled). Positive ``i``
            gets the box ``C_+ r_i`` with ``r_i = (1 / e_i) / mean_P(1 / e)``,
            ``C_+ = w C N / |P|``, and every point a negative variable of box ``C``:

            .. math::

                \min_{f, b}\ \tfrac12 \|f\|^2 + C_+ \sum_{i \in P} r_i (1 - f(x_i))_+
                + C \sum_{j=1}^{N} (1 + f(x_j))_+ .

            The Lee-Liu criterion takes the recall weighted by ``1 / e``. A constant
            propensity is the unweighted fit on the data where each labeled point is also an
            unlabeled one. None (the default): SCAR. Not with ``probability=True`` (its
            sigmoid assumes SCAR) or Dask input.

        Returns
        -------
        self : BiasedSVM
        """
        params = self._validate_params()
        if propensity is not None:
            params["propensity"] = checked_propensity(self, X, s, propensity, _sar_refused(self))[0]
        X, mask = self._validate_fit(X, s)
        cs = C_GRID if params["C"] is None else (params["C"],)
        ws = WEIGHT_GRID if params["positive_weight"] is None else (params["positive_weight"],)
        grid = [(c, w) for c in cs for w in ws]
        folds_needed = len(grid) > 1 or params["probability"]
        fix = "give C and positive_weight (and probability=False), or more labeled positives"
        cv = _fold_count(mask, params["cv"], fix) if folds_needed else 0
        rows = _kernel_rows(self, X, params)
        held = None
        scores = None
        if folds_needed:
            folds = self._folds(mask, cv, check_random_state(self.random_state))
            held = [self._held_out(X, rows, mask, w, folds, params) for w in grid]
            e = params.get("propensity")
            scores = np.array([_lee_liu(mask, f > 0, e) for f in held])
        best = int(np.argmax(scores)) if scores is not None else 0
        coef, b, n_iter = self._solve(rows, mask, np.arange(mask.size), grid[best], params)
        self.set_expansion(X, coef, b, classes=np.array([0, 1]))
        self.C_, self.positive_weight_ = (float(v) for v in grid[best])
        self.lee_liu_scores_ = scores if len(grid) > 1 else None
        self.n_iter_ = n_iter
        self._probability_sigmoid(held[best] if held is not None else None, mask)
        return self

    def _solve(self, rows, mask, points, candidate, params):
        """The biased SVM with ``candidate = (C_-, w)`` on the training points ``points``."""
        c_neg, weight = candidate
        m = mask[points]
        e = params.get("propensity")
        if e is not None:  # positives by 1 / e against every point (see fit's propensity)
            pos = points[m]
            r = 1.0 / e[pos]
            C = np.r_[
                c_neg * weight * points.size / max(pos.size, 1) * r / r.mean(),
                np.full(points.size, c_neg),
            ]
            y = np.r_[np.ones(pos.size), -np.ones(points.size)]
            return solve_svm(self, rows, np.r_[pos, points], y, C, params, "BiasedSVM")
        p, n = max(int(m.sum()), 1), max(int((~m).sum()), 1)
        C = np.where(m, c_neg * weight * n / p, c_neg)
        return solve_svm(self, rows, points, np.where(m, 1, -1), C, params, "BiasedSVM")

    def _held_out(self, X, rows, mask, weight, folds, params) -> np.ndarray:
        """Every point's decision value from the fit on the folds that do not hold it."""
        f = np.empty(mask.size)
        for train, test in folds:
            coef, b, _ = self._solve(rows, mask, train, weight, params)
            f[test] = expansion_values(self, X, test, coef, b)
        return f


@register(
    family="pu",
    summary="bagging SVM (Mordelet-Vert): SVMs of positives vs bootstrap unlabeled samples",
    cases=(Case({"n_estimators": 3}), Case({"n_estimators": 2, "probability": True}, name="proba")),
)
class BaggingPUClassifier(_EngineSVMPU):
    r"""The bagging SVM of Mordelet and Vert (2014): the mean of ``T`` SVMs, each of the labeled
    positives against a bootstrap sample of ``K`` unlabeled points taken as negatives.

    .. math::

        f(x) = \frac1T \sum_{t=1}^T f_t(x), \qquad f_t = \arg\min_{f, b}\
        \tfrac12\|f\|^2 + C \sum_{i \in P} (1 - f(x_i))_+ + C \sum_{u \in U_t} (1 + f(x_u))_+,

    ``U_t`` drawn with replacement from the unlabeled points (a point drawn twice counts
    twice). With ``K = |P|`` (the default, the paper's choice) each SVM is balanced and
    cheap, and the mean is as good as one SVM on all the points at a fraction of its cost
    when ``|P|`` is small. Each SVM runs on the engine's SMO solver, all of them on one
    kernel-row cache; the mean of kernel expansions is one kernel expansion, which the
    model stores (``decision_function`` costs one SVM's evaluation on the union of supports).
    ``predict`` is the sign of ``f``. The paper's transductive scores, the out-of-bag means,
    are ``oob_decision_function_``.

    With ``estimator`` (any scikit-learn classifier, e.g. a decision tree) the ``T`` models
    are clones of it fitted on the same samples (a point drawn ``m`` times with
    ``sample_weight=m`` where the estimator takes weights, repeated otherwise), and ``f_t`` is
    their ``decision_function``, or ``predict_proba`` of class 1 minus 1/2. Such a model is
    kept as a list of scikit-learn estimators (``estimators_``): it pickles, but model files
    (:func:`unlabeled.save`), which hold only checked arrays, refuse it.

    Parameters
    ----------
    n_estimators : int >= 1, default=10
        ``T``, the models averaged.
    max_samples : int >= 1, float in (0, 1] or None, default=None
        ``K``: a number of unlabeled points, or a share of them; None: as many as labeled
        positives.
    estimator : scikit-learn classifier or None, default=None
        The base model; None: the engine's SVM of the parameters below. A clone is fitted
        per sample; its ``random_state``, if left at None, is drawn from ``random_state``.
    %(svm_params)s
    %(probability)s
    random_state : int, RandomState instance or None, default=None
        Draws the bootstrap samples (and the folds of ``probability=True``).

    Attributes
    ----------
    oob_decision_function_ : ndarray of shape (n_train,)
        For each unlabeled training point the mean of ``f_t`` over the models whose sample
        did not hold it (the paper's score); for the labeled positives, in every sample, and
        any unlabeled point drawn into every sample: ``f`` itself.
    estimators_samples_ : list of ndarray
        The training rows of each sample's unlabeled points (not kept in model files).
    estimators_ : list of estimators
        With ``estimator``: the fitted clones (no kernel expansion then).
    support_, support_vectors_, dual_coef_, intercept_, coef_, classes_, n_features_in_
        The mean expansion; ``classes_ = [0, 1]``.
    prior_, probA_, probB_ : with ``probability=True``, the sigmoid and its prior.
    n_iter_ : int
        The solver steps of all the SVMs (0 with ``estimator``).

    References
    ----------
    F. Mordelet, J.-P. Vert, "A bagging SVM to learn from positive and unlabeled examples",
    Pattern Recognition Letters 37, 2014.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> from unlabeled.pu import BaggingPUClassifier
    >>> rng = np.random.default_rng(0)
    >>> X = np.r_[rng.normal(1.5, 1, (60, 2)), rng.normal(-1.5, 1, (60, 2))]
    >>> s = np.zeros(120, dtype=int); s[:20] = 1
    >>> clf = BaggingPUClassifier(n_estimators=20, random_state=0).fit(X, s)
    >>> float(np.mean(clf.predict(X) == (np.arange(120) < 60))) > 0.9
    True
    >>> tree = DecisionTreeClassifier(max_depth=3)
    >>> trees = BaggingPUClassifier(50, estimator=tree, random_state=0).fit(X, s)
    >>> oob = trees.oob_decision_function_ > 0  # the paper's transductive scores
    >>> float(np.mean(oob == (np.arange(120) < 60))) > 0.9
    True
    """

    _parameter_constraints: dict = {
        **_EngineSVMPU._parameter_constraints,
        "n_estimators": [Integer(1, MAX_ESTIMATORS)],
        "max_samples": [None, Integer(1), Real(0.0, 1.0, high_open=False)],
        "estimator": [None, Instance((BaseEstimator,), "a scikit-learn classifier")],
        "probability": [Boolean()],
    }

    _fitted_attributes: dict = {
        "oob_decision_function_": Fitted("f", ("n_train",), high=ANY_FINITE),
        "estimators_samples_": None,
        "prior_": Fitted("float", above=0.0, below=1.0, optional=True, needs=("probability",)),
    }

    def __init__(
        self,
        n_estimators: int = 10,
        max_samples: int | float | None = None,
        *,
        estimator: BaseEstimator | None = None,
        C: float = 1.0,
        kernel: str = "rbf",
        gamma: str | float = "scale",
        degree: int = 3,
        coef0: float = 0.0,
        tol: float = 1e-3,
        cache_size: float = 200.0,
        max_iter: int | None = None,
        n_jobs: int | None = None,
        probability: bool = False,
        random_state: int | np.random.RandomState | None = None,
    ) -> None:
        set_init_params(self, locals())

    def _sample_size(self, n_pos, n_unl, params) -> int:
        k = params["max_samples"]
        if k is None:
            return int(n_pos)
        if isinstance(k, float):
            return max(1, int(round(k * n_unl)))
        return int(k)

    def fit(
        self, X: MatrixLike, s: ArrayLike, *, propensity: ArrayLike | None = None
    ) -> BaggingPUClassifier:
        """Fit ``n_estimators`` models on ``X`` with PU labels ``s`` and keep their mean.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
            Dense, sparse, or the square Gram matrix with ``kernel="precomputed"``.
        s : array-like of shape (n_samples,)
            1 = labeled positive, 0 or -1 = unlabeled.
        propensity : array-like of shape (n_samples,), optional
            For labels not selected completely at random: ``e(x_i) = P(s=1 | y=1, x_i)`` in
            (0, 1] at the labeled positives, as for :meth:`unlabeled.PUSVC.fit`. Each model
            then weighs labeled positive ``i`` by ``r_i = (1 / e_i) / mean_P(1 / e)`` (its
            SVM box ``C r_i``; the ``sample_weight`` of ``estimator``, which must take one),
            so that they stand for the whole positive class, and draws its sample of
            negatives from the population sample, every training point, labeled or not
            (Bekker, Robberechts and Davis 2019; ``max_samples`` as a share is of all the
            points). ``oob_decision_function_`` stays the out-of-bag mean at the unlabeled
            points. A constant propensity is the unweighted fit on the data where each
            labeled point is also an unlabeled one. None (the default): SCAR. Not with
            ``probability=True`` (its sigmoid assumes SCAR) or Dask input.

        Returns
        -------
        self : BaggingPUClassifier
        """
        params = self._validate_params()
        base = params["estimator"]
        if base is not None and not (
            hasattr(base, "fit")
            and (hasattr(base, "decision_function") or hasattr(base, "predict_proba"))
        ):
            raise TypeError(
                f"estimator must be a classifier with fit and decision_function or "
                f"predict_proba, got {type(base).__name__}: e.g. DecisionTreeClassifier()"
            )
        if propensity is not None:
            if base is not None and not has_fit_parameter(base, "sample_weight"):
                raise ValueError(
                    f"propensity= weights the labeled positives, but {type(base).__name__}.fit "
                    "takes no sample_weight: use an estimator that does, or estimator=None"
                )
            params["propensity"] = checked_propensity(self, X, s, propensity, _sar_refused(self))[0]
        X, mask = self._validate_fit(X, s)
        self._check_sample_memory(mask, params)
        rng = check_random_state(self.random_state)
        seed = int(rng.randint(np.iinfo(np.int32).max))  # the folds' (drawn first)
        rows = _kernel_rows(self, X, params) if base is None else None
        model, oob, samples, n_iter = self._bag(X, rows, mask, np.arange(mask.size), rng, params)
        self._store(X, model)
        self.oob_decision_function_ = oob
        self.estimators_samples_ = samples
        self.n_iter_ = n_iter
        held = None
        if params["probability"]:
            folds = calibration_folds(mask, ("unlabeled points", "labeled positives"), seed)
            held = np.empty(mask.size)
            for train, test in folds:
                fold_rng = np.random.RandomState(seed)
                model_f = self._bag(X, rows, mask, train, fold_rng, params)[0]
                held[test] = self._values(X, test, model_f)
        self._probability_sigmoid(held, mask)
        return self

    def _check_sample_memory(self, mask, params) -> None:
        """Refuse, before any work, samples whose memory is over the budget: the ``T``
        samples of ``K`` indices kept (``estimators_samples_``) and a bag's solve (about six
        arrays of its positives and ``K`` points). ``max_samples`` may be any int (a bag is
        drawn with replacement): 2**31 - 1 asked for 16 GB per sample (issue 53)."""
        n_pos = int(mask.sum())
        k = self._sample_size(n_pos, mask.size - n_pos, params)
        T = params["n_estimators"]
        check_dense_budget(
            8.0 * T * k + 48.0 * (n_pos + k),
            f"BaggingPUClassifier(max_samples={k}, n_estimators={T}) keeps {T} samples of "
            f"{k:,} points",
            "lower max_samples (or give a share of the unlabeled points, a float in (0, 1])",
        )

    def _store(self, X, model) -> None:
        """The model: the mean expansion (a pair ``(coef, b)``) or the fitted clones."""
        if isinstance(model, tuple):
            self.__dict__.pop("estimators_", None)
            self.set_expansion(X, model[0], model[1], classes=np.array([0, 1]))
            return
        for name in (
            "support_",
            "dual_coef_",
            "intercept_",
            "support_vectors_",
            "shape_fit_",
            "_coef",
        ):
            self.__dict__.pop(name, None)
        self.estimators_ = model
        self.classes_ = np.array([0, 1])

    def _values(self, X, rows, model) -> np.ndarray:
        """``f`` of ``model`` (see :meth:`_store`) at the training points ``rows``."""
        if isinstance(model, tuple):
            return expansion_values(self, X, rows, *model)
        return np.mean([_base_score(est, X[rows]) for est in model], axis=0)

    def _fit_base(self, X, pos, bag, rng, pos_weight):
        """A clone of ``estimator`` fitted on the positives (weights ``pos_weight``) and the
        sample ``bag``."""
        est = clone(self.estimator)
        if "random_state" in est.get_params() and est.get_params()["random_state"] is None:
            est.set_params(random_state=int(rng.randint(np.iinfo(np.int32).max)))
        if has_fit_parameter(est, "sample_weight"):
            rows, counts = np.unique(bag, return_counts=True)
            y = np.r_[np.ones(pos.size, dtype=int), np.zeros(rows.size, dtype=int)]
            weight = np.r_[pos_weight, counts].astype(np.float64)
            return est.fit(X[np.r_[pos, rows]], y, sample_weight=weight)
        y = np.r_[np.ones(pos.size, dtype=int), np.zeros(bag.size, dtype=int)]
        return est.fit(X[np.r_[pos, bag]], y)

    def _bag(self, X, rows, mask, points, rng, params):
        """The bagging on the training points ``points``: the model (see :meth:`_store`),
        the out-of-bag values, the samples and the solver steps."""
        pos, unl = points[mask[points]], points[~mask[points]]
        e = params.get("propensity")
        # the negatives' pool: the unlabeled points, or the population sample (SAR)
        pool = unl if e is None else points
        r = np.ones(pos.size) if e is None else 1.0 / e[pos]
        r /= r.mean()
        k = self._sample_size(pos.size, pool.size, params)
        T, n = params["n_estimators"], mask.size
        coef, b, n_iter, fitted = np.zeros(n), 0.0, 0, []
        oob_sum, oob_count = np.zeros(n), np.zeros(n)
        samples = []
        y = np.r_[np.ones(pos.size, dtype=np.int8), -np.ones(k, dtype=np.int8)]
        C = params["C"] * np.r_[r, np.ones(k)]
        for _ in range(T):
            bag = pool[rng.randint(pool.size, size=k)]
            if rows is None:
                fitted.append(self._fit_base(X, pos, bag, rng, r))
                model_t = fitted[-1:]
            else:
                c_t, b_t, it = solve_svm(self, rows, np.r_[pos, bag], y, C, params, "BaggingPU")
                coef, b, n_iter = coef + c_t / T, b + b_t / T, n_iter + it
                model_t = (c_t, b_t)
            out = np.setdiff1d(unl, bag)
            if out.size:
                oob_sum[out] += self._values(X, out, model_t)
                oob_count[out] += 1
            samples.append(bag)
        model = fitted if rows is None else (coef, b)
        oob = np.zeros(n)
        oob[points] = self._values(X, points, model)
        seen = oob_count > 0
        oob[seen] = oob_sum[seen] / oob_count[seen]
        return model, oob, samples, n_iter

    def decision_function(self, X: MatrixLike) -> np.ndarray:
        """``f(x)``, the mean of the models' values (see the class docstring).

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        if "estimators_" not in vars(self):
            return super().decision_function(X)
        check_not_strings(X)
        X = validate_data(self, X, accept_sparse="csr", reset=False)
        return np.mean([_base_score(est, X) for est in self.estimators_], axis=0)

    def _fitted_declarations(self) -> dict:
        """The declarations of the engine's model; a model of scikit-learn clones has none."""
        if "estimators_" in vars(self):
            raise ModelFileError(
                "a BaggingPUClassifier fitted with estimator=... holds scikit-learn estimators, "
                "which model files do not keep: pickle it (or skops.io.dump), or use "
                "estimator=None, the engine's SVMs, whose mean is one kernel expansion"
            )
        return super()._fitted_declarations()


def _prior_of_frequency(c, mask) -> float:
    """Elkan-Noto's share of positives among the unlabeled points from the label frequency
    ``c``, with a warning when it falls outside [0, 1]."""
    p, n = int(mask.sum()), int((~mask).sum())
    prior = prior_from_label_frequency(c, p, n)
    if not 0.0 <= prior <= 1.0:
        warnings.warn(
            f"ElkanNotoClassifier: the label frequency c = {c:.4g} implies a share "
            f"{prior:.4g} of positives among the unlabeled points, outside [0, 1] (in "
            f"range only for {p / (p + n):.4g} <= c <= 1): g is miscalibrated, prior_ "
            "is kept unclipped",
            RuntimeWarning,
            stacklevel=4,
        )
    return prior


def _unlabeled_weights(g_u, ratio) -> np.ndarray:
    """Elkan-Noto's ``w(u) = P(y=1 | u, s=0) = ratio * g / (1 - g)`` in [0, 1], ``ratio``
    the odds ``(1 - c) / c`` of a positive being unlabeled (per point under SAR)."""
    g_u = np.clip(g_u, 0.0, 1.0 - 1e-12)
    return np.clip(ratio * g_u / (1.0 - g_u), 0.0, 1.0)


def _soft_sigmoid(f, target) -> tuple[float, float]:
    """``(A, B)`` of ``P(y=1 | f) = 1 / (1 + exp(A f + B))`` minimising the cross-entropy of
    the targets in [0, 1] (a logistic regression of each point as a positive of weight
    ``target`` and a negative of weight ``1 - target``); ``A = 0`` if the fit decreases."""
    scale = max(float(np.max(np.abs(f))), 1e-300)
    z = np.r_[f, f][:, None] / scale
    y = np.r_[np.ones(f.size), np.zeros(f.size)]
    lr = LogisticRegression(C=1e6, max_iter=1000).fit(z, y, sample_weight=np.r_[target, 1 - target])
    a, b = float(lr.coef_[0, 0]) / scale, float(lr.intercept_[0])
    if not a > 0:
        m = float(np.clip(np.mean(target), 1e-12, 1 - 1e-12))
        a, b = 0.0, float(np.log(m / (1 - m)))
    return -a + 0.0, -b


def _base_score(est, Z) -> np.ndarray:
    """A fitted scikit-learn classifier's value for class 1: its decision function, or its
    probability of class 1 minus 1/2."""
    if hasattr(est, "decision_function"):
        f = np.asarray(est.decision_function(Z), dtype=np.float64)
        return f if list(est.classes_) == [0, 1] else -f
    return est.predict_proba(Z)[:, list(est.classes_).index(1)] - 0.5


@register(
    family="pu",
    summary="Elkan-Noto: calibrated labeled-vs-unlabeled SVM over c (plain or weighted)",
    cases=(Case({"cv": 2}), Case({"cv": 2, "weighted": True}, name="weighted")),
)
class ElkanNotoClassifier(_EngineSVMPU):
    r"""Elkan and Noto (2008): learning from positive and unlabeled data through a classifier
    of labeled against unlabeled points.

    Under "selected completely at random" a calibrated classifier ``g(x) ~ P(s = 1 | x)`` of
    labeled (``s = 1``) against unlabeled points satisfies ``g(x) = c P(y = 1 | x)`` with the
    label frequency ``c = P(s = 1 | y = 1)``. Here ``g`` is an SVM on the engine (class
    weights balanced, ``C_+ = C n / (2 |P|)``, ``C_- = C n / (2 |U|)``) with Platt's sigmoid
    fitted to held-out decision values of ``cv`` stratified folds, and ``c`` is the mean of the
    held-out ``g`` over the labeled positives (the paper's estimator e1, every positive held
    out once: the cross-fitting of :class:`unlabeled.pu.priors.ElkanNoto`, whose prior
    ``p (1 - c) / (c n)`` is ``prior_``).

    * ``weighted=False`` (the paper's first method): ``P(y = 1 | x) = min(1, g(x) / c)``;
      ``predict`` is 1 where it exceeds 1/2.
    * ``weighted=True`` (the paper's weighted method): each unlabeled point ``u`` enters a
      second SVM twice, as a positive of weight
      ``w(u) = (1 - c)/c * g(u) / (1 - g(u))`` (clipped to [0, 1], with the held-out ``g``)
      and as a negative of weight ``1 - w(u)``, the labeled positives with weight 1, all
      with box ``C``; ``predict`` is the sign of that SVM's ``f``, and ``predict_proba`` a
      sigmoid fitted to its values by the PU log-likelihood at ``prior_`` (as
      :class:`~unlabeled.PUSVC`'s ``probability=True``).

    Parameters
    ----------
    weighted : bool, default=False
        The weighted method.
    cv : int >= 2, default=5
        Folds of the held-out values of ``g``; fewer with fewer labeled positives (at least
        2 needed).
    %(svm_params)s
    random_state : int, RandomState instance or None, default=None
        Draws the folds.

    Attributes
    ----------
    c_ : float
        The estimated label frequency ``P(s = 1 | y = 1)``.
    prior_ : float
        ``p (1 - c) / (c n)``: the share of positives among the unlabeled points that
        ``c_`` implies (outside [0, 1], with a warning, when ``g`` is miscalibrated).
    g_sigmoid_ : tuple of 2 floats
        Platt's ``(A, B)`` of ``g``: ``g(x) = 1 / (1 + exp(A f_g(x) + B))``.
    proba_sigmoid_ : tuple of 2 floats
        ``weighted=True``: the sigmoid of ``predict_proba`` on the decision values.
    weights_ : ndarray of shape (n_unlabeled,)
        ``weighted=True``: ``w(u)`` of each unlabeled training point, in their order (not
        kept in model files).
    threshold_ : float
        ``weighted=False``: the value of ``f_g`` where ``g / c = 1/2``; ``decision_function``
        is ``f_g - threshold_`` (so that its sign is ``predict``).
    support_, support_vectors_, dual_coef_, intercept_, coef_, classes_, n_features_in_
        The expansion of ``decision_function``; ``classes_ = [0, 1]``.
    n_iter_ : int

    References
    ----------
    C. Elkan, K. Noto, "Learning classifiers from only positive and unlabeled data", KDD 2008.

    Examples
    --------
    >>> import numpy as np
    >>> from unlabeled.pu import ElkanNotoClassifier
    >>> rng = np.random.default_rng(0)
    >>> y = np.r_[np.ones(100, int), np.zeros(100, int)]
    >>> X = np.r_[rng.normal(2, 1, (100, 2)), rng.normal(-2, 1, (100, 2))]
    >>> s = (y == 1) & (rng.random(200) < 0.5)       # c = 0.5
    >>> clf = ElkanNotoClassifier(random_state=0).fit(X, s)
    >>> bool(abs(clf.c_ - 0.5) < 0.15), float(np.mean(clf.predict(X) == y)) > 0.9
    (True, True)
    """

    _parameter_constraints: dict = {
        **_EngineSVMPU._parameter_constraints,
        "weighted": [Boolean()],
        "cv": [Integer(2, 100)],
    }

    _fitted_attributes: dict = {
        "c_": Fitted("float", above=0.0, high=1.0),
        "prior_": Fitted("float", high=ANY_FINITE),
        "g_sigmoid_": Fitted("floats", (2,), high=ANY_FINITE),
        "proba_sigmoid_": Fitted("floats", (2,), high=ANY_FINITE, optional=True),
        "threshold_": Fitted("float", high=ANY_FINITE, optional=True),
        "weights_": None,
    }

    def __init__(
        self,
        weighted: bool = False,
        *,
        cv: int = 5,
        C: float = 1.0,
        kernel: str = "rbf",
        gamma: str | float = "scale",
        degree: int = 3,
        coef0: float = 0.0,
        tol: float = 1e-3,
        cache_size: float = 200.0,
        max_iter: int | None = None,
        n_jobs: int | None = None,
        random_state: int | np.random.RandomState | None = None,
    ) -> None:
        set_init_params(self, locals())

    def fit(
        self, X: MatrixLike, s: ArrayLike, *, propensity: ArrayLike | None = None
    ) -> ElkanNotoClassifier:
        """Fit ``g``, estimate ``c`` from held-out values and build the classifier.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
            Dense, sparse, or the square Gram matrix with ``kernel="precomputed"``.
        s : array-like of shape (n_samples,)
            1 = labeled positive, 0 or -1 = unlabeled.
        propensity : array-like of shape (n_samples,), optional
            For labels not selected completely at random: ``e(x_i) = P(s=1 | y=1, x_i)`` in
            (0, 1] at every point (``weighted=True`` only). Under SAR ``g(x) = e(x) P(y=1 |
            x)`` (Bekker, Robberechts and Davis 2019), so the weight of an unlabeled point
            becomes its probability of being positive,
            ``w(u) = (1 - e(u))/e(u) * g(u) / (1 - g(u))`` (clipped to [0, 1]), in place of
            the constant ``c``; ``c_`` is then the labeled share of the expected positives,
            ``p / (p + sum_U w)``, ``prior_`` the mean of ``w``, and ``predict_proba``'s
            sigmoid is fitted to the decision values by the cross-entropy of the targets
            1 (labeled) and ``w(u)``. A constant propensity ``c`` is the SCAR fit whose
            estimated label frequency is ``c``. None (the default): SCAR. Not with
            ``weighted=False`` (its ``g / c`` would need ``e`` at the test points) or Dask
            input.

        Returns
        -------
        self : ElkanNotoClassifier
        """
        params = self._validate_params()
        e = None
        if propensity is not None:
            fix = "use weighted=True (the plain g / e(x) needs e at the test points)"
            refused = (("weighted", not params["weighted"], fix),)
            e = checked_propensity(self, X, s, propensity, refused)[0]
            if not np.all((e > 0) & (e <= 1)):
                raise ValueError(
                    "propensity must lie in (0, 1] at every point for ElkanNotoClassifier: "
                    "the unlabeled points' weights read it too"
                )
        X, mask = self._validate_fit(X, s)
        cv = _fold_count(mask, params["cv"], "give more labeled positives")
        rows = _kernel_rows(self, X, params)
        f_held = np.empty(mask.size)
        for train, test in self._folds(mask, cv, check_random_state(self.random_state)):
            coef, b, _ = self._solve_g(rows, mask, train, params)
            f_held[test] = expansion_values(self, X, test, coef, b)
        A, B = platt_sigmoid(f_held, mask)
        g_held = sigmoid_proba(f_held, A, B)
        c = float(np.clip(g_held[mask].mean(), 1e-12, 1.0))
        if e is None:
            ratio, prior = (1.0 - c) / c, _prior_of_frequency(c, mask)
        else:  # the odds of being unlabeled, per point, and what the weights imply
            ratio = (1.0 - e[~mask]) / e[~mask]
            w = _unlabeled_weights(g_held[~mask], ratio)
            c, prior = float(mask.sum() / (mask.sum() + w.sum())), float(w.mean())
        self.c_, self.prior_, self.g_sigmoid_ = c, float(prior), (float(A), float(B))
        if params["weighted"]:
            self._fit_weighted(X, rows, mask, g_held, ratio, params, e is not None)
        else:
            self._fit_plain(X, rows, mask, A, B, c, params)
        return self

    def _solve_g(self, rows, mask, points, params):
        """The balanced SVM of labeled against unlabeled points on ``points``."""
        m = mask[points]
        p, n = max(int(m.sum()), 1), max(int((~m).sum()), 1)
        half = params["C"] * points.size / 2
        C = np.where(m, half / p, half / n)
        return solve_svm(self, rows, points, np.where(m, 1, -1), C, params, "ElkanNoto's g")

    def _fit_plain(self, X, rows, mask, A, B, c, params) -> None:
        coef, b, n_iter = self._solve_g(rows, mask, np.arange(mask.size), params)
        if A < 0:
            # g(f) / c = 1/2  <=>  A f + B = log(2 / c - 1)
            t = (np.log(2.0 / c - 1.0) - B) / A
        else:  # a constant g: the whole space on one side
            coef = np.zeros_like(coef)
            t = 0.0
            b = 1.0 if sigmoid_proba(0.0, A, B) / c > 0.5 else -1.0
        self.set_expansion(X, coef, b - t, classes=np.array([0, 1]))
        self.threshold_ = float(t)
        self.__dict__.pop("proba_sigmoid_", None)
        self.__dict__.pop("weights_", None)
        self.n_iter_ = n_iter

    def _fit_weighted(self, X, rows, mask, g_held, ratio, params, sar) -> None:
        unl = np.flatnonzero(~mask)
        w = _unlabeled_weights(g_held[unl], ratio)
        pos = np.flatnonzero(mask)
        points = np.r_[pos, unl, unl]
        y = np.r_[np.ones(pos.size + unl.size), -np.ones(unl.size)]
        C = params["C"] * np.r_[np.ones(pos.size), w, 1.0 - w]
        coef, b, n_iter = solve_svm(self, rows, points, y, C, params, "ElkanNoto (weighted)")
        self.weights_ = w
        self.set_expansion(X, coef, b, classes=np.array([0, 1]))
        f = expansion_values(self, X, np.arange(mask.size), coef, b)
        if sar:  # the targets are known: 1 on the labeled points, w on the unlabeled ones
            A, B = _soft_sigmoid(np.r_[f[pos], f[unl]], np.r_[np.ones(pos.size), w])
        else:
            prior = float(np.clip(self.prior_, 0.5 / unl.size, 1 - 0.5 / unl.size))
            A, B = pu_sigmoid(f[mask], f[~mask], prior)
        self.proba_sigmoid_ = (float(A), float(B))
        self.__dict__.pop("threshold_", None)
        self.n_iter_ = n_iter

    def _check_fitted(self) -> None:
        """The base's checks, and the form ``fit`` makes: ``threshold_`` (plain) or
        ``proba_sigmoid_`` (weighted), exactly one (a file without either loaded, then
        ``predict_proba`` raised an AttributeError: the long fuzz, issue 53)."""
        super()._check_fitted()
        if ("threshold_" in vars(self)) == ("proba_sigmoid_" in vars(self)):
            raise ValueError(
                "an ElkanNotoClassifier holds threshold_ (weighted=False) or proba_sigmoid_ "
                "(weighted=True), exactly one"
            )

    def predict_proba(self, X: MatrixLike) -> np.ndarray:
        """``[P(y = 0 | x), P(y = 1 | x)]``: ``min(1, g(x) / c)`` (plain), the sigmoid of the
        weighted SVM's values (weighted).

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, 2)
        """
        f = self.decision_function(X)
        if "proba_sigmoid_" in vars(self):  # fitted with weighted=True
            p1 = sigmoid_proba(f, *self.proba_sigmoid_)
        else:
            p1 = np.minimum(1.0, sigmoid_proba(f + self.threshold_, *self.g_sigmoid_) / self.c_)
        return np.c_[1.0 - p1, p1]

    def predict_log_proba(self, X: MatrixLike) -> np.ndarray:
        """The logarithm of :meth:`predict_proba`.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, 2)
        """
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))


for _cls in _EngineSVMPU.__subclasses__():  # this module's classifiers
    fill_docstring(_cls, _SHARED_DOC)
