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
from unlabeled.metrics import (  # noqa: E402
    prior_sensitivity,
    pu_precision_recall_curve,
    pu_roc_curve,
)
from unlabeled.plotting import (  # noqa: E402
    plot_autoencoder_samples,
    plot_clsst_components,
    plot_decision_boundary,
    plot_loss_history,
    plot_prior_intervals,
    plot_prior_sensitivity,
    plot_pu_precision_recall_curve,
    plot_pu_roc_curve,
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


@pytest.fixture(scope="module")
def pu_scores():
    rng = np.random.default_rng(0)
    s = np.r_[np.ones(40, int), np.zeros(160, int)]
    return s, np.r_[rng.normal(1, 1, 88), rng.normal(0, 1, 112)]  # 48 of the 160 positive


def test_pu_curves_draw_the_corrected_curves_and_their_band(pu_scores):
    from types import SimpleNamespace

    s, score = pu_scores
    s0, score0 = s.copy(), score.copy()
    ax = plot_pu_roc_curve(s, score, 0.3)
    _labelled(ax)
    fpr, tpr, _ = pu_roc_curve(s, score, 0.3)
    corrected = [ln for ln in ax.lines if ln.get_label() == "corrected"][0]
    np.testing.assert_allclose(corrected.get_xdata(), fpr)
    np.testing.assert_allclose(corrected.get_ydata(), tpr)
    assert not ax.collections  # no interval, no band
    # a fitted estimator's prior_ and prior_interval_: the band between the two curves
    fitted = SimpleNamespace(prior_=0.3, prior_interval_=(0.2, 0.4))
    ax = plot_pu_roc_curve(s, score, fitted, label="mine")
    assert len(ax.collections) == 1 and "mine" in [t.get_text() for t in ax.get_legend().texts]
    ax = plot_pu_precision_recall_curve(s, score, fitted)
    _labelled(ax)
    prec, rec, _ = pu_precision_recall_curve(s, score, 0.3)
    curve = [ln for ln in ax.lines if ln.get_label() == "corrected"][0]
    np.testing.assert_allclose(curve.get_ydata(), prec)
    np.testing.assert_allclose(curve.get_xdata(), rec)
    assert len(ax.collections) == 1
    np.testing.assert_array_equal(s, s0)
    np.testing.assert_array_equal(score, score0)


def test_prior_sensitivity_plot(pu_scores):
    s, score = pu_scores
    auc = prior_sensitivity(s, score, "roc-auc", (0.2, 0.4), num=5)
    ap = prior_sensitivity(s, score, "average-precision", [0.2, 0.3, 0.4])
    ax = plot_prior_sensitivity({"AUC": auc, "AP": ap})
    _labelled(ax)
    assert [t.get_text().split(":")[0] for t in ax.get_legend().texts] == ["AUC", "AP"]
    np.testing.assert_allclose(ax.lines[0].get_ydata(), auc.values)
    assert len(ax.collections) == 2  # one band per metric
    assert plot_prior_sensitivity(auc).get_legend().texts[0].get_text().startswith("roc-auc")


@pytest.mark.parametrize(
    ("call", "err", "match"),
    [
        (lambda s, f: plot_pu_roc_curve(s, f, 1.5), ValueError, "prior must be in"),
        (lambda s, f: plot_pu_roc_curve(s, f, "auto"), TypeError, "prior must be a number"),
        (
            lambda s, f: plot_pu_precision_recall_curve(s, f, 0.3, prior_interval=(0.2, 1.0)),
            ValueError,
            "prior_interval",
        ),
        (lambda s, f: plot_prior_sensitivity([]), ValueError, "results is empty"),
        (lambda s, f: plot_prior_sensitivity({"x": 0.3}), TypeError, "PriorSensitivity"),
    ],
)
def test_pu_plot_errors(pu_scores, call, err, match):
    with pytest.raises(err, match=match):
        call(*pu_scores)


def test_import_does_not_load_matplotlib():
    code = (
        "import sys, unlabeled, unlabeled.plotting; "
        "assert 'matplotlib' not in sys.modules, 'matplotlib imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
