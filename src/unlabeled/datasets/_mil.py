"""The five standard multi-instance sets: Musk1, Musk2 (Dietterich et al. 1997) and the COREL
image sets Elephant, Fox, Tiger (Andrews, Tsochantaridis and Hofmann 2002)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from .._files import shared_file

MIL_NAMES = ("musk1", "musk2", "elephant", "fox", "tiger")
MIL_ENV_VAR = "UNLABELED_DATA_MIL"
MIL_DEFAULT_DIR = Path("..", "shared", "data", "mil")


def load_mil(
    name: str, data_home: str | os.PathLike[str] | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Load one of the five standard multi-instance sets as instances with bag ids.

    Each set is a NumPy file ``{name}.npz`` holding ``X`` (one row per instance, features as
    distributed: unscaled; scale them inside each training fold), ``bag`` (the bag index of
    each row) and ``y`` (one label per bag, 1 = positive). Nothing is downloaded: the files are
    looked for in ``data_home``, in the folder named by ``UNLABELED_DATA_MIL``, and in
    ``../shared/data/mil`` relative to the current working directory.

    Parameters
    ----------
    name : str
        One of :data:`MIL_NAMES`: ``musk1``, ``musk2``, ``elephant``, ``fox``, ``tiger``.
    data_home : str, os.PathLike or None, default=None
        Folder holding the ``.npz`` files.

    Returns
    -------
    X : ndarray of shape (n_instances, n_features), float64
    bag : ndarray of shape (n_instances,), int64
        Bag index of each instance, ``0 .. n_bags - 1``: the ``groups`` of
        :meth:`unlabeled.mil.MILWellSVM.fit`.
    y : ndarray of shape (n_bags,), int64
        1 for a positive bag, 0 for a negative one.

    Raises
    ------
    ValueError
        If ``name`` is unknown or the file is malformed.
    FileNotFoundError
        If the file does not exist; the message says where it looked.

    References
    ----------
    T. G. Dietterich, R. H. Lathrop, T. Lozano-Perez. Solving the multiple instance problem
    with axis-parallel rectangles. Artificial Intelligence 89:31-71, 1997.
    S. Andrews, I. Tsochantaridis, T. Hofmann. Support vector machines for multiple-instance
    learning. NIPS 15, 2003.

    Examples
    --------
    >>> from unlabeled.datasets import load_mil
    >>> X, bag, y = load_mil("musk1")  # doctest: +SKIP
    >>> X.shape, y.shape  # doctest: +SKIP
    ((476, 166), (92,))
    """
    path = shared_file(
        name, MIL_NAMES, "multi-instance set", data_home, MIL_ENV_VAR, MIL_DEFAULT_DIR, ".npz"
    )
    with np.load(path) as d:
        missing = {"X", "bag", "y"} - set(d.files)
        if missing:
            raise ValueError(f"{path} lacks {sorted(missing)}: expected X, bag and y")
        X = np.ascontiguousarray(d["X"], dtype=np.float64)
        bag = np.asarray(d["bag"], dtype=np.int64)
        y = np.asarray(d["y"], dtype=np.int64)
    if bag.shape != (X.shape[0],) or bag.min() < 0 or bag.max() != y.shape[0] - 1:
        raise ValueError(f"{path}: bag must give each row of X a bag index 0 .. len(y) - 1")
    if not np.isin(y, (0, 1)).all():
        raise ValueError(f"{path}: y must be 0 or 1 per bag")
    return X, bag, y
