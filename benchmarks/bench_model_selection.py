"""Warm starts along the lam path in PUGridSearchCV: time and solver iterations against cold fits.

    python benchmarks/bench_model_selection.py [--n 3000] [--folds 3]
    python benchmarks/bench_model_selection.py --quick     # smoke: n = 300, one tol

Both searches fit the same candidates on the same folds (one engine thread), each search in a
fresh process; the table gives the wall-clock time of the search and of its fits alone, the
solver iterations summed over the fits (n_solver_iter_) and the largest difference between the
two searches' mean test scores. Writes benchmarks/results/model_selection.md.
"""

from __future__ import annotations

import time

import _harness as bench
import numpy as np

LAMS = np.logspace(-4, -1, 7).tolist()
GAMMA = 0.2


def make_data(n, p, d, prior, seed):
    rng = np.random.default_rng(seed)
    y_u = rng.random(n) < prior
    X = np.r_[rng.normal(size=(p, d)) + 1.0, rng.normal(size=(n, d)) + 1.0 * y_u[:, None]]
    s = np.r_[np.ones(p, int), np.zeros(n, int)]
    return X, s, float(y_u.mean())


def child(n, p, d, folds, seed, tol, warm):
    """One search in this fresh process: its time, its fits' time, solver iterations, the mean
    test scores and the best lam."""
    from unlabeled import PUSVC
    from unlabeled.model_selection import PUGridSearchCV, PUStratifiedKFold

    X, s, prior = make_data(n, p, d, 0.4, seed)
    cv = PUStratifiedKFold(folds, shuffle=True, random_state=seed)
    est = PUSVC(prior=prior, tol=tol, n_jobs=1)
    search = PUGridSearchCV(
        est, {"lam": LAMS, "gamma": [GAMMA]}, cv=cv, refit=False, warm_start=warm
    )
    t0 = time.perf_counter()
    search.fit(X, s)
    elapsed = time.perf_counter() - t0
    res = search.cv_results_
    bench.report_child(
        time=elapsed,
        fit_time=float(res["mean_fit_time"].sum() * search.n_splits_),
        n_iter=int(search.n_solver_iter_),
        mean_fit_times=res["mean_fit_time"].tolist(),
        scores=res["mean_test_score"].tolist(),
        best_lam=float(search.best_params_["lam"]),
    )


def main():
    ap = bench.parser(
        __doc__, child_nargs=7, time_limit=1800, quick="a smoke run: n = 300, tol = 1e-3 only"
    )
    ap.add_argument("--n", type=int, default=3000, help="unlabeled points")
    ap.add_argument("--p", type=int, default=300, help="labeled positives")
    ap.add_argument("--d", type=int, default=5)
    ap.add_argument("--folds", type=int, default=3)
    ap.add_argument("--tol", type=float, nargs="+", default=[1e-3, 1e-6])
    ap.add_argument("--seed", type=int, default=0)
    args = bench.parse(ap)
    if args.child:
        n, p, d, folds, seed, tol, warm = args.child
        child(int(n), int(p), int(d), int(folds), int(seed), float(tol), warm == "warm")
        return
    if args.quick:
        args.n, args.p, args.tol = 300, 30, [1e-3]
    runs = {}
    for tol in args.tol:
        for warm in ("cold", "warm"):
            child_args = [args.n, args.p, args.d, args.folds, args.seed, tol, warm]
            child_args = [str(a) for a in child_args]
            res = bench.measure_in_child(__file__, child_args, args.time_limit, set(), warm)
            if res["status"] != "ok":
                raise SystemExit(f"the {warm} search at tol = {tol:g} failed: {res['status']}")
            runs[tol, warm] = res
    write_report(runs, args)


def write_report(runs, args):
    lines = [
        *bench.header("PUGridSearchCV: warm starts along the lam path against cold fits"),
        f"{args.p} labeled positives + {args.n} unlabeled points, d = {args.d}, rbf gamma = "
        f"{GAMMA}, {args.folds} folds x lam in {LAMS[0]:g}..{LAMS[-1]:g} (7 values, walked from "
        "the largest); each search in its own process, `n_jobs=1` in PUSVC. Fit time: the fits "
        "alone; search time adds scoring (decision values on the test folds).",
        "",
        "| tol | lam path | search time (s) | fit time (s) | solver iterations "
        "| mean fit time per lam (s), 1e-4 .. 1e-1 |",
        "|---|---|---|---|---|---|",
    ]
    summary = []
    for tol in args.tol:
        for warm in ("cold", "warm"):
            r = runs[tol, warm]
            fits = " ".join(f"{v:.3f}" for v in r["mean_fit_times"])
            lines.append(
                f"| {tol:g} | {warm} | {r['time']:.2f} | {r['fit_time']:.2f} | {r['n_iter']} "
                f"| {fits} |"
            )
        c, w = runs[tol, "cold"], runs[tol, "warm"]
        diff = np.abs(np.subtract(c["scores"], w["scores"])).max()
        summary.append(
            f"- tol = {tol:g}: warm starts are {c['fit_time'] / w['fit_time']:.2f}x faster in "
            f"fit time ({c['time'] / w['time']:.2f}x for the whole search) and need "
            f"{c['n_iter'] / max(w['n_iter'], 1):.2f}x fewer solver iterations; largest |mean "
            f"score difference| {diff:.2g}; best lam cold {c['best_lam']:g}, warm "
            f"{w['best_lam']:g}."
        )
    bench.write_markdown(args, "model_selection", [*lines, "", *summary])


if __name__ == "__main__":
    main()
