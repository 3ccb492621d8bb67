// nanobind layer: numpy / scipy buffers in, numpy arrays out, errors as Python exceptions.
// The solver runs without the GIL; the progress hook takes it back a few times per second
// to let Ctrl-C through and to call the optional Python callback.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>

#include <cmath>
#include <limits>
#include <mutex>
#include <memory>
#include <optional>
#include <vector>

#include "linear_dual.hpp"
#include "pu_dh.hpp"
#include "qmatrix.hpp"
#include "qp.hpp"
#include "svmplus.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace {

template <class T>
using Vec = nb::ndarray<const T, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
template <class T>
using Mat = nb::ndarray<const T, nb::ndim<2>, nb::c_contig, nb::device::cpu>;

nb::ndarray<nb::numpy, double, nb::ndim<1>> to_numpy(const std::vector<double>& v) {
    auto* data = new double[v.size() ? v.size() : 1];
    std::copy(v.begin(), v.end(), data);
    nb::capsule owner(data, [](void* p) noexcept { delete[] static_cast<double*>(p); });
    return nb::ndarray<nb::numpy, double, nb::ndim<1>>(data, {v.size()}, owner);
}

unl::Data make_data(const std::optional<Mat<double>>& X64, const std::optional<Mat<float>>& X32,
                    const std::optional<Vec<double>>& csr_data, const std::optional<Vec<int32_t>>& csr_indices,
                    const std::optional<Vec<int64_t>>& csr_indptr, int64_t n_rows, int64_t n_cols) {
    unl::Data X;
    X.n = n_rows;
    X.d = n_cols;
    if (X64) {
        X.x64 = X64->data();
    } else if (X32) {
        X.x32 = X32->data();
    } else if (csr_data && csr_indices && csr_indptr) {
        if (static_cast<int64_t>(csr_indptr->shape(0)) != n_rows + 1)
            throw nb::value_error("csr_indptr must have n_rows + 1 entries");
        X.sparse = true;
        X.val = csr_data->data();
        X.ind = csr_indices->data();
        X.indptr = csr_indptr->data();
    } else {
        throw nb::value_error("no training data given to the engine");
    }
    return X;
}

unl::KernelParams kernel_params(int kernel, double gamma, double coef0, int degree, int n_jobs) {
    if (kernel < 0 || kernel > 3) throw nb::value_error("kernel code must be 0 (linear), 1 (poly), 2 (rbf) or 3 (precomputed)");
    unl::KernelParams kp;
    kp.type = static_cast<unl::KernelType>(kernel);
    kp.gamma = gamma;
    kp.coef0 = coef0;
    kp.degree = degree;
    kp.n_jobs = n_jobs;
    return kp;
}

// Turns the optional Python callback into an engine ProgressFn that also checks for signals.
struct ProgressBridge {
    nb::object callback;
    std::unique_ptr<nb::python_error> error;

    unl::ProgressFn fn() {
        return [this](const unl::Progress& p) -> bool {
            nb::gil_scoped_acquire gil;
            if (PyErr_CheckSignals() != 0) {
                error = std::make_unique<nb::python_error>();
                return true;
            }
            if (callback.is_none()) return false;
            try {
                return nb::cast<bool>(callback(p.iter, p.violation, p.objective, p.elapsed));
            } catch (nb::python_error& e) {
                error = std::make_unique<nb::python_error>(std::move(e));
                return true;
            }
        };
    }
};

// Runs solve() with the GIL released and `progress` (a Python callable or None) called at
// the engine's report points; a Python exception raised there, or Ctrl-C, ends the solve and
// is re-raised here. opt.progress is set for the solver to use.
template <class Options, class Solve>
auto run_engine(nb::object progress, Options& opt, Solve&& solve) {
    ProgressBridge bridge{std::move(progress), nullptr};
    opt.progress = bridge.fn();
    decltype(solve()) r;
    {
        nb::gil_scoped_release release;
        r = solve();
    }
    if (bridge.error) throw *bridge.error;
    return r;
}

// ---------------------------------------------------------------------------------------
// Typed objects: the training data (which keeps its arrays alive), the kernel, the options,
// a kernel-row cache that outlives one solve, and the result of a solve.

struct PyData {
    unl::Data view;
    std::vector<nb::object> keep;  // the arrays `view` points into
};

PyData data_dense64(Mat<double> X, nb::object owner) {
    PyData d;
    d.view.n = static_cast<int64_t>(X.shape(0));
    d.view.d = static_cast<int64_t>(X.shape(1));
    d.view.x64 = X.data();
    d.keep.push_back(owner);
    return d;
}

PyData data_dense32(Mat<float> X, nb::object owner) {
    PyData d;
    d.view.n = static_cast<int64_t>(X.shape(0));
    d.view.d = static_cast<int64_t>(X.shape(1));
    d.view.x32 = X.data();
    d.keep.push_back(owner);
    return d;
}

// CSR with sorted, unique column indices in [0, n_cols) (checked here: the sparse dot products
// rely on it)
PyData data_csr(Vec<double> data, Vec<int32_t> indices, Vec<int64_t> indptr, int64_t n_cols,
                nb::object data_o, nb::object indices_o, nb::object indptr_o) {
    const int64_t n = static_cast<int64_t>(indptr.shape(0)) - 1;
    if (n < 0) throw nb::value_error("indptr must have n_rows + 1 entries");
    const int64_t nnz = static_cast<int64_t>(data.shape(0));
    if (static_cast<int64_t>(indices.shape(0)) != nnz || indptr.data()[0] != 0 || indptr.data()[n] != nnz)
        throw nb::value_error("data, indices and indptr do not form a CSR matrix");
    for (int64_t i = 0; i < n; ++i) {
        const int64_t a = indptr.data()[i], b = indptr.data()[i + 1];
        if (b < a) throw nb::value_error("indptr must be non-decreasing");
        for (int64_t k = a; k < b; ++k) {
            const int32_t c = indices.data()[k];
            if (c < 0 || c >= n_cols) throw nb::value_error("a column index is out of range");
            if (k > a && c <= indices.data()[k - 1])
                throw nb::value_error("column indices must be sorted and unique within each row");
        }
    }
    PyData d;
    d.view.n = n;
    d.view.d = n_cols;
    d.view.sparse = true;
    d.view.val = data.data();
    d.view.ind = indices.data();
    d.view.indptr = indptr.data();
    d.keep = {data_o, indices_o, indptr_o};
    return d;
}

unl::KernelParams checked_kernel(const unl::KernelParams& kp, const PyData& data) {
    if (kp.type == unl::KernelType::Precomputed && (data.view.sparse || !data.view.x64 || data.view.n != data.view.d))
        throw nb::value_error("a precomputed kernel needs a square dense float64 Gram matrix");
    return kp;
}

// Kernel rows over a set of points (rows of the data), cached under a byte budget; successive
// solves on the same points reuse them. One solve at a time (the lock): the kernel's sparse
// scatter buffer and the cache are not shareable between threads.
struct PyKernelRows {
    nb::object data_ref;
    std::unique_ptr<unl::Kernel> K;
    std::unique_ptr<unl::PointRows<double>> r64;
    std::unique_ptr<unl::PointRows<float>> r32;
    std::mutex lock;

    PyKernelRows(nb::object data, const unl::KernelParams& kp, Vec<int32_t> rows, double cache_bytes, bool float32)
        : data_ref(std::move(data)) {
        const PyData& d = nb::cast<const PyData&>(data_ref);
        if (!(cache_bytes >= 0) || cache_bytes > 1e15) throw nb::value_error("cache_bytes must lie in [0, 1e15]");
        std::vector<int32_t> r(rows.data(), rows.data() + rows.shape(0));
        for (int32_t v : r)
            if (v < 0 || v >= d.view.n) throw nb::index_error("rows: index out of range");
        K = std::make_unique<unl::Kernel>(d.view, checked_kernel(kp, d));
        if (float32) r32 = std::make_unique<unl::PointRows<float>>(*K, std::move(r), cache_bytes);
        else r64 = std::make_unique<unl::PointRows<double>>(*K, std::move(r), cache_bytes);
    }
    int64_t size() const { return r64 ? r64->size() : r32->size(); }
    int64_t rows_computed() const { return r64 ? r64->rows_computed() : r32->rows_computed(); }
    nb::dict stats() const {
        nb::dict out;
        auto fill = [&](const auto& c) {
            out["hits"] = c.cache().hits();
            out["misses"] = c.cache().misses();
            out["bytes"] = c.cache().bytes_used();
            out["rows_computed"] = c.rows_computed();
        };
        if (r64) fill(*r64); else fill(*r32);
        return out;
    }
};

struct QPSolution {
    std::vector<double> alpha, G;
    unl::SolveResult info;
    int64_t kernel_rows = 0;  // rows computed by this solve
};

// min 1/2 a'Qa + p'a s.t. 0 <= a <= C (and y'a = y'alpha0 when `equality`), Q signed by y or
// label-mixed by (labels, mu); see qmatrix.hpp.
QPSolution solve_kernel_qp(PyKernelRows& rows, Vec<int64_t> var_point, Vec<double> p, Vec<double> C,
                           Vec<double> alpha0, std::optional<Vec<int8_t>> y,
                           std::optional<nb::ndarray<const int8_t, nb::ndim<2>, nb::c_contig, nb::device::cpu>> labels,
                           std::optional<Vec<double>> mu, bool equality, const unl::SolverOptions& options,
                           nb::object progress) {
    const size_t l = var_point.shape(0);
    if (p.shape(0) != l || C.shape(0) != l || alpha0.shape(0) != l)
        throw nb::value_error("var_point, p, C and alpha0 must have the same length");
    for (size_t t = 0; t < l; ++t) {
        const int64_t v = var_point.data()[t];
        if (v < 0 || v >= rows.size()) throw nb::index_error("var_point: index out of range");
        const double c = C.data()[t], a = alpha0.data()[t];
        if (!(c > 0) || !std::isfinite(c)) throw nb::value_error("C must be positive and finite");
        if (!(a >= 0 && a <= c)) throw nb::value_error("alpha0 must lie in [0, C]");
        if (!std::isfinite(p.data()[t])) throw nb::value_error("p must be finite");
    }
    std::vector<int8_t> Y;
    std::vector<double> weights;
    int64_t m = 1;
    if (labels) {
        if (y) throw nb::value_error("give either y (a signed Q) or labels and mu (a label-mixed Q)");
        if (!mu || labels->shape(0) != l || mu->shape(0) != labels->shape(1) || labels->shape(1) == 0)
            throw nb::value_error("labels must have shape (len(var_point), m) and mu shape (m,)");
        m = static_cast<int64_t>(labels->shape(1));
        Y.assign(labels->data(), labels->data() + l * m);
        weights.assign(mu->data(), mu->data() + m);
        for (double v : weights)
            if (!(v >= 0) || !std::isfinite(v)) throw nb::value_error("mu must be non-negative and finite");
    } else if (y) {
        if (y->shape(0) != l) throw nb::value_error("y must have one entry per variable");
        Y.assign(y->data(), y->data() + l);
    } else {
        Y.assign(l, 1);
    }
    for (int8_t v : Y)
        if (v != 1 && v != -1) throw nb::value_error("y and labels must hold +1 or -1");
    // the solver's own signs: the equality constraint's y (all +1 for a label-mixed Q)
    std::vector<int8_t> ysolve = labels ? std::vector<int8_t>(l, 1) : Y;
    std::vector<int64_t> vp(var_point.data(), var_point.data() + l);
    QPSolution out;
    out.alpha.assign(alpha0.data(), alpha0.data() + l);
    out.G.resize(l);
    unl::SolverOptions opt = options;
    std::lock_guard<std::mutex> guard(rows.lock);
    const int64_t before = rows.rows_computed();
    out.info = run_engine(progress, opt, [&] {
        auto run = [&](auto& R) {
            using T = typename std::remove_reference_t<decltype(R)>::value_type;
            unl::PointQMatrix<T> Q(R, vp, Y, weights, m);
            std::unique_ptr<unl::Solver> solver = equality ? std::make_unique<unl::Solver>()
                                                           : std::make_unique<unl::BoxSolver>();
            return solver->solve(static_cast<int64_t>(l), Q, p.data(), ysolve.data(), C.data(),
                                 out.alpha.data(), out.G.data(), opt);
        };
        return rows.r64 ? run(*rows.r64) : run(*rows.r32);
    });
    out.kernel_rows = rows.rows_computed() - before;
    return out;
}

struct LinearSolution {
    std::vector<double> alpha, w;
    int64_t m = 1, d = 0;
    unl::LinearDualResult info;
};

// min 1/2 sum_k mu_k ||w_k||^2 + p'a, w_k = w0_k + sum_t signs[t,k] a_t x_row(t), 0 <= a <= C
// (and y'a = y'alpha0 when `equality`); see linear_dual.hpp.
LinearSolution solve_linear_dual(const PyData& data, Vec<int32_t> row, Vec<double> p, Vec<double> C,
                                 Vec<double> alpha0,
                                 nb::ndarray<const int8_t, nb::ndim<2>, nb::c_contig, nb::device::cpu> signs,
                                 std::optional<Vec<double>> mu, std::optional<Vec<int8_t>> y,
                                 std::optional<Mat<double>> w0, bool equality, double shift,
                                 const unl::SolverOptions& options, uint64_t seed, nb::object progress) {
    if (data.view.x32 == nullptr && data.view.x64 == nullptr && !data.view.sparse)
        throw nb::value_error("no data");
    const size_t l = row.shape(0), m = signs.shape(1);
    if (p.shape(0) != l || C.shape(0) != l || alpha0.shape(0) != l || signs.shape(0) != l || m == 0)
        throw nb::value_error("row, p, C, alpha0 and signs must have one entry (row) per variable");
    unl::LinearDualProblem lp;
    lp.X = &data.view;
    lp.row.assign(row.data(), row.data() + l);
    for (size_t t = 0; t < l; ++t) {
        if (lp.row[t] < 0 || lp.row[t] >= data.view.n) throw nb::index_error("row: index out of range");
        if (!(C.data()[t] > 0) || !std::isfinite(C.data()[t])) throw nb::value_error("C must be positive and finite");
        if (!(alpha0.data()[t] >= 0 && alpha0.data()[t] <= C.data()[t])) throw nb::value_error("alpha0 must lie in [0, C]");
    }
    lp.sign.assign(signs.data(), signs.data() + l * m);
    for (int8_t v : lp.sign)
        if (v != 1 && v != -1) throw nb::value_error("signs must hold +1 or -1");
    if (mu) {
        if (mu->shape(0) != m) throw nb::value_error("mu must have one weight per column of signs");
        lp.mu.assign(mu->data(), mu->data() + m);
        for (double v : lp.mu)
            if (!(v >= 0) || !std::isfinite(v)) throw nb::value_error("mu must be non-negative and finite");
    } else if (m != 1) {
        throw nb::value_error("several columns of signs need their weights mu");
    }
    lp.y.assign(l, 1);
    if (y) {
        if (y->shape(0) != l) throw nb::value_error("y must have one entry per variable");
        lp.y.assign(y->data(), y->data() + l);
        for (int8_t v : lp.y)
            if (v != 1 && v != -1) throw nb::value_error("y must hold +1 or -1");
    }
    if (w0) {
        if (w0->shape(0) != m || static_cast<int64_t>(w0->shape(1)) != data.view.d)
            throw nb::value_error("w0 must have shape (m, n_features)");
        lp.w0.assign(w0->data(), w0->data() + m * data.view.d);
    }
    lp.p.assign(p.data(), p.data() + l);
    lp.C.assign(C.data(), C.data() + l);
    LinearSolution out;
    out.alpha.assign(alpha0.data(), alpha0.data() + l);
    out.m = static_cast<int64_t>(m);
    out.d = data.view.d;
    unl::LinearDualOptions opt;
    opt.tol = options.eps;
    opt.shrinking = options.shrinking;
    opt.max_iter = options.max_iter;
    opt.seed = seed;
    out.info = run_engine(progress, opt, [&] {
        unl::LinearDual ld(lp, out.alpha, opt);
        unl::LinearDualResult r = equality ? ld.solve_pairs(opt.tol) : ld.solve_box(shift, opt.tol);
        out.w = ld.w();
        return r;
    });
    return out;
}

nb::dict solve_pu(std::optional<Mat<double>> X64, std::optional<Mat<float>> X32,
                  std::optional<Vec<double>> csr_data, std::optional<Vec<int32_t>> csr_indices,
                  std::optional<Vec<int64_t>> csr_indptr, int64_t n_rows, int64_t n_cols,
                  Vec<int32_t> pos, Vec<int32_t> unl, int kernel, double gamma, double coef0, int degree,
                  double c1, double c2, double tol, double cache_bytes, int64_t max_iter, int solver,
                  bool shrinking, std::optional<Vec<double>> sigma0, nb::object progress, uint64_t seed,
                  int n_jobs, bool cache_float32, std::optional<Vec<double>> h,
                  std::optional<Mat<double>> start_products, bool positive_g, int linear_cd, double beta0) {
    unl::Data X = make_data(X64, X32, csr_data, csr_indices, csr_indptr, n_rows, n_cols);
    unl::PUProblem pb;
    pb.X = &X;
    pb.kernel = kernel_params(kernel, gamma, coef0, degree, n_jobs);
    pb.pos.assign(pos.data(), pos.data() + pos.shape(0));
    pb.unl.assign(unl.data(), unl.data() + unl.shape(0));
    for (int32_t r : pb.pos)
        if (r < 0 || r >= n_rows) throw nb::index_error("positive index out of range");
    for (int32_t r : pb.unl)
        if (r < 0 || r >= n_rows) throw nb::index_error("unlabeled index out of range");
    pb.c1 = c1;
    pb.c2 = c2;

    unl::PUOptions opt;
    opt.solver = static_cast<unl::PUSolver>(solver);
    opt.tol = tol;
    opt.cache_bytes = cache_bytes;
    opt.max_iter = max_iter;
    opt.shrinking = shrinking;
    opt.cache_float32 = cache_float32;
    opt.seed = seed;
    if (sigma0) {
        if (sigma0->shape(0) != pb.unl.size()) throw nb::value_error("sigma0 must have one entry per unlabeled point");
        opt.sigma0 = sigma0->data();
    }
    if (h) {
        if (h->shape(0) != pb.unl.size()) throw nb::value_error("h must have one entry per unlabeled point");
        opt.h = h->data();
    }
    if (start_products) {
        if (!sigma0) throw nb::value_error("start_products need the start sigma0 they were computed from");
        if (start_products->shape(0) != pb.unl.size() || start_products->shape(1) != 2)
            throw nb::value_error("start_products must have shape (n_unlabeled, 2)");
        opt.start_products = start_products->data();
    }
    opt.positive_g = positive_g;
    opt.linear_cd = linear_cd;
    opt.beta0 = beta0;
    unl::PUResult r = run_engine(progress, opt, [&] { return unl::solve_pu(pb, opt); });

    nb::dict out;
    out["sigma"] = to_numpy(r.sigma);
    out["g_unl"] = to_numpy(r.g_unl);
    out["g_pos"] = to_numpy(r.g_pos);
    out["w"] = to_numpy(r.w);
    out["beta"] = r.beta;
    out["n_iter"] = r.iter;
    out["converged"] = r.converged;
    out["stopped"] = r.stopped;
    out["violation"] = r.violation;
    out["cache_hits"] = r.cache_hits;
    out["cache_misses"] = r.cache_misses;
    out["cache_bytes"] = r.cache_bytes;
    out["kernel_rows"] = r.kernel_rows;
    out["h"] = to_numpy(r.h);
    out["products"] = to_numpy(r.products);
    return out;
}

// (sigma snapped onto its exact states, weights of the variables at their upper bound): the
// two vectors whose products with K_UU make the SMO solver's start_products.
nb::tuple pu_start_weights(Vec<double> sigma, double c2) {
    std::vector<double> s(sigma.data(), sigma.data() + sigma.shape(0));
    unl::snap_states(s, c2);
    std::vector<double> w = unl::pu_upper_weights(s, c2);
    return nb::make_tuple(to_numpy(s), to_numpy(w));
}

nb::dict solve_qp(std::optional<Mat<double>> X64, std::optional<Mat<float>> X32,
                  std::optional<Vec<double>> csr_data, std::optional<Vec<int32_t>> csr_indices,
                  std::optional<Vec<int64_t>> csr_indptr, int64_t n_rows, int64_t n_cols, Vec<int32_t> rows,
                  Vec<int64_t> var_point, Vec<int8_t> y, Vec<double> p, Vec<double> C, Vec<double> alpha0,
                  int kernel, double gamma, double coef0, int degree, double tol, double cache_bytes,
                  int64_t max_iter, bool shrinking, nb::object progress, int n_jobs) {
    unl::Data X = make_data(X64, X32, csr_data, csr_indices, csr_indptr, n_rows, n_cols);
    unl::QPProblem qp;
    qp.X = &X;
    qp.kernel = kernel_params(kernel, gamma, coef0, degree, n_jobs);
    qp.rows.assign(rows.data(), rows.data() + rows.shape(0));
    const size_t l = var_point.shape(0);
    if (y.shape(0) != l || p.shape(0) != l || C.shape(0) != l || alpha0.shape(0) != l)
        throw nb::value_error("var_point, y, p, C and alpha0 must have the same length");
    for (int32_t r : qp.rows)
        if (r < 0 || r >= n_rows) throw nb::index_error("rows: index out of range");
    qp.var_point.assign(var_point.data(), var_point.data() + l);
    for (int64_t v : qp.var_point)
        if (v < 0 || v >= static_cast<int64_t>(qp.rows.size())) throw nb::index_error("var_point: index out of range");
    qp.y.assign(y.data(), y.data() + l);
    qp.p.assign(p.data(), p.data() + l);
    qp.C.assign(C.data(), C.data() + l);
    qp.alpha0.assign(alpha0.data(), alpha0.data() + l);
    for (size_t t = 0; t < l; ++t) {
        if (qp.y[t] != 1 && qp.y[t] != -1) throw nb::value_error("y must hold +1 or -1");
        if (!(qp.C[t] > 0)) throw nb::value_error("C must be positive");
        if (!(qp.alpha0[t] >= 0 && qp.alpha0[t] <= qp.C[t])) throw nb::value_error("alpha0 must lie in [0, C]");
    }
    unl::SolverOptions opt;
    opt.eps = tol;
    opt.shrinking = shrinking;
    opt.max_iter = max_iter;
    unl::QPResult r = run_engine(progress, opt, [&] { return unl::solve_qp(qp, opt, cache_bytes); });
    nb::dict out;
    out["alpha"] = to_numpy(r.alpha);
    out["G"] = to_numpy(r.G);
    out["rho"] = r.info.rho;
    out["n_iter"] = r.info.iter;
    out["converged"] = r.info.converged;
    out["violation"] = r.info.violation;
    out["objective"] = r.info.objective;
    out["kernel_rows"] = r.kernel_rows;
    return out;
}

nb::dict solve_svmplus(std::optional<Mat<double>> X64, std::optional<Mat<float>> X32,
                       std::optional<Vec<double>> csr_data, std::optional<Vec<int32_t>> csr_indices,
                       std::optional<Vec<int64_t>> csr_indptr, int64_t n_rows, int64_t n_cols,
                       std::optional<Mat<double>> Xs64, std::optional<Mat<float>> Xs32,
                       std::optional<Vec<double>> csrs_data, std::optional<Vec<int32_t>> csrs_indices,
                       std::optional<Vec<int64_t>> csrs_indptr, int64_t ns_cols, Vec<int8_t> y,
                       int kernel, double gamma, double coef0, int degree, int kernel_star,
                       double gamma_star, double coef0_star, int degree_star, double C,
                       double gamma_plus, int solver, double tol, double cache_bytes,
                       int64_t max_iter, nb::object progress, int n_jobs) {
    unl::Data X = make_data(X64, X32, csr_data, csr_indices, csr_indptr, n_rows, n_cols);
    unl::Data Xs = make_data(Xs64, Xs32, csrs_data, csrs_indices, csrs_indptr, n_rows, ns_cols);
    if (static_cast<int64_t>(y.shape(0)) != n_rows) throw nb::value_error("y must have one entry per row of X");
    if (kernel == 3 || kernel_star == 3) throw nb::value_error("SVM+ does not take precomputed kernels");
    if (solver < 0 || solver > 1) throw nb::value_error("solver code must be 0 (asmo) or 1 (gsmo)");
    unl::SVMPlusProblem pb;
    pb.X = &X;
    pb.Xs = &Xs;
    pb.kernel = kernel_params(kernel, gamma, coef0, degree, n_jobs);
    pb.kernel_star = kernel_params(kernel_star, gamma_star, coef0_star, degree_star, n_jobs);
    pb.y.assign(y.data(), y.data() + y.shape(0));
    pb.C = C;
    pb.gamma = gamma_plus;
    unl::SVMPlusOptions opt;
    opt.solver = static_cast<unl::SVMPlusSolver>(solver);
    opt.tol = tol;
    opt.cache_bytes = cache_bytes;
    opt.max_iter = max_iter;
    // std::invalid_argument from the solver arrives as ValueError
    unl::SVMPlusResult r = run_engine(progress, opt, [&] { return unl::solve_svmplus(pb, opt); });
    nb::dict out;
    out["alpha"] = to_numpy(r.alpha);
    out["beta"] = to_numpy(r.beta);
    out["F"] = to_numpy(r.F);
    out["f"] = to_numpy(r.f);
    out["b"] = r.b;
    out["d"] = r.d;
    out["objective"] = r.objective;
    out["violation"] = r.violation;
    out["n_iter"] = r.iter;
    out["triple_steps"] = r.triple_steps;
    out["converged"] = r.converged;
    out["stopped"] = r.stopped;
    out["stalled"] = r.stalled;
    out["kernel_rows"] = r.kernel_rows;
    out["cache_hits"] = r.cache_hits;
    out["cache_misses"] = r.cache_misses;
    out["cache_bytes"] = r.cache_bytes;
    return out;
}

}  // namespace

NB_MODULE(_core, m) {
    m.doc() = "unlabeled's compiled solver engine";
    nb::class_<PyData>(m, "Data", "Training data as the engine sees it (a view that keeps its arrays alive).")
        .def_static("dense", [](nb::object X) {
            if (nb::isinstance<Mat<float>>(X)) return data_dense32(nb::cast<Mat<float>>(X), X);
            return data_dense64(nb::cast<Mat<double>>(X), X);
        }, "X"_a, "A C-contiguous 2-D float64 or float32 array.")
        .def_static("csr", [](nb::object data, nb::object indices, nb::object indptr, int64_t n_cols) {
            return data_csr(nb::cast<Vec<double>>(data), nb::cast<Vec<int32_t>>(indices),
                            nb::cast<Vec<int64_t>>(indptr), n_cols, data, indices, indptr);
        }, "data"_a, "indices"_a, "indptr"_a, "n_cols"_a,
           "CSR arrays (float64, int32, int64) with sorted unique column indices.")
        .def_prop_ro("n_rows", [](const PyData& d) { return d.view.n; })
        .def_prop_ro("n_cols", [](const PyData& d) { return d.view.d; })
        .def_prop_ro("sparse", [](const PyData& d) { return d.view.sparse; });
    nb::class_<unl::KernelParams>(m, "KernelSpec", "A kernel: kind 0 linear, 1 poly, 2 rbf, 3 precomputed.")
        .def("__init__", [](unl::KernelParams* k, int kind, double gamma, double coef0, int degree, int n_jobs) {
            if (kind < 0 || kind > 3) throw nb::value_error("kernel kind must be 0 (linear), 1 (poly), 2 (rbf) or 3 (precomputed)");
            if (degree < 0) throw nb::value_error("degree must be >= 0");
            new (k) unl::KernelParams{static_cast<unl::KernelType>(kind), gamma, coef0, degree, n_jobs};
        }, "kind"_a, "gamma"_a = 1.0, "coef0"_a = 0.0, "degree"_a = 3, "n_jobs"_a = 0)
        .def_prop_ro("kind", [](const unl::KernelParams& k) { return static_cast<int>(k.type); })
        .def_ro("gamma", &unl::KernelParams::gamma)
        .def_ro("coef0", &unl::KernelParams::coef0)
        .def_ro("degree", &unl::KernelParams::degree)
        .def_ro("n_jobs", &unl::KernelParams::n_jobs);
    nb::class_<unl::SolverOptions>(m, "SolverOptions", "Options of the pairwise solver.")
        .def("__init__", [](unl::SolverOptions* o, double tol, bool shrinking, int64_t max_iter) {
            if (!(tol > 0) || !std::isfinite(tol)) throw nb::value_error("tol must be positive and finite");
            new (o) unl::SolverOptions();
            o->eps = tol;
            o->shrinking = shrinking;
            o->max_iter = max_iter;
        }, "tol"_a = 1e-3, "shrinking"_a = true, "max_iter"_a = -1)
        .def_ro("tol", &unl::SolverOptions::eps)
        .def_ro("shrinking", &unl::SolverOptions::shrinking)
        .def_ro("max_iter", &unl::SolverOptions::max_iter);
    nb::class_<PyKernelRows>(m, "KernelRows", "Kernel rows over points (rows of the data) under a byte budget.")
        .def(nb::init<nb::object, const unl::KernelParams&, Vec<int32_t>, double, bool>(), "data"_a, "kernel"_a,
             "rows"_a, "cache_bytes"_a = 200.0 * (1 << 20), "float32"_a = false)
        .def_prop_ro("n_points", &PyKernelRows::size)
        .def("stats", &PyKernelRows::stats, "Cache hits, misses, bytes held and rows computed so far.");
    nb::class_<QPSolution>(m, "QPSolution", "The result of solve_kernel_qp.")
        .def_prop_ro("alpha", [](const QPSolution& r) { return to_numpy(r.alpha); }, nb::rv_policy::automatic)
        .def_prop_ro("G", [](const QPSolution& r) { return to_numpy(r.G); }, nb::rv_policy::automatic)
        .def_prop_ro("rho", [](const QPSolution& r) { return r.info.rho; })
        .def_prop_ro("n_iter", [](const QPSolution& r) { return r.info.iter; })
        .def_prop_ro("converged", [](const QPSolution& r) { return r.info.converged; })
        .def_prop_ro("violation", [](const QPSolution& r) { return r.info.violation; })
        .def_prop_ro("objective", [](const QPSolution& r) { return r.info.objective; })
        .def_ro("kernel_rows", &QPSolution::kernel_rows);
    m.def("solve_kernel_qp", &solve_kernel_qp, "rows"_a, "var_point"_a, "p"_a, "C"_a, "alpha0"_a,
          "y"_a.none() = nb::none(), "labels"_a.none() = nb::none(), "mu"_a.none() = nb::none(),
          "equality"_a = true, "options"_a = unl::SolverOptions(), "progress"_a.none() = nb::none(),
          "min 1/2 a'Qa + p'a s.t. 0 <= a <= C (and y'a = y'alpha0 if equality), "
          "Q_ts = k(x_point(t), x_point(s)) y_t y_s, or sum_k mu_k labels[t,k] labels[s,k] in place of y_t y_s.");
    nb::class_<LinearSolution>(m, "LinearSolution", "The result of solve_linear_dual.")
        .def_prop_ro("alpha", [](const LinearSolution& r) { return to_numpy(r.alpha); }, nb::rv_policy::automatic)
        .def_prop_ro("w", [](const LinearSolution& r) {
            auto* data = new double[r.w.size() ? r.w.size() : 1];
            std::copy(r.w.begin(), r.w.end(), data);
            nb::capsule owner(data, [](void* q) noexcept { delete[] static_cast<double*>(q); });
            return nb::ndarray<nb::numpy, double, nb::ndim<2>>(data, {static_cast<size_t>(r.m), static_cast<size_t>(r.d)}, owner);
        }, nb::rv_policy::automatic)
        .def_prop_ro("n_iter", [](const LinearSolution& r) { return r.info.iter; })
        .def_prop_ro("converged", [](const LinearSolution& r) { return r.info.converged; })
        .def_prop_ro("violation", [](const LinearSolution& r) { return r.info.violation; });
    m.def("solve_linear_dual", &solve_linear_dual, "data"_a, "row"_a, "p"_a, "C"_a, "alpha0"_a, "signs"_a,
          "mu"_a.none() = nb::none(), "y"_a.none() = nb::none(), "w0"_a.none() = nb::none(),
          "equality"_a = false, "shift"_a = 0.0, "options"_a = unl::SolverOptions(), "seed"_a = 0,
          "progress"_a.none() = nb::none(),
          "min 1/2 sum_k mu_k ||w_k||^2 + (p - shift y)'a over 0 <= a <= C (and y'a = y'alpha0 if equality), "
          "w_k = w0_k + sum_t signs[t, k] a_t x_row(t): LIBLINEAR-style dual coordinate descent with w kept.");
    m.def("solve_pu", &solve_pu, "X64"_a.none(), "X32"_a.none(), "csr_data"_a.none(), "csr_indices"_a.none(),
          "csr_indptr"_a.none(), "n_rows"_a, "n_cols"_a, "pos"_a, "unl"_a, "kernel"_a, "gamma"_a, "coef0"_a,
          "degree"_a, "c1"_a, "c2"_a, "tol"_a, "cache_bytes"_a, "max_iter"_a, "solver"_a, "shrinking"_a,
          "sigma0"_a.none(), "progress"_a.none(), "seed"_a = 0, "n_jobs"_a = 0, "cache_float32"_a = false,
          "h"_a.none() = nb::none(), "start_products"_a.none() = nb::none(), "positive_g"_a = true,
          "linear_cd"_a = -1, "beta0"_a = std::numeric_limits<double>::quiet_NaN(),
          "Solve the PU double-hinge dual; see pu_dh.hpp for the formulation.");
    m.def("pu_start_weights", &pu_start_weights, "sigma"_a, "c2"_a,
          "The snapped start and its upper-bound weights, for solve_pu's start_products.");
    m.def("solve_qp", &solve_qp, "X64"_a.none(), "X32"_a.none(), "csr_data"_a.none(), "csr_indices"_a.none(),
          "csr_indptr"_a.none(), "n_rows"_a, "n_cols"_a, "rows"_a, "var_point"_a, "y"_a, "p"_a, "C"_a, "alpha0"_a,
          "kernel"_a, "gamma"_a, "coef0"_a, "degree"_a, "tol"_a, "cache_bytes"_a, "max_iter"_a, "shrinking"_a,
          "progress"_a.none(), "n_jobs"_a = 0,
          "min 1/2 a'Qa + p'a s.t. y'a = y'alpha0, 0 <= a <= C with Q_ts = y_t y_s k(x_point(t), x_point(s)).");
    m.def("solve_svmplus", &solve_svmplus, "X64"_a.none(), "X32"_a.none(), "csr_data"_a.none(),
          "csr_indices"_a.none(), "csr_indptr"_a.none(), "n_rows"_a, "n_cols"_a, "Xs64"_a.none(),
          "Xs32"_a.none(), "csrs_data"_a.none(), "csrs_indices"_a.none(), "csrs_indptr"_a.none(),
          "ns_cols"_a, "y"_a, "kernel"_a, "gamma"_a, "coef0"_a, "degree"_a, "kernel_star"_a,
          "gamma_star"_a, "coef0_star"_a, "degree_star"_a, "C"_a, "gamma_plus"_a, "solver"_a,
          "tol"_a, "cache_bytes"_a, "max_iter"_a, "progress"_a.none(), "n_jobs"_a = 0,
          "Solve the SVM+ dual by aSMO (solver=0) or gSMO (solver=1); see svmplus.hpp.");
}
