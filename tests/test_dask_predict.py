"""Predictions on Dask collections (issue 34, parts 3 and 4): every estimator's row-wise methods
take Dask arrays and DataFrames and return lazy Dask arrays computed block by block on a real
cluster, equal to the in-memory method on the same blocks; bad input gives the in-memory errors;
a worker lost in the middle of a computation is recomputed or ends in a clear error; NumPy input
never imports Dask."""

from __future__ import annotations

import importlib.util
import os
import pickle
import re
import subprocess
import sys
import time
from pathlib import Path

import cloudpickle
import numpy as np
import pytest
import scipy.sparse as sp
import test_common
from conftest import kill_a_busy_worker, make_pu
from sklearn.base import clone
from sklearn.decomposition import PCA
from sklearn.exceptions import NotFittedError
from sklearn.preprocessing import Normalizer

import unlabeled
from unlabeled import MISVM, PUSVC
from unlabeled.base import Fitted, Integer, ValidatedEstimator
from unlabeled.mil import BagTransformer

da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")
pd = pytest.importorskip("pandas")
distributed = pytest.importorskip("distributed")

CHUNKS = (37, 50, 13, 60, 50)  # uneven row chunks, 210 rows


def _ssl_labels(X):
    y = np.full(len(X), -1)
    y[:20] = (X[:20, 0] > 0.5).astype(int)
    return y


@pytest.fixture(scope="module")
def data():
    X, s, prior = make_pu(3, n=170, d=4, p=40)
    return X, s, prior


#: the row-wise methods whose Dask results are compared (inverse_transform: its own test)
ROWWISE = ("predict", "decision_function", "predict_proba", "predict_log_proba", "score_samples",
           "predict_cluster", "transform")  # fmt: skip
#: the common suite's fitted cases that predict on feature rows (not bags, Gram rows or CSR)
ROW_CASES = [
    key
    for key, (entry, case) in test_common.CASES.items()
    if entry.family != "mil"
    and case.data in ("dense", "unlabeled")
    and any(hasattr(entry.load(), m) for m in ROWWISE)
]


@pytest.fixture(scope="module")
def rows():
    """210 test points in the common suite's feature space."""
    return test_common.X_TEST[: sum(CHUNKS)]


@pytest.fixture(scope="module")
def models():
    """The common suite's fitted models that predict on feature rows, and their methods."""
    out = {}
    for key in ROW_CASES:
        entry, _ = test_common.CASES[key]
        if any(importlib.util.find_spec(m) is None for m in entry.needs):
            continue
        est = test_common.fitted(key)
        out[key] = (est, [m for m in ROWWISE if hasattr(est, m)])
    return out


def _by_blocks(est, method, X, chunks):
    """The in-memory method on each row block of ``X``, stacked: what the Dask graph computes."""
    starts = np.cumsum((0, *chunks))
    parts = [getattr(est, method)(X[a:b]) for a, b in zip(starts[:-1], starts[1:], strict=True)]
    return np.concatenate(parts)


@pytest.mark.parametrize("name", ROW_CASES)
def test_predictions_on_dask_arrays_equal_numpy(dask_client, models, rows, name):
    import dask

    if name not in models:
        pytest.skip(f"{name} needs a module that is not installed")
    X = rows
    est, methods = models[name]
    Xd = da.from_array(X, chunks=(CHUNKS, X.shape[1]))
    lazy = [getattr(est, m)(Xd) for m in methods]
    for m, r in zip(methods, lazy, strict=True):
        want = getattr(est, m)(X)
        assert isinstance(r, da.Array), m
        assert r.shape == want.shape and r.dtype == want.dtype, m
        assert r.chunks[0] == CHUNKS, m
        if r.ndim == 2:
            assert r.chunks[1] == (want.shape[1],), m
    results = dask.compute(*lazy)  # on the cluster's worker processes
    for m, got in zip(methods, results, strict=True):
        # the same code on the same blocks: the same bits
        np.testing.assert_array_equal(got, _by_blocks(est, m, X, CHUNKS), err_msg=m)
        # and the in-memory call on all of X, up to the last bits of its own blocked products
        want = getattr(est, m)(X)
        if want.dtype.kind == "f":
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12, err_msg=m)
        else:
            np.testing.assert_array_equal(got, want, err_msg=m)


def test_dask_dataframe_with_unknown_partition_lengths(data):
    """A DataFrame's partitions are predicted without counting them first (the result's row
    chunks are unknown, as Dask's own maps give); column names are checked as in memory."""
    X, s, prior = data
    frame = pd.DataFrame(X, columns=["a", "b", "c", "d"])
    est = PUSVC(prior=prior).fit(frame, s)
    ddf = dd.from_pandas(frame, npartitions=4)
    r = est.decision_function(ddf)
    assert isinstance(r, da.Array) and np.isnan(r.shape[0])
    got = r.compute(scheduler="sync")
    parts = [ddf.partitions[i].compute(scheduler="sync") for i in range(ddf.npartitions)]
    np.testing.assert_array_equal(got, np.concatenate([est.decision_function(p) for p in parts]))
    np.testing.assert_array_equal(
        est.predict(ddf).compute(scheduler="sync"), est.predict(frame)
    )  # labels, whatever the blocking
    renamed = dd.from_pandas(frame.rename(columns={"a": "z"}), npartitions=4)
    with pytest.raises(ValueError) as in_memory:
        est.predict(frame.rename(columns={"a": "z"}))
    with pytest.raises(ValueError, match=re.escape(str(in_memory.value).splitlines()[0])):
        est.predict(renamed)  # before any graph is built


def test_sparse_chunks_and_filtered_rows(data):
    X, s, prior = data
    est = PUSVC(prior=prior, kernel="linear").fit(sp.csr_matrix(X), s)
    Xd = da.from_array(X, chunks=(50, 4)).map_blocks(sp.csr_matrix, dtype=X.dtype)
    got = est.decision_function(Xd).compute(scheduler="sync")
    np.testing.assert_array_equal(
        got, _by_blocks(est, "decision_function", sp.csr_matrix(X), Xd.chunks[0])
    )
    # rows filtered by value: unknown chunk sizes, that a map over rows does not need
    dense = da.from_array(X, chunks=(50, 4))
    kept = dense[dense[:, 0] > 0.5]
    assert np.isnan(kept.shape[0])
    np.testing.assert_array_equal(
        est.predict(kept).compute(scheduler="sync"), est.predict(X[X[:, 0] > 0.5])
    )


def test_model_sent_once_and_snapshot(data):
    """The model is one key of the graph (not pickled into every block's task), taken when the
    graph is built: a later fit does not change the lazy result."""
    X, s, prior = data
    est = PUSVC(prior=prior, probability=True, random_state=0).fit(X, s)
    Xd = da.random.default_rng(0).normal(size=(400, 4), chunks=(20, 4))  # 20 blocks
    r = est.predict_proba(Xd)
    graph = dict(r.__dask_graph__())
    model_bytes = len(pickle.dumps(est))
    graph_bytes = len(cloudpickle.dumps(graph))
    assert graph_bytes < model_bytes + 40_000, (graph_bytes, model_bytes)  # not 20 copies
    Xn = Xd.compute(scheduler="sync")
    want = _by_blocks(est, "predict_proba", Xn, Xd.chunks[0])
    est.fit(X[::2], s[::2])  # a new model for est, not for the graph built above
    np.testing.assert_array_equal(r.compute(scheduler="sync"), want)


def test_bad_input_same_errors_as_in_memory(data):
    X, s, prior = data
    est = PUSVC(prior=prior, probability=True, random_state=0).fit(X, s)
    # NaN in one chunk: lazy, from the block's own check when that block is computed
    bad = X.copy()
    bad[120, 2] = np.nan
    lazy = est.predict(da.from_array(bad, chunks=(50, 4)))  # no error yet
    with pytest.raises(ValueError) as in_memory:
        est.predict(bad)
    with pytest.raises(ValueError, match=re.escape(str(in_memory.value).splitlines()[0])):
        lazy.compute(scheduler="sync")
    # the number of features: from the metadata, before a graph exists
    with pytest.raises(ValueError) as in_memory:
        est.predict(X[:, :3])
    with pytest.raises(ValueError, match=re.escape(str(in_memory.value))):
        est.predict(da.from_array(X[:, :3], chunks=(50, 3)))
    with pytest.raises(ValueError, match="must be 2-D"):
        est.predict(da.from_array(X[:, 0], chunks=50))
    unknown_columns = da.from_array(X, chunks=(50, 4)).map_blocks(
        lambda b: b, chunks=((50, 50, 50, 50, 10), (np.nan,))
    )
    with pytest.raises(ValueError, match="unknown number of columns"):
        est.predict(unknown_columns)
    with pytest.raises(ValueError, match="0 samples"):
        est.predict(da.zeros((0, 4), chunks=(10, 4)))
    # an empty block among others (a filtered partition) is no error
    empty_block = da.from_array(X[:60], chunks=((30, 0, 30), (4,)))
    np.testing.assert_array_equal(
        est.predict_proba(empty_block).compute(scheduler="sync"),
        _by_blocks(est, "predict_proba", X[:60], (30, 30)),
    )
    with pytest.raises(NotFittedError):
        PUSVC(prior=prior).predict(da.from_array(X, chunks=(50, 4)))
    no_proba = PUSVC(prior=prior).fit(X, s)
    assert not hasattr(no_proba, "predict_proba")
    with pytest.raises(AttributeError, match="probability=True"):
        no_proba.predict_proba(da.from_array(X, chunks=(50, 4)))


def test_multi_instance_refuses_dask_with_a_clear_error(data):
    X = data[0]
    bags = [X[i : i + 5] for i in range(0, 40, 5)]
    mil = MISVM().fit(bags, [0, 1] * 4)
    for method in ("predict", "decision_function"):
        with pytest.raises(TypeError, match=rf"MISVM.{method} does not take Dask.*bags"):
            getattr(mil, method)(da.from_array(X[:40], chunks=(20, 4)))
    assert mil.predict(bags).shape == (8,)  # bags in memory as before


def test_threaded_chunks_leave_blas_threads_as_they_were(models, rows):
    """CLSST limits BLAS to one thread while it predicts; chunks predicted by several threads
    at once (Dask's default scheduler) restore the process's setting when all are done."""
    from threadpoolctl import threadpool_info

    def blas_threads():
        return [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"]

    est = models["CLSST"][0]
    X = np.tile(rows, (10, 1))  # 2,100 rows in 42 chunks
    before = blas_threads()
    for _ in range(5):
        est.predict_proba(da.from_array(X, chunks=(50, X.shape[1]))).compute(
            scheduler="threads", num_workers=4
        )
        assert blas_threads() == before


def test_transform_and_inverse_transform_on_dask(data):
    """A transformer's output columns come back in one chunk; ``inverse_transform`` (present
    only when the wrapped transformer has it) takes Dask input too."""
    X = data[0]
    pca = BagTransformer(PCA(3)).fit([X[:100], X[100:]], [0, 1])
    Xd = da.from_array(X, chunks=(80, 4))
    Z = pca.transform(Xd)
    assert Z.chunks == ((80, 80, 50), (3,))
    np.testing.assert_array_equal(
        Z.compute(scheduler="sync"), _by_blocks(pca, "transform", X, (80, 80, 50))
    )
    back = pca.inverse_transform(Z).compute(scheduler="sync")
    Zn = Z.compute(scheduler="sync")
    np.testing.assert_array_equal(back, _by_blocks(pca, "inverse_transform", Zn, (80, 80, 50)))
    # still absent where the transformer has none (the available_if descriptor is kept)
    assert not hasattr(BagTransformer(Normalizer()).fit([X]), "inverse_transform")


def test_numpy_and_scipy_never_import_dask():
    code = (
        "import sys, numpy as np, scipy.sparse as sp\n"
        "import unlabeled\n"
        "from unlabeled import PUSVC, CLSST, LapSVM\n"
        "rng = np.random.default_rng(0)\n"
        "X = rng.normal(size=(60, 3)); s = np.r_[np.ones(15, int), np.zeros(45, int)]\n"
        "m = PUSVC(prior=0.4, probability=True, random_state=0).fit(X, s)\n"
        "m.predict(X); m.predict_proba(X); m.decision_function(sp.csr_matrix(X))\n"
        "PUSVC(prior=0.4, kernel='linear').fit(sp.csr_matrix(X), s).predict(sp.csr_matrix(X))\n"
        "y = np.r_[s[:15], np.zeros(10, int), -np.ones(35, int)]\n"
        "CLSST(random_state=0).fit(X, y).predict_proba(X); LapSVM().fit(X, y).predict(X)\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed')]\n"
        "assert not bad, bad\n"
    )
    src = str(Path(unlabeled.__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([src, os.environ.get("PYTHONPATH", "")])}
    subprocess.run([sys.executable, "-c", code], check=True, env=env, timeout=120)


# ---------------------------------------------------------------------------- lost workers
def _slow_rows(X, seconds):
    """``X`` behind a map that takes ``seconds`` per block: time to lose a worker."""

    def slow(block):
        time.sleep(seconds)
        return block

    return X.map_blocks(slow, dtype=X.dtype)


def test_prediction_graph_survives_a_lost_worker(own_cluster, models, rows):
    cluster, client = own_cluster
    client.wait_for_workers(2, timeout=60)
    X = rows
    est = models["PUSVC"][0]
    Xd = da.from_array(X, chunks=(15, X.shape[1]))  # 14 blocks of 0.3 s on 2 workers
    future = client.compute(est.decision_function(_slow_rows(Xd, 0.3)))
    thread, killed = kill_a_busy_worker(client, 0.3)
    thread.join()
    assert killed and not future.done()  # lost in the middle of the computation
    got = future.result(timeout=120)  # its running tasks and lost results recomputed
    np.testing.assert_array_equal(got, _by_blocks(est, "decision_function", X, Xd.chunks[0]))


class ChunkedMeans(ValidatedEstimator):
    """A fit by rounds over row chunks (a map on the workers, a sum, an update on the client),
    as the Dask fits are: Lloyd's k-means, two centers from fixed starts, on a Dask array."""

    _parameter_constraints = {"n_rounds": [Integer(1)]}
    _fitted_attributes: dict = {"cluster_centers_": Fitted("f", (2, "n_features_in_"))}

    def __init__(self, n_rounds=3, slow=0.0):
        self.n_rounds, self.slow = n_rounds, slow

    def fit(self, X, y=None, scheduler=None):
        import dask

        self._validate_params()
        d, pause = X.shape[1], self.slow

        def stats(block, centers):  # per chunk: the sum and count of the points of each center
            time.sleep(pause)
            near = ((block[:, None, :] - centers[None]) ** 2).sum(-1).argmin(1)
            out = np.zeros((1, 2, d + 1))
            for k in (0, 1):
                out[0, k, :d] = block[near == k].sum(0)
                out[0, k, d] = np.sum(near == k)
            return out

        centers = np.array([np.zeros(d), np.ones(d)])
        chunks = ((1,) * X.numblocks[0], (2,), (d + 1,))
        for _ in range(self.n_rounds):
            parts = X.map_blocks(stats, centers, new_axis=2, chunks=chunks, dtype=float)
            (total,) = dask.compute(parts.sum(0), scheduler=scheduler)
            centers = total[:, :d] / np.maximum(total[:, d:], 1)
        self.cluster_centers_ = centers
        self.n_features_in_ = d
        return self


def test_fit_with_a_lost_worker_recomputes_or_fails_cleanly(own_cluster):
    """A fit that loses a worker either ends with the model of the undisturbed fit (Dask
    recomputes) or raises a clear error and leaves the estimator's previous model (the fit is
    transactional), never a wrong model."""
    cluster, client = own_cluster
    X = da.random.default_rng(1).normal(size=(240, 3), chunks=(20, 3))
    want = ChunkedMeans().fit(X, scheduler=client).cluster_centers_
    est = ChunkedMeans(slow=0.1).fit(X[:40], scheduler=client)  # a previous model
    previous = est.cluster_centers_
    # lost in the middle of the fit: recomputed, the same model
    client.wait_for_workers(2, timeout=60)
    thread, killed = kill_a_busy_worker(client, 0.3)
    got = clone(est).fit(X, scheduler=client).cluster_centers_
    thread.join()
    assert killed
    np.testing.assert_array_equal(got, want)
    # no retry allowed (allowed-failures 0): a clear error, the previous model kept
    client.wait_for_workers(2, timeout=60)
    allowed = cluster.scheduler.allowed_failures
    cluster.scheduler.allowed_failures = 0
    try:
        thread, killed = kill_a_busy_worker(client, 0.3)
        with pytest.raises(distributed.KilledWorker):
            est.fit(X, scheduler=client)
        thread.join()
    finally:
        cluster.scheduler.allowed_failures = allowed
    assert killed
    assert est.cluster_centers_ is previous
