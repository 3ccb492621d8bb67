"""The commands ``fit``, ``predict``, ``evaluate`` and ``sample``, one code path each for every
family of estimators (``_estimators``): what differs between families (how the rows are read,
fit's arguments, what predict writes and evaluate reports) is the family's object
(``_families``). Model files via ``unlabeled.model_io``.
"""

from __future__ import annotations

import csv
import importlib.util
import io
import json
import sys
import warnings
from collections.abc import Callable

import numpy as np

from .._budget import check_dense_budget
from .._config import dense_budget
from ..exceptions import InvalidParameterError
from ._common import EXIT_USAGE, CLIError, Progress
from ._estimators import ESTIMATORS, estimator_class, family_of_class
from ._families import Commands, Request, is_nan, of
from ._io import (
    Columns,
    DataFile,
    TrainingRecord,
    load_for_model,
    load_training,
    model_feature_names,
    unlabeled_rows,
)
from ._options import given_params, option_name

__all__ = ["cmd_evaluate", "cmd_fit", "cmd_predict", "cmd_sample"]


def _names(test: Callable[[Commands], bool], classes: bool = False) -> str:
    """The estimators (with ``classes``, their classes) whose family passes ``test``."""
    families = {e.family: of(e.family) for e in ESTIMATORS.values()}
    passes = {k: f is not None and test(f) for k, f in families.items()}
    return ", ".join(
        e.name if classes else name for name, e in ESTIMATORS.items() if passes[e.family]
    )


def _data_file(args) -> DataFile:
    return DataFile(args.data, args.format, args.delimiter, args.header, args.x_key)


# ---------------------------------------------------------------------- fit
def _check_family_options(args, family: Commands) -> None:
    """Options that the family's data layout does not use are refused, not ignored."""
    name = args.estimator
    if args.options_for != name:  # the parser generated another estimator's options
        raise CLIError(f"give --estimator {name} as '--estimator {name}'", EXIT_USAGE)
    if not family.bags and args.bag_column is not None:
        multi = _names(lambda f: f.bags)
        raise CLIError(f"--bag-column is for multi-instance estimators ({multi})", EXIT_USAGE)
    if family.bags and args.bag_column is None:
        raise CLIError(f"--estimator {name} needs --bag-column (each row's bag id)", EXIT_USAGE)
    if not family.privileged and args.privileged_columns is not None:
        svmplus = _names(lambda f: f.privileged)
        raise CLIError(f"--privileged-columns is for --estimator {svmplus}", EXIT_USAGE)
    if not family.labels and args.label_column is not None:
        raise CLIError(
            f"--estimator {name} reads no label column: leave a column out with --ignore-column",
            EXIT_USAGE,
        )
    if not family.positive_labels:
        for option, given in (("--positive-value", args.positive_value), ("--search", args.search)):
            if given:
                pusvc = _names(lambda f: f.positive_labels)
                raise CLIError(f"{option} is for --estimator {pusvc}", EXIT_USAGE)


def _option_error(exc: Exception, params) -> CLIError:
    """A parameter error raised by ``fit`` (a check across parameters, a tuple's values), as
    a usage error naming the option."""
    message = str(exc)
    for name in params:
        if message.startswith(name + " "):
            return CLIError(f"argument {option_name(name)}: {message}", EXIT_USAGE)
    return CLIError(message, EXIT_USAGE)


def _search(estimator, training, args, progress) -> tuple:
    """``--search``: the best estimator of PU cross-validation on the training arrays, and
    the record of the search."""
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
        random_state=given_params(args).get("random_state"),
    )
    with progress.step(f"searching parameters ({args.cv}-fold cross-validation)"):
        search.fit(*training.args, **training.kwargs)
    best = {k: _plain(v) for k, v in search.best_params_.items()}
    score = f"{search.best_score_:.6g}"
    print(f"best parameters: {json.dumps(best)}  (cross-validated score {score})")
    record = {"best_params": best, "best_score": _plain(search.best_score_)}
    return search.best_estimator_, record


def _check_output(path, *inputs) -> None:
    """Refuse an output path before any work: a directory, a symbolic link, a device or one of
    the inputs exits with status 2 (a usage error), a folder that does not exist or is not
    writable with status 1."""
    from ..model_io import OutputPathError, check_writable

    try:
        check_writable(path, inputs)
    except OutputPathError as exc:
        raise CLIError(str(exc), EXIT_USAGE) from None


def cmd_fit(args) -> int:
    """Read the training file in the family's layout, fit (or search), save the model."""
    from ..model_io import save_model

    entry = ESTIMATORS[args.estimator]
    family = of(entry.family)
    assert family is not None  # register() checks the family
    _check_family_options(args, family)
    progress = Progress(args.quiet)
    _check_output(args.output, args.data)  # before any long work
    for module in entry.needs:
        if importlib.util.find_spec(module) is None:
            needs = _INSTALL.get(module, f"{module}, which is not installed")
            raise CLIError(f"--estimator {args.estimator} needs {needs}")
    columns = Columns(
        args.label_column, tuple(args.ignore_column or ()), args.bag_column, args.privileged_columns
    )
    with progress.step(f"reading {args.data}"):
        X, y, extra, record = load_training(
            _data_file(args), columns, labels=family.labels, bags=family.bags
        )
    training = family.training(X, y, extra, args.data, args.positive_value)
    progress.note(f"{args.data}: {training.described}")
    params = given_params(args)
    estimator = estimator_class(args.estimator)(**params)
    search = None
    if args.search:
        estimator, search = _search(estimator, training, args, progress)
    else:
        with progress.step(family.fit_step(estimator, X.shape[0])):
            try:
                estimator.fit(*training.args, **training.kwargs)
            except InvalidParameterError as exc:
                raise _option_error(exc, params) from exc
    record = record._replace(
        n_samples=int(X.shape[0]), n_features=int(X.shape[1]), **training.record
    )
    _record_feature_names(estimator, record)
    meta = {
        "params": {k: _plain(v) for k, v in estimator.get_params().items()},
        **family.model_record(estimator, args.estimator, record.as_dict(), search),
    }
    save_model(estimator, args.output, meta)
    print(family.fitted(estimator, params, training, args.output))
    return 0


#: what to install for a module that an estimator needs (its declaration's ``needs``)
_INSTALL = {"torch": "PyTorch, which is not installed: pip install 'torch>=2.2,<=2.13.0'"}


def _record_feature_names(estimator, record: TrainingRecord) -> None:
    """The header names of the training file's feature columns as the model's
    ``feature_names_in_`` (scikit-learn's attribute): predict and evaluate match a file's
    columns to them by name."""
    names = record.feature_names()
    if names:
        estimator.feature_names_in_ = np.asarray(names, object)


def _plain(v):
    return v.item() if isinstance(v, np.generic) else v


# ---------------------------------------------------------------------- predict / evaluate
def _load(args, progress):
    from ..model_io import load_model

    with progress.step(f"loading {args.model}"):
        model = load_model(args.model)
    # the command matches the columns itself (by name, or by count for a file without names)
    # and hands the estimator plain arrays: scikit-learn's warning that they have no names
    # would only be noise (main restores the filters)
    warnings.filterwarnings("ignore", "X does not have valid feature names", UserWarning)
    return model


def _family(est, meta: dict) -> Commands:
    """The family of a loaded model: its class's, or for a class the command does not fit
    its file's record (when it names one). The class comes first: the record is read from the
    file, so untrusted, and a record edited to another family would read the model's rows in
    a layout its methods do not take."""
    recorded = meta.get("family")
    key = recorded if isinstance(recorded, str) else None
    family = of(family_of_class(type(est).__name__) or key or "")
    if family is None:  # a model saved from Python, of a class the command does not fit
        raise CLIError(f"the command cannot use a {type(est).__name__} model")
    return family


def _check_unlabeled_only(family: Commands, command: str, unlabeled_only: bool) -> None:
    if unlabeled_only and command not in family.unlabeled_only:
        raise CLIError("--unlabeled-only is for semi-supervised models", EXIT_USAGE)


def _csv_text(header: list[str], columns: list) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(zip(*columns, strict=True))
    return out.getvalue()


def _write(text: str, output, progress: Progress, what: str) -> None:
    """``text`` to standard output, or atomically to ``output`` with a note of ``what``."""
    from ..model_io import write_atomic

    if output is None:
        sys.stdout.write(text)
    else:
        write_atomic(output, text)
        progress.note(f"wrote {what} to {output}")


def cmd_predict(args) -> int:
    """One row per data row (per bag), with what the family's models predict."""
    progress = Progress(args.quiet)
    if args.output is not None:
        _check_output(args.output, args.model, args.data)
    est, meta = _load(args, progress)
    family = _family(est, meta)
    _check_unlabeled_only(family, "predict", args.unlabeled_only)
    family.check_predict(est, args.decision, args.proba)
    with progress.step(f"reading {args.data}"):
        rows = load_for_model(
            _data_file(args),
            est,
            meta.get("data", {}),
            str(args.model),
            Columns(label=args.label_column, bag=args.bag_column),
            want_labels=args.unlabeled_only,
            true_spec=None,
            bags=family.bags,
        )
    with progress.step(f"predicting {rows.X.shape[0]} points"):
        header, columns = family.predict_columns(est, family.by(rows), args.decision, args.proba)
    if args.unlabeled_only:
        kept = np.flatnonzero(unlabeled_rows(rows.y))
        header = ["row", *header]
        columns = [kept.tolist(), *([c[i] for i in kept] for c in columns)]
    _write(_csv_text(header, columns), args.output, progress, family.wrote(columns))
    return 0


def cmd_evaluate(args) -> int:
    """The measures of the model's family on a data file, as a table or JSON."""
    progress = Progress(args.quiet)
    est, meta = _load(args, progress)
    family = _family(est, meta)
    _check_unlabeled_only(family, "evaluate", args.unlabeled_only)
    if args.positive_value is not None and not family.positive_labels:
        pusvc = _names(lambda f: f.positive_labels, classes=True)
        raise CLIError(f"--positive-value is for {pusvc} models", EXIT_USAGE)
    family.check_evaluate(est, args.true_labels)
    if not family.labels and args.label_column is not None:
        raise CLIError("this model reads no label column: give --true-labels", EXIT_USAGE)
    train = meta.get("data", {})
    with progress.step(f"reading {args.data}"):
        rows = load_for_model(
            _data_file(args),
            est,
            train,
            str(args.model),
            Columns(label=args.label_column, bag=args.bag_column),
            want_labels=family.labels,
            true_spec=args.true_labels,
            bags=family.bags,
        )
    request = Request(
        str(args.data),
        args.unlabeled_only,
        args.positive_value,
        args.true_positive_value,
        rows.train,
    )
    result = {"model": str(args.model), "data": str(args.data), "n_samples": rows.X.shape[0]}
    result.update(family.evaluate(est, rows, request, progress))
    if args.json:
        print(json.dumps({k: (None if is_nan(v) else v) for k, v in result.items()}, indent=2))
    else:
        print(family.report(result))
    return 0


#: the bytes that ``sample`` holds per value: the float64 point, and its CSV text (at most 25
#: characters, as "-1.2345678901234567e-100,") twice, as text and as the bytes written
SAMPLE_BYTES_PER_VALUE = 8 + 2 * 25


def _check_sample_size(n: int, n_features: int) -> None:
    """Refuse ``-n`` whose points and CSV text would not fit in the memory budget, before any
    is drawn (``sample -n 2147483647`` asked for 32 GiB of points and more of text)."""
    per_point = n_features * SAMPLE_BYTES_PER_VALUE
    most = int(dense_budget() // per_point)
    check_dense_budget(
        float(n) * per_point,
        f"sample -n {n} draws {n} points of {n_features} features and writes them as CSV",
        f"ask for at most -n {most} points at a time",
    )


def _points_csv(header: list[str], points: np.ndarray, block: int = 65536) -> str:
    """``points`` as CSV text (each value as ``repr`` writes it), formatted by blocks of rows:
    no Python string per value of all the points at once."""
    parts = [_csv_text(header, [])]
    for i in range(0, points.shape[0], block):
        rows = points[i : i + block].tolist()
        parts.append("".join(",".join(map(repr, row)) + "\n" for row in rows))
    return "".join(parts)


def cmd_sample(args) -> int:
    """Points drawn from a saved autoencoder, as CSV."""
    progress = Progress(args.quiet)
    if args.output is not None:
        _check_output(args.output, args.model)
    est, meta = _load(args, progress)
    if _family(est, meta) is None or not hasattr(est, "sample"):
        raise CLIError(f"sample needs an autoencoder model, not {type(est).__name__}")
    n_features = int(est.n_features_in_)
    train = TrainingRecord.read(meta.get("data", {}), n_features, str(args.model))
    _check_sample_size(args.n_samples, n_features)
    with progress.step(f"sampling {args.n_samples} points"):
        points = est.sample(args.n_samples, random_state=args.random_state)
    names = model_feature_names(est, train)
    if names is None or len(names) != points.shape[1]:
        names = [f"x{j}" for j in range(points.shape[1])]
    _write(_points_csv(names, points), args.output, progress, f"{points.shape[0]} points")
    return 0
