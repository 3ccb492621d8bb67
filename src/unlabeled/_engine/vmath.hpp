#pragma once

#include <cstdint>

namespace unl {

// x[i] = exp(-gamma * max(x[i], 0)): squared distances to rbf kernel values, vectorised.
void neg_exp_scaled(double* x, int64_t n, double gamma);

// <a, b> accumulated in double, vectorised (AVX2 + FMA where the CPU has them): the dense
// kernel rows' inner loop. dot_f64_f32 takes a float row already converted to double (a
// kernel row converts x_i once, which changes no value).
double dot_f64(const double* a, const double* b, int64_t n);
double dot_f32(const float* a, const float* b, int64_t n);
double dot_f64_f32(const double* a, const float* b, int64_t n);

}  // namespace unl
