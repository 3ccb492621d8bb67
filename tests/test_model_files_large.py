"""Model files of any size: every model file that ``unlabeled.save`` writes loads, whatever
the model's size (the format keeps a few zip members, not one per number or layer, and the
loader's member limit follows from the class's declarations); the work a file can cause is
bounded by its own size before anything is built; the autoencoder's earlier torch records are
checked as model files are."""

from __future__ import annotations

import copy
import io
import json
import zipfile

import numpy as np
import pytest
import skops.io
from test_common import CASES, fitted, params
from test_model_files_all import _has_torch, _rewrite

import unlabeled
from unlabeled import CLSST, PUSVC, PlummerAutoencoder, WellSVMClustering
from unlabeled.exceptions import ModelFileError
from unlabeled.model_io import member_limit, model_bytes

RNG = np.random.default_rng(0)
CENTERS = RNG.normal(0, 20, (30, 3))
X_MANY = np.repeat(CENTERS, 8, 0) + RNG.normal(0, 0.5, (240, 3))  # 30 clusters


PAE_SKIP = pytest.mark.skipif(not _has_torch(), reason="the autoencoder needs torch")


def _members(raw: bytes) -> int:
    with zipfile.ZipFile(io.BytesIO(raw)) as zf:
        return len(zf.namelist())


def _pae(hidden, **kw):
    return PlummerAutoencoder(
        hidden_layer_sizes=hidden,
        max_iter=3,
        batch_size=20,
        device="cpu",
        random_state=0,
        n_jobs=1,
        **kw,
    )


def _large(name):
    """(a small model, the largest of its kind that a test affords, data to predict on)."""
    s = (RNG.random(1500) < 0.2).astype(int)
    X2 = RNG.normal(size=(1500, 2))
    if name == "CLSST":  # 30 components, a history of hundreds of sweeps
        small = CLSST(n_components=2, n_factors=1, max_iter=5, random_state=0).fit(X_MANY[:40])
        big = CLSST(n_components=30, n_factors=1, max_iter=200, random_state=0).fit(X_MANY)
        assert big.n_components_ == 30 and len(big.lower_bound_history_) > 300
        return small, big, X_MANY
    if name == "PUSVC":  # over 1,000 support vectors
        small = PUSVC(0.3).fit(X2[:40], s[:40])
        big = PUSVC(0.3, gamma=50.0).fit(X2, s)
        assert big.support_.size > 1000
        return small, big, X2
    if name == "WellSVMClustering":  # many labelings
        small = WellSVMClustering(random_state=0).fit(X2[:30])
        big = WellSVMClustering(random_state=0, max_iter=50).fit(X2[:300])
        return small, big, X2[:300]
    if name == "PlummerAutoencoder-deep":  # 41 layers a network
        return _pae((8,)).fit(X_MANY), _pae((16,) * 40).fit(X_MANY), X_MANY
    # wide, with the inverse scaling of a linear output and a sigmoid output
    return _pae((8,)).fit(X_MANY), _pae((600, 300), out_activation="sigmoid").fit(X_MANY), X_MANY


LARGE = [  # registry: the estimators whose models grow with the data, each built by _large
    "CLSST",
    "PUSVC",
    "WellSVMClustering",
    pytest.param("PlummerAutoencoder-deep", marks=PAE_SKIP),
    pytest.param("PlummerAutoencoder-wide", marks=PAE_SKIP),
]


@pytest.mark.parametrize("name", LARGE)
def test_largest_models_round_trip_in_as_many_members_as_small_ones(name, tmp_path):
    """Item 0: the file of a large model loads and predicts the same; it has the members of a
    small model of its class (no member per number, component or layer)."""
    small, big, data = _large(name)
    path = tmp_path / "big.skops"
    unlabeled.save(big, path)
    back = unlabeled.load(path)
    method = "transform" if name.startswith("Plummer") else "predict"
    np.testing.assert_array_equal(getattr(back, method)(data), getattr(big, method)(data))
    if name == "CLSST":
        np.testing.assert_array_equal(back.predict_proba(data), big.predict_proba(data))
        assert back.lower_bound_history_ == big.lower_bound_history_
    assert _members(path.read_bytes()) == _members(model_bytes(small, {}))
    assert _members(path.read_bytes()) <= member_limit(type(big))


def _format_1(est, tmp_path) -> bytes:
    """A file as format 1 wrote it: skops's own form of the saved model, every NumPy scalar
    a member."""
    unlabeled.save(est, tmp_path / "saved.skops")
    saved = unlabeled.load(tmp_path / "saved.skops")  # as a file keeps it (no transients)
    saved.lower_bound_history_ = list(map(np.float64, saved.lower_bound_history_))
    raw = skops.io.dumps(saved)
    record = {
        "format": "unlabeled-model",
        "format_version": 1,
        "unlabeled_version": unlabeled.__version__,
        "estimator": f"{type(est).__module__}.{type(est).__qualname__}",
    }
    return _rewrite(raw, {"unlabeled.json": json.dumps(record)})


def test_format_1_file_of_a_long_fit_loads(tmp_path):
    """Item 0's file: a CLSST whose history of 4,800 sweeps format 1 wrote as 4,800 members
    (refused before: "more than a model file has (at most 1000)") loads, and saved again it
    has a few members."""
    est = CLSST(n_components=2, n_factors=1, max_iter=5, random_state=0).fit(X_MANY[:40])
    est.lower_bound_history_ = [np.float64(-100.0 + i / 1000) for i in range(4800)]
    path = tmp_path / "old.skops"
    path.write_bytes(_format_1(est, tmp_path))
    assert _members(path.read_bytes()) > 4800
    back = unlabeled.load(path)
    assert back.lower_bound_history_ == est.lower_bound_history_
    np.testing.assert_array_equal(back.predict_proba(X_MANY), est.predict_proba(X_MANY))
    unlabeled.save(back, path)
    assert _members(path.read_bytes()) < 30


#: every registered estimator's first case of the common suite (tests/test_common.py)
FIRST_CASES = {key: (e, case) for key, (e, case) in CASES.items() if case == e.cases[0]}


@pytest.mark.parametrize("key", params(FIRST_CASES))
def test_more_members_than_the_class_makes_refused(key, tmp_path):
    """The limit follows from the class: a file at its class's limit loads, one member more
    is refused (format 2, and format 1 for a class without list attributes)."""
    name, est = FIRST_CASES[key][0].name, fitted(key)
    path = tmp_path / "m.skops"
    unlabeled.save(est, path)
    raw = path.read_bytes()
    limit = member_limit(type(est))
    assert limit < 1000
    fill = limit - _members(raw)
    path.write_bytes(_rewrite(raw, {f"extra{i}": b"" for i in range(fill)}))
    unlabeled.load(path)
    path.write_bytes(_rewrite(raw, {f"extra{i}": b"" for i in range(fill + 1)}))
    with pytest.raises(ModelFileError, match=f"more than a model file of a {name} has"):
        unlabeled.load(path)


def test_array_header_declaring_more_than_the_member_holds_refused(tmp_path):
    """A member of a few bytes whose header declares a terabyte is refused from its header,
    before NumPy allocates it."""
    est = PUSVC(0.3).fit(X_MANY[:40], (np.arange(40) < 10).astype(int))
    raw = model_bytes(est, {})
    with zipfile.ZipFile(io.BytesIO(raw)) as zf:
        member = next(n for n in zf.namelist() if n.endswith(".npy"))
    buf = io.BytesIO()
    header = {"descr": "<f8", "fortran_order": False, "shape": (125000000000,)}
    np.lib.format.write_array_header_1_0(buf, header)
    forged = buf.getvalue() + bytes(8)  # one number where the header declares a terabyte
    path = tmp_path / "m.skops"
    path.write_bytes(_rewrite(raw, {member: forged}))
    with pytest.raises(ModelFileError, match=r"declares an array of shape \(125000000000,\)"):
        unlabeled.load(path)


# ---------------------------------------------------------------------- item 1
@pytest.fixture(scope="module")
def pae():
    pytest.importorskip("torch")
    return _pae((8,)).fit(X_MANY)


@pytest.fixture
def linear_sizes(monkeypatch):
    """The (in, out) sizes of every torch Linear layer constructed; a large one is refused
    before its weights are allocated (a test that fails does not take gigabytes)."""
    import torch

    made = []
    init = torch.nn.Linear.__init__

    def spy(self, a, b, *args, **kw):
        made.append((a, b))
        if a * b > 10**6:
            raise RuntimeError("a large Linear layer was built")
        init(self, a, b, *args, **kw)

    monkeypatch.setattr(torch.nn.Linear, "__init__", spy)
    return made


@pytest.mark.parametrize("hidden", [(20000, 20000), (60000, 60000), (8, 8), (9,)])
def test_autoencoder_file_with_edited_sizes_refused_before_building(
    pae, linear_sizes, tmp_path, hidden
):
    est = copy.deepcopy(pae)
    est.hidden_layer_sizes = hidden  # the file's parameter edited, its weights kept
    path = tmp_path / "m.skops"
    path.write_bytes(model_bytes(est, {}))
    linear_sizes.clear()  # (the copy above rebuilt the small networks)
    with pytest.raises(ModelFileError, match="does not match the model's parameters"):
        unlabeled.load(path)
    assert linear_sizes == []  # nothing was built


def test_autoencoder_packed_weights_that_disagree_with_their_shapes_refused(pae, tmp_path):
    state = pae.__getstate__()
    for change in (
        lambda w: w.__setitem__("weights", w["weights"][:-1]),
        lambda w: w.__setitem__("shapes", [[10**6, 10**6]] + w["shapes"][1:]),
        lambda w: w.__setitem__("names", w["names"][:-1]),
    ):
        packed = copy.deepcopy(state["decoder_"])
        change(packed)
        est = copy.deepcopy(pae)
        est.decoder_ = packed
        path = tmp_path / "m.skops"
        path.write_bytes(model_bytes(est, {}))
        with pytest.raises(ModelFileError, match="decoder_"):
            unlabeled.load(path)


# ---------------------------------------------------------------------- item 6
def _record(pae, **changes):
    import torch

    record = {
        "format": "unlabeled-pae",
        "version": 1,
        "config": json.dumps(pae.get_params()),
        "n_features_in": pae.n_features_in_,
        "encoder": {k: v.clone() for k, v in pae.encoder_.state_dict().items()},
        "decoder": {k: v.clone() for k, v in pae.decoder_.state_dict().items()},
        "history": torch.as_tensor(
            np.stack([pae.loss_history_, pae.reconstruction_history_, pae.mmd_history_])
        ),
    }
    for key, value in changes.items():
        if value is _DROP:
            del record[key]
        elif callable(value):
            record[key] = value(record[key])
        else:
            record[key] = value
    return record


_DROP = object()


def _cases():
    import torch

    def config(**kw):
        return lambda c: json.dumps({**json.loads(c), **kw})

    def enc(key, value):
        return lambda e: {**e, key: value(e[key]) if callable(value) else value}

    cases = {
        f"no {k}": {k: _DROP}
        for k in ("version", "config", "n_features_in", "encoder", "decoder", "history")
    }
    cases.update(
        {
            "extra key": {"payload": torch.zeros(2)},
            "version 2": {"version": 2},
            "version a string": {"version": "1"},
            "n_features_in a bool": {"n_features_in": True},
            "n_features_in a tensor": {"n_features_in": torch.tensor(3)},
            "n_features_in wrong": {"n_features_in": 4},
            "config not JSON": {"config": "{"},
            "config a list": {"config": "[1, 2]"},
            "config without lam": {
                "config": lambda c: json.dumps(
                    {k: v for k, v in json.loads(c).items() if k != "lam"}
                )
            },
            "config extra": {"config": config(extra=1)},
            "config huge layers": {"config": config(hidden_layer_sizes=[20000, 20000])},
            "config bad lam": {"config": config(lam=-1.0)},
            "history short": {"history": lambda h: h[:2]},
            "history 1-d": {"history": lambda h: h[0]},
            "history NaN": {"history": lambda h: h * float("nan")},
            "history inf": {"history": lambda h: h + float("inf")},
            "history ints": {"history": lambda h: h.long()},
            "history a list": {"history": lambda h: h.tolist()},
            "history strided": {
                "history": lambda h: torch.zeros(1, dtype=h.dtype).expand(3, 10**7)
            },
            "encoder a tensor": {"encoder": torch.zeros(3)},
            "encoder key missing": {"encoder": lambda e: {k: e[k] for k in list(e)[:-1]}},
            "encoder wrong shape": {"encoder": enc("1.weight", lambda w: w[:, :1].clone())},
            "encoder NaN": {"encoder": enc("1.weight", lambda w: w * float("nan"))},
            "encoder ints": {"encoder": enc("1.weight", lambda w: w.long())},
            "encoder strided": {
                "encoder": enc("1.weight", lambda w: torch.zeros(1).expand(*w.shape))
            },
            "encoder key not a string": {"encoder": lambda e: {**e, 3: torch.zeros(1)}},
        }
    )
    return cases


@PAE_SKIP
def test_autoencoder_malformed_torch_records_refused(pae, tmp_path, linear_sizes):
    """Item 6: every malformed record of the earlier format ends in a ModelFileError naming
    what is wrong (never a raw KeyError, IndexError, nor a NaN history loaded)."""
    import torch

    path = tmp_path / "old.pt"
    torch.save(_record(pae), path)
    back = PlummerAutoencoder.load(path, device="cpu")  # the unchanged record loads
    np.testing.assert_array_equal(back.transform(X_MANY), pae.transform(X_MANY))
    np.testing.assert_array_equal(back.loss_history_, pae.loss_history_)
    linear_sizes.clear()
    outcomes = {}
    for what, changes in _cases().items():
        torch.save(_record(pae, **changes), path)
        try:
            PlummerAutoencoder.load(path, device="cpu")
            outcomes[what] = "loaded"
        except ModelFileError as exc:
            outcomes[what] = "refused" if str(exc).strip() else "no message"
        except Exception as exc:  # noqa: BLE001 - what the test reports
            outcomes[what] = f"{type(exc).__name__}: {exc}"
    assert {k: v for k, v in outcomes.items() if v != "refused"} == {}
    assert max((a * b for a, b in linear_sizes), default=0) <= 8 * 8  # nothing large built
