"""PlummerAutoencoder: a generative autoencoder trained by one minimisation (thesis ch. 4)."""

from __future__ import annotations

import contextlib
import copy
import itertools
import json
import math
import os
import threading
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.base import ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_array, check_is_fitted, validate_data

from .. import model_io
from .._budget import check_dense_budget
from .._threads import engine_threads
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
    check_int,
    check_not_strings,
    validate_params,
)
from ..base import Fitted, InvalidParameterError, ValidatedEstimator, set_init_params
from ..exceptions import MemoryBudgetError, ModelFileError
from ..registry import Case, register

TORCH_HINT = (
    "PlummerAutoencoder needs PyTorch, which is not installed: pip install "
    "'torch>=2.2,<=2.13.0' (or, in a checkout of unlabeled, its extra: pip install '.[torch]')"
)
FILE_FORMAT = "unlabeled-pae"
FILE_VERSION = 1
_OUT_ACTIVATIONS = ("linear", "sigmoid")
_INITS = ("random", "pca")
_INIT_ITER, _INIT_LR = 1000, 3e-3  # init="pca": the encoder's pre-fit, Adam steps and rate
_SCORE_SEED = 0  # the prior sample of score() is fixed so that score is a function of X
_SCORE_BLOCK = 2048  # rows per block of the kernel sums in score()
#: m, the most rows of one U-statistic in score(): its work is at most 3 n m kernel values
_SCORE_ROWS = 1024
_SEQUENTIAL = "torch.nn.modules.container.Sequential"
#: the largest weight magnitude of a loaded network: Adam moves a weight by about
#: learning_rate per step from a Glorot start below 2.5, so 1e10 is far beyond any training;
#: the fixed scaling layers hold the data's means and deviations, float32 as the training
#: data (below 3.4e38): 1e30 leaves room for the products of transform in float64
MAX_WEIGHT, MAX_SCALING = 1e10, 1e30
#: bytes per pair of codes of a training batch at the peak of a step: the three kernel sums of
#: the MMD each keep two batch x batch float32 matrices for the backward pass, and make two
#: more while they run
_MMD_BYTES_PER_PAIR = 32.0
_APPLY_VALUES = 2**23  # float64 activations of one block of rows in _apply: 64 MB
_DIVERGENCE_CHECK = 256  # training steps between checks of the loss (one device sync)
_F32_MAX, _F32_TINY = 3.4e38, 1.2e-38  # float32's largest and smallest normal numbers
#: the most hidden layers: each is a torch module visited on every step, and ReLU networks
#: of Glorot-uniform layers far deeper than this do not train (10**6 took minutes to build)
MAX_HIDDEN_LAYERS = 1000
#: bytes per network parameter during fit: float32 weight, gradient and Adam's two moments
_BYTES_PER_PARAMETER = 16.0
#: bytes per activation of a training batch: float32 output of a layer, its ReLU and gradient
_BYTES_PER_ACTIVATION = 12.0


_torch_lock = threading.Lock()
_torch_users = 0  # calls inside PlummerAutoencoder._threads, in any thread
_torch_threads_before = 0  # torch's thread count when the first of them entered


def import_torch_ops():
    """The torch-side module, imported on first use, with an error that says how to install."""
    try:
        from . import _torch_ops
    except ImportError as exc:
        if getattr(exc, "name", None) not in (None, "torch") and "torch" not in str(exc):
            raise
        raise ImportError(TORCH_HINT) from exc
    return _torch_ops


def _standardisation(X):
    """Per-feature mean and std of ``X`` (std 0 -> 1): the fixed layers of ``scale_data`` and
    the space of ``init="pca"``."""
    std = X.std(0)
    return X.mean(0), np.where(std > 0, std, 1.0)


def _batch_rows(torch, n, batch, generator, device):
    """The rows of one training batch: all of them, or ``batch`` drawn without replacement."""
    if batch == n:
        return slice(None)
    return torch.randperm(n, generator=generator, device=device)[:batch]


def _checked_entries(values, name: str, constraint) -> tuple:
    """The entries of a sequence parameter, each checked by :func:`validate_params` against
    ``constraint`` under the name ``name[i]``."""
    names = [f"{name}[{i}]" for i in range(len(values))]
    checked = validate_params(
        dict(zip(names, values, strict=True)), {k: [constraint] for k in names}
    )
    return tuple(checked[k] for k in names)


def pca_quantile_codes(X, h):
    """The start codes of ``init="pca"``: the ``h`` leading principal components of the
    standardised ``X`` (``X`` standardised when ``h`` equals its width), each replaced by its
    empirical quantile ``2 (rank - 1/2) / n - 1`` in ``(-1, 1)`` (ties share their mean rank)."""
    from scipy.stats import rankdata
    from sklearn.decomposition import PCA

    mean, scale = _standardisation(X)
    U = (X - mean) / scale
    if h < X.shape[1]:
        U = PCA(n_components=h, random_state=0).fit_transform(U)
    return 2.0 * (rankdata(U, axis=0) - 0.5) / X.shape[0] - 1.0


class TrainingDivergedError(FloatingPointError, ValueError):
    """The training loss became non-finite (a ``FloatingPointError``, and a ``ValueError``:
    the cause is a parameter value, which the message names).

    Examples
    --------
    >>> import numpy as np
    >>> from unlabeled.generative import PlummerAutoencoder, TrainingDivergedError
    >>> X = np.random.default_rng(0).normal(size=(50, 2))
    >>> pae = PlummerAutoencoder(learning_rate=1e30, max_iter=20, random_state=0)
    >>> try:
    ...     pae.fit(X)
    ... except TrainingDivergedError as exc:
    ...     print(isinstance(exc, ValueError))
    True
    """


@register(
    family="generative",
    command="pae",
    aliases=("autoencoder",),
    summary="Plummer autoencoder (needs torch)",
    cases=(
        Case(
            {
                "hidden_layer_sizes": (8,),
                "max_iter": 5,
                "batch_size": 20,
                "device": "cpu",
                "random_state": 0,
                "n_jobs": 1,
            }
        ),
    ),
    needs=("torch",),
)
class PlummerAutoencoder(ClassNamePrefixFeaturesOutMixin, TransformerMixin, ValidatedEstimator):
    r"""Plummer autoencoder (PAE): encode to a uniform latent law, sample by decoding noise.

    A deterministic autoencoder ``x -> f(x) -> g(f(x))`` whose codes ``q = f(x)`` are pushed to
    the prior ``p_z = U([-1, 1]^h)`` by an MMD term with the Plummer kernel
    ``k(z, z') = (||z - z'||^2 + eps)^(-beta/2)``. Encoder and decoder minimise one loss (no
    adversary, no min-max game); on each step, with a data batch ``x_1..x_N`` and ``N`` fresh
    prior samples ``z_1..z_N``,

    .. math::

        \hat L = \frac1N \sum_i \|x_i - g(f(x_i))\|^2
           + \frac{\lambda}{N(N-1)} \sum_{i \ne j}
             \bigl[k(z_i, z_j) - 2 k(z_i, f(x_j)) + k(f(x_i), f(x_j))\bigr],

    the reconstruction error plus ``lam`` times Gretton's unbiased U-statistic ``MMD_u^2`` (the
    diagonal excluded in all three sums). At the optimum ``g`` inverts ``f`` on the data and
    ``f(x)`` is uniform, so ``g(z)``, ``z ~ p_z``, has the law of the data: :meth:`sample`
    decodes uniform noise. Theorem 1(b) of the thesis gives ``\hat L >= -2 lam K / (N - 1)``
    with ``K = eps^(-beta/2)``. Encoder: MLP, ReLU hidden layers, ``tanh`` output; decoder:
    MLP with the hidden widths reversed, ReLU, linear or sigmoid output; Glorot-uniform weights,
    zero biases; one Adam over both networks (Algorithm 2).

    Parameters
    ----------
    n_components : int >= 1, default=2
        Latent dimension ``h`` (the intrinsic dimension of the data support), at most
        ``n_features``: the codes of ``d``-dimensional data fill at most a ``d``-dimensional
        set, so they could never be uniform in more dimensions.
    hidden_layer_sizes : int or tuple of int, default=(128, 128)
        Hidden widths of the encoder (an int: one hidden layer; at most
        1000 of them); the decoder uses them in reverse order.
        ``fit`` refuses networks whose training needs more than the dense budget (16 bytes
        per parameter: weight, gradient and Adam's two moments in float32).
    out_activation : {"linear", "sigmoid"}, default="linear"
        Decoder output: linear for real data, sigmoid for data in ``[0, 1]`` (images).
    lam : float >= 0, default=10.0
        Weight ``lambda`` of the MMD term (thesis: 10 on the grid, 1 low-dim, 0.1 images).
    eps : float > 0, default=1e-4
        Added to the squared distance in the kernel.
    beta : float > 0, default=1.0
        Kernel exponent (the "extended" Plummer kernel of the thesis: 1).
    learning_rate : float > 0, default=1e-4
        Adam step size (thesis: 1e-4 over 2e6 iterations; 1e-3 for short runs).
    betas : tuple of two floats in [0, 1), default=(0.5, 0.9)
        Adam's ``(beta1, beta2)``.
    batch_size : int >= 2, default=500
        ``N``; capped at the number of samples (full batch), drawn without replacement.
    max_iter : int >= 1, default=10000
        Number of Adam steps.
    device : str, default="auto"
        ``"auto"`` (CUDA when available, else CPU), ``"cpu"``, ``"cuda"`` or ``"cuda:N"``.
    random_state : int, RandomState or None, default=None
        Seeds the initial weights, the batches and the prior samples (reproducible on the CPU).
    verbose : bool or int, default=False
        Show a progress bar of the training steps (and of ``init="pca"``'s encoder pre-fit)
        with the running loss, the steps per second and the estimated time left, and the
        device and number of threads used.
    warm_start : bool, default=False
        When fitted, ``fit`` continues training the current networks with the same Adam state
        and random stream for ``max_iter`` more steps (the histories grow), on the same kind of
        data; ``learning_rate`` and ``betas`` may be changed in between with ``set_params``.
    init : {"random", "pca"}, default="random"
        ``"random"``: Glorot-uniform weights, zero biases (the thesis). ``"pca"``: then, before
        training, the encoder alone is fitted (squared error, 1000 Adam steps at rate 0.003 on
        batches of ``batch_size``) to the codes of an axis-aligned spread start: the leading
        ``n_components`` principal components of the standardised data (the standardised data
        itself when ``n_components == n_features``), each replaced by its empirical quantile
        in ``(-1, 1)``, so that the codes begin with the prior's uniform marginals, as
        t-SNE's ``init="pca"`` begins from a linear map. Training then starts with a fresh
        Adam. A deviation from the thesis, for short budgets: on the 25-Gaussian grid the
        latent cells of the modes then form a lattice aligned with the square, whose
        boundaries (where the continuous decoder's samples fall between modes) are shortest;
        see ``benchmarks/results/pae_grid.md``. Needs
        ``n_components <= n_features``.
    scale_data : bool, default=True
        Give the encoder a fixed first layer ``(x - mean) / std`` and a linear decoder the fixed
        last layer ``y * std + mean`` (per feature, from the training data; std 0 -> 1). Only
        the parametrisation changes, not the loss, which stays in the data's units; Adam's
        steps then have the same effect on every scale of data. On the 25-Gaussian grid
        (coordinates up to 21) this is what lets the decoder separate the modes in a short
        run. ``False``: the plain MLPs of the thesis.
    n_jobs : int or None, default=None
        CPU threads of torch during ``fit``, ``transform``, ``inverse_transform``, ``sample``
        and ``score``, at most the cores the process may use (``os.sched_getaffinity``; larger
        values are clipped to them). ``-1``: all cores the process may use; ``None``: those
        cores minus the processes already running on them when the call starts (at least
        one), as :class:`~unlabeled.PUSVC` chooses them, and no more than
        ``torch.get_num_threads()`` (a process that set fewer keeps them): torch's default of
        one thread per core made each step of the README's example 6 to 50 times slower when
        another process kept one of two cores busy. The process's torch thread count is
        restored when the call returns.

    Attributes
    ----------
    encoder_, decoder_ : torch.nn.Sequential
        The fitted networks ``f`` and ``g`` (on ``device_``).
    loss_history_ : ndarray of shape (n_iter_,)
        ``\hat L`` at every step; ``reconstruction_history_`` and ``mmd_history_`` hold its
        two terms (the MMD before multiplication by ``lam``).
    n_iter_ : int
        Steps taken.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        The column names of a DataFrame given to ``fit`` (absent otherwise).
    device_ : str

    See Also
    --------
    unlabeled.generative.mmd2_u : the unbiased batch MMD.
    unlabeled.generative.pae_loss : the batch loss.

    References
    ----------
    E. Sansone, "Towards Uncovering the True Use of Unlabeled Data in Machine Learning", PhD
    thesis, University of Trento, 2018, ch. 4 and app. B (the Plummer autoencoder); A. Gretton et
    al., "A kernel two-sample test", JMLR 13 (2012).

    Examples
    --------
    >>> import numpy as np
    >>> from unlabeled.generative import PlummerAutoencoder
    >>> X = np.random.default_rng(0).normal(size=(200, 2))
    >>> pae = PlummerAutoencoder(lam=1.0, learning_rate=1e-3, max_iter=50, random_state=0)
    >>> pae.fit(X).sample(5, random_state=0).shape
    (5, 2)
    """

    _parameter_constraints: dict = {
        "n_components": [Integer(1)],
        # an int is one hidden layer; the widths of a tuple are checked by _validate_params
        "hidden_layer_sizes": [Integer(1), Instance((tuple, list), "a tuple of positive ints")],
        "out_activation": [Options(_OUT_ACTIVATIONS)],
        "lam": [Real(0.0, low_open=False)],
        "eps": [Real(0.0)],
        "beta": [Real(0.0)],
        "learning_rate": [Real(0.0)],
        "betas": [Instance((tuple, list), "a pair (beta1, beta2) in [0, 1)")],
        "batch_size": [Integer(2)],
        "max_iter": [Integer(1)],
        # the device's name is checked by torch when fit resolves it
        "device": [Instance((str,), "a string such as 'auto' or 'cpu'")],
        "random_state": RANDOM_STATE,
        "verbose": VERBOSE,
        "warm_start": [Boolean()],
        "scale_data": [Boolean()],
        "init": [Options(_INITS)],
        "n_jobs": [None, Options((-1,)), Integer(1)],
    }

    # set by fit (a warm start reads them first): declared for the type checker
    device_: str
    encoder_: Any
    decoder_: Any
    _optimizer: Any
    _generator: Any

    _fitted_attributes: dict = {
        # torch networks in memory; arrays of weights in a model file (__getstate__)
        "encoder_": Fitted("object", choices=(_SEQUENTIAL,)),
        "decoder_": Fitted("object", choices=(_SEQUENTIAL,)),
        "device_": Fitted("str"),
        "loss_history_": Fitted("f", ("n_iter_",)),
        "reconstruction_history_": Fitted("f", ("n_iter_",), low=0.0),
        "mmd_history_": Fitted("f", ("n_iter_",)),
        "n_iter_": Fitted("int", low=0),
        # Adam's moments and the random stream: a loaded model's warm start begins new ones
        "_optimizer": None,
        "_generator": None,
    }

    def __init__(
        self,
        n_components: int = 2,
        *,
        hidden_layer_sizes: int | tuple[int, ...] = (128, 128),
        out_activation: str = "linear",
        lam: float = 10.0,
        eps: float = 1e-4,
        beta: float = 1.0,
        learning_rate: float = 1e-4,
        betas: tuple[float, float] = (0.5, 0.9),
        batch_size: int = 500,
        max_iter: int = 10000,
        device: str = "auto",
        random_state: int | np.random.RandomState | None = None,
        verbose: bool | int = False,
        warm_start: bool = False,
        scale_data: bool = True,
        init: str = "random",
        n_jobs: int | None = None,
    ) -> None:
        set_init_params(self, locals())

    # ------------------------------------------------------------------ validation
    def _validate_params(self) -> dict:
        """The declared constraints, then the entries of the sequences (which they cannot
        reach): ``hidden`` (the hidden widths as a tuple, each an integer >= 1) and ``betas``
        (two numbers in [0, 1)) are added to the checked values."""
        p = super()._validate_params()
        hidden = p["hidden_layer_sizes"]
        if not isinstance(hidden, int) and len(hidden) > MAX_HIDDEN_LAYERS:
            raise InvalidParameterError(
                f"hidden_layer_sizes must have at most {MAX_HIDDEN_LAYERS} hidden layers, got "
                f"{len(hidden):,}: give fewer, wider layers"
            )
        p["hidden"] = _checked_entries(
            (hidden,) if isinstance(hidden, int) else hidden, "hidden_layer_sizes", Integer(1)
        )
        if len(p["betas"]) != 2:
            raise InvalidParameterError(
                f"betas must be a pair (beta1, beta2) in [0, 1), got {p['betas']!r}"
            )
        p["betas"] = _checked_entries(p["betas"], "betas", Real(0.0, 1.0, low_open=False))
        return p

    def _check_data(self, X, name="X", n_columns=None, what="features") -> np.ndarray:
        check_not_strings(X, name)
        X = check_array(X, dtype=np.float64, order="C", ensure_min_samples=1, input_name=name)
        # squares that overflow or underflow in the scaling and the distances
        check_data_scale(X, "PlummerAutoencoder", tiny=1e-100)
        if n_columns is not None and X.shape[1] != n_columns:
            fix = (
                "fit and transform need the same columns"
                if name == "X"
                else ("give one column per latent dimension (n_components)")
            )
            raise ValueError(
                f"{name} has {X.shape[1]} {what}, but {type(self).__name__} is expecting "
                f"{n_columns} {what} as input: {fix}"
            )
        return X

    # ------------------------------------------------------------------ fitting
    def fit(self, X: ArrayLike, y: ArrayLike | None = None) -> PlummerAutoencoder:
        """Train encoder and decoder jointly on ``X`` (Algorithm 2 of the thesis).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data, at least 2 rows; finite values.
        y : ignored

        Returns
        -------
        self

        Transactional: a fit that fails (a diverged training run, a parameter refused against
        the data, Ctrl-C during training) leaves the estimator as it was; a warm start trains
        copies of the networks and of Adam's state.

        Raises
        ------
        TrainingDivergedError
            The loss became non-finite; the message names the likely cause among
            ``learning_rate``, the data's scale, ``eps``, ``beta`` and ``lam``.
        MemoryBudgetError
            The MMD of a batch of ``min(batch_size, n_samples)`` codes, or the networks that
            ``hidden_layer_sizes``, ``n_features`` and ``n_components`` make (their parameters,
            gradients, Adam's moments and a batch's activations), need more memory than
            ``unlabeled.get_config()["max_dense_bytes"]`` or than is available: before any work.
        ValueError
            ``n_components`` is more than ``n_features``, or a parameter is invalid.
        """
        p = self._validate_params()
        fresh = not (p["warm_start"] and hasattr(self, "encoder_"))
        X_given, X = X, self._check_fit_data(X, p, fresh)
        self._check_batch_memory(min(p["batch_size"], X.shape[0]))
        self._check_network_memory(p, X.shape[1], min(p["batch_size"], X.shape[0]), fresh)
        steps = p["max_iter"] + (0 if fresh else int(self.n_iter_))
        check_dense_budget(  # the three float64 histories, on the device, then two copies
            72.0 * steps,
            f"PlummerAutoencoder's loss histories of {steps:,} training steps (max_iter="
            f"{p['max_iter']:,})",
            "lower max_iter",
        )
        ops = import_torch_ops()
        with self._threads(ops.torch, p["n_jobs"]) as n_threads:
            self._fit(ops, p, X, X_given, fresh, n_threads)
        return self

    def _fit(self, ops, p, X, X_given, fresh, n_threads) -> None:
        """:meth:`fit` on checked data, with torch on ``n_threads`` CPU threads."""
        torch = ops.torch
        if not fresh:
            # train copies (together: Adam's state refers to the networks' parameters), so
            # that a failed or interrupted warm start leaves the fitted model as it was
            old = (self.encoder_, self.decoder_, getattr(self, "_optimizer", None))
            self.encoder_, self.decoder_, opt = copy.deepcopy(old)
            if opt is None:  # a loaded model: new Adam, stream
                self._new_optimizer(torch, p, torch.device(self.device_))
            else:
                self._optimizer, self._generator = opt, copy.deepcopy(self._generator)
            dev = torch.device(self.device_)
            self._check_batch_memory(min(p["batch_size"], X.shape[0]), torch, dev)
            for group in self._optimizer.param_groups:
                group["lr"], group["betas"] = p["learning_rate"], p["betas"]
        else:
            dev = ops.resolve_device(self.device)
            seeds = check_random_state(self.random_state).randint(0, 2**31 - 1, size=2)
            # n_features_in_ and, for a DataFrame, feature_names_in_ (X is checked already)
            validate_data(self, X_given, reset=True, skip_check_array=True)
            g_init = torch.Generator().manual_seed(int(seeds[0]))
            shift, scale = np.zeros(X.shape[1]), np.ones(X.shape[1])
            if p["scale_data"]:
                shift, scale = _standardisation(X)
            self._check_batch_memory(min(p["batch_size"], X.shape[0]), torch, dev)
            self.encoder_, self.decoder_ = self._build(ops, p, g_init, dev, shift, scale)
            self.device_ = str(dev)
            self._new_optimizer(torch, p, dev, int(seeds[1]))
            empty = np.empty(0)
            self.loss_history_ = self.reconstruction_history_ = self.mmd_history_ = empty
        data = torch.tensor(X, dtype=torch.float32, device=dev)  # a copy: X is never touched
        where = f"{dev.type}, {n_threads} thread{'s' * (n_threads > 1)}"
        if fresh and p["init"] == "pca":  # Adam holds no state yet: its creation order is moot
            codes = pca_quantile_codes(X, p["n_components"])
            self._prefit_encoder(ops, p, data, codes, where)
        hist = self._train(ops, p, data, where, X)
        self.loss_history_, self.reconstruction_history_, self.mmd_history_ = (
            np.concatenate([old, new])
            for old, new in zip(
                (self.loss_history_, self.reconstruction_history_, self.mmd_history_),
                hist,
                strict=True,
            )
        )
        self.n_iter_ = self.loss_history_.size

    def _new_optimizer(self, torch, p, dev, seed=None) -> None:
        """Adam over both networks and the training's random stream (seeded from
        ``random_state`` when ``seed`` is None: a loaded model's warm start)."""
        if seed is None:
            seed = int(check_random_state(self.random_state).randint(0, 2**31 - 1, size=2)[1])
        self._generator = torch.Generator(device=dev).manual_seed(seed)
        params = [*self.encoder_.parameters(), *self.decoder_.parameters()]
        self._optimizer = torch.optim.Adam(
            params, lr=p["learning_rate"], betas=p["betas"], eps=1e-8
        )

    @contextlib.contextmanager
    def _threads(self, torch, n_jobs):
        """Run the block with torch on the CPU threads that ``n_jobs`` gives (see its entry in
        the class docstring); the process's thread count is restored afterwards.

        The count is process-wide, so calls in several threads at once share one: the first
        to enter sets it, the last to leave restores the count it found (each restoring its
        own left the process with another call's count)."""
        global _torch_users, _torch_threads_before
        with _torch_lock:
            if _torch_users == 0:
                _torch_threads_before = torch.get_num_threads()
                n_threads = engine_threads(n_jobs)
                if n_jobs is None:  # a process that lowered torch's count keeps it
                    n_threads = min(n_threads, _torch_threads_before)
                if n_threads != _torch_threads_before:
                    torch.set_num_threads(n_threads)
            n_threads = torch.get_num_threads()
            _torch_users += 1
        try:
            yield n_threads
        finally:
            with _torch_lock:
                _torch_users -= 1
                if _torch_users == 0 and torch.get_num_threads() != _torch_threads_before:
                    torch.set_num_threads(_torch_threads_before)

    def _call_threads(self, torch):
        """:meth:`_threads` for a call on the fitted model, ``n_jobs`` checked as ``fit`` does
        (it may have been changed with ``set_params`` since)."""
        n_jobs = getattr(self, "n_jobs", None)  # a model pickled before n_jobs existed
        checked = validate_params(
            {"n_jobs": n_jobs}, {"n_jobs": self._parameter_constraints["n_jobs"]}
        )
        return self._threads(torch, checked["n_jobs"])

    def _check_fit_data(self, X, p, fresh) -> np.ndarray:
        """The training data, checked; with what the declared constraints cannot say, as it
        depends on the data or on the fitted model: 2 samples at least, ``init="pca"`` within
        the number of features, and for a warm start the same features and latent dimension.
        Before any work (torch is not imported yet)."""
        X = self._check_data(X)
        if X.shape[0] < 2:
            raise ValueError(
                f"PlummerAutoencoder needs at least 2 samples for the U-statistic, got "
                f"{X.shape[0]} sample (n_samples = 1)"
            )
        h, d = p["n_components"], X.shape[1]
        if fresh and h > d:
            # (and the cost of a step grows with h: 10**6 ran for minutes)
            raise ValueError(
                f"PlummerAutoencoder needs n_components <= n_features, got n_components={h:,} "
                f"> n_features = {d}: the codes of {d}-dimensional data fill at most a "
                f"{d}-dimensional set, never the {h:,}-dimensional cube of the prior; lower "
                f"n_components to at most {d}"
            )
        if not fresh:
            self._check_data(X, n_columns=self.n_features_in_)
            validate_data(self, X, reset=False, skip_check_array=True)  # the same column names
            if self._latent_dim() != p["n_components"]:
                raise ValueError("warm_start: n_components changed since the last fit")
        return X

    def _build(self, ops, p, generator, dev, shift, scale):
        """Encoder ``[Affine, Linear, ReLU, ..., Linear, Tanh]``; decoder ``[Linear, ReLU, ...,
        Linear, (Sigmoid | Affine^-1)]``: the affine layers are the identity unless
        ``scale_data`` (no output scaling after a sigmoid)."""
        h, hidden, d = p["n_components"], p["hidden"], self.n_features_in_
        enc = ops.make_mlp((d, *hidden, h), "tanh", generator)
        enc.insert(0, ops.Affine(shift, scale, inverse=False))
        dec = ops.make_mlp((h, *hidden[::-1], d), p["out_activation"], generator)
        if p["out_activation"] == "linear":
            dec.append(ops.Affine(shift, scale, inverse=True))
        return enc.to(dev), dec.to(dev)

    def _prefit_encoder(self, ops, p, data, codes, where):
        """``init="pca"``: fit the encoder alone to ``codes`` by squared error."""
        torch = ops.torch
        target = torch.tensor(codes, dtype=data.dtype, device=data.device)
        opt = torch.optim.Adam(self.encoder_.parameters(), lr=_INIT_LR)
        n, batch = data.shape[0], min(p["batch_size"], data.shape[0])
        bar = self._progress(_INIT_ITER, f"init='pca' ({where})")
        for _ in range(_INIT_ITER):
            rows = _batch_rows(torch, n, batch, self._generator, data.device)
            loss = (self.encoder_(data[rows]) - target[rows]).pow(2).sum(1).mean()
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            if bar is not None:
                bar.update(1)
        if bar is not None:
            bar.close()

    def _check_network_memory(self, p, d, batch, fresh) -> None:
        """Refuse networks whose training needs more than the dense budget, before any is
        built: ``16`` bytes per parameter (float32 weight, gradient, Adam's two moments; twice
        that for a warm start, which trains copies) and ``12`` per activation of a batch
        (each layer's output, its ReLU and their gradient, float32)."""
        h, hidden = p["n_components"], p["hidden"]
        n_params = n_activations = 0.0
        for sizes in ((d, *hidden, h), (h, *hidden[::-1], d)):  # encoder, decoder
            n_params += sum(float(a) * b + b for a, b in zip(sizes[:-1], sizes[1:], strict=True))
            n_activations += float(batch) * (2 * sum(sizes) + d)  # (and the scaling layers)
        n_bytes = _BYTES_PER_PARAMETER * n_params * (1 if fresh else 2)
        check_dense_budget(
            n_bytes + _BYTES_PER_ACTIVATION * n_activations,
            f"PlummerAutoencoder's networks with hidden_layer_sizes={p['hidden_layer_sizes']!r} "
            f"on {d:,} features and n_components={h:,} have {n_params:,.0f} parameters, "
            f"trained on batches of {batch:,} rows",
            "lower hidden_layer_sizes",
        )

    def _check_batch_memory(self, batch, torch=None, dev=None) -> None:
        """Refuse a training batch whose MMD (three ``batch x batch`` kernel sums, kept for the
        backward pass) needs more than the dense budget or the memory available, before any
        work; given torch and a CUDA device ``dev``, more than the device's free memory."""
        n_bytes = _MMD_BYTES_PER_PAIR * float(batch) ** 2
        what = (
            f"PlummerAutoencoder's MMD on training batches of {batch:,} codes (batch_size="
            f"{self.batch_size}, at most n_samples) needs {batch:,} x {batch:,} kernel "
            "matrices"
        )
        fix = "lower batch_size (its memory grows as batch_size squared)"
        if torch is None:
            check_dense_budget(n_bytes, what, fix)
        elif dev is not None and dev.type == "cuda":
            free = float(torch.cuda.mem_get_info(dev)[0])
            if n_bytes > free:
                raise MemoryBudgetError(
                    f"{what} on {dev}: about {n_bytes / 2**30:.3g} GB, over the "
                    f"{free / 2**30:.3g} GB free on the device; {fix}"
                )

    def _train(self, ops, p, data, where, X):
        torch = ops.torch
        n, h, dev = data.shape[0], p["n_components"], data.device
        batch = min(p["batch_size"], n)
        opt, gen = self._optimizer, self._generator
        hist = torch.empty((p["max_iter"], 3), dtype=torch.float64, device=dev)
        bar = self._progress(p["max_iter"], where)
        self.encoder_.train()
        self.decoder_.train()
        for it in range(p["max_iter"]):
            x = data[_batch_rows(torch, n, batch, gen, dev)]
            zp = torch.rand((batch, h), generator=gen, device=dev, dtype=data.dtype) * 2 - 1
            loss, rec, mmd = ops.pae_loss(
                x, zp, self.encoder_, self.decoder_, p["lam"], p["eps"], p["beta"]
            )
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            hist[it, 0], hist[it, 1], hist[it, 2] = loss.detach(), rec.detach(), mmd.detach()
            if (it + 1) % _DIVERGENCE_CHECK == 0 and not bool(
                torch.isfinite(hist[it + 1 - _DIVERGENCE_CHECK : it + 1, 0]).all()
            ):
                break  # diverged: no use in the steps left
            if bar is not None:
                bar.update(1)
                if it % 200 == 0:
                    bar.set_postfix(loss=f"{loss.item():.4g}", rec=f"{rec.item():.3g}")
        if bar is not None:
            bar.close()
        self.encoder_.eval()
        self.decoder_.eval()
        out = hist.cpu().numpy()
        bad = ~np.isfinite(out[: it + 1, 0])
        if bad.any():
            raise TrainingDivergedError(_divergence_message(p, X, int(np.argmax(bad))))
        return out[:, 0].copy(), out[:, 1].copy(), out[:, 2].copy()

    def _progress(self, total, what):
        """A progress bar on stderr (steps, rate, elapsed and estimated time left) when
        ``verbose``; None otherwise."""
        if not self.verbose:
            return None
        from tqdm.auto import tqdm

        return tqdm(total=total, desc=f"PlummerAutoencoder {what}", unit="step")

    # ------------------------------------------------------------------ using the model
    def _apply(self, net, A):
        """``net(A)`` in float64 (weights cast on the fly), so that a row's result does not
        depend on the other rows of the batch through float32 BLAS blocking."""
        ops = import_torch_ops()
        torch = ops.torch
        dev = next(net.parameters()).device
        widths = [m.out_features for m in net if hasattr(m, "out_features")]
        n_out = widths[-1]
        check_dense_budget(
            8.0 * A.shape[0] * n_out,
            f"PlummerAutoencoder's output of {A.shape[0]:,} rows x {n_out:,} columns (float64)",
            "give fewer rows at a time",
        )
        # rows in blocks: the activations of a block stay within _APPLY_VALUES float64 values
        rows = max(1, _APPLY_VALUES // max(A.shape[1], *widths))
        out = np.empty((A.shape[0], n_out))
        with torch.no_grad(), self._call_threads(torch):
            forward = ops.forward64(net)  # the network is only read: safe from many threads
            for i in range(0, A.shape[0], rows):
                block = torch.tensor(A[i : i + rows], dtype=torch.float64, device=dev)
                out[i : i + rows] = forward(block).cpu().numpy()
        return out

    def _latent_dim(self):
        return self.decoder_[0].in_features

    @property
    def _n_features_out(self) -> int:
        """The number of latent codes (for ``get_feature_names_out``: ``plummerautoencoder0``,
        ...); an AttributeError before ``fit``."""
        return self._latent_dim()

    def transform(self, X: ArrayLike) -> np.ndarray:
        """Encode: the latent codes ``f(X)`` in ``(-1, 1)^h``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_components)
        """
        check_is_fitted(self, "encoder_")
        X_given, X = X, self._check_data(X, n_columns=self.n_features_in_)
        validate_data(self, X_given, reset=False, skip_check_array=True)  # the column names
        return self._apply(self.encoder_, X)

    def inverse_transform(self, Z: ArrayLike) -> np.ndarray:
        """Decode latent points ``Z`` to data space: ``g(Z)``.

        Parameters
        ----------
        Z : array-like of shape (n_samples, n_components)

        Returns
        -------
        ndarray of shape (n_samples, n_features)
        """
        check_is_fitted(self, "decoder_")
        h = self._latent_dim()
        return self._apply(self.decoder_, self._check_data(Z, "Z", h, "columns"))

    def sample(
        self, n_samples: int = 1, random_state: int | np.random.RandomState | None = None
    ) -> np.ndarray:
        """Generate ``n_samples`` points: decode ``z ~ U([-1, 1]^h)``.

        Parameters
        ----------
        n_samples : int >= 1, default=1
        random_state : int, RandomState or None
            Seeds the latent noise (NumPy), so samples are reproducible on any device.

        Returns
        -------
        ndarray of shape (n_samples, n_features)

        Raises
        ------
        MemoryBudgetError
            The noise and the samples (``8 n_samples (n_components + n_features)`` bytes)
            need more than ``unlabeled.get_config()["max_dense_bytes"]``: before any work.
        """
        check_is_fitted(self, "decoder_")
        n = check_int(n_samples, "n_samples", low=1)
        checked = validate_params({"random_state": random_state}, {"random_state": RANDOM_STATE})
        rng = check_random_state(checked["random_state"])
        h, d = self._latent_dim(), self.n_features_in_
        check_dense_budget(  # the latent noise and the samples, float64
            8.0 * n * (h + d),
            f"PlummerAutoencoder.sample(n_samples={n:,}) makes {n:,} x {h} latent points and "
            f"{n:,} x {d} samples",
            "lower n_samples (draw the samples in batches)",
        )
        return self.inverse_transform(rng.uniform(-1.0, 1.0, size=(n, self._latent_dim())))

    def score(self, X: ArrayLike, y: ArrayLike | None = None) -> float:
        r"""Minus the PAE loss on ``X`` (greater is better, as scikit-learn scorers are).

        ``-(rec + lam * MMD^2)``: ``rec`` the mean squared reconstruction error over all the
        rows, and ``MMD^2`` an unbiased estimate of the squared MMD between the codes
        ``q_i = f(x_i)`` and ``n = len(X)`` prior samples ``z_i`` drawn with a fixed seed
        (so that the score is a function of ``X``). With ``n <= m`` rows
        (``m = 1024``) it is the loss of ``X`` as one batch, Gretton's U-statistic
        ``MMD_u^2`` over all pairs ``i != j``. With more rows, whose pairs would make the work
        grow as ``n^2`` (30,000 rows took 84 s), the rows are put in an order drawn with the
        fixed seed and cut into ``g = ceil(n / m)`` groups ``G_1..G_g`` of at most ``m``
        (sizes differing by at most one), and only the pairs within a group count:

        .. math::

            \widehat{\mathrm{MMD}^2} = \frac{\sum_k \sum_{i \ne j \in G_k}
                \bigl[k(z_i, z_j) - 2 k(z_i, q_j) + k(q_i, q_j)\bigr]}
                {\sum_k |G_k| (|G_k| - 1)},

        an incomplete U-statistic (each term has the expectation ``MMD^2``, so it is still
        unbiased; its variance is that of the block test of Zaremba, Gretton and Blaschko,
        2013). The work is at most ``3 n m`` kernel values, linear in ``n``: the same order
        as :meth:`transform`. The kernel sums are done in float64.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), n_samples >= 2
        y : ignored

        Returns
        -------
        float
        """
        check_is_fitted(self, "encoder_")
        X_given, X = X, self._check_data(X, n_columns=self.n_features_in_)
        validate_data(self, X_given, reset=False, skip_check_array=True)  # the column names
        if X.shape[0] < 2:
            raise ValueError("score needs at least 2 samples (the MMD is a U-statistic)")
        q = self._apply(self.encoder_, X)
        rec = float(((X - self.inverse_transform(q)) ** 2).sum(1).mean())
        rs = np.random.RandomState(_SCORE_SEED)
        zp = rs.uniform(-1.0, 1.0, size=q.shape)
        n = q.shape[0]
        if n <= _SCORE_ROWS:
            groups = [np.arange(n)]
        else:  # a fixed random order: groups of exchangeable rows, whatever X's order
            groups = np.array_split(rs.permutation(n), -(-n // _SCORE_ROWS))
        return -(rec + self.lam * self._mmd2_u_grouped(zp, q, groups))

    def _mmd2_u_grouped(self, zp, q, groups):
        """The MMD of :meth:`score`: the sums over the pairs within each group of rows, over
        the number of those pairs."""
        ops = import_torch_ops()
        torch = ops.torch
        zp_t, q_t = torch.as_tensor(zp), torch.as_tensor(q)
        total = pairs = 0.0
        with self._call_threads(torch):
            for rows in groups:
                idx = torch.as_tensor(rows)
                total += self._mmd2_u_sums(ops, zp_t[idx], q_t[idx])
                pairs += float(len(rows)) * (len(rows) - 1)
        return total / pairs

    def _mmd2_u_sums(self, ops, zp_t, q_t):
        """``sum_{i != j} [k(z_i, z_j) - 2 k(z_i, q_j) + k(q_i, q_j)]``, in blocks."""
        n, s = zp_t.shape[0], 0.0
        # blocks of rows and columns: at most _SCORE_BLOCK^2 kernel values at a time
        for a in range(0, n, _SCORE_BLOCK):
            za, qa = zp_t[a : a + _SCORE_BLOCK], q_t[a : a + _SCORE_BLOCK]
            for b in range(0, n, _SCORE_BLOCK):
                zb, qb = zp_t[b : b + _SCORE_BLOCK], q_t[b : b + _SCORE_BLOCK]
                k_zz = ops.plummer_kernel(za, zb, self.eps, self.beta).sum()
                k_zq = ops.plummer_kernel(za, qb, self.eps, self.beta).sum()
                k_qq = ops.plummer_kernel(qa, qb, self.eps, self.beta).sum()
                s += float(k_zz - 2.0 * k_zq + k_qq)
        diag_zq = float(((zp_t - q_t).pow(2).sum(1) + self.eps).pow(-self.beta / 2).sum())
        big_k = self.eps ** (-self.beta / 2)
        return s - 2.0 * n * big_k + 2.0 * diag_zq

    # ------------------------------------------------------------------ model files
    def __getstate__(self) -> dict:
        """The state with each network as its weights packed in one float32 array (with the
        names and shapes of the tensors, on the CPU), and without Adam's state or the random
        stream: what model files and pickles keep (one array per network, so that skops stores
        it without pickle, in one zip member whatever the depth of the network)."""
        state = dict(super().__getstate__())  # a copy: object's is the live __dict__
        for name in ("encoder_", "decoder_"):
            if name in state and not isinstance(state[name], dict):
                tensors = {k: v.detach().cpu().numpy() for k, v in state[name].state_dict().items()}
                state[name] = {
                    "names": list(tensors),
                    "shapes": [list(w.shape) for w in tensors.values()],
                    "weights": np.concatenate(
                        [w.ravel() for w in tensors.values()], dtype=np.float32
                    ),
                }
        state.pop("_optimizer", None)
        state.pop("_generator", None)
        return state

    def __setstate__(self, state: dict) -> None:
        """Rebuild the networks from their weights (imports torch), on the device they were
        saved from when this machine has it (a deep copy stays on its GPU), else the CPU.

        The weights are checked first, before anything is built: float arrays, finite, at
        most :data:`MAX_WEIGHT` in magnitude (the scaling layers :data:`MAX_SCALING`, their
        scales positive), their names and shapes exactly those of the networks that the
        parameters and ``n_features_in_`` make (:func:`_weight_shapes`), so that the networks
        built hold no more numbers than the state itself (a file's parameters cannot ask for
        gigabytes). Each network is packed (``names``, ``shapes``, ``weights``: model files
        of format 2) or a dict of arrays by name (format 1)."""
        weights = {k: state[k] for k in ("encoder_", "decoder_") if isinstance(state.get(k), dict)}
        super().__setstate__({k: v for k, v in state.items() if k not in weights})
        if not weights:
            return
        for name in ("encoder_", "decoder_", "n_features_in_"):
            if name not in state:
                raise ValueError(f"the fitted attribute {name} is missing")
        d = state["n_features_in_"]
        if len(weights) != 2 or type(d) is not int:
            raise TypeError("encoder_ and decoder_ must be weights, n_features_in_ an int")
        if not 1 <= d <= 10**6:
            raise ValueError(f"n_features_in_ must be in [1, 1e6], got {d}")
        p = self._validate_params()
        weights = {name: _unpacked(name, tensors) for name, tensors in weights.items()}
        for (name, tensors), expected in zip(weights.items(), _weight_shapes(p, d), strict=True):
            _check_weights(name, tensors, expected)
        ops = import_torch_ops()
        torch = ops.torch
        nets = self._build(ops, p, torch.Generator(), torch.device("cpu"), np.zeros(d), np.ones(d))
        for (name, tensors), net in zip(weights.items(), nets, strict=True):
            try:
                net.load_state_dict({k: torch.from_numpy(np.array(v)) for k, v in tensors.items()})
            except RuntimeError as exc:  # (names and shapes were checked above)
                raise ValueError(f"{name} does not match the model's parameters: {exc}") from None
            net.eval()
        dev = _saved_device(torch, state.get("device_"))
        self.encoder_, self.decoder_ = (net.to(dev) for net in nets)
        self.device_ = str(dev)

    def save(self, path: str | os.PathLike) -> None:
        """Write the fitted model to a model file: :func:`unlabeled.save` (a skops archive,
        the weights as arrays, never a pickle).

        Files written by earlier versions with ``torch.save`` are still read by :meth:`load`
        (checked as model files are); this method writes model files only.
        """
        model_io.save(self, path)

    @classmethod
    def load(cls, path: str | os.PathLike, device: str = "auto") -> PlummerAutoencoder:
        """Read a model written by :meth:`save` or :func:`unlabeled.save`, on ``device``.

        A file of an earlier version (a ``torch.save`` record) is read with
        ``torch.load(weights_only=True)`` and checked as model files are: every key of the
        record, its type, the networks' names and shapes against the parameters (before
        anything is built), the histories finite, then :func:`unlabeled.model_io.check_model`.
        After loading, ``warm_start=True`` continues training from the loaded weights (with a
        new Adam state).

        Raises
        ------
        ModelFileError
            For a file that is missing, not a model of this class, or not a valid one (naming
            what is wrong).
        """
        ops = import_torch_ops()
        p = Path(path)
        if not p.is_file():
            raise ModelFileError(f"model file not found: {str(p)!r}")
        not_ours = f"{str(p)!r} is not a PlummerAutoencoder file"
        model_io.check_archive(p, not_ours)  # the size caps (a torch record is a zip too)
        try:
            with zipfile.ZipFile(p) as zf:
                ours = model_io.META_MEMBER in zf.namelist()
        except (zipfile.BadZipFile, OSError, ValueError) as exc:
            raise ModelFileError(f"{str(p)!r} is a corrupt model file: {exc}") from None
        model = model_io.load(p) if ours else cls._load_torch_file(ops, p)
        if not isinstance(model, cls):
            raise ModelFileError(f"{str(p)!r} holds a {type(model).__name__}, not a {cls.__name__}")
        dev = ops.resolve_device(device)
        model.encoder_, model.decoder_ = model.encoder_.to(dev), model.decoder_.to(dev)
        model.device_ = str(dev)
        return model

    @classmethod
    def _load_torch_file(cls, ops, p: Path) -> PlummerAutoencoder:
        """A model of the earlier format (``torch.save`` of a record of tensors, version 1),
        checked completely: its state through :meth:`__setstate__`'s checks, then
        :func:`~unlabeled.model_io.check_model`."""
        torch = ops.torch
        try:
            rec = torch.load(p, map_location="cpu", weights_only=True)
        except Exception as exc:  # noqa: BLE001 - torch raises many types for a bad file
            raise ModelFileError(f"{str(p)!r} is not a PlummerAutoencoder file: {exc}") from exc
        if not isinstance(rec, dict) or rec.get("format") != FILE_FORMAT:
            raise ModelFileError(f"{str(p)!r} is not a PlummerAutoencoder file")
        where = f"{str(p)!r} is not a valid PlummerAutoencoder file"
        model = cls.__new__(cls)
        try:
            model.__setstate__(_record_state(torch, rec, cls._get_param_names()))
            model_io.check_model(model)
        except (TypeError, ValueError) as exc:
            raise ModelFileError(f"{where}: {exc}") from exc
        return model


#: the keys of a record of the earlier format and their types (a tensor for "history")
_RECORD_KEYS = {
    "format": str, "version": int, "config": str, "n_features_in": int, "encoder": dict,
    "decoder": dict, "history": None,
}  # fmt: skip


def _record_state(torch, rec: dict, param_names) -> dict:
    """The state of a model from a record of the earlier format; raises ``ValueError`` or
    ``TypeError`` naming the key that is missing, unexpected, or of another type or shape."""
    missing = [k for k in _RECORD_KEYS if k not in rec]
    extra = sorted(str(k)[:40] for k in rec if k not in _RECORD_KEYS)
    if missing or extra:
        raise ValueError(f"the record lacks the keys {missing} or has others {extra[:8]}")
    for key, kind in _RECORD_KEYS.items():
        value = rec[key]
        if kind is not None and (not isinstance(value, kind) or isinstance(value, bool)):
            raise TypeError(f"the record's {key} must be a {kind.__name__}, got {value!r:.60}")
    if rec["version"] != FILE_VERSION:
        raise ValueError(f"its format version is {rec['version']}, this version reads 1")
    try:
        config = json.loads(rec["config"])
    except ValueError:
        raise ValueError("the record's config is not JSON") from None
    if not isinstance(config, dict) or set(config) != set(param_names):
        raise ValueError(
            f"the record's config must hold the parameters {sorted(param_names)}, got "
            f"{sorted(map(str, config))[:30] if isinstance(config, dict) else config!r:.200}"
        )
    for key in ("hidden_layer_sizes", "betas"):
        if isinstance(config.get(key), list):  # JSON's arrays; an int stays one layer
            config[key] = tuple(config[key])
    hist = _stored(torch, "history", rec["history"])
    if hist.ndim != 2 or hist.shape[0] != 3:
        raise ValueError(
            f"the record's history must have shape (3, n_iter) (loss, reconstruction, MMD), "
            f"got {hist.shape}"
        )
    nets = {}
    for net in ("encoder", "decoder"):
        if not all(isinstance(k, str) for k in rec[net]):
            raise TypeError(f"the record's {net} must be a dict of tensors by name")
        nets[net + "_"] = {k: _stored(torch, f"{net}[{k!r}]", v) for k, v in rec[net].items()}
    return {
        **config,
        **nets,
        "n_features_in_": rec["n_features_in"],
        "loss_history_": hist[0].copy(),
        "reconstruction_history_": hist[1].copy(),
        "mmd_history_": hist[2].copy(),
        "n_iter_": hist.shape[1],
    }


def _stored(torch, name, tensor) -> np.ndarray:
    """A float tensor of a record as a NumPy array (a view): one whose numbers are all in the
    file (contiguous, within its storage: a strided view of a few stored numbers cannot
    stand for gigabytes)."""
    if not isinstance(tensor, torch.Tensor) or tensor.dtype not in (torch.float32, torch.float64):
        raise TypeError(f"the record's {name} must be a float32 or float64 tensor")
    need = tensor.numel() * tensor.element_size()
    held = tensor.untyped_storage().nbytes() - tensor.storage_offset() * tensor.element_size()
    if not tensor.is_contiguous() or need > held:
        raise ValueError(f"the record's {name} is not a tensor of stored numbers")
    return tensor.detach().numpy()


def _divergence_message(p, X, step) -> str:
    """Why the training loss became non-finite at ``step``: every parameter that can cause it,
    the likely one first (from the data's scale and the kernel's peak in float32, the
    precision of training)."""
    likely = []
    if p["scale_data"]:
        spread = float(np.sum(X.var(0)))  # the loss stays in the data's units
        if spread > 1e30:
            likely.append(
                f"the data's scale: the features' variances sum to {spread:.3g}, and the "
                "squared reconstruction errors overflow float32 (3.4e38): rescale X (e.g. to "
                "other units)"
            )
    else:
        top = float(np.max(np.abs(X)))
        if top > 1e6:
            likely.append(
                f"the data's scale: features up to {top:.3g} enter the networks unscaled: "
                "use scale_data=True or standardise X"
            )
    with np.errstate(over="ignore", divide="ignore"):
        peak = float(np.float64(p["eps"]) ** (-p["beta"] / 2))
    if p["eps"] < _F32_TINY:
        likely.append(
            f"eps={p['eps']:g}: below float32's smallest normal number, it is 0 in training "
            "and the kernel's gradient is 0/0 where codes meet: raise eps"
        )
    elif peak > 1e30:
        likely.append(
            f"eps={p['eps']:g} with beta={p['beta']:g}: the kernel's peak eps^(-beta/2) = "
            f"{peak:.3g} overflows float32: raise eps or lower beta"
        )
    if p["eps"] >= _F32_TINY and p["lam"] * min(peak, _F32_MAX) > 1e30:
        likely.append(
            f"lam={p['lam']:g}: lam times the kernel's peak ({p['lam'] * peak:.3g}) "
            "overflows float32: lower lam"
        )
    if p["learning_rate"] > 0.1:
        likely.append(f"learning_rate={p['learning_rate']:g}: steps that large diverge")
    if not likely:
        likely.append(f"learning_rate={p['learning_rate']:g} (the usual cause): lower it")
    return (
        f"the PAE loss became non-finite at training step {step + 1}. It can be caused by "
        "learning_rate (too large), the data's scale (huge features or spread), eps (too "
        "small) and beta (too large), whose kernel peak eps^(-beta/2) overflows, or lam (too "
        "large). Likely here: " + "; ".join(likely)
    )


def _saved_device(torch, name):
    """The CUDA device a state was saved from when this machine has it, else the CPU."""
    cpu = torch.device("cpu")
    if not (isinstance(name, str) and name.startswith("cuda") and torch.cuda.is_available()):
        return cpu
    try:
        dev = torch.device(name)
    except (RuntimeError, TypeError, ValueError):
        return cpu
    return dev if dev.type == "cuda" and (dev.index or 0) < torch.cuda.device_count() else cpu


def _weight_shapes(p, d) -> tuple[dict, dict]:
    """The names and shapes of the encoder's and the decoder's weights (as their state dicts
    name them) for the checked parameters ``p`` and ``d`` features, from the parameters alone:
    what :meth:`PlummerAutoencoder._build` makes, without building it."""
    h, hidden = p["n_components"], p["hidden"]
    enc: dict[str, tuple[int, ...]] = {"0.shift": (d,), "0.scale": (d,)}
    dec: dict[str, tuple[int, ...]] = {}
    for net, sizes, first in ((enc, (d, *hidden, h), 1), (dec, (h, *hidden[::-1], d), 0)):
        for i, (a, b) in enumerate(itertools.pairwise(sizes)):  # Linear, ReLU, ..., Linear
            net[f"{first + 2 * i}.weight"], net[f"{first + 2 * i}.bias"] = (b, a), (b,)
    if p["out_activation"] == "linear":  # the inverse scaling after the last Linear
        last = 2 * len(hidden) + 1
        dec[f"{last}.shift"], dec[f"{last}.scale"] = (d,), (d,)
    return enc, dec


def _unpacked(name, packed) -> dict:
    """A network's weights by name, from the packed form of :meth:`__getstate__` (views of
    its one array; nothing is allocated) or a format 1 dict of arrays (returned as it is)."""
    if set(packed) != {"names", "shapes", "weights"}:
        return packed
    names, shapes, flat = packed["names"], packed["shapes"], packed["weights"]
    ok = isinstance(names, list) and isinstance(shapes, list) and len(names) == len(shapes)
    ok = ok and all(isinstance(k, str) for k in names) and len(set(names)) == len(names)
    ok = ok and all(
        isinstance(s, list) and all(type(n) is int and n >= 0 for n in s) for s in shapes
    )
    if not ok or not isinstance(flat, np.ndarray) or flat.ndim != 1:
        raise TypeError(f"{name} must be packed weights: names, shapes and one 1-d array")
    sizes = [math.prod(s) for s in shapes]
    if sum(sizes) != flat.size:
        raise ValueError(
            f"{name} holds {flat.size} weights, but its shapes say {sum(sizes)} (a corrupt file)"
        )
    ends = list(itertools.accumulate(sizes, initial=0))
    return {
        k: flat[a:b].reshape(s)
        for k, s, a, b in zip(names, shapes, ends[:-1], ends[1:], strict=True)
    }


def _check_weights(name, tensors, expected) -> None:
    """The weights of one network as a file holds them: float arrays by name, of the names
    and shapes ``expected`` (checked before anything is built or converted), finite and
    bounded (see :data:`MAX_WEIGHT`); the scaling layers' scales at least 1 / MAX_SCALING."""
    if not (isinstance(tensors, dict) and all(isinstance(k, str) for k in tensors)):
        raise TypeError(f"{name} must be a dict of weight arrays by name")
    if set(tensors) != set(expected):
        raise ValueError(
            f"{name} does not match the model's parameters: it holds the weights "
            f"{list(tensors)[:8]!r:.200}, but hidden_layer_sizes, n_components, out_activation "
            f"and n_features_in_ make {list(expected)[:8]!r:.200}"
        )
    for key, w in tensors.items():
        if not isinstance(w, np.ndarray) or w.dtype.kind != "f":
            raise TypeError(f"{name}[{key!r}] must be a float array, got {type(w).__name__}")
        if w.shape != expected[key]:
            raise ValueError(
                f"{name} does not match the model's parameters: {key!r} has shape {w.shape}, "
                f"but hidden_layer_sizes, n_components and n_features_in_ make {expected[key]}"
            )
        scaling = key.endswith((".shift", ".scale"))
        bound = MAX_SCALING if scaling else MAX_WEIGHT
        with np.errstate(invalid="ignore"):
            ok = w.size == 0 or bool(np.all(np.abs(w, dtype=np.float64) <= bound))
        if not ok:
            raise ValueError(
                f"{name}[{key!r}] holds NaN, infinite or values beyond {bound:g} in magnitude"
            )
        if key.endswith(".scale") and not np.all(w >= 1.0 / MAX_SCALING):
            # (a scale of 1e-320 is positive, but the codes it makes are not finite)
            raise ValueError(
                f"{name}[{key!r}] must be positive, at least {1.0 / MAX_SCALING:g} (a standard "
                "deviation)"
            )
