#pragma once

#include <cstdint>

namespace unl {

// rbf kernel blocks times k vectors, each kernel value made, used and dropped in registers:
//   out[i * k + m] += sum_j exp(-gamma * max(rs[i] + cs[j] - 2 z_ij, 0)) * wt[m * c + j]
// for i < r, m < k, j < c (wt: the k vectors as rows of a k x c array; rs, cs: squared norms).
// rbf_dense_times: z_ij = <A_i, column j of Bt> for row-major A (r x d) and Bt (d x c), for small
// d, where storing a block costs more than computing it. rbf_gram_times: z_ij = D[i * c + j],
// inner products from BLAS (larger d), float32 or float64.
void rbf_dense_times(const double* A, int64_t r, int64_t d, const double* Bt, int64_t c, const double* rs,
                     const double* cs, double gamma, const double* wt, int64_t k, double* out);
void rbf_gram_times(const double* D, int64_t r, int64_t c, const double* rs, const double* cs, double gamma,
                    const double* wt, int64_t k, double* out);
void rbf_gram_times(const float* D, int64_t r, int64_t c, const double* rs, const double* cs, double gamma,
                    const double* wt, int64_t k, double* out);

// The instruction set of the vector code chosen for this CPU (once per process): 2 AVX-512,
// 1 AVX2 with FMA, 0 the baseline. blocks.* and sweeps.* dispatch on it.
int isa_level();

// exp(x) for x <= 0 by blocks.cpp's own vector exp (within 2 ulp of exp; 0 below -708), for tests
void exp_nonpositive(double* x, int64_t n);

}  // namespace unl
