"""Limits on the resources a fit may use: threads and cores, parameter bounds, iteration caps
(a fit that cannot converge stops with a warning instead of running for ever) and memory
budgets (a matrix too large for the budget or the machine is refused before it is made)."""

import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import (
    declares,
    is_kernel_machine,
    is_kernel_mean,
    make_pu,
    registered,
    small_pu,
    time_limit,
)
from problems import few_labels, shifted_bags
from sklearn.exceptions import ConvergenceWarning
from test_common import fit_args

import unlabeled
from unlabeled import (
    MISVM,
    PUSVC,
    TSVM,
    LapSVM,
    MILWellSVM,
    WellSVM,
    WellSVMClustering,
    miSVM,
)
from unlabeled.exceptions import InvalidParameterError, MemoryBudgetError
from unlabeled.registry import all_estimators


# ---------------------------------------------------------------------- parameter bounds
def _svmplus(**kw):
    from unlabeled import SVMPlus

    return SVMPlus(**kw)


BAD_PARAMS = [
    (PUSVC, {"cache_size": 1e30}, "cache_size must be <= 1000000.0"),
    (PUSVC, {"degree": 2**31, "kernel": "poly"}, "degree must be <= 100"),
    (PUSVC, {"max_iter": 2**31}, "max_iter must be <= 2147483647"),
    (PUSVC, {"max_iter": 2**63}, "max_iter must be <= 2147483647"),
    (PUSVC, {"n_jobs": 2**31}, "n_jobs must be <= 2147483647"),
    (PUSVC, {"n_jobs": 1.5}, "n_jobs must be"),
    (PUSVC, {"verbose": "yes"}, "verbose must be"),
    (_svmplus, {"verbose": -1}, "verbose must be"),
    (_svmplus, {"cache_size": 1e30}, "cache_size must be <= 1000000.0"),
    (_svmplus, {"degree": 10**12}, "degree must be <= 100"),
]


@pytest.mark.parametrize("make, params, phrase", BAD_PARAMS)
def test_out_of_range_parameters_refused(make, params, phrase):
    est = make(**params) if make is _svmplus else make(prior=0.4, **params)
    X, s = small_pu()
    with pytest.raises(InvalidParameterError) as info:
        est.fit(X, s, X[:, :1]) if make is _svmplus else est.fit(X, s)
    assert phrase in str(info.value)
    assert "incompatible function arguments" not in str(info.value)


def _box_weights() -> list:
    """(entry, params): each box weight (C, C1, C2) that an estimator declares at 1e301 alone
    and just past the bound (1e31), and all of its box weights at once."""
    out = []
    for e in all_estimators(load=True):
        box = [p for p in ("C", "C1", "C2") if declares(e.load(), p)]
        cases = [{p: v} for p in box for v in (1e301, 1e31)]
        cases += [dict.fromkeys(box, 1e301)] if len(box) > 1 else []
        ids = ["-".join(f"{p}={v:g}" for p, v in c.items()) for c in cases]
        out += [pytest.param(e, c, id=f"{e.name}-{i}") for c, i in zip(cases, ids, strict=True)]
    return out


@pytest.mark.parametrize("entry, params", _box_weights())
def test_box_weights_beyond_their_range_name_the_parameter(entry, params):
    """WellSVM(C1=1e301, C2=1e301) said "C must be positive and finite" (its squared hinge's
    box, 1e8 C, overflowed in the engine) without naming either parameter. Every C, C1 and C2
    is declared in (0, 1e30] and refused before any work, naming itself and the bound."""
    est = entry.load()(**{**entry.cases[0].params, **params})
    first = sorted(params)[0]
    with pytest.raises(InvalidParameterError, match=f"{first} must be <= 1e\\+30, got 1e\\+3"):
        est.fit(*fit_args(entry, entry.cases[0]))


def test_largest_cache_accepted():
    """cache_size=1e6 (MB), the largest accepted, is a bound, not an allocation: the cache holds
    only the kernel rows computed, and the model is the one of the default cache."""
    X, s = small_pu()
    est = PUSVC(prior=0.4, cache_size=1e6, n_jobs=1).fit(X, s)
    stats = est.cache_stats_
    assert 0 < stats["bytes"] <= stats["kernel_rows"] * X.shape[0] * 8, stats
    ref = PUSVC(prior=0.4, n_jobs=1).fit(X, s)
    np.testing.assert_array_equal(est.decision_function(X), ref.decision_function(X))
    with pytest.raises(InvalidParameterError, match="cache_size must be <= 1000000.0"):
        PUSVC(prior=0.4, cache_size=np.nextafter(1e6, np.inf), n_jobs=1).fit(X, s)


@pytest.mark.parametrize("lam", [1e-200, 1e-300, 1e-31])
def test_lam_below_its_documented_range_refused(lam):
    """lam=1e-200 gave objective_ = NaN (the dual's sums overflow); lam >= 1e-30 documented."""
    X, s = small_pu()
    with pytest.raises(InvalidParameterError, match="lam must be >= 1e-30"):
        PUSVC(prior=0.4, lam=lam).fit(X, s)
    est = PUSVC(prior=0.4, lam=1e-30, n_jobs=1, max_iter=20_000)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X, s)
    assert np.isfinite(est.objective_) and np.all(np.isfinite(est.decision_function(X)))


# ---------------------------------------------------------------------- iteration caps
# each ran past 60 s on 100 points before the default cap (0.01 s normally; lam=1e-50 hung
# too, now below the documented range of lam)
HANGS = [  # registry: the settings that hung, per estimator
    ("PUSVC", {"kernel": "linear"}, 1e18),
    ("PUSVC", {"lam": 1e-30}, 1.0),
    ("PUSVC", {"lam": 1e-30, "solver": "usmo"}, 1.0),
    ("PUSVC", {"kernel": "poly", "gamma": 1e4}, 1.0),
    # (aSMO's Newton steps on the free set now solve this one in 0.2 s; gSMO still cannot)
    ("SVMPlus", {"gamma_plus": 1e-12, "solver": "gsmo"}, 1.0),
    ("PUSVC", {"tol": 1e-300, "solver": "usmo"}, 1.0),
    ("PUSVC", {"kernel": "poly", "degree": 50, "coef0": 10.0}, 1.0),
    ("SVMPlus", {"tol": 1e-12, "solver": "gsmo"}, 1.0),  # (tol's floor: 1e-300 is refused)
]


@pytest.mark.parametrize("name, params, scale", HANGS, ids=[f"{h[0]}-{h[1]}" for h in HANGS])
def test_default_iteration_cap_stops_pathological_fits(settings, name, params, scale):
    """``max_iter=None`` means LIBSVM's cap max(10^7, 100 n), not "unlimited": a fit that
    cannot converge stops there with a warning naming the estimator, the cap and the
    parameter. The cap's floor is lowered here to keep the test fast; the formula is the
    same (100 n or 1000 n per step kind above it)."""
    from sklearn.exceptions import ConvergenceWarning

    from unlabeled import SVMPlus

    settings(min_default_max_iter=20_000)
    X, s, _ = make_pu(0, n=80, d=3, p=20)
    X = X * scale
    with pytest.warns(ConvergenceWarning) as record:
        if name == "PUSVC":
            est = PUSVC(prior=0.4, n_jobs=1, random_state=0, **params).fit(X, s)
        else:
            est = SVMPlus(**params).fit(X, s, X[:, :1])
    n = X.shape[0]  # 100: 20 labeled positives and 80 unlabeled points
    floor = unlabeled.get_config()["min_default_max_iter"]
    cap = max(floor, (1000 if params.get("kernel") == "linear" else 100) * n)
    assert cap == (100_000 if params.get("kernel") == "linear" else 20_000)
    message = str(record[0].message)
    assert message.startswith(name) and est.n_iter_ <= cap
    if est.n_iter_ < cap:  # a solver that detects a stall (USMO, SVM+) may stop earlier
        assert "stalled" in message
    else:
        assert f"after {cap} " in message and "default cap for max_iter=None" in message
        assert "larger max_iter" in message


def test_default_cap_leaves_normal_fits_unchanged():
    """On a normal problem the cap is never reached: the same solution as a huge explicit cap."""
    X, s, _ = make_pu(3, n=120, d=3, p=20)
    for kernel in ("rbf", "linear"):
        a = PUSVC(prior=0.4, kernel=kernel, n_jobs=1).fit(X, s)
        b = PUSVC(prior=0.4, kernel=kernel, n_jobs=1, max_iter=2**31 - 1).fit(X, s)
        np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))
        assert a.n_iter_ == b.n_iter_ < 10**5


def test_mil_wellsvm_start_svm_is_capped(settings):
    """Found once the fuzz suite really built mil.WellSVM (its target passed the parameter
    dict as C1, so every case was refused): the start's SVM ran with the engine's -1, no cap,
    and with C2=1e12 on 21 instances it ran for ever. It stops at the default cap, warned."""
    from unlabeled.mil import MILWellSVM

    settings(min_default_max_iter=20_000)
    rng = np.random.default_rng(160)
    X = np.c_[np.full(21, 7.0), rng.normal(size=21)]
    y = np.where(rng.random(21) < 0.6, 1, -1)
    y[:2], y[-2:] = 1, -1

    with pytest.warns(ConvergenceWarning, match=r"^MILWellSVM \(the start's SVM\) stopped after"):
        with time_limit(20):  # 0.1 s now
            MILWellSVM(C1=1e-12, C2=1e12).fit(X, y)


def test_svmplus_dsvm_plus_inner_svc_is_capped(settings):
    """Found by the long fuzz run: mode='dsvm+' trains sklearn's SVC on X_star, whose default
    is no iteration cap: with C=1e12 it ran for 50 s on 35 points. It gets the same cap."""

    from sklearn.exceptions import ConvergenceWarning

    from unlabeled import SVMPlus

    settings(min_default_max_iter=10**4)
    rng = np.random.default_rng(3349)
    X = rng.normal(size=(35, 1))
    y = np.where(rng.random(35) < 0.5, 1, -1)
    y[:2], y[-2:] = 1, -1
    X_star = np.abs(X) + rng.random((35, 1))

    with time_limit(20, "the inner SVC (no cap)"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            est = SVMPlus(mode="dsvm+", C=1e12).fit(X, y, X_star)
    assert np.all(np.isfinite(est.decision_function(X)))


def test_ocsvm_start_is_capped(settings):
    """Found by the long fuzz run: the OCSVM start (sklearn's OneClassSVM, no iteration cap by
    default) never returned on a constant precomputed Gram matrix."""

    from sklearn.exceptions import ConvergenceWarning

    settings(min_default_max_iter=10**4)
    X, s = small_pu()
    K = np.full((len(s), len(s)), 0.5)

    with time_limit(20, "the OCSVM start (no cap)"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            est = PUSVC(prior=0.4, kernel="precomputed", solver="usmo", n_jobs=1).fit(K, s)
    assert np.all(np.isfinite(est.decision_function(K)))


def test_ramp_pu_tolerance_below_rounding_stops_at_the_cap(settings):
    """RampPU with tol=1e-300 ran past 60 s; each
    convex step's SMO stops at the default cap, warned, and the model is finite."""
    pytest.importorskip("clarabel")
    from unlabeled.pu import RampPU

    settings(min_default_max_iter=20_000)
    X, s, _ = make_pu(0, n=80, d=3, p=20)
    with pytest.warns(ConvergenceWarning, match=r"RampPU \(a convex step's SMO\) stopped after"):
        est = RampPU(prior=0.4, tol=1e-300, max_cccp_iter=2, random_state=0).fit(X, s)
    assert np.all(np.isfinite(est.decision_function(X)))


# ---------------------------------------------------------------------- memory budgets
#: RampPU's QP steps and the class-prior estimators that make n x n distance matrices
DENSE_PU = ["RampPU", *(c.__name__ for c in registered(is_kernel_mean))]


@pytest.mark.parametrize("which", DENSE_PU)
def test_dense_allocations_checked_against_the_budget(monkeypatch, settings, which):
    """n x n matrices are refused before they are made, with the size and the argument to
    use instead, when over unlabeled.set_config(max_dense_bytes=...) (lowered here to 20 kB:
    the problems have 50 points, 20 kB holds a 50 x 50 matrix but not the method's peak).
    That the check comes before the matrices: tests/internals/test_budgets.py."""
    from unlabeled.pu import RampPU, priors

    settings(max_dense_bytes=20_000)
    X, s = small_pu()
    with pytest.raises(MemoryBudgetError) as info:
        if which == "RampPU":
            RampPU(prior=0.4, inner_solver="qp").fit(X, s)
        else:
            getattr(priors, which)(max_samples=None).fit(X, s)
    message = str(info.value)
    assert isinstance(info.value, MemoryError) and isinstance(info.value, ValueError)
    assert "50 x 50" in message and "unlabeled.set_config(max_dense_bytes=...)" in message
    assert ("inner_solver='smo'" if which == "RampPU" else "lower max_samples") in message
    monkeypatch.setenv("UNLABELED_MAX_DENSE_BYTES", str(2**30))  # the override lifts it
    if which == "RampPU":
        RampPU(prior=0.4, inner_solver="qp", init="zero").fit(X, s)


@pytest.mark.parametrize("value", ["4GB", "nan", "-1", "inf"])
def test_bad_budget_environment_variable_is_an_error(monkeypatch, value):
    """A garbage UNLABELED_MAX_DENSE_BYTES was ignored in silence (a method that never read
    the budget), or made a budget that refuses everything ("nan", "-1"). The settings refuse
    it when first read, naming the variable and the value."""
    from unlabeled.pu import DoubleHingeQP

    monkeypatch.setenv("UNLABELED_MAX_DENSE_BYTES", value)
    with pytest.raises(ValueError, match=f"UNLABELED_MAX_DENSE_BYTES .* got '{value}'"):
        unlabeled.get_config()
    X, s = small_pu()
    with pytest.raises(ValueError, match="UNLABELED_MAX_DENSE_BYTES"):
        DoubleHingeQP(prior=0.4).fit(X, s)
    monkeypatch.setenv("UNLABELED_MAX_DENSE_BYTES", " 1e9 ")
    assert unlabeled.get_config()["max_dense_bytes"] == 4 * 2**30  # the setting, not the env


def test_tiny_prior_ocsvm_start_stays_small():
    """prior=1e-9 with the OCSVM start tried to allocate 7 GiB (1e-12: 7 TiB) for group sizes
    of 1/prior points; the start only ever uses n values."""
    import tracemalloc

    X, s = small_pu()
    tracemalloc.start()
    try:
        est = PUSVC(prior=1e-9, init="ocsvm", solver="usmo", n_jobs=1).fit(X, s)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 50 * 2**20 and np.all(np.isfinite(est.decision_function(X)))


def test_tice_densifying_checked_against_the_budget(settings):
    """TIcE densifies sparse input (n x n_features, twice): a file with one index of 1e8 made
    it allocate gigabytes. Refused before, with the size and the alternatives."""
    from unlabeled.pu.priors import TIcE

    X, s = small_pu()
    wide = sp.hstack([sp.csr_matrix(X), sp.csr_matrix((X.shape[0], 10**8))], format="csr")
    settings(max_dense_bytes=2**30)
    with pytest.raises(MemoryBudgetError, match=r"TIcE .* 50 x 100,000,003 .*ElkanNoto"):
        TIcE(random_state=0).fit(wide, s)
    assert 0 <= TIcE(random_state=0).fit(sp.csr_matrix(X), s).prior_ <= 1


def test_sparse_data_with_one_huge_feature_index_stays_small():
    """A 151-line svmlight file with one feature index of 1e8 took 2.5 GB: the
    engine's scatter buffer (one double per column, 800 MB) and scipy's A @ B.T (an index
    array per column of B, 400 MB) were sized by n_features. Run in a fresh process to read
    its peak memory."""
    code = """if True:
        import resource, warnings
        import numpy as np, scipy.sparse as sp
        from unlabeled import PUSVC, SVMPlus, LabeledSVM
        from unlabeled.pu import RampPU
        warnings.simplefilter("ignore")
        rng = np.random.default_rng(0)
        X = rng.normal(size=(60, 3)); s = np.r_[np.ones(10), np.zeros(50)]
        rows, cols = np.nonzero(X)
        W = sp.csr_matrix((np.r_[X[rows, cols], 1.0], (np.r_[rows, 0], np.r_[cols, 10**8 - 1])),
                          shape=(60, 10**8))
        base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        y = np.where(X[:, 0] > 0, 1, -1)
        PUSVC(prior=0.4, n_jobs=1).fit(W, s).decision_function(W)
        RampPU(prior=0.4).fit(W, s).decision_function(W)
        SVMPlus().fit(W, y, X[:, :1]).decision_function(W)
        LabeledSVM().fit(W, np.where(rng.random(60) < 0.5, -1, (y > 0).astype(int)))
        print((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base) / 1024)
    """
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert float(out.stdout.split()[-1]) < 100, out.stdout  # MB; 900 before


def test_dense_qp_under_an_address_space_limit_raises_instead_of_aborting():
    """DoubleHingeQP under a memory limit (ulimit -v) aborted the process
    ("memory allocation of 23609048 bytes failed" in Clarabel) instead of raising
    MemoryError: max_memory (4 GB) was its only bound. The memory the process may still get
    (address-space and cgroup limits included) bounds it too now."""
    pytest.importorskip("clarabel")
    code = """if True:
        import resource
        import numpy as np
        from unlabeled.pu import DoubleHingeQP
        with open("/proc/self/status") as fh:
            vm = next(int(l.split()[1]) * 1024 for l in fh if l.startswith("VmSize:"))
        rng = np.random.default_rng(0)
        X = rng.normal(size=(2000, 3)); s = (rng.random(2000) < 0.2).astype(int)
        resource.setrlimit(resource.RLIMIT_AS, (vm + 150 * 2**20, vm + 150 * 2**20))
        try:
            DoubleHingeQP(prior=0.4).fit(X, s)  # needs about 280 MB
        except MemoryError as exc:
            print("refused:", exc)
    """
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-500:]
    # (2,000 points: above 2,048 the limit on points refuses first, issue 53)
    assert "refused: DoubleHingeQP needs a dense QP for 2,000 points" in out.stdout
    assert "of memory available; use PUSVC" in out.stdout


@pytest.mark.parametrize("which", ["LapSVM", "MILWellSVM"])  # registry: each one's peak below
def test_dense_methods_follow_the_configured_budget(which):
    """LapSVM (five n x n matrices at its peak) and MILWellSVM (the n x n instance kernel and
    the q x q mixed kernel) are refused over the budget of set_config(max_dense_bytes=...),
    before the Gram matrix is made, and fit under it."""
    rng = np.random.default_rng(5)
    n = 46
    truth = np.r_[np.tile([0, 1], 3), rng.integers(0, 2, n - 6)]
    X = rng.normal(size=(n, 2)) + 1.2 * (2 * truth[:, None] - 1)
    if which == "LapSVM":
        est, y, kw, need = unlabeled.LapSVM(), np.where(np.arange(n) < 6, truth, -1), {}, 40 * n**2
    else:  # bags of two instances
        est, y, kw, need = (
            unlabeled.MILWellSVM(),
            truth[::2],
            {"groups": np.arange(n) // 2},
            8 * (n**2 + (np.sum(truth[::2]) + n - 2 * np.sum(truth[::2])) ** 2),
        )
    with unlabeled.config_context(max_dense_bytes=need - 1):
        with pytest.raises(MemoryBudgetError, match=f"{which} is a dense method"):
            est.fit(X, y, **kw)
    assert not hasattr(est, "support_")
    with unlabeled.config_context(max_dense_bytes=need):
        assert est.fit(X, y, **kw).predict(X, **kw).shape == y.shape


def test_lapsvm_budget_counts_its_peak():
    """LapSVM's peak is five n x n matrices (40 n^2 bytes), not three."""
    X, y, _ = few_labels(n=60)
    with unlabeled.config_context(max_dense_bytes=40 * 60**2 - 1):
        with pytest.raises(MemoryBudgetError, match=r"LapSVM is a dense method.*max_dense_bytes"):
            LapSVM().fit(X, y)
    with unlabeled.config_context(max_dense_bytes=40 * 60**2):
        LapSVM().fit(X, y)


def test_milwellsvm_budget_counts_both_kernels():
    """The q x q mixed kernel was not counted: a budget between the two counts let the fit
    run (and on a machine without the memory, fail with a raw MemoryError after the work)."""
    bags, y = shifted_bags(n_bags=10)
    n = 30
    q = 5 + 15  # one variable per positive bag, one per negative instance
    with unlabeled.config_context(max_dense_bytes=8 * (n**2 + q**2) - 1):
        with pytest.raises(MemoryBudgetError, match=r"30 x 30 instance kernel and a 20 x 20"):
            MILWellSVM().fit(bags, y)
    with unlabeled.config_context(max_dense_bytes=8 * (n**2 + q**2)):
        MILWellSVM().fit(bags, y)


def _huge_sparse(d, n=30, seed=0):
    rng = np.random.default_rng(seed)
    cols = rng.integers(0, 4, n).astype(np.int64)
    cols[0] = d - 1
    return sp.csr_matrix((rng.normal(size=n) + 3, (np.arange(n), cols)), shape=(n, d))


@pytest.mark.parametrize("which", [c.__name__ for c in registered(is_kernel_machine)])
def test_huge_sparse_feature_index_is_refused_before_the_work(which):
    """A CSR matrix declaring 2**31 - 2 columns: the linear paths allocated dense vectors of
    that length (bad_alloc, or the OS killing the process); now MemoryBudgetError naming the
    budget. Run in a process with an address-space limit, so that a regression fails rather
    than exhausting the machine."""
    code = textwrap.dedent(f"""
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (4 * 2**30, 4 * 2**30))
        import numpy as np, scipy.sparse as sp
        from unlabeled.exceptions import MemoryBudgetError
        from unlabeled.registry import FAMILIES, all_estimators
        e = next(e for e in all_estimators(load=True) if e.name == "{which}")
        rng = np.random.default_rng(0)
        n, d = 30, 2**31 - 2
        cols = rng.integers(0, 4, n).astype(np.int64); cols[0] = d - 1
        X = sp.csr_matrix((rng.normal(size=n) + 3, (np.arange(n), cols)), shape=(n, d))
        y = np.full(n, -1); y[:3] = 0; y[3:6] = 1
        ids = np.arange(n) // 3
        family = FAMILIES[e.family]  # fit's arguments, as the family declares them
        classes = ids % 2 if family.keywords else 2 * (ids % 2) - 1
        labels = {{"ssl": y, "pu": (y == 1).astype(int)}}.get(family.labels, classes)
        data = {{"X": X, "s": labels, "y": labels, "X_star": np.ones((n, 1)), "groups": ids}}
        args, kw = family.arguments(data)
        names = e.load()._get_param_names()
        params = {{k: v for k, v in (("kernel", "linear"), ("cache_size", 0.001), ("prior", 0.4))
                  if k in names}}
        try:
            e.load()(**params).fit(*args, **kw)
        except MemoryBudgetError as exc:
            print("refused:", exc)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-800:]
    assert "refused:" in out.stdout and "2,147,483,646" in out.stdout, out.stdout
    assert "unlabeled.set_config(max_dense_bytes=...)" in out.stdout


def test_linear_solver_checks_its_weight_vectors():
    """Past the fit's first check, each product with T label vectors (WellSVMClustering's
    alignment start scores n_init of them at once: d x n_init dense) is checked too."""
    X = _huge_sparse(2**20)
    with unlabeled.config_context(max_dense_bytes=8 * 2**20 * 5):
        with pytest.raises(MemoryBudgetError, match=r"20 dense weight vector\(s\)"):
            WellSVMClustering(kernel="linear", cache_size=0.001, n_init=20, init="alignment").fit(X)


@pytest.mark.parametrize(
    "entry",
    [e for e in all_estimators(load=True) if declares(e.load(), "cache_size")],
    ids=lambda e: e.name,
)
def test_cache_size_is_bounded(entry):
    with pytest.raises(InvalidParameterError, match=r"cache_size must be <= 1000000.0"):
        est = entry.load()(**{**entry.cases[0].params, "cache_size": 1e300})
        est.fit(*fit_args(entry, entry.cases[0]))


def _unreachable_tol_fits():
    X, y, _ = few_labels(n=60)
    bags, yb = shifted_bags(n_bags=40, shift=1.0)
    return [  # registry: a tolerance none reaches, per estimator
        ("TSVM", lambda: TSVM(kernel="linear", cache_size=0.001, tol=1e-300).fit(X, y)),
        (
            "WellSVM",
            lambda: WellSVM(init="alignment", tol=1e-300, random_state=0, loss="hinge").fit(X, y),
        ),
        ("miSVM", lambda: miSVM(tol=1e-300).fit(bags, yb)),
        ("MISVM", lambda: MISVM(tol=1e-300).fit(bags, yb)),
        ("WellSVMClustering", lambda: WellSVMClustering(tol=1e-300, random_state=0).fit(X)),
        ("MILWellSVM", lambda: MILWellSVM(tol=1e-300).fit(bags, yb)),
    ]


@pytest.mark.parametrize("index", range(6))
def test_unreachable_tolerance_stops_at_the_work_cap(index):
    """tol=1e-300 made every SVM solve run to its cap on steps, and the loops around them
    (up to 1000 TSVM solves, 50 x 100 MKL solves) ran each one: minutes to hours. The fit now
    stops after a few capped solves, with a ConvergenceWarning that names tol (the per-solve
    cap lowered here, so that the test is fast)."""
    from sklearn.exceptions import ConvergenceWarning

    name, fit = _unreachable_tol_fits()[index]
    with unlabeled.config_context(min_default_max_iter=2000):
        with pytest.warns(
            ConvergenceWarning, match=rf"{name} stopped early: 3 SVM solves .*tol=1e-300"
        ):
            est = fit()
    assert est.n_iter_ <= 4
