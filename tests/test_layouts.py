"""Input layouts: dense C and Fortran order, views, lists, CSR, CSC and COO, sparse matrices
with duplicate or unsorted entries and column indices past 32 bits all give the answer of the
canonical dense fit, use no more memory than they need and are left as they were; a
DataFrame's column names are kept without warnings."""

import warnings
from functools import partial

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import declares, is_prior, make_pu, registered_params, small_pu
from problems import layouts
from sklearn.exceptions import ConvergenceWarning
from test_common import case_id

from unlabeled import PUSVC, SVMPlus
from unlabeled.pu import RampPU
from unlabeled.registry import FAMILIES, all_estimators


# ---------------------------------------------------------------------- dense and sparse layouts
def test_svmplus_sparse_fit_equals_dense_fit():
    """A case of the fuzz suite: with one feature, sparse and dense kernel values are the same
    bits, so with the same gamma the two fits must be identical."""
    rng = np.random.default_rng(5)
    X = rng.normal(size=(38, 1))
    y = np.where(X[:, 0] + rng.normal(size=38) > 0, 1, -1)
    Xs = np.abs(X) + rng.random((38, 1))
    ref = SVMPlus().fit(X, y, Xs)
    for name in ("csc", "coo", "F"):
        est = SVMPlus().fit(layouts(X)[name], y, Xs)
        assert est.n_iter_ == ref.n_iter_ and est.kernel_gamma_ == ref.kernel_gamma_
        np.testing.assert_array_equal(est.dual_coef_, ref.dual_coef_)
        np.testing.assert_array_equal(est.intercept_, ref.intercept_)


def test_decision_function_is_the_same_for_every_dense_layout(settings):
    """RampPU with lam=1e-30 on identical points: a model with coefficients of 2e17 whose
    decision values cancel to -1 on a C-ordered X gave -16 on the same X in Fortran order
    (its products rounded differently). Prediction takes dense X in C order, as fit does."""

    settings(min_default_max_iter=10**4)  # the problem hits its cap
    X = np.tile(np.random.default_rng(0).normal(size=(1, 4)), (15, 1))
    s = np.r_[1, 1, 1, np.zeros(12)]
    with pytest.warns(ConvergenceWarning):
        est = RampPU(prior=0.4, lam=1e-30, random_state=0).fit(X, s)
    assert np.abs(est.dual_coef_).max() > 1e10  # the pathological model of the case
    ref = est.decision_function(X)
    for name, A in layouts(X).items():
        if not sp.issparse(A):
            np.testing.assert_array_equal(est.decision_function(A), ref, err_msg=name)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_fortran_ordered_gram_matrix_is_not_copied(dtype):
    """A Fortran-ordered precomputed Gram matrix was copied in full (to C order,
    and float32 twice). A symmetric one is used as its transpose; float32 is converted once
    (the engine reads float64). Same fit as on the C-ordered float64 matrix."""
    import tracemalloc

    rng = np.random.default_rng(0)
    P = rng.normal(size=(400, 3))
    s = (rng.random(400) < 0.2).astype(int)
    sq = np.einsum("ij,ij->i", P, P)
    K = np.exp(-np.maximum(sq[:, None] + sq[None] - 2 * P @ P.T, 0) / 3)
    K = ((K + K.T) / 2).astype(dtype)
    G = np.asfortranarray(K)
    tracemalloc.start()
    try:
        est = PUSVC(prior=0.4, kernel="precomputed", n_jobs=1, random_state=0).fit(G, s)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    copies = 0 if dtype == np.float64 else 1  # float64 copies of K
    assert peak < (copies + 0.25) * K.size * 8, peak / (K.size * 8)
    ref = PUSVC(prior=0.4, kernel="precomputed", n_jobs=1, random_state=0)
    ref.fit(np.ascontiguousarray(K, dtype=np.float64), s)
    np.testing.assert_array_equal(est.decision_function(K), ref.decision_function(K))


# ---------------------------------------------------------------------- sparse duplicates
def test_csr_with_duplicates_read_as_scipy_sums_them():
    """A CSR matrix with duplicate entries (found by the fuzz suite): gamma='scale' was
    computed from X.multiply(X), which does not sum duplicates, so the fit differed from
    the dense one; support_vectors_ held each entry twice. Canonicalised on a copy now."""
    X, s = small_pu()
    rows, cols = np.nonzero(X)
    vals = X[rows, cols]
    dup = sp.csr_matrix(
        (
            np.repeat(vals / 2, 2),
            np.repeat(cols, 2),
            np.r_[0, np.cumsum(2 * np.bincount(rows, minlength=X.shape[0]))],
        ),
        shape=X.shape,
    )
    assert not dup.has_canonical_format and dup.nnz == 2 * np.count_nonzero(X)
    before = dup.data.copy(), dup.indices.copy(), dup.indptr.copy()
    a = PUSVC(prior=0.4, n_jobs=1, random_state=0).fit(dup, s)
    b = PUSVC(prior=0.4, n_jobs=1, random_state=0).fit(X, s)
    assert a.kernel_gamma_ == pytest.approx(b.kernel_gamma_, rel=1e-12)
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(X), atol=1e-8)
    assert a.support_vectors_.has_canonical_format
    after = (dup.data, dup.indices, dup.indptr)
    assert all(np.array_equal(u, v) for u, v in zip(before, after, strict=True))


#: tight tolerances: sparse and dense kernel values round differently, and a solver stopped at
#: tol=1e-3 may stop elsewhere (by 4e-4 for RampPU); the duplicates made differences of up to 1.6
TIGHT = {"tol": 1e-9, "n_jobs": 1, "random_state": 0}


def _dup_cases() -> dict:
    """id -> (entry, its maker): every case of the PU and LUPI estimators (the layouts that
    read X with labels) on X itself (not a Gram matrix), with the TIGHT settings it declares;
    not those that take dense input only (their tags say so: positive naive Bayes, TAN)."""
    out = {}
    for entry in all_estimators(load=True):
        cls = entry.load()
        if not cls().__sklearn_tags__().input_tags.sparse:
            continue
        tight = {k: v for k, v in TIGHT.items() if declares(cls, k)}
        for case in entry.cases if entry.family in ("pu", "lupi") else ():
            if case.data != "precomputed":
                out[case_id(entry, case)] = (entry, partial(cls, **{**case.params, **tight}))
    return out


def _fit_output(entry, est, X, s):
    X_star = np.arange(len(s), dtype=float)[:, None] % 3
    data = {"X": X, "s": s, "y": np.where(s == 1, 1, -1), "X_star": X_star}
    est.fit(*FAMILIES[entry.family].arguments(data)[0])
    return np.array([est.prior_]) if is_prior(entry) else est.decision_function(X)


@pytest.mark.parametrize("name", list(_dup_cases()))
def test_duplicate_and_unsorted_sparse_entries_read_as_scipy_sums_them(name):
    """Duplicate entries moved decision values by up to 1.6 from the dense fit (and the linear
    kernel never returned), and unsorted ones were sorted in the caller's CSR in place. For
    every estimator here, a CSR matrix holding each entry twice, as two halves in shuffled
    order, gives the dense fit and is left as it was."""
    entry, make = _dup_cases()[name]
    for module in entry.needs:
        pytest.importorskip(module)
    X, s = small_pu()
    X = np.round(X, 3)  # halves exact
    dup = layouts(X)["csr_dup"]
    perm = np.random.default_rng(0).permutation(dup.nnz)
    for r in range(X.shape[0]):  # shuffle each row's entries: unsorted indices
        lo, hi = dup.indptr[r], dup.indptr[r + 1]
        order = lo + np.argsort(perm[lo:hi])
        dup.indices[lo:hi], dup.data[lo:hi] = dup.indices[order], dup.data[order]
    dup.has_sorted_indices = False
    before = [a.copy() for a in (dup.data, dup.indices, dup.indptr)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        out, ref = _fit_output(entry, make(), dup, s), _fit_output(entry, make(), X, s)
    np.testing.assert_allclose(out, ref, rtol=1e-6, atol=1e-6 * (1 + np.abs(ref).max()))
    assert all(
        np.array_equal(a, b)
        for a, b in zip(before, (dup.data, dup.indices, dup.indptr), strict=True)
    )
    assert not dup.has_sorted_indices


# ---------------------------------------------------------------------- column indices
def test_column_indices_past_32_bits():
    """Column indices of 2**31 or more were cast to int32 unchecked. The kernel
    solvers renumber the columns in use (the fit equals the fit on the compact matrix); the
    linear solvers, whose w has one entry per column, refuse X naming the 32-bit limit."""
    X, s = small_pu()
    wide = 2**31 + 10
    rows, cols = np.nonzero(X)
    Xc = np.c_[X, np.r_[1.0, np.zeros(len(s) - 1)]]
    W = sp.csr_matrix(
        (np.r_[X[rows, cols], 1.0], (np.r_[rows, 0], np.r_[cols, wide - 3])), shape=(len(s), wide)
    )
    # sparse and dense dot products round differently: at the default tol the two fits may
    # stop at different points within it, so both are solved to 1e-10
    a = PUSVC(prior=0.4, gamma=0.3, n_jobs=1, random_state=0, tol=1e-10).fit(W, s)
    b = PUSVC(prior=0.4, gamma=0.3, n_jobs=1, random_state=0, tol=1e-10).fit(Xc, s)
    np.testing.assert_allclose(a.decision_function(W), b.decision_function(Xc), atol=1e-7)
    with pytest.raises(ValueError, match=r"X has 2147483658 columns.*32-bit"):
        PUSVC(prior=0.4, kernel="linear", n_jobs=1).fit(W, s)


# ---------------------------------------------------------------------- the search
def _search(X, s):
    from unlabeled.model_selection import PUGridSearchCV

    return PUGridSearchCV(PUSVC(prior=0.4, n_jobs=1), None, cv=3, random_state=0).fit(X, s)


@pytest.mark.parametrize("kind", ["dataframe", "coo", "csc", "dok", "list"])
def test_search_accepts_what_the_estimators_accept(kind):
    X, s = small_pu()
    ref = _search(X, s)
    if kind == "dataframe":
        pd = pytest.importorskip("pandas")
        Xk, sk = pd.DataFrame(X, columns=["a", "b", "c"]), pd.Series(s, index=np.arange(len(s)) * 7)
    else:
        Xk, sk = (
            {
                "list": X.tolist(),
                "coo": sp.coo_matrix(X),
                "csc": sp.csc_matrix(X),
                "dok": sp.dok_matrix(X),
            }.get(kind),
            s,
        )
    before = Xk.copy() if kind != "list" else list(Xk)
    got = _search(Xk, sk)
    np.testing.assert_allclose(
        got.cv_results_["mean_test_score"], ref.cv_results_["mean_test_score"], atol=1e-9
    )
    np.testing.assert_allclose(got.decision_function(X), ref.decision_function(X), atol=1e-9)
    if kind == "dataframe":
        assert list(got.best_estimator_.feature_names_in_) == ["a", "b", "c"]
        assert Xk.equals(before)
    elif kind != "list":
        assert (Xk != before).nnz == 0 and Xk.format == before.format


def test_search_leaves_an_unsorted_csr_as_it_was():
    """PUGridSearchCV indexed the caller's matrix, sorting its indices in place."""
    from unlabeled.model_selection import PUGridSearchCV

    X, s = small_pu()
    M = sp.csr_matrix(X)
    for r in range(M.shape[0]):
        lo, hi = M.indptr[r], M.indptr[r + 1]
        M.indices[lo:hi], M.data[lo:hi] = M.indices[lo:hi][::-1].copy(), M.data[lo:hi][::-1].copy()
    M.has_sorted_indices = False
    before = [a.copy() for a in (M.data, M.indices, M.indptr)]
    search = PUGridSearchCV(PUSVC(prior=0.4, n_jobs=1), {"lam": [0.1, 0.01]}, cv=2).fit(M, s)
    assert all(
        np.array_equal(a, b) for a, b in zip(before, (M.data, M.indices, M.indptr), strict=True)
    )
    assert not M.has_sorted_indices
    ref = PUGridSearchCV(PUSVC(prior=0.4, n_jobs=1), {"lam": [0.1, 0.01]}, cv=2).fit(X, s)
    assert search.best_params_ == ref.best_params_


def _frame(X, prefix="x"):
    pd = pytest.importorskip("pandas")
    return pd.DataFrame(X, columns=[f"{prefix}{j}" for j in range(X.shape[1])])


@pytest.mark.parametrize("entry", registered_params())
def test_dataframes_fit_and_predict_without_feature_name_warnings(entry):
    """Fitted on a DataFrame and used on one: no "X does not have valid feature names"
    (an internal call used to pass the checked array back through the column-name check).
    Every registered estimator, with its first common case's parameters."""
    X, s, _ = make_pu(0, n=60, d=3, p=15)
    df = _frame(X)
    y = np.where(X[:, 0] > 0.5, 1, 0)
    est = entry.load()(**entry.cases[0].params)
    groups = np.arange(len(y)) // 3
    family = FAMILIES[entry.family]  # fit's arguments, as the family declares them
    y_ssl = np.where(np.arange(len(y)) % 3 == 0, y, -1)
    labels = {"ssl": y_ssl, "pu": s}.get(family.labels, y[::3] if family.keywords else y)
    data = {"X": df, "s": s, "y": labels, "X_star": _frame(X[:, :2] ** 2, "star")}
    args, kw = family.arguments({**data, "groups": groups})
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message=".*feature names")
        if hasattr(est, "fit_predict"):
            est.fit_predict(*args, **kw)
        else:
            est.fit(*args, **kw)
        if family.labels == "ssl":
            est.score(df, y_ssl)
        for method in ("predict", "decision_function", "transform"):
            if hasattr(est, method):
                getattr(est, method)(df, **kw)
    if hasattr(est, "feature_names_in_"):
        np.testing.assert_array_equal(est.feature_names_in_, ["x0", "x1", "x2"])
