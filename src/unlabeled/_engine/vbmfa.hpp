#pragma once

// The per-point passes of CLSST's variational mixture of factor analysers (unlabeled.ssl._vbmfa):
// the chunk kernels chunk_x, chunk_q, chunk_stats, chunk_fit and the sums of Q, each one pass
// over a chunk's points in blocks, the blocks split over threads. Arrays are C-contiguous with
// the points last, as in Python: Yt (p, m), Xm (S, k, m), Q (S, K, m), logC (K, m) or null (no
// labels), M (S, p, d), A (S, d, d), W (S, k, p), with d = k + 1. Each thread adds its blocks'
// sums in order and the threads' sums are added in thread order, so a result depends on the
// number of threads only through rounding.

#include <cstdint>

namespace unl::vbmfa {

struct Dims {
    int64_t S, K, k, p, m;  // components, classes, factors, features, points
};

// What the data term rho (S, m) needs besides the points (see VBMFA.rho_terms)
struct RhoTerms {
    const double* M;     // (S, p, d) loading means
    const double* psii;  // (p,) noise precisions
    const double* A;     // (S, d, d)
    const double* c;     // (S,) per-component constants
};

// Xm[s, j, n] = sum_q W[s, j, q] Yt[q, n] - c[s, j]
void points_x(const double* Yt, const double* W, const double* c, const Dims& dm, double* Xm, int threads);

// Q = softmax over (s, l) of rho[s, n] + prior[s, l] + logC[l, n]; returns sum_n ln sum exp(phi)
double points_q(const double* Yt, const double* Xm, const double* logC, const RhoTerms& t, const double* prior,
                const Dims& dm, double* Q, int threads);

// Sry (S, p, d) = sum_n r y [1, x]' and T2 (S, d, d) = sum_n r [1, x][1, x]', r = sum_l Q
void points_stats(const double* Yt, const double* Q, const double* Xm, const Dims& dm, double* Sry, double* T2,
                  int threads);

// fit[s] = sum_n r[s, n] rho[s, n]
void points_fit(const double* Yt, const double* Q, const double* Xm, const RhoTerms& t, const Dims& dm, double* fit,
                int threads);

// Qsum (S, K) = sum_n Q and, unless qlogq is null, qlogq (S,) = sum_{l, n} Q ln Q (0 ln 0 = 0)
void points_q_sums(const double* Q, const Dims& dm, double* Qsum, double* qlogq, int threads);

// points_x, points_q, the sums of Q and points_stats of the new Q and Xm in one pass, each
// block's Xm and Q made and used in cache (copied to Xm, Q unless null): returns the sum of
// ln sum exp(phi); Qsum (S, K), Sry, T2 as above
double points_e_step(const double* Yt, const double* W, const double* c, const double* logC, const RhoTerms& t,
                     const double* prior, const Dims& dm, double* Qsum, double* Sry, double* T2, double* Xm,
                     double* Q, int threads);

}  // namespace unl::vbmfa
