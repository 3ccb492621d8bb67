"""CLSST ("classtering"): semi-supervised classification and clustering with a variational
Bayesian mixture of factor analysers (Sansone, PhD thesis, ch. 2)."""

from __future__ import annotations

import sys
import time
import warnings
from collections.abc import Iterable

import numpy as np
from scipy.special import digamma, polygamma
from sklearn.base import ClassifierMixin
from sklearn.cluster import KMeans
from sklearn.exceptions import DataConversionWarning
from sklearn.metrics import accuracy_score
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, column_or_1d, validate_data

from .._budget import check_dense_budget
from .._dask import is_dask_collection
from .._solving import warn_not_converged
from .._threads import one_blas_thread
from .._validation import (
    RANDOM_STATE,
    VERBOSE,
    ArrayLike,
    Boolean,
    Instance,
    Integer,
    Options,
    Real,
    check_data_scale,
    check_not_strings,
)
from ..base import Fitted, ValidatedEstimator, set_init_params
from ..registry import Case, register
from ._base import check_classes, unlabeled_mask
from ._merge import check_n_clusters, merge_fitted
from ._vbmfa import VBMFA, pd_loadings, softmax_points
from ._vbmfa_dask import DaskVBMFA, prepare_dask, warn_one_class

#: the default cap on the work of a whole fit (``max_component_sweeps=None``), in component
#: sweeps: default fits of TOES use 3,700 (300 points), 24,000 (3,000) and 64,000 (30,000
#: points, 14 components; 88,000 with plain sweeps), the 1,000,000 points of the scale
#: benchmark about 4,500. At 3,000 points a component sweep takes 0.3 to 0.6 ms on one core:
#: the cap stops n_components=300 there after about a minute, where it ran for hours
DEFAULT_MAX_COMPONENT_SWEEPS = 100_000
#: the flops CLSST's dense steps may take: each start component and each birth (three: the
#: split direction, the scatter on each side) decomposes an n_features x n_features matrix,
#: O(p^3), whatever n. A fit that could take more is refused before any work (about 30 s on
#: one core: eigh at p = 1,000 took 0.29 s); 80 x 3,003 with the defaults (92 of them,
#: 2.5e12 flops) ran for minutes
MAX_DENSE_FLOPS = 1e11
#: p x p matrices alive at once in a start or a birth (covariance, its eigenvectors, the
#: reconstruction, temporaries), for the memory check
DENSE_COPIES = 8
BIRTH_TOL = 1e-2  # |F change| that ends the Q-free sweeps after a birth (the authors' birthtol),
# or tol per point when that is larger
#: at most this many Q-fixed sweeps settle the two children of a birth before its run of
#: sweeps (where F is judged): on real tables the Q-fixed sweeps crept at max_iter = 500 after
#: every birth (australian, 483 points: 500 of the 1,000 sweeps of each birth), while 20
#: already move the children apart; the run that follows converges the rest
BIRTH_SWEEPS = 20
#: the births stop (converged) after this many splits in a row that do not raise F, tried in
#: the rank order of the worst-explained components: further down the list the splits
#: were rejected too (each a whole run of sweeps; up to 2 S candidates at S components)
MAX_REJECTIONS = 5
#: the births also stop (converged) when the last BIRTH_WINDOW attempts raised F by less
#: than BIRTH_SHARE of the search's whole gain (see :func:`_diminishing`)
BIRTH_WINDOW, BIRTH_SHARE = 10, 0.05
#: why a fit ended (``stop_reason_``): converged, or the cap that stopped it
STOP_REASONS = ("converged", "max_iter", "max_births", "max_component_sweeps")
#: CLSST+ on more points than this (in memory or on Dask input) searches its components
#: (births and deaths) on a random sample of this many (in memory, even from Dask input),
#: then converges on all points from the sample's model: a
#: sweep of the sample costs SEARCH_POINTS / n of one over all points (TOES, 1,000,000
#: points: the search found the same 5 components in 1/50 of the work)
SEARCH_POINTS = 20_000
INITS = ("auto", "labels", "kmeans")
SELECTS = ("labels", "bound")


def _data_scale(X) -> float:
    """The scale ``s`` that CLSST divides X by: the root of the mean variance of the features
    (1 for constant data). Exactly proportional to X's units, so that ``X / s`` (and every
    prediction) is the same for X in any units, up to rounding."""
    s = float(np.sqrt(np.mean(X.var(0))))
    return s if np.isfinite(s) and s > 0 else 1.0


def _class_split_limit(c, U, g0, iterations=100):
    """The solution ``g`` of ``g_s = c_s + U_s softmax(digamma(g_s))`` for every component
    ``s`` (see :meth:`CLSST._settle_classes`) by Newton's method from ``g0``; None when it
    does not converge (the model is then kept as it is)."""
    g = np.array(g0, dtype=np.float64)
    for _ in range(iterations):
        e = digamma(g)
        sig = np.exp(e - e.max(1, keepdims=True))
        sig /= sig.sum(1, keepdims=True)
        r = g - c - U[:, None] * sig
        if np.all(np.abs(r) <= 1e-10 * (1.0 + g)):
            return g
        d = polygamma(1, g)
        step = np.empty_like(g)
        for s in range(g.shape[0]):  # J = I - U (diag(sig) - sig sig') diag(psi'(g))
            J = np.eye(g.shape[1]) - U[s] * (np.diag(sig[s]) - np.outer(sig[s], sig[s])) * d[s]
            try:
                step[s] = np.linalg.solve(J, r[s])
            except np.linalg.LinAlgError:
                return None
        g = np.maximum(g - step, 0.5 * g)  # (positive: a Dirichlet's parameters)
        if not np.all(np.isfinite(g)):
            return None
    return None


def _rest(rise, last) -> float:
    """The rise still to come after steps that rose by ``last`` then ``rise``, taken to shrink
    geometrically (Aitken): rise r / (1 - r) at the ratio r = rise / last < 1; infinite where
    the rises do not shrink or ``last`` is not a rise (infinite: the first step, or the first
    after a death), 0 where F did not rise."""
    if rise <= 0:
        return 0.0
    ratio = rise / last if 0 < last < np.inf else np.inf
    return rise * ratio / (1.0 - ratio) if ratio < 1 else np.inf


def _diminishing(path) -> bool:
    """Whether the births have reached diminishing returns: over the last
    :data:`BIRTH_WINDOW` attempts (``path``: the bound of the current model after each, the
    start first) F rose by less than :data:`BIRTH_SHARE` of all that the search has raised
    it. Free of F's offset and of n. On banknote (960 points, 4 features) the search
    still accepted a split every second attempt at 18 components, each adding 1 to 9 nats of
    the 700 gained, until ``max_births``."""
    if len(path) <= BIRTH_WINDOW:
        return False
    return path[-1] - path[-1 - BIRTH_WINDOW] < BIRTH_SHARE * (path[-1] - path[0])


class _OutOfWork(Exception):
    """The fit's work reached ``max_component_sweeps`` (caught by ``fit``, which warns)."""


def _encode_targets(y, n, classes):
    """(allowed, classes_): allowed[i, l] says class l is a candidate for row i. Without
    labels (``y`` None): every class is a candidate everywhere, and ``classes_`` is None when
    ``classes`` is too (clustering: one class, the clusters named after fitting)."""
    if y is None:
        if classes is None:
            return np.ones((n, 1), dtype=bool), None
        classes_ = check_classes(classes)
        warn_one_class(classes_, given=True, stacklevel=4)
        return np.ones((n, len(classes_)), dtype=bool), classes_
    arr = np.asarray(y)
    if arr.ndim == 2 and arr.shape[1] > 1 or (arr.ndim == 2 and arr.dtype == bool):
        return _encode_matrix(arr, n, classes)
    if arr.ndim == 2 and arr.shape[1] == 1:
        warnings.warn(
            "A column-vector y was passed when a 1d array was expected: y is ravelled (a "
            "boolean column is read as a one-class label matrix).",
            DataConversionWarning,
            stacklevel=4,
        )
        arr = arr.ravel()
    if arr.ndim != 1 or arr.shape[0] != n:
        raise ValueError(
            f"y must have one entry per row of X ({n}) or be a boolean matrix (n_samples, "
            f"n_classes); got shape {np.shape(y)}"
        )
    labeled = ~unlabeled_mask(arr, "CLSST")
    if labeled.any():
        check_classification_targets(arr[labeled])
    if classes is None:
        if not labeled.any():
            raise ValueError(
                "y marks no labeled point (all -1): to cluster without labels call fit(X) "
                "(y=None); with known classes and no labels give them with classes=[...] or "
                "y as a boolean (n_samples, n_classes) matrix of all True"
            )
        classes_ = np.unique(arr[labeled])
    else:
        classes_ = check_classes(classes)
        outside = ~np.isin(arr[labeled], classes_)
        if outside.any():
            raise ValueError(
                f"y holds labels outside classes={classes_.tolist()}: "
                f"{np.unique(arr[labeled][outside])[:10].tolist()}; add them to classes or "
                "mark those rows unlabeled with -1"
            )
    warn_one_class(classes_, given=classes is not None, stacklevel=4)
    allowed = np.ones((n, len(classes_)), dtype=bool)
    allowed[labeled] = arr[labeled][:, None] == classes_[None, :]
    return allowed, classes_


def _encode_matrix(arr, n, classes):
    """Partial labels: a boolean (n, K) matrix of candidate classes."""
    if arr.ndim != 2 or arr.shape[0] != n:
        raise ValueError(f"the label matrix y must have shape ({n}, n_classes), got {arr.shape}")
    if arr.dtype != bool:
        if arr.dtype.kind not in "iuf" or not np.isin(arr, (0, 1)).all():
            raise ValueError("a 2-d y must be a boolean (or 0/1) matrix of candidate classes")
        arr = arr.astype(bool)
    empty = ~arr.any(1)
    if empty.any():
        raise ValueError(
            f"rows {np.flatnonzero(empty)[:10].tolist()} of the label matrix y have no candidate "
            "class: each row needs at least one True (all True = unlabeled)"
        )
    K = arr.shape[1]
    classes_ = np.arange(K) if classes is None else np.asarray(classes)
    if classes_.shape != (K,):
        raise ValueError(f"classes must list the {K} columns of the label matrix y")
    warn_one_class(classes_, given=classes is not None, stacklevel=5)
    return arr.copy(), classes_


_NORMAL = float(np.finfo(np.float64).tiny)  # the smallest normal double


@register(
    family="ssl",
    command="clsst",
    summary="variational Bayesian mixture of factor analysers",
    cases=(
        Case({"n_components": 2, "n_factors": 1, "max_iter": 30, "random_state": 0}),
        Case(
            {"n_components": 2, "n_factors": 1, "max_iter": 30, "random_state": 0},
            data="unlabeled",
            name="clusters",
        ),
        Case(
            {
                "n_components": 3,
                "n_clusters": 2,
                "n_factors": 1,
                "max_iter": 30,
                "random_state": 0,
            },
            data="unlabeled",
            name="merged",
        ),
    ),
)
class CLSST(ClassifierMixin, ValidatedEstimator):
    """Semi-supervised classification and clustering ("classtering") with a variational Bayesian
    mixture of factor analysers.

    Each component (cluster) s is a factor analyser ``y = Lambda_s x + mu_s + e``, ``x ~ N(0,
    I_k)``, ``e ~ N(0, Psi)``, chosen with probability ``pi_s``; each cluster carries a
    distribution ``beta_s`` over the K classes, so a class may own several clusters. Labeled points
    fix their class (a row of candidates restricts it: partial labels), unlabeled ones sum over it.
    All factors are fitted by variational Bayes (ARD priors on the loading columns, Dirichlet
    priors on ``pi`` and ``beta_s``); with ``n_components=None`` components are born by splitting
    and removed when empty, keeping a split only if it raises the lower bound F (CLSST+).

    Parameters
    ----------
    n_components : int or None, default=None
        None: the number of clusters is found by birth and death, starting from one per class
        (CLSST+). An integer: that many clusters, no deaths (CLSST*).
    n_clusters : int or None, default=None
        Clustering without labels (``fit(X)``) only: merge the fitted components into this
        many clusters, as a user of a mixture model asks for k groups. A mixture describes a
        group that no one component fits by several components (``CLSST().fit(X)`` found 4
        to 20 on the two-class tables of the clustering suite); they are merged
        hierarchically by the Gaussian classification likelihood (Banfield and Raftery 1993;
        Fraley 1998): each component is the Gaussian
        :math:`N(\\mu_s, \\Lambda_s \\Lambda_s' + \\Psi)` of its factor analyser, a
        cluster the moment-matched Gaussian of its components weighted by their
        responsibilities' sums :math:`N_a`, and each step joins the two clusters whose
        replacement by one Gaussian costs the least,
        :math:`N_{ab} \\ln|\\Sigma_{ab}| - N_a \\ln|\\Sigma_a| - N_b \\ln|\\Sigma_b|`.
        ``predict``, ``predict_proba`` (the summed responsibilities, (n, n_clusters)),
        ``labels_`` and ``classes_`` then give the clusters, ``predict_cluster`` the
        components. A fixed ``n_components`` below it is refused before any work; with
        ``n_components=None``, where birth and death find fewer components, the top-ranked
        ones are split (as for a fixed ``n_components``) until there are ``n_clusters``.
        Where fewer components than ``n_clusters`` hold points even so (splits of a round
        Gaussian group end empty), each is a cluster, with a ``UserWarning``. Ignored, with a
        ``UserWarning``, with labels or ``classes`` (the classes are predicted); refused on
        Dask input. None: every component is a cluster.
    n_factors : int or None, default=None
        Latent dimension k of every factor analyser; None uses ``min(2, n_features - 1)``.
        At most n_features: with k = n_features (the ``maxdim`` of the authors' demos) each
        component may take any covariance, and the ARD prior on the loading columns prunes
        the factors the data do not need (on one-factor data the extra columns shrink to
        1e-3 of the used one). 0 gives a mixture of diagonal Gaussians.
    noise : {"fa", "pca"}, default="fa"
        One noise variance per feature ("fa") or one for all features ("pca").
    tol : float, default=1e-4
        A run of sweeps stops when the bound F rises by less than ``tol`` per point from one
        step to the next (a SQUAREM step, or one sweep with ``accelerate=False``); a split is
        kept only if it raises F by more than that too. (1e-5 before issue 52: on real tables
        the runs crept at 1e-3 to 1e-2 nats a sweep for their 500 sweeps, a noise variance or
        an ARD precision drifting to its limit, and 14 of 26 default fits were capped;
        scikit-learn's BayesianGaussianMixture stops at 1e-3 per point.)
    max_iter : int, default=500
        Cap on the sweeps of each run (the authors' code has none).
    max_births : int, default=30
        Cap on the attempted splits (accepted or not) with ``n_components=None``. The births
        end by themselves, converged, when the candidates run out, when 5 splits in a row
        (of the worst-explained components first) do not raise F, or when the last 10
        attempts raised F by less than 5% of all that the search has raised it (diminishing
        returns); a search cut by this cap instead ends with
        ``stop_reason_ = "max_births"``.
    max_component_sweeps : int or None, default=None
        Cap on the work of the whole fit (every run of sweeps, every birth), in component
        sweeps: a sweep over the data with S components counts S, so the work is at most
        this times n. None: 100,000 (default fits of TOES use 3,700 at 300 points, 24,000
        at 3,000 and 64,000 at 30,000). The fit stops with a ``ConvergenceWarning``
        naming it: with ``n_components=None`` at the last accepted model of the birth path,
        with a fixed ``n_components`` at the components reached so far (``n_components_``).
        Without it, a large ``n_components`` (each forced birth a run over S components:
        O(n^2) work at ``n_components`` near n) or a ``tol`` that the sweeps cannot meet
        with a large ``max_iter`` would run for hours.
    select : {"labels", "bound"}, default="labels"
        With ``n_components=None``, which of the models on the birth path is returned (the
        path is the start and every accepted split, along which F rises). "bound": the last,
        of highest F (the thesis' CLSST+). "labels": the one that mispredicts the fewest
        labeled points when each is predicted from its features alone (as a new point), ties
        to the higher F; with no labeled point, the last. F ranks density models, not
        classifiers: on CAKE (a disk cut into four quarters, two per class) it prefers a fifth
        component in the centre that takes unlabeled points of both classes into one class
        (error 0.072 over 20 draws at 50 labels per class); "labels" keeps the four quarters
        (0.047).
    class_splits : bool, default=True
        Also propose, before the blind splits, a class split of each mixed component (one whose
        points include labeled points of two classes): across the plane halfway between the
        means of its two largest labeled classes. Every split is still kept only if it raises
        F. The thesis' blind split (False) cuts along the top principal direction, which need
        not separate the classes: on FCPS Spiral (700 labels per class) it leaves a component
        that holds both arms where they meet, and F rejects every further blind split; with
        class splits F ends 40 to 75 nats higher with fewer components, and the error over 20
        draws falls from 0.035 to 0.029.
    accelerate : bool, default=True
        Run the sweeps in SQUAREM steps (Varadhan and Roland 2008): two sweeps, an
        extrapolation of the global factors along their path, and a sweep from there, kept
        only where it raises F. Plain coordinate ascent (False, the authors') creeps: on TOES
        with 100,000 points it needs 7,600 sweeps to converge at 5 components, and the births
        compare under-converged bounds (1,000,000 points: 6 components found instead of 5).
    init : {"auto", "labels", "kmeans"}, default="auto"
        "labels": the authors' start, one cluster per class from its labeled points (mean and the
        Cholesky factor of the class covariance minus the noise); needs 2 labeled points per
        class. "kmeans": k-means on all points with n_components (None: K) clusters, loadings from
        each cluster the same way, the responsibilities from the k-means assignment and the
        labels; this is the start for classes with fewer than 2 labels and for no labels at all.
        "auto": "labels" when possible, "kmeans" otherwise.
    classes : array-like or None, default=None
        The class labels; None takes those present in y. Give it when a class has no labeled
        point. With ``y=None`` and ``classes=None``, CLSST clusters: every cluster is a class.
    random_state : int, RandomState or None, default=None
        Seeds the k-means start and, with ``n_components=None`` on more than 20,000 points,
        the sample that the births and deaths are searched on (None: the seed 0 for the
        sample, so that such a fit with the labels' start is repeatable; the same sample
        in memory and on Dask input, however the rows are chunked).
    verbose : bool or int, default=0
        Print the bound after each run of sweeps and each birth.

    Attributes
    ----------
    classes_ : ndarray (K,)
        The class labels; fitted without labels, the cluster ids ``arange(n_components_)``.
    n_components_ : int
        Number of clusters S found (or fixed).
    lower_bound_ : float
        The final variational lower bound F on ln p(X, labels).
    lower_bound_history_ : list of float
        F after every sweep (with ``accelerate``: after each sweep that a SQUAREM step keeps,
        and at its end), including those of rejected births, which are undone. After a
        search on a sample (more than 20,000 points, see Notes): the sweeps over all points
        only.
    weights_ : ndarray (S,)
        E[pi], the cluster weights.
    means_ : ndarray (S, n_features)
        Posterior means of the cluster centres mu_s.
    loadings_ : ndarray (S, n_features, k)
        Posterior means of the factor loadings Lambda_s.
    loading_covariances_ : ndarray (S, n_features, k + 1, k + 1)
        Posterior covariance of each row of [mu_s, Lambda_s].
    noise_variance_ : ndarray (n_features,)
        Psi.
    class_association_ : ndarray (S, K)
        E[beta_s]: the probability of each class within each cluster (the identity when
        fitted without labels).
    transduction_ : ndarray (n_samples,)
        Class of each training point (argmax of its class posterior). Fitted on Dask input:
        a Dask array computed on the workers (nothing of size n is kept on the client).
    labels_ : ndarray (n_samples,)
        Cluster of each training point (a Dask array when fitted on Dask input).
    n_iter_ : int
        Sweeps run in all (with those that keep Q fixed after a birth), in passes over all
        the points: a sweep over a sample of m of the n points counts m / n (the total
        rounded up).
    n_births_ : int
        Accepted splits.
    converged_ : bool
        Whether the fit ended by its stopping rule (``stop_reason_ == "converged"``): every
        run of sweeps of the returned model's path converged (a rejected split's runs are
        undone with it) and, with ``n_components=None``, the births ended by themselves.
        False comes with one ``ConvergenceWarning`` naming the cap to raise.
    stop_reason_ : {"converged", "max_iter", "max_births", "max_component_sweeps"}
        Why the fit ended: converged, or the cap that stopped it, the most severe first:
        ``max_component_sweeps`` (the work of the whole fit: the model reached so far),
        ``max_births`` (the search cut short with splits left to try), ``max_iter`` (a run
        of sweeps stopped with F still rising by more than ``tol`` per point).
    component_clusters_ : ndarray (n_components_,)
        With ``n_clusters``: the cluster of each component (every cluster holds at least
        one; numbered by their lowest component). Absent otherwise.
    n_features_in_ : int

    See Also
    --------
    sklearn.semi_supervised.LabelSpreading, sklearn.mixture.BayesianGaussianMixture

    Notes
    -----
    Every update is the exact maximiser of F over its factor, so F never decreases along a sweep
    at a fixed S. Differences from the authors' MATLAB code (``vbmfa``, published with the
    thesis): the q(x) mean keeps the mean/loading cross-covariance term ``-sum_q psii_q
    Sig_sq[1:, 0]`` (the code drops it, and its F can fall); the entropy constant of q(L~) is
    ``+(k+1)/2`` per row, not minus (it matters when F compares different S); a birth moves the
    two means by one standard deviation ``sqrt(lambda)`` along the top eigenvector (the code
    uses lambda) and gives each half probabilistic-PCA loadings (the code uses unit axes of
    noise-scaled points); births also try class splits (``class_splits``); convergence is judged
    on F, not on the change of q(s, l); a sweep updates the factors in the order X, L~, nu, Psi,
    mu* nu*, pi, beta, Q (the code's Q is third: any order is a coordinate ascent, and ending
    with Q gives F without another pass over the data); deaths (total responsibility below 1)
    are checked after each sweep (each SQUAREM step); classes are predicted by argmax; the
    sweeps are accelerated by SQUAREM (``accelerate``); sweeps and births are capped; after a
    birth the two children settle for at most 20 sweeps with Q fixed (the code: until F changes
    by less than 0.01, which at a few hundred points and more took the 500 sweeps of max_iter
    after every birth on real tables), and the births end after 5 rejected splits in a row or at
    diminishing returns (see ``max_births``; the code tries every candidate); CLSST+
    (``n_components=None``) on more than 20,000 points searches its components on a random
    sample of 20,000 (every labeled point when they are at most half of it) and then converges
    the sample's model on all points (each sweep over the sample counts 20,000 / n of one in
    ``n_iter_`` and in ``max_component_sweeps``): the births and deaths need hundreds of sweeps,
    each candidate judged by its converged bound, and a sample of 20,000 finds the components
    that all the points do on TOES and on Gaussian mixtures (1,000,000 TOES points: 36 sweeps,
    897 over all points before). On Dask input the sample is drawn on the workers and is the
    same rows as in memory (each row's random key depends on the seed and its index alone, not
    on the chunks), so the fit follows the in-memory fit's path. CLSST+ returns, by default, the
    model of its birth path that mispredicts the fewest labeled points (``select``; the thesis
    returns the last); the fixed hyperparameters (alpha = gamma = a0 = b0 = 1) follow the code,
    not the thesis' re-estimation. CLSST fits ``X / s``, ``s^2`` the mean variance of the
    features, and reports the model in the units of X (means and loadings times ``s``, variances
    times ``s^2``, the bound minus ``n p ln s``): the noise floor (the code's psimin, 1e-5, the
    only step that can lower F), the priors and the starts are relative to the data's scale, and
    the predictions do not depend on X's units (in the code's absolute floor, features in
    micro-units collapsed to one component). Fitting runs with one BLAS thread: the products are
    thin (n x p by p x (k + 1)) and threaded BLAS only slows them down.

    References
    ----------
    E. Sansone, "Towards uncovering the true use of unlabeled data in machine learning", PhD
    thesis, University of Trento, 2018, ch. 2. M. J. Beal, "Variational algorithms for approximate
    Bayesian inference", PhD thesis, UCL, 2003, ch. 4. J. D. Banfield, A. E. Raftery,
    "Model-based Gaussian and non-Gaussian clustering", Biometrics 49(3):803-821, 1993, and
    C. Fraley, "Algorithms for model-based Gaussian hierarchical clustering", SIAM Journal on
    Scientific Computing 20(1):270-281, 1998 (``n_clusters``).

    Examples
    --------
    >>> import numpy as np
    >>> from unlabeled.ssl import CLSST
    >>> rng = np.random.default_rng(0)
    >>> X = np.r_[rng.normal(-3, 1, (50, 2)), rng.normal(3, 1, (50, 2))]
    >>> y = np.full(100, -1); y[:3] = 0; y[50:53] = 1
    >>> clf = CLSST(random_state=0).fit(X, y)
    >>> float((clf.transduction_ == np.repeat([0, 1], 50)).mean())
    1.0
    """

    _parameter_constraints: dict = {
        "n_components": [None, Integer(1)],
        "n_clusters": [None, Integer(1)],
        "n_factors": [None, Integer(0)],
        "noise": [Options(("fa", "pca"))],
        "tol": [Real(0.0)],
        "max_iter": [Integer(1)],
        "max_births": [Integer(0)],
        "max_component_sweeps": [None, Integer(1)],
        "select": [Options(SELECTS)],
        "class_splits": [Boolean()],
        "accelerate": [Boolean()],
        "init": [Options(INITS)],
        # its entries are checked against y by _encode_targets (distinct, no -1, one per column)
        "classes": [None, Instance((Iterable,), "an array-like of class labels")],
        "random_state": RANDOM_STATE,
        "verbose": VERBOSE,
    }

    # S components (n_components_) of k factors (n_factors_) over d features, C classes; the
    # variances and concentrations are normal floats (a subnormal one, 1e-320, overflows in
    # its reciprocal or digamma: a file holding one would load and predict nothing finite)
    _fitted_attributes: dict = {
        "classes_": Fitted("iufUSbO", ("n_classes",)),
        "_clustering": Fitted("bool"),
        "_progress_start": None,  # the progress display's clock, during fit only
        "lower_bound_history_": Fitted("floats"),
        "n_iter_": Fitted("int", low=0),
        "n_births_": Fitted("int", low=0),
        "converged_": Fitted("bool"),
        "stop_reason_": Fitted("str", choices=STOP_REASONS),
        "n_components_": Fitted("int", low=1),
        "n_factors_": Fitted("int", low=0),
        "lower_bound_": Fitted("float"),
        "weights_": Fitted("f", ("n_components_",), low=0.0, high=1.0),
        "means_": Fitted("f", ("n_components_", "n_features_in_")),
        "loadings_": Fitted("f", ("n_components_", "n_features_in_", "n_factors_")),
        "loading_covariances_": Fitted(
            "f", ("n_components_", "n_features_in_", "n_factors_+1", "n_factors_+1")
        ),
        "noise_variance_": Fitted("f", ("n_features_in_",), low=_NORMAL),
        "class_association_": Fitted("f", ("n_components_", "n_classes"), low=0.0, high=1.0),
        "pi_concentration_": Fitted("f", ("n_components_",), low=_NORMAL),
        "beta_concentration_": Fitted("f", ("n_components_", "n_classes"), low=_NORMAL),
        "nu_shape_": Fitted("float", low=_NORMAL),
        "nu_rate_": Fitted("f", ("n_components_", "n_factors_"), low=_NORMAL),
        "mu_prior_mean_": Fitted("f", ("n_features_in_",)),
        "mu_prior_precision_": Fitted("f", ("n_features_in_",), low=0.0),
        "labels_": Fitted("iu", ("n_train",), low=0, below="n_components_"),
        "transduction_": Fitted("iufUSbO", ("n_train",)),
        "component_clusters_": Fitted(
            "iu", ("n_components_",), low=0, below="n_classes", optional=True
        ),
    }

    def _fitted_declarations(self) -> dict:
        """Fitted without labels (``_clustering``), the model has one class and every cluster
        is a class of its own: ``classes_`` has ``n_components_`` entries, the concentrations
        one column; with ``n_clusters``, the merged clusters are the classes."""
        table = super()._fitted_declarations()
        if vars(self).get("_clustering") is True and "component_clusters_" in vars(self):
            table["classes_"] = Fitted("iu", ("n_classes",))  # n_clusters: the merged ones
            table["labels_"] = Fitted("iu", ("n_train",), low=0, below="n_classes")
            table["beta_concentration_"] = Fitted("f", ("n_components_", 1), low=_NORMAL)
        elif vars(self).get("_clustering") is True:
            table["classes_"] = Fitted("iu", ("n_components_",))
            table["beta_concentration_"] = Fitted("f", ("n_components_", 1), low=_NORMAL)
        return table

    def __init__(
        self,
        n_components: int | None = None,
        *,
        n_clusters: int | None = None,
        n_factors: int | None = None,
        noise: str = "fa",
        tol: float = 1e-4,
        max_iter: int = 500,
        max_births: int = 30,
        max_component_sweeps: int | None = None,
        select: str = "labels",
        class_splits: bool = True,
        accelerate: bool = True,
        init: str = "auto",
        classes: ArrayLike | None = None,
        random_state: int | np.random.RandomState | None = None,
        verbose: bool | int = 0,
    ) -> None:
        set_init_params(self, locals())

    # ---- fitting ----------------------------------------------------------------------------
    def fit(self, X: ArrayLike, y: ArrayLike | None = None) -> CLSST:
        """Fit on labeled and unlabeled points together, or cluster without labels.

        Parameters
        ----------
        X : array-like (n_samples, n_features)
            Numbers (strings that are not numbers are refused). Its dense steps (the start
            and each birth decompose an n_features x n_features matrix) must fit the dense
            memory budget and take at most 1e11 flops (about 1,000 features with the
            default ``max_births``): a wider X is refused before any work, naming the
            parameters; reduce its features first (e.g. with PCA).
        y : array-like (n_samples,), boolean (n_samples, n_classes), or None
            Class labels with -1 for unlabeled points (scikit-learn's semi-supervised
            convention: the number -1 in an integer, float or object array; with string
            labels an object array holding the integer -1; a string "-1" is refused), or a
            boolean matrix of candidate classes per row (several True: "one of these"; all
            True: unlabeled). None: no labels. With ``classes``, every point is unlabeled
            among those classes; without, CLSST clusters as a mixture model (as
            :class:`sklearn.mixture.GaussianMixture`): every cluster is its own class,
            ``classes_`` is ``arange(n_components_)``, :meth:`predict` returns the cluster
            of each point and :meth:`predict_proba` its responsibilities, and
            ``n_components`` is the number of clusters (None: found by birth and death from
            one). One class (labels of one class only and no ``classes``, or ``classes``
            of one) is a density model of it, as ``FactorAnalysis`` for one component, and
            a classifier that predicts it everywhere: fitted with a ``UserWarning``.

        Returns
        -------
        self : CLSST

        Transactional: a fit that fails, however late (a parameter refused against the
        data, a numerical breakdown, Ctrl-C among the births), leaves the estimator as it was.
        """
        params = self._validate_params()
        if is_dask_collection(X) or is_dask_collection(y):
            # the same checks and model with the points on the workers (_vbmfa_dask)
            model, scale, k, init, S_fixed = self._dask_model(params, X, y)
        else:
            check_not_strings(X)
            Xc: np.ndarray = validate_data(
                self, X, dtype=np.float64, order="C", ensure_min_samples=2, reset=True
            )
            check_data_scale(Xc, "CLSST", tiny=1e-100)  # its covariances are squares of X
            allowed, self.classes_ = _encode_targets(y, Xc.shape[0], params["classes"])
            self._clustering = self.classes_ is None
            if self._clustering:
                self.classes_ = np.zeros(1, dtype=np.int64)  # the one class, until the clusters
            k, init, S_fixed = self._check_against_data(params, Xc, allowed)
            # the model of X / scale: every floor, prior and start relative to the data's scale
            scale = _data_scale(Xc)
            model = VBMFA(Xc / scale, allowed, k, pca=params["noise"] == "pca")
        self._progress_start = time.perf_counter()
        cap = params["max_component_sweeps"]
        model.work_cap = DEFAULT_MAX_COMPONENT_SWEEPS if cap is None else cap
        self.lower_bound_history_: list[float] = []
        self.n_iter_, self.n_births_ = 0, 0
        # the products are thin (n x p times p x (k + 1)): one BLAS thread is fastest, and
        # threaded BLAS on a busy machine was 25 times slower
        with one_blas_thread():
            try:
                if S_fixed is None and model.n > SEARCH_POINTS:
                    self._search_on_sample(model, init)
                else:
                    self._search(model, init, S_fixed)
                self._settle_classes(model)
            except np.linalg.LinAlgError as exc:  # e.g. "Matrix is not positive definite"
                raise ValueError(
                    f"CLSST: the variational updates broke down numerically ({exc}): X is "
                    "degenerate at its scale (huge values with little spread, or too few "
                    "distinct points). Standardise X (e.g. sklearn.preprocessing."
                    "StandardScaler), or lower n_components / n_factors"
                ) from exc
            self._store(model, scale)
            if self._clustering and params["n_clusters"] is not None:  # merged: ssl/_merge
                merge_fitted(self, model.resp()[0].T, params["n_clusters"])
        self.stop_reason_ = self._stop_reason(model)
        self.converged_ = self.stop_reason_ == "converged"
        self._warn_capped(model, cap, S_fixed)
        return self

    @staticmethod
    def _stop_reason(model) -> str:
        """Why the fit ended (see ``stop_reason_``): the cap that stopped it, the one that cut
        the most short first (the work cap stops everything, the births' cap the search, a
        run's max_iter that run), else "converged"."""
        if model.out_of_work:
            return "max_component_sweeps"
        if getattr(model, "births_capped", False):
            return "max_births"
        return "max_iter" if model.unconverged else "converged"

    def _warn_capped(self, model, cap, S_fixed):
        """The fit's one ConvergenceWarning, for the caller of fit: the cap that stopped it
        (``stop_reason_``) and the one setting that lifts it."""
        reason = self.stop_reason_
        if reason == "converged":
            return
        if reason == "max_iter":
            runs, last = len(model.unconverged), model.unconverged[-1]
            # an infinite rise: the run's last step followed a death (no earlier F to compare)
            rise = f"last rise {last:.3g}, " if np.isfinite(last) else ""
            why = (
                f"{runs} run{'s' * (runs > 1)} of sweeps reached max_iter={self.max_iter} "
                f"with the bound still rising ({rise}above tol={self.tol:g} per point); "
                "raise max_iter"
            )
        elif reason == "max_births":
            why = (
                f"the births stopped at max_births={self.max_births} attempts while splits "
                f"were still being tried ({self.n_births_} accepted, {self.n_components_} "
                "components); raise max_births"
            )
        else:
            if S_fixed is not None and self.n_components_ < S_fixed:
                where = f"n_components={S_fixed} not reached: {self.n_components_} components"
            elif model.out_of_work == "first run":
                where = f"in the first run of sweeps, before any birth ({self.n_components_} "
                where += "components)"
            else:
                where = f"the last accepted model kept ({self.n_components_} components)"
            name = "max_component_sweeps"
            limit = (
                f"{name}={cap}"
                if cap is not None
                else f"{name}=None: the default cap, {DEFAULT_MAX_COMPONENT_SWEEPS:,}"
            )
            why = (
                f"stopped after {model.work:,} component sweeps over the data ({limit}); "
                f"{where}. Raise {name}"
            )
        # stacklevel: past this method, fit and its transactional wrapper
        warn_not_converged("CLSST:", why=why, stacklevel=4)

    def _dask_model(self, params, X, y):
        """Dask input: checked as in memory before any sweep, X / scale persisted on the
        workers by row blocks (:func:`._vbmfa_dask.prepare_dask`). Returns (model, scale, k,
        init, fixed number of components)."""
        prep = prepare_dask(X, y, params["classes"])
        validate_data(self, prep.zero_row, reset=True)  # n_features_in_, feature_names_in_
        self._clustering = prep.classes is None
        self.classes_ = np.zeros(1, dtype=np.int64) if self._clustering else prep.classes
        k, init, S_fixed = self._check_against_data(params, prep.shape, None, prep.counts)
        model = DaskVBMFA(prep, k, pca=params["noise"] == "pca")
        return model, prep.scale, k, init, S_fixed

    def _check_against_data(self, params, X, allowed, counts=None):
        """What the declared constraints cannot say, as it depends on the data and the labels:
        n_factors <= n_features, n_components <= n_samples (and >= n_classes unless every
        class has a label), init='labels' possible; before any work. Returns (k, the start,
        the fixed number of components or None). ``counts``: the labeled points per class,
        when known (Dask input: ``X`` its shape, ``allowed`` None)."""
        n, p = X if isinstance(X, tuple) else X.shape
        K = allowed.shape[1] if counts is None else len(counts)
        S, k, init = params["n_components"], params["n_factors"], params["init"]
        k = min(2, p - 1) if k is None else k
        if k > p:
            raise ValueError(
                f"n_factors must be <= n_features = {p}, got n_factors={k}: more factors "
                "than features add nothing that the ARD prior would not prune"
            )
        if S is not None and S > n:
            raise ValueError(f"n_components={S} exceeds the number of samples {n}")
        check_n_clusters(
            params["n_clusters"],
            clustering=self._clustering,
            n_samples=n,
            n_components=S,
            dask=counts is not None,
        )
        if counts is None:
            single = allowed.sum(1) == 1
            counts = (allowed & single[:, None]).sum(0)
        if S is not None and S < K and (counts == 0).any():
            missing = self.classes_[counts == 0].tolist()
            raise ValueError(
                f"n_components={S} is below the number of classes {K} and the classes "
                f"{missing} have no labeled point: such a class cannot be told apart; give "
                "each class a label or n_components >= n_classes"
            )
        can_label = (counts >= 2).all() and (S is None or S >= K)
        if init == "labels" and not can_label:
            raise ValueError(
                "init='labels' needs at least 2 labeled points per class and n_components >= "
                f"n_classes (labeled points per class: {counts.tolist()}); use init='kmeans'"
            )
        if init == "auto":
            init = "labels" if can_label else "kmeans"
        # the labels' start has one component per class (births make the rest), k-means S
        self._check_dense_work(params, p, K if S is None or init == "labels" else S, S)
        return k, init, S

    @staticmethod
    def _check_dense_work(params, p, S0, S):
        """The declared bound of the dense steps (see :data:`MAX_DENSE_FLOPS`): ``S0`` start
        components and the births that ``params`` allow, each three p x p decompositions (a
        birth attempt sweeps at least two components, so the work cap bounds them too).
        Raises before any work: MemoryBudgetError for the p x p matrices over the budget,
        ValueError naming the parameters for the flops."""
        check_dense_budget(
            DENSE_COPIES * 8.0 * p * p,
            f"CLSST on {p:,} features decomposes {p:,} x {p:,} matrices (the covariances of "
            "its start and its births)",
            "reduce the features first (e.g. sklearn.decomposition.PCA(n_components=50) in a "
            "pipeline)",
        )
        cap = params["max_component_sweeps"]
        cap = DEFAULT_MAX_COMPONENT_SWEEPS if cap is None else cap
        births = min(params["max_births"], cap // 2 + 1) if S is None else max(S - S0, 0)
        count = S0 + 3 * births
        flops = count * float(p) ** 3
        k = params["n_factors"]
        k = min(2, p - 1) if k is None else k
        # each sweep updates every feature's (k+1)-square loading posterior of every
        # component, O(p (k+1)^3) whatever n: the start's first run alone (max_iter sweeps of
        # S0 components) is bounded too (n_factors=200 on 400 x 200 ran for days)
        factor_flops = S0 * params["max_iter"] * p * float(k + 1) ** 3
        if factor_flops > MAX_DENSE_FLOPS:
            raise ValueError(
                f"CLSST with n_factors={k} on n_features={p:,} updates {p:,} matrices of "
                f"{k + 1} x {k + 1} per component and sweep: about {factor_flops:.2g} flops "
                f"for the first run ({S0} start components, max_iter={params['max_iter']}), "
                f"over the {MAX_DENSE_FLOPS:.0e} that a fit may take. Lower n_factors (the "
                "ARD prior prunes the factors the data do not need: a few usually suffice), "
                "or reduce the features first (e.g. sklearn.decomposition.PCA)"
            )
        if flops > MAX_DENSE_FLOPS:
            what = f"max_births={params['max_births']}" if S is None else f"n_components={S}"
            raise ValueError(
                f"CLSST on n_features={p:,} would decompose up to {count} matrices of "
                f"{p:,} x {p:,} ({S0} start components, 3 per birth with {what}): about "
                f"{flops:.2g} flops, over the {MAX_DENSE_FLOPS:.0e} that a fit may take. "
                "Reduce the features first (e.g. sklearn.decomposition.PCA(n_components=50) "
                "in a pipeline), or lower max_births / n_components"
            )

    def _start(self, model, init, S_fixed):
        """The authors' start from the labels, or the k-means start."""
        if isinstance(model, DaskVBMFA):  # the same start from reductions over the chunks
            model.clsst_start(init, S_fixed, self.random_state)
            return
        X = model.Y
        psi0 = X.var(0)
        psi0 = np.where(psi0 > 0, psi0, 1.0)
        if init == "labels":
            single = model.allowed.sum(1) == 1
            groups = [X[single & model.allowed[:, c]] for c in range(model.K)]
            means = [G.mean(0) for G in groups]
            loads = [
                pd_loadings(np.cov(G.T).reshape(model.p, model.p), psi0, model.k) for G in groups
            ]
            model.start(np.array(means), np.array(loads), psi0)
            return
        S0 = S_fixed or model.K
        km = KMeans(S0, n_init=3, random_state=check_random_state(self.random_state))
        assign = km.fit_predict(X)
        loads = []
        for s in range(S0):
            G = X[assign == s]
            cov = np.cov(G.T).reshape(model.p, model.p) if len(G) > 1 else np.diag(psi0)
            loads.append(pd_loadings(cov, psi0, model.k))
        Q0 = np.zeros((S0, model.K, model.n))
        Q0[assign, :, np.arange(model.n)] = model.allowed / model.allowed.sum(1, keepdims=True)
        model.start(km.cluster_centers_, np.array(loads), psi0, Q0=Q0)

    def _search(self, model, init, S_fixed):
        """The start, its run of sweeps, then the births (and deaths)."""
        self._start(model, init, S_fixed)
        try:
            self._converge(model, deaths=S_fixed is None)
            if S_fixed is None:
                self._birth_and_death(model)
                if self._clustering and (self.n_clusters or 0) > model.S:  # too few to merge
                    self._grow_to(model, self.n_clusters, deaths=False)
            else:
                self._grow_to(model, S_fixed)
        except _OutOfWork:  # in the first run: no birth tried
            model.out_of_work = "first run"

    def _search_on_sample(self, model, init):
        """CLSST+ on many points (see :data:`SEARCH_POINTS`): the search on a sample (an
        in-memory :class:`VBMFA` of its rows, drawn by ``model.sample``: on the workers for
        Dask input, the same rows), its model carried to all points, then sweeps over them
        until F converges. The sample's sweeps count ``m / n`` of a sweep each in
        ``n_iter_`` and in the work cap; the bound's history holds the runs over all points
        only."""
        rng = check_random_state(0 if self.random_state is None else self.random_state)
        Y, allowed = model.sample(SEARCH_POINTS, int(rng.randint(np.iinfo(np.int64).max)))
        sub = VBMFA(Y, allowed, model.k, pca=model.pca)
        share = sub.n / model.n
        sub.work_cap = model.work_cap / share
        self._say(f"search on a sample of {sub.n:,} of the {model.n:,} points")
        self._search(sub, init, None)
        self._say(f"sample searched: S = {sub.S}; converging on all points")
        model.work += sub.work * share
        model.unconverged += sub.unconverged
        model.out_of_work = sub.out_of_work
        model.births_capped = getattr(sub, "births_capped", False)
        self.n_iter_ = int(np.ceil(self.n_iter_ * share))
        self.lower_bound_history_ = []
        model.adopt(sub, 1.0 / share)
        try:
            if not self.accelerate:  # a plain sweep starts from Q (SQUAREM from the globals)
                model.e_step()
            self._converge(model, deaths=True, tail=True)
        except _OutOfWork:
            model.out_of_work = model.out_of_work or True

    def _converge(self, model, deaths=False, tail=False):
        """Sweeps (SQUAREM steps when accelerate) until F rises by less than tol per point
        from one step to the next (or max_iter sweeps); returns F. ``tail``: until the rise
        still to come is below that too (see :func:`_rest`) or the last rise is below a tenth
        of it, for a run that starts near its optimum and creeps: there the first rise under
        tol per point was a tenth of the rest (100,000 TOES points carried from the sample:
        0.42 nats, with 4 to come); the tenth bounds the run where the rises shrink slowly
        (three Gaussians, 100,000 points: by 0.96 a step, 500 sweeps without it)."""
        F_old, rise, sweeps, fresh, last = -np.inf, np.inf, 0, None, np.inf
        tol = self.tol * model.n
        while sweeps < self.max_iter:
            if self.accelerate:
                Fs = model.squarem(fresh)[fresh is not None :]  # fresh: already recorded
                fresh = model.e_step()  # X and Q of the final globals: for deaths, the next step
                Fs.append(fresh)
            else:
                Fs = [model.sweep()]
            F = Fs[-1]
            if deaths and self._deaths(model):
                F_old, F, fresh = -np.inf, model.bound(), None  # F at another S: not comparable
                Fs[-1] = F
            self.lower_bound_history_.extend(Fs)
            self.n_iter_ += len(Fs)
            sweeps += len(Fs)
            rise = F - F_old
            if rise < tol and (not tail or _rest(rise, last) < tol or rise < 0.1 * tol):
                return F
            F_old, last = F, rise
            self._spend(model)
        model.unconverged.append(rise)  # fit warns once, for all runs
        return F

    def _settle_classes(self, model):
        """The class split of each component's unlabeled mass, at its limit.

        With the points' components fixed, the sweeps move ``q(beta_s) = Dir(g_s)`` along
        ``g_s = gamma / K + L_s + U_s softmax(E ln beta_s)`` (``L_s`` the labeled points'
        responsibilities by class, ``U_s`` the unlabeled ones'), a map whose contraction is
        about ``1 - |L_s| / U_s``: a component of 10,000 unlabeled points and one label
        moves 1e-4 of the way a sweep, below ``tol``, and a lone label's class was never
        predicted at 20,000 points (at 2,000 it was, barely). Here the limit is solved
        (Newton on the K equations of each component); where it changes a component's
        class, the model takes it and its sweeps converge again. Elsewhere nothing changes.
        In-memory models only (a Dask model keeps no ``Q``)."""
        Q = getattr(model, "Q", None)
        if not isinstance(Q, np.ndarray) or model.K < 2:
            return
        free = model.allowed.all(axis=1)
        L = Q[:, :, ~free].sum(2)
        U = Q[:, :, free].sum((1, 2))
        g = _class_split_limit(model.gamma / model.K + L, U, model.g)
        if g is None or np.array_equal(g.argmax(1), model.g.argmax(1)):
            return
        model.g = g
        try:
            model.e_step()
            self._converge(model)
        except _OutOfWork:
            model.out_of_work = model.out_of_work or True

    def _spend(self, model):
        """Stop the fit (:class:`_OutOfWork`) when its work reached ``max_component_sweeps``."""
        if model.work >= model.work_cap:
            raise _OutOfWork

    @staticmethod
    def _deaths(model):
        """Remove components with total responsibility below 1 (never the last one)."""
        keep = model.resp()[1] >= 1.0
        if keep.all() or not keep.any():
            return False
        model.remove(keep)
        model.update_pi()
        model.update_beta()
        return True

    def _candidates(self, model, order):
        """The splits to try, as (component, by_class) in ``order``: with ``class_splits``,
        first a class split of each mixed component, then the blind splits."""
        blind = [(s, False) for s in order]
        if not self.class_splits:
            return blind
        mixed = model.mixed()
        return [(s, True) for s in order if mixed[s]] + blind

    def _birth(self, model, parent, deaths=None):
        """Split ``parent`` = (component, by_class), settle the parameters with Q fixed, then
        converge (with deaths: by default where ``n_components`` is None)."""
        F_prev = model.bound()
        model.split(*parent)
        model.update_pi()
        model.update_beta()
        model.update_hyper()
        model.update_x()
        q_log_q = model.q_log_q()
        for _ in range(min(self.max_iter, BIRTH_SWEEPS)):
            F = model.sweep(with_q=False, q_log_q=q_log_q)
            self.n_iter_ += 1
            # the authors' birthtol is absolute (0.01), which at large n means max_iter sweeps
            if abs(F - F_prev) <= max(BIRTH_TOL, self.tol * model.n):
                break
            F_prev = F
            self._spend(model)
        return self._converge(model, deaths=self.n_components is None if deaths is None else deaths)

    def _birth_and_death(self, model):
        """CLSST+: try splits in ranked order; keep one only if it raises F (spec section 5).
        Then return the model of the path that ``select`` picks."""
        F = model.bound()
        snap = (model.snapshot(), F)
        by_labels = self.select == "labels" and not model.allowed.all(1).all()
        # (mistakes, births so far, global factors): the globals are small, and X and Q
        # follow from them by an E-step (exactly with accelerate: each run ends with one)
        best = (model.label_mistakes(), 0, model.snapshot(model.GLOBALS)) if by_labels else None
        cand, pos, tries, rejected = self._candidates(model, range(model.S)), 0, 0, 0
        # a gain within the runs' own tolerance (tol per point) is no gain: those runs stop
        # once F rises by less than that a step, so their F is known to about as much
        gain = self.tol * model.n
        path = [F]  # the bound of the current model after each attempt
        while pos < len(cand) and rejected < MAX_REJECTIONS and not _diminishing(path):
            if tries >= self.max_births:  # splits left to try: the search was cut short
                model.births_capped = True
                break
            tries += 1
            S_before, runs_before = model.S, len(model.unconverged)
            try:
                F_new = self._birth(model, cand[pos])
            except _OutOfWork:  # back to the last accepted model
                model.restore(snap[0])
                model.out_of_work = True
                break
            if F_new > snap[1] + gain:
                rejected = 0
                self.n_births_ += 1
                snap = (model.snapshot(), F_new)
                grew = model.S > S_before  # else a death undid the split: go down the list
                cand = self._candidates(model, model.rank_candidates())
                pos = 0 if grew else pos + 1
                self._say(f"birth accepted: S = {model.S}, F = {F_new:.6g}")
                if by_labels:
                    wrong = model.label_mistakes()
                    if wrong <= best[0]:  # F rises along the path: a tie goes to the later
                        best = (wrong, self.n_births_, model.snapshot(model.GLOBALS))
            else:
                model.restore(snap[0])
                # a rejected split's runs are undone with it: the model returned is not
                # theirs (a run cut at max_iter is judged by its F there, a lower bound)
                del model.unconverged[runs_before:]
                pos += 1
                rejected += 1
                self._say(f"birth rejected (F = {F_new:.6g} vs {snap[1]:.6g})")
            path.append(snap[1])
        if by_labels and best[1] != self.n_births_:
            model.restore(best[2])
            model.e_step()
            self._say(f"select='labels': S = {model.S} ({best[0]} labeled points mispredicted)")
        self.lower_bound_history_.append(model.bound())

    def _grow_to(self, model, S_target, deaths=None):
        """CLSST*: split the top-ranked components until S = n_components, keeping every split
        (the authors' vbmfa_k forces them); also ``n_clusters`` above the components found."""
        while model.S < S_target:
            try:
                parent = self._candidates(model, model.rank_candidates())[0]
                F = self._birth(model, parent, deaths)
            except _OutOfWork:  # a valid model, split and settled by some sweeps
                self.n_births_ += 1
                model.out_of_work = True
                return
            self.n_births_ += 1
            self._say(f"forced birth: S = {model.S}, F = {F:.6g}")

    def _say(self, text):
        if self.verbose:
            elapsed = time.perf_counter() - self._progress_start
            print(f"[CLSST] {text}  {elapsed:7.1f}s", file=sys.stderr, flush=True)

    def _store(self, model, scale):
        """Fitted attributes from the final state of the model of ``X / scale``, in the units
        of X: lengths (means, loadings, the prior mean) times ``scale``, variances times
        ``scale^2`` (the rates of the loadings' precisions too), precisions over it, the
        bounds minus ``n p ln scale`` (the Jacobian of ``x -> x / scale``)."""
        s2, shift = scale * scale, model.n * model.p * np.log(scale)
        self.n_components_ = model.S
        self.lower_bound_ = float(model.bound()) - shift
        self.lower_bound_history_ = [F - shift for F in self.lower_bound_history_]
        self.weights_ = model.u / model.u.sum()
        self.means_ = model.M[:, :, 0] * scale
        self.loadings_ = model.M[:, :, 1:] * scale
        self.loading_covariances_ = model.Sig * s2
        self.noise_variance_ = s2 / model.psii
        self.class_association_ = model.g / model.g.sum(1, keepdims=True)
        self.pi_concentration_, self.beta_concentration_ = model.u.copy(), model.g.copy()
        self.nu_shape_, self.nu_rate_ = model.a, model.b * s2
        self.mu_prior_mean_, self.mu_prior_precision_ = model.mustar * scale, model.nustar / s2
        self.n_factors_ = model.k
        self.labels_ = model.point_clusters()  # Dask input: a Dask array
        if self._clustering:  # every cluster its own class
            self.classes_ = np.arange(model.S)
            self.class_association_ = np.eye(model.S)
            self.transduction_ = self.labels_.copy()
        else:
            self.transduction_ = model.point_classes(self.classes_)
        self._say(f"done: S = {model.S}, F = {self.lower_bound_:.6g}, {self.n_iter_} sweeps")

    # ---- inference --------------------------------------------------------------------------
    def _infer(self, X):
        """(Q (S, K, n), per-point bound) for new points, all treated as unlabeled."""
        check_is_fitted(self)
        check_not_strings(X)
        X = validate_data(self, X, dtype=np.float64, order="C", reset=False)
        # fit's preflight: ||x||^2 within 1e100, else the squares in ln p(x | s) overflow
        check_data_scale(X, "this CLSST model")
        with one_blas_thread():
            return self._infer_checked(X)

    def _infer_checked(self, X):
        K = self.beta_concentration_.shape[1]  # the model's classes (one when clustering)
        model = VBMFA(X, np.ones((X.shape[0], K), dtype=bool), self.n_factors_)
        model.M = np.concatenate([self.means_[:, :, None], self.loadings_], axis=2)
        model.Sig, model.b = self.loading_covariances_, self.nu_rate_
        model.u, model.g = self.pi_concentration_, self.beta_concentration_
        model.psii = 1.0 / self.noise_variance_
        model.mustar, model.nustar = self.mu_prior_mean_, self.mu_prior_precision_
        model.update_x()
        with np.errstate(over="ignore", invalid="ignore"):
            phi = model.log_joint()
        bad = np.flatnonzero(~np.isfinite(phi).all(axis=(0, 1)))
        if bad.size:
            raise ValueError(
                f"X gives a non-finite log density under this CLSST model (row {bad[0]}): its "
                "distance to the clusters, in units of their noise, overflows double "
                "precision. Rescale X as the training data were (e.g. with the same fitted "
                "StandardScaler)"
            )
        lse = softmax_points(phi, out=phi)
        return phi, lse

    def predict_proba(self, X: ArrayLike) -> np.ndarray:
        """Class posterior p(l | x) = sum_s q(s, l) under the fitted model, (n, K). Fitted
        without labels (``fit(X)``): the responsibilities of the clusters, (n, S), as
        :meth:`sklearn.mixture.GaussianMixture.predict_proba`. Rows lie in [0, 1] and sum
        to 1 within rounding at any distance from the training data.

        Raises
        ------
        ValueError
            When ``X`` holds strings that are not numbers, or lies at a scale where the
            log densities overflow (``||x||^2`` above 1e100, as ``fit`` refuses).
        """
        Q = self._infer(X)[0]
        P = Q.sum(1).T if self._clustering else Q.sum(0).T
        if self._clustering and "component_clusters_" in vars(self):
            P = P @ self.class_association_  # n_clusters: the merged clusters' sums
        return P / P.sum(1, keepdims=True)  # the sums over s, each rounded, made exact once

    def predict(self, X: ArrayLike) -> np.ndarray:
        """The most probable class of each point (fitted without labels: its cluster)."""
        check_is_fitted(self)
        return self.classes_[self.predict_proba(X).argmax(1)]

    def predict_cluster(self, X: ArrayLike) -> np.ndarray:
        """The most probable cluster of each point (argmax_s sum_l q(s, l))."""
        return self._infer(X)[0].sum(1).argmax(0)

    def score_samples(self, X: ArrayLike) -> np.ndarray:
        """Per-point variational lower bound on ln p(x) with the global factors fixed:
        ln sum_{s,l} exp(E ln pi_s + E ln beta_sl + E ln p(x | s) - KL(q(x | s) || p(x)))."""
        return self._infer(X)[1]

    def score(
        self, X: ArrayLike, y: ArrayLike | None = None, sample_weight: ArrayLike | None = None
    ) -> float:
        """With labels ``y``: the accuracy of :meth:`predict` on the labeled points (``y = -1``
        marks a point left out), a classifier's score in scikit-learn, so that
        ``cross_val_score(CLSST(), X, y)`` and the searches rank models by accuracy. Without
        (``y=None``, as a clustering or density model is scored): the mean per-point lower
        bound on ``ln p(x)``, ``score_samples(X).mean()``, as ``GaussianMixture.score``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,) or None
            True labels, ``-1`` for points to leave out; None for the likelihood bound.
        sample_weight : array-like of shape (n_samples,), optional
            Weights of the accuracy (with ``y`` only).

        Returns
        -------
        float
        """
        if y is None:
            if sample_weight is not None:
                raise ValueError("sample_weight weighs the accuracy: give y with it")
            return float(self.score_samples(X).mean())
        check_is_fitted(self)
        labels = column_or_1d(y)
        keep = ~unlabeled_mask(labels, type(self).__name__)
        w = None if sample_weight is None else np.asarray(sample_weight)[keep]
        return float(accuracy_score(labels[keep], self.predict(X)[keep], sample_weight=w))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = True
        return tags
