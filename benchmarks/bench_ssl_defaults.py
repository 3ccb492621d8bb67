"""Semi-supervised learning with defaults, no tuning, as a new user runs it, on the 30 tables
of the semi-supervised suite (benchmarks/_harness/ssl_tables.py: 18 binary, 12 multiclass,
split once into a tuning and a confirmation half, issue 52), both halves reported apart.

    python benchmarks/bench_ssl_defaults.py --mlbench mlbench/usr/lib/R/site-library/mlbench/data
    python benchmarks/bench_ssl_defaults.py --quick      # smoke: 2 small tables, 1 seed

Protocol (issue 52): per table and seed, a 70/30 train/test split (stratified where every
class has two rows); of the training rows ``max(2, round(rate * n_train))`` drawn at random
are labeled (redrawn until two classes are there), for each rate of --rates (1% and 5%); the
fit is given every labeled row plus --unlabeled (2,000) other training rows, unlabeled; test
accuracy on the test rows. Tables are capped at --max-rows (stratified, seed 0).

Features: ``raw`` (default), the table as loaded: the library's estimators get it as it is
(the four SVMs standardise by default, CLSST does not), and every scikit-learn baseline gets it
through a StandardScaler fitted on its training rows (what a user of those does); ``std``
standardises every method's input the same way first.

Methods (--methods): ``SVC`` is sklearn.svm.SVC() on the labeled rows only, the supervised
baseline; ``LabelSpreading-rbf`` and ``LabelSpreading-knn`` scikit-learn's with that kernel
and its other defaults; ``SelfTraining`` SelfTrainingClassifier(SVC(probability=True)); the
library's WellSVM, TSVM, LapSVM, LabeledSVM and CLSST with their defaults (CLSST with
random_state=seed). A method that raises on a table (a binary-only method on a multiclass one)
is reported as "err" with the error's first words. ``warned``: the share of fits that
ended with a ConvergenceWarning. Means over seeds, then over the tables of a half; the binary
and multiclass tables also apart. Writes <out>/<name>.md and the runs as
<out>/<name>_runs.jsonl (--resume skips runs already there).
"""

from __future__ import annotations

import json
import time
import warnings

import _harness as bench
import numpy as np
from _harness import ssl_tables

TITLE = "ssl defaults"
SSL = ("WellSVM", "TSVM", "LapSVM", "LabeledSVM", "CLSST")
BASELINES = ("SVC", "LabelSpreading-rbf", "LabelSpreading-knn", "SelfTraining")
METHODS = (*BASELINES, *SSL)


def make(method: str, seed: int, prep: str):
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.semi_supervised import LabelSpreading, SelfTrainingClassifier
    from sklearn.svm import SVC

    import unlabeled

    if method in SSL:
        cls = getattr(unlabeled, method)
        return cls(random_state=seed) if method == "CLSST" else cls()
    if method == "SVC":
        est = SVC()
    elif method == "SelfTraining":
        est = SelfTrainingClassifier(SVC(probability=True, random_state=seed))
    else:
        est = LabelSpreading(kernel=method.rpartition("-")[2])
    return make_pipeline(StandardScaler(), est) if prep == "raw" else est


def splits(X, y, rate, seed, n_unlabeled):
    """(labeled, unlabeled, test) rows of one seed."""
    from sklearn.model_selection import train_test_split

    idx = np.arange(len(y))
    strat = y if np.bincount(y).min() >= 2 else None
    train, test = train_test_split(idx, test_size=0.3, stratify=strat, random_state=seed)
    rng = np.random.default_rng(seed)
    n_lab = max(2, round(rate * len(train)))
    for _ in range(1000):
        perm = rng.permutation(train)
        if len(np.unique(y[perm[:n_lab]])) >= 2:
            break
    return perm[:n_lab], perm[n_lab : n_lab + n_unlabeled], test


def run_one(name, X, y, rate, seed, prep, method, args):
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.preprocessing import StandardScaler

    lab, unl, test = splits(X, y, rate, seed, args.unlabeled)
    Xtr, Xte = X[np.r_[lab, unl]], X[test]
    if prep == "std":
        scaler = StandardScaler().fit(Xtr)
        Xtr, Xte = scaler.transform(Xtr), scaler.transform(Xte)
    est = make(method, seed, prep)
    row = {
        "set": name,
        "half": ssl_tables.half(name),
        "classes": int(y.max() + 1),
        "rate": rate,
        "seed": seed,
        "prep": prep,
        "method": method,
        "n_lab": len(lab),
        "n_unl": len(unl),
    }
    t = time.process_time()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            if method == "SVC":
                est.fit(Xtr[: len(lab)], y[lab])
            else:
                est.fit(Xtr, np.r_[y[lab], np.full(len(unl), -1)])
            row["acc"] = float(np.mean(est.predict(Xte) == y[test]))
        except (ValueError, TypeError) as exc:
            row["acc"], row["error"] = None, str(exc)[:80]
    row["cpu"] = time.process_time() - t
    row["warned"] = any(issubclass(w.category, ConvergenceWarning) for w in caught)
    return row


def _mean(runs, **key):
    accs = [r["acc"] for r in runs if all(r[k] == v for k, v in key.items())]
    if not accs:
        return None
    return None if any(a is None for a in accs) else float(np.mean(accs))


def _cell(value, ref) -> str:
    if value is None:
        return "err"
    text = f"{value:.3f}"
    return f"**{text}**" if ref is not None and value < ref - 1e-9 else text


def report(args, runs, tables, methods):
    lines = bench.header("Semi-supervised defaults on the suite's two halves")
    lines += [
        f"Seeds {args.seeds}; {args.unlabeled:,} unlabeled rows per fit; tables capped at "
        f"{args.max_rows:,} rows; features {', '.join(args.preps)}. Test accuracy, mean over "
        "seeds. A cell in bold is below SVC's (on the labeled rows) on the same table; `err`: "
        "the method refused the table (see the runs file). Mean rows average the tables where "
        "every shown method ran.",
        "",
    ]
    for half in ("tuning", "confirmation"):
        names = [t for t in tables if ssl_tables.half(t) == half]
        for rate in args.rates:
            for prep in args.preps:
                lines += [f"## {half} half, {rate:.0%} labeled, {prep} features", ""]
                lines += [
                    "| table | classes | " + " | ".join(methods) + " |",
                    "|---|---:|" + "---:|" * len(methods),
                ]
                cells = {}
                for t in names:
                    cells[t] = {
                        m: _mean(runs, set=t, rate=rate, prep=prep, method=m) for m in methods
                    }
                    k = next(r["classes"] for r in runs if r["set"] == t)
                    ref = cells[t].get("SVC")
                    row = [_cell(cells[t][m], ref) for m in methods]
                    lines.append(f"| {t} | {k} | " + " | ".join(row) + " |")
                for label, keep in (
                    ("mean, all", lambda t: True),
                    ("mean, binary", lambda t: t not in ssl_tables.MULTICLASS),
                    ("mean, multiclass", lambda t: t in ssl_tables.MULTICLASS),
                ):
                    sel = [t for t in names if keep(t)]
                    if not sel:
                        continue
                    full = [t for t in sel if all(cells[t][m] is not None for m in methods)]
                    row = [
                        f"{np.mean([cells[t][m] for t in full]):.3f}" if full else "-"
                        for m in methods
                    ]
                    lines.append(
                        f"| **{label}** ({len(full)} of {len(sel)}) | | " + " | ".join(row) + " |"
                    )
                lines.append("")
    lines += [
        "## Fit cost and convergence",
        "",
        "| method | CPU s per fit (mean) | max | fits warned (ConvergenceWarning) | errors |",
        "|---|---:|---:|---:|---:|",
    ]
    for m in methods:
        rs = [r for r in runs if r["method"] == m]
        if not rs:
            continue
        cpu = [r["cpu"] for r in rs]
        warned = sum(r["warned"] for r in rs)
        errors = sum(r["acc"] is None for r in rs)
        lines.append(
            f"| {m} | {np.mean(cpu):.2f} | {max(cpu):.1f} | {warned} of {len(rs)} | {errors} |"
        )
    lines.append("")
    bench.write_markdown(args, args.name, lines)


def main() -> None:
    ap = bench.parser(__doc__, quick="2 small tables, 1 seed, 5% labeled", name="ssl_defaults")
    ap.add_argument("--tables", nargs="*", help="suite tables (default: all that load)")
    ap.add_argument("--rates", nargs="*", type=float, default=[0.01, 0.05])
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--methods", nargs="*", default=list(METHODS), choices=METHODS)
    ap.add_argument("--preps", nargs="*", default=["raw"], choices=("raw", "std"))
    ap.add_argument("--unlabeled", type=int, default=2000, help="unlabeled rows per fit (2000)")
    ap.add_argument("--max-rows", type=int, default=ssl_tables.MAX_ROWS)
    ap.add_argument("--mlbench", help="the folder of r-cran-mlbench's .rda files")
    ap.add_argument("--resume", action="store_true", help="keep the runs already written")
    args = bench.parse(ap)
    if args.quick:
        args.tables, args.seeds, args.rates = ["heart", "wine"], 1, [0.05]
        args.methods = ["SVC", "LabelSpreading-rbf", "WellSVM"]
    names = args.tables or [*ssl_tables.TUNING, *ssl_tables.CONFIRMATION]
    data = {}
    for name in names:
        try:
            data[name] = ssl_tables.load(name, args.max_rows, args.mlbench)
        except FileNotFoundError as exc:
            if args.quick:
                bench.skip_run(args, args.name, TITLE, str(exc))
                return
            bench.skip(name, str(exc))
    path = bench.output(args, f"{args.name}_runs", ".jsonl")
    runs = []
    if args.resume and path.exists():
        runs = [json.loads(line) for line in path.read_text().splitlines() if line]
    done = {(r["set"], r["rate"], r["seed"], r["prep"], r["method"]) for r in runs}
    with open(path, "a" if args.resume else "w") as out:
        for name, (X, y) in data.items():
            for rate in args.rates:
                for prep in args.preps:
                    for m in args.methods:
                        for seed in range(args.seeds):
                            if (name, rate, seed, prep, m) in done:
                                continue
                            r = run_one(name, X, y, rate, seed, prep, m, args)
                            runs.append(r)
                            out.write(json.dumps(r) + "\n")
                            out.flush()
                print(f"{name} {rate}", flush=True)
    bench.written(path)
    runs = [r for r in runs if r["set"] in data and r["method"] in args.methods]
    report(args, runs, list(data), args.methods)


if __name__ == "__main__":
    main()
