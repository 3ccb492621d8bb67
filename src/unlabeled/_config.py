"""Global settings, as scikit-learn's ``set_config``: read at the moment they are used."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

from ._validation import Integer, Real, validate_params

_DEFAULTS = {"max_dense_bytes": 4 * 2**30, "min_default_max_iter": 10**7}
_config = dict(_DEFAULTS)
_CONSTRAINTS = {
    "max_dense_bytes": [None, Real(0.0)],
    "min_default_max_iter": [None, Integer(1)],
}


def get_config() -> dict:
    """The current settings (a copy), see :func:`set_config`.

    Examples
    --------
    >>> import unlabeled
    >>> config = unlabeled.get_config()
    >>> sorted(config)
    ['max_dense_bytes', 'min_default_max_iter']
    >>> config["min_default_max_iter"] = 1  # a copy: the settings are unchanged
    >>> unlabeled.get_config()["min_default_max_iter"] == 1
    False
    """
    _env_budget()  # a bad UNLABELED_MAX_DENSE_BYTES is refused when the settings are first read
    return dict(_config)


def set_config(
    *, max_dense_bytes: float | None = None, min_default_max_iter: int | None = None
) -> None:
    """Change the global settings; ``None`` leaves a setting as it is.

    Parameters
    ----------
    max_dense_bytes : float, optional
        The budget, in bytes, of one dense size-dependent allocation (an n x n Gram matrix, a
        distance matrix): a larger one is refused with
        :class:`~unlabeled.exceptions.MemoryBudgetError` before it is made, instead of
        letting the OS kill the process. Default 4 GiB; the environment variable
        ``UNLABELED_MAX_DENSE_BYTES`` overrides it (a positive number of bytes: any other
        value is a ``ValueError`` when the settings are read). Whatever the budget, an
        allocation larger than the memory the OS reports available is refused too.
    min_default_max_iter : int, optional
        The floor of the default cap on a solver's steps (``max_iter=None``): LIBSVM's
        ``max(10^7, 100 n)`` for the pairwise solvers, ``max(10^7, 1000 n)`` for the linear
        dual solver, with this floor in place of ``10^7``.

    Examples
    --------
    >>> import unlabeled
    >>> unlabeled.set_config(max_dense_bytes=2**30)
    >>> unlabeled.get_config()["max_dense_bytes"]
    1073741824.0
    >>> unlabeled.set_config(max_dense_bytes=4 * 2**30)
    """
    given = {"max_dense_bytes": max_dense_bytes, "min_default_max_iter": min_default_max_iter}
    checked = validate_params(given, _CONSTRAINTS)
    _config.update({k: v for k, v in checked.items() if v is not None})


@contextlib.contextmanager
def config_context(
    *, max_dense_bytes: float | None = None, min_default_max_iter: int | None = None
) -> Iterator[None]:
    """Settings changed inside a ``with`` block only (see :func:`set_config`).

    Examples
    --------
    >>> import unlabeled
    >>> with unlabeled.config_context(min_default_max_iter=10**5):
    ...     unlabeled.get_config()["min_default_max_iter"]
    100000
    """
    saved = get_config()
    set_config(max_dense_bytes=max_dense_bytes, min_default_max_iter=min_default_max_iter)
    try:
        yield
    finally:
        _config.clear()
        _config.update(saved)


def dense_budget() -> float:
    """The current budget in bytes: ``UNLABELED_MAX_DENSE_BYTES`` or ``max_dense_bytes``."""
    env = _env_budget()
    return float(_config["max_dense_bytes"]) if env is None else env


def _env_budget() -> float | None:
    """``UNLABELED_MAX_DENSE_BYTES`` as a number of bytes (None when unset or empty); a value
    that is not a positive finite number (``"4GB"``, ``"nan"``, ``"-1"``) is an error naming
    the variable, not a budget silently ignored (or one that refuses everything)."""
    env = os.environ.get("UNLABELED_MAX_DENSE_BYTES", "").strip()
    if not env:
        return None
    try:
        value = float(env)
    except ValueError:
        value = float("nan")
    if not (0 < value < float("inf")):
        raise ValueError(
            f"the environment variable UNLABELED_MAX_DENSE_BYTES must be a positive number of "
            f"bytes (e.g. 4e9), got {env!r}: fix or unset it"
        )
    return value
