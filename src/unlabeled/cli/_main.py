"""The ``unlabeled`` command: ``fit``, ``predict``, ``evaluate`` and ``demo``.

Every failure the user can cause ends in one line ``unlabeled: error: ...`` on stderr and a
non-zero exit status (2 for a bad command line, 1 for anything else), never a traceback; set
``UNLABELED_DEBUG=1`` or pass ``--debug`` to see the traceback. Output files (models,
predictions) are written atomically at the very end, so a command that fails writes nothing.
Results go to stdout; progress and notes go to stderr and ``--quiet`` silences them.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import sys
import threading
import time
import warnings
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from ..datasets._files import _is_number

FORMATS = ("csv", "svmlight", "npz")
EXIT_USAGE = 2
EXIT_FAILURE = 1


class CLIError(Exception):
    """A failure to report as one line on stderr; ``code`` is the exit status."""

    def __init__(self, message: str, code: int = EXIT_FAILURE):
        super().__init__(message)
        self.code = code


class _Formatter(argparse.HelpFormatter):
    """Fills one-paragraph descriptions to the terminal width, keeps multi-line epilogs as
    written (their tables and examples)."""

    def _fill_text(self, text, width, indent):
        if "\n" in text:
            return "".join(indent + line for line in text.splitlines(keepends=True))
        return super()._fill_text(text, width, indent)


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors: ``unlabeled: error: <what> (see '<prog> --help')``."""

    def error(self, message):
        raise CLIError(f"{message} (see '{self.prog} --help')", EXIT_USAGE)


# ---------------------------------------------------------------------- progress
class _Progress:
    """Progress on stderr for long steps (a tqdm spinner with the elapsed time), and notes;
    both silenced by ``--quiet``."""

    def __init__(self, quiet: bool):
        self.quiet = bool(quiet)

    def note(self, text: str) -> None:
        if not self.quiet:
            print(text, file=sys.stderr, flush=True)

    @contextmanager
    def step(self, desc: str):
        if self.quiet:
            yield
            return
        tqdm = None
        if sys.stderr.isatty():
            try:
                from tqdm import tqdm
            except ImportError:  # a core dependency; without it, plain lines
                pass
        if tqdm is None:  # a log file or a pipe: one line per finished step, no spinner
            t0 = time.perf_counter()
            yield
            self.note(f"{desc} [{time.perf_counter() - t0:.1f}s]")
            return
        bar = tqdm(total=None, desc=desc, bar_format="{desc} [{elapsed}]", file=sys.stderr)
        stop = threading.Event()

        def tick():  # the engine releases the GIL while it solves, so this keeps ticking
            while not stop.wait(0.25):
                bar.refresh()

        ticker = threading.Thread(target=tick, daemon=True)
        ticker.start()
        ok = False
        try:
            yield
            ok = True
        finally:
            stop.set()
            ticker.join()
            bar.leave = ok  # a failed step leaves only the error line
            bar.close()


# ---------------------------------------------------------------------- data files
def _detect_format(path: str, fmt: str) -> str:
    if fmt != "auto":
        return fmt
    from ..datasets._files import SVMLIGHT_SUFFIXES

    suffixes = [s.lower() for s in Path(path).suffixes]
    if suffixes and suffixes[-1] in (".gz", ".bz2"):
        suffixes = suffixes[:-1]
    suffix = suffixes[-1] if suffixes else ""
    if suffix in SVMLIGHT_SUFFIXES:
        return "svmlight"
    if suffix in (".csv", ".npz"):
        return suffix[1:]
    raise CLIError(
        f"cannot tell the format of {path!r} from its suffix {suffix!r}: pass --format "
        "csv, svmlight or npz (or name the file .csv, .svm/.libsvm/.svmlight/.txt or .npz)"
    )


def _existing(path: str, what: str = "data file") -> None:
    if not Path(path).is_file():
        raise CLIError(f"{what} not found: {path!r}")


def _csv_layout(path: str, delimiter: str, header: str) -> dict:
    """Column names (None without a header line), number of columns and rows to skip."""
    try:
        with open(path, newline="", encoding="utf-8") as fh:
            reader = csv.reader(fh, delimiter=delimiter)
            first = next((row for row in reader if row), None)
            first_line = reader.line_num
    except (UnicodeDecodeError, csv.Error) as exc:
        raise CLIError(f"cannot read {path!r} as CSV: {exc}") from exc
    if first is None:
        raise CLIError(f"cannot read {path!r} as CSV: the file is empty")
    first = [c.strip() for c in first]
    has_header = all(not _is_number(c) for c in first) if header == "auto" else header == "yes"
    return {
        "names": first if has_header else None,
        "n_columns": len(first),
        "skiprows": first_line if has_header else first_line - 1,
        "delimiter": delimiter,
    }


def _find_column(spec: str, layout: dict) -> int | None:
    """A column by name (with a header line) or by index (negative from the end), or None."""
    names, n = layout["names"], layout["n_columns"]
    if names is not None and spec in names:
        return names.index(spec)
    try:
        j = int(spec)
    except ValueError:
        return None
    return j % n if -n <= j < n else None


def _column(spec: str, layout: dict, path: str, option: str) -> int:
    j = _find_column(spec, layout)
    if j is not None:
        return j
    names, n = layout["names"], layout["n_columns"]
    try:
        int(spec)
    except ValueError:
        if names is None:
            raise CLIError(
                f"{option} {spec!r} is a column name but {path!r} has no header line: give the "
                f"column index instead (0 to {n - 1}, negative counts from the end)"
            ) from None
        raise CLIError(
            f"{option} {spec!r} is not a column of {path!r}; its columns are {names}"
        ) from None
    raise CLIError(f"{option} {spec} is out of range: {path!r} has {n} columns")


def _csv_read(path: str, layout: dict, features: list[int], labels: list[int]):
    """Float features from the columns ``features`` and raw labels from ``labels``."""
    from ..datasets._files import _as_labels, _loadtxt_columns

    try:
        X, raw = _loadtxt_columns(path, features, labels, layout["delimiter"], layout["skiprows"])
        ys = [_as_labels(y) for y in raw]
    except ValueError as exc:
        _explain_csv_error(path, layout, set(labels))
        raise CLIError(f"cannot read {path!r} as CSV: {exc}") from exc
    if X.shape[0] == 0:
        raise CLIError(f"{path!r} has no data rows")
    return np.ascontiguousarray(X), ys


def _explain_csv_error(path: str, layout: dict, label_columns: set) -> None:
    """Name the first bad line and column of a CSV file that numpy could not parse."""
    n = layout["n_columns"]
    with open(path, newline="", encoding="utf-8") as fh:
        reader = csv.reader(fh, delimiter=layout["delimiter"])
        for row in reader:
            if reader.line_num <= layout["skiprows"] or not row:
                continue
            line = reader.line_num
            if len(row) != n:
                raise CLIError(
                    f"cannot read {path!r} as CSV: line {line} has {len(row)} fields, expected "
                    f"{n} as in the first line"
                )
            for j, cell in enumerate(row):
                if j not in label_columns and not _is_number(cell.strip()):
                    raise CLIError(
                        f"cannot read {path!r} as CSV: line {line}, column {j}: non-numeric "
                        f"feature value {cell!r} (encode categories as numbers, impute missing "
                        "values, or leave the column out with --ignore-column)"
                    )


def _npz_read(path: str, x_key: str, label_keys: list[str]):
    import zipfile

    from ..datasets._files import _as_labels

    if not zipfile.is_zipfile(path):
        raise CLIError(
            f"cannot read {path!r} as npz: it is not a zip archive as numpy.savez writes "
            "(pass --format if it is another format)"
        )
    try:
        with np.load(path, allow_pickle=False) as data:
            keys = sorted(data.files)
            for option, key in (("--x-key", x_key), *(("--label-column", k) for k in label_keys)):
                if key not in keys:
                    raise CLIError(
                        f"{path!r} has no array named {key!r} ({option}); it holds {keys}"
                    )
            X = data[x_key]
            ys = [data[k] for k in label_keys]
    except CLIError:
        raise
    except Exception as exc:  # not a zip, truncated, object arrays, ...
        raise CLIError(f"cannot read {path!r} as npz: {exc}") from exc
    if X.ndim != 2 or X.dtype.kind not in "biuf":
        raise CLIError(f"{path!r}: {x_key!r} must be a 2-D numeric array, got {X.dtype} {X.shape}")
    out = []
    for key, y in zip(label_keys, ys, strict=True):
        if not (y.ndim == 1 or (y.ndim == 2 and y.shape[1] == 1)) or y.shape[0] != X.shape[0]:
            raise CLIError(
                f"{path!r}: {key!r} must hold one label per row of {x_key!r} "
                f"({X.shape[0]} rows), got shape {y.shape}"
            )
        out.append(_as_labels(y))
    return np.ascontiguousarray(X, dtype=np.float64), out


def _svmlight_read(path: str, n_features: int | None):
    from ..datasets import load_svmlight

    try:
        return load_svmlight(path, n_features=n_features)
    except Exception as exc:
        raise CLIError(
            f"cannot read {path!r} as svmlight (pass --format if it is another format): {exc}"
        ) from exc


def _label_file(path: str, n: int):
    from ..datasets._files import _as_labels

    try:
        y = np.loadtxt(path, dtype=str, ndmin=1, comments=None, delimiter=",")
    except Exception as exc:
        raise CLIError(f"cannot read the labels in {path!r}: {exc}") from exc
    if y.ndim == 1 and y.shape[0] == n + 1 and not _is_number(y[0]):
        y = y[1:]  # a header line
    if y.ndim != 1 or y.shape[0] != n:
        raise CLIError(
            f"{path!r} must hold one label per line for the {n} data points, got {y.shape[0]} lines"
        )
    return _as_labels(y)


def _load_training(args) -> tuple:
    """``X``, the raw label vector and the record of how they were read, for ``fit``."""
    path = args.data
    _existing(path)
    fmt = _detect_format(path, args.format)
    info = {"file": os.path.basename(path), "format": fmt}
    if fmt == "csv":
        layout = _csv_layout(path, args.delimiter, args.header)
        lab = _column(args.label_column or "-1", layout, path, "--label-column")
        ignored = {_column(c, layout, path, "--ignore-column") for c in args.ignore_column or ()}
        if lab in ignored:
            raise CLIError("--ignore-column names the label column (--label-column)", EXIT_USAGE)
        features = [j for j in range(layout["n_columns"]) if j != lab and j not in ignored]
        if not features:
            raise CLIError(f"{path!r} has no feature column left besides the label column")
        X, (y,) = _csv_read(path, layout, features, [lab])
        info.update(
            names=layout["names"],
            n_columns=layout["n_columns"],
            features=features,
            label=lab,
            delimiter=args.delimiter,
        )
    elif fmt == "npz":
        if args.ignore_column:
            raise CLIError("--ignore-column applies to CSV files only", EXIT_USAGE)
        key = args.label_column or "y"
        X, (y,) = _npz_read(path, args.x_key, [key])
        info.update(x_key=args.x_key, label=key)
    else:
        if args.label_column is not None or args.ignore_column:
            raise CLIError(
                "--label-column and --ignore-column do not apply to svmlight files: the label "
                "is the first field of each line",
                EXIT_USAGE,
            )
        X, y = _svmlight_read(path, None)
    return X, y, info


def _load_for_model(args, est, train: dict, want_labels: bool, true_spec: str | None):
    """``X`` laid out as the model's training data, plus the PU labels (if ``want_labels``) and
    the true labels (if ``true_spec``) of the file ``args.data``, for predict and evaluate."""
    path = args.data
    _existing(path)
    fmt = _detect_format(path, args.format)
    n_features = int(est.n_features_in_)
    label_spec = getattr(args, "label_column", None)
    y = y_true = None
    if fmt == "csv":
        layout = _csv_layout(path, args.delimiter, args.header)
        names, n_cols = layout["names"], layout["n_columns"]
        same_layout = train.get("format") == "csv" and n_cols == train.get("n_columns")
        tnames = train.get("names") if train.get("format") == "csv" else None
        if names and tnames and all(tnames[j] in names for j in train["features"]):
            features = [names.index(tnames[j]) for j in train["features"]]
        elif same_layout:
            features = list(train["features"])
        elif n_cols == n_features and not want_labels and true_spec is None:
            features = list(range(n_cols))
        else:
            raise CLIError(
                f"{path!r} has {n_cols} columns; the model needs its {n_features} feature "
                "columns laid out as in the training file"
                + (" (or only the features)" if not want_labels and true_spec is None else "")
            )
        labels = []
        if want_labels:
            if label_spec is None and train.get("format") == "csv":
                if names and tnames:
                    label_spec = tnames[train["label"]]
                elif same_layout:
                    label_spec = str(train["label"])
            lab = _column(label_spec or "-1", layout, path, "--label-column")
            labels.append(lab)
        tcol = None
        if true_spec is not None:
            tcol = _find_column(true_spec, layout)
            if tcol is None and not Path(true_spec).is_file():
                _column(true_spec, layout, path, "--true-labels")  # raises, naming the problem
            if tcol is not None:
                labels.append(tcol)
        used = set(features) & set(labels)
        if used:
            raise CLIError(
                f"column {sorted(used)[0]} of {path!r} is a feature of the model; it cannot also "
                "be a label column"
            )
        X, ys = _csv_read(path, layout, features, labels)
        if want_labels:
            y = ys[0]
        if tcol is not None:
            y_true = ys[-1]
    elif fmt == "npz":
        x_key = args.x_key if args.x_key != "X" else train.get("x_key", "X")
        keys = []
        if want_labels:
            keys.append(label_spec or (train["label"] if train.get("format") == "npz" else "y"))
        true_in_file = False
        if true_spec is not None:
            try:
                with np.load(path, allow_pickle=False) as data:
                    true_in_file = true_spec in data.files
            except Exception:
                true_in_file = False
            if true_in_file:
                keys.append(true_spec)
        X, ys = _npz_read(path, x_key, keys)
        if want_labels:
            y = ys[0]
        if true_in_file:
            y_true = ys[-1]
    else:
        if label_spec is not None:
            raise CLIError(
                "--label-column does not apply to svmlight files: the label is the first field "
                "of each line",
                EXIT_USAGE,
            )
        X, y_file = _svmlight_read(path, n_features)
        y = y_file if want_labels else None
    if true_spec is not None and y_true is None:
        if not Path(true_spec).is_file():
            where = {
                "npz": f"neither an array of {path!r} nor a file of labels",
                "csv": f"neither a column of {path!r} nor a file of labels",
                "svmlight": f"not a file of labels ({path!r} holds only the PU labels)",
            }[fmt]
            raise CLIError(f"--true-labels {true_spec!r} is {where}")
        y_true = _label_file(true_spec, X.shape[0])
    return X, y, y_true


def _matches(y: np.ndarray, value: str, option: str, what: str) -> np.ndarray:
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


def _pu_mask(y, value: str, what: str) -> np.ndarray:
    mask = _matches(y, value, "--positive-value", what)
    found = np.unique(y)[:10].tolist()
    if not mask.any():
        raise CLIError(
            f"no labeled positive in {what}: no label equals --positive-value {value!r} "
            f"(values found: {found}); choose the label that marks labeled positives"
        )
    return mask


# ---------------------------------------------------------------------- fit
def _prior_arg(text: str):
    if text.strip().lower() == "auto":
        return "auto"
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"must be a number in (0, 1) or 'auto', got {text!r}"
        ) from None
    if not 0.0 < v < 1.0:
        raise argparse.ArgumentTypeError(f"must be in (0, 1) (exclusive) or 'auto', got {text}")
    return v


def _positive_float(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number, got {text!r}") from None
    if not (np.isfinite(v) and v > 0):
        raise argparse.ArgumentTypeError(f"must be > 0, got {text}")
    return v


def _gamma_arg(text: str):
    if text in ("scale", "auto"):
        return text
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"must be 'scale', 'auto' or a number >= 0, got {text!r}"
        ) from None
    if not (np.isfinite(v) and v >= 0):
        raise argparse.ArgumentTypeError(f"must be >= 0, got {text}")
    return v


def _estimator_params(args) -> dict:
    return {
        "prior": args.prior,
        "lam": args.lam,
        "kernel": args.kernel,
        "gamma": args.gamma,
        "degree": args.degree,
        "coef0": args.coef0,
        "tol": args.tol,
        "cache_size": args.cache_size,
        "max_iter": args.max_iter,
        "random_state": args.random_state,
        "n_jobs": args.n_jobs,
    }


def _search(estimator, X, s, args, progress):
    from ..model_selection import PUGridSearchCV

    grid = {}
    if args.grid_lam:
        grid["lam"] = args.grid_lam
    if args.grid_gamma:
        grid["gamma"] = args.grid_gamma
    search = PUGridSearchCV(
        estimator,
        grid or None,
        cv=args.cv,
        random_state=args.random_state,
    )
    with progress.step(f"searching parameters ({args.cv}-fold cross-validation)"):
        search.fit(X, s)
    return search


def _cmd_fit(args) -> int:
    from .. import PUSVC
    from .._model_io import check_writable, class_path, save_model

    progress = _Progress(args.quiet)
    check_writable(args.output)  # before any long work
    with progress.step(f"reading {args.data}"):
        X, y, info = _load_training(args)
    mask = _pu_mask(y, args.positive_value, repr(args.data))
    if mask.all():
        raise CLIError(
            f"no unlabeled point in {args.data!r}: every label equals --positive-value "
            f"{args.positive_value!r}; PU learning needs unlabeled points"
        )
    s = mask.astype(np.int64)
    n, p = s.size, int(s.sum())
    progress.note(
        f"{args.data}: {n} points, {X.shape[1]} features, {p} labeled positive, {n - p} unlabeled"
    )
    estimator = PUSVC(**_estimator_params(args))
    search_record = None
    if args.search:
        search = _search(estimator, X, s, args, progress)
        estimator = search.best_estimator_
        best = {k: _plain(v) for k, v in search.best_params_.items()}
        search_record = {"best_params": best, "best_score": _plain(search.best_score_)}
        score = f"{search.best_score_:.6g}"
        print(f"best parameters: {json.dumps(best)}  (cross-validated score {score})")
    else:
        with progress.step(f"fitting PUSVC (kernel={args.kernel}, {n} points)"):
            estimator.fit(X, s)
    info.update(n_samples=n, n_features=int(X.shape[1]), n_labeled=p)
    meta = {
        "params": {k: _plain(v) for k, v in estimator.get_params().items()},
        "prior_": float(estimator.prior_),
        "data": {**info, "positive_value": args.positive_value},
        "search": search_record,
    }
    save_model(estimator, args.output, meta)
    print(
        f"{class_path(estimator).rsplit('.', 1)[-1]}(kernel={estimator.kernel!r}, "
        f"lam={estimator.lam:g}, prior={estimator.prior_:.4g}) fitted on {n} points "
        f"({p} labeled positive): objective {estimator.objective_:.6g}, "
        f"{estimator.n_iter_} iterations, {len(estimator.support_)} support vectors; "
        f"saved to {args.output}"
    )
    return 0


def _plain(v):
    return v.item() if isinstance(v, np.generic) else v


# ---------------------------------------------------------------------- predict / evaluate
def _load(args, progress):
    from .._model_io import load_model

    with progress.step(f"loading {args.model}"):
        return load_model(args.model)


def _cmd_predict(args) -> int:
    from .._model_io import check_writable, write_atomic

    progress = _Progress(args.quiet)
    if args.output is not None:
        check_writable(args.output)
    est, meta = _load(args, progress)
    with progress.step(f"reading {args.data}"):
        X, _, _ = _load_for_model(args, est, meta.get("data", {}), False, None)
    with progress.step(f"predicting {X.shape[0]} points"):
        f = est.decision_function(X)
    pred = (f > 0).astype(int)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["prediction", "decision"] if args.decision else ["prediction"])
    if args.decision:
        writer.writerows(zip(pred.tolist(), (repr(float(v)) for v in f), strict=True))
    else:
        writer.writerows([v] for v in pred.tolist())
    if args.output is None:
        sys.stdout.write(out.getvalue())
    else:
        write_atomic(args.output, out.getvalue())
        n_pos = int(pred.sum())
        progress.note(f"wrote {pred.size} predictions ({n_pos} positive) to {args.output}")
    return 0


def _pu_risk(f: np.ndarray, labeled: np.ndarray, prior: float) -> float:
    """The unbiased PU zero-one risk ``pi P_P(f <= 0) + P_U(f > 0) - pi P_P(f > 0)``
    (:func:`unlabeled.model_selection.pu_risk`), or NaN when the file lacks P or U."""
    from ..model_selection import pu_risk

    if labeled.all() or not labeled.any():
        return float("nan")
    return float(pu_risk(labeled, f, prior))


def _cmd_evaluate(args) -> int:
    from sklearn.metrics import f1_score, precision_score, recall_score, roc_auc_score

    progress = _Progress(args.quiet)
    est, meta = _load(args, progress)
    train = meta.get("data", {})
    with progress.step(f"reading {args.data}"):
        X, y, y_true = _load_for_model(args, est, train, True, args.true_labels)
    positive_value = args.positive_value or str(train.get("positive_value", "1"))
    labeled = _pu_mask(y, positive_value, repr(args.data))
    with progress.step(f"predicting {X.shape[0]} points"):
        f = est.decision_function(X)
    prior = float(est.prior_)
    result = {
        "model": str(args.model),
        "data": str(args.data),
        "n_samples": int(f.size),
        "n_labeled": int(labeled.sum()),
        "n_unlabeled": int((~labeled).sum()),
        "prior": prior,
        "pu_risk": _pu_risk(f, labeled, prior),
    }
    if y_true is not None:
        truth = _matches(
            y_true, args.true_positive_value, "--true-positive-value", "the true labels"
        )
        rows = ~labeled if args.unlabeled_only else np.ones(f.size, dtype=bool)
        t, pred, score = truth[rows], (f[rows] > 0).astype(int), f[rows]
        result.update(
            subset="unlabeled" if args.unlabeled_only else "all",
            n_evaluated=int(rows.sum()),
            n_true_positive=int(t.sum()),
            f1=float(f1_score(t, pred, zero_division=0)),
            precision=float(precision_score(t, pred, zero_division=0)),
            recall=float(recall_score(t, pred, zero_division=0)),
            roc_auc=float(roc_auc_score(t, score)) if 0 < t.sum() < t.size else float("nan"),
        )
    if args.json:
        print(json.dumps({k: (None if _isnan(v) else v) for k, v in result.items()}, indent=2))
    else:
        print(_table(result))
    return 0


def _isnan(v) -> bool:
    return isinstance(v, float) and np.isnan(v)


def _table(r: dict) -> str:
    def num(v):
        return "n/a" if _isnan(v) else f"{v:.4f}"

    lines = [
        f"{'model':<12} {r['model']}",
        f"{'data':<12} {r['data']}: {r['n_samples']} points, {r['n_labeled']} labeled positive, "
        f"{r['n_unlabeled']} unlabeled",
        f"{'prior':<12} {r['prior']:.4f}",
        f"{'PU risk':<12} {num(r['pu_risk'])}   (unbiased zero-one risk from the PU labels)",
    ]
    if "f1" in r:
        lines.append(
            f"true labels on {r['subset']} points ({r['n_evaluated']}, "
            f"{r['n_true_positive']} positive):"
        )
        for key, name in (
            ("f1", "F1"),
            ("precision", "precision"),
            ("recall", "recall"),
            ("roc_auc", "ROC AUC"),
        ):
            lines.append(f"{name:<12} {num(r[key])}")
    return "\n".join(lines)


# ---------------------------------------------------------------------- demo
def _demo(args: argparse.Namespace) -> int:
    from sklearn.datasets import load_breast_cancer
    from sklearn.metrics import f1_score
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC

    from .. import PUSVC

    X, y = load_breast_cancer(return_X_y=True)
    # the paper's convention: the positive class is the one we label; here "benign" (1)
    X = StandardScaler().fit_transform(X)
    rng = np.random.default_rng(args.seed)
    positives = np.flatnonzero(y == 1)
    labeled = rng.choice(
        positives, size=int(round(args.labeled_fraction * positives.size)), replace=False
    )
    s = np.zeros(y.size, dtype=int)
    s[labeled] = 1
    unl = s == 0
    prior = float(y[unl].mean())  # the true proportion of positives among the unlabeled
    lam = args.lam
    print(
        f"breast cancer: {X.shape[0]} points, {X.shape[1]} features; "
        f"{s.sum()} labeled positives ({args.labeled_fraction:.0%} of the positives), "
        f"{unl.sum()} unlabeled, prior among the unlabeled {prior:.3f}; lam = {lam}"
    )

    rows = []
    for kernel in ("rbf", "linear"):
        clf = PUSVC(prior=prior, lam=lam, kernel=kernel, random_state=args.seed)
        t0 = time.perf_counter()
        clf.fit(X, s)
        t = time.perf_counter() - t0
        f1 = f1_score(y[unl], clf.predict(X[unl]))
        rows.append((f"PUSVC ({kernel})", f1, clf.objective_, t))

        # the naive approach: every unlabeled point is a negative, C matched to c2
        c2 = 1.0 / (2 * lam * unl.sum())
        svc = SVC(kernel=kernel, C=c2, gamma="scale")
        t0 = time.perf_counter()
        svc.fit(X, s)
        t = time.perf_counter() - t0
        f1 = f1_score(y[unl], svc.predict(X[unl]))
        rows.append((f"SVC, unlabeled as negative ({kernel})", f1, float("nan"), t))

    print(f"\n{'method':<40} {'F1 (unlabeled)':>14} {'objective J':>12} {'fit time':>9}")
    for name, f1, obj, t in rows:
        o = "-" if np.isnan(obj) else f"{obj:.5f}"
        print(f"{name:<40} {f1:>14.3f} {o:>12} {t:>8.3f}s")
    return 0


# ---------------------------------------------------------------------- the parser
_MAIN_EPILOG = """\
data files (DATA):
  CSV       numeric features, one label column (default: the last; --label-column NAME or
            INDEX), a header line is detected when no field of the first line is a number
  svmlight  LIBSVM/svmlight "label index:value ..." lines (also .gz/.bz2); the label is the
            first field of each line
  npz       numpy.savez archive with the features under X and the labels under y
            (--x-key, --label-column KEY)
  The format follows the suffix (.csv; .svm .svmlight .libsvm .txt; .npz) or --format.

PU labels: rows whose label equals --positive-value (default 1) are the labeled positives;
every other row (0, -1, anything else) is unlabeled.

examples:
  unlabeled demo
  unlabeled fit train.csv --label-column s --prior 0.4 --lam 0.01 -o model.skops
  unlabeled fit train.svm --prior auto --search --grid-lam 0.001 0.01 0.1 -o model.skops
  unlabeled predict model.skops test.csv -o predictions.csv --decision
  unlabeled evaluate model.skops test.csv --true-labels y

Errors are one line on stderr with a non-zero exit status (2: bad command line, 1: bad input);
UNLABELED_DEBUG=1 (or --debug) shows the traceback.
"""

_FIT_EPILOG = """\
The model file is a skops archive (safe to load: no pickle) that also records the version of
unlabeled that wrote it, the estimator class and how the data were read; predict and evaluate
refuse files from another version. The file is written only when the fit succeeds.

examples:
  unlabeled fit data.csv --label-column s --positive-value 1 --prior 0.3 -o model.skops
  unlabeled fit data.csv --label-column 0 --ignore-column id --kernel linear --prior 0.3 \\
      -o model.skops
  unlabeled fit a9a.svm --prior 0.25 --kernel rbf --gamma 0.05 --lam 0.001 -o model.skops
  unlabeled fit data.npz --label-column s --prior auto -o model.skops
  unlabeled fit data.csv --prior 0.3 --search --grid-lam 0.001 0.01 0.1 --grid-gamma 0.1 1 \\
      -o model.skops
"""

_PREDICT_EPILOG = """\
DATA is read like the training file: a CSV with the training file's columns (matched by name
when both have a header line, the label column is then ignored) or with the feature columns
only; an svmlight file (its labels are ignored); an npz archive with the features under the
training --x-key.

output: a CSV with a header line and one row per data row: "prediction" (1 = positive,
0 = negative) and, with --decision, "decision" (f(x); positive means positive).

examples:
  unlabeled predict model.skops test.csv
  unlabeled predict model.skops test.svm --decision -o predictions.csv
"""

_EVALUATE_EPILOG = """\
Always reports the unbiased PU zero-one risk from the PU labels of DATA (the label column or
key of the training file unless --label-column is given) and the model's prior pi:

  R = pi * P_P(f(x) <= 0) + P_U(f(x) > 0) - pi * P_P(f(x) > 0)

over the labeled positives P and the unlabeled points U. With --true-labels (a CSV column, an
npz key, or a text file with one label per line; needed for svmlight data) also F1, precision
and recall of the predictions and ROC AUC of the decision values, with the positive class
given by --true-positive-value; --unlabeled-only restricts them to the unlabeled rows.

examples:
  unlabeled evaluate model.skops test.csv
  unlabeled evaluate model.skops train.csv --true-labels y --unlabeled-only
  unlabeled evaluate model.skops test.svm --true-labels test_truth.txt --json
"""


def _add_common(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="print only results and errors (no progress, no notes)",
    )
    p.add_argument(
        "--debug",
        action="store_true",
        help="show the full traceback on errors (also: UNLABELED_DEBUG=1)",
    )


def _add_data_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("data file")
    g.add_argument(
        "--format",
        choices=("auto", *FORMATS),
        default="auto",
        help="format of DATA; auto (default) follows the suffix",
    )
    g.add_argument("--delimiter", default=",", help="CSV field separator (default ',')")
    g.add_argument(
        "--header",
        choices=("auto", "yes", "no"),
        default="auto",
        help="whether the CSV's first line holds column names; auto (default): when none of "
        "its fields is a number",
    )
    g.add_argument("--x-key", default="X", help="npz: name of the feature array (default X)")


def _add_label_options(p: argparse.ArgumentParser, fit: bool):
    g = p.add_argument_group("PU labels")
    default = (
        "default: the last column for CSV, y for npz" if fit else "default: as in the training file"
    )
    g.add_argument(
        "--label-column",
        metavar="NAME_OR_INDEX",
        help=f"CSV: the label column, by name or 0-based index (negative counts from the end); "
        f"npz: the label array's key; not for svmlight, whose label is on each line ({default})",
    )
    g.add_argument(
        "--positive-value",
        metavar="V",
        default="1" if fit else None,
        help="the label value that marks a labeled positive; all other values are unlabeled "
        + ("(default 1)" if fit else "(default: as in training)"),
    )
    return g


def build_parser() -> argparse.ArgumentParser:
    from .. import __version__

    parser = _Parser(
        prog="unlabeled",
        description="Learning from unlabeled and weakly labeled data with exact kernel solvers: "
        "fit a positive-unlabeled classifier (PUSVC) on a data file, save it, predict with it "
        "and evaluate it.",
        epilog=_MAIN_EPILOG,
        formatter_class=_Formatter,
    )
    parser.add_argument("--version", action="version", version=f"unlabeled {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    # ---- demo (unchanged)
    demo = sub.add_parser(
        "demo",
        help="fit PUSVC on scikit-learn's breast cancer data and compare with a naive SVC",
        description="Fit PUSVC on scikit-learn's bundled breast cancer data with a fraction of "
        "the positives labeled, and report F1 on the unlabeled part, the objective and the fit "
        "time, next to sklearn.svm.SVC trained with every unlabeled point as negative. "
        "Needs no network.",
    )
    demo.add_argument(
        "--labeled-fraction",
        type=float,
        default=0.2,
        help="fraction of the positives that are labeled (default 0.2)",
    )
    demo.add_argument(
        "--lam", type=float, default=0.01, help="regularisation lambda (default 0.01)"
    )
    demo.add_argument("--seed", type=int, default=0, help="random seed of the labeling (default 0)")
    demo.set_defaults(func=_demo)

    # ---- fit
    fit = sub.add_parser(
        "fit",
        help="fit PUSVC on a CSV, svmlight or npz file and save the model",
        description="Fit a PUSVC (the convex double-hinge PU classifier, solved exactly) on "
        "DATA, whose labels mark the labeled positives; everything else is unlabeled. Save the "
        "fitted model to MODEL.",
        epilog=_FIT_EPILOG,
        formatter_class=_Formatter,
    )
    fit.add_argument("data", metavar="DATA", help="training data file (CSV, svmlight or npz)")
    fit.add_argument(
        "-o", "--output", metavar="MODEL", required=True, help="model file to write (.skops)"
    )
    _add_data_options(fit)
    labels = _add_label_options(fit, fit=True)
    labels.add_argument(
        "--ignore-column",
        metavar="NAME_OR_INDEX",
        action="append",
        help="CSV: a column that is neither feature nor PU label (an id, the true class, ...); "
        "repeatable",
    )
    m = fit.add_argument_group("model")
    m.add_argument(
        "--prior",
        type=_prior_arg,
        required=True,
        metavar="FLOAT|auto",
        help="class prior pi, the share of positives among the unlabeled points, in (0, 1); "
        "'auto' estimates it from the data",
    )
    m.add_argument(
        "--lam", type=_positive_float, default=0.01, help="regularisation lambda > 0 (default 0.01)"
    )
    m.add_argument(
        "--kernel",
        choices=("rbf", "linear", "poly"),
        default="rbf",
        help="kernel (default rbf)",
    )
    m.add_argument(
        "--gamma",
        type=_gamma_arg,
        default="scale",
        help="kernel width: 'scale' (default), 'auto' or a number >= 0, as in sklearn's SVC",
    )
    m.add_argument("--degree", type=int, default=3, help="poly kernel degree (default 3)")
    m.add_argument("--coef0", type=float, default=0.0, help="poly kernel offset (default 0)")
    m.add_argument(
        "--tol", type=_positive_float, default=1e-3, help="solver tolerance (default 1e-3)"
    )
    m.add_argument(
        "--cache-size",
        type=_positive_float,
        default=200,
        metavar="MB",
        help="kernel cache budget in MB (default 200)",
    )
    m.add_argument("--max-iter", type=int, default=None, help="cap on solver iterations")
    m.add_argument(
        "--n-jobs",
        type=int,
        default=None,
        help="threads for kernel rows (-1: all cores; default: the idle cores)",
    )
    m.add_argument(
        "--random-state", type=int, default=None, help="seed (the optimum does not depend on it)"
    )
    srch = fit.add_argument_group("parameter search")
    srch.add_argument(
        "--search",
        action="store_true",
        help="choose the parameters by PU cross-validation (unlabeled.model_selection."
        "PUGridSearchCV) and save the best estimator; the other options give the fixed ones",
    )
    srch.add_argument(
        "--grid-lam",
        type=_positive_float,
        nargs="+",
        metavar="LAM",
        help="lambda values to search (default: the search's own grid)",
    )
    srch.add_argument(
        "--grid-gamma",
        type=_gamma_arg,
        nargs="+",
        metavar="GAMMA",
        help="gamma values to search (default: the search's own grid)",
    )
    srch.add_argument("--cv", type=int, default=5, help="cross-validation folds (default 5)")
    _add_common(fit)
    fit.set_defaults(func=_cmd_fit)

    # ---- predict
    pred = sub.add_parser(
        "predict",
        help="predict with a saved model",
        description="Predict the class (1 positive, 0 negative) of every row of DATA with the "
        "model in MODEL.",
        epilog=_PREDICT_EPILOG,
        formatter_class=_Formatter,
    )
    pred.add_argument("model", metavar="MODEL", help="model file written by 'unlabeled fit'")
    pred.add_argument("data", metavar="DATA", help="data file (CSV, svmlight or npz)")
    pred.add_argument(
        "-o", "--output", metavar="OUT.csv", help="write the predictions here (default: stdout)"
    )
    pred.add_argument(
        "--decision", action="store_true", help="add the decision values f(x) as a column"
    )
    _add_data_options(pred)
    _add_common(pred)
    pred.set_defaults(func=_cmd_predict)

    # ---- evaluate
    ev = sub.add_parser(
        "evaluate",
        help="PU risk of a saved model, and F1/precision/recall/AUC given true labels",
        description="Evaluate the model in MODEL on DATA: the PU risk from DATA's PU labels, "
        "and with --true-labels the usual classification metrics.",
        epilog=_EVALUATE_EPILOG,
        formatter_class=_Formatter,
    )
    ev.add_argument("model", metavar="MODEL", help="model file written by 'unlabeled fit'")
    ev.add_argument("data", metavar="DATA", help="data file (CSV, svmlight or npz) with PU labels")
    _add_data_options(ev)
    _add_label_options(ev, fit=False)
    t = ev.add_argument_group("true labels")
    t.add_argument(
        "--true-labels",
        metavar="COLUMN|KEY|FILE",
        help="the true classes: a CSV column (name or index), an npz key, or a text file with "
        "one label per line",
    )
    t.add_argument(
        "--true-positive-value",
        metavar="V",
        default="1",
        help="the true label of the positive class (default 1)",
    )
    t.add_argument(
        "--unlabeled-only",
        action="store_true",
        help="compute F1, precision, recall and AUC on the unlabeled rows only",
    )
    ev.add_argument("--json", action="store_true", help="print the results as JSON")
    _add_common(ev)
    ev.set_defaults(func=_cmd_evaluate)
    return parser


def _one_line(text, limit: int = 400) -> str:
    """A message on one line, cut to ``limit`` characters (some parsers quote whole lines)."""
    line = " ".join(str(text).split())
    return line if len(line) <= limit else line[: limit - 3] + "..."


def main(argv: list[str] | None = None) -> int:
    """Run the command line ``argv`` (default ``sys.argv[1:]``); return the exit status."""
    debug = os.environ.get("UNLABELED_DEBUG", "") not in ("", "0")
    try:
        parser = build_parser()
        try:
            args = parser.parse_args(argv)
        except SystemExit as exc:  # --help, --version
            return int(exc.code or 0)
        debug = debug or getattr(args, "debug", False)
        if args.command == "demo" and not 0 < args.labeled_fraction <= 1:
            parser.error("--labeled-fraction must be in (0, 1]")
        if args.command == "demo" and not args.lam > 0:
            parser.error("--lam must be > 0")
        with warnings.catch_warnings():
            # warnings (e.g. a fit that did not converge) as one line each, not a source dump
            warnings.showwarning = lambda message, category, *a, **k: print(
                f"unlabeled: warning: {_one_line(message)}", file=sys.stderr
            )
            return args.func(args)
    except CLIError as exc:
        if debug:
            raise
        print(f"unlabeled: error: {_one_line(exc)}", file=sys.stderr)
        return exc.code
    except KeyboardInterrupt:
        if debug:
            raise
        print("unlabeled: error: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # e.g. `unlabeled predict ... | head`
        return EXIT_FAILURE
    except Exception as exc:
        if debug:
            raise
        plain = isinstance(exc, (ValueError, TypeError, OSError))
        what = "" if plain else f"{type(exc).__name__}: "
        print(f"unlabeled: error: {what}{_one_line(exc)}", file=sys.stderr)
        return EXIT_FAILURE


if __name__ == "__main__":
    sys.exit(main())
