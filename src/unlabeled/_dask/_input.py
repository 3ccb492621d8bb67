"""Dask collections as input: recognised without importing Dask, checked before any work.

``import unlabeled`` never imports Dask, and NumPy or SciPy input never touches it: a Dask
collection can exist only once Dask is imported, so :func:`is_dask_collection` looks for the
module in ``sys.modules`` and asks it. The checks below give the same clear errors as the
in-memory input checks, from the metadata alone where Dask allows it (shapes, chunk sizes,
dtypes), so that a bad input fails before the first pass over the data.
"""

from __future__ import annotations

import copy
import sys
from typing import Any

import numpy as np


def is_dask_collection(obj) -> bool:
    """Whether ``obj`` is a Dask collection (array, DataFrame, Series), without importing Dask."""
    dask = sys.modules.get("dask")
    return dask is not None and bool(dask.is_dask_collection(obj))


def as_dask_array(X, *, name: str = "X", ndim: int = 2, unknown_rows: bool = False):
    """``X`` (a Dask array, DataFrame or Series) as a Dask array of ``ndim`` dimensions whose
    row chunk sizes are known and, for 2-D, whose columns lie in one chunk (chunked by rows).

    Raises ``ValueError`` naming ``name`` and the fix: unknown chunk sizes (a DataFrame's
    partitions, a filtered array), wrong number of dimensions, no rows, or a non-numeric dtype.
    With ``unknown_rows=True`` (a map over row blocks, which needs no row counts) unknown row
    chunk sizes are kept and a DataFrame's partition lengths are not computed; an unknown
    number of columns is refused either way.
    """
    import dask.array as da

    if not isinstance(X, da.Array):
        to_array = getattr(X, "to_dask_array", None)
        if to_array is None:
            raise TypeError(
                f"{name} is a Dask collection of type {type(X).__name__}: pass a dask.array or a "
                "dask DataFrame/Series of numeric columns"
            )
        # one pass over the partitions' lengths, never their values (none with unknown_rows)
        X = to_array() if unknown_rows else to_array(lengths=True)
    if X.ndim != ndim:
        want = "2-D (n_samples, n_features)" if ndim == 2 else "1-D (n_samples,)"
        raise ValueError(f"{name} must be {want}, got a Dask array of shape {X.shape}")
    if ndim == 2 and np.isnan(X.shape[1]):
        raise ValueError(
            f"{name} has an unknown number of columns: call {name}.compute_chunk_sizes() or "
            "pass the column chunks of the array you built it with"
        )
    if not unknown_rows and any(np.isnan(c) for c in X.chunks[0]):
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
    if y.shape[0] != X.shape[0]:  # (before chunking y like X: Dask's "do not add up")
        raise ValueError(
            f"{x_name} and {y_name} have different lengths ({X.shape[0]} and {y.shape[0]} "
            "rows): pass one label per row"
        )
    if not is_dask_collection(y):
        y = da.from_array(y, chunks=(X.chunks[0],))
    if y.chunks[0] != X.chunks[0]:
        y = y.rechunk((X.chunks[0],))
    return y


def blockwise(est, method: str, X, args: tuple = (), kwargs: dict | None = None):
    """``getattr(est, method)(X_block, *args, **kwargs)`` on each row block of the Dask
    collection ``X``, as a lazy Dask array of the results stacked by rows; ``X`` is never
    collected.

    The row chunks of the result are those of ``X`` (unknown ones stay unknown: a DataFrame's
    partitions need not be counted); a method that returns one value per row gives a 1-D
    array, one that returns ``k`` columns (probabilities, codes) a 2-D array with its columns
    in one chunk. Before the graph is built the method runs once on a row of zeros with the
    columns (and, for a DataFrame, the column names and dtypes) of ``X``: its own checks of
    the model and of the number and names of features raise here, as in memory, and its result
    gives the output's dtype and width. Each block then runs the same method on the NumPy (or
    SciPy, or pandas) block, so the values are those of the in-memory call on those rows, and
    the checks of the values (NaN, scale) raise when the block is computed. The model is a
    shallow copy of ``est`` taken now (a later ``fit`` replaces its attributes and does not
    change the result) in one graph key, sent once to each worker that needs it.
    """
    import dask
    import dask.array as da

    kwargs = {} if kwargs is None else dict(kwargs)
    meta: Any = getattr(X, "_meta", None)
    columns = list(meta.columns) if hasattr(meta, "columns") else None  # a DataFrame
    dtypes = meta.dtypes.to_dict() if columns is not None else None
    X = as_dask_array(X, unknown_rows=True)
    probe = np.zeros((1, X.shape[1]), dtype=X.dtype)
    if columns is not None:
        import pandas as pd

        probe = pd.DataFrame(probe, columns=columns).astype(dtypes)
    out = np.asarray(getattr(est, method)(probe, *args, **kwargs))
    if out.ndim not in (1, 2) or out.shape[0] != 1:
        raise TypeError(
            f"{type(est).__name__}.{method} does not return one row per row of X (shape "
            f"{out.shape} for one row): it cannot run on Dask collections"
        )
    tail = out.shape[1:]
    model = dask.delayed(copy.copy(est), pure=True)
    name = f"{type(est).__name__.lower()}-{method.replace('_', '-')}"
    return da.map_blocks(
        _rows,
        X,
        model,
        method,
        columns,
        args,
        kwargs,
        out.dtype,
        tail,
        dtype=out.dtype,
        chunks=(X.chunks[0], *((n,) for n in tail)),
        drop_axis=[] if tail else [1],
        meta=np.empty((0, *tail), dtype=out.dtype),
        token=name,
    )


def _rows(block, est, method, columns, args, kwargs, dtype, tail):
    """One block of :func:`blockwise`: the method on the block's rows (none: an empty result,
    where the method itself would refuse an empty input)."""
    if block.shape[0] == 0:
        return np.empty((0, *tail), dtype=dtype)
    if columns is not None:
        import pandas as pd

        block = pd.DataFrame(block, columns=columns)
    return getattr(est, method)(block, *args, **kwargs)
