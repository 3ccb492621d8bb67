"""Class-prior estimation on the 12 UCI sets: this library against pulearn and pu-toolbox.

    python benchmarks/bench_priors.py                # 10 labelings per set, about 20 minutes
    python benchmarks/bench_priors.py --quick        # smoke: 1 labeling of heart

Protocol (../shared/spec/protocol.md): the 12 UCI sets of ../shared/data/uci-small (or
--data-home, or $UNLABELED_DATA_UCI); 20% of the positives labeled at random (labeling seeds
0, 1, ...), everything else unlabeled. The target of every estimator is the TRUE proportion of
positives among the unlabeled points (the prior of PUSVC). Metric: absolute error, averaged
over the labelings of a set and over all sets and labelings; the time of one fit.

Estimators (all with their defaults; every random one seeded with the labeling seed):
  ours        KM1, KM2, PenalizedL1, ElkanNoto, TIcE        (unlabeled.pu.priors)
  pulearn     HistogramMatchPriorEstimator, ScarEMPriorEstimator (their pi_ is the share of
              positives in the whole set: converted by pi_U = (pi N - p) / n), and
              ElkanotoPuClassifier(LogisticRegression) (its c, converted by p (1 - c) / (c n))
  pu-toolbox  KernelMeanPriorEstimator (km1, km2), ClassPriorEstimator (penalised L1) and
              ReCPEEstimator; their estimates are the proportion in the unlabeled mixture.
A library that does not import is reported with its error; a fit that fails counts as failed
(its error is listed) and is left out of the means.

Writes benchmarks/results/bench_priors.md (or bench_priors-quick.md).
"""

from __future__ import annotations

import sys
import time
import traceback
import warnings

import _harness as bench
import numpy as np

from unlabeled.datasets import UCI_SMALL_NAMES, load_uci_small, make_pu_labels
from unlabeled.pu.priors import (
    KM1,
    KM2,
    ElkanNoto,
    PenalizedL1,
    TIcE,
    prior_from_label_frequency,
)

OURS = {
    "KM1": lambda seed: KM1(random_state=seed),
    "KM2": lambda seed: KM2(random_state=seed),
    "PenalizedL1": lambda seed: PenalizedL1(random_state=seed),
    "ElkanNoto": lambda seed: ElkanNoto(random_state=seed),
    "TIcE": lambda seed: TIcE(random_state=seed),
}


def our_methods():
    def fit(make):
        return lambda X, s, seed: make(seed).fit(X, s).prior_

    return {name: fit(make) for name, make in OURS.items()}


def pulearn_methods():
    """{name: fn(X, s, seed) -> prior among U} or the import error."""
    try:
        from pulearn import ElkanotoPuClassifier
        from pulearn.priors import HistogramMatchPriorEstimator, ScarEMPriorEstimator
        from sklearn.linear_model import LogisticRegression
    except Exception as exc:  # noqa: BLE001 - reported in the results
        return f"{type(exc).__name__}: {exc}"

    def whole_to_unlabeled(pi, s):
        p, n = int(s.sum()), int((s == 0).sum())
        return (pi * (p + n) - p) / n

    def elkanoto(X, s, seed):
        clf = ElkanotoPuClassifier(LogisticRegression(max_iter=1000), random_state=seed)
        c = clf.fit(X, s).c
        return prior_from_label_frequency(c, int(s.sum()), int((s == 0).sum()))

    return {
        "pulearn HistogramMatch": lambda X, s, seed: whole_to_unlabeled(
            HistogramMatchPriorEstimator().fit(X, s).pi_, s
        ),
        "pulearn ScarEM": lambda X, s, seed: whole_to_unlabeled(
            ScarEMPriorEstimator().fit(X, s).pi_, s
        ),
        "pulearn Elkanoto": elkanoto,
    }


def putoolbox_methods():
    try:
        from pu_toolbox.prior import (
            ClassPriorEstimator,
            KernelMeanPriorEstimator,
            ReCPEEstimator,
        )
    except Exception as exc:  # noqa: BLE001 - reported in the results
        return f"{type(exc).__name__}: {exc}"
    return {
        "pu-toolbox KM1": lambda X, s, seed: (
            KernelMeanPriorEstimator(variant="km1", random_state=seed).fit(X, s).estimate()
        ),
        "pu-toolbox KM2": lambda X, s, seed: (
            KernelMeanPriorEstimator(variant="km2", random_state=seed).fit(X, s).estimate()
        ),
        "pu-toolbox PenL1": lambda X, s, seed: ClassPriorEstimator().fit(X, s).estimate(),
        "pu-toolbox ReCPE": lambda X, s, seed: ReCPEEstimator().fit(X, s).estimate(),
    }


def library_versions():
    from importlib.metadata import PackageNotFoundError, version

    out = []
    for dist in ("pulearn", "pu-toolbox"):
        try:
            out.append(f"{dist} {version(dist)}")
        except PackageNotFoundError:
            out.append(f"{dist} not installed")
    return ", ".join(out)


def main():
    ap = bench.parser(__doc__, quick="a smoke run: 1 labeling of heart")
    ap.add_argument("--labelings", type=int, default=10, help="random labelings per set")
    ap.add_argument("--sets", nargs="*", default=list(UCI_SMALL_NAMES), help="subset of sets")
    ap.add_argument("--data-home", default=None, help="folder of the .mat files")
    args = bench.parse(ap)
    if args.quick:
        args.labelings, args.sets = 1, ["heart"]
    title = "Class-prior estimation on the UCI sets"
    load = lambda: {n: load_uci_small(n, data_home=args.data_home) for n in args.sets}  # noqa: E731
    data = bench.shared_data(args, "bench_priors", title, load)
    if data is None:
        return 0

    methods, unavailable = dict(our_methods()), {}
    for lib, found in (("pulearn", pulearn_methods()), ("pu-toolbox", putoolbox_methods())):
        if isinstance(found, str):
            unavailable[lib] = found
            bench.skip(lib, f"not available: {found}")
        else:
            methods.update(found)
    names = list(methods)

    # err[name][set] = list of signed errors; times[name] = list of seconds; fails[name] = list
    err = {m: {} for m in names}
    times = {m: [] for m in names}
    fails = {m: [] for m in names}
    t_start = time.perf_counter()
    for set_name in args.sets:
        X, y = data[set_name]
        for seed in range(args.labelings):
            s = make_pu_labels(y, labeled_fraction=0.2, random_state=seed)
            truth = float(y[s == 0].mean())
            for m in names:
                t0 = time.perf_counter()
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        est = float(methods[m](X, s, seed))
                    if not np.isfinite(est):
                        raise ValueError(f"non-finite estimate {est}")
                except Exception as exc:  # noqa: BLE001 - counted and listed as a failure
                    last = traceback.format_exception_only(type(exc), exc)[-1].strip()
                    fails[m].append(f"{set_name} seed {seed}: {last[:160]}")
                    continue
                times[m].append(time.perf_counter() - t0)
                err[m].setdefault(set_name, []).append(est - truth)
        elapsed = time.perf_counter() - t_start
        print(f"[{elapsed / 60:5.1f} min] {set_name} done", flush=True)
        print(set_table(set_name, err, names, X.shape, y, args.labelings), flush=True)
    wall = time.perf_counter() - t_start
    lines = report(args, err, times, fails, names, unavailable, wall)
    bench.write_markdown(args, "bench_priors", lines)
    return 0


def set_table(set_name, err, names, shape, y, labelings):
    rows = [
        f"### {set_name} ({shape[0]} x {shape[1]}, {100 * y.mean():.1f}% positives, "
        f"{labelings} labelings)",
        "",
        "| estimator | MAE | mean error (bias) | std of error |",
        "|---|---:|---:|---:|",
    ]
    for m in names:
        e = np.asarray(err[m].get(set_name, []))
        if e.size == 0:
            rows.append(f"| {m} | failed | | |")
            continue
        rows.append(f"| {m} | {np.abs(e).mean():.3f} | {e.mean():+.3f} | {e.std():.3f} |")
    return "\n".join(rows) + "\n"


def per_set_table(what, cell, err, names, sets):
    """A table of ``cell(errors)`` per set (rows) and estimator (columns)."""
    lines = [f"## Per set ({what})", "", "| set | " + " | ".join(names) + " |"]
    lines.append("|---|" + "---:|" * len(names))
    for set_name in sets:
        cells = [cell(err[m][set_name]) if err[m].get(set_name) else "failed" for m in names]
        lines.append(f"| {set_name} | " + " | ".join(cells) + " |")
    return lines


def report(args, err, times, fails, names, unavailable, wall):
    note = f"run from the project root; {args.labelings} labelings per set; one process, "
    note += f"{wall / 60:.1f} min in all"
    lines = [
        *bench.header("Class-prior estimation on the 12 UCI sets", note),
        f"Libraries: {library_versions()}.",
        "",
        "Protocol: 20% of the positives labeled at random (labeling seeds 0, 1, ...), the rest "
        "unlabeled. Target: the true proportion of positives among the unlabeled points. "
        "**MAE**: mean absolute error over all sets and labelings (equal weight per labeling); "
        "**bias**: mean signed error; **time**: mean seconds per fit. Every estimator with its "
        "default settings. pulearn's `pi_` (share of positives in the whole set) and its "
        "Elkanoto `c` are converted to the share among the unlabeled points; pu-toolbox's "
        "estimators already estimate that share.",
        "",
    ]
    for lib, why in unavailable.items():
        lines += [f"**{lib} is not available**: `{why}`", ""]
    lines += [
        "## Summary",
        "",
        "| estimator | library | MAE | bias | sets won | time per fit (s) | failed fits |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    # per set, which estimator has the lowest MAE
    wins = dict.fromkeys(names, 0)
    for set_name in args.sets:
        scores = {
            m: np.abs(err[m][set_name]).mean() for m in names if err[m].get(set_name) is not None
        }
        if scores:
            wins[min(scores, key=scores.get)] += 1
    summary = {}
    for m in names:
        e = np.concatenate([np.asarray(v) for v in err[m].values()]) if err[m] else np.array([])
        summary[m] = np.abs(e).mean() if e.size else np.inf
        lib = "pulearn" if m.startswith("pulearn") else "pu-toolbox" if "toolbox" in m else "ours"
        lines.append(
            f"| {m} | {lib} | "
            + (f"{np.abs(e).mean():.3f} | {e.mean():+.3f}" if e.size else "— | —")
            + f" | {wins[m]} | {np.mean(times[m]) if times[m] else float('nan'):.2f} "
            f"| {len(fails[m])} |"
        )
    ours = {m: v for m, v in summary.items() if m in OURS}
    theirs = {m: v for m, v in summary.items() if m not in OURS}
    best_ours = min(ours, key=ours.get)
    lines += [""]
    if theirs:
        best_theirs = min(theirs, key=theirs.get)
        met = ours[best_ours] < theirs[best_theirs]
        lines += [
            f"Best of ours: **{best_ours}** (MAE {ours[best_ours]:.3f}). Best of pulearn and "
            f"pu-toolbox: **{best_theirs}** (MAE {theirs[best_theirs]:.3f}). Target (our best "
            f"has the lower MAE): **{'met' if met else 'not met'}**.",
            "",
        ]
    else:
        lines += [f"Best of ours: **{best_ours}**; no other library could be compared.", ""]
    lines += per_set_table("MAE", lambda e: f"{np.abs(e).mean():.3f}", err, names, args.sets)
    lines += [""]
    lines += per_set_table(
        "bias = mean signed error", lambda e: f"{np.mean(e):+.3f}", err, names, args.sets
    )
    failed = {m: f for m, f in fails.items() if f}
    if failed:
        lines += ["", "## Failed fits", ""]
        for m, f in failed.items():
            more = " ..." if len(f) > 5 else ""
            lines.append(f"- **{m}** ({len(f)}): " + "; ".join(f[:5]) + more)
    return lines


if __name__ == "__main__":
    sys.exit(main())
