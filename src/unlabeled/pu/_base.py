"""What the PU estimators share: a kernel expansion f(x) = sum_i alpha_i k(x_i, x) + beta,
its parameter and data checks, prediction in bounded memory, and the exact offset."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.metrics.pairwise import pairwise_kernels
from sklearn.utils.validation import check_array, check_is_fitted, validate_data

from .._validation import (
    KERNELS,
    check_choice,
    check_gamma,
    check_int,
    check_pu_labels,
    check_real,
)
from ..model_selection import pu_accuracy_score

_CHUNK_BYTES = 64 * 2**20  # kernel blocks at predict time stay below this size


class KernelPUModel(ClassifierMixin, BaseEstimator):
    """Base of the PU classifiers whose model is a kernel expansion plus an offset.

    Subclasses call :meth:`_validate_fit` at the start of ``fit`` and :meth:`_set_expansion`
    at its end; everything after that (prediction, ``coef_``, tags) is shared.
    """

    def _check_kernel_params(self):
        check_choice(self.kernel, "kernel", KERNELS)
        check_int(self.degree, "degree", low=0)
        check_real(self.coef0, "coef0")
        if not isinstance(self.gamma, str):
            check_real(self.gamma, "gamma", low=0.0, low_open=False)
        elif self.gamma not in ("scale", "auto"):
            raise ValueError(
                f"gamma must be 'scale', 'auto' or a non-negative number, got {self.gamma!r}"
            )

    def _validate_fit(self, X, s, dtype=(np.float64, np.float32)):
        """Checked training data: (X, mask of labeled positives); sets the kernel width."""
        X = validate_data(self, X, accept_sparse="csr", dtype=list(dtype), order="C", reset=True)
        if self.kernel == "precomputed":
            if sp.issparse(X):
                raise TypeError("X must be a dense Gram matrix when kernel='precomputed'")
            if X.shape[0] != X.shape[1]:
                raise ValueError(
                    f"X must be a square Gram matrix when kernel='precomputed', got shape {X.shape}"
                )
            X = np.ascontiguousarray(X, dtype=np.float64)
        mask = check_pu_labels(s, X.shape[0])
        self._gamma = check_gamma(self.gamma, self.kernel, X)
        return X, mask

    def _set_expansion(self, X, alpha, beta, w=None):
        """Store f = sum_i alpha_i k(x_i, .) + beta in scikit-learn's SVC vocabulary."""
        self.support_ = np.flatnonzero(alpha != 0).astype(np.int32)
        self.dual_coef_ = alpha[self.support_][None, :]
        self.intercept_ = np.array([float(beta)])
        if self.kernel == "precomputed":
            self.support_vectors_ = np.empty((0, 0))
        else:
            self.support_vectors_ = X[self.support_]
        if self.kernel == "linear":
            if w is None:
                w = self.dual_coef_[0] @ self.support_vectors_
            self._coef = np.asarray(w, dtype=np.float64).reshape(1, -1).copy()
        self.classes_ = np.array([0, 1])
        self.shape_fit_ = X.shape

    @property
    def coef_(self) -> np.ndarray:
        """Primal weights ``w`` (linear kernel only), shape (1, n_features)."""
        check_is_fitted(self)
        if self.kernel != "linear":
            raise AttributeError("coef_ is only available when kernel='linear'")
        return self._coef

    def _pairwise_params(self):
        """The kernel's parameters for sklearn's ``pairwise_kernels``."""
        params = {} if self.kernel == "linear" else {"gamma": self._gamma}
        if self.kernel == "poly":
            params.update(degree=self.degree, coef0=self.coef0)
        return params

    def _kernel_dot(self, A, B, coef, rows=None):
        """sum_j coef_j k(a_i, b_j) for the rows a_i of A (those in ``rows`` if given).

        With ``kernel="precomputed"`` A holds kernel values and B the columns to use."""
        if self.kernel == "precomputed":
            cols = np.asarray(B)
            return blockwise(
                A.shape[0] if rows is None else rows.size,
                len(coef),
                lambda r: (A[r] if rows is None else A[rows[r]])[:, cols] @ coef,
            )
        params = self._pairwise_params()
        B = B.astype(np.float64)

        def block(r):
            Ar = A[r] if rows is None else A[rows[r]]
            return pairwise_kernels(Ar.astype(np.float64), B, metric=self.kernel, **params) @ coef

        return blockwise(A.shape[0] if rows is None else rows.size, len(coef), block)

    def decision_function(self, X) -> np.ndarray:
        """Decision values ``f(x)``; positive means predicted positive. Shape (n_samples,)."""
        check_is_fitted(self)
        if self.kernel == "precomputed":
            # a kernel matrix against the training points: its width is n_train, checked here
            # with a message that says so rather than as a number of features
            X = check_array(X, dtype=np.float64)
            if X.shape[1] != self.shape_fit_[0]:
                raise ValueError(
                    f"X must be a kernel matrix of shape (n_test, {self.shape_fit_[0]}) against "
                    f"the training points when kernel='precomputed', got shape {X.shape}"
                )
            return self._kernel_dot(X, self.support_, self.dual_coef_[0]) + self.intercept_[0]
        X = validate_data(self, X, accept_sparse="csr", dtype=[np.float64, np.float32], reset=False)
        if self.kernel == "linear":
            return np.asarray(X @ self._coef[0], dtype=np.float64).ravel() + self.intercept_[0]
        f = self._kernel_dot(X, self.support_vectors_, self.dual_coef_[0])
        return f + self.intercept_[0]

    def predict(self, X) -> np.ndarray:
        """1 where ``f(x) > 0``, else 0."""
        return (self.decision_function(X) > 0).astype(int)

    def score(self, X, s=None, sample_weight=None, *, y=None) -> float:
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
        searched; then pass ``scoring=unlabeled.model_selection.make_pu_scorer(prior=...)``
        (a fixed evaluation prior) or ``lee_liu_scorer`` (prior-free), or use
        :class:`unlabeled.model_selection.PUGridSearchCV`, which fixes the prior itself.

        ``y=`` is accepted as an alias of ``s`` for code that passes the labels by keyword, as
        scikit-learn's estimator checks do.
        """
        check_is_fitted(self)
        if y is not None:
            if s is not None:
                raise TypeError("score got both s and y: pass the PU labels once, as s")
            s = y
        return pu_accuracy_score(s, self.predict(X), self.prior_, sample_weight=sample_weight)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.pairwise = self.kernel == "precomputed"
        # PU labels are binary by construction: 1 = labeled positive, 0 = unlabeled
        tags.classifier_tags.multi_class = False
        return tags


def kernel_products(X, rows, cols, V, metric, params, threads, dtype=np.float64):
    """K(X[rows], X[cols]) @ V, shape (len(rows), V.shape[1]), through BLAS in blocks.

    Each block of at most _CHUNK_BYTES of kernel values is a matrix product (the distances
    of rbf included), tens of times faster than one dot product at a time for many features;
    columns whose row of V is zero are skipped. ``dtype`` is that of the blocks: float32
    (for float32 data) doubles the speed and gives kernel values to about 1e-6 absolute,
    products to about 1e-7 relative.
    """
    from threadpoolctl import threadpool_limits

    V = np.asarray(V, dtype=np.float64).reshape(len(cols), -1)
    keep = np.flatnonzero(np.any(V != 0, axis=1))
    cols, V = np.asarray(cols)[keep], V[keep]
    out = np.zeros((len(rows), V.shape[1]))
    col_step = max(1, min(cols.size, 4096))
    row_step = max(1, _CHUNK_BYTES // (8 * col_step))
    with threadpool_limits(limits=threads, user_api="blas"):
        for c in range(0, cols.size, col_step):
            B = X[cols[c : c + col_step]].astype(dtype, copy=False)
            Vc = V[c : c + col_step]
            for r in range(0, len(rows), row_step):
                A = _take_rows(X, rows[r : r + row_step]).astype(dtype, copy=False)
                out[r : r + row_step] += _kernel_block(A, B, metric, params) @ Vc
    return out


def _take_rows(X, idx):
    """X[idx], as a view when idx is a run of consecutive rows (the unlabeled points usually
    are one): the row blocks are read once per column block, and copying them cost ~1 s of
    a 60,000 x 784 fit."""
    idx = np.asarray(idx)
    if idx.size and idx[-1] - idx[0] == idx.size - 1 and np.all(np.diff(idx) == 1):
        return X[idx[0] : idx[-1] + 1]
    return X[idx]


def _kernel_block(A, B, metric, params):
    """k(a_i, b_j) for the rows of A and B (dense or CSR), computed in place in their dtype."""
    D = A @ B.T
    D = D.toarray() if sp.issparse(D) else np.asarray(D)
    if metric == "rbf":
        sq = [
            np.asarray(M.multiply(M).sum(axis=1)).ravel()
            if sp.issparse(M)
            else np.einsum("ij,ij->i", M, M)
            for M in (A, B)
        ]
        D *= -2
        D += sq[0].astype(D.dtype)[:, None]
        D += sq[1].astype(D.dtype)[None, :]
        np.maximum(D, 0, out=D)  # rounding can make a squared distance slightly negative
        D *= -params["gamma"]
        np.exp(D, out=D)
    elif metric == "poly":
        D *= params["gamma"]
        D += params["coef0"]
        D **= params["degree"]
    return D


def blockwise(n_rows, width, fn):
    """Evaluate fn(slice) over row blocks whose (rows x width) float64 kernel block stays
    below _CHUNK_BYTES, so prediction never materialises an n x n_SV matrix."""
    step = max(1, _CHUNK_BYTES // (8 * max(width, 1)))
    out = np.empty(n_rows)
    for start in range(0, n_rows, step):
        r = slice(start, min(start + step, n_rows))
        out[r] = np.asarray(fn(r), dtype=np.float64).ravel()
    return out


def optimal_offset(a, sign, weight, slope) -> float:
    """argmin over b of  sum_i weight_i max(0, a_i + sign_i b) + slope b  (sign_i = +-1).

    The function is convex and piecewise linear; its derivative grows by weight_i at the kink
    b = -sign_i a_i, so the minimiser is the kink where the derivative turns non-negative, or
    the midpoint of the flat piece when it is exactly zero there. Exact, O(m log m).
    """
    a, sign, weight = (np.asarray(v, dtype=np.float64) for v in (a, sign, weight))
    kinks = -sign * a
    order = np.argsort(kinks, kind="stable")
    kinks, w = kinks[order], weight[order]
    # derivative left of every kink: the terms with sign -1 are active there
    left = slope - weight[sign < 0].sum()
    d = left + np.cumsum(w)  # derivative right of kink k
    k = int(np.searchsorted(d, 0.0, side="left"))
    if left >= 0 or k >= kinks.size:
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
