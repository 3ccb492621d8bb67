r"""Linear PUSVC on a Dask cluster: CoCoA+ rounds at a fixed offset, the offset found by an
outer search, and a duality gap that certifies the model.

The problem is PUSVC's (see :class:`~unlabeled.pu.PUSVC`), divided by ``2 lam``: with
``c1 = pi / (2 lam p)``, ``c2 = 1 / (2 lam n)`` and ``dh(z) = max(z, (1 + z)/2, 0)``,

.. math::

    P(w, \beta) = \tfrac12\|w\|^2 - c_1\sum_{x\in P}(w^\top x + \beta)
                  + c_2\sum_{x\in U} dh(w^\top x + \beta),

whose dual in ``sigma`` (``0 <= sigma_u <= c2``, ``sum sigma = c1 p``) is
``E(sigma) = -1/2 ||w(sigma)||^2 - sum_u vee(sigma_u)`` with
``w(sigma) = c1 sum_P x_p - sum_U sigma_u x_u`` and ``vee(s) = max(-s, s - c2)``.

For a fixed offset ``beta`` the equality constraint leaves the dual (its multiplier is
``beta``: the linear term ``-beta sum sigma``) and the dual separates over the rows. Each
round of CoCoA+ (Ma et al., ICML 2015; Smith et al., JMLR 2018) then runs, on every chunk ``k``
of rows and against the current ``w``, the engine's linear dual coordinate descent on the
chunk's variables for the local subproblem

.. math::

    \min_{\Delta\sigma_k}\ \sum_{u\in k}\bigl(vee(\sigma_u + \Delta\sigma_u)
        - \beta\,\Delta\sigma_u\bigr) - w^\top X_k^\top\Delta\sigma_k
        + \frac{\sigma'}{2}\|X_k^\top\Delta\sigma_k\|^2 ,

with the safe scaling ``sigma' = K`` (``K`` chunks holding unlabeled points) and the updates
added (``gamma = 1``): the engine's quadratic term ``mu/2 ||w0 - X_k^T sigma_k||^2`` with
``mu = sigma'`` and ``w0 = w / sigma' + X_k^T sigma_k`` is exactly this subproblem. Only ``w``
(``d`` floats) and scalars go to the workers, and ``d`` floats plus scalars come back, summed by
a tree reduction. The data never leave the workers. Where ``X`` is persisted (or its graph
carries the data, as ``from_array`` of an array in memory does) its chunks stay in the workers'
memory; otherwise each pass reads every chunk again from its source, one at a time, so that a
worker holds its chunks' ``sigma`` (8 bytes per unlabeled row) and one chunk: memory flat in
``n``, as Spark's iterative algorithms do with an input that is not cached.

The start is the in-memory fit of a stratified sample (a share of the labeled positives and of
the unlabeled rows, drawn without replacement across the chunks; the objective is a mean over
``P`` plus a mean over ``U``, so each set sampled at its own rate keeps it unbiased): its
offset starts the search below, and its decision values ``f_u`` place every ``sigma_u`` where
the separable problem would (``c2`` times the slope of ``dh`` at ``f_u``). From there a few
rounds suffice where a start without the sample took dozens.

The offset is found as the in-memory linear path finds it: ``S(beta) = sum sigma(beta)`` is
non-decreasing, and a bracketed secant (regula falsi with the Illinois halving) finds
``S(beta) = c1 p`` from the states solved at fixed offsets. Every state gives, in the same
pass over its chunks, ``P(w, beta)`` (an upper bound of the optimum), ``E(sigma)`` and
``r = S - c1 p``. For two states with ``r_lo <= 0 <= r_hi`` and
``theta = r_hi / (r_hi - r_lo)``, the mixture ``theta sigma_lo + (1 - theta) sigma_hi`` is
feasible for the full dual, so by concavity of ``E`` and joint convexity of ``P``

.. math::

    \theta E_{lo} + (1-\theta) E_{hi} \le \min P \le
    P(\theta w_{lo} + (1-\theta) w_{hi},\ \theta\beta_{lo} + (1-\theta)\beta_{hi})
    \le \theta P_{lo} + (1-\theta) P_{hi} ,

a certificate from scalars alone. The fit stops when its width, times ``2 lam`` (the units of
``objective_``), is at most ``tol * max(1, |objective_|)``; the model is the mixture, and a last
pass computes its objective exactly, so ``duality_gap_ = objective_ - 2 lam * lower bound``.
"""

from __future__ import annotations

import operator
import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning

from .. import _engine
from .._dask import (
    Chunks,
    Stored,
    add,
    align_rows,
    as_dask_array,
    chunk_sources,
    get_client,
    load,
)
from .._validation import check_pu_summary, merge_pu_summaries, pu_label_summary
from ._base import prior_threshold

#: rounds when ``max_iter`` is None
DEFAULT_MAX_ROUNDS = 1000
#: epochs of coordinate descent per local subproblem and round (CoCoA+'s inexact local solver)
LOCAL_EPOCHS = 2
#: a state counts as solved for the offset search when its gap at fixed offset is at most this
#: share of |r| times the search's next step (about the distance of V(beta) to the optimum)
INNER_SHARE = 0.1
#: bins of the decision values f_u (counts per round, for the offset search's model step)
_EDGES = np.linspace(-6.0, 6.0, 241)
#: the start is the in-memory fit of a sample: this share of the labeled positives and of the
#: unlabeled rows, at most SAMPLE_ROWS of each
SAMPLE_SHARE = 0.1
SAMPLE_ROWS = 25_000
#: rows per block of the dense products on a worker (bounded temporary memory)
_BLOCK_ROWS = 1 << 16
#: the error without a distributed client
_NO_CLIENT = (
    "PUSVC.fit on Dask input runs on a dask.distributed cluster: install "
    "dask[distributed] and create a distributed.Client first (e.g. "
    "Client(LocalCluster())), or pass NumPy arrays (X.compute()) if the data fit in memory"
)
#: the merges of a chunk's checks: the first bad row, the labels' summaries
_FLAGS = {"bad_row": lambda a, b: b if a < 0 else a, "labels": merge_pu_summaries}


# ---------------------------------------------------------------------------------- workers
def _as_part(Xk, sk):
    """A chunk as the engine reads it: (X, unlabeled rows, labeled positive rows); dense
    float32 and float64 rows as they are, other dense types as float64, sparse as CSR."""
    if sp.issparse(Xk):
        Xk = sp.csr_matrix(Xk, dtype=np.float64, copy=True)
        Xk.sum_duplicates()
        Xk.indices = Xk.indices.astype(np.int32, copy=False)
    else:
        Xk = np.asarray(Xk)
        if Xk.dtype not in (np.float32, np.float64):
            Xk = Xk.astype(np.float64)
        Xk = np.ascontiguousarray(Xk)
    sk = np.asarray(sk)
    pos_mask = sk if sk.dtype == bool else sk == 1
    return Xk, np.flatnonzero(~pos_mask).astype(np.int32), np.flatnonzero(pos_mask).astype(np.int32)


def _part(source):
    """The chunk ``source`` as :func:`_as_part` gives it: ``source`` is that part already (made
    once where X is kept in memory), or ``(X_k, s_k)``, each held in memory or
    :class:`~unlabeled._dask.Stored` (made again on every pass)."""
    if len(source) == 3:
        return source
    return _as_part(load(source[0]), load(source[1]))


def _check_chunk(source, offset):
    """The checks and statistics of one chunk: its first row with NaN or infinity, its label
    values, its numbers of labeled positives and unlabeled rows, sum_P x and sum_U x."""
    Xk, sk = load(source[0]), load(source[1])
    Xk, unl, pos = _as_part(Xk, sk)
    sk = np.asarray(sk)
    stats = {"rows": Xk.shape[0], "bad_row": -1, "labels": pu_label_summary(sk, offset)}
    values = Xk.data if sp.issparse(Xk) else Xk
    finite = np.isfinite(values)
    if not finite.all():
        if sp.issparse(Xk):
            row = int(np.searchsorted(Xk.indptr, np.flatnonzero(~finite)[0], side="right") - 1)
        else:
            row = int(np.flatnonzero(~finite.all(axis=1))[0])
        stats["bad_row"] = offset + row
    stats["p"], stats["n"], stats["k"] = pos.size, unl.size, int(unl.size > 0)
    if stats["bad_row"] < 0:
        one = np.zeros(Xk.shape[0])
        one[pos] = 1.0
        stats["sum_pos"] = xt_dot(Xk, one)
        one[:] = 0.0
        one[unl] = 1.0
        stats["sum_unl"] = xt_dot(Xk, one)
    return stats


def x_dot(X, w):
    """X @ w in float64, dense float32 rows converted a block at a time."""
    if sp.issparse(X) or X.dtype == np.float64:
        return np.asarray(X @ w, dtype=np.float64)
    out = np.empty(X.shape[0])
    for i in range(0, X.shape[0], _BLOCK_ROWS):
        out[i : i + _BLOCK_ROWS] = X[i : i + _BLOCK_ROWS].astype(np.float64) @ w
    return out


def xt_dot(X, u):
    """X' u in float64 (see :func:`x_dot`)."""
    if sp.issparse(X) or X.dtype == np.float64:
        return np.asarray(X.T @ u, dtype=np.float64)
    out = np.zeros(X.shape[1])
    for i in range(0, X.shape[0], _BLOCK_ROWS):
        out += X[i : i + _BLOCK_ROWS].T.astype(np.float64) @ u[i : i + _BLOCK_ROWS]
    return out


def _v(X, unl, sigma):
    """X_U' sigma for the chunk's unlabeled rows."""
    full = np.zeros(X.shape[0])
    full[unl] = sigma
    return xt_dot(X, full)


def _counts(stats):
    """(labeled positives, unlabeled rows) of a chunk's statistics."""
    return stats["p"], stats["n"]


def _sample_rows(source, m_pos, m_unl, seed):
    """``m_pos`` labeled positives and ``m_unl`` unlabeled rows of the chunk, drawn without
    replacement: (their rows of X as float64, labels 1/0)."""
    X, unl, pos = _part(source)
    rng = np.random.default_rng(seed)
    rows = np.concatenate(
        [rng.choice(pos, m_pos, replace=False), rng.choice(unl, m_unl, replace=False)]
    )
    s = np.r_[np.ones(m_pos, dtype=np.int8), np.zeros(m_unl, dtype=np.int8)]
    return X[rows].astype(np.float64), s


def _init_state(part, c2, w, beta):
    """The start: each sigma_u where the separable problem puts it at the decision values of
    the sample's model (w, beta): c2 times the slope of dh at f_u = <w, x_u> + beta (1 above
    1, 1/2 in [-1, 1], 0 below), with its X_U' sigma."""
    X, unl, _ = part
    f = x_dot(X[unl], w) + beta
    sigma = c2 * np.where(f > 1, 1.0, np.where(f >= -1, 0.5, 0.0))
    return sigma, _v(X, unl, sigma)


def _init_group(c2, w, beta, *sources):
    """The start states of a worker's chunks (read one at a time)."""
    return tuple(_init_state(_part(source), c2, w, beta) for source in sources)


def _group_v(states):
    """The sum of X_U' sigma over a worker's chunks."""
    return sum(v for _, v in states)


def _engine_data(X):
    if sp.issparse(X):
        return _engine.Data.csr(X.data, X.indices, X.indptr.astype(np.int64), X.shape[1])
    return _engine.Data.dense(X)


def _chunk_stats(part, state, w, beta, c2):
    """The statistics of one chunk at (w, beta, sigma_k): sum_P <w, x>, sum_U dh(f), sum_U
    vee(sigma), sum_U sigma and X_U' sigma."""
    X, unl, pos = part
    sigma, v = state
    f = x_dot(X, w)
    fu = f[unl] + beta
    return {
        "fp": float(f[pos].sum()),
        "dh": float(np.maximum(np.maximum(fu, 0.5 * (1.0 + fu)), 0.0).sum()),
        "vee": float(np.maximum(-sigma, sigma - c2).sum()),
        "sig": float(sigma.sum()),
        "v_new": v,
        "iter": 0,
        "hist": np.histogram(np.clip(fu, _EDGES[0], _EDGES[-1]), bins=_EDGES)[0].astype(float),
    }


def _chunk_solve(part, state, w0, beta, c2, scale, tol, shrinking, epochs, seed):
    """The engine's coordinate descent on one chunk's variables for
    min mu/2 ||w0 - X_U' sigma||^2 + sum_u (vee(sigma_u) - beta sigma_u), mu = scale, from
    sigma_k; returns the new state and its number of coordinate updates."""
    X, unl, _ = part
    sigma, _ = state
    ones = np.ones(unl.size)
    res = _engine.solve_linear_dual(
        _engine_data(X),
        unl,
        -ones,
        c2 * ones,
        sigma,
        -np.ones((unl.size, 1), dtype=np.int8),
        mu=np.array([scale]),
        w0=np.asarray(w0, dtype=np.float64)[None, :],
        shift=float(beta),
        options=_engine.SolverOptions(float(tol), bool(shrinking), int(epochs * unl.size)),
        seed=int(seed),
        kink=0.5 * c2 * ones,
        jump=2.0 * ones,
    )
    sigma_new = np.clip(np.asarray(res.alpha, dtype=np.float64), 0.0, c2)
    return (sigma_new, _v(X, unl, sigma_new)), int(res.n_iter)


def _round(w, beta, c2, scale, tol, shrinking, epochs, seed, solve, state, *sources):
    """One worker's share of a round, on its chunks (``sources``, read one at a time): the
    statistics of the incoming state (w, beta, sigma), then (``solve``) CoCoA+'s local
    subproblem of the worker's variables, by block coordinate descent over its chunks (each
    block the engine's coordinate descent against the worker's copy of w, which takes the
    blocks' updates). ``state``: the chunks' (sigma, X_U' sigma), or the previous round's
    result. Returns (new states, summed statistics, with ``v_new`` = the new sum of
    X_U' sigma)."""
    if len(state) == 2 and isinstance(state[1], dict):
        state = state[0]
    states = list(state)
    moved = np.zeros_like(w)  # X' (sigma_new - sigma) of the blocks done
    stats = []
    for k, source in enumerate(sources):
        part = _part(source)
        stats.append(_chunk_stats(part, states[k], w, beta, c2))
        if not solve or part[1].size == 0:
            continue
        v_old = states[k][1]
        w0 = w / scale - moved + v_old
        states[k], iters = _chunk_solve(
            part, states[k], w0, beta, c2, scale, tol, shrinking, epochs, seed + k
        )
        moved += states[k][1] - v_old
        stats[-1]["iter"] = iters
    total = _add_stats(*stats)
    total["v_new"] = total["v_new"] + moved
    return tuple(states), total


def _add_stats(*parts):
    """The sum of per-chunk statistics (dicts of numbers and arrays, :func:`add`); the
    checks merged by :data:`_FLAGS` (the first bad row, the labels' summaries)."""
    out = parts[0]
    for other in parts[1:]:
        merged = add(
            {k: v for k, v in out.items() if k not in _FLAGS},
            {k: v for k, v in other.items() if k not in _FLAGS},
        )
        merged.update({k: f(out[k], other[k]) for k, f in _FLAGS.items() if k in out})
        out = merged
    return out


# ---------------------------------------------------------------------------------- client
def _certificate(history):
    """The best pair of states (lo, hi, theta, upper, lower) with r_lo <= 0 <= r_hi, or None."""
    if not history:
        return None
    r = np.array([h["r"] for h in history])
    P = np.array([h["P"] for h in history])
    E = np.array([h["E"] for h in history])
    lo, hi = np.flatnonzero(r <= 0), np.flatnonzero(r >= 0)
    if lo.size == 0 or hi.size == 0:
        return None
    rl, rh = r[lo][:, None], r[hi][None, :]
    span = rh - rl
    with np.errstate(invalid="ignore", divide="ignore"):
        theta = np.where(span > 0, rh / np.where(span > 0, span, 1.0), 1.0)
    upper = theta * P[lo][:, None] + (1 - theta) * P[hi][None, :]
    lower = theta * E[lo][:, None] + (1 - theta) * E[hi][None, :]
    i, j = np.unravel_index(np.argmin(upper - lower), upper.shape)
    return int(lo[i]), int(hi[j]), float(theta[i, j]), float(upper[i, j]), float(lower[i, j])


def _model_step(hist, r, c2):
    """The offset change that moves sum sigma by -r if each sigma_u followed its own f_u + d
    at fixed w (c2 above 1, c2/2 in [-1, 1], 0 below): from the counts of f_u in the bins
    _EDGES, shifts by whole bins; NaN when none reaches it within the bins' range."""
    width = _EDGES[1] - _EDGES[0]
    centers = 0.5 * (_EDGES[1:] + _EDGES[:-1])
    shifts = np.arange(-centers.size, centers.size + 1) * width
    f = centers[None, :] + shifts[:, None]
    s = c2 * (hist[None, :] * np.where(f > 1, 1.0, np.where(f >= -1, 0.5, 0.0))).sum(axis=1)
    change = s - s[centers.size]
    ok = np.flatnonzero(change >= -r) if r < 0 else np.flatnonzero(change <= -r)
    if ok.size == 0:
        return np.nan
    k = ok[np.argmin(np.abs(shifts[ok]))]
    return float(shifts[k])


class _OffsetSearch:
    """The in-memory linear path's search for S(beta) = c1 p (pu_dh.cpp, offset_search):
    secant steps until a bracket is known, then regula falsi with the Illinois halving."""

    def __init__(self, beta):
        self.beta = beta
        self.lo, self.hi = -np.inf, np.inf
        self.r_lo = self.r_hi = self.prev_b = self.prev_r = np.nan
        self.last_side = 0

    def expected_step(self, r, model=np.nan):
        """The length of the step that :meth:`step` would take from a state with residual r."""
        saved = dict(vars(self))
        try:
            return abs(self.step(r, model) - saved["beta"])
        finally:
            vars(self).update(saved)

    def step(self, r, model=np.nan):
        """The next offset after the state at ``self.beta`` was solved with residual ``r``;
        ``model``: the step that the decision values' counts suggest (:func:`_model_step`),
        taken when it points the right way and stays inside the bracket."""
        beta = self.beta
        side = -1 if r < 0 else 1
        if side < 0:
            self.lo, self.r_lo = beta, r
        else:
            self.hi, self.r_hi = beta, r
        bracket = np.isfinite(self.lo) and np.isfinite(self.hi)
        if bracket and side == self.last_side:
            if side < 0:
                self.r_hi /= 2
            else:
                self.r_lo /= 2
        nxt = np.nan
        if bracket:
            nxt = self.lo - self.r_lo * (self.hi - self.lo) / (self.r_hi - self.r_lo)
        elif np.isfinite(self.prev_b) and r != self.prev_r:
            nxt = beta - r * (beta - self.prev_b) / (r - self.prev_r)
            # extrapolate at most 3x the last move, in the right direction
            limit = 3 * abs(beta - self.prev_b)
            if not (-side * (nxt - beta) > 0):
                nxt = np.nan
            else:
                nxt = beta - side * min(abs(nxt - beta), limit)
        if not np.isfinite(self.prev_b) and np.isfinite(model) and -side * model > 0:
            nxt = beta + model  # the first step, before the secant has a slope
        if not np.isfinite(nxt):
            nxt = beta - side * 0.1
        if bracket and not (self.lo < nxt < self.hi):
            nxt = 0.5 * (self.lo + self.hi)
        self.last_side = side
        self.prev_b, self.prev_r = beta, r
        self.beta = float(nxt)
        return self.beta


def fit_linear_dask(est, X, s, prior: float, lam: float) -> None:
    """Fit ``est`` (a PUSVC with ``kernel="linear"``) on Dask ``X`` and ``s``; sets its fitted
    attributes, including ``duality_gap_`` and ``n_rounds_``. See the module's docstring.
    Nothing of size n reaches the client: the chunks' states stay on the workers and the
    model is ``w`` and the offset (``support_`` empty)."""
    X = as_dask_array(X, name="X")
    s = align_rows(X, s, x_name="X", y_name="s")
    client = get_client(_NO_CLIENT)
    # the chunks: kept in the workers' memory where X (or s) is persisted or its graph carries
    # its data; otherwise read again from their source on every pass
    # CoCoA+'s partitions: the chunks of one worker (those it holds, or an even share of
    # those read from storage: the chunks' homes) form one local subproblem, solved there
    # against its copy of w; sigma' = K, the number of partitions. A group's state (the sigma
    # and X_U' sigma of its chunks) lives on its worker as the result of its last round
    chunks = Chunks(
        client,
        list(zip(chunk_sources(client, X), chunk_sources(client, s), strict=True)),
        rows=X.chunks[0],
    )
    info, counts = _checked(chunks, X.chunks[0])
    # the homes again after that first pass: a cluster that has just started may not have
    # had all its workers when the fit began, and the partitions are the workers' chunks
    chunks = Chunks(client, chunks.chunks, rows=X.chunks[0])
    p, n = int(info["p"]), int(info["n"])
    c1, c2 = prior / (2 * lam * p), 1.0 / (2 * lam * n)
    seed0 = int(np.random.default_rng(_seed(est.random_state)).integers(2**31))
    # chunks of X kept in memory: their engine form made once, not on every pass (a sparse
    # chunk is copied to CSR float64)
    if not isinstance(chunks.chunks[0][0], Stored):
        chunks = chunks.with_chunks(chunks.each(_part))
    # the start: the in-memory fit of a stratified sample of the rows (the objective is a
    # mean over P plus a mean over U, so sampling each at its own rate keeps it unbiased);
    # its decision values place every sigma_u as the separable problem would
    w_s, beta_s, X_unl = _sample_fit(chunks, counts, est, prior, lam, seed0)
    rounds = _Rounds(chunks, est, c2)
    states, v_sum = rounds.start(w_s, beta_s)
    problem = {"c1": c1, "c2": c2, "p": p, "lam": lam, "w_pos": c1 * info["sum_pos"]}
    max_rounds = DEFAULT_MAX_ROUNDS if est.max_iter is None else int(est.max_iter)
    history, n_iter, states, cert, target = _search(
        rounds, states, v_sum, beta_s, problem, est.tol, max_rounds, seed0
    )
    converged = cert is not None and cert[3] - cert[4] <= target
    if cert is not None:
        i, j, theta, upper, lower = cert
        lo, hi = history[i], history[j]
        w_fit = theta * lo["w"] + (1 - theta) * hi["w"]
        beta_fit = theta * lo["beta"] + (1 - theta) * hi["beta"]
    else:  # no bracket: the last state, and no finite lower bound
        w_fit, beta_fit, lower = history[-1]["w"], history[-1]["beta"], -np.inf
    # the model's exact objective: one pass without a solve
    st = rounds.run(states, w_fit, beta_fit, False, 0)[1]
    P_fit = 0.5 * float(w_fit @ w_fit) - c1 * (st["fp"] + p * beta_fit) + c2 * st["dh"]
    objective = 2 * lam * P_fit
    gap = 2 * lam * (P_fit - lower)
    if not converged:
        warnings.warn(
            f"PUSVC on Dask input stopped after max_iter={max_rounds} rounds with a duality "
            f"gap of {gap:.3g} (tol={est.tol} times max(1, |objective|) was asked): raise "
            "max_iter",
            ConvergenceWarning,
            stacklevel=4,
        )
    # threshold="prior": the quantile over the sample's unlabeled rows, an unbiased estimate
    # of the quantile over all of them (its share off by about 1/sqrt(25,000) at most)
    t = 0.0
    if est.threshold == "prior":
        t = prior_threshold(np.asarray(X_unl @ w_fit).ravel() + beta_fit, prior)
    _store(est, X.shape[0], X.shape[1], w_fit, beta_fit - t, sp_input=_is_sparse(X))
    est.threshold_ = float(t)
    est.prior_ = float(prior)
    est.objective_ = float(objective)
    est.duality_gap_ = float(max(gap, 0.0))
    est.n_rounds_ = int(len(history))
    est.n_iter_ = int(n_iter)


def _checked(chunks, rows):
    """The chunks' checks and sums, reduced (:func:`_check_chunk`), with the errors of bad
    input raised; and each chunk's (labeled positives, unlabeled rows)."""
    offsets = np.cumsum([0, *rows[:-1]]).astype(int).tolist()
    part_stats = chunks.each(_check_chunk, offsets)
    counts = chunks.gather(chunks.each(_counts, part_stats, chunk=False))
    info = chunks.reduce(part_stats, merge=_add_stats)
    if info["bad_row"] >= 0:
        raise ValueError(
            f"Input X contains NaN or infinity (row {info['bad_row']}): PUSVC needs finite "
            "features; drop or impute the missing values first"
        )
    check_pu_summary(info["labels"])
    info["sum_pos"] = np.asarray(info["sum_pos"], dtype=np.float64)
    return info, counts


class _Rounds:
    """CoCoA+'s rounds on the workers: each group of chunks (a worker's, :meth:`Chunks.groups`)
    runs its share of a round (:func:`_round`) at its home; its state (the chunks' sigma and
    X_U' sigma) stays there, as a future of its last round."""

    def __init__(self, chunks, est, c2):
        self.chunks, self.groups = chunks, chunks.groups()
        self.c2, self.scale = c2, float(len(self.groups))
        self.tol, self.shrinking = est.tol, est.shrinking

    def _sources(self, idx):
        return [self.chunks.chunks[k] for k in idx]

    def start(self, w, beta):
        """The start states (futures, one per group) at the sample's model, and the sum of
        their X_U' sigma."""
        chunks = self.chunks
        states = [
            chunks.at(where, _init_group, self.c2, w, beta, *self._sources(idx))
            for where, idx in self.groups
        ]
        sums = [chunks.at(g[0], _group_v, st) for g, st in zip(self.groups, states, strict=True)]
        return states, np.asarray(sum(chunks.gather(sums)), dtype=np.float64)

    def run(self, states, w, beta, solve, seed):
        """Submit one round; returns (new state futures, the summed statistics)."""
        new_states, stat_futs = [], []
        for g, (where, idx) in enumerate(self.groups):
            fut = self.chunks.at(
                where,
                _round,
                w,
                beta,
                self.c2,
                self.scale,
                self.tol,
                self.shrinking,
                LOCAL_EPOCHS,
                seed + 1009 * g,
                solve,
                states[g],
                *self._sources(idx),
            )
            new_states.append(fut)
            stat_futs.append(self.chunks.at(where, operator.getitem, fut, 1))
        return new_states, self.chunks.reduce(stat_futs, merge=_add_stats)


def _search(rounds, states, v_sum, beta, problem, tol, max_rounds, seed0):
    """The rounds of the offset search (see the module's docstring) from the start states:
    returns (history of the states solved, coordinate updates, the last states, the
    certificate or None, the target width of the certificate)."""
    c1, c2, p, lam = problem["c1"], problem["c2"], problem["p"], problem["lam"]
    w_pos, total = problem["w_pos"], c1 * p
    w = w_pos - v_sum
    search = _OffsetSearch(beta)
    history: list[dict] = []
    n_iter, done, cert, target = 0, 0, None, np.inf
    while True:
        last = done >= max_rounds
        new_states, st = rounds.run(states, w, beta, not last, seed0 + 7919 * done)
        ww = float(w @ w)
        P = 0.5 * ww - c1 * (st["fp"] + p * beta) + c2 * st["dh"]
        E = -0.5 * ww - st["vee"]
        r = st["sig"] - total
        gap_beta = P - E - beta * r
        history.append({"P": P, "E": E, "r": r, "beta": beta, "w": w})
        n_iter += int(st["iter"])
        cert = _certificate(history)
        best_upper = min(h["P"] for h in history)  # every P is an upper bound of the optimum
        target = tol * max(1.0, 2 * lam * abs(best_upper)) / (2 * lam)
        if (cert is not None and cert[3] - cert[4] <= target) or last:
            del new_states
            return history, n_iter, states, cert, target
        done += 1
        states = new_states
        w = w_pos - np.asarray(st["v_new"], dtype=np.float64)
        # a state is solved well enough for the offset search when its gap is small next to
        # the distance to the root that the search's next step expects (|r| times the step)
        model = _model_step(st["hist"], r, c2)
        if gap_beta <= max(0.5 * target, INNER_SHARE * abs(r) * search.expected_step(r, model)):
            beta = search.step(r, model)


def _sample_fit(chunks, counts, est, prior, lam, seed):
    """(w, beta, the sample's unlabeled rows) of the in-memory PUSVC fit, with ``est``'s
    parameters and the solver's offset beta, of a sample of the rows: of each of the two sets
    (labeled positives, unlabeled rows) a share :data:`SAMPLE_SHARE`, at most
    :data:`SAMPLE_ROWS` and at least one row, drawn without replacement across the chunks
    (``counts``: each chunk's (p_k, n_k))."""
    from sklearn.base import clone

    rng = np.random.default_rng(seed)
    take = []
    for column in np.asarray(counts, dtype=np.int64).T:
        m = min(SAMPLE_ROWS, int(np.ceil(SAMPLE_SHARE * column.sum())))
        take.append(rng.multivariate_hypergeometric(column, m))
    futs = [
        chunks.on(k, _sample_rows, source, int(mp), int(mu), seed + k)
        for k, (source, mp, mu) in enumerate(zip(chunks.chunks, *take, strict=True))
        if mp + mu > 0
    ]
    pieces = chunks.gather(futs)
    Xs = [x for x, _ in pieces]
    X = sp.vstack(Xs, format="csr") if sp.issparse(Xs[0]) else np.vstack(Xs)
    model = clone(est).set_params(
        prior=prior, lam=lam, random_state=seed, verbose=False, max_iter=None, threshold="zero"
    )
    labels = np.concatenate([t for _, t in pieces])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(X, labels)
    coef = model.coef_
    coef = coef.toarray() if sp.issparse(coef) else coef
    unl = np.flatnonzero(labels != 1)
    return np.asarray(coef, dtype=np.float64).ravel(), float(model.intercept_[0]), X[unl]


def _is_sparse(X) -> bool:
    return sp.issparse(getattr(X, "_meta", None))


def _seed(random_state):
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(np.iinfo(np.int32).max))
    return random_state


def _store(est, n_rows, d, w, beta, sp_input) -> None:
    """The fitted linear model: ``w`` and ``beta``, without the n coefficients (support_ empty:
    a Dask fit keeps no per-row arrays on the client), through the kernel machine's setter."""
    none = sp.csr_matrix((0, d)) if sp_input else np.empty((0, d))
    est.set_expansion(none, np.empty(0), float(beta), w=w, classes=np.array([0, 1]))
    est.shape_fit_ = (int(n_rows), int(d))  # the training rows, all on the workers
    est.n_features_in_ = int(d)
