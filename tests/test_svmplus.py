"""SVMPlus against independent references: the dual solved by cvxpy in (alpha, beta) (the
estimator's own QP uses (alpha, delta)), the primal solved by cvxpy, the KKT conditions of the
spec checked from h and phi alone, dense-kernel objectives, and SVC for the dSVM+ mode."""

import pickle

import cvxpy as cp
import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer
from sklearn.exceptions import ConvergenceWarning, NotFittedError
from sklearn.metrics.pairwise import linear_kernel, rbf_kernel
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC
from sklearn.utils.estimator_checks import check_estimator

from unlabeled import SVMPlus
from unlabeled.datasets import make_mackey_glass

SOLVERS = ("asmo", "gsmo", "qp")


def make_lupi(seed, n=60):
    """Two classes in X with a noise level per point; X* holds that level (plus a useless
    feature): the privileged features know which points are hard. With it even an affine
    correcting function pays off (for uninformative X*, the affine optimum is h = constant,
    since sum_i phi(x*_i) = n phi(mean x*))."""
    rng = np.random.default_rng(seed)
    y = np.where(rng.random(n) < 0.5, 1, -1)
    sigma = np.where(rng.random(n) < 0.3, 1.5, 0.3)
    X = y[:, None] * np.array([1.0, 0.5, 0.0]) + sigma[:, None] * rng.normal(size=(n, 3))
    X_star = np.c_[sigma + 0.1 * rng.normal(size=n), rng.normal(size=n)]
    return X, y, X_star


def assert_not_degenerate(est):
    """h is not constant: D < n C (w = 0, phi = 1 is always feasible with cost n C)."""
    assert est.dual_objective_ < 0.99 * est.C * est.alpha_.size


@pytest.fixture(scope="module")
def cancer():
    """120 examples of sklearn's breast cancer data, standardised; the first 15 features are
    X, the other 15 the privileged X*."""
    data = load_breast_cancer()
    rng = np.random.default_rng(0)
    idx = rng.choice(data.target.size, 120, replace=False)
    Z = StandardScaler().fit_transform(data.data)[idx]
    return Z[:, :15], np.where(data.target[idx] == 1, 1, -1), Z[:, 15:]


def gram(est, A, B, which):
    """Dense kernel with the estimator's resolved parameters, computed here by sklearn."""
    kernel = est.kernel if which == "x" else est.kernel_plus
    gamma = est.kernel_gamma_ if which == "x" else est._gamma_star
    return linear_kernel(A, B) if kernel == "linear" else rbf_kernel(A, B, gamma=gamma)


def dual_value(est, X, y, Z):
    """D(alpha_, beta_) of the spec, from dense kernels."""
    a, b = est.alpha_, est.beta_
    delta = a + b - est.C
    ay = a * np.where(y == est.classes_[1], 1.0, -1.0)
    K, Ks = gram(est, X, X, "x"), gram(est, Z, Z, "star")
    return a.sum() - 0.5 * ay @ K @ ay - 0.5 / est.gamma_plus * delta @ Ks @ delta


def psd_root(K):
    lam, V = np.linalg.eigh(K)
    return V * np.sqrt(np.clip(lam, 0.0, None))


def cvxpy_dual(K, Ks, y, C, gamma_plus):
    """The spec's dual in its own variables (alpha, beta), solved by cvxpy."""
    n = y.size
    R, Rs = psd_root(K), psd_root(Ks)
    a = cp.Variable(n, nonneg=True)
    b = cp.Variable(n, nonneg=True)
    delta = a + b - C
    obj = (
        cp.sum(a)
        - 0.5 * cp.sum_squares(R.T @ cp.multiply(y, a))
        - 0.5 / gamma_plus * cp.sum_squares(Rs.T @ delta)
    )
    prob = cp.Problem(cp.Maximize(obj), [cp.sum(delta) == 0, y @ a == 0])
    prob.solve(solver=cp.CLARABEL, tol_gap_abs=1e-10, tol_gap_rel=1e-10, tol_feas=1e-10)
    return prob.value


# --------------------------------------------------------------------------- the optimum
@pytest.mark.parametrize("kernel", ["linear", "rbf"])
@pytest.mark.parametrize("seed", [0, 1, 3])
def test_solvers_reach_the_dual_optimum(seed, kernel):
    X, y, X_star = make_lupi(seed)
    C, gamma_plus = {0: (1.0, 1.0), 1: (0.3, 5.0), 3: (5.0, 0.2)}[seed]
    params = {"C": C, "gamma_plus": gamma_plus, "kernel": kernel, "kernel_plus": kernel}
    fits = {s: SVMPlus(solver=s, **params).fit(X, y, X_star) for s in SOLVERS}
    est = fits["qp"]
    ref = cvxpy_dual(
        gram(est, X, X, "x"), gram(est, X_star, X_star, "star"), y.astype(float), C, gamma_plus
    )
    assert_not_degenerate(est)
    assert fits["qp"].dual_objective_ == pytest.approx(ref, rel=1e-6)
    for s in ("asmo", "gsmo"):
        assert fits[s].dual_objective_ == pytest.approx(ref, rel=1e-3), s
        assert fits[s].dual_objective_ <= ref * (1 + 1e-9)  # a feasible point cannot beat it


# a degree-2 Gram matrix on 3 features has rank <= 10: Clarabel may stop at AlmostSolved, and
# says so, while still agreeing with cvxpy to 1e-5
@pytest.mark.filterwarnings("ignore:Clarabel reports AlmostSolved")
def test_poly_kernels_reach_the_same_optimum():
    """degree and coef0 reach both poly kernels; the engine's kernels agree with sklearn's."""
    from sklearn.metrics.pairwise import polynomial_kernel

    X, y, X_star = make_lupi(1)
    params = {"C": 1.0, "gamma_plus": 2.0, "kernel": "poly", "kernel_plus": "poly"}
    params.update(degree=2, coef0=1.0, gamma=0.5, gamma_star=0.5)
    fits = {s: SVMPlus(solver=s, tol=1e-5, **params).fit(X, y, X_star) for s in SOLVERS}
    K = polynomial_kernel(X, degree=2, gamma=0.5, coef0=1.0)
    Ks = polynomial_kernel(X_star, degree=2, gamma=0.5, coef0=1.0)
    ref = cvxpy_dual(K, Ks, y.astype(float), 1.0, 2.0)
    for s, est in fits.items():
        assert_not_degenerate(est)
        assert est.dual_objective_ == pytest.approx(ref, rel=1e-5), s


@pytest.mark.parametrize("solver", ["asmo", "gsmo"])
def test_breast_cancer_with_half_the_features_privileged(cancer, solver):
    X, y, X_star = cancer
    params = {"C": 2.0, "gamma_plus": 0.5, "gamma": 0.05, "gamma_star": 0.05}
    est = SVMPlus(solver=solver, **params).fit(X, y, X_star)
    ref = cvxpy_dual(
        gram(est, X, X, "x"), gram(est, X_star, X_star, "star"), y.astype(float), 2.0, 0.5
    )
    assert est.dual_objective_ == pytest.approx(ref, rel=1e-3)
    # the same classifier as the reference QP, up to the solver tolerance
    qp = SVMPlus(solver="qp", **params).fit(X, y, X_star)
    assert np.mean(est.predict(X) == qp.predict(X)) >= 0.98
    np.testing.assert_allclose(est.decision_function(X), qp.decision_function(X), atol=0.05)


def test_primal_by_cvxpy_linear_kernels():
    """Strong duality and the primal solution itself: w = sum alpha_i y_i x_i, w* = sum delta_i
    x*_i / gamma, b and d, against the primal of the spec solved directly."""
    X, y, X_star = make_lupi(0, n=50)
    C, gamma_plus = 0.5, 2.0
    w, b = cp.Variable(X.shape[1]), cp.Variable()
    ws, d = cp.Variable(X_star.shape[1]), cp.Variable()
    phi = X_star @ ws + d
    prob = cp.Problem(
        cp.Minimize(
            0.5 * cp.sum_squares(w) + gamma_plus / 2 * cp.sum_squares(ws) + C * cp.sum(phi)
        ),
        [cp.multiply(y, X @ w + b) >= 1 - phi, phi >= 0],
    )
    prob.solve(solver=cp.CLARABEL, tol_gap_abs=1e-10, tol_gap_rel=1e-10, tol_feas=1e-10)
    for solver in SOLVERS:
        est = SVMPlus(
            C=C,
            gamma_plus=gamma_plus,
            kernel="linear",
            kernel_plus="linear",
            solver=solver,
            tol=1e-6,
        ).fit(X, y, X_star)
        assert est.dual_objective_ == pytest.approx(prob.value, rel=1e-6), solver
        assert_not_degenerate(est)
        w_est = est.dual_coef_[0] @ est.support_vectors_
        ws_est = (est.alpha_ + est.beta_ - C) @ X_star / gamma_plus
        np.testing.assert_allclose(w_est, w.value, atol=1e-4)
        np.testing.assert_allclose(ws_est, ws.value, atol=1e-4)
        assert est.intercept_[0] == pytest.approx(b.value, abs=1e-4)
        assert est.correction_intercept_ == pytest.approx(d.value, abs=1e-4)


@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.parametrize("kernel", ["linear", "rbf"])
def test_kkt_conditions_at_the_solution(solver, kernel):
    """From h = decision_function and phi = correcting_function alone (the spec's primal):
    y_i h(x_i) = 1 - phi(x*_i) where alpha_i > 0 and >= elsewhere; phi(x*_i) = 0 where
    beta_i > 0 and >= 0 elsewhere; the equalities hold and alpha, beta >= 0."""
    X, y, X_star = make_lupi(0, n=70)
    tol = 1e-4
    est = SVMPlus(
        C=2.0, gamma_plus=0.5, kernel=kernel, kernel_plus=kernel, solver=solver, tol=tol
    ).fit(X, y, X_star)
    a, b = est.alpha_, est.beta_
    assert (a >= 0).all() and (b >= 0).all()
    assert abs(y @ a) <= 1e-8 * a.sum()
    assert abs((a + b - est.C).sum()) <= 1e-8 * est.C * y.size
    margin = y * est.decision_function(X)
    phi = est.correcting_function(X_star)
    slack = margin - (1 - phi)  # >= 0, = 0 where alpha > 0
    eps = 3 * tol if solver != "qp" else 1e-5
    free = a > (0 if solver != "qp" else 1e-6 * a.max())
    bpos = b > (0 if solver != "qp" else 1e-6 * b.max())
    assert_not_degenerate(est)
    assert free.sum() >= 2 and bpos.sum() >= 1  # so that the checks below bite
    assert np.abs(slack[free]).max() <= eps
    assert slack.min() >= -eps
    assert np.abs(phi[bpos]).max() <= eps
    assert phi.min() >= -eps


@pytest.mark.parametrize("solver", SOLVERS)
def test_dual_objective_matches_dense_recomputation(solver):
    X, y, X_star = make_lupi(5)
    est = SVMPlus(C=1.5, gamma_plus=0.7, solver=solver).fit(X, y, X_star)
    assert est.dual_objective_ == pytest.approx(dual_value(est, X, y, X_star), rel=1e-9)


def test_dsvm_plus_is_svm_plus_on_the_svm_slacks():
    X, y, X_star = make_lupi(6)
    params = {"C": 1.0, "gamma_plus": 2.0, "gamma": 0.4, "gamma_star": "scale", "tol": 1e-5}
    est = SVMPlus(mode="dsvm+", **params).fit(X, y, X_star)
    svc = SVC(C=1.0, kernel="rbf", gamma="scale").fit(X_star, y)
    d = 1 - y * svc.decision_function(X_star)
    by_hand = SVMPlus(**params).fit(X, y, d[:, None])
    np.testing.assert_allclose(est.alpha_, by_hand.alpha_, atol=1e-12)
    np.testing.assert_allclose(est.beta_, by_hand.beta_, atol=1e-12)
    assert est.intercept_[0] == pytest.approx(by_hand.intercept_[0], abs=1e-12)
    np.testing.assert_array_equal(est.predict(X), by_hand.predict(X))
    np.testing.assert_allclose(
        est.correcting_function(X_star, y), by_hand.correcting_function(d[:, None]), atol=1e-12
    )
    with pytest.raises(ValueError, match="pass the labels"):
        est.correcting_function(X_star)


def test_gsmo_needs_three_example_steps_yet_reaches_the_optimum():
    """Pairs of examples are no witness family for SVM+'s feasible set: on this problem the
    best pair stops improving before the optimum, and gSMO finishes with aSMO steps."""
    X, y, X_star = make_lupi(2)
    params = {"C": 5.0, "gamma_plus": 0.2}
    g = SVMPlus(solver="gsmo", tol=1e-5, **params).fit(X, y, X_star)
    q = SVMPlus(solver="qp", **params).fit(X, y, X_star)
    assert g.triple_steps_ > 0
    assert g.dual_objective_ == pytest.approx(q.dual_objective_, rel=1e-5)


def test_asmo_reaches_the_exact_optimum_on_an_ill_conditioned_problem():
    """Mackey-Glass sampled every 0.1 time units: neighbouring windows almost coincide, K is
    nearly singular and the optimum has alphas far above C. aSMO's Newton steps on the free
    set (and its polish past tol) land on the optimum itself, not just within tol of it, and
    a duplicated point (an exactly singular Hessian on the free set) changes nothing."""
    X, y, X_star = make_mackey_glass(300, D=5, sampling=0.1, random_state=7)
    idx = np.random.default_rng(7).permutation(300)[:100]
    X, y, X_star = X[idx], y[idx], X_star[idx]
    params = {"C": 10.0, "gamma_plus": 0.1, "gamma": 1.0, "gamma_star": 1.0}
    est = SVMPlus(**params).fit(X, y, X_star)
    ref = cvxpy_dual(
        gram(est, X, X, "x"), gram(est, X_star, X_star, "star"), y.astype(float), 10.0, 0.1
    )
    assert est.alpha_.max() > 3 * est.C  # no upper bound: the case the Newton steps are for
    assert est.dual_objective_ == pytest.approx(ref, rel=1e-7)
    assert est.dual_objective_ <= ref * (1 + 1e-9)
    # each point twice: the same optimum as the problem with C doubled on single points
    Xd, yd, Xsd = np.r_[X, X], np.r_[y, y], np.r_[X_star, X_star]
    dup = SVMPlus(**params).fit(Xd, yd, Xsd)
    assert dup.dual_objective_ == pytest.approx(
        cvxpy_dual(
            gram(dup, Xd, Xd, "x"), gram(dup, Xsd, Xsd, "star"), yd.astype(float), 10.0, 0.1
        ),
        rel=1e-7,
    )


# --------------------------------------------------------------------------- estimator API
def test_attributes_and_label_mapping():
    X, y, X_star = make_lupi(7)
    labels = np.where(y == 1, "spam", "ham")
    est = SVMPlus().fit(X, labels, X_star)
    ref = SVMPlus().fit(X, y, X_star)
    assert est.classes_.tolist() == ["ham", "spam"]
    np.testing.assert_array_equal(est.alpha_, ref.alpha_)
    assert set(est.predict(X)) <= {"ham", "spam"}
    np.testing.assert_array_equal(est.predict(X) == "spam", ref.predict(X) == 1)
    n = y.size
    assert est.alpha_.shape == est.beta_.shape == (n,)
    assert est.dual_coef_.shape == (1, est.support_.size)
    np.testing.assert_allclose(est.dual_coef_[0], (est.alpha_ * y)[est.support_])
    np.testing.assert_array_equal(est.support_vectors_, X[est.support_])
    assert est.intercept_.shape == (1,) and isinstance(est.correction_intercept_, float)
    assert est.n_features_in_ == 3 and est.n_features_star_in_ == 2 and est.n_iter_ > 0
    # privileged=, sparse and float32 inputs give the same model
    kw = SVMPlus().fit(X, y, privileged=X_star)
    np.testing.assert_array_equal(kw.alpha_, ref.alpha_)
    # (at a tight tol: rounding differences send the solver along another path, and two
    # tol-accurate points differ by about tol)
    tight = SVMPlus(tol=1e-7).fit(X, y, X_star)
    spm = SVMPlus(tol=1e-7).fit(sp.csr_matrix(X), y, sp.csr_matrix(X_star))
    np.testing.assert_allclose(spm.alpha_, tight.alpha_, atol=1e-5)
    X32, Xs32 = X.astype(np.float32), X_star.astype(np.float32)
    f32 = SVMPlus(tol=1e-7).fit(X32, y, Xs32)
    f64 = SVMPlus(tol=1e-7).fit(X32.astype(float), y, Xs32.astype(float))
    np.testing.assert_allclose(f32.decision_function(X), f64.decision_function(X), atol=1e-5)


def test_inputs_not_modified():
    X, y, X_star = make_lupi(8)
    copies = [a.copy() for a in (X, y, X_star)]
    for solver in SOLVERS:
        for mode in ("svm+", "dsvm+"):
            est = SVMPlus(solver=solver, mode=mode).fit(X, y, X_star)
            est.predict(X)
            est.correcting_function(X_star, y)
    for a, c in zip((X, y, X_star), copies, strict=True):
        np.testing.assert_array_equal(a, c)


def test_pickle_and_clone():
    X, y, X_star = make_lupi(9)
    for mode in ("svm+", "dsvm+"):
        est = SVMPlus(mode=mode, kernel="linear", gamma_star=0.3).fit(X, y, X_star)
        back = pickle.loads(pickle.dumps(est))
        np.testing.assert_array_equal(back.decision_function(X), est.decision_function(X))
        np.testing.assert_array_equal(
            back.correcting_function(X_star, y), est.correcting_function(X_star, y)
        )
        c = clone(est)
        assert c.get_params() == est.get_params() and not hasattr(c, "alpha_")


@pytest.mark.parametrize(
    "params, err, match",
    [
        ({"C": 0.0}, ValueError, "C must be > 0"),
        ({"C": -1.0}, ValueError, "C must be > 0"),
        ({"C": "1"}, TypeError, "C must be a real number"),
        ({"gamma_plus": 0.0}, ValueError, "gamma_plus must be > 0"),
        ({"gamma_plus": float("inf")}, ValueError, "gamma_plus must be finite"),
        ({"solver": "loqo"}, ValueError, "solver must be one of"),
        ({"kernel": "sigmoid"}, ValueError, "kernel must be one of"),
        ({"kernel_plus": "cosine"}, ValueError, "kernel_plus must be one of"),
        ({"kernel": "precomputed"}, ValueError, "kernel='precomputed' is not supported"),
        ({"gamma": -1.0}, ValueError, "gamma must be >= 0"),
        ({"gamma_star": "wide"}, ValueError, "gamma_star must be 'scale', 'auto'"),
        ({"mode": "svm"}, ValueError, "mode must be one of"),
        ({"tol": 0.0}, ValueError, "tol must be >= 1e-12"),
        # below rounding: the SMO solvers only ran to 10^7 steps (8 s on 50 examples)
        ({"tol": 1e-300}, ValueError, "tol must be >= 1e-12"),
        ({"max_iter": 0}, ValueError, "max_iter must be >= 1"),
        ({"cache_size": -5}, ValueError, "cache_size must be > 0"),
    ],
)
def test_bad_params(params, err, match):
    X, y, X_star = make_lupi(0, n=20)
    with pytest.raises(err, match=match):
        SVMPlus(**params).fit(X, y, X_star)


def test_qp_refuses_more_examples_than_its_limit():
    """solver='qp' on 4,000 examples (under 1 MB) grew by 2 GB for minutes; now refused before
    any work, naming the limit and solver='asmo'; tol=1e-12, the floor, is accepted."""
    X, y, X_star = make_lupi(0, n=4000)
    with pytest.raises(ValueError, match=r"4,000 examples is over its limit of 1,024.*asmo"):
        SVMPlus(solver="qp").fit(X, y, X_star)
    # 2,048 examples ran 73 s on two busy cores (issue 53's one-label fuzz at the old limit)
    X, y, X_star = make_lupi(0, n=1025)
    with pytest.raises(ValueError, match=r"1,025 examples is over its limit of 1,024"):
        SVMPlus(solver="qp").fit(X, y, X_star)
    X, y, X_star = make_lupi(0, n=20)
    assert SVMPlus(tol=1e-12, max_iter=10**4).fit(X, y, X_star).predict(X).shape == (20,)


def test_bad_data():
    X, y, X_star = make_lupi(0, n=20)
    with pytest.raises(ValueError, match="X_star has 19 rows but X has 20"):
        SVMPlus().fit(X, y, X_star[:-1])
    with pytest.raises(ValueError, match="needs the privileged features"):
        SVMPlus().fit(X, y)
    with pytest.raises(TypeError, match="give the privileged features once"):
        SVMPlus().fit(X, y, X_star, privileged=X_star)
    for bad in (np.nan, np.inf):
        Xb, Xsb = X.copy(), X_star.copy()
        Xb[3, 1], Xsb[5, 0] = bad, bad
        with pytest.raises(ValueError, match="Input X contains"):
            SVMPlus().fit(Xb, y, X_star)
        with pytest.raises(ValueError, match="Input X_star contains"):
            SVMPlus().fit(X, y, Xsb)
    with pytest.raises(ValueError, match="exactly two classes, got 1 class"):
        SVMPlus().fit(X, np.ones(20), X_star)
    with pytest.raises(ValueError, match="exactly two classes, got 3 classes"):
        SVMPlus().fit(X, np.arange(20) % 3, X_star)
    with pytest.raises(ValueError, match="Unknown label type"):
        SVMPlus().fit(X, np.linspace(0, 1, 20), X_star)


def test_predict_takes_only_X():
    X, y, X_star = make_lupi(0, n=30)
    with pytest.raises(NotFittedError):
        SVMPlus().predict(X)
    est = SVMPlus().fit(X, y, X_star)
    for method in (est.predict, est.decision_function):
        with pytest.raises(TypeError, match="takes only X.*privileged features exist only"):
            method(X, X_star)
        with pytest.raises(TypeError, match="takes only X"):
            method(X, X_star=X_star)
    with pytest.raises(ValueError, match="X has 2 features"):
        est.predict(X[:, :2])
    with pytest.raises(ValueError, match="X_star has 3 features"):
        est.correcting_function(X)


def test_verbose_and_max_iter(capsys):
    X, y, X_star = make_lupi(1)
    for solver in SOLVERS:
        SVMPlus(solver=solver, verbose=True).fit(X, y, X_star)
        assert f"[SVMPlus] {solver}" in capsys.readouterr().err
    with pytest.warns(ConvergenceWarning, match="max_iter=3"):
        est = SVMPlus(max_iter=3).fit(X, y, X_star)
    assert est.n_iter_ == 3
    # even a stopped solver leaves a feasible point and an honest objective
    assert est.dual_objective_ == pytest.approx(dual_value(est, X, y, X_star), rel=1e-9)


class _SelfPrivileged(SVMPlus):
    """SVMPlus with X itself as the privileged features: a legitimate (if uninformative) LUPI
    problem whose fit(X, y) has scikit-learn's signature."""

    def fit(self, X, y):
        return super().fit(X, y, X)


def test_check_estimator():
    # check_estimator calls fit(X, y): SVMPlus itself cannot take part, since fit requires the
    # privileged features X_star that no generic check supplies. The adapter above runs every
    # check on the same code (validation, label handling, dtypes, sparse input, pickling,
    # n_features_in_, not-fitted errors, prediction); all must pass.
    results = check_estimator(_SelfPrivileged(), on_fail=None)
    failed = [r["check_name"] for r in results if r["status"] == "failed"]
    assert not failed, failed


# --------------------------------------------------------------------------- Mackey-Glass
def test_mackey_glass_shapes_labels_and_reproducibility():
    X, y, X_star = make_mackey_glass(300, D=5, random_state=0)
    assert X.shape == X_star.shape == (300, 4) and y.shape == (300,)
    assert set(np.unique(y)) == {-1, 1}
    X2, y2, Xs2 = make_mackey_glass(300, D=5, random_state=0)
    np.testing.assert_array_equal(X, X2)
    np.testing.assert_array_equal(X_star, Xs2)
    X3, _, _ = make_mackey_glass(300, D=5, random_state=1)
    assert not np.allclose(X, X3)
    # rows are consecutive unit times: the windows overlap, and X* is the series around t + D
    s = X[:, 3]
    np.testing.assert_array_equal(X[1:, :3], X[:-1, 1:])
    t = np.arange(3, 300 - 7)
    np.testing.assert_array_equal(X_star[t, 0], s[t + 3])  # x(t + D - 2)
    np.testing.assert_array_equal(X_star[t, 3], s[t + 7])  # x(t + D + 2)
    # the label compares x(t + D) with x(t), where x(t + D) lies between X*'s columns 1 and 2
    np.testing.assert_array_equal(y[t], np.where(s[t + 5] > s[t], 1, -1))
    for D in (1, 8):
        _, yD, XsD = make_mackey_glass(200, D=D, random_state=2)
        XD, _, _ = make_mackey_glass(200, D=D, random_state=2)
        np.testing.assert_array_equal(yD[:-D], np.where(XD[D:, 3] > XD[:-D, 3], 1, -1))
    assert 0.3 < np.mean(y == 1) < 0.7


def test_mackey_glass_follows_the_delay_equation():
    """x(t + 1) - x(t - 1) equals the integral of the right-hand side over [t - 1, t + 1],
    by Simpson's rule on the unit samples (error about 1e-4); the wrong delay misses by far."""
    X, _, _ = make_mackey_glass(600, random_state=3)
    s = X[:, 3]

    def rhs(tau):
        t = np.arange(tau + 1, s.size - 1)
        xd = np.r_[np.full(tau, np.nan), s[:-tau]]
        f = -0.1 * s + 0.2 * xd / (1 + xd**10)
        return np.abs(s[t + 1] - s[t - 1] - (f[t - 1] + 4 * f[t] + f[t + 1]) / 3).max()

    assert rhs(17) < 5e-4
    assert rhs(16) > 1e-2 and rhs(18) > 1e-2
    assert 0.2 < s.min() and s.max() < 1.6  # the attractor's range


def test_mackey_glass_bad_arguments():
    with pytest.raises(ValueError, match="n_samples must be >= 1"):
        make_mackey_glass(0)
    with pytest.raises(ValueError, match="D must be >= 1"):
        make_mackey_glass(10, D=0)
    with pytest.raises(ValueError, match="tau / dt must be a positive integer"):
        make_mackey_glass(10, tau=17.05)
    with pytest.raises(ValueError, match="sampling / dt must be a positive integer"):
        make_mackey_glass(10, dt=0.3)
    with pytest.raises(ValueError, match="sampling / dt must be a positive integer"):
        make_mackey_glass(10, sampling=0.05)
