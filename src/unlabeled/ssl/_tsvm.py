"""The transductive SVM of Joachims (1999): label switching under the balance constraint."""

from __future__ import annotations

import math

import numpy as np

from .._label_generation import warn_if_solves_capped
from .._solving import StepProgress, warn_not_converged
from .._validation import VERBOSE
from ..base import Fitted, set_init_params
from ..registry import register
from ._base import BalancedLabels, SemiSupervisedSVM, n_negative_unlabeled

_C_START = 1e-5  # Joachims' first weight of the unlabeled points


@register(family="ssl", command="tsvm", summary="transductive SVM (label switching)")
class TSVM(SemiSupervisedSVM):
    r"""Transductive SVM by label switching (Joachims 1999), each step an SVM on the engine.

    The same semi-supervised SVM objective as :class:`WellSVM`, but with an offset ``b``:

    .. math::

        \min_{y_U,\, w,\, b}\ \tfrac12\|w\|^2 + C_1 \sum_{i \in L} \xi_i
            + C^* \sum_{j \in U} \xi_j,
        \qquad y_i (w'\phi(x_i) + b) \ge 1 - \xi_i,\ \xi \ge 0,

    with the unlabeled labels under the balance constraint (more than two classes: one such
    model per class against the others, ``estimators_``). The search is local:

    1. An SVM on the labeled points labels the unlabeled ones. The
       ``ceil(n_U (1 - balance))`` smallest decision values become negative.
    2. Set ``C* = 1e-5``. Then repeat: train the SVM on all points. Swap the labels of
       unlabeled pairs ``(i, j)`` with ``y_i y_j < 0``, ``xi_i > 0``, ``xi_j > 0`` and
       ``xi_i + xi_j > 2``. Each such swap lowers the objective. While pairs remain, swap
       them and retrain, warm-started. When none remain, set ``C* <- min(2 C*, C2)``, and
       stop once ``C* = C2`` has no pair.

    Several disjoint pairs are swapped per retraining. They are paired largest slack with
    largest slack, and the objective falls for every pair, since each point's new slack
    depends only on its own decision value. One ``C*`` serves both classes of unlabeled
    points; Joachims' two weights ``C*_-``, ``C*_+`` are not used, because the balance
    constraint already fixes the label counts. Swaps keep them.

    Parameters
    ----------
    C1, C2 : float, default=1.0, 0.1
        Weights of the losses of labeled and (finally) unlabeled points.
    kernel, gamma, degree, coef0 : as for :class:`sklearn.svm.SVC`
    balance : float in (0, 1) or None, default=None
        Share of positives among the unlabeled points; None: as among the labeled ones
        (with more than two classes, each class's share in its one-vs-rest subproblem).
    max_iter : int, default=1000
        SVM solves at most.
    tol : float, default=1e-3
        KKT tolerance of each SVM.
    cache_size : float, default=200
        Kernel-row cache in MB, shared by every solve of the fit.
    verbose : bool or int, default=False
        Print the search's progress to standard error: a line for the start SVM, one per
        SVM solve (its annealing step ``k`` of ``K``, the weight ``C*``, the pairs it
        swaps, the solver's iterations, the seconds since the fit began) and a summary.
        A fit on 10,000 points can run for minutes, each solve a full SVM.
    %(probability_to_standardize)s

    Attributes
    ----------
    classes_, transduction_, dual_coef_, support_, support_vectors_, intercept_
        As for :class:`WellSVM`. ``intercept_`` is the offset ``b``.
    n_iter_ : int
        SVM solves run.
    n_switches_ : int
        Labels swapped in all (two per pair).
    %(wellsvm_attributes)s

    See Also
    --------
    WellSVM : The convex relaxation of the same problem.

    References
    ----------
    T. Joachims. Transductive inference for text classification using support vector
    machines. ICML 1999.

    Examples
    --------
    >>> import numpy as np
    >>> from unlabeled.ssl import TSVM
    >>> rng = np.random.default_rng(0)
    >>> X = np.r_[rng.normal(-2, 1, (50, 2)), rng.normal(2, 1, (50, 2))]
    >>> y = np.full(100, -1); y[:3] = 0; y[50:53] = 1          # -1: unlabeled
    >>> clf = TSVM(gamma=0.5).fit(X, y)
    >>> float(clf.score(X, np.repeat([0, 1], 50))) > 0.9
    True
    """

    _parameter_constraints: dict = {
        **SemiSupervisedSVM._parameter_constraints,
        "verbose": VERBOSE,
    }

    _fitted_attributes: dict = {"n_switches_": Fitted("int", low=0)}

    def __init__(
        self,
        C1: float = 1.0,
        C2: float = 0.1,
        *,
        kernel: str = "rbf",
        gamma: str | float = "scale",
        degree: int = 3,
        coef0: float = 0.0,
        balance: float | None = None,
        max_iter: int = 1000,
        tol: float = 1e-3,
        cache_size: float = 200.0,
        verbose: bool | int = False,
        probability: bool = False,
        random_state: int | np.random.RandomState | None = None,
        standardize: bool = True,
    ) -> None:
        set_init_params(self, locals())

    def _fit(self, params, X, classes, signs):
        n = X.shape[0]
        unl = signs == 0
        say = StepProgress(self.verbose, "TSVM")
        backend = self._backend(X, np.ones(n))
        oracle = BalancedLabels(signs, n_negative_unlabeled(signs, params["balance"]))
        labels, f = self._start_labels(backend, signs, oracle)
        c_star = min(_C_START, params["C2"])
        # C* doubles from 1e-5 to C2: the annealing's steps, the last at C* = C2
        steps = 1 + max(0, math.ceil(math.log2(params["C2"] / c_star) - 1e-12))
        say(
            f"start: SVM on {n - int(unl.sum())} labeled points ({backend.n_inner_iter} "
            f"iterations); {int(unl.sum())} unlabeled, {steps} annealing steps"
        )
        alpha, solves, switches, step = np.zeros(n), 0, 0, 1
        while True:
            C = np.where(unl, c_star, params["C1"])
            before = backend.n_inner_iter
            alpha, f, rho = backend.signed_solve(np.arange(n), labels, C, alpha)
            solves += 1
            pairs = _switchable_pairs(labels, f, unl)
            say(
                f"solve {solves:4d}  step {step}/{steps}  C*={c_star:.3g}  pairs to swap "
                f"{len(pairs[0])}  iterations {backend.n_inner_iter - before}"
            )
            if solves >= params["max_iter"] or backend.exhausted:  # the solves' work cap
                break
            if len(pairs[0]):
                i, j = pairs
                labels[i], labels[j] = labels[j], labels[i]
                alpha[i], alpha[j] = alpha[j].copy(), alpha[i].copy()  # keeps y'alpha
                switches += 2 * len(i)
            elif c_star >= params["C2"]:
                break
            else:
                c_star = min(2 * c_star, params["C2"])
                step += 1
        capped = solves >= params["max_iter"] and not backend.exhausted
        if capped and (len(pairs[0]) or c_star < params["C2"]):
            warn_not_converged("TSVM", limit=params["max_iter"], used=solves, unit="SVM solves")
        warn_if_solves_capped(backend, "TSVM")
        say(f"done: {solves} solves, {switches} labels swapped")
        self.set_expansion(X, alpha * labels, -rho, classes=classes)
        self.n_iter_ = solves
        self.n_switches_ = switches
        self._set_transduction(signs, f, classes)
        return self


def _switchable_pairs(labels, f, unlabeled):
    """Disjoint unlabeled pairs ``(i, j)``, ``y_i = +1``, ``y_j = -1``, both with slack and
    ``xi_i + xi_j > 2``: the largest slacks of each side paired in order."""
    xi = np.maximum(0.0, 1.0 - labels * f)
    side = [np.flatnonzero(unlabeled & (labels == s) & (xi > 0)) for s in (1, -1)]
    pos, neg = (s[np.argsort(-xi[s], kind="stable")] for s in side)
    k = min(pos.size, neg.size)
    pos, neg = pos[:k], neg[:k]
    ok = xi[pos] + xi[neg] > 2.0
    return pos[ok], neg[ok]
