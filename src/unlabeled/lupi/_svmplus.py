"""SVMPlus: SVM+ for learning using privileged information, by aSMO, gSMO or an exact QP."""

from __future__ import annotations

import sys
import time
from types import SimpleNamespace

import numpy as np
import scipy.sparse as sp
from sklearn.svm import SVC
from sklearn.utils.validation import check_array, check_is_fitted

from .. import _engine
from .._calibration import ProbabilisticMixin, calibration_folds, fold_estimator, platt_sigmoid
from .._clarabel import clarabel_qp, upper_csc
from .._kernels import kernel_block, kernel_dot, kernel_params
from .._solving import EngineProgress, cache_bytes, engine_data, kernel_spec
from .._validation import (
    MAX_C,
    MAX_CACHE_MB,
    MAX_KERNEL_VALUE,
    MAX_KERNEL_VALUE_F32,
    RANDOM_STATE,
    VERBOSE,
    Boolean,
    Integer,
    InvalidParameterError,
    Options,
    Real,
    check_binary_targets,
    check_data_scale,
    check_gamma,
    check_kernel_scale,
    check_poly_diagonal,
)
from ..base import (
    GAMMA_CONSTRAINT,
    ArrayLike,
    Fitted,
    KernelClassifier,
    KernelMachine,
    MatrixLike,
    set_init_params,
)
from ..registry import Case, register

_KERNELS = ("linear", "poly", "rbf")
_SOLVERS = ("asmo", "gsmo", "qp")
_MODES = ("svm+", "dsvm+")
_SOLVER_CODES = {"asmo": 0, "gsmo": 1}
_DTYPES = [np.float64, np.float32]
# Peak bytes of solver="qp" per squared training point: the two dense Gram matrices, their
# upper triangles handed to Clarabel and its LDL factor of the (4n + 2)-square KKT matrix
# (peak RSS growth measured by benchmarks/reproduce_svmplus.py: 160, 142 and 126 bytes at
# n = 1,000, 2,000 and 5,000). Used to refuse a problem before anything is allocated.
_QP_BYTES_PER_PAIR = 160
_QP_MAX_MEMORY = 8 * 2**30
#: the most examples solver="qp" takes: Clarabel's time grows like n^3 on the dense KKT
#: system (5 s at 1,000 examples, 26 s at 2,000 on one core, 73 s at 2,048 on two busy
#: cores, past the fuzz's 30 s; 4,000 held 2 GB for minutes)
_QP_MAX_POINTS = 1024
#: the smallest tol: below about 1e-12 no slope is measured that finely in floating point,
#: and the SMO solvers only ran to their cap of 10^7 steps (seconds to hours with n)
MIN_TOL = 1e-12


@register(
    family="lupi",
    command="svmplus",
    summary="SVM+ with privileged columns at fit time",
    cases=(Case(), Case({"mode": "dsvm+"}, name="dsvm")),
)
class SVMPlus(ProbabilisticMixin, KernelClassifier):
    r"""SVM+ classifier: learning using privileged information (LUPI).

    Training triplets ``(x_i, x*_i, y_i)`` carry privileged features ``x*`` that exist only at
    training time (the future of a time series, a teacher's description, ...). SVM+ (Vapnik and
    Vashist, 2009) learns the decision function ``h(x) = w.z + b`` together with a *correcting
    function* ``phi(x*) = w*.z* + d`` that replaces the slacks of the SVM:

    .. math::

        \min_{w, b, w^*, d}\ \tfrac12\|w\|^2 + \tfrac{\gamma}{2}\|w^*\|^2
            + C \sum_i \phi(x^*_i)
        \quad\text{s.t.}\quad y_i h(x_i) \ge 1 - \phi(x^*_i),\ \ \phi(x^*_i) \ge 0,

    with ``gamma = gamma_plus``. Its dual, with ``delta_i = alpha_i + beta_i - C``,

    .. math::

        \max_{\alpha, \beta \ge 0}\ \sum_i \alpha_i
            - \tfrac12 \sum_{ij} \alpha_i\alpha_j y_i y_j K_{ij}
            - \tfrac{1}{2\gamma}\sum_{ij} \delta_i \delta_j K^*_{ij}
        \quad\text{s.t.}\quad \sum_i \delta_i = 0,\ \ \sum_i y_i\alpha_i = 0,

    has two equality constraints and no upper bounds. Then
    ``h(x) = sum_j alpha_j y_j K(x_j, x) + b`` and
    ``phi(x*) = (1/gamma) sum_j delta_j K*(x*_j, x*) + d``.

    Parameters
    ----------
    C : float > 0, default=1.0
        Weight of the total correction ``sum_i phi(x*_i)``.
    gamma_plus : float > 0, default=1.0
        Weight ``gamma`` of ``||w*||^2``: the capacity of the correcting function (larger is
        simpler).
    kernel : {"rbf", "linear", "poly"}, default="rbf"
        Kernel ``K`` on ``X``: ``rbf`` exp(-gamma ||x - x'||^2), ``poly``
        (gamma <x, x'> + coef0)^degree.
    gamma : {"scale", "auto"} or float >= 0, default="scale"
        Width of ``kernel``, resolved on ``X`` as in :class:`sklearn.svm.SVC`.
    kernel_plus : {"rbf", "linear", "poly"}, default="rbf"
        Kernel ``K*`` on the privileged features.
    gamma_star : {"scale", "auto"} or float >= 0, default="scale"
        Width of ``kernel_plus``, resolved on the privileged features (on ``X_star``, or on the
        one-dimensional ``d_i`` when ``mode="dsvm+"``). In ``mode="dsvm+"`` the SVM on
        ``X_star`` uses it too: "scale" and "auto" then adapt to each space, a number is used
        as is in both.
    solver : {"asmo", "gsmo", "qp"}, default="asmo"
        ``asmo``: the paper's alternating SMO (directions I1, I2, I3 and the reverse of I3,
        maximal-gain selection, clipping), with shrinking and, every few steps, a Newton step
        on the free variables (every positive alpha and beta is free: there are no upper
        bounds), which ends the zigzag of single steps on an ill-conditioned Hessian and
        lands on the optimum itself; ``gsmo``: generalised SMO on the four variables of a
        pair of examples (plus, when no pair can improve, one aSMO step on three examples: pairs
        alone cannot always reach the optimum); ``qp``: the dual handed whole to the interior
        point solver Clarabel on dense Gram matrices, the reference for small problems (needs
        ``pip install clarabel``). All three reach the same optimum.
    tol : float >= 1e-12, default=1e-3
        The SMO solvers stop when no feasible direction of the paper's witness family has a
        slope above ``tol`` (the paper's tau); aSMO then goes on towards ``tol / 100`` for at
        most a tenth more steps. The QP is solved to Clarabel's gap 1e-7. Below 1e-12 it is
        refused: floating point measures no slope that finely, and the solvers would only
        run to their step cap.
    cache_size : float in (0, 1e6], default=200
        Kernel-row cache in MB, half for ``K`` and half for ``K*``. The SMO solvers never build
        an ``n x n`` matrix.
    max_iter : int >= 1 or None, default=None
        Cap on SMO steps. None: LIBSVM's default ``max(10^7, 100 n_samples)``; a fit that
        reaches the cap stops with a ``ConvergenceWarning`` that names it.
    verbose : bool, default=False
        Print the solver's progress about once a second.
    mode : {"svm+", "dsvm+"}, default="svm+"
        ``svm+`` (the paper's X*SVM+) corrects in the space of ``X_star``. ``dsvm+``: an SVM
        (:class:`sklearn.svm.SVC` with ``kernel_plus``, ``gamma_star`` and ``C``) is trained on
        ``X_star``; its slacks ``d_i = 1 - y_i f*(x*_i)`` become the one privileged feature.
    degree : int >= 0, default=3
        Degree of whichever kernel is ``poly``.
    coef0 : float, default=0.0
        Constant of whichever kernel is ``poly``.
    probability : bool, default=False
        Enable ``predict_proba``, as :class:`sklearn.svm.SVC` does: Platt's sigmoid
        ``1 / (1 + exp(A h + B))`` fitted (Lin, Lin and Weng's Newton method) on the held-out
        decision values of 5 stratified folds (fewer when a class has fewer than 5
        examples), each fold refitting SVM+ with its privileged features. Off by default
        because it costs 5 more fits; ``decision_function`` and ``predict`` are those of the
        fit on all the data either way. Test points need no privileged features.
    random_state : int, RandomState instance or None, default=None
        Draws the folds of ``probability=True``; nothing else is random.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        The two labels; ``classes_[1]`` is the positive class (``y = +1`` inside).
    support_ : ndarray of shape (n_SV,)
        Indices of the training examples with ``alpha_i > 0``.
    support_vectors_ : ndarray or sparse matrix of shape (n_SV, n_features)
    dual_coef_ : ndarray of shape (1, n_SV)
        ``alpha_i y_i`` of the support vectors.
    intercept_ : ndarray of shape (1,)
        The bias ``b`` of ``h``.
    alpha_, beta_ : ndarray of shape (n_samples,)
        The full dual solution.
    dual_objective_ : float
        The dual objective ``D(alpha, beta)`` at the solution.
    correction_intercept_ : float
        The offset ``d`` of the correcting function.
    n_iter_ : int
        SMO steps (interior-point iterations for ``solver="qp"``).
    triple_steps_ : int
        ``solver="gsmo"`` only (0 otherwise): steps on three examples, taken when no pair of
        examples can improve the objective although the optimum is not reached.
    n_features_in_ : int
    n_features_star_in_ : int
        Number of privileged features.
    privileged_svc_ : SVC
        ``mode="dsvm+"`` only: the SVM trained on ``X_star``.
    probA_, probB_ : ndarray of shape (1,)
        ``A`` and ``B`` of the sigmoid of ``predict_proba``; ``probability=True`` only.

    Notes
    -----
    ``b`` and ``d`` are the multipliers of the two equality constraints. With
    ``G_i = 1 - y_i F_i - f_i/gamma`` (``F_i = sum_j y_j alpha_j K_ij``,
    ``f_i = sum_j delta_j K*_ij``) the optimality conditions are ``G_i <= y_i b + d`` (equality
    where ``alpha_i > 0``) and ``phi(x*_i) = f_i/gamma + d >= 0`` (equality where
    ``beta_i > 0``). The SMO solvers take for each class the mean of ``G_i`` over its positive
    alphas, ``r_+`` and ``r_-``, and set ``b = (r_+ - r_-)/2`` and ``d = (r_+ + r_-)/2``; the QP
    reads them from Clarabel's multipliers.

    References
    ----------
    D. Pechyony, R. Izmailov, A. Vashist, V. Vapnik, "SMO-style algorithms for learning using
    privileged information", DMIN 2010. V. Vapnik and A. Vashist, "A new learning paradigm:
    learning using privileged information", Neural Networks 22(5-6), 2009.

    Examples
    --------
    >>> import numpy as np
    >>> from unlabeled import SVMPlus
    >>> rng = np.random.default_rng(0)
    >>> X_star = rng.normal(size=(60, 2))             # clean features, only at training time
    >>> y = np.where(X_star.sum(axis=1) > 0, 1, -1)
    >>> X = X_star + 0.3 * rng.normal(size=(60, 2))   # noisy features, always available
    >>> clf = SVMPlus(C=1.0, gamma_plus=1.0, kernel="linear").fit(X, y, X_star)
    >>> bool(clf.score(X, y) > 0.8)
    True
    >>> phi = clf.correcting_function(X_star)          # the slacks SVM+ learned, >= 0 up to tol
    """

    def __init__(
        self,
        C: float = 1.0,
        gamma_plus: float = 1.0,
        *,
        kernel: str = "rbf",
        gamma: str | float = "scale",
        kernel_plus: str = "rbf",
        gamma_star: str | float = "scale",
        solver: str = "asmo",
        tol: float = 1e-3,
        cache_size: float = 200,
        max_iter: int | None = None,
        verbose: bool | int = False,
        mode: str = "svm+",
        degree: int = 3,
        coef0: float = 0.0,
        probability: bool = False,
        random_state: int | np.random.RandomState | None = None,
    ) -> None:
        set_init_params(self, locals())

    _dense_bytes_per_pair = 0.0  # its own memory check comes first, with its own budget

    _parameter_constraints: dict = {
        "C": [Real(0.0, MAX_C, high_open=False)],
        "gamma_plus": [Real(0.0)],
        **KernelMachine._parameter_constraints,
        "kernel": [Options(_KERNELS)],
        "kernel_plus": [Options(_KERNELS)],
        "gamma_star": GAMMA_CONSTRAINT,
        "solver": [Options(_SOLVERS)],
        "mode": [Options(_MODES)],
        "tol": [Real(MIN_TOL, low_open=False)],
        "cache_size": [Real(0.0, MAX_CACHE_MB, high_open=False)],
        "max_iter": [None, Integer(1)],
        "verbose": VERBOSE,
        "probability": [Boolean()],
        "random_state": RANDOM_STATE,
    }

    # the correcting function phi(x*) = sum_j c_j k*(z_j, x*) + d on the n_train points z_j
    _fitted_attributes: dict = {
        "n_features_star_in_": Fitted("int", low=1),
        "_gamma_star": Fitted("float", low=0.0),
        "alpha_": Fitted("f", ("n_train",), low=0.0),
        "beta_": Fitted("f", ("n_train",), low=0.0),
        "correction_intercept_": Fitted("float"),
        "dual_objective_": Fitted("float"),
        "n_iter_": Fitted("int", low=0),
        "triple_steps_": Fitted("int", low=0),
        "_correction_coef": Fitted("f", ("n_train",)),
        "_Z_fit": Fitted("matrix", ("n_train", None)),
        "privileged_svc_": Fitted("object", optional=True, choices=(f"{SVC.__module__}.SVC",)),
    }

    # ------------------------------------------------------------------ checks
    def _validate_params(self) -> dict:
        for name in ("kernel", "kernel_plus"):
            if getattr(self, name) == "precomputed":
                raise InvalidParameterError(
                    f"{name}='precomputed' is not supported by SVMPlus: pass the feature "
                    f"matrices and choose one of {list(_KERNELS)}"
                )
        return super()._validate_params()

    def _check_fitted(self) -> None:
        """The expansion's scale (the base's check), and that of the correcting function's
        points ``_Z_fit`` under ``kernel_plus``."""
        super()._check_fitted()
        self._check_rows_scale(self._Z_fit, "_Z_fit", self.kernel_plus, self._gamma_star)

    def _star_params(self) -> dict:
        """The parameters of ``kernel_plus`` (``_gamma_star`` resolved at fit time)."""
        return kernel_params(self.kernel_plus, self._gamma_star, self.degree, self.coef0)

    # ------------------------------------------------------------------ fitting
    def fit(
        self,
        X: MatrixLike,
        y: ArrayLike,
        X_star: MatrixLike | None = None,
        *,
        privileged: MatrixLike | None = None,
    ) -> SVMPlus:
        r"""Fit ``h`` and the correcting function ``phi`` on ``(X, X_star, y)``.

        Solves the dual of the class docstring (two equality constraints, no upper bounds) by
        ``solver``, then sets ``h(x) = sum_j alpha_j y_j K(x_j, x) + b``.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
            The features available at training and test time, dense (float64 or float32) or
            sparse.
        y : array-like of shape (n_samples,)
            Exactly two classes; ``classes_[1]`` (the larger) is ``y = +1`` inside.
        X_star : array-like or sparse matrix of shape (n_samples, n_features_star)
            The privileged features, one row per row of ``X``; may also be given as the
            keyword ``privileged``. Only ``fit`` takes them.
        privileged : array-like or sparse matrix, optional
            ``X_star`` by keyword (give it once).

        Returns
        -------
        self : SVMPlus
            The fitted classifier.

        See Also
        --------
        correcting_function : ``phi(x*)``, the slacks learned.
        sklearn.svm.SVC : The SVM without privileged information.
        """
        params = self._validate_params()
        C, gamma_plus = params["C"], params["gamma_plus"]
        Xs = _privileged(X_star, privileged)
        X, y = self._validate_X(X, y)
        classes, y_pm = check_binary_targets(y, "SVMPlus")
        Xs = check_array(Xs, accept_sparse="csr", dtype=_DTYPES, order="C", input_name="X_star")
        if Xs.shape[0] != X.shape[0]:
            raise ValueError(
                f"X_star has {Xs.shape[0]} rows but X has {X.shape[0]}: give one row of "
                "privileged features per training example"
            )
        if self.solver == "qp":
            _check_qp_size(X.shape[0])
        folds = None
        if params["probability"]:
            names = tuple(f"examples of class {c!r}" for c in classes)
            folds = calibration_folds(y_pm, names, self.random_state)

        # fitted attributes are set only once the solver has returned: an interrupted fit
        # (Ctrl-C) leaves no half-fitted model behind
        svc = None
        if self.mode == "dsvm+":
            svc = SVC(
                C=C,
                kernel=self.kernel_plus,
                gamma=self.gamma_star,
                degree=self.degree,
                coef0=self.coef0,
                max_iter=self._max_iter(Xs.shape[0]),  # LIBSVM's own default is no cap
            ).fit(Xs, y_pm)
            Z = (1.0 - y_pm * svc.decision_function(Xs))[:, None]
        else:
            Z = Xs
        self._gamma_star = check_gamma(self.gamma_star, self.kernel_plus, Z)
        check_kernel_scale(Z, self.kernel_plus, self._gamma_star, self.degree, self.coef0)

        if self.solver == "qp":
            res = self._solve_qp(X, Z, y_pm.astype(np.float64), C, gamma_plus)
        else:
            res = self._solve_smo(X, Z, y_pm, C, gamma_plus)

        alpha, beta = res.alpha, res.beta
        self.n_features_star_in_ = Xs.shape[1]
        if svc is not None:
            self.privileged_svc_ = svc
        else:
            self.__dict__.pop("privileged_svc_", None)  # from an earlier fit in dsvm+ mode
        self.alpha_, self.beta_ = alpha, beta
        self.correction_intercept_ = float(res.d)
        self.dual_objective_ = float(res.objective)
        self.n_iter_ = int(res.n_iter)
        # The interior-point solution is positive almost everywhere, and its tiny alphas are
        # kept: on Mackey-Glass with C = 100 and n = 2,000, dropping those below 1e-8 max(alpha)
        # (1,956 of them, total 0.03) moved h by 0.01 where a fifth of the test points have
        # |h| < 0.03, and tripled the test error.
        self.set_expansion(X, alpha * y_pm, res.b, classes=classes)
        self._correction_coef = (alpha + beta - C) / gamma_plus
        # a copy: Z may be the caller's X_star, which the model must not follow if it changes
        self._Z_fit = Z.copy()
        self._calibrate(X, y, Xs, y_pm, folds)
        return self

    def _calibrate(self, X, y, Xs, y_pm, folds) -> None:
        """With ``folds`` (``probability=True``): Platt's sigmoid on held-out decision values,
        as :class:`sklearn.svm.SVC` (SVM+ is an SVM whose slacks are modelled: its decision
        values calibrate the same way). Each fold refits SVM+ (same parameters, the kernel
        width resolved on all the data) on the other folds' ``(X, y, X_star)``. Without
        ``folds``, removes the sigmoid of an earlier fit."""
        if folds is None:
            self._set_sigmoid(None)
            return
        f = np.empty(y_pm.size)
        for train, test in folds:
            est = fold_estimator(self)
            SVMPlus.fit(est, X[train], y[train], Xs[train])  # not a subclass's own signature
            f[test] = est.decision_function(X[test])
        self._set_sigmoid(*platt_sigmoid(f, y_pm > 0))

    def _solve_smo(self, X, Z, y_pm, C, gamma_plus):
        progress = EngineProgress(self.verbose, f"[SVMPlus] {self.solver}")
        cap = self._max_iter(X.shape[0])
        spec = [
            kernel_spec(k, g, self.degree, self.coef0)
            for k, g in ((self.kernel, self._gamma), (self.kernel_plus, self._gamma_star))
        ]
        res = _engine.solve_svmplus(
            engine_data(X, self.kernel),
            engine_data(Z, self.kernel_plus),
            y=y_pm,
            kernel=spec[0],
            kernel_star=spec[1],
            C=C,
            gamma_plus=gamma_plus,
            options=_engine.SolverOptions(float(self.tol), True, cap),
            solver=_SOLVER_CODES[self.solver],
            cache_bytes=cache_bytes(self.cache_size),
            progress=progress,
        )
        progress.done(res)
        self._warn_if_not_converged(res, f"SVMPlus ({self.solver})", unit="steps", limit=cap)
        self.triple_steps_ = int(res.triple_steps)
        return res

    def _solve_qp(self, X, Z, y, C, gamma_plus):
        """The dual in the variables a = alpha / C and e = delta / C (beta = C (e - a + 1)):
        min 1/2 a'Q a + 1/(2 gamma) e'K* e - 1'a / C subject to y'a = 0, 1'e = 0, a >= 0,
        a - e <= 1, which is -D / C^2. Block-diagonal P halves the matrix that a formulation
        in (alpha, beta) would hand to Clarabel, and the scaling by C keeps the variables near
        1: unscaled, Clarabel fails (NumericalError) on Mackey-Glass problems with C = 1000.
        The multipliers of the two equalities are b / C and d / C (Clarabel's convention
        P x + q + A'z = 0)."""
        t0 = time.perf_counter()
        n = y.size
        K = self._gram(X)
        K *= y[:, None]
        K *= y[None, :]
        Z = _f64(Z)
        Ks = kernel_block(Z, Z, self.kernel_plus, self._star_params())
        P = sp.block_diag([upper_csc(K), upper_csc(Ks / gamma_plus)], format="csc")
        del K
        q = np.r_[np.full(n, -1.0 / C), np.zeros(n)]
        eye = sp.identity(n, format="csc")
        A_eq = sp.csc_matrix(np.vstack([np.r_[y, np.zeros(n)], np.r_[np.zeros(n), np.ones(n)]]))
        G = sp.vstack([sp.hstack([-eye, sp.csc_matrix((n, n))]), sp.hstack([eye, -eye])])
        h = np.r_[np.zeros(n), np.ones(n)]
        # 1e-7: a rank-deficient Gram matrix (linear kernel) stalls Clarabel's steps near a gap
        # of 1e-8 to 1e-7 behind its static regularisation; tighter would only say AlmostSolved
        sol = clarabel_qp(
            P,
            q,
            A_eq,
            np.zeros(2),
            G,
            h,
            tol_gap=1e-7,
            tol_feas=1e-8,
            verbose=self.verbose,
            what="the SVM+ dual",
            scale="C and gamma_plus",
        )
        x, z = C * np.asarray(sol.x), C * np.asarray(sol.z)
        alpha = np.maximum(x[:n], 0.0)
        beta = np.maximum(x[n:] - x[:n] + C, 0.0)
        if self.verbose:
            print(
                f"[SVMPlus] qp done: {sol.iterations} interior-point iterations, "
                f"{time.perf_counter() - t0:.2f}s",
                file=sys.stderr,
                flush=True,
            )
        self.triple_steps_ = 0
        # the fields of the engine's SVMPlusSolution that fit reads
        return SimpleNamespace(
            alpha=alpha,
            beta=beta,
            b=z[0],
            d=z[1],
            objective=-(C**2) * sol.obj_val,
            n_iter=sol.iterations,
        )

    # ------------------------------------------------------------------ prediction
    def decision_function(self, X: MatrixLike, *args, **kwargs) -> np.ndarray:
        r"""The decision values :math:`h(x) = \sum_j \alpha_j y_j K(x_j, x) + b`.

        Computed in row blocks of bounded memory (through ``w`` for the linear kernel).

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
            Only ``X``: privileged features exist at training time alone (anything more is
            refused with a ``TypeError``).

        Returns
        -------
        ndarray of shape (n_samples,)
            ``h(x)``; positive means ``classes_[1]``.

        See Also
        --------
        predict : The class of the sign of ``h``.
        correcting_function : ``phi(x*)`` on privileged features.
        """
        _refuse_privileged("decision_function", args, kwargs)
        return super().decision_function(X)

    def predict(self, X: MatrixLike, *args, **kwargs) -> np.ndarray:
        """The class of ``sign(h(x))``: ``classes_[1]`` where ``h(x) > 0``, else ``classes_[0]``.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
            Only ``X``, as for :meth:`decision_function`.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,), labels from ``classes_``

        See Also
        --------
        decision_function : The values ``h(x)``.
        correcting_function : The slacks ``phi(x*)`` learned with privileged features.
        """
        _refuse_privileged("predict", args, kwargs)
        return super().predict(X)

    def correcting_function(self, X_star: MatrixLike, y: ArrayLike | None = None) -> np.ndarray:
        """The correcting (slack) function ``phi(x*) = (1/gamma) sum_j delta_j K*(x*_j, x*) + d``.

        Parameters
        ----------
        X_star : array-like or sparse matrix of shape (n, n_features_star)
            Privileged features.
        y : array-like of shape (n,), optional
            Needed only when ``mode="dsvm+"``, whose correcting space is
            ``d = 1 - y f*(x*)``; ignored otherwise.

        Returns
        -------
        phi : ndarray of shape (n,)
            The learned slacks; ``>= 0`` (up to ``tol``) on the training examples.

        See Also
        --------
        decision_function : ``h(x)``, on the ordinary features.
        """
        check_is_fitted(self)
        Xs = check_array(X_star, accept_sparse="csr", dtype=_DTYPES, order="C", input_name="X_star")
        if Xs.shape[1] != self.n_features_star_in_:
            raise ValueError(
                f"X_star has {Xs.shape[1]} features, but SVMPlus was fitted with "
                f"{self.n_features_star_in_} privileged features"
            )
        if self.mode == "dsvm+":
            if y is None:
                raise ValueError(
                    "mode='dsvm+' corrects in the space of d = 1 - y f*(x*): pass the labels "
                    "too, correcting_function(X_star, y)"
                )
            y = np.asarray(y)
            if y.shape != (Xs.shape[0],) or not np.isin(y, self.classes_).all():
                raise ValueError(
                    f"y must hold one label from {self.classes_.tolist()} per row of X_star"
                )
            y_pm = np.where(y == self.classes_[1], 1.0, -1.0)
            Z = (1.0 - y_pm * self.privileged_svc_.decision_function(Xs))[:, None]
        else:
            Z = Xs
        self._check_star_scale(Z)
        phi = kernel_dot(
            Z, self._Z_fit, self._correction_coef, self.kernel_plus, self._star_params()
        )
        phi = phi + self.correction_intercept_
        if not np.all(np.isfinite(phi)):
            raise ValueError(
                "X_star gives a non-finite correcting value: its kernel_plus values with the "
                "training points overflow double precision. Rescale X_star as the privileged "
                "features of fit were"
            )
        return phi

    def _check_star_scale(self, Z) -> None:
        """The preflight of ``decision_function`` (:meth:`KernelMachine._check_test_scale`)
        for ``kernel_plus`` on the correcting points: far points (x* * 1e150) gave NaN."""
        if self.kernel_plus not in ("rbf", "poly") or Z.shape[0] == 0:
            return
        limit = MAX_KERNEL_VALUE_F32 if Z.dtype == np.float32 else MAX_KERNEL_VALUE
        try:
            sq = check_data_scale(Z, f"the {self.kernel_plus} kernel_plus of this model", limit)
        except ValueError as exc:
            raise ValueError(str(exc).replace("X is", "X_star is", 1)) from None
        if self.kernel_plus == "poly":
            check_poly_diagonal(
                sq,
                self._gamma_star,
                self.coef0,
                self.degree,
                limit,
                "X_star is too large in scale for the poly kernel_plus of this model: k(x*, x*)",
                "",
                "Rescale X_star as the privileged features of fit were",
            )


# ---------------------------------------------------------------------- helpers
def _privileged(X_star, privileged):
    """The privileged features of ``fit``, given once, positionally or by keyword."""
    if X_star is not None and privileged is not None:
        raise TypeError(
            "give the privileged features once: either fit(X, y, X_star) or "
            "fit(X, y, privileged=X_star), not both"
        )
    Xs = X_star if X_star is not None else privileged
    if Xs is None:
        raise ValueError(
            "SVMPlus.fit needs the privileged features: call fit(X, y, X_star) (or "
            "fit(X, y, privileged=X_star)); without them use sklearn.svm.SVC"
        )
    return Xs


def _refuse_privileged(method, args, kwargs):
    if args or kwargs:
        given = [f"{len(args)} extra positional argument(s)"] if args else []
        given += [f"{k}=" for k in kwargs]
        raise TypeError(
            f"SVMPlus.{method} takes only X ({', '.join(given)} given): privileged features "
            "exist only at training time; pass them to fit, or to correcting_function"
        )


def _check_qp_size(n):
    if n > _QP_MAX_POINTS:
        raise ValueError(
            f"solver='qp' on {n:,} examples is over its limit of {_QP_MAX_POINTS:,}: it hands "
            "the dual whole to an interior-point solver whose time grows like n^3 (about 26 "
            "s at 2,000 examples) on dense n x n matrices; use solver='asmo' (the same "
            "optimum, memory linear in n plus cache_size)"
        )
    need = _QP_BYTES_PER_PAIR * float(n) ** 2
    if need > _QP_MAX_MEMORY:
        raise MemoryError(
            f"solver='qp' on {n} examples needs about {need / 2**30:.1f} GB (dense Gram "
            f"matrices and their factor), over {_QP_MAX_MEMORY / 2**30:.0f} GB: use "
            "solver='asmo', whose memory is linear in n plus cache_size"
        )


def _f64(A):
    return A.astype(np.float64) if A.dtype != np.float64 else A


__all__ = ["SVMPlus"]
