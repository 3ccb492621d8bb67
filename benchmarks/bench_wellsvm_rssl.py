"""Semi-supervised WellSVM against the authors' code (issue 33): RSSL's ``WellSVM`` (Krijthe's
R translation of Li et al.'s MATLAB code, JMLR 2013) and RSSL's svmlin TSVM beside our
``WellSVM`` and its variants, on the same random splits with the authors' parameters.

The reference is built from its public source, reproducibly:

    apt-get install -y r-base-core r-cran-rcpp r-cran-rcpparmadillo r-cran-kernlab \\
        r-cran-quadprog r-cran-matrix r-cran-mass r-cran-dplyr r-cran-tidyr r-cran-ggplot2 \\
        r-cran-reshape2 r-cran-scales r-cran-cluster      # R and RSSL's Imports (Debian)
    git clone https://github.com/jkrijthe/RSSL /tmp/rssl  # measured: commit 6a137a8 (0.9.7)
    mkdir -p /tmp/rlib && R CMD INSTALL -l /tmp/rlib /tmp/rssl

``--rssl-lib`` names the library folder (default ``$RSSL_LIB`` or /tmp/rlib; R's own library
is also searched). Without R or RSSL the reference part is skipped with the reason (and a
``--quick`` run still measures ours).

Protocol: the 12 UCI sets of ../shared/data/uci-small, features as stored; per set
``--splits`` (10) random 75/25 splits (stratified, seed ``33000 + 100 * set index + split``),
5% of the training points labeled (at least 4, both classes), the rest of the training part
unlabeled. Accuracy is inductive: on the held-out 25% test part, for every method.
Parameters are the authors' defaults: C1 = 1, C2 = 0.1, the Gaussian kernel
``exp(-||x - z||^2 / A)`` with A the mean squared distance over the training points (labeled
and unlabeled, the n^2 pairs; RSSL's ``gamma = 1``, ours ``gamma = 1 / A``), balance: the
labeled points' class ratio. svmlin is linear (its only kernel), with an intercept, run as the
multi-switch TSVM (``algorithm = 2``) with the same trade-off: svmlin minimises
``lambda/2 ||w||^2 + 1/(2l) sum_l loss + lambda_u/(2u) sum_u loss``, so C1 = 1, C2 = 0.1
give ``lambda = 1/l`` and ``lambda_u = 0.1 u / l``; ``pos_frac`` is the labeled positive ratio.

Time: CPU seconds of the fit (process CPU time, user + system, R's ``proc.time`` and Python's
``time.process_time``: the machine is shared, so wall time would measure the neighbours),
every tool single-threaded (``OMP_NUM_THREADS = OPENBLAS_NUM_THREADS = 1``; R uses Debian's
reference BLAS). Our fit includes the kernel matrix, as RSSL's does.

The R part is resumable: every (set, split, method) result is appended to
``<out>/<name>_runs.jsonl`` as it finishes and is not run again (``--r-only`` runs only that
part, e.g. in the background; ``--no-r`` reads it without running R). Our fits go to
``<name>_ours.jsonl``, kept by ``--resume``; ``--report-only`` writes the table from both
files without fitting anything. The splits are written as CSV files under
``--work``.

    python benchmarks/bench_wellsvm_rssl.py --r-only        # the reference (about an hour)
    python benchmarks/bench_wellsvm_rssl.py                 # ours + the cached reference
    python benchmarks/bench_wellsvm_rssl.py --quick         # smoke: 1 split of 2 small sets

Writes ``<out>/<name>.md`` (``wellsvm_rssl``), ``<name>_runs.jsonl`` and ``<name>.png``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import _harness as bench
import numpy as np
from sklearn.metrics.pairwise import euclidean_distances
from sklearn.model_selection import train_test_split

from unlabeled.datasets import UCI_SMALL_NAMES, load_uci_small

NAME = "wellsvm_rssl"
TITLE = "Semi-supervised WellSVM against the authors' code (RSSL) at 5% labeled"
R_METHODS = ["RSSL WellSVM", "RSSL svmlin TSVM"]
RATE, C1, C2 = 0.05, 1.0, 0.1
# small sets first, krvskp (3,196 points, most of RSSL's time) last
ORDER = sorted(UCI_SMALL_NAMES, key=lambda s: (s == "krvskp", s))

R_SCRIPT = r"""
# One RSSL fit per (set, split, method) not yet in the results file; appends a JSON line each.
args <- commandArgs(trailingOnly = TRUE)
tasks <- read.table(args[1], header = FALSE, stringsAsFactors = FALSE)
out <- args[2]
methods <- strsplit(args[3], ",")[[1]]
suppressMessages(library(RSSL))
done <- character(0)
if (file.exists(out)) {
  for (line in readLines(out)) {
    m <- regmatches(line, regexec('"key": "([^"]*)"', line))[[1]]
    if (length(m) == 2) done <- c(done, m[2])
  }
}
rd <- function(d, f) as.matrix(read.csv(file.path(d, f), header = FALSE))
cpu <- function() { p <- proc.time(); p[["user.self"]] + p[["sys.self"]] }
for (i in seq_len(nrow(tasks))) {
  set <- tasks[i, 1]; split <- tasks[i, 2]; d <- tasks[i, 3]; seed <- tasks[i, 4]
  for (method in methods) {
    key <- paste(set, split, method, sep = "|")
    if (key %in% done) next
    Xl <- rd(d, "Xl.csv"); Xu <- rd(d, "Xu.csv"); Xt <- rd(d, "Xt.csv")
    lv <- c("0", "1")
    yl <- factor(as.character(rd(d, "yl.csv")[, 1]), levels = lv)
    yu <- as.character(rd(d, "yu.csv")[, 1]); yt <- as.character(rd(d, "yt.csv")[, 1])
    set.seed(seed)
    c0 <- cpu(); w0 <- Sys.time()
    res <- tryCatch({
      if (method == "RSSL WellSVM") {
        g <- WellSVM(Xl, yl, Xu, C1 = 1, C2 = 0.1, gamma = 1)
      } else {
        l <- nrow(Xl); u <- nrow(Xu)
        g <- svmlin(Xl, yl, Xu, algorithm = 2, lambda = 1 / l, lambda_u = 0.1 * u / l,
                    pos_frac = mean(as.integer(yl) == 2))
      }
      c1 <- cpu(); w1 <- Sys.time()
      list(acc = mean(as.character(predict(g, Xt)) == yt),
           acc_u = mean(as.character(predict(g, Xu)) == yu),
           cpu = c1 - c0, wall = as.numeric(difftime(w1, w0, units = "secs")), err = "")
    }, error = function(e) list(acc = NA, acc_u = NA, cpu = NA, wall = NA,
                                err = gsub('"', "'", conditionMessage(e))))
    num <- function(v) if (is.na(v)) "null" else format(v, digits = 10)
    cat(sprintf(paste0('{"key": "%s", "set": "%s", "split": %d, "method": "%s", ',
                       '"acc": %s, "acc_u": %s, "cpu": %s, "wall": %s, "error": "%s"}\n'),
                key, set, as.integer(split), method, num(res$acc), num(res$acc_u),
                num(res$cpu), num(res$wall), res$err), file = out, append = TRUE)
  }
}
"""


def make_split(X, y, seed):
    """One random stratified 75/25 split with 5% of the training points labeled (at least 4,
    both classes): ``Xtr, Xte, ytr, yte, lab`` (the labeled indices into the training part)
    and ``A``, the mean squared distance over the training points."""
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.25, random_state=seed, stratify=y)
    rng = np.random.default_rng(seed)
    n_lab = max(4, int(round(RATE * len(ytr))))
    while True:
        lab = np.sort(rng.choice(len(ytr), n_lab, replace=False))
        if len(np.unique(ytr[lab])) == 2:
            break
    A = float(np.mean(euclidean_distances(Xtr, squared=True)))
    return Xtr, Xte, ytr, yte, lab, A


def seed_of(name, split):
    return 33000 + 100 * UCI_SMALL_NAMES.index(name) + split


def write_split(work: Path, name, split, data) -> Path:
    """The split as CSV files for R: Xl, yl (labeled), Xu, yu (unlabeled, yu only to score
    the transductive accuracy), Xt, yt (test)."""
    Xtr, Xte, ytr, yte, lab, _ = data
    d = work / f"{name}_{split}"
    d.mkdir(parents=True, exist_ok=True)
    unl = np.setdiff1d(np.arange(len(ytr)), lab)
    parts = {"Xl": Xtr[lab], "yl": ytr[lab], "Xu": Xtr[unl], "yu": ytr[unl], "Xt": Xte, "yt": yte}
    for key, arr in parts.items():
        fmt = "%d" if key.startswith("y") else "%.17g"
        np.savetxt(d / f"{key}.csv", np.asarray(arr).reshape(len(arr), -1), fmt=fmt, delimiter=",")
    return d


def rssl_env(lib: str) -> dict | None:
    """The environment under which Rscript finds RSSL, or None."""
    if shutil.which("Rscript") is None:
        return None
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    if lib:
        env["R_LIBS"] = lib + (os.pathsep + env["R_LIBS"] if env.get("R_LIBS") else "")
    probe = subprocess.run(
        ["Rscript", "-e", "suppressMessages(library(RSSL)); cat(format(packageVersion('RSSL')))"],
        env=env,
        capture_output=True,
        text=True,
    )
    return env if probe.returncode == 0 else None


def read_runs(path: Path) -> dict:
    """The cached R results by (set, split, method)."""
    runs = {}
    if path.exists():
        for line in path.read_text().splitlines():
            if line.strip():
                r = json.loads(line)
                runs[(r["set"], r["split"], r["method"])] = r
    return runs


def run_reference(args, tasks, runs_path: Path) -> str:
    """Run the RSSL fits not yet cached (blocking); '' or the reason they were skipped."""
    env = rssl_env(args.rssl_lib)
    if env is None:
        why = f"Rscript or the RSSL package is not found (R_LIBS {args.rssl_lib!r})"
        bench.skip("the RSSL reference", why)
        return why
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    (work / "rssl_fit.R").write_text(R_SCRIPT)
    (work / "tasks.txt").write_text("".join(f"{s} {k} {d} {seed}\n" for s, k, d, seed in tasks))
    cmd = [
        "Rscript",
        str(work / "rssl_fit.R"),
        str(work / "tasks.txt"),
        str(runs_path),
        ",".join(args.r_methods),
    ]
    subprocess.run(cmd, env=env, check=True)
    return ""


# ours: the name in the table and WellSVM's keyword arguments beside C1, C2, kernel, gamma
SQ = {"loss": "squared_hinge"}  # what the default loss="auto" runs here (the kernel path)
OURS = {
    "squared": SQ,
    "hinge": {"loss": "hinge"},
    "hinge+authors": {"loss": "hinge", "finish": "authors"},
    "squared+refine": {**SQ, "refine_oracle": True},
    "squared+alignment": {**SQ, "init": "alignment"},
    "squared+self_training": {**SQ, "finish": "self_training"},
    "squared+authors": {**SQ, "finish": "authors"},
    "squared+two_kernels": {**SQ, "two_kernels": True},
    "authors' variant": {
        **SQ,
        "init": "alignment",
        "refine_oracle": True,
        "finish": "authors",
        "two_kernels": True,
    },
}


# the library's defaults, no parameter given (gamma="scale" on the features the kernel sees,
# standardize=True): what a new user runs (issue 52); then the same on the files as stored
DEFAULTS = {"WellSVM()": {}, "WellSVM(standardize=False)": {"standardize": False}}


def fit_ours(method, data, seed):
    """(test accuracy, unlabeled accuracy, CPU seconds) of one WellSVM fit: ``OURS``' with the
    authors' parameters on the features as stored (``standardize=False``: RSSL's kernel
    and width A are on them), the CPU time including the width A, as RSSL's includes its
    ``avg``; or ``DEFAULTS``' with the library's defaults."""
    from unlabeled.ssl import WellSVM

    Xtr, Xte, ytr, yte, lab, _ = data
    y = np.full(len(ytr), -1)
    y[lab] = ytr[lab]
    c0 = time.process_time()
    if method in DEFAULTS:
        est = WellSVM(random_state=seed, **DEFAULTS[method])
    else:
        A = float(np.mean(euclidean_distances(Xtr, squared=True)))
        est = WellSVM(
            C1=C1,
            C2=C2,
            kernel="rbf",
            gamma=1.0 / A,
            random_state=seed,
            standardize=False,
            **OURS[method],
        )
    est.fit(Xtr, y)
    cpu = time.process_time() - c0
    unl = y == -1
    return float(est.score(Xte, yte)), float(np.mean(est.transduction_[unl] == ytr[unl])), cpu


def main():
    ap = bench.parser(__doc__, name=NAME)
    ap.add_argument("--splits", type=int, default=10, help="random splits per set (10)")
    ap.add_argument("--sets", nargs="+", default=ORDER, help="UCI sets (all 12)")
    ap.add_argument(
        "--methods",
        nargs="+",
        default=[*OURS, *DEFAULTS],
        choices=[*OURS, *DEFAULTS],
        help="our variants (all)",
    )
    ap.add_argument("--r-methods", nargs="+", default=R_METHODS, help="RSSL's (both)")
    ap.add_argument("--r-only", action="store_true", help="run only RSSL's fits (cached)")
    ap.add_argument("--no-r", action="store_true", help="only the cached RSSL results")
    ap.add_argument("--resume", action="store_true", help="keep our cached fits (_ours.jsonl)")
    ap.add_argument("--note", default="", help="a paragraph under the header (how it was run)")
    ap.add_argument(
        "--report-only", action="store_true", help="no fits: the table from both caches"
    )
    ap.add_argument(
        "--rssl-lib",
        default=os.environ.get("RSSL_LIB", "/tmp/rlib"),
        help="R library folder holding RSSL ($RSSL_LIB or /tmp/rlib)",
    )
    ap.add_argument("--work", default="/tmp/wellsvm_rssl_splits", help="the splits' CSV files")
    args = bench.parse(ap)
    if args.report_only:
        args.no_r = args.resume = True
    if args.quick:
        args.splits, args.sets = 1, ["heart", "house"]
        args.methods = args.methods[:2]
        args.work += "-quick"
    title = TITLE
    sets = [s for s in ORDER if s in args.sets]
    raw = bench.shared_data(args, NAME, title, lambda: {s: load_uci_small(s) for s in sets})
    if raw is None:
        return
    splits = {}
    for s in sets:
        for k in range(args.splits):
            splits[s, k] = make_split(*raw[s], seed_of(s, k))
    runs_path = bench.output(args, NAME, "_runs.jsonl")
    why = "--no-r: cached RSSL results only"
    if not args.no_r:
        tasks = [
            (s, k, write_split(Path(args.work), s, k, d), seed_of(s, k))
            for (s, k), d in splits.items()
        ]
        why = run_reference(args, tasks, runs_path)
    if args.r_only:
        return
    ours_path = bench.output(args, NAME, "_ours.jsonl")
    mine = read_runs(ours_path) if args.resume else {}
    if not args.resume:
        ours_path.write_text("")
    rows = []
    for (s, k), data in splits.items():
        for m in args.methods:
            if (s, k, m) not in mine and args.report_only:
                continue
            if (s, k, m) not in mine:
                acc, acc_u, cpu = fit_ours(m, data, seed_of(s, k))
                r = {"set": s, "split": k, "method": m, "acc": acc, "acc_u": acc_u, "cpu": cpu}
                with open(ours_path, "a") as fh:
                    fh.write(json.dumps(r) + "\n")
                mine[s, k, m] = r
            rows.append(mine[s, k, m])
    cached = read_runs(runs_path)
    for s, k in splits:
        for m in args.r_methods:
            r = cached.get((s, k, m))
            if r is not None and r.get("acc") is not None:
                rows.append(r)
    report(args, rows, sets, args.methods, args.r_methods, why)


def report(args, rows, sets, ours, theirs, why):
    """The table: per set the mean (std) test accuracy of every method over the splits that
    RSSL's methods and our first method finished (each other method over those of them that
    it finished, marked where fewer), the means, the CPU time per fit and in total."""
    methods = [*theirs, *ours]
    by = {(r["set"], r["split"], r["method"]): r for r in rows}
    pairs = sorted({(r["set"], r["split"]) for r in rows})
    primary = [*theirs, *ours[:1]]
    common = [p for p in pairs if all((*p, m) in by for m in primary)]
    have = {m: [p for p in common if (*p, m) in by] for m in methods}
    lines = bench.header(TITLE)
    if args.note:
        lines += [args.note, ""]
    lines += [
        f"{args.splits} random stratified 75/25 splits per set (seeds 33000 + 100 x set index "
        "+ split), 5% of the training points labeled (at least 4, both classes). The authors' "
        "parameters for every WellSVM: C1 = 1, C2 = 0.1, the Gaussian kernel "
        "exp(-||x - z||^2 / A), A the mean squared distance over the training points (RSSL "
        "`gamma = 1`, ours `gamma = 1/A`); svmlin (linear, its only kernel): multi-switch "
        "TSVM with lambda = 1/l, lambda_u = 0.1 u/l (the same C1, C2), pos_frac the labeled "
        "positive rate. Accuracy: inductive, on the 25% test part. Time: CPU seconds per "
        "fit (user + system), every tool single-threaded (OMP_NUM_THREADS=1, R on Debian's "
        "reference BLAS), measured on a shared 2-core machine (load 15-25 during the run: "
        "CPU time, not wall time, is comparable).",
        "",
        f"RSSL: commit 6a137a8 of github.com/jkrijthe/RSSL (0.9.7), {r_version()}. "
        "Ours: `WellSVM(C1=1, C2=0.1, gamma=1/A, ...)` with the options in each column "
        "(`squared` = `loss='squared_hinge'`, what the default `loss='auto'` runs here: "
        "**the default**; `hinge` = the paper's loss, the default before; "
        "`authors` = `finish='authors'`, `self_training` = `finish='self_training'`, "
        "`alignment` = `init='alignment'`, `refine` = `refine_oracle=True`, "
        "`two_kernels` = `two_kernels=True`; \"authors' variant\" = all of the authors' "
        "code's choices: squared hinge, alignment start, refined oracle, two kernels, "
        "authors' finish), every one on the features as stored (`standardize=False`, as "
        "RSSL). `WellSVM()`: the library's defaults, nothing given (C1 = 1, C2 = 0.1, "
        "`gamma='scale'` and `standardize=True`: each column divided by its standard "
        "deviation, a two-valued one by half its range); `WellSVM(standardize=False)`: the "
        "same on the features as stored.",
        "",
    ]
    if why:
        lines += [f"**RSSL not run in this invocation**: {why}.", ""]
    missing = [p for p in pairs if p not in common]
    if missing:
        sets_missing = sorted({s for s, _ in missing})
        lines += [
            f"**Incomplete**: {len(common)} of {len(pairs)} (set, split) pairs have every "
            f"one of {', '.join(primary)}; {len(missing)} lack one (sets: "
            f"{', '.join(sets_missing)}). Every number below uses only the complete pairs.",
            "",
        ]
    short = [m for m in methods if len(have[m]) < len(common)]
    if short:
        lines += [
            "Columns with fewer fits than the others (the `fits` row; a cell's `[k]` is "
            f"its number of splits): {', '.join(short)}. Their totals and time ratios are "
            "over their own fits.",
            "",
        ]
    lines += ["## Test accuracy, mean (std) over splits", ""]
    lines += ["| set | splits | " + " | ".join(methods) + " |", "|---|---|" + "---|" * len(methods)]
    for s in sets:
        ks = [k for (t, k) in common if t == s]
        if not ks:
            continue
        cells = []
        for m in methods:
            mk = [k for (t, k) in have[m] if t == s]
            if not mk:
                cells.append("")
                continue
            a = np.array([by[s, k, m]["acc"] for k in mk])
            mark = f" [{len(mk)}]" if len(mk) < len(ks) else ""
            cells.append(f"{a.mean():.3f} ({a.std():.3f}){mark}")
        lines.append(f"| {s} | {len(ks)} | " + " | ".join(cells) + " |")

    def total(key, m, on=None):
        return float(sum(by[s, k, m][key] for (s, k) in (have[m] if on is None else on)))

    def set_mean(m):  # the mean of the per-set means
        per = [
            np.mean([by[s, k, m]["acc"] for (t, k) in have[m] if t == s])
            for s in sets
            if any(t == s for t, _ in have[m])
        ]
        return float(np.mean(per)) if per else float("nan")

    def fit_mean(key, m):
        return total(key, m) / len(have[m]) if have[m] else float("nan")

    row = " | ".join(f"**{set_mean(m):.4f}**" for m in methods)
    lines.append(f"| **mean over sets** | | {row} |")
    row = " | ".join(f"{fit_mean('acc_u', m):.4f}" for m in methods)
    lines.append(f"| transductive (unlabeled part), mean over fits | | {row} |")
    lines.append("| fits | | " + " | ".join(str(len(have[m])) for m in methods) + " |")

    def ratio(m):
        if "RSSL WellSVM" not in methods or not have[m]:
            return ""
        return f"{total('cpu', m) / total('cpu', 'RSSL WellSVM', have[m]):.4f}"

    for m in short:  # the same comparison restricted to that column's fits
        if not have[m]:
            continue
        on = have[m]
        on_sets = sorted({t for t, _ in on})

        def paired(x, on=on, on_sets=on_sets):
            return np.mean(
                [np.mean([by[s, k, x]["acc"] for (t, k) in on if t == s]) for s in on_sets]
            )

        accs = ", ".join(f"{x} {paired(x):.4f}" for x in [*primary, m])
        lines += [
            "",
            f"Paired on the {len(on)} fits of {m} ({len(on_sets)} sets: {', '.join(on_sets)}), "
            f"mean over sets: {accs}.",
        ]
    lines += [
        "",
        "## CPU time",
        "",
        "| | " + " | ".join(methods) + " |",
        "|---|" + "---|" * len(methods),
        "| per fit (s, mean) | " + " | ".join(f"{fit_mean('cpu', m):.3f}" for m in methods) + " |",
        "| total (s) | " + " | ".join(f"{total('cpu', m):.1f}" for m in methods) + " |",
        "| total / RSSL WellSVM's on the same fits | "
        + " | ".join(ratio(m) for m in methods)
        + " |",
    ]
    lines += [
        "",
        "Per-set CPU seconds per fit:",
        "",
        "| set | " + " | ".join(methods) + " |",
        "|---|" + "---|" * len(methods),
    ]
    for s in sets:
        cells = []
        for m in methods:
            mk = [k for (t, k) in have[m] if t == s]
            cells.append(f"{np.mean([by[s, k, m]['cpu'] for k in mk]):.3f}" if mk else "")
        if any(cells):
            lines.append(f"| {s} | " + " | ".join(cells) + " |")
    bench.write_markdown(args, args.name or NAME, lines)
    plot(args, methods, [set_mean(m) for m in methods], [fit_mean("cpu", m) for m in methods])


def r_version() -> str:
    if shutil.which("Rscript") is None:
        return "(not installed)"
    out = subprocess.run(["Rscript", "-e", "cat(R.version.string)"], capture_output=True, text=True)
    return out.stdout.strip() or "(unknown)"


def plot(args, methods, acc, cpu):
    plt = bench.pyplot()
    if plt is None or not np.all(np.isfinite(acc)):
        return
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(12, 4.5))
    y = np.arange(len(methods))
    colors = ["tab:red" if m.startswith("RSSL") else "tab:blue" for m in methods]
    a1.barh(y, acc, color=colors)
    a1.set_yticks(y, methods)
    a1.set_xlim(min(acc) - 0.02, max(acc) + 0.01)
    a1.set_xlabel("mean test accuracy over sets")
    a1.invert_yaxis()
    a2.barh(y, cpu, color=colors)
    a2.set_xscale("log")
    a2.set_yticks(y, [])
    a2.set_xlabel("CPU seconds per fit (log)")
    a2.invert_yaxis()
    fig.suptitle(TITLE)
    bench.save_figure(fig, bench.output(args, args.name or NAME, ".png"))


if __name__ == "__main__":
    main()
