"""The estimators the command fits: one table of names, classes and families.

Nothing here imports an estimator at module level: ``unlabeled --help`` must not pay for
scikit-learn. :func:`estimator_class` imports the one subpackage asked for.
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["ESTIMATORS", "FAMILIES", "estimator_class", "family_of_class"]


class Entry(NamedTuple):
    package: str  # the subpackage of unlabeled that defines it
    cls: str
    family: str
    summary: str


#: --estimator NAME -> where its class lives, its data layout (family) and a line of help
ESTIMATORS: dict[str, Entry] = {
    "pusvc": Entry("pu", "PUSVC", "pu", "positive-unlabeled double-hinge SVM (the default)"),
    "wellsvm": Entry("ssl", "WellSVM", "ssl", "semi-supervised SVM, WellSVM's convex relaxation"),
    "tsvm": Entry("ssl", "TSVM", "ssl", "transductive SVM (label switching)"),
    "lapsvm": Entry("ssl", "LapSVM", "ssl", "Laplacian SVM (manifold regularisation)"),
    "labeledsvm": Entry("ssl", "LabeledSVM", "ssl", "SVM on the labeled rows only (a baseline)"),
    "clsst": Entry("ssl", "CLSST", "ssl", "variational Bayesian mixture of factor analysers"),
    "mil-wellsvm": Entry("mil", "MILWellSVM", "mil", "multi-instance WellSVM"),
    "misvm": Entry("mil", "MISVM", "mil", "MI-SVM (Andrews et al.), bag-level alternation"),
    "mi-svm": Entry("mil", "miSVM", "mil", "mi-SVM (Andrews et al.), instance-level alternation"),
    "clustering": Entry("cluster", "WellSVMClustering", "cluster", "maximum-margin clustering"),
    "svmplus": Entry("lupi", "SVMPlus", "lupi", "SVM+ with privileged columns at fit time"),
    "autoencoder": Entry(
        "generative", "PlummerAutoencoder", "generative", "Plummer autoencoder (needs torch)"
    ),
}

#: family -> how its data file is laid out, for the help
FAMILIES = {
    "pu": "label column: --positive-value (default 1) marks the labeled positives, "
    "anything else is unlabeled",
    "ssl": "label column: two classes, -1 marks an unlabeled row",
    "mil": "--bag-column holds each row's bag id, the label column the bag's label (the same "
    "on each of its rows); predictions are one per bag",
    "lupi": "label column with two classes; --privileged-columns a,b,c are used by fit only",
    "cluster": "no label column (every column but --ignore-column is a feature)",
    "generative": "no label column (every column but --ignore-column is a feature)",
}


def estimator_class(name: str) -> type:
    """The class of ``--estimator name``, importing only its subpackage (deferred: each costs
    scikit-learn and the engine, which ``--help`` of other commands must not load)."""
    entry = ESTIMATORS[name]
    if entry.package == "pu":
        from .. import pu as module
    elif entry.package == "ssl":
        from .. import ssl as module  # type: ignore[no-redef]
    elif entry.package == "mil":
        from .. import mil as module  # type: ignore[no-redef]
    elif entry.package == "cluster":
        from .. import cluster as module  # type: ignore[no-redef]
    elif entry.package == "lupi":
        from .. import lupi as module  # type: ignore[no-redef]
    else:
        from .. import generative as module  # type: ignore[no-redef]
    return getattr(module, entry.cls)


def family_of_class(class_name: str) -> str | None:
    """The family of a saved model's class (its last dotted part), or None when the command
    does not fit it."""
    for entry in ESTIMATORS.values():
        if entry.cls == class_name:
            return entry.family
    return None
