"""Plots of fitted estimators, for looking rather than reading (matplotlib, an optional extra).

Every function takes a fitted estimator and, where it needs them, the data it was fitted on
(the PU evaluation plots take PU labels, scores and a prior, as :mod:`unlabeled.metrics`),
draws on the matplotlib axes ``ax`` (a new figure's when None) and returns those axes, with
their title and axis labels set. Nothing passed in is modified. matplotlib is imported only
when a function is called, so that ``import unlabeled`` and ``import unlabeled.plotting`` do
not need it; install it with ``pip install matplotlib`` (it comes with the ``docs``, ``test``
and ``bench`` extras).

Examples
--------
>>> import matplotlib
>>> matplotlib.use("Agg")
>>> import numpy as np
>>> from unlabeled.ssl import CLSST
>>> from unlabeled.datasets import make_cake
>>> from unlabeled.plotting import plot_clsst_components
>>> X, y = make_cake(300, random_state=0)
>>> y_semi = np.full(300, -1)
>>> y_semi[:10] = y[:10]
>>> ax = plot_clsst_components(CLSST(random_state=0).fit(X, y_semi), X)
>>> ax.get_title()
'CLSST: 3 clusters'
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .metrics import (
    pu_average_precision_score,
    pu_precision_recall_curve,
    pu_roc_auc_score,
    pu_roc_curve,
)

if TYPE_CHECKING:  # matplotlib is optional: only for the annotations
    from matplotlib.axes import Axes

__all__ = [
    "plot_autoencoder_samples",
    "plot_clsst_components",
    "plot_decision_boundary",
    "plot_loss_history",
    "plot_prior_intervals",
    "plot_prior_sensitivity",
    "plot_pu_precision_recall_curve",
    "plot_pu_roc_curve",
]

#: the fitted histories that :func:`plot_loss_history` draws, in order of preference, with
#: the label of their y axis
_HISTORIES = (
    ("loss_history_", "training loss"),
    ("objective_history_", "objective"),
    ("objective_path_", "objective"),
    ("lower_bound_history_", "variational lower bound"),
)


def _axes(ax: Axes | None) -> Axes:
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("unlabeled.plotting needs matplotlib: pip install matplotlib") from exc
    if ax is None:
        _, ax = plt.subplots()
    return ax


def _labelled(ax: Axes, title: str, x: str = "feature 0", y: str = "feature 1") -> Axes:
    """``ax`` with its title and axis labels set."""
    ax.set_xlabel(x)
    ax.set_ylabel(y)
    ax.set_title(title)
    return ax


def _two_columns(X: Any, name: str = "X") -> np.ndarray:
    X = np.asarray(X, dtype=float)
    if X.ndim != 2 or X.shape[1] < 2:
        raise ValueError(f"{name} must be a 2-D array with at least 2 columns, got {X.shape}")
    return X


def _fitted(est: Any, attributes: tuple[str, ...], what: str) -> None:
    missing = [a for a in attributes if not hasattr(est, a)]
    if missing:
        raise ValueError(
            f"{what} needs a fitted estimator with {', '.join(missing)}; "
            f"got {type(est).__name__} without it (call fit first)"
        )


def plot_decision_boundary(
    estimator: Any,
    X: Any,
    y: Any = None,
    *,
    ax: Axes | None = None,
    grid_resolution: int = 200,
    margin: float = 0.5,
    levels: tuple[float, ...] = (0.0,),
    title: str | None = None,
    names: dict[Any, str] | None = None,
) -> Axes:
    """Draw a fitted binary classifier's ``decision_function`` over 2-D data.

    The decision values are shown as a diverging colour map on a grid covering ``X``, the
    lines ``f(x) = level`` for each of ``levels`` in black, and the points of ``X`` on top,
    coloured by ``y`` when it is given.

    Parameters
    ----------
    estimator : fitted estimator with ``decision_function``
        Fitted on 2-D data (two features).
    X : array-like of shape (n_samples, 2)
        The points to draw; the grid covers them.
    y : array-like of shape (n_samples,), default=None
        Labels to colour the points by (any values; -1 is drawn as unlabeled, in grey).
    ax : matplotlib Axes, default=None
        Where to draw; a new figure's axes when None.
    grid_resolution : int, default=200
        Grid points per axis.
    margin : float, default=0.5
        How far the grid extends beyond the data, in units of the data.
    levels : tuple of float, default=(0.0,)
        Decision values drawn as contour lines.
    title : str, default=None
        The axes' title; the estimator's class name when None.
    names : dict, default=None
        The legend's name for each value of ``y`` (``{1: "labeled positive"}``); the value
        itself when missing.

    Returns
    -------
    ax : matplotlib Axes

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> import numpy as np
    >>> from unlabeled import PUSVC
    >>> from unlabeled.plotting import plot_decision_boundary
    >>> rng = np.random.default_rng(0)
    >>> X = np.r_[rng.normal(1, 1, (40, 2)), rng.normal(-1, 1, (40, 2))]
    >>> s = np.r_[np.ones(15, int), np.zeros(65, int)]
    >>> clf = PUSVC(0.5).fit(X, s)
    >>> ax = plot_decision_boundary(clf, X, s, grid_resolution=50, names={1: "labeled"})
    >>> ax.get_title()
    'PUSVC'
    >>> plt.close(ax.figure)
    """
    ax = _axes(ax)
    X = _two_columns(X)
    x0 = np.linspace(X[:, 0].min() - margin, X[:, 0].max() + margin, grid_resolution)
    x1 = np.linspace(X[:, 1].min() - margin, X[:, 1].max() + margin, grid_resolution)
    g0, g1 = np.meshgrid(x0, x1)
    f = np.asarray(estimator.decision_function(np.c_[g0.ravel(), g1.ravel()]), dtype=float)
    f = f.reshape(g0.shape)
    bound = float(np.nanmax(np.abs(f))) or 1.0
    ax.contourf(g0, g1, f, levels=20, cmap="RdBu_r", vmin=-bound, vmax=bound, alpha=0.35)
    ax.contour(g0, g1, f, levels=sorted(levels), colors="k", linewidths=1.5)
    if y is None:
        ax.scatter(X[:, 0], X[:, 1], s=12, c="k", alpha=0.6)
    else:
        y = np.asarray(y)
        unlabeled = np.asarray(y == -1) if y.dtype.kind in "iuf" else np.zeros(len(y), bool)
        ax.scatter(X[unlabeled, 0], X[unlabeled, 1], s=8, c="0.6", alpha=0.5, label="unlabeled")
        for value in np.unique(y[~unlabeled]):
            pts = X[~unlabeled][y[~unlabeled] == value]
            name = (names or {}).get(value, str(value))
            ax.scatter(pts[:, 0], pts[:, 1], s=16, edgecolors="k", linewidths=0.3, label=name)
        ax.legend(loc="best", fontsize="small")
    return _labelled(ax, title if title is not None else type(estimator).__name__)


def plot_clsst_components(
    clsst: Any, X: Any, *, ax: Axes | None = None, n_std: float = 2.0
) -> Axes:
    """Draw a fitted CLSST's clusters on 2-D data: points, means and covariance ellipses.

    Each point is coloured by its cluster (``predict_cluster``); each cluster's covariance
    ``Lambda_s Lambda_s' + Psi`` is drawn as the ellipse of ``n_std`` standard deviations,
    in the colour of the class it is most associated with (``class_association_``), and its
    mean is annotated with that class and the association's weight.

    Parameters
    ----------
    clsst : fitted :class:`unlabeled.ssl.CLSST`
        Fitted on data with two features.
    X : array-like of shape (n_samples, 2)
        The points to draw.
    ax : matplotlib Axes, default=None
        Where to draw; a new figure's axes when None.
    n_std : float, default=2.0
        Size of the ellipses, in standard deviations.

    Returns
    -------
    ax : matplotlib Axes

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> import numpy as np
    >>> from unlabeled.datasets import make_cake
    >>> from unlabeled.plotting import plot_clsst_components
    >>> from unlabeled.ssl import CLSST
    >>> X, y = make_cake(300, random_state=0)
    >>> y_semi = np.where(np.arange(300) < 10, y, -1)
    >>> ax = plot_clsst_components(CLSST(random_state=0).fit(X, y_semi), X)
    >>> ax.get_title()
    'CLSST: 3 clusters'
    >>> plt.close(ax.figure)
    """
    from matplotlib.patches import Ellipse

    ax = _axes(ax)
    _fitted(clsst, ("means_", "loadings_", "noise_variance_", "class_association_"), "CLSST")
    X = _two_columns(X)
    if clsst.means_.shape[1] != 2:
        raise ValueError(f"the CLSST was fitted on {clsst.means_.shape[1]} features, not 2")
    clusters = np.asarray(clsst.predict_cluster(X))
    colours = [f"C{k % 10}" for k in range(len(clsst.classes_))]
    noise = np.asarray(clsst.noise_variance_, dtype=float)
    ax.scatter(X[:, 0], X[:, 1], c=clusters, cmap="tab20", s=8, alpha=0.6)
    for s, mean in enumerate(clsst.means_):
        L = np.asarray(clsst.loadings_[s], dtype=float).reshape(2, -1)
        psi = noise[s] if noise.ndim == 2 else noise
        cov = L @ L.T + np.diag(np.broadcast_to(psi, (2,)))
        vals, vecs = np.linalg.eigh(cov)
        angle = float(np.degrees(np.arctan2(vecs[1, -1], vecs[0, -1])))
        width, height = 2 * n_std * np.sqrt(np.maximum(vals[::-1], 0.0))
        k = int(np.argmax(clsst.class_association_[s]))
        ax.add_patch(Ellipse(mean, width, height, angle=angle, fill=False, lw=2, color=colours[k]))
        ax.plot(*mean, marker="x", color="k", ms=8)
        ax.annotate(
            f"{clsst.classes_[k]} ({clsst.class_association_[s, k]:.2f})",
            mean,
            textcoords="offset points",
            xytext=(4, 4),
            fontsize="small",
        )
    return _labelled(ax, f"CLSST: {clsst.n_components_} clusters")


def plot_autoencoder_samples(
    autoencoder: Any,
    X: Any,
    *,
    n_samples: int = 2000,
    ax: Axes | None = None,
    random_state: int | None = 0,
) -> Axes:
    """Draw a fitted autoencoder's samples over the training data (first two features).

    Parameters
    ----------
    autoencoder : fitted :class:`unlabeled.PlummerAutoencoder`
        Any fitted generator with ``sample(n_samples, random_state=...)``.
    X : array-like of shape (n_samples, n_features)
        The data, drawn in grey (``n_features >= 2``; the first two are drawn).
    n_samples : int, default=2000
        How many samples to draw.
    ax : matplotlib Axes, default=None
        Where to draw; a new figure's axes when None.
    random_state : int or None, default=0
        Seed of the latent noise.

    Returns
    -------
    ax : matplotlib Axes

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> import numpy as np
    >>> from unlabeled.generative import PlummerAutoencoder
    >>> from unlabeled.plotting import plot_autoencoder_samples
    >>> X = np.random.default_rng(0).normal(size=(100, 2))
    >>> pae = PlummerAutoencoder(hidden_layer_sizes=16, max_iter=20, random_state=0).fit(X)
    >>> ax = plot_autoencoder_samples(pae, X, n_samples=200)
    >>> ax.get_title()
    'PlummerAutoencoder: 200 samples'
    >>> plt.close(ax.figure)
    """
    ax = _axes(ax)
    X = _two_columns(X)
    S = np.asarray(autoencoder.sample(n_samples, random_state=random_state), dtype=float)
    ax.scatter(X[:, 0], X[:, 1], s=4, c="0.7", alpha=0.5, label="data")
    ax.scatter(S[:, 0], S[:, 1], s=4, c="C3", alpha=0.5, label="samples")
    ax.legend(loc="best", fontsize="small", markerscale=3)
    return _labelled(ax, f"{type(autoencoder).__name__}: {n_samples} samples")


def plot_loss_history(estimator: Any, *, ax: Axes | None = None, log: bool = False) -> Axes:
    """Draw a fitted estimator's history: its loss, objective or bound per iteration.

    The first of ``loss_history_`` (the autoencoder, with ``reconstruction_history_`` and
    ``mmd_history_`` when present), ``objective_history_`` (the cutting planes of WellSVM and
    its multi-instance and clustering variants), ``objective_path_`` (RampPU's CCCP rounds)
    and ``lower_bound_history_`` (CLSST) that the estimator has.

    Parameters
    ----------
    estimator : fitted estimator
        With one of the histories above.
    ax : matplotlib Axes, default=None
        Where to draw; a new figure's axes when None.
    log : bool, default=False
        A logarithmic y axis (for a positive loss).

    Returns
    -------
    ax : matplotlib Axes

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> import numpy as np
    >>> from unlabeled.generative import PlummerAutoencoder
    >>> from unlabeled.plotting import plot_loss_history
    >>> X = np.random.default_rng(0).normal(size=(100, 2))
    >>> pae = PlummerAutoencoder(hidden_layer_sizes=16, max_iter=20, random_state=0).fit(X)
    >>> ax = plot_loss_history(pae, log=True)
    >>> ax.get_title(), len(ax.lines)   # the loss and its two terms
    ('PlummerAutoencoder: loss_history_', 3)
    >>> plt.close(ax.figure)
    """
    found = [(n, label) for n, label in _HISTORIES if hasattr(estimator, n)]
    if not found:
        raise ValueError(
            f"{type(estimator).__name__} has no history to plot: fit it first, or use an "
            f"estimator with one of {', '.join(n for n, _ in _HISTORIES)}"
        )
    name, ylabel = found[0]
    ax = _axes(ax)
    values = np.asarray(getattr(estimator, name), dtype=float).ravel()
    steps = np.arange(1, values.size + 1)
    ax.plot(steps, values, marker="o" if values.size <= 50 else None, label=name.rstrip("_"))
    if name == "loss_history_":
        for extra in ("reconstruction_history_", "mmd_history_"):
            if hasattr(estimator, extra):
                more = np.asarray(getattr(estimator, extra), dtype=float).ravel()
                ax.plot(np.arange(1, more.size + 1), more, lw=1, label=extra.rstrip("_"))
        ax.legend(loc="best", fontsize="small")
    if log:
        ax.set_yscale("log")
    return _labelled(ax, f"{type(estimator).__name__}: {name}", "iteration", ylabel)


def plot_prior_intervals(
    estimators: Any,
    *,
    true_prior: float | None = None,
    ax: Axes | None = None,
) -> Axes:
    """Draw class-prior estimates with their bootstrap intervals, one row per estimator.

    Parameters
    ----------
    estimators : dict of str to fitted prior estimator, or list of them
        Fitted estimators of :mod:`unlabeled.pu.priors` (``prior_``, and
        ``prior_interval_`` when fitted with ``n_bootstrap > 0``); a list is labelled by the
        class names.
    true_prior : float, default=None
        Drawn as a vertical line when given.
    ax : matplotlib Axes, default=None
        Where to draw; a new figure's axes when None.

    Returns
    -------
    ax : matplotlib Axes

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> import numpy as np
    >>> from unlabeled.plotting import plot_prior_intervals
    >>> from unlabeled.pu.priors import ElkanNoto
    >>> rng = np.random.default_rng(0)
    >>> X = np.r_[rng.normal(2, 1, (130, 2)), rng.normal(-2, 1, (70, 2))]
    >>> s = np.r_[np.ones(100), np.zeros(100)]        # 30 of the 100 unlabeled are positive
    >>> est = ElkanNoto(cv=3, n_bootstrap=5, random_state=0).fit(X, s)
    >>> ax = plot_prior_intervals({"Elkan-Noto": est}, true_prior=0.3)
    >>> [t.get_text() for t in ax.get_yticklabels()]
    ['Elkan-Noto']
    >>> plt.close(ax.figure)
    """
    if not isinstance(estimators, dict):
        estimators = {type(e).__name__: e for e in estimators}
    for name, est in estimators.items():
        _fitted(est, ("prior_",), f"plot_prior_intervals ({name})")
    ax = _axes(ax)
    names = list(estimators)
    for row, name in enumerate(names):
        est = estimators[name]
        interval = getattr(est, "prior_interval_", None)
        if interval is not None:
            lo, hi = (float(v) for v in interval)
            ax.plot([lo, hi], [row, row], color=f"C{row % 10}", lw=3, alpha=0.6)
        ax.plot(float(est.prior_), row, "o", color=f"C{row % 10}", ms=8)
    if true_prior is not None:
        ax.axvline(true_prior, color="k", ls="--", lw=1, label="true prior")
        ax.legend(loc="best", fontsize="small")
    ax.set_yticks(range(len(names)))
    ax.set_yticklabels(names)
    ax.set_ylim(-0.5, len(names) - 0.5)
    title = "Class-prior estimates and bootstrap intervals"
    return _labelled(ax, title, "class prior among the unlabeled points", "estimator")


# ------------------------------------------------------------------ evaluation from PU data
def _prior_and_interval(prior: Any, prior_interval: Any) -> tuple[float, tuple | None]:
    """The prior (a number or a fitted estimator's ``prior_``) and the interval (given, or
    the estimator's ``prior_interval_``), checked."""
    if hasattr(prior, "prior_"):
        if prior_interval is None:
            prior_interval = getattr(prior, "prior_interval_", None)
        prior = prior.prior_
    if isinstance(prior, bool) or not isinstance(prior, int | float | np.floating):
        raise TypeError(
            f"prior must be a number in (0, 1) or a fitted estimator with prior_, got {prior!r}"
        )
    prior = float(prior)
    if not 0 < prior < 1:
        raise ValueError(f"prior must be in (0, 1), got {prior!r}")
    if prior_interval is not None:
        if hasattr(prior_interval, "prior_interval_"):
            prior_interval = prior_interval.prior_interval_
        lo, hi = sorted(float(p) for p in prior_interval)
        if not 0 < lo <= hi < 1:
            raise ValueError(f"prior_interval must lie in (0, 1), got {prior_interval!r}")
        prior_interval = (lo, hi)
    return prior, prior_interval


def plot_pu_roc_curve(
    s: Any,
    y_score: Any,
    prior: Any,
    *,
    prior_interval: Any = None,
    sample_weight: Any = None,
    ax: Axes | None = None,
    label: str | None = None,
) -> Axes:
    """Draw the ROC curve of positives against negatives estimated from PU labels.

    The corrected curve of :func:`unlabeled.metrics.pu_roc_curve` at ``prior``, shaded
    between the curves at the ends of ``prior_interval`` (the false positive rate depends on
    the prior, the true positive rate does not), over the uncorrected curve of the labeled
    positives against the unlabeled points (dashed) and the diagonal of chance (dotted).

    Parameters
    ----------
    s : array-like of shape (n_samples,)
        PU labels: 1 = labeled positive, 0 or -1 = unlabeled.
    y_score : array-like of shape (n_samples,)
        Scores, higher meaning more likely positive, held out from the fit.
    prior : float in (0, 1) or fitted estimator
        The share of positives among the unlabeled points, or an estimator with ``prior_``
        (``PUSVC(prior="auto")``, :mod:`unlabeled.pu.priors`), whose ``prior_interval_`` is
        then the default interval.
    prior_interval : (lo, hi), fitted estimator or None, default=None
        The priors whose curves bound the band; none drawn when None (and ``prior`` has no
        ``prior_interval_``).
    sample_weight : array-like of shape (n_samples,), default=None
        Weights of the points.
    ax : matplotlib Axes, default=None
        Where to draw; a new figure's axes when None.
    label : str, default=None
        The legend's name of the corrected curve ("corrected" when None).

    Returns
    -------
    ax : matplotlib Axes

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> import numpy as np
    >>> from unlabeled.plotting import plot_pu_roc_curve
    >>> rng = np.random.default_rng(0)
    >>> s = np.r_[np.ones(50, int), np.zeros(200, int)]
    >>> score = np.r_[rng.normal(1, 1, 110), rng.normal(0, 1, 140)]  # 60 of U positive
    >>> ax = plot_pu_roc_curve(s, score, 0.3, prior_interval=(0.25, 0.35))
    >>> ax.get_title()
    'ROC from PU data: AUC 0.818 at prior 0.3'
    >>> plt.close(ax.figure)
    """
    prior, interval = _prior_and_interval(prior, prior_interval)
    fpr, tpr, _ = pu_roc_curve(s, y_score, prior, sample_weight=sample_weight)
    auc = pu_roc_auc_score(s, y_score, prior, sample_weight=sample_weight)
    ax = _axes(ax)
    if interval is not None:
        lo = pu_roc_curve(s, y_score, interval[0], sample_weight=sample_weight)[0]
        hi = pu_roc_curve(s, y_score, interval[1], sample_weight=sample_weight)[0]
        band = f"prior in [{interval[0]:.3g}, {interval[1]:.3g}]"
        ax.fill_betweenx(tpr, np.minimum(lo, hi), np.maximum(lo, hi), alpha=0.25, label=band)
    # the uncorrected curve: every unlabeled point counted as a negative
    unlabeled = pu_roc_curve(s, y_score, 1e-12, sample_weight=sample_weight)[0]
    ax.plot(unlabeled, tpr, ls="--", color="0.5", lw=1, label="labeled vs unlabeled")
    ax.plot(fpr, tpr, color="C0", lw=2, label=label or "corrected")
    ax.plot([0, 1], [0, 1], ls=":", color="k", lw=1)
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.01)
    ax.legend(loc="lower right", fontsize="small")
    title = f"ROC from PU data: AUC {auc:.3f} at prior {prior:.3g}"
    return _labelled(ax, title, "false positive rate (estimated)", "true positive rate")


def plot_pu_precision_recall_curve(
    s: Any,
    y_score: Any,
    prior: Any,
    *,
    prior_interval: Any = None,
    sample_weight: Any = None,
    ax: Axes | None = None,
    label: str | None = None,
) -> Axes:
    """Draw the precision-recall curve on the unlabeled population, estimated from PU labels.

    The curve of :func:`unlabeled.metrics.pu_precision_recall_curve` at ``prior``, shaded
    between the curves at the ends of ``prior_interval`` (the precision ``pi TPR / R_U`` is
    proportional to the prior before its clip), with the precision of chance, ``prior``,
    dotted.

    Parameters
    ----------
    s : array-like of shape (n_samples,)
        PU labels: 1 = labeled positive, 0 or -1 = unlabeled.
    y_score : array-like of shape (n_samples,)
        Scores, higher meaning more likely positive, held out from the fit.
    prior : float in (0, 1) or fitted estimator
        The share of positives among the unlabeled points, or an estimator with ``prior_``
        whose ``prior_interval_`` is then the default interval.
    prior_interval : (lo, hi), fitted estimator or None, default=None
        The priors whose curves bound the band; none drawn when None.
    sample_weight : array-like of shape (n_samples,), default=None
        Weights of the points.
    ax : matplotlib Axes, default=None
        Where to draw; a new figure's axes when None.
    label : str, default=None
        The legend's name of the curve ("corrected" when None).

    Returns
    -------
    ax : matplotlib Axes

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> import numpy as np
    >>> from unlabeled.plotting import plot_pu_precision_recall_curve
    >>> rng = np.random.default_rng(0)
    >>> s = np.r_[np.ones(50, int), np.zeros(200, int)]
    >>> score = np.r_[rng.normal(1, 1, 110), rng.normal(0, 1, 140)]
    >>> ax = plot_pu_precision_recall_curve(s, score, 0.3, prior_interval=(0.25, 0.35))
    >>> ax.get_title()
    'Precision-recall from PU data: AP 0.648 at prior 0.3'
    >>> plt.close(ax.figure)
    """
    prior, interval = _prior_and_interval(prior, prior_interval)
    prec, rec, _ = pu_precision_recall_curve(s, y_score, prior, sample_weight=sample_weight)
    ap = pu_average_precision_score(s, y_score, prior, sample_weight=sample_weight)
    ax = _axes(ax)
    if interval is not None:
        lo = pu_precision_recall_curve(s, y_score, interval[0], sample_weight=sample_weight)[0]
        hi = pu_precision_recall_curve(s, y_score, interval[1], sample_weight=sample_weight)[0]
        band = f"prior in [{interval[0]:.3g}, {interval[1]:.3g}]"
        ax.fill_between(
            rec, np.minimum(lo, hi), np.maximum(lo, hi), step="post", alpha=0.25, label=band
        )
    ax.step(rec, prec, where="post", color="C0", lw=2, label=label or "corrected")
    ax.axhline(prior, ls=":", color="k", lw=1, label="chance (the prior)")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.01)
    ax.legend(loc="best", fontsize="small")
    title = f"Precision-recall from PU data: AP {ap:.3f} at prior {prior:.3g}"
    return _labelled(ax, title, "recall (labeled positives)", "precision (estimated)")


def plot_prior_sensitivity(results: Any, *, ax: Axes | None = None) -> Axes:
    """Draw metrics over a prior interval: one curve per metric, each with its range shaded.

    Parameters
    ----------
    results : PriorSensitivity, list of them or dict of str to them
        What :func:`unlabeled.metrics.prior_sensitivity` returns; a list is labelled by the
        metrics' names. The point estimate (``prior``, ``value``) is marked when known.
    ax : matplotlib Axes, default=None
        Where to draw; a new figure's axes when None.

    Returns
    -------
    ax : matplotlib Axes

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> import numpy as np
    >>> from unlabeled.metrics import prior_sensitivity
    >>> from unlabeled.plotting import plot_prior_sensitivity
    >>> rng = np.random.default_rng(0)
    >>> s = np.r_[np.ones(50, int), np.zeros(200, int)]
    >>> score = np.r_[rng.normal(1, 1, 110), rng.normal(0, 1, 140)]
    >>> results = [prior_sensitivity(s, score, m, (0.2, 0.4))
    ...            for m in ("roc-auc", "average-precision")]
    >>> ax = plot_prior_sensitivity(results)
    >>> [t.get_text() for t in ax.get_legend().get_texts()]
    ['roc-auc: 0.778 to 0.871', 'average-precision: 0.436 to 0.81']
    >>> plt.close(ax.figure)
    """
    if isinstance(results, dict):
        items = list(results.items())
    else:
        results = [results] if hasattr(results, "priors") else list(results)
        items = [(r.metric, r) for r in results]
    if not items:
        raise ValueError("results is empty: give what unlabeled.metrics.prior_sensitivity returns")
    for name, r in items:
        if not all(hasattr(r, a) for a in ("priors", "values", "prior", "value")):
            raise TypeError(
                f"{name!r}: expected a PriorSensitivity (unlabeled.metrics.prior_sensitivity), "
                f"got {type(r).__name__}"
            )
    ax = _axes(ax)
    for k, (name, r) in enumerate(items):
        colour = f"C{k % 10}"
        priors, values = np.asarray(r.priors, float), np.asarray(r.values, float)
        low, high = float(values.min()), float(values.max())
        ax.fill_between(priors, low, high, color=colour, alpha=0.12)
        ax.plot(priors, values, color=colour, lw=2, label=f"{name}: {low:.3g} to {high:.3g}")
        if r.prior is not None and r.value is not None:
            ax.plot(r.prior, r.value, "o", color=colour, ms=7)
    ax.legend(loc="best", fontsize="small")
    title = "PU metrics over the prior interval"
    return _labelled(ax, title, "class prior among the unlabeled points", "metric")
