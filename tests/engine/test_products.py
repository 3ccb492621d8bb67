"""Kernel products K(X[rows], X[cols]) @ V by every path, against scikit-learn's kernels."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.metrics.pairwise import pairwise_kernels

from unlabeled import _products
from unlabeled._products import KernelProducts, choose_path, exact_in_float32

CASES = [
    ("linear", {}),
    ("rbf", {"gamma": 0.3}),
    ("poly", {"gamma": 0.5, "degree": 2, "coef0": 1.0}),
]


def one_hot(n, groups=(3, 5, 2, 4), seed=0):
    rng = np.random.default_rng(seed)
    offsets = np.r_[0, np.cumsum(groups)[:-1]]
    cols = np.stack(
        [o + rng.integers(k, size=n) for o, k in zip(offsets, groups, strict=True)], axis=1
    )
    ptr = np.arange(0, n * len(groups) + 1, len(groups))
    return sp.csr_matrix((np.ones(cols.size), cols.ravel(), ptr), shape=(n, sum(groups)))


def case(X, kernel, kw, seed=2):
    rng = np.random.default_rng(seed)
    n = X.shape[0]
    rows, cols = rng.permutation(n)[: n // 2 + 3], np.sort(rng.permutation(n)[:40])
    V = rng.normal(size=(cols.size, 2))
    V[::3] = 0.0
    Xd = X.toarray() if sp.issparse(X) else X
    return rows, cols, V, pairwise_kernels(Xd[rows], Xd[cols], metric=kernel, **kw) @ V


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("path", ["dense", "dense32", "sparse"])
@pytest.mark.parametrize("kernel, kw", CASES)
def test_every_path_in_blocks(kernel, kw, path, threads, monkeypatch):
    """Several row and column blocks (shrunk here), zero rows of V skipped, dense and sparse
    input; float32 products on integer data are exact, so every path meets float64's
    tolerance there."""
    monkeypatch.setattr(_products, "_BLOCK_BYTES", 8 * 7 * 16)
    monkeypatch.setattr(_products, "_COL_STEP", 16)
    X = one_hot(90)
    rows, cols, V, ref = case(X, kernel, kw)
    for Xv in (X, X.toarray()):
        kp = KernelProducts(Xv, kernel, kw, threads, path)
        assert kp.path == path
        np.testing.assert_allclose(kp(rows, cols, V), ref, rtol=1e-11, atol=1e-11)


@pytest.mark.parametrize("kernel, kw", CASES)
def test_float32_products_of_real_data_are_close(kernel, kw):
    X = np.random.default_rng(1).normal(size=(70, 5))
    rows, cols, V, ref = case(X, kernel, kw)
    got = KernelProducts(X, kernel, kw, 1, "dense32")(rows, cols, V)
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(KernelProducts(X, kernel, kw, 1)(rows, cols, V), ref, rtol=1e-11)


def test_rbf_far_points_use_the_distance_form():
    """Large ||x||: exp(2 gamma <a, b>) would overflow, so the block falls back to
    exp(-gamma ||a - b||^2), which stays exact for near points far from the origin."""
    X = np.random.default_rng(3).normal(size=(60, 4)) + 40.0
    kw = {"gamma": 0.5}
    rows, cols, V, ref = case(X, "rbf", kw)
    got = KernelProducts(X, "rbf", kw, 1, "dense")(rows, cols, V)
    assert np.all(np.isfinite(got))
    np.testing.assert_allclose(got, ref, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("threads", [1, 2])
def test_rbf_outliers_take_the_distance_form_alone(threads, monkeypatch):
    """A few outlying rows: the factored form for the pairs of safe points, the distance form
    for every pair with an outlier (rows and columns), the sum exact."""
    monkeypatch.setattr(_products, "_BLOCK_BYTES", 8 * 7 * 16)
    X = np.random.default_rng(4).normal(size=(80, 3))
    X[[4, 11, 17]] *= 40.0  # gamma ||x||^2 far above the safe bound
    kw = {"gamma": 0.5}
    rows, cols, V, ref = case(X, "rbf", kw)
    assert {4, 11} <= set(rows) & set(cols)
    seen = []
    product = KernelProducts._product

    def spy(self, r, c, W, factored):
        far = 0.5 * (X[r] ** 2).sum(1).max() > _products._EXP_SAFE
        far |= 0.5 * (X[c] ** 2).sum(1).max() > _products._EXP_SAFE
        seen.append((factored, far))
        return product(self, r, c, W, factored)

    monkeypatch.setattr(KernelProducts, "_product", spy)
    got = KernelProducts(X, "rbf", kw, threads, "dense")(rows, cols, V)
    np.testing.assert_allclose(got, ref, rtol=1e-10, atol=1e-12)
    assert (True, False) in seen and (False, True) in seen  # both forms ran
    assert (True, True) not in seen  # never the factored form with an outlier


def test_exact_in_float32_and_the_automatic_path():
    X = one_hot(50)
    assert exact_in_float32(X) and exact_in_float32(X.toarray() * 3)
    assert not exact_in_float32(X * 0.1)  # not integers
    assert not exact_in_float32(np.full((2, 4), 2049.0))  # 4 * 2049^2 >= 2^24
    assert not exact_in_float32(np.array([[np.inf, 1.0]]))
    assert choose_path(X) == "dense32" and choose_path(X * 0.1) == "dense"
    assert choose_path(X, "sparse") == "sparse"
    wide = sp.csr_matrix((np.ones(3), [5, 7, 10**8 - 1], [0, 1, 3, 3]), shape=(3, 10**8))
    assert choose_path(wide) == "sparse"  # densified it would take 2.4 GB


def test_inputs_are_not_modified():
    X = one_hot(40)
    rows, cols, V, _ = case(X, "rbf", {"gamma": 0.3})
    before = [a.copy() for a in (X.data, rows, cols, V)]
    KernelProducts(X, "rbf", {"gamma": 0.3}, 2, "dense")(rows, cols, V)
    for a, b in zip(before, (X.data, rows, cols, V), strict=True):
        np.testing.assert_array_equal(a, b)


def test_products_run_blas_on_one_thread_and_restore_it(monkeypatch):
    from threadpoolctl import threadpool_info

    from unlabeled._threads import one_blas_thread

    def blas_threads():
        return [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"]

    before = blas_threads()
    seen = []
    block = KernelProducts._block

    def spy(self, *args):
        seen.append(blas_threads())
        return block(self, *args)

    monkeypatch.setattr(KernelProducts, "_block", spy)
    X = np.random.default_rng(0).normal(size=(50, 3))
    KernelProducts(X, "rbf", {"gamma": 0.5}, threads=1)(np.arange(50), np.arange(50), np.ones(50))
    assert seen and all(all(t == 1 for t in s) for s in seen)
    assert blas_threads() == before
    for _ in range(2):  # the one controller serves every call
        with one_blas_thread():
            assert all(t == 1 for t in blas_threads())
        assert blas_threads() == before
