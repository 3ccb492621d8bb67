"""The Plummer autoencoder's bounds: the latent dimension, the
networks' memory, the number of samples and text in the data are refused with an error that
names the argument, before any work."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the PAE tests need torch: pip install '.[torch]'")

from unlabeled import config_context  # noqa: E402
from unlabeled.exceptions import InvalidParameterError, MemoryBudgetError  # noqa: E402
from unlabeled.generative import PlummerAutoencoder  # noqa: E402

X = np.random.default_rng(0).normal(size=(60, 3))


def _pae(**kw):
    params = dict(hidden_layer_sizes=(8,), learning_rate=1e-3, batch_size=20, max_iter=3)
    return PlummerAutoencoder(**{**params, "device": "cpu", "random_state": 0, **kw})


@pytest.fixture(scope="module")
def fitted():
    return _pae().fit(X)


# ---------------------------------------------------------------------------- n_components
def test_n_components_above_n_features_refused_before_the_work():
    """Before: n_components=10**6 ran past 120 s (a step's kernel sums loop over the latent
    coordinates); codes of 3-dimensional data can never be uniform in more dimensions."""
    for h in (10**6, 4):
        est = _pae(n_components=h)
        with pytest.raises(ValueError, match=rf"n_components={h:,} > n_features = 3"):
            est.fit(X)
        assert not hasattr(est, "encoder_")
    assert _pae(n_components=3).fit(X).transform(X).shape == (60, 3)


# ---------------------------------------------------------------------------- network memory
def test_huge_hidden_layer_refused_before_the_work():
    """Before: hidden_layer_sizes=(10**9,) ended in a raw torch allocation error."""
    est = _pae(hidden_layer_sizes=(10**9,))
    # 3 x 1e9 + 1e9 + 1e9 x 2 + 2 (encoder), 2 x 1e9 + 1e9 + 1e9 x 3 + 3 (decoder)
    with pytest.raises(
        MemoryBudgetError,
        match=r"hidden_layer_sizes=\(1000000000,\).* "
        r"12,000,000,005 parameters.*lower hidden_layer_sizes",
    ):
        est.fit(X)
    assert not hasattr(est, "encoder_")


def test_network_memory_counts_the_parameters_torch_builds():
    """The parameters counted before the networks exist are those torch then holds, and
    training needs 16 bytes for each (weight, gradient, two Adam moments)."""
    sizes = (40, 30)
    m = _pae(hidden_layer_sizes=sizes).fit(X)
    n_params = sum(p.numel() for net in (m.encoder_, m.decoder_) for p in net.parameters())
    with config_context(max_dense_bytes=16 * n_params):  # the parameters fit, not the batch
        with pytest.raises(MemoryBudgetError, match=rf" {n_params:,} parameters, trained"):
            _pae(hidden_layer_sizes=sizes).fit(X)
    with config_context(max_dense_bytes=16 * n_params + 10**6):
        _pae(hidden_layer_sizes=sizes).fit(X)
    with config_context(max_dense_bytes=7e5):  # a warm start trains copies: twice as much
        refit = _pae(hidden_layer_sizes=(100, 100), warm_start=True)
        refit.fit(X)
        with pytest.raises(MemoryBudgetError, match="hidden_layer_sizes"):
            refit.fit(X)


def test_too_many_hidden_layers_refused():
    """Before: 10**6 one-unit layers were each checked, then built as torch modules: minutes."""
    with pytest.raises(InvalidParameterError, match="hidden_layer_sizes must have at most 1000"):
        _pae(hidden_layer_sizes=(1,) * 10**6).fit(X)
    _pae(hidden_layer_sizes=(2,) * 5).fit(X)


# ---------------------------------------------------------------------------- sample
def test_huge_sample_refused_before_the_work(fitted):
    """Before: sample(2**31 - 1) ended in a raw 32 GiB MemoryError."""
    with pytest.raises(MemoryBudgetError, match=r"sample\(n_samples=2,147,483,647\).*n_samples"):
        fitted.sample(2**31 - 1)
    with config_context(max_dense_bytes=8 * 100 * (2 + 3)):  # noise and samples, float64
        assert fitted.sample(100, random_state=0).shape == (100, 3)
        with pytest.raises(MemoryBudgetError, match="n_samples=101"):
            fitted.sample(101, random_state=0)


def test_decoded_output_within_the_budget(fitted):
    Z = np.zeros((1000, 2))
    with config_context(max_dense_bytes=8 * 1000 * 3 - 1):
        with pytest.raises(MemoryBudgetError, match="output of 1,000 rows x 3 columns"):
            fitted.inverse_transform(Z)
    np.testing.assert_array_equal(
        fitted.inverse_transform(Z)[0], fitted.inverse_transform(Z[:1])[0]
    )


# ---------------------------------------------------------------------------- text in X
def _with_text(kind):
    A = X.astype(object)
    A[3, 1] = "abc"
    if kind == "str":
        return A.astype(str)
    if kind == "list":
        return A.tolist()
    if kind == "frame":
        pd = pytest.importorskip("pandas")
        return pd.DataFrame(A, columns=["a", "b", "c"])
    return A


@pytest.mark.parametrize("kind", ["str", "list", "object", "frame"])
def test_text_in_x_is_named(fitted, kind):
    """Before: NumPy's "could not convert string to float", naming neither X nor the fix."""
    A = _with_text(kind)
    with pytest.raises(ValueError, match=r"X holds 'abc' \(str\): the features must be numbers"):
        _pae().fit(A)
    with pytest.raises(ValueError, match=r"X holds 'abc'"):
        fitted.transform(A)
    Z = np.zeros((2, 2)).astype(object)
    Z[1, 0] = "z"
    with pytest.raises(ValueError, match=r"Z holds 'z'"):
        fitted.inverse_transform(Z)
    numbers = X.astype(str)  # numbers as text are read as scikit-learn reads them
    np.testing.assert_array_equal(fitted.transform(numbers), fitted.transform(X))
