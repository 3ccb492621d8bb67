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
//            pairs are chosen in batches from sweeps over the active set, with shrinking.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels.hpp"
#include "smo.hpp"

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
    uint64_t seed = 0;  // order of USMO's full scans
    ProgressFn progress;
};

struct PUResult {
    std::vector<double> sigma, g_unl, g_pos, w;  // w only for the linear kernel
    double beta = 0.0;
    int64_t iter = 0;
    bool converged = false, stopped = false;
    double violation = 0.0;
    int64_t cache_hits = 0, cache_misses = 0, cache_bytes = 0;
    int64_t kernel_rows = 0;
};

PUResult solve_pu(const PUProblem& prob, const PUOptions& opt);

// beta from the optimality conditions: the average of -1 - g_u over 0 < sigma_u < c2/2 and of
// 1 - g_u over c2/2 < sigma_u < c2; without such points, the midpoint of the interval that the
// bound points allow.
double pu_bias(const std::vector<double>& sigma, const std::vector<double>& g, double c2);

}  // namespace unl
