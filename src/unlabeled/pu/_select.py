r"""``gamma="cv"`` and ``lam="cv"`` of :class:`~unlabeled.PUSVC`: the kernel width and the
regularisation chosen from PU data alone, by the held-out recall of the labeled positives at
the prior's quantile of the held-out unlabeled points.

Why that criterion. With ``threshold="prior"`` the model predicts positive the share ``pi`` of
the unlabeled points with the largest decision values; if ``pi`` is the true share, as many
points are predicted positive as there are positives, so precision equals recall and the F1
score *is* the recall of the unlabeled positives. Under SCAR (the labeled positives are a
random sample of the positives) the recall of held-out labeled positives at that threshold
estimates it without negatives (the numerator of Lee and Liu's criterion, whose denominator
is fixed at ``pi`` here). The held-out ROC-AUC of labeled against unlabeled points (prior-free,
affine in the true AUC under SCAR) was measured as well on the tuning half of the PU suite
(13 tables, 3,000 rows, 2 labelings, the true prior): over the same kinds of grids it gave a
mean test F1 of 0.659 to 0.706 at 5% of the positives labeled, the fixed defaults 0.687, this
criterion 0.701 to 0.714.

The search's cost is bounded whatever ``n``: it runs on at most :data:`CV_ROWS` rows (the
labeled positives first, up to half of them), in :data:`CV_FOLDS` folds, over a small grid
(:data:`CV_GAMMA_FACTORS` x :data:`CV_LAMS`), each fold's ``lam`` path walked with warm
starts: about 2.2 times the CPU time of a fit at the default numbers on 2,100 rows (1.5 times
with ``prior="auto"``). Ties, and fits with fewer than 2 labeled positives (no held-out
evidence), go to the first candidate: the wider kernel and the larger ``lam``, the better
fixed values on that tuning half (0.1 times ``"scale"``: mean F1 0.615 / 0.715 / 0.777 at 1%
/ 5% / 20% against 0.595 / 0.687 / 0.773 for ``"scale"``).
"""

from __future__ import annotations

import numpy as np
from sklearn.base import clone

from ._base import prior_threshold

#: gamma="cv": the candidates, as multiples of gamma="scale", the preferred (on ties) first
CV_GAMMA_FACTORS = (0.1, 1.0)
#: lam="cv": the candidates, the preferred first; each fold walks them from the largest down
CV_LAMS = (1e-2, 1e-3)
#: the rows the search fits on (at most half of them labeled positives)
CV_ROWS = 600
#: the folds of the search (fewer when there are fewer labeled positives)
CV_FOLDS = 3


def held_out_recall(f_pos, f_unl, prior: float) -> int:
    """How many of the decision values ``f_pos`` (held-out labeled positives) lie above the
    threshold that puts the share ``prior`` of ``f_unl`` (held-out unlabeled points) above it
    (:func:`~unlabeled.pu._base.prior_threshold`, the rule of ``threshold="prior"``)."""
    return int(np.sum(np.asarray(f_pos) > prior_threshold(f_unl, prior)))


def cv_folds(mask, rng):
    """The search's rows and folds: ``(rows, folds)``, ``folds`` a list of (train, test)
    index arrays into ``rows``, or None when there are fewer than 2 labeled positives."""
    pos, unl = np.flatnonzero(mask), np.flatnonzero(~mask)
    pos = rng.permutation(pos)[: CV_ROWS // 2]
    unl = rng.permutation(unl)[: max(CV_ROWS - pos.size, 0)]
    k = min(CV_FOLDS, pos.size, unl.size // 2)
    if k < 2:
        return None, None
    rows = np.r_[pos, unl]
    part_p = np.array_split(np.arange(pos.size), k)
    part_u = np.array_split(np.arange(pos.size, rows.size), k)
    folds = []
    for j in range(k):
        test = np.r_[part_p[j], part_u[j]]
        train = np.setdiff1d(np.arange(rows.size), test)
        folds.append((train, test))
    return rows, folds


def cv_selection(est, X, mask, prior: float, gammas, lams, seed: int):
    """``(gamma, lam, recall)``: the candidate of ``gammas`` x ``lams`` whose fits on the
    training folds put the most held-out labeled positives above the prior's quantile of
    the held-out unlabeled points (:func:`held_out_recall`), the first in the order given on
    ties; ``recall`` (``len(gammas)`` x ``len(lams)``) is the held-out recall of each, None
    when there are too few labeled positives to hold any out (then the first candidate)."""
    rows, folds = cv_folds(mask, np.random.RandomState(seed))
    if folds is None:
        return gammas[0], lams[0], None
    gram = est.kernel == "precomputed"  # X is the Gram matrix: its columns are rows too
    Xs, ms = (X[np.ix_(rows, rows)] if gram else X[rows]), mask[rows]
    hits = np.zeros((len(gammas), len(lams)))
    order = np.argsort(lams)[::-1]  # the warm-started path: lam from large to small
    for train, test in folds:
        s_tr = ms[train].astype(np.int8)
        X_tr = Xs[np.ix_(train, train)] if gram else Xs[train]
        X_te, m_te = (Xs[np.ix_(test, train)] if gram else Xs[test]), ms[test]
        for a, gamma in enumerate(gammas):
            fold_est = clone(est).set_params(
                prior=prior,
                gamma=gamma,
                warm_start=True,
                probability=False,
                verbose=False,
                random_state=seed,
            )
            for b in order:
                fold_est.set_params(lam=lams[b]).fit(X_tr, s_tr)
                f = fold_est.decision_function(X_te)
                hits[a, b] += held_out_recall(f[m_te], f[~m_te], prior)
    recall = hits / ms.sum()
    first, second = np.unravel_index(int(np.argmax(recall)), recall.shape)  # first of the best
    return gammas[int(first)], lams[int(second)], recall
