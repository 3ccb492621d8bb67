"""NNPUMLPClassifier: a ReLU network trained by the paper's stochastic nnPU rule (PyTorch,
imported only by ``fit``); predictions in NumPy from the stored weights."""

from __future__ import annotations

import contextlib

import numpy as np
from scipy.special import expit, log_expit
from sklearn.base import ClassifierMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted, validate_data

from .._budget import check_dense_budget
from .._calibration import ProbabilisticMixin, calibration_folds, fold_estimator, pu_sigmoid
from .._threads import engine_threads
from .._validation import (
    RANDOM_STATE,
    VERBOSE,
    Boolean,
    Instance,
    Integer,
    Options,
    Real,
    check_data_scale,
    check_not_strings,
    check_pu_labels,
    standardize_moments,
    standardize_rows,
)
from ..base import ANY_FINITE, ArrayLike, Fitted, MatrixLike, ValidatedEstimator, set_init_params
from ..metrics import pu_accuracy_score
from ..registry import Case, register
from . import _nnpu_solver, priors
from ._base import THRESHOLDS, prior_threshold
from ._nnpu import check_weights, sar_refused
from ._pusvc import auto_prior, warn_wide_interval
from .sar import checked_propensity

TORCH_HINT = (
    "NNPUMLPClassifier needs PyTorch, which is not installed: pip install "
    "'torch>=2.2,<=2.13.0' (or, in a checkout of unlabeled, its extra: pip install '.[torch]')"
)
#: the most hidden layers, and units per layer
MAX_LAYERS, MAX_UNITS = 20, 100_000
#: the largest weight magnitude of a loaded model (Adam moves a weight by about
#: learning_rate per step from a start below 1)
MAX_WEIGHT = 1e10
#: the most epochs: each is at least one Adam step (about 3 ms on two busy cores for the
#: default network), and 10^6 ran past a minute on 40 points (issue 53); larger steps and
#: penalties than MAX_STEP overflowed torch's float32 (3.4e38) with a raw RuntimeError
MAX_EPOCHS, MAX_STEP = 1_000, 1e30


@register(
    family="pu",
    summary="non-negative PU risk with a neural network (PyTorch, stochastic nnPU)",
    cases=(
        Case({"prior": 0.4, "hidden_layer_sizes": (8,), "max_iter": 5, "random_state": 0}),
        Case(
            {"prior": 0.4, "hidden_layer_sizes": (6, 4), "max_iter": 3, "probability": True},
            data="sparse",
            name="sparse-proba",
        ),
    ),
    needs=("torch",),
)
class NNPUMLPClassifier(ProbabilisticMixin, ClassifierMixin, ValidatedEstimator):
    r"""Positive-unlabeled classifier: a ReLU network trained on the non-negative PU risk
    by the stochastic rule of Kiryo et al. (2017).

    With labeled positives ``P``, unlabeled points ``U`` whose share of positives is the prior
    ``pi``, a loss ``l`` and the network's output ``f``, each minibatch (labeled positives and
    unlabeled points in the proportions of the data) gives

    .. math::

        R_P^+ = \operatorname{mean}_P l(f),\qquad
        g = \operatorname{mean}_U l(-f) - \pi \operatorname{mean}_P l(-f),

    and Adam takes a step on ``pi R_P^+ + g`` when ``g >= -beta``, else on ``-gamma g`` (the
    paper's Algorithm 1: the estimate of the negative risk has gone below zero, which no
    true risk does, so the step raises it instead of fitting the positives further). With
    ``non_negative=False`` every step is on the unbiased risk (uPU). Features are
    standardised inside (``mean_``, ``scale_``). Training runs on PyTorch (imported only by
    ``fit``); the weights are stored as NumPy arrays (``weights_``), and ``predict``,
    ``decision_function``, model files and pickles need no torch.

    Parameters
    ----------
    prior : float in (0, 1), "auto" or None, default=None
        Class prior ``pi``, the proportion of positives among the unlabeled points.
        Required; ``"auto"`` estimates it as :class:`~unlabeled.pu.PUSVC` does.
    hidden_layer_sizes : tuple of int, default=(100, 100)
        Units of each hidden ReLU layer (at most 20 layers of 100,000 units).
    non_negative : bool, default=True
        nnPU (True) or uPU (False).
    beta : float >= 0, default=0.0
        The correction acts when a batch's ``g`` is below ``-beta``.
    gamma : float > 0, default=1.0
        The weight of the correction's step (the paper's ``gamma``).
    loss : {"logistic", "sigmoid"}, default="logistic"
        ``l(z) = log(1 + exp(-z))`` or the paper's ``1 / (1 + exp(z))``. On the PU suite's
        tuning tables of more than 10,000 rows the sigmoid loss ranked mammography (2% of
        positives) backwards (test ROC-AUC 0.11 at 1% and 20% of the positives labeled,
        0.81 and 0.95 with the logistic loss): with a small prior and a bounded loss, the
        all-negative network is nearly as good as any, and the correction steps, which
        raise the unlabeled points' outputs and lower the positives', can win.
    learning_rate : float in (0, 1e30], default=1e-3
        Adam's step size.
    weight_decay : float in [0, 1e30], default=1e-4
        L2 penalty of Adam (``torch.optim.Adam``'s ``weight_decay``).
    batch_size : int >= 1, default=512
    max_iter : int in [1, 1000], default=50
        Epochs (passes over the data).
    threshold : {"prior", "zero"}, default="prior"
        As :class:`~unlabeled.pu.NNPUClassifier`'s: at the prior's quantile of the training
        unlabeled points' outputs, or at ``f = 0`` (``threshold_``).
    probability : bool, default=False
        Enable :meth:`predict_proba`, a sigmoid of the decision value fitted from PU data
        on held-out outputs of internal folds (5 more fits), as ``PUSVC``'s.
    device : str, default="cpu"
        Torch device of the training: ``"cpu"``, ``"cuda"``, ``"cuda:N"``, or ``"auto"``
        (CUDA when available).
    n_jobs : int or None, default=None
        CPU threads of torch during ``fit`` (as ``PUSVC``'s ``n_jobs``); torch's setting is
        restored afterwards.
    random_state : int, RandomState instance or None, default=None
        Draws the initial weights, the batches, the calibration folds and ``prior="auto"``'s
        splits; on the CPU a fit is reproducible with an int.
    verbose : bool, default=False
        Print each epoch's last batch risk and the time to stderr.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        ``[0, 1]``.
    weights_ : ndarray of shape (n_weights,)
        Every layer's weight matrix (``fan_in x fan_out``, row-major) then its biases, layer
        after layer, float64.
    layer_sizes_ : tuple of int
        ``(n_features_in_, *hidden_layer_sizes, 1)``.
    mean_, scale_ : ndarray of shape (n_features,)
        The standardisation of the features.
    threshold_ : float
        Subtracted from the network's output in :meth:`decision_function`.
    negative_risk_ : float
        ``g`` on all the training data at the end.
    prior_, prior_estimator_, prior_interval_, positive_share_
        As for :class:`~unlabeled.pu.PUSVC`.
    device_ : str
        The device the network was trained on.
    n_iter_ : int
        Epochs run.
    probA_, probB_ : ndarray of shape (1,)
        The sigmoid of :meth:`predict_proba`; ``probability=True`` only.
    n_features_in_ : int

    References
    ----------
    R. Kiryo, G. Niu, M. C. du Plessis, M. Sugiyama, "Positive-unlabeled learning with
    non-negative risk estimator", NeurIPS 2017.

    Examples
    --------
    >>> import numpy as np
    >>> from unlabeled.pu import NNPUMLPClassifier
    >>> rng = np.random.default_rng(0)
    >>> X = np.r_[rng.normal(1, 1, (100, 2)), rng.normal(-1, 1, (100, 2))]
    >>> s = np.zeros(200, dtype=int); s[:30] = 1          # 30 labeled positives
    >>> clf = NNPUMLPClassifier(prior=70 / 170, hidden_layer_sizes=(16,), max_iter=30,
    ...                         batch_size=64, learning_rate=1e-2, random_state=0)
    >>> clf.fit(X, s).predict([[2.0, 2.0], [-2.0, -2.0]])
    array([1, 0])
    """

    def __init__(
        self,
        prior: float | str | None = None,
        *,
        hidden_layer_sizes: tuple[int, ...] = (100, 100),
        non_negative: bool = True,
        beta: float = 0.0,
        gamma: float = 1.0,
        loss: str = "logistic",
        learning_rate: float = 1e-3,
        weight_decay: float = 1e-4,
        batch_size: int = 512,
        max_iter: int = 50,
        threshold: str = "prior",
        probability: bool = False,
        device: str = "cpu",
        n_jobs: int | None = None,
        random_state: int | np.random.RandomState | None = None,
        verbose: bool | int = False,
    ) -> None:
        set_init_params(self, locals())

    _required_params: dict = {
        "prior": "a number in (0, 1), the proportion of positives among the unlabeled points "
        "(e.g. prior=0.3), or prior='auto' to estimate it from X and s"
    }
    _parameter_constraints: dict = {
        "prior": [Options(("auto",)), Real(0.0, 1.0)],
        "hidden_layer_sizes": [Instance((tuple, list), "a tuple of positive ints")],
        "non_negative": [Boolean()],
        "beta": [Real(0.0, low_open=False)],
        "gamma": [Real(0.0)],
        "loss": [Options(_nnpu_solver.LOSSES)],
        "learning_rate": [Real(0.0, MAX_STEP, high_open=False)],
        "weight_decay": [Real(0.0, MAX_STEP, low_open=False, high_open=False)],
        "batch_size": [Integer(1)],
        "max_iter": [Integer(1, MAX_EPOCHS)],
        "threshold": [Options(THRESHOLDS)],
        "probability": [Boolean()],
        "device": [Instance((str,), "a string such as 'cpu', 'cuda' or 'auto'")],
        "n_jobs": [None, Options((-1,)), Integer(1)],
        "random_state": RANDOM_STATE,
        "verbose": VERBOSE,
    }

    _fitted_attributes: dict = {
        "classes_": Fitted("iu", (2,), low=0, high=1),
        "weights_": Fitted("f", (None,), low=-MAX_WEIGHT, high=MAX_WEIGHT),
        "layer_sizes_": Fitted("ints", (None,), low=1, high=MAX_UNITS),
        # in the data's units: any finite value
        "mean_": Fitted("f", ("n_features_in_",), low=-ANY_FINITE, high=ANY_FINITE),
        "scale_": Fitted("f", ("n_features_in_",), above=0.0, high=ANY_FINITE),
        "threshold_": Fitted("float", high=ANY_FINITE),
        "negative_risk_": Fitted("float", high=ANY_FINITE),
        "prior_": Fitted("float", above=0.0, below=1.0),
        "prior_estimator_": Fitted("str", none=True, choices=tuple(priors.__all__)),
        "prior_interval_": Fitted("floats", (2,), none=True),
        "positive_share_": Fitted("float", low=0.0, high=1.0),
        "device_": Fitted("str"),
        "n_iter_": Fitted("int", low=0),
        "probA_": Fitted(
            "f", (1,), low=-ANY_FINITE, high=0.0, optional=True, needs=("probability", "probB_")
        ),
        "probB_": Fitted("f", (1,), optional=True, needs=("probability", "probA_")),
    }

    # ------------------------------------------------------------------ fitting
    def fit(
        self,
        X: MatrixLike,
        s: ArrayLike,
        sample_weight: ArrayLike | None = None,
        *,
        propensity: ArrayLike | None = None,
    ) -> NNPUMLPClassifier:
        """Train the network on ``X`` with PU labels ``s``.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
            Sparse ``X`` is densified (the network reads dense batches). Never modified.
        s : array-like of shape (n_samples,)
            PU labels: 1 = labeled positive, 0 or -1 = unlabeled (or booleans).
        sample_weight : array-like of shape (n_samples,), optional
            Non-negative weights in each batch's means.
        propensity : array-like of shape (n_samples,), optional
            For labels not selected completely at random: ``e(x_i) = P(s=1 | y=1, x_i)`` in
            (0, 1] at the labeled positives. Each batch's risk is then the SAR risk of
            :meth:`unlabeled.pu.NNPUClassifier.fit` (Bekker, Robberechts and Davis 2019):
            the labeled positives weighted by ``1 / e``, the negative risk's population term
            over every point of the batch, labeled or not, and ``pi`` the share of positives
            among all the points (``positive_share_``). None (the default): SCAR, the
            training as without the argument. Not with ``prior="auto"``,
            ``probability=True`` or Dask input.

        Returns
        -------
        self : NNPUMLPClassifier

        Raises
        ------
        ValueError, TypeError, ImportError
            A bad parameter or input, before any work; ImportError without torch.
        """
        p = self._validate_params()
        e = None
        if propensity is not None:
            e = checked_propensity(self, X, s, propensity, sar_refused(self))[0]
        X, mask = self._validate_fit(X, s)
        weight = check_weights(sample_weight, mask)
        folds = None
        if p["probability"]:
            folds = calibration_folds(
                mask, ("unlabeled points", "labeled positives"), self.random_state
            )
        try:
            from . import _nnpu_torch
        except ImportError as exc:
            raise ImportError(TORCH_HINT) from exc
        rng = check_random_state(self.random_state)
        self.mean_, self.scale_ = standardize_moments(X)
        Z = standardize_rows(X, self.mean_, self.scale_)
        self._set_prior(Z, mask, p)
        p["prior"] = self.prior_
        groups = _risk_weights(mask, weight, e)
        if e is not None:  # the SAR risk's pi_N: the share of positives among all the points
            p["prior"] = self.positive_share_ = float(
                (weight[mask].sum() + self.prior_ * weight[~mask].sum()) / weight.sum()
            )
        with _torch_threads(_nnpu_torch.torch, self.n_jobs):
            self._train(_nnpu_torch, Z, mask, groups, p, rng)
        f = self._raw(Z)
        wp, wu = groups
        self.negative_risk_ = float(_negative_risk(f, wp, wu, p["prior"], p["loss"]))
        f_ref = f[~mask] if e is None else f  # the points whose share is positive_share_
        t = prior_threshold(f_ref, self.positive_share_) if p["threshold"] == "prior" else 0.0
        self.threshold_ = float(t)
        self.classes_ = np.array([0, 1])
        self._calibrate(X, mask, folds)
        return self

    def _validate_params(self) -> dict:
        p = super()._validate_params()
        sizes = p["hidden_layer_sizes"]
        ok = len(sizes) <= MAX_LAYERS and all(
            isinstance(k, (int, np.integer)) and not isinstance(k, bool) and 1 <= k <= MAX_UNITS
            for k in sizes
        )
        if not ok:
            raise ValueError(
                f"hidden_layer_sizes must be a tuple of at most {MAX_LAYERS} ints in [1, "
                f"{MAX_UNITS}], got {sizes!r}"
            )
        return p

    def _validate_fit(self, X, s):
        check_not_strings(X)
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=True)
        check_data_scale(X, "NNPUMLPClassifier's standardisation")  # variances finite
        check_dense_budget(  # the dense float64 copy, its standardised copy and float32 one
            20.0 * X.shape[0] * X.shape[1],
            f"NNPUMLPClassifier trains on dense copies of X ({X.shape[0]:,} x {X.shape[1]:,})",
            "select features first (the network reads dense batches)",
        )
        if hasattr(X, "toarray"):
            X = X.toarray()
        mask = check_pu_labels(s, X.shape[0])
        return np.ascontiguousarray(X), mask

    def _set_prior(self, Z, mask, p) -> None:
        prior, self.prior_estimator_, self.prior_interval_ = p["prior"], None, None
        share = prior
        if prior == "auto":
            prior, share, self.prior_estimator_, self.prior_interval_ = auto_prior(
                Z, mask, self.random_state
            )
            warn_wide_interval(self.prior_interval_, prior, stacklevel=5)
        self.prior_, self.positive_share_ = float(prior), float(share)

    def _train(self, ops, Z, mask, groups, p, rng) -> None:
        """Glorot-uniform start drawn from ``rng``, then :func:`_nnpu_torch.train`."""
        sizes = (Z.shape[1], *[int(k) for k in p["hidden_layer_sizes"]], 1)
        layers = []
        for fan_in, fan_out in zip(sizes[:-1], sizes[1:], strict=True):
            bound = np.sqrt(6.0 / (fan_in + fan_out))
            W = rng.uniform(-bound, bound, (fan_in, fan_out)).astype(np.float32)
            layers.append((W, np.zeros(fan_out, dtype=np.float32)))
        device = ops.resolve_device(self.device)
        seed = int(rng.randint(np.iinfo(np.int32).max))
        self.n_iter_ = int(ops.train(layers, Z, mask, *groups, p, seed, device, bool(self.verbose)))
        flat = np.concatenate([np.r_[W.ravel(), b] for W, b in layers]).astype(np.float64)
        if not np.all(np.isfinite(flat)) or np.max(np.abs(flat)) > MAX_WEIGHT:
            raise ValueError(
                "the training diverged (non-finite or huge weights): lower learning_rate"
            )
        self.weights_, self.layer_sizes_ = flat, sizes
        self.device_ = str(device)

    def _calibrate(self, X, mask, folds) -> None:
        """``probability=True``: the PU sigmoid of held-out decision values (as PUSVC's)."""
        if folds is None:
            self._set_sigmoid(None)
            return
        f = np.empty(mask.size)
        for train, test in folds:
            est = fold_estimator(self, prior=float(self.prior_))
            est.fit(X[train], mask[train].astype(np.int8))
            f[test] = est.decision_function(X[test])
        self._set_sigmoid(*pu_sigmoid(f[mask], f[~mask], self.prior_))

    # ------------------------------------------------------------------ prediction
    def _layers(self):
        """The (W, b) pairs of ``weights_``."""
        out, k = [], 0
        sizes = self.layer_sizes_
        for fan_in, fan_out in zip(sizes[:-1], sizes[1:], strict=True):
            W = self.weights_[k : k + fan_in * fan_out].reshape(fan_in, fan_out)
            k += fan_in * fan_out
            out.append((W, self.weights_[k : k + fan_out]))
            k += fan_out
        return out

    def _raw(self, Z) -> np.ndarray:
        """The network's output on standardised rows, float64, in blocks of rows."""
        out = []
        for r in range(0, Z.shape[0], 4096):
            h = Z[r : r + 4096]
            layers = self._layers()
            for W, b in layers[:-1]:
                h = np.maximum(h @ W + b, 0.0)
            W, b = layers[-1]
            out.append((h @ W + b).ravel())
        return np.concatenate(out) if out else np.empty(0)

    def decision_function(self, X: MatrixLike) -> np.ndarray:
        """The network's output minus ``threshold_``: positive means class 1.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        check_is_fitted(self)
        check_not_strings(X)
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        if hasattr(X, "toarray"):
            X = X.toarray()
        with np.errstate(over="ignore", invalid="ignore"):
            f = self._raw(standardize_rows(X, self.mean_, self.scale_)) - self.threshold_
        if not np.all(np.isfinite(f)):
            raise ValueError(
                "X gives a non-finite decision value: rescale X as the training data were"
            )
        return f

    def predict(self, X: MatrixLike) -> np.ndarray:
        """``1`` where the decision value is positive, else ``0``."""
        return (self.decision_function(X) > 0).astype(int)

    def score(
        self,
        X: MatrixLike,
        s: ArrayLike | None = None,
        sample_weight: ArrayLike | None = None,
        *,
        y: ArrayLike | None = None,
    ) -> float:
        """Estimated accuracy on the unlabeled population from PU labels, as
        :meth:`unlabeled.pu.PUSVC.score` (``1 -`` the unbiased PU zero-one risk)."""
        check_is_fitted(self)
        if y is not None:
            if s is not None:
                raise TypeError("score got both s and y: pass the PU labels once, as s")
            s = y
        return pu_accuracy_score(
            s,  # type: ignore[arg-type]
            self.predict(X),
            self.prior_,
            sample_weight=sample_weight,
        )

    def _check_fitted(self) -> None:
        """A loaded model's layers agree with its weights and features."""
        sizes = tuple(self.layer_sizes_)
        if len(sizes) < 2 or sizes[0] != self.n_features_in_ or sizes[-1] != 1:
            raise ValueError("layer_sizes_ must run from n_features_in_ to 1")
        if len(sizes) - 2 > MAX_LAYERS:
            raise ValueError(f"layer_sizes_ has more than {MAX_LAYERS} hidden layers")
        need = sum(a * b + b for a, b in zip(sizes[:-1], sizes[1:], strict=True))
        if self.weights_.shape != (need,):
            raise ValueError(f"weights_ must hold {need} numbers for layer_sizes_ {sizes}")

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.classifier_tags.multi_class = False
        return tags


def _risk_weights(mask, weight, propensity):
    """``(positive weights, population weights)`` of every point: the sample weights of the
    labeled positives and of the unlabeled points (SCAR); with ``propensity``, those of the
    labeled positives over ``e`` and those of every point (the SAR risk)."""
    if propensity is None:
        return weight * mask, weight * ~mask
    wp = np.zeros(mask.size)
    wp[mask] = weight[mask] / propensity[mask]
    return wp, weight


def _negative_risk(f, wp, wu, prior, loss) -> float:
    """``g`` of the class docstring on all the points, the groups weighted by ``wp`` (labeled
    positives) and ``wu`` (the unlabeled points, or the population)."""
    ell = expit(f) if loss == "sigmoid" else -log_expit(-f)  # l(-f)
    return float(wu @ ell / wu.sum() - prior * (wp @ ell) / wp.sum())


@contextlib.contextmanager
def _torch_threads(torch, n_jobs):
    """torch on ``n_jobs`` CPU threads (:func:`engine_threads`) inside, restored after."""
    before = torch.get_num_threads()
    n = engine_threads(n_jobs)
    if n != before:
        torch.set_num_threads(n)
    try:
        yield n
    finally:
        if torch.get_num_threads() != before:
            torch.set_num_threads(before)


__all__ = ["NNPUMLPClassifier"]
