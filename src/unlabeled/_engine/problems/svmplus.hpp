// SVM+ (learning using privileged information; Vapnik & Vashist, Neural Networks 2009) and the
// SMO-style solvers of Pechyony, Izmailov, Vashist and Vapnik (DMIN 2010). The maths, with the
// paper's typos corrected, is in shared/spec/svmplus.md; in short, with delta_i = alpha_i +
// beta_i - C, K on X and K* on the privileged X*:
//
//     max D = sum_i alpha_i - 1/2 sum_ij alpha_i alpha_j y_i y_j K_ij
//                           - 1/(2 gamma) sum_ij delta_i delta_j K*_ij
//     s.t. sum_i delta_i = 0,  sum_i y_i alpha_i = 0,  alpha_i >= 0,  beta_i >= 0.
//
// Two equality constraints and no upper bounds: the generic pairwise Solver of smo.hpp does not
// apply, so SVM+ brings its own solvers (it reuses the kernels and the row cache). Both keep
// F_i = sum_j y_j alpha_j K_ij and f_i = sum_j delta_j K*_ij, from which
//     G_i = dD/dalpha_i = 1 - y_i F_i - f_i / gamma,     s_i = dD/dbeta_i = -f_i / gamma.
// At the optimum there are b (the bias of h) and d (the offset of the correcting function) with
//     G_i <= y_i b + d  (= where alpha_i > 0),     s_i <= d  (= where beta_i > 0).
#pragma once

#include <cstdint>
#include <vector>

#include "kernels.hpp"
#include "solver.hpp"

namespace unl {

enum class SVMPlusSolver : int { ASMO = 0, GSMO = 1 };

struct SVMPlusProblem {
    const Data* X = nullptr;      // decision space
    KernelParams kernel;
    const Data* Xs = nullptr;     // correcting (privileged) space, same number of rows
    KernelParams kernel_star;
    std::vector<int8_t> y;        // +1 / -1, both present
    double C = 1.0;
    double gamma = 1.0;           // weight of ||w*||^2 (the spec's gamma)
};

struct SVMPlusOptions {
    SVMPlusSolver solver = SVMPlusSolver::ASMO;
    double tol = 1e-3;            // stop when the maximal violation (largest slope) <= tol
    double cache_bytes = 200.0 * (1 << 20);  // split evenly between the K and K* row caches
    int64_t max_iter = -1;        // < 0: unlimited
    bool shrinking = true;        // aSMO: skip points that cannot move in scans and selection
    ProgressFn progress;
};

struct SVMPlusResult {
    std::vector<double> alpha, beta, F, f;
    double b = 0.0, d = 0.0;
    double objective = 0.0;       // D at the solution, from F and f
    double violation = 0.0;       // maximal slope of a feasible direction of the witness family
    int64_t iter = 0;
    int64_t triple_steps = 0;     // gSMO only: steps on three examples (see svmplus.cpp)
    bool converged = false, stopped = false, stalled = false;
    int64_t kernel_rows = 0, cache_hits = 0, cache_misses = 0, cache_bytes = 0;
};

SVMPlusResult solve_svmplus(const SVMPlusProblem& pb, const SVMPlusOptions& opt);

// b and d from the optimality conditions (see the comment in svmplus.cpp).
void svmplus_bias(const std::vector<double>& alpha, const std::vector<double>& beta,
                  const std::vector<int8_t>& y, const std::vector<double>& G,
                  const std::vector<double>& s, double& b, double& d);

}  // namespace unl
