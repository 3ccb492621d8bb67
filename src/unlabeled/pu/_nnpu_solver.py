r"""The non-negative (and unbiased) PU risk of a model linear in its features, and its
minimisation by L-BFGS: the solver of :class:`~unlabeled.pu.NNPUClassifier`.

With ``f = Phi w + b``, ``P`` the labeled positives (weights ``a_i``, summing to 1), ``U`` the
unlabeled points (weights ``c_j``, summing to 1), ``pi`` the prior among ``U`` and a loss
``l``,

.. math::

    R_P^+ = \sum_P a_i l(f_i),\quad R_P^- = \sum_P a_i l(-f_i),\quad
    R_U^- = \sum_U c_j l(-f_j),\quad g = R_U^- - \pi R_P^-,

    J(w, b) = \pi R_P^+ + T(g) + \tfrac{\lambda}{2}\|w\|^2,

with ``T(g) = g`` (uPU, du Plessis et al. 2014/2015) or ``T(g) = max(-beta, g)`` (nnPU,
Kiryo et al. 2017; ``beta = 0`` in the paper). uPU is smooth (convex for the logistic loss).
The max makes nnPU non-smooth along ``g = -beta``; it is minimised by

1. the uPU minimiser: where it has ``g >= -beta`` it is also nnPU's (``J_nn >= J_u``
   everywhere, with equality there), a global one for the logistic loss;
2. otherwise a continuation on the smooth upper bound
   ``T_tau(g) = -beta + tau log(1 + exp((g + beta) / tau))``
   (``0 <= T_tau - T <= tau log 2``), ``tau`` shrunk by 10 per stage, each L-BFGS solve
   warm-started from the last; the point of least exact ``J`` among the stages is kept.

Each evaluation costs two products with ``Phi`` (``Phi w`` and ``Phi' r``).
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit, log_expit

LOSSES = ("sigmoid", "logistic")
#: the continuation's smoothing widths (in units of the risk, which is O(1))
TAUS = (1e-2, 1e-3, 1e-4, 1e-5, 1e-6)
#: how close to the kink (|g + beta|) the stationarity test takes nnPU's subdifferential
KINK = 1e-4
#: the gradient tolerance of the first, loose uPU solve
LOOSE = 1e-3


def loss_and_slope(z, loss: str):
    """``(l(z), l'(z))``: sigmoid ``1 / (1 + e^z)``, logistic ``log(1 + e^-z)``."""
    if loss == "sigmoid":
        v = expit(-z)
        return v, -v * (1.0 - v)
    return -log_expit(z), -expit(-z)


class PURisk:
    """``J`` of the module's docstring on the features ``Phi`` (dense or CSR, rows in any
    order) with ``mask`` marking the labeled positives and ``weight`` the sample weights.

    ``theta = (w, b)`` (``b`` absent when ``fit_intercept`` is False).

    With ``propensity`` (one value per point, read at the labeled positives), the SAR risk
    of Bekker, Robberechts and Davis (2019): ``a`` proportional to ``weight / e`` on ``P``
    (each labeled positive stands for ``1 / e`` positives), ``c`` spread over every point,
    labeled or not (the population sample), and ``prior`` the share of positives among all
    the points."""

    def __init__(self, Phi, mask, weight, prior, lam, loss, beta, fit_intercept, propensity=None):
        self.Phi, self.mask = Phi, mask
        wp, wu = weight[mask], weight[~mask]
        if propensity is not None:
            wp, wu = wp / propensity[mask], weight
        self.a = np.zeros(mask.size)
        self.a[mask] = wp / wp.sum()
        self.c = np.zeros(mask.size)
        if propensity is None:
            self.c[~mask] = wu / wu.sum()
        else:
            self.c[:] = wu / wu.sum()
        self.prior, self.lam, self.loss = float(prior), float(lam), loss
        self.beta, self.fit_intercept = float(beta), bool(fit_intercept)
        self.d = Phi.shape[1]
        self.n_evals = 0
        self.pa = self.prior * self.a  # pi a
        self.pac = self.pa - self.c  # pi a - c: g = -(pi a - c)' l(-f)

    def split(self, theta):
        """``(w, b)`` of ``theta``."""
        return theta[: self.d], (float(theta[self.d]) if self.fit_intercept else 0.0)

    def decision(self, theta):
        f = self.Phi @ theta[: self.d]
        f = f.ravel() if isinstance(f, np.ndarray) else np.asarray(f, dtype=np.float64).ravel()
        if self.fit_intercept:
            f += theta[self.d]
        return f

    def parts(self, theta):
        """``(pi R_P^+, g, f, l(f), l'(f), l(-f), l'(-f))`` at ``theta``."""
        f = self.decision(theta)
        lp, dp = loss_and_slope(f, self.loss)
        if self.loss == "sigmoid":  # l(-f) = 1 - l(f), l'(-f) = l'(f): one exp
            ln, dn = 1.0 - lp, dp
        else:
            ln, dn = loss_and_slope(-f, self.loss)
        return float(self.pa @ lp), -float(self.pac @ ln), f, lp, dp, ln, dn

    def outer(self, g, mode: str, tau: float):
        """``(T(g), T'(g))`` for ``mode`` "upu", "nnpu" (exact) or "smooth" (``T_tau``)."""
        if mode == "upu":
            return g, 1.0
        z = g + self.beta
        if mode == "nnpu":
            return max(z, 0.0) - self.beta, float(z > 0)
        return tau * float(np.logaddexp(0.0, z / tau)) - self.beta, float(expit(z / tau))

    def value(self, theta, mode: str = "nnpu", tau: float = 0.0) -> float:
        """``J`` at ``theta`` (exact for "upu" and "nnpu")."""
        pos, g = self.parts(theta)[:2]
        w = self.split(theta)[0]
        return float(pos + self.outer(g, mode, tau)[0] + 0.5 * self.lam * (w @ w))

    def value_grad(self, theta, mode: str, tau: float = 0.0):
        """``(J, grad J)``; for "nnpu" at ``g = -beta`` the gradient of the right side."""
        self.n_evals += 1
        pos, g, f, lp, dp, ln, dn = self.parts(theta)
        t, dt = self.outer(g, mode, tau)
        # dJ/df: pi a l'(f) + T'(g) (pi a - c) l'(-f)
        r = self.pa * dp
        r += dt * self.pac * dn
        w = self.split(theta)[0]
        return float(pos + t + 0.5 * self.lam * (w @ w)), self._gradient(r, w)

    def _gradient(self, r, w):
        """The gradient in ``theta`` of a function of ``f`` with derivative ``r``, plus that of
        ``lam ||w||^2 / 2`` when ``w`` is given."""
        grad = np.empty(self.d + self.fit_intercept)
        grad[: self.d] = np.asarray(self.Phi.T @ r, dtype=np.float64).ravel()
        if w is not None:
            grad[: self.d] += self.lam * w
        if self.fit_intercept:
            grad[self.d] = r.sum()
        return grad

    def split_gradients(self, theta):
        """``(grad B, grad g)`` at ``theta``, ``B = pi R_P^+ + lam ||w||^2 / 2``."""
        _, _, _, _, dp, _, dn = self.parts(theta)
        w = self.split(theta)[0]
        return self._gradient(self.pa * dp, w), self._gradient(self.pac * dn, None)


def _lbfgs(risk: PURisk, theta, mode, tau, tol, max_iter):
    """One L-BFGS solve of ``risk`` in ``mode`` (scipy's L-BFGS-B without bounds, its line
    search allowed 100 evaluations: the smoothed kink needs more than its default 20 when
    ``tau`` is small): (theta, iterations, whether capped)."""
    res = minimize(
        risk.value_grad,
        theta,
        args=(mode, tau),
        jac=True,
        method="L-BFGS-B",
        options={
            "maxiter": int(max_iter),
            "gtol": float(tol),
            "ftol": 1e-15,
            "maxcor": 20,
            "maxls": 100,
        },
    )
    return res.x, int(res.nit), int(res.nit) >= max_iter


def violation(risk: PURisk, theta, mode: str) -> float:
    """How far ``theta`` is from a stationary point of ``J`` (``mode`` "upu" or "nnpu"): the
    largest entry of the gradient where ``J`` is smooth; near the kink ``|g + beta| <=
    KINK`` of nnPU, of the least element of its Clarke subdifferential
    ``grad B + lambda grad g``, ``lambda`` in [0, 1] (``B = pi R_P^+ + lam ||w||^2 / 2``)."""
    g = risk.parts(theta)[1]
    if mode == "upu" or abs(g + risk.beta) > KINK:
        return float(np.max(np.abs(risk.value_grad(theta, mode)[1]), initial=0.0))
    u, v = risk.split_gradients(theta)
    lam = float(np.clip(-(u @ v) / (v @ v), 0.0, 1.0)) if v @ v > 0 else 0.0
    return float(np.max(np.abs(u + lam * v), initial=0.0))


def solve(risk: PURisk, non_negative: bool, tol: float, max_iter: int, log=None):
    """Minimise ``risk`` (see the module's docstring): ``(theta, n_iter, capped, g,
    violation)``, ``capped`` when a solve stopped at ``max_iter`` iterations.

    ``max_iter`` caps the L-BFGS iterations of each solve; ``log(message)`` reports stages."""
    theta = np.zeros(risk.d + risk.fit_intercept)
    # uPU, loosely first: where its g is well below -beta, nnPU's continuation starts there
    theta, n_iter, capped = _lbfgs(risk, theta, "upu", None, max(tol, LOOSE), max_iter)
    g = risk.parts(theta)[1]
    if not non_negative or g >= -risk.beta - LOOSE:
        theta, it, capped = _lbfgs(risk, theta, "upu", None, tol, max_iter)
        n_iter, g = n_iter + it, risk.parts(theta)[1]
    if log is not None:
        log(f"uPU: {n_iter} iterations, J = {risk.value(theta, 'upu'):.6g}, g = {g:.4g}")
    if not non_negative or g >= -risk.beta:
        return theta, n_iter, capped, g, violation(risk, theta, "upu")
    best, best_value, best_capped = theta, risk.value(theta), capped
    for tau in TAUS:
        # each stage to a tolerance in proportion to its smoothing, the last to tol
        stage_tol = tol if tau == TAUS[-1] else max(tol, tau / 10)
        theta, it, capped = _lbfgs(risk, theta, "smooth", tau, stage_tol, max_iter)
        n_iter += it
        value = risk.value(theta)
        if log is not None:
            log(f"nnPU tau={tau:g}: {it} iterations, J = {value:.8g}")
        if value <= best_value:
            best, best_value, best_capped = theta, value, capped
    return best, n_iter, best_capped, risk.parts(best)[1], violation(risk, best, "nnpu")
