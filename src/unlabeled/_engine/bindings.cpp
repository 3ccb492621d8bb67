// nanobind layer: numpy / scipy buffers in, numpy arrays out, errors as Python exceptions.
// The solver runs without the GIL; the progress hook takes it back a few times per second
// to let Ctrl-C through and to call the optional Python callback.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>

#include <limits>
#include <memory>
#include <optional>
#include <vector>

#include "pu_dh.hpp"
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
