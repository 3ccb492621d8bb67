"""PU learning with defaults, no tuning, as a new user runs it: PUSVC(prior="auto") against
pulearn, a linear nnPU and a plain SVC, and against PUSVC told the truth.

    python benchmarks/bench_pu_defaults.py                     # the 12 UCI sets
    python benchmarks/bench_pu_defaults.py --adult-file adult.svm --shuttle-file shuttle_std.svm
    python benchmarks/bench_pu_defaults.py --quick             # smoke: 2 sets, rate 0.2, 1 seed

Data: the 12 UCI sets of ../shared/data/uci-small (unlabeled.datasets.load_uci_small) and, when
their files are given, two large public tables: --adult-file (adult_from_wheel.py: UCI Adult,
48,842 rows, one-hot; positive = label 1, ">50K", 24%) and --shuttle-file
(shuttle_from_mlbench.py: 43,500 rows, 9 standardised features; positive = class 4, "High",
15%, against the other six). --sets chooses among them (UCI names, adult, shuttle).

Labeling: for each rate of --rates (0.01, 0.05, 0.2) and seed 0 .. --seeds - 1 (5; on the
large tables only the first --large-seeds, 3), max(1, round(rate * positives)) positives drawn
at random are labeled (unlabeled.datasets.make_pu_labels), everything else is unlabeled. Each
method is fitted on (X, s) and predicts the unlabeled part, scored against the true labels.
--large-max-rows keeps a random subset of a large table's rows (seed 0; default all).

Methods (--methods chooses a subset):
  PUSVC-defaults    unlabeled.PUSVC(prior="auto", random_state=seed); nothing else. Its prior_
                    (and prior_interval_ where the estimator has one) against the true share
                    of positives among the unlabeled points.
  PUSVC-zero        PUSVC(prior="auto", threshold="zero", random_state=seed): the defaults
                    with the paper's decision rule f > 0, the effect of the threshold rule.
  PUSVC-linear      PUSVC(prior="auto", kernel="linear", random_state=seed): the defaults
                    with the linear kernel.
  PUSVC-hindsight   the ceiling: PUSVC with the TRUE prior among the unlabeled points and the
                    lam of {1e-4, 1e-3, 1e-2, 1e-1} with the best F1, chosen with the true
                    labels (not available to a user; a prior estimated too high may still
                    score a higher F1); its CPU time is that of all the fits.
  pulearn-bagging   pulearn.BaggingPuClassifier(SVC(), n_estimators=15, max_samples=<number of
                    labeled positives>, random_state=seed): each bag is the labeled positives
                    and as many unlabeled points drawn with replacement; majority vote.
  pulearn-elkanoto  pulearn.ElkanotoPuClassifier(SVC(probability=True, random_state=seed),
                    hold_out_ratio=0.1, random_state=seed) on dense X (it densifies anyway);
                    it fails when the 10% hold-out holds no labeled positive.
  nnPU-linear       non-negative PU risk (Kiryo et al., NeurIPS 2017) with f(x) = w'x + b, the
                    sigmoid loss and the TRUE prior (which favours it), full-batch Adam (lr
                    0.01, 1000 steps, weight decay 1e-4), dense features standardised; positive
                    where f > 0. Written here in NumPy (nnpu_linear).
  naive             sklearn.svm.SVC() trained on labeled (1) against unlabeled (0).
A fit that raises is recorded as failed (its error's first line) and counted in the means as
predicting no positive (F1 0).

Metrics per fit: F1 of the positive class and accuracy on the unlabeled part, the share
predicted positive, the true prior among the unlabeled points, CPU seconds (process time
around fit and predict: all the process's threads). Every fit is appended as one JSON line to
<out>/<name>_runs.jsonl as it ends; --resume keeps that file and skips the fits already in it
(else it is started afresh); --report writes the page from it alone, with the labelings that
every method has (runs split over processes, merged). Means are over the sets of each set's
mean over its seeds.
Writes <out>/<name>.md (bench_pu_defaults.md): per rate and over all rates, each method's mean
F1, accuracy, share predicted positive, failures, single-class predictions and CPU time;
PUSVC-defaults' prior error and interval coverage; F1 per set; and whether PUSVC-defaults
reaches max(best pulearn, nnPU) and hindsight - 0.05 in mean F1.
"""

from __future__ import annotations

import json
import sys
import time
import traceback
import warnings
from collections import defaultdict

import _harness as bench
import numpy as np

METHODS = (
    "PUSVC-defaults",
    "PUSVC-hindsight",
    "PUSVC-zero",
    "PUSVC-linear",
    "pulearn-bagging",
    "pulearn-elkanoto",
    "nnPU-linear",
    "naive",
)
BASELINES = ("pulearn-bagging", "pulearn-elkanoto", "nnPU-linear")  # what a user runs today
LAMS = (1e-4, 1e-3, 1e-2, 1e-1)
LARGE = {"adult": 1, "shuttle": 4}  # the file tables and their positive class
TITLE = "PU learning with defaults, no tuning"


# ---------------------------------------------------------------------- nnPU
def nnpu_linear(X, s, prior, *, steps=1000, lr=1e-2, weight_decay=1e-4, beta=0.0):
    """Fit the non-negative PU risk of Kiryo et al. (2017) with a linear model; return
    ``decision(Z)``, f(Z) = Z w + b.

    Risk with the sigmoid loss l(z) = 1 / (1 + exp(z)), P the labeled and U the unlabeled
    points, pi the prior among U: pi R_p^+ + max(0, R_u^- - pi R_p^-), where R_p^+ = mean_P
    l(f), R_p^- = mean_P l(-f), R_u^- = mean_U l(-f). Full-batch Adam; the nnPU rule: while
    R_u^- - pi R_p^- >= -beta step on the unbiased risk, else on -(R_u^- - pi R_p^-), which
    pushes the negative risk back up instead of fitting P further. L2 weight decay on w.
    X may be scipy sparse (only X @ w and X.T @ g are used); dense X is standardised with
    the statistics of all its rows, as a user would before a linear model."""
    from scipy.special import expit

    dense = isinstance(X, np.ndarray)
    if dense:
        mu, sd = X.mean(0), X.std(0)
        sd[sd == 0] = 1.0
        X = (X - mu) / sd
    P, U = X[s == 1], X[s == 0]
    n_p, n_u = P.shape[0], U.shape[0]
    w, b = np.zeros(X.shape[1]), 0.0
    m, v = np.zeros(X.shape[1] + 1), np.zeros(X.shape[1] + 1)
    b1, b2, eps = 0.9, 0.999, 1e-8
    for t in range(1, steps + 1):
        sp, su = expit(P @ w + b), expit(U @ w + b)  # l(-f) = sigmoid(f)
        dp, du = sp * (1 - sp), su * (1 - su)  # d l(-f)/df = -d l(f)/df
        if np.mean(su) - prior * np.mean(sp) >= -beta:
            gp, gu = -2 * prior * dp / n_p, du / n_u  # d/df of pi R_p^+ + R_u^- - pi R_p^-
        else:
            gp, gu = prior * dp / n_p, -du / n_u  # d/df of -(R_u^- - pi R_p^-)
        g = np.append(P.T @ gp + U.T @ gu + weight_decay * w, gp.sum() + gu.sum())
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        step = lr * (m / (1 - b1**t)) / (np.sqrt(v / (1 - b2**t)) + eps)
        w, b = w - step[:-1], b - step[-1]

    def decision(Z):
        return ((Z - mu) / sd if dense else Z) @ w + b

    return decision


def nnpu_toy_check(seed: int = 0) -> str:
    """nnPU-linear on two Gaussians (2-D, means +-1 on both axes, unit variance, 40% positive,
    20% of the positives labeled): its F1 on the unlabeled part against that of the Bayes
    rule for the unlabeled points (x1 + x2 > log((1 - pi) / pi) / 2, pi their prior)."""
    from sklearn.metrics import f1_score

    from unlabeled.datasets import make_pu_labels

    rng = np.random.default_rng(seed)
    y = (rng.random(2000) < 0.4).astype(int)
    X = rng.normal(size=(2000, 2)) + np.where(y[:, None] == 1, 1.0, -1.0)
    s = make_pu_labels(y, 0.2, random_state=seed)
    unl = s == 0
    pi = float(y[unl].mean())
    f1 = f1_score(y[unl], nnpu_linear(X, s, pi)(X[unl]) > 0)
    f1_bayes = f1_score(y[unl], X[unl].sum(1) > np.log((1 - pi) / pi) / 2)
    return f"F1 {f1:.3f} on the unlabeled part (the Bayes rule: {f1_bayes:.3f})"


# ---------------------------------------------------------------------- the methods
def fit_pusvc_defaults(X, s, seed, truth, y_unl, lams, **params):
    from unlabeled import PUSVC

    est = PUSVC(prior="auto", random_state=seed, **params).fit(X, s)
    pred = est.predict(X[s == 0]) == 1
    interval = getattr(est, "prior_interval_", None)
    extra = {"prior_est": float(est.prior_), "prior_err": abs(float(est.prior_) - truth)}
    if interval is not None:
        lo, hi = (float(v) for v in interval)
        extra.update(interval=[lo, hi], covered=bool(lo <= truth <= hi))
    else:
        extra.update(interval=None, covered=None)
    return pred, extra


def fit_pusvc_hindsight(X, s, seed, truth, y_unl, lams):
    from sklearn.metrics import f1_score

    from unlabeled import PUSVC

    best = None
    for lam in lams:  # chosen with the true labels: a ceiling, not a method
        pred = PUSVC(prior=truth, lam=lam, random_state=seed).fit(X, s).predict(X[s == 0]) == 1
        f1 = f1_score(y_unl, pred, zero_division=0)
        if best is None or f1 > best[0]:
            best = (f1, pred, lam)
    return best[1], {"lam": best[2]}


def fit_bagging(X, s, seed, truth, y_unl, lams):
    from pulearn import BaggingPuClassifier
    from sklearn.svm import SVC

    # an int max_samples is the number of unlabeled points per bag; all positives join each
    clf = BaggingPuClassifier(
        SVC(), n_estimators=15, max_samples=int(s.sum()), random_state=seed
    ).fit(X, s)
    return clf.predict(X[s == 0]) == 1, {}


def fit_elkanoto(X, s, seed, truth, y_unl, lams):
    from pulearn import ElkanotoPuClassifier
    from sklearn.svm import SVC

    X = X.toarray() if hasattr(X, "toarray") else X  # its fit calls np.asarray(X)
    clf = ElkanotoPuClassifier(
        SVC(probability=True, random_state=seed), hold_out_ratio=0.1, random_state=seed
    ).fit(X, s)
    return clf.predict(X[s == 0]) == 1, {}


def fit_nnpu(X, s, seed, truth, y_unl, lams):
    return nnpu_linear(X, s, truth)(X[s == 0]) > 0, {}


def fit_naive(X, s, seed, truth, y_unl, lams):
    from sklearn.svm import SVC

    return SVC().fit(X, s).predict(X[s == 0]) == 1, {}


FITS = {
    "PUSVC-defaults": fit_pusvc_defaults,
    "PUSVC-hindsight": fit_pusvc_hindsight,
    "PUSVC-zero": lambda *a: fit_pusvc_defaults(*a, threshold="zero"),
    "PUSVC-linear": lambda *a: fit_pusvc_defaults(*a, kernel="linear"),
    "pulearn-bagging": fit_bagging,
    "pulearn-elkanoto": fit_elkanoto,
    "nnPU-linear": fit_nnpu,
    "naive": fit_naive,
}


def one_fit(method, X, y, s, seed, lams) -> dict:
    """Fit and score one method on one labeling: the JSON record (a failure predicts no
    positive)."""
    from sklearn.metrics import accuracy_score, f1_score

    unl = s == 0
    y_unl = y[unl]
    truth = float(y_unl.mean())
    rec = {"status": "ok", "error": None}
    t0, c0 = time.perf_counter(), time.process_time()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            pred, extra = FITS[method](X, s, seed, truth, y_unl, lams)
        rec.update(extra)
    except Exception as exc:  # noqa: BLE001 - recorded and counted as a failure
        pred = np.zeros(y_unl.size, dtype=bool)
        first = traceback.format_exception_only(type(exc), exc)[-1].strip().splitlines()[0]
        rec.update(status="failed", error=first[:200])
    rec.update(cpu=time.process_time() - c0, wall=time.perf_counter() - t0)
    pred = np.asarray(pred, dtype=bool)
    rec.update(
        prior_true=truth,
        f1=float(f1_score(y_unl, pred, zero_division=0)),
        acc=float(accuracy_score(y_unl, pred)),
        pos_share=float(pred.mean()),
        single_class=bool(rec["status"] == "ok" and (pred.all() or not pred.any())),
    )
    return rec


# ---------------------------------------------------------------------- the data
def load_sets(args) -> dict | None:
    """{name: (X, y in {0, 1})}, or None when the run was ended for want of shared data."""
    from unlabeled.datasets import load_file, load_uci_small, make_adult_like

    uci = [n for n in args.sets if n not in LARGE]
    sets = {}
    if args.quick:
        try:
            sets = {n: load_uci_small(n) for n in uci}
        except FileNotFoundError as exc:
            bench.skip("the UCI sets", f"the shared data are not here: {exc}")
            X, y = make_adult_like(600, random_state=0)
            return {"adult-like": (X, y)}
    elif uci:
        sets = bench.shared_data(
            args, args.name, TITLE, lambda: {n: load_uci_small(n) for n in uci}
        )
        if sets is None:
            return None
    for name, positive in LARGE.items():
        if name not in args.sets:
            continue
        path = getattr(args, f"{name}_file")
        if path is None:
            raise SystemExit(f"--sets {name} needs --{name}-file (see the help)")
        X, y = load_file(path)
        if hasattr(X, "indices") and X.nnz < 2**31:
            # scikit-learn's svmlight reader gives int64 indices, which its SVC refuses
            X.indices, X.indptr = X.indices.astype(np.int32), X.indptr.astype(np.int32)
        y = (y == positive).astype(np.int64)
        if args.large_max_rows and args.large_max_rows < len(y):
            keep = np.sort(np.random.default_rng(0).choice(len(y), args.large_max_rows, False))
            X, y = X[keep], y[keep]
        sets[name] = (X, y)
    return sets


# ---------------------------------------------------------------------- the run
def csv(kind):
    return lambda text: [kind(v) for v in text.split(",") if v]


def main():
    from unlabeled.datasets import UCI_SMALL_NAMES, make_pu_labels

    ap = bench.parser(
        __doc__,
        quick="a smoke run: heart and house (or an Adult-like table without the shared "
        "data), rate 0.2, seed 0, hindsight over 2 lams",
        name="bench_pu_defaults",
    )
    ap.add_argument(
        "--sets",
        type=csv(str),
        help="comma-separated UCI names, adult, shuttle (default: the 12 UCI sets and "
        "the tables whose files are given)",
    )
    ap.add_argument(
        "--rates",
        type=csv(float),
        default=[0.01, 0.05, 0.2],
        help="comma-separated (0.01,0.05,0.2)",
    )
    ap.add_argument("--seeds", type=int, default=5, help="labelings per set and rate (5)")
    ap.add_argument(
        "--methods",
        type=csv(str),
        default=list(METHODS),
        help="comma-separated subset of " + ",".join(METHODS),
    )
    ap.add_argument("--adult-file", help="adult.svm from adult_from_wheel.py")
    ap.add_argument("--shuttle-file", help="shuttle_std.svm from shuttle_from_mlbench.py")
    ap.add_argument("--large-seeds", type=int, default=3, help="seeds on adult, shuttle (3)")
    ap.add_argument("--large-max-rows", type=int, help="random rows kept of adult, shuttle")
    ap.add_argument("--resume", action="store_true", help="skip the fits already in the runs")
    ap.add_argument(
        "--report",
        action="store_true",
        help="write the page from the fits already in the runs file, fitting nothing (a "
        "labeling that lacks a method is left out, for every method)",
    )
    args = bench.parse(ap)
    lams = LAMS
    if args.quick:
        args.sets, args.rates, args.seeds, lams = ["heart", "house"], [0.2], 1, LAMS[2:]
    elif args.sets is None:
        args.sets = list(UCI_SMALL_NAMES)
        args.sets += [n for n in LARGE if getattr(args, f"{n}_file")]
    unknown = set(args.sets) - set(UCI_SMALL_NAMES) - set(LARGE)
    unknown |= set(args.methods) - set(METHODS)
    if unknown:
        ap.error(f"unknown sets or methods: {', '.join(sorted(unknown))}")
    sets = load_sets(args)
    if sets is None:
        return

    runs = bench.output(args, args.name, "_runs.jsonl")
    done = {}
    if (args.resume or args.report) and runs.exists():
        for line in runs.read_text().splitlines():
            rec = json.loads(line)
            done[key(rec)] = rec
    elif runs.exists():
        runs.unlink()
    todo = [
        (name, rate, seed, method)
        for name, (X, y) in sets.items()
        for rate in args.rates
        for seed in range(min(args.seeds, args.large_seeds) if name in LARGE else args.seeds)
        for method in args.methods
    ]
    if args.report:  # only the labelings that every method has
        have = defaultdict(set)
        for name, rate, seed, method in todo:
            if (name, int(len(sets[name][1])), rate, seed, method) in done:
                have[name, rate, seed].add(method)
        todo = [t for t in todo if have[t[:3]] == set(args.methods)]
    from tqdm import tqdm

    records = []
    with open(runs, "a") as log, tqdm(todo, unit="fit", file=sys.stderr) as bar:
        for name, rate, seed, method in bar:
            X, y = sets[name]
            head = {"set": name, "n": int(len(y)), "rate": rate, "seed": seed, "method": method}
            if key(head) in done:
                records.append(done[key(head)])
                continue
            bar.set_description(f"{name} {rate:g} {seed} {method}")
            s = make_pu_labels(y, rate, random_state=seed)
            rec = {**head, "n_labeled": int(s.sum()), **one_fit(method, X, y, s, seed, lams)}
            log.write(json.dumps(rec) + "\n")
            log.flush()  # a run stopped midway keeps its fits for --resume
            records.append(rec)
    bench.written(runs)
    lines = report(args, sets, records, lams, runs)
    bench.write_markdown(args, args.name, lines)


def key(rec) -> tuple:
    return rec["set"], rec["n"], rec["rate"], rec["seed"], rec["method"]


# ---------------------------------------------------------------------- the report
def set_means(records, field, **where) -> dict:
    """{set: mean of ``field`` over its records that match ``where``}."""
    by = defaultdict(list)
    for r in records:
        if all(r[k] == v for k, v in where.items()) and r.get(field) is not None:
            by[r["set"]].append(r[field])
    return {name: float(np.mean(v)) for name, v in by.items()}


def mean_over_sets(records, field, **where) -> float:
    means = set_means(records, field, **where)
    return float(np.mean(list(means.values()))) if means else float("nan")


def summary_table(records, methods, rates) -> list[str]:
    """Per method: the means over sets (of each set's mean over seeds), then over ``rates``."""

    def over(field, m):
        return float(np.mean([mean_over_sets(records, field, method=m, rate=r) for r in rates]))

    lines = [
        "| method | F1 | accuracy | share predicted positive | failed fits | single-class "
        "fits | CPU s per fit |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for m in methods:
        mine = [r for r in records if r["method"] == m and r["rate"] in rates]
        if not mine:
            continue
        failed = sum(r["status"] != "ok" for r in mine)
        single = sum(r["single_class"] for r in mine)
        lines.append(
            f"| {m} | {over('f1', m):.3f} | {over('acc', m):.3f} | {over('pos_share', m):.3f} "
            f"| {failed}/{len(mine)} | {single} | {over('cpu', m):.2f} |"
        )
    return lines


def target_line(records, methods, rates, what) -> str:
    """PUSVC-defaults' mean F1 against max(best pulearn, nnPU) and against hindsight - 0.05."""

    def f1(m):
        return float(np.mean([mean_over_sets(records, "f1", method=m, rate=r) for r in rates]))

    if "PUSVC-defaults" not in methods:
        return f"- {what}: PUSVC-defaults not run."
    ours = f1("PUSVC-defaults")
    parts = [f"- {what}: PUSVC-defaults {ours:.3f}"]
    base = {m: f1(m) for m in BASELINES if m in methods}
    if base:
        best = max(base, key=base.get)
        met = "**met**" if ours >= base[best] else "**missed**"
        parts.append(f"against the best baseline ({best}) {base[best]:.3f}: {met}")
    if "PUSVC-hindsight" in methods:
        hind = f1("PUSVC-hindsight")
        met = "**met**" if ours >= hind - 0.05 else "**missed**"
        parts.append(f"against hindsight - 0.05 = {hind - 0.05:.3f}: {met}")
    return "; ".join(parts) + "."


def report(args, sets, records, lams, runs) -> list[str]:
    from importlib.metadata import PackageNotFoundError, version

    methods = [m for m in METHODS if m in args.methods]
    rates = args.rates
    try:
        pulearn = f"pulearn {version('pulearn')}"
    except PackageNotFoundError:
        pulearn = "pulearn not installed (its methods fail)"
    shapes = ", ".join(
        f"{n} ({X.shape[0]:,} x {X.shape[1]}, {100 * y.mean():.0f}% positive)"
        for n, (X, y) in sets.items()
    )
    seeds = f"seeds 0-{args.seeds - 1}" if args.seeds > 1 else "seed 0"
    if any(n in LARGE for n in sets):
        seeds += f" ({min(args.seeds, args.large_seeds)} on adult and shuttle)"
    lines = [
        *bench.header(TITLE),
        f"{pulearn}. Sets: {shapes}. Labeling rates {', '.join(f'{r:g}' for r in rates)} "
        f"of the positives, {seeds}; everything else unlabeled, and every score on the "
        "unlabeled part against the true labels. Methods as in the script's docstring "
        f"(PUSVC-hindsight: the true prior and the best lam of {{{', '.join(map(str, lams))}}} "
        "chosen with the true labels, a ceiling; nnPU-linear is given the true prior). "
        "Means: over the sets of each set's mean over its seeds (a failed fit counts as "
        "predicting no positive); failed and single-class fits (every unlabeled point "
        "predicted in one class) are counts of fits; CPU: process time of fit and predict.",
        "",
        f"nnPU-linear on a 2-Gaussian toy problem: {nnpu_toy_check()}.",
        "",
        "## Targets",
        "",
        "PUSVC-defaults' mean F1 against max(best of pulearn-bagging, pulearn-elkanoto, "
        "nnPU-linear) and against PUSVC-hindsight - 0.05:",
        "",
    ]
    lines += [target_line(records, methods, [r], f"rate {r:g}") for r in rates]
    lines += [target_line(records, methods, rates, "all rates (mean of the rates)"), ""]
    for title, rs in [*((f"rate {r:g}", [r]) for r in rates), ("all rates", rates)]:
        lines += [f"## Summary, {title}", "", *summary_table(records, methods, rs), ""]

    if "PUSVC-defaults" in methods:
        lines += [
            "## PUSVC-defaults' prior",
            "",
            "prior_ against the true share of positives among the unlabeled points; "
            "coverage: fits whose prior_interval_ holds the truth (where it has one).",
            "",
            "| rate | MAE | bias | interval coverage |",
            "|---|---:|---:|---:|",
        ]
        for r in rates:
            mine = [
                x
                for x in records
                if x["method"] == "PUSVC-defaults" and x["rate"] == r and x["status"] == "ok"
            ]
            for x in mine:
                x["prior_bias"] = x["prior_est"] - x["prior_true"]
            cov = [x["covered"] for x in mine if x.get("covered") is not None]
            cover = f"{sum(cov)}/{len(cov)}" if cov else "no interval"
            lines.append(
                f"| {r:g} | {mean_over_sets(mine, 'prior_err'):.3f} | "
                f"{mean_over_sets(mine, 'prior_bias'):+.3f} | {cover} |"
            )
        lines.append("")

    for r in rates:
        lines += [
            f"## F1 per set, rate {r:g}",
            "",
            "| set | prior among U | " + " | ".join(methods) + " |",
            "|---|---:|" + "---:|" * len(methods),
        ]
        for name in sets:
            truth = set_means(records, "prior_true", rate=r).get(name, float("nan"))
            cells = []
            for m in methods:
                mine = [x for x in records if (x["set"], x["rate"], x["method"]) == (name, r, m)]
                failed = sum(x["status"] != "ok" for x in mine)
                cell = f"{np.mean([x['f1'] for x in mine]):.3f}" if mine else ""
                cells.append(cell + (f" ({failed} failed)" if failed else ""))
            lines.append(f"| {name} | {truth:.3f} | " + " | ".join(cells) + " |")
        lines.append("")

    failed = [x for x in records if x["status"] != "ok"]
    if failed:
        lines += ["## Failed fits", ""]
        for m in methods:
            mine = [x for x in failed if x["method"] == m]
            if mine:
                errors = defaultdict(list)
                for x in mine:
                    errors[x["error"]].append(f"{x['set']} {x['rate']:g}/{x['seed']}")
                shown = [f"`{e}` ({len(at)}: {', '.join(at[:4])})" for e, at in errors.items()]
                lines.append(f"- **{m}** ({len(mine)}): " + "; ".join(shown))
        lines.append("")
    lines.append(f"Every fit: `{runs}`.")
    return lines


if __name__ == "__main__":
    main()
