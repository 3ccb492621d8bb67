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
"""

from __future__ import annotations

import sys

import numpy as np

CLASSES = ("Rad.Flow", "Fpv.Close", "Fpv.Open", "High", "Bypass", "Bpv.Close", "Bpv.Open")
N_TRAIN = 43_500


def main(rda: str, out: str) -> None:
    import rdata
    from sklearn.datasets import dump_svmlight_file

    table = rdata.read_rda(rda)["Shuttle"].iloc[:N_TRAIN]
    X = table.iloc[:, :9].to_numpy(dtype=np.float64)
    y = table["Class"].astype(str).map({c: i + 1 for i, c in enumerate(CLASSES)}).to_numpy()
    if np.bincount(y)[4] != 6748:  # UCI's training file holds 6,748 rows of class 4
        raise SystemExit(f"{rda}: not the UCI training rows first (class 4 count differs)")
    dump_svmlight_file((X - X.mean(0)) / X.std(0), y, out, zero_based=False)
    print(f"wrote {out}: {len(y)} rows, class shares {np.round(np.bincount(y)[1:] / len(y), 4)}")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    main(*sys.argv[1:])
