"""The PyTorch side of the Plummer autoencoder: kernel, unbiased MMD, loss and networks.

This module imports torch at the top; nothing imports it before a model is fitted or one of these
functions is asked for (``unlabeled.generative`` resolves them lazily).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

import torch
from torch import nn

ACTIVATIONS = {"linear": None, "sigmoid": nn.Sigmoid, "tanh": nn.Tanh}


def plummer_kernel(
    a: torch.Tensor, b: torch.Tensor, eps: float = 1e-4, beta: float = 1.0
) -> torch.Tensor:
    r"""The Plummer kernel matrix ``k(a_i, b_j) = (||a_i - b_j||^2 + eps)^(-beta/2)``.

    Computed from the explicit differences ``a_i - b_j`` (not from ``|a|^2 + |b|^2 - 2 a.b``), so
    that the distance is never negative by round-off and the gradient at ``a_i = b_j`` is exactly
    zero rather than ``NaN``.

    Parameters
    ----------
    a : tensor of shape (n, h)
    b : tensor of shape (m, h)
    eps : float > 0
        Added to the squared distance: ``K = k(z, z) = eps^(-beta/2)`` is the kernel's maximum.
    beta : float > 0
        Exponent; the thesis (ch. 4) uses the "extended" kernel with ``beta = 1``.

    Returns
    -------
    tensor of shape (n, m)

    Examples
    --------
    >>> import torch
    >>> from unlabeled.generative import plummer_kernel
    >>> a = torch.tensor([[0.0, 0.0]])
    >>> b = torch.tensor([[0.0, 0.0], [3.0, 4.0]])
    >>> K = plummer_kernel(a, b, eps=1e-4)
    >>> tuple(K.shape), [round(v, 4) for v in K[0].tolist()]   # 1/sqrt(eps), 1/sqrt(25)
    ((1, 2), [100.0, 0.2])
    """
    return (_sq_dist(a, b) + eps).pow(-beta / 2)


def _sq_dist(a, b):
    """``||a_i - b_j||^2`` from the explicit differences, one coordinate at a time (never
    negative by round-off, unlike ``|a|^2 + |b|^2 - 2 a.b``; 5-10x faster than an ``N x M x h``
    difference tensor for the small latent dimensions used here)."""
    d2 = (a[:, 0, None] - b[None, :, 0]).square_()
    for c in range(1, a.shape[1]):
        d2.add_((a[:, c, None] - b[None, :, c]).square_())
    return d2


class _PlummerSum(torch.autograd.Function):
    """``sum_{i, j} k(a_i, b_j)`` (``i != j`` when ``exclude_diagonal``) with an analytic backward.

    Forward: squared distances from explicit differences. Backward, with
    ``C_ij = -beta (||a_i - b_j||^2 + eps)^(-beta/2 - 1)`` (diagonal zeroed when excluded):
    ``dS/da_i = sum_j C_ij (a_i - b_j) = (C 1)_i a_i - (C b)_i`` and symmetrically for ``b``: two
    matrix products instead of autograd's chain of ``N x M x h`` temporaries (4-5x faster).
    """

    @staticmethod
    def forward(ctx, a, b, eps, beta, exclude_diagonal):
        d2e = _sq_dist(a, b).add_(eps)
        k = d2e.pow(-beta / 2) if beta != 1.0 else d2e.rsqrt()
        if exclude_diagonal:
            k.fill_diagonal_(0.0)
        ctx.save_for_backward(a, b, k, d2e)
        ctx.beta = beta
        return k.sum()

    @staticmethod
    def backward(ctx, grad_out):
        a, b, k, d2e = ctx.saved_tensors
        c = k / d2e  # the zeroed diagonal stays zero
        c.mul_(-ctx.beta * grad_out)
        grad_a = grad_b = None
        if ctx.needs_input_grad[0]:
            grad_a = c.sum(1, keepdim=True) * a - c @ b
        if ctx.needs_input_grad[1]:
            grad_b = c.sum(0)[:, None] * b - c.T @ a
        return grad_a, grad_b, None, None, None


def plummer_sum(a, b, eps: float = 1e-4, beta: float = 1.0, exclude_diagonal: bool = True):
    r"""``sum_{i != j} k(a_i, b_j)`` (all pairs when ``exclude_diagonal=False``), differentiable.

    Equal to ``plummer_kernel(a, b)`` summed with its diagonal zeroed, but with a hand-written
    backward (see ``_PlummerSum``), checked against finite differences in the tests.
    """
    if exclude_diagonal and a.shape[0] != b.shape[0]:
        raise ValueError("exclude_diagonal needs two samples of the same size")
    return _PlummerSum.apply(a, b, float(eps), float(beta), bool(exclude_diagonal))


def mmd2_u(zp: torch.Tensor, q: torch.Tensor, eps: float = 1e-4, beta: float = 1.0) -> torch.Tensor:
    r"""Gretton's unbiased U-statistic ``MMD_u^2`` between two equal-size samples.

    .. math::

        \mathrm{MMD}_u^2 = \frac{1}{N(N-1)} \sum_{i \ne j}
            \bigl[k(z_i, z_j) - 2 k(z_i, q_j) + k(q_i, q_j)\bigr]

    The diagonal ``i = j`` is excluded from all three sums, the cross term included (thesis
    Theorem 1, spec ``pae.md`` section 3); the estimate is unbiased and may be negative, but
    never below ``-2 K / (N - 1)`` with ``K = eps^(-beta/2)``. Kernel from explicit differences.

    Parameters
    ----------
    zp : tensor of shape (N, h)
        Prior samples.
    q : tensor of shape (N, h)
        Codes of the data.
    eps, beta : float
        Kernel parameters, see :func:`plummer_kernel`.

    Returns
    -------
    0-d tensor

    Examples
    --------
    >>> import torch
    >>> from unlabeled.generative import mmd2_u
    >>> g = torch.Generator().manual_seed(0)
    >>> z = torch.rand(100, 2, generator=g) * 2 - 1
    >>> same = mmd2_u(z, torch.rand(100, 2, generator=g) * 2 - 1)
    >>> shifted = mmd2_u(z, torch.rand(100, 2, generator=g) * 2 + 1)
    >>> same.ndim, bool(shifted > same)
    (0, True)
    """
    n = zp.shape[0]
    if q.shape[0] != n or n < 2:
        raise ValueError(
            f"mmd2_u needs two samples of the same size >= 2, got {n} and {q.shape[0]}"
        )
    s = (
        plummer_sum(zp, zp, eps, beta)
        - 2.0 * plummer_sum(zp, q, eps, beta)
        + plummer_sum(q, q, eps, beta)
    )
    return s / (n * (n - 1))


def pae_loss(
    x: torch.Tensor,
    zp: torch.Tensor,
    encoder: Callable[[torch.Tensor], torch.Tensor],
    decoder: Callable[[torch.Tensor], torch.Tensor],
    lam: float,
    eps: float = 1e-4,
    beta: float = 1.0,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    r"""The PAE batch loss ``(1/N) sum_i ||x_i - g(f(x_i))||^2 + lam * MMD_u^2(z, f(x))``.

    Parameters
    ----------
    x : tensor of shape (N, d)
        Data batch.
    zp : tensor of shape (N, h)
        Fresh prior samples, ``U([-1, 1]^h)`` in the thesis.
    encoder, decoder : callables
        ``f`` and ``g``.
    lam, eps, beta : float
        MMD weight and kernel parameters.

    Returns
    -------
    (loss, reconstruction, mmd2) : three 0-d tensors
        The loss and its two terms (the MMD term before multiplication by ``lam``).

    Examples
    --------
    >>> import torch
    >>> from unlabeled.generative import pae_loss
    >>> g = torch.Generator().manual_seed(0)
    >>> x = torch.randn(32, 3, generator=g)
    >>> zp = torch.rand(32, 2, generator=g) * 2 - 1
    >>> encoder, decoder = torch.nn.Linear(3, 2), torch.nn.Linear(2, 3)
    >>> loss, rec, mmd = pae_loss(x, zp, encoder, decoder, lam=1.0)
    >>> bool(torch.isclose(loss, rec + mmd)), loss.requires_grad
    (True, True)
    """
    q = encoder(x)
    rec = (x - decoder(q)).pow(2).sum(1).mean()
    mmd = mmd2_u(zp, q, eps, beta)
    return rec + lam * mmd, rec, mmd


def make_mlp(sizes, out_activation: str, generator: torch.Generator) -> nn.Sequential:
    """An MLP with ReLU hidden layers, Glorot-uniform weights and zero biases.

    ``sizes`` lists the widths from the input to the output; ``out_activation`` is one of
    ``ACTIVATIONS``; the weights are drawn from ``generator`` (reproducible).
    """
    layers: list[nn.Module] = []
    for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:], strict=True)):
        lin = nn.Linear(a, b)
        with torch.no_grad():
            bound = (6.0 / (a + b)) ** 0.5
            lin.weight.uniform_(-bound, bound, generator=generator)
            lin.bias.zero_()
        layers.append(lin)
        if i < len(sizes) - 2:
            layers.append(nn.ReLU())
    act = ACTIVATIONS[out_activation]
    if act is not None:
        layers.append(act())
    return nn.Sequential(*layers)


class Affine(nn.Module):
    """A fixed affine map ``(x - shift) / scale`` (or its inverse ``x * scale + shift``), kept as
    buffers so that it is saved with the state dict and never trained."""

    def __init__(self, shift, scale, inverse: bool):
        super().__init__()
        self.register_buffer("shift", torch.as_tensor(shift, dtype=torch.float32).clone())
        self.register_buffer("scale", torch.as_tensor(scale, dtype=torch.float32).clone())
        self.inverse = inverse

    def forward(self, x):
        return x * self.scale + self.shift if self.inverse else (x - self.shift) / self.scale


def forward64(net: nn.Sequential) -> Callable[[torch.Tensor], torch.Tensor]:
    """``x -> net(x)`` in float64, for a network that :func:`make_mlp` and :class:`Affine`
    build, from float64 copies of its weights made here.

    The network itself is only read, never converted or given other weights for the call (as
    ``torch.func.functional_call`` does, restoring them after): calls from several threads at
    once on one fitted model are safe (with ``functional_call``, one thread's restored float32
    weights met another's float64 input in 1 of 400 calls).
    """
    # (layer, float64 weights): a Linear's (weight, bias), an Affine's (shift, scale), or
    # none for the activations, which hold no state
    steps: list[tuple[nn.Module, tuple[torch.Tensor, ...]]] = []
    for layer in net:
        if isinstance(layer, nn.Linear):
            steps.append((layer, (layer.weight.detach().double(), layer.bias.detach().double())))
        elif isinstance(layer, Affine):
            shift, scale = cast(torch.Tensor, layer.shift), cast(torch.Tensor, layer.scale)
            steps.append((layer, (shift.double(), scale.double())))
        elif isinstance(layer, (nn.ReLU, nn.Tanh, nn.Sigmoid)):
            steps.append((layer, ()))
        else:
            raise TypeError(f"forward64 does not know the layer {type(layer).__name__}")

    def forward(x: torch.Tensor) -> torch.Tensor:
        for layer, w in steps:
            if isinstance(layer, nn.Linear):
                x = nn.functional.linear(x, w[0], w[1])
            elif isinstance(layer, Affine):
                x = x * w[1] + w[0] if layer.inverse else (x - w[0]) / w[1]
            else:
                x = layer(x)
        return x

    return forward


def resolve_device(device: str) -> torch.device:
    """``"auto"``: CUDA when available, else the CPU; anything else is passed to torch."""
    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        dev = torch.device(device)
    except (RuntimeError, TypeError) as exc:
        raise ValueError(
            f"device must be 'auto', 'cpu', 'cuda' or 'cuda:N', got {device!r}"
        ) from exc
    if dev.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(f"device={device!r} but CUDA is not available: use device='cpu' or 'auto'")
    return dev
