"""WellSVM for maximum-margin clustering (Li, Tsang, Kwok, Zhou, JMLR 2013, Section 4.3)."""

from __future__ import annotations

import math
import time

import numpy as np
from scipy.sparse.linalg import ArpackNoConvergence, LinearOperator, eigsh
from sklearn.base import ClusterMixin

from .._kernels import as_float64, kernel_block
from .._label_generation import (
    BalancedLabels,
    alignment_start,
    label_generation,
    make_backend,
    store_label_generation,
)
from .._solving import cache_bytes, warn_not_converged
from .._threads import one_blas_thread
from .._validation import (
    MAX_C,
    MAX_CACHE_MB,
    RANDOM_STATE,
    VERBOSE,
    Boolean,
    Integer,
    Options,
    Real,
)
from ..base import Fitted, KernelMachine, MatrixLike, set_init_params
from ..registry import Case, register


def balance_range(n_samples: int, beta: float) -> tuple[int, int]:
    """The numbers ``k`` of points labeled -1 that ``-beta n <= 1'y <= beta n`` allows.

    ``1'y = n - 2k``, so ``k`` runs over ``[ceil((n - beta n) / 2), floor((n + beta n) / 2)]``.
    That range is empty only for an odd ``n`` with ``beta n < 1``; it is then the closest
    achievable balance, ``|1'y| = 1`` (``k`` is ``floor(n / 2)`` or ``ceil(n / 2)``). The
    range is symmetric (``lo + hi = n``), so ``-y`` is in ``B`` with ``y``.

    Parameters
    ----------
    n_samples : int
    beta : float in [0, 1)
        The bound on ``|1'y|`` as a share of ``n_samples``.

    Returns
    -------
    (int, int)
        The smallest and the largest number of -1's, both in ``[1, n_samples - 1]``.
    """
    b = beta * n_samples
    lo = math.ceil((n_samples - b) / 2 - 1e-9)
    hi = math.floor((n_samples + b) / 2 + 1e-9)
    if lo > hi:  # odd n, beta n < 1: |1'y| = 1
        lo, hi = n_samples // 2, n_samples - n_samples // 2
    return max(1, lo), min(n_samples - 1, hi)


def balanced_threshold(f, lo: int, hi: int) -> float:
    """The threshold ``theta`` that puts between ``lo`` and ``hi`` of the values ``f`` at or
    below it, nearest to 0: 0 when ``sign(f)`` already does, else the midpoint between the
    ``k``-th and ``(k+1)``-th smallest value, ``k`` the bound that ``sign(f)`` violates
    (``y = sign(f - theta)`` is then ``argmax_{y in B} f'y``, up to ties in ``f``)."""
    n_neg = int(np.count_nonzero(f <= 0))
    if lo <= n_neg <= hi:
        return 0.0
    k = lo if n_neg < lo else hi
    part = np.partition(f, (k - 1, k))
    return float(0.5 * (part[k - 1] + part[k]))


class BalancedClusters(BalancedLabels):
    r"""The clustering oracle: ``argmax r'y`` over ``B = {y : lo <= #{y_i = -1} <= hi}`` by
    the paper's sort, with the ties broken by the decision values of the answer (see
    :class:`~unlabeled._label_generation.BalancedLabels`)."""

    def __init__(self, n_samples: int, lo: int, hi: int, backend):
        super().__init__(np.zeros(n_samples, dtype=np.int8), lo, hi, backend)


#: the most points ``oracle="exact"`` accepts: it enumerates up to 2^(n-1) label vectors
MAX_EXACT = 20


class ExactClusters(BalancedClusters):
    r"""The most violated label vector, ``argmax_{y in B} (alpha .* y)' K (alpha .* y)``, by
    enumeration: the oracle that makes the cutting plane reach the relaxation's optimum
    (every label vector of ``B`` is then a constraint the last MKL solution satisfies).

    Only the points with ``alpha_i > 0`` enter the quadratic: their sign patterns (one of
    each pair ``y, -y``) are enumerated, kept where the other points can complete them to a
    member of ``B``; the other points then take the sign of the decision values
    ``K(alpha .* y)`` within the balance range. ``2^(|S| - 1)`` patterns for a support
    ``S``: for tiny problems (at most :data:`MAX_EXACT` points). Of ``y`` and ``-y`` it
    returns the one with ``r'y >= 0`` (the side of ``ybar``, as the sort's answer) where
    ``B`` allows. Without ``alpha`` (the random start) it is the sort.
    """

    def __call__(self, r, alpha=None) -> np.ndarray:
        if alpha is None:
            return super().__call__(r)
        S = np.flatnonzero(alpha > 0)
        n, m = alpha.size, S.size
        if m == 0:
            return super().__call__(r)
        unit = np.eye(n)  # K's columns on S, one engine pass each
        Ks = np.stack([self.backend.products(unit[j], np.ones((n, 1)))[S, 0] for j in S], axis=1)
        H = Ks * np.outer(alpha[S], alpha[S])
        bits = (np.arange(2 ** (m - 1))[:, None] >> np.arange(m - 1)) & 1
        P = np.c_[np.ones(bits.shape[0]), 1 - 2 * bits]  # the first support point at +1
        neg = np.count_nonzero(P < 0, axis=1)
        ok = (neg <= self.n_negative_max) & (neg + n - m >= self.n_negative)
        ok |= (m - neg <= self.n_negative_max) & (m - neg + n - m >= self.n_negative)
        P = P[ok]
        q = np.einsum("ti,ij,tj->t", P, H, P)
        best = P[int(np.argmax(q))]
        # y and -y have the same q: keep the one on the side of ybar (r'y >= 0, r = H ybar),
        # as the sort does, so that the terms of f add up; else the one B can complete
        for y_s in sorted((best, -best), key=lambda v: -float(np.dot(r[S], v))):
            neg_s = np.count_nonzero(y_s < 0)
            if neg_s <= self.n_negative_max and neg_s + n - m >= self.n_negative:
                break
        return self._complete(S, y_s, alpha)

    def _complete(self, S, y_s, alpha):
        """``y`` equal to ``y_s`` on ``S``; the other points by the sign of
        ``K(alpha .* y)``, as many -1's as the balance range allows."""
        n = alpha.size
        y = np.ones(n, dtype=np.int8)
        y[S] = y_s
        free = np.setdiff1d(np.arange(n), S)
        g = self.backend.products(alpha, y[:, None])[:, 0][free]
        neg_s = int(np.count_nonzero(y_s < 0))
        k = int(
            np.clip(
                np.count_nonzero(g < 0),
                max(0, self.n_negative - neg_s),
                min(free.size, self.n_negative_max - neg_s),
            )
        )
        y[free[np.argsort(g, kind="stable")[:k]]] = -1
        return y


#: up to this many points the spectral start's matrix is formed (n engine passes of one
#: point each) and solved by LAPACK; above, ARPACK's Lanczos iteration on products (at 270
#: points the n passes took 3.5 s, ARPACK's few dozen 0.1 s)
_DENSE_SPECTRAL = 20


def _kernel_matvec(backend, v):
    """``K v`` for a real vector ``v``: the engine's ``K (alpha .* y)`` with ``alpha = |v|``
    and ``y = sign(v)`` (exact: ``|v_i| sign(v_i) = v_i``)."""
    y = np.where(v < 0, -1, 1).astype(np.int8)
    return backend.products(np.abs(v), y[:, None])[:, 0]


class _OutOfTime(Exception):
    """The spectral start's deadline passed inside ARPACK's iteration."""


#: matrix-vector products that ARPACK's Lanczos iteration makes at least (its ncv)
_ARPACK_MIN_PRODUCTS = 20


def spectral_start(backend, oracle, K=None, deadline=None) -> np.ndarray | None:
    r"""The spectral start: the label vector of ``B`` nearest to the sign of the normalised
    cut's relaxed indicator (Shi and Malik, 2000; Ng, Jordan and Weiss, 2002).

    With the degrees :math:`d = K 1` all positive (always for the rbf kernel), ``u`` is the
    eigenvector of the second largest eigenvalue of :math:`D^{-1/2} K D^{-1/2}` (its largest,
    1, has the eigenvector :math:`D^{1/2} 1`, deflated), mapped back as :math:`D^{-1/2} u`.
    Otherwise (a linear, poly or precomputed kernel with a degree at or below 0) ``u`` is the
    leading eigenvector of the centred kernel :math:`J K J`, :math:`J = I - 11'/n` (kernel
    PCA's first component), its sign fixed by its largest entry (first of equal ones) being
    positive. The start is the oracle's :math:`\arg\max_{y \in B} u'y`: the sign of ``u``,
    the fewest points moved across to bring it into the balance range.

    The eigenvector is computed from the kernel matrix ``K`` when it is given (formed by the
    caller where it fits the kernel cache's budget), else through the engine's kernel
    products (LAPACK on the formed matrix up to :data:`_DENSE_SPECTRAL` points, ARPACK from a
    fixed vector above): it depends on the data alone, not on ``random_state``. Returns None
    when ARPACK does not converge (the caller falls back to the alignment start), and, with a
    ``deadline`` (on :func:`time.monotonic`'s clock), when the products (each a pass over
    the n^2 kernel values, timed on the first) would not end before it, or did not.
    """
    n = backend.n

    def matvec(v):
        if deadline is not None and time.monotonic() >= deadline:
            raise _OutOfTime
        return K @ v if K is not None else _kernel_matvec(backend, v)

    if deadline is not None and K is None and n > _DENSE_SPECTRAL:
        # the degrees and ARPACK's products, each a pass over the kernel rows, estimated
        if time.monotonic() + (1 + _ARPACK_MIN_PRODUCTS) * backend.estimate_pass() >= deadline:
            return None
    tic = time.monotonic()
    try:
        deg = matvec(np.ones(n))
    except _OutOfTime:
        return None
    if K is None:
        backend.pass_seconds = time.monotonic() - tic
    normalised = bool(np.all(deg > 0) and np.all(np.isfinite(deg)))
    if normalised:
        s = 1.0 / np.sqrt(deg)
        top = np.sqrt(deg) / np.linalg.norm(np.sqrt(deg))

        def op(v):
            return s * matvec(s * v) - top * (top @ v)

    else:

        def op(v):
            w = matvec(v - v.mean())
            return w - w.mean()

    if n <= _DENSE_SPECTRAL:
        try:
            M = np.stack([op(e) for e in np.eye(n)], axis=1)
        except _OutOfTime:
            return None
        u = np.linalg.eigh(0.5 * (M + M.T))[1][:, -1]
    else:
        v0 = np.random.default_rng(0).standard_normal(n)
        A = LinearOperator((n, n), matvec=op, dtype=np.float64)
        try:
            u = eigsh(A, k=1, which="LA", v0=v0)[1][:, 0]
        except (ArpackNoConvergence, _OutOfTime):
            return None
    if normalised:
        u = s * u
    u = u * (1.0 if u[np.argmax(np.abs(u))] >= 0 else -1.0)  # the eigenvector's sign fixed
    return np.asarray(oracle(u), dtype=np.int8)


#: the stops of the cutting plane's own rule (``stop_reason_``; the others are its limits)
RULE_STOPS = ("no violated label vector", "objective decreased by less than tol")

#: the most cutting-plane runs (``n_starts``)
MAX_STARTS = 1000

#: the most random labelings of the start: each is a pass over the kernel rows (10^6 of them
#: ran for minutes at 200 points, and before the start was scored in chunks, held n x n_init
#: labels and products)
MAX_N_INIT = 10_000


@register(
    family="cluster",
    command="cluster-wellsvm",
    aliases=("clustering",),
    summary="maximum-margin clustering",
    cases=(Case({"random_state": 0}),),
)
class WellSVMClustering(ClusterMixin, KernelMachine):
    r"""Maximum-margin clustering into two clusters by WellSVM's convex relaxation.

    Maximum-margin clustering (Xu et al., 2005) labels every point, ``y in {-1, +1}^n``, so
    that an SVM without offset trained on those labels has the largest margin, under the
    balance constraint that keeps the trivial one-cluster answer out:

    .. math::

        \min_{y \in B}\ \max_{0 \le \alpha \le C}\ G(\alpha, y) = 1'\alpha
            - \tfrac12\,\alpha'(K \odot y y')\alpha,
        \qquad B = \{y \in \{-1, 1\}^n : -\beta n \le 1'y \le \beta n\}.

    WellSVM swaps the min and the max. The result is convex and equals a multiple kernel
    learning problem over label kernels :math:`K \odot y_t y_t'`:

    .. math::

        \min_{\mu \in \Delta}\ \max_{0 \le \alpha \le C}\ 1'\alpha - \tfrac12\,\alpha'
            \Bigl(K \odot \sum_t \mu_t\, y_t y_t'\Bigr)\alpha,

    at least as tight as the SDP relaxation of Xu et al. It is solved by a cutting plane
    (Algorithm 4 of the paper) that adds one violated label vector at a time: with
    :math:`r = (K \odot \alpha\alpha')\bar y`, the :math:`(n - \beta n)/2` points of
    smallest ``r`` get -1, the :math:`(n - \beta n)/2` largest +1, the others the sign of
    ``r``. Every inner SVM runs on the engine's SMO solver (the linear dual solver for
    ``kernel="linear"`` once the Gram matrix outgrows ``cache_size``) and one kernel-row
    cache serves the whole fit.

    **The start and the defaults** (ours; measured on the 12 UCI sets, raw and standardised,
    with no label read: ``benchmarks/results/clustering_defaults.md``). The cutting plane with
    the paper's sort is a local method: where it ends depends on the label vector it starts
    from. The paper starts from the best of ``n_init`` random labelings of ``B`` by
    kernel-target alignment (``init="alignment"``); its result then changes with the seed (0.56
    to 0.72 accuracy on heart over four seeds). By default (``init="spectral"``) the loop starts
    from the normalised cut of the same kernel, the sign of the second eigenvector of
    :math:`D^{-1/2} K D^{-1/2}` (:func:`spectral_start`): it needs no seed, and the loop ends
    closer to the classes (raw features, 5 seeds: mean accuracy 0.702 against 0.666 from the
    alignment start, whose results spread by up to 0.44 over the seeds on one set; KMeans 0.695,
    GaussianMixture 0.693). The width is scale-free, ``gamma="mean"`` (``1 / mean squared
    distance``: twice scikit-learn's ``"scale"`` width on standardised data, which was less
    accurate), ``C = 1`` (0.1 and 10 within 0.01), and the loop stops at ``tol=1e-2``
    (``tol=1e-3`` with 50 iterations was no more accurate and up to 30 times slower), when
    two steps in a row each lower the objective by less than ``tol`` of it, with
    ``max_iter=100`` a cap it does not reach on real tables. The authors' code's cap of 20
    stopped the loop, not its rule, on larger tables: on the clustering suite's 18 binary
    tables (1,000 rows, 2 subsamples: ``benchmarks/results/clustering_suite.md``) 8 of 36
    fits took more than 20 steps, and the rule ended all 36 by the 24th step, without a
    warning (``converged_``, ``stop_reason_``). A diagnostic run at 2,000 rows saw the
    objective still fall by 1 to 3% a step at the 20th, each new label vector moving
    hundreds of points: a cutting plane still finding violated labelings, not an
    oscillation. ``n_starts > 1`` adds runs from
    alignment starts and keeps the lowest objective; the objective does not track accuracy
    across starts (the alignment starts often end lower, in worse clusterings:
    ``n_starts=4`` averaged 0.662), so the default is one run. ``offset="none"``: the
    balance offset was 0.003 less accurate on the raw sets. ``max_time`` ends a fit that
    runs long with a warning.

    **The clusters** are the signs of the paper's
    :math:`f(x) = \sum_i \alpha_i (\sum_t \mu_t y_{ti})\, k(x_i, x)` (no offset). Nothing
    makes those signs satisfy the balance constraint (on imbalanced data they can put
    nearly every point on one side). With ``offset="balance"`` (ours, not the paper's) an
    offset ``b`` is added where they do not: the smallest shift of the threshold that brings
    the training clustering into ``B``, so that ``labels_`` is
    :math:`\arg\max_{y \in B} f'y` (up to ties in ``f``) and ``predict`` stays consistent
    with it.

    **Ties of the sort.** A point with ``alpha_i = 0`` has ``r_i = 0``: each of its labels
    maximises ``r'y`` equally. The paper gives all such points +1 (``ties="positive"``), so
    every new label vector puts the points outside the margin on one side, whatever the
    data. By default (``ties="decision"``, ours) they get the sign of the new label vector's
    own decision values ``K(alpha .* y)``, an equally exact maximiser of the paper's ``r'y``
    that keeps them with the points around them (see :class:`BalancedClusters`); it is the
    more accurate on the 12 UCI sets (``benchmarks/results/wellsvm_clustering-reduced.md``).

    **The sign symmetry.** ``y`` and ``-y`` have the same label kernel, so the relaxation
    cannot tell them apart, and ``B`` is symmetric. The start is oriented so that the first
    training point has the label +1 (the paper's "fix one label" applied to the only free
    choice). Every later label vector then follows that orientation: it maximises
    :math:`y' H \bar y \ge \bar y' H \bar y > 0`, so its weight vector
    :math:`w_t = \sum_i \alpha_i y_{ti} \phi(x_i)` has a positive inner product with that
    of :math:`\bar y`, and the terms of ``f`` add up rather than cancel. Which cluster is
    called 0 and which 1 carries no meaning beyond that (as for any clustering).

    Parameters
    ----------
    C : float, default=1.0
        Weight of the hinge loss (the box ``0 <= alpha_i <= C``).
    beta : float in [0, 1), default=0.03
        The balance constraint ``|1'y| <= beta n``: ``|n_1 - n_0| <= beta n`` for the two
        cluster sizes of every label vector. The paper uses 0.03 for balanced data and 0.3
        for imbalanced data. With an odd ``n`` and ``beta n < 1``, ``|1'y| = 1``.
    kernel : {"rbf", "linear", "poly", "precomputed"}, default="rbf"
    gamma : "mean", "scale", "auto" or float, default="mean"
        ``"mean"``: one over the mean squared distance between the training points,
        :math:`1 / (2 \sum_k \operatorname{var}(x_{\cdot k}))`, unchanged when the data are
        scaled as a whole; ``"scale"`` and ``"auto"`` as for :class:`sklearn.svm.SVC`. The
        paper's width ``sigma`` is ``gamma = 1 / (2 sigma^2)``.
    degree : int, default=3
    coef0 : float, default=0.0
    init : {"spectral", "alignment"}, default="spectral"
        The first run's start: the normalised cut of the kernel (:func:`spectral_start`; the
        centred kernel's leading eigenvector where a degree ``sum_j k_ij`` is not positive),
        or, as in the paper, the best of ``n_init`` random labelings by alignment.
    n_init : int, default=20
        Random labelings drawn for an alignment start (the paper's 20), at most 10,000 (each
        costs a pass over the kernel rows); the one best aligned with the kernel starts the
        run.
    n_starts : int, default=1
        Cutting-plane runs, at most 1,000: the first from ``init``, the others from
        alignment starts (each from its own ``n_init`` draws); the run with the lowest final
        objective (the relaxation's value, an upper bound on its optimum) is kept.
    max_time : float or None, default=60.0
        Seconds. The start's passes over the kernel (``n^2`` kernel values each: the
        spectral start's products, the alignment start's candidates) are estimated first
        and skipped where they would end after half of the time left (the best alignment
        candidate scored so far, else the first drawn, starts the run); the SVM solves stop
        at its end (the fit's first after at least ``min(n_samples, 1000)`` steps, so that
        the model is not empty); no cutting-plane step and no further run start after it.
        The fit then ends with a ``ConvergenceWarning`` (the result is the best run so far,
        and depends on the machine's speed); the decision values of the training points
        (passes over the support) come after it. None: no limit.
    max_iter : int, default=100
        Cutting-plane iterations (label vectors added) at most, per run: a cap for the runs
        that do not end by the stopping rule (``tol``), with a ``ConvergenceWarning``. The
        authors' code's 20 stopped 8 of 36 fits of the clustering suite before their rule
        did.
    max_mkl_iter : int, default=100
        SVM solves per MKL problem at most.
    tol : float, default=1e-2
        Relative tolerance of the objective's decrease, of a label vector's violation and of
        the MKL duality gap (the paper's is 1e-3); also the KKT tolerance of the inner SVMs.
    refine_oracle : bool, default=False
        Repeat the violated-label sort from its own answer while ``y'Hy`` grows (the
        authors' code). The paper sorts once.
    ties : {"decision", "positive"}, default="decision"
        Labels of the points with ``r_i = 0`` in the violated-label sort: the sign of the
        new label vector's decision value, or +1 as in the paper (both maximise ``r'y``).
    offset : {"none", "balance"}, default="none"
        ``"none"``: the paper's ``f`` without offset. ``"balance"``: the offset that brings
        the training clustering into ``B`` when ``sign(f)`` is outside it.
    oracle : {"sort", "exact"}, default="sort"
        How a violated label vector is found: the paper's sort (a heuristic: it certifies a
        violated label vector when it finds one, but can miss them, and the loop may stop
        above the relaxation's optimum), or, for at most 20 points, the most violated one by
        enumerating ``B`` (:class:`ExactClusters`): the loop then reaches the relaxation's
        optimum, which is at most the mixed-integer optimum.
    cache_size : float, default=200
        Kernel-row cache in MB.
    random_state : int, RandomState or None, default=None
        Draws the random labelings of the alignment starts (``init="alignment"`` or
        ``n_starts > 1``); an int makes ``fit`` reproducible. The spectral start does not
        use it.
    verbose : bool, default=False
        Print to stderr a line for the start's MKL problem (step 0), one per
        cutting-plane step, and why the loop stopped.

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
        The cluster (0 or 1) of every training point: ``predict`` on the training data. With
        ``offset="balance"``, the numbers of 0's and 1's differ by at most ``beta n`` (up to
        ties in ``f``).
    label_vectors_, mu_, alpha_, dual_coef_
        As for :class:`unlabeled.ssl.WellSVM`: the generated labelings in +-1 (the start first,
        each in ``B``), their MKL weights, the relaxation's duals and ``alpha_i sum_t mu_t y_ti``
        on the support.
    intercept_ : ndarray of shape (1,)
        ``[0.0]``, or with ``offset="balance"`` the offset ``b`` that brings the training
        clustering into ``B`` (``[0.0]`` when ``sign(f)`` already is in it).
    support_, support_vectors_, shape_fit_
        As for :class:`sklearn.svm.SVC`.
    objective_history_ : ndarray
        The relaxation's value after every cutting-plane step of the kept run; it never
        increases, and it is an upper bound on the relaxation's optimum.
    n_iter_ : int
        MKL problems solved, the first (on the start alone) included;
        ``len(objective_history_)``.
    n_mkl_iter_ : list of int
        SVM solves of each MKL problem.
    stop_reason_ : str
        Why the kept run's loop ended: ``"no violated label vector"`` or ``"objective
        decreased by less than tol"`` (its stopping rule), ``"max_iter"``, ``"max_time"``
        or ``"work cap"``.
    converged_ : bool
        Whether the kept run's loop ended by its stopping rule (not by ``max_iter``,
        ``max_time`` or the work cap) and its SVM and MKL solves met ``tol``: False exactly
        when the fit warned that it did not converge.
    n_features_in_ : int

    See Also
    --------
    unlabeled.ssl.WellSVM : The same relaxation for semi-supervised learning.
    sklearn.cluster.SpectralClustering : Normalised cuts on an rbf affinity.
    sklearn.cluster.KMeans : The k-means baseline of the paper's Table 11.

    References
    ----------
    Y.-F. Li, I. W. Tsang, J. T. Kwok, Z.-H. Zhou. Convex and scalable weakly labeled SVMs.
    JMLR 14:2151-2188, 2013 (Section 4.3, Algorithm 4, Table 11).
    L. Xu, J. Neufeld, B. Larson, D. Schuurmans. Maximum margin clustering. NIPS 17, 2005.
    J. Shi, J. Malik. Normalized cuts and image segmentation. IEEE TPAMI 22(8), 2000.
    A. Y. Ng, M. I. Jordan, Y. Weiss. On spectral clustering: analysis and an algorithm.
    NIPS 14, 2002.

    Examples
    --------
    >>> import numpy as np
    >>> from unlabeled.cluster import WellSVMClustering
    >>> rng = np.random.default_rng(0)
    >>> X = np.r_[rng.normal(-2, 1, (50, 2)),
    ...           rng.normal(2, 1, (50, 2))]  # two blobs
    >>> labels = WellSVMClustering(gamma=0.5, random_state=0).fit_predict(X)
    >>> truth = np.repeat([0, 1], 50)
    >>> bool(max(np.mean(labels == truth), np.mean(labels != truth)) > 0.95)
    True
    """

    _parameter_constraints: dict = {
        **KernelMachine._parameter_constraints,
        "C": [Real(0.0, MAX_C, high_open=False)],
        "beta": [Real(0.0, 1.0, low_open=False)],
        "gamma": [Options(("mean", "scale", "auto")), Real(0.0, low_open=False)],
        "init": [Options(("spectral", "alignment"))],
        "n_init": [Integer(1, MAX_N_INIT)],
        "n_starts": [Integer(1, MAX_STARTS)],
        "max_time": [None, Real(0.0)],
        "max_iter": [Integer(1)],
        "max_mkl_iter": [Integer(1)],
        "tol": [Real(0.0)],
        "refine_oracle": [Boolean()],
        "ties": [Options(("decision", "positive"))],
        "offset": [Options(("none", "balance"))],
        "oracle": [Options(("sort", "exact"))],
        "cache_size": [Real(0.0, MAX_CACHE_MB, high_open=False)],
        "random_state": RANDOM_STATE,
        "verbose": VERBOSE,
    }

    # the cutting plane's result, as WellSVM's, and the cluster of each training point
    _fitted_attributes: dict = {
        "alpha_": Fitted("f", ("n_train",)),
        "label_vectors_": Fitted("i", ("n_train", "n_labelings"), low=-1, high=1),
        "mu_": Fitted("f", ("n_labelings",), low=0.0),
        "objective_history_": Fitted("f", ("n_iter_",)),
        "n_mkl_iter_": Fitted("ints", low=0),
        "stop_reason_": Fitted("str"),
        "converged_": Fitted("bool", optional=True),  # (files from before it was kept)
        "labels_": Fitted("iu", ("n_train",), low=0, high=1),
    }

    def __init__(
        self,
        C: float = 1.0,
        *,
        beta: float = 0.03,
        kernel: str = "rbf",
        gamma: str | float = "mean",
        degree: int = 3,
        coef0: float = 0.0,
        init: str = "spectral",
        n_init: int = 20,
        n_starts: int = 1,
        max_time: float | None = 60.0,
        max_iter: int = 100,
        max_mkl_iter: int = 100,
        tol: float = 1e-2,
        refine_oracle: bool = False,
        ties: str = "decision",
        offset: str = "none",
        oracle: str = "sort",
        cache_size: float = 200.0,
        random_state: int | np.random.RandomState | None = None,
        verbose: bool | int = False,
    ) -> None:
        set_init_params(self, locals())

    @staticmethod
    def _oracle(params: dict, n: int, backend) -> BalancedLabels:
        """The most violated labeling's oracle under the balance constraint."""
        lo, hi = balance_range(n, params["beta"])
        if params["oracle"] == "exact":
            return ExactClusters(n, lo, hi, backend)
        if params["ties"] == "decision":
            return BalancedClusters(n, lo, hi, backend)
        return BalancedLabels(np.zeros(n, dtype=np.int8), lo, hi)

    def fit(self, X: MatrixLike, y: object = None) -> WellSVMClustering:
        """Cluster ``X`` into two clusters.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
            Training points (dense or CSR, float64 or float32), at least 2; a square Gram
            matrix with ``kernel="precomputed"``.
        y : None
            Ignored.

        Returns
        -------
        self
        """
        params = self._validate_params()
        X = self._validate_X(X)
        n = X.shape[0]
        if n < 2:
            raise ValueError(
                f"{type(self).__name__} needs at least 2 samples to form two clusters, got "
                f"{n} sample (X of shape {X.shape})"
            )
        if params["oracle"] == "exact" and n > MAX_EXACT:
            raise ValueError(
                f"oracle='exact' enumerates the balanced labelings and accepts at most "
                f"{MAX_EXACT} samples, got {n}: use oracle='sort' (the paper's)"
            )
        backend = make_backend(self, X, np.full(n, params["C"]), params["tol"])
        # max_time: a run's start (kernel passes of n^2 kernel values each) may use half of
        # the time left, the solves stop at the end of it
        max_time = params["max_time"]
        deadline = None if max_time is None else time.monotonic() + max_time
        backend.deadline = deadline
        oracle = self._oracle(params, n, backend)
        res, timed_out = None, False
        for run in range(params["n_starts"]):
            y0, start_deadline = None, None
            if deadline is not None:
                start_deadline = (time.monotonic() + deadline) / 2
            if run == 0 and params["init"] == "spectral":
                # on one BLAS thread: the eigenvector of a small eigengap moves with the
                # rounding of the products, which OpenBLAS splits by its thread count (krvskp
                # standardised: another start, and 14.7 s against 9.7 s, on 2 threads)
                with one_blas_thread():
                    y0 = spectral_start(
                        backend, oracle, self._start_gram(X, params["cache_size"]), start_deadline
                    )
            if y0 is None:  # the alignment start; the later runs each from their own draws
                seed = self.random_state
                if run > 0 and isinstance(seed, (int, np.integer)):
                    seed = [int(seed), run]
                y0 = alignment_start(backend, oracle, seed, params["n_init"], start_deadline)
            y0 = y0 * y0[0]  # the sign symmetry: the first point starts with +1 (B is symmetric)
            out = label_generation(
                backend,
                oracle,
                y0,
                max_iter=params["max_iter"],
                max_mkl_iter=params["max_mkl_iter"],
                tol=params["tol"],
                refine=params["refine_oracle"],
                verbose=self.verbose,
                deadline=deadline,
            )
            if res is None or out.history[-1] < res.history[-1]:  # the lowest objective
                res = out
            timed_out = out.stop == "max_time" or (
                deadline is not None and time.monotonic() >= deadline
            )
            if timed_out or backend.exhausted:
                break
        assert res is not None  # n_starts >= 1
        store_label_generation(self, X, res, backend, params["max_iter"])
        stopped_by_rule = res.stop in RULE_STOPS and not res.mkl_limit
        capped = timed_out or backend.exhausted or not backend.all_converged
        self.converged_ = bool(stopped_by_rule and not capped)
        if timed_out:
            warn_not_converged(
                type(self).__name__,
                why=f"stopped at max_time={params['max_time']:g} s (after {run + 1} of "
                f"n_starts={params['n_starts']} runs); the clustering is the best found so "
                "far. Raise max_time, or lower max_iter or n_starts",
                stacklevel=2,
            )
        if params["offset"] == "balance":
            f = self._decision_values(X)  # no offset yet: the relaxation's f
            lo, hi = balance_range(X.shape[0], params["beta"])
            self.intercept_ = np.array([-balanced_threshold(f, lo, hi)])
        self.labels_ = (self._decision_values(X) > 0).astype(np.int64)
        return self

    def _start_gram(self, X, cache_mb: float):
        """The training kernel matrix for the spectral start, formed (in blocks of rows) where
        its ``8 n^2`` bytes fit the kernel cache's budget (``cache_size``; the fit then holds
        up to twice that), else None: the start then runs on the engine's products (at
        3,196 points each took 0.26 s on the cached rows, a product with the formed matrix
        0.005 s; the start's few dozen of them were most of the fit's time)."""
        n = X.shape[0]
        if 8.0 * n * n > cache_bytes(cache_mb):
            return None
        if self.kernel == "precomputed":
            return X
        Xf = as_float64(X)
        params = self.kernel_params()
        K = np.empty((n, n))
        step = max(1, 2**22 // n)
        for i in range(0, n, step):
            K[i : i + step] = kernel_block(Xf[i : i + step], Xf, self.kernel, params)
        return K

    def predict(self, X: MatrixLike) -> np.ndarray:
        """The cluster of each point: 1 where ``f(x) + b > 0``, else 0.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
            Points to assign, as for :meth:`decision_function`.

        Returns
        -------
        labels : ndarray of int64, shape (n_samples,)
            0 or 1 for each point.

        See Also
        --------
        decision_function : The values ``f(x) + b`` whose sign this is.
        """
        return (self.decision_function(X) > 0).astype(np.int64)
