"""Evaluation from PU data alone on the PU suite: the corrected ROC AUC and average precision of
unlabeled.metrics, computed from PU labels and the prior, against the same metrics computed
with the true labels (issue 55: within 0.03).

    python benchmarks/bench_pu_metrics.py                       # both halves, 3 seeds
    python benchmarks/bench_pu_metrics.py --half tuning --seeds 1 --max-rows 5000
    python benchmarks/bench_pu_metrics.py --quick    # smoke: 2 small tables, rate 0.2, seed 0

Tables: the 26 of benchmarks/_harness/pu_tables.py in its two halves (--half, --tables;
Adult and Shuttle need their files: --adult-file, --shuttle-file or UNLABELED_ADULT /
UNLABELED_SHUTTLE; a table that cannot be loaded is skipped with the reason), at most
--max-rows rows each (pu_tables' stratified subset, seed 0; default 10,000).

Protocol, per table, rate of --rates (0.01, 0.05, 0.2) and seed 0 .. --seeds - 1:
the features standardised; make_pu_labels(y, rate, random_state=1000 + seed) labels that share
of the positives (at least one), every other row unlabeled. The scores are out-of-fold: a
--model classifier of s (labeled against unlabeled: the ranking of P(y = 1 | x) under SCAR),
5 folds stratified on s (StratifiedKFold, shuffled, random_state=seed), decision_function on
the held-out fold (as many folds as labeled positives when fewer than 5; a labeling with
one labeled positive is skipped and listed); so no row is scored by a model that saw its
label. Then, on all rows:
  estimate   pu_roc_auc_score(s, f, pi) and pu_average_precision_score(s, f, pi), with pi the
             true share of positives among the unlabeled rows (what PUSVC's prior stands for);
  truth      roc_auc_score and average_precision_score of the unlabeled rows' true classes
             against their scores (the population whose share of positives pi is);
  naive      roc_auc_score(s, f), average_precision_score(s, f): labeled against unlabeled as
             if the unlabeled were negatives, what a user without the correction reports.
Errors are estimate - truth. A table's error at a rate is the mean over its seeds of |error|;
the half's summary gives the mean, median and largest of those over its tables, the share of
tables within 0.03, and the mean number of labeled positives (the estimates' sampling error
grows as 1 / sqrt of it: with a handful of labeled positives no estimate can be within 0.03).

--models: "logreg" (LogisticRegression(max_iter=1000), the default) and "hgb"
(HistGradientBoostingClassifier(max_iter=100, random_state=seed)); both if named.

Writes <out>/bench_pu_metrics.md (bench_pu_metrics-quick.md for --quick).
"""

from __future__ import annotations

import time
import warnings

import _harness as bench
import numpy as np
from _harness import pu_tables

TITLE = "Corrected AUC and average precision from PU data against the true labels"
NAME = "bench_pu_metrics"
GOAL = 0.03


def _model(name, seed):
    if name == "logreg":
        from sklearn.linear_model import LogisticRegression

        return LogisticRegression(max_iter=1000)
    from sklearn.ensemble import HistGradientBoostingClassifier

    return HistGradientBoostingClassifier(max_iter=100, random_state=seed)


def out_of_fold(X, s, model, seed):
    """Held-out decision values of a classifier of s, 5 folds stratified on s."""
    from sklearn.model_selection import StratifiedKFold

    f = np.empty(s.size)
    n_splits = int(min(5, s.sum()))
    if n_splits < 2:  # one labeled positive: no fold can both train on one and score one
        return None
    folds = StratifiedKFold(n_splits, shuffle=True, random_state=seed).split(X, s)
    for train, test in folds:
        clf = _model(model, seed).fit(X[train], s[train])
        f[test] = clf.decision_function(X[test])
    return f


def one_run(X, y, rate, seed, model):
    from sklearn.metrics import average_precision_score, roc_auc_score

    from unlabeled.datasets import make_pu_labels
    from unlabeled.metrics import pu_average_precision_score, pu_roc_auc_score

    s = make_pu_labels(y, rate, random_state=1000 + seed).astype(int)
    t0 = time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        f = out_of_fold(X, s, model, seed)
    if f is None:
        return None
    u = s == 0
    pi = float(y[u].mean())
    return {
        "n_labeled": int(s.sum()),
        "pi": pi,
        "auc": pu_roc_auc_score(s, f, pi),
        "auc_true": roc_auc_score(y[u], f[u]),
        "auc_naive": roc_auc_score(s, f),
        "ap": pu_average_precision_score(s, f, pi),
        "ap_true": average_precision_score(y[u], f[u]),
        "ap_naive": average_precision_score(s, f),
        "cpu": time.process_time() - t0,
    }


def _load_all(args):
    tables = args.tables or [
        t
        for t in (*pu_tables.TUNING, *pu_tables.CONFIRMATION)
        if args.half in ("both", pu_tables.half(t))
    ]
    data = {}
    for name in tables:
        try:
            X, y = pu_tables.load(name, args.max_rows, args.adult_file, args.shuttle_file)
        except (FileNotFoundError, OSError) as exc:
            bench.skip(name, str(exc).splitlines()[0])
            continue
        sd = X.std(0)
        data[name] = ((X - X.mean(0)) / np.where(sd > 0, sd, 1.0), y)
    return data


def run(args, data, skipped):
    rows = []
    for name, (X, y) in data.items():
        for model in args.models:
            for rate in args.rates:
                for seed in range(args.seeds):
                    r = one_run(X, y, rate, seed, model)
                    if r is None:
                        skipped.append(f"{name} at rate {rate:g}, seed {seed} (1 labeled)")
                        bench.skip(skipped[-1], "one labeled positive: no held-out scores")
                        continue
                    r.update(table=name, half=pu_tables.half(name), model=model, rate=rate)
                    r.update(seed=seed, n=int(y.size))
                    rows.append(r)
                    print(
                        f"{name:18s} {model:6s} {rate:<5g} {seed} p={r['n_labeled']:<5d} "
                        f"AUC {r['auc']:.3f}/{r['auc_true']:.3f} "
                        f"AP {r['ap']:.3f}/{r['ap_true']:.3f}",
                        flush=True,
                    )
    return rows


def _per_table(rows, metric, what="err"):
    """{table: mean over seeds of |estimate - truth|} (what="err") or of |naive - truth|."""
    out: dict[str, list[float]] = {}
    for r in rows:
        key = metric if what == "err" else f"{metric}_naive"
        out.setdefault(r["table"], []).append(abs(r[key] - r[f"{metric}_true"]))
    return {t: float(np.mean(v)) for t, v in out.items()}


def summary(rows, models, rates, halves):
    lines = [
        "| half | model | rate | tables | mean labeled | metric | mean abs. error | median "
        f"| largest (table) | within {GOAL} | naive mean abs. error |",
        "|---|---|---|---:|---:|---|---:|---:|---|---:|---:|",
    ]
    for half in halves:
        for model in models:
            for rate in rates:
                sel = [
                    r
                    for r in rows
                    if r["half"] == half and r["model"] == model and r["rate"] == rate
                ]
                if not sel:
                    continue
                n_lab = np.mean([r["n_labeled"] for r in sel])
                for metric in ("auc", "ap"):
                    err = _per_table(sel, metric)
                    naive = _per_table(sel, metric, "naive")
                    worst = max(err, key=err.get)
                    vals = np.array(list(err.values()))
                    lines.append(
                        f"| {half} | {model} | {rate:g} | {len(err)} | {n_lab:.0f} | "
                        f"{metric.upper()} | {vals.mean():.4f} | {np.median(vals):.4f} | "
                        f"{err[worst]:.4f} ({worst}) | {np.sum(vals <= GOAL)}/{vals.size} | "
                        f"{np.mean(list(naive.values())):.4f} |"
                    )
    return lines


def per_table(rows):
    lines = [
        "| table | half | model | rate | labeled | prior | AUC true | AUC est. | AUC naive "
        "| AP true | AP est. | AP naive |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    keys = sorted({(r["half"], r["table"], r["model"], r["rate"]) for r in rows})
    for half, table, model, rate in keys:
        sel = [
            r
            for r in rows
            if (r["half"], r["table"], r["model"], r["rate"]) == (half, table, model, rate)
        ]

        def m(k, sel=sel):
            return f"{np.mean([r[k] for r in sel]):.3f}"

        n_lab = np.mean([r["n_labeled"] for r in sel])
        lines.append(
            f"| {table} | {half} | {model} | {rate:g} | {n_lab:.0f} | {m('pi')} "
            f"| {m('auc_true')} | {m('auc')} | {m('auc_naive')} "
            f"| {m('ap_true')} | {m('ap')} | {m('ap_naive')} |"
        )
    return lines


def report(args, rows, skipped):
    halves = [h for h in ("tuning", "confirmation") if any(r["half"] == h for r in rows)]
    cpu = sum(r["cpu"] for r in rows)
    lines = [
        *bench.header(TITLE, f"{len(rows)} labelings, {cpu:.0f} s of CPU for the scores"),
        "The estimates use the true prior among the unlabeled rows: this measures the metrics, "
        "not a prior estimator (with an estimated prior, `prior_sensitivity` gives the range "
        "the prior's interval allows). Per table: mean over seeds of |estimate - truth|; "
        "'naive' is the metric of labeled against unlabeled, uncorrected. The protocol is the "
        "script's docstring (`--help`).",
        "",
        "## Summary",
        "",
        *summary(rows, args.models, args.rates, halves),
        "",
    ]
    if skipped:
        lines += [
            "Skipped (one labeled positive: 5-fold held-out scores need two): "
            + "; ".join(skipped)
            + ".",
            "",
        ]
    lines += ["## Per table (means over seeds)", "", *per_table(rows), ""]
    bench.write_markdown(args, NAME, lines)


def main(argv=None):
    ap = bench.parser(__doc__, quick="2 small tables (heart, banknote), rate 0.2, seed 0")
    ap.add_argument("--half", choices=("tuning", "confirmation", "both"), default="both")
    ap.add_argument("--tables", nargs="*", help="a subset of the tables, by name")
    ap.add_argument("--rates", nargs="*", type=float, default=[0.01, 0.05, 0.2])
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--max-rows", type=int, default=10_000)
    ap.add_argument("--models", nargs="*", choices=("logreg", "hgb"), default=["logreg"])
    ap.add_argument("--adult-file")
    ap.add_argument("--shuttle-file")
    args = bench.parse(ap, argv)
    if args.quick:
        args.tables, args.rates, args.seeds, args.max_rows = ["heart", "banknote"], [0.2], 1, 2000
    skipped: list[str] = []
    data = bench.shared_data(args, NAME, TITLE, lambda: _load_all(args))
    if data is None:
        return
    if not data:
        bench.skip_run(args, NAME, TITLE, "no table of the PU suite could be loaded")
        return
    rows = run(args, data, skipped)
    report(args, rows, skipped)


if __name__ == "__main__":
    main()
