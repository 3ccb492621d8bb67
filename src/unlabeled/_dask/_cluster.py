"""The map-reduce of a fit on a ``dask.distributed`` cluster: the client, the chunks as the
workers use them, tasks placed where their chunk lives, and the tree reduction.

A fit keeps its chunks on the workers (futures of chunks held in their memory) or, for input
that is neither persisted nor carries its data in its graph, reads each chunk again from its
source on every pass (:class:`Stored`: a worker holds one chunk at a time). A pass maps a
function over the chunks and adds the results by :func:`tree_reduce`: inner nodes on the
workers, the root on the client; nothing of the chunks' size comes back.
"""

from __future__ import annotations

import numpy as np

#: partial sums added per node of the tree reduction
FAN_IN = 8
#: a chunk whose pickled graph is larger than this (and than an eighth of its data) carries
#: its data: it is kept in the workers' memory rather than sent again every pass
GRAPH_BYTES = 1 << 16


def get_client(fix: str):
    """The current ``dask.distributed`` client; ``ImportError`` (no distributed) or
    ``ValueError`` (no client) with the message ``fix`` otherwise."""
    try:
        import distributed
    except ImportError:  # pragma: no cover - dask without distributed
        raise ImportError(fix) from None
    try:
        return distributed.get_client()
    except ValueError:
        raise ValueError(fix) from None


def add(a, b):
    """``a + b`` for (nested tuples, lists, dicts of) arrays and numbers; a key that only one
    dict has is kept as it is."""
    if isinstance(a, dict):
        return {key: add(a[key], b[key]) if key in b else a[key] for key in a} | {
            key: value for key, value in b.items() if key not in a
        }
    if isinstance(a, (tuple, list)):
        return type(a)(add(x, z) for x, z in zip(a, b, strict=True))
    return a + b


def add_all(*parts):
    """The sum of ``parts`` by :func:`add`, left to right."""
    total = parts[0]
    for part in parts[1:]:
        total = add(total, part)
    return total


def tree_reduce(client, futures: list, merge=add_all, fan_in: int = FAN_IN):
    """``merge(*results)`` of the futures' results, by a tree whose inner nodes merge
    ``fan_in`` partial results on the workers and whose root is the client: it gathers the
    last ``fan_in`` (or fewer) and merges them in order, so that the order of the merges is
    that of the futures. (A root on a worker cost one more hop per pass: 28 ms against 20 ms
    for four empty tasks on a 2-worker LocalCluster.) ``merge`` takes any number of partial
    results; it must be associative in the order given."""
    if not futures:
        raise ValueError("tree_reduce needs at least one future")
    while len(futures) > fan_in:
        futures = [
            client.submit(merge, *futures[i : i + fan_in], pure=False)
            for i in range(0, len(futures), fan_in)
        ]
    return merge(*client.gather(futures))


def holders(client, futures: list) -> list:
    """For each future, once it is done, ``[address]`` of one worker that holds its result
    (the first by address), or None when none does: the ``workers=`` of tasks on it."""
    from distributed import wait

    wait(futures)
    who = client.who_has(futures)
    return [sorted(who.get(f.key, ()))[:1] or None for f in futures]


def spread(client, rows) -> list:
    """``[address]`` for each chunk of ``rows`` rows: runs of consecutive chunks with about
    as many rows per worker (a pass lasts as long as its busiest worker); None for each
    without workers."""
    workers = sorted(client.nthreads())
    if not workers:
        return [None] * len(rows)
    ends = np.cumsum(rows) / np.sum(rows)
    share = np.minimum((ends * len(workers) - 1e-9).astype(int), len(workers) - 1)
    return [[workers[i]] for i in share]


def on_worker(client, where, fn, *args):
    """``client.submit(fn, *args)`` on the workers ``where`` (a list of addresses; None:
    anywhere), another one if those are gone; never cached (``pure=False``)."""
    if where is None:
        return client.submit(fn, *args, pure=False)
    return client.submit(fn, *args, pure=False, workers=where, allow_other_workers=True)


class Stored:
    """A chunk read again from its source on every pass (its array not persisted, and its
    Dask graph small: it reads the data rather than carrying them): the chunk's Delayed,
    computed on the worker by the synchronous scheduler, so that a worker holds one chunk at
    a time."""

    def __init__(self, delayed):
        self.delayed = delayed

    def load(self):
        import dask

        return dask.compute(self.delayed, scheduler="sync")[0]


def load(value):
    """A chunk's value on a worker: read from its source (:class:`Stored`) or as held."""
    return value.load() if isinstance(value, Stored) else value


def chunk_sources(client, A) -> list:
    """The row chunks of the Dask array ``A`` as the workers use them: futures of chunks kept
    in the workers' memory if ``A`` is persisted, or if a chunk's graph carries its data
    (pickled, more than :data:`GRAPH_BYTES` and an eighth of the chunk: e.g. ``from_array``
    of an array in memory); otherwise :class:`Stored` chunks, read again from their source on
    every pass (a worker then holds one chunk at a time, so its memory stays flat in n)."""
    import cloudpickle
    from dask.core import flatten
    from dask.delayed import Delayed
    from dask.optimization import cull
    from distributed import Future

    keys = list(flatten(A.__dask_keys__()))
    graph = dict(A.__dask_graph__())
    if not all(isinstance(graph.get(k), Future) for k in keys):
        # each chunk with the tasks it needs alone (to_delayed would give each the whole graph)
        chunks = [Delayed(k, cull(graph, [k])[0]) for k in keys]
        first = np.prod([c[0] for c in A.chunks]) * A.dtype.itemsize
        if len(cloudpickle.dumps(chunks[0])) <= max(GRAPH_BYTES, first / 8):
            return [Stored(chunk) for chunk in chunks]
    return client.compute(list(A.to_delayed(optimize_graph=False).ravel()))
