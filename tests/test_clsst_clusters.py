"""CLSST(n_clusters=k): the fitted components merged into k clusters (issue 52). The merge
is a partition of the components that leaves the mixture as it was, predict_proba sums the
responsibilities of each cluster's components, well-separated blobs split into more
components than clusters are recovered, too few components are split until there are k,
and the parameter is checked before any work. The criterion against a brute-force
agglomeration of the points: tests/internals/test_merge.py."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import adjusted_rand_score

import unlabeled
from unlabeled.exceptions import InvalidParameterError
from unlabeled.ssl import CLSST


def blobs(n_blobs=3, per=80, seed=0, spread=10.0):
    """Well-separated round blobs at the corners of a grid (unit variance)."""
    rng = np.random.default_rng(seed)
    centres = spread * np.array([[0, 0], [1, 0], [0, 1], [1, 1]])[:n_blobs]
    X = np.concatenate([rng.normal(c, 1.0, (per, 2)) for c in centres])
    return X, np.repeat(np.arange(n_blobs), per)


def triangles(seed=0):
    """Two groups far apart, each three blobs at the corners of a triangle: one factor
    analyser does not fit a group, and birth and death find a component per blob."""
    rng = np.random.default_rng(seed)
    corners = np.array([(0, 0), (5, 0), (2.5, 4.3)])
    centres = np.r_[corners, corners + [0, 16]]
    X = np.concatenate([rng.normal(c, 0.7, (50, 2)) for c in centres])
    return X, np.repeat([0, 0, 0, 1, 1, 1], 50)


@pytest.mark.parametrize("n_clusters", [1, 2, 3, 4])
def test_merge_is_a_partition_that_leaves_the_mixture_as_it_was(n_clusters):
    X, _ = blobs(n_blobs=4, per=40, spread=4.0)
    X_copy = X.copy()
    plain = CLSST(n_components=4, random_state=0).fit(X)
    assert (plain.predict_proba(X).sum(0) >= 1).all()  # every component holds points
    merged = CLSST(n_components=4, n_clusters=n_clusters, random_state=0).fit(X)
    np.testing.assert_array_equal(X, X_copy)
    # the same mixture: the merge only groups its components
    np.testing.assert_array_equal(merged.means_, plain.means_)
    assert merged.lower_bound_ == plain.lower_bound_
    np.testing.assert_array_equal(merged.predict_cluster(X), plain.predict_cluster(X))
    # exactly n_clusters clusters, each component in one of them
    g = merged.component_clusters_
    assert g.shape == (4,) and sorted(set(g.tolist())) == list(range(n_clusters))
    np.testing.assert_array_equal(merged.classes_, np.arange(n_clusters))
    np.testing.assert_array_equal(merged.class_association_, np.eye(n_clusters)[g])
    # a cluster's probability is the sum of its components' responsibilities
    P, R = merged.predict_proba(X), plain.predict_proba(X)
    assert P.shape == (len(X), n_clusters)
    np.testing.assert_allclose(P, np.stack([R[:, g == c].sum(1) for c in range(n_clusters)], 1))
    np.testing.assert_array_equal(merged.predict(X), P.argmax(1))
    assert set(np.unique(merged.labels_)) <= set(range(n_clusters))
    np.testing.assert_array_equal(merged.transduction_, merged.labels_)
    assert "component_clusters_" not in vars(plain)  # n_clusters=None: as before


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_blobs_split_into_more_components_are_recovered(seed):
    X, y = blobs(n_blobs=3, seed=seed)
    model = CLSST(n_components=7, n_clusters=3, random_state=seed).fit(X)
    assert model.n_components_ == 7
    assert adjusted_rand_score(y, model.labels_) == 1.0
    assert adjusted_rand_score(y, model.predict(X)) == 1.0


@pytest.mark.parametrize("seed", [0, 1])
def test_groups_found_as_several_components_are_merged_into_them(seed):
    X, y = triangles(seed)
    model = CLSST(n_clusters=2, random_state=seed).fit(X)
    assert model.n_components_ == 6  # birth and death: a component per blob
    assert adjusted_rand_score(y, model.labels_) == 1.0
    assert adjusted_rand_score(y, model.predict(X)) == 1.0


def test_too_few_components_are_split_until_there_are_enough():
    """Two uniform squares: birth and death find a component each; asked for 3 clusters,
    one square is split (a uniform square is no Gaussian: both halves keep points)."""
    rng = np.random.default_rng(0)
    X = np.r_[rng.uniform(0, 4, (80, 2)), rng.uniform(0, 4, (80, 2)) + [10, 0]]
    y = np.repeat([0, 1], 80)
    assert CLSST(random_state=0).fit(X).n_components_ == 2
    model = CLSST(n_clusters=3, random_state=0).fit(X)
    assert model.n_components_ == 3
    assert sorted(set(model.component_clusters_.tolist())) == [0, 1, 2]
    assert len(np.unique(model.labels_)) == 3
    # splitting a square never joins two: each cluster lies within one square
    assert all(len(set(y[model.labels_ == c])) == 1 for c in range(3))


def test_fewer_components_that_hold_points_than_clusters_warn():
    """A fixed n_components on 3 round blobs: the forced splits beyond 3 end empty (no
    points to cluster), and 5 clusters cannot be formed: 3, with a warning that says so."""
    X, y = blobs(n_blobs=3)
    with pytest.warns(UserWarning, match="holds points in 3 components, fewer than"):
        model = CLSST(n_components=6, n_clusters=5, random_state=0).fit(X)
    np.testing.assert_array_equal(model.classes_, np.arange(3))
    assert adjusted_rand_score(y, model.labels_) == 1.0


def test_model_file_keeps_the_clusters(tmp_path):
    X, _ = blobs()
    model = CLSST(n_components=5, n_clusters=3, random_state=0).fit(X)
    path = tmp_path / "merged.skops"
    unlabeled.save(model, path)
    back = unlabeled.load(path)
    assert back.n_clusters == 3
    np.testing.assert_array_equal(back.component_clusters_, model.component_clusters_)
    np.testing.assert_array_equal(back.predict_proba(X), model.predict_proba(X))


@pytest.mark.parametrize(
    ("kwargs", "y", "match"),
    [
        ({"n_clusters": 3, "n_components": 2}, None, "cannot form n_clusters=3"),
        ({"n_clusters": 61}, None, "exceeds the number of samples 60"),
    ],
)
def test_n_clusters_refused_against_the_data_before_any_work(kwargs, y, match, monkeypatch):
    X, _ = blobs(n_blobs=2, per=30)
    model = CLSST(random_state=0, **kwargs)
    with pytest.raises(ValueError, match=match):
        model.fit(X, y)
    assert not hasattr(model, "n_components_")


@pytest.mark.parametrize(
    ("kwargs", "y"),
    [({}, np.r_[0, 1, np.full(58, -1)]), ({"classes": [0, 1]}, None)],
)
def test_n_clusters_ignored_with_a_warning_when_classes_are_predicted(kwargs, y):
    X, _ = blobs(n_blobs=2, per=30)
    with pytest.warns(UserWarning, match="n_clusters=3 is ignored"):
        model = CLSST(n_clusters=3, random_state=0, **kwargs).fit(X, y)
    plain = CLSST(random_state=0, **kwargs).fit(X, y)
    assert "component_clusters_" not in vars(model)
    np.testing.assert_array_equal(model.predict_proba(X), plain.predict_proba(X))
    np.testing.assert_array_equal(model.labels_, plain.labels_)


@pytest.mark.parametrize("bad", [0, -1, 2.5, "2"])
def test_n_clusters_must_be_a_positive_int(bad):
    X, _ = blobs(n_blobs=2, per=30)
    with pytest.raises(InvalidParameterError, match="n_clusters"):
        CLSST(n_clusters=bad).fit(X)


def test_n_clusters_refused_on_dask_input_before_any_work(dask_client):
    da = pytest.importorskip("dask.array")
    X, _ = blobs(n_blobs=2, per=30)
    model = CLSST(n_clusters=2)
    with pytest.raises(ValueError, match="Dask input does not keep"):
        model.fit(da.from_array(X, chunks=20))
    assert not hasattr(model, "n_components_")
