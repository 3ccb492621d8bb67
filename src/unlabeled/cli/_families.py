"""The families of estimators that the command fits, one object each (:data:`FAMILIES`, keyed
by the family names of ``_estimators``): how a family's rows are read (a label column, -1 for
an unlabeled row, bag ids, privileged columns), what its ``fit`` is given, what ``predict``
writes and what ``evaluate`` reports. The commands (``_commands``) are one code path each over
these objects: a family's fields and methods carry every difference.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..metrics import pu_risk
from ._common import EXIT_USAGE, CLIError
from ._io import ModelRows, matches, pu_mask, ssl_targets, unlabeled_rows

__all__ = ["FAMILIES", "Family", "Request", "Training", "is_nan"]


@dataclass(frozen=True)
class Training:
    """A training file as its family's ``fit`` takes it."""

    args: tuple  # fit's positional arguments
    kwargs: dict  # fit's keyword arguments (groups)
    described: str  # "40 points, 2 features, ...", for the note and the fitted line
    record: dict  # added to the model file's record of the data, after the counts


@dataclass(frozen=True)
class Request:
    """What ``evaluate`` was asked, beside the data it read."""

    data: str  # the data file, as given
    unlabeled_only: bool
    positive_value: str | None  # PU: --positive-value (None: as in training)
    true_positive_value: str  # PU: --true-positive-value
    train: dict  # the model file's record of its training data


def _floats(values) -> list[str]:
    return [repr(float(v)) for v in values]


def is_nan(v) -> bool:
    """Whether ``v`` is a float NaN (JSON writes it as null, the tables as n/a)."""
    return isinstance(v, float) and np.isnan(v)


def _shown(v) -> str:
    if isinstance(v, float):
        return "n/a" if np.isnan(v) else f"{v:.4f}"
    return str(v)


def _points(X: np.ndarray) -> str:
    return f"{X.shape[0]} points, {X.shape[1]} features"


@dataclass(frozen=True)
class Family:
    """A family of estimators: its data layout (the fields) and the steps of the commands
    that differ between families (the methods; this class's are those of classifiers on a
    label column)."""

    name: str
    labels: bool = True  # the training file has a label column
    bags: bool = False  # a column of bag ids; one prediction per bag
    privileged: bool = False  # --privileged-columns, read by fit only
    positive_labels: bool = False  # PU labels: --positive-value, --search, the PU risk
    unlabeled_only: tuple[str, ...] = ()  # the commands that take --unlabeled-only
    requires: tuple[str, str] | None = None  # (module, what fit needs: a missing module)
    truth_needed: str | None = None  # evaluate's error when --true-labels is not given
    samples: bool = False  # ``sample`` draws points from its models

    # -------------------------------------------------------------- fit
    def training(self, X, y, extra: dict, data: str, positive_value: str | None) -> Training:
        """The arguments of ``fit`` from the arrays read from ``data``."""
        return Training((X, y) if self.labels else (X,), {}, _points(X), {})

    def fit_step(self, estimator, n: int) -> str:
        return f"fitting {type(estimator).__name__} ({n} points)"

    def fitted(self, estimator, params: dict, training: Training, output: str) -> str:
        """The line that ``fit`` prints."""
        shown = ", ".join(f"{k}={v!r}" for k, v in params.items())
        return (
            f"{type(estimator).__name__}({shown}) fitted on {training.described}; saved to {output}"
        )

    def model_record(self, estimator, name: str, data: dict, search: dict | None) -> dict:
        """The model file's metadata beside the parameters."""
        return {"estimator_name": name, "family": self.name, "data": data}

    # -------------------------------------------------------------- predict
    def check_predict(self, decision: bool, proba: bool) -> None:
        """Refuse the output options that the family's models cannot give."""

    def _predict(self, est, by: tuple, decision: bool):
        return (est.decision_function(*by) if decision else None), est.predict(*by)

    def predict_columns(self, est, by: tuple, decision: bool, proba: bool):
        """The header and the columns that ``predict`` writes; ``by`` holds X (and the bag
        ids)."""
        f, pred = self._predict(est, by, decision)
        header, columns = ["prediction"], [pred.tolist()]
        if decision and np.ndim(f) == 2:  # one column per class (one-vs-rest)
            header += [f"decision_{c}" for c in est.classes_]
            columns += [_floats(v) for v in np.transpose(f)]
        elif decision:
            header.append("decision")
            columns.append(_floats(f))
        if proba:
            p = est.predict_proba(*by)
            header += [f"proba_{c}" for c in est.classes_]
            columns += [_floats(v) for v in p.T]
        return header, columns

    def wrote(self, columns: list) -> str:
        """What ``predict -o`` says it wrote."""
        return f"{len(columns[0])} predictions"

    # -------------------------------------------------------------- evaluate
    def evaluate(self, est, rows: ModelRows, request: Request, progress) -> dict:
        """The family's measures of ``est`` on the rows read (after model, data, n_samples)."""
        with progress.step(f"evaluating on {rows.X.shape[0]} points"):
            return self._measure(est, rows, request)

    def _measure(self, est, rows: ModelRows, request: Request) -> dict:
        from sklearn.metrics import accuracy_score

        truth = rows.y if rows.y_true is None else rows.y_true
        return {"accuracy": float(accuracy_score(truth, est.predict(rows.X)))}

    def report(self, result: dict) -> str:
        """``evaluate``'s result as text."""
        return "\n".join(f"{k:<20} {_shown(v)}" for k, v in result.items())


@dataclass(frozen=True)
class _PU(Family):
    """Positive-unlabeled: --positive-value marks the labeled positives."""

    def training(self, X, y, extra: dict, data: str, positive_value: str | None) -> Training:
        value = positive_value or "1"
        mask = pu_mask(y, value, repr(data))
        if mask.all():
            raise CLIError(
                f"no unlabeled point in {data!r}: every label equals --positive-value "
                f"{value!r}; PU learning needs unlabeled points"
            )
        s = mask.astype(np.int64)
        n, p = s.size, int(s.sum())
        described = f"{_points(X)}, {p} labeled positive, {n - p} unlabeled"
        return Training((X, s), {}, described, {"n_labeled": p, "positive_value": value})

    def fit_step(self, estimator, n: int) -> str:
        return f"fitting {type(estimator).__name__} (kernel={estimator.kernel}, {n} points)"

    def fitted(self, estimator, params: dict, training: Training, output: str) -> str:
        n, p = training.args[1].size, training.record["n_labeled"]
        return (
            f"{type(estimator).__name__}(kernel={estimator.kernel!r}, "
            f"lam={getattr(estimator, 'lam_', estimator.lam):g}, prior={estimator.prior_:.4g}) "
            f"fitted on {n} points "
            f"({p} labeled positive): objective {estimator.objective_:.6g}, "
            f"{estimator.n_iter_} iterations, {len(estimator.support_)} support vectors; "
            f"saved to {output}"
        )

    def model_record(self, estimator, name: str, data: dict, search: dict | None) -> dict:
        return {"prior_": float(estimator.prior_), "data": data, "search": search}

    def _predict(self, est, by: tuple, decision: bool):
        f = est.decision_function(*by)
        return f, (f > 0).astype(int)  # as PUSVC.predict, in 1 / 0

    def wrote(self, columns: list) -> str:
        return f"{len(columns[0])} predictions ({int(np.sum(columns[0]))} positive)"

    def evaluate(self, est, rows: ModelRows, request: Request, progress) -> dict:
        """The PU risk from the file's PU labels, and with true labels F1, precision, recall
        and ROC AUC."""
        value = request.positive_value or str(request.train.get("positive_value", "1"))
        labeled = pu_mask(rows.y, value, repr(request.data))
        with progress.step(f"predicting {rows.X.shape[0]} points"):
            f = est.decision_function(rows.X)
        prior = float(est.prior_)
        if np.all(f > 0) or np.all(f <= 0):
            side, risk = ("positive", "1 - prior") if f[0] > 0 else ("negative", "the prior")
            warnings.warn(
                f"the model predicts every point of {request.data} {side}: a trivial "
                f"classifier, whose PU risk is {risk} (and F1 0, or the share of positives). "
                "Refit with threshold='prior' (the default) or check the prior",
                UserWarning,
                stacklevel=2,
            )
        # the unbiased PU zero-one risk, NaN when the file lacks P or U
        both = labeled.any() and not labeled.all()
        result = {
            "n_labeled": int(labeled.sum()),
            "n_unlabeled": int((~labeled).sum()),
            "prior": prior,
            "pu_risk": float(pu_risk(labeled, f, prior)) if both else float("nan"),
        }
        if rows.y_true is not None:
            result.update(_true_metrics(f, labeled, rows.y_true, request))
        return result

    def report(self, result: dict) -> str:
        def num(v):
            return "n/a" if is_nan(v) else f"{v:.4f}"

        r = result
        lines = [
            f"{'model':<12} {r['model']}",
            f"{'data':<12} {r['data']}: {r['n_samples']} points, {r['n_labeled']} labeled "
            f"positive, {r['n_unlabeled']} unlabeled",
            f"{'prior':<12} {r['prior']:.4f}",
            f"{'PU risk':<12} {num(r['pu_risk'])}   (unbiased zero-one risk from the PU labels)",
        ]
        if "f1" in r:
            lines.append(
                f"true labels on {r['subset']} points ({r['n_evaluated']}, "
                f"{r['n_true_positive']} positive):"
            )
            names = ("F1", "precision", "recall", "ROC AUC")
            for key, name in zip(("f1", "precision", "recall", "roc_auc"), names, strict=True):
                lines.append(f"{name:<12} {num(r[key])}")
        return "\n".join(lines)


def _true_metrics(f: np.ndarray, labeled: np.ndarray, y_true, request: Request) -> dict:
    """F1, precision and recall of ``f > 0`` and ROC AUC of ``f`` against the true labels,
    on every row or (--unlabeled-only) the unlabeled ones."""
    from sklearn.metrics import f1_score, precision_score, recall_score, roc_auc_score

    truth = matches(y_true, request.true_positive_value, "--true-positive-value", "the true labels")
    rows = ~labeled if request.unlabeled_only else np.ones(f.size, dtype=bool)
    t, pred, score = truth[rows], (f[rows] > 0).astype(int), f[rows]
    return {
        "subset": "unlabeled" if request.unlabeled_only else "all",
        "n_evaluated": int(rows.sum()),
        "n_true_positive": int(t.sum()),
        "f1": float(f1_score(t, pred, zero_division=0)),
        "precision": float(precision_score(t, pred, zero_division=0)),
        "recall": float(recall_score(t, pred, zero_division=0)),
        "roc_auc": float(roc_auc_score(t, score)) if 0 < t.sum() < t.size else float("nan"),
    }


def _check_no_empty_label(y: np.ndarray, data: str) -> None:
    """Refuse a blank label cell: it is neither a class nor the unlabeled marker -1 (as a
    class of its own, ``''``, a multi-class model would learn and predict it)."""
    if y.dtype.kind not in "US":
        return
    empty = np.flatnonzero(np.char.strip(y) == "")
    if empty.size:
        raise CLIError(
            f"{data!r}: data row {empty[0] + 1} has an empty label ({empty.size} empty in "
            "all); write -1 in the label column of an unlabeled row",
            EXIT_USAGE,
        )


@dataclass(frozen=True)
class _SemiSupervised(Family):
    """Two classes, -1 marks an unlabeled row."""

    def training(self, X, y, extra: dict, data: str, positive_value: str | None) -> Training:
        _check_no_empty_label(y, data)
        n, n_unl = X.shape[0], int(unlabeled_rows(y).sum())
        if n_unl == 0:
            warnings.warn(
                f"every row of {data} is labeled (no label is -1): a semi-supervised "
                "fit learns from the rows marked -1 as well. If 0 marks the unlabeled rows of "
                "positive-unlabeled data, use --estimator pusvc; for a supervised SVM, use "
                "scikit-learn's SVC",
                UserWarning,
                stacklevel=2,
            )
        described = f"{_points(X)}, {n - n_unl} labeled, {n_unl} unlabeled"
        return Training((X, ssl_targets(y)), {}, described, {})

    def _measure(self, est, rows: ModelRows, request: Request) -> dict:
        """Accuracy on the labeled rows, and with true labels on all rows or the unlabeled."""
        from sklearn.metrics import accuracy_score

        _check_no_empty_label(rows.y, request.data)
        pred = est.predict(rows.X)
        unl = unlabeled_rows(rows.y)
        given = ~unl
        result: dict[str, Any] = {"n_labeled": int(given.sum()), "n_unlabeled": int(unl.sum())}
        result["accuracy_labeled"] = (
            float(accuracy_score(ssl_targets(rows.y)[given].astype(pred.dtype), pred[given]))
            if given.any()
            else float("nan")
        )
        if rows.y_true is not None:
            subset = unl if request.unlabeled_only else np.ones(unl.size, dtype=bool)
            key = "accuracy_unlabeled" if request.unlabeled_only else "accuracy_all"
            result[key] = float(accuracy_score(rows.y_true[subset], pred[subset]))
        return result


@dataclass(frozen=True)
class _MultiInstance(Family):
    """Rows grouped in bags by a bag-id column; one label and one prediction per bag."""

    def training(self, X, y, extra: dict, data: str, positive_value: str | None) -> Training:
        groups = extra["groups"]
        described = (
            f"{np.unique(groups).size} bags of {X.shape[0]} instances, {X.shape[1]} features"
        )
        return Training((X, y), {"groups": groups}, described, {})

    def predict_columns(self, est, by: tuple, decision: bool, proba: bool):
        header, columns = super().predict_columns(est, by, decision, proba)
        return ["bag", *header], [np.unique(by[1]).tolist(), *columns]

    def _measure(self, est, rows: ModelRows, request: Request) -> dict:
        truth = rows.y if rows.y_true is None else rows.y_true
        return {
            "n_bags": int(np.unique(rows.groups).size),
            "bag_accuracy": float(est.score(rows.X, truth, rows.groups)),
        }


@dataclass(frozen=True)
class _Privileged(Family):
    """SVM+: privileged columns given to fit only."""

    def training(self, X, y, extra: dict, data: str, positive_value: str | None) -> Training:
        X_star = extra.get("X_star")
        described = _points(X)
        if X_star is not None:
            described += f", {X_star.shape[1]} privileged"
        return Training((X, y, X_star), {}, described, {})


@dataclass(frozen=True)
class _Clustering(Family):
    """No label column; evaluated against true labels by the adjusted Rand index."""

    def _measure(self, est, rows: ModelRows, request: Request) -> dict:
        from sklearn.metrics import adjusted_rand_score

        return {"adjusted_rand": float(adjusted_rand_score(rows.y_true, est.predict(rows.X)))}


@dataclass(frozen=True)
class _Generative(Family):
    """The autoencoder: no label column; predicts latent codes, draws new points."""

    def check_predict(self, decision: bool, proba: bool) -> None:
        if decision or proba:
            raise CLIError("the autoencoder predicts its latent codes only", EXIT_USAGE)

    def predict_columns(self, est, by: tuple, decision: bool, proba: bool):
        Z = est.transform(*by)
        return [f"z{j}" for j in range(Z.shape[1])], [_floats(z) for z in Z.T]

    def _measure(self, est, rows: ModelRows, request: Request) -> dict:
        return {"score": float(est.score(rows.X))}


#: the family name of ``_estimators.ESTIMATORS`` (and of a model file's record) -> its family
FAMILIES: dict[str, Family] = {
    f.name: f
    for f in (
        _PU("pu", positive_labels=True, unlabeled_only=("evaluate",)),
        _SemiSupervised("ssl", unlabeled_only=("predict", "evaluate")),
        _MultiInstance("mil", bags=True),
        _Privileged("lupi", privileged=True),
        _Clustering(
            "cluster",
            labels=False,
            truth_needed="clustering is evaluated against --true-labels (a column or a file)",
        ),
        _Generative(
            "generative",
            labels=False,
            requires=(
                "torch",
                "PyTorch, which is not installed: pip install 'torch>=2.2,<=2.13.0'",
            ),
            samples=True,
        ),
    )
}
