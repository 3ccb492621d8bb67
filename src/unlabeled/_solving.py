"""What the estimators hand the engine and say of its solves: the engine's typed data, its
kernel settings (:func:`kernel_spec`, :func:`engine_kernel`, :func:`cache_bytes`: built here
only), the default cap on a solver's steps, the progress printer and the library's one
ConvergenceWarning; and :class:`KernelModel`, what other modules may read or call of a kernel
machine."""

from __future__ import annotations

import sys
import time
import warnings
from typing import Protocol

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from ._config import get_config
from ._engine import KernelSpec, as_data
from ._kernels import KERNEL_CODES


class KernelModel(Protocol):
    """What a module other than a kernel machine's own may read or call of it (the package's
    protocol; :class:`unlabeled.base.KernelMachine` implements it, a fit's helpers and the
    lower layers type against it). Everything else of the machine is its own (or its
    subclasses').

    ``kernel``, ``degree``, ``coef0``
        Its kernel parameters as given.
    ``kernel_gamma_``
        The kernel width in use (``gamma="scale"`` / ``"auto"`` resolved on the training
        data), from the moment ``fit`` has checked its data.
    ``kernel_params()``
        The kernel's parameters for :func:`unlabeled._kernels.kernel_block`.
    ``kernel_dot(A, B, coef, rows=None)``
        ``sum_j coef_j k(a_i, b_j)`` for the rows of ``A``.
    ``set_expansion(X, alpha, intercept=0.0, *, w=None, classes=None)``
        Store the fitted expansion ``f = sum_i alpha_i k(x_i, .) + b``.
    """

    kernel: str
    degree: int
    coef0: float

    kernel_gamma_: float

    def kernel_params(self) -> dict: ...

    def kernel_dot(self, A, B, coef, rows=None) -> np.ndarray: ...

    def set_expansion(self, X, alpha, intercept=0.0, *, w=None, classes=None) -> None: ...


def kernel_spec(
    kernel: str, gamma: float = 1.0, degree: int = 3, coef0: float = 0.0, threads: int = 0
) -> KernelSpec:
    """The engine's kernel: ``kernel``'s code and parameters, ``threads`` for its products
    (0: the engine's default). ``kernel_spec("precomputed")`` reads a Gram matrix."""
    return KernelSpec(
        KERNEL_CODES[kernel],
        gamma=float(gamma),
        coef0=float(coef0),
        degree=int(degree),
        n_jobs=int(threads),
    )


def engine_kernel(est: KernelModel, threads: int = 0) -> KernelSpec:
    """The engine's kernel of the kernel machine ``est`` (its width resolved by ``fit``)."""
    return kernel_spec(est.kernel, est.kernel_gamma_, est.degree, est.coef0, threads)


def cache_bytes(cache_size) -> float:
    """The engine's kernel-row cache budget in bytes for an estimator's ``cache_size`` in MB."""
    return float(cache_size) * 2**20


def engine_data(X, kernel: str | None = None):
    """The engine's typed view of ``X`` (sparse input canonicalised on a copy). With a
    ``kernel`` other than ``"linear"`` (the engine reads X only through kernel values, and
    returns nothing indexed by column) the columns of sparse X are renumbered to those in use:
    no buffer of length n_features (see :func:`unlabeled._engine.as_data`)."""
    return as_data(X, compress_columns=kernel is not None and kernel != "linear")


def default_max_iter(n: int, linear: bool = False) -> int:
    """The cap on a solver's steps when the user gave none (``max_iter=None``).

    LIBSVM's ``max(10^7, 100 n)`` for the pairwise (SMO) solvers, whose steps touch two
    variables; for the linear dual solver, whose steps are single coordinate updates,
    LIBLINEAR's 1000 passes over the data, ``max(10^7, 1000 n)``. A normal problem converges
    long before (a few passes); a pathological one (data scaled by 1e18, ``lam=1e-30``, a
    tolerance below rounding) stops there with a ``ConvergenceWarning`` instead of running
    for ever."""
    floor = get_config()["min_default_max_iter"]
    return int(max(floor, (1000 if linear else 100) * int(n)))


def resolve_max_iter(max_iter, n: int, linear: bool = False) -> int:
    """``max_iter`` as given, or :func:`default_max_iter` for None (and the engine's -1)."""
    if max_iter is None or max_iter < 0:
        return default_max_iter(n, linear)
    return int(max_iter)


class EngineProgress:
    """Engine progress hook: prints at most once a second when verbose."""

    def __init__(self, verbose, prefix):
        self.verbose = bool(verbose)
        self.prefix = prefix
        self.last = 0.0
        self.start = time.perf_counter()

    def __call__(self, it, violation, objective, elapsed):
        if self.verbose and elapsed - self.last >= 1.0:
            self.last = elapsed
            obj = "-" if np.isnan(objective) else f"{objective:.8g}"
            self._print(
                f"iter {it:>10d}  KKT violation {violation:.3e}  dual objective {obj}"
                f"  {elapsed:7.1f}s"
            )
        return False  # never asks the engine to stop; Ctrl-C does

    def done(self, res):
        if self.verbose:
            objective = getattr(res, "objective", None)
            obj = f", dual objective {objective:.8g}" if objective is not None else ""
            self._print(
                f"done: {res.n_iter} iterations, KKT violation {res.violation:.3e}{obj}, "
                f"{time.perf_counter() - self.start:.2f}s"
            )

    def _print(self, text):
        print(f"{self.prefix} {text}", file=sys.stderr, flush=True)


class StepProgress:
    """A fit's ``verbose`` lines on standard error, ``[who] text`` and the seconds since
    the fit began: one per step of a method whose steps are few and long (TSVM's solves)."""

    def __init__(self, verbose, who: str):
        self.verbose = bool(verbose)
        self.who = who
        self.start = time.perf_counter()

    def __call__(self, text: str) -> None:
        if self.verbose:
            elapsed = time.perf_counter() - self.start
            print(f"[{self.who}] {text}  {elapsed:7.1f}s", file=sys.stderr, flush=True)


def warn_not_converged(
    who: str,
    *,
    why: str | None = None,
    limit: int | None = None,
    limit_name: str = "max_iter",
    used: int = 0,
    unit: str = "iterations",
    detail: str = "",
    stacklevel: int = 2,
    default_cap: str | bool = False,
) -> None:
    """The library's one ConvergenceWarning: ``who`` stopped before its stopping test held.

    Parameters
    ----------
    who : str
        The solver or estimator, first word of the message.
    why : str, optional
        The reason, when it is neither of the two below.
    limit, limit_name, used, unit
        When ``used >= limit`` the cap was reached: "stopped after max_iter=5 iterations;
        increase max_iter"; otherwise the solver stalled in floating point.
    detail : str
        Appended as is (e.g. ". KKT violation 0.012 > tol=0.001.").
    stacklevel : int
        Of the caller, as for :func:`warnings.warn`.
    default_cap : bool or "linear"
        ``limit`` is :func:`default_max_iter`'s cap (the user gave ``max_iter=None``): the
        message says so and how it was set.
    """
    if why is None:
        if limit is not None and used >= limit:
            why = f"stopped after {limit_name}={limit} {unit}; increase {limit_name}"
            if default_cap:
                why = (
                    f"stopped after {limit} {unit}, the default cap for {limit_name}=None "
                    f"(max(10^7, {1000 if default_cap == 'linear' else 100} n_samples)); pass "
                    f"a larger {limit_name}, or rescale the data if it is badly scaled"
                )
        else:
            why = "stalled: no step can move in floating point (degenerate data?)"
    warnings.warn(f"{who} {why}{detail}", ConvergenceWarning, stacklevel=stacklevel + 1)
