"""The kernel-machine base: declared parameter checks, the kernel, the expansion and its
decision function, tested through a small estimator built on it (kernel ridge on +-1
targets) against scikit-learn's own kernels and KernelRidge."""

import subprocess
import sys
import textwrap

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import is_kernel_machine, registered, small_pu
from problems import kernel_data
from sklearn.kernel_ridge import KernelRidge
from sklearn.metrics.pairwise import pairwise_kernels
from sklearn.utils.estimator_checks import check_estimator

from unlabeled import PUSVC
from unlabeled.base import (
    Boolean,
    Integer,
    InvalidParameterError,
    KernelClassifier,
    KernelMachine,
    Options,
    Real,
    check_binary_targets,
    validate_params,
)


class RidgeClassifier(KernelClassifier):
    """Kernel ridge regression on the targets t = +-1, with or without an offset:
    alpha = (K + a I)^-1 (t - b), b = mean(t) (or 0)."""

    _parameter_constraints = {
        **KernelMachine._parameter_constraints,
        "alpha": [Real(0.0)],
        "fit_intercept": [Boolean()],
    }

    def __init__(
        self, alpha=1.0, kernel="rbf", gamma="scale", degree=3, coef0=0.0, fit_intercept=True
    ):
        self.alpha = alpha
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.fit_intercept = fit_intercept

    def fit(self, X, y):
        params = self._validate_params()
        X, y = self._validate_X(X, y)
        classes, t = check_binary_targets(y, "RidgeClassifier")
        b = t.mean() if params["fit_intercept"] else None
        K = self._gram(X)
        coef = np.linalg.solve(K + params["alpha"] * np.eye(len(t)), t - (b or 0.0))
        self.set_expansion(X, coef, b, classes=classes)
        return self


KERNEL_CASES = [
    ("linear", {}),
    ("rbf", {"gamma": 0.3}),
    ("poly", {"gamma": 0.5, "degree": 2, "coef0": 1.0}),
]


# --------------------------------------------------------------------------- the expansion
@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("kernel, kw", KERNEL_CASES)
def test_expansion_matches_kernel_ridge(kernel, kw, fit_intercept):
    """decision_function is sum_i alpha_i k(x_i, x) + b for every input format (in row blocks:
    tests/engine/test_kernels.py)."""
    X, y, T = kernel_data()
    clf = RidgeClassifier(alpha=0.5, kernel=kernel, fit_intercept=fit_intercept, **kw).fit(X, y)
    t = np.where(y == "yes", 1.0, -1.0)
    b = t.mean() if fit_intercept else 0.0
    ref = KernelRidge(alpha=0.5, kernel=kernel, **kw).fit(X, t - b).predict(T) + b
    assert clf.intercept_.tolist() == [b]
    assert clf.classes_.tolist() == ["no", "yes"]
    for Tv in (T, sp.csr_matrix(T), T.astype(np.float32)):
        np.testing.assert_allclose(clf.decision_function(Tv), ref, rtol=1e-9, atol=1e-6)
    np.testing.assert_array_equal(clf.predict(T), np.where(ref > 0, "yes", "no"))
    # the fitted attributes in SVC's vocabulary
    coef = np.zeros(len(y))
    coef[clf.support_] = clf.dual_coef_[0]
    K = pairwise_kernels(T, X, metric=kernel, **kw)
    np.testing.assert_allclose(K @ coef + clf.intercept_[0], ref, rtol=1e-9, atol=1e-9)
    np.testing.assert_array_equal(clf.support_vectors_, X[clf.support_])
    if kernel == "linear":
        np.testing.assert_allclose(clf.coef_[0], clf.dual_coef_[0] @ X[clf.support_])
    else:
        with pytest.raises(AttributeError, match="only available when kernel='linear'"):
            _ = clf.coef_


def test_precomputed_and_sparse_training():
    X, y, T = kernel_data()
    ref = RidgeClassifier(gamma=0.3).fit(X, y)
    K = pairwise_kernels(X, metric="rbf", gamma=0.3)
    pre = RidgeClassifier(kernel="precomputed").fit(K, y)
    assert pre.support_vectors_.shape == (0, 0)
    Kt = pairwise_kernels(T, X, metric="rbf", gamma=0.3)
    np.testing.assert_allclose(pre.decision_function(Kt), ref.decision_function(T), atol=1e-10)
    with pytest.raises(ValueError, match=r"kernel matrix of shape \(n_test, 40\)"):
        pre.decision_function(Kt[:, :-1])
    with pytest.raises(ValueError, match="square Gram matrix"):
        RidgeClassifier(kernel="precomputed").fit(K[:, :-1], y)
    sparse = RidgeClassifier(gamma=0.3).fit(sp.csr_matrix(X), y)
    assert sp.issparse(sparse.support_vectors_)
    np.testing.assert_allclose(sparse.decision_function(T), ref.decision_function(T), atol=1e-10)


def test_gamma_is_resolved_as_svc_does():
    X, y, _ = kernel_data()
    assert RidgeClassifier(gamma="scale").fit(X, y).kernel_gamma_ == pytest.approx(
        1 / (3 * X.var())
    )
    assert RidgeClassifier(gamma="auto").fit(X, y).kernel_gamma_ == pytest.approx(1 / 3)


def test_check_estimator():
    """A method on the base passes scikit-learn's whole estimator check suite."""
    check_estimator(RidgeClassifier())


# --------------------------------------------------------------------------- parameters
@pytest.mark.parametrize(
    "params, match",
    [
        ({"kernel": "sigmoid"}, r"kernel must be one of \['linear', 'poly', 'rbf', 'precomputed'"),
        ({"gamma": "wide"}, "gamma must be 'scale', 'auto' or a non-negative number, got 'wide'"),
        ({"gamma": -1.0}, r"gamma must be >= 0.0, got -1.0"),
        ({"gamma": None}, "gamma must be 'scale', 'auto' or a non-negative number, got None"),
        ({"degree": 1.5}, "degree must be an integer, got 1.5"),
        ({"degree": -1}, "degree must be >= 0"),
        ({"coef0": float("nan")}, "coef0 must be finite"),
        ({"coef0": "1"}, "coef0 must be a real number"),
        ({"alpha": 0.0}, "alpha must be > 0.0"),
        ({"fit_intercept": 1}, "fit_intercept must be True or False, got 1"),
    ],
)
def test_bad_params_are_refused_before_any_work(params, match):
    X, y, _ = kernel_data()
    with pytest.raises(InvalidParameterError, match=match) as info:
        RidgeClassifier(**params).fit(X[:, :0], y)  # no features: the kernel_data check would fail
    assert isinstance(info.value, ValueError) and isinstance(info.value, TypeError)


def test_validate_params_alternatives():
    constraints = {
        "n_jobs": [None, Options((-1,)), Integer(1)],
        "prior": [Options(("auto",)), Real(0.0, 1.0)],
        "verbose": [Boolean(), Integer(0)],
    }
    ok = validate_params({"n_jobs": None, "prior": 0.5, "verbose": True}, constraints)
    assert ok == {"n_jobs": None, "prior": 0.5, "verbose": True}
    ok = validate_params({"n_jobs": -1, "prior": "auto", "verbose": 2}, constraints)
    assert ok == {"n_jobs": -1, "prior": "auto", "verbose": 2}
    good = {"n_jobs": 2, "prior": 0.5, "verbose": False}
    for bad, match in [
        ({"n_jobs": 0}, "n_jobs must be None, -1 or an integer >= 1, got 0"),
        ({"n_jobs": 1.5}, "n_jobs must be None, -1 or an integer >= 1, got 1.5"),
        ({"prior": "0.3"}, r"prior must be 'auto' or a number in \(0, 1\), got '0.3'"),
        ({"prior": 1.0}, "prior must be < 1.0, got 1.0"),
        ({"verbose": -1}, "verbose must be >= 0, got -1"),
        ({"verbose": "yes"}, "verbose must be True or False or an integer >= 0, got 'yes'"),
    ]:
        with pytest.raises(InvalidParameterError, match=match):
            validate_params({**good, **bad}, constraints)


# --------------------------------------------------------------------------- Ctrl-C
CTRL_C_FITS = {  # registry: a long fit of each engine solver's estimator (PU, SVM+)
    "PUSVC": (
        "from unlabeled import PUSVC\n"
        "X = rng.normal(size=(30000, 10)); s = np.zeros(30000, int); s[:100] = 1; X[:100] += 1\n"
        "fit = lambda: PUSVC(prior=0.4, solver='usmo', init='mean-kernel').fit(X, s)",
        2.0,
    ),
    "SVMPlus": (
        "from unlabeled import SVMPlus\n"
        "Xs = rng.normal(size=(20000, 4)); y = np.where(Xs[:, 0] > 0, 1, -1)\n"
        "X = Xs + rng.normal(size=Xs.shape)\n"
        "fit = lambda: SVMPlus(C=10.0, tol=1e-6, cache_size=20).fit(X, y, Xs)",
        1.5,
    ),
}


@pytest.mark.parametrize("name", list(CTRL_C_FITS))
def test_ctrl_c_stops_a_long_fit(name):
    """SIGINT during the engine raises KeyboardInterrupt promptly, without a crash."""
    setup, delay = CTRL_C_FITS[name]
    code = textwrap.dedent(
        """
        import signal, threading, time, numpy as np
        # a shell that starts this suite in the background leaves SIGINT ignored, and children
        # inherit that: restore Python's handler, the situation under test
        signal.signal(signal.SIGINT, signal.default_int_handler)
        rng = np.random.default_rng(0)
        {setup}
        threading.Timer({delay}, lambda: signal.raise_signal(signal.SIGINT)).start()
        t = time.perf_counter()
        try:
            fit()
            print("finished")
        except KeyboardInterrupt:
            print("interrupted", round(time.perf_counter() - t, 1))
        """
    ).format(setup=setup, delay=delay)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("interrupted"), out.stdout
    assert float(out.stdout.split()[1]) < 10


# --------------------------------------------------------------------------- transactional fit
def test_failed_fit_leaves_estimator_unfitted():
    from sklearn.exceptions import NotFittedError

    X, s = small_pu()
    est = PUSVC(prior=0.4, n_jobs=1)
    with pytest.raises(ValueError, match="no labeled positive"):
        est.fit(X, np.zeros_like(s))  # the labels are checked after X (n_features_in_ set)
    assert not hasattr(est, "n_features_in_")
    with pytest.raises(NotFittedError):
        est.predict(X)


@pytest.mark.parametrize("exc", [KeyboardInterrupt, RuntimeError])
def test_interrupted_fit_restores_previous_model(monkeypatch, exc):
    X, s = small_pu()
    est = PUSVC(prior=0.4, lam=0.05, n_jobs=1).fit(X, s)
    before = est.decision_function(X)
    state = {k: v for k, v in vars(est).items()}

    def interrupted(self, X, mask, params):
        self.support_ = None  # a half-written model
        raise exc("interrupted")

    monkeypatch.setattr(PUSVC, "_fit", interrupted)
    X5, _ = small_pu(d=5)
    with pytest.raises(exc):
        est.fit(X5, s)
    assert vars(est).keys() == state.keys()
    assert all(vars(est)[k] is v for k, v in state.items())
    assert est.n_features_in_ == 3
    np.testing.assert_array_equal(est.decision_function(X), before)


def test_failed_refit_of_svmplus_keeps_old_model():
    from unlabeled import SVMPlus

    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(30, 3)), np.r_[np.zeros(15), np.ones(15)]
    est = SVMPlus(C=1.0).fit(X, y, rng.normal(size=(30, 2)))
    before = est.decision_function(X)
    y3 = np.arange(30) % 3  # three classes: refused after X was checked
    with pytest.raises(ValueError, match="exactly two classes"):
        est.fit(rng.normal(size=(30, 5)), y3, rng.normal(size=(30, 2)))
    assert est.n_features_in_ == 3
    np.testing.assert_array_equal(est.decision_function(X), before)


def test_every_kernel_machine_fit_is_transactional():
    def subclasses(cls):
        for sub in cls.__subclasses__():
            yield sub
            yield from subclasses(sub)

    found = [c for c in subclasses(KernelMachine) if "fit" in c.__dict__]
    assert all(getattr(c.__dict__["fit"], "_transactional", False) for c in found)
    # every registered kernel machine's fit is one of them (its own or inherited)
    machines = registered(is_kernel_machine)
    assert machines and all(getattr(c.fit, "_transactional", False) for c in machines)
    assert all(any(c.fit is f.__dict__["fit"] for f in found) for c in machines)
