"""Fit time and peak memory of PUSVC against the exact QP and scikit-learn's SVMs.

    python benchmarks/bench_pusvc.py            # the full run (about 20-30 minutes)
    python benchmarks/bench_pusvc.py --quick    # a smoke run of a minute

Data: d = 10 features, 100 labeled positives N(0.8, I), unlabeled points from the mixture
0.4 N(0.8, I) + 0.6 N(0, I); lam = 0.01, gamma = 1/d, tol = 1e-3, cache 200 MB for everyone.
Methods, each fit in a fresh subprocess (so one method's peak memory cannot hide another's):
  pusvc-smo, pusvc-usmo   PUSVC with its two solvers;
  qp                      the same problem, the dual of the spec given to cvxpy + Clarabel
                          with the dense Gram matrix K_UU (du Plessis et al. 2015's approach);
  svc                     sklearn.svm.SVC with every unlabeled point as a negative and C = c2,
                          the naive approach (a different, easier problem: shown for speed);
  linearsvc               sklearn.svm.LinearSVC, same labels and C (linear kernel only).
Peak memory is the growth of the process's peak RSS during fit. A method that exceeds the time
limit is stopped and not tried on larger sizes; the QP is skipped when its Gram matrix would
exceed --max-qp-gb.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

D, P, PRIOR, LAM = 10, 100, 0.4, 0.01


def make_data(n, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.random(n) < PRIOR
    Xu = rng.normal(size=(n, D)) + 0.8 * y[:, None]
    Xp = rng.normal(size=(P, D)) + 0.8
    return np.r_[Xp, Xu], np.r_[np.ones(P, int), np.zeros(n, int)]


def rss_mb(field):
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field):
            return int(line.split()[1]) / 1024
    return float("nan")


def child(method, kernel, n):
    """Fit one method once; print a JSON line with time, memory and objective."""
    # imports and data first: neither counts towards the fit's time or memory
    import cvxpy  # noqa: F401
    from sklearn.metrics.pairwise import rbf_kernel  # noqa: F401
    from sklearn.svm import SVC, LinearSVC

    from unlabeled import PUSVC

    X, s = make_data(n)
    gamma = 1.0 / D
    c2 = 1 / (2 * LAM * n)
    before = rss_mb("VmRSS")
    objective = None
    t0 = time.perf_counter()
    if method.startswith("pusvc"):
        clf = PUSVC(
            prior=PRIOR, lam=LAM, kernel=kernel, gamma=gamma, solver=method.split("-")[1]
        ).fit(X, s)
        objective = clf.objective_
    elif method == "qp":
        objective = qp_objective(X, s, kernel, gamma)
    elif method == "svc":
        SVC(kernel=kernel, C=c2, gamma=gamma, tol=1e-3, cache_size=200).fit(X, s)
    elif method == "linearsvc":
        LinearSVC(C=c2, tol=1e-3, dual="auto").fit(X, s)
    elapsed = time.perf_counter() - t0
    peak = rss_mb("VmHWM") - before
    print(json.dumps({"time": elapsed, "peak_mb": peak, "objective": objective}))


def qp_objective(X, s, kernel, gamma):
    """The dual of the spec in sigma (dense K_UU), then J from the primal solution."""
    import cvxpy as cp
    from sklearn.metrics.pairwise import linear_kernel, rbf_kernel

    kern = (
        (lambda A, B: linear_kernel(A, B))
        if kernel == "linear"
        else (lambda A, B: rbf_kernel(A, B, gamma=gamma))
    )
    Xp, Xu = X[s == 1], X[s == 0]
    p, n = len(Xp), len(Xu)
    c1, c2 = PRIOR / (2 * LAM * p), 1 / (2 * LAM * n)
    Kuu, Kup, Kpp = kern(Xu, Xu), kern(Xu, Xp), kern(Xp, Xp)
    sig = cp.Variable(n)
    obj = 0.5 * cp.quad_form(sig, cp.psd_wrap(Kuu)) - c1 * (Kup.sum(1) @ sig)
    obj = obj + cp.sum(cp.maximum(-sig, sig - c2))
    cp.Problem(cp.Minimize(obj), [sig >= 0, sig <= c2, cp.sum(sig) == c1 * p]).solve(
        solver="CLARABEL"
    )
    sigma = np.clip(sig.value, 0, c2)
    g_u = c1 * Kup.sum(1) - Kuu @ sigma
    g_p = c1 * Kpp.sum(1) - Kup.T @ sigma
    # the best beta for this alpha: J is convex and piecewise linear in beta with kinks where
    # some f(x_u) = -1 or 1, so its minimum is at one of them
    kinks = np.r_[-1 - g_u, 1 - g_u]
    norm2 = c1 * g_p.sum() - sigma @ g_u
    best = np.inf
    for beta in np.unique(kinks):
        fu = g_u + beta
        J = -PRIOR * (g_p + beta).mean() + np.maximum(np.maximum(fu, (1 + fu) / 2), 0).mean()
        best = min(best, J + LAM * norm2)
    return float(best)


def run(method, kernel, n, limit):
    cmd = [sys.executable, __file__, "--child", method, kernel, str(n)]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=limit)
    except subprocess.TimeoutExpired:
        return {"status": f"> {limit:.0f} s"}
    if out.returncode != 0:
        return {"status": "error: " + out.stderr.strip().splitlines()[-1][:80]}
    return {"status": "ok", **json.loads(out.stdout.strip().splitlines()[-1])}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    ap.add_argument("--quick", action="store_true", help="small sizes only (smoke run)")
    ap.add_argument("--time-limit", type=float, default=240, help="seconds per fit (default 240)")
    ap.add_argument("--max-qp-gb", type=float, default=4.0, help="largest Gram matrix for the QP")
    ap.add_argument("--out", default="benchmarks/results", help="folder for the table and plot")
    args = ap.parse_args()
    if args.child:
        method, kernel, n = args.child
        child(method, kernel, int(n))
        return

    if args.quick:
        plan = {"rbf": [500, 1000], "linear": [2000, 10000]}
    else:
        plan = {"rbf": [1000, 2000, 5000, 10000, 20000, 50000], "linear": [10000, 100000, 1000000]}
    methods = {
        "rbf": ["pusvc-smo", "pusvc-usmo", "qp", "svc"],
        "linear": ["pusvc-smo", "pusvc-usmo", "qp", "svc", "linearsvc"],
    }
    rows, dead = [], set()
    for kernel, sizes in plan.items():
        for n in sizes:
            for method in methods[kernel]:
                gram_gb = 8 * n * n / 1e9
                if (method, kernel) in dead:
                    res = {"status": "skipped (slower at a smaller n)"}
                elif method == "qp" and gram_gb > args.max_qp_gb:
                    res = {"status": f"skipped: Gram matrix needs {gram_gb:.0f} GB"}
                else:
                    print(
                        f"[bench] {kernel:6s} n={n:>8d} {method:11s} ...",
                        file=sys.stderr,
                        end=" ",
                        flush=True,
                    )
                    res = run(method, kernel, n, args.time_limit)
                    print(res.get("status"), f"{res.get('time', 0):.2f}s", file=sys.stderr)
                    if res["status"] != "ok":
                        dead.add((method, kernel))
                rows.append({"kernel": kernel, "n": n, "method": method, **res})
    write_report(rows, args)


def write_report(rows, args):
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    import sklearn

    import unlabeled

    cpu = next(
        (
            ln.split(":", 1)[1].strip()
            for ln in Path("/proc/cpuinfo").read_text().splitlines()
            if ln.startswith("model name")
        ),
        platform.processor(),
    )
    mem = Path("/proc/meminfo").read_text().splitlines()[0].split()[1]
    cmd = "python benchmarks/bench_pusvc.py" + (" --quick" if args.quick else "")
    lines = [
        "# PUSVC against the exact QP and scikit-learn's SVMs",
        "",
        f"Command: `{cmd}` (time limit {args.time_limit:.0f} s per fit, QP up to "
        f"{args.max_qp_gb} GB of Gram matrix). Date: {datetime.date.today()}. Machine: "
        f"{os.cpu_count()} cores, {cpu}, {int(mem) / 2**20:.0f} GB. unlabeled "
        f"{unlabeled.__version__}, scikit-learn {sklearn.__version__}, numpy {np.__version__}.",
        "",
        "Data: d = 10, 100 labeled positives, n unlabeled points with prior 0.4; lam = 0.01, "
        "gamma = 0.1, tol = 1e-3, cache 200 MB. `svc`/`linearsvc`: every unlabeled point as a "
        "negative, C = c2 (the naive approach; an easier problem with far fewer support "
        "vectors). Memory: growth of peak RSS during fit.",
        "",
        "| kernel | n unlabeled | method | fit time (s) | peak memory (MB) | J - J(QP) (rel.) |"
        " time / PUSVC-smo |",
        "|---|---:|---|---:|---:|---:|---:|",
    ]
    by = {(r["kernel"], r["n"], r["method"]): r for r in rows}
    for r in rows:
        ref = by.get((r["kernel"], r["n"], "pusvc-smo"), {})
        qp = by.get((r["kernel"], r["n"], "qp"), {})
        if r["status"] != "ok":
            lines.append(f"| {r['kernel']} | {r['n']:,} | {r['method']} | {r['status']} | | | |")
            continue
        gap = ""
        if r["objective"] is not None and qp.get("status") == "ok" and r["method"] != "qp":
            gap = f"{(r['objective'] - qp['objective']) / max(1, abs(qp['objective'])):.1e}"
        ratio = f"{r['time'] / ref['time']:.2f}" if ref.get("status") == "ok" else ""
        lines.append(
            f"| {r['kernel']} | {r['n']:,} | {r['method']} | {r['time']:.3f} | "
            f"{r['peak_mb']:.0f} | {gap} | {ratio} |"
        )
    # memory per 10k points, from the largest PUSVC runs
    lines += ["", "PUSVC-smo peak memory per 10,000 unlabeled points:"]
    for kernel in ("rbf", "linear"):
        ok = [
            r
            for r in rows
            if r["kernel"] == kernel and r["method"] == "pusvc-smo" and r["status"] == "ok"
        ]
        if ok:
            big = max(ok, key=lambda r: r["n"])
            lines.append(
                f"- {kernel}: {big['peak_mb'] / big['n'] * 1e4:.1f} MB at n = "
                f"{big['n']:,} (the rbf figure includes the kernel cache, capped at "
                "200 MB)"
            )
    (out / "bench_pusvc.md").write_text("\n".join(lines) + "\n")
    plot(rows, out / "bench_pusvc.png")
    print("\n".join(lines))


def plot(rows, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    for ax, kernel in zip(axes, ("rbf", "linear"), strict=True):
        for method in sorted({r["method"] for r in rows if r["kernel"] == kernel}):
            pts = [
                (r["n"], r["time"])
                for r in rows
                if r["kernel"] == kernel and r["method"] == method and r["status"] == "ok"
            ]
            if pts:
                ax.loglog(*zip(*pts, strict=True), "o-", label=method)
        ax.set_title(f"{kernel} kernel")
        ax.set_xlabel("unlabeled points")
        ax.set_ylabel("fit time (s)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)


if __name__ == "__main__":
    main()
