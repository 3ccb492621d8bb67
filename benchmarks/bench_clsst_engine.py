"""CLSST's per-point passes in the engine against their NumPy reference, in one run.

    python benchmarks/bench_clsst_engine.py             # n = 1k, 1M; fits: CAKE, Atom, TOES 1M
    python benchmarks/bench_clsst_engine.py --quick     # smoke: n = 1,000, the CAKE fit

Two measurements, each in its own process, the NumPy kernels and the engine's in turn:

- the time of one sweep of the variational mixture (X, the global factors, Q: three passes over
  the data) on TOES-like rows (``make_toes(n, n_features=10)``, standardised, 10 labeled points
  per class), 5 components, 2 factors, from the same start: the best of three runs of a fixed
  number of sweeps, per sweep; the engine on 1 and 2 threads;
- the E step's pass over one chunk of the Dask driver (q(x) means, Q, its sums and the
  statistics: ``chunk_e_step`` without keeping Xm and Q), on the same rows and start;
- whole default fits, ``CLSST(random_state=0).fit``: CAKE (``make_cake(1000)``, 50 labels per
  class) and FCPS Atom (40 per class; ../shared/data/fcps) as the authors' demos, and TOES with
  1,000,000 rows and 10 labels per class as ``bench_clsst_scale.py``; the engine with its own
  choice of threads (the idle cores); a fit under 10 s runs five times, its median reported.

BLAS runs on one thread in every process, as in a CLSST fit. Writes
benchmarks/results/clsst_engine.md.
"""

from __future__ import annotations

import os
import sys
import time
import warnings

import _harness as bench
import numpy as np

SIZES = "1000,1000000"
SETS = "CAKE,Atom,TOES-1M"
# kernels: (engine, threads); the sweeps compare the first three, the fits the first and last
MODES = {
    "numpy": (False, None),
    "engine, 1 thread": (True, 1),
    "engine, 2 threads": (True, 2),
    "engine": (True, None),
}
SWEEP_MODES, FIT_MODES = list(MODES)[:3], ["numpy", "engine"]


def toes(n: int):
    """TOES-like rows (10 features) standardised, and their labels (10 per class, -1 else)."""
    from unlabeled.datasets import make_toes

    X, y, _ = make_toes(n, n_features=10, random_state=0)
    yl = np.full(n, -1)
    rng = np.random.default_rng(0)
    for c in (0, 1):
        yl[rng.choice(np.flatnonzero(y == c), 10, replace=False)] = c
    return (X - X.mean(0)) / X.std(0), y, yl


def sweep_model(n: int):
    """The mixture on the TOES-like rows after one sweep from a fixed start."""
    from _harness.internals import VBMFA

    Y, _, yl = toes(n)
    allowed = np.ones((n, 2), dtype=bool)
    allowed[yl >= 0] = np.eye(2, dtype=bool)[yl[yl >= 0]]
    rng = np.random.default_rng(0)
    model = VBMFA(Y, allowed, 2)
    model.start(Y[rng.choice(n, 5, replace=False)], 0.1 * rng.normal(size=(5, 10, 2)), Y.var(0))
    model.sweep()
    return model


def best_time(fn, reps: int) -> float:
    """The best of three runs of ``reps`` calls, per call."""
    best = np.inf
    for _ in range(3):
        t0 = time.perf_counter()
        for _ in range(reps):
            fn()
        best = min(best, (time.perf_counter() - t0) / reps)
    return best


def pass_child(mode: str, n: int) -> None:
    from _harness.internals import chunk_e_step, clsst_kernels

    with clsst_kernels(*MODES[mode]):
        m = sweep_model(n)
        W, c = m.x_params()
        args = (m.Yt, W, c, m.logC, m.M, m.psii, m.rho_terms(), m.prior())
        sec = best_time(lambda: chunk_e_step(*args, keep=False), max(2, 100_000 // n))
    bench.report_child(time=sec)


def sweep_child(mode: str, n: int) -> None:
    from _harness.internals import clsst_kernels

    with clsst_kernels(*MODES[mode]):
        m = sweep_model(n)
        sec = best_time(m.sweep, max(2, 100_000 // n))
    bench.report_child(time=sec, F=m.sweep())


def fit_child(mode: str, name: str) -> None:
    from _harness.clsst import DEMOS, draw_labels, load
    from _harness.internals import clsst_kernels
    from sklearn.exceptions import ConvergenceWarning

    from unlabeled.ssl import CLSST

    if name == "TOES-1M":
        X, y, yl = toes(1_000_000)
    else:
        X, y, _ = load(name)
        yl = draw_labels(y, DEMOS[name][0], 0)
    with warnings.catch_warnings(), clsst_kernels(*MODES[mode]):
        warnings.simplefilter("ignore", ConvergenceWarning)
        est, res = bench.measure_fit(lambda: CLSST(random_state=0).fit(X, yl), repeat_below=10.0)
    err = float((est.transduction_[yl < 0] != y[yl < 0]).mean())
    bench.report_child(time=res["time"], sweeps=est.n_iter_, S=est.n_components_, err=err)


def main():
    ap = bench.parser(
        __doc__, child_nargs=3, time_limit=1800.0, quick="a smoke run: n = 1,000, the CAKE fit"
    )
    ap.add_argument("--sizes", default=SIZES, help=f"comma-separated n of the sweeps ({SIZES})")
    ap.add_argument("--sets", default=SETS, help=f"the whole fits ({SETS}; '' for none)")
    args = bench.parse(ap)
    if args.child:
        kind, mode, what = args.child
        if kind == "fit":
            fit_child(mode, what)
        else:
            (sweep_child if kind == "sweep" else pass_child)(mode, int(what))
        return
    os.environ.update(OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1", OMP_NUM_THREADS="1")
    sizes = [1000] if args.quick else [int(s) for s in args.sizes.split(",") if s]
    sets = ["CAKE"] if args.quick else [s for s in args.sets.split(",") if s]
    if "Atom" in sets:
        from _harness.clsst import available

        sets = [s for s in sets if s != "Atom" or available(["Atom"])]
    rows = []
    jobs = [(kind, n, m) for kind in ("sweep", "pass") for n in sizes for m in SWEEP_MODES]
    jobs += [("fit", s, m) for s in sets for m in FIT_MODES]
    for kind, what, mode in jobs:
        res = bench.run_child(__file__, [kind, mode, str(what)], args.time_limit)
        rows.append(dict(kind=kind, what=what, mode=mode, **res))
        print(rows[-1], file=sys.stderr, flush=True)
    write(rows, args)


def write(rows, args):
    lines = bench.header(
        "CLSST: the per-point passes in the engine against NumPy",
        f"time limit {args.time_limit:.0f} s per process",
    )
    lines += [
        "Shared machine: 2 cores with other agents' jobs running (load about 10), so the "
        "ratios, both measured in the same run, are the result; the times are not.",
        "",
        "## One sweep (ms) on TOES-like rows (10 features, 5 components, 2 factors)",
        "",
        "| n | kernels | ms per sweep | NumPy / this |",
        "|---|---|---|---|",
    ]
    sweeps = [dict(r, n=r["what"], method=r["mode"]) for r in rows if r["kind"] == "sweep"]
    lines += bench.table_rows(sweeps, ["n", "method"], _cells("sweep"), 2)
    passes = [dict(r, n=r["what"], method=r["mode"]) for r in rows if r["kind"] == "pass"]
    lines += [
        "",
        "## The E step's pass over one chunk (ms): X, Q, the sums of Q and the statistics",
        "",
        "| n | kernels | ms per pass | NumPy / this |",
        "|---|---|---|---|",
    ]
    lines += bench.table_rows(passes, ["n", "method"], _cells("sweep"), 2)
    fits = [dict(r, method=r["mode"]) for r in rows if r["kind"] == "fit"]
    if fits:
        lines += [
            "",
            "## Whole default fits, `CLSST(random_state=0).fit` (engine: its own threads)",
            "",
            "| data | kernels | seconds | NumPy / this | sweeps | S | error |",
            "|---|---|---|---|---|---|---|",
        ]
        lines += bench.table_rows(fits, ["what", "method"], _cells("fit"), 5)
    bench.write_markdown(args, "clsst_engine", lines)


def _cells(kind):
    def cells(row, find):
        ref = find("numpy")
        ratio = bench.time_ratio(ref, row) if row["method"] != "numpy" else ""
        if kind == "sweep":
            return [f"{row['time'] * 1e3:.3f}", ratio]
        return [f"{row['time']:.2f}", ratio, str(row["sweeps"]), str(row["S"]), f"{row['err']:.4f}"]

    return cells


if __name__ == "__main__":
    main()
