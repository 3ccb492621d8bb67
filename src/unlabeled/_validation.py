"""Input checks shared by the estimators: every error names the argument and the fix."""

from __future__ import annotations

import numbers
import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import DataConversionWarning
from sklearn.utils.multiclass import type_of_target

KERNELS = ("linear", "poly", "rbf", "precomputed")
KERNEL_CODES = {"linear": 0, "poly": 1, "rbf": 2, "precomputed": 3}


def check_real(value, name: str, *, low=None, high=None, low_open=True, high_open=True) -> float:
    """A finite real number in an (open or closed) interval."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(
            f"{name} must be a real number, got {value!r} of type {type(value).__name__}"
        )
    v = float(value)
    if not np.isfinite(v):
        raise ValueError(f"{name} must be finite, got {value!r}")
    if low is not None and (v <= low if low_open else v < low):
        raise ValueError(f"{name} must be {'>' if low_open else '>='} {low}, got {value!r}")
    if high is not None and (v >= high if high_open else v > high):
        raise ValueError(f"{name} must be {'<' if high_open else '<='} {high}, got {value!r}")
    return v


def check_int(value, name: str, *, low=None, allow_none=False) -> int | None:
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        what = "an integer or None" if allow_none else "an integer"
        raise TypeError(f"{name} must be {what}, got {value!r}")
    if low is not None and value < low:
        raise ValueError(f"{name} must be >= {low}, got {value!r}")
    return int(value)


def check_choice(value, name: str, choices) -> str:
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"{name} must be one of {list(choices)}, got {value!r}")
    return value


def check_gamma(gamma, kernel: str, X) -> float:
    """Resolve 'scale' / 'auto' as scikit-learn's SVC does; reject negative values."""
    if isinstance(gamma, str):
        if gamma == "scale":
            if kernel == "precomputed":
                return 1.0
            var = (X.multiply(X)).mean() - X.mean() ** 2 if sp.issparse(X) else X.var()
            return 1.0 / (X.shape[1] * var) if var > 0 else 1.0
        if gamma == "auto":
            return 1.0 / X.shape[1]
        raise ValueError(f"gamma must be 'scale', 'auto' or a non-negative number, got {gamma!r}")
    return check_real(gamma, "gamma", low=0.0, low_open=False)


def check_pu_labels(s, n_samples: int) -> np.ndarray:
    """Turn PU labels into a boolean mask of labeled positives.

    Accepted encodings: 1 = labeled positive with 0 or -1 = unlabeled (not both), or booleans.
    """
    if s is None:
        raise ValueError(
            "s is None: PUSVC requires y to be passed, but the target y is None; "
            "give the PU labels s (1 = labeled positive, 0 = unlabeled)"
        )
    arr = np.asarray(s)
    if arr.ndim == 2 and arr.shape[1] == 1:
        warnings.warn(
            "A column-vector y was passed when a 1d array was expected: s is ravelled.",
            DataConversionWarning,
            stacklevel=3,
        )
        arr = arr.ravel()
    if arr.ndim != 1:
        raise ValueError(f"s must be a 1-d array of PU labels, got an array of shape {arr.shape}")
    if arr.shape[0] != n_samples:
        raise ValueError(
            f"s has {arr.shape[0]} entries but X has {n_samples} rows: "
            "give one PU label per row of X"
        )
    expected = (
        "s must hold 1 for labeled positives and 0 (or -1) for unlabeled points. "
        "Only binary classification is supported."
    )
    if arr.dtype == bool:
        mask = arr.copy()
    else:
        if arr.dtype.kind not in "iuf":
            raise ValueError(f"{expected} Unknown label type: values of dtype {arr.dtype}")
        values = np.unique(arr)
        if not (set(values.tolist()) <= {0, 1} or set(values.tolist()) <= {-1, 1}):
            shown = values[:10].tolist()
            kind = type_of_target(arr)
            raise ValueError(
                f"{expected} Got the values {shown}{' ...' if values.size > 10 else ''}"
                + ("" if kind == "binary" else f" (Unknown label type: {kind})")
            )
        mask = arr == 1
    if not mask.any():
        raise ValueError(
            "s marks no labeled positive: at least one entry of s must be 1 "
            "(a PU classifier can't train when only one class is present)"
        )
    if mask.all():
        raise ValueError(
            "s marks no unlabeled point: at least one entry of s must be 0 (or -1) "
            "(a PU classifier can't train when only one class is present)"
        )
    return mask
