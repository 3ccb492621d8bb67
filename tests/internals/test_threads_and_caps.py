"""The engine plumbing of ``unlabeled._solving`` and ``unlabeled._threads``: the convergence
warning, the threads the engine may use (cores busy elsewhere, n_jobs clipped) and the caps on
a solver's steps (the default cap, and the inner solves of the label generation at their
cap)."""

import threading
import warnings

import numpy as np
import pytest
from conftest import by_name, registered, small_pu
from sklearn.exceptions import ConvergenceWarning

import unlabeled
from unlabeled import PUSVC, _label_generation, _solving
from unlabeled._engine import KernelSpec
from unlabeled._solving import default_max_iter, resolve_max_iter, warn_not_converged
from unlabeled._threads import _own_running_threads, available_cores, engine_threads


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

    monkeypatch.setattr(_solving, "KernelSpec", spy)
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


def _capped_solves(monkeypatch, cap=3):
    """Every SVM solve of the label-generation backends capped at ``cap`` steps."""
    monkeypatch.setattr(_label_generation, "resolve_max_iter", lambda *a, **k: cap)


#: the fits whose inner solves went unwatched (WellSVM's MKL loop has its own warning: "hit its
#: iteration limit"; LapSVM makes one solve, with its own max_iter)
UNWATCHED = ["LabeledSVM", "TSVM", "miSVM", "MISVM"]  # registry: the estimators that had the bug


@pytest.mark.parametrize("cls", [getattr(unlabeled, n) for n in UNWATCHED], ids=by_name)
def test_inner_svm_solve_at_its_cap_warns(monkeypatch, cls):
    """LabeledSVM(max_iter=10) stopped its solve at the cap without a ConvergenceWarning,
    and its result then depended on the layout of X (the fuzz case: COO against dense); TSVM,
    mi-SVM and MI-SVM did not look at their inner solves either. Every one warns now."""
    name = cls.__name__
    rng = np.random.default_rng(2)
    X = rng.normal(size=(40, 3))
    y = np.where(X[:, 0] > 0, 1, 0)
    if cls in registered(family="ssl"):
        y = np.where(rng.random(40) < 0.5, -1, y)
        y[:2], y[-2:] = 1, 0
    est = cls()
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        est.fit(X, y)  # converges: no warning
    if name == "LabeledSVM":
        est.set_params(max_iter=2)
    else:
        _capped_solves(monkeypatch)
    # one capped solve warns; several reach the fit-wide work cap, whose warning says so
    capped = f"^{name} stopped (an SVM solve before tol|early: \\d+ SVM solves reached their cap)"
    with pytest.warns(ConvergenceWarning, match=capped):
        est.fit(X, y)
