"""
Probabilities calibrated from PU data alone
===========================================

``PUSVC(probability=True)`` adds ``predict_proba``: a sigmoid of the decision value ``f(x)``
fitted on held-out decision values of an internal 5-fold cross-validation. With no negative
labels, the sigmoid cannot be fitted to classes as Platt's is; it is fitted by the likelihood
of the PU labels under the known prior instead. The result estimates ``P(y = 1 | x)`` on the
unlabeled population, and is compared here with the truth in a reliability diagram.

A naive calibrated SVC on ``s`` estimates something else, ``P(s = 1 | x)``: the
probability of being *labeled*, which is at most the label frequency.
"""

# %%
import matplotlib.pyplot as plt
from sklearn.calibration import CalibratedClassifierCV, calibration_curve
from sklearn.datasets import load_breast_cancer
from sklearn.metrics import brier_score_loss
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from unlabeled import PUSVC
from unlabeled.datasets import make_pu_labels

X, target = load_breast_cancer(return_X_y=True)
y = (target == 1).astype(int)  # benign = positive (the larger class)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.4, random_state=0)
scaler = StandardScaler().fit(X_train)
X_train, X_test = scaler.transform(X_train), scaler.transform(X_test)
s = make_pu_labels(y_train, labeled_fraction=0.3, random_state=0)
prior = y_train[s == 0].mean()

pu = PUSVC(prior=prior, lam=0.01, gamma="scale", probability=True, random_state=0)
pu.fit(X_train, s)
naive = CalibratedClassifierCV(SVC(gamma="scale"), ensemble=False).fit(X_train, s)

p_pu = pu.predict_proba(X_test)[:, 1]
p_naive = naive.predict_proba(X_test)[:, 1]
for name, p in [("PUSVC(probability=True)", p_pu), ("naive SVC on s", p_naive)]:
    print(f"{name:>24}: Brier score against the truth {brier_score_loss(y_test, p):.3f}")

# %%
# Reliability diagram
# -------------------
# A calibrated model's points lie on the diagonal: of the test points given probability
# ``p``, a share ``p`` is positive.
fig, (ax0, ax1) = plt.subplots(1, 2, figsize=(11, 4.2))
for name, p in [("PUSVC(probability=True)", p_pu), ("naive SVC on s", p_naive)]:
    frac, mean = calibration_curve(y_test, p, n_bins=8, strategy="quantile")
    ax0.plot(mean, frac, marker="o", label=name)
ax0.plot([0, 1], [0, 1], "k--", lw=1, label="calibrated")
ax0.set(xlabel="predicted P(y=1|x)", ylabel="share of positives", title="Reliability")
ax0.legend(loc="upper left")
ax1.hist(p_pu[y_test == 1], bins=20, range=(0, 1), alpha=0.6, label="positives")
ax1.hist(p_pu[y_test == 0], bins=20, range=(0, 1), alpha=0.6, label="negatives")
ax1.set(xlabel="PUSVC's P(y=1|x)", ylabel="test points", title="PUSVC's probabilities by class")
ax1.legend()
fig.tight_layout()
plt.show()

# %%
# The model itself (``decision_function``, ``predict``) is the same with and without
# ``probability=True``; the calibration costs five more fits.
