"""Memory budgets from the inside: the memory the OS reports available bounds every dense
allocation, the budget is checked before the matrices are made, and LapSVM's own limit."""

import pytest
from conftest import by_name, is_kernel_mean, registered, small_pu

import unlabeled
from unlabeled import _budget
from unlabeled._budget import check_dense_budget
from unlabeled.exceptions import MemoryBudgetError
from unlabeled.pu import _priors_km


def test_memory_available_is_a_limit_too(monkeypatch):
    monkeypatch.setattr(_budget, "_available_bytes", lambda: 1000.0)
    with pytest.raises(MemoryBudgetError, match="of memory available; do this"):
        check_dense_budget(2000.0, "a matrix", "do this")
    check_dense_budget(999.0, "a matrix", "do this")


@pytest.mark.parametrize("cls", registered(is_kernel_mean), ids=by_name)
def test_prior_budget_checked_before_the_distances(monkeypatch, cls):
    """The budget check of tests/test_limits.py comes before the distance matrices: with the
    function that computes them gone, the fit is still refused for the budget."""
    monkeypatch.setattr(_priors_km, "sq_dists", None)
    X, s = small_pu()
    with unlabeled.config_context(max_dense_bytes=20_000):
        with pytest.raises(MemoryBudgetError, match="50 x 50"):
            cls(max_samples=None).fit(X, s)
