"""The kernels of the library, written once: the bottom layer of the Python code.

``linear``: ``<a, b>``; ``rbf``: ``exp(-gamma ||a - b||^2)``; ``poly``:
``(gamma <a, b> + coef0)^degree``; ``precomputed``: a Gram matrix given by the user. The
engine computes the same kernels in C++ (``KERNEL_CODES`` are its numbers for them); this
module computes blocks of them with NumPy/BLAS for the checks, the dense solvers and
prediction, in bounded memory. It imports nothing from the rest of the package.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

#: the kernel names every kernel machine accepts
KERNELS = ("linear", "poly", "rbf", "precomputed")
#: the engine's number for each kernel (``KernelSpec``'s ``kind``)
KERNEL_CODES = {"linear": 0, "poly": 1, "rbf": 2, "precomputed": 3}

_CHUNK_BYTES = 64 * 2**20  # kernel blocks at predict time stay below this size


def kernel_params(kernel: str, gamma: float, degree: int, coef0: float) -> dict:
    """The parameters :func:`kernel_block` needs for ``kernel`` (none for the linear one)."""
    if kernel == "linear":
        return {}
    if kernel == "poly":
        return {"gamma": float(gamma), "degree": int(degree), "coef0": float(coef0)}
    return {"gamma": float(gamma)}


def kernel_block(A, B, kernel: str, params: dict) -> np.ndarray:
    """The kernel block ``k(a_i, b_j)`` for the rows of ``A`` and ``B`` (dense or CSR).

    ``linear``: ``<a, b>``; ``rbf``: ``exp(-gamma ||a - b||^2)``, the squared distances as
    ``||a||^2 - 2 <a, b> + ||b||^2`` through one matrix product; ``poly``:
    ``(gamma <a, b> + coef0)^degree``. Computed in place, in the dtype of the product (float32
    blocks for float32 inputs; cast the inputs to float64 for full precision).

    Parameters
    ----------
    A : ndarray or sparse matrix of shape (n_a, n_features)
    B : ndarray or sparse matrix of shape (n_b, n_features)
    kernel : {"linear", "rbf", "poly"}
    params : dict
        From :func:`kernel_params`.

    Returns
    -------
    ndarray of shape (n_a, n_b)
    """
    A, B = _used_columns(A, B)
    D = A @ B.T
    D = D.toarray() if sp.issparse(D) else np.asarray(D)
    if kernel == "rbf":
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
    elif kernel == "poly":
        D *= params["gamma"]
        D += params["coef0"]
        D **= params["degree"]
    return D


def as_float64(A):
    return A if A.dtype == np.float64 else A.astype(np.float64)


def compact_columns(*mats):
    """``(matrices, used)``: the sparse ``mats`` as CSR on the columns where any of them has an
    entry, renumbered in order, and those columns. scipy's sparse products and conversions
    allocate one index per column (4 GiB at 2^30 columns, 400 MB for one feature index of
    1e8); each row keeps its entries in the same order, so every product keeps its terms, in
    the same order: the same bits."""
    mats = [sp.csr_matrix(M) for M in mats]
    used = np.unique(np.concatenate([M.indices for M in mats]))
    width = max(used.size, 1)
    return [
        sp.csr_matrix((M.data, np.searchsorted(used, M.indices), M.indptr), (M.shape[0], width))
        for M in mats
    ], used


def _used_columns(A, B):
    """Sparse ``A`` and ``B`` on their used columns (:func:`compact_columns`) where they are
    wide; anything else as given."""
    if not (sp.issparse(A) and sp.issparse(B)) or A.shape[1] <= max(A.nnz + B.nnz, 1024):
        return A, B
    (A, B), _ = compact_columns(A, B)
    return A, B


def blockwise(n_rows, width, fn):
    """Evaluate fn(slice) over row blocks whose (rows x width) float64 kernel block stays
    below ``_CHUNK_BYTES``, so prediction never materialises an n x n_SV matrix."""
    step = max(1, _CHUNK_BYTES // (8 * max(width, 1)))
    out = np.empty(n_rows)
    for start in range(0, n_rows, step):
        r = slice(start, min(start + step, n_rows))
        out[r] = np.asarray(fn(r), dtype=np.float64).ravel()
    return out


def kernel_dot(A, B, coef, kernel, params, rows=None):
    """``sum_j coef_j k(a_i, b_j)`` for the rows ``a_i`` of ``A`` (those in ``rows`` if given),
    in float64 and in row blocks of bounded memory.

    With ``kernel="precomputed"`` ``A`` holds kernel values and ``B`` the indices of the
    columns to use."""
    n = A.shape[0] if rows is None else len(rows)
    if kernel == "precomputed":
        cols = np.asarray(B)
        # np.take gives a C-ordered block whatever the order of A (A[:, cols] may not): the
        # same products, to the bit, for every layout
        return blockwise(n, len(coef), lambda r: np.take(_rows(A, rows, r), cols, axis=1) @ coef)
    B = as_float64(B)
    return blockwise(
        n,
        len(coef),
        lambda r: kernel_block(as_float64(_rows(A, rows, r)), B, kernel, params) @ coef,
    )


def _rows(A, rows, r):
    return A[r] if rows is None else A[rows[r]]
