"""The long fuzz run (issues 17, 35 and 44): the cases of ``tests/test_fuzz.py`` and
``tests/test_fuzz_files.py`` over many more seeds.

Every public estimator gets ``--cases`` seeded cases (bad and edge inputs, see the test
module's docstring), every model of ``tests/test_model_files_all.py`` ``--cases`` tampered
model files and ``--cases`` files declaring large shapes or counts, and every estimator of
the command line ``--cases`` commands (random options and odd CSV files), each under the
tests' time limit; the contracts are the tests'. Writes a Markdown summary (outcomes per
row, every failure with its reproducer) to ``benchmarks/results/fuzz_long.md``.

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
    test_fuzz = load_test_module("test_fuzz")
    load_test_module("test_common")  # (test_fuzz_files imports the common suite's cases
    load_test_module("test_model_files_all")  # and these helpers)
    test_files = load_test_module("test_fuzz_files")
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
    for row, run in rows:
        needs = "torch" if "autoencoder" in row.lower() or "Plummer" in row else None
        if needs and not _has(needs):
            outcomes[row]["skipped (no torch)"] += args.cases
            continue
        for seed in range(args.first, args.first + args.cases):
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
    lines = bench.header("Long fuzz run (issues 17, 35, 44)" + ("" if done else " (in progress)"))
    lines += [
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
        "unchanged. No other exception, crash or hang.",
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
