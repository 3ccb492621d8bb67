"""The predict_proba contract of every public classifier that has one: rows in [0, 1] that
sum to 1 within 1e-12 on any finite input, far points included (1e6, -1e6, 1e150 in every
coordinate), and on models fitted to constant training data where the estimator fits them.
An estimator may refuse a test point whose kernel or density overflows double precision,
with a ValueError naming X (the numerical preflight of decision_function), never return
NaN or a value outside [0, 1].

The classifiers are the registered estimators (``unlabeled.registry``) that have
``predict_proba``, each made from its first declared case with ``probability=True``.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

import unlabeled
from unlabeled.registry import all_estimators

# far test points: each row a point with every coordinate at that value (and mixed signs)
FAR = (1e6, -1e6, 1e150)


def _two_blobs(n=24, d=2, seed=0):
    rng = np.random.default_rng(seed)
    cls = np.arange(n) % 2
    X = rng.normal(size=(n, d)) + 3.0 * cls[:, None]
    return X, cls


def _ssl_labels(cls):
    y = np.where(np.arange(cls.size) < cls.size // 2, cls, -1)
    return y


def _pu_labels(cls):
    return np.where((cls == 1) & (np.arange(cls.size) < cls.size // 2), 1, 0)


def _bags(X, cls):
    """Bags of two rows of one class each, labelled by it."""
    order = np.argsort(cls, kind="stable")
    X, cls = X[order], cls[order]
    return [X[i : i + 2] for i in range(0, len(X), 2)], cls[::2]


def _fit_flat(est, X, cls, kind):
    if kind == "ssl":
        return est.fit(X, _ssl_labels(cls))
    if kind == "pu":
        return est.fit(X, _pu_labels(cls))
    if kind == "lupi":
        return est.fit(X, np.where(cls == 1, 1, -1), X[:, :1] + cls[:, None])
    raise AssertionError(kind)


def _with_proba(entry):
    """The entry's first case with probabilities on (and a fixed seed), where it has any."""
    cls = entry.load()
    if not callable(getattr(cls, "predict_proba", None)):
        return None
    names = cls._get_param_names()
    extra = {k: v for k, v in (("probability", True), ("random_state", 0)) if k in names}
    return lambda: cls(**{**entry.cases[0].params, **extra})


#: class name -> (a classifier with predict_proba available, the family of its data)
MAKERS = {
    e.name: (make, e.family)
    for e in all_estimators(load=True)
    if (make := _with_proba(e)) is not None
}
NEEDS = {e.name: e.needs for e in all_estimators()}


def test_every_registered_predict_proba_is_covered():
    assert len(MAKERS) >= 10 and {"PUSVC", "CLSST", "MISVM"} <= set(MAKERS)  # registry: a floor
    for name, (make, kind) in MAKERS.items():
        est = make()
        assert getattr(est, "probability", True), name
        assert kind in ("pu", "ssl", "mil", "lupi"), name


def _check_rows(P, n):
    assert P.shape == (n, 2)
    assert np.all(np.isfinite(P))
    assert np.all((P >= 0.0) & (P <= 1.0)), P
    np.testing.assert_allclose(P.sum(axis=1), 1.0, rtol=0, atol=1e-12)


def _proba_or_refused(est, X, kind):
    """predict_proba of X (bags of one row each for the multi-instance classifiers), or None
    when the estimator refuses X's scale with a ValueError naming X."""
    try:
        if kind == "mil":
            return est.predict_proba([row[None] for row in X])
        return est.predict_proba(X)
    except ValueError as exc:
        assert "X" in str(exc), exc
        return None


def _far_points(d):
    rows = []
    for v in FAR:
        rows.append(np.full(d, v))
        rows.append(np.r_[v, -np.full(d - 1, v)])
    return np.array(rows)


#: the kernel machines also with a linear kernel (no preflight refuses 1e150: f(x) is finite)
#: and an rbf kernel of fixed width (gamma="scale" refuses constant data)
KERNELS = ({}, {"kernel": "linear"}, {"gamma": 1.0})


def _kernels(name):
    """KERNELS for a kernel machine (a ``kernel`` parameter), else only its own model."""
    if name == "CLSST" or "kernel" not in MAKERS[name][0]().get_params():
        return ({},)
    return KERNELS


@pytest.fixture(
    params=[(n, k) for n in sorted(MAKERS) for k in _kernels(n)],
    ids=lambda p: "-".join([p[0], *map(str, p[1].values())]),
)
def name(request):
    for module in NEEDS[request.param[0]]:
        pytest.importorskip(module)
    return request.param


def _fit(name, X, cls):
    name, params = name
    make, kind = MAKERS[name]
    est = make().set_params(**params)
    with warnings.catch_warnings():
        # caps and degenerate solutions (constant data) warn: here only predict_proba counts
        warnings.simplefilter("ignore", UserWarning)
        if kind == "mil":
            bags, labels = _bags(X, cls)
            return est.fit(bags, labels), kind
        return _fit_flat(est, X, cls, kind), kind


def test_rows_are_probabilities_at_far_points(name):
    X, cls = _two_blobs()
    est, kind = _fit(name, X, cls)
    Xt = np.r_[X[:4], _far_points(X.shape[1])]
    # each row alone too: a refused row must not hide the others
    for rows in [Xt[:4], *[Xt[i : i + 1] for i in range(4, len(Xt))]]:
        P = _proba_or_refused(est, rows, kind)
        if P is not None:
            _check_rows(P, len(rows))
    # the points up to 1e6 are within every estimator's numerical range
    _check_rows(_proba_or_refused(est, Xt[:8], kind), 8)


def test_rows_are_probabilities_after_constant_training_data(name):
    X, cls = _two_blobs()
    X = np.ones_like(X)
    try:
        est, kind = _fit(name, X, cls)
    except ValueError:
        return  # refusing to fit data without spread is allowed
    Xt = np.r_[X[:2], _far_points(X.shape[1])]
    for i in range(len(Xt)):
        P = _proba_or_refused(est, Xt[i : i + 1], kind)
        if P is not None:
            _check_rows(P, 1)


def test_clsst_far_points_constant_data_reproducer():
    """Issue 44 item 3: on constant training data the points at 1e6 gave [[2, 2], [2, 2]];
    on two blobs, far points summed to 1.00006."""
    X = np.ones((20, 2))
    y = np.full(20, -1)
    y[:3], y[3:6] = 0, 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf = unlabeled.CLSST(random_state=0).fit(X, y)
    _check_rows(clf.predict_proba(np.array([[1e6, 1e6], [-1e6, 1e6]])), 2)
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(-3, 1, (50, 2)), rng.normal(3, 1, (50, 2))]
    y = np.full(100, -1)
    y[:3], y[50:53] = 0, 1
    clf = unlabeled.CLSST(random_state=0).fit(X, y)
    far = np.array([[1e6, 1e6], [1e6, -1e6], [0.0, 1e6], [-3e7, 2e7]])
    P = clf.predict_proba(far)
    _check_rows(P, 4)
    # the posterior itself: far along a class's side, that class (the score agrees)
    assert np.all(np.isfinite(clf.score_samples(far)))
    with pytest.raises(ValueError, match="X is too large in scale"):
        clf.predict_proba(np.full((1, 2), 1e150))
