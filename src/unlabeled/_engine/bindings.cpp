// nanobind layer: typed objects in (Data, KernelSpec, SolverOptions, KernelRows), typed results
// out, errors as Python exceptions. The solvers run without the GIL; the progress hook takes it
// back a few times per second to let Ctrl-C through and to call the optional Python callback.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>

#include <cmath>
#include <initializer_list>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <type_traits>
#include <vector>

#include "linear_dual.hpp"
#include "problems/pu_dh.hpp"
#include "problems/svmplus.hpp"
#include "blocks.hpp"
#include "qmatrix.hpp"
#include "vbmfa.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace {

template <class T>
using Vec = nb::ndarray<const T, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
template <class T>
using Mat = nb::ndarray<const T, nb::ndim<2>, nb::c_contig, nb::device::cpu>;
using Int8Mat = nb::ndarray<const int8_t, nb::ndim<2>, nb::c_contig, nb::device::cpu>;

nb::ndarray<nb::numpy, double, nb::ndim<1>> to_numpy(const std::vector<double>& v) {
    auto* data = new double[v.size() ? v.size() : 1];
    std::copy(v.begin(), v.end(), data);
    nb::capsule owner(data, [](void* p) noexcept { delete[] static_cast<double*>(p); });
    return nb::ndarray<nb::numpy, double, nb::ndim<1>>(data, {v.size()}, owner);
}

nb::ndarray<nb::numpy, double, nb::ndim<2>> to_numpy(const std::vector<double>& v, size_t rows, size_t cols) {
    auto* data = new double[v.size() ? v.size() : 1];
    std::copy(v.begin(), v.end(), data);
    nb::capsule owner(data, [](void* p) noexcept { delete[] static_cast<double*>(p); });
    return nb::ndarray<nb::numpy, double, nb::ndim<2>>(data, {rows, cols}, owner);
}

std::vector<int32_t> checked_rows(const Vec<int32_t>& rows, int64_t n, const char* what) {
    std::vector<int32_t> r(rows.data(), rows.data() + rows.shape(0));
    for (int32_t v : r)
        if (v < 0 || v >= n) throw nb::index_error((std::string(what) + ": index out of range").c_str());
    return r;
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

template <class T>
PyData data_dense(Mat<T> X, nb::object owner) {
    PyData d;
    d.view.n = static_cast<int64_t>(X.shape(0));
    d.view.d = static_cast<int64_t>(X.shape(1));
    if constexpr (std::is_same_v<T, float>) d.view.x32 = X.data();
    else d.view.x64 = X.data();
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
        std::vector<int32_t> r = checked_rows(rows, d.view.n, "rows");
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
                           std::optional<Int8Mat> labels,
                           std::optional<Vec<double>> mu, bool equality, std::optional<unl::SolverOptions> options_in,
                           nb::object progress, std::optional<Vec<double>> diag) {
    const unl::SolverOptions options = options_in.value_or(unl::SolverOptions());  // None: defaults
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
    std::vector<double> extra;
    if (diag) {
        if (diag->shape(0) != l) throw nb::value_error("diag must have one entry per variable");
        extra.assign(diag->data(), diag->data() + l);
        for (double v : extra)
            if (!(v >= 0) || !std::isfinite(v)) throw nb::value_error("diag must be non-negative and finite");
    }
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
            if (!extra.empty()) Q.add_diagonal(extra);
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
                                 Int8Mat signs,
                                 std::optional<Vec<double>> mu, std::optional<Vec<int8_t>> y,
                                 std::optional<Mat<double>> w0, bool equality, double shift,
                                 std::optional<unl::SolverOptions> options_in, uint64_t seed, nb::object progress,
                                 std::optional<Vec<double>> kink, std::optional<Vec<double>> jump) {
    const unl::SolverOptions options = options_in.value_or(unl::SolverOptions());  // None: defaults
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
    if (kink.has_value() != jump.has_value()) throw nb::value_error("kink and jump go together");
    if (kink) {
        if (kink->shape(0) != l || jump->shape(0) != l) throw nb::value_error("kink and jump must have one entry per variable");
        lp.kink.assign(kink->data(), kink->data() + l);
        lp.jump.assign(jump->data(), jump->data() + l);
        for (size_t t = 0; t < l; ++t)
            if (!(lp.kink[t] >= 0 && lp.kink[t] <= lp.C[t]) || !(lp.jump[t] >= 0) || !std::isfinite(lp.jump[t]))
                throw nb::value_error("kink must lie in [0, C] and jump be non-negative and finite (a convex cost)");
    }
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

// ---------------------------------------------------------------------------------------
// The problems with their own entry points

unl::PUResult solve_pu(const PyData& data, const unl::KernelParams& kernel, Vec<int32_t> pos,
                       Vec<int32_t> unl, double c1, double c2, std::optional<unl::SolverOptions> options_in,
                       int solver, double cache_bytes, bool cache_float32, uint64_t seed,
                       std::optional<Vec<double>> sigma0, std::optional<Vec<double>> h,
                       std::optional<Mat<double>> start_products, bool positive_g, int linear_cd,
                       double beta0, nb::object progress) {
    const unl::SolverOptions options = options_in.value_or(unl::SolverOptions());  // None: defaults
    unl::PUProblem pb;
    pb.X = &data.view;
    pb.kernel = checked_kernel(kernel, data);
    pb.pos = checked_rows(pos, data.view.n, "pos");
    pb.unl = checked_rows(unl, data.view.n, "unl");
    pb.c1 = c1;
    pb.c2 = c2;
    if (solver < 0 || solver > 1) throw nb::value_error("solver must be 0 (smo) or 1 (usmo)");
    unl::PUOptions opt;
    opt.solver = static_cast<unl::PUSolver>(solver);
    opt.tol = options.eps;
    opt.shrinking = options.shrinking;
    opt.max_iter = options.max_iter;
    opt.cache_bytes = cache_bytes;
    opt.cache_float32 = cache_float32;
    opt.seed = seed;
    const size_t n = pb.unl.size();
    if (sigma0) {
        if (sigma0->shape(0) != n) throw nb::value_error("sigma0 must have one entry per unlabeled point");
        opt.sigma0 = sigma0->data();
    }
    if (h) {
        if (h->shape(0) != n) throw nb::value_error("h must have one entry per unlabeled point");
        opt.h = h->data();
    }
    if (start_products) {
        if (!sigma0) throw nb::value_error("start_products need the start sigma0 they were computed from");
        if (start_products->shape(0) != n || start_products->shape(1) != 2)
            throw nb::value_error("start_products must have shape (n_unlabeled, 2)");
        opt.start_products = start_products->data();
    }
    opt.positive_g = positive_g;
    opt.linear_cd = linear_cd;
    opt.beta0 = beta0;
    return run_engine(progress, opt, [&] { return unl::solve_pu(pb, opt); });
}

// (sigma snapped onto its exact states, weights of the variables at their upper bound): the
// two vectors whose products with K_UU make the SMO solver's start_products.
nb::tuple pu_start_weights(Vec<double> sigma, double c2) {
    std::vector<double> s(sigma.data(), sigma.data() + sigma.shape(0));
    unl::snap_states(s, c2);
    std::vector<double> w = unl::pu_upper_weights(s, c2);
    return nb::make_tuple(to_numpy(s), to_numpy(w));
}

// ---------------------------------------------------------------------------------------
// rbf block products for unlabeled._products (see blocks.hpp): out += K W over one block, shapes
// checked here, the work done without the GIL so that Python threads can share the blocks.
using OutMat = nb::ndarray<double, nb::ndim<2>, nb::c_contig, nb::device::cpu>;

void check_block(int64_t r, int64_t c, const Vec<double>& rs, const Vec<double>& cs, const Mat<double>& wt,
                 const OutMat& out) {
    const int64_t k = static_cast<int64_t>(wt.shape(0));
    if (static_cast<int64_t>(rs.shape(0)) != r || static_cast<int64_t>(cs.shape(0)) != c)
        throw nb::value_error("row_sq and col_sq must have one entry per row and column of the block");
    if (static_cast<int64_t>(wt.shape(1)) != c) throw nb::value_error("wt must have shape (k, block columns)");
    if (static_cast<int64_t>(out.shape(0)) != r || static_cast<int64_t>(out.shape(1)) != k)
        throw nb::value_error("out must have shape (block rows, k)");
}

void rbf_dense_times(Mat<double> A, Mat<double> Bt, Vec<double> rs, Vec<double> cs, double gamma, Mat<double> wt,
                     OutMat out) {
    const int64_t r = static_cast<int64_t>(A.shape(0)), d = static_cast<int64_t>(A.shape(1));
    const int64_t c = static_cast<int64_t>(Bt.shape(1));
    if (static_cast<int64_t>(Bt.shape(0)) != d) throw nb::value_error("A and Bt must have the same number of features");
    check_block(r, c, rs, cs, wt, out);
    nb::gil_scoped_release release;
    unl::rbf_dense_times(A.data(), r, d, Bt.data(), c, rs.data(), cs.data(), gamma, wt.data(),
                         static_cast<int64_t>(wt.shape(0)), out.data());
}

template <class T>
void rbf_gram_times(Mat<T> D, Vec<double> rs, Vec<double> cs, double gamma, Mat<double> wt, OutMat out) {
    const int64_t r = static_cast<int64_t>(D.shape(0)), c = static_cast<int64_t>(D.shape(1));
    check_block(r, c, rs, cs, wt, out);
    nb::gil_scoped_release release;
    unl::rbf_gram_times(D.data(), r, c, rs.data(), cs.data(), gamma, wt.data(), static_cast<int64_t>(wt.shape(0)),
                        out.data());
}

nb::ndarray<nb::numpy, double, nb::ndim<1>> exp_nonpositive(Vec<double> x) {
    std::vector<double> y(x.data(), x.data() + x.shape(0));
    for (double v : y)
        if (!(v <= 0.0)) throw nb::value_error("exp_nonpositive takes values <= 0");
    unl::exp_nonpositive(y.data(), static_cast<int64_t>(y.size()));
    return to_numpy(y);
}

unl::SVMPlusResult solve_svmplus(const PyData& data, const PyData& data_star, Vec<int8_t> y,
                                 const unl::KernelParams& kernel, const unl::KernelParams& kernel_star,
                                 double C, double gamma_plus, std::optional<unl::SolverOptions> options_in, int solver,
                                 double cache_bytes, nb::object progress) {
    const unl::SolverOptions options = options_in.value_or(unl::SolverOptions());  // None: defaults
    if (static_cast<int64_t>(y.shape(0)) != data.view.n) throw nb::value_error("y must have one entry per row of X");
    if (kernel.type == unl::KernelType::Precomputed || kernel_star.type == unl::KernelType::Precomputed)
        throw nb::value_error("SVM+ does not take precomputed kernels");
    if (solver < 0 || solver > 1) throw nb::value_error("solver must be 0 (asmo) or 1 (gsmo)");
    unl::SVMPlusProblem pb;
    pb.X = &data.view;
    pb.Xs = &data_star.view;
    pb.kernel = kernel;
    pb.kernel_star = kernel_star;
    pb.y.assign(y.data(), y.data() + y.shape(0));
    pb.C = C;
    pb.gamma = gamma_plus;
    unl::SVMPlusOptions opt;
    opt.solver = static_cast<unl::SVMPlusSolver>(solver);
    opt.tol = options.eps;
    opt.max_iter = options.max_iter;
    opt.shrinking = options.shrinking;
    opt.cache_bytes = cache_bytes;
    // std::invalid_argument from the solver arrives as ValueError
    return run_engine(progress, opt, [&] { return unl::solve_svmplus(pb, opt); });
}

void register_types(nb::module_& m) {
    nb::class_<PyData>(m, "Data", "Training data as the engine sees it (a view that keeps its arrays alive).")
        .def_static("dense", [](nb::object X) {
            if (nb::isinstance<Mat<float>>(X)) return data_dense(nb::cast<Mat<float>>(X), X);
            return data_dense(nb::cast<Mat<double>>(X), X);
        }, "X"_a, "A C-contiguous 2-D float64 or float32 array.")
        .def_static("csr", [](nb::object data, nb::object indices, nb::object indptr, int64_t n_cols) {
            return data_csr(nb::cast<Vec<double>>(data), nb::cast<Vec<int32_t>>(indices),
                            nb::cast<Vec<int64_t>>(indptr), n_cols, data, indices, indptr);
        }, "data"_a, "indices"_a, "indptr"_a, "n_cols"_a,
           "CSR arrays (float64, int32, int64) with sorted unique column indices.")
        .def_prop_ro("n_rows", [](const PyData& d) { return d.view.n; })
        .def_prop_ro("n_cols", [](const PyData& d) { return d.view.d; })
        .def_prop_ro("sparse", [](const PyData& d) { return d.view.sparse; })
        .def_prop_ro("float32", [](const PyData& d) { return d.view.x32 != nullptr; });
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
}

void register_generic(nb::module_& m) {
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
          "equality"_a = true, "options"_a.none() = nb::none(), "progress"_a.none() = nb::none(),
          "diag"_a.none() = nb::none(),
          "min 1/2 a'Qa + p'a s.t. 0 <= a <= C (and y'a = y'alpha0 if equality), "
          "Q_ts = k(x_point(t), x_point(s)) y_t y_s, or sum_k mu_k labels[t,k] labels[s,k] in place of y_t y_s, "
          "plus diag[t] on Q_tt.");
    nb::class_<LinearSolution>(m, "LinearSolution", "The result of solve_linear_dual.")
        .def_prop_ro("alpha", [](const LinearSolution& r) { return to_numpy(r.alpha); }, nb::rv_policy::automatic)
        .def_prop_ro("w", [](const LinearSolution& r) { return to_numpy(r.w, r.m, r.d); }, nb::rv_policy::automatic)
        .def_prop_ro("n_iter", [](const LinearSolution& r) { return r.info.iter; })
        .def_prop_ro("converged", [](const LinearSolution& r) { return r.info.converged; })
        .def_prop_ro("violation", [](const LinearSolution& r) { return r.info.violation; });
    m.def("solve_linear_dual", &solve_linear_dual, "data"_a, "row"_a, "p"_a, "C"_a, "alpha0"_a, "signs"_a,
          "mu"_a.none() = nb::none(), "y"_a.none() = nb::none(), "w0"_a.none() = nb::none(),
          "equality"_a = false, "shift"_a = 0.0, "options"_a.none() = nb::none(), "seed"_a = 0,
          "progress"_a.none() = nb::none(), "kink"_a.none() = nb::none(), "jump"_a.none() = nb::none(),
          "min 1/2 sum_k mu_k ||w_k||^2 + sum_t c_t(a_t) - shift y'a over 0 <= a <= C (and y'a = y'alpha0 if "
          "equality), w_k = w0_k + sum_t signs[t, k] a_t x_row(t), c_t of slope p_t on [0, kink_t] and "
          "p_t + jump_t on [kink_t, C_t] (no kink given: p'a): LIBLINEAR-style dual coordinate descent with w kept.");
}

// ---------------------------------------------------------------------------------------
// CLSST's per-point passes (vbmfa.hpp): the shapes checked against each other here, the
// results allocated, then the pass run without the GIL (the Dask driver's threads share it).
using Arr3 = nb::ndarray<const double, nb::ndim<3>, nb::c_contig, nb::device::cpu>;
using NpArray = nb::ndarray<nb::numpy, double>;

struct NewArray {
    NpArray array;
    double* data;
};

NewArray new_array(std::initializer_list<size_t> shape) {
    size_t size = 1;
    for (size_t v : shape) size *= v;
    auto* data = new double[size ? size : 1];  // every entry written by the pass
    nb::capsule owner(data, [](void* p) noexcept { delete[] static_cast<double*>(p); });
    return {NpArray(data, shape.size(), shape.begin(), owner), data};
}

template <class Arr>
int64_t dim(const Arr& a, size_t i) { return static_cast<int64_t>(a.shape(i)); }

void expect(bool ok, const char* what) {
    if (!ok) throw nb::value_error(what);
}

// Dims from Yt (p, m) and Xm (S, k, m), K from Q or prior
unl::vbmfa::Dims vbmfa_dims(const Mat<double>& Yt, const Arr3& Xm, int64_t K, int threads) {
    expect(threads >= 1, "threads must be at least 1");
    expect(dim(Xm, 2) == dim(Yt, 1), "Xm must have shape (S, k, m) for Yt of shape (p, m)");
    return {dim(Xm, 0), K, dim(Xm, 1), dim(Yt, 0), dim(Yt, 1)};
}

unl::vbmfa::RhoTerms vbmfa_terms(const unl::vbmfa::Dims& dm, const Arr3& M, const Vec<double>& psii, const Arr3& A,
                                 const Vec<double>& c) {
    const int64_t d = dm.k + 1;
    expect(dim(M, 0) == dm.S && dim(M, 1) == dm.p && dim(M, 2) == d, "M must have shape (S, p, k + 1)");
    expect(dim(psii, 0) == dm.p, "psii must have shape (p,)");
    expect(dim(A, 0) == dm.S && dim(A, 1) == d && dim(A, 2) == d, "A must have shape (S, k + 1, k + 1)");
    expect(dim(c, 0) == dm.S, "c must have shape (S,)");
    return {M.data(), psii.data(), A.data(), c.data()};
}

void check_q(const Arr3& Q, const unl::vbmfa::Dims& dm) {
    expect(dim(Q, 0) == dm.S && dim(Q, 2) == dm.m, "Q must have shape (S, K, m)");
}

NpArray vbmfa_x(Mat<double> Yt, Arr3 W, Mat<double> c, int threads) {
    expect(threads >= 1, "threads must be at least 1");
    const unl::vbmfa::Dims dm{dim(W, 0), 1, dim(W, 1), dim(Yt, 0), dim(Yt, 1)};
    expect(dim(W, 2) == dm.p, "W must have shape (S, k, p) for Yt of shape (p, m)");
    expect(dim(c, 0) == dm.S && dim(c, 1) == dm.k, "c must have shape (S, k)");
    NewArray Xm = new_array({size_t(dm.S), size_t(dm.k), size_t(dm.m)});
    nb::gil_scoped_release release;
    unl::vbmfa::points_x(Yt.data(), W.data(), c.data(), dm, Xm.data, threads);
    return Xm.array;
}

nb::tuple vbmfa_q(Mat<double> Yt, Arr3 Xm, std::optional<Mat<double>> logC, Arr3 M, Vec<double> psii, Arr3 A,
                  Vec<double> c, Mat<double> prior, int threads) {
    const unl::vbmfa::Dims dm = vbmfa_dims(Yt, Xm, dim(prior, 1), threads);
    const unl::vbmfa::RhoTerms t = vbmfa_terms(dm, M, psii, A, c);
    expect(dim(prior, 0) == dm.S, "prior must have shape (S, K)");
    expect(!logC || (dim(*logC, 0) == dm.K && dim(*logC, 1) == dm.m), "logC must have shape (K, m) or be None");
    NewArray Q = new_array({size_t(dm.S), size_t(dm.K), size_t(dm.m)});
    double lse;
    {
        nb::gil_scoped_release release;
        lse = unl::vbmfa::points_q(Yt.data(), Xm.data(), logC ? logC->data() : nullptr, t, prior.data(), dm, Q.data,
                                   threads);
    }
    return nb::make_tuple(Q.array, lse);
}

nb::tuple vbmfa_stats(Mat<double> Yt, Arr3 Q, Arr3 Xm, int threads) {
    const unl::vbmfa::Dims dm = vbmfa_dims(Yt, Xm, dim(Q, 1), threads);
    check_q(Q, dm);
    const size_t d = size_t(dm.k + 1);
    NewArray Sry = new_array({size_t(dm.S), size_t(dm.p), d}), T2 = new_array({size_t(dm.S), d, d});
    {
        nb::gil_scoped_release release;
        unl::vbmfa::points_stats(Yt.data(), Q.data(), Xm.data(), dm, Sry.data, T2.data, threads);
    }
    return nb::make_tuple(Sry.array, T2.array);
}

NpArray vbmfa_fit(Mat<double> Yt, Arr3 Q, Arr3 Xm, Arr3 M, Vec<double> psii, Arr3 A, Vec<double> c, int threads) {
    const unl::vbmfa::Dims dm = vbmfa_dims(Yt, Xm, dim(Q, 1), threads);
    check_q(Q, dm);
    const unl::vbmfa::RhoTerms t = vbmfa_terms(dm, M, psii, A, c);
    NewArray fit = new_array({size_t(dm.S)});
    nb::gil_scoped_release release;
    unl::vbmfa::points_fit(Yt.data(), Q.data(), Xm.data(), t, dm, fit.data, threads);
    return fit.array;
}

nb::tuple vbmfa_q_sums(Arr3 Q, bool logs, int threads) {
    expect(threads >= 1, "threads must be at least 1");
    const unl::vbmfa::Dims dm{dim(Q, 0), dim(Q, 1), 0, 0, dim(Q, 2)};
    NewArray Qsum = new_array({size_t(dm.S), size_t(dm.K)}), qlogq = new_array({size_t(dm.S)});
    {
        nb::gil_scoped_release release;
        unl::vbmfa::points_q_sums(Q.data(), dm, Qsum.data, logs ? qlogq.data : nullptr, threads);
    }
    return nb::make_tuple(Qsum.array, qlogq.array);
}

nb::tuple vbmfa_e_step(Mat<double> Yt, Arr3 W, Mat<double> cx, std::optional<Mat<double>> logC, Arr3 M,
                       Vec<double> psii, Arr3 A, Vec<double> c, Mat<double> prior, bool keep, int threads) {
    expect(threads >= 1, "threads must be at least 1");
    const unl::vbmfa::Dims dm{dim(W, 0), dim(prior, 1), dim(W, 1), dim(Yt, 0), dim(Yt, 1)};
    expect(dim(W, 2) == dm.p, "W must have shape (S, k, p) for Yt of shape (p, m)");
    expect(dim(cx, 0) == dm.S && dim(cx, 1) == dm.k, "cx must have shape (S, k)");
    const unl::vbmfa::RhoTerms t = vbmfa_terms(dm, M, psii, A, c);
    expect(dim(prior, 0) == dm.S, "prior must have shape (S, K)");
    expect(!logC || (dim(*logC, 0) == dm.K && dim(*logC, 1) == dm.m), "logC must have shape (K, m) or be None");
    const size_t S = size_t(dm.S), d = size_t(dm.k + 1);
    NewArray Qsum = new_array({S, size_t(dm.K)}), Sry = new_array({S, size_t(dm.p), d}), T2 = new_array({S, d, d});
    nb::object Xm = nb::none(), Q = nb::none();
    double* xm = nullptr;
    double* q = nullptr;
    if (keep) {
        NewArray a = new_array({S, size_t(dm.k), size_t(dm.m)}), b = new_array({S, size_t(dm.K), size_t(dm.m)});
        xm = a.data, q = b.data;
        Xm = nb::cast(a.array), Q = nb::cast(b.array);
    }
    double lse;
    {
        nb::gil_scoped_release release;
        lse = unl::vbmfa::points_e_step(Yt.data(), W.data(), cx.data(), logC ? logC->data() : nullptr, t,
                                        prior.data(), dm, Qsum.data, Sry.data, T2.data, xm, q, threads);
    }
    return nb::make_tuple(Xm, Q, lse, Qsum.array, nb::make_tuple(Sry.array, T2.array));
}

void register_vbmfa(nb::module_& m) {
    m.def("vbmfa_e_step", &vbmfa_e_step, "Yt"_a, "W"_a, "cx"_a, "logC"_a.none(), "M"_a, "psii"_a, "A"_a, "c"_a,
          "prior"_a, "keep"_a = true, "threads"_a = 1,
          "(Xm, Q, lse, sum_n Q, (Sry, T2)): vbmfa_x, vbmfa_q, the sums of Q and vbmfa_stats in one pass "
          "(Xm and Q None unless keep).");
    m.def("vbmfa_x", &vbmfa_x, "Yt"_a, "W"_a, "c"_a, "threads"_a = 1, "Xm[s, :, n] = W_s Yt[:, n] - c_s.");
    m.def("vbmfa_q", &vbmfa_q, "Yt"_a, "Xm"_a, "logC"_a.none(), "M"_a, "psii"_a, "A"_a, "c"_a, "prior"_a,
          "threads"_a = 1, "(Q, sum_n ln sum_{s,l} exp(phi)): CLSST's q(s, l) update (see _vbmfa.chunk_q).");
    m.def("vbmfa_stats", &vbmfa_stats, "Yt"_a, "Q"_a, "Xm"_a, "threads"_a = 1,
          "(Sry, T2): the responsibility-weighted statistics (see _vbmfa.chunk_stats).");
    m.def("vbmfa_fit", &vbmfa_fit, "Yt"_a, "Q"_a, "Xm"_a, "M"_a, "psii"_a, "A"_a, "c"_a, "threads"_a = 1,
          "sum_n r[s, n] rho[s, n] (see _vbmfa.chunk_fit).");
    m.def("vbmfa_q_sums", &vbmfa_q_sums, "Q"_a, "logs"_a = true, "threads"_a = 1,
          "(sum_n Q (S, K), sum_{l, n} Q ln Q (S,), zeros unless logs).");
}

#define UNL_ARRAY(Cls, name) .def_prop_ro(#name, [](const Cls& r) { return to_numpy(r.name); }, nb::rv_policy::automatic)
#define UNL_VALUE(Cls, name) .def_ro(#name, &Cls::name)

void register_problems(nb::module_& m) {
    nb::class_<unl::PUResult>(m, "PUSolution", "The result of solve_pu (see pu_dh.hpp).")
        UNL_ARRAY(unl::PUResult, sigma) UNL_ARRAY(unl::PUResult, g_unl) UNL_ARRAY(unl::PUResult, g_pos)
        UNL_ARRAY(unl::PUResult, w) UNL_ARRAY(unl::PUResult, h) UNL_ARRAY(unl::PUResult, products)
        UNL_VALUE(unl::PUResult, beta) UNL_VALUE(unl::PUResult, converged) UNL_VALUE(unl::PUResult, stopped)
        UNL_VALUE(unl::PUResult, violation) UNL_VALUE(unl::PUResult, cache_hits)
        UNL_VALUE(unl::PUResult, cache_misses) UNL_VALUE(unl::PUResult, cache_bytes)
        UNL_VALUE(unl::PUResult, kernel_rows)
        .def_ro("n_iter", &unl::PUResult::iter);
    m.def("solve_pu", &solve_pu, "data"_a, "kernel"_a, "pos"_a, "unl"_a, "c1"_a, "c2"_a,
          "options"_a.none() = nb::none(), "solver"_a = 0, "cache_bytes"_a = 200.0 * (1 << 20),
          "cache_float32"_a = false, "seed"_a = 0, "sigma0"_a.none() = nb::none(), "h"_a.none() = nb::none(),
          "start_products"_a.none() = nb::none(), "positive_g"_a = true, "linear_cd"_a = -1,
          "beta0"_a = std::numeric_limits<double>::quiet_NaN(), "progress"_a.none() = nb::none(),
          "Solve the PU double-hinge dual; see pu_dh.hpp for the formulation.");
    m.def("rbf_dense_times", &rbf_dense_times, "A"_a, "Bt"_a, "row_sq"_a, "col_sq"_a, "gamma"_a, "wt"_a, "out"_a,
          "out += K wt' for the rbf block K of the rows of A and the columns of Bt (float64, C order; "
          "row_sq, col_sq: their squared norms), its values never stored.");
    m.def("rbf_gram_times", &rbf_gram_times<float>, "D"_a, "row_sq"_a, "col_sq"_a, "gamma"_a, "wt"_a, "out"_a);
    m.def("rbf_gram_times", &rbf_gram_times<double>, "D"_a, "row_sq"_a, "col_sq"_a, "gamma"_a, "wt"_a, "out"_a,
          "out += K wt' for the rbf block K whose inner products are D (float32 or float64), in one pass.");
    m.def("exp_nonpositive", &exp_nonpositive, "x"_a, "exp(x) for x <= 0 by the block products' own exp.");
    m.def("pu_start_weights", &pu_start_weights, "sigma"_a, "c2"_a,
          "The snapped start and its upper-bound weights, for solve_pu's start_products.");
    nb::class_<unl::SVMPlusResult>(m, "SVMPlusSolution", "The result of solve_svmplus (see svmplus.hpp).")
        UNL_ARRAY(unl::SVMPlusResult, alpha) UNL_ARRAY(unl::SVMPlusResult, beta)
        UNL_ARRAY(unl::SVMPlusResult, F) UNL_ARRAY(unl::SVMPlusResult, f)
        UNL_VALUE(unl::SVMPlusResult, b) UNL_VALUE(unl::SVMPlusResult, d)
        UNL_VALUE(unl::SVMPlusResult, objective) UNL_VALUE(unl::SVMPlusResult, violation)
        UNL_VALUE(unl::SVMPlusResult, triple_steps) UNL_VALUE(unl::SVMPlusResult, converged)
        UNL_VALUE(unl::SVMPlusResult, stopped) UNL_VALUE(unl::SVMPlusResult, stalled)
        UNL_VALUE(unl::SVMPlusResult, kernel_rows) UNL_VALUE(unl::SVMPlusResult, cache_hits)
        UNL_VALUE(unl::SVMPlusResult, cache_misses) UNL_VALUE(unl::SVMPlusResult, cache_bytes)
        .def_ro("n_iter", &unl::SVMPlusResult::iter);
    m.def("solve_svmplus", &solve_svmplus, "data"_a, "data_star"_a, "y"_a, "kernel"_a, "kernel_star"_a,
          "C"_a, "gamma_plus"_a, "options"_a.none() = nb::none(), "solver"_a = 0,
          "cache_bytes"_a = 200.0 * (1 << 20), "progress"_a.none() = nb::none(),
          "Solve the SVM+ dual by aSMO (solver=0) or gSMO (solver=1); see svmplus.hpp.");
}

}  // namespace

NB_MODULE(_core, m) {
    m.doc() = "unlabeled's compiled solver engine";
    register_types(m);
    register_generic(m);
    register_problems(m);
    register_vbmfa(m);
}
