// Positive-unlabeled learning with the double hinge loss (Sansone, De Natale, Zhou, TPAMI 2019).
//
// With c1 = pi / (2 lam p) and c2 = 1 / (2 lam n), the dual in sigma alone is
//
//     min  1/2 sigma' K_UU sigma - c1 h' sigma + sum_u max(-sigma_u, sigma_u - c2)
//     s.t. 0 <= sigma_u <= c2,   sum_u sigma_u = c1 p,          h = K_UP 1,
//
// and the decision function is f(x) = c1 sum_P k(x_p, x) - sum_U sigma_u k(x_u, x) + beta.
// g_u denotes f(x_u) - beta. Three solvers reach the same optimum:
//   * SMO:   sigma_u = a_u + b_u with a_u, b_u in [0, c2/2] and linear costs -a_u + b_u turns
//            the problem into a standard one for the generic Solver (2n variables, all y = +1);
//   * USMO:  the paper's algorithm (violating pairs over D1/D2/D3, the non-bound set with its
//            function cache, full scans), with the exact piecewise-quadratic pair step;
//   * LINEAR: for the linear kernel, w = sum alpha_i x_i is kept so that g_u costs O(nnz(x_u));
//            pairs are chosen in batches from sweeps over the active set, with shrinking. On
//            large problems it first finds the offset: for a fixed beta the equality constraint
//            goes into the linear term and the dual separates into single coordinates
//            (LIBLINEAR-style coordinate descent); sum sigma(beta) grows with beta, so a
//            bracketed secant search finds beta with sum sigma = c1 p, and the pair solver
//            finishes the exact problem from there.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "kernels.hpp"
#include "solver.hpp"

namespace unl {

enum class PUSolver : int { SMO = 0, USMO = 1 };

struct PUProblem {
    const Data* X = nullptr;            // all training points (or the Gram matrix)
    KernelParams kernel;
    std::vector<int32_t> pos, unl;      // rows of X: labeled positives, unlabeled points
    double c1 = 0.0, c2 = 0.0;
};

struct PUOptions {
    PUSolver solver = PUSolver::SMO;
    double tol = 1e-3;
    double cache_bytes = 200.0 * (1 << 20);
    int64_t max_iter = -1;
    bool shrinking = true;
    bool cache_float32 = false;  // store cached kernel rows as float (SMO solver)
    const double* sigma0 = nullptr;  // feasible start (length n) or null for the default one
    // Products computed outside the engine (by BLAS, in blocks), or null to compute them here:
    // h = K_UP 1 (length n), and for the SMO solver the n x 2 row-major start products
    // [K_UU sigma0, K_UU upper0] with upper0 from pu_upper_weights(sigma0).
    const double* h = nullptr;
    const double* start_products = nullptr;
    bool positive_g = true;  // compute g at the positives (else res.g_pos stays empty)
    double beta0 = std::numeric_limits<double>::quiet_NaN();  // offset guess for linear_cd
    int linear_cd = -1;      // linear kernel: offset search by coordinate descent first
                             // (-1: from 5,000 unlabeled points on, 0: never, 1: always)
    uint64_t seed = 0;  // order of USMO's full scans
    ProgressFn progress;
};

struct PUResult {
    std::vector<double> sigma, g_unl, g_pos, w;  // w only for the linear kernel
    // SMO solver: h = K_UP 1 and the final [K_UU sigma, K_UU upper] (n x 2), from which a
    // warm start on the same data derives its start_products without a kernel pass
    std::vector<double> h, products;
    double beta = 0.0;
    int64_t iter = 0;
    bool converged = false, stopped = false;
    double violation = 0.0;
    int64_t cache_hits = 0, cache_misses = 0, cache_bytes = 0;
    int64_t kernel_rows = 0;
};

PUResult solve_pu(const PUProblem& prob, const PUOptions& opt);

// For the problem's own files: w = c1 sum_P x_p - sum_U sigma_u x_u (linear kernel), and USMO
// (pu_usmo.cpp), which starts from res.sigma and fills res.sigma, res.g_unl and its counters.
std::vector<double> primal_w(const PUProblem& pb, const std::vector<double>& sigma);
void solve_usmo(const PUProblem& pb, const PUOptions& opt, Kernel& K, const std::vector<double>& h,
                PUResult& res);

// Snap a start onto the exact states 0, c2/2, c2 where it is within a few ulps of them, and
// return the weights of the start's variables at their upper bound (c2/2 for each of a_u and
// b_u that is): what the SMO solver's G_bar = K_UU upper0 needs besides K_UU sigma0.
void snap_states(std::vector<double>& sigma, double c2);
std::vector<double> pu_upper_weights(const std::vector<double>& sigma, double c2);

// beta from the optimality conditions: the average of -1 - g_u over 0 < sigma_u < c2/2 and of
// 1 - g_u over c2/2 < sigma_u < c2; without such points, the midpoint of the interval that the
// bound points allow.
double pu_bias(const std::vector<double>& sigma, const std::vector<double>& g, double c2);

}  // namespace unl
