"""Threads: the cores this process may use, the engine's threads for ``n_jobs`` and BLAS
held on one thread (the bottom of the Python code with _kernels: imports nothing of the
package)."""

from __future__ import annotations

import contextlib
import functools
import os
import threading
from pathlib import Path


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
