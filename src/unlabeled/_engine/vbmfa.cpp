// CLSST's per-point passes (see vbmfa.hpp). Within a block of kBlock points every array is a
// set of contiguous rows along the points, so each inner loop runs along the points as NumPy's
// did, with no call overhead: CLSST's sweep on CAKE-size data was 885,000 NumPy calls a fit.
#include "vbmfa.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "blocks.hpp"
#include "vmath.hpp"

namespace unl::vbmfa {
namespace {

constexpr int64_t kBlock = 256;  // points per block: a block's rows stay in L1/L2

// fn(lo, hi, sums, scratch) for each block [lo, hi) of the m points, split over at most
// `threads` threads (contiguous runs of blocks), each with its own zeroed sums (n_sums) and
// scratch (n_scratch); total[i] = the threads' sums added in thread order. Everything is
// allocated before the parallel region, so no exception can leave it.
template <class Fn>
void over_blocks(int64_t m, int threads, int64_t n_sums, int64_t n_scratch, double* total, Fn&& fn) {
    const int64_t nb = std::max<int64_t>(1, (m + kBlock - 1) / kBlock);
    const int T = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(threads, nb)));
    std::vector<double> sums(static_cast<size_t>(T * n_sums), 0.0);
    std::vector<double> scratch(static_cast<size_t>(T * n_scratch));
    auto run = [&](int t) {
        for (int64_t b = nb * t / T; b < nb * (t + 1) / T; ++b)
            fn(b * kBlock, std::min(m, (b + 1) * kBlock), sums.data() + t * n_sums, scratch.data() + t * n_scratch);
    };
#ifdef _OPENMP
    if (T > 1) {
#pragma omp parallel num_threads(T)
        for (int t = omp_get_thread_num(); t < T; t += omp_get_num_threads()) run(t);
    } else {
        run(0);
    }
#else
    for (int t = 0; t < T; ++t) run(t);
#endif
    for (int64_t i = 0; i < n_sums; ++i) {
        double s = 0.0;
        for (int t = 0; t < T; ++t) s += sums[static_cast<size_t>(t * n_sums + i)];
        total[i] = s;
    }
}

// The scratch of block_rho: YP (p rows), yPy, B (d rows), one row each
int64_t rho_scratch(const Dims& dm) { return (dm.p + 1 + dm.k + 1) * kBlock; }

// Psi^-1 y and y' Psi^-1 y of the block's points, into the head of the scratch
void block_yp(const double* Yt, const Dims& dm, const double* psii, int64_t lo, int64_t L, double* scratch) {
    double* YP = scratch;
    double* yPy = scratch + dm.p * kBlock;
    std::fill(yPy, yPy + L, 0.0);
    for (int64_t q = 0; q < dm.p; ++q) {
        const double* y = Yt + q * dm.m + lo;
        double* yp = YP + q * kBlock;
        for (int64_t n = 0; n < L; ++n) {
            yp[n] = y[n] * psii[q];
            yPy[n] += yp[n] * y[n];
        }
    }
}

// rho[n] of component s for the block's points (block_yp done first): with B = M_s' Psi^-1 y,
// c_s - y'Psi^-1 y / 2 + B_0 + x'(B_1: - A_s[1:, 0] - (A_s[1:, 1:] x + x) / 2), x = Xm[s, :, n]
void block_rho(const double* Xm, const RhoTerms& t, const Dims& dm, int64_t s, int64_t lo, int64_t L,
               double* scratch, double* rho) {
    const int64_t d = dm.k + 1;
    const double* YP = scratch;
    const double* yPy = scratch + dm.p * kBlock;
    double* B = scratch + (dm.p + 1) * kBlock;
    const double* M = t.M + s * dm.p * d;
    const double* A = t.A + s * d * d;
    std::fill(B, B + d * kBlock, 0.0);
    for (int64_t q = 0; q < dm.p; ++q)
        for (int64_t j = 0; j < d; ++j) {
            const double w = M[q * d + j];
            double* b = B + j * kBlock;
            const double* yp = YP + q * kBlock;
            for (int64_t n = 0; n < L; ++n) b[n] += w * yp[n];
        }
    for (int64_t n = 0; n < L; ++n) rho[n] = 0.0;
    const double* X = Xm + s * dm.k * dm.m + lo;
    for (int64_t j = 0; j < dm.k; ++j) {
        const double* xj = X + j * dm.m;
        const double* bj = B + (j + 1) * kBlock;
        const double* Aj = A + (j + 1) * d;
        for (int64_t n = 0; n < L; ++n) {
            double ax = 0.0;
            for (int64_t i = 0; i < dm.k; ++i) ax += Aj[i + 1] * X[i * dm.m + n];
            rho[n] += xj[n] * (bj[n] - Aj[0] - 0.5 * (ax + xj[n]));
        }
    }
    for (int64_t n = 0; n < L; ++n) rho[n] = ((t.c[s] - 0.5 * yPy[n]) + B[n]) + rho[n];
}

// sum_l Q[s, l, n] for the block's points
void block_r(const double* Q, const Dims& dm, int64_t s, int64_t lo, int64_t L, double* r) {
    const double* Qs = Q + s * dm.K * dm.m + lo;
    std::copy(Qs, Qs + L, r);
    for (int64_t l = 1; l < dm.K; ++l)
        for (int64_t n = 0; n < L; ++n) r[n] += Qs[l * dm.m + n];
}

}  // namespace

void points_x(const double* Yt, const double* W, const double* c, const Dims& dm, double* Xm, int threads) {
    over_blocks(dm.m, threads, 0, 0, nullptr, [&](int64_t lo, int64_t hi, double*, double*) {
        for (int64_t sj = 0; sj < dm.S * dm.k; ++sj) {
            double* out = Xm + sj * dm.m + lo;
            const double* w = W + sj * dm.p;
            std::fill(out, out + (hi - lo), 0.0);
            for (int64_t q = 0; q < dm.p; ++q) {
                const double* y = Yt + q * dm.m + lo;
                for (int64_t n = 0; n < hi - lo; ++n) out[n] += w[q] * y[n];
            }
            for (int64_t n = 0; n < hi - lo; ++n) out[n] -= c[sj];
        }
    });
}

double points_q(const double* Yt, const double* Xm, const double* logC, const RhoTerms& t, const double* prior,
                const Dims& dm, double* Q, int threads) {
    const int64_t SK = dm.S * dm.K;
    const int64_t n_scratch = rho_scratch(dm) + (SK + 2) * kBlock;
    double lse = 0.0;
    over_blocks(dm.m, threads, 1, n_scratch, &lse, [&](int64_t lo, int64_t hi, double* sums, double* scratch) {
        const int64_t L = hi - lo;
        double* phi = scratch + rho_scratch(dm);  // (S, K, L) in rows of kBlock
        double* mx = phi + SK * kBlock;
        double* tot = mx + kBlock;
        block_yp(Yt, dm, t.psii, lo, L, scratch);
        for (int64_t s = 0; s < dm.S; ++s) {
            double* rho = phi + s * dm.K * kBlock;  // row (s, 0) first holds rho
            block_rho(Xm, t, dm, s, lo, L, scratch, rho);
            for (int64_t l = dm.K - 1; l >= 0; --l) {  // (s, 0) last: it is rho
                double* row = phi + (s * dm.K + l) * kBlock;
                const double* lc = logC ? logC + l * dm.m + lo : nullptr;
                for (int64_t n = 0; n < L; ++n) row[n] = (rho[n] + prior[s * dm.K + l]) + (lc ? lc[n] : 0.0);
            }
        }
        std::copy(phi, phi + L, mx);
        for (int64_t sl = 1; sl < SK; ++sl)
            for (int64_t n = 0; n < L; ++n) mx[n] = std::max(mx[n], phi[sl * kBlock + n]);
        std::fill(tot, tot + L, 0.0);
        for (int64_t sl = 0; sl < SK; ++sl) {
            double* row = phi + sl * kBlock;
            for (int64_t n = 0; n < L; ++n) row[n] -= mx[n];
            unl::exp_nonpositive(row, L);  // 0 for -inf (an excluded class), exactly 1 at the max
            for (int64_t n = 0; n < L; ++n) tot[n] += row[n];
        }
        for (int64_t sl = 0; sl < SK; ++sl) {
            const double* row = phi + sl * kBlock;
            double* out = Q + sl * dm.m + lo;
            for (int64_t n = 0; n < L; ++n) out[n] = row[n] / tot[n];
        }
        double acc = 0.0;
        for (int64_t n = 0; n < L; ++n) acc += mx[n] + std::log(tot[n]);
        sums[0] += acc;
    });
    return lse;
}

void points_stats(const double* Yt, const double* Q, const double* Xm, const Dims& dm, double* Sry, double* T2,
                  int threads) {
    const int64_t d = dm.k + 1, n_sry = dm.S * dm.p * d;
    std::vector<double> total(static_cast<size_t>(n_sry + dm.S * d * d));
    over_blocks(dm.m, threads, n_sry + dm.S * d * d, (dm.k + 1) * kBlock, total.data(),
                [&](int64_t lo, int64_t hi, double* sums, double* scratch) {
                    const int64_t L = hi - lo;
                    double* r = scratch;
                    double* rX = scratch + kBlock;  // (k, L) rows of kBlock
                    for (int64_t s = 0; s < dm.S; ++s) {
                        const double* X = Xm + s * dm.k * dm.m + lo;
                        block_r(Q, dm, s, lo, L, r);
                        for (int64_t j = 0; j < dm.k; ++j)
                            for (int64_t n = 0; n < L; ++n) rX[j * kBlock + n] = X[j * dm.m + n] * r[n];
                        double* sry = sums + s * dm.p * d;
                        double* t2 = sums + n_sry + s * d * d;
                        for (int64_t q = 0; q < dm.p; ++q) {
                            const double* y = Yt + q * dm.m + lo;
                            sry[q * d] += dot_f64(y, r, L);
                            for (int64_t j = 0; j < dm.k; ++j) sry[q * d + 1 + j] += dot_f64(y, rX + j * kBlock, L);
                        }
                        for (int64_t n = 0; n < L; ++n) t2[0] += r[n];
                        for (int64_t j = 0; j < dm.k; ++j) {
                            double a = 0.0;
                            for (int64_t n = 0; n < L; ++n) a += rX[j * kBlock + n];
                            t2[1 + j] += a;
                            t2[(1 + j) * d] += a;
                            for (int64_t i = 0; i < dm.k; ++i)
                                t2[(1 + i) * d + 1 + j] += dot_f64(X + i * dm.m, rX + j * kBlock, L);
                        }
                    }
                });
    std::copy(total.begin(), total.begin() + n_sry, Sry);
    std::copy(total.begin() + n_sry, total.end(), T2);
}

void points_fit(const double* Yt, const double* Q, const double* Xm, const RhoTerms& t, const Dims& dm, double* fit,
                int threads) {
    over_blocks(dm.m, threads, dm.S, rho_scratch(dm) + 2 * kBlock, fit,
                [&](int64_t lo, int64_t hi, double* sums, double* scratch) {
                    const int64_t L = hi - lo;
                    double* rho = scratch + rho_scratch(dm);
                    double* r = rho + kBlock;
                    block_yp(Yt, dm, t.psii, lo, L, scratch);
                    for (int64_t s = 0; s < dm.S; ++s) {
                        block_rho(Xm, t, dm, s, lo, L, scratch, rho);
                        block_r(Q, dm, s, lo, L, r);
                        sums[s] += dot_f64(r, rho, L);
                    }
                });
}

void points_q_sums(const double* Q, const Dims& dm, double* Qsum, double* qlogq, int threads) {
    const int64_t SK = dm.S * dm.K;
    std::vector<double> total(static_cast<size_t>(SK + dm.S));
    over_blocks(dm.m, threads, SK + dm.S, 0, total.data(), [&](int64_t lo, int64_t hi, double* sums, double*) {
        for (int64_t sl = 0; sl < SK; ++sl) {
            const double* q = Q + sl * dm.m + lo;
            double a = 0.0, b = 0.0;
            for (int64_t n = 0; n < hi - lo; ++n) {
                a += q[n];
            }
            if (qlogq)
                for (int64_t n = 0; n < hi - lo; ++n)
                    if (q[n] > 0.0) b += q[n] * std::log(q[n]);
            sums[sl] += a;
            sums[SK + sl / dm.K] += b;
        }
    });
    std::copy(total.begin(), total.begin() + SK, Qsum);
    if (qlogq) std::copy(total.begin() + SK, total.end(), qlogq);
}

}  // namespace unl::vbmfa
