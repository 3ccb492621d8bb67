#include "qp.hpp"

#include "qmatrix.hpp"

namespace unl {

QPResult solve_qp(const QPProblem& qp, const SolverOptions& opt, double cache_bytes) {
    Kernel K(*qp.X, qp.kernel);
    PointRows<double> rows(K, qp.rows, cache_bytes);
    PointQMatrix<double> Q(rows, qp.var_point, qp.y);
    QPResult res;
    res.alpha = qp.alpha0;
    res.G.resize(qp.alpha0.size());
    Solver solver;
    res.info = solver.solve(static_cast<int64_t>(qp.alpha0.size()), Q, qp.p.data(), qp.y.data(), qp.C.data(),
                            res.alpha.data(), res.G.data(), opt);
    res.kernel_rows = rows.rows_computed();
    return res;
}

}  // namespace unl
