"""KM1 and KM2 (Ramaswamy, Scott and Tewari, ICML 2016): this library against pu-toolbox, CPU
time and estimates on tables of the PU suite (issue 51).

    python benchmarks/bench_km.py                 # 8 tables x 2 label rates, about 10 minutes
    python benchmarks/bench_km.py --quick         # smoke: heart at 20%, 300 rows

Protocol: each table of benchmarks/_harness/pu_tables.py capped at --max-rows rows (a stratified
subset, seed 0), features standardised, a share --rates of the positives labeled at random
(make_pu_labels, seed --seed), the rest unlabeled. Target: the true proportion of positives
among the unlabeled points. Each estimator with its defaults, seeded with the labeling seed:

  ours        KM1(), KM2()                          (unlabeled.pu.priors; two fits)
  pu-toolbox  KernelMeanPriorEstimator()            (one fit gives both km1_estimate_ and
                                                     km2_estimate_; its defaults: all points,
                                                     a width of 0.1 median distance)
  pu-toolbox  KernelMeanPriorEstimator(width_selection="mmd_grid", max_samples_per_group=800)
                                                    (the paper's width grid and our default
                                                     subsample: the same algorithm as ours)

With --before COMMIT, KM1 and KM2 of that commit's source (checked out in a temporary git
worktree, run with this checkout's compiled engine, in a child process) on the same data:
their estimates against this checkout's and the speed-up.

CPU time (time.process_time) of one fit, single-threaded BLAS where the caller sets it
(OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1). The ratio column is pu-toolbox's CPU time for both
estimates over ours for KM1 and KM2 together (above 1: ours is faster).

Writes benchmarks/results/bench_km.md (or bench_km-quick.md).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import _harness as bench
import numpy as np
from _harness import pu_tables

from unlabeled.datasets import make_pu_labels
from unlabeled.pu.priors import KM1, KM2

TABLES = (
    "adult", "htru2", "winequality-white", "krvskp", "occupancy",  # tuning half
    "abalone", "phoneme", "bank",  # confirmation half
)  # fmt: skip


def cpu(fn):
    """(fn(), CPU seconds)."""
    t = time.process_time()
    out = fn()
    return out, time.process_time() - t


def ours(X, s, seed):
    (k1, t1) = cpu(lambda: KM1(random_state=seed).fit(X, s).prior_)
    (k2, t2) = cpu(lambda: KM2(random_state=seed).fit(X, s).prior_)
    return {"KM1": k1, "KM2": k2, "cpu": t1 + t2, "cpu KM2": t2}


def toolbox(X, s, seed, **kw):
    from pu_toolbox.prior import KernelMeanPriorEstimator

    est, t = cpu(lambda: KernelMeanPriorEstimator(random_state=seed, **kw).fit(X, s))
    return {"KM1": est.km1_estimate_, "KM2": est.km2_estimate_, "cpu": t}


def load(args):
    from sklearn.preprocessing import StandardScaler

    out = {}
    for name in args.tables:
        X, y = pu_tables.load(name, args.max_rows, args.adult, args.shuttle)
        out[name] = (StandardScaler().fit_transform(X), y)
    return out


def main():
    ap = bench.parser(__doc__, quick="a smoke run: heart at 20%% labeled, 300 rows")
    ap.add_argument("--tables", nargs="*", default=list(TABLES), help="tables of the suite")
    ap.add_argument("--rates", nargs="*", type=float, default=[0.05, 0.2], help="label rates")
    ap.add_argument("--seed", type=int, default=0, help="labeling seed")
    ap.add_argument("--max-rows", type=int, default=4200, help="rows per table")
    ap.add_argument("--adult", default="/tmp/pudata/adult.svm", help="adult_from_wheel.py's file")
    ap.add_argument("--shuttle", default="/tmp/pudata/shuttle_std.svm", help="shuttle's file")
    ap.add_argument("--before", default=None, help="a commit whose KM1/KM2 to compare with")
    ap.add_argument("--as-before", action="store_true", help=argparse.SUPPRESS)
    args = bench.parse(ap)
    if args.quick:
        args.tables, args.rates, args.max_rows = ["heart"], [0.2], 300
    title = "KM1 and KM2: this library against pu-toolbox"
    data = bench.shared_data(args, "bench_km", title, lambda: load(args))
    if data is None:
        return 0
    if args.as_before:  # the child: this library's fits alone, as JSON
        for _name, (X, y) in data.items():
            for rate in args.rates:
                s = make_pu_labels(y, labeled_fraction=rate, random_state=args.seed)
                print(json.dumps(ours(X, s, args.seed)), flush=True)
        return 0
    before = run_before(args) if args.before else None
    try:
        import pu_toolbox  # noqa: F401

        variants = {
            "pu-toolbox (defaults)": {},
            "pu-toolbox (paper's widths, 800 per sample)": {
                "width_selection": "mmd_grid",
                "max_samples_per_group": 800,
            },
        }
    except ImportError as exc:
        bench.skip("pu-toolbox", f"not available: {exc}")
        variants = {}
    rows = []
    for name, (X, y) in data.items():
        for rate in args.rates:
            s = make_pu_labels(y, labeled_fraction=rate, random_state=args.seed)
            row = {"table": name, "rate": rate, "n": X.shape[0], "d": X.shape[1]}
            row["p"], row["truth"] = int(s.sum()), float(y[s == 0].mean())
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                row["ours"] = ours(X, s, args.seed)
                for label, kw in variants.items():
                    try:
                        row[label] = toolbox(X, s, args.seed, **kw)
                    except Exception as exc:  # noqa: BLE001 - reported in the table
                        row[label] = {"error": f"{type(exc).__name__}: {exc}"[:80]}
            if before is not None:
                row[f"before ({args.before})"] = before.pop(0)
            rows.append(row)
            print(row, flush=True)
    if before is not None:
        variants = {f"before ({args.before})": None, **variants}
    bench.write_markdown(args, "bench_km", report(title, rows, list(variants)))
    return 0


def run_before(args):
    """This script's fits under the source of commit ``args.before`` (a temporary worktree,
    this checkout's compiled engine copied in): one result per table and rate."""
    root = Path(__file__).resolve().parent.parent
    with tempfile.TemporaryDirectory() as tmp:
        tree = Path(tmp) / "src"
        subprocess.run(["git", "worktree", "add", "--detach", str(tree), args.before], check=True)
        try:
            for so in (root / "src/unlabeled/_engine").glob("_core*"):
                shutil.copy(so, tree / "src/unlabeled/_engine" / so.name)
            cmd = [sys.executable, __file__, "--as-before", "--seed", str(args.seed)]
            cmd += ["--max-rows", str(args.max_rows), "--adult", args.adult]
            cmd += ["--shuttle", args.shuttle, "--tables", *args.tables, "--rates"]
            cmd += [str(r) for r in args.rates]
            env = {**os.environ, "PYTHONPATH": str(tree / "src")}
            out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(tree)], check=False)
    return [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]


def cells(res, truth, ref_cpu):
    if "error" in res:
        return f"failed: {res['error']} | | |"
    ratio = f"{res['cpu'] / ref_cpu:.2f}" if ref_cpu else f"KM2 alone: {res['cpu KM2']:.2f} s"
    return (
        f"{res['KM1']:.3f} ({abs(res['KM1'] - truth):.3f}) | "
        f"{res['KM2']:.3f} ({abs(res['KM2'] - truth):.3f}) | {res['cpu']:.2f} | {ratio}"
    )


def report(title, rows, variants):
    lines = [
        *bench.header(title, "one process"),
        "Each cell: the estimate (its absolute error against the true share of positives among "
        "the unlabeled points). CPU: seconds of one fit (ours: KM1 and KM2 together, two fits; "
        "pu-toolbox: one fit gives both). Ratio: that library's CPU time over ours (above 1: "
        "ours is faster).",
        "",
    ]
    for label in variants:
        if label.startswith("before"):
            same = sum(r[label]["KM1"] == r["ours"]["KM1"] for r in rows)
            same += sum(r[label]["KM2"] == r["ours"]["KM2"] for r in rows)
            lines += [
                f"Estimates of {label} equal to this checkout's, to the bit: {same} of "
                f"{2 * len(rows)}.",
                "",
            ]
    for label in ["ours", *variants]:
        lines += [
            f"## {label}",
            "",
            "| table | n x d | labeled | truth | KM1 (error) | KM2 (error) | CPU s | ratio |",
            "|---|---|---:|---:|---:|---:|---:|---:|",
        ]
        for r in rows:
            ref = r["ours"]["cpu"] if label != "ours" else None
            lines.append(
                f"| {r['table']} at {100 * r['rate']:g}% | {r['n']:,} x {r['d']} | {r['p']} | "
                f"{r['truth']:.3f} | {cells(r[label], r['truth'], ref)} |"
            )
        ok = [(r[label], r["truth"]) for r in rows if "error" not in r[label]]
        if ok:
            e1, e2 = (np.mean([abs(x[k] - t) for x, t in ok]) for k in ("KM1", "KM2"))
            total = sum(x["cpu"] for x, _ in ok)
            lines += ["", f"CPU in all: {total:.1f} s; KM1 MAE {e1:.3f}, KM2 MAE {e2:.3f}."]
            if "cpu KM2" in ok[0][0]:
                km2 = sum(x["cpu KM2"] for x, _ in ok)
                lines[-1] += f" KM2's fits alone: {km2:.1f} s."
        lines.append("")
    return lines


if __name__ == "__main__":
    raise SystemExit(main())
