#include "smo.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

namespace unl {

namespace {
constexpr double INF = std::numeric_limits<double>::infinity();
// curvature floor for pairs with eta <= 0 (duplicate points, non-PSD rounding noise)
constexpr double TAU = 1e-12;
}  // namespace

void Solver::swap_index(int64_t i, int64_t j) {
    Q_->swap_index(i, j);
    std::swap(y_[i], y_[j]);
    std::swap(G_[i], G_[j]);
    std::swap(status_[i], status_[j]);
    std::swap(alpha_[i], alpha_[j]);
    std::swap(p_[i], p_[j]);
    std::swap(active_set_[i], active_set_[j]);
    std::swap(G_bar_[i], G_bar_[j]);
    std::swap(C_[i], C_[j]);
}

void Solver::reconstruct_gradient() {
    if (active_size_ == l_) return;
    for (int64_t j = active_size_; j < l_; ++j) G_[j] = G_bar_[j] + p_[j];
    int64_t nr_free = 0;
    for (int64_t j = 0; j < active_size_; ++j)
        if (is_free(j)) ++nr_free;
    // pick whichever loop order needs fewer kernel evaluations
    if (static_cast<double>(nr_free) * l_ > 2.0 * active_size_ * (l_ - active_size_)) {
        for (int64_t i = active_size_; i < l_; ++i) {
            const double* Q_i = Q_->get_Q(i, active_size_);
            for (int64_t j = 0; j < active_size_; ++j)
                if (is_free(j)) G_[i] += alpha_[j] * Q_i[j];
        }
    } else {
        for (int64_t i = 0; i < active_size_; ++i) {
            if (!is_free(i)) continue;
            const double* Q_i = Q_->get_Q(i, l_);
            for (int64_t j = active_size_; j < l_; ++j) G_[j] += alpha_[i] * Q_i[j];
        }
    }
}

bool Solver::select_working_set(int64_t& out_i, int64_t& out_j, double& violation) {
    double Gmax = -INF, Gmax2 = -INF, obj_diff_min = INF;
    int64_t Gmax_idx = -1, Gmin_idx = -1;
    for (int64_t t = 0; t < active_size_; ++t) {
        if (y_[t] == +1) {
            if (!upper(t) && -G_[t] >= Gmax) { Gmax = -G_[t]; Gmax_idx = t; }
        } else {
            if (!lower(t) && G_[t] >= Gmax) { Gmax = G_[t]; Gmax_idx = t; }
        }
    }
    const int64_t i = Gmax_idx;
    const double* Q_i = i >= 0 ? Q_->get_Q(i, active_size_) : nullptr;
    for (int64_t j = 0; j < active_size_; ++j) {
        double grad_diff, quad;
        if (y_[j] == +1) {
            if (lower(j)) continue;
            Gmax2 = std::max(Gmax2, G_[j]);
            grad_diff = Gmax + G_[j];
            if (grad_diff <= 0 || i < 0) continue;
            quad = QD_[i] + QD_[j] - 2.0 * y_[i] * Q_i[j];
        } else {
            if (upper(j)) continue;
            Gmax2 = std::max(Gmax2, -G_[j]);
            grad_diff = Gmax - G_[j];
            if (grad_diff <= 0 || i < 0) continue;
            quad = QD_[i] + QD_[j] + 2.0 * y_[i] * Q_i[j];
        }
        double obj_diff = -(grad_diff * grad_diff) / (quad > 0 ? quad : TAU);
        if (obj_diff <= obj_diff_min) { Gmin_idx = j; obj_diff_min = obj_diff; }
    }
    violation = Gmax + Gmax2;
    if (violation < eps_ || Gmin_idx == -1) return false;
    out_i = Gmax_idx;
    out_j = Gmin_idx;
    return true;
}

bool Solver::be_shrunk(int64_t i, double Gmax1, double Gmax2) const {
    if (upper(i)) return y_[i] == +1 ? -G_[i] > Gmax1 : -G_[i] > Gmax2;
    if (lower(i)) return y_[i] == +1 ? G_[i] > Gmax2 : G_[i] > Gmax1;
    return false;
}

void Solver::do_shrinking() {
    double Gmax1 = -INF, Gmax2 = -INF;  // max -yG over I_up, max yG over I_low
    for (int64_t i = 0; i < active_size_; ++i) {
        if (y_[i] == +1) {
            if (!upper(i)) Gmax1 = std::max(Gmax1, -G_[i]);
            if (!lower(i)) Gmax2 = std::max(Gmax2, G_[i]);
        } else {
            if (!upper(i)) Gmax2 = std::max(Gmax2, -G_[i]);
            if (!lower(i)) Gmax1 = std::max(Gmax1, G_[i]);
        }
    }
    // close to the optimum: bring everything back once, so that shrinking decisions taken
    // far from the optimum cannot stall the final phase
    if (!unshrink_ && Gmax1 + Gmax2 <= eps_ * 10) {
        unshrink_ = true;
        reconstruct_gradient();
        active_size_ = l_;
    }
    const int64_t before = active_size_;
    for (int64_t i = 0; i < active_size_; ++i) {
        if (!be_shrunk(i, Gmax1, Gmax2)) continue;
        --active_size_;
        while (active_size_ > i) {
            if (!be_shrunk(active_size_, Gmax1, Gmax2)) {
                swap_index(i, active_size_);
                break;
            }
            --active_size_;
        }
    }
    if (active_size_ != before || before == l_) Q_->set_active_size(active_size_);
}

double Solver::calculate_rho() const {
    int64_t nr_free = 0;
    double ub = INF, lb = -INF, sum_free = 0.0;
    for (int64_t i = 0; i < active_size_; ++i) {
        double yG = y_[i] * G_[i];
        if (upper(i)) {
            if (y_[i] == -1) ub = std::min(ub, yG); else lb = std::max(lb, yG);
        } else if (lower(i)) {
            if (y_[i] == +1) ub = std::min(ub, yG); else lb = std::max(lb, yG);
        } else {
            ++nr_free;
            sum_free += yG;
        }
    }
    return nr_free > 0 ? sum_free / nr_free : (ub + lb) / 2;
}

double Solver::objective() const {
    double v = 0.0;
    for (int64_t i = 0; i < l_; ++i) v += alpha_[i] * (G_[i] + p_[i]);
    return v / 2;
}

SolveResult Solver::solve(int64_t l, QMatrix& Q, const double* p, const int8_t* y, const double* C,
                          double* alpha, double* G_out, const SolverOptions& opt,
                          const double* G0, const double* G_bar0, double* G_bar_out) {
    l_ = l;
    Q_ = &Q;
    QD_ = Q.get_QD();
    y_.assign(y, y + l);
    p_.assign(p, p + l);
    C_.assign(C, C + l);
    alpha_.assign(alpha, alpha + l);
    eps_ = opt.eps;
    unshrink_ = false;
    status_.assign(static_cast<size_t>(l), LOWER);
    for (int64_t i = 0; i < l; ++i) update_status(i);
    active_set_.resize(static_cast<size_t>(l));
    for (int64_t i = 0; i < l; ++i) active_set_[i] = i;
    active_size_ = l;

    if (G0 && G_bar0) {
        G_.assign(G0, G0 + l);
        G_bar_.assign(G_bar0, G_bar0 + l);
    } else {
        G_.assign(p, p + l);
        G_bar_.assign(static_cast<size_t>(l), 0.0);
    }
    for (int64_t i = 0; i < l && !(G0 && G_bar0); ++i) {
        if (lower(i)) continue;
        const double* Q_i = Q.get_Q(i, l);
        for (int64_t j = 0; j < l; ++j) G_[j] += alpha_[i] * Q_i[j];
        if (upper(i))
            for (int64_t j = 0; j < l; ++j) G_bar_[j] += C_[i] * Q_i[j];
    }

    SolveResult res;
    ProgressClock clock(opt.progress, opt.progress_interval);
    const int64_t max_iter = opt.max_iter;
    int64_t counter = std::min<int64_t>(l, 1000) + 1;
    int64_t iter = 0;
    double violation = INF;
    for (;;) {
        if (max_iter >= 0 && iter >= max_iter) break;
        if (--counter == 0) {
            counter = std::min<int64_t>(l, 1000);
            if (opt.shrinking) do_shrinking();
        }
        int64_t i = -1, j = -1;
        if (!select_working_set(i, j, violation)) {
            reconstruct_gradient();
            active_size_ = l;
            Q.set_active_size(l);
            if (!select_working_set(i, j, violation)) {
                res.converged = true;
                break;
            }
            counter = 1;  // shrink again at the next iteration
        }
        if (clock.due() && clock.report(iter, violation, objective())) {
            res.stopped = true;
            break;
        }
        ++iter;

        const double* Q_i = Q.get_Q(i, active_size_);
        const double* Q_j = Q.get_Q(j, active_size_);
        const double C_i = C_[i], C_j = C_[j];
        const double old_ai = alpha_[i], old_aj = alpha_[j];
        double& ai = alpha_[i];
        double& aj = alpha_[j];
        if (y_[i] != y_[j]) {
            double quad = QD_[i] + QD_[j] + 2 * Q_i[j];
            if (quad <= 0) quad = TAU;
            double delta = (-G_[i] - G_[j]) / quad;
            double diff = ai - aj;
            ai += delta;
            aj += delta;
            if (diff > 0) {
                if (aj < 0) { aj = 0; ai = diff; }
            } else if (ai < 0) { ai = 0; aj = -diff; }
            if (diff > C_i - C_j) {
                if (ai > C_i) { ai = C_i; aj = C_i - diff; }
            } else if (aj > C_j) { aj = C_j; ai = C_j + diff; }
        } else {
            double quad = QD_[i] + QD_[j] - 2 * Q_i[j];
            if (quad <= 0) quad = TAU;
            double delta = (G_[i] - G_[j]) / quad;
            double sum = ai + aj;
            ai -= delta;
            aj += delta;
            if (sum > C_i) {
                if (ai > C_i) { ai = C_i; aj = sum - C_i; }
            } else if (aj < 0) { aj = 0; ai = sum; }
            if (sum > C_j) {
                if (aj > C_j) { aj = C_j; ai = sum - C_j; }
            } else if (ai < 0) { ai = 0; aj = sum; }
        }

        const double dai = ai - old_ai, daj = aj - old_aj;
        for (int64_t k = 0; k < active_size_; ++k) G_[k] += Q_i[k] * dai + Q_j[k] * daj;

        // keep G_bar = sum over upper-bounded variables of C_t Q_t
        const bool ui = upper(i), uj = upper(j);
        update_status(i);
        update_status(j);
        if (ui != upper(i)) {
            const double* row = Q.get_Q(i, l);
            const double c = ui ? -C_i : C_i;
            for (int64_t k = 0; k < l; ++k) G_bar_[k] += c * row[k];
        }
        if (uj != upper(j)) {
            const double* row = Q.get_Q(j, l);
            const double c = uj ? -C_j : C_j;
            for (int64_t k = 0; k < l; ++k) G_bar_[k] += c * row[k];
        }
    }
    if (active_size_ < l) {
        reconstruct_gradient();
        active_size_ = l;
    }
    res.iter = iter;
    res.rho = calculate_rho();
    res.violation = violation;
    res.objective = objective();
    for (int64_t i = 0; i < l; ++i) {
        alpha[active_set_[i]] = alpha_[i];
        if (G_out) G_out[active_set_[i]] = G_[i];
        if (G_bar_out) G_bar_out[active_set_[i]] = G_bar_[i];
    }
    return res;
}

}  // namespace unl
