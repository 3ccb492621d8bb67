r"""Learning when the labels are not selected completely at random (SAR).

Every PU method that assumes "selected completely at random" (SCAR) takes the labeled
positives for a random sample of the positives: the propensity ``e(x) = P(s=1 | y=1, x)`` is a
constant ``c``. When the labeling depends on the features (a clinic that tests the sicker
patients, a curator who labels the documents that look most typical), the labeled positives
are a biased sample and a SCAR fit learns the labeled part of the positive class only.

This module gives the three steps of Bekker, Robberechts and Davis (ECML-PKDD 2019):

- :func:`scar_check`: do the labeled positives differ from the likely positives among the
  unlabeled points? Warns with :class:`~unlabeled.exceptions.SCARViolationWarning`.
- :class:`SAREM`: estimates ``e(x)`` (a logistic model on the propensity attributes) jointly
  with the classifier ``P(y=1 | x)`` by expectation-maximisation.
- inverse-propensity weighting: ``PUSVC(prior=...).fit(X, s, propensity=e)`` with ``e`` from
  ``SAREM(...).fit(X, s).propensity(X)`` fits the SAR risk, each labeled positive weighted by
  ``1 / e``; so do ``fit(X, s, propensity=e)`` of ``NNPUClassifier``, ``NNPUMLPClassifier``,
  ``BiasedSVM``, ``BaggingPUClassifier``, ``ElkanNotoClassifier(weighted=True)`` and
  ``DoubleHingeQP`` (their checks: ``checked_propensity``).

References
----------
J. Bekker, P. Robberechts, J. Davis, "Beyond the Selected Completely At Random Assumption for
Learning from Positive and Unlabeled Data", ECML-PKDD 2019.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.optimize import minimize
from scipy.special import expit, log_expit
from scipy.stats import norm, rankdata
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_array, check_is_fitted, validate_data

from .._budget import check_dense_budget
from .._dask import is_dask_collection
from .._solving import warn_not_converged
from .._validation import (
    MAX_C,
    Instance,
    Integer,
    Options,
    Real,
    canonical_sparse,
    check_data_scale,
    check_pu_labels,
)
from ..base import ArrayLike, Fitted, MatrixLike, ValidatedEstimator
from ..exceptions import InvalidParameterError, SCARViolationWarning
from ..registry import Case, exported, register

__all__ = [*exported(__name__), "ScarCheckResult", "propensity_weights", "scar_check"]

#: the propensities are kept in [_E_MIN, 1]: a weight 1 / e at most 1e6
_E_MIN = 1e-6


def _logistic_fit(X, q, w, C, start):
    r"""``argmin_{theta, b} sum_i w_i [log(1 + exp(z_i)) - q_i z_i] + ||theta||^2 / (2C)``,
    ``z = X theta + b``: a logistic regression on soft targets ``q`` in [0, 1] (the same
    minimiser as scikit-learn's ``LogisticRegression(C=C)`` on the rows duplicated with labels
    1 and 0 and weights ``w q`` and ``w (1 - q)``), by L-BFGS from ``start`` (coefficients,
    intercept last)."""

    def value(v):
        z = X @ v[:-1] + v[-1]
        loss = float(w @ (np.logaddexp(0.0, z) - q * z)) + v[:-1] @ v[:-1] / (2 * C)
        r = w * (expit(z) - q)
        grad = np.r_[X.T @ r + v[:-1] / C, r.sum()]
        return loss, grad

    res = minimize(value, start, jac=True, method="L-BFGS-B", options={"maxiter": 500})
    return res.x


def _design(X, classifier):
    """The classifier's terms: ``X``, and its squares with ``classifier="quadratic"``."""
    if classifier == "linear":
        return X
    if sp.issparse(X):
        return sp.hstack([X, X.multiply(X)], format="csr")
    return np.hstack([X, X * X])


def _columns(X, cols):
    """The propensity attributes of ``X``."""
    return X[:, cols]


@register(
    family="pu",
    summary="propensity and classifier by SAR-EM (labels not selected at random)",
    cases=(Case({"propensity_features": [0], "tol": 1e-4}),),
)
class SAREM(ValidatedEstimator):
    r"""Propensity ``e(x) = P(s=1 | y=1, x)`` and classifier ``P(y=1 | x)`` by SAR-EM
    (Bekker, Robberechts and Davis, ECML-PKDD 2019).

    Under "selected at random" (SAR) a positive is labeled with a probability ``e(x)`` that
    depends on its features, so ``P(s=1 | x) = f(x) e(x)`` with ``f(x) = P(y=1 | x)``. Both are
    logistic models, the propensity on the propensity attributes ``x_e`` only:

    .. math::

        f(x) = \sigma(w^\top x + u^\top x^2 + b), \qquad e(x) = \sigma(v^\top x_e + a)

    (``u = 0`` with ``classifier="linear"``; ``x^2`` the squares of the columns).

    SAR-EM maximises the likelihood of the PU labels,
    ``sum_i s_i log f(x_i) e(x_i) + (1 - s_i) log(1 - f(x_i) e(x_i))``, by alternating

    - E step: the posterior of an unlabeled point,
      ``q_i = P(y=1 | x_i, s=0) = f (1 - e) / (1 - f e)``; ``q_i = 1`` on the labeled points;
    - M step: ``f`` refitted to the soft targets ``q`` (a logistic regression on every point),
      ``e`` refitted to ``s`` over the expected positives (weights ``q``).

    It starts as the authors' code does: ``f`` a classifier of labeled against unlabeled points
    reweighted to an expected prior of 1/2, then ``e`` from it. The model is identified only when
    the propensity attributes are not all the classifier's (a labeling that depends on every
    feature is indistinguishable from a different class boundary); with
    ``propensity_features=[]`` the propensity is a constant: SCAR.

    Parameters
    ----------
    propensity_features : sequence of int, boolean mask or None, default=None
        The columns the labeling may depend on (the propensity attributes ``x_e``). None: all
        columns (then the model rests on its logistic forms alone: give the columns you
        suspect, such as the one that decided who was tested).
    classifier : {"quadratic", "linear"}, default="quadratic"
        The terms of the classifier's logit: the columns and their squares (``w'x + u'x^2
        + b``), or the columns alone. SAREM tells the class from the labeling only through
        the models' forms, so a classifier too rigid for the data pushes its misfit into the
        propensity. The squares lowered the propensity's mean error on the tuning half of
        ``benchmarks/bench_sar.py`` (3 tables, 3 labelings on one column each) from 0.18 to
        0.11 and raised the mean F1 of the SAR path (``PUSVC`` weighted by it) there from
        0.618 to 0.667; on the confirmation half (6 tables) the mean F1 moved by less than
        0.001 (0.712 both; measured with ``max_iter=100``).
    C : float in (0, 1e30], default=1.0
        Inverse L2 regularisation of both logistic models (scikit-learn's ``C``: the penalty
        ``||w||^2 / (2 C)`` against the sum of the losses). The features are used as given:
        scale them first.
    max_iter : int >= 1, default=300
        EM iterations at most; reaching it warns (``ConvergenceWarning``).
    tol : float > 0, default=1e-6
        Stop when the mean log-likelihood gains less than this in an iteration.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        ``w``, the classifier's coefficients of the columns.
    quadratic_coef_ : ndarray of shape (n_features,) or None
        ``u``, those of their squares (None with ``classifier="linear"``).
    intercept_ : float
    propensity_features_ : ndarray of int
        The propensity attributes' columns.
    propensity_coef_ : ndarray of shape (len(propensity_features_),)
        ``v``.
    propensity_intercept_ : float
        ``a``.
    prior_ : float
        The share of positives among the unlabeled training points, ``mean_U q``: a prior for
        :class:`~unlabeled.PUSVC` that needs no SCAR.
    label_frequency_ : float
        ``c = P(s=1 | y=1)``, the labeled share of the positives: ``p / (p + sum_U q)``.
    log_likelihood_ : float
        The mean log-likelihood of the PU labels at the solution.
    n_iter_ : int
    classes_ : ndarray of shape (2,)
        ``[0, 1]``.

    References
    ----------
    J. Bekker, P. Robberechts, J. Davis, "Beyond the Selected Completely At Random Assumption
    for Learning from Positive and Unlabeled Data", ECML-PKDD 2019.

    Examples
    --------
    >>> import numpy as np
    >>> from unlabeled.pu.sar import SAREM
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(4000, 2))
    >>> y = rng.random(4000) < 1 / (1 + np.exp(-3 * X[:, 0]))
    >>> e = 1 / (1 + np.exp(-2 * X[:, 1]))  # the labeling depends on column 1
    >>> s = (y & (rng.random(4000) < e)).astype(int)
    >>> sar = SAREM(propensity_features=[1]).fit(X, s)
    >>> bool(np.abs(sar.propensity(X) - e).mean() < 0.05)
    True
    """

    _parameter_constraints: dict = {
        "propensity_features": [None, Instance((list, tuple, np.ndarray), "a list of columns")],
        "classifier": [Options(("quadratic", "linear"))],
        "C": [Real(0.0, MAX_C, high_open=False)],  # (every box weight's range)
        "max_iter": [Integer(1)],
        "tol": [Real(0.0)],
    }

    _fitted_attributes: dict = {
        "coef_": Fitted("f", ("n_features_in_",)),
        "quadratic_coef_": Fitted("f", ("n_features_in_",), none=True),
        "intercept_": Fitted("float"),
        "propensity_features_": Fitted("iu", ("n_e",), low=0, below="n_features_in_"),
        "propensity_coef_": Fitted("f", ("n_e",)),
        "propensity_intercept_": Fitted("float"),
        "prior_": Fitted("float", low=0.0, high=1.0),
        "label_frequency_": Fitted("float", low=0.0, high=1.0),
        "log_likelihood_": Fitted("float", high=0.0),
        "n_iter_": Fitted("int", low=0),
        "classes_": Fitted("iu", (2,)),
    }

    def __init__(
        self,
        propensity_features: ArrayLike | None = None,
        *,
        classifier: str = "quadratic",
        C: float = 1.0,
        max_iter: int = 300,
        tol: float = 1e-6,
    ) -> None:
        self.propensity_features = propensity_features
        self.classifier = classifier
        self.C = C
        self.max_iter = max_iter
        self.tol = tol

    def _feature_columns(self, n_features: int) -> np.ndarray:
        """``propensity_features`` as sorted column indices, checked against ``X``."""
        spec = self.propensity_features
        if spec is None:
            return np.arange(n_features)
        arr = np.asarray(spec)
        if arr.dtype == bool:
            if arr.shape != (n_features,):
                raise InvalidParameterError(
                    f"propensity_features as a boolean mask needs one entry per column of X "
                    f"({n_features}), got shape {arr.shape}"
                )
            return np.flatnonzero(arr)
        if arr.size == 0:
            return np.arange(0)
        if arr.ndim != 1 or arr.dtype.kind not in "iu":
            raise InvalidParameterError(
                "propensity_features must be column indices (integers) or a boolean mask, "
                f"got {spec!r}"
            )
        if arr.min() < -n_features or arr.max() >= n_features:
            raise InvalidParameterError(
                f"propensity_features holds a column outside X's {n_features} columns: {spec!r}"
            )
        cols = np.unique(np.where(arr < 0, arr + n_features, arr))
        if cols.size != arr.size:
            raise InvalidParameterError(f"propensity_features names a column twice: {spec!r}")
        return cols

    def fit(self, X: MatrixLike, s: ArrayLike) -> SAREM:
        """Fit the classifier and the propensity model to ``X`` and the PU labels ``s``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Not modified.
        s : array-like of shape (n_samples,)
            1 for labeled positives, 0 (or -1) for unlabeled points, or booleans.

        Returns
        -------
        self : SAREM
        """
        params = self._validate_params()
        X = canonical_sparse(
            validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=True)
        )
        mask = check_pu_labels(s, X.shape[0], who="SAREM")
        cols = self._feature_columns(X.shape[1])
        Xe = _columns(X, cols)
        X = _design(X, params["classifier"])
        # the logistic fits' inner products (a quadratic model's squared features) bounded as
        # the kernels' are: on X of 1e160 they overflowed to NaN (the long fuzz, issue 53)
        check_data_scale(X, f"SAREM(classifier={params['classifier']!r})")
        sf = mask.astype(np.float64)
        C, n = float(params["C"]), X.shape[0]
        # start: labeled against unlabeled, reweighted to an expected prior of 1/2
        share = sf.mean()
        theta = _logistic_fit(
            X, sf, sf * (1 - share) + (1 - sf) * share, C, np.zeros(X.shape[1] + 1)
        )
        f = expit(X @ theta[:-1] + theta[-1])
        phi = _logistic_fit(Xe, sf, sf + (1 - sf) * f, C, np.zeros(cols.size + 1))
        ll, it, converged = -np.inf, 0, False
        while it < params["max_iter"]:
            it += 1
            e = expit(Xe @ phi[:-1] + phi[-1])
            q = np.where(mask, 1.0, f * (1 - e) / np.maximum(1 - f * e, 1e-300))
            phi = _logistic_fit(Xe, sf, q, C, phi)
            theta = _logistic_fit(X, q, np.ones(n), C, theta)
            z = X @ theta[:-1] + theta[-1]
            f = expit(z)
            new = _log_likelihood(z, Xe @ phi[:-1] + phi[-1], mask)
            if new - ll < params["tol"]:
                ll, converged = max(ll, new), True
                break
            ll = new
        if not converged:
            warn_not_converged(
                "SAREM",
                limit=params["max_iter"],
                used=it,
                detail=f" (the log-likelihood still gained >= tol={params['tol']})",
                stacklevel=3,
            )
        e = expit(Xe @ phi[:-1] + phi[-1])
        q_unl = (f * (1 - e) / np.maximum(1 - f * e, 1e-300))[~mask]
        d = self.n_features_in_
        self.coef_, self.intercept_ = theta[:d].copy(), float(theta[-1])
        self.quadratic_coef_ = theta[d:-1].copy() if params["classifier"] == "quadratic" else None
        self.propensity_features_ = cols.astype(np.int64)
        self.propensity_coef_, self.propensity_intercept_ = phi[:-1].copy(), float(phi[-1])
        self.prior_ = float(q_unl.mean())
        self.label_frequency_ = float(mask.sum() / (mask.sum() + q_unl.sum()))
        self.log_likelihood_ = float(min(ll, 0.0))
        self.n_iter_ = int(it)
        self.classes_ = np.array([0, 1])
        return self

    def _checked(self, X):
        check_is_fitted(self)
        return validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)

    def decision_function(self, X: MatrixLike) -> np.ndarray:
        """The classifier's logit ``w'x + b`` (positive where ``P(y=1 | x) > 1/2``)."""
        X = self._checked(X)
        z = X @ self.coef_ + self.intercept_
        if self.quadratic_coef_ is not None:
            z = z + (X.multiply(X) if sp.issparse(X) else X * X) @ self.quadratic_coef_
        return np.asarray(z, dtype=np.float64)

    def predict_proba(self, X: MatrixLike) -> np.ndarray:
        """``[P(y=0 | x), P(y=1 | x)]`` by the classifier ``f``."""
        f = expit(self.decision_function(X))
        return np.column_stack([1 - f, f])

    def predict(self, X: MatrixLike) -> np.ndarray:
        """1 where ``P(y=1 | x) > 1/2``, else 0."""
        return (self.decision_function(X) > 0).astype(np.int64)

    def propensity(self, X: MatrixLike) -> np.ndarray:
        """``e(x) = P(s=1 | y=1, x)``, in ``[1e-6, 1]`` (for the weights ``1 / e``)."""
        X = self._checked(X)
        z = _columns(X, self.propensity_features_) @ self.propensity_coef_
        return np.maximum(expit(np.asarray(z) + self.propensity_intercept_), _E_MIN)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        tags.input_tags.sparse = True
        return tags


def _log_likelihood(z_f, z_e, mask) -> float:
    """Mean ``s log(f e) + (1 - s) log(1 - f e)`` from the two logits, stably."""
    log_fe = log_expit(z_f) + log_expit(z_e)
    log_not = np.log1p(-np.minimum(np.exp(log_fe), 1 - 1e-16))
    return float(np.where(mask, log_fe, log_not).mean())


def propensity_weights(propensity: ArrayLike, s: ArrayLike) -> np.ndarray:
    r"""The inverse-propensity weights of Bekker et al.: ``1 / e`` at the labeled positives,
    0 at the unlabeled points.

    Labeled positives are drawn from ``e(x) p(x | y=1)``: weighted by ``1 / e`` they stand for
    the positives of the whole population, ``p(x | y=1)``, which a SAR risk needs (the
    weighted mean over the labeled points of a function of ``x`` estimates its mean over the
    positives). ``sum / n_samples`` estimates the share of positives. ``PUSVC.fit(X, s,
    propensity=e)`` weights its labeled positives so.

    Parameters
    ----------
    propensity : array-like of shape (n_samples,)
        ``e(x_i)`` in (0, 1] (read at the labeled positives only).
    s : array-like of shape (n_samples,)
        PU labels: 1 = labeled positive, 0 (or -1) = unlabeled.

    Returns
    -------
    ndarray of shape (n_samples,)

    Examples
    --------
    >>> from unlabeled.pu.sar import propensity_weights
    >>> propensity_weights([0.5, 0.2, 0.9], [1, 1, 0]).tolist()
    [2.0, 5.0, 0.0]
    """
    e = np.asarray(propensity, dtype=np.float64)
    if e.ndim != 1:
        raise ValueError(f"propensity must be a 1-d array, got shape {e.shape}")
    mask = check_pu_labels(s, e.shape[0])
    ep = e[mask]
    if not np.all((ep > 0) & (ep <= 1)):
        bad = ep[~((ep > 0) & (ep <= 1))][0]
        raise ValueError(
            f"propensity must lie in (0, 1] at the labeled positives, got {bad!r}: it is the "
            "probability P(s=1 | y=1, x) that a positive is labeled"
        )
    w = np.zeros(e.shape[0])
    w[mask] = 1.0 / ep
    return w


def checked_propensity(est, X, s, propensity, refused=()) -> tuple[np.ndarray, np.ndarray]:
    """``fit(propensity=...)``'s checks, shared by every estimator that takes it, before any
    work: ``(e, mask)``, the propensities of all the points (float64) and the labeled
    positives.

    ``refused`` holds ``(parameter, refused, fix)`` triples: the estimator's settings that
    its propensity-weighted fit does not do, each refused with a message that names it.
    Dask input is refused; ``e`` must lie in (0, 1] at the labeled positives
    (:func:`propensity_weights`'s checks)."""
    who = type(est).__name__
    for name, bad, fix in refused:
        if bad:
            raise ValueError(
                f"{who}({name}={getattr(est, name)!r}) is not available with propensity=: {fix}"
            )
    if any(is_dask_collection(a) for a in (X, s, propensity)):
        raise ValueError(
            "propensity= is not available on Dask input: pass NumPy arrays (X.compute())"
        )
    if sp.issparse(propensity):
        raise TypeError("propensity must be a 1-d array of numbers, got a sparse matrix")
    e = np.asarray(propensity, dtype=np.float64)
    propensity_weights(e, s)  # its checks: one value per point, in (0, 1] where labeled
    return e, check_pu_labels(s, e.shape[0])


@dataclass(frozen=True)
class ScarCheckResult:
    """What :func:`scar_check` found.

    Attributes
    ----------
    flagged : bool
        Some feature separates the labeled from the unlabeled points that the other features
        score alike: ``p_value < alpha`` and ``|effect| >= min_effect`` for one feature.
    p_value : float
        The smallest of the features' p-values times the number of features tested
        (Bonferroni), at most 1.
    statistic : float
        ``max_j |effect_j|``.
    effect : ndarray of shape (n_features,)
        Per feature ``j``: among the likely positives by the other features, the labeled minus
        the unlabeled mean of ``x_j`` within bins of equal score (weighted by their labeled
        points), in standard deviations of ``x_j`` over all points (0 for a constant column).
    n_labeled, n_unlabeled : int
        Labeled positives and unlabeled points of ``(X, s)``.
    top_features : tuple of int
        The columns of the largest ``|effect|``, largest first (at most 5).
    """

    flagged: bool
    p_value: float
    statistic: float
    effect: np.ndarray
    n_labeled: int
    n_unlabeled: int
    top_features: tuple


def _score_terms(Z, mask, cv, seed):
    """Held-out terms of a logistic regression of ``s`` on the standardised ``Z``: per point,
    each feature's term ``w_j z_j`` of the fold's model that did not see it, and the
    intercept."""
    terms, intercept = np.empty_like(Z), np.empty(mask.size)
    k = min(cv, int(mask.sum()), int((~mask).sum()))
    folds = StratifiedKFold(k, shuffle=True, random_state=seed)
    for train, test in folds.split(Z, mask):
        model = LogisticRegression(max_iter=1000).fit(Z[train], mask[train])
        terms[test] = Z[test] * model.coef_[0]
        intercept[test] = model.intercept_[0]
    return terms, intercept


def _binned_difference(x, labels, strata, n_strata):
    """Per row of ``labels`` (B, m): the mean over bins (weighted by their labeled points) of
    the labeled minus unlabeled means of ``x`` in the bin."""
    total = np.zeros(labels.shape[0])
    weight = np.zeros(labels.shape[0])
    for k in range(n_strata):
        idx = strata == k
        L = labels[:, idx].astype(np.float64)
        nl = L.sum(axis=1)
        nu = idx.sum() - nl
        ok = (nl > 0) & (nu > 0)
        ml = (L @ x[idx]) / np.maximum(nl, 1)
        mu = ((1 - L) @ x[idx]) / np.maximum(nu, 1)
        total += np.where(ok, nl * (ml - mu), 0.0)
        weight += np.where(ok, nl, 0.0)
    return total / np.maximum(weight, 1)


#: a feature is tested only where the score without it still tells the labeled points from
#: the unlabeled ones (held-out AUC at least this): else its "likely positives" are not
_MIN_AUC = 0.6


def _auc(score, mask) -> float:
    """The AUC of ``score`` for labeled against unlabeled points (Mann-Whitney, ties half)."""
    ranks = rankdata(score)
    p = int(mask.sum())
    return float((ranks[mask].sum() - p * (p + 1) / 2) / (p * (mask.size - p)))


def _feature_test(z, partial, mask, quantile, n_strata, n_permutations, rng):
    """(effect, p-value) of one feature ``z`` at the likely positives by ``partial``, the score
    without it; (0, 1) when the region holds fewer than 2 labeled or unlabeled points."""
    if _auc(partial, mask) < _MIN_AUC:  # the other features say little about who is labeled
        return 0.0, 1.0
    region = np.flatnonzero(partial >= np.quantile(partial[mask], quantile))
    region = region[np.argsort(partial[region], kind="stable")]
    labels, x = mask[region], z[region]
    if labels.sum() < 2 or (~labels).sum() < 2:
        return 0.0, 1.0
    m = region.size
    bins = min(n_strata, m // 2)
    strata = np.arange(m) * bins // m
    effect = float(_binned_difference(x, labels[None, :], strata, bins)[0])
    # labels permuted within the bins (sorted by bin: a key of bin + U(0, 1) keeps them)
    perm = np.argsort(strata[None, :] + rng.random((n_permutations, m)), axis=1)
    null = _binned_difference(x, labels[perm], strata, bins)
    spread = float(null.std())
    if spread <= 0:
        return effect, 1.0
    return effect, float(2 * norm.sf(abs(effect) / spread))


def scar_check(
    X: MatrixLike,
    s: ArrayLike,
    *,
    quantile: float = 0.5,
    n_strata: int = 5,
    n_permutations: int = 100,
    alpha: float = 0.01,
    min_effect: float = 1.0,
    cv: int = 5,
    random_state: int | np.random.RandomState | None = None,
    warn: bool = True,
) -> ScarCheckResult:
    r"""Test whether the labeled positives look like the likely positives among the unlabeled
    points, as they do when the labels were selected completely at random (SCAR).

    Under SCAR a labeled positive is a random positive: among points equally likely to be
    positive, whether a point is labeled does not depend on its features. The check asks,
    feature by feature, whether ``x_j`` separates the labeled from the unlabeled points that
    the *other* features score alike. A logistic regression of ``s`` on the standardised
    features, cross-fitted on ``cv`` folds (so that a point's score comes from a model that did
    not see it), gives each point a score ``sum_k w_k z_k + b``; for feature ``j`` the score
    without its term, ``partial_j``, ranks the points; the likely positives are those whose
    ``partial_j`` is at least the ``quantile`` of the labeled points' (the labeled points
    themselves included); they are cut into ``n_strata`` bins of equal counts by
    ``partial_j``, and ``effect_j`` is the mean over the bins (weighted by their labeled
    points) of the labeled minus the unlabeled mean of ``z_j``, in standard deviations of
    ``x_j``. Its p-value is two-sided, from a normal law with the spread of ``effect_j`` over
    ``n_permutations`` relabelings within the bins (the SCAR null); the p-values are multiplied
    by the number of features tested (Bonferroni). The labeling is flagged when a feature has
    ``p < alpha`` and ``|effect_j| >= min_effect``, and a
    :class:`~unlabeled.exceptions.SCARViolationWarning` names the features.

    Why the effect size too: where negatives score like positives on the other features,
    a feature that tells the classes apart also tells labeled points (all positive) from
    unlabeled ones under SCAR, a difference that grows less than a labeling's own with the
    bias. ``min_effect=1`` (a full standard deviation) was chosen on the runs of
    ``benchmarks/bench_sar.py`` (generated data and 6 tables of the PU suite, labelings that
    depend on one feature and SCAR ones: the largest SCAR effect there was 0.92, most
    feature-dependent labelings above 1.1); it is a heuristic, not a guarantee: SCAR is not
    testable from PU data without assumptions (Bekker et al., section 3), and a labeling that
    favours positives along the direction that separates the classes looks like SCAR. A
    feature is not tested (``effect_j = 0``) when the score without it no longer tells the
    labeled from the unlabeled points (held-out AUC below 0.6): a feature that alone decides
    the class leaves no likely positives to compare with.
    Cost: ``cv`` logistic fits, then per feature a sort of ``n_permutations`` rows of the
    region.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        Sparse input is densified (within the dense-memory budget).
    s : array-like of shape (n_samples,)
        PU labels: 1 = labeled positive, 0 (or -1) = unlabeled; at least 2 of each.
    quantile : float in [0, 1), default=0.5
        Where the region of likely positives starts, as a quantile of the labeled points'
        partial scores.
    n_strata : int >= 1, default=5
    n_permutations : int >= 20, default=100
    alpha : float in (0, 1), default=0.01
    min_effect : float >= 0, default=1.0
        The smallest ``|effect|`` (standard deviations) that is flagged.
    cv : int >= 2, default=5
    random_state : int, RandomState instance or None, default=None
        Draws the folds and the permutations.
    warn : bool, default=True
        Warn (``SCARViolationWarning``) when flagged.

    Returns
    -------
    ScarCheckResult

    References
    ----------
    J. Bekker, P. Robberechts, J. Davis, "Beyond the Selected Completely At Random Assumption
    for Learning from Positive and Unlabeled Data", ECML-PKDD 2019.

    Examples
    --------
    >>> import numpy as np
    >>> from unlabeled.pu.sar import scar_check
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(2000, 3))
    >>> y = rng.random(2000) < 1 / (1 + np.exp(-3 * X[:, 0]))  # the class: on column 0
    >>> scar = y & (rng.random(2000) < 0.3)
    >>> scar_check(X, scar, random_state=0).flagged
    False
    >>> sar = y & (rng.random(2000) < 1 / (1 + np.exp(-3 * X[:, 1])))  # labels: column 1
    >>> result = scar_check(X, sar, random_state=0, warn=False)
    >>> result.flagged, result.top_features[0]
    (True, 1)
    """
    for name, value, ok, need in (
        ("quantile", quantile, 0 <= quantile < 1, "in [0, 1)"),
        ("n_strata", n_strata, isinstance(n_strata, int) and n_strata >= 1, "an int >= 1"),
        (
            "n_permutations",
            n_permutations,
            isinstance(n_permutations, int) and n_permutations >= 20,
            "an int >= 20",
        ),
        ("alpha", alpha, 0 < alpha < 1, "in (0, 1)"),
        ("min_effect", min_effect, min_effect >= 0, ">= 0"),
        ("cv", cv, isinstance(cv, int) and cv >= 2, "an int >= 2"),
    ):
        if not ok:
            raise InvalidParameterError(f"{name} must be {need}, got {value!r}")
    X = check_array(X, accept_sparse="csr", dtype=np.float64)
    mask = check_pu_labels(s, X.shape[0], min_unlabeled=2, who="scar_check")
    if mask.sum() < 2:
        raise ValueError("scar_check needs at least 2 labeled positives, got 1")
    if sp.issparse(X):
        check_dense_budget(
            8.0 * X.shape[0] * X.shape[1] * 2,
            f"scar_check densifies the {X.shape[0]} x {X.shape[1]} sparse X (and a copy)",
            "pass a subsample of the rows, or fewer columns",
        )
        X = X.toarray()
    rng = check_random_state(random_state)
    seed = int(rng.randint(np.iinfo(np.int32).max))
    sd = X.std(axis=0)
    tested = np.flatnonzero(sd > 0)
    Z = (X - X.mean(axis=0)) / np.where(sd > 0, sd, 1.0)
    terms, intercept = _score_terms(Z, mask, cv, seed)
    score = terms.sum(axis=1) + intercept
    effect, p = np.zeros(X.shape[1]), np.ones(X.shape[1])
    for j in tested:
        effect[j], p[j] = _feature_test(
            Z[:, j], score - terms[:, j], mask, quantile, n_strata, n_permutations, rng
        )
    p = np.minimum(1.0, p * max(tested.size, 1))
    top = tuple(int(j) for j in np.argsort(-np.abs(effect), kind="stable")[:5])
    hits = [j for j in top if p[j] < alpha and abs(effect[j]) >= min_effect]
    result = ScarCheckResult(
        bool(hits),
        float(p.min()),
        float(np.abs(effect).max()),
        effect,
        int(mask.sum()),
        int((~mask).sum()),
        top,
    )
    if hits and warn:
        named = ", ".join(f"column {j} ({effect[j]:+.2f} sd, p = {p[j]:.2g})" for j in hits[:3])
        warnings.warn(
            "The labeled positives differ from the unlabeled points that the other features "
            f"score alike ({named}): the labels were likely not selected completely at "
            "random (SCAR), which PU methods assume. Model the labeling with "
            "unlabeled.pu.sar.SAREM(propensity_features=[...]) and fit with "
            "PUSVC(...).fit(X, s, propensity=...)",
            SCARViolationWarning,
            stacklevel=2,
        )
    return result
