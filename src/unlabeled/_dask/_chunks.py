"""The one orchestration of a fit's work on a ``dask.distributed`` cluster: chunks placed on
workers, tasks mapped over them where they live, the results gathered or tree-reduced.

:class:`Chunks` holds a fit's chunks (futures of chunks kept in the workers' memory, or
:class:`~._cluster.Stored` chunks read again from their source each pass) with one placement
rule: **every task on a chunk runs on the chunk's home**, the worker that holds it (for a
chunk in memory) or the worker that :func:`~._cluster.spread` gave it (for a chunk read from
storage: runs of consecutive chunks with about as many rows per worker). A task on a chunk's
result (its statistics, its new state) runs at the chunk's home too, and a task on a group of
chunks (:meth:`Chunks.groups`: a worker's chunks, as CoCoA+'s partitions) at the group's.
Another worker takes the task if the home is gone (``allow_other_workers``). Linear PUSVC
(``pu/_dask_linear``) and CLSST (``ssl/_vbmfa_dask``) run every task through it; no module
outside this package calls the client.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ._cluster import add_all, holders, on_worker, spread, tree_reduce


class Chunks:
    """A fit's chunks on a distributed client, each with its home (see the module).

    Parameters
    ----------
    client : distributed.Client
    chunks : list
        Futures of chunks, :class:`~._cluster.Stored` chunks, or tuples of them (a chunk of
        ``X`` with its labels: the first item decides the home).
    homes : list, optional
        ``[address]`` (or None: anywhere) for each chunk; by default the holder of each chunk
        held in memory, else :func:`~._cluster.spread` over ``rows``.
    rows : sequence of int, optional
        The chunks' numbers of rows (for :func:`~._cluster.spread`).
    """

    def __init__(self, client, chunks: Sequence, homes: list | None = None, rows=None):
        self.client = client
        self.chunks = list(chunks)
        if homes is None:
            homes = _homes(client, self.chunks, rows)
        if len(homes) != len(self.chunks):
            raise ValueError(f"{len(homes)} homes for {len(self.chunks)} chunks")
        self.homes = list(homes)

    @classmethod
    def placed(cls, client, delayed: Sequence, rows) -> Chunks:
        """Chunks made from the Dask ``delayed`` objects (raw blocks of an array, one per
        chunk of ``rows`` rows), each computed at its home: runs of consecutive chunks with
        about as many rows per worker (:func:`~._cluster.spread`; the scheduler's own
        placement put all four blocks of 1,000,000 rows on one of two workers)."""
        homes = spread(client, rows)
        return cls(client, cls(client, list(delayed), homes).compute(delayed), homes)

    def __len__(self) -> int:
        return len(self.chunks)

    def with_chunks(self, chunks: Sequence) -> Chunks:
        """Other chunks (made from these, one each) at the same homes."""
        return Chunks(self.client, chunks, self.homes)

    # ---- placing ---------------------------------------------------------------------------
    def on(self, i: int, fn: Callable, *args):
        """A future of ``fn(*args)`` run at chunk ``i``'s home (never cached)."""
        return on_worker(self.client, self.homes[i], fn, *args)

    def at(self, where, fn: Callable, *args):
        """A future of ``fn(*args)`` on the workers ``where`` (a group's home)."""
        return on_worker(self.client, where, fn, *args)

    def each(self, fn: Callable, *per_chunk: Sequence, args: tuple = (), chunk: bool = True):
        """``[fn(chunk_i, a_i, b_i, ..., *args)]``: one future per chunk, at its home;
        ``per_chunk``: lists with one item per chunk (futures of a chunk's earlier results,
        offsets); ``chunk=False`` leaves the chunk out of the arguments."""
        for items in per_chunk:
            if len(items) != len(self.chunks):
                raise ValueError(f"{len(items)} arguments for {len(self.chunks)} chunks")
        head = [[c] for c in self.chunks] if chunk else [[] for _ in self.chunks]
        return [
            self.on(i, fn, *head[i], *(items[i] for items in per_chunk), *args)
            for i in range(len(self.chunks))
        ]

    def compute(self, delayed: Sequence) -> list:
        """Futures of the Dask ``delayed`` objects, one per chunk, each made at the chunk's
        home (the chunks' own data: their raw blocks, their labels)."""
        return [
            self.client.compute(d, workers=w, allow_other_workers=True)
            if w is not None
            else self.client.compute(d)
            for d, w in zip(delayed, self.homes, strict=True)
        ]

    # ---- bringing back ---------------------------------------------------------------------
    def gather(self, futures):
        """The results of ``futures`` (a future, or a list of them) on the client."""
        return self.client.gather(futures)

    def reduce(self, futures: list, merge: Callable = add_all) -> Any:
        """``merge`` of the futures' results by the tree reduction
        (:func:`~._cluster.tree_reduce`: inner merges on the workers, the root here)."""
        return tree_reduce(self.client, futures, merge)

    def map_reduce(self, fn: Callable, *per_chunk, args: tuple = (), merge=add_all):
        """:meth:`reduce` of :meth:`each`: one pass over the chunks, one round trip."""
        return self.reduce(self.each(fn, *per_chunk, args=args), merge)

    # ---- groups ----------------------------------------------------------------------------
    def groups(self) -> list[tuple[list | None, list[int]]]:
        """``[(home, indices of its chunks)]``: the chunks of each worker, in order of their
        first chunk (a task on a group runs at :meth:`at` its home)."""
        groups: dict = {}
        for k, home in enumerate(self.homes):
            groups.setdefault(None if home is None else home[0], []).append(k)
        return [(None if a is None else [a], idx) for a, idx in groups.items()]


def _homes(client, chunks: list, rows) -> list:
    """The holder of each chunk held in memory; for chunks read from storage, ``spread``."""
    from distributed import Future

    first = [c[0] if isinstance(c, tuple) else c for c in chunks]
    if first and all(isinstance(c, Future) for c in first):
        return holders(client, first)
    if rows is None:
        return [None] * len(chunks)
    return spread(client, rows)
