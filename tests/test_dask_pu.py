"""Linear PUSVC fitted on Dask arrays (issue 34, part 2) on a real two-process LocalCluster:
the distributed CoCoA+ solver against the in-memory solver run to a much tighter tolerance,
its duality-gap certificate, and the clear errors of bad input."""

import time

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import kill_a_busy_worker, make_pu
from sklearn.base import clone

from unlabeled import PUSVC, load, save

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")
pytest.importorskip("distributed")

TOL = 1e-3


def _problem(seed=0, n=1500, d=4):
    """A PU problem whose labeled positives are all in the last rows, so that the first
    chunks hold no labeled positive."""
    X, s, prior = make_pu(seed, n=n, d=d, p=n // 5)
    order = np.argsort(s, kind="stable")  # unlabeled first, positives last
    return X[order], s[order], prior


def _reference(X, s, prior):
    return PUSVC(prior=prior, kernel="linear", tol=1e-7).fit(X, s)


def _check_against(model, ref, X, s):
    """The certificate holds and brackets the in-memory optimum; the models agree, and the
    threshold rule predicts about the prior's share of the unlabeled points positive."""
    J, gap = model.objective_, model.duality_gap_
    assert 0.0 <= gap <= TOL * max(1.0, abs(J))
    # the lower bound J - gap is below the optimum, the objective above it (the reference
    # solved to 1e-7 is within 1e-6 of the optimum)
    assert J - gap <= ref.objective_ + 1e-6
    assert J >= ref.objective_ - 1e-6
    assert abs(J - ref.objective_) <= TOL * max(1.0, abs(ref.objective_))
    # the same signs at the solver's offset (f + threshold_) wherever the reference's value
    # is not within the objective's tolerance of zero
    f = ref.decision_function(X) + ref.threshold_
    far = np.abs(f) > 0.1
    assert far.mean() > 0.8
    g = model.decision_function(X) + model.threshold_
    np.testing.assert_array_equal((g > 0)[far], (f > 0)[far])
    # the threshold: the quantile of the start's sample (a tenth of the unlabeled points)
    # against the reference's of all of them, whose share is the prior's to 1/n
    unl = np.asarray(s) == 0
    assert abs(ref.predict(X[unl]).mean() - ref.prior_) <= 1.0 / unl.sum()
    assert abs(model.predict(X[unl]).mean() - model.prior_) <= 4 / np.sqrt(0.1 * unl.sum())
    assert model.n_rounds_ >= 1 and model.coef_.shape == ref.coef_.shape


@pytest.mark.parametrize("source", ["storage", "persisted", "graph"])
def test_dense_uneven_chunks_match_in_memory(dask_client, tmp_path, source):
    # float32 chunks, read as stored: the same problem as the in-memory fit on the same data,
    # whether the chunks are read from files again every round (storage), kept in the
    # workers' memory (persisted), or carried by the graph (from_array, a first chunk of 67 KB)
    X, s, prior = _problem(n=5000, d=8)
    X = X.astype(np.float32)
    ref = _reference(X, s, prior)
    chunks = (2100, 150, 255, 3495)  # uneven; the first three hold no labeled positive
    assert not s[:2505].any()
    Xd = da.from_array(X, chunks=(chunks, -1))
    if source == "storage":
        blocks = []
        for k, block in enumerate(Xd.blocks):
            np.save(tmp_path / f"X{k}.npy", block.compute())
            load = dask.delayed(np.load)(str(tmp_path / f"X{k}.npy"))
            blocks.append(da.from_delayed(load, block.shape, np.float32))
        Xd = da.concatenate(blocks)
    elif source == "persisted":
        Xd = Xd.persist()
    model = PUSVC(prior=prior, kernel="linear", tol=TOL, random_state=0).fit(Xd, s)
    _check_against(model, ref, X, s)


def test_sparse_chunks_match_in_memory(dask_client, tmp_path):
    X, s, prior = _problem(seed=1, n=800, d=6)
    X[np.abs(X) < 0.6] = 0.0  # about half the entries zero
    Xs = sp.csr_matrix(X)
    ref = _reference(Xs, s, prior)
    Xd = da.from_array(Xs, chunks=(250, -1), asarray=False)
    assert sp.issparse(Xd.blocks[0].compute())
    model = PUSVC(prior=prior, kernel="linear", tol=TOL, random_state=0).fit(
        Xd, da.from_array(s, chunks=250)
    )
    _check_against(model, ref, Xs, s)
    # a model file of a Dask fit is valid (duality_gap_ and n_rounds_ declared)
    save(model, tmp_path / "m.skops")
    back = load(tmp_path / "m.skops")
    assert back.duality_gap_ == model.duality_gap_
    np.testing.assert_array_equal(back.predict(Xs), model.predict(Xs))


def test_nonlinear_kernel_and_unsupported_options_refused(dask_client):
    X, s, prior = _problem(n=200)
    Xd = da.from_array(X, chunks=(100, -1))
    with pytest.raises(ValueError, match=r"kernel='rbf'.*kernel='linear'.*compute\(\)"):
        PUSVC(prior=prior).fit(Xd, s)
    with pytest.raises(ValueError, match="prior='auto'"):
        PUSVC(prior="auto", kernel="linear").fit(Xd, s)
    with pytest.raises(ValueError, match="probability=True"):
        PUSVC(prior=prior, kernel="linear", probability=True).fit(Xd, s)


def test_bad_input_is_refused_before_the_first_round(dask_client):
    X, s, prior = _problem(n=300)
    est = PUSVC(prior=prior, kernel="linear")
    Xn = X.copy()
    Xn[237, 2] = np.nan
    with pytest.raises(ValueError, match=r"NaN or infinity \(row 237\)"):
        est.fit(da.from_array(Xn, chunks=(100, -1)), s)
    assert not hasattr(est, "coef_")  # nothing fitted
    with pytest.raises(ValueError, match="different lengths"):
        est.fit(da.from_array(X, chunks=(100, -1)), s[:-1])
    Xu = da.from_array(X, chunks=(100, -1))
    Xu = Xu[Xu[:, 0] > -100]  # a filter: unknown chunk sizes
    with pytest.raises(ValueError, match="unknown chunk sizes"):
        est.fit(Xu, s)
    with pytest.raises(ValueError, match="no labeled positive"):
        est.fit(da.from_array(X, chunks=(100, -1)), np.zeros(X.shape[0], int))
    with pytest.raises(ValueError, match="0 \\(or -1\\)"):
        est.fit(da.from_array(X, chunks=(100, -1)), np.full(X.shape[0], 2))


def test_a_worker_lost_in_a_round_is_recomputed(own_cluster, tmp_path):
    """A worker killed (SIGKILL) while it runs a round: Dask recomputes its chunks' states from
    their lineage, and the fit ends with the undisturbed fit's model, to the bit."""
    _, client = own_cluster
    X, s, prior = _problem(seed=3, n=2000)
    seconds = 0.02  # each read of a chunk, so that a round lasts long enough to lose a worker

    def slow_load(path):
        time.sleep(seconds)
        return np.load(path)

    blocks = []
    for k in range(0, len(X), 400):
        np.save(tmp_path / f"X{k}.npy", X[k : k + 400])
        load = dask.delayed(slow_load)(str(tmp_path / f"X{k}.npy"))
        blocks.append(da.from_delayed(load, X[k : k + 400].shape, X.dtype))
    Xd = da.concatenate(blocks)
    est = PUSVC(prior=prior, kernel="linear", tol=TOL, random_state=0)
    with client.as_current():
        want = clone(est).fit(Xd, s)
        client.wait_for_workers(2, timeout=60)
        thread, killed = kill_a_busy_worker(client, 0.5)
        got = clone(est).fit(Xd, s)
        thread.join()
    assert killed
    np.testing.assert_array_equal(got.coef_, want.coef_)
    assert got.intercept_[0] == want.intercept_[0] and got.n_rounds_ == want.n_rounds_


def test_the_client_holds_no_per_row_array(dask_client):
    """Issue 43 item 3, linear PUSVC: after a Dask fit no fitted attribute is an array with a
    dimension of n (the model is w and the offset; support_ empty), and its predictions on
    Dask input are the in-memory model's, block by block."""
    X, s, prior = _problem(seed=3, n=1203)
    model = PUSVC(prior=prior, kernel="linear", tol=TOL, random_state=0)
    model.fit(da.from_array(X, chunks=300), da.from_array(s, chunks=300))
    held = [
        name
        for name, value in vars(model).items()
        if isinstance(value, np.ndarray) and len(X) in value.shape
    ]
    assert held == []
    assert model.support_.shape == (0,) and model.coef_.shape == (1, X.shape[1])
    _check_against(model, _reference(X, s, prior), X, s)
    Xd = da.from_array(X, chunks=300)
    np.testing.assert_array_equal(model.predict(Xd).compute(), model.predict(X))
