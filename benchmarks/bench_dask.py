"""Fits on a Dask cluster (issue 34, part 5): linear PUSVC by CoCoA+ on a LocalCluster of 2
worker processes with 1 thread and a memory limit each, from data written to disk once.

PU part (``--method pu``): Poker-hand-shaped data (10 float32 features; the unlabeled points a
mixture with class prior 0.4, 10% of the rows labeled positives) generated chunk by chunk into
``.npy`` files of ``--chunk-rows`` rows (never whole in one process) and read by the workers
(np.load per chunk; not persisted, so every round reads them again and a worker holds one
chunk at a time). For each ``n`` a fresh cluster fits ``PUSVC(kernel="linear")`` on the Dask
arrays; reported: fit time, rounds, the duality gap (``duality_gap_``), the task payload of a
round (pickled ``w`` and scalars to the workers, statistics back, and each chunk's read task,
sent again every round), and each worker's peak
resident memory (VmHWM of the worker process). At the smallest ``n`` the in-memory fit of the
same data in this process, in the same run, as a ratio. Sizes not measured are estimated from
the measured cost per row and round, marked as estimates.

Both parts (``--method clsst``: CLSST on TOES-like chunks, see :func:`run_clsst`) report the
client's peak memory growth during each fit (issue 43 item 3: nothing of size n on the
client): the process's peak resident memory, its high-water mark reset before the fit, minus
its resident memory at the start.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import os
import pickle
import shutil
import time
import warnings
from pathlib import Path

import _harness as bench
import cloudpickle
import numpy as np
from sklearn.exceptions import ConvergenceWarning

NAME = "bench_dask"
D = 10
PRIOR = 0.4
LABELED = 0.1  # share of the rows that are labeled positives
CLIENT_NOTE = (
    "Client peak growth: the peak resident memory of this process during the fit (its "
    "high-water mark reset first, /proc/self/clear_refs) minus its resident memory at the "
    "start; the process also runs the LocalCluster's scheduler. Nothing of size n is kept "
    "on the client: the data are read and their per-row state held by the workers."
)


def _worker_peak_mb() -> float:
    """Peak resident memory of this (worker) process in MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


@contextlib.contextmanager
def two_workers(memory_limit: str):
    """A fresh LocalCluster of 2 worker processes, 1 thread and ``memory_limit`` each; its
    client."""
    from distributed import Client, LocalCluster

    with (
        LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            memory_limit=memory_limit,
            dashboard_address=None,
            silence_logs=logging.ERROR,
        ) as cluster,
        Client(cluster) as client,
    ):
        yield client


def write_data(folder: Path, n: int, chunk_rows: int) -> list[tuple[Path, Path, int]]:
    """Write n rows in chunks of chunk_rows: X_k.npy (float32, 10 columns), s_k.npy (int8)."""
    folder.mkdir(parents=True, exist_ok=True)
    files = []
    for k, start in enumerate(range(0, n, chunk_rows)):
        rows = min(chunk_rows, n - start)
        xf, sf = folder / f"X_{k}.npy", folder / f"s_{k}.npy"
        if not (xf.exists() and sf.exists()):
            rng = np.random.default_rng(1000 + k)
            labeled = rng.random(rows) < LABELED
            positive = labeled | (rng.random(rows) < PRIOR)
            X = rng.normal(size=(rows, D)).astype(np.float32)
            X[positive] += np.linspace(0.2, 1.0, D, dtype=np.float32)
            np.save(xf, X)
            np.save(sf, labeled.astype(np.int8))
        files.append((xf, sf, rows))
    return files


def npy_arrays(files, width: int, x_dtype, y_dtype):
    """The chunk files as two Dask arrays (X, labels), each chunk loaded by the worker that
    reads it."""
    import dask
    import dask.array as da

    def column(index, shape, dtype):
        return da.concatenate(
            [
                da.from_delayed(dask.delayed(np.load)(str(f[index])), shape(f[2]), dtype)
                for f in files
            ]
        )

    return (
        column(0, lambda rows: (rows, width), x_dtype),
        column(1, lambda rows: (rows,), y_dtype),
    )


def read_tasks(A) -> list:
    """Each chunk of the Dask array ``A`` as a Delayed holding the tasks it needs alone."""
    from dask.core import flatten
    from dask.delayed import Delayed
    from dask.optimization import cull

    graph = dict(A.__dask_graph__())
    return [Delayed(k, cull(graph, [k])[0]) for k in flatten(A.__dask_keys__())]


def fit_dask(files, tol: float, memory_limit: str) -> dict:
    """One fit on a fresh 2-worker cluster; its measures."""
    from unlabeled import PUSVC

    with two_workers(memory_limit) as client:
        X, s = npy_arrays(files, D, np.float32, np.int8)
        # the workers import the library first, as this process (and its in-memory fit) has
        client.run(importlib.import_module, "unlabeled.pu")
        base = max(client.run(_worker_peak_mb).values())
        est = PUSVC(prior=PRIOR, kernel="linear", tol=tol, random_state=0)
        model, seconds, client_mb = bench.measure(lambda: est.fit(X, s))
        peaks = client.run(_worker_peak_mb)
    w = model.coef_[0]
    stats = {"fp": 0.0, "dh": 0.0, "vee": 0.0, "sig": 0.0, "v_new": w, "iter": 0}
    stats["hist"] = np.zeros(240)  # the counts of the decision values, for the offset search
    down = len(pickle.dumps((w, 0.0, 0.0, 0.0, tol, True, 2, 0, True)))
    # two workers: w and scalars down, statistics back; and every chunk's read task (its
    # graph: the chunks are read again each round)
    reads = sum(len(cloudpickle.dumps(chunk)) for A in (X, s) for chunk in read_tasks(A))
    payload = 2 * (down + len(pickle.dumps(stats))) + reads
    return {
        "seconds": seconds,
        "rounds": model.n_rounds_,
        "gap": model.duality_gap_,
        "objective": model.objective_,
        "payload": payload,
        "peak_mb": max(peaks.values()),
        "idle_mb": base,
        "client_mb": client_mb,
        "model": model,
    }


def fit_memory(files, tol: float) -> dict:
    from unlabeled import PUSVC

    X = np.concatenate([np.load(xf) for xf, _, _ in files])
    s = np.concatenate([np.load(sf) for _, sf, _ in files])
    t0 = time.perf_counter()
    model = PUSVC(prior=PRIOR, kernel="linear", tol=tol, random_state=0).fit(X, s)
    return {"seconds": time.perf_counter() - t0, "objective": model.objective_, "model": model}


def run_pu(args) -> list[str]:
    sizes = [10_000] if args.quick else [int(float(v)) for v in args.sizes.split(",")]
    chunk = 2_500 if args.quick else args.chunk_rows
    root = Path(args.data) / ("quick" if args.quick else "full")
    rows, mem, load = [], None, os.getloadavg()
    for n in sizes:
        files = write_data(root / str(n), n, chunk)
        r = fit_dask(files, args.tol, args.memory_limit)
        r["n"] = n
        if mem is None:
            mem = fit_memory(files, args.tol)
            mem["n"] = n
            r["in_memory"] = mem
        rows.append(r)
        print(f"n={n}: {r['seconds']:.1f} s, {r['rounds']} rounds, gap {r['gap']:.2e}", flush=True)
    if args.quick:
        shutil.rmtree(root, ignore_errors=True)
    lines = [
        "## Linear PUSVC (CoCoA+), Poker-hand-shaped data from .npy chunks",
        "",
        f"10 float32 features, prior {PRIOR}, {LABELED:.0%} of the rows labeled positives, "
        f"chunks of {chunk:,} rows, tol={args.tol}, 2 workers x 1 thread, memory limit "
        f"{args.memory_limit} per worker.",
        "",
        "| n | fit (s) | rounds | duality gap | objective | task payload / round (bytes) "
        "| peak memory / worker (MB) | client peak growth (MB) | s per 1M rows and round |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        per = r["seconds"] / r["rounds"] / (r["n"] / 1e6)
        lines.append(
            f"| {r['n']:,} | {r['seconds']:.1f} | {r['rounds']} | {r['gap']:.2e} | "
            f"{r['objective']:.6f} | {r['payload']:,} | {r['peak_mb']:.0f} | "
            f"{r['client_mb']:.1f} | {per:.3f} |"
        )
    big = rows[-1]
    per_row_round = big["seconds"] / big["rounds"] / big["n"]
    for n in (100_000_000,):
        if all(r["n"] != n for r in rows) and not args.quick:
            est = per_row_round * big["rounds"] * n
            lines.append(
                f"| {n:,} (**estimate**) | ~{est:.0f} | ~{big['rounds']} (as at "
                f"{big['n']:,}) | - | - | {big['payload']:,} | - | - | {per_row_round * 1e6:.3f} |"
            )
    m = rows[0]["in_memory"]
    d = rows[0]
    same = np.mean(m["model"].predict(np.zeros((1, D))) == d["model"].predict(np.zeros((1, D))))
    lines += [
        "",
        f"In memory at n = {d['n']:,} (same data, this process, same run): "
        f"{m['seconds']:.2f} s, objective {m['objective']:.6f}; the Dask fit took "
        f"{d['seconds'] / m['seconds']:.1f}x as long, its objective "
        f"{d['objective'] - m['objective']:+.2e} from the in-memory one (duality gap "
        f"{d['gap']:.2e}; same prediction at the origin: {bool(same)}).",
        "Peak worker memory against the smallest n: "
        + (
            ", ".join(f"{r['n']:,}: {r['peak_mb'] / rows[0]['peak_mb']:.2f}x" for r in rows[1:])
            or "-"
        )
        + f" (idle worker before the fit: {rows[0]['idle_mb']:.0f} MB).",
        CLIENT_NOTE,
        f"Load average (1 minute) when the run started and ended: {load[0]:.1f}, "
        f"{os.getloadavg()[0]:.1f} (the machine has 2 cores).",
    ]
    return lines


# ---- CLSST (engineer C) --------------------------------------------------------------------
CLSST_D = 10  # TOES in the first two features, eight N(0, 1) noise features
# sweeps of a default fit of 1,000,000 TOES points searching on all of them (clsst_scale.md),
# as capped fits are estimated (a default fit now searches on a sample: 39 in memory)
FULL_SWEEPS = 897


def write_toes(folder: Path, n: int, chunk_rows: int) -> list[tuple[Path, Path, int]]:
    """TOES-like data written chunk by chunk (each chunk its own draw of
    ``make_toes(rows, n_features=10)``): X_k.npy (float64), y_k.npy (-1 but for 10 labeled
    points per class, all in the first chunk)."""
    from unlabeled.datasets import make_toes

    folder.mkdir(parents=True, exist_ok=True)
    files = []
    for k, start in enumerate(range(0, n, chunk_rows)):
        rows = min(chunk_rows, n - start)
        xf, yf = folder / f"X_{k}.npy", folder / f"y_{k}.npy"
        if not (xf.exists() and yf.exists()):
            X, truth, _ = make_toes(rows, n_features=CLSST_D, random_state=2000 + k)
            y = np.full(rows, -1, dtype=np.int64)
            if k == 0:
                rng = np.random.default_rng(0)
                for c in (0, 1):
                    y[rng.choice(np.flatnonzero(truth == c), 10, replace=False)] = c
            np.save(xf, X)
            np.save(yf, y)
        files.append((xf, yf, rows))
    return files


def clsst_payload(model, chunks: int) -> int:
    """Bytes of one pass from the fitted shapes: the global factors sent to each chunk (M,
    Psi, A and c of the data term, the prior, W and c of q(x)), the statistics back (Sry, T2,
    R, sum_n Q, the bound)."""
    S, p, k = model.means_.shape[0], model.means_.shape[1], model.n_factors_
    d, K = k + 1, model.class_association_.shape[1]
    down = S * p * d + p + S * d * d + S + S * K + S * k * p + S * k
    up = S * p * d + S * d * d + S + S * K + 1
    return 8 * chunks * (down + up)


def clsst_fit(params: dict, X, y):
    """(seconds, model, growth of this process's peak memory in MB) of
    ``CLSST(random_state=0, **params).fit(X, y)``, its ConvergenceWarning (capped fits)
    silenced."""
    from unlabeled.ssl import CLSST

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model, seconds, grew = bench.measure(lambda: CLSST(random_state=0, **params).fit(X, y))
    return seconds, model, grew


def fit_dask_clsst(files, memory_limit: str, params: dict, repeats: int = 1) -> dict:
    """``repeats`` fits on one fresh cluster (the first with cold workers); their times."""
    with two_workers(memory_limit) as client:
        X, y = npy_arrays(files, CLSST_D, np.float64, np.int64)
        base = max(client.run(_worker_peak_mb).values())
        times, peaks, client_mb = [], None, 0.0
        for _ in range(repeats):
            seconds, model, grew = clsst_fit(params, X, y)
            times.append(seconds)
            client_mb = max(client_mb, grew)
            peaks = peaks or client.run(_worker_peak_mb)  # of the first fit, as at other sizes
        transduction = model.transduction_.compute()
        model.transduction_ = None  # the cluster goes away with its results
        model.labels_ = None
    return {
        "seconds": min(times),
        "times": times,
        "sweeps": model.n_iter_,
        "S": model.n_components_,
        "F": model.lower_bound_,
        "payload": clsst_payload(model, len(files)),
        "peak_mb": max(peaks.values()),
        "idle_mb": base,
        "client_mb": client_mb,
        "model": model,
        "transduction": transduction,
    }


def run_clsst(args) -> list[str]:
    if args.quick:
        sizes, chunk = [4_000, 8_000], 2_000
        params = {"max_iter": 2, "max_births": 0}
    else:
        sizes = [int(float(v)) for v in args.clsst_sizes.split(",")]
        chunk, params = args.clsst_chunk_rows, {}
    root = Path(args.data) / ("clsst-quick" if args.quick else "clsst")
    rows, load = [], os.getloadavg()
    repeats = 1 if args.quick else args.clsst_repeats
    for i, n in enumerate(sizes):
        files = write_toes(root / str(n), n, chunk)
        capped = args.clsst_cap is not None
        p = dict(params, max_component_sweeps=args.clsst_cap) if capped else params
        r = fit_dask_clsst(files, args.memory_limit, p, repeats if i == 0 else 1)
        r.update(n=n, capped=capped)
        if i == 0:  # the in-memory fit as many times, after the cluster has gone
            X = np.concatenate([np.load(xf) for xf, _, _ in files])
            y = np.concatenate([np.load(yf) for _, yf, _ in files])
            fits = [clsst_fit(p, X, y) for _ in range(repeats)]
            times = [seconds for seconds, _, _ in fits]
            r["in_memory"] = {"seconds": min(times), "times": times, "model": fits[-1][1]}
            del X, y
        rows.append(r)
        print(
            f"CLSST n={n}: {r['seconds']:.1f} s, {r['sweeps']} sweeps, S={r['S']}, client "
            f"+{r['client_mb']:.1f} MB",
            flush=True,
        )
    if args.quick:
        shutil.rmtree(root, ignore_errors=True)
    return clsst_table(args, rows, chunk, params) + clsst_notes(rows, load)


def clsst_table(args, rows, chunk, params) -> list[str]:
    """The CLSST part's table: one row per size, and the full fits estimated from capped
    ones."""
    lines = [
        "## CLSST (variational map-reduce), TOES-like data from .npy chunks",
        "",
        f"make_toes with {CLSST_D} features drawn chunk by chunk, 10 labeled points per class, "
        f"chunks of {chunk:,} rows, CLSST(random_state=0{', ' if params else ''}"
        f"{', '.join(f'{k}={v}' for k, v in params.items())}), 2 workers x 1 thread, memory "
        f"limit {args.memory_limit} per worker. Payload of a pass: computed from the fitted "
        "shapes (global factors to every chunk, its statistics back).",
        "",
        "| n | fit (s) | sweeps | components | bound F | payload / pass (bytes) "
        "| peak memory / worker (MB) | client peak growth (MB) | s per 1M rows and sweep |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        per = r["seconds"] / r["sweeps"] / (r["n"] / 1e6)
        note = f" (capped: max_component_sweeps={args.clsst_cap})" if r["capped"] else ""
        lines.append(
            f"| {r['n']:,}{note} | {r['seconds']:.1f} | {r['sweeps']} | {r['S']} | "
            f"{r['F']:.6g} | {r['payload']:,} | {r['peak_mb']:.0f} | {r['client_mb']:.1f} | "
            f"{per:.3f} |"
        )
    for r in rows:
        if r["capped"]:  # a full default fit: 897 sweeps at 1,000,000 (clsst_scale.md)
            per = r["seconds"] / r["sweeps"] / r["n"]
            lines.append(
                f"| {r['n']:,} (**estimate**, full default fit) | ~{per * FULL_SWEEPS * r['n']:.0f}"
                f" | ~{FULL_SWEEPS} | - | - | - | - | - | {per * 1e6:.3f} |"
            )
    return lines


def clsst_notes(rows, load) -> list[str]:
    """The CLSST part's notes: the in-memory fit against the first size's, times, memory."""
    first = rows[0]
    m = first["in_memory"]
    mm, dm = m["model"], first["model"]
    rel = abs(dm.lower_bound_ - mm.lower_bound_) / abs(mm.lower_bound_)
    same = bool(np.array_equal(first["transduction"], mm.transduction_))

    def seconds(values):
        return ", ".join(f"{v:.2f}" for v in values)

    lines = [
        "",
        f"In memory at n = {first['n']:,} (same data, this process, same run): "
        f"{m['seconds']:.1f} s, {mm.n_iter_} sweeps, {mm.n_components_} components; the Dask "
        f"fit took {first['seconds'] / m['seconds']:.2f}x as long; its bound differs by "
        f"{rel:.1e} (relative), same components: {dm.n_components_ == mm.n_components_}, "
        f"identical transduction: {same}.",
        f"Fit times at n = {first['n']:,} (s), the best of each in the table and the ratio: "
        f"Dask {seconds(first['times'])} (one cluster; the first fit with cold workers), in "
        f"memory {seconds(m['times'])}. Load average (1 minute) when the CLSST part started "
        f"and ended: {load[0]:.1f}, {os.getloadavg()[0]:.1f} (the machine has 2 cores; the "
        "Dask fit itself runs 3 processes; a higher load is other jobs sharing the machine).",
        "CLSST+ on more than 20,000 points searches its births and deaths on a sample of "
        "20,000 (in memory, drawn on the workers for Dask input: the same rows), then "
        "converges on all points: sweeps count the sample's at 20,000 / n each.",
        f"Peak worker memory, largest n against smallest: "
        f"{rows[-1]['peak_mb'] / first['peak_mb']:.2f}x (idle worker before the fit: "
        f"{first['idle_mb']:.0f} MB).",
        CLIENT_NOTE + " (At the first size: the largest growth of its Dask fits.)",
    ]
    if len(rows) > 1:  # the floor that the data persisted once on the workers set
        last = rows[-1]
        grow = 8 * CLSST_D * (last["n"] - first["n"]) / 2 / 2**20  # X / scale, float64, 2 workers
        lines.append(
            f"The points as persisted (8 x {CLSST_D} bytes a row, n / 2 rows a worker) alone "
            f"add {grow:.0f} MB a worker from n = {first['n']:,} to {last['n']:,}: with nothing "
            f"else growing the peak would be {(first['peak_mb'] + grow) / first['peak_mb']:.2f}x "
            f"(births in these fits: {', '.join(str(r['model'].n_births_) for r in rows)}; "
            "between passes a chunk holds no other array of its size, but Q after a birth or "
            "a death)."
        )
    return lines


def main(argv=None) -> None:
    ap = bench.parser(__doc__, quick="PU: 10,000 rows in chunks of 2,500")
    ap.add_argument("--method", choices=("pu", "clsst", "all"), default="all")
    ap.add_argument("--sizes", default="1e6,1e7", help="numbers of rows (PU), comma-separated")
    ap.add_argument("--chunk-rows", type=int, default=250_000)
    ap.add_argument("--tol", type=float, default=1e-3)
    ap.add_argument("--memory-limit", default="3GB")
    ap.add_argument("--data", default="/tmp/bench_dask_data", help="where the chunks are written")
    ap.add_argument("--clsst-sizes", default="1e6,1e7", help="numbers of rows (CLSST)")
    ap.add_argument("--clsst-chunk-rows", type=int, default=250_000)
    ap.add_argument(
        "--clsst-repeats",
        type=int,
        default=3,
        help="fits at the first CLSST size, Dask (one cluster) and in memory; the best is kept",
    )
    ap.add_argument(
        "--clsst-cap",
        type=int,
        default=None,
        help="max_component_sweeps of the CLSST fits beyond the first size (None: full fits)",
    )
    args = bench.parse(ap, argv)
    lines = bench.header("Fits on a Dask cluster (issue 34)")
    if args.method in ("pu", "all"):
        lines += run_pu(args)
    if args.method in ("clsst", "all"):
        lines += run_clsst(args)
    # one method: its own page (bench_dask-clsst.md), so that the two parts do not overwrite
    name = NAME if args.method == "all" else f"{NAME}-{args.method}"
    bench.write_markdown(args, name, lines)


if __name__ == "__main__":
    main()
