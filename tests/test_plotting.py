"""unlabeled.plotting: each helper draws a figure with labelled axes and modifies nothing."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from conftest import is_prior, registered  # noqa: E402

from unlabeled import PUSVC, WellSVMClustering  # noqa: E402
from unlabeled.datasets import make_cake, make_pu_labels  # noqa: E402
from unlabeled.plotting import (  # noqa: E402
    plot_autoencoder_samples,
    plot_clsst_components,
    plot_decision_boundary,
    plot_loss_history,
    plot_prior_intervals,
)
from unlabeled.pu.priors import TIcE  # noqa: E402
from unlabeled.ssl import CLSST  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _labelled(ax):
    assert ax.get_title()
    assert ax.get_xlabel()
    assert ax.get_ylabel()


@pytest.fixture(scope="module")
def cake():
    X, y = make_cake(300, random_state=0)
    y_semi = np.full(300, -1)
    y_semi[:12] = y[:12]
    return X, y_semi


def test_clsst_components(cake):
    X, y = cake
    clf = CLSST(random_state=0).fit(X, y)
    X0, means0 = X.copy(), clf.means_.copy()
    ax = plot_clsst_components(clf, X)
    _labelled(ax)
    assert len(ax.patches) == clf.n_components_  # one ellipse per cluster
    np.testing.assert_array_equal(X, X0)
    np.testing.assert_array_equal(clf.means_, means0)
    assert plot_loss_history(clf).get_ylabel() == "variational lower bound"


def test_decision_boundary_draws_on_given_axes(cake):
    X, y = cake
    s = make_pu_labels(np.where(y == -1, 0, y), 0.5, random_state=0)
    s[:20] = 1
    clf = PUSVC(prior=0.5).fit(X, s)
    X0, s0 = X.copy(), s.copy()
    fig, ax = plt.subplots()
    assert plot_decision_boundary(clf, X, s, ax=ax, grid_resolution=30) is ax
    _labelled(ax)
    assert ax.collections  # the contours and the points
    np.testing.assert_array_equal(X, X0)
    np.testing.assert_array_equal(s, s0)


def test_objective_history_and_refusals(cake):
    X, _ = cake
    clu = WellSVMClustering(gamma=0.5, random_state=0).fit(X)
    ax = plot_loss_history(clu)
    _labelled(ax)
    assert ax.get_ylabel() == "objective"
    with pytest.raises(ValueError, match="no history"):
        plot_loss_history(PUSVC(prior=0.5))
    with pytest.raises(ValueError, match="2 columns"):
        plot_decision_boundary(clu, X[:, :1])


def test_prior_intervals():
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(1.5, 1, (150, 2)), rng.normal(-1.5, 1, (150, 2))]
    s = np.zeros(300, dtype=int)
    s[:60] = 1
    X0 = X.copy()
    # every class-prior estimator, in the registry's order reversed: the labels keep the dict's
    ests = {c.__name__: c(n_bootstrap=5, random_state=0).fit(X, s) for c in registered(is_prior)}
    ests = dict(reversed(ests.items()))
    ax = plot_prior_intervals(ests, true_prior=90 / 240)
    _labelled(ax)
    assert [t.get_text() for t in ax.get_yticklabels()] == list(ests)
    np.testing.assert_array_equal(X, X0)
    with pytest.raises(ValueError, match="fit"):
        plot_prior_intervals([TIcE()])


def test_autoencoder_samples_and_loss():
    pytest.importorskip("torch")
    from unlabeled import PlummerAutoencoder
    from unlabeled.generative import make_gaussian_grid

    X, _ = make_gaussian_grid(200, random_state=0)
    X0 = X.copy()
    pae = PlummerAutoencoder(
        hidden_layer_sizes=(16,), max_iter=20, batch_size=100, random_state=0, n_jobs=1
    ).fit(X)
    ax = plot_autoencoder_samples(pae, X, n_samples=100)
    _labelled(ax)
    np.testing.assert_array_equal(X, X0)
    ax = plot_loss_history(pae, log=False)
    _labelled(ax)
    assert len(ax.lines) == 3  # loss, reconstruction, MMD


def test_import_does_not_load_matplotlib():
    code = (
        "import sys, unlabeled, unlabeled.plotting; "
        "assert 'matplotlib' not in sys.modules, 'matplotlib imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
