#include "svmplus.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

#include "qmatrix.hpp"

namespace unl {

namespace {

// Kernel rows of one space, over all points, from the shared row cache. At least 8 rows whatever
// the budget: an aSMO step holds up to 5 rows of one space at once (8 n doubles is 640 KB at
// n = 10,000).
class KernelRows {
public:
    KernelRows(const Data& X, KernelParams p, double cache_bytes)
        : K_(X, p), rows_(K_, all_rows(X.n), std::max(cache_bytes, 8.0 * sizeof(double) * static_cast<double>(X.n))) {}
    // Valid until 8 further calls (the cache keeps at least 8 slots, least recently used out).
    const double* row(int64_t i) { return rows_.row(i, true); }
    double diag(int64_t i) const { return rows_.diag(i); }
    // computes the missing rows among us[0..k) together (PointRows::prefetch)
    void prefetch(const int64_t* us, int k) { rows_.prefetch(us, k, true); }
    int64_t computed() const { return rows_.rows_computed(); }
    const RowCache& cache() const { return rows_.cache(); }

private:
    static std::vector<int32_t> all_rows(int64_t n) {
        std::vector<int32_t> r(static_cast<size_t>(n));
        std::iota(r.begin(), r.end(), 0);
        return r;
    }
    Kernel K_;
    PointRows<double> rows_;
};

// Best value of  t * slope - q t^2 / 2  over 0 <= t <= cap (the dual's gain along a direction
// whose decreasing variables allow at most `cap`). Every direction decreases some variable and
// there are no upper bounds, so cap is finite and q ~ 0 (a flat direction) is harmless.
inline double clipped_step(double slope, double q, double cap) {
    return q > TAU ? std::min(slope / q, cap) : cap;
}
inline double gain_of(double slope, double q, double t) { return t * (slope - 0.5 * q * t); }

// The directions of aSMO (the paper's I1, I2, I3 and the reverse of I3). Each keeps both
// equalities: I1 moves beta_i up and beta_j down; I2 moves alpha_i up and alpha_j down in one
// class; I3 moves alpha_i, alpha_j (opposite classes) up and beta_t down twice as much; I3R is
// the reverse of I3.
enum Kind : int { NONE = 0, I1 = 1, I2 = 2, I3 = 3, I3R = 4 };

struct Direction {
    Kind kind = NONE;
    int64_t i = -1, j = -1, t = -1;
    double step = 0.0, cap = 0.0, gain = -INF;
};

class SVMPlusSolverImpl {
public:
    SVMPlusSolverImpl(const SVMPlusProblem& pb, const SVMPlusOptions& opt)
        : pb_(pb), opt_(opt), n_(static_cast<int64_t>(pb.y.size())), y_(pb.y), C_(pb.C),
          ig_(1.0 / pb.gamma), K_(*pb.X, pb.kernel, opt.cache_bytes / 2),
          Ks_(*pb.Xs, pb.kernel_star, opt.cache_bytes / 2), clock_(opt_.progress, 0.2),
          tol_(opt.tol) {
        // alpha = 0, beta = C: delta = 0, so F = f = 0 and every gradient is known without a
        // single kernel row (the spec's start)
        alpha_.assign(static_cast<size_t>(n_), 0.0);
        beta_.assign(static_cast<size_t>(n_), C_);
        F_.assign(static_cast<size_t>(n_), 0.0);
        f_.assign(static_cast<size_t>(n_), 0.0);
        G_.assign(static_cast<size_t>(n_), 1.0);
        S_.assign(static_cast<size_t>(n_), 0.0);
        active_.resize(static_cast<size_t>(n_));
        std::iota(active_.begin(), active_.end(), 0);
    }

    SVMPlusResult run() {
        if (opt_.solver == SVMPlusSolver::ASMO) run_asmo();
        else run_gsmo();
        SVMPlusResult r;
        std::vector<double> G(static_cast<size_t>(n_)), s(static_cast<size_t>(n_));
        for (int64_t i = 0; i < n_; ++i) {
            G[i] = grad_alpha(i);
            s[i] = grad_beta(i);
        }
        svmplus_bias(alpha_, beta_, y_, G, s, r.b, r.d);
        r.objective = objective();
        r.violation = violation_;
        r.iter = iter_;
        r.triple_steps = triple_steps_;
        r.converged = converged_;
        r.stopped = stopped_;
        r.stalled = stalled_;
        r.kernel_rows = K_.computed() + Ks_.computed();
        r.cache_hits = K_.cache().hits() + Ks_.cache().hits();
        r.cache_misses = K_.cache().misses() + Ks_.cache().misses();
        r.cache_bytes = K_.cache().bytes_used() + Ks_.cache().bytes_used();
        r.alpha = std::move(alpha_);
        r.beta = std::move(beta_);
        r.F = std::move(F_);
        r.f = std::move(f_);
        return r;
    }

private:
    const SVMPlusProblem& pb_;
    const SVMPlusOptions& opt_;
    int64_t n_;
    const std::vector<int8_t>& y_;
    double C_, ig_;  // ig_ = 1 / gamma
    KernelRows K_, Ks_;
    ProgressClock clock_;
    std::vector<double> alpha_, beta_, F_, f_;
    std::vector<double> G_, S_;  // G_i and s_i, as of the last scan
    int64_t iter_ = 0, triple_steps_ = 0;
    double tol_ = 0.0;  // the slope that counts as a violation (select)
    std::vector<int64_t> active_;  // the points that scan and select visit (sorted)
    double violation_ = INF;
    bool converged_ = false, stopped_ = false, stalled_ = false;

    double grad_alpha(int64_t i) const { return 1.0 - y_[i] * F_[i] - f_[i] * ig_; }
    double grad_beta(int64_t i) const { return -f_[i] * ig_; }

    double objective() const {
        double D = 0.0;
        for (int64_t i = 0; i < n_; ++i) {
            const double delta = alpha_[i] + beta_[i] - C_;
            D += alpha_[i] - 0.5 * alpha_[i] * y_[i] * F_[i] - 0.5 * ig_ * delta * f_[i];
        }
        return D;
    }

    // F += a * y_i K_i (alpha_i changed by a), f += a * K*_i (delta_i changed by a)
    void add_F(int64_t i, double a) {
        if (a == 0.0) return;
        const double* r = K_.row(i);
        const double c = a * y_[i];
        for (int64_t k = 0; k < n_; ++k) F_[k] += c * r[k];
    }
    void add_f(int64_t i, double a) {
        if (a == 0.0) return;
        const double* r = Ks_.row(i);
        for (int64_t k = 0; k < n_; ++k) f_[k] += a * r[k];
    }

    bool should_stop() {
        if (opt_.max_iter >= 0 && iter_ >= opt_.max_iter) return true;
        if (clock_.due() && clock_.report(iter_, violation_, objective())) {
            stopped_ = true;
            return true;
        }
        return false;
    }

    // ----------------------------------------------------------------- first-order scan
    // The most violating index of every kind. Class index c: 0 for y = +1.
    struct Scan {
        int64_t smax = -1, sminb = -1;      // argmax s over all; argmin s over beta > 0
        int64_t gmax[2] = {-1, -1};         // argmax G per class
        int64_t gmin[2] = {-1, -1};         // argmin G per class over alpha > 0
        double vsmax = -INF, vsminb = INF, vgmax[2] = {-INF, -INF}, vgmin[2] = {INF, INF};
        double v1 = -INF, v2[2] = {-INF, -INF}, v3 = -INF, v3r = -INF;
        int64_t nfree = 0;                  // alphas > 0 plus betas > 0
        double max() const { return std::max({v1, v2[0], v2[1], v3, v3r}); }

        void add(int64_t i, double G, double s, int c, bool apos, bool bpos) {
            if (s > vsmax) { vsmax = s; smax = i; }
            if (bpos && s < vsminb) { vsminb = s; sminb = i; }
            if (G > vgmax[c]) { vgmax[c] = G; gmax[c] = i; }
            if (apos && G < vgmin[c]) { vgmin[c] = G; gmin[c] = i; }
            nfree += apos + bpos;
        }
        void finish() {
            if (sminb >= 0) {
                v1 = vsmax - vsminb;
                v3 = vgmax[0] + vgmax[1] - 2 * vsminb;
            }
            for (int c = 0; c < 2; ++c)
                if (gmin[c] >= 0) v2[c] = vgmax[c] - vgmin[c];
            if (gmin[0] >= 0 && gmin[1] >= 0) v3r = 2 * vsmax - vgmin[0] - vgmin[1];
        }
    };

    // G_ and S_ from F_ and f_, and the first-order scan, in one O(n) pass
    Scan scan() {
        Scan sc;
        for (int64_t i : active_) {
            G_[i] = grad_alpha(i);
            S_[i] = grad_beta(i);
            sc.add(i, G_[i], S_[i], y_[i] > 0 ? 0 : 1, alpha_[i] > 0, beta_[i] > 0);
        }
        sc.finish();
        return sc;
    }

    // v' K* v / gamma for v = e_i + e_j - 2 e_t, given the rows K*_i and K*_t (t may be i or j)
    double q_star3(int64_t i, int64_t j, int64_t t, const double* rsi, const double* rst) const {
        const double v = Ks_.diag(i) + Ks_.diag(j) + 4 * Ks_.diag(t) + 2 * rsi[j] - 4 * rsi[t] -
                         4 * rst[j];
        return std::max(v, 0.0) * ig_;
    }

    // ----------------------------------------------------------------- free-set Newton step
    // SMO steps alone zigzag among the free variables when the Hessian is ill-conditioned (on
    // Mackey-Glass, 2,000 points: 190 steps per point, nearly all of them unclipped I2 / I3 /
    // I3R steps among ~30 free alphas). Every alpha_i > 0 and beta_i > 0 is free (no upper
    // bounds), so on the free set S the dual is an equality-constrained concave quadratic:
    //     max_x g'x - x'Hx / 2   s.t.  sum_{alpha in S} y_i x_i = 0,  sum_{S} x = 0,
    // H the Hessian of -D on S (y_i y_j K_ij + K*_ij / gamma between alphas, K*_ij / gamma
    // otherwise), g = (G, s) on S. Its maximiser x = H^-1 (g - A' lambda), A x = 0, is found
    // by one Cholesky factorisation of H (+ a tiny ridge for a singular H: duplicate points)
    // and a 2 x 2 system for lambda; the step along x is the exact line search clipped where
    // the first variable reaches 0 (it is set to exactly 0). Each step raises D, as an SMO
    // step does; the stopping rule stays the aSMO one, so the optimum is the same.
    std::vector<double> nH_, nHr_, nx_, ng_, nz_;
    // The Newton step's free set: all free alphas up to kNewtonAlphas (beyond, those of
    // extreme G per class), then the free betas up to kNewtonMax variables in all (at least
    // 16; beyond, those of extreme s). Each variable dropped costs O(k^2); a subset of the free
    // alphas converges far more slowly than all of them (overlapping classes, 294 free alphas:
    // 5,575 steps with all, 51,685 with 100), while betas are mostly dropped (Mackey-Glass).
    static constexpr int64_t kNewtonMax = 300, kNewtonAlphas = 400;
    std::vector<int64_t> nbeta_, nvar_;  // variable v: point nvar_[v], alpha if v < nalpha_
    int64_t nalpha_ = 0;
    int64_t newton_steps_ = 0;

    // In-place Cholesky factor L (lower triangle, row stride ld) of the k x k matrix A.
    static bool cholesky(double* A, int64_t k, int64_t ld) {
        for (int64_t j = 0; j < k; ++j) {
            double* Aj = A + j * ld;
            double d = Aj[j];
            for (int64_t q = 0; q < j; ++q) d -= Aj[q] * Aj[q];
            if (!(d > 0)) return false;
            d = std::sqrt(d);
            Aj[j] = d;
            for (int64_t i = j + 1; i < k; ++i) {
                double* Ai = A + i * ld;
                double v = Ai[j];
                for (int64_t q = 0; q < j; ++q) v -= Ai[q] * Aj[q];
                Ai[j] = v / d;
            }
        }
        return true;
    }
    // Solves L L' z = b for three right-hand sides at once (b: k x 3, row-major), in place.
    static void chol_solve3(const double* L, int64_t k, int64_t ld, double* b) {
        for (int64_t i = 0; i < k; ++i) {
            const double* Li = L + i * ld;
            double v0 = b[3 * i], v1 = b[3 * i + 1], v2 = b[3 * i + 2];
            for (int64_t q = 0; q < i; ++q) {
                v0 -= Li[q] * b[3 * q];
                v1 -= Li[q] * b[3 * q + 1];
                v2 -= Li[q] * b[3 * q + 2];
            }
            b[3 * i] = v0 / Li[i];
            b[3 * i + 1] = v1 / Li[i];
            b[3 * i + 2] = v2 / Li[i];
        }
        // back substitution by columns of L' (rows of L): each solved entry is subtracted
        // from the entries above it
        for (int64_t i = k - 1; i >= 0; --i) {
            const double* Li = L + i * ld;
            const double d = Li[i];
            b[3 * i] /= d;
            b[3 * i + 1] /= d;
            b[3 * i + 2] /= d;
            const double z0 = b[3 * i], z1 = b[3 * i + 1], z2 = b[3 * i + 2];
            for (int64_t q = 0; q < i; ++q) {
                b[3 * q] -= Li[q] * z0;
                b[3 * q + 1] -= Li[q] * z1;
                b[3 * q + 2] -= Li[q] * z2;
            }
        }
    }

    // Cholesky factor (in nHr_, row stride m) of H on the variables act (indices into nvar_)
    // plus a tiny ridge for a singular H (duplicate points); false when it cannot be factorised.
    bool newton_factor(const std::vector<int64_t>& act, int64_t m) {
        const int64_t k = static_cast<int64_t>(act.size());
        double trace = 0.0;
        for (int64_t p = 0; p < k; ++p) trace += nH_[act[p] * m + act[p]];
        double mu = 1e-12 * std::max(trace / static_cast<double>(k), 1e-300);
        nHr_.resize(static_cast<size_t>(m * m));
        for (int tries = 0; tries < 8; ++tries, mu *= 100) {
            for (int64_t p = 0; p < k; ++p)
                for (int64_t q = 0; q <= p; ++q) nHr_[p * m + q] = nH_[act[p] * m + act[q]];
            for (int64_t p = 0; p < k; ++p) nHr_[p * m + p] += mu;
            if (cholesky(nHr_.data(), k, m)) return true;
        }
        return false;
    }

    // The factor of H without its variable at position p (of k), in place: the rows below p
    // move up one and Givens rotations on the columns restore the triangle (L Q Q' L' =
    // L L'). False when a rotation degenerates (then factorise anew).
    bool newton_factor_drop(int64_t p, int64_t k, int64_t m) {
        double* L = nHr_.data();
        for (int64_t r = p; r < k - 1; ++r) std::copy(L + (r + 1) * m, L + (r + 1) * m + r + 2, L + r * m);
        for (int64_t j = p; j < k - 1; ++j) {
            const double a = L[j * m + j], b = L[j * m + j + 1];
            const double rr = std::hypot(a, b);
            if (!(rr > 0)) return false;
            const double c = a / rr, sn = b / rr;
            for (int64_t r = j; r < k - 1; ++r) {
                double* Lr = L + r * m;
                const double x = Lr[j], z = Lr[j + 1];
                Lr[j] = c * x + sn * z;
                Lr[j + 1] = -sn * x + c * z;
            }
        }
        return true;
    }

    // The Newton direction on the variables act (factor in nHr_, stride m) for the gradient
    // ng_, into nx_ (length m, zero off act).
    void newton_direction(const std::vector<int64_t>& act, int64_t m) {
        const int64_t k = static_cast<int64_t>(act.size());
        auto a1 = [&](int64_t u) { return u < nalpha_ ? static_cast<double>(y_[nvar_[u]]) : 0.0; };
        nz_.resize(static_cast<size_t>(3 * k));
        for (int64_t p = 0; p < k; ++p) {
            nz_[3 * p] = ng_[act[p]];
            nz_[3 * p + 1] = a1(act[p]);
            nz_[3 * p + 2] = 1.0;
        }
        chol_solve3(nHr_.data(), k, m, nz_.data());
        double M11 = 0, M12 = 0, M22 = 0, r1 = 0, r2 = 0;
        for (int64_t p = 0; p < k; ++p) {
            const double a = a1(act[p]);
            M11 += a * nz_[3 * p + 1];
            M12 += a * nz_[3 * p + 2];
            M22 += nz_[3 * p + 2];
            r1 += a * nz_[3 * p];
            r2 += nz_[3 * p];
        }
        double l1 = 0.0, l2 = 0.0;
        const double det = M11 * M22 - M12 * M12;
        if (M11 > 0 && det > 1e-10 * M11 * M22) {
            l1 = (r1 * M22 - r2 * M12) / det;
            l2 = (M11 * r2 - M12 * r1) / det;
        } else {
            l2 = r2 / M22;  // no alpha, or alphas of one class only: one constraint
        }
        std::fill(nx_.begin(), nx_.end(), 0.0);
        for (int64_t p = 0; p < k; ++p) nx_[act[p]] = nz_[3 * p] - l1 * nz_[3 * p + 1] - l2 * nz_[3 * p + 2];
        // project the rounding of A x = 0 away (Euclidean projection onto A x = 0)
        double s1 = 0, s2 = 0, n1 = 0, n12 = 0;
        for (int64_t p = 0; p < k; ++p) {
            const double a = a1(act[p]);
            s1 += a * nx_[act[p]];
            s2 += nx_[act[p]];
            n1 += a * a;
            n12 += a;
        }
        const double dk = static_cast<double>(k), dt = n1 * dk - n12 * n12;
        double c1 = 0, c2 = 0;
        if (n1 > 0 && dt > 1e-12 * n1 * dk) {
            c1 = (s1 * dk - s2 * n12) / dt;
            c2 = (n1 * s2 - n12 * s1) / dt;
        } else {
            c2 = s2 / dk;
        }
        for (int64_t p = 0; p < k; ++p) nx_[act[p]] -= c1 * a1(act[p]) + c2;
    }

    // The Newton step's variables: the free alphas (at most kNewtonAlphas: beyond, per class in
    // proportion those of smallest and largest G, the ones I2 would lower and raise; the others
    // stay fixed), then the free betas (at most the room left: beyond, those of smallest and
    // largest s, the ones SMO would lower and raise): a subspace step. Returns their count.
    int64_t newton_variables() {
        nvar_.clear();
        for (int64_t i = 0; i < n_; ++i)
            if (alpha_[i] > 0) nvar_.push_back(i);
        nalpha_ = static_cast<int64_t>(nvar_.size());
        const int64_t cap_alpha = kNewtonAlphas;
        if (nalpha_ > cap_alpha) {
            auto by_G = [&](int64_t a, int64_t b) { return G_[a] < G_[b]; };
            std::vector<int64_t> keep;
            for (int c = 0; c < 2; ++c) {
                std::vector<int64_t> cls;
                for (int64_t i : nvar_)
                    if ((y_[i] > 0 ? 0 : 1) == c) cls.push_back(i);
                const int64_t nc = static_cast<int64_t>(cls.size());
                const int64_t kc = std::min(nc, std::max<int64_t>(2, cap_alpha * nc / nalpha_));
                const int64_t lo = kc / 2, hi = kc - lo;
                if (kc < nc) {
                    std::nth_element(cls.begin(), cls.begin() + lo, cls.end(), by_G);
                    std::nth_element(cls.begin() + lo, cls.end() - hi, cls.end(), by_G);
                    cls.erase(cls.begin() + lo, cls.end() - hi);
                }
                keep.insert(keep.end(), cls.begin(), cls.end());
            }
            nvar_.swap(keep);
            nalpha_ = static_cast<int64_t>(nvar_.size());
        }
        nbeta_.clear();
        for (int64_t i = 0; i < n_; ++i)
            if (beta_[i] > 0) nbeta_.push_back(i);
        const int64_t room = std::max<int64_t>(kNewtonMax - nalpha_, 16);
        if (static_cast<int64_t>(nbeta_.size()) > room) {
            const int64_t lo = room / 2, hi = room - lo;
            auto by_s = [&](int64_t a, int64_t b) { return S_[a] < S_[b]; };
            std::nth_element(nbeta_.begin(), nbeta_.begin() + lo, nbeta_.end(), by_s);
            std::nth_element(nbeta_.begin() + lo, nbeta_.end() - hi, nbeta_.end(), by_s);
            nbeta_.erase(nbeta_.begin() + lo, nbeta_.end() - hi);
        }
        nvar_.insert(nvar_.end(), nbeta_.begin(), nbeta_.end());
        return static_cast<int64_t>(nvar_.size());
    }

    // H (m x m) of the Newton step's variables from the rows of K (alphas) and K* (all), read
    // one row at a time; the missing rows are computed kPrefetch at a time (one data pass)
    void newton_hessian(int64_t m) {
        nH_.assign(static_cast<size_t>(m * m), 0.0);
        for (int64_t u = 0; u < m; ++u) {
            const int64_t i = nvar_[u];
            if (u % kPrefetch == 0) {
                const int k = static_cast<int>(std::min<int64_t>(kPrefetch, m - u));
                Ks_.prefetch(nvar_.data() + u, k);
                if (u < nalpha_) K_.prefetch(nvar_.data() + u, static_cast<int>(std::min<int64_t>(k, nalpha_ - u)));
            }
            const double* rs = Ks_.row(i);
            double* Hu = nH_.data() + u * m;
            for (int64_t v = 0; v < m; ++v) Hu[v] = rs[nvar_[v]] * ig_;
            if (u < nalpha_) {
                const double* rk = K_.row(i);
                for (int64_t v = 0; v < nalpha_; ++v) Hu[v] += y_[i] * y_[nvar_[v]] * rk[nvar_[v]];
            }
        }
    }

    // One move along the Newton direction nx_ on the active set `act`: the exact line search,
    // clipped where the first variable reaches 0 (`hit`, set to exactly 0). Updates val, dx
    // and step; returns the step length t (not > 0 or not finite: no move) and its cap.
    double newton_move(const std::vector<int64_t>& act, int64_t m, std::vector<double>& val,
                       std::vector<double>& dx, std::vector<double>& step, double& cap,
                       int64_t& hit) const {
        double slope = 0.0, curv = 0.0;
        for (int64_t u : act) {
            slope += ng_[u] * nx_[u];
            const double* Hu = nH_.data() + u * m;
            double hx = 0.0;
            for (int64_t v : act) hx += Hu[v] * nx_[v];
            curv += nx_[u] * hx;
        }
        if (!(slope > 0)) return 0.0;
        cap = INF;
        hit = -1;
        for (int64_t u : act)
            if (nx_[u] < 0) {
                const double t = val[u] / -nx_[u];
                if (t < cap) { cap = t; hit = u; }
            }
        const double tstar = curv > 0 ? slope / curv : INF;
        const double t = std::min(tstar, cap);
        if (!(t > 0) || !std::isfinite(t)) return t;
        for (int64_t u : act) {
            const double nv = u == hit && t >= cap ? 0.0 : std::max(val[u] + t * nx_[u], 0.0);
            step[u] = nv - val[u];
            dx[u] += step[u];
            val[u] = nv;
        }
        return t;
    }

    // Newton steps on the free set, dropping each variable that reaches 0 and solving again
    // on the rest (a primal active-set method; variables enter through the SMO steps); false
    // when it cannot move (then SMO carries on).
    bool newton_step() {
        const int64_t m = newton_variables();
        if (m < 3) return false;
        newton_hessian(m);
        std::vector<double> val(static_cast<size_t>(m)), dx(static_cast<size_t>(m), 0.0),
            step(static_cast<size_t>(m), 0.0);
        ng_.resize(static_cast<size_t>(m));
        nx_.resize(static_cast<size_t>(m));
        for (int64_t u = 0; u < m; ++u) {
            const int64_t i = nvar_[u];
            val[u] = u < nalpha_ ? alpha_[i] : beta_[i];
            ng_[u] = u < nalpha_ ? G_[i] : S_[i];
        }
        std::vector<int64_t> act(static_cast<size_t>(m));
        std::iota(act.begin(), act.end(), 0);
        bool moved = false;
        if (!newton_factor(act, m)) return false;
        for (int64_t round = 0; round < m && act.size() >= 2; ++round) {
            newton_direction(act, m);
            double cap = INF;
            int64_t hit = -1;
            const double t = newton_move(act, m, val, dx, step, cap, hit);
            if (!(t > 0) || !std::isfinite(t)) break;
            moved = true;
            if (t < cap) break;  // the free set's optimum: done
            // the gradient after this move: g -= H step (only the active entries are used)
            for (int64_t u : act) {
                const double* Hu = nH_.data() + u * m;
                double hs = 0.0;
                for (int64_t v : act) hs += Hu[v] * step[v];
                ng_[u] -= hs;
            }
            const int64_t k = static_cast<int64_t>(act.size());
            const int64_t pos = std::find(act.begin(), act.end(), hit) - act.begin();
            act.erase(act.begin() + pos);
            if (act.size() >= 2 && !newton_factor_drop(pos, k, m) && !newton_factor(act, m)) break;
        }
        if (!moved) return false;
        for (int64_t u = 0; u < m; ++u) {
            const int64_t i = nvar_[u];
            (u < nalpha_ ? alpha_[i] : beta_[i]) = val[u];
        }
        for (int64_t u = 0; u < nalpha_; ++u) add_F(nvar_[u], dx[u]);
        // delta of a point changes by its alpha's and its beta's changes: one K* row each
        for (int64_t u = 0; u < m; ++u) add_f(nvar_[u], dx[u]);
        ++newton_steps_;
        return true;
    }

    // ----------------------------------------------------------------- aSMO selection
    // Per kind, fix the first-order index (two for I3): I1 raises beta of argmax s; I2 raises
    // alpha of the class's argmax G; I3 raises alpha of the larger of the two classes' maximal
    // G, with t = argmin s over beta > 0; its reverse lowers alpha of the smaller of the two
    // classes' minimal G over alpha > 0, with t = argmax s. Then pick the partner of maximal
    // clipped gain among those whose slope exceeds tol (the paper's second step) and let the
    // kinds compete on gain (its third step). All kinds share one pass over the partners, and
    // a partner is skipped before its curvature is computed when even slope * cap, a bound of
    // its clipped gain, cannot beat the best gain so far.
    Direction select(const Scan& sc) {
        Direction best;
        const double tol = tol_;  // opt_.tol, or the polish target
        const bool do1 = sc.v1 > tol, do2[2] = {sc.v2[0] > tol, sc.v2[1] > tol};
        const bool do3 = sc.v3 > tol, do4 = sc.v3r > tol;
        // the fixed indices, and their rows (at most 5 of K*, 3 of K: all stay in the cache)
        const int64_t i1 = sc.smax;
        const int64_t i2[2] = {sc.gmax[0], sc.gmax[1]};
        const int c3 = G_[sc.gmax[0]] >= G_[sc.gmax[1]] ? 0 : 1;
        const int64_t i3 = sc.gmax[c3], t3 = sc.sminb;
        const int c4 = do4 ? (G_[sc.gmin[0]] <= G_[sc.gmin[1]] ? 0 : 1) : 0;
        const int64_t i4 = do4 ? sc.gmin[c4] : -1, t4 = sc.smax;
        const double* rs1 = do1 || do4 ? Ks_.row(i1) : nullptr;  // i1 == t4
        const double* rk2[2] = {nullptr, nullptr};
        const double* rs2[2] = {nullptr, nullptr};
        for (int c = 0; c < 2; ++c)
            if (do2[c] || (do3 && c == c3)) {  // i3 == i2[c3]
                rk2[c] = K_.row(i2[c]);
                rs2[c] = Ks_.row(i2[c]);
            }
        const double* rst3 = do3 ? Ks_.row(t3) : nullptr;
        const double* rk4 = do4 ? K_.row(i4) : nullptr;
        const double* rs4 = do4 ? Ks_.row(i4) : nullptr;
        const double s1 = S_[i1], G2[2] = {G_[i2[0]], G_[i2[1]]};
        const double G3 = G_[i3], st3 = t3 >= 0 ? S_[t3] : 0.0, cap3 = t3 >= 0 ? beta_[t3] / 2 : 0.0;
        const double G4 = do4 ? G_[i4] : 0.0, st4 = S_[t4], a4 = do4 ? alpha_[i4] : 0.0;
        auto offer = [&](Kind kind, int64_t i, int64_t j, int64_t t, double slope, double q,
                         double cap) {
            const double step = clipped_step(slope, q, cap);
            const double g = gain_of(slope, q, step);
            if (g > best.gain) best = {kind, i, j, t, step, cap, g};
        };
        for (int64_t j : active_) {
            const double Gj = G_[j], sj = S_[j], aj = alpha_[j], bj = beta_[j];
            const int cj = y_[j] > 0 ? 0 : 1;
            if (do1 && bj > 0 && j != i1) {
                const double slope = s1 - sj;
                if (slope > tol && slope * bj > best.gain) {
                    const double q = std::max(Ks_.diag(i1) + Ks_.diag(j) - 2 * rs1[j], 0.0) * ig_;
                    offer(I1, i1, j, -1, slope, q, bj);
                }
            }
            if (do2[cj] && aj > 0 && j != i2[cj]) {
                const double slope = G2[cj] - Gj;
                if (slope > tol && slope * aj > best.gain) {
                    const int64_t i = i2[cj];
                    const double q = std::max(K_.diag(i) + K_.diag(j) - 2 * rk2[cj][j], 0.0) +
                                     std::max(Ks_.diag(i) + Ks_.diag(j) - 2 * rs2[cj][j], 0.0) * ig_;
                    offer(I2, i, j, -1, slope, q, aj);
                }
            }
            if (do3 && cj != c3) {
                const double slope = G3 + Gj - 2 * st3;
                if (slope > tol && slope * cap3 > best.gain) {
                    const double q = std::max(K_.diag(i3) + K_.diag(j) - 2 * rk2[c3][j], 0.0) +
                                     q_star3(i3, j, t3, rs2[c3], rst3);
                    offer(I3, i3, j, t3, slope, q, cap3);
                }
            }
            if (do4 && cj != c4 && aj > 0) {
                const double slope = 2 * st4 - G4 - Gj;
                if (slope > tol && slope * std::min(a4, aj) > best.gain) {
                    const double q = std::max(K_.diag(i4) + K_.diag(j) - 2 * rk4[j], 0.0) +
                                     q_star3(i4, j, t4, rs4, rs1);
                    offer(I3R, i4, j, t4, slope, q, std::min(a4, aj));
                }
            }
        }
        return best;
    }

    // Moves along a direction, updates F and f by the changed rows and rescans, all in one
    // pass. A variable that the step empties is set to exactly 0, so that "beta_j > 0" or
    // "alpha_j > 0" never holds for a value that is zero up to rounding.
    Scan apply(const Direction& dir) {
        const double t = dir.step;
        const bool clipped = t >= dir.cap;
        const int64_t i = dir.i, j = dir.j;
        // changes: alpha of up to two examples (rows of K), delta of up to three (rows of K*)
        int64_t ka[2] = {-1, -1}, ks[3] = {-1, -1, -1};
        double da[2] = {0, 0}, ds[3] = {0, 0, 0};
        switch (dir.kind) {
        case I1:
            beta_[i] += t;
            beta_[j] = clipped ? 0.0 : beta_[j] - t;
            ks[0] = i; ds[0] = t;
            ks[1] = j; ds[1] = -t;
            break;
        case I2:
            alpha_[i] += t;
            alpha_[j] = clipped ? 0.0 : alpha_[j] - t;
            ka[0] = i; da[0] = t;
            ka[1] = j; da[1] = -t;
            ks[0] = i; ds[0] = t;
            ks[1] = j; ds[1] = -t;
            break;
        case I3:
            alpha_[i] += t;
            alpha_[j] += t;
            beta_[dir.t] = clipped ? 0.0 : beta_[dir.t] - 2 * t;
            ka[0] = i; da[0] = t;
            ka[1] = j; da[1] = t;
            ks[0] = i; ds[0] = t;
            ks[1] = j; ds[1] = t;
            ks[2] = dir.t; ds[2] = -2 * t;
            break;
        case I3R: {
            const double ai = alpha_[i], aj = alpha_[j];  // cap = min(ai, aj)
            alpha_[i] = clipped && ai <= aj ? 0.0 : ai - t;
            alpha_[j] = clipped && aj <= ai ? 0.0 : aj - t;
            beta_[dir.t] += 2 * t;
            ka[0] = i; da[0] = -t;
            ka[1] = j; da[1] = -t;
            ks[0] = i; ds[0] = -t;
            ks[1] = j; ds[1] = -t;
            ks[2] = dir.t; ds[2] = 2 * t;
            break;
        }
        case NONE: break;
        }
        const double* rk[2] = {nullptr, nullptr};
        const double* rs[3] = {nullptr, nullptr, nullptr};
        double ca[2] = {0, 0}, cs[3] = {0, 0, 0};
        for (int m = 0; m < 2; ++m)
            if (ka[m] >= 0) { rk[m] = K_.row(ka[m]); ca[m] = da[m] * y_[ka[m]]; }
        for (int m = 0; m < 3; ++m)
            if (ks[m] >= 0) { rs[m] = Ks_.row(ks[m]); cs[m] = ds[m]; }
        if (static_cast<int64_t>(active_.size()) < n_) {
            // shrunk: F and f stay exact everywhere (no reconstruction), G and s and the scan
            // only on the active points
            for (int m = 0; m < 2; ++m)
                if (rk[m]) for (int64_t k = 0; k < n_; ++k) F_[k] += ca[m] * rk[m][k];
            for (int m = 0; m < 3; ++m)
                if (rs[m]) for (int64_t k = 0; k < n_; ++k) f_[k] += cs[m] * rs[m][k];
            return scan();
        }
        Scan sc;
        for (int64_t k = 0; k < n_; ++k) {
            double F = F_[k], f = f_[k];
            if (rk[0]) F += ca[0] * rk[0][k];
            if (rk[1]) F += ca[1] * rk[1][k];
            if (rs[0]) f += cs[0] * rs[0][k];
            if (rs[1]) f += cs[1] * rs[1][k];
            if (rs[2]) f += cs[2] * rs[2][k];
            F_[k] = F;
            f_[k] = f;
            const double s = -f * ig_, G = 1.0 - y_[k] * F + s;
            G_[k] = G;
            S_[k] = s;
            sc.add(k, G, s, y_[k] > 0 ? 0 : 1, alpha_[k] > 0, beta_[k] > 0);
        }
        sc.finish();
        return sc;
    }

    // ----------------------------------------------------------------- shrinking
    // A point whose alpha and beta are both 0 and that no direction of the witness family can
    // raise at the current extremes leaves the active set (LIBSVM's shrinking, for aSMO's
    // directions): raising alpha_k needs G_k above the smallest G over alpha > 0 of its
    // class (I2) or above 2 min s(beta > 0) - max G of the other class (I3); raising beta_k
    // needs s_k above min s(beta > 0) (I1) or above the mean of the two classes' smallest G
    // over alpha > 0 (I3R). F and f stay exact on every point (apply updates them all), so
    // bringing points back costs one scan, and convergence is only declared on all points.
    void shrink(const Scan& sc) {
        double up_a[2];
        for (int c = 0; c < 2; ++c) {
            const double i2 = sc.gmin[c] >= 0 ? sc.vgmin[c] : INF;
            const double i3 = sc.sminb >= 0 && sc.gmax[1 - c] >= 0 ? 2 * sc.vsminb - sc.vgmax[1 - c] : INF;
            up_a[c] = std::min(i2, i3);
        }
        const double i1 = sc.sminb >= 0 ? sc.vsminb : INF;
        const double i3r = sc.gmin[0] >= 0 && sc.gmin[1] >= 0 ? 0.5 * (sc.vgmin[0] + sc.vgmin[1]) : INF;
        const double up_b = std::min(i1, i3r);
        size_t w = 0;
        for (int64_t k : active_) {
            const bool out = alpha_[k] == 0 && beta_[k] == 0 && G_[k] < up_a[y_[k] > 0 ? 0 : 1] && S_[k] < up_b;
            if (!out) active_[w++] = k;
        }
        active_.resize(w);
    }
    void unshrink() {
        active_.resize(static_cast<size_t>(n_));
        std::iota(active_.begin(), active_.end(), 0);
    }

    // aSMO with Newton steps on the free set: after as many SMO steps as there are free
    // variables (at least 10), one newton_step. Once the violation is <= tol, the solve goes
    // on to tol / 100 for at most a tenth more steps (at least 100): on the right free set the
    // Newton point is the optimum up to rounding, so this costs little and makes the dual
    // objective exact where a tol-accurate point may still be 1e-5 below it (Mackey-Glass,
    // C = gamma = 100). Past that budget it stops at the first point with violation <= tol.
    // The stopping rule is aSMO's: no direction of the witness family with slope > the target,
    // checked on all points. Shrinking every min(n, 1000) SMO steps; all points come back once
    // when the violation first falls below 10 tol (LIBSVM's rule) and before any stop.
    void run_asmo() {
        Scan sc = scan();
        int64_t since = 0, polish_end = -1, shrink_in = std::min<int64_t>(n_, 1000);
        double& target = tol_;
        bool unshrunk_near = false;
        for (;;) {
            violation_ = sc.max();
            const bool shrunk = static_cast<int64_t>(active_.size()) < n_;
            if (shrunk && (violation_ <= target || (!unshrunk_near && violation_ <= 10 * opt_.tol))) {
                unshrunk_near = unshrunk_near || violation_ <= 10 * opt_.tol;
                unshrink();
                sc = scan();
                continue;
            }
            if (violation_ <= target) {
                if (polish_end >= 0 || !(opt_.tol > 0)) { converged_ = true; return; }
                polish_end = iter_ + std::max<int64_t>(100, iter_ / 10);
                target = opt_.tol * 1e-2;
                since = kNewtonMax;  // a Newton step first
                continue;
            }
            if (polish_end >= 0 && iter_ >= polish_end && violation_ <= opt_.tol && !shrunk) {
                converged_ = true;
                return;
            }
            if (should_stop()) {
                if (shrunk) {  // the violation of all points, for the result
                    unshrink();
                    violation_ = scan().max();
                }
                return;
            }
            if (since >= std::max<int64_t>(10, std::min(sc.nfree, kNewtonMax))) {
                since = 0;
                if (newton_step()) {
                    sc = scan();
                    ++iter_;
                    continue;
                }
            }
            if (opt_.shrinking && --shrink_in <= 0) {
                shrink_in = std::min<int64_t>(n_, 1000);
                shrink(sc);
                sc = scan();
                continue;
            }
            ++since;
            const Direction dir = select(sc);
            if (dir.kind == NONE || !(dir.step > 0)) {
                if (shrunk) {  // nothing moves on the active points: try them all
                    unshrink();
                    sc = scan();
                    continue;
                }
                // nothing moves below tol: converged at tol, stalled above it
                if (violation_ <= opt_.tol) converged_ = true;
                else stalled_ = true;
                return;
            }
            sc = apply(dir);
            ++iter_;
        }
    }

    // ----------------------------------------------------------------- gSMO
    // One step optimises the four variables (alpha_s, alpha_t, beta_s, beta_t) of two examples.
    // With rho = y_s y_t and the two equalities, the moves are
    //     alpha_t += u, alpha_s -= rho u, beta_t += w - u, beta_s += rho u - w
    // (delta_t += w, delta_s -= w), and the gain separates:
    //     g_u u - A u^2 / 2 + g_w w - B w^2 / 2,   A = eta_K(s, t),  B = eta*(s, t) / gamma,
    //     g_u = (G_t - s_t) - rho (G_s - s_s),  g_w = s_t - s_s.
    // The feasible (u, w) form the paper's rectangle (rho = +1) or triangle (rho = -1) in other
    // coordinates; when the unconstrained maximiser is outside, the best point of each edge wins.
    //
    // Pairs alone cannot always finish: the directions that change only two examples are no
    // finite witness family for this feasible set. Example: every example with alpha > 0 has
    // beta = 0 and every example with beta > 0 has alpha = 0; then raising the largest-G alpha
    // of each class while lowering a third example's beta can be uphill although no pair can
    // improve. When the best pair's slope is <= tol but the witness family of aSMO (I1, I2, I3
    // with any third example) still has a violation > tol, gSMO takes one aSMO step on three
    // examples (counted in triple_steps) and goes back to pairs.

    struct PairChoice {
        int64_t s = -1, t = -1;
        double slope = -INF;
    };

    // The pair of maximal first-order slope over the directions within one pair: I1 and I2
    // pairs, and I3 / its reverse with the beta of one of the two examples.
    PairChoice select_pair() const {
        // per class c: max G; max (G - 2s) over beta > 0; min G and min (G - 2s) over alpha > 0
        double gmax[2] = {-INF, -INF}, gb[2] = {-INF, -INF}, gmin[2] = {INF, INF},
               ga[2] = {INF, INF};
        int64_t igmax[2] = {-1, -1}, igb[2] = {-1, -1}, igmin[2] = {-1, -1}, iga[2] = {-1, -1};
        double smax = -INF, sminb = INF;
        int64_t ismax = -1, isminb = -1;
        for (int64_t i = 0; i < n_; ++i) {
            const double s = grad_beta(i), G = grad_alpha(i);
            const int c = y_[i] > 0 ? 0 : 1;
            if (s > smax) { smax = s; ismax = i; }
            if (G > gmax[c]) { gmax[c] = G; igmax[c] = i; }
            if (beta_[i] > 0) {
                if (s < sminb) { sminb = s; isminb = i; }
                if (G - 2 * s > gb[c]) { gb[c] = G - 2 * s; igb[c] = i; }
            }
            if (alpha_[i] > 0) {
                if (G < gmin[c]) { gmin[c] = G; igmin[c] = i; }
                if (G - 2 * s < ga[c]) { ga[c] = G - 2 * s; iga[c] = i; }
            }
        }
        PairChoice best;
        auto offer = [&](double slope, int64_t a, int64_t b) {
            if (a >= 0 && b >= 0 && a != b && slope > best.slope) best = {a, b, slope};
        };
        if (isminb >= 0) offer(smax - sminb, ismax, isminb);                     // I1
        for (int c = 0; c < 2; ++c)
            if (igmin[c] >= 0) offer(gmax[c] - gmin[c], igmax[c], igmin[c]);    // I2
        for (int c = 0; c < 2; ++c) {
            const int o = 1 - c;
            // I3 with the beta of the class-c example: G_i + G_j - 2 s_i
            if (igb[c] >= 0 && igmax[o] >= 0) offer(gb[c] + gmax[o], igb[c], igmax[o]);
            // reverse with the beta of the class-c example: 2 s_i - G_i - G_j, alpha_i, alpha_j > 0
            if (iga[c] >= 0 && igmin[o] >= 0) offer(-ga[c] - gmin[o], iga[c], igmin[o]);
        }
        return best;
    }

    // Maximise the separable concave quadratic over the pair's feasible polygon; returns false
    // when the pair cannot move.
    bool pair_step(int64_t s, int64_t t) {
        const double rho = y_[s] * y_[t];
        const double as = alpha_[s], at = alpha_[t], bs = beta_[s], bt = beta_[t];
        const double Gs = grad_alpha(s), Gt = grad_alpha(t), ss = grad_beta(s), st = grad_beta(t);
        const double* rk = K_.row(s);
        const double A = std::max(K_.diag(s) + K_.diag(t) - 2 * rk[t], 0.0);
        const double* rs = Ks_.row(s);
        const double B = std::max(Ks_.diag(s) + Ks_.diag(t) - 2 * rs[t], 0.0) * ig_;
        const double gu = (Gt - st) - rho * (Gs - ss), gw = st - ss;
        auto value = [&](double u, double w) { return gu * u - 0.5 * A * u * u + gw * w - 0.5 * B * w * w; };
        // argmax of c1 x - c2 x^2 / 2 over [lo, hi]
        auto line_max = [](double c1, double c2, double lo, double hi) {
            if (c2 > TAU) return std::clamp(c1 / c2, lo, hi);
            return c1 > 0 ? hi : lo;
        };
        double bu = 0.0, bw = 0.0, bv = 0.0;  // the current point is feasible: never go down
        auto consider = [&](double u, double w) {
            const double v = value(u, w);
            if (v > bv) { bv = v; bu = u; bw = w; }
        };
        // feasibility: u >= -at, rho u <= as, w >= u - bt, w <= rho u + bs
        auto feasible = [&](double u, double w) {
            return u >= -at && rho * u <= as && w >= u - bt && w <= rho * u + bs;
        };
        bool inside = false;
        if (A > TAU && B > TAU) {
            const double u = gu / A, w = gw / B;
            if (feasible(u, w)) { consider(u, w); inside = true; }
        }
        if (!inside) {
            if (rho > 0) {  // u in [-at, as]; u - bt <= w <= u + bs
                for (double u : {-at, as}) consider(u, line_max(gw, B, u - bt, u + bs));
                // w = u - bt and w = u + bs: gain in u has slope gu + gw - B c, curvature A + B
                for (double c : {-bt, bs}) {
                    const double u = line_max(gu + gw - B * c, A + B, -at, as);
                    consider(u, u + c);
                }
            } else {  // u in [L, H]; u - bt <= w <= bs - u
                const double L = std::max(-at, -as), H = 0.5 * (bs + bt);
                consider(L, line_max(gw, B, L - bt, bs - L));
                double u = line_max(gu + gw + B * bt, A + B, L, H);
                consider(u, u - bt);
                u = line_max(gu - gw + B * bs, A + B, L, H);
                consider(u, bs - u);
            }
        }
        if (bu == 0.0 && bw == 0.0) return false;
        // new values; an emptied variable lands on exactly 0 (the rounding of an edge point)
        const double scale = 1e-14 * std::max({as + at + bs + bt, C_, 1.0});
        auto snap = [&](double v) { return v <= scale ? 0.0 : v; };
        const double nat = snap(at + bu), nas = snap(as - rho * bu);
        const double nbt = snap(bt + bw - bu), nbs = snap(bs + rho * bu - bw);
        if (nat == at && nas == as && nbt == bt && nbs == bs) return false;  // below rounding
        alpha_[s] = nas;
        alpha_[t] = nat;
        beta_[s] = nbs;
        beta_[t] = nbt;
        add_F(s, nas - as);
        add_F(t, nat - at);
        add_f(s, (nas + nbs) - (as + bs));
        add_f(t, (nat + nbt) - (at + bt));
        return true;
    }

    void run_gsmo() {
        for (;;) {
            const PairChoice pc = select_pair();
            if (pc.slope > opt_.tol) {
                violation_ = pc.slope;  // a lower bound of the full violation, for progress
                if (should_stop()) return;
                if (pair_step(pc.s, pc.t)) {
                    ++iter_;
                    continue;
                }
            }
            // no pair moves: check the full witness family, and take a three-example step
            const Scan sc = scan();
            violation_ = sc.max();
            if (violation_ <= opt_.tol) { converged_ = true; return; }
            if (should_stop()) return;
            const Direction dir = select(sc);
            if (dir.kind == NONE || !(dir.step > 0)) { stalled_ = true; return; }
            apply(dir);
            ++iter_;
            ++triple_steps_;
        }
    }
};

}  // namespace

// b and d are the multipliers of sum_i y_i alpha_i = 0 and sum_i delta_i = 0. With
// r_+ = b + d and r_- = d - b the optimality conditions read
//     G_i <= r_{y_i}  (= where alpha_i > 0),     s_i <= d = (r_+ + r_-) / 2  (= where beta_i > 0).
// alpha has no upper bound, so every alpha_i > 0 is free: r_c is the mean of G over the free
// alphas of class c (the spec), and b = (r_+ - r_-)/2, d = (r_+ + r_-)/2.
// A class without a free alpha only bounds r_c from below: r_c >= L_c = max_{i in c} G_i.
// (By sum_i y_i alpha_i = 0 one class has a free alpha iff the other has, and alpha = 0 is never
// optimal: there delta = 0 is optimal for beta, so s = 0, G = 1 and the I3 slope is 2. So this
// case arises only far from the optimum, e.g. after a tiny max_iter.) Then d is the midpoint of
// the interval the conditions leave it,
//     max(max_i s_i, (r_c + L_c') / 2 or (L_+ + L_-) / 2)  <=  d  <=  min_{beta_i > 0} s_i
// (its lower end when no beta is positive), and b follows from the known r_c, or, with neither
// known, is the midpoint of L_+ - d <= b <= d - L_-.
void svmplus_bias(const std::vector<double>& alpha, const std::vector<double>& beta,
                  const std::vector<int8_t>& y, const std::vector<double>& G,
                  const std::vector<double>& s, double& b, double& d) {
    OffsetEstimate rc[2];  // r_+ and r_-: every alpha_i > 0 is free, every G_i bounds r_c below
    double smax = -INF, sminb = INF;
    for (size_t i = 0; i < y.size(); ++i) {
        OffsetEstimate& e = rc[y[i] > 0 ? 0 : 1];
        if (alpha[i] > 0) e.add_free(G[i]);
        e.add_lower(G[i]);
        smax = std::max(smax, s[i]);
        if (beta[i] > 0) sminb = std::min(sminb, s[i]);
    }
    const bool known[2] = {rc[0].has_free(), rc[1].has_free()};
    const double r[2] = {known[0] ? rc[0].value() : 0.0, known[1] ? rc[1].value() : 0.0};
    const double L[2] = {rc[0].lower(), rc[1].lower()};
    if (known[0] && known[1]) {
        b = (r[0] - r[1]) / 2;
        d = (r[0] + r[1]) / 2;
        return;
    }
    double lo = smax;
    if (known[0]) lo = std::max(lo, (r[0] + L[1]) / 2);
    else if (known[1]) lo = std::max(lo, (r[1] + L[0]) / 2);
    else lo = std::max(lo, (L[0] + L[1]) / 2);
    d = std::isfinite(sminb) ? (lo + sminb) / 2 : lo;
    if (known[0]) b = r[0] - d;
    else if (known[1]) b = d - r[1];
    else b = ((L[0] - d) + (d - L[1])) / 2;
}

SVMPlusResult solve_svmplus(const SVMPlusProblem& pb, const SVMPlusOptions& opt) {
    const int64_t n = static_cast<int64_t>(pb.y.size());
    if (!pb.X || !pb.Xs || pb.X->n != n || pb.Xs->n != n)
        throw std::invalid_argument("X, X_star and y must have the same number of rows");
    bool pos = false, neg = false;
    for (int8_t v : pb.y) {
        if (v == 1) pos = true;
        else if (v == -1) neg = true;
        else throw std::invalid_argument("y must hold +1 or -1");
    }
    if (!pos || !neg) throw std::invalid_argument("y must hold both classes");
    if (!(pb.C > 0) || !(pb.gamma > 0)) throw std::invalid_argument("C and gamma must be positive");
    SVMPlusSolverImpl solver(pb, opt);
    return solver.run();
}

}  // namespace unl
