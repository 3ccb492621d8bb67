"""PUSVC's internal paths forced, against the default path or the exact optimum: the kernel
product paths and the BLAS start (``pu._starts``, ``_products``), the start products a warm
start derives, the linear solver's offset search (``pu._pusvc._LINEAR_CD``), the repair of a
start's sum, and the refusal of prior="auto" when no estimator gives a prior in (0, 1)."""

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import is_prior, make_pu, registered
from oracle import check_against, solve_primal
from problems import pu_mixture

from unlabeled import PUSVC, _products
from unlabeled.pu import _pusvc, _starts, priors
from unlabeled.pu.priors import TIcE

LAMS = [1e-4, 1e-3, 1e-2, 1e-1]


@pytest.fixture(scope="module")
def problem():
    return make_pu(0, n=150, d=4, p=30)


def fitted(X, s, **kw):
    params = {"prior": 0.4, "lam": 0.01, "gamma": 0.5, "tol": 1e-8, **kw}
    return PUSVC(**params).fit(X, s)


# --------------------------------------------------------------------------- kernel products
@pytest.mark.parametrize("kernel", ["rbf", "poly"])
def test_every_kernel_path_keeps_the_optimum(kernel, monkeypatch):
    """Each product path forced (densified, float32 blocks, sparse-sparse) on one-hot data, given
    dense and sparse: float32 products of small integers are exact, so every fit reaches the
    float64 optimum; the path taken is reported in cache_stats_."""
    monkeypatch.setattr(_starts, "_BLAS_MIN_WORK", 0)
    rng = np.random.default_rng(4)
    X = np.zeros((160, 12))
    X[np.arange(160), rng.integers(6, size=160)] = 1.0
    X[np.arange(160), 6 + rng.integers(6, size=160)] = 1.0
    s = np.zeros(160, dtype=int)
    s[np.flatnonzero(X[:, 0] + X[:, 6] > 0)[:25]] = 1
    kw = {"kernel": kernel, "degree": 2, "coef0": 1.0}
    ref = fitted(X, s, kernel_path="dense", **kw)
    assert fitted(sp.csr_matrix(X), s, **kw).cache_stats_["kernel_path"] == "dense32"
    for path in ("dense", "dense32", "sparse"):
        for Xv in (X, sp.csr_matrix(X)):
            clf = fitted(Xv, s, kernel_path=path, **kw)
            assert clf.cache_stats_["kernel_path"] == path
            assert abs(clf.objective_ - ref.objective_) <= 1e-9 * max(1, abs(ref.objective_))
            np.testing.assert_allclose(
                clf.decision_function(X), ref.decision_function(X), atol=1e-6
            )


@pytest.mark.parametrize("kernel", ["rbf", "poly"])
def test_blas_start_keeps_the_optimum(problem, kernel, monkeypatch):
    """K_UP 1, K_UU sigma0 and g at the positives through BLAS in blocks (forced here; used
    from ~2^26 multiply-adds) change the time, not the optimum, for every start and format."""
    X, s, _ = problem
    kw = {"kernel": kernel, "degree": 2, "coef0": 1.0}
    ref = {fmt: fitted(Xv, s, **kw) for fmt, Xv in [("dense", X), ("f32", X.astype(np.float32))]}
    calls = []
    monkeypatch.setattr(_starts, "_BLAS_MIN_WORK", 0)
    products = _products.KernelProducts.__call__
    monkeypatch.setattr(
        _products.KernelProducts, "__call__", lambda *a: calls.append(1) or products(*a)
    )
    monkeypatch.setattr(_products, "_BLOCK_BYTES", 8 * 16 * 7)  # several row blocks
    monkeypatch.setattr(_products, "_COL_STEP", 16)  # and column blocks
    for init in ("mean-kernel", "pilot", "ocsvm"):
        for fmt, Xv in [("dense", X), ("sparse", sp.csr_matrix(X)), ("f32", X.astype(np.float32))]:
            calls.clear()
            clf = fitted(Xv, s, init=init, **kw)
            assert len(calls) == 3, "h, the start products and g at the positives"
            r = ref["f32" if fmt == "f32" else "dense"]
            # float32 data: float32 kernel blocks, as the float32 cache (about 1e-7 relative)
            rtol = 1e-6 if fmt == "f32" else 1e-9
            assert abs(clf.objective_ - r.objective_) <= rtol * max(1, abs(r.objective_))
            np.testing.assert_allclose(clf.decision_function(X), r.decision_function(X), atol=1e-4)
    # shuffled rows: the unlabeled points are no longer one run of rows (no views)
    perm = np.random.default_rng(2).permutation(len(s))
    clf = fitted(X[perm], s[perm], **kw)
    r = ref["dense"]
    assert abs(clf.objective_ - r.objective_) <= 1e-9 * max(1, abs(r.objective_))
    warm = PUSVC(prior=0.4, gamma=0.5, tol=1e-8, warm_start=True, **kw)
    for lam in (1e-1, 1e-2):
        warm.set_params(lam=lam).fit(X, s)
        monkeypatch.setattr(_starts, "_BLAS_MIN_WORK", 2**62)
        cold = fitted(X, s, lam=lam, **kw)
        monkeypatch.setattr(_starts, "_BLAS_MIN_WORK", 0)
        assert abs(warm.objective_ - cold.objective_) <= 1e-9 * max(1, abs(cold.objective_))


@pytest.mark.parametrize("kernel", ["rbf", "poly"])
def test_warm_start_derives_the_start_products(problem, kernel, monkeypatch):
    """A warm start on the same data rescales the previous solution's K_UU sigma and
    K_UU upper instead of a kernel pass: they must equal the products computed directly,
    along a lam path (nothing moves) and after a prior change (the repair moves points)."""
    X, s, _ = problem
    unl = np.flatnonzero(s == 0).astype(np.int32)
    seen = []
    real = _starts.warm_products
    monkeypatch.setattr(
        _starts, "warm_products", lambda *a: seen.append((a, real(*a))) or seen[-1][1]
    )
    warm = PUSVC(prior=0.4, kernel=kernel, degree=2, coef0=1.0, gamma=0.5, warm_start=True)
    for lam, prior in [(1e-1, 0.4), (1e-2, 0.4), (3e-3, 0.45), (1e-2, 0.3)]:
        warm.set_params(lam=lam, prior=prior).fit(X, s)
    assert len(seen) == 3
    for (_, problem, sigma0, upper, blas), out in seen:
        np.testing.assert_array_equal(problem.unl, unl)
        direct = blas(unl, unl, np.c_[sigma0, upper])
        atol = 1e-9 * problem.c2
        np.testing.assert_allclose(out["start_products"], direct, rtol=1e-9, atol=atol)


@pytest.mark.parametrize("cd", [0, 1])
def test_linear_offset_search_keeps_the_optimum(cd, monkeypatch):
    """With and without the offset search, on every input format and start, with shrinking
    on and off: the same optimum (n = 6,000 uses the search by default)."""
    X, s, prior = make_pu(4, n=6000, d=5, p=60)
    ref = PUSVC(prior=prior, kernel="linear", tol=1e-8).fit(X, s)
    monkeypatch.setattr(_pusvc, "_LINEAR_CD", cd)
    for Xv in (X, sp.csr_matrix(X), X.astype(np.float32)):
        for kw in ({}, {"init": "mean-kernel"}, {"shrinking": False}):
            clf = PUSVC(prior=prior, kernel="linear", tol=1e-8, **kw).fit(Xv, s)
            rtol = 1e-6 if Xv.dtype == np.float32 else 1e-9
            assert abs(clf.objective_ - ref.objective_) <= rtol * max(1, abs(ref.objective_))


def test_linear_offset_search_with_repeated_rows(monkeypatch):
    """Rows repeated hundreds of times make sum sigma(beta) jump where the copies change
    state together; the offset search must still end (it crept towards such jumps by ever
    smaller secant steps) at the optimum of the pair-only path."""
    rng = np.random.default_rng(3)
    distinct = rng.integers(0, 4, size=(40, 4)).astype(float)
    X = distinct[rng.integers(0, 40, 6000)]
    s = np.zeros(6000, int)
    s[np.flatnonzero(X[:, 0] + X[:, 1] >= 4)[:80]] = 1
    monkeypatch.setattr(_pusvc, "_LINEAR_CD", 0)
    ref = PUSVC(prior=0.3, kernel="linear", tol=1e-8).fit(X, s)
    monkeypatch.setattr(_pusvc, "_LINEAR_CD", 1)
    for seed in range(3):
        clf = PUSVC(prior=0.3, kernel="linear", tol=1e-8, random_state=seed).fit(X, s)
        assert abs(clf.objective_ - ref.objective_) <= 1e-9 * max(1, abs(ref.objective_))


def test_repair_sum_matches_a_full_stable_sort():
    """repair_sum ranks only the points it moves; the result must equal the definition:
    walk every point in stable-sorted score order (highest first to raise the sum, lowest
    first to lower it), each moving as far as its room and the remaining gap allow."""

    def by_definition(sigma, score, target, c2):
        sigma = np.clip(sigma, 0.0, c2)
        gap = target - sigma.sum()
        order = np.argsort(score, kind="stable")
        for i in order[::-1] if gap > 0 else order:
            move = min(abs(gap), c2 - sigma[i] if gap > 0 else sigma[i])
            sigma[i] += move if gap > 0 else -move
            gap -= move if gap > 0 else -move
        return sigma

    rng = np.random.default_rng(0)
    for trial in range(300):
        n, c2 = int(rng.integers(1, 400)), float(rng.uniform(0.1, 2))
        score = rng.integers(0, 5, n).astype(float) if trial % 2 else rng.standard_normal(n)
        sigma = rng.choice([0.0, c2 / 2, c2, c2 / 3], n)
        target = float(rng.uniform(-0.1, 1.1)) * n * c2
        got = _starts.repair_sum(sigma, score, target, c2)
        np.testing.assert_allclose(got, by_definition(sigma.copy(), score, target, c2), atol=1e-12)
        if 0 <= target <= n * c2:
            assert abs(got.sum() - target) <= 1e-9 * n * c2


# --------------------------------------------------------------------------- the exact optimum
@pytest.mark.parametrize("lam", LAMS)
def test_random_problems_linear_offset_search(monkeypatch, lam):
    """The linear solver's offset search by coordinate descent (used from 5,000 unlabeled
    points on, here forced) reaches the optimum."""
    monkeypatch.setattr(_pusvc, "_LINEAR_CD", 1)
    for seed in range(3):
        X, s, prior = make_pu(seed, n=90 + 20 * seed, d=2 + seed, p=15 + 5 * seed)
        J_star = solve_primal(X, s == 1, prior, lam, "linear", gamma=0.5)
        check_against(J_star, X, s, prior, lam, "linear", 0.5, "smo")


@pytest.mark.parametrize("lam", LAMS)
def test_random_problems_blas_start(monkeypatch, lam):
    """The start's products by BLAS (used from ~2^26 multiply-adds, here forced) reach the
    same optimum as the engine's own row-by-row start."""
    monkeypatch.setattr(_starts, "_BLAS_MIN_WORK", 0)
    for seed in range(3):
        X, s, prior = make_pu(seed, n=90 + 20 * seed, d=2 + seed, p=15 + 5 * seed)
        J_star = solve_primal(X, s == 1, prior, lam, "rbf", gamma=0.5)
        check_against(J_star, X, s, prior, lam, "rbf", 0.5, "smo")


# --------------------------------------------------------------------------- prior="auto"
def test_prior_auto_order_is_the_documented_one():
    """PUSVC's docstring: Blend first, then KM1 and KM2 (tests/test_priors.py relies on
    it)."""
    documented = ("Blend", "KM1", "KM2")  # registry: PUSVC's docstring's order, the data
    assert _pusvc.AUTO_PRIOR_ESTIMATORS == documented
    assert set(documented) <= {c.__name__ for c in registered(is_prior)}


def test_prior_auto_refuses_when_no_estimate_is_inside_0_1(monkeypatch):
    """With TIcE alone, a problem on which it estimates 1 leaves no estimate in (0, 1): fit
    refuses (the next test: the fallback to the next estimator on the same problem)."""
    X, s, _ = pu_mixture(0, 0.33, n_u=30, n_p=8)
    seeds = [r for r in range(20) if TIcE(random_state=r).fit(X, s).prior_ >= 1]
    if not seeds:
        pytest.skip("no degenerate estimate on this problem")
    monkeypatch.setattr(_pusvc, "AUTO_PRIOR_ESTIMATORS", ("TIcE",))
    with pytest.raises(ValueError, match="outside|inside \\(0, 1\\)"):
        PUSVC(prior="auto", random_state=seeds[0]).fit(X, s)


def test_prior_auto_falls_back(monkeypatch):
    """On 38 points TIcE may find no subset that bounds c above p / N and estimate 1: the
    next estimator is used (and only when none gives a value in (0, 1) does fit refuse: the
    test above, with TIcE alone). Blend, the first, keeps its estimate inside (0, 1), so
    TIcE stands first here for the mechanism."""
    fallback = ("TIcE", *_pusvc.AUTO_PRIOR_ESTIMATORS[1:])  # TIcE in Blend's place
    monkeypatch.setattr(_pusvc, "AUTO_PRIOR_ESTIMATORS", fallback)
    X, s, _ = pu_mixture(0, 0.33, n_u=30, n_p=8)
    seeds = [r for r in range(20) if TIcE(random_state=r).fit(X, s).prior_ >= 1]
    if not seeds:
        pytest.skip("no degenerate estimate on this problem")
    clf = PUSVC(prior="auto", random_state=seeds[0]).fit(X, s)
    assert clf.prior_estimator_ == fallback[1] and clf.prior_interval_ is None
    second = getattr(priors, fallback[1])
    assert clf.prior_ == pytest.approx(second(random_state=seeds[0]).fit(X, s).prior_)
