"""The public base of the library's estimators: how a method is added.

Most estimators of the library are kernel machines, models that are a kernel expansion

.. math::

    f(x) = \\sum_{i \\in S} \\alpha_i\\, k(x_i, x) + b

over support points ``S`` of the training set, with or without the offset ``b``.
:class:`KernelMachine` owns what such models share: the kernel parameters and their declared
checks, the kernel itself (one implementation, for dense, CSR and float32 data), products with
kernel blocks in bounded memory, the fitted attributes in :class:`sklearn.svm.SVC`'s
vocabulary, and one ``decision_function``; :class:`KernelClassifier` adds ``predict``. A method
supplies its parameters, its data checks and its solver, and hands the expansion to the base
once the solver has returned (as in the example below).

Every estimator, kernel machine or not, declares its constructor parameters in a class
attribute, the parameter constraints (name -> list of :class:`Real`, :class:`Integer`,
:class:`Options`, :class:`Boolean`, :class:`Instance`, :class:`Callable` or ``None``), and checks
them with the base's validation at the start of ``fit`` (the example below shows both), which
raises :class:`InvalidParameterError` naming the parameter, what it may be and the value given.

Examples
--------
>>> import numpy as np
>>> from unlabeled.base import KernelClassifier, KernelMachine, Real, check_binary_targets
>>> class KernelRidgeClassifier(KernelClassifier):
...     _parameter_constraints = {**KernelMachine._parameter_constraints, "C": [Real(0.0)]}
...
...     def __init__(self, C=1.0, *, kernel="rbf", gamma="scale", degree=3, coef0=0.0):
...         self.C, self.kernel, self.gamma = C, kernel, gamma
...         self.degree, self.coef0 = degree, coef0
...
...     def fit(self, X, y):
...         params = self._validate_params()  # before any work
...         X, y = self._validate_X(X, y)  # sets n_features_in_ and the kernel width
...         classes, t = check_binary_targets(y, "KernelRidgeClassifier")
...         b = t.mean()
...         alpha = np.linalg.solve(self._gram(X) + params["C"] * np.eye(len(t)), t - b)
...         self.set_expansion(X, alpha, b, classes=classes)
...         return self
>>> X = np.random.default_rng(0).normal(size=(50, 2))
>>> clf = KernelRidgeClassifier().fit(X, X[:, 0] > 0)
>>> float(np.mean(clf.predict(X) == (X[:, 0] > 0)))  # training accuracy
0.98
"""

from __future__ import annotations

import copy
import functools
import inspect
from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_array, check_is_fitted, validate_data

from ._budget import check_dense_budget
from ._dask import blockwise, is_dask_collection
from ._kernels import KERNELS, as_float64, kernel_block, kernel_dot, kernel_params
from ._solving import resolve_max_iter, warn_not_converged
from ._validation import (
    INT_MAX,
    MAX_DEGREE,
    MAX_KERNEL_VALUE,
    MAX_KERNEL_VALUE_F32,
    ArrayLike,
    Boolean,
    Callable,
    Instance,
    Integer,
    InvalidParameterError,
    MatrixLike,
    Options,
    Real,
    canonical_sparse,
    check_binary_targets,
    check_data_scale,
    check_gamma,
    check_kernel_scale,
    check_not_strings,
    check_poly_diagonal,
    check_pu_labels,
    validate_params,
)

__all__ = [
    "ArrayLike",
    "Boolean",
    "Fitted",
    "Callable",
    "Instance",
    "Integer",
    "InvalidParameterError",
    "KernelClassifier",
    "KernelMachine",
    "MatrixLike",
    "Options",
    "Real",
    "ValidatedEstimator",
    "check_binary_targets",
    "check_pu_labels",
    "validate_params",
]

_DTYPES = [np.float64, np.float32]

#: what a kernel width may be: resolved on the data by :func:`check_gamma` at fit time
GAMMA_CONSTRAINT = [Options(("scale", "auto")), Real(0.0, low_open=False)]
#: the declared ``high`` of a fitted value that may be any finite one (a kernel width set by
#: the data's scale, an objective that predictions do not read): model files' cap of 1e100
#: on fitted floats does not apply to it (``Fitted(..., high=ANY_FINITE)``)
ANY_FINITE = float(np.finfo(np.float64).max)


def set_init_params(est, params: dict) -> None:
    """Store the arguments of an estimator's ``__init__`` (its ``locals()``) unchanged, as
    scikit-learn requires: one attribute per parameter, no validation, no other work."""
    for name, value in params.items():
        if name not in ("self", "__class__"):
            setattr(est, name, value)


def fill_docstring(cls: type, texts: dict[str, str]) -> None:
    """Write the text that several classes document alike into ``cls.__doc__``: each
    ``%(name)s`` becomes ``texts[name]``, in the order of ``texts`` (so that one text may
    hold a later one's placeholder)."""
    doc = cls.__dict__.get("__doc__")
    if doc is not None:  # None under python -OO
        for name, text in texts.items():
            doc = doc.replace(f"%({name})s", text)
        cls.__doc__ = doc


def _gram_as_c_array(K):
    """A square Gram matrix as the engine reads it, C-ordered float64, copied only when it
    must be: a Fortran-ordered one that is symmetric (a kernel matrix is) is its own
    transpose, a C-ordered view; float32 is converted (the engine reads float64 values)."""
    if not K.flags.c_contiguous and K.flags.f_contiguous and _symmetric(K):
        K = K.T
    return np.ascontiguousarray(K, dtype=np.float64)


def _symmetric(K, rows=256) -> bool:
    """``K == K.T`` exactly, compared in blocks of rows (no n x n temporary)."""
    return all(
        np.array_equal(K[i : i + rows], K[:, i : i + rows].T) for i in range(0, K.shape[0], rows)
    )


def transactional_fit(fit):
    """Wrap ``fit`` so that it either completes or leaves the estimator exactly as it was.

    The estimator's ``__dict__`` is copied (shallowly: ``fit`` replaces its fitted attributes,
    it never changes them in place) before ``fit`` runs and restored if anything is raised,
    ``KeyboardInterrupt`` (Ctrl-C) included: a failed fit leaves an unfitted estimator unfitted
    (``predict`` raises ``NotFittedError``, not ``AttributeError``) and a fitted one with its
    previous model and ``n_features_in_`` intact. :class:`ValidatedEstimator` applies it to
    the ``fit`` of every subclass."""

    @functools.wraps(fit)
    def wrapper(self, *args, **kwargs):
        saved = dict(self.__dict__)
        try:
            return fit(self, *args, **kwargs)
        except BaseException:
            self.__dict__.clear()
            self.__dict__.update(saved)
            raise

    wrapper._transactional = True
    return wrapper


#: the methods that map each row of a feature matrix to one row of output: given a Dask
#: collection, they run on its row blocks (:func:`rowwise`); wrapped in every subclass of
#: :class:`ValidatedEstimator` that has them
ROWWISE_METHODS = (
    "predict",
    "decision_function",
    "predict_proba",
    "predict_log_proba",
    "transform",
    "inverse_transform",
    "score_samples",
    "predict_cluster",
)


def rowwise(method):
    """Wrap ``method(self, X, ...)`` so that a Dask array or DataFrame ``X`` gives a lazy Dask
    array computed block by block (:func:`unlabeled._dask.blockwise`: the same method on each
    row block, the model sent once), and any other ``X`` goes straight to ``method``: one cheap
    test, that never imports Dask. :class:`ValidatedEstimator` applies it to the methods of
    :data:`ROWWISE_METHODS` of every subclass; a class whose methods take something else than
    rows (bags) names why in ``_dask_unsupported``, and Dask input is refused with that."""

    name = method.__name__
    params = list(inspect.signature(method).parameters)
    arg = params[1] if len(params) > 1 else "X"  # the data's name: X, Z, ...

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        X = args[0] if args else kwargs.get(arg)
        if not is_dask_collection(X):
            return method(self, *args, **kwargs)
        if self._dask_unsupported is not None:
            raise TypeError(
                f"{type(self).__name__}.{name} does not take Dask collections: "
                f"{self._dask_unsupported}"
            )
        if args:
            args = args[1:]
        else:
            kwargs = {k: v for k, v in kwargs.items() if k != arg}
        return blockwise(self, name, X, args, kwargs)

    wrapper._rowwise = True
    return wrapper


def _wrap_rowwise(cls, name: str) -> None:
    """Make ``cls``'s method ``name`` (its own or inherited, a function or a descriptor of one
    such as :class:`~unlabeled._calibration.IfProbability`) :func:`rowwise`, once."""
    raw: Any = next((vars(k)[name] for k in cls.__mro__ if name in vars(k)), None)
    fn = getattr(raw, "fn", raw)  # IfProbability, scikit-learn's available_if
    if not callable(fn) or getattr(fn, "_rowwise", False):
        return
    if fn is raw:
        setattr(cls, name, rowwise(fn))
    else:
        descriptor = copy.copy(raw)
        descriptor.fn = rowwise(fn)
        setattr(cls, name, descriptor)


class Fitted:
    """What one fitted attribute is, as ``fit`` makes it: the declaration that a loaded model is
    checked against (:func:`unlabeled.model_io.check_model`).

    Each estimator class lists its fitted attributes in a table of declarations (name ->
    ``Fitted``, or None for a transient attribute that a model file does not keep); a class
    lists only what it adds to its bases' tables. A model file holding an attribute that is
    neither a parameter nor declared, lacking one that is not ``optional``, or holding one of
    another kind, dtype, shape or range is refused.

    Parameters
    ----------
    kind : str
        ``"int"``, ``"float"``, ``"bool"``, ``"str"``: a scalar. ``"ints"``, ``"floats"``: a list
        or tuple of them (its length in ``shape``). ``"dims"``: a tuple of integers that are the
        dimensions named in ``shape`` (``shape_fit_``). ``"dict"``: str -> int, None or one of
        ``choices``. ``"matrix"``: a float ndarray or a CSR matrix. ``"object"``: an instance of
        a class whose path is in ``choices``. ``"estimators"``: a list of models whose class
        paths are in ``choices``, each checked as a model of its own and holding none (its
        length in ``shape``; a semi-supervised SVM's one-vs-rest models). Anything else: an
        ndarray whose dtype kind is one of these letters (``"f"``, ``"iu"``, ``"iufUSb"``;
        ``"O"`` holds strings only).
    shape : tuple, default=()
        One entry per axis: an int, None (any length), or a dimension's name: an integer
        fitted attribute (``"n_features_in_"``) or a symbol bound by its first use
        (``"n_SV"``: every later use must agree); ``"name+1"`` is one more than ``name``.
    low, high : number or name, optional
        Inclusive bounds of the values (numbers of an array, scalars, items).
    above, below : number or name, optional
        Exclusive bounds (``below="n_train"``: indices of training points).
    none : bool, default=False
        The value may be None.
    optional : bool, default=False
        The attribute may be absent (e.g. set only by some parameter values).
    needs : tuple of str, default=()
        Attributes present, or parameters true, whenever this one is present.
    choices : tuple of str, optional
        The strings a ``"str"`` (or a ``"dict"`` value) may be; the class paths of an
        ``"object"`` (or of the models of ``"estimators"``).

    Examples
    --------
    >>> from unlabeled.base import Fitted
    >>> Fitted("f", (1, "n_SV"))  # dual_coef_: one row of n_SV floats
    Fitted('f', (1, 'n_SV'))
    """

    __slots__ = ("kind", "shape", "low", "high", "above", "below", "none", "optional", "needs",
                 "choices")  # fmt: skip

    def __init__(
        self,
        kind: str,
        shape: tuple = (),
        *,
        low: float | str | None = None,
        high: float | str | None = None,
        above: float | str | None = None,
        below: float | str | None = None,
        none: bool = False,
        optional: bool = False,
        needs: tuple[str, ...] = (),
        choices: tuple[str, ...] | None = None,
    ) -> None:
        self.kind, self.shape, self.low, self.high = kind, tuple(shape), low, high
        self.above, self.below, self.none, self.optional = above, below, none, optional
        self.needs, self.choices = tuple(needs), choices

    def __repr__(self) -> str:
        return f"Fitted({self.kind!r}, {self.shape!r})"


class ValidatedEstimator(BaseEstimator):
    """A scikit-learn estimator whose constructor parameters are declared and checked.

    Subclasses list what each parameter may be in a class attribute, the parameter constraints
    (name -> list of :class:`Real`, :class:`Integer`, :class:`Options`, :class:`Boolean`,
    :class:`Instance`, :class:`Callable` or ``None``), and check them at the start of ``fit``,
    before any work, as the example below does. Parameters not listed are not checked.

    Examples
    --------
    >>> import numpy as np
    >>> from unlabeled.base import Integer, ValidatedEstimator
    >>> class MeanShift1D(ValidatedEstimator):
    ...     _parameter_constraints = {"n_steps": [Integer(1)]}
    ...
    ...     def __init__(self, n_steps=10):
    ...         self.n_steps = n_steps
    ...
    ...     def fit(self, X, y=None):
    ...         params = self._validate_params()  # before any work
    ...         self.center_ = float(np.median(X))
    ...         return self
    >>> MeanShift1D(n_steps=3).fit([1.0, 2.0, 9.0]).center_
    2.0
    >>> MeanShift1D(n_steps=0).fit([1.0])
    Traceback (most recent call last):
        ...
    unlabeled.exceptions.InvalidParameterError: n_steps must be >= 1, got 0
    """

    def __init_subclass__(cls, **kwargs):
        """Make the ``fit`` of every subclass transactional (see :func:`transactional_fit`) and
        its row-wise methods (:data:`ROWWISE_METHODS`) take Dask collections (:func:`rowwise`)."""
        super().__init_subclass__(**kwargs)
        fit = cls.__dict__.get("fit")
        if fit is not None and not getattr(fit, "_transactional", False):
            cls.fit = transactional_fit(fit)
        for name in ROWWISE_METHODS:
            _wrap_rowwise(cls, name)

    #: why the row-wise methods refuse Dask collections (None: they take them, block by block)
    _dask_unsupported: str | None = None

    _parameter_constraints: dict = {}

    #: parameters without a usable default (name -> what to pass): they default to None, which
    #: ``fit`` refuses with an error that names them and the choices, before any work
    _required_params: dict = {}

    #: the fitted attributes that ``fit`` sets (name -> :class:`Fitted`, None for a transient
    #: one that model files do not keep): what a loaded model is checked against. A subclass
    #: lists only its own; :meth:`_fitted_declarations` merges the tables of the bases
    _fitted_attributes: dict = {
        "n_features_in_": Fitted("int", low=1),
        "feature_names_in_": Fitted("OU", ("n_features_in_",), optional=True),
    }

    def _fitted_declarations(self) -> dict:
        """The fitted attributes of this estimator: the ``_fitted_attributes`` of its class and
        bases, a subclass's entries last (and replacing its bases' of the same name)."""
        table: dict = {}
        for klass in reversed(type(self).__mro__):
            table.update(vars(klass).get("_fitted_attributes", {}))
        return table

    def _validate_params(self) -> dict:
        """Check the parameters against ``_parameter_constraints``; returns the checked values
        (``float`` for :class:`Real`, ``int`` for :class:`Integer`, ``bool`` for
        :class:`Boolean`), by name.

        Raises :class:`InvalidParameterError` (a ``ValueError`` and a ``TypeError``) naming the
        parameter, what it may be and the value given; for a required parameter left at None
        (see ``_required_params``), naming the parameter and the choices."""
        params = self.get_params(deep=False)
        for name, choices in self._required_params.items():
            if params.get(name) is None:
                raise InvalidParameterError(
                    f"{type(self).__name__} needs the parameter {name!r} (got None): pass {choices}"
                )
        return validate_params(params, self._parameter_constraints)


class KernelMachine(ValidatedEstimator):
    r"""Base of the estimators whose model is a kernel expansion, with or without offset.

    .. math::

        f(x) = \sum_{i \in S} \alpha_i\, k(x_i, x) + b, \qquad
        k \in \{\langle x, x'\rangle,\ e^{-\gamma\|x - x'\|^2},\
        (\gamma\langle x, x'\rangle + c_0)^d,\ \text{a given Gram matrix}\}.

    A subclass declares its own parameter constraints (merged with the kernel's), checks its
    parameters and its data at the start of ``fit`` (before any work) and hands the base the
    expansion at its end, as the example below does. Subclasses restrict the
    kernels by overriding the ``"kernel"`` entry, and keep the offset at ``b = 0`` by passing
    ``intercept=None``. Everything else (``decision_function``, ``coef_``, the tags) is shared.

    Fitted attributes set with the expansion: ``support_``, ``dual_coef_`` (shape
    ``(1, n_SV)``, the ``alpha_i``), ``intercept_`` (shape ``(1,)``), ``support_vectors_``
    (empty for ``kernel="precomputed"``), ``shape_fit_``, ``classes_`` when given, and
    ``coef_`` (``w = sum_i alpha_i x_i``, linear kernel only).

    Examples
    --------
    A kernel ridge regression: its ``fit`` solves for ``alpha``, the rest is inherited.

    >>> import numpy as np
    >>> from unlabeled.base import KernelMachine
    >>> class KernelRidge(KernelMachine):
    ...     def __init__(self, *, kernel="rbf", gamma="scale", degree=3, coef0=0.0):
    ...         self.kernel, self.gamma, self.degree, self.coef0 = kernel, gamma, degree, coef0
    ...
    ...     def fit(self, X, y):
    ...         self._validate_params()
    ...         X, y = self._validate_X(X, y)
    ...         alpha = np.linalg.solve(self._gram(X) + 1e-3 * np.eye(len(y)), y)
    ...         self.set_expansion(X, alpha, intercept=None)  # no offset: b = 0
    ...         return self
    >>> X = np.linspace(0, 3, 20).reshape(-1, 1)
    >>> model = KernelRidge().fit(X, np.sin(X[:, 0]))
    >>> model.dual_coef_.shape, model.intercept_.tolist()
    ((1, 20), [0.0])
    >>> bool(np.allclose(model.decision_function(X), np.sin(X[:, 0]), atol=0.01))
    True
    """

    _parameter_constraints: dict = {
        "kernel": [Options(KERNELS)],
        "gamma": GAMMA_CONSTRAINT,
        "degree": [Integer(0, MAX_DEGREE)],
        "coef0": [Real()],
    }

    # the expansion of set_expansion; n_SV and n_train are bound by support_ and shape_fit_
    _fitted_attributes: dict = {
        "shape_fit_": Fitted("dims", ("n_train", "n_features_in_"), low=1),
        # any finite width: the data's scale sets it (gamma="scale" is 1 / (d var)), and
        # _check_fitted bounds the kernel on the support vectors
        "_gamma": Fitted("float", low=0.0, high=ANY_FINITE),
        "support_": Fitted("iu", ("n_SV",), low=0, below="n_train"),
        "dual_coef_": Fitted("f", (1, "n_SV")),
        # any finite offset: it is in the decision function's units, up to the kernel's
        # scale (a precomputed Gram of 1e100) times the dual's box (lam = 1e-30: C ~ 1e30)
        "intercept_": Fitted("f", (1,), high=ANY_FINITE),
        "support_vectors_": Fitted("matrix", ("n_SV", "n_features_in_")),
        "_coef": Fitted("f", (1, "n_features_in_")),
        "n_iter_": Fitted("int", low=0, optional=True),
    }

    def _fitted_declarations(self) -> dict:
        """The table of the bases, with the kernel's forms: a precomputed kernel keeps no
        support vectors (and its features are the training points), only a linear one ``_coef``."""
        table = super()._fitted_declarations()
        if self.kernel == "precomputed":
            table["support_vectors_"] = Fitted("f", (0, 0))
        if self.kernel != "linear":
            del table["_coef"]
        return table

    def _check_fitted(self) -> None:
        """What the declarations cannot say, for a loaded model: a precomputed kernel's
        training Gram matrix is square; the support vectors are at a scale where the kernel
        cannot overflow (:meth:`_check_rows_scale`), so that ``decision_function`` stays
        finite."""
        if self.kernel == "precomputed":
            if self.shape_fit_[0] != self.shape_fit_[1]:
                raise ValueError("a precomputed-kernel model must have a square shape_fit_")
            return
        self._check_rows_scale(self.support_vectors_, "support_vectors_", self.kernel, self._gamma)

    def _check_rows_scale(self, rows, name: str, kernel: str, gamma: float) -> None:
        """The rows of a loaded model's expansion within the bound that ``fit`` puts on the
        training data: ``||x||^2`` and, for the polynomial kernel, ``k(x, x)`` at most 1e100."""
        if rows.shape[0] == 0:
            return
        try:
            sq = check_data_scale(rows, f"the {kernel} kernel")
        except ValueError as exc:
            raise ValueError(f"{name} are out of scale: {exc}") from None
        if kernel == "poly":
            with np.errstate(over="ignore", invalid="ignore"):
                diag = np.abs(gamma * sq + self.coef0) ** self.degree
            if not np.all(diag <= MAX_KERNEL_VALUE):
                raise ValueError(
                    f"{name} make the poly kernel overflow: k(x, x) up to "
                    f"{np.nanmax(diag):.3g} (at most {MAX_KERNEL_VALUE:g})"
                )

    # ------------------------------------------------------------------ checks
    def _validate_X(self, X, y="no_validation", *, dtype=(np.float64, np.float32)):
        """Checked training data (dense C-ordered or CSR, float64/float32; a square float64
        Gram matrix for ``kernel="precomputed"``); sets ``n_features_in_`` and the resolved
        kernel width ``_gamma``. With ``y`` (checked with ``X`` as scikit-learn's
        ``validate_data`` does: one finite 1-d entry per row; None is refused) returns
        ``(X, y)``."""
        gram = self.kernel == "precomputed"  # its order is settled below, without a copy
        kw = {"accept_sparse": "csr", "dtype": list(dtype), "order": None if gram else "C"}
        kw["reset"] = True
        no_y = isinstance(y, str) and y == "no_validation"
        check_not_strings(X)
        if no_y:
            X = validate_data(self, X, **kw)
        else:
            X, y = validate_data(self, X, y, **kw)
        X = canonical_sparse(X)
        if self.kernel == "precomputed":
            if sp.issparse(X):
                raise TypeError("X must be a dense Gram matrix when kernel='precomputed'")
            if X.shape[0] != X.shape[1]:
                raise ValueError(
                    f"X must be a square Gram matrix when kernel='precomputed', got shape {X.shape}"
                )
            X = _gram_as_c_array(X)
        if self.kernel == "linear" and sp.issparse(X) and X.shape[1] <= INT_MAX:
            # the weight vector w (coef_) and the linear solvers' w are dense: n_features
            # doubles each, whatever the number of non-zeros (a CSR matrix declaring 2**31 - 2
            # columns made the engine fail with bad_alloc, or the OS kill the process); more
            # columns than int32 indexes are refused by the engine, naming that limit
            d = X.shape[1]
            check_dense_budget(
                16.0 * d,
                f"{type(self).__name__} with kernel='linear' keeps dense weight vectors of "
                f"n_features = {d:,} entries",
                "drop the columns that no row uses (X[:, np.unique(X.indices)] for CSR X) or "
                "use a non-linear kernel",
            )
        self._gamma = check_gamma(self.gamma, self.kernel, X)
        check_kernel_scale(X, self.kernel, self._gamma, self.degree, self.coef0)
        return X if no_y else (X, y)

    def _max_iter(self, n: int, linear: bool = False) -> int:
        """The engine's cap on steps: ``max_iter``, or for None :func:`default_max_iter`."""
        return resolve_max_iter(self.max_iter, n, linear)

    def _warn_if_not_converged(
        self, res, who: str, unit: str = "iterations", limit=None, linear=False
    ) -> None:
        """The one ConvergenceWarning of the engine's solvers, from their result ``res``
        (``converged``, ``n_iter``, ``violation``), the cap ``limit`` the solver ran under
        (``max_iter`` by default) and ``tol``; ``linear`` says which default cap was used
        when ``max_iter`` is None."""
        if not res.converged:
            default = self.max_iter is None and ("linear" if linear else True)
            warn_not_converged(
                who,
                limit=self.max_iter if limit is None else limit,
                used=res.n_iter,
                unit=unit,
                detail=f". KKT violation {res.violation:.3g} > tol={self.tol}.",
                stacklevel=3,
                default_cap=default,
            )

    # ------------------------------------------------------------------ the kernel
    # kernel_gamma_, kernel_params, kernel_dot and set_expansion are the package's protocol
    # for kernel machines (_solving.KernelModel): what other modules may read or call
    @property
    def kernel_gamma_(self) -> float:
        """The kernel width in use: ``gamma`` with ``"scale"`` / ``"auto"`` resolved on the
        training data (set when ``fit`` has checked its data, or by a fit that resolves it
        itself)."""
        return self._gamma

    @kernel_gamma_.setter
    def kernel_gamma_(self, value: float) -> None:
        self._gamma = value

    def kernel_params(self) -> dict:
        """The fitted kernel's parameters for :func:`kernel_block` (the width resolved)."""
        return kernel_params(self.kernel, getattr(self, "_gamma", 0.0), self.degree, self.coef0)

    def kernel_dot(
        self, A: MatrixLike, B: MatrixLike, coef: ArrayLike, rows: ArrayLike | None = None
    ) -> np.ndarray:
        """``sum_j coef_j k(a_i, b_j)`` for the rows of ``A`` (see :func:`kernel_dot`)."""
        return kernel_dot(A, B, coef, self.kernel, self.kernel_params(), rows=rows)

    #: what a dense method's users should do instead when its n x n matrices do not fit
    _dense_fix = "use a solver whose memory is linear in n"
    #: bytes per (i, j) pair that a dense method holds at its peak (its Gram matrix and the
    #: solver's copies and factors), for the check of :meth:`_gram`
    _dense_bytes_per_pair = 8.0

    def _check_gram(self, n: int) -> None:
        """:meth:`_gram`'s check of the dense-memory budget for ``n`` training points."""
        check_dense_budget(
            self._dense_bytes_per_pair * float(n) ** 2,
            f"{type(self).__name__} is a dense method: {n:,} training points need "
            f"{n:,} x {n:,} matrices",
            self._dense_fix,
        )

    def _gram(self, X) -> np.ndarray:
        """The dense float64 Gram matrix of the rows of ``X`` (a copy of ``X`` itself for
        ``kernel="precomputed"``): for the dense solvers only, n x n memory, checked first
        against the budget of :func:`~check_dense_budget` (with
        ``_dense_bytes_per_pair`` bytes per pair: the method's peak, not just this matrix)."""
        self._check_gram(X.shape[0])
        if self.kernel == "precomputed":
            return np.array(X, dtype=np.float64)
        X = as_float64(X)
        return kernel_block(X, X, self.kernel, self.kernel_params())

    # ------------------------------------------------------------------ the model
    def set_expansion(
        self,
        X: MatrixLike,
        alpha: ArrayLike,
        intercept: float | None = 0.0,
        *,
        w: ArrayLike | None = None,
        classes: ArrayLike | None = None,
    ) -> None:
        """Store ``f = sum_i alpha_i k(x_i, .) + intercept`` in scikit-learn's SVC vocabulary.

        Parameters
        ----------
        X : the training data as ``fit`` checked them.
        alpha : ndarray of shape (n_samples,)
            The expansion coefficient of every training point; the support is where it is
            non-zero (tiny values are kept: the caller decides what is zero).
        intercept : float or None
            The offset ``b``; None for a model without offset (``intercept_ = [0.0]``).
        w : ndarray of shape (n_features,), optional
            The primal weights of a linear kernel when the solver kept them; computed from
            ``alpha`` otherwise.
        classes : array-like of shape (2,), optional
            ``classes_``: ``classes[1]`` where ``f(x) > 0``.
        """
        alpha = np.asarray(alpha, dtype=np.float64)
        self.support_ = np.flatnonzero(alpha != 0).astype(np.int32)
        self.dual_coef_ = alpha[self.support_][None, :]
        self.intercept_ = np.array([0.0 if intercept is None else float(intercept)])
        if self.kernel == "precomputed":
            self.support_vectors_ = np.empty((0, 0))
        else:
            self.support_vectors_ = X[self.support_]
        if self.kernel == "linear":
            if w is None:
                w = self.dual_coef_[0] @ self.support_vectors_
            self._coef = np.asarray(w, dtype=np.float64).reshape(1, -1).copy()
        if classes is not None:
            self.classes_ = np.asarray(classes)
        self.shape_fit_ = X.shape

    @property
    def coef_(self) -> np.ndarray:
        """Primal weights ``w = sum_i alpha_i x_i`` (linear kernel only), shape (1, n_features)."""
        check_is_fitted(self)
        if self.kernel != "linear":
            raise AttributeError("coef_ is only available when kernel='linear'")
        return self._coef

    def decision_function(self, X: MatrixLike) -> np.ndarray:
        r"""The decision values :math:`f(x) = \sum_{i\in S} \alpha_i k(x_i, x) + b`.

        Computed in row blocks of at most 64 MB of kernel values, so memory stays bounded for
        any number of test points; through ``w`` (``f(x) = <w, x> + b``) for the linear kernel.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
            Dense (float64 or float32) or sparse. With ``kernel="precomputed"``, the kernel
            values ``k(x, x_j)`` against every training point: shape (n_samples, n_train).

        Returns
        -------
        ndarray of shape (n_samples,)
            ``f(x)``; positive means the class ``classes_[1]``.

        Raises
        ------
        ValueError
            When ``X`` holds strings that are not numbers, or lies at a scale where the kernel
            overflows: for the rbf and poly kernels the numerical preflight of ``fit`` runs on
            the test points too (``||x||^2`` at most 1e100, and for poly
            ``(gamma ||x||^2 + |coef0|)^degree``), and a non-finite ``f(x)`` is never returned.

        See Also
        --------
        predict : The class of the sign of ``f``.
        """
        check_is_fitted(self)
        if self.kernel == "precomputed":
            # a kernel matrix against the training points: its width is n_train, checked here
            # with a message that says so rather than as a number of features
            check_not_strings(X)
            X = check_array(X, dtype=np.float64)  # read in C-ordered blocks by kernel_dot
            if X.shape[1] != self.shape_fit_[0]:
                raise ValueError(
                    f"X must be a kernel matrix of shape (n_test, {self.shape_fit_[0]}) against "
                    f"the training points when kernel='precomputed', got shape {X.shape}"
                )
        else:
            # C order, as in fit: a Fortran-ordered or strided X would round its products
            # differently (by 15 on a model with coefficients of 1e17, RampPU with lam=1e-30)
            check_not_strings(X)
            X = validate_data(self, X, accept_sparse="csr", dtype=_DTYPES, order="C", reset=False)
            self._check_test_scale(X)
        f = self._decision_values(X)
        if not np.all(np.isfinite(f)):
            bad = int(np.flatnonzero(~np.isfinite(f))[0])
            raise ValueError(
                f"X gives a non-finite decision value (row {bad}): its kernel values with the "
                f"support vectors overflow double precision ({self.kernel} kernel). Rescale X "
                "as the training data were (e.g. with the same fitted StandardScaler)"
            )
        return f

    def _check_test_scale(self, X) -> None:
        """The numerical preflight of :meth:`_validate_X` on test points, for the kernels that
        can overflow (rbf, poly): ``||x||^2`` finite and at most :data:`MAX_KERNEL_VALUE`
        (1e30 for float32), and for ``poly`` ``(gamma ||x||^2 + |coef0|)^degree`` too, a bound
        of ``|k(x, x')|`` by Cauchy-Schwarz for every ``x'`` no larger than ``x``. A value that
        still overflows is refused by :meth:`decision_function` after the products. Raises a
        ``ValueError`` naming ``X`` and the fix."""
        if self.kernel not in ("rbf", "poly") or X.shape[0] == 0:
            return
        limit = MAX_KERNEL_VALUE_F32 if X.dtype == np.float32 else MAX_KERNEL_VALUE
        sq = check_data_scale(X, f"the {self.kernel} kernel of this model", limit)
        if self.kernel == "poly":
            check_poly_diagonal(
                sq,
                self._gamma,
                self.coef0,
                self.degree,
                limit,
                "X is too large in scale for the poly kernel of this model: k(x, x)",
                ", or the decision values overflow double precision",
                "Rescale X as the training data were (e.g. with the same fitted StandardScaler)",
            )

    def _decision_values(self, X) -> np.ndarray:
        """``f(x)`` on ``X`` already checked (as :meth:`decision_function` checks it, or the
        training data as ``fit`` checked it): what ``fit`` calls on its own data, so that a
        model fitted on a DataFrame is not checked again against its column names."""
        coef, b = self.dual_coef_[0], self.intercept_[0]
        if self.kernel == "precomputed":
            return self.kernel_dot(X, self.support_, coef) + b
        if self.kernel == "linear":
            return np.asarray(X @ self._coef[0], dtype=np.float64).ravel() + b
        return self.kernel_dot(X, self.support_vectors_, coef) + b

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.pairwise = self.kernel == "precomputed"
        return tags


class KernelClassifier(ClassifierMixin, KernelMachine):
    """A binary :class:`KernelMachine` classifier: ``classes_[1]`` where ``f(x) > 0``.

    ``classes_`` is whatever pair the subclass passes with its expansion (``[0, 1]`` for the PU
    learners, the two labels of ``y`` for SVM+).

    Examples
    --------
    A Parzen-window classifier: ``f(x)`` is the mean kernel value to the positive class minus
    that to the negative one; ``predict`` and ``classes_`` come from the base.

    >>> import numpy as np
    >>> from unlabeled.base import KernelClassifier, check_binary_targets
    >>> class Parzen(KernelClassifier):
    ...     def __init__(self, *, kernel="rbf", gamma="scale", degree=3, coef0=0.0):
    ...         self.kernel, self.gamma, self.degree, self.coef0 = kernel, gamma, degree, coef0
    ...
    ...     def fit(self, X, y):
    ...         self._validate_params()
    ...         X, y = self._validate_X(X, y)
    ...         classes, t = check_binary_targets(y, "Parzen")
    ...         alpha = np.where(t > 0, 1.0 / np.sum(t > 0), -1.0 / np.sum(t < 0))
    ...         self.set_expansion(X, alpha, intercept=None, classes=classes)
    ...         return self
    >>> X = np.array([[0.0], [0.5], [3.0], [3.5]])
    >>> clf = Parzen().fit(X, ["a", "a", "b", "b"])
    >>> clf.predict([[0.2], [3.2]]).tolist()
    ['a', 'b']
    """

    _fitted_attributes: dict = {
        "classes_": Fitted("iufUSbO", (2,)),
        # predict_proba's sigmoid (probability=True, see unlabeled._calibration): both or
        # neither; A <= 0 as the probability is non-decreasing in f, of any finite size: it is
        # in the inverse units of f (a Gram matrix in units of 1e-150 gave A of -1.2e150)
        "probA_": Fitted(
            "f", (1,), low=-ANY_FINITE, high=0.0, optional=True, needs=("probability", "probB_")
        ),
        "probB_": Fitted("f", (1,), optional=True, needs=("probability", "probA_")),
    }

    def predict(self, X: MatrixLike) -> np.ndarray:
        """The class of the sign of the decision value: ``classes_[1]`` where ``f(x) > 0``,
        else ``classes_[0]``.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
            As for :meth:`decision_function`.

        Returns
        -------
        ndarray of shape (n_samples,)
            Values from ``classes_``.

        See Also
        --------
        decision_function : The values ``f(x)`` whose sign this is.
        """
        positive = self.decision_function(X) > 0  # first: it checks that the model is fitted
        return self.classes_[positive.astype(int)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags
