r"""Probabilities from decision values, written once for the kernel classifiers.

A classifier with ``probability=True`` maps its decision value ``f(x)`` to

.. math::

    P(y = \text{classes\_}[1] \mid x) = \frac{1}{1 + \exp(A f(x) + B)},

a sigmoid fitted, as in LIBSVM's ``SVC(probability=True)``, on *held-out* decision values:
``N_FOLDS``-fold internal cross-validation refits the method on each training fold (the
model kept is the fit on all the data; only ``A`` and ``B`` come from the folds), because the
decision values of the training points themselves are optimistic (a kernel machine pushes
them past the margin) and would give an overconfident sigmoid. Two fits of ``(A, B)``:

* :func:`platt_sigmoid`, on labeled data: Platt's (1999) maximum likelihood with his
  regularised targets ``(N_+ + 1)/(N_+ + 2)`` and ``1/(N_- + 2)``, by the Newton method with
  backtracking of Lin, Lin and Weng (2007), as LIBSVM;
* :func:`pu_sigmoid`, on positive-unlabeled data alone: the maximum likelihood of the PU
  labels under the known share ``pi`` of positives among the unlabeled points ``U`` (the
  contaminated case-control model), with Platt's targets, so that the sigmoid estimates
  ``P(y = 1 | x)`` on the unlabeled population.

Both keep the sigmoid non-decreasing in ``f`` (``A <= 0``): when held-out values rank the
classes the wrong way round, the sigmoid is the constant base rate (``A = 0``), so that
``predict_proba`` never contradicts ``predict``'s order. :class:`ProbabilisticMixin` adds
``predict_proba`` and ``predict_log_proba`` (present only when ``probability=True``, as in
:class:`sklearn.svm.SVC`); :func:`calibration_folds` and :func:`fold_estimator` supply the
folds and the estimators refitted on them.

References
----------
J. Platt, "Probabilistic outputs for support vector machines and comparisons to regularized
likelihood methods", Advances in Large Margin Classifiers, 1999. H.-T. Lin, C.-J. Lin,
R. C. Weng, "A note on Platt's probabilistic outputs for support vector machines", Machine
Learning 68, 2007. M. C. du Plessis, G. Niu, M. Sugiyama, "Convex formulation for learning
from positive and unlabeled data", ICML 2015. R. Kiryo, G. Niu, M. C. du Plessis,
M. Sugiyama, "Positive-unlabeled learning with non-negative risk estimator", NeurIPS 2017.
"""

from __future__ import annotations

import functools
import types

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit, log_expit
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.model_selection import StratifiedKFold
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

#: folds of the internal cross-validation (LIBSVM's 5), fewer when a class has fewer points
N_FOLDS = 5
#: Newton's stopping rule on the gradient of the mean log-loss, and its iteration cap
_GRAD_TOL, _NEWTON_ITER = 1e-10, 100


def sigmoid_proba(f, A: float, B: float) -> np.ndarray:
    """``1 / (1 + exp(A f + B))``, without overflow."""
    return expit(-(A * np.asarray(f, dtype=np.float64) + B))


def _scale(f) -> float:
    """The decision values' largest magnitude (1 if none is non-zero): the fits work on
    ``f / scale`` in [-1, 1], so that ``f`` of any magnitude (1e300) neither overflows the
    Hessian nor stalls the line search."""
    m = float(np.max(np.abs(f))) if np.size(f) else 0.0
    return m if 0.0 < m < np.inf else 1.0


def _newton(fun, theta):
    """Minimise a smooth convex function of two parameters, ``fun(theta) -> (value,
    gradient, Hessian)``, by Newton's method with Armijo backtracking and a 1e-12 ridge (Lin,
    Lin and Weng's algorithm 1). Returns (theta, converged)."""
    value, g, H = fun(theta)
    for _ in range(_NEWTON_ITER):
        if np.max(np.abs(g)) < _GRAD_TOL:
            return theta, True
        step = -np.linalg.solve(H + 1e-12 * np.eye(2), g)
        slope, t = float(g @ step), 1.0
        while t >= 1e-10:
            new = theta + t * step
            new_value = fun(new)[0]
            if new_value < value + 1e-4 * t * slope:
                break
            t /= 2
        else:
            return theta, bool(np.max(np.abs(g)) < 1e-6)  # no descent left: at the optimum
        theta = new
        value, g, H = fun(theta)
    return theta, bool(np.max(np.abs(g)) < _GRAD_TOL)


def _logloss(z, t):
    """Mean cross-entropy of targets ``t`` against ``sigmoid(z)``, its first and second
    derivatives in ``z`` (per point)."""
    s = expit(z)
    return -(t * log_expit(z) + (1 - t) * log_expit(-z)), s - t, s * (1 - s)


def platt_sigmoid(f, y) -> tuple[float, float]:
    r"""Platt's sigmoid on labeled decision values: ``(A, B)`` with ``A <= 0``.

    Minimises the cross-entropy :math:`-\sum_i t_i \log p_i + (1 - t_i)\log(1 - p_i)`,
    :math:`p_i = 1/(1 + e^{A f_i + B})`, against Platt's targets :math:`t_i = (N_+ + 1)/(N_+
    + 2)` on positives and :math:`1/(N_- + 2)` on negatives (a uniform prior on the label of
    a point outside the sample, which keeps ``A`` finite on separable data), by Newton's
    method with backtracking from ``A = 0``, ``B = \log((N_- + 1)/(N_+ + 1))`` (Lin, Lin and
    Weng 2007). If the optimum has ``A > 0`` (held-out values rank the classes backwards)
    the sigmoid is the constant that fits the targets best, ``A = 0``.

    Parameters
    ----------
    f : array-like of shape (n,)
        Held-out decision values.
    y : array-like of bool, shape (n,)
        True for the class of positive ``f``.

    Returns
    -------
    A, B : float
    """
    f = np.asarray(f, dtype=np.float64)
    y = np.asarray(y, dtype=bool)
    n_pos, n_neg = int(y.sum()), int((~y).sum())
    t = np.where(y, (n_pos + 1.0) / (n_pos + 2.0), 1.0 / (n_neg + 2.0))
    scale = _scale(f)
    x = np.c_[f / scale, np.ones_like(f)]

    def fun(theta):  # theta = (a, b): z = a f + b = -(A f + B), the logit of P(y = 1)
        loss, d1, d2 = _logloss(x @ theta, t)
        return loss.mean(), x.T @ d1 / f.size, (x.T * d2) @ x / f.size

    start = np.array([0.0, np.log((n_pos + 1.0) / (n_neg + 1.0))])
    (a, b), _ = _newton(fun, start)
    if not a > 0:  # decreasing or not a number: the best constant
        a, b = 0.0, float(np.log(t.mean() / (1 - t.mean())))
    return -a / scale + 0.0, -b


def pu_sigmoid(f_pos, f_unl, prior: float) -> tuple[float, float]:
    r"""A sigmoid for ``P(y = 1 | x)`` on the unlabeled population, from PU data alone.

    With ``p`` labeled positives ``P`` (a sample of the positive class) and ``n`` unlabeled
    points ``U`` whose share of positives is ``pi = prior`` (PUSVC's ``prior``), the pooled
    sample's densities of ``f`` are :math:`p\,p_+(f)` and :math:`n\,p_U(f)`, with
    :math:`p_U = \pi p_+ + (1 - \pi) p_-`, and :math:`\eta(f) = P(y = 1 \mid f) = \pi
    p_+(f) / p_U(f)` on the unlabeled population. The chance that a pooled point with value
    ``f`` is a labeled positive is then

    .. math::

        q(f) = \frac{\kappa\,\eta(f)}{1 + \kappa\,\eta(f)},
        \qquad \kappa = \frac{p}{\pi n},

    the contaminated case-control model of Lancaster and Imbens (1996) (Ward et al. 2009 for
    presence-only data). With :math:`\eta(f) = 1/(1 + e^{A f + B})` the sigmoid is fitted
    by maximum likelihood of the labels ``s`` (1 on ``P``, 0 on ``U``) under ``q``: a
    logistic-type likelihood in ``(A, B)`` whose gradient in the logit ``z = -(A f + B)``
    is :math:`(1 - \eta)(q - t)` per point. The targets ``t`` are Platt's,
    :math:`(p + 1)/(p + 2)` and :math:`1/(n + 2)`, so that a held-out score that
    separates ``P`` from ``U`` does not send ``A`` to infinity. ``q <= kappa / (1 + kappa)``
    keeps ``eta <= 1``: unlike Elkan and Noto's rescaling of a P-versus-U classifier, the
    result is a probability. Minimised by L-BFGS-B from Platt's sigmoid of ``P`` against
    ``U`` (same slope sign, as a start) with ``A <= 0`` (non-decreasing in ``f``); if no
    increasing sigmoid beats the best constant, the constant ``eta = pi``.

    On held-out scores with ``P(y | f)`` a known sigmoid, the likelihood's sigmoid was
    closer to the truth than one fitted by the non-negative PU log-loss risk (Kiryo et
    al. 2017, tried and not kept): mean absolute error 0.027 against 0.042
    with 150 labeled positives and 450 unlabeled points, 0.014 against 0.020 with 500 and
    1,500 (100 draws; Platt's sigmoid with the true labels of ``U``: 0.016 and 0.009). The
    risk estimate is unbiased but, as a difference of two sample means, noisy; the
    likelihood uses the same information efficiently.

    Parameters
    ----------
    f_pos, f_unl : array-like of shape (p,), (n,)
        Held-out decision values of the labeled positives and of the unlabeled points.
    prior : float in (0, 1)
        The share of positives among the unlabeled points.

    Returns
    -------
    A, B : float

    References
    ----------
    T. Lancaster, G. Imbens, "Case-control studies with contaminated controls", Journal of
    Econometrics 71, 1996. G. Ward, T. Hastie, S. Barry, J. Elith, J. R. Leathwick,
    "Presence-only data and the EM algorithm", Biometrics 65, 2009.
    """
    f_pos = np.asarray(f_pos, dtype=np.float64)
    f_unl = np.asarray(f_unl, dtype=np.float64)
    p, n = f_pos.size, f_unl.size
    pi = float(prior)
    log_kappa = float(np.log(p) - np.log(pi * n))
    f = np.r_[f_pos, f_unl]
    t = np.r_[np.full(p, (p + 1.0) / (p + 2.0)), np.full(n, 1.0 / (n + 2.0))]
    scale = _scale(f)
    x = np.c_[f / scale, np.ones_like(f)]

    def fun(theta):  # z = a f + b, the logit of eta
        z = x @ theta
        # log(1 + kappa eta) = logaddexp(log(1 + kappa), -z) - logaddexp(0, -z)
        log1k = np.logaddexp(np.logaddexp(0.0, log_kappa), -z) - np.logaddexp(0.0, -z)
        log_q = log_kappa + log_expit(z) - log1k
        q = np.exp(log_q)
        loss = -(t * log_q - (1 - t) * log1k)
        grad = x.T @ ((1 - expit(z)) * (q - t)) / f.size
        return float(loss.mean()), grad

    eta0 = pi * (p + 1.0) / (p + 2.0) + (1 - pi) / (n + 2.0)
    flat = np.array([0.0, np.log(eta0 / (1 - eta0))])
    a0, b0 = platt_sigmoid(f, np.r_[np.ones(p, bool), np.zeros(n, bool)])
    starts = [flat] + ([np.array([-a0 * scale, flat[1]])] if a0 < 0 else [])
    best, best_value = flat, fun(flat)[0]
    for x0 in starts:
        res = minimize(
            fun,
            x0,
            jac=True,
            method="L-BFGS-B",
            bounds=[(0.0, None), (None, None)],
            options={"gtol": 1e-12, "ftol": 1e-15, "maxiter": 500},
        )
        if np.all(np.isfinite(res.x)) and res.fun < best_value:
            best, best_value = res.x, float(res.fun)
    a, b = (float(v) for v in best)
    if not a > 0:
        a, b = 0.0, float(np.log(pi / (1 - pi)))
    return -a / scale + 0.0, -b


def calibration_folds(strata, names, random_state) -> list[tuple[np.ndarray, np.ndarray]]:
    """The internal cross-validation's folds: ``min(N_FOLDS, smallest stratum)`` stratified,
    shuffled folds of the indices ``0 .. len(strata) - 1``, drawn from ``random_state``.

    ``strata`` holds two values; ``names`` names them (in sorted order) in the error raised,
    before any fit, when one has fewer than 2 members (each fold must leave both in its
    training part).
    """
    strata = np.asarray(strata)
    values = np.unique(strata)
    counts = [int(np.sum(strata == v)) for v in values]
    if len(counts) != 2 or min(counts) < 2:
        got = " and ".join(f"{c} {name}" for c, name in zip(counts, names, strict=False))
        raise ValueError(
            "probability=True fits its sigmoid on the held-out decision values of an internal "
            f"cross-validation, which needs at least 2 {names[0]} and 2 {names[1]}, got "
            f"{got or 'none'}: give more, or pass probability=False"
        )
    seed = check_random_state(random_state).randint(np.iinfo(np.int32).max)
    cv = StratifiedKFold(min(N_FOLDS, min(counts)), shuffle=True, random_state=seed)
    return list(cv.split(np.zeros((strata.size, 1)), strata))


def fold_estimator(est, **fixed):
    """A clone of the fitted ``est`` to refit on a training fold: without ``probability``
    (no nested cross-validation), warm start or progress display, with the kernel width
    resolved on all the data (as LIBSVM's folds share the kernel), and ``fixed`` set."""
    names = est.get_params(deep=False)
    params = {"probability": False, **fixed}
    for name, off in (("warm_start", False), ("verbose", False)):
        if name in names:
            params[name] = off
    if isinstance(names.get("gamma"), str) and est.kernel != "precomputed":
        params["gamma"] = float(est.kernel_gamma_)
    return clone(est).set_params(**params)


class IfProbability:
    """A method present only when ``probability=True`` (``hasattr`` is False otherwise, as
    for :class:`sklearn.svm.SVC`), whose absence says how to get it: the decorator of
    :class:`ProbabilisticMixin`'s methods, and of a subclass's own (the multi-instance
    classifiers' ``predict_proba(X, groups)``)."""

    def __init__(self, fn):
        self.fn = fn
        functools.update_wrapper(self, fn)

    def __set_name__(self, owner, name):
        self.name = name

    def __get__(self, obj, owner=None):
        if obj is None:
            return self.fn
        if not getattr(obj, "probability", False):
            raise AttributeError(
                f"{type(obj).__name__}.{self.name} is not available when probability=False: "
                f"pass probability=True to {type(obj).__name__}(...) and fit again"
            )
        return types.MethodType(self.fn, obj)


class ProbabilisticMixin:
    """``predict_proba`` and ``predict_log_proba`` for a binary classifier with a
    ``decision_function``, a ``probability`` parameter and the fitted sigmoid ``probA_``,
    ``probB_`` (:meth:`_set_sigmoid`)."""

    probability: bool

    def _set_sigmoid(self, A: float | None, B: float | None = None) -> None:
        """Store the fitted sigmoid (SVC's ``probA_``, ``probB_``); ``A=None`` removes that
        of an earlier fit."""
        if A is None:
            self.__dict__.pop("probA_", None)
            self.__dict__.pop("probB_", None)
        else:
            self.probA_ = np.array([float(A)])
            self.probB_ = np.array([float(B)])  # type: ignore[arg-type]

    def _logit(self, X, **kwargs) -> np.ndarray:
        """``-(probA_ f(x) + probB_)``, the logit of ``P(classes_[1] | x)``, after the checks;
        ``kwargs`` go to ``decision_function`` (the bag ids of a multi-instance classifier)."""
        check_is_fitted(self)
        if "probA_" not in vars(self):
            name = type(self).__name__
            raise NotFittedError(
                f"this {name} was fitted with probability=False: fit it again with "
                f"probability=True to use predict_proba"
            )
        f = self.decision_function(X, **kwargs)  # type: ignore[attr-defined]
        return -(self.probA_[0] * f + self.probB_[0])

    @IfProbability
    def predict_proba(self, X) -> np.ndarray:
        """Class probabilities ``[P(classes_[0] | x), P(classes_[1] | x)]``, a sigmoid of the
        decision value ``f`` fitted on held-out values at ``fit`` (``probability=True``):
        ``P(classes_[1] | x) = 1 / (1 + exp(probA_ f(x) + probB_))``, non-decreasing in ``f``.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
            As for ``decision_function``.

        Returns
        -------
        ndarray of shape (n_samples, 2)
            Columns in the order of ``classes_``; rows sum to 1.
        """
        z = self._logit(X)
        return np.c_[expit(-z), expit(z)]

    @IfProbability
    def predict_log_proba(self, X) -> np.ndarray:
        """The logarithm of :meth:`predict_proba`, computed without underflow.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, 2)
        """
        z = self._logit(X)
        return np.c_[log_expit(-z), log_expit(z)]
