"""The Laplacian SVM of Belkin, Niyogi and Sindhwani (JMLR 2006): a dense baseline."""

from __future__ import annotations

import numpy as np
import scipy.linalg
import scipy.sparse as sp

from .._engine import KernelRows, SolverOptions, as_data, solve_kernel_qp
from .._kernels import compact_columns
from .._solving import EngineProgress, StepProgress, kernel_spec, warn_not_converged
from .._validation import VERBOSE, Integer, Options, Real
from ..base import set_init_params
from ..registry import register
from ._base import SemiSupervisedSVM


@register(
    family="ssl",
    command="lapsvm",
    summary="Laplacian SVM (manifold regularisation)",
)
class LapSVM(SemiSupervisedSVM):
    r"""Laplacian SVM (manifold regularization) on a k-nearest-neighbour graph.

    .. math::

        \min_{f = \sum_i \alpha_i k(x_i, \cdot) + b}\ C_1 \sum_{i \in L} (1 - y_i f(x_i))_+
            + \tfrac12 \|f\|_K^2 + \frac{\gamma_I}{2 n}\, \mathbf f' L\, \mathbf f,

    with ``L = D - W`` the Laplacian of the symmetrised k-NN graph of all ``n`` training
    points (0/1 weights) and ``f`` the values of ``f`` on them. This is Belkin et al.'s
    problem with ``2 gamma_A = 1`` and ``1 / l`` scaled into ``C1``. The dual (their eq. 37)
    is an ordinary SVM on the labeled points with the kernel

    .. math:: \tilde K = J K (I + \lambda L K)^{-1} J', \qquad \lambda = \gamma_I / n,

    solved on the engine (as a precomputed kernel, with offset); then
    ``alpha = (I + lambda L K)^{-1} J' (beta .* y)``. With more than two classes, one such
    model per class against the others (one-vs-rest, ``estimators_``), each on the graph
    of all the points.

    Dense: the Gram matrix and the n x n system are formed, so it is a small-data baseline.
    Its peak is five n x n float64 matrices (the Gram matrix, ``L K``, the solver's copy,
    and the ``n x l`` right-hand side and solution when every point is labeled): a fit
    whose ``40 n^2`` bytes exceed the dense-memory budget
    (``unlabeled.set_config(max_dense_bytes=...)``, 4 GB by default) or the memory available
    is refused with :class:`~unlabeled.exceptions.MemoryBudgetError` before any work.

    Parameters
    ----------
    C1 : float, default=1.0
        Weight of the hinge loss on labeled points.
    gamma_I : float, default=1.0
        Weight of the graph smoothness term (``gamma_I = 0`` is the SVM on the labeled
        points).
    n_neighbors : int, default=5
        Neighbours of the graph (the paper's grid: 3, 5, 7, 9).
    kernel, gamma, degree, coef0 : as for :class:`sklearn.svm.SVC` (no "precomputed")
    tol : float, default=1e-3
        KKT tolerance of the SVM.
    max_iter : int, default=100000
        Solver iterations at most.
    verbose : bool or int, default=False
        Print the fit's stages to standard error (the graph and Gram matrix, the n x n
        system, the SVM on the labeled points; each with the seconds since the fit began)
        and the solver's progress once a second while it runs.
    %(probability_to_standardize)s

    Attributes
    ----------
    classes_, transduction_, dual_coef_, support_, support_vectors_, intercept_
        As for :class:`WellSVM`.
    %(wellsvm_attributes)s
    n_iter_ : int
        Iterations of the SVM solver.

    See Also
    --------
    WellSVM, TSVM

    References
    ----------
    M. Belkin, P. Niyogi, V. Sindhwani. Manifold regularization: a geometric framework for
    learning from labeled and unlabeled examples. JMLR 7:2399-2434, 2006.

    Examples
    --------
    >>> import numpy as np
    >>> from unlabeled.ssl import LapSVM
    >>> rng = np.random.default_rng(0)
    >>> truth = np.repeat([0, 1], 50)
    >>> X = rng.normal(0, 1, (100, 2)) + np.where(truth[:, None] == 1, 2.0, -2.0)
    >>> y = np.where(np.isin(np.arange(100), [0, 1, 2, 50, 51, 52]), truth, -1)  # -1: unlabeled
    >>> clf = LapSVM(gamma=0.5, n_neighbors=7).fit(X, y)
    >>> float(clf.score(X, truth)) > 0.9
    True
    """

    # its peak (tracemalloc, n = 1500): the Gram matrix, L K, the solver's copy of it, and the
    # n x l right-hand side and solution (n x n when every point is labeled); the k-NN graph
    # adds blocks of at most _BLOCK_BYTES. 24 (three matrices) under-counted it by half
    _dense_bytes_per_pair = 40.0
    _dense_fix = "subsample the unlabeled points or use WellSVM, which never forms an n x n matrix"

    _parameter_constraints: dict = {
        **{
            k: v
            for k, v in SemiSupervisedSVM._parameter_constraints.items()
            if k not in ("C2", "balance", "cache_size")
        },
        "kernel": [Options(("rbf", "linear", "poly"))],
        "gamma_I": [Real(0.0, low_open=False)],
        "n_neighbors": [Integer(1)],
        "verbose": VERBOSE,
    }

    def __init__(
        self,
        C1: float = 1.0,
        gamma_I: float = 1.0,
        *,
        n_neighbors: int = 5,
        kernel: str = "rbf",
        gamma: str | float = "scale",
        degree: int = 3,
        coef0: float = 0.0,
        tol: float = 1e-3,
        max_iter: int = 100000,
        verbose: bool | int = False,
        probability: bool = False,
        random_state: int | np.random.RandomState | None = None,
        standardize: bool = True,
    ) -> None:
        set_init_params(self, locals())

    #: the standardised features in float64 whatever X's dtype (its Gram matrix is float64)
    _standardize_in_float64 = True

    def _fit(self, params, X, classes, signs):
        n, lab = X.shape[0], np.flatnonzero(signs != 0)
        say = StepProgress(self.verbose, "LapSVM")
        self._check_gram(n)  # the dense-memory budget first
        # sparse X no wider than the Gram matrix: its dense copy (no more memory) for the
        # Gram and the graph, the same bits as dense X (the sparse products round
        # otherwise, and the dual of tied points, degenerate, moved within tol)
        # one-vs-rest: every class's subproblem has the same points, labeled rows and graph,
        # so the Gram matrix and the map A are computed once (the same bits) and shared
        shared = vars(self).get("_shared", {})
        if "lapsvm" not in shared:
            Xd = X.toarray() if sp.issparse(X) and X.shape[1] <= n else X
            K = self._gram(Xd)
            say(f"Gram matrix {n} x {n}")
            L = _laplacian(Xd, min(params["n_neighbors"], n - 1))
            say(f"graph of {min(params['n_neighbors'], n - 1)} neighbours")
            A = _manifold_solve(K, L, params["gamma_I"] / n, lab)
            say(f"system (I + gamma_I L K / n) solved for {lab.size} labeled points")
            shared["lapsvm"] = K, A
        K, A = shared["lapsvm"]
        Kt = K[lab] @ A  # J K (I + lambda L K)^-1 J'
        Kt = np.ascontiguousarray((Kt + Kt.T) / 2)
        rows = KernelRows(
            as_data(Kt),
            kernel_spec("precomputed"),
            np.arange(lab.size, dtype=np.int32),
            8.0 * Kt.size + 2**20,
        )
        progress = EngineProgress(self.verbose, "[LapSVM] SVM:")
        res = solve_kernel_qp(
            rows,
            np.arange(lab.size, dtype=np.int64),
            -np.ones(lab.size),
            np.full(lab.size, params["C1"]),
            np.zeros(lab.size),
            y=signs[lab],
            options=SolverOptions(params["tol"], True, params["max_iter"]),
            progress=progress if self.verbose else None,
        )
        progress.done(res)
        if not res.converged:
            warn_not_converged("LapSVM", limit=params["max_iter"], used=res.n_iter)
        alpha = A @ (res.alpha * signs[lab])
        self.set_expansion(X, alpha, -res.rho, classes=classes)
        self.n_iter_ = res.n_iter
        self._set_transduction(signs, K @ alpha - res.rho, classes)
        return self


#: bytes of the temporaries of one block of rows in :func:`_neighbours` (differences and keys)
_BLOCK_BYTES = 1 << 25


def _laplacian(X, k):
    """``D - W`` of the symmetrised 0/1 k-nearest-neighbour graph (sparse)."""
    n = X.shape[0]
    nbr = _neighbours(X, k)
    W = sp.csr_matrix((np.ones(nbr.size), nbr.ravel(), np.arange(0, nbr.size + 1, k)), shape=(n, n))
    W = W.maximum(W.T)
    return sp.diags(np.asarray(W.sum(axis=1)).ravel()) - W


def _neighbours(X, k) -> np.ndarray:
    """The ``k`` nearest other points of every row of ``X`` (shape (n, k)), ties broken the
    same way whatever the layout or the order of the rows.

    A squared distance is the sum of the squared differences of the two rows (not the
    expansion ``||a||^2 - 2 <a, b> + ||b||^2``, whose BLAS rounding depends on where the rows
    sit): the same bits for a pair wherever it is, and exactly equal for pairs at equal
    distances in exact arithmetic more often. Ties are broken by distance, then by the
    points' contents (a total order on distinct rows: the neighbour with the
    lexicographically smaller row first), then by index, which only orders identical rows.
    So permuting the rows permutes the graph, up to exchanges of identical points, and a
    Fortran-ordered or strided copy of ``X`` gives the same graph. scikit-learn's
    ``kneighbors_graph`` broke ties by its tree's layout and the row order."""
    n = X.shape[0]
    rank = _content_rank(X)
    dense = None if sp.issparse(X) else np.ascontiguousarray(X, dtype=np.float64)
    if dense is None:
        Xc = sp.csr_matrix(X, dtype=np.float64)
        Xc.sum_duplicates()
        (Xc,), _ = compact_columns(Xc)  # (Xc.T as CSR holds an index per column)
        sq = np.asarray(Xc.multiply(Xc).sum(axis=1)).ravel()
    width = max(1, X.shape[1]) if dense is not None else 1
    rows = max(1, _BLOCK_BYTES // (8 * n * (width + 3)))
    out = np.empty((n, k), dtype=np.int64)
    for r in range(0, n, rows):
        stop = min(n, r + rows)
        if dense is not None:
            diff = dense[r:stop, None, :] - dense[None, :, :]
            D = np.einsum("ijk,ijk->ij", diff, diff)
        else:
            # sparse: each product <a, b> sums the shared non-zeros in column order, the same
            # for a pair wherever it is; sq[i] + sq[j] commutes
            D = sq[r:stop, None] + sq[None, :] - 2.0 * (Xc[r:stop] @ Xc.T).toarray()
            np.maximum(D, 0.0, out=D)
        D[np.arange(stop - r), np.arange(r, stop)] = np.inf  # not its own neighbour
        order = np.lexsort((np.broadcast_to(rank, D.shape), D), axis=-1)
        out[r:stop] = order[:, :k]
    return out


def _content_rank(X) -> np.ndarray:
    """The position of every row in a total order of the rows by content, identical rows by
    index: by the (column indices, values) of its non-zeros, which depend on the row alone
    (the same for a dense row and its sparse copy)."""
    n = X.shape[0]
    Xc = sp.csr_matrix(X, dtype=np.float64)  # a copy: the canonical form is made in place
    Xc.sum_duplicates()
    Xc.eliminate_zeros()  # -0.0 too
    keys = [
        (Xc.indices[a:b].tolist(), Xc.data[a:b].tolist())
        for a, b in zip(Xc.indptr[:-1], Xc.indptr[1:], strict=True)
    ]
    order = np.array(sorted(range(n), key=keys.__getitem__), dtype=np.int64)
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n)
    return rank


def _manifold_solve(K, L, lam, lab):
    """``(I + lam L K)^-1 J'``: the n x l map from the labeled dual to the expansion.

    ``L K`` has real non-negative eigenvalues (``L`` and ``K`` are positive semi-definite), so
    the system is regular for every finite ``lam`` in exact arithmetic; in floating point the
    identity is lost once ``lam ||L K||`` passes about ``1 / eps`` and ``lam L K``, singular
    (``L 1 = 0``, and ``K`` with repeated points), is what is solved. That is refused naming
    ``gamma_I`` (``lam = gamma_I / n``) and the value that keeps the identity."""
    M = np.asarray(L @ K)  # one n x n temporary: scaled and shifted in place
    scale = float(np.abs(M).sum(axis=1).max())  # ||L K||, the infinity norm
    M *= lam
    M[np.diag_indices_from(M)] += 1.0
    rhs = np.zeros((K.shape[0], lab.size))
    rhs[lab, np.arange(lab.size)] = 1.0
    try:
        return scipy.linalg.solve(M, rhs, overwrite_a=True, check_finite=False)
    except np.linalg.LinAlgError:
        n = K.shape[0]
        raise ValueError(
            f"LapSVM's system I + (gamma_I / n) L K is singular in floating point: "
            f"gamma_I={lam * n:g} scales the graph term to {lam * scale:.3g} times the "
            f"identity, which rounding then loses (repeated points make L K singular). Lower "
            f"gamma_I to at most about {1e12 * n / max(scale, 1e-300):.3g}"
        ) from None
