// Q matrices whose variables map onto points, several variables possibly sharing one point
// (the a_u / b_u split of the PU problem, the two copies of epsilon-SVR, SVM+ ...):
// Q_ts = y_t y_s k(x_point(t), x_point(s)). The row cache is keyed by point, so variables that
// share a point share its kernel row. Rows are stored as T (double or float); the solver always
// receives doubles.
#pragma once

#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include "cache.hpp"
#include "kernels.hpp"
#include "smo.hpp"

namespace unl {

template <class T = double>
class PointQMatrix : public QMatrix {
public:
    // rows: the rows of X of the distinct points; var_point[t]: the point of variable t;
    // y: the sign of each variable.
    PointQMatrix(Kernel& K, const std::vector<int32_t>& rows, std::vector<int64_t> var_point,
                 const std::vector<int8_t>& y, double cache_bytes)
        : K_(K), rows_(rows), n_(static_cast<int64_t>(rows.size())),
          l_(static_cast<int64_t>(var_point.size())), cache_(n_, n_, cache_bytes),
          point_(std::move(var_point)), sign_(y) {
        QD_.resize(static_cast<size_t>(l_));
        for (int64_t t = 0; t < l_; ++t) QD_[t] = K_(rows_[point_[t]], rows_[point_[t]]);
        for (int8_t v : sign_) all_plus_ = all_plus_ && v == 1;
        buf_[0].resize(static_cast<size_t>(l_));
        buf_[1].resize(static_cast<size_t>(l_));
        row_full_.assign(static_cast<size_t>(n_), 0);
        row_epoch_.assign(static_cast<size_t>(n_), -1);
        active_flag_.assign(static_cast<size_t>(n_), 1);
    }
    const double* get_Q(int64_t t, int64_t len) override {
        const int64_t u = point_[t];
        bool hit;
        T* row = cache_.get(u, hit);
        const bool need_full = len == l_ || all_active_;
        if (!hit || (!row_full_[u] && (need_full || row_epoch_[u] != epoch_))) {
            ++rows_computed_;
            if (need_full) {
                if constexpr (std::is_same_v<T, double>) {
                    K_.row(rows_[u], rows_.data(), n_, row);
                } else {
                    full_.resize(static_cast<size_t>(n_));
                    K_.row(rows_[u], rows_.data(), n_, full_.data());
                    for (int64_t k = 0; k < n_; ++k) row[k] = static_cast<T>(full_[k]);
                }
                row_full_[u] = 1;
            } else {
                // only the points with an active variable: shrinking pays off in kernel work
                const int64_t m = static_cast<int64_t>(active_pts_.size());
                K_.row(rows_[u], active_rows_.data(), m, tmp_.data());
                for (int64_t k = 0; k < m; ++k) row[active_pts_[k]] = static_cast<T>(tmp_[k]);
                row_full_[u] = 0;
                row_epoch_[u] = epoch_;
            }
        }
        double* b = buf_[next_].data();
        next_ ^= 1;
        if (all_plus_) {
            for (int64_t s = 0; s < len; ++s) b[s] = row[point_[s]];
        } else {
            const double yt = sign_[t];
            for (int64_t s = 0; s < len; ++s) b[s] = yt * sign_[s] * row[point_[s]];
        }
        return b;
    }
    const double* get_QD() const override { return QD_.data(); }
    void swap_index(int64_t i, int64_t j) override {
        std::swap(point_[i], point_[j]);
        std::swap(QD_[i], QD_[j]);
        std::swap(sign_[i], sign_[j]);
    }
    void set_active_size(int64_t len) override {
        std::vector<uint8_t> now(static_cast<size_t>(n_), 0);
        for (int64_t s = 0; s < len; ++s) now[point_[s]] = 1;
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
    const std::vector<int32_t>& rows_;
    int64_t n_, l_;
    RowCacheT<T> cache_;
    std::vector<int64_t> point_;
    std::vector<int8_t> sign_;
    bool all_plus_ = true;
    std::vector<double> QD_;
    std::vector<double> buf_[2];
    int next_ = 0;
    // shrinking: points with at least one active variable; a cached row is either full or
    // computed over the active points of its epoch (the active set only shrinks within one)
    std::vector<uint8_t> row_full_, active_flag_;
    std::vector<int64_t> row_epoch_, active_pts_;
    std::vector<int32_t> active_rows_;
    std::vector<double> tmp_, full_;
    int64_t epoch_ = 0;
    bool all_active_ = true;
    int64_t rows_computed_ = 0;
};

}  // namespace unl
