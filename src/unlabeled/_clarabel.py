"""The dense QPs that the reference solvers (``solver="qp"``, ``inner_solver="qp"``) hand to
Clarabel, and what its statuses mean for them."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ._solving import warn_not_converged
from .exceptions import QPSolverError


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


#: what Clarabel's statuses mean for the library's QPs, which are always feasible and bounded
_QP_STATUS = {
    "Infeasible": "reports the problem infeasible, which it is not: the numbers are too badly "
    "scaled for the interior-point method",
    "MaxIterations": "stopped after its iteration limit without converging",
    "MaxTime": "stopped at its time limit",
    "NumericalError": "failed on a numerical error",
    "InsufficientProgress": "stopped making progress",
}


def clarabel_qp(P, q, A_eq, b_eq, G, h, *, tol_gap, tol_feas, verbose, what, scale=""):
    """min 1/2 x'Px + q'x  s.t.  A_eq x = b_eq,  G x <= h, by Clarabel; returns its solution
    (``x``, and ``z`` whose first rows are the equalities' multipliers, with
    P x + q + A' z = 0). ``what`` names the problem in errors; ``scale`` the parameters that
    set its scale (e.g. ``"lam"``), named in a :class:`QPSolverError` with the fix."""
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
        meaning = next((v for k, v in _QP_STATUS.items() if k in status), "failed")
        change = f"bring {scale} closer to 1 (or rescale the data)" if scale else "rescale"
        raise QPSolverError(
            f"Clarabel did not solve {what}: status {status}; it {meaning}. Extreme values "
            f"make the problem numerically meaningless: {change}, or use the engine's SMO "
            "solver, which handles any scale"
        )
    if status == "AlmostSolved":
        warn_not_converged(
            "Clarabel", why=f"reports AlmostSolved on {what}: reduced accuracy", stacklevel=3
        )
    return sol
