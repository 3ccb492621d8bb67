"""Loaders for data files a user already has (svmlight/libsvm, CSV, NumPy .npz): the only
code of the package that opens a data file (:mod:`unlabeled.datasets` and the command line
read through it).

The public loaders (``load_svmlight``, ``load_csv``, ``load_npz``, ``load_file``) return ``X``
and one label vector. Below them are the readers that the ``unlabeled`` command uses, so that
it reads files only through this module: the layout of a CSV file (header, columns), columns
chosen by name or index, several label columns or npz arrays at once, and a file of labels.
They raise ``ValueError`` with one-line messages naming the file, the line and the column; the
``option`` and ``hint`` arguments let the caller name its own arguments in those messages.
"""

from __future__ import annotations

import csv
import os
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.datasets import load_svmlight_file

from ._validation import check_int

SVMLIGHT_SUFFIXES = (".svm", ".svmlight", ".libsvm", ".txt")
_SPARSE_NPZ_KEYS = {"data", "indices", "indptr", "format", "shape"}


#: text files are read as UTF-8; a byte-order mark (as spreadsheet programs write) is skipped
ENCODING = "utf-8-sig"


def shared_file(name: str, names, what: str, data_home, env_var: str, default_dir, suffix: str):
    """The file ``<folder>/<name><suffix>`` of a named data set, the folder from ``data_home``,
    the environment variable ``env_var`` or ``default_dir``; clear errors for an unknown name
    (``what`` names the collection) and a missing file."""
    if not isinstance(name, str) or name not in names:
        raise ValueError(f"unknown {what} {name!r}; name must be one of {list(names)}")
    folder = Path(data_home or os.environ.get(env_var) or default_dir)
    path = folder / f"{name}{suffix}"
    if not path.is_file():
        raise FileNotFoundError(
            f"{path} not found: pass data_home='/path/to/folder' or set {env_var} to the "
            f"folder holding {name}{suffix} (looked in {folder.resolve()})"
        )
    return path


def not_a_file(path) -> str | None:
    """What ``path`` is when it exists but is not a regular file ("a directory", "a FIFO",
    "a device", "a socket"), else None."""
    import stat

    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "a socket" if stat.S_ISSOCK(mode) else "not a regular file"


def _existing_file(path) -> Path:
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a str or os.PathLike, got {type(path).__name__}")
    p = Path(path)
    what = not_a_file(p)
    if what is not None:
        raise ValueError(f"{str(p)!r} is {what}, not a data file: give the path of a file")
    if not p.is_file():
        raise FileNotFoundError(f"data file not found: {str(p)!r} (resolved: {p.resolve()})")
    return p


def _as_labels(y) -> np.ndarray:
    """Flat labels; integral floats become int64, non-numeric strings stay strings."""
    y = np.asarray(y).ravel()
    if y.dtype.kind in "US":
        y = np.char.strip(y)
        try:
            y = y.astype(np.float64)
        except ValueError:
            return y
    if y.dtype.kind == "b":
        return y.astype(np.int64)
    if y.dtype.kind == "f" and np.isfinite(y).all() and (y == np.round(y)).all():
        return y.astype(np.int64)
    return y


def load_svmlight(
    path: str | os.PathLike[str], n_features: int | None = None
) -> tuple[sp.csr_matrix, np.ndarray]:
    """Load a file in svmlight / libsvm format (``label index:value ...`` per line).

    A thin wrapper of :func:`sklearn.datasets.load_svmlight_file`, the format in which LIBSVM
    distributes Adult (a1a-a9a), shuttle, MNIST and others.

    Parameters
    ----------
    path : str or os.PathLike
        The file (may be compressed with gzip or bzip2, suffix ``.gz`` / ``.bz2``).
    n_features : int >= 1 or None, default=None
        Number of columns of ``X``; None infers it from the largest index in the file. Give it
        when loading a train and a test file so that both have the same width.

    Returns
    -------
    X : scipy.sparse.csr_matrix of shape (n_samples, n_features), dtype float64
    y : ndarray of shape (n_samples,)
        int64 when every label is an integer, else float64.

    References
    ----------
    .. [1] C.-C. Chang and C.-J. Lin, "LIBSVM: a library for support vector machines",
       ACM TIST 2(3), 2011; data sets at https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/.

    Examples
    --------
    >>> import os, tempfile
    >>> from unlabeled.datasets import load_svmlight
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = os.path.join(folder, "tiny.svm")
    ...     with open(path, "w") as f:
    ...         _ = f.write("1 1:0.5 3:2\\n-1 2:1.5\\n")
    ...     X, y = load_svmlight(path)
    >>> X.shape, y.tolist()
    ((2, 3), [1, -1])
    >>> X.toarray().tolist()
    [[0.5, 0.0, 2.0], [0.0, 1.5, 0.0]]
    """
    n_features = check_int(n_features, "n_features", low=1, allow_none=True)
    p = _existing_file(path)
    X, y = load_svmlight_file(str(p), n_features=n_features, dtype=np.float64)
    if X.shape[0] == 0:
        raise ValueError(
            f"{str(p)!r} holds no data line (it is empty or holds only comments): an svmlight "
            "file has one 'label index:value ...' line per point"
        )
    return sp.csr_matrix(X), _as_labels(y)


def load_csv(
    path: str | os.PathLike[str],
    label_column: int | str = -1,
    delimiter: str = ",",
    header: bool | str = "infer",
) -> tuple[np.ndarray, np.ndarray]:
    """Load a delimited text file of numeric features plus one label column.

    Parsing uses the C reader of :func:`numpy.loadtxt` (double quotes allowed around fields,
    blank lines skipped); no pandas is needed. Categorical features must be encoded as numbers
    beforehand (e.g. one-hot), missing values imputed.

    Parameters
    ----------
    path : str or os.PathLike
        The file.
    label_column : int or str, default=-1
        Index of the label column (negative counts from the end) or, when the file has a
        header, its name. All other columns are features.
    delimiter : str, default=","
        One-character field separator.
    header : bool or "infer", default="infer"
        Whether the first non-blank line holds column names. ``"infer"``: it does when none
        of its fields is a number.

    Returns
    -------
    X : ndarray of shape (n_samples, n_columns - 1), dtype float64, C-contiguous
    y : ndarray of shape (n_samples,)
        int64 when every label is an integer, float64 when numeric, else the stripped strings.

    Raises
    ------
    FileNotFoundError
        If the file does not exist.
    ValueError
        On a bad argument, an empty file, a line with the wrong number of fields, or a
        non-numeric feature value (the message names the file, line and column).

    Examples
    --------
    >>> import os, tempfile
    >>> from unlabeled.datasets import load_csv
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = os.path.join(folder, "tiny.csv")
    ...     with open(path, "w") as f:
    ...         _ = f.write("x1,x2,label\\n0.5,1.0,yes\\n2.0,-1.0,no\\n")
    ...     X, y = load_csv(path, label_column="label")
    >>> X.tolist(), y.tolist()
    ([[0.5, 1.0], [2.0, -1.0]], ['yes', 'no'])
    """
    if not isinstance(delimiter, str) or len(delimiter) != 1:
        raise ValueError(f"delimiter must be a one-character string, got {delimiter!r}")
    if not (isinstance(header, bool) or header == "infer"):
        raise ValueError(f"header must be True, False or 'infer', got {header!r}")
    if isinstance(label_column, bool) or not isinstance(label_column, (int, np.integer, str)):
        raise TypeError(
            f"label_column must be a column index (int) or a column name (str), "
            f"got {label_column!r}"
        )
    p = _existing_file(path)
    layout = csv_layout(p, delimiter, header)
    if layout is None:
        raise ValueError(f"{p}: the file is empty")
    first, n_cols = layout["names"], layout["n_columns"]
    if isinstance(label_column, str):
        if first is None:
            raise ValueError(
                f"label_column={label_column!r} is a name but {p} has no header line; "
                "give the column index instead or pass header=True"
            )
        if label_column not in first:
            raise ValueError(f"label_column={label_column!r} is not a column of {p}: {first}")
        lab = first.index(label_column)
    else:
        if not -n_cols <= label_column < n_cols:
            raise ValueError(
                f"label_column={label_column} is out of range for {p}, which has {n_cols} columns"
            )
        lab = int(label_column) % n_cols
    features = [j for j in range(n_cols) if j != lab]
    skiprows = layout["skiprows"]
    try:
        X, (y,) = _loadtxt_columns(p, features, [lab], delimiter, skiprows)
    except ValueError as exc:
        _explain_csv_error(p, delimiter, skiprows, n_cols, lab)
        raise ValueError(f"{p}: {exc}") from exc
    _check_field_counts(p, delimiter, skiprows, n_cols)
    if X.shape[0] == 0:
        raise ValueError(f"{p}: no data rows after the header")
    return np.ascontiguousarray(X), _as_labels(y)


def _loadtxt_columns(path, features, labels, delimiter, skiprows):
    """Float64 features from the columns ``features`` and one string array per column of
    ``labels``, by numpy's C reader (double quotes allowed, blank lines skipped); a field that
    does not parse raises numpy's ValueError, for the caller to explain."""
    opts = dict(
        delimiter=delimiter, skiprows=skiprows, comments=None, quotechar='"', encoding=ENCODING
    )
    with warnings.catch_warnings():  # numpy warns that blank lines are skipped
        warnings.filterwarnings("ignore", "Input line", UserWarning)
        X = np.loadtxt(path, usecols=features, dtype=np.float64, ndmin=2, **opts)
        ys = [np.loadtxt(path, usecols=[j], dtype=str, ndmin=1, **opts) for j in labels]
    return X, ys


def format_from_suffix(path) -> tuple[str | None, str, bool]:
    """The format a file's suffix names: ``("svmlight" | "csv" | "npz" | None, suffix,
    compressed)``, where ``suffix`` is the last suffix before a ``.gz`` / ``.bz2`` one and
    ``compressed`` says whether there was one (svmlight and CSV files may be compressed)."""
    suffixes = [s.lower() for s in Path(path).suffixes]
    compressed = bool(suffixes) and suffixes[-1] in (".gz", ".bz2")
    if compressed:
        suffixes = suffixes[:-1]
    suffix = suffixes[-1] if suffixes else ""
    if suffix in SVMLIGHT_SUFFIXES:
        return "svmlight", suffix, compressed
    return {".csv": "csv", ".npz": "npz"}.get(suffix), suffix, compressed


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def csv_layout(path, delimiter: str = ",", header: bool | str = "infer") -> dict | None:
    """The layout of a CSV file from its first non-blank line, or None for an empty file.

    Parameters
    ----------
    path : str or os.PathLike
    delimiter : str, default=","
    header : bool or "infer", default="infer"
        Whether the first line holds column names; ``"infer"``: when none of its fields is a
        number.

    Returns
    -------
    dict or None
        ``names`` (the stripped column names, None without a header line), ``n_columns``,
        ``skiprows`` (the lines before the data) and ``delimiter``.

    Raises
    ------
    UnicodeDecodeError, csv.Error
        From reading the first line, for the caller to explain.
    """
    with open(path, newline="", encoding=ENCODING) as fh:
        reader = csv.reader(fh, delimiter=delimiter)
        first = next((row for row in reader if row), None)
        first_line = reader.line_num
    if first is None:
        return None
    first = [c.strip() for c in first]
    has_header = all(not _is_number(c) for c in first) if header == "infer" else bool(header)
    return {
        "names": first if has_header else None,
        "n_columns": len(first),
        "skiprows": first_line if has_header else first_line - 1,
        "delimiter": delimiter,
    }


def _first_csv_problem(path, delimiter: str, skip: int, n_cols: int, labels) -> tuple | None:
    """The first data line that numpy cannot parse: ``(line, None, n_fields)`` for a wrong
    number of fields, ``(line, column, cell)`` for a non-numeric feature value (columns in
    ``labels`` may hold anything), or None."""
    with open(path, newline="", encoding=ENCODING) as f:
        reader = csv.reader(f, delimiter=delimiter)
        for row in reader:
            if reader.line_num <= skip or not row:
                continue
            if len(row) != n_cols:
                return reader.line_num, None, len(row)
            for j, cell in enumerate(row):
                if j not in labels and not _is_number(cell.strip()):
                    return reader.line_num, j, cell
    return None


def _first_field_count_problem(path, delimiter: str, skip: int, n_cols: int):
    """``(line, n_fields)`` of the first data line whose number of fields is not ``n_cols``,
    or None: one pass of the csv module's C reader (200,000 lines of 11 fields: 0.2 s, half
    a numpy.loadtxt of the file)."""
    with open(path, newline="", encoding=ENCODING) as f:
        reader = csv.reader(f, delimiter=delimiter)
        for row in reader:
            if row and len(row) != n_cols and reader.line_num > skip:
                return reader.line_num, len(row)
    return None


def _first_blank_row(path, delimiter: str, layout: dict) -> int | None:
    """The line of the first blank line before a data line in a file of one column, or None.

    There a blank line is a row whose one value is missing, not a line to skip: numpy's
    reader (and :func:`csv_layout`, before the first row) skipped it, and ``predict`` wrote
    one row fewer than the file holds (the fuzz: 13 predictions for 14 rows, the first
    value empty). Blank lines before a header line and after the last row are left out."""
    start = layout["skiprows"] if layout["names"] is not None else 0
    blank = None
    with open(path, newline="", encoding=ENCODING) as f:
        reader = csv.reader(f, delimiter=delimiter)
        for row in reader:
            if reader.line_num <= start:
                continue
            if not row:
                blank = reader.line_num if blank is None else blank
            elif blank is not None:
                return blank
    return None


def _check_field_counts(p: Path, delimiter: str, skip: int, n_cols: int) -> None:
    """Refuse a data line with another number of fields than the first line, which
    :func:`numpy.loadtxt` reads without complaint when it has more (it reads the columns it
    is asked for): with the label in the last column, a line with an extra field gave its
    second-to-last field as the label."""
    problem = _first_field_count_problem(p, delimiter, skip, n_cols)
    if problem is not None:
        line, n_fields = problem
        raise ValueError(
            f"{p}, line {line}: {n_fields} fields, expected {n_cols} as in the first line; "
            "every line must have the same fields (check for an extra delimiter or an "
            "unquoted field that holds one)"
        )


def _explain_csv_error(p: Path, delimiter: str, skip: int, n_cols: int, lab: int) -> None:
    """Find the first bad line of a CSV file and raise a ValueError naming line and column."""
    problem = _first_csv_problem(p, delimiter, skip, n_cols, {lab})
    if problem is None:
        return
    line, j, what = problem
    if j is None:
        raise ValueError(f"{p}, line {line}: {what} fields, expected {n_cols} as in the first line")
    raise ValueError(
        f"{p}, line {line}, column {j + 1}: non-numeric feature value "
        f"{what!r}; encode categorical features as numbers and impute "
        "missing values before loading"
    )


def load_npz(
    path: str | os.PathLike[str], X_key: str = "X", y_key: str = "y"
) -> tuple[np.ndarray, np.ndarray]:
    """Load a dense ``X`` and ``y`` saved with :func:`numpy.savez` (``np.savez(f, X=X, y=y)``).

    Parameters
    ----------
    path : str or os.PathLike
        The ``.npz`` file; it is opened with ``allow_pickle=False``.
    X_key, y_key : str, default="X", "y"
        Names of the feature matrix and of the label vector in the archive.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features), dtype float64, C-contiguous
    y : ndarray of shape (n_samples,)
        int64 when every label is an integer, else as stored.

    Raises
    ------
    ValueError
        If a key is missing, the arrays have wrong shapes or non-numeric features, or the file
        holds one sparse matrix written by :func:`scipy.sparse.save_npz`.

    Examples
    --------
    >>> import os, tempfile
    >>> import numpy as np
    >>> from unlabeled.datasets import load_npz
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = os.path.join(folder, "tiny.npz")
    ...     np.savez(path, X=np.eye(3), y=np.array([1, 0, 0]))
    ...     X, y = load_npz(path)
    >>> X.shape, X.dtype, y.tolist()
    ((3, 3), dtype('float64'), [1, 0, 0])
    """
    for name, key in (("X_key", X_key), ("y_key", y_key)):
        if not isinstance(key, str):
            raise TypeError(f"{name} must be a str, got {key!r}")
    p = _existing_file(path)
    with np.load(p, allow_pickle=False) as data:
        keys = set(data.files)
        if _SPARSE_NPZ_KEYS <= keys and not {X_key, y_key} <= keys:
            raise ValueError(
                f"{p} holds a single sparse matrix saved by scipy.sparse.save_npz, without "
                "labels; save features and labels together with np.savez(path, X=X, y=y) "
                "(X dense), or save sparse data with sklearn.datasets.dump_svmlight_file"
            )
        missing = [k for k in (X_key, y_key) if k not in keys]
        if missing:
            raise ValueError(
                f"{p} has no array named {missing}; it holds {sorted(keys)}: "
                "pass X_key= and y_key= to choose them"
            )
        try:
            X, y = data[X_key], data[y_key]
        except ValueError as exc:  # object arrays need pickle
            raise ValueError(f"{p}: {exc}; save numeric arrays, not object arrays") from exc
    if X.ndim != 2 or X.dtype.kind not in "biuf":
        raise ValueError(f"{p}: {X_key!r} must be a 2-D numeric array, got {X.dtype} {X.shape}")
    if not (y.ndim == 1 or (y.ndim == 2 and y.shape[1] == 1)):
        raise ValueError(f"{p}: {y_key!r} must be a label vector, got shape {y.shape}")
    y = _as_labels(y)
    if y.shape[0] != X.shape[0]:
        raise ValueError(f"{p}: {X_key!r} has {X.shape[0]} rows but {y_key!r} has {y.shape[0]}")
    return np.ascontiguousarray(X, dtype=np.float64), y


def load_file(
    path: str | os.PathLike[str], **kwargs: Any
) -> tuple[np.ndarray | sp.csr_matrix, np.ndarray]:
    """Load a data file, choosing the loader from the file suffix.

    ``.svm``, ``.svmlight``, ``.libsvm``, ``.txt`` (optionally followed by ``.gz`` or
    ``.bz2``): :func:`load_svmlight`; ``.csv``: :func:`load_csv`; ``.npz``: :func:`load_npz`.

    Parameters
    ----------
    path : str or os.PathLike
        The file.
    **kwargs
        Passed to the chosen loader.

    Returns
    -------
    X : ndarray or scipy.sparse.csr_matrix
    y : ndarray
        As returned by the chosen loader.

    Examples
    --------
    >>> import os, tempfile
    >>> from unlabeled.datasets import load_file
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = os.path.join(folder, "tiny.csv")  # the suffix chooses load_csv
    ...     with open(path, "w") as f:
    ...         _ = f.write("1.0,2.0,1\\n3.0,4.0,0\\n5.0,6.0,1\\n")
    ...     X, y = load_file(path)
    >>> X.shape, y.tolist()
    ((3, 2), [1, 0, 1])
    """
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a str or os.PathLike, got {type(path).__name__}")
    fmt, _, compressed = format_from_suffix(path)
    if fmt == "svmlight":
        return load_svmlight(path, **kwargs)
    if fmt == "csv" and not compressed:
        return load_csv(path, **kwargs)
    if fmt == "npz" and not compressed:
        return load_npz(path, **kwargs)
    suffixes = Path(path).suffixes
    suffix = suffixes[-1].lower() if suffixes else ""
    accepted = [*SVMLIGHT_SUFFIXES, ".csv", ".npz"]
    raise ValueError(
        f"cannot tell the format of {str(path)!r} from its suffix {suffix!r}; accepted suffixes "
        f"are {accepted} (svmlight files may end in .gz or .bz2): rename the file or call "
        "load_svmlight, load_csv or load_npz directly"
    )


# ---------------------------------------------------------------------- the command's readers
def read_csv_layout(path, delimiter: str = ",", header: bool | str = "infer") -> dict:
    """:func:`csv_layout`, with a ValueError ``cannot read '<path>' as CSV: ...`` for a file
    that is empty or not UTF-8 text."""
    try:
        layout = csv_layout(path, delimiter, header)
    except (UnicodeDecodeError, csv.Error) as exc:
        raise ValueError(f"cannot read {path!r} as CSV: {exc}") from exc
    if layout is None:
        raise ValueError(f"cannot read {path!r} as CSV: the file is empty")
    return layout


def find_column(spec: str, layout: dict) -> int | None:
    """A column by name (with a header line) or by index (negative from the end), or None."""
    names, n = layout["names"], layout["n_columns"]
    if names is not None and spec in names:
        return names.index(spec)
    try:
        j = int(spec)
    except ValueError:
        return None
    return j % n if -n <= j < n else None


def csv_column(spec: str, layout: dict, path, option: str) -> int:
    """:func:`find_column`, or a ValueError that says why ``spec`` (given as ``option``) names
    no column of ``path``."""
    j = find_column(spec, layout)
    if j is not None:
        return j
    names, n = layout["names"], layout["n_columns"]
    try:
        int(spec)
    except ValueError:
        if names is None:
            raise ValueError(
                f"{option} {spec!r} is a column name but {path!r} has no header line: give the "
                f"column index instead (0 to {n - 1}, negative counts from the end)"
            ) from None
        raise ValueError(
            f"{option} {spec!r} is not a column of {path!r}; its columns are {names}"
        ) from None
    raise ValueError(f"{option} {spec} is out of range: {path!r} has {n} columns")


def read_csv_columns(
    path, layout: dict, features: list[int], labels: list[int], *, leave_out: str = ""
) -> tuple[np.ndarray, list[np.ndarray]]:
    """Float features from the columns ``features`` and one label vector per column of
    ``labels`` (as :func:`load_csv` makes them), from a CSV file of the given layout.

    A file numpy cannot parse raises a ValueError naming the first bad line and column;
    ``leave_out`` ends its advice (how the caller leaves a column out)."""
    try:
        X, raw = _loadtxt_columns(path, features, labels, layout["delimiter"], layout["skiprows"])
        ys = [_as_labels(y) for y in raw]
    except ValueError as exc:
        problem = _first_csv_problem(
            path, layout["delimiter"], layout["skiprows"], layout["n_columns"], set(labels)
        )
        where = f"cannot read {path!r} as CSV"
        if problem is not None and problem[1] is None:
            raise ValueError(
                f"{where}: line {problem[0]} has {problem[2]} fields, expected "
                f"{layout['n_columns']} as in the first line"
            ) from exc
        if problem is not None:
            line, j, cell = problem
            raise ValueError(
                f"{where}: line {line}, column {j}: non-numeric feature value {cell!r} (encode "
                f"categories as numbers, impute missing values, or leave the column out{leave_out})"
            ) from exc
        raise ValueError(f"{where}: {exc}") from exc
    n_columns = layout["n_columns"]
    problem = _first_field_count_problem(path, layout["delimiter"], layout["skiprows"], n_columns)
    if problem is not None:  # more fields than the first line: numpy reads it silently
        raise ValueError(
            f"cannot read {path!r} as CSV: line {problem[0]} has {problem[1]} fields, expected "
            f"{n_columns} as in the first line"
        )
    blank = _first_blank_row(path, layout["delimiter"], layout) if n_columns == 1 else None
    if blank is not None:
        raise ValueError(
            f"cannot read {path!r} as CSV: line {blank} is blank, which in a file of one "
            "column is a row whose value is missing; impute the value or delete the line"
        )
    if X.shape[0] == 0:
        raise ValueError(f"{path!r} has no data rows")
    return np.ascontiguousarray(X), ys


class CsvTable:
    """A CSV file as the command line reads it: its layout read once (:func:`read_csv_layout`:
    ``names``, ``n_columns``), its columns found by name or index (:meth:`find`,
    :meth:`column`), then the columns it needs read (:meth:`read`).

    Parameters
    ----------
    path : str or os.PathLike
    delimiter : str, default=","
    header : bool or "infer", default="infer"
    """

    def __init__(self, path, delimiter: str = ",", header: bool | str = "infer"):
        self.path = path
        self.layout = read_csv_layout(path, delimiter, header)
        self.names: list[str] | None = self.layout["names"]
        self.n_columns: int = self.layout["n_columns"]

    def find(self, spec: str) -> int | None:
        """The column ``spec`` names (:func:`find_column`), or None."""
        return find_column(spec, self.layout)

    def column(self, spec: str, option: str) -> int:
        """The column ``spec`` names, or a ValueError naming ``option`` (:func:`csv_column`)."""
        return csv_column(spec, self.layout, self.path, option)

    def label_of(self, j: int) -> str:
        """Column ``j`` for a message: its name, or its index."""
        return f"column {self.names[j]!r}" if self.names else f"column {j}"

    def read(
        self, features: list[int], labels: list[int], *, more=(), leave_out: str = ""
    ) -> tuple[np.ndarray, list[np.ndarray], np.ndarray]:
        """``(X, one label vector per column of labels, X_more)``: float columns
        ``features`` and ``more`` (privileged features) read together
        (:func:`read_csv_columns`)."""
        more = list(more)
        columns = [*features, *more]
        X, ys = read_csv_columns(self.path, self.layout, columns, labels, leave_out=leave_out)
        k = len(features)
        return np.ascontiguousarray(X[:, :k]), ys, np.ascontiguousarray(X[:, k:])


def read_npz_arrays(
    path,
    x_key: str,
    label_keys: list[str],
    *,
    optional=(),
    x_option: str = "x_key",
    label_option: str = "label key",
    hint: str = "",
) -> tuple[np.ndarray, list]:
    """A dense float ``X`` and one label vector per key of ``label_keys`` from an npz archive,
    then one per key of ``optional`` (None for a key that the archive lacks), in one opening.

    The messages name the keys by ``x_option`` and ``label_option``; ``hint`` follows the one
    for a file that is not a zip archive at all."""
    import zipfile

    if not zipfile.is_zipfile(path):
        raise ValueError(
            f"cannot read {path!r} as npz: it is not a zip archive as numpy.savez writes{hint}"
        )
    try:
        with np.load(path, allow_pickle=False) as data:
            keys = sorted(data.files)
            wanted = ((x_option, x_key), *((label_option, k) for k in label_keys))
            missing = next(((o, k) for o, k in wanted if k not in keys), None)
            if missing is None:
                X = data[x_key]
                ys = [data[k] for k in label_keys]
                extra = [data[k] if k in keys else None for k in optional]
    except Exception as exc:  # truncated, object arrays, ...
        raise ValueError(f"cannot read {path!r} as npz: {exc}") from exc
    if missing is not None:
        option, key = missing
        raise ValueError(f"{path!r} has no array named {key!r} ({option}); it holds {keys}")
    if X.ndim != 2 or X.dtype.kind not in "biuf":
        raise ValueError(
            f"{path!r}: {x_key!r} must be a 2-D numeric array, got {X.dtype} {X.shape}"
        )
    out: list = []
    for key, y in zip([*label_keys, *optional], ys + extra, strict=True):
        if y is None:
            out.append(None)
            continue
        if not (y.ndim == 1 or (y.ndim == 2 and y.shape[1] == 1)) or y.shape[0] != X.shape[0]:
            raise ValueError(
                f"{path!r}: {key!r} must hold one label per row of {x_key!r} "
                f"({X.shape[0]} rows), got shape {y.shape}"
            )
        out.append(_as_labels(y))
    return np.ascontiguousarray(X, dtype=np.float64), out


def read_label_file(path, n: int) -> np.ndarray:
    """One label per line for ``n`` data points (a header line is skipped), as :func:`load_csv`
    makes labels."""
    try:
        y = np.loadtxt(path, dtype=str, ndmin=1, comments=None, delimiter=",", encoding=ENCODING)
    except Exception as exc:
        raise ValueError(f"cannot read the labels in {path!r}: {exc}") from exc
    if y.ndim == 1 and y.shape[0] == n + 1 and not _is_number(y[0]):
        y = y[1:]  # a header line
    if y.ndim != 1 or y.shape[0] != n:
        raise ValueError(
            f"{path!r} must hold one label per line for the {n} data points, got {y.shape[0]} lines"
        )
    return _as_labels(y)
