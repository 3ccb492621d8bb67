// USMO as published (Sansone, De Natale and Zhou, "Efficient Training for Positive Unlabeled
// Learning", TPAMI 2019): kept as the paper's algorithm, a reference beside the shared solvers
// that PUSVC uses by default. It optimises over the non-bound set (with its function cache)
// until it is tau-optimal, then scans every point against the most critical values, and stops
// when a full scan changes nothing. Its pair step is exact along sigma_i + t, sigma_j - t
// (a convex piecewise quadratic with kinks at c2/2).
#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "pu_dh.hpp"

namespace unl {

namespace {

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

class Usmo {
public:
    Usmo(const PUProblem& pb, const PUOptions& opt, Kernel& K, const std::vector<double>& h, PUResult& res)
        : pb_(pb), opt_(opt), K_(K), res_(res), n_(static_cast<int64_t>(pb.unl.size())),
          sigma_(res.sigma), pairs_(sigma_, pb.c2), fresh_(pb, K, h, sigma_), tau_(opt.tol),
          nb_pos_(static_cast<size_t>(n_), -1), fcache_(static_cast<size_t>(n_), 0.0),
          clock_(opt.progress, 0.2) {
        for (int64_t u = 0; u < n_; ++u)
            if (pairs_.non_bound(u)) nb_insert(u, fresh_(u));
        scan_order_.resize(static_cast<size_t>(n_));
        std::iota(scan_order_.begin(), scan_order_.end(), 0);
        std::mt19937_64 rng(opt.seed);
        std::shuffle(scan_order_.begin(), scan_order_.end(), rng);
    }

    void run() {
        while (!converged_ && !stopped_ && !capped()) {
            optimise_non_bound();
            if (stopped_ || capped()) break;
            if (scan()) break;
        }
        if (!converged_ && !stopped_) final_gradient();
        if (K_.is_linear()) res_.w = fresh_.w();
        res_.iter = iter_;
        res_.converged = converged_;
        res_.stopped = stopped_;
        res_.violation = violation_;
        res_.kernel_rows = kernel_rows_;
    }

private:
    const PUProblem& pb_;
    const PUOptions& opt_;
    Kernel& K_;
    PUResult& res_;
    int64_t n_;
    std::vector<double>& sigma_;
    SigmaPairs pairs_;
    FreshG fresh_;
    double tau_;
    // the non-bound set with its function cache; nb_rows_: rows of X, parallel to nb_
    std::vector<int64_t> nb_, nb_pos_, scan_order_;
    std::vector<int32_t> nb_rows_;
    std::vector<double> fcache_, ki_, kj_;
    ProgressClock clock_;
    int64_t iter_ = 0, kernel_rows_ = 0;
    bool stopped_ = false, converged_ = false;
    double violation_ = INF;

    bool capped() const { return opt_.max_iter >= 0 && iter_ >= opt_.max_iter; }
    bool should_stop() {
        if (capped()) return true;
        if (clock_.poll(iter_, violation_)) stopped_ = true;
        return stopped_;
    }
    double g_of(int64_t u) { return nb_pos_[u] >= 0 ? fcache_[u] : fresh_(u); }

    void nb_insert(int64_t u, double g) {
        nb_pos_[u] = static_cast<int64_t>(nb_.size());
        nb_.push_back(u);
        nb_rows_.push_back(pb_.unl[u]);
        fcache_[u] = g;
    }
    void nb_erase(int64_t u) {
        const int64_t k = nb_pos_[u], last = static_cast<int64_t>(nb_.size()) - 1;
        nb_[k] = nb_[last];
        nb_rows_[k] = nb_rows_[last];
        nb_pos_[nb_[k]] = k;
        nb_.pop_back();
        nb_rows_.pop_back();
        nb_pos_[u] = -1;
    }

    // one pair step with current g values; keeps the function cache and the NB set exact
    bool take_step(int64_t i, int64_t j, double gi, double gj) {
        const double old_i = sigma_[i], old_j = sigma_[j];
        if (pairs_.step(i, j, gi, gj, eta_of(K_, pb_.unl[i], pb_.unl[j])) == 0.0) return false;
        const double di = sigma_[i] - old_i, dj = sigma_[j] - old_j;
        const int64_t m = static_cast<int64_t>(nb_.size());
        ki_.resize(static_cast<size_t>(m));
        kj_.resize(static_cast<size_t>(m));
        K_.row(pb_.unl[i], nb_rows_.data(), m, ki_.data());
        K_.row(pb_.unl[j], nb_rows_.data(), m, kj_.data());
        kernel_rows_ += 2;
        for (int64_t k = 0; k < m; ++k) fcache_[nb_[k]] -= di * ki_[k] + dj * kj_[k];
        fresh_.moved(i, di);
        fresh_.moved(j, dj);
        for (int64_t u : {i, j}) {
            const bool was = nb_pos_[u] >= 0, now = pairs_.non_bound(u);
            if (was && !now) nb_erase(u);
            else if (!was && now) nb_insert(u, fresh_(u));
        }
        ++iter_;
        return true;
    }

    // the most critical up / low values over the non-bound set
    void critical(int64_t& cu, int64_t& cl, double& vu, double& vl) const {
        cu = cl = -1;
        vu = -INF;
        vl = INF;
        for (int64_t u : nb_) {
            const double uv = pairs_.up_val(u, fcache_[u]), lv = pairs_.low_val(u, fcache_[u]);
            if (uv > vu) { vu = uv; cu = u; }
            if (lv < vl) { vl = lv; cl = u; }
        }
    }

    // phase 1: the non-bound set until it is tau-optimal
    void optimise_non_bound() {
        while (!nb_.empty()) {
            int64_t bi, bj;
            double bu, bl;
            critical(bi, bj, bu, bl);
            violation_ = bu - bl;
            if (bi < 0 || bj < 0 || bi == bj || bu - bl <= tau_) {
                violation_ = std::max(0.0, bu - bl);
                return;
            }
            if (!take_step(bi, bj, fcache_[bi], fcache_[bj]) || should_stop()) return;
        }
    }

    // phase 2: scan all points against the most critical values (NB and scanned points);
    // true when the algorithm ends (no step taken, or stopped)
    bool scan() {
        int64_t changed = 0, stuck = 0;  // stuck: violating pairs that could not move
        int64_t cu, cl;
        double vu, vl;
        critical(cu, cl, vu, vl);
        double scan_max_viol = 0.0;
        for (int64_t u : scan_order_) {
            if (clock_.poll(iter_, violation_)) { stopped_ = true; break; }
            const double gu = g_of(u);
            res_.g_unl[u] = gu;
            const double uv = pairs_.up_val(u, gu), lv = pairs_.low_val(u, gu);
            int64_t partner = -1;
            if (cl >= 0 && cl != u && uv - vl > tau_) partner = cl;
            else if (cu >= 0 && cu != u && vu - lv > tau_) partner = cu;
            if (partner >= 0) {
                scan_max_viol = std::max(scan_max_viol, std::max(uv - vl, vu - lv));
                if (take_step(u, partner, gu, g_of(partner))) {
                    ++changed;
                    critical(cu, cl, vu, vl);
                    if (should_stop()) break;
                    continue;
                }
                ++stuck;
            }
            if (uv > vu) { vu = uv; cu = u; }
            if (lv < vl) { vl = lv; cl = u; }
        }
        violation_ = changed ? scan_max_viol : std::max(0.0, vu - vl);
        if (changed == 0) converged_ = stuck == 0 && !stopped_;
        return changed == 0;
    }

    // after max_iter: the final g for the bias and J
    void final_gradient() {
        double bu = -INF, bl = INF;
        for (int64_t u = 0; u < n_; ++u) {
            res_.g_unl[u] = g_of(u);
            bu = std::max(bu, pairs_.up_val(u, res_.g_unl[u]));
            bl = std::min(bl, pairs_.low_val(u, res_.g_unl[u]));
        }
        violation_ = bu - bl;
    }
};

}  // namespace

void solve_usmo(const PUProblem& pb, const PUOptions& opt, Kernel& K, const std::vector<double>& h,
                PUResult& res) {
    Usmo(pb, opt, K, h, res).run();
}

}  // namespace unl
