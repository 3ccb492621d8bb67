"""Model files of the ``unlabeled`` command: a skops archive plus a JSON record of who wrote it.

A model file is a standard skops file (``skops.io.load(path, trusted=[...])`` returns the fitted
estimator itself) with one more zip member, ``unlabeled.json``, that records the format, the
library version and the estimator class, and how the model was trained. Loading reads that record
first, so a file that is not ours or comes from another version is refused before anything is
deserialised; the estimator is then loaded by skops with the types it may contain listed
explicitly (never pickle). Files are written atomically: a temporary file in the target folder,
renamed over the target once complete, so a failed command leaves nothing behind.
"""

from __future__ import annotations

import io
import json
import os
import tempfile
import zipfile
from pathlib import Path

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


class ModelFileError(ValueError):
    """A model file that is missing, not ours, corrupt or from another version."""


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


def check_writable(path) -> Path:
    """Refuse early (before any long work) an output path whose folder does not exist."""
    p = Path(path)
    if p.is_dir():
        raise ModelFileError(f"cannot write {str(p)!r}: it is a directory")
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        raise ModelFileError(f"cannot write {str(p)!r}: the folder {str(parent)!r} does not exist")
    return p


def write_atomic(path, data: bytes | str) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder and a rename."""
    p = check_writable(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=p.parent or ".")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data.encode() if isinstance(data, str) else data)
        umask = os.umask(0)  # mkstemp makes the file private; give it the usual permissions
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, p)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def model_bytes(estimator, meta: dict) -> bytes:
    """The model file's bytes: the estimator in skops format plus ``unlabeled.json``."""
    from . import __version__

    record = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "unlabeled_version": __version__,
        "estimator": class_path(estimator),
        **meta,
    }
    buf = io.BytesIO(_skops().dumps(estimator))
    with zipfile.ZipFile(buf, "a", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(META_MEMBER, json.dumps(record, indent=2, default=_json_default))
    return buf.getvalue()


def save_model(estimator, path, meta: dict | None = None) -> None:
    """Save a fitted estimator with its record, atomically."""
    write_atomic(path, model_bytes(estimator, meta or {}))


def read_meta(path) -> tuple[dict, bytes]:
    """The record of a model file and the file's bytes; raises ModelFileError if it is not a
    model file of this library and version."""
    from . import __version__

    p = Path(path)
    if not p.is_file():
        raise ModelFileError(f"model file not found: {str(p)!r}")
    raw = p.read_bytes()
    not_ours = f"{str(p)!r} is not an unlabeled model file"
    if not zipfile.is_zipfile(io.BytesIO(raw)):
        raise ModelFileError(f"{not_ours} (not a skops archive); make one with 'unlabeled fit'")
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
    if version != __version__:
        raise ModelFileError(
            f"{str(p)!r} was saved by unlabeled {version}, this is unlabeled {__version__}: "
            "refit the model with this version (models are not portable across versions)"
        )
    return meta, raw


def load_model(path):
    """``(estimator, record)`` from a model file written by :func:`save_model`."""
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
    return estimator, meta


def _json_default(obj):
    import numpy as np

    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    return repr(obj)
