"""Multi-instance learning: bags of instances with one label per bag, a bag being positive
when at least one of its instances is. WellSVM's convex relaxation and the alternating
heuristics it replaces (mi-SVM and MI-SVM, Andrews et al. 2003), all on the engine."""

from ._andrews import MISVM, miSVM
from ._base import as_instances
from ._wellsvm import MILWellSVM

__all__ = ["MILWellSVM", "MISVM", "as_instances", "miSVM"]
