"""The 12 small UCI data sets of the USMO paper, stored as MATLAB files."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from scipy.io import loadmat

UCI_SMALL_NAMES = (
    "australian",
    "clean1",
    "diabetes",
    "heart-statlog",
    "heart",
    "house-votes",
    "house",
    "ionosphere",
    "isolet",
    "krvskp",
    "liverDisorders",
    "spectf",
)
UCI_ENV_VAR = "UNLABELED_DATA_UCI"
UCI_DEFAULT_DIR = Path("..", "shared", "data", "uci-small")


def load_uci_small(
    name: str, data_home: str | os.PathLike[str] | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Load one of the 12 small UCI data sets used in the USMO paper [1]_.

    Each set is a MATLAB file ``{name}.mat`` (read with :func:`scipy.io.loadmat`) holding the
    feature matrix ``X`` (n x d) and the binary labels ``labels`` (n x 1, 1 = positive class).
    Nothing is downloaded: the files are looked for, in this order, in ``data_home``, in the
    folder named by the environment variable ``UNLABELED_DATA_UCI``, and in
    ``../shared/data/uci-small`` relative to the current working directory.

    Parameters
    ----------
    name : str
        One of :data:`UCI_SMALL_NAMES`: ``australian``, ``clean1``, ``diabetes``,
        ``heart-statlog``, ``heart``, ``house-votes``, ``house``, ``ionosphere``, ``isolet``,
        ``krvskp``, ``liverDisorders``, ``spectf``.
    data_home : str, os.PathLike or None, default=None
        Folder holding the ``.mat`` files; None uses ``UNLABELED_DATA_UCI`` or the default.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features), dtype float64, C-contiguous
    y : ndarray of shape (n_samples,), dtype int64
        1 for the positive class, 0 otherwise (labels stored as -1/+1 are mapped to 0/1).

    Raises
    ------
    ValueError
        If ``name`` is unknown, or the file lacks ``X`` / ``labels`` or has non-binary labels.
    FileNotFoundError
        If the folder or the file does not exist; the message says where it looked.

    References
    ----------
    .. [1] E. Sansone, F. G. B. De Natale and Z.-H. Zhou, "Efficient training for positive
       unlabeled learning", IEEE Transactions on Pattern Analysis and Machine Intelligence,
       41(11), pp. 2584-2598, 2019.
    .. [2] D. Dua and C. Graff, UCI Machine Learning Repository, https://archive.ics.uci.edu.

    Examples
    --------
    >>> from unlabeled.datasets import load_uci_small
    >>> X, y = load_uci_small("australian")  # doctest: +SKIP
    >>> X.shape  # doctest: +SKIP
    (690, 42)
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be a str, one of {list(UCI_SMALL_NAMES)}; got {name!r}")
    if name not in UCI_SMALL_NAMES:
        raise ValueError(
            f"unknown UCI data set {name!r}; name must be one of {list(UCI_SMALL_NAMES)}"
        )
    if data_home is not None and not isinstance(data_home, (str, os.PathLike)):
        raise TypeError(f"data_home must be a str, os.PathLike or None, got {data_home!r}")
    if data_home is not None:
        folder, source = Path(data_home), "data_home"
    elif os.environ.get(UCI_ENV_VAR):
        folder, source = Path(os.environ[UCI_ENV_VAR]), f"${UCI_ENV_VAR}"
    else:
        folder, source = UCI_DEFAULT_DIR, "the default ../shared/data/uci-small"
    hint = (
        f"pass data_home='/path/to/uci-small' or set the environment variable {UCI_ENV_VAR} "
        f"to the folder holding the files {name}.mat etc."
    )
    if not folder.is_dir():
        raise FileNotFoundError(
            f"UCI folder {str(folder)!r} (from {source}; resolved: {folder.resolve()}) "
            f"does not exist; {hint}"
        )
    path = folder / f"{name}.mat"
    if not path.is_file():
        raise FileNotFoundError(f"{path.name} not found in {str(folder)!r} (from {source}); {hint}")
    mat = loadmat(path)
    missing = [k for k in ("X", "labels") if k not in mat]
    if missing:
        found = sorted(k for k in mat if not k.startswith("__"))
        raise ValueError(f"{path} has no variable {missing}; it holds {found}")
    X, labels = mat["X"], mat["labels"]
    X = X.toarray() if sp.issparse(X) else X
    labels = np.asarray(labels.toarray() if sp.issparse(labels) else labels).ravel()
    X = np.ascontiguousarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[0] != labels.size:
        raise ValueError(
            f"{path}: X has shape {X.shape} but labels has {labels.size} entries; "
            "expected X of shape (n, d) and n labels"
        )
    values = set(np.unique(labels).tolist())
    if values <= {0, 1}:
        y = labels.astype(np.int64)
    elif values <= {-1, 1}:
        y = (labels == 1).astype(np.int64)
    else:
        raise ValueError(
            f"{path}: labels must be binary (0/1 or -1/+1), got values {sorted(values)[:10]}"
        )
    return X, y
