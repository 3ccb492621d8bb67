"""PenalizedL1: the class prior by penalised L1-divergence estimation (du Plessis et al.,
2017)."""

from __future__ import annotations

import numpy as np

from .._budget import check_dense_budget
from .._validation import (
    Integer,
)
from ..base import (
    ANY_FINITE,
    ArrayLike,
    Fitted,
    set_init_params,
)
from ..registry import register
from ._priors_base import (
    GRID_CONSTRAINT,
    PriorEstimator,
    at_zero_width,
    check_positive_grid,
    in_units,
    shared_docs,
    sq_dists,
    unit_exponent,
    width_in_data_units,
)

#: the public module of these estimators: their model files and pickles name them there
PUBLIC_MODULE = "unlabeled.pu.priors"


# ------------------------------------------------------------------------- penalised L1
@shared_docs("the centres, the folds", example=(0.15, 0.45), see_also="KM2 TIcE")
@register(family="pu", summary="class prior: penalised L1 divergence")
class PenalizedL1(PriorEstimator):
    r"""Class prior by penalised L1-distance minimisation (du Plessis, Niu, Sugiyama, ACML 2015).

    With ``p_P`` the density of the positives and ``p_U = pi p_P + (1 - pi) p_N`` that of the
    unlabeled points, ``theta p_P <= p_U`` everywhere as long as ``theta <= pi``, where the
    L1 distance ``int |theta p_P - p_U| = 1 - theta`` decreases; beyond ``pi`` the positive
    part ``theta p_P - p_U > 0`` is penalised without bound. Writing the penalised distance
    in its variational form ``sup_{r >= -1} int r (theta p_P - p_U)``, modelling
    ``r(x) = -1 + sum_l alpha_l k(x, c_l)`` with ``alpha >= 0``, Gaussian basis functions
    ``k(x, c) = exp(-||x - c||^2 / (2 sigma^2))`` centred on ``n_basis`` unlabeled points, and
    adding ``(lambda / 2) ||alpha||^2``, the maximiser is in closed form:

    .. math::

        \beta(\theta) = \theta \hat h_P - \hat h_U, \qquad
        \alpha = \max(0, \beta) / \lambda, \qquad
        \mathrm{PL1}(\theta) = \alpha^\top \beta - \theta + 1,

    with ``h_P``, ``h_U`` the basis functions' means over ``P`` and ``U``. The estimate is the
    minimiser of ``PL1`` over the grid ``theta_grid``. For each ``theta``, ``sigma`` and
    ``lambda`` are chosen by ``n_folds``-fold cross-validation: the held-out criterion is
    ``-alpha_train' beta_test`` (the held-out value of the variational objective, negated),
    as in the authors' MATLAB code.

    Parameters
    ----------
    n_basis : int >= 1, default=300
        Gaussian centres, drawn at random from the unlabeled points.
    sigmas : sequence of float > 0 or None, default=None
        Candidate widths; None: ``median distance * logspace(-2, 1, 10)``, the median of the
        distances between the unlabeled points and the centres (authors' code).
    lambdas : sequence of float > 0 or None, default=None
        Candidate regularisation; None: ``logspace(-3, 1, 10)``.
    theta_grid : sequence of float in (0, 1) or None, default=None
        Candidate priors; None: ``0.01, 0.02, ..., 0.99``.
    n_folds : int >= 2, default=5
    %(bootstrap_params)s

    Attributes
    ----------
    prior_ : float
    penalized_l1_ : ndarray of shape (n_grid,)
        ``PL1(theta)`` over ``theta_grid_``.
    theta_grid_ : ndarray
    sigma_, lambda_ : float
        The cross-validated width and regularisation at ``theta = prior_``.
    %(bootstrap_attributes)s

    References
    ----------
    M. C. du Plessis, G. Niu, M. Sugiyama, "Class-prior estimation for learning from positive
    and unlabeled data", ACML 2015 (Machine Learning 106, 2017).

    """

    __module__ = PUBLIC_MODULE

    _parameter_constraints: dict = {
        **PriorEstimator._parameter_constraints,
        "n_basis": [Integer(1)],
        "sigmas": GRID_CONSTRAINT,
        "lambdas": GRID_CONSTRAINT,
        "theta_grid": GRID_CONSTRAINT,
        "n_folds": [Integer(2)],
    }

    _fitted_attributes: dict = {
        "penalized_l1_": Fitted("f", ("n_grid",)),
        "theta_grid_": Fitted("f", ("n_grid",)),
        "sigma_": Fitted("float", above=0.0, high=ANY_FINITE),  # (as KM's kernel_width_)
        "lambda_": Fitted("float", low=0.0),
    }

    def __init__(
        self,
        *,
        n_basis: int = 300,
        sigmas: ArrayLike | None = None,
        lambdas: ArrayLike | None = None,
        theta_grid: ArrayLike | None = None,
        n_folds: int = 5,
        n_bootstrap: int = 0,
        confidence: float = 0.95,
        random_state: int | np.random.RandomState | None = None,
    ) -> None:
        set_init_params(self, locals())

    def _check_values(self, params):
        """The grids' entries: finite and > 0 (theta_grid's < 1), as arrays (theta_grid sorted,
        or the default 0.01, ..., 0.99)."""
        grid = check_positive_grid(params["theta_grid"], "theta_grid", high=1.0)
        return {
            **params,
            "sigmas": check_positive_grid(params["sigmas"], "sigmas"),
            "lambdas": check_positive_grid(params["lambdas"], "lambdas"),
            "theta_grid": np.arange(1, 100) / 100 if grid is None else np.sort(grid),
        }

    def _check_sizes(self, n_labeled, n_unlabeled, params):
        folds = params["n_folds"]
        if min(n_labeled, n_unlabeled) < folds:
            raise ValueError(
                f"n_folds={folds} needs at least {folds} labeled positives and {folds} "
                f"unlabeled points, got {n_labeled} and {n_unlabeled}; lower n_folds"
            )

    def _check_memory(self, n_labeled, n_unlabeled, n_features, params):
        """The distances to the centres and their kernel values (n_samples x n_basis, two
        each, and a temporary), the (theta, basis) arrays of a fold and the cross-validation
        scores (sigmas x lambdas x theta_grid)."""
        super()._check_memory(n_labeled, n_unlabeled, n_features, params)
        n, b = n_labeled + n_unlabeled, min(params["n_basis"], n_unlabeled)
        check_dense_budget(
            24.0 * n * b,
            f"PenalizedL1 with n_basis={params['n_basis']:,} holds {n:,} x {b:,} kernel values",
            "lower n_basis (default 300)",
        )
        n_s, n_l, n_t = (
            10 if params[k] is None else params[k].size for k in ("sigmas", "lambdas", "theta_grid")
        )
        check_dense_budget(
            8.0 * n_s * n_l * n_t + 32.0 * n_t * b,
            f"PenalizedL1 scores {n_s:,} sigmas x {n_l:,} lambdas x {n_t:,} theta_grid values "
            f"(and {n_t:,} x {b:,} arrays per fold)",
            "pass shorter sigmas, lambdas or theta_grid",
        )

    def _estimate(self, Xp, Xu, rng, params):
        p, n = Xp.shape[0], Xu.shape[0]
        folds = params["n_folds"]
        b = min(params["n_basis"], n)
        centres = Xu[np.sort(rng.choice(n, b, replace=False))]
        unit = unit_exponent(Xp, Xu)  # (in units of 2**unit: the same kernel, finite)
        Xp, Xu, centres = in_units(Xp, unit), in_units(Xu, unit), in_units(centres, unit)
        dp, du = sq_dists(Xp, centres), sq_dists(Xu, centres)
        sigmas = params["sigmas"]
        if sigmas is None:
            med = np.sqrt(np.median(du))
            sigmas = (med if med > 0 else 1.0) * np.logspace(-2, 1, 10)
        else:  # (given in the points' units)
            sigmas = np.ldexp(sigmas, -unit)
        lambdas = params["lambdas"]
        if lambdas is None:
            lambdas = np.logspace(-3, 1, 10)
        grid = params["theta_grid"]
        fold_p = rng.permutation(np.arange(p) * folds // p)
        fold_u = rng.permutation(np.arange(n) * folds // n)
        # score[s, l, t]: cross-validated -alpha_train' beta_test for sigma s, lambda l, theta t
        score = np.zeros((sigmas.size, lambdas.size, grid.size))
        for si, sigma in enumerate(sigmas):
            with np.errstate(divide="ignore", invalid="ignore"):
                Kp, Ku = np.exp(-dp / (2 * sigma**2)), np.exp(-du / (2 * sigma**2))
            at_zero_width(Kp, dp, sigma), at_zero_width(Ku, du, sigma)
            for k in range(folds):
                hp_tr, hp_te = Kp[fold_p != k].mean(0), Kp[fold_p == k].mean(0)
                hu_tr, hu_te = Ku[fold_u != k].mean(0), Ku[fold_u == k].mean(0)
                beta_tr = grid[:, None] * hp_tr - hu_tr  # (theta, basis)
                beta_te = grid[:, None] * hp_te - hu_te
                val = (np.maximum(beta_tr, 0) * beta_te).sum(1)  # lambda * alpha_tr' beta_te
                score[si] -= val[None, :] / lambdas[:, None] / folds
        pl1 = np.empty(grid.size)
        chosen = []
        flat = score.reshape(-1, grid.size)
        for t, theta in enumerate(grid):
            si, li = np.unravel_index(int(np.argmin(flat[:, t])), score.shape[:2])
            sigma, lam = sigmas[si], lambdas[li]
            with np.errstate(divide="ignore", invalid="ignore"):
                Kp, Ku = np.exp(-dp / (2 * sigma**2)), np.exp(-du / (2 * sigma**2))
            at_zero_width(Kp, dp, sigma), at_zero_width(Ku, du, sigma)
            hp, hu = Kp.mean(0), Ku.mean(0)
            beta = theta * hp - hu
            pl1[t] = np.maximum(beta, 0) @ beta / lam - theta + 1
            chosen.append((sigma, lam))
        best = int(np.argmin(pl1))
        info = {
            "penalized_l1_": pl1,
            "theta_grid_": grid.copy(),
            "sigma_": width_in_data_units(chosen[best][0], unit, "PenalizedL1"),
            "lambda_": float(chosen[best][1]),
        }
        return float(grid[best]), info
