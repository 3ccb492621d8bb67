"""The unlabeled marker of the semi-supervised estimators: scikit-learn's -1 in every dtype it
accepts (integers, floats, an object array holding the integer -1 among string labels, as
sklearn.semi_supervised), and a string "-1" refused. The reference: the same problem coded
with integer labels."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import is_kernel_machine, registered
from problems import ssl_problem

from unlabeled.ssl import CLSST

#: the semi-supervised SVMs (the kernel machines of the family)
SVMS = registered(is_kernel_machine, family="ssl")
NAMES = np.array(["no", "yes"])


def codings(y):
    """The integer coding and the object coding (string labels, the integer -1)."""
    as_object = NAMES[np.clip(y, 0, 1)].astype(object)
    as_object[y == -1] = -1
    return as_object


@pytest.mark.parametrize("cls", SVMS, ids=lambda c: c.__name__)
def test_svms_read_minus_one_in_every_dtype(cls):
    X, y, truth = ssl_problem(0, n_unl=30)
    ref = cls().fit(X, y)
    for coded, classes in ((y.astype(np.float64), [0.0, 1.0]), (codings(y), ["no", "yes"])):
        y_copy = coded.copy()
        clf = cls().fit(X, coded)
        np.testing.assert_array_equal(coded, y_copy)  # inputs are never modified
        assert list(clf.classes_) == classes
        np.testing.assert_array_equal(clf.decision_function(X), ref.decision_function(X))
    # score leaves out the points marked -1: the accuracy on the labeled ones (it crashed on
    # an object array: '<' not supported between instances of 'int' and 'str')
    test_y = np.where(np.arange(len(y)) % 3 == 0, -1, truth)
    clf = cls().fit(X, codings(y))
    expected = np.mean(clf.predict(X)[test_y != -1] == NAMES[truth[test_y != -1]])
    assert clf.score(X, codings(test_y)) == expected
    assert ref.score(X, test_y) == expected


@pytest.mark.parametrize("cls", registered(family="ssl"), ids=lambda c: c.__name__)
def test_a_string_minus_one_is_refused(cls):
    """Before: LabeledSVM on y in {"yes", "-1"} made "-1" a class and predicted it on all 46
    points; CLSST on {"no", "yes", "-1"} the same."""
    X, y, _ = ssl_problem(0, n_unl=30)
    one_class = np.where(y == 1, "yes", "-1")
    as_text = np.where(y == -1, "-1", NAMES[np.clip(y, 0, 1)])
    in_object = as_text.astype(object)
    for bad in (one_class, as_text, in_object):
        est = cls()
        with pytest.raises(ValueError, match=r"string '-1'.*integer -1.*dtype=object"):
            est.fit(X, bad)
        assert not hasattr(est, "classes_")  # a failed fit leaves it unfitted
    if cls in SVMS:
        clf = cls().fit(X, y)
        with pytest.raises(ValueError, match="string '-1'"):
            clf.score(X, as_text)


def test_clsst_reads_minus_one_in_every_dtype():
    X, y, _ = ssl_problem(1, n_unl=40, shift=2.5)
    ref = CLSST(random_state=0).fit(X, y)
    for coded in (y.astype(np.float64), codings(y)):
        clf = CLSST(random_state=0).fit(X, coded)
        names = clf.classes_[np.searchsorted(ref.classes_, ref.transduction_)]
        np.testing.assert_array_equal(clf.transduction_, names)
        np.testing.assert_allclose(clf.predict_proba(X), ref.predict_proba(X))
    with pytest.raises(ValueError, match="classes must not contain -1"):
        CLSST(classes=["no", "-1"]).fit(X, codings(y))
