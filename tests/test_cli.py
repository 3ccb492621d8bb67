"""The ``unlabeled`` command: round trips against the Python API, metrics against scikit-learn,
and one-line errors (no traceback, no file written) for every kind of bad input."""

import io
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest
from conftest import CLI_FIT_ARGS, fail_before_fit, make_pu
from sklearn.datasets import dump_svmlight_file
from sklearn.metrics import f1_score, precision_score, recall_score, roc_auc_score

import unlabeled
from unlabeled import PUSVC
from unlabeled.cli import main
from unlabeled.datasets import load_csv, load_npz, load_svmlight
from unlabeled.model_io import META_MEMBER, load_model

SRC = Path(unlabeled.__file__).resolve().parents[1]
PARAMS = ["--prior", "0.4", "--lam", "0.05", "--kernel", "rbf", "--gamma", "0.5"]
PARAMS += ["--random-state", "0", "--n-jobs", "1"]
API_PARAMS = dict(prior=0.4, lam=0.05, kernel="rbf", gamma=0.5, random_state=0, n_jobs=1)


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    """One small PU problem in the three formats; the CSV and npz also hold the true classes."""
    d = tmp_path_factory.mktemp("data")
    X, s, _ = make_pu(3, n=60, d=3, p=15)
    X = np.round(X, 6)  # what the CSV holds exactly
    rng = np.random.default_rng(0)
    y = np.where(s == 1, 1, (X[:, 0] + 0.3 * rng.normal(size=s.size) > 0.5).astype(int))
    with open(d / "train.csv", "w") as fh:
        fh.write("a,b,c,s,y\n")
        for xi, si, yi in zip(X, s, y, strict=True):
            fh.write(",".join(repr(float(v)) for v in xi) + f",{si},{yi}\n")
    with open(d / "features.csv", "w") as fh:  # features only, no header
        for xi in X:
            fh.write(",".join(repr(float(v)) for v in xi) + "\n")
    np.savez(d / "train.npz", X=X, s=s, y=y)
    dump_svmlight_file(X, s, str(d / "train.svm"))
    np.savetxt(d / "truth.txt", y, fmt="%d")
    return {"dir": d, "X": X, "s": s, "y": y}


def run(argv, capsys):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def fit_cli(capsys, data_file, model, *extra):
    code, out, err = run(["fit", data_file, "-o", model, *PARAMS, *extra], capsys)
    assert code == 0, err
    return out


def read_predictions(path_or_text):
    text = Path(path_or_text).read_text() if isinstance(path_or_text, Path) else path_or_text
    rows = np.loadtxt(io.StringIO(text), delimiter=",", skiprows=1, ndmin=2)
    return rows[:, 0].astype(int), (rows[:, 1] if rows.shape[1] > 1 else None)


# ---------------------------------------------------------------------- round trips
@pytest.mark.parametrize(
    "name, fit_args, load",
    [
        (
            "train.csv",
            ["--label-column", "s", "--ignore-column", "y"],
            lambda p: (lambda X, s: (np.delete(X, 3, axis=1), s))(*load_csv(p, label_column="s")),
        ),
        ("train.svm", [], lambda p: load_svmlight(p)),
        ("train.npz", ["--label-column", "s"], lambda p: load_npz(p, y_key="s")),
    ],
)
def test_round_trip_matches_python_api(data, tmp_path, capsys, name, fit_args, load):
    path = data["dir"] / name
    model = tmp_path / "model.skops"
    out = fit_cli(capsys, path, model, *fit_args)
    assert "saved to" in out and model.is_file()

    X, s = load(path)
    api = PUSVC(**API_PARAMS).fit(X, s == 1)
    code, _, err = run(["predict", model, path, "--decision", "-o", tmp_path / "p.csv"], capsys)
    assert code == 0, err
    pred, dec = read_predictions(tmp_path / "p.csv")
    np.testing.assert_array_equal(pred, api.predict(X))
    np.testing.assert_allclose(dec, api.decision_function(X), rtol=1e-12, atol=1e-12)

    # the saved estimator itself, and predictions on stdout
    est, meta = load_model(model)
    assert meta["unlabeled_version"] == unlabeled.__version__
    assert meta["estimator"] == "unlabeled.pu._pusvc.PUSVC"
    np.testing.assert_array_equal(est.predict(X), api.predict(X))
    assert est.get_params() == api.get_params()
    code, out, _ = run(["predict", model, path], capsys)
    assert code == 0
    np.testing.assert_array_equal(read_predictions(out)[0], api.predict(X))


def test_predict_on_feature_only_csv(data, tmp_path, capsys):
    model = tmp_path / "m.skops"
    fit_cli(capsys, data["dir"] / "train.csv", model, "--label-column", "s", "--ignore-column", "4")
    code, out, err = run(["predict", model, data["dir"] / "features.csv"], capsys)
    assert code == 0, err
    api = PUSVC(**API_PARAMS).fit(data["X"], data["s"])
    np.testing.assert_array_equal(read_predictions(out)[0], api.predict(data["X"]))


def test_positive_value_and_string_labels(tmp_path, capsys):
    X, s, _ = make_pu(1, n=40, d=2, p=10)
    path = tmp_path / "d.csv"
    lab = np.where(s == 1, "pos", "unl")
    path.write_text(
        "".join(f"{float(a)!r},{float(b)!r},{c}\n" for (a, b), c in zip(X, lab, strict=True))
    )
    model = tmp_path / "m.skops"
    fit_cli(capsys, path, model, "--positive-value", "pos")
    est, meta = load_model(model)
    np.testing.assert_array_equal(est.predict(X), PUSVC(**API_PARAMS).fit(X, s).predict(X))
    assert meta["data"]["positive_value"] == "pos"


# ---------------------------------------------------------------------- evaluate
def pu_risk(f, labeled, prior):
    fp, fu = f[labeled], f[~labeled]
    return prior * np.mean(fp <= 0) + np.mean(fu > 0) - prior * np.mean(fp > 0)


@pytest.mark.parametrize("unlabeled_only", [False, True])
def test_evaluate_matches_sklearn(data, tmp_path, capsys, unlabeled_only):
    model = tmp_path / "m.skops"
    fit_cli(capsys, data["dir"] / "train.csv", model, "--label-column", "s", "--ignore-column", "y")
    argv = ["evaluate", model, data["dir"] / "train.csv", "--true-labels", "y", "--json"]
    code, out, err = run(argv + (["--unlabeled-only"] if unlabeled_only else []), capsys)
    assert code == 0, err
    got = json.loads(out)

    X, s, y = data["X"], data["s"], data["y"]
    est = PUSVC(**API_PARAMS).fit(X, s)
    f = est.decision_function(X)
    rows = s == 0 if unlabeled_only else np.ones(s.size, bool)
    pred = est.predict(X)
    assert got["pu_risk"] == pytest.approx(pu_risk(f, s == 1, 0.4))
    assert got["f1"] == pytest.approx(f1_score(y[rows], pred[rows]))
    assert got["precision"] == pytest.approx(precision_score(y[rows], pred[rows]))
    assert got["recall"] == pytest.approx(recall_score(y[rows], pred[rows]))
    assert got["roc_auc"] == pytest.approx(roc_auc_score(y[rows], f[rows]))
    assert (got["n_samples"], got["n_labeled"], got["prior"]) == (s.size, s.sum(), 0.4)

    # the same numbers in the table; the PU risk alone without true labels
    code, out, _ = run(["evaluate", model, data["dir"] / "train.csv"], capsys)
    assert code == 0 and "PU risk" in out and "F1" not in out
    assert f"{pu_risk(f, s == 1, 0.4):.4f}" in out


def test_trivial_models_and_pu_labels_for_ssl_are_flagged(data, tmp_path, capsys):
    """Evaluate printed F1 0.0000 and a PU risk equal to the prior (the trivial
    classifier's) without a word, and a semi-supervised fit on PU labels (no -1) fitted every
    row as labeled in silence. Both now warn in one line with the cause and the fix."""
    csv, model = data["dir"] / "train.csv", tmp_path / "m.skops"
    argv = ["fit", csv, "-o", model, "--label-column", "s", "--ignore-column", "y", "-q"]
    code, _, err = run([*argv, "--prior", "0.001", "--threshold", "zero"], capsys)
    assert code == 0 and "predicts every training point negative" in err, err
    code, out, err = run(["evaluate", model, csv, "--true-labels", "y", "--json"], capsys)
    warned = [line for line in err.splitlines() if line.startswith("unlabeled: warning: ")]
    assert code == 0 and len(warned) == 1 and "every point" in warned[0], err
    assert "the prior" in warned[0] and json.loads(out)["pu_risk"] == pytest.approx(0.001)
    code, _, err = run([*argv, "--prior", "0.4"], capsys)
    assert code == 0 and "warning" not in err
    code, _, err = run(["evaluate", model, csv], capsys)
    assert code == 0 and "warning" not in err, err

    wellsvm = ["--estimator", "wellsvm", "--gamma", "0.5"]
    code, _, err = run([*argv, *wellsvm], capsys)
    assert code == 0 and "is labeled (no label is -1)" in err and "pusvc" in err, err


@pytest.mark.parametrize("truth", ["y", "truth.txt"])
def test_evaluate_npz_and_svmlight_true_labels(data, tmp_path, capsys, truth):
    model = tmp_path / "m.skops"
    fit_cli(capsys, data["dir"] / "train.svm", model)
    target = data["dir"] / ("train.npz" if truth == "y" else "train.svm")
    spec = truth if truth == "y" else data["dir"] / truth
    argv = ["evaluate", model, target, "--true-labels", spec, "--json"]
    if truth == "y":
        argv += ["--label-column", "s"]
    code, out, err = run(argv, capsys)
    assert code == 0, err
    got = json.loads(out)
    est = PUSVC(**API_PARAMS).fit(data["X"], data["s"])
    assert got["f1"] == pytest.approx(f1_score(data["y"], est.predict(data["X"])))


# ---------------------------------------------------------------------- bad input
def _assert_clean_failure(code, out, err, directory, expected_code=1, before=(), quiet=False):
    """Exit status, one error line (the only stderr line with --quiet, else the last one after
    the progress notes), no traceback, nothing on stdout, no file left in ``directory``."""
    assert code == expected_code, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 if quiet else lines, err
    assert lines[-1].startswith("unlabeled: error: ")
    assert sum(line.startswith("unlabeled: error") for line in lines) == 1
    assert "Traceback" not in err and out == ""
    assert sorted(p.name for p in Path(directory).iterdir()) == sorted(before)


@pytest.fixture
def bad_files(tmp_path):
    (tmp_path / "garbage.npz").write_bytes(b"\x00\x01 not a zip at all")
    (tmp_path / "text.csv").write_text("a,b,s\n1,2,1\n3,x,0\n")
    (tmp_path / "data.xyz").write_text("1,2,1\n")
    (tmp_path / "allpos.csv").write_text("1,2,1\n3,4,1\n")
    with zipfile.ZipFile(tmp_path / "other.skops", "w") as zf:
        zf.writestr("schema.json", "{}")
    return tmp_path


BAD_FIT = [
    (["fit", "{d}/missing.csv", "--prior", "0.4"], 1, "not found"),
    (["fit", "{b}/garbage.npz", "--prior", "0.4"], 1, "cannot read"),
    (["fit", "{b}/text.csv", "--prior", "0.4"], 1, "non-numeric"),
    (["fit", "{b}/data.xyz", "--prior", "0.4"], 1, "--format"),
    (["fit", "{d}/train.csv", "--label-column", "nope", "--prior", "0.4"], 1, "'nope'"),
    (["fit", "{d}/train.csv", "--label-column", "7", "--prior", "0.4"], 1, "out of range"),
    (["fit", "{d}/train.npz", "--label-column", "nope", "--prior", "0.4"], 1, "'nope'"),
    (["fit", "{d}/train.csv", "--positive-value", "5", "--prior", "0.4"], 1, "no labeled positive"),
    (["fit", "{b}/allpos.csv", "--prior", "0.4"], 1, "no unlabeled point"),
    (["fit", "{d}/train.csv", "--prior", "1.5"], 2, "--prior"),
    (["fit", "{d}/train.csv", "--prior", "0"], 2, "--prior"),
    (["fit", "{d}/train.csv", "--prior", "-0.2"], 2, "--prior"),
    (["fit", "{d}/train.csv", "--prior", "0.4", "--lam", "-1"], 2, "--lam"),
    (["fit", "{d}/train.svm", "--label-column", "s", "--prior", "0.4"], 2, "svmlight"),
    # checked by the parser, before the data are read (it failed half way, with status 1)
    (["fit", "{d}/train.csv", "--prior", "0.4", "--degree", "-1", "--kernel", "poly"], 2, "degree"),
]


@pytest.mark.parametrize("argv, expected_code, phrase", BAD_FIT)
def test_fit_bad_input(data, bad_files, tmp_path, capsys, argv, expected_code, phrase):
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    argv = [a.format(d=data["dir"], b=bad_files) for a in argv] + ["-o", out_dir / "m.skops"]
    code, out, err = run(argv, capsys)
    _assert_clean_failure(code, out, err, out_dir, expected_code)
    assert phrase in err.splitlines()[-1]
    code, out, err = run(argv + ["--quiet"], capsys)
    _assert_clean_failure(code, out, err, out_dir, expected_code, quiet=True)


def test_fit_output_folder_missing(data, tmp_path, capsys):
    argv = ["fit", data["dir"] / "train.csv", "--prior", "0.4", "-o", tmp_path / "no" / "m.skops"]
    code, out, err = run(argv, capsys)
    _assert_clean_failure(code, out, err, tmp_path)
    assert "does not exist" in err


@pytest.fixture(scope="module")
def model(data, tmp_path_factory):
    path = tmp_path_factory.mktemp("model") / "m.skops"
    argv = ["fit", data["dir"] / "train.csv", "-o", path, "--label-column", "s", *PARAMS]
    assert main([str(a) for a in argv + ["--ignore-column", "y", "-q"]]) == 0
    return path


def test_model_files_refused(data, bad_files, model, tmp_path, capsys):
    truncated = tmp_path / "truncated.skops"
    truncated.write_bytes(model.read_bytes()[:-200])
    cases = [
        (tmp_path / "missing.skops", "not found"),
        (data["dir"] / "train.csv", "not an unlabeled model file"),
        (bad_files / "other.skops", "not an unlabeled model file"),
        (truncated, "model file"),
    ]
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    for path, phrase in cases:
        for cmd in (
            ["predict", path, data["dir"] / "train.csv", "-o", out_dir / "p.csv"],
            ["evaluate", path, data["dir"] / "train.csv"],
        ):
            code, out, err = run(cmd, capsys)
            _assert_clean_failure(code, out, err, out_dir)
            assert phrase in err, (path, err)


def _rewrite_member(path, name, change):
    """Rewrite the zip member ``name`` of the file at ``path`` as ``change(bytes)``, keeping
    every other member and the order (all read, then a new zip written)."""
    with zipfile.ZipFile(path) as zf:
        members = [(info, zf.read(info)) for info in zf.infolist()]
    with zipfile.ZipFile(path, "w") as zf:
        for info, content in members:
            zf.writestr(info, change(content) if info.filename == name else content)


def test_version_mismatch(data, tmp_path, capsys):
    """A model file saved by another version (its record rewritten to 0.0.1) is refused."""
    model = tmp_path / "old.skops"
    fit_cli(capsys, data["dir"] / "train.svm", model)

    def old_version(record):
        meta = json.loads(record)
        meta["unlabeled_version"] = "0.0.1"
        return json.dumps(meta).encode()

    _rewrite_member(model, META_MEMBER, old_version)
    code, out, err = run(["predict", model, data["dir"] / "train.svm"], capsys)
    _assert_clean_failure(code, out, err, tmp_path, before=["old.skops"])
    assert "unlabeled 0.0.1" in err and unlabeled.__version__ in err
    with zipfile.ZipFile(model) as zf:  # the record is readable without loading anything
        assert json.loads(zf.read(META_MEMBER))["unlabeled_version"] == "0.0.1"


def test_predict_bad_data_writes_nothing(data, model, tmp_path, capsys):
    wide = tmp_path / "wide.csv"
    wide.write_text("1,2,3,4,5,6,7\n")
    for path, phrase in [(tmp_path / "missing.csv", "not found"), (wide, "7 columns")]:
        code, out, err = run(["predict", model, path, "-o", tmp_path / "p.csv"], capsys)
        _assert_clean_failure(code, out, err, tmp_path, before=["wide.csv"])
        assert phrase in err
    argv = ["evaluate", model, data["dir"] / "train.csv", "--true-labels", "zz"]
    code, out, err = run(argv, capsys)
    _assert_clean_failure(code, out, err, tmp_path, before=["wide.csv"])
    assert "'zz'" in err


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
    fail_before_fit(monkeypatch)
    out = tmp_path / "m.skops"
    code, stdout, err = run(
        ["fit", cli_data / "train.csv", "-o", out, *CLI_FIT_ARGS, *option], capsys
    )
    assert code == 2 and stdout == "" and not out.exists()
    assert len(err.strip().splitlines()) == 1 and f"argument {option[0]}" in err, err


@pytest.mark.parametrize("kind, phrase", [("dir", "is a directory"), ("fifo", "FIFO")])
def test_data_path_that_is_not_a_file(tmp_path, capsys, kind, phrase):
    import os

    from unlabeled.datasets import load_csv

    path = tmp_path / "data.csv"
    path.mkdir() if kind == "dir" else os.mkfifo(path)
    with pytest.raises(ValueError, match=phrase):
        load_csv(path)  # never opened: a FIFO would block
    code, _, err = run(["fit", path, "-o", tmp_path / "m.skops", *CLI_FIT_ARGS], capsys)
    assert code == 1 and phrase in err and "not found" not in err


def test_usage_errors_are_one_line(capsys):
    for argv in ([], ["bogus"], ["fit"], ["predict", "m.skops"], ["fit", "x.csv", "--prior", "a"]):
        code, out, err = run(argv, capsys)
        assert code == 2 and out == ""
        assert len(err.strip().splitlines()) == 1 and err.startswith("unlabeled: error: ")


def test_debug_shows_the_exception(tmp_path, monkeypatch):
    monkeypatch.setenv("UNLABELED_DEBUG", "1")
    with pytest.raises(Exception, match="not found"):
        main(["predict", str(tmp_path / "none.skops"), str(tmp_path / "none.csv")])


def test_warnings_are_one_line(data, tmp_path, capsys):
    out = tmp_path / "m.skops"
    code, _, err = run(
        ["fit", data["dir"] / "train.svm", "-o", out, *PARAMS, "--max-iter", "2"], capsys
    )
    assert code == 0 and out.is_file()
    warning = [line for line in err.splitlines() if "warning" in line]
    assert len(warning) == 1 and warning[0].startswith("unlabeled: warning: ")


# ---------------------------------------------------------------------- quiet, help, demo
def test_quiet_prints_only_results(data, model, tmp_path, capsys):
    code, out, err = run(
        ["fit", data["dir"] / "train.svm", "-o", tmp_path / "m.skops", *PARAMS, "--quiet"], capsys
    )
    assert code == 0 and err == "" and out.count("\n") == 1
    code, out, err = run(["predict", model, data["dir"] / "features.csv", "-q"], capsys)
    assert code == 0 and err == "" and out.splitlines()[0] == "prediction"
    assert len(out.splitlines()) == 1 + data["X"].shape[0]
    code, out, err = run(
        ["predict", model, data["dir"] / "features.csv", "-q", "-o", tmp_path / "p.csv"], capsys
    )
    assert code == 0 and err == "" and out == ""
    code, out, err = run(["evaluate", model, data["dir"] / "train.csv", "-q", "--json"], capsys)
    assert code == 0 and err == "" and "pu_risk" in json.loads(out)
    # without --quiet, progress and notes go to stderr, results still alone on stdout
    code, out, err = run(["predict", model, data["dir"] / "features.csv"], capsys)
    assert code == 0 and "loading" in err and out.splitlines()[0] == "prediction"


@pytest.mark.parametrize("command", [None, "fit", "predict", "evaluate", "demo"])
def test_help(capsys, command):
    code, out, _ = run([command, "--help"] if command else ["--help"], capsys)
    assert code == 0 and "usage: unlabeled" in out
    if command in (None, "fit", "predict", "evaluate"):
        assert "examples:" in out
    if command == "fit":
        for option in ("--label-column", "--positive-value", "--prior", "--search", "--quiet"):
            assert option in out


def test_version(capsys):
    code, out, _ = run(["--version"], capsys)
    assert code == 0 and out.strip() == f"unlabeled {unlabeled.__version__}"


def test_demo_still_runs(capsys):
    code, out, _ = run(["demo"], capsys)
    assert code == 0 and "PUSVC (rbf)" in out and "SVC, unlabeled as negative" in out


# ---------------------------------------------------------------------- subprocess
def _subprocess(*argv, cwd):
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    env.pop("UNLABELED_DEBUG", None)
    return subprocess.run(
        [sys.executable, "-m", "unlabeled", *map(str, argv)],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=120,
    )


def test_predict_process_loads_no_estimator_list(tmp_path):
    """``unlabeled predict`` spent 2 of its 3.6 s importing skops, whose list of
    scikit-learn's estimators imports every module of scikit-learn, and torch and Dask
    through their array-API adapters. The command's own process skips that list: a model of
    SVM+ (its privileged SVC, a scikit-learn type inside the file) loads and predicts as
    from Python, and the process never imports torch."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = np.where(X[:, 0] > 0, 1, -1)
    text = "f0,f1,p0,y\n" + "".join(f"{a},{b},{c},{t}\n" for (a, b, c), t in zip(X, y, strict=True))
    (tmp_path / "t.csv").write_text(text)
    fit = ["fit", "t.csv", "--estimator", "svmplus", "--privileged-columns", "p0",
           "--label-column", "y", "--mode", "dsvm+", "-q", "-o", "m.skops"]  # fmt: skip
    assert _subprocess(*fit, cwd=tmp_path).returncode == 0
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    r = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "unlabeled", "predict", "m.skops", "t.csv"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    imported = {line.rsplit("|", 1)[-1].strip() for line in r.stderr.splitlines()}
    assert "skops.io" in imported and "torch" not in imported and "dask" not in imported
    model = unlabeled.load(tmp_path / "m.skops")
    np.testing.assert_array_equal(read_predictions(r.stdout)[0], model.predict(X[:, :2]))


def test_subprocess_round_trip_and_errors(data, tmp_path):
    r = _subprocess(
        "fit",
        data["dir"] / "train.npz",
        "--label-column",
        "s",
        *PARAMS,
        "-q",
        "-o",
        "m.skops",
        cwd=tmp_path,
    )
    assert r.returncode == 0 and r.stderr == "", r.stderr
    r = _subprocess("predict", "m.skops", data["dir"] / "train.npz", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    api = PUSVC(**API_PARAMS).fit(data["X"], data["s"])
    np.testing.assert_array_equal(read_predictions(r.stdout)[0], api.predict(data["X"]))

    r = _subprocess("fit", data["dir"] / "train.csv", "--prior", "2", "-o", "x.skops", cwd=tmp_path)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1
    assert "Traceback" not in r.stderr and not (tmp_path / "x.skops").exists()
    r = _subprocess("predict", data["dir"] / "train.csv", data["dir"] / "train.csv", cwd=tmp_path)
    assert r.returncode == 1 and r.stderr.startswith("unlabeled: error: ")
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr


# ---------------------------------------------------------------------- features of other branches
def test_prior_auto(data, tmp_path, capsys):
    model = tmp_path / "m.skops"
    code, out, err = run(
        [
            "fit",
            data["dir"] / "train.svm",
            "-o",
            model,
            "--prior",
            "auto",
            "--random-state",
            "0",
            "-q",
        ],
        capsys,
    )
    assert code == 0, err
    est, meta = load_model(model)
    assert est.prior == "auto" and 0 < est.prior_ < 1 and meta["prior_"] == est.prior_
    X, s = load_svmlight(data["dir"] / "train.svm")
    api = PUSVC(prior="auto", random_state=0).fit(X, s)
    np.testing.assert_array_equal(est.predict(X), api.predict(X))


def test_search(data, tmp_path, capsys):
    from unlabeled.model_selection import PUGridSearchCV

    model = tmp_path / "m.skops"
    argv = [
        "fit",
        data["dir"] / "train.svm",
        "-o",
        model,
        *PARAMS,
        "--search",
        "--cv",
        "2",
        "--grid-lam",
        "0.01",
        "0.1",
        "--grid-gamma",
        "0.5",
        "1",
        "-q",
    ]
    code, out, err = run(argv, capsys)
    assert code == 0, err
    est, meta = load_model(model)
    X, s = load_svmlight(data["dir"] / "train.svm")
    search = PUGridSearchCV(
        PUSVC(**API_PARAMS), {"lam": [0.01, 0.1], "gamma": [0.5, 1.0]}, cv=2, random_state=0
    ).fit(X, s)
    assert meta["search"]["best_params"] == search.best_params_
    assert "best parameters" in out and json.dumps(search.best_params_) in out
    np.testing.assert_array_equal(est.predict(X), search.best_estimator_.predict(X))


def test_cli_csv_reader_refuses_an_extra_field(tmp_path, capsys):
    from unlabeled.cli import main

    path = tmp_path / "data.csv"
    rows = "\n".join(f"{i % 3},{i % 5},{int(i % 2)}" for i in range(20))
    path.write_text("x,y,s\n" + rows + "\n1,2,3,1\n")
    code = main(["fit", str(path), "-o", str(tmp_path / "m.skops"), "--prior", "0.4"])
    assert code != 0
    assert "line 22 has 4 fields, expected 3" in capsys.readouterr().err
