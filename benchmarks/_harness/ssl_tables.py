"""The semi-supervised suite: 30 real public tables, 18 binary and 12 multiclass (4 of them
with 10 or more classes), split once into a tuning half and a confirmation half (issue 52).

The split was drawn before any default was chosen on it, by this rule: the tables are put in
three strata (binary; 3 to 9 classes; 10 or more classes), each stratum ordered by its number
of rows before any cap, and of each consecutive pair one goes to each half, the coin drawn by
``numpy.random.default_rng(52)`` in the order binary, multiclass, many-class
(``rng.random() < 0.5``: the larger of the pair to the tuning half). The orders were: binary
heart 270, liverDisorders 345, spectf 349, ionosphere 351, house 435 (its group's, as in the
PU suite; the file has 232 rows), clean1 476,
breast_cancer 569, isolet 600, australian 690, diabetes 768, banknote 1,372, krvskp 3,196,
phoneme 5,404, mammography 11,183, bank 11,435, htru2 17,898, occupancy 20,560, skin 245,057;
multiclass iris 150, wine 178, glass 214, vehicle 846, abalone 4,177, winequality-white 4,898,
satellite 6,435, shuttle 58,000; many-class vowel 990, digits 1,797, pendigits 10,992, letter
20,000. The lists below are the result, written down as literals so that the split cannot
move. (Of the near-duplicate UCI pairs only ``heart`` and ``house`` are in: ``heart-statlog``
and ``house-votes`` would count one table twice.)

Each loader returns ``(X, y)``: dense float64 features (categorical columns one-hot) and y the
class as an integer 0 .. k-1. The binary tables are those of the PU suite
(:mod:`_harness.pu_tables`, the same positive class). Rows are capped at ``MAX_ROWS``
(stratified, seed 0). Six tables come from Debian's ``r-cran-mlbench`` (``apt-get download
r-cran-mlbench && dpkg-deb -x r-cran-mlbench_*.deb mlbench``, read with ``rdata``): vehicle,
glass, satellite, shuttle (all 58,000 rows, 7 classes), vowel (the speaker column dropped) and
letter; their folder (``.../site-library/mlbench/data``) is given as an argument or in
``UNLABELED_MLBENCH``, and a table whose file is absent is skipped with the reason.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from . import pu_tables

MAX_ROWS = 20_000

# the split (see the module's docstring): written once, before any decision
TUNING = (
    "heart", "spectf", "house", "isolet", "australian", "banknote", "mammography", "htru2",
    "skin", "iris", "glass", "winequality-white", "shuttle", "digits", "pendigits",
)  # fmt: skip
CONFIRMATION = (
    "liverDisorders", "ionosphere", "clean1", "breast_cancer", "diabetes", "krvskp",
    "phoneme", "bank", "occupancy", "wine", "vehicle", "abalone", "satellite", "vowel",
    "letter",
)  # fmt: skip
MULTICLASS = (
    "iris", "wine", "glass", "vehicle", "abalone", "winequality-white", "satellite",
    "shuttle", "vowel", "digits", "pendigits", "letter",
)  # fmt: skip
# mlbench's object and file names
MLBENCH = {
    "vehicle": "Vehicle",
    "glass": "Glass",
    "satellite": "Satellite",
    "shuttle": "Shuttle",
    "vowel": "Vowel",
    "letter": "LetterRecognition",
}


def _codes(labels) -> np.ndarray:
    return np.unique(np.asarray(labels).astype(str), return_inverse=True)[1].astype(int)


def _mlbench(name, folder):
    folder = folder or os.environ.get("UNLABELED_MLBENCH")
    path = Path(folder or ".") / f"{MLBENCH[name]}.rda"
    if not folder or not path.exists():
        raise FileNotFoundError(
            f"{name}: no {MLBENCH[name]}.rda (give the folder of Debian's r-cran-mlbench "
            "data, see the module's docstring)"
        )
    import warnings

    import rdata

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # rdata: "Unknown encoding. Assumed ASCII."
        table = rdata.read_rda(str(path))[MLBENCH[name]]
    target = "lettr" if name == "letter" else table.columns[-1]
    features = table.drop(columns=[target] + (["V1"] if name == "vowel" else []))
    return features.to_numpy(dtype=np.float64), _codes(table[target])


def _load_raw(name, mlbench):
    if name in MLBENCH:
        return _mlbench(name, mlbench)
    if name in ("iris", "wine", "digits"):
        from sklearn import datasets

        X, y = getattr(datasets, f"load_{name}")(return_X_y=True)
        return X.astype(np.float64), y
    if name == "pendigits":
        t = pu_tables._csv("pendigits.csv", index_col=0)
        return t.iloc[:, :-1].to_numpy(float), _codes(t.iloc[:, -1])
    if name == "winequality-white":
        t = pu_tables._csv("winequality-white.csv", header=None)
        return t.iloc[:, :-1].to_numpy(float), _codes(t.iloc[:, -1])
    if name == "abalone":  # the usual three age bands: rings <= 8, 9-10, >= 11
        t = pu_tables._csv("abalone.csv", header=None)
        rings = t.iloc[:, -1].to_numpy()
        y = np.digitize(rings, [9, 11])
        return pu_tables._numeric_one_hot(t.iloc[:, :-1]), y
    return pu_tables._load_raw(name)


def load(name, max_rows=MAX_ROWS, mlbench=None):
    """``(X, y)`` of table ``name`` (see the module's docstring), at most ``max_rows`` rows."""
    if name not in TUNING + CONFIRMATION:
        raise ValueError(f"unknown table {name!r}; one of {sorted(TUNING + CONFIRMATION)}")
    X, y = _load_raw(name, mlbench)
    X, y = np.ascontiguousarray(X, dtype=np.float64), np.asarray(y, dtype=int)
    if max_rows and X.shape[0] > max_rows:
        from sklearn.model_selection import train_test_split

        keep, _ = train_test_split(
            np.arange(y.size), train_size=max_rows, stratify=y, random_state=0
        )
        keep.sort()
        X, y = X[keep], y[keep]
    return X, y


def half(name) -> str:
    """ "tuning" or "confirmation"."""
    return "tuning" if name in TUNING else "confirmation"
