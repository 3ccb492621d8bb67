"""Input checks shared by the estimators: every error names the argument and the fix.

Constructor parameters are declared, in scikit-learn's style, as a class attribute
``_parameter_constraints`` mapping each name to the list of what it may be (:class:`Real`,
:class:`Integer`, :class:`Options`, :class:`Boolean`, :class:`Instance`, :class:`Callable` or
``None``), and checked at the start of ``fit`` by :func:`validate_params`, which raises
:class:`InvalidParameterError`. The public names are re-exported by :mod:`unlabeled.base`.
"""

from __future__ import annotations

import numbers
import warnings
from dataclasses import dataclass
from typing import Literal, overload

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike
from sklearn.exceptions import DataConversionWarning
from sklearn.utils.multiclass import check_classification_targets

from ._kernels import compact_columns, kernel_block, kernel_params
from .exceptions import InvalidParameterError

#: a data matrix: anything numpy reads as a 2-d array, or a scipy sparse matrix
MatrixLike = ArrayLike | sp.spmatrix | sp.sparray

#: the largest integer parameter (a count, an iteration cap, a degree, threads): the engine's
#: int32, so that a larger value gets a clear error, never an OverflowError or a binding's
#: signature dump
INT_MAX = 2**31 - 1
#: the largest kernel cache, in MB (1e6 MB = about 1 TB): larger values are refused before
#: any conversion to a number of bytes
MAX_CACHE_MB = 1e6
#: the largest box weight C (C, C1, C2): the reciprocal of PUSVC's smallest lam, far past any
#: meaningful scale; larger ones overflowed inside the solvers (WellSVM's squared hinge keeps
#: its box at 1e8 C: inf for C1=1e301, refused as "C must be positive and finite")
MAX_C = 1e30
#: the largest polynomial degree: (gamma <x, x'> + coef0)^degree overflows double precision
#: beyond it as soon as the base exceeds about 1000
MAX_DEGREE = 100


def check_real(value, name: str, *, low=None, high=None, low_open=True, high_open=True) -> float:
    """A finite real number in an (open or closed) interval."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(
            f"{name} must be a real number, got {value!r} of type {type(value).__name__}"
        )
    v = float(value)
    if not np.isfinite(v):
        raise ValueError(f"{name} must be finite, got {value!r}")
    if low is not None and (v <= low if low_open else v < low):
        raise ValueError(f"{name} must be {'>' if low_open else '>='} {low}, got {value!r}")
    if high is not None and (v >= high if high_open else v > high):
        raise ValueError(f"{name} must be {'<' if high_open else '<='} {high}, got {value!r}")
    return v


@overload
def check_int(
    value: object,
    name: str,
    *,
    low: int | None = ...,
    high: int | None = ...,
    allow_none: Literal[False] = ...,
) -> int: ...
@overload
def check_int(
    value: object, name: str, *, low: int | None = ..., high: int | None = ..., allow_none: bool
) -> int | None: ...
def check_int(value, name: str, *, low=None, high=INT_MAX, allow_none=False) -> int | None:
    """An integer (not a bool, not a float such as 1.5) in ``[low, high]``; ``high`` defaults to
    :data:`INT_MAX`, the engine's limit."""
    if value is None and allow_none:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        what = "an integer or None" if allow_none else "an integer"
        raise TypeError(f"{name} must be {what}, got {value!r}")
    if low is not None and value < low:
        raise ValueError(f"{name} must be >= {low}, got {value!r}")
    if high is not None and value > high:
        raise ValueError(f"{name} must be <= {high}, got {value!r}")
    return int(value)


@dataclass(frozen=True)
class Real:
    """A finite real number (not a bool) in an interval; ``None`` bounds are open-ended.

    Examples
    --------
    >>> from unlabeled.base import Real
    >>> Real(0, None).check(2, "C")
    2.0
    >>> Real(0, 1, high_open=False).describe()
    'a number in (0, 1]'
    """

    low: float | None = None
    high: float | None = None
    low_open: bool = True
    high_open: bool = True

    def admits_type(self, value: object) -> bool:
        return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))

    def check(self, value: object, name: str) -> float:
        return check_real(
            value,
            name,
            low=self.low,
            high=self.high,
            low_open=self.low_open,
            high_open=self.high_open,
        )

    def describe(self) -> str:
        if self.high is None and self.low == 0:
            return "a positive number" if self.low_open else "a non-negative number"
        if self.low is None and self.high is None:
            return "a finite number"
        lo = "(-inf" if self.low is None else ("(" if self.low_open else "[") + f"{self.low:g}"
        hi = "inf)" if self.high is None else f"{self.high:g}" + (")" if self.high_open else "]")
        return f"a number in {lo}, {hi}"


@dataclass(frozen=True)
class Integer:
    """An integer (not a bool) in ``[low, high]``; ``high`` defaults to 2**31 - 1 (the engine's
    int32).

    Examples
    --------
    >>> from unlabeled.base import Integer
    >>> Integer(1).check(5, "max_iter")
    5
    >>> Integer(1).admits_type(True)  # a bool is not an integer here
    False
    """

    low: int | None = None
    high: int = INT_MAX

    def admits_type(self, value: object) -> bool:
        return isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))

    def check(self, value: object, name: str) -> int:
        return check_int(value, name, low=self.low, high=self.high)

    def describe(self) -> str:
        if self.high == INT_MAX:  # the engine's limit: named only when a value exceeds it
            return "an integer" + ("" if self.low is None else f" >= {self.low}")
        if self.low is None:
            return f"an integer <= {self.high}"
        return f"an integer in [{self.low}, {self.high}]"


@dataclass(frozen=True)
class Options:
    """One of a few fixed values (strings, or numbers such as n_jobs=-1).

    Examples
    --------
    >>> from unlabeled.base import Options
    >>> Options(("linear", "rbf")).check("rbf", "kernel")
    'rbf'
    >>> Options(("linear", "rbf")).describe()
    "'linear', 'rbf'"
    """

    values: tuple

    def admits_type(self, value: object) -> bool:
        if isinstance(value, (bool, np.bool_)):
            return False
        return any(isinstance(value, type(v)) for v in self.values)

    def check(self, value: object, name: str) -> object:
        if value in self.values:
            return value
        raise ValueError(f"{name} must be one of {list(self.values)}, got {value!r}")

    def describe(self) -> str:
        return ", ".join(repr(v) for v in self.values)


@dataclass(frozen=True)
class Boolean:
    """True or False (Python or NumPy bools).

    Examples
    --------
    >>> import numpy as np
    >>> from unlabeled.base import Boolean
    >>> Boolean().check(np.True_, "shrinking")
    True
    >>> Boolean().admits_type(1)
    False
    """

    def admits_type(self, value: object) -> bool:
        return isinstance(value, (bool, np.bool_))

    def check(self, value: object, name: str) -> bool:
        if not self.admits_type(value):
            raise TypeError(f"{name} must be True or False, got {value!r}")
        return bool(value)

    def describe(self) -> str:
        return "True or False"


@dataclass(frozen=True)
class Instance:
    """An instance of one of the given types (a ``numpy.random.RandomState``, an estimator).

    Examples
    --------
    >>> import numpy as np
    >>> from unlabeled.base import Instance
    >>> c = Instance((np.random.RandomState,), "a RandomState")
    >>> c.admits_type(np.random.RandomState(0))
    True
    >>> c.describe()
    'a RandomState'
    """

    types: tuple
    what: str = ""

    def admits_type(self, value: object) -> bool:
        return isinstance(value, self.types)

    def check(self, value: object, name: str) -> object:
        if not self.admits_type(value):
            raise TypeError(f"{name} must be {self.describe()}, got {value!r}")
        return value

    def describe(self) -> str:
        return self.what or "an instance of " + " or ".join(t.__name__ for t in self.types)


@dataclass(frozen=True)
class Callable:
    """A callable (a function, a scorer).

    Examples
    --------
    >>> from unlabeled.base import Callable
    >>> Callable().check(len, "scoring") is len
    True
    >>> Callable().admits_type("accuracy")
    False
    """

    def admits_type(self, value: object) -> bool:
        return callable(value)

    def check(self, value: object, name: str) -> object:
        if not callable(value):
            raise TypeError(f"{name} must be a callable, got {value!r}")
        return value

    def describe(self) -> str:
        return "a callable"


#: what ``random_state`` may be, as in scikit-learn: None, a seed or a RandomState
RANDOM_STATE = [None, Integer(0, 2**32 - 1), Instance((np.random.RandomState,), "a RandomState")]
#: what ``verbose`` may be: a bool or a level >= 0
VERBOSE = [Boolean(), Integer(0)]


def validate_params(params: dict, constraints: dict) -> dict:
    """Check every parameter named in ``constraints`` against its list of allowed kinds.

    Parameters
    ----------
    params : dict
        The estimator's parameters (``get_params(deep=False)``).
    constraints : dict
        Name -> list of :class:`Real`, :class:`Integer`, :class:`Options`, :class:`Boolean`,
        :class:`Instance`, :class:`Callable` or ``None`` (the value ``None`` is allowed).
        Parameters not named are not checked.

    Returns
    -------
    dict
        The checked values (``float`` for :class:`Real`, ``int`` for :class:`Integer`, ``bool``
        for :class:`Boolean`), by name.

    Raises
    ------
    InvalidParameterError
        Naming the parameter, what it may be, and the value given. A value of the type of one
        kind only gets that kind's message (``"C must be > 0, got 0.0"``); otherwise every
        alternative is listed (``"gamma must be 'scale', 'auto' or a non-negative number"``).

    Examples
    --------
    >>> from unlabeled.base import Integer, Real, validate_params
    >>> constraints = {"C": [Real(0, None)], "max_iter": [Integer(1), None]}
    >>> validate_params({"C": 1, "max_iter": None}, constraints)
    {'C': 1.0, 'max_iter': None}
    >>> validate_params({"C": 0, "max_iter": None}, constraints)
    Traceback (most recent call last):
        ...
    unlabeled.exceptions.InvalidParameterError: C must be > 0, got 0
    """
    return {
        name: _check_param(params[name], name, allowed) for name, allowed in constraints.items()
    }


def _check_param(value, name, allowed):
    if value is None and None in allowed:
        return None
    kinds = [c for c in allowed if c is not None]
    fits = [c for c in kinds if c.admits_type(value)]
    single = kinds if len(allowed) == 1 else fits
    if len(single) == 1 and not (isinstance(single[0], Options) and len(allowed) > 1):
        try:
            return single[0].check(value, name)
        except (TypeError, ValueError) as exc:
            raise InvalidParameterError(str(exc)) from None
    errors = []
    for c in fits:
        try:
            return c.check(value, name)
        except (TypeError, ValueError) as exc:
            errors.append((c, exc))
    ranged = [exc for c, exc in errors if not isinstance(c, Options)]
    if len(ranged) == 1 and "must be <=" in str(ranged[0]):  # a number past its upper bound
        raise InvalidParameterError(str(ranged[0])) from None
    alternatives = [c.describe() if c is not None else "None" for c in allowed]
    listed = ", ".join(alternatives[:-1]) + " or " + alternatives[-1]
    raise InvalidParameterError(f"{name} must be {listed}, got {value!r}")


#: the largest kernel value accepted (float64 data): sums of n kernel values times the box
#: bounds of a dual must stay far from double precision's 1.8e308. Kernels beyond it come from
#: badly scaled data or extreme ``gamma``/``coef0``/``degree``; rescale (e.g. StandardScaler).
MAX_KERNEL_VALUE = 1e100
#: the same for float32 data, whose kernel rows may be cached in float32 (max 3.4e38)
MAX_KERNEL_VALUE_F32 = 1e30
#: a variance below this fraction of the mean square is rounding noise (three identical points
#: give X.var() = 4.9e-32, not 0): gamma="scale" refuses it
_VAR_RTOL = 1e-12
_SAMPLE_ROWS = 64
#: the largest rounding error allowed in the exponent of an rbf kernel: squared distances are
#: computed as ||x||^2 - 2 <x, x'> + ||x'||^2, exact to about 2.2e-16 max ||x||^2
_RBF_ROUNDING = 1e-2


def canonical_sparse(X):
    """A sparse ``X`` in canonical form (duplicates summed, indices sorted), as a copy when it
    was not; anything else unchanged. scipy sums duplicate entries in ``toarray()`` and
    products, but not in ``multiply``, ``data`` or row slicing: a CSR matrix with duplicates
    gave another ``gamma="scale"`` than its dense equal, and support vectors that held each
    entry twice."""
    if sp.issparse(X) and not X.has_canonical_format:
        X = X.copy()
        X.sum_duplicates()
    return X


_BLOCK = 1 << 18  # entries per block of rows in _variance (a few MB of temporaries)


def _row_blocks(X):
    """(number of entries, the non-zero ones as float64 in row-major order) for each block of
    rows of ``X``: the same blocks, bit for bit, for every layout of the same matrix (dense C
    or Fortran order, a strided view, CSR/CSC/COO with duplicates summed and explicit zeros
    dropped). No float64 copy of ``X`` is made: at 60,000 x 784 float32, a full copy of the
    non-zeros took a fit's peak memory from 373 to 719 MB."""
    n, d = X.shape
    rows = max(1, _BLOCK // max(d, 1))
    if sp.issparse(X):
        M = sp.csr_matrix(X, dtype=np.float64, copy=True)
        M.sum_duplicates()  # also sorts the indices: row-major order
        M.eliminate_zeros()
        for r in range(0, n, rows):
            stop = min(r + rows, n)
            yield (stop - r) * d, M.data[M.indptr[r] : M.indptr[stop]]
        return
    A = np.asarray(X)
    for r in range(0, n, rows):
        block = A[r : r + rows]
        yield block.size, np.asarray(block[block != 0], dtype=np.float64)  # C order


def _variance(X) -> tuple[float, float]:
    """(variance of all entries, mean square), for dense or sparse ``X``, without overflow
    warnings (an overflow gives inf, caught by :func:`check_kernel_scale`).

    One pass over blocks of rows, each block's mean and sum of squared deviations from its
    non-zero entries (the zeros add ``n_zeros mean^2``), merged in order by Chan et al.'s
    pairwise update: the same bits for every layout of ``X``. ``X.var()`` on a Fortran-ordered
    array and ``E[x^2] - E[x]^2`` on a sparse one (scikit-learn's formula) round differently
    from ``X.var()`` on its C-ordered copy, and a ``gamma="scale"`` one unit in the last place
    apart sent the solvers down other paths to other stopping points (SVMPlus on CSC data
    differed from its dense fit by 1e-3, the fuzz run of issue 17). Mathematically this is
    ``X.var()``, free of the cancellation of ``E[x^2] - E[x]^2``."""
    count = mean = m2 = squares = 0.0
    with np.errstate(over="ignore", invalid="ignore"):
        for size, v in _row_blocks(X):
            mean_b = v.sum() / size
            m2_b = np.square(v - mean_b).sum() + (size - v.size) * mean_b * mean_b
            squares += np.square(v).sum()
            total = count + size
            delta = mean_b - mean
            mean += delta * size / total
            m2 += m2_b + delta * delta * count * size / total
            count = total
    return float(m2 / count), float(squares / count)


def _column_entries(X):
    """``(columns, blocks)`` of :func:`column_moments`: the columns read (None: every column
    of a dense ``X``; for sparse ``X`` those holding an entry) and a generator of the blocks
    of rows of :func:`_row_blocks` as ``(column positions, float64 values)`` of their
    non-zeros in row-major order (the same for a dense ``X`` and its CSR copy)."""
    n, d = X.shape
    rows = max(1, _BLOCK // max(d, 1))
    if sp.issparse(X):
        M = sp.csr_matrix(X, dtype=np.float64, copy=True)
        M.sum_duplicates()
        M.eliminate_zeros()
        columns = np.unique(M.indices)
        where = np.searchsorted(columns, M.indices)

        def blocks():
            for r in range(0, n, rows):
                part = slice(M.indptr[r], M.indptr[min(r + rows, n)])
                yield where[part], M.data[part]

        return columns, blocks
    A = np.asarray(X)

    def dense_blocks():
        for r in range(0, n, rows):
            block = A[r : r + rows]
            nz = np.nonzero(block)  # C order: row-major, as CSR
            yield nz[1], np.asarray(block[nz], dtype=np.float64)

    return None, dense_blocks


def column_moments(X, *, with_mean: bool = False):
    """``(columns, var, big)``: each column's population variance and largest magnitude over
    the rows of ``X``, for the columns in ``columns`` (None: every column of a dense ``X``;
    for sparse ``X`` those holding an entry, the others being all zero); with ``with_mean``,
    ``(columns, var, big, mean)``.

    Two passes over the blocks of rows of :func:`_row_blocks`, reading the non-zeros only (no
    index per column: 2^30 columns), each column's sums taken in row-major order: the same
    bits for a dense ``X`` and its CSR copy, as :func:`_variance`. The zeros of a column add
    ``n_zeros mean^2`` to its squared deviations."""
    n, d = X.shape
    columns, blocks = _column_entries(X)
    k = d if columns is None else columns.size
    total, count, big = np.zeros(k), np.zeros(k), np.zeros(k)
    with np.errstate(over="ignore", invalid="ignore"):
        for cols, v in blocks():
            total += np.bincount(cols, weights=v, minlength=k)
            count += np.bincount(cols, minlength=k)
            np.maximum.at(big, cols, np.abs(v))
        mean = total / max(n, 1)
        m2 = np.zeros(k)
        for cols, v in blocks():
            m2 += np.bincount(cols, weights=np.square(v - mean[cols]), minlength=k)
        var = (m2 + (n - count) * mean * mean) / max(n, 1)
    return (columns, var, big, mean) if with_mean else (columns, var, big)


def two_valued_columns(X):
    """``(columns, half, share)``: for each column of :func:`column_moments`'s ``columns``
    that takes exactly two values ``a < b`` over the rows of ``X`` (a binary or one-hot
    indicator, whatever its coding), ``half = b/2 - a/2`` (the largest standard deviation a
    column of those two values can have, reached when they are equally frequent) and
    ``share`` the share of the rows at ``b``; ``half = 0`` and ``share = 0`` for the others.

    Two passes (dense ``X``: over every entry; sparse: over the non-zeros, a column with
    zeros being two-valued when its non-zeros are all equal): each column's smallest and
    largest value, then how many entries equal neither and how many the largest. Minima,
    maxima and counts are exact, so a dense ``X`` and its CSR copy give the same bits."""
    n, d = X.shape
    if not sp.issparse(X):  # every entry read: the same values, counts and bits, faster
        A = np.asarray(X)
        if n == 0:
            return None, np.zeros(d), np.zeros(d)
        lo, hi = A.min(axis=0), A.max(axis=0)
        rows = max(1, _BLOCK // max(d, 1))
        other, at_hi = np.zeros(d, dtype=np.int64), np.zeros(d, dtype=np.int64)
        for r in range(0, n, rows):
            B = A[r : r + rows]
            other += np.count_nonzero((B != lo) & (B != hi), axis=0)
            at_hi += np.count_nonzero(B == hi, axis=0)
        lo, hi = lo.astype(np.float64), hi.astype(np.float64)
        two = (other == 0) & (lo < hi)
        half = np.where(two, hi / 2 - lo / 2, 0.0)
        return None, half, np.where(two, at_hi / n, 0.0)
    columns, blocks = _column_entries(X)
    k = columns.size
    lo, hi, count = np.full(k, np.inf), np.full(k, -np.inf), np.zeros(k)
    for cols, v in blocks():
        np.minimum.at(lo, cols, v)
        np.maximum.at(hi, cols, v)
        count += np.bincount(cols, minlength=k)
    other, at_hi = np.zeros(k), np.zeros(k)
    for cols, v in blocks():
        other += np.bincount(cols, weights=(v != lo[cols]) & (v != hi[cols]), minlength=k)
        at_hi += np.bincount(cols, weights=v == hi[cols], minlength=k)
    full = count == n  # no zero: the two values are the non-zeros' smallest and largest
    some = (count > 0) & (count < n)  # zeros and one non-zero value
    two = (full & (other == 0) & (lo < hi)) | (some & (lo == hi))
    a = np.where(full, lo, np.minimum(lo, 0.0))
    b = np.where(full, hi, np.maximum(hi, 0.0))
    with np.errstate(invalid="ignore"):
        half = np.where(two, b / 2 - a / 2, 0.0)
        # rows at b: the non-zeros at the largest value, or the zeros when that value is < 0
        at_b = np.where(full | (hi > 0), at_hi, n - count)
        share = np.where(two, at_b / max(n, 1), 0.0)
    return columns, half, share


def mean_squared_distance(X) -> float:
    r"""The mean squared distance between the rows of ``X`` (all ordered pairs, each row with
    itself included): :math:`\frac{1}{n^2} \sum_{i,j} \|x_i - x_j\|^2 = 2 \sum_k
    \operatorname{var}(x_{\cdot k})`, twice the sum of the columns' (population) variances.

    Two passes over blocks of rows made dense float64 (column sums, then the squared
    deviations from the column means), in the same order for every layout: the same bits for
    dense C or Fortran order, float32 and CSR input of the same matrix.

    Sparse ``X`` wider than a block (``2**18`` columns) is read on the columns that hold an
    entry only (an empty column's variance is 0): a dense row of 2^30 columns is 8 GiB."""
    M = sp.csr_matrix(X, dtype=np.float64) if sp.issparse(X) else np.asarray(X)
    if sp.issparse(M) and M.shape[1] > _BLOCK:
        (M,), _ = compact_columns(M)
    n, d = M.shape
    rows = max(1, _BLOCK // max(d, 1))

    def blocks():
        for r in range(0, n, rows):
            B = M[r : r + rows]
            yield B.toarray() if sp.issparse(B) else np.array(B, dtype=np.float64, order="C")

    with np.errstate(over="ignore", invalid="ignore"):
        mean = sum(B.sum(axis=0) for B in blocks()) / n
        ss = sum(np.square(B - mean).sum(axis=0) for B in blocks())
        return float(2.0 * np.sum(ss) / n)


#: a column whose standard deviation is at most this share of its largest magnitude is
#: constant but for rounding: its scale is 1, not the noise
_STANDARDIZE_CONSTANT_RTOL = 1e-12


def standardize_moments(X):
    """``(mean_, scale_)`` of PUSVC's ``standardize=True``: float64 arrays of shape (n_features,),
    mean 0 and scale 1 on binary and constant columns (and mean 0 on every column of a
    sparse ``X``).

    Centred as well as scaled, so that a feature far from zero (mean 1e8) loses no digits in
    the kernel's inner products; binary (0/1) columns kept, because dividing a rare category
    by its small standard deviation makes it dominate every distance (on the tuning half of
    the PU suite, leaving them alone gave a mean test F1 0.004 to 0.015 higher than
    standardising every column). Sparse ``X`` is scaled only (centring would fill it);
    constant columns (to rounding) keep scale 1."""
    n, d = X.shape
    columns, var, big = column_moments(X)
    scale, mean = np.ones(d), np.zeros(d)
    cols = np.arange(d) if columns is None else columns
    sd = np.sqrt(var)
    scale[cols] = np.where(sd > _STANDARDIZE_CONSTANT_RTOL * big, sd, 1.0)
    if sp.issparse(X):
        M = sp.csr_matrix(X, copy=True)
        M.sum_duplicates()  # duplicate entries are one value, their sum (as scipy reads them)
        other = np.zeros(d, dtype=bool)  # a column holding a value other than 0 and 1
        other[np.unique(M.indices[M.data != 1])] = True
    else:
        A = np.asarray(X)
        other = np.any((A != 0) & (A != 1), axis=0)
        mean = np.where(other, A.mean(axis=0, dtype=np.float64), 0.0)
    scale = np.where(other, scale, 1.0)
    return mean, scale


def standardize_rows(X, mean, scale):
    """``(X - mean) / scale`` in ``X``'s dtype (CSR ``X``: its non-zeros divided, ``mean``
    being zero); a new array, ``X`` is never modified."""
    if sp.issparse(X):
        X = sp.csr_matrix(X, copy=True)
        X.data /= scale[X.indices].astype(X.dtype)
        return X
    A = np.asarray(X)
    return np.ascontiguousarray(((A - mean) / scale).astype(A.dtype, copy=False))


def standardized_gamma(gamma, kernel: str, X) -> float:
    """:func:`check_gamma` on features standardised by :func:`standardize_rows`, but with
    ``"scale"`` (and PUSVC's ``"cv"``, its unit) ``1 / sum_j Var(column j)``: the value of
    ``1 / (n_features X.var())`` once every column is centred, so that a dense ``X`` (centred)
    and its sparse copy (scaled only) get the same width, to rounding."""
    if gamma in ("scale", "cv") and kernel in ("rbf", "poly"):
        total = float(np.sum(column_moments(X)[1]))
        if np.isfinite(total) and total > 0:
            return 1.0 / total
    return check_gamma(gamma, kernel, X)


def check_gamma(gamma, kernel: str, X) -> float:
    """Resolve 'scale' / 'auto' as scikit-learn's SVC does; reject negative values.

    ``gamma="scale"`` is ``1 / (n_features X.var())``; a variance that is zero or rounding
    noise (below 1e-12 times the mean square: identical points) is refused for the rbf and
    poly kernels, where it would give ``gamma = 1e31`` (or an arbitrary 1), with a
    ``ValueError`` that says to pass a number. ``gamma="mean"`` (accepted by the estimators
    whose constraints name it) is ``1 / mean_squared_distance(X)``, refused in the same way
    when the points do not differ."""
    if isinstance(gamma, str):
        if gamma == "mean":
            if kernel in ("precomputed", "linear") or X.shape[0] < 2:
                return 1.0  # unused; fewer than 2 points are the estimator's to refuse
            msd = mean_squared_distance(X)
            _, sq = _variance(X)
            if np.isfinite(msd) and msd > 2 * X.shape[1] * _VAR_RTOL * sq:
                return 1.0 / msd
            if np.isfinite(msd):
                raise ValueError(
                    f"gamma='mean' is 1 / (the mean squared distance between the points), but "
                    f"that distance is {msd:.3g}, (numerically) zero: every training point is "
                    "the same. Pass gamma as a number, or give points that differ"
                )
            return 1.0
        if gamma in ("scale", "cv"):  # "cv": the unit of the search grid (PUSVC's gamma)
            if kernel in ("precomputed", "linear"):
                return 1.0  # unused by these kernels; the variance costs a pass over X
            var, sq = _variance(X)
            if np.isfinite(var) and var > _VAR_RTOL * sq:
                return 1.0 / (X.shape[1] * var)
            if kernel in ("rbf", "poly") and np.isfinite(var):
                raise ValueError(
                    f"gamma='scale' is 1 / (n_features * X.var()), but X.var() = {var:.3g} is "
                    "(numerically) zero: every training point is the same. Pass gamma as a "
                    "number, or give points that differ"
                )
            return 1.0
        if gamma == "auto":
            return 1.0 / X.shape[1]
        raise ValueError(f"gamma must be 'scale', 'auto' or a non-negative number, got {gamma!r}")
    return check_real(gamma, "gamma", low=0.0, low_open=False)


def check_binary_targets(y: ArrayLike, who: str) -> tuple[np.ndarray, np.ndarray]:
    """The two classes of ``y`` and ``y`` as +-1 (``classes[1]`` is +1), for binary estimators.

    ``y`` must already have one entry per sample (scikit-learn's ``validate_data`` checks that);
    classes are sorted as :func:`numpy.unique` sorts them. ``who`` names the estimator in the
    error raised when ``y`` does not hold exactly two classes.

    Examples
    --------
    >>> import numpy as np
    >>> from unlabeled.base import check_binary_targets
    >>> y = np.array(["no", "yes", "yes"])
    >>> classes, y_pm = check_binary_targets(y, "MyClassifier")
    >>> classes.tolist(), y_pm.tolist()
    (['no', 'yes'], [-1, 1, 1])
    """
    check_classification_targets(y)
    classes = np.unique(y)
    if classes.size != 2:
        k, shown = classes.size, classes[:5].tolist()
        raise ValueError(
            f"y must hold exactly two classes, got {k} class{'es' if k != 1 else ''}: "
            f"{shown}{' ...' if k > 5 else ''}. Only binary classification is supported "
            f"by {who}; for more classes wrap it in sklearn.multiclass.OneVsRestClassifier"
        )
    return classes, np.where(y == classes[1], 1, -1).astype(np.int8)


def check_pu_labels(
    s: ArrayLike | None, n_samples: int, *, min_unlabeled: int = 1, who: str = ""
) -> np.ndarray:
    """Turn PU labels into a boolean mask of labeled positives.

    Accepted encodings: 1 = labeled positive with 0 or -1 = unlabeled (not both), or booleans.
    At least one labeled positive and ``min_unlabeled`` unlabeled points (``who``, the
    estimator that needs them, is named in the error).

    Examples
    --------
    >>> from unlabeled.base import check_pu_labels
    >>> check_pu_labels([1, -1, -1, 1], n_samples=4).tolist()
    [True, False, False, True]
    """
    if s is None:
        raise ValueError(
            "s is None: PUSVC requires y to be passed, but the target y is None; "
            "give the PU labels s (1 = labeled positive, 0 = unlabeled)"
        )
    arr = np.asarray(s)
    if arr.ndim == 2 and arr.shape[1] == 1:
        warnings.warn(
            "A column-vector y was passed when a 1d array was expected: s is ravelled.",
            DataConversionWarning,
            stacklevel=3,
        )
        arr = arr.ravel()
    if arr.ndim != 1:
        raise ValueError(f"s must be a 1-d array of PU labels, got an array of shape {arr.shape}")
    if arr.shape[0] != n_samples:
        raise ValueError(
            f"s has {arr.shape[0]} entries but X has {n_samples} rows: "
            "give one PU label per row of X"
        )
    check_pu_summary(pu_label_summary(arr), min_unlabeled=min_unlabeled, who=who)
    return arr.copy() if arr.dtype == bool else arr == 1


#: the distinct label values a summary keeps (the smallest): 10 shown, one more tells "..."
_SHOWN_LABELS = 10


def pu_label_summary(s, offset: int = 0) -> dict:
    """What :func:`check_pu_summary` needs of the 1-D PU labels ``s``, or of a chunk of them
    (``offset``: the index of its first entry), in a few numbers whatever their size; the
    summaries of chunks merge (:func:`merge_pu_summaries`) into that of all of them."""
    arr = np.asarray(s)
    out = {"dtype": arr.dtype, "n": arr.shape[0], "positives": 0, "nan": 0, "first_nan": -1}
    out |= {"values": arr[:0], "continuous": False}
    if arr.dtype != bool and arr.dtype.kind not in "iuf":
        return out  # refused by its dtype alone
    if arr.dtype.kind == "f":
        nan = np.isnan(arr)
        if nan.any():
            out["nan"], out["first_nan"] = int(nan.sum()), offset + int(np.flatnonzero(nan)[0])
            arr = arr[~nan]
        # sklearn's type_of_target: non-integral (or infinite) floats are "continuous"
        out["continuous"] = bool((~np.isfinite(arr) | (arr != np.trunc(arr))).any())
    out["values"] = np.unique(arr)[: _SHOWN_LABELS + 1]
    out["positives"] = int(np.count_nonzero(arr)) if arr.dtype == bool else int((arr == 1).sum())
    return out


def merge_pu_summaries(*parts: dict) -> dict:
    """The :func:`pu_label_summary` of chunks' labels, in their order."""
    out = dict(parts[0])
    for b in parts[1:]:
        values = np.unique(np.concatenate([out["values"], b["values"]]))
        out = {
            "dtype": out["dtype"],
            "n": out["n"] + b["n"],
            "positives": out["positives"] + b["positives"],
            "nan": out["nan"] + b["nan"],
            "first_nan": out["first_nan"] if out["first_nan"] >= 0 else b["first_nan"],
            "values": values[: _SHOWN_LABELS + 1],
            "continuous": out["continuous"] or b["continuous"],
        }
    return out


def check_pu_summary(summary: dict, *, min_unlabeled: int = 1, who: str = "") -> None:
    """The checks of PU labels (see :func:`check_pu_labels`) from their
    :func:`pu_label_summary`: the one check, in memory or over a Dask array's chunks."""
    expected = (
        "s must hold 1 for labeled positives and 0 (or -1) for unlabeled points. "
        "Only binary classification is supported."
    )
    dtype = summary["dtype"]
    if dtype.kind != "b":
        if dtype.kind not in "iuf":
            raise ValueError(f"{expected} Unknown label type: values of dtype {dtype}")
        if summary["nan"]:
            raise ValueError(
                f"s holds NaN ({summary['nan']} entries, the first at index "
                f"{summary['first_nan']}): {expected}"
            )
        values = summary["values"]
        found = set(values.tolist())
        if not (found <= {0, 1} or found <= {-1, 1}):
            shown = values[:_SHOWN_LABELS].tolist()
            kind = "continuous" if summary["continuous"] else "multiclass"
            kind = "binary" if kind == "multiclass" and values.size <= 2 else kind
            raise ValueError(
                f"{expected} Got the values {shown}{' ...' if values.size > _SHOWN_LABELS else ''}"
                + ("" if kind == "binary" else f" (Unknown label type: {kind})")
            )
    if summary["positives"] == 0:
        raise ValueError(
            "s marks no labeled positive: at least one entry of s must be 1 "
            "(a PU classifier can't train when only one class is present)"
        )
    n_unlabeled = int(summary["n"] - summary["positives"])
    if n_unlabeled == 0:
        raise ValueError(
            "s marks no unlabeled point: at least one entry of s must be 0 (or -1) "
            "(a PU classifier can't train when only one class is present)"
        )
    if n_unlabeled < min_unlabeled:
        raise ValueError(
            f"s marks {n_unlabeled} unlabeled point, and {who} needs at least {min_unlabeled} "
            "(it trains a classifier of labeled against unlabeled points on folds, each "
            "holding unlabeled points): mark more points 0 in s, or pass the prior as a number"
        )


def check_not_strings(X, name: str = "X") -> None:
    """Refuse text that does not read as a number (in an array of strings, bytes or objects,
    nested lists, or a DataFrame's text columns), with a ValueError naming ``name``, the
    value and the fix: NumPy's "could not convert string to float" named neither the argument
    nor what to do."""
    bad = next((v for v in _texts(X) if not reads_as_number(v)), None)
    if bad is None:
        return  # numeric strings: converted as scikit-learn converts them
    raise ValueError(
        f"{name} holds {bad!r} ({type(bad).__name__}): the features must be numbers; encode "
        "categories as numbers (e.g. sklearn.preprocessing.OneHotEncoder) and impute missing "
        "values first"
    )


def _texts(X):
    """The strings and bytes of ``X`` where its type can hold them (one pass, no copy of a
    numeric array: sparse matrices, numeric arrays and other inputs give none)."""
    if hasattr(X, "dtypes") and hasattr(X, "columns"):  # a DataFrame: its text columns
        for column, dtype in zip(X.columns, X.dtypes, strict=True):
            if getattr(dtype, "kind", "O") in "OUS":
                yield from (v for v in X[column].tolist() if isinstance(v, (str, bytes)))
    elif isinstance(X, np.ndarray) and X.dtype.kind in "USO":
        yield from (v for v in X.ravel().tolist() if isinstance(v, (str, bytes)))
    elif isinstance(X, (list, tuple)):
        for v in X:
            if isinstance(v, (str, bytes)):
                yield v
            elif isinstance(v, (list, tuple, np.ndarray)):
                yield from _texts(v)


def reads_as_number(v) -> bool:
    """Whether ``float(v)`` succeeds (a number, or a string that reads as one)."""
    try:
        float(v)
    except (TypeError, ValueError):
        return False
    return True


def refuse_above(values: np.ndarray, limit: float, what: str, why: str, fix: str) -> None:
    """Refuse ``values`` (one per row) above ``limit`` or NaN: a ``ValueError`` naming
    ``what`` the values are, the first such row, why the limit holds and the fix."""
    big = np.flatnonzero(~(values <= limit))
    if big.size:
        raise ValueError(
            f"{what} = {values[big[0]]:.3g} for row {big[0]} (at most {limit:g}{why}). {fix}"
        )


def check_poly_diagonal(sq, gamma, coef0, degree, limit: float, what: str, why: str, fix: str):
    """Refuse a poly kernel's ``k(x, x) = (gamma ||x||^2 + |coef0|)^degree`` above ``limit``
    (or overflowing), from the squared norms ``sq``: :func:`refuse_above`. It bounds
    ``|k(x, x')|`` by Cauchy-Schwarz for every ``x'`` no larger than ``x``."""
    with np.errstate(over="ignore", invalid="ignore"):
        diag = (gamma * sq + abs(coef0)) ** degree
    refuse_above(diag, limit, what, why, fix)


def check_data_scale(
    X, what: str, limit: float = MAX_KERNEL_VALUE, tiny: float = 0.0
) -> np.ndarray:
    """The squared norms ``||x||^2`` of the rows of ``X`` (dense or sparse), after checking
    that they are finite and at most ``limit``: data at a scale whose squares overflow double
    precision (or come near it) is refused with a ``ValueError`` naming ``X`` and the fix.
    With ``tiny`` > 0, data whose largest squared norm is positive but below it (squares
    near underflow, as for ``X * 1e-150``) is refused too. ``what`` names the method that
    needs it (``"the rbf kernel"``, ``"CLSST"``)."""
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        Xs = X.astype(np.float64) if X.dtype != np.float64 else X
        sq = (
            np.asarray(Xs.multiply(Xs).sum(axis=1)).ravel()
            if sp.issparse(Xs)
            else np.einsum("ij,ij->i", Xs, Xs)
        )
    refuse_above(
        sq,
        limit,
        f"X is too large in scale for {what}: ||x||^2",
        ", or it overflows double precision",
        "Rescale the features, e.g. with sklearn.preprocessing.StandardScaler",
    )
    top = float(sq.max(initial=0.0))
    if 0.0 < top < tiny:
        raise ValueError(
            f"X is too small in scale for {what}: the largest ||x||^2 is {top:.3g} (at least "
            f"{tiny:g}, or its squares underflow double precision). Rescale the features, "
            "e.g. with sklearn.preprocessing.StandardScaler"
        )
    return sq


def check_kernel_scale(X, kernel: str, gamma: float, degree: int, coef0: float) -> None:
    """Numerical preflight of a kernel on the training data, before any solve.

    Checks, in O(nnz(X)) plus a kernel block of at most 64 x 64 sampled rows, that the squared
    norms ``||x||^2`` and the kernel values ``k(x, x)`` and ``k(x_i, x_j)`` (sampled) are finite
    and at most :data:`MAX_KERNEL_VALUE` in magnitude (:data:`MAX_KERNEL_VALUE_F32` for float32
    data), that the rounding error of an rbf kernel's exponent, ``gamma * max ||x||^2 *
    2.2e-16``, stays below 0.01 (beyond it ``k(x, x')`` of close points is rounding noise, and
    so is the model), and that an rbf kernel is not the identity on the sample (every
    ``k(x_i, x_j)`` of distinct sampled points underflowing to 0: a model that predicts its
    offset everywhere). ``X`` is dense or CSR, or a Gram matrix for ``"precomputed"``.

    Raises
    ------
    ValueError
        Naming the data scale or the parameter (``gamma``, ``coef0``, ``degree``) and the fix.
    """
    limit = MAX_KERNEL_VALUE_F32 if X.dtype == np.float32 else MAX_KERNEL_VALUE
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        if kernel == "precomputed":
            diag = np.abs(np.diagonal(X))
            if diag.size and not diag.max() <= limit:
                raise ValueError(
                    f"X, the precomputed Gram matrix, has diagonal values up to {diag.max():.3g}, "
                    f"more than {limit:g}: rescale it (e.g. divide by its largest diagonal)"
                )
            return
        Xs = X.astype(np.float64) if X.dtype != np.float64 else X
        sq = check_data_scale(Xs, f"the {kernel} kernel", limit)
        if kernel == "linear":
            return
        noise = gamma * float(sq.max(initial=0.0)) * np.finfo(np.float64).eps
        if kernel == "rbf" and noise > _RBF_ROUNDING:
            raise ValueError(
                f"gamma={gamma:g} is so large that the rbf kernel exp(-gamma ||x - x'||^2) is "
                f"decided by rounding errors on this data (gamma * max ||x||^2 * 2.2e-16 = "
                f"{noise:.3g} > {_RBF_ROUNDING:g}): use a smaller gamma (e.g. 'scale'), or "
                "centre and rescale the features"
            )
        idx = np.unique(np.linspace(0, X.shape[0] - 1, min(X.shape[0], _SAMPLE_ROWS)).astype(int))
        S = Xs[idx]
        K = kernel_block(S, S, kernel, kernel_params(kernel, gamma, degree, coef0))
    if not np.all(np.abs(K) <= limit):
        what = "gamma, coef0 or degree" if kernel == "poly" else "gamma"
        raise ValueError(
            f"the {kernel} kernel overflows on this data: a value of {np.nanmax(np.abs(K)):.3g} "
            f"(at most {limit:g}) with gamma={gamma:g}"
            + (f", coef0={coef0:g}, degree={degree}" if kernel == "poly" else "")
            + f". Reduce {what}, or rescale the features"
        )
    if kernel == "rbf" and idx.size > 1:
        off = K[~np.eye(idx.size, dtype=bool)]
        distinct = (sq[idx][:, None] + sq[idx][None, :] > 0)[~np.eye(idx.size, dtype=bool)]
        if distinct.any() and not np.any(off[distinct] > 0):
            raise ValueError(
                f"gamma={gamma:g} makes the rbf kernel the identity on the training data: "
                "k(x_i, x_j) underflows to 0 for every pair of distinct sampled points, and the "
                "model would predict its offset everywhere. Use a smaller gamma (e.g. 'scale')"
            )
