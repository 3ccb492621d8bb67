"""The variational Bayesian mixture of factor analysers behind CLSST: its state, the exact
coordinate-ascent update of every factor, and the lower bound (Sansone, thesis ch. 2; Beal 2003).

Notation (Sansone's thesis, chapter 2): ``n`` points ``Y`` (n x p), ``S`` components, ``K`` classes,
``k`` factors, ``d = k + 1``. Component ``s`` has the augmented loading ``L~_s = [mu_s, Lambda_s]``
(p x d) whose row ``q`` has the Gaussian posterior ``N(M[s, q], Sig[s, q])``; ``q(x_n | s) =
N(Xm[s, :, n], Xc[s])``; ``q(s_n, l_n) = Q[s, l, n]`` (points last: the
reductions over (s, l) run along contiguous rows); ``q(pi) = Dir(u)``; ``q(beta_s) = Dir(g_s)``;
``q(nu_sj) = Gamma(a, b_sj)``. ``psii`` are the noise precisions (1/Psi), ``mustar`` and
``nustar`` the prior mean and precision of the component means (point estimates, as are
``psii``). Every update below maximises the bound F over its own factor exactly, so F never
decreases along a sweep at a fixed number of components.

Every pass over the data is a *chunk kernel* (the ``chunk_*`` functions below): a function of
one chunk of points (their columns ``Yt`` (p, m), and the point-last arrays Q, Xm, ln C) and of
the global factors that returns the chunk's new per-point state and/or its additive
statistics. A pass is "map the kernel over the chunks, sum the statistics, update the
globals": :class:`VBMFA` holds all points as one chunk, and the Dask driver
(:mod:`._vbmfa_dask`) maps the same kernels over the row blocks persisted on the workers and
adds their statistics by a tree reduction. The kernels run their chunk in blocks of
:data:`CHUNK` points (temporaries in cache) and add the blocks in order, so one chunk gives
exactly the numbers of the in-memory passes.

The kernels of the sweep (:func:`chunk_x`, :func:`chunk_q`, :func:`chunk_stats`,
:func:`chunk_fit`, :func:`chunk_resp`, :func:`chunk_q_log_q`, and :func:`chunk_e_step`, the
first four in one pass) run in the compiled engine
(``_engine/vbmfa.cpp``: one pass over the chunk's points per kernel, blocks over threads, without
the GIL); their NumPy bodies are the reference that the engine is tested against, selected with
``_vbmfa._USE_ENGINE = False``.
"""

from __future__ import annotations

import numpy as np
from scipy.special import digamma, gammaln

from .. import _engine
from .._threads import engine_threads

PSI_MIN = 1e-5  # smallest noise variance (the authors' psimin)
LOG_2PI = np.log(2.0 * np.pi)
CHUNK = 8192  # points per block of a pass over the data: its (S, K, block) arrays stay in cache
# The engine runs the sweep's kernels (False: their NumPy reference, for tests and benchmarks);
# _THREADS fixes its threads per pass (None: one below PARALLEL_POINTS points, where a pass
# takes well under a millisecond, else the idle cores, engine_threads(None))
_USE_ENGINE = True
_THREADS: int | None = None
PARALLEL_POINTS = 4 * CHUNK


def kl_dirichlet(p, q):
    """KL(Dir(p) || Dir(q)) along the last axis."""
    p0 = p.sum(-1)
    return (
        gammaln(p0)
        - gammaln(q.sum(-1))
        - (gammaln(p) - gammaln(q)).sum(-1)
        + ((p - q) * (digamma(p) - digamma(p0)[..., None])).sum(-1)
    )


def kl_gamma(a1, b1, a2, b2):
    """KL(Gamma(a1, rate b1) || Gamma(a2, rate b2)), elementwise."""
    return (
        a2 * np.log(b1 / b2)
        - gammaln(a1)
        + gammaln(a2)
        + (a1 - a2) * digamma(a1)
        + a1 * (b2 - b1) / b1
    )


# ---- chunk kernels: the per-point work of every pass ------------------------------------------
def block_slices(m: int) -> list[slice]:
    """The blocks of :data:`CHUNK` points of a chunk of ``m`` points (at least one, maybe
    empty, so that a chunk without points still gives zero statistics)."""
    return [slice(i, min(i + CHUNK, m)) for i in range(0, max(m, 1), CHUNK)]


def _threads(m: int) -> int:
    """The engine's threads for a pass over ``m`` points."""
    if _THREADS is not None:
        return _THREADS
    return 1 if m < PARALLEL_POINTS else engine_threads(None)


def _f64(*arrays):
    """The arrays as the engine takes them: C-ordered float64 (copies only where needed)."""
    return tuple(np.ascontiguousarray(a, dtype=np.float64) for a in arrays)


def _log_c(logC):
    """ln C for the engine: None for no labels (the Dask driver's broadcast zero), else
    C-ordered."""
    if logC.ndim == 2 and logC.strides == (0, 0) and logC.size and logC.flat[0] == 0.0:
        return None
    return _f64(logC)[0]


def chunk_x(Yt, W, c):
    """q(x_n | s) means of the chunk: Xm[s, :, n] = W_s y_n - c_s, (S, k, m)."""
    if _USE_ENGINE:
        return _engine.vbmfa_x(*_f64(Yt, W, c), threads=_threads(Yt.shape[1]))
    Xm = np.empty((c.shape[0], c.shape[1], Yt.shape[1]))
    for b in block_slices(Yt.shape[1]):
        np.subtract(np.matmul(W, Yt[:, b]), c[:, :, None], out=Xm[:, :, b])
    return Xm


def chunk_stats(Yt, Q, Xm):
    """The chunk's responsibility-weighted statistics: Sry (S, p, d) = sum_n r y x~m' and
    sum_n r xm~ xm~' (S, d, d) (without the q(x) covariance, added once by the caller)."""
    if _USE_ENGINE:
        return _engine.vbmfa_stats(*_f64(Yt, Q, Xm), threads=_threads(Yt.shape[1]))
    S, k, p = Xm.shape[0], Xm.shape[1], Yt.shape[0]
    d = k + 1

    def block(b):
        r = Q[:, :, b].sum(1)  # (S, block)
        Ytb, x = Yt[:, b], Xm[:, :, b]
        rX = x * r[:, None, :]  # (S, k, block)
        Sry = np.empty((S, p, d))
        Sry[:, :, 0] = (Ytb @ r.T).T
        Sry[:, :, 1:] = np.matmul(rX, Ytb.T).transpose(0, 2, 1)
        T2 = np.empty((S, d, d))
        T2[:, 0, 0] = r.sum(1)
        T2[:, 0, 1:] = T2[:, 1:, 0] = rX.sum(2)
        T2[:, 1:, 1:] = np.matmul(x, rX.transpose(0, 2, 1))
        return Sry, T2

    parts = [block(b) for b in block_slices(Yt.shape[1])]
    return sum(part[0] for part in parts), sum(part[1] for part in parts)


def rho_points(Yt, x, M, psii, A, c):
    """The data term of each (component, point) of the columns ``Yt`` with q(x) means ``x``,
    constants included (see :meth:`VBMFA.rho`), shape (S, m)."""
    YPt = Yt * psii[:, None]
    yPy = (YPt * Yt).sum(0)
    B = np.matmul(M.transpose(0, 2, 1), YPt)  # (S, d, block)
    Z = B[:, 1:] - A[:, 1:, :1] - 0.5 * (np.matmul(A[:, 1:, 1:], x) + x)
    return (c[:, None] - 0.5 * yPy) + B[:, 0] + (x * Z).sum(1)


def chunk_q(Yt, Xm, logC, M, psii, terms, prior):
    """q(s_n, l_n) of the chunk, softmax over (s, l) of phi = rho + prior + ln C; returns
    (Q (S, K, m), sum_n ln sum_{s,l} exp(phi))."""
    m = Yt.shape[1]
    if _USE_ENGINE:
        A, c = terms
        return _engine.vbmfa_q(
            *_f64(Yt, Xm), _log_c(logC), *_f64(M, psii, A, c, prior), threads=_threads(m)
        )
    Q = np.empty((M.shape[0], prior.shape[1], m))

    def block(b):
        phi = rho_points(Yt[:, b], Xm[:, :, b], M, psii, *terms)[:, None, :] + prior[:, :, None]
        phi = phi + logC[None, :, b]
        lse = softmax_points(phi, out=Q[:, :, b])
        return float(lse.sum())

    return Q, sum(block(b) for b in block_slices(m))


def chunk_e_step(Yt, W, c, logC, M, psii, terms, prior, keep=True):
    """:func:`chunk_x` (the map ``W, c``), :func:`chunk_q` with those means, :func:`chunk_resp`
    and :func:`chunk_stats` of the new Q and Xm, in one pass over the chunk: returns (Xm, Q,
    sum_n ln sum exp(phi), (R, sum_n Q), (Sry, T2)). The engine makes each block's Xm and Q in
    cache and stores them only with ``keep`` (else None for both): the Dask driver keeps the
    recipe of Q, not Q."""
    if not _USE_ENGINE:
        Xm = chunk_x(Yt, W, c)
        Q, lse = chunk_q(Yt, Xm, logC, M, psii, terms, prior)
        out = (chunk_resp(Q), chunk_stats(Yt, Q, Xm))
        return (Xm, Q, lse, *out) if keep else (None, None, lse, *out)
    A, cs = terms
    Xm, Q, lse, Qsum, stats = _engine.vbmfa_e_step(
        *_f64(Yt, W, c),
        _log_c(logC),
        *_f64(M, psii, A, cs, prior),
        keep=keep,
        threads=_threads(Yt.shape[1]),
    )
    return Xm, Q, lse, (Qsum.sum(1), Qsum), stats


def chunk_resp(Q):
    """(sum_{l, n} Q[s, l, n] (S,), sum_n Q[s, l, n] (S, K)) of the chunk."""
    if _USE_ENGINE:
        Qsum, _ = _engine.vbmfa_q_sums(*_f64(Q), logs=False, threads=_threads(Q.shape[2]))
        return Qsum.sum(1), Qsum
    return Q.sum(1).sum(1), Q.sum(2)


def chunk_q_log_q(Q):
    """sum_{l, n} Q ln Q for each component, (S,)."""
    if _USE_ENGINE:
        return _engine.vbmfa_q_sums(*_f64(Q), threads=_threads(Q.shape[2]))[1]
    logs = np.log(Q, out=np.zeros_like(Q), where=Q > 0)
    return np.einsum("sln,sln->s", Q, logs)


def chunk_fit(Yt, Q, Xm, M, psii, terms):
    """sum_n r[s, n] rho[s, n] over the chunk, (S,)."""
    if _USE_ENGINE:
        A, c = terms
        return _engine.vbmfa_fit(*_f64(Yt, Q, Xm, M, psii, A, c), threads=_threads(Yt.shape[1]))
    return sum(
        np.einsum("sn,sn->s", Q[:, :, b].sum(1), rho_points(Yt[:, b], Xm[:, :, b], M, psii, *terms))
        for b in block_slices(Yt.shape[1])
    )


def chunk_label_mistakes(Yt, Xm, allowed, M, psii, terms, prior) -> int:
    """How many labeled points of the chunk (rows that exclude a class) get a class outside
    their candidates when predicted as unlabeled (see :meth:`VBMFA.label_mistakes`)."""
    rows = np.flatnonzero(~allowed.all(1))
    wrong = 0
    for i in range(0, len(rows), CHUNK):
        b = rows[i : i + CHUNK]
        phi = rho_points(Yt[:, b], Xm[:, :, b], M, psii, *terms)[:, None, :] + prior[:, :, None]
        post = np.exp(phi - phi.max(axis=(0, 1))).sum(0)  # (K, block), up to a factor
        wrong += int((~allowed[b, post.argmax(0)]).sum())
    return wrong


def chunk_remove(Q, Xm, allowed, keep):
    """The chunk's Q and Xm without the components where ``keep`` is False, Q renormalised (a
    point left with no mass spread evenly over its allowed pairs). New arrays."""
    Xm = Xm[keep]
    Q = Q[keep]
    tot = Q.sum(axis=(0, 1))
    empty = tot <= 0
    if empty.any():
        Q[:, :, empty] = allowed[empty].T[None]
        tot[empty] = Q[:, :, empty].sum(axis=(0, 1))
    return Q / tot, Xm


def chunk_labeled_held(Q, allowed):
    """(S, K) counts of the labeled points (one candidate class) that each component holds
    (responsibility >= 0.5), class by class."""
    labeled = allowed.sum(1) == 1
    held = Q[:, :, labeled].sum(1) >= 0.5
    return held.astype(float) @ allowed[labeled]


def chunk_class_sums(Yt, Q, allowed, parent, classes):
    """For each class in ``classes``: (count, sum of y) over the labeled points of that class
    held by ``parent``."""
    held = Q[parent].sum(0) >= 0.5
    labeled = held & (allowed.sum(1) == 1)
    out = []
    for c in classes:
        rows = labeled & allowed[:, c]
        out.append((float(rows.sum()), Yt[:, rows].sum(1)))
    return out


def split_side(Yt, point, direction):
    """Which points of the chunk lie on the positive side of the plane through ``point``
    normal to ``direction``."""
    return (Yt.T - point) @ direction > 0


def chunk_split(Yt, Q, Xm, parent, point, direction):
    """The chunk's part of a birth: the points on the positive side move their row of Q from
    ``parent`` to a new last component (which copies the parent's q(x) means). Returns the new
    (Q, Xm) and, for the held points (responsibility >= 0.5) on each side (negative,
    positive), (count, sum of y)."""
    held = Q[parent].sum(0) >= 0.5
    side = split_side(Yt, point, direction)
    child = np.where(side, Q[parent], 0.0)
    Q = np.concatenate([Q, child[None]])
    Q[parent][:, side] = 0.0
    Xm = np.concatenate([Xm, Xm[parent][None]])
    sums = [(float(r.sum()), Yt[:, r].sum(1)) for r in (held & ~side, held & side)]
    return Q, Xm, sums


def chunk_side_scatter(Yt, Q, parent, point, direction, means):
    """Centred scatter (p, p) of the held points on each side of a birth about that side's
    mean, with Q the chunk's responsibilities before the split."""
    held = Q[parent].sum(0) >= 0.5
    side = split_side(Yt, point, direction)
    out = []
    for rows, mean in zip((held & ~side, held & side), means, strict=False):
        Z = Yt[:, rows].T - mean
        out.append(Z.T @ Z)
    return out


# ---- the sample that CLSST+ searches its components on ----------------------------------------
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


def _mix64(z):
    """splitmix64's finaliser: a bijection of the 64-bit integers (arrays wrap silently)."""
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def sample_keys(start: int, m: int, seed: int) -> np.ndarray:
    """The random keys (uint64) of the points ``start .. start + m - 1`` (global row indices):
    splitmix64's stream from a state made of ``seed`` (a non-negative int64), at those
    positions. A key depends on the seed and the row's index alone, not on the chunks, and
    distinct rows have distinct keys (a bijection), so "the m rows of smallest key" is a
    uniform sample without replacement, the same however the rows are chunked. (The state is
    the seed mixed, not the seed itself: seeds s and s + 1 would draw the same stream one row
    apart.)"""
    state = _mix64(np.array([seed], dtype=np.uint64) * _GOLDEN)  # wraps, as splitmix64
    return _mix64(state + np.arange(start + 1, start + m + 1, dtype=np.uint64) * _GOLDEN)


def _eligible(allowed, everyone):
    """The chunk's rows that the random draw takes from: all, or the unlabeled ones."""
    return np.ones(len(allowed), dtype=bool) if everyone else allowed.all(1)


def chunk_sample_counts(allowed):
    """(labeled rows, rows of one candidate class per class (K,)) of the chunk: what the
    sample's plan (:func:`sample_plan`) needs of each chunk."""
    single = allowed.sum(1) == 1
    return int((~allowed.all(1)).sum()), (allowed & single[:, None]).sum(0)


def sample_plan(labeled, single, m):
    """The sample of about ``m`` points as :func:`sample_rows` draws it, from the counts of
    each chunk (:func:`chunk_sample_counts`: ``labeled`` (chunks,), ``single`` (chunks, K)):
    (everyone, draws, first). With at most ``m // 2`` labeled rows the sample is every one of
    them and the ``draws = m - labeled`` unlabeled rows of smallest key (everyone False);
    otherwise the ``m`` rows of smallest key (everyone True) and the first two rows of one
    candidate class of each class (the labels' start needs two): ``first[j, c]`` of them in
    chunk j, the chunks in row order."""
    single = np.asarray(single, dtype=np.int64)
    total = int(np.sum(labeled))
    if total <= m // 2:
        return False, m - total, np.zeros_like(single)
    before = np.cumsum(single, 0) - single
    return True, m, np.clip(2 - before, 0, single)


def chunk_sample_smallest(allowed, start, seed, draws, everyone):
    """The ``draws`` smallest keys (sorted) of the chunk's rows that the draw takes from; the
    chunk starts at global row ``start``."""
    keys = sample_keys(start, len(allowed), seed)[_eligible(allowed, everyone)]
    return smallest(draws, keys)


def smallest(count, *parts):
    """The ``count`` smallest of the keys in ``parts`` (sorted): the merge of
    :func:`chunk_sample_smallest`'s results, associative."""
    keys = np.concatenate(parts)
    if len(keys) > count:
        keys = np.partition(keys, count - 1)[:count]
    return np.sort(keys)


def chunk_sample_rows(allowed, start, seed, top, everyone, first):
    """The chunk's sample rows (local, sorted): its rows of the draw whose key is at most
    ``top`` (the largest key drawn; None: none drawn), with every labeled row (``everyone``
    False) or the first ``first[c]`` rows of one candidate class of each class c."""
    take = np.zeros(len(allowed), dtype=bool)
    if top is not None:
        take = _eligible(allowed, everyone) & (sample_keys(start, len(allowed), seed) <= top)
    if not everyone:
        take |= ~allowed.all(1)
    single = allowed.sum(1) == 1
    for c, count in enumerate(first):
        take[np.flatnonzero(single & allowed[:, c])[:count]] = True
    return np.flatnonzero(take)


def sample_rows(allowed, m, seed) -> np.ndarray:
    """Sorted rows of a sample of about ``m`` of the points whose candidate classes are
    ``allowed`` (n, K): every labeled one (a row that excludes a class) when they are at most
    half of it, the rest the unlabeled rows of smallest key (:func:`sample_keys`); with more
    labeled points, the ``m`` rows of smallest key plus two labeled points of each class
    (the labels' start needs two). The kernels above on one chunk: on Dask input the same
    sample, drawn on the workers."""
    labeled, single = chunk_sample_counts(allowed)
    everyone, draws, first = sample_plan([labeled], single[None], m)
    keys = chunk_sample_smallest(allowed, 0, seed, draws, everyone)
    top = keys[-1] if draws and len(keys) else None
    return chunk_sample_rows(allowed, 0, seed, top, everyone, first[0])


class VBMFA:
    """State and updates of the semi-supervised VB mixture of factor analysers.

    Parameters
    ----------
    Y : ndarray (n, p)
        The data (never written to).
    allowed : ndarray of bool (n, K)
        ``allowed[n, l]``: class ``l`` is a candidate for point ``n`` (all True = unlabeled).
    n_factors : int
        The latent dimension ``k`` (0 gives a mixture of diagonal Gaussians).
    pca : bool
        Isotropic noise (one variance for all features) instead of factor-analysis noise.
    """

    a0 = b0 = alpha = gamma = 1.0  # fixed hyperparameters, as in the authors' code

    def __init__(self, Y, allowed, n_factors, pca=False):
        self.Y = Y
        self.Yt = np.ascontiguousarray(Y.T)  # (p, n): every product runs along the points
        self.allowed = allowed
        self.logC = np.ascontiguousarray(np.where(allowed, 0.0, -np.inf).T)  # (K, n)
        self.n, self.p = Y.shape
        self.K = allowed.shape[1]
        self.k = int(n_factors)
        self.d = self.k + 1
        self.pca = bool(pca)
        self.a = self.a0 + 0.5 * self.p
        self.sum_y2 = np.einsum("np,np->p", Y, Y)
        # the work done, in component sweeps (one pass of q(x) over the data counts S), its
        # cap, and what the caps cut short: CLSST reads them
        self.work, self.work_cap = 0, np.inf
        self.out_of_work: bool | str = False  # "first run": before any birth
        self.unconverged: list[float] = []

    def _blocks(self, fn):
        """[fn(slice) for each block of :data:`CHUNK` points]: a pass over the data block by
        block keeps its temporaries in cache (1.6 times faster at n = 100,000). Two threads
        over the blocks were slower: the many small NumPy calls contend for the GIL."""
        return [fn(b) for b in block_slices(self.n)]

    # ---- state helpers ----------------------------------------------------------------------
    GLOBALS = ("M", "Sig", "b", "u", "g", "psii", "mustar", "nustar")
    STATE = (*GLOBALS, "Q", "Xm", "Xc")

    @property
    def S(self) -> int:
        return self.M.shape[0]

    def snapshot(self, names=STATE) -> dict:
        """Copies of the factors ``names`` (all of them by default; :attr:`GLOBALS` alone are
        small, and :meth:`e_step` rebuilds X and Q from them)."""
        return {name: getattr(self, name).copy() for name in names}

    def restore(self, snap: dict) -> None:
        for name, value in snap.items():
            setattr(self, name, value.copy())

    def resp(self):
        """r[s, n] = sum_l Q[s, l, n] and R[s] = sum_n r[s, n]."""
        r = self.Q.sum(1)
        return r, r.sum(1)

    def e_log_pi(self):
        return digamma(self.u) - digamma(self.u.sum())

    def e_log_beta(self):
        return digamma(self.g) - digamma(self.g.sum(1))[:, None]

    def expected_precisions(self):
        """E[prior precision] and E[log prior precision] of each loading row, (S, p, d)."""
        E = np.empty((self.S, self.p, self.d))
        lnE = np.empty_like(E)
        E[:, :, 0] = self.nustar
        lnE[:, :, 0] = np.log(self.nustar)
        E[:, :, 1:] = (self.a / self.b)[:, None, :]
        lnE[:, :, 1:] = (digamma(self.a) - np.log(self.b))[:, None, :]
        return E, lnE

    def A(self):
        """A_s = E[L~_s' Psi^-1 L~_s] = M_s' Psi^-1 M_s + sum_q psii_q Sig_sq, (S, d, d)."""
        return np.einsum("spd,p,spe->sde", self.M, self.psii, self.M) + np.einsum(
            "p,spde->sde", self.psii, self.Sig
        )

    def stats(self):
        """Responsibility-weighted sufficient statistics of the data and of x~ = [1; x].

        Returns R (S,), Sry (S, p, d) = sum_n r y x~m' and T2 (S, d, d) = E[sum_n r x~ x~']."""
        return self.finish_stats(*chunk_stats(self.Yt, self.Q, self.Xm))

    def finish_stats(self, Sry, T2):
        """(R, Sry, T2) from the sums of :func:`chunk_stats`: T2 gains R_s Xc_s."""
        T2 = np.array(T2, dtype=float)
        R = T2[:, 0, 0].copy()
        T2[:, 1:, 1:] += R[:, None, None] * self.Xc
        return R, Sry, T2

    # ---- the exact updates ------------------------------------------------------------------
    def update_x(self):
        """q(x_n | s): Xc_s = (I + A_s[1:, 1:])^-1 and
        Xm_ns = Xc_s (M_L' Psi^-1 y_n - A_s[1:, 0]), where A_s[1:, 0] = M_L' Psi^-1 m_mu +
        sum_q psii_q Sig_sq[1:, 0] holds the mean/loading cross-covariance that the authors'
        code leaves out (spec section 9, item 3)."""
        W, c = self.x_params()
        self.Xm = chunk_x(self.Yt, W, c)

    def x_params(self):
        """The global part of the q(x) update: sets Xc and returns (W, c) such that
        Xm_ns = W_s y_n - c_s (counts the work of a pass)."""
        self.work += self.S
        A = self.A()
        self.Xc = np.linalg.inv(np.eye(self.k) + A[:, 1:, 1:])
        self.Xc = 0.5 * (self.Xc + np.swapaxes(self.Xc, 1, 2))
        # Xm_n = W_s y_n - c_s, the same two products for every point
        W = np.einsum("sij,spj,p->sip", self.Xc, self.M[:, :, 1:], self.psii)
        c = np.einsum("sij,sj->si", self.Xc, A[:, 1:, 0])
        return W, c

    def update_l(self, stats=None):
        """q(L~_s) row by row: Sig_sq = (diag(E[prec_sq]) + psii_q T2_s)^-1 and
        M_sq = (psii_q Sry_sq + [nu*_q mu*_q, 0, ..., 0]) Sig_sq. ``stats``: those of
        :meth:`stats` when already computed for the current Q and q(x)."""
        _, Sry, T2 = self.stats() if stats is None else stats
        E, _ = self.expected_precisions()
        P = self.psii[None, :, None, None] * T2[:, None] + E[..., None] * np.eye(self.d)
        self.Sig = np.linalg.inv(P)
        self.Sig = 0.5 * (self.Sig + np.swapaxes(self.Sig, 2, 3))
        rhs = self.psii[None, :, None] * Sry
        rhs[:, :, 0] += self.nustar * self.mustar
        self.M = np.einsum("spd,spde->spe", rhs, self.Sig)

    def rho_terms(self):
        """What :meth:`rho` needs besides the points: A_s (S, d, d) and the per-component
        constant c_s (S,), computed once per pass rather than once per block."""
        A = self.A()
        _, logdet_xc = np.linalg.slogdet(self.Xc)
        c = (
            0.5 * np.log(self.psii).sum()
            - 0.5 * self.p * LOG_2PI
            + 0.5 * self.k
            - 0.5 * (A[:, 0, 0] + np.einsum("sij,sji->s", A[:, 1:, 1:], self.Xc))
            + 0.5 * (logdet_xc - np.trace(self.Xc, axis1=1, axis2=2))
        )
        return A, c

    def rho(self, b=slice(None), terms=None):
        """The data term of each (point, component), constants included:
        E[ln p(y_n | x, L~_s, Psi)] - KL(q(x_n | s) || N(0, I)), shape (S, n) (the points
        ``b`` only when given; ``terms``: those of :meth:`rho_terms`). With B = M_s' Psi^-1
        y_n (d,) and x = Xm[s, :, n] it is
        c_s - y'Psi^-1 y / 2 + B_0 + x'(B_1: - A_s[1:, 0] - (A_s[1:, 1:] x + x) / 2)."""
        terms = self.rho_terms() if terms is None else terms
        return rho_points(self.Yt[:, b], self.Xm[:, :, b], self.M, self.psii, *terms)

    def log_joint(self, b=slice(None), terms=None, labels=True):
        """phi[s, l, n] = E ln pi_s + E ln beta_sl + rho_sn + ln C_ln (``logC`` is (K, n));
        q(s, l) is softmax(phi) over (s, l). The points ``b`` only when given; ``labels=False``
        leaves out ln C (every point as unlabeled)."""
        phi = self.rho(b, terms)[:, None, :] + self.prior()[:, :, None]
        return phi + self.logC[None, :, b] if labels else phi

    def prior(self):
        """E ln pi_s + E ln beta_sl, (S, K)."""
        return self.e_log_pi()[:, None] + self.e_log_beta()

    def update_q(self):
        """q(s_n, l_n) proportional to exp(phi[n, s, l]), normalised over (s, l); returns
        sum_n ln sum_{s,l} exp(phi)."""
        self.Q, total = chunk_q(
            self.Yt, self.Xm, self.logC, self.M, self.psii, self.rho_terms(), self.prior()
        )
        return total

    def update_pi(self):
        self.u = self.alpha / self.S + self.resp()[1]

    def update_beta(self):
        self.g = self.gamma / self.K + self.class_resp()

    def class_resp(self):
        """sum_n Q[s, l, n], (S, K)."""
        return self.Q.sum(2)

    def update_nu(self):
        """q(nu_sj) = Gamma(a0 + p/2, b0 + 0.5 sum_q E[Lambda_sqj^2])."""
        diag = np.diagonal(self.Sig, axis1=2, axis2=3)[:, :, 1:]
        self.b = self.b0 + 0.5 * (diag + self.M[:, :, 1:] ** 2).sum(1)

    def update_psi(self, stats=None):
        """Maximum of F over the noise variances (isotropic ones when pca)."""
        _, Sry, T2 = self.stats() if stats is None else stats
        z = (
            self.sum_y2
            - 2.0 * np.einsum("spd,spd->p", self.M, Sry)
            + np.einsum("spd,sde,spe->p", self.M, T2, self.M)
            + np.einsum("spde,sed->p", self.Sig, T2)
        )
        psi = np.full(self.p, z.sum() / (self.n * self.p)) if self.pca else z / self.n
        self.psii = 1.0 / np.maximum(psi, PSI_MIN)

    def update_hyper(self):
        """Maximum of F over mu* and nu* (only with S > 1; with one component the maximum
        drives nu* to infinity, and the authors' code keeps the initial values)."""
        if self.S < 2:
            return
        means = self.M[:, :, 0]
        self.mustar = means.mean(0)
        spread = (self.Sig[:, :, 0, 0] + (means - self.mustar) ** 2).sum(0)
        self.nustar = self.S / spread

    def sweep(self, with_q=True, q_log_q=None) -> float:
        """One learn sweep; returns the bound F after it. ``with_q=False`` keeps Q fixed
        (``q_log_q``: that of :meth:`q_log_q` for this Q, to save recomputing it).

        The order is X, L~, nu, Psi, mu* nu*, pi, beta, Q. Each step maximises F over its own
        factor given all the others, so any order is a coordinate ascent; ending with Q (the
        authors' code has it third) makes F = sum_n ln sum_{s,l} exp(phi[s, l, n]) + the global
        terms, with no second pass over the data, and L~ and Psi share one pass of statistics."""
        self.update_x()
        self.update_globals()
        if not with_q:
            return self.bound(q_log_q)
        return self.update_q() + self.global_bound()

    def update_globals(self):
        """L~, nu, Psi, mu* nu*, pi, beta, in that order, from one pass of statistics."""
        stats = self.stats()
        self.update_l(stats)
        self.update_nu()
        self.update_psi(stats)
        self.update_hyper()
        self.update_pi()
        self.update_beta()

    def global_bound(self) -> float:
        return float(sum(np.sum(term) for term in self.global_terms()))

    # ---- acceleration -----------------------------------------------------------------------
    def pack(self):
        """The global factors (M, Sig, b, Psi^-1, mu*, nu*, u, g) as one unconstrained vector:
        M and mu* as they are, each Sig_sq by its Cholesky factor with the log of its diagonal,
        and the logs of b, Psi^-1, nu*, u and g."""
        L = np.linalg.cholesky(self.Sig)
        low = np.tril_indices(self.d, -1)
        parts = (
            self.M,
            np.log(np.diagonal(L, axis1=2, axis2=3)),
            L[..., low[0], low[1]],
            np.log(self.b),
            np.log(self.psii),
            self.mustar,
            np.log(self.nustar),
            np.log(self.u),
            np.log(self.g),
        )
        return np.concatenate([np.ravel(a) for a in parts])

    def unpack(self, theta) -> None:
        """The inverse of :meth:`pack` (the noise variances floored at PSI_MIN, as always)."""
        S, p, d, low = self.S, self.p, self.d, np.tril_indices(self.d, -1)
        sizes = (S * p * d, S * p * d, S * p * len(low[0]), S * self.k, p, p, p, S, S * self.K)
        M, diag, off, logb, logpsii, mustar, lognu, logu, logg = np.split(
            theta, np.cumsum(sizes)[:-1]
        )
        L = np.zeros((S, p, d, d))
        L[..., np.arange(d), np.arange(d)] = np.exp(diag).reshape(S, p, d)
        L[..., low[0], low[1]] = off.reshape(S, p, -1)
        self.M = M.reshape(S, p, d)
        self.Sig = L @ np.swapaxes(L, 2, 3)
        self.b = np.exp(logb).reshape(S, self.k)
        self.psii = np.minimum(np.exp(logpsii), 1.0 / PSI_MIN)
        self.mustar, self.nustar = mustar.copy(), np.exp(lognu)
        self.u, self.g = np.exp(logu), np.exp(logg).reshape(S, self.K)

    def e_step(self) -> float:
        """X and Q from the global factors; returns F there."""
        self.update_x()
        return self.update_q() + self.global_bound()

    def cycle(self, F=None) -> float:
        """:meth:`e_step`, then the global factors from X and Q: a coordinate ascent sweep
        whose state is the global factors alone. Returns F before the global update. ``F``:
        that of :meth:`e_step` when X and Q are already those of the current globals."""
        F = self.e_step() if F is None else F
        self.update_globals()
        return F

    def squarem(self, F0=None) -> list:
        """One SQUAREM step (Varadhan and Roland, Scand. J. Stat. 35, 2008, scheme S3) on the
        map theta -> :meth:`cycle` of the packed global factors: two cycles give r = theta1 -
        theta0 and v = theta2 - 2 theta1 + theta0; a cycle from theta0 - 2 a r + a^2 v, a =
        -|r| / |v| (at most -1), is kept only if its F is at least the second cycle's, else the
        state goes back to theta2. Returns the F of each cycle kept, non-decreasing. ``F0``:
        as ``F`` of :meth:`cycle`.

        Coordinate ascent on a mixture of factor analysers creeps along the ridge between the
        noise variances and the loadings (TOES, 100,000 points: 7,600 sweeps to converge);
        the extrapolation follows that ridge."""
        theta0 = self.pack()
        F = [self.cycle(F0)]
        theta1 = self.pack()
        F.append(self.cycle())
        theta2 = self.pack()
        r, v = theta1 - theta0, theta2 - 2.0 * theta1 + theta0
        vv = float(v @ v)
        a = min(-np.sqrt(float(r @ r) / vv), -1.0) if vv > 0 else -1.0
        if a == -1.0:  # the extrapolation is theta2 itself
            return F
        theta, F_new = theta0 - 2.0 * a * r + a * a * v, -np.inf
        if np.all(np.isfinite(theta)):
            with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
                try:
                    self.unpack(theta)
                    F_new = self.cycle()
                except np.linalg.LinAlgError:
                    pass
        if np.isfinite(F_new) and F_new >= F[-1]:
            F.append(F_new)
        else:
            self.unpack(theta2)
        return F

    # ---- the lower bound --------------------------------------------------------------------
    def loading_terms(self):
        """F_L(s) = E[ln p(L~_s | nu_s, mu*, nu*)] + H[q(L~_s)], shape (S,)."""
        E, lnE = self.expected_precisions()
        _, logdet = np.linalg.slogdet(self.Sig)
        diag = np.diagonal(self.Sig, axis1=2, axis2=3)
        second = diag + self.M**2
        mean_part = self.nustar * (self.mustar**2 - 2.0 * self.M[:, :, 0] * self.mustar)
        rows = lnE.sum(2) + logdet + self.d - (second * E).sum(2) - mean_part
        return 0.5 * rows.sum(1)

    def global_terms(self):
        """The per-component pieces F_L, F_nu = -KL(q(nu_s)), F_beta = -KL(q(beta_s)), and
        -KL(q(pi))."""
        f_nu = -kl_gamma(self.a, self.b, self.a0, self.b0).sum(1)
        f_beta = -kl_dirichlet(self.g, np.full(self.K, self.gamma / self.K))
        f_pi = -kl_dirichlet(self.u, np.full(self.S, self.alpha / self.S))
        return self.loading_terms(), f_nu, f_beta, f_pi

    def q_log_q(self):
        """sum_{l, n} Q[s, l, n] ln Q[s, l, n] for each component, (S,)."""
        return chunk_q_log_q(self.Q)

    def data_terms(self, q_log_q=None):
        """sum_n sum_l Q[s, l, n] (phi[s, l, n] - ln Q[s, l, n]) for each component, (S,).

        phi = rho + E ln pi + E ln beta where Q > 0 (ln C = 0 on the allowed pairs and Q = 0
        elsewhere), so the sum needs rho (S, n) only, not phi (S, K, n). ``q_log_q``: that of
        :meth:`q_log_q` when known (it is fixed while Q is)."""
        fit = chunk_fit(self.Yt, self.Q, self.Xm, self.M, self.psii, self.rho_terms())
        return self.finish_data_terms(fit, self.Q.sum(2), q_log_q)

    def finish_data_terms(self, fit, Qsum, q_log_q=None):
        """:meth:`data_terms` from the sums of :func:`chunk_fit` and sum_n Q (S, K)."""
        return (
            fit
            + np.einsum("sl,sl->s", Qsum, self.prior())
            - (self.q_log_q() if q_log_q is None else q_log_q)
        )

    def bound(self, q_log_q=None) -> float:
        return float(self.data_terms(q_log_q).sum()) + self.global_bound()

    def label_mistakes(self) -> int:
        """How many labeled points (rows that exclude a class) are predicted outside their
        candidate classes when each is treated as unlabeled, the factors and q(x) fixed: the
        class is argmax_l sum_s exp(phi[s, l, n]) without ln C, as for a new point."""
        return chunk_label_mistakes(
            self.Yt, self.Xm, self.allowed, self.M, self.psii, self.rho_terms(), self.prior()
        )

    def rank_candidates(self):
        """Components in decreasing order of -(D_s / R_s + F_nu + F_L + F_beta) (the authors'
        selection_method 4: the worst-explained component is split first)."""
        f_l, f_nu, f_beta, _ = self.global_terms()
        R = np.maximum(self.resp()[1], 1e-300)
        score = -(self.data_terms() / R + f_nu + f_l + f_beta)
        return list(np.argsort(-score, kind="stable"))

    # ---- births, deaths and the start --------------------------------------------------------
    def remove(self, keep) -> None:
        """Drop the components where ``keep`` is False (deaths) and renormalise Q over the rest;
        a point left with no mass is spread evenly over its allowed (component, class) pairs."""
        keep = np.asarray(keep, dtype=bool)
        for name in ("M", "Sig", "b", "u", "g", "Xc"):
            setattr(self, name, getattr(self, name)[keep])
        self.Q, self.Xm = chunk_remove(self.Q, self.Xm, self.allowed, keep)

    def split(self, parent: int, by_class: bool = False) -> None:
        """Birth: split component ``parent`` in two. Blind (the thesis, spec section 6): along
        the top principal direction of its model covariance Lambda Lambda' + Psi, the offsets
        and the new loadings at one standard deviation (see CLSST's Notes). ``by_class``:
        across the plane halfway between the means of its two largest labeled classes (see
        :meth:`mixed`), each child at the mean of the held points on its side.

        The passes over the data (:func:`chunk_class_sums`, :func:`chunk_split`,
        :func:`chunk_side_scatter`) go through :meth:`_class_sums`, :meth:`_split_points` and
        :meth:`_side_scatter`, which the Dask driver maps over its chunks."""
        Lam = self.M[parent, :, 1:]
        mu = self.M[parent, :, 0].copy()
        plane = None
        if by_class:
            counts = self.labeled_held()[parent]
            a, b = np.argsort(-counts, kind="stable")[:2]
            (na, sa), (nb, sb) = self._class_sums(parent, (a, b))
            mean_a, mean_b = sa / na, sb / nb
            plane = (0.5 * (mean_a + mean_b), mean_a - mean_b)
        before = self.points_state()
        if plane is not None:  # a class split, unless all held points lie on one side
            sums = self._split_points(parent, *plane)
            if sums[0][0] > 0 and sums[1][0] > 0:
                means = [sums[0][1] / sums[0][0], sums[1][1] / sums[1][0]]
            else:  # equal means: go blind
                self.set_points_state(before)
                plane = None
        if plane is None:
            w, V = np.linalg.eigh(Lam @ Lam.T + np.diag(1.0 / self.psii))
            delta = V[:, -1] * np.sqrt(w[-1])
            plane = (mu, V[:, -1])
            sums = self._split_points(parent, *plane)
            means = [mu - delta, mu + delta]
        new = self._side_loadings(parent, plane, sums, Lam, before)
        self.M = np.concatenate([self.M, self.M[parent][None]])
        self.M[parent, :, 1:], self.M[-1, :, 1:] = new
        self.M[parent, :, 0], self.M[-1, :, 0] = means
        for name in ("Sig", "b", "g"):
            arr = getattr(self, name)
            setattr(self, name, np.concatenate([arr, arr[parent][None]]))
        self.u = np.append(self.u, 0.5 * self.u[parent])
        self.u[parent] *= 0.5
        self.Xc = np.concatenate([self.Xc, self.Xc[parent][None]])

    def points_state(self):
        """The per-point state (Q, Xm), to go back to (never written in place)."""
        return self.Q, self.Xm

    def set_points_state(self, state) -> None:
        self.Q, self.Xm = state

    def set_q(self, Q0) -> None:
        """Given responsibilities (S, K, n)."""
        self.Q = Q0

    def _class_sums(self, parent, classes):
        return chunk_class_sums(self.Yt, self.Q, self.allowed, parent, classes)

    def _split_points(self, parent, point, direction):
        """The per-point part of a birth (:func:`chunk_split`); returns the held points' (count,
        sum of y) on each side."""
        self.Q, self.Xm, sums = chunk_split(self.Yt, self.Q, self.Xm, parent, point, direction)
        return sums

    def _side_scatter(self, parent, plane, means, before):
        return chunk_side_scatter(self.Yt, before[0], parent, *plane, means)

    def labeled_held(self):
        """(S, K) counts of the labeled points (one candidate class) held by each component
        (responsibility >= 0.5)."""
        return chunk_labeled_held(self.Q, self.allowed)

    def mixed(self) -> np.ndarray:
        """Components whose held points (responsibility >= 0.5) include labeled points (rows
        with one candidate class) of two or more classes: candidates for a class split."""
        return (self.labeled_held() > 0).sum(1) >= 2

    def _side_loadings(self, parent, plane, sums, fallback, before):
        """Probabilistic-PCA loadings U_k (Lambda_k - sigma^2)^(1/2) of the held points on each
        side of a birth around their own mean, sigma^2 the mean noise variance; ``fallback``
        for a side with too few points. ``before``: (Q, Xm) before the split."""
        counts = [count for count, _ in sums]
        if self.k == 0 or min(counts) <= self.k:
            if self.k == 0 or max(counts) <= self.k:
                return fallback, fallback
        means = [total / max(count, 1.0) for count, total in sums]
        scatters = self._side_scatter(parent, plane, means, before)
        out = []
        for count, scatter in zip(counts, scatters, strict=False):
            if self.k == 0 or count <= self.k:
                out.append(fallback)
                continue
            w, V = np.linalg.eigh(scatter / count)
            top = slice(self.p - self.k, None)
            scale = np.sqrt(np.maximum(w[top] - np.mean(1.0 / self.psii), 1e-6))
            out.append((V[:, top] * scale)[:, ::-1])
        return out

    def moments(self):
        """The mean of the points and the unbiased variance of each feature (ones for one
        point)."""
        return self.Y.mean(0), self.Y.var(0, ddof=1) if self.n > 1 else np.ones(self.p)

    def sample(self, m: int, seed: int):
        """(Y, allowed) of the sample of about ``m`` of the points that :func:`sample_rows`
        draws with ``seed``, in row order."""
        rows = sample_rows(self.allowed, m, seed)
        return self.Y[rows], self.allowed[rows]

    def adopt(self, other, ratio) -> None:
        """The global factors of ``other``, a model of a sample of these points, with its
        counts (the Dirichlet posteriors' data parts) times ``ratio`` (n / the sample's
        size). X and Q are left to the next :meth:`e_step` (a run of SQUAREM steps starts
        with one; for a Dask model it remakes them on the workers from these globals)."""
        for name in ("M", "Sig", "b", "psii", "mustar", "nustar"):
            setattr(self, name, getattr(other, name).copy())
        self.u = self.alpha / other.S + ratio * (other.u - self.alpha / other.S)
        self.g = self.gamma / self.K + ratio * (other.g - self.gamma / self.K)

    def point_clusters(self):
        """The most probable component of each point, argmax_s sum_l Q[s, l, n]."""
        return self.resp()[0].argmax(0)

    def point_classes(self, classes):
        """``classes`` indexed by the most probable class of each point."""
        return classes[self.Q.sum(0).argmax(0)]

    def start(self, means, loadings, psi0, Q0=None) -> None:
        """Initial state: S = len(means) components with posterior means [mean, loadings],
        identity loading covariances, Psi = diag(psi0), mu* the data mean, nu* one over the
        feature variances, u = g = 1/K (the authors' start). With ``Q0`` (S, K, n) the
        responsibilities are given (the k-means start); otherwise they come from a Q update."""
        S = len(means)
        self.M = np.concatenate([np.asarray(means)[:, :, None], np.asarray(loadings)], axis=2)
        self.Sig = np.broadcast_to(np.eye(self.d), (S, self.p, self.d, self.d)).copy()
        self.psii = 1.0 / np.maximum(psi0, PSI_MIN)
        self.mustar, var = self.moments()
        self.nustar = 1.0 / np.maximum(var, PSI_MIN)
        self.u = np.full(S, 1.0 / self.K)
        self.g = np.full((S, self.K), 1.0 / self.K)
        self.b = np.full((S, self.k), self.b0)
        self.update_x()
        if Q0 is None:
            self.update_q()
        else:
            self.set_q(Q0)
            self.update_pi()
            self.update_beta()
        self.update_nu()


def softmax_points(phi, out=None):
    """softmax over (s, l) of phi[s, l, n] for each point, into ``out`` (a new array if None);
    returns ln sum_{s,l} exp(phi), shape (n,) (reductions along the leading axes, which numpy
    runs row by row).

    The weights exp(phi - max) are divided by their sum, not exp(phi - lse) taken: where
    |phi| is large (a far point: 1e17 at 1e6 units) ln of the sum is below the rounding of
    lse and is lost, and exp(phi - lse) summed to the number of tied pairs (CLSST's
    predict_proba gave 2 for a probability). Division sums to 1 within rounding, and the
    largest weight is exactly 1, so the sum never underflows."""
    mx = phi.max(axis=(0, 1))
    out = np.subtract(phi, mx, out=out)
    np.exp(out, out=out)
    total = out.sum(axis=(0, 1))
    out /= total
    return mx + np.log(total)


def pd_loadings(cov, psi0, k):
    """The first k columns of the lower Cholesky factor of PD(cov - diag(psi0)), where PD sets
    eigenvalues <= 1e-8 to 1e-6 (the authors' start for the loadings)."""
    C = cov - np.diag(psi0)
    w, V = np.linalg.eigh(0.5 * (C + C.T))
    w = np.where(w <= 1e-8, 1e-6, w)
    L = np.linalg.cholesky((V * w) @ V.T + 1e-12 * np.eye(len(w)))
    return L[:, :k]
