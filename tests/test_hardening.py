"""Hardening (issue 17): untrusted model files, transactional fits, safe output files, bounded
parameters and clear errors. Each test crafts the bad input of one finding and checks that it
is refused with a clear error (or handled) instead of crashing, hanging or corrupting state."""

import io
import os
import subprocess
import sys
import warnings
import zipfile
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import make_pu, time_limit
from sklearn.exceptions import ConvergenceWarning

import unlabeled
from unlabeled import PUSVC
from unlabeled._model_io import ModelFileError, load_model, model_bytes, save_model

SRC = Path(unlabeled.__file__).resolve().parents[1]


# ---------------------------------------------------------------------- 1. model files
@pytest.fixture(scope="module")
def sparse_model():
    X, s, _ = make_pu(0, n=40, d=4, p=10)
    X = sp.csr_matrix(np.where(np.abs(X) > 0.5, X, 0.0))
    est = PUSVC(prior=0.4, lam=0.05, gamma=0.5, n_jobs=1).fit(X, s)
    return est, X


def _tampered(est, tmp_path, name, change):
    """A model file whose estimator was changed by ``change(estimator)`` before saving."""
    import copy

    bad = copy.deepcopy(est)
    change(bad)
    path = tmp_path / f"{name}.skops"
    path.write_bytes(model_bytes(bad, {"data": {}}))
    return path


def _set_indices(value):
    def change(e):
        e.support_vectors_.indices[:] = value

    return change


def _csr_shape(e):  # a CSR matrix with more columns than the model's features
    sv = e.support_vectors_
    e.support_vectors_ = sp.csr_matrix((sv.data, sv.indices, sv.indptr), shape=(sv.shape[0], 99))


def _bad_indptr(e):  # not monotone; its first and last values pass scipy's light check
    e.support_vectors_.indptr[1] = e.support_vectors_.indptr[-1]


def _setter(name, value):
    return lambda e: setattr(e, name, value(e) if callable(value) else value)


TAMPERED = [
    ("indices_huge", _set_indices(10**9), "support_vectors_"),
    ("indices_negative", _set_indices(-(10**9)), "support_vectors_"),
    ("indptr", _bad_indptr, "support_vectors_"),
    ("csr_shape", _csr_shape, "support_vectors_"),
    ("n_features", _setter("n_features_in_", 7), "n_features_in_"),
    ("nan_coef", _setter("dual_coef_", lambda e: np.full_like(e.dual_coef_, np.nan)), "NaN"),
    ("coef_shape", _setter("dual_coef_", lambda e: e.dual_coef_[:, :2]), "dual_coef_"),
    ("support_range", _setter("support_", lambda e: e.support_ + 10**6), "support_"),
    ("intercept_inf", _setter("intercept_", np.array([np.inf])), "intercept_"),
    (
        "dense_sv",
        _setter("support_vectors_", lambda e: e.support_vectors_.toarray()[:, :2]),
        "shape",
    ),
    ("degree", _setter("degree", -5), "degree"),
    ("kernel", _setter("kernel", "sigmoid"), "kernel"),
    ("gamma", _setter("_gamma", float("nan")), "_gamma"),
    ("prior", _setter("prior_", 3.0), "prior_"),
    ("unknown_attribute", _setter("payload", "x" * 10), "unexpected attributes"),
    ("n_features_type", _setter("n_features_in_", "4"), "n_features_in_"),
    ("feature_names", _setter("feature_names_in_", np.array(["a"], dtype=object)), "names"),
    ("shape_fit", _setter("shape_fit_", (50, 9)), "shape_fit_"),
]


@pytest.mark.parametrize("name, change, phrase", TAMPERED, ids=[t[0] for t in TAMPERED])
def test_crafted_model_refused(sparse_model, tmp_path, name, change, phrase):
    est, X = sparse_model
    path = _tampered(est, tmp_path, name, change)
    with pytest.raises(ModelFileError, match="not a valid model") as info:
        load_model(path)
    assert phrase in str(info.value)


def test_untampered_model_loads(sparse_model, tmp_path):
    est, X = sparse_model
    path = tmp_path / "ok.skops"
    save_model(est, path, {"data": {}})
    loaded, _ = load_model(path)
    np.testing.assert_array_equal(loaded.decision_function(X), est.decision_function(X))


def test_crafted_indices_do_not_crash_predict(sparse_model, tmp_path):
    """The finding itself: out-of-range column indices crashed ``predict`` (SIGSEGV)."""
    est, X = sparse_model
    model = _tampered(est, tmp_path, "m", _set_indices(10**9))
    data = tmp_path / "x.svm"
    from sklearn.datasets import dump_svmlight_file

    dump_svmlight_file(X, np.zeros(X.shape[0]), str(data))
    proc = subprocess.run(
        [sys.executable, "-m", "unlabeled", "predict", str(model), str(data)],
        capture_output=True,
        text=True,
        # a sanitizer build (tools/sanitize.sh) needs its runtime preloaded in the child too
        env={"PYTHONPATH": str(SRC), "PATH": "/usr/bin:/bin"}
        | {
            k: v
            for k, v in os.environ.items()
            if k in ("LD_PRELOAD", "ASAN_OPTIONS", "UBSAN_OPTIONS")
        },
        timeout=120,
    )
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr.startswith("unlabeled: error: ") and "support_vectors_" in proc.stderr


def _with_members(model: bytes, members: dict) -> bytes:
    buf = io.BytesIO(model)
    with zipfile.ZipFile(buf, "a", compression=zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return buf.getvalue()


def test_zip_bomb_refused_before_reading(sparse_model, tmp_path, monkeypatch):
    """A member that inflates far beyond the limit is refused from the zip directory alone:
    the check does not decompress anything (zipfile.ZipFile.read is never called)."""
    est, _ = sparse_model
    bomb = tmp_path / "bomb.skops"
    bomb.write_bytes(_with_members(model_bytes(est, {}), {"zeros.bin": b"\0" * 3_000_000}))
    assert bomb.stat().st_size < 100_000
    monkeypatch.setenv("UNLABELED_MAX_MODEL_BYTES", "2000000")
    read = []
    monkeypatch.setattr(zipfile.ZipFile, "read", lambda *a, **k: read.append(a) or b"")
    with pytest.raises(ModelFileError, match="decompress to .* more than the limit"):
        load_model(bomb)
    assert read == []


def test_too_many_members_refused(sparse_model, tmp_path):
    est, _ = sparse_model
    path = tmp_path / "many.skops"
    path.write_bytes(_with_members(model_bytes(est, {}), {f"m{i}": b"" for i in range(1001)}))
    with pytest.raises(ModelFileError, match="1012 zip members|zip members"):
        load_model(path)


# ---------------------------------------------------------------------- 7. transactional fit
def _pu_data(d=3):
    X, s, _ = make_pu(1, n=40, d=d, p=10)
    return X, s


def test_failed_fit_leaves_estimator_unfitted():
    from sklearn.exceptions import NotFittedError

    X, s = _pu_data()
    est = PUSVC(prior=0.4, n_jobs=1)
    with pytest.raises(ValueError, match="no labeled positive"):
        est.fit(X, np.zeros_like(s))  # the labels are checked after X (n_features_in_ set)
    assert not hasattr(est, "n_features_in_")
    with pytest.raises(NotFittedError):
        est.predict(X)


@pytest.mark.parametrize("exc", [KeyboardInterrupt, RuntimeError])
def test_interrupted_fit_restores_previous_model(monkeypatch, exc):
    X, s = _pu_data()
    est = PUSVC(prior=0.4, lam=0.05, n_jobs=1).fit(X, s)
    before = est.decision_function(X)
    state = {k: v for k, v in vars(est).items()}

    def interrupted(self, X, mask, params):
        self.support_ = None  # a half-written model
        raise exc("interrupted")

    monkeypatch.setattr(PUSVC, "_fit", interrupted)
    X5, _ = _pu_data(d=5)
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
    from unlabeled._kernel_machine import KernelMachine

    def subclasses(cls):
        for sub in cls.__subclasses__():
            yield sub
            yield from subclasses(sub)

    found = [c for c in subclasses(KernelMachine) if "fit" in c.__dict__]
    assert {c.__name__ for c in found} >= {"PUSVC", "SVMPlus", "KernelPUModel"}
    assert all(getattr(c.__dict__["fit"], "_transactional", False) for c in found)


# ---------------------------------------------------------------------- 8. output files
@pytest.fixture(scope="module")
def cli_data(tmp_path_factory):
    d = tmp_path_factory.mktemp("cli")
    X, s, _ = make_pu(2, n=40, d=3, p=10)
    np.savetxt(d / "train.csv", np.c_[X, s], delimiter=",", fmt="%.6f")
    return d


def _cli(argv, capsys):
    from unlabeled.cli import main

    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


FIT = ["--prior", "0.4", "--n-jobs", "1", "-q"]


def test_refit_keeps_file_mode(cli_data, tmp_path, capsys):
    model = tmp_path / "m.skops"
    assert _cli(["fit", cli_data / "train.csv", "-o", model, *FIT], capsys)[0] == 0
    model.chmod(0o600)
    assert _cli(["fit", cli_data / "train.csv", "-o", model, *FIT], capsys)[0] == 0
    assert (model.stat().st_mode & 0o777) == 0o600


def _fail_before_fit(monkeypatch):
    """Make any fit fail loudly: the checks under test must come before it."""
    from unlabeled import PUSVC as cls

    def no_fit(*a, **k):
        raise AssertionError("the fit ran before the output was checked")

    monkeypatch.setattr(cls, "fit", no_fit)


@pytest.mark.parametrize("kind", ["symlink", "fifo", "directory", "trailing_slash", "input"])
def test_fit_refuses_bad_outputs(cli_data, tmp_path, capsys, monkeypatch, kind):
    import os

    target = tmp_path / "target.skops"
    target.write_text("keep me")
    out = {
        "symlink": tmp_path / "link.skops",
        "fifo": tmp_path / "fifo",
        "directory": tmp_path / "dir",
        "trailing_slash": f"{tmp_path / 'new'}/",
        "input": cli_data / "train.csv",
    }[kind]
    if kind == "symlink":
        os.symlink(target, out)
    elif kind == "fifo":
        os.mkfifo(out)
    elif kind == "directory":
        out.mkdir()
    _fail_before_fit(monkeypatch)
    code, stdout, err = _cli(["fit", cli_data / "train.csv", "-o", out, *FIT], capsys)
    assert code == 2 and stdout == "" and len(err.strip().splitlines()) == 1, err
    phrase = {"symlink": "symbolic link", "fifo": "not a regular file", "input": "an input"}
    assert phrase.get(kind, "directory") in err
    assert target.read_text() == "keep me"
    assert not (tmp_path / "new").exists()
    if kind == "symlink":
        assert Path(out).is_symlink()
    if kind == "fifo":
        import stat

        assert stat.S_ISFIFO(os.lstat(out).st_mode)


def test_dev_null_is_not_replaced(cli_data, capsys, monkeypatch):
    """As root, os.replace would turn /dev/null into a regular file: refused up front."""
    _fail_before_fit(monkeypatch)
    code, _, err = _cli(["fit", cli_data / "train.csv", "-o", "/dev/null", *FIT], capsys)
    assert code == 2 and "not a regular file" in err
    import stat

    assert stat.S_ISCHR(Path("/dev/null").stat().st_mode)


def test_predict_refuses_to_overwrite_its_input(cli_data, tmp_path, capsys):
    model = tmp_path / "m.skops"
    assert _cli(["fit", cli_data / "train.csv", "-o", model, *FIT], capsys)[0] == 0
    data = tmp_path / "x.csv"
    data.write_bytes((cli_data / "train.csv").read_bytes())
    os_link = tmp_path / "hard.csv"
    os_link.hardlink_to(data)
    for out in (data, os_link, model):
        before = data.read_bytes(), model.read_bytes()
        code, _, err = _cli(["predict", model, data, "-o", out], capsys)
        assert code == 2 and "an input" in err, err
        assert (data.read_bytes(), model.read_bytes()) == before


def test_unwritable_folder_refused_before_fit(cli_data, tmp_path, capsys, monkeypatch):
    import os

    locked = tmp_path / "locked"
    locked.mkdir()
    real_access = os.access
    monkeypatch.setattr(
        os, "access", lambda p, m: False if Path(p) == locked else real_access(p, m)
    )
    _fail_before_fit(monkeypatch)
    code, _, err = _cli(["fit", cli_data / "train.csv", "-o", locked / "m.skops", *FIT], capsys)
    assert code == 1 and "is not writable" in err and "m.skops" in err


def test_write_error_names_the_target_not_the_temporary_file(tmp_path, monkeypatch):
    import tempfile

    from unlabeled._model_io import write_atomic

    def denied(*a, **k):
        raise PermissionError(13, "Permission denied", str(tmp_path / ".m.skops.abc.tmp"))

    monkeypatch.setattr(tempfile, "mkstemp", denied)
    with pytest.raises(ModelFileError) as info:
        write_atomic(tmp_path / "m.skops", b"x")
    assert "m.skops" in str(info.value) and ".tmp" not in str(info.value)


# ---------------------------------------------------------------------- 6. threads and cache
def test_own_busy_threads_are_not_other_load():
    """n_jobs=None leaves out the cores that other processes keep busy; this process's own
    running threads (BLAS workers still spinning after a product) must not count as such."""
    import threading

    from unlabeled._shared import _own_running_threads

    stop = threading.Event()

    def spin():
        while not stop.is_set():
            sum(range(1000))

    worker = threading.Thread(target=spin)
    worker.start()
    seen = set()
    try:
        for _ in range(500):  # the reader, and at times the spinning thread
            seen.add(_own_running_threads())
            if max(seen) >= 2:
                break
    finally:
        stop.set()
        worker.join()
    assert min(seen) >= 1 and max(seen) >= 2


def test_n_jobs_clipped_to_available_cores(monkeypatch):
    from unlabeled._engine import KernelSpec
    from unlabeled._shared import available_cores, engine_threads
    from unlabeled.pu import _pusvc

    cores = available_cores()
    assert engine_threads(100_000) == cores and engine_threads(1) == 1
    assert engine_threads(-1) == cores and 1 <= engine_threads(None) <= cores
    seen = []

    def spy(*a, **k):
        seen.append(k["n_jobs"])
        return KernelSpec(*a, **k)

    monkeypatch.setattr(_pusvc._engine, "KernelSpec", spy)
    X, s = _pu_data()
    many = PUSVC(prior=0.4, n_jobs=100_000).fit(X, s)
    one = PUSVC(prior=0.4, n_jobs=1).fit(X, s)
    assert seen[0] == cores and seen[-1] == 1
    np.testing.assert_allclose(many.decision_function(X), one.decision_function(X), atol=1e-9)


# ---------------------------------------------------------------------- 9. bounded parameters
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
    from unlabeled._validation import InvalidParameterError

    est = make(**params) if make is _svmplus else make(prior=0.4, **params)
    X, s = _pu_data()
    with pytest.raises(InvalidParameterError) as info:
        est.fit(X, s, X[:, :1]) if make is _svmplus else est.fit(X, s)
    assert phrase in str(info.value)
    assert "incompatible function arguments" not in str(info.value)


def test_largest_cache_accepted():
    X, s = _pu_data()
    PUSVC(prior=0.4, cache_size=1e6, n_jobs=1).fit(X, s)  # a bound, not an allocation


@pytest.mark.parametrize("n_jobs, phrase", [(1.5, "integer"), (0, "non-zero"), (2**40, "<=")])
def test_search_n_jobs_checked(n_jobs, phrase):
    from unlabeled.model_selection import PUGridSearchCV

    X, s = _pu_data()
    search = PUGridSearchCV(PUSVC(prior=0.4), {"lam": [0.1]}, cv=2, n_jobs=n_jobs)
    with pytest.raises((TypeError, ValueError), match=phrase):
        search.fit(X, s)


# ---------------------------------------------------------------------- 9. files and options
def test_empty_svmlight_file_refused(tmp_path):
    from unlabeled.datasets import load_svmlight

    for text in ("", "# only a comment\n"):
        path = tmp_path / "empty.svm"
        path.write_text(text)
        with pytest.raises(ValueError, match="holds no data line"):
            load_svmlight(path)


def test_csv_with_byte_order_mark(tmp_path):
    """Spreadsheet programs start UTF-8 CSV files with a byte-order mark: it is not data."""
    from unlabeled.datasets import load_csv

    rows = "1.5,2,1\n3,4,0\n5,6,0\n"
    plain, bom = tmp_path / "plain.csv", tmp_path / "bom.csv"
    plain.write_text(rows)
    bom.write_bytes(b"\xef\xbb\xbf" + rows.encode())
    X, y = load_csv(bom)
    X0, y0 = load_csv(plain)
    np.testing.assert_array_equal(X, X0)
    np.testing.assert_array_equal(y, y0)
    named = tmp_path / "named.csv"
    named.write_bytes(b"\xef\xbb\xbfs,a,b\n" + b"1,1.5,2\n0,3,4\n")
    X, y = load_csv(named, label_column="s")  # the first column's name is "s", not "\ufeffs"
    np.testing.assert_array_equal(y, [1, 0])


@pytest.mark.parametrize("kind, phrase", [("dir", "is a directory"), ("fifo", "FIFO")])
def test_data_path_that_is_not_a_file(tmp_path, capsys, kind, phrase):
    import os

    from unlabeled.datasets import load_csv

    path = tmp_path / "data.csv"
    path.mkdir() if kind == "dir" else os.mkfifo(path)
    with pytest.raises(ValueError, match=phrase):
        load_csv(path)  # never opened: a FIFO would block
    code, _, err = _cli(["fit", path, "-o", tmp_path / "m.skops", *FIT], capsys)
    assert code == 1 and phrase in err and "not found" not in err


LATE_OPTIONS = [
    ["--degree", "-1", "--kernel", "poly"],
    ["--degree", "2147483648", "--kernel", "poly"],
    ["--coef0", "nan"],
    ["--coef0", "inf"],
    ["--max-iter", "0"],
    ["--max-iter", "9223372036854775808"],
    ["--n-jobs", "0"],
    ["--n-jobs", "-2"],
    ["--cv", "1", "--search"],
    ["--delimiter", ""],
    ["--random-state", "-1"],
]


@pytest.mark.parametrize("option", LATE_OPTIONS, ids=lambda o: " ".join(o[:2]))
def test_option_values_checked_by_the_parser(cli_data, tmp_path, capsys, monkeypatch, option):
    _fail_before_fit(monkeypatch)
    out = tmp_path / "m.skops"
    code, stdout, err = _cli(["fit", cli_data / "train.csv", "-o", out, *FIT, *option], capsys)
    assert code == 2 and stdout == "" and not out.exists()
    assert len(err.strip().splitlines()) == 1 and f"argument {option[0]}" in err, err


# ---------------------------------------------------------------------- 4. default iteration caps
HANGS = [  # each ran past 60 s on 100 points before the default cap (0.01 s normally;
    # lam=1e-50 hung too, now below the documented range of lam)
    ("PUSVC", {"kernel": "linear"}, 1e18),
    ("PUSVC", {"lam": 1e-30}, 1.0),
    ("PUSVC", {"lam": 1e-30, "solver": "usmo"}, 1.0),
    ("PUSVC", {"kernel": "poly", "gamma": 1e4}, 1.0),
    ("SVMPlus", {"tol": 1e-300}, 1.0),
    ("SVMPlus", {"gamma_plus": 1e-12}, 1.0),
    # the rest of the list (audit)
    ("PUSVC", {"tol": 1e-300, "solver": "usmo"}, 1.0),
    ("PUSVC", {"kernel": "poly", "degree": 50, "coef0": 10.0}, 1.0),
    ("SVMPlus", {"tol": 1e-300, "solver": "gsmo"}, 1.0),
]


@pytest.mark.parametrize("name, params, scale", HANGS, ids=[f"{h[0]}-{h[1]}" for h in HANGS])
def test_default_iteration_cap_stops_pathological_fits(monkeypatch, name, params, scale):
    """``max_iter=None`` means LIBSVM's cap max(10^7, 100 n), not "unlimited": a fit that
    cannot converge stops there with a warning naming the estimator, the cap and the
    parameter. The cap's floor is lowered here to keep the test fast; the formula is the
    same (100 n or 1000 n per step kind above it)."""
    from sklearn.exceptions import ConvergenceWarning

    from unlabeled import SVMPlus, _shared

    monkeypatch.setattr(_shared, "MIN_DEFAULT_MAX_ITER", 20_000)
    X, s, _ = make_pu(0, n=80, d=3, p=20)
    X = X * scale
    with pytest.warns(ConvergenceWarning) as record:
        if name == "PUSVC":
            est = PUSVC(prior=0.4, n_jobs=1, random_state=0, **params).fit(X, s)
        else:
            est = SVMPlus(**params).fit(X, s, X[:, :1])
    n = X.shape[0]  # 100: 20 labeled positives and 80 unlabeled points
    cap = _shared.default_max_iter(n, params.get("kernel") == "linear")
    assert cap == (100_000 if params.get("kernel") == "linear" else 20_000)
    message = str(record[0].message)
    assert message.startswith(name) and est.n_iter_ <= cap
    if est.n_iter_ < cap:  # a solver that detects a stall (USMO, SVM+) may stop earlier
        assert "stalled" in message
    else:
        assert f"after {cap} " in message and "default cap for max_iter=None" in message
        assert "larger max_iter" in message


def test_default_cap_formula():
    from unlabeled._shared import default_max_iter, resolve_max_iter

    assert default_max_iter(10) == 10**7 and default_max_iter(10**6) == 10**8
    assert default_max_iter(10**5, linear=True) == 10**8
    assert resolve_max_iter(None, 10) == 10**7 and resolve_max_iter(-1, 10) == 10**7
    assert resolve_max_iter(5, 10**6) == 5


def test_default_cap_leaves_normal_fits_unchanged():
    """On a normal problem the cap is never reached: the same solution as a huge explicit cap."""
    X, s, _ = make_pu(3, n=120, d=3, p=20)
    for kernel in ("rbf", "linear"):
        a = PUSVC(prior=0.4, kernel=kernel, n_jobs=1).fit(X, s)
        b = PUSVC(prior=0.4, kernel=kernel, n_jobs=1, max_iter=2**31 - 1).fit(X, s)
        np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))
        assert a.n_iter_ == b.n_iter_ < 10**5


# ---------------------------------------------------------------------- 5. numerical preflight
PREFLIGHT = [  # each fit succeeded before, with every prediction 0 or a wrong objective_
    ({}, 1e200, "too large in scale for the rbf kernel"),
    ({"kernel": "linear"}, 1e160, "too large in scale for the linear kernel"),
    ({"kernel": "poly"}, 1e160, "too large in scale for the poly kernel"),
    ({"kernel": "rbf", "gamma": 1e300}, 1.0, r"gamma=1e\+300 is so large .* rounding errors"),
    ({"kernel": "poly", "coef0": 1e300}, 1.0, "Reduce gamma, coef0 or degree"),
    ({"kernel": "poly", "gamma": 1e40}, 1.0, "the poly kernel overflows"),
]


@pytest.mark.parametrize("params, scale, phrase", PREFLIGHT)
def test_kernel_overflow_refused_before_the_solve(monkeypatch, params, scale, phrase):
    from unlabeled.pu import _pusvc

    monkeypatch.setattr(_pusvc._engine, "solve_pu", None)  # the check comes before any solve
    X, s = _pu_data()
    with pytest.raises(ValueError, match=phrase):
        PUSVC(prior=0.4, n_jobs=1, **params).fit(X * scale, s)


def test_preflight_in_every_kernel_machine():
    """The same check in the ssl estimators and SVM+ (on X and on X_star)."""
    from unlabeled import TSVM, SVMPlus, WellSVM

    X, s = _pu_data()
    y_ssl = np.where(np.arange(len(s)) % 2 == 0, -1, (np.arange(len(s)) // 2) % 2)
    for est in (TSVM(), WellSVM()):
        with pytest.raises(ValueError, match="too large in scale"):
            est.fit(X * 1e200, y_ssl)
    with pytest.raises(ValueError, match="too large in scale"):
        SVMPlus().fit(X, s, X[:, :1] * 1e200)


def test_gamma_scale_refuses_identical_points():
    """Three identical points: X.var() = 4.9e-32 (rounding), gamma='scale' was 2e31 and
    objective_ 0.025 where the model's objective is 3.2e15."""
    X = np.full((3, 2), 0.1)
    assert 0 < X.var() < 1e-30
    s = np.array([1, 0, 0])
    for Xi in (X, np.zeros((3, 2)), sp.csr_matrix(X)):
        with pytest.raises(ValueError, match=r"gamma='scale' .* \(numerically\) zero"):
            PUSVC(prior=0.4).fit(Xi, s)
    est = PUSVC(prior=0.4, gamma=1.0).fit(X, s)  # a number is the documented way out
    assert np.all(np.isfinite(est.decision_function(X)))
    PUSVC(prior=0.4, kernel="linear").fit(X, s)  # gamma plays no role: accepted


def test_duplicated_points_and_constant_features_are_fine():
    """Documented behaviour: duplicated rows and constant columns are valid data. The PU risk
    averages over points, so duplicating every point leaves the risk, and so the minimiser,
    unchanged: the fits must agree."""
    X, s = _pu_data()
    X = np.c_[X, np.full(len(X), 3.0)]  # a constant feature
    a = PUSVC(prior=0.4, lam=0.1, gamma=0.5, tol=1e-8, n_jobs=1).fit(X, s)
    b = PUSVC(prior=0.4, lam=0.1, gamma=0.5, tol=1e-8, n_jobs=1).fit(np.r_[X, X], np.r_[s, s])
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(X), atol=1e-5)


def test_precomputed_gram_scale_checked():
    X, s = _pu_data()
    K = X @ X.T
    with pytest.raises(ValueError, match="X, the precomputed Gram matrix, has diagonal values"):
        PUSVC(prior=0.4, kernel="precomputed").fit(K * 1e200, s)


# ---------------------------------------------------------------------- 9. QP and KM messages
@pytest.mark.parametrize("which", ["DoubleHingeQP", "RampPU", "SVMPlus"])
def test_qp_status_becomes_an_actionable_error(which):
    pytest.importorskip("clarabel")
    from unlabeled import SVMPlus
    from unlabeled._shared import QPSolverError
    from unlabeled.pu._baselines import DoubleHingeQP, RampPU

    X, s = _pu_data()
    with pytest.raises(QPSolverError) as info:
        if which == "DoubleHingeQP":
            DoubleHingeQP(prior=0.4, lam=1e-12).fit(X, s)
        elif which == "RampPU":
            RampPU(prior=0.4, lam=1e-12, inner_solver="qp").fit(X, s)
        else:
            SVMPlus(C=1e-12, solver="qp").fit(X, s, X[:, :1])
    message = str(info.value)
    assert isinstance(info.value, ValueError) and isinstance(info.value, RuntimeError)
    assert ("bring lam closer" in message) == (which != "SVMPlus")
    assert "status" in message and "SMO" in message


@pytest.mark.parametrize("name", ["KM1", "KM2"])
def test_km_small_max_iter_message(name):
    from unlabeled.pu import priors

    X, s = _pu_data()
    with pytest.raises(RuntimeError, match=f"{name}: .*max_iter=1 .*increase max_iter"):
        getattr(priors, name)(max_iter=1, random_state=0).fit(X, s)


# ---------------------------------------------------------------------- 9. search input kinds
def _search(X, s):
    from unlabeled.model_selection import PUGridSearchCV

    return PUGridSearchCV(PUSVC(prior=0.4, n_jobs=1), None, cv=3, random_state=0).fit(X, s)


@pytest.mark.parametrize("kind", ["dataframe", "coo", "csc", "dok", "list"])
def test_search_accepts_what_the_estimators_accept(kind):
    X, s = _pu_data()
    ref = _search(X, s)
    if kind == "dataframe":
        pd = pytest.importorskip("pandas")
        Xk, sk = pd.DataFrame(X, columns=["a", "b", "c"]), pd.Series(s, index=np.arange(len(s)) * 7)
    else:
        Xk, sk = {"list": X.tolist(), "coo": sp.coo_matrix(X), "csc": sp.csc_matrix(X),
                  "dok": sp.dok_matrix(X)}.get(kind), s  # fmt: skip
    before = Xk.copy() if kind != "list" else list(Xk)
    got = _search(Xk, sk)
    np.testing.assert_allclose(
        got.cv_results_["mean_test_score"], ref.cv_results_["mean_test_score"], atol=1e-9
    )
    np.testing.assert_allclose(got.decision_function(X), ref.decision_function(X), atol=1e-9)
    if kind == "dataframe":
        assert list(got.best_estimator_.feature_names_in_) == ["a", "b", "c"]
        assert Xk.equals(before)
    elif kind != "list":
        assert (Xk != before).nnz == 0 and Xk.format == before.format


# ---------------------------------------------------------------------- 6. memory budgets
@pytest.mark.parametrize("which", ["RampPU", "KM1", "KM2"])
def test_dense_allocations_checked_against_the_budget(monkeypatch, which):
    """n x n matrices are refused before they are made, with the size and the argument to
    use instead, when over unlabeled._shared.MAX_DENSE_BYTES (lowered here to 20 kB: the
    problems have 50 points, 20 kB holds a 50 x 50 matrix but not the method's peak)."""
    import unlabeled._shared as shared
    from unlabeled.pu import priors
    from unlabeled.pu._baselines import RampPU

    monkeypatch.setattr(shared, "MAX_DENSE_BYTES", 20_000)
    monkeypatch.setattr(priors, "_sq_dists", None)  # the check comes before the matrices
    X, s = _pu_data()
    with pytest.raises(shared.MemoryBudgetError) as info:
        if which == "RampPU":
            RampPU(prior=0.4, inner_solver="qp").fit(X, s)
        else:
            getattr(priors, which)(max_samples=None).fit(X, s)
    message = str(info.value)
    assert isinstance(info.value, MemoryError) and isinstance(info.value, ValueError)
    assert "50 x 50" in message and "MAX_DENSE_BYTES" in message
    assert ("inner_solver='smo'" if which == "RampPU" else "lower max_samples") in message
    monkeypatch.setenv("UNLABELED_MAX_DENSE_BYTES", str(2**30))  # the override lifts it
    if which == "RampPU":
        RampPU(prior=0.4, inner_solver="qp", init="zero").fit(X, s)


def test_memory_available_is_a_limit_too(monkeypatch):
    import unlabeled._shared as shared

    monkeypatch.setattr(shared, "_available_bytes", lambda: 1000.0)
    with pytest.raises(shared.MemoryBudgetError, match="of memory available; do this"):
        shared.check_dense_budget(2000.0, "a matrix", "do this")
    shared.check_dense_budget(999.0, "a matrix", "do this")


def test_tiny_prior_ocsvm_start_stays_small():
    """prior=1e-9 with the OCSVM start tried to allocate 7 GiB (1e-12: 7 TiB) for group sizes
    of 1/prior points; the start only ever uses n values."""
    import tracemalloc

    X, s = _pu_data()
    tracemalloc.start()
    try:
        est = PUSVC(prior=1e-9, init="ocsvm", solver="usmo", n_jobs=1).fit(X, s)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 50 * 2**20 and np.all(np.isfinite(est.decision_function(X)))


# ---------------------------------------------------------------------- 2. sparse duplicates
def test_csr_with_duplicates_read_as_scipy_sums_them():
    """A CSR matrix with duplicate entries (found by the fuzz suite): gamma='scale' was
    computed from X.multiply(X), which does not sum duplicates, so the fit differed from
    the dense one; support_vectors_ held each entry twice. Canonicalised on a copy now."""
    X, s = _pu_data()
    rows, cols = np.nonzero(X)
    vals = X[rows, cols]
    dup = sp.csr_matrix(
        (np.repeat(vals / 2, 2), np.repeat(cols, 2), np.r_[0, np.cumsum(2 * np.bincount(
            rows, minlength=X.shape[0]))]), shape=X.shape
    )  # fmt: skip
    assert not dup.has_canonical_format and dup.nnz == 2 * np.count_nonzero(X)
    before = dup.data.copy(), dup.indices.copy(), dup.indptr.copy()
    a = PUSVC(prior=0.4, n_jobs=1, random_state=0).fit(dup, s)
    b = PUSVC(prior=0.4, n_jobs=1, random_state=0).fit(X, s)
    assert a._gamma == pytest.approx(b._gamma, rel=1e-12)
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(X), atol=1e-8)
    assert a.support_vectors_.has_canonical_format
    after = (dup.data, dup.indices, dup.indptr)
    assert all(np.array_equal(u, v) for u, v in zip(before, after, strict=True))


def test_found_by_fuzzing_scale_errors_are_named():
    """Found by the fuzz suite: sparse data at 1e300 raised OverflowError from Python float
    arithmetic in gamma='scale'; CLSST at 1e300 raised LinAlgError('Eigenvalues did not
    converge'); the Plummer autoencoder blamed learning_rate for data whose squares overflow."""
    X, s = _pu_data()
    with pytest.raises(ValueError, match="X is too large in scale"):
        PUSVC(prior=0.4).fit(sp.csr_matrix(X * 1e300), s)
    from unlabeled import CLSST

    y = np.where(np.arange(len(s)) % 2 == 0, -1, s)
    with pytest.raises(ValueError, match="X is too large in scale for CLSST"):
        CLSST(random_state=0).fit(X * 1e300, y)


def test_pae_data_scale_checked():
    pytest.importorskip("torch")
    from unlabeled import PlummerAutoencoder

    X, _ = _pu_data()
    with pytest.raises(ValueError, match="X is too large in scale for PlummerAutoencoder"):
        PlummerAutoencoder(max_iter=2, random_state=0).fit(X * 1e300)


@pytest.mark.parametrize("cv", [1, 0, -3])
def test_search_cv_below_two_names_cv(cv):
    """Found by the long fuzz run: cv=1 gave the splitter's "n_splits must be >= 2"."""
    from unlabeled.model_selection import PUGridSearchCV

    X, s = _pu_data()
    with pytest.raises(ValueError, match=r"^cv must be >= 2"):
        PUGridSearchCV(PUSVC(prior=0.4), {"lam": [0.1]}, cv=cv).fit(X, s)


def test_refined_oracle_ascent_stops_without_a_rise():
    """WellSVM's refined oracle repeated the label sort while y'Hy rose; a NaN value never
    compared as "no rise", so two alternating label vectors looped for ever."""
    from types import SimpleNamespace

    from unlabeled._label_generation import _violated_label

    n = 6
    ys = [np.array([1, 1, 1, -1, -1, -1], np.int8), np.array([1, -1, 1, -1, 1, -1], np.int8)]
    calls = []

    def oracle(r, a):
        calls.append(1)
        return ys[len(calls) % 2]

    backend = SimpleNamespace(products=lambda a, Y: np.full((n, Y.shape[1]), np.nan))
    cur = SimpleNamespace(alpha=np.ones(n), q=np.array([1.0]))
    Y = np.ones((n, 1), np.int8)

    with time_limit(5, "the ascent"):
        best, _ = _violated_label(backend, oracle, cur, Y, refine=True)
    assert len(calls) == 2 and best is not None


def test_tice_densifying_checked_against_the_budget(monkeypatch):
    """TIcE densifies sparse input (n x n_features, twice): a file with one index of 1e8 made
    it allocate gigabytes. Refused before, with the size and the alternatives."""
    import unlabeled._shared as shared
    from unlabeled.pu.priors import TIcE

    X, s = _pu_data()
    wide = sp.hstack([sp.csr_matrix(X), sp.csr_matrix((X.shape[0], 10**8))], format="csr")
    monkeypatch.setattr(shared, "MAX_DENSE_BYTES", 2**30)
    with pytest.raises(shared.MemoryBudgetError, match=r"TIcE .* 50 x 100,000,003 .*ElkanNoto"):
        TIcE(random_state=0).fit(wide, s)
    assert 0 <= TIcE(random_state=0).fit(sp.csr_matrix(X), s).prior_ <= 1


def test_rbf_gamma_decided_by_rounding_refused():
    """Found by the long fuzz run: with gamma=1e300 and duplicated points, the kernel value of
    a duplicate pair (1, or 0 after a rounding error of 1e-16 in its squared distance) depended
    on the memory order of X, and so did the model."""
    X, s = _pu_data()
    X = np.r_[X, X[:5]]
    s = np.r_[s, s[:5]]
    with pytest.raises(ValueError, match=r"gamma=1e\+300 is so large .* rounding errors"):
        PUSVC(prior=0.4, gamma=1e300).fit(X, s)
    with pytest.raises(ValueError, match=r"gamma=1e\+14 is so large"):
        PUSVC(prior=0.4, gamma=1e14).fit(X, s)
    PUSVC(prior=0.4, gamma=1e6, n_jobs=1).fit(X, s)  # large, still meaningful


def test_rbf_identity_kernel_refused():
    """Points far apart for gamma (every k(x_i, x_j) = exp(-1000) underflows to 0): the model
    would predict its offset everywhere."""
    X = 10.0 * np.arange(50, dtype=float)[:, None]
    s = (np.arange(50) % 5 == 0).astype(int)
    with pytest.raises(ValueError, match="gamma=10 makes the rbf kernel the identity"):
        PUSVC(prior=0.4, gamma=10.0).fit(X, s)


@pytest.mark.parametrize("lam", [1e-200, 1e-300, 1e-31])
def test_lam_below_its_documented_range_refused(lam):
    """lam=1e-200 gave objective_ = NaN (the dual's sums overflow); lam >= 1e-30 documented."""
    from unlabeled._validation import InvalidParameterError

    X, s = _pu_data()
    with pytest.raises(InvalidParameterError, match="lam must be >= 1e-30"):
        PUSVC(prior=0.4, lam=lam).fit(X, s)
    est = PUSVC(prior=0.4, lam=1e-30, n_jobs=1, max_iter=20_000)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X, s)
    assert np.isfinite(est.objective_) and np.all(np.isfinite(est.decision_function(X)))


def test_svmplus_dsvm_plus_inner_svc_is_capped(monkeypatch):
    """Found by the long fuzz run: mode='dsvm+' trains sklearn's SVC on X_star, whose default
    is no iteration cap: with C=1e12 it ran for 50 s on 35 points. It gets the same cap."""

    from sklearn.exceptions import ConvergenceWarning

    from unlabeled import SVMPlus, _shared

    monkeypatch.setattr(_shared, "MIN_DEFAULT_MAX_ITER", 10**4)
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


def test_tiny_scale_refused_where_squares_underflow():
    """Found by the long fuzz run: the Plummer autoencoder's loss became NaN on X * 1e-150
    (and blamed learning_rate); CLSST checks the same."""
    from unlabeled import CLSST

    X, s = _pu_data()
    y = np.where(np.arange(len(s)) % 2 == 0, -1, s)
    with pytest.raises(ValueError, match="X is too small in scale for CLSST"):
        CLSST(random_state=0).fit(X * 1e-150, y)
    CLSST(random_state=0, max_iter=20).fit(X * 1e-12, y)  # small, fine
    pytest.importorskip("torch")
    from unlabeled import PlummerAutoencoder

    with pytest.raises(ValueError, match="X is too small in scale for PlummerAutoencoder"):
        PlummerAutoencoder(max_iter=2, random_state=0).fit(X * 1e-150)


def test_clsst_breakdown_is_a_named_error():
    """Found by the long fuzz run: integers near 1e15 with little spread made CLSST's
    Cholesky fail with a bare LinAlgError('Matrix is not positive definite')."""
    from unlabeled import CLSST

    rng = np.random.default_rng(3018)
    X = np.round(rng.normal(size=(30, 3)) * 3 * 1e60).clip(-1e15, 1e15).astype(np.int64)
    y = np.where(rng.random(30) < 0.5, -1, (rng.random(30) < 0.5).astype(int))
    y[:2], y[-2:] = 1, 0
    try:
        est = CLSST(random_state=0, max_iter=30, max_births=2).fit(X, y)
    except ValueError as exc:
        assert "CLSST" in str(exc) and "X" in str(exc)
    else:
        assert np.all(np.isfinite(est.predict_proba(X)))


def test_ocsvm_start_is_capped(monkeypatch):
    """Found by the long fuzz run: the OCSVM start (sklearn's OneClassSVM, no iteration cap by
    default) never returned on a constant precomputed Gram matrix."""

    from sklearn.exceptions import ConvergenceWarning

    from unlabeled import _shared

    monkeypatch.setattr(_shared, "MIN_DEFAULT_MAX_ITER", 10**4)
    X, s = _pu_data()
    K = np.full((len(s), len(s)), 0.5)

    with time_limit(20, "the OCSVM start (no cap)"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            est = PUSVC(prior=0.4, kernel="precomputed", solver="usmo", n_jobs=1).fit(K, s)
    assert np.all(np.isfinite(est.decision_function(K)))


# ------------------------------------------------ found by the long fuzz run (issue 17, 10000+)
def _layouts(X):
    """The same matrix in every layout the input layer accepts."""
    wide = np.zeros((X.shape[0], 2 * X.shape[1]))
    wide[:, ::2] = X
    rows, cols = np.nonzero(X)
    indptr = np.r_[0, np.cumsum(2 * np.bincount(rows, minlength=X.shape[0]))]
    dup = sp.csr_matrix(  # each entry twice, as two halves (scipy sums them)
        (np.repeat(X[rows, cols] / 2, 2), np.repeat(cols, 2), indptr), shape=X.shape
    )
    return {
        "C": np.ascontiguousarray(X), "F": np.asfortranarray(X), "view": wide[:, ::2],
        "list": X.tolist(), "csr": sp.csr_matrix(X), "csc": sp.csc_matrix(X),
        "coo": sp.coo_matrix(X), "csr_dup": dup,
    }  # fmt: skip


def test_gamma_scale_is_the_same_number_for_every_layout():
    """SVMPlus on CSC data differed from its dense fit by 1e-3 at default parameters: sparse
    X.var() was E[x^2] - E[x]^2 (and a Fortran-ordered X.var() sums in another order), one
    unit in the last place from the dense value, and that gamma sent SMO along another path
    to another point within tol. gamma='scale' is now computed to the same bits."""
    from unlabeled._validation import check_gamma

    rng = np.random.default_rng(3)
    for X in (
        rng.normal(size=(38, 1)),
        np.where(rng.random((30, 4)) < 0.5, 0, rng.normal(size=(30, 4)) + 1e6),
    ):
        gammas = {k: check_gamma("scale", "rbf", np.asarray(A) if k == "list" else A)
                  for k, A in _layouts(X).items()}  # fmt: skip
        assert len(set(gammas.values())) == 1, gammas
        assert gammas["C"] == pytest.approx(1 / (X.shape[1] * X.var()), rel=1e-12)


def test_svmplus_sparse_fit_equals_dense_fit():
    """The fuzz case itself (one feature: sparse and dense kernel values are the same bits,
    so with the same gamma the two fits must be identical)."""
    from unlabeled import SVMPlus

    rng = np.random.default_rng(5)
    X = rng.normal(size=(38, 1))
    y = np.where(X[:, 0] + rng.normal(size=38) > 0, 1, -1)
    Xs = np.abs(X) + rng.random((38, 1))
    ref = SVMPlus().fit(X, y, Xs)
    for name in ("csc", "coo", "F"):
        est = SVMPlus().fit(_layouts(X)[name], y, Xs)
        assert est.n_iter_ == ref.n_iter_ and est._gamma == ref._gamma
        np.testing.assert_array_equal(est.dual_coef_, ref.dual_coef_)
        np.testing.assert_array_equal(est.intercept_, ref.intercept_)


def test_decision_function_is_the_same_for_every_dense_layout(monkeypatch):
    """RampPU with lam=1e-30 on identical points: a model with coefficients of 2e17 whose
    decision values cancel to -1 on a C-ordered X gave -16 on the same X in Fortran order
    (its products rounded differently). Prediction takes dense X in C order, as fit does."""
    import unlabeled._shared as shared
    from unlabeled.pu import RampPU

    monkeypatch.setattr(shared, "MIN_DEFAULT_MAX_ITER", 10**4)  # the problem hits its cap
    X = np.tile(np.random.default_rng(0).normal(size=(1, 4)), (15, 1))
    s = np.r_[1, 1, 1, np.zeros(12)]
    with pytest.warns(ConvergenceWarning):
        est = RampPU(prior=0.4, lam=1e-30, random_state=0).fit(X, s)
    assert np.abs(est.dual_coef_).max() > 1e10  # the pathological model of the case
    ref = est.decision_function(X)
    for name, A in _layouts(X).items():
        if not sp.issparse(A):
            np.testing.assert_array_equal(est.decision_function(A), ref, err_msg=name)


def _capped_solves(monkeypatch, cap=3):
    """Every SVM solve of the label-generation backends capped at ``cap`` steps."""
    from unlabeled import _label_generation

    monkeypatch.setattr(_label_generation, "resolve_max_iter", lambda *a, **k: cap)


@pytest.mark.parametrize("name", ["LabeledSVM", "TSVM", "miSVM", "MISVM"])
def test_inner_svm_solve_at_its_cap_warns(monkeypatch, name):
    """LabeledSVM(max_iter=10) stopped its solve at the cap without a ConvergenceWarning,
    and its result then depended on the layout of X (the fuzz case: COO against dense); TSVM,
    mi-SVM and MI-SVM did not look at their inner solves either. Every one warns now."""
    from unlabeled import TSVM, LabeledSVM
    from unlabeled.mil import MISVM, miSVM

    rng = np.random.default_rng(2)
    X = rng.normal(size=(40, 3))
    y = np.where(X[:, 0] > 0, 1, 0)
    if name in ("LabeledSVM", "TSVM"):
        y = np.where(rng.random(40) < 0.5, -1, y)
        y[:2], y[-2:] = 1, 0
    est = {"LabeledSVM": LabeledSVM, "TSVM": TSVM, "miSVM": miSVM, "MISVM": MISVM}[name]()
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        est.fit(X, y)  # converges: no warning
    if name == "LabeledSVM":
        est.set_params(max_iter=2)
    else:
        _capped_solves(monkeypatch)
    with pytest.warns(ConvergenceWarning, match=f"^{name} stopped an SVM solve before tol"):
        est.fit(X, y)


def test_search_grid_values_checked_before_the_folds():
    """PUGridSearchCV with lam=[-1.0] and 2 labeled positives for 5 folds reported the folds
    (naming n_splits and s), not the bad grid value; grid values are checked first now."""
    from unlabeled._validation import InvalidParameterError
    from unlabeled.model_selection import PUGridSearchCV

    X, s = _pu_data()
    s = np.zeros_like(s)
    s[:2] = 1
    for grid, phrase in [({"lam": [-1.0]}, "lam must be >= 1e-30"),
                         ({"lam": [0.1], "gamma": ["wide"]}, "gamma must be"),
                         ([{"lam": [0.1]}, {"prior": [1.5]}], "prior must be")]:  # fmt: skip
        with pytest.raises(InvalidParameterError, match=f"^param_grid: {phrase}"):
            PUGridSearchCV(PUSVC(prior=0.4), grid, cv=5).fit(X, s)
    with pytest.raises(ValueError, match="n_splits"):  # a valid grid: the folds come next
        PUGridSearchCV(PUSVC(prior=0.4), {"lam": [0.1]}, cv=5).fit(X, s)


# ------------------------------------------------ the audit of issue 17's findings: the rest
def _dup_estimators():
    from unlabeled import SVMPlus
    from unlabeled.pu import DoubleHingeQP, RampPU, USMOInit, priors

    pu = {"prior": 0.4}
    return {
        # tight tolerances: sparse and dense kernel values round differently, and a solver
        # stopped at tol=1e-3 may stop elsewhere (by 4e-4 for RampPU); the duplicates made
        # differences of up to 1.6
        "PUSVC": lambda: PUSVC(**pu, tol=1e-9, n_jobs=1, random_state=0),
        "PUSVC-linear": lambda: PUSVC(**pu, kernel="linear", tol=1e-9, n_jobs=1),
        "USMOInit": lambda: USMOInit(**pu),
        "RampPU": lambda: RampPU(**pu, tol=1e-9, random_state=0, init="zero"),
        "SVMPlus": lambda: SVMPlus(tol=1e-9),
        "DoubleHingeQP": lambda: DoubleHingeQP(**pu),
        "KM1": lambda: priors.KM1(random_state=0),
        "KM2": lambda: priors.KM2(random_state=0),
        "PenalizedL1": lambda: priors.PenalizedL1(random_state=0),
    }


def _fit_output(name, est, X, s):
    if name == "SVMPlus":
        y = np.where(s == 1, 1, -1)
        return est.fit(X, y, np.arange(len(s), dtype=float)[:, None] % 3).decision_function(X)
    est.fit(X, s)
    return np.array([est.prior_]) if name.startswith(("KM", "Pen")) else est.decision_function(X)


@pytest.mark.parametrize("name", list(_dup_estimators()))
def test_duplicate_and_unsorted_sparse_entries_read_as_scipy_sums_them(name):
    """Finding 2 (decision values off by up to 1.6 against the dense fit, and the linear
    kernel never returned) and finding 3 (the caller's CSR sorted in place), for every
    estimator the issue lists: a CSR matrix holding each entry twice, as two halves in
    shuffled order, gives the dense fit and is left as it was."""
    if name in ("RampPU", "SVMPlus", "DoubleHingeQP"):
        pytest.importorskip("clarabel")
    X, s = _pu_data()
    X = np.round(X, 3)  # halves exact
    dup = _layouts(X)["csr_dup"]
    perm = np.random.default_rng(0).permutation(dup.nnz)
    for r in range(X.shape[0]):  # shuffle each row's entries: unsorted indices
        lo, hi = dup.indptr[r], dup.indptr[r + 1]
        order = lo + np.argsort(perm[lo:hi])
        dup.indices[lo:hi], dup.data[lo:hi] = dup.indices[order], dup.data[order]
    dup.has_sorted_indices = False
    before = [a.copy() for a in (dup.data, dup.indices, dup.indptr)]
    make = _dup_estimators()[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        out, ref = _fit_output(name, make(), dup, s), _fit_output(name, make(), X, s)
    np.testing.assert_allclose(out, ref, rtol=1e-6, atol=1e-6 * (1 + np.abs(ref).max()))
    assert all(
        np.array_equal(a, b)
        for a, b in zip(before, (dup.data, dup.indices, dup.indptr), strict=True)
    )
    assert not dup.has_sorted_indices


def test_search_leaves_an_unsorted_csr_as_it_was():
    """Finding 3 for PUGridSearchCV (it indexed the caller's matrix, sorting it in place)."""
    from unlabeled.model_selection import PUGridSearchCV

    X, s = _pu_data()
    M = sp.csr_matrix(X)
    for r in range(M.shape[0]):
        lo, hi = M.indptr[r], M.indptr[r + 1]
        M.indices[lo:hi], M.data[lo:hi] = M.indices[lo:hi][::-1].copy(), M.data[lo:hi][::-1].copy()
    M.has_sorted_indices = False
    before = [a.copy() for a in (M.data, M.indices, M.indptr)]
    search = PUGridSearchCV(PUSVC(prior=0.4, n_jobs=1), {"lam": [0.1, 0.01]}, cv=2).fit(M, s)
    assert all(
        np.array_equal(a, b) for a, b in zip(before, (M.data, M.indices, M.indptr), strict=True)
    )
    assert not M.has_sorted_indices
    ref = PUGridSearchCV(PUSVC(prior=0.4, n_jobs=1), {"lam": [0.1, 0.01]}, cv=2).fit(X, s)
    assert search.best_params_ == ref.best_params_


def test_column_indices_past_32_bits():
    """Finding 2: column indices of 2**31 or more were cast to int32 unchecked. The kernel
    solvers renumber the columns in use (the fit equals the fit on the compact matrix); the
    linear solvers, whose w has one entry per column, refuse X naming the 32-bit limit."""
    X, s = _pu_data()
    wide = 2**31 + 10
    rows, cols = np.nonzero(X)
    Xc = np.c_[X, np.r_[1.0, np.zeros(len(s) - 1)]]
    W = sp.csr_matrix(
        (np.r_[X[rows, cols], 1.0], (np.r_[rows, 0], np.r_[cols, wide - 3])), shape=(len(s), wide)
    )
    # sparse and dense dot products round differently: at the default tol the two fits may
    # stop at different points within it, so both are solved to 1e-10
    a = PUSVC(prior=0.4, gamma=0.3, n_jobs=1, random_state=0, tol=1e-10).fit(W, s)
    b = PUSVC(prior=0.4, gamma=0.3, n_jobs=1, random_state=0, tol=1e-10).fit(Xc, s)
    np.testing.assert_allclose(a.decision_function(W), b.decision_function(Xc), atol=1e-7)
    with pytest.raises(ValueError, match=r"X has 2147483658 columns.*32-bit"):
        PUSVC(prior=0.4, kernel="linear", n_jobs=1).fit(W, s)


def test_sparse_data_with_one_huge_feature_index_stays_small():
    """Finding 6: a 151-line svmlight file with one feature index of 1e8 took 2.5 GB: the
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


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_fortran_ordered_gram_matrix_is_not_copied(dtype):
    """Finding 6: a Fortran-ordered precomputed Gram matrix was copied in full (to C order,
    and float32 twice). A symmetric one is used as its transpose; float32 is converted once
    (the engine reads float64). Same fit as on the C-ordered float64 matrix."""
    import tracemalloc

    rng = np.random.default_rng(0)
    P = rng.normal(size=(400, 3))
    s = (rng.random(400) < 0.2).astype(int)
    sq = np.einsum("ij,ij->i", P, P)
    K = np.exp(-np.maximum(sq[:, None] + sq[None] - 2 * P @ P.T, 0) / 3)
    K = ((K + K.T) / 2).astype(dtype)
    G = np.asfortranarray(K)
    tracemalloc.start()
    try:
        est = PUSVC(prior=0.4, kernel="precomputed", n_jobs=1, random_state=0).fit(G, s)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    copies = 0 if dtype == np.float64 else 1  # float64 copies of K
    assert peak < (copies + 0.25) * K.size * 8, peak / (K.size * 8)
    ref = PUSVC(prior=0.4, kernel="precomputed", n_jobs=1, random_state=0)
    ref.fit(np.ascontiguousarray(K, dtype=np.float64), s)
    np.testing.assert_array_equal(est.decision_function(K), ref.decision_function(K))


def test_mil_wellsvm_start_svm_is_capped(monkeypatch):
    """Found once the fuzz suite really built mil.WellSVM (its target passed the parameter
    dict as C1, so every case was refused): the start's SVM ran with the engine's -1, no cap,
    and with C2=1e12 on 21 instances it ran for ever. It stops at the default cap, warned."""
    import unlabeled._shared as shared
    from unlabeled.mil import WellSVM

    monkeypatch.setattr(shared, "MIN_DEFAULT_MAX_ITER", 20_000)
    rng = np.random.default_rng(160)
    X = np.c_[np.full(21, 7.0), rng.normal(size=21)]
    y = np.where(rng.random(21) < 0.6, 1, -1)
    y[:2], y[-2:] = 1, -1

    with pytest.warns(ConvergenceWarning, match=r"WellSVM \(the start's SVM\) stopped after"):
        with time_limit(20):  # 0.1 s now
            WellSVM(C1=1e-12, C2=1e12).fit(X, y)


def test_dense_qp_under_an_address_space_limit_raises_instead_of_aborting():
    """Finding 6: DoubleHingeQP under a memory limit (ulimit -v) aborted the process
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
        X = rng.normal(size=(3000, 3)); s = (rng.random(3000) < 0.2).astype(int)
        resource.setrlimit(resource.RLIMIT_AS, (vm + 400 * 2**20, vm + 400 * 2**20))
        try:
            DoubleHingeQP(prior=0.4).fit(X, s)  # needs about 600 MB
        except MemoryError as exc:
            print("refused:", exc)
    """
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-500:]
    assert "refused: DoubleHingeQP needs a dense QP for 3,000 points" in out.stdout
    assert "of memory available; use PUSVC" in out.stdout


def test_ramp_pu_tolerance_below_rounding_stops_at_the_cap(monkeypatch):
    """Finding 4 (the rest of the hang list): RampPU with tol=1e-300 ran past 60 s; each
    convex step's SMO stops at the default cap, warned, and the model is finite."""
    pytest.importorskip("clarabel")
    import unlabeled._shared as shared
    from unlabeled.pu import RampPU

    monkeypatch.setattr(shared, "MIN_DEFAULT_MAX_ITER", 20_000)
    X, s, _ = make_pu(0, n=80, d=3, p=20)
    with pytest.warns(ConvergenceWarning, match=r"RampPU \(a convex step's SMO\) stopped after"):
        est = RampPU(prior=0.4, tol=1e-300, max_cccp_iter=2, random_state=0).fit(X, s)
    assert np.all(np.isfinite(est.decision_function(X)))
