// Kernel evaluation over dense (float64 / float32, row-major) or CSR data.
//
// The engine never materialises an n x n matrix: a kernel "row" is computed on demand
// against an arbitrary list of columns, and the linear kernel additionally exposes
// dot/axpy against a dense primal vector so that solvers can keep w = sum_i alpha_i x_i.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "vmath.hpp"

namespace unl {

enum class KernelType : int { Linear = 0, Poly = 1, Rbf = 2, Precomputed = 3 };

struct KernelParams {
    KernelType type = KernelType::Rbf;
    double gamma = 1.0;
    double coef0 = 0.0;
    int degree = 3;
    int n_jobs = 0;  // threads for long kernel rows; 0: OpenMP's default (all cores)
};

// A read-only view of the training matrix. For kernel == Precomputed the "data" is the
// (n x n) Gram matrix itself, stored densely in float64.
class Data {
public:
    int64_t n = 0, d = 0;
    // dense storage (exactly one of x64 / x32 set when !sparse)
    const double* x64 = nullptr;
    const float* x32 = nullptr;
    // CSR storage
    bool sparse = false;
    const double* val = nullptr;
    const int64_t* indptr = nullptr;
    const int32_t* ind = nullptr;

    // <x_i, x_j>
    double dot(int64_t i, int64_t j) const {
        if (sparse) {
            int64_t a = indptr[i], ae = indptr[i + 1], b = indptr[j], be = indptr[j + 1];
            double s = 0.0;
            while (a < ae && b < be) {
                if (ind[a] == ind[b]) s += val[a++] * val[b++];
                else if (ind[a] < ind[b]) ++a;
                else ++b;
            }
            return s;
        }
        if (x64) return dense_dot(x64 + i * d, x64 + j * d);
        return dense_dot(x32 + i * d, x32 + j * d);
    }

    // <x_i, w> for a dense vector w of length d
    double dot_w(int64_t i, const double* w) const {
        double s = 0.0;
        if (sparse) {
            for (int64_t k = indptr[i]; k < indptr[i + 1]; ++k) s += val[k] * w[ind[k]];
            return s;
        }
        if (x64) {
            const double* r = x64 + i * d;
            for (int64_t k = 0; k < d; ++k) s += r[k] * w[k];
        } else {
            const float* r = x32 + i * d;
            for (int64_t k = 0; k < d; ++k) s += static_cast<double>(r[k]) * w[k];
        }
        return s;
    }

    // w += a * x_i
    void axpy(int64_t i, double a, double* w) const {
        if (a == 0.0) return;
        if (sparse) {
            for (int64_t k = indptr[i]; k < indptr[i + 1]; ++k) w[ind[k]] += a * val[k];
        } else if (x64) {
            const double* r = x64 + i * d;
            for (int64_t k = 0; k < d; ++k) w[k] += a * r[k];
        } else {
            const float* r = x32 + i * d;
            for (int64_t k = 0; k < d; ++k) w[k] += a * static_cast<double>(r[k]);
        }
    }

    // f(j, x_ij) for every stored entry of row i (every column when dense)
    template <class F>
    void for_each(int64_t i, F&& f) const {
        if (sparse) {
            for (int64_t k = indptr[i]; k < indptr[i + 1]; ++k) f(static_cast<int64_t>(ind[k]), val[k]);
        } else if (x64) {
            const double* r = x64 + i * d;
            for (int64_t k = 0; k < d; ++k) f(k, r[k]);
        } else {
            const float* r = x32 + i * d;
            for (int64_t k = 0; k < d; ++k) f(k, static_cast<double>(r[k]));
        }
    }

    // Write x_i into a zeroed dense buffer / zero it again (sparse rows only).
    void scatter(int64_t i, double* buf) const {
        for (int64_t k = indptr[i]; k < indptr[i + 1]; ++k) buf[ind[k]] = val[k];
    }
    void unscatter(int64_t i, double* buf) const {
        for (int64_t k = indptr[i]; k < indptr[i + 1]; ++k) buf[ind[k]] = 0.0;
    }

    double self_dot(int64_t i) const {
        if (sparse) {
            double s = 0.0;
            for (int64_t k = indptr[i]; k < indptr[i + 1]; ++k) s += val[k] * val[k];
            return s;
        }
        return dot(i, i);
    }

private:
    // long rows: the vectorised kernels of vmath.cpp (an indirect call, worth it from ~32)
    double dense_dot(const double* a, const double* b) const {
        return d >= 32 ? dot_f64(a, b, d) : short_dot(a, b);
    }
    double dense_dot(const float* a, const float* b) const {
        return d >= 32 ? dot_f32(a, b, d) : short_dot(a, b);
    }
    template <class T>
    double short_dot(const T* a, const T* b) const {
        // four accumulators: lets the compiler vectorise without -ffast-math
        double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
        int64_t k = 0;
        for (; k + 4 <= d; k += 4) {
            s0 += static_cast<double>(a[k]) * b[k];
            s1 += static_cast<double>(a[k + 1]) * b[k + 1];
            s2 += static_cast<double>(a[k + 2]) * b[k + 2];
            s3 += static_cast<double>(a[k + 3]) * b[k + 3];
        }
        for (; k < d; ++k) s0 += static_cast<double>(a[k]) * b[k];
        return (s0 + s1) + (s2 + s3);
    }
};

// A row is split over threads only when it holds at least this much work, in multiply-adds of
// a dense dot product (about half a millisecond): a parallel region waits for its slowest
// thread, and on a machine busier than its cores a descheduled thread costs a whole scheduler
// time slice, which made short parallel rows 30x slower than serial ones under load
// (benchmarks/results/profile.md; n_jobs=None now counts only the idle cores).
constexpr int64_t kParallelWork = int64_t(1) << 20;
// The work of one kernel value beyond its inner product, in the same unit: an exponential or a
// power costs about as much as 32 multiply-adds, and a sparse entry (an index, a gather) about 2.
// Counting the inner product alone had kept rows of sparse and low-dimensional data serial
// (Adult-shaped, 14 non-zeros: 0.48 ms a row; Shuttle-shaped, 9 features: 0.86 ms).
constexpr int64_t kTransformWork = 32, kSparseEntryWork = 2;

class Kernel {
public:
    Kernel(const Data& data, KernelParams params) : X(data), p(params) {
        if (p.type == KernelType::Rbf) {
            sqnorm.resize(static_cast<size_t>(X.n));
            for (int64_t i = 0; i < X.n; ++i) sqnorm[i] = X.self_dot(i);
        }
        if (X.sparse) buf.assign(static_cast<size_t>(X.d), 0.0);
        entry_cost = X.sparse ? kSparseEntryWork * std::max<int64_t>(1, X.indptr[X.n] / std::max<int64_t>(X.n, 1)) : X.d;
        if (p.type == KernelType::Rbf || p.type == KernelType::Poly) entry_cost += kTransformWork;
    }

    double operator()(int64_t i, int64_t j) const {
        if (p.type == KernelType::Precomputed) return X.x64[i * X.d + j];
        return transform(X.dot(i, j), i, j);
    }

    // out[s] = k(x_i, x_cols[s]) for s < len, split over threads when long and `parallel`.
    // Not reentrant for sparse data (one scatter buffer): call it from one thread at a time.
    void row(int64_t i, const int32_t* cols, int64_t len, double* out, bool parallel = true) {
        if (p.type == KernelType::Precomputed) {
            const double* r = X.x64 + i * X.d;
            for (int64_t s = 0; s < len; ++s) out[s] = r[cols[s]];
            return;
        }
        // sparse rows: scatter x_i once, then each dot costs O(nnz of the other row); float32
        // rows: x_i converted to double once
        if (X.sparse) X.scatter(i, buf.data());
        const double* xi = wide32() ? widened(i, 0) : nullptr;
        auto block = [&](int64_t lo, int64_t hi) {
            if (X.sparse)
                for (int64_t s = lo; s < hi; ++s) out[s] = X.dot_w(cols[s], buf.data());
            else if (xi)
                for (int64_t s = lo; s < hi; ++s) out[s] = dot_f64_f32(xi, X.x32 + cols[s] * X.d, X.d);
            else
                for (int64_t s = lo; s < hi; ++s) out[s] = X.dot(i, cols[s]);
            finish(i, cols, out, lo, hi);
        };
        split(len, parallel && len * entry_cost >= kParallelWork, block);
        if (X.sparse) X.unscatter(i, buf.data());
    }

    // outs[r][s] = k(x_is[r], x_cols[s]) for r < k, s < len, dense data only: each x_cols[s]
    // is read once for all k rows (the k rows of X stay in cache), so a block costs one pass
    // over X where k single rows cost k (rows of large dense X are bound by memory).
    void rows_block(const int32_t* is, int k, const int32_t* cols, int64_t len, double* const* outs) {
        const bool w = wide32();
        for (int r = 0; r < k && w; ++r) widened(is[r], r);
        auto block = [&](int64_t lo, int64_t hi) {
            for (int64_t s = lo; s < hi; ++s)
                for (int r = 0; r < k; ++r)
                    outs[r][s] = w ? dot_f64_f32(wide_.data() + r * X.d, X.x32 + cols[s] * X.d, X.d)
                                   : X.dot(is[r], cols[s]);
            for (int r = 0; r < k; ++r) finish(is[r], cols, outs[r], lo, hi);
        };
        split(len, len * entry_cost * k >= kParallelWork, block);
    }
    bool blockable() const { return !X.sparse && p.type != KernelType::Precomputed; }

    bool is_linear() const { return p.type == KernelType::Linear; }
    const Data& data() const { return X; }

private:
    const Data& X;
    KernelParams p;
    std::vector<double> sqnorm;  // rbf only
    std::vector<double> buf;     // scatter buffer for sparse rows
    std::vector<double> wide_;   // float32 rows converted to double (row, rows_block)

    bool wide32() const { return !X.sparse && X.x32 != nullptr && X.d >= 32; }

    // out[lo, hi): inner products <x_i, x_cols[s]> -> kernel values
    void finish(int64_t i, const int32_t* cols, double* out, int64_t lo, int64_t hi) const {
        if (p.type == KernelType::Rbf) {
            for (int64_t s = lo; s < hi; ++s) out[s] = sqnorm[i] + sqnorm[cols[s]] - 2.0 * out[s];
            neg_exp_scaled(out + lo, hi - lo, p.gamma);
        } else if (p.type == KernelType::Poly) {
            for (int64_t s = lo; s < hi; ++s) out[s] = std::pow(p.gamma * out[s] + p.coef0, p.degree);
        }
    }

    // block(lo, hi) over [0, len), split over the threads when `parallel`
    template <class Fn>
    void split(int64_t len, bool parallel, Fn&& block) const {
#ifdef _OPENMP
        if (parallel) {
            const int nt = p.n_jobs > 0 ? p.n_jobs : omp_get_max_threads();
#pragma omp parallel num_threads(nt)
            {
                const int64_t t = omp_get_thread_num(), T = omp_get_num_threads();
                block(len * t / T, len * (t + 1) / T);
            }
            return;
        }
#else
        (void)parallel;
#endif
        block(0, len);
    }
    // row i of float32 data as doubles, in slot r of wide_
    const double* widened(int64_t i, int r) {
        if (wide_.size() < static_cast<size_t>((r + 1) * X.d)) wide_.resize(static_cast<size_t>((r + 1) * X.d));
        double* w = wide_.data() + r * X.d;
        const float* x = X.x32 + i * X.d;
        for (int64_t k = 0; k < X.d; ++k) w[k] = x[k];
        return w;
    }
    int64_t entry_cost = 1;      // work per kernel value (see kParallelWork)

    double transform(double dot, int64_t i, int64_t j) const {
        switch (p.type) {
        case KernelType::Linear: return dot;
        case KernelType::Poly: return std::pow(p.gamma * dot + p.coef0, p.degree);
        case KernelType::Rbf: {
            double d2 = sqnorm[i] + sqnorm[j] - 2.0 * dot;
            neg_exp_scaled(&d2, 1, p.gamma);
            return d2;
        }
        default: throw std::logic_error("unreachable kernel type");
        }
    }
};

}  // namespace unl
