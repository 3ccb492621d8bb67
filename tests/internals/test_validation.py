"""The checks of ``unlabeled._validation`` on every input layout: gamma='scale' is the same
number, to the bit, for dense C and Fortran order, views, lists, CSR, CSC, COO and CSR with
duplicate entries (the fits on them: tests/test_layouts.py)."""

import numpy as np
import pytest
from problems import layouts

from unlabeled._validation import check_gamma


def test_gamma_scale_is_the_same_number_for_every_layout():
    """SVMPlus on CSC data differed from its dense fit by 1e-3 at default parameters: sparse
    X.var() was E[x^2] - E[x]^2 (and a Fortran-ordered X.var() sums in another order), one
    unit in the last place from the dense value, and that gamma sent SMO along another path
    to another point within tol. gamma='scale' is now computed to the same bits."""
    rng = np.random.default_rng(3)
    for X in (
        rng.normal(size=(38, 1)),
        np.where(rng.random((30, 4)) < 0.5, 0, rng.normal(size=(30, 4)) + 1e6),
    ):
        gammas = {
            k: check_gamma("scale", "rbf", np.asarray(A) if k == "list" else A)
            for k, A in layouts(X).items()
        }
        assert len(set(gammas.values())) == 1, gammas
        assert gammas["C"] == pytest.approx(1 / (X.shape[1] * X.var()), rel=1e-12)
