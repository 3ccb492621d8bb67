"""Model files for every estimator: ``unlabeled.save`` / ``unlabeled.load`` round-trip each one
with identical outputs, and a crafted file (a tampered attribute, a type not trusted, a record
that names another class, a zip bomb, too many members) is refused with a ModelFileError that
names what is wrong, never loaded into a model that crashes or predicts NaN.

The tampering is generic: it reads each estimator's declared fitted attributes
(``_fitted_declarations``) to pick a float array, an index array, a required attribute."""

from __future__ import annotations

import copy
import io
import json
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest
from conftest import declares, registered_params
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC
from test_common import CASES, X, Y, make, params
from test_common import fitted as fit_case

import unlabeled
from unlabeled.exceptions import ModelFileError
from unlabeled.model_io import TRUSTED_TYPES, model_bytes
from unlabeled.registry import all_estimators

SRC = Path(unlabeled.__file__).resolve().parents[1]
BAGS = [X[i : i + 4] for i in range(0, 40, 4)]


def _has_torch() -> bool:
    try:
        import torch  # noqa: F401
    except ImportError:
        return False
    return True


PAE_SKIP = pytest.mark.skipif(not _has_torch(), reason="the autoencoder needs torch")
#: the common suite's cases (tests/test_common.py: every registered estimator's, which also
#: round-trips each one through save / load)
NAMES = params(CASES)


@pytest.fixture(scope="module")
def fitted():
    """The fitted models, one per case, fitted once."""
    return fit_case


# ---------------------------------------------------------------------- the allow-list
def test_trusted_types_are_the_registered_estimators():
    """The allow-list holds exactly the registered estimators and the CSR matrix."""
    paths = {e.path for e in all_estimators()}
    assert set(TRUSTED_TYPES) == paths | {"scipy.sparse._csr.csr_matrix"}
    assert {
        f"{type(make(e, c)).__module__}.{type(make(e, c)).__qualname__}" for e, c in CASES.values()
    } == paths


def test_save_refuses_unfitted_and_foreign_objects(tmp_path):
    with pytest.raises(ModelFileError, match="not fitted.*fit"):
        unlabeled.save(unlabeled.WellSVM(), tmp_path / "m.skops")
    svc = SVC().fit(X, Y)
    with pytest.raises(ModelFileError, match="estimators of unlabeled.*skops.io.dump"):
        unlabeled.save(svc, tmp_path / "m.skops")
    bags = unlabeled.mil.BagTransformer(StandardScaler()).fit(BAGS)
    with pytest.raises(ModelFileError, match="cannot save a BagTransformer.*skops.io.dump"):
        unlabeled.save(bags, tmp_path / "m.skops")
    assert not list(tmp_path.iterdir())


def test_model_io_does_not_import_torch():
    """Only loading an autoencoder imports torch (skops itself may, through scikit-learn's
    array API support, when torch is installed)."""
    code = "import sys, unlabeled, unlabeled.model_io; print('torch' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": str(SRC), "PATH": "/usr/bin:/bin"},
    )
    assert out.stdout.strip() == "False"


# ---------------------------------------------------------------------- crafted files
def _declared(est):
    return {k: v for k, v in est._fitted_declarations().items() if v is not None and k in vars(est)}


def _pick(est, test):
    """The first declared attribute of ``est`` for which ``test(spec, value)`` holds."""
    for name, spec in _declared(est).items():
        if test(spec, vars(est)[name]):
            return name
    return None


def _float_array(spec, v):
    return isinstance(v, np.ndarray) and v.dtype.kind == "f" and v.size > 0


def _float_value(spec, v):
    return _float_array(spec, v) or (spec.kind == "float" and isinstance(v, float))


def _bounded_float(spec, v):
    """A float attribute under the bound of a fitted value (not the kernel's width, which
    may be any finite value)."""
    wide = isinstance(spec.high, float) and spec.high > 1e100
    wide = wide or (isinstance(spec.low, float) and spec.low < -1e100)
    return _float_value(spec, v) and not wide


def _index_array(spec, v):
    return isinstance(v, np.ndarray) and spec.below is not None and v.size > 0


def _set_float(value):
    def change(est, name):
        v = vars(est)[name]
        if isinstance(v, np.ndarray):
            v = v.copy()
            v.flat[0] = value
        else:
            v = value
        setattr(est, name, v)

    return change


def _wrong_type(est, name):
    v = vars(est)[name]
    setattr(est, name, "x" if not isinstance(v, str) else 3.5)


def _wrong_shape(est, name):
    v = vars(est)[name]
    setattr(est, name, np.concatenate([v, v[:1]]) if v.ndim == 1 else v[:, :-1])


TAMPERS = {
    # kind: (choose the attribute, change it, the phrase of the error)
    "wrong_type": (lambda s, v: s.kind not in ("object",), _wrong_type, "must"),
    "wrong_shape": (_float_array, _wrong_shape, ""),
    "nan": (_float_value, _set_float(np.nan), "NaN"),
    "huge": (_bounded_float, _set_float(1e300), "magnitude"),
    "index": (_index_array, lambda e, n: vars(e)[n].__setitem__(0, 10**9), "must be <"),
    "missing": (lambda s, v: not s.optional, lambda e, n: delattr(e, n), "missing"),
}


def _tampered_file(est, tmp_path, change, name=None):
    """A file of ``est`` (without its transient attributes, as save writes it) changed by
    ``change(estimator, name)``."""
    bad = copy.deepcopy(est)
    for key, spec in bad._fitted_declarations().items():
        if spec is None:
            vars(bad).pop(key, None)
    change(bad, name)
    path = tmp_path / "bad.skops"
    path.write_bytes(model_bytes(bad, {}))
    return path


@pytest.mark.parametrize("tamper", list(TAMPERS))
@pytest.mark.parametrize("name", NAMES)
def test_tampered_attribute_refused(fitted, tmp_path, name, tamper):
    est = fitted(name)
    choose, change, phrase = TAMPERS[tamper]
    attr = _pick(est, choose)
    if attr is None:
        pytest.skip(f"{name} has no attribute for this tampering")
    path = _tampered_file(est, tmp_path, change, attr)
    with pytest.raises(ModelFileError) as info:
        unlabeled.load(path)
    message = str(info.value)
    assert attr in message and phrase in message, message


@pytest.mark.parametrize("name", NAMES)
def test_unexpected_attribute_refused(fitted, tmp_path, name):
    path = _tampered_file(fitted(name), tmp_path, lambda e, _: setattr(e, "payload_", "x" * 9))
    with pytest.raises(ModelFileError, match=r"unexpected attributes \['payload_'\]"):
        unlabeled.load(path)


class Evil:
    """A type no model file may hold."""


@pytest.mark.parametrize("name", NAMES)
def test_untrusted_type_refused(fitted, tmp_path, name):
    path = _tampered_file(fitted(name), tmp_path, lambda e, _: setattr(e, "payload_", Evil()))
    with pytest.raises(ModelFileError, match="not trusted and were not loaded.*Evil"):
        unlabeled.load(path)


def _rewrite(raw: bytes, members: dict) -> bytes:
    """The archive with some members replaced or added."""
    out = io.BytesIO()
    with (
        zipfile.ZipFile(io.BytesIO(raw)) as src,
        zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as dst,
    ):
        for info in src.infolist():
            if info.filename not in members:
                dst.writestr(info, src.read(info.filename))
        for member, data in members.items():
            dst.writestr(member, data)
    return out.getvalue()


@pytest.mark.parametrize("name", NAMES)
def test_record_naming_another_class_refused(fitted, tmp_path, name):
    raw = model_bytes(fitted(name), {})
    with zipfile.ZipFile(io.BytesIO(raw)) as zf:
        record = json.loads(zf.read("unlabeled.json"))
    other = "unlabeled.pu._pusvc.PUSVC" if "PUSVC" not in name else "unlabeled.ssl._tsvm.TSVM"
    record["estimator"] = other
    path = tmp_path / "other.skops"
    path.write_bytes(_rewrite(raw, {"unlabeled.json": json.dumps(record)}))
    with pytest.raises(ModelFileError, match=f"but its record says {other}"):
        unlabeled.load(path)


@pytest.mark.parametrize("name", NAMES)
def test_zip_bomb_and_many_members_refused(fitted, tmp_path, name, monkeypatch):
    raw = model_bytes(fitted(name), {})
    bomb = tmp_path / "bomb.skops"
    bomb.write_bytes(_rewrite(raw, {"zeros.bin": b"\0" * 3_000_000}))
    monkeypatch.setenv("UNLABELED_MAX_MODEL_BYTES", "2000000")
    with pytest.raises(ModelFileError, match="decompress to .* more than the limit"):
        unlabeled.load(bomb)
    monkeypatch.delenv("UNLABELED_MAX_MODEL_BYTES")
    many = tmp_path / "many.skops"
    many.write_bytes(_rewrite(raw, {f"m{i}": b"" for i in range(1001)}))
    with pytest.raises(ModelFileError, match="zip members"):
        unlabeled.load(many)


def test_crafted_support_vectors_of_1e300_do_not_predict_inf(fitted, tmp_path):
    """Issue 35: dual_coef_ or support vectors of 1e300 loaded and predicted NaN or inf."""
    est = fitted("PUSVC")
    for attr in ("dual_coef_", "support_vectors_"):
        path = _tampered_file(est, tmp_path, lambda e, n: setattr(e, n, vars(e)[n] * 1e299), attr)
        with pytest.raises(ModelFileError, match=attr):
            unlabeled.load(path)
    # within the generic bound, but the kernel of the support vectors would overflow
    path = _tampered_file(est, tmp_path, lambda e, n: setattr(e, n, vars(e)[n] * 1e60), attr)
    with pytest.raises(ModelFileError, match="support_vectors_ are out of scale"):
        unlabeled.load(path)


@pytest.mark.parametrize(
    "name, attr, change, phrase",
    [  # registry: a tampered attribute per model
        ("PUSVC-sparse-proba", "support_vectors_", lambda v: v * 1e60, "out of scale"),
        ("PUSVC-linear", "_coef", lambda v: v[:, :1], "_coef"),
        ("PUSVC-precomputed", "shape_fit_", lambda v: (v[0], v[1] + 1), "n_features_in_"),
        ("SVMPlus", "_Z_fit", lambda v: v * 1e60, "_Z_fit are out of scale"),
        ("CLSST", "beta_concentration_", lambda v: v * 0, "beta_concentration_ must be >= 2.2"),
        ("CLSST", "labels_", lambda v: v + 5, "labels_ must be < n_components_"),
        ("MILWellSVM", "label_vectors_", lambda v: v - 1000, "label_vectors_ must be >= 0"),
        ("KM2", "bootstrap_priors_", lambda v: v[:2], "n_bootstrap"),
        ("PUSVC", "cache_stats_", lambda v: {**v, "kernel_path": "evil"}, "cache_stats_"),
        ("PUSVC", "shape_fit_", lambda v: [*v], "shape_fit_"),
        # a Python int past 64 bits as a float (or int) scalar: loaded as it was, numpy held
        # it as an object, not a number (the fuzz, seed 9054: ElkanNoto's prior_ of 2**64)
        ("ElkanNoto", "prior_", lambda v: 2**64, "prior_ holds an integer beyond 64 bits"),
        ("ElkanNoto", "prior_", lambda v: -(10**30), "prior_ holds an integer beyond 64"),
        ("ElkanNoto", "n_labeled_", lambda v: 2**64, "n_labeled_ holds an integer beyond"),
        # standardize=True: mean_ None beside scale_ loaded, then predict raised TypeError
        ("PUSVC-cv-scaled", "mean_", lambda v: None, "mean_ must be an array"),
        ("PUSVC-cv-scaled", "scale_", lambda v: v * 0, "scale_ must hold positive"),
    ],
)
def test_specific_crafted_values_refused(fitted, tmp_path, name, attr, change, phrase):
    def tamper(est, _):
        setattr(est, attr, change(vars(est)[attr]))

    with pytest.raises(ModelFileError, match="not a valid model") as info:
        unlabeled.load(_tampered_file(fitted(name), tmp_path, tamper))
    assert phrase in str(info.value), str(info.value)


@pytest.mark.parametrize("attr", ["mean_", "scale_"])
def test_standardized_pusvc_without_its_moments_is_refused(fitted, tmp_path, attr):
    """A PUSVC fitted with ``standardize=True`` whose file lacks ``mean_`` or ``scale_``
    (optional: files from before the parameter hold standardize=False) loaded, then failed
    in ``predict`` with an AttributeError (the fuzz, seed 12120)."""
    path = _tampered_file(fitted("PUSVC-cv-scaled"), tmp_path, lambda e, _: delattr(e, attr))
    with pytest.raises(ModelFileError, match=rf"{attr} must be an array when standardize=True"):
        unlabeled.load(path)


def test_probability_sigmoid_checked_for_every_probabilistic_model(fitted, tmp_path):
    """probA_/probB_ are declared once in KernelClassifier: both or neither, probability=True,
    A <= 0."""
    est = fitted("PUSVC-sparse-proba")
    changes = {
        "probB_": lambda e, _: delattr(e, "probB_"),
        "probability": lambda e, _: setattr(e, "probability", False),
        "probA_ must be <= 0": lambda e, _: setattr(e, "probA_", np.array([1.0])),
    }
    for phrase, change in changes.items():
        with pytest.raises(ModelFileError, match=phrase):
            unlabeled.load(_tampered_file(est, tmp_path, change))


# ---------------------------------------------------------------------- the autoencoder
@PAE_SKIP
@pytest.mark.parametrize(
    "change, phrase",
    [
        (lambda w: w.__setitem__("1.weight", w["1.weight"] * np.nan), "NaN"),
        (lambda w: w.__setitem__("1.weight", w["1.weight"] + 1e30), "beyond 1e\\+10"),
        (lambda w: w.__setitem__("1.weight", w["1.weight"][:, :1]), "does not match"),
        (lambda w: w.pop("1.bias"), "does not match"),
        (lambda w: w.__setitem__("0.scale", -w["0.scale"]), "positive"),
        (lambda w: w.__setitem__("1.weight", w["1.weight"].astype(int)), "float array"),
    ],
    ids=["nan", "huge", "shape", "missing", "scale", "dtype"],
)
def test_crafted_autoencoder_weights_refused(fitted, tmp_path, change, phrase):
    est = copy.deepcopy(fitted("PlummerAutoencoder"))
    weights = {k: v.detach().numpy().copy() for k, v in est.encoder_.state_dict().items()}
    change(weights)
    est.encoder_ = weights  # a dict of arrays: what a file of format 1 holds
    path = tmp_path / "bad.skops"
    path.write_bytes(model_bytes(est, {}))
    with pytest.raises(ModelFileError, match=phrase) as info:
        unlabeled.load(path)
    assert "encoder_" in str(info.value)


@PAE_SKIP
def test_autoencoder_file_holds_arrays_and_warm_start_continues(tmp_path):
    """The file holds the weights as arrays (no pickle, no torch type); after load,
    warm_start=True continues training from the loaded weights."""
    import skops.io

    pae = make(*CASES["PlummerAutoencoder"]).set_params(max_iter=30).fit(X)
    path = tmp_path / "pae.skops"
    pae.save(path)  # the method is unlabeled.save
    assert skops.io.get_untrusted_types(file=path) == [
        "unlabeled.generative._pae.PlummerAutoencoder"
    ]
    back = unlabeled.PlummerAutoencoder.load(path, device="cpu")
    np.testing.assert_array_equal(back.transform(X), pae.transform(X))
    start = back.transform(X)
    back.set_params(warm_start=True, max_iter=10).fit(X)
    assert back.n_iter_ == 40
    np.testing.assert_array_equal(back.loss_history_[:30], pae.loss_history_)
    assert not np.array_equal(back.transform(X), start)
    # a continuation, not a new start: the loss goes on from where it was
    cold = make(*CASES["PlummerAutoencoder"]).set_params(max_iter=1, random_state=1).fit(X)
    assert back.loss_history_[30] < cold.loss_history_[0]
    assert abs(back.loss_history_[30] - pae.loss_history_[-1]) < abs(
        cold.loss_history_[0] - pae.loss_history_[-1]
    )


@PAE_SKIP
def test_autoencoder_earlier_torch_files_still_load(fitted, tmp_path):
    import torch

    pae = fitted("PlummerAutoencoder")
    params = pae.get_params()
    record = {
        "format": "unlabeled-pae",
        "version": 1,
        "config": json.dumps({k: v for k, v in params.items()}),
        "n_features_in": 2,
        "encoder": {k: v.cpu() for k, v in pae.encoder_.state_dict().items()},
        "decoder": {k: v.cpu() for k, v in pae.decoder_.state_dict().items()},
        "history": torch.as_tensor(
            np.stack([pae.loss_history_, pae.reconstruction_history_, pae.mmd_history_])
        ),
    }
    path = tmp_path / "old.pt"
    torch.save(record, path)
    back = unlabeled.PlummerAutoencoder.load(path, device="cpu")
    np.testing.assert_array_equal(back.transform(X), pae.transform(X))


@PAE_SKIP
def test_autoencoder_file_without_torch_says_how_to_install(fitted, tmp_path):
    path = tmp_path / "pae.skops"
    unlabeled.save(fitted("PlummerAutoencoder"), path)
    code = (
        "import sys\n"
        "class NoTorch:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] == 'torch':\n"
        "            raise ModuleNotFoundError('No module named torch', name='torch')\n"
        "sys.meta_path.insert(0, NoTorch())\n"
        "import unlabeled\n"
        f"try:\n    unlabeled.load({str(path)!r})\n"
        "except unlabeled.exceptions.ModelFileError as e:\n    print(e)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": str(SRC), "PATH": "/usr/bin:/bin"},
    )
    assert "PlummerAutoencoder" in out.stdout and "pip install 'torch>=2.2" in out.stdout


@PAE_SKIP
def test_autoencoder_state_on_a_device_this_machine_lacks_loads_on_the_cpu(fitted, tmp_path):
    import torch

    est = copy.deepcopy(fitted("PlummerAutoencoder"))
    est.device_ = "cuda:7" if not torch.cuda.is_available() else "cuda:999"
    path = tmp_path / "m.skops"
    path.write_bytes(model_bytes(est, {}))
    back = unlabeled.load(path)
    assert back.device_ == "cpu" and next(back.encoder_.parameters()).device.type == "cpu"
    np.testing.assert_array_equal(back.transform(X), est.transform(X))


def test_elkan_noto_estimate_outside_the_unit_interval_saves(fitted, tmp_path):
    """ElkanNoto keeps an estimate outside [0, 1] from a miscalibrated classifier (with a
    RuntimeWarning, not clipped); such a fitted model is legitimate and its file loads."""
    est = copy.deepcopy(fitted("ElkanNoto"))
    est.prior_ = 1.0055  # the value a fresh install's fit gave on these data
    unlabeled.save(est, tmp_path / "en.skops")
    assert unlabeled.load(tmp_path / "en.skops").prior_ == 1.0055


# ---------------------------------------------------------------------- text class labels
@pytest.mark.parametrize("entry", registered_params(lambda e: e.family in ("ssl", "lupi")))
def test_a_model_of_text_class_labels_round_trips(entry, tmp_path):
    """A classifier fitted on text labels (an object array with the integer -1 for an
    unlabeled point, scikit-learn's convention) saves and loads with the same predictions:
    its ``classes_`` and ``transduction_`` are object arrays of strings (once refused by the
    save's check, so that ``unlabeled fit`` on a CSV with text classes exited 1)."""
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(-2, 1, (20, 2)), rng.normal(2, 1, (20, 2))]
    y = np.array(["cat"] * 20 + ["dog"] * 20, dtype=object)
    cls = entry.load()
    params = {"random_state": 0} if declares(cls, "random_state") else {}
    if entry.family == "ssl":
        y[rng.permutation(40)[:24]] = -1
        est = cls(**params).fit(X, y)
    else:  # learning using privileged information: a privileged feature per point
        est = cls(**params).fit(X, y, np.abs(X[:, :1]))
    assert est.classes_.dtype == object and set(est.predict(X)) <= {"cat", "dog"}
    unlabeled.save(est, tmp_path / "m.skops")
    back = unlabeled.load(tmp_path / "m.skops")
    assert back.predict(X).tolist() == est.predict(X).tolist()
    assert back.classes_.tolist() == est.classes_.tolist()


# ---------------------------------------------------------------------- a fitted width
@pytest.mark.parametrize(
    "entry",
    registered_params(lambda e: declares(e.load(), "gamma", "prior"), family="pu"),
)
def test_a_model_of_tiny_features_saves_its_wide_kernel_width(entry, tmp_path):
    """Features in units of 1e-150: ``gamma="scale"`` fits a width of about 1e299, which the
    save's bound of 1e100 on a fitted float refused (the model fitted, then could not be
    saved); the width may be any finite value, and the loaded model predicts the same."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    X[:10] += 1.0
    X *= 1e-150
    s = np.r_[np.ones(10, int), np.zeros(30, int)]
    est = entry.load()(prior=0.4, random_state=0).fit(X, s)
    unlabeled.save(est, tmp_path / "m.skops")
    back = unlabeled.load(tmp_path / "m.skops")
    np.testing.assert_array_equal(back.decision_function(X), est.decision_function(X))


@pytest.mark.parametrize(
    "entry",
    registered_params(lambda e: declares(e.load(), "gamma", "prior", "lam"), family="pu"),
)
def test_a_model_of_a_wide_gram_saves_its_offset(entry, tmp_path):
    """A precomputed Gram matrix with a column in units of 1e100 and ``lam=1e-30`` (the dual's
    box C ~ 1e30): the offset and the threshold are in the decision values' units, about
    1e128 for USMOInit (RampPU: 6.9e126 in the fuzz), which the save's bound of 1e100 on a
    fitted float refused. They may be any finite value; the loaded model decides the same."""
    rng = np.random.default_rng(0)
    P = rng.normal(size=(40, 2))
    P[:10] += 1.0
    sq = (P**2).sum(1)
    K = np.exp(-np.maximum(sq[:, None] + sq[None, :] - 2 * P @ P.T, 0) / 2)
    K[:, 0] *= 1e100
    s = np.r_[np.ones(10, int), np.zeros(30, int)]
    est = entry.load()(prior=0.4, lam=1e-30, kernel="precomputed", random_state=0)
    try:
        est.fit(K, s)
    except ValueError as exc:  # DoubleHingeQP's interior-point solver: "rescale the data"
        assert "lam" in str(exc)
        return
    unlabeled.save(est, tmp_path / "m.skops")
    back = unlabeled.load(tmp_path / "m.skops")
    np.testing.assert_array_equal(back.decision_function(K), est.decision_function(K))
    np.testing.assert_array_equal(back.predict(K), est.predict(K))


def test_a_sigmoid_of_a_tiny_gram_saves_its_slope(tmp_path):
    """A precomputed Gram matrix in units of 1e-150 with ``probability=True``: the decision
    values are about 1e-150, so the sigmoid's slope ``probA_`` is about -1e150 (the fuzz,
    seed 15074: -1.17e150), which the save's bound of 1e100 refused. The slope may be any
    finite value (non-positive); the loaded model gives the same probabilities."""
    from unlabeled import PUSVC

    rng = np.random.default_rng(0)
    P = rng.normal(size=(60, 2))
    P[:20] += 2.0
    sq = (P**2).sum(1)
    K = np.exp(-np.maximum(sq[:, None] + sq[None, :] - 2 * P @ P.T, 0) / 2) * 1e-150
    s = np.r_[np.ones(15, int), np.zeros(45, int)]
    est = PUSVC(prior=0.4, kernel="precomputed", probability=True, random_state=0).fit(K, s)
    assert est.probA_[0] < -1e100
    unlabeled.save(est, tmp_path / "m.skops")
    back = unlabeled.load(tmp_path / "m.skops")
    np.testing.assert_array_equal(back.predict_proba(K), est.predict_proba(K))


@pytest.mark.parametrize(
    "entry", registered_params(lambda e: declares(e.load(), "standardize"), family="ssl")
)
def test_a_linear_model_of_tiny_features_saves(entry, tmp_path):
    """A linear kernel's w on X as given is w on the standardised features divided by the
    features' scales: 1e150 for features in units of 1e-150, refused by the save's bound of
    1e100 (found by the fuzz's save of every fit). The bound now holds on the standardised
    features: the model saves and loads, and a file whose w is past it there is refused."""
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(-1, 1, (20, 2)), rng.normal(1, 1, (20, 2))] * 1e-150
    y = np.r_[np.zeros(20, int), np.ones(20, int)]
    y[rng.permutation(40)[:24]] = -1
    est = entry.load()(kernel="linear").fit(X, y)
    assert np.abs(est.coef_).max() > 1e100
    unlabeled.save(est, tmp_path / "m.skops")
    back = unlabeled.load(tmp_path / "m.skops")
    np.testing.assert_array_equal(back.decision_function(X), est.decision_function(X))
    tampered = copy.deepcopy(est)
    tampered.coef_[0, 0] = 1e120 / est.scale_[0, 0]  # 1e120 on the standardised feature
    with pytest.raises(ModelFileError, match="standardised features"):
        unlabeled.save(tampered, tmp_path / "t.skops")
