"""WellSVM at scale (the paper's Section 5.1.2 and Figure 4): fit time against the number of
training points on RCV1-shaped data (linear kernel, 50 labeled points), against TSVM (linear)
where it finishes in the time limit and LIBLINEAR (``LinearSVC``) on the labeled points.

    python benchmarks/bench_wellsvm_scale.py                       # 1% .. 100% of 677,399
    python benchmarks/bench_wellsvm_scale.py --data rcv1_train.binary --test rcv1_test.binary
    python benchmarks/bench_wellsvm_scale.py --quick      # smoke: WellSVM, TSVM at n = 1,000

The data are :func:`unlabeled.datasets.make_rcv1_like` (677,399 x 47,236, 0.16% non-zeros,
two classes with a margin) unless ``--data`` gives the real file (svmlight; ``--test`` the
held-out one, else 10% of the data are held out). Each fit runs in its own process (time
limit, peak memory). Test accuracy is on the held-out points. ``--tol`` (default 1e-2) is
the relative decrease of the objective that a cutting-plane step must be able to reach (and
the inner solvers' tolerance); the estimator's default 1e-3 (the paper's eps, whose scaling
the paper does not give) takes 50 steps and more from 10,000 points on.

Writes benchmarks/results/wellsvm_scale.md and .png (``--name``; ``-quick`` for ``--quick``).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import _harness as bench
import numpy as np
import scipy.sparse as sp

SHARES = [0.01, 0.02, 0.05, 0.15, 0.35, 0.55, 0.75, 1.0]
METHODS = ["WellSVM", "TSVM", "LinearSVC (labeled)"]


def child(args):
    """One fit: load the cached data, take the first ``n`` training points, fit, score
    (``--child CACHE METHOD N``)."""
    import warnings

    from sklearn.exceptions import ConvergenceWarning
    from sklearn.svm import LinearSVC

    from unlabeled.ssl import TSVM, WellSVM

    warnings.simplefilter("ignore", ConvergenceWarning)
    cache, method, n = args.child
    n = int(n)
    d = np.load(cache, allow_pickle=False)
    X = sp.csr_matrix((d["data"], d["indices"], d["indptr"]), shape=tuple(d["shape"]))
    y, n_train = d["y"], int(d["n_train"])
    Xtr, ytr = X[:n], y[:n]
    Xte, yte = X[n_train:], y[n_train:]
    y_ssl = np.full(n, -1)
    y_ssl[: args.labeled] = ytr[: args.labeled]  # the rows are in random order
    if method == "WellSVM":
        model = WellSVM(C1=1.0, C2=args.c2, kernel="linear", tol=args.tol)
    elif method == "TSVM":
        model = TSVM(C1=1.0, C2=args.c2, kernel="linear", tol=args.tol)
    else:
        model = LinearSVC(C=1.0)
        Xtr, y_ssl = Xtr[: args.labeled], y_ssl[: args.labeled]
    measured = bench.measure_fit(lambda: model.fit(Xtr, y_ssl))
    if measured is not None:
        acc = float(np.mean(model.predict(Xte) == yte))
        bench.report_child(**measured[1], accuracy=acc)


def prepare(args, path):
    """The data, shuffled, with the held-out part last; cached as .npz for the children."""
    from unlabeled.datasets import load_svmlight, make_rcv1_like

    rng = np.random.default_rng(0)
    if args.data:
        X, y = load_svmlight(args.data)
        y = (y > 0).astype(np.int64)
        if args.test:
            Xt, yt = load_svmlight(args.test, n_features=X.shape[1])
            X, y, n_train = sp.vstack([X, Xt]).tocsr(), np.r_[y, (yt > 0).astype(int)], len(y)
        else:
            n_train = int(0.9 * len(y))
        order = np.r_[rng.permutation(n_train), np.arange(n_train, len(y))]
    else:
        n_train = 2000 if args.quick else 677_399
        X, y = make_rcv1_like(n_train + (1000 if args.quick else 20_000), random_state=0)
        order = np.arange(len(y))  # the generator's rows are already independent draws
    X, y = X[order], y[order]
    # both classes among the first labeled points
    first = np.r_[np.flatnonzero(y[:n_train] == 0)[:1], np.flatnonzero(y[:n_train] == 1)[:1]]
    rest = np.setdiff1d(np.arange(len(y)), first)
    X, y = X[np.r_[first, rest]], y[np.r_[first, rest]]
    np.savez(
        path, data=X.data, indices=X.indices, indptr=X.indptr, shape=X.shape, y=y, n_train=n_train
    )
    return n_train, X.nnz / X.shape[0] / X.shape[1]


def main():
    ap = bench.parser(
        __doc__,
        child_nargs=3,
        time_limit=600.0,
        limit_aliases=("--limit",),
        quick="a smoke run: WellSVM and TSVM on 1,000 of 2,000 generated training points",
        name="wellsvm_scale",
    )
    ap.add_argument("--data", help="the training file (svmlight) instead of the generator")
    ap.add_argument("--test", help="the held-out file (svmlight)")
    ap.add_argument("--shares", type=float, nargs="+", default=SHARES)
    ap.add_argument("--labeled", type=int, default=50)
    ap.add_argument("--c2", type=float, default=0.1)
    ap.add_argument("--tol", type=float, default=1e-2)
    args = bench.parse(ap)
    if args.child:
        return child(args)
    methods = METHODS
    if args.quick:
        args.shares, args.time_limit, methods = [0.5], 60.0, METHODS[:2]
    with tempfile.TemporaryDirectory() as tmp:
        cache = str(Path(tmp) / "data.npz")
        n_train, density = prepare(args, cache)
        rows, dead = [], set()
        for share in args.shares:
            n = int(round(share * n_train))
            for method in methods:
                opts = [
                    cache,
                    method,
                    str(n),
                    "--labeled",
                    str(args.labeled),
                    "--c2",
                    str(args.c2),
                    "--tol",
                    str(args.tol),
                ]
                res = bench.measure_in_child(__file__, opts, args.time_limit, dead, method)
                rows.append({"method": method, "n": n, **res})
                print(rows[-1], flush=True)
    write_report(rows, args, n_train, density)


def write_report(rows, args, n_train, density):
    source = args.data or f"make_rcv1_like ({n_train:,} training points, 47,236 features)"
    lines = bench.header("WellSVM at scale: linear kernel, RCV1-shaped data, 50 labeled points")
    lines += [
        f"Data: {source}, density {density:.4%}; C1 = 1, C2 = {args.c2}, tol = {args.tol} "
        "(a cutting-plane step that cannot lower the objective by this share ends the loop; "
        "also the inner solvers' tolerance); time limit "
        f"{args.time_limit:.0f} s per fit (a method that fails is not run at larger n).",
        "",
        "| training points | method | fit time (s) | peak memory (MB) | test accuracy |",
        "|---|---|---|---|---|",
    ]

    def cells(r, find):
        return [f"{r['time']:.2f}", f"{r['peak_mb']:.0f}", f"{r['accuracy']:.3f}"]

    lines += bench.table_rows(rows, ("n", "method"), cells, 3)
    bench.write_markdown(args, args.name, lines)
    bench.plot_panels(
        rows,
        bench.output(args, args.name, ".png"),
        lambda r: "all",
        ["all"],
        lambda _: "RCV1-shaped data, linear kernel, 50 labeled",
        xlabel="training points",
    )


if __name__ == "__main__":
    main()
