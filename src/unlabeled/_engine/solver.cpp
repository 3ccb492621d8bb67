#include "solver.hpp"

#include "sweeps.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

namespace unl {

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

namespace {
// The k largest values seen (descending) and their indices: the most violating variables,
// whose rows the next iterations are likely to need.
template <int K>
struct TopK {
    double val[K];
    int64_t idx[K];
    int n = 0;
    void add(double v, int64_t t) {
        if (n == K && v <= val[K - 1]) return;
        int q = n < K ? n++ : K - 1;
        for (; q > 0 && val[q - 1] < v; --q) {
            val[q] = val[q - 1];
            idx[q] = idx[q - 1];
        }
        val[q] = v;
        idx[q] = t;
    }
};
}  // namespace

bool Solver::select_working_set(int64_t& out_i, int64_t& out_j, double& violation) {
    double Gmax = -INF, Gmax2 = -INF, obj_diff_min = INF;
    int64_t Gmax_idx = -1, Gmin_idx = -1;
    TopK<4> ups, lows;  // "up" by -y G, "low" by y G: candidates for the next pairs
    for (int64_t t = 0; t < active_size_; ++t) {
        const double v = -y_[t] * G_[t];
        if (y_[t] == +1 ? !upper(t) : !lower(t)) {
            ups.add(v, t);
            if (v >= Gmax) { Gmax = v; Gmax_idx = t; }
        }
        if (y_[t] == +1 ? !lower(t) : !upper(t)) lows.add(-v, t);
    }
    const int64_t i = Gmax_idx;
    if (i >= 0) {  // i first: the problem computes the others only with i's row
        int64_t cand[8] = {i};
        int k = 1;
        for (int q = 0; q < ups.n; ++q)
            if (ups.idx[q] != i) cand[k++] = ups.idx[q];
        for (int q = 0; q < lows.n && k < 8; ++q) cand[k++] = lows.idx[q];
        Q_->prefetch(cand, k, active_size_);
    }
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

void Solver::unshrink_once_near(double gap) {
    if (!unshrink_ && gap <= eps_ * 10) {
        unshrink_ = true;
        reconstruct_gradient();
        active_size_ = l_;
    }
}

void Solver::shrink_where(const std::function<bool(int64_t)>& shrink) {
    const int64_t before = active_size_;
    for (int64_t i = 0; i < active_size_; ++i) {
        if (!shrink(i)) continue;
        --active_size_;
        while (active_size_ > i) {
            if (!shrink(active_size_)) {
                swap_index(i, active_size_);
                break;
            }
            --active_size_;
        }
    }
    if (active_size_ != before || before == l_) Q_->set_active_size(active_size_);
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
    unshrink_once_near(Gmax1 + Gmax2);
    shrink_where([&](int64_t i) { return be_shrunk(i, Gmax1, Gmax2); });
}

double Solver::calculate_rho() const {
    OffsetEstimate r;
    for (int64_t i = 0; i < active_size_; ++i) {
        const double yG = y_[i] * G_[i];
        if (is_free(i)) r.add_free(yG);
        else if (upper(i) == (y_[i] == -1)) r.add_upper(yG);
        else r.add_lower(yG);
    }
    return r.value();
}

double Solver::objective() const {
    double v = 0.0;
    for (int64_t i = 0; i < l_; ++i) v += alpha_[i] * (G_[i] + p_[i]);
    return v / 2;
}

void Solver::init_gradient(const double* G0, const double* G_bar0) {
    if (G0 && G_bar0) {
        G_.assign(G0, G0 + l_);
        G_bar_.assign(G_bar0, G_bar0 + l_);
        return;
    }
    G_ = p_;
    G_bar_.assign(static_cast<size_t>(l_), 0.0);
    for (int64_t i = 0; i < l_; ++i) {
        if (lower(i)) continue;
        const double* Q_i = Q_->get_Q(i, l_);
        for (int64_t j = 0; j < l_; ++j) G_[j] += alpha_[i] * Q_i[j];
        if (upper(i))
            for (int64_t j = 0; j < l_; ++j) G_bar_[j] += C_[i] * Q_i[j];
    }
}

// keeps G_bar = sum over upper-bounded variables of C_t Q_t
void Solver::update_G_bar(int64_t i, bool was_upper) {
    update_status(i);
    if (was_upper == upper(i)) return;
    const double* row = Q_->get_Q(i, l_);
    const double c = was_upper ? -C_[i] : C_[i];
    for (int64_t k = 0; k < l_; ++k) G_bar_[k] += c * row[k];
}

void smo_pair_step(double& ai, double& aj, double Ci, double Cj, double Gi, double Gj, double Qii,
                   double Qjj, double Qij, bool same_sign) {
    if (!same_sign) {
        double quad = Qii + Qjj + 2 * Qij;
        if (quad <= 0) quad = TAU;
        const double delta = (-Gi - Gj) / quad;
        const double diff = ai - aj;
        ai += delta;
        aj += delta;
        if (diff > 0) {
            if (aj < 0) { aj = 0; ai = diff; }
        } else if (ai < 0) { ai = 0; aj = -diff; }
        if (diff > Ci - Cj) {
            if (ai > Ci) { ai = Ci; aj = Ci - diff; }
        } else if (aj > Cj) { aj = Cj; ai = Cj + diff; }
    } else {
        double quad = Qii + Qjj - 2 * Qij;
        if (quad <= 0) quad = TAU;
        const double delta = (Gi - Gj) / quad;
        const double sum = ai + aj;
        ai -= delta;
        aj += delta;
        if (sum > Ci) {
            if (ai > Ci) { ai = Ci; aj = sum - Ci; }
        } else if (aj < 0) { aj = 0; ai = sum; }
        if (sum > Cj) {
            if (aj > Cj) { aj = Cj; ai = sum - Cj; }
        } else if (ai < 0) { ai = 0; aj = sum; }
    }
}

void Solver::step_pair(int64_t i, int64_t j) {
    const double* Q_i = Q_->get_Q(i, active_size_);
    const double* Q_j = Q_->get_Q(j, active_size_);
    const double old_ai = alpha_[i], old_aj = alpha_[j];
    smo_pair_step(alpha_[i], alpha_[j], C_[i], C_[j], G_[i], G_[j], QD_[i], QD_[j], Q_i[j],
                  y_[i] == y_[j]);
    const double dai = alpha_[i] - old_ai, daj = alpha_[j] - old_aj;
    for (int64_t k = 0; k < active_size_; ++k) G_[k] += Q_i[k] * dai + Q_j[k] * daj;
    const bool ui = upper(i), uj = upper(j);
    update_G_bar(i, ui);
    update_G_bar(j, uj);
}

void Solver::step_single(int64_t i) {
    const double* Q_i = Q_->get_Q(i, active_size_);
    const double quad = QD_[i] > 0 ? QD_[i] : TAU;
    const double old = alpha_[i];
    alpha_[i] = std::clamp(old - G_[i] / quad, 0.0, C_[i]);
    const double d = alpha_[i] - old;
    for (int64_t k = 0; k < active_size_; ++k) G_[k] += Q_i[k] * d;
    update_G_bar(i, upper(i));
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
    Q.set_active_size(l);
    init_gradient(G0, G_bar0);

    SolveResult res;
    ProgressClock clock(opt.progress, opt.progress_interval);
    int64_t counter = std::min<int64_t>(l, 1000) + 1;
    int64_t iter = 0;
    double violation = INF;
    for (;;) {
        if (opt.max_iter >= 0 && iter >= opt.max_iter) break;
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
        if (j >= 0) step_pair(i, j);
        else step_single(i);
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

// ---------------------------------------------------------------------------------------
// BoxSolver

double BoxSolver::projected(int64_t t) const {
    if (lower(t)) return std::min(G_[t], 0.0);
    if (upper(t)) return std::max(G_[t], 0.0);
    return G_[t];
}

bool BoxSolver::select_working_set(int64_t& out_i, int64_t& out_j, double& violation) {
    // gains and the gap in one vector sweep (sweeps.hpp), then the scalar selection replayed
    // only on the blocks that can change it: those holding a gain above the smallest of the
    // top 8 (when 8 are held; TopK::add drops the others, and the best exceeds that smallest)
    gain_.resize(static_cast<size_t>(active_size_));
    const double worst = box_gains(G_.data(), status_.data(), QD_, TAU, active_size_, gain_.data());
    constexpr int64_t kBlock = 16;
    double best = -INF;
    int64_t idx = -1;
    TopK<8> next;  // the next steps' likely variables, whose rows a problem may compute at once
    for (int64_t a = 0; a < active_size_; a += kBlock) {
        const int64_t e = std::min(a + kBlock, active_size_);
        const double floor = next.n == 8 ? next.val[7] : -INF;
        bool replay = false;
        for (int64_t t = a; t < e; ++t) replay |= !(gain_[t] <= floor);  // a NaN replays
        if (!replay) continue;
        for (int64_t t = a; t < e; ++t) {
            const double gain = gain_[t];
            if (gain == -INF) continue;  // a zero projected gradient: no step
            next.add(gain, t);
            if (gain > best) { best = gain; idx = t; }
        }
    }
    violation = worst;
    if (idx < 0 || worst < eps_) return false;
    if (next.idx[0] == idx) Q_->prefetch(next.idx, next.n, active_size_);
    out_i = idx;
    out_j = -1;
    return true;
}

void BoxSolver::do_shrinking() {
    double gap = 0.0;
    for (int64_t t = 0; t < active_size_; ++t) gap = std::max(gap, std::fabs(projected(t)));
    unshrink_once_near(gap);
    // a variable at a bound whose gradient pushes it outward by more than the largest
    // violation is unlikely to move again (LIBLINEAR's rule, with the current gap as bound)
    shrink_where([&](int64_t t) {
        return (lower(t) && G_[t] > gap) || (upper(t) && -G_[t] > gap);
    });
}

}  // namespace unl
