"""Fit time and peak memory of PUSVC against the exact QP and scikit-learn's SVMs.

    python benchmarks/bench_pusvc.py            # the full run (about 20-30 minutes)
    python benchmarks/bench_pusvc.py --quick    # a smoke run: PUSVC and the QP at one size

Data: d = 10 features, 100 labeled positives N(0.8, I), unlabeled points from the mixture
0.4 N(0.8, I) + 0.6 N(0, I); lam = 0.01, gamma = 1/d, tol = 1e-3, cache 200 MB for everyone.
Methods, each fit in a fresh subprocess (so one method's peak memory cannot hide another's):
  pusvc-smo, pusvc-usmo   PUSVC with its two solvers;
  qp                      DoubleHingeQP: the same problem given whole to Clarabel with the dense
                          Gram matrix (du Plessis et al. 2015's approach), refused by its own
                          memory check beyond --qp-memory MB;
  qp-cvxpy                the same dual written in cvxpy and solved by Clarabel (what a user of a
                          modelling tool would do); skipped where its measured ~120 bytes per
                          squared point exceed --qp-memory;
  svc                     sklearn.svm.SVC with every unlabeled point as a negative and C = c2,
                          the naive approach (a different, much easier problem: the equality
                          constraint lets only about p negatives be support vectors);
  svc-weighted            the same with C = c1 on the labeled positives (class_weight), so that,
                          as in the PU problem, about pi n unlabeled points are support vectors:
                          the SVM problem of the same size and shape;
  linearsvc(-weighted)    sklearn.svm.LinearSVC (LIBLINEAR), same labels and C (linear only).
Peak memory is the growth of the process's peak RSS during fit. A method that exceeds the time
limit is stopped and not tried on larger sizes.
"""

from __future__ import annotations

import sys

import _harness as bench
import numpy as np

D, P, PRIOR, LAM = 10, 100, 0.4, 0.01


def make_data(n, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.random(n) < PRIOR
    Xu = rng.normal(size=(n, D)) + 0.8 * y[:, None]
    Xp = rng.normal(size=(P, D)) + 0.8
    return np.r_[Xp, Xu], np.r_[np.ones(P, int), np.zeros(n, int)]


def child(method, kernel, n, qp_memory):
    """Fit one method once; report time, memory growth and the PU objective."""
    # imports and data first: neither counts towards the fit's time or memory
    from sklearn.svm import SVC, LinearSVC

    from unlabeled import PUSVC
    from unlabeled.pu import DoubleHingeQP

    X, s = make_data(n)
    gamma = 1.0 / D
    c1, c2 = PRIOR / (2 * LAM * P), 1 / (2 * LAM * n)
    weights = {0: 1.0, 1: c1 / c2} if method.endswith("-weighted") else None
    common = {"prior": PRIOR, "lam": LAM, "kernel": kernel, "gamma": gamma}
    model = {
        "pusvc-smo": lambda: PUSVC(solver="smo", **common),
        "pusvc-usmo": lambda: PUSVC(solver="usmo", **common),
        "qp": lambda: DoubleHingeQP(max_memory=qp_memory, **common),
        "qp-cvxpy": lambda: None,
        "svc": lambda: SVC(kernel=kernel, C=c2, gamma=gamma, cache_size=200),
        "linearsvc": lambda: LinearSVC(C=c2, dual="auto", class_weight=weights),
    }[method.removesuffix("-weighted")]()
    if method == "svc-weighted":
        model.set_params(class_weight=weights)
    if method == "qp-cvxpy":
        import cvxpy  # noqa: F401 - before the fit, as the other imports

        fit = lambda: cvxpy_objective(X, s, kernel, gamma)  # noqa: E731
    else:
        fit = lambda: getattr(model.fit(X, s), "objective_", None)  # noqa: E731
    got = bench.measure_fit(fit)
    if got is not None:
        objective, values = got
        bench.report_child(**values, objective=objective)


def cvxpy_objective(X, s, kernel, gamma):
    """The dual of the spec in sigma through cvxpy (dense K_UU, solved by Clarabel), then J
    of the primal solution with its best offset: the generic-modelling-tool route."""
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


def main():
    ap = bench.parser(__doc__, child_nargs=4, time_limit=240)
    ap.add_argument("--qp-memory", type=float, default=8192, help="QP memory budget in MB")
    args = bench.parse(ap)
    if args.child:
        method, kernel, n, qp_memory = args.child
        child(method, kernel, int(n), float(qp_memory))
        return

    if args.quick:
        plan = {"rbf": [300]}
    else:
        plan = {
            "rbf": [1000, 2000, 5000, 10000, 20000, 50000],
            "linear": [1000, 10000, 100000, 1000000],
        }
    methods = {
        "rbf": ["pusvc-smo", "pusvc-usmo", "qp", "qp-cvxpy", "svc", "svc-weighted"],
        "linear": [
            "pusvc-smo",
            "pusvc-usmo",
            "qp",
            "qp-cvxpy",
            "svc",
            "svc-weighted",
            "linearsvc",
            "linearsvc-weighted",
        ],
    }
    if args.quick:
        methods["rbf"] = ["pusvc-smo", "qp"]
    rows, dead = [], set()
    for kernel, sizes in plan.items():
        for n in sizes:
            for method in methods[kernel]:
                if method == "qp-cvxpy" and 120 * n**2 / 2**20 > args.qp_memory:
                    res = {"status": f"skipped: needs about {120 * n**2 / 2**30:.0f} GB"}
                else:
                    child_args = [method, kernel, str(n), str(args.qp_memory)]
                    key, limit = (method, kernel), args.time_limit
                    res = bench.measure_in_child(__file__, child_args, limit, dead, key)
                    took = f"{res.get('time', 0):.2f}s"
                    line = f"[bench] {kernel:6s} n={n:>8d} {method:18s} {res['status']} {took}"
                    print(line, file=sys.stderr, flush=True)
                rows.append({"kernel": kernel, "n": n, "method": method, **res})
    write_report(rows, args)


def write_report(rows, args):
    note = f"time limit {args.time_limit:.0f} s per fit, QP memory budget {args.qp_memory:.0f} MB"
    lines = [
        *bench.header("PUSVC against the exact QP and scikit-learn's SVMs", note),
        "Data: d = 10, 100 labeled positives, n unlabeled points with prior 0.4; lam = 0.01, "
        "gamma = 0.1, tol = 1e-3, cache 200 MB. `qp`: DoubleHingeQP (Clarabel, dense Gram "
        "matrix). `svc`/`linearsvc`: every unlabeled point as a negative, C = c2 (the naive "
        "approach; a much easier problem: only about p negatives can be support vectors). "
        "`-weighted`: C = c1 on the labeled positives, the SVM problem with as many support "
        "vectors as the PU one. Memory: growth of peak RSS during fit.",
        "",
        "| kernel | n unlabeled | method | fit time (s) | peak memory (MB) | J - J(QP) (rel.) |"
        " time / PUSVC-smo |",
        "|---|---:|---|---:|---:|---:|---:|",
    ]

    def cells(r, find):
        qp = find("qp")
        gap = ""
        if r["objective"] is not None and qp.get("status") == "ok" and r["method"] != "qp":
            gap = f"{(r['objective'] - qp['objective']) / max(1, abs(qp['objective'])):.1e}"
        ratio = bench.time_ratio(r, find("pusvc-smo"))
        return [f"{r['time']:.3f}", f"{r['peak_mb']:.0f}", gap, ratio]

    lines += bench.table_rows(rows, ("kernel", "n", "method"), cells, 4)
    # memory growth per 10k points: slope between the smallest and largest PUSVC runs
    lines += ["", "PUSVC-smo peak memory growth per 10,000 unlabeled points:"]
    for kernel in ("rbf", "linear"):
        ok = sorted(
            (r["n"], r["peak_mb"])
            for r in rows
            if r["kernel"] == kernel and r["method"] == "pusvc-smo" and r["status"] == "ok"
        )
        if len(ok) >= 2:
            (n0, m0), (n1, m1) = ok[0], ok[-1]
            lines.append(
                f"- {kernel}: {(m1 - m0) / (n1 - n0) * 1e4:.1f} MB (from {m0:.0f} MB at n = "
                f"{n0:,} to {m1:.0f} MB at n = {n1:,})"
            )
    bench.write_markdown(args, "bench_pusvc", lines)
    path = bench.output(args, "bench_pusvc", ".png")
    bench.plot_panels(
        rows,
        path,
        "kernel",
        list(dict.fromkeys(r["kernel"] for r in rows)),
        lambda k: f"{k} kernel",
    )


if __name__ == "__main__":
    main()
