"""The commands ``fit``, ``predict``, ``evaluate`` and ``sample`` for every family of
estimators (``_estimators``); model files via ``unlabeled.model_io``.

PUSVC keeps its own paths (its PU labels, the PU risk, the parameter search); the other
families share one: read the file in the family's layout, fit, save; predict with the
estimator's own ``predict`` / ``decision_function`` / ``predict_proba``.
"""

from __future__ import annotations

import csv
import importlib.util
import io
import json
import sys
import warnings

import numpy as np

from .._budget import check_dense_budget
from .._config import dense_budget
from ..exceptions import InvalidParameterError
from ._common import EXIT_USAGE, PROCESS, CLIError, Progress
from ._estimators import ESTIMATORS, estimator_class, family_of_class
from ._io import (
    LABELED,
    check_training_record,
    load_for_model,
    load_training,
    matches,
    model_feature_names,
    pu_mask,
    ssl_targets,
    unlabeled_rows,
)
from ._options import given_params, option_name

__all__ = ["cmd_evaluate", "cmd_fit", "cmd_predict", "cmd_sample"]

_MIL_NAMES = ", ".join(n for n, e in ESTIMATORS.items() if e.family == "mil")


# ---------------------------------------------------------------------- fit
def _check_family_options(args, family: str) -> None:
    """Options that the family's data layout does not use are refused, not ignored."""
    name = args.estimator
    if args.options_for != name:  # the parser generated another estimator's options
        raise CLIError(f"give --estimator {name} as '--estimator {name}'", EXIT_USAGE)
    if family != "mil" and args.bag_column is not None:
        raise CLIError(f"--bag-column is for multi-instance estimators ({_MIL_NAMES})", EXIT_USAGE)
    if family == "mil" and args.bag_column is None:
        raise CLIError(f"--estimator {name} needs --bag-column (each row's bag id)", EXIT_USAGE)
    if family != "lupi" and args.privileged_columns is not None:
        raise CLIError("--privileged-columns is for --estimator svmplus", EXIT_USAGE)
    if family not in LABELED and args.label_column is not None:
        raise CLIError(
            f"--estimator {name} reads no label column: leave a column out with --ignore-column",
            EXIT_USAGE,
        )
    if family != "pu":
        for option, given in (("--positive-value", args.positive_value), ("--search", args.search)):
            if given:
                raise CLIError(f"{option} is for --estimator pusvc", EXIT_USAGE)


def _option_error(exc: Exception, params) -> CLIError:
    """A parameter error raised by ``fit`` (a check across parameters, a tuple's values), as
    a usage error naming the option."""
    message = str(exc)
    for name in params:
        if message.startswith(name + " "):
            return CLIError(f"argument {option_name(name)}: {message}", EXIT_USAGE)
    return CLIError(message, EXIT_USAGE)


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
        random_state=given_params(args).get("random_state"),
    )
    with progress.step(f"searching parameters ({args.cv}-fold cross-validation)"):
        search.fit(X, s)
    return search


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
    family = ESTIMATORS[args.estimator].family
    _check_family_options(args, family)
    if family != "pu":
        return _fit_family(args, family)
    from ..model_io import class_path, save_model

    progress = Progress(args.quiet)
    _check_output(args.output, args.data)  # before any long work
    with progress.step(f"reading {args.data}"):
        X, y, _, info = load_training(args)
    positive_value = args.positive_value or "1"
    mask = pu_mask(y, positive_value, repr(args.data))
    if mask.all():
        raise CLIError(
            f"no unlabeled point in {args.data!r}: every label equals --positive-value "
            f"{positive_value!r}; PU learning needs unlabeled points"
        )
    s = mask.astype(np.int64)
    n, p = s.size, int(s.sum())
    progress.note(
        f"{args.data}: {n} points, {X.shape[1]} features, {p} labeled positive, {n - p} unlabeled"
    )
    params = given_params(args)
    estimator = estimator_class(args.estimator)(**params)
    search_record = None
    if args.search:
        search = _search(estimator, X, s, args, progress)
        estimator = search.best_estimator_
        best = {k: _plain(v) for k, v in search.best_params_.items()}
        search_record = {"best_params": best, "best_score": _plain(search.best_score_)}
        score = f"{search.best_score_:.6g}"
        print(f"best parameters: {json.dumps(best)}  (cross-validated score {score})")
    else:
        with progress.step(f"fitting PUSVC (kernel={estimator.kernel}, {n} points)"):
            try:
                estimator.fit(X, s)
            except InvalidParameterError as exc:
                raise _option_error(exc, params) from exc
    info.update(n_samples=n, n_features=int(X.shape[1]), n_labeled=p)
    _record_feature_names(estimator, info)
    meta = {
        "params": {k: _plain(v) for k, v in estimator.get_params().items()},
        "prior_": float(estimator.prior_),
        "data": {**info, "positive_value": positive_value},
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


def _fit_family(args, family: str) -> int:
    """``fit`` for every family but PU: read the family's layout, fit, save."""
    from ..model_io import save_model

    name = args.estimator
    progress = Progress(args.quiet)
    _check_output(args.output, args.data)  # before any long work
    cls = estimator_class(name)
    if family == "generative" and importlib.util.find_spec("torch") is None:
        raise CLIError(
            f"--estimator {name} needs PyTorch, which is not installed: "
            "pip install 'torch>=2.2,<=2.13.0'"
        )
    with progress.step(f"reading {args.data}"):
        X, y, extra, info = load_training(args, family)
    n = int(X.shape[0])
    described = f"{n} points, {X.shape[1]} features"
    fit_args: tuple = (X,)
    fit_kwargs: dict = {}
    if family == "ssl":
        n_unl = int(unlabeled_rows(y).sum())
        y = ssl_targets(y)
        described += f", {n - n_unl} labeled, {n_unl} unlabeled"
        fit_args = (X, y)
        if n_unl == 0:
            warnings.warn(
                f"every row of {args.data} is labeled (no label is -1): a semi-supervised "
                "fit learns from the rows marked -1 as well. If 0 marks the unlabeled rows of "
                "positive-unlabeled data, use --estimator pusvc; for a supervised SVM, use "
                "scikit-learn's SVC",
                UserWarning,
                stacklevel=2,
            )
    elif family == "mil":
        groups = extra["groups"]
        described = f"{np.unique(groups).size} bags of {n} instances, {X.shape[1]} features"
        fit_args, fit_kwargs = (X, y), {"groups": groups}
    elif family == "lupi":
        X_star = extra.get("X_star")
        if X_star is not None:
            described += f", {X_star.shape[1]} privileged"
        fit_args = (X, y, X_star)
    progress.note(f"{args.data}: {described}")
    params = given_params(args)
    estimator = cls(**params)
    with progress.step(f"fitting {cls.__name__} ({n} points)"):
        try:
            estimator.fit(*fit_args, **fit_kwargs)
        except InvalidParameterError as exc:
            raise _option_error(exc, params) from exc
    info.update(n_samples=n, n_features=int(X.shape[1]))
    _record_feature_names(estimator, info)
    meta = {
        "params": {k: _plain(v) for k, v in estimator.get_params().items()},
        "estimator_name": name,
        "family": family,
        "data": info,
    }
    save_model(estimator, args.output, meta)
    shown = ", ".join(f"{k}={v!r}" for k, v in params.items())
    print(f"{cls.__name__}({shown}) fitted on {described}; saved to {args.output}")
    return 0


def _record_feature_names(estimator, info: dict) -> None:
    """The header names of the training file's feature columns as the model's
    ``feature_names_in_`` (scikit-learn's attribute): predict and evaluate match a file's
    columns to them by name."""
    names = info.get("names")
    if names:
        estimator.feature_names_in_ = np.asarray([names[j] for j in info["features"]], object)


def _plain(v):
    return v.item() if isinstance(v, np.generic) else v


# ---------------------------------------------------------------------- predict / evaluate
def _load(args, progress):
    from ..model_io import load_model

    with progress.step(f"loading {args.model}"):
        model = load_model(args.model, light_import=PROCESS["own"])
    # the command matches the columns itself (by name, or by count for a file without names)
    # and hands the estimator plain arrays: scikit-learn's warning that they have no names
    # would only be noise (main restores the filters)
    warnings.filterwarnings("ignore", "X does not have valid feature names", UserWarning)
    return model


def _family(est, meta: dict) -> str:
    family = meta.get("family") or family_of_class(type(est).__name__)
    if family is None:  # a model saved from Python, of a class the command does not fit
        raise CLIError(f"the command cannot use a {type(est).__name__} model")
    return family


def _csv_text(header: list[str], columns: list) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(zip(*columns, strict=True))
    return out.getvalue()


def _floats(values) -> list[str]:
    return [repr(float(v)) for v in values]


def cmd_predict(args) -> int:
    from ..model_io import write_atomic

    progress = Progress(args.quiet)
    if args.output is not None:
        _check_output(args.output, args.model, args.data)
    est, meta = _load(args, progress)
    family = _family(est, meta)
    if args.unlabeled_only and family != "ssl":
        raise CLIError("--unlabeled-only is for semi-supervised models", EXIT_USAGE)
    if family == "generative" and (args.decision or args.proba):
        raise CLIError("the autoencoder predicts its latent codes only", EXIT_USAGE)
    if args.proba and not hasattr(est, "predict_proba"):
        raise CLIError(
            f"the {type(est).__name__} model gives no probabilities: fit it with --probability"
        )
    if args.decision and not hasattr(est, "decision_function"):
        raise CLIError(f"{type(est).__name__} has no decision values", EXIT_USAGE)
    bags = family == "mil"
    with progress.step(f"reading {args.data}"):
        X, y, _, groups = load_for_model(
            args, est, meta.get("data", {}), args.unlabeled_only, None, bags
        )
    by = (X, groups) if bags else (X,)
    header: list[str] = []
    columns: list = []
    with progress.step(f"predicting {X.shape[0]} points"):
        if family == "generative":
            Z = est.transform(X)
            header, columns = [f"z{j}" for j in range(Z.shape[1])], [_floats(z) for z in Z.T]
        else:
            f = est.decision_function(*by) if family == "pu" or args.decision else None
            if family == "pu" and f is not None:  # as PUSVC.predict, in 1 / 0
                pred = (f > 0).astype(int)
            else:
                pred = est.predict(*by)
            header, columns = ["prediction"], [pred.tolist()]
            if args.decision:
                header.append("decision")
                columns.append(_floats(f))
            if args.proba:
                proba = est.predict_proba(*by)
                header += [f"proba_{c}" for c in est.classes_]
                columns += [_floats(p) for p in proba.T]
    if bags:
        header, columns = ["bag", *header], [np.unique(groups).tolist(), *columns]
    if args.unlabeled_only:
        rows = np.flatnonzero(unlabeled_rows(y))
        header = ["row", *header]
        columns = [rows.tolist(), *([c[i] for i in rows] for c in columns)]
    text = _csv_text(header, columns)
    n_out = len(columns[0])
    if args.output is None:
        sys.stdout.write(text)
    else:
        write_atomic(args.output, text)
        if family == "pu":
            n_pos = int(np.sum(columns[0]))
            progress.note(f"wrote {n_out} predictions ({n_pos} positive) to {args.output}")
        else:
            progress.note(f"wrote {n_out} predictions to {args.output}")
    return 0


def _pu_risk(f: np.ndarray, labeled: np.ndarray, prior: float) -> float:
    """The unbiased PU zero-one risk ``pi P_P(f <= 0) + P_U(f > 0) - pi P_P(f > 0)``
    (:func:`unlabeled.metrics.pu_risk`), or NaN when the file lacks P or U."""
    from ..metrics import pu_risk

    if labeled.all() or not labeled.any():
        return float("nan")
    return float(pu_risk(labeled, f, prior))


def cmd_evaluate(args) -> int:
    from sklearn.metrics import f1_score, precision_score, recall_score, roc_auc_score

    progress = Progress(args.quiet)
    est, meta = _load(args, progress)
    family = _family(est, meta)
    if family != "pu":
        return _evaluate_family(args, est, meta, family, progress)
    train = meta.get("data", {})
    with progress.step(f"reading {args.data}"):
        X, y, y_true, _ = load_for_model(args, est, train, True, args.true_labels)
    positive_value = args.positive_value or str(train.get("positive_value", "1"))
    labeled = pu_mask(y, positive_value, repr(args.data))
    with progress.step(f"predicting {X.shape[0]} points"):
        f = est.decision_function(X)
    prior = float(est.prior_)
    if np.all(f > 0) or np.all(f <= 0):
        side, risk = ("positive", "1 - prior") if f[0] > 0 else ("negative", "the prior")
        warnings.warn(
            f"the model predicts every point of {args.data} {side}: a trivial classifier, "
            f"whose PU risk is {risk} (and F1 0, or the share of positives). Refit with "
            "threshold='prior' (the default) or check the prior",
            UserWarning,
            stacklevel=2,
        )
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
        truth = matches(
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


def _evaluate_family(args, est, meta: dict, family: str, progress) -> int:
    """The measure of each family but PU: accuracy on the given labels (semi-supervised,
    SVM+), bag accuracy (multi-instance), adjusted Rand index against --true-labels
    (clustering), the score (the autoencoder)."""
    from sklearn.metrics import accuracy_score, adjusted_rand_score

    if args.unlabeled_only and family != "ssl":
        raise CLIError("--unlabeled-only is for semi-supervised models", EXIT_USAGE)
    if args.positive_value is not None:
        raise CLIError("--positive-value is for PUSVC models", EXIT_USAGE)
    if family == "cluster" and args.true_labels is None:
        raise CLIError("clustering is evaluated against --true-labels (a column or a file)")
    if family in ("cluster", "generative") and args.label_column is not None:
        raise CLIError("this model reads no label column: give --true-labels", EXIT_USAGE)
    labeled_family = family in LABELED
    bags = family == "mil"
    with progress.step(f"reading {args.data}"):
        X, y, y_true, groups = load_for_model(
            args, est, meta.get("data", {}), labeled_family, args.true_labels, bags
        )
    result: dict = {"model": str(args.model), "data": str(args.data), "n_samples": X.shape[0]}
    with progress.step(f"evaluating on {X.shape[0]} points"):
        if family == "generative":
            result["score"] = float(est.score(X))
        elif family == "cluster":
            result["adjusted_rand"] = float(adjusted_rand_score(y_true, est.predict(X)))
        elif family == "mil":
            result["n_bags"] = int(np.unique(groups).size)
            truth = y if y_true is None else y_true
            result["bag_accuracy"] = float(est.score(X, truth, groups))
        else:
            pred = est.predict(X)
            if family == "ssl":
                unl = unlabeled_rows(y)
                given = ~unl
                result.update(n_labeled=int(given.sum()), n_unlabeled=int(unl.sum()))
                result["accuracy_labeled"] = (
                    float(accuracy_score(ssl_targets(y)[given].astype(pred.dtype), pred[given]))
                    if given.any()
                    else float("nan")
                )
                if y_true is not None:
                    rows = unl if args.unlabeled_only else np.ones(unl.size, dtype=bool)
                    key = "accuracy_unlabeled" if args.unlabeled_only else "accuracy_all"
                    result[key] = float(accuracy_score(y_true[rows], pred[rows]))
            else:
                truth = y if y_true is None else y_true
                result["accuracy"] = float(accuracy_score(truth, pred))
    if args.json:
        print(json.dumps({k: (None if _isnan(v) else v) for k, v in result.items()}, indent=2))
    else:
        print("\n".join(f"{k:<20} {_shown(v)}" for k, v in result.items()))
    return 0


def _shown(v) -> str:
    if isinstance(v, float):
        return "n/a" if np.isnan(v) else f"{v:.4f}"
    return str(v)


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
    from ..model_io import write_atomic

    progress = Progress(args.quiet)
    if args.output is not None:
        _check_output(args.output, args.model)
    est, meta = _load(args, progress)
    if _family(est, meta) != "generative" or not hasattr(est, "sample"):
        raise CLIError(f"sample needs an autoencoder model, not {type(est).__name__}")
    train, n_features = meta.get("data", {}), int(est.n_features_in_)
    check_training_record(train, n_features, str(args.model))
    _check_sample_size(args.n_samples, n_features)
    with progress.step(f"sampling {args.n_samples} points"):
        points = est.sample(args.n_samples, random_state=args.random_state)
    names = model_feature_names(est, train)
    if names is None or len(names) != points.shape[1]:
        names = [f"x{j}" for j in range(points.shape[1])]
    text = _points_csv(names, points)
    if args.output is None:
        sys.stdout.write(text)
    else:
        write_atomic(args.output, text)
        progress.note(f"wrote {points.shape[0]} points to {args.output}")
    return 0
