"""Tables III and IV of the USMO paper (Sansone, De Natale, Zhou, TPAMI 2019), reproduced.

    python benchmarks/reproduce_tables.py                 # 10 labelings, about 30 minutes
    python benchmarks/reproduce_tables.py --quick         # 2 labelings, 3 sets: a smoke run

Protocol (../shared/spec/protocol.md): the 12 UCI sets of ../shared/data/uci-small (or
--data-home, or $UNLABELED_DATA_UCI); 20% of the positives labeled at random, the rest
unlabeled; prior = the true proportion of positives in the data set, as the paper sets it
(--prior unlabeled uses instead their share among the unlabeled points, the pi of the PU
risk, and writes table3-prior-unlabeled.md / table4-prior-unlabeled.md); linear kernel
(Table III) and Gaussian kernel exp(-||x - y||^2 / 2) (Table IV); lam in {1e-4, 1e-3, 1e-2, 1e-1}.
Every labeling is fitted by the four methods of the paper's columns:
  Init    USMOInit, the one-class-SVM start of USMO alone (the paper's "Init*");
  RampPU  the ramp-loss CCCP of du Plessis et al. 2014 (the paper's [6]), random start;
  QP      DoubleHingeQP, Clarabel on the dense Gram matrix (the paper's [7]);
  PUSVC   this library's exact SMO solver (the paper's "USMO" column), tol = 1e-6.
Scores on the unlabeled part (transductive): F1 of the positive class, and "F-maj", the
F-measure of whichever class is the majority among the true labels, which is what the paper's
MATLAB performance.m computes and its tables print. Mean and standard deviation over the
labelings; the paper's printed numbers alongside; the largest relative objective gap
(J_PUSVC - J_QP) / max(1, |J_QP|) of each cell.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import _common as bench
import numpy as np
from joblib import Parallel, delayed
from sklearn.metrics import f1_score

from unlabeled import PUSVC
from unlabeled.datasets import UCI_SMALL_NAMES, load_uci_small, make_pu_labels
from unlabeled.pu import DoubleHingeQP, RampPU, USMOInit

LAMS = (1e-4, 1e-3, 1e-2, 1e-1)
METHODS = ("Init", "RampPU", "QP", "PUSVC")
KERNELS = {"linear": ("Table III", "linear kernel"), "rbf": ("Table IV", "Gaussian kernel")}

# The paper's printed F-measures: per set, for lam = 1e-4, 1e-3, 1e-2, 1e-1 in turn, the
# columns Init*, [6] (RampPU), [7] (QP), USMO. Copied from Tables III and IV.
PAPER = {
    "linear": """
australian 61.8 61.5 67.9 68.3 61.8 68.8 67.7 67.6 61.8 63.4 69.0 69.3 61.8 58.5 70.0 70.2
clean1 60.6 81.6 70.5 70.2 63.8 76.2 65.5 65.6 64.6 81.9 73.3 73.0 66.2 80.4 77.9 75.6
diabetes 41.8 73.3 70.0 70.1 41.4 71.5 71.2 71.1 37.6 77.9 78.0 79.3 6.5 82.3 82.3 82.3
heart 46.8 60.8 60.1 59.4 49.0 63.4 60.7 60.0 57.2 64.9 66.0 66.0 75.6 75.6 75.6 75.6
heart-statlog 63.3 65.1 54.5 54.5 63.8 58.1 55.4 55.2 66.9 61.2 53.8 53.8 75.6 67.5 61.7 60.2
house 49.0 57.9 59.9 59.9 49.8 66.7 59.0 59.0 49.8 57.9 57.4 56.8 58.4 51.8 64.6 64.0
house-votes 59.3 51.6 59.6 59.6 60.0 56.6 60.0 59.9 66.9 59.3 57.1 57.2 71.8 51.3 61.7 62.0
ionosphere 19.3 59.9 65.1 65.1 19.3 74.9 71.5 72.0 19.3 71.9 72.6 73.7 22.3 75.5 75.2 75.2
isolet 98.3 77.1 91.8 93.7 98.1 78.0 93.3 93.3 98.1 81.1 94.7 94.7 98.0 86.8 95.5 95.5
krvskp 57.0 78.4 81.1 81.1 57.3 78.7 79.6 79.9 61.1 75.8 82.9 82.9 68.8 75.0 80.6 80.6
liverDisorders 54.5 56.0 55.7 56.0 60.0 58.1 63.9 63.4 69.0 68.8 68.8 68.8 68.8 68.8 68.8 68.8
spectf 56.4 58.0 73.5 73.5 60.4 66.3 72.9 72.3 58.1 79.9 80.6 80.6 79.2 81.1 81.1 81.1
""",
    "rbf": """
australian 67.0 64.2 64.2 64.7 67.0 64.2 70.6 70.6 67.0 57.2 59.4 59.4 67.0 0.0 0.0 0.0
clean1 28.7 80.1 77.6 77.6 44.0 80.6 81.7 81.7 78.3 78.0 76.6 76.6 76.4 76.4 76.4 76.4
diabetes 58.8 74.1 70.0 70.0 58.4 71.3 71.2 70.6 52.6 80.7 80.1 80.1 0.0 82.3 82.3 82.3
heart 46.5 66.7 58.9 58.9 47.7 64.1 59.8 59.8 63.8 70.3 70.9 70.9 75.6 75.6 75.6 75.6
heart-statlog 30.7 70.3 53.5 53.5 31.5 65.1 56.7 56.7 49.6 60.6 56.4 56.4 75.6 75.6 75.6 75.6
house 38.5 63.9 56.5 56.5 37.1 68.8 61.1 60.1 28.2 59.1 56.8 54.2 74.0 74.0 74.0 74.0
house-votes 64.2 29.7 61.2 61.2 64.1 54.3 59.2 59.4 67.4 61.1 57.5 57.5 71.8 71.8 71.8 71.8
ionosphere 55.6 52.6 65.3 65.3 56.3 68.2 74.3 74.1 58.4 58.7 65.7 65.7 72.7 74.2 74.2 74.2
isolet 0.0 73.3 75.3 75.3 0.0 73.8 75.7 75.7 0.0 74.1 76.4 76.4 0.0 73.3 75.9 75.9
krvskp 52.0 73.9 82.4 82.5 59.4 77.2 84.3 84.1 44.2 73.2 73.2 73.2 73.2 73.2 73.2 73.2
liverDisorders 44.3 60.6 57.0 56.2 49.5 63.7 62.2 62.5 68.8 68.8 68.8 68.8 68.8 68.8 68.8 68.8
spectf 61.5 38.0 74.0 74.0 80.0 62.4 72.9 72.1 69.0 81.1 81.1 81.1 81.1 81.1 81.1 81.1
""",
}


def paper_numbers(kernel):
    """{(set, lam): {method: printed F-measure}}."""
    out = {}
    for line in PAPER[kernel].strip().splitlines():
        name, *vals = line.split()
        for k, lam in enumerate(LAMS):
            out[name, lam] = dict(zip(METHODS, map(float, vals[4 * k : 4 * k + 4]), strict=True))
    return out


def f_scores(y, pred):
    """(F1 of the positive class, F-measure of the majority class), in percent."""
    majority = int(y.mean() > 0.5)
    return (
        100 * f1_score(y, pred, pos_label=1, zero_division=0),
        100 * f1_score(y, pred, pos_label=majority, zero_division=0),
    )


def run_cell(name, kernel, seed, data_home, prior_from):
    """All lambdas and methods on one labeling of one set (the split is shared)."""
    X, y = load_uci_small(name, data_home=data_home)
    s = make_pu_labels(y, labeled_fraction=0.2, random_state=seed)
    unl = s == 0
    prior = float(y[unl].mean() if prior_from == "unlabeled" else y.mean())
    common = {"prior": prior, "kernel": kernel, "gamma": 0.5}
    rows = []
    for lam in LAMS:
        models = {
            "Init": USMOInit(lam=lam, **common),
            "RampPU": RampPU(lam=lam, random_state=seed, **common),
            "QP": DoubleHingeQP(lam=lam, **common),
            "PUSVC": PUSVC(lam=lam, tol=1e-6, n_jobs=1, random_state=seed, **common),
        }
        objective = {}
        for method, model in models.items():
            t0 = time.perf_counter()
            model.fit(X, s)
            elapsed = time.perf_counter() - t0
            f1, fmaj = f_scores(y[unl], model.predict(X[unl]))
            objective[method] = model.objective_
            rows.append((name, kernel, lam, seed, method, f1, fmaj, elapsed))
        gap = (objective["PUSVC"] - objective["QP"]) / max(1.0, abs(objective["QP"]))
        rows.append((name, kernel, lam, seed, "gap", gap, np.nan, np.nan))
    return rows


def main():
    ap = bench.parser(__doc__, quick="2 labelings of 3 sets (smoke run)")
    ap.add_argument("--labelings", type=int, default=10, help="random labelings per set")
    ap.add_argument("--sets", nargs="*", default=list(UCI_SMALL_NAMES), help="subset of sets")
    ap.add_argument("--data-home", default=None, help="folder of the .mat files")
    ap.add_argument("--n-jobs", type=int, default=os.cpu_count(), help="parallel processes")
    ap.add_argument(
        "--prior",
        choices=["dataset", "unlabeled"],
        default="dataset",
        help="positives' share in the whole set (the paper) or among the unlabeled points",
    )
    args = ap.parse_args()
    if args.quick:
        args.labelings, args.sets = 2, ["heart", "house", "ionosphere"]
    try:
        from tqdm import tqdm
    except ImportError:  # the bench extra brings tqdm; without it, no bar
        tqdm = None

    tasks = [(n, k, seed) for k in KERNELS for n in args.sets for seed in range(args.labelings)]
    # the slowest sets first, so that the two workers finish together
    tasks.sort(key=lambda t: -os.path.getsize(_path(t[0], args.data_home)))
    t0 = time.perf_counter()
    jobs = Parallel(n_jobs=args.n_jobs, return_as="generator_unordered")(
        delayed(run_cell)(*t, args.data_home, args.prior) for t in tasks
    )
    if tqdm is not None:
        jobs = tqdm(jobs, total=len(tasks), desc="labelings", unit="fit")
    rows = [r for chunk in jobs for r in chunk]
    wall = time.perf_counter() - t0
    for kernel in KERNELS:
        write_table(rows, kernel, args, wall)


def _path(name, data_home):
    home = data_home or os.environ.get("UNLABELED_DATA_UCI", "../shared/data/uci-small")
    return Path(home) / f"{name}.mat"


def _ms(values):
    v = np.asarray(values, dtype=float)
    return f"{v.mean():.1f} ± {v.std():.1f}"


def lam_section(rows, lam, sets, paper, times):
    """The table of one lam: per set, F1 and F-maj of each method, the paper's numbers and
    the objective gap; the averages over the sets. Appends the fit times to ``times``."""
    lines = [
        f"## lam = {lam:g}",
        "",
        "| set | F1 Init | F1 RampPU | F1 QP | F1 PUSVC | F-maj Init | F-maj RampPU | "
        "F-maj QP | F-maj PUSVC | paper Init* / [6] / [7] / USMO | gap |",
        "|---|" + "---:|" * 10,
    ]
    per_lam = {m: {"f1": [], "fmaj": []} for m in METHODS}
    for name in sets:
        cell = [r for r in rows if r[0] == name and r[2] == lam]
        f1 = {m: [r[5] for r in cell if r[4] == m] for m in METHODS}
        fmaj = {m: [r[6] for r in cell if r[4] == m] for m in METHODS}
        for m in METHODS:
            per_lam[m]["f1"].append(np.mean(f1[m]))
            per_lam[m]["fmaj"].append(np.mean(fmaj[m]))
            times[m] += [r[7] for r in cell if r[4] == m]
        gap = max(r[5] for r in cell if r[4] == "gap")
        printed = paper.get((name, lam), {})
        lines.append(
            f"| {name} | "
            + " | ".join(_ms(f1[m]) for m in METHODS)
            + " | "
            + " | ".join(_ms(fmaj[m]) for m in METHODS)
            + " | "
            + " / ".join(f"{printed[m]:.1f}" for m in METHODS if m in printed)
            + f" | {gap:.1e} |"
        )
    means = {m: (np.mean(per_lam[m]["f1"]), np.mean(per_lam[m]["fmaj"])) for m in METHODS}
    paper_avg = {m: np.mean([paper[n, lam][m] for n in sets]) for m in METHODS}
    lines += [
        "| **average** | "
        + " | ".join(f"**{means[m][0]:.1f}**" for m in METHODS)
        + " | "
        + " | ".join(f"**{means[m][1]:.1f}**" for m in METHODS)
        + " | **"
        + " / ".join(f"{paper_avg[m]:.1f}" for m in METHODS)
        + "** | |",
        "",
    ]
    return lines, means, paper_avg


def write_table(rows, kernel, args, wall):
    table, title = KERNELS[kernel]
    paper = paper_numbers(kernel)
    rows = [r for r in rows if r[1] == kernel]
    lines = [
        *bench.header(
            f"{table} of the USMO paper, reproduced ({title})",
            f"{args.labelings} labelings per set; whole run {wall / 60:.1f} min",
        ),
        "Protocol: 20% of the positives labeled at random (labeling seed 0, 1, ...), prior = "
        + (
            "the true share of positives among the unlabeled points (the pi of the PU risk), "
            if args.prior == "unlabeled"
            else "the true proportion of positives in the whole data set (as in the paper), "
        )
        + "F-measures on the unlabeled part "
        "in percent, mean ± standard deviation over the labelings. **F1** is the F1 of the "
        "positive class; **F-maj** is the F-measure of the majority class among the true "
        "labels, which is what the paper's code computes and its tables print. *paper* are "
        "the printed numbers (Init* / [6] / [7] / USMO). *gap* is the largest "
        "(J_PUSVC - J_QP) / max(1, |J_QP|) over the labelings (PUSVC at tol = 1e-6, QP at "
        "Clarabel's gap tolerance 1e-8): negative means PUSVC found the lower objective.",
        "",
    ]
    avg = {m: {"f1": [], "fmaj": []} for m in METHODS}
    avg_paper = {m: [] for m in METHODS}
    times = {m: [] for m in METHODS}
    for lam in LAMS:
        section, means, paper_avg = lam_section(rows, lam, args.sets, paper, times)
        lines += section
        for m in METHODS:
            avg[m]["f1"].append(means[m][0])
            avg[m]["fmaj"].append(means[m][1])
            avg_paper[m].append(paper_avg[m])
    lines += [
        "## Against the paper",
        "",
        "Average over the sets of F-maj (the paper's metric) minus the paper's printed average, "
        "per lam (1e-4 / 1e-3 / 1e-2 / 1e-1):",
        "",
    ]
    for m in METHODS:
        diffs = np.subtract(avg[m]["fmaj"], avg_paper[m])
        lines.append(f"- {m}: " + " / ".join(f"{d:+.1f}" for d in diffs))
    lines += [
        "",
        "Mean fit time per labeling and lam: "
        + ", ".join(f"{m} {np.mean(times[m]):.3f} s" for m in METHODS)
        + ".",
        "",
    ]
    name = {"linear": "table3", "rbf": "table4"}[kernel]
    if args.prior != "dataset":
        name += f"-prior-{args.prior}"
    bench.write_markdown(args, name, lines)


if __name__ == "__main__":
    main()
