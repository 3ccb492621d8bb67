// rbf block products (blocks.hpp) with their own vector exp. A kernel product K W spends its time
// on the exponentials and on storing the block: NumPy's exp costs ~7 ns a value on CPUs without
// AVX-512 and libmvec's ~1.3 ns (a call per 4 values), while the exp of blocks_impl.inc, inlined
// into the loop, takes about 20 vector operations per vector of values and no call; and GEMM with
// 9 inner products a value is bound by writing the block, not by arithmetic (issue 36). Built
// without -ffast-math: the exp's rounding trick needs the additions in the order written. One
// version per instruction set (AVX-512, AVX2, baseline), chosen once by the CPU, each with
// vectors of its own register width: 8 doubles with AVX-512 (1.3 ns a value for 9 features on
// this project's AMD EPYC), 4 with AVX2 (2.3 ns; 8-wide vectors split onto AVX2 ran at 14.7)
// and 2 in the SSE2 baseline (8.5 ns).
#include "blocks.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

// The 64-byte vectors of blocks_impl.inc pass only between always-inlined helpers, never across
// an ABI boundary, so GCC's note that their calling convention differs without AVX-512 is moot.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

#if defined(__GNUC__)
#define UNL_INLINE inline __attribute__((always_inline))
#else
#define UNL_INLINE inline
#endif

// One copy of blocks_impl.inc per instruction set, each inside its own `#pragma GCC target`
// region. A target attribute on the entry points alone was not enough: helpers defined outside
// the region were lowered for the baseline (the AVX2 version ran at 16 ns a value, not 2.3).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define UNL_X86_VERSIONS 1
#pragma GCC push_options
#pragma GCC target("avx512f,fma")
namespace unl {
namespace {
namespace v512 {
#define UNL_W 8
#include "blocks_impl.inc"
#undef UNL_W
}  // namespace v512
}  // namespace
}  // namespace unl
#pragma GCC pop_options
#pragma GCC push_options
#pragma GCC target("avx2,fma")
namespace unl {
namespace {
namespace v256 {
#define UNL_W 4
#include "blocks_impl.inc"
#undef UNL_W
}  // namespace v256
}  // namespace
}  // namespace unl
#pragma GCC pop_options
#endif

namespace unl {
namespace {
namespace vbase {
#define UNL_W 2
#include "blocks_impl.inc"
#undef UNL_W
}  // namespace vbase

#ifdef UNL_X86_VERSIONS
// 2: AVX-512, 1: AVX2 with FMA, 0: the baseline (chosen once per process)
int isa() {
    static const int level = __builtin_cpu_supports("avx512f")                                   ? 2
                             : __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? 1
                                                                                               : 0;
    return level;
}
#endif
}  // namespace

int isa_level() {
#ifdef UNL_X86_VERSIONS
    return isa();
#else
    return 0;
#endif
}

void rbf_dense_times(const double* A, int64_t r, int64_t d, const double* Bt, int64_t c, const double* rs,
                     const double* cs, double gamma, const double* wt, int64_t k, double* out) {
#ifdef UNL_X86_VERSIONS
    if (isa() == 2) return v512::dense_entry(A, r, d, Bt, c, rs, cs, gamma, wt, k, out);
    if (isa() == 1) return v256::dense_entry(A, r, d, Bt, c, rs, cs, gamma, wt, k, out);
#endif
    vbase::dense_entry(A, r, d, Bt, c, rs, cs, gamma, wt, k, out);
}

namespace {
// rbf_gram_times for either precision of the inner products D (gram_entry's two overloads)
template <typename T>
void gram_times(const T* D, int64_t r, int64_t c, const double* rs, const double* cs, double gamma,
                const double* wt, int64_t k, double* out) {
#ifdef UNL_X86_VERSIONS
    if (isa() == 2) return v512::gram_entry(D, r, c, rs, cs, gamma, wt, k, out);
    if (isa() == 1) return v256::gram_entry(D, r, c, rs, cs, gamma, wt, k, out);
#endif
    vbase::gram_entry(D, r, c, rs, cs, gamma, wt, k, out);
}
}  // namespace

void rbf_gram_times(const double* D, int64_t r, int64_t c, const double* rs, const double* cs, double gamma,
                    const double* wt, int64_t k, double* out) {
    gram_times(D, r, c, rs, cs, gamma, wt, k, out);
}

void rbf_gram_times(const float* D, int64_t r, int64_t c, const double* rs, const double* cs, double gamma,
                    const double* wt, int64_t k, double* out) {
    gram_times(D, r, c, rs, cs, gamma, wt, k, out);
}

void exp_nonpositive(double* x, int64_t n) {
#ifdef UNL_X86_VERSIONS
    if (isa() == 2) return v512::exp_entry(x, n);
    if (isa() == 1) return v256::exp_entry(x, n);
#endif
    vbase::exp_entry(x, n);
}

}  // namespace unl
