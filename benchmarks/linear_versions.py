"""PUSVC's linear path against LIBLINEAR under two builds of the library, on one machine.

bench_scale.py's ratios are taken one run at a time, and its earlier runs were on other
machines; whether a change made the linear path slower *relative to LIBLINEAR* is only known
when the old build and the new one run side by side here. This script builds an earlier
commit into a temporary virtual environment (about 3 minutes), then times both builds in
alternating rounds, each round one fresh process per build:

    python benchmarks/linear_versions.py --ref 09ae742 [--rounds 2]
    python benchmarks/linear_versions.py --quick      # smoke: this build alone, n = 10,000

``--quick`` builds nothing: it times this checkout alone (one round, one fit per process) and
writes the table without the earlier build's columns.

The task is bench_scale's linear one (Poker-hand, class 0 vs all, 100 labeled positives,
lam = 0.01, tol = 1e-3; LinearSVC on the same points with every unlabeled point a negative and
C = c2), n = 10k, 100k, 1M; the median of 9 / 7 / 3 fits per process. Writes
benchmarks/results/linear_versions.md.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import _harness as bench
import numpy as np

SIZES = {10_000: 9, 100_000: 7, 1_000_000: 3}
LAM, N_POS = 0.01, 100


def child(n: int, reps: int) -> None:
    from sklearn.svm import LinearSVC

    from unlabeled import PUSVC
    from unlabeled.datasets import make_poker_hands

    Xu, yu = make_poker_hands(n, random_state=0)
    Xp, yp = make_poker_hands(20 * N_POS, random_state=1)
    X = np.r_[Xp[yp == 0][:N_POS], Xu]
    s = np.r_[np.ones(N_POS, int), np.zeros(n, int)]
    prior = float(np.mean(yu == 0))
    fits = {
        "pusvc": lambda: PUSVC(prior=prior, lam=LAM, kernel="linear").fit(X, s),
        "linearsvc": lambda: LinearSVC(C=1 / (2 * LAM * n), dual="auto").fit(X, s),
    }
    times = {name: [] for name in fits}
    for _ in range(reps):
        for name, fit in fits.items():
            t = time.perf_counter()
            fit()
            times[name].append(time.perf_counter() - t)
    print(json.dumps({name: float(np.median(v)) for name, v in times.items()}))


def build(ref: str, tmp: Path) -> str:
    """The Python of a fresh virtual environment with commit ``ref`` installed."""
    src, venv = tmp / "src", tmp / "venv"
    subprocess.run(["git", "worktree", "add", "--detach", str(src), ref], check=True)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    subprocess.run([python, "-m", "pip", "install", "-q", str(src)], check=True)
    return python


def main() -> None:
    ap = bench.parser(__doc__, child_nargs=2, quick="this build alone at n = 10,000 (no --ref)")
    ap.add_argument("--ref", help="the earlier commit to build (required but with --quick)")
    ap.add_argument("--rounds", type=int, default=2, help="alternating rounds (2)")
    args = bench.parse(ap)
    if args.child:
        child(int(args.child[0]), int(args.child[1]))
        return
    if not args.ref and not args.quick:
        ap.error("--ref is required: the commit to compare with, e.g. --ref 09ae742")
    sizes = {10_000: 1} if args.quick else SIZES
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    this = head.stdout.strip() or "this checkout"
    with tempfile.TemporaryDirectory() as tmp:
        builds = {} if args.quick else {args.ref: build(args.ref, Path(tmp))}
        builds[this] = sys.executable
        try:
            results = {(b, n): [] for b in builds for n in sizes}
            for _ in range(1 if args.quick else args.rounds):
                for n, reps in sizes.items():
                    for b, python in builds.items():
                        cmd = [python, __file__, "--child", str(n), str(reps)]
                        out = subprocess.run(cmd, capture_output=True, text=True, check=True)
                        results[b, n].append(json.loads(out.stdout.strip().splitlines()[-1]))
        finally:
            if not args.quick:
                subprocess.run(["git", "worktree", "remove", "--force", str(Path(tmp) / "src")])
    write_report(args, results, list(builds), sizes)


def write_report(args, results, builds, sizes) -> None:
    """One column group per build (the earlier one first); with two, the change of ratio."""
    lines = [
        *bench.header("PUSVC's linear path against LIBLINEAR: two builds side by side"),
        f"Builds: {' and '.join(f'`{b}`' for b in builds)} (the last is this checkout), in "
        f"{1 if args.quick else args.rounds} alternating rounds of one fresh process per build "
        "and size; each cell is the median over the rounds of the per-process medians. "
        "*ratio* = LinearSVC's time / PUSVC's time (higher: PUSVC relatively faster); "
        "*change* = the new ratio / the old one.",
        "",
        "| n unlabeled | "
        + " | ".join(f"PUSVC {b} (s) | LinearSVC (s) | ratio {b}" for b in builds)
        + (" | change |" if len(builds) == 2 else " |"),
        "|---:|" + "---:|---:|---:|" * len(builds) + ("---:|" if len(builds) == 2 else ""),
    ]
    for n in sizes:
        cells, ratios = [], []
        for b in builds:
            pu = float(np.median([r["pusvc"] for r in results[b, n]]))
            lin = float(np.median([r["linearsvc"] for r in results[b, n]]))
            ratios.append(lin / pu)
            cells += [f"{pu:.4f}", f"{lin:.4f}", f"{lin / pu:.2f}"]
        change = f" {ratios[1] / ratios[0]:.2f} |" if len(builds) == 2 else ""
        lines.append(f"| {n:,} | " + " | ".join(cells) + " |" + change)
    bench.write_markdown(args, "linear_versions", lines)


if __name__ == "__main__":
    main()
