"""The command line: the parser of ``unlabeled`` and its subcommands, their help and epilogs."""

from __future__ import annotations

import argparse

import numpy as np

from .._validation import INT_MAX, MAX_DEGREE
from .._version import __version__
from ._commands import cmd_evaluate, cmd_fit, cmd_predict
from ._common import EXIT_USAGE, FORMATS, CLIError
from ._demo import add_demo_parser

__all__ = ["build_parser"]


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


def _number(text: str, words: tuple, test, need: str):
    """An argparse type: one of ``words`` (case-insensitive), or a finite float passing
    ``test``; ``need`` says in the error what is allowed."""
    if text.strip().lower() in words:
        return text.strip().lower()
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be {need}, got {text!r}") from None
    if not (np.isfinite(v) and test(v)):
        raise argparse.ArgumentTypeError(f"must be {need}, got {text}")
    return v


def _prior_arg(text: str):
    return _number(text, ("auto",), lambda v: 0.0 < v < 1.0, "in (0, 1) (exclusive) or 'auto'")


def _positive_float(text: str) -> float:
    return _number(text, (), lambda v: v > 0, "a number > 0")


def _gamma_arg(text: str):
    return _number(text, ("scale", "auto"), lambda v: v >= 0, "'scale', 'auto' or a number >= 0")


def _finite_float(text: str) -> float:
    return _number(text, (), lambda v: True, "a finite number")


def _int_in(low: int, high: int = INT_MAX, *, minus_one: bool = False):
    """An argparse type: an integer in [low, high] (or -1 when ``minus_one``)."""

    def parse(text: str) -> int:
        try:
            v = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be an integer, got {text!r}") from None
        if not (low <= v <= high or (minus_one and v == -1)):
            also = " or -1" if minus_one else ""
            raise argparse.ArgumentTypeError(f"must be in [{low}, {high}]{also}, got {v}")
        return v

    return parse


def _delimiter_arg(text: str) -> str:
    if len(text) != 1 or text in '\r\n"':
        raise argparse.ArgumentTypeError(
            f"must be one character (not a quote or line break), got {text!r}"
        )
    return text


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
    g.add_argument(
        "--delimiter",
        type=_delimiter_arg,
        default=",",
        help="CSV field separator, one character (default ',')",
    )
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
    """The parser of ``unlabeled`` with its subcommands demo, fit, predict and evaluate; each
    sets ``func``, the function that runs it on the parsed arguments."""

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
    add_demo_parser(sub)
    _add_fit_parser(sub)
    _add_predict_parser(sub)
    _add_evaluate_parser(sub)
    return parser


def _add_fit_parser(sub) -> None:
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
    _add_model_options(fit.add_argument_group("model"))
    _add_search_options(fit.add_argument_group("parameter search"))
    _add_common(fit)
    fit.set_defaults(func=cmd_fit)


def _add_model_options(m) -> None:
    """PUSVC's parameters, for ``fit``."""
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
    m.add_argument(
        "--degree",
        type=_int_in(0, MAX_DEGREE),
        default=3,
        help=f"poly kernel degree, 0 to {MAX_DEGREE} (default 3)",
    )
    m.add_argument(
        "--coef0", type=_finite_float, default=0.0, help="poly kernel offset (default 0)"
    )
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
    m.add_argument(
        "--max-iter", type=_int_in(1), default=None, help="cap on solver iterations (>= 1)"
    )
    m.add_argument(
        "--n-jobs",
        type=_int_in(1, minus_one=True),
        default=None,
        help="threads for kernel rows, at most the cores available (-1: all cores; default: "
        "the idle cores)",
    )
    m.add_argument(
        "--random-state",
        type=_int_in(0, 2**32 - 1),
        default=None,
        help="seed (the optimum does not depend on it)",
    )


def _add_search_options(srch) -> None:
    """``--search`` and its grid, for ``fit``."""
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
    srch.add_argument(
        "--cv", type=_int_in(2, 1000), default=5, help="cross-validation folds, >= 2 (default 5)"
    )


def _add_model_command(sub, name: str, data_help: str, **kwargs) -> argparse.ArgumentParser:
    """A subcommand ``NAME MODEL DATA`` that uses a saved model (predict, evaluate)."""
    p = sub.add_parser(name, formatter_class=_Formatter, **kwargs)
    p.add_argument("model", metavar="MODEL", help="model file written by 'unlabeled fit'")
    p.add_argument("data", metavar="DATA", help=data_help)
    return p


def _add_predict_parser(sub) -> None:
    pred = _add_model_command(
        sub,
        "predict",
        "data file (CSV, svmlight or npz)",
        help="predict with a saved model",
        description="Predict the class (1 positive, 0 negative) of every row of DATA with the "
        "model in MODEL.",
        epilog=_PREDICT_EPILOG,
    )
    pred.add_argument(
        "-o", "--output", metavar="OUT.csv", help="write the predictions here (default: stdout)"
    )
    pred.add_argument(
        "--decision", action="store_true", help="add the decision values f(x) as a column"
    )
    _add_data_options(pred)
    _add_common(pred)
    pred.set_defaults(func=cmd_predict)


def _add_evaluate_parser(sub) -> None:
    ev = _add_model_command(
        sub,
        "evaluate",
        "data file (CSV, svmlight or npz) with PU labels",
        help="PU risk of a saved model, and F1/precision/recall/AUC given true labels",
        description="Evaluate the model in MODEL on DATA: the PU risk from DATA's PU labels, "
        "and with --true-labels the usual classification metrics.",
        epilog=_EVALUATE_EPILOG,
    )
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
    ev.set_defaults(func=cmd_evaluate)
