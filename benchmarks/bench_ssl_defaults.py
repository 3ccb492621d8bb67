"""Semi-supervised learning with defaults, no tuning, as a new user runs it: each
semi-supervised SVM with its defaults against ``sklearn.svm.SVC()`` trained on the labeled
rows alone, on raw and on standardised features (issue 46).

    python benchmarks/bench_ssl_defaults.py --shuttle-rda Shuttle.rda   # the committed run
    python benchmarks/bench_ssl_defaults.py --quick      # smoke: 2 small sets, 1 seed

Data: the 12 UCI sets of ../shared/data/uci-small (unlabeled.datasets.load_uci_small), 75%
train / 25% test (stratified, per seed), and with --shuttle-rda the Statlog shuttle table from
Debian's r-cran-mlbench (``apt-get download r-cran-mlbench``; read with ``rdata``, see
shuttle_from_mlbench.py): its first 43,500 rows are UCI's training file, the last 14,500 its
test file; class 1 ("Rad.Flow", 78%) against the other six, the 9 features as stored.

Labeling: for each rate of --rates (0.01, 0.05) and seed 0 .. --seeds - 1, ``max(2,
round(rate * n_train))`` training rows drawn at random are labeled (redrawn until both classes
are there), the rest unlabeled. On shuttle 1% is 435 labeled rows; the unlabeled rows given to
the fits are a random --shuttle-unlabeled (4,000) of the other 43,065 (the full set costs
WellSVM 40 s a fit on one core, LapSVM is dense n x n), and accuracy is on the test file.

Features: ``raw`` as stored; ``std`` through StandardScaler fitted on all training rows
(labeled and unlabeled), the same for every method.

Methods (--methods chooses): ``SVC`` is sklearn.svm.SVC() on the labeled rows only, the
supervised baseline; ``WellSVM``, ``TSVM``, ``LapSVM``, ``LabeledSVM`` their defaults
(``standardize=True`` since issue 46); ``<name>-unscaled`` the same with
``standardize=False``, the defaults before it; ``CLSST`` is CLSST(random_state=seed).
Accuracy on the test rows; means over seeds, then over sets. Writes <out>/ssl_defaults.md
(--name) and the runs as <out>/ssl_defaults_runs.jsonl.
"""

from __future__ import annotations

import json
import time
import warnings

import _harness as bench
import numpy as np

TITLE = "ssl defaults"
SSL = ("WellSVM", "TSVM", "LapSVM", "LabeledSVM")
METHODS = ("SVC", *SSL, *(f"{m}-unscaled" for m in SSL))
N_TRAIN = 43_500


def make(method: str, seed: int):
    from sklearn.svm import SVC

    import unlabeled
    from unlabeled.ssl import LabeledSVM

    if method == "SVC":
        return SVC()
    if method == "CLSST":
        return unlabeled.CLSST(random_state=seed)
    name, _, unscaled = method.partition("-")
    cls = LabeledSVM if name == "LabeledSVM" else getattr(unlabeled, name)
    return cls(standardize=not unscaled)


def load_shuttle(path):
    import rdata

    table = rdata.read_rda(path)["Shuttle"]
    X = table.iloc[:, :9].to_numpy(dtype=np.float64)
    y = (table["Class"].astype(str).to_numpy() == "Rad.Flow").astype(int)
    return X, y


def splits(name, X, y, rate, seed, args):
    """(train rows, labeled among them, test rows) of one seed."""
    from sklearn.model_selection import train_test_split

    rng = np.random.default_rng(seed)
    if name == "shuttle":
        train, test = np.arange(N_TRAIN), np.arange(N_TRAIN, len(y))
    else:
        idx = np.arange(len(y))
        train, test = train_test_split(idx, test_size=0.25, stratify=y, random_state=seed)
    n_lab = max(2, round(rate * len(train)))
    while True:
        perm = rng.permutation(train)
        lab = perm[:n_lab]
        if len(np.unique(y[lab])) == 2:
            break
    unl = perm[n_lab:]
    if name == "shuttle":
        unl = unl[: args.shuttle_unlabeled]
    return lab, unl, test


def run_one(name, X, y, rate, seed, prep, method, args):
    from sklearn.preprocessing import StandardScaler

    lab, unl, test = splits(name, X, y, rate, seed, args)
    rows = np.r_[lab, unl]
    Xtr, Xte = X[rows], X[test]
    if prep == "std":
        scaler = StandardScaler().fit(Xtr)
        Xtr, Xte = scaler.transform(Xtr), scaler.transform(Xte)
    est = make(method, seed)
    t = time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if method == "SVC":
            est.fit(Xtr[: len(lab)], y[lab])
        else:
            est.fit(Xtr, np.r_[y[lab], np.full(len(unl), -1)])
        acc = float(np.mean(est.predict(Xte) == y[test]))
    return {"set": name, "rate": rate, "seed": seed, "prep": prep, "method": method,
            "acc": acc, "cpu": time.process_time() - t, "n_lab": len(lab)}  # fmt: skip


def report(args, runs, sets, methods):
    lines = bench.header("Semi-supervised defaults against SVC on the labeled rows")
    lines += [
        f"Seeds {args.seeds}; test accuracy, mean over seeds (then over sets). `SVC`: "
        "sklearn.svm.SVC() on the labeled rows only. `-unscaled`: standardize=False (the "
        "defaults before issue 46). `std`: StandardScaler on all training rows first. "
        + (
            f"Shuttle: {args.shuttle_unlabeled:,} unlabeled rows of the 43,065, test file "
            "accuracy. "
            if "shuttle" in sets
            else ""
        )
        + "A cell in bold is below SVC's on the same set and features.",
        "",
    ]
    for rate in args.rates:
        for prep in ("raw", "std"):
            lines += [f"## {rate:.0%} labeled, {prep} features", ""]
            lines += ["| set | " + " | ".join(methods) + " |",
                      "|---|" + "---:|" * len(methods)]  # fmt: skip
            means = {m: [] for m in methods}
            for s in sets:
                cell = {}
                for m in methods:
                    key = (s, rate, prep, m)
                    accs = [r["acc"] for r in runs
                            if (r["set"], r["rate"], r["prep"], r["method"]) == key]  # fmt: skip
                    cell[m] = float(np.mean(accs)) if accs else np.nan
                    means[m].append(cell[m])
                ref = cell.get("SVC", np.nan)
                row = [f"**{cell[m]:.3f}**" if cell[m] < ref - 1e-9 else f"{cell[m]:.3f}"
                       for m in methods]  # fmt: skip
                lines.append(f"| {s} | " + " | ".join(row) + " |")
            row = [f"{np.nanmean(means[m]):.4f}" for m in methods]
            lines.append("| **mean** | " + " | ".join(row) + " |")
            lines.append("")
    cpu = {m: np.mean([r["cpu"] for r in runs if r["method"] == m]) for m in methods}
    lines += ["CPU seconds per fit (mean): "
              + ", ".join(f"{m} {cpu[m]:.2f}" for m in methods), ""]  # fmt: skip
    bench.write_markdown(args, args.name, lines)


def main() -> None:
    ap = bench.parser(__doc__, quick="2 small sets, 1 seed, 5% labeled", name="ssl_defaults")
    ap.add_argument("--sets", nargs="*", help="UCI names and/or shuttle (default: all)")
    ap.add_argument("--rates", nargs="*", type=float, default=[0.01, 0.05])
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--methods", nargs="*", default=list(METHODS))
    ap.add_argument("--shuttle-rda", help="mlbench's Shuttle.rda (r-cran-mlbench)")
    ap.add_argument("--shuttle-unlabeled", type=int, default=4000)
    args = bench.parse(ap)
    from unlabeled.datasets import UCI_SMALL_NAMES, load_uci_small

    if args.quick:
        args.sets, args.seeds, args.rates = ["heart", "liverDisorders"], 1, [0.05]
    names = args.sets or [*UCI_SMALL_NAMES, *(["shuttle"] if args.shuttle_rda else [])]
    data = {}
    for name in names:
        if name == "shuttle":
            data[name] = load_shuttle(args.shuttle_rda)
            continue
        loaded = bench.shared_data(args, args.name, TITLE, lambda n=name: load_uci_small(n))
        if loaded is None:
            return
        X, y = loaded
        data[name] = (np.asarray(X, dtype=np.float64), (y == np.unique(y)[1]).astype(int))
    runs = []
    path = bench.output(args, f"{args.name}_runs", ".jsonl")
    with open(path, "w") as out:
        for name, (X, y) in data.items():
            for rate in args.rates:
                for prep in ("raw", "std"):
                    for m in args.methods:
                        for seed in range(args.seeds):
                            r = run_one(name, X, y, rate, seed, prep, m, args)
                            runs.append(r)
                            out.write(json.dumps(r) + "\n")
                print(f"{name} {rate}", flush=True)
    bench.written(path)
    report(args, runs, list(data), args.methods)


if __name__ == "__main__":
    main()
