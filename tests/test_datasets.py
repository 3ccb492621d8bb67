"""Tests of unlabeled.datasets against independent references (exact combinatorics, files we
write ourselves with numpy / scipy / scikit-learn, direct scipy.io.loadmat reads)."""

import gzip
import os
import warnings
from math import comb
from pathlib import Path

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp
from problems import POKER_COUNTS
from scipy import stats
from sklearn.datasets import dump_svmlight_file

from unlabeled.datasets import (
    UCI_SMALL_NAMES,
    load_csv,
    load_file,
    load_npz,
    load_svmlight,
    load_uci_small,
    make_poker_hands,
    make_pu_labels,
)

# ---------------------------------------------------------------- poker


def test_poker_hands_are_valid_deals():
    X, y = make_poker_hands(20000, random_state=1)
    assert X.shape == (20000, 10) and X.dtype == np.float64 and y.dtype == np.int64
    suits, ranks = X[:, 0::2], X[:, 1::2]
    assert np.array_equal(X, np.round(X))
    assert suits.min() == 1 and suits.max() == 4 and ranks.min() == 1 and ranks.max() == 13
    cards = np.sort((suits - 1) * 13 + ranks - 1, axis=1)
    assert (np.diff(cards, axis=1) > 0).all()  # no card twice within a hand
    # y is the hand's class (the classifier itself: tests/internals/test_generators.py)
    # each of the 52 cards is equally likely in each of the 5 positions
    for k in range(5):
        counts = np.bincount(((suits[:, k] - 1) * 13 + ranks[:, k] - 1).astype(int), minlength=52)
        assert stats.chisquare(counts).pvalue > 1e-3


def test_poker_class_frequencies():
    n = 200_000
    _, y = make_poker_hands(n, random_state=12345)
    observed = np.bincount(y, minlength=10)
    expected = n * POKER_COUNTS / comb(52, 5)
    # pool full house .. royal flush (expected counts 288, 48, 2.8, 0.3) into one cell
    obs = np.r_[observed[:6], observed[6:].sum()]
    exp = np.r_[expected[:6], expected[6:].sum()]
    assert stats.chisquare(obs, exp).pvalue > 1e-3
    # and every class individually within 4 binomial standard deviations
    p = POKER_COUNTS / comb(52, 5)
    assert (np.abs(observed - expected) <= 4 * np.sqrt(n * p * (1 - p)) + 1).all()


def test_poker_reproducible():
    a, b, c = (make_poker_hands(500, random_state=s) for s in (3, 3, 4))
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
    assert not np.array_equal(a[0], c[0])
    rs = np.random.RandomState(7)
    np.testing.assert_array_equal(make_poker_hands(50, rs)[0], make_poker_hands(50, 7)[0])


@pytest.mark.parametrize("n, exc", [(0, ValueError), (-3, ValueError), (2.5, TypeError)])
def test_poker_errors(n, exc):
    with pytest.raises(exc, match="n_samples"):
        make_poker_hands(n)


# ---------------------------------------------------------------- PU labels


@pytest.mark.parametrize("frac, n_pos, k", [(0.2, 50, 10), (0.5, 7, 4), (0.01, 30, 1), (1.0, 9, 9)])
def test_pu_labels_exact_count(frac, n_pos, k):
    y = np.r_[np.full(n_pos, 3), np.zeros(40, int)]
    rng = np.random.default_rng(0)
    rng.shuffle(y)
    y0 = y.copy()
    s = make_pu_labels(y, labeled_fraction=frac, positive_class=3, random_state=0)
    np.testing.assert_array_equal(y, y0)  # input untouched
    assert s.shape == y.shape and s.dtype == np.int64 and set(np.unique(s)) <= {0, 1}
    assert s.sum() == k == max(1, round(frac * n_pos))
    assert (y[s == 1] == 3).all()


def test_pu_labels_reproducible_and_uniform():
    y = np.r_[np.ones(10, int), np.zeros(10, int)]
    s1 = make_pu_labels(y, 0.3, random_state=5)
    np.testing.assert_array_equal(s1, make_pu_labels(y, 0.3, random_state=5))
    hits = sum(make_pu_labels(y, 0.3, random_state=seed) for seed in range(2000))
    assert hits[10:].sum() == 0
    # each positive labeled with probability 3/10: 600 expected per positive out of 2000
    assert stats.chisquare(hits[:10]).pvalue > 1e-3


def test_pu_labels_string_classes():
    y = np.array(["pos", "neg", "pos", "neg", "pos"])
    s = make_pu_labels(y, 0.5, positive_class="pos", random_state=0)
    assert s.sum() == 2 and (y[s == 1] == "pos").all()


@pytest.mark.parametrize(
    "kwargs, exc, match",
    [
        (dict(y=[1, 0, 1], labeled_fraction=0.0), ValueError, "labeled_fraction"),
        (dict(y=[1, 0, 1], labeled_fraction=1.5), ValueError, "labeled_fraction"),
        (dict(y=[1, 0, 1], labeled_fraction="half"), TypeError, "labeled_fraction"),
        (dict(y=[0, 0, 2]), ValueError, "positive_class"),
        (dict(y=[[1], [0], [1]]), ValueError, "1-D"),
        (dict(y=[1, 1, 1], labeled_fraction=1.0), ValueError, "no unlabeled"),
    ],
)
def test_pu_labels_errors(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        make_pu_labels(**kwargs)


# ---------------------------------------------------------------- UCI small sets

UCI_DIR = Path(os.environ.get("UNLABELED_DATA_UCI") or "../shared/data/uci-small")


@pytest.fixture(scope="module")
def uci_small_dir():
    if not UCI_DIR.is_dir():
        pytest.skip(
            f"{UCI_DIR} not found (run pytest from the project root next to ../shared, or set "
            "UNLABELED_DATA_UCI): the real UCI files are needed"
        )
    return UCI_DIR


@pytest.mark.parametrize("name", UCI_SMALL_NAMES)
def test_uci_real_files(uci_small_dir, name):
    X, y = load_uci_small(name, data_home=uci_small_dir)
    raw = scipy.io.loadmat(uci_small_dir / f"{name}.mat")
    assert X.dtype == np.float64 and X.flags.c_contiguous and np.isfinite(X).all()
    np.testing.assert_array_equal(X, raw["X"])
    np.testing.assert_array_equal(y, raw["labels"].ravel())
    assert y.dtype.kind == "i" and set(np.unique(y)) == {0, 1}


def test_uci_names():
    assert len(UCI_SMALL_NAMES) == 12 and len(set(UCI_SMALL_NAMES)) == 12


def _write_mat(folder, name, X, labels):
    folder.mkdir(parents=True, exist_ok=True)
    scipy.io.savemat(folder / f"{name}.mat", {"X": X, "labels": labels})


def test_uci_written_file(tmp_path, monkeypatch):
    X0 = np.arange(12, dtype=np.uint8).reshape(6, 2)  # non-float storage, as house.mat
    lab = np.array([[1.0], [0], [0], [1], [1], [0]])  # labels stored as doubles
    _write_mat(tmp_path / "d", "heart", X0, lab)
    X, y = load_uci_small("heart", data_home=tmp_path / "d")
    np.testing.assert_array_equal(X, X0)
    np.testing.assert_array_equal(y, [1, 0, 0, 1, 1, 0])
    assert X.dtype == np.float64 and y.dtype == np.int64
    # -1/+1 labels stored as a row vector map to 0/1
    _write_mat(tmp_path / "d", "spectf", X0, np.array([[1, -1, -1, 1, 1, -1]]))
    np.testing.assert_array_equal(load_uci_small("spectf", str(tmp_path / "d"))[1], y)
    # the environment variable, then the default relative to the working directory
    monkeypatch.setenv("UNLABELED_DATA_UCI", str(tmp_path / "d"))
    np.testing.assert_array_equal(load_uci_small("heart")[1], y)
    monkeypatch.delenv("UNLABELED_DATA_UCI")
    _write_mat(tmp_path / "shared" / "data" / "uci-small", "heart", X0, lab)
    (tmp_path / "proj").mkdir()
    monkeypatch.chdir(tmp_path / "proj")
    np.testing.assert_array_equal(load_uci_small("heart")[1], y)


def test_uci_errors(tmp_path, monkeypatch):
    monkeypatch.delenv("UNLABELED_DATA_UCI", raising=False)
    with pytest.raises(ValueError, match="australian"):
        load_uci_small("mnist", data_home=tmp_path)
    with pytest.raises(TypeError, match="name"):
        load_uci_small(3, data_home=tmp_path)
    with pytest.raises(FileNotFoundError, match="UNLABELED_DATA_UCI") as err:
        load_uci_small("heart", data_home=tmp_path / "nowhere")
    assert "nowhere" in str(err.value) and "data_home" in str(err.value)
    with pytest.raises(FileNotFoundError, match=r"heart\.mat"):
        load_uci_small("heart", data_home=tmp_path)
    _write_mat(tmp_path, "heart", np.ones((3, 2)), np.array([[0], [1], [2]]))
    with pytest.raises(ValueError, match="binary"):
        load_uci_small("heart", data_home=tmp_path)
    scipy.io.savemat(tmp_path / "clean1.mat", {"X": np.ones((3, 2)), "y": np.ones((3, 1))})
    with pytest.raises(ValueError, match="labels"):
        load_uci_small("clean1", data_home=tmp_path)


# ---------------------------------------------------------------- file loaders


@pytest.fixture
def small():
    rng = np.random.default_rng(0)
    X = np.round(rng.normal(size=(8, 3)), 3)
    X[X < -0.5] = 0.0
    y = np.array([1, 0, 1, 1, 0, 0, 1, 0])
    return X, y


def test_load_svmlight(tmp_path, small):
    X, y = small
    path = tmp_path / "a.svm"
    dump_svmlight_file(X, y, str(path))
    X1, y1 = load_svmlight(path)
    assert sp.issparse(X1) and X1.format == "csr" and X1.dtype == np.float64
    np.testing.assert_allclose(X1.toarray(), X)
    np.testing.assert_array_equal(y1, y)
    assert y1.dtype.kind == "i"
    assert load_svmlight(str(path), n_features=5)[0].shape == (8, 5)
    dump_svmlight_file(X, y + 0.5, str(tmp_path / "b.libsvm"))
    np.testing.assert_array_equal(load_file(tmp_path / "b.libsvm")[1], y + 0.5)
    with pytest.raises(ValueError, match="n_features"):
        load_svmlight(path, n_features=0)


def _write_csv(path, X, y, names=None, label_at=-1, delimiter=","):
    cols = [list(map(repr, row)) for row in X.tolist()]
    for row, lab in zip(cols, y, strict=True):
        row.insert(label_at if label_at >= 0 else len(row), str(lab))
    lines = [delimiter.join(names)] if names else []
    path.write_text("\n".join([*lines, *(delimiter.join(r) for r in cols)]) + "\n")


def test_load_csv(tmp_path, small):
    X, y = small
    _write_csv(tmp_path / "a.csv", X, y)
    X1, y1 = load_csv(tmp_path / "a.csv")
    np.testing.assert_array_equal(X1, X)
    np.testing.assert_array_equal(y1, y)
    assert X1.dtype == np.float64 and X1.flags.c_contiguous and y1.dtype.kind == "i"
    # header with the label first, selected by name and by index; semicolons
    _write_csv(tmp_path / "b.csv", X, y, ["cls", "f1", "f2", "f3"], label_at=0, delimiter=";")
    for kw in (dict(label_column="cls"), dict(label_column=0, header=True), dict(label_column=0)):
        X2, y2 = load_csv(tmp_path / "b.csv", delimiter=";", **kw)
        np.testing.assert_array_equal(X2, X)
        np.testing.assert_array_equal(y2, y)
    # string labels are kept as strings
    _write_csv(tmp_path / "c.csv", X, np.where(y == 1, "yes", "no"), ["a", "b", "c", "d"])
    X3, y3 = load_file(tmp_path / "c.csv", label_column="d")
    np.testing.assert_array_equal(X3, X)
    np.testing.assert_array_equal(y3, np.where(y == 1, "yes", "no"))


def test_load_csv_quotes_blank_lines_and_floats(tmp_path):
    path = tmp_path / "q.csv"
    path.write_text('"x1","x2","label"\n1.5,"2",0.25\n\n  -3e2 , 4,1.5\n')
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        X, y = load_csv(path, label_column="label")
    np.testing.assert_array_equal(X, [[1.5, 2.0], [-300.0, 4.0]])
    np.testing.assert_array_equal(y, [0.25, 1.5])
    assert y.dtype == np.float64


def test_load_csv_errors(tmp_path, small):
    X, y = small
    bad = tmp_path / "bad.csv"
    bad.write_text("a,b,y\n1,2,0\n3,x,1\n")
    with pytest.raises(ValueError, match=r"bad\.csv, line 3, column 2.*'x'"):
        load_csv(bad)
    bad.write_text("1,2,0\n3,4\n")
    with pytest.raises(ValueError, match="line 2"):
        load_csv(bad)
    _write_csv(tmp_path / "n.csv", X, y)
    with pytest.raises(ValueError, match="no header"):
        load_csv(tmp_path / "n.csv", label_column="y")
    with pytest.raises(ValueError, match="out of range"):
        load_csv(tmp_path / "n.csv", label_column=4)
    with pytest.raises(TypeError, match="label_column"):
        load_csv(tmp_path / "n.csv", label_column=1.0)
    with pytest.raises(ValueError, match="delimiter"):
        load_csv(tmp_path / "n.csv", delimiter=", ")
    (tmp_path / "e.csv").write_text("\n")
    with pytest.raises(ValueError, match="empty"):
        load_csv(tmp_path / "e.csv")


def test_load_npz(tmp_path, small):
    X, y = small
    np.savez(tmp_path / "a.npz", X=X.astype(np.float32), y=y.astype(float))
    X1, y1 = load_npz(tmp_path / "a.npz")
    np.testing.assert_array_equal(X1, X.astype(np.float32))
    np.testing.assert_array_equal(y1, y)
    assert X1.dtype == np.float64 and y1.dtype.kind == "i"
    np.savez(tmp_path / "b.npz", data=X, target=y)
    X2, y2 = load_file(tmp_path / "b.npz", X_key="data", y_key="target")
    np.testing.assert_array_equal(X2, X)
    with pytest.raises(ValueError, match=r"X_key= and y_key="):
        load_npz(tmp_path / "b.npz")
    sp.save_npz(tmp_path / "s.npz", sp.csr_matrix(X))
    with pytest.raises(ValueError, match="np.savez"):
        load_npz(tmp_path / "s.npz")
    np.savez(tmp_path / "c.npz", X=X, y=y[:5])
    with pytest.raises(ValueError, match="rows"):
        load_npz(tmp_path / "c.npz")
    np.savez(tmp_path / "o.npz", X=np.array([[1, "a"]], dtype=object), y=np.array([1]))
    with pytest.raises(ValueError, match="object"):
        load_npz(tmp_path / "o.npz")


def test_load_file_dispatch_and_missing(tmp_path, small):
    X, y = small
    for suffix in (".svm", ".svmlight", ".libsvm", ".txt", ".svm.gz"):
        dump_svmlight_file(X, y, str(tmp_path / "tmp.svm"))
        data = (tmp_path / "tmp.svm").read_bytes()
        target = tmp_path / f"d{suffix}"
        if suffix.endswith(".gz"):
            data = gzip.compress(data)
        target.write_bytes(data)
        X1, y1 = load_file(target)
        assert sp.issparse(X1)
        np.testing.assert_allclose(X1.toarray(), X)
        np.testing.assert_array_equal(y1, y)
    with pytest.raises(ValueError, match=r"\.npz"):
        load_file(tmp_path / "d.parquet")
    with pytest.raises(ValueError, match="accepted suffixes"):
        load_file(tmp_path / "noext")
    for loader, name in [
        (load_file, "m.csv"),
        (load_svmlight, "m.svm"),
        (load_csv, "m.csv"),
        (load_npz, "m.npz"),
        (load_file, "m.npz"),
        (load_file, "m.txt"),
    ]:
        with pytest.raises(FileNotFoundError, match=name):
            loader(tmp_path / name)


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


# --------------------------------------------------------------------------- tabular shapes
def test_adult_like_has_the_stated_structure():
    from unlabeled.datasets import make_adult_like

    X, y = make_adult_like(3000, random_state=0)
    assert X.shape == (3000, 123)
    assert np.all(X.getnnz(axis=1) == 14) and np.all(X.data == 1.0)
    # one category per attribute (the attributes' columns: tests/internals/test_generators.py)
    assert abs(y.mean() - 0.24) < 0.01
    X2, y2 = make_adult_like(3000, random_state=0)
    assert (X != X2).nnz == 0 and np.array_equal(y, y2)


def test_shuttle_like_has_the_stated_structure():
    from unlabeled.datasets import make_shuttle_like

    X, y = make_shuttle_like(20000, random_state=0)
    assert X.shape == (20000, 9) and np.all(np.isfinite(X))
    np.testing.assert_allclose(X.mean(axis=0), 0, atol=1e-10)
    np.testing.assert_allclose(X.std(axis=0), 1, atol=1e-10)
    assert abs(y.mean() - 0.15) < 0.01
    with pytest.raises(ValueError, match="exceeds 1"):
        make_shuttle_like(100, majority_share=0.9, positive_share=0.2)


def test_csv_line_with_an_extra_field_is_refused(tmp_path):
    path = tmp_path / "data.csv"
    path.write_text("1,2,0\n3,4,1\n5,6,7,1\n")
    with pytest.raises(ValueError, match=r"line 3: 4 fields, expected 3"):
        load_csv(path)
    path.write_text("a,b,label\n1,2,0\n3,4,9,1\n")
    with pytest.raises(ValueError, match=r"line 3: 4 fields, expected 3"):
        load_csv(path, label_column="label")
    path.write_text('1,"2",0\n\n3,4,1\n')  # quotes and blank lines stay accepted
    X, y = load_csv(path)
    np.testing.assert_array_equal(X, [[1, 2], [3, 4]])
    np.testing.assert_array_equal(y, [0, 1])
