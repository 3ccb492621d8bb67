"""The engine's rbf block products (blocks.cpp) behind KernelProducts: its own vector exp,
the fused path (inner products in the engine, few features) and the BLAS-block path (more
features, float32 blocks on dense32), against scikit-learn's kernels and NumPy's blocks."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.metrics.pairwise import rbf_kernel

from unlabeled import PUSVC, _engine, _products
from unlabeled._products import KernelProducts
from unlabeled.pu import _starts


def test_exp_is_within_two_ulp_and_flushes_below_minus_708():
    rng = np.random.default_rng(0)
    x = -np.r_[np.linspace(0, 708, 200_001), rng.exponential(3.0, 10_001), 0.0, 5e-324, 1e-300]
    got, ref = _engine.exp_nonpositive(x), np.exp(x)
    np.testing.assert_array_less(np.abs(got - ref), 2 * np.spacing(ref))
    assert got[-3] == 1.0
    far = _engine.exp_nonpositive(np.array([-708.5, -745.0, -1e300]))
    np.testing.assert_array_equal(far, 0.0)  # results below 3.3e-308 flushed to zero
    with pytest.raises(ValueError, match="<= 0"):
        _engine.exp_nonpositive(np.array([0.5]))


def problem(d, n=120, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X[[3, 50]] *= 40.0  # outliers: exp(2 gamma <a, b>) would overflow; no form is needed here
    rows = rng.permutation(n)[: n // 2 + 7]
    cols = np.sort(rng.permutation(n)[:45])  # 45 = five vectors of 8 and a tail of 5
    V = rng.normal(size=(cols.size, 3))
    V[::4] = 0.0
    return X, rows, cols, V


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("path", ["dense", "dense32", "sparse"])
@pytest.mark.parametrize("d", [3, 16, 17, 40])
def test_engine_path_matches_the_kernel(d, path, threads, monkeypatch):
    """Fused (d <= FUSED_MAX_FEATURES) and BLAS blocks (more, and sparse), several row and
    column blocks with tails, three vectors, outliers: float64 to rounding, float32 blocks as
    NumPy's float32 blocks; the same as NumPy's own blocks."""
    monkeypatch.setattr(_products, "_BLOCK_BYTES", 8 * 7 * 16)
    monkeypatch.setattr(_products, "_COL_STEP", 21)
    X, rows, cols, V = problem(d)
    gamma = 0.5 / d
    ref = rbf_kernel(X[rows], X[cols], gamma=gamma) @ V
    Xv = sp.csr_matrix(X) if path == "sparse" else X
    kp = KernelProducts(Xv, "rbf", {"gamma": gamma}, threads, path)
    monkeypatch.setattr(_products, "ENGINE_MIN_ENTRIES", 2**62)
    numpy_blocks = kp(rows, cols, V)
    monkeypatch.setattr(_products, "ENGINE_MIN_ENTRIES", 0)
    got = kp(rows, cols, V)
    tol = 1e-5 if path == "dense32" else 1e-12
    np.testing.assert_allclose(got, ref, rtol=tol, atol=tol * np.abs(ref).max())
    np.testing.assert_allclose(got, numpy_blocks, rtol=tol, atol=tol * np.abs(ref).max())
    assert np.all(np.isfinite(got))


def test_engine_path_of_integer_data_in_float32_is_exact(monkeypatch):
    """One-hot data: float32 inner products are exact, so dense32 equals float64."""
    monkeypatch.setattr(_products, "ENGINE_MIN_ENTRIES", 0)
    rng = np.random.default_rng(1)
    for d in (12, 40):
        X = np.zeros((90, d))
        X[np.arange(90), rng.integers(d, size=90)] = 1.0
        X[np.arange(90), rng.integers(d, size=90)] += 2.0
        rows, cols, V = np.arange(90), np.arange(10, 60), rng.normal(size=(50, 2))
        ref = rbf_kernel(X[rows], X[cols], gamma=0.3) @ V
        got = KernelProducts(sp.csr_matrix(X), "rbf", {"gamma": 0.3}, 2)(rows, cols, V)
        np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-12)


def test_block_functions_check_their_shapes():
    A, Bt = np.zeros((4, 3)), np.zeros((3, 5))
    rs, cs, wt, out = np.zeros(4), np.zeros(5), np.zeros((2, 5)), np.zeros((4, 2))
    _engine.rbf_dense_times(A, Bt, rs, cs, 1.0, wt, out)
    with pytest.raises(ValueError, match="features"):
        _engine.rbf_dense_times(A, np.zeros((2, 5)), rs, cs, 1.0, wt, out)
    with pytest.raises(ValueError, match="out must"):
        _engine.rbf_dense_times(A, Bt, rs, cs, 1.0, wt, np.zeros((4, 3)))
    with pytest.raises(ValueError, match="wt must"):
        _engine.rbf_gram_times(np.zeros((4, 5)), rs, cs, 1.0, np.zeros((2, 4)), out)
    with pytest.raises(ValueError, match="row_sq"):
        _engine.rbf_gram_times(np.zeros((4, 5), np.float32), cs, cs, 1.0, wt, out)


@pytest.mark.parametrize("fmt", ["dense", "f32", "sparse"])
def test_pusvc_optimum_with_the_engine_products(fmt, monkeypatch):
    """Every product of the BLAS start by the engine (forced): the optimum of NumPy's blocks."""
    rng = np.random.default_rng(3)
    X = np.r_[rng.normal(0.8, 1, (30, 5)), rng.normal(0, 1, (170, 5))]
    s = np.r_[np.ones(30, int), np.zeros(170, int)]
    Xv = {"dense": X, "f32": X.astype(np.float32), "sparse": sp.csr_matrix(X)}[fmt]
    monkeypatch.setattr(_starts, "_BLAS_MIN_WORK", 0)
    params = {"prior": 0.4, "lam": 0.01, "gamma": 0.5, "tol": 1e-8}
    monkeypatch.setattr(_products, "ENGINE_MIN_ENTRIES", 2**62)
    ref = PUSVC(**params).fit(Xv, s)
    monkeypatch.setattr(_products, "ENGINE_MIN_ENTRIES", 0)
    clf = PUSVC(**params).fit(Xv, s)
    rtol = 1e-6 if fmt == "f32" else 1e-9
    assert abs(clf.objective_ - ref.objective_) <= rtol * max(1, abs(ref.objective_))
    np.testing.assert_allclose(clf.decision_function(X), ref.decision_function(X), atol=1e-5)
