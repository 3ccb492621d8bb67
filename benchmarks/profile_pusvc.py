"""Where PUSVC's fit time goes: phases (pilot start, engine solve, Python around them), the
engine's counters (iterations, kernel rows computed, cache hits and misses), and the cost of
threads under load.

    python benchmarks/profile_pusvc.py            # writes benchmarks/results/profile_runs.md
    python benchmarks/profile_pusvc.py --quick    # smoke: every case at a hundredth of its size

The engine call, the start (pilot solve or one-class SVM) and the rest are timed by wrapping
them; the engine's inside is summarised by its counters. Data as in bench_pusvc.py (d = 10),
plus an MNIST-shaped case (d = 784) and the linear kernel at 1,000,000 points.
"""

from __future__ import annotations

import time

import _harness as bench
import numpy as np
from _harness.internals import fit_phases

CASES = [  # (kernel, n unlabeled, d, solver)
    ("rbf", 20_000, 10, "smo"),
    ("rbf", 5_000, 10, "usmo"),
    ("rbf", 5_000, 784, "smo"),
    ("linear", 1_000_000, 10, "smo"),
]


def make(n, d, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.4
    Xu = rng.normal(size=(n, d)) + 0.8 * y[:, None] * np.sqrt(10 / d)
    Xp = rng.normal(size=(100, d)) + 0.8 * np.sqrt(10 / d)
    return np.r_[Xp, Xu], np.r_[np.ones(100, int), np.zeros(n, int)]


def profile(kernel, n, d, solver):
    from unlabeled import PUSVC

    X, s = make(n, d)
    clf = PUSVC(prior=0.4, lam=0.01, kernel=kernel, gamma=1.0 / d, solver=solver)
    t0 = time.perf_counter()
    with fit_phases() as log:
        clf.fit(X, s)
    total = time.perf_counter() - t0
    # the last engine call is the solve itself; earlier ones belong to the pilot start
    return {
        "total": total,
        "engine": log["engine"][-1],
        "start": sum(log["start"]),
        "blas": sum(log["blas"]),
        "iters": clf.n_iter_,
        "sv": clf.support_.size,
        **clf.cache_stats_,
    }


def main():
    ap = bench.parser(__doc__, quick="the cases at a hundredth of their size (smoke run)")
    args = bench.parse(ap)
    lines = [
        *bench.header("Where PUSVC's fit time goes"),
        "*engine* is the compiled solve of the whole problem (the pilot's own "
        "engine call counts under *pilot start*), *start* the Python-side starting point "
        "(pilot or one-class SVM, including its own small solve and the pilot's decision "
        "values on all points), *BLAS* the block products of the start and of g at the "
        "positives (rbf/poly on large problems), *rest* validation and bookkeeping. Counters "
        "from the engine.",
        "",
        "| kernel | n | d | solver | total (s) | engine (s) | start (s) | BLAS (s) | rest (s) | "
        "iterations | support vectors | kernel rows computed | cache hits | cache misses | "
        "cache MB |",
        "|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for kernel, n, d, solver in CASES:
        n = n // 100 if args.quick else n
        r = profile(kernel, n, d, solver)
        rest = r["total"] - r["engine"] - r["start"] - r["blas"]
        lines.append(
            f"| {kernel} | {n:,} | {d} | {solver} | {r['total']:.2f} | {r['engine']:.2f} "
            f"| {r['start']:.2f} | {r['blas']:.2f} | {rest:.2f} | {r['iters']:,} | {r['sv']:,} | "
            f"{r['kernel_rows']:,} | {r['hits']:,} | {r['misses']:,} | {r['bytes'] / 2**20:.0f} |"
        )
        print(lines[-1], flush=True)
    bench.write_markdown(args, "profile_runs", lines)


if __name__ == "__main__":
    main()
