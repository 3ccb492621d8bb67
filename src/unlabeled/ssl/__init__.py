"""Semi-supervised learning: WellSVM and its baselines (the SVM on the labeled points, TSVM,
LapSVM), and CLSST (a variational Bayesian mixture of factor analysers).

Its modules: ``_base`` what the SVMs share (``standardize``, the transduction, more than two
classes one-vs-rest: ``estimators_``, a binary model of their own class per class, -1
unlabeled in each; LapSVM's classes share its graph solve); ``_wellsvm``, ``_tsvm``,
``_lapsvm``, ``_labeled`` the SVMs; ``_clsst`` CLSST, whose data passes are chunk kernels in
``_vbmfa`` (per-chunk statistics, summed, then the global update; the sweep's kernels in the
engine, ``_engine/vbmfa.*``): in memory one chunk, on Dask input row chunks persisted on the
workers and summed by the Dask layer's tree reduction (``_vbmfa_dask``; the per-point results
stay Dask arrays on the workers). CLSST+ on more than ``SEARCH_POINTS`` points searches its
births and deaths on a sample (the rows of smallest random key, a hash of the seed and the
row's index: the same rows however the data are chunked), then carries the model to all
points (``VBMFA.adopt``) and converges there."""

from ..registry import exported
from ._clsst import CLSST as CLSST
from ._labeled import LabeledSVM as LabeledSVM
from ._lapsvm import LapSVM as LapSVM
from ._tsvm import TSVM as TSVM
from ._wellsvm import WellSVM as WellSVM

__all__ = exported(__name__)
