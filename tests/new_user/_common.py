"""What the new-user scripts share: a temporary folder, the command line run as a user runs it,
and CSV files written as a user would write them."""

import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

WORK = Path(tempfile.mkdtemp(prefix="unlabeled-new-user-"))


def unlabeled_cli(*args) -> str:
    """Run ``unlabeled ARGS`` (as ``python -m unlabeled``, the same entry point) and return its
    standard output; a failure shows the command's error."""
    argv = [sys.executable, "-m", "unlabeled", *map(str, args)]
    done = subprocess.run(argv, capture_output=True, text=True, cwd=WORK)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({done.returncode}):\n{done.stderr}")
    return done.stdout


def write_csv(name: str, X, **columns) -> Path:
    """A CSV with a header: the feature columns x0, x1, ... then the named columns."""
    path = WORK / name
    names = [f"x{j}" for j in range(X.shape[1])] + list(columns)
    table = np.column_stack([X, *columns.values()]) if columns else X
    with open(path, "w") as fh:
        fh.write(",".join(names) + "\n")
        for row in table:
            fh.write(",".join(repr(float(v)) for v in row) + "\n")
    return path


def read_column(path, column: int = 0) -> np.ndarray:
    """One column of a predictions CSV written by ``unlabeled predict`` (header skipped)."""
    return np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)[:, column]
