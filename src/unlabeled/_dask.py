"""Dask collections as input: recognised without importing Dask, checked before any work.

``import unlabeled`` never imports Dask, and NumPy or SciPy input never touches it: a Dask
collection can exist only once Dask is imported, so :func:`is_dask_collection` looks for the
module in ``sys.modules`` and asks it. The checks below give the same clear errors as the
in-memory input checks, from the metadata alone where Dask allows it (shapes, chunk sizes,
dtypes), so that a bad input fails before the first pass over the data.
"""

from __future__ import annotations

import sys

import numpy as np


def is_dask_collection(obj) -> bool:
    """Whether ``obj`` is a Dask collection (array, DataFrame, Series), without importing Dask."""
    dask = sys.modules.get("dask")
    return dask is not None and bool(dask.is_dask_collection(obj))


def as_dask_array(X, *, name: str = "X", ndim: int = 2):
    """``X`` (a Dask array, DataFrame or Series) as a Dask array of ``ndim`` dimensions whose
    row chunk sizes are known and, for 2-D, whose columns lie in one chunk (chunked by rows).

    Raises ``ValueError`` naming ``name`` and the fix: unknown chunk sizes (a DataFrame's
    partitions, a filtered array), wrong number of dimensions, no rows, or a non-numeric dtype.
    """
    import dask.array as da

    if not isinstance(X, da.Array):
        to_array = getattr(X, "to_dask_array", None)
        if to_array is None:
            raise TypeError(
                f"{name} is a Dask collection of type {type(X).__name__}: pass a dask.array or a "
                "dask DataFrame/Series of numeric columns"
            )
        X = to_array(lengths=True)  # one pass over the partitions' lengths, never their values
    if X.ndim != ndim:
        want = "2-D (n_samples, n_features)" if ndim == 2 else "1-D (n_samples,)"
        raise ValueError(f"{name} must be {want}, got a Dask array of shape {X.shape}")
    if any(np.isnan(c) for c in X.chunks[0]):
        raise ValueError(
            f"{name} has unknown chunk sizes: call {name}.compute_chunk_sizes() (or, for a "
            "DataFrame, to_dask_array(lengths=True)) before passing it"
        )
    if X.shape[0] == 0:
        raise ValueError(f"{name} has 0 samples: at least one row is needed")
    if X.dtype.kind not in "biuf":
        raise ValueError(
            f"{name} has dtype {X.dtype}: pass numeric features (convert strings or objects first)"
        )
    if ndim == 2 and len(X.chunks[1]) > 1:
        X = X.rechunk({1: -1})  # a row block holds whole rows
    return X


def align_rows(X, y, *, x_name: str = "X", y_name: str = "y"):
    """``y`` (Dask, NumPy or a list) as a 1-D Dask array chunked like ``X``'s rows; raises
    ``ValueError`` naming both arguments when their lengths differ."""
    import dask.array as da

    if is_dask_collection(y):
        y = as_dask_array(y, name=y_name, ndim=1)
    else:
        y = np.asarray(y)
        if y.ndim != 1:
            raise ValueError(f"{y_name} must be 1-D, got shape {y.shape}")
        y = da.from_array(y, chunks=(X.chunks[0],))
    if y.shape[0] != X.shape[0]:
        raise ValueError(
            f"{x_name} and {y_name} have different lengths ({X.shape[0]} and {y.shape[0]} "
            "rows): pass one label per row"
        )
    if y.chunks[0] != X.chunks[0]:
        y = y.rechunk((X.chunks[0],))
    return y
