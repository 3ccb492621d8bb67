"""CLSST on Dask arrays: the VBMFA of :mod:`._vbmfa` with its points on the workers.

The points are persisted once on the workers as chunks (the row blocks of ``X``): each chunk
holds its columns ``Yt`` (p, m) and, if it has labeled rows, its label mask and ln C; its
per-point state is a separate result that every pass replaces, small between passes (the
q(x) map and the recipe of Q, see :class:`_Points`; Q itself only after a birth, a death
or the k-means start).
A pass runs the :mod:`._vbmfa` chunk kernels that it needs, back to back, as one task on
each chunk (where its data lives: one pass per sweep, x, Q, responsibilities and statistics
together) and adds the chunks' statistics by the Dask layer's tree reduction
(:class:`unlabeled._dask.Chunks`, its root the client): one round trip per pass. The
client makes the global update with the in-memory code (:class:`DaskVBMFA` inherits every
global update, SQUAREM, births, deaths and the bound from :class:`VBMFA`). Nothing of size n
comes back or is made on the client: per-point results (the fitted ``transduction_`` and
``labels_``) are Dask arrays built from the chunks, and the k-means start draws its first
centre without an array of n weights (:func:`uniform_choice`). The kernels run with one BLAS
thread and with their temporaries on the heap (the layer's ``heap_temporaries``), as in a
plain process.

Every quantity is the in-memory one summed in another order, so a fit gives the in-memory
fit's model up to rounding (the same random_state: the same k-means start, whose draws are
scikit-learn's k-means++ and Lloyd iterations replayed over the chunks; above
``SEARCH_POINTS`` the same sample for CLSST+'s search, drawn on the workers by the
:mod:`._vbmfa` sample kernels and searched in memory, see :meth:`DaskVBMFA.sample`).

Dask is imported only inside functions that received Dask input; the client, placement,
reduction and allocator tuning are the Dask layer's (:mod:`unlabeled._dask`).
"""

from __future__ import annotations

import functools
import operator
import warnings

import numpy as np
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets

from .._dask import (
    Chunks,
    align_rows,
    as_dask_array,
    get_client,
    heap_temporaries,
    small_result,
)
from .._threads import one_blas_thread
from .._validation import MAX_KERNEL_VALUE
from ._base import check_classes, unlabeled_mask
from ._vbmfa import (
    PSI_MIN,
    VBMFA,
    block_slices,
    chunk_class_sums,
    chunk_e_step,
    chunk_fit,
    chunk_label_mistakes,
    chunk_labeled_held,
    chunk_q,
    chunk_q_log_q,
    chunk_remove,
    chunk_resp,
    chunk_sample_counts,
    chunk_sample_rows,
    chunk_sample_smallest,
    chunk_side_scatter,
    chunk_split,
    chunk_stats,
    chunk_x,
    pd_loadings,
    sample_plan,
    smallest,
)


# ---- on the workers ---------------------------------------------------------------------------
def _w_transposed(X):
    """A raw block of X (m, p) as the columns Yt (p, m) of its chunk, always a new array (it is
    divided by the scale in place later, see :func:`_w_chunk`)."""
    X = np.asarray(X)
    Yt = np.empty((X.shape[1], X.shape[0]))
    Yt[...] = X.T
    return {"Yt": Yt, "scale": None}


@small_result
def _w_raw_summary(block, offset):
    """Finiteness, scale and sums of a raw block, its columns ``block["Yt"]`` (p, m)."""
    Yt = block["Yt"]
    bad = ""
    if np.isnan(Yt).any():
        bad = "nan"
    elif np.isinf(Yt).any():
        bad = "inf"
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        sq = np.einsum("pn,pn->n", Yt, Yt)
    big = np.flatnonzero(~(sq <= MAX_KERNEL_VALUE))
    first_big = (offset + int(big[0]), float(sq[big[0]])) if big.size else None
    top = float(sq.max(initial=0.0))
    return {"bad": bad, "big": first_big, "top": top, "sum": Yt.sum(1), "n": Yt.shape[1]}


def _merge_summaries(*parts):
    """The summary of several raw blocks (:func:`_w_raw_summary`), in their order."""
    return functools.reduce(_merge_summary, parts)


def _merge_summary(a, b):
    return {
        "bad": a["bad"] or b["bad"],
        "big": a["big"] or b["big"],
        "top": max(a["top"], b["top"]),
        "sum": a["sum"] + b["sum"],
        "n": a["n"] + b["n"],
    }


@small_result
def _w_centred_squares(block, mean):
    """sum_n (x_n - mean)^2 (p,) of a raw block (its columns ``block["Yt"]``), by blocks of
    :data:`CHUNK` points (temporaries in cache)."""
    Yt = block["Yt"]
    total = np.zeros(Yt.shape[0])
    for b in block_slices(Yt.shape[1]):
        Z = Yt[:, b] - mean[:, None]
        total += np.einsum("pn,pn->p", Z, Z)
    return total


def _w_labels(y):
    """The labeled values of a block of y and how many of each (-1: unlabeled)."""
    y = np.asarray(y)
    labeled = ~unlabeled_mask(y, "CLSST")
    return np.unique(y[labeled], return_counts=True)


def _w_chunk(block, y, scale, classes, K):
    """A chunk: Yt = (X / scale)' (p, m), allowed (m, K), ln C (K, m) and whether no row of
    it is labeled; then allowed is a read-only view of one True and ln C is None (zeros made
    by :func:`_logC` when needed): no memory per row but Yt's.

    Yt is the raw block's own array (:func:`_w_transposed`) divided by ``scale`` in place, so
    that a worker never holds X twice while the chunks are made (a new array per chunk: the
    raw blocks went about five chunks behind, 110 MB more a worker at 10,000,000 rows). The
    block records the division, so that a second call on the same block (Dask recomputing a
    lost chunk while its block is still held) does not divide twice; a copy of the block
    carries its record along."""
    if block["scale"] is None:
        np.divide(block["Yt"], scale, out=block["Yt"])
        block["scale"] = scale
    elif block["scale"] != scale:  # pragma: no cover
        raise RuntimeError("a block of X was divided by another scale")
    Yt = block["Yt"]
    m = Yt.shape[1]
    labeled = np.zeros(m, dtype=bool) if y is None else ~unlabeled_mask(np.asarray(y), "CLSST")
    if labeled.any():
        allowed = np.ones((m, K), dtype=bool)
        allowed[labeled] = np.asarray(y)[labeled][:, None] == classes[None, :]
    else:
        allowed = np.broadcast_to(True, (m, K))
    return {
        "Yt": Yt,
        "allowed": allowed,
        "logC": np.ascontiguousarray(np.where(allowed, 0.0, -np.inf).T) if labeled.any() else None,
        "unlabeled": not labeled.any(),
    }


@small_result
def _w_moments(data):
    Yt = data["Yt"]
    single = data["allowed"].sum(1) == 1
    counts = (data["allowed"] & single[:, None]).sum(0)
    return {
        "sum": Yt.sum(1),
        "y2": np.einsum("pn,pn->p", Yt, Yt),
        "counts": counts.astype(float),
        "unlabeled": bool(data["unlabeled"] or data["allowed"].all()),
    }


@small_result
def _w_centred(data, mean):
    Z = data["Yt"] - mean[:, None]
    return (Z * Z).sum(1)


def _groups(data, groups):
    """Group of each point: its class if it has one candidate class (labels start), else -1;
    or the k-means assignment."""
    if groups is not None:
        return groups
    allowed = data["allowed"]
    single = allowed.sum(1) == 1
    return np.where(single, allowed.argmax(1), -1)


@small_result
def _w_group_sums(data, groups, G):
    g = _groups(data, groups)
    Yt = data["Yt"]
    sums = np.zeros((G, Yt.shape[0]))
    counts = np.zeros(G)
    for c in range(G):
        rows = g == c
        counts[c] = rows.sum()
        sums[c] = Yt[:, rows].sum(1)
    return counts, sums


@small_result
def _w_group_scatter(data, groups, means):
    g = _groups(data, groups)
    out = []
    for c, mean in enumerate(means):
        Z = data["Yt"][:, g == c].T - mean
        out.append(Z.T @ Z)
    return np.array(out)


def _w_q0(data, assign, S0):
    allowed = data["allowed"]
    m = allowed.shape[0]
    Q0 = np.zeros((S0, allowed.shape[1], m))
    Q0[assign, :, np.arange(m)] = allowed / allowed.sum(1, keepdims=True)
    return Q0


def _w_pass(data, pair, steps, glob):
    """The kernels ``steps`` in order on one chunk whose (state, statistics) is ``pair``:
    returns (new state, statistics). With one BLAS thread, as the in-memory fit: the products
    are thin, and a threaded BLAS in each worker process (two on two cores, with other work)
    made the pass six times slower (1,000,000 rows: 1.8 s against 0.3 s in memory); and with
    the temporaries on the heap (:func:`heap_temporaries`)."""
    with one_blas_thread(), heap_temporaries():
        return _pass_steps(data, pair, steps, glob)


class _Points:
    """The per-point state of a chunk inside a task, from what the workers hold of it between
    passes: the q(x) map (W, c) of :func:`chunk_x` and either Q itself (after a birth, a death
    or a given start, which change it in place of an update) or its recipe (the q(x) map and
    the global factors of the Q update that made it). Xm and a recipe's Q are recomputed with
    the same kernels on the same inputs when a step needs them, so they are the numbers that
    a held copy would have been; between passes a chunk holds no array of size m but Q after
    a birth (and none at all through the runs of sweeps, whose passes start with a Q update).
    Holding Xm and Q cost (S k + S K) 8 bytes a point, twice while a pass replaced them."""

    def __init__(self, data, state):
        self.data = data
        self.x = state.get("x")  # (W, c)
        self.Qr = state.get("Qr")  # (the q(x) map, M, psii, terms, prior)
        self._Q = state.get("Q")
        self._Xm = None  # Xm of self.x

    def xm(self, x=None):
        if x is None or x is self.x:
            if self._Xm is None:
                self._Xm = chunk_x(self.data["Yt"], *self.x)
            return self._Xm
        return chunk_x(self.data["Yt"], *x)

    @property
    def Q(self):
        if self._Q is None:
            x, M, psii, terms, prior = self.Qr
            Yt, logC = self.data["Yt"], _logC(self.data)
            self._Q, _ = chunk_q(Yt, self.xm(x), logC, M, psii, terms, prior)
        return self._Q

    def set_x(self, x):
        self.x, self._Xm = x, None

    def set_q(self, Q):
        self._Q, self.Qr = Q, None

    def state(self):
        if self.Qr is not None:
            return {"x": self.x, "Qr": self.Qr}
        return {"x": self.x, "Q": self._Q}


def _logC(data):
    """ln C (K, m): 0 on the allowed classes, -inf elsewhere (a view of one zero for a chunk
    without labels)."""
    if data["logC"] is None:
        return np.broadcast_to(0.0, data["allowed"].shape[::-1])
    return data["logC"]


def _no_xm(S):
    """An Xm of no points for the kernels that carry Xm along (:func:`chunk_remove`,
    :func:`chunk_split`): here the q(x) map is carried instead."""
    return np.empty((S, 0, 0))


def _pass_steps(data, pair, steps, glob):
    pts = _Points(data, pair[0])
    Yt, allowed = data["Yt"], data["allowed"]
    if tuple(steps) == ("x", "q", "resp", "stats"):  # the E step: one pass, Q left as a recipe
        pts.set_x(glob["x"])
        pts.Qr = (pts.x, glob["M"], glob["psii"], glob["terms"], glob["prior"])
        _, _, lse, resp, stats = chunk_e_step(Yt, *pts.x, _logC(data), *pts.Qr[1:], keep=False)
        return pts.state(), {"lse": lse, "resp": resp, "stats": stats}
    out = {}
    for step in steps:
        if step == "x":
            pts.set_x(glob["x"])
        elif step == "q":
            Q, out["lse"] = chunk_q(
                Yt, pts.xm(), _logC(data), glob["M"], glob["psii"], glob["terms"], glob["prior"]
            )
            pts.set_q(Q)
            pts.Qr = (pts.x, glob["M"], glob["psii"], glob["terms"], glob["prior"])
        elif step == "set_q":
            pts.set_q(glob["Q0"])
        elif step == "resp":
            out["resp"] = chunk_resp(pts.Q)
        elif step == "stats":
            out["stats"] = chunk_stats(Yt, pts.Q, pts.xm())
        elif step == "qlogq":
            out["qlogq"] = chunk_q_log_q(pts.Q)
        elif step == "fit":
            out["fit"] = chunk_fit(Yt, pts.Q, pts.xm(), glob["M"], glob["psii"], glob["terms"])
        elif step == "mistakes":
            out["mistakes"] = chunk_label_mistakes(
                Yt, pts.xm(), allowed, glob["M"], glob["psii"], glob["terms"], glob["prior"]
            )
        elif step == "remove":
            keep = glob["keep"]
            Q, _ = chunk_remove(pts.Q, _no_xm(len(keep)), allowed, keep)
            W, c = pts.x
            pts.set_q(Q)
            pts.set_x((W[keep], c[keep]))
        elif step == "held":
            out["held"] = chunk_labeled_held(pts.Q, allowed)
        elif step == "class_sums":
            out["class_sums"] = chunk_class_sums(Yt, pts.Q, allowed, *glob["class_sums"])
        elif step == "split":
            parent = glob["split"][0]
            Q, _, out["split"] = chunk_split(Yt, pts.Q, _no_xm(pts.Q.shape[0]), *glob["split"])
            W, c = pts.x  # the new component's q(x) means: its parent's
            pts.set_q(Q)
            pts.set_x((np.concatenate([W, W[parent][None]]), np.concatenate([c, c[parent][None]])))
        elif step == "scatter":
            out["scatter"] = chunk_side_scatter(Yt, pts.Q, *glob["scatter"])
        else:  # pragma: no cover
            raise ValueError(step)
    return pts.state(), out


def _w_out(pair):
    return pair[1]


def _w_pass_out(data, pair, steps, glob):
    """The statistics of :func:`_w_pass` alone (its new state is known to the client)."""
    return _w_pass(data, pair, steps, glob)[1]


_NO_STATE: tuple[dict, dict] = ({}, {})  # (state, statistics) of a chunk before any pass


def _w_clusters(data, pair):
    with one_blas_thread(), heap_temporaries():
        return _Points(data, pair[0]).Q.sum(1).argmax(0)


def _w_classes(data, pair, classes):
    with one_blas_thread(), heap_temporaries():
        return classes[_Points(data, pair[0]).Q.sum(0).argmax(0)]


def _w_allowed(data):
    return data["allowed"]


# ---- the sample of CLSST+'s search, drawn on the workers ---------------------------------------
@small_result
def _w_sample_counts(data):
    return chunk_sample_counts(data["allowed"])


@small_result
def _w_sample_smallest(data, start, seed, draws, everyone):
    return chunk_sample_smallest(data["allowed"], start, seed, draws, everyone)


def _w_sample(data, start, seed, top, everyone, first):
    """The chunk's rows of the sample: (their points (r, p), their allowed (r, K))."""
    allowed = data["allowed"]
    rows = chunk_sample_rows(allowed, start, seed, top, everyone, first)
    return np.ascontiguousarray(data["Yt"][:, rows].T), np.array(allowed[rows])


# ---- k-means on the workers: scikit-learn's KMeans replayed ----------------------------------
def _centred(data, mean):
    return data["Yt"].T - mean


def _w_row(data, i, mean):
    return data["Yt"][:, i] - mean


def _w_sqdist(data, mean, C):
    """Squared distances (len(C), m) of the centred points to the rows of C, as scikit-learn's
    euclidean_distances(C, X, squared=True)."""
    from sklearn.metrics.pairwise import euclidean_distances

    X = _centred(data, mean)
    return euclidean_distances(C, X, Y_norm_squared=np.einsum("ij,ij->i", X, X)[None], squared=True)


def _w_pp_first(data, mean, c0):
    d = _w_sqdist(data, mean, c0[None])[0]
    return d, float(d.sum())


def _w_pp_trials(data, closest, mean, C):
    D = _w_sqdist(data, mean, C)
    np.minimum(closest, D, out=D)
    return D, D.sum(1)


def _w_pick(pair, best):
    return pair[0][best]


def _w_search(closest, prefix, values):
    """Local indices of ``values`` in prefix + cumsum(closest)."""
    return np.searchsorted(prefix + np.cumsum(closest), values)


def _w_assign(data, mean, C, labels_old, update):
    """Lloyd's step on a chunk: labels by the nearest centre (||c||^2 - 2 x.c), the sums and
    counts per cluster, and how many labels changed."""
    X = _centred(data, mean)
    D = (C * C).sum(1)[None] - 2.0 * X @ C.T
    labels = D.argmin(1).astype(np.int32)
    S0 = C.shape[0]
    counts = np.bincount(labels, minlength=S0).astype(float)
    sums = np.zeros((S0, X.shape[1]))
    np.add.at(sums, labels, X)
    changed = labels.size if labels_old is None else int((labels != labels_old).sum())
    return labels, (counts, sums, changed)


def _w_inertia(data, mean, C, labels):
    X = _centred(data, mean)
    Z = X - C[labels]
    return float((Z * Z).sum())


def _w_contingency(labels1, labels2, S0):
    table = np.zeros((S0, S0))
    np.add.at(table, (labels1, labels2), 1.0)
    return table


#: points per block of :func:`uniform_choice`
_CHOICE_BLOCK = 1 << 16


def uniform_choice(rs, n: int) -> int:
    """``rs.choice(n, p=np.ones(n) / n)`` (scikit-learn's first k-means++ centre, unit
    weights) without its arrays of n floats: the same draw (one ``random_sample``) and the
    same index, from the same cumulative sums made a block at a time (NumPy's cumsum adds in
    order, so a block that starts from the previous one's last sum gives the same numbers)."""
    step = 1.0 / n  # every entry of np.ones(n) / n
    total = 0.0
    for start in range(0, n, _CHOICE_BLOCK):  # cdf[-1]: the last cumulative sum
        m = min(_CHOICE_BLOCK, n - start)
        total = float(np.cumsum(np.r_[total, np.full(m, step)])[-1])
    u = rs.random_sample()
    below, carry = 0, 0.0
    for start in range(0, n, _CHOICE_BLOCK):  # searchsorted(cdf / cdf[-1], u, "right")
        m = min(_CHOICE_BLOCK, n - start)
        sums = np.cumsum(np.r_[carry, np.full(m, step)])
        carry = float(sums[-1])
        below += int(np.count_nonzero(sums[1:] / total <= u))
    return below


class DaskVBMFA(VBMFA):
    """:class:`VBMFA` whose points are chunks on the workers of a ``distributed`` client.

    Parameters
    ----------
    prep : Prepared
        The chunks on the workers (:func:`prepare_dask`): each a dict (Yt (p, m), allowed
        (m, K), logC (K, m) or None, unlabeled), see :func:`_w_chunk`.
    n_factors, pca
        As :class:`VBMFA`.
    """

    def __init__(self, prep, n_factors, pca=False):
        import dask.array as da

        self._data, self.sizes = list(prep.chunks), list(prep.sizes)
        self.n, self.p, K = prep.shape[0], prep.shape[1], prep.K
        self.K = K
        self.k = int(n_factors)
        self.d = self.k + 1
        self.pca = bool(pca)
        self.a = self.a0 + 0.5 * self.p
        self.work, self.work_cap = 0, np.inf
        self.out_of_work: bool | str = False
        self.unconverged: list[float] = []
        self.passes = 0  # map-reduce rounds over the chunks
        self.bytes_out = 0  # bytes of global factors sent to the chunks
        self.chunks = Chunks(prep.client, self._data)  # persisted: tasks where each chunk lives
        self._state = [_NO_STATE] * len(self._data)
        self._cache: dict = {}
        mom = self.reduce(_w_moments)
        self.sum_y2 = mom["y2"]
        self.label_counts = mom["counts"]
        self._mean = mom["sum"] / self.n
        self._all_unlabeled = mom["unlabeled"]
        self._centred = self.reduce(_w_centred, self._mean)
        self.allowed = da.concatenate(
            [
                da.from_delayed(self.chunks.on(i, _w_allowed, c), (m, K), dtype=bool)
                for i, (c, m) in enumerate(zip(self._data, self.sizes, strict=False))
            ]
        )

    # ---- the map-reduce (the Dask layer's Chunks) -------------------------------------------
    def _tree(self, parts, pairs=False):
        """The sum of the futures ``parts`` (of (state, statistics) ``pairs``: of their
        statistics) by the layer's tree reduction (its root the client)."""
        if pairs:  # the statistics alone leave each chunk's worker, never its state
            parts = self.chunks.each(_w_out, parts, chunk=False)
        self.passes += 1
        return self.chunks.reduce(parts)

    def reduce(self, fn, *args):
        """sum over the chunks of fn(chunk, *args)."""
        parts = self.chunks.each(fn, args=args)
        self.bytes_out += _nbytes(args) * len(parts)
        return self._tree(parts)

    def _pass(self, steps, glob=None, state=None):
        """Run the kernels ``steps`` on every chunk; the state becomes the new one when a step
        changes it; returns the summed statistics (None when the steps make none).

        A state is a future of a chunk's (state, statistics) on its worker, or, when it follows
        from the global factors alone (a pass that starts with x and Q: the q(x) map and the
        recipe of Q, the same for every chunk), that pair itself held here: such a pass sends
        back its statistics alone (one hop less: no task that picks them out of the pair), and
        a pass of x alone then runs no task."""
        glob = {} if glob is None else glob
        state = self._state if state is None else state
        n_chunks = len(self._data)
        if steps[:2] == ("x", "q"):  # the new state from glob alone: statistics only come back
            x = glob["x"]
            recipe = (x, glob["M"], glob["psii"], glob["terms"], glob["prior"])
            parts = [
                self.chunks.on(i, _w_pass_out, c, _NO_STATE, steps, glob)
                for i, c in enumerate(self._data)
            ]
            self.bytes_out += _nbytes(glob) * n_chunks
            self._state = [({"x": x, "Qr": recipe}, {})] * n_chunks
            return self._tree(parts)
        if set(steps) == {"x"} and all(isinstance(s, tuple) for s in state):
            self._state = [({**s[0], "x": glob["x"]}, {}) for s in state]
            return None
        pairs = [
            self.chunks.on(i, _w_pass, c, s, steps, glob)
            for i, (c, s) in enumerate(zip(self._data, state, strict=False))
        ]
        self.bytes_out += _nbytes(glob) * len(pairs)
        if set(steps) & {"x", "q", "set_q", "remove", "split"}:
            self._state = pairs
        if set(steps) <= {"x", "set_q", "remove"}:
            return None
        return self._tree(pairs, pairs=True)

    def _glob(self):
        """The global factors that the kernels of Q, the data terms and the mistakes need."""
        return {"M": self.M, "psii": self.psii, "terms": self.rho_terms(), "prior": self.prior()}

    def _keep(self, out):
        """Cache the statistics that depend on the per-point state alone."""
        for key in ("resp", "stats", "qlogq", "held"):
            if key in out:
                self._cache[key] = out[key]

    # ---- the per-point state -----------------------------------------------------------------
    def snapshot(self, names=VBMFA.STATE) -> dict:
        snap = {n: getattr(self, n).copy() for n in names if n not in ("Q", "Xm")}
        if "Q" in names or "Xm" in names:
            snap["_points"] = (list(self._state), dict(self._cache))
        return snap

    def restore(self, snap: dict) -> None:
        for name, value in snap.items():
            if name == "_points":
                self.set_points_state(value)
            else:
                setattr(self, name, value.copy())

    def points_state(self):
        return list(self._state), dict(self._cache)

    def set_points_state(self, state) -> None:
        self._state, self._cache = list(state[0]), dict(state[1])

    def set_q(self, Q0) -> None:
        """Q0: one future of (S, K, m) per chunk."""
        pairs = [
            self.chunks.on(i, _w_pass, c, s, ("set_q", "resp"), {"Q0": q})
            for i, (c, s, q) in enumerate(zip(self._data, self._state, Q0, strict=False))
        ]
        self._state = pairs
        self._cache = {}
        self._keep(self._tree(pairs, pairs=True))

    # ---- the passes of VBMFA -----------------------------------------------------------------
    def moments(self):
        var = self._centred / (self.n - 1) if self.n > 1 else np.ones(self.p)
        return self._mean.copy(), var

    def update_x(self):
        self._pass(("x",), {"x": self.x_params()})
        self._cache.pop("stats", None)

    def update_q(self):
        out = self._pass(("q", "resp"), self._glob())
        self._cache = {}
        self._keep(out)
        return out["lse"]

    def e_step(self) -> float:
        """X and Q from the global factors in one pass, with the statistics of the new state
        (the next global update needs them): returns F there."""
        x = self.x_params()  # first: it sets Xc, which the data terms use (after a restore of
        glob = self._glob()  # the global factors alone, Xc may have another number of rows)
        glob["x"] = x
        out = self._pass(("x", "q", "resp", "stats"), glob)
        self._cache = {}
        self._keep(out)
        return out["lse"] + self.global_bound()

    def stats(self):
        if "stats" not in self._cache:
            self._keep(self._pass(("stats",)))
        return self.finish_stats(*self._cache["stats"])

    def _resp(self):
        if "resp" not in self._cache:
            self._keep(self._pass(("resp",)))
        return self._cache["resp"]

    def resp(self):
        """(None, R): the responsibilities per point stay on the workers."""
        return None, self._resp()[0]

    def class_resp(self):
        return self._resp()[1]

    def q_log_q(self):
        if "qlogq" not in self._cache:
            self._keep(self._pass(("qlogq",)))
        return self._cache["qlogq"]

    def data_terms(self, q_log_q=None):
        glob = self._glob()
        steps = ["fit"]
        if "resp" not in self._cache:
            steps.append("resp")
        if q_log_q is None and "qlogq" not in self._cache:
            steps.append("qlogq")
        out = self._pass(tuple(steps), glob)
        self._keep(out)
        if q_log_q is None:
            q_log_q = self._cache["qlogq"]
        return self.finish_data_terms(out["fit"], self._cache["resp"][1], q_log_q)

    def label_mistakes(self) -> int:
        return int(self._pass(("mistakes",), self._glob())["mistakes"])

    def remove(self, keep) -> None:
        keep = np.asarray(keep, dtype=bool)
        for name in ("M", "Sig", "b", "u", "g", "Xc"):
            setattr(self, name, getattr(self, name)[keep])
        out = self._pass(("remove", "resp"), {"keep": keep})
        self._cache = {}
        self._keep(out)

    def labeled_held(self):
        if "held" not in self._cache:
            self._keep(self._pass(("held",)))
        return self._cache["held"]

    def _class_sums(self, parent, classes):
        return self._pass(("class_sums",), {"class_sums": (parent, classes)})["class_sums"]

    def _split_points(self, parent, point, direction):
        out = self._pass(("split", "resp"), {"split": (parent, point, direction)})
        self._cache = {}
        self._keep(out)
        return out["split"]

    def _side_scatter(self, parent, plane, means, before):
        glob = {"scatter": (parent, *plane, means)}
        return self._pass(("scatter",), glob, state=before[0])["scatter"]

    # ---- per-point results as Dask arrays ----------------------------------------------------
    def _per_point(self, fn, *args, dtype):
        import dask.array as da

        return da.concatenate(
            [
                da.from_delayed(self.chunks.on(i, fn, c, s, *args), (m,), dtype=dtype)
                for i, (c, s, m) in enumerate(
                    zip(self._data, self._state, self.sizes, strict=False)
                )
            ]
        )

    def point_clusters(self):
        return self._per_point(_w_clusters, dtype=np.intp)

    def point_classes(self, classes):
        return self._per_point(_w_classes, classes, dtype=classes.dtype)

    # ---- the starts ----------------------------------------------------------------------------
    def group_moments(self, G, groups=None):
        """(counts (G,), means (G, p), unbiased covariances (G, p, p)) of the points of each
        group: class (labels start) or the k-means ``groups`` (one future per chunk)."""
        if groups is None:
            counts, sums = self.reduce(_w_group_sums, None, G)
        else:
            counts, sums = self._reduce_with(_w_group_sums, groups, G)
        means = sums / np.maximum(counts, 1.0)[:, None]
        if groups is None:
            scatter = self.reduce(_w_group_scatter, None, means)
        else:
            scatter = self._reduce_with(_w_group_scatter, groups, means)
        covs = scatter / np.maximum(counts - 1.0, 1.0)[:, None, None]
        return counts, means, covs

    def _reduce_with(self, fn, per_chunk, *args):
        return self._tree(self.chunks.each(fn, per_chunk, args=args))

    def clsst_start(self, init, S_fixed, random_state):
        """CLSST's start (``CLSST._start``) from reductions: the class moments, or the k-means
        start of scikit-learn's KMeans(S0, n_init=3) replayed over the chunks."""
        psi0 = self._centred / self.n
        psi0 = np.where(psi0 > 0, psi0, 1.0)
        if init == "labels":
            _, means, covs = self.group_moments(self.K)
            loads = [
                pd_loadings(covs[c].reshape(self.p, self.p), psi0, self.k) for c in range(self.K)
            ]
            self.start(means, np.array(loads), psi0)
            return
        S0 = S_fixed or self.K
        centers, assign = self.kmeans(S0, check_random_state(random_state))
        counts, _, covs = self.group_moments(S0, assign)
        loads = []
        for s in range(S0):
            cov = covs[s] if counts[s] > 1 else np.diag(psi0)
            loads.append(pd_loadings(cov, psi0, self.k))
        Q0 = self.chunks.each(_w_q0, assign, args=(S0,))
        self.start(centers, np.array(loads), psi0, Q0=Q0)

    def sample(self, m: int, seed: int):
        """(Y, allowed) of the sample of :meth:`VBMFA.sample`, drawn on the workers: the same
        rows as in memory (:func:`._vbmfa.sample_rows`: the keys are those of the global row
        indices, whatever the chunks). Three rounds: the counts of each chunk (a few numbers
        each), the smallest keys by the tree reduction (at most ``FAN_IN`` times the draws at
        the root), then each chunk's rows of the sample; the client holds the sample alone."""
        starts = np.cumsum([0, *self.sizes[:-1]]).tolist()
        chunks = list(enumerate(self._data))
        counts = self.chunks.gather([self.chunks.on(i, _w_sample_counts, c) for i, c in chunks])
        labeled, single = zip(*counts, strict=True)
        everyone, draws, first = sample_plan(labeled, np.array(single), m)
        parts = [
            self.chunks.on(i, _w_sample_smallest, c, starts[i], seed, draws, everyone)
            for i, c in chunks
        ]
        keys = self.chunks.reduce(parts, functools.partial(smallest, draws))
        top = keys[-1] if len(keys) else None
        rows = self.chunks.gather(
            [
                self.chunks.on(i, _w_sample, c, starts[i], seed, top, everyone, first[i])
                for i, c in chunks
            ]
        )
        self.passes += 3
        return np.concatenate([Y for Y, _ in rows]), np.concatenate([a for _, a in rows])

    # ---- k-means ------------------------------------------------------------------------------
    def _rows(self, ids, mean):
        """The centred points ``ids`` (global indices), in one round trip."""
        offsets = np.cumsum([0, *self.sizes])
        futs = []
        for i in ids:
            j = int(np.searchsorted(offsets, i, side="right") - 1)
            futs.append(self.chunks.on(j, _w_row, self._data[j], int(i - offsets[j]), mean))
        return np.array(self.chunks.gather(futs))

    def kmeans(self, S0, rs):
        """scikit-learn's ``KMeans(S0, n_init=3, random_state=rs).fit`` on the points (dense,
        Lloyd): k-means++ with the same draws, Lloyd's iterations with its stopping rules, the
        run of lowest inertia. Returns (centres, one future of labels per chunk)."""
        mean = self._mean
        tol = float(np.mean(self._centred / self.n)) * 1e-4
        best = None
        for _ in range(3):
            C = self._kmeans_pp(S0, rs, mean)
            labels, inertia, C = self._lloyd(C, mean, tol)
            if best is None or (inertia < best[0] and not self._same(labels, best[1], S0)):
                best = (inertia, labels, C)
        return best[2] + mean, best[1]

    def _kmeans_pp(self, S0, rs, mean):
        """scikit-learn's _kmeans_plusplus (unit weights), the distances on the chunks."""
        n, get = self.n, operator.itemgetter
        trials = 2 + int(np.log(S0))
        C = np.empty((S0, self.p))
        C[0] = self._rows([uniform_choice(rs, n)], mean)[0]
        firsts = [self.chunks.on(i, _w_pp_first, c, mean, C[0]) for i, c in enumerate(self._data)]
        closest = [self.chunks.on(i, get(0), f) for i, f in enumerate(firsts)]
        totals = np.array(
            self.chunks.gather([self.chunks.on(i, get(1), f) for i, f in enumerate(firsts)])
        )
        pot = totals.sum()
        for c in range(1, S0):
            values = rs.uniform(size=trials) * pot
            cand = self._rows(self._search(closest, totals, values), mean)
            parts = [
                self.chunks.on(i, _w_pp_trials, data, d, mean, cand)
                for i, (data, d) in enumerate(zip(self._data, closest, strict=False))
            ]
            per_chunk = np.array(
                self.chunks.gather([self.chunks.on(i, get(1), f) for i, f in enumerate(parts)])
            )  # (chunks, trials)
            pots = per_chunk.sum(0)
            best = int(np.argmin(pots))
            pot = pots[best]
            closest = [self.chunks.on(i, _w_pick, f, best) for i, f in enumerate(parts)]
            totals = per_chunk[:, best]
            C[c] = cand[best]
        return C

    def _search(self, closest, totals, values):
        """Global indices where ``values`` fall in the cumulative sum of the distances
        (np.searchsorted(np.cumsum(distances), values), clipped to n - 1)."""
        ends = np.cumsum(totals)
        offsets = np.cumsum([0, *self.sizes])
        where, futs = [], []
        for v in values:
            j = min(int(np.searchsorted(ends, v)), len(totals) - 1)
            prefix = ends[j - 1] if j > 0 else 0.0
            where.append(j)
            futs.append(self.chunks.on(j, _w_search, closest[j], prefix, np.array([v])))
        local = self.chunks.gather(futs)
        return [
            min(int(offsets[j] + loc[0]), self.n - 1) for j, loc in zip(where, local, strict=False)
        ]

    def _lloyd(self, C, mean, tol, max_iter=300):
        labels = [None] * len(self._data)
        strict = False
        for _ in range(max_iter):  # noqa: B007
            pairs = [
                self.chunks.on(i, _w_assign, c, mean, C, lab, True)
                for i, (c, lab) in enumerate(zip(self._data, labels, strict=True))
            ]
            labels = self.chunks.each(operator.itemgetter(0), pairs, chunk=False)
            counts, sums, changed = self._tree(
                self.chunks.each(operator.itemgetter(1), pairs, chunk=False)
            )
            C_new = np.where(counts[:, None] > 0, sums / np.maximum(counts, 1.0)[:, None], C)
            shift = ((C_new - C) ** 2).sum(1)
            C = C_new
            if changed == 0:
                strict = True
                break
            if shift.sum() <= tol:
                break
        if not strict:
            pairs = self.chunks.each(_w_assign, args=(mean, C, None, False))
            labels = self.chunks.each(operator.itemgetter(0), pairs, chunk=False)
        inertia = self._tree(
            [
                self.chunks.on(i, _w_inertia, c, mean, C, lab)
                for i, (c, lab) in enumerate(zip(self._data, labels, strict=True))
            ]
        )
        return labels, inertia, C

    def _same(self, labels1, labels2, S0):
        table = self._tree(
            self.chunks.each(_w_contingency, labels1, labels2, args=(S0,), chunk=False)
        )
        return bool(((table > 0).sum(1) <= 1).all())


def _nbytes(obj) -> int:
    if isinstance(obj, np.ndarray):
        return obj.nbytes
    if isinstance(obj, dict):
        return sum(_nbytes(v) for v in obj.values())
    if isinstance(obj, (tuple, list)):
        return sum(_nbytes(v) for v in obj)
    return 8


# ---- preparing the data ------------------------------------------------------------------------
class Prepared:
    """Dask input checked and persisted: ``client``, ``chunks`` (futures), ``sizes``,
    ``shape`` (n, p), ``K``, ``classes`` (None: clustering), ``counts`` (labeled points per
    class), ``scale`` (X is held as X / scale) and ``zero_row`` (one row of zeros with X's
    columns, for the feature checks)."""

    def __init__(self, **kw):
        self.__dict__.update(kw)


def warn_one_class(classes_, given: bool, stacklevel: int) -> None:
    """Warn of a model of one class (``classes_``, from ``classes`` when ``given``, else from
    y's labels): a density model of that class (a mixture of factor analysers, as
    :class:`sklearn.decomposition.FactorAnalysis` with one component), meaningful for
    :meth:`CLSST.score_samples`, but every point is predicted that class. Clustering (no y,
    no classes) is not warned of: its clusters become the classes."""
    if len(classes_) >= 2:
        return
    named = np.asarray(classes_).tolist()
    where = f"classes={named!r} names" if given else "y labels"
    warnings.warn(
        f"{where} one class only ({named[0]!r}): CLSST fits a density model of it, and "
        "predict returns it for every point (predict_proba one column of ones). To "
        "classify, label points of another class too or name every class with "
        "classes=[...] (a class without labels may then take clusters of its own); to "
        "cluster, call fit(X)",
        UserWarning,
        stacklevel=stacklevel,
    )


def prepare_dask(X, y, classes) -> Prepared:
    """Check the Dask input as :meth:`CLSST.fit` checks arrays, from one pass over the blocks
    before any sweep (NaN or infinite values, scale, labels; unknown chunk sizes and length
    mismatches from the metadata), then persist the chunks of X / scale on the workers."""
    Xd = as_dask_array(X, name="X")
    n, p = int(Xd.shape[0]), int(Xd.shape[1])
    if n < 2:
        raise ValueError(
            f"Found array with {n} sample(s) (shape=({n}, {p})) while a minimum of 2 is "
            "required by CLSST."
        )
    if y is not None and getattr(y, "ndim", np.ndim(y)) == 2:
        raise ValueError(
            "CLSST on Dask input takes y as one label per row (-1: unlabeled); a boolean label "
            "matrix is taken in memory only"
        )
    yd = None if y is None else align_rows(Xd, y)
    client = get_client(
        "CLSST on Dask input runs on a dask.distributed cluster: install dask[distributed] "
        "and create a distributed.Client first (distributed.Client(...), or a LocalCluster)"
    )
    if Xd.dtype != np.float64:
        Xd = Xd.astype(np.float64)
    sizes = [int(m) for m in Xd.chunks[0]]
    xblocks = _place_blocks(client, Xd, sizes)
    scale = _checked_scale(xblocks, sizes)
    # each block of y where its block of X lives
    yblocks = [None] * len(xblocks) if yd is None else xblocks.compute(list(yd.to_delayed()))
    classes_, counts = _classes(xblocks, yblocks if yd is not None else None, classes, n)
    K = len(counts)
    chunks = xblocks.each(_w_chunk, yblocks, args=(scale, classes_, K))
    xblocks.gather(xblocks.on(0, len, chunks[0]))  # the first chunk exists: errors raise here
    del xblocks, yblocks  # held by the chunks now
    columns = getattr(getattr(X, "_meta", None), "columns", None)
    if columns is not None:  # a DataFrame: its column names too
        import pandas as pd

        zero_row = pd.DataFrame(np.zeros((1, p)), columns=columns)
    else:
        zero_row = np.zeros((1, p))
    return Prepared(
        client=client,
        chunks=chunks,
        sizes=sizes,
        shape=(n, p),
        K=K,
        classes=classes_,
        counts=counts,
        scale=scale,
        zero_row=zero_row,
    )


def _place_blocks(client, Xd, sizes) -> Chunks:
    """Each block of ``Xd`` once, as the columns of its chunk (the raw blocks are
    intermediate; keys of this fit alone, pure=False: a chunk is made by dividing its block in
    place), consecutive blocks to each worker in turn, as evenly as they divide
    (:meth:`Chunks.placed`; loosely: Dask may place them elsewhere): a pass lasts as long as
    its busiest worker."""
    import dask

    transposed = dask.delayed(_w_transposed, pure=False)
    return Chunks.placed(client, [transposed(b) for b in Xd.to_delayed().ravel()], sizes)


def _checked_scale(xblocks, sizes) -> float:
    """The raw blocks checked (NaN, infinity, the scale of ||x||^2) in one round trip, then
    the data's scale ``s`` (``s^2`` the mean variance of the features; 1 if it is 0)."""
    from sklearn.utils.validation import assert_all_finite

    offsets = np.cumsum([0, *sizes])
    parts = xblocks.each(_w_raw_summary, [int(o) for o in offsets[:-1]])
    summary = _merge_summaries(*xblocks.gather(parts))  # in order: the sums as before
    if summary["bad"]:
        bad = np.array([[np.nan if summary["bad"] == "nan" else np.inf]])
        assert_all_finite(bad, estimator_name="CLSST", input_name="X")
    if summary["big"] is not None:
        row, value = summary["big"]
        raise ValueError(
            f"X is too large in scale for CLSST: ||x||^2 = {value:.3g} for row {row} (at most "
            f"{MAX_KERNEL_VALUE:g}, or it overflows double precision). Rescale the features, "
            "e.g. with sklearn.preprocessing.StandardScaler"
        )
    if 0.0 < summary["top"] < 1e-100:
        raise ValueError(
            f"X is too small in scale for CLSST: the largest ||x||^2 is {summary['top']:.3g} "
            "(at least 1e-100, or its squares underflow double precision). Rescale the "
            "features, e.g. with sklearn.preprocessing.StandardScaler"
        )
    n = int(offsets[-1])
    mean = summary["sum"] / n
    sq = xblocks.gather(xblocks.each(_w_centred_squares, args=(mean,)))
    s = float(np.sqrt(np.mean(sum(sq) / n)))
    return s if np.isfinite(s) and s > 0 else 1.0


def _classes(xblocks, yblocks, classes, n):
    """(classes_ or None for clustering, the rows with one candidate class per class: the
    labeled ones, every row when there is one class), from the labels of each block of y
    (``yblocks``, at the homes of ``xblocks``; None without y) and ``classes``, checked as in
    memory."""
    if yblocks is None:
        classes_ = None if classes is None else check_classes(classes)
        if classes_ is not None:
            warn_one_class(classes_, given=True, stacklevel=6)
        values = numbers = np.empty(0)
    else:
        per_block = xblocks.gather(xblocks.each(_w_labels, yblocks, chunk=False))
        values = np.concatenate([v for v, _ in per_block])
        numbers = np.concatenate([c for _, c in per_block])
        classes_ = _classes_from_labels(np.unique(values), classes)
    K = 1 if classes_ is None else len(classes_)
    counts = np.zeros(K, dtype=np.int64)
    if K == 1:
        counts[0] = n
    elif classes_ is not None:
        for c, label in enumerate(classes_):
            counts[c] = numbers[values == label].sum()
    return classes_, counts


def _classes_from_labels(found, classes):
    """The classes of a fit with labels ``found`` (the distinct labeled values of y) and the
    ``classes`` argument, checked as in memory."""
    if len(found):
        check_classification_targets(found)
    if classes is None:
        if not len(found):
            raise ValueError(
                "y marks no labeled point (all -1): to cluster without labels call fit(X) "
                "(y=None); with known classes and no labels give them with classes=[...]"
            )
        warn_one_class(found, given=False, stacklevel=7)
        return found
    classes_ = check_classes(classes)
    outside = found[~np.isin(found, classes_)]
    if len(outside):
        raise ValueError(
            f"y holds labels outside classes={classes_.tolist()}: "
            f"{outside[:10].tolist()}; add them to classes or mark those rows "
            "unlabeled with -1"
        )
    warn_one_class(classes_, given=True, stacklevel=7)
    return classes_


__all__ = [
    "PSI_MIN",
    "DaskVBMFA",
    "Prepared",
    "prepare_dask",
    "uniform_choice",
    "warn_one_class",
]
