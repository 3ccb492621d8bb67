"""Multi-instance learning: bags of instances with one label per bag, a bag being positive
when at least one of its instances is. WellSVM's convex relaxation and the alternating
heuristics it replaces (mi-SVM and MI-SVM, Andrews et al. 2003), all on the engine, and
BagTransformer, which puts a list of bags through a scikit-learn transformer (a scaler) in a
pipeline."""

from ..registry import exported
from ._andrews import MISVM as MISVM
from ._andrews import miSVM as miSVM
from ._base import as_instances
from ._transform import BagTransformer
from ._wellsvm import MILWellSVM as MILWellSVM

__all__ = ["BagTransformer", *exported(__name__), "as_instances"]
