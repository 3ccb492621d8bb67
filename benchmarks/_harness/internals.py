"""The library's private names that some benchmarks need, imported here and nowhere else in
``benchmarks/`` (a script takes them from this module). Each is here because the benchmark
measures or reuses something the public API does not expose:

- ``KernelProducts`` (``unlabeled._products``): the block products ``K(X[rows], X[cols]) V``
  by the fit's BLAS path (``bench_scale.py``'s irreducible product, ``profile_pusvc.py``'s
  timing of the products);
- ``BalancedLabels``, ``make_backend`` (``unlabeled._label_generation``),
  ``check_ssl_targets``, ``n_negative_unlabeled`` (``unlabeled.ssl._base``): WellSVM's labels
  oracle and inner SVM, reused by ``bench_wellsvm_uci.py``'s ``AuthorsFinish`` (the authors'
  self-training finish, which the library does not offer);
- ``balance_range``, ``balanced_threshold`` (``unlabeled.cluster._wellsvm``): the balanced
  rounding of ``offset="balance"``, applied by ``bench_wellsvm_clustering.py`` to the decision
  values of the fit it already has instead of fitting again;
- :func:`fit_phases` wraps ``unlabeled._engine.solve_pu``, ``KernelProducts`` and the PU
  starts (``unlabeled.pu._starts``) to time the phases of a PUSVC fit (``profile_pusvc.py``);
- :func:`small_default_cap` lowers the floor of the default iteration cap, as the test suite
  does (``fuzz_long.py``);
- :func:`clsst_kernels` selects CLSST's per-point kernels (``unlabeled.ssl._vbmfa``: the
  engine's or the NumPy reference) and the engine's threads, ``VBMFA`` is the model those
  kernels serve, swept on its own, and ``chunk_e_step`` the E step's pass over one chunk (the
  Dask driver's), timed on its own (``bench_clsst_engine.py`` times both paths in one run);
- :func:`load_test_module` loads a module of ``tests/`` by its path (``fuzz_long.py`` runs the cases
  of ``tests/test_fuzz.py`` over many more seeds), without adding ``tests/`` to ``sys.path``.
"""

from __future__ import annotations

import contextlib
import importlib.util
import sys
import time
from pathlib import Path

import unlabeled
from unlabeled._label_generation import BalancedLabels, make_backend
from unlabeled._products import KernelProducts
from unlabeled.cluster._wellsvm import balance_range, balanced_threshold
from unlabeled.ssl import _vbmfa
from unlabeled.ssl._base import check_ssl_targets, n_negative_unlabeled
from unlabeled.ssl._vbmfa import VBMFA, chunk_e_step

__all__ = [
    "VBMFA",
    "BalancedLabels",
    "KernelProducts",
    "balance_range",
    "balanced_threshold",
    "check_ssl_targets",
    "chunk_e_step",
    "clsst_kernels",
    "fit_phases",
    "load_test_module",
    "make_backend",
    "n_negative_unlabeled",
    "small_default_cap",
]

ROOT = Path(__file__).resolve().parents[2]


def _timed(owner, name: str, log: list):
    """Wrap ``owner.name`` so that each call's seconds are appended to ``log``; returns the
    undo."""
    original = getattr(owner, name)

    def wrapper(*args, **kwargs):
        t0 = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            log.append(time.perf_counter() - t0)

    setattr(owner, name, wrapper)
    return lambda: setattr(owner, name, original)


@contextlib.contextmanager
def fit_phases():
    """Within the block, the seconds of every call of the engine's PU solve (``"engine"``), of
    the block products (``"blas"``), of the PU starts (``"start"``: the one-class SVM and the
    pilot) and of the start's kernel products (``"products"``: ``K_UP 1`` and ``K_UU sigma0``,
    or a warm start's), as lists in a dict."""
    import unlabeled._engine as engine
    import unlabeled.pu._starts as starts

    log: dict[str, list] = {"engine": [], "start": [], "blas": [], "products": []}
    undo = [
        _timed(engine, "solve_pu", log["engine"]),
        _timed(KernelProducts, "__call__", log["blas"]),
        _timed(starts, "ocsvm_start", log["start"]),
        _timed(starts, "pilot_start", log["start"]),
        _timed(starts, "start_products", log["products"]),
    ]
    try:
        yield log
    finally:
        for u in undo:
            u()


@contextlib.contextmanager
def clsst_kernels(engine: bool, threads: int | None = None):
    """Within the block CLSST's per-point passes run in the engine on ``threads`` threads (None:
    its own choice) or, with ``engine=False``, as the NumPy reference kernels."""
    before = _vbmfa._USE_ENGINE, _vbmfa._THREADS
    _vbmfa._USE_ENGINE, _vbmfa._THREADS = engine, threads
    try:
        yield
    finally:
        _vbmfa._USE_ENGINE, _vbmfa._THREADS = before


def small_default_cap(floor: int = 10**5) -> None:
    """The default iteration cap keeps its formula, with ``floor`` instead of 10^7 (the test
    suite's setting, so that pathological fuzz cases stop soon)."""
    unlabeled.set_config(min_default_max_iter=floor)


def load_test_module(name: str):
    """The module ``tests/<name>.py`` (with ``tests/conftest.py``, which test modules import
    as ``conftest``), loaded by path."""
    for mod in ("conftest", name):
        if mod not in sys.modules:
            spec = importlib.util.spec_from_file_location(mod, ROOT / "tests" / f"{mod}.py")
            module = importlib.util.module_from_spec(spec)
            sys.modules[mod] = module
            spec.loader.exec_module(module)
    return sys.modules[name]
