"""Warm starts along the lam path in PUGridSearchCV: time and solver iterations against cold fits.

    PYTHONPATH=src python benchmarks/bench_model_selection.py [--n 3000] [--folds 3]

Both searches fit the same candidates on the same folds (one process, one engine thread); the
table gives the wall-clock time of the search and of its fits alone, the solver iterations
summed over the fits (n_solver_iter_) and the largest difference between the two searches' mean
test scores. Writes benchmarks/results/model_selection.md.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from _common import machine

from unlabeled import PUSVC
from unlabeled.model_selection import PUGridSearchCV, PUStratifiedKFold


def make_data(n, p, d, prior, seed):
    rng = np.random.default_rng(seed)
    y_u = rng.random(n) < prior
    X = np.r_[rng.normal(size=(p, d)) + 1.0, rng.normal(size=(n, d)) + 1.0 * y_u[:, None]]
    s = np.r_[np.ones(p, int), np.zeros(n, int)]
    return X, s, float(y_u.mean())


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=3000, help="unlabeled points")
    ap.add_argument("--p", type=int, default=300, help="labeled positives")
    ap.add_argument("--d", type=int, default=5)
    ap.add_argument("--folds", type=int, default=3)
    ap.add_argument("--tol", type=float, nargs="+", default=[1e-3, 1e-6])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default="benchmarks/results", help="folder for the table")
    args = ap.parse_args()

    X, s, prior = make_data(args.n, args.p, args.d, 0.4, args.seed)
    lams = np.logspace(-4, -1, 7).tolist()
    grid = {"lam": lams, "gamma": [0.2]}
    cv = PUStratifiedKFold(args.folds, shuffle=True, random_state=args.seed)
    lines = [
        "# PUGridSearchCV: warm starts along the lam path against cold fits",
        "",
        f"Command: `PYTHONPATH=src python {' '.join(sys.argv)}`",
        "",
        machine(),
        "",
        f"{args.p} labeled positives + {args.n} unlabeled points, d = {args.d}, rbf gamma = 0.2, "
        f"{args.folds} folds x lam in {lams[0]:g}..{lams[-1]:g} (7 values, walked from the "
        "largest); one process, `n_jobs=1` in PUSVC. Fit time: the fits alone; search time "
        "adds scoring (decision values on the test folds).",
        "",
        "| tol | lam path | search time (s) | fit time (s) | solver iterations "
        "| mean fit time per lam (s), 1e-4 .. 1e-1 |",
        "|---|---|---|---|---|---|",
    ]
    summary = []
    for tol in args.tol:
        est = PUSVC(prior=prior, tol=tol, n_jobs=1)
        rows = {}
        for warm in (False, True):
            search = PUGridSearchCV(est, grid, cv=cv, refit=False, warm_start=warm)
            t0 = time.perf_counter()
            search.fit(X, s)
            elapsed = time.perf_counter() - t0
            res = search.cv_results_
            fit_time = res["mean_fit_time"].sum() * search.n_splits_
            rows[warm] = (elapsed, fit_time, search.n_solver_iter_, search)
            fits = " ".join(f"{v:.3f}" for v in res["mean_fit_time"])
            lines.append(
                f"| {tol:g} | {'warm' if warm else 'cold'} | {elapsed:.2f} | {fit_time:.2f} | "
                f"{search.n_solver_iter_} | {fits} |"
            )
        (tc, fc, ic, c), (tw, fw, iw, w) = rows[False], rows[True]
        diff = np.abs(c.cv_results_["mean_test_score"] - w.cv_results_["mean_test_score"]).max()
        summary.append(
            f"- tol = {tol:g}: warm starts are {fc / fw:.2f}x faster in fit time "
            f"({tc / tw:.2f}x for the whole search) and need {ic / max(iw, 1):.2f}x fewer solver "
            f"iterations; largest |mean score difference| {diff:.2g}; best lam cold "
            f"{c.best_params_['lam']:g}, warm {w.best_params_['lam']:g}."
        )
    lines += ["", *summary]
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "model_selection.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
