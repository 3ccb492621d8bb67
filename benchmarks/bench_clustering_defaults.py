"""Clustering with defaults and no labels: WellSVMClustering() against KMeans,
SpectralClustering and GaussianMixture on the 12 UCI sets, raw and standardised.

Protocol: two clusters, every point clustered, accuracy under the best matching of clusters to
classes (the labels are read only to score, and by the one reference column that says so).
Each set is run on its raw features and standardised (StandardScaler on all points), with 5
seeds (``random_state`` 0-4) per method. Methods:

* ``WellSVM``: ``WellSVMClustering(random_state=seed)``, its defaults;
* ``WellSVM+balance``: the same fit's decision values rounded into the balance range
  (what ``offset="balance"`` gives, without a second fit);
* ``WellSVM n_starts=4``: four cutting-plane runs (the spectral start and three alignment
  starts), the lowest final objective kept;
* ``WellSVM alignment``: ``init="alignment"``, the paper's start (best of 20 random labelings
  by kernel-target alignment), the other defaults as now;
* ``KMeans``, ``Spectral``, ``GMM``: scikit-learn's ``KMeans(2)``, ``SpectralClustering(2)``
  (rbf affinity, ``gamma=1.0``) and ``GaussianMixture(2)`` with their defaults;
* ``Spectral mean``: ``SpectralClustering(2, gamma=1 / mean squared distance)``, the width
  WellSVM's default ``gamma="mean"`` uses (no label);
* ``Spectral labels``: ``SpectralClustering(2)`` with ``sigma`` in {0.5, 1, 2} x the root mean
  squared distance (``gamma = 1 / (2 sigma^2)``), **the width chosen per set and preprocessing
  WITH THE LABELS** (best mean accuracy over the seeds): the reference of issue 33.

    python benchmarks/bench_clustering_defaults.py           # the committed run
    python benchmarks/bench_clustering_defaults.py --quick   # smoke: the smallest set, raw,
                                                             # and a suite table (below)

**The semi-supervised suite** (``--suite``, issue 52): the 30 tables of
``benchmarks/_harness/ssl_tables.py``, its tuning and confirmation halves reported apart,
clustered with the true number of classes asked, scored by the adjusted Rand index (ARI)
against the classes. Each table is subsampled to ``--rows`` rows (stratified, seed = the
run's seed; all rows where it has fewer) and standardised (StandardScaler on those rows) for
every method. Methods: ``CLSST``, ``CLSST(n_clusters=k, random_state=seed)``;
``CLSST components``, the same fit's components (``predict_cluster``) unmerged;
``WellSVM``, ``WellSVMClustering(random_state=seed)`` and ``WellSVM beta=0.1`` (two clusters:
the binary tables only); ``KMeans``, ``GMM``, ``Spectral``: scikit-learn's ``KMeans(k)``,
``GaussianMixture(k)``, ``SpectralClustering(k)`` with their defaults and
``random_state=seed``. The ConvergenceWarnings of each fit are counted.

    python benchmarks/bench_clustering_defaults.py --suite --rows 1000 --seeds 2 \
        --mlbench DIR --halves tuning            # then --halves confirmation

The suite's runs go to ``<out>/clustering_suite_runs.jsonl`` (a rerun skips those there) and
its page to ``<out>/clustering_suite.md``.

The runs are kept in ``<out>/clustering_defaults_runs.jsonl`` (one line per set,
preprocessing, method and seed; a rerun skips the ones there, so runs on disjoint ``--sets``
can share it) and the page ``<out>/clustering_defaults.md`` is written from all of them.
"""

from __future__ import annotations

import json
import time
import warnings
from pathlib import Path

import _harness as bench
import numpy as np
from _harness import ssl_tables
from _harness.internals import balance_range, balanced_threshold
from sklearn.cluster import KMeans, SpectralClustering
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import adjusted_rand_score
from sklearn.metrics.pairwise import euclidean_distances
from sklearn.mixture import GaussianMixture
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

from unlabeled.cluster import WellSVMClustering
from unlabeled.datasets import UCI_SMALL_NAMES, load_uci_small
from unlabeled.ssl import CLSST

SIGMAS = (0.5, 1.0, 2.0)  # the labelled reference's widths, x sqrt(mean squared distance)
WELL = ["WellSVM", "WellSVM+balance", "WellSVM n_starts=4", "WellSVM alignment"]
OTHERS = ["KMeans", "Spectral", "GMM", "Spectral mean"]
REFERENCE = "Spectral labels"
METHODS = [*WELL, *OTHERS, REFERENCE]
SEEDS = range(5)


def timed(est, X):
    """``est.fit_predict(X)`` (``fit(X).predict(X)`` for a mixture, CLSST's ``labels_``) and
    its seconds."""
    t0 = time.perf_counter()
    if isinstance(est, CLSST):
        labels = est.fit(X).labels_  # (no fit_predict: a classifier)
    elif isinstance(est, GaussianMixture):
        labels = est.fit(X).predict(X)
    else:
        labels = est.fit_predict(X)
    return labels, time.perf_counter() - t0


def fits(X, y, seed, methods):
    """{method: (accuracy, seconds)} for one seed (``Spectral labels``: one entry per sigma,
    ``Spectral sigma=s``; the choice among them is made over the seeds, in the report)."""
    msd = float(np.mean(euclidean_distances(X, squared=True)))
    out = {}
    if "WellSVM" in methods:
        est = WellSVMClustering(random_state=seed)
        pred, t = timed(est, X)
        out["WellSVM"] = (bench.matched_accuracy(pred, y), t)
        f = est.decision_function(X)  # offset="balance" on the same relaxation
        theta = balanced_threshold(f, *balance_range(len(y), est.beta))
        out["WellSVM+balance"] = (bench.matched_accuracy(f > theta, y), t)
    make = {
        "WellSVM n_starts=4": lambda: WellSVMClustering(n_starts=4, random_state=seed),
        "WellSVM alignment": lambda: WellSVMClustering(init="alignment", random_state=seed),
        "KMeans": lambda: KMeans(2, random_state=seed),
        "Spectral": lambda: SpectralClustering(2, random_state=seed),
        "GMM": lambda: GaussianMixture(2, random_state=seed),
        "Spectral mean": lambda: SpectralClustering(2, gamma=1.0 / msd, random_state=seed),
    }
    for m, new in make.items():
        if m in methods:
            pred, t = timed(new(), X)
            out[m] = (bench.matched_accuracy(pred, y), t)
    if REFERENCE in methods:
        for s in SIGMAS:
            sc = SpectralClustering(2, gamma=1.0 / (2 * s * s * msd), random_state=seed)
            pred, t = timed(sc, X)
            out[f"Spectral sigma={s}"] = (bench.matched_accuracy(pred, y), t)
    return out


def main():
    ap = bench.parser(
        __doc__, quick="a smoke run: the smallest set, raw, one seed; one suite table", name=""
    )
    ap.add_argument("--sets", nargs="+", default=list(UCI_SMALL_NAMES))
    ap.add_argument("--methods", nargs="+", default=METHODS, choices=METHODS)
    ap.add_argument("--seeds", type=int, default=len(SEEDS))
    ap.add_argument(
        "--data",
        default=None,
        help="the UCI folder (default: $UNLABELED_DATA_UCI, else ../shared/data/uci-small)",
    )
    ap.add_argument("--report-only", action="store_true", help="write the page from the runs")
    ap.add_argument("--suite", action="store_true", help="the semi-supervised suite (above)")
    ap.add_argument("--rows", type=int, default=1000, help="--suite: rows per table (1000)")
    ap.add_argument("--halves", nargs="+", default=["tuning", "confirmation"])
    ap.add_argument("--tables", nargs="+", help="--suite: these tables only")
    ap.add_argument("--mlbench", help="--suite: the folder of r-cran-mlbench's .rda files")
    args = bench.parse(ap)
    if args.suite or args.quick:
        suite_main(bench.parse(ap) if args.quick else args)
        if not args.quick:
            return
    args.name = args.name or "clustering_defaults"
    title = "Clustering with defaults on the UCI sets"
    load = lambda: {s: load_uci_small(s, args.data)[0].shape[0] for s in args.sets}  # noqa: E731
    sizes = bench.shared_data(args, args.name, title, load)
    if sizes is None:
        return
    warnings.simplefilter("ignore", ConvergenceWarning)
    preps = ["raw", "standardised"]
    if args.quick:
        args.sets, args.seeds = sorted(args.sets, key=sizes.get)[:1], 1
        preps = ["raw"]
        args.methods = ["WellSVM", "KMeans", "Spectral", "GMM"]
    runs_path = bench.output(args, args.name + "_runs", ".jsonl")
    done = _read(runs_path)
    with open(runs_path, "a") as runs:
        for name in sorted(args.sets, key=sizes.get):
            X0, y = load_uci_small(name, args.data)
            for prep in preps:
                X = X0 if prep == "raw" else StandardScaler().fit_transform(X0)
                for seed in range(args.seeds):
                    todo = [m for m in args.methods if (name, prep, m, seed) not in done]
                    if args.report_only or not todo:
                        continue
                    for m, (acc, t) in fits(X, y, seed, todo).items():
                        rec = {
                            "set": name,
                            "n": len(y),
                            "prep": prep,
                            "method": m,
                            "seed": seed,
                            "accuracy": acc,
                            "seconds": t,
                        }
                        runs.write(json.dumps(rec) + "\n")
                        runs.flush()
                    print(f"{name:15s} {prep:12s} seed {seed} done", flush=True)
    bench.written(runs_path)
    write_report(args, _read(runs_path), preps)


def _read(path):
    """{(set, prep, method, seed): record} of the runs file (a reference width counts as
    done for ``Spectral labels`` when all its sigmas are there)."""
    out = {}
    if Path(path).exists():
        for line in Path(path).read_text().splitlines():
            r = json.loads(line)
            out[(r["set"], r["prep"], r["method"], r["seed"])] = r
    for s, p, m, seed in list(out):
        if m.startswith("Spectral sigma=") and all(
            (s, p, f"Spectral sigma={x}", seed) in out for x in SIGMAS
        ):
            out[(s, p, REFERENCE, seed)] = None
    return out


def table(recs, sets, prep, methods):
    """{method: {set: (mean accuracy, spread, mean seconds, max seconds, note)}}."""
    out = {}
    for m in methods:
        out[m] = {}
        for s in sets:
            if m == REFERENCE:
                by = {}
                for x in SIGMAS:
                    rs = [
                        r
                        for r in recs
                        if (r["set"], r["prep"], r["method"]) == (s, prep, f"Spectral sigma={x}")
                    ]
                    if rs:
                        by[x] = rs
                if not by:
                    continue
                x = max(by, key=lambda k: np.mean([r["accuracy"] for r in by[k]]))
                rs, note = by[x], f"sigma {x:g}"
            else:
                rs = [r for r in recs if (r["set"], r["prep"], r["method"]) == (s, prep, m)]
                note = ""
            if rs:
                a = [r["accuracy"] for r in rs]
                t = [r["seconds"] for r in rs]
                out[m][s] = (np.mean(a), max(a) - min(a), np.mean(t), max(t), note, len(rs))
    return out


def write_report(args, done, preps):
    recs = [r for r in done.values() if r is not None]
    sets = [s for s in UCI_SMALL_NAMES if any(r["set"] == s for r in recs)]
    sets.sort(key=lambda s: next(r["n"] for r in recs if r["set"] == s))
    methods = [
        m
        for m in METHODS
        if any(
            r["method"] == m or (m == REFERENCE and r["method"].startswith("Spectral sigma"))
            for r in recs
        )
    ]
    lines = bench.header("Clustering with defaults on the 12 UCI sets, raw and standardised")
    lines += [
        "Two clusters, accuracy under the best matching of clusters to classes, every point "
        "clustered; each cell is the mean over the seeds (random_state 0-"
        f"{max(r['seed'] for r in recs)}). No method reads the labels but the last column, "
        f"`{REFERENCE}`: sigma in {list(SIGMAS)} x sqrt(mean squared distance), the width "
        "with the best mean accuracy per set and preprocessing, **chosen with the labels**. "
        "`WellSVM` is `WellSVMClustering(random_state=seed)` with its defaults; "
        '`WellSVM+balance` rounds the same fit into the balance range (`offset="balance"`); '
        "`Spectral mean` is SpectralClustering with WellSVM's default width "
        "(`gamma = 1 / mean squared distance`); the others are scikit-learn's defaults "
        "(`SpectralClustering`: `gamma=1.0`). The protocol is in the script's docstring.",
        "",
    ]
    for prep in preps:
        tab = table(recs, sets, prep, methods)
        if not any(tab[m] for m in methods):
            continue
        lines += [
            f"## {prep.capitalize()} features",
            "",
            "Accuracy (mean over seeds; for "
            "WellSVM the spread max - min over the seeds in brackets).",
            "",
            "| set | n | " + " | ".join(methods) + " |",
            "|---|---|" + "---|" * len(methods),
        ]
        for s in sets:
            n = next(r["n"] for r in recs if r["set"] == s)
            cells = []
            for m in methods:
                c = tab[m].get(s)
                if c is None:
                    cells.append("")
                    continue
                cell = f"{c[0]:.3f}"
                if m.startswith("WellSVM"):
                    cell += f" ({c[1]:.3f})"
                if c[4]:
                    cell += f" ({c[4]})"
                cells.append(cell)
            lines.append(f"| {s} | {n} | " + " | ".join(cells) + " |")
        full = [m for m in methods if len(tab[m]) == len(sets)]
        lines.append(
            "| **mean** | | "
            + " | ".join(
                f"**{np.mean([tab[m][s][0] for s in sets]):.3f}**" if m in full else ""
                for m in methods
            )
            + " |"
        )
        lines.append(
            "| largest spread | | "
            + " | ".join(
                f"{max(tab[m][s][1] for s in tab[m]):.3f}" if tab[m] else "" for m in methods
            )
            + " |"
        )
        lines += [
            "",
            "Seconds per fit (mean over seeds / slowest fit; `Spectral labels`: the "
            "chosen width's fits).",
            "",
            "| set | " + " | ".join(m for m in methods if m != "WellSVM+balance") + " |",
            "|---|" + "---|" * (len(methods) - ("WellSVM+balance" in methods)),
        ]
        for s in sets:
            cells = []
            for m in methods:
                if m == "WellSVM+balance":
                    continue
                c = tab[m].get(s)
                cells.append("" if c is None else f"{c[2]:.2f} / {c[3]:.2f}")
            lines.append(f"| {s} | " + " | ".join(cells) + " |")
        lines.append("")
    bench.write_markdown(args, args.name, lines)


# ---------------------------------------------------------------------- the suite (--suite)
SUITE = ["CLSST", "CLSST components", "WellSVM", "WellSVM beta=0.1", "KMeans", "GMM", "Spectral"]
TWO_CLUSTERS = ("WellSVM", "WellSVM beta=0.1")


def suite_fit(method, X, k, seed):
    """One suite fit: (labels, seconds, ConvergenceWarnings, details)."""
    new = {
        "CLSST": lambda: CLSST(n_clusters=k, random_state=seed),
        "WellSVM": lambda: WellSVMClustering(random_state=seed),
        "WellSVM beta=0.1": lambda: WellSVMClustering(beta=0.1, random_state=seed),
        "KMeans": lambda: KMeans(k, random_state=seed),
        "GMM": lambda: GaussianMixture(k, random_state=seed),
        "Spectral": lambda: SpectralClustering(k, random_state=seed),
    }[method]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est = new()
        pred, t = timed(est, X)
    capped = sum(issubclass(w.category, ConvergenceWarning) for w in caught)
    info = {}
    if isinstance(est, CLSST):
        info = {"components": est.n_components_, "component_labels": est.predict_cluster(X)}
    elif isinstance(est, WellSVMClustering):
        info = {"converged": est.converged_, "n_iter": est.n_iter_, "stop": est.stop_reason_}
    return pred, t, capped, info


def suite_runs(name, X0, y0, seed, rows, todo):
    """The records of one table and seed for the methods ``todo``."""
    X, y = X0, y0
    if len(y) > rows:
        keep = train_test_split(np.arange(len(y)), train_size=rows, stratify=y, random_state=seed)[
            0
        ]
        X, y = X0[np.sort(keep)], y0[np.sort(keep)]
    X = StandardScaler().fit_transform(X)
    k = int(len(np.unique(y)))
    base = {"set": name, "half": ssl_tables.half(name), "n": len(y), "classes": k, "seed": seed}
    for m in todo:
        if m == "CLSST components" or (m in TWO_CLUSTERS and k != 2):
            continue
        pred, t, capped, info = suite_fit(m, X, k, seed)
        comp = info.pop("component_labels", None)
        yield {
            **base,
            "method": m,
            "ari": adjusted_rand_score(y, pred),
            "seconds": t,
            "warnings": capped,
            **info,
        }
        if comp is not None:
            yield {
                **base,
                "method": "CLSST components",
                "ari": adjusted_rand_score(y, comp),
                "seconds": t,
                "warnings": capped,
                **info,
            }


def suite_main(args):
    name = "clustering_suite"
    title = "Clustering the semi-supervised suite's tables"
    seeds, rows, tables = args.seeds, args.rows, args.tables
    if args.quick:
        seeds, rows, tables = 1, 150, ["heart"]
    names = tables or [
        t
        for t in (*ssl_tables.TUNING, *ssl_tables.CONFIRMATION)
        if ssl_tables.half(t) in args.halves
    ]
    runs_path = bench.output(args, name + "_runs", ".jsonl")
    done = {}
    if runs_path.exists():
        for line in runs_path.read_text().splitlines():
            r = json.loads(line)
            done[(r["set"], r["method"], r["seed"])] = r
    with open(runs_path, "a") as out:
        for t in names:
            todo = {s: [m for m in SUITE if (t, m, s) not in done] for s in range(seeds)}
            if args.report_only or not any(todo.values()):
                continue
            try:
                X0, y0 = ssl_tables.load(t, mlbench=args.mlbench)
            except FileNotFoundError as exc:
                if args.quick:
                    bench.skip_run(args, name, title, str(exc))
                    return
                bench.skip(t, str(exc))
                continue
            for seed in range(seeds):
                for r in suite_runs(t, X0, y0, seed, rows, todo[seed]):
                    done[(r["set"], r["method"], r["seed"])] = r
                    out.write(json.dumps(r) + "\n")
                    out.flush()
                print(f"{t:18s} seed {seed} done", flush=True)
    bench.written(runs_path)
    suite_report(args, name, title, [r for r in done.values() if r["seed"] < seeds])


def _mean(recs, method, tables):
    """The mean over ``tables`` of the per-table mean ARI of ``method`` (None if one lacks it)."""
    per = []
    for t in tables:
        a = [r["ari"] for r in recs if r["set"] == t and r["method"] == method]
        if not a:
            return None
        per.append(np.mean(a))
    return float(np.mean(per)) if per else None


def suite_report(args, name, title, recs):
    lines = bench.header(title)
    lines += [
        "Each table subsampled (stratified) to at most "
        f"{max((r['n'] for r in recs), default=0):,} rows per seed and standardised; the true "
        "number of classes k asked of every method; cells are the adjusted Rand index (ARI) "
        "against the classes, the mean over the seeds "
        f"({sorted({r['seed'] for r in recs})}). WellSVM forms two clusters: binary tables "
        "only. `CLSST` is `CLSST(n_clusters=k)`, `CLSST components` the same fit's "
        "components unmerged (S of them: the mean in brackets). The protocol is in the "
        "script's docstring; the runs of several invocations on disjoint tables are kept in "
        "the runs file, and this page is written from all of them.",
        "",
    ]
    for half in ("tuning", "confirmation"):
        tabs = [
            t
            for t in (*ssl_tables.TUNING, *ssl_tables.CONFIRMATION)
            if any(r["set"] == t and r["half"] == half for r in recs)
        ]
        if not tabs:
            continue
        lines += _suite_half(recs, half, tabs)
    lines += _suite_warnings(recs)
    bench.write_markdown(args, name, lines)


def _suite_half(recs, half, tabs):
    lines = [
        f"## {half.capitalize()} half",
        "",
        "| table | n | k | " + " | ".join(SUITE) + " |",
        "|---|---|---|" + "---|" * len(SUITE),
    ]
    for t in tabs:
        rs = [r for r in recs if r["set"] == t]
        cells = []
        for m in SUITE:
            a = [r for r in rs if r["method"] == m]
            cell = f"{np.mean([r['ari'] for r in a]):.3f}" if a else ""
            if a and m == "CLSST components":
                cell += f" ({np.mean([r['components'] for r in a]):.0f})"
            cells.append(cell)
        lines.append(f"| {t} | {rs[0]['n']:,} | {rs[0]['classes']} | " + " | ".join(cells) + " |")
    binary = [t for t in tabs if t not in ssl_tables.MULTICLASS]
    for label, group in (("mean, all tables", tabs), ("mean, binary tables", binary)):
        cells = [_mean(recs, m, group) for m in SUITE]
        shown = ["" if c is None else f"**{c:.3f}**" for c in cells]
        lines.append(f"| **{label}** ({len(group)}) | | | " + " | ".join(shown) + " |")
    spread = []
    for m in SUITE:  # how much a method's result moves with the subsample
        by = [[r["ari"] for r in recs if r["set"] == t and r["method"] == m] for t in tabs]
        by = [a for a in by if len(a) > 1]
        spread.append(f"{max(max(a) - min(a) for a in by):.3f}" if by else "")
    lines.append("| largest spread over the seeds | | | " + " | ".join(spread) + " |")
    secs = []
    for m in SUITE:
        t = [r["seconds"] for r in recs if r["method"] == m and r["set"] in tabs]
        if t and m != "CLSST components":
            secs.append(f"{m} {np.mean(t):.2f}")
    lines += ["", "Seconds per fit (mean over the half's fits): " + ", ".join(secs) + ".", ""]
    return lines


def _suite_warnings(recs):
    lines = ["## Convergence", ""]
    for m in ("CLSST", *TWO_CLUSTERS):
        rs = [r for r in recs if r["method"] == m]
        if not rs:
            continue
        warned = sum(r["warnings"] > 0 for r in rs)
        text = f"- `{m}`: {warned} of {len(rs)} fits warned (ConvergenceWarning)"
        if m in TWO_CLUSTERS:
            conv = sum(bool(r["converged"]) for r in rs)
            its = [r["n_iter"] for r in rs]
            text += (
                f"; converged_ in {conv}; cutting-plane iterations (n_iter_) "
                f"{min(its)} to {max(its)}, median {np.median(its):.0f}"
            )
        lines.append(text + ".")
    return lines + [""]


if __name__ == "__main__":
    main()
