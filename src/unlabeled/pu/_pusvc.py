"""PUSVC: exact positive-unlabeled learning with the double hinge loss."""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.utils import check_random_state

from .. import _engine
from .._dask import is_dask_collection
from .._products import PATHS
from .._solving import EngineProgress, engine_data
from .._validation import (
    MAX_CACHE_MB,
    VERBOSE,
    Boolean,
    Integer,
    Options,
    Real,
    check_kernel_scale,
    standardize_moments,
    standardize_rows,
    standardized_gamma,
)
from ..base import ANY_FINITE, ArrayLike, Fitted, MatrixLike, set_init_params
from ..registry import Case, register
from . import _starts, priors
from ._base import MIN_LAM, KernelPUModel, PUProblem, engine_settings, store_solution
from ._dask_linear import fit_linear_dask
from ._select import CV_GAMMA_FACTORS, CV_LAMS, cv_selection
from ._weighted import fit_weighted, population_share
from .sar import checked_propensity

_SOLVERS = ("auto", "smo", "usmo")
_INITS = ("auto", "pilot", "ocsvm", "mean-kernel")
# prior="auto": the class-prior estimators of unlabeled.pu.priors, most accurate first
# (Blend: the mean absolute error on the tuning half of the issue-51 suite, against every
# single estimator, in its docstring); the first whose estimate lies in (0, 1) is used
# (Blend keeps its estimate inside (0, 1), so the others are a guard)
AUTO_PRIOR_ESTIMATORS = ("Blend", "KM1", "KM2")  # registry: an order of choice
#: prior="auto" warns when its interval (prior_interval_) is wider than this
AUTO_PRIOR_WARN_WIDTH = 0.3
# linear kernel: the engine's offset search by coordinate descent before the pair solver
# (-1: from 5,000 unlabeled points on; tests force 0 or 1 to check both paths)
_LINEAR_CD = -1


@register(
    family="pu",
    command="pusvc",
    summary="positive-unlabeled double-hinge SVM (the default)",
    cases=(
        Case({"prior": 0.4}),
        Case({"prior": 0.4, "probability": True}, data="sparse", name="sparse-proba"),
        Case({"prior": 0.4, "kernel": "linear"}, name="linear"),
        Case({"prior": 0.4, "kernel": "precomputed"}, data="precomputed", name="precomputed"),
        Case({"prior": 0.4, "gamma": "cv", "lam": "cv", "standardize": True}, name="cv-scaled"),
    ),
)
class PUSVC(KernelPUModel):
    r"""Positive-unlabeled kernel classifier with the double hinge loss, solved exactly.

    Given ``p`` labeled positives ``P`` and ``n`` unlabeled points ``U`` drawn from a mixture
    with class prior ``pi``, PUSVC minimises the convex PU risk of du Plessis, Niu and
    Sugiyama (ICML 2015) over ``f(x) = sum_i alpha_i k(x_i, x) + beta``:

    .. math::

        J(f) = -\frac{\pi}{p}\sum_{x\in P} f(x)
               + \frac{1}{n}\sum_{x\in U}\max\bigl(f(x), \tfrac{1+f(x)}{2}, 0\bigr)
               + \lambda \|f\|^2 .

    Its dual is a box-constrained QP with one equality constraint, solved to tolerance ``tol``
    by a sequential-minimal-optimisation engine whose memory is linear in the number of samples
    plus a kernel-row cache of ``cache_size`` MB; no ``n x n`` matrix is ever built unless
    ``kernel="precomputed"``. At the solution every positive has ``alpha = c1 = pi/(2 lam p)``
    and every unlabeled point ``alpha_u = -sigma_u`` with ``0 <= sigma_u <= c2 = 1/(2 lam n)``.

    Parameters
    ----------
    prior : float in (0, 1), "auto" or None, default=None
        Class prior ``pi``: the proportion of positives among the unlabeled points. Required:
        None makes ``fit`` raise an error that names the choices. ``"auto"`` estimates it
        from ``X`` and ``s`` with :class:`~unlabeled.pu.priors.Blend`, seeded with
        ``random_state``: the mean of an estimate that errs high (best-bin estimation on
        held-out scores of labeled against unlabeled points, by a class-mean difference and
        a Gaussian-kernel density ratio, the lower of the two) and one that errs low with
        few labels (:class:`~unlabeled.pu.priors.TIcE`), each averaged over repeated random
        splits so that ``random_state`` moves it little. ``prior_interval_`` is its
        interval of plausible priors, inside (0, 1). When that interval is wider than 0.3
        the data say little about the prior (typically few labeled positives), and ``fit``
        warns (``UserWarning``): pass ``prior=`` if you know it, even roughly. With
        ``threshold="prior"``, on the tuning half of the PU suite
        (``benchmarks/_harness/pu_tables.py``, 1% / 5% / 20% of the positives labeled), the
        true prior plus 0.1 lowered the mean test F1 from 0.595 / 0.687 / 0.773 to 0.573 /
        0.651 / 0.698, minus 0.1 to 0.473 / 0.551 / 0.654: a prior too high costs less than
        one too low. Where the estimate is not in (0, 1), ``KM1`` and ``KM2`` are tried in
        turn, and ``prior_estimator_`` names the one used. If none gives a value in (0, 1),
        ``fit`` raises ``ValueError``: pass a number then.
        Not available with ``kernel="precomputed"``, which gives no feature vectors to
        estimate it from.
    lam : float >= 1e-30 or "cv", default=0.01
        Regularisation ``lambda`` of the paper. The dual's box bounds are about ``1 / lam``:
        below 1e-30 its sums near the range of double precision, so smaller values are
        refused. With ``threshold="prior"`` only the order of the decision values matters,
        and it changes little with ``lam``: as ``lam`` grows every unlabeled point settles in
        the middle piece of the loss (``sigma_u = c2 / 2``) and ``f`` tends to
        ``beta + (pi mean_P k(x_i, x) - mean_U k(x_u, x) / 2) / (2 lam)``, a kernel-mean
        score; smaller values fit the labeled positives more closely. The default needs no
        labels; the ``lam`` chosen with the true labels (``PUSVC-hindsight`` in
        ``benchmarks/archive/bench_pu_defaults-2026-11-28.md``) gains little over it.
        ``"cv"``: chosen from the PU data among 1e-2 and 1e-3 (``lam_``), as for
        ``gamma="cv"``.
    kernel : {"rbf", "linear", "poly", "precomputed"}, default="rbf"
        ``rbf``: exp(-gamma ||x - y||^2); ``poly``: (gamma <x, y> + coef0)^degree;
        ``precomputed``: ``X`` is the Gram matrix (``n_samples x n_samples`` at fit time,
        ``n_test x n_train`` at predict time).
    gamma : {"scale", "auto", "cv"} or float >= 0, default="scale"
        Kernel width, resolved as in :class:`sklearn.svm.SVC`: ``"scale"`` is
        ``1 / (n_features Var(X))``, so that ``gamma ||x - y||^2`` is about 2 for two
        random points whatever the units: the default needs no labels. ``"cv"``: chosen from
        the PU data among 0.1 and 1 times ``"scale"`` (``gamma_``; with ``lam="cv"`` jointly
        with ``lam``), by the held-out recall of the labeled positives at the prior's
        quantile of the held-out unlabeled points, which under SCAR estimates the F1 score
        of ``threshold="prior"`` without negatives (at the true prior, precision equals
        recall there): 3 folds of at most 600 rows, each fold's ``lam`` path warm-started;
        ties, and fewer than 2 labeled positives, go to the wider kernel and the larger
        ``lam``. Its folds are drawn from ``random_state``. On the tuning half of the PU
        suite (``benchmarks/_harness/pu_tables.py``; 13 tables, 3,000 rows, 2 labelings,
        standardised features) ``gamma="cv", lam="cv"`` raised the mean test F1 from
        0.595 / 0.687 / 0.773 to 0.612 / 0.715 / 0.785 at 1% / 5% / 20% of the positives
        labeled with the true prior (0.516 / 0.639 / 0.704 to 0.523 / 0.646 / 0.711 with
        ``prior="auto"``) for about 2.2 times the CPU time of a fit with the default numbers
        (1.5 times with ``prior="auto"``, whose estimate both pay).
        The held-out ROC-AUC of labeled against unlabeled points (prior-free) chose worse
        than the fixed defaults there. Not on Dask input.
    degree : int >= 0, default=3
    coef0 : float, default=0.0
    tol : float > 0, default=1e-3
        Stopping tolerance on the maximal KKT violation, in units of ``f`` (the paper's tau).
    cache_size : float in (0, 1e6], default=200
        Kernel-row cache budget in MB.
    max_iter : int >= 1 or None, default=None
        Cap on solver iterations (pair updates, or coordinate updates for the linear
        kernel). None: LIBSVM's default ``max(10^7, 100 n_samples)`` (``max(10^7, 1000
        n_samples)`` for the linear kernel), far above what a normal problem needs; a fit that
        reaches the cap stops with a ``ConvergenceWarning`` that names it.
    solver : {"auto", "smo", "usmo"}, default="auto"
        ``usmo``: the paper's algorithm (violating pairs over the sets D1/D2/D3, non-bound set
        with function cache, full scans). ``smo``: full gradient, second-order pair selection,
        shrinking and kernel-row cache. ``auto`` is ``smo``. For the linear kernel both keep
        the primal vector ``w`` so that a step costs O(nnz) rather than O(n d); from 5,000
        unlabeled points on, ``smo`` first finds the offset ``beta`` (for a fixed offset the
        dual separates into single coordinates, solved by LIBLINEAR-style coordinate
        descent, and ``sum sigma`` grows with ``beta``), then finishes with pairs. For
        ``rbf`` and ``poly`` kernels on large problems the start's kernel sums are matrix
        products through BLAS, in blocks of at most 64 MB.
    init : {"auto", "pilot", "ocsvm", "mean-kernel"}, default="auto"
        Starting point (any feasible start reaches the same optimum; a good one saves time).
        ``pilot``: solve the same problem loosely on 1,000 random unlabeled points and start
        each point in the state its pilot decision value suggests (used when there are more
        than 4,000 unlabeled points, ``mean-kernel`` below that); ``ocsvm``: the paper's
        section 4.5 (one-class SVM ranking, group sizes from its eq. 18); ``mean-kernel``: the
        points most similar to the positives start at ``sigma = c2``. ``auto`` is ``ocsvm``
        for ``usmo`` and ``pilot`` for ``smo``.
    verbose : bool, default=False
        Print progress to stderr about once a second: the start's phases (the pilot problem,
        the large kernel products with their sizes, share done and times), then the solver's
        iterations, KKT violation, objective and elapsed time.
    random_state : int, RandomState instance or None, default=None
        Draws the pilot subsample of ``init="pilot"``, the order in which ``usmo``'s full
        scans visit the points and, with ``probability=True``, the folds of the internal
        cross-validation. The optimum does not depend on it.
    shrinking : bool, default=True
        Let the ``smo`` solver set aside bound points that are unlikely to move (and the linear
        solver skip them between sweeps); the optimum does not depend on it.
    n_jobs : int or None, default=None
        Threads for long kernel rows (at least ~2 million multiply-adds each), at most the
        cores the process may use (``os.sched_getaffinity``; larger values are clipped to
        them). ``-1``: all cores the process may use; ``None``: those cores minus the
        processes already running on them when ``fit`` starts (at least one), because a
        thread that has to wait for a busy core stalls every row it takes part in.
    warm_start : bool, default=False
        Start the next ``fit`` on the same data (same ``X``, ``s`` and kernel) from the previous
        solution, rescaled to the new ``lam`` and repaired to the new ``prior``: a cheap way
        to walk a regularisation path. On other data it has no effect.
    cache_dtype : {"auto", "float64", "float32"}, default="auto"
        Storage of the cached kernel rows of the ``smo`` solver. ``float32`` holds twice as
        many rows in ``cache_size`` at about 7 significant digits, which moves the optimum by
        about 1e-7 relative; ``auto`` uses it when ``X`` is a dense float32 array.
    kernel_path : {"auto", "dense", "dense32", "sparse"}, default="auto"
        How the large kernel products of the ``smo`` solver (its start ``K_UU sigma0``, the
        pilot's decision values, ``g`` at the positives) are computed: through BLAS in blocks,
        as float64 matrix products (``dense``: sparse data densified), float32 ones
        (``dense32``: exact for data of small integers such as one-hot tables, about 1e-7
        relative otherwise) or sparse ones (``sparse``). ``auto`` densifies sparse data whose
        dense form takes at most 256 MB, and uses
        ``dense32`` where it is exact or ``X`` is float32. The choice is in ``cache_stats_``.
    probability : bool, default=False
        Enable :meth:`predict_proba`: estimates of ``P(y = 1 | x)`` on the unlabeled
        population (whose share of positives is ``prior``), from the PU data alone. ``fit``
        then refits the model on the training part of 5 stratified folds (fewer when there
        are fewer than 5 labeled positives; ``random_state`` draws them) and fits the
        sigmoid ``1 / (1 + exp(A f + B))`` to the held-out decision values by the
        non-negative PU log-loss risk at ``prior_`` (Kiryo et al. 2017), as
        :class:`sklearn.svm.SVC` fits Platt's sigmoid on held-out values. Off by default
        because it costs 5 more fits; ``decision_function`` and ``predict`` are those of
        the fit on all the data either way. The probabilities are non-decreasing in the
        decision value, but their 0.5 point need not be ``f = 0``: ``predict`` and
        ``predict_proba`` may disagree near the boundary.
    threshold : {"prior", "zero"}, default="prior"
        Where ``predict`` puts the boundary. ``"prior"``: at the value that the share
        ``positive_share_`` of the training unlabeled points exceeds (the ``round(q n)``
        largest of the ``n`` decision values ``f_u`` are positive, ``q = positive_share_``;
        the threshold ``t`` lies midway between the last of them and the next, and
        ``intercept_ = beta - t``). ``q`` is the prior when it is given. With
        ``prior="auto"`` and at least 2 labeled positives it is ``Blend``'s best-bin
        estimate (``upper_estimate_``, an estimate that errs high, never below ``prior_``
        nor above the interval's upper end): the F1 score loses more from a share too low
        than from one too high (on the tuning half of the PU suite, the true prior minus 0.1
        cost 0.12 to 0.15 of mean F1, plus 0.1 0.02 to 0.08), and the threshold at that
        share raised ``PUSVC(prior="auto")``'s mean test F1 there from 0.461 / 0.636 / 0.776
        (at ``prior_``) to 0.516 / 0.670 / 0.774 at 1% / 5% / 20% of the positives labeled
        (3,000 rows, 2 labelings; at the true share: 0.583 / 0.665 / 0.770). ``"zero"``: at
        ``f = 0`` with the solver's offset ``beta``, the paper's rule. The optimum is the same
        either way; only ``intercept_`` moves. Why ``"prior"`` is the default: the
        double hinge loss makes ``f`` about ``-1`` wherever the regularisation dominates
        (for ``pi < 1/2`` the constant part of ``J``, ``-pi beta + max(beta, (1 + beta)/2,
        0)``, is least at ``beta = -1``), so with few labeled positives no point need cross
        zero although the ranking is good: on Adult ``"zero"`` predicted no positive at
        all at 1%, 5% and 20% of the positives labeled. In
        ``benchmarks/archive/bench_pu_defaults-2026-11-28.md`` (12 UCI sets, Adult, Shuttle; those
        rates; ``prior="auto"``) ``"prior"`` had a mean F1 of 0.732 against 0.624 for
        ``"zero"``, which predicted a single class in 22 of 197 labelings (``"prior"`` in
        none). On Dask input the quantile is taken over the unlabeled rows of the start's
        stratified sample (up to 25,000 rows).
    standardize : bool, default=False
        Centre and scale each non-binary feature to unit variance over the training points
        (``mean_``, ``scale_``) before the kernel and the prior's estimate; columns holding
        only 0 and 1 (one-hot categories) are left as they are, sparse ``X`` is scaled but
        not centred. Pass True unless the features are already on comparable scales (or
        are standardised beforehand, e.g. with :class:`sklearn.preprocessing.StandardScaler`
        in a pipeline): the rbf kernel's ``gamma="scale"`` uses one variance for all
        features, so a feature in large units dominates the distances. On the tuning half
        of the PU suite (true prior; 1% / 5% / 20% labeled) the mean test F1 was 0.610 /
        0.691 / 0.782 with this rule, 0.613 / 0.692 / 0.767 on the raw features (but 0.25
        against 0.47 on winequality-white at 20%, whose features have different units) and
        0.595 / 0.687 / 0.773 with every column standardised. False by default so that a
        fit on given features is that of earlier versions. Ignored for
        ``kernel="precomputed"``; not on Dask input.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        ``[0, 1]``.
    support_ : ndarray of shape (n_SV,)
        Indices into the training ``X`` of the points with a non-zero coefficient.
    support_vectors_ : ndarray or sparse matrix of shape (n_SV, n_features)
        Empty for ``kernel="precomputed"``.
    dual_coef_ : ndarray of shape (1, n_SV)
        ``c1`` for labeled positives, ``-sigma_u`` for unlabeled points.
    intercept_ : ndarray of shape (1,)
        ``beta - threshold_``: the solver's bias ``beta`` (averaged over free points, or the
        midpoint of the interval that the bound points allow when no point is free), moved
        by the threshold rule ``threshold``.
    threshold_ : float
        The threshold ``t`` of ``threshold`` (0 for ``"zero"``): ``beta = intercept_ +
        threshold_``.
    coef_ : ndarray of shape (1, n_features)
        Primal weights; linear kernel only.
    objective_ : float
        The primal objective ``J`` at the solution, computed from the decision values.
    n_iter_ : int
        Updates made by the solver: pair steps, plus the single-coordinate steps of the
        linear solver's offset search.
    cache_stats_ : dict
        Kernel-row cache of the ``smo`` solver: ``hits``, ``misses``, ``bytes`` (memory the
        cache holds, at most ``cache_size`` MB), ``kernel_rows`` (rows computed) and
        ``kernel_path`` (see ``kernel_path``; None where no BLAS product was needed).
    prior_ : float
        The class prior used (the estimate when ``prior="auto"``).
    gamma_ : float
        The kernel width fitted with: ``gamma`` resolved (with ``standardize=True``,
        ``"scale"`` is ``1 / sum_j Var(x_j)`` on the standardised features: ``1 / (n_features
        X.var())`` once every column is centred, the same for dense and sparse ``X``), or
        the one ``gamma="cv"`` chose.
    lam_ : float
        The regularisation fitted with: ``lam``, or the one ``lam="cv"`` chose.
    mean_, scale_ : ndarray of shape (n_features,) or None
        ``standardize=True``: the features' centres and scales (0 and 1 for binary and
        constant columns, centres 0 for sparse ``X``); ``support_vectors_`` and ``coef_``
        are in the standardised units ``(x - mean_) / scale_``. None otherwise.
    positive_share_ : float
        The share of the training unlabeled points that ``threshold="prior"`` predicts
        positive: the prior given, or with ``prior="auto"`` the share described under
        ``threshold``.
    prior_estimator_ : str or None
        Name of the class-prior estimator used by ``prior="auto"``; None when the prior was
        given.
    prior_interval_ : tuple (lo, hi) or None
        With ``prior="auto"``: the estimator's interval of plausible priors (``Blend``'s
        ``bracket_``, whose ends lie inside ``[1 / (2 n), 1 - 1 / (2 n)]`` for ``n``
        unlabeled points; an upper end there means that the data bound the prior by nothing
        better than 1), with ``prior_`` inside it. None otherwise.
    probA_, probB_ : ndarray of shape (1,)
        ``A`` and ``B`` of the sigmoid of :meth:`predict_proba`; ``probability=True`` only.
    duality_gap_ : float
        Fits on Dask input only: ``objective_`` minus a lower bound of the optimum (in the
        units of ``objective_``), at most ``tol * max(1, |objective_|)`` unless ``max_iter``
        rounds stopped the fit.
    n_rounds_ : int
        Fits on Dask input only: the rounds of the distributed solver.
    n_features_in_ : int

    References
    ----------
    E. Sansone, F. G. B. De Natale, Z.-H. Zhou, "Efficient Training for Positive Unlabeled
    Learning", IEEE TPAMI 41(11), 2019. C. Ma, V. Smith, M. Jaggi, M. I. Jordan, P.
    Richtarik, M. Takac, "Adding vs. averaging in distributed primal-dual optimization", ICML
    2015 (CoCoA+, the solver on Dask input). M. C. du Plessis, G. Niu, M. Sugiyama, "Convex
    formulation for learning from positive and unlabeled data", ICML 2015. R. Kiryo, G. Niu,
    M. C. du Plessis, M. Sugiyama, "Positive-unlabeled learning with non-negative risk
    estimator", NeurIPS 2017 (``probability``).

    Examples
    --------
    >>> import numpy as np
    >>> from unlabeled import PUSVC
    >>> rng = np.random.default_rng(0)
    >>> X = np.r_[rng.normal(1, 1, (100, 2)), rng.normal(-1, 1, (100, 2))]
    >>> s = np.zeros(200, dtype=int); s[:30] = 1          # 30 labeled positives
    >>> clf = PUSVC(prior=70 / 170, lam=0.01).fit(X, s)
    >>> clf.predict(X[:3])
    array([1, 1, 1])
    >>> clf = PUSVC(prior=70 / 170, probability=True, random_state=0).fit(X, s)
    >>> clf.predict_proba(X[:3]).shape                    # columns: P(y=0|x), P(y=1|x)
    (3, 2)
    """

    def __init__(
        self,
        prior: float | str | None = None,
        lam: float = 0.01,
        *,
        kernel: str = "rbf",
        gamma: str | float = "scale",
        degree: int = 3,
        coef0: float = 0.0,
        tol: float = 1e-3,
        cache_size: float = 200,
        max_iter: int | None = None,
        solver: str = "auto",
        init: str = "auto",
        verbose: bool | int = False,
        random_state: int | np.random.RandomState | None = None,
        shrinking: bool = True,
        n_jobs: int | None = None,
        warm_start: bool = False,
        cache_dtype: str = "auto",
        kernel_path: str = "auto",
        probability: bool = False,
        threshold: str = "prior",
        standardize: bool = False,
    ) -> None:
        set_init_params(self, locals())

    _required_params: dict = {
        "prior": "a number in (0, 1), the proportion of positives among the unlabeled points "
        "(e.g. prior=0.3), or prior='auto' to estimate it from X and s"
    }
    _parameter_constraints: dict = {
        **KernelPUModel._parameter_constraints,
        "prior": [Options(("auto",)), Real(0.0, 1.0)],
        "lam": [Options(("cv",)), Real(MIN_LAM, low_open=False)],
        "gamma": [Options(("scale", "auto", "cv")), Real(0.0, low_open=False)],
        "tol": [Real(0.0)],
        "cache_size": [Real(0.0, MAX_CACHE_MB, high_open=False)],
        "max_iter": [None, Integer(1)],
        "solver": [Options(_SOLVERS)],
        "init": [Options(_INITS)],
        "verbose": VERBOSE,
        "shrinking": [Boolean()],
        "n_jobs": [None, Options((-1,)), Integer(1)],
        "warm_start": [Boolean()],
        "cache_dtype": [Options(("auto", "float64", "float32"))],
        "kernel_path": [Options(PATHS)],
        "standardize": [Boolean()],
    }

    _fitted_attributes: dict = {
        "n_iter_": Fitted("int", low=0),
        "prior_estimator_": Fitted("str", none=True, choices=tuple(priors.__all__)),
        "prior_interval_": Fitted("floats", (2,), none=True),
        # threshold="prior"'s share (absent from older files: the prior then)
        "positive_share_": Fitted("float", low=0.0, high=1.0, optional=True),
        "cache_stats_": Fitted("dict", choices=PATHS),
        "solver_": Fitted("str", choices=("smo", "usmo")),
        # the values fitted with (chosen by gamma="cv" / lam="cv"); absent from older files
        "gamma_": Fitted("float", low=0.0, high=ANY_FINITE, optional=True),  # as _gamma
        "lam_": Fitted("float", low=MIN_LAM, optional=True),
        # standardize=True: the features' centres and scales (None otherwise, or absent: a
        # file written before the parameter, which holds standardize=False)
        "mean_": Fitted("f", ("n_features_in_",), none=True, optional=True),
        "scale_": Fitted("f", ("n_features_in_",), low=0.0, none=True, optional=True),
        # Dask input only (kernel="linear"): the certificate of the distributed solver
        "duality_gap_": Fitted("float", low=0.0, optional=True),
        "n_rounds_": Fitted("int", low=1, optional=True),
        "_warm": None,  # the warm start's state: a loaded model starts cold
        "_sar": None,  # fit(propensity=...)'s propensities, during fit only
    }

    # ------------------------------------------------------------------ fitting
    def fit(self, X: MatrixLike, s: ArrayLike, *, propensity: ArrayLike | None = None) -> PUSVC:
        r"""Fit the classifier: minimise the PU risk ``J`` over kernel expansions.

        With ``c1 = pi / (2 lam p)`` and ``c2 = 1 / (2 lam n)``, the solver finds the
        ``sigma`` of the dual

        .. math::

            \min_{0 \le \sigma \le c_2,\ 1^\top\sigma = c_1 p}\
            \tfrac12 \alpha^\top K \alpha + \sum_{u\in U}\max(-\sigma_u, \sigma_u - c_2),
            \qquad \alpha_P = c_1,\ \alpha_U = -\sigma,

        to the tolerance ``tol`` on the KKT violation, then ``beta`` from the optimality
        conditions; ``f(x) = sum_i alpha_i k(x_i, x) + beta``.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
            Read by the engine as stored: float64 or float32 (then a float32 kernel cache
            with ``cache_dtype="auto"``) dense rows, or CSR; other inputs are converted once.
            With ``kernel="precomputed"``, the square Gram matrix. Never modified.
            A Dask array (or DataFrame) chunked by rows, dense or CSR chunks, with
            ``kernel="linear"``: fitted on the workers of the current ``distributed.Client``
            by CoCoA+ rounds (one local subproblem per worker, the engine's coordinate
            descent against its copy of ``w``, sigma' = the number of workers) at a fixed
            offset, the offset found by the in-memory linear path's secant search, until the
            duality gap is at most ``tol * max(1, |objective_|)`` (``duality_gap_``,
            ``n_rounds_``; ``max_iter`` caps the rounds, default 1000), started from the
            in-memory fit of a sample. Persisted chunks (``X.persist()``) stay on the
            workers; others are read again from their source every round, one at a time
            (memory flat in n). ``w`` and a few numbers travel per round. The model
            keeps ``coef_`` and ``intercept_``, not the ``n`` dual coefficients
            (``support_`` is empty). Other kernels, ``prior="auto"``, ``probability=True``
            and ``warm_start=True`` are refused on Dask input.
        s : array-like of shape (n_samples,)
            PU labels: 1 = labeled positive, 0 or -1 = unlabeled (or booleans), at least one
            of each. With ``prior="auto"`` they also give the class-prior estimate. A Dask
            or NumPy array with Dask ``X``.
        propensity : array-like of shape (n_samples,), optional
            For labels not selected completely at random: ``e(x_i) = P(s=1 | y=1, x_i)``, the
            probability that a positive like ``x_i`` is labeled (read at the labeled
            positives; :class:`unlabeled.pu.sar.SAREM` estimates it). Then ``J`` becomes the
            SAR risk of Bekker, Robberechts and Davis (2019): every training point, labeled
            or not, is a draw of the population, and each labeled positive stands for
            ``1 / e`` of its positives (:func:`unlabeled.pu.sar.propensity_weights`),

            .. math::

                J(f) = -\pi_N \frac{\sum_P f(x_p) / e_p}{\sum_P 1 / e_p}
                       + \frac1N \sum_{i=1}^N \max\bigl(f(x_i), \tfrac{1+f(x_i)}{2},
                       0\bigr) + \lambda \|f\|^2 ,

            with ``pi_N = (p + prior n) / N`` the share of positives among the ``N`` points
            (``positive_share_``: ``threshold="prior"`` puts that share of the training
            points above the threshold), solved by the engine's general pair solver
            (``solver`` and ``init`` do not apply, ``warm_start`` has no effect). Small
            propensities make large weights: clip them (``np.maximum(e, 0.05)``). None (the
            default): SCAR, the model bit for bit as without the argument. Not with
            ``prior="auto"`` (pass a number, e.g. ``SAREM``'s ``prior_``), ``gamma="cv"``,
            ``lam="cv"``, ``probability=True`` (its PU sigmoid assumes SCAR) or Dask input.

        Returns
        -------
        self : PUSVC
            The fitted classifier; ``objective_`` is ``J`` at the solution.

        Raises
        ------
        ValueError, TypeError
            A bad parameter or input, before any work, with a message that names it and the
            fix; a ``ValueError`` also when ``prior="auto"`` finds no estimate in (0, 1).

        See Also
        --------
        DoubleHingeQP : The same problem by a dense interior-point solver.
        unlabeled.pu.priors : Class-prior estimators, for ``prior``.
        """
        if propensity is None:
            if is_dask_collection(X) or is_dask_collection(s):
                return self._fit_dask(X, s)
            return super().fit(X, s)
        self._sar = _check_propensity(self, X, s, propensity)
        try:
            return super().fit(X, s)
        finally:
            del self._sar

    def _fit_dask(self, X, s) -> PUSVC:
        """``fit`` on Dask input: the distributed linear solver of
        :mod:`unlabeled.pu._dask_linear` (CoCoA+ rounds, outer offset search, duality gap)."""
        params = self._validate_params()
        if self.kernel != "linear":
            raise ValueError(
                f"PUSVC(kernel={self.kernel!r}) has no distributed solver for Dask input: only "
                "kernel='linear' is fitted on a Dask cluster. Use kernel='linear', or pass "
                "X.compute() and s.compute() (NumPy arrays) if the data fit in memory"
            )
        for name, bad, fix in (
            ("prior", params["prior"] == "auto", "pass the prior as a number in (0, 1)"),
            ("probability", params["probability"], "use probability=False"),
            ("warm_start", params["warm_start"], "use warm_start=False"),
            ("lam", params["lam"] == "cv", "pass lam as a number"),
            ("standardize", params["standardize"], "scale the columns beforehand"),
        ):
            if bad:
                raise ValueError(
                    f"PUSVC({name}={getattr(self, name)!r}) is not available on Dask input: {fix}, "
                    "or pass NumPy arrays (X.compute()) if the data fit in memory"
                )
        self._gamma = 1.0  # unused by the linear kernel (as check_gamma resolves it)
        fit_linear_dask(self, X, s, float(params["prior"]), float(params["lam"]))
        self.prior_estimator_, self.prior_interval_ = None, None
        self.positive_share_ = float(params["prior"])
        self.gamma_, self.lam_ = float(self._gamma), float(params["lam"])
        self.mean_, self.scale_ = None, None
        self.solver_ = "smo"
        self.cache_stats_ = {
            "hits": 0,
            "misses": 0,
            "bytes": 0,
            "kernel_rows": 0,
            "kernel_path": None,
        }
        self._set_sigmoid(None)
        return self

    def _validate_params(self) -> dict:
        params = super()._validate_params()
        if params["prior"] == "auto" and self.kernel == "precomputed":
            raise ValueError(
                "prior='auto' needs feature vectors, but kernel='precomputed' gives a Gram "
                "matrix: pass the prior as a number, e.g. estimated with "
                f"unlabeled.pu.priors.{AUTO_PRIOR_ESTIMATORS[0]} on the features"
            )
        return params

    def _fit(self, X, mask, params):
        """The engine's solver from the chosen start; see :meth:`fit`."""
        X = self._standardize(X, params["standardize"])
        lam = params["lam"]
        prior, self.prior_estimator_, self.prior_interval_ = params["prior"], None, None
        share = prior
        if prior == "auto":
            prior, share, self.prior_estimator_, self.prior_interval_ = auto_prior(
                X, mask, self.random_state
            )
            warn_wide_interval(self.prior_interval_, prior)
        self.positive_share_ = float(share)
        solver = "smo" if self.solver == "auto" else self.solver
        init = self.init
        if init == "auto":
            init = "ocsvm" if solver == "usmo" else "pilot"
        rng = check_random_state(self.random_state)
        if lam == "cv" or (self.gamma == "cv" and self.kernel in ("rbf", "poly")):
            lam = self._select(X, mask, prior, lam, int(rng.randint(np.iinfo(np.int32).max)))
        self.gamma_, self.lam_ = float(self._gamma), float(lam)
        sar = getattr(self, "_sar", None)
        if sar is not None:
            kparams = engine_settings(self, self.cache_size, self.n_jobs)
            self.solver_ = "smo"
            self.positive_share_ = population_share(mask, prior)
            return fit_weighted(self, X, mask, prior, lam, sar, kparams)

        problem = PUProblem.from_mask(mask, prior, lam)
        data = engine_data(X, self.kernel)
        kparams = engine_settings(self, self.cache_size, self.n_jobs)
        kparams["cache_float32"] = self.cache_dtype == "float32" or (
            self.cache_dtype == "auto" and data.float32
        )
        seed = int(rng.randint(np.iinfo(np.int32).max))
        start = self._start(X, mask, data, kparams, solver, init, problem, seed)
        sigma0, beta0, products, blas, warm_key = start

        linear = self.kernel == "linear"
        cap = self._max_iter(X.shape[0], linear)
        progress = EngineProgress(self.verbose, "[PUSVC]")
        res = _engine.solve_pu(
            data,
            **kparams,
            **problem.engine_args(),
            options=_engine.SolverOptions(
                float(self.tol),
                bool(self.shrinking),
                cap,
            ),
            solver=0 if solver == "smo" else 1,
            sigma0=sigma0,
            progress=progress,
            seed=seed,
            linear_cd=_LINEAR_CD,
            beta0=float(beta0),
            **products,
        )
        progress.done(res)
        self._warn_if_not_converged(res, "PUSVC", limit=cap, linear=linear)

        g_pos = None
        if blas is not None:
            pos, unl = problem.pos, problem.unl
            coef = np.r_[np.full(pos.size, problem.c1), -res.sigma]
            g_pos = blas(pos, np.r_[pos, unl], coef)[:, 0]
        store_solution(self, X, problem, res, g_pos)
        self.cache_stats_ = {
            "hits": int(res.cache_hits),
            "misses": int(res.cache_misses),
            "bytes": int(res.cache_bytes),
            "kernel_rows": int(res.kernel_rows),
            "kernel_path": None if blas is None else blas.path,
        }
        self.solver_ = solver
        if self.warm_start:
            self._warm = _starts.warm_state(warm_key, lam, res)
        return res.g_unl + float(res.beta)

    def _threshold_share(self) -> float:
        """``positive_share_`` (older model files: the prior)."""
        share = getattr(self, "positive_share_", None)
        return super()._threshold_share() if share is None else float(share)

    def _check_fitted(self) -> None:
        """The base's checks, and ``mean_`` and ``scale_`` as ``fit`` makes them: both arrays
        exactly when ``standardize`` (and a kernel on features), else both None or absent (a
        file written before the parameter); the scales positive. (A file with ``mean_`` None
        or missing beside ``scale_`` loaded, then failed in ``predict``.)"""
        super()._check_fitted()
        wanted = bool(self.standardize) and self.kernel != "precomputed"
        for name in ("mean_", "scale_"):
            if (getattr(self, name, None) is not None) != wanted:
                raise ValueError(
                    f"{name} must be {'an array' if wanted else 'None'} when standardize="
                    f"{self.standardize} and kernel={self.kernel!r}"
                )
        if wanted and not np.all(np.asarray(self.scale_) > 0):
            raise ValueError("scale_ must hold positive scales")

    def _standardize(self, X, standardize: bool):
        """``X`` with ``standardize=True`` (and a kernel on features): its non-binary columns
        centred and scaled (``mean_``, ``scale_``: ``_validation.standardize_moments``), the
        kernel width and the numerical preflight redone on them; else ``X`` itself."""
        self.mean_, self.scale_ = None, None
        if not standardize or self.kernel == "precomputed":
            return X
        self.mean_, self.scale_ = standardize_moments(X)
        X = standardize_rows(X, self.mean_, self.scale_)
        self._gamma = standardized_gamma(self.gamma, self.kernel, X)
        check_kernel_scale(X, self.kernel, self._gamma, self.degree, self.coef0)
        return X

    def _decision_values(self, X) -> np.ndarray:
        """``f(x)`` on checked ``X``, standardised first when the model was fitted with
        ``standardize=True`` (its support vectors and ``coef_`` are in those units), in blocks
        of at most 64 MB of standardised rows."""
        if getattr(self, "scale_", None) is None:
            return super()._decision_values(X)
        step = max(1, 2**23 // max(X.shape[1], 1))
        base = super()._decision_values
        out = [
            base(standardize_rows(X[r : r + step], self.mean_, self.scale_))
            for r in range(0, X.shape[0], step)
        ]
        return np.concatenate(out) if out else np.empty(0)

    def _select(self, X, mask, prior, lam, seed) -> float:
        """``gamma="cv"`` / ``lam="cv"``: the kernel width (set as ``_gamma``) and the ``lam``
        (returned) chosen from PU data (:func:`~unlabeled.pu._select.cv_selection`)."""
        gammas = [self._gamma]
        if self.gamma == "cv" and self.kernel in ("rbf", "poly"):
            gammas = [self._gamma * c for c in CV_GAMMA_FACTORS]
        lams = list(CV_LAMS) if lam == "cv" else [lam]
        self._gamma, lam, _ = cv_selection(self, X, mask, prior, gammas, lams, seed)
        return float(lam)

    def _start(self, X, mask, data, kparams, solver, init, problem, seed):
        """The solver's start on ``problem`` (see :mod:`unlabeled.pu._starts`): (sigma0 or
        None for the engine's mean-kernel start, the linear solver's offset guess beta0 or
        NaN, the engine's start products, the BLAS helper or None, the warm-start key or
        None)."""
        sigma0, beta0 = None, np.nan
        # hashing X costs a pass over the data: only when a warm start may use it
        warm_key = None
        if self.warm_start:
            warm_key = _starts.fingerprint(
                X, mask, self.kernel, self._gamma, self.degree, self.coef0
            )
        warm = getattr(self, "_warm", None) if self.warm_start else None
        warm_products = None
        if warm is not None and warm["key"] == warm_key:
            beta0, sigma0 = warm["beta"], _starts.warm_sigma(warm, problem)
            if warm["products"] is not None and self.kernel in ("rbf", "poly"):
                warm_products = warm  # (kernel_products evaluates these kernels only)
        elif init == "ocsvm":
            sigma0 = _starts.ocsvm_start(
                X, problem, self.kernel, self._gamma, self.degree, self.coef0
            )
        elif init == "pilot" and problem.unl.size > 4 * _starts.PILOT_SIZE:
            sigma0, beta0 = _starts.pilot_start(self, X, data, kparams, problem, seed)
        sigma0, products, blas = _starts.start_products(
            self, X, kparams, solver, problem, sigma0, warm_products
        )
        return sigma0, beta0, products, blas, warm_key


# ---------------------------------------------------------------------- helpers
def _check_propensity(est, X, s, propensity):
    """``fit(propensity=...)``: the propensities of the labeled positives, in row order, after
    refusing what the weighted path does not do."""
    e, mask = checked_propensity(
        est,
        X,
        s,
        propensity,
        (
            ("prior", est.prior == "auto", "pass a number, e.g. SAREM(...).fit(X, s).prior_"),
            ("lam", est.lam == "cv", "pass lam as a number"),
            ("gamma", est.gamma == "cv", "pass gamma as a number or 'scale'"),
            ("probability", est.probability, "use probability=False (its sigmoid assumes SCAR)"),
        ),
    )
    return e[mask]


def auto_prior(X, mask, random_state):
    """prior="auto": (estimate, threshold="prior"'s share, estimator name, interval or None);
    see ``prior`` and ``threshold``."""
    found = []
    for name in AUTO_PRIOR_ESTIMATORS:
        est = getattr(priors, name)(random_state=random_state).fit(X, mask.astype(np.int8))
        if 0.0 < est.prior_ < 1.0:
            interval = getattr(est, "bracket_", None)
            share = est.prior_
            # Blend's best-bin estimate (held out: from 2 labeled positives on) errs high,
            # and a share too high costs F1 less than one too low (see ``threshold``)
            if hasattr(est, "upper_estimate_") and est.n_labeled_ >= 2:
                share = min(max(est.upper_estimate_, est.prior_), interval[1])
            interval = None if interval is None else tuple(interval)
            return float(est.prior_), float(share), name, interval
        found.append(f"{name} {est.prior_:.4g}")
    raise ValueError(
        "prior='auto': no estimator gave a proportion of positives among the unlabeled points "
        f"inside (0, 1) ({', '.join(found)}), which PUSVC needs; pass the prior as a number "
        "in (0, 1)"
    )


def warn_wide_interval(interval, prior, stacklevel: int = 7):
    """prior="auto": a UserWarning when the interval of plausible priors is wider than
    AUTO_PRIOR_WARN_WIDTH."""
    if interval is None or not interval[1] - interval[0] > AUTO_PRIOR_WARN_WIDTH:
        return
    warnings.warn(
        f"prior='auto' estimated the class prior at {prior:.3g}, but the data leave it "
        f"anywhere in [{interval[0]:.3g}, {interval[1]:.3g}] (prior_interval_, wider than "
        f"{AUTO_PRIOR_WARN_WIDTH}): too few labeled positives or too much overlap to tell. "
        "If you know the proportion of positives among the unlabeled points, even roughly, "
        "pass it as prior=",
        UserWarning,
        # PUSVC's caller, past this, _fit, the base fit, PUSVC.fit and their wrappers
        stacklevel=stacklevel,
    )


__all__ = ["PUSVC"]
