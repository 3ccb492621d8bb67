"""CLSST on Dask arrays (a real LocalCluster of two worker processes, ``dask_client``): the
same model as the in-memory fit on the same data and random_state (labeled, a class with two
clusters, unlabeled only with the k-means start), per-point results as Dask arrays, and bad
input refused with the in-memory errors before any sweep."""

import numpy as np
import pytest
from conftest import kill_a_busy_worker

from unlabeled.datasets import make_toes
from unlabeled.ssl import CLSST

da = pytest.importorskip("dask.array")

# small and few sweeps: each pass over the chunks is a round trip to the workers (the
# equality holds along any path: unconverged runs and capped births are compared as they are)
FAST = {"tol": 1e-3, "max_iter": 3, "max_births": 1}


def _two_blob_class(n=240, seed=0):
    """Class 0: two blobs far apart; class 1: one blob between them; 5 labels per class."""
    rng = np.random.default_rng(seed)
    m = n // 3
    X = np.r_[rng.normal((-6, 0), 1, (m, 2)), rng.normal((6, 0), 1, (m, 2))]
    X = np.r_[X, rng.normal((0, 6), 1, (n - 2 * m, 2))]
    truth = np.r_[np.zeros(2 * m, int), np.ones(n - 2 * m, int)]
    y = np.full(n, -1)
    for c in (0, 1):
        y[np.flatnonzero(truth == c)[:: m // 3]] = c
    return X, y


def _same_model(mem, dsk, X):
    assert dsk.n_components_ == mem.n_components_
    assert dsk.lower_bound_ == pytest.approx(mem.lower_bound_, rel=1e-8)
    np.testing.assert_allclose(dsk.means_, mem.means_, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(dsk.noise_variance_, mem.noise_variance_, rtol=1e-6)
    assert isinstance(dsk.transduction_, da.Array) and isinstance(dsk.labels_, da.Array)
    np.testing.assert_array_equal(dsk.transduction_.compute(), mem.transduction_)
    np.testing.assert_array_equal(dsk.labels_.compute(), mem.labels_)
    np.testing.assert_array_equal(dsk.predict(X), mem.predict(X))


@pytest.mark.parametrize("case", ["toes", "two_blob_class"])
def test_labeled_fit_equals_in_memory(dask_client, case):
    if case == "toes":
        X, truth, _ = make_toes(360, n_features=3, random_state=1)
        y = np.full(len(X), -1)
        y[::20] = truth[::20]
        params = dict(FAST, max_births=0)  # the start and one run; births: the other case
    else:
        X, y = _two_blob_class()
        params = FAST
    mem = CLSST(random_state=0, **params).fit(X, y)
    # uneven row chunks, y a Dask array chunked otherwise (aligned by the fit)
    Xd = da.from_array(X, chunks=((100, 37, len(X) - 137), (X.shape[1],)))
    dsk = CLSST(random_state=0, **params).fit(Xd, da.from_array(y, chunks=90))
    _same_model(mem, dsk, X)
    if case == "two_blob_class":  # a birth was accepted: the class of two blobs split
        assert mem.n_births_ == dsk.n_births_ == 1


@pytest.mark.parametrize("kw", [{"classes": [0, 1]}, {}])
def test_unlabeled_fit_equals_in_memory(dask_client, kw):
    """No labels: two known classes (the k-means start, replayed over the chunks with
    scikit-learn's draws), or clustering (y=None: one class, a forced birth)."""
    X, _, _ = make_toes(300, n_features=2, random_state=2)
    mem = CLSST(n_components=2, random_state=3, **kw, **FAST).fit(X)
    dsk = CLSST(n_components=2, random_state=3, **kw, **FAST).fit(da.from_array(X, chunks=70))
    _same_model(mem, dsk, X)


def test_bad_dask_input_refused_before_any_sweep(dask_client):
    X, truth, _ = make_toes(200, n_features=2, random_state=0)
    y = np.where(np.arange(200) % 10 == 0, truth, -1)
    bad = X.copy()
    bad[150, 1] = np.nan
    with pytest.raises(ValueError, match="Input X contains NaN"):
        CLSST().fit(X=bad, y=y)
    with pytest.raises(ValueError, match="Input X contains NaN"):
        CLSST().fit(da.from_array(bad, chunks=50), y)
    with pytest.raises(ValueError, match="different lengths"):
        CLSST().fit(da.from_array(X, chunks=50), da.from_array(y[:-1], chunks=50))
    # issue 44 item 7: y in memory, shorter than X (was Dask's "Chunks do not add up")
    for short in (y[:-10], list(y[:-10])):
        with pytest.raises(ValueError, match=r"X and y have different lengths \(200 and 190"):
            CLSST().fit(da.from_array(X, chunks=50), short)
    one = CLSST(n_components=1, max_iter=3)
    with pytest.warns(UserWarning, match=r"y labels one class only"):
        one.fit(da.from_array(X, chunks=50), np.where(y == 1, -1, y))
    Xd = da.from_array(X, chunks=50)
    with pytest.raises(ValueError, match="unknown chunk sizes"):
        CLSST().fit(Xd[Xd[:, 0] > -100], y)
    clf = CLSST()
    with pytest.raises(ValueError, match="y holds labels outside"):
        CLSST(classes=[0]).fit(Xd, y)
    assert not hasattr(clf, "n_components_")


def test_persisted_input_refit_and_labels_selection_going_back(dask_client):
    """X persisted on the workers by the caller: two fits in a row give the in-memory model
    and leave X as it was (the chunks are made from copies of its blocks); a birth accepted
    and then undone by select='labels' (the fit goes back to the global factors of fewer
    components, whose q(x) covariances the next pass must rebuild first)."""
    X, truth, _ = make_toes(400, n_features=2, random_state=1)
    X = X[:, :1].copy()  # one feature: each block's transpose is contiguous already
    y = np.full(len(X), -1)
    y[::20] = truth[::20]
    params = {"max_iter": 3, "max_births": 1}
    mem = CLSST(random_state=0, **params).fit(X, y)
    assert mem.n_births_ == 1 and mem.n_components_ == 2  # the birth undone
    Xd = da.from_array(X, chunks=100).persist()
    for _ in range(2):
        dsk = CLSST(random_state=0, **params).fit(Xd, y)
        _same_model(mem, dsk, X)
    np.testing.assert_array_equal(Xd.compute(), X)


def test_a_worker_lost_in_a_fit_is_recomputed(own_cluster):
    """A worker killed (SIGKILL) during the fit: Dask recomputes the chunks it held (each
    made again from its block of X, divided by the scale once) and the sweeps it ran, and the
    fit ends with the in-memory model, or with a clear error; never another model."""
    _, client = own_cluster
    X, truth, _ = make_toes(3000, n_features=3, random_state=2)
    y = np.full(len(X), -1)
    y[::50] = truth[::50]
    params = dict(FAST, max_iter=20)
    mem = CLSST(random_state=0, **params).fit(X, y)
    Xd = da.from_array(X, chunks=(500, 3))
    with client.as_current():
        client.wait_for_workers(2, timeout=60)
        thread, killed = kill_a_busy_worker(client, 0.3)
        dsk = CLSST(random_state=0, **params).fit(Xd, y)
        thread.join()
        assert killed  # during the fit: no task runs after it, so no kill could come later
        _same_model(mem, dsk, X)


def _per_row_arrays(est, n):
    """The fitted attributes of ``est`` that hold n rows in this process: NumPy arrays with a
    dimension of n, or lists and tuples of length n (a Dask array holds none here)."""
    found = []
    for name, value in vars(est).items():
        if isinstance(value, np.ndarray) and n in value.shape:
            found.append(name)
        elif isinstance(value, (list, tuple)) and len(value) == n:
            found.append(name)
    return found


@pytest.mark.parametrize("start", ["labels", "kmeans"])
def test_the_client_holds_no_per_row_array(dask_client, start):
    """Issue 43 item 3: after a Dask fit no fitted attribute is an array of n rows on the
    client (transduction_ and labels_ are Dask arrays computed on the workers), and the bound
    and the predictions are the in-memory fit's (labeled start and the k-means start, whose
    first centre is drawn without n weights on the client)."""
    X, truth, _ = make_toes(611, n_features=3, random_state=4)  # n unlike any model dimension
    if start == "labels":
        y, kw = np.where(np.arange(len(X)) % 15 == 0, truth, -1), {}
    else:
        y, kw = None, {"classes": [0, 1], "n_components": 2}
    mem = CLSST(random_state=1, **kw, **FAST).fit(X, y)
    Xd = da.from_array(X, chunks=200)
    yd = None if y is None else da.from_array(y, chunks=200)
    dsk = CLSST(random_state=1, **kw, **FAST).fit(Xd, yd)
    assert _per_row_arrays(mem, len(X))  # the check sees the in-memory fit's arrays
    assert _per_row_arrays(dsk, len(X)) == []
    _same_model(mem, dsk, X)
    np.testing.assert_array_equal(dsk.predict(Xd).compute(), mem.predict(X))
