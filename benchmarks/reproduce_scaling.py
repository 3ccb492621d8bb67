"""Figures 4-7 of the USMO paper: training time against the number of unlabeled samples.

    python benchmarks/reproduce_scaling.py                         # poker 0/1 and digits
    python benchmarks/reproduce_scaling.py --quick                 # smoke: poker 0, n = 1,000
    python benchmarks/reproduce_scaling.py --data adult.svm --positive-class 1

Protocol (../shared/spec/protocol.md): 100 labeled positives and a growing number n of
unlabeled samples drawn from the whole distribution ("class k vs all"), lam = 0.01, linear
and Gaussian kernels (gamma = "scale"); each method is fitted in a fresh subprocess and timed
until it exceeds the time limit or its memory budget (then it is not tried on larger n). The
F-measure (F1 of class k) is computed on a held-out test set of 10,000 points. Methods:
  PUSVC        this library's SMO solver (solver="smo");
  PUSVC-usmo   the paper's algorithm as published (solver="usmo");
  RampPU       the ramp-loss CCCP of the paper's [6], convex steps by the SMO engine;
  QP           DoubleHingeQP, Clarabel on the dense Gram matrix (the paper's [7]), refused by
               its own check beyond --qp-memory MB.
Data: Poker-hand from the exact generator unlabeled.datasets.make_poker_hands (up to 1,000,000
unlabeled points), scikit-learn's digits (an MNIST-like set, 1,797 points, so n stops there),
and any file given with --data (LIBSVM/svmlight, CSV or .npz; see unlabeled.datasets).
Writes benchmarks/results/scaling.md and one PNG per data set.
"""

from __future__ import annotations

import sys
from pathlib import Path

import _harness as bench
import numpy as np

LAM, N_POS, N_TEST = 0.01, 100, 10_000
METHODS = ("PUSVC", "PUSVC-usmo", "RampPU", "QP")
SIZES = {
    "linear": [1000, 2000, 5000, 10_000, 20_000, 50_000, 100_000, 200_000, 500_000, 1_000_000],
    "rbf": [1000, 2000, 5000, 10_000, 20_000, 50_000],
}


def load(dataset, positive_class, n, seed=0):
    """(X, s, X_test, y_test, prior): N_POS labeled positives then n unlabeled points,
    standardised on the training points; y_test is 1 for class k."""
    from sklearn.preprocessing import StandardScaler

    from unlabeled.datasets import make_poker_hands

    if dataset == "poker":
        X_pool, y_pool = make_poker_hands(n + N_TEST, random_state=seed)
        X_u, y_u, X_test, y_test = X_pool[:n], y_pool[:n], X_pool[n:], y_pool[n:]
        # the labeled positives come from their own deal, kept only if in class k
        Xp, yp = make_poker_hands(400 * N_POS, random_state=seed + 1)
        Xp = Xp[yp == positive_class][:N_POS]
        if len(Xp) < N_POS:
            raise SystemExit(f"poker class {positive_class} is too rare for {N_POS} positives")
    else:
        X_all, y_all = file_data(dataset, seed)
        n_test = min(N_TEST, len(y_all) // 3)
        X_test, y_test = X_all[:n_test], y_all[:n_test]
        rest = np.arange(n_test, len(y_all))
        pos = rest[y_all[rest] == positive_class][:N_POS]
        unl = np.setdiff1d(rest, pos)[:n]
        Xp, X_u, y_u = X_all[pos], X_all[unl], y_all[unl]
    scaler = StandardScaler().fit(np.r_[Xp, X_u])
    X = scaler.transform(np.r_[Xp, X_u])
    s = np.r_[np.ones(len(Xp), int), np.zeros(len(X_u), int)]
    prior = float(np.mean(y_u == positive_class))
    return X, s, scaler.transform(X_test), (y_test == positive_class).astype(int), prior


def file_data(dataset, seed):
    """digits or a user's file, dense, in a random order fixed by the seed."""
    from unlabeled.datasets import load_file

    if dataset == "digits":
        from sklearn.datasets import load_digits

        X, y = load_digits(return_X_y=True)
    else:
        X, y = load_file(dataset)
        X = X.toarray() if hasattr(X, "toarray") else np.asarray(X, dtype=np.float64)
    order = np.random.default_rng(seed).permutation(len(y))
    return X[order], np.asarray(y)[order]


def max_unlabeled(dataset, positive_class):
    if dataset == "poker":
        return max(max(v) for v in SIZES.values())
    _, y = file_data(dataset, 0)
    n_test = min(N_TEST, len(y) // 3)
    return len(y) - n_test - min(N_POS, int(np.sum(y[n_test:] == positive_class)))


def child(method, kernel, dataset, positive_class, n, qp_memory):
    """Fit one method once; report time, peak memory growth, test F1 and the objective."""
    from sklearn.metrics import f1_score

    from unlabeled import PUSVC
    from unlabeled.pu import DoubleHingeQP, RampPU

    X, s, X_test, y_test, prior = load(dataset, positive_class, n)
    # the paper's decision rule f > 0 (threshold="zero"), as its figures used
    common = {"prior": prior, "lam": LAM, "kernel": kernel, "threshold": "zero"}
    model = {
        "PUSVC": lambda: PUSVC(solver="smo", **common),
        "PUSVC-usmo": lambda: PUSVC(solver="usmo", **common),
        "RampPU": lambda: RampPU(random_state=0, **common),
        "QP": lambda: DoubleHingeQP(max_memory=qp_memory, **common),
    }[method]()
    got = bench.measure_fit(lambda: model.fit(X, s))
    if got is None:
        return
    f1 = 100 * f1_score(y_test, model.predict(X_test), zero_division=0)
    bench.report_child(**got[1], f1=f1, prior=prior, objective=model.objective_)


def main():
    ap = bench.parser(
        __doc__,
        child_nargs=6,
        time_limit=120,
        quick="a smoke run: poker class 0, linear kernel, n = 1,000, PUSVC and the QP",
    )
    ap.add_argument("--data", nargs="*", default=None, help="data files instead of poker+digits")
    ap.add_argument(
        "--positive-class",
        type=int,
        nargs="*",
        default=None,
        help="class k of 'class k vs all' (default: 0 1 for poker, 0 otherwise)",
    )
    ap.add_argument("--kernels", nargs="*", default=["linear", "rbf"])
    ap.add_argument("--methods", nargs="*", default=list(METHODS), choices=METHODS)
    ap.add_argument("--qp-memory", type=float, default=4096, help="QP budget in MB")
    args = bench.parse(ap)
    if args.child:
        method, kernel, dataset, k, n, mem = args.child
        child(method, kernel, dataset, int(k), int(n), float(mem))
        return
    from tqdm import tqdm

    if args.quick:
        args.data, args.positive_class, args.kernels = ["poker"], [0], ["linear"]
        args.methods = ["PUSVC", "QP"]
    plan = []
    for dataset in args.data or ["poker", "digits"]:
        classes = args.positive_class or ([0, 1] if dataset == "poker" else [0])
        for k in classes:
            n_max = max_unlabeled(dataset, k)
            for kernel in args.kernels:
                sizes = [n for n in SIZES[kernel] if n < n_max] + [n_max]
                sizes = sorted(set(min(n, n_max) for n in sizes))
                if args.quick:
                    sizes = sizes[:1]
                plan.append((dataset, k, kernel, sizes))
    total = sum(len(sizes) * len(args.methods) for *_, sizes in plan)
    rows = []
    bar = tqdm(total=total, unit="fit", file=sys.stderr)
    for dataset, k, kernel, sizes in plan:
        dead = set()
        for n in sizes:
            for method in args.methods:
                name = Path(dataset).name
                bar.set_description(f"{name} {k} vs all, {kernel}, n={n:,}, {method}")
                child_args = [method, kernel, dataset, str(k), str(n), str(args.qp_memory)]
                res = bench.measure_in_child(__file__, child_args, args.time_limit, dead, method)
                row = {"data": name, "k": k, "kernel": kernel, "n": n, "method": method}
                rows.append({**row, **res})
                bar.update()
    bar.close()
    write_report(rows, args)


def write_report(rows, args):
    lines = [
        *bench.header(
            "Training time against the number of unlabeled samples (USMO paper, Figures 4-7)",
            f"time limit {args.time_limit:.0f} s per fit, QP memory budget {args.qp_memory:.0f} MB",
        ),
        f"{N_POS} labeled positives, n unlabeled points from the whole distribution, lam = "
        f"{LAM}, gamma = 'scale', features standardised; F1 of the positive class on "
        f"{N_TEST:,} held-out points (fewer for small data sets); memory is the growth of "
        "the fitting process's peak RSS. *vs PUSVC* is the time ratio to PUSVC at the same n.",
        "",
        "| data | class k vs all | kernel | n unlabeled | method | fit time (s) | vs PUSVC | "
        "peak memory (MB) | test F1 |",
        "|---|---:|---|---:|---|---:|---:|---:|---:|",
    ]

    def cells(r, find):
        ratio = bench.time_ratio(r, find("PUSVC"), "{:.1f}x")
        return [f"{r['time']:.3f}", ratio, f"{r['peak_mb']:.0f}", f"{r['f1']:.1f}"]

    lines += bench.table_rows(rows, ("data", "k", "kernel", "n", "method"), cells, 4)
    bench.write_markdown(args, "scaling", lines)
    for data in sorted({r["data"] for r in rows}):
        mine = [r for r in rows if r["data"] == data]
        bench.plot_panels(
            mine,
            bench.output(args, f"scaling_{data.replace('.', '_')}", ".png"),
            lambda r: (r["k"], r["kernel"]),
            sorted({(r["k"], r["kernel"]) for r in mine}),
            lambda panel, data=data: f"{data}: {panel[0]} vs all, {panel[1]}",
            ys=(("time", "fit time (s)", "loglog"), ("f1", "test F1 (%)", "semilogx")),
            xlabel="unlabeled samples",
        )


if __name__ == "__main__":
    main()
