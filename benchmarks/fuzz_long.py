"""The long fuzz run (issues 17, 35, 44 and 53): the cases of ``tests/test_fuzz.py``,
``tests/test_fuzz_files.py`` and ``tests/test_fuzz_extremes.py`` over many more seeds.

Every public estimator gets ``--cases`` seeded cases (bad and edge inputs, see the test
module's docstring), every model of ``tests/test_model_files_all.py`` ``--cases`` tampered
model files and ``--cases`` files declaring large shapes or counts, and every estimator of
the command line ``--cases`` commands (random options and odd CSV files), each under the
tests' time limit; the contracts are the tests'. Then (issue 53) every registered
estimator's parameters at each extreme of their declared ranges, once each (``extremes
NAME``: ``check_extreme_case(NAME, SEED, INDEX)``), and a class with one labeled point at
each size where an estimator switches path (``lone label n=SIZE``: a fifth of ``--cases``
up to 257 rows, a 25th above; ``check_lone_case(SIZE, lone_row(SIZE, SEED), SEED)``).
Writes a Markdown summary (outcomes per row, every failure with its reproducer) to
``benchmarks/results/fuzz_long.md``.

    python benchmarks/fuzz_long.py --cases 400           # 92 rows x 400 = 36,800 cases
    python benchmarks/fuzz_long.py --quick               # smoke: 1 case per row

The seeds of the test suite are 0..13; this run starts after them (``--first``), so it adds
cases rather than repeating them. A failure is reproduced with
``tests/test_fuzz.py::check_case(TARGET, SEED)`` (``check_cli_case(ESTIMATOR, SEED, FOLDER)``
for the command, ``tests/test_fuzz_files.py::check_file_case(MODEL, SEED)`` for a model file);
the case a seed draws depends on its target's position in ``TARGETS`` (``NAMES``), so a
reproducer holds for the lists of the run that found it.
``--out`` is the results folder (the older ``--out FILE.md`` still works). The cases are
those of the test module itself, which the harness loads by path
(``_harness.internals.load_test_module``).
"""

from __future__ import annotations

import collections
import platform
import sys
import tempfile
import time

import _harness as bench
from _harness.internals import load_test_module, small_default_cap


def main(argv=None):
    ap = bench.parser(__doc__, quick="a smoke run: 1 case per estimator", name="fuzz_long")
    ap.add_argument("--cases", type=int, default=1200, help="cases per estimator (1200)")
    ap.add_argument("--first", type=int, default=1000, help="first seed (1000)")
    args = bench.parse(ap, argv)
    global _COMMIT
    _COMMIT = _commit()
    test_fuzz = load_test_module("test_fuzz")
    load_test_module("test_common")  # (test_fuzz_files imports the common suite's cases
    load_test_module("test_model_files_all")  # and these helpers)
    test_files = load_test_module("test_fuzz_files")
    extremes = load_test_module("test_fuzz_extremes")
    if args.quick:
        args.cases = 1
    small_default_cap(10**5)  # as in the test suite: the cap's floor
    outcomes = collections.defaultdict(collections.Counter)
    failures, slowest = [], (0.0, "")
    t_all = time.perf_counter()
    for target in test_fuzz.TARGETS:
        if target.needs:
            try:
                __import__(target.needs)
            except ImportError:
                outcomes[target.name]["skipped (no " + target.needs + ")"] += args.cases
                continue
        for seed in range(args.first, args.first + args.cases):
            t0 = time.perf_counter()
            try:
                outcomes[target.name][test_fuzz.check_case(target, seed)] += 1
            except Exception as exc:  # noqa: BLE001 - every failure is recorded
                outcomes[target.name]["FAILED"] += 1
                failures.append(f"{target.name} seed={seed}: {type(exc).__name__}: {exc}"[:400])
            took = time.perf_counter() - t0
            if took > slowest[0]:
                slowest = (took, f"{target.name} seed={seed}")
        print(target.name, dict(outcomes[target.name]), flush=True)
        _write(args, test_fuzz, outcomes, failures, slowest, t_all, done=False)
    rows = [
        (f"model file {name}", lambda seed, name=name: test_files.check_file_case(name, seed))
        for name in test_files.NAMES
    ]
    rows += [
        (
            f"large model file {name}",
            lambda seed, name=name: test_files.check_large_case(name, seed),
        )
        for name in test_files.NAMES
    ]
    rows += [
        (f"command {name}", lambda seed, name=name: _cli_case(test_fuzz, name, seed))
        for name in sorted(test_fuzz.CLI_TARGETS)
    ]
    counts = {}
    # issue 53: every extreme of every ranged parameter once per estimator (its table's
    # length, whatever --cases), the data drawn from the seed
    for name in extremes.NAMES:
        table = len(extremes.extremes(extremes.ENTRIES[name].load()))
        row = f"extremes {name}"
        rows.append(
            (
                row,
                lambda seed, name=name, table=table: extremes.check_extreme_case(
                    name, seed, (seed - args.first) % table
                ),
            )
        )
        counts[row] = table
    # and one labeled point of a class at each size where an estimator switches path
    # (--quick: the smallest size only; each row's first case)
    for size in [min(extremes.SIZES)] if args.quick else extremes.SIZES:
        row = f"lone label n={size}"
        rows.append(
            (
                row,
                lambda seed, size=size: extremes.check_lone_case(
                    size, extremes.lone_row(size, seed), seed
                ),
            )
        )
        counts[row] = extremes.lone_row_cases(size, args.cases)
    if args.quick:
        counts = dict.fromkeys(counts, 1)
    for row, run in rows:
        needs = "torch" if any(k in row for k in ("autoencoder", "Plummer", "MLP")) else None
        n_cases = counts.get(row, args.cases)
        if needs and not _has(needs):
            outcomes[row]["skipped (no torch)"] += n_cases
            continue
        for seed in range(args.first, args.first + n_cases):
            t0 = time.perf_counter()
            try:
                outcomes[row][_KIND.get(r := run(seed), r)] += 1
            except Exception as exc:  # noqa: BLE001 - every failure is recorded
                outcomes[row]["FAILED"] += 1
                failures.append(f"{row} seed={seed}: {type(exc).__name__}: {exc}"[:400])
            took = time.perf_counter() - t0
            if took > slowest[0]:
                slowest = (took, f"{row} seed={seed}")
        print(row, dict(outcomes[row]), flush=True)
        _write(args, test_fuzz, outcomes, failures, slowest, t_all, done=False)
    failures_n = _write(args, test_fuzz, outcomes, failures, slowest, t_all, done=True)
    return 1 if failures_n else 0


#: outcome -> column: fitted / loaded / exit 0 in the first, refused in the second
_KIND = {"loaded": "fit", "exit 0": "fit", "refused": "error", "exit 1": "error", "exit 2": "error"}


def extremes_module():
    return load_test_module("test_fuzz_extremes")


_STARTED = time.strftime("%Y-%m-%d %H:%M", time.gmtime())
_COMMIT = ""  # (main's: the commit the run started on)


def _commit():
    """The checkout's commit, with "+ changes" when its tracked files differ from it."""
    import subprocess

    def git(*a):
        return subprocess.run(["git", *a], capture_output=True, text=True).stdout.strip()

    head = git("rev-parse", "--short", "HEAD") or "unknown"
    return head + (" + changes" if git("status", "--porcelain", "-uno") else "")


def _has(module):
    try:
        __import__(module)
    except ImportError:
        return False
    return True


def _cli_case(test_fuzz, name, seed):
    with tempfile.TemporaryDirectory() as folder:
        return test_fuzz.check_cli_case(name, seed, folder)


def _write(args, test_fuzz, outcomes, failures, slowest, t_all, done):
    """The summary so far (rewritten after every estimator, so a cut run leaves one)."""
    total = sum(sum(c.values()) for c in outcomes.values())
    lines = bench.header(
        "Long fuzz run (issues 17, 35, 44, 53)" + ("" if done else " (in progress)")
    )
    lines += [
        f"Run from {_STARTED} UTC on commit {_COMMIT}, beside other work on the same two "
        "cores (timings are of a shared machine).",
        "",
        f"{total:,} cases ({args.cases} per row from seed {args.first}); Python "
        f"{platform.python_version()}, {platform.machine()}; "
        f"{time.perf_counter() - t_all:.0f} s; slowest case {slowest[0]:.1f} s: {slowest[1]}.",
        "",
        "Contract per case, within the time limit of "
        f"{test_fuzz.TIME_LIMIT} s: an estimator (a row named after it) raises a "
        "ValueError/TypeError naming the argument, or gives finite outputs equal to the "
        "canonical copy's, its inputs unchanged; a tampered model file (`model file NAME`) is "
        "refused with a ModelFileError, or loads into a model whose outputs on fresh finite "
        "data are finite, and one declaring large shapes or counts (`large model file NAME`) "
        "grows the peak memory by less than 1 GiB; an estimator's `predict_proba` on far "
        "points gives rows in [0, 1] summing to 1 within 1e-12, and its outputs from 4 "
        "threads at once equal the serial ones; a command (`command NAME`: `unlabeled fit` "
        "with random options and CSV content, then `predict`) exits 0 with finite "
        "predictions, or 1/2 with one line `unlabeled: error: ...`, its data file "
        "unchanged. Issue 53's rows: `extremes NAME` fits the estimator with one parameter "
        "at an extreme of its declared range (each bound, the nearest values inside an open "
        "one, 0, 5e-324, 1e-300, 1e300, 2**31 - 1, and just past each bound; every one once): "
        "a value outside the range is refused naming the parameter, one inside gives a named "
        "error or finite outputs; `lone label n=SIZE` fits a class with one labeled point at "
        "a size where an estimator switches path: a named error, or finite outputs with the "
        "lone class kept (CLSST and LapSVM: predicted at its point). Both within "
        f"{extremes_module().TIME_LIMIT} s of CPU time (the cores are shared; "
        f"{extremes_module().WALL_LIMIT} s of wall time) and with the peak resident memory "
        "(VmHWM, reset per case) less than 1 GiB above the case's start. No other "
        "exception, crash or hang.",
        "",
        "| row | fitted / loaded / exit 0 | refused (named error, ModelFileError, exit 1/2) "
        "| failed |",
        "|---|---:|---:|---:|",
    ]
    for name, c in outcomes.items():
        skipped = [k for k in c if k.startswith("skipped")]
        if skipped:
            lines.append(f"| {name} | {skipped[0]} | | |")
        else:
            lines.append(f"| {name} | {c['fit']} | {c['error']} | {c['FAILED']} |")
    lines += ["", f"Failures: {len(failures)}", ""] + [f"- {f}" for f in failures]
    path = bench.output(args, args.name)
    path.write_text("\n".join(lines) + "\n")
    if done:
        bench.written(path)
    return len(failures)


if __name__ == "__main__":
    sys.exit(main())
