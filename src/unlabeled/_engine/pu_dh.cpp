#include "pu_dh.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>

#include "linear_dual.hpp"
#include "qmatrix.hpp"

namespace unl {

namespace {


inline double vee(double s, double c2) { return std::max(-s, s - c2); }

// ---------------------------------------------------------------------------------------
// Quantities shared by all solvers

// h_u = sum_p k(x_p, x_u)
std::vector<double> positive_sums(const PUProblem& pb, Kernel& K) {
    const int64_t n = static_cast<int64_t>(pb.unl.size());
    std::vector<double> h(static_cast<size_t>(n), 0.0);
    if (K.is_linear()) {
        std::vector<double> wp(static_cast<size_t>(pb.X->d), 0.0);
        for (int32_t p : pb.pos) pb.X->axpy(p, 1.0, wp.data());
        for (int64_t u = 0; u < n; ++u) h[u] = pb.X->dot_w(pb.unl[u], wp.data());
        return h;
    }
    std::vector<double> row(static_cast<size_t>(n));
    for (int32_t p : pb.pos) {
        K.row(p, pb.unl.data(), n, row.data());
        for (int64_t u = 0; u < n; ++u) h[u] += row[u];
    }
    return h;
}

// A feasible start: the points most similar to the positives (largest h) take sigma = c2
// until the equality constraint is met; they are the likeliest to end at sigma = c2.
std::vector<double> default_start(const std::vector<double>& h, double total, double c2) {
    const int64_t n = static_cast<int64_t>(h.size());
    std::vector<int64_t> order(static_cast<size_t>(n));
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return h[a] > h[b]; });
    std::vector<double> sigma(static_cast<size_t>(n), 0.0);
    double left = total;
    for (int64_t k = 0; k < n && left > 0; ++k) {
        double v = std::min(c2, left);
        sigma[order[k]] = v;
        left -= v;
    }
    return sigma;
}

// g at the labeled positives, from the solution itself
std::vector<double> positive_g(const PUProblem& pb, Kernel& K, const std::vector<double>& sigma,
                               const std::vector<double>& w) {
    const int64_t p = static_cast<int64_t>(pb.pos.size()), n = static_cast<int64_t>(pb.unl.size());
    std::vector<double> gp(static_cast<size_t>(p), 0.0);
    if (K.is_linear()) {
        for (int64_t k = 0; k < p; ++k) gp[k] = pb.X->dot_w(pb.pos[k], w.data());
        return gp;
    }
    std::vector<int32_t> cols(pb.pos);
    cols.insert(cols.end(), pb.unl.begin(), pb.unl.end());
    std::vector<double> row(cols.size());
    for (int64_t k = 0; k < p; ++k) {
        K.row(pb.pos[k], cols.data(), static_cast<int64_t>(cols.size()), row.data());
        double s = 0.0;
        for (int64_t q = 0; q < p; ++q) s += row[q];
        double t = 0.0;
        for (int64_t u = 0; u < n; ++u)
            if (sigma[u] != 0.0) t += sigma[u] * row[p + u];
        gp[k] = pb.c1 * s - t;
    }
    return gp;
}

// w = c1 sum_P x_p - sum_U sigma_u x_u
std::vector<double> primal_w(const PUProblem& pb, const std::vector<double>& sigma) {
    std::vector<double> w(static_cast<size_t>(pb.X->d), 0.0);
    for (int32_t p : pb.pos) pb.X->axpy(p, pb.c1, w.data());
    for (size_t u = 0; u < pb.unl.size(); ++u) pb.X->axpy(pb.unl[u], -sigma[u], w.data());
    return w;
}

// ---------------------------------------------------------------------------------------
// SMO: the generic solver on a_u, b_u (variables t < n are a_t, t >= n are b_{t-n}), which
// share the kernel row of point u

void solve_smo(const PUProblem& pb, const PUOptions& opt, Kernel& K, const std::vector<double>& h,
               PUResult& res) {
    const int64_t n = static_cast<int64_t>(pb.unl.size());
    const double half = pb.c2 / 2;
    std::vector<double> p(2 * n), C(2 * n, half), alpha(2 * n), G(2 * n);
    std::vector<int8_t> y(2 * n, 1);
    for (int64_t u = 0; u < n; ++u) {
        p[u] = -pb.c1 * h[u] - 1.0;
        p[n + u] = -pb.c1 * h[u] + 1.0;
        alpha[u] = std::min(res.sigma[u], half);
        alpha[n + u] = res.sigma[u] - alpha[u];
    }
    // Starting gradient in point space: a_u and b_u share the kernel row of u, so one pass over
    // the support gives both G = Q alpha + p and G_bar, at half the cost of the generic
    // row-by-row start and in parallel over the columns. The caller may have computed both
    // products already (as blocked matrix products, much faster for many features).
    std::vector<double> Ks(n, 0.0), Kbar(n, 0.0);
    if (opt.start_products) {
        for (int64_t u = 0; u < n; ++u) {
            Ks[u] = opt.start_products[2 * u];
            Kbar[u] = opt.start_products[2 * u + 1];
        }
    } else {
        const std::vector<double> upper = pu_upper_weights(res.sigma, pb.c2);
        std::vector<double> row(n);
        for (int64_t u = 0; u < n; ++u) {
            if (res.sigma[u] <= 0) continue;
            K.row(pb.unl[u], pb.unl.data(), n, row.data());
            const double a = res.sigma[u], b = upper[u];
            for (int64_t v = 0; v < n; ++v) {
                Ks[v] += a * row[v];
                Kbar[v] += b * row[v];
            }
        }
    }
    std::vector<double> G0(2 * n), Gbar0(2 * n);
    for (int64_t u = 0; u < n; ++u) {
        G0[u] = p[u] + Ks[u];
        G0[n + u] = p[n + u] + Ks[u];
        Gbar0[u] = Gbar0[n + u] = Kbar[u];
    }

    std::vector<int64_t> var_point(2 * n);
    for (int64_t t = 0; t < 2 * n; ++t) var_point[t] = t % n;
    // the same solve whatever the storage of the cached rows
    auto run = [&](auto storage) {
        PointRows<decltype(storage)> rows(K, pb.unl, opt.cache_bytes);
        PointQMatrix<decltype(storage)> Q(rows, var_point, y);
        SolverOptions so;
        so.eps = opt.tol;
        so.shrinking = opt.shrinking;
        so.max_iter = opt.max_iter;
        so.progress = opt.progress;
        Solver solver;
        std::vector<double> Gbar(2 * n);
        SolveResult r = solver.solve(2 * n, Q, p.data(), y.data(), C.data(), alpha.data(), G.data(), so,
                                     G0.data(), Gbar0.data(), Gbar.data());
        res.products.resize(2 * n);
        for (int64_t u = 0; u < n; ++u) {
            res.sigma[u] = alpha[u] + alpha[n + u];
            res.g_unl[u] = -G[u] - 1.0;
            res.products[2 * u] = G[u] - p[u];
            res.products[2 * u + 1] = Gbar[u];
        }
        res.h = h;
        res.iter = r.iter;
        res.converged = r.converged;
        res.stopped = r.stopped;
        res.violation = r.violation;
        res.cache_hits = rows.cache().hits();
        res.cache_misses = rows.cache().misses();
        res.cache_bytes = rows.cache().bytes_used();
        res.kernel_rows = rows.rows_computed();
    };
    if (opt.cache_float32)
        run(float{});
    else
        run(double{});
}

// ---------------------------------------------------------------------------------------
// Pair steps in sigma space, for USMO and the linear solver

class SigmaPairs {
public:
    SigmaPairs(std::vector<double>& sigma, double c2) : s_(sigma), c2_(c2), half_(c2 / 2) {}

    // Rate of change of the objective when sigma_u moves up (resp. down) is -(up_val) (resp.
    // -(low_val)); a pair (i up, j down) improves the objective iff up_val(i) > low_val(j).
    double up_val(int64_t u, double g) const {
        double s = s_[u];
        return s < half_ ? g + 1 : (s < c2_ ? g - 1 : -INF);
    }
    double low_val(int64_t u, double g) const {
        double s = s_[u];
        return s > half_ ? g - 1 : (s > 0 ? g + 1 : INF);
    }
    bool non_bound(int64_t u) const {
        double s = s_[u];
        return (s > 0 && s < half_) || (s > half_ && s < c2_);
    }

    // Exact minimiser of the objective along sigma_i + t, sigma_j - t: a convex piecewise
    // quadratic with curvature eta and kinks where either variable crosses c2/2. Returns t.
    double step(int64_t i, int64_t j, double gi, double gj, double eta) {
        if (eta <= 0) eta = TAU;
        const double si = s_[i], sj = s_[j];
        const double lo = std::max(-si, sj - c2_), hi = std::min(c2_ - si, sj);
        if (!(hi > lo)) return 0.0;
        double pts[4];
        int np = 0;
        pts[np++] = lo;
        double b1 = half_ - si, b2 = sj - half_;
        if (b1 > b2) std::swap(b1, b2);
        if (b1 > lo && b1 < hi) pts[np++] = b1;
        if (b2 > lo && b2 < hi && b2 != b1) pts[np++] = b2;
        pts[np++] = hi;
        // phi is convex: its minimiser lies in the first segment (left to right) whose own
        // minimiser falls before the segment's right end. Deciding by derivatives rather than by
        // comparing phi values keeps steps that are below the resolution of phi (a variable a
        // few ulps from its bound must still reach it).
        const double lin = gj - gi;
        double best_t = hi;
        for (int k = 0; k + 1 < np; ++k) {
            const double a = pts[k], b = pts[k + 1], m = 0.5 * (a + b);
            const double vi = si + m > half_ ? 1.0 : -1.0;
            const double vj = sj - m > half_ ? 1.0 : -1.0;
            const double t = std::clamp(-(lin + vi - vj) / eta, a, b);
            if (t < b) {
                best_t = t;
                break;
            }
        }
        if (best_t == 0.0) return 0.0;
        // land exactly on 0, c2/2 and c2 so that the states of the paper are exact, keeping
        // sigma_i + sigma_j unchanged unless both land on such a value (then it may drift by
        // 1e-12 c2 at most)
        const double a = si + sj;
        double ni = snap(si + best_t);
        const double nj = snap(a - ni);
        if (ni != 0.0 && ni != half_ && ni != c2_) ni = a - nj;
        s_[i] = std::clamp(ni, 0.0, c2_);
        s_[j] = std::clamp(nj, 0.0, c2_);
        return s_[i] - si;
    }

private:
    std::vector<double>& s_;
    double c2_, half_;
    double snap(double v) const {
        const double e = 1e-12 * c2_;
        if (std::fabs(v) <= e) return 0.0;
        if (std::fabs(v - half_) <= e) return half_;
        if (std::fabs(v - c2_) <= e) return c2_;
        return v;
    }
};

// Evaluates g_u = c1 h_u - sum_v sigma_v k(x_u, x_v) from scratch, through w for the
// linear kernel or over the current support for the others.
class FreshG {
public:
    FreshG(const PUProblem& pb, Kernel& K, const std::vector<double>& h, const std::vector<double>& sigma)
        : pb_(pb), K_(K), h_(h), sigma_(sigma), linear_(K.is_linear()) {
        if (linear_) w_ = primal_w(pb, sigma);
        pos_in_sv_.assign(sigma.size(), -1);
        for (size_t u = 0; u < sigma.size(); ++u) update_support(static_cast<int64_t>(u));
    }
    double operator()(int64_t u) {
        if (linear_) return pb_.X->dot_w(pb_.unl[u], w_.data());
        double s = 0.0;
        for (int64_t v : sv_) s += sigma_[v] * K_(pb_.unl[u], pb_.unl[v]);
        return pb_.c1 * h_[u] - s;
    }
    // after sigma_u changed by ds
    void moved(int64_t u, double ds) {
        if (linear_) pb_.X->axpy(pb_.unl[u], -ds, w_.data());
        update_support(u);
    }
    const std::vector<double>& w() const { return w_; }

private:
    const PUProblem& pb_;
    Kernel& K_;
    const std::vector<double>& h_;
    const std::vector<double>& sigma_;
    bool linear_;
    std::vector<double> w_;
    std::vector<int64_t> sv_, pos_in_sv_;

    void update_support(int64_t u) {
        if (linear_) return;
        const bool in = pos_in_sv_[u] >= 0, nz = sigma_[u] != 0.0;
        if (nz && !in) {
            pos_in_sv_[u] = static_cast<int64_t>(sv_.size());
            sv_.push_back(u);
        } else if (!nz && in) {
            int64_t k = pos_in_sv_[u], last = sv_.back();
            sv_[k] = last;
            pos_in_sv_[last] = k;
            sv_.pop_back();
            pos_in_sv_[u] = -1;
        }
    }
};

double eta_of(Kernel& K, int32_t a, int32_t b) { return K(a, a) + K(b, b) - 2 * K(a, b); }

// ---------------------------------------------------------------------------------------
// USMO, as published: optimise over the non-bound set (with its function cache) until it is
// tau-optimal, then scan every point against the most critical values; stop when a full
// scan changes nothing.

void solve_usmo(const PUProblem& pb, const PUOptions& opt, Kernel& K, const std::vector<double>& h,
                PUResult& res) {
    const int64_t n = static_cast<int64_t>(pb.unl.size());
    std::vector<double>& sigma = res.sigma;
    SigmaPairs pairs(sigma, pb.c2);
    FreshG fresh(pb, K, h, sigma);
    const double tau = opt.tol;

    // non-bound set with its function cache
    std::vector<int64_t> nb;
    std::vector<int32_t> nb_rows;  // rows of X, parallel to nb
    std::vector<int64_t> nb_pos(static_cast<size_t>(n), -1);
    std::vector<double> fcache(static_cast<size_t>(n), 0.0);
    auto nb_insert = [&](int64_t u, double g) {
        nb_pos[u] = static_cast<int64_t>(nb.size());
        nb.push_back(u);
        nb_rows.push_back(pb.unl[u]);
        fcache[u] = g;
    };
    auto nb_erase = [&](int64_t u) {
        int64_t k = nb_pos[u], last = static_cast<int64_t>(nb.size()) - 1;
        nb[k] = nb[last];
        nb_rows[k] = nb_rows[last];
        nb_pos[nb[k]] = k;
        nb.pop_back();
        nb_rows.pop_back();
        nb_pos[u] = -1;
    };
    for (int64_t u = 0; u < n; ++u)
        if (pairs.non_bound(u)) nb_insert(u, fresh(u));
    auto g_of = [&](int64_t u) { return nb_pos[u] >= 0 ? fcache[u] : fresh(u); };

    std::vector<int64_t> scan_order(static_cast<size_t>(n));
    std::iota(scan_order.begin(), scan_order.end(), 0);
    std::mt19937_64 rng(opt.seed);
    std::shuffle(scan_order.begin(), scan_order.end(), rng);

    std::vector<double> ki, kj;
    int64_t iter = 0, kernel_rows = 0;
    bool stopped = false;
    ProgressClock clock(opt.progress, 0.2);
    double last_violation = INF;

    // one pair step with current g values; keeps the function cache and the NB set exact
    auto take_step = [&](int64_t i, int64_t j, double gi, double gj) -> bool {
        const double old_i = sigma[i], old_j = sigma[j];
        const double t = pairs.step(i, j, gi, gj, eta_of(K, pb.unl[i], pb.unl[j]));
        if (t == 0.0) return false;
        const double di = sigma[i] - old_i, dj = sigma[j] - old_j;
        const int64_t m = static_cast<int64_t>(nb.size());
        ki.resize(static_cast<size_t>(m));
        kj.resize(static_cast<size_t>(m));
        K.row(pb.unl[i], nb_rows.data(), m, ki.data());
        K.row(pb.unl[j], nb_rows.data(), m, kj.data());
        kernel_rows += 2;
        for (int64_t k = 0; k < m; ++k) fcache[nb[k]] -= di * ki[k] + dj * kj[k];
        fresh.moved(i, di);
        fresh.moved(j, dj);
        for (int64_t u : {i, j}) {
            const bool was = nb_pos[u] >= 0, now = pairs.non_bound(u);
            if (was && !now) nb_erase(u);
            else if (!was && now) nb_insert(u, fresh(u));
        }
        ++iter;
        return true;
    };

    auto should_stop = [&]() {
        if (opt.max_iter >= 0 && iter >= opt.max_iter) return true;
        if (clock.due() && clock.report(iter, last_violation, NaN)) { stopped = true; return true; }
        return false;
    };

    bool converged = false;
    while (!converged && !stopped && !(opt.max_iter >= 0 && iter >= opt.max_iter)) {
        // phase 1: the non-bound set until it is tau-optimal
        while (!nb.empty()) {
            int64_t bi = -1, bj = -1;
            double bu = -INF, bl = INF;
            for (int64_t u : nb) {
                double uv = pairs.up_val(u, fcache[u]), lv = pairs.low_val(u, fcache[u]);
                if (uv > bu) { bu = uv; bi = u; }
                if (lv < bl) { bl = lv; bj = u; }
            }
            last_violation = bu - bl;
            if (bi < 0 || bj < 0 || bi == bj || bu - bl <= tau) { last_violation = std::max(0.0, bu - bl); break; }
            if (!take_step(bi, bj, fcache[bi], fcache[bj])) break;
            if (should_stop()) break;
        }
        if (stopped || (opt.max_iter >= 0 && iter >= opt.max_iter)) break;

        // phase 2: scan all points against the most critical values (NB and scanned points)
        int64_t changed = 0, stuck = 0;  // stuck: violating pairs that could not move
        int64_t cu = -1, cl = -1;  // indices of the critical up / low values
        double vu = -INF, vl = INF;
        auto refresh_critical = [&]() {
            cu = cl = -1;
            vu = -INF;
            vl = INF;
            for (int64_t u : nb) {
                double uv = pairs.up_val(u, fcache[u]), lv = pairs.low_val(u, fcache[u]);
                if (uv > vu) { vu = uv; cu = u; }
                if (lv < vl) { vl = lv; cl = u; }
            }
        };
        refresh_critical();
        double scan_max_viol = 0.0;
        for (int64_t u : scan_order) {
            if (clock.due() && clock.report(iter, last_violation, NaN)) { stopped = true; break; }
            double gu = g_of(u);
            res.g_unl[u] = gu;
            double uv = pairs.up_val(u, gu), lv = pairs.low_val(u, gu);
            int64_t partner = -1;
            if (cl >= 0 && cl != u && uv - vl > tau) partner = cl;
            else if (cu >= 0 && cu != u && vu - lv > tau) partner = cu;
            if (partner >= 0) {
                scan_max_viol = std::max(scan_max_viol, std::max(uv - vl, vu - lv));
                if (take_step(u, partner, gu, g_of(partner))) {
                    ++changed;
                    refresh_critical();
                    if (should_stop()) break;
                    continue;
                }
                ++stuck;
            }
            if (uv > vu) { vu = uv; cu = u; }
            if (lv < vl) { vl = lv; cl = u; }
        }
        last_violation = changed ? scan_max_viol : std::max(0.0, vu - vl);
        if (changed == 0) {
            converged = stuck == 0 && !stopped;
            break;
        }
    }
    if (!converged && !stopped) {  // after max_iter: the final g for the bias and J
        for (int64_t u = 0; u < n; ++u) res.g_unl[u] = g_of(u);
        double bu = -INF, bl = INF;
        for (int64_t u = 0; u < n; ++u) {
            bu = std::max(bu, pairs.up_val(u, res.g_unl[u]));
            bl = std::min(bl, pairs.low_val(u, res.g_unl[u]));
        }
        last_violation = bu - bl;
    }
    if (K.is_linear()) res.w = fresh.w();
    res.iter = iter;
    res.converged = converged;
    res.stopped = stopped;
    res.violation = last_violation;
    res.kernel_rows = kernel_rows;
}

// ---------------------------------------------------------------------------------------
// Linear kernel: the shared linear dual solver on the split sigma_u = a_u + b_u (a_u, b_u in
// [0, c2/2], adjacent, sharing the row of x_u), with w = c1 sum_P x_p - sum_U sigma_u x_u kept:
// 1/2 ||w||^2 is the quadratic term plus -c1 h' sigma, and the linear costs -a_u + b_u make
// the double hinge. On large problems the offset is found first: for a fixed beta the
// equality constraint goes into the linear term (a shift of -beta) and the dual separates into
// single coordinates; sum sigma(beta) grows with beta, so a bracketed secant search finds beta
// with sum sigma = c1 p, and the pair phase finishes the exact problem from there.

LinearDualProblem linear_split(const PUProblem& pb) {
    const int64_t n = static_cast<int64_t>(pb.unl.size());
    LinearDualProblem lp;
    lp.X = pb.X;
    lp.row.resize(static_cast<size_t>(2 * n));
    lp.p.resize(static_cast<size_t>(2 * n));
    for (int64_t u = 0; u < n; ++u) {
        lp.row[2 * u] = lp.row[2 * u + 1] = pb.unl[u];
        lp.p[2 * u] = -1.0;
        lp.p[2 * u + 1] = 1.0;
    }
    lp.sign.assign(static_cast<size_t>(2 * n), -1);
    lp.y.assign(static_cast<size_t>(2 * n), 1);
    lp.C.assign(static_cast<size_t>(2 * n), pb.c2 / 2);
    lp.w0.assign(static_cast<size_t>(pb.X->d), 0.0);
    for (int32_t r : pb.pos) pb.X->axpy(r, pb.c1, lp.w0.data());
    return lp;
}

void split(const std::vector<double>& sigma, double c2, std::vector<double>& alpha) {
    for (size_t u = 0; u < sigma.size(); ++u) {
        alpha[2 * u] = std::min(sigma[u], c2 / 2);
        alpha[2 * u + 1] = sigma[u] - alpha[2 * u];
    }
}

void join(const std::vector<double>& alpha, std::vector<double>& sigma) {
    for (size_t u = 0; u < sigma.size(); ++u) sigma[u] = alpha[2 * u] + alpha[2 * u + 1];
}

// Moves sum(sigma) to `total` inside [0, c2] by moving the points that want to move most
// (largest f to raise, smallest to lower), each at most to its next state, so that every
// other point keeps its exact state for the pair solver.
void repair_total(std::vector<double>& sigma, const std::vector<double>& f, double total, double c2) {
    const double half = c2 / 2;
    double gap = total;
    for (double v : sigma) gap -= v;
    std::vector<int64_t> order(sigma.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
        return gap > 0 ? f[a] > f[b] : f[a] < f[b];
    });
    for (int pass = 0; pass < 2 && gap != 0.0; ++pass) {
        for (int64_t u : order) {
            if (gap == 0.0) break;
            double& v = sigma[u];
            const double next = gap > 0 ? (v < half ? half : c2) : (v > half ? half : 0.0);
            const double move = gap > 0 ? std::min(gap, next - v) : std::max(gap, next - v);
            v += move;
            gap -= move;
        }
    }
    snap_states(sigma, c2);
}

// The offset search (see above); leaves sigma (and alpha) feasible.
void offset_search(const PUProblem& pb, const PUOptions& opt, LinearDual& ld, std::vector<double>& alpha,
                   std::vector<double>& sigma) {
    const int64_t n = static_cast<int64_t>(sigma.size());
    const double total = pb.c1 * static_cast<double>(pb.pos.size());
    std::vector<double> g(static_cast<size_t>(n));
    auto refresh_g = [&] {
        for (int64_t u = 0; u < n; ++u) g[u] = -ld.wx(2 * u);
    };
    refresh_g();
    double beta = std::isfinite(opt.beta0) ? opt.beta0 : pu_bias(sigma, g, pb.c2);
    bool stopped = false;
    auto sum_at = [&](double b, double tol) {
        stopped = ld.solve_box(b, tol).stopped;
        double sum = 0.0;
        for (double v : alpha) sum += v;
        return sum;
    };
    auto capped = [&] { return opt.max_iter >= 0 && ld.updates() >= opt.max_iter; };
    // The search runs the descent to 4 tol per point; the offset found is then polished to
    // tol, and the pair phase takes the last step to tol (tighter polishing cost more in the
    // descent's slow tail than it saved the pairs: 1.0-1.3 s against 1.0-1.7 s at 1M).
    bool polished = false;
    // S(beta) = sum sigma(beta) is non-decreasing: secant steps, kept inside the bracket
    // [lo, hi] once one is known (bisection when a step would leave it)
    double lo = -INF, hi = INF, prev_b = NaN, prev_s = NaN;
    const double enough = std::max(1e-4 * total, pb.c2);
    for (int k = 0; k < 40 && !stopped && !capped(); ++k) {
        double sum = sum_at(beta, polished ? opt.tol : 4 * opt.tol);
        if (std::fabs(sum - total) <= enough && !polished) {
            polished = true;
            sum = sum_at(beta, opt.tol);
        }
        if (std::fabs(sum - total) <= enough) break;
        (sum < total ? lo : hi) = beta;
        double next = NaN;
        if (std::isfinite(prev_b) && sum != prev_s) next = beta + (total - sum) * (beta - prev_b) / (sum - prev_s);
        if (!std::isfinite(next)) next = beta + (sum < total ? 0.1 : -0.1);
        if (std::isfinite(lo) && std::isfinite(hi) && !(next > lo && next < hi)) next = (lo + hi) / 2;
        if (std::isfinite(lo) && std::isfinite(hi) && hi - lo <= 1e-12 * std::max(1.0, std::fabs(beta))) break;
        prev_b = beta;
        prev_s = sum;
        beta = next;
    }
    join(alpha, sigma);
    refresh_g();
    for (int64_t u = 0; u < n; ++u) g[u] += beta;
    repair_total(sigma, g, total, pb.c2);
    split(sigma, pb.c2, alpha);
    ld.recompute_w();  // also drops the rounding drift of the updates
}

void solve_linear(const PUProblem& pb, const PUOptions& opt, PUResult& res) {
    const int64_t n = static_cast<int64_t>(pb.unl.size());
    const LinearDualProblem lp = linear_split(pb);
    std::vector<double> alpha(static_cast<size_t>(2 * n));
    split(res.sigma, pb.c2, alpha);
    LinearDualOptions lo;
    lo.tol = opt.tol;
    lo.shrinking = opt.shrinking;
    lo.max_iter = opt.max_iter;
    lo.max_epochs = 200;
    lo.seed = opt.seed;
    lo.progress = opt.progress;
    LinearDual ld(lp, alpha, lo);
    bool stopped = false;
    if (opt.linear_cd == 1 || (opt.linear_cd < 0 && n >= 5000)) {
        offset_search(pb, opt, ld, alpha, res.sigma);
        stopped = ld.stopped();
    }
    LinearDualResult r;
    if (!stopped) r = ld.solve_pairs(opt.tol);
    join(alpha, res.sigma);
    // a pair step's clipping can leave a few ulps above 0 (sum - C): such a variable is at its
    // bound, and counting it as free would bias the offset
    snap_states(res.sigma, pb.c2);
    for (int64_t u = 0; u < n; ++u) res.g_unl[u] = -ld.wx(2 * u);
    res.w = ld.w();
    res.iter = ld.updates();
    res.converged = r.converged;
    res.stopped = stopped || r.stopped;
    res.violation = r.violation;
}

}  // namespace

// ---------------------------------------------------------------------------------------

std::vector<double> pu_upper_weights(const std::vector<double>& sigma, double c2) {
    // the split of solve_smo: a_u = min(sigma_u, c2/2), b_u = sigma_u - a_u
    const double half = c2 / 2;
    std::vector<double> w(sigma.size());
    for (size_t u = 0; u < sigma.size(); ++u) {
        const double a = std::min(sigma[u], half), b = sigma[u] - a;
        w[u] = half * ((a >= half) + (b >= half));
    }
    return w;
}

double pu_bias(const std::vector<double>& sigma, const std::vector<double>& g, double c2) {
    // the offset of sum_t a_t + b_t = const over the split of solve_smo (all y_t = +1,
    // G = -g - 1 for a_u and -g + 1 for b_u)
    const double half = c2 / 2;
    OffsetEstimate r;
    auto add = [&](double v, double G) {
        if (v >= half) r.add_lower(G);
        else if (v <= 0) r.add_upper(G);
        else r.add_free(G);
    };
    for (size_t u = 0; u < sigma.size(); ++u) {
        const double a = std::min(sigma[u], half), b = sigma[u] - a;
        add(a, -g[u] - 1.0);
        add(b, -g[u] + 1.0);
    }
    return r.value();
}

// Values within a few ulps of 0, c2/2 or c2 are put on them: a start computed elsewhere
// (a heuristic, a warm start) must give the solver exact bound states.
void snap_states(std::vector<double>& sigma, double c2) {
    const double e = 1e-12 * c2;
    for (double& v : sigma) {
        if (std::fabs(v) <= e) v = 0.0;
        else if (std::fabs(v - c2 / 2) <= e) v = c2 / 2;
        else if (std::fabs(v - c2) <= e) v = c2;
        v = std::clamp(v, 0.0, c2);
    }
}

PUResult solve_pu(const PUProblem& pb, const PUOptions& opt) {
    const int64_t n = static_cast<int64_t>(pb.unl.size());
    if (n == 0 || pb.pos.empty()) throw std::invalid_argument("need at least one positive and one unlabeled point");
    Kernel K(*pb.X, pb.kernel);
    const std::vector<double> h = opt.h ? std::vector<double>(opt.h, opt.h + n) : positive_sums(pb, K);
    const double total = pb.c1 * static_cast<double>(pb.pos.size());

    PUResult res;
    res.g_unl.assign(static_cast<size_t>(n), 0.0);
    if (opt.sigma0) res.sigma.assign(opt.sigma0, opt.sigma0 + n);
    else res.sigma = default_start(h, total, pb.c2);
    snap_states(res.sigma, pb.c2);

    if (K.is_linear()) {
        if (opt.solver == PUSolver::USMO) solve_usmo(pb, opt, K, h, res);
        else solve_linear(pb, opt, res);
    } else if (opt.solver == PUSolver::USMO) {
        solve_usmo(pb, opt, K, h, res);
    } else {
        solve_smo(pb, opt, K, h, res);
    }
    if (res.stopped) return res;  // interrupted: the caller discards the result
    res.beta = pu_bias(res.sigma, res.g_unl, pb.c2);
    if (K.is_linear() && res.w.empty()) res.w = primal_w(pb, res.sigma);
    if (opt.positive_g) res.g_pos = positive_g(pb, K, res.sigma, res.w);
    return res;
}

}  // namespace unl
