"""The PyTorch side of NNPUMLPClassifier: the paper's stochastic nnPU training of a ReLU
network (Kiryo et al. 2017, Algorithm 1) with Adam.

This module imports torch at the top; only ``NNPUMLPClassifier.fit`` imports it.
"""

from __future__ import annotations

import sys
import time

import numpy as np
import torch


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


def _forward(params, x):
    """The network's output: ReLU hidden layers, a linear output unit."""
    for W, b in params[:-1]:
        x = torch.relu(x @ W + b)
    W, b = params[-1]
    return (x @ W + b).ravel()


def _loss(z, loss: str):
    """``l(z)``: sigmoid ``1 / (1 + e^z)`` or logistic ``log(1 + e^-z)``."""
    if loss == "sigmoid":
        return torch.sigmoid(-z)
    return torch.nn.functional.softplus(-z)


def _batch_risks(f, wp, wu, prior, loss):
    """``(pi R_P^+, g)`` on one batch: ``f`` its outputs, ``wp`` the weights of its labeled
    positives (0 elsewhere), ``wu`` those of its unlabeled points (of every point for the SAR
    risk): means weighted within each group."""
    sp, su = wp.sum().clamp_min(1e-30), wu.sum().clamp_min(1e-30)
    ln = _loss(-f, loss)
    r_pos = prior * (wp * _loss(f, loss)).sum() / sp
    g = (wu * ln).sum() / su - prior * (wp * ln).sum() / sp
    return r_pos, g


def train(weights, X, mask, pos_weight, unl_weight, p: dict, seed: int, device, verbose: bool):
    """Train the network of ``weights`` (a list of (W, b) float32 NumPy arrays, changed in
    place: the result) on standardised ``X`` by the nnPU rule; returns the epochs run.
    ``mask`` marks the labeled positives, ``pos_weight`` their weights in the positives'
    means (0 elsewhere), ``unl_weight`` the weights of the negative risk's population term.

    Each epoch shuffles the labeled positives and the unlabeled points separately and cuts
    both into the same number of batches (about ``batch_size`` rows each), so that every batch
    holds both. Per batch, with ``g`` the batch's negative risk: if ``g >= -beta`` a step on
    ``pi R_P^+ + g`` (the uPU risk), else on ``-gamma g`` (the paper's correction, which
    raises ``g`` back instead of fitting the positives further); Adam with L2 weight decay.
    """
    rng = np.random.default_rng(seed)
    params = [
        (
            torch.tensor(W, device=device, requires_grad=True),
            torch.tensor(b, device=device, requires_grad=True),
        )
        for W, b in weights
    ]
    flat = [t for pair in params for t in pair]
    opt = torch.optim.Adam(flat, lr=p["learning_rate"], weight_decay=p["weight_decay"])
    data = torch.tensor(X, dtype=torch.float32, device=device)
    wp = torch.tensor(pos_weight, dtype=torch.float32, device=device)
    wu = torch.tensor(unl_weight, dtype=torch.float32, device=device)
    pos_rows, unl_rows = np.flatnonzero(mask), np.flatnonzero(~mask)
    n_batches = max(1, int(round(mask.size / p["batch_size"])))
    t0 = time.perf_counter()
    for epoch in range(p["max_iter"]):
        pos_split = np.array_split(rng.permutation(pos_rows), n_batches)
        unl_split = np.array_split(rng.permutation(unl_rows), n_batches)
        for k in range(n_batches):
            rows = torch.as_tensor(np.concatenate([pos_split[k], unl_split[k]]), device=device)
            f = _forward(params, data[rows])
            r_pos, g = _batch_risks(f, wp[rows], wu[rows], p["prior"], p["loss"])
            if not p["non_negative"] or g.item() >= -p["beta"]:
                objective = r_pos + g
            else:
                objective = -p["gamma"] * g
            opt.zero_grad()
            objective.backward()
            opt.step()
        if verbose:
            print(
                f"[NNPUMLPClassifier] epoch {epoch + 1}/{p['max_iter']}: batch risk "
                f"{float(r_pos + g):.4g}, {time.perf_counter() - t0:.1f} s",
                file=sys.stderr,
                flush=True,
            )
    for (W, b), (tW, tb) in zip(weights, params, strict=True):
        W[...] = tW.detach().cpu().numpy()
        b[...] = tb.detach().cpu().numpy()
    return p["max_iter"]
