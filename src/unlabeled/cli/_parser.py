"""The command line: the parser of ``unlabeled`` and its subcommands, their help and epilogs.

Kept light: building the parser imports neither NumPy nor scikit-learn, and no estimator but
the one ``fit --estimator NAME`` names (its options are generated from its declared
parameters by ``_options``); the commands' code is imported when a command runs.
"""

from __future__ import annotations

import argparse
import math

from .._version import __version__
from ..registry import FAMILIES
from ._common import EXIT_USAGE, FORMATS, CLIError
from ._demo import add_demo_parser
from ._estimators import ESTIMATORS, canonical

__all__ = ["DEFAULT_ESTIMATOR", "build_parser"]

DEFAULT_ESTIMATOR = "pusvc"
#: the engine's int32: the largest count an option may hold (as unlabeled._validation.INT_MAX,
#: which is not imported here: it loads scikit-learn)
INT_MAX = 2**31 - 1


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
    if not (math.isfinite(v) and test(v)):
        raise argparse.ArgumentTypeError(f"must be {need}, got {text}")
    return v


def _positive_float(text: str) -> float:
    return _number(text, (), lambda v: v > 0, "a number > 0")


def _gamma_arg(text: str):
    return _number(text, ("scale", "auto"), lambda v: v >= 0, "'scale', 'auto' or a number >= 0")


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


def _estimator_arg(text: str) -> str:
    """``--estimator``: a name, or a former name (an alias) with a deprecation warning."""
    return canonical(text, warn=True)


def _estimator_table() -> str:
    rows = [f"  {name:<16} {e.name:<19} {e.summary}" for name, e in ESTIMATORS.items()]
    return "\n".join(rows)


def _family_table() -> str:
    names: dict[str, list[str]] = {}
    for name, e in ESTIMATORS.items():
        names.setdefault(e.family, []).append(name)
    shown = [f for f in FAMILIES if f in names]
    return "\n".join(f"  {f} ({', '.join(names[f])}):\n      {FAMILIES[f].layout}" for f in shown)


_MAIN_EPILOG = """\
data files (DATA):
  CSV       numeric features, one label column (default: the last; --label-column NAME or
            INDEX), a header line is detected when no field of the first line is a number;
            predict and evaluate match its columns by name to the model's features (see
            'unlabeled predict --help'), or by count when a file has no header line
  svmlight  LIBSVM/svmlight "label index:value ..." lines (also .gz/.bz2); the label is the
            first field of each line
  npz       numpy.savez archive with the features under X and the labels under y
            (--x-key, --label-column KEY)
  The format follows the suffix (.csv; .svm .svmlight .libsvm .txt; .npz) or --format.

PU labels: rows whose label equals --positive-value (default 1) are the labeled positives;
every other row (0, -1, anything else) is unlabeled. Other methods: 'unlabeled fit --help'.

examples:
  unlabeled demo
  unlabeled fit train.csv --label-column s --prior 0.4 --lam 0.01 -o model.skops
  unlabeled fit train.svm --prior auto --search --grid-lam 0.001 0.01 0.1 -o model.skops
  unlabeled fit train.csv --estimator wellsvm --C2 0.5 -o ssl.skops
  unlabeled predict model.skops test.csv -o predictions.csv --decision
  unlabeled evaluate model.skops test.csv --true-labels y

Errors are one line on stderr with a non-zero exit status (2: bad command line, 1: bad input);
UNLABELED_DEBUG=1 (or --debug) shows the traceback.
"""

_FIT_EPILOG = (
    """\
estimators (--estimator NAME; 'unlabeled fit --estimator NAME --help' lists its parameters):
"""
    + _estimator_table()
    + """

data layout by family:
"""
    + _family_table()
    + """

The model file is a skops archive (safe to load: no pickle) that also records the version of
unlabeled that wrote it, the estimator class and how the data were read; predict and evaluate
refuse files from another version. The file is written only when the fit succeeds.

examples:
  unlabeled fit data.csv --label-column s --positive-value 1 --prior 0.3 -o model.skops
  unlabeled fit a9a.svm --prior 0.25 --kernel rbf --gamma 0.05 --lam 0.001 -o model.skops
  unlabeled fit data.csv --prior 0.3 --search --grid-lam 0.001 0.01 0.1 --grid-gamma 0.1 1 \\
      -o model.skops
  unlabeled fit ssl.csv --estimator wellsvm --label-column y --C2 0.5 -o ssl.skops
  unlabeled fit bags.csv --estimator misvm-instance --bag-column bag --label-column y -o mil.skops
  unlabeled fit lupi.csv --estimator svmplus --privileged-columns p1,p2 -o svmplus.skops
  unlabeled fit points.csv --estimator cluster-wellsvm --ignore-column truth -o clusters.skops
  unlabeled fit points.csv --estimator pae --max-iter 2000 -o pae.skops
"""
)

_COLUMNS = """\
columns: DATA is laid out as the training file. A CSV with a header line is matched by name
to the model's features (the names of the training file's feature columns, which the model
keeps as feature_names_in_), in any order: a feature column missing, a name on two columns,
or a column that is neither a feature, nor a column of the training file (its label, bag,
privileged or ignored columns), nor named by --label-column, --bag-column or --true-labels
is an error that names the columns. A CSV without a header line (or for a model fitted on a
file without one) is matched by count: the training file's number of columns, read at the
training positions, or the feature columns alone, in the training order. An npz archive
holds the features under the training --x-key; an svmlight file has its labels ignored.
Multi-instance models read the bag column too (--bag-column, default: as in training), where
an empty bag id is an error.
"""

_PREDICT_EPILOG = (
    _COLUMNS
    + """

output: a CSV with a header line and one row per data row: "prediction" (PUSVC: 1 = positive,
0 = negative; classifiers: the class; clustering: the cluster; the autoencoder: its latent
code z0, z1, ...), with --decision "decision" (f(x)), with --proba one "proba_CLASS" column
per class (models fitted with --probability, and clsst). Multi-instance models: one row per
bag, "bag" first. With --unlabeled-only (semi-supervised models), only the rows whose label
is -1, "row" (0-based) first.

examples:
  unlabeled predict model.skops test.csv
  unlabeled predict model.skops test.svm --decision -o predictions.csv
  unlabeled predict ssl.skops train.csv --unlabeled-only
"""
)

_EVALUATE_EPILOG = (
    _COLUMNS
    + """
PUSVC: always reports the unbiased PU zero-one risk from the PU labels of DATA (the label
column or key of the training file unless --label-column is given) and the model's prior pi:

  R = pi * P_P(f(x) <= 0) + P_U(f(x) > 0) - pi * P_P(f(x) > 0)

over the labeled positives P and the unlabeled points U. With --true-labels (a CSV column, an
npz key, or a text file with one label per line; needed for svmlight data) also F1, precision
and recall of the predictions and ROC AUC of the decision values, with the positive class
given by --true-positive-value; --unlabeled-only restricts them to the unlabeled rows.

Other models: semi-supervised, accuracy on the rows of DATA whose label is not -1 (and with
--true-labels on all rows, or the unlabeled ones); multi-instance, bag accuracy; SVM+,
accuracy; clustering, the adjusted Rand index against --true-labels; the autoencoder, its
score (minus the PAE loss).

examples:
  unlabeled evaluate model.skops test.csv
  unlabeled evaluate model.skops train.csv --true-labels y --unlabeled-only
  unlabeled evaluate model.skops test.svm --true-labels test_truth.txt --json
  unlabeled evaluate clusters.skops points.csv --true-labels truth
"""
)


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
        "its fields is a number. With names, predict and evaluate match the columns to the "
        "model's features by name, without, by count",
    )
    g.add_argument("--x-key", default="X", help="npz: name of the feature array (default X)")


def _families_with(test) -> str:
    """The families (their titles, from the registry's declarations) that pass ``test``: who
    an option of one data layout is for."""
    return " and ".join(f.title for f in FAMILIES.values() if test(f))


def _add_label_options(p: argparse.ArgumentParser, fit: bool):
    g = p.add_argument_group("labels")
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
        default=None,
        help=f"{_families_with(lambda f: f.labels == 'pu')}: the label value that marks a "
        "labeled positive; all other values are unlabeled "
        + ("(default 1)" if fit else "(default: as in training)"),
    )
    return g


def _add_bag_option(g, fit: bool) -> None:
    g.add_argument(
        "--bag-column",
        metavar="NAME_OR_INDEX",
        help=f"{_families_with(lambda f: 'groups' in f.keywords)}: the column (npz: key) of "
        "each row's bag id" + ("" if fit else " (default: as in the training file)"),
    )


def _lazy(name: str):
    """A command's function, imported when it runs: the commands load NumPy and scikit-learn,
    which the help must not."""

    def run(args: argparse.Namespace) -> int:
        from . import _commands

        return getattr(_commands, name)(args)

    return run


def build_parser(estimator: str | None = DEFAULT_ESTIMATOR) -> argparse.ArgumentParser:
    """The parser of ``unlabeled`` with its subcommands demo, fit, predict, evaluate and
    sample; each sets ``func``, the function that runs it on the parsed arguments.

    ``estimator`` is the ``--estimator`` whose parameters ``fit`` offers as options (importing
    its subpackage); None builds ``fit`` without them, for the other commands."""

    parser = _Parser(
        prog="unlabeled",
        description="Learning from unlabeled and weakly labeled data with exact kernel solvers: "
        "fit a model (positive-unlabeled, semi-supervised, multi-instance, SVM+, clustering, "
        "an autoencoder) on a data file, save it, predict with it and evaluate it.",
        epilog=_MAIN_EPILOG,
        formatter_class=_Formatter,
    )
    parser.add_argument("--version", action="version", version=f"unlabeled {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    add_demo_parser(sub)
    _add_fit_parser(sub, estimator)
    _add_predict_parser(sub)
    _add_evaluate_parser(sub)
    _add_sample_parser(sub)
    return parser


def _add_fit_parser(sub, estimator: str | None) -> None:
    fit = sub.add_parser(
        "fit",
        help="fit a model (PUSVC by default, --estimator NAME) on a CSV, svmlight or npz file "
        "and save it",
        description="Fit the estimator NAME (default pusvc: the convex double-hinge PU "
        "classifier, solved exactly, on DATA whose labels mark the labeled positives) and save "
        "the fitted model to MODEL. The estimator's parameters are options, listed by "
        "'unlabeled fit --estimator NAME --help'.",
        epilog=_FIT_EPILOG,
        formatter_class=_Formatter,
    )
    fit.add_argument("data", metavar="DATA", help="training data file (CSV, svmlight or npz)")
    fit.add_argument(
        "-o", "--output", metavar="MODEL", required=True, help="model file to write (.skops)"
    )
    fit.add_argument(
        "--estimator",
        metavar="NAME",
        type=_estimator_arg,
        choices=tuple(ESTIMATORS),
        default=DEFAULT_ESTIMATOR,
        help=f"what to fit, one of {', '.join(ESTIMATORS)} (default {DEFAULT_ESTIMATOR})",
    )
    _add_data_options(fit)
    labels = _add_label_options(fit, fit=True)
    labels.add_argument(
        "--ignore-column",
        metavar="NAME_OR_INDEX",
        action="append",
        help="CSV: a column that is neither feature nor label (an id, the true class, ...); "
        "repeatable",
    )
    _add_bag_option(labels, fit=True)
    labels.add_argument(
        "--privileged-columns",
        metavar="A,B,...",
        help=f"{_families_with(lambda f: 'X_star' in f.fit)}: the CSV columns (names or "
        "indices, comma-separated) of the privileged features, used by fit only",
    )
    estimator = None if estimator is None else canonical(estimator)
    if estimator is not None and estimator in ESTIMATORS:
        from ._estimators import estimator_class
        from ._options import add_parameter_options

        entry = ESTIMATORS[estimator]
        group = fit.add_argument_group(
            f"{entry.name} parameters (--estimator {estimator}; generated from its declaration)"
        )
        add_parameter_options(group, estimator_class(estimator))
    fit.set_defaults(options_for=estimator)
    _add_search_options(fit.add_argument_group("parameter search (pusvc)"))
    _add_common(fit)
    fit.set_defaults(func=_lazy("cmd_fit"))


def _add_search_options(srch) -> None:
    """``--search`` and its grid, for ``fit`` of PUSVC."""
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
        description="Predict every row (every bag, for multi-instance models) of DATA with the "
        "model in MODEL.",
        epilog=_PREDICT_EPILOG,
    )
    pred.add_argument(
        "-o", "--output", metavar="OUT.csv", help="write the predictions here (default: stdout)"
    )
    pred.add_argument(
        "--decision", action="store_true", help="add the decision values f(x) as a column"
    )
    pred.add_argument(
        "--proba",
        action="store_true",
        help="add the class probabilities (predict_proba), one column per class",
    )
    pred.add_argument(
        "--unlabeled-only",
        action="store_true",
        help="semi-supervised models: only the rows whose label is -1 (DATA with the label column)",
    )
    _add_data_options(pred)
    g = pred.add_argument_group("labels and bags")
    g.add_argument(
        "--label-column",
        metavar="NAME_OR_INDEX",
        help="with --unlabeled-only: the label column (default: as in the training file)",
    )
    _add_bag_option(g, fit=False)
    _add_common(pred)
    pred.set_defaults(func=_lazy("cmd_predict"))


def _add_evaluate_parser(sub) -> None:
    ev = _add_model_command(
        sub,
        "evaluate",
        "data file (CSV, svmlight or npz) with labels",
        help="PU risk (PUSVC), accuracy, bag accuracy or adjusted Rand index of a saved model",
        description="Evaluate the model in MODEL on DATA with the measure of its family: for "
        "PUSVC the PU risk from DATA's PU labels, and with --true-labels the usual "
        "classification metrics.",
        epilog=_EVALUATE_EPILOG,
    )
    _add_data_options(ev)
    labels = _add_label_options(ev, fit=False)
    _add_bag_option(labels, fit=False)
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
        help="PU: the true label of the positive class (default 1)",
    )
    t.add_argument(
        "--unlabeled-only",
        action="store_true",
        help="compute the metrics of the true labels on the unlabeled rows only",
    )
    ev.add_argument("--json", action="store_true", help="print the results as JSON")
    _add_common(ev)
    ev.set_defaults(func=_lazy("cmd_evaluate"))


def _add_sample_parser(sub) -> None:
    sp = sub.add_parser(
        "sample",
        help="draw new points from a saved autoencoder",
        description="Draw N points from the autoencoder in MODEL (decoded uniform latent "
        "codes) and write them as CSV, with the training file's feature names when it had a "
        "header line.",
        epilog="The points and their CSV text are held in memory, about 58 bytes a value: an -n\n"
        "over the memory budget (unlabeled.set_config(max_dense_bytes=...) or\n"
        "UNLABELED_MAX_DENSE_BYTES, 4 GiB by default) is refused before any point is drawn.\n\n"
        "examples:\n  unlabeled sample pae.skops -n 100 -o samples.csv\n",
        formatter_class=_Formatter,
    )
    sp.add_argument("model", metavar="MODEL", help="model file written by 'unlabeled fit'")
    sp.add_argument(
        "-n", "--n-samples", type=_int_in(1), default=1, help="how many points (default 1)"
    )
    sp.add_argument(
        "-o", "--output", metavar="OUT.csv", help="write the points here (default: stdout)"
    )
    sp.add_argument(
        "--random-state",
        type=_int_in(0, 2**32 - 1),
        default=None,
        help="seed of the latent noise (default: fresh randomness)",
    )
    _add_common(sp)
    sp.set_defaults(func=_lazy("cmd_sample"))
