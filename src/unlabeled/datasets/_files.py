"""Loaders for data files a user already has (svmlight/libsvm, CSV, NumPy .npz)."""

from __future__ import annotations

import csv
import os
import warnings
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from sklearn.datasets import load_svmlight_file

from .._validation import check_int

SVMLIGHT_SUFFIXES = (".svm", ".svmlight", ".libsvm", ".txt")
_SPARSE_NPZ_KEYS = {"data", "indices", "indptr", "format", "shape"}


def _existing_file(path) -> Path:
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a str or os.PathLike, got {type(path).__name__}")
    p = Path(path)
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


def load_svmlight(path, n_features: int | None = None) -> tuple[sp.csr_matrix, np.ndarray]:
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
    """
    n_features = check_int(n_features, "n_features", low=1, allow_none=True)
    p = _existing_file(path)
    X, y = load_svmlight_file(str(p), n_features=n_features, dtype=np.float64)
    return sp.csr_matrix(X), _as_labels(y)


def load_csv(
    path, label_column: int | str = -1, delimiter: str = ",", header: bool | str = "infer"
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
    with open(p, newline="", encoding="utf-8") as f:
        reader = csv.reader(f, delimiter=delimiter)
        first = next((row for row in reader if row), None)
        first_line = reader.line_num
    if first is None:
        raise ValueError(f"{p}: the file is empty")
    first = [c.strip() for c in first]
    has_header = all(not _is_number(c) for c in first) if header == "infer" else header
    n_cols = len(first)
    if isinstance(label_column, str):
        if not has_header:
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
    skiprows = first_line if has_header else first_line - 1
    try:
        X, (y,) = _loadtxt_columns(p, features, [lab], delimiter, skiprows)
    except ValueError as exc:
        _explain_csv_error(p, delimiter, skiprows, n_cols, lab)
        raise ValueError(f"{p}: {exc}") from exc
    if X.shape[0] == 0:
        raise ValueError(f"{p}: no data rows after the header")
    return np.ascontiguousarray(X), _as_labels(y)


def _loadtxt_columns(path, features, labels, delimiter, skiprows):
    """Float64 features from the columns ``features`` and one string array per column of
    ``labels``, by numpy's C reader (double quotes allowed, blank lines skipped); a field that
    does not parse raises numpy's ValueError, for the caller to explain."""
    opts = dict(
        delimiter=delimiter, skiprows=skiprows, comments=None, quotechar='"', encoding="utf-8"
    )
    with warnings.catch_warnings():  # numpy warns that blank lines are skipped
        warnings.filterwarnings("ignore", "Input line", UserWarning)
        X = np.loadtxt(path, usecols=features, dtype=np.float64, ndmin=2, **opts)
        ys = [np.loadtxt(path, usecols=[j], dtype=str, ndmin=1, **opts) for j in labels]
    return X, ys


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _explain_csv_error(p: Path, delimiter: str, skip: int, n_cols: int, lab: int) -> None:
    """Find the first bad line of a CSV file and raise a ValueError naming line and column."""
    with open(p, newline="", encoding="utf-8") as f:
        reader = csv.reader(f, delimiter=delimiter)
        for row in reader:
            if reader.line_num <= skip or not row:
                continue
            line = reader.line_num
            if len(row) != n_cols:
                raise ValueError(
                    f"{p}, line {line}: {len(row)} fields, expected {n_cols} as in the first line"
                )
            for j, cell in enumerate(row):
                if j != lab and not _is_number(cell.strip()):
                    raise ValueError(
                        f"{p}, line {line}, column {j + 1}: non-numeric feature value "
                        f"{cell!r}; encode categorical features as numbers and impute "
                        "missing values before loading"
                    )


def load_npz(path, X_key: str = "X", y_key: str = "y") -> tuple[np.ndarray, np.ndarray]:
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


def load_file(path, **kwargs):
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
    """
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a str or os.PathLike, got {type(path).__name__}")
    suffixes = [s.lower() for s in Path(path).suffixes]
    suffix = suffixes[-1] if suffixes else ""
    compressed = len(suffixes) > 1 and suffix in (".gz", ".bz2")
    if suffix in SVMLIGHT_SUFFIXES or (compressed and suffixes[-2] in SVMLIGHT_SUFFIXES):
        return load_svmlight(path, **kwargs)
    if suffix == ".csv":
        return load_csv(path, **kwargs)
    if suffix == ".npz":
        return load_npz(path, **kwargs)
    accepted = [*SVMLIGHT_SUFFIXES, ".csv", ".npz"]
    raise ValueError(
        f"cannot tell the format of {str(path)!r} from its suffix {suffix!r}; accepted suffixes "
        f"are {accepted} (svmlight files may end in .gz or .bz2): rename the file or call "
        "load_svmlight, load_csv or load_npz directly"
    )
