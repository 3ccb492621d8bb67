// What every part of the engine shares: numerical constants, the progress clock through which a
// long solve reports (and can be stopped), and the offset of an equality constraint from the
// optimality conditions.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <limits>

namespace unl {

constexpr double INF = std::numeric_limits<double>::infinity();
constexpr double NaN = std::numeric_limits<double>::quiet_NaN();
// curvature floor for steps with eta <= 0 (duplicate points, non-PSD rounding noise), as LIBSVM
constexpr double TAU = 1e-12;

struct Progress {
    int64_t iter;
    double violation;  // the solver's optimality gap (0 at the optimum)
    double objective;  // objective of the problem being solved (NaN where not tracked)
    double elapsed;    // seconds since the solver started
};

// Called a few times per second at most; returning true stops the solver.
using ProgressFn = std::function<bool(const Progress&)>;

// Throttles a ProgressFn: cheap enough to call on every iteration.
class ProgressClock {
public:
    ProgressClock(const ProgressFn& fn, double interval) : fn_(fn), interval_(interval) {
        start_ = last_ = std::chrono::steady_clock::now();
    }
    double elapsed() const {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    }
    // true if a report is due now (a clock read costs ~20 ns: cheap next to any solver step)
    bool due() {
        if (!fn_) return false;
        auto now = std::chrono::steady_clock::now();
        if (std::chrono::duration<double>(now - last_).count() < interval_) return false;
        last_ = now;
        return true;
    }
    bool report(int64_t iter, double violation, double objective) {
        return fn_ && fn_(Progress{iter, violation, objective, elapsed()});
    }
    // report if due; true if the callback asked to stop
    bool poll(int64_t iter, double violation, double objective = NaN) {
        return due() && report(iter, violation, objective);
    }

private:
    const ProgressFn& fn_;
    double interval_;
    std::chrono::steady_clock::time_point start_, last_;
};

// The multiplier r of one equality constraint from the optimality conditions of its variables,
// each seen as v = y_t G_t: free variables satisfy v = r, variables at a bound only bound r from
// one side. r is the mean over the free variables (robust to rounding), else the midpoint of
// the interval the bound variables leave (LIBSVM's calculate_rho; Solver_NU takes one per class).
class OffsetEstimate {
public:
    void add_free(double v) { sum_ += v; ++n_free_; }
    void add_upper(double v) { ub_ = std::min(ub_, v); }  // r <= v
    void add_lower(double v) { lb_ = std::max(lb_, v); }  // r >= v
    bool has_free() const { return n_free_ > 0; }
    double lower() const { return lb_; }
    double upper() const { return ub_; }
    double value() const {
        if (n_free_ > 0) return sum_ / static_cast<double>(n_free_);
        if (ub_ == INF) return lb_;
        if (lb_ == -INF) return ub_;
        return (ub_ + lb_) / 2;
    }

private:
    double sum_ = 0.0, ub_ = INF, lb_ = -INF;
    int64_t n_free_ = 0;
};

}  // namespace unl
