"""The multi-instance methods from the inside: every inner SVM solve of MILWellSVM (the
mixed key-instance kernel and the start SVM) and of mi-SVM / MI-SVM against cvxpy + Clarabel
on the same problem; the key-instance oracle against a direct search; the backend's products
and norms against dense algebra."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from conftest import by_name, declares, registered
from oracle import svm_dual_cvxpy
from problems import planted
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics.pairwise import rbf_kernel

from unlabeled._label_generation import KernelBackend
from unlabeled.mil import MILWellSVM, _wellsvm, miSVM
from unlabeled.mil._wellsvm import KeyInstanceBackend, KeyInstanceOracle

cp = pytest.importorskip("cvxpy")

GAMMA = 0.5


def dual_value(K, y, a):
    v = a * y
    return float(a.sum() - 0.5 * v @ K @ v)


def assert_close_to_optimum(value, optimum, rel=1e-5):
    assert abs(value - optimum) <= rel * max(1.0, abs(optimum)), (value, optimum)


# ---------------------------------------------------------------------- inner SVMs vs cvxpy
def test_wellsvm_every_inner_svm_matches_cvxpy(monkeypatch):
    """Each SVM of the MKL alternations (the mixed key-instance kernel, no offset) and the
    start SVM reach the optimum that Clarabel finds for the same problem."""
    recorded = []
    solve = KeyInstanceBackend.solve

    def spy(self, S, mu, alpha0):
        alpha = solve(self, S, mu, alpha0)
        recorded.append((self.Kq.copy(), self.signs.astype(float), self.C.copy(), alpha))
        return alpha

    monkeypatch.setattr(KeyInstanceBackend, "solve", spy)
    bags, y, _ = planted(1, n_bags=8, size=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf = MILWellSVM(
            C1=5.0,
            C2=1.0,
            gamma=GAMMA,
            tol=1e-7,
            oracle="ascent",
            model="rounded",
            max_mkl_iter=100,
        ).fit(bags, y)
    assert len(recorded) >= 2 and clf.label_vectors_.shape[1] >= 1
    for Kq, yhat, C, alpha in recorded:
        assert np.all(alpha >= 0) and np.all(alpha <= C * (1 + 1e-12))
        assert_close_to_optimum(dual_value(Kq, yhat, alpha), svm_dual_cvxpy(Kq, yhat, C, False))


def test_wellsvm_start_svm_matches_cvxpy(monkeypatch):
    recorded = []
    qp = _wellsvm.solve_kernel_qp

    def spy(rows, idx, p, C, alpha0, **kw):
        res = qp(rows, idx, p, C, alpha0, **kw)
        if kw.get("equality"):
            recorded.append((np.asarray(kw["y"], float), np.asarray(C).copy(), res.alpha))
        return res

    monkeypatch.setattr(_wellsvm, "solve_kernel_qp", spy)
    bags, y, _ = planted(2, n_bags=8, size=3)
    MILWellSVM(gamma=GAMMA, tol=1e-7, max_iter=1, model="rounded").fit(bags, y)
    ((yi, C, alpha),) = recorded
    X = np.vstack(bags)
    order = np.argsort(np.repeat(np.where(y > 0, 1, -1), [len(b) for b in bags]) < 0, kind="stable")
    K = rbf_kernel(X[order], gamma=GAMMA)
    assert abs(yi @ alpha) < 1e-9
    assert_close_to_optimum(dual_value(K, yi, alpha), svm_dual_cvxpy(K, yi, C, True))


@pytest.mark.parametrize(
    "cls", registered(lambda e: declares(e.load(), "C_negative"), family="mil"), ids=by_name
)
def test_alternating_every_svm_matches_cvxpy(cls, monkeypatch):
    """Each SVM (with offset) that mi-SVM / MI-SVM trains is the optimum of its dual; the
    Gram matrix is rebuilt here from the instances and, for MI-SVM, the bag centroids."""
    recorded = []
    signed = KernelBackend.signed_solve

    def spy(self, idx, yy, C, alpha0, options=None):
        out = signed(self, idx, yy, C, alpha0, options)
        recorded.append((np.asarray(idx).copy(), np.asarray(yy, float), np.asarray(C), out[0]))
        return out

    monkeypatch.setattr(KernelBackend, "signed_solve", spy)
    bags, y, _ = planted(3, n_bags=8, size=3)
    clf = cls(C=5.0, C_negative=1.0, gamma=GAMMA, tol=1e-7).fit(bags, y)
    X = np.vstack(bags)
    points = X if cls is miSVM else np.vstack([X] + [b.mean(axis=0) for b in bags[:4]])
    assert len(recorded) == clf.n_iter_ >= 1
    for idx, yy, C, alpha in recorded:
        K = rbf_kernel(points[idx], gamma=GAMMA)
        assert abs(yy @ alpha) < 1e-9
        assert_close_to_optimum(dual_value(K, yy, alpha), svm_dual_cvxpy(K, yy, C, True))


# ---------------------------------------------------------------------- the pieces
def test_oracle_is_per_bag_argmax_and_ascent_increases_q():
    rng = np.random.default_rng(5)
    bag = np.r_[0, 0, 0, 1, 1, 2, 3, 3]  # bags 0, 1 positive (instances 0..4), 2, 3 negative
    X = rng.normal(size=(8, 2))
    K = rbf_kernel(X, gamma=GAMMA)
    oracle = KeyInstanceOracle(bag, np.array([0, 1]), np.arange(5, 8))
    f = rng.normal(size=8)
    np.testing.assert_array_equal(
        oracle(f), [int(np.argmax(f[:3])), 3 + int(np.argmax(f[3:5])), 5, 6, 7]
    )
    backend = KeyInstanceBackend(K, 5, 2, np.ones(5), 1e6, 1e-8)
    alpha = np.array([2.0, 1.5, 0.3, 0.7, 0.1])

    def q(s):  # ||w_s||^2 from its definition
        v = alpha * backend.signs
        return v @ K[np.ix_(s, s)] @ v

    for start in itertools.product(range(3), range(3, 5)):
        s = np.r_[start, 5, 6, 7]
        out = oracle.ascend(s, backend.products(alpha, s[:, None])[:, 0], alpha, K)
        assert q(out) >= q(s) - 1e-12
        for i, members in ((0, range(3)), (1, range(3, 5))):  # a one-bag local maximum
            for j in members:
                t = out.copy()
                t[i] = j
                assert q(t) <= q(out) + 1e-12


def test_backend_products_and_norms_match_dense_algebra():
    rng = np.random.default_rng(6)
    X = rng.normal(size=(9, 3))
    K = rbf_kernel(X, gamma=GAMMA)
    backend = KeyInstanceBackend(K, 5, 2, np.r_[3.0, 3.0, np.ones(4)], 1e6, 1e-10)
    S = np.array([[0, 3, 5, 6, 7, 8], [2, 4, 5, 6, 7, 8]]).T
    mu = np.array([0.3, 0.7])
    mixed = sum(m * K[np.ix_(s, s)] for m, s in zip(mu, S.T, strict=True))
    np.testing.assert_allclose(backend.mixed_kernel(S, mu), mixed, atol=1e-14)
    alpha = backend.solve(S, mu, np.zeros(6))
    v = alpha * backend.signs
    q = [v @ K[np.ix_(s, s)] @ v for s in S.T]
    np.testing.assert_allclose(backend.label_norms(alpha, S), q, rtol=1e-10)  # shortcut
    np.testing.assert_allclose(backend.label_norms(alpha.copy(), S), q, rtol=1e-10)
    f = np.stack([K[:, s] @ v for s in S.T], axis=1)
    np.testing.assert_allclose(backend.products(alpha, S), f, atol=1e-12)
