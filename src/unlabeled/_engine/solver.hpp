// The pairwise (SMO) solver, written once for every kernel problem of the library:
//
//     min_alpha  1/2 alpha' Q alpha + p' alpha   s.t.  y' alpha = const,  0 <= alpha_t <= C_t
//
// with y_t in {+1, -1}. A problem supplies Q (a QMatrix), p, y, C and a feasible start and calls
// solve(). The solver keeps the gradient of every variable, selects pairs by second-order gain
// (Fan, Chen and Lin, JMLR 2005), shrinks variables that sit at a bound and are unlikely to move,
// and reconstructs the gradient before declaring optimality, following the design of LIBSVM's
// Solver (Chang and Lin, 2011).
//
// Like LIBSVM's Solver_NU, a problem with other constraints derives from Solver and overrides the
// protected virtual selection, shrinking and offset calculation. BoxSolver is such a derivative:
// the duals of SVMs without offset have no equality constraint, and it takes one-variable steps.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "common.hpp"

namespace unl {

// The two-variable step of SMO (LIBSVM's Solver) along the direction that keeps
// y_i a_i + y_j a_j fixed, for curvature terms Qii, Qjj, Qij of the problem's Q; updates ai, aj.
void smo_pair_step(double& ai, double& aj, double Ci, double Cj, double Gi, double Gj, double Qii,
                   double Qjj, double Qij, bool same_sign);

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
    // The solver is about to ask for the row of vars[0]; vars[1..k) are likely next. A
    // problem may compute the missing ones among them together (kernel rows in one pass).
    virtual void prefetch(const int64_t* vars, int k, int64_t len) { (void)vars, (void)k, (void)len; }
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
    double rho = 0.0;      // the multiplier of the equality constraint (0 without one)
    double violation = 0.0;
    double objective = 0.0;
};

class Solver {
public:
    virtual ~Solver() = default;
    // alpha: feasible start, overwritten by the solution; G_out (length l, may be null): the
    // final gradient Q alpha + p. Both in the caller's variable order. A problem that can
    // compute the starting gradient faster than row by row passes it as G0 = Q alpha + p and
    // G_bar0 = sum over upper-bounded t of C_t Q_t (both null: computed here); G_bar_out
    // (may be null) receives the final G_bar, which lets a warm start skip that work.
    SolveResult solve(int64_t l, QMatrix& Q, const double* p, const int8_t* y, const double* C,
                      double* alpha, double* G_out, const SolverOptions& opt,
                      const double* G0 = nullptr, const double* G_bar0 = nullptr,
                      double* G_bar_out = nullptr);

protected:
    enum Status : int8_t { LOWER = 0, UPPER = 1, FREE = 2 };

    int64_t l_ = 0, active_size_ = 0;
    QMatrix* Q_ = nullptr;
    const double* QD_ = nullptr;
    std::vector<int8_t> y_, status_;
    std::vector<double> alpha_, G_, G_bar_, p_, C_;
    std::vector<int64_t> active_set_;
    double eps_ = 1e-3;
    bool unshrink_ = false;

    bool upper(int64_t i) const { return status_[i] == UPPER; }
    bool lower(int64_t i) const { return status_[i] == LOWER; }
    bool is_free(int64_t i) const { return status_[i] == FREE; }

    // The working set: a pair (i, j), or j = -1 for a step on i alone. False when optimal to
    // eps on the active set; `violation` is the optimality gap.
    virtual bool select_working_set(int64_t& i, int64_t& j, double& violation);
    virtual void do_shrinking();
    virtual double calculate_rho() const;

    // Shrinking helpers for derived solvers: bring every variable back once when the gap is
    // small (shrinking decisions taken far from the optimum must not stall the last phase),
    // and move the variables for which `shrink` holds out of the active set.
    void unshrink_once_near(double gap);
    void shrink_where(const std::function<bool(int64_t)>& shrink);
    void reconstruct_gradient();

private:
    void update_status(int64_t i) {
        status_[i] = alpha_[i] >= C_[i] ? UPPER : (alpha_[i] <= 0 ? LOWER : FREE);
    }
    void swap_index(int64_t i, int64_t j);
    bool be_shrunk(int64_t i, double Gmax1, double Gmax2) const;
    void init_gradient(const double* G0, const double* G_bar0);
    void step_pair(int64_t i, int64_t j);
    void step_single(int64_t i);
    void update_G_bar(int64_t i, bool was_upper);
    double objective() const;
};

// min 1/2 alpha' Q alpha + p' alpha s.t. 0 <= alpha_t <= C_t: no equality constraint (the duals
// of SVMs without offset, as LIBLINEAR's). Steps on one variable, chosen by second-order gain
// PG_t^2 / Q_tt among the violators; the gap is max_t |PG_t| with PG the projected gradient.
// y is used only through Q; the result's rho is 0.
class BoxSolver : public Solver {
protected:
    bool select_working_set(int64_t& i, int64_t& j, double& violation) override;
    void do_shrinking() override;
    double calculate_rho() const override { return 0.0; }

private:
    double projected(int64_t t) const;
    std::vector<double> gain_;  // the selection's gains, per active variable
};

}  // namespace unl
