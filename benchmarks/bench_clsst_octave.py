"""CLSST against the authors' own code: their MATLAB ``vbmfa`` (emsansone/Classtering, built on
Beal's VBMFA) run under GNU Octave beside ours, on the same label draws of the authors' demos.

    python benchmarks/bench_clsst_octave.py --source DIR            # 10 draws per demo
    python benchmarks/bench_clsst_octave.py --source DIR --report   # the table from the log
    python benchmarks/bench_clsst_octave.py --quick                 # smoke: Ring, 1 small draw

The authors' code: ``git clone https://github.com/emsansone/Classtering DIR`` (its ``src/`` and
nothing else is used; the animations are not needed). Octave from Debian: ``apt-get install
octave``. Octave lacks two MATLAB functions the code calls, ``princomp`` and ``cholcov``; this
script writes both (as MATLAB documents them: centred PCA by SVD with the sign of each axis
fixed so that its largest entry is positive; the count of negative eigenvalues) into its work
folder, beside a driver that reads one draw, times ``vbmfa(Y, Y_labels, maxdim, 0, 0, 0)``
(the FA noise model, no bound printed per sweep, no plots) with tic/toc, and writes the class
of every point (argmax over the classes of sum_s Qns, the final training responsibilities).
Octave and its BLAS run on one thread (OMP_NUM_THREADS=OPENBLAS_NUM_THREADS=1), as CLSST does.

Protocol: the demos of the repository (CAKE from ``make_cake(1000, random_state=0)``, FCPS
Atom, Chainlink, Ring, Spiral from ../shared/data/fcps), standardised with the population std
(the demos' ``preprocess``); per demo its label count per class and its ``maxdim`` (Atom 40
and 3, Chainlink 200 and 3, Ring 40 and 2, Spiral 700 and 3, CAKE 50 and 2: every demo uses
as many factors as features); draws are seeds 0..9 of the harness's ``draw_labels`` (that
many points of each class without replacement); both codes see the same points with the
labeled ones first, in class order (the order of the demos' ``sample_dataset``). Metric: the
transductive error on the unlabeled points; time per fit (Octave's tic/toc around ``vbmfa``,
not its start-up; ours around ``fit``), both on one core of the same machine in the same run.

Methods: "vbmfa (Octave)", the authors' code; "CLSST", ours with its defaults (``n_factors``
None: min(2, d - 1), one factor fewer than the demos on every demo here); "CLSST
n_factors=maxdim", ours with the demo's maxdim = d factors (allowed since n_factors may equal
n_features), its other defaults.

Every fit is a line of the log ``clsst_octave.jsonl`` (the results folder; ``--log``), and a
rerun skips what the log holds: a long run can be stopped and resumed, and ``--methods`` runs
one method at a time (e.g. Octave in the background). Writes ``clsst_octave.md``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import time
import warnings
from pathlib import Path

import _harness as bench
import numpy as np
from _harness.clsst import DEMOS, available, draw_labels, load
from sklearn.exceptions import ConvergenceWarning

from unlabeled.ssl import CLSST

SETS = ("CAKE", "Atom", "Chainlink", "Ring", "Spiral")
METHODS = ("vbmfa (Octave)", "CLSST", "CLSST n_factors=maxdim")
AUTHORS = METHODS[0]

# Octave has neither of these MATLAB functions (the statistics package's are not assumed)
PRINCOMP = """function [COEFF, SCORE, latent] = princomp(X)
% MATLAB's princomp: centred PCA by SVD, each axis signed so that its largest entry is > 0
n = size(X, 1);
Xc = X - repmat(mean(X, 1), n, 1);
if n > size(X, 2)
  [U, S, V] = svd(Xc, 0);
else
  [U, S, V] = svd(Xc);
end
[~, i] = max(abs(V), [], 1);
sgn = sign(V(sub2ind(size(V), i, 1:size(V, 2))));
sgn(sgn == 0) = 1;
COEFF = V .* repmat(sgn, size(V, 1), 1);
SCORE = Xc * COEFF;
latent = diag(S(1:min(size(S)), 1:min(size(S)))) .^ 2 / max(n - 1, 1);
end
"""
CHOLCOV = """function [T, num] = cholcov(Sigma, flag)
% MATLAB's cholcov: num = the number of negative eigenvalues (T empty when num > 0)
Sigma = (Sigma + Sigma') / 2;
[V, D] = eig(Sigma);
d = diag(D);
tol = 10 * eps(max(abs(d)));
num = sum(d < -tol);
if num == 0
  keep = d > tol;
  T = diag(sqrt(d(keep))) * V(:, keep)';
else
  T = [];
end
end
"""
DRIVER = """function run_vbmfa(infile, labfile, outfile, maxdim)
% one draw: Y (n x p, the labeled points first) and Y_labels (N x K, 0/1) in, the time and
% the class of every point out
Y = load(infile)';
Y_labels = load(labfile);
c0 = cputime;
tic;
net = vbmfa(Y, Y_labels, maxdim, 0, 0, 0);
t = toc;
c = cputime - c0;
post = squeeze(sum(net.hidden.Qns, 2));
[~, cls] = max(post, [], 2);
fid = fopen(outfile, 'w');
fprintf(fid, '%.6f %.6f %d\\n', c, t, numel(net.params.Lm));
fprintf(fid, '%d\\n', cls);
fclose(fid);
end
"""


def authors_order(yl):
    """The points as the demos' ``sample_dataset`` orders them: the labeled points of each
    class (classes in order, points in index order), then the unlabeled ones."""
    classes = np.unique(yl[yl >= 0])
    return np.r_[[i for c in classes for i in np.flatnonzero(yl == c)], np.flatnonzero(yl < 0)]


def octave_fit(X, yl, maxdim, source, work, limit):
    """(classes of all points, CPU seconds and wall seconds of vbmfa, components) from the
    authors' code."""
    classes = np.unique(yl[yl >= 0])
    order = authors_order(yl)
    n_lab = int((yl >= 0).sum())
    onehot = (yl[order[:n_lab], None] == classes[None, :]).astype(int)
    with tempfile.TemporaryDirectory(dir=work) as tmp:
        tmp = Path(tmp)
        np.savetxt(tmp / "Y.txt", X[order], fmt="%.17g")
        np.savetxt(tmp / "L.txt", onehot, fmt="%d")
        src = Path(source, "src").resolve()
        call = (
            f"addpath('{src}'); addpath('{Path(work).resolve()}'); "
            f"run_vbmfa('{tmp / 'Y.txt'}', '{tmp / 'L.txt'}', '{tmp / 'out.txt'}', {maxdim});"
        )
        env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
        out = subprocess.run(
            ["octave-cli", "--norc", "--no-history", "--quiet", "--eval", call],
            capture_output=True,
            text=True,
            timeout=limit,
            env=env,
            cwd=tmp,  # a killed Octave saves octave-workspace in its working folder
        )
        if out.returncode != 0:
            tail = (out.stderr.strip().splitlines() or [f"exit {out.returncode}"])[-1]
            raise RuntimeError(f"octave: {tail[:200]}")
        lines = (tmp / "out.txt").read_text().split("\n")
    cpu, wall, S = lines[0].split()
    cls = np.array([int(v) for v in lines[1 : 1 + len(yl)]]) - 1
    pred = np.empty(len(yl), dtype=classes.dtype)
    pred[order] = classes[cls]
    return pred, float(cpu), float(wall), int(S)


def ours_fit(X, yl, n_factors, seed):
    """(classes of all points, CPU seconds, wall seconds, components) from CLSST with its
    defaults."""
    t0, c0 = time.perf_counter(), time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf = CLSST(n_factors=n_factors, random_state=seed).fit(X, yl)
    return clf.transduction_, time.process_time() - c0, time.perf_counter() - t0, clf.n_components_


def prepare_octave(work):
    for name, text in (("princomp", PRINCOMP), ("cholcov", CHOLCOV), ("run_vbmfa", DRIVER)):
        Path(work, f"{name}.m").write_text(text)


def read_log(path):
    if not Path(path).exists():
        return []
    return [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]


def run(sets, draws, methods, log_path, source, limit, data=None, settings=DEMOS):
    """Fit every (draw, set, method) that the log lacks, draws outermost (a partial run covers
    every set); append each fit to the log as it ends. ``data``: {set: (X, y, _)} instead of
    :func:`load`; ``settings``: {set: (labels per class, maxdim)}."""
    done = {(r["set"], r["seed"], r["method"]) for r in read_log(log_path)}
    work = tempfile.mkdtemp(prefix="clsst_octave_")
    if AUTHORS in methods:
        prepare_octave(work)
    loaded = {name: (data or {}).get(name) or load(name) for name in sets}
    try:
        for seed in draws:
            for name in sets:
                X, y, _ = loaded[name]
                per_class, maxdim = settings[name]
                yl = draw_labels(y, per_class, seed)
                for method in methods:
                    if (name, seed, method) in done:
                        continue
                    row = dict(set=name, seed=seed, method=method, n=len(y), labels=per_class)
                    try:
                        if method == AUTHORS:
                            pred, sec, wall, S = octave_fit(X, yl, maxdim, source, work, limit)
                        else:
                            k = None if method == "CLSST" else maxdim
                            pred, sec, wall, S = ours_fit(X, yl, k, seed)
                        u = yl < 0
                        err = float((pred[u] != y[u]).mean())
                        row.update(status="ok", err=err, time=sec, wall=wall, S=S)
                    except subprocess.TimeoutExpired:
                        row.update(status=f"not finished in {limit:.0f} s of wall-clock time")
                    except RuntimeError as exc:
                        row.update(status=f"failed: {exc}"[:200])
                    with open(log_path, "a") as log:
                        log.write(json.dumps(row) + "\n")
                    print(json.dumps(row), flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def report(rows, sets, methods):
    """The table: a row per set and method, the draws every method finished: error mean
    (std), CPU and wall seconds per fit, components, and ours against the authors' code (the
    ratio of the mean CPU times, the draws where ours errs at most as much)."""
    out = [
        "| set | n | labels/class | maxdim | method | draws | error mean (std) | CPU s/fit "
        "| wall s/fit | components | CPU time / vbmfa's | draws with error <= vbmfa's |",
        "|---" * 12 + "|",
    ]
    verdicts = []
    for name in sets:
        by: dict = {}
        for r in rows:
            if r["set"] == name and r["method"] in methods and r["status"] == "ok":
                by.setdefault(r["method"], {})[r["seed"]] = r
        if len(by) < len(methods):
            continue
        seeds = sorted(set.intersection(*(set(v) for v in by.values())))
        if not seeds:
            continue
        first = by[methods[0]][seeds[0]]
        head = f"| {name} | {first['n']} | {first['labels']} | {DEMOS[name][1]} |"
        ref = by.get(AUTHORS)
        for m in methods:
            err = [by[m][s]["err"] for s in seeds]
            cpu = [by[m][s]["time"] for s in seeds]
            wall = [by[m][s].get("wall", np.nan) for s in seeds]
            comps = [by[m][s]["S"] for s in seeds]
            ratio = wins = "-"
            if ref is not None and m != AUTHORS:
                theirs = [ref[s]["err"] for s in seeds]
                r = np.mean(cpu) / np.mean([ref[s]["time"] for s in seeds])
                ratio = f"{r:.3f}"
                wins = f"{sum(a <= b for a, b in zip(err, theirs, strict=True))}/{len(seeds)}"
                verdicts.append((name, m, np.mean(err) <= np.mean(theirs), r <= 0.05))
            out.append(
                f"{head} {m} | {len(seeds)} | {np.mean(err):.4f} ({np.std(err):.4f}) | "
                f"{np.mean(cpu):.3g} | {np.mean(wall):.3g} | {np.mean(comps):.1f} | {ratio} | "
                f"{wins} |"
            )
    failed = [r for r in rows if r["status"] != "ok" and r["set"] in sets]
    return out, verdicts, failed


def main():
    ap = bench.parser(__doc__, quick="a smoke run: Ring (CAKE without the FCPS data), 1 draw")
    ap.add_argument("--source", default=os.environ.get("CLASSTERING_DIR"), help="the authors'")
    ap.add_argument("--draws", type=int, default=10, help="seeds 0 .. draws-1 (10)")
    ap.add_argument("--seeds", default=None, help="only these seeds, e.g. 1-4,6-9")
    ap.add_argument("--sets", default=",".join(SETS))
    ap.add_argument("--methods", default=",".join(METHODS))
    ap.add_argument("--log", default=None, help="the log of fits (<out>/clsst_octave.jsonl)")
    ap.add_argument("--time-limit", type=float, default=3600.0, help="seconds per Octave fit")
    ap.add_argument("--report", action="store_true", help="only the table, from the log")
    args = bench.parse(ap)
    methods = [m for m in args.methods.split(",") if m]
    if any(m not in METHODS for m in methods):
        raise SystemExit(f"--methods: choose among {', '.join(METHODS)}")
    sets = available(args.sets.split(","))
    data = None
    if args.quick:
        sets, args.draws = ["Ring"] if "Ring" in sets else ["CAKE"], 1
        X, y, k = load(sets[0])
        keep = np.r_[np.flatnonzero(y == 0)[::5], np.flatnonzero(y == 1)[::5]]
        data = {sets[0]: (X[keep], y[keep], k)}
    title = "CLSST against the authors' vbmfa under GNU Octave"
    octave = shutil.which("octave-cli")
    source_ok = args.source and Path(args.source, "src", "vbmfa.m").exists()
    if AUTHORS in methods and not (octave and source_ok):
        why = "octave-cli not found" if not octave else "no --source with src/vbmfa.m"
        if not args.quick and not args.report:
            raise SystemExit(f"the authors' code cannot run: {why} (see --help)")
        bench.skip("the authors' code", why)
        if not args.report:
            methods.remove(AUTHORS)
    log_path = Path(args.log) if args.log else bench.output(args, "clsst_octave", ".jsonl")
    if args.quick and log_path.exists():
        log_path.unlink()
    if not args.report:
        settings = dict(DEMOS)
        if args.quick:  # a small draw: 20 labels per class of a fifth of the points
            settings[sets[0]] = (20, DEMOS[sets[0]][1])
        seeds = range(args.draws)
        if args.seeds:  # e.g. "1-4,6-9"
            seeds = []
            for part in args.seeds.split(","):
                lo, _, hi = part.partition("-")
                seeds += range(int(lo), int(hi or lo) + 1)
        run(sets, seeds, methods, log_path, args.source, args.time_limit, data, settings)
        bench.written(log_path)
    rows = read_log(log_path)
    shown = [m for m in METHODS if any(r["method"] == m for r in rows)]
    table, verdicts, failed = report(rows, sets, shown)
    lines = [*bench.header(title), "Protocol and methods: the script's docstring.", ""]
    lines += [
        "Mean (std) over the draws that every method finished; time per fit: CPU seconds "
        "of the fit's process (mean; Octave's cputime around vbmfa, Python's process_time "
        "around fit), one thread each: the machine was shared, and wall-clock times there "
        "measure the load more than the code (both are in the log).",
        "",
        *table,
        "",
    ]
    lines += [
        "Every draw each method finished (the authors' code is slow: the draws above are "
        "those it finished):",
        "",
        "| set | method | draws | error mean (std) | CPU s/fit | components |",
        "|---|---|---|---|---|---|",
    ]
    for name in sets:
        for m in shown:
            ok = (r for r in rows if (r["set"], r["method"], r["status"]) == (name, m, "ok"))
            mine = list({r["seed"]: r for r in ok}.values())  # a seed run twice: its last fit
            if mine:
                err, cpu = [r["err"] for r in mine], [r["time"] for r in mine]
                lines.append(
                    f"| {name} | {m} | {len(mine)} | {np.mean(err):.4f} ({np.std(err):.4f}) | "
                    f"{np.mean(cpu):.3g} | {np.mean([r['S'] for r in mine]):.1f} |"
                )
    lines.append("")
    for name, m, acc, fast in verdicts:
        lines.append(
            f"- {name}, {m}: mean error {'<=' if acc else '>'} vbmfa's; CPU time "
            f"{'<=' if fast else '>'} 0.05 x vbmfa's"
        )
    for r in failed:
        status = r["status"]
        if status.startswith("failed: Command '"):  # a time-out, as an earlier version logged it
            status = "not finished in the wall-clock time limit (--time-limit)"
        lines.append(f"- {r['set']} seed {r['seed']} {r['method']}: {status}")
    bench.write_markdown(args, "clsst_octave", lines)


if __name__ == "__main__":
    main()
