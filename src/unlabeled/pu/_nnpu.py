"""NNPUClassifier: the non-negative PU risk (and the unbiased one) minimised by L-BFGS, linear
or on a kernel's Nystroem features."""

from __future__ import annotations

import sys
from types import SimpleNamespace

import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_random_state

from .._budget import check_dense_budget
from .._calibration import calibration_folds
from .._dask import is_dask_collection
from .._kernels import as_float64, kernel_block
from .._validation import (
    VERBOSE,
    Boolean,
    Integer,
    Options,
    Real,
    check_kernel_scale,
    standardize_moments,
    standardize_rows,
    standardized_gamma,
)
from ..base import ANY_FINITE, ArrayLike, Fitted, MatrixLike, set_init_params
from ..registry import Case, register
from . import _nnpu_dask, _nnpu_solver, priors
from ._base import MIN_LAM, THRESHOLDS, KernelPUModel
from ._pusvc import auto_prior, warn_wide_interval
from .sar import checked_propensity


def sar_refused(est) -> tuple:
    """The settings that ``fit(propensity=...)`` refuses (nnPU's linear and network forms)."""
    return (
        ("prior", est.prior == "auto", "pass a number, e.g. SAREM(...).fit(X, s).prior_"),
        ("probability", est.probability, "use probability=False (its sigmoid assumes SCAR)"),
    )


#: the kernels of NNPUClassifier (a kernel on feature vectors: the Nystroem features)
NNPU_KERNELS = ("linear", "rbf", "poly", "precomputed")


@register(
    family="pu",
    command="nnpu",
    summary="non-negative PU risk (nnPU / uPU), linear or kernel, by L-BFGS",
    cases=(
        Case({"prior": 0.4}),
        Case({"prior": 0.4, "probability": True}, data="sparse", name="sparse-proba"),
        Case(
            {"prior": 0.4, "kernel": "rbf", "loss": "logistic", "non_negative": False},
            name="rbf-upu-logistic",
        ),
        Case({"prior": 0.4, "non_negative": False, "standardize": True}, name="upu-scaled"),
        Case({"prior": 0.4, "kernel": "precomputed"}, data="precomputed", name="precomputed"),
    ),
)
class NNPUClassifier(KernelPUModel):
    r"""Positive-unlabeled classifier by the non-negative PU risk (nnPU), or the unbiased one
    (uPU), of a linear or kernel model, minimised by L-BFGS.

    Given labeled positives ``P`` and unlabeled points ``U`` whose share of positives is the
    prior ``pi``, with a loss ``l`` and ``f(x) = w' phi(x) + b``, the PU estimates of the risks
    of the positive class and of the negative class on the unlabeled population are

    .. math::

        R_P^+ = \operatorname{mean}_P l(f),\qquad
        g = \operatorname{mean}_U l(-f) - \pi \operatorname{mean}_P l(-f),

    and the classifier minimises

    .. math::

        J(w, b) = \pi R_P^+ + \max(-\beta, g) + \tfrac{\lambda}{2}\|w\|^2

    (``non_negative=True``; ``beta=0`` is Kiryo et al.'s nnPU) or
    ``pi R_P^+ + g + lam ||w||^2 / 2`` (``non_negative=False``: du Plessis et al.'s uPU).
    The estimate ``g`` of the negative risk can go below zero, which no true risk does: a
    flexible model then fits the labeled positives at the price of calling unlabeled
    positives negative; the max stops it there. Means are weighted by ``sample_weight``.

    Not gradient descent: uPU is minimised by L-BFGS (scipy) to the gradient tolerance
    ``tol``; where its solution has ``g >= -beta`` it is also the nnPU solution (the nnPU
    risk is never below the uPU one, and equal there; for the convex ``loss="logistic"`` a
    global one). Otherwise the max is replaced by the smooth upper bound
    ``-beta + tau log(1 + exp((g + beta) / tau))`` (at most ``tau log 2`` above it) and
    ``tau`` is taken from 1e-2 down to 1e-6, each L-BFGS solve warm-started from the last;
    the point of least exact ``J`` is kept (``objective_``). On the kink the objective is
    that close to its minimum, but ``J`` is flat there to the curvature ``lam`` of the
    regularisation, so ``w`` is determined to about ``sqrt(2 tau log 2 / lam)`` (with the
    last ``tau``, 1e-6): refits on data equal to rounding may differ by that much. Each
    step costs two products with the features: on standardised data a fit takes tens to
    hundreds of them, where the paper's stochastic training (and pulearn's
    ``NNPUClassifier``) takes thousands.

    Parameters
    ----------
    prior : float in (0, 1), "auto" or None, default=None
        Class prior ``pi``, the proportion of positives among the unlabeled points.
        Required. ``"auto"`` estimates it from ``X`` and ``s`` as
        :class:`~unlabeled.pu.PUSVC` does (:class:`~unlabeled.pu.priors.Blend`, seeded with
        ``random_state``; ``prior_interval_``, and a ``UserWarning`` when the interval is
        wider than 0.3).
    lam : float >= 1e-30, default=1e-4
        L2 regularisation ``lambda`` of ``w`` (the offset ``b`` is not regularised); for
        kernels, of the RKHS norm of ``f`` on the landmarks' span.
    non_negative : bool, default=True
        nnPU (True) or uPU (False).
    beta : float >= 0, default=0.0
        How far below zero ``g`` may go before the correction acts (the paper's ``beta``):
        0 is nnPU, a large value uPU.
    loss : {"sigmoid", "logistic"}, default="sigmoid"
        ``l(z) = 1 / (1 + exp(z))`` (the paper's; uPU with it is not convex) or
        ``l(z) = log(1 + exp(-z))`` (uPU with it is convex, and ``1 / (1 + exp(-f))`` then
        estimates ``P(y = 1 | x)`` on the unlabeled population).
    kernel : {"linear", "rbf", "poly", "precomputed"}, default="linear"
        ``"linear"``: ``phi(x) = x``. Otherwise ``phi`` are the Nystroem features of the
        kernel on ``n_components`` landmarks ``Z`` drawn from the training points
        (``phi(x) = K_ZZ^{-1/2} k(Z, x)``), so that ``||w||`` is the RKHS norm of ``f``: with
        at most ``n_components`` training points every point is a landmark and ``f`` is the
        exact kernel expansion ``sum_i alpha_i k(x_i, x) + b`` of the regularised risk.
        ``"precomputed"``: ``X`` is the Gram matrix (``n_samples x n_samples`` at fit time,
        ``n_test x n_train`` at predict time); ``prior="auto"`` and ``standardize`` need
        features and are not available with it.
    gamma : {"scale", "auto"} or float >= 0, default="scale"
        Kernel width, resolved as in :class:`sklearn.svm.SVC`.
    degree : int >= 0, default=3
    coef0 : float, default=0.0
    n_components : int >= 1, default=1000
        Landmarks of the kernel's Nystroem features (drawn with ``random_state``); the fit
        holds an ``n_samples x n_components`` matrix of them.
    fit_intercept : bool, default=True
        Fit the offset ``b`` (else ``b = 0`` before the threshold).
    standardize : bool, default=False
        Centre and scale the non-binary features before the model, as
        :class:`~unlabeled.pu.PUSVC`'s ``standardize`` (``mean_``, ``scale_``).
    tol : float > 0, default=1e-5
        L-BFGS's tolerance on the largest entry of the gradient, in units of ``J`` (the
        continuation's earlier stages stop at ``max(tol, tau / 10)``).
    max_iter : int >= 1, default=1000
        Cap on the L-BFGS iterations of each solve (a ``ConvergenceWarning`` names it).
    threshold : {"prior", "zero"}, default="prior"
        Where ``predict`` puts the boundary: at the prior's quantile of the training
        unlabeled points' decision values, as ``PUSVC``'s ``threshold="prior"``
        (``threshold_``; ``intercept_`` moved by it), or at ``f = 0`` (``"zero"``, the paper's
        rule). On the tuning half of the PU suite (``benchmarks/bench_nnpu.py``: 12 tables
        of at most 10,000 rows, true prior, 2 labelings) ``"prior"`` had a mean test F1 of
        0.650 / 0.746 / 0.783 at 1% / 5% / 20% of the positives labeled, ``"zero"`` 0.640 /
        0.728 / 0.761.
    probability : bool, default=False
        Enable :meth:`predict_proba`: a sigmoid of the decision value fitted from PU data
        alone on held-out values of internal folds, as ``PUSVC``'s (5 more fits, without the
        sample weights).
    random_state : int, RandomState instance or None, default=None
        Draws the landmarks, the calibration folds and ``prior="auto"``'s splits. The linear
        model's fit does not depend on it (it starts at ``w = 0``).
    verbose : bool, default=False
        Print each solve's iterations and objective to stderr.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        ``[0, 1]``.
    coef_ : ndarray of shape (1, n_features)
        ``w``; ``kernel="linear"`` only.
    intercept_ : ndarray of shape (1,)
        ``b - threshold_``.
    support_, support_vectors_, dual_coef_
        The kernel expansion over the landmarks (empty for the linear kernel).
    objective_ : float
        ``J`` at the solution (exact, without smoothing).
    negative_risk_ : float
        ``g`` at the solution, the estimated risk of the negative class.
    prior_, prior_estimator_, prior_interval_, positive_share_
        As for :class:`~unlabeled.pu.PUSVC`.
    threshold_ : float
        The threshold of ``threshold`` (0 for ``"zero"``).
    mean_, scale_ : ndarray of shape (n_features,) or None
        ``standardize=True``: the features' centres and scales.
    n_iter_ : int
        L-BFGS iterations, all solves together.
    stationarity_ : float
        How far the solution is from a stationary point of ``J``: the largest entry of its
        gradient, or, within 1e-4 of the kink ``g = -beta``, of the least element of its
        subdifferential ``grad(pi R_P^+ + lam ||w||^2 / 2) + t grad g``, ``t`` in [0, 1]
        (in units of ``J`` per unit of ``w``).
    probA_, probB_ : ndarray of shape (1,)
        The sigmoid of :meth:`predict_proba`; ``probability=True`` only.
    n_features_in_ : int

    References
    ----------
    R. Kiryo, G. Niu, M. C. du Plessis, M. Sugiyama, "Positive-unlabeled learning with
    non-negative risk estimator", NeurIPS 2017. M. C. du Plessis, G. Niu, M. Sugiyama,
    "Analysis of learning from positive and unlabeled data", NIPS 2014, and "Convex
    formulation for learning from positive and unlabeled data", ICML 2015. C. Williams, M.
    Seeger, "Using the Nystroem method to speed up kernel machines", NIPS 2001.

    Examples
    --------
    >>> import numpy as np
    >>> from unlabeled.pu import NNPUClassifier
    >>> rng = np.random.default_rng(0)
    >>> X = np.r_[rng.normal(1, 1, (100, 2)), rng.normal(-1, 1, (100, 2))]
    >>> s = np.zeros(200, dtype=int); s[:30] = 1          # 30 labeled positives
    >>> clf = NNPUClassifier(prior=70 / 170).fit(X, s)
    >>> clf.predict([[2.0, 2.0], [-2.0, -2.0]])
    array([1, 0])
    >>> bool(clf.negative_risk_ >= 0)
    True
    """

    def __init__(
        self,
        prior: float | str | None = None,
        lam: float = 1e-4,
        *,
        non_negative: bool = True,
        beta: float = 0.0,
        loss: str = "sigmoid",
        kernel: str = "linear",
        gamma: str | float = "scale",
        degree: int = 3,
        coef0: float = 0.0,
        n_components: int = 1000,
        fit_intercept: bool = True,
        standardize: bool = False,
        tol: float = 1e-5,
        max_iter: int = 1000,
        threshold: str = "prior",
        probability: bool = False,
        random_state: int | np.random.RandomState | None = None,
        verbose: bool | int = False,
    ) -> None:
        set_init_params(self, locals())

    _required_params: dict = {
        "prior": "a number in (0, 1), the proportion of positives among the unlabeled points "
        "(e.g. prior=0.3), or prior='auto' to estimate it from X and s"
    }
    _parameter_constraints: dict = {
        **KernelPUModel._parameter_constraints,
        "prior": [Options(("auto",)), Real(0.0, 1.0)],
        "lam": [Real(MIN_LAM, low_open=False)],
        "kernel": [Options(NNPU_KERNELS)],
        "non_negative": [Boolean()],
        "beta": [Real(0.0, low_open=False)],
        "loss": [Options(_nnpu_solver.LOSSES)],
        "n_components": [Integer(1)],
        "fit_intercept": [Boolean()],
        "standardize": [Boolean()],
        "tol": [Real(0.0)],
        "max_iter": [Integer(1)],
        "threshold": [Options(THRESHOLDS)],
        "verbose": VERBOSE,
    }

    _fitted_attributes: dict = {
        "n_iter_": Fitted("int", low=0),
        "negative_risk_": Fitted("float", high=ANY_FINITE),
        "stationarity_": Fitted("float", low=0.0, high=ANY_FINITE),
        "prior_estimator_": Fitted("str", none=True, choices=tuple(priors.__all__)),
        "prior_interval_": Fitted("floats", (2,), none=True),
        "positive_share_": Fitted("float", low=0.0, high=1.0),
        # in the data's units: any finite value
        "mean_": Fitted("f", ("n_features_in_",), low=-ANY_FINITE, high=ANY_FINITE, none=True),
        "scale_": Fitted("f", ("n_features_in_",), low=0.0, high=ANY_FINITE, none=True),
    }

    def fit(
        self,
        X: MatrixLike,
        s: ArrayLike,
        sample_weight: ArrayLike | None = None,
        *,
        propensity: ArrayLike | None = None,
    ) -> NNPUClassifier:
        r"""Fit the classifier: minimise ``J`` of the class docstring.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
            Dense (float64 or float32) or scipy sparse. Never modified. Or a Dask array
            (or DataFrame) with ``kernel="linear"``: fitted on the workers of the current
            ``distributed.Client``, each evaluation of ``J`` and its gradient one pass over
            the row chunks (summed by a tree reduction; the chunks stay on the workers), the
            same L-BFGS here: the in-memory model up to rounding, ``threshold="prior"``'s
            order statistics exact. Not with ``prior="auto"``, ``standardize`` or
            ``probability``; ``support_`` is then empty (the model is ``coef_``).
        s : array-like of shape (n_samples,)
            PU labels: 1 = labeled positive, 0 or -1 = unlabeled (or booleans); at least one
            of each. A Dask array too (chunked as ``X`` by the fit).
        sample_weight : array-like of shape (n_samples,), optional
            Non-negative weights of the points in the means of ``J`` (each group's weights
            must have a positive sum). ``prior="auto"``, ``threshold="prior"`` and the
            calibration of ``probability=True`` do not read them. A Dask array too.
        propensity : array-like of shape (n_samples,), optional
            For labels not selected completely at random: ``e(x_i) = P(s=1 | y=1, x_i)`` in
            (0, 1] (read at the labeled positives; :class:`unlabeled.pu.sar.SAREM`
            estimates it), as for :meth:`unlabeled.pu.PUSVC.fit`. ``J`` becomes the SAR risk
            of Bekker, Robberechts and Davis (2019): every training point, labeled or not, is
            a draw of the population, so ``R_U^-`` is the mean over all ``N`` points, the
            labeled positives' means are weighted by ``1 / e``
            (:func:`unlabeled.pu.sar.propensity_weights`, times ``sample_weight``), and
            ``pi`` is ``pi_N = (p + prior n) / N`` (sums of ``sample_weight``), the share of
            positives among all the points (``positive_share_``; ``prior_`` stays the share
            among the unlabeled ones, ``threshold="prior"`` puts ``pi_N`` of the training
            points above the threshold):

            .. math::

                g = \operatorname{mean}_{i \le N} l(-f_i) - \pi_N
                    \frac{\sum_P l(-f_p) / e_p}{\sum_P 1 / e_p}.

            The non-negative correction acts on this ``g``. A constant propensity is the
            unweighted fit on the data where each labeled point is also an unlabeled one, at
            ``prior = pi_N``, whatever the constant. None (the default): SCAR, the model as
            without the argument. Not with ``prior="auto"`` (pass a number, e.g.
            ``SAREM``'s ``prior_``), ``probability=True`` (its sigmoid assumes SCAR) or Dask
            input. Small propensities make large weights: clip them
            (``np.maximum(e, 0.05)``).

        Returns
        -------
        self : NNPUClassifier
            The fitted classifier.

        Raises
        ------
        ValueError, TypeError
            A bad parameter or input, before any work, naming it and the fix.
        """
        params = self._validate_params()
        if propensity is not None:  # refuses Dask input
            params["propensity"] = checked_propensity(self, X, s, propensity, sar_refused(self))[0]
        if any(is_dask_collection(v) for v in (X, s, sample_weight)):
            return self._fit_dask(X, s, sample_weight)
        X, mask = self._validate_fit(X, s)
        weight = check_weights(sample_weight, mask)
        folds = None
        if params["probability"]:
            folds = calibration_folds(
                mask, ("unlabeled points", "labeled positives"), self.random_state
            )
        f_unl = self._fit(X, mask, weight, params)
        self._set_threshold(f_unl, params["threshold"])
        self._warn_if_one_class(X, mask, f_unl - self.threshold_, params["threshold"])
        self._calibrate(X, mask, folds)
        return self

    def _fit(self, X, mask, weight, params):
        """The solve on checked data: returns the decision values at the unlabeled points (at
        every point with ``fit(propensity=)``, whose threshold share is among all of them)."""
        X = self._standardize(X, params["standardize"])
        prior, self.prior_estimator_, self.prior_interval_ = params["prior"], None, None
        share = prior
        if prior == "auto":
            prior, share, self.prior_estimator_, self.prior_interval_ = auto_prior(
                X, mask, self.random_state
            )
            # the caller, past this, _fit, fit and its transactional wrapper
            warn_wide_interval(self.prior_interval_, prior, stacklevel=5)
        e = params.get("propensity")
        if e is not None:  # the SAR risk's pi_N: the share of positives among all the points
            share = (weight[mask].sum() + prior * weight[~mask].sum()) / weight.sum()
        self.prior_, self.positive_share_ = float(prior), float(share)
        rng = check_random_state(self.random_state)
        Phi, landmarks, transform = self._features(X, rng)
        risk = _nnpu_solver.PURisk(
            Phi,
            mask,
            weight,
            prior if e is None else share,
            params["lam"],
            params["loss"],
            params["beta"],
            params["fit_intercept"],
            propensity=e,
        )
        log = _log if self.verbose else None
        theta, n_iter, capped, g, viol = _nnpu_solver.solve(
            risk, params["non_negative"], params["tol"], params["max_iter"], log
        )
        self.stationarity_ = float(viol)
        if capped:
            res = SimpleNamespace(converged=False, n_iter=params["max_iter"], violation=viol)
            self._warn_if_not_converged(res, "NNPUClassifier", limit=params["max_iter"])
        w, b = risk.split(theta)
        if landmarks is None:
            self.set_expansion(X, np.zeros(X.shape[0]), b, w=w)
        else:
            alpha = np.zeros(X.shape[0])
            alpha[landmarks] = transform @ w
            self.set_expansion(X, alpha, b)
        self.n_iter_ = int(n_iter)
        self.negative_risk_ = float(g)
        self.objective_ = risk.value(theta, "nnpu" if params["non_negative"] else "upu")
        f = risk.decision(theta)
        return f[~mask] if e is None else f

    def _fit_dask(self, X, s, sample_weight) -> NNPUClassifier:
        """``fit`` on Dask input, the linear form: each evaluation of ``J`` one pass over the
        chunks on the workers (:mod:`unlabeled.pu._nnpu_dask`), the same L-BFGS here."""
        params = self._validate_params()
        for name, bad, fix in (
            ("kernel", params["kernel"] != "linear", "use kernel='linear'"),
            ("prior", params["prior"] == "auto", "pass the prior as a number in (0, 1)"),
            ("probability", params["probability"], "use probability=False"),
            ("standardize", params["standardize"], "scale the columns beforehand"),
        ):
            if bad:
                raise ValueError(
                    f"NNPUClassifier({name}={getattr(self, name)!r}) is not available on Dask "
                    f"input: {fix}, or pass NumPy arrays (X.compute()) if the data fit in memory"
                )
        if not is_dask_collection(X):
            raise TypeError(
                "NNPUClassifier.fit got Dask labels or weights with X of type "
                f"{type(X).__name__}: pass X as a Dask array too (dask.array.from_array(X))"
            )
        chunks, d, info, sparse = _nnpu_dask.prepare(X, s, sample_weight)
        prior = float(params["prior"])
        risk = _nnpu_dask.DaskPURisk(
            chunks,
            d,
            info["wp"],
            info["wu"],
            prior,
            params["lam"],
            params["loss"],
            params["beta"],
            params["fit_intercept"],
        )
        theta, n_iter, capped, g, viol = _nnpu_solver.solve(
            risk,
            params["non_negative"],
            params["tol"],
            params["max_iter"],
            _log if self.verbose else None,
        )
        self.stationarity_ = float(viol)
        if capped:
            res = SimpleNamespace(converged=False, n_iter=params["max_iter"], violation=viol)
            self._warn_if_not_converged(res, "NNPUClassifier", limit=params["max_iter"])
        w, b = risk.split(theta)
        self._gamma = 1.0  # unused by the linear kernel (as check_gamma resolves it)
        none = sp.csr_matrix((0, d)) if sparse else np.empty((0, d))  # no row on the client
        self.set_expansion(none, np.empty(0), b, w=w)
        self.shape_fit_ = (int(info["labels"]["n"]), d)  # the training rows, on the workers
        self.n_features_in_ = d
        self.prior_, self.positive_share_ = prior, prior
        self.prior_estimator_, self.prior_interval_ = None, None
        self.mean_, self.scale_ = None, None
        self.n_iter_ = int(n_iter)
        self.negative_risk_ = float(g)
        self.objective_ = risk.value(theta, "nnpu" if params["non_negative"] else "upu")
        t = 0.0
        if params["threshold"] == "prior":
            t = _nnpu_dask.prior_threshold_dask(chunks, w, b, prior, info["nu"])
        self.intercept_ = self.intercept_ - t
        self.threshold_ = float(t)
        self._calibrate(None, None, None)  # no sigmoid
        return self

    def _features(self, X, rng):
        """``(Phi, landmark rows or None, K_ZZ^{-1/2} or None)``: ``X`` itself for the linear
        kernel, else the Nystroem features on ``n_components`` landmarks."""
        if self.kernel == "linear":
            return X, None, None
        n = X.shape[0]
        m = min(int(self.n_components), n)
        check_dense_budget(  # the kernel block against the landmarks and the features
            16.0 * n * m + 24.0 * m * m,
            f"NNPUClassifier(kernel={self.kernel!r}) holds {n:,} x {m:,} Nystroem features",
            "use fewer n_components, kernel='linear', or fewer rows",
        )
        rows = np.arange(n) if m == n else np.sort(rng.choice(n, m, replace=False))
        if self.kernel == "precomputed":
            K, cross = X[np.ix_(rows, rows)], X[:, rows]
        else:
            Z = as_float64(X[rows])
            K = kernel_block(Z, Z, self.kernel, self.kernel_params())
            cross = kernel_block(as_float64(X), Z, self.kernel, self.kernel_params())
        vals, vecs = np.linalg.eigh((K + K.T) / 2)
        keep = vals > max(float(vals[-1]), 0.0) * 1e-10
        if not np.all(np.isfinite(vals)) or not keep.any():
            raise ValueError(
                "the kernel matrix of the landmarks has no positive eigenvalue (or a "
                "non-finite one): rescale X, or use another kernel"
            )
        transform = (vecs[:, keep] / np.sqrt(vals[keep])) @ vecs[:, keep].T
        return cross @ transform, rows, transform

    # standardisation, as PUSVC's (``standardize``)
    def _standardize(self, X, standardize: bool):
        """``X`` standardised (``mean_``, ``scale_``) or itself."""
        self.mean_, self.scale_ = None, None
        if not standardize or self.kernel == "precomputed":
            return X
        self.mean_, self.scale_ = standardize_moments(X)
        X = standardize_rows(X, self.mean_, self.scale_)
        self._gamma = standardized_gamma(self.gamma, self.kernel, X)
        check_kernel_scale(X, self.kernel, self._gamma, self.degree, self.coef0)
        return X

    def _validate_params(self) -> dict:
        params = super()._validate_params()
        if self.kernel == "precomputed" and params["prior"] == "auto":
            raise ValueError(
                "prior='auto' needs feature vectors, but kernel='precomputed' gives a Gram "
                "matrix: pass the prior as a number, e.g. estimated with "
                "unlabeled.pu.priors.Blend on the features"
            )
        return params

    def _check_fitted(self) -> None:
        """The base's checks, and ``mean_`` / ``scale_`` both arrays exactly when
        ``standardize``, the scales positive."""
        super()._check_fitted()
        wanted = bool(self.standardize) and self.kernel != "precomputed"
        for name in ("mean_", "scale_"):
            if (getattr(self, name, None) is not None) != wanted:
                raise ValueError(
                    f"{name} must be {'an array' if wanted else 'None'} when standardize="
                    f"{self.standardize}"
                )
        if wanted and not np.all(np.asarray(self.scale_) > 0):
            raise ValueError("scale_ must hold positive scales")

    def _decision_values(self, X) -> np.ndarray:
        """``f(x)``, standardised first when fitted with ``standardize=True``."""
        if getattr(self, "scale_", None) is None:
            return super()._decision_values(X)
        step = max(1, 2**23 // max(X.shape[1], 1))
        base = super()._decision_values
        out = [
            base(standardize_rows(X[r : r + step], self.mean_, self.scale_))
            for r in range(0, X.shape[0], step)
        ]
        return np.concatenate(out) if out else np.empty(0)

    def _threshold_share(self) -> float:
        return float(getattr(self, "positive_share_", self.prior_))


def check_weights(sample_weight, mask) -> np.ndarray:
    """The sample weights as float64 (ones for None), finite and non-negative, with a positive
    sum over the labeled positives and over the unlabeled points."""
    if sample_weight is None:
        return np.ones(mask.size)
    if sp.issparse(sample_weight):
        raise TypeError("sample_weight must be a 1-d array of numbers, got a sparse matrix")
    w = np.asarray(sample_weight, dtype=np.float64)
    if w.ndim == 0:
        w = np.full(mask.size, float(w))
    if w.shape != (mask.size,):
        raise ValueError(
            f"sample_weight must have shape ({mask.size},), one weight per row of X, got {w.shape}"
        )
    if not np.all(np.isfinite(w)) or np.any(w < 0):
        raise ValueError("sample_weight must hold finite, non-negative numbers")
    for name, part in (("labeled positives", w[mask]), ("unlabeled points", w[~mask])):
        if not part.sum() > 0:
            raise ValueError(
                f"sample_weight sums to 0 over the {name}: give at least one of them a "
                "positive weight"
            )
    return w


def _log(message: str) -> None:
    print(f"[NNPUClassifier] {message}", file=sys.stderr, flush=True)


__all__ = ["NNPUClassifier"]
