"""``unlabeled demo``: PUSVC on scikit-learn's breast cancer data against a naive SVC."""

from __future__ import annotations

import argparse
import time

__all__ = ["add_demo_parser", "demo"]


_HELP = "fit PUSVC on scikit-learn's breast cancer data and compare with a naive SVC"
_DESCRIPTION = (
    "Fit PUSVC on scikit-learn's bundled breast cancer data with a fraction of the positives "
    "labeled, and report F1 on the unlabeled part, the objective and the fit time, next to "
    "sklearn.svm.SVC trained with every unlabeled point as negative. Needs no network."
)


def add_demo_parser(sub) -> None:
    """The ``demo`` subcommand and its options."""
    p = sub.add_parser("demo", help=_HELP, description=_DESCRIPTION)
    p.add_argument(
        "--labeled-fraction",
        type=float,
        default=0.2,
        help="fraction of the positives that are labeled (default 0.2)",
    )
    p.add_argument("--lam", type=float, default=0.01, help="regularisation lambda (default 0.01)")
    p.add_argument("--seed", type=int, default=0, help="random seed of the labeling (default 0)")
    p.set_defaults(func=demo)


def _problem(args: argparse.Namespace):
    """The standardised data, the true classes and the PU labels: a random
    ``--labeled-fraction`` of the positives labeled (the paper's convention: the positive class
    is the one we label; here "benign", 1)."""
    import numpy as np
    from sklearn.datasets import load_breast_cancer
    from sklearn.preprocessing import StandardScaler

    X, y = load_breast_cancer(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    rng = np.random.default_rng(args.seed)
    positives = np.flatnonzero(y == 1)
    labeled = rng.choice(
        positives, size=int(round(args.labeled_fraction * positives.size)), replace=False
    )
    s = np.zeros(y.size, dtype=int)
    s[labeled] = 1
    return X, y, s


def _timed_fit(estimator, X, s) -> float:
    t0 = time.perf_counter()
    estimator.fit(X, s)
    return time.perf_counter() - t0


def demo(args: argparse.Namespace) -> int:
    """Fit PUSVC and the naive SVC with both kernels; print F1 on the unlabeled points."""
    import numpy as np  # deferred, as everything the help does not need
    from sklearn.metrics import f1_score
    from sklearn.svm import SVC

    from ..pu import PUSVC

    X, y, s = _problem(args)
    unl = s == 0
    prior = float(y[unl].mean())  # the true proportion of positives among the unlabeled
    lam = args.lam
    print(
        f"breast cancer: {X.shape[0]} points, {X.shape[1]} features; "
        f"{s.sum()} labeled positives ({args.labeled_fraction:.0%} of the positives), "
        f"{unl.sum()} unlabeled, prior among the unlabeled {prior:.3f}; lam = {lam}"
    )

    rows = []
    for kernel in ("rbf", "linear"):
        clf = PUSVC(prior=prior, lam=lam, kernel=kernel, random_state=args.seed)
        t = _timed_fit(clf, X, s)
        f1 = f1_score(y[unl], clf.predict(X[unl]))
        rows.append((f"PUSVC ({kernel})", f1, clf.objective_, t))

        # the naive approach: every unlabeled point is a negative, C matched to c2
        c2 = 1.0 / (2 * lam * unl.sum())
        svc = SVC(kernel=kernel, C=c2, gamma="scale")
        t = _timed_fit(svc, X, s)
        f1 = f1_score(y[unl], svc.predict(X[unl]))
        rows.append((f"SVC, unlabeled as negative ({kernel})", f1, float("nan"), t))

    print(f"\n{'method':<40} {'F1 (unlabeled)':>14} {'objective J':>12} {'fit time':>9}")
    for name, f1, obj, t in rows:
        o = "-" if np.isnan(obj) else f"{obj:.5f}"
        print(f"{name:<40} {f1:>14.3f} {o:>12} {t:>8.3f}s")
    return 0
