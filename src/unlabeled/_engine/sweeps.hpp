#pragma once

#include <cstdint>

namespace unl {

// The SMO solvers' passes over all variables, vectorised (one version per instruction set, as
// blocks.*). Each lane computes what the scalar loop computed for its variable, in the same
// order, so the results are the same bit for bit (sweeps.cpp is built without FMA contraction).

// b[s] = (((0.0 + w[0] Y[s]) + w[1] Y[stride + s]) + ...) * row[point[s]] for s < len: the
// label-mixed Q row (qmatrix.hpp) from labels stored label by label (Y[k * stride + s]).
void mixed_row(const double* w, const int8_t* Y, int64_t m, int64_t stride, const double* row,
               const int64_t* point, int64_t len, double* b);
void mixed_row(const double* w, const int8_t* Y, int64_t m, int64_t stride, const float* row,
               const int64_t* point, int64_t len, double* b);

// b[s] = (Y ? c Y[s] : c) * row[point[s]] for s < len: the signed Q row (one label vector).
void scaled_row(double c, const int8_t* Y, const double* row, const int64_t* point, int64_t len,
                double* b);
void scaled_row(double c, const int8_t* Y, const float* row, const int64_t* point, int64_t len,
                double* b);

// BoxSolver's selection pass: with PG_t the projected gradient of G_t for status[t] (0 at the
// lower bound, 1 at the upper bound, 2 free), gain[t] = PG_t^2 / (QD_t > 0 ? QD_t : tau), or
// -inf where PG_t == 0 (no step); returns max_t |PG_t| (0 when none; NaNs are skipped, as
// std::max skips them in the scalar loop).
double box_gains(const double* G, const int8_t* status, const double* QD, double tau, int64_t n,
                 double* gain);

}  // namespace unl
