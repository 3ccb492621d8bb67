"""Evaluation from PU data alone on the PU suite: the corrected ROC AUC and average precision of
unlabeled.metrics, computed from PU labels and the prior, against the same metrics computed
with the true labels (issue 55: within 0.03).

    python benchmarks/bench_pu_metrics.py                       # both halves, 5 seeds
    python benchmarks/bench_pu_metrics.py --half tuning --seeds 1 --max-rows 5000
    python benchmarks/bench_pu_metrics.py --quick    # smoke: heart, rate 0.2, seed 0

Tables: the 26 of benchmarks/_harness/pu_tables.py in its two halves (--half, --tables;
Adult and Shuttle need their files: --adult-file, --shuttle-file or UNLABELED_ADULT /
UNLABELED_SHUTTLE; a table that cannot be loaded is skipped with the reason), at most
--max-rows rows each (pu_tables' stratified subset, seed 0; default pu_tables.MAX_ROWS).

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
Errors are estimate - truth. A table's error at a rate is the mean over its seeds of |error|
(and, for the bias, of the error). The sampling s.e. of a labeling is the bootstrap standard
deviation of estimate - truth (--bootstrap, 50, resamples of the labeled rows and of the
unlabeled rows, separately, the scores fixed): it grows as 1 / sqrt(labeled positives), and
where it is above 0.015 the goal of 0.03 is beyond what the labeled sample can tell. The
summary gives, per half and rate, the mean and largest error over the tables, the mean signed
error, the share of tables within 0.03, the mean s.e., the share of labelings within 2 s.e.
(about 95% for an estimate whose error is its sampling error), the share within 0.03 of the
tables whose s.e. allows it (2 s.e. <= 0.03), and the naive metrics' mean error; a second
table bins every labeling by its number of labeled positives.

With an estimated prior: unlabeled.pu.priors.Blend(random_state=seed), the estimator of
PUSVC(prior="auto"), fitted on (X, s); the metrics at its prior_, and their range over its
interval bracket_ (what PUSVC reports as prior_interval_) from prior_sensitivity (11 priors):
the page gives the prior's error, how often the interval holds the true prior, the metrics'
error at the estimate, the range's width and how often it holds the true-label value.

--models: "logreg" (LogisticRegression(max_iter=1000), the default) and "hgb"
(HistGradientBoostingClassifier(max_iter=100, random_state=seed)); both if named.

Writes <out>/bench_pu_metrics.md and the labelings' rows, <out>/bench_pu_metrics_runs.jsonl
(-quick before the suffix for --quick); --report-only writes the page from the rows alone.
"""

from __future__ import annotations

import json
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


def one_run(X, y, rate, seed, model, n_boot):
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
    se_auc, se_ap = sampling_error(s, f, y, seed, n_boot)
    estimated = estimated_prior(X, s, f, seed)
    return {
        **estimated,
        "n_labeled": int(s.sum()),
        "pi": pi,
        "auc": pu_roc_auc_score(s, f, pi),
        "auc_true": roc_auc_score(y[u], f[u]),
        "auc_naive": roc_auc_score(s, f),
        "ap": pu_average_precision_score(s, f, pi),
        "ap_true": average_precision_score(y[u], f[u]),
        "ap_naive": average_precision_score(s, f),
        "se_auc": se_auc,
        "se_ap": se_ap,
        "cpu": time.process_time() - t0,
    }


def estimated_prior(X, s, f, seed):
    """The metrics at the prior that PUSVC(prior="auto") estimates (Blend's prior_) and their
    range over its interval (Blend's bracket_, PUSVC's prior_interval_)."""
    from unlabeled.metrics import prior_sensitivity, pu_average_precision_score, pu_roc_auc_score
    from unlabeled.pu.priors import Blend

    blend = Blend(random_state=seed).fit(X, s)
    pi_hat, (lo, hi) = float(blend.prior_), (float(v) for v in blend.bracket_)
    out = {"pi_hat": pi_hat, "pi_lo": lo, "pi_hi": hi}
    out["auc_hat"] = pu_roc_auc_score(s, f, pi_hat)
    out["ap_hat"] = pu_average_precision_score(s, f, pi_hat)
    for metric, name in (("auc", "roc-auc"), ("ap", "average-precision")):
        band = prior_sensitivity(s, f, name, (lo, hi), num=11)
        out[f"{metric}_lo"], out[f"{metric}_hi"] = band.low, band.high
    return out


def sampling_error(s, f, y, seed, n_boot):
    """Bootstrap standard deviations of estimate - truth for the AUC and the AP: the labeled
    rows and the unlabeled rows resampled separately (their scores fixed), the truth and the
    estimate recomputed on each resample."""
    from sklearn.metrics import average_precision_score, roc_auc_score

    from unlabeled.metrics import pu_average_precision_score, pu_roc_auc_score

    rng = np.random.default_rng(seed)
    p_idx, u_idx = np.flatnonzero(s == 1), np.flatnonzero(s == 0)
    diffs = []
    for _ in range(n_boot):
        bp, bu = rng.choice(p_idx, p_idx.size), rng.choice(u_idx, u_idx.size)
        yu = y[bu]
        if yu.min() == yu.max():
            continue
        idx, pi = np.r_[bp, bu], float(yu.mean())
        diffs.append(
            (
                pu_roc_auc_score(s[idx], f[idx], pi) - roc_auc_score(yu, f[bu]),
                pu_average_precision_score(s[idx], f[idx], pi) - average_precision_score(yu, f[bu]),
            )
        )
    sd = np.std(np.array(diffs), axis=0)
    return float(sd[0]), float(sd[1])


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
                    r = one_run(X, y, rate, seed, model, args.bootstrap)
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
        "| half | model | rate | tables | mean labeled | metric | mean abs. error | mean error "
        f"| largest (table) | within {GOAL} | sampling s.e. | within 2 s.e. "
        f"| within {GOAL} where 2 s.e. <= {GOAL} | naive mean abs. error |",
        "|---|---|---|---:|---:|---|---:|---:|---|---:|---:|---:|---:|---:|",
    ]
    for half in halves:
        for model in models:
            for rate in rates:
                sel = [
                    r
                    for r in rows
                    if r["half"] == half and r["model"] == model and r["rate"] == rate
                ]
                if sel:
                    lines += [_summary_row(sel, half, model, rate, m) for m in ("auc", "ap")]
    return lines


def _summary_row(sel, half, model, rate, metric):
    """One line of the summary: per table, the mean over seeds of |error|, of the error and
    of the sampling s.e.; then over the tables."""
    tables = sorted({r["table"] for r in sel})

    def mean(table, fn):
        return float(np.mean([fn(r) for r in sel if r["table"] == table]))

    err = {t: mean(t, lambda r: abs(r[metric] - r[f"{metric}_true"])) for t in tables}
    signed = np.array([mean(t, lambda r: r[metric] - r[f"{metric}_true"]) for t in tables])
    se = {t: mean(t, lambda r: r[f"se_{metric}"]) for t in tables}
    naive = [mean(t, lambda r: abs(r[f"{metric}_naive"] - r[f"{metric}_true"])) for t in tables]
    in_se = sum(abs(r[metric] - r[f"{metric}_true"]) <= 2 * r[f"se_{metric}"] for r in sel)
    small = [t for t in tables if 2 * se[t] <= GOAL]
    worst = max(err, key=err.get)
    vals = np.array(list(err.values()))
    n_lab = np.mean([r["n_labeled"] for r in sel])
    return (
        f"| {half} | {model} | {rate:g} | {len(tables)} | {n_lab:.0f} | {metric.upper()} | "
        f"{vals.mean():.4f} | {signed.mean():+.4f} | {err[worst]:.4f} ({worst}) | "
        f"{np.sum(vals <= GOAL)}/{vals.size} | {np.mean(list(se.values())):.4f} | "
        f"{in_se}/{len(sel)} labelings | {sum(err[t] <= GOAL for t in small)}/{len(small)} | "
        f"{np.mean(naive):.4f} |"
    )


#: the bins of the number of labeled positives in the table by sample size
LABELED_BINS = ((2, 20), (20, 100), (100, 300), (300, None))


def by_labeled(rows):
    """Every labeling of both halves, binned by its number of labeled positives: the error
    shrinks with it, as the sampling error does."""
    lines = [
        "| labeled positives | labelings | metric | mean abs. error | mean error | mean s.e. "
        f"| within {GOAL} | naive mean abs. error |",
        "|---|---:|---|---:|---:|---:|---:|---:|",
    ]
    for lo, hi in LABELED_BINS:
        sel = [r for r in rows if lo <= r["n_labeled"] and (hi is None or r["n_labeled"] < hi)]
        if not sel:
            continue
        for metric in ("auc", "ap"):
            err = np.array([r[metric] - r[f"{metric}_true"] for r in sel])
            naive = np.array([r[f"{metric}_naive"] - r[f"{metric}_true"] for r in sel])
            se = np.mean([r[f"se_{metric}"] for r in sel])
            span = f"{lo}-{hi - 1}" if hi else f">= {lo}"
            lines.append(
                f"| {span} | {len(sel)} | {metric.upper()} | {np.abs(err).mean():.4f} | "
                f"{err.mean():+.4f} | {se:.4f} | {np.mean(np.abs(err) <= GOAL):.0%} | "
                f"{np.abs(naive).mean():.4f} |"
            )
    return lines


def with_estimated_prior(rows, rates, halves):
    """The metrics at Blend's estimate (PUSVC(prior="auto")'s prior_) and whether the truth
    lies in their range over its interval (prior_interval_), per half and rate."""
    lines = [
        "| half | rate | labelings | prior abs. error | interval holds the prior | metric "
        "| mean abs. error at the estimate | range over the interval (mean width) "
        "| truth inside the range |",
        "|---|---|---:|---:|---:|---|---:|---:|---:|",
    ]
    for half in halves:
        for rate in rates:
            sel = [r for r in rows if r["half"] == half and r["rate"] == rate]
            if not sel:
                continue
            prior_err = np.mean([abs(r["pi_hat"] - r["pi"]) for r in sel])
            holds = np.mean([r["pi_lo"] <= r["pi"] <= r["pi_hi"] for r in sel])
            for m in ("auc", "ap"):
                err = np.mean([abs(r[f"{m}_hat"] - r[f"{m}_true"]) for r in sel])
                width = np.mean([r[f"{m}_hi"] - r[f"{m}_lo"] for r in sel])
                inside = np.mean([r[f"{m}_lo"] <= r[f"{m}_true"] <= r[f"{m}_hi"] for r in sel])
                lines.append(
                    f"| {half} | {rate:g} | {len(sel)} | {prior_err:.3f} | {holds:.0%} | "
                    f"{m.upper()} | {err:.4f} | {width:.3f} | {inside:.0%} |"
                )
    return lines


def per_table(rows):
    lines = [
        "| table | half | model | rate | labeled | prior | AUC true | AUC est. | AUC s.e. "
        "| AUC naive | AP true | AP est. | AP s.e. | AP naive |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
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
            f"| {m('auc_true')} | {m('auc')} | {m('se_auc')} | {m('auc_naive')} "
            f"| {m('ap_true')} | {m('ap')} | {m('se_ap')} | {m('ap_naive')} |"
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
    lines += ["## By the number of labeled positives", "", *by_labeled(rows), ""]
    lines += [
        '## With the prior of PUSVC(prior="auto")',
        "",
        "Blend (PUSVC's estimator) fitted on the labeling (`random_state=seed`): the metrics at "
        "its `prior_`, and their range over its interval (`bracket_`, PUSVC's "
        "`prior_interval_`) by `prior_sensitivity` (11 priors).",
        "",
        *with_estimated_prior(rows, args.rates, halves),
        "",
    ]
    lines += ["## Per table (means over seeds)", "", *per_table(rows), ""]
    bench.write_markdown(args, NAME, lines)


def main(argv=None):
    ap = bench.parser(__doc__, quick="one small table (heart), rate 0.2, seed 0, 10 resamples")
    ap.add_argument("--half", choices=("tuning", "confirmation", "both"), default="both")
    ap.add_argument("--tables", nargs="*", help="a subset of the tables, by name")
    ap.add_argument("--rates", nargs="*", type=float, default=[0.01, 0.05, 0.2])
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--max-rows", type=int, default=pu_tables.MAX_ROWS)
    ap.add_argument("--models", nargs="*", choices=("logreg", "hgb"), default=["logreg"])
    ap.add_argument("--bootstrap", type=int, default=50, help="resamples for the s.e. (50)")
    ap.add_argument(
        "--report-only", action="store_true", help="the page from <out>/<name>_runs.jsonl"
    )
    ap.add_argument("--adult-file")
    ap.add_argument("--shuttle-file")
    args = bench.parse(ap, argv)
    if args.quick:
        args.tables, args.rates, args.seeds, args.max_rows = ["heart"], [0.2], 1, 2000
        args.bootstrap = 10
    skipped: list[str] = []
    if args.report_only:
        lines = bench.output(args, f"{NAME}_runs", ".jsonl").read_text().splitlines()
        records = [json.loads(line) for line in lines]
        rows = [r for r in records if "skipped" not in r]
        skipped = [s for r in records if "skipped" in r for s in r["skipped"]]
        report(args, rows, skipped)
        return
    data = bench.shared_data(args, NAME, TITLE, lambda: _load_all(args))
    if data is None:
        return
    if not data:
        bench.skip_run(args, NAME, TITLE, "no table of the PU suite could be loaded")
        return
    rows = run(args, data, skipped)
    runs = bench.output(args, f"{NAME}_runs", ".jsonl")
    runs.write_text("".join(json.dumps(r) + "\n" for r in [*rows, {"skipped": skipped}]))
    bench.written(runs)
    report(args, rows, skipped)


if __name__ == "__main__":
    main()
