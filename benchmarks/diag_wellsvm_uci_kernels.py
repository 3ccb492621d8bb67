"""Why the SVM on the labeled points was weak in the first WellSVM UCI runs (no CV, one
Gaussian width): its test accuracy for each kernel of the paper's grid at C = 1, without any
selection, against the majority class. A diagnostic of the protocol, not a result: nothing
here picks a parameter (bench_wellsvm_uci.py does that by cross-validation on the labeled
points only). Same splits as bench_wellsvm_uci.py (seed = split number).

    python benchmarks/diag_wellsvm_uci_kernels.py --splits 10

Writes benchmarks/results/wellsvm_uci_svm_kernels.md (``--name``).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
import _common as bench  # noqa: E402
from bench_wellsvm_uci import DATA, KERNELS, make, make_split  # noqa: E402

from unlabeled.datasets import UCI_SMALL_NAMES, load_uci_small  # noqa: E402


def label(kernel):
    return "linear" if kernel == "linear" else f"sigma x{kernel:g}"


def main():
    ap = bench.parser(__doc__, quick="2 splits, 3 sets", name="wellsvm_uci_svm_kernels")
    ap.add_argument("--splits", type=int, default=10)
    ap.add_argument("--rates", type=float, nargs="+", default=[0.05, 0.10])
    ap.add_argument("--data", default=str(DATA))
    args = bench.parse(ap)
    if not Path(args.data).is_dir():
        sys.exit(f"{args.data} not found: this diagnostic needs the shared UCI folder")
    sets = list(UCI_SMALL_NAMES)[:3] if args.quick else list(UCI_SMALL_NAMES)
    splits = 2 if args.quick else args.splits
    lines = bench.header("The labeled SVM (C = 1) for each kernel of the grid, no selection")
    lines += [f"{splits} random 75/25 splits per set, the splits of bench_wellsvm_uci.py. Test "
              "accuracy, mean over splits; 'majority' predicts the larger class.", ""]  # fmt: skip
    for rate in args.rates:
        head = ["majority"] + [label(k) for k in KERNELS]
        lines += [f"## {rate:.0%} labeled", "", "| set | n labeled | " + " | ".join(head) + " |",
                  "|" + "---|" * (len(head) + 2)]  # fmt: skip
        means = np.zeros(len(head))
        for name in sets:
            X, y = load_uci_small(name, args.data)
            acc = np.zeros((splits, len(head)))
            for seed in range(splits):
                Xtr, Xte, ytr, yte, y_ssl, g = make_split(X, y, rate, seed)
                acc[seed, 0] = np.mean(yte == np.bincount(ytr).argmax())
                for j, kern in enumerate(KERNELS, 1):
                    model = make("SVM", {"kernel": kern}, g).fit(Xtr, y_ssl)
                    acc[seed, j] = np.mean(model.predict(Xte) == yte)
            means += acc.mean(axis=0) / len(sets)
            n_lab = int(np.sum(y_ssl != -1))
            lines.append(f"| {name} | {n_lab} | " + " | ".join(f"{a:.3f}" for a in acc.mean(0))
                         + " |")  # fmt: skip
        lines += ["| **mean** | | " + " | ".join(f"**{a:.3f}**" for a in means) + " |", ""]
    bench.write_markdown(args, args.name, lines)


if __name__ == "__main__":
    main()
