"""Model files from untrusted sources: crafted estimators, zip archives that inflate or hold
too many members, and atomic writes. A bad file is refused with a clear error before any of
it is used (never a crash in ``predict``)."""

import io
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import make_pu

import unlabeled
from unlabeled import PUSVC
from unlabeled.model_io import ModelFileError, load_model, model_bytes, save_model, write_atomic

SRC = Path(unlabeled.__file__).resolve().parents[1]


# ---------------------------------------------------------------------- crafted models
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
    """Out-of-range column indices in a model file crashed ``predict`` (SIGSEGV); the
    command now ends with one error line naming the attribute."""
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


_LOAD_IN_A_NEW_PROCESS = """
import sys
import sklearn.utils
calls = []
listed = sklearn.utils.all_estimators
sklearn.utils.all_estimators = lambda *a, **k: calls.append(1) or listed(*a, **k)
if {skops_first}:
    import skops.io  # the user's own skops, with its default list, before ours
import unlabeled
from unlabeled.model_io import ModelFileError
try:
    unlabeled.load({crafted!r})
    sys.exit("a file holding a LogisticRegression was loaded")
except ModelFileError as exc:
    assert "not trusted" in str(exc) and "LogisticRegression" in str(exc), exc
unlabeled.load({good!r})
assert len(calls) == {skops_first}, calls  # unlabeled never built the list
import numpy as np
import skops.io
from sklearn.linear_model import LogisticRegression
m = LogisticRegression().fit(np.c_[[0.0, 1.0, 2.0, 3.0]], [0, 0, 1, 1])
assert skops.io.get_untrusted_types(data=skops.io.dumps(m)) == []  # skops's own default
print("ok")
"""


@pytest.mark.parametrize("skops_first", [False, True])
def test_load_names_every_type_and_leaves_skops_default(sparse_model, tmp_path, skops_first):
    """A model loads with exactly the types named to skops: a file holding one of
    scikit-learn's estimators besides the model is refused as untrusted, whether or not
    the process imported skops (whose default trusts all of them) first; ``load`` never
    builds skops's list of scikit-learn's estimators (which imported all of scikit-learn),
    and other code of the process still finds skops's default as it was."""
    from sklearn.linear_model import LogisticRegression

    est, _ = sparse_model
    extra = LogisticRegression()
    crafted = _tampered(est, tmp_path, "extra", lambda e: setattr(e, "extra_", extra))
    good = tmp_path / "good.skops"
    save_model(est, good, {"data": {}})
    code = _LOAD_IN_A_NEW_PROCESS.format(
        skops_first=skops_first, crafted=str(crafted), good=str(good)
    )
    proc = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=str(SRC)),
        timeout=120,
    )
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr


# ---------------------------------------------------------------------- zip archives
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


# ---------------------------------------------------------------------- atomic writes
def test_write_error_names_the_target_not_the_temporary_file(tmp_path, monkeypatch):
    import tempfile

    def denied(*a, **k):
        raise PermissionError(13, "Permission denied", str(tmp_path / ".m.skops.abc.tmp"))

    monkeypatch.setattr(tempfile, "mkstemp", denied)
    with pytest.raises(ModelFileError) as info:
        write_atomic(tmp_path / "m.skops", b"x")
    assert "m.skops" in str(info.value) and ".tmp" not in str(info.value)
