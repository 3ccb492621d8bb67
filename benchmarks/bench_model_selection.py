"""Warm starts along the lam path in PUGridSearchCV: time and solver iterations against cold fits.

    PYTHONPATH=src python benchmarks/bench_model_selection.py [--n 3000] [--folds 3]

Both searches fit the same candidates on the same folds (one process, one engine thread); the
table gives the wall-clock time of the cross-validation fits, the solver iterations summed over
them (n_solver_iter_) and the largest difference between the two searches' mean test scores.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

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
    ap.add_argument("--tol", type=float, default=1e-3)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    X, s, prior = make_data(args.n, args.p, args.d, 0.4, args.seed)
    grid = {"lam": np.logspace(-4, -1, 7).tolist(), "gamma": [0.2]}
    est = PUSVC(prior=prior, tol=args.tol, n_jobs=1)
    cv = PUStratifiedKFold(args.folds, shuffle=True, random_state=args.seed)
    print(
        f"{args.p} labeled + {args.n} unlabeled, d={args.d}, rbf gamma=0.2, tol={args.tol}, "
        f"{args.folds} folds x lam in {grid['lam'][0]:g}..{grid['lam'][-1]:g} (7 values)"
    )
    rows = {}
    for warm in (False, True):
        search = PUGridSearchCV(est, grid, cv=cv, refit=False, warm_start=warm)
        t0 = time.perf_counter()
        search.fit(X, s)
        rows[warm] = (time.perf_counter() - t0, search.n_solver_iter_, search)
    print(
        "| lam path | search time (s) | fit time (s) | solver iterations "
        "| mean fit time per lam (s), 1e-4 .. 1e-1 |"
    )
    print("|---|---|---|---|---|")
    fit_time = {}
    for warm, (t, it, search) in rows.items():
        res = search.cv_results_
        fit_time[warm] = res["mean_fit_time"].sum() * search.n_splits_
        fits = " ".join(f"{v:.3f}" for v in res["mean_fit_time"])
        print(f"| {'warm' if warm else 'cold'} | {t:.2f} | {fit_time[warm]:.2f} | {it} | {fits} |")
    (tc, ic, c), (tw, iw, w) = rows[False], rows[True]
    diff = np.abs(c.cv_results_["mean_test_score"] - w.cv_results_["mean_test_score"]).max()
    print(
        f"speed-up {fit_time[False] / fit_time[True]:.2f}x in fit time, {tc / tw:.2f}x in search "
        f"time (fits + scoring), {ic / max(iw, 1):.2f}x in iterations; "
        f"max |score difference| = {diff:.2g}; best lam cold {c.best_params_['lam']:g}, "
        f"warm {w.best_params_['lam']:g}"
    )


if __name__ == "__main__":
    main()
