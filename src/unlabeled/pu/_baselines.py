"""The USMO paper's comparison methods, with PUSVC's interface.

* :class:`DoubleHingeQP`: the same convex problem as PUSVC, given whole to an interior-point
  solver (Clarabel) on the dense Gram matrix: the approach of the paper's reference [7].
* :class:`RampPU`: the non-convex ramp-loss PU risk of the paper's reference [6], by the
  concave-convex procedure with every convex step solved exactly.
* :class:`USMOInit`: the one-class-SVM initialisation of USMO (paper section 4.5) used alone as
  a classifier (the "Init" column of the paper's Tables III and IV).
"""

from __future__ import annotations

import sys
import time

import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_random_state

from .. import _engine
from .._budget import check_dense_budget
from .._clarabel import clarabel_qp, upper_csc
from .._solving import default_max_iter, engine_data, warn_not_converged
from .._validation import MAX_CACHE_MB, VERBOSE, Integer, Options, Real
from ..base import ANY_FINITE, ArrayLike, Fitted, MatrixLike, fill_docstring, set_init_params
from ..exceptions import MemoryBudgetError
from ..registry import Case, register
from ._base import (
    KernelPUModel,
    PUProblem,
    double_hinge_objective,
    double_hinge_offset,
    engine_settings,
    optimal_offset,
    store_solution,
)
from ._starts import ocsvm_start
from ._weighted import population_share
from .sar import checked_propensity

# Peak bytes of DoubleHingeQP per squared training point (Gram matrix, its triangle handed to
# Clarabel, Clarabel's KKT matrix and its LDL factor): 67 measured at 1,100 and 2,100 points
# (growth of peak RSS, rbf kernel), rounded up. Used to refuse a problem before allocating.
_QP_BYTES_PER_PAIR = 72
#: the most training points DoubleHingeQP takes: Clarabel's time on the dense QP grows like
#: n^2 to n^3 (1.3 s at 1,000 points, 5 s at 2,000 on one core; 4,096 ran 94 s on two busy
#: cores, past the fuzz's 30 s; 6,000 gave no answer in a minute), whatever max_memory
#: allows. PUSVC solves the same problem exactly
MAX_QP_POINTS = 2048


_PROBABILITY_DOC = """probability : bool, default=False
        Enable ``predict_proba``, as in :class:`~unlabeled.PUSVC` (5 more fits)."""
_THRESHOLD_DOC = """threshold : {"prior", "zero"}, default="prior"
        Where the decision threshold lies, as in :class:`~unlabeled.PUSVC`: at the prior's
        quantile of the training unlabeled points' decision values, or at the solver's
        offset ("zero", the paper's rule)."""
#: the parameters the baselines document alike (written by fill_docstring at the end)
_SHARED_DOC = {
    "probability_to_threshold": _PROBABILITY_DOC
    + """
    random_state : int, RandomState instance or None, default=None
        Draws the folds of ``probability=True``; nothing else is random.
    """
    + _THRESHOLD_DOC,
    "probability_and_threshold": _PROBABILITY_DOC + "\n    " + _THRESHOLD_DOC,
}


def _require_clarabel(who):
    try:
        import clarabel  # noqa: F401
    except ImportError as exc:  # pragma: no cover - clarabel is a dependency of the qp extra
        raise ImportError(f"{who} needs the Clarabel QP solver: pip install clarabel") from exc


@register(
    family="pu",
    summary="the double-hinge PU dual by a general QP solver (Clarabel): a reference",
    cases=(Case({"prior": 0.4}),),
    needs=("clarabel",),
)
class DoubleHingeQP(KernelPUModel):
    r"""PU learning with the double hinge loss by a generic QP solver on the full Gram matrix.

    Solves exactly the problem of :class:`~unlabeled.PUSVC` (same parameters, same optimum),
    the way du Plessis, Niu and Sugiyama (ICML 2015) and the USMO paper's reference [7] do:
    the dual in ``sigma``

    .. math::

        \min_\sigma \tfrac12 \sigma^\top K_{UU}\sigma - c_1 (K_{UP}1)^\top\sigma
        + \sum_u \max(-\sigma_u, \sigma_u - c_2)
        \quad\text{s.t.}\quad 0 \le \sigma \le c_2,\ 1^\top\sigma = c_1 p

    is handed to the interior-point solver Clarabel with the dense ``n x n`` matrix
    ``K_UU``, so time grows like ``n^3`` and memory like ``n^2``. It is the reference that
    PUSVC is measured against, not a method to use on large data: a problem of more than
    2,048 training points (``MAX_QP_POINTS``), or whose memory estimate exceeds
    ``max_memory``, is refused before anything is allocated. The offset is
    the exact minimiser of ``J`` for the solution's coefficients.

    Parameters
    ----------
    prior, lam, kernel, gamma, degree, coef0
        As in :class:`~unlabeled.PUSVC`.
    tol : float > 0, default=1e-8
        Clarabel's relative and absolute duality-gap tolerance.
    max_memory : float > 0, default=4096
        Budget in MB for the Gram matrix and the solver's factorisation; the global budget
        (``unlabeled.set_config(max_dense_bytes=...)``) bounds them too.
    verbose : bool, default=False
        Print Clarabel's iteration log.
    %(probability_to_threshold)s

    Attributes
    ----------
    support_, support_vectors_, dual_coef_, intercept_, coef_, classes_, n_features_in_,
    objective_, prior_, probA_, probB_, threshold_
        As in :class:`~unlabeled.PUSVC`.

    References
    ----------
    M. C. du Plessis, G. Niu, M. Sugiyama, "Convex formulation for learning from positive and
    unlabeled data", ICML 2015. P. J. Goulart, Y. Chen, "Clarabel: an interior-point solver
    for conic programs with quadratic objectives", 2024.

    Examples
    --------
    >>> import numpy as np
    >>> from unlabeled.pu import PUSVC, DoubleHingeQP
    >>> rng = np.random.default_rng(0)
    >>> X = np.r_[rng.normal(1, 1, (40, 2)), rng.normal(-1, 1, (40, 2))]
    >>> s = np.zeros(80, dtype=int); s[:12] = 1
    >>> qp = DoubleHingeQP(prior=28 / 68, lam=0.05).fit(X, s)
    >>> usmo = PUSVC(prior=28 / 68, lam=0.05, tol=1e-6).fit(X, s)
    >>> bool(abs(qp.objective_ - usmo.objective_) < 1e-5 * abs(usmo.objective_))
    True
    """

    _dense_bytes_per_pair = 0.0  # its own memory check comes first, with its own budget

    _parameter_constraints: dict = {
        **KernelPUModel._parameter_constraints,
        "tol": [Real(0.0)],
        "max_memory": [Real(0.0)],
        "verbose": VERBOSE,
    }

    _fitted_attributes: dict = {
        # fit(propensity=...): the share of positives among all the training points, that
        # threshold="prior" puts above the threshold (absent from SCAR fits and older files)
        "positive_share_": Fitted("float", low=0.0, high=1.0, optional=True),
        "_sar": None,  # fit(propensity=...)'s propensities, during fit only
    }

    def __init__(
        self,
        prior: float | None = None,
        lam: float = 0.01,
        *,
        kernel: str = "rbf",
        gamma: str | float = "scale",
        degree: int = 3,
        coef0: float = 0.0,
        tol: float = 1e-8,
        max_memory: float = 4096,
        verbose: bool | int = False,
        probability: bool = False,
        random_state: int | np.random.RandomState | None = None,
        threshold: str = "prior",
    ) -> None:
        set_init_params(self, locals())

    def fit(
        self, X: MatrixLike, s: ArrayLike, *, propensity: ArrayLike | None = None
    ) -> DoubleHingeQP:
        """Fit by Clarabel on the dense QP (see the class docstring).

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
            The training points, or the Gram matrix with ``kernel="precomputed"``.
        s : array-like of shape (n_samples,)
            PU labels: 1 = labeled positive, 0 or -1 = unlabeled.
        propensity : array-like of shape (n_samples,), optional
            The SAR risk of :meth:`unlabeled.PUSVC.fit`'s ``propensity`` (Bekker, Robberechts
            and Davis 2019), the same dual handed whole to Clarabel: every point in the
            unlabeled part, the labeled positives' coefficients ``a_p / (2 lam)``,
            ``a_p = pi_N (1 / e_p) / sum_q (1 / e_q)``; ``positive_share_`` is ``pi_N``.
            None (the default): the SCAR problem. Not with ``probability=True``.

        Returns
        -------
        self : DoubleHingeQP
        """
        if propensity is None:
            return super().fit(X, s)
        fix = "use probability=False (its sigmoid assumes SCAR)"
        e, mask = checked_propensity(
            self, X, s, propensity, (("probability", self.probability, fix),)
        )
        self._sar = e[mask]
        try:
            return super().fit(X, s)
        finally:
            del self._sar

    def _threshold_share(self) -> float:
        """``positive_share_`` of a SAR fit, else the prior."""
        share = getattr(self, "positive_share_", None)
        return super()._threshold_share() if share is None else float(share)

    @staticmethod
    def memory_needed(n_samples: int) -> float:
        """Estimated peak memory in MB of a fit on ``n_samples`` training points."""
        return _QP_BYTES_PER_PAIR * float(n_samples) ** 2 / 2**20

    def _fit(self, X, mask, params):
        """The dense QP by Clarabel, after refusing a problem over ``max_memory``."""
        prior, lam, tol = params["prior"], params["lam"], params["tol"]
        n_pts, need = X.shape[0], self.memory_needed(X.shape[0])
        what = f"DoubleHingeQP needs a dense QP for {n_pts:,} points (Gram matrix and factors)"
        fix = "use PUSVC, whose memory is linear in n"
        if n_pts > MAX_QP_POINTS:
            raise ValueError(
                f"DoubleHingeQP on {n_pts:,} points is over its limit of {MAX_QP_POINTS:,} "
                "training points: it is a reference solver, an interior-point method on the "
                f"dense n x n QP whose time grows like n^3; {fix} (the same objective, solved "
                "exactly)"
            )
        if need > params["max_memory"]:
            raise MemoryBudgetError(
                f"DoubleHingeQP needs about {need:,.0f} MB for {n_pts:,} points (dense Gram "
                f"matrix and its factorisation) but max_memory={params['max_memory']:,.0f} MB: "
                f"raise max_memory if the machine has it, or {fix}"
            )
        # and under the configured budget and the memory the process may still get: past the
        # latter Clarabel's allocations abort the process (ulimit -v, a container's limit)
        check_dense_budget(need * 2**20, what, fix)
        _require_clarabel("DoubleHingeQP")
        self.__dict__.pop("positive_share_", None)
        sar = getattr(self, "_sar", None)
        if sar is not None:
            return self._fit_sar(X, mask, prior, lam, tol, sar)
        pos, unl = np.flatnonzero(mask), np.flatnonzero(~mask)
        p, n = pos.size, unl.size
        c1, c2 = prior / (2 * lam * p), 1.0 / (2 * lam * n)

        K = self._gram(X)
        h = K[np.ix_(unl, pos)].sum(axis=1)
        sigma = self._solve_dual(K, unl, c1 * h, c1 * p, c2, tol)
        alpha = np.empty(X.shape[0])
        alpha[pos] = c1
        alpha[unl] = -sigma
        g = K @ alpha
        beta = double_hinge_offset(g[pos], g[unl], prior)
        self.set_expansion(X, alpha, beta)
        self.objective_ = double_hinge_objective(g[pos], g[unl], alpha @ g, beta, prior, lam)
        self.prior_ = prior

    def _solve_dual(self, K, unl, h, total, c2, tol):
        """``sigma`` of ``min 1/2 sigma' K_UU sigma - h' sigma + sum max(-sigma, sigma - c2)``
        over ``0 <= sigma <= c2``, ``1' sigma = total``, by Clarabel."""
        n = unl.size
        # variables x = (sigma, t): t_u >= -sigma_u and t_u >= sigma_u - c2 carry the V term
        P = upper_csc(K[np.ix_(unl, unl)], 2 * n)
        q = np.r_[-h, np.ones(n)]
        eye = sp.identity(n, format="csc")
        G = sp.vstack(
            [
                sp.hstack([-eye, -eye]),
                sp.hstack([eye, -eye]),
                sp.hstack([-eye, 0 * eye]),
                sp.hstack([eye, 0 * eye]),
            ],
            format="csc",
        )
        hv = np.r_[np.zeros(n), np.full(n, c2), np.zeros(n), np.full(n, c2)]
        A_eq = sp.csc_matrix(np.r_[np.ones(n), np.zeros(n)][None, :])
        x = clarabel_qp(
            P,
            q,
            A_eq,
            np.array([total]),
            G,
            hv,
            tol_gap=tol,
            tol_feas=min(1e-8, tol),
            verbose=self.verbose,
            what="the double-hinge dual",
            scale="lam",
        ).x
        del P
        return np.clip(x[:n], 0.0, c2)  # interior-point iterates sit a hair inside or out

    def _fit_sar(self, X, mask, prior, lam, tol, propensity):
        """``fit(propensity=...)``: PUSVC's SAR dual (every point in the unlabeled part, the
        positives' coefficients ``a_p / (2 lam)``) by Clarabel; the decision values at every
        point, whose share ``pi_N`` threshold="prior" puts above the threshold."""
        pos, every = np.flatnonzero(mask), np.arange(mask.size)
        share = population_share(mask, prior)
        w = 1.0 / propensity
        a = share * w / w.sum()
        alpha_p, c2 = a / (2 * lam), 1.0 / (2 * lam * mask.size)
        K = self._gram(X)
        sigma = self._solve_dual(K, every, K[:, pos] @ alpha_p, alpha_p.sum(), c2, tol)
        alpha = -sigma
        alpha[pos] += alpha_p
        g = K @ alpha
        beta = double_hinge_offset(g[pos], g, share)
        self.set_expansion(X, alpha, beta)
        f = g + beta
        loss = np.maximum(np.maximum(f, (1 + f) / 2), 0).mean()
        self.objective_ = float(-a @ f[pos] + loss + lam * (alpha @ g))
        self.prior_, self.positive_share_ = prior, share
        return f


@register(
    family="pu",
    summary="the USMO paper's initialisation as a PU classifier (a baseline)",
    cases=(Case({"prior": 0.4}),),
)
class USMOInit(KernelPUModel):
    """The one-class-SVM start of USMO (paper section 4.5) used alone as a classifier.

    The unlabeled points are ranked by a one-class SVM trained on the labeled positives and
    given the dual values of the five optimality states in that order, with group sizes from
    the paper's eq. 18; the offset follows from those states as in PUSVC. No optimisation
    follows: this is the paper's "Init" column, a measure of how good the start is.

    Parameters
    ----------
    prior, lam, kernel, gamma, degree, coef0
        As in :class:`~unlabeled.PUSVC`.
    %(probability_to_threshold)s

    Attributes
    ----------
    support_, support_vectors_, dual_coef_, intercept_, coef_, classes_, n_features_in_,
    objective_, n_iter_, prior_, probA_, probB_, threshold_
        As in :class:`~unlabeled.PUSVC`.

    References
    ----------
    E. Sansone, F. G. B. De Natale, Z.-H. Zhou, "Efficient Training for Positive Unlabeled
    Learning", IEEE TPAMI 41(11), 2019, section 4.5.

    Examples
    --------
    >>> import numpy as np
    >>> from unlabeled.pu import USMOInit
    >>> rng = np.random.default_rng(0)
    >>> X = np.r_[rng.normal(2, 1, (40, 2)), rng.normal(-2, 1, (40, 2))]
    >>> s = np.zeros(80, dtype=int); s[:12] = 1
    >>> init = USMOInit(prior=28 / 68).fit(X, s)  # the start, no optimisation
    >>> init.n_iter_
    0
    """

    def __init__(
        self,
        prior: float | None = None,
        lam: float = 0.01,
        *,
        kernel: str = "rbf",
        gamma: str | float = "scale",
        degree: int = 3,
        coef0: float = 0.0,
        probability: bool = False,
        random_state: int | np.random.RandomState | None = None,
        threshold: str = "prior",
    ) -> None:
        set_init_params(self, locals())

    def _fit(self, X, mask, params):
        """USMO's one-class-SVM start and the offset that follows, without iterations."""
        problem = PUProblem.from_mask(mask, params["prior"], params["lam"])
        sigma0 = ocsvm_start(X, problem, self.kernel, self._gamma, self.degree, self.coef0)
        # zero iterations of the engine: the decision values and the offset of this start
        res = _engine.solve_pu(
            engine_data(X, self.kernel),
            **engine_settings(self, 200, None),
            **problem.engine_args(),
            options=_engine.SolverOptions(1.0, False, 0),
            solver=1,
            sigma0=sigma0,
        )
        store_solution(self, X, problem, res)


@register(
    family="pu",
    summary="the ramp-loss PU classifier by CCCP (a baseline)",
    cases=(Case({"prior": 0.4}),),
)
class RampPU(KernelPUModel):
    r"""PU learning with the non-convex ramp loss, by the concave-convex procedure (CCCP).

    With the ramp loss :math:`\ell(z) = \tfrac12\min(2, \max(0, 1 - z))`, which is symmetric
    (:math:`\ell(z) + \ell(-z) = 1`), the PU risk of du Plessis, Niu and Sugiyama (NIPS 2014)
    becomes

    .. math::

        J(f) = \frac{2\pi}{p}\sum_{x\in P}\ell(f(x)) + \frac1n\sum_{x\in U}\ell(-f(x))
               + \lambda\|f\|^2 - \pi ,

    the objective reported as ``objective_``. Writing :math:`\ell(z) = \tfrac12\max(0, 1-z)
    - \tfrac12\max(0, -1-z)`, CCCP replaces the concave part by its tangent at the current
    ``f`` and solves the resulting convex problem, a weighted hinge-loss SVM with a linear
    term, exactly (Collobert et al. 2006): its dual is a box-constrained QP with one equality
    constraint, solved by the library's SMO engine (``inner_solver="smo"``) or by Clarabel on
    the dense Gram matrix (``inner_solver="qp"``). Every round decreases ``J``; the procedure
    stops when the set of points on the flat side of the ramp no longer changes (a fixed
    point) or after ``max_cccp_iter`` rounds. The result is a local minimum that depends on
    the start.

    Parameters
    ----------
    prior, lam, kernel, gamma, degree, coef0
        As in :class:`~unlabeled.PUSVC`.
    tol : float > 0, default=1e-3
        Tolerance of each convex step (KKT violation for ``smo``, duality gap for ``qp``).
    max_cccp_iter : int >= 1, default=30
        Cap on CCCP rounds.
    init : {"random", "zero"}, default="random"
        The function the first tangent is taken at: ``zero`` is ``f = 0``; ``random`` draws
        the training decision values uniformly in [-2, 2] (``random_state``), which puts a
        random quarter of the points on the flat side of the ramp.
    inner_solver : {"smo", "qp"}, default="smo"
    cache_size : float in (0, 1e6], default=200
        Kernel-row cache of the SMO engine, in MB.
    random_state : int, RandomState instance or None, default=None
        Draws the random start of ``init="random"`` and the folds of ``probability=True``.
    verbose : bool, default=False
        Print one line per CCCP round.
    %(probability_and_threshold)s

    Attributes
    ----------
    support_, support_vectors_, dual_coef_, intercept_, coef_, classes_, n_features_in_,
    prior_, probA_, probB_, threshold_
        As in :class:`~unlabeled.PUSVC` (``dual_coef_`` holds the expansion coefficients).
    objective_ : float
        ``J`` above at the solution.
    objective_path_ : ndarray
        ``J`` after every CCCP round.
    n_cccp_iter_ : int
        CCCP rounds run.
    n_iter_ : int
        Total SMO iterations over all rounds (0 for ``inner_solver="qp"``).

    References
    ----------
    M. C. du Plessis, G. Niu, M. Sugiyama, "Analysis of learning from positive and unlabeled
    data", NIPS 2014. R. Collobert, F. Sinz, J. Weston, L. Bottou, "Trading convexity for
    scalability", ICML 2006. A. L. Yuille, A. Rangarajan, "The concave-convex procedure",
    Neural Computation 2003.

    Examples
    --------
    >>> import numpy as np
    >>> from unlabeled.pu import RampPU
    >>> rng = np.random.default_rng(0)
    >>> X = np.r_[rng.normal(1, 1, (40, 2)), rng.normal(-1, 1, (40, 2))]
    >>> s = np.zeros(80, dtype=int); s[:12] = 1
    >>> clf = RampPU(prior=28 / 68, lam=0.05).fit(X, s)
    >>> clf.n_cccp_iter_ >= 1, float(np.mean(clf.predict(X) == np.repeat([1, 0], 40))) > 0.7
    (True, True)
    """

    _dense_bytes_per_pair = float(_QP_BYTES_PER_PAIR)  # the dense QP of DoubleHingeQP
    _dense_fix = "use inner_solver='smo' (the default), whose memory is linear in n"

    _parameter_constraints: dict = {
        **KernelPUModel._parameter_constraints,
        "tol": [Real(0.0)],
        "max_cccp_iter": [Integer(1)],
        "init": [Options(("random", "zero"))],
        "inner_solver": [Options(("smo", "qp"))],
        "cache_size": [Real(0.0, MAX_CACHE_MB, high_open=False)],
        "verbose": VERBOSE,
    }

    _fitted_attributes: dict = {
        "objective_path_": Fitted("f", ("n_cccp_iter_",), high=ANY_FINITE),  # as objective_
        "n_cccp_iter_": Fitted("int", low=1),
        "n_iter_": Fitted("int", low=0),
    }

    def __init__(
        self,
        prior: float | None = None,
        lam: float = 0.01,
        *,
        kernel: str = "rbf",
        gamma: str | float = "scale",
        degree: int = 3,
        coef0: float = 0.0,
        tol: float = 1e-3,
        max_cccp_iter: int = 30,
        init: str = "random",
        inner_solver: str = "smo",
        cache_size: float = 200,
        random_state: int | np.random.RandomState | None = None,
        verbose: bool | int = False,
        probability: bool = False,
        threshold: str = "prior",
    ) -> None:
        set_init_params(self, locals())

    def _fit(self, X, mask, params):
        """CCCP rounds from ``init`` until the flat side of the ramp stops changing."""
        prior, lam, tol = params["prior"], params["lam"], params["tol"]
        rounds = params["max_cccp_iter"]
        if self.inner_solver == "qp":
            _require_clarabel("RampPU(inner_solver='qp')")
        rng = check_random_state(self.random_state)
        m = X.shape[0]
        p, n = int(mask.sum()), int((~mask).sum())
        y = np.where(mask, 1.0, -1.0)
        # the convex step divided by 2 lam: 1/2 ||f||^2 + sum_i C_i hinge(y_i f_i) + ...
        C = np.where(mask, prior / (2 * lam * p), 1.0 / (4 * lam * n))
        if not np.all((C > 0) & np.isfinite(C)):  # (lam near 1.8e308: 4 lam n overflows)
            raise ValueError(
                f"lam={lam!r} makes RampPU's box bounds prior / (2 lam p) and 1 / (4 lam n) "
                f"{C.min():.3g} .. {C.max():.3g}, outside the positive floats; lower lam"
            )
        margin = rng.uniform(-2, 2, m) if self.init == "random" else np.zeros(m)

        step = self._smo_step if self.inner_solver == "smo" else self._qp_step
        K = self._gram(X) if self.inner_solver == "qp" else None
        rows = None
        if self.inner_solver == "smo":  # one row cache for every convex step
            rows = _engine.KernelRows(
                engine_data(X, self.kernel),
                rows=np.arange(m, dtype=np.int32),
                **engine_settings(self, self.cache_size, None),
            )
        path, n_iter, flat = [], 0, None
        t0 = time.perf_counter()
        for _ in range(rounds):
            new_flat = margin < -1  # points on the flat side of the ramp at the tangent point
            if flat is not None and np.array_equal(new_flat, flat):
                break
            flat = new_flat
            d = C * flat
            coef, g, iters = step(X, K, rows, y, C, d, tol)
            n_iter += iters
            # the exact offset of this convex step: hinge terms plus the tangent's linear term
            beta = optimal_offset(1 - y * g, -y, C, float(d @ y))
            margin = y * (g + beta)
            J = _ramp_objective(margin, mask, prior, lam * (coef @ g))
            path.append(J)
            if self.verbose:
                print(
                    f"[RampPU] round {len(path):3d}  J {J:.8g}  on the flat side "
                    f"{int(flat.sum()):6d}  {time.perf_counter() - t0:7.2f}s",
                    file=sys.stderr,
                    flush=True,
                )
        else:
            if not np.array_equal(margin < -1, flat):
                why = f"stopped after max_cccp_iter={rounds} rounds before reaching a fixed point"
                warn_not_converged("RampPU", why=why + "; increase max_cccp_iter")
        self.set_expansion(X, coef, beta)
        self.objective_ = path[-1]
        self.objective_path_ = np.array(path)
        self.n_cccp_iter_ = len(path)
        self.n_iter_ = n_iter
        self.prior_ = prior

    def _basis(self, X, coef):
        nz = np.flatnonzero(coef)
        return nz if self.kernel == "precomputed" else X[nz]

    def _smo_step(self, X, K, rows, y, C, d, tol):
        """Dual of the convex step with a = gamma + d in [0, C]: min 1/2 a'Qa - (1 + Qd)'a
        s.t. y'a = y'd, Q = (y y') * K. Returns the expansion coefficients y (a - d), the
        decision values without offset and the SMO iterations."""
        m = y.size
        flat = np.flatnonzero(d)
        Qd = y * self.kernel_dot(X, self._basis(X, y * d), (y * d)[flat]) if flat.size else 0
        res = _engine.solve_kernel_qp(
            rows,
            var_point=np.arange(m, dtype=np.int64),
            p=-(1.0 + Qd) * np.ones(m),
            C=C,
            alpha0=d.copy(),
            y=y.astype(np.int8),
            options=_engine.SolverOptions(tol, True, default_max_iter(m)),
        )
        if not res.converged:
            warn_not_converged(
                "RampPU (a convex step's SMO)",
                limit=default_max_iter(m),
                used=res.n_iter,
                default_cap=True,
                detail=f". KKT violation {res.violation:.3g} > tol={tol}.",
            )
        # the gradient G = Q a - 1 - Q d gives the decision values: g = y (G + 1)
        return y * (res.alpha - d), y * (res.G + 1.0), int(res.n_iter)

    def _qp_step(self, X, K, data, y, C, d, tol):
        """The same dual by Clarabel on the dense matrix Q."""
        m = y.size
        Q = K * np.outer(y, y)
        q = -(1.0 + Q @ d)
        eye = sp.identity(m, format="csc")
        a = clarabel_qp(
            upper_csc(Q),
            q,
            sp.csc_matrix(y[None, :]),
            np.array([y @ d]),
            sp.vstack([-eye, eye], format="csc"),
            np.r_[np.zeros(m), C],
            tol_gap=min(tol, 1e-8),
            tol_feas=min(1e-8, tol),
            verbose=False,
            what="a CCCP step",
            scale="lam",
        ).x
        coef = y * (np.clip(a, 0.0, C) - d)
        return coef, K @ coef, 0


def _ramp_objective(margin, mask, prior, reg):
    """J of RampPU from the margins y_i f(x_i) (y = +1 on P, -1 on U) and lam ||f||^2."""
    ramp = 0.5 * np.clip(1 - margin, 0.0, 2.0)
    return float(2 * prior * ramp[mask].mean() + ramp[~mask].mean() + reg - prior)


for _cls in KernelPUModel.__subclasses__():  # this module's baselines
    if _cls.__module__ == __name__:
        fill_docstring(_cls, _SHARED_DOC)
