"""How generative models are scored in the thesis and in the GAN literature (NumPy only)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, cast

import numpy as np

from .._validation import ArrayLike, check_int

KDE_BANDWIDTHS = np.logspace(-3, 1.5, 10)


_Predict = Callable[[np.ndarray], ArrayLike]


class _Predictor(Protocol):
    def predict(self, X: np.ndarray, /) -> ArrayLike: ...


def gaussian_kde_logpdf(
    train: ArrayLike, test: ArrayLike, bandwidth: ArrayLike, block: int = 1024
) -> np.ndarray:
    r"""Log-density of a Gaussian KDE at ``test``:
    ``log (1/m) sum_j N(x; y_j, h^2 I)``, computed in blocks with log-sum-exp.

    Parameters
    ----------
    train : ndarray of shape (m, d)
        The kernel centres (generated samples).
    test : ndarray of shape (n, d)
    bandwidth : float > 0 or 1-d array of them
        Several bandwidths share one pass over the squared distances.
    block : int
        Test rows per block (memory ``block x m``).

    Returns
    -------
    ndarray of shape (n,), or (len(bandwidth), n) for an array of bandwidths

    Examples
    --------
    One centre at the origin: the log-density of ``N(0, h^2 I)`` in 2-D.

    >>> import numpy as np
    >>> from unlabeled.generative import gaussian_kde_logpdf
    >>> logp = gaussian_kde_logpdf([[0.0, 0.0]], [[0.0, 0.0], [1.0, 0.0]], bandwidth=1.0)
    >>> np.round(logp, 4).tolist()   # -log(2 pi), -log(2 pi) - 1/2
    [-1.8379, -2.3379]
    >>> gaussian_kde_logpdf([[0.0, 0.0]], [[0.0, 0.0]], bandwidth=[0.5, 1.0]).shape
    (2, 1)
    """
    train, test = np.asarray(train, float), np.asarray(test, float)
    bws = np.atleast_1d(np.asarray(bandwidth, float))
    m, d = train.shape
    sq_train = (train**2).sum(1)
    const = -np.log(m) - 0.5 * d * np.log(2 * np.pi * bws**2)
    out = np.empty((bws.size, test.shape[0]))
    for a in range(0, test.shape[0], block):
        t = test[a : a + block]
        d2 = np.maximum((t**2).sum(1)[:, None] + sq_train[None] - 2 * t @ train.T, 0.0)
        d_min = d2.min(1)
        np.subtract(d_min[:, None], d2, out=d2)  # <= 0: log-sum-exp shifted by the nearest
        buf = np.empty_like(d2)
        for k, h in enumerate(bws):
            np.multiply(d2, 1.0 / (2 * h**2), out=buf)
            np.exp(buf, out=buf)
            out[k, a : a + block] = np.log(buf.sum(1)) - d_min / (2 * h**2) + const[k]
    return out if np.ndim(bandwidth) else out[0]


def kde_log_likelihood(
    generated: ArrayLike,
    held_out: ArrayLike,
    test: ArrayLike,
    bandwidths: ArrayLike = KDE_BANDWIDTHS,
    n_batches: int = 10,
) -> dict[str, float]:
    """The thesis' log-likelihood protocol: a Gaussian KDE on generated samples.

    The bandwidth is the one of ``bandwidths`` (thesis: ``logspace(-3, 1.5, 10)``) with the
    highest mean log-density on ``held_out`` (more generated samples, never test data); the
    score is the mean log-density of the true ``test`` samples, with its standard deviation
    over ``n_batches`` equal batches of them (the authors' "10 repetitions").

    Returns
    -------
    dict with ``mean``, ``std``, ``bandwidth``

    Examples
    --------
    >>> import numpy as np
    >>> from unlabeled.generative import kde_log_likelihood
    >>> rng = np.random.default_rng(0)
    >>> generated, held_out, test = (rng.normal(size=(200, 2)) for _ in range(3))
    >>> result = kde_log_likelihood(generated, held_out, test, bandwidths=[0.01, 0.3, 10.0])
    >>> sorted(result), result["bandwidth"]
    (['bandwidth', 'mean', 'std'], 0.3)
    """
    sel = gaussian_kde_logpdf(generated, held_out, np.asarray(bandwidths, float)).mean(1)
    h = float(np.asarray(bandwidths)[int(np.nanargmax(sel))])
    ll = gaussian_kde_logpdf(generated, test, h)
    batches = [b.mean() for b in np.array_split(ll, n_batches)]
    return {"mean": float(ll.mean()), "std": float(np.std(batches)), "bandwidth": h}


def mode_histogram_metrics(assignments: ArrayLike, n_modes: int, min_count: int = 1) -> dict:
    """Mode counts of a generator: how many modes it covers and how unevenly.

    Parameters
    ----------
    assignments : array-like of int
        The mode of each (high-quality) generated sample, ``0 .. n_modes-1``; ``-1`` marks a
        sample that belongs to no mode (counted in no bin).
    n_modes : int
    min_count : int
        A mode is covered when it has at least this many samples (VEEGAN/PacGAN on the grid: 20).

    Returns
    -------
    dict with ``counts`` (ndarray), ``modes`` (covered), ``reverse_kl``
        ``reverse_kl = KL(q || uniform) = sum_k q_k log(q_k n_modes)``, ``q`` the histogram of
        the assigned samples normalised to 1 (``0 log 0 = 0``; ``inf`` when nothing is assigned).

    Examples
    --------
    >>> from unlabeled.generative import mode_histogram_metrics
    >>> out = mode_histogram_metrics([0, 0, 1, 1, -1], n_modes=4)
    >>> out["counts"].tolist(), out["modes"], round(out["reverse_kl"], 4)   # log(4/2)
    ([2, 2, 0, 0], 2, 0.6931)
    """
    n_modes = check_int(n_modes, "n_modes", low=1)
    a = np.asarray(assignments).astype(int).ravel()
    counts = np.bincount(a[a >= 0], minlength=n_modes)[:n_modes]
    total = counts.sum()
    if total == 0:
        kl = np.inf
    else:
        q = counts[counts > 0] / total
        kl = float(np.sum(q * np.log(q * n_modes)))
    return {"counts": counts, "modes": int((counts >= min_count).sum()), "reverse_kl": kl}


def grid_mode_metrics(
    samples: ArrayLike, centres: ArrayLike, std: float, n_std: float = 3.0, min_count: int = 20
) -> dict:
    """Grid counts of the GAN literature (VEEGAN, PacGAN): high-quality samples and modes.

    A sample is high quality when it lies within ``n_std`` standard deviations of its nearest
    centre; a mode is covered when it has at least ``min_count`` high-quality samples (use 2500
    samples as PacGAN does); the reverse KL is that of the high-quality samples' histogram.

    Returns
    -------
    dict with ``modes``, ``high_quality`` (a fraction), ``reverse_kl``, ``counts``

    Examples
    --------
    >>> import numpy as np
    >>> from unlabeled.generative import grid_centres, grid_mode_metrics, make_gaussian_grid
    >>> X, _ = make_gaussian_grid(2500, random_state=0)
    >>> out = grid_mode_metrics(X, grid_centres(), std=np.sqrt(0.1))
    >>> out["modes"], out["high_quality"] > 0.95
    (25, True)
    """
    samples, centres = np.asarray(samples, float), np.asarray(centres, float)
    d2 = ((samples[:, None, :] - centres[None]) ** 2).sum(-1)
    nearest = d2.argmin(1)
    good = np.sqrt(d2[np.arange(len(samples)), nearest]) <= n_std * std
    out = mode_histogram_metrics(np.where(good, nearest, -1), len(centres), min_count)
    out["high_quality"] = float(good.mean())
    return out


def stacked_mnist_modes(
    generated: ArrayLike,
    classify: _Predict | _Predictor,
    min_count: int = 1,
) -> dict:
    """Mode count on Stacked-MNIST: classify each channel's digit, histogram the triples.

    Parameters
    ----------
    generated : array-like of shape (n, 2352)
        Generated images, channels laid out as by :func:`make_stacked_mnist`.
    classify : callable or object with ``predict``
        Maps an ``(k, 784)`` array of single-channel images to ``k`` digits (e.g. a classifier
        fitted by the user on MNIST).
    min_count : int

    Returns
    -------
    dict with ``counts`` (1000,), ``modes`` (covered triples), ``reverse_kl`` (to uniform)

    Examples
    --------
    A stand-in classifier reads the digit off each channel's first pixel:

    >>> import numpy as np
    >>> from unlabeled.generative import stacked_mnist_modes
    >>> generated = np.zeros((3, 2352))
    >>> generated[:, 0] = [1, 2, 2]       # digit of channel 0 (channels 1 and 2: 0)
    >>> out = stacked_mnist_modes(generated, lambda images: images[:, 0])
    >>> out["modes"], out["counts"][[1, 2]].tolist()
    (2, [1, 2])
    """
    X = np.asarray(generated)
    if X.ndim != 2 or X.shape[1] != 3 * 784:
        raise ValueError(f"generated must have shape (n, 2352), got {X.shape}")
    predict = cast(_Predict, getattr(classify, "predict", classify))
    digits = [np.asarray(predict(X[:, c * 784 : (c + 1) * 784])).astype(int) for c in range(3)]
    for d in digits:
        if d.shape != (X.shape[0],) or d.min() < 0 or d.max() > 9:
            raise ValueError("classify must return one digit 0-9 per image")
    return mode_histogram_metrics(digits[0] + 10 * digits[1] + 100 * digits[2], 1000, min_count)
