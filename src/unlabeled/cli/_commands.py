"""The commands ``fit``, ``predict`` and ``evaluate``; model files via ``unlabeled.model_io``."""

from __future__ import annotations

import csv
import io
import json
import sys

import numpy as np

from ._common import EXIT_USAGE, CLIError, Progress
from ._io import load_for_model, load_training, matches, pu_mask

__all__ = ["cmd_evaluate", "cmd_fit", "cmd_predict"]


# ---------------------------------------------------------------------- fit
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
    from ..model_io import class_path, save_model
    from ..pu import PUSVC

    progress = Progress(args.quiet)
    _check_output(args.output, args.data)  # before any long work
    with progress.step(f"reading {args.data}"):
        X, y, info = load_training(args)
    mask = pu_mask(y, args.positive_value, repr(args.data))
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
    from ..model_io import load_model

    with progress.step(f"loading {args.model}"):
        return load_model(args.model)


def cmd_predict(args) -> int:
    from ..model_io import write_atomic

    progress = Progress(args.quiet)
    if args.output is not None:
        _check_output(args.output, args.model, args.data)
    est, meta = _load(args, progress)
    with progress.step(f"reading {args.data}"):
        X, _, _ = load_for_model(args, est, meta.get("data", {}), False, None)
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
    (:func:`unlabeled.metrics.pu_risk`), or NaN when the file lacks P or U."""
    from ..metrics import pu_risk

    if labeled.all() or not labeled.any():
        return float("nan")
    return float(pu_risk(labeled, f, prior))


def cmd_evaluate(args) -> int:
    from sklearn.metrics import f1_score, precision_score, recall_score, roc_auc_score

    progress = Progress(args.quiet)
    est, meta = _load(args, progress)
    train = meta.get("data", {})
    with progress.step(f"reading {args.data}"):
        X, y, y_true = load_for_model(args, est, train, True, args.true_labels)
    positive_value = args.positive_value or str(train.get("positive_value", "1"))
    labeled = pu_mask(y, positive_value, repr(args.data))
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
