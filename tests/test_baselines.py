"""The paper's comparison methods: DoubleHingeQP, RampPU and USMOInit."""

import pickle
import warnings

import numpy as np
import pytest
from conftest import assert_passes_check_estimator, declares, make_pu, small_pu
from oracle import assert_dual_structure, gram, primal_objective, solve_primal
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import SVC

from unlabeled import PUSVC
from unlabeled.pu import DoubleHingeQP, RampPU, USMOInit
from unlabeled.registry import FAMILIES, all_estimators


@pytest.fixture(scope="module")
def problem():
    return make_pu(1, n=160, d=3, p=30)


def ramp_objective(K, s, alpha, beta, prior, lam):
    """J of the ramp-loss PU risk, evaluated directly from its definition."""
    f = K @ alpha + beta
    ramp = lambda z: 0.5 * np.clip(1 - z, 0, 2)  # noqa: E731
    return (
        2 * prior * ramp(f[s == 1]).mean() + ramp(-f[s == 0]).mean() + lam * alpha @ K @ alpha
    ) - prior


def expansion(clf, m):
    alpha = np.zeros(m)
    alpha[clf.support_] = clf.dual_coef_[0]
    return alpha


# --------------------------------------------------------------------------- DoubleHingeQP
@pytest.mark.parametrize("kernel", ["linear", "rbf"])
@pytest.mark.parametrize("lam", [1e-4, 1e-2, 1e-1])
def test_qp_and_pusvc_reach_the_same_objective(problem, kernel, lam):
    X, s, prior = problem
    qp = DoubleHingeQP(prior=prior, lam=lam, kernel=kernel, gamma=0.5).fit(X, s)
    pu = PUSVC(prior=prior, lam=lam, kernel=kernel, gamma=0.5, tol=1e-8).fit(X, s)
    J_star = solve_primal(X, s == 1, prior, lam, kernel, gamma=0.5)
    scale = max(1.0, abs(J_star))
    K = gram(X, kernel, 0.5)
    J_qp = primal_objective(
        K, s == 1, expansion(qp, len(s)), qp.intercept_[0] + qp.threshold_, prior, lam
    )
    assert abs(J_qp - qp.objective_) <= 1e-9 * scale
    assert abs(qp.objective_ - J_star) <= 1e-6 * scale
    assert abs(qp.objective_ - pu.objective_) <= 1e-6 * scale
    np.testing.assert_allclose(qp.decision_function(X), pu.decision_function(X), atol=1e-3)


def test_qp_offset_is_optimal(problem):
    """No other offset gives a lower J for the QP's coefficients (a grid around it)."""
    X, s, prior = problem
    qp = DoubleHingeQP(prior=prior, lam=1e-2, kernel="rbf", gamma=0.5).fit(X, s)
    K = gram(X, "rbf", 0.5)
    alpha = expansion(qp, len(s))
    for db in np.linspace(-0.5, 0.5, 41):
        J = primal_objective(K, s == 1, alpha, qp.intercept_[0] + qp.threshold_ + db, prior, 1e-2)
        assert J >= qp.objective_ - 1e-12


def test_qp_refuses_what_does_not_fit(problem):
    X, s, prior = problem
    need = DoubleHingeQP.memory_needed(len(s))
    with pytest.raises(MemoryError, match=r"needs about [\d,]+ MB .* max_memory=1 MB"):
        DoubleHingeQP(prior=prior, max_memory=1).fit(X, s)
    assert need > 1
    # the 60,000-point problem of the issue needs far more than this machine has
    assert DoubleHingeQP.memory_needed(60_000) > 24 * 1024
    with pytest.raises(ValueError, match="max_memory"):
        DoubleHingeQP(prior=prior, max_memory=0).fit(X, s)


def test_qp_refuses_more_points_than_its_limit_before_any_work():
    """6,000 2-D points (under 1 MB, under the default max_memory): no answer in a minute; now
    refused before any work (no Gram matrix, no solve), naming the limit and PUSVC."""
    X, s, prior = make_pu(0, n=5_990, d=2, p=10)
    with pytest.raises(ValueError, match=r"6,000 points is over its limit of 2,048.*PUSVC"):
        DoubleHingeQP(prior=prior).fit(X, s)
    # 4,096 points ran 94 s on two busy cores (issue 53's one-label fuzz at the old limit)
    X, s, prior = make_pu(0, n=2_039, d=2, p=10)
    with pytest.raises(ValueError, match=r"2,049 points is over its limit of 2,048"):
        DoubleHingeQP(prior=prior).fit(X, s)


def test_qp_follows_the_configured_budget(problem):
    """set_config(max_dense_bytes=1e6) was ignored (max_memory was the only bound): +393 MB."""
    import unlabeled
    from unlabeled.exceptions import MemoryBudgetError

    X, s, prior = problem
    need = DoubleHingeQP.memory_needed(len(s)) * 2**20
    est = DoubleHingeQP(prior=prior)
    with unlabeled.config_context(max_dense_bytes=need / 2):
        with pytest.raises(MemoryBudgetError, match="max_dense_bytes"):
            est.fit(X, s)
    assert not hasattr(est, "dual_coef_")
    with unlabeled.config_context(max_dense_bytes=need):
        assert est.fit(X, s).predict(X).shape == s.shape


# --------------------------------------------------------------------------- RampPU
@pytest.mark.parametrize("kernel", ["linear", "rbf"])
@pytest.mark.parametrize("lam", [1e-3, 1e-2, 1e-1])
def test_ramp_decreases_and_does_not_depend_on_the_inner_solver(problem, kernel, lam):
    X, s, prior = problem
    K = gram(X, kernel, 0.5)
    kw = {"prior": prior, "lam": lam, "kernel": kernel, "gamma": 0.5, "random_state": 3}
    smo = RampPU(tol=1e-8, **kw).fit(X, s)
    qp = RampPU(inner_solver="qp", **kw).fit(X, s)
    for clf in (smo, qp):
        path = clf.objective_path_
        assert np.all(np.diff(path) <= 1e-9 * max(1, abs(path[0]))), path
        J = ramp_objective(
            K, s, expansion(clf, len(s)), clf.intercept_[0] + clf.threshold_, prior, lam
        )
        assert abs(J - clf.objective_) <= 1e-9 * max(1, abs(J))
        assert clf.n_cccp_iter_ == len(path)
    assert smo.n_cccp_iter_ == qp.n_cccp_iter_
    np.testing.assert_allclose(smo.objective_path_, qp.objective_path_, atol=1e-6)
    np.testing.assert_allclose(smo.decision_function(X), qp.decision_function(X), atol=1e-4)


def test_ramp_first_step_is_a_weighted_svm(problem):
    """From f = 0 no point is on the flat side: one CCCP round is a hinge-loss SVM with weights
    c1 = pi/(2 lam p) on P (label +1) and 1/(4 lam n) on U (label -1); LIBSVM solves it too."""
    X, s, prior = problem
    lam = 1e-2
    p, n = (s == 1).sum(), (s == 0).sum()
    y = np.where(s == 1, 1, -1)
    weights = np.where(s == 1, prior / (2 * lam * p), 1 / (4 * lam * n))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        ramp = RampPU(prior=prior, lam=lam, gamma=0.5, init="zero", max_cccp_iter=1, tol=1e-10)
        ramp.fit(X, s)
    svc = SVC(C=1.0, gamma=0.5, tol=1e-10).fit(X, y, sample_weight=weights)
    np.testing.assert_allclose(
        ramp.decision_function(X) - ramp.intercept_[0],
        svc.decision_function(X) - svc.intercept_[0],
        atol=1e-6,
    )


def test_ramp_start_and_reproducibility(problem):
    X, s, prior = problem
    a = RampPU(prior=prior, lam=1e-3, random_state=0).fit(X, s)
    b = RampPU(prior=prior, lam=1e-3, random_state=0).fit(X, s)
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))
    # a fixed point: the last round's tangent is taken where it was solved
    with pytest.warns(ConvergenceWarning, match="max_cccp_iter"):
        RampPU(prior=prior, lam=1e-3, kernel="linear", random_state=0, max_cccp_iter=1).fit(X, s)


def test_ramp_with_every_positive_on_the_flat_side_fits():
    """Two labeled positives, both drawn on the flat side of the ramp by the random start and
    no unlabeled point: the convex step's offset is minimal on a whole ray (the tangent's
    term cancels the positives'), which raised a raw 'the offset is unbounded'. The end of
    the ray is taken; the model is finite."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 2))
    s = np.r_[np.ones(2, int), np.zeros(28, int)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf = RampPU(prior=0.3, random_state=11).fit(X, s)
    assert np.all(np.isfinite(clf.decision_function(X))) and np.isfinite(clf.objective_)
    assert set(clf.predict(X)) <= {0, 1}


@pytest.mark.parametrize(
    "params, match",
    [
        ({"max_cccp_iter": 0}, "max_cccp_iter"),
        ({"init": "ones"}, "init"),
        ({"inner_solver": "cg"}, "inner_solver"),
        ({"tol": -1.0}, "tol"),
        ({"prior": 1.0}, "prior"),
    ],
)
def test_ramp_bad_params(problem, params, match):
    X, s, _ = problem
    with pytest.raises(ValueError, match=match):
        RampPU(**{"prior": 0.4, **params}).fit(X, s)


# --------------------------------------------------------------------------- USMOInit
@pytest.mark.parametrize("kernel", ["linear", "rbf"])
def test_init_is_feasible_and_no_better_than_the_optimum(problem, kernel):
    X, s, prior = problem
    lam = 1e-2
    init = USMOInit(prior=prior, lam=lam, kernel=kernel, gamma=0.5).fit(X, s)
    opt = PUSVC(prior=prior, lam=lam, kernel=kernel, gamma=0.5, tol=1e-8).fit(X, s)
    alpha = expansion(init, len(s))
    assert_dual_structure(alpha, s, prior, lam)
    K = gram(X, kernel, 0.5)
    J = primal_objective(K, s == 1, alpha, init.intercept_[0] + init.threshold_, prior, lam)
    assert abs(J - init.objective_) <= 1e-9 * max(1, abs(J))
    assert init.objective_ >= opt.objective_ - 1e-9


# --------------------------------------------------------------------------- sklearn API
ESTIMATORS = [  # registry: the USMO paper's baselines, this file's subject
    DoubleHingeQP(prior=0.5),
    RampPU(prior=0.5, random_state=0),
    USMOInit(prior=0.5),
]


# --------------------------------------------------------------------------- solver errors
def _qp_solvers() -> list:
    """(entry, its QP settings): every estimator that solves by Clarabel (it needs clarabel,
    or its solver or inner_solver offers "qp"), with that option."""
    out = []
    for entry in all_estimators(load=True):
        constraints = getattr(entry.load(), "_parameter_constraints", {})
        qp = {p: "qp" for p in ("solver", "inner_solver") if "'qp'" in repr(constraints.get(p))}
        if qp or "clarabel" in entry.needs:
            out.append(pytest.param(entry, qp, id=entry.name))
    return out


#: a degenerate problem per family: a vanishing weight of the data term
DEGENERATE = {"pu": {"prior": 0.4, "lam": 1e-12}, "lupi": {"C": 1e-12}}


@pytest.mark.parametrize("entry, qp", _qp_solvers())
def test_qp_status_becomes_an_actionable_error(entry, qp):
    pytest.importorskip("clarabel")
    from unlabeled.exceptions import QPSolverError

    X, s = small_pu()
    est = entry.load()(**DEGENERATE[entry.family], **qp)
    with pytest.raises(QPSolverError) as info:
        est.fit(*FAMILIES[entry.family].arguments({"X": X, "s": s, "y": s, "X_star": X[:, :1]})[0])
    message = str(info.value)
    assert isinstance(info.value, ValueError) and isinstance(info.value, RuntimeError)
    assert ("bring lam closer" in message) == declares(entry.load(), "lam")
    assert "status" in message and "SMO" in message


@pytest.mark.parametrize("est", ESTIMATORS, ids=lambda e: type(e).__name__)
def test_sklearn_compatible(est, problem):
    assert_passes_check_estimator(est)
    X, s, _ = problem
    fitted = clone(est).fit(X, s)
    back = pickle.loads(pickle.dumps(fitted))
    np.testing.assert_array_equal(back.predict(X), fitted.predict(X))
    np.testing.assert_array_equal(fitted.predict(X), fitted.decision_function(X) > 0)
