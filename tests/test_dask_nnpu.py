"""NNPUClassifier's linear form on Dask arrays (issue 55) on a real two-process LocalCluster:
each L-BFGS evaluation summed over the chunks on the workers gives the in-memory fit up to
rounding, its prior threshold exact, and bad input the in-memory errors."""

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import make_pu

from unlabeled import NNPUClassifier, load, save

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")
pytest.importorskip("distributed")


def _same_model(got, ref, X):
    """The Dask fit is the in-memory one up to rounding: weights, offset, threshold (the same
    order statistics of the unlabeled points' values), risks and predictions."""
    np.testing.assert_allclose(got.coef_, ref.coef_, rtol=1e-6, atol=1e-8)
    assert got.intercept_[0] == pytest.approx(ref.intercept_[0], rel=1e-6, abs=1e-8)
    assert got.threshold_ == pytest.approx(ref.threshold_, rel=1e-6, abs=1e-8)
    assert got.objective_ == pytest.approx(ref.objective_, rel=1e-9, abs=1e-12)
    assert got.negative_risk_ == pytest.approx(ref.negative_risk_, rel=1e-6, abs=1e-9)
    f_ref = ref.decision_function(X)
    far = np.abs(f_ref) > 1e-6
    np.testing.assert_array_equal(got.predict(X)[far], ref.predict(X)[far])


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"loss": "logistic", "non_negative": False},
        {"threshold": "zero", "fit_intercept": False},
    ],
)
def test_dense_chunks_match_in_memory(dask_client, params):
    X, s, prior = make_pu(0, n=900, d=5, p=120)
    order = np.argsort(s, kind="stable")  # the first chunks without labeled positives
    X, s = X[order].astype(np.float32), s[order]
    ref = NNPUClassifier(prior=prior, **params).fit(X, s)
    Xd = da.from_array(X, chunks=((400, 150, 470), -1))
    got = NNPUClassifier(prior=prior, **params).fit(Xd, da.from_array(s, chunks=300))
    _same_model(got, ref, X)
    assert got.shape_fit_ == X.shape and got.support_.shape == (0,)


def test_nnpu_correction_sparse_weights_and_model_file(dask_client, tmp_path):
    # few labeled positives in many features: uPU's negative risk goes below zero, and the
    # non-negative correction (the smoothing continuation) runs on the workers too
    X, s, prior = make_pu(3, n=150, d=40, p=30, shift=0.7)
    X[np.abs(X) < 0.5] = 0.0
    Xs = sp.csr_matrix(X)
    weight = np.random.default_rng(1).uniform(0.5, 2.0, X.shape[0])
    ref = NNPUClassifier(prior=prior, lam=1e-5).fit(Xs, s, sample_weight=weight)
    upu = NNPUClassifier(prior=prior, lam=1e-5, non_negative=False)
    upu.fit(Xs, s, sample_weight=weight)
    assert upu.negative_risk_ < -0.1 and abs(ref.negative_risk_) < 1e-4  # at the kink
    Xd = da.from_array(Xs, chunks=(60, -1), asarray=False)
    got = NNPUClassifier(prior=prior, lam=1e-5).fit(Xd, s, sample_weight=weight)
    # at the kink the smoothing's path amplifies rounding: another point of the same J
    # (1.3e-4 here; the two differed by 4e-8), stationary as well, predicting the same
    assert got.objective_ == pytest.approx(ref.objective_, abs=1e-6)
    assert got.stationarity_ <= 1e-5 and abs(got.negative_risk_) < 1e-4
    np.testing.assert_allclose(got.coef_, ref.coef_, atol=0.02)
    np.testing.assert_array_equal(got.predict(Xs), ref.predict(Xs))
    save(got, tmp_path / "nnpu.skops")
    np.testing.assert_array_equal(load(tmp_path / "nnpu.skops").predict(Xs), got.predict(Xs))


def test_exact_threshold_on_many_rows(dask_client):
    # more unlabeled values than come back at once: the threshold's interval is narrowed by
    # counts on the workers, and ends on the in-memory order statistics all the same
    X, s, prior = make_pu(5, n=60_000, d=2, p=2_000)
    ref = NNPUClassifier(prior=prior).fit(X, s)
    got = NNPUClassifier(prior=prior).fit(
        da.from_array(X, chunks=(20_000, -1)).persist(), da.from_array(s, chunks=20_000)
    )
    _same_model(got, ref, X)
    f = np.sort(got.decision_function(X[s == 0]) + got.threshold_)[::-1]
    k = int(round(prior * f.size))
    assert got.threshold_ == pytest.approx((f[k - 1] + f[k]) / 2, rel=1e-12, abs=1e-14)


def test_bad_input_and_unsupported_options_refused(dask_client):
    X, s, prior = make_pu(2, n=300, d=3)
    Xd = da.from_array(X, chunks=(100, -1))
    for kw, phrase in (
        ({"kernel": "rbf"}, "kernel='rbf'"),
        ({"prior": "auto"}, "prior='auto'"),
        ({"probability": True}, "probability=True"),
        ({"standardize": True}, "standardize=True"),
    ):
        with pytest.raises(ValueError, match=phrase + r".*compute\(\)"):
            NNPUClassifier(**{"prior": prior, **kw}).fit(Xd, s)
    est = NNPUClassifier(prior=prior)
    Xn = X.copy()
    Xn[237, 2] = np.inf
    with pytest.raises(ValueError, match=r"NaN or infinity \(row 237\)"):
        est.fit(da.from_array(Xn, chunks=(100, -1)), s)
    assert not hasattr(est, "coef_")  # nothing fitted
    bad = s.astype(float)
    bad[[17, 250]] = np.nan
    with pytest.raises(ValueError, match=r"s holds NaN \(2 entries, the first at index 17\)"):
        est.fit(Xd, bad)
    with pytest.raises(ValueError, match=r"Got the values \[0, 1, 2\]"):
        est.fit(Xd, np.where(np.arange(len(s)) == 5, 2, s))
    with pytest.raises(ValueError, match="sample_weight sums to 0 over the labeled"):
        est.fit(Xd, s, sample_weight=np.where(s == 1, 0.0, 1.0))
    with pytest.raises(TypeError, match="pass X as a Dask array"):
        est.fit(X, da.from_array(s, chunks=100))
