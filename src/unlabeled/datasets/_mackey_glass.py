"""The Mackey-Glass time series and the LUPI task built on it (Vapnik & Vashist 2009; Pechyony
et al. 2010, section 7)."""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.utils import check_random_state

from .._validation import check_int, check_real


def _mackey_glass_series(length, tau, a, b, exponent, dt, x0, per_sample):
    """``length`` samples of x, one every ``per_sample`` steps of dt from t = 0, from the
    constant history x(t) = x0 on [-tau, 0], by classic fourth-order Runge-Kutta with step dt.

    The delayed value at a half step, x(t + dt/2 - tau), is the cubic Hermite interpolant of
    the two neighbouring grid values and derivatives (the derivative at a grid point is the
    first RK stage there): fourth-order accurate like the stages, where linear interpolation
    would cap the whole scheme at second order."""
    m = int(round(tau / dt))  # grid steps per delay
    n_steps = (length - 1) * per_sample
    x = [0.0] * (n_steps + 1)  # x on the grid t = k dt
    dx = [0.0] * (n_steps + 1)  # x'(k dt), filled as the first stage of each step
    x[0] = x0

    def delayed(j):  # x and x' at grid index j (history for j <= 0)
        if j <= 0:
            return x0, 0.0
        return x[j], dx[j]

    def rhs(xt, xd):
        return -a * xt + b * xd / (1.0 + xd**exponent)

    h = dt
    for k in range(n_steps):
        xk = x[k]
        d0, g0 = delayed(k - m)
        d1, g1 = delayed(k - m + 1)
        dh = 0.5 * (d0 + d1) + 0.125 * h * (g0 - g1)  # Hermite value at the midpoint
        k1 = rhs(xk, d0)
        dx[k] = k1
        k2 = rhs(xk + 0.5 * h * k1, dh)
        k3 = rhs(xk + 0.5 * h * k2, dh)
        k4 = rhs(xk + h * k3, d1)
        x[k + 1] = xk + h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
    return np.asarray(x[::per_sample], dtype=np.float64)


def make_mackey_glass(
    n_samples: int = 1000,
    D: int = 1,
    tau: float = 17,
    a: float = 0.1,
    b: float = 0.2,
    exponent: float = 10,
    dt: float = 0.1,
    sampling: float = 1.0,
    burn_in: int = 500,
    random_state: int | np.random.RandomState | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""The Mackey-Glass prediction task with privileged information of the SVM+ papers.

    The series solves the delay differential equation (Mackey and Glass, Science 1977)

    .. math::

        \frac{dx}{dt} = -a\,x(t) + \frac{b\,x(t-\tau)}{1 + x(t-\tau)^{10}},

    chaotic for the standard ``a = 0.1, b = 0.2, tau = 17``. It is integrated by classic
    fourth-order Runge-Kutta with step ``dt`` (0.1, the step of R. Jang's generator that the
    paper used), the delayed term at half steps by cubic Hermite interpolation, from a constant
    history ``x(t) = x0`` on ``[-tau, 0]``, and sampled every ``sampling`` time units. ``x0`` is
    drawn uniformly from [0.5, 1.5] and the first sample is taken ``burn_in`` plus a random 0 to
    999 time units after the start, both from ``random_state``: different seeds give different
    stretches of the attractor.

    Each sample ``t`` gives (``t - 1`` is the previous sample, ``sampling`` time units earlier)

    * ``X[t] = (x(t-3), x(t-2), x(t-1), x(t))``, the features,
    * ``y[t] = +1`` if ``x(t+D) > x(t)`` else ``-1``, the label,
    * ``X_star[t] = (x(t+D-2), x(t+D-1), x(t+D+1), x(t+D+2))``, the privileged features: the
      series around the predicted value, known only in hindsight.

    Parameters
    ----------
    n_samples : int >= 1, default=1000
        Number of consecutive samples.
    D : int >= 1, default=1
        Prediction horizon (the paper's Delta: 1, 5 or 8).
    tau : float > 0, default=17
        Delay; ``tau / dt`` must be an integer.
    a, b : float >= 0, default=0.1, 0.2
        Decay and production rates.
    exponent : float > 0, default=10
    dt : float > 0, default=0.1
        Integration step; ``tau / dt`` and ``sampling / dt`` must be integers.
    sampling : float > 0, default=1.0
        Time between consecutive samples, so also the unit of the lags and of ``D``. R. Jang's
        ``mg.c``, the generator the SMO paper cites, prints every integration step of 0.1:
        ``sampling=0.1`` follows that convention (a far easier task: ``D = 1`` is then 0.1 time
        units ahead).
    burn_in : int >= 0, default=500
        Time units discarded before the random offset (the transient from the flat history).
    random_state : int, RandomState instance or None, default=None
        Draws ``x0`` and the offset.

    Returns
    -------
    X : ndarray of shape (n_samples, 4)
    y : ndarray of shape (n_samples,), values in {-1, +1}
    X_star : ndarray of shape (n_samples, 4)

    References
    ----------
    M. C. Mackey and L. Glass, "Oscillation and chaos in physiological control systems",
    Science 197, 1977. V. Vapnik and A. Vashist, "A new learning paradigm: learning using
    privileged information", Neural Networks 22, 2009. D. Pechyony, R. Izmailov, A. Vashist,
    V. Vapnik, "SMO-style algorithms for learning using privileged information", DMIN 2010.

    Examples
    --------
    >>> import numpy as np
    >>> from unlabeled.datasets import make_mackey_glass
    >>> X, y, X_star = make_mackey_glass(500)
    >>> X.shape, X_star.shape, sorted(set(y.tolist()))
    ((500, 4), (500, 4), [-1, 1])
    """
    n_samples = check_int(n_samples, "n_samples", low=1)
    D = check_int(D, "D", low=1)
    tau = check_real(tau, "tau", low=0.0)
    a = check_real(a, "a", low=0.0, low_open=False)
    b = check_real(b, "b", low=0.0, low_open=False)
    exponent = check_real(exponent, "exponent", low=0.0)
    dt = check_real(dt, "dt", low=0.0)
    sampling = check_real(sampling, "sampling", low=0.0)
    burn_in = check_int(burn_in, "burn_in", low=0)
    for value, name in ((sampling / dt, "sampling / dt"), (tau / dt, "tau / dt")):
        if round(value) < 1 or abs(value - round(value)) > 1e-9 * max(1.0, value):
            raise ValueError(
                f"{name} must be a positive integer (the grid must hold the samples and the "
                f"delay), got {value:.6g}: choose dt like 0.1, 0.05 or 0.01"
            )
    if not isinstance(random_state, (type(None), numbers.Integral, np.random.RandomState)):
        raise TypeError(
            f"random_state must be None, an int or a RandomState, got {type(random_state)}"
        )
    rng = check_random_state(random_state)
    x0 = rng.uniform(0.5, 1.5)
    per_sample = int(round(sampling / dt))
    # burn_in and the offset are in time units; t - 3 must exist
    start = int(round((burn_in + rng.randint(0, 1000)) / sampling)) + 3
    length = start + n_samples + D + 2
    s = _mackey_glass_series(length, tau, a, b, exponent, dt, x0, per_sample)
    t = np.arange(start, start + n_samples)
    X = np.column_stack([s[t - 3], s[t - 2], s[t - 1], s[t]])
    y = np.where(s[t + D] > s[t], 1, -1)
    X_star = np.column_stack([s[t + D - 2], s[t + D - 1], s[t + D + 1], s[t + D + 2]])
    return X, y, X_star
