"""The allocator tuning of the kernels that a fit runs on Dask workers: their temporaries on
the heap, as in a plain Python process (:func:`heap_temporaries`, :func:`small_result`)."""

from __future__ import annotations

import contextlib
import ctypes
import functools
import os
import sys
import threading

# glibc's mallopt parameters, and the ceiling of its dynamic mmap threshold on 64 bits
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD, HEAP_BELOW = -1, -3, 32 << 20
_heap_lock = threading.Lock()
_heap_users = 0  # threads inside heap_temporaries


def _glibc_mallopt():
    """glibc's mallopt, or None (another C library, or thresholds that glibc sets itself)."""
    if not sys.platform.startswith("linux") or not (
        "MALLOC_TRIM_THRESHOLD_" in os.environ or "MALLOC_MMAP_THRESHOLD_" in os.environ
    ):
        return None
    try:
        libc = ctypes.CDLL(None)
        libc.gnu_get_libc_version  # noqa: B018  (glibc only)
        return libc.mallopt
    except (OSError, AttributeError, TypeError):  # pragma: no cover
        return None


@contextlib.contextmanager
def heap_temporaries():
    """Temporaries below 32 MiB from the heap, as in a plain Python process, while the kernels
    of a pass run.

    Dask's nanny starts each worker with ``MALLOC_TRIM_THRESHOLD_=65536``
    (``distributed.nanny.pre-spawn-environ``), which fixes glibc's mmap threshold at 128 KiB:
    every block temporary of a kernel (8,192 points: 0.6 MiB for y (p, block) at p = 10) is
    then a fresh mmap whose pages fault in on first touch. The kernels of a pass ran 4.2 times
    slower so (one e-step over 1,000,000 rows: 0.36 s against 0.085 s, one thread). Inside
    this context glibc serves blocks below 32 MiB (the ceiling of its own dynamic threshold)
    from the heap and keeps up to 256 MiB of free heap at its top; on leaving it the worker's
    thresholds come back (those of its environment), so that its next frees trim the heap
    again. (Trimming at once with ``malloc_trim(0)`` made the next pass fault its pages in
    again: an e-step pass over 1,000,000 rows on two workers took 0.20 s against 0.09 s.) A
    no-op outside glibc or when the environment leaves the thresholds to glibc, whose dynamic
    threshold does this by itself."""
    global _heap_users
    mallopt = _glibc_mallopt()
    if mallopt is None:
        yield
        return
    with _heap_lock:
        if _heap_users == 0:
            mallopt(_M_MMAP_THRESHOLD, HEAP_BELOW)
            mallopt(_M_TRIM_THRESHOLD, 256 << 20)
        _heap_users += 1
    try:
        yield
    finally:
        with _heap_lock:
            _heap_users -= 1
            if _heap_users == 0:
                env = os.environ
                mallopt(_M_MMAP_THRESHOLD, int(env.get("MALLOC_MMAP_THRESHOLD_", 128 << 10)))
                mallopt(_M_TRIM_THRESHOLD, int(env.get("MALLOC_TRIM_THRESHOLD_", 128 << 10)))


def small_result(fn):
    """``fn`` (a reduction over a chunk to a few numbers) inside :func:`heap_temporaries`: its
    temporaries of the chunk's size come from the heap; a result held beyond the task (a
    chunk, Q) is made outside it, so that it never pins the heap."""

    @functools.wraps(fn)
    def run(*args):
        with heap_temporaries():
            return fn(*args)

    return run
