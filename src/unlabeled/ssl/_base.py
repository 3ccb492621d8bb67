"""What the semi-supervised SVMs share: scikit-learn's semi-supervised target convention
(``y = -1`` for an unlabeled point), the balance constraint and its sorting oracle, the SVM on
the labeled points that starts WellSVM and TSVM, the features divided by their standard
deviations (``standardize``), and accuracy on the labeled points."""

from __future__ import annotations

import math
import warnings
from numbers import Number

import numpy as np
import scipy.sparse as sp
from scipy.special import log_expit, logsumexp
from sklearn.base import clone
from sklearn.metrics import accuracy_score
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_consistent_length, check_is_fitted, column_or_1d

from .._calibration import (
    IfProbability,
    ProbabilisticMixin,
    calibration_folds,
    fold_estimator,
    platt_sigmoid,
)
from .._label_generation import BalancedLabels, make_backend  # noqa: F401 (re-exported)
from .._validation import (
    MAX_C,
    MAX_CACHE_MB,
    RANDOM_STATE,
    ArrayLike,
    Boolean,
    Integer,
    MatrixLike,
    Real,
    check_gamma,
    check_kernel_scale,
    column_moments,
    two_valued_columns,
)
from ..base import ANY_FINITE, Fitted, KernelClassifier, KernelMachine, fill_docstring

UNLABELED = -1


def unlabeled_mask(y: np.ndarray, who: str) -> np.ndarray:
    """Where the 1-d ``y`` holds the unlabeled marker: the number -1 in any dtype scikit-learn
    accepts (integers, floats, or an object array holding the integer -1 among string
    labels, as :mod:`sklearn.semi_supervised`). A string ``"-1"`` is refused: it would be a
    class of its own."""
    if y.dtype.kind in "iuf":
        return y == UNLABELED
    if y.dtype.kind not in "USO":
        return np.zeros(len(y), dtype=bool)
    as_string = sum(isinstance(v, (str, bytes)) and v in ("-1", b"-1") for v in y)
    if as_string:
        raise ValueError(
            f"y holds the string '-1' ({as_string} entries): {who} marks an "
            "unlabeled point with the integer -1, and a string '-1' would be a class of its "
            "own. With string class labels use an object array: y = np.array(labels, "
            "dtype=object); y[unlabeled] = -1 (scikit-learn's semi-supervised convention)"
        )
    marker = [isinstance(v, Number) and bool(v == UNLABELED) for v in y]
    return np.array(marker, dtype=bool).reshape(len(y))


def check_classes(classes):
    """``classes`` as an array of distinct labels without the unlabeled marker."""
    classes_ = np.asarray(classes)
    if classes_.ndim != 1 or len(np.unique(classes_)) != len(classes_):
        raise ValueError(f"classes must be a 1-d list of distinct labels, got {classes!r}")
    if any(
        isinstance(c, (str, bytes)) and c in ("-1", b"-1") or isinstance(c, Number) and c == -1
        for c in classes_
    ):
        raise ValueError("classes must not contain -1: -1 marks unlabeled points in y")
    return classes_


def ssl_targets(y, n_samples: int, who: str):
    """Split semi-supervised targets into the labels, the unlabeled points and the classes.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Class labels for the labeled points (two or more classes), ``-1`` for the unlabeled
        ones (scikit-learn's convention, as :class:`sklearn.semi_supervised.LabelSpreading`).
    n_samples : int
        The number of rows of ``X``.
    who : str
        The estimator, named in the errors.

    Returns
    -------
    y : ndarray of shape (n_samples,)
        ``y`` as a 1-d array.
    unlabeled : ndarray of bool, shape (n_samples,)
        Where ``y`` holds the unlabeled marker.
    classes : ndarray of shape (n_classes,)
        The labels of the labeled points, sorted (at least two).
    """
    y = column_or_1d(y, warn=True)
    check_consistent_length(np.empty((n_samples, 0)), y)
    if y.dtype.kind == "f" and np.isnan(y).any():
        raise ValueError(
            f"y contains NaN: mark an unlabeled point with -1 (scikit-learn's "
            f"semi-supervised convention), not NaN ({who})"
        )
    unlabeled = unlabeled_mask(y, who)
    labeled = y[~unlabeled]
    if labeled.size:
        check_classification_targets(labeled)
    classes = np.unique(labeled)
    if classes.size < 2:
        why = (
            "no point is labeled"
            if classes.size == 0
            else f"only one class is labeled (all labeled points are {classes[0]!r}): label at "
            "least one point of each class"
        )
        raise ValueError(
            f"y must hold two or more classes on its labeled points (-1 = unlabeled): {why}"
        )
    return y, unlabeled, classes


def check_ssl_targets(y, n_samples: int, who: str):
    """Split binary semi-supervised targets into classes and signs.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Two class labels for the labeled points, ``-1`` for the unlabeled ones.
    n_samples : int
        The number of rows of ``X``.
    who : str
        The estimator, named in the errors.

    Returns
    -------
    classes : ndarray of shape (2,)
        The two labels, sorted; ``classes[1]`` is the positive class (+1).
    signs : ndarray of int8, shape (n_samples,)
        +1 / -1 on the labeled points, 0 on the unlabeled ones.
    """
    y, unlabeled, classes = ssl_targets(y, n_samples, who)
    if classes.size != 2:
        raise ValueError(
            f"y must hold two classes on its labeled points here, got {classes.size}: "
            f"{classes[:5].tolist()}"
        )
    return classes, binary_signs(y, unlabeled, classes)


def binary_signs(y, unlabeled, classes) -> np.ndarray:
    """+1 on the labeled points of ``classes[1]``, -1 on the other labeled ones, 0 on the
    unlabeled ones (int8)."""
    signs = np.zeros(len(y), dtype=np.int8)
    signs[~unlabeled] = np.where(y[~unlabeled] == classes[1], 1, -1)
    return signs


def n_negative_unlabeled(signs, balance) -> int:
    """The paper's balance: ``ceil(n_U (1 - p))`` unlabeled negatives, ``p`` the share of
    positives among the labeled points (``balance=None``) or ``balance`` itself."""
    n_u = int(np.sum(signs == 0))
    p = float(np.mean(signs[signs != 0] == 1)) if balance is None else float(balance)
    return min(n_u, max(0, math.ceil(n_u * (1.0 - p) - 1e-9)))


_NORMAL = float(np.finfo(np.float64).tiny)  # the smallest normal double

#: a column whose standard deviation is at most this share of its largest magnitude is constant
#: but for rounding: its scale is 1, not the noise (which would blow it up to unit spread)
_CONSTANT_RTOL = 1e-12


#: a column whose mean is over this many scales (``feature_scale``) is centred by ``standardize``
#: (``mean_``), by kernel: a linear or polynomial kernel depends on the origin (an offset of
#: a few deviations flips a linear WellSVM), the rbf kernel only through the cancellation of
#: the terms of its squared distances (``|x|^2 + |x'|^2 - 2 x.x'``) far from the origin.
#: Below the ratio nothing is centred (a sparse column is centred only when it holds more
#: non-zeros than zeros); for the rbf kernel the model is the same bits as before the rule
CENTRE_RATIO = {"rbf": 1e3}
_CENTRE_RATIO_ORIGIN = 1.0  # linear and poly
#: the bound of a linear model's w on the features its kernel saw (model files' bound on
#: fitted values): ``_coef`` on X as given may exceed it by the features' units
MAX_STANDARDISED_COEF = 1e100
#: a variance below this (or not finite) is taken again in its column's own units (divided
#: by its largest magnitude): a column in units of 1e-300 has a variance that underflows
_VARIANCE_FLOOR = 1e-280


def feature_scale(X, centre_ratio: float = _CENTRE_RATIO_ORIGIN):
    r"""``scale_`` and ``mean_`` of ``standardize=True`` and the spread ``sum_j var(x_j / s_j)``.

    ``s_j`` is the (population) standard deviation of column ``j`` over the rows of ``X``, or 1
    for a column that is constant (to rounding: :data:`_CONSTANT_RTOL`). A column that takes
    two values ``a < b`` (a binary or one-hot indicator, in any coding) is divided by
    ``(b - a) / 2`` instead, the largest standard deviation such a column can have (its
    values equally frequent), so that it keeps its rarity:

    .. math::

        \mathbb{E}\,(x_j - x'_j)^2 / s_j^2 = 8\, p_j (1 - p_j) \le 2,

    ``p_j`` the share of rows at ``b``, against 2 for every other standardised column. A
    category of 1% of the rows then adds 0.08 to an average squared distance, not 2, as it
    would divided by its own small deviation (0.1), which lets the rare indicators of a
    one-hot table dominate the rbf kernel. (See :func:`~unlabeled._validation.two_valued_columns`.)

    Dense ``X``: a (1, n_features) array. Sparse ``X``: a (1, n_features) CSR row holding
    ``s_j`` on the columns that hold an entry; the others are zero in every training row,
    constant, of scale 1. Read from the non-zeros (:func:`column_moments`: the same bits for
    every layout), so dividing by these scales keeps the sparsity. A column whose variance
    underflows (or overflows) is measured again divided by its largest magnitude. Only the
    columns whose mean exceeds ``centre_ratio`` scales ``s_j`` (:data:`CENTRE_RATIO`) are
    centred: ``mean_`` (same layout as ``scale_``) holds their means, or is None when there
    is none (see ``standardize``)."""
    columns, var, big, mean = column_moments(X, with_mean=True)
    s, ratio = np.sqrt(var), np.ones_like(var)
    redo = (~np.isfinite(var) | (var < _VARIANCE_FLOOR)) & (big > 0) & np.isfinite(big)
    if redo.any():
        unit = np.where(redo, big, 1.0)
        _, var_u, _, mean_u = column_moments(
            divide_columns(X, _as_row(unit, columns, X)), with_mean=True
        )
        s = np.where(redo, unit * np.sqrt(var_u), s)
        mean = np.where(redo, unit * mean_u, mean)
        ratio = np.where(redo, var_u / np.where(var_u > 0, var_u, 1.0), 1.0)
    varying = s > _CONSTANT_RTOL * big
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(redo, ratio * varying, var / np.where(varying, s, 1.0) ** 2)
    s = np.where(varying, s, 1.0)
    _, half, share = two_valued_columns(X)
    two = varying & (half > 0) & np.isfinite(half)
    if two.any():  # var(x / half) = 4 p (1 - p), whatever the units
        s = np.where(two, half, s)
        terms = np.where(two, 4.0 * share * (1.0 - share), terms)
    spread = math.fsum(terms)
    centred = np.abs(mean) > centre_ratio * s
    centre = None
    if centred.any():
        centre = _as_row(np.where(centred, mean, 0.0), columns, X, keep=centred)
    return _as_row(s, columns, X), spread, centre


def _as_row(values, columns, X, keep=None):
    """Per-column ``values`` as ``feature_scale`` gives them: a (1, n_features) array for
    dense ``X`` (``columns`` None), a CSR row on ``columns`` (where ``keep``) for sparse."""
    if columns is None:
        return np.asarray(values, dtype=np.float64)[None, :]
    if keep is not None:
        columns, values = columns[keep], values[keep]
    return sp.csr_matrix((values, columns, [0, columns.size]), shape=(1, X.shape[1]))


def centre_columns(X, centre):
    """A copy of ``X`` (dense or CSR, its dtype kept) less ``centre`` (``feature_scale``'s
    ``mean_``; None: ``X`` itself). A sparse ``X`` gains entries on the centred columns only
    (nearly full already: a column whose mean is many deviations is non-zero nearly
    everywhere); each entry is ``x - m``, the same bits as the dense subtraction."""
    if centre is None:
        return X
    if sp.issparse(centre):
        if not sp.issparse(X):
            X = np.array(X, order="C")
            X[:, centre.indices] -= centre.data.astype(X.dtype)
            return X
        ones = sp.csr_matrix(np.ones((X.shape[0], 1), dtype=X.dtype))
        out = sp.csr_matrix(X - ones @ centre.astype(X.dtype))
        out.sum_duplicates()
        return out
    c = centre[0].astype(X.dtype)
    if sp.issparse(X):
        ones = sp.csr_matrix(np.ones((X.shape[0], 1), dtype=X.dtype))
        out = sp.csr_matrix(X - ones @ sp.csr_matrix(c[None, :]))
        out.sum_duplicates()
        return out
    return X - c


def divide_columns(X, scale):
    """A copy of ``X`` (dense or CSR, its dtype kept) with column ``j`` divided by ``s_j`` of
    ``scale`` (:func:`feature_scale`'s; a CSR ``scale`` divides only the columns it holds)."""
    if sp.issparse(scale):
        cols, s = scale.indices, scale.data
        if not sp.issparse(X):
            X = np.array(X, order="C")
            X[:, cols] /= s.astype(X.dtype)
            return X
        X = X.copy()
        pos = np.minimum(np.searchsorted(cols, X.indices), max(cols.size - 1, 0))
        hit = cols[pos] == X.indices if cols.size else np.zeros(X.indices.size, dtype=bool)
        X.data[hit] /= s[pos[hit]].astype(X.dtype)
        return X
    s = scale[0].astype(X.dtype)
    if sp.issparse(X):
        X = X.copy()
        X.data /= s[X.indices]
        return X
    return X / s


_PROBABILITY_DOC = """probability : bool, default=False
        Enable ``predict_proba``: Platt's sigmoid ``1 / (1 + exp(A f + B))`` fitted on
        held-out decision values of the labeled points (5 stratified folds, fewer when a
        class has fewer than 5 labeled points; each fold refits the method with that fold's
        labels hidden). Off by default because it costs 5 more fits; ``decision_function``
        and ``predict`` are those of the fit on all the data either way."""
_RANDOM_STATE_AND_STANDARDIZE_DOC = """random_state : int, RandomState or None, default=None
        Draws the folds of ``probability=True``; nothing else is random.
    standardize : bool, default=True
        Divide each feature by its standard deviation over the training points before the
        kernel (a two-valued feature, binary or one-hot, by half the gap between its
        values: ``scale_``; a feature far from the origin is centred first, ``mean_``), as
        for :class:`WellSVM`: the model does not depend on the features' units.
        Ignored for ``kernel="precomputed"``."""

#: text the semi-supervised SVMs' docstrings share, written where they hold ``%(name)s``
_SHARED_DOC = {
    "probability": _PROBABILITY_DOC,
    "random_state_and_standardize": _RANDOM_STATE_AND_STANDARDIZE_DOC,
    "probability_to_standardize": _PROBABILITY_DOC + "\n    " + _RANDOM_STATE_AND_STANDARDIZE_DOC,
    "wellsvm_attributes": """probA_, probB_ : ndarray of shape (1,)
        As for :class:`WellSVM`; ``probability=True`` only.
    scale_, mean_ : ndarray of shape (1, n_features), CSR matrix of that shape, or None
        As for :class:`WellSVM`.
    %(estimators_attribute)s""",
    "estimators_attribute": """estimators_ : list of n_classes estimators
        More than two classes only (one-vs-rest): ``estimators_[k]`` is the binary model
        of class ``classes_[k]`` (``1``) against the other labeled classes (``0``), the
        unlabeled points unlabeled, with this estimator's parameters: the model that
        fitting ``y_k = where(y == -1, -1, y == classes_[k])`` gives. Column ``k`` of
        ``decision_function`` is its decision value, ``predict`` the class of the largest,
        and ``predict_proba`` each one's sigmoid normalised over the classes. The model's
        other attributes are then ``classes_``, ``transduction_``, ``n_iter_`` (an array:
        each binary model's) and what :meth:`fit` checks (``n_features_in_``,
        ``shape_fit_``); the per-class expansions (``dual_coef_``, ``support_``, ...) are
        the binary models'.""",
}


#: fit's warning when y marks no point unlabeled ({who}: the estimator)
_NO_UNLABELED = (
    "{who} received no unlabeled point (no -1 in y): it learns from the labeled points "
    "alone. A wrapper that binarises y (sklearn.multiclass.OneVsRestClassifier) makes -1 a "
    "class of its own and leaves no point unlabeled: fit {who} itself on y with its -1 "
    "entries, whatever the number of classes (it is one-vs-rest with the unlabeled points "
    "unlabeled in every subproblem)"
)

#: the attributes of a model of more than two classes besides its estimators_ and classes_
_ONE_VS_REST_ATTRIBUTES = (
    "n_features_in_", "feature_names_in_", "shape_fit_", "_gamma", "transduction_",
)  # fmt: skip


class SemiSupervisedSVM(ProbabilisticMixin, KernelClassifier):
    """Base of the semi-supervised SVMs: targets with ``-1`` for unlabeled points, the
    kernel on the engine, the start from an SVM on the labeled points, ``score``, and
    ``predict_proba`` with ``probability=True`` (:meth:`_calibrate`)."""

    def __init_subclass__(cls, **kwargs):
        """Write the shared text (:data:`_SHARED_DOC`) into the subclass's docstring."""
        super().__init_subclass__(**kwargs)
        fill_docstring(cls, _SHARED_DOC)

    _parameter_constraints: dict = {
        **KernelMachine._parameter_constraints,
        "C1": [Real(0.0, MAX_C, high_open=False)],
        "C2": [Real(0.0, MAX_C, high_open=False)],
        "balance": [None, Real(0.0, 1.0)],
        "tol": [Real(0.0)],
        "cache_size": [Real(0.0, MAX_CACHE_MB, high_open=False)],
        "max_iter": [Integer(1)],
        "probability": [Boolean()],
        "random_state": RANDOM_STATE,
        "standardize": [Boolean()],
    }

    # the features' scales of standardize=True (None otherwise, or absent: a file written
    # before the parameter, which holds standardize=False from model_io.ADDED_PARAMS)
    _fitted_attributes: dict = {
        "transduction_": Fitted("iufUSbO", ("n_train",)),
        # normal floats: a file's subnormal scale (1e-320) sent every test point to infinity
        "scale_": Fitted("matrix", (1, "n_features_in_"), none=True, optional=True, low=_NORMAL),
        # the means of the columns centred by standardize (feature_scale); None: none is
        "mean_": Fitted("matrix", (1, "n_features_in_"), none=True, optional=True),
        # w on X as given: w on the standardised features divided by scale_ (1e150 for a
        # feature in units of 1e-150), bounded on the standardised ones by _check_fitted
        "_coef": Fitted("f", (1, "n_features_in_"), high=ANY_FINITE),
        # more than two classes: one binary model of this class per class (one-vs-rest), and
        # none of the binary model's attributes but those of _ONE_VS_REST_ATTRIBUTES
        "estimators_": Fitted("estimators", ("n_classes",), optional=True),
    }

    #: whether the method learns from the unlabeled points (fit warns when y holds none)
    _learns_from_unlabeled = True

    def fit(self, X: MatrixLike, y: ArrayLike) -> SemiSupervisedSVM:
        """Fit on ``X`` with labels ``y`` (``-1`` = unlabeled).

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
            Training points (dense or CSR); a square Gram matrix with
            ``kernel="precomputed"``.
        y : array-like of shape (n_samples,)
            Class labels on the labeled points, -1 on the unlabeled ones. Two classes: one
            model. More: one binary model per class, that class against the other labeled
            classes with the unlabeled points unlabeled (one-vs-rest, ``estimators_``). With
            ``probability=True``, at least 2 labeled points of each class.

        Returns
        -------
        self
        """
        params = self._validate_params()
        X = self._validate_X(X)
        who = type(self).__name__
        y, unlabeled, classes = ssl_targets(y, X.shape[0], who)
        if self._learns_from_unlabeled and not unlabeled.any():
            warnings.warn(_NO_UNLABELED.format(who=who), UserWarning, stacklevel=3)
        if classes.size > 2:
            return self._fit_one_vs_rest(params, X, y, unlabeled, classes)
        self.__dict__.pop("estimators_", None)  # (a model of more classes fitted before)
        signs = binary_signs(y, unlabeled, classes)
        folds = None
        if params["probability"]:
            lab = signs[signs != 0]
            names = tuple(f"labeled points of class {c!r}" for c in classes)
            folds = calibration_folds(lab, names, self.random_state)
        scale, centre, Xs = self._standardize(X, params["standardize"])
        self.scale_ = self.mean_ = None  # the method runs on Xs: its decision values as given
        self._fit(params, Xs, classes, signs)
        if scale is not None:  # the model on X: support vectors as given, w in X's units
            self.support_vectors_ = X[self.support_]
            if self.kernel == "linear":
                self._coef = divide_columns(self._coef, scale)
                if centre is not None:  # w.(x - m) + b = w.x + (b - w.m)
                    m = centre.toarray() if sp.issparse(centre) else centre
                    self.intercept_ = self.intercept_ - float(self._coef[0] @ m[0])
            self.scale_, self.mean_ = scale, centre
        self._calibrate(X, signs, folds)
        return self

    #: divide float32 input in float64 (a method that reads the features in float64 anyway):
    #: the model of float32 data is then that of their float64 copy
    _standardize_in_float64 = False

    def _standardize(self, X, standardize: bool):
        """``(scale_, mean_, (X - mean_) / scale_)`` for ``standardize=True``
        (:func:`feature_scale`), with the kernel width and the numerical preflight of the
        divided data, else ``(None, None, X)``."""
        if not standardize or self.kernel == "precomputed":
            return None, None, X
        ratio = CENTRE_RATIO.get(self.kernel, _CENTRE_RATIO_ORIGIN)
        scale, spread, centre = feature_scale(X, ratio)
        if self._standardize_in_float64 and X.dtype == np.float32:
            X = X.astype(np.float64)  # (exact) then divided in float64, as float64 input
        Xs = divide_columns(centre_columns(X, centre), scale)
        if isinstance(self.gamma, str) and self.gamma == "scale" and spread > 0:
            # 1 / (n_features * the variance of the centred standardised features): the
            # value of StandardScaler followed by gamma="scale" (1 / n_features without
            # constant columns), whatever the columns' means (the rbf kernel ignores them)
            self._gamma = 1.0 / spread
        else:
            self._gamma = check_gamma(self.gamma, self.kernel, Xs)
        check_kernel_scale(Xs, self.kernel, self._gamma, self.degree, self.coef0)
        return scale, centre, Xs

    def _decision_values(self, X) -> np.ndarray:
        """``f(x)`` on checked ``X``: the kernel of the standardised points when the model
        was fitted with ``standardize=True`` (the linear kernel's ``w`` is in ``X``'s units
        already); the base's computation otherwise."""
        estimators = vars(self).get("estimators_")
        if estimators is not None:  # one column per class, each its binary model's f
            return np.column_stack([e._decision_values(X) for e in estimators])
        scale = getattr(self, "scale_", None)
        if scale is None or self.kernel == "linear":
            return super()._decision_values(X)
        centre = getattr(self, "mean_", None)  # (absent from a file of an earlier version)
        sv = self.support_vectors_
        if self._standardize_in_float64:  # as fit divided them
            sv = sv.astype(np.float64) if sv.dtype == np.float32 else sv
            X = X.astype(np.float64) if X.dtype == np.float32 else X
        sv = divide_columns(centre_columns(sv, centre), scale)
        step = max(1, 2**23 // max(X.shape[1], 1))  # 64 MB of divided rows at a time
        out = [
            self.kernel_dot(
                divide_columns(centre_columns(X[r : r + step], centre), scale),
                sv,
                self.dual_coef_[0],
            )
            for r in range(0, X.shape[0], step)
        ]
        return (np.concatenate(out) if out else np.empty(0)) + self.intercept_[0]

    def _check_fitted(self) -> None:
        """The base's checks, and ``scale_`` as ``fit`` makes it: there exactly when
        ``standardize`` (and a kernel on features), positive and finite; for more than two
        classes, the binary models agree with the whole (:meth:`_check_one_vs_rest`)."""
        if "estimators_" in vars(self):
            self._check_one_vs_rest()
            return
        super()._check_fitted()
        scale = getattr(self, "scale_", None)
        wanted = bool(self.standardize) and self.kernel != "precomputed"
        if (scale is not None) != wanted:
            raise ValueError(
                f"scale_ must be {'an array' if wanted else 'None'} when standardize="
                f"{self.standardize} and kernel={self.kernel!r}"
            )
        if scale is not None:
            values = scale.data if sp.issparse(scale) else scale
            if not np.all(values > 0):
                raise ValueError("scale_ must hold positive scales")
        coef = vars(self).get("_coef")
        if coef is not None:  # w on the features the kernel saw: a fitted value's bound
            w = coef
            if scale is not None:
                dense = scale.toarray() if sp.issparse(scale) else scale
                w = coef * np.where(dense > 0, dense, 1.0)
            with np.errstate(over="ignore"):
                big = float(np.abs(w).max(initial=0.0))
            if not big <= MAX_STANDARDISED_COEF:
                raise ValueError(
                    f"_coef holds values of magnitude {big:.3g} on the standardised features "
                    f"(a fitted model's are at most {MAX_STANDARDISED_COEF:g})"
                )

    # ------------------------------------------------------------------ more classes
    def _fit_one_vs_rest(self, params, X, y, unlabeled, classes):
        """More than two classes: for each class ``c`` a binary model of this class, with the
        same parameters, fitted on ``y_c`` (1 on the labeled points of ``c``, 0 on the other
        labeled points, -1 on the unlabeled ones: the same model as fitting that ``y_c`` by
        hand). With ``balance=None`` each subproblem's balance is then its class's share of
        the labeled points."""
        if params.get("balance") is not None:
            raise ValueError(
                f"balance={params['balance']} is the share of classes_[1] among the unlabeled "
                f"points, but y holds {classes.size} classes: leave balance=None (each "
                "one-vs-rest subproblem then takes its class's share of the labeled points)"
            )
        if params["probability"]:
            labeled = y[~unlabeled]
            few = [c for c in classes.tolist() if np.sum(labeled == c) < 2]
            if few:
                raise ValueError(
                    "probability=True fits each class's sigmoid on held-out labeled points, "
                    f"which needs at least 2 labeled points of every class; the classes "
                    f"{few[:5]} have fewer: label more, or pass probability=False"
                )
        estimators: list = []
        shared: dict = {}  # what every subproblem computes alike (LapSVM's graph and solve)
        for c in classes:
            y_c = np.where(unlabeled, UNLABELED, np.where(y == c, 1, 0))
            est = clone(self)
            est._shared = shared
            try:
                with warnings.catch_warnings():  # (fit warned already)
                    warnings.filterwarnings("ignore", ".*received no unlabeled point")
                    estimators.append(est.fit(X, y_c))
            finally:
                del est._shared
        for name in list(vars(self)):  # a binary model fitted before
            if name not in self._get_param_names() and name not in _ONE_VS_REST_ATTRIBUTES:
                del self.__dict__[name]
        self.estimators_, self.classes_, self.shape_fit_ = estimators, classes, X.shape
        self._gamma = estimators[0].kernel_gamma_  # (the standardised data's)
        self.n_iter_ = np.array([e.n_iter_ for e in estimators])  # per class
        index = np.argmax(self._decision_values(X), axis=1)
        index[~unlabeled] = np.searchsorted(classes, y[~unlabeled])
        self.transduction_ = classes[index]
        return self

    def _check_one_vs_rest(self) -> None:
        """A model of more classes: at least three, a binary model of this class per class
        with this model's parameters, fitted on the same points (classes ``[0, 1]``)."""
        if len(self.classes_) < 3:
            raise ValueError(f"estimators_ comes with 3 classes or more, got {len(self.classes_)}")
        if self.kernel == "precomputed" and self.shape_fit_[0] != self.shape_fit_[1]:
            raise ValueError("a precomputed-kernel model must have a square shape_fit_")
        params = {k: v for k, v in self.get_params().items() if k != "random_state"}
        for i, est in enumerate(self.estimators_):
            what = f"estimators_[{i}]"
            if "estimators_" in vars(est):
                raise ValueError(f"{what} must be a binary model")
            theirs = {k: v for k, v in est.get_params().items() if k != "random_state"}
            if theirs != params:
                raise ValueError(f"{what} must have the parameters of the model that holds it")
            if tuple(est.shape_fit_) != tuple(self.shape_fit_) or est.kernel_gamma_ != self._gamma:
                raise ValueError(f"{what} must be fitted on the model's training points")
            if est.classes_.tolist() != [0, 1]:
                raise ValueError(f"{what} must have the classes [0, 1]")

    def _fitted_declarations(self) -> dict:
        """The binary model's table, or for more than two classes (``estimators_``) the
        attributes of :data:`_ONE_VS_REST_ATTRIBUTES`, ``classes_`` and ``estimators_``."""
        table = super()._fitted_declarations()
        if "estimators_" not in vars(self):
            del table["estimators_"]
            return table
        out = {k: table[k] for k in _ONE_VS_REST_ATTRIBUTES}
        out["classes_"] = Fitted("iufUSbO", ("n_classes",))
        path = f"{type(self).__module__}.{type(self).__qualname__}"
        out["estimators_"] = Fitted("estimators", ("n_classes",), choices=(path,))
        out["n_iter_"] = Fitted("iu", ("n_classes",), low=0)  # each class's
        return out

    def predict(self, X: MatrixLike) -> np.ndarray:
        """The class of the largest decision value: for two classes ``classes_[1]`` where
        ``f(x) > 0``, else ``classes_[0]``; for more, ``classes_[argmax_k f_k(x)]``, ``f_k``
        the decision value of class ``k`` against the others (one-vs-rest).

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
            As for :meth:`decision_function`.

        Returns
        -------
        ndarray of shape (n_samples,)
            Values from ``classes_``.
        """
        f = self.decision_function(X)  # first: it checks that the model is fitted
        if f.ndim == 1:
            return self.classes_[(f > 0).astype(int)]
        return self.classes_[np.argmax(f, axis=1)]

    def decision_function(self, X: MatrixLike) -> np.ndarray:
        r"""The decision values: :math:`f(x) = \sum_{i\in S} \alpha_i k(x_i, x) + b` for two
        classes; for more, one column per class, its binary model's ``f`` (that class
        against the others), as :class:`sklearn.svm.SVC` with ``decision_function_shape=
        "ovr"``.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
            Dense or sparse; with ``kernel="precomputed"``, the kernel values against every
            training point, shape (n_samples, n_train).

        Returns
        -------
        ndarray of shape (n_samples,) or (n_samples, n_classes)
            Two classes: ``f(x)``, positive for ``classes_[1]``. More: ``f_k(x)`` in the
            order of ``classes_``.
        """
        return super().decision_function(X)

    def _log_proba_one_vs_rest(self, X) -> np.ndarray:
        """For more than two classes: each class's sigmoid ``P_k`` (its binary model's
        ``probA_``, ``probB_``) of its decision value, normalised over the classes, in logs:
        ``log(P_k / sum_j P_j)``, which never underflows."""
        f = self.decision_function(X)
        A = np.array([e.probA_[0] for e in self.estimators_])
        B = np.array([e.probB_[0] for e in self.estimators_])
        log_p = log_expit(-(A * f + B))
        return log_p - logsumexp(log_p, axis=1, keepdims=True)

    @IfProbability
    def predict_proba(self, X: MatrixLike) -> np.ndarray:
        """Class probabilities. Two classes: ``P(classes_[1] | x) = 1 / (1 + exp(probA_
        f(x) + probB_))``, a sigmoid fitted on held-out decision values at ``fit``
        (``probability=True``). More: each class's sigmoid of its own decision value
        (``estimators_[k]``'s), the row normalised to sum to 1, as
        :class:`sklearn.multiclass.OneVsRestClassifier`.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
            As for ``decision_function``.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Columns in the order of ``classes_``; rows sum to 1.
        """
        if "estimators_" not in vars(self):
            return ProbabilisticMixin.predict_proba(self, X)
        return np.exp(self._log_proba_one_vs_rest(X))

    @IfProbability
    def predict_log_proba(self, X: MatrixLike) -> np.ndarray:
        """The logarithm of :meth:`predict_proba`, computed without underflow.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
        """
        if "estimators_" not in vars(self):
            return ProbabilisticMixin.predict_log_proba(self, X)
        return self._log_proba_one_vs_rest(X)

    @property
    def coef_(self) -> np.ndarray:
        """Primal weights ``w`` on ``X`` (linear kernel only): shape (1, n_features), or
        (n_classes, n_features) for more than two classes (one row per class)."""
        estimators = vars(self).get("estimators_")
        if estimators is None:
            return KernelMachine.coef_.fget(self)  # type: ignore[attr-defined]
        if self.kernel != "linear":
            raise AttributeError("coef_ is only available when kernel='linear'")
        return np.vstack([e.coef_ for e in estimators])

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = True
        return tags

    def _calibrate(self, X, signs, folds) -> None:
        """With ``folds`` (``probability=True``): Platt's sigmoid on held-out labeled points.

        For each fold of the labeled points the method is refitted on all the points with
        that fold's labels hidden (marked unlabeled, so that the unlabeled data stay those
        of the full fit), and its decision values on the hidden points are recorded;
        :func:`~unlabeled._calibration.platt_sigmoid` fits ``P(classes_[1] | x) = 1 / (1 +
        exp(A f(x) + B))`` to them and their labels. The transductive labels of the
        unlabeled points are not used: they are ``sign(f)`` of the model itself, so a
        sigmoid fitted to them would only learn how far from 0 the values are (a step),
        not how often the sign is right. Without ``folds``, removes the sigmoid of an
        earlier fit.
        """
        if folds is None:
            self._set_sigmoid(None)
            return
        lab = np.flatnonzero(signs != 0)
        f = np.empty(lab.size)
        for _, test in folds:
            y = np.where(signs > 0, 1, np.where(signs < 0, 0, UNLABELED))
            y[lab[test]] = UNLABELED
            est = fold_estimator(self).fit(X, y)
            f[test] = est.decision_function(X[lab[test]])
        self._set_sigmoid(*platt_sigmoid(f, signs[lab] > 0))

    def _fit(self, params, X, classes, signs):
        """The method itself, on checked input; returns ``self``."""
        raise NotImplementedError

    def _backend(self, X, C, tol=None, max_iter=None):
        """The engine for this kernel: the linear dual solver with ``w`` kept for
        ``kernel="linear"`` on data whose Gram matrix outgrows ``cache_size`` (sparse data
        at any scale), else SMO on one kernel-row cache.
        ``max_iter`` caps each solve (None: :func:`default_max_iter`)."""
        return make_backend(self, X, C, self.tol if tol is None else tol, max_iter)

    def _start_labels(self, backend, signs, oracle):
        """The paper's start: an SVM (with offset, C1) on the labeled points; the unlabeled
        points are labeled by its decision values under the balance constraint. Returns the
        label vector and the decision values on all training points."""
        lab = np.flatnonzero(signs != 0)
        C = np.full(lab.size, float(self.C1))
        a, _, rho = backend.signed_solve(lab, signs[lab], C, np.zeros(lab.size))
        alpha = np.zeros(backend.n)
        alpha[lab] = a
        # K(alpha .* y) - rho; the signs given to unlabeled points do not matter (alpha = 0)
        f = backend.products(alpha, np.where(signs == 0, 1, signs)[:, None])[:, 0] - rho
        return oracle(f), f

    def score(self, X: MatrixLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> float:
        """Accuracy of :meth:`predict` on the labeled points of ``(X, y)`` (``y = -1`` marks
        a point without label, which is left out).

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            True labels; ``-1`` for points to leave out.
        sample_weight : array-like of shape (n_samples,), optional

        Returns
        -------
        float
        """
        check_is_fitted(self)
        labels = column_or_1d(y)
        keep = ~unlabeled_mask(labels, type(self).__name__)
        w = None if sample_weight is None else np.asarray(sample_weight)[keep]
        pred = self.predict(X)
        return float(accuracy_score(labels[keep], pred[keep], sample_weight=w))

    def _set_transduction(self, signs, f_train, classes):
        """``transduction_``: the given label on labeled points, ``sign(f)`` elsewhere."""
        s = np.where(signs != 0, signs, np.where(f_train > 0, 1, -1))
        self.transduction_ = np.asarray(classes)[(s > 0).astype(int)]
