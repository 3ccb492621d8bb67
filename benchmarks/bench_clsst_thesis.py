"""The protocols of the thesis' Figures 2.2 (semi-supervised clustering, NMI) and 2.5
(semi-supervised classification, error with 5-fold CV) on G50C, CAKE, TOES, IRIS and DIGITS.

    python benchmarks/bench_clsst_thesis.py --quick   # the reduced run committed
    python benchmarks/bench_clsst_thesis.py           # the thesis protocol (hours on 2 cores)

Data: G50C (550 x 50), CAKE and TOES (1000 x 2) from unlabeled.datasets; IRIS from
scikit-learn; DIGITS = scikit-learn's load_digits restricted to the digits 3, 8 and 9 (in place
of USPS 3, 8, 9), embedded in 3-D by t-SNE (perplexity 30, PCA start, random_state 0, other
scikit-learn defaults). Every set standardised. n_factors: 2 for G50C, 1 for CAKE and TOES (the
thesis' 2 must be below the 2 features), 3 for IRIS and DIGITS.

Figure 2.2: for 0..90 labeled points per class (IRIS: up to 40) and 20 draws, the NMI on the
unlabeled points of CLSST's predicted classes and of its clusters, of LabelSpreading's and the
per-class Gaussian's classes and of KMeans (K clusters; 4 on CAKE and 5 on TOES, as the thesis
gives its competitors). At 0 labels CLSST gets classes=[...] and starts from k-means; the
classifiers have nothing to learn from and are left out.
Figure 2.5: 5-fold CV (stratified, shuffled, seed 0); within each training split 2..70 labeled
points per class (IRIS: up to 30) and 10 draws; error on the test fold of CLSST,
LabelSpreading, self-training SVC and the per-class Gaussian (the thesis' LDS and LapSVM are not
in scikit-learn; this library's LapSVM is not built yet).

Writes benchmarks/results/clsst_thesis{-quick}.md and .png.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.cluster import KMeans
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import normalized_mutual_info_score as nmi
from sklearn.model_selection import StratifiedKFold

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _clsst_common import draw_labels, load, run_inductive, run_method, save_figure  # noqa: E402
from _common import machine  # noqa: E402

from unlabeled.ssl import CLSST  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"
SETS = ("G50C", "CAKE", "TOES", "IRIS", "DIGITS")
KMEANS_K = {"CAKE": 4, "TOES": 5}
CLASSIFIERS = ("CLSST", "LabelSpreading", "SelfTraining(SVC)", "GMM per class")


def clustering(name, X, y, k, counts, draws):
    """Figure 2.2 rows: NMI on the unlabeled points."""
    rows = []
    K = len(np.unique(y))
    for c in counts:
        for seed in range(draws):
            yl = draw_labels(y, c, seed) if c > 0 else np.full(len(y), -1)
            u = yl < 0
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                clf = CLSST(n_factors=k, classes=np.arange(K), random_state=seed).fit(X, yl)
            out = {
                "CLSST classes": nmi(y[u], clf.transduction_[u]),
                "CLSST clusters": nmi(y[u], clf.labels_[u]),
            }
            km = KMeans(KMEANS_K.get(name, K), n_init=10, random_state=seed).fit_predict(X)
            out["KMeans"] = nmi(y[u], km[u])
            if c > 0:
                for m in ("LabelSpreading", "GMM per class"):
                    out[m] = nmi(y[u], run_method(m, X, yl, k, seed)[0][u])
            rows += [dict(set=name, labels=c, seed=seed, method=m, value=v) for m, v in out.items()]
        print(f"fig 2.2 {name} {c} done", flush=True)
    return rows


def classification(name, X, y, k, counts, draws, folds):
    """Figure 2.5 rows: test error under stratified k-fold CV."""
    rows = []
    cv = StratifiedKFold(folds, shuffle=True, random_state=0)
    for c in counts:
        for f, (tr, te) in enumerate(cv.split(X, y)):
            for seed in range(draws):
                yl = draw_labels(y[tr], c, seed)
                for m in CLASSIFIERS:
                    pred = run_inductive(m, X[tr], yl, X[te], k, seed)
                    rows.append(
                        dict(
                            set=name,
                            labels=c,
                            seed=seed,
                            fold=f,
                            method=m,
                            value=float((pred != y[te]).mean()),
                        )
                    )
        print(f"fig 2.5 {name} {c} done", flush=True)
    return rows


def table(rows, sets, what):
    methods = list(dict.fromkeys(r["method"] for r in rows))
    out = [f"| set | labels/class | {' | '.join(methods)} |", "|---|---|" + "---|" * len(methods)]
    for name in sets:
        for c in sorted({r["labels"] for r in rows if r["set"] == name}):
            cells = []
            for m in methods:
                v = [
                    r["value"] for r in rows if (r["set"], r["labels"], r["method"]) == (name, c, m)
                ]
                cells.append(f"{np.mean(v):.3f} ({np.std(v):.3f})" if v else "-")
            out.append(f"| {name} | {c} | " + " | ".join(cells) + " |")
    return [f"## {what}", "", *out, ""]


def plot(r22, r25, sets, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, len(sets), figsize=(3.4 * len(sets), 6.2), squeeze=False)
    for i, (rows, lab) in enumerate(((r22, "NMI (Fig. 2.2)"), (r25, "test error (Fig. 2.5)"))):
        for j, name in enumerate(sets):
            ax = axes[i, j]
            for m in dict.fromkeys(r["method"] for r in rows):
                cs = sorted({r["labels"] for r in rows if (r["set"], r["method"]) == (name, m)})
                v = [
                    np.mean(
                        [
                            r["value"]
                            for r in rows
                            if (r["set"], r["labels"], r["method"]) == (name, c, m)
                        ]
                    )
                    for c in cs
                ]
                ax.plot(cs, v, "o-", ms=3, label=m)
            ax.set_title(f"{name}: {lab}", fontsize=9)
            ax.set_xlabel("labeled points per class", fontsize=8)
            ax.grid(alpha=0.3)
        axes[i, 0].legend(fontsize=7)
    save_figure(fig, path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="few label counts and draws")
    ap.add_argument("--sets", default=",".join(SETS))
    args = ap.parse_args()
    sets = args.sets.split(",")
    if args.quick:
        c22, c25, d22, d25 = [0, 5, 30], [5, 30], 2, 1
    else:
        c22, c25, d22, d25 = [0, 2, 5, 10, 20, 30, 50, 70, 90], [2, 5, 10, 20, 30, 50, 70], 20, 10
    t0 = time.time()
    r22, r25 = [], []
    for name in sets:
        X, y, k = load(name)
        cap = (np.bincount(y).min() * 4) // 5 - 1  # leave unlabeled points in every fold
        r22 += clustering(name, X, y, k, [c for c in c22 if c <= cap], d22)
        r25 += classification(name, X, y, k, [c for c in c25 if c <= cap * 4 // 5], d25, 5)
    tag = "-quick" if args.quick else ""
    plot(r22, r25, sets, RESULTS / f"clsst_thesis{tag}.png")
    cmd = "python benchmarks/bench_clsst_thesis.py" + (" --quick" if args.quick else "")
    lines = [
        "# CLSST: the thesis' Figure 2.2 and 2.5 protocols",
        "",
        f"Command: `{cmd}` ({(time.time() - t0) / 60:.1f} min). {machine()}",
        "",
        (
            "REDUCED run: Fig. 2.2 with the label counts " + str(c22) + f" and {d22} draws, Fig. "
            f"2.5 with {c25} and {d25} draw per fold (the thesis: 0..90 with 20 draws, and 0..70 "
            "with 10 draws: `python benchmarks/bench_clsst_thesis.py`)."
            if args.quick
            else "The thesis protocol."
        ),
        "",
        "Mean (std) over draws (and folds). Protocol: the script's docstring. Plot: "
        f"`clsst_thesis{tag}.png`.",
        "",
    ]
    lines += table(r22, sets, "Figure 2.2: NMI on the unlabeled points (higher is better)")
    lines += table(r25, sets, "Figure 2.5: test error, 5-fold CV (lower is better)")
    (RESULTS / f"clsst_thesis{tag}.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
