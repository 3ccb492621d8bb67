"""mi-SVM and MI-SVM: the alternating heuristics of Andrews, Tsochantaridis and Hofmann (NIPS
2002), the baselines that WellSVM's convex relaxation replaces. Each step is an ordinary SVM
with offset on the engine (one kernel-row cache for the whole fit)."""

from __future__ import annotations

import warnings

import numpy as np
import scipy.sparse as sp

from .._kernels import compact_columns
from .._label_generation import warn_if_solves_capped
from .._solving import warn_not_converged
from .._validation import MAX_C, Real
from ..base import Fitted, fill_docstring, set_init_params
from ..registry import Case, register
from ._base import SHARED_DOC, MultiInstanceClassifier

#: the fitted attributes that mi-SVM and MI-SVM document alike
_FITTED = """key_instances_ : ndarray of int, shape (n_bags,)
        Per training bag, the position within the bag of its instance with the largest ``f``.
    dual_coef_, support_, support_vectors_, intercept_, shape_fit_
        The instance model, as for :class:`sklearn.svm.SVC`.
    n_iter_ : int
        SVMs trained.
    %(sigmoid)s"""

#: the parameters that mi-SVM and MI-SVM document alike
_KERNEL_AND_SOLVER = """kernel : {"rbf", "linear", "poly"}, default="rbf"
    gamma : "scale", "auto" or float, default="scale"
    degree : int, default=3
    coef0 : float, default=0.0
    max_iter : int, default=50
        Alternations at most.
    tol : float, default=1e-3
        KKT tolerance of the SVMs.
    cache_size : float, default=200
        Kernel-row cache in MB.
    %(probability)s"""


class _Alternating(MultiInstanceClassifier):
    """What mi-SVM and MI-SVM share: parameters, the SVM step and the fitted model."""

    _parameter_constraints: dict = {
        **MultiInstanceClassifier._parameter_constraints,
        "C": [Real(0.0, MAX_C, high_open=False)],
        "C_negative": [None, Real(0.0)],
    }

    def __init__(
        self,
        C: float = 1.0,
        *,
        C_negative: float | None = None,
        kernel: str = "rbf",
        gamma: str | float = "scale",
        degree: int = 3,
        coef0: float = 0.0,
        max_iter: int = 50,
        tol: float = 1e-3,
        cache_size: float = 200.0,
        probability: bool = False,
        random_state: int | np.random.RandomState | None = None,
    ) -> None:
        set_init_params(self, locals())

    def _box(self, params, y):
        """``C`` on positive variables, ``C_negative`` (default ``C``) on negative ones."""
        cn = params["C"] if params["C_negative"] is None else params["C_negative"]
        return np.where(y > 0, params["C"], cn).astype(np.float64)

    def _svm(self, backend, idx, y, params):
        """The SVM with offset on the points ``idx`` with labels ``y``; returns the
        expansion coefficients on every point, the offset, and ``f`` on every point (from
        the engine's cached rows of the support)."""
        a, _, rho = backend.signed_solve(idx, y, self._box(params, y), np.zeros(idx.size))
        coef = np.zeros(backend.n)
        coef[idx] = a * y
        signs = np.where(coef < 0, -1, 1).astype(np.int8)
        f = backend.products(np.abs(coef), signs[:, None])[:, 0] - rho
        return coef, -rho, f

    def _finish(self, X, coef, intercept, f, bag, n_bags, n_iter, converged, backend):
        self.set_expansion(X, coef, intercept)
        self.n_iter_ = n_iter
        self.key_instances_ = self._key_instances(f, bag, n_bags)
        if not converged and not backend.exhausted:
            warn_not_converged(type(self).__name__, limit=self.max_iter, used=n_iter)
        warn_if_solves_capped(backend, type(self).__name__)
        _warn_if_one_class(type(self).__name__, f, bag, n_bags)
        return self


def _warn_if_one_class(who: str, f, bag, n_bags: int) -> None:
    """Warn when the model puts every training bag (both classes are present) in one class.

    The alternation is a local search: each step lowers the MI-SVM objective (the witnesses
    are the minimisers of the bag hinge for the current ``f``, and the SVM then minimises over
    ``f`` for those witnesses), so no later iterate is worse than the first SVM on instances,
    but the start decides where it ends. From the centroid start of MI-SVM, with ``C`` small
    against the number of negative instances, every iterate can be the constant negative
    model: a bag accuracy of the share of negative bags, that the caller should hear about."""
    F = np.full(n_bags, -np.inf)
    np.maximum.at(F, bag, f)
    positive = int(np.sum(F > 0))
    if positive in (0, n_bags):
        side = "negative" if positive == 0 else "positive"
        warnings.warn(
            f"{who} classifies every training bag as {side} (f(x) {'<=' if positive == 0 else '>'}"
            " 0 on all of them): the alternation ended at a degenerate local solution. Try a "
            "larger C (or a smaller C_negative), another gamma, or MILWellSVM, whose convex "
            "relaxation does not depend on a start",
            UserWarning,
            stacklevel=6,  # the caller of fit, past _finish, _fit, fit and its wrapper
        )


@register(
    family="mil",
    command="misvm-instance",
    aliases=("mi-svm",),
    summary="mi-SVM (Andrews et al.), instance-level alternation",
)
class miSVM(_Alternating):  # noqa: N801 - the method's published name
    r"""mi-SVM: instance labels and an SVM by alternation (Andrews et al. 2003).

    Every instance gets a label: those of negative bags are negative, those of positive bags
    unknown, with at least one positive per positive bag. mi-SVM alternates an SVM with offset
    on all instances under the current labels (``C`` on positive, ``C_negative`` on negative
    instances) and the labels :math:`y_{ij} = \operatorname{sign} f(x_{ij})` in positive
    bags, the largest ``f`` of a bag forced positive when none is; it starts from the bag
    labels and stops when the labels no longer change. A heuristic for the mixed-integer
    problem: the result depends on the start and may be a poor local solution.

    Parameters
    ----------
    C : float, default=1.0
        Weight of the hinge loss on positive instances (on all, if ``C_negative`` is None).
    C_negative : float or None, default=None
        Weight on negative instances; None uses ``C``.
    %(kernel_and_solver)s

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    instance_labels_ : ndarray of int8, shape (n_instances,)
        The final +-1 labels of the training instances.
    %(fitted)s

    See Also
    --------
    MISVM : One witness per positive bag instead of instance labels.
    MILWellSVM : The convex relaxation.

    %(references)s

    Examples
    --------
    >>> import numpy as np
    >>> from unlabeled.mil import miSVM
    >>> rng = np.random.default_rng(0)
    >>> bags = [rng.normal(0, 1, (5, 2)) for _ in range(20)]
    >>> for b in bags[:10]:
    ...     b[0] += 4  # one key instance per positive bag
    >>> y = np.repeat([1, 0], 10)
    >>> clf = miSVM(C=10.0).fit(bags, y)
    >>> clf.score(bags, y) > 0.9
    True
    """

    _fitted_attributes: dict = {"instance_labels_": Fitted("i", ("n_train",), low=-1, high=1)}

    def _fit(self, params, X, bag, signs):
        backend = self._backend(X)
        n, n_bags = X.shape[0], signs.size
        y = signs[bag].copy()
        in_pos = np.flatnonzero(signs[bag] > 0)
        idx = np.arange(n)
        converged = False
        for it in range(1, params["max_iter"] + 1):  # noqa: B007 - it is n_iter_
            coef, b, f = self._svm(backend, idx, y, params)
            if backend.exhausted:  # the solves' work cap: warned by _finish
                break
            new = y.copy()
            new[in_pos] = np.where(f[in_pos] > 0, 1, -1)
            best = np.full(n_bags, -np.inf)
            np.maximum.at(best, bag, f)
            empty = (signs > 0) & (best <= 0)  # positive bags left without a positive
            first = self._key_instances(f, bag, n_bags)
            for i in np.flatnonzero(empty):
                new[np.flatnonzero(bag == i)[first[i]]] = 1
            if np.array_equal(new, y):
                converged = True
                break
            y = new
        self.instance_labels_ = y
        return self._finish(X, coef, b, f, bag, n_bags, it, converged, backend)


@register(
    family="mil",
    command="misvm-bag",
    aliases=("misvm",),
    summary="MI-SVM (Andrews et al.), bag-level alternation",
    cases=(Case(), Case({"probability": True, "random_state": 0}, name="proba")),
)
class MISVM(_Alternating):
    r"""MI-SVM: one witness per positive bag and an SVM by alternation (Andrews et al. 2003).

    The bag margin is the margin of its most positive instance. MI-SVM alternates an SVM with
    offset on one witness per positive bag (label +1, weight ``C``) and every instance of the
    negative bags (label -1, weight ``C_negative``), and the witnesses: the instance of each
    positive bag with the largest ``f``. It starts from an SVM with the bag centroids as
    witnesses, then alternates at most ``max_iter`` times (so the model kept is always an SVM
    on training instances) and stops when the witnesses no longer change. The same problem as
    WellSVM's (with one slack per negative instance), solved by a heuristic that may stop at a
    poor local solution.

    **Degenerate solutions.** No step raises the MI-SVM objective (the witnesses minimise the
    bag hinge for the current ``f``, the SVM then minimises over ``f`` for them), so the
    result is never worse by that objective than the first SVM on instances; but the start
    decides where it ends. With a wide kernel and ``C`` small against the number of negative
    instances, the centroid start can be the constant negative model and so can every later
    iterate (the easy problem of issue 35 in one fold: bag accuracy 0.5). The fit then warns
    (``UserWarning``) that every training bag is in one class, and what to try: a larger
    ``C``, another ``gamma``, or :class:`MILWellSVM`. ``miSVM`` warns alike.

    Parameters
    ----------
    C : float, default=1.0
        Weight of the hinge loss of each positive bag (its witness).
    C_negative : float or None, default=None
        Weight on each instance of the negative bags; None uses ``C``.
    %(kernel_and_solver)s

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    witnesses_ : ndarray of int, shape (n_positive_bags,)
        The witness of each positive bag (a row of the stacked training instances), in bag
        order.
    %(fitted)s

    See Also
    --------
    miSVM : Instance labels instead of witnesses.
    MILWellSVM : The convex relaxation of the same problem.

    %(references)s

    Examples
    --------
    >>> import numpy as np
    >>> from unlabeled.mil import MISVM
    >>> X = np.random.default_rng(0).normal(0, 1, (100, 2))  # 20 bags of 5, bag by bag
    >>> X[:50:5] += 4  # one key instance in each of the first 10 (positive) bags
    >>> groups = np.repeat(np.arange(20), 5)
    >>> y = np.repeat([1, 0], 10)
    >>> clf = MISVM(C=10.0).fit(X, y, groups=groups)
    >>> clf.score(X, y, groups=groups) > 0.9
    True
    """

    _fitted_attributes: dict = {"witnesses_": Fitted("i", (None,), low=0, below="n_train")}

    def _fit(self, params, X, bag, signs):
        n, n_bags = X.shape[0], signs.size
        pos_bags = np.flatnonzero(signs > 0)
        negatives = np.flatnonzero(signs[bag] < 0)
        in_pos = np.flatnonzero(signs[bag] > 0)
        # the centroids of the positive bags are extra points after the instances
        M = sp.csr_matrix(
            (np.ones(in_pos.size), (np.searchsorted(pos_bags, bag[in_pos]), in_pos)),
            shape=(pos_bags.size, n),
        )
        M = sp.diags(1.0 / np.asarray(M.sum(axis=1)).ravel()) @ M
        centroids = _sparse_product(M, X)
        Xa = (
            sp.vstack([X, centroids], format="csr")
            if sp.issparse(X)
            else np.vstack([X, np.asarray(centroids)])
        )
        backend = self._backend(Xa)
        witness = n + np.arange(pos_bags.size)
        y = np.r_[np.ones(pos_bags.size), -np.ones(negatives.size)].astype(np.int8)
        members = [np.flatnonzero(bag == i) for i in pos_bags]
        # the start: the SVM on the centroids; then max_iter alternations, each choosing the
        # witnesses from the last f and solving the SVM on them, so that the model kept is
        # always an SVM on instances (support_ indexes the training instances) even when the
        # cap stops the loop before the witnesses settle
        coef, b, f = self._svm(backend, np.r_[witness, negatives], y, params)
        converged, n_svm = False, 1
        for _ in range(params["max_iter"]):
            first = self._key_instances(f[:n], bag, n_bags)
            new = np.array([m[first[i]] for m, i in zip(members, pos_bags, strict=True)])
            if np.array_equal(new, witness):
                converged = True
                break
            witness = new
            coef, b, f = self._svm(backend, np.r_[witness, negatives], y, params)
            n_svm += 1
            if backend.exhausted:  # the solves' work cap (after a solve on instances)
                break
        self.witnesses_ = witness
        self._finish(X, coef[:n], b, f[:n], bag, n_bags, n_svm, converged, backend)
        return self


def _sparse_product(M, X):
    """``M @ X``, for sparse ``X`` on the columns that hold an entry only: scipy's product of
    two sparse matrices allocates one index per column of ``X`` (``std::bad_alloc`` for 2^30
    columns). Renumbering the used columns in order keeps every sum's terms and their order."""
    if not sp.issparse(X):
        return M @ X
    (Xu,), used = compact_columns(X)
    P = sp.csr_matrix(M @ Xu)
    return sp.csr_matrix((P.data, used[P.indices], P.indptr), shape=(M.shape[0], X.shape[1]))


for _cls in _Alternating.__subclasses__():  # the shared docstring parts
    fill_docstring(_cls, {"kernel_and_solver": _KERNEL_AND_SOLVER, "fitted": _FITTED, **SHARED_DOC})
