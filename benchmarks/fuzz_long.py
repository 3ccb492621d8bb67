"""The long fuzz run of issue 17: the cases of ``tests/test_fuzz.py`` over many more seeds.

Every public estimator gets ``--cases`` seeded cases (bad and edge inputs, see the test
module's docstring), each under the test's time limit; the contract is the test's. Writes a
Markdown summary (outcomes per estimator, every failure with its reproducer) to
``benchmarks/results/fuzz_long.md``.

    python benchmarks/fuzz_long.py --cases 1100          # 23 targets x 1100 = 25,300 cases
    python benchmarks/fuzz_long.py --quick               # smoke: 1 case per estimator

The seeds of the test suite are 0..13; this run starts after them (``--first``), so it adds
cases rather than repeating them. A failure is reproduced with
``tests/test_fuzz.py::check_case(TARGET, SEED)``; the case a seed draws depends on its
target's position in ``TARGETS``, so a reproducer holds for the list of the run that found it.
``--out`` is the results folder (the older ``--out FILE.md`` still works). The cases are
those of the test module itself, which the harness loads by path
(``_harness.internals.load_test_module``).
"""

from __future__ import annotations

import collections
import platform
import sys
import time

import _harness as bench
from _harness.internals import load_test_module, small_default_cap


def main(argv=None):
    ap = bench.parser(__doc__, quick="a smoke run: 1 case per estimator", name="fuzz_long")
    ap.add_argument("--cases", type=int, default=1200, help="cases per estimator (1200)")
    ap.add_argument("--first", type=int, default=1000, help="first seed (1000)")
    args = bench.parse(ap, argv)
    test_fuzz = load_test_module("test_fuzz")
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
    failures_n = _write(args, test_fuzz, outcomes, failures, slowest, t_all, done=True)
    return 1 if failures_n else 0


def _write(args, test_fuzz, outcomes, failures, slowest, t_all, done):
    """The summary so far (rewritten after every estimator, so a cut run leaves one)."""
    total = sum(sum(c.values()) for c in outcomes.values())
    lines = bench.header("Long fuzz run (issue 17)" + ("" if done else " (in progress)"))
    lines += [
        f"{total:,} cases ({args.cases} per estimator from seed {args.first}); Python "
        f"{platform.python_version()}, {platform.machine()}; "
        f"{time.perf_counter() - t_all:.0f} s; slowest case {slowest[0]:.1f} s: {slowest[1]}.",
        "",
        "Contract per case: a ValueError/TypeError naming the argument, or finite outputs equal "
        "to the canonical copy's; inputs unchanged; within the time limit of "
        f"{test_fuzz.TIME_LIMIT} s.",
        "",
        "| estimator | fitted | refused with a named error | failed |",
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
