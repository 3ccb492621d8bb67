r"""NNPUClassifier's linear form on Dask input: the risk of :mod:`._nnpu_solver` summed over
the row chunks on the workers, the same L-BFGS on the client.

Every evaluation of ``J`` and its gradient is one pass over the chunks (the Dask layer's
:class:`~unlabeled._dask.Chunks`: each chunk's task where it lives, the sums by its tree
reduction). With ``f = X w + b``, a chunk ``k`` returns

.. math::

    \pi\sum_{P_k} a_i l(f_i),\quad -\sum_k (\pi a - c)_i\, l(-f_i),\quad
    u_k = X_k^\top(\pi a\, l'(f)),\quad v_k = X_k^\top((\pi a - c)\, l'(-f))

(and the sums of the two vectors for the intercept), so that
``grad J = sum u_k + T'(g) sum v_k + lam w``: ``T'(g)`` needs the global ``g`` first, and the
gradient is linear in it. These are the in-memory sums in another order: the fit is the
in-memory fit up to rounding. Only ``w`` goes out and ``2 d + 4`` numbers come back per chunk.

``threshold="prior"`` is exact: the order statistics ``f_(k)``, ``f_(k+1)`` of the unlabeled
points' decision values (``k = round(pi n_U)``) are found by counting the values above a grid
of thresholds on the workers, each pass narrowing the interval that holds them, until few
enough values lie in it to bring back (:func:`prior_threshold_dask`).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .._dask import Chunks, align_rows, as_dask_array, chunk_sources, get_client, load
from .._validation import check_pu_summary, merge_pu_summaries, pu_label_summary
from ._dask_linear import x_dot, xt_dot
from ._nnpu_solver import PURisk, loss_and_slope

#: values brought back at most to finish the exact threshold (the rest is counted)
_FEW = 50_000
#: thresholds counted per pass of the threshold's search
_GRID = 512
_NO_CLIENT = (
    "NNPUClassifier.fit on Dask input runs on a dask.distributed cluster: install "
    "dask[distributed] and create a distributed.Client first (e.g. Client(LocalCluster())), "
    "or pass NumPy arrays (X.compute()) if the data fit in memory"
)


# ---------------------------------------------------------------------------------- workers
def _part(source):
    """A chunk as the passes read it: (X as float64 / float32 rows or CSR, mask of labeled
    positives, sample weights)."""
    Xk, sk, wk = (load(v) for v in source)
    if sp.issparse(Xk):
        Xk = sp.csr_matrix(Xk, dtype=np.float64)
    else:
        Xk = np.asarray(Xk)
        Xk = Xk if Xk.dtype in (np.float32, np.float64) else Xk.astype(np.float64)
    sk = np.asarray(sk)
    mask = sk.copy() if sk.dtype == bool else sk == 1
    wk = np.ones(mask.size) if wk is None else np.asarray(wk, dtype=np.float64)
    return Xk, mask, wk


def _check(source, offset):
    """A chunk's checks: the first row with NaN or infinity, its labels' summary, bad weights
    and the weights' sums over its labeled positives and its unlabeled rows."""
    Xk, mask, wk = _part(source)
    values = Xk.data if sp.issparse(Xk) else Xk
    bad = np.flatnonzero(~np.isfinite(values))
    row = -1
    if bad.size:
        row = offset + int(
            np.searchsorted(Xk.indptr, bad[0], side="right") - 1
            if sp.issparse(Xk)
            else bad[0] // max(Xk.shape[1], 1)
        )
    return {
        "bad_row": row,
        "labels": pu_label_summary(load(source[1]), offset),
        "bad_weight": bool(not np.all(np.isfinite(wk)) or np.any(wk < 0)),
        "wp": float(wk[mask].sum()),
        "wu": float(wk[~mask].sum()),
        "nu": int((~mask).sum()),
    }


def _merge_checks(*parts):
    out = dict(parts[0])
    for b in parts[1:]:
        out = {
            "bad_row": out["bad_row"] if out["bad_row"] >= 0 else b["bad_row"],
            "labels": merge_pu_summaries(out["labels"], b["labels"]),
            "bad_weight": out["bad_weight"] or b["bad_weight"],
            "wp": out["wp"] + b["wp"],
            "wu": out["wu"] + b["wu"],
            "nu": out["nu"] + b["nu"],
        }
    return out


def _evaluate(chunk, theta, d, fit_intercept, pa_scale, c_scale, loss):
    """A chunk's share of ``J`` and its gradient at ``theta`` (see the module's docstring):
    {pos, g, u, su, v, sv}; ``a = weight / pa_scale`` on P (times pi), ``c = weight /
    c_scale`` on U."""
    X, mask, wk = _got(chunk)
    f = x_dot(X, theta[:d])
    if fit_intercept:
        f = f + theta[d]
    lp, dp = loss_and_slope(f, loss)
    if loss == "sigmoid":  # l(-f) = 1 - l(f), l'(-f) = l'(f)
        ln, dn = 1.0 - lp, dp
    else:
        ln, dn = loss_and_slope(-f, loss)
    pa = np.where(mask, wk * pa_scale, 0.0)
    pac = pa - np.where(mask, 0.0, wk * c_scale)
    r1, r2 = pa * dp, pac * dn
    return {
        "pos": float(pa @ lp),
        "g": -float(pac @ ln),
        "u": xt_dot(X, r1),
        "su": float(r1.sum()),
        "v": xt_dot(X, r2),
        "sv": float(r2.sum()),
    }


def _unlabeled_values(chunk, w, b):
    """The decision values of the chunk's unlabeled rows."""
    X, mask, _ = _got(chunk)
    return x_dot(X, w)[~mask] + b


def _count_above(chunk, w, b, grid, lo, hi):
    """(the number of unlabeled values above each threshold of ``grid``, their number in
    (lo, hi] and their min and max there)."""
    f = _unlabeled_values(chunk, w, b)
    inside = f[(f > lo) & (f <= hi)]
    above = f.size - np.searchsorted(np.sort(f), grid, side="right")
    ends = (float(inside.min()), float(inside.max())) if inside.size else (np.inf, -np.inf)
    return above.astype(np.int64), int(inside.size), ends


def _merge_counts(*parts):
    above = sum(p[0] for p in parts)
    count = sum(p[1] for p in parts)
    ends = (min(p[2][0] for p in parts), max(p[2][1] for p in parts))
    return above, count, ends


def _values_in(chunk, w, b, lo, hi):
    f = _unlabeled_values(chunk, w, b)
    return f[(f > lo) & (f <= hi)]


# ---------------------------------------------------------------------------------- client
class DaskPURisk(PURisk):
    """:class:`~unlabeled.pu._nnpu_solver.PURisk` on Dask chunks: each evaluation one pass
    (the last one kept, so that the value and the gradient at one point cost one pass)."""

    def __init__(self, chunks, d, wp, wu, prior, lam, loss, beta, fit_intercept):
        self.chunks, self.d = chunks, int(d)
        self.prior, self.lam, self.loss = float(prior), float(lam), loss
        self.beta, self.fit_intercept = float(beta), bool(fit_intercept)
        self.pa_scale, self.c_scale = self.prior / wp, 1.0 / wu
        self.n_evals, self.passes = 0, 0
        self._last: tuple | None = None

    def _sums(self, theta):
        theta = np.asarray(theta, dtype=np.float64)
        key = theta.tobytes()
        if self._last is None or self._last[0] != key:
            args = (theta, self.d, self.fit_intercept, self.pa_scale, self.c_scale, self.loss)
            self._last = (key, self.chunks.map_reduce(_evaluate, args=args))
            self.passes += 1
        return self._last[1]

    def decision(self, theta):  # pragma: no cover - the per-row values stay on the workers
        raise NotImplementedError("a Dask fit keeps no per-row decision values")

    def parts(self, theta):
        """``(pi R_P^+, g)`` at ``theta``."""
        sums = self._sums(theta)
        return sums["pos"], sums["g"]

    def _gradient_of(self, sums, dt, w):
        grad = np.empty(self.d + self.fit_intercept)
        grad[: self.d] = sums["u"] + dt * sums["v"] + (0.0 if w is None else self.lam * w)
        if self.fit_intercept:
            grad[self.d] = sums["su"] + dt * sums["sv"]
        return grad

    def value_grad(self, theta, mode: str, tau: float = 0.0):
        self.n_evals += 1
        sums = self._sums(theta)
        t, dt = self.outer(sums["g"], mode, tau)
        w = self.split(theta)[0]
        return float(sums["pos"] + t + 0.5 * self.lam * (w @ w)), self._gradient_of(sums, dt, w)

    def split_gradients(self, theta):
        sums = self._sums(theta)
        w = self.split(theta)[0]
        grad_b = self._gradient_of({**sums, "v": 0.0, "sv": 0.0}, 0.0, w)
        grad_g = self._gradient_of({**sums, "u": 0.0, "su": 0.0}, 1.0, None)
        return grad_b, grad_g


def prepare(X, s, sample_weight):
    """``(chunks, n_features, summary)``: the Dask input checked as in memory (NaN or
    infinite features, the PU labels, the weights) in one pass; the chunks in the form the
    passes read, kept on the workers where ``X`` is held there."""
    X = as_dask_array(X, name="X")
    s = align_rows(X, s, x_name="X", y_name="s")
    client = get_client(_NO_CLIENT)
    sources = [chunk_sources(client, X), chunk_sources(client, s)]
    if sample_weight is None:
        sources.append([None] * len(sources[0]))
    else:
        sources.append(chunk_sources(client, align_rows(X, sample_weight, y_name="sample_weight")))
    chunks = Chunks(client, list(zip(*sources, strict=True)), rows=X.chunks[0])
    offsets = np.cumsum([0, *X.chunks[0][:-1]]).astype(int).tolist()
    info = chunks.map_reduce(_check, offsets, merge=_merge_checks)
    if info["bad_row"] >= 0:
        raise ValueError(
            f"Input X contains NaN or infinity (row {info['bad_row']}): NNPUClassifier needs "
            "finite features; drop or impute the missing values first"
        )
    check_pu_summary(info["labels"])
    if info["bad_weight"]:
        raise ValueError("sample_weight must hold finite, non-negative numbers")
    for name, total in (("labeled positives", info["wp"]), ("unlabeled points", info["wu"])):
        if not total > 0:
            raise ValueError(
                f"sample_weight sums to 0 over the {name}: give at least one of them a "
                "positive weight"
            )
    from distributed import Future

    if isinstance(chunks.chunks[0][0], Future):  # held: the engine form made once
        chunks = chunks.with_chunks(chunks.each(_part))
    else:  # read from storage again each pass
        chunks = chunks.with_chunks([("read", *c) for c in chunks.chunks])
    return chunks, int(X.shape[1]), info, _is_sparse(X)


def _got(chunk):
    """A chunk's part: held (made once), or ``("read", X, s, weight)`` made now."""
    return _part(chunk[1:]) if len(chunk) == 4 else chunk


def prior_threshold_dask(chunks, w, b, share, n) -> float:
    """:func:`~unlabeled.pu._base.prior_threshold` of the ``n`` unlabeled points' decision
    values, exactly, without bringing them back: the interval (lo, hi] that holds the values
    of the ranks it needs (from the top: k and k + 1, ``k = round(share n)``; 1 or n at the
    ends) is narrowed by counts above a grid of thresholds until at most :data:`_FEW` values
    lie in it (or they are all equal); those come back and finish the selection."""
    k = int(round(share * n))
    ranks = [1] if k <= 0 else [n] if k >= n else [k, k + 1]
    lo, hi, above_hi = -np.inf, np.inf, 0  # above_hi: the values above hi
    for _ in range(200):
        bounded = bool(np.isfinite(lo) and np.isfinite(hi))
        grid = np.linspace(lo, hi, _GRID + 1)[1:-1] if bounded else np.zeros(0)
        above, count, (vmin, vmax) = chunks.map_reduce(
            _count_above, args=(w, b, grid, lo, hi), merge=_merge_counts
        )
        if vmin == vmax:  # every value in (lo, hi] the same: the ranks' values
            values = {r: vmin for r in ranks}
            break
        if count <= _FEW:
            found = chunks.gather(chunks.each(_values_in, args=(w, b, lo, hi)))
            top = np.sort(np.concatenate(found))[::-1]
            values = {r: float(top[r - above_hi - 1]) for r in ranks}
            break
        if not bounded:  # the first pass: the range of the values
            lo, hi = float(np.nextafter(vmin, -np.inf)), float(vmax)
            continue
        # tops[t]: the values above edges[t]; the ranks lie in (edges[j], edges[i]]
        edges = np.r_[lo, grid, hi]
        tops = np.r_[above_hi + count, above, above_hi]
        j = int(np.flatnonzero(tops >= ranks[-1])[-1])
        i = int(np.flatnonzero(tops < ranks[0])[0])
        lo, hi, above_hi = float(edges[j]), float(edges[i]), int(tops[i])
    else:  # pragma: no cover - each pass divides the interval by _GRID
        raise RuntimeError("the threshold's search did not narrow its interval")
    if k <= 0:
        f = values[1]
        return f + max(1.0, abs(f)) * 1e-9
    if k >= n:
        f = values[n]
        return f - max(1.0, abs(f)) * 1e-9
    return (values[k] + values[k + 1]) / 2


def _is_sparse(X) -> bool:
    return sp.issparse(getattr(X, "_meta", None))
