// The generic solver exposed as is, for problems assembled in Python (the convex steps of
// CCCP, SVM subproblems):
//     min 1/2 alpha' Q alpha + p' alpha   s.t.  y' alpha = y' alpha0,  0 <= alpha_t <= C_t,
// Q_ts = y_t y_s k(x_point(t), x_point(s)); the start alpha0 must be feasible.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels.hpp"
#include "solver.hpp"

namespace unl {

struct QPProblem {
    const Data* X = nullptr;
    KernelParams kernel;
    std::vector<int32_t> rows;        // rows of X of the distinct points
    std::vector<int64_t> var_point;   // point of each variable
    std::vector<int8_t> y;
    std::vector<double> p, C, alpha0;
};

struct QPResult {
    std::vector<double> alpha, G;  // solution and gradient Q alpha + p
    SolveResult info;
    int64_t kernel_rows = 0;
};

QPResult solve_qp(const QPProblem& qp, const SolverOptions& opt, double cache_bytes);

}  // namespace unl
