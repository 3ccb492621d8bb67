"""Issue 35, the kernel machines: each cause found by the hostile-user run has its regression
test here (every one failed on the code before its fix). Predictions finite or refused, the
LapSVM graph independent of layout and row order, MISVM's model on instances, the CSV reader
strict about field counts, memory checked before the work, errors that name the argument,
bounded work, and MISVM's degenerate local solutions reported."""

import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

import unlabeled
from unlabeled import (
    MISVM,
    PUSVC,
    TSVM,
    LabeledSVM,
    LapSVM,
    MILWellSVM,
    WellSVM,
    WellSVMClustering,
    miSVM,
)
from unlabeled.datasets import load_csv
from unlabeled.exceptions import InvalidParameterError, MemoryBudgetError


def _ssl_data(n=40, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    truth = (X[:, 0] > 0).astype(int)
    y = np.full(n, -1)
    lab = np.r_[np.flatnonzero(truth == 0)[:3], np.flatnonzero(truth == 1)[:3]]
    y[lab] = truth[lab]
    return X, y, truth


def _bags(n_bags=12, seed=0, shift=3.0):
    rng = np.random.default_rng(seed)
    bags = [rng.normal(size=(3, 2)) for _ in range(n_bags)]
    for b in bags[: n_bags // 2]:
        b[0] += shift
    return bags, np.repeat([1, 0], n_bags // 2)


# ---------------------------------------------------------------- 1. far test points, poly
def _fitted_poly():
    X, y, truth = _ssl_data()
    bags, yb = _bags()
    return [
        (LabeledSVM(kernel="poly").fit(X, y), X),
        (TSVM(kernel="poly").fit(X, y), X),
        (LapSVM(kernel="poly").fit(X, y), X),
        (WellSVM(kernel="poly").fit(X, y), X),
        (MISVM(kernel="poly").fit(bags, yb), bags),
        (miSVM(kernel="poly").fit(bags, yb), bags),
        (MILWellSVM(kernel="poly").fit(bags, yb), bags),
        (WellSVMClustering(kernel="poly", random_state=0).fit(X), X),
        (PUSVC(kernel="poly", prior=0.5).fit(X, truth * (np.arange(len(X)) < 20)), X),
    ]


@pytest.mark.filterwarnings("ignore")
def test_far_test_points_are_refused_not_nan():
    """x * 1e150 gave NaN decision values and arbitrary predictions in eight estimators; the
    preflight of fit now runs on the test points too: an error naming X and the fix."""
    for est, data in _fitted_poly():
        far = [b * 1e150 for b in data[:2]] if isinstance(data, list) else data[:3] * 1e150
        name = type(est).__name__
        with pytest.raises(ValueError, match=r"X is too large in scale .*Rescale") as info:
            est.decision_function(far)
        assert "poly" in str(info.value), name
        with pytest.raises(ValueError, match="X is too large in scale"):
            est.predict(far)
        near = [b * 10 for b in data[:2]] if isinstance(data, list) else data[:3] * 10
        assert np.all(np.isfinite(est.decision_function(near))), name


@pytest.mark.filterwarnings("ignore")
def test_poly_overflow_below_the_norm_bound_is_refused():
    """||x||^2 within the bound but (gamma ||x||^2 + |coef0|)^degree beyond it: refused too."""
    X, y, _ = _ssl_data()
    est = LabeledSVM(kernel="poly", degree=20, gamma=1.0).fit(X, y)
    with pytest.raises(ValueError, match=r"k\(x, x\) = .* for row 0"):
        est.decision_function(X[:2] * 1e4)


@pytest.mark.filterwarnings("ignore")
def test_rbf_and_linear_far_points_finite():
    X, y, _ = _ssl_data()
    rbf = LabeledSVM().fit(X, y)
    with pytest.raises(ValueError, match="X is too large in scale for the rbf kernel"):
        rbf.decision_function(X[:2] * 1e150)
    assert np.all(np.isfinite(rbf.decision_function(X[:2] * 1e40)))
    lin = LabeledSVM(kernel="linear").fit(X, y)
    assert np.all(np.isfinite(lin.decision_function(X[:2] * 1e150)))
    with pytest.raises(ValueError, match="non-finite decision value"):
        lin.decision_function(np.full((1, 2), 1.7e308))


# ---------------------------------------------------------------- 2. LapSVM's graph
def _grid():
    """Points of a grid, no two identical: many exact ties among the distances, which the
    k-NN graph breaks (by distance, then by the points' contents, then index)."""
    return np.array([[i, j] for i in range(7) for j in range(6)], dtype=float) + 0.5


def _grid_labels(n):
    y = np.full(n, -1)
    y[[0, 1, 2]] = 0
    y[[-1, -2, -3]] = 1
    return y


@pytest.mark.parametrize("k", [3, 5, 6])
def test_lapsvm_permuted_rows_give_the_permuted_model(k):
    """The same points in another order: the same graph (permuted), so the same model. The
    old graph (scikit-learn's kneighbors_graph) broke ties by row order: other models."""
    X = _grid()
    y = _grid_labels(len(X))
    P = np.random.default_rng(3).permutation(len(X))
    a = LapSVM(gamma=0.3, gamma_I=50.0, n_neighbors=k).fit(X, y)
    b = LapSVM(gamma=0.3, gamma_I=50.0, n_neighbors=k).fit(X[P], y[P])
    np.testing.assert_allclose(b.decision_function(X), a.decision_function(X), atol=1e-8)
    np.testing.assert_array_equal(b.transduction_, a.transduction_[P])


def test_lapsvm_model_independent_of_layout():
    X = _grid()
    y = _grid_labels(len(X))
    a = LapSVM(gamma=0.3, gamma_I=50.0, n_neighbors=4).fit(X, y)
    for other in (np.asfortranarray(X), np.repeat(X, 2, axis=1)[:, ::2]):
        b = LapSVM(gamma=0.3, gamma_I=50.0, n_neighbors=4).fit(other, y)
        np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))


def test_lapsvm_graph_is_the_knn_graph_without_ties():
    """On points without ties the graph is scikit-learn's symmetrised k-NN graph: the model
    equals one built on it (gamma_I = 0 would hide it; here the graph term dominates)."""
    X = np.random.default_rng(1).normal(size=(50, 3))
    y = np.full(50, -1)
    y[:3], y[3:6] = 0, 1
    a = LapSVM(gamma=0.3, gamma_I=50.0).fit(X, y)
    b = LapSVM(gamma=0.3, gamma_I=50.0).fit(sp.csr_matrix(X), y)
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(X), atol=1e-9)


# ---------------------------------------------------------------- 3. MISVM at its cap
@pytest.mark.filterwarnings("ignore")
def test_misvm_stopped_at_its_cap_keeps_instances_in_support(tmp_path):
    """max_iter=1 left the centroids' rows (indices beyond the instances) in support_."""
    bags, y = _bags()
    n = sum(len(b) for b in bags)
    est = MISVM(max_iter=1).fit(bags, y)
    assert est.support_.max() < n and est.shape_fit_[0] == n
    assert np.all(est.witnesses_ < n)
    X = np.vstack(bags)
    np.testing.assert_array_equal(est.support_vectors_, X[est.support_])
    unlabeled.save(est, tmp_path / "misvm.model")  # its model file passes the checks
    loaded = unlabeled.load(tmp_path / "misvm.model")
    np.testing.assert_array_equal(loaded.predict(bags), est.predict(bags))


# ---------------------------------------------------------------- 4. CSV field counts
def test_csv_line_with_an_extra_field_is_refused(tmp_path):
    path = tmp_path / "data.csv"
    path.write_text("1,2,0\n3,4,1\n5,6,7,1\n")
    with pytest.raises(ValueError, match=r"line 3: 4 fields, expected 3"):
        load_csv(path)
    path.write_text("a,b,label\n1,2,0\n3,4,9,1\n")
    with pytest.raises(ValueError, match=r"line 3: 4 fields, expected 3"):
        load_csv(path, label_column="label")
    path.write_text('1,"2",0\n\n3,4,1\n')  # quotes and blank lines stay accepted
    X, y = load_csv(path)
    np.testing.assert_array_equal(X, [[1, 2], [3, 4]])
    np.testing.assert_array_equal(y, [0, 1])


def test_cli_csv_reader_refuses_an_extra_field(tmp_path, capsys):
    from unlabeled.cli import main

    path = tmp_path / "data.csv"
    rows = "\n".join(f"{i % 3},{i % 5},{int(i % 2)}" for i in range(20))
    path.write_text("x,y,s\n" + rows + "\n1,2,3,1\n")
    code = main(["fit", str(path), "-o", str(tmp_path / "m.skops"), "--prior", "0.4"])
    assert code != 0
    assert "line 22 has 4 fields, expected 3" in capsys.readouterr().err


# ---------------------------------------------------------------- 5. memory
def test_lapsvm_budget_counts_its_peak():
    """LapSVM's peak is five n x n matrices (40 n^2 bytes), not three."""
    X, y, _ = _ssl_data(n=60)
    with unlabeled.config_context(max_dense_bytes=40 * 60**2 - 1):
        with pytest.raises(MemoryBudgetError, match=r"LapSVM is a dense method.*max_dense_bytes"):
            LapSVM().fit(X, y)
    with unlabeled.config_context(max_dense_bytes=40 * 60**2):
        LapSVM().fit(X, y)


def test_milwellsvm_budget_counts_both_kernels():
    """The q x q mixed kernel was not counted: a budget between the two counts let the fit
    run (and on a machine without the memory, fail with a raw MemoryError after the work)."""
    bags, y = _bags(n_bags=10)
    n = 30
    q = 5 + 15  # one variable per positive bag, one per negative instance
    with unlabeled.config_context(max_dense_bytes=8 * (n**2 + q**2) - 1):
        with pytest.raises(MemoryBudgetError, match=r"30 x 30 instance kernel and a 20 x 20"):
            MILWellSVM().fit(bags, y)
    with unlabeled.config_context(max_dense_bytes=8 * (n**2 + q**2)):
        MILWellSVM().fit(bags, y)


def _huge_sparse(d, n=30, seed=0):
    rng = np.random.default_rng(seed)
    cols = rng.integers(0, 4, n).astype(np.int64)
    cols[0] = d - 1
    return sp.csr_matrix((rng.normal(size=n) + 3, (np.arange(n), cols)), shape=(n, d))


@pytest.mark.parametrize("which", ["LabeledSVM", "TSVM", "WellSVM", "MISVM", "WellSVMClustering"])
def test_huge_sparse_feature_index_is_refused_before_the_work(which):
    """A CSR matrix declaring 2**31 - 2 columns: the linear paths allocated dense vectors of
    that length (bad_alloc, or the OS killing the process); now MemoryBudgetError naming the
    budget. Run in a process with an address-space limit, so that a regression fails rather
    than exhausting the machine."""
    code = textwrap.dedent(f"""
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (4 * 2**30, 4 * 2**30))
        import numpy as np, scipy.sparse as sp, unlabeled
        from unlabeled.exceptions import MemoryBudgetError
        rng = np.random.default_rng(0)
        n, d = 30, 2**31 - 2
        cols = rng.integers(0, 4, n).astype(np.int64); cols[0] = d - 1
        X = sp.csr_matrix((rng.normal(size=n) + 3, (np.arange(n), cols)), shape=(n, d))
        y = np.full(n, -1); y[:3] = 0; y[3:6] = 1
        try:
            if "{which}" == "MISVM":
                ids = np.arange(n) // 3
                unlabeled.MISVM(kernel="linear").fit(X, ids % 2, groups=ids)
            elif "{which}" == "WellSVMClustering":
                unlabeled.WellSVMClustering(kernel="linear", cache_size=0.001).fit(X)
            else:
                unlabeled.{which}(kernel="linear", cache_size=0.001).fit(X, y)
        except MemoryBudgetError as exc:
            print("refused:", exc)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-800:]
    assert "refused:" in out.stdout and "2,147,483,646" in out.stdout, out.stdout
    assert "unlabeled.set_config(max_dense_bytes=...)" in out.stdout


def test_linear_solver_checks_its_weight_vectors():
    """Past the fit's first check, each product with T label vectors (WellSVMClustering's
    alignment start scores n_init of them at once: d x n_init dense) is checked too."""
    X = _huge_sparse(2**20)
    with unlabeled.config_context(max_dense_bytes=8 * 2**20 * 5):
        with pytest.raises(MemoryBudgetError, match=r"20 dense weight vector\(s\)"):
            WellSVMClustering(kernel="linear", cache_size=0.001, n_init=20,
                              init="alignment").fit(X)  # fmt: skip


# ---------------------------------------------------------------- 6. errors that help
@pytest.mark.parametrize(
    "make", [WellSVM, TSVM, LabeledSVM, WellSVMClustering, MISVM, miSVM, MILWellSVM]
)
def test_cache_size_is_bounded(make):
    X, y, _ = _ssl_data()
    with pytest.raises(InvalidParameterError, match=r"cache_size must be <= 1000000.0"):
        est = make(cache_size=1e300)
        if make in (MISVM, miSVM, MILWellSVM):
            est.fit(*_bags())
        elif make is WellSVMClustering:
            est.fit(X)
        else:
            est.fit(X, y)


def test_squared_hinge_on_an_indefinite_kernel_names_the_kernel_and_fix():
    rng = np.random.default_rng(0)
    A = rng.normal(size=(30, 30))
    K = (A + A.T) / 2
    y = np.full(30, -1)
    y[:3], y[3:6] = 0, 1
    est = WellSVM(kernel="precomputed", loss="squared_hinge")
    with pytest.raises(ValueError, match=r"positive semi-definite.*precomputed.*loss='hinge'"):
        est.fit(K, y)
    assert not hasattr(est, "support_")


BAD_BAGS = [
    ([np.array([["a", "b"]]), np.ones((1, 2))], r"bag 0 of X holds 'a' \(str\)"),
    ([[[1, 2], [3, "x"]], [[1.0, 2.0]]], r"bag 0 of X holds 'x'"),
    ([np.array([[1, None]], dtype=object), np.ones((1, 2))], r"bag 0 of X holds None"),
    ([np.array([[1 + 2j, 2]]), np.ones((1, 2))], r"bag 0 of X holds complex numbers"),
    ([np.ones((1, 2)), [[1.0, 2.0], [3.0]]], r"bag 1 of X is not a 2-D array: its rows"),
    ([np.ones((1, 2)), {"a": 1}], r"bag 1 of X holds \{'a': 1\} \(dict\)"),
]


@pytest.mark.parametrize("bags, message", BAD_BAGS)
def test_bag_contents_of_the_wrong_kind(bags, message):
    for est in (MISVM(), MILWellSVM()):
        with pytest.raises(ValueError, match=message):
            est.fit(bags, [1, 0])


def _object(values):
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


BAD_GROUPS = [
    (_object([[1], [1], [2], [2]]), r"groups holds \[1\] \(list\) at row 0"),
    ([{"a"}, {"a"}, {"b"}, {"b"}], r"groups holds \{'a'\} \(set\) at row 0"),
    ([1, None, 2, 2], r"groups holds None \(NoneType\) at row 1"),
    ([1.0, np.nan, 2.0, 2.0], r"groups holds .*nan.* at row 1: bag ids must be finite"),
    (_object([1, "a", 2, 2]), r"groups mixes integer and string bag ids"),
    ([1 + 1j, 1, 2, 2], r"groups must be a 1-d array of bag ids .*Complex"),
]


@pytest.mark.parametrize("groups, message", BAD_GROUPS)
def test_group_contents_of_the_wrong_kind(groups, message):
    X = np.random.default_rng(0).normal(size=(4, 2))
    with pytest.raises(ValueError, match=message):
        MISVM().fit(X, [1, 1, 0, 0], groups=groups)


def test_instance_features_of_the_wrong_kind():
    with pytest.raises(ValueError, match=r"X holds 'a' \(str\)"):
        MISVM().fit(np.array([["a", "b"], ["1", "2"]]), [1, 0], groups=[0, 1])


# ---------------------------------------------------------------- 8. MISVM's collapse
def _collapse_fold():
    from sklearn.model_selection import GroupKFold

    rng = np.random.default_rng(0)
    bags = [rng.normal(0, 1, (5, 2)) for _ in range(40)]
    for i in range(20):
        bags[i][0] += 4
    y = np.repeat(np.r_[np.ones(20, int), np.zeros(20, int)], 5)
    X, groups = np.vstack(bags), np.repeat(np.arange(40), 5)
    train, _ = list(GroupKFold(4).split(X, y, groups))[3]
    return X[train], y[train], groups[train]


def test_misvm_warns_when_every_training_bag_is_one_class():
    """The easy problem of issue 35, fold 4: MISVM's defaults end at the constant negative
    model (bag accuracy 0.5, like its centroid start). The defaults stay (issue 33); the fit
    says so, and what to try."""
    X, y, groups = _collapse_fold()
    with pytest.warns(UserWarning, match=r"MISVM classifies every training bag as negative.*C"):
        est = MISVM().fit(X, y, groups=groups)
    assert est.score(X, y, groups=groups) == 0.5
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a model that separates the bags: no warning
        assert MISVM(gamma=1.0).fit(X, y, groups=groups).score(X, y, groups=groups) == 1.0


# ---------------------------------------------------------------- 7. bounded work
def _unreachable_tol_fits():
    X, y, _ = _ssl_data(n=60)
    bags, yb = _bags(n_bags=40, shift=1.0)
    return [
        ("TSVM", lambda: TSVM(kernel="linear", cache_size=0.001, tol=1e-300).fit(X, y)),
        (
            "WellSVM",
            lambda: WellSVM(init="alignment", tol=1e-300, random_state=0, loss="hinge").fit(X, y),
        ),
        ("miSVM", lambda: miSVM(tol=1e-300).fit(bags, yb)),
        ("MISVM", lambda: MISVM(tol=1e-300).fit(bags, yb)),
        ("WellSVMClustering", lambda: WellSVMClustering(tol=1e-300, random_state=0).fit(X)),
        ("MILWellSVM", lambda: MILWellSVM(tol=1e-300).fit(bags, yb)),
    ]


@pytest.mark.parametrize("index", range(6))
def test_unreachable_tolerance_stops_at_the_work_cap(index):
    """tol=1e-300 made every SVM solve run to its cap on steps, and the loops around them
    (up to 1000 TSVM solves, 50 x 100 MKL solves) ran each one: minutes to hours. The fit now
    stops after a few capped solves, with a ConvergenceWarning that names tol (the per-solve
    cap lowered here, so that the test is fast)."""
    from sklearn.exceptions import ConvergenceWarning

    name, fit = _unreachable_tol_fits()[index]
    with unlabeled.config_context(min_default_max_iter=2000):
        with pytest.warns(
            ConvergenceWarning, match=rf"{name} stopped early: 3 SVM solves .*tol=1e-300"
        ):
            est = fit()
    assert est.n_iter_ <= 4


def test_string_features_name_x_and_the_fix():
    """NumPy's "could not convert string to float" named neither X nor what to do."""
    X = np.array([["a", "b"], ["c", "d"], ["1", "2"], ["3", "4"]])
    y = [0, 1, -1, -1]
    with pytest.raises(ValueError, match=r"X holds 'a' \(str\): the features must be numbers"):
        LabeledSVM().fit(X, y)
    est = LabeledSVM().fit(np.array([[0.0, 1.0], [1.0, 0.0], [1.0, 1.0], [2.0, 2.0]]), y)
    with pytest.raises(ValueError, match=r"X holds 'x' \(str\)"):
        est.predict(np.array([["x", "1"]]))
    with pytest.raises(ValueError, match=r"X holds 'b' \(str\)"):
        WellSVMClustering().fit(np.array([["1", "b"], ["2", "3"]]))


@pytest.mark.parametrize("form", ["list", "object", "frame"])
def test_text_in_lists_object_arrays_and_frames_names_x(form):
    """Issue 44: text in a list, an object array or a DataFrame reached NumPy's raw "could
    not convert string to float" (only arrays of strings were checked)."""
    import pandas as pd

    rows = [[0.0, 1.0], [1.0, "high"], [1.0, 1.0], [2.0, 2.0]]
    X = {"list": rows, "object": np.array(rows, dtype=object), "frame": pd.DataFrame(rows)}[form]
    with pytest.raises(ValueError, match=r"X holds 'high' \(str\): the features must be"):
        LabeledSVM().fit(X, [0, 1, -1, -1])
    numeric = [[0.0, 1.0], [1.0, "0.5"], [1.0, 1.0], [2.0, 2.0]]  # text that reads as numbers
    assert LabeledSVM().fit(numeric, [0, 1, -1, -1]).predict(numeric).shape == (4,)


def test_clustering_start_bounded_in_memory_and_work():
    """n_init=10**6 stacked n x 10^6 labels and their products and ran for minutes: now at
    most 10,000 labelings, scored in chunks (the default 20 in one, as before)."""
    X, _, _ = _ssl_data(n=60)
    with pytest.raises(InvalidParameterError, match=r"n_init must be <= 10000"):
        WellSVMClustering(n_init=10**6).fit(X)
    a = WellSVMClustering(n_init=150, random_state=0).fit(X)  # three chunks of candidates
    b = WellSVMClustering(n_init=150, random_state=0).fit(X)
    np.testing.assert_array_equal(a.label_vectors_[:, 0], b.label_vectors_[:, 0])
    assert set(np.unique(a.labels_)) <= {0, 1}


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("kernel_plus", ["poly", "rbf"])
def test_svmplus_far_points_refused_on_both_spaces(kernel_plus):
    """SVMPlus's decision_function has the base's preflight; its correcting_function on far
    privileged points (x* * 1e150) gave NaN: refused, naming X_star."""
    from unlabeled import SVMPlus

    rng = np.random.default_rng(0)
    X, Z = rng.normal(size=(40, 2)), rng.normal(size=(40, 2))
    est = SVMPlus(kernel="poly", kernel_plus=kernel_plus).fit(X, (X[:, 0] > 0).astype(int), Z)
    with pytest.raises(ValueError, match=rf"X_star is too large in scale for the {kernel_plus}"):
        est.correcting_function(Z[:2] * 1e150)
    with pytest.raises(ValueError, match=r"X is too large in scale for the poly kernel"):
        est.decision_function(X[:2] * 1e150)
    assert np.all(np.isfinite(est.correcting_function(Z[:2] * 10)))
