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

}  // namespace

// w = c1 sum_P x_p - sum_U sigma_u x_u
std::vector<double> primal_w(const PUProblem& pb, const std::vector<double>& sigma) {
    std::vector<double> w(static_cast<size_t>(pb.X->d), 0.0);
    for (int32_t p : pb.pos) pb.X->axpy(p, pb.c1, w.data());
    for (size_t u = 0; u < pb.unl.size(); ++u) pb.X->axpy(pb.unl[u], -sigma[u], w.data());
    return w;
}

namespace {

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
// Linear kernel: the shared linear dual solver with one variable sigma_u per point and the
// double hinge as its kinked cost (slope -1 on [0, c2/2], +1 on [c2/2, c2]), with
// w = c1 sum_P x_p - sum_U sigma_u x_u kept: 1/2 ||w||^2 is the quadratic term plus
// -c1 h' sigma. On large problems the offset is found first: for a fixed beta the equality
// constraint goes into the linear term (a shift of -beta) and the dual separates into single
// coordinates; sum sigma(beta) grows with beta, so a bracketed secant search finds beta with
// sum sigma = c1 p, and the pair phase finishes the exact problem from there.

LinearDualProblem linear_problem(const PUProblem& pb) {
    const size_t n = pb.unl.size();
    LinearDualProblem lp;
    lp.X = pb.X;
    lp.row = pb.unl;
    lp.p.assign(n, -1.0);
    lp.kink.assign(n, pb.c2 / 2);
    lp.jump.assign(n, 2.0);
    lp.sign.assign(n, -1);
    lp.y.assign(n, 1);
    lp.C.assign(n, pb.c2);
    lp.w0.assign(static_cast<size_t>(pb.X->d), 0.0);
    for (int32_t r : pb.pos) pb.X->axpy(r, pb.c1, lp.w0.data());
    return lp;
}

// Moves the free points (strictly inside a segment of the double hinge) by delta_u =
// lam / ||x_u||^2 within their segments, lam chosen by bisection so that the sum moves by
// `gap` (or as far as they can): the gradients of all of them change alike, as under a shift
// of the offset, so the solution stays near-optimal. Returns what is left of the gap.
double shift_free(const PUProblem& pb, std::vector<double>& sigma, double gap) {
    const double half = pb.c2 / 2, dir = gap > 0 ? 1.0 : -1.0;
    std::vector<int64_t> free;
    std::vector<double> inv, room;
    for (size_t u = 0; u < sigma.size(); ++u) {
        const double v = sigma[u];
        if (v <= 0 || v == half || v >= pb.c2) continue;
        const double end = gap > 0 ? (v < half ? half : pb.c2) : (v < half ? 0.0 : half);
        const double xx = pb.X->self_dot(pb.unl[u]);
        free.push_back(static_cast<int64_t>(u));
        inv.push_back(1.0 / (xx > 0 ? xx : TAU));
        room.push_back(std::fabs(end - v));
    }
    double capacity = 0.0, hi = 0.0;
    for (size_t k = 0; k < free.size(); ++k) {
        capacity += room[k];
        hi = std::max(hi, room[k] / inv[k]);
    }
    const double want = std::fabs(gap);
    double lam = hi;
    if (capacity > want) {
        double lo = 0.0;
        for (int it = 0; it < 60; ++it) {
            lam = (lo + hi) / 2;
            double moved = 0.0;
            for (size_t k = 0; k < free.size(); ++k) moved += std::min(lam * inv[k], room[k]);
            (moved < want ? lo : hi) = lam;
        }
        lam = hi;
    }
    double left = want;
    for (size_t k = 0; k < free.size() && left > 0; ++k) {
        const double d = std::min({lam * inv[k], room[k], left});
        sigma[free[k]] += dir * d;
        left -= d;
    }
    return dir * left;
}

// Moves sum(sigma) to `total` inside [0, c2]: first the free points (shift_free), then, if
// the gap remains, the points that want to move most (largest f to raise, smallest to
// lower), each at most to its next state, so that every other point keeps its exact state
// for the pair solver.
void repair_total(const PUProblem& pb, std::vector<double>& sigma, const std::vector<double>& f, double total) {
    const double c2 = pb.c2, half = c2 / 2;
    double gap = total;
    for (double v : sigma) gap -= v;
    if (gap != 0.0) gap = shift_free(pb, sigma, gap);
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

// The offset search (see above); leaves sigma feasible.
void offset_search(const PUProblem& pb, const PUOptions& opt, LinearDual& ld, std::vector<double>& sigma) {
    const int64_t n = static_cast<int64_t>(sigma.size());
    const double total = pb.c1 * static_cast<double>(pb.pos.size());
    std::vector<double> g(static_cast<size_t>(n));
    auto refresh_g = [&] {
        for (int64_t u = 0; u < n; ++u) g[u] = -ld.wx(u);
    };
    refresh_g();
    double beta = std::isfinite(opt.beta0) ? opt.beta0 : pu_bias(sigma, g, pb.c2);
    bool stopped = false;
    double last_b = NaN, last_tol = INF;
    auto sum_at = [&](double b, double tol) {
        const double shrink0 = std::isfinite(last_b) ? last_tol + std::fabs(b - last_b) : INF;
        stopped = ld.solve_box(b, tol, shrink0).stopped;
        last_b = b;
        last_tol = tol;
        double sum = 0.0;
        for (double v : sigma) sum += v;
        return sum;
    };
    auto capped = [&] { return opt.max_iter >= 0 && ld.updates() >= opt.max_iter; };
    // The search runs the descent to 4 tol per point; the offset found is then polished to
    // tol, and the pair phase takes the last step to tol (tighter polishing cost more in the
    // descent's slow tail than it saved the pairs: 1.0-1.3 s against 1.0-1.7 s at 1M).
    bool polished = false;
    // S(beta) = sum sigma(beta) is non-decreasing (with jumps where identical points change
    // state together): secant steps until a bracket [lo, hi] is known, then regula falsi with
    // the Illinois halving (a plain secant crept towards a jump by ever smaller steps). An
    // offset within the solve's tolerance of the root is as good as the root: the pairs and
    // the repair below take the rest.
    double lo = -INF, hi = INF, r_lo = NaN, r_hi = NaN, prev_b = NaN, prev_r = NaN;
    int last_side = 0;
    const double enough = std::max(1e-4 * total, pb.c2);
    for (int k = 0; k < 40 && !stopped && !capped(); ++k) {
        const double tol = polished ? opt.tol : 4 * opt.tol;
        double r = sum_at(beta, tol) - total;
        if (std::fabs(r) <= enough && !polished) {
            polished = true;
            r = sum_at(beta, opt.tol) - total;
        }
        if (std::fabs(r) <= enough) break;
        const int side = r < 0 ? -1 : 1;
        if (side < 0) { lo = beta; r_lo = r; } else { hi = beta; r_hi = r; }
        const bool bracket = std::isfinite(lo) && std::isfinite(hi);
        if (bracket && hi - lo <= std::max(tol, 1e-12 * std::max(1.0, std::fabs(beta)))) break;
        if (bracket && side == last_side) (side < 0 ? r_hi : r_lo) /= 2;
        double next = NaN;
        if (bracket) next = lo - r_lo * (hi - lo) / (r_hi - r_lo);
        else if (std::isfinite(prev_b) && r != prev_r) next = beta - r * (beta - prev_b) / (r - prev_r);
        if (!std::isfinite(next)) next = beta - side * 0.1;
        if (bracket && !(next > lo && next < hi)) next = (lo + hi) / 2;
        last_side = side;
        prev_b = beta;
        prev_r = r;
        beta = next;
    }
    refresh_g();
    for (int64_t u = 0; u < n; ++u) g[u] += beta;
    repair_total(pb, sigma, g, total);
    ld.recompute_w();  // also drops the rounding drift of the updates
}

void solve_linear(const PUProblem& pb, const PUOptions& opt, PUResult& res) {
    const int64_t n = static_cast<int64_t>(pb.unl.size());
    const LinearDualProblem lp = linear_problem(pb);
    LinearDualOptions lo;
    lo.tol = opt.tol;
    lo.shrinking = opt.shrinking;
    lo.max_iter = opt.max_iter;
    lo.max_epochs = 200;
    lo.seed = opt.seed;
    lo.progress = opt.progress;
    LinearDual ld(lp, res.sigma, lo);
    bool stopped = false;
    if (opt.linear_cd == 1 || (opt.linear_cd < 0 && n >= 5000)) {
        offset_search(pb, opt, ld, res.sigma);
        stopped = ld.stopped();
    }
    LinearDualResult r;
    if (!stopped) r = ld.solve_pairs(opt.tol);
    // a pair step's clipping can leave a few ulps above 0 (sum - C): such a variable is at its
    // bound, and counting it as free would bias the offset
    snap_states(res.sigma, pb.c2);
    for (int64_t u = 0; u < n; ++u) res.g_unl[u] = -ld.wx(u);
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
