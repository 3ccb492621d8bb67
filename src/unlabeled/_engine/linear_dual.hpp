// The linear dual solver, written once for every linear-kernel problem (LIBLINEAR's dual
// coordinate descent, Hsieh et al., ICML 2008, as in its solve_l2r_l1l2_svc):
//
//     min_alpha  1/2 sum_k mu_k ||w_k||^2 + sum_t c_t(alpha_t),   w_k = w0_k + sum_t s_tk alpha_t x_row(t),
//                0 <= alpha_t <= C_t        [ and, in solve_pairs, y' alpha = const ]
//
// with a convex piecewise-linear cost of at most one kink: c_t(a) = p_t a on [0, kink_t] and
// slope p_t + jump_t (jump_t >= 0) on [kink_t, C_t] (no kink: the usual linear term p_t a).
// The kink makes a double hinge one variable instead of two (PU learning: slopes -1 and +1,
// kink at C/2), halving the coordinates a sweep visits. A coordinate step minimises the
// piecewise quadratic exactly; a pair step stays inside the segments it starts on (it stops
// at a kink, where the other slope takes over on the next step).
//
// with m weight vectors w_k (m = 1 for an ordinary linear SVM, s_t1 its signs; m > 1 for the
// label-mixed duals of WellSVM, one w per label vector, s_tk = y_kt). The w_k are kept, so a
// gradient G_t = sum_k mu_k s_tk <w_k, x_row(t)> + p_t costs O(m nnz(x_row(t))). Variables that
// share a row are adjacent (a "group"): with m = 1 one dot product serves the whole group.
// Two modes:
//   * solve_box: coordinate descent, groups in random order by blocks of consecutive rows
//     (rows read in memory order), LIBLINEAR's shrinking by the last epoch's largest projected
//     gradient, a final full check; a uniform shift of the linear term (p_t - shift y_t) turns
//     an equality constraint into a fixed multiplier, as an offset search needs;
//   * solve_pairs: the equality constraint kept, by pair steps chosen from sweeps over the
//     active set (k-th most violating "up" with k-th most violating "low", each step with fresh
//     gradients), LIBSVM's second-order selection on small active sets, shrinking.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "common.hpp"
#include "kernels.hpp"
#include "solver.hpp"

namespace unl {

struct LinearDualProblem {
    const Data* X = nullptr;
    std::vector<int32_t> row;    // row of X of each variable; variables of one row adjacent
    std::vector<int8_t> sign;    // s_tk, l x m row-major (+1 / -1)
    std::vector<double> mu;      // the m weights (empty: m = 1, mu = 1)
    std::vector<int8_t> y;       // the equality constraint's signs (and the shift's direction)
    std::vector<double> p, C;
    std::vector<double> w0;      // fixed parts of the w_k (m x X->d row-major), or empty for 0
    std::vector<double> kink, jump;  // per variable, or both empty: no kinks
};

struct LinearDualOptions {
    double tol = 1e-3;           // on the largest projected gradient (box) / pair gap (pairs)
    bool shrinking = true;
    int64_t max_iter = -1;       // coordinate updates or pair steps; < 0: unlimited
    int max_epochs = 1000;       // solve_box only
    uint64_t seed = 0;
    ProgressFn progress;
};

struct LinearDualResult {
    int64_t iter = 0;
    bool converged = false, stopped = false;
    double violation = 0.0;
};

class LinearDual {
public:
    // alpha: a start in the box (modified in place by the solves); w is computed from it
    LinearDual(const LinearDualProblem& pb, std::vector<double>& alpha, const LinearDualOptions& opt);

    // shrink_at: the first epoch already sets aside the variables at a bound whose gradient
    // points outward by more than this. After a solve to tol at a shift differing by d, tol + |d|
    // sets aside only variables that the shift alone cannot make violating; the final full
    // check covers what the solve's own moves change.
    LinearDualResult solve_box(double shift, double tol, double shrink_at = INF);
    LinearDualResult solve_pairs(double tol);

    const std::vector<double>& w() const;  // m x d row-major
    // sum_k mu_k s_tk <w_k, x_row(t)>: the gradient of the quadratic term in alpha_t
    double wx(int64_t t) const {
        if (m_ > 1) return mixed_wx(t);
        return mu_[0] * pb_.sign[t] * X_.dot_w(pb_.row[t], w_.data());
    }
    void recompute_w();  // drops the rounding drift of many updates
    int64_t updates() const { return updates_; }
    bool stopped() const { return stopped_; }

private:
    const LinearDualProblem& pb_;
    const Data& X_;
    std::vector<double>& a_;
    const LinearDualOptions& opt_;
    int64_t m_;
    std::vector<double> mu_;
    mutable std::vector<double> w_;       // m = 1: w itself; m > 1: w() writes it from Z_
    std::vector<double> xx_, sq_;         // ||x_row(t)||^2 and Q_tt = sum_k mu_k ||x_row(t)||^2
    // m > 1, the label-mixed duals: with maj_t the majority of the signs s_tk and D_t the labels
    // where s_tk = -maj_t, w_k = V - 2 E_k for V = sum_t maj_t a_t x_t and E_k the same sum over
    // the variables with k in D_t. Then
    //   sum_k mu_k s_tk <w_k, x> = maj_t [(sum mu - 2 mu(D_t)) <V, x> - 2 <Ebar, x>
    //                                     + 4 sum_{k in D_t} mu_k <E_k, x>],   Ebar = sum_k mu_k E_k,
    // and a move of a_t updates V, Ebar and the E_k of D_t: O(2 + |D_t|) per gradient and per
    // move instead of O(m). When WellSVM's label vectors mostly agree (they differ from one
    // another on a few points each) |D_t| is small on average however many there are.
    std::vector<double> Z_;               // d x (m + 2) row-major: V, Ebar, E_1 .. E_m
    std::vector<int8_t> maj_;
    std::vector<int64_t> dis_start_;      // D_t = dis_[dis_start_[t] .. dis_start_[t + 1])
    std::vector<int32_t> dis_;
    std::vector<double> dis_mu_;          // mu(D_t) = sum_{k in D_t} mu_k
    double mu_sum_ = 0.0;
    void mixed_setup();
    double mixed_wx(int64_t t) const;
    void mixed_add(int64_t t, double delta);  // a_t += delta in V, Ebar and the E_k of D_t
    double Q(int64_t i, int64_t j) const;  // the quadratic term's Q_ij
    std::vector<int64_t> group_;          // first variable of each group, plus the end
    std::vector<int64_t> blocks_;         // box_epoch's buffers, kept across epochs
    std::vector<uint8_t> kept_;
    std::vector<double> lin_, inv_q_;     // p - shift y (this box solve), 1 / Q_tt
    std::vector<double> kink_, jump_;     // kink_t = C_t and jump_t = 0 without a kink
    std::mt19937_64 rng_;
    ProgressClock clock_;
    int64_t updates_ = 0;
    bool stopped_ = false;

    void move(int64_t t, double next);
    bool capped() const { return opt_.max_iter >= 0 && updates_ >= opt_.max_iter; }
    double box_epoch(std::vector<int64_t>& active, double shrink_at);
    bool pair(int64_t i, int64_t j, double Gi, double Gj);
    int64_t pair_round(const std::vector<int64_t>& set, std::vector<double>& G, double Umax,
                       double Lmin, double tol, std::vector<int64_t>& ups, std::vector<int64_t>& lows);
    void wss2(const std::vector<int64_t>& set, std::vector<double>& G, double tol);
    // G is the gradient on the first segment (quadratic part + p_t); the slope to the right
    // (moving up) and to the left (moving down) of alpha_t add jump_t past the kink
    double right(int64_t t, double G) const { return a_[t] >= kink_[t] ? G + jump_[t] : G; }
    double left(int64_t t, double G) const { return a_[t] > kink_[t] ? G + jump_[t] : G; }
    double up_val(int64_t t, double G) const;
    double low_val(int64_t t, double G) const;
    double coordinate_min(int64_t t, double Gl, double Gr) const;
    struct Segment { double lo, hi, G; };  // where alpha_t moves linearly, and the slope there
    Segment segment(int64_t t, double G, bool up) const;
};

}  // namespace unl
