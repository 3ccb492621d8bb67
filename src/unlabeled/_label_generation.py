r"""WellSVM's cutting plane by label generation (Li, Tsang, Kwok, Zhou, JMLR 2013), written
once for every weak-label task.

A weakly labeled SVM asks for labels ``y`` in a set ``B`` (balanced labelings of the unlabeled
points, one key instance per bag, balanced clusterings) and the SVM dual

.. math::

    G(\alpha, y) = 1'\alpha - \tfrac12\,\alpha'(K \odot y y')\alpha,
    \qquad \alpha \in A = \{0 \le \alpha \le c\}.

WellSVM solves the convex relaxation :math:`\max_{\alpha \in A} \min_{y \in B} G(\alpha, y)`,
equal (Proposition 1) to the multiple-kernel problem over the "label kernels"
:math:`K \odot y_t y_t'`

.. math::

    p = \min_{\mu \in \Delta} \max_{\alpha \in A} \sum_t \mu_t\, G(\alpha, y_t),

by a cutting plane: solve the MKL problem on a working set ``C`` of label vectors, ask an
*oracle* for a violated label vector, add it, repeat. Three pieces are pluggable:

* the **oracle** (a callable ``(r, alpha) -> y``): the label vector of ``B`` that maximises
  ``r'y`` for ``r = H ybar = alpha .* K(alpha .* ybar)`` (Section 4.1.3; sorting for the
  balance constraint, a per-bag argmax for multi-instance learning, a sort for clustering).
  ``alpha`` is there for oracles that search further (an exact enumeration on tiny problems);
* the **backend**: the SVM without offset on the label-mixed kernel (one engine call), the
  norms ``q_t`` and the products ``K (alpha .* y_t)``; :class:`KernelBackend` runs them on
  the engine's SMO solver and row cache, :class:`LinearBackend` on its linear dual solver
  with one ``w`` per label vector;
* the start label vector (task-specific).

The MKL step alternates (a) one SVM for fixed ``mu`` and (b) the closed form
``mu_t = ||w_t|| / sum_s ||w_s||`` with ``||w_t|| = mu_t sqrt(q_t)``,
``q_t = (alpha .* y_t)' K (alpha .* y_t)`` (Section 4.1.2, after MKLGL), ``alpha`` warm-started
throughout. Each alternation is exact block minimisation of the MKL primal, so its value
``J(mu) = 1'alpha - 1/2 sum_t mu_t q_t`` never increases; it stops when the duality gap
``J(mu) - min_t G(alpha, y_t) = 1/2 (max_t q_t - sum_t mu_t q_t)`` is below ``tol |J|``
(see :func:`solve_mkl` for its other stops).
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from ._budget import check_dense_budget
from ._engine import (
    KernelRows,
    KernelSpec,
    SolverOptions,
    as_data,
    solve_kernel_qp,
    solve_linear_dual,
)
from ._solving import cache_bytes, engine_kernel, resolve_max_iter, warn_not_converged

_UNBOUNDED = 1e8  # the squared hinge's finite box, in units of C

#: the work cap of a fit: after this many SVM solves stopped at their cap on steps without
#: meeting ``tol`` (a tolerance below rounding, extreme ``C``), the fit's remaining solves make
#: no steps and its loops stop, with a ConvergenceWarning naming ``tol``. With ``tol=1e-300``
#: TSVM (linear), WellSVM (``init="alignment"``), mi-SVM and WellSVMClustering ran every one of
#: their up to thousands of solves to the cap: minutes to hours. A fit whose solves converge
#: never meets it
MAX_CAPPED_SOLVES = 3

#: random label vectors scored together by :func:`alignment_start`
_ALIGNMENT_CHUNK = 64


def _squared_hinge_terms(C):
    """The squared hinge ``sum_i C_i xi_i^2 / 2`` as the hinge's dual with ``diag(1/C)`` added
    to the kernel and no upper bound: ``(diag, box)``, the box kept finite far above any
    alpha."""
    return 1.0 / C, C * _UNBOUNDED


class Oracle(Protocol):
    """The oracle of the cutting plane: ``(r, alpha) -> y``, ``alpha`` optional (module
    docstring)."""

    def __call__(self, r: np.ndarray, alpha: np.ndarray | None = None, /) -> np.ndarray: ...


class _Backend:
    """What both backends hold: n, the box C, the engine's options and the solve counters.
    Every solve is capped: ``max_iter`` None or negative means :func:`default_max_iter`."""

    def __init__(self, X, C, tol: float, max_iter, linear: bool):
        self.n: int = X.shape[0]
        self.C = np.ascontiguousarray(C, dtype=np.float64)
        self.max_iter = resolve_max_iter(max_iter, self.n, linear)
        self.default_cap = max_iter is None or max_iter < 0
        self.options = SolverOptions(tol, True, self.max_iter)
        self.n_solves = 0
        self.n_inner_iter = 0
        self.all_converged = True
        self.n_capped = 0  # solves stopped at their cap (see MAX_CAPPED_SOLVES)
        self.diag: np.ndarray | None = None  # D = diag(1/C) of the squared hinge (kernel only)
        #: a time on time.monotonic's clock (an estimator's max_time): the solves stop there
        #: (the engine's progress callback) and later ones make no steps, but the fit's first
        #: solve makes min(n, 1000) steps so that the model is not empty (a step computes two
        #: kernel rows: at 60,000 points 1000 steps took about a second); None: no limit
        self.deadline: float | None = None
        #: seconds of a pass over the kernel (n^2 values): estimated, then timed by the starts
        self.pass_seconds = 0.0

    def estimate_pass(self) -> float:
        """:attr:`pass_seconds`, estimated the first time (0 here: a subclass whose passes
        are costly times a sample of them)."""
        return self.pass_seconds

    def out_of_time(self, cost: float = 0.0) -> bool:
        """Whether :attr:`deadline` has passed, or will have after ``cost`` more seconds."""
        return self.deadline is not None and time.monotonic() + cost >= self.deadline

    def _progress(self):
        """The engine's progress callback: stop the solve at :attr:`deadline` (None: none)."""
        if self.deadline is None:
            return None
        first = self.n_solves == 0
        return lambda it, violation, objective, elapsed: (
            self.out_of_time() and (not first or it >= min(self.n, 1000))
        )

    @property
    def exhausted(self) -> bool:
        """Whether the fit's work cap is spent: :data:`MAX_CAPPED_SOLVES` solves stopped at
        their cap. Later solves return their start, and the loops stop."""
        return self.n_capped >= MAX_CAPPED_SOLVES

    def _options(self, options=None):
        """The engine's options for the next solve: no steps once :attr:`exhausted`."""
        opts = options or self.options
        stop = self.exhausted or (self.out_of_time() and self.n_solves > 0)
        return SolverOptions(opts.tol, opts.shrinking, 0) if stop else opts


class KernelBackend(_Backend):
    """SVM solves and kernel products on the engine, for a kernel over the points of ``X``.

    One :class:`~unlabeled._engine.KernelRows` holds the kernel rows for the whole fit, so rows
    computed by one solve are reused by every later solve and product (the row cache has a
    byte budget, ``cache_bytes``; nothing n x n is ever formed).

    Parameters
    ----------
    X : ndarray or sparse matrix of shape (n, d)
        The points (a square Gram matrix when ``spec.kind == 3``).
    spec : KernelSpec
        The engine's kernel.
    C : ndarray of shape (n,)
        The box ``0 <= alpha_i <= C_i`` of the SVMs without offset.
    cache_bytes : float
        The row cache's budget.
    tol : float
        The engine's KKT tolerance.
    """

    def __init__(self, X, spec: KernelSpec, C, cache_bytes: float, tol: float, max_iter=-1):
        super().__init__(X, C, tol, max_iter, linear=False)
        self.rows = KernelRows(
            as_data(X, compress_columns=True), spec, np.arange(self.n, dtype=np.int32), cache_bytes
        )
        self.vp = np.arange(self.n, dtype=np.int64)

    #: kernel rows computed to estimate the cost of a pass (each row is n kernel values)
    _SAMPLE_ROWS = 256

    def estimate_pass(self) -> float:
        """The seconds of a pass over the kernel rows (n rows of n values), from the time of
        ``min(n, 256)`` rows of a product on evenly spaced points, scaled by n over their
        number (measured within 30 % at 5,000 to 20,000 points; the rows stay cached)."""
        if self.pass_seconds == 0.0:
            m = min(self.n, self._SAMPLE_ROWS)
            points = np.linspace(0, self.n - 1, m).astype(np.int64)
            tic = time.monotonic()
            self.products(np.ones(m), np.ones((m, 1), dtype=np.int8), points)
            self.pass_seconds = (time.monotonic() - tic) * self.n / m
        return self.pass_seconds

    def use_squared_hinge(self) -> None:
        """Turn every SVM into the squared hinge ``sum_i C_i xi_i^2 / 2``: its dual is the
        hinge's with ``D = diag(1/C)`` added to the kernel and no upper bound. The diagonal of
        ``sum_t mu_t y_t y_t'`` is ``sum_t mu_t = 1``, so the label kernels become
        ``(K + D) .* y y'`` and every product below includes ``D`` (the self term of each
        training point). The box is kept finite, far above any alpha (checked)."""
        self.diag, self.C = _squared_hinge_terms(self.C)

    def solve(self, Y, mu, alpha0):
        """``argmax_alpha 1'alpha - 1/2 alpha'(K .* sum_t mu_t y_t y_t')alpha`` over the box;
        returns ``alpha``. ``Y`` is (n, T) of +-1."""
        res = solve_kernel_qp(
            self.rows,
            self.vp,
            -np.ones(self.n),
            self.C,
            np.clip(alpha0, 0, self.C),
            labels=np.ascontiguousarray(Y, dtype=np.int8),
            mu=np.asarray(mu, dtype=np.float64),
            equality=False,
            options=self._options(),
            diag=self.diag,
            progress=self._progress(),
        )
        self._count(res)
        return self._unbounded(res.alpha, self.C)

    def signed_solve(self, idx, y, C, alpha0, options=None):
        """An ordinary SVM *with* offset on the points ``idx`` (labels ``y``, box ``C``):
        ``(alpha, K(alpha .* y) - rho on idx, rho)``; the TSVM steps and start SVMs. With the
        squared hinge, ``C`` weighs the loss: ``diag(1/C)`` and no box."""
        C = np.ascontiguousarray(C, dtype=np.float64)
        diag = None
        if self.diag is not None:
            diag, C = _squared_hinge_terms(C)
        res = solve_kernel_qp(
            self.rows,
            np.asarray(idx, dtype=np.int64),
            -np.ones(len(idx)),
            C,
            alpha0,
            y=np.ascontiguousarray(y, dtype=np.int8),
            equality=True,
            options=self._options(options),
            diag=diag,
            progress=self._progress(),
        )
        self._count(res)
        return self._unbounded(res.alpha, C), y * (res.G + 1.0) - res.rho, res.rho

    #: the estimator's kernel, named in the errors (set by :func:`make_backend`)
    kernel_name = "given"

    def _unbounded(self, alpha, C):
        if self.diag is not None and np.any(alpha >= 0.5 * C):
            fix = (
                "clip the negative eigenvalues of the precomputed X (K = V max(w, 0) V' from "
                "numpy.linalg.eigh)"
                if self.kernel_name == "precomputed"
                else "use coef0 >= 0 (the poly kernel is not positive semi-definite otherwise)"
                if self.kernel_name == "poly"
                else "rescale the features"
            )
            raise ValueError(
                f"loss='squared_hinge' needs a positive semi-definite kernel, and the "
                f"{self.kernel_name} kernel is not on this data: a dual variable grew without "
                f"bound (the squared hinge's dual has no box). Use loss='hinge', whose box "
                f"keeps the dual bounded, or {fix}"
            )
        return alpha

    def products(self, alpha, Y, points=None):
        """``K (alpha .* y_t)`` on ``points`` (all by default) for every column ``y_t`` of
        ``Y``, where ``alpha`` and ``Y`` (+-1) are given on the same points: shape
        (len(points), T). Only those points enter the sum, so restricting them to the
        support of ``alpha`` gives its exact products there.

        Each column is one engine pass with no solver step (``max_iter=0``): the gradient
        ``(K .* y y') alpha`` from the cached rows of the points with ``alpha_i > 0``."""
        vp = self.vp if points is None else np.asarray(points, dtype=np.int64)
        Y = np.asarray(Y, dtype=np.int8).reshape(vp.size, -1)
        out = np.empty(Y.shape, dtype=np.float64)
        box = alpha + 1.0  # no variable at its upper bound: no second gradient to build
        zero = np.zeros(vp.size)
        opts = SolverOptions(1.0, False, 0)
        for t in range(Y.shape[1]):
            y = np.ascontiguousarray(Y[:, t])
            res = solve_kernel_qp(
                self.rows, vp, zero, box, alpha, y=y, equality=False, options=opts
            )
            out[:, t] = y * res.G
        if self.diag is not None:
            out += (self.diag[vp] * alpha)[:, None] * Y
        return out

    def label_norms(self, alpha, Y):
        """``q_t = (alpha .* y_t)' K (alpha .* y_t)`` for every column of ``Y``, from the
        products on the support of ``alpha`` only (``|S|^2`` work per label vector)."""
        S = np.flatnonzero(alpha > 0)
        Y = np.asarray(Y, dtype=np.int8)
        if S.size == 0:
            return np.zeros(Y.shape[1])
        return np.einsum("i,it,it->t", alpha[S], Y[S], self.products(alpha[S], Y[S], S))

    def _count(self, res):
        self.n_solves += 1
        self.n_inner_iter += res.n_iter
        if self.out_of_time():  # stopped by the clock: the estimator's max_time warning says so
            return
        self.all_converged &= bool(res.converged)
        self.n_capped += not (res.converged or self.exhausted)  # not the step-less ones


class LinearBackend(_Backend):
    """SVM solves and products for the linear kernel ``K = X X'``, with ``w`` vectors kept.

    The engine's linear dual solver (LIBLINEAR's coordinate descent) keeps one
    ``w_t = X'(alpha .* y_t)`` per label vector, so ``q_t = ||w_t||^2`` costs ``O(d)`` and a
    product ``K (alpha .* y) = X (X'(alpha .* y))`` two sparse passes, ``O(nnz)``: nothing is
    n x n, and memory is linear in the non-zeros.

    Parameters
    ----------
    X : ndarray or CSR matrix of shape (n, d)
    C : ndarray of shape (n,)
        The box of the SVMs without offset.
    tol : float
        The solver's tolerance on the largest projected gradient.
    """

    def __init__(self, X, C, tol: float, max_iter=-1):
        super().__init__(X, C, tol, max_iter, linear=True)
        self.X = X
        self._check_width(2)  # the start's w and its product, before any work
        self.data = as_data(X)
        self.row = np.arange(self.n, dtype=np.int32)
        self._last = None  # (alpha, Y, W) of the last solve

    def _check_width(self, T: int) -> None:
        """Refuse ``T`` dense weight vectors of ``n_features`` entries over the dense-memory
        budget or the memory available, before they are made."""
        d = self.X.shape[1]
        check_dense_budget(
            8.0 * d * T,
            f"the linear solver keeps {T} dense weight vector(s) of n_features = {d:,} entries",
            "drop the columns that no row uses (X[:, np.unique(X.indices)] for CSR X) or use "
            "a non-linear kernel",
        )

    def solve(self, Y, mu, alpha0):
        """As :meth:`KernelBackend.solve`, by ``solve_linear_dual`` with ``m = T`` vectors."""
        Y = np.ascontiguousarray(Y, dtype=np.int8)
        self._check_width(Y.shape[1])
        res = solve_linear_dual(
            self.data,
            self.row,
            -np.ones(self.n),
            self.C,
            np.clip(alpha0, 0, self.C),
            Y,
            mu=np.asarray(mu, dtype=np.float64),
            options=self._options(),
            progress=self._progress(),
        )
        self._count(res)
        alpha = res.alpha  # each read of res.alpha is a new array
        self._last = (alpha, Y, res.w)
        return alpha

    def signed_solve(self, idx, y, C, alpha0, options=None):
        """An SVM with offset on the rows ``idx``: ``(alpha, f on idx, rho)``; the offset from
        the KKT conditions (the mean of ``y_t G_t`` over free variables, else the middle of
        the feasible interval)."""
        idx = np.asarray(idx, dtype=np.int32)
        y = np.ascontiguousarray(y, dtype=np.int8)
        C = np.ascontiguousarray(C, dtype=np.float64)
        res = solve_linear_dual(
            self.data,
            idx,
            -np.ones(idx.size),
            C,
            alpha0,
            y[:, None],
            y=y,
            equality=True,
            options=self._options(options),
            progress=self._progress(),
        )
        self._count(res)
        a = res.alpha
        f = np.asarray(self.X[idx] @ res.w[0]).ravel()
        yG = f - y  # y_t G_t with G_t = y_t f_t - 1
        free = (a > 0) & (a < C)
        if free.any():
            rho = float(yG[free].mean())
        else:  # rho between the bounds that the KKT conditions leave
            up = ((y > 0) & (a < C)) | ((y < 0) & (a > 0))
            lo = ((y > 0) & (a > 0)) | ((y < 0) & (a < C))
            hi_b = yG[up].max() if up.any() else yG.max()
            lo_b = yG[lo].min() if lo.any() else yG.min()
            rho = 0.5 * (hi_b + lo_b)
        return a, f - rho, rho

    def label_norms(self, alpha, Y):
        """``q_t = ||w_t||^2``, from the solver's kept ``w`` when ``alpha`` is its answer."""
        last = self._last
        if last is not None and last[0] is alpha and np.array_equal(last[1], Y):
            return np.einsum("td,td->t", last[2], last[2])
        W = self._weights(alpha, Y)
        return np.einsum("dt,dt->t", W, W)

    def products(self, alpha, Y, points=None):
        """``X[points] (X'(alpha .* y_t))``, with ``alpha``, ``Y`` on ``points`` (all by
        default): shape (len(points), T)."""
        X = self.X if points is None else self.X[np.asarray(points)]
        self._check_width(np.shape(Y)[1])
        W = np.asarray(X.T @ (np.asarray(alpha)[:, None] * np.asarray(Y, dtype=np.float64)))
        return np.asarray(X @ W)

    def _weights(self, alpha, Y):
        self._check_width(np.shape(Y)[1])
        return np.asarray(self.X.T @ (alpha[:, None] * np.asarray(Y, dtype=np.float64)))

    _count = KernelBackend._count


@dataclass
class MKLResult:
    """One solved multiple label-kernel problem: ``alpha``, ``mu``,
    ``q_t = (alpha .* y_t)' K (alpha .* y_t)``, the value ``J``, the number of alternations,
    whether the duality gap met the tolerance, and whether ``floor`` stopped it."""

    alpha: np.ndarray
    mu: np.ndarray
    q: np.ndarray
    value: float
    n_iter: int
    converged: bool
    bounded_below: bool = False


def solve_mkl(
    backend,
    Y,
    mu,
    alpha,
    *,
    max_iter: int,
    tol: float,
    floor=None,
    label_dtype=np.int8,
    groups=None,
) -> MKLResult:
    r"""The multiple label-kernel problem on the label vectors ``Y`` (n, T), by alternation.

    .. math:: \min_{\mu \in \Delta} \max_{0 \le \alpha \le c}
              1'\alpha - \tfrac12 \alpha'\Bigl(K \odot \sum_t \mu_t y_t y_t'\Bigr)\alpha

    Each round: one SVM for fixed ``mu`` (warm-started at the previous ``alpha``), then
    ``mu_t <- mu_t sqrt(q_t) / sum_s mu_s sqrt(q_s)``. Stops when the duality gap
    ``1/2 (max_t q_t - mu'q)`` is at most ``tol * max(1, |J|)`` (converged), when ``J`` fell by
    less than ``tol / 100`` relative in the last round (stalled: the weights of label kernels
    whose ``q_t`` is just below the maximum decay slowly while ``J`` no longer moves), or after
    ``max_iter`` SVMs. The returned ``alpha`` is optimal for the returned ``mu``.

    With ``floor``, it also stops as soon as the lower bound ``min_t G(alpha, y_t) =
    1'alpha - 1/2 max_t q_t`` of the optimal value exceeds ``floor`` (``bounded_below``): the
    cutting plane's certificate that a step cannot decrease the objective below ``floor``.

    ``label_dtype`` is the dtype of the label vectors handed to the backend: int8 signs for
    the label kernels ``K .* y y'``; multi-instance learning passes int64 instance indices
    (its label vectors say which instance stands for each dual variable).

    With ``groups``, a (T, G) matrix of non-negative columns that each sum to 1, the label
    kernels enter in G fixed combinations: ``mu`` holds the G group weights ``beta``, the
    per-vector weights are ``groups @ beta``, and the update, gap and bound above use the
    groups' ``q_g = groups' q`` (the authors' code keeps two kernels: every earlier label
    kernel folded into one with its weights fixed, and the new one). The returned ``mu`` is
    per label vector.
    """
    Y = np.asarray(Y, dtype=label_dtype)
    mu = np.asarray(mu, dtype=np.float64) / np.sum(mu)
    W = None if groups is None else np.asarray(groups, dtype=np.float64)
    last = np.inf
    for k in range(1, max_iter + 1):
        m = mu if W is None else W @ mu
        alpha = backend.solve(Y, m, alpha)
        q = np.maximum(backend.label_norms(alpha, Y), 0.0)
        qg = q if W is None else W.T @ q
        value = float(alpha.sum() - 0.5 * mu @ qg)
        scale = max(1.0, abs(value))
        converged = 0.5 * (qg.max() - mu @ qg) <= tol * scale
        above = floor is not None and alpha.sum() - 0.5 * qg.max() > floor
        norms = mu * np.sqrt(qg)
        stop = k == max_iter or last - value <= 0.01 * tol * scale
        stop = stop or getattr(backend, "exhausted", False) or _out_of_time(backend)
        if converged or above or stop:
            return MKLResult(alpha, m, q, value, k, converged, above)
        if norms.sum() <= 0:
            return MKLResult(alpha, m, q, value, k, True)
        last = value
        mu = norms / norms.sum()
    raise ValueError(f"max_mkl_iter must be >= 1, got {max_iter}")


@dataclass
class LabelGenerationResult:
    """The outcome of :func:`label_generation`: the label vectors ``labels`` (n, T), their
    weights ``mu``, the dual ``alpha``, ``f = K(alpha .* sum_t mu_t y_t)`` on the training
    points, the objective after every cutting-plane step, the iteration counts, and whether
    the final MKL problem stopped at ``max_mkl_iter`` without its gap certificate."""

    labels: np.ndarray
    mu: np.ndarray
    alpha: np.ndarray
    f_train: np.ndarray | None  # None until label_generation's last step
    history: list = field(default_factory=list)
    n_iter: int = 0
    mkl_iter: list = field(default_factory=list)
    stop: str = ""
    mkl_limit: bool = False


def _mkl_step(backend, Y_next, cur, two_kernels, max_mkl_iter, tol, floor, label_dtype):
    """The MKL problem on the working set ``Y_next`` (the last column the new label vector),
    warm-started from ``cur``: every weight learned from ``(T mu / (T + 1), 1 / (T + 1))``, or
    with ``two_kernels`` the working set folded into one kernel (weights ``cur.mu``) and the
    new one second, from the authors' code's (0.9, 0.1)."""
    T = Y_next.shape[1] - 1
    mu0 = np.r_[cur.mu * T / (T + 1), 1.0 / (T + 1)]
    groups = None
    if two_kernels:
        groups = np.zeros((T + 1, 2))
        groups[:T, 0], groups[T, 1] = cur.mu, 1.0
        mu0 = np.array([0.9, 0.1])
    return solve_mkl(
        backend,
        Y_next,
        mu0,
        cur.alpha,
        max_iter=max_mkl_iter,
        tol=tol,
        floor=floor,
        label_dtype=label_dtype,
        groups=groups,
    )


def label_generation(
    backend,
    oracle: Oracle,
    y0,
    *,
    max_iter: int,
    max_mkl_iter: int,
    tol: float,
    refine: bool = False,
    verbose: bool = False,
    violated=None,
    label_dtype=np.int8,
    deadline: float | None = None,
    two_kernels: bool = False,
) -> LabelGenerationResult:
    r"""WellSVM's cutting plane (Algorithm 1 with Sections 4.1.2-4.1.3 of the paper).

    Parameters
    ----------
    backend : KernelBackend or LinearBackend
        ``solve(Y, mu, alpha0)``, ``label_norms(alpha, Y)`` and ``products(alpha, Y)``.
    oracle : callable
        ``oracle(r, alpha)`` returns a label vector of ``B`` (int8, +-1): the one maximising
        ``r'y`` (the paper's), or any better violated one.
    y0 : ndarray of shape (n,)
        The start label vector (in ``B``).
    max_iter : int
        Cutting-plane iterations (label vectors added) at most.
    max_mkl_iter : int
        SVM solves per MKL problem at most.
    tol : float
        Relative tolerance: of the MKL duality gap, of a label vector's violation
        ``1/2 (q_new - max_t q_t)`` and of the objective's decrease.
    refine : bool
        Repeat the oracle from its own answer while ``y'Hy`` grows (the authors' code).
    violated : callable, optional
        ``violated(cur, Y) -> (y, q)``: the violated label vector for the MKL solution ``cur``
        on the working set ``Y`` and its ``q = y'Hy``, or ``(None, 0)``. By default Section
        4.1.3's search with ``oracle`` on ``r = H ybar``; multi-instance learning, whose label
        vectors are not signs, supplies its own.
    label_dtype : numpy dtype, default=int8
        The dtype of the label vectors (see :func:`solve_mkl`).
    deadline : float, optional
        A time on :func:`time.monotonic`'s clock: no cutting-plane step starts after it
        (``stop == "max_time"``; the result is the last MKL solution, as for ``max_iter``).
        None (the default): no limit on time.
    two_kernels : bool, default=False
        The authors' code's MKL step: the working set's label kernels folded into one with
        their weights fixed, and only its weight and the new label kernel's learned,
        starting at (0.9, 0.1) (see :func:`solve_mkl`'s ``groups``). False (the paper):
        every weight is learned, starting at ``(T mu / (T + 1), 1 / (T + 1))``.

    Returns
    -------
    LabelGenerationResult
        ``history`` holds ``p_t``, the MKL value on the working set after each step: it
        decreases (a step whose MKL value does not decrease, or provably cannot decrease by
        ``tol |p|``, is undone and ends the loop; two kept steps in a row that each lower it
        by at most ``tol |p|`` end it too).
    """
    Y = np.asarray(y0, dtype=label_dtype).reshape(-1, 1)
    if violated is None:

        def violated(cur, Y):
            return _violated_label(backend, oracle, cur, Y, refine)

    cur = solve_mkl(
        backend,
        Y,
        [1.0],
        np.zeros(Y.shape[0]),
        max_iter=max_mkl_iter,
        tol=tol,
        label_dtype=label_dtype,
    )
    out = LabelGenerationResult(Y, cur.mu, cur.alpha, None, [cur.value])
    out.mkl_iter.append(cur.n_iter)
    _log(verbose, 0, cur.value, 1, cur.n_iter)  # the start labeling's MKL problem
    out.stop = "max_iter"
    small_before = False
    for _ in range(max_iter):
        if getattr(backend, "exhausted", False):
            out.stop = "work cap"
            break
        if _out_of_time(backend) or (deadline is not None and time.monotonic() >= deadline):
            out.stop = "max_time"
            break
        y_new, q_new = violated(cur, Y)
        if _out_of_time(backend):  # the search ran into the deadline: no step after it
            out.stop = "max_time"
            break
        scale = tol * max(1.0, abs(cur.value))
        if y_new is None or 0.5 * (q_new - cur.q.max()) <= scale:
            out.stop = "no violated label vector"
            break
        T = Y.shape[1]
        Y_next = np.c_[Y, y_new]
        nxt = _mkl_step(
            backend, Y_next, cur, two_kernels, max_mkl_iter, tol, cur.value - scale, label_dtype
        )
        out.mkl_iter.append(nxt.n_iter)
        _log(verbose, len(out.history), nxt.value, T + 1, nxt.n_iter)
        if nxt.bounded_below or nxt.value >= cur.value:  # no decrease by tol: undo the step
            out.stop = "objective decreased by less than tol"
            break
        out.n_iter += 1
        small = cur.value - nxt.value <= scale
        Y, cur = Y_next, nxt
        out.history.append(cur.value)
        # Two small steps in a row end the loop, not one: on RCV1-shaped data the first
        # steps from the labeled SVM's labels lower p by under 1% and the third by 20%
        # (30k points, tol 1e-2: stopping at the first small step left 0.85 test accuracy,
        # at the second 0.998 in 20 steps; never stopping on a kept step 0.99 in 37)
        if small and small_before:
            out.stop = "objective decreased by less than tol"
            break
        small_before = small
    if verbose:
        print(f"[WellSVM] stop: {out.stop} after {out.n_iter} steps", file=sys.stderr, flush=True)
    out.labels, out.mu, out.alpha = Y, cur.mu, cur.alpha
    out.mkl_limit = cur.n_iter >= max_mkl_iter and not cur.converged
    out.f_train = backend.products(cur.alpha, Y) @ cur.mu
    return out


def store_result(
    est, res: LabelGenerationResult, backend, max_iter: int, who="WellSVM", stacklevel: int = 3
):
    """Set an estimator's cutting-plane attributes from ``res`` (``objective_history_``,
    ``n_iter_``, ``n_mkl_iter_``, ``stop_reason_``) and warn when a limit stopped the loop
    (``max_iter``), an inner SVM, or the last MKL problem."""
    est.objective_history_ = np.asarray(res.history)
    est.n_iter_ = len(res.history)
    est.n_mkl_iter_ = list(res.mkl_iter)
    est.stop_reason_ = res.stop
    if res.stop == "max_iter":
        warn_not_converged(who, limit=max_iter, used=res.n_iter, stacklevel=stacklevel)
    if getattr(backend, "exhausted", False):
        warn_work_capped(backend, who, stacklevel=stacklevel + 1)
    elif not backend.all_converged or res.mkl_limit:
        warn_not_converged(
            who,
            why="an inner SVM or MKL problem hit its iteration limit",
            detail=" (raise max_mkl_iter, or tol)",
            stacklevel=stacklevel,
        )


def warn_if_solves_capped(backend, who: str, stacklevel: int = 3) -> None:
    """The ConvergenceWarning of an estimator whose SVM solves on ``backend`` (a
    :class:`KernelBackend` or :class:`LinearBackend`) did not all meet ``tol``: one stopped at
    its cap on steps, the estimator's ``max_iter`` or, for None, :func:`default_max_iter`. Its
    model then depends on the path the solver took (and so on rounding, e.g. the layout of
    ``X``): the warning says so and what to change."""
    if backend.all_converged:
        return
    if backend.exhausted:
        warn_work_capped(backend, who, stacklevel=stacklevel + 1)
        return
    cap = backend.max_iter
    if backend.default_cap:
        per = 1000 if isinstance(backend, LinearBackend) else 100
        at = (
            f"the default cap of {cap} steps (max(10^7, {per} n_samples)); rescale the data, "
            "or loosen tol"
        )
    else:
        at = f"max_iter={cap} steps; increase max_iter"
    warn_not_converged(
        who, why=f"stopped an SVM solve before tol held, at {at}", stacklevel=stacklevel
    )


def warn_work_capped(backend, who: str, stacklevel: int = 3) -> None:
    """The ConvergenceWarning of a fit stopped by its work cap (:data:`MAX_CAPPED_SOLVES`)."""
    warn_not_converged(
        who,
        why=f"stopped early: {backend.n_capped} SVM solves reached their cap on steps "
        f"({backend.max_iter}) without meeting tol={backend.options.tol:g}, the fit's work cap "
        f"(MAX_CAPPED_SOLVES = {MAX_CAPPED_SOLVES}); the rest were not run. Loosen tol (below "
        "about 1e-12 it is under what floating point can reach) or rescale the data",
        stacklevel=stacklevel,
    )


def _violated_label(backend, oracle, cur: MKLResult, Y, refine=False):
    """Section 4.1.3: ``ybar`` the working-set member with the largest ``y'Hy = q``, then the
    oracle's ``argmax_{y in B} y' H ybar``; returns ``(y, y'Hy)`` or ``(None, 0)`` when the
    oracle returns a member of the working set. With ``refine`` (the authors' code) the
    sort is repeated from the new vector (``ybar <- y``) while ``y'Hy`` increases: a local
    ascent on the concave ``max_{y in B} y'Hy`` that the paper does in one step."""
    a = cur.alpha
    r = a * backend.products(a, Y[:, [int(np.argmax(cur.q))]])[:, 0]
    best, q_best = None, 0.0
    while True:
        y = np.asarray(oracle(r, a), dtype=np.int8)
        if np.any(np.all(Y == y[:, None], axis=0)) or (best is not None and np.all(y == best)):
            return best, q_best
        p = backend.products(a, y[:, None])[:, 0]
        q = float(np.dot(a * y, p))
        if best is not None and not q > q_best:  # (NaN included: the ascent must rise)
            return best, q_best
        best, q_best = y, q
        if not refine or _out_of_time(backend):
            return best, q_best
        r = a * p


def _out_of_time(backend) -> bool:
    """Whether the backend's deadline has passed (a backend without one never runs out)."""
    check = getattr(backend, "out_of_time", None)
    return bool(check is not None and check())


def _log(verbose, step, value, T, n_mkl):
    if verbose:
        print(
            f"[WellSVM] step {step:3d}  objective {value:.8g}  label vectors {T:3d}  "
            f"MKL solves {n_mkl}",
            file=sys.stderr,
            flush=True,
        )


# ---------------------------------------------------------------------- shared by the tasks
class BalancedLabels:
    """The sorting oracle of Sections 4.1.3 and 4.3.1 for a balance constraint.

    ``B`` = the label vectors equal to the given labels on the labeled points (``signs`` +-1;
    0 marks a free point), with between ``n_negative`` and ``n_negative_max`` of the free
    points at -1 (exactly ``n_negative`` when ``n_negative_max`` is None: the
    semi-supervised constraint; a range for clustering's ``-beta <= 1'y <= beta``).
    ``self(r)`` returns ``argmax_{y in B} r'y`` (``alpha``, the cutting plane's second
    argument, is not needed; Proposition 5). Since ``r'y = 1'r - 2 sum_{y_i = -1} r_i``, the
    free points are sorted by ``r`` and the ``k`` smallest get -1, ``k`` the number of
    negative ``r_i`` clipped to ``[n_negative, n_negative_max]`` (ties broken by index). For
    clustering this is the paper's rule: the ``(N - beta)/2`` smallest get -1, the
    ``(N - beta)/2`` largest +1, the others the sign of ``r_i`` (+1 for ``r_i = 0``).

    With a ``backend`` (and ``alpha``), ties are broken by decision values. A point with
    ``alpha_i = 0`` has ``r_i = alpha_i [K(alpha .* ybar)]_i = 0``: every label of it gives
    the same ``r'y``, and the sort alone gives it +1 or -1 by its index, a label that has
    nothing to do with the data. Among the maximisers of ``r'y``, the oracle then returns the
    one that gives those points the sign of ``g = K(alpha .* y)``, the decision values of the
    answer ``y`` itself (which depend only on its labels where ``alpha > 0``): free points
    are sorted by ``r``, ties by ``g``, and -1 goes to the ``k`` first, ``k`` the number with
    ``r < 0`` or ``r = 0, g < 0`` clipped to the balance range. Its ``r'y`` is the paper's.
    """

    def __init__(self, signs, n_negative: int, n_negative_max: int | None = None, backend=None):
        self.base = np.asarray(signs, dtype=np.int8).copy()
        self.unlabeled = np.flatnonzero(self.base == 0)
        self.n_negative = int(n_negative)
        self.n_negative_max = self.n_negative if n_negative_max is None else int(n_negative_max)
        self.base[self.unlabeled] = 1
        self.backend = backend

    def __call__(self, r, alpha=None) -> np.ndarray:
        ru = np.asarray(r, dtype=np.float64)[self.unlabeled]
        y = self._assign(np.argsort(ru, kind="stable"), ru < 0)
        if self.backend is None or alpha is None or np.all(alpha > 0):
            return y
        g = self.backend.products(alpha, y[:, None])[self.unlabeled, 0]
        return self._assign(np.lexsort((g, ru)), (ru < 0) | ((ru == 0) & (g < 0)))

    def _assign(self, order, negative):
        """-1 to the free points ``order[:k]``, ``k`` the count of ``negative`` in range."""
        k = int(np.clip(np.count_nonzero(negative), self.n_negative, self.n_negative_max))
        y = self.base.copy()
        y[self.unlabeled[order[:k]]] = -1
        return y


def alignment_start(
    backend, oracle: Oracle, random_state, n_labelings: int = 20, deadline: float | None = None
) -> np.ndarray:
    """The authors' start: of ``n_labelings`` random label vectors of ``B`` (the oracle's
    answers to ``r`` uniform on ``[-1/2, 1/2)``), the one best aligned with the kernel.

    Kernel-target alignment (Cristianini et al., 2002) ``<K, y y'>_F / (||K||_F ||y y'||_F)``
    is ``y'Ky / (n ||K||_F)`` for a +-1 vector, so the best is the largest ``y'Ky``; one pass
    over the kernel rows (``backend.products``) scores each candidate.

    Parameters
    ----------
    backend : KernelBackend or LinearBackend
    oracle : callable
        Maps a score vector to a label vector of ``B``.
    random_state : None, int, numpy RandomState or Generator
    n_labelings : int
    deadline : float, optional
        A time on :func:`time.monotonic`'s clock: a kernel pass (n^2 kernel values) is not
        started when the last one, run now, would end after it; the best of the candidates
        scored is returned (the first candidate, unscored, when none was). None: no limit.

    Returns
    -------
    ndarray of int8, shape (n,)
    """
    if isinstance(random_state, np.random.RandomState):
        random_state = random_state.randint(2**31)
    rng = np.random.default_rng(random_state)
    # in chunks of candidates, the best kept: memory O(n chunk) for any n_labelings (a
    # WellSVMClustering(n_init=10**6) stacked n x 10^6 labels and their float products)
    best, best_align = None, -np.inf
    ones = np.ones(backend.n)
    for start in range(0, n_labelings, _ALIGNMENT_CHUNK):
        k = min(_ALIGNMENT_CHUNK, n_labelings - start)
        Y = np.stack([oracle(rng.random(backend.n) - 0.5) for _ in range(k)], axis=1)
        if deadline is None:
            P = backend.products(ones, Y)
        else:  # the kernel engine's columns are separate passes: the same values one by one
            step = 1 if isinstance(backend, KernelBackend) else k
            P, done = np.empty(Y.shape), 0
            while done < k and time.monotonic() + step * backend.estimate_pass() < deadline:
                tic = time.monotonic()
                P[:, done : done + step] = backend.products(ones, Y[:, done : done + step])
                done, backend.pass_seconds = done + step, (time.monotonic() - tic) / step
            if done == 0:  # out of time: the best so far, else the first draw unscored
                return Y[:, 0].copy() if best is None else best
            Y, P = Y[:, :done], P[:, :done]
        align = np.einsum("it,it->t", Y, P)
        t = int(np.argmax(align))
        if align[t] > best_align or best is None:  # the first of equal ones, as before
            best, best_align = Y[:, t].copy(), align[t]
        if Y.shape[1] < k:
            break
    assert best is not None  # n_labelings >= 1
    return best


def make_backend(est, X, C, tol: float, max_iter: int = -1):
    """The engine for the kernel of the kernel machine ``est`` (its kernel, ``cache_size`` in
    MB): the linear dual solver with ``w`` kept for ``kernel="linear"`` once the Gram matrix
    outgrows the cache (sparse data at any scale), else SMO on one kernel-row cache."""
    cache = cache_bytes(est.cache_size)
    # While every kernel row fits in the cache, SMO's second-order steps on cached rows beat
    # coordinate descent on w, whose free points are nearly collinear on small dense data
    # (WellSVM on clean1, 476 points, 50 steps: 12.6 s against 65 s)
    if est.kernel == "linear" and 8.0 * X.shape[0] ** 2 > cache:
        return LinearBackend(X, C, tol, max_iter)
    backend = KernelBackend(X, engine_kernel(est), C, cache, tol, max_iter)
    backend.kernel_name = est.kernel
    return backend


def store_label_generation(
    est, X, res: LabelGenerationResult, backend, max_iter: int, classes=None
) -> None:
    """Give the estimator ``est`` the fitted attributes of a WellSVM fit from its result
    ``res``: the expansion ``f = sum_i alpha_i (sum_t mu_t y_ti) k(x_i, .)`` without offset
    (``support_``, ``dual_coef_``, ...), ``alpha_``, ``label_vectors_``, ``mu_``,
    ``objective_history_``, ``n_iter_``, ``n_mkl_iter_`` and ``stop_reason_``; warn when the
    cutting plane or an inner problem stopped at its iteration limit."""
    est.set_expansion(X, res.alpha * (res.labels @ res.mu), None, classes=classes)
    est.alpha_ = res.alpha
    est.label_vectors_ = res.labels
    est.mu_ = res.mu
    store_result(est, res, backend, max_iter, type(est).__name__, stacklevel=4)
