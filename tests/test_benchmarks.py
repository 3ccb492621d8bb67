"""Smoke runs of the benchmark suite: every script of ``benchmarks/`` (found by glob, so that a
new one cannot be forgotten; the harness ``benchmarks/_harness/`` and ``benchmarks/archive/``
are not scripts) answers ``--help`` and runs its ``--quick`` mode, a few seconds of the real
code path, into a temporary folder. The scripts run as a user runs them: ``python
benchmarks/NAME.py`` from the project root, in a fresh process.

Where ``../shared/data`` or an optional package is missing, a script's quick run says so and
still succeeds (see ``benchmarks/_harness``).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.bench

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = ROOT / "benchmarks"
SCRIPTS = sorted(p.name for p in BENCHMARKS.glob("*.py") if not p.name.startswith("_"))
TIMEOUT = 120  # seconds per run; a quick run takes a few


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=TIMEOUT
    )


def _results_state() -> dict:
    """Every committed result file and its modification time."""
    return {p: p.stat().st_mtime_ns for p in (BENCHMARKS / "results").rglob("*") if p.is_file()}


def _tail(out: subprocess.CompletedProcess) -> str:
    return (out.stdout[-1500:] + "\n---\n" + out.stderr[-3000:]).strip()


def test_the_suite_is_found():
    assert {"bench_pusvc.py", "reproduce_tables.py", "fuzz_long.py"} <= set(SCRIPTS)


@pytest.mark.parametrize("script", SCRIPTS)
def test_help(script):
    out = _run(f"benchmarks/{script}", "--help")
    assert out.returncode == 0, _tail(out)
    assert "--quick" in out.stdout and "--out" in out.stdout, out.stdout


@pytest.mark.parametrize("script", SCRIPTS)
def test_quick(script, tmp_path):
    before = _results_state()
    out = _run(f"benchmarks/{script}", "--quick", "--out", str(tmp_path))
    assert out.returncode == 0, _tail(out)
    written = [
        ROOT / line.split("written: ", 1)[1].strip()
        for line in out.stderr.splitlines()
        if line.startswith("written: ")
    ]
    assert written, f"{script} --quick announced no file written\n{_tail(out)}"
    for path in written:
        assert path.resolve().is_relative_to(tmp_path.resolve()), f"{path} is not in --out"
        assert path.is_file() and path.stat().st_size > 0, f"{path} is missing or empty"
    assert all(p.stat().st_size > 0 for p in tmp_path.rglob("*") if p.is_file())
    assert _results_state() == before, "a quick run changed benchmarks/results"


_PRIVATE = re.compile(r"^\s*(from|import)\s+unlabeled(\.\w+)*\._", re.MULTILINE)
_OTHER_SCRIPT = re.compile(r"^\s*(from|import)\s+(bench_|reproduce_|profile_|diag_)", re.MULTILINE)


@pytest.mark.parametrize("script", SCRIPTS)
def test_scripts_reach_the_library_through_the_harness(script):
    """Private library names come from the harness, not from the scripts; no script imports
    another as a library or edits sys.path."""
    text = (BENCHMARKS / script).read_text()
    assert not _PRIVATE.search(text), "a private module of unlabeled imported outside the harness"
    assert not _OTHER_SCRIPT.search(text), "another benchmark script imported as a library"
    assert "sys.path" not in text
