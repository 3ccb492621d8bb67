"""The semi-supervised baselines against independent references (TSVM's SVM steps and its
stopping rule; LapSVM's solution against its primal solved by cvxpy), and scikit-learn's
estimator checks for WellSVM, TSVM and LapSVM."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.csgraph
from conftest import declares, is_kernel_machine, registered
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.neighbors import kneighbors_graph
from sklearn.utils.estimator_checks import check_estimator

from unlabeled.ssl import TSVM, LabeledSVM, LapSVM, WellSVM

cp = pytest.importorskip("cvxpy")

GAMMA = 0.5
SOLVE = {"solver": "CLARABEL", "tol_gap_abs": 1e-9, "tol_gap_rel": 1e-9, "tol_feas": 1e-9}


def ssl_problem(seed, n_lab=6, n_unl=40, shift=1.2):
    rng = np.random.default_rng(seed)
    n = n_lab + n_unl
    truth = np.r_[np.tile([0, 1], n_lab // 2), rng.integers(0, 2, n_unl)]
    X = rng.normal(size=(n, 2)) + shift * (2 * truth[:, None] - 1)
    return X, np.where(np.arange(n) < n_lab, truth, -1), truth


def paper_balance(y):
    """The unlabeled points labeled negative under the paper's balance: ceil(n_U (1 - p)), p
    the share of positives among the labeled points (y = -1 unlabeled, 1 positive)."""
    n_u, p = int(np.sum(y == -1)), float(np.mean(y[y != -1] == 1))
    return min(n_u, max(0, math.ceil(n_u * (1.0 - p) - 1e-9)))


def graph_laplacian(X, k):
    """D - W of the symmetrised 0/1 k-nearest-neighbour graph, as LapSVM documents it."""
    W = kneighbors_graph(X, k, mode="connectivity", include_self=False)
    return scipy.sparse.csgraph.laplacian(W.maximum(W.T).toarray())


def svm_with_offset(K, y, C):
    """min 1/2 ||w||^2 + sum C_i xi_i over (alpha, b), by Clarabel in the primal over the
    kernel expansion: the objective value and the decision values on the points."""
    ev, U = np.linalg.eigh(K)
    V = U[:, ev > 1e-10] * np.sqrt(ev[ev > 1e-10])  # K = V V'
    w, b = cp.Variable(V.shape[1]), cp.Variable()
    f = V @ w + b
    obj = 0.5 * cp.sum_squares(w) + C @ cp.pos(1 - cp.multiply(y, f))
    prob = cp.Problem(cp.Minimize(obj))
    prob.solve(**SOLVE)
    return float(prob.value), V @ w.value + b.value


@pytest.mark.parametrize("seed", [0, 1])
def test_tsvm_final_step_is_the_svm_on_its_labels(seed):
    """TSVM ends on an SVM with offset (C1 labeled, C2 unlabeled) for its final labels that
    leaves no swappable pair, keeps the balance, and matches a generic solver."""
    X, y, truth = ssl_problem(seed)
    model = TSVM(C1=1.0, C2=0.5, gamma=GAMMA, standardize=False, tol=1e-8).fit(X, y)
    lab = np.where(model.transduction_ == 1, 1.0, -1.0)
    unl = y == -1
    assert np.sum(lab[unl] < 0) == paper_balance(y)
    K = rbf_kernel(X, gamma=GAMMA)
    C = np.where(unl, 0.5, 1.0)
    value, f_ref = svm_with_offset(K, lab, C)
    f = model.decision_function(X)
    np.testing.assert_allclose(f, f_ref, atol=1e-4)
    # on the transduction_ labels: sign(f) may differ from them only where the balance binds
    xi = np.maximum(0, 1 - lab * f)
    pos, neg = unl & (lab > 0) & (xi > 0), unl & (lab < 0) & (xi > 0)
    if pos.any() and neg.any():
        assert xi[pos].max() + xi[neg].max() <= 2 + 1e-6
    assert model.score(X, truth) >= 0.8
    assert model.n_iter_ >= 2


def test_tsvm_transduction_labels_are_the_final_labels():
    X, y, _ = ssl_problem(3)
    model = TSVM(gamma=GAMMA, standardize=False).fit(X, y)
    np.testing.assert_array_equal(model.transduction_[y != -1], y[y != -1])


@pytest.mark.parametrize("gamma_I", [0.0, 2.0])
def test_lapsvm_matches_its_primal(gamma_I):
    """LapSVM's expansion minimises C1 sum hinge + 1/2 a'Ka + gamma_I/(2n) f'Lf (cvxpy)."""
    X, y, _ = ssl_problem(4, n_unl=30)
    n = len(y)
    model = LapSVM(
        C1=1.0, gamma_I=gamma_I, n_neighbors=4, gamma=GAMMA, standardize=False, tol=1e-8
    ).fit(X, y)
    K = rbf_kernel(X, gamma=GAMMA)
    L = graph_laplacian(X, 4)
    lab = np.flatnonzero(y != -1)
    t = np.where(y[lab] == 1, 1.0, -1.0)

    def objective(alpha, b):
        f = K @ alpha
        hinge = np.maximum(0, 1 - t * (f[lab] + b)).sum()
        return hinge + 0.5 * alpha @ K @ alpha + gamma_I / (2 * n) * f @ L @ f

    ev, U = np.linalg.eigh(K)
    keep = ev > 1e-10
    V = U[:, keep] * np.sqrt(ev[keep])  # f = K alpha = V w with w = V' alpha
    Lh = np.linalg.cholesky(L + 1e-12 * np.eye(n))
    w, b = cp.Variable(V.shape[1]), cp.Variable()
    f = V @ w
    obj = (
        cp.sum(cp.pos(1 - cp.multiply(t, f[lab] + b)))
        + 0.5 * cp.sum_squares(w)
        + gamma_I / (2 * n) * cp.sum_squares(Lh.T @ f)
    )
    prob = cp.Problem(cp.Minimize(obj))
    prob.solve(**SOLVE)
    alpha = np.zeros(n)
    alpha[model.support_] = model.dual_coef_[0]
    ours = objective(alpha, model.intercept_[0])
    assert ours <= prob.value + 1e-5 * max(1.0, prob.value)


@pytest.mark.parametrize("kernel", ["rbf", "linear"])
def test_labeled_svm_is_svc_on_the_labeled_points(kernel):
    from sklearn.svm import SVC

    X, y, _ = ssl_problem(6, n_lab=10)
    lab = y != -1
    model = LabeledSVM(C1=0.7, kernel=kernel, gamma=GAMMA, standardize=False, tol=1e-8).fit(X, y)
    ref = SVC(C=0.7, kernel=kernel, gamma=GAMMA, tol=1e-8).fit(X[lab], y[lab])
    np.testing.assert_allclose(model.decision_function(X), ref.decision_function(X), atol=1e-5)
    np.testing.assert_array_equal(model.transduction_[lab], y[lab])


# Checks that cannot apply to a semi-supervised estimator, with the reason.
SSL_EXPECTED_FAILURES = {
    "check_classifiers_classes": "it fits labels {-1, 1}; -1 marks an unlabeled point in "
    "scikit-learn's semi-supervised convention, so only one class is labeled and fit refuses",
}


@pytest.mark.parametrize(
    "estimator",
    [cls() for cls in registered(is_kernel_machine, family="ssl")],
    ids=lambda e: type(e).__name__,
)
def test_check_estimator(estimator):
    results = check_estimator(estimator, expected_failed_checks=SSL_EXPECTED_FAILURES, on_fail=None)
    failed = [r["check_name"] for r in results if r["status"] == "failed"]
    assert not failed, failed


def test_make_rcv1_like():
    from unlabeled.datasets import make_rcv1_like

    X, y = make_rcv1_like(3000, 5000, density=0.01, n_topic_words=50, random_state=0)
    assert X.shape == (3000, 5000) and X.has_sorted_indices
    assert abs(X.nnz / (3000 * 5000) - 0.01) < 0.002
    np.testing.assert_allclose(np.sqrt(X.multiply(X).sum(axis=1)).A1, 1.0)
    assert X.data.min() > 0 and 0.45 < y.mean() < 0.55
    w = np.zeros(5000)
    w[-100:-50], w[-50:] = -1.0, 1.0  # the class vocabularies separate with a margin
    assert np.min((X @ w) * (2 * y - 1)) > 0
    X2, y2 = make_rcv1_like(3000, 5000, density=0.01, n_topic_words=50, random_state=0)
    assert (X2 != X).nnz == 0 and np.array_equal(y, y2)


def test_lapsvm_singular_system_names_gamma_i():
    """Repeated points and gamma_I=1e20: I + (gamma_I / n) L K loses its identity to rounding
    and is singular, a raw LinAlgError from scipy. Now a ValueError naming gamma_I and the
    value to stay under, at which the fit runs."""
    import re

    rng = np.random.default_rng(0)
    X = np.repeat(rng.normal(size=(20, 3)), 2, axis=0)
    y = np.where(np.arange(40) < 10, (X[:, 0] > 0).astype(int), -1)
    y[:4] = [0, 0, 1, 1] if X[0, 0] <= 0 else [1, 1, 0, 0]
    with pytest.raises(ValueError, match="singular in floating point: gamma_I=1e\\+20") as info:
        LapSVM(gamma_I=1e20).fit(X, y)
    bound = float(re.search(r"at most about (\S+)$", str(info.value)).group(1))
    f = LapSVM(gamma_I=bound).fit(X, y).decision_function(X)
    assert np.all(np.isfinite(f))


# ---------------------------------------------------------------------------- standardize
#: the semi-supervised SVMs, the estimators with a standardize parameter
SSL_CLASSES = registered(lambda e: declares(e.load(), "standardize"), family="ssl")


def _units_problem(seed=3):
    """Two classes in 4 features, the third measured in units 10^4 times smaller."""
    X, y, truth = ssl_problem(seed, n_unl=50)
    X = np.c_[X, np.random.default_rng(seed).normal(size=(len(y), 2))]
    X[:, 2] *= 1e4
    return X, y, truth


@pytest.mark.parametrize("cls", SSL_CLASSES, ids=lambda c: c.__name__)
@pytest.mark.parametrize("kernel", ["rbf", "linear", "poly"])
def test_standardized_model_does_not_depend_on_the_units(cls, kernel):
    """The default divides each feature by its standard deviation: X diag(c) gives the same
    model. Exactly for powers of 2 (each division exact); for any c the scaled data differ
    in the last bits, and the solvers stop within their tolerance (tol=1e-3) elsewhere on
    the same optimum. Without standardize the model changes with the units."""
    X, y, _ = _units_problem()
    Xt = np.random.default_rng(0).normal(size=(30, 4)) * [1, 1, 1e4, 1]
    ref = cls(kernel=kernel).fit(X, y)
    f = ref.decision_function(Xt)
    units = [(2.0 ** np.array([-9, 4, 13, 0]), 0.0), (np.array([3.7, 1e-3, 0.31, 1e3]), 3e-3)]
    for c, tol in units:
        model = cls(kernel=kernel).fit(X * c, y)
        np.testing.assert_allclose(model.decision_function(Xt * c), f, rtol=0, atol=tol)
        if tol == 0:
            np.testing.assert_array_equal(model.transduction_, ref.transduction_)
            np.testing.assert_array_equal(model.scale_, ref.scale_ * c)
        np.testing.assert_allclose(model.scale_, ref.scale_ * c, rtol=1e-15)
    np.testing.assert_array_equal(ref.support_vectors_, X[ref.support_])  # X's units
    if kernel == "linear":  # coef_ acts on X as given
        np.testing.assert_allclose(Xt @ ref.coef_[0] + ref.intercept_[0], f, atol=1e-10)
    raw = cls(kernel=kernel, standardize=False).fit(X, y)
    assert raw.scale_ is None
    assert np.abs(raw.decision_function(Xt) - f).max() > 1e-3


@pytest.mark.parametrize("cls", SSL_CLASSES, ids=lambda c: c.__name__)
@pytest.mark.parametrize("kernel", ["linear", "rbf"])
def test_standardized_model_does_not_depend_on_the_origin(cls, kernel):
    """A feature with a large mean (1e8: 10^8 deviations) and one in units of 1e-300 (its
    variance underflows): the standardised model is that of the centred, unit data (to the
    solvers' tolerance, or for the non-convex WellSVM nearly the same labels), with the
    classes found (once 0.5 accuracy for linear WellSVM and
    LapSVM, a raw error for TSVM, and the 1e-300 column taken as constant). A column whose
    mean is within the rbf kernel's ratio is not centred (``mean_`` None)."""
    X, y, truth = _units_problem(6)
    ref = cls(kernel=kernel).fit(X, y)
    assert ref.mean_ is None or kernel == "linear"
    shifted = X + [1e8, 0.0, 0.0, 0.0]
    shifted[:, 3] *= 1e-300
    model = cls(kernel=kernel).fit(shifted, y)
    assert model.mean_ is not None and model.scale_[0, 3] > 0
    np.testing.assert_allclose(model.scale_[0, 3], ref.scale_[0, 3] * 1e-300, rtol=1e-12)
    f_ref, f = ref.decision_function(X), model.decision_function(shifted)
    assert np.mean(np.sign(f) == np.sign(f_ref)) > 0.9
    assert np.mean(model.predict(shifted) == truth) > 0.8
    assert np.all(np.isfinite(f))


@pytest.mark.parametrize("cls", SSL_CLASSES, ids=lambda c: c.__name__)
def test_standardize_is_standard_scaler_then_the_raw_fit(cls):
    """For the rbf kernel (which depends on differences only) the default is StandardScaler
    followed by the fit with standardize=False, to the solvers' tolerance; sparse input is
    divided, never densified or centred, and gives the dense fit's scales bit for bit."""
    import scipy.sparse as sp
    from sklearn.preprocessing import StandardScaler

    X, y, _ = _units_problem(4)
    X[:, 3] = 5.0  # a constant feature: scale 1
    Xt = np.random.default_rng(1).normal(size=(20, 4)) * [1, 1, 1e4, 1]
    model = cls().fit(X, y)
    sc = StandardScaler().fit(X)
    ref = cls(standardize=False).fit(sc.transform(X), y)
    np.testing.assert_allclose(
        model.decision_function(Xt), ref.decision_function(sc.transform(Xt)), atol=3e-3
    )
    assert model.scale_[0, 3] == 1.0
    np.testing.assert_allclose(model.scale_[0, :3], sc.scale_[:3], rtol=1e-14)
    Xs = sp.csr_matrix(X * (np.abs(X) > 0.5))
    sparse = cls().fit(Xs, y)
    dense = cls().fit(Xs.toarray(), y)
    assert sp.issparse(sparse.scale_) and sp.issparse(sparse.support_vectors_)
    np.testing.assert_array_equal(sparse.scale_.toarray(), dense.scale_)
    np.testing.assert_allclose(
        sparse.decision_function(sp.csr_matrix(Xt)), dense.decision_function(Xt), atol=3e-3
    )


@pytest.mark.parametrize("cls", SSL_CLASSES, ids=lambda c: c.__name__)
def test_standardized_model_files_round_trip(cls, tmp_path):
    import scipy.sparse as sp

    from unlabeled import load, save

    X, y, _ = _units_problem(5)
    for data in (X, sp.csr_matrix(X * (np.abs(X) > 0.5))):
        model = cls(probability=True, random_state=0).fit(data, y)
        save(model, tmp_path / "m.skops")
        back = load(tmp_path / "m.skops")
        np.testing.assert_array_equal(back.decision_function(data), model.decision_function(data))
        np.testing.assert_array_equal(back.predict_proba(data), model.predict_proba(data))


def _indicator_table(seed=7, n=60):
    """Two classes in two continuous features beside indicator columns in several codings
    (a rare 0/1, a balanced 0/1 that follows the class, -1/+1, 3/5, 0/-2), a one-hot block
    and a constant column; six labeled points."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 2, n)
    truth[:6] = [0, 1, 0, 1, 0, 1]
    cont = rng.normal(size=(n, 2)) * [300.0, 0.02] + 1.5 * (2 * truth[:, None] - 1) * [300, 0.02]
    cols = [
        (rng.random(n) < 0.05) * 1.0,
        np.where(rng.random(n) < 0.5 + 0.3 * (2 * truth - 1), 1.0, 0.0),
        np.where(rng.random(n) < 0.3, -1.0, 1.0),
        np.where(rng.random(n) < 0.8, 3.0, 5.0),
        np.where(rng.random(n) < 0.4, -2.0, 0.0),
    ]
    onehot = np.eye(3)[rng.integers(0, 3, n)]
    X = np.column_stack([cont, *cols, onehot, np.full(n, 4.0)])
    for j in range(2, X.shape[1] - 1):  # every indicator takes both its values
        X[0, j], X[1, j] = X[:, j].min(), X[:, j].max()
    X[0, 2:7], X[1, 2:7] = [0, 0, -1, 3, -2], [1, 1, 1, 5, 0]
    return X, np.where(np.arange(n) < 6, truth, -1)


def _indicator_scales(X):
    """The scales of the rule, computed independently: a column of two values a < b is
    divided by (b - a) / 2, a constant one by 1, any other by its standard deviation."""
    out = []
    for col in X.T:
        values = np.unique(col)
        if values.size == 1:
            out.append(1.0)
        elif values.size == 2:
            out.append((values[1] - values[0]) / 2)
        else:
            out.append(np.std(col))
    return np.array(out)


@pytest.mark.parametrize("cls", SSL_CLASSES, ids=lambda c: c.__name__)
def test_standardize_divides_an_indicator_by_half_its_range(cls):
    """A two-valued column (binary or one-hot, any coding) is divided by half the gap between
    its values, the largest deviation such a column can have, so a rare category stays
    rare; the others by their deviation. Dense, CSR and float32 copies get the same scales
    bit for bit, and for the rbf kernel the model is the raw fit on X / scale_ with
    gamma = 1 / sum_j var(x_j / s_j) (StandardScaler's gamma="scale")."""
    X, y = _indicator_table()
    model = cls().fit(X, y)
    want = _indicator_scales(X)
    np.testing.assert_allclose(model.scale_[0], want, rtol=1e-14)
    assert model.scale_[0, 2] == 0.5 and model.scale_[0, 5] == 1.0  # rare 0/1 and 3/5
    Xs = sp.csr_matrix(X)
    np.testing.assert_array_equal(cls().fit(Xs, y).scale_.toarray(), model.scale_)
    X32 = X.astype(np.float32)
    np.testing.assert_array_equal(
        cls().fit(X32, y).scale_, cls().fit(X32.astype(np.float64), y).scale_
    )
    A = X / want
    ref = cls(standardize=False, gamma=1.0 / np.sum(A.var(axis=0))).fit(A, y)
    Xt = _indicator_table(seed=8)[0]
    np.testing.assert_allclose(
        model.decision_function(Xt), ref.decision_function(Xt / want), atol=3e-3
    )


def test_standardize_keeps_a_column_two_valued_to_rounding_constant():
    """A column whose two values differ by rounding (1 and 1 + 2^-52) is constant: scale 1,
    not half its gap, which would blow the rounding up to the scale of a feature."""
    X, y = _indicator_table()
    X[:, -1] = np.where(np.arange(len(y)) % 2, 1.0, 1.0 + 2.0**-52)
    assert WellSVM().fit(X, y).scale_[0, -1] == 1.0


def test_standardize_without_indicators_is_the_standard_deviation():
    """No two-valued column: each scale is the column's standard deviation (the rule of the
    models written before the indicators' rule, which are unchanged)."""
    X, y, _ = _units_problem(4)
    np.testing.assert_allclose(WellSVM().fit(X, y).scale_[0], np.std(X, axis=0), rtol=1e-14)


# ---------------------------------------------------------------------------- verbose
def _lines(capsys):
    out, err = capsys.readouterr()
    assert out == ""
    return err.splitlines()


def test_tsvm_verbose_reports_every_solve_and_annealing_step(capsys):
    """One line for the start, one per SVM solve (n_iter_ of them) with its annealing step
    k of K (C* doubles from 1e-5 to C2: K = 1 + ceil(log2(C2 / 1e-5))), one summary."""
    X, y, _ = ssl_problem(1, n_unl=60)
    model = TSVM(gamma=GAMMA, C2=0.1, verbose=True).fit(X, y)
    lines = _lines(capsys)
    assert all(line.startswith("[TSVM] ") for line in lines)
    steps = 1 + math.ceil(math.log2(0.1 / 1e-5))
    assert (
        lines[0].startswith("[TSVM] start: SVM on 6 labeled points")
        and f"{steps} annealing" in lines[0]
    )
    solves = [line for line in lines if line.startswith("[TSVM] solve")]
    assert len(solves) == model.n_iter_ and len(lines) == model.n_iter_ + 2
    assert f"step {steps}/{steps}  C*=0.1 " in solves[-1] and "step 1/" in solves[0]
    assert lines[-1].startswith(f"[TSVM] done: {model.n_iter_} solves, {model.n_switches_} labels")
    TSVM(gamma=GAMMA).fit(X, y)
    assert _lines(capsys) == []


@pytest.mark.parametrize("cls", SSL_CLASSES, ids=lambda c: c.__name__)
def test_semi_supervised_svms_verbose(capsys, cls):
    """verbose: lines on stderr only, each naming the estimator, the last saying how the
    fit ended (LapSVM's solver: "done"; WellSVM's cutting plane: "stop"); none without."""
    import re

    X, y, _ = ssl_problem(2)
    name = cls.__name__
    cls(gamma=GAMMA, verbose=1).fit(X, y)
    lines = _lines(capsys)
    assert lines and all(line.startswith(f"[{name}] ") for line in lines)
    assert re.match(rf"\[{name}\] (SVM: )?(done|stop): ", lines[-1])
    cls(gamma=GAMMA).fit(X, y)
    assert _lines(capsys) == []


@pytest.mark.parametrize("cls", SSL_CLASSES, ids=lambda c: c.__name__)
@pytest.mark.parametrize("bad", [-1, "yes", 1.5])
def test_verbose_validated_before_any_work(cls, bad):
    from unlabeled.exceptions import InvalidParameterError

    X, y, _ = ssl_problem(3)
    fitted = cls(gamma=GAMMA).fit(X, y)
    before = fitted.decision_function(X)
    fitted.set_params(verbose=bad)
    with pytest.raises(InvalidParameterError, match="verbose must be"):
        fitted.fit(X[:10], y[:10])
    np.testing.assert_array_equal(fitted.decision_function(X), before)


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


@pytest.mark.parametrize("standardize", [True, False])
def test_lapsvm_dense_sparse_and_float32_fits_agree_on_tied_integer_data(standardize):
    """Integer features: many exactly tied k-NN distances and duplicated points (a degenerate
    dual). The fits of the dense array, its CSR copy and its float32 copy are the same to
    the bit, with ``standardize`` too (they differed by 1.4e-3 relative: the sparse Gram
    rounded otherwise, float32 was divided in float32, and the solver stopped elsewhere
    within tol on the tied points)."""
    import scipy.sparse as sp

    rng = np.random.default_rng(1)
    X = rng.integers(0, 4, (60, 3)).astype(float)
    y = np.where(X[:, 0] > 1, 1, 0)
    y[rng.permutation(60)[:40]] = -1
    ref = LapSVM(standardize=standardize).fit(X, y)
    for data in (sp.csr_matrix(X), X.astype(np.float32)):
        model = LapSVM(standardize=standardize).fit(data, y)
        dual = model.dual_coef_.toarray() if sp.issparse(model.dual_coef_) else model.dual_coef_
        np.testing.assert_array_equal(dual, ref.dual_coef_)
        np.testing.assert_array_equal(model.intercept_, ref.intercept_)
        np.testing.assert_array_equal(model.transduction_, ref.transduction_)
        np.testing.assert_allclose(
            model.decision_function(X), ref.decision_function(X), rtol=0, atol=1e-12
        )
