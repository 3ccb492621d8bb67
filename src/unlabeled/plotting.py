"""Plots of fitted estimators, for looking rather than reading (matplotlib, an optional extra).

Every function takes a fitted estimator and, where it needs them, the data it was fitted on,
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
'CLSST: 2 clusters'
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # matplotlib is optional: only for the annotations
    from matplotlib.axes import Axes

__all__ = [
    "plot_autoencoder_samples",
    "plot_clsst_components",
    "plot_decision_boundary",
    "plot_loss_history",
    "plot_prior_intervals",
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
    'CLSST: 2 clusters'
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
