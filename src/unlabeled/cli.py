"""The ``unlabeled`` command."""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np


def _demo(args: argparse.Namespace) -> int:
    from sklearn.datasets import load_breast_cancer
    from sklearn.metrics import f1_score
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC

    from . import PUSVC

    X, y = load_breast_cancer(return_X_y=True)
    # the paper's convention: the positive class is the one we label; here "benign" (1)
    X = StandardScaler().fit_transform(X)
    rng = np.random.default_rng(args.seed)
    positives = np.flatnonzero(y == 1)
    labeled = rng.choice(
        positives, size=int(round(args.labeled_fraction * positives.size)), replace=False
    )
    s = np.zeros(y.size, dtype=int)
    s[labeled] = 1
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
        t0 = time.perf_counter()
        clf.fit(X, s)
        t = time.perf_counter() - t0
        f1 = f1_score(y[unl], clf.predict(X[unl]))
        rows.append((f"PUSVC ({kernel})", f1, clf.objective_, t))

        # the naive approach: every unlabeled point is a negative, C matched to c2
        c2 = 1.0 / (2 * lam * unl.sum())
        svc = SVC(kernel=kernel, C=c2, gamma="scale")
        t0 = time.perf_counter()
        svc.fit(X, s)
        t = time.perf_counter() - t0
        f1 = f1_score(y[unl], svc.predict(X[unl]))
        rows.append((f"SVC, unlabeled as negative ({kernel})", f1, float("nan"), t))

    print(f"\n{'method':<40} {'F1 (unlabeled)':>14} {'objective J':>12} {'fit time':>9}")
    for name, f1, obj, t in rows:
        o = "-" if np.isnan(obj) else f"{obj:.5f}"
        print(f"{name:<40} {f1:>14.3f} {o:>12} {t:>8.3f}s")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="unlabeled",
        description="Learning from unlabeled and weakly labeled data with exact kernel solvers.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser(
        "demo",
        help="fit PUSVC on scikit-learn's breast cancer data and compare with a naive SVC",
        description="Fit PUSVC on scikit-learn's bundled breast cancer data with a fraction of "
        "the positives labeled, and report F1 on the unlabeled part, the objective and the fit "
        "time, next to sklearn.svm.SVC trained with every unlabeled point as negative. "
        "Needs no network.",
    )
    demo.add_argument(
        "--labeled-fraction",
        type=float,
        default=0.2,
        help="fraction of the positives that are labeled (default 0.2)",
    )
    demo.add_argument(
        "--lam", type=float, default=0.01, help="regularisation lambda (default 0.01)"
    )
    demo.add_argument("--seed", type=int, default=0, help="random seed of the labeling (default 0)")
    demo.set_defaults(func=_demo)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "demo" and not 0 < args.labeled_fraction <= 1:
        parser.error("--labeled-fraction must be in (0, 1]")
    if args.command == "demo" and not args.lam > 0:
        parser.error("--lam must be > 0")
    try:
        return args.func(args)
    except (ValueError, TypeError, OSError) as exc:
        print(f"unlabeled: error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
