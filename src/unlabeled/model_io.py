"""Model files: a skops archive plus a JSON record of who wrote it (the ``unlabeled`` command's
format, and :func:`save_model` / :func:`load_model` from Python).

A model file is a standard skops file (``skops.io.load(path, trusted=[...])`` returns the fitted
estimator itself) with one more zip member, ``unlabeled.json``, that records the format, the
library version and the estimator class, and how the model was trained. Loading reads that record
first, so a file that is not ours or comes from another version is refused before anything is
deserialised; the estimator is then loaded by skops with the types it may contain listed
explicitly (never pickle). Files are written atomically: a temporary file in the target folder,
renamed over the target once complete, so a failed command leaves nothing behind.

Model files are untrusted input. Before anything is read, the zip directory is inspected and a
file with more than :data:`MAX_MEMBERS` members or more than :data:`MAX_MODEL_BYTES` of
uncompressed data (a zip bomb) is refused; after the allow-listed load, the model itself is
checked (:func:`check_model`: parameters, attribute types, shapes against ``n_features_in_``,
index ranges, sparse structure with a full format check, finite values), so a crafted file is
refused with a clear error rather than crashing ``predict``.
"""

from __future__ import annotations

import io
import json
import os
import stat
import tempfile
import zipfile
from pathlib import Path
from typing import TYPE_CHECKING

from . import _version
from ._products import PATHS
from .exceptions import ModelFileError

if TYPE_CHECKING:
    from sklearn.base import BaseEstimator

__all__ = ["ModelFileError", "TRUSTED_TYPES", "load_model", "save_model"]

META_MEMBER = "unlabeled.json"
FORMAT = "unlabeled-model"
FORMAT_VERSION = 1

# every type a model file may hold beyond the ones skops trusts by default (numpy arrays,
# builtins, ...): the estimators the command fits, the sparse matrix of support vectors fitted
# on svmlight data, and the class-prior estimators that PUSVC(prior="auto") may keep as a
# fitted attribute (unlabeled.pu.priors). Anything else in a file is refused, not loaded.
TRUSTED_TYPES = (
    "unlabeled.pu._pusvc.PUSVC",
    "scipy.sparse._csr.csr_matrix",
    "unlabeled.pu.priors.KM1",
    "unlabeled.pu.priors.KM2",
    "unlabeled.pu.priors.PenalizedL1",
)


#: constructor parameters added since FORMAT_VERSION 1 files were first written, with the
#: value that keeps an earlier model's behaviour: set on a loaded estimator that lacks them
ADDED_PARAMS = {"probability": False}

#: most uncompressed bytes a model file may hold (all members together): 1 GiB, far above a
#: model of 100,000 dense support vectors of 1,000 features (800 MB). The environment variable
#: UNLABELED_MAX_MODEL_BYTES raises (or lowers) it.
MAX_MODEL_BYTES = 2**30
#: most members a model file may hold (skops writes one per array and a schema)
MAX_MEMBERS = 1000


def class_path(obj) -> str:
    cls = type(obj)
    return f"{cls.__module__}.{cls.__qualname__}"


def _skops():
    try:
        import skops.io
    except ImportError as exc:  # a core dependency; only a broken install lacks it
        raise ModelFileError(
            "model files need the 'skops' package, which is not installed: pip install skops"
        ) from exc
    return skops.io


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
    buf = io.BytesIO(_skops().dumps(estimator))
    with zipfile.ZipFile(buf, "a", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(META_MEMBER, json.dumps(record, indent=2, default=_json_default))
    return buf.getvalue()


def save_model(
    estimator: BaseEstimator, path: str | os.PathLike[str], meta: dict | None = None
) -> None:
    """Save a fitted estimator with its record, atomically.

    Parameters
    ----------
    estimator : a fitted estimator of :data:`TRUSTED_TYPES`
    path : str or Path
        The file to write; written through a temporary file in the same folder and renamed
        once complete, so a failure leaves nothing behind.
    meta : dict, optional
        More entries for the record (``unlabeled.json``), e.g. how the model was trained.

    Examples
    --------
    >>> import numpy as np, tempfile, os
    >>> from unlabeled import PUSVC
    >>> from unlabeled.model_io import load_model, save_model
    >>> rng = np.random.default_rng(0)
    >>> X = np.r_[rng.normal(1, 1, (40, 2)), rng.normal(-1, 1, (40, 2))]
    >>> s = np.r_[np.ones(15, int), np.zeros(65, int)]
    >>> clf = PUSVC(0.4).fit(X, s)
    >>> path = os.path.join(tempfile.mkdtemp(), "pu.skops")
    >>> save_model(clf, path)
    >>> loaded, record = load_model(path)
    >>> bool(np.array_equal(loaded.predict(X), clf.predict(X)))
    True
    """
    write_atomic(path, model_bytes(estimator, meta or {}))


def _max_model_bytes() -> int:
    text = os.environ.get("UNLABELED_MAX_MODEL_BYTES", "")
    try:
        return int(text) if text else MAX_MODEL_BYTES
    except ValueError:
        raise ModelFileError(
            f"UNLABELED_MAX_MODEL_BYTES must be a number of bytes, got {text!r}"
        ) from None


def _check_archive(p: Path, not_ours: str) -> None:
    """Refuse, from the zip directory alone (nothing is decompressed), a model file that is
    not a zip archive, holds too many members or too many uncompressed bytes."""
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
    except (zipfile.BadZipFile, ValueError, OSError, EOFError) as exc:
        raise ModelFileError(f"{str(p)!r} is a corrupt model file: {exc}") from exc
    if len(infos) > MAX_MEMBERS:
        raise ModelFileError(
            f"{str(p)!r} is refused: it holds {len(infos)} zip members, more than a model file "
            f"has (at most {MAX_MEMBERS})"
        )
    total = sum(info.file_size for info in infos)  # zipfile never inflates a member past it
    if total > limit:
        raise ModelFileError(
            f"{str(p)!r} is refused: it would decompress to {total} bytes, more than the limit "
            f"of {limit} bytes for model files (set UNLABELED_MAX_MODEL_BYTES to raise it)"
        )


def read_meta(path) -> tuple[dict, bytes]:
    """The record of a model file and the file's bytes; raises ModelFileError if it is not a
    model file of this library and version, or exceeds the limits on size and members."""

    p = Path(path)
    if not p.is_file():
        raise ModelFileError(f"model file not found: {str(p)!r}")
    not_ours = f"{str(p)!r} is not an unlabeled model file"
    _check_archive(p, not_ours)
    raw = p.read_bytes()
    try:
        with zipfile.ZipFile(io.BytesIO(raw)) as zf:
            if META_MEMBER not in zf.namelist():
                raise ModelFileError(f"{not_ours} (a zip archive without {META_MEMBER})")
            meta = json.loads(zf.read(META_MEMBER).decode("utf-8"))
    except ModelFileError:
        raise
    except (zipfile.BadZipFile, ValueError, OSError, EOFError) as exc:
        raise ModelFileError(f"{str(p)!r} is a corrupt model file: {exc}") from exc
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise ModelFileError(f"{not_ours} (its {META_MEMBER} is not a model record)")
    version = meta.get("unlabeled_version")
    ours = _version.__version__
    if version != ours:
        raise ModelFileError(
            f"{str(p)!r} was saved by unlabeled {version}, this is unlabeled {ours}: "
            "refit the model with this version (models are not portable across versions)"
        )
    if not isinstance(meta.get("data", {}), dict):
        raise ModelFileError(f"{str(p)!r} is a corrupt model file: its record's data is not a dict")
    return meta, raw


def load_model(path: str | os.PathLike[str]) -> tuple[BaseEstimator, dict]:
    """``(estimator, record)`` from a model file written by :func:`save_model`.

    The record is read first (a file that is not ours or from another version is refused
    before anything is deserialised), the estimator is loaded by skops with only the types of
    :data:`TRUSTED_TYPES` allowed (never pickle), then checked by :func:`check_model`.

    Raises
    ------
    ModelFileError
        Naming the file and what is wrong with it.
    """
    meta, raw = read_meta(path)
    sio = _skops()
    p = str(path)
    try:
        untrusted = set(sio.get_untrusted_types(data=raw))
    except Exception as exc:
        raise ModelFileError(f"{p!r} is a corrupt model file: {exc}") from exc
    refused = sorted(untrusted - set(TRUSTED_TYPES))
    if refused:
        raise ModelFileError(
            f"{p!r} holds types that are not trusted and were not loaded: {refused}"
        )
    try:
        estimator = sio.loads(raw, trusted=sorted(untrusted))
    except Exception as exc:
        raise ModelFileError(f"{p!r} is a corrupt model file: {exc}") from exc
    if class_path(estimator) != meta.get("estimator"):
        raise ModelFileError(
            f"{p!r} is a corrupt model file: it holds a {class_path(estimator)} but its record "
            f"says {meta.get('estimator')}"
        )
    for name, default in ADDED_PARAMS.items():  # a file written before they existed
        if name not in vars(estimator) and name in type(estimator)._get_param_names():
            setattr(estimator, name, default)
    try:
        check_model(estimator)
    except (TypeError, ValueError) as exc:
        raise ModelFileError(f"{p!r} is not a valid model and was refused: {exc}") from exc
    return estimator, meta


# ---------------------------------------------------------------------- the model's checks
# the fitted attributes a model file's estimator may hold, beyond its parameters
_FITTED = {
    "n_features_in_", "support_", "dual_coef_", "intercept_", "support_vectors_", "shape_fit_",
    "classes_", "_coef", "_gamma", "n_iter_", "prior_", "objective_", "prior_estimator_",
    "solver_info_", "feature_names_in_", "cache_stats_", "solver_", "probA_", "probB_",
}  # fmt: skip


def check_model(est) -> None:
    """Check a loaded kernel-machine model completely; raises ``ValueError``/``TypeError``
    naming the first attribute that is not what ``fit`` makes.

    Checked: the parameters (the estimator's declared constraints), that every attribute is a
    parameter or a known fitted attribute, the types, dtypes and shapes of the expansion
    (``support_vectors_`` of shape (n_SV, n_features_in_), dense or CSR with a full format
    check of its index structure, ``dual_coef_`` (1, n_SV), ``support_`` in range of
    ``shape_fit_``), and that every number is finite.
    """
    import numpy as np

    params = set(est.get_params(deep=False))
    unknown = sorted(set(vars(est)) - params - _FITTED)
    if unknown:
        raise ValueError(f"unexpected attributes {unknown}")
    est._validate_params()
    n_feat = _int_attr(est, "n_features_in_", low=1)
    shape = getattr(est, "shape_fit_", None)
    if not (isinstance(shape, tuple) and len(shape) == 2):
        raise TypeError(f"shape_fit_ must be a pair of integers, got {shape!r}")
    n_train = _checked_int(shape[0], "shape_fit_[0]", low=1)
    if _checked_int(shape[1], "shape_fit_[1]", low=1) != n_feat:
        raise ValueError(f"shape_fit_ {shape} does not match n_features_in_={n_feat}")
    support = _array(est, "support_", "iu", 1)
    if support.size and (support.min() < 0 or support.max() >= n_train):
        raise ValueError(f"support_ holds indices outside [0, {n_train})")
    n_sv = support.shape[0]
    _array(est, "dual_coef_", "f", 2, shape=(1, n_sv))
    _array(est, "intercept_", "f", 1, shape=(1,))
    _array(est, "classes_", "iufUSb", 1, shape=(2,), finite=False)
    if est.kernel == "precomputed":
        if shape[0] != shape[1] or shape[1] != n_feat:
            raise ValueError("a precomputed-kernel model must have a square shape_fit_")
        _array(est, "support_vectors_", "f", 2, shape=(0, 0))
    else:
        _support_vectors(est.support_vectors_, n_sv, n_feat)
    if "feature_names_in_" in vars(est):
        _array(est, "feature_names_in_", "OU", 1, shape=(n_feat,), finite=False)
        if not all(isinstance(v, str) for v in est.feature_names_in_):
            raise TypeError("feature_names_in_ must hold strings")
    if est.kernel == "linear" and "_coef" in vars(est):
        _array(est, "_coef", "f", 2, shape=(1, n_feat))
    gamma = getattr(est, "_gamma", 0.0)
    if not (isinstance(gamma, (float, int, np.floating)) and np.isfinite(gamma) and gamma >= 0):
        raise ValueError(
            f"the fitted kernel width _gamma must be a finite number >= 0, got {gamma!r}"
        )
    _fitted_numbers(est)


def _fitted_numbers(est) -> None:
    """The scalar fitted attributes of the PU models: finite, of the right type and range."""
    import numpy as np

    if "prior_" in vars(est):
        prior = est.prior_
        if not (isinstance(prior, (float, np.floating)) and 0 < prior < 1):
            raise ValueError(f"prior_ must be a number in (0, 1), got {prior!r}")
    if "objective_" in vars(est):
        obj = est.objective_
        if not (isinstance(obj, (float, np.floating)) and np.isfinite(obj)):
            raise ValueError(f"objective_ must be a finite number, got {obj!r}")
    if "n_iter_" in vars(est):
        _int_attr(est, "n_iter_", low=0)
    # predict_proba's sigmoid (probability=True): both or neither, finite, non-increasing A
    sigmoid = [name for name in ("probA_", "probB_") if name in vars(est)]
    if sigmoid:
        if len(sigmoid) < 2 or not getattr(est, "probability", False):
            raise ValueError("probA_ and probB_ come together, from a fit with probability=True")
        if _array(est, "probA_", "f", 1, shape=(1,))[0] > 0:
            raise ValueError("probA_ must be <= 0: predict_proba is non-decreasing in f")
        _array(est, "probB_", "f", 1, shape=(1,))
    solver = vars(est).get("solver_", "")
    if not isinstance(solver, str) or len(solver) > 20:
        raise TypeError(f"solver_ must be a solver's name, got {solver!r}")

    stats = vars(est).get("cache_stats_", {})
    stats = dict(stats) if isinstance(stats, dict) else {"": None}
    path = stats.pop("kernel_path", None)
    if not (all(isinstance(v, int) for v in stats.values()) and path in (None, *PATHS)):
        raise TypeError("cache_stats_ must be a dict of integers and a kernel_path")
    pe = vars(est).get("prior_estimator_")
    if not (pe is None or (isinstance(pe, str) and len(pe) <= 40)):
        raise TypeError(f"prior_estimator_ must be an estimator's name or None, got {pe!r}")


def _checked_int(value, name: str, low: int) -> int:
    import numbers

    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low:
        raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
    return int(value)


def _int_attr(est, name: str, low: int) -> int:
    return _checked_int(getattr(est, name, None), name, low)


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


def _support_vectors(sv, n_sv: int, n_feat: int) -> None:
    """Dense float rows, or a CSR matrix whose index structure passes scipy's full check."""
    import numpy as np
    import scipy.sparse as sp

    name = "support_vectors_"
    if not sp.issparse(sv):
        _array(None, name, "f", 2, shape=(n_sv, n_feat), value=sv)
        return
    if sv.format != "csr":
        raise TypeError(f"{name} must be dense or CSR, got a {sv.format} matrix")
    if sv.shape != (n_sv, n_feat):
        raise ValueError(f"{name} must have shape {(n_sv, n_feat)}, got {sv.shape}")
    for part, kinds in (("data", "f"), ("indices", "i"), ("indptr", "i")):
        _array(None, f"{name}.{part}", kinds, 1, value=getattr(sv, part))
    try:
        sv.check_format(full_check=True)  # indptr monotone and in range, indices in [0, n)
    except ValueError as exc:
        raise ValueError(f"{name} is not a valid CSR matrix: {exc}") from None
    if sv.indices.size and (sv.indices.min() < 0 or sv.indices.max() >= n_feat):
        raise ValueError(f"{name} has column indices outside [0, {n_feat})")
    if sv.indptr[-1] != sv.indices.size or sv.data.size != sv.indices.size:
        raise ValueError(f"{name} has inconsistent data, indices and indptr lengths")
    if not np.isfinite(sv.data).all():
        raise ValueError(f"{name} holds NaN or infinite values")


def _json_default(obj):
    import numpy as np

    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    return repr(obj)
