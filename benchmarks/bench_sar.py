"""Labels not selected completely at random (SAR): the SCAR fit, the SAR path and pulearn.

    python benchmarks/bench_sar.py            # generated data and 9 tables, 3 labelings each
    python benchmarks/bench_sar.py --quick    # smoke: 600 rows of generated data and banknote

Data. Generated: 4 standard normal features, P(y=1 | x) = sigmoid(3 x0 + x2 - 1), and the
labeling depends on x1, a feature independent of the class: a positive is labeled with
probability e(x) = sigmoid(3 x1 - 1.5). Tables (benchmarks/_harness/pu_tables.py, from both
halves): features standardised, at most 2,000 rows (a stratified subset, seed 0); the
labeling depends on the column j least correlated with the class among those with at least
10 distinct values: e(x) = sigmoid(3 z_j + b), b such that 30% of the positives are labeled
on average. SCAR labelings of the same data (each positive labeled with probability 0.3) test
the SCAR check's false alarms. Each labeling seed draws the labels and a stratified half of
the rows for training; the other half is the test set.

Methods, each ranking the points; predictions put the true share of positives among the
training unlabeled points above the threshold (threshold="prior" at the true prior for all,
so F1 measures the ranking, not the prior estimate):
  SCAR        PUSVC(prior=true) on (X, s): the default, SCAR path
  SAR         SAREM(propensity_features=[j]) estimates e(x); PUSVC(prior=true).fit(X, s,
              propensity=max(e, 0.05)): Bekker et al.'s SAR risk, labeled positives by 1 / e
  SAR-oracle  the same with the true e(x)
  SAREM       SAREM's own classifier P(y=1 | x) (logistic on the columns and their squares)
  pulearn-SAR pulearn 0.2.0's SAR weighting: compute_inverse_propensity_weights (1 / e,
              clipped at 0.05, normalised) of the same SAREM propensities as sample weights
              of the labeled positives in pulearn's BaggingPuClassifier(SVC, 10 estimators)
The other PU classifiers' SAR path (second table), each fitted twice on the same labeling,
SCAR (fit(X, s)) and SAR (fit(X, s, propensity=max(e_hat, 0.05)), SAREM's e_hat as above),
with their defaults: NNPUClassifier(prior=true) (linear), NNPUMLPClassifier(prior=true)
(with torch), BiasedSVM(), BaggingPUClassifier(), ElkanNotoClassifier(weighted=True); the
same threshold rule, so F1 compares their rankings.
Metric: F1 on the test set (true labels). SCAR check: unlabeled.pu.sar.scar_check (defaults,
random_state = the seed) on the training set of every SAR and SCAR labeling, and pulearn's
scar_sanity_check (cross-fitted logistic scores, its defaults) beside it.

Writes benchmarks/results/bench_sar.md (or bench_sar-quick.md).
"""

from __future__ import annotations

import time
import warnings

import _harness as bench
import numpy as np
from _harness import pu_tables
from scipy.special import expit
from scipy.stats import spearmanr
from sklearn.metrics import f1_score
from sklearn.model_selection import train_test_split

from unlabeled import PUSVC
from unlabeled.pu import (
    BaggingPUClassifier,
    BiasedSVM,
    ElkanNotoClassifier,
    NNPUClassifier,
    NNPUMLPClassifier,
)
from unlabeled.pu.sar import SAREM, scar_check

TABLES = (
    "australian", "winequality-white", "krvskp",  # tuning half
    "diabetes", "banknote", "phoneme", "breast_cancer", "pendigits", "abalone",  # confirmation
)  # fmt: skip
QUICK_TABLES = ("banknote",)
METHODS = ("SCAR", "SAR", "SAR-oracle", "SAREM", "pulearn-SAR")
#: the other classifiers of the second table: name -> a factory of the prior
OTHERS = {
    "nnPU": lambda prior, seed: NNPUClassifier(prior=prior, random_state=seed),
    "nnPU-MLP": lambda prior, seed: NNPUMLPClassifier(prior=prior, random_state=seed),
    "biased SVM": lambda prior, seed: BiasedSVM(random_state=seed),
    "bagging SVM": lambda prior, seed: BaggingPUClassifier(random_state=seed),
    "Elkan-Noto (w)": lambda prior, seed: ElkanNotoClassifier(weighted=True, random_state=seed),
}
MAX_ROWS = 2000
FREQUENCY = 0.3  # the average share of the positives labeled
CLIP = 0.05  # propensities below are raised to it (pulearn's clip_min): weights at most 19


def generated(n, seed):
    """(X, y, propensity, propensity column) of the generated problem."""
    rng = np.random.default_rng(10_000 + seed)
    X = rng.normal(size=(n, 4))
    y = (rng.random(n) < expit(3 * X[:, 0] + X[:, 2] - 1)).astype(int)
    return X, y, expit(3 * X[:, 1] - 1.5), 1


def table(name, max_rows=MAX_ROWS):
    """(X standardised, y, propensity column) of a table."""
    X, y = pu_tables.load(name, max_rows=max_rows)
    sd = X.std(axis=0)
    X = (X - X.mean(axis=0)) / np.where(sd > 0, sd, 1.0)
    distinct = np.array([np.unique(c).size for c in X.T])
    corr = np.array(
        [abs(spearmanr(c, y)[0]) if d >= 10 else np.inf for c, d in zip(X.T, distinct, strict=True)]
    )
    return X, y, int(np.nanargmin(corr))


def sar_propensity(z, y):
    """sigmoid(3 z + b), b by bisection so that the positives' mean is FREQUENCY."""
    lo, hi = -20.0, 20.0
    for _ in range(60):
        b = (lo + hi) / 2
        lo, hi = (b, hi) if expit(3 * z[y == 1] + b).mean() < FREQUENCY else (lo, b)
    return expit(3 * z + (lo + hi) / 2)


def fit_all(X, s, Xt, prior, e_true, col, seed):
    """method -> (scores of the training unlabeled points, test scores)."""
    out = {}
    unl = s == 0

    def pusvc(propensity=None):
        m = PUSVC(prior=prior, random_state=seed).fit(X, s, propensity=propensity)
        return m.decision_function(X[unl]), m.decision_function(Xt)

    out["SCAR"] = pusvc()
    sar = SAREM(propensity_features=[col]).fit(X, s)
    e_hat = sar.propensity(X)
    out["SAR"] = pusvc(np.maximum(e_hat, CLIP))
    out["SAR-oracle"] = pusvc(np.maximum(e_true, CLIP))
    out["SAREM"] = sar.decision_function(X[unl]), sar.decision_function(Xt)
    out["pulearn-SAR"] = pulearn_sar(X, s, Xt, e_hat, seed)
    for name in others():
        for path, e in (("SCAR", None), ("SAR", np.maximum(e_hat, CLIP))):
            m = OTHERS[name](prior, seed).fit(X, s, propensity=e)
            out[f"{name} {path}"] = m.decision_function(X[unl]), m.decision_function(Xt)
    return out, float(np.abs(e_hat - e_true)[s == 1].mean())


def others():
    """The second table's classifiers that run here (the network needs torch)."""
    import importlib.util

    torch = importlib.util.find_spec("torch") is not None
    return [name for name in OTHERS if torch or name != "nnPU-MLP"]


def pulearn_sar(X, s, Xt, e_hat, seed):
    from pulearn import BaggingPuClassifier
    from pulearn.propensity import compute_inverse_propensity_weights
    from sklearn.svm import SVC

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = compute_inverse_propensity_weights(e_hat[s == 1], clip_min=0.05, normalize=True)
        w = np.ones(s.size)
        w[s == 1] = res.weights
        clf = BaggingPuClassifier(SVC(), n_estimators=10, random_state=seed, n_jobs=1)
        clf.fit(X, s, sample_weight=w)
        return clf.decision_function(X[s == 0]), clf.decision_function(Xt)


def f1_at_prior(f_unl, f_test, y_test, prior):
    """F1 with the threshold that puts the share ``prior`` of f_unl above it."""
    t = np.quantile(f_unl, 1 - prior)
    return float(f1_score(y_test, f_test > t))


def pulearn_check(X, s, seed):
    """pulearn's scar_sanity_check: does it flag the labeling?"""
    from pulearn.propensity import scar_sanity_check
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import cross_val_predict

    proba = cross_val_predict(LogisticRegression(max_iter=1000), X, s, cv=5, method="predict_proba")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return bool(scar_sanity_check(s, s_proba=proba[:, 1], X=X, random_state=seed).violates_scar)


def one_labeling(X, y, e, col, seed):
    """The methods' F1 and the checks on one SAR labeling (and a SCAR one) of (X, y)."""
    rng = np.random.default_rng(seed)
    tr, te = train_test_split(np.arange(y.size), test_size=0.5, stratify=y, random_state=seed)
    u = rng.random(y.size)
    s_sar = ((y == 1) & (u < e)).astype(int)[tr]
    s_scar = ((y == 1) & (u < FREQUENCY)).astype(int)[tr]
    Xtr, ytr = X[tr], y[tr]
    prior = float(ytr[s_sar == 0].mean())
    t0 = time.perf_counter()
    fits, e_err = fit_all(Xtr, s_sar, X[te], prior, e[tr], col, seed)
    row = {m: f1_at_prior(*fits[m], y[te], prior) for m in fits}
    row["e_err"], row["time"] = e_err, time.perf_counter() - t0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        row["check_sar"] = scar_check(Xtr, s_sar, random_state=seed).flagged
        row["check_scar"] = scar_check(Xtr, s_scar, random_state=seed).flagged
    row["pulearn_sar"] = pulearn_check(Xtr, s_sar, seed)
    row["pulearn_scar"] = pulearn_check(Xtr, s_scar, seed)
    return row


def summary(name, half, rows):
    mean = {m: np.mean([r[m] for r in rows]) for m in (*METHODS, "e_err")}
    flags = {
        k: sum(r[k] for r in rows)
        for k in ("check_sar", "check_scar", "pulearn_sar", "pulearn_scar")
    }
    k = len(rows)
    cells = " | ".join(f"{mean[m]:.3f}" for m in METHODS)
    return (
        (
            f"| {name} | {half} | {cells} | {mean['SAR'] - mean['SCAR']:+.3f} | "
            f"{mean['e_err']:.3f} | "
            f"{flags['check_sar']}/{k} | {flags['check_scar']}/{k} | {flags['pulearn_sar']}/{k} | "
            f"{flags['pulearn_scar']}/{k} |"
        ),
        mean,
        flags,
    )


def others_line(name, half, rows):
    """The second table's row: each classifier's SCAR and SAR F1 and their difference."""
    cells = []
    for m in others():
        scar, sar = (np.mean([r[f"{m} {p}"] for r in rows]) for p in ("SCAR", "SAR"))
        cells.append(f"{scar:.3f} / {sar:.3f} ({sar - scar:+.3f})")
    return f"| {name} | {half} | " + " | ".join(cells) + " |"


def main():
    ap = bench.parser(
        __doc__, quick="a smoke run: 600 rows of generated data and of banknote, 1 labeling"
    )
    args = bench.parse(ap)
    seeds = range(1 if args.quick else 3)
    names = QUICK_TABLES if args.quick else TABLES
    lines = bench.header("SAR: labels that depend on a feature")
    lines += [
        "F1 on the test half (threshold at the true prior for every method), mean over the "
        "labelings; checks: labelings flagged of those run (SAR labelings should be flagged, "
        "SCAR ones not). e err: mean |e_hat - e| of SAREM at the labeled positives.",
        "",
        "| data | half | " + " | ".join(METHODS) + " | SAR - SCAR | e err | scar_check SAR | "
        "scar_check SCAR | pulearn check SAR | pulearn check SCAR |",
        "|---" * (len(METHODS) + 8) + "|",
    ]
    all_rows = []
    gen_rows = []
    t0 = time.perf_counter()
    for seed in seeds:
        X, y, e, col = generated(600 if args.quick else 3000, seed)
        gen_rows.append(one_labeling(X, y, e, col, seed))
    line, _, _ = summary("generated", "-", gen_rows)
    lines.append(line)
    print(line, flush=True)
    second = [others_line("generated", "-", gen_rows)]
    for name in names:
        try:
            X, y, col = table(name, 600 if args.quick else MAX_ROWS)
        except FileNotFoundError as exc:
            bench.skip(name, str(exc))
            continue
        e = sar_propensity(X[:, col], y)
        rows = [{**one_labeling(X, y, e, col, seed), "table": name} for seed in seeds]
        all_rows += rows
        line, _, _ = summary(f"{name} (col {col})", pu_tables.half(name), rows)
        lines.append(line)
        print(line, flush=True)
        second.append(others_line(f"{name} (col {col})", pu_tables.half(name), rows))
    if all_rows:
        line, mean, _ = summary("tables, mean", "both", all_rows)
        lines.append(line)
        for half in ("tuning", "confirmation"):
            part = [r for r in all_rows if pu_tables.half(r["table"]) == half]
            if part:
                second.append(others_line(f"tables, mean ({half})", half, part))
    lines += [
        "",
        "## The other PU classifiers' SAR path",
        "",
        "Test F1 of each classifier fitted as SCAR / with propensity=max(e_hat, 0.05) (SAREM's "
        "estimate, as the SAR column above), mean over the labelings, and the difference.",
        "",
        "| data | half | " + " | ".join(others()) + " |",
        "|---" * (len(others()) + 2) + "|",
        *second,
        "",
        f"Run time: {time.perf_counter() - t0:.0f} s.",
    ]
    bench.write_markdown(args, "bench_sar", lines)


if __name__ == "__main__":
    main()
