"""Model files: a skops archive plus a JSON record of who wrote it, for every estimator of the
library (the ``unlabeled`` command's format; :func:`save` / :func:`load` from Python, and
:func:`save_model` / :func:`load_model` with the record).

A model file is a standard skops file (``skops.io.load(path, trusted=[...])`` returns the fitted
estimator itself) with one more zip member, ``unlabeled.json``, that records the format, the
library version and the estimator class, and how the model was trained. Loading reads that record
first, so a file that is not ours or comes from another version is refused before anything is
deserialised; the estimator is then loaded by skops with the types it may contain listed
explicitly (never pickle). Files are written atomically: a temporary file in the target folder,
renamed over the target once complete, so a failed command leaves nothing behind.

Model files are untrusted input. Before anything is read, the zip directory is inspected and a
file with more than 1 GiB of uncompressed data (a zip bomb; the environment variable
``UNLABELED_MAX_MODEL_BYTES`` raises the cap) is refused; then
a file with more members than its estimator's class can produce (:func:`member_limit`, from
the attributes and parameters the class declares) or with an array whose header declares more
bytes than the member holds (the allocation a file implies is bounded by its own size, before
anything is built); after the allow-listed load, the model itself is
checked against the fitted attributes its class declares (:func:`check_model`: parameters,
no unexpected or missing attribute, types, dtypes, shapes through named dimensions such as
``n_features_in_``, index ranges, sparse structure with a full format check, finite values of
magnitude at most 1e100), so a crafted file is refused with a clear error
rather than crashing ``predict`` or making it return NaN or inf.

Declaring an estimator's fitted attributes: each class keeps a table (name ->
:class:`unlabeled.base.Fitted`, None for a transient attribute that files do not keep) of
what its ``fit`` adds to its bases' tables; the estimator merges them (and may adapt them to
the parameters, as a precomputed kernel keeps no support vectors), and may check the
relations a table cannot state.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import stat
import sys
import tempfile
import threading
import zipfile
import zlib
from pathlib import Path
from typing import TYPE_CHECKING

from . import _version
from .exceptions import ModelFileError
from .registry import all_estimators

if TYPE_CHECKING:
    from sklearn.base import BaseEstimator

__all__ = [
    "ModelFileError",
    "TRUSTED_TYPES",
    "trusted_types",
    "check_model",
    "load",
    "load_model",
    "member_limit",
    "save",
    "save_model",
]

META_MEMBER = "unlabeled.json"
FORMAT = "unlabeled-model"
#: 2: the NumPy scalars of a model (a fit's history, the items of a list) are kept as plain
#: numbers in the schema, so that a file has a few members whatever the model's size (1 kept
#: each as a zip member of its own: a CLSST history of 4,800 sweeps, 4,800 members)
FORMAT_VERSION = 2
#: the formats this version reads
READABLE_FORMATS = (1, 2)

# every type a model file may hold beyond the ones skops trusts by default (numpy arrays,
# builtins; none of scikit-learn's estimators here, see _DeferredNames: SVM+'s privileged SVC
# is named by _nested_types): the registered
# estimators (unlabeled.registry: the library's, by the module that defines them, and any
# class registered at run time while it is), the sparse matrix of support vectors fitted on
# CSR data. Anything else in a file is refused, not loaded. Paths, not the classes: model_io
# does not import the methods (see tests/test_layers.py).
_CSR_MATRIX = "scipy.sparse._csr.csr_matrix"
TRUSTED_TYPES: tuple[str, ...]  # read through __getattr__ below


def trusted_types() -> tuple[str, ...]:
    """The types a model file may hold beyond skops's defaults: every registered estimator
    (by the module that defines it) and SciPy's CSR matrix; :data:`TRUSTED_TYPES` is this
    tuple when read.

    Returns
    -------
    paths : tuple of str
        ``module.Class`` for each type.

    Examples
    --------
    >>> from unlabeled.model_io import trusted_types
    >>> "unlabeled.pu._pusvc.PUSVC" in trusted_types()
    True
    """
    return (*(e.path for e in all_estimators()), _CSR_MATRIX)


def __getattr__(name: str) -> object:
    if name == "TRUSTED_TYPES":  # computed when read: a class registered later joins it
        return trusted_types()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: the earlier versions whose files this one reads: 0.1.0 wrote PUSVC files of the same format
#: (its estimator's newer parameters are filled in from ADDED_PARAMS); any other version is
#: refused, since its classes may hold attributes this version does not know
READABLE_VERSIONS = ("0.1.0",)

#: constructor parameters added since FORMAT_VERSION 1 files were first written, with the
#: value that keeps an earlier model's behaviour: set on a loaded estimator that lacks them
ADDED_PARAMS = {
    "probability": False,
    "threshold": "zero",
    "standardize": False,
    "verbose": False,
    "n_clusters": None,
}
#: fitted attributes added since then, likewise: set on a model from an earlier version
#: (READABLE_VERSIONS) that lacks them, where its class declares them
ADDED_ATTRIBUTES = {"threshold_": 0.0, "prior_interval_": None}

#: most uncompressed bytes a model file may hold (all members together): 1 GiB, far above a
#: model of 100,000 dense support vectors of 1,000 features (800 MB). The environment variable
#: UNLABELED_MAX_MODEL_BYTES raises (or lowers) it.
MAX_MODEL_BYTES = 2**30
#: zip members allowed for an attribute or parameter that holds an object (SVM+'s privileged
#: SVC, an autoencoder's packed weights, a class-prior estimator inside Bracket, a RandomState):
#: skops writes one per array of the object (a fitted SVC: 15)
NESTED_MEMBERS = 64
#: the fewest bytes one zip member takes in a file (its local header and directory entry)
_ZIP_ENTRY_BYTES = 30 + 46


def class_path(obj) -> str:
    cls = type(obj)
    return f"{cls.__module__}.{cls.__qualname__}"


def _nested_types() -> set[str]:
    """scikit-learn's types that a model file may hold inside one of the library's estimators
    (SVM+'s privileged SVC): skops trusts them by default; named here for its light import."""
    from sklearn.svm import SVC

    return {f"{SVC.__module__}.{SVC.__qualname__}"}


class _DeferredNames(list):
    """skops's default-trusted scikit-learn estimators (``SKLEARN_ESTIMATOR_TYPE_NAMES``),
    made on first use rather than when skops is imported, and empty inside this module's own
    loads (:func:`_own_loads`).

    skops builds the list at import from ``sklearn.utils.all_estimators``, which imports every
    module of scikit-learn (and torch and Dask through its array-API adapters): 2.3 s of the
    4.2 s CPU that ``unlabeled.load`` took in a fresh interpreter. The model files need no such
    list: they trust :func:`trusted_types` and :func:`_nested_types` by name, and a loaded
    file is refused if it holds anything else (the default list would have let any of
    scikit-learn's estimators in). Other code of the process that uses skops gets the full
    list, made when it first reads it."""

    def __init__(self, names=None):
        super().__init__(() if names is None else names)
        self._made = names is not None

    def _view(self) -> list:
        if getattr(_OWN_LOADS, "active", False):
            return []
        if not self._made:
            from sklearn.utils import all_estimators as sklearn_estimators

            names = [f"{c.__module__}.{c.__qualname__}" for _, c in sklearn_estimators()]
            super().extend(n for n in names if n.startswith("sklearn."))
            self._made = True
        return list.copy(self)

    def __add__(self, other):
        return self._view() + list(other)

    def __radd__(self, other):
        return list(other) + self._view()

    def __iter__(self):
        return iter(self._view())

    def __len__(self) -> int:
        return len(self._view())

    def __contains__(self, item) -> bool:
        return item in self._view()

    def __getitem__(self, index):
        return self._view()[index]

    def __eq__(self, other) -> bool:
        return self._view() == other

    __hash__ = None

    def __repr__(self) -> str:
        return repr(self._view())

    def copy(self) -> list:
        return self._view()

    def index(self, *args):
        return self._view().index(*args)

    def count(self, item) -> int:
        return self._view().count(item)


#: set (per thread) while this module loads a file: skops's default list is then empty
_OWN_LOADS = threading.local()


@contextlib.contextmanager
def _own_loads():
    """Inside: skops trusts none of scikit-learn's estimators by default in this thread
    (:class:`_DeferredNames`), so a file is loaded with exactly the types named to it."""
    before = getattr(_OWN_LOADS, "active", False)
    _OWN_LOADS.active = True
    try:
        yield
    finally:
        _OWN_LOADS.active = before


def _skops():
    """``skops.io``, imported without the list of scikit-learn's estimators that skops builds
    at import (:class:`_DeferredNames` makes it when other code first reads it), so that
    loading a model costs about what the estimator's own import does."""
    try:
        if "skops.io" not in sys.modules:
            import sklearn.utils

            listed = sklearn.utils.all_estimators
            sklearn.utils.all_estimators = lambda *args, **kwargs: []
            try:
                import skops.io
            finally:
                sklearn.utils.all_estimators = listed
            made = False
        else:
            made = True
        import skops.io
    except ImportError as exc:  # a core dependency; only a broken install lacks it
        raise ModelFileError(
            "model files need the 'skops' package, which is not installed: pip install skops"
        ) from exc
    _defer_names(made)
    return skops.io


def _defer_names(made: bool) -> None:
    """Put one :class:`_DeferredNames` where skops reads its default list (its modules that
    hold it: ``_trusted_types``, and ``_general``'s ObjectNode); ``made``: the list there is
    the full one (skops imported before this module asked)."""
    modules = [sys.modules.get(f"skops.io.{m}") for m in ("_trusted_types", "_general")]
    current = getattr(modules[0], "SKLEARN_ESTIMATOR_TYPE_NAMES", None)
    if current is None or isinstance(current, _DeferredNames):
        return
    deferred = _DeferredNames(list(current) if made else None)
    for module in modules:
        if module is not None and hasattr(module, "SKLEARN_ESTIMATOR_TYPE_NAMES"):
            module.SKLEARN_ESTIMATOR_TYPE_NAMES = deferred  # type: ignore[attr-defined]


class OutputPathError(ModelFileError):
    """An output path that must not be written: a directory, a symbolic link, a device or
    other non-regular file, or one of the command's own inputs (a usage error)."""


def check_writable(path, inputs=()) -> Path:
    """Refuse early (before any long work) an output path that cannot or must not be written.

    Refused with :class:`OutputPathError`: a directory (or a path ending in a separator), a
    symbolic link (replacing it would not write its target), anything that exists and is not
    a regular file (a device such as ``/dev/null``, a FIFO, a socket), and a file that is one
    of ``inputs`` (``os.path.samefile``: hard links included). Refused with
    :class:`ModelFileError`: a folder that does not exist or is not writable."""
    text = os.fspath(path)
    p = Path(text)
    if text.endswith(("/", os.sep)) or p.is_dir():
        raise OutputPathError(f"cannot write {text!r}: it names a directory; give a file name")
    if p.is_symlink():
        raise OutputPathError(
            f"refusing to replace {text!r}: it is a symbolic link (to "
            f"{os.path.realpath(text)!r}); give the file itself or another name"
        )
    if p.exists() and not p.is_file():
        raise OutputPathError(
            f"refusing to replace {text!r}: it is not a regular file (a device, FIFO or socket)"
        )
    for other in inputs:
        if p.exists() and Path(other).exists() and os.path.samefile(p, other):
            raise OutputPathError(
                f"refusing to write {text!r}: it is also an input of this command ({other!r}); "
                "give another output file"
            )
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        raise ModelFileError(f"cannot write {text!r}: the folder {str(parent)!r} does not exist")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise ModelFileError(f"cannot write {text!r}: the folder {str(parent)!r} is not writable")
    return p


def write_atomic(path, data: bytes | str) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder and a rename.

    A file replaced keeps its permission bits (a private model file stays private); a new one
    gets the usual ``0o666 & ~umask``. Errors name ``path``, never the temporary file."""
    p = check_writable(path)
    if p.exists():
        mode = stat.S_IMODE(p.stat().st_mode)
    else:
        umask = os.umask(0)  # mkstemp makes the file private; give it the usual permissions
        os.umask(umask)
        mode = 0o666 & ~umask
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=p.parent)
    except OSError as exc:
        raise ModelFileError(f"cannot write {str(path)!r}: {exc.strerror}") from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data.encode() if isinstance(data, str) else data)
        os.chmod(tmp, mode)
        os.replace(tmp, p)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(exc, OSError):
            raise ModelFileError(f"cannot write {str(path)!r}: {exc.strerror or exc}") from None
        raise


def model_bytes(estimator, meta: dict) -> bytes:
    """The model file's bytes: the estimator in skops format plus ``unlabeled.json``."""

    record = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "unlabeled_version": _version.__version__,
        "estimator": class_path(estimator),
        **meta,
    }
    nested = n_nested(estimator)
    if nested:  # the file's member limit counts them (read before the estimator is)
        record[NESTED_KEY] = nested
    buf = io.BytesIO(_skops().dumps(_plain_numbers(estimator)))
    with zipfile.ZipFile(buf, "a", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(META_MEMBER, json.dumps(record, indent=2, default=_json_default))
    return buf.getvalue()


def _plain(value):
    """``value`` with its NumPy scalars as Python numbers and strings, in lists, tuples and
    dicts too (``value`` itself when it has none): skops keeps those in its schema, but each
    NumPy scalar as a zip member of its own."""
    import numpy as np

    if isinstance(value, np.generic) and value.dtype.kind in "biufU":
        return value.item()
    if hasattr(value, "_fitted_declarations"):  # a nested model (one class of several)
        return _plain_numbers(value)
    if type(value) in (list, tuple):
        items = [_plain(v) for v in value]
        same = all(a is b for a, b in zip(items, value, strict=True))
        return value if same else type(value)(items)
    if type(value) is dict:
        plain = {k: _plain(v) for k, v in value.items()}
        return value if all(plain[k] is v for k, v in value.items()) else plain
    return value


def _plain_numbers(estimator):
    """The estimator as format 2 keeps it: its parameters and fitted attributes with
    :func:`_plain` values (a shallow copy when one changes; never the estimator itself)."""
    state = vars(estimator)
    plain = {k: _plain(v) for k, v in state.items()}
    if all(plain[k] is v for k, v in state.items()):
        return estimator
    copy = object.__new__(type(estimator))  # not copy.copy: no __getstate__ round trip
    vars(copy).update(plain)
    return copy


def save_model(
    estimator: BaseEstimator, path: str | os.PathLike[str], meta: dict | None = None
) -> None:
    """Save a fitted estimator with its record, atomically (:func:`save`, plus the record).

    Parameters
    ----------
    estimator : a fitted estimator of the library (see :data:`TRUSTED_TYPES`)
    path : str or Path
        The file to write; written through a temporary file in the same folder and renamed
        once complete, so a failure leaves nothing behind.
    meta : dict, optional
        More entries for the record (``unlabeled.json``), e.g. how the model was trained.

    Raises
    ------
    ModelFileError
        For an object that is not an estimator of the library, an estimator that is not
        fitted, or one that fails the checks a loaded model must pass.

    Examples
    --------
    >>> import numpy as np, tempfile, os
    >>> from unlabeled import PUSVC
    >>> from unlabeled.model_io import load_model, save_model
    >>> rng = np.random.default_rng(0)
    >>> X = np.r_[rng.normal(1, 1, (40, 2)), rng.normal(-1, 1, (40, 2))]
    >>> s = np.r_[np.ones(15, int), np.zeros(65, int)]
    >>> clf = PUSVC(0.4).fit(X, s)
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = os.path.join(folder, "pu.skops")
    ...     save_model(clf, path, {"data": {"rows": 80}})
    ...     loaded, record = load_model(path)
    >>> bool(np.array_equal(loaded.predict(X), clf.predict(X))), record["data"]["rows"]
    (True, 80)
    """
    write_atomic(path, model_bytes(_savable(estimator), meta or {}))


def save(estimator: BaseEstimator, path: str | os.PathLike[str]) -> None:
    """Save a fitted estimator of the library to a model file, safely and atomically.

    The file is a skops archive (no pickle) with a record of the library version and the
    estimator's class; :func:`load` reads it back. Every estimator of the library can be
    saved: the PU, semi-supervised, multi-instance and clustering methods, SVM+, CLSST, the
    class-prior estimators and the Plummer autoencoder (its network weights as arrays).

    Parameters
    ----------
    estimator : a fitted estimator of the library
    path : str or Path
        The file to write, through a temporary file in the same folder renamed once
        complete: a failure leaves nothing behind and never a half-written file.

    Raises
    ------
    ModelFileError
        For an object that is not an estimator of the library (save others with
        ``skops.io.dump``), an estimator that is not fitted, or a path that cannot be written.

    See Also
    --------
    load : Read the estimator back.

    Examples
    --------
    >>> import numpy as np, tempfile, os
    >>> import unlabeled
    >>> from unlabeled import WellSVM
    >>> rng = np.random.default_rng(0)
    >>> X = np.r_[rng.normal(1, 1, (30, 2)), rng.normal(-1, 1, (30, 2))]
    >>> y = np.full(60, -1); y[:3] = 1; y[30:33] = 0
    >>> clf = WellSVM().fit(X, y)
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = os.path.join(folder, "wellsvm.skops")
    ...     unlabeled.save(clf, path)
    ...     back = unlabeled.load(path)
    >>> bool(np.array_equal(back.decision_function(X), clf.decision_function(X)))
    True
    """
    save_model(estimator, path)


def load(path: str | os.PathLike[str]) -> BaseEstimator:
    """Load an estimator from a model file written by :func:`save` (or ``unlabeled fit``).

    Model files are untrusted input: the record is read first (a file that is not ours or
    from another version is refused before anything is deserialised), the archive's size and
    members are capped (1 GiB uncompressed, ``UNLABELED_MAX_MODEL_BYTES`` to change it; at
    most the members that the estimator's class can produce, :func:`member_limit`; no array
    declaring more bytes than it holds), skops loads only the types of :data:`TRUSTED_TYPES`
    (never pickle), and the model is then checked completely
    against its class's declared fitted attributes (:func:`check_model`: types, shapes,
    index ranges, finite values of magnitude at most 1e100).

    Parameters
    ----------
    path : str or Path

    Returns
    -------
    estimator
        The fitted estimator, predicting exactly as the one saved.

    Raises
    ------
    ModelFileError
        Naming the file and what is wrong with it.

    See Also
    --------
    save : Write a model file.
    load_model : The estimator with the file's record.

    Examples
    --------
    >>> import numpy as np, tempfile, os
    >>> import unlabeled
    >>> from unlabeled import SVMPlus
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(40, 2)); y = (X[:, 0] > 0).astype(int)
    >>> clf = SVMPlus().fit(X, y, X + rng.normal(0, 0.1, X.shape))
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = os.path.join(folder, "svmplus.skops")
    ...     unlabeled.save(clf, path)
    ...     back = unlabeled.load(path)
    >>> bool(np.array_equal(back.predict(X), clf.predict(X)))
    True
    """
    return load_model(path)[0]


def _savable(estimator):
    """The estimator as its file keeps it (transient attributes dropped), after the checks
    that a loaded model must pass: a model file that :func:`load` would refuse is never
    written."""
    import copy

    from sklearn.exceptions import NotFittedError
    from sklearn.utils.validation import check_is_fitted

    name = type(estimator).__name__
    trusted = trusted_types()
    if class_path(estimator) not in trusted and class_path(estimator).startswith("unlabeled."):
        raise ModelFileError(  # mil.BagTransformer: a scikit-learn object whose fit is not ours
            f"cannot save a {name}: model files hold the library's models, whose fitted "
            "attributes they check; save it with skops.io.dump (or refit it)"
        )
    if class_path(estimator) not in trusted:
        raise ModelFileError(
            f"cannot save a {class_path(estimator)}: model files hold the estimators of "
            "unlabeled only (for other objects use skops.io.dump)"
        )
    try:
        check_is_fitted(estimator)
    except NotFittedError:
        raise ModelFileError(
            f"cannot save this {name}: it is not fitted; call fit(X, ...) first, then save"
        ) from None
    transient = [k for k, v in estimator._fitted_declarations().items() if v is None]
    if any(k in vars(estimator) for k in transient):
        estimator = copy.copy(estimator)
        for k in transient:
            vars(estimator).pop(k, None)
    try:
        check_model(estimator)
    except (TypeError, ValueError) as exc:
        raise ModelFileError(f"cannot save this {name}: {exc}") from exc
    return estimator


def _max_model_bytes() -> int:
    text = os.environ.get("UNLABELED_MAX_MODEL_BYTES", "")
    try:
        return int(text) if text else MAX_MODEL_BYTES
    except ValueError:
        raise ModelFileError(
            f"UNLABELED_MAX_MODEL_BYTES must be a number of bytes, got {text!r}"
        ) from None


def check_archive(p: Path, not_ours: str) -> int:
    """Refuse, from the zip directory alone (nothing is decompressed), a model file that is
    not a zip archive or holds too many uncompressed bytes; returns its number of members
    (checked against its class's :func:`member_limit` once the record names the class)."""
    limit = _max_model_bytes()
    if p.stat().st_size > limit:
        raise ModelFileError(
            f"{str(p)!r} is larger than the limit of {limit} bytes for model files "
            "(set UNLABELED_MAX_MODEL_BYTES to raise it)"
        )
    if not zipfile.is_zipfile(p):
        raise ModelFileError(f"{not_ours} (not a skops archive); make one with 'unlabeled fit'")
    try:
        with zipfile.ZipFile(p) as zf:
            infos = zf.infolist()
    except _ZIP_ERRORS as exc:
        raise ModelFileError(f"{str(p)!r} is a corrupt model file: {exc}") from exc
    _check_total(p, infos, limit)
    return len(infos)


def _check_total(p, infos, limit) -> None:
    total = sum(info.file_size for info in infos)  # zipfile never inflates a member past it
    if total > limit:
        raise ModelFileError(
            f"{str(p)!r} is refused: it would decompress to {total} bytes, more than the limit "
            f"of {limit} bytes for model files (set UNLABELED_MAX_MODEL_BYTES to raise it)"
        )


def _declared_table(cls) -> dict:
    """The fitted attributes that ``cls`` declares, its bases' included (as
    ``_fitted_declarations`` merges them, without an instance)."""
    table: dict = {}
    for klass in reversed(cls.__mro__):
        table.update(vars(klass).get("_fitted_attributes", {}))
    return table


#: the record's entry that counts the binary models a model of more classes holds
NESTED_KEY = "nested_estimators"
#: the most nested models a file may declare (a model of as many classes)
MAX_NESTED = 1000


def _nested_names(cls) -> list[str]:
    """The attributes of kind ``"estimators"`` that ``cls`` declares."""
    return [k for k, v in _declared_table(cls).items() if v is not None and v.kind == "estimators"]


def n_nested(estimator) -> int:
    """How many models ``estimator`` holds in its attributes of kind ``"estimators"``
    (a semi-supervised SVM of more than two classes: one per class)."""
    held = vars(estimator)
    return sum(len(held.get(k) or ()) for k in _nested_names(type(estimator)))


def member_limit(
    cls, format_version: int = FORMAT_VERSION, file_size: int = 0, nested: int = 0
) -> int:
    """The most zip members that a model file of the estimator class ``cls`` can hold.

    Derived from what the class declares, not a fixed count: skops writes one member per
    array, so a file holds its schema and record, one member per parameter and declared
    fitted attribute, and 64 for each that holds an object (an attribute
    of kind ``"object"``; a parameter that may be an instance such as an estimator or a
    RandomState). Files of format 1 kept each NumPy scalar of a list attribute (a fit's
    history) as a member of its own: for a class that declares one, as many more members as
    the file's ``file_size`` bytes can hold.

    Parameters
    ----------
    cls : type
        One of the library's estimator classes.
    format_version : int, default=FORMAT_VERSION
        The format of the file (1 or 2).
    file_size : int, default=0
        The file's size in bytes (counts only for format 1).
    nested : int, default=0
        The models of the class that the file's record says it holds (``estimators_`` of a
        semi-supervised SVM of more than two classes): each may have as many members.

    Returns
    -------
    int

    Examples
    --------
    >>> from unlabeled import PUSVC
    >>> from unlabeled.model_io import member_limit
    >>> 10 < member_limit(PUSVC) < 200
    True
    """
    table = {k: v for k, v in _declared_table(cls).items() if v is not None}
    n = 2 + sum(NESTED_MEMBERS if spec.kind == "object" else 1 for spec in table.values())
    constraints = getattr(cls, "_parameter_constraints", {})
    for name in cls._get_param_names():
        objects = [
            t
            for c in constraints.get(name, ())
            for t in getattr(c, "types", ())
            if t.__module__ not in ("builtins", "collections.abc")
        ]
        n += NESTED_MEMBERS if objects else 1
    if format_version == 1 and any(s.kind in ("ints", "floats") for s in table.values()):
        n += file_size // _ZIP_ENTRY_BYTES
    if nested and _nested_names(cls):
        n += nested * member_limit(cls, format_version, file_size)
    return n


def _estimator_class(meta: dict, p: str):
    """The estimator class that a record names, when it is one of :data:`TRUSTED_TYPES`
    (imported by its path, as skops would)."""
    import importlib

    path = meta.get("estimator")
    if not isinstance(path, str) or path not in trusted_types():
        raise ModelFileError(
            f"{p!r} is refused: its record names {str(path)[:80]!r}, not an estimator of unlabeled"
        )
    module, _, name = path.rpartition(".")
    cls = getattr(importlib.import_module(module), name)
    if not hasattr(cls, "_fitted_attributes"):
        raise ModelFileError(f"{p!r} is refused: its record names {path}, not an estimator")
    return cls


def _check_arrays(zf: zipfile.ZipFile, p: str, inner: bool = False) -> None:
    """Refuse an array member whose header declares another number of bytes than the member
    holds: NumPy allocates the declared size before it reads, so a member of 100 bytes could
    otherwise ask for terabytes. A sparse matrix (a ``.npz`` archive in the archive) is
    checked likewise, its own uncompressed size included."""
    import math

    from numpy.lib import format as npy

    for info in zf.infolist():
        name = info.filename
        if name.endswith(".npz") and not inner:
            with zipfile.ZipFile(io.BytesIO(zf.read(info))) as sub:
                infos = sub.infolist()
                _check_total(p, infos, _max_model_bytes())
                if len(infos) > 8:  # scipy.sparse.save_npz writes 5
                    raise ModelFileError(f"{p!r} is refused: its member {name} is not a matrix")
                _check_arrays(sub, p, inner=True)
            continue
        if not name.endswith(".npy"):
            continue
        with zf.open(info) as fh:
            try:
                version = npy.read_magic(fh)
                read = {(1, 0): npy.read_array_header_1_0, (2, 0): npy.read_array_header_2_0}
                if version not in read:
                    raise ValueError(f"array format {version} is not one skops writes")
                shape, _, dtype = read[version](fh)
                declared = math.prod(shape) * dtype.itemsize
                held = info.file_size - fh.tell()
            except Exception as exc:  # noqa: BLE001 - numpy's header parser raises many types
                raise ModelFileError(f"{p!r} is a corrupt model file: {name}: {exc}") from None
        if dtype.hasobject or declared != held:
            raise ModelFileError(
                f"{p!r} is refused: its member {name} declares an array of shape {shape} and "
                f"dtype {dtype} ({declared} bytes) but holds {held} bytes"
            )


#: what zipfile raises on a damaged archive: a flipped byte may give any of them (an
#: unsupported "zip file version", an "encrypted" member, a bad deflate stream)
_ZIP_ERRORS = (
    zipfile.BadZipFile, ValueError, OSError, EOFError, zlib.error, NotImplementedError,
    RuntimeError,
)  # fmt: skip


def read_meta(path) -> tuple[dict, bytes]:
    """The record of a model file and the file's bytes; raises ModelFileError if it is not a
    model file of this library and version, or exceeds the limits on size and members."""

    p = Path(path)
    if not p.is_file():
        raise ModelFileError(f"model file not found: {str(p)!r}")
    not_ours = f"{str(p)!r} is not an unlabeled model file"
    n_members = check_archive(p, not_ours)
    raw = p.read_bytes()
    try:
        with zipfile.ZipFile(io.BytesIO(raw)) as zf:
            if META_MEMBER not in zf.namelist():
                raise ModelFileError(f"{not_ours} (a zip archive without {META_MEMBER})")
            meta = json.loads(zf.read(META_MEMBER).decode("utf-8"))
            _check_record(meta, p, not_ours, n_members, len(raw))
            _check_arrays(zf, str(p))
    except ModelFileError:
        raise
    except (*_ZIP_ERRORS, UnicodeDecodeError) as exc:
        raise ModelFileError(f"{str(p)!r} is a corrupt model file: {exc}") from exc
    return meta, raw


def _check_record(meta, p: Path, not_ours: str, n_members: int, size: int) -> None:
    """The record of a model file: ours, of a version and format this one reads, naming one of
    the library's estimators, whose files hold at most :func:`member_limit` members."""
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise ModelFileError(f"{not_ours} (its {META_MEMBER} is not a model record)")
    version = meta.get("unlabeled_version")
    ours = _version.__version__
    if version != ours and version not in READABLE_VERSIONS:
        raise ModelFileError(
            f"{str(p)!r} was saved by unlabeled {version}, this is unlabeled {ours}: "
            f"refit the model with this version (it reads the files of {ours} and "
            f"{', '.join(READABLE_VERSIONS)})"
        )
    if not isinstance(meta.get("data", {}), dict):
        raise ModelFileError(f"{str(p)!r} is a corrupt model file: its record's data is not a dict")
    form = meta.get("format_version")
    if type(form) is not int or form not in READABLE_FORMATS:
        raise ModelFileError(
            f"{str(p)!r} has format version {str(form)[:20]}; this version of unlabeled reads "
            f"the formats {list(READABLE_FORMATS)}: refit the model with this version"
        )
    cls = _estimator_class(meta, str(p))
    nested = meta.get(NESTED_KEY, 0)
    if type(nested) is not int or not 0 <= nested <= MAX_NESTED:
        raise ModelFileError(
            f"{str(p)!r} is a corrupt model file: its record's {NESTED_KEY} is "
            f"{str(nested)[:20]}, not a count from 0 to {MAX_NESTED}"
        )
    limit = member_limit(cls, form, size, nested)
    if n_members > limit:
        raise ModelFileError(
            f"{str(p)!r} is refused: it holds {n_members} zip members, more than a model file "
            f"of a {cls.__name__} has (at most {limit})"
        )


def load_model(
    path: str | os.PathLike[str],
) -> tuple[BaseEstimator, dict]:
    """``(estimator, record)`` from a model file written by :func:`save_model`.

    The record is read first (a file that is not ours or from another version is refused
    before anything is deserialised), the estimator is loaded by skops with only the types of
    :data:`TRUSTED_TYPES` allowed (never pickle), then checked by :func:`check_model`.
    None of scikit-learn's estimators is trusted by default (skops would trust all of them,
    and build their list at import: 2 s); its import costs about what the estimator's does.

    Raises
    ------
    ModelFileError
        Naming the file and what is wrong with it.

    Examples
    --------
    >>> import os, tempfile
    >>> import numpy as np
    >>> from unlabeled import PUSVC
    >>> from unlabeled.model_io import load_model, save_model
    >>> rng = np.random.default_rng(0)
    >>> X = np.r_[rng.normal(1, 1, (30, 2)), rng.normal(-1, 1, (30, 2))]
    >>> s = np.r_[np.ones(10, int), np.zeros(50, int)]
    >>> clf = PUSVC(0.5).fit(X, s)
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = os.path.join(folder, "model.skops")
    ...     save_model(clf, path, {"note": "demo"})
    ...     model, record = load_model(path)
    >>> type(model).__name__, record["note"]
    ('PUSVC', 'demo')
    >>> bool(np.array_equal(model.predict(X), clf.predict(X)))
    True
    """
    meta, raw = read_meta(path)
    sio = _skops()
    p = str(path)
    try:
        with _own_loads():
            untrusted = set(sio.get_untrusted_types(data=raw))
    except Exception as exc:
        raise ModelFileError(f"{p!r} is a corrupt model file: {exc}") from exc
    refused = sorted(untrusted - set(trusted_types()) - _nested_types())
    if refused:
        raise ModelFileError(
            f"{p!r} holds types that are not trusted and were not loaded: {refused}"
        )
    try:
        with _own_loads():
            estimator = sio.loads(raw, trusted=sorted(untrusted))
    except ImportError as exc:  # an optional dependency (torch for an autoencoder)
        raise ModelFileError(f"{p!r} holds a {meta.get('estimator')}: {exc}") from exc
    except Exception as exc:  # a crafted state, refused while the estimator is rebuilt
        raise ModelFileError(f"{p!r} is a corrupt model file: {exc}") from exc
    if class_path(estimator) != meta.get("estimator"):
        raise ModelFileError(
            f"{p!r} is a corrupt model file: it holds a {class_path(estimator)} but its record "
            f"says {meta.get('estimator')}"
        )
    if n_nested(estimator) != meta.get(NESTED_KEY, 0):
        raise ModelFileError(
            f"{p!r} is a corrupt model file: it holds {n_nested(estimator)} nested models but "
            f"its record says {meta.get(NESTED_KEY, 0)}"
        )
    for name, default in ADDED_PARAMS.items():  # a file written before they existed
        if name not in vars(estimator) and name in type(estimator)._get_param_names():
            setattr(estimator, name, default)
    if meta.get("unlabeled_version") in READABLE_VERSIONS:
        declared = estimator._fitted_declarations()
        for name, default in ADDED_ATTRIBUTES.items():
            if name not in vars(estimator) and declared.get(name) is not None:
                setattr(estimator, name, default)
    try:
        check_model(estimator)
    except (TypeError, ValueError) as exc:
        raise ModelFileError(f"{p!r} is not a valid model and was refused: {exc}") from exc
    return estimator, meta


# ---------------------------------------------------------------------- the model's checks
#: the largest magnitude of a float in a loaded model: far above what a fit makes (coefficients
#: reach about 1e17 at lam=1e-30), and low enough that the decision values stay finite: a sum
#: of n_SV terms alpha_i k(x_i, x), each at most 1e100 * 1e100 (the kernel's bound at fit time,
#: checked again on the support vectors), is below double precision's 1.8e308
MAX_FITTED_VALUE = 1e100


def check_model(est: BaseEstimator) -> None:
    """Check a loaded model completely against its class's declared fitted attributes; raises
    ``ValueError``/``TypeError`` naming the first attribute that is not what ``fit`` makes.

    Each estimator class declares what its ``fit`` produces in a table (name ->
    :class:`unlabeled.base.Fitted`: kind, dtype, shape through named dimensions such as
    ``n_features_in_`` or ``n_SV``, value bounds, index ranges). Checked here: the parameters
    (against the estimator's declared constraints), that every attribute is a
    parameter or a declared fitted attribute and every declared one that is not optional is
    there, each attribute's type, dtype and shape, that indices are in range, that a CSR
    matrix passes a full format check, and that every float is finite and at most
    1e100 in magnitude; then the estimator's own check, where it has one, for the relations a
    table cannot state (the kernel's scale on the support vectors).

    Examples
    --------
    >>> import numpy as np
    >>> from unlabeled import PUSVC
    >>> from unlabeled.model_io import check_model
    >>> X = np.random.default_rng(0).normal(size=(30, 2)); s = np.r_[np.ones(8), np.zeros(22)]
    >>> clf = PUSVC(0.3).fit(X, s)
    >>> check_model(clf)  # a fitted model passes
    >>> clf.prior_ = 1.5
    >>> check_model(clf)
    Traceback (most recent call last):
    ...
    ValueError: prior_ must be < 1.0, got values in [1.5, 1.5]
    """
    declarations = getattr(est, "_fitted_declarations", None)
    if declarations is None:
        raise TypeError(f"a {class_path(est)} is not an estimator of unlabeled")
    missing = [k for k in est._get_param_names() if k not in vars(est)]
    if missing:  # (get_params would raise an AttributeError)
        raise ValueError(f"the parameters {missing} are missing")
    params = est.get_params(deep=False)
    est._validate_params()
    table = declarations()
    attrs = vars(est)
    unknown = sorted(set(attrs) - set(params) - {k for k, v in table.items() if v is not None})
    if unknown:
        raise ValueError(f"unexpected attributes {unknown}")
    # the named dimensions: the integer parameters (n_bootstrap), then those bound by use
    dims: dict = {k: v for k, v in params.items() if type(v) is int}
    for name, spec in table.items():
        if spec is None:
            continue
        if name not in attrs:
            if spec.optional:
                continue
            raise ValueError(f"the fitted attribute {name} is missing")
        for other in spec.needs:
            if not (other in attrs if other not in params else params[other]):
                raise ValueError(f"{name} comes with {other}, which this model has not")
        _check_value(name, attrs[name], spec, dims)
    if params.get("probability") is True and "probA_" in table and "probA_" not in attrs:
        raise ValueError(
            "probability=True, but the model holds no probA_ and probB_ (the sigmoid that fit "
            "makes with it)"
        )
    check_more = getattr(est, "_check_fitted", None)  # the relations a table cannot state
    if check_more is not None:
        check_more()


def _dim(name, size, dims, what):
    """Bind the dimension ``name`` (``"n+1"``: one more than ``n``) to ``size``, or check it."""
    base, plus = (name[:-2], 1) if name.endswith("+1") else (name, 0)
    if base not in dims:
        dims[base], dims[base + "@"] = size - plus, what
    if dims[base] + plus != size:
        origin = f" (as {dims[base + '@']} says)" if base + "@" in dims else ""
        raise ValueError(f"{what} is {size}, but {name} is {dims[base] + plus}{origin}")


def _bound(value, dims):
    if isinstance(value, str):
        if value not in dims:  # a declaration's error: the name is bound by a later entry
            raise ValueError(f"the dimension {value} is not known yet")
        return dims[value]
    return value


def _check_range(name, values, spec, dims, numeric=True):
    """The values (an array or a scalar) within the declared bounds; floats finite and within
    :data:`MAX_FITTED_VALUE`, or a numeric ``high`` declared above it (the kernel's fitted
    width: ``gamma="scale"`` on features in units of 1e-150 is about 1e299, and the kernel's
    own checks bound what it makes), or a ``low`` declared below its negative (the sigmoid's
    slope ``probA_``)."""
    import numpy as np

    a = np.asarray(values)
    if a.size == 0 or not numeric:
        return
    if a.dtype.kind == "f":
        if not np.isfinite(a).all():
            raise ValueError(f"{name} holds NaN or infinite values")
        cap = MAX_FITTED_VALUE
        if isinstance(spec.high, (int, float)) and spec.high > cap:
            cap = float(spec.high)
        if isinstance(spec.low, (int, float)) and -spec.low > cap:  # (a negative value's)
            cap = -float(spec.low)
        if np.abs(a).max() > cap:
            raise ValueError(
                f"{name} holds values of magnitude {np.abs(a).max():.3g} (a fitted model's "
                f"are at most {cap:g})"
            )
    lo, hi = a.min(), a.max()
    for bound, ok, word in (
        (spec.low, lambda b: lo >= b, ">="),
        (spec.high, lambda b: hi <= b, "<="),
        (spec.above, lambda b: lo > b, ">"),
        (spec.below, lambda b: hi < b, "<"),
    ):
        if bound is not None and not ok(_bound(bound, dims)):
            shown = f"{bound}={_bound(bound, dims)}" if isinstance(bound, str) else bound
            raise ValueError(f"{name} must be {word} {shown}, got values in [{lo}, {hi}]")


def _scalar(name, value, kind) -> bool:
    import numbers

    import numpy as np

    if kind == "int":
        return isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))
    if kind == "float":
        return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))
    if kind == "bool":
        return isinstance(value, (bool, np.bool_))
    return isinstance(value, str) and len(value) <= 200


def _check_sequence(name, value, spec, dims) -> None:
    """A fitted attribute of kind ``"ints"``, ``"floats"`` (a list or tuple) or ``"dims"``
    (a shape: a tuple whose sizes bind the named dimensions)."""
    import numpy as np

    kind = spec.kind
    item = "float" if kind == "floats" else "int"
    types = tuple if kind == "dims" else (list, tuple)  # a shape is a tuple
    if not isinstance(value, types) or not all(_scalar(name, v, item) for v in value):
        what = "tuple" if kind == "dims" else "list or tuple"
        raise TypeError(f"{name} must be a {what} of {item}s, got {value!r:.60}")
    if kind == "dims":
        _expect(len(value) == len(spec.shape), f"{name} must be {len(spec.shape)} integers")
    elif spec.shape:  # the number of items
        _check_shape(name, (len(value),), spec.shape[:1], dims)
    if value:
        dtype = np.float64 if item == "float" else np.int64
        try:
            values = np.array(value, dtype=dtype)
        except OverflowError:  # a Python int past int64
            raise ValueError(f"{name} holds an integer beyond 64 bits") from None
        _check_range(name, values, spec, dims)
    if kind == "dims":
        for i, (dim, size) in enumerate(zip(spec.shape, value, strict=True)):
            _dim(dim, int(size), dims, f"{name}[{i}]")


def _check_value(name, value, spec, dims) -> None:
    """One fitted attribute against its :class:`~unlabeled.base.Fitted` declaration."""
    import numpy as np
    import scipy.sparse as sp

    kind = spec.kind
    if value is None:
        if spec.none:
            return
        raise TypeError(f"{name} must not be None")
    if kind in ("int", "float", "bool", "str"):
        if not _scalar(name, value, kind):
            raise TypeError(
                f"{name} must be {'a' if kind != 'int' else 'an'} {kind}, got {value!r:.60}"
            )
        if kind == "str":
            if spec.choices is not None and value not in spec.choices:
                raise ValueError(f"{name} must be one of {list(spec.choices)}, got {value!r:.60}")
            return
        if isinstance(value, int) and not -(2**63) <= value < 2**63:  # (as in the lists)
            # kept as it is, a loaded float of 2**64 was a Python int that numpy holds as
            # an object, not a number (found by the fuzz: ElkanNoto's prior_)
            raise ValueError(f"{name} holds an integer beyond 64 bits")
        if kind == "int":  # a dimension that shapes may name
            _dim(name, int(value), dims, name)
        _check_range(name, float(value) if kind == "float" else int(value), spec, dims)
        return
    if kind in ("ints", "floats", "dims"):
        _check_sequence(name, value, spec, dims)
        return
    if kind == "dict":
        ok = isinstance(value, dict) and len(value) <= 32
        ok = ok and all(isinstance(k, str) and len(k) <= 40 for k in value)
        ok = ok and all(
            v is None or _scalar(name, v, "int") or (spec.choices and v in spec.choices)
            for v in value.values()
        )
        if not ok:
            raise TypeError(f"{name} must be a dict of integers (and names), got {value!r:.60}")
        return
    if kind == "object":
        _expect(
            class_path(value) in (spec.choices or ()),
            f"{name} must be one of the types "
            f"{list(spec.choices or ())}, got a {class_path(value)}",
        )
        return
    if kind == "estimators":
        _check_nested(name, value, spec, dims)
        return
    if kind == "matrix" and sp.issparse(value):
        _check_csr(name, value, spec, dims)
        return
    kinds = "f" if kind == "matrix" else kind
    if not isinstance(value, np.ndarray) or value.dtype.kind not in kinds:
        what = type(value).__name__ + (
            f" of dtype {value.dtype}" if hasattr(value, "dtype") else ""
        )
        raise TypeError(f"{name} must be an ndarray of dtype kind {kinds!r}, got a {what}")
    _check_shape(name, value.shape, spec.shape, dims)
    if value.dtype.kind == "O":
        _expect(all(isinstance(v, str) for v in value.ravel()), f"{name} must hold strings")
    elif value.dtype.kind in "iufb":
        _check_range(name, value, spec, dims)


def _check_nested(name, value, spec, dims) -> None:
    """A list of models (kind ``"estimators"``): of the declared class, each a complete model
    by :func:`check_model`, holding no models itself (one level)."""
    if not isinstance(value, list):
        raise TypeError(f"{name} must be a list of models, got a {type(value).__name__}")
    _check_shape(name, (len(value),), spec.shape[:1], dims)
    for i, model in enumerate(value):
        _expect(
            class_path(model) in (spec.choices or ()),
            f"{name}[{i}] must be one of the "
            f"types {list(spec.choices or ())}, got a {class_path(model)}",
        )
        if n_nested(model):
            raise ValueError(f"{name}[{i}] holds models itself (one level only)")
        try:
            check_model(model)
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"{name}[{i}]: {exc}") from None


def _expect(ok, message) -> None:
    if not ok:
        raise ValueError(message)


def _check_shape(name, shape, declared, dims) -> None:
    if len(shape) != len(declared):
        raise ValueError(f"{name} must have {len(declared)} dimensions, got shape {shape}")
    for i, (dim, size) in enumerate(zip(declared, shape, strict=True)):
        if isinstance(dim, str):
            _dim(dim, size, dims, f"axis {i} of {name} (shape {shape})")
        elif dim is not None and dim != size:
            raise ValueError(f"{name} must have shape {declared}, got {shape}")


def _check_csr(name, sv, spec, dims) -> None:
    """A CSR matrix of float values whose index structure passes scipy's full check."""
    if sv.format != "csr":
        raise TypeError(f"{name} must be dense or CSR, got a {sv.format} matrix")
    _check_shape(name, sv.shape, spec.shape, dims)
    for part, kinds in (("data", "f"), ("indices", "i"), ("indptr", "i")):
        _array(None, f"{name}.{part}", kinds, 1, value=getattr(sv, part))
    if sv.indptr.size != sv.shape[0] + 1:
        raise ValueError(f"{name} has an indptr of the wrong length")
    try:
        sv.check_format(full_check=True)  # indptr monotone and in range, indices in [0, n)
    except ValueError as exc:
        raise ValueError(f"{name} is not a valid CSR matrix: {exc}") from None
    n_col = sv.shape[1]
    if sv.indices.size and (sv.indices.min() < 0 or sv.indices.max() >= n_col):
        raise ValueError(f"{name} has column indices outside [0, {n_col})")
    if sv.indptr[-1] != sv.indices.size or sv.data.size != sv.indices.size:
        raise ValueError(f"{name} has inconsistent data, indices and indptr lengths")
    _check_range(name, sv.data, spec, dims)


def _array(est, name, kinds, ndim, *, shape=None, finite=True, value=None):
    """The attribute ``name`` (or ``value``) as a checked ndarray of dtype kind in ``kinds``."""
    import numpy as np

    a = getattr(est, name, None) if value is None else value
    if not isinstance(a, np.ndarray) or a.dtype.kind not in kinds or a.ndim != ndim:
        what = f"{type(a).__name__}" + (
            f" of dtype {a.dtype}, {a.ndim}-d" if hasattr(a, "dtype") else ""
        )
        raise TypeError(f"{name} must be a {ndim}-d array of kind {kinds!r}, got a {what}")
    if shape is not None and a.shape != shape:
        raise ValueError(f"{name} must have shape {shape}, got {a.shape}")
    if finite and a.dtype.kind == "f" and not np.isfinite(a).all():
        raise ValueError(f"{name} holds NaN or infinite values")
    return a


def _json_default(obj):
    import numpy as np

    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    return repr(obj)
