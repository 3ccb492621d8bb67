"""Multi-instance bag accuracy on the five standard sets (Musk1, Musk2, Elephant, Fox, Tiger):
WellSVM against mi-SVM and MI-SVM (Andrews et al. 2002, on the same engine) and two
scikit-learn pipelines that users run today, with fit times from the same run.

Protocol: 10-fold cross-validation over bags (stratified), repeated; bag accuracy. Features are
standardised inside each training fold (the scaler sees the training instances only). Every
method chooses its parameters by 3-fold cross-validation over the training bags of the fold,
from a grid of the same size (6 points) for every method:

- WellSVM, mi-SVM, MI-SVM: gamma in {0.5, 1, 2} / n_features, (weight of the positive bags
  or instances, weight of the negative instances) in {(1, 1), (10, 1)};
- SVC on the instances, each labeled by its bag, bag value = the largest instance value;
- SVC on a bag embedding (mean, max and min of each feature over the bag's instances, then
  standardised): both with gamma in {0.5, 1, 2} / n_features_seen and C in {1, 10}.

``--grid wide`` (``results/mil-wide.md``, its own runs file): 12 points for every method,
the same gammas with the weights {(10, 1), (10, 10), (100, 10), (100, 100)} for the MIL
SVMs and C in {1, 10, 100, 1000} for the SVCs. In the narrow grid WellSVM chose its largest
weights (10, 1) in nearly every fold, and the archived ceiling diagnostic (on the folds of
repeat 0, ``benchmarks/archive/mil_ceiling.md``) found its best fixed choices at a larger
negative weight; the wide grid is therefore run from repeat 1 on (``--first-repeat 1``), on
folds that did not inform it.

Fit time: the refit with the chosen parameters on the whole training fold, and the whole
selection (the inner CV and the refit), seconds on one core (BLAS limited to one thread).

    python benchmarks/bench_mil.py                       # the full protocol: 5 repeats
    python benchmarks/bench_mil.py --repeats 1           # the reduced run committed
    python benchmarks/bench_mil.py --quick               # smoke: 1 fold of musk1, 1 grid point
    python benchmarks/bench_mil.py --variants            # WellSVM's options, fixed parameters
    python benchmarks/bench_mil.py --grid wide --first-repeat 1 --repeats 2   # repeat 1

``--defaults`` (``results/mil_defaults.md``): every method with its defaults, as a new user
runs it (no parameter search), on one 10-fold CV per set (the folds of repeat 0 unless
``--first-repeat`` names another): ``MILWellSVM()``, ``MISVM()``, ``miSVM()`` on the instances
standardised per training fold, and ``SVC()`` (``gamma="scale"``, ``C=1``) on the bag
embedding (mean, max and min, standardised per training fold); bag accuracy per set, the total
fit time of each method over all folds and sets (one process, one core, in the same run) and
its ratio to MI-SVM's.

    python benchmarks/bench_mil.py --defaults --n-jobs 1 # results/mil_defaults.md
    python benchmarks/bench_mil.py --defaults --n-jobs 1 --report-only  # its table again

``--variants`` compares WellSVM's violated-choice search (``oracle="ascent"``, the default,
against the paper's one step ``"paper"``) and its model (``model="rounded"``, the default,
against the paper's mixture ``"relaxation"``) at fixed parameters (C1 = 10, C2 = 1,
gamma = 1 / n_features), one 10-fold CV per set (``results/mil_variants.md``).

Rows are appended to ``results/mil_runs.jsonl`` as folds finish (a repeat already there is
not run again), and the table ``results/mil.md`` is written from all rows in that file.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import time
import warnings
from pathlib import Path

import _harness as bench
import numpy as np
from joblib import Parallel, delayed
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import StratifiedKFold
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC
from threadpoolctl import threadpool_limits

from unlabeled.datasets import MIL_NAMES, load_mil
from unlabeled.mil import MISVM, MILWellSVM, miSVM

HERE = Path(__file__).parent
COMMIT = subprocess.run(
    ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=HERE
).stdout.strip()
METHODS = ("WellSVM", "mi-SVM", "MI-SVM", "SVC instances", "SVC embedding")
GAMMAS = (0.5, 1.0, 2.0)
# (positive, negative) weights of the MIL SVMs, C of the SVCs (as (C, 1)), by --grid
WEIGHTS = {
    "quick": (((10.0, 1.0),),) * 2,  # --quick: one point (and the one gamma multiplier 1)
    "narrow": (((1.0, 1.0), (10.0, 1.0)),) * 2,
    "wide": (
        ((10.0, 1.0), (10.0, 10.0), (100.0, 10.0), (100.0, 100.0)),
        ((1.0, 1.0), (10.0, 1.0), (100.0, 1.0), (1000.0, 1.0)),
    ),
}


def grid(method, name):
    mil, svc = WEIGHTS[name]
    gammas = (1.0,) if name == "quick" else GAMMAS
    return list(itertools.product(gammas, svc if method.startswith("SVC") else mil))


PAPER_NOTE = (
    "The paper's own multi-instance experiment (Section 5.2: locating regions of interest in "
    "500 COREL images, SBN bags, with manually labeled ROIs) cannot be run: those data are not "
    "available here. These five sets are the standard bag-classification benchmarks instead "
    "(the paper reports no bag accuracy on them)."
)


# ---------------------------------------------------------------------- the methods
def _mil(method, gamma, w, **options):
    if method == "WellSVM":
        return MILWellSVM(C1=w[0], C2=w[1], gamma=gamma, **options)
    cls = miSVM if method == "mi-SVM" else MISVM
    return cls(C=w[0], C_negative=w[1], gamma=gamma)


def outer_folds(y, repeat):
    """The 10 stratified folds over bags of repeat ``repeat``: (train, test) bag indices."""
    cv = StratifiedKFold(10, shuffle=True, random_state=repeat)
    return list(cv.split(np.zeros(len(y)), y))


def embed(X, bag, n_bags):
    """Mean, max and min of each feature over each bag's instances: (n_bags, 3 d)."""
    d = X.shape[1]
    mean = np.zeros((n_bags, d))
    np.add.at(mean, bag, X)
    mean /= np.bincount(bag, minlength=n_bags)[:, None]
    hi, lo = np.full((n_bags, d), -np.inf), np.full((n_bags, d), np.inf)
    np.maximum.at(hi, bag, X)
    np.minimum.at(lo, bag, X)
    return np.hstack([mean, hi, lo])


def fit_predict(method, cfg, Xtr, btr, ytr, Xte, bte, **options):
    """Fit ``method`` with ``cfg = (gamma multiplier, weights)`` on the training bags (ids
    ``btr`` per instance, labels ``ytr`` per bag in sorted id order); returns the predicted
    labels of the test bags (sorted id order) and the fit time. ``options``: WellSVM's
    other parameters (``oracle``, ``model``)."""
    g, w = cfg
    _, btr = np.unique(btr, return_inverse=True)
    _, bte = np.unique(bte, return_inverse=True)
    ntr, nte = int(btr.max()) + 1, int(bte.max()) + 1
    if method == "SVC embedding":
        Etr, Ete = embed(Xtr, btr, ntr), embed(Xte, bte, nte)
        sc = StandardScaler().fit(Etr)
        Etr, Ete = sc.transform(Etr), sc.transform(Ete)
        model = SVC(C=w[0], gamma=g / Etr.shape[1])
        t0 = time.perf_counter()
        model.fit(Etr, ytr)
        return model.predict(Ete), time.perf_counter() - t0
    sc = StandardScaler().fit(Xtr)
    Xtr, Xte = sc.transform(Xtr), sc.transform(Xte)
    gamma = g / Xtr.shape[1]
    if method == "SVC instances":
        model = SVC(C=w[0], gamma=gamma)
        t0 = time.perf_counter()
        model.fit(Xtr, ytr[btr])
        elapsed = time.perf_counter() - t0
        best = np.full(nte, -np.inf)
        np.maximum.at(best, bte, model.decision_function(Xte))
        return model.classes_[(best > 0).astype(int)], elapsed
    model = _mil(method, gamma, w, **options)
    t0 = time.perf_counter()
    model.fit(Xtr, ytr, groups=btr)
    return model.predict(Xte, groups=bte), time.perf_counter() - t0


def select_and_fit(method, X, bag, y, tr, te, seed, grid_name):
    """Inner 3-fold CV over the training bags ``tr`` for every point of the grid
    ``grid_name``, then the refit with the best one; returns the row of this outer fold."""
    cands = grid(method, grid_name)
    t0 = time.perf_counter()
    inner = StratifiedKFold(3, shuffle=True, random_state=seed)
    scores = np.zeros(len(cands))
    for itr, ite in inner.split(tr, y[tr]):
        a, b = tr[itr], tr[ite]
        ma, mb = np.isin(bag, a), np.isin(bag, b)
        for k, cfg in enumerate(cands):
            pred, _ = fit_predict(method, cfg, X[ma], bag[ma], y[a], X[mb], bag[mb])
            scores[k] += np.mean(pred == y[b])
    best = cands[int(np.argmax(scores))]
    mtr, mte = np.isin(bag, tr), np.isin(bag, te)
    pred, fit_s = fit_predict(method, best, X[mtr], bag[mtr], y[tr], X[mte], bag[mte])
    return {
        "method": method,
        "acc": float(np.mean(pred == y[te])),
        "fit_s": fit_s,
        "select_s": time.perf_counter() - t0,
        "gamma": best[0],
        "weights": list(best[1]),
    }


def outer_fold(name, repeat, fold, tr, te, grid_name):
    """All methods on one outer fold (one core)."""
    X, bag, y = load_mil(name)
    rows = []
    with threadpool_limits(1), warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for method in METHODS:
            row = select_and_fit(method, X, bag, y, tr, te, 1000 * repeat + fold, grid_name)
            rows.append(
                {
                    "set": name,
                    "repeat": repeat,
                    "fold": fold,
                    "commit": COMMIT,
                    "grid": grid_name,
                    **row,
                }
            )
    return rows


# ---------------------------------------------------------------------- the report
def summarise(rows):
    """Per set and method: mean bag accuracy, its spread (std over folds, and over repeats'
    means when there are several), mean refit and selection times."""
    out = {}
    for (s, m), group in itertools.groupby(
        sorted(rows, key=lambda r: (r["set"], r["method"])), key=lambda r: (r["set"], r["method"])
    ):
        g = list(group)
        acc = np.array([r["acc"] for r in g])
        by_rep = {}
        for r in g:
            by_rep.setdefault(r["repeat"], []).append(r["acc"])
        rep = np.array([np.mean(v) for v in by_rep.values()])
        out[s, m] = {
            "acc": acc.mean(),
            "fold_sd": acc.std(ddof=1) if acc.size > 1 else 0.0,
            "rep_sd": rep.std(ddof=1) if rep.size > 1 else float("nan"),
            "n": acc.size,
            "repeats": rep.size,
            "fit_s": np.mean([r["fit_s"] for r in g]),
            "select_s": np.mean([r["select_s"] for r in g]),
        }
    return out


def complete(rows):
    """The rows of the (set, repeat) pairs whose 10 folds have all run: a repeat cut short
    is left out of the table (its rows stay in the runs file)."""
    folds = {}
    for r in rows:
        folds.setdefault((r["set"], r["repeat"]), set()).add(r["fold"])
    return [r for r in rows if len(folds[r["set"], r["repeat"]]) == 10 or r["repeat"] < 0]


def report(args, rows, path_png):
    rows = rows if args.quick else complete(rows)
    summary = summarise(rows)
    sets = [s for s in MIL_NAMES if any((s, m) in summary for m in METHODS)]
    reps = sorted({r["repeat"] for r in rows})
    per_set = {s: len({r["repeat"] for r in rows if r["set"] == s}) for s in sets}
    lines = bench.header(
        "Multi-instance bag accuracy: WellSVM, mi-SVM, MI-SVM and two SVC pipelines"
    )
    reduced = min(per_set.values(), default=0) < 5 and not args.quick
    commits = sorted({r.get("commit", "3893ed9") for r in rows})
    full = "--repeats 5" if args.grid == "narrow" else "--grid wide --first-repeat 1 --repeats 6"
    lines += [
        f"Code: the rows were computed at commit(s) {', '.join(commits)} (each row of "
        f"`{stem(args)}_runs.jsonl` names its own).",
        "",
        "Complete repeats of 10-fold CV in this file: "
        + ", ".join(f"{s} {k}" for s, k in per_set.items())
        + (
            " (REDUCED protocol: the full one is 5 repeats, `python benchmarks/bench_mil.py "
            f"{full}`)."
            if reduced
            else "."
        ),
        "",
        PAPER_NOTE,
        "",
        "Bag accuracy, mean over all outer folds; +- the standard deviation over folds"
        + (" (in brackets: over the repeats' means)" if len(reps) > 1 else "")
        + ". "
        "Bold: the best of the row. Parameters by inner 3-fold CV, "
        f"{len(grid('WellSVM', args.grid))} grid points for every method (grid "
        f"`{args.grid}`, see the script's docstring).",
        "",
        "| set | " + " | ".join(METHODS) + " | WellSVM >= best other |",
        "|---|" + "---|" * (len(METHODS) + 1),
    ]
    wins = 0
    for s in sets:
        accs = {m: summary[s, m]["acc"] for m in METHODS if (s, m) in summary}
        top = max(accs.values())
        cells = []
        for m in METHODS:
            if (s, m) not in summary:
                cells.append("-")
                continue
            v = summary[s, m]
            txt = f"{v['acc']:.3f} +- {v['fold_sd']:.3f}"
            if v["repeats"] > 1:
                txt += f" ({v['rep_sd']:.3f})"
            cells.append(f"**{txt}**" if v["acc"] == top else txt)
        others = max(a for m, a in accs.items() if m != "WellSVM")
        ok = accs.get("WellSVM", -1) >= others
        wins += ok
        lines.append(f"| {s} | " + " | ".join(cells) + f" | {'yes' if ok else 'no'} |")
    goal = "met" if wins >= 4 else "NOT met"
    lines += [
        "",
        f"Goal (WellSVM at least the best other method on at least 4 of the 5 sets): "
        f"{wins} of {len(sets)} sets: {goal}.",
        "",
        "Fit time, seconds per outer fold: the refit with the chosen parameters on the whole "
        "training fold (and, in brackets, the whole selection: "
        f"{3 * len(grid('WellSVM', args.grid))} inner fits and the refit); "
        "ratio = method / WellSVM refit.",
        "",
        "| set | " + " | ".join(METHODS) + " |",
        "|---|" + "---|" * len(METHODS),
    ]
    for s in sets:
        ref = summary[s, "WellSVM"]["fit_s"] if (s, "WellSVM") in summary else np.nan
        cells = [
            f"{summary[s, m]['fit_s']:.3f} ({summary[s, m]['select_s']:.1f}) "
            f"x{summary[s, m]['fit_s'] / ref:.2g}"
            if (s, m) in summary
            else "-"
            for m in METHODS
        ]
        lines.append(f"| {s} | " + " | ".join(cells) + " |")
    lines += ["", "Chosen parameters (gamma multiplier, weights), counts over the outer folds:", ""]
    for s in sets:
        for m in METHODS:
            picks = [
                str((r["gamma"], tuple(r["weights"])))
                for r in rows
                if r["set"] == s and r["method"] == m
            ]
            vals, counts = np.unique(np.array(picks), return_counts=True)
            pairs = zip(vals, counts, strict=True)
            lines.append(f"- {s}, {m}: " + ", ".join(f"{v} x{c}" for v, c in pairs))
    bench.write_markdown(args, stem(args), lines)
    plot(summary, sets, path_png)


def plot(summary, sets, path):
    plt = bench.pyplot()
    if plt is None:
        return
    fig, ax = plt.subplots(figsize=(9, 3.6))
    width = 0.8 / len(METHODS)
    for k, m in enumerate(METHODS):
        acc = [summary[s, m]["acc"] if (s, m) in summary else np.nan for s in sets]
        sd = [summary[s, m]["fold_sd"] if (s, m) in summary else 0 for s in sets]
        ax.bar(
            np.arange(len(sets)) + (k - len(METHODS) / 2 + 0.5) * width,
            acc,
            width,
            yerr=sd,
            label=m,
            capsize=2,
        )
    ax.set_xticks(np.arange(len(sets)), sets)
    ax.set_ylim(0.4, 1.0)
    ax.set_ylabel("bag accuracy")
    ax.legend(ncol=5, fontsize=8, loc="upper center")
    bench.save_figure(fig, path)


DEFAULTS = ("MILWellSVM", "MI-SVM", "mi-SVM", "SVC embedding")


def defaults_fold(name, repeat, fold, tr, te):
    """Every method of ``DEFAULTS`` with its defaults on one outer fold: bag accuracy and
    fit time (one core)."""
    X, bag, y = load_mil(name)
    mtr, mte = np.isin(bag, tr), np.isin(bag, te)
    _, btr = np.unique(bag[mtr], return_inverse=True)
    _, bte = np.unique(bag[mte], return_inverse=True)
    sc = StandardScaler().fit(X[mtr])
    Xtr, Xte = sc.transform(X[mtr]), sc.transform(X[mte])
    Etr, Ete = embed(X[mtr], btr, tr.size), embed(X[mte], bte, te.size)
    se = StandardScaler().fit(Etr)
    Etr, Ete = se.transform(Etr), se.transform(Ete)
    rows = []
    with threadpool_limits(1), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for method in DEFAULTS:
            caught.clear()
            if method == "SVC embedding":
                model = SVC()
                t0 = time.perf_counter()
                model.fit(Etr, y[tr])
                elapsed = time.perf_counter() - t0
                pred = model.predict(Ete)
            else:
                model = {"MILWellSVM": MILWellSVM, "MI-SVM": MISVM, "mi-SVM": miSVM}[method]()
                t0 = time.perf_counter()
                model.fit(Xtr, y[tr], groups=btr)
                elapsed = time.perf_counter() - t0
                pred = model.predict(Xte, groups=bte)
            rows.append(
                {
                    "set": name,
                    "repeat": repeat,
                    "fold": fold,
                    "method": method,
                    "acc": float(np.mean(pred == y[te])),
                    "fit_s": elapsed,
                    "commit": COMMIT,
                    "warnings": sorted({type(w.message).__name__ for w in caught}),
                    "load": os.getloadavg()[0],  # the machine's 1-minute load after the fit
                }
            )
    return rows


def _load_note(rows):
    """The machine's load during a run (the rows record the 1-minute load average after
    each fit), or nothing for rows of runs that did not record it."""
    loads = [r["load"] for r in rows if "load" in r]
    if not loads:
        return []
    return [
        f"Load average (1 minute) after the fits: {min(loads):.1f} to {max(loads):.1f} "
        f"(median {np.median(loads):.1f}) on the machine's {os.cpu_count()} cores; the "
        "machine is shared, the seconds vary with the load: compare the ratios, measured in "
        "the same run.",
        "",
    ]


def run_defaults(args, labels):
    """``--defaults``: the table of ``results/mil_defaults.md`` (module docstring)."""
    stem_ = "mil_defaults"
    out = bench.output(args, stem_ + "_runs", ".jsonl")
    if args.report_only:  # the table from the rows of an earlier run
        rows = [json.loads(ln) for ln in out.read_text().splitlines()]
    else:
        tasks = []
        for name, y in labels.items():
            for fold, (tr, te) in enumerate(outer_folds(y, args.first_repeat)):
                if not (args.quick and fold >= 1):
                    tasks.append((name, args.first_repeat, fold, tr, te))
        jobs = Parallel(n_jobs=args.n_jobs)(delayed(defaults_fold)(*t) for t in tasks)
        rows = [r for fold_rows in jobs for r in fold_rows]
        out.write_text("".join(json.dumps(r) + "\n" for r in rows))
        bench.written(out)
    sets = list(dict.fromkeys(r["set"] for r in rows))
    acc = {(r["set"], r["method"]): [] for r in rows}
    total = dict.fromkeys(DEFAULTS, 0.0)
    warned = {m: 0 for m in DEFAULTS}
    for r in rows:
        acc[r["set"], r["method"]].append(r["acc"])
        total[r["method"]] += r["fit_s"]
        warned[r["method"]] += bool(r["warnings"])
    n_folds = len(rows) // len(DEFAULTS)
    lines = bench.header("Multi-instance learners with their defaults")
    lines += [
        f"Code: commit {', '.join(sorted({r['commit'] for r in rows}))}. Every method with "
        "its defaults (no parameter search): "
        "`MILWellSVM()`, `MISVM()`, `miSVM()` on the instances standardised per training "
        'fold; `SVC()` (scikit-learn: `gamma="scale"`, `C=1`) on the bag embedding '
        "(mean, max and min of each feature over the bag, standardised per training fold). "
        f"One 10-fold CV over bags per set (stratified, the folds of repeat {args.first_repeat}"
        " of `mil.md`), the same folds for every method; fit times on one core, all methods "
        f"in the same run ({args.n_jobs} fold(s) at a time).",
        "",
        *_load_note(rows),
        "Bag accuracy (mean +- std over the folds); bold: the best of the row.",
        "",
        "| set | " + " | ".join(DEFAULTS) + " | MILWellSVM >= SVC embedding |",
        "|---|" + "---|" * (len(DEFAULTS) + 1),
    ]
    wins = 0
    for name in sets:
        means = {m: float(np.mean(acc[name, m])) for m in DEFAULTS}
        top = max(means.values())
        cells = []
        for m in DEFAULTS:
            v = np.array(acc[name, m])
            txt = f"{v.mean():.3f} +- {v.std(ddof=1) if v.size > 1 else 0.0:.3f}"
            cells.append(f"**{txt}**" if means[m] == top else txt)
        ok = means["MILWellSVM"] >= means["SVC embedding"]
        wins += ok
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {'yes' if ok else 'no'} |")
    ratio = total["MILWellSVM"] / total["MI-SVM"]
    lines += [
        "",
        f"MILWellSVM at least the bag-embedding SVC on {wins} of {len(sets)} sets.",
        "",
        f"Total fit time over the {n_folds} fits of each method (seconds), the ratio to "
        "MI-SVM's, and the fits that warned (ConvergenceWarning or UserWarning):",
        "",
        "| method | total fit s | / MI-SVM | fits that warned |",
        "|---|---|---|---|",
    ]
    for m in DEFAULTS:
        lines.append(
            f"| {m} | {total[m]:.2f} | {total[m] / total['MI-SVM']:.2f} | {warned[m]} of "
            f"{n_folds} |"
        )
    lines += [
        "",
        f"MILWellSVM's total fit time is {ratio:.2f}x MI-SVM's.",
        "",
        "Fit time per set (seconds, the 10 folds together; in brackets: / MI-SVM):",
        "",
        "| set | " + " | ".join(DEFAULTS) + " |",
        "|---|" + "---|" * len(DEFAULTS),
    ]
    for name in sets:
        t = {
            m: sum(r["fit_s"] for r in rows if r["set"] == name and r["method"] == m)
            for m in DEFAULTS
        }
        lines.append(
            f"| {name} | "
            + " | ".join(f"{t[m]:.2f} (x{t[m] / t['MI-SVM']:.2g})" for m in DEFAULTS)
            + " |"
        )
    lines += [
        "",
        "How MILWellSVM's defaults were chosen (on other folds: seed 1) is in its "
        "docstring; the folds here took no part in the choice.",
    ]
    bench.write_markdown(args, stem_, lines)


VARIANTS = [(o, m) for m in ("rounded", "relaxation") for o in ("ascent", "paper")]


def variant_fold(name, fold, tr, te):
    """WellSVM's four variants on one outer fold: accuracy, fit time, final objective."""
    X, bag, y = load_mil(name)
    mtr, mte = np.isin(bag, tr), np.isin(bag, te)
    sc = StandardScaler().fit(X[mtr])
    Xtr, Xte = sc.transform(X[mtr]), sc.transform(X[mte])
    rows = []
    with threadpool_limits(1), warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for oracle, model in VARIANTS:
            clf = MILWellSVM(C1=10.0, C2=1.0, gamma=1.0 / X.shape[1], oracle=oracle, model=model)
            t0 = time.perf_counter()
            clf.fit(Xtr, y[tr], groups=bag[mtr])
            rows.append(
                {
                    "set": name,
                    "fold": fold,
                    "oracle": oracle,
                    "model": model,
                    "fit_s": time.perf_counter() - t0,
                    "objective": clf.objective_history_[-1],
                    "acc": float(np.mean(clf.predict(Xte, groups=bag[mte]) == y[te])),
                }
            )
    return rows


def stem(args):
    return "mil" if args.grid in ("narrow", "quick") else f"mil-{args.grid}"


def run_variants(args):
    tasks = []
    for name in ["musk1"] if args.quick else args.sets:
        _, _, y = load_mil(name)
        for fold, (tr, te) in enumerate(outer_folds(y, 0)):
            if not (args.quick and fold >= 2):
                tasks.append((name, fold, tr, te))
    rows = [
        r
        for fr in Parallel(n_jobs=args.n_jobs)(delayed(variant_fold)(*t) for t in tasks)
        for r in fr
    ]
    lines = bench.header("WellSVM (multi-instance): the violated-choice search and the model")
    lines += [
        "Fixed parameters C1 = 10, C2 = 1, gamma = 1 / n_features (standardised features), "
        "one 10-fold CV over bags per set (folds of repeat 0 of `mil.md`). Bag accuracy "
        "(mean +- std over folds), the relaxation's final value (mean over folds: lower is a "
        "tighter solution of the same convex problem) and the fit time (s, one core).",
        "",
        "| set | " + " | ".join(f"{o}, {m}" for o, m in VARIANTS) + " |",
        "|---|" + "---|" * len(VARIANTS),
    ]
    for name in dict.fromkeys(r["set"] for r in rows):
        cells = []
        for o, m in VARIANTS:
            g = [r for r in rows if r["set"] == name and r["oracle"] == o and r["model"] == m]
            acc = np.array([r["acc"] for r in g])
            cells.append(
                f"{acc.mean():.3f} +- {acc.std(ddof=1):.3f}; obj "
                f"{np.mean([r['objective'] for r in g]):.4g}; "
                f"{np.mean([r['fit_s'] for r in g]):.2f} s"
            )
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    bench.write_markdown(args, "mil_variants", lines)


def main():
    ap = bench.parser(__doc__, quick="a smoke run: 1 outer fold of musk1, 1 grid point")
    ap.add_argument("--repeats", type=int, default=5, help="repeats of 10-fold CV (5)")
    ap.add_argument("--sets", nargs="*", default=list(MIL_NAMES), choices=MIL_NAMES)
    ap.add_argument("--n-jobs", type=int, default=2, help="outer folds run in parallel (2)")
    ap.add_argument("--variants", action="store_true", help="WellSVM's options only")
    ap.add_argument(
        "--defaults",
        action="store_true",
        help="every method with its defaults, one 10-fold CV (mil_defaults.md)",
    )
    ap.add_argument("--report-only", action="store_true", help="write the table from the runs")
    ap.add_argument(
        "--grid",
        choices=WEIGHTS,
        default="narrow",
        help="the parameter grid (narrow; wide writes mil-wide.md; quick: --quick's one point)",
    )
    ap.add_argument(
        "--first-repeat",
        type=int,
        default=0,
        help="run the repeats from this one to --repeats - 1 (0)",
    )
    args = bench.parse(ap)
    title = "Multi-instance bag accuracy"
    sets = ["musk1"] if args.quick else args.sets
    labels = bench.shared_data(args, stem(args), title, lambda: {s: load_mil(s)[2] for s in sets})
    if labels is None:
        return
    if args.quick:
        args.grid, args.first_repeat, args.repeats, args.n_jobs = "quick", 0, 1, 1
    if args.variants:
        return run_variants(args)
    if args.defaults:
        return run_defaults(args, labels)
    runs = bench.output(args, stem(args) + "_runs", ".jsonl")
    rows = [json.loads(ln) for ln in runs.read_text().splitlines()] if runs.exists() else []
    done = {(r["set"], r["repeat"], r["fold"]) for r in rows}
    tasks = []
    for name in [] if args.report_only else sets:
        y = labels[name]
        for repeat in range(args.first_repeat, args.repeats):
            for fold, (tr, te) in enumerate(outer_folds(y, repeat)):
                if (name, repeat, fold) not in done and not (args.quick and fold >= 1):
                    tasks.append((name, repeat, fold, tr, te, args.grid))
    jobs = Parallel(n_jobs=args.n_jobs, return_as="generator_unordered")(
        delayed(outer_fold)(*t) for t in tasks
    )
    with runs.open("a") as fh:
        for fold_rows in jobs:
            for r in fold_rows:
                fh.write(json.dumps(r) + "\n")
            fh.flush()
            rows += fold_rows
            r0 = fold_rows[0]
            accs = ", ".join(f"{r['method']} {r['acc']:.2f}" for r in fold_rows)
            print(f"{r0['set']} repeat {r0['repeat']} fold {r0['fold']}: {accs}", flush=True)
    bench.written(runs)
    report(args, rows, bench.output(args, stem(args), ".png"))


if __name__ == "__main__":
    main()
