"""The supervised baseline of the semi-supervised SVMs: an SVM on the labeled points only."""

from __future__ import annotations

import numpy as np

from .._label_generation import warn_if_solves_capped
from .._solving import StepProgress
from .._validation import VERBOSE
from ..base import set_init_params
from ..registry import Case, register
from ._base import SemiSupervisedSVM


@register(
    family="ssl",
    command="labeledsvm",
    summary="SVM on the labeled rows only (a baseline)",
    cases=(Case({"probability": True}),),
)
class LabeledSVM(SemiSupervisedSVM):
    r"""The SVM (with offset) trained on the labeled points only, ignoring the unlabeled ones.

    .. math::

        \min_{w, b}\ \tfrac12\|w\|^2 + C_1 \sum_{i \in L} (1 - y_i (w'\phi(x_i) + b))_+

    It is the paper's "SVM" column and the start of :class:`WellSVM` and :class:`TSVM`, with
    the same interface (``y = -1`` marks an unlabeled point) so that it can be compared with
    them in one loop. It is solved on the engine's SMO solver (the linear dual solver for
    ``kernel="linear"`` once the Gram matrix outgrows ``cache_size``). It equals
    :class:`sklearn.svm.SVC` on the labeled points (to the solvers' tolerance) given the same
    features and width: ``standardize`` and ``gamma="scale"`` are computed over all the rows,
    labeled and unlabeled, as in the semi-supervised SVMs that start from it, so that with
    those defaults it is their start, not ``SVC()`` fitted on the labeled rows alone. With
    more than two classes it is one-vs-rest (``estimators_``; SVC is one-vs-one), as the
    other semi-supervised SVMs.

    Parameters
    ----------
    C1 : float, default=1.0
    kernel, gamma, degree, coef0 : as for :class:`sklearn.svm.SVC`
    tol : float, default=1e-3
    cache_size : float, default=200
    max_iter : int, default=1000000
        Solver iterations at most.
    verbose : bool or int, default=False
        Print a line to standard error when the fit ends: the labeled points, the solver's
        iterations and the seconds the fit took.
    probability : bool, default=False
        Enable ``predict_proba``: Platt's sigmoid ``1 / (1 + exp(A f + B))`` fitted on
        held-out decision values of the labeled points (5 stratified folds, fewer when a
        class has fewer than 5 labeled points; each fold is an SVM on the other labeled
        points). Off by default because it costs 5 more fits; ``decision_function`` and
        ``predict`` are those of the fit on all the data either way.
    %(random_state_and_standardize)s

    Attributes
    ----------
    classes_, transduction_, dual_coef_, support_, support_vectors_, intercept_
        As for :class:`WellSVM`; ``transduction_`` is ``predict`` on the unlabeled points.
    %(wellsvm_attributes)s

    See Also
    --------
    WellSVM, TSVM, LapSVM

    Examples
    --------
    >>> import numpy as np
    >>> from unlabeled.ssl import LabeledSVM
    >>> rng = np.random.default_rng(0)
    >>> truth = np.repeat([0, 1], 50)
    >>> X = np.r_[rng.normal(-2, 1, (50, 2)), rng.normal(2, 1, (50, 2))]
    >>> y = np.full(100, -1); y[:3] = 0; y[50:53] = 1          # -1: ignored
    >>> clf = LabeledSVM(gamma=0.5).fit(X, y)
    >>> float(clf.score(X, truth)) > 0.9
    True
    """

    _parameter_constraints: dict = {
        k: v
        for k, v in SemiSupervisedSVM._parameter_constraints.items()
        if k not in ("C2", "balance")
    } | {"verbose": VERBOSE}

    _learns_from_unlabeled = False  # (no warning when y marks no point unlabeled)

    def __init__(
        self,
        C1: float = 1.0,
        *,
        kernel: str = "rbf",
        gamma: str | float = "scale",
        degree: int = 3,
        coef0: float = 0.0,
        tol: float = 1e-3,
        cache_size: float = 200.0,
        max_iter: int = 1_000_000,
        verbose: bool | int = False,
        probability: bool = False,
        random_state: int | np.random.RandomState | None = None,
        standardize: bool = True,
    ) -> None:
        set_init_params(self, locals())

    def _fit(self, params, X, classes, signs):
        lab = np.flatnonzero(signs != 0)
        say = StepProgress(self.verbose, "LabeledSVM")
        backend = self._backend(X, np.ones(X.shape[0]), max_iter=params["max_iter"])
        a, _, rho = backend.signed_solve(
            lab, signs[lab], np.full(lab.size, params["C1"]), np.zeros(lab.size)
        )
        alpha = np.zeros(X.shape[0])
        alpha[lab] = a * signs[lab]
        self.set_expansion(X, alpha, -rho, classes=classes)
        self._set_transduction(signs, self._decision_values(X), classes)
        self.n_iter_ = backend.n_inner_iter
        warn_if_solves_capped(backend, "LabeledSVM")
        say(f"done: SVM on {lab.size} labeled points, {self.n_iter_} iterations")
        return self
