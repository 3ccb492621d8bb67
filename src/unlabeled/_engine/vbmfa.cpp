// CLSST's per-point passes (see vbmfa.hpp). Within a block of kBlock points every array is a
// set of contiguous rows along the points, so each inner loop runs along the points as NumPy's
// did, with no call overhead: CLSST's sweep on CAKE-size data was 885,000 NumPy calls a fit.
// The block work (vbmfa_impl.inc) is compiled once per instruction set, as blocks.cpp: built for
// the baseline alone (2 doubles a vector, no FMA) the passes ran slower than NumPy's BLAS at
// 200,000 points.
#include "vbmfa.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "blocks.hpp"

namespace unl::vbmfa {
namespace {

constexpr int64_t kBlock = 256;  // points per block: a block's rows stay in L1/L2

}  // namespace
}  // namespace unl::vbmfa

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define UNL_VBMFA_X86 1
#pragma GCC push_options
#pragma GCC target("avx512f,fma")
namespace unl::vbmfa {
namespace {
namespace v512 {
#include "vbmfa_impl.inc"
}  // namespace v512
}  // namespace
}  // namespace unl::vbmfa
#pragma GCC pop_options
#pragma GCC push_options
#pragma GCC target("avx2,fma")
namespace unl::vbmfa {
namespace {
namespace v256 {
#include "vbmfa_impl.inc"
}  // namespace v256
}  // namespace
}  // namespace unl::vbmfa
#pragma GCC pop_options
#endif

namespace unl::vbmfa {
namespace {
namespace vbase {
#include "vbmfa_impl.inc"
}  // namespace vbase

// One instruction set's block functions, chosen once per process
struct Table {
    decltype(&vbase::x_block) x;
    decltype(&vbase::q_block) q;
    decltype(&vbase::stats_block) stats;
    decltype(&vbase::fit_block) fit;
    decltype(&vbase::qsums_block) qsums;
    decltype(&vbase::e_block) e;
};

const Table& table() {
#ifdef UNL_VBMFA_X86
    static const Table t = __builtin_cpu_supports("avx512f")
                               ? Table{&v512::x_block, &v512::q_block, &v512::stats_block, &v512::fit_block,
                                       &v512::qsums_block, &v512::e_block}
                           : __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")
                               ? Table{&v256::x_block, &v256::q_block, &v256::stats_block, &v256::fit_block,
                                       &v256::qsums_block, &v256::e_block}
                               : Table{&vbase::x_block, &vbase::q_block, &vbase::stats_block, &vbase::fit_block,
                                       &vbase::qsums_block, &vbase::e_block};
#else
    static const Table t{&vbase::x_block,     &vbase::q_block, &vbase::stats_block, &vbase::fit_block,
                         &vbase::qsums_block, &vbase::e_block};
#endif
    return t;
}

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

}  // namespace

void points_x(const double* Yt, const double* W, const double* c, const Dims& dm, double* Xm, int threads) {
    const auto x = table().x;
    over_blocks(dm.m, threads, 0, 0, nullptr,
                [&](int64_t lo, int64_t hi, double*, double*) { x(Yt, W, c, dm, lo, hi, Xm + lo, dm.m); });
}

double points_q(const double* Yt, const double* Xm, const double* logC, const RhoTerms& t, const double* prior,
                const Dims& dm, double* Q, int threads) {
    const auto q = table().q;
    double lse = 0.0;
    over_blocks(dm.m, threads, 1, vbase::rho_scratch(dm) + (dm.S * dm.K + 2) * kBlock, &lse,
                [&](int64_t lo, int64_t hi, double* sums, double* scratch) {
                    sums[0] += q(Yt, Xm + lo, dm.m, logC, t, prior, dm, lo, hi, scratch, Q + lo, dm.m);
                });
    return lse;
}

void points_stats(const double* Yt, const double* Q, const double* Xm, const Dims& dm, double* Sry, double* T2,
                  int threads) {
    const auto stats = table().stats;
    const int64_t d = dm.k + 1, n_sry = dm.S * dm.p * d;
    std::vector<double> total(static_cast<size_t>(n_sry + dm.S * d * d));
    over_blocks(dm.m, threads, n_sry + dm.S * d * d, (dm.k + 1) * kBlock, total.data(),
                [&](int64_t lo, int64_t hi, double* sums, double* scratch) {
                    stats(Yt, Q + lo, dm.m, Xm + lo, dm.m, dm, lo, hi, sums, scratch);
                });
    std::copy(total.begin(), total.begin() + n_sry, Sry);
    std::copy(total.begin() + n_sry, total.end(), T2);
}

void points_fit(const double* Yt, const double* Q, const double* Xm, const RhoTerms& t, const Dims& dm, double* fit,
                int threads) {
    const auto f = table().fit;
    over_blocks(dm.m, threads, dm.S, vbase::rho_scratch(dm) + 2 * kBlock, fit,
                [&](int64_t lo, int64_t hi, double* sums, double* scratch) {
                    f(Yt, Q, Xm, t, dm, lo, hi, sums, scratch);
                });
}

void points_q_sums(const double* Q, const Dims& dm, double* Qsum, double* qlogq, int threads) {
    const auto qsums = table().qsums;
    const int64_t SK = dm.S * dm.K;
    std::vector<double> total(static_cast<size_t>(SK + dm.S));
    over_blocks(dm.m, threads, SK + dm.S, 0, total.data(), [&](int64_t lo, int64_t hi, double* sums, double*) {
        qsums(Q, dm, lo, hi, qlogq != nullptr, sums);
    });
    std::copy(total.begin(), total.begin() + SK, Qsum);
    if (qlogq) std::copy(total.begin() + SK, total.end(), qlogq);
}

double points_e_step(const double* Yt, const double* W, const double* c, const double* logC, const RhoTerms& t,
                     const double* prior, const Dims& dm, double* Qsum, double* Sry, double* T2, double* Xm,
                     double* Q, int threads) {
    const auto e = table().e;
    const int64_t SK = dm.S * dm.K, d = dm.k + 1, n_sry = dm.S * dm.p * d;
    std::vector<double> total(static_cast<size_t>(1 + SK + n_sry + dm.S * d * d));
    over_blocks(dm.m, threads, static_cast<int64_t>(total.size()), vbase::e_scratch(dm), total.data(),
                [&](int64_t lo, int64_t hi, double* sums, double* scratch) {
                    e(Yt, W, c, logC, t, prior, dm, lo, hi, sums, scratch, Xm, Q);
                });
    std::copy(total.begin() + 1, total.begin() + 1 + SK, Qsum);
    std::copy(total.begin() + 1 + SK, total.begin() + 1 + SK + n_sry, Sry);
    std::copy(total.begin() + 1 + SK + n_sry, total.end(), T2);
    return total[0];
}

}  // namespace unl::vbmfa
