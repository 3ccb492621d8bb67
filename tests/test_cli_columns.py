"""The command's column contract (docs/user_guide/command_line.rst, 'Columns'): a CSV file with
a header line is matched by name to the model's features, for every family, on predict and
evaluate; a missing, doubled or unknown column is a one-line error naming it, a reordered file
gives the same results; a file without a header line is matched by count. Also the empty bag
id, a single labeled class for CLSST, and ``sample -n`` over the memory budget."""

import csv
import json
import zipfile

import numpy as np
import pytest
from conftest import declares
from test_common import _option

import unlabeled
from unlabeled.cli import main
from unlabeled.model_io import META_MEMBER
from unlabeled.registry import all_estimators

N = 40


def _write(path, header, rows):
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        if header is not None:
            w.writerow(header)
        w.writerows(rows)


def _read(path):
    rows = list(csv.reader(path.read_text().splitlines()))
    return rows[0], rows[1:]


def _columns(path, src, names):
    """A copy of the CSV ``src`` with the columns ``names`` (new names get a column of 7s)."""
    header, rows = _read(src)
    table = [[r[header.index(c)] if c in header else "7" for c in names] for r in rows]
    _write(path, names, table)
    return path


def run(argv, capsys):
    """The command, ``-q``: stderr holds only warnings and errors."""
    code = main([*map(str, argv), "-q"])
    out, err = capsys.readouterr()
    return code, out, err


def assert_error_line(code, out, err, *phrases):
    """The command's documented failure: status 1 or 2, one line ``unlabeled: error: ...``."""
    assert code in (1, 2) and out == "", (code, out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("unlabeled: error: "), err
    for phrase in phrases:
        assert phrase in lines[0], (phrase, lines[0])


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("columns")
    rng = np.random.default_rng(1)
    X = np.r_[rng.normal(1, 1, (N // 2, 2)), rng.normal(-1, 1, (N // 2, 2))]
    truth = np.r_[np.ones(N // 2, int), np.zeros(N // 2, int)]
    y = truth.copy()
    y[rng.permutation(N)[: N // 2]] = -1  # -1: unlabeled (SSL); not the positive value (PU)
    bag = np.repeat(np.arange(N // 4), 4)[rng.permutation(N)]
    bag_label = (np.bincount(bag, weights=truth) > 2).astype(int)[bag]
    P = np.c_[2 * X[:, 0] + truth, X[:, 1] - truth]
    columns = {"a": X[:, 0], "b": X[:, 1], "y": y, "truth": truth, "bag": bag, "p1": P[:, 0]}
    columns.update(p2=P[:, 1], bag_label=bag_label)
    for name, header in [
        ("pu", ["a", "b", "y"]),
        ("ssl", ["a", "b", "y", "truth"]),
        ("bags", ["bag", "a", "b", "bag_label"]),
        ("lupi", ["a", "b", "p1", "p2", "truth"]),
        ("points", ["a", "b", "truth"]),
    ]:
        rows = np.c_[tuple(columns[c] for c in header)].astype(object)
        for j, c in enumerate(header):  # integers as integers, floats exactly (repr)
            rows[:, j] = columns[c].tolist()
        _write(d / f"{name}.csv", [h if h != "bag_label" else "y" for h in header], rows.tolist())
    return d


# family -> (its training file, the options that read it, the evaluate options)
TRUTH = "--true-labels truth"
FAMILIES = {
    "pu": ("pu.csv", "--label-column y", ""),
    "ssl": ("ssl.csv", "--label-column y --ignore-column truth", TRUTH),
    "mil": ("bags.csv", "--bag-column bag", ""),
    "lupi": ("lupi.csv", "--privileged-columns p1,p2", ""),
    "cluster": ("points.csv", "--ignore-column truth", TRUTH),
    "generative": ("points.csv", "--ignore-column truth", ""),
}
#: every estimator of the command line, by its --estimator name
COMMANDS = {e.command: e for e in all_estimators(load=True) if e.command}


def _options(entry) -> list[str]:
    """The options of the estimator's first common case (tests/test_common.py: small, fast
    settings), seeded where it has a random_state."""
    params = dict(entry.cases[0].params)
    if declares(entry.load(), "random_state"):
        params.setdefault("random_state", 0)
    return [o for name, value in params.items() for o in _option(name, value)]


@pytest.fixture(scope="module", params=sorted(COMMANDS))
def fitted(request, files, tmp_path_factory):
    """(estimator name, model file, training file), fitted once per estimator."""
    name = request.param
    entry = COMMANDS[name]
    for module in entry.needs:
        pytest.importorskip(module)
    data, options, _ = FAMILIES[entry.family]
    model = tmp_path_factory.mktemp(name) / "m.skops"
    argv = ["fit", files / data, "--estimator", name, *options.split(), *_options(entry)]
    assert main(list(map(str, [*argv, "-o", model, "-q"]))) == 0
    return name, model, files / data


def _commands(name, model, path):
    """predict and evaluate of the family on ``path``."""
    return [
        ["predict", model, path],
        ["evaluate", model, path, "--json", *FAMILIES[COMMANDS[name].family][2].split()],
    ]


def test_model_keeps_the_feature_names(fitted):
    name, model, _ = fitted
    assert list(unlabeled.load(model).feature_names_in_) == ["a", "b"]


def test_reordered_columns_give_the_same_results(fitted, tmp_path, capsys):
    name, model, data = fitted
    header, _ = _read(data)
    reordered = _columns(tmp_path / "r.csv", data, header[::-1])
    for original, shuffled in zip(
        _commands(name, model, data), _commands(name, model, reordered), strict=True
    ):
        code, expected, err = run(original, capsys)
        assert code == 0, err
        code, got, err = run(shuffled, capsys)
        assert code == 0, err
        if original[0] == "evaluate":
            expected, got = json.loads(expected), json.loads(got)
            expected.pop("data"), got.pop("data")
        assert got == expected


def test_missing_feature_column_is_an_error(fitted, tmp_path, capsys):
    name, model, data = fitted
    header, _ = _read(data)
    missing = _columns(tmp_path / "m.csv", data, [c for c in header if c != "b"])
    for argv in _commands(name, model, missing):
        assert_error_line(*run(argv, capsys), "no column ['b']", "m.csv'")


def test_unknown_column_is_an_error(fitted, tmp_path, capsys):
    name, model, data = fitted
    header, _ = _read(data)
    extra = _columns(tmp_path / "e.csv", data, [*header[:1], "zz", *header[1:]])
    for argv in _commands(name, model, extra):
        assert_error_line(*run(argv, capsys), "column ['zz']", "does not know")


def test_label_column_in_place_of_a_feature_is_refused_for_every_estimator(files, tmp_path, capsys):
    """The reproducer: fit on f0,f1,y; predict on f0,y used y as the second feature, exit 0
    (the PU and semi-supervised estimators)."""
    _columns(tmp_path / "train.csv", files / "pu.csv", ["a", "b", "y"])
    test = _columns(tmp_path / "test.csv", files / "pu.csv", ["a", "y"])
    for name in (n for n, e in COMMANDS.items() if e.family in ("pu", "ssl")):
        model = tmp_path / f"{name}.skops"
        argv = ["fit", tmp_path / "train.csv", "--estimator", name, "--label-column", "y", "-q"]
        argv += _options(COMMANDS[name])
        code, _, err = run([*argv, "-o", model], capsys)
        assert code == 0, err
        assert_error_line(*run(["predict", model, test], capsys), "no column ['b']")


def test_columns_named_on_the_command_line_may_stay(files, tmp_path, capsys):
    model = tmp_path / "c.skops"
    argv = [
        "fit",
        files / "points.csv",
        "--estimator",
        "cluster-wellsvm",
        "--ignore-column",
        "truth",
    ]
    assert run([*argv, "--n-init", "3", "-o", model], capsys)[0] == 0
    data = _columns(tmp_path / "d.csv", files / "points.csv", ["b", "other", "a"])
    code, out, err = run(["evaluate", model, data, "--true-labels", "other", "--json"], capsys)
    assert code == 0, err
    assert json.loads(out)["n_samples"] == N


def test_header_names_used_twice_are_refused(files, tmp_path, capsys):
    twice = tmp_path / "twice.csv"
    header, rows = _read(files / "ssl.csv")
    _write(twice, ["a", "b", "y", "a"], rows)
    argv = ["fit", twice, "--estimator", "wellsvm", "--label-column", "y", "-o", tmp_path / "m"]
    assert_error_line(*run(argv, capsys), "more than one column named ['a']")
    model = tmp_path / "m.skops"
    argv = [
        "fit",
        files / "ssl.csv",
        "--estimator",
        "labeledsvm",
        "--ignore-column",
        "truth",
        "--label-column",
        "y",
    ]
    assert run([*argv, "-o", model], capsys)[0] == 0
    assert_error_line(*run(["predict", model, twice], capsys), "more than one column named ['a']")


def test_without_a_header_the_columns_are_matched_by_count(files, tmp_path, capsys):
    model = tmp_path / "m.skops"
    argv = ["fit", files / "lupi.csv", "--estimator", "svmplus", "--privileged-columns", "p1,p2"]
    assert run([*argv, "-o", model], capsys)[0] == 0
    code, expected, err = run(["predict", model, files / "lupi.csv"], capsys)
    assert code == 0, err
    header, rows = _read(files / "lupi.csv")
    for kept in (header, ["a", "b"]):  # the training layout, or the features alone
        bare = tmp_path / "bare.csv"
        _write(bare, None, [[r[header.index(c)] for c in kept] for r in rows])
        code, out, err = run(["predict", model, bare], capsys)
        assert code == 0, err
        assert out == expected
    _write(bare, None, [r[:3] for r in rows])
    assert_error_line(
        *run(["predict", model, bare], capsys), "has 3 columns", "5, as the training file"
    )


def test_a_dataframe_models_feature_names_are_matched(files, tmp_path, capsys):
    pd = pytest.importorskip("pandas")
    header, rows = _read(files / "pu.csv")
    frame = pd.DataFrame(np.array(rows, float), columns=header)
    est = unlabeled.PUSVC(prior=0.4, n_jobs=1).fit(frame[["a", "b"]], frame["y"] == 1)
    model = tmp_path / "py.skops"
    unlabeled.save(est, model)
    data = _columns(tmp_path / "ba.csv", files / "pu.csv", ["b", "a"])
    code, out, err = run(["predict", model, data], capsys)
    assert code == 0 and err == "", err
    expected = est.predict(frame[["a", "b"]])
    np.testing.assert_array_equal([int(r[0]) for r in _read_text(out)], expected)
    data = _columns(tmp_path / "ac.csv", files / "pu.csv", ["a", "c"])
    assert_error_line(*run(["predict", model, data], capsys), "no column ['b']")


@pytest.mark.parametrize(
    "key, value",
    [("features", [0, 99]), ("features", [0]), ("names", "ab"), ("n_columns", "4"), ("bag", -1)],
)
def test_a_damaged_record_of_the_training_columns_is_refused(files, tmp_path, capsys, key, value):
    """The model file's record of its training file (JSON, untrusted) says where the features
    are: one that cannot is refused, not followed into an IndexError."""
    model = tmp_path / "m.skops"
    argv = ["fit", files / "ssl.csv", "--estimator", "labeledsvm", "--label-column", "y"]
    assert run([*argv, "--ignore-column", "truth", "-o", model], capsys)[0] == 0
    _rewrite_record(model, lambda meta: meta["data"].__setitem__(key, value))
    assert_error_line(*run(["predict", model, files / "ssl.csv"], capsys), "damaged")


def _rewrite_record(model, change):
    """Apply ``change`` to the model file's record (its JSON member), keeping the rest."""
    with zipfile.ZipFile(model) as zf:
        members = [(info, zf.read(info)) for info in zf.infolist()]
    with zipfile.ZipFile(model, "w") as zf:
        for info, content in members:
            if info.filename == META_MEMBER:
                meta = json.loads(content)
                change(meta)
                content = json.dumps(meta).encode()
            zf.writestr(info, content)


# registry: the families of the command's estimators other than the model's (mil)
@pytest.mark.parametrize("family", [["mil"], "nonsense", 7, "ssl", "pu", "lupi", "cluster"])
def test_a_record_naming_no_family_falls_back_on_the_class(files, tmp_path, capsys, family):
    """A model file whose record names no family the command knows, or another family than
    its class's (the record is JSON, untrusted), is used as its class's family: a
    multi-instance model still predicts one row per bag, the same as from the file as
    written (an edit to another family once leaked an AttributeError)."""
    model = tmp_path / "m.skops"
    argv = ["fit", files / "bags.csv", "--estimator", "misvm-bag", "--bag-column", "bag"]
    assert run([*argv, "--label-column", "y", "-o", model], capsys)[0] == 0
    predict = ["predict", model, files / "bags.csv", "--decision"]
    code, written, err = run(predict, capsys)
    assert code == 0 and err == "" and written.startswith("bag,prediction,decision\n")
    _rewrite_record(model, lambda meta: meta.__setitem__("family", family))
    assert run(predict, capsys) == (0, written, "")


def _read_text(text):
    return list(csv.reader(text.splitlines()))[1:]


# ---------------------------------------------------------------------- item 7: bag ids, CLSST
def test_an_empty_bag_id_is_an_error_naming_row_and_column(files, tmp_path, capsys):
    header, rows = _read(files / "bags.csv")
    rows[5][0] = " "
    holed = tmp_path / "holed.csv"
    _write(holed, header, rows)
    model = tmp_path / "m.skops"
    argv = ["fit", holed, "--estimator", "misvm-bag", "--bag-column", "bag", "-o", model]
    assert_error_line(*run(argv, capsys), "column 'bag'", "data row 6", "empty bag id")
    assert not model.exists()
    argv = ["fit", files / "bags.csv", "--estimator", "misvm-bag", "--bag-column", "bag"]
    assert run([*argv, "-o", model], capsys)[0] == 0
    for command in (["predict"], ["evaluate"]):
        code, out, err = run([*command, model, holed], capsys)
        assert_error_line(code, out, err, "column 'bag'", "data row 6", "empty bag id")
    npz = tmp_path / "holed.npz"
    bag = np.array([r[0].strip() for r in rows])
    np.savez(
        npz, X=np.array([r[1:3] for r in rows], float), y=np.array([r[3] for r in rows]), bag=bag
    )
    argv = [
        "fit",
        npz,
        "--estimator",
        "misvm-bag",
        "--bag-column",
        "bag",
        "-o",
        tmp_path / "n.skops",
    ]
    assert_error_line(*run(argv, capsys), "array 'bag'", "index 5", "empty bag id")


@pytest.mark.parametrize("name", sorted(n for n, e in COMMANDS.items() if e.family == "ssl"))
def test_an_empty_label_cell_is_an_error_naming_the_row(files, tmp_path, capsys, name):
    """A blank label cell is neither a class nor -1: every semi-supervised estimator refuses
    it by row, on fit and evaluate (CLSST, multi-class, once learned a class '')."""
    header, rows = _read(files / "ssl.csv")
    rows[5][2] = ""
    holed = tmp_path / "holed.csv"
    _write(holed, header, rows)
    model = tmp_path / "m.skops"
    argv = ["fit", "--estimator", name, "--label-column", "y", "--ignore-column", "truth"]
    assert_error_line(*run([*argv, holed, "-o", model], capsys), "data row 6", "empty label")
    assert not model.exists()
    assert run([*argv, files / "ssl.csv", "-o", model, *_options(COMMANDS[name])], capsys)[0] == 0
    code, out, err = run(["evaluate", model, holed, "--label-column", "y"], capsys)
    assert_error_line(code, out, err, "data row 6", "empty label")


@pytest.mark.parametrize("cell", ["nan", "-inf", "Inf"])
def test_a_non_finite_label_among_words_is_an_error_naming_the_row(tmp_path, capsys, cell):
    """A label column of words with a cell "nan" or "-inf": a class of that name was learned
    and predicted (the long fuzz of issue 53, labeledsvm seed 40008: a prediction "-inf");
    refused by row, as an empty cell, on fit and evaluate."""
    X = np.random.default_rng(0).normal(size=(12, 2))
    labels = ["yes", "no", "-1", "yes", "no", "-1", "yes", "no", "-1", "yes", "no", "-1"]
    lines = [f"{a:.6g},{b:.6g},{t}" for (a, b), t in zip(X, labels, strict=True)]
    good = tmp_path / "good.csv"
    good.write_text("\n".join(lines) + "\n")
    lines[4] = lines[4].rsplit(",", 1)[0] + "," + cell
    holed = tmp_path / "holed.csv"
    holed.write_text("\n".join(lines) + "\n")
    model = tmp_path / "m.skops"
    argv = ["fit", "--estimator", "labeledsvm"]
    assert_error_line(*run([*argv, holed, "-o", model], capsys), "data row 5", repr(cell))
    assert not model.exists()
    assert run([*argv, good, "-o", model], capsys)[0] == 0
    code, out, err = run(["evaluate", model, holed], capsys)
    assert_error_line(code, out, err, "data row 5", "non-finite")


def test_a_blank_line_in_a_file_of_one_column_is_a_missing_value(tmp_path, capsys):
    """In a file of one column a blank line is a row whose value is missing: the reader
    skipped it, and predict wrote 13 rows for a file of 14 (the fuzz, seed 9088: the first
    value empty). It is refused by line, on fit and predict; blank lines after the last row
    are not rows and stay skipped."""
    rng = np.random.default_rng(0)
    values = [f"{v:.6f}" for v in np.r_[rng.normal(-3, 1, 7), rng.normal(3, 1, 7)]]
    clean, model, pred = tmp_path / "clean.csv", tmp_path / "m.skops", tmp_path / "p.csv"
    clean.write_text("\n".join(values) + "\n\n\n")  # (trailing blank lines)
    assert run(["fit", clean, "--estimator", "cluster-wellsvm", "-o", model], capsys)[0] == 0
    assert run(["predict", model, clean, "-o", pred], capsys)[0] == 0
    assert len(pred.read_text().splitlines()) == 1 + len(values)
    for at, line in ((0, 1), (5, 6)):
        holed = tmp_path / f"holed{at}.csv"
        holed.write_text("\n".join([*values[:at], "", *values[at + 1 :]]) + "\n")
        argv = ["fit", holed, "--estimator", "cluster-wellsvm", "-o", tmp_path / "h.skops"]
        assert_error_line(*run(argv, capsys), f"line {line} is blank", "missing")
        assert not (tmp_path / "h.skops").exists()
        code, out, err = run(["predict", model, holed, "-o", pred], capsys)
        assert_error_line(code, out, err, f"line {line} is blank")


def test_clsst_with_one_labeled_class_warns_in_one_line(files, tmp_path, capsys):
    """One labeled class is a density model for CLSST (tests/test_clsst.py), not an error:
    the command fits it and says, in one warning line, that every point gets that class."""
    header, rows = _read(files / "ssl.csv")
    one = [[*r[:2], "1" if r[2] != "-1" else "-1", r[3]] for r in rows]
    data = tmp_path / "one.csv"
    _write(data, header, one)
    model = tmp_path / "m.skops"
    argv = ["fit", data, "--estimator", "clsst", "--ignore-column", "truth", "--label-column", "y"]
    code, out, err = run([*argv, "-o", model, "-q"], capsys)
    assert code == 0 and model.exists(), (code, out, err)
    warned = [line for line in err.splitlines() if "one class" in line or "every point" in line]
    assert len(warned) == 1 and warned[0].startswith("unlabeled: warning: "), err


# ---------------------------------------------------------------------- item 5: sample -n
def test_sample_over_the_memory_budget_is_refused_before_drawing(files, tmp_path, capsys):
    pytest.importorskip("torch")
    model = tmp_path / "pae.skops"
    argv = ["fit", files / "points.csv", "--estimator", "pae", "--ignore-column", "truth"]
    argv += ["--max-iter", "2", "--hidden-layer-sizes", "4", "--device", "cpu"]
    assert run([*argv, "-o", model], capsys)[0] == 0
    out = tmp_path / "s.csv"
    code, stdout, err = run(["sample", model, "-n", "2147483647", "-o", out], capsys)
    assert_error_line(code, stdout, err, "-n 2147483647", "budget")
    assert not out.exists()
    # the bound is the budget's: 2 features, 58 bytes a value, 1000 points fit in 116,000 bytes
    with unlabeled.config_context(max_dense_bytes=116_000):
        code, _, err = run(["sample", model, "-n", "1001"], capsys)
        assert_error_line(code, "", err, "-n 1001", "at most -n 1000")
        code, stdout, err = run(["sample", model, "-n", "1000"], capsys)
        assert code == 0, err
        assert len(stdout.splitlines()) == 1001
