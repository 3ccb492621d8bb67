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
    QPSolution,
    SolverOptions,
    pu_start_weights,
    solve_kernel_qp,
    solve_linear_dual,
    solve_pu,
    solve_qp,
    solve_svmplus,
)

__all__ = [
    "Data",
    "KernelRows",
    "KernelSpec",
    "LinearSolution",
    "QPSolution",
    "SolverOptions",
    "as_data",
    "pu_start_weights",
    "solve_kernel_qp",
    "solve_linear_dual",
    "solve_pu",
    "solve_qp",
    "solve_svmplus",
]


def as_data(X) -> Data:
    """The engine's view of ``X`` (dense float64/float32 or any scipy sparse matrix).

    Sparse input is canonicalised on a copy (duplicates summed, indices sorted), never in
    place: the engine's sparse dot products need sorted unique indices, and the caller's
    matrix must stay as it was.
    """
    if sp.issparse(X):
        X = sp.csr_matrix(X, copy=True)
        X.sum_duplicates()
        if X.shape[1] > np.iinfo(np.int32).max:
            raise ValueError(
                f"X has {X.shape[1]} columns; the engine indexes columns with 32-bit integers "
                f"(at most {np.iinfo(np.int32).max}): drop empty columns first"
            )
        return Data.csr(
            np.ascontiguousarray(X.data, dtype=np.float64),
            np.ascontiguousarray(X.indices, dtype=np.int32),
            np.ascontiguousarray(X.indptr, dtype=np.int64),
            X.shape[1],
        )
    X = np.asarray(X)
    if X.dtype != np.float32:
        X = np.asarray(X, dtype=np.float64)
    return Data.dense(np.ascontiguousarray(X))
