"""unlabeled.metrics' evaluation from PU data alone: each metric against the same metric on
true labels (generated SCAR data, tolerances from the sampling error; exact on "twin" data),
closed forms on tiny cases, the non-negative risk, the degenerate-predictor check, posterior
calibration, the sensitivity over a prior interval, the scorers, edge cases and errors."""

from types import SimpleNamespace

import numpy as np
import pytest
from scipy.stats import norm
from sklearn import metrics as skm
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV

from unlabeled.metrics import (
    SCORING_NAMES,
    SENSITIVITY_METRICS,
    calibrate_pu_posterior,
    detect_degenerate_predictor,
    make_pu_scorer,
    prior_sensitivity,
    pu_accuracy_score,
    pu_average_precision_score,
    pu_f1_score,
    pu_label_frequency,
    pu_precision_recall_curve,
    pu_precision_score,
    pu_recall_score,
    pu_risk,
    pu_roc_auc_score,
    pu_roc_curve,
    pu_specificity_score,
)

PI = 0.3  # the share of positives among the unlabeled points
SHIFT = 1.5  # positives score N(SHIFT, 1), negatives N(0, 1)


def _scar(seed, n_u=20_000, n_p=4_000):
    """SCAR data as the library sees it: ``n_p`` labeled positives (s = 1) then ``n_u``
    unlabeled points, a share PI of them positive; scores N(SHIFT, 1) / N(0, 1). Returns s,
    the scores, the unlabeled points' true classes and the prior among them."""
    rng = np.random.default_rng(seed)
    y = (rng.random(n_u) < PI).astype(int)
    f_u = rng.normal(size=n_u) + SHIFT * y
    f_p = rng.normal(size=n_p) + SHIFT
    s = np.r_[np.ones(n_p, int), np.zeros(n_u, int)]
    return s, np.r_[f_p, f_u], y, float(y.mean())


@pytest.fixture(scope="module")
def scar():
    return _scar(0)


def _twins(seed=0, n_pos=40, n_neg=60, ties=False):
    """U = positives and negatives; P = copies of U's positives' scores. Then every rate
    measured on P is the rate of U's positives, and each PU estimate with U's true prior
    equals the true-label metric on U exactly."""
    rng = np.random.default_rng(seed)
    pos, neg = rng.normal(1, 1, n_pos), rng.normal(0, 1, n_neg)
    if ties:
        pos, neg = np.round(pos), np.round(neg)
    y_u = np.r_[np.ones(n_pos, int), np.zeros(n_neg, int)]
    f = np.r_[pos, pos, neg]
    s = np.r_[np.ones(n_pos, int), np.zeros(n_pos + n_neg, int)]
    return s, f, y_u, n_pos / (n_pos + n_neg)


# ----------------------------------------------------------------- exact: twin data
@pytest.mark.parametrize("ties", [False, True])
def test_twin_data_give_the_true_label_metrics_exactly(ties):
    s, f, y_u, pi = _twins(ties=ties)
    f_u = f[s == 0]
    assert pu_roc_auc_score(s, f, pi) == pytest.approx(skm.roc_auc_score(y_u, f_u), abs=1e-12)
    ap = pu_average_precision_score(s, f, pi)
    assert ap == pytest.approx(skm.average_precision_score(y_u, f_u), abs=1e-12)
    fpr, tpr, thr = pu_roc_curve(s, f, pi)
    fpr0, tpr0, thr0 = skm.roc_curve(y_u, f_u, drop_intermediate=False)
    np.testing.assert_allclose(fpr, fpr0, atol=1e-12)
    np.testing.assert_allclose(tpr, tpr0, atol=1e-12)
    np.testing.assert_array_equal(thr[1:], thr0[1:])
    prec, rec, thr = pu_precision_recall_curve(s, f, pi)
    prec0, rec0, thr0 = skm.precision_recall_curve(y_u, f_u, drop_intermediate=False)
    k = thr0.size  # scikit-learn stops at the first threshold of full recall
    np.testing.assert_allclose(prec[-k - 1 :], prec0, atol=1e-12)
    np.testing.assert_allclose(rec[-k - 1 :], rec0, atol=1e-12)
    np.testing.assert_array_equal(thr[-k:], thr0)
    for t in (-0.5, 0.5, 1.5):
        pred = (f > t).astype(int)
        pred_u = pred[s == 0]
        assert pu_recall_score(s, pred) == pytest.approx(skm.recall_score(y_u, pred_u))
        assert pu_precision_score(s, pred, pi) == pytest.approx(
            skm.precision_score(y_u, pred_u, zero_division=0)
        )
        assert pu_f1_score(s, pred, pi) == pytest.approx(skm.f1_score(y_u, pred_u))
        spec = skm.recall_score(1 - y_u, 1 - pred_u)
        assert pu_specificity_score(s, pred, pi) == pytest.approx(spec)
        assert pu_accuracy_score(s, pred, pi) == pytest.approx(skm.accuracy_score(y_u, pred_u))


# ----------------------------------------------------------------- large SCAR data
def _recall_se(r, n_a, n_b):
    """Standard error of the difference of two independent binomial proportions near r."""
    return np.sqrt(r * (1 - r) * (1 / n_a + 1 / n_b))


def test_prediction_metrics_on_scar_data(scar):
    """With U's true prior, precision and specificity differ from the truth only through the
    recall measured on P instead of on U's positives: est - truth = pi (r_P - r_U+) / R_U and
    pi (r_U+ - r_P) / (1 - pi). Tolerance: 4 standard errors of r_P - r_U+."""
    s, f, y, pi = scar
    n_p, n_pos = int(s.sum()), int(y.sum())
    for t in (0.0, 0.75, 1.5):
        pred = (f > t).astype(int)
        pred_u = pred[s == 0]
        r_true = skm.recall_score(y, pred_u)
        se = _recall_se(r_true, n_p, n_pos)
        rate = pred_u.mean()
        assert abs(pu_recall_score(s, pred) - r_true) < 4 * se
        assert abs(pu_precision_score(s, pred, pi) - skm.precision_score(y, pred_u)) < (
            4 * se * pi / rate
        )
        spec = skm.recall_score(1 - y, 1 - pred_u)
        assert abs(pu_specificity_score(s, pred, pi) - spec) < 4 * se * pi / (1 - pi)
        # F1 through the delta method: |dF1/dr| <= 2 and |dF1/dp| <= 2 (at p, r in [0, 1])
        f1_tol = 4 * se * (2 + 2 * pi / rate)
        assert abs(pu_f1_score(s, pred, pi) - skm.f1_score(y, pred_u)) < f1_tol


def test_auc_on_scar_data(scar):
    """Tolerance: 3 times the sum of the Birnbaum-Klose bounds sqrt(A (1 - A) / min(m, n)) on
    the standard errors of the Mann-Whitney statistics involved (P against U's positives,
    weighted pi / (1 - pi); P against U's negatives; the truth, U's positives against its
    negatives). The uncorrected AUC of P against U fails it."""
    s, f, y, pi = scar
    f_u = f[s == 0]
    truth = skm.roc_auc_score(y, f_u)
    n_p, n_pos, n_neg = int(s.sum()), int(y.sum()), int((1 - y).sum())
    se = (
        pi / (1 - pi) * np.sqrt(0.25 / min(n_p, n_pos))
        + np.sqrt(truth * (1 - truth) / min(n_p, n_neg))
        + np.sqrt(truth * (1 - truth) / min(n_pos, n_neg))
    )
    assert abs(pu_roc_auc_score(s, f, pi) - truth) < 3 * se
    assert abs(skm.roc_auc_score(s, f) - truth) > 3 * se  # the PU AUC fails the same test
    assert truth == pytest.approx(norm.cdf(SHIFT / np.sqrt(2)), abs=0.02)


def _bootstrap_sd(s, f, y, fn, truth_fn, n_boot=20, seed=1):
    """Standard deviation of estimate - truth over resamples of P and of U."""
    rng = np.random.default_rng(seed)
    p_idx, u_idx = np.flatnonzero(s == 1), np.flatnonzero(s == 0)
    diffs = []
    for _ in range(n_boot):
        bp, bu = rng.choice(p_idx, p_idx.size), rng.choice(u_idx, u_idx.size)
        idx = np.r_[bp, bu]
        y_b = y[bu - p_idx.size]
        diffs.append(fn(s[idx], f[idx], y_b.mean()) - truth_fn(y_b, f[bu]))
    return float(np.std(diffs))


def test_average_precision_on_scar_data(scar):
    """Tolerance: 4 bootstrap standard deviations of estimate - truth (resampling P and U)."""
    s, f, y, pi = scar
    truth = skm.average_precision_score(y, f[s == 0])
    sd = _bootstrap_sd(s, f, y, pu_average_precision_score, skm.average_precision_score)
    assert 0 < sd < 0.03
    assert abs(pu_average_precision_score(s, f, pi) - truth) < 4 * sd
    # the AP of P against U, without the prior, is another quantity altogether
    assert abs(skm.average_precision_score(s, f) - truth) > 8 * sd


def test_curves_on_scar_data(scar):
    """At every threshold where at least 5% of U is predicted positive, the corrected curves
    against the true ones on U: the FPR and the precision differ from the truth through the
    recall measured on P instead of U's positives, by pi / (1 - pi) and pi / R_U times it (the
    monotone step moves the FPR by no more); tolerance 4 standard errors of that recall."""
    s, f, y, pi = scar
    f_u = f[s == 0]
    n_p, n_pos = int(s.sum()), int(y.sum())
    fpr, tpr, thr = pu_roc_curve(s, f, pi)
    prec, rec, thr_pr = pu_precision_recall_curve(s, f, pi)
    np.testing.assert_array_equal(thr_pr, thr[1:][::-1])
    prec = prec[:-1][::-1]  # along thr[1:], decreasing thresholds

    def share_above(values):  # the share of values >= each threshold
        return 1 - np.searchsorted(np.sort(values), thr[1:], side="left") / values.size

    rate, r_true, fpr_true = share_above(f_u), share_above(f_u[y == 1]), share_above(f_u[y == 0])
    prec_true = pi * r_true / rate
    keep = rate >= 0.05
    se = _recall_se(np.clip(r_true, 0.05, 0.95), n_p, n_pos)[keep]
    assert np.all(np.abs(fpr[1:][keep] - fpr_true[keep]) < 4 * se * pi / (1 - pi))
    assert np.all(np.abs(prec[keep] - prec_true[keep]) < 4 * se * pi / rate[keep])
    assert np.all(np.diff(fpr) >= 0) and fpr[0] == 0 and fpr[-1] == 1
    assert np.all(np.abs(tpr[1:][keep] - r_true[keep]) < 4 * se)


def test_nonnegative_risk_on_scar_data(scar):
    """The sigmoid risk of f on U's population from PU labels, unbiased and non-negative,
    against its value on U's true classes (4 standard errors of the P-part)."""
    s, f, y, pi = scar
    f_c = f - 1.0  # centred: f > 0 predicts positive
    sig = lambda z: 1 / (1 + np.exp(z))  # noqa: E731
    f_u = f_c[s == 0]
    truth = np.mean(np.where(y == 1, sig(f_u), sig(-f_u)))
    se = 2 * pi * np.std(sig(f_c[s == 1])) * np.sqrt(1 / s.sum() + 1 / y.sum())
    for nn in (False, True):
        est = pu_risk(s, f_c, pi, "sigmoid", non_negative=nn)
        assert abs(est - truth) < 4 * se


# ----------------------------------------------------------------- closed forms, properties
def test_auc_is_the_area_under_the_raw_corrected_curve():
    """Sakai's formula is the trapezoidal area under (R_U - pi TPR) / (1 - pi), unclipped."""
    s, f, _, _ = _scar(3, n_u=300, n_p=40)
    w = np.random.default_rng(0).random(s.size)
    for pi in (0.1, 0.5, 0.8):
        thr = np.r_[np.inf, np.unique(f)[::-1]]
        tpr = np.array([np.sum(w * (s == 1) * (f >= t)) / np.sum(w * (s == 1)) for t in thr])
        rate = np.array([np.sum(w * (s == 0) * (f >= t)) / np.sum(w * (s == 0)) for t in thr])
        raw = (rate - pi * tpr) / (1 - pi)
        area = np.sum(np.diff(raw) * (tpr[1:] + tpr[:-1]) / 2)
        auc = pu_roc_auc_score(s, f, pi, sample_weight=w, clip=False)
        assert auc == pytest.approx(area, abs=1e-12)
        clipped = pu_roc_auc_score(s, f, pi, sample_weight=w)
        assert clipped == pytest.approx(min(max(area, 0.0), 1.0), abs=1e-12)
    # a perfect ranker with a prior too small: the unbiased estimate exceeds 1
    s = np.r_[1, 1, np.zeros(4, int)]
    assert pu_roc_auc_score(s, [9, 8, 7, 0, 0, 0], 0.25, clip=False) > 1
    assert pu_roc_auc_score(s, [9, 8, 7, 0, 0, 0], 0.25) == 1.0


def test_tiny_closed_forms():
    s = np.array([1, 1, 0, 0, 0, 0])
    # constant scores: AUC_PU = 1/2 and the corrected AUC is 1/2 for every prior
    for pi in (0.1, 0.6):
        assert pu_roc_auc_score(s, np.zeros(6), pi) == pytest.approx(0.5)
    # P above all of U: AUC_PU = 1, corrected (1 - pi / 2) / (1 - pi) = 1.5 at pi = 1/2
    assert pu_roc_auc_score(s, [9, 8, 3, 2, 1, 0], 0.5, clip=False) == pytest.approx(1.5)
    # P at the bottom: precision 0 until all U is in; the AP is one step at recall 1
    ap = pu_average_precision_score(s, [0, 0, 3, 2, 1, 1], 0.25)
    assert ap == pytest.approx(0.25)  # pi * 1 / 1
    # no unlabeled point predicted positive: precision clipped to 1, specificity 1
    pred = np.array([1, 0, 0, 0, 0, 0])
    assert pu_precision_score(s, pred, 0.3) == 0.0  # rate 0 on U: zero_division = 0
    assert pu_specificity_score(s, pred, 0.3) == 1.0
    assert pu_f1_score(s, np.zeros(6, int), 0.3) == 0.0
    prec, rec, _ = pu_precision_recall_curve(s, [5, 4, 3, 2, 1, 0], 0.3)
    assert prec[-2] == 1.0 and rec[-1] == 0.0  # the top: P only


def test_nonnegative_risk_closed_form():
    """pi mean_P l(f) + max(0, mean_U l(-f) - pi mean_P l(-f)), by hand; never below the
    unbiased estimate, equal to it when the negatives' part is non-negative."""
    s = np.array([1, 1, 0, 0, 0, 0])
    rng = np.random.default_rng(0)
    for _ in range(20):
        f = rng.normal(size=6) * 3
        for loss in ("sigmoid", "logistic", "zero-one"):
            pos = 0.4 * np.mean(_loss(loss, f[:2]))
            neg = np.mean(_loss(loss, -f[2:])) - 0.4 * np.mean(_loss(loss, -f[:2]))
            if loss == "zero-one":  # f = 0 is a negative prediction: l(-f) = 1(f > 0)
                neg = np.mean(f[2:] > 0) - 0.4 * np.mean(f[:2] > 0)
            nn = pu_risk(s, f, 0.4, loss, non_negative=True)
            assert nn == pytest.approx(pos + max(0.0, neg))
            assert pu_risk(s, f, 0.4, loss) == pytest.approx(pos + neg)


def _loss(loss, z):
    """l(z) of the margin z."""
    return {
        "sigmoid": 1 / (1 + np.exp(z)),
        "logistic": np.logaddexp(0, -z),
        "zero-one": (z <= 0).astype(float),
    }[loss]


def test_sample_weight_equals_repeated_rows():
    s, f, _, _ = _scar(4, n_u=60, n_p=15)
    counts = np.random.default_rng(1).integers(1, 4, s.size)
    rs, rf = np.repeat(s, counts), np.repeat(f, counts)
    pred, rpred = (f > 0.7).astype(int), (rf > 0.7).astype(int)
    for fn in (pu_roc_auc_score, pu_average_precision_score):
        assert fn(s, f, 0.3, sample_weight=counts) == pytest.approx(fn(rs, rf, 0.3))
    for fn in (pu_precision_score, pu_f1_score, pu_specificity_score):
        assert fn(s, pred, 0.3, sample_weight=counts) == pytest.approx(fn(rs, rpred, 0.3))
    assert pu_recall_score(s, pred, sample_weight=counts) == pytest.approx(
        pu_recall_score(rs, rpred)
    )


def test_inputs_are_not_modified():
    s, f, _, _ = _scar(5, n_u=50, n_p=10)
    s0, f0 = s.copy(), f.copy()
    pu_roc_curve(s, f, 0.3)
    pu_precision_recall_curve(s, f, 0.3)
    detect_degenerate_predictor(s, (f > 0).astype(int), y_score=f, prior=0.3)
    np.testing.assert_array_equal(s, s0)
    np.testing.assert_array_equal(f, f0)


# ----------------------------------------------------------------- degenerate predictors
def test_degenerate_predictor_flags():
    s, f, _, pi = _scar(6, n_u=2_000, n_p=300)
    good = detect_degenerate_predictor(s, (f > 1.0).astype(int), y_score=f, prior=pi)
    assert not good.is_degenerate and good.flags == () and good.message == ""
    assert good.stats["auc_pu"] > 0.6
    ones, zeros = np.ones(s.size, int), np.zeros(s.size, int)
    assert detect_degenerate_predictor(s, ones, prior=pi).flags == (
        "all-positive",
        "rate-far-from-prior",
    )
    assert detect_degenerate_predictor(s, zeros).flags == ("all-negative",)
    pred = (s == 0).astype(int)  # every unlabeled point, no labeled one
    assert "recall-zero" in detect_degenerate_predictor(s, pred).flags
    assert detect_degenerate_predictor(s, y_score=np.full(s.size, 0.3)).flags == (
        "constant-scores",
    )
    assert detect_degenerate_predictor(s, y_score=-f).flags == ("worse-than-chance",)
    # the rate check on both sides: 4 pi predicted positive, or too few negatives
    few = (f > np.quantile(f[s == 0], 1 - pi / 3)).astype(int)
    assert detect_degenerate_predictor(s, few, prior=pi).flags == ("rate-far-from-prior",)
    assert detect_degenerate_predictor(s, few, prior=pi, max_rate_ratio=4).flags == ()
    with pytest.warns(UserWarning, match="all-negative"):
        detect_degenerate_predictor(s, zeros, warn=True)


# ----------------------------------------------------------------- posterior calibration
def test_calibrated_posterior_closed_form():
    """With the exact g(x) = P(s = 1 | x) of the pooled data, the calibration returns the exact
    posteriors: on the unlabeled population and on the pooled points."""
    rng = np.random.default_rng(0)
    n_p, n_u, pi = 200, 800, 0.35
    x = rng.normal(size=n_p + n_u)
    pos, neg = norm.pdf(x, 1.0), norm.pdf(x, -1.0)
    p_u = pi * pos + (1 - pi) * neg
    g = n_p * pos / (n_p * pos + n_u * p_u)
    s = np.r_[np.ones(n_p, int), np.zeros(n_u, int)]
    post_u = calibrate_pu_posterior(g, s=s, prior=pi)
    np.testing.assert_allclose(post_u, pi * pos / p_u, rtol=1e-12)
    c = pu_label_frequency(s, prior=pi)
    assert c == pytest.approx(n_p / (n_p + pi * n_u))
    post_all = calibrate_pu_posterior(g, s=s, prior=pi, population="all")
    pooled = (n_p + pi * n_u) * pos / (n_p * pos + n_u * p_u)
    np.testing.assert_allclose(post_all, pooled, rtol=1e-12)
    np.testing.assert_allclose(calibrate_pu_posterior(g, label_frequency=c), post_u, rtol=1e-12)


def test_elkan_noto_label_frequency():
    """e1, the mean of g over the labeled positives, is c times the mean posterior of the
    positives: c where the classes are separated (means 6 apart), below c where they overlap."""
    rng = np.random.default_rng(1)
    n_p, n_u, pi = 300, 1_200, 0.3
    s = np.r_[np.ones(n_p, int), np.zeros(n_u, int)]
    c = pu_label_frequency(s, prior=pi)
    for gap, close in ((6.0, True), (1.0, False)):
        x = rng.normal(size=n_p + n_u)
        x[:n_p] += gap  # the labeled points are positives
        pos, neg = norm.pdf(x, gap), norm.pdf(x, 0.0)
        g = n_p * pos / (n_p * pos + n_u * (pi * pos + (1 - pi) * neg))
        e1 = pu_label_frequency(s, g)
        assert (abs(e1 - c) < 0.01) is close
        assert e1 <= c + 0.01


# ----------------------------------------------------------------- sensitivity to the prior
def test_prior_sensitivity_over_an_interval_and_an_estimator():
    s, f, _, pi = _scar(7, n_u=1_000, n_p=150)
    pred = (f > 1.0).astype(int)
    for metric in SENSITIVITY_METRICS:
        y = f if metric in ("roc-auc", "average-precision") else pred
        res = prior_sensitivity(s, y, metric, (0.2, 0.4), num=5)
        np.testing.assert_allclose(res.priors, np.linspace(0.2, 0.4, 5))
        fn = {
            "roc-auc": pu_roc_auc_score,
            "average-precision": pu_average_precision_score,
            "precision": pu_precision_score,
            "f1": pu_f1_score,
            "specificity": pu_specificity_score,
            "accuracy": pu_accuracy_score,
        }[metric]
        np.testing.assert_allclose(res.values, [fn(s, y, p) for p in res.priors])
        assert res.low <= res.high and res.prior is None and res.metric == metric
    # AUC rises with the prior when AUC_PU > 1/2 (d/dpi = (AUC_PU - 1/2) / (1 - pi)^2)
    assert np.all(np.diff(prior_sensitivity(s, f, "roc-auc", (0.1, 0.45)).values) > 0)
    fitted = SimpleNamespace(prior_=pi, prior_interval_=(pi - 0.05, pi + 0.05))
    res = prior_sensitivity(s, pred, "precision", fitted, num=3)
    assert res.prior == pi and res.value == pytest.approx(pu_precision_score(s, pred, pi))
    custom = prior_sensitivity(s, pred, lambda s_, y_, p: p * 2, [0.1, 0.2, 0.3])
    np.testing.assert_allclose(custom.values, [0.2, 0.4, 0.6])


def test_prior_sensitivity_with_a_prior_estimator():
    from unlabeled.pu.priors import ElkanNoto

    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(2, 1, (130, 2)), rng.normal(-2, 1, (70, 2))]
    s = np.r_[np.ones(100, int), np.zeros(100, int)]  # 30 of the 100 unlabeled positive
    est = ElkanNoto(cv=3, n_bootstrap=5, random_state=0).fit(X, s)
    res = prior_sensitivity(s, X[:, 0], "roc-auc", est, num=4)
    lo, hi = est.prior_interval_
    assert res.priors[0] == pytest.approx(lo) and res.priors[-1] == pytest.approx(hi)
    assert res.prior == pytest.approx(est.prior_)


# ----------------------------------------------------------------- scorers
def test_scorers_match_the_functions():
    s, f, _, pi = _scar(8, n_u=400, n_p=80)
    X = f[:, None]
    clf = LogisticRegression().fit(X, s)
    dec, pred = clf.decision_function(X), clf.predict(X)
    pred = (dec > np.quantile(dec, 0.6)).astype(int)
    clf_thr = SimpleNamespace(
        decision_function=clf.decision_function,
        predict=lambda Z: (clf.decision_function(Z) > np.quantile(dec, 0.6)).astype(int),
        prior_=pi,
    )
    expected = {
        "pu-roc-auc": pu_roc_auc_score(s, dec, pi),
        "pu-average-precision": pu_average_precision_score(s, dec, pi),
        "pu-precision": pu_precision_score(s, pred, pi),
        "pu-f1": pu_f1_score(s, pred, pi),
        "pu-specificity": pu_specificity_score(s, pred, pi),
        "pu-recall": pu_recall_score(s, pred),
    }
    assert set(expected) <= set(SCORING_NAMES)
    for name, value in expected.items():
        assert make_pu_scorer(name)(clf_thr, X, s) == pytest.approx(value), name
        assert make_pu_scorer(name, prior=pi)(clf_thr, X, s) == pytest.approx(value), name
    assert not make_pu_scorer("pu-recall").needs_prior
    assert make_pu_scorer("pu-roc-auc").needs_prior
    # predict_proba's positive column when there is no decision_function
    proba_only = SimpleNamespace(predict_proba=clf.predict_proba)
    auc = make_pu_scorer("pu-roc-auc", prior=pi)(proba_only, X, s)
    assert auc == pytest.approx(pu_roc_auc_score(s, dec, pi))
    search = GridSearchCV(
        LogisticRegression(), {"C": [0.01, 1.0]}, cv=3, scoring=make_pu_scorer("pu-f1", prior=pi)
    ).fit(X, s)
    assert np.isfinite(search.best_score_)


# ----------------------------------------------------------------- errors
S4 = [1, 0, 0, 0]


@pytest.mark.parametrize(
    ("call", "err", "match"),
    [
        (lambda: pu_roc_auc_score(S4, [1, 2, 3, 4], 1.0), ValueError, "prior must be < 1"),
        (lambda: pu_roc_auc_score(S4, [1, 2, 3, 4], 0.0), ValueError, "prior must be > 0"),
        (lambda: pu_roc_auc_score(S4, [1, 2, 3], 0.3), ValueError, "has 3 entries"),
        (lambda: pu_roc_curve(S4, [1, 2, np.nan, 4], 0.3), ValueError, "NaN or infinity"),
        (lambda: pu_average_precision_score([1, 1], [1, 2], 0.3), ValueError, "unlabeled"),
        (lambda: pu_precision_recall_curve([0, 0], [1, 2], 0.3), ValueError, "no labeled"),
        (lambda: pu_roc_auc_score(S4, ["a"] * 4, 0.3), TypeError, "must hold numbers"),
        (
            lambda: pu_roc_auc_score(S4, [1, 2, 3, 4], 0.3, sample_weight=[0, 1, 1, 1]),
            ValueError,
            "labeled positives a total weight of 0",
        ),
        (lambda: pu_precision_score(S4, [1, 2, 0, 0], 0.3), ValueError, "predicted classes"),
        (lambda: pu_f1_score(S4, [1, 0, 0, 0], "0.3"), TypeError, "prior must be a real"),
        (lambda: pu_risk(S4, [1, 0, 0, 0], 0.3, non_negative=1), TypeError, "non_negative"),
        (lambda: pu_roc_auc_score(S4, [1, 0, 0, 0], 0.3, clip="no"), TypeError, "clip"),
        (lambda: detect_degenerate_predictor(S4), ValueError, "nothing to check"),
        (
            lambda: detect_degenerate_predictor(S4, [1, 0, 0, 0], max_rate_ratio=1.0),
            ValueError,
            "max_rate_ratio must be > 1",
        ),
        (lambda: pu_label_frequency(S4), ValueError, "give the prior or s_proba"),
        (lambda: pu_label_frequency(S4, [0.5, 2, 0, 0]), ValueError, r"in \[0, 1\]"),
        (lambda: calibrate_pu_posterior([0.5]), ValueError, "give label_frequency"),
        (
            lambda: calibrate_pu_posterior([0.5], label_frequency=0.5, population="pu"),
            ValueError,
            "population",
        ),
        (
            lambda: calibrate_pu_posterior([0.5], label_frequency=0.0),
            ValueError,
            "label_frequency must be > 0",
        ),
        (lambda: prior_sensitivity(S4, [1, 0, 0, 0], "auc", (0.1, 0.2)), ValueError, "metric"),
        (lambda: prior_sensitivity(S4, [1, 0, 0, 0], "f1", (0.1, 1.2)), ValueError, "< 1"),
        (lambda: prior_sensitivity(S4, [1, 0, 0, 0], "f1", [0.1]), ValueError, "interval"),
        (lambda: prior_sensitivity(S4, [1, 0, 0, 0], "f1", 0.1), TypeError, "interval"),
        (lambda: prior_sensitivity(S4, [1, 0, 0, 0], "f1", (0.1, 0.2), num=1), ValueError, "num"),
        (
            lambda: prior_sensitivity(
                S4, [1, 0, 0, 0], "f1", SimpleNamespace(prior_=0.2, prior_interval_=None)
            ),
            ValueError,
            "prior_interval_ None",
        ),
        (lambda: make_pu_scorer("pu-auc"), ValueError, "metric must be one of"),
    ],
)
def test_errors(call, err, match):
    with pytest.raises(err, match=match):
        call()
