"""Model selection without negatives: PU-aware splitters and a warm-started parameter search.

In positive-unlabeled (PU) learning the held-out data carry PU labels ``s`` (1 = labeled
positive, 0 or -1 = unlabeled), not the classes ``y``. The splitters here
(:class:`PUStratifiedKFold`, :class:`PUStratifiedShuffleSplit`) stratify on ``s``, and
:class:`PUGridSearchCV` scores its candidates with the
PU metrics of :mod:`unlabeled.metrics` and walks each fold's regularisation path with warm
starts, through joblib (and so over a Dask cluster under ``joblib.parallel_backend("dask")``).

The metrics and scorers (``pu_risk``, ``pu_accuracy_score``, ``lee_liu_score``,
``make_pu_scorer``, ...) live in :mod:`unlabeled.metrics`, which depends on no search.

References
----------
M. C. du Plessis, G. Niu, M. Sugiyama, "Analysis of learning from positive and unlabeled data",
NIPS 2014. W. S. Lee, B. Liu, "Learning with positive and unlabeled examples using weighted
logistic regression", ICML 2003.
"""

from ._search import DEFAULT_GAMMA_FACTORS, DEFAULT_LAMS, PUGridSearchCV, default_param_grid
from ._split import PUStratifiedKFold, PUStratifiedShuffleSplit, check_pu_cv

__all__ = [
    "DEFAULT_GAMMA_FACTORS",
    "DEFAULT_LAMS",
    "PUGridSearchCV",
    "PUStratifiedKFold",
    "PUStratifiedShuffleSplit",
    "check_pu_cv",
    "default_param_grid",
]
