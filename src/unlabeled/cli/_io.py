"""The command's data files: CSV, svmlight and npz, read through the package's file readers
(``unlabeled._files``, which :mod:`unlabeled.datasets` uses too).

The readers take explicit arguments: the file and how to read it (:class:`DataFile`), the
columns named on the command line (:class:`Columns`) and what the model's family reads (a label
column, bag ids), never the parsed command line.

``fit`` records how it read its training file (format, columns, keys) in the model file, and
the header names of its feature columns as the model's ``feature_names_in_``; ``predict`` /
``evaluate`` read their file laid out the same way. The column contract: a CSV file with a
header line is matched by name to the model's feature names (in any order; a missing feature,
a name used twice or a column that is neither a feature, nor a column of the training file,
nor named on the command line is an error); a file without one (or a model without names) by
count: the training file's positions, or the features alone. npz and svmlight files by count.
"""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from .._files import (
    CsvTable,
    format_from_suffix,
    load_svmlight,
    not_a_file,
    read_label_file,
    read_npz_arrays,
)
from ._common import EXIT_USAGE, CLIError

# --header -> load_csv's header
_HEADER: dict[str, bool | str] = {"auto": "infer", "yes": True, "no": False}


@dataclass(frozen=True)
class DataFile:
    """A data file and how to read it (--format, --delimiter, --header, --x-key)."""

    path: str
    format: str = "auto"
    delimiter: str = ","
    header: str = "auto"
    x_key: str = "X"

    def csv_table(self) -> CsvTable:
        """The CSV file, its layout read once: every column found and read through it."""
        return CsvTable(self.path, self.delimiter, _HEADER[self.header])


@dataclass(frozen=True)
class Columns:
    """The columns (npz: keys) named on the command line: --label-column, --ignore-column,
    --bag-column, --privileged-columns (comma-separated)."""

    label: str | None = None
    ignore: tuple[str, ...] = ()
    bag: str | None = None
    privileged: str | None = None


class TrainingRecord(NamedTuple):
    """How ``fit`` read its training file: the model file's record of it (``data``), typed.

    ``format`` is ``"csv"``, ``"npz"`` or ``"svmlight"``. A CSV's header ``names`` (None
    without a header line), ``n_columns``, the ``features`` columns in the model's order, the
    ``label`` and ``bag`` columns and the ``privileged`` ones (indices), its ``delimiter``; an
    npz archive's ``x_key`` and its ``label`` and ``bag`` keys. Then the counts, and for PU
    labels ``n_labeled`` and ``positive_value``. Read from a model file (untrusted) by
    :meth:`read`, which checks what predict and evaluate use of a CSV's record.
    """

    file: str = ""
    format: str | None = None
    names: list[str] | None = None
    n_columns: int | None = None
    features: list[int] = []  # noqa: RUF012 - a NamedTuple's default, never changed
    label: int | str | None = None
    delimiter: str = ","
    bag: int | str | None = None
    privileged: list[int] = []  # noqa: RUF012 - as features
    x_key: str = "X"
    n_samples: int = 0
    n_features: int = 0
    n_labeled: int | None = None
    positive_value: str | None = None

    @property
    def csv(self) -> bool:
        return self.format == "csv"

    def role(self, role: str) -> int | str | None:
        """The column (CSV) or key (npz) of ``role``: ``"label"`` or ``"bag"``."""
        return self.label if role == "label" else self.bag

    def feature_names(self) -> list[str] | None:
        """The header names of a CSV's feature columns, or None."""
        names = self.names if self.csv else None
        return [names[j] for j in self.features] if names else None

    def as_dict(self) -> dict:
        """The record as the model file keeps it (its keys in this order since version 1)."""
        out: dict[str, Any] = {"file": self.file, "format": self.format}
        if self.csv:
            out.update(
                names=self.names,
                n_columns=self.n_columns,
                features=self.features,
                label=self.label,
                delimiter=self.delimiter,
            )
        elif self.format == "npz":
            out["x_key"] = self.x_key
            if self.label is not None:
                out["label"] = self.label
        if self.bag is not None:
            out["bag"] = self.bag
        if self.privileged:
            out["privileged"] = self.privileged
        out.update(n_samples=self.n_samples, n_features=self.n_features)
        if self.n_labeled is not None:
            out.update(n_labeled=self.n_labeled, positive_value=self.positive_value)
        return out

    @classmethod
    def read(cls, data: object, n_features: int, model: str) -> TrainingRecord:
        """The record of a model file's ``data``, refused when it is a CSV's whose columns
        cannot say where the features are (``n_features`` column indices in range, one name
        per column)."""
        data = data if isinstance(data, dict) else {}
        if data.get("format") == "csv" and not _csv_record_ok(data, n_features):
            raise CLIError(
                f"{model!r}: its record of the training file's columns is damaged: refit the model"
            )
        known = cls._fields
        return cls(**{k: v for k, v in data.items() if k in known and v is not None})


def _csv_record_ok(train: dict, n_features: int) -> bool:
    n_cols, names = train.get("n_columns"), train.get("names")
    features, privileged = train.get("features"), train.get("privileged") or []
    n = n_cols if type(n_cols) is int else 0

    def indices(js, k: int | None = None) -> bool:
        return (
            isinstance(js, list)
            and (k is None or len(js) == k)
            and all(type(j) is int and 0 <= j < n for j in js)
        )

    roles = [j for j in (train.get("label"), train.get("bag")) if j is not None]
    names_ok = names is None or (
        isinstance(names, list) and len(names) == n and all(type(c) is str for c in names)
    )
    return (
        n >= 1
        and indices(features, n_features)
        and indices(roles)
        and indices(privileged)
        and names_ok
    )


class ModelRows(NamedTuple):
    """A file read for a model: ``X``, the labels, the true labels and the bag ids (None when
    not asked for), and the model's record of its training file."""

    X: np.ndarray
    y: Any  # each an array, or None when not asked for
    y_true: Any
    groups: Any
    train: TrainingRecord


def detect_format(path: str, fmt: str) -> str:
    """``--format``, or the format that the suffix of ``path`` names."""
    if fmt != "auto":
        return fmt
    found, suffix, _ = format_from_suffix(path)
    if found is not None:
        return found
    raise CLIError(
        f"cannot tell the format of {path!r} from its suffix {suffix!r}: pass --format "
        "csv, svmlight or npz (or name the file .csv, .svm/.libsvm/.svmlight/.txt or .npz)"
    )


def existing(path: str, what: str = "data file") -> None:
    kind = not_a_file(path)
    if kind is not None:
        raise CLIError(f"{path!r} is {kind}, not a {what}: give the path of a file")
    if not Path(path).is_file():
        raise CLIError(f"{what} not found: {path!r}")


def _csv_read(table: CsvTable, features: list[int], labels: list[int], more=()):
    return table.read(features, labels, more=list(more), leave_out=" with --ignore-column")


def _npz_read(path: str, x_key: str, label_keys: list[str], optional=()):
    return read_npz_arrays(
        path,
        x_key,
        label_keys,
        optional=list(optional),
        x_option="--x-key",
        label_option="--label-column",
        hint=" (pass --format if it is another format)",
    )


def _svmlight_read(path: str, n_features: int | None):
    try:
        return load_svmlight(path, n_features=n_features)
    except Exception as exc:
        raise CLIError(
            f"cannot read {path!r} as svmlight (pass --format if it is another format): {exc}"
        ) from exc


# ---------------------------------------------------------------------- the one dispatch
def _opened(file: DataFile) -> _Format:
    """The reader of ``file``'s format (the one switch on formats), once the file exists."""
    existing(file.path)
    return _FORMATS[detect_format(file.path, file.format)]


def load_training(file: DataFile, columns: Columns, *, labels: bool, bags: bool) -> tuple:
    """``X``, the raw label vector (None unless ``labels``), the other arrays named by
    ``columns`` (``groups``: the bag ids when ``bags``; ``X_star``: privileged features) and
    the record of how they were read (:class:`TrainingRecord`, without the counts), for
    ``fit``."""
    bag = columns.bag if bags else None
    if bags and bag is None:
        raise CLIError("multi-instance data need --bag-column (each row's bag id)", EXIT_USAGE)
    reader = _opened(file)
    if reader.name != "csv" and columns.privileged:
        raise CLIError("--privileged-columns needs a CSV file", EXIT_USAGE)
    return reader.training(file, columns, labels, bag)


def load_for_model(
    file: DataFile,
    est,
    train: object,
    model: str,
    columns: Columns,
    *,
    want_labels: bool,
    true_spec: str | None,
    bags: bool,
) -> ModelRows:
    """``X`` laid out as the model's training data (``train``, the record of the model file
    ``model``), plus the labels (if ``want_labels``), the true labels (if ``true_spec``) and
    the bag ids (if ``bags``) of ``file``, for predict and evaluate; ``columns`` names the
    label and bag columns (default: as in training)."""
    reader = _opened(file)
    n_features = int(est.n_features_in_)
    record = TrainingRecord.read(train, n_features, model)
    want = _Wanted(columns.label, columns.bag, true_spec, want_labels, bags)
    X, y, y_true, groups = reader.for_model(file, est, record, want)
    if true_spec is not None and y_true is None:
        if not Path(true_spec).is_file():
            raise CLIError(f"--true-labels {true_spec!r} is {reader.true_where(file.path)}")
        y_true = read_label_file(true_spec, X.shape[0])
    return ModelRows(X, y, y_true, groups, record)


class _Wanted(NamedTuple):
    """What predict or evaluate reads beside ``X``: the label and bag columns named on the
    command line, the true labels, whether the labels and the bag ids are needed."""

    label: str | None
    bag: str | None
    true: str | None
    labels: bool
    bags: bool


class _Format:
    """A data file format: how ``fit`` reads a training file, and predict and evaluate a
    file for a model."""

    name = ""

    def training(self, file: DataFile, columns: Columns, labels: bool, bag: str | None):
        raise NotImplementedError

    def for_model(self, file: DataFile, est, train: TrainingRecord, want: _Wanted):
        raise NotImplementedError

    def true_where(self, path: str) -> str:
        return f"neither a column of {path!r} nor a file of labels"


class _Svmlight(_Format):
    name = "svmlight"

    def training(self, file: DataFile, columns: Columns, labels: bool, bag: str | None):
        if columns.label is not None or columns.ignore:
            raise CLIError(
                "--label-column and --ignore-column do not apply to svmlight files: the label "
                "is the first field of each line",
                EXIT_USAGE,
            )
        if bag is not None:
            raise CLIError("multi-instance data need a bag column: give a CSV or npz file")
        X, y = _svmlight_read(file.path, None)
        record = TrainingRecord(os.path.basename(file.path), self.name)
        return X, (y if labels else None), {}, record

    def for_model(self, file: DataFile, est, train: TrainingRecord, want: _Wanted):
        if want.bags:
            raise CLIError("multi-instance data need a bag column: give a CSV or npz file")
        if want.label is not None:
            raise CLIError(
                "--label-column does not apply to svmlight files: the label is the first field "
                "of each line",
                EXIT_USAGE,
            )
        X, y_file = _svmlight_read(file.path, int(est.n_features_in_))
        return X, (y_file if want.labels else None), None, None

    def true_where(self, path: str) -> str:
        return f"not a file of labels ({path!r} holds only the PU labels)"


class _Npz(_Format):
    name = "npz"

    def training(self, file: DataFile, columns: Columns, labels: bool, bag: str | None):
        path = file.path
        if columns.ignore:
            raise CLIError("--ignore-column applies to CSV files only", EXIT_USAGE)
        keys = [columns.label or "y"] if labels else []
        if bag is not None:
            keys.append(bag)
        X, ys = _npz_read(path, file.x_key, keys)
        extra = {}
        if bag is not None:
            extra["groups"] = ys[-1]
            _check_bag_ids(ys[-1], path, f"array {bag!r}", npz=True)
        label = keys[0] if labels else None
        record = TrainingRecord(
            os.path.basename(path), self.name, x_key=file.x_key, label=label, bag=bag
        )
        return X, (ys[0] if labels else None), extra, record

    def for_model(self, file: DataFile, est, train: TrainingRecord, want: _Wanted):
        path, n_features = file.path, int(est.n_features_in_)
        x_key = file.x_key if file.x_key != "X" else train.x_key
        keys: list = []  # a model file's record names its keys (untrusted: the reader checks)
        if want.bags:
            bag_key = want.bag or train.bag
            if bag_key is None:
                raise CLIError(f"which array of {path!r} holds the bag ids? Pass --bag-column")
            keys.append(bag_key)
        if want.labels:
            recorded = train.label if train.format == "npz" and train.label is not None else "y"
            keys.append(want.label or recorded)
        optional = [] if want.true is None else [want.true]  # a key, or a file of labels
        X, ys = _npz_read(path, x_key, keys, optional)
        true = ys.pop() if optional else None
        groups = ys.pop(0) if want.bags else None
        if groups is not None:
            _check_bag_ids(groups, path, f"array {keys[0]!r}", npz=True)
        if X.shape[1] != n_features:
            raise CLIError(
                f"{path!r}: the array {x_key!r} has {X.shape[1]} columns, the model was fitted "
                f"on {n_features} features"
            )
        y = ys[0] if want.labels else None
        return X, y, true, groups

    def true_where(self, path: str) -> str:
        return f"neither an array of {path!r} nor a file of labels"


class _Csv(_Format):
    name = "csv"

    def training(self, file: DataFile, columns: Columns, labels: bool, bag: str | None):
        path = file.path
        table = file.csv_table()
        twice = sorted(c for c, k in Counter(table.names or ()).items() if k > 1)
        if twice:  # predict and evaluate match the columns by name
            raise CLIError(
                f"{path!r} has more than one column named {_shown_names(twice)}: give every "
                "column its own name"
            )
        lab = table.column(columns.label or "-1", "--label-column") if labels else None
        ignored = {table.column(c, "--ignore-column") for c in columns.ignore}
        if lab in ignored:
            raise CLIError("--ignore-column names the label column (--label-column)", EXIT_USAGE)
        roles = {} if lab is None else {lab: "--label-column"}
        bag_j = None if bag is None else table.column(bag, "--bag-column")
        privileged = [
            table.column(c.strip(), "--privileged-columns")
            for c in (columns.privileged or "").split(",")
            if c.strip()
        ]
        named = [("--bag-column", bag_j)] + [("--privileged-columns", j) for j in privileged]
        for option, j in named:
            if j is None:
                continue
            other = "--ignore-column" if j in ignored else roles.get(j)
            if other is not None:
                raise CLIError(f"{option} and {other} name the same column {j}", EXIT_USAGE)
            roles[j] = option
        features = [j for j in range(table.n_columns) if j not in roles and j not in ignored]
        if not features:
            what = "the label column" if labels else "the columns left out"
            raise CLIError(f"{path!r} has no feature column left besides {what}")
        label_cols = [j for j in (lab, bag_j) if j is not None]
        X, ys, X_star = _csv_read(table, features, label_cols, privileged)
        extra = {}
        if bag_j is not None:
            extra["groups"] = ys[-1]
            _check_bag_ids(ys[-1], path, table.label_of(bag_j))
        if privileged:
            extra["X_star"] = X_star
        record = TrainingRecord(
            os.path.basename(path),
            self.name,
            names=table.names,
            n_columns=table.n_columns,
            features=features,
            label=lab,
            delimiter=file.delimiter,
            bag=bag_j,
            privileged=privileged,
        )
        return X, (ys[0] if lab is not None else None), extra, record

    def for_model(self, file: DataFile, est, train: TrainingRecord, want: _Wanted):
        """The label, bag and true-label columns found first (an option names them, or the
        training file's names or positions), then the features among the other columns."""
        path, table = file.path, file.csv_table()
        cols: dict[str, int] = {}  # role -> column
        if want.bags:
            spec = _csv_label_spec(want.bag, table, train, "bag")
            if spec is None:
                raise CLIError(f"which column of {path!r} holds the bag ids? Pass --bag-column")
            cols["bag"] = table.column(spec, "--bag-column")
        if want.labels or want.label is not None:  # a column named on the command line is known
            spec = _csv_label_spec(want.label, table, train, "label")
            cols["label"] = table.column(spec or "-1", "--label-column")
        if want.true is not None:
            tcol = table.find(want.true)
            if tcol is None and not Path(want.true).is_file():
                table.column(want.true, "--true-labels")  # raises, naming the problem
            if tcol is not None:
                cols["true"] = tcol
        named = list(cols.values())
        n_features = int(est.n_features_in_)
        feature_names = model_feature_names(est, train)
        features = _model_features(table, train, feature_names, n_features, path, named)
        used = set(features) & set(named)
        if used:
            raise CLIError(
                f"column {sorted(used)[0]} of {path!r} is a feature of the model; it cannot "
                "also be a label column"
            )
        X, ys, _ = _csv_read(table, features, named)
        got = dict(zip(cols, ys, strict=True))
        groups = got.get("bag")
        if groups is not None:
            _check_bag_ids(groups, path, table.label_of(cols["bag"]))
        return X, (got.get("label") if want.labels else None), got.get("true"), groups


_FORMATS: dict[str, _Format] = {f.name: f for f in (_Csv(), _Npz(), _Svmlight())}


def model_feature_names(est, train: TrainingRecord) -> list[str] | None:
    """The names of the model's features: its ``feature_names_in_`` (``fit`` records the
    header names of the feature columns; a model fitted in Python on a DataFrame has them
    too), else those of the training file's record (files of earlier versions), else None."""
    names = getattr(est, "feature_names_in_", None)
    if names is not None:
        return [str(v) for v in names]
    return train.feature_names()


def _shown_names(names: list[str], limit: int = 8) -> str:
    """Column names for a message: the first ``limit``, and how many more."""
    more = f", and {len(names) - limit} more" if len(names) > limit else ""
    return "[" + ", ".join(map(repr, names[:limit])) + more + "]"


def _check_bag_ids(groups: np.ndarray, path: str, where: str, npz: bool = False) -> None:
    """Refuse an empty bag id (a blank cell), which would make a bag of its own; the message
    names the data row (from 1, after the header line) or the npz array's index (from 0)."""
    if groups.dtype.kind not in "US":
        return
    empty = np.flatnonzero(groups == "")
    if empty.size:
        row = f"index {empty[0]}" if npz else f"data row {empty[0] + 1}"
        raise CLIError(
            f"{path!r}, {where}: {row} has an empty bag id ({empty.size} empty in all); give "
            "every row the id of its bag"
        )


def _features_by_name(
    names: list[str], feature_names: list[str], known: set[str], named: list[int], path: str
) -> list[int]:
    """The columns of a file with a header line that hold the model's features, by name (in
    the model's order, whatever the file's). A missing feature, a name given to two columns,
    or a column that is neither a feature, nor a column of the training file (``known``), nor
    named on the command line (``named``), is an error naming the columns."""
    twice = sorted(c for c, k in Counter(names).items() if k > 1)
    if twice:
        raise CLIError(
            f"{path!r} has more than one column named {_shown_names(twice)}: the model's "
            "features are matched by name, give every column its own name"
        )
    missing = [c for c in feature_names if c not in names]
    if missing:
        raise CLIError(
            f"{path!r} has no column {_shown_names(missing)}: the model's features are the "
            f"columns {_shown_names(feature_names)}, matched by name (in any order)"
        )
    extra = [c for j, c in enumerate(names) if c not in known and j not in named]
    if extra:
        raise CLIError(
            f"{path!r} has the column{'s' if len(extra) > 1 else ''} {_shown_names(extra)}, "
            f"which the model does not know: remove {'them' if len(extra) > 1 else 'it'} (the "
            f"model's features are {_shown_names(feature_names)}; the other columns of its "
            "training file, and those named by --label-column, --bag-column or --true-labels, "
            "may stay)"
        )
    return [names.index(c) for c in feature_names]


def _model_features(
    table: CsvTable,
    train: TrainingRecord,
    feature_names: list[str] | None,
    n_features: int,
    path: str,
    named: list[int],
) -> list[int]:
    """The columns of a CSV file that hold the model's features: by name when the file has a
    header line and the model knows its feature names; else by count: the training file's
    positions when the file has its number of columns, or every column when the file has
    exactly the features (and no label, bag or true-label column is ``named``)."""
    names, n_cols = table.names, table.n_columns
    if names is not None and feature_names is not None:
        tnames = train.names if train.csv else None
        known = set(feature_names) | set(tnames or ())
        return _features_by_name(names, feature_names, known, named, path)
    if train.csv and n_cols == train.n_columns:
        return list(train.features)
    if n_cols == n_features and not named:
        return list(range(n_cols))
    expected = [f"{train.n_columns}, as the training file"] if train.n_columns else []
    if not named:
        expected.append(f"{n_features}, the features alone")
    if not expected:
        raise CLIError(
            f"{path!r}: the model was not fitted on a CSV file, so it knows no label column: "
            f"the CSV files it reads hold its {n_features} features alone"
        )
    raise CLIError(
        f"{path!r} has {n_cols} columns and no header line to match by name: the model reads "
        f"{' or '.join(expected)} (columns matched by position)"
    )


def _csv_label_spec(
    label_spec: str | None, table: CsvTable, train: TrainingRecord, role: str = "label"
) -> str | None:
    """``--label-column`` (or ``--bag-column``), or the training file's column of that
    ``role`` in this file's layout."""
    j = train.role(role)
    if label_spec is not None or not train.csv or not isinstance(j, int):
        return label_spec
    if table.names and train.names:
        return train.names[j]
    if table.n_columns == train.n_columns:
        return str(j)
    return None


# ---------------------------------------------------------------------- labels
def matches(y: np.ndarray, value: str, option: str, what: str) -> np.ndarray:
    """The entries of ``y`` equal to the command-line ``value`` (numbers compare as numbers)."""
    if y.dtype.kind in "iuf":
        text = value.strip().lower()
        text = {"true": "1", "false": "0"}.get(text, text)
        try:
            v = float(text)
        except ValueError:
            found = np.unique(y)[:10].tolist()
            raise CLIError(
                f"{option} {value!r} is not a number, but the labels of {what} are numbers "
                f"(values found: {found})"
            ) from None
        return y == v
    return y == value.strip()


def pu_mask(y, value: str, what: str) -> np.ndarray:
    """The labeled positives: the entries of ``y`` equal to ``--positive-value``."""
    mask = matches(y, value, "--positive-value", what)
    found = np.unique(y)[:10].tolist()
    if not mask.any():
        raise CLIError(
            f"no labeled positive in {what}: no label equals --positive-value {value!r} "
            f"(values found: {found}); choose the label that marks labeled positives"
        )
    return mask


def ssl_targets(y: np.ndarray) -> np.ndarray:
    """Semi-supervised targets as the estimators take them: string labels become an object
    array whose unlabeled entries ("-1") are the integer -1 (scikit-learn's convention)."""
    if y.dtype.kind not in "US":
        return y
    out = y.astype(object)
    out[y == "-1"] = -1
    return out


def unlabeled_rows(y: np.ndarray) -> np.ndarray:
    """Where a semi-supervised label column holds -1 (a number, or the text "-1")."""
    return y == ("-1" if y.dtype.kind in "US" else -1)
