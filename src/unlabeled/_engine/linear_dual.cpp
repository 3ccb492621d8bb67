#include "linear_dual.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace unl {

namespace {
// rows visited in random order by blocks of this many consecutive groups: random enough for
// the descent, and rows are read in memory order (at 1M points an epoch ran several times
// faster than with a full shuffle, a cache miss per row)
constexpr int64_t kBlock = 64;
// active sets up to this size are finished with second-order selection
constexpr int64_t kSmallActive = 512;
// pairs per round at most: past the first few hundred, the k-th pairs of a sweep's ranking
// rarely still violate once the earlier steps have moved w (at 1M points, rounds of ~100k
// candidate pairs took 0.1 s for a few dozen steps)
constexpr size_t kMaxBatch = 1024;
}  // namespace

LinearDual::LinearDual(const LinearDualProblem& pb, std::vector<double>& alpha, const LinearDualOptions& opt)
    : pb_(pb), X_(*pb.X), a_(alpha), opt_(opt), rng_(opt.seed), clock_(opt_.progress, 0.2) {
    const int64_t l = static_cast<int64_t>(pb.row.size());
    mu_ = pb.mu.empty() ? std::vector<double>{1.0} : pb.mu;
    m_ = static_cast<int64_t>(mu_.size());
    double mu_sum = 0.0;
    for (double v : mu_) mu_sum += v;
    xx_.resize(static_cast<size_t>(l));
    sq_.resize(static_cast<size_t>(l));
    for (int64_t t = 0; t < l; ++t) {
        const bool same = t > 0 && pb.row[t] == pb.row[t - 1];
        if (!same) group_.push_back(t);
        xx_[t] = same ? xx_[t - 1] : X_.self_dot(pb.row[t]);
        sq_[t] = mu_sum * xx_[t];
    }
    inv_q_.resize(static_cast<size_t>(l));
    for (int64_t t = 0; t < l; ++t) inv_q_[t] = 1.0 / (sq_[t] > 0 ? sq_[t] : TAU);
    group_.push_back(l);
    mu_sum_ = mu_sum;
    if (m_ > 1) mixed_setup();
    if (pb.kink.empty()) {
        kink_ = pb.C;
        jump_.assign(static_cast<size_t>(l), 0.0);
    } else {
        kink_ = pb.kink;
        jump_ = pb.jump;
    }
    recompute_w();
}

void LinearDual::mixed_setup() {
    const int64_t l = static_cast<int64_t>(pb_.row.size());
    maj_.resize(static_cast<size_t>(l));
    dis_start_.assign(1, 0);
    dis_mu_.assign(static_cast<size_t>(l), 0.0);
    for (int64_t t = 0; t < l; ++t) {
        const int8_t* s = pb_.sign.data() + t * m_;
        int64_t plus = 0;
        for (int64_t k = 0; k < m_; ++k) plus += s[k] > 0;
        maj_[t] = 2 * plus >= m_ ? 1 : -1;
        for (int64_t k = 0; k < m_; ++k)
            if (s[k] != maj_[t]) {
                dis_.push_back(static_cast<int32_t>(k));
                dis_mu_[t] += mu_[k];
            }
        dis_start_.push_back(static_cast<int64_t>(dis_.size()));
    }
}

double LinearDual::mixed_wx(int64_t t) const {
    const int64_t s = m_ + 2;
    const int32_t* D = dis_.data() + dis_start_[t];
    const int64_t nd = dis_start_[t + 1] - dis_start_[t];
    double v = 0.0, eb = 0.0, ed = 0.0;
    X_.for_each(pb_.row[t], [&](int64_t j, double x) {
        const double* z = Z_.data() + j * s;
        v += x * z[0];
        eb += x * z[1];
        double e = 0.0;
        for (int64_t i = 0; i < nd; ++i) e += mu_[D[i]] * z[2 + D[i]];
        ed += x * e;
    });
    return maj_[t] * ((mu_sum_ - 2 * dis_mu_[t]) * v - 2 * eb + 4 * ed);
}

void LinearDual::mixed_add(int64_t t, double delta) {
    const int64_t s = m_ + 2;
    const int32_t* D = dis_.data() + dis_start_[t];
    const int64_t nd = dis_start_[t + 1] - dis_start_[t];
    const double c = maj_[t] * delta, cb = c * dis_mu_[t];
    X_.for_each(pb_.row[t], [&](int64_t j, double x) {
        double* z = Z_.data() + j * s;
        z[0] += c * x;
        z[1] += cb * x;
        for (int64_t i = 0; i < nd; ++i) z[2 + D[i]] += c * x;
    });
}

void LinearDual::recompute_w() {
    const int64_t d = X_.d;
    if (m_ == 1) {
        w_ = pb_.w0;
        w_.resize(static_cast<size_t>(d), 0.0);
        for (size_t t = 0; t < a_.size(); ++t) X_.axpy(pb_.row[t], pb_.sign[t] * a_[t], w_.data());
        return;
    }
    const int64_t s = m_ + 2;
    Z_.assign(static_cast<size_t>(d * s), 0.0);
    if (!pb_.w0.empty())  // w0_k = -2 E_k at alpha = 0
        for (int64_t k = 0; k < m_; ++k)
            for (int64_t j = 0; j < d; ++j) Z_[j * s + 2 + k] = -0.5 * pb_.w0[k * d + j];
    for (int64_t t = 0; t < static_cast<int64_t>(a_.size()); ++t)
        if (a_[t] != 0.0) mixed_add(t, a_[t]);
    for (int64_t j = 0; j < d; ++j) {  // Ebar afresh, not through the adds
        double* z = Z_.data() + j * s;
        z[1] = 0.0;
        for (int64_t k = 0; k < m_; ++k) z[1] += mu_[k] * z[2 + k];
    }
}

const std::vector<double>& LinearDual::w() const {
    if (m_ > 1) {
        const int64_t d = X_.d, s = m_ + 2;
        w_.resize(static_cast<size_t>(m_ * d));
        for (int64_t j = 0; j < d; ++j)
            for (int64_t k = 0; k < m_; ++k) w_[k * d + j] = Z_[j * s] - 2 * Z_[j * s + 2 + k];
    }
    return w_;
}

void LinearDual::move(int64_t t, double next) {
    const double d = next - a_[t];
    a_[t] = next;
    if (m_ > 1) mixed_add(t, d);
    else X_.axpy(pb_.row[t], pb_.sign[t] * d, w_.data());
    ++updates_;
}

double LinearDual::Q(int64_t i, int64_t j) const {
    const int32_t ri = pb_.row[i], rj = pb_.row[j];
    const double x = ri == rj ? xx_[i] : X_.dot(ri, rj);
    double c = 0.0;
    for (int64_t k = 0; k < m_; ++k) c += mu_[k] * pb_.sign[i * m_ + k] * pb_.sign[j * m_ + k];
    return c * x;
}

// One epoch of coordinate descent over the active groups; keeps in `active` (in order) the
// groups with a variable that is not at a bound by more than shrink_at. Returns the largest
// projected gradient seen.
double LinearDual::box_epoch(std::vector<int64_t>& active, double shrink_at) {
    const int64_t m = static_cast<int64_t>(active.size());
    std::vector<int64_t>& blocks = blocks_;
    blocks.resize(static_cast<size_t>((m + kBlock - 1) / kBlock));
    std::iota(blocks.begin(), blocks.end(), 0);
    std::shuffle(blocks.begin(), blocks.end(), rng_);
    std::vector<uint8_t>& kept = kept_;
    kept.assign(static_cast<size_t>(m), 0);
    double worst = 0.0;
    for (int64_t b : blocks) {
        for (int64_t k = b * kBlock; k < std::min(m, (b + 1) * kBlock); ++k) {
            const int64_t g = active[k], lo = group_[g], hi = group_[g + 1];
            // m = 1: one dot product for the group, kept exact through its updates
            double dot = m_ == 1 ? X_.dot_w(pb_.row[lo], w_.data()) : 0.0;
            uint8_t keep_group = 0;
            for (int64_t t = lo; t < hi; ++t) {
                const double G = (m_ == 1 ? mu_[0] * pb_.sign[t] * dot : wx(t)) + lin_[t];
                const double a = a_[t], Gl = left(t, G), Gr = right(t, G);
                // the steepest descent over the feasible directions: none descends (v <= 0)
                // means optimal; shrinkable when every one ascends by more than shrink_at
                // (the last epoch's largest violation)
                const double v = std::max(a > 0 ? Gl : -INF, a < pb_.C[t] ? -Gr : -INF);
                if (v <= 0) { keep_group |= v >= -shrink_at; continue; }
                keep_group = 1;
                worst = std::max(worst, v);
                const double next = coordinate_min(t, Gl, Gr);
                if (next == a) continue;
                dot += (next - a) * pb_.sign[t] * xx_[t];
                move(t, next);
                if (capped()) return worst;
            }
            kept[k] = keep_group;
        }
    }
    size_t keep = 0;
    for (int64_t k = 0; k < m; ++k)
        if (kept[k]) active[keep++] = active[k];
    active.resize(keep);
    return worst;
}

// The exact minimiser of the piecewise quadratic in alpha_t alone (Gl, Gr: its slopes to the
// left and right of alpha_t; past the kink the slope changes by jump_t)
double LinearDual::coordinate_min(int64_t t, double Gl, double Gr) const {
    const double a = a_[t], k = kink_[t], iq = inv_q_[t];
    if (Gr < 0) {
        double next = a - Gr * iq;
        if (a < k && next > k) {
            const double Gk = Gr + sq_[t] * (k - a) + jump_[t];  // the slope right of the kink
            next = Gk < 0 ? k - Gk * iq : k;
        }
        return std::min(next, pb_.C[t]);
    }
    if (Gl > 0) {
        double next = a - Gl * iq;
        if (a > k && next < k) {
            const double Gk = Gl - sq_[t] * (a - k) - jump_[t];  // the slope left of the kink
            next = Gk > 0 ? k - Gk * iq : k;
        }
        return std::max(next, 0.0);
    }
    return a;
}

LinearDualResult LinearDual::solve_box(double shift, double tol, double shrink_at) {
    const int64_t n_groups = static_cast<int64_t>(group_.size()) - 1;
    lin_.resize(a_.size());
    for (size_t t = 0; t < a_.size(); ++t) lin_[t] = pb_.p[t] - shift * pb_.y[t];
    std::vector<int64_t> active(static_cast<size_t>(n_groups));
    std::iota(active.begin(), active.end(), 0);
    LinearDualResult r;
    const int64_t start = updates_;
    // The active set must reach `inner` before a full check, and each full check that fails
    // halves it (down to tol / 8): near-collinear free variables (duplicate rows) make the
    // descent's tail slow, and checking every row each time the few of them touched tol cost
    // more than the tail (at 100k points: 0.21 s against 0.17 s a fit)
    double inner = tol;
    bool checking = false;
    for (int epoch = 0; epoch < opt_.max_epochs; ++epoch) {
        const bool full = static_cast<int64_t>(active.size()) == n_groups;
        const double worst = box_epoch(active, opt_.shrinking ? shrink_at : INF);
        r.violation = worst;
        if (capped()) break;
        if (clock_.poll(updates_, worst)) { stopped_ = r.stopped = true; break; }
        if (full && worst <= tol) { r.converged = true; break; }
        if (checking) inner = std::max(inner / 2, tol / 8);
        checking = worst <= inner;
        if (checking) {
            // unshrink for a full check, which already sets aside again the groups at a bound
            // by more than tol: one pass over all rows per check, not two
            active.resize(static_cast<size_t>(n_groups));
            std::iota(active.begin(), active.end(), 0);
            shrink_at = tol;
        } else {
            shrink_at = worst;
        }
    }
    r.iter = updates_ - start;
    return r;
}

// LIBSVM's sets: "up" variables can move so that -y G rises the objective's decrease...
// I_up = {y = +1, a < C} + {y = -1, a > 0}, I_low = {y = +1, a > 0} + {y = -1, a < C}; a pair
// (i in I_up, j in I_low) improves the objective iff -y_i G_i > -y_j G_j.
// With a kink, the slope is the one in the direction of the move.
double LinearDual::up_val(int64_t t, double G) const {
    if (pb_.y[t] > 0) return a_[t] < pb_.C[t] ? -right(t, G) : -INF;
    return a_[t] > 0 ? left(t, G) : -INF;
}
double LinearDual::low_val(int64_t t, double G) const {
    if (pb_.y[t] > 0) return a_[t] > 0 ? -left(t, G) : INF;
    return a_[t] < pb_.C[t] ? right(t, G) : INF;
}

LinearDual::Segment LinearDual::segment(int64_t t, double G, bool up) const {
    const double k = kink_[t];
    if (up ? a_[t] >= k : a_[t] > k) return {k, pb_.C[t], G + jump_[t]};
    return {0.0, k, G};
}

// i raises y_i alpha_i, j lowers y_j alpha_j; each moves on its current segment of the cost
// (shifted to [0, hi - lo] for the box step), where the cost is linear
bool LinearDual::pair(int64_t i, int64_t j, double Gi, double Gj) {
    const Segment si = segment(i, Gi, pb_.y[i] > 0), sj = segment(j, Gj, pb_.y[j] < 0);
    const double ci = si.hi - si.lo, cj = sj.hi - sj.lo, ai0 = a_[i] - si.lo, aj0 = a_[j] - sj.lo;
    double ai = ai0, aj = aj0;
    smo_pair_step(ai, aj, ci, cj, si.G, sj.G, sq_[i], sq_[j], Q(i, j), pb_.y[i] == pb_.y[j]);
    if (ai == ai0 && aj == aj0) return false;
    // the segments' ends exactly (lo + (hi - lo) need not round to hi)
    move(i, ai <= 0 ? si.lo : ai >= ci ? si.hi : si.lo + ai);
    move(j, aj <= 0 ? sj.lo : aj >= cj ? sj.hi : sj.lo + aj);
    --updates_;  // one pair step
    return true;
}

// Pairs the k-th most violating "up" variable of `set` with its k-th most violating "low"
// variable (G current on `set`), each step with fresh gradients; returns the steps taken.
int64_t LinearDual::pair_round(const std::vector<int64_t>& set, std::vector<double>& G, double Umax,
                               double Lmin, double tol, std::vector<int64_t>& ups,
                               std::vector<int64_t>& lows) {
    ups.clear();
    lows.clear();
    for (int64_t t : set) {
        if (up_val(t, G[t]) - Lmin > tol) ups.push_back(t);
        if (Umax - low_val(t, G[t]) > tol) lows.push_back(t);
    }
    const size_t m = std::min({ups.size(), lows.size(), kMaxBatch});
    auto by_up = [&](int64_t a, int64_t b) { return up_val(a, G[a]) > up_val(b, G[b]); };
    auto by_low = [&](int64_t a, int64_t b) { return low_val(a, G[a]) < low_val(b, G[b]); };
    std::partial_sort(ups.begin(), ups.begin() + static_cast<std::ptrdiff_t>(m), ups.end(), by_up);
    std::partial_sort(lows.begin(), lows.begin() + static_cast<std::ptrdiff_t>(m), lows.end(), by_low);
    ups.resize(m);
    lows.resize(m);
    int64_t steps = 0;
    for (size_t k = 0; k < m; ++k) {
        const int64_t i = ups[k], j = lows[k];
        if (i == j) continue;
        const double Gi = wx(i) + pb_.p[i], Gj = wx(j) + pb_.p[j];
        if (up_val(i, Gi) - low_val(j, Gj) <= 0 || !pair(i, j, Gi, Gj)) continue;
        ++steps;
        if (capped()) break;
        if (clock_.poll(updates_, Umax - Lmin)) { stopped_ = true; break; }
    }
    return steps;
}

// A small active set is solved to tolerance with LIBSVM's second-order selection, G
// recomputed on the set each step: near the optimum the few free variables of a linear model
// are nearly collinear, and batched first-order pairs would zigzag between them.
void LinearDual::wss2(const std::vector<int64_t>& set, std::vector<double>& G, double tol) {
    const int64_t cap = 1000 * static_cast<int64_t>(set.size()) + 1000;
    for (int64_t it = 0; it < cap; ++it) {
        int64_t i = -1;
        double Gmax = -INF, Lmin = INF;
        for (int64_t t : set) {
            G[t] = wx(t) + pb_.p[t];
            const double uv = up_val(t, G[t]);
            if (uv > Gmax) { Gmax = uv; i = t; }
            Lmin = std::min(Lmin, low_val(t, G[t]));
        }
        if (i < 0 || Gmax - Lmin <= tol) return;
        int64_t j = -1;
        double best = -INF;
        for (int64_t t : set) {
            const double gd = Gmax - low_val(t, G[t]);
            if (t == i || gd <= 0) continue;
            const double eta = sq_[i] + sq_[t] - 2 * pb_.y[i] * pb_.y[t] * Q(i, t);
            const double gain = gd * gd / (eta > 0 ? eta : TAU);
            if (gain > best) { best = gain; j = t; }
        }
        if (j < 0 || !pair(i, j, G[i], G[j])) return;
        if (capped()) return;
        if (clock_.poll(updates_, Gmax - Lmin)) { stopped_ = true; return; }
    }
}

LinearDualResult LinearDual::solve_pairs(double tol) {
    const int64_t l = static_cast<int64_t>(a_.size());
    std::vector<int64_t> active(static_cast<size_t>(l)), ups, lows, cand;
    std::iota(active.begin(), active.end(), 0);
    std::vector<double> G(static_cast<size_t>(l), 0.0);
    std::vector<uint8_t> mark(static_cast<size_t>(l), 0);
    LinearDualResult r;
    const int64_t start = updates_;
    r.violation = INF;
    while (!stopped_ && !capped()) {
        double Umax = -INF, Lmin = INF;
        int32_t last_row = -1;
        double dot = 0.0;
        for (int64_t t : active) {
            if (m_ == 1) {  // variables of one row are adjacent: one dot product serves them
                if (pb_.row[t] != last_row) {
                    last_row = pb_.row[t];
                    dot = X_.dot_w(last_row, w_.data());
                }
                G[t] = mu_[0] * pb_.sign[t] * dot + pb_.p[t];
            } else {
                G[t] = wx(t) + pb_.p[t];
            }
            Umax = std::max(Umax, up_val(t, G[t]));
            Lmin = std::min(Lmin, low_val(t, G[t]));
        }
        r.violation = std::max(0.0, Umax - Lmin);
        if (Umax - Lmin <= tol) {
            if (static_cast<int64_t>(active.size()) == l) { r.converged = true; break; }
            active.resize(static_cast<size_t>(l));  // unshrink and check everything
            std::iota(active.begin(), active.end(), 0);
            continue;
        }
        if (opt_.shrinking) {
            size_t keep = 0;
            for (int64_t t : active)
                if (!(up_val(t, G[t]) <= Lmin && low_val(t, G[t]) >= Umax)) active[keep++] = t;
            active.resize(keep);
        }
        const int64_t before = updates_;
        if (static_cast<int64_t>(active.size()) <= kSmallActive) {
            wss2(active, G, tol);
            if (updates_ == before) break;  // stalled: no pair can move (not converged)
            continue;
        }
        pair_round(active, G, Umax, Lmin, tol, ups, lows);
        if (stopped_) break;
        if (updates_ == before) {
            wss2(active, G, tol);  // the batch moved nothing: fall back to the best single pair
            if (updates_ == before) break;
            continue;
        }
        // further rounds on this sweep's candidates alone while they are few: their G cost
        // O(nnz) each, so this converges the "working set" without touching every variable
        cand.clear();
        for (size_t k = 0; k < std::min(ups.size(), lows.size()); ++k)
            for (int64_t t : {ups[k], lows[k]})
                if (!mark[t]) { mark[t] = 1; cand.push_back(t); }
        for (int64_t t : cand) mark[t] = 0;
        if (cand.size() * 4 > active.size()) continue;
        for (int round = 0; round < 50 && !stopped_ && !capped(); ++round) {
            double cu = -INF, cl = INF;
            for (int64_t t : cand) {
                G[t] = wx(t) + pb_.p[t];
                cu = std::max(cu, up_val(t, G[t]));
                cl = std::min(cl, low_val(t, G[t]));
            }
            if (cu - cl <= tol || pair_round(cand, G, cu, cl, tol, ups, lows) == 0) break;
        }
    }
    r.stopped = stopped_;
    r.iter = updates_ - start;
    return r;
}

}  // namespace unl
