"""``unlabeled fit --estimator NAME`` for every family: fit -> predict -> evaluate from the
command line on tiny CSV files gives what the same estimator fitted in Python gives; the
estimator's parameters are options generated from its declaration; bad values are one-line
usage errors naming the option; ``unlabeled --help`` loads no estimator, skops or
scikit-learn."""

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from sklearn.metrics import accuracy_score, adjusted_rand_score

import unlabeled
from unlabeled import (
    CLSST,
    MISVM,
    TSVM,
    LabeledSVM,
    LapSVM,
    MILWellSVM,
    PlummerAutoencoder,
    SVMPlus,
    WellSVM,
    WellSVMClustering,
    miSVM,
)
from unlabeled.cli import build_parser, main
from unlabeled.registry import FAMILIES, all_estimators

SRC = Path(unlabeled.__file__).resolve().parents[1]
N = 40


def _write(path, header, rows):
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """One tiny problem per layout; floats written with repr, so the CSV holds X exactly."""
    d = tmp_path_factory.mktemp("families")
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(1, 1, (N // 2, 2)), rng.normal(-1, 1, (N // 2, 2))]
    truth = np.r_[np.ones(N // 2, int), np.zeros(N // 2, int)]
    ssl = truth.copy()
    ssl[rng.permutation(N)[: N * 3 // 5]] = -1
    bag = np.repeat(np.arange(N // 4), 4)[rng.permutation(N)]
    bag_label = (np.bincount(bag, weights=truth) > 2).astype(int)[bag]
    P = np.c_[2 * X[:, 0] + truth, X[:, 1] - truth]  # privileged: the class shows through
    xs = X.tolist()
    _write(
        d / "ssl.csv",
        ["a", "b", "y", "truth"],
        [[*x, s, t] for x, s, t in zip(xs, ssl, truth, strict=True)],
    )
    _write(d / "points.csv", ["a", "b", "truth"], [[*x, t] for x, t in zip(xs, truth, strict=True)])
    _write(
        d / "bags.csv",
        ["bag", "a", "b", "y"],
        [[g, *x, t] for g, x, t in zip(bag, xs, bag_label, strict=True)],
    )
    _write(
        d / "lupi.csv",
        ["a", "b", "p1", "p2", "y"],
        [[*x, *p, t] for x, p, t in zip(xs, P.tolist(), truth, strict=True)],
    )
    return {
        "dir": d,
        "X": X,
        "truth": truth,
        "ssl": ssl,
        "bag": bag,
        "bag_label": bag_label,
        "P": P,
    }


def run(argv, capsys):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def table(text):
    rows = list(csv.reader(text.splitlines()))
    return rows[0], rows[1:]


# ---------------------------------------------------------------------- round trips
# name, file, fit options, python estimator, how the python fit is called
SSL = "--label-column y --ignore-column truth"
CASES = [  # registry: each command's options and its Python twin
    ("wellsvm", "ssl.csv", f"{SSL} --C2 0.5 --random-state 0", WellSVM(C2=0.5, random_state=0)),
    ("tsvm", "ssl.csv", f"{SSL} --C1 2 --max-iter 200", TSVM(C1=2.0, max_iter=200)),
    (
        "lapsvm",
        "ssl.csv",
        f"{SSL} --n-neighbors 4 --gamma-I 0.5",
        LapSVM(n_neighbors=4, gamma_I=0.5),
    ),
    ("labeledsvm", "ssl.csv", f"{SSL} --kernel linear", LabeledSVM(kernel="linear")),
    (
        "clsst",
        "ssl.csv",
        f"{SSL} --n-factors 1 --random-state 0",
        CLSST(n_factors=1, random_state=0),
    ),
    ("mil-wellsvm", "bags.csv", "--bag-column bag --C1 5", MILWellSVM(C1=5.0)),
    ("misvm-bag", "bags.csv", "--bag-column bag --C-negative 0.5", MISVM(C_negative=0.5)),
    ("misvm-instance", "bags.csv", "--bag-column bag --max-iter 20", miSVM(max_iter=20)),
    (
        "cluster-wellsvm",
        "points.csv",
        "--ignore-column truth --n-init 5 --random-state 0",
        WellSVMClustering(n_init=5, random_state=0),
    ),
    ("svmplus", "lupi.csv", "--privileged-columns p1,p2 --gamma-plus 2", SVMPlus(gamma_plus=2.0)),
    ("tsvm", "ssl.csv", f"{SSL} --no-standardize", TSVM(standardize=False)),  # issue 46
]


#: --estimator NAME -> its registry entry (every registered estimator with a command)
COMMANDS = {e.command: e for e in all_estimators() if e.command}


def _python_fit(est, name, f):
    """fit as the estimator's family declares it, on the arrays of the family's file."""
    y = {"ssl": f["ssl"], "mil": f["bag_label"]}.get(COMMANDS[name].family, f["truth"])
    data = {"X": f["X"], "y": y, "groups": f["bag"], "X_star": f["P"]}
    args, kwargs = FAMILIES[COMMANDS[name].family].arguments(data)
    return est.fit(*args, **kwargs)


@pytest.mark.parametrize(
    "name, data, options, est",
    [pytest.param(*c, id=c[0]) for c in CASES],
)
def test_fit_predict_evaluate_match_python(files, tmp_path, capsys, name, data, options, est):
    path = files["dir"] / data
    model = tmp_path / "m.skops"
    code, out, err = run(["fit", path, "--estimator", name, *options.split(), "-o", model], capsys)
    assert code == 0, err
    assert "saved to" in out and model.is_file()
    api = _python_fit(est, name, files)
    X = files["X"]

    code, out, err = run(["predict", model, path], capsys)
    assert code == 0, err
    header, rows = table(out)
    bags = "groups" in FAMILIES[COMMANDS[name].family].keywords
    if bags:  # one row per bag, in the order of the sorted bag ids
        assert header == ["bag", "prediction"]
        expected = api.predict(X, groups=files["bag"])
        assert [int(r[0]) for r in rows] == np.unique(files["bag"]).tolist()
    else:
        assert header == ["prediction"]
        expected = api.predict(X)
    np.testing.assert_array_equal([int(r[-1]) for r in rows], expected)

    argv = ["evaluate", model, path, "--json"]
    if COMMANDS[name].family in ("cluster", "ssl"):
        argv += ["--true-labels", "truth"]
    code, out, err = run(argv, capsys)
    assert code == 0, err
    got = json.loads(out)
    truth = files["truth"]
    if name == "cluster-wellsvm":
        assert got["adjusted_rand"] == pytest.approx(adjusted_rand_score(truth, expected))
    elif bags:
        assert got["bag_accuracy"] == pytest.approx(
            api.score(X, files["bag_label"], groups=files["bag"])
        )
    elif name == "svmplus":
        assert got["accuracy"] == pytest.approx(accuracy_score(truth, expected))
    else:
        given = files["ssl"] != -1
        assert got["accuracy_labeled"] == pytest.approx(
            accuracy_score(files["ssl"][given], expected[given])
        )
        assert got["accuracy_all"] == pytest.approx(accuracy_score(truth, expected))
        assert (got["n_labeled"], got["n_unlabeled"]) == (given.sum(), (~given).sum())


def test_ssl_unlabeled_rows_decision_and_proba(files, tmp_path, capsys):
    model = tmp_path / "m.skops"
    opts = [*SSL.split(), "--random-state", "0", "--probability"]
    code, _, err = run(
        ["fit", files["dir"] / "ssl.csv", "--estimator", "wellsvm", *opts, "-o", model], capsys
    )
    assert code == 0, err
    api = WellSVM(random_state=0, probability=True).fit(files["X"], files["ssl"])
    argv = ["predict", model, files["dir"] / "ssl.csv", "--unlabeled-only", "--decision", "--proba"]
    code, out, err = run(argv, capsys)
    assert code == 0, err
    header, rows = table(out)
    assert header == ["row", "prediction", "decision", "proba_0", "proba_1"]
    unl = np.flatnonzero(files["ssl"] == -1)
    got = np.array(rows, dtype=float)
    np.testing.assert_array_equal(got[:, 0], unl)
    X = files["X"][unl]
    np.testing.assert_array_equal(got[:, 1], api.predict(X))
    np.testing.assert_allclose(got[:, 2], api.decision_function(X), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(got[:, 3:], api.predict_proba(X), rtol=1e-12, atol=1e-12)


def test_proba_needs_probability(files, tmp_path, capsys):
    model = tmp_path / "m.skops"
    argv = ["fit", files["dir"] / "lupi.csv", "--estimator", "svmplus", "-o", model, "-q"]
    assert run([*argv, "--privileged-columns", "p1,p2"], capsys)[0] == 0
    code, out, err = run(["predict", model, files["dir"] / "lupi.csv", "--proba", "-q"], capsys)
    assert code == 1 and out == "" and "--probability" in err
    assert len(err.strip().splitlines()) == 1
    # the privileged columns are not features: a file of the features alone predicts too
    features = files["dir"] / "features.csv"
    _write(features, ["a", "b"], files["X"].tolist())
    code, out, err = run(["predict", model, features], capsys)
    assert code == 0, err
    api = SVMPlus().fit(files["X"], files["truth"], files["P"])
    np.testing.assert_array_equal([int(r[0]) for r in table(out)[1]], api.predict(files["X"]))


def test_autoencoder_fit_predict_sample(files, tmp_path, capsys):
    pytest.importorskip("torch")
    model = tmp_path / "pae.skops"
    opts = (
        "--ignore-column truth --max-iter 5 --hidden-layer-sizes 8 --batch-size 20 --random-state 0"
    )
    code, out, err = run(
        [
            "fit",
            files["dir"] / "points.csv",
            "--estimator",
            "pae",
            *opts.split(),
            "-o",
            model,
        ],
        capsys,
    )
    assert code == 0, err
    api = PlummerAutoencoder(max_iter=5, hidden_layer_sizes=8, batch_size=20, random_state=0)
    api.fit(files["X"])
    code, out, err = run(["predict", model, files["dir"] / "points.csv"], capsys)
    assert code == 0, err
    header, rows = table(out)
    assert header == ["z0", "z1"]
    np.testing.assert_allclose(
        np.array(rows, float), api.transform(files["X"]), rtol=1e-5, atol=1e-6
    )
    code, out, err = run(["evaluate", model, files["dir"] / "points.csv", "--json"], capsys)
    assert code == 0, err
    assert json.loads(out)["score"] == pytest.approx(api.score(files["X"]), rel=1e-5)
    samples = tmp_path / "s.csv"
    code, _, err = run(["sample", model, "-n", "7", "--random-state", "3", "-o", samples], capsys)
    assert code == 0, err
    header, rows = table(samples.read_text())
    assert header == ["a", "b"] and len(rows) == 7
    np.testing.assert_allclose(
        np.array(rows, float), api.sample(7, random_state=3), rtol=1e-5, atol=1e-6
    )


def test_autoencoder_without_torch_is_one_line(files, tmp_path, capsys, monkeypatch):
    import importlib.util

    find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda n, *a: None if n == "torch" else find_spec(n, *a)
    )
    argv = [
        "fit",
        files["dir"] / "points.csv",
        "--estimator",
        "pae",
        "-o",
        tmp_path / "m.skops",
    ]
    code, out, err = run(argv, capsys)
    assert code == 1 and out == "" and "PyTorch" in err and "pip install 'torch>=2.2" in err
    assert not (tmp_path / "m.skops").exists()


# ---------------------------------------------------------------------- generated options
def _fit_parser(name):
    parser = build_parser(name)
    sub = next(a for a in parser._actions if a.dest == "command")
    return sub.choices["fit"]


NAMES = list(COMMANDS)
CLASSES = {name: e.load() for name, e in COMMANDS.items()}
#: parameters that no command-line text can give (objects), or that mean nothing in a fresh
#: process: they have no option
NO_OPTION = {"classes", "warm_start"}


@pytest.mark.parametrize("name", NAMES)
def test_every_parameter_is_an_option(name):
    options = {s for a in _fit_parser(name)._actions for s in a.option_strings}
    cls = CLASSES[name]
    for param in cls._get_param_names():
        option = "--" + param.replace("_", "-")
        if param in NO_OPTION:
            assert option not in options, option
        else:
            assert option in options, f"{name}: no {option}"
    help_text = _fit_parser(name).format_help()
    assert f"{cls.__name__} parameters" in help_text


@pytest.mark.parametrize(
    "name, option, value, phrase",
    [  # registry: a bad value per command
        ("wellsvm", "--C2", "-1", "> 0"),
        ("tsvm", "--kernel", "sigmoid", "must be one of"),
        ("lapsvm", "--n-neighbors", "2.5", "integer"),
        ("cluster-wellsvm", "--beta", "1", "< 1"),
        ("misvm-bag", "--C-negative", "zero", "None or a positive number"),
        ("svmplus", "--gamma-star", "-3", ">= 0"),
        ("clsst", "--noise", "gauss", "must be one of"),
        ("pusvc", "--prior", "1.5", "< 1"),
        ("pae", "--batch-size", "1", ">= 2"),
    ],
)
def test_bad_values_are_usage_errors_naming_the_option(
    files, tmp_path, capsys, name, option, value, phrase
):
    argv = ["fit", files["dir"] / "points.csv", "--estimator", name, option, value]
    code, out, err = run([*argv, "-o", tmp_path / "m.skops"], capsys)
    assert code == 2 and out == "" and not (tmp_path / "m.skops").exists()
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"unlabeled: error: argument {option}: "), err
    assert phrase in lines[0]


@pytest.mark.parametrize(
    "argv, phrase",
    [  # registry: a wrong option per family
        (["--estimator", "misvm-bag"], "needs --bag-column"),
        (["--estimator", "wellsvm", "--bag-column", "a"], "multi-instance"),
        (["--estimator", "tsvm", "--privileged-columns", "a"], "svmplus"),  # registry: hint
        (["--estimator", "cluster-wellsvm", "--label-column", "truth"], "no label column"),
        (["--estimator", "wellsvm", "--search"], "pusvc"),  # registry: hint
        (["--estimator", "nope"], "invalid choice"),
        (["--estimator", "wellsvm", "--lam", "0.1"], "unrecognized arguments: --lam"),
    ],
)
def test_options_of_another_family_are_refused(files, tmp_path, capsys, argv, phrase):
    code, out, err = run(
        ["fit", files["dir"] / "points.csv", *argv, "-o", tmp_path / "m.skops"], capsys
    )
    assert code == 2 and out == "" and phrase in err and len(err.strip().splitlines()) == 1, err


def test_fit_help_lists_the_chosen_estimators_options(capsys):
    code, out, _ = run(["fit", "--estimator", "wellsvm", "--help"], capsys)
    assert code == 0 and "WellSVM parameters" in out and "--C2" in out and "[--prior" not in out
    assert "Weight of the hinge loss on unlabeled points" in out  # from the docstring
    code, out, _ = run(["fit", "--est=misvm-instance", "--help"], capsys)
    assert code == 0 and "miSVM parameters" in out


# ---------------------------------------------------------------------- start-up cost
def _loaded_after(*argv):
    code = (
        "import contextlib, io, sys\n"
        "from unlabeled.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    main({list(argv)!r})\n"
        "print(' '.join(sorted(sys.modules)))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    r = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120
    )
    assert r.returncode == 0, r.stderr
    return set(r.stdout.split())


def test_help_loads_no_estimator_skops_or_sklearn():
    for argv in (["--help"], ["predict", "--help"], ["evaluate", "--help"], ["sample", "--help"]):
        loaded = _loaded_after(*argv)
        heavy = {m for m in loaded if m.split(".")[0] in ("skops", "sklearn", "numpy", "torch")}
        assert heavy == set(), (argv, sorted(heavy)[:5])
        # the registry (the estimator list, read from the source) but no estimator
        assert not {
            m for m in loaded if m.startswith("unlabeled.") and not m.startswith("unlabeled.cli")
        } - {"unlabeled._version", "unlabeled.registry"}
    loaded = _loaded_after("fit", "--estimator", "wellsvm", "--help")
    assert "unlabeled.ssl" in loaded and "skops" not in loaded
    assert not {"unlabeled.pu", "unlabeled.mil", "unlabeled.cluster", "unlabeled.lupi"} & loaded


def test_pusvc_is_the_default_and_gives_probabilities(cli_data, tmp_path, capsys):
    """--estimator pusvc is today's fit, word for word; --proba gives PUSVC's predict_proba."""
    from unlabeled import PUSVC
    from unlabeled.datasets import load_csv

    data = cli_data / "train.csv"
    args = ["--prior", "0.4", "--n-jobs", "1", "--random-state", "0"]
    outs = []
    for extra in ([], ["--estimator", "pusvc"]):
        code, out, err = run(["fit", data, *args, *extra, "-o", tmp_path / "m.skops"], capsys)
        assert code == 0, err
        outs.append(out)
    assert outs[0] == outs[1] and outs[0].startswith("PUSVC(kernel='rbf', lam=0.01, prior=0.4)")
    model = tmp_path / "p.skops"
    code, _, err = run(["fit", data, *args, "--probability", "-o", model, "-q"], capsys)
    assert code == 0, err
    code, out, err = run(["predict", model, data, "--proba", "-q"], capsys)
    assert code == 0, err
    header, rows = table(out)
    X, s = load_csv(data)
    api = PUSVC(prior=0.4, n_jobs=1, random_state=0, probability=True).fit(X, s)
    assert header == ["prediction", "proba_0", "proba_1"]
    got = np.array(rows, dtype=float)
    np.testing.assert_array_equal(got[:, 0], api.predict(X))
    np.testing.assert_allclose(got[:, 1:], api.predict_proba(X), rtol=1e-12, atol=1e-12)


# ---------------------------------------------------------------------- former names
@pytest.mark.parametrize(
    "old, new",
    [(e.aliases[0], e.command) for e in COMMANDS.values() if e.aliases and not e.needs],
)
def test_former_names_still_fit_with_a_deprecation_warning(files, tmp_path, capsys, old, new):
    """A script written for a former --estimator name keeps working: the same model, and
    one warning line that names the new name."""
    data = files["dir"] / ("bags.csv" if new.startswith("misvm") else "points.csv")
    options = ["--bag-column", "bag"] if new.startswith("misvm") else ["--ignore-column", "truth"]
    models = []
    for name in (old, new):
        model = tmp_path / f"{name}.skops"
        code, out, err = run(["fit", data, "--estimator", name, *options, "-o", model], capsys)
        assert code == 0, err
        models.append(model)
        warned = [line for line in err.splitlines() if "deprecated" in line]
        if name == old:
            assert warned == [
                f"unlabeled: warning: --estimator {old} is deprecated and will be removed: "
                f"use --estimator {new}"
            ]
        else:
            assert warned == []
    outputs = [run(["predict", m, data, "--decision"], capsys)[1] for m in models]
    assert outputs[0] == outputs[1]
    code, out, _ = run(["fit", f"--est={old}", "--help"], capsys)
    assert code == 0 and f"{COMMANDS[new].name} parameters (--estimator {new};" in out
