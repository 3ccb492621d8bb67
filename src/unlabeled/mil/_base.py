"""What the multi-instance learners share: bags in either of the two conventions users know (a
list of 2-D arrays, or the instances with a bag id per row), bag labels, and a kernel model on
the instances whose bag value is the largest instance value.

A bag is positive when at least one of its instances is: with an instance model ``f``, the bag
``B`` gets ``F(B) = max_{x in B} f(x)`` and the class ``classes_[1]`` when ``F(B) > 0``.

Cross-validation in the instance layout: scikit-learn's ``cross_val_score(est, X, y,
groups=ids)`` gives ``groups`` to the splitter only, so ``fit`` and ``score`` would see bare
instances (one-instance bags: an ordinary SVM). The estimators request ``groups`` for ``fit``
and ``score`` by default, so that with metadata routing on (``sklearn.set_config(
enable_metadata_routing=True)``) ``params={"groups": ids}`` reaches the splitter, ``fit`` and
``score`` alike; ``fit`` warns on a 2-D ``X`` without ``groups``, and ``score`` refuses one
when the model was fitted on bags of several instances.

With ``probability=True`` the bag values are mapped to probabilities by Platt's sigmoid fitted
on held-out bag values (:meth:`MultiInstanceClassifier._calibrate`): an internal
cross-validation over whole bags, as ``SVC(probability=True)`` over points.
"""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Sequence
from typing import TypeAlias

import numpy as np
import scipy.sparse as sp
from scipy.special import expit, log_expit
from sklearn.metrics import accuracy_score
from sklearn.utils.validation import check_is_fitted, column_or_1d

from .._calibration import (
    IfProbability,
    ProbabilisticMixin,
    calibration_folds,
    fold_estimator,
    platt_sigmoid,
)
from .._label_generation import KernelBackend
from .._solving import cache_bytes, engine_kernel
from .._validation import (
    MAX_CACHE_MB,
    RANDOM_STATE,
    ArrayLike,
    Boolean,
    Integer,
    MatrixLike,
    Options,
    Real,
    check_binary_targets,
    reads_as_number,
)
from ..base import Fitted, KernelClassifier, KernelMachine

MIL_KERNELS = ("linear", "poly", "rbf")

#: how to give the bags to scikit-learn's cross-validation, named in the warning and the error
ROUTING_HINT = (
    "under cross_val_score / GridSearchCV, whose groups= argument reaches only the splitter, "
    "turn on metadata routing so that the bag ids reach fit and score too: "
    "sklearn.set_config(enable_metadata_routing=True), then cross_val_score(est, X, y, "
    'cv=GroupKFold(k), params={"groups": ids}) (the estimator requests groups by default), '
    "or give the bags as a list of 2-D arrays with one label per bag"
)

#: the parameters ``probability`` and ``random_state`` and the fitted sigmoid, as the three
#: classes document them (``%(probability)s`` and ``%(sigmoid)s`` in their docstrings)
PROBABILITY_DOC = r"""probability : bool, default=False
        Enable :meth:`predict_proba` and :meth:`predict_log_proba` per bag, as
        :class:`sklearn.svm.SVC` does per point: Platt's sigmoid of the bag value
        :math:`F(B) = \max_{x \in B} f(x)`,

        .. math::

            P(\text{classes\_}[1] \mid B) = \frac{1}{1 + \exp(A\,F(B) + B_0)},
            \qquad A \le 0,

        fitted (maximum likelihood with Platt's regularised targets, the Newton method of Lin,
        Lin and Weng) on *held-out* bag values: an internal cross-validation over the bags,
        5 folds stratified by bag label (fewer when a class has fewer than 5 bags; at least
        2 bags of each class are needed), which never splits a bag, each fold refitting the
        method on the other folds' bags. The model kept is the fit on all the bags, whose
        ``decision_function`` and ``predict`` are the same either way. Off by default
        because it costs 5 more fits. As for ``SVC``, the class of the larger probability may
        differ from ``predict``'s: the sigmoid's midpoint need not be at :math:`F(B) = 0`
        (``MILWellSVM`` has no offset).
    random_state : int, RandomState instance or None, default=None
        Draws the folds of ``probability=True``; nothing else is random."""

_SIGMOID_DOC = """probA_, probB_ : ndarray of shape (1,)
        ``A`` and ``B_0`` of the sigmoid of ``predict_proba``; ``probability=True`` only."""

#: the references of the three classes (``%(andrews_and_platt)s``; ``%(references)s``: the
#: section of those two): the bag problem, then the sigmoid of ``probability=True``
_REFERENCES = """\
S. Andrews, I. Tsochantaridis, T. Hofmann. Support vector machines for multiple-instance
    learning. NIPS 15, 2003.
    J. Platt. Probabilistic outputs for support vector machines and comparisons to
    regularized likelihood methods. Advances in Large Margin Classifiers, 1999.
    H.-T. Lin, C.-J. Lin, R. C. Weng. A note on Platt's probabilistic outputs for support
    vector machines. Machine Learning 68, 2007."""


#: the shared parameter, attribute and reference text (``fill_docstring(cls, SHARED_DOC)``)
SHARED_DOC = {
    "probability": PROBABILITY_DOC,
    "sigmoid": _SIGMOID_DOC,
    "references": "References\n    ----------\n    %(andrews_and_platt)s",
    "andrews_and_platt": _REFERENCES,
}


#: bags: a sequence (or 3-D array) of 2-D arrays, one per bag, or a matrix of instances
BagsLike: TypeAlias = "MatrixLike | Sequence[MatrixLike]"


def as_instances(
    X: BagsLike, groups: ArrayLike | None = None, *, name: str = "X"
) -> tuple[MatrixLike, np.ndarray, int]:
    """The instances of ``X`` stacked, and the bag of each.

    Parameters
    ----------
    X : list of array-like of shape (n_instances_i, n_features), or array-like of shape
        (n_instances, n_features), or ndarray of shape (n_bags, n_instances, n_features)
        A list (or tuple, or 3-D array) of 2-D arrays holds one per bag (a list of 1-D rows
        is a 2-D array of instances, as in scikit-learn). A 2-D array holds
        instances: their bags are given by ``groups``; without ``groups`` every row is a
        one-instance bag (an ordinary data matrix).
    groups : array-like of shape (n_instances,), optional
        The bag id of each row of a 2-D ``X``. Bags are ordered as :func:`numpy.unique`
        sorts the ids.

    Returns
    -------
    X : ndarray or sparse matrix of shape (n_instances, n_features)
        Not yet checked for type and finiteness (the estimator's ``validate_data`` does it).
    bag : ndarray of int64, shape (n_instances,)
        The bag index (0 .. n_bags - 1) of every instance.
    n_bags : int

    Examples
    --------
    A list of bags, or a matrix of instances with the bag id of each row:

    >>> import numpy as np
    >>> from unlabeled.mil import as_instances
    >>> X, bag, n_bags = as_instances([np.zeros((2, 3)), np.ones((3, 3))])
    >>> X.shape, bag.tolist(), n_bags
    ((5, 3), [0, 0, 1, 1, 1], 2)
    >>> _, bag, n_bags = as_instances(np.eye(3), groups=["b", "a", "b"])
    >>> bag.tolist(), n_bags
    ([1, 0, 1], 2)
    """
    if is_bags(X):
        if groups is not None:
            raise ValueError(
                "groups must be None when X is a list of bags (each bag is its own 2-D array); "
                "give groups only with a 2-D array of instances"
            )
        return _stack_bags(list(X), name)
    if isinstance(X, (list, tuple)) and len(X) == 0:
        raise ValueError(f"{name} is an empty list of bags: give at least one bag")
    if not hasattr(X, "shape") and not isinstance(X, (list, tuple)):
        X = np.asarray(X)  # an array-like (__array__) without a shape
    if isinstance(X, np.ndarray) and X.dtype.kind in "SU":  # the rest: validate_data's
        X = _numeric(X, name, f"{name} holds numbers (the instances' features)")
    n = X.shape[0] if hasattr(X, "shape") else len(X)
    if groups is None:
        return X, np.arange(n, dtype=np.int64), n
    ids = _bag_ids(groups)
    if ids.shape[0] != n:
        raise ValueError(
            f"groups must hold one bag id per row of {name}: {name} has {n} rows, groups "
            f"{ids.shape[0]} entries"
        )
    _, bag = np.unique(ids, return_inverse=True)
    return X, bag.astype(np.int64), int(bag.max()) + 1 if n else 0


def _bag_ids(groups) -> np.ndarray:
    """``groups`` as a 1-d array of bag ids: integers, finite floats, strings or bytes, one
    kind for all (a mix, None, NaN, a list or a set as an id would be sorted by NumPy's
    comparison of objects, which raised a raw TypeError or, for sets, silently merged bags)."""
    try:
        ids = column_or_1d(groups)
    except (ValueError, TypeError) as exc:
        raise ValueError(
            f"groups must be a 1-d array of bag ids (integers or strings), one per row: {exc}"
        ) from None
    if ids.dtype.kind == "f" and not np.all(np.isfinite(ids)):
        row = int(np.flatnonzero(~np.isfinite(ids))[0])
        raise ValueError(
            f"groups holds {ids[row]!r} at row {row}: bag ids must be finite (integers or "
            "strings); give every row the id of its bag"
        )
    if ids.dtype.kind == "O":
        kinds = set()
        for row, v in enumerate(ids):
            if isinstance(v, (bool, np.bool_)) or not isinstance(v, (numbers.Integral, str, bytes)):
                raise ValueError(
                    f"groups holds {v!r} ({type(v).__name__}) at row {row}: bag ids must be "
                    "integers or strings, one per row"
                )
            kinds.add(isinstance(v, numbers.Integral) or (type(v).__name__))
        if len(kinds) > 1:
            raise ValueError("groups mixes integer and string bag ids: give bag ids of one kind")
    return ids


def _numeric_bag(b, i: int, name: str):
    """Bag ``i`` of ``name`` as an array of numbers (a sparse bag as it is), or a ValueError
    naming the bag: strings, None, complex numbers or rows of different lengths were raw
    NumPy errors ("could not convert string to float", "inhomogeneous shape")."""
    if sp.issparse(b):
        a = b
    else:
        try:
            a = np.asarray(b)
        except ValueError:
            raise ValueError(
                f"bag {i} of {name} is not a 2-D array: its rows have different lengths "
                f"({_ragged_rows(b)}); give every instance the same features"
            ) from None
    return _numeric(a, f"bag {i} of {name}", "bags hold numbers (features)")


def _ragged_rows(b) -> str:
    """Where the rows of a ragged bag first differ: "row 0 has shape (2,), row 1 (1,)"."""
    shapes = [_shape(r) for r in b]
    j = next((k for k, sh in enumerate(shapes) if sh != shapes[0]), 0)
    return f"row 0 has shape {shapes[0]}, row {j} {shapes[j]}"


def _shape(r):
    try:
        return np.shape(r)
    except ValueError:  # itself ragged
        return "ragged"


def _numeric(a, what: str, rule: str):
    """``a`` (an array or sparse matrix) when it holds real numbers; an object array of real
    numbers as float64; else a ValueError naming ``what`` and the first value that is not a
    number."""
    kind = a.dtype.kind
    if kind in "biuf":
        return a
    if kind == "c":
        raise ValueError(
            f"{what} holds complex numbers (Complex data not supported): {rule}, give real features"
        )
    flat = a.data if sp.issparse(a) else a.ravel()
    if kind == "O":
        wrong = [i for i, v in enumerate(flat) if not isinstance(v, numbers.Real)]
        if not wrong:
            return a.astype(np.float64)
        bad = flat[wrong[0]]
    else:  # strings, bytes, dates: the first that does not read as a number
        bad = next((v for v in flat.tolist() if not reads_as_number(v)), flat[:1].tolist())
    raise ValueError(
        f"{what} holds {bad!r} ({type(bad).__name__}): {rule}; encode categories as numbers "
        "and impute missing values first"
    )


def _stack_bags(bags, name):
    if len(bags) == 0:
        raise ValueError(f"{name} is an empty list of bags: give at least one bag")
    arrays, sizes = [], []
    for i, b in enumerate(bags):
        a = _numeric_bag(b, i, name)
        if a.ndim != 2:
            raise ValueError(
                f"bag {i} of {name} must be a 2-D array (n_instances, n_features), got "
                f"{a.ndim} dimension(s); write a one-instance bag as x.reshape(1, -1)"
            )
        if a.shape[0] == 0:
            raise ValueError(
                f"bag {i} of {name} is empty: every bag needs at least one instance (drop it)"
            )
        if a.shape[1] != arrays[0].shape[1] if arrays else False:
            raise ValueError(
                f"bag {i} of {name} has {a.shape[1]} features but bag 0 has "
                f"{arrays[0].shape[1]}: all instances must have the same features"
            )
        arrays.append(a)
        sizes.append(a.shape[0])
    sizes = np.asarray(sizes)
    stacked = (
        sp.vstack(arrays, format="csr")
        if any(map(sp.issparse, arrays))
        else (np.concatenate([np.asarray(a) for a in arrays], axis=0))
    )
    return stacked, np.repeat(np.arange(len(arrays), dtype=np.int64), sizes), len(arrays)


def bag_labels(y, bag, n_bags: int) -> np.ndarray:
    """One label per bag from ``y`` given per bag (in bag order) or per instance (the bag's
    label repeated on each of its instances: it must be the same on all of them)."""
    y = column_or_1d(y, warn=True)
    n = bag.shape[0]
    if y.shape[0] == n:
        first = np.full(n_bags, -1)
        first[bag[::-1]] = np.arange(n)[::-1]
        per_bag = y[first]
        differ = np.flatnonzero(y != per_bag[bag])
        if differ.size:
            b = bag[differ[0]]
            raise ValueError(
                f"y must be the same on all instances of a bag (a bag's label): bag {b} holds "
                f"{per_bag[b]!r} and {y[differ[0]]!r}; give one label per bag"
            )
        return per_bag
    if y.shape[0] == n_bags:
        return y
    raise ValueError(
        f"y must hold one label per bag ({n_bags}) or per instance ({n}), got {y.shape[0]}"
    )


def _plain(value):
    """A NumPy scalar as the Python value it holds (``1``, not ``np.int64(1)``, in messages)."""
    return value.item() if isinstance(value, np.generic) else value


def is_bags(X) -> bool:
    """Whether ``X`` holds one 2-D array per bag (a list, tuple or 3-D array of them)."""
    if isinstance(X, np.ndarray) and X.ndim == 3:
        return True
    return isinstance(X, (list, tuple)) and any(sp.issparse(b) or _ndim(b) == 2 for b in X)


def _ndim(b) -> int:
    """``np.ndim(b)``, and 2 for a list whose rows have different lengths (NumPy refuses it
    with "inhomogeneous shape"): a ragged bag, refused by name with its rows' shapes."""
    try:
        return np.ndim(b)
    except ValueError:
        return 2


def _instance_layout_without_groups(X, groups) -> bool:
    """Whether ``X`` is a matrix of instances given without bag ids (one bag per row)."""
    return groups is None and not is_bags(X)


def bag_targets(y, bag, n_bags: int, who: str):
    """The classes and the +-1 label of every bag.

    ``y`` holds one label per bag (in bag order) or one per instance; in the second case it
    must be the same on all instances of a bag. ``classes[1]`` (the larger label, as
    :func:`numpy.unique` sorts) is the positive class: a bag of it holds at least one positive
    instance, a bag of ``classes[0]`` none."""
    per_bag = bag_labels(y, bag, n_bags)
    if per_bag.dtype.kind == "f" and not np.all(np.isfinite(per_bag)):
        raise ValueError("y contains NaN or infinity: give one finite label per bag")
    classes = np.unique(per_bag)
    if classes.size == 1:
        raise ValueError(
            f"y holds one class ({classes[0]!r}): {who} needs at least one positive and one "
            "negative bag (two classes)"
        )
    classes, signs = check_binary_targets(per_bag, who)
    return classes, signs


class MultiInstanceClassifier(ProbabilisticMixin, KernelClassifier):
    """Base of the multi-instance SVMs: the bags, the labels, the bag model ``max f``, and
    its probabilities with ``probability=True``.

    A subclass supplies ``_fit(params, X, bag, signs)`` on the checked stacked instances
    ``X``, the bag of each instance and the +-1 label of each bag, and calls
    :meth:`set_expansion` for the instance model.

    ``groups`` is requested for ``fit``, ``score`` and the bag predictions by default
    (scikit-learn's metadata routing, as its group splitters request it for ``split``): it is
    part of the data, not an option, in the instance layout, so that a :class:`Pipeline
    <sklearn.pipeline.Pipeline>` ending in a multi-instance classifier routes it there."""

    __metadata_request__fit = {"groups": True}
    __metadata_request__score = {"groups": True}
    __metadata_request__predict = {"groups": True}
    __metadata_request__decision_function = {"groups": True}
    __metadata_request__predict_proba = {"groups": True}
    __metadata_request__predict_log_proba = {"groups": True}

    _dask_unsupported = (
        "it takes bags (a list of 2-D arrays, or X with groups), each predicted whole: pass "
        "the bags in memory (X.compute())"
    )

    _parameter_constraints: dict = {
        **KernelMachine._parameter_constraints,
        "kernel": [Options(MIL_KERNELS)],
        "tol": [Real(0.0)],
        "cache_size": [Real(0.0, MAX_CACHE_MB, high_open=False)],
        "max_iter": [Integer(1)],
        "probability": [Boolean()],
        "random_state": RANDOM_STATE,
    }

    # the instance model of KernelMachine, and per bag the position of its key instance
    _fitted_attributes: dict = {
        "n_bags_fit_": Fitted("int", low=1),
        "key_instances_": Fitted("i", ("n_bags_fit_",), low=0, below="n_train"),
    }

    def fit(
        self, X: BagsLike, y: ArrayLike, groups: ArrayLike | None = None
    ) -> MultiInstanceClassifier:
        """Fit on bags ``X`` with bag labels ``y``.

        Parameters
        ----------
        X : list of array-like of shape (n_instances_i, n_features), or array-like of shape
            (n_instances, n_features)
            One 2-D array per bag, or the instances with their bag ids in ``groups``. A 2-D
            ``X`` without ``groups`` makes every row its own bag (an ordinary SVM on the
            instances, as scikit-learn's estimator checks use it) and warns: pass
            ``groups=np.arange(len(X))`` for one-instance bags on purpose.
        y : array-like of shape (n_bags,) or (n_instances,)
            Two classes; ``classes_[1]`` marks the positive bags (at least one positive
            instance). Either one label per bag (bags in the order of ``X``, or of the sorted
            ids with ``groups``) or, in the instance layout, one per instance: the bag's
            label repeated on each of its instances (it must be constant within each bag).
            The second is what scikit-learn's cross-validation splits with ``X``. With
            ``probability=True``, at least 2 bags of each class.
        groups : array-like of shape (n_instances,), optional
            Bag id of each row of a 2-D ``X``. Under ``cross_val_score`` or
            ``GridSearchCV`` its ``groups=`` argument reaches only the splitter: turn on
            metadata routing (``sklearn.set_config(enable_metadata_routing=True)``) and
            pass ``params={"groups": ids}``; ``groups`` is requested by default.

        Returns
        -------
        self

        Warns
        -----
        UserWarning
            When ``X`` is 2-D and ``groups`` is None (each row its own bag).
        """
        params = self._validate_params()
        one_per_row = _instance_layout_without_groups(X, groups)
        X, bag, n_bags = as_instances(X, groups)
        X = self._validate_X(X)
        classes, signs = bag_targets(y, bag, n_bags, type(self).__name__)
        folds = None
        if params["probability"]:  # refused here, before any work, when a class is too small
            names = tuple(f"bags of class {_plain(c)!r}" for c in classes)
            folds = calibration_folds(signs, names, self.random_state)
        if one_per_row:
            warnings.warn(
                f"{type(self).__name__}.fit got a 2-D X without groups: every row is its own "
                "bag, which makes it an ordinary SVM on the instances. Pass groups= (the bag "
                f"id of each row); {ROUTING_HINT}. For one-instance bags on purpose, pass "
                "groups=np.arange(len(X))",
                UserWarning,
                stacklevel=3,  # past the transactional wrapper: the caller of fit
            )
        self.classes_ = classes
        self.n_bags_fit_ = n_bags
        self._fit(params, X, bag, signs)
        self._calibrate(X, bag, signs, folds)
        return self

    def _fit(self, params, X, bag, signs):
        raise NotImplementedError

    def _calibrate(self, X, bag, signs, folds) -> None:
        r"""With ``folds`` (of the bags; ``probability=True``): Platt's sigmoid on held-out bag
        values. Each fold refits the method (same parameters, the kernel width resolved on all
        the instances) on the instances of the other folds' bags, with their bag ids, and
        records the bag values :math:`F(B) = \max_{x \in B} f(x)` of its own bags. The
        folds are drawn over bags, not instances: a bag is never split between training and
        held-out parts, whose values would otherwise share its key instance. Without
        ``folds``, removes the sigmoid of an earlier fit."""
        if folds is None:
            self._set_sigmoid(None)
            return
        labels = self.classes_[(signs > 0).astype(int)]
        F = np.empty(signs.size)
        for train, test in folds:
            train, test = np.sort(train), np.sort(test)  # the bag order of groups= below
            rows = np.isin(bag, train)
            est = fold_estimator(self).fit(X[rows], labels[train], groups=bag[rows])
            rows = np.isin(bag, test)
            F[test] = est.decision_function(X[rows], groups=bag[rows])
        self._set_sigmoid(*platt_sigmoid(F, signs > 0))

    def _backend(self, X, tol=None, max_iter=-1):
        """The engine's SMO solver on one kernel-row cache over the rows of ``X``."""
        tol = self.tol if tol is None else tol
        C = np.ones(X.shape[0])  # the box is given to every solve
        return KernelBackend(X, engine_kernel(self), C, cache_bytes(self.cache_size), tol, max_iter)

    # ------------------------------------------------------------------ prediction
    def instance_decision_function(
        self, X: BagsLike, groups: ArrayLike | None = None
    ) -> np.ndarray:
        r"""The instance model :math:`f(x)` on every instance of the bags ``X``.

        Parameters
        ----------
        X, groups
            Bags as for :meth:`fit`.

        Returns
        -------
        ndarray of shape (n_instances,)
            In the order of the stacked instances (bag by bag for a list).

        See Also
        --------
        predict_instances : The class of each instance.
        decision_function : The bag values ``max f``.
        """
        check_is_fitted(self)
        X, _, _ = as_instances(X, groups)
        return KernelMachine.decision_function(self, X)

    def predict_instances(self, X: BagsLike, groups: ArrayLike | None = None) -> np.ndarray:
        """The class of every instance, shape (n_instances,): ``classes_[1]`` where
        ``f(x) > 0``, the key instances (regions of interest) of positive bags. ``X`` and
        ``groups`` are bags as for :meth:`fit`."""
        return self._classes_of(self.instance_decision_function(X, groups))

    def _check_bags_given(self, X, groups, method):
        """Refuse a 2-D ``X`` without ``groups`` (one bag per row) when the model was fitted on
        bags of several instances: its bag values would silently be instance values."""
        if _instance_layout_without_groups(X, groups) and self.n_bags_fit_ < self.shape_fit_[0]:
            raise ValueError(
                f"{type(self).__name__}.{method} got a 2-D X without groups, which would take "
                "every row as its own bag (instance values, not bag values), but the model "
                f"was fitted on bags of several instances ({self.n_bags_fit_} bags, "
                f"{self.shape_fit_[0]} instances). Pass groups= (the bag id of each row), a "
                "list of 2-D bags (one bag: [X]), or call instance_decision_function / "
                f"predict_instances for instance values; {ROUTING_HINT}"
            )

    def _classes_of(self, values):
        return self.classes_[(values > 0).astype(int)]

    def decision_function(self, X: BagsLike, groups: ArrayLike | None = None) -> np.ndarray:
        r"""The bag values :math:`F(B) = \max_{x \in B} f(x)`.

        Parameters
        ----------
        X : list of array-like or array-like
            Bags as for :meth:`fit` (a 2-D array without ``groups``: one bag per row, refused
            when the model was fitted on bags of several instances).
        groups : array-like of shape (n_instances,), optional
            Bag id of each row of a 2-D ``X``.

        Returns
        -------
        ndarray of shape (n_bags,)
            Positive for bags of ``classes_[1]``; bags in the order of ``X`` (of the sorted
            ids with ``groups``).

        See Also
        --------
        predict : The class of each bag.
        instance_decision_function : ``f`` on each instance.
        """
        check_is_fitted(self)
        self._check_bags_given(X, groups, "decision_function")
        X, bag, n_bags = as_instances(X, groups)
        f = KernelMachine.decision_function(self, X)
        out = np.full(n_bags, -np.inf)
        np.maximum.at(out, bag, f)
        return out

    def predict(self, X: BagsLike, groups: ArrayLike | None = None) -> np.ndarray:
        """The class of each bag, shape (n_bags,): ``classes_[1]`` when some instance has
        ``f(x) > 0``. ``X`` and ``groups`` are bags as for :meth:`decision_function`."""
        check_is_fitted(self)
        self._check_bags_given(X, groups, "predict")
        return self._classes_of(self.decision_function(X, groups))

    @IfProbability
    def predict_proba(self, X: BagsLike, groups: ArrayLike | None = None) -> np.ndarray:
        r"""Bag class probabilities ``[P(classes_[0] | B), P(classes_[1] | B)]``
        (``probability=True``).

        Platt's sigmoid of the bag value :math:`F(B) = \max_{x \in B} f(x)`, fitted on
        held-out bags at ``fit``: :math:`P(\text{classes\_}[1] \mid B) = 1 / (1 +
        \exp(A F(B) + B_0))` with ``A = probA_[0] <= 0`` and ``B_0 = probB_[0]``,
        non-decreasing in :meth:`decision_function`.

        Parameters
        ----------
        X : list of array-like or array-like
            Bags as for :meth:`decision_function`.
        groups : array-like of shape (n_instances,), optional
            Bag id of each row of a 2-D ``X``.

        Returns
        -------
        ndarray of shape (n_bags, 2)
            Columns in the order of ``classes_``; rows sum to 1; bags in the order of ``X``
            (of the sorted ids with ``groups``).
        """
        z = self._bag_logit(X, groups, "predict_proba")
        return np.c_[expit(-z), expit(z)]

    @IfProbability
    def predict_log_proba(self, X: BagsLike, groups: ArrayLike | None = None) -> np.ndarray:
        """The logarithm of :meth:`predict_proba`, computed without underflow.

        Parameters
        ----------
        X, groups
            Bags as for :meth:`predict_proba`.

        Returns
        -------
        ndarray of shape (n_bags, 2)
        """
        z = self._bag_logit(X, groups, "predict_log_proba")
        return np.c_[log_expit(-z), log_expit(z)]

    def _bag_logit(self, X, groups, method):
        """The logit of ``P(classes_[1] | B)`` per bag, after the checks (naming ``method``)."""
        check_is_fitted(self)
        self._check_bags_given(X, groups, method)
        return self._logit(X, groups=groups)

    def score(
        self,
        X: BagsLike,
        y: ArrayLike,
        groups: ArrayLike | None = None,
        sample_weight: ArrayLike | None = None,
    ) -> float:
        """Bag accuracy of :meth:`predict`.

        Parameters
        ----------
        X, groups
            Bags as for :meth:`fit`. A 2-D ``X`` without ``groups`` (one bag per row) is
            refused when the model was fitted on bags of several instances: it would score
            instances, not bags.
        y : array-like of shape (n_bags,) or (n_instances,)
            True bag labels: one per bag, or one per instance (the bag's label repeated,
            constant within each bag).
        sample_weight : array-like of shape (n_bags,), optional

        Returns
        -------
        float
        """
        check_is_fitted(self)
        self._check_bags_given(X, groups, "score")
        _, bag, n_bags = as_instances(X, groups)
        labels = bag_labels(y, bag, n_bags)
        return float(accuracy_score(labels, self.predict(X, groups), sample_weight=sample_weight))

    def _key_instances(self, f, bag, n_bags):
        """Per bag, the position within the bag of its instance with the largest ``f``."""
        order = np.lexsort((-f, bag))  # by bag, then by decreasing f
        first = np.r_[0, np.flatnonzero(np.diff(bag[order])) + 1]
        start = np.searchsorted(np.sort(bag), np.arange(n_bags))
        pos = np.empty(bag.shape[0], dtype=np.int64)
        pos[np.argsort(bag, kind="stable")] = np.arange(bag.shape[0]) - np.repeat(
            start, np.bincount(bag, minlength=n_bags)
        )
        return pos[order[first]]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = False
        return tags
