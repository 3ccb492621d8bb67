"""The real Statlog Shuttle table for ``bench_scale.py --shuttle-file``, from the copy that
Debian's ``r-cran-mlbench`` package ships (``Shuttle.rda``: 58,000 rows, the UCI training
file's 43,500 first, then its 14,500 test rows; nothing else on this machine's mirrors has it).

    apt-get download r-cran-mlbench && dpkg-deb -x r-cran-mlbench_*.deb mlbench
    pip install ".[bench]"          # rdata reads the R file
    python benchmarks/shuttle_from_mlbench.py \\
        mlbench/usr/lib/R/site-library/mlbench/data/Shuttle.rda shuttle_std.svm
    python benchmarks/bench_scale.py --tasks shuttle --shuttle-file shuttle_std.svm

Writes the 43,500 training rows as svmlight, the 9 features standardised (the issue's "9
dense standardised features"), the classes numbered as UCI does (1 Rad Flow, ..., 4 High,
the 15% class that ``bench_scale.py`` takes as positive).

``--quick`` needs neither the R file nor rdata: it converts a small synthetic table of the
same layout (9 numeric columns and the class names) to ``<out>/shuttle_std-quick.svm`` and
reads it back, the check that the real file's class counts pass aside.
"""

from __future__ import annotations

import _harness as bench
import numpy as np

CLASSES = ("Rad.Flow", "Fpv.Close", "Fpv.Open", "High", "Bypass", "Bpv.Close", "Bpv.Open")
N_TRAIN = 43_500


def convert(X, names, out, check: bool = True) -> None:
    """Rows ``X`` (9 features) of classes ``names`` (R's labels) as svmlight at ``out``."""
    from sklearn.datasets import dump_svmlight_file

    lookup = {c: i + 1 for i, c in enumerate(CLASSES)}
    y = np.array([lookup[str(c)] for c in names])
    counts = np.bincount(y, minlength=len(CLASSES) + 1)
    if check and counts[4] != 6748:  # UCI's training file holds 6,748 rows of class 4
        raise SystemExit("not the UCI training rows first (the class 4 count differs)")
    dump_svmlight_file((X - X.mean(0)) / X.std(0), y, str(out), zero_based=False)
    print(f"wrote {out}: {len(y)} rows, class shares {np.round(counts[1:] / len(y), 4)}")
    bench.written(out)


def main() -> None:
    ap = bench.parser(__doc__, quick="a synthetic table of the same layout (no R file needed)")
    ap.add_argument("rda", nargs="?", help="mlbench's Shuttle.rda")
    ap.add_argument("svm", nargs="?", help="the svmlight file to write")
    args = bench.parse(ap)
    if args.quick:
        rng = np.random.default_rng(0)
        X = rng.normal(size=(200, 9))
        names = rng.choice(CLASSES, size=200, p=[0.78, 0.01, 0.01, 0.15, 0.03, 0.01, 0.01])
        out = bench.output(args, "shuttle_std", ".svm")
        convert(X, names, out, check=False)
        from unlabeled.datasets import load_file

        Xr, yr = load_file(out)
        assert Xr.shape == (200, 9) and len(yr) == 200, (Xr.shape, len(yr))
        return
    if not (args.rda and args.svm):
        ap.error("give the R file and the svmlight file to write (or --quick)")
    import rdata

    table = rdata.read_rda(args.rda)["Shuttle"].iloc[:N_TRAIN]
    convert(table.iloc[:, :9].to_numpy(dtype=np.float64), table["Class"].astype(str), args.svm)


if __name__ == "__main__":
    main()
