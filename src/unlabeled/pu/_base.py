"""What the PU estimators share beyond the kernel-machine base: the PU parameters and labels,
the PU score, the probabilities calibrated from PU data, and the exact offset and objective of
the double hinge loss."""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from sklearn.utils.validation import check_is_fitted

from .._calibration import ProbabilisticMixin, calibration_folds, fold_estimator, pu_sigmoid
from .._solving import cache_bytes, engine_kernel
from .._threads import engine_threads
from .._validation import RANDOM_STATE, Boolean, Options, Real, check_pu_labels
from ..base import ANY_FINITE, ArrayLike, Fitted, KernelClassifier, KernelMachine, MatrixLike
from ..metrics import pu_accuracy_score

#: the smallest regularisation accepted by the PU learners (see their ``lam``)
MIN_LAM = 1e-30
#: where the PU classifiers put the decision threshold (``threshold``): at the prior's
#: quantile of the training unlabeled points' decision values, or at the solver's offset
THRESHOLDS = ("prior", "zero")


def prior_threshold(f_unl, prior) -> float:
    """The threshold below which the share ``prior`` of the values ``f_unl`` lies above:
    midway between the k-th and (k+1)-th largest, ``k = round(prior n)`` (see
    :meth:`KernelPUModel._set_threshold`)."""
    f = np.sort(np.asarray(f_unl, dtype=np.float64))[::-1]
    k = int(round(prior * f.size))
    if k <= 0:
        return float(f[0]) + max(1.0, abs(float(f[0]))) * 1e-9
    if k >= f.size:
        return float(f[-1]) - max(1.0, abs(float(f[-1]))) * 1e-9
    return float((f[k - 1] + f[k]) / 2)


class KernelPUModel(ProbabilisticMixin, KernelClassifier):
    """Base of the PU classifiers whose model is a kernel expansion plus an offset.

    Adds to :class:`~unlabeled.base.KernelClassifier` the PU parameters (``prior``,
    ``lam``, ``probability``, ``random_state``), the PU labels' check
    (:meth:`_validate_fit`), the classes ``[0, 1]`` (1 = positive), a ``score`` that needs no
    negative labels, ``predict_proba`` with ``probability=True`` (:meth:`_calibrate`), and
    ``fit``: it checks the parameters and data, then calls the subclass's
    ``_fit(X, mask, params)`` (the solver), which ends with :meth:`set_expansion`.
    """

    _required_params: dict = {
        "prior": "a number in (0, 1), the proportion of positives among the unlabeled points "
        "(e.g. prior=0.3; unlabeled.pu.priors estimates one from X and s)"
    }
    _parameter_constraints: dict = {
        "prior": [Real(0.0, 1.0)],
        # the dual's box bounds are about 1/lam and its objective about (n/lam)^2 k: below
        # 1e-30 they near double precision's range (lam=1e-200 gave objective_ = NaN)
        "lam": [Real(MIN_LAM, low_open=False)],
        **KernelMachine._parameter_constraints,
        "probability": [Boolean()],
        "random_state": RANDOM_STATE,
        "threshold": [Options(THRESHOLDS)],
    }

    _fitted_attributes: dict = {
        "prior_": Fitted("float", above=0.0, below=1.0),
        # the objective at the solution: predictions do not read it (lam=1e-30 on data of a
        # large range makes it 1e128), so any finite value
        "objective_": Fitted("float", high=ANY_FINITE),
        # a cut on the decision values, in their units as intercept_ (any finite value)
        "threshold_": Fitted("float", high=ANY_FINITE),
    }

    def fit(self, X: MatrixLike, s: ArrayLike) -> KernelPUModel:
        """Fit the classifier on ``X`` with PU labels ``s``: minimise the objective of the
        class docstring over kernel expansions ``f(x) = sum_i alpha_i k(x_i, x) + beta``.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
            Dense (float64 or float32) or scipy sparse; with ``kernel="precomputed"`` the
            square Gram matrix of the training points. Never modified.
        s : array-like of shape (n_samples,)
            PU labels: 1 = labeled positive, 0 or -1 = unlabeled (or booleans); at least one
            of each.

        Returns
        -------
        self : object
            The fitted classifier.

        Raises
        ------
        ValueError, TypeError
            A bad parameter or input, before any work; the message names it and the fix
            (with ``probability=True`` also fewer than 2 labeled positives or 2 unlabeled
            points, too few for the internal cross-validation).

        See Also
        --------
        predict, decision_function, score, predict_proba
        """
        params = self._validate_params()
        X, mask = self._validate_fit(X, s)
        folds = None
        if params["probability"]:
            names = ("unlabeled points", "labeled positives")
            folds = calibration_folds(mask, names, self.random_state)
        f_unl = self._fit(X, mask, params)
        if f_unl is None:
            f_unl = self._decision_values(X[~mask])
        self._set_threshold(f_unl, params["threshold"])
        self._warn_if_one_class(X, mask, f_unl - self.threshold_, params["threshold"])
        self._calibrate(X, mask, folds)
        return self

    def _warn_if_one_class(self, X, mask, f_unl, rule) -> None:
        """Warn when every training point, labeled or not, falls in one class: a model that
        says nothing, which the user should hear about with its likely cause."""
        positive = f_unl > 0
        if positive.size == 0 or 0 < positive.sum() < positive.size:
            return
        f_pos = self._decision_values(X[mask]) > 0  # (only in this rare case)
        if not np.all(f_pos == positive[0]):
            return
        side = "positive" if positive[0] else "negative"
        if rule == "zero":
            cause = (
                "with threshold='zero' the double hinge keeps f near -1 wherever the "
                "regularisation dominates: use threshold='prior' (the default), or a smaller lam"
            )
        else:
            cause = (
                f"round(share * n_unlabeled) = round({self._threshold_share():.3g} x "
                f"{positive.size}) "
                "unlabeled points are predicted positive: check the prior, or give more "
                "unlabeled points"
            )
        warnings.warn(
            f"{type(self).__name__} predicts every training point {side}: {cause}",
            UserWarning,
            stacklevel=4,  # the caller of fit, past this, fit and its transactional wrapper
        )

    def _threshold_share(self) -> float:
        """The share of the training unlabeled points that ``threshold="prior"`` predicts
        positive: the prior here (a subclass may lean above an estimated one)."""
        return float(self.prior_)

    def _set_threshold(self, f_unl, rule) -> None:
        r"""Move the decision threshold by the rule ``threshold`` (see :data:`THRESHOLDS`).

        ``"prior"``: of the ``n`` training unlabeled points, the ``k = round(pi n)`` with the
        largest decision values ``f_(1) >= ... >= f_(n)`` are predicted positive, so that the
        share predicted positive is the prior ``pi = prior_``: the threshold is
        ``t = (f_(k) + f_(k+1)) / 2`` and ``intercept_`` becomes ``beta - t``. The optimum
        (``dual_coef_``, ``objective_``) is that of the solver; ``threshold_ = t`` keeps
        ``beta = intercept_ + threshold_``. ``"zero"``: ``t = 0``, the solver's ``beta``.
        """
        t = prior_threshold(f_unl, self._threshold_share()) if rule == "prior" else 0.0
        self.intercept_ = self.intercept_ - t
        self.threshold_ = float(t)

    def _calibrate(self, X, mask, folds) -> None:
        r"""With ``folds`` (``probability=True``): the sigmoid of ``predict_proba`` from PU
        data alone.

        The model is refitted on the training part of each fold (same parameters, the fitted
        ``prior_`` and kernel width) and gives decision values on its held-out part, labeled
        positives and unlabeled points alike; :func:`~unlabeled._calibration.pu_sigmoid`
        fits ``P(y = 1 | x) = 1 / (1 + exp(A f(x) + B))`` to them by the non-negative PU
        log-loss risk at ``prior_``. Held-out values matter more here than for a
        supervised SVM: the full model's values on its own labeled positives are pushed up
        by the fit, and would make the positives look more separable than the unlabeled
        positives they stand for. Without ``folds``, removes the sigmoid of an earlier fit.
        """
        if folds is None:
            self._set_sigmoid(None)
            return
        gram = self.kernel == "precomputed"
        f = np.empty(mask.size)
        for train, test in folds:
            fixed = {"prior": float(self.prior_)}
            if isinstance(getattr(self, "lam", None), str):  # lam="cv": the lam chosen
                fixed["lam"] = float(self.lam_)
            est = fold_estimator(self, **fixed)
            est.fit(X[np.ix_(train, train)] if gram else X[train], mask[train].astype(np.int8))
            f[test] = est.decision_function(X[np.ix_(test, train)] if gram else X[test])
        self._set_sigmoid(*pu_sigmoid(f[mask], f[~mask], self.prior_))

    def _fit(self, X, mask, params: dict) -> np.ndarray | None:
        """The subclass's solver on checked data, ``mask`` marking the labeled positives;
        returns the decision values at the unlabeled points where it has them (else None:
        :meth:`fit` computes them for the threshold)."""
        raise NotImplementedError

    def _validate_fit(self, X, s, dtype=(np.float64, np.float32)):
        """Checked training data: (X, mask of labeled positives); sets the kernel width."""
        X = self._validate_X(X, dtype=dtype)
        return X, check_pu_labels(s, X.shape[0])

    def set_expansion(
        self,
        X: MatrixLike,
        alpha: ArrayLike,
        intercept: float | None = 0.0,
        *,
        w: ArrayLike | None = None,
        classes: ArrayLike | None = (0, 1),
    ) -> None:
        """Store f = sum_i alpha_i k(x_i, .) + beta, with the classes [0, 1]."""
        super().set_expansion(X, alpha, intercept, w=w, classes=np.array(classes))

    def score(
        self,
        X: MatrixLike,
        s: ArrayLike | None = None,
        sample_weight: ArrayLike | None = None,
        *,
        y: ArrayLike | None = None,
    ) -> float:
        r"""Estimated accuracy on the unlabeled population, from PU labels only; higher is better.

        ``s`` holds PU labels (1 = labeled positive, 0 or -1 = unlabeled), not classes, so this is
        not scikit-learn's accuracy against ``s`` (which a correct PU model contradicts on every
        unlabeled positive). It is ``1 - R01``, with ``R01`` the unbiased PU estimate of the
        zero-one risk (du Plessis, Niu, Sugiyama, NIPS 2014) at the fitted prior ``pi = prior_``:

        .. math::

            1 - \Bigl[2\pi\,\frac{1}{p}\sum_{x\in P}[\hat y(x) = 0] - \pi
                      + \frac{1}{n}\sum_{x\in U}[\hat y(x) = 1]\Bigr],

        over the ``p`` labeled positives ``P`` and ``n`` unlabeled points ``U`` of ``(X, s)``,
        with ``y_hat = predict(X)``. Its expectation is the accuracy the model would have on the
        unlabeled points if their classes were known, so a scikit-learn search without
        ``scoring`` (``GridSearchCV``, ``cross_val_score``) ranks candidates by an unbiased
        accuracy estimate. It can leave [0, 1] on small samples.

        The zero-one risk was chosen over the Lee-Liu criterion because it estimates a
        quantity in the units of ``ClassifierMixin.score``, without bias. Its one pitfall: it
        uses each model's own ``prior_``, which favours large priors when the prior itself is
        searched; then pass ``scoring=unlabeled.metrics.make_pu_scorer(prior=...)``
        (a fixed evaluation prior) or ``lee_liu_scorer`` (prior-free), or use
        :class:`unlabeled.model_selection.PUGridSearchCV`, which fixes the prior itself.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
            As for :meth:`decision_function`.
        s : array-like of shape (n_samples,)
            PU labels: 1 = labeled positive, 0 or -1 = unlabeled (or booleans).
        sample_weight : array-like of shape (n_samples,), optional
            Weights of the points in both sums.
        y : array-like of shape (n_samples,), optional
            An alias of ``s`` for code that passes the labels by keyword, as scikit-learn's
            estimator checks do; give one of the two.

        Returns
        -------
        float
            The estimated accuracy ``1 - R01``.

        See Also
        --------
        unlabeled.metrics.pu_accuracy_score : The same from predictions.
        unlabeled.metrics.make_pu_scorer : A scorer with a fixed evaluation prior.
        """
        check_is_fitted(self)
        if y is not None:
            if s is not None:
                raise TypeError("score got both s and y: pass the PU labels once, as s")
            s = y
        # s None (no labels given): refused by pu_accuracy_score's check with the message
        # "PUSVC requires y to be passed" that scikit-learn's estimator checks expect
        return pu_accuracy_score(
            s,  # type: ignore[arg-type]
            self.predict(X),
            self.prior_,
            sample_weight=sample_weight,
        )


def optimal_offset(a, sign, weight, slope) -> float:
    """argmin over b of  sum_i weight_i max(0, a_i + sign_i b) + slope b  (sign_i = +-1).

    The function is convex and piecewise linear; its derivative grows by weight_i at the kink
    b = -sign_i a_i, so the minimiser is the kink where the derivative turns non-negative, or
    the midpoint of the flat piece when it is exactly zero there. A derivative exactly zero
    left of every kink (RampPU's step when every labeled positive is on the flat side of the
    ramp, and no unlabeled point: the tangent's term cancels theirs) makes the whole left
    ray minimal: its end, the first kink, is returned. Exact, O(m log m).
    """
    a, sign, weight = (np.asarray(v, dtype=np.float64) for v in (a, sign, weight))
    kinks = -sign * a
    order = np.argsort(kinks, kind="stable")
    kinks, w = kinks[order], weight[order]
    # derivative left of every kink: the terms with sign -1 are active there
    left = slope - weight[sign < 0].sum()
    d = left + np.cumsum(w)  # derivative right of kink k
    k = int(np.searchsorted(d, 0.0, side="left"))
    if left > 0 or k >= kinks.size:  # (not reached by the callers' terms: a safeguard)
        raise ValueError("the offset is unbounded: no data term bounds it on one side")
    scale = max(float(np.abs(w).sum()), abs(slope), 1e-300)
    if abs(d[k]) <= 1e-12 * scale and k + 1 < kinks.size:
        return float((kinks[k] + kinks[k + 1]) / 2)
    return float(kinks[k])


def double_hinge_offset(g_pos, g_unl, prior) -> float:
    """The beta minimising the spec's J for fixed alpha: -(pi/p) sum_P f + (1/n) sum_U
    max(f, (1+f)/2, 0), using max(f, (1+f)/2, 0) = (max(0, 1+f) + max(0, f-1)) / 2."""
    n = g_unl.size
    a = np.r_[1 + g_unl, g_unl - 1]
    return optimal_offset(a, np.ones(2 * n), np.full(2 * n, 0.5 / n), -prior)


def double_hinge_objective(g_pos, g_unl, norm2, beta, prior, lam) -> float:
    """J(f) of the spec from the decision values without offset and alpha' K alpha."""
    f_pos, f_unl = g_pos + beta, g_unl + beta
    loss_u = np.maximum(np.maximum(f_unl, (1 + f_unl) / 2), 0).mean()
    return float(-prior * f_pos.mean() + loss_u + lam * norm2)


def engine_settings(est, cache_size, n_jobs) -> dict:
    """The engine's kernel and cache arguments for a kernel machine whose ``fit`` has checked
    its data (its width resolved)."""
    return {
        "kernel": engine_kernel(est, engine_threads(n_jobs)),
        "cache_bytes": cache_bytes(cache_size),
    }


@dataclass(frozen=True, eq=False)
class PUProblem:
    """The double-hinge dual of one fit, built once: the rows of the labeled positives
    (``pos``) and of the unlabeled points (``unl``), the prior and ``lam``, every positive's
    coefficient ``c1 = pi / (2 lam p)`` and the unlabeled points' bound ``c2 = 1 / (2 lam n)``
    (``0 <= sigma_u <= c2``)."""

    pos: np.ndarray
    unl: np.ndarray
    prior: float
    lam: float
    c1: float
    c2: float

    @classmethod
    def of(cls, pos: np.ndarray, unl: np.ndarray, prior: float, lam: float) -> PUProblem:
        """The problem on the rows ``pos`` and ``unl``, with its bounds."""
        return cls(pos, unl, prior, lam, prior / (2 * lam * pos.size), 1.0 / (2 * lam * unl.size))

    @classmethod
    def from_mask(cls, mask: np.ndarray, prior: float, lam: float) -> PUProblem:
        """The problem of the labeled positives ``mask`` (int32 rows, as the engine takes)."""
        pos = np.flatnonzero(mask).astype(np.int32)
        return cls.of(pos, np.flatnonzero(~mask).astype(np.int32), prior, lam)

    @property
    def total(self) -> float:
        """``c1 p``: what the equality constraint makes ``sum_u sigma_u``."""
        return self.c1 * self.pos.size

    def engine_args(self) -> dict:
        """The problem's arguments of the engine's ``solve_pu``."""
        return {"pos": self.pos, "unl": self.unl, "c1": self.c1, "c2": self.c2}


def store_solution(est, X, problem: PUProblem, res, g_pos=None):
    """Set the fitted attributes of a PU double-hinge model from the engine's result on
    ``problem`` (with ``g_pos``, g at the positives, when computed outside the engine)."""
    sigma, beta, c1 = res.sigma, float(res.beta), problem.c1
    g_pos, g_unl = res.g_pos if g_pos is None else g_pos, res.g_unl
    alpha = np.empty(X.shape[0])
    alpha[problem.pos] = c1
    alpha[problem.unl] = -sigma
    est.set_expansion(X, alpha, beta, w=res.w if est.kernel == "linear" else None)
    est.n_iter_ = int(res.n_iter)
    est.prior_ = problem.prior
    norm2 = c1 * g_pos.sum() - sigma @ g_unl  # alpha' K alpha
    est.objective_ = double_hinge_objective(g_pos, g_unl, norm2, beta, problem.prior, problem.lam)
