"""Generative models: the Plummer autoencoder (PyTorch, an optional dependency).

Importing this package does not import torch: :class:`PlummerAutoencoder` imports it when it is
fitted or loaded, and the torch functions (``plummer_kernel``, ``mmd2_u``, ``pae_loss``) are
resolved on first access. Without torch either raises an ``ImportError`` that says how to install
it. The data generators and the evaluation measures are NumPy only.
"""

from ..registry import exported
from ._data import (
    embedded_means,
    grid_centres,
    make_embedded_gaussians,
    make_gaussian_grid,
    make_stacked_mnist,
)
from ._evaluation import (
    gaussian_kde_logpdf,
    grid_mode_metrics,
    kde_log_likelihood,
    mode_histogram_metrics,
    stacked_mnist_modes,
)
from ._pae import (
    PlummerAutoencoder as PlummerAutoencoder,
)
from ._pae import (
    TrainingDivergedError,
    import_torch_ops,
)

_TORCH_NAMES = ("plummer_kernel", "mmd2_u", "pae_loss")

__all__ = [
    *exported(__name__),
    "TrainingDivergedError",
    *_TORCH_NAMES,
    "embedded_means",
    "gaussian_kde_logpdf",
    "grid_centres",
    "grid_mode_metrics",
    "kde_log_likelihood",
    "make_embedded_gaussians",
    "make_gaussian_grid",
    "make_stacked_mnist",
    "mode_histogram_metrics",
    "stacked_mnist_modes",
]


def __getattr__(name):
    if name in _TORCH_NAMES:
        return getattr(import_torch_ops(), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
