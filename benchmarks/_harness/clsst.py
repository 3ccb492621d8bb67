"""What the CLSST experiments share: the data sets, the labeled draws, the methods compared and
the metrics (transductive error and NMI on the unlabeled points)."""

from __future__ import annotations

import time
import warnings

import numpy as np
from scipy.special import logsumexp
from sklearn.calibration import CalibratedClassifierCV
from sklearn.cluster import KMeans
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import normalized_mutual_info_score
from sklearn.preprocessing import StandardScaler
from sklearn.semi_supervised import LabelSpreading, SelfTrainingClassifier
from sklearn.svm import SVC

from unlabeled.datasets import load_fcps, make_cake, make_g50c, make_toes
from unlabeled.ssl import CLSST, LapSVM

from . import skip

# the authors' demo settings: labeled points per class and maxdim (n_factors = min(maxdim, p-1))
DEMOS = {
    "Atom": (40, 3),
    "Chainlink": (200, 3),
    "Ring": (40, 2),
    "Spiral": (700, 3),
    "CAKE": (50, 2),
    "TOES": (200, 1),
}


def load(name: str):
    """(X standardised with the population std, y, n_factors) for one experiment data set."""
    if name == "CAKE":
        X, y = make_cake(1000, random_state=0)
    elif name == "TOES":
        X, y, _ = make_toes(1000, random_state=0)
    elif name == "G50C":
        X, y = make_g50c(550, random_state=0)
    elif name == "IRIS":
        from sklearn.datasets import load_iris

        X, y = load_iris(return_X_y=True)
    elif name == "DIGITS":
        X, y = digits_tsne()
    else:
        X, y = load_fcps(name)
    maxdim = DEMOS.get(name, (None, 2 if name == "G50C" else 3))[1]
    X = StandardScaler().fit_transform(X)
    return X, y, min(maxdim, X.shape[1] - 1)


def available(names):
    """The names whose data are here: the FCPS sets need ``../shared/data/fcps`` (the
    generators and scikit-learn's sets are always here); the others are skipped, with the
    reason printed."""
    out = []
    for name in names:
        if name in DEMOS and name not in ("CAKE", "TOES"):
            try:
                load_fcps(name)
            except FileNotFoundError as exc:
                skip(f"the FCPS set {name}", str(exc))
                continue
        out.append(name)
    return out


def digits_tsne():
    """scikit-learn's digits 3, 8 and 9 (the thesis uses USPS 3, 8, 9) embedded in 3-D by
    t-SNE (perplexity 30, PCA start, random_state 0, scikit-learn's other defaults)."""
    from sklearn.datasets import load_digits
    from sklearn.manifold import TSNE

    X, y = load_digits(return_X_y=True)
    keep = np.isin(y, (3, 8, 9))
    Z = TSNE(n_components=3, perplexity=30, init="pca", random_state=0).fit_transform(X[keep])
    return Z, np.searchsorted([3, 8, 9], y[keep])


def draw_labels(y, per_class, seed):
    """-1 everywhere but ``per_class`` points of each class drawn without replacement."""
    rng = np.random.default_rng(seed)
    out = np.full(len(y), -1)
    for c in np.unique(y):
        idx = np.flatnonzero(y == c)
        pick = rng.choice(idx, min(per_class, len(idx) - 1), replace=False)
        out[pick] = c
    return out


def _gmm_log_probs(X, params):
    classes, weights, mus, chols = params
    logp = np.empty((len(X), len(classes)))
    for c, (w, mu, L) in enumerate(zip(weights, mus, chols, strict=True)):
        sol = np.linalg.solve(L, (X - mu).T)
        logp[:, c] = np.log(w) - 0.5 * (sol**2).sum(0) - np.log(np.diag(L)).sum()
    return logp


def ssl_gmm(X, yl, n_iter=200, reg=1e-3):
    """One Gaussian per class fitted by EM on labeled and unlabeled points (the labeled
    responsibilities clamped to their class): the "one blob per class" baseline. Returns the
    classes of all points and the parameters (for gmm_predict)."""
    classes = np.unique(yl[yl >= 0])
    K, (n, p) = len(classes), X.shape
    lab = yl >= 0
    R = np.full((n, K), 1.0 / K)
    R[lab] = yl[lab][:, None] == classes
    for _ in range(n_iter):
        Nk = R.sum(0) + 1e-12
        mus = (R.T @ X) / Nk[:, None]
        chols = []
        for c in range(K):
            Z = X - mus[c]
            chols.append(np.linalg.cholesky((R[:, c, None] * Z).T @ Z / Nk[c] + reg * np.eye(p)))
        params = (classes, Nk / n, mus, chols)
        logp = _gmm_log_probs(X, params)
        R_new = np.exp(logp - logsumexp(logp, axis=1, keepdims=True))
        R_new[lab] = R[lab]
        done = np.abs(R_new - R).max() < 1e-6
        R = R_new
        if done:
            break
    return classes[R.argmax(1)], params


def gmm_predict(params, X):
    return params[0][_gmm_log_probs(X, params).argmax(1)]


def run_method(method, X, yl, n_factors, seed):
    """(labels of all points, seconds): transductive classes, or k-means clusters."""
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        if method == "CLSST":
            pred = CLSST(n_factors=n_factors, random_state=seed).fit(X, yl).transduction_
        elif method == "LabelSpreading":
            pred = LabelSpreading().fit(X, yl).transduction_
        elif method == "SelfTraining(SVC)":
            svc = CalibratedClassifierCV(SVC(), ensemble=False, cv=2)
            pred = SelfTrainingClassifier(svc).fit(X, yl).predict(X)
        elif method == "GMM per class":
            pred = ssl_gmm(X, yl)[0]
        elif method == "KMeans":
            K = len(np.unique(yl[yl >= 0]))
            pred = KMeans(K, n_init=10, random_state=seed).fit_predict(X)
        else:
            raise ValueError(method)
    return pred, time.perf_counter() - t0


METHODS = ("CLSST", "LabelSpreading", "SelfTraining(SVC)", "GMM per class", "KMeans")


def scores(y, yl, pred, method):
    """Transductive error (nan for k-means) and NMI on the unlabeled points."""
    u = yl < 0
    err = np.nan if method == "KMeans" else float((pred[u] != y[u]).mean())
    return err, float(normalized_mutual_info_score(y[u], pred[u]))


def run_inductive(method, X, yl, X_test, n_factors, seed):
    """Classes predicted for held-out points by a model fitted on (X, yl)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        if method == "CLSST":
            return CLSST(n_factors=n_factors, random_state=seed).fit(X, yl).predict(X_test)
        if method == "LabelSpreading":
            return LabelSpreading().fit(X, yl).predict(X_test)
        if method == "SelfTraining(SVC)":
            svc = CalibratedClassifierCV(SVC(), ensemble=False, cv=2)
            return SelfTrainingClassifier(svc).fit(X, yl).predict(X_test)
        if method == "GMM per class":
            return gmm_predict(ssl_gmm(X, yl)[1], X_test)
        if method == "LapSVM":  # this library's, at its defaults (two classes only)
            return LapSVM().fit(X, yl).predict(X_test)
    raise ValueError(method)
