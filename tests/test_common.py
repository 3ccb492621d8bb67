"""The common suite: every registered estimator (``unlabeled.registry``), each of its declared
cases, fitted on its family's data: its fit is transactional, its outputs are finite, its
probabilities are a distribution, ``unlabeled.save`` / ``unlabeled.load`` round-trip it
with identical outputs, the command line (``fit --estimator NAME``, in process) makes the
model the Python fit makes, and its prediction methods, called from 8 threads together on one
fitted model, return the serial results bit for bit and leave the model as it was (issue 44,
item 4: 1 of 400 concurrent ``PlummerAutoencoder.transform`` calls failed).

Nothing here names an estimator: a class joins by its ``@register`` line (tests/test_registry.py
runs these checks on a toy one). The cases' data and fitted models are shared with the model
files' tampering tests (tests/test_model_files_all.py)."""

from __future__ import annotations

import importlib.util
import inspect
import pickle
import sys
import threading
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.metrics.pairwise import rbf_kernel

import unlabeled
from unlabeled.registry import FAMILIES, Case, Entry, all_estimators

OUTPUTS = ("decision_function", "predict", "predict_proba", "transform", "inverse_transform")


def _data():
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(1, 1, (20, 2)), rng.normal(-1, 1, (20, 2))]
    y = np.r_[np.ones(20, int), np.zeros(20, int)]
    y_ssl = np.full(40, -1)
    y_ssl[:4], y_ssl[20:24] = 1, 0
    s = np.r_[np.ones(8, int), np.zeros(32, int)]
    bags = [X[i : i + 4] for i in range(0, 40, 4)]
    return X, y, y_ssl, s, bags, np.r_[np.ones(5, int), np.zeros(5, int)]


X, Y, Y_SSL, S, BAGS, Y_BAGS = _data()
X_CSR = sp.csr_matrix(np.where(np.abs(X) > 0.5, X, 0.0))
GRAM = rbf_kernel(X)
X_TEST = np.random.default_rng(1).normal(scale=2.0, size=(2000, 2))  # calls that overlap


def points(case: Case):
    """The case's points: dense, CSR or the Gram matrix."""
    return {"dense": X, "unlabeled": X, "sparse": X_CSR, "precomputed": GRAM}[case.data]


def _labels(family) -> np.ndarray:
    """The labels of the family's data, by what its label column holds (bags: per bag)."""
    return {"pu": S, "ssl": Y_SSL}.get(family.labels, Y_BAGS if family.keywords else Y)


def fit_args(entry: Entry, case: Case) -> tuple:
    """fit's arguments as the entry's family declares them, on its data (bags as a list of
    arrays, which needs no groups)."""
    family = FAMILIES[entry.family]
    if case.data == "unlabeled":
        return (points(case),)
    Xc = BAGS if family.keywords else points(case)
    data = {"X": Xc, "s": S, "y": _labels(family), "X_star": X[:, ::-1], "groups": None}
    return family.arguments(data)[0]


def compare_data(entry: Entry, case: Case):
    """The data its outputs are compared on (None: a class-prior estimator, which has none)."""
    if entry.family == "mil":
        return BAGS
    est = make(entry, case)
    if not any(hasattr(est, m) for m in OUTPUTS):
        return None
    return points(case)


def make(entry: Entry, case: Case):
    return entry.load()(**case.params)


def case_id(entry: Entry, case: Case) -> str:
    return f"{entry.name}-{case.name}" if case.name else entry.name


def cases(entries=None) -> dict[str, tuple[Entry, Case]]:
    """id -> (entry, case) for every registered estimator's cases, in the registry's order."""
    entries = all_estimators(load=True) if entries is None else entries
    return {case_id(e, c): (e, c) for e in entries for c in e.cases}


def params(table: dict) -> list:
    """pytest parameters: a case whose optional module is missing is skipped."""
    out = []
    for key, (entry, _) in table.items():
        missing = [m for m in entry.needs if importlib.util.find_spec(m) is None]
        marks = pytest.mark.skip(reason=f"needs {missing}") if missing else ()
        out.append(pytest.param(key, marks=marks, id=key))
    return out


CASES = cases()
_FITTED: dict[str, object] = {}


def fitted(key: str, table: dict | None = None):
    """The case fitted once per session (the toy's table is passed in)."""
    if key not in _FITTED or table is not None:
        entry, case = (table or CASES)[key]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = make(entry, case).fit(*fit_args(entry, case))
        if table is not None:
            return model
        _FITTED[key] = model
    return _FITTED[key]


def outputs(est, data) -> dict:
    if data is None:
        return {"prior_": est.prior_}
    out = {}
    for method in OUTPUTS:
        if method == "inverse_transform":
            if "transform" in out:
                out[method] = est.inverse_transform(out["transform"])
            continue
        try:
            fn = getattr(est, method)
        except AttributeError:
            continue
        out[method] = fn(data)
    return out


# ---------------------------------------------------------------------- the checks
def check_fit_is_transactional(entry, case, est):
    assert getattr(type(est).fit, "_transactional", False), entry.name


def check_outputs(entry, case, est):
    """Finite outputs; probabilities are rows of a distribution; predictions are classes."""
    out = outputs(est, compare_data(entry, case))
    assert out, f"{entry.name}: no outputs"
    for key, value in out.items():
        value = np.asarray(value)
        if value.dtype.kind in "fc":
            assert np.all(np.isfinite(value)), key
    if "predict_proba" in out:
        proba = np.asarray(out["predict_proba"])
        assert proba.ndim == 2 and np.all((proba >= 0) & (proba <= 1))
        np.testing.assert_allclose(proba.sum(axis=1), 1.0, atol=1e-9)
    if "predict" in out and hasattr(est, "classes_"):
        assert set(np.unique(out["predict"])) <= set(est.classes_)


def check_round_trip(entry, case, est, tmp_path):
    """save / load: the same class, parameters and outputs, bit for bit; probabilities kept
    wherever they exist (a plain method, or with probability=True)."""
    data = compare_data(entry, case)
    path = tmp_path / f"{case_id(entry, case)}.skops"
    unlabeled.save(est, path)
    back = unlabeled.load(path)
    assert type(back) is type(est) and back.get_params() == est.get_params()
    before, after = outputs(est, data), outputs(back, data)
    assert before and before.keys() == after.keys()
    for key, value in before.items():
        np.testing.assert_array_equal(after[key], value, err_msg=key)
    raw = inspect.getattr_static(type(est), "predict_proba", None)
    if (raw is not None and not hasattr(raw, "fn")) or getattr(est, "probability", False):
        assert "predict_proba" in before


N_THREADS, N_CALLS = 8, 6
#: the prediction methods, each called on the test data (inverse_transform on the codes)
METHODS = ("predict", "transform", "predict_proba", "predict_log_proba", "decision_function",
           "score_samples", "inverse_transform")  # fmt: skip


def thread_data(entry: Entry, case: Case):
    """Many test points (calls long enough to overlap), in the case's layout."""
    if entry.family == "mil":
        return [X_TEST[i : i + 5] for i in range(0, len(X_TEST), 5)]
    if case.data == "sparse":
        return sp.csr_matrix(X_TEST)
    return rbf_kernel(X_TEST, X) if case.data == "precomputed" else X_TEST


def prediction_calls(est, data) -> dict:
    """The prediction calls the estimator offers: name -> zero-argument function."""
    calls = {}
    for method in METHODS:
        if not hasattr(est, method):  # (probabilities only with probability=True)
            continue
        arg = est.transform(data) if method == "inverse_transform" else data
        calls[method] = (lambda f, a: lambda: f(a))(getattr(est, method), arg)
    if hasattr(est, "sample"):  # a generative model: its score and sampler are predictions too
        calls["score"] = lambda: est.score(data[:500])
        calls["sample"] = lambda: est.sample(300, random_state=0)
    return calls


def in_threads(call):
    """``call()`` N_CALLS times in each of N_THREADS threads started together: the results,
    or the first exception raised in a thread."""
    start = threading.Barrier(N_THREADS)
    results, errors = [], []

    def work():
        start.wait()
        try:
            for _ in range(N_CALLS):
                results.append(call())
        except BaseException as exc:  # noqa: BLE001 - re-raised in the main thread
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(N_THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    return results


def _as_array(value):
    if isinstance(value, list):  # BagTransformer: a list of bags
        return np.concatenate(value)
    return np.asarray(value)


def _torch_threads():
    torch = sys.modules.get("torch")
    return None if torch is None else torch.get_num_threads()


def check_threads_equal_serial(name, est, data):
    """Every prediction method from many threads at once: the serial result, the model
    unchanged, torch's thread count restored."""
    calls = prediction_calls(est, data)
    assert calls, f"{name} offers no prediction method"
    state, torch_threads = pickle.dumps(est), _torch_threads()
    for method, call in calls.items():
        serial = _as_array(call())
        results = in_threads(call)
        assert len(results) == N_THREADS * N_CALLS
        for got in results:
            np.testing.assert_array_equal(_as_array(got), serial, err_msg=f"{name}.{method}")
    assert pickle.dumps(est) == state, f"{name}: a prediction changed the fitted model"
    assert _torch_threads() == torch_threads  # the process's count restored


def check_threads(entry, case, est):
    if compare_data(entry, case) is None:  # a class-prior estimator: its result is prior_
        offered = [m for m in (*METHODS, "score", "sample") if hasattr(est, m)]
        assert not offered, f"{entry.name} now has {offered}: give it test data"
        return
    check_threads_equal_serial(case_id(entry, case), est, thread_data(entry, case))


def _csv(entry: Entry, path) -> tuple[list[str], tuple, dict]:
    """The family's data as a CSV file (floats by repr: the file holds X exactly), laid out
    as its declaration says: the command's options for it, fit's arguments on the same data,
    and fit's keywords."""
    family = FAMILIES[entry.family]
    bag = np.arange(len(X)) // 4
    y = _labels(family)[bag] if family.keywords else _labels(family)
    columns: dict = {"a": X[:, 0], "b": X[:, 1]}
    options: list[str] = []
    if "groups" in family.keywords:
        columns, options = {"bag": bag, **columns}, ["--bag-column", "bag"]
    if "X_star" in family.fit:
        columns.update(p1=X[:, 1], p2=X[:, 0])
        options += ["--privileged-columns", "p1,p2"]
    if family.labels is not None:
        columns["y"] = y
        options += ["--label-column", "y"]
    cells = [
        [repr(v) if isinstance(v, float) else str(v) for v in c.tolist()] for c in columns.values()
    ]
    rows = [list(columns), *map(list, zip(*cells, strict=True))]
    path.write_text("\n".join(",".join(r) for r in rows) + "\n")
    data = {"X": X, "s": S, "y": y, "X_star": X[:, ::-1], "groups": bag}
    args, kwargs = family.arguments(data)
    return options, args, kwargs


def _option(name: str, value) -> list[str]:
    option = "--" + name.replace("_", "-")
    if isinstance(value, bool):
        return [option if value else "--no-" + option[2:]]
    if isinstance(value, tuple):
        return [option, ",".join(map(str, value))]
    return [option, str(value)]


def check_cli_round_trip(entry, case, tmp_path):
    """``unlabeled fit --estimator NAME`` with the case's parameters as options, in process,
    makes the model that the Python fit makes on the same data; ``predict`` runs on it."""
    from unlabeled.cli import main

    if entry.command is None or case.data != "dense":
        return  # the command line reads dense files; precomputed kernels are not its
    data, model = tmp_path / "data.csv", tmp_path / "cli.skops"
    options, args, kwargs = _csv(entry, data)
    params = dict(case.params)
    if "random_state" in entry.load()._get_param_names():  # the same folds, starts, draws
        params.setdefault("random_state", 0)
    for name, value in params.items():
        options += _option(name, value)
    argv = ["fit", str(data), "--estimator", entry.command, *options, "-o", str(model), "-q"]
    assert main(argv) == 0, argv
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api = entry.load()(**params).fit(*args, **kwargs)
    back = unlabeled.load(model)
    assert type(back) is type(api)
    points = compare_data(entry, case)
    with warnings.catch_warnings():  # the file's model knows the CSV's column names
        warnings.filterwarnings("ignore", "X does not have valid feature names")
        before, after = outputs(api, points), outputs(back, points)
    assert before.keys() == after.keys()
    for key, value in before.items():
        np.testing.assert_allclose(after[key], value, rtol=1e-5, atol=1e-6, err_msg=key)
    assert main(["predict", str(model), str(data), "-q", "-o", str(tmp_path / "p.csv")]) == 0


def run_checks(entry, case, est, tmp_path) -> None:
    """Every check of the suite on one fitted case (the toy estimator's test calls it)."""
    check_fit_is_transactional(entry, case, est)
    check_outputs(entry, case, est)
    check_round_trip(entry, case, est, tmp_path)
    check_threads(entry, case, est)
    check_cli_round_trip(entry, case, tmp_path)


@pytest.mark.parametrize("key", params(CASES))
def test_common(key, tmp_path):
    entry, case = CASES[key]
    run_checks(entry, case, fitted(key), tmp_path)


def test_every_registered_estimator_has_a_case():
    assert {e.name for e in all_estimators()} == {e.name for e, _ in CASES.values()}
