"""The new-user scripts of tests/new_user/: one per method family, written from the
docstrings alone as a newcomer would, each fitting, predicting probabilities,
cross-validating, saving, loading and reusing a model from Python and from the command line.
Each runs in its own process, as a user's script does, and fails on its first assertion."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

import unlabeled

HERE = Path(__file__).parent / "new_user"
SCRIPTS = sorted(p.stem for p in HERE.glob("*.py") if not p.name.startswith("_"))
NEEDS_TORCH = {"autoencoder"}


@pytest.mark.parametrize("script", SCRIPTS)
def test_new_user_script(script):
    if script in NEEDS_TORCH:
        pytest.importorskip("torch", reason="the autoencoder needs the torch extra")
    env = dict(os.environ)
    # the scripts import the package under test, wherever it was imported from here
    src = str(Path(unlabeled.__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [src, env.get("PYTHONPATH")]))
    env.setdefault("OMP_NUM_THREADS", "1")
    done = subprocess.run(
        [sys.executable, str(HERE / f"{script}.py")],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip().endswith(f"{script}: ok")
