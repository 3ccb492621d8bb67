"""The file readers behind the loaders and the command line (``unlabeled._files``): formats
from suffixes, CSV layouts and columns, npz arrays and label files, with their errors."""

import numpy as np
import pytest

from unlabeled._files import (
    CsvTable,
    csv_column,
    format_from_suffix,
    read_csv_columns,
    read_csv_layout,
    read_label_file,
    read_npz_arrays,
)
from unlabeled.datasets import load_file


def test_format_from_suffix_and_load_file_agree(tmp_path):
    cases = {
        "a.svm": ("svmlight", False),
        "a.libsvm.bz2": ("svmlight", True),
        "a.CSV": ("csv", False),
        "a.csv.gz": ("csv", True),
        "a.npz": ("npz", False),
        "a.gz": (None, True),
        "a.parquet": (None, False),
        "noext": (None, False),
    }
    for name, (fmt, compressed) in cases.items():
        got, _, comp = format_from_suffix(name)
        assert (got, comp) == (fmt, compressed), name
        if fmt is None or (compressed and fmt != "svmlight"):
            with pytest.raises(ValueError, match="accepted suffixes"):
                load_file(tmp_path / name)


def test_read_csv_columns_several_labels_and_bad_lines(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("id,a,b,s\nx1,1.5,2,pos\nx2,3,4.25,unl\n")
    layout = read_csv_layout(str(path))
    assert layout["names"] == ["id", "a", "b", "s"] and layout["skiprows"] == 1
    cols = [csv_column(c, layout, str(path), "--col") for c in ("a", "-2", "s", "0")]
    assert cols == [1, 2, 3, 0]
    X, (s, ids) = read_csv_columns(str(path), layout, [1, 2], [3, 0])
    np.testing.assert_array_equal(X, [[1.5, 2.0], [3.0, 4.25]])
    assert s.tolist() == ["pos", "unl"] and ids.tolist() == ["x1", "x2"]
    # the same file read with "id" as a feature: line 2, column 0 is named, and the advice
    with pytest.raises(ValueError, match=r"line 2, column 0: non-numeric .*'x1'.* out by hand"):
        read_csv_columns(str(path), layout, [0, 1], [3], leave_out=" by hand")
    with pytest.raises(ValueError, match="'z' is not a column"):
        csv_column("z", layout, str(path), "--col")
    (tmp_path / "r.csv").write_text("1,2,1\n3,0\n")
    ragged = read_csv_layout(str(tmp_path / "r.csv"))
    assert ragged["names"] is None and ragged["skiprows"] == 0
    with pytest.raises(ValueError, match="line 2 has 2 fields, expected 3"):
        read_csv_columns(str(tmp_path / "r.csv"), ragged, [0, 1], [2])


def test_csv_table_finds_and_reads_its_columns_in_one_read(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("x1,p1,s,x2\n1,10,1,2\n3,30,0,4\n")
    table = CsvTable(str(path))
    assert table.names == ["x1", "p1", "s", "x2"] and table.n_columns == 4
    assert table.find("x2") == 3 and table.find("-2") == 2 and table.find("w") is None
    assert table.label_of(2) == "column 's'"
    X, (s,), P = table.read([0, 3], [2], more=[1])
    np.testing.assert_array_equal(X, [[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_array_equal(P, [[10.0], [30.0]])
    assert s.tolist() == [1, 0] and X.flags.c_contiguous and P.flags.c_contiguous
    with pytest.raises(ValueError, match="--opt 'w' is not a column"):
        table.column("w", "--opt")


def test_read_npz_arrays_and_label_file(tmp_path):
    X = np.arange(6.0).reshape(3, 2)
    np.savez(tmp_path / "d.npz", X=X, s=np.array([1, 0, 0]), y=np.array([[1.0], [1.0], [0.0]]))
    Xr, (s, y) = read_npz_arrays(str(tmp_path / "d.npz"), "X", ["s", "y"])
    np.testing.assert_array_equal(Xr, X)
    assert s.tolist() == [1, 0, 0] and y.dtype == np.int64 and y.tolist() == [1, 1, 0]
    # optional keys in the same opening: None where the archive lacks one
    _, (s, t, q) = read_npz_arrays(str(tmp_path / "d.npz"), "X", ["s"], optional=["y", "q"])
    assert s.tolist() == [1, 0, 0] and t.tolist() == [1, 1, 0] and q is None
    with pytest.raises(ValueError, match=r"no array named 'q' \(KEY\); it holds \['X', 's', 'y'\]"):
        read_npz_arrays(str(tmp_path / "d.npz"), "X", ["q"], label_option="KEY")
    (tmp_path / "labels.txt").write_text("y\n1\n0\n1\n")
    assert read_label_file(str(tmp_path / "labels.txt"), 3).tolist() == [1, 0, 1]
    with pytest.raises(ValueError, match="one label per line for the 2 data points"):
        read_label_file(str(tmp_path / "labels.txt"), 2)
