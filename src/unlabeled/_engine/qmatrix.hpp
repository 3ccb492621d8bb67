// Q matrices whose variables map onto points, several variables possibly sharing one point
// (the a_u / b_u split of the PU problem, the two copies of epsilon-SVR, SVM+ ...):
//
//     Q_ts = k(x_point(t), x_point(s)) * c_ts,   c_ts = y_t y_s            (signed), or
//                                                c_ts = sum_k mu_k y_kt y_ks  (label-mixed)
//
// the label-mixed kernel of WellSVM's multiple-kernel step (Li et al., JMLR 2013): one kernel row,
// reweighted, never an n x n matrix. Kernel rows live in a PointRows cache keyed by point, so
// variables that share a point share its row, and a cache can outlive one solve (successive
// solves on the same points with other labels, weights or bounds reuse its rows). Rows are
// stored as T (double or float); the solver always receives doubles.
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include "cache.hpp"
#include "kernels.hpp"
#include "solver.hpp"
#include "sweeps.hpp"

namespace unl {

// rows computed together by PointRows::prefetch at most: 8 rows of 784 doubles stay in L1/L2
constexpr int kPrefetch = 8;

template <class T = double>
class PointRows {
public:
    using value_type = T;
    // rows: the rows of X of the distinct points
    PointRows(Kernel& K, std::vector<int32_t> rows, double cache_bytes)
        : K_(K), rows_(std::move(rows)), n_(static_cast<int64_t>(rows_.size())),
          cache_(n_, n_, cache_bytes) {
        diag_.resize(static_cast<size_t>(n_));
        for (int64_t u = 0; u < n_; ++u) diag_[u] = K_(rows_[u], rows_[u]);
        row_full_.assign(static_cast<size_t>(n_), 0);
        row_epoch_.assign(static_cast<size_t>(n_), -1);
        active_flag_.assign(static_cast<size_t>(n_), 1);
    }

    int64_t size() const { return n_; }
    double diag(int64_t u) const { return diag_[u]; }
    Kernel& kernel() { return K_; }
    const std::vector<int32_t>& rows() const { return rows_; }

    // The row of point u: over all points if `full` (or when every point is active), else
    // valid at least on the active points.
    const T* row(int64_t u, bool full) {
        bool hit;
        T* r = cache_.get(u, hit);
        full = full || all_active_;
        if (hit && (row_full_[u] || (!full && row_epoch_[u] == epoch_))) return r;
        ++rows_computed_;
        if (full) {
            if constexpr (std::is_same_v<T, double>) {
                K_.row(rows_[u], rows_.data(), n_, r);
            } else {
                full_.resize(static_cast<size_t>(n_));
                K_.row(rows_[u], rows_.data(), n_, full_.data());
                for (int64_t k = 0; k < n_; ++k) r[k] = static_cast<T>(full_[k]);
            }
            row_full_[u] = 1;
        } else {
            // only the active points: shrinking pays off in kernel work
            const int64_t m = static_cast<int64_t>(active_pts_.size());
            K_.row(rows_[u], active_rows_.data(), m, tmp_.data());
            for (int64_t k = 0; k < m; ++k) r[active_pts_[k]] = static_cast<T>(tmp_[k]);
            row_full_[u] = 0;
            row_epoch_[u] = epoch_;
        }
        return r;
    }

    // Computes the rows of the points us[0..k) that the cache lacks in one pass over the data
    // (Kernel::rows_block), when us[0]'s is missing: the others are the solver's next likely
    // rows. Only where blocks pay (dense data, a cache of many rows).
    void prefetch(const int64_t* us, int k, bool full) {
        if (!K_.blockable() || cache_.contains(us[0]) || cache_.capacity() < 8 * kPrefetch) return;
        full = full || all_active_;
        int32_t pts[kPrefetch];
        int m = 0;
        for (int r = 0; r < k && m < kPrefetch; ++r) {
            const int64_t u = us[r];
            bool seen = cache_.contains(u);
            for (int q = 0; q < m && !seen; ++q) seen = pts[q] == u;
            if (!seen) pts[m++] = static_cast<int32_t>(u);
        }
        if (m < 2) return;  // a single row: row() computes it as usual
        const std::vector<int32_t>& cols = full ? rows_ : active_rows_;
        const int64_t len = static_cast<int64_t>(cols.size());
        block_.resize(static_cast<size_t>(m * len));
        int32_t xs[kPrefetch];
        double* outs[kPrefetch];
        for (int q = 0; q < m; ++q) {
            xs[q] = rows_[pts[q]];
            outs[q] = block_.data() + q * len;
        }
        K_.rows_block(xs, m, cols.data(), len, outs);
        for (int q = 0; q < m; ++q) {
            bool hit;
            T* r = cache_.get(pts[q], hit);
            ++rows_computed_;
            if (full) {
                for (int64_t s = 0; s < len; ++s) r[s] = static_cast<T>(outs[q][s]);
            } else {
                for (int64_t s = 0; s < len; ++s) r[active_pts_[s]] = static_cast<T>(outs[q][s]);
                row_epoch_[pts[q]] = epoch_;
            }
            row_full_[pts[q]] = full;
        }
    }

    // The points with an active variable are those flagged in `now` (length size()).
    void set_active(std::vector<uint8_t>& now) {
        bool grew = false;
        for (int64_t u = 0; u < n_ && !grew; ++u) grew = now[u] && !active_flag_[u];
        if (grew) ++epoch_;  // partial rows computed before lack the newly active points
        active_flag_.swap(now);
        active_pts_.clear();
        active_rows_.clear();
        for (int64_t u = 0; u < n_; ++u)
            if (active_flag_[u]) {
                active_pts_.push_back(u);
                active_rows_.push_back(rows_[u]);
            }
        all_active_ = static_cast<int64_t>(active_pts_.size()) == n_;
        tmp_.resize(active_pts_.size());
    }

    int64_t rows_computed() const { return rows_computed_; }
    const RowCacheT<T>& cache() const { return cache_; }

private:
    Kernel& K_;
    std::vector<int32_t> rows_;
    int64_t n_;
    RowCacheT<T> cache_;
    std::vector<double> diag_;
    // a cached row is either full or computed over the active points of its epoch (the
    // active set only shrinks within one epoch)
    std::vector<uint8_t> row_full_, active_flag_;
    std::vector<int64_t> row_epoch_, active_pts_;
    std::vector<int32_t> active_rows_;
    std::vector<double> tmp_, full_, block_;
    int64_t epoch_ = 0;
    bool all_active_ = true;
    int64_t rows_computed_ = 0;
};

template <class T = double>
class PointQMatrix : public QMatrix {
public:
    // var_point[t]: the point of variable t; y: the sign of each variable (signed Q).
    PointQMatrix(PointRows<T>& rows, std::vector<int64_t> var_point, const std::vector<int8_t>& y)
        : PointQMatrix(rows, std::move(var_point), y, {}, 1) {}

    // Label-mixed Q: labels holds m label vectors as an l x m row-major matrix of +1 / -1
    // (variable t's labels are labels[t m .. t m + m - 1]), mu their m non-negative weights.
    // They are kept label by label (m x l), so that a row sums over the labels in vectors.
    PointQMatrix(PointRows<T>& rows, std::vector<int64_t> var_point, std::vector<int8_t> labels,
                 std::vector<double> mu, int64_t m)
        : R_(rows), l_(static_cast<int64_t>(var_point.size())), m_(m),
          point_(std::move(var_point)), labels_(labels.size()), mu_(std::move(mu)) {
        for (int64_t t = 0; t < l_; ++t)  // label by label: the mixed row is a vector sweep
            for (int64_t k = 0; k < m_; ++k) labels_[k * l_ + t] = labels[t * m_ + k];
        if (mu_.empty()) mu_.assign(1, 1.0);
        double mu_sum = 0.0;
        for (double v : mu_) mu_sum += v;
        QD_.resize(static_cast<size_t>(l_));
        for (int64_t t = 0; t < l_; ++t) QD_[t] = R_.diag(point_[t]) * mu_sum;
        for (int8_t v : labels_) all_plus_ = all_plus_ && v == 1;
        buf_[0].resize(static_cast<size_t>(l_));
        buf_[1].resize(static_cast<size_t>(l_));
        weights_.resize(static_cast<size_t>(m_));
        // the active set (all variables at the start) is set by the Solver's first
        // set_active_size call, which also resets a cache reused from an earlier solve
    }

    const double* get_Q(int64_t t, int64_t len) override {
        const T* row = R_.row(point_[t], len == l_);
        double* b = buf_[next_].data();
        next_ ^= 1;
        if (m_ == 1) {
            const bool plus = all_plus_;
            scaled_row(plus ? mu_[0] : mu_[0] * labels_[t], plus ? nullptr : labels_.data(), row,
                       point_.data(), len, b);
        } else {
            for (int64_t k = 0; k < m_; ++k) weights_[k] = mu_[k] * labels_[k * l_ + t];
            mixed_row(weights_.data(), labels_.data(), m_, l_, row, point_.data(), len, b);
        }
        if (!extra_.empty() && t < len) b[t] += extra_[t];
        return b;
    }
    const double* get_QD() const override { return QD_.data(); }
    void swap_index(int64_t i, int64_t j) override {
        std::swap(point_[i], point_[j]);
        std::swap(QD_[i], QD_[j]);
        if (!extra_.empty()) std::swap(extra_[i], extra_[j]);
        for (int64_t k = 0; k < m_; ++k) std::swap(labels_[k * l_ + i], labels_[k * l_ + j]);
    }
    void prefetch(const int64_t* vars, int k, int64_t len) override {
        int64_t us[kPrefetch];
        const int m = std::min(k, kPrefetch);
        for (int r = 0; r < m; ++r) us[r] = point_[vars[r]];
        R_.prefetch(us, m, len == l_);
    }
    // Adds extra[t] to Q_tt (a squared hinge's 1/C_t): one entry per variable, in the
    // variables' original order; set before the solve.
    void add_diagonal(const std::vector<double>& extra) {
        extra_ = extra;
        for (int64_t t = 0; t < l_; ++t) QD_[t] += extra_[t];
    }
    void set_active_size(int64_t len) override {
        std::vector<uint8_t> now(static_cast<size_t>(R_.size()), 0);
        for (int64_t s = 0; s < len; ++s) now[point_[s]] = 1;
        R_.set_active(now);
    }

private:
    PointRows<T>& R_;
    int64_t l_, m_;
    std::vector<int64_t> point_;
    std::vector<int8_t> labels_;  // m x l (label k of variable t at k l + t), in the solver's order
    std::vector<double> mu_, weights_, QD_, extra_;
    bool all_plus_ = true;
    std::vector<double> buf_[2];
    int next_ = 0;
};

}  // namespace unl
