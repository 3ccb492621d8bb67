"""The PU suite: 26 real public tables as binary problems (positive class against the rest),
split once into a tuning half and a confirmation half.

The split was drawn before any default was chosen on it (issue 51), by this rule: the tables
are grouped (near-duplicates in one group: the two heart tables, the two house-votes tables),
the groups ordered by their number of rows, and of each consecutive pair of groups one goes to
each half, the coin drawn by ``numpy.random.default_rng(51)`` (``rng.random() < 0.5``: the
larger of the pair to the tuning half; a group's size is that of its largest table, the full
tables' rows before the cap: 270 heart, 345 liverDisorders, 349 spectf, 351 ionosphere, 435
house, 476 clean1, 569 breast_cancer, 600 isolet, 690 australian, 768 diabetes, 1,372
banknote, 1,797 digits, 3,196 krvskp, 4,177 abalone, 4,898 winequality-white, 5,404 phoneme,
10,992 pendigits, 11,183 mammography, 11,435 bank, 17,898 htru2, 20,560 occupancy, 43,500
shuttle, 48,842 adult, 245,057 skin); the lists below are the result,
written down as literals so that the split cannot move. Defaults are chosen on ``TUNING``
alone; ``CONFIRMATION`` only reports.

Each loader returns ``(X, y)``: dense float64 features (categorical columns one-hot) and y 1
for the positive class, 0 otherwise. Rows are capped at ``MAX_ROWS`` (a random subset drawn
with seed 0, stratified on y) so that one labeling of the suite stays within minutes on two
cores. Adult and Shuttle need files made by ``adult_from_wheel.py`` and
``shuttle_from_mlbench.py`` (their paths in ``UNLABELED_ADULT`` / ``UNLABELED_SHUTTLE`` or
as arguments); a table whose file is absent is skipped with the reason.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

TABLES = Path("../shared/data/tables")
MAX_ROWS = 20_000

# name: (rows before the cap, positive class)
POSITIVE = {
    "heart": "presence",
    "heart-statlog": "presence",
    "house": "democrat",
    "house-votes": "democrat",
    "liverDisorders": "the USMO files' positive",
    "spectf": "the USMO files' positive",
    "ionosphere": "good",
    "clean1": "musk",
    "breast_cancer": "malignant",
    "isolet": "the USMO files' positive",
    "australian": "approved",
    "diabetes": "diabetic",
    "banknote": "forged (1)",
    "digits": "digit 0",
    "krvskp": "white can win",
    "abalone": "rings >= 11",
    "winequality-white": "quality >= 7",
    "phoneme": "oral (1)",
    "pendigits": "digit 0",
    "mammography": "malignant",
    "bank": "subscribed",
    "htru2": "pulsar",
    "occupancy": "occupied",
    "skin": "skin (1)",
    "shuttle": "High (class 4)",
    "adult": ">50K",
}

# the split (see the module's docstring): written once, before any decision
TUNING = (
    "heart", "heart-statlog", "ionosphere", "clean1", "isolet", "australian", "digits",
    "krvskp", "winequality-white", "mammography", "htru2", "occupancy", "adult",
)  # fmt: skip
CONFIRMATION = (
    "liverDisorders", "spectf", "house", "house-votes", "breast_cancer", "diabetes",
    "banknote", "abalone", "phoneme", "pendigits", "bank", "shuttle", "skin",
)  # fmt: skip
UCI = (
    "australian", "clean1", "diabetes", "heart-statlog", "heart", "house-votes", "house",
    "ionosphere", "isolet", "krvskp", "liverDisorders", "spectf",
)  # fmt: skip


def _csv(name, **kw):
    import pandas as pd

    path = TABLES / name
    if not path.exists():
        raise FileNotFoundError(f"{path} not found (the shared tables folder)")
    return pd.read_csv(path, **kw)


def _numeric_one_hot(frame):
    import pandas as pd

    return pd.get_dummies(frame, dtype=float).to_numpy(dtype=np.float64)


def _load_raw(name, adult_file=None, shuttle_file=None):
    if name in UCI:
        from unlabeled.datasets import load_uci_small

        return load_uci_small(name)
    if name in ("breast_cancer", "digits"):
        from sklearn import datasets

        if name == "breast_cancer":
            X, y = datasets.load_breast_cancer(return_X_y=True)
            return X, (y == 0).astype(int)
        X, y = datasets.load_digits(return_X_y=True)
        return X.astype(np.float64), (y == 0).astype(int)
    if name in ("adult", "shuttle"):
        from unlabeled.datasets import load_file

        path = adult_file if name == "adult" else shuttle_file
        path = path or os.environ.get(f"UNLABELED_{name.upper()}")
        if not path or not Path(path).exists():
            raise FileNotFoundError(
                f"{name}: no file (make it with benchmarks/{name}_from_"
                f"{'wheel' if name == 'adult' else 'mlbench'}.py and pass its path)"
            )
        X, y = load_file(path)
        X = X.toarray() if hasattr(X, "toarray") else np.asarray(X, dtype=np.float64)
        return X, (y == (1 if name == "adult" else 4)).astype(int)
    return _load_table(name)


def _load_table(name):
    if name == "banknote":
        t = _csv("banknote.csv", header=None)
        return t.iloc[:, :-1].to_numpy(float), t.iloc[:, -1].to_numpy(int)
    if name == "phoneme":
        t = _csv("phoneme.csv", header=None)
        return t.iloc[:, :-1].to_numpy(float), t.iloc[:, -1].to_numpy(int)
    if name == "mammography":
        t = _csv("mammography.csv", header=None, quotechar="'")
        return t.iloc[:, :-1].to_numpy(float), (t.iloc[:, -1].astype(int) == 1).to_numpy(int)
    if name == "winequality-white":
        t = _csv("winequality-white.csv", header=None)
        return t.iloc[:, :-1].to_numpy(float), (t.iloc[:, -1] >= 7).to_numpy(int)
    if name == "abalone":
        t = _csv("abalone.csv", header=None)
        return _numeric_one_hot(t.iloc[:, :-1]), (t.iloc[:, -1] >= 11).to_numpy(int)
    if name == "htru2":
        t = _csv("htru2.csv", index_col=0)
        return t.iloc[:, :-1].to_numpy(float), t.iloc[:, -1].to_numpy(int)
    if name == "pendigits":
        t = _csv("pendigits.csv", index_col=0)
        return t.iloc[:, :-1].to_numpy(float), (t.iloc[:, -1] == 0).to_numpy(int)
    if name == "skin":
        t = _csv("skin.txt", sep="\t")
        return t.iloc[:, :-1].to_numpy(float), (t.iloc[:, -1] == 1).to_numpy(int)
    if name == "occupancy":
        import pandas as pd

        parts = [_csv(f"occupancy-{p}.txt") for p in ("train", "test1", "test2")]
        t = pd.concat(parts).drop(columns="date")
        return t.iloc[:, :-1].to_numpy(float), t.iloc[:, -1].to_numpy(int)
    if name == "bank":
        t = _csv("bank-full.csv", sep=";")
        return _numeric_one_hot(t.iloc[:, :-1]), (t.iloc[:, -1] == "yes").to_numpy(int)
    raise ValueError(f"unknown table {name!r}; one of {sorted(POSITIVE)}")


def load(name, max_rows=MAX_ROWS, adult_file=None, shuttle_file=None):
    """``(X, y)`` of table ``name`` (see the module's docstring), at most ``max_rows`` rows."""
    X, y = _load_raw(name, adult_file, shuttle_file)
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
