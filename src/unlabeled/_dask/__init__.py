"""The Dask layer: everything the estimators share to take Dask input, written once.

Recognising and checking Dask input (:mod:`._input`: never importing Dask for other input),
the row-wise methods block by block (:func:`blockwise`), and the map-reduce of the fits on a
``dask.distributed`` cluster: :class:`Chunks` (:mod:`._chunks`), the one orchestration (every
task on a chunk at the chunk's home, map, gather, tree reduction), on the primitives of
:mod:`._cluster` (the client, chunks kept on the workers or read again each pass, the tree
reduction and its merges); :mod:`._memory`: the allocator tuning of the workers' kernels.
Linear PUSVC (``pu/_dask_linear``), NNPUClassifier's linear form and CLSST
(``ssl/_vbmfa_dask``) are built on it. Dask and distributed
are imported inside the functions that received Dask input only.
"""

from ._chunks import Chunks
from ._cluster import (
    FAN_IN,
    Stored,
    add,
    add_all,
    chunk_sources,
    get_client,
    holders,
    load,
    on_worker,
    spread,
    tree_reduce,
)
from ._input import align_rows, as_dask_array, blockwise, is_dask_collection
from ._memory import heap_temporaries, small_result

__all__ = [
    "FAN_IN",
    "Chunks",
    "Stored",
    "add",
    "add_all",
    "align_rows",
    "as_dask_array",
    "blockwise",
    "chunk_sources",
    "get_client",
    "heap_temporaries",
    "holders",
    "is_dask_collection",
    "load",
    "on_worker",
    "small_result",
    "spread",
    "tree_reduce",
]
