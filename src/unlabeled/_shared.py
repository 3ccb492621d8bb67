"""Plumbing the estimators share: engine arguments, the engine's progress printer, and the
dense QPs handed to Clarabel by the reference solvers."""

from __future__ import annotations

import contextlib
import functools
import os
import sys
import threading
import time
import warnings
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning

from ._config import dense_budget, get_config
from ._engine import as_data
from .exceptions import MemoryBudgetError, QPSolverError


def engine_data(X, kernel: str | None = None):
    """The engine's typed view of ``X`` (sparse input canonicalised on a copy). With a
    ``kernel`` other than ``"linear"`` (the engine reads X only through kernel values, and
    returns nothing indexed by column) the columns of sparse X are renumbered to those in use:
    no buffer of length n_features (see :func:`unlabeled._engine.as_data`)."""
    return as_data(X, compress_columns=kernel is not None and kernel != "linear")


def default_max_iter(n: int, linear: bool = False) -> int:
    """The cap on a solver's steps when the user gave none (``max_iter=None``).

    LIBSVM's ``max(10^7, 100 n)`` for the pairwise (SMO) solvers, whose steps touch two
    variables; for the linear dual solver, whose steps are single coordinate updates,
    LIBLINEAR's 1000 passes over the data, ``max(10^7, 1000 n)``. A normal problem converges
    long before (a few passes); a pathological one (data scaled by 1e18, ``lam=1e-30``, a
    tolerance below rounding) stops there with a ``ConvergenceWarning`` instead of running
    for ever."""
    floor = get_config()["min_default_max_iter"]
    return int(max(floor, (1000 if linear else 100) * int(n)))


def resolve_max_iter(max_iter, n: int, linear: bool = False) -> int:
    """``max_iter`` as given, or :func:`default_max_iter` for None (and the engine's -1)."""
    if max_iter is None or max_iter < 0:
        return default_max_iter(n, linear)
    return int(max_iter)


def _available_bytes() -> float:
    """The memory this process may still allocate: the smallest of the memory the OS reports
    available, the room left under an address-space limit (``ulimit -v``: there a native
    allocation that fails aborts the process, Clarabel's included) and the room left in a
    cgroup v2 memory limit (a container's); inf when none is known."""
    limits = [float("inf")]
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    limits.append(float(line.split()[1]) * 1024)
    except (OSError, ValueError, IndexError):
        pass
    try:
        import resource

        soft = resource.getrlimit(resource.RLIMIT_AS)[0]
        if soft != resource.RLIM_INFINITY:
            limits.append(float(soft) - _status_bytes("VmSize:"))
    except (ImportError, OSError, ValueError):
        pass
    try:
        with open("/sys/fs/cgroup/memory.max") as fh:
            cap = fh.read().strip()
        if cap != "max":
            with open("/sys/fs/cgroup/memory.current") as fh:
                limits.append(float(cap) - float(fh.read()))
    except (OSError, ValueError):
        pass
    return max(0.0, min(limits))


def _status_bytes(key: str) -> float:
    """A size from /proc/self/status (``VmSize:``, in kB there); 0 when unknown."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith(key):
                    return float(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0.0


def check_dense_budget(n_bytes: float, what: str, fix: str, budget: float | None = None) -> None:
    """Refuse an allocation of ``n_bytes`` over :func:`dense_budget` or the memory available.

    ``what`` says what would be allocated (``"RampPU(inner_solver='qp') builds a 5000 x 5000
    Gram matrix"``), ``fix`` what to do instead; both go into the :class:`MemoryBudgetError`.
    ``budget`` replaces :func:`dense_budget` for a method with its own (``inf``: the memory
    available only)."""
    budget, avail = dense_budget() if budget is None else budget, _available_bytes()
    if n_bytes <= budget and n_bytes <= avail:
        return
    limit = (
        f"over the budget of {budget / 2**30:.3g} GB (unlabeled.set_config(max_dense_bytes=...) "
        "or UNLABELED_MAX_DENSE_BYTES)"
        if n_bytes > budget
        else f"over the {avail / 2**30:.3g} GB of memory available"
    )
    raise MemoryBudgetError(f"{what}: about {n_bytes / 2**30:.3g} GB, {limit}; {fix}")


def available_cores() -> int:
    """The cores this process may run on (its CPU affinity where the OS has one)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


@functools.cache
def _blas_controller():
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


@contextlib.contextmanager
def one_blas_thread():
    """A context manager that runs BLAS on one thread (threadpoolctl). The controller is built
    once: building it scans the loaded libraries (1.3 ms with NumPy, SciPy and scikit-learn
    loaded, against 0.02 ms for a limit), and a PUSVC fit limits BLAS four times.

    The limit is process-wide, so callers in several threads at once (Dask's threaded
    scheduler predicting chunks with CLSST) share one: the first to enter sets it, the last to
    leave restores the original. Separate limits restored out of order left BLAS on one thread
    after all of them had left."""
    global _blas_users, _blas_limiter
    with _blas_lock:
        if _blas_users == 0:
            _blas_limiter = _blas_controller().limit(limits=1, user_api="blas")
        _blas_users += 1
    try:
        yield
    finally:
        with _blas_lock:
            _blas_users -= 1
            if _blas_users == 0:
                _blas_limiter.restore_original_limits()
                _blas_limiter = None


_blas_lock = threading.Lock()
_blas_users = 0  # threads inside one_blas_thread
_blas_limiter = None


def engine_threads(n_jobs) -> int:
    """Threads for the engine: ``n_jobs`` clipped to the cores available (more threads than
    cores only contend for them: 5,000 made a fit 60 times slower and 100,000 crashed the
    OpenMP runtime), every available core for ``-1``, and for ``None`` the cores not already
    busy with runnable processes (at least one)."""
    cores = available_cores()
    if n_jobs is not None and n_jobs != -1:
        return max(1, min(int(n_jobs), cores))
    if n_jobs == -1:
        return cores
    try:  # the 4th field of /proc/loadavg is "runnable/total", this process's threads included
        with open("/proc/loadavg") as fh:
            others = int(fh.read().split()[3].split("/")[0]) - _own_running_threads()
    except (OSError, ValueError, IndexError):
        others = 0
    return max(1, min(cores, cores - others))


def _own_running_threads() -> int:
    """Threads of this process that are running now (this one included): BLAS worker threads
    spin for a while after a product, and counted as other work they made ``n_jobs=None``
    choose one engine thread right after the fit's own BLAS start products."""
    running = 0
    for stat in Path("/proc/self/task").glob("*/stat"):
        try:
            running += stat.read_text().rsplit(")", 1)[1].split()[0] == "R"
        except (OSError, IndexError):
            continue
    return max(running, 1)


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
            objective = getattr(res, "objective", None)
            obj = f", dual objective {objective:.8g}" if objective is not None else ""
            self._print(
                f"done: {res.n_iter} iterations, KKT violation {res.violation:.3e}{obj}, "
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
    default_cap: str | bool = False,
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
    default_cap : bool or "linear"
        ``limit`` is :func:`default_max_iter`'s cap (the user gave ``max_iter=None``): the
        message says so and how it was set.
    """
    if why is None:
        if limit is not None and used >= limit:
            why = f"stopped after {limit_name}={limit} {unit}; increase {limit_name}"
            if default_cap:
                why = (
                    f"stopped after {limit} {unit}, the default cap for {limit_name}=None "
                    f"(max(10^7, {1000 if default_cap == 'linear' else 100} n_samples)); pass "
                    f"a larger {limit_name}, or rescale the data if it is badly scaled"
                )
        else:
            why = "stalled: no step can move in floating point (degenerate data?)"
    warnings.warn(f"{who} {why}{detail}", ConvergenceWarning, stacklevel=stacklevel + 1)
