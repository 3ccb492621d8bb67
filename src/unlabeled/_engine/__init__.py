"""The compiled engine (C++17, nanobind) and the few Python helpers that feed it.

See ARCHITECTURE.md for its contract: typed data, kernel and option objects in, typed
results out; the solvers run without the GIL and report through an optional callback.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ._core import (
    Data,
    KernelRows,
    KernelSpec,
    LinearSolution,
    PUSolution,
    QPSolution,
    SolverOptions,
    SVMPlusSolution,
    exp_nonpositive,
    pu_start_weights,
    rbf_dense_times,
    rbf_gram_times,
    solve_kernel_qp,
    solve_linear_dual,
    solve_pu,
    solve_svmplus,
    vbmfa_e_step,
    vbmfa_fit,
    vbmfa_q,
    vbmfa_q_sums,
    vbmfa_stats,
    vbmfa_x,
)

__all__ = [
    "Data",
    "KernelRows",
    "KernelSpec",
    "LinearSolution",
    "PUSolution",
    "QPSolution",
    "SVMPlusSolution",
    "SolverOptions",
    "as_data",
    "exp_nonpositive",
    "pu_start_weights",
    "rbf_dense_times",
    "rbf_gram_times",
    "solve_kernel_qp",
    "solve_linear_dual",
    "solve_pu",
    "solve_svmplus",
    "vbmfa_e_step",
    "vbmfa_fit",
    "vbmfa_q",
    "vbmfa_q_sums",
    "vbmfa_stats",
    "vbmfa_x",
]


def as_data(X, compress_columns: bool = False) -> Data:
    """The engine's view of ``X`` (dense float64/float32 or any scipy sparse matrix).

    Sparse input is canonicalised on a copy (duplicates summed, indices sorted), never in
    place: the engine's sparse dot products need sorted unique indices, and the caller's
    matrix must stay as it was.

    With ``compress_columns`` the columns of sparse ``X`` are renumbered to those holding an
    entry (in order, so every row keeps its values in the same order and every dot product
    its bits): the engine's sparse kernel rows use a scatter buffer of one double per column,
    800 MB for a file with one feature index of 1e8, and column indices of 2**31 or more fit
    in 32 bits once renumbered. Only for callers that read nothing in column space back from
    the engine (the kernel solvers; not the linear ones, whose ``w`` has one entry per
    column).
    """
    if sp.issparse(X):
        X = sp.csr_matrix(X, copy=True)
        X.sum_duplicates()
        indices, d = X.indices, X.shape[1]
        if compress_columns and d > max(X.nnz, 1024):
            used, indices = np.unique(X.indices, return_inverse=True)
            d = max(used.size, 1)
        if d > np.iinfo(np.int32).max:
            raise ValueError(
                f"X has {d} columns; the engine indexes columns with 32-bit integers "
                f"(at most {np.iinfo(np.int32).max}): drop empty columns first"
            )
        return Data.csr(
            np.ascontiguousarray(X.data, dtype=np.float64),
            np.ascontiguousarray(indices, dtype=np.int32),
            np.ascontiguousarray(X.indptr, dtype=np.int64),
            d,
        )
    X = np.asarray(X)
    if X.dtype != np.float32:
        X = np.asarray(X, dtype=np.float64)
    return Data.dense(np.ascontiguousarray(X))
