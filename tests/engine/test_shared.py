"""The engine plumbing of ``unlabeled._shared``: the convergence warning, the threads the engine
may use (cores busy elsewhere, n_jobs clipped) and the default cap on a solver's steps."""

import threading
import warnings

import numpy as np
import pytest
from conftest import small_pu
from sklearn.exceptions import ConvergenceWarning

from unlabeled import PUSVC
from unlabeled._engine import KernelSpec
from unlabeled._shared import (
    _own_running_threads,
    available_cores,
    default_max_iter,
    engine_threads,
    resolve_max_iter,
    warn_not_converged,
)
from unlabeled.pu import _pusvc


def test_convergence_warning():
    with pytest.warns(ConvergenceWarning, match=r"^S stopped after max_iter=5 steps; increase "):
        warn_not_converged("S", limit=5, used=5, unit="steps")
    with pytest.warns(ConvergenceWarning, match=r"^S stalled: .*KKT violation 0.5"):
        warn_not_converged("S", limit=5, used=3, detail=". KKT violation 0.5 > tol=0.1.")
    with pytest.warns(ConvergenceWarning, match="stalled"):
        warn_not_converged("S", limit=None, used=10**6)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        warn_not_converged("S", why="reports trouble", stacklevel=1)
    assert seen[0].filename == __file__ and str(seen[0].message) == "S reports trouble"


# --------------------------------------------------------------------------- threads and cores
def test_own_busy_threads_are_not_other_load():
    """n_jobs=None leaves out the cores that other processes keep busy; this process's own
    running threads (BLAS workers still spinning after a product) must not count as such."""
    stop = threading.Event()

    def spin():
        while not stop.is_set():
            sum(range(1000))

    worker = threading.Thread(target=spin)
    worker.start()
    seen = set()
    try:
        for _ in range(500):  # the reader, and at times the spinning thread
            seen.add(_own_running_threads())
            if max(seen) >= 2:
                break
    finally:
        stop.set()
        worker.join()
    assert min(seen) >= 1 and max(seen) >= 2


def test_n_jobs_clipped_to_available_cores(monkeypatch):
    cores = available_cores()
    assert engine_threads(100_000) == cores and engine_threads(1) == 1
    assert engine_threads(-1) == cores and 1 <= engine_threads(None) <= cores
    seen = []

    def spy(*a, **k):
        seen.append(k["n_jobs"])
        return KernelSpec(*a, **k)

    monkeypatch.setattr(_pusvc._engine, "KernelSpec", spy)
    X, s = small_pu()
    many = PUSVC(prior=0.4, n_jobs=100_000).fit(X, s)
    one = PUSVC(prior=0.4, n_jobs=1).fit(X, s)
    assert seen[0] == cores and seen[-1] == 1
    np.testing.assert_allclose(many.decision_function(X), one.decision_function(X), atol=1e-9)


# --------------------------------------------------------------------------- iteration caps
def test_default_cap_formula():
    assert default_max_iter(10) == 10**7 and default_max_iter(10**6) == 10**8
    assert default_max_iter(10**5, linear=True) == 10**8
    assert resolve_max_iter(None, 10) == 10**7 and resolve_max_iter(-1, 10) == 10**7
    assert resolve_max_iter(5, 10**6) == 5
