"""WellSVM for multi-instance learning (Li, Tsang, Kwok, Zhou, JMLR 2013, Section 4.2)."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .._budget import check_dense_budget
from .._engine import KernelRows, SolverOptions, as_data, solve_kernel_qp
from .._kernels import as_float64
from .._label_generation import MAX_CAPPED_SOLVES, label_generation, store_result
from .._solving import cache_bytes, kernel_spec, resolve_max_iter, warn_not_converged
from .._validation import MAX_C, VERBOSE, Integer, Options, Real
from ..base import Fitted, fill_docstring, set_init_params
from ..registry import register
from ._base import SHARED_DOC, MultiInstanceClassifier

#: the rows of the instance kernel made elementwise at once (kept in the CPU's cache)
_BLOCK_BYTES = 2**21


class KeyInstanceBackend:
    r"""The SVMs of WellSVM's multi-instance relaxation, on the engine.

    The instances are ordered with those of the positive bags first (``0 .. P - 1``) and the
    negative ones last (``P .. N - 1``). The dual variables are one per positive bag (``p``
    of them) and one per negative instance. A *label vector* ``s`` says which instance
    stands for each variable: the key instance of each positive bag (the choice being
    learned), then the negative instances themselves (``P .. N - 1``, fixed). Its kernel is
    :math:`K^s_{ij} = k(x_{s_i}, x_{s_j})`, signed by :math:`\hat y = (1_p, -1_{N-P})`, and
    for label vectors ``s_1 .. s_T`` with weights ``mu`` the SVM without offset is

    .. math::

        \max_{0 \le \alpha \le c}\ 1'\alpha - \tfrac12 (\alpha\odot\hat y)'
            \Bigl(\sum_t \mu_t K^{s_t}\Bigr)(\alpha\odot\hat y),

    solved by the engine's SMO solver on the mixed kernel as a precomputed Gram matrix. Only
    its first ``p`` rows depend on ``(s, mu)`` (the negative block is the same for every
    label vector). The instance kernel is held in the leading ``N x N`` block of one
    ``(N + p) x (N + p)`` buffer whose ``p`` trailing rows and columns are the mixed rows of
    the positive variables: the engine reads the mixed kernel as the precomputed kernel of
    the points ``N .. N + p - 1`` (the positive variables) and ``P .. N - 1`` (the negative
    instances) of that buffer, so each solve rewrites ``p`` rows and columns and the
    negative block is never copied.

    Parameters
    ----------
    K : ndarray of shape (N, N) or (N + p, N + p)
        The instance Gram matrix, instances of positive bags first; with ``workspace=True``
        the buffer above, the instance Gram matrix in its leading ``N x N`` block (its other
        entries are the backend's), used in place.
    P : int
        The number of instances in positive bags.
    p : int
        The number of positive bags.
    C : ndarray of shape (q,)
        The box, ``q = p + N - P``.
    cache_bytes, tol, max_iter
        The engine's row cache and stopping rule.
    workspace : bool, default=False
        Whether ``K`` is the ``(N + p) x (N + p)`` buffer (C-ordered float64). Otherwise
        the buffer is made and the Gram matrix copied into it.
    """

    def __init__(self, K, P, p, C, cache_bytes, tol, max_iter=-1, *, workspace=False):
        self.P, self.p = int(P), int(p)
        if workspace:
            M = K
            N = M.shape[0] - self.p
        else:
            N = K.shape[0]
            M = np.empty((N + self.p, N + self.p))
            M[:N, :N] = K
        self.M, self.N = M, N
        self.K = M[:N, :N]  # the instance kernel, a view
        self.n = self.p + N - self.P
        self.signs = np.r_[np.ones(self.p), -np.ones(self.n - self.p)].astype(np.int8)
        self.C = np.ascontiguousarray(C, dtype=np.float64)
        # the points of the variables in the buffer: the mixed rows, then the negatives
        self.points = np.r_[np.arange(N, N + self.p), np.arange(self.P, N)].astype(np.int32)
        self.data = as_data(M)  # a view: the engine reads the rows written below
        self.cache_bytes = float(cache_bytes)
        self.max_iter = resolve_max_iter(max_iter, self.n)
        self.options = SolverOptions(tol, True, self.max_iter)
        self.n_solves = 0
        self.n_inner_iter = 0
        self.all_converged = True
        self.n_capped = 0  # solves stopped at their cap: the fit's work cap, as _Backend's
        # per label vector (its key instances' bytes), the rows K[keys, P:] and the corner
        # K[keys][:, keys] that every solve and norm reads: made once, not at every solve of
        # the MKL alternation (about 30 solves per label vector), within cache_bytes
        self._key_rows: dict[bytes, tuple[np.ndarray, np.ndarray]] = {}
        self._key_bytes = 0.0
        # the negative instances' part of the products, f_neg = alpha_neg' K[P:], of the
        # last alpha: one N x (N - P) product per alpha, not one per call
        self._f_neg: tuple[np.ndarray, np.ndarray] | None = None

    @property
    def exhausted(self) -> bool:
        """The work cap of the semi-supervised backends: after ``MAX_CAPPED_SOLVES`` solves
        stopped at their cap on steps, later solves make no steps and the cutting plane
        stops (``tol=1e-300`` ran 50 x 100 capped solves: minutes)."""
        return self.n_capped >= MAX_CAPPED_SOLVES

    @property
    def Kq(self) -> np.ndarray:  # noqa: N802 - the matrix's name in the docstrings
        """The mixed kernel of the last solve (or :meth:`mixed_kernel`), ``q x q``: a copy."""
        return self.M[np.ix_(self.points, self.points)]

    def _keys(self, S):
        return np.asarray(S, dtype=np.int64).reshape(self.n, -1)[: self.p]

    def _rows_of(self, keys):
        """``(K[keys, P:], K[keys][:, keys])`` for one column of key instances, from the
        backend's store of them (filled while it stays within the row cache's budget)."""
        tag = keys.tobytes()
        got = self._key_rows.get(tag)
        if got is None:
            got = (self.K[keys, self.P :], self.K[np.ix_(keys, keys)])
            size = float(got[0].nbytes + got[1].nbytes)
            if self._key_bytes + size <= self.cache_bytes:
                self._key_rows[tag] = got
                self._key_bytes += size
        return got

    def _write_mixed(self, S, mu):
        """Write ``sum_t mu_t K^{s_t}`` (unsigned) for the label vectors ``S`` (q, T) into
        the buffer's ``p`` trailing rows and columns."""
        keys, p, N = self._keys(S), self.p, self.N
        rows, corner = np.zeros((p, self.n - p)), np.zeros((p, p))
        for t in np.flatnonzero(np.asarray(mu) > 0):
            R, Cc = self._rows_of(np.ascontiguousarray(keys[:, t]))
            rows += mu[t] * R
            corner += mu[t] * Cc
        self.M[N:, N:] = corner
        self.M[N:, self.P : N] = rows
        self.M[self.P : N, N:] = rows.T

    def mixed_kernel(self, S, mu):
        """``sum_t mu_t K^{s_t}`` (unsigned) for the label vectors ``S`` (q, T), as a new
        ``q x q`` array (the solves read it in place)."""
        self._write_mixed(S, np.asarray(mu, dtype=np.float64))
        return self.Kq

    def _rows(self):
        """The engine's kernel rows of the variables' points (a new cache: the mixed rows
        change between solves)."""
        return KernelRows(self.data, kernel_spec("precomputed"), self.points, self.cache_bytes)

    def _count(self, res) -> None:
        """Book one solve: its steps, whether it converged or stopped at its step cap."""
        self.n_solves += 1
        self.n_inner_iter += res.n_iter
        self.all_converged &= bool(res.converged)
        self.n_capped += not (res.converged or self.exhausted)

    def solve(self, S, mu, alpha0):
        """The SVM above for the label vectors ``S`` and weights ``mu``; returns ``alpha``."""
        self._write_mixed(S, np.asarray(mu, dtype=np.float64))
        idx = np.arange(self.n)
        res = solve_kernel_qp(
            self._rows(),
            idx,
            -np.ones(self.n),
            self.C,
            np.clip(alpha0, 0, self.C),
            y=self.signs,
            equality=False,
            options=SolverOptions(self.options.tol, True, 0) if self.exhausted else self.options,
        )
        self._count(res)
        alpha = res.alpha  # each read of res.alpha is a new array
        b = alpha[self.p :]
        # b' K_nn b from the solver's gradient G_n = -(Kq[n, :p] a - K_nn b) - 1
        mixed_np = self.M[self.P : self.N, self.N :]  # Kq[p:, :p]
        bKb = b @ (res.G[self.p :] + 1.0) + b @ (mixed_np @ alpha[: self.p])
        self._last = (alpha, bKb)
        return alpha

    def solve_with_offset(self, s, alpha0):
        """The SVM *with* offset on the one label vector ``s`` (its keys and the negative
        instances, box ``C``): ``(alpha, rho)``, the model ``f = K^s(alpha .* yhat) - rho``.
        ``alpha0`` must meet ``yhat' alpha0 = 0`` (zeros do)."""
        self._write_mixed(np.asarray(s).reshape(-1, 1), np.ones(1))
        idx = np.arange(self.n)
        res = solve_kernel_qp(
            self._rows(),
            idx,
            -np.ones(self.n),
            self.C,
            alpha0,
            y=self.signs,
            equality=True,
            options=SolverOptions(self.options.tol, True, 0) if self.exhausted else self.options,
        )
        self._count(res)
        return res.alpha, float(res.rho)

    def _columns(self, width):
        """The number ``L >= width`` of leading instance columns that the products compute:
        ``width`` rounded up to a multiple of 4 (or ``N``). OpenBLAS's vector-matrix product
        rounds its last ``L mod 4`` columns by another path, so that the first ``width``
        values of a product over ``L`` columns are those over all ``N`` to the bit (x86
        OpenBLAS; to rounding elsewhere)."""
        L = -(-int(width) // 4) * 4
        return self.N if L > self.N - self.N % 4 else L

    def _negative_products(self, alpha, L):
        """``alpha_neg' K[P:, :L']`` with ``L' >= L``, kept for the last ``alpha`` (compared
        by value: the cutting plane and the refinement ask again for the same one)."""
        b = alpha[self.p :]
        got = self._f_neg
        if got is None or got[1].size < L or not np.array_equal(got[0], b):
            # K is symmetric: rows, not strided columns; the negative block as a view (a
            # gather of the support's rows copied up to 190 MB per call on musk2)
            got = self._f_neg = (b.copy(), b @ self.K[self.P :, :L])
        return got[1]

    def products(self, alpha, S, points=None):
        """The instance values ``f_t(x) = sum_i alpha_i yhat_i k(x_{s_ti}, x)`` of each label
        vector, on every instance (those in ``points`` if given): shape (N, T). Given
        ``points``, only the columns up to the last of them are computed."""
        keys = self._keys(S)
        if points is None:
            cols, L = slice(None), self.N
        else:
            cols = np.asarray(points)
            L = self._columns(int(cols.max()) + 1 if cols.size else 0)
        f_neg = self._negative_products(alpha, L)[:L]
        K = self.K[:, :L]
        return np.stack(
            [(alpha[: self.p] @ K[keys[:, t]])[cols] - f_neg[cols] for t in range(keys.shape[1])],
            axis=1,
        )

    def label_norms(self, alpha, S):
        """``q_t = (alpha .* yhat)' K^{s_t} (alpha .* yhat)`` for every label vector."""
        keys, a, b = self._keys(S), alpha[: self.p], alpha[self.p :]
        last = getattr(self, "_last", None)
        if last is not None and last[0] is alpha:
            bKb = last[1]
        else:
            bKb = b @ (self.K[self.P :, self.P :] @ b)
        out = []
        for t in range(keys.shape[1]):
            R, Cc = self._rows_of(np.ascontiguousarray(keys[:, t]))
            out.append(a @ Cc @ a - 2 * (a @ (R @ b)) + bKb)
        return np.array(out)


class KeyInstanceOracle:
    """Section 4.2.1's violated label vector: in each positive bag, the instance with the
    largest value of ``f_sbar`` (``r_ij = alpha_i f_sbar(x_ij)``; a bag with ``alpha_i = 0``
    has ``r = 0`` on all its instances, where any choice is optimal: the largest ``f`` is
    taken there too); the negative instances follow unchanged.

    Parameters
    ----------
    bag : ndarray of int, shape (n_instances,)
        Bag index of every instance.
    positive_bags : ndarray of int, shape (p,)
        The positive bags, in the order of the dual variables.
    negatives : ndarray of int
        The negative instances.
    """

    def __init__(self, bag, positive_bags, negatives):
        members = np.flatnonzero(np.isin(bag, positive_bags))
        rank = np.empty(int(bag.max()) + 1, dtype=np.int64)
        rank[positive_bags] = np.arange(positive_bags.size)
        self.members = members
        self.owner = rank[bag[members]]  # the variable (positive bag) of each member
        self.p = positive_bags.size
        self.negatives = np.asarray(negatives, dtype=np.int64)

    def __call__(self, f, alpha=None) -> np.ndarray:
        order = np.lexsort((-np.asarray(f)[self.members], self.owner))
        first = np.r_[0, np.flatnonzero(np.diff(self.owner[order])) + 1]
        return np.r_[self.members[order[first]], self.negatives]

    def ascend(self, s, f, alpha, K, max_sweeps=100):
        r"""Local ascent of ``q(s) = ||w_s||^2`` from ``s`` by exact one-bag changes.

        Changing the key of positive bag ``i`` from ``k`` to ``j`` changes ``q`` by
        :math:`2lpha_i (f_s(x_j) - f_s(x_k)) + lpha_i^2 (K_{jj} + K_{kk} - 2K_{jk})`: the
        paper's linear oracle keeps the first term only and misses a violated choice when
        the second decides. Each sweep takes, bag by bag, the change with the largest gain
        (when positive) and updates ``f_s``; it stops when a sweep changes nothing.
        ``f`` is ``f_s`` on every instance. Returns the new ``s``."""
        s, f = np.array(s, dtype=np.int64), np.array(f, dtype=np.float64)
        groups = np.split(
            self.members[np.argsort(self.owner, kind="stable")],
            np.cumsum(np.bincount(self.owner, minlength=self.p))[:-1],
        )
        active = np.flatnonzero(alpha[: self.p] > 0)
        for _ in range(max_sweeps):
            changed = False
            for i in active:
                a, k, cand = alpha[i], s[i], groups[i]
                gain = 2 * a * (f[cand] - f[k]) + a * a * (K[cand, cand] + K[k, k] - 2 * K[cand, k])
                j = int(np.argmax(gain))
                if gain[j] > 1e-12 * max(1.0, abs(f[k])) and cand[j] != k:
                    f += a * (K[:, cand[j]] - K[:, k])
                    s[i], changed = cand[j], True
            if not changed:
                break
        return s


@register(family="mil", command="mil-wellsvm", summary="multi-instance WellSVM")
class MILWellSVM(MultiInstanceClassifier):
    r"""Multi-instance SVM by WellSVM's convex relaxation and label generation.

    Multi-instance learning sees bags of instances and one label per bag: a bag is positive
    when at least one of its instances is. The MI-SVM (Andrews et al. 2003) picks one key
    instance in each positive bag (``s``, in the set ``Delta`` of such choices) together with
    an SVM without offset, where the key instance of bag ``i`` must reach ``f >= 1 - xi_i``
    (weight ``C1``) and every instance ``x_j`` of the negative bags ``f <= -1 + xi_j``, each
    with its own slack (weight ``C2``; the paper's relaxation of the bag's shared slack):

    .. math::

        \min_{s \in \Delta}\ \max_{\alpha \in A}\ G(\alpha, s) = 1'\alpha
            - \tfrac12 (\alpha\odot\hat y)' K^{s} (\alpha\odot\hat y),

    with one variable per positive bag (box ``C1``) and per negative instance (box ``C2``),
    :math:`\hat y = (1_p, -1)` and :math:`K^s_{ij} = k(x_{s_i}, x_{s_j})`. WellSVM swaps
    min and max. The result is convex, a multiple kernel problem over the kernels
    :math:`K^{s_t}`:

    .. math::

        \min_{\mu \in \text{simplex}}\ \max_{\alpha \in A}\ 1'\alpha - \tfrac12
            (\alpha\odot\hat y)'\Bigl(\sum_t \mu_t K^{s_t}\Bigr)(\alpha\odot\hat y).

    It is solved by the cutting plane of the semi-supervised WellSVM: on the working set of
    key-instance choices, SVMs on the mixed kernel alternate with :math:`\mu_t \propto
    \|w_t\|`; the next choice takes, in each positive bag, the instance with the largest value
    of :math:`f_{\bar s}` (``s_bar`` the member with the largest ``||w_t||``, Proposition 6).
    The loop stops when no violated choice is found, a step cannot lower the objective by
    ``tol`` (relative; the step is undone) or two steps in a row lower it by less. The
    instance model is
    :math:`f(x) = \sum_t \mu_t \sum_i \alpha_i \hat y_i k(x_{s_{ti}}, x)` and a bag's value
    :math:`\max_{x \in B} f(x)`.

    Choices the paper leaves open: the start (Algorithm 3, "initialize s") is the instance
    with the largest value, in each positive bag, of an SVM with offset trained on all
    instances with their bag's label and weight ``C2``; in a positive bag with
    ``alpha_i = 0`` the oracle takes the largest :math:`f_{\bar s}` (any choice is optimal
    there).

    **The defaults** (``C1=100``, ``C2=10``, ``gamma="scale"``, ``oracle="paper"``,
    ``model="refined"``, ``max_mkl_iter=3``) were chosen by measurement on the five standard
    bag sets (Musk1, Musk2, Elephant, Fox, Tiger; features standardised per training fold):
    bag accuracy of one 10-fold cross-validation over bags, the folds drawn with seed 1, over
    8 candidates (``oracle`` paper or ascent, ``gamma`` "scale" or twice it, ``(C1, C2)``
    (10, 1) or (100, 10), all with ``model="refined"`` and ``max_mkl_iter=3``; 16 with
    ``model="rounded"`` before them on Musk1 and Elephant), the one that matched or beat
    scikit-learn's ``SVC()`` on a mean/max/min bag embedding on the most sets, of those
    whose ``gamma`` is the default "scale": 3 (Musk2 0.893 against 0.815, Fox 0.650 against
    0.630, Tiger 0.800 against 0.785). Musk2, the costliest set, was run for the two
    candidates with the paper's oracle only; the ascent with (100, 10) could at most have
    tied, with a lower mean over the other four sets (0.754 against 0.758). Twice "scale"
    with the ascent and (100, 10) was ahead on the four smaller sets (Elephant 0.815
    against 0.745), but a width relative to "scale" cannot be a default (``gamma`` is
    "scale", "auto" or a number): on standardised features try ``gamma=2 / n_features``.
    The table that reports the defaults uses other folds (seed 0), which took no part in
    the choice (``benchmarks/results/mil_defaults.md``).
    The relaxation only points at the key instances of the refined model: on the same folds,
    solving each MKL problem to ``tol`` (``max_mkl_iter=100``) took 2.4 times as long in
    total (1.4 to 4.6 times per set) and was less accurate on all five sets (by 0.005 to
    0.05). Single sets move by up to 0.05 between fits that differ by rounding only (the
    chosen candidate with ``gamma=1 / n_features`` and with ``gamma="scale"``, equal up to
    rounding on standardised features: key instances tie at the margin), so differences of
    that size between candidates are not significant. The paper's experiments choose
    ``C1``, ``C2`` and the width by CV instead; use
    :class:`~sklearn.model_selection.GridSearchCV` (bags routed, see :meth:`fit`) for that.

    Parameters
    ----------
    C1 : float, default=100.0
        Weight of the hinge loss of each positive bag (its key instance).
    C2 : float, default=10.0
        Weight of the hinge loss of each instance of a negative bag.
    kernel : {"rbf", "linear", "poly"}, default="rbf"
    gamma : "scale", "auto" or float, default="scale"
        As for :class:`sklearn.svm.SVC`, over the instances.
    degree : int, default=3
    coef0 : float, default=0.0
    max_iter : int, default=50
        Cutting-plane iterations (key-instance choices added) at most.
    max_mkl_iter : int, default=3
        SVM solves per MKL problem at most. With ``model="relaxation"``, whose model is the
        MKL solution, raise it (100 solves each MKL problem to ``tol`` on the standard sets);
        the other models only use the relaxation to choose key instances, and a fit that
        stops an MKL problem at this cap does not warn.
    tol : float, default=1e-3
        Relative tolerance of the objective's decrease, of a choice's violation and of the
        MKL duality gap; the KKT tolerance of the inner SVMs.
    oracle : {"ascent", "paper"}, default="paper"
        How a violated choice is found. ``"paper"``: one step of Section 4.2.1 (in each
        positive bag the instance with the largest :math:`f_{\bar s}`, a linearisation of
        the concave problem :math:`\max_s \|w_s\|^2`). ``"ascent"``: that step followed by
        exact one-bag changes while :math:`\|w_s\|^2` grows (see
        :meth:`KeyInstanceOracle.ascend`). The paper's step often finds no violated choice
        although one exists (it returns the current choice), so that the loop stops above
        the optimum of the relaxation: on tiny problems above the mixed-integer optimum (16
        of 40 random ones), on the five standard sets at about twice the ascent's value.
        A better solution of the relaxation is not a better classifier there: bag accuracy
        differs by less than the spread over folds on most sets (see ``model``).
    model : {"refined", "rounded", "relaxation"}, default="refined"
        The returned instance model. ``"relaxation"``: the paper's
        :math:`f = \sum_t w_t' \phi(x)` over all generated choices; a training bag's margin
        is met by the sum over its generated key instances, not by any one of them, so the
        bag values (the largest instance value) come out low when many choices carry weight.
        ``"rounded"``: the relaxation is rounded to one choice, in each positive bag the
        instance with the largest relaxation value (``relaxation_keys_``), and the SVM of the
        mixed-integer problem at that choice is solved (warm-started): a model of the form
        the bag rule assumes. ``objective_history_`` is the relaxation's either way.
        With ``oracle="ascent"`` the rounded model is the more accurate on the five standard
        sets; with ``oracle="paper"``, which stops after few choices, neither is
        (``benchmarks/results/mil_variants.md``). ``"refined"``: from the rounded choice,
        MI-SVM's alternation (Andrews et al.) with an SVM *with* offset: the SVM on the key
        instances and the negative instances, then in each positive bag the instance with
        the largest value as its key, until the keys repeat (``max_iter`` SVMs at most).
        The offset moves the bag threshold, which the SVMs without offset of the relaxation
        cannot; WellSVM's convex relaxation gives the alternation its start, in place of
        MI-SVM's bag centroids. ``intercept_`` is its offset (0 for the other models).
    cache_size : float, default=200
        The engine's row cache in MB. The instance Gram matrix is held dense besides, with
        one more row and column per positive bag for the mixed kernel
        (``8 (n_instances + n_positive_bags)^2`` bytes; the memory check counts at least
        ``8 (n_instances^2 + q^2)``, ``q`` the number of dual variables).
    verbose : bool, default=False
        Print to stderr a line for the start's MKL problem (step 0), one per
        cutting-plane step, and why the loop stopped.
    %(probability)s

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        ``classes_[1]`` is the positive bag label.
    key_instances_ : ndarray of int, shape (n_bags,)
        Per training bag, the position within the bag of its instance with the largest
        ``f``: the key instance (region of interest) of a positive bag.
    label_vectors_ : ndarray of int64, shape (q, n_label_vectors)
        The generated choices: the instance (row of the stacked training instances) standing
        for each dual variable, the start first.
    mu_ : ndarray of shape (n_label_vectors,)
        Their MKL weights.
    relaxation_keys_ : ndarray of int, shape (n_positive_bags,)
        Per positive bag (in bag order), the instance (row of the stacked training instances)
        with the largest value of the relaxation's model: the rounded choice.
    rounded_objective_ : float
        The mixed-integer objective at the rounded choice (``model="rounded"`` only). The
        relaxation's optimum is a lower bound of it; their gap bounds how far the rounded
        choice can be from the mixed-integer optimum (zero when the relaxation is tight).
    alpha_ : ndarray of shape (q,)
        The dual variables: positive bags first (in bag order), then negative instances.
    dual_coef_, support_, support_vectors_, intercept_, shape_fit_
        The instance model as for :class:`sklearn.svm.SVC` (``intercept_ = [0.0]`` but for
        ``model="refined"``).
    objective_history_ : ndarray
        The relaxation's value after every cutting-plane step; it never increases.
    n_iter_ : int
        MKL problems solved (``len(objective_history_)``).
    n_mkl_iter_ : list of int
        SVM solves of each MKL problem.
    stop_reason_ : str
    %(sigmoid)s

    See Also
    --------
    MISVM : The alternating heuristic for the same bag problem (Andrews et al. 2003).
    miSVM : Instance labels by alternation (Andrews et al. 2003).
    unlabeled.ssl.WellSVM : The same cutting plane for semi-supervised learning.

    References
    ----------
    Y.-F. Li, I. W. Tsang, J. T. Kwok, Z.-H. Zhou. Convex and scalable weakly labeled SVMs.
    JMLR 14:2151-2188, 2013 (Section 4.2).
    %(andrews_and_platt)s

    Examples
    --------
    >>> import numpy as np
    >>> from unlabeled.mil import MILWellSVM
    >>> rng = np.random.default_rng(0)
    >>> bags = rng.normal(0, 1, (20, 5, 2))  # 20 bags of 5 instances, as a 3-D array
    >>> bags[:10, 0] += 4  # one key instance per positive bag
    >>> y = np.repeat([1, 0], 10)
    >>> clf = MILWellSVM(gamma=0.5).fit(bags, y)
    >>> clf.score(bags, y) > 0.9
    True
    """

    # the instance Gram matrix and the mixed bag kernel are dense: 8 (n^2 + q^2) bytes,
    # checked against the budget in _fit before either is made
    _dense_fix = "subsample the negative bags"

    _parameter_constraints: dict = {
        **MultiInstanceClassifier._parameter_constraints,
        "C1": [Real(0.0, MAX_C, high_open=False)],
        "C2": [Real(0.0, MAX_C, high_open=False)],
        "max_mkl_iter": [Integer(1)],
        "oracle": [Options(("ascent", "paper"))],
        "model": [Options(("rounded", "relaxation", "refined"))],
        "verbose": VERBOSE,
    }

    # the cutting plane's result: label vectors of instance indices (one per positive bag and
    # negative instance variable), and the key instances of the relaxation
    _fitted_attributes: dict = {
        "alpha_": Fitted("f", ("n_var",)),
        "label_vectors_": Fitted("i", ("n_var", "n_labelings"), low=0, below="n_train"),
        "mu_": Fitted("f", ("n_labelings",), low=0.0),
        "objective_history_": Fitted("f", ("n_iter_",)),
        "n_mkl_iter_": Fitted("ints", low=0),
        "stop_reason_": Fitted("str"),
        "relaxation_keys_": Fitted("i", (None,), low=0, below="n_train"),
        "rounded_objective_": Fitted("float", optional=True),
    }

    def __init__(
        self,
        C1: float = 100.0,
        C2: float = 10.0,
        *,
        kernel: str = "rbf",
        gamma: str | float = "scale",
        degree: int = 3,
        coef0: float = 0.0,
        max_iter: int = 50,
        max_mkl_iter: int = 3,
        tol: float = 1e-3,
        oracle: str = "paper",
        model: str = "refined",
        cache_size: float = 200.0,
        verbose: bool | int = False,
        probability: bool = False,
        random_state: int | np.random.RandomState | None = None,
    ) -> None:
        set_init_params(self, locals())

    def _key_backend(self, params, X, P, p):
        """The :class:`KeyInstanceBackend` of the instances ``X`` (those of the ``p`` positive
        bags, ``P`` of them, first), its dense memory checked before any is made: the n x n
        instance kernel and the mixed kernel (the check of _gram counted the first alone, and
        the second failed with a raw MemoryError after the Gram matrix was made); both share
        one (n + p) x (n + p) buffer, counted as the two matrices at least."""
        n = X.shape[0]
        q = p + n - P
        check_dense_budget(
            8.0 * max(float(n) ** 2 + float(q) ** 2, float(n + p) ** 2),
            f"MILWellSVM is a dense method: {n:,} instances need a {n:,} x {n:,} instance "
            f"kernel and a {q:,} x {q:,} mixed kernel",
            self._dense_fix,
        )
        C = np.r_[np.full(p, params["C1"]), np.full(n - P, params["C2"])]
        return KeyInstanceBackend(
            self._instance_kernel(X, p),
            P,
            p,
            C,
            cache_bytes(params["cache_size"]),
            params["tol"],
            workspace=True,
        )

    def _fit(self, params, X, bag, signs):
        n = X.shape[0]
        # instances of positive bags first: the negative ones form one trailing block
        order = np.argsort(signs[bag] < 0, kind="stable")
        bag_o, P = bag[order], int(np.sum(signs[bag] > 0))
        pos_bags = np.flatnonzero(signs > 0)
        backend = self._key_backend(params, X[order], P, pos_bags.size)
        K = backend.K
        oracle = KeyInstanceOracle(bag_o, pos_bags, np.arange(P, n))
        s0 = oracle(self._start_values(backend, signs[bag_o], params))
        members = np.arange(P)  # the instances of the positive bags

        def violated(cur, S):
            a = cur.alpha
            # the paper's oracle reads the values of the positive bags' instances only
            f = backend.products(a, S[:, [int(np.argmax(cur.q))]], members)[:, 0]
            s = oracle(f)
            if params["oracle"] == "ascent":
                s = oracle.ascend(s, backend.products(a, s[:, None])[:, 0], a, K)
            if np.any(np.all(S == s[:, None], axis=0)):
                return None, 0.0
            return s, float(backend.label_norms(a, s[:, None])[0])

        res = label_generation(
            backend,
            oracle,
            s0,
            max_iter=params["max_iter"],
            max_mkl_iter=params["max_mkl_iter"],
            tol=params["tol"],
            verbose=self.verbose,
            violated=violated,
            label_dtype=np.int64,
        )
        if params["model"] != "relaxation":
            # the model is an SVM at one key choice, solved to tol: the MKL problems only
            # point at that choice, and max_mkl_iter bounds their cost by design (the easy
            # problems warned at every default fit that max_mkl_iter stopped them)
            res.mkl_limit = False
        S, mu, alpha = res.labels, res.mu, res.alpha
        keys = oracle(res.f_train)
        rho = None
        self.__dict__.pop("rounded_objective_", None)  # an earlier rounded fit's
        if params["model"] == "rounded":  # the SVM on the choice the relaxation points at
            S, mu = keys[:, None], np.ones(1)
            alpha = backend.solve(S, mu, res.alpha)
            self.rounded_objective_ = float(alpha.sum() - 0.5 * backend.label_norms(alpha, S)[0])
        elif params["model"] == "refined":
            S, mu, alpha, rho = self._refine(backend, oracle, keys, params["max_iter"])
        coef = np.zeros(n)
        for t in range(S.shape[1]):
            np.add.at(coef, order[S[:, t]], mu[t] * alpha * backend.signs)
        self.set_expansion(X, coef, None if rho is None else -rho)
        f = np.empty(n)
        f[order] = backend.products(alpha, S) @ mu - (0.0 if rho is None else rho)
        self.key_instances_ = self._key_instances(f, bag, signs.size)
        self.relaxation_keys_ = order[keys[: pos_bags.size]]
        self.label_vectors_ = order[res.labels]
        self.alpha_ = res.alpha
        self.mu_ = res.mu
        store_result(self, res, backend, params["max_iter"], "MILWellSVM")
        return self

    @staticmethod
    def _refine(backend, oracle, keys, max_iter):
        """``model="refined"``: from the relaxation's rounded keys, MI-SVM's alternation (an
        SVM with offset on the keys and the negative instances, then in each positive bag the
        instance with the largest value as its key) until the keys repeat, ``max_iter``
        alternations at most. Returns ``(S, mu, alpha, rho)`` of the last SVM."""
        seen = {keys.tobytes()}
        for _ in range(max_iter):
            alpha, rho = backend.solve_with_offset(keys, np.zeros(backend.n))
            new = oracle(backend.products(alpha, keys[:, None], oracle.members)[:, 0] - rho)
            if new.tobytes() in seen or backend.exhausted:
                break
            seen.add(new.tobytes())
            keys = new
        return keys[:, None], np.ones(1), alpha, rho

    def _instance_kernel(self, X, extra):
        """The ``(n + extra) x (n + extra)`` buffer of :class:`KeyInstanceBackend` with the
        instance Gram matrix of the rows of ``X`` in its leading ``n x n`` block, the values
        of :meth:`_gram` to the bit. The rbf kernel is made in place: one product of ``X``
        with itself into the block (the same BLAS call as :func:`kernel_block`), then the
        elementwise steps on blocks of rows that stay in the CPU's cache (one pass over the
        matrix, not six); other kernels through :meth:`_gram`."""
        n = X.shape[0]
        M = np.empty((n + extra, n + extra))
        K = M[:n, :n]
        if self.kernel != "rbf" or sp.issparse(X):
            K[...] = self._gram(X)
            return M
        X = as_float64(X)
        np.matmul(X, X.T, out=K)  # X @ X.T: BLAS's symmetric product, as in kernel_block
        sq = np.einsum("ij,ij->i", X, X)
        gamma = self.kernel_params()["gamma"]
        step = max(1, _BLOCK_BYTES // (8 * n))
        for a in range(0, n, step):  # kernel_block's steps, in its order, block by block
            B = K[a : a + step]
            B *= -2
            B += sq[a : a + step, None]
            B += sq[None, :]
            np.maximum(B, 0, out=B)
            B *= -gamma
            np.exp(B, out=B)
        return M

    def _start_values(self, backend, y, params):
        """The start's values on the instances of the positive bags (the first ``P``; the
        oracle reads no others): an SVM with offset on all instances, each labeled by its
        bag, with ``C2`` on all of them (``C1`` would fit every instance of a positive bag as
        positive when it is large: no key would stand out), on the engine (the instance
        kernel read in place in the backend's buffer)."""
        K = backend.K
        n = K.shape[0]
        idx = np.arange(n)
        rows = KernelRows(
            backend.data,
            kernel_spec("precomputed"),
            idx.astype(np.int32),
            cache_bytes(params["cache_size"]),
        )
        cap = resolve_max_iter(None, n)  # the engine's -1 is no cap: C2=1e12 ran for ever
        res = solve_kernel_qp(
            rows,
            idx,
            -np.ones(n),
            np.full(n, params["C2"]),
            np.zeros(n),
            y=y,
            equality=True,
            options=SolverOptions(params["tol"], True, cap),
        )
        if not res.converged:
            warn_not_converged(
                "MILWellSVM (the start's SVM)",
                limit=cap,
                used=res.n_iter,
                default_cap=True,
                detail=f". KKT violation {res.violation:.3g} > tol={params['tol']}.",
            )
        return K[: backend.P] @ (res.alpha * y) - res.rho  # row by row: K @ v's values


fill_docstring(MILWellSVM, SHARED_DOC)
