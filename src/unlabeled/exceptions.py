"""The exceptions and warnings of the library (scikit-learn's ``ConvergenceWarning`` and
``NotFittedError`` are used as they are).

Each error is a subclass of the built-in exceptions that code would catch for its cause, so
that ``except ValueError`` still sees a bad parameter, a model file that is not ours or a
problem too large for the method chosen.
"""

from __future__ import annotations

__all__ = ["InvalidParameterError", "MemoryBudgetError", "ModelFileError", "QPSolverError"]


class InvalidParameterError(ValueError, TypeError):
    """A constructor parameter of the wrong type or value, raised by ``fit`` before any work.

    A subclass of both ``ValueError`` and ``TypeError``, as scikit-learn's exception of the
    same name, so that code catching either (for a wrong value or a wrong type) sees it."""


class MemoryBudgetError(MemoryError, ValueError):
    """A dense allocation over the budget (:func:`unlabeled.set_config`'s
    ``max_dense_bytes``) or the memory available, refused before it is made; the message
    names its size and the argument to use instead.

    A ``MemoryError`` and a ``ValueError`` (the input is too large for the method chosen)."""


class QPSolverError(RuntimeError, ValueError):
    """Clarabel stopped without a solution; the message says which parameter to change.

    A ``RuntimeError`` (the solver failed) and a ``ValueError`` (the cause is the scale that
    a parameter gives the problem), so that code catching either sees it."""


class ModelFileError(ValueError):
    """A model file that is missing, not ours, corrupt, from another version, or that holds
    types or values that are refused."""
