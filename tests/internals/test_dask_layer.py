"""The Dask layer (``unlabeled._dask``) on its own: the merges, the tree reduction (its order
and its root on the client), where chunks are placed and read, and the k-means start's draw
without n weights on the client."""

import sys

import numpy as np
import pytest

from unlabeled._dask import (
    FAN_IN,
    Chunks,
    add,
    add_all,
    chunk_sources,
    heap_temporaries,
    holders,
    load,
    on_worker,
    small_result,
    spread,
    tree_reduce,
)
from unlabeled.ssl._vbmfa_dask import uniform_choice

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")
cloudpickle = pytest.importorskip("cloudpickle")
# this module's functions travel to the workers by value (the workers cannot import it)
cloudpickle.register_pickle_by_value(sys.modules[__name__])


def _concat(*parts):
    """An associative merge that is not commutative: it records the order of the parts."""
    return "".join(parts)


def test_add_sums_nested_structures_and_keeps_lone_keys():
    a = {"x": np.array([1.0, 2.0]), "t": (1, [2, 3]), "only_a": 5}
    b = {"x": np.array([0.5, 0.5]), "t": (10, [20, 30]), "only_b": 7}
    out = add(a, b)
    np.testing.assert_array_equal(out["x"], [1.5, 2.5])
    assert out["t"] == (11, [22, 33]) and isinstance(out["t"][1], list)
    assert out["only_a"] == 5 and out["only_b"] == 7
    assert list(out) == ["x", "t", "only_a", "only_b"]
    np.testing.assert_array_equal(a["x"], [1.0, 2.0])  # the inputs unchanged
    assert add_all(1, 2, 3, 4) == 10 and add_all((1, 2)) == (1, 2)
    with pytest.raises(ValueError):  # parts of different structure are refused
        add((1, 2), (1, 2, 3))


@pytest.mark.parametrize("count", [1, FAN_IN, FAN_IN + 1, 65])
def test_tree_reduce_merges_in_order_with_its_root_on_the_client(dask_client, count):
    words = [f"{i:02d}," for i in range(count)]
    futures = [dask_client.submit(str, w, pure=False) for w in words]
    assert tree_reduce(dask_client, futures, merge=_concat) == "".join(words)
    numbers = [dask_client.submit(float, i, pure=False) for i in range(count)]
    assert tree_reduce(dask_client, numbers) == sum(range(count))
    with pytest.raises(ValueError, match="at least one future"):
        tree_reduce(dask_client, [])


def test_spread_and_holders_place_chunks_on_workers(dask_client):
    workers = sorted(dask_client.nthreads())
    assert len(workers) == 2
    # consecutive runs with about as many rows each
    assert spread(dask_client, [10, 10, 10, 10]) == [[workers[0]]] * 2 + [[workers[1]]] * 2
    assert spread(dask_client, [1, 1, 1, 97]) == [[workers[0]]] * 3 + [[workers[1]]]
    futures = [on_worker(dask_client, [w], np.ones, 3) for w in workers[::-1]]
    assert holders(dask_client, futures) == [[workers[1]], [workers[0]]]
    np.testing.assert_array_equal(futures[0].result(), np.ones(3))


def _where(*_):
    from distributed import get_worker

    return get_worker().address


def test_chunks_run_every_task_at_the_chunks_home(dask_client):
    """The one placement rule: a task on a chunk, on its results or on a worker's group runs
    where the chunk lives (its holder; for chunks read from storage, spread's worker)."""
    workers = sorted(dask_client.nthreads())
    held = [on_worker(dask_client, [w], np.ones, 2) for w in [workers[1], workers[0]] * 2]
    chunks = Chunks(dask_client, held)
    assert chunks.homes == [[workers[1]], [workers[0]]] * 2
    firsts = chunks.each(_where)
    assert chunks.gather(firsts) == [workers[1], workers[0]] * 2
    again = chunks.each(_where, firsts, chunk=False)  # on each chunk's results
    assert chunks.gather(again) == [workers[1], workers[0]] * 2
    assert chunks.groups() == [([workers[1]], [0, 2]), ([workers[0]], [1, 3])]
    assert chunks.gather(chunks.at([workers[0]], _where)) == workers[0]
    stored = Chunks(dask_client, ["a", "b", "c"], rows=[10, 10, 80])  # read from storage
    assert stored.gather(stored.each(_where)) == [workers[0], workers[0], workers[1]]
    assert stored.map_reduce(_concat_chunk, args=("!",), merge=_concat) == "a!b!c!"
    placed = Chunks.placed(dask_client, [dask.delayed(np.zeros)(k) for k in (1, 2)], [5, 5])
    assert placed.homes == [[workers[0]], [workers[1]]]
    assert [len(x) for x in placed.gather(placed.chunks)] == [1, 2]
    with pytest.raises(ValueError, match="2 arguments for 4 chunks"):
        chunks.each(_where, [1, 2])


def _concat_chunk(chunk, tail):
    return chunk + tail


def _read(value):
    return np.asarray(load(value)).sum()


def test_chunk_sources_keep_or_read_again(dask_client):
    X = np.arange(60.0).reshape(20, 3)
    small = da.from_array(X, chunks=(5, 3))  # a graph that carries little data: read again
    big = np.arange(120_000.0).reshape(40_000, 3)  # 240 kB a chunk in the graph: kept
    stored = da.concatenate(  # a graph that reads its chunks: read again every pass
        [da.from_delayed(dask.delayed(np.full)((5, 3), float(k)), (5, 3), float) for k in range(4)]
    )
    persisted = small.persist()
    kinds = {}
    carried = da.from_array(big, chunks=(10_000, 3))
    for name, A in (
        ("small", small),
        ("stored", stored),
        ("persisted", persisted),
        ("big", carried),
    ):
        sources = chunk_sources(dask_client, A)
        assert len(sources) == 4
        kinds[name] = type(sources[0]).__name__
        sums = dask_client.gather([dask_client.submit(_read, s, pure=False) for s in sources])
        blocks = A.compute().reshape(4, -1)
        np.testing.assert_array_equal(sums, blocks.sum(axis=1))
    assert kinds["small"] == kinds["stored"] == "Stored"
    assert kinds["persisted"] == kinds["big"] == "Future"


def test_small_result_runs_the_function_with_heap_temporaries():
    calls = []

    @small_result
    def total(a, b):
        """Docstring kept."""
        calls.append(1)
        return float(np.sum(a) + b)

    assert total(np.ones(4), 1.0) == 5.0 and calls == [1]
    assert total.__name__ == "total" and total.__doc__ == "Docstring kept."
    with heap_temporaries(), heap_temporaries():  # nested (threads of one worker)
        assert np.zeros(1 << 18).sum() == 0.0


@pytest.mark.parametrize("n", [1, 2, 3, 7, 1000, (1 << 16) - 1, 1 << 16, (1 << 16) + 1, 200_003])
def test_uniform_choice_is_numpys_draw(n):
    """rs.choice(n, p=np.ones(n) / n), scikit-learn's first k-means++ centre: the same index
    and the same random state after it, without the arrays of n floats."""
    for seed in range(12):
        a, b = np.random.RandomState(seed), np.random.RandomState(seed)
        assert uniform_choice(b, n) == a.choice(n, p=np.ones(n) / n)
        assert b.random_sample() == a.random_sample()
