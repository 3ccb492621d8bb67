"""The thesis' synthetic data (ch. 4, spec ``pae.md`` sections 7.1-7.3), in NumPy."""

from __future__ import annotations

import numpy as np
from sklearn.utils import check_random_state

from .._validation import ArrayLike, check_int, check_real

GRID_SPACING = 10.5
GRID_VARIANCE = 0.1


def grid_centres(n_per_side: int = 5, spacing: float = GRID_SPACING) -> np.ndarray:
    """Centres of the square grid of Gaussians: ``{-2s, -s, 0, s, 2s}^2`` for 5 per side.

    Examples
    --------
    >>> from unlabeled.generative import grid_centres
    >>> grid_centres(2, spacing=2.0).tolist()
    [[-1.0, -1.0], [-1.0, 1.0], [1.0, -1.0], [1.0, 1.0]]
    >>> grid_centres().shape   # the 5 x 5 grid
    (25, 2)
    """
    n_per_side = check_int(n_per_side, "n_per_side", low=1)
    ticks = (np.arange(n_per_side) - (n_per_side - 1) / 2) * spacing
    gx, gy = np.meshgrid(ticks, ticks, indexing="ij")
    return np.column_stack([gx.ravel(), gy.ravel()])


def make_gaussian_grid(
    n_samples: int = 500,
    *,
    variance: float = GRID_VARIANCE,
    random_state: int | np.random.RandomState | None = None,
    balanced: bool = True,
) -> tuple[np.ndarray, np.ndarray]:
    """The 25-Gaussian grid: an equal mixture of isotropic 2-D Gaussians on a 5 x 5 grid.

    Geometry of the authors' code (the thesis does not state it): centres
    ``{-21, -10.5, 0, 10.5, 21}^2``, covariance ``0.1 I``. ``balanced=True`` draws
    ``n_samples / 25`` points per mode (20 each for the thesis' 500), else modes i.i.d.

    Returns
    -------
    X : ndarray of shape (n_samples, 2)
    y : ndarray of shape (n_samples,)
        Mode index of each point.

    Examples
    --------
    >>> import numpy as np
    >>> from unlabeled.generative import make_gaussian_grid
    >>> X, y = make_gaussian_grid(500, random_state=0)
    >>> X.shape, np.bincount(y).tolist()[:3]  # 20 points per mode
    ((500, 2), [20, 20, 20])
    """
    n = check_int(n_samples, "n_samples", low=1)
    var = check_real(variance, "variance", low=0.0)
    rng = check_random_state(random_state)
    centres = grid_centres()
    y = np.arange(n) % 25 if balanced else rng.randint(25, size=n)
    X = centres[y] + rng.normal(scale=np.sqrt(var), size=(n, 2))
    return X, y


def embedded_means(
    n_modes: int = 10, dim: int = 1000, block: int = 10
) -> tuple[np.ndarray, np.ndarray]:
    """Means of the low-dimensional embedding, one block of equal coordinates per mode.

    Mode ``i`` is ``m_i`` on the coordinates ``o_i`` to ``o_i + block - 1`` and 0 elsewhere,
    with ``m = linspace(-5, 5, n_modes)`` and ``o = floor(linspace(0, dim - block, n_modes))``.

    Parameters
    ----------
    n_modes : int, default=10
        Number of modes.
    dim : int, default=1000
        Dimension of the ambient space.
    block : int, default=10
        Number of coordinates that each mode occupies.

    Returns
    -------
    means : ndarray of shape (n_modes, dim)
        The means.
    offsets : ndarray of shape (n_modes,)
        The first coordinate ``o_i`` of each mode's block.

    Examples
    --------
    >>> from unlabeled.generative import embedded_means
    >>> means, offsets = embedded_means(n_modes=3, dim=12, block=2)
    >>> offsets.tolist()
    [0, 5, 10]
    >>> means[2].tolist()
    [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 5.0, 5.0]
    """
    means = np.zeros((n_modes, dim))
    offsets = np.floor(np.linspace(0, dim - block, n_modes)).astype(int)
    for i, (m, o) in enumerate(zip(np.linspace(-5, 5, n_modes), offsets, strict=True)):
        means[i, o : o + block] = m
    return means, offsets


def make_embedded_gaussians(
    n_samples: int = 500,
    *,
    dim: int = 1000,
    n_modes: int = 10,
    block: int = 10,
    random_state: int | np.random.RandomState | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Ten isotropic 10-D Gaussians, each on its own 10 coordinates of ``R^1000``.

    Construction of the authors' code (the thesis does not state it): mode ``i`` is
    ``N(m_i 1, I_10)`` placed on coordinates ``o_i .. o_i + 9``, every other coordinate exactly
    0; ``m_i = linspace(-5, 5, 10)[i]``, ``o_i = floor(linspace(0, 989, 10))[i]``; modes taken in
    turn (50 each for 500 samples).

    Returns
    -------
    X : ndarray of shape (n_samples, dim)
    y : ndarray of shape (n_samples,)

    Examples
    --------
    >>> import numpy as np
    >>> from unlabeled.generative import make_embedded_gaussians
    >>> X, y = make_embedded_gaussians(100, random_state=0)
    >>> X.shape, np.bincount(y).tolist()
    ((100, 1000), [10, 10, 10, 10, 10, 10, 10, 10, 10, 10])
    >>> int(np.count_nonzero(X[0]))  # one block of 10 coordinates per point
    10
    """
    n = check_int(n_samples, "n_samples", low=1)
    rng = check_random_state(random_state)
    means, offsets = embedded_means(n_modes, dim, block)
    y = np.arange(n) % n_modes
    X = means[y].copy()
    noise = rng.normal(size=(n, block))
    for i in range(n):
        X[i, offsets[y[i]] : offsets[y[i]] + block] += noise[i]
    return X, y


def make_stacked_mnist(
    images: ArrayLike,
    labels: ArrayLike,
    n_samples: int,
    random_state: int | np.random.RandomState | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Stacked-MNIST from user-supplied MNIST arrays: three random digits as three channels.

    Each sample stacks three images drawn independently and uniformly from ``images``; the
    channels are laid out ``[ch0 784 | ch1 784 | ch2 784]`` and the mode is the ordered triple
    ``d0 + 10 d1 + 100 d2`` (1000 modes; Srivastava et al. 2017, VEEGAN).

    Parameters
    ----------
    images : array-like of shape (m, 28, 28) or (m, 784)
        Grey levels in ``[0, 255]`` (integers) or ``[0, 1]`` (floats).
    labels : array-like of shape (m,)
        Digits 0-9.
    n_samples : int >= 1
    random_state : int, RandomState or None

    Returns
    -------
    X : ndarray of shape (n_samples, 2352), float32 in [0, 1]
    y : ndarray of shape (n_samples,)
        The mode ``d0 + 10 d1 + 100 d2``.

    Examples
    --------
    Random "images" stand in for MNIST here:

    >>> import numpy as np
    >>> from unlabeled.generative import make_stacked_mnist
    >>> rng = np.random.default_rng(0)
    >>> images = rng.integers(0, 256, size=(30, 28, 28))
    >>> labels = np.arange(30) % 10
    >>> X, y = make_stacked_mnist(images, labels, 8, random_state=0)
    >>> X.shape, X.dtype, bool(X.max() <= 1.0)
    ((8, 2352), dtype('float32'), True)
    >>> bool(np.all((y >= 0) & (y < 1000)))
    True
    """
    imgs = np.asarray(images)
    if imgs.ndim == 3:
        imgs = imgs.reshape(imgs.shape[0], -1)
    if imgs.ndim != 2 or imgs.shape[1] != 784:
        raise ValueError(
            f"images must have shape (m, 28, 28) or (m, 784), got {np.asarray(images).shape}"
        )
    labels = np.asarray(labels)
    if labels.shape != (imgs.shape[0],):
        raise ValueError(f"labels must have shape ({imgs.shape[0]},), got {labels.shape}")
    if not np.isin(labels, np.arange(10)).all():
        raise ValueError("labels must be digits 0-9")
    scale = 255.0 if imgs.dtype.kind in "iu" or imgs.max(initial=0) > 1.0 else 1.0
    if imgs.min(initial=0) < 0 or imgs.max(initial=0) > 255:
        raise ValueError("images must hold grey levels in [0, 255] or [0, 1]")
    n = check_int(n_samples, "n_samples", low=1)
    idx = check_random_state(random_state).randint(imgs.shape[0], size=(n, 3))
    X = np.concatenate([imgs[idx[:, c]] for c in range(3)], axis=1).astype(np.float32) / scale
    y = labels[idx[:, 0]] + 10 * labels[idx[:, 1]] + 100 * labels[idx[:, 2]]
    return X, y.astype(np.int64)
