"""Issue 35 for CLSST, the Plummer autoencoder and the class-prior estimators: a fit completes
or leaves the estimator exactly as it was (a late failure, a diverged run, Ctrl-C), CLSST's
floors relative to the data's scale, bounded work with a ConvergenceWarning naming the
parameter, the autoencoder's divergence diagnosis and memory guard, random_state validated by
the library."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
from problems import ssl_problem
from sklearn.exceptions import ConvergenceWarning

from unlabeled.exceptions import InvalidParameterError
from unlabeled.pu import priors
from unlabeled.ssl import CLSST


def assert_same_state(est, before: dict) -> None:
    """``est.__dict__`` holds exactly the objects of ``before`` (a failed fit restored them)."""
    after = vars(est)
    assert after.keys() == before.keys(), set(after) ^ set(before)
    changed = [k for k in before if after[k] is not before[k]]
    assert not changed, changed


def raise_on_call(monkeypatch, owner, name, number, exc):
    """Make ``owner.name`` raise ``exc`` on its ``number``-th call (1-based)."""
    original = getattr(owner, name)
    calls = [0]

    def patched(*args, **kwargs):
        calls[0] += 1
        if calls[0] == number:
            raise exc
        return original(*args, **kwargs)

    monkeypatch.setattr(owner, name, patched)
    return calls


# ---------------------------------------------------------------------------- CLSST
@pytest.fixture(scope="module")
def clsst_data():
    X, y, truth = ssl_problem(1, n_unl=60, shift=2.5)
    return X, y, truth


@pytest.mark.parametrize("fitted", [False, True], ids=["unfitted", "fitted"])
@pytest.mark.parametrize("exc", [KeyboardInterrupt(), np.linalg.LinAlgError("not PD")])
def test_clsst_fit_interrupted_late_leaves_it_as_it_was(monkeypatch, clsst_data, fitted, exc):
    """Before: a refit interrupted among the births (Ctrl-C, or the numerical breakdown that
    fit turns into a ValueError) kept the new classes_, n_features_in_ and histories beside
    the old model."""
    X, y, _ = clsst_data
    est = CLSST(random_state=0)
    if fitted:
        est.fit(X[:, :1], y)
    before = dict(vars(est))
    named = np.array(["a", "b"], dtype=object)[np.clip(y, 0, 1)]
    named[y == -1] = -1
    # the check of the work done, after every sweep: the 40th is among the births
    calls = raise_on_call(monkeypatch, CLSST, "_spend", 40, exc)
    with pytest.raises(type(exc) if isinstance(exc, KeyboardInterrupt) else ValueError):
        est.fit(X, named)
    assert calls[0] == 40
    assert_same_state(est, before)


def test_clsst_bad_parameter_found_late_leaves_it_as_it_was(clsst_data):
    """Before: init='labels' without two labels per class was refused after classes_ and
    n_features_in_ were set."""
    X, y, _ = clsst_data
    est = CLSST(random_state=0).fit(X, y)
    before = dict(vars(est))
    est.set_params(init="labels")
    one_label = np.where(np.arange(len(y)) < 2, y, -1)
    with pytest.raises(ValueError, match="init='labels'"):
        est.fit(X[:, :1], one_label)
    before["init"] = "labels"
    assert_same_state(est, before)


@pytest.mark.parametrize("factor", [1e-6, 1e6, 1e-3])
def test_clsst_predictions_do_not_depend_on_the_units(clsst_data, factor):
    """Before: on X * 1e-6 the absolute noise floor (1e-5) exceeded the data's variance and
    CLSST collapsed to one component (accuracy 0.45, against 1.0 on X)."""
    X, y, truth = clsst_data
    ref = CLSST(random_state=0).fit(X, y)
    assert (ref.predict(X) == truth).mean() == 1.0
    clf = CLSST(random_state=0).fit(X * factor, y)
    assert clf.n_components_ == ref.n_components_
    np.testing.assert_array_equal(clf.predict(X * factor), ref.predict(X))
    np.testing.assert_array_equal(clf.transduction_, ref.transduction_)
    np.testing.assert_allclose(clf.predict_proba(X * factor), ref.predict_proba(X), atol=1e-8)
    # the model is reported in the data's units: densities shift by the Jacobian
    np.testing.assert_allclose(clf.means_, ref.means_ * factor, rtol=1e-6)
    np.testing.assert_allclose(clf.noise_variance_, ref.noise_variance_ * factor**2, rtol=1e-6)
    shift = X.shape[1] * np.log(factor)
    np.testing.assert_allclose(clf.score_samples(X * factor), ref.score_samples(X) - shift)
    np.testing.assert_allclose(clf.lower_bound_, ref.lower_bound_ - len(X) * shift, rtol=1e-9)


def test_clsst_small_units_toes():
    """TOES in micro-units: five components found, as in its own units."""
    from unlabeled.datasets import make_toes

    X, y, _ = make_toes(300, random_state=0)
    yy = np.where(np.arange(len(y)) % 10 == 0, y, -1)
    ref = CLSST(random_state=0).fit(X, yy)
    small = CLSST(random_state=0).fit(X * 1e-6, yy)
    assert small.n_components_ == ref.n_components_ > 1
    np.testing.assert_array_equal(small.predict(X * 1e-6), ref.predict(X))


@pytest.mark.parametrize(
    "params",
    [
        {"n_components": 40},  # CLSST*: forced births, O(n^2) work at n_components ~ n
        {"tol": 1e-300, "max_iter": 10**9},  # a run that never meets tol
        {"tol": 1e-300, "max_births": 10**6},  # births tried until the candidates run out
    ],
    ids=["n_components", "max_iter", "max_births"],
)
def test_clsst_work_is_capped_with_a_warning(clsst_data, params):
    """Before: no cap on the work of the whole fit (n_components=60 on 3,000 points ran
    60 s, n_components=3000 for hours; tol=1e-300 with a huge max_iter for ever)."""
    X, y, truth = clsst_data
    est = CLSST(random_state=0, max_component_sweeps=300, **params)
    with pytest.warns(ConvergenceWarning, match=r"max_component_sweeps=300") as record:
        est.fit(X, y)
    assert record[0].filename == __file__  # points at the caller of fit
    assert est.n_iter_ <= 300
    assert np.isfinite(est.lower_bound_)
    assert (est.predict(X) == truth).mean() > 0.9


def test_clsst_default_work_cap(clsst_data):
    """max_component_sweeps=None is a finite default cap, documented with its value."""
    assert CLSST().max_component_sweeps is None
    assert "None: 100,000" in " ".join(CLSST.__doc__.split())
    X, y, _ = clsst_data
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        CLSST(random_state=0).fit(X, y)  # a normal fit is far below it
    with pytest.raises(InvalidParameterError, match="max_component_sweeps"):
        CLSST(max_component_sweeps=0).fit(X, y)


# ---------------------------------------------------------------------------- random_state
def _pu_data():
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(2, 1, (60, 2)), rng.normal(2, 1, (30, 2)), rng.normal(-2, 1, (60, 2))]
    return X, np.r_[np.ones(60), np.zeros(90)]


PRIOR_ESTIMATORS = [priors.KM1, priors.KM2, priors.PenalizedL1, priors.ElkanNoto, priors.TIcE]


@pytest.mark.parametrize("make", [CLSST, *PRIOR_ESTIMATORS], ids=lambda c: c.__name__)
def test_random_state_validated_by_the_library(make, clsst_data):
    if make is CLSST:
        X, y, _ = clsst_data
        kw = {"init": "kmeans"}
    else:
        X, y = _pu_data()
        kw = {"n_bootstrap": 3}
    a = make(random_state=5, **kw).fit(X, y)
    b = make(random_state=np.random.RandomState(5), **kw).fit(X, y)
    attr = "transduction_" if make is CLSST else "prior_"
    np.testing.assert_array_equal(getattr(a, attr), getattr(b, attr))
    for bad in (np.random.default_rng(0), 1.5, "0", -1):
        with pytest.raises(InvalidParameterError, match="random_state"):
            make(random_state=bad).fit(X, y)


# ---------------------------------------------------------------------------- the priors
@pytest.mark.parametrize("make", PRIOR_ESTIMATORS, ids=lambda c: c.__name__)
def test_prior_fit_interrupted_in_the_bootstrap_leaves_it_as_it_was(monkeypatch, make):
    """Before: prior_, n_labeled_ and n_features_in_ of the new fit were kept beside the old
    interval when the bootstrap was interrupted."""
    X, s = _pu_data()
    est = make(random_state=0, n_bootstrap=3).fit(X[:, :1], s)
    before = dict(vars(est))
    raise_on_call(monkeypatch, make, "_estimate", 3, KeyboardInterrupt())
    with pytest.raises(KeyboardInterrupt):
        est.fit(X, s)
    assert_same_state(est, before)


def test_prior_bad_size_found_late_leaves_it_as_it_was():
    """Before: PenalizedL1's folds were checked against the points after n_features_in_ was
    reset."""
    X, s = _pu_data()
    est = priors.PenalizedL1(random_state=0).fit(X, s)
    before = dict(vars(est))
    with pytest.raises(ValueError, match="n_folds|fold"):
        est.set_params(n_folds=70).fit(X[:, :1], s)  # 60 positives
    before["n_folds"] = 70
    assert_same_state(est, before)


# ---------------------------------------------------------------------------- the autoencoder
def _pae(**kw):
    from unlabeled.generative import PlummerAutoencoder

    params = dict(hidden_layer_sizes=(8,), learning_rate=1e-3, batch_size=20, max_iter=5)
    return PlummerAutoencoder(**{**params, "device": "cpu", "random_state": 0, **kw})


def _weights(pae):
    return {
        name: {k: v.detach().clone() for k, v in getattr(pae, name).state_dict().items()}
        for name in ("encoder_", "decoder_")
    }


def _same_weights(a, b):
    for name in a:
        for k in a[name]:
            assert torch_equal(a[name][k], b[name][k]), (name, k)


def torch_equal(a, b):
    return bool((a == b).all())


@pytest.fixture(scope="module")
def pae_data():
    pytest.importorskip("torch")
    return np.random.default_rng(0).normal(size=(60, 3))


@pytest.mark.parametrize("warm_start", [False, True], ids=["refit", "warm_start"])
def test_pae_fit_interrupted_leaves_it_as_it_was(monkeypatch, pae_data, warm_start):
    """Before: a refit interrupted in training kept the new, half-trained networks (and a
    warm start's networks and Adam state were trained in place)."""
    from unlabeled.generative import import_torch_ops, pae_loss

    X = pae_data
    est = _pae(warm_start=warm_start).fit(X)
    before, weights = dict(vars(est)), _weights(est)
    adam = {k: v.clone() for k, v in est._optimizer.state_dict()["state"][0].items()}
    ops = import_torch_ops()
    calls = raise_on_call(monkeypatch, ops, "pae_loss", 3, KeyboardInterrupt())
    assert ops.pae_loss is not pae_loss
    with pytest.raises(KeyboardInterrupt):
        est.fit(X if warm_start else X[:, :2])
    assert calls[0] == 3
    assert_same_state(est, before)
    _same_weights(_weights(est), weights)
    after = est._optimizer.state_dict()["state"][0]
    assert all(torch_equal(after[k], v) for k, v in adam.items())
    monkeypatch.undo()
    if warm_start:  # and the warm start continues as if never interrupted
        again = _pae(warm_start=True).fit(X).fit(X)
        np.testing.assert_array_equal(est.fit(X).loss_history_, again.loss_history_)


@pytest.mark.parametrize(
    "params, scale, likely",
    [
        ({"scale_data": False}, 1e20, r"Likely here: the data's scale: features up to \S+e\+20"),
        ({}, 1e20, r"Likely here: the data's scale: the features' variances sum"),
        ({"eps": 1e-300}, 1.0, r"Likely here: eps=1e-300: below float32's smallest"),
        ({"lam": 1e36, "eps": 1e-8, "beta": 1.0}, 1.0, r"Likely here: lam=1e\+36"),
    ],
    ids=["unscaled", "scaled", "eps", "lam"],
)
def test_pae_divergence_names_the_likely_cause(pae_data, params, scale, likely):
    """Before: every divergence blamed learning_rate ("lower learning_rate"), also on
    features of 1e20, where lowering it changes nothing."""
    from unlabeled.generative import TrainingDivergedError

    est = _pae(max_iter=30, **params)
    with pytest.raises(TrainingDivergedError) as info:
        est.fit(pae_data * scale)
    message = str(info.value)
    for cause in ("learning_rate", "the data's scale", "eps", "beta", "lam"):
        assert cause in message
    assert "at training step" in message
    assert re.search(likely, message), message
    assert not hasattr(est, "encoder_")  # and nothing half-fitted


def test_pae_batch_memory_is_checked_before_the_work(pae_data):
    """Before: no guard; a batch_size of 10^6 on as many rows asked torch for 32 TB."""
    from unlabeled import config_context
    from unlabeled.exceptions import MemoryBudgetError

    X = np.random.default_rng(0).normal(size=(600, 2))
    est = _pae(batch_size=500)
    with config_context(max_dense_bytes=1e6):
        with pytest.raises(MemoryBudgetError, match=r"batch_size=500.*lower batch_size"):
            est.fit(X)
        assert not hasattr(est, "encoder_")
        _pae(batch_size=100).fit(X)  # 32 * 100^2 bytes: within the budget
    big = _pae(batch_size=10**6)
    with pytest.raises(MemoryBudgetError, match="batches of 600 codes"):  # min(batch, n)
        with config_context(max_dense_bytes=1e7):
            big.fit(X)


def test_pae_random_state_validated(pae_data):
    a = _pae(random_state=3).fit(pae_data)
    b = _pae(random_state=np.random.RandomState(3)).fit(pae_data)
    np.testing.assert_array_equal(a.loss_history_, b.loss_history_)
    for bad in (np.random.default_rng(0), 1.5, "0", -1):
        with pytest.raises(InvalidParameterError, match="random_state"):
            _pae(random_state=bad).fit(pae_data)
        with pytest.raises(InvalidParameterError, match="random_state"):
            a.sample(2, random_state=bad)  # before: NumPy's error, or a Generator's
    same = a.sample(3, random_state=np.random.RandomState(1))
    np.testing.assert_array_equal(a.sample(3, random_state=1), same)


def test_pae_huge_max_iter_refused_before_the_work(pae_data):
    """Before: max_iter=2**31 - 1 asked torch for 52 GB of loss history at the start (a raw
    allocator error, or swapping)."""
    from unlabeled.exceptions import MemoryBudgetError

    est = _pae(max_iter=2**31 - 1)
    with pytest.raises(MemoryBudgetError, match="max_iter=2,147,483,647.*lower max_iter"):
        est.fit(pae_data)
    assert not hasattr(est, "encoder_")


def test_pae_batch_memory_checked_against_the_gpu(pae_data, monkeypatch):
    """On CUDA, the batch's MMD is checked against the device's free memory too (simulated
    here: torch's report of free memory replaced)."""
    import torch

    from unlabeled.exceptions import MemoryBudgetError

    est = _pae(batch_size=100)
    monkeypatch.setattr(torch.cuda, "mem_get_info", lambda dev=None: (1000, 2000))
    with pytest.raises(MemoryBudgetError, match=r"on cuda:0: .* free on the device; lower batch"):
        est._check_batch_memory(100, torch, torch.device("cuda:0"))
    est._check_batch_memory(100, torch, torch.device("cpu"))  # the host's check is fit's


def test_clsst_work_cap_in_the_first_run(clsst_data):
    """The cap reached before any birth: the message says so, the model is usable."""
    X, y, truth = clsst_data
    with pytest.warns(ConvergenceWarning, match=r"max_component_sweeps=20\).*before any birth"):
        est = CLSST(random_state=0, max_component_sweeps=20, tol=1e-300).fit(X, y)
    assert est.n_births_ == 0 and (est.predict(X) == truth).mean() > 0.9


def test_pae_diverged_refit_keeps_the_fitted_model(pae_data):
    """Before: a refit that diverged kept the NaN networks of the failed run."""
    from unlabeled.generative import TrainingDivergedError

    est = _pae().fit(pae_data)
    before, weights = dict(vars(est)), _weights(est)
    Z = est.transform(pae_data)
    with pytest.raises(TrainingDivergedError):
        est.set_params(eps=1e-300).fit(pae_data)
    before["eps"] = 1e-300
    assert_same_state(est, before)
    _same_weights(_weights(est), weights)
    np.testing.assert_array_equal(est.transform(pae_data), Z)
