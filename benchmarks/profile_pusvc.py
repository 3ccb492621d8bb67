"""Where PUSVC's fit time goes: phases (pilot start, engine solve, Python around them), the
engine's counters (iterations, kernel rows computed, cache hits and misses), and the cost of
threads under load.

    python benchmarks/profile_pusvc.py            # writes benchmarks/results/profile_runs.md

The engine call, the start (pilot solve or one-class SVM) and the rest are timed by wrapping
them; the engine's inside is summarised by its counters. Data as in bench_pusvc.py (d = 10),
plus an MNIST-shaped case (d = 784) and the linear kernel at 1,000,000 points.
"""

from __future__ import annotations

import time

import _common as bench
import numpy as np

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


def timed(owner, name, log):
    """Wrap owner.name so that each call's duration is appended to log; returns an undo."""
    original = getattr(owner, name)

    def wrapper(*args, **kwargs):
        t0 = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            log.append(time.perf_counter() - t0)

    setattr(owner, name, wrapper)
    return lambda: setattr(owner, name, original)


def profile(kernel, n, d, solver):
    import unlabeled.pu._starts as starts
    from unlabeled import PUSVC, _engine, _products

    X, s = make(n, d)
    clf = PUSVC(prior=0.4, lam=0.01, kernel=kernel, gamma=1.0 / d, solver=solver)
    engine, start, blas = [], [], []
    undo = [
        timed(_engine, "solve_pu", engine),
        timed(_products.KernelProducts, "__call__", blas),
        timed(starts, "ocsvm_start", start),
        timed(starts, "pilot_start", start),
    ]
    t0 = time.perf_counter()
    try:
        clf.fit(X, s)
    finally:
        for u in undo:
            u()
    total = time.perf_counter() - t0
    # the last engine call is the solve itself; earlier ones belong to the pilot start
    return {"total": total, "engine": engine[-1], "start": sum(start), "blas": sum(blas),
            "iters": clf.n_iter_,
            "sv": clf.support_.size, **clf.cache_stats_}  # fmt: skip


def main():
    ap = bench.parser(__doc__, quick="the cases at a tenth of their size (smoke run)")
    args = ap.parse_args()
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
        n = n // 10 if args.quick else n
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
