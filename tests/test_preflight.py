"""The numerical preflight: data, kernel parameters and gamma that would make the kernel
overflow, underflow or depend on rounding are refused before the solve, with an error naming
the argument; valid but unusual data (duplicates, constant features) are accepted. Test points
get fit's preflight (a far point is refused, never a NaN decision value), and text among the
features is refused naming X."""

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import declares, is_kernel_machine, registered, small_pu
from problems import few_labels, shifted_bags

from unlabeled import (
    PUSVC,
    LabeledSVM,
    WellSVMClustering,
)
from unlabeled.registry import all_estimators

# ---------------------------------------------------------------------- kernel overflow
PREFLIGHT = [  # each fit succeeded before, with every prediction 0 or a wrong objective_
    ({}, 1e200, "too large in scale for the rbf kernel"),
    ({"kernel": "linear"}, 1e160, "too large in scale for the linear kernel"),
    ({"kernel": "poly"}, 1e160, "too large in scale for the poly kernel"),
    ({"kernel": "rbf", "gamma": 1e300}, 1.0, r"gamma=1e\+300 is so large .* rounding errors"),
    ({"kernel": "poly", "coef0": 1e300}, 1.0, "Reduce gamma, coef0 or degree"),
    ({"kernel": "poly", "gamma": 1e40}, 1.0, "the poly kernel overflows"),
]


@pytest.mark.parametrize("params, scale, phrase", PREFLIGHT)
def test_kernel_overflow_refused_before_the_solve(monkeypatch, params, scale, phrase):
    def no_solve(*a, **k):
        raise AssertionError("the solver ran before the data were checked")

    monkeypatch.setattr(PUSVC, "_fit", no_solve)  # the check comes before any solve
    X, s = small_pu()
    with pytest.raises(ValueError, match=phrase):
        PUSVC(prior=0.4, n_jobs=1, **params).fit(X * scale, s)


def test_preflight_in_every_kernel_machine():
    """The same check in the ssl estimators and SVM+ (on X and on X_star)."""
    from unlabeled import SVMPlus

    X, s = small_pu()
    y_ssl = np.where(np.arange(len(s)) % 2 == 0, -1, (np.arange(len(s)) // 2) % 2)
    for est in (cls() for cls in registered(is_kernel_machine, family="ssl")):
        with pytest.raises(ValueError, match="too large in scale"):
            est.fit(X * 1e200, y_ssl)
    with pytest.raises(ValueError, match="too large in scale"):
        SVMPlus().fit(X, s, X[:, :1] * 1e200)


def test_precomputed_gram_scale_checked():
    X, s = small_pu()
    K = X @ X.T
    with pytest.raises(ValueError, match="X, the precomputed Gram matrix, has diagonal values"):
        PUSVC(prior=0.4, kernel="precomputed").fit(K * 1e200, s)


# ---------------------------------------------------------------------- gamma
def test_gamma_scale_refuses_identical_points():
    """Three identical points: X.var() = 4.9e-32 (rounding), gamma='scale' was 2e31 and
    objective_ 0.025 where the model's objective is 3.2e15."""
    X = np.full((3, 2), 0.1)
    assert 0 < X.var() < 1e-30
    s = np.array([1, 0, 0])
    for Xi in (X, np.zeros((3, 2)), sp.csr_matrix(X)):
        with pytest.raises(ValueError, match=r"gamma='scale' .* \(numerically\) zero"):
            PUSVC(prior=0.4).fit(Xi, s)
    est = PUSVC(prior=0.4, gamma=1.0).fit(X, s)  # a number is the documented way out
    assert np.all(np.isfinite(est.decision_function(X)))
    PUSVC(prior=0.4, kernel="linear").fit(X, s)  # gamma plays no role: accepted


def test_rbf_gamma_decided_by_rounding_refused():
    """Found by the long fuzz run: with gamma=1e300 and duplicated points, the kernel value of
    a duplicate pair (1, or 0 after a rounding error of 1e-16 in its squared distance) depended
    on the memory order of X, and so did the model."""
    X, s = small_pu()
    X = np.r_[X, X[:5]]
    s = np.r_[s, s[:5]]
    with pytest.raises(ValueError, match=r"gamma=1e\+300 is so large .* rounding errors"):
        PUSVC(prior=0.4, gamma=1e300).fit(X, s)
    with pytest.raises(ValueError, match=r"gamma=1e\+14 is so large"):
        PUSVC(prior=0.4, gamma=1e14).fit(X, s)
    PUSVC(prior=0.4, gamma=1e6, n_jobs=1).fit(X, s)  # large, still meaningful


def test_rbf_identity_kernel_refused():
    """Points far apart for gamma (every k(x_i, x_j) = exp(-1000) underflows to 0): the model
    would predict its offset everywhere."""
    X = 10.0 * np.arange(50, dtype=float)[:, None]
    s = (np.arange(50) % 5 == 0).astype(int)
    with pytest.raises(ValueError, match="gamma=10 makes the rbf kernel the identity"):
        PUSVC(prior=0.4, gamma=10.0).fit(X, s)


# ---------------------------------------------------------------------- data scale
def test_scale_errors_are_named():
    """Found by the fuzz suite: sparse data at 1e300 raised OverflowError from Python float
    arithmetic in gamma='scale'; CLSST at 1e300 raised LinAlgError('Eigenvalues did not
    converge'); the Plummer autoencoder blamed learning_rate for data whose squares overflow."""
    X, s = small_pu()
    with pytest.raises(ValueError, match="X is too large in scale"):
        PUSVC(prior=0.4).fit(sp.csr_matrix(X * 1e300), s)
    from unlabeled import CLSST

    y = np.where(np.arange(len(s)) % 2 == 0, -1, s)
    with pytest.raises(ValueError, match="X is too large in scale for CLSST"):
        CLSST(random_state=0).fit(X * 1e300, y)


def test_pae_data_scale_checked():
    pytest.importorskip("torch")
    from unlabeled import PlummerAutoencoder

    X, _ = small_pu()
    with pytest.raises(ValueError, match="X is too large in scale for PlummerAutoencoder"):
        PlummerAutoencoder(max_iter=2, random_state=0).fit(X * 1e300)


def test_tiny_scale_refused_where_squares_underflow():
    """Found by the long fuzz run: the Plummer autoencoder's loss became NaN on X * 1e-150
    (and blamed learning_rate); CLSST checks the same."""
    from unlabeled import CLSST

    X, s = small_pu()
    y = np.where(np.arange(len(s)) % 2 == 0, -1, s)
    with pytest.raises(ValueError, match="X is too small in scale for CLSST"):
        CLSST(random_state=0).fit(X * 1e-150, y)
    CLSST(random_state=0, max_iter=20).fit(X * 1e-12, y)  # small, fine
    pytest.importorskip("torch")
    from unlabeled import PlummerAutoencoder

    with pytest.raises(ValueError, match="X is too small in scale for PlummerAutoencoder"):
        PlummerAutoencoder(max_iter=2, random_state=0).fit(X * 1e-150)


def test_duplicated_points_and_constant_features_are_fine():
    """Documented behaviour: duplicated rows and constant columns are valid data. The PU risk
    averages over points, so duplicating every point leaves the risk, and so the minimiser,
    unchanged: the fits must agree."""
    X, s = small_pu()
    X = np.c_[X, np.full(len(X), 3.0)]  # a constant feature
    a = PUSVC(prior=0.4, lam=0.1, gamma=0.5, tol=1e-8, n_jobs=1).fit(X, s)
    b = PUSVC(prior=0.4, lam=0.1, gamma=0.5, tol=1e-8, n_jobs=1).fit(np.r_[X, X], np.r_[s, s])
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(X), atol=1e-5)


def _fitted_poly():
    """Every registered kernel machine fitted with the poly kernel on its family's data, with
    the data its predictions take."""
    X, y, truth = few_labels()
    bags, yb = shifted_bags()
    s = truth * (np.arange(len(X)) < 20)
    data = {
        "pu": ((X, s), X),
        "ssl": ((X, y), X),
        "mil": ((bags, yb), bags),
        "cluster": ((X,), X),
        "lupi": ((X, truth, X[:, :1]), X),
    }
    out = []
    for entry in all_estimators(load=True):
        if not is_kernel_machine(entry):
            continue
        cls = entry.load()
        params = {"kernel": "poly"}
        params |= {p: v for p, v in (("prior", 0.5), ("random_state", 0)) if declares(cls, p)}
        args, test = data[entry.family]
        out.append((cls(**params).fit(*args), test))
    return out


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
    X, y, _ = few_labels()
    est = LabeledSVM(kernel="poly", degree=20, gamma=1.0).fit(X, y)
    with pytest.raises(ValueError, match=r"k\(x, x\) = .* for row 0"):
        est.decision_function(X[:2] * 1e4)


@pytest.mark.filterwarnings("ignore")
def test_rbf_and_linear_far_points_finite():
    X, y, _ = few_labels()
    rbf = LabeledSVM().fit(X, y)
    with pytest.raises(ValueError, match="X is too large in scale for the rbf kernel"):
        rbf.decision_function(X[:2] * 1e150)
    assert np.all(np.isfinite(rbf.decision_function(X[:2] * 1e40)))
    lin = LabeledSVM(kernel="linear").fit(X, y)
    assert np.all(np.isfinite(lin.decision_function(X[:2] * 1e150)))
    with pytest.raises(ValueError, match="non-finite decision value"):
        lin.decision_function(np.full((1, 2), 1.7e308))


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
    """Text in a list, an object array or a DataFrame reached NumPy's raw "could
    not convert string to float" (only arrays of strings were checked)."""
    import pandas as pd

    rows = [[0.0, 1.0], [1.0, "high"], [1.0, 1.0], [2.0, 2.0]]
    X = {"list": rows, "object": np.array(rows, dtype=object), "frame": pd.DataFrame(rows)}[form]
    with pytest.raises(ValueError, match=r"X holds 'high' \(str\): the features must be"):
        LabeledSVM().fit(X, [0, 1, -1, -1])
    numeric = [[0.0, 1.0], [1.0, "0.5"], [1.0, 1.0], [2.0, 2.0]]  # text that reads as numbers
    assert LabeledSVM().fit(numeric, [0, 1, -1, -1]).predict(numeric).shape == (4,)
