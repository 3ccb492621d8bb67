// rbf block products (blocks.hpp) with their own vector exp. A kernel product K W spends its time
// on the exponentials and on storing the block: NumPy's exp costs ~7 ns a value on CPUs without
// AVX-512 and libmvec's ~1.4 ns (a call per 4 or 8 values), while the exp below, inlined into the
// loop, costs a few FMAs a value; and GEMM with 9 inner products a value is bound by writing the
// block, not by arithmetic (issue 36). Built without -ffast-math: the exp's rounding trick needs
// the additions in the order written. One clone per instruction set (AVX-512, AVX2, baseline),
// chosen once by the CPU; the vector type below is one AVX-512 register or two AVX2 ones.
#include "blocks.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

// The 64-byte vectors below pass only between always-inlined helpers of this file, never across
// an ABI boundary, so GCC's note that their calling convention differs without AVX-512 is moot.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

namespace unl {

namespace {

typedef double V8 __attribute__((vector_size(64)));
typedef int64_t I8 __attribute__((vector_size(64)));
typedef float F8 __attribute__((vector_size(32)));

constexpr int kRows = 4;  // rows of A per group: each column of Bt is loaded once for all of them
constexpr int kTile = 8;  // columns per vector

#if defined(__GNUC__)
#define UNL_INLINE inline __attribute__((always_inline))
#else
#define UNL_INLINE inline
#endif

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define UNL_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define UNL_CLONES
#endif

UNL_INLINE V8 splat(double v) { return V8{} + v; }

UNL_INLINE V8 load(const double* p) {
    V8 v;
    std::memcpy(&v, p, sizeof v);
    return v;
}
UNL_INLINE V8 load(const float* p) {
    F8 v;
    std::memcpy(&v, p, sizeof v);
    return __builtin_convertvector(v, V8);
}

// exp(x) for x <= 0: x = n ln2 + r with |r| <= ln2 / 2 (n rounded by the 1.5 * 2^52 shift),
// exp(r) by its Taylor series to degree 13 (remainder below 2e-17 relative), times 2^n built in
// the exponent bits. Values below -708 (results under 3e-308) give 0.
UNL_INLINE V8 exp_neg(const V8& x_in) {
    const V8 shift = splat(0x1.8p52);
    const I8 tiny = x_in < -708.0;
    const V8 x = tiny ? splat(-708.0) : x_in;
    const V8 t = x * 1.4426950408889634 + shift;
    const V8 n = t - shift;
    V8 r = x - n * 6.93147180369123816490e-01;  // ln 2 in two parts: n * hi is exact
    r = r - n * 1.90821492927058770002e-10;
    V8 p = splat(1.0 / 6227020800.0);
    p = p * r + 1.0 / 479001600.0;
    p = p * r + 1.0 / 39916800.0;
    p = p * r + 1.0 / 3628800.0;
    p = p * r + 1.0 / 362880.0;
    p = p * r + 1.0 / 40320.0;
    p = p * r + 1.0 / 5040.0;
    p = p * r + 1.0 / 720.0;
    p = p * r + 1.0 / 120.0;
    p = p * r + 1.0 / 24.0;
    p = p * r + 1.0 / 6.0;
    p = p * r + 0.5;
    p = p * r + 1.0;
    p = p * r + 1.0;
    I8 bits;
    std::memcpy(&bits, &t, sizeof bits);
    I8 shift_bits;
    std::memcpy(&shift_bits, &shift, sizeof shift_bits);
    const I8 e = (bits - shift_bits + 1023) << 52;  // n in [-1022, 0]: a normal 2^n
    V8 scale;
    std::memcpy(&scale, &e, sizeof scale);
    const V8 y = p * scale;
    return tiny ? splat(0.0) : y;
}

constexpr int kMaxK = 4;  // vectors per pass, their sums in registers; more take further passes

// inner products z (one tile of 8 columns) -> kernel values -> sums[m] += k * w_m, m < k
UNL_INLINE void tile_sums(const V8& z, double rsi, const V8& cs, double gamma, const double* wt, int64_t ldw, int k, V8* sums) {
    V8 d2 = (rsi + cs) - 2.0 * z;
    d2 = d2 > 0.0 ? d2 : splat(0.0);
    const V8 kv = exp_neg(-gamma * d2);
    for (int m = 0; m < k; ++m) sums[m] += kv * load(wt + m * ldw);
}

UNL_INLINE double hsum(const V8& v) {
    double s = 0.0;
    for (int t = 0; t < kTile; ++t) s += v[t];
    return s;
}

// The last columns (fewer than a tile) padded with zeros: zero weights add nothing.
struct Tail {
    int64_t j0, w;
    std::vector<double> bt, cs, wt;  // d x 8, 8, k x 8
    Tail(const double* Bt, int64_t d, int64_t c, const double* cs_in, const double* wt_in, int64_t k)
        : j0(c - c % kTile), w(c % kTile), bt(static_cast<size_t>(d * kTile), 0.0), cs(kTile, 0.0),
          wt(static_cast<size_t>(k * kTile), 0.0) {
        for (int64_t t = 0; t < w; ++t) {
            for (int64_t q = 0; q < d && Bt; ++q) bt[q * kTile + t] = Bt[q * c + j0 + t];
            cs[t] = cs_in[j0 + t];
            for (int64_t m = 0; m < k; ++m) wt[m * kTile + t] = wt_in[m * c + j0 + t];
        }
    }
};

// One tile of kRows rows (a: kRows x d, ra: their squared norms) against 8 columns of bt (ldb
// apart per feature): the inner products in four vectors, then their kernel values' sums.
UNL_INLINE void group_tile(const double* a, const double* ra, int64_t d, const double* bt, int64_t ldb,
                           const double* csj, double gamma, const double* wtj, int64_t ldw, int k,
                           V8 (*sums)[kMaxK]) {
    V8 z0{}, z1{}, z2{}, z3{};
    for (int64_t q = 0; q < d; ++q) {
        const V8 b = load(bt + q * ldb);
        z0 += a[q] * b;
        z1 += a[d + q] * b;
        z2 += a[2 * d + q] * b;
        z3 += a[3 * d + q] * b;
    }
    const V8 cv = load(csj);
    tile_sums(z0, ra[0], cv, gamma, wtj, ldw, k, sums[0]);
    tile_sums(z1, ra[1], cv, gamma, wtj, ldw, k, sums[1]);
    tile_sums(z2, ra[2], cv, gamma, wtj, ldw, k, sums[2]);
    tile_sums(z3, ra[3], cv, gamma, wtj, ldw, k, sums[3]);
}

UNL_INLINE void dense_times(const double* A, int64_t r, int64_t d, const double* Bt, int64_t c, const double* rs,
                            const double* cs, double gamma, const double* wt, int64_t k, double* out, int64_t ldo) {
    const Tail tail(Bt, d, c, cs, wt, k);
    std::vector<double> a(static_cast<size_t>(kRows * d));
    double ra[kRows];
    V8 sums[kRows][kMaxK];
    for (int64_t i0 = 0; i0 < r; i0 += kRows) {
        // a group of kRows rows (the last one padded with zero rows, whose sums are dropped)
        const int nr = static_cast<int>(std::min<int64_t>(kRows, r - i0));
        std::fill(a.begin(), a.end(), 0.0);
        std::copy(A + i0 * d, A + (i0 + nr) * d, a.begin());
        for (int rr = 0; rr < kRows; ++rr) ra[rr] = rr < nr ? rs[i0 + rr] : 0.0;
        for (int rr = 0; rr < kRows; ++rr)
            for (int m = 0; m < kMaxK; ++m) sums[rr][m] = V8{};
        const int kk = static_cast<int>(k);
        for (int64_t j0 = 0; j0 < tail.j0; j0 += kTile)
            group_tile(a.data(), ra, d, Bt + j0, c, cs + j0, gamma, wt + j0, c, kk, sums);
        if (tail.w)
            group_tile(a.data(), ra, d, tail.bt.data(), kTile, tail.cs.data(), gamma, tail.wt.data(), kTile, kk,
                       sums);
        for (int rr = 0; rr < nr; ++rr)
            for (int m = 0; m < kk; ++m) out[(i0 + rr) * ldo + m] += hsum(sums[rr][m]);
    }
}

template <class T>
UNL_INLINE void gram_times(const T* D, int64_t r, int64_t c, const double* rs, const double* cs, double gamma,
                           const double* wt, int64_t k, double* out, int64_t ldo) {
    const Tail tail(nullptr, 0, c, cs, wt, k);
    const int kk = static_cast<int>(k);
    V8 sums[kMaxK];
    T pad[kTile];
    for (int64_t i = 0; i < r; ++i) {
        for (int m = 0; m < kMaxK; ++m) sums[m] = V8{};
        const T* row = D + i * c;
        for (int64_t j0 = 0; j0 < tail.j0; j0 += kTile)
            tile_sums(load(row + j0), rs[i], load(cs + j0), gamma, wt + j0, c, kk, sums);
        if (tail.w) {
            std::fill(pad, pad + kTile, T(0));
            std::copy(row + tail.j0, row + c, pad);
            tile_sums(load(pad), rs[i], load(tail.cs.data()), gamma, tail.wt.data(), kTile, kk, sums);
        }
        for (int m = 0; m < kk; ++m) out[i * ldo + m] += hsum(sums[m]);
    }
}

}  // namespace

// (kMaxK vectors per pass: the products of this project use one or two)
UNL_CLONES
void rbf_dense_times(const double* A, int64_t r, int64_t d, const double* Bt, int64_t c, const double* rs,
                     const double* cs, double gamma, const double* wt, int64_t k, double* out) {
    for (int64_t m = 0; m < k; m += kMaxK)
        dense_times(A, r, d, Bt, c, rs, cs, gamma, wt + m * c, std::min<int64_t>(kMaxK, k - m), out + m, k);
}

UNL_CLONES
void rbf_gram_times(const double* D, int64_t r, int64_t c, const double* rs, const double* cs, double gamma,
                    const double* wt, int64_t k, double* out) {
    for (int64_t m = 0; m < k; m += kMaxK)
        gram_times(D, r, c, rs, cs, gamma, wt + m * c, std::min<int64_t>(kMaxK, k - m), out + m, k);
}

UNL_CLONES
void rbf_gram_times(const float* D, int64_t r, int64_t c, const double* rs, const double* cs, double gamma,
                    const double* wt, int64_t k, double* out) {
    for (int64_t m = 0; m < k; m += kMaxK)
        gram_times(D, r, c, rs, cs, gamma, wt + m * c, std::min<int64_t>(kMaxK, k - m), out + m, k);
}

UNL_CLONES
void exp_nonpositive(double* x, int64_t n) {
    int64_t i = 0;
    for (; i + kTile <= n; i += kTile) {
        const V8 y = exp_neg(load(x + i));
        std::memcpy(x + i, &y, sizeof y);
    }
    if (i < n) {
        double pad[kTile] = {};
        std::copy(x + i, x + n, pad);
        const V8 y = exp_neg(load(pad));
        for (int64_t t = 0; t < n - i; ++t) x[i + t] = y[t];
    }
}

}  // namespace unl
