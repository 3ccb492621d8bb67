"""How high can the UCI means of Tables 2 and 3 go on these files? Every method's test accuracy
for every candidate of the paper's grid (6 kernels x 7 values of C2), and two ceilings that no
honest selection rule can pass, since both pick with the **test labels**:

- *best per set*: the one candidate with the best mean test accuracy over the set's splits;
- *best per split*: on every split the candidate with the best test accuracy (an upper bound
  for any rule that chooses among these candidates, cross-validation included).

A diagnostic of the protocol, not a result: bench_wellsvm_uci.py selects by cross-validation
on the labeled points only. Same splits as bench_wellsvm_uci.py (seed = split number).

    python benchmarks/diag_wellsvm_uci_ceiling.py --methods SVM "WellSVM(squared)"
    python benchmarks/diag_wellsvm_uci_ceiling.py --splits 10 --large-splits 3 \
        --name wellsvm_uci_ceiling-hinge          # with the hinge WellSVM and TSVM (hours)

Writes benchmarks/results/wellsvm_uci_ceiling.md and .json (``--name``); a rerun keeps the
finished (method, rate, set) entries of its .json.
"""

from __future__ import annotations

import itertools
import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.exceptions import ConvergenceWarning

sys.path.insert(0, str(Path(__file__).parent))
import _common as bench  # noqa: E402
from bench_wellsvm_uci import (  # noqa: E402
    C2_GRID,
    DATA,
    KERNELS,
    PAPER,
    PAPER_METHODS,
    SQUARED,
    make,
    make_split,
)

from unlabeled.datasets import UCI_SMALL_NAMES, load_uci_small  # noqa: E402

METHODS = ["SVM", SQUARED, "WellSVM", "TSVM"]


def grid(method):
    """(kernel, C2) candidates; the SVM on the labeled points has no C2."""
    values = [None] if method == "SVM" else C2_GRID
    return list(itertools.product(KERNELS, values))


def accuracies(method, X, y, rate, seed, max_iter):
    """Test accuracy of every candidate on one split."""
    Xtr, Xte, _ytr, yte, y_ssl, g = make_split(X, y, rate, seed)
    out = []
    for kern, c2 in grid(method):
        params = {"kernel": kern} if c2 is None else {"kernel": kern, "C2": c2}
        model = make(method, params, g, max_iter).fit(Xtr, y_ssl)
        out.append(float(np.mean(model.predict(Xte) == yte)))
    return out


def main():
    ap = bench.parser(__doc__, quick="2 splits, 2 sets", name="wellsvm_uci_ceiling")
    ap.add_argument("--splits", type=int, default=30)
    ap.add_argument("--large-splits", type=int, default=10,
                    help="splits for the sets of more than 1000 points")  # fmt: skip
    ap.add_argument("--rates", type=float, nargs="+", default=[0.05, 0.10])
    ap.add_argument("--methods", nargs="+", default=METHODS, choices=METHODS)
    ap.add_argument("--max-iter", type=int, default=20, help="WellSVM's cutting-plane cap")
    ap.add_argument("--data", default=str(DATA))
    args = bench.parse(ap)
    if not Path(args.data).is_dir():
        sys.exit(f"{args.data} not found: this diagnostic needs the shared UCI folder")
    sets = list(UCI_SMALL_NAMES)
    sizes = {s: load_uci_small(s, args.data)[0].shape[0] for s in sets}
    sets = sorted(sets, key=sizes.get)[:2] if args.quick else sets
    warnings.simplefilter("ignore", ConvergenceWarning)  # the 20-iteration cap, as the bench
    raw = bench.output(args, args.name, ".json")
    acc = json.loads(raw.read_text()) if raw.is_file() else {}
    t_start = time.perf_counter()
    for method, rate, name in itertools.product(args.methods, args.rates, sets):
        key = f"{method} {rate} {name}"
        if key in acc:
            continue
        X, y = load_uci_small(name, args.data)
        n = 2 if args.quick else args.splits if sizes[name] <= 1000 else args.large_splits
        acc[key] = [accuracies(method, X, y, rate, s, args.max_iter) for s in range(n)]
        raw.write_text(json.dumps(acc))
        print(f"{key}: {time.perf_counter() - t_start:.0f} s", flush=True)
    write_report(args, acc, sets)


def write_report(args, acc, sets):
    lines = bench.header("WellSVM on the UCI sets: the ceilings of the paper's grid")
    lines += [
        "Test accuracy with the parameters chosen **with the test labels** (not a result: an "
        "upper bound on what any selection rule over the paper's grid can report). *per set*: "
        "the one candidate (kernel, C2) with the best mean over the set's splits; *per split*: "
        f"the best candidate on each split. Splits: {args.splits} per set "
        f"({args.large_splits} on krvskp), those of bench_wellsvm_uci.py. C1 = 1, WellSVM's "
        f"cutting plane capped at {args.max_iter}. Grid: {len(KERNELS)} kernels (linear, "
        "Gaussian sigma in {0.25, 0.5, 1, 2, 4} x sqrt(mean squared distance)) x C2 in "
        f"{C2_GRID}.",
        "",
    ]
    methods = [m for m in args.methods if all(f"{m} {r} {s}" in acc for r in args.rates
                                              for s in sets)]  # fmt: skip
    for rate in args.rates:
        head = [f"{m} {w}" for m in methods for w in ("per set", "per split")]
        lines += [f"## {rate:.0%} labeled", "",
                  "| set | " + " | ".join(head) + " | paper " + " / ".join(PAPER_METHODS)
                  + " |", "|" + "---|" * (len(head) + 2)]  # fmt: skip
        means = np.zeros(len(head))
        for name in sets:
            cells = []
            for m in methods:
                a = np.array(acc[f"{m} {rate} {name}"])  # splits x candidates
                cells += [a.mean(0).max(), a.max(1).mean()]
            means += np.array(cells) / len(sets)
            paper = " / ".join(f"{v:.2f}" for v in PAPER[rate][name])
            lines.append(f"| {name} | " + " | ".join(f"{c:.3f}" for c in cells)
                         + f" | {paper} |")  # fmt: skip
        pm = np.mean([PAPER[rate][s] for s in sets], axis=0)
        lines += ["| **mean** | " + " | ".join(f"**{c:.3f}**" for c in means) + " | "
                  + " / ".join(f"{v:.3f}" for v in pm) + " |", ""]  # fmt: skip
        tsvm = pm[PAPER_METHODS.index("TSVM")]
        lines += [f"Against TSVM's printed mean on these sets, {tsvm:.4f}: "
                  + ", ".join(f"{h} {c:.4f} ({'below' if c < tsvm else 'not below'})"
                              for h, c in zip(head, means, strict=True)) + ".", ""]  # fmt: skip
    bench.write_markdown(args, args.name, lines)


if __name__ == "__main__":
    main()
