"""CLSST's merging of mixture components (ssl/_merge.py, private: the criterion is not
reachable from the public API apart from the fit that feeds it): the agglomeration by the
Gaussian classification likelihood against a brute-force agglomeration of the points
themselves, and the empty components' handling."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from unlabeled.ssl._merge import gaussian_merge


def groups(seed, n_groups=6, p=3):
    """Groups of points of different sizes, shapes and places; one-hot responsibilities."""
    rng = np.random.default_rng(seed)
    pts, labels = [], []
    for g in range(n_groups):
        m = rng.integers(15, 60)
        A = rng.normal(size=(p, p)) * rng.uniform(0.3, 2.0)
        pts.append(rng.normal(size=(m, p)) @ A + rng.normal(0, 4, p))
        labels += [g] * m
    X, labels = np.concatenate(pts), np.array(labels)
    R = np.eye(n_groups)[labels]
    means = np.array([X[labels == g].mean(0) for g in range(n_groups)])
    covs = np.array([np.cov(X[labels == g].T, bias=True) for g in range(n_groups)])
    return X, labels, R, means, covs


def brute_force(X, labels, n_groups, k):
    """Agglomerate the groups by N_ab ln|C_ab| - N_a ln|C_a| - N_b ln|C_b|, each C the
    (biased) covariance of the points themselves, every pair computed afresh each step."""

    def cost(members):
        pts = X[np.isin(labels, list(members))]
        return len(pts) * np.linalg.slogdet(np.cov(pts.T, bias=True))[1]

    clusters = [frozenset([g]) for g in range(n_groups)]
    while len(clusters) > k:
        deltas = {
            (a, b): cost(a | b) - cost(a) - cost(b) for a, b in itertools.combinations(clusters, 2)
        }
        assert min(deltas.values()) >= -1e-9  # pooling never raises the likelihood
        a, b = min(deltas, key=deltas.get)
        clusters = [c for c in clusters if c not in (a, b)] + [a | b]
    return {c for c in clusters}


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("k", [1, 2, 3, 5])
def test_merge_matches_a_brute_force_agglomeration_of_the_points(seed, k):
    X, labels, R, means, covs = groups(seed)
    got = gaussian_merge(R, means, covs, k)
    assert sorted(set(got.tolist())) == list(range(k))
    partition = {frozenset(np.flatnonzero(got == c).tolist()) for c in range(k)}
    assert partition == brute_force(X, labels, 6, k)
    firsts = [np.flatnonzero(got == c)[0] for c in range(k)]
    assert firsts == sorted(firsts)  # numbered in the order of their lowest component


def test_empty_components_join_the_one_they_overlap_and_form_no_cluster():
    X, labels, R, means, covs = groups(0, n_groups=4)
    n = len(X)
    empty = np.zeros((n, 2))
    empty[labels == 2, 0] = 1e-4  # a trace of group 2's points
    R2 = np.c_[R * (1 - empty.sum(1, keepdims=True)), empty]  # the rows still sum to 1
    means2 = np.r_[means, means[:1] + 50, means[:1] - 50]
    covs2 = np.r_[covs, covs[:2]]
    got = gaussian_merge(R2, means2, covs2, 4)
    np.testing.assert_array_equal(got[:4], np.arange(4))  # the four groups stay apart
    assert got[4] == got[2]  # the trace of group 2 joins it
    assert got[5] == got[int(np.argmax(R.sum(0)))]  # no overlap: the largest
    # asking more clusters than components that hold points gives those only
    assert gaussian_merge(R2, means2, covs2, 6).max() == 3
