"""Test problems that several test files share (data generators and layouts)."""

import numpy as np
import scipy.sparse as sp

from unlabeled.datasets import make_cake

#: the exact number of 5-card hands of each poker class out of C(52, 5) = 2,598,960
POKER_COUNTS = np.array([1302540, 1098240, 123552, 54912, 10200, 5108, 3744, 624, 36, 4])


def layouts(X):
    """The same matrix in every layout the input layer accepts."""
    wide = np.zeros((X.shape[0], 2 * X.shape[1]))
    wide[:, ::2] = X
    rows, cols = np.nonzero(X)
    indptr = np.r_[0, np.cumsum(2 * np.bincount(rows, minlength=X.shape[0]))]
    dup = sp.csr_matrix(  # each entry twice, as two halves (scipy sums them)
        (np.repeat(X[rows, cols] / 2, 2), np.repeat(cols, 2), indptr), shape=X.shape
    )
    return {
        "C": np.ascontiguousarray(X),
        "F": np.asfortranarray(X),
        "view": wide[:, ::2],
        "list": X.tolist(),
        "csr": sp.csr_matrix(X),
        "csc": sp.csc_matrix(X),
        "coo": sp.coo_matrix(X),
        "csr_dup": dup,
    }


def ssl_problem(seed, n_lab=6, n_unl=30, d=2, shift=1.5):
    """Two Gaussian classes; the first n_lab points labeled (both classes), -1 elsewhere."""
    rng = np.random.default_rng(seed)
    n = n_lab + n_unl
    truth = np.r_[np.tile([0, 1], n_lab // 2), rng.integers(0, 2, n_unl)]
    X = rng.normal(size=(n, d)) + shift * (2 * truth[:, None] - 1)
    y = np.where(np.arange(n) < n_lab, truth, -1)
    return X, y, truth


def signs_of(y):
    return np.where(y == -1, 0, np.where(y == 1, 1, -1)).astype(np.int8)


def planted(seed, n_bags=16, size=4, d=2, shift=5.0):
    """Bags of Gaussian instances; each positive bag has one instance shifted by ``shift``
    (its key instance, at a random position)."""
    rng = np.random.default_rng(seed)
    bags = [rng.normal(size=(int(rng.integers(1, size + 1)), d)) for _ in range(n_bags)]
    y = np.r_[np.ones(n_bags // 2, int), np.zeros(n_bags - n_bags // 2, int)]
    keys = np.zeros(n_bags, int)
    for i in range(n_bags // 2):
        keys[i] = rng.integers(len(bags[i]))
        bags[i][keys[i]] += shift
    return bags, y, keys


def kernel_data(seed=0, n=40, d=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=n) > 0, "yes", "no")
    return X, y, rng.normal(size=(25, d))


def cake_draw(seed):
    """CAKE (1000 points) with 50 labeled points per class, as the authors' demo."""
    X, y = make_cake(1000, random_state=0)
    X = (X - X.mean(0)) / X.std(0)
    rng = np.random.default_rng(seed)
    yy = np.full(len(y), -1)
    for c in (0, 1):
        yy[rng.choice(np.flatnonzero(y == c), 50, replace=False)] = c
    return X, y, yy


def few_labels(n=40, seed=0):
    """``n`` Gaussian points in 2-D, the class the sign of the first feature, three labeled
    points per class (the rest -1): (X, y, truth)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    truth = (X[:, 0] > 0).astype(int)
    y = np.full(n, -1)
    lab = np.r_[np.flatnonzero(truth == 0)[:3], np.flatnonzero(truth == 1)[:3]]
    y[lab] = truth[lab]
    return X, y, truth


def shifted_bags(n_bags=12, seed=0, shift=3.0):
    """Bags of three 2-D instances; the first instance of each positive bag (the first half)
    shifted by ``shift``: (bags, bag labels)."""
    rng = np.random.default_rng(seed)
    bags = [rng.normal(size=(3, 2)) for _ in range(n_bags)]
    for b in bags[: n_bags // 2]:
        b[0] += shift
    return bags, np.repeat([1, 0], n_bags // 2)


def pu_mixture(seed, prior, n_u=400, n_p=200, shift=3.0, d=2):
    """Labeled positives N(shift, I) and an unlabeled mixture with exactly round(prior n_u)
    positives; the answer is that share. Two Gaussians 3 standard deviations apart overlap
    little, so every method's assumptions (irreducibility, SCAR) hold."""
    rng = np.random.default_rng(seed)
    k = round(prior * n_u)
    Xu = rng.normal(size=(n_u, d))
    Xu[:k] += shift
    Xp = rng.normal(size=(n_p, d)) + shift
    X = np.r_[Xp, Xu]
    s = np.r_[np.ones(n_p, int), np.zeros(n_u, int)]
    return X, s, k / n_u
