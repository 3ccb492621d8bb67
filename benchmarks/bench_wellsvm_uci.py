"""Tables 2 and 3 of the WellSVM paper (Li et al., JMLR 2013): test accuracy of semi-supervised
SVMs on the UCI sets with 5% and 10% of the training points labeled, and CPU time (Figure 1).

Protocol (Section 5.1.1): 75% train / 25% test, random splits; C1 = 1; C2 in
{0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1}; Gaussian width sigma in {0.25, 0.5, 1, 2, 4} x
sqrt(mean squared distance), i.e. gamma = 1 / (2 sigma^2); LapSVM's k in {3, 5, 7, 9}; every
parameter by 5-fold cross-validated accuracy on the labeled training points (each fold's
model sees all other training points, unlabeled). 12 of the paper's 16 sets are in
../shared/data/uci-small (echocardiogram, haberman, german and sick are not).

    python benchmarks/bench_wellsvm_uci.py                 # the full protocol (30 splits, CV)
    python benchmarks/bench_wellsvm_uci.py --splits 5 --no-cv   # the reduced run committed

    python benchmarks/bench_wellsvm_uci.py --quick         # smoke: 1 split, no CV, 2 sets

``--no-cv`` fixes C2 = 0.1, sigma = sqrt(mean squared distance) and k = 5 (the middle of the
grids) instead of cross-validating them. ``--quick`` runs one split without CV on the two
smallest of ``--sets``. Writes benchmarks/results/wellsvm_uci.md and wellsvm_uci_cpu.png
(``--name``; ``-quick`` for ``--quick``).
"""

from __future__ import annotations

import itertools
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics.pairwise import euclidean_distances
from sklearn.model_selection import StratifiedKFold, train_test_split
from sklearn.semi_supervised import LabelSpreading, SelfTrainingClassifier
from sklearn.svm import SVC

sys.path.insert(0, str(Path(__file__).parent))
import _common as bench  # noqa: E402

from unlabeled.datasets import UCI_SMALL_NAMES, load_uci_small  # noqa: E402
from unlabeled.ssl import TSVM, LapSVM, WellSVM  # noqa: E402

DATA = Path(__file__).parent.parent.parent / "shared" / "data" / "uci-small"
C2_GRID = [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1.0]
SIGMA_GRID = [0.25, 0.5, 1.0, 2.0, 4.0]
K_GRID = [3, 5, 7, 9]
METHODS = ["SVM", "TSVM", "LapSVM", "WellSVM", "SelfTraining(SVC)", "LabelSpreading"]
# the authors' code's variants, offered as options of WellSVM (run with --methods)
VARIANTS = ["WellSVM+refine", "WellSVM+alignment"]

# The paper's Tables 2 (5%) and 3 (10%) on the 12 sets we have: SVM, TSVM, LapSVM, USVM, WellSVM
PAPER = {
    float(frac): {name: tuple(map(float, vals)) for name, *vals in rows}
    for frac, rows in bench.paper_tables(
        Path(__file__).parent / "bench_wellsvm_uci_paper.txt"
    ).items()
}
PAPER_METHODS = ["SVM", "TSVM", "LapSVM", "USVM", "WellSVM"]


def make(method, C2, gamma, k):
    """The estimator of ``method`` with its parameters; fit(X, y) with y = -1 unlabeled."""
    if method.startswith("WellSVM"):
        variant = {"WellSVM+refine": {"refine_oracle": True},
                   "WellSVM+alignment": {"init": "alignment", "random_state": 0}}  # fmt: skip
        return WellSVM(C1=1.0, C2=C2, gamma=gamma, **variant.get(method, {}))
    if method == "TSVM":
        return TSVM(C1=1.0, C2=C2, gamma=gamma)
    if method == "LapSVM":
        return LapSVM(C1=1.0, gamma_I=1.0, n_neighbors=k, gamma=gamma)
    if method == "SelfTraining(SVC)":
        return SelfTrainingClassifier(SVC(C=1.0, gamma=gamma, probability=True))
    if method == "LabelSpreading":
        return LabelSpreading(kernel="knn", n_neighbors=k)
    return LabeledOnly(gamma)


class LabeledOnly:
    """The SVM on the labeled points only (C = 1)."""

    def __init__(self, gamma):
        self.svc = SVC(C=1.0, gamma=gamma)

    def fit(self, X, y):
        self.svc.fit(X[y != -1], y[y != -1])
        return self

    def predict(self, X):
        return self.svc.predict(X)


def grid(method, base_gamma, cv):
    """The parameter candidates (C2, gamma, k) of ``method``."""
    if not cv:
        return [(0.1, base_gamma, 5)]
    gammas = [base_gamma / s**2 for s in SIGMA_GRID]
    c2s = C2_GRID if method in ("WellSVM", "TSVM") else [None]
    ks = K_GRID if method in ("LapSVM", "LabelSpreading") else [5]
    if method == "LabelSpreading":
        gammas = [None]
    return list(itertools.product(c2s, gammas, ks))


def cv_accuracy(method, params, X, y, folds, seed):
    """Accuracy on held-out labeled points; every fold keeps all unlabeled points."""
    lab = np.flatnonzero(y != -1)
    skf = StratifiedKFold(folds, shuffle=True, random_state=seed)
    hits = 0
    for _tr, te in skf.split(lab, y[lab]):
        y_cv = y.copy()
        y_cv[lab[te]] = -1
        if len(np.unique(y_cv[y_cv != -1])) < 2:
            continue
        model = make(method, *params).fit(X, y_cv)
        hits += np.sum(model.predict(X[lab[te]]) == y[lab[te]])
    return hits / lab.size


def one_split(X, y, rate, seed, cv):
    """Accuracies and fit times of every method on one random split."""
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.25, random_state=seed, stratify=y)
    rng = np.random.default_rng(seed)
    n_lab = max(4, int(round(rate * len(ytr))))
    while True:  # both classes among the labeled points
        lab = rng.choice(len(ytr), n_lab, replace=False)
        if len(np.unique(ytr[lab])) == 2:
            break
    y_ssl = np.full(len(ytr), -1)
    y_ssl[lab] = ytr[lab]
    base_gamma = 1.0 / (2 * np.mean(euclidean_distances(Xtr, squared=True)))
    out = {}
    for method in METHODS:
        t0 = time.process_time()
        cands = grid(method, base_gamma, cv)
        folds = min(5, np.bincount(ytr[lab]).min())
        best = (
            max(cands, key=lambda p: cv_accuracy(method, p, Xtr, y_ssl, folds, seed))
            if len(cands) > 1 and folds >= 2
            else cands[0]
        )
        t1 = time.process_time()
        model = make(method, *best).fit(Xtr, y_ssl)
        fit_cpu = time.process_time() - t1
        out[method] = (float(np.mean(model.predict(Xte) == yte)), fit_cpu, t1 - t0)
    return out


def main():
    ap = bench.parser(__doc__, quick="a smoke run: 1 split, no CV, the 2 smallest sets",
                      name="wellsvm_uci")  # fmt: skip
    ap.add_argument("--splits", type=int, default=30)
    ap.add_argument("--no-cv", action="store_true")
    ap.add_argument("--rates", type=float, nargs="+", default=[0.05, 0.10])
    ap.add_argument("--sets", nargs="+", default=list(UCI_SMALL_NAMES))
    ap.add_argument("--methods", nargs="+", default=list(METHODS), choices=METHODS + VARIANTS)
    ap.add_argument("--data", default=str(DATA), help=f"the UCI folder ({DATA})")
    args = bench.parse(ap)
    METHODS[:] = args.methods  # the one list every table and loop below reads
    if not Path(args.data).is_dir():
        sys.exit(f"{args.data} not found: this benchmark needs the shared UCI folder")
    warnings.simplefilter("ignore", ConvergenceWarning)
    results = {}
    # the small sets first; the report is rewritten after every set, so a run stopped early
    # leaves a table of the sets it finished (marked as such)
    sizes = {name: load_uci_small(name, args.data)[0].shape[0] for name in args.sets}
    order = sorted(args.sets, key=sizes.get)
    if args.quick:
        args.splits, args.no_cv, args.sets = 1, True, order[:2]
        order = args.sets
    for name, rate in itertools.product(order, args.rates):
        X, y = load_uci_small(name, args.data)
        runs = [one_split(X, y, rate, seed, not args.no_cv) for seed in range(args.splits)]
        results[rate, name] = runs
        acc = {m: np.mean([r[m][0] for r in runs]) for m in METHODS}
        print(f"{rate:.2f} {name:15s} " + " ".join(f"{m} {a:.3f}" for m, a in acc.items()),
              flush=True)  # fmt: skip
        done = [s for s in order if all((r, s) in results for r in args.rates)]
        if done:  # no table (and no plot: matplotlib refuses an empty log axis) before
            write_report(results, args, done)


def write_report(results, args, done):
    reduced = args.splits < 30 or args.no_cv
    lines = bench.header(
        "WellSVM on the UCI sets: the paper's Tables 2 (5% labeled) and 3 (10% labeled)",
        "**reduced protocol**" if reduced else "",
    )
    lines += [
        "Full protocol: `python benchmarks/bench_wellsvm_uci.py` (30 splits, 5-fold CV over "
        "the paper's grids).",
        "",
        f"{args.splits} random 75/25 splits per set; "
        + ("C2 = 0.1, sigma = sqrt(mean squared distance), k = 5 fixed (no CV)."
           if args.no_cv else "C2, sigma and k by 5-fold CV on the labeled training points.")
        + " The paper's 4 other sets (echocardiogram, haberman, german, sick) are not available.",
        "",
    ]  # fmt: skip
    if len(done) < len(args.sets):
        missing = ", ".join(s for s in args.sets if s not in done)
        lines += [f"**Partial run: not finished on {missing}.** The means are over the sets "
                  "listed, and the paper's means over the same sets.", ""]  # fmt: skip
    for rate in args.rates:
        lines += table(results, rate, done)
    lines += cpu_table(results, args, done)
    bench.write_markdown(args, args.name, lines)
    plot_cpu(results, args, done, bench.output(args, args.name + "_cpu", ".png"))


def table(results, rate, sets):
    head = "| set | " + " | ".join(METHODS) + " | paper " + " / ".join(PAPER_METHODS) + " |"
    rows = [
        f"## {rate:.0%} labeled: test accuracy, mean ± std over splits", "",
        head, "|" + "---|" * (len(METHODS) + 2),
    ]  # fmt: skip
    means = {m: [] for m in METHODS}
    for name in sets:
        runs = results[rate, name]
        cells = []
        for m in METHODS:
            a = np.array([r[m][0] for r in runs])
            means[m].append(a.mean())
            cells.append(f"{a.mean():.3f} ± {a.std():.3f}")
        paper = PAPER.get(rate, {}).get(name)
        rows.append(f"| {name} | " + " | ".join(cells) + " | "
                    + (" / ".join(f"{v:.2f}" for v in paper) if paper else "-") + " |")  # fmt: skip
    paper_mean = [
        np.mean([PAPER[rate][s][i] for s in sets if s in PAPER.get(rate, {})]) if rate in PAPER
        else float("nan") for i in range(len(PAPER_METHODS))
    ]  # fmt: skip
    rows.append("| **mean** | " + " | ".join(f"**{np.mean(means[m]):.3f}**" for m in METHODS)
                + " | " + " / ".join(f"{v:.3f}" for v in paper_mean) + " |")  # fmt: skip
    return rows + [""]


def cpu_table(results, args, done):
    rows = [
        "## CPU time per fit (seconds, mean over sets and splits; the paper's Figure 1)", "",
        "| labeled | " + " | ".join(METHODS) + " |", "|" + "---|" * (len(METHODS) + 1),
    ]  # fmt: skip
    for rate in args.rates:
        t = [np.mean([r[m][1] for s in done for r in results[rate, s]]) for m in METHODS]
        rows.append(f"| {rate:.0%} | " + " | ".join(f"{v:.3f}" for v in t) + " |")
    return rows + ["", "Fit time of the final model only; model selection time is excluded."]


def plot_cpu(results, args, done, path):
    plt = bench.pyplot()
    fig, ax = plt.subplots(figsize=(7, 4))
    width = 0.8 / len(args.rates)
    for j, rate in enumerate(args.rates):
        t = [np.mean([r[m][1] for s in done for r in results[rate, s]]) for m in METHODS]
        t = np.maximum(t, 1e-4)  # a fit faster than the CPU clock reads 0
        ax.bar(np.arange(len(METHODS)) + j * width, t, width, label=f"{rate:.0%} labeled")
    ax.set_xticks(np.arange(len(METHODS)) + width * (len(args.rates) - 1) / 2, METHODS,
                  rotation=20, fontsize=8)  # fmt: skip
    ax.set_yscale("log")
    ax.set_ylabel("CPU seconds per fit")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


if __name__ == "__main__":
    main()
