"""Usability frictions of issue 31: a missing required parameter, DataFrame inputs."""

import pytest
from conftest import small_pu

from unlabeled import PUSVC
from unlabeled.exceptions import InvalidParameterError
from unlabeled.pu import DoubleHingeQP, RampPU, USMOInit


@pytest.mark.parametrize("cls", [PUSVC, DoubleHingeQP, USMOInit, RampPU])
def test_missing_prior_names_it_and_the_choices(cls):
    X, s = small_pu()
    est = cls()
    with pytest.raises(InvalidParameterError, match=r"'prior'.*a number in \(0, 1\)") as info:
        est.fit(X, s)
    assert ("prior='auto'" in str(info.value)) == (cls is PUSVC)
    assert not hasattr(est, "prior_")  # refused before any work
