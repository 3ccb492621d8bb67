"""CLSST on the authors' demo sets (FCPS Atom, Chainlink, Ring, Spiral) and the CAKE and TOES
generators: transductive error and NMI against the number of labeled points per class.

    python benchmarks/bench_clsst_demos.py                       # the reduced grid (committed)
    python benchmarks/bench_clsst_demos.py --full                # 2..90 labels, 20 draws
    python benchmarks/bench_clsst_demos.py --quick               # smoke: Ring, 1 draw

The FCPS sets (Atom, Chainlink, Ring, Spiral) are read from ../shared/data/fcps; where that
folder is missing they are skipped, with the reason printed.

Protocol: each set standardised (population std); for each count of labeled points per class
and each draw (seed 0, 1, ...) that many points of each class are labeled at random, the rest
are unlabeled; every method sees the same draw. Metrics on the unlabeled points: the
transductive error and the NMI (arithmetic normalisation) of the predicted classes against the
true ones (for KMeans: of its K clusters). A second table runs the authors' demo label counts
(Atom 40, Chainlink 200, Ring 40, Spiral 700, CAKE 50 and TOES 200 per class).

Methods: CLSST (n_components=None, n_factors = min(the demo's maxdim, p - 1), other defaults);
scikit-learn's LabelSpreading (defaults: rbf, gamma 20, alpha 0.2); SelfTrainingClassifier of
CalibratedClassifierCV(SVC(), ensemble=False, cv=2) (an SVC with probabilities, the form
scikit-learn 1.9 recommends over SVC(probability=True)); a Gaussian per class fitted by
semi-supervised EM ("GMM per class", the one-blob-per-class assumption); KMeans with K clusters
(clustering NMI only).

Writes benchmarks/results/clsst_demos{-full}.md, clsst_demos{-full}.png, the log of its rows
clsst_demos{-full}.jsonl and clsst_components.png (the fitted components on the 2-D sets, as the
thesis' figures); ``--quick`` adds ``-quick`` to each name.
"""

from __future__ import annotations

import json
import time

import _harness as bench
import numpy as np
from _harness.clsst import DEMOS, METHODS, available, draw_labels, load, run_method, scores

from unlabeled.ssl import CLSST

SETS = ("Atom", "Chainlink", "Ring", "Spiral", "CAKE", "TOES")


def run_grid(sets, counts, draws, log):
    rows = []
    for name in sets:
        X, y, k = load(name)
        for per_class in counts:
            for seed in range(draws):
                yl = draw_labels(y, per_class, seed)
                for method in METHODS:
                    pred, sec = run_method(method, X, yl, k, seed)
                    err, nmi = scores(y, yl, pred, method)
                    row = dict(
                        set=name,
                        labels=per_class,
                        seed=seed,
                        method=method,
                        err=err,
                        nmi=nmi,
                        time=sec,
                    )
                    rows.append(row)
                    log.write(json.dumps(row) + "\n")
                    log.flush()
                print(f"{name} {per_class} {seed} done", flush=True)
    return rows


def summary(rows, sets, counts, key):
    """Markdown table: mean (std) of ``key`` per set and label count (None: the set's demo
    count), a column per method."""
    methods = [m for m in METHODS if not (key == "err" and m == "KMeans")]
    out = [
        "| set | labels/class | " + " | ".join(methods) + " |",
        "|---|---|" + "---|" * len(methods),
    ]
    for name in sets:
        for c in [DEMOS[name][0]] if counts is None else counts:
            cells = []
            for m in methods:
                v = [r[key] for r in rows if (r["set"], r["labels"], r["method"]) == (name, c, m)]
                cells.append(f"{np.mean(v):.3f} ({np.std(v):.3f})" if v else "-")
            out.append(f"| {name} | {c} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def plot_curves(rows, sets, counts, path):
    """Error and NMI (means over the draws) against the labels per class, a column per set."""
    means = []
    for name in sets:
        for m in METHODS:
            for c in counts:
                mine = [r for r in rows if (r["set"], r["labels"], r["method"]) == (name, c, m)]
                row = dict(set=name, method=m, labels=c, status="ok")
                for key in ("err", "nmi") if m != "KMeans" else ("nmi",):
                    row[key] = np.mean([r[key] for r in mine])
                means.append(row)
    bench.plot_panels(
        means,
        path,
        "set",
        sets,
        lambda name: name,
        ys=(("err", "error", "semilogx"), ("nmi", "NMI", "semilogx")),
        xlabel="labeled points per class",
        x="labels",
    )


def plot_components(path, two_d):
    """The fitted clusters on the 2-D sets at the demo label counts (seed 0): each component's
    2-sigma ellipse of Lambda Lambda' + Psi, coloured by its class, points by their class."""
    plt = bench.pyplot()
    if plt is None:
        return
    fig, axes = plt.subplots(1, len(two_d), figsize=(4.5 * len(two_d), 4.3), squeeze=False)
    axes = axes[0]
    t = np.linspace(0, 2 * np.pi, 100)
    for ax, name in zip(axes, two_d, strict=True):
        X, y, k = load(name)
        yl = draw_labels(y, DEMOS[name][0], 0)
        clf = CLSST(n_factors=k, random_state=0).fit(X, yl)
        colours = np.array(["tab:blue", "tab:orange", "tab:green"])
        ax.scatter(*X.T, s=4, c=colours[clf.transduction_], alpha=0.4)
        ax.scatter(*X[yl >= 0].T, s=12, c=colours[yl[yl >= 0]], edgecolors="k", linewidths=0.4)
        for s in range(clf.n_components_):
            L = clf.loadings_[s]
            C = L @ L.T + np.diag(clf.noise_variance_)
            w, V = np.linalg.eigh(C)
            ell = clf.means_[s][:, None] + 2 * V @ (
                np.sqrt(w)[:, None] * np.c_[np.cos(t), np.sin(t)].T
            )
            ax.plot(*ell, color=colours[clf.class_association_[s].argmax()], lw=1.5)
            ax.plot(*clf.means_[s], "k+")
        ax.set_title(
            f"{name}: {clf.n_components_} components, {DEMOS[name][0]} labels/class", fontsize=9
        )
        ax.set_aspect("equal")
    bench.save_figure(fig, path, dpi=100)


def main():
    ap = bench.parser(__doc__, quick="a smoke run: Ring (CAKE without the FCPS data), 1 draw")
    ap.add_argument("--full", action="store_true", help="2..90 labels per class, 20 draws")
    ap.add_argument("--draws", type=int, default=None)
    ap.add_argument("--counts", default=None, help="comma-separated labels per class")
    ap.add_argument("--sets", default=",".join(SETS))
    ap.add_argument(
        "--from-log",
        action="store_true",
        help="rebuild the report and plots from the .jsonl of an interrupted run",
    )
    args = bench.parse(ap)
    if args.quick:
        args.counts, args.draws, args.sets = "2", 1, "Ring"
    full_counts = [2, 5, 10, 20, 30, 50, 70, 90]
    counts = full_counts if args.full else [2, 5, 10, 30, 90]
    counts = [int(c) for c in args.counts.split(",")] if args.counts else counts
    draws = args.draws or (20 if args.full else 5)
    sets = available(args.sets.split(",")) or ["CAKE"]  # a generator: always here
    name = "clsst_demos" + ("-full" if args.full else "")
    t0 = time.time()
    if args.from_log:
        logged = [json.loads(ln) for ln in open(bench.output(args, name, ".jsonl"))]
        rows = [r for r in logged if r["labels"] in counts]
        demo = [r for r in logged if r["labels"] == DEMOS[r["set"]][0]]
        seconds = float("nan")
    else:
        with open(bench.output(args, name, ".jsonl"), "w") as log:
            rows = run_grid(sets, counts, draws, log)
            demo = []
            for s in sets:
                demo += run_grid([s], [DEMOS[s][0]], draws, log)
        bench.written(log.name)
        seconds = time.time() - t0
    plot_curves(rows, sets, counts, bench.output(args, name, ".png"))
    two_d = [s for s in ("Ring", "CAKE", "TOES") if s in sets or not args.quick]
    plot_components(bench.output(args, "clsst_components", ".png"), available(two_d))
    write_report(rows, demo, sets, counts, draws, name, args, seconds)


def write_report(rows, demo, sets, counts, draws, name, args, seconds):
    took = "tables rebuilt from its log" if np.isnan(seconds) else f"{seconds / 60:.1f} min"
    lines = bench.header("CLSST on the demo sets: transductive error and NMI", took)
    lines += [
        (
            "Full protocol."
            if args.full
            else f"REDUCED grid: {draws} draws and the label counts {counts} (the issue's "
            "protocol is 2 to 90 labels per class with 20 draws: "
            "`python benchmarks/bench_clsst_demos.py --full`)."
        ),
        "",
        "Mean (std over draws) on the unlabeled points. Protocol and methods: see the script's "
        f"docstring. Plot: `{bench.output(args, name, '.png').name}`; fitted components: "
        f"`{bench.output(args, 'clsst_components', '.png').name}`.",
        "",
        "## At the authors' demo label counts",
        "",
    ]
    lines += [summary(demo, sets, None, "err"), ""]
    lines += ratio_lines(demo, sets)
    lines += ["", "## Transductive error", "", summary(rows, sets, counts, "err"), ""]
    lines += ["## NMI (KMeans: its clusters)", "", summary(rows, sets, counts, "nmi"), ""]
    lines += ["## Mean fit time (s)", "", summary(rows, sets, counts, "time"), ""]
    bench.write_markdown(args, name, lines)


def ratio_lines(demo, sets):
    out = [
        "CLSST against LabelSpreading at the demo counts (mean error, and CLSST's number of "
        "draws with an error at most LabelSpreading's):",
        "",
    ]
    for name in sets:
        a = {r["seed"]: r["err"] for r in demo if (r["set"], r["method"]) == (name, "CLSST")}
        b = {
            r["seed"]: r["err"] for r in demo if (r["set"], r["method"]) == (name, "LabelSpreading")
        }
        wins = sum(a[s] <= b[s] for s in a)
        out.append(
            f"- {name}: CLSST {np.mean(list(a.values())):.4f}, LabelSpreading "
            f"{np.mean(list(b.values())):.4f}; CLSST <= LabelSpreading in {wins}/{len(a)}"
        )
    return out


if __name__ == "__main__":
    main()
