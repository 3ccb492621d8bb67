"""Every code block of README.md runs: the Python examples as written, and the command-line
block on small files of the layouts it names (the two commands at the top are what CI itself
runs, so they are not run again here)."""

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import unlabeled

README = (Path(__file__).resolve().parents[1] / "README.md").read_text()
PYTHON = re.findall(r"```python\n(.*?)```", README, re.S)
BASH = re.findall(r"```bash\n(.*?)```", README, re.S)


def _env():
    env = dict(os.environ)
    src = str(Path(unlabeled.__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [src, env.get("PYTHONPATH")]))
    return env


def test_readme_opens_with_the_two_commands():
    assert BASH[0].strip() == "pip install . && unlabeled demo"
    assert BASH[1].strip().startswith('pip install ".[test')
    ci = (Path(__file__).resolve().parents[1] / ".ci" / "run").read_text()
    assert BASH[1].strip() in ci  # CI runs exactly README's test command
    assert len(README.splitlines()) < 150


@pytest.mark.parametrize("code", PYTHON, ids=[f"python-{i}" for i in range(len(PYTHON))])
def test_python_block_runs(code, tmp_path):
    if "PlummerAutoencoder" in code:
        pytest.importorskip("torch", reason="the autoencoder needs the torch extra")
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=_env(),
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]


def _write(path, X, **columns):
    names = [f"x{j}" for j in range(X.shape[1])] + list(columns)
    rows = np.column_stack([X, *columns.values()]) if columns else X
    np.savetxt(path, rows, delimiter=",", header=",".join(names), comments="", fmt="%.10g")


def test_command_line_block_runs(tmp_path):
    """The block's files, made in the layouts its comments name, then each line as written."""
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(1, 1, (60, 2)), rng.normal(-1, 1, (60, 2))]
    s = np.r_[np.ones(20), np.zeros(100)]
    y = np.full(120, -1.0)
    y[:4], y[60:64] = 1, 0
    _write(tmp_path / "train.csv", X, s=s)
    _write(tmp_path / "ssl.csv", X, y=y)
    _write(tmp_path / "test.csv", X[::3])
    bags = rng.normal(0, 1, (40, 5, 2))
    bags[:20, 0] += 4
    _write(
        tmp_path / "bags.csv",
        bags.reshape(-1, 2),
        bag=np.repeat(np.arange(40), 5),
        y=np.repeat(np.r_[np.ones(20), np.zeros(20)], 5),
    )
    block = next(b for b in BASH if "unlabeled fit" in b)
    for line in block.splitlines():
        command = line.split("#")[0].strip()
        if not command:
            continue
        argv = shlex.split(command)
        assert argv[0] == "unlabeled", line
        done = subprocess.run(
            [sys.executable, "-m", "unlabeled", *argv[1:]],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            env=_env(),
            timeout=600,
        )
        assert done.returncode == 0, (line, done.stderr[-2000:])
    assert (tmp_path / "predictions.csv").read_text().startswith("prediction,proba_0,proba_1")
