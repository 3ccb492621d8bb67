"""Plumbing the estimators share: engine arguments, the engine's progress printer, and the
dense QPs handed to Clarabel by the reference solvers."""

from __future__ import annotations

import sys
import time
import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning

_DATA_NAMES = {
    "": ("X64", "X32", "csr_data", "csr_indices", "csr_indptr", "n_cols"),
    "s": ("Xs64", "Xs32", "csrs_data", "csrs_indices", "csrs_indptr", "ns_cols"),
}


def engine_data(X, suffix=""):
    """The engine's arguments for one data matrix; suffix "s" names SVM+'s privileged one."""
    names = _DATA_NAMES[suffix]
    out = dict.fromkeys(names[:5])
    if sp.issparse(X):
        X = X.tocsr()
        X.sort_indices()
        out[names[2]] = np.ascontiguousarray(X.data, dtype=np.float64)
        out[names[3]] = np.ascontiguousarray(X.indices, dtype=np.int32)
        out[names[4]] = np.ascontiguousarray(X.indptr, dtype=np.int64)
    elif X.dtype == np.float32:
        out[names[1]] = np.ascontiguousarray(X)
    else:
        out[names[0]] = np.ascontiguousarray(X, dtype=np.float64)
    out[names[5]] = X.shape[1]
    if suffix == "":
        out["n_rows"] = X.shape[0]
    return out


class EngineProgress:
    """Engine progress hook: prints at most once a second when verbose."""

    def __init__(self, verbose, prefix):
        self.verbose = bool(verbose)
        self.prefix = prefix
        self.last = 0.0
        self.start = time.perf_counter()

    def __call__(self, it, violation, objective, elapsed):
        if self.verbose and elapsed - self.last >= 1.0:
            self.last = elapsed
            obj = "-" if np.isnan(objective) else f"{objective:.8g}"
            self._print(
                f"iter {it:>10d}  KKT violation {violation:.3e}  dual objective {obj}"
                f"  {elapsed:7.1f}s"
            )
        return False  # never asks the engine to stop; Ctrl-C does

    def done(self, res):
        if self.verbose:
            obj = f", dual objective {res['objective']:.8g}" if "objective" in res else ""
            self._print(
                f"done: {res['n_iter']} iterations, KKT violation {res['violation']:.3e}{obj}, "
                f"{time.perf_counter() - self.start:.2f}s"
            )

    def _print(self, text):
        print(f"{self.prefix} {text}", file=sys.stderr, flush=True)


def upper_csc(Q, n_total=None):
    """The upper triangle of the dense symmetric Q (m x m) as an (n_total x n_total) CSC
    matrix (n_total >= m pads with empty columns), built row by row so that no index
    temporaries of size m^2 appear."""
    m = Q.shape[0]
    n_total = m if n_total is None else n_total
    indptr = np.zeros(n_total + 1, dtype=np.int64)
    indptr[1 : m + 1] = np.cumsum(np.arange(1, m + 1))
    indptr[m + 1 :] = indptr[m]
    data = np.empty(indptr[m])
    indices = np.empty(indptr[m], dtype=np.int64)
    for j in range(m):  # column j of the upper triangle holds Q[0..j, j] = Q[j, 0..j]
        data[indptr[j] : indptr[j + 1]] = Q[j, : j + 1]
        indices[indptr[j] : indptr[j + 1]] = np.arange(j + 1)
    return sp.csc_matrix((data, indices, indptr), shape=(n_total, n_total))


def clarabel_qp(P, q, A_eq, b_eq, G, h, *, tol_gap, tol_feas, verbose, what):
    """min 1/2 x'Px + q'x  s.t.  A_eq x = b_eq,  G x <= h, by Clarabel; returns its solution
    (``x``, and ``z`` whose first rows are the equalities' multipliers, with
    P x + q + A' z = 0). ``what`` names the problem in errors."""
    import clarabel

    settings = clarabel.DefaultSettings()
    settings.verbose = bool(verbose)
    settings.tol_gap_abs = settings.tol_gap_rel = tol_gap
    settings.tol_feas = tol_feas
    settings.max_iter = 500
    A = sp.vstack([A_eq, G], format="csc")
    cones = [clarabel.ZeroConeT(A_eq.shape[0]), clarabel.NonnegativeConeT(G.shape[0])]
    sol = clarabel.DefaultSolver(P, q, A, np.r_[b_eq, h], cones, settings).solve()
    status = str(sol.status)
    if status not in ("Solved", "AlmostSolved"):
        raise RuntimeError(f"Clarabel did not solve {what}: status {status}")
    if status == "AlmostSolved":
        warn_not_converged(
            "Clarabel", why=f"reports AlmostSolved on {what}: reduced accuracy", stacklevel=3
        )
    return sol


def warn_not_converged(
    who: str,
    *,
    why: str | None = None,
    limit: int | None = None,
    limit_name: str = "max_iter",
    used: int = 0,
    unit: str = "iterations",
    detail: str = "",
    stacklevel: int = 2,
) -> None:
    """The library's one ConvergenceWarning: ``who`` stopped before its stopping test held.

    Parameters
    ----------
    who : str
        The solver or estimator, first word of the message.
    why : str, optional
        The reason, when it is neither of the two below.
    limit, limit_name, used, unit
        When ``used >= limit`` the cap was reached: "stopped after max_iter=5 iterations;
        increase max_iter"; otherwise the solver stalled in floating point.
    detail : str
        Appended as is (e.g. ". KKT violation 0.012 > tol=0.001.").
    stacklevel : int
        Of the caller, as for :func:`warnings.warn`.
    """
    if why is None:
        if limit is not None and used >= limit:
            why = f"stopped after {limit_name}={limit} {unit}; increase {limit_name}"
        else:
            why = "stalled: no step can move in floating point (degenerate data?)"
    warnings.warn(f"{who} {why}{detail}", ConvergenceWarning, stacklevel=stacklevel + 1)
