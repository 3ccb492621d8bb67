"""The kernel helpers of ``unlabeled._kernels``: kernel blocks against scikit-learn's kernels,
and the row blocks of bounded memory in which prediction computes its kernel products."""

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import small_pu
from problems import kernel_data
from sklearn.metrics.pairwise import pairwise_kernels

from unlabeled import PUSVC, _kernels
from unlabeled._kernels import kernel_block, kernel_dot, kernel_params

KERNEL_CASES = [
    ("linear", {}),
    ("rbf", {"gamma": 0.3}),
    ("poly", {"gamma": 0.5, "degree": 2, "coef0": 1.0}),
]


@pytest.mark.parametrize("kernel, kw", KERNEL_CASES)
def test_kernel_block_matches_scikit_learn(kernel, kw):
    X, _, T = kernel_data()
    params = kernel_params(kernel, kw.get("gamma", 1.0), kw.get("degree", 3), kw.get("coef0", 0))
    ref = pairwise_kernels(T, X, metric=kernel, **kw)
    np.testing.assert_allclose(kernel_block(T, X, kernel, params), ref, rtol=1e-12, atol=1e-12)
    got = kernel_block(sp.csr_matrix(T), sp.csr_matrix(X), kernel, params)
    np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-12)
    got32 = kernel_block(T.astype(np.float32), X.astype(np.float32), kernel, params)
    assert got32.dtype == np.float32
    np.testing.assert_allclose(got32, ref, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("kernel, kw", KERNEL_CASES)
def test_products_in_row_blocks(kernel, kw, monkeypatch):
    """sum_j coef_j k(t_i, x_j) in 3-row blocks for every input format, and a fitted model's
    decision_function in blocks equals the one in a single block."""
    X, _, T = kernel_data()
    coef = np.random.default_rng(1).normal(size=len(X))
    params = kernel_params(kernel, kw.get("gamma", 1.0), kw.get("degree", 3), kw.get("coef0", 0))
    ref = pairwise_kernels(T, X, metric=kernel, **kw) @ coef
    Xp, s = small_pu()
    est = PUSVC(prior=0.4, kernel=kernel, n_jobs=1, **kw).fit(Xp, s)
    formats = (T, sp.csr_matrix(T), T.astype(np.float32))
    whole = [est.decision_function(Tv) for Tv in formats]
    monkeypatch.setattr(_kernels, "_CHUNK_BYTES", 8 * 40 * 3)  # 3-row blocks
    for Tv, one_block in zip(formats, whole, strict=True):
        Td = np.asarray(Tv.toarray() if sp.issparse(Tv) else Tv, dtype=np.float64)
        ref_v = pairwise_kernels(Td, X, metric=kernel, **kw) @ coef  # the input as given
        got = kernel_dot(Tv, X, coef, kernel, params)
        np.testing.assert_allclose(got, ref_v, rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(est.decision_function(Tv), one_block, rtol=1e-9, atol=1e-9)
    K = pairwise_kernels(T, X, metric=kernel, **kw)
    cols = np.arange(len(X))
    np.testing.assert_allclose(kernel_dot(K, cols, coef, "precomputed", {}), ref, atol=1e-9)
