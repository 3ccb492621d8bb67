"""MILWellSVM's one dense buffer: the instance kernel made in place (the values of the Gram
matrix that ``_gram`` makes, to the bit, and of scikit-learn's kernels to rounding) and the
mixed kernel read in place by the engine (the same solves as from a separate Gram matrix)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics.pairwise import polynomial_kernel, rbf_kernel

from unlabeled.mil import MILWellSVM
from unlabeled.mil._wellsvm import KeyInstanceBackend


def _fitted_kernel_params(est, X):
    """``est`` with its kernel width resolved on ``X`` as fit does (``gamma="scale"``)."""
    bag = np.repeat(np.arange(X.shape[0] // 3), 3)
    y = (np.arange(bag.max() + 1) % 2).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # max_iter=1: the width only
        return est.fit(X, y, groups=bag)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("kernel", ["rbf", "poly", "linear"])
def test_instance_kernel_in_place_is_the_gram_matrix(kernel, dtype):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(90, 7)).astype(dtype)
    est = _fitted_kernel_params(MILWellSVM(kernel=kernel, max_iter=1), X)
    M = est._instance_kernel(X, 4)
    assert M.shape == (94, 94) and M.flags.c_contiguous
    np.testing.assert_array_equal(M[:90, :90], est._gram(X))  # to the bit
    X64 = X.astype(np.float64)
    if kernel == "rbf":
        ref = rbf_kernel(X64, gamma=est._gamma)
    elif kernel == "poly":
        ref = polynomial_kernel(X64, degree=est.degree, gamma=est._gamma, coef0=est.coef0)
    else:
        ref = X64 @ X64.T
    np.testing.assert_allclose(M[:90, :90], ref, rtol=1e-12, atol=1e-12)


def test_workspace_backend_solves_as_from_a_gram_matrix():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(12, 3))
    K = rbf_kernel(X, gamma=0.5)
    P, p = 6, 2  # instances 0..5 in the two positive bags, 6..11 negative
    C = np.r_[3.0, 3.0, np.ones(6)]
    plain = KeyInstanceBackend(K, P, p, C, 1e6, 1e-10)
    M = np.full((14, 14), np.nan)  # the trailing rows and columns are the backend's
    M[:12, :12] = K
    ws = KeyInstanceBackend(M, P, p, C, 1e6, 1e-10, workspace=True)
    S = np.array([[0, 3, *range(6, 12)], [2, 5, *range(6, 12)]]).T
    mu = np.array([0.4, 0.6])
    mixed = sum(m * K[np.ix_(s, s)] for m, s in zip(mu, S.T, strict=True))
    np.testing.assert_allclose(ws.mixed_kernel(S, mu), mixed, atol=1e-14)
    a1, a2 = plain.solve(S, mu, np.zeros(8)), ws.solve(S, mu, np.zeros(8))
    np.testing.assert_array_equal(a1, a2)
    np.testing.assert_array_equal(plain.label_norms(a1, S), ws.label_norms(a2, S))
    np.testing.assert_array_equal(plain.products(a1, S), ws.products(a2, S))
    (b1, r1), (b2, r2) = (
        plain.solve_with_offset(S[:, 0], np.zeros(8)),
        ws.solve_with_offset(S[:, 0], np.zeros(8)),
    )
    np.testing.assert_array_equal(b1, b2)
    assert r1 == r2
    # the products of a new alpha are not the cached ones of the last
    np.testing.assert_allclose(
        ws.products(b2, S[:, :1])[:, 0], K[:, S[:, 0]] @ (b2 * ws.signs), atol=1e-12
    )


def test_products_on_leading_points_are_those_on_all():
    """``products`` on the positive bags' instances computes the leading columns only (a
    multiple of 4 of them): the same values as on every instance, whatever alpha came last."""
    rng = np.random.default_rng(2)
    X = rng.normal(size=(53, 4))
    K = rbf_kernel(X, gamma=0.3)
    P, p = 21, 5
    backend = KeyInstanceBackend(K, P, p, np.ones(p + 53 - P), 1e6, 1e-10)
    S = np.c_[[0, 5, 9, 14, 20, *range(P, 53)], [2, 7, 11, 17, 19, *range(P, 53)]]
    for seed in range(3):
        alpha = np.random.default_rng(seed).uniform(0, 1, p + 53 - P)
        alpha[np.random.default_rng(seed).uniform(size=alpha.size) < 0.4] = 0.0
        for width in (1, 19, 21, 50, 52, 53):
            part = backend.products(alpha, S, np.arange(width))
            assert part.shape == (width, 2)
            f = np.stack([K[:, s] @ (alpha * backend.signs) for s in S.T], axis=1)
            np.testing.assert_allclose(part, f[:width], rtol=1e-12, atol=1e-12)
            np.testing.assert_allclose(
                backend.products(alpha, S)[:width], part, rtol=1e-13, atol=1e-14
            )
