"""CLSST fit time and peak memory against n on the TOES generator with 10 features.

    python benchmarks/bench_clsst_scale.py                     # n = 1k, 10k, 100k, 1M
    python benchmarks/bench_clsst_scale.py --quick             # smoke: n = 1,000

Data: make_toes(n, n_features=10) (the five TOES Gaussians in the first two features, eight
N(0, 1) noise features), 10 labeled points per class, everything else unlabeled. CLSST with its
defaults (n_components=None: births and deaths; n_factors=2; tol=1e-5 per point; SQUAREM
steps; select="labels"). Every fit runs in its own process (peak memory = the growth of the
peak RSS during the fit, the data excluded), with a time limit. LabelSpreading with a kNN
kernel (7 neighbours) is timed alongside where it fits in the limit, as the usual scalable graph
baseline.

Writes benchmarks/results/clsst_scale{--tag}.md and .png (``--quick``: clsst_scale{--tag}-quick).
"""

from __future__ import annotations

import sys
import warnings

import _harness as bench
import numpy as np

SIZES = "1000,10000,100000,1000000"


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
            est, sec, mb = bench.measure(lambda: CLSST(random_state=0).fit(X, yl))
            extra = dict(S=est.n_components_, sweeps=est.n_iter_)
        else:
            est, sec, mb = bench.measure(
                lambda: LabelSpreading(kernel="knn", n_neighbors=7).fit(X, yl)
            )
            extra = {}
    u = yl < 0
    err = float((est.transduction_[u] != y[u]).mean())
    bench.report_child(time=sec, peak_mb=mb, err=err, **extra)


def main():
    quick = "a smoke run: n = 1000"
    ap = bench.parser(
        __doc__, child_nargs=2, time_limit=1200.0, limit_aliases=("--limit",), quick=quick
    )
    ap.add_argument("--sizes", default=SIZES, help=f"comma-separated n ({SIZES})")
    ap.add_argument("--methods", default="CLSST,LabelSpreading(knn)")
    ap.add_argument("--tag", default="", help="suffix of the result files (e.g. -1m)")
    argv = sys.argv[1:]
    if "--tag" in argv[:-1]:  # "--tag -1m", as the results files quote it: one option
        i = argv.index("--tag")
        argv[i : i + 2] = [f"--tag={argv[i + 1]}"]
    args = bench.parse(ap, argv)
    if args.child:
        child(args.child[0], int(args.child[1]))
        return
    sizes = "1000" if args.quick else args.sizes
    rows = []
    for method in args.methods.split(","):
        for n in [int(s) for s in sizes.split(",")]:
            res = bench.run_child(__file__, [method.split("(")[0], str(n)], args.time_limit)
            rows.append(dict(method=method, n=n, **res))
            print(rows[-1], flush=True)
    write(rows, args)


def write(rows, args):
    lines = bench.header(
        "CLSST: fit time and peak memory against n (TOES, 10 features)",
        f"time limit {args.time_limit:.0f} s per fit",
    )
    lines += [
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
    name = f"clsst_scale{args.tag}"
    bench.write_markdown(args, name, lines)
    bench.plot_panels(
        rows,
        bench.output(args, name, ".png"),
        lambda r: "all",
        ["all"],
        lambda _: "TOES with 10 features: fit time",
    )


if __name__ == "__main__":
    main()
