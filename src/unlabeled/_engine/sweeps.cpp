// The SMO solvers' vector sweeps (sweeps.hpp). Per variable they do what the scalar loops did,
// in the same order, so the solvers' choices and models stay the same bit for bit: division and
// multiplication are exactly rounded in any vector width, the sums run per lane in the scalar
// order, and the file is built with -ffp-contract=off (an FMA would round differently). A
// multi-instance fit spent 31% of its time in BoxSolver's selection and a clustering fit 64% in
// the label-mixed Q rows, whose inner sum over the label vectors was a chain of dependent adds.
#include "sweeps.hpp"

#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "blocks.hpp"
#include "common.hpp"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define UNL_X86_VERSIONS 1
#pragma GCC push_options
#pragma GCC target("avx512f")
namespace unl {
namespace {
namespace v512 {
#define UNL_GATHER 8
#define UNL_W 8
#include "sweeps_impl.inc"
#undef UNL_W
#undef UNL_GATHER
}  // namespace v512
}  // namespace
}  // namespace unl
#pragma GCC pop_options
#pragma GCC push_options
#pragma GCC target("avx2")
namespace unl {
namespace {
namespace v256 {
#define UNL_GATHER 4
#define UNL_W 4
#include "sweeps_impl.inc"
#undef UNL_W
#undef UNL_GATHER
}  // namespace v256
}  // namespace
}  // namespace unl
#pragma GCC pop_options
#endif

namespace unl {
namespace {
namespace vbase {
#define UNL_GATHER 0
#define UNL_W 2
#include "sweeps_impl.inc"
#undef UNL_W
#undef UNL_GATHER
}  // namespace vbase
}  // namespace

namespace {
// one dispatch per entry point, for rows of either precision
template <class T>
void mixed_any(const double* w, const int8_t* Y, int64_t m, int64_t stride, const T* row,
               const int64_t* point, int64_t len, double* b) {
#ifdef UNL_X86_VERSIONS
    if (isa_level() == 2) return v512::mixed_entry(w, Y, m, stride, row, point, len, b);
    if (isa_level() == 1) return v256::mixed_entry(w, Y, m, stride, row, point, len, b);
#endif
    vbase::mixed_entry(w, Y, m, stride, row, point, len, b);
}

template <class T>
void scaled_any(double c, const int8_t* Y, const T* row, const int64_t* point, int64_t len,
                double* b) {
#ifdef UNL_X86_VERSIONS
    if (isa_level() == 2) return v512::scaled_entry(c, Y, row, point, len, b);
    if (isa_level() == 1) return v256::scaled_entry(c, Y, row, point, len, b);
#endif
    vbase::scaled_entry(c, Y, row, point, len, b);
}
}  // namespace

void mixed_row(const double* w, const int8_t* Y, int64_t m, int64_t stride, const double* row,
               const int64_t* point, int64_t len, double* b) {
    mixed_any(w, Y, m, stride, row, point, len, b);
}

void mixed_row(const double* w, const int8_t* Y, int64_t m, int64_t stride, const float* row,
               const int64_t* point, int64_t len, double* b) {
    mixed_any(w, Y, m, stride, row, point, len, b);
}

void scaled_row(double c, const int8_t* Y, const double* row, const int64_t* point, int64_t len,
                double* b) {
    scaled_any(c, Y, row, point, len, b);
}

void scaled_row(double c, const int8_t* Y, const float* row, const int64_t* point, int64_t len,
                double* b) {
    scaled_any(c, Y, row, point, len, b);
}

double box_gains(const double* G, const int8_t* status, const double* QD, double tau, int64_t n,
                 double* gain) {
#ifdef UNL_X86_VERSIONS
    if (isa_level() == 2) return v512::box_entry(G, status, QD, tau, n, gain);
    if (isa_level() == 1) return v256::box_entry(G, status, QD, tau, n, gain);
#endif
    return vbase::box_entry(G, status, QD, tau, n, gain);
}

}  // namespace unl
