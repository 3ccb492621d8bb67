"""Diagnostic for issue 12: WellSVM with the authors' squared-hinge inner problem against the
paper's hinge, on the UCI sets, through a precomputed kernel (no engine change needed).

The authors' code solves each inner SVM on ``K .* sum_t mu_t y_t y_t' + diag(1/C)`` (a squared
hinge, ``1/C1`` on the labeled points, ``1/C2`` on the unlabeled ones) instead of the paper's
box-constrained hinge. The diagonal of ``sum_t mu_t y_t y_t'`` is ``sum_t mu_t = 1``, so that
problem is WellSVM's own MKL problem on the kernel ``K + D`` with an unbounded box: here
``WellSVM(kernel="precomputed", C1=C2=1e4)`` fitted on ``K + D`` (no alpha comes near 1e4),
predicting with the test kernel ``K(test, train)`` (no ``D``).

Protocol: as ``bench_wellsvm_uci.py --no-cv`` (its splits, the Gaussian kernel of width
sqrt(mean squared distance), C1 = 1, C2 = 0.1), 5 splits per set, the 11 sets below the
size where an n x n kernel stays small (krvskp is left out).

    python benchmarks/diag_wellsvm_squared_hinge.py               # 5% and 10% labeled
    python benchmarks/diag_wellsvm_squared_hinge.py --quick       # 2 sets, 2 splits
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common as bench  # noqa: E402
import bench_wellsvm_uci as uci  # noqa: E402

SETS = ["house", "heart-statlog", "heart", "liverDisorders", "spectf", "ionosphere",
        "house-votes", "clean1", "isolet", "australian", "diabetes"]  # fmt: skip
C1, C2, UNBOUNDED = 1.0, 0.1, 1e4


def accuracies(X, y, rate, seed):
    """(hinge, squared hinge) test accuracy of WellSVM on one split."""
    from sklearn.metrics.pairwise import rbf_kernel

    from unlabeled.ssl import WellSVM

    Xtr, Xte, _, yte, y_ssl, gamma = uci.make_split(X, y, rate, seed)
    K, Kt = rbf_kernel(Xtr, Xtr, gamma=gamma), rbf_kernel(Xte, Xtr, gamma=gamma)
    hinge = WellSVM(C1=C1, C2=C2, kernel="precomputed").fit(K, y_ssl)
    D = np.diag(np.where(y_ssl != -1, 1.0 / C1, 1.0 / C2))
    squared = WellSVM(C1=UNBOUNDED, C2=UNBOUNDED, kernel="precomputed").fit(K + D, y_ssl)
    assert squared.alpha_.max() < 0.01 * UNBOUNDED  # the box never binds
    return [float(np.mean(m.predict(Kt) == yte)) for m in (hinge, squared)]


def main():
    from unlabeled.datasets import load_uci_small

    ap = bench.parser(__doc__, quick="2 sets, 2 splits", name="wellsvm_uci_squared_hinge")
    ap.add_argument("--data", default="../shared/data/uci-small")
    args = bench.parse(ap)
    sets, splits = (SETS[:2], 2) if args.quick else (SETS, 5)
    lines = [
        *bench.header("WellSVM: the authors' squared-hinge inner problem against the hinge"),
        f"{splits} splits per set, C1 = {C1}, C2 = {C2}, Gaussian kernel of width sqrt(mean "
        "squared distance), no CV (see the script's docstring). Test accuracy, mean over splits.",
        "",
        "| set | rate | hinge (the paper) | squared hinge (the authors' code) |",
        "|---|---|---|---|",
    ]
    means = {}
    for rate in (0.05, 0.10):
        rows = []
        for name in sets:
            X, y = load_uci_small(name, args.data)
            accs = np.mean([accuracies(X, y, rate, seed) for seed in range(splits)], axis=0)
            rows.append(accs)
            lines.append(f"| {name} | {rate:.0%} | {accs[0]:.3f} | {accs[1]:.3f} |")
            print(name, rate, accs, flush=True)
        means[rate] = np.mean(rows, axis=0)
    lines += ["", "Means over the sets:", ""]
    lines += [f"- {rate:.0%} labeled: hinge {m[0]:.3f}, squared hinge {m[1]:.3f}"
              for rate, m in means.items()]  # fmt: skip
    bench.write_markdown(args, args.name, lines)


if __name__ == "__main__":
    main()
