import contextlib
import os
import signal
import threading
import time
from pathlib import Path

import numpy as np
import pytest
import sklearn
from sklearn.utils.estimator_checks import check_estimator

import unlabeled
from unlabeled.exceptions import InvalidParameterError

# relative to the project root, where CI and the README run pytest
UCI_DIR = Path(os.environ.get("UNLABELED_DATA_UCI", "../shared/data/uci-small"))


@pytest.fixture(scope="session")
def uci_dir():
    if not UCI_DIR.is_dir():
        pytest.skip(f"{UCI_DIR} not found: the UCI oracle tests need the shared data folder")
    return UCI_DIR


@pytest.fixture
def settings():
    """``settings(max_dense_bytes=..., min_default_max_iter=...)``: the global settings for the
    rest of the test, through :func:`unlabeled.config_context` (left when the test ends)."""
    with contextlib.ExitStack() as stack:
        yield lambda **kw: stack.enter_context(unlabeled.config_context(**kw))


@pytest.fixture(scope="session")
def dask_client():
    """A real Dask cluster for the whole run: two worker processes with one thread each. The
    workers must import the same ``unlabeled`` as this process (a source tree on PYTHONPATH, not
    an installed copy), so the package's directory is put first on their PYTHONPATH. A test that
    harms its workers (a killed worker) starts its own cluster instead."""
    import logging

    from distributed import Client, LocalCluster

    here = str(Path(unlabeled.__file__).resolve().parents[1])
    with pytest.MonkeyPatch.context() as mp:
        if "site-packages" not in Path(here).parts:  # an installed copy is found anyway
            mp.setenv("PYTHONPATH", here, prepend=os.pathsep)
        cluster = LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            silence_logs=logging.ERROR,
        )
    client = Client(cluster)
    try:
        yield client
    finally:
        client.close()
        cluster.close()


@pytest.fixture(scope="module")
def own_cluster():
    """A cluster of its own for the tests that kill a worker (2 processes, 1 thread each)."""
    import logging

    import distributed

    here = str(Path(unlabeled.__file__).resolve().parents[1])
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PYTHONPATH", here, prepend=os.pathsep)
        cluster = distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            silence_logs=logging.CRITICAL,
        )
    client = distributed.Client(cluster, set_as_default=False)
    try:
        yield cluster, client
    finally:
        client.close()
        cluster.close()


def kill_a_busy_worker(client, after):
    """After ``after`` seconds, kill (SIGKILL, as a crash or the OOM killer would) a worker
    process that is running a task; returns the thread and a list that receives its address."""
    pids = client.run(os.getpid)
    killed: list = []

    def kill():
        time.sleep(after)
        for _ in range(200):
            busy = [w for w, keys in client.processing().items() if keys and w in pids]
            if busy:
                os.kill(pids[busy[0]], signal.SIGKILL)
                killed.append(busy[0])
                return
            time.sleep(0.02)

    thread = threading.Thread(target=kill)
    thread.start()
    return thread, killed


def make_pu(seed, n=120, d=3, p=25, shift=1.0, prior=0.4):
    """A small PU problem: p labeled positives plus an unlabeled mixture with the given prior."""
    rng = np.random.default_rng(seed)
    y_u = rng.random(n) < prior
    Xu = rng.normal(size=(n, d)) + shift * y_u[:, None]
    Xp = rng.normal(size=(p, d)) + shift
    X = np.r_[Xp, Xu]
    s = np.r_[np.ones(p, int), np.zeros(n, int)]
    return X, s, float(y_u.mean()) if y_u.any() else prior


# ------------------------------------------------------------------ the registry's estimators
def registered(where=None, *, family=None) -> list[type]:
    """The registered estimator classes (unlabeled.registry) for which ``where(entry)`` holds,
    by name: a test's estimators derived by what it is about, never a list typed by hand."""
    from unlabeled.registry import all_estimators

    entries = all_estimators(family=family, load=True)
    return [e.load() for e in entries if where is None or where(e)]


def registered_params(where=None, *, family=None) -> list:
    """pytest parameters of the registered entries for which ``where(entry)`` holds, by name; one
    whose optional modules (``needs``) are missing is skipped."""
    import importlib.util

    from unlabeled.registry import all_estimators

    out = []
    for e in all_estimators(family=family, load=True):
        if where is None or where(e):
            missing = [m for m in e.needs if importlib.util.find_spec(m) is None]
            marks = pytest.mark.skip(reason=f"needs {missing}") if missing else ()
            out.append(pytest.param(e, marks=marks, id=e.name))
    return out


def declares(cls, *params) -> bool:
    """Whether the estimator class declares every one of ``params``."""
    return set(params) <= set(cls._get_param_names())


def is_prior(entry) -> bool:
    """A class-prior estimator: one of unlabeled.pu.priors."""
    return entry.home == "unlabeled.pu.priors"


def is_kernel_mean(entry) -> bool:
    """A class-prior estimator on kernel mean embeddings (n x n distance matrices)."""
    return is_prior(entry) and declares(entry.load(), "kernel_width")


def is_kernel_machine(entry) -> bool:
    """A kernel expansion f(x) = sum_i alpha_i k(x_i, x) (+ b): unlabeled.base.KernelMachine."""
    from unlabeled.base import KernelMachine

    return issubclass(entry.load(), KernelMachine)


def by_name(cls) -> str:
    """A class's test id."""
    return cls.__name__


def small_pu(d=3):
    """A 50-point PU problem (10 labeled positives) for checks of errors and limits."""
    X, s, _ = make_pu(1, n=40, d=d, p=10)
    return X, s


@pytest.fixture(scope="module")
def cli_data(tmp_path_factory):
    """A folder holding ``train.csv``: a small PU problem, the labels in the last column."""
    d = tmp_path_factory.mktemp("cli")
    X, s, _ = make_pu(2, n=40, d=3, p=10)
    np.savetxt(d / "train.csv", np.c_[X, s], delimiter=",", fmt="%.6f")
    return d


CLI_FIT_ARGS = ["--prior", "0.4", "--n-jobs", "1", "-q"]


def fail_before_fit(monkeypatch):
    """Make any fit fail loudly: the checks under test must come before it."""
    from unlabeled import PUSVC as cls

    def no_fit(*a, **k):
        raise AssertionError("the fit ran before the output was checked")

    monkeypatch.setattr(cls, "fit", no_fit)


SKLEARN_VERSION = tuple(int(p) for p in sklearn.__version__.split(".")[:2])

# Checks that cannot apply to a PU learner, with the reason. Everything else must pass.
ARBITRARY_LABELS = (
    "PU labels have a meaning (1 = labeled positive, 0 or -1 = unlabeled); other label values "
    "such as {1, 2} or strings are refused with an error rather than guessed"
)
PU_EXPECTED_FAILURES = {
    "check_fit_score_takes_y": "the labels are named s, the PU-learning convention; they are "
    "passed positionally exactly like y",
    "check_estimators_dtypes": ARBITRARY_LABELS,
    "check_classifier_data_not_an_array": ARBITRARY_LABELS,
    "check_classifiers_classes": ARBITRARY_LABELS,
    "check_fit2d_1feature": ARBITRARY_LABELS,
    "check_classifiers_train": "scores predictions against s, but a PU model predicts the hidden "
    "class: a correct PU model disagrees with s on the unlabeled positives",
}


def assert_passes_check_estimator(estimator):
    """scikit-learn's check_estimator: everything passes but the checks listed above.

    scikit-learn 1.6's checks fit every classifier on the labels {1, 2}, which PU labels
    refuse (the library itself supports 1.6: the rest of the suite passes there)."""
    if SKLEARN_VERSION < (1, 7):
        pytest.skip("scikit-learn < 1.7 checks PU learners with the labels {1, 2}")
    results = check_estimator(estimator, expected_failed_checks=PU_EXPECTED_FAILURES, on_fail=None)
    failed = [r["check_name"] for r in results if r["status"] == "failed"]
    assert not failed, failed
    xfailed = {r["check_name"] for r in results if r["status"] == "xfail"}
    assert xfailed <= set(PU_EXPECTED_FAILURES)


@contextlib.contextmanager
def time_limit(seconds, what="the case"):
    """Raise TimeoutError in the main thread after ``seconds`` (the engine's solvers check
    for signals a few times a second, as for Ctrl-C): a hang fails the test, not the run."""

    def expire(signum, frame):
        raise TimeoutError(f"{what} ran past {seconds} s: a hang")

    old = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def assert_same_state(est, before: dict) -> None:
    """``est.__dict__`` holds exactly the objects of ``before`` (a failed fit restored them)."""
    after = vars(est)
    assert after.keys() == before.keys(), set(after) ^ set(before)
    changed = [k for k in before if after[k] is not before[k]]
    assert not changed, changed


def raise_on_call(monkeypatch, owner, name, number, exc):
    """Make ``owner.name`` raise ``exc`` on its ``number``-th call (1-based)."""
    original = getattr(owner, name)
    calls = [0]

    def patched(*args, **kwargs):
        calls[0] += 1
        if calls[0] == number:
            raise exc
        return original(*args, **kwargs)

    monkeypatch.setattr(owner, name, patched)
    return calls


def assert_random_state_validated(make, X, y, attr, **params):
    """``random_state`` checked by the library: a seed and a RandomState of that seed give the
    same fitted ``attr``; a Generator, a float, a string and a negative seed are refused."""
    a = make(random_state=5, **params).fit(X, y)
    b = make(random_state=np.random.RandomState(5), **params).fit(X, y)
    np.testing.assert_array_equal(getattr(a, attr), getattr(b, attr))
    for bad in (np.random.default_rng(0), 1.5, "0", -1):
        with pytest.raises(InvalidParameterError, match="random_state"):
            make(random_state=bad).fit(X, y)
