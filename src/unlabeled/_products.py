r"""Kernel-times-matrix products ``K(X[rows], X[cols]) @ V`` through BLAS, by the cheapest path.

An exact SVM fit needs at least one such product with the support vectors (every point's
gradient), so its speed bounds the fit's. Three paths compute it in blocks of bounded memory:

* ``"dense"``: float64 matrix products (sparse data are densified first, when their dense form
  is at most :data:`DENSIFY_MB` MB: one-hot tables are far faster as dense GEMMs than as
  sparse-sparse products);
* ``"dense32"``: float32 matrix products, the kernel then evaluated in float64. For data of
  small integers (one-hot, counts) every inner product is an integer below ``2**24``, exact in
  float32, so the result equals the float64 path's; on other data it is accurate to ~1e-7;
* ``"sparse"``: sparse-sparse products, for data whose dense form is too large.

Large rbf products (from :data:`ENGINE_MIN_ENTRIES` kernel values on) run in the engine
(``blocks.cpp``): each kernel value is made from its inner product, multiplied into ``V`` and
dropped in registers, its exponential by the engine's own vector exp inlined into that loop
(about 1 ns a value, while NumPy's exp takes about 7 ns without AVX-512: issue 36). For at most
:data:`FUSED_MAX_FEATURES` features the engine also computes the inner products (a GEMM with so
few of them is bound by storing its block); for more, BLAS computes each block of inner products
(float32 on the ``dense32`` path) and the engine takes it from there. Smaller rbf products, and the
other kernels, take NumPy's blocks below, the reference that the engine path is tested against.

For NumPy's blocks the rbf kernel is evaluated as
:math:`k(a, b) = e^{-\gamma\|a\|^2} \, e^{2\gamma\langle a, b\rangle} \, e^{-\gamma\|b\|^2}`:
one exponential per entry and no other pass over the block, the two outer factors folded into
``V`` and the output (for the rows and columns where no exponent can overflow; the distance
form for the others). Row
blocks are spread over ``threads`` workers (NumPy and single-threaded BLAS release the GIL).
With a ``report`` function, a named product reports its progress (at most once a second) so
that a long fit is never silent.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import scipy.sparse as sp

from . import _engine
from ._threads import one_blas_thread

#: sparse data whose dense float64 form is at most this many MB are densified for products
DENSIFY_MB = 256
PATHS = ("auto", "dense", "dense32", "sparse")

_BLOCK_BYTES = 2 * 2**20  # one kernel block per worker, small enough to stay in cache
_COL_STEP = 2048
_EXP_SAFE = 300.0  # the factored rbf form needs gamma ||x||^2 below this (no overflow)
#: rbf products of at least this many kernel values run in the engine (see the module)
ENGINE_MIN_ENTRIES = 2**20
#: up to this many features the engine computes the inner products too (no BLAS block)
FUSED_MAX_FEATURES = 16


def exact_in_float32(X) -> bool:
    """Whether float32 matrix products of ``X`` are exact: integer values whose inner products
    (and partial sums) stay below ``2**24``."""
    vals = X.data if sp.issparse(X) else np.asarray(X)
    if vals.size == 0:
        return True
    if not np.all(np.isfinite(vals)) or not np.array_equal(vals, np.round(vals)):
        return False
    width = X.getnnz(axis=1).max() if sp.issparse(X) else X.shape[1]
    return float(np.abs(vals).max()) ** 2 * max(int(width), 1) < 2.0**24


def choose_path(X, path: str = "auto") -> str:
    """The product path for ``X``: ``path`` itself unless ``"auto"`` (see the module)."""
    if path != "auto":
        return path
    if sp.issparse(X) and X.shape[0] * X.shape[1] * 8 > DENSIFY_MB * 2**20:
        return "sparse"
    return "dense32" if exact_in_float32(X) else "dense"


def _sq_norms(M):
    if sp.issparse(M):
        return np.asarray(M.multiply(M).sum(axis=1), dtype=np.float64).ravel()
    M = np.asarray(M, dtype=np.float64)
    return np.einsum("ij,ij->i", M, M)


class KernelProducts:
    """``K(X[rows], X[cols]) @ V`` for a fixed ``X`` and kernel, by :func:`choose_path`.

    Parameters
    ----------
    X : ndarray or sparse matrix of shape (n, d)
    kernel : {"linear", "rbf", "poly"}
    params : dict
        ``gamma`` (rbf, poly), ``degree`` and ``coef0`` (poly).
    threads : int
        Workers (0: all cores).
    path : {"auto", "dense", "dense32", "sparse"}
    report : callable or None
        ``report(text)`` is given a line on each product called with ``what``: its size when
        it starts, how far it is at most once a second, its time when it ends.
    """

    def __init__(
        self,
        X,
        kernel: str,
        params: dict,
        threads: int = 0,
        path: str = "auto",
        report: Callable[[str], None] | None = None,
    ):
        self.path = choose_path(X, path)
        self.report = report
        self._progress: _Progress | None = None
        self.kernel, self.params = kernel, params
        self.threads = threads if threads > 0 else os.cpu_count() or 1
        if self.path == "sparse":
            self.X = sp.csr_matrix(X)
        else:
            dense = X.toarray() if sp.issparse(X) else np.asarray(X)
            dtype = np.float32 if self.path == "dense32" else np.float64
            self.X = np.ascontiguousarray(dense, dtype=dtype)
        self.sq = _sq_norms(X) if kernel == "rbf" else None
        self._sq_stored: np.ndarray | None = None

    def __call__(self, rows, cols, V, what: str | None = None) -> np.ndarray:
        """``K(X[rows], X[cols]) @ V`` as float64, shape ``(len(rows), V.shape[1])``; columns
        whose row of ``V`` is zero are skipped. ``what`` names the product in the lines given
        to ``report``."""
        rows = np.asarray(rows)
        V = np.asarray(V, dtype=np.float64).reshape(len(cols), -1)
        keep = np.flatnonzero(np.any(V != 0, axis=1))
        cols, V = np.asarray(cols)[keep], V[keep]
        out = np.zeros((rows.size, V.shape[1]))
        if cols.size == 0 or rows.size == 0:
            return out
        self._progress = None
        if self.report is not None and what is not None:
            self._progress = _Progress(self.report, what, rows.size, cols.size, self)
        try:
            return self._products(rows, cols, V, out)
        finally:
            if self._progress is not None:
                self._progress.done()
                self._progress = None

    def _products(self, rows, cols, V, out):
        if self.kernel == "rbf" and rows.size * cols.size >= ENGINE_MIN_ENTRIES:
            return self._engine_rbf(rows, cols, V, out)
        if self.kernel != "rbf":
            return self._product(rows, cols, V, False)
        # the factored form where gamma ||x||^2 is small at both ends, the distance form for
        # the rest: a few outlying rows (Shuttle's table has 20 in 43,500) must not send the
        # whole product down the slow path
        g = self.params["gamma"]
        assert self.sq is not None  # set in __init__ for the rbf kernel
        safe_r, safe_c = g * self.sq[rows] <= _EXP_SAFE, g * self.sq[cols] <= _EXP_SAFE
        for r_mask, c_mask, factored in (
            (safe_r, safe_c, True),
            (safe_r, ~safe_c, False),
            (~safe_r, np.ones_like(safe_c), False),
        ):
            if r_mask.any() and c_mask.any():
                out[r_mask] += self._product(rows[r_mask], cols[c_mask], V[c_mask], factored)
        return out

    def _engine_rbf(self, rows, cols, V, out):
        """``out += K(X[rows], X[cols]) @ V`` for the rbf kernel by the engine, in blocks over
        ``threads`` workers (the engine releases the GIL). The distance form throughout: the
        engine never stores exp(2 gamma <a, b>), so no outlier can overflow it."""
        g = float(self.params["gamma"])
        if self._sq_stored is None:  # the norms of the rows as stored (float32 on dense32):
            # distances from them and the stored rows' inner products vanish at a = b
            self._sq_stored = _sq_norms(self.X)
        sq = self._sq_stored
        fused = self.path != "sparse" and self.X.shape[1] <= FUSED_MAX_FEATURES
        col_blocks = []
        for c in range(0, cols.size, _COL_STEP):
            B = self.X[cols[c : c + _COL_STEP]]
            # fused: B's columns side by side for the engine's vectors; else B for BLAS
            B = np.ascontiguousarray(B.T, dtype=np.float64) if fused else B
            Wt = np.ascontiguousarray(V[c : c + _COL_STEP].T)
            col_blocks.append((B, np.ascontiguousarray(sq[cols[c : c + _COL_STEP]]), Wt))
        step = max(8, _BLOCK_BYTES // (8 * min(cols.size, _COL_STEP)))
        progress = self._progress

        def work(r):
            part = rows[r : r + step]
            A, rs, o = self.X[part], np.ascontiguousarray(sq[part]), out[r : r + step]
            if fused:
                A = np.ascontiguousarray(A, dtype=np.float64)
            for B, cs, Wt in col_blocks:
                if fused:
                    _engine.rbf_dense_times(A, B, rs, cs, g, Wt, o)
                    continue
                D = A @ B.T
                D = D.toarray() if sp.issparse(D) else np.ascontiguousarray(D)
                _engine.rbf_gram_times(D, rs, cs, g, Wt, o)
            if progress is not None:
                progress.add(part.size * cols.size)

        self._over_row_blocks(work, rows.size, step)
        return out

    def _over_row_blocks(self, work, n_rows: int, step: int) -> None:
        """``work(r)`` for every row block start ``r``, on ``threads`` workers (BLAS on one
        thread each, so that the workers do not oversubscribe the cores)."""
        with one_blas_thread():
            starts = range(0, n_rows, step)
            if self.threads == 1 or len(starts) == 1:
                for r in starts:
                    work(r)
            else:
                with ThreadPoolExecutor(self.threads) as pool:
                    list(pool.map(work, starts))

    def _product(self, rows, cols, V, factored):
        """``K(X[rows], X[cols]) @ V`` in blocks over ``threads`` workers; ``factored``: the
        rbf kernel's factored form (the caller checks that it cannot overflow)."""
        out = np.zeros((rows.size, V.shape[1]))
        row_scale = None
        if factored:
            g = self.params["gamma"]
            row_scale = np.exp(-g * self.sq[rows])
            V = V * np.exp(-g * self.sq[cols])[:, None]
        col_blocks = [
            (c, self.X[cols[c : c + _COL_STEP]], V[c : c + _COL_STEP])
            for c in range(0, cols.size, _COL_STEP)
        ]
        step = max(8, _BLOCK_BYTES // (8 * min(cols.size, _COL_STEP)))

        progress = getattr(self, "_progress", None)

        def work(r):
            A = self.X[rows[r : r + step]]
            for c, B, W in col_blocks:
                out[r : r + step] += self._block(A, B, r, c, rows, cols, factored) @ W
            if progress is not None:
                progress.add(A.shape[0] * cols.size)

        self._over_row_blocks(work, rows.size, step)
        if row_scale is not None:
            out *= row_scale[:, None]
        return out

    def _block(self, A, B, r, c, rows, cols, factored):
        """The kernel block of row block ``A`` and column block ``B`` (float64), without the
        outer factors in the factored rbf form."""
        D = A @ B.T
        if sp.issparse(D):
            D = D.toarray()
        D = np.asarray(D, dtype=np.float64)  # a float32 product is converted once, here
        if self.kernel == "linear":
            return D
        if self.kernel == "poly":
            D *= self.params["gamma"]
            D += self.params["coef0"]
            D **= self.params["degree"]
            return D
        g = self.params["gamma"]
        if factored:
            D *= 2 * g
        else:  # -gamma ||a - b||^2, clipped at 0 against rounding
            D *= -2
            D += self.sq[rows[r : r + A.shape[0]]][:, None]
            D += self.sq[cols[c : c + B.shape[0]]][None, :]
            np.maximum(D, 0, out=D)
            D *= -g
        np.exp(D, out=D)
        return D


class _Progress:
    """The lines of one named product for ``KernelProducts.report``: its size, then how far
    it is at most once a second (the workers add the kernel entries they have done), then
    its time."""

    def __init__(self, report, what, n_rows, n_cols, products):
        self.report, self.what = report, what
        self.total, self.count = n_rows * n_cols, 0
        self.lock = threading.Lock()
        self.start = self.last = time.perf_counter()
        report(
            f"{what}: {n_rows:,} x {n_cols:,} kernel entries ({products.path} products, "
            f"{products.threads} thread{'s' * (products.threads > 1)})"
        )

    def add(self, entries: int) -> None:
        with self.lock:
            self.count += entries
            now = time.perf_counter()
            if now - self.last < 1.0:
                return
            self.last = now
            share = min(self.count / self.total, 1.0)
        self.report(f"{self.what}: {100 * share:3.0f}%  {now - self.start:7.1f}s")

    def done(self) -> None:
        self.report(f"{self.what}: done, {time.perf_counter() - self.start:.2f}s")
