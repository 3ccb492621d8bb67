// The generic pairwise (SMO) solver, written once for every problem of the library:
//
//     min_alpha  1/2 alpha' Q alpha + p' alpha   s.t.  y' alpha = const,  0 <= alpha_t <= C_t
//
// with y_t in {+1, -1} and Q_ts = y_t y_s K(t, s). A problem supplies Q (through QMatrix),
// p, y, C and a feasible start. The solver keeps the gradient of every variable, selects
// pairs by second-order gain (Fan, Chen and Lin, JMLR 2005), shrinks variables that sit at
// a bound and are unlikely to move, and reconstructs the gradient before declaring
// optimality, following the design of LIBSVM's Solver (Chang and Lin, 2011).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <vector>

namespace unl {

struct Progress {
    int64_t iter;
    double violation;  // max_{up} -yG - min_{low} -yG (0 at the optimum)
    double objective;  // objective of the problem being solved (approximate while shrunk)
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

private:
    const ProgressFn& fn_;
    double interval_;
    std::chrono::steady_clock::time_point start_, last_;
};

class QMatrix {
public:
    virtual ~QMatrix() = default;
    // Q_{t, s} for the first `len` variables in the current order; valid until the next
    // call after the one that follows (two rows may be held at once).
    virtual const double* get_Q(int64_t t, int64_t len) = 0;
    virtual const double* get_QD() const = 0;
    virtual void swap_index(int64_t i, int64_t j) = 0;
    // The solver's active set is now the first `len` variables (called whenever it changes):
    // a problem may then compute rows only over the active variables.
    virtual void set_active_size(int64_t len) { (void)len; }
};

struct SolverOptions {
    double eps = 1e-3;
    bool shrinking = true;
    int64_t max_iter = -1;  // < 0: unlimited
    ProgressFn progress;
    double progress_interval = 0.2;  // seconds
};

struct SolveResult {
    int64_t iter = 0;
    bool converged = false;
    bool stopped = false;  // the progress callback asked to stop
    double rho = 0.0;      // the multiplier of the equality constraint
    double violation = 0.0;
    double objective = 0.0;
};

class Solver {
public:
    // alpha: feasible start, overwritten by the solution; G_out (length l, may be null): the
    // final gradient Q alpha + p. Both in the caller's variable order. A problem that can
    // compute the starting gradient faster than row by row passes it as G0 = Q alpha + p and
    // G_bar0 = sum over upper-bounded t of C_t Q_t (both null: computed here); G_bar_out
    // (may be null) receives the final G_bar, which lets a warm start skip that work.
    SolveResult solve(int64_t l, QMatrix& Q, const double* p, const int8_t* y, const double* C,
                      double* alpha, double* G_out, const SolverOptions& opt,
                      const double* G0 = nullptr, const double* G_bar0 = nullptr,
                      double* G_bar_out = nullptr);

private:
    enum Status : int8_t { LOWER = 0, UPPER = 1, FREE = 2 };

    int64_t l_ = 0, active_size_ = 0;
    QMatrix* Q_ = nullptr;
    const double* QD_ = nullptr;
    std::vector<int8_t> y_, status_;
    std::vector<double> alpha_, G_, G_bar_, p_, C_;
    std::vector<int64_t> active_set_;
    double eps_ = 1e-3;
    bool unshrink_ = false;

    void update_status(int64_t i) {
        status_[i] = alpha_[i] >= C_[i] ? UPPER : (alpha_[i] <= 0 ? LOWER : FREE);
    }
    bool upper(int64_t i) const { return status_[i] == UPPER; }
    bool lower(int64_t i) const { return status_[i] == LOWER; }
    bool is_free(int64_t i) const { return status_[i] == FREE; }

    void swap_index(int64_t i, int64_t j);
    void reconstruct_gradient();
    bool select_working_set(int64_t& i, int64_t& j, double& violation);
    bool be_shrunk(int64_t i, double Gmax1, double Gmax2) const;
    void do_shrinking();
    double calculate_rho() const;
    double objective() const;
};

}  // namespace unl
