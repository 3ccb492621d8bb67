"""The warm-started search from the inside (``model_selection._search``): the candidates
are grouped into regularisation paths, one per setting of everything but lam."""

from sklearn.model_selection import ParameterGrid

from unlabeled.model_selection._search import _path_tasks


def test_path_tasks_group_by_everything_but_lam():
    cands = list(
        ParameterGrid({"lam": [1e-3, 1e-1, 1e-2], "gamma": [1.0, 2.0], "prior": [0.3, 0.4]})
    )
    tasks = _path_tasks(cands)
    assert len(tasks) == 4
    for path in tasks:
        assert [p["lam"] for _, p in path] == [1e-1, 1e-2, 1e-3]
        assert len({(p["gamma"], p["prior"]) for _, p in path}) == 1
    assert sorted(i for path in tasks for i, _ in path) == list(range(len(cands)))
