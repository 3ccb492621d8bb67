"""The compiled solver engine (C++17, nanobind). Internal: use the estimators instead."""

from ._core import pu_start_weights, solve_pu, solve_qp, solve_svmplus

__all__ = ["pu_start_weights", "solve_pu", "solve_qp", "solve_svmplus"]
