"""CLSST fit time and peak memory against n on the TOES generator with 10 features.

    python benchmarks/bench_clsst_scale.py                     # n = 1k, 10k, 100k, 1M
    python benchmarks/bench_clsst_scale.py --sizes 1000,10000  # a smoke run

Data: make_toes(n, n_features=10) (the five TOES Gaussians in the first two features, eight
N(0, 1) noise features), 10 labeled points per class, everything else unlabeled. CLSST with its
defaults (n_components=None: births and deaths; n_factors=2; tol=1e-4 per point). Every fit runs
in its own process (peak memory = the growth of the peak RSS during the fit, the data excluded),
with a time limit. LabelSpreading with a kNN kernel (7 neighbours) is timed alongside where it
fits in the limit, as the usual scalable graph baseline.

Writes benchmarks/results/clsst_scale.md and clsst_scale.png.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import machine, measure, plot_loglog, report_child, run_child  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"


def child(method: str, n: int) -> None:
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.semi_supervised import LabelSpreading

    from unlabeled.datasets import make_toes
    from unlabeled.ssl import CLSST

    X, y, comp = make_toes(n, n_features=10, random_state=0)
    yl = np.full(n, -1)
    rng = np.random.default_rng(0)
    for c in (0, 1):
        yl[rng.choice(np.flatnonzero(y == c), 10, replace=False)] = c
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        if method == "CLSST":
            est, sec, mb = measure(lambda: CLSST(random_state=0).fit(X, yl))
            extra = dict(S=est.n_components_, sweeps=est.n_iter_)
        else:
            est, sec, mb = measure(lambda: LabelSpreading(kernel="knn", n_neighbors=7).fit(X, yl))
            extra = {}
    u = yl < 0
    err = float((est.transduction_[u] != y[u]).mean())
    report_child(time=sec, peak_mb=mb, err=err, **extra)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--child", nargs=2)
    ap.add_argument("--sizes", default="1000,10000,100000,1000000")
    ap.add_argument("--limit", type=float, default=1200.0, help="seconds per fit")
    ap.add_argument("--methods", default="CLSST,LabelSpreading(knn)")
    ap.add_argument("--tag", default="", help="suffix of the result files")
    args = ap.parse_args()
    if args.child:
        child(args.child[0], int(args.child[1]))
        return
    rows = []
    for method in args.methods.split(","):
        for n in [int(s) for s in args.sizes.split(",")]:
            res = run_child(__file__, [method.split("(")[0], str(n)], args.limit)
            rows.append(dict(method=method, n=n, panel="all", **res))
            print(rows[-1], flush=True)
    write(rows, args)


def write(rows, args):
    RESULTS.mkdir(exist_ok=True)
    lines = [
        "# CLSST: fit time and peak memory against n (TOES, 10 features)",
        "",
        f"Command: `python benchmarks/bench_clsst_scale.py --sizes {args.sizes} --methods "
        f"{args.methods} --limit {args.limit:.0f}"
        + (f" --tag {args.tag}`" if args.tag else "`")
        + f". {machine()}",
        "",
        "10 labeled points per class; CLSST defaults (births and deaths, n_factors=2). Peak "
        "memory: growth of the process's peak RSS during the fit. Error: transductive, on the "
        "unlabeled points.",
        "",
        "| method | n | status | time (s) | peak MB | error | S found | sweeps |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        ok = r["status"] == "ok"
        lines.append(
            f"| {r['method']} | {r['n']:,} | {r['status']} | "
            + (
                f"{r['time']:.2f} | {r['peak_mb']:.0f} | {r['err']:.4f} | "
                if ok
                else "- | - | - | "
            )
            + f"{r.get('S', '-')} | {r.get('sweeps', '-')} |"
        )
    (RESULTS / f"clsst_scale{args.tag}.md").write_text("\n".join(lines) + "\n")
    plot_loglog(
        rows,
        RESULTS / f"clsst_scale{args.tag}.png",
        "panel",
        ["all"],
        lambda _: "TOES with 10 features: fit time",
    )


if __name__ == "__main__":
    main()
