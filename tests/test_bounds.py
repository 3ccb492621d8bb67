"""Bounds across estimators: ``max_time`` obeyed by every estimator that has it, and data
with 2^30 sparse columns and a few non-zeros fitted without any allocation proportional to
the width (the widths' checks of the linear kernel are in test_limits.py)."""

import inspect
import json
import subprocess
import sys
import warnings

import numpy as np
import pytest
from conftest import is_kernel_machine, registered, time_limit
from sklearn.exceptions import ConvergenceWarning

import unlabeled
from unlabeled.registry import all_estimators


def _public_estimators():
    """The registered estimator classes (unlabeled.registry), by name."""
    return {e.name: e.load() for e in all_estimators(load=True)}


# ------------------------------------------------------------------------------ max_time
def _fit_clustering(est):
    # 30,000 points: the kernel rows do not fit the cache, so each pass over them (the
    # spectral start's products, an alignment candidate) costs n^2 kernel values; before
    # max_time bounded the start, its ARPACK products alone ran for minutes here
    X = np.random.default_rng(0).normal(size=(30_000, 5))
    with pytest.warns(ConvergenceWarning, match=r"stopped at max_time=0\.2 s"):
        est.fit(X)
    assert est.stop_reason_ == "max_time" and est.n_iter_ == 1
    np.testing.assert_array_equal(est.predict(X), est.labels_)
    assert np.any(est.dual_coef_ != 0)  # the first solve made steps: not an empty model


#: how each estimator with a max_time parameter is fitted (on a moderately sized problem,
#: max_time=0.2) and what says it stopped
MAX_TIME_FITS = {"WellSVMClustering": _fit_clustering}


def test_every_estimator_with_max_time_is_checked():
    has = {
        n for n, c in _public_estimators().items() if "max_time" in inspect.signature(c).parameters
    }
    assert has == set(MAX_TIME_FITS)


@pytest.mark.parametrize("name", sorted(MAX_TIME_FITS))
def test_max_time_is_obeyed(name):
    """WellSVMClustering at 60,000 rows gave no result in 400 s with max_time=60: its
    spectral start (ARPACK on products of n^2 kernel values each) and its first SVM solve
    ignored the clock. The start's passes are estimated first and skipped when they would end
    after half the time left, the solves stop at the deadline (measured at 60,000 x 10,
    max_time=5: 10 s for the whole fit). The guard below is a hang guard, not a timing."""
    est = _public_estimators()[name](max_time=0.2, random_state=0)
    with time_limit(120, f"{name}(max_time=0.2)"):
        MAX_TIME_FITS[name](est)


# ------------------------------------------------------------------- 2^30 sparse columns
_WIDE = """if True:
    import json, resource, warnings
    import numpy as np, scipy.sparse as sp
    from unlabeled.base import KernelMachine
    from unlabeled.registry import FAMILIES, all_estimators
    warnings.simplefilter("ignore")
    # a 4 GiB allocation fails here (a raw MemoryError) instead of being made lazily: LapSVM's
    # neighbours made scipy hold an index per column (4 GiB) under a limit of 6 GiB
    resource.setrlimit(resource.RLIMIT_AS, (3 * 2**30, 3 * 2**30))
    rng = np.random.default_rng(0)
    n, D = 40, 2**30
    Xd = rng.normal(size=(n, 3))
    rows, cols = np.nonzero(Xd)
    X = sp.csr_matrix((np.r_[Xd[rows, cols], 1.0], (np.r_[rows, 0], np.r_[cols, D - 1])),
                      shape=(n, D))
    y = np.where(Xd[:, 0] > 0, 1, 0)
    ys = np.where(np.arange(n) < 10, y, -1)
    ys[:4] = [0, 1, 0, 1]
    s = (np.arange(n) < 8).astype(int)
    groups, yb = np.arange(n) // 4, np.array([1, 0] * 5)
    # fit's arguments and decision_function's keywords, as each family declares them
    data = {"X": X, "s": s, "X_star": Xd[:, :1], "groups": groups}
    out = {}
    for e in all_estimators(load=True):
        cls = e.load()
        if not issubclass(cls, KernelMachine):
            continue
        names = cls._get_param_names()
        params = {k: v for k, v in (("prior", 0.4), ("random_state", 0)) if k in names}
        if cls().get_params().get("kernel") == "linear":  # a dense w of 2^30: refused by design
            params["kernel"] = "rbf"
        family = FAMILIES[e.family]
        labels = {"pu": s, "ssl": ys}.get(family.labels, yb if family.keywords else 2 * y - 1)
        args, kw = family.arguments({**data, "y": labels})
        try:
            est = cls(**params).fit(*args, **kw)
            f = est.decision_function(X, **kw)
            out[e.name] = "ok" if np.all(np.isfinite(f)) else "not finite"
        except Exception as exc:
            out[e.name] = f"{type(exc).__name__}: {exc}"
    print(json.dumps(out))
"""

#: every kernel machine: the estimators that read only the columns in use
WIDE_ESTIMATORS = [c.__name__ for c in registered(is_kernel_machine)]


@pytest.fixture(scope="module")
def wide_results():
    """Every kernel estimator fitted on 40 rows of 2^30 columns (4 non-zeros a row) in one
    fresh process with a 3 GiB address-space limit."""
    pytest.importorskip("clarabel")
    out = subprocess.run([sys.executable, "-c", _WIDE], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.splitlines()[-1])


@pytest.mark.parametrize("name", WIDE_ESTIMATORS)
def test_two_to_the_30_sparse_columns(wide_results, name):
    """MISVM's centroids (a sparse product with one index per column: std::bad_alloc) and
    WellSVMClustering's gamma="mean" (a dense row of 2^30 doubles: a raw 8 GiB MemoryError)
    were sized by n_features; the rbf kernel reads only the columns in use."""
    assert wide_results[name] == "ok"


def test_wide_sparse_results_match_the_narrow_data():
    """Empty columns change nothing: MISVM and WellSVMClustering on the 2^30-wide copy of a
    small sparse data set give the model of the narrow one, to the bit (with a gamma that
    does not depend on the width: "scale" does)."""
    import scipy.sparse as sp

    rng = np.random.default_rng(1)
    Xd = sp.csr_matrix(rng.normal(size=(40, 3)))
    wide = sp.hstack([Xd, sp.csr_matrix((40, 2**30 - 3))], format="csr")
    groups, yb = np.arange(40) // 4, np.array([1, 0] * 5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        a, b = (
            unlabeled.MISVM(gamma=0.5).fit(Z, yb, groups=groups).decision_function(Z, groups=groups)
            for Z in (wide, Xd)
        )
        np.testing.assert_array_equal(a, b)
        c = unlabeled.WellSVMClustering(random_state=0).fit(wide).labels_
        d = unlabeled.WellSVMClustering(random_state=0).fit(Xd).labels_
    np.testing.assert_array_equal(c, d)
