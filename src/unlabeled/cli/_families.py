"""What the commands do differently per family of estimators (the registry's
:data:`~unlabeled.registry.FAMILIES`, declared once there): how a family's rows become
``fit``'s arguments (a label column, -1 for an unlabeled row, bag ids, privileged columns),
what ``predict`` writes and what ``evaluate`` reports. One class per kind of label column
(:func:`of`); everything else is read from the family's declaration and from the estimator
itself (its methods and fitted attributes: what exists is reported), so that a new estimator
of a family works on the command line with no edit here. The commands (``_commands``) are one
code path each over these objects.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..metrics import pu_risk
from ..registry import FAMILIES
from ..registry import Family as Declared
from ._common import EXIT_USAGE, CLIError
from ._io import ModelRows, TrainingRecord, matches, pu_mask, ssl_targets, unlabeled_rows

__all__ = ["Commands", "Request", "Training", "is_nan", "of"]


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
    train: TrainingRecord  # the model file's record of its training data


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
class Commands:
    """A family's commands: its declaration (``declared``, the data layout) and the steps of
    the commands that differ between families (the methods; this class's are those of
    classifiers on a label column)."""

    declared: Declared
    #: the commands that take --unlabeled-only
    unlabeled_only: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        return self.declared.name

    @property
    def labels(self) -> bool:
        """The training file has a label column."""
        return self.declared.labels is not None

    @property
    def bags(self) -> bool:
        """A column of bag ids; one prediction per bag."""
        return "groups" in self.declared.keywords

    @property
    def privileged(self) -> bool:
        """--privileged-columns, read by fit only."""
        return "X_star" in self.declared.fit

    @property
    def positive_labels(self) -> bool:
        """PU labels: --positive-value, --search, the PU risk."""
        return self.declared.labels == "pu"

    def by(self, rows: ModelRows) -> tuple:
        """The row-wise methods' arguments: X, and the family's keywords (the bag ids)."""
        return (rows.X, *(getattr(rows, k) for k in self.declared.keywords))

    # -------------------------------------------------------------- fit
    def _targets(self, y, data: str, positive_value: str | None) -> tuple[dict, str, dict]:
        """fit's label arguments by role, what they are in words, and their record."""
        return {"y": y}, "", {}

    def training(self, X, y, extra: dict, data: str, positive_value: str | None) -> Training:
        """The arguments of ``fit`` from the arrays read from ``data``."""
        targets, said, record = self._targets(y, data, positive_value)
        args, kwargs = self.declared.arguments({"X": X, "X_star": None, **extra, **targets})
        return Training(args, kwargs, self._described(X, extra) + said, record)

    def _described(self, X, extra: dict) -> str:
        if self.bags:
            bags = np.unique(extra["groups"]).size
            return f"{bags} bags of {X.shape[0]} instances, {X.shape[1]} features"
        X_star = extra.get("X_star")
        more = "" if X_star is None else f", {X_star.shape[1]} privileged"
        return _points(X) + more

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
    def check_predict(self, est, decision: bool, proba: bool) -> None:
        """Refuse the output options that the model cannot give."""
        if proba and not hasattr(est, "predict_proba"):
            raise CLIError(
                f"the {type(est).__name__} model gives no probabilities: fit it with --probability"
            )
        if decision and not hasattr(est, "decision_function"):
            raise CLIError(f"{type(est).__name__} has no decision values", EXIT_USAGE)

    def predict_columns(self, est, by: tuple, decision: bool, proba: bool):
        """The header and the columns that ``predict`` writes; ``by`` holds X (and the bag
        ids)."""
        f = est.decision_function(*by) if decision else None
        header, columns = ["prediction"], [est.predict(*by).tolist()]
        if f is not None and np.ndim(f) == 2:  # one column per class (one-vs-rest)
            header += [f"decision_{c}" for c in est.classes_]
            columns += [_floats(v) for v in np.transpose(f)]
        elif f is not None:
            header.append("decision")
            columns.append(_floats(f))
        if proba:
            p = est.predict_proba(*by)
            header += [f"proba_{c}" for c in est.classes_]
            columns += [_floats(v) for v in p.T]
        if self.bags:
            return ["bag", *header], [np.unique(by[1]).tolist(), *columns]
        return header, columns

    def wrote(self, columns: list) -> str:
        """What ``predict -o`` says it wrote."""
        return f"{len(columns[0])} predictions"

    # -------------------------------------------------------------- evaluate
    def check_evaluate(self, est, true_labels: str | None) -> None:
        """Refuse an evaluation that the model cannot give without more options."""

    def evaluate(self, est, rows: ModelRows, request: Request, progress) -> dict:
        """The family's measures of ``est`` on the rows read (after model, data, n_samples)."""
        with progress.step(f"evaluating on {rows.X.shape[0]} points"):
            return self._measure(est, rows, request)

    def _measure(self, est, rows: ModelRows, request: Request) -> dict:
        from sklearn.metrics import accuracy_score

        truth = rows.y if rows.y_true is None else rows.y_true
        if self.bags:
            return {
                "n_bags": int(np.unique(rows.groups).size),
                "bag_accuracy": float(est.score(rows.X, truth, rows.groups)),
            }
        return {"accuracy": float(accuracy_score(truth, est.predict(rows.X)))}

    def report(self, result: dict) -> str:
        """``evaluate``'s result as text."""
        return "\n".join(f"{k:<20} {_shown(v)}" for k, v in result.items())


def _attributes(est, *shown) -> list[str]:
    """``name=value`` of those of the estimator's fitted attributes (or else parameters) that
    it has: ``(text, attribute, parameter, format)``, the text for a value ``v``."""
    out = []
    for text, attribute, parameter, fmt in shown:
        v = getattr(est, attribute, None) if attribute else None
        if v is None and parameter:
            v = getattr(est, parameter, None)
        if v is None or (fmt not in "rs" and not isinstance(v, (int, float, np.number))):
            continue
        out.append(text.format(format(v, fmt) if fmt != "r" else repr(v)))
    return out


@dataclass(frozen=True)
class _PU(Commands):
    """Positive-unlabeled: --positive-value marks the labeled positives. What is reported of a
    fit is what the estimator has of a kernel, a lambda, a prior, an objective, iterations and
    support vectors."""

    def _targets(self, y, data: str, positive_value: str | None) -> tuple[dict, str, dict]:
        value = positive_value or "1"
        mask = pu_mask(y, value, repr(data))
        if mask.all():
            raise CLIError(
                f"no unlabeled point in {data!r}: every label equals --positive-value "
                f"{value!r}; PU learning needs unlabeled points"
            )
        s = mask.astype(np.int64)
        n, p = s.size, int(s.sum())
        said = f", {p} labeled positive, {n - p} unlabeled"
        return {"s": s}, said, {"n_labeled": p, "positive_value": value}

    def fit_step(self, estimator, n: int) -> str:
        kernel = _attributes(estimator, ("kernel={}, ", None, "kernel", "s"))
        return f"fitting {type(estimator).__name__} ({''.join(kernel)}{n} points)"

    def fitted(self, estimator, params: dict, training: Training, output: str) -> str:
        n, p = training.args[0].shape[0], training.record["n_labeled"]
        shown = _attributes(
            estimator,
            ("kernel={}", None, "kernel", "r"),
            ("lam={}", "lam_", "lam", "g"),
            ("prior={}", "prior_", None, ".4g"),
        )
        results = _attributes(
            estimator,
            ("objective {}", "objective_", None, ".6g"),
            ("{} iterations", "n_iter_", None, "d"),
        )
        if getattr(estimator, "support_", None) is not None:
            results.append(f"{len(estimator.support_)} support vectors")
        said = (": " + ", ".join(results)) if results else ""
        return (
            f"{type(estimator).__name__}({', '.join(shown)}) fitted on {n} points "
            f"({p} labeled positive){said}; saved to {output}"
        )

    def model_record(self, estimator, name: str, data: dict, search: dict | None) -> dict:
        prior = getattr(estimator, "prior_", None)
        record = {} if prior is None else {"prior_": float(prior)}
        return {**record, "data": data, "search": search}

    def wrote(self, columns: list) -> str:
        positive = sum(1 for v in columns[0] if v == 1)
        return f"{len(columns[0])} predictions ({positive} positive)"

    def evaluate(self, est, rows: ModelRows, request: Request, progress) -> dict:
        """The PU risk from the file's PU labels, and with true labels F1, precision, recall
        and ROC AUC (of the decision values, or else of the probabilities)."""
        recorded = request.train.positive_value
        value = request.positive_value or ("1" if recorded is None else str(recorded))
        labeled = pu_mask(rows.y, value, repr(request.data))
        with progress.step(f"predicting {rows.X.shape[0]} points"):
            f = _scores(est, rows.X)
        prior = float(getattr(est, "prior_", float("nan")))
        if np.all(f > 0) or np.all(f <= 0):
            side, risk = ("positive", "1 - prior") if f[0] > 0 else ("negative", "the prior")
            warnings.warn(
                f"the model predicts every point of {request.data} {side}: a trivial "
                f"classifier, whose PU risk is {risk} (and F1 0, or the share of positives). "
                "Refit with threshold='prior' (the default) or check the prior",
                UserWarning,
                stacklevel=2,
            )
        # the unbiased PU zero-one risk, NaN when the file lacks P or U or the model a prior
        both = labeled.any() and not labeled.all() and not np.isnan(prior)
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
            f"{'prior':<12} {num(r['prior'])}",
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


def _scores(est, X) -> np.ndarray:
    """Scores positive where the model predicts the positive class: its decision values, or
    else its predictions (1: positive) shifted to +-1 plus the probability's distance to 1/2
    (a ranking for ROC AUC with the predictions' signs)."""
    if hasattr(est, "decision_function"):
        return np.asarray(est.decision_function(X), dtype=np.float64)
    positive = np.asarray(est.predict(X)) == 1
    sign = np.where(positive, 1.0, -1.0)
    if not hasattr(est, "predict_proba"):
        return sign
    p = np.asarray(est.predict_proba(X))[:, -1]
    return sign + (p - 0.5) / 2


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


#: label cells of a text column that are a missing or non-finite number, not a class
_NOT_A_CLASS = ("nan", "inf", "-inf", "+inf", "infinity", "-infinity", "+infinity")


def _check_no_empty_label(y: np.ndarray, data: str) -> None:
    """Refuse a blank label cell: it is neither a class nor the unlabeled marker -1 (as a
    class of its own, ``''``, a multi-class model would learn and predict it); and so a cell
    ``nan`` or ``-inf`` in a column of words (the long fuzz, issue 53: predicted as a
    class ``-inf``)."""
    if y.dtype.kind not in "US":
        return
    text = np.char.strip(y.astype(str))
    empty = np.flatnonzero(text == "")
    if empty.size:
        raise CLIError(
            f"{data!r}: data row {empty[0] + 1} has an empty label ({empty.size} empty in "
            "all); write -1 in the label column of an unlabeled row",
            EXIT_USAGE,
        )
    bad = np.flatnonzero(np.isin(np.char.lower(text), _NOT_A_CLASS))
    if bad.size:
        raise CLIError(
            f"{data!r}: data row {bad[0] + 1} has the label {str(y[bad[0]])!r}, a missing or "
            f"non-finite number rather than a class ({bad.size} such in all); write -1 in "
            "the label column of an unlabeled row",
            EXIT_USAGE,
        )


@dataclass(frozen=True)
class _SemiSupervised(Commands):
    """Two or more classes, -1 marks an unlabeled row."""

    def _targets(self, y, data: str, positive_value: str | None) -> tuple[dict, str, dict]:
        _check_no_empty_label(y, data)
        n, n_unl = y.shape[0], int(unlabeled_rows(y).sum())
        if n_unl == 0:
            warnings.warn(
                f"every row of {data} is labeled (no label is -1): a semi-supervised "
                "fit learns from the rows marked -1 as well. If 0 marks the unlabeled rows of "
                "positive-unlabeled data, use --estimator pusvc; for a supervised SVM, use "
                "scikit-learn's SVC",
                UserWarning,
                stacklevel=2,
            )
        return {"y": ssl_targets(y)}, f", {n - n_unl} labeled, {n_unl} unlabeled", {}

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
class _Unlabeled(Commands):
    """No label column: a model that predicts (clusters, evaluated against true labels by the
    adjusted Rand index), or one that transforms (latent codes; evaluated by its score)."""

    def check_predict(self, est, decision: bool, proba: bool) -> None:
        if not hasattr(est, "predict") and (decision or proba):
            raise CLIError("the autoencoder predicts its latent codes only", EXIT_USAGE)
        super().check_predict(est, decision, proba)

    def predict_columns(self, est, by: tuple, decision: bool, proba: bool):
        if hasattr(est, "predict"):
            return super().predict_columns(est, by, decision, proba)
        Z = est.transform(*by)
        return [f"z{j}" for j in range(Z.shape[1])], [_floats(z) for z in Z.T]

    def check_evaluate(self, est, true_labels: str | None) -> None:
        if hasattr(est, "predict") and true_labels is None:
            raise CLIError("clustering is evaluated against --true-labels (a column or a file)")

    def _measure(self, est, rows: ModelRows, request: Request) -> dict:
        from sklearn.metrics import adjusted_rand_score

        if hasattr(est, "predict"):
            truth = rows.y_true
            return {"adjusted_rand": float(adjusted_rand_score(truth, est.predict(rows.X)))}
        return {"score": float(est.score(rows.X))}


#: the commands' behaviour by what a family's label column holds
_BY_LABELS: dict[str | None, type[Commands]] = {
    "pu": _PU,
    "ssl": _SemiSupervised,
    "classes": Commands,
    None: _Unlabeled,
}
_UNLABELED_ONLY = {"pu": ("evaluate",), "ssl": ("predict", "evaluate")}


def of(name: str) -> Commands | None:
    """The commands of the family ``name`` (a key of the registry's ``FAMILIES``), or None
    for a name that is none."""
    declared = FAMILIES.get(name)
    if declared is None:
        return None
    return _BY_LABELS[declared.labels](declared, _UNLABELED_ONLY.get(declared.labels or "", ()))
