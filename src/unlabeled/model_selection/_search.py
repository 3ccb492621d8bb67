r"""A grid search over a PU estimator's parameters, scored from PU labels, that walks each
fold's regularisation path with warm starts.

:class:`PUGridSearchCV` evaluates the same candidates on the same folds as scikit-learn's
``GridSearchCV`` but walks each fold's regularisation path from large ``lam`` to small with
``warm_start=True``, so each fit starts from the previous solution; the scores are those of cold
fits up to the solver tolerance. Its tasks (one per fold and combination of the other
parameters) run through joblib, so ``joblib.parallel_backend("dask")`` distributes them over a
Dask cluster.
"""

from __future__ import annotations

import numbers
import sys
import time
from collections.abc import Mapping, Sequence
from copy import deepcopy
from itertools import groupby
from typing import Any

import numpy as np
import scipy.sparse as sp
from joblib import Parallel, delayed
from numpy.typing import ArrayLike
from scipy.stats import rankdata
from sklearn.base import MetaEstimatorMixin, clone
from sklearn.model_selection import ParameterGrid
from sklearn.pipeline import Pipeline
from sklearn.utils import get_tags
from sklearn.utils.validation import check_is_fitted

from .._validation import (
    INT_MAX,
    VERBOSE,
    Boolean,
    Integer,
    check_gamma,
    check_pu_labels,
    standardize_moments,
    standardize_rows,
    standardized_gamma,
)
from ..base import ValidatedEstimator
from ..exceptions import InvalidParameterError
from ..metrics import SCORING_NAMES, PUScorer, make_pu_scorer
from ._split import check_pu_cv

__all__ = ["DEFAULT_GAMMA_FACTORS", "DEFAULT_LAMS", "PUGridSearchCV", "default_param_grid"]

#: regularisation path of the default grid (walked from the largest value down)
DEFAULT_LAMS = tuple(np.logspace(-4, -1, 7).tolist())
#: kernel widths of the default grid, as multiples of gamma="scale" on the data given to fit
DEFAULT_GAMMA_FACTORS = (0.1, 0.3, 1.0, 3.0, 10.0)


def _final_step(estimator: Any) -> tuple[str, Any]:
    """The estimator that a (nested) :class:`~sklearn.pipeline.Pipeline` ends with and the
    prefix of its parameter names there (``"pusvc__"`` for ``make_pipeline(StandardScaler(),
    PUSVC(...))``); ``("", estimator)`` for an estimator that is not a pipeline."""
    prefix = ""
    while isinstance(estimator, Pipeline):
        name, estimator = estimator.steps[-1]
        prefix += f"{name}__"
    return prefix, estimator


def _final_input(estimator: Any, X: Any) -> Any:
    """``X`` as a (nested) pipeline's final step sees it: through clones of the steps before
    it, fitted on ``X`` (without labels); ``X`` itself for an estimator that is not one."""
    while isinstance(estimator, Pipeline):
        if len(estimator) > 1:
            X = clone(estimator[:-1]).fit_transform(X)
        estimator = estimator.steps[-1][1]
    return X


def default_param_grid(estimator: Any, X: Any) -> dict[str, list]:
    """The grid :class:`PUGridSearchCV` uses when ``param_grid=None``.

    ``lam`` over ``DEFAULT_LAMS`` (1e-4 to 1e-1, 7 values) and, for the ``rbf`` and ``poly``
    kernels, ``gamma`` over ``DEFAULT_GAMMA_FACTORS`` times the ``"scale"`` value of ``X``
    (``1 / (n_features * X.var())``, as in :class:`sklearn.svm.SVC`; of ``X`` standardised
    as the estimator's ``standardize=True`` does it). The prior is the
    estimator's own (searching it needs an explicit grid and a fixed evaluation prior).
    For a :class:`~sklearn.pipeline.Pipeline`, the grid is that of its last step, with the
    step's prefix (``{"pusvc__lam": [...], "pusvc__gamma": [...]}``), ``"scale"`` measured on
    ``X`` transformed by the steps before it.

    Parameters
    ----------
    estimator : estimator with a ``lam`` parameter, or a Pipeline ending with one
        E.g. :class:`~unlabeled.PUSVC`; its ``kernel`` decides whether ``gamma`` is searched.
    X : array-like or sparse matrix of shape (n_samples, n_features)
        The data the search will fit on (for the ``"scale"`` value of ``gamma``).

    Returns
    -------
    dict
        ``{"lam": [...]}`` and, for the rbf and poly kernels, ``"gamma": [...]`` (prefixed by
        the last step's name for a pipeline).

    Raises
    ------
    ValueError
        When ``estimator`` has no ``lam`` parameter.

    See Also
    --------
    PUGridSearchCV : the search that uses this grid by default.

    Examples
    --------
    >>> import numpy as np
    >>> from unlabeled import PUSVC
    >>> from unlabeled.model_selection import default_param_grid
    >>> X = np.random.default_rng(0).normal(size=(20, 3))
    >>> grid = default_param_grid(PUSVC(0.5), X)
    >>> sorted(grid), len(grid["lam"]), len(grid["gamma"])
    (['gamma', 'lam'], 7, 5)
    >>> sorted(default_param_grid(PUSVC(0.5, kernel="linear"), X))   # no gamma to search
    ['lam']
    """
    prefix, final = _final_step(estimator)
    params = final.get_params() if hasattr(final, "get_params") else {}
    if "lam" not in params:
        raise ValueError(
            f"param_grid=None gives a default grid only for estimators with a lam parameter "
            f"(PUSVC, DoubleHingeQP, RampPU, ...) or pipelines ending with one; "
            f"{type(final).__name__} has none: pass param_grid"
        )
    grid: dict[str, list] = {f"{prefix}lam": list(DEFAULT_LAMS)}
    if params.get("kernel") in ("rbf", "poly") and "gamma" in params:
        X = _final_input(estimator, X)
        X = X if sp.issparse(X) else np.asarray(X, dtype=np.float64)
        if params.get("standardize") is True:  # PUSVC's: "scale" of the features it sees
            X = standardize_rows(X, *standardize_moments(X))
            scale = standardized_gamma("scale", params["kernel"], X)
        else:
            scale = check_gamma("scale", params["kernel"], X)
        grid[f"{prefix}gamma"] = [float(scale * c) for c in DEFAULT_GAMMA_FACTORS]
    return grid


def _index(X, idx):
    """The rows ``idx`` of ``X``: an array, a sparse matrix, a pandas DataFrame or Series (by
    position, as scikit-learn's splitters mean them), or a list."""
    if hasattr(X, "iloc"):
        return X.iloc[idx]
    return X[idx] if hasattr(X, "shape") else [X[i] for i in idx]


def _search_input(X):
    """``X`` as the search indexes it, never modified: sparse formats without row indexing
    (COO, DIA, BSR, ...) as a CSR copy; other inputs as given (a DataFrame keeps its column
    names for the estimators)."""
    if not hasattr(X, "shape"):
        return np.asarray(X)
    if sp.issparse(X) and X.format not in ("csr", "csc"):
        return X.tocsr()
    return X


def _check_candidate_values(estimator, candidates) -> None:
    """Check every candidate's values as its estimator's ``fit`` would, before any split or
    fit: a bad grid value (``lam=-1``) is reported naming its parameter, not as whatever the
    first fold's fit or the splitter would stumble on. Uses the estimator's own parameter
    check (``_validate_params`` against ``_parameter_constraints``, which the library's
    estimators and scikit-learn's have; others are checked by their ``fit``). For a pipeline,
    the values of its last step's parameters are checked on that step."""
    prefix, base = _final_step(clone(estimator))
    if not hasattr(base, "_parameter_constraints") or not callable(
        getattr(base, "_validate_params", None)
    ):
        return
    for params in candidates:
        own = {k[len(prefix) :]: v for k, v in params.items() if k.startswith(prefix)}
        try:
            clone(base).set_params(**own)._validate_params()
        except (ValueError, TypeError) as exc:
            try:  # the same type (InvalidParameterError, ...), saying where the value came from
                named = type(exc)(f"param_grid: {exc}")
            except Exception:  # noqa: BLE001 - a type with another signature: as raised
                raise exc from None
            raise named from exc


def _fit_path(estimator, X, s, train, test, fold, path, scorer, warm):
    """Fit and score the candidates of one fold and one combination of the non-path parameters.

    ``path`` lists (candidate index, parameters) in the order to fit them (lam from large to
    small). With ``warm`` (the name of the ``warm_start`` parameter, prefixed in a pipeline)
    one estimator is refitted along the path with it set, so that each fit starts from the
    previous solution on the same training data.
    """
    if get_tags(estimator).input_tags.pairwise:  # X is a Gram matrix: columns of train
        X = np.asarray(X)
        X_tr, X_te = X[np.ix_(train, train)], X[np.ix_(test, train)]
    else:
        X_tr, X_te = _index(X, train), _index(X, test)
    s_tr, s_te = _index(s, train), _index(s, test)
    out = []
    est = None
    for cand, params in path:
        if est is None or not warm:
            est = clone(estimator)
            if warm:
                est.set_params(**{warm: True})
        est.set_params(**params)
        t0 = time.perf_counter()
        est.fit(X_tr, s_tr)
        fit_time = time.perf_counter() - t0
        t0 = time.perf_counter()
        score = float(scorer(est, X_te, s_te))
        score_time = time.perf_counter() - t0
        n_iter = int(getattr(_final_step(est)[1], "n_iter_", 0))
        out.append((cand, fold, score, fit_time, score_time, n_iter))
    return out


class PUGridSearchCV(MetaEstimatorMixin, ValidatedEstimator):
    """Grid search over a PU estimator's parameters, scored from PU labels, with warm starts
    along the regularisation path.

    Candidates, folds and the layout of ``cv_results_`` are those of scikit-learn's
    ``GridSearchCV(estimator, param_grid, scoring=..., cv=...)``, and so are the scores up to the
    solver tolerance: for each fold and each combination of the other parameters (``gamma``,
    ``prior``, ...), one task fits the ``lam`` values from the largest to the smallest with
    ``warm_start=True`` (when the estimator has that parameter, as PUSVC does), so each fit
    starts from the previous solution on the same training fold; only the time changes. The
    tasks run through joblib: ``n_jobs`` processes locally, or a Dask cluster under
    ``joblib.parallel_backend("dask")``.

    ``estimator`` may be a :class:`~sklearn.pipeline.Pipeline` whose last step is the PU
    estimator, e.g. ``make_pipeline(StandardScaler(), PUSVC(prior=0.4))`` with a grid of
    ``{"pusvc__lam": [...]}``: the prior, the ``lam`` path and ``warm_start`` are those of the
    last step (the paths walk ``pusvc__lam``). The earlier steps are refitted on each training
    fold; the warm starts apply when they transform that fold the same way at each fit (a
    deterministic transformer such as ``StandardScaler``), and otherwise the fits start cold,
    with the same scores.

    Parameters
    ----------
    estimator : estimator
        A PU estimator, e.g. ``PUSVC(prior=0.4)``, or a pipeline ending with one.
    param_grid : dict or list of dicts or None, default=None
        As in ``GridSearchCV``. None: :func:`default_param_grid` (``lam`` from 1e-4 to 1e-1 and
        ``gamma`` as multiples of the ``"scale"`` value; the prior stays the estimator's).
    scoring : str, callable or None, default=None
        A name of ``SCORING_NAMES`` (``"pu-accuracy"``, ``"lee-liu"``, ``"zero-one"``,
        ``"double-hinge"``, ...), or a callable ``scorer(estimator, X, s)`` such as
        :func:`~unlabeled.metrics.make_pu_scorer`'s. None: ``"pu-accuracy"``, what
        ``PUSVC.score`` computes. A name is evaluated at a fixed prior, the base estimator's
        ``prior`` (every candidate is scored at the same prior even when the grid searches
        ``prior``; see :mod:`unlabeled.metrics`). A scorer built with ``prior=None`` uses each
        fit's ``prior_`` and is refused when the grid searches ``prior``.
    cv : int, splitter or iterable, default=5
        An int gives :class:`PUStratifiedKFold` (stratified on ``s``).
    n_jobs : int or None, default=None
        joblib's ``n_jobs`` over the (fold, parameter-combination) tasks; None uses the active
        joblib backend's default (one process, or every Dask worker under ``"dask"``).
    refit : bool, default=True
        Refit the best candidate on all the data as ``best_estimator_``. A fit that raises
        stops the search (scikit-learn's ``error_score="raise"``).
    verbose : int, default=0
    random_state : int, RandomState instance or None, default=None
        Shuffles the folds when ``cv`` is an int (None: no shuffle, as scikit-learn).
    warm_start : bool, default=True
        Walk the ``lam`` path with warm starts; False fits every candidate from scratch (to
        measure the gain; the scores agree up to the solver tolerance).

    Attributes
    ----------
    cv_results_ : dict of arrays
        As in ``GridSearchCV``: ``params``, ``param_<name>``, ``split<k>_test_score``,
        ``mean_test_score``, ``std_test_score``, ``rank_test_score``, ``mean_fit_time``, ...
    best_index_, best_params_, best_score_ :
        The candidate with the highest mean test score (the first one on ties).
    best_estimator_ : estimator
        The best candidate refitted on all the data (``refit=True``).
    scorer_ : callable
    n_splits_ : int
    param_grid_ : dict or list of dicts
        The grid searched (the default one resolved on ``X`` when ``param_grid=None``).
    n_solver_iter_ : int
        Solver iterations summed over all the cross-validation fits (``n_iter_`` of each fit),
        a measure of the work the warm starts save.
    refit_time_ : float

    See Also
    --------
    sklearn.model_selection.GridSearchCV : the same search, cold fits, scores compared with ``y``.
    unlabeled.metrics : the PU scores behind ``scoring``.
    PUStratifiedKFold : the folds of ``cv=int``.

    Examples
    --------
    >>> from unlabeled import PUSVC
    >>> from unlabeled.model_selection import PUGridSearchCV
    >>> search = PUGridSearchCV(PUSVC(prior=0.4), {"lam": [1e-3, 1e-2], "gamma": [0.1, 1.0]})
    >>> # search.fit(X, s); search.best_params_, search.best_estimator_.predict(X_new)
    """

    def __init__(
        self,
        estimator: Any,
        param_grid: Mapping | Sequence[Mapping] | None = None,
        *,
        scoring: str | Any | None = None,
        cv: Any = 5,
        n_jobs: int | None = None,
        refit: bool = True,
        verbose: int = 0,
        random_state: Any = None,
        warm_start: bool = True,
    ) -> None:
        self.estimator = estimator
        self.param_grid = param_grid
        self.scoring = scoring
        self.cv = cv
        self.n_jobs = n_jobs
        self.refit = refit
        self.verbose = verbose
        self.random_state = random_state
        self.warm_start = warm_start

    # ---------------------------------------------------------------- checks
    def _resolve_scorer(self, searches_prior: bool):
        final = _final_step(self.estimator)[1]
        base_prior = final.get_params().get("prior") if hasattr(final, "get_params") else None
        fixed = (
            float(base_prior)
            if isinstance(base_prior, numbers.Real) and not isinstance(base_prior, bool)
            else None
        )
        scoring = "pu-accuracy" if self.scoring is None else self.scoring
        if isinstance(scoring, str):
            if scoring not in SCORING_NAMES:
                raise ValueError(
                    f"scoring must be one of {list(SCORING_NAMES)} or a callable "
                    f"scorer(estimator, X, s), got {scoring!r} (scikit-learn's metrics compare "
                    "predictions with s, which a correct PU model contradicts)"
                )
            if make_pu_scorer(scoring).needs_prior and fixed is None and searches_prior:
                raise ValueError(
                    f"scoring={scoring!r} needs one evaluation prior for all candidates, but the "
                    "estimator's prior is not a number; pass "
                    f"scoring=make_pu_scorer({scoring!r}, prior=...)"
                )
            return make_pu_scorer(scoring, prior=fixed)
        if not callable(scoring):
            raise TypeError(f"scoring must be a name, a callable or None, got {scoring!r}")
        if (
            isinstance(scoring, PUScorer)
            and scoring.needs_prior
            and scoring.prior is None
            and searches_prior
        ):
            raise ValueError(
                f"param_grid searches prior but the scorer {scoring!r} scores each candidate "
                "with its own prior_, which favours the largest prior; pass "
                f"make_pu_scorer({scoring.metric!r}, prior=...) with one evaluation prior"
            )
        return scoring

    def _candidate_grid(self, X):
        grid = self.param_grid
        if grid is None:
            grid = default_param_grid(self.estimator, X)
        elif not isinstance(grid, Mapping | Sequence) or isinstance(grid, str):
            raise TypeError(f"param_grid must be a dict, a list of dicts or None, got {grid!r}")
        candidates = list(ParameterGrid(grid))
        valid = set(self.estimator.get_params())
        for params in candidates:
            unknown = set(params) - valid
            if unknown:
                raise ValueError(
                    f"param_grid names {sorted(unknown)}, which {type(self.estimator).__name__} "
                    f"does not have; its parameters are {sorted(valid)}"
                )
        _check_candidate_values(self.estimator, candidates)
        return grid, candidates

    # ---------------------------------------------------------------- fit
    _parameter_constraints: dict = {
        "n_jobs": [None, Integer(-INT_MAX)],
        "refit": [Boolean()],
        "verbose": VERBOSE,
        "warm_start": [Boolean()],
    }

    def _check_params(self) -> None:
        """The declared parameters, then what they cannot say: n_jobs != 0 (joblib's
        convention) and an estimator (``param_grid``, ``scoring`` and ``cv`` are checked
        against the estimator and the data in ``fit``, before the folds)."""
        if self._validate_params()["n_jobs"] == 0:
            raise InvalidParameterError(
                "n_jobs must be None or a non-zero integer (joblib: -1 for all), got 0"
            )
        if not hasattr(self.estimator, "fit") or not hasattr(self.estimator, "get_params"):
            raise TypeError(f"estimator must be a scikit-learn estimator, got {self.estimator!r}")

    def fit(self, X: Any, s: ArrayLike, **fit_params: Any) -> PUGridSearchCV:
        """Run the search on ``X`` with PU labels ``s``.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
            Training data (a Gram matrix for ``kernel="precomputed"``). Not modified.
        s : array-like of shape (n_samples,)
            PU labels: 1 = labeled positive, 0 or -1 = unlabeled (or booleans).
        **fit_params
            Not accepted (a TypeError names them): the search passes nothing to ``fit``.

        Returns
        -------
        self : PUGridSearchCV
            Fitted: ``cv_results_``, ``best_params_``, ``best_estimator_``, ...

        See Also
        --------
        default_param_grid : the grid used when ``param_grid=None``.
        unlabeled.metrics.make_pu_scorer : the scorers ``scoring=`` names.
        """
        if fit_params:
            raise TypeError(f"fit takes no extra arguments, got {sorted(fit_params)}")
        self._check_params()
        X = _search_input(X)
        s = np.asarray(s)
        check_pu_labels(s, X.shape[0])

        grid, candidates = self._candidate_grid(X)
        prefix = _final_step(self.estimator)[0]
        searches_prior = len({repr(c.get(f"{prefix}prior")) for c in candidates}) > 1
        scorer = self._resolve_scorer(searches_prior)
        cv = check_pu_cv(self.cv, random_state=self.random_state)
        splits = list(cv.split(X, s))
        n_splits = len(splits)
        if n_splits < 1:
            raise ValueError("cv gave no split")

        warm_param = f"{prefix}warm_start"
        warm = bool(self.warm_start) and warm_param in self.estimator.get_params()
        tasks = _path_tasks(candidates, f"{prefix}lam")
        if self.verbose:
            print(
                f"[PUGridSearchCV] {n_splits} folds x {len(candidates)} candidates = "
                f"{n_splits * len(candidates)} fits in {n_splits * len(tasks)} tasks "
                f"({'warm' if warm else 'cold'} lam paths)",
                file=sys.stderr,
            )
        # the library's PU scorers read decision values only: fold fits skip the calibration of
        # probability=True (5 more fits each); the refit below keeps it
        fold_estimator = self.estimator
        proba_param = f"{prefix}probability"
        if (
            isinstance(scorer, PUScorer)
            and fold_estimator.get_params().get(proba_param) is True
            and all(proba_param not in c for c in candidates)
        ):
            fold_estimator = clone(fold_estimator).set_params(**{proba_param: False})
        parallel = Parallel(n_jobs=self.n_jobs, verbose=self.verbose)
        results = parallel(
            delayed(_fit_path)(
                fold_estimator, X, s, train, test, k, path, scorer, warm_param if warm else None
            )
            for k, (train, test) in enumerate(splits)
            for path in tasks
        )

        n_cand = len(candidates)
        scores = np.full((n_splits, n_cand), np.nan)
        fit_times = np.zeros((n_splits, n_cand))
        score_times = np.zeros((n_splits, n_cand))
        n_iter = 0
        for task in results:
            for cand, fold, score, ft, st, it in task:
                scores[fold, cand], fit_times[fold, cand], score_times[fold, cand] = score, ft, st
                n_iter += it

        self.cv_results_ = _format_results(candidates, scores, fit_times, score_times)
        self.best_index_ = int(self.cv_results_["rank_test_score"].argmin())
        self.best_params_ = candidates[self.best_index_]
        self.best_score_ = float(self.cv_results_["mean_test_score"][self.best_index_])
        self.scorer_ = scorer
        self.n_splits_ = n_splits
        self.param_grid_ = grid
        self.n_solver_iter_ = n_iter
        self.multimetric_ = False
        if self.refit:
            t0 = time.perf_counter()
            self.best_estimator_ = clone(self.estimator).set_params(**self.best_params_)
            self.best_estimator_.fit(X, s)
            self.refit_time_ = time.perf_counter() - t0
            if hasattr(self.best_estimator_, "n_features_in_"):
                self.n_features_in_ = self.best_estimator_.n_features_in_
        return self

    # ---------------------------------------------------------------- delegation
    def __sklearn_tags__(self):
        # a classifier when the estimator is one, as scikit-learn's searches are, so that
        # cross_val_score(search, X, s, cv=k) stratifies and scorers treat it as one
        tags = super().__sklearn_tags__()
        sub = get_tags(self.estimator)
        tags.estimator_type = sub.estimator_type
        tags.classifier_tags = deepcopy(sub.classifier_tags)
        tags.input_tags.pairwise = sub.input_tags.pairwise
        tags.input_tags.sparse = sub.input_tags.sparse
        return tags

    def _best(self):
        check_is_fitted(self, "cv_results_")
        if not self.refit:
            raise AttributeError(
                "this PUGridSearchCV was fitted with refit=False: best_estimator_ does not exist; "
                "set refit=True to predict with the best candidate"
            )
        return self.best_estimator_

    @property
    def classes_(self) -> np.ndarray:
        """The classes of ``best_estimator_``."""
        return self._best().classes_

    def predict(self, X: Any) -> np.ndarray:
        """Predict with the best candidate: ``best_estimator_.predict(X)``.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
            The points to classify (for ``kernel="precomputed"``: their kernel values
            against the training points).

        Returns
        -------
        ndarray of shape (n_samples,)
            The predicted classes, as ``best_estimator_`` encodes them (PUSVC: 1 and 0).

        See Also
        --------
        decision_function : the decision values behind the predictions.
        """
        return self._best().predict(X)

    def decision_function(self, X: Any) -> np.ndarray:
        """Decision values of the best candidate: ``best_estimator_.decision_function(X)``.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)

        Returns
        -------
        f : ndarray of shape (n_samples,)
            ``f(x) > 0`` means the positive class.

        See Also
        --------
        predict
        """
        return self._best().decision_function(X)

    def score(self, X: Any, s: ArrayLike) -> float:
        """The search's own PU score on new data: ``scorer_(best_estimator_, X, s)``.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
        s : array-like of shape (n_samples,)
            PU labels of ``X``: 1 = labeled positive, 0 or -1 = unlabeled.

        Returns
        -------
        float
            Higher is better (see ``scoring``).

        See Also
        --------
        unlabeled.metrics.make_pu_scorer
        """
        return float(self.scorer_(self._best(), X, s))


def _path_tasks(candidates: list[dict], lam: str = "lam") -> list[list[tuple[int, dict]]]:
    """Group the candidates by everything but ``lam`` (the parameter's name, prefixed in a
    pipeline); each group, sorted by decreasing ``lam``, is one warm-start path. Candidates
    without ``lam`` form paths of one."""

    def key(i):
        params = candidates[i]
        return repr(sorted((k, repr(v)) for k, v in params.items() if k != lam))

    order = sorted(range(len(candidates)), key=key)
    tasks = []
    for _, group in groupby(order, key=key):
        members = list(group)
        with_lam = [i for i in members if isinstance(candidates[i].get(lam), numbers.Real)]
        others = [i for i in members if i not in with_lam]
        with_lam.sort(key=lambda i: -float(candidates[i][lam]))
        if with_lam:
            tasks.append([(i, candidates[i]) for i in with_lam])
        tasks.extend([[(i, candidates[i])] for i in others])
    return tasks


def _format_results(candidates, scores, fit_times, score_times) -> dict:
    """cv_results_ in GridSearchCV's layout and ranking (ties share the smallest rank)."""
    n_splits, n_cand = scores.shape
    results: dict = {
        "mean_fit_time": fit_times.mean(axis=0),
        "std_fit_time": fit_times.std(axis=0),
        "mean_score_time": score_times.mean(axis=0),
        "std_score_time": score_times.std(axis=0),
    }
    names = sorted({k for c in candidates for k in c})
    for name in names:
        col = np.ma.MaskedArray(np.empty(n_cand, dtype=object), mask=True)
        for i, c in enumerate(candidates):
            if name in c:
                col[i] = c[name]
        results[f"param_{name}"] = col
    results["params"] = candidates
    for k in range(n_splits):
        results[f"split{k}_test_score"] = scores[k]
    means = scores.mean(axis=0)
    results["mean_test_score"] = means
    results["std_test_score"] = scores.std(axis=0)
    if np.isnan(means).all():
        ranks = np.ones(n_cand, dtype=np.int32)
    else:
        filled = np.nan_to_num(means, nan=np.nanmin(means) - 1)
        ranks = rankdata(-filled, method="min").astype(np.int32)
    results["rank_test_score"] = ranks
    return results
