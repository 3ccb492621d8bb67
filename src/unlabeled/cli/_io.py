"""The command's data files: CSV, svmlight and npz, read only through :mod:`unlabeled.datasets`.

``fit`` records how it read its training file (format, columns, keys) in the model file, and
``predict`` / ``evaluate`` read their file laid out the same way: CSV columns matched by name
when both files have a header line, else by position, or the feature columns alone.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from .._files import (
    csv_column,
    find_column,
    format_from_suffix,
    load_svmlight,
    not_a_file,
    npz_keys,
    read_csv_columns,
    read_csv_layout,
    read_label_file,
    read_npz_arrays,
)
from ._common import EXIT_USAGE, CLIError

# --header -> load_csv's header
_HEADER: dict[str, bool | str] = {"auto": "infer", "yes": True, "no": False}


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


def _csv_layout(args) -> dict:
    return read_csv_layout(args.data, args.delimiter, _HEADER[args.header])


def _csv_read(path: str, layout: dict, features: list[int], labels: list[int]):
    return read_csv_columns(path, layout, features, labels, leave_out=" with --ignore-column")


def _npz_read(path: str, x_key: str, label_keys: list[str]):
    return read_npz_arrays(
        path,
        x_key,
        label_keys,
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


# ---------------------------------------------------------------------- fit
#: the families whose training file has a label column
LABELED = ("pu", "ssl", "mil", "lupi")


def load_training(args, family: str = "pu") -> tuple:
    """``X``, the raw label vector (None for clustering and the autoencoder), the other arrays
    of the family (``groups``: bag ids; ``X_star``: privileged features) and the record of
    how they were read, for ``fit``."""
    path = args.data
    existing(path)
    fmt = detect_format(path, args.format)
    info = {"file": os.path.basename(path), "format": fmt}
    extra: dict = {}
    if fmt != "csv" and args.privileged_columns:
        raise CLIError("--privileged-columns needs a CSV file", EXIT_USAGE)
    if fmt == "csv":
        X, y, extra, how = _csv_training(args, family)
        info.update(how)
    elif fmt == "npz":
        if args.ignore_column:
            raise CLIError("--ignore-column applies to CSV files only", EXIT_USAGE)
        keys = [args.label_column or "y"] if family in LABELED else []
        if family == "mil":
            keys.append(args.bag_column)
        X, ys = _npz_read(path, args.x_key, keys)
        y = ys[0] if family in LABELED else None
        info.update(x_key=args.x_key)
        if family in LABELED:
            info.update(label=keys[0])
        if family == "mil":
            extra["groups"] = ys[-1]
            info.update(bag=args.bag_column)
    else:
        if args.label_column is not None or args.ignore_column:
            raise CLIError(
                "--label-column and --ignore-column do not apply to svmlight files: the label "
                "is the first field of each line",
                EXIT_USAGE,
            )
        if family == "mil":
            raise CLIError("multi-instance data need a bag column: give a CSV or npz file")
        X, y = _svmlight_read(path, None)
        if family not in LABELED:
            y = None
    return X, y, extra, info


def _csv_training(args, family: str) -> tuple:
    path = args.data
    layout = _csv_layout(args)
    lab = None
    if family in LABELED:
        lab = csv_column(args.label_column or "-1", layout, path, "--label-column")
    ignored = {csv_column(c, layout, path, "--ignore-column") for c in args.ignore_column or ()}
    if lab in ignored:
        raise CLIError("--ignore-column names the label column (--label-column)", EXIT_USAGE)
    roles = {} if lab is None else {lab: "--label-column"}
    bag = None
    if family == "mil":
        bag = csv_column(args.bag_column, layout, path, "--bag-column")
    privileged = [
        csv_column(c.strip(), layout, path, "--privileged-columns")
        for c in (args.privileged_columns or "").split(",")
        if c.strip()
    ]
    for option, j in [("--bag-column", bag)] + [("--privileged-columns", j) for j in privileged]:
        if j is None:
            continue
        other = "--ignore-column" if j in ignored else roles.get(j)
        if other is not None:
            raise CLIError(f"{option} and {other} name the same column {j}", EXIT_USAGE)
        roles[j] = option
    features = [j for j in range(layout["n_columns"]) if j not in roles and j not in ignored]
    if not features:
        what = "the label column" if family in LABELED else "the columns left out"
        raise CLIError(f"{path!r} has no feature column left besides {what}")
    wanted = [j for j in (lab, bag) if j is not None]
    X, ys = _csv_read(path, layout, features, wanted)
    extra = {}
    if bag is not None:
        extra["groups"] = ys[-1]
    if privileged:
        extra["X_star"] = _csv_read(path, layout, privileged, [])[0]
    how = {
        "names": layout["names"],
        "n_columns": layout["n_columns"],
        "features": features,
        "label": lab,
        "delimiter": args.delimiter,
    }
    if bag is not None:
        how["bag"] = bag
    if privileged:
        how["privileged"] = privileged
    return X, (ys[0] if lab is not None else None), extra, how


# ---------------------------------------------------------------------- predict / evaluate
def load_for_model(
    args, est, train: dict, want_labels: bool, true_spec: str | None, bags: bool = False
):
    """``X`` laid out as the model's training data, plus the labels (if ``want_labels``), the
    true labels (if ``true_spec``) and the bag ids (if ``bags``) of the file ``args.data``,
    for predict and evaluate."""
    path = args.data
    existing(path)
    fmt = detect_format(path, args.format)
    n_features = int(est.n_features_in_)
    groups = None
    if fmt == "csv":
        X, y, y_true, groups = _csv_for_model(args, n_features, train, want_labels, true_spec, bags)
    elif fmt == "npz":
        X, y, y_true, groups = _npz_for_model(args, train, want_labels, true_spec, bags)
    elif bags:
        raise CLIError("multi-instance data need a bag column: give a CSV or npz file")
    else:
        if getattr(args, "label_column", None) is not None:
            raise CLIError(
                "--label-column does not apply to svmlight files: the label is the first field "
                "of each line",
                EXIT_USAGE,
            )
        X, y_file = _svmlight_read(path, n_features)
        y, y_true = (y_file if want_labels else None), None
    if true_spec is not None and y_true is None:
        if not Path(true_spec).is_file():
            where = {
                "npz": f"neither an array of {path!r} nor a file of labels",
                "csv": f"neither a column of {path!r} nor a file of labels",
                "svmlight": f"not a file of labels ({path!r} holds only the PU labels)",
            }[fmt]
            raise CLIError(f"--true-labels {true_spec!r} is {where}")
        y_true = read_label_file(true_spec, X.shape[0])
    return X, y, y_true, groups


def _model_features(layout: dict, train: dict, n_features: int, path: str, only: bool):
    """The columns of a CSV file that hold the model's features: by name when both files have
    a header line, by position when the file has the training file's columns, or all of them
    when the file holds only the features (``only``: no label column is wanted)."""
    names, n_cols = layout["names"], layout["n_columns"]
    tnames = train.get("names") if train.get("format") == "csv" else None
    if names and tnames and all(tnames[j] in names for j in train["features"]):
        return [names.index(tnames[j]) for j in train["features"]]
    if train.get("format") == "csv" and n_cols == train.get("n_columns"):
        return list(train["features"])
    if n_cols == n_features and only:
        return list(range(n_cols))
    raise CLIError(
        f"{path!r} has {n_cols} columns; the model needs its {n_features} feature "
        "columns laid out as in the training file" + (" (or only the features)" if only else "")
    )


def _csv_label_spec(
    label_spec: str | None, layout: dict, train: dict, role: str = "label"
) -> str | None:
    """``--label-column`` (or ``--bag-column``), or the training file's column of that
    ``role`` in this file's layout."""
    if label_spec is not None or train.get("format") != "csv" or train.get(role) is None:
        return label_spec
    if layout["names"] and train.get("names"):
        return train["names"][train[role]]
    if layout["n_columns"] == train.get("n_columns"):
        return str(train[role])
    return None


def _csv_for_model(args, n_features: int, train: dict, want_labels: bool, true_spec, bags):
    path = args.data
    layout = _csv_layout(args)
    only = not want_labels and true_spec is None and not bags
    features = _model_features(layout, train, n_features, path, only)
    labels = []
    if bags:
        bag_spec = _csv_label_spec(getattr(args, "bag_column", None), layout, train, "bag")
        if bag_spec is None:
            raise CLIError(f"which column of {path!r} holds the bag ids? Pass --bag-column")
        labels.append(csv_column(bag_spec, layout, path, "--bag-column"))
    if want_labels:
        label_spec = _csv_label_spec(getattr(args, "label_column", None), layout, train)
        labels.append(csv_column(label_spec or "-1", layout, path, "--label-column"))
    tcol = None
    if true_spec is not None:
        tcol = find_column(true_spec, layout)
        if tcol is None and not Path(true_spec).is_file():
            csv_column(true_spec, layout, path, "--true-labels")  # raises, naming the problem
        if tcol is not None:
            labels.append(tcol)
    used = set(features) & set(labels)
    if used:
        raise CLIError(
            f"column {sorted(used)[0]} of {path!r} is a feature of the model; it cannot also "
            "be a label column"
        )
    X, ys = _csv_read(path, layout, features, labels)
    groups = ys.pop(0) if bags else None
    return X, (ys[0] if want_labels else None), (ys[-1] if tcol is not None else None), groups


def _npz_for_model(args, train: dict, want_labels: bool, true_spec, bags):
    path = args.data
    x_key = args.x_key if args.x_key != "X" else train.get("x_key", "X")
    keys = []
    if bags:
        bag_key = getattr(args, "bag_column", None) or train.get("bag")
        if bag_key is None:
            raise CLIError(f"which array of {path!r} holds the bag ids? Pass --bag-column")
        keys.append(bag_key)
    if want_labels:
        label_spec = getattr(args, "label_column", None)
        keys.append(label_spec or (train["label"] if train.get("format") == "npz" else "y"))
    true_in_file = true_spec is not None and true_spec in npz_keys(path)
    if true_in_file:
        keys.append(true_spec)
    X, ys = _npz_read(path, x_key, keys)
    groups = ys.pop(0) if bags else None
    return X, (ys[0] if want_labels else None), (ys[-1] if true_in_file else None), groups


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
