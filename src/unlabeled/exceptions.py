"""The exceptions and warnings of the library (scikit-learn's ``ConvergenceWarning`` and
``NotFittedError`` are used as they are).

Each error is a subclass of the built-in exceptions that code would catch for its cause, so
that ``except ValueError`` still sees a bad parameter, a model file that is not ours or a
problem too large for the method chosen.
"""

from __future__ import annotations

__all__ = [
    "InvalidParameterError",
    "MemoryBudgetError",
    "ModelFileError",
    "QPSolverError",
    "SCARViolationWarning",
]


class InvalidParameterError(ValueError, TypeError):
    """A constructor parameter of the wrong type or value, raised by ``fit`` before any work.

    A subclass of both ``ValueError`` and ``TypeError``, as scikit-learn's exception of the
    same name, so that code catching either (for a wrong value or a wrong type) sees it.

    Examples
    --------
    >>> from unlabeled import PUSVC
    >>> from unlabeled.exceptions import InvalidParameterError
    >>> try:
    ...     PUSVC(prior=0.4, lam=-1).fit([[0.0], [1.0]], [1, 0])
    ... except InvalidParameterError as exc:
    ...     print(exc)
    lam must be >= 1e-30, got -1"""


class MemoryBudgetError(MemoryError, ValueError):
    """A dense allocation over the budget (:func:`unlabeled.set_config`'s
    ``max_dense_bytes``) or the memory available, refused before it is made; the message
    names its size and the argument to use instead.

    A ``MemoryError`` and a ``ValueError`` (the input is too large for the method chosen).

    Examples
    --------
    >>> import numpy as np
    >>> import unlabeled
    >>> from unlabeled.exceptions import MemoryBudgetError
    >>> from unlabeled.pu.priors import KM1
    >>> X = np.random.default_rng(0).normal(size=(2000, 2))
    >>> s = np.r_[np.ones(200), np.zeros(1800)]
    >>> try:
    ...     with unlabeled.config_context(max_dense_bytes=10**6):
    ...         KM1(max_samples=None).fit(X, s)  # two 2,000 x 2,000 kernel matrices
    ... except MemoryBudgetError as exc:
    ...     print(type(exc).__name__)
    MemoryBudgetError"""


class QPSolverError(RuntimeError, ValueError):
    """A solver (Clarabel; KM1/KM2's scipy nnls) stopped without a solution; the message
    says which parameter to change.

    A ``RuntimeError`` (the solver failed) and a ``ValueError`` (the cause is the scale that
    a parameter gives the problem), so that code catching either sees it.

    Examples
    --------
    >>> from unlabeled.exceptions import QPSolverError
    >>> issubclass(QPSolverError, RuntimeError) and issubclass(QPSolverError, ValueError)
    True"""


class ModelFileError(ValueError):
    """A model file that is missing, not ours, corrupt, from another version, or that holds
    types or values that are refused.

    Examples
    --------
    >>> import os, tempfile
    >>> import unlabeled
    >>> from unlabeled.exceptions import ModelFileError
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = os.path.join(folder, "not-a-model.skops")
    ...     _ = open(path, "w").write("hello")
    ...     try:
    ...         unlabeled.load(path)
    ...     except ModelFileError as exc:
    ...         print("refused:", "not an unlabeled model file" in str(exc))
    refused: True"""


class SCARViolationWarning(UserWarning):
    """The labeled positives do not look like a random sample of the positives: the labels
    were likely not selected completely at random (SCAR), which every PU method that assumes
    it (class priors, ``PUSVC`` without ``propensity``) needs.

    Raised as a warning by :func:`unlabeled.pu.sar.scar_check`; a ``UserWarning``, so that
    ``warnings.simplefilter("error", UserWarning)`` catches it too. The fix is to model the
    labeling: :class:`unlabeled.pu.sar.SAREM` estimates the propensity ``e(x)``, and
    ``fit(X, s, propensity=...)`` of ``PUSVC`` (and of the nnPU and classic PU classifiers)
    weights the labeled positives by it.

    Examples
    --------
    >>> from unlabeled.exceptions import SCARViolationWarning
    >>> issubclass(SCARViolationWarning, UserWarning)
    True"""
