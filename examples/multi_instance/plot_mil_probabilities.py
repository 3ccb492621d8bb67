"""
Bag probabilities, and scaling bags in a pipeline
=================================================

With ``probability=True`` the multi-instance estimators give ``predict_proba`` per bag:
Platt's sigmoid of the bag value (the largest instance value), fitted on held-out bag values
of an internal 5-fold cross-validation over bags (stratified by bag label, never splitting a
bag).

A scaler cannot take a list of bags, so :class:`unlabeled.mil.BagTransformer` fits any
scikit-learn transformer on the instances of all the bags and returns the bags transformed:
``make_pipeline(BagTransformer(StandardScaler()), MISVM(probability=True))`` fits, predicts
and cross-validates on a list of bags. Here the features have very different scales, which
an rbf kernel on the raw values would not survive.
"""

# %%
import matplotlib.pyplot as plt
import numpy as np
from sklearn.calibration import calibration_curve
from sklearn.metrics import brier_score_loss
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from unlabeled import MISVM
from unlabeled.mil import BagTransformer

rng = np.random.default_rng(0)
scale = np.array([1.0, 100.0])  # the second feature in other units


def make_bags(n_bags):
    """Bags of 3 to 8 instances; a bag is positive when its key instance (drawn for every
    bag, shifted only in positive bags) lies beyond a noisy threshold: labels overlap."""
    bags, labels = [], []
    for _ in range(n_bags):
        bag = rng.normal(0, 1, (int(rng.integers(3, 8)), 2))
        y = int(rng.random() < 0.5)
        bag[0] += (2.2 if y else 0.0) + rng.normal(0, 0.8, 2)
        bags.append(bag * scale)
        labels.append(y)
    return bags, np.array(labels)


bags, y = make_bags(200)
test_bags, y_test = make_bags(300)

scaled = make_pipeline(
    BagTransformer(StandardScaler()), MISVM(C=10.0, gamma=0.5, probability=True, random_state=0)
).fit(bags, y)
raw = MISVM(C=10.0, gamma=0.5, probability=True, random_state=0).fit(bags, y)
p_scaled = scaled.predict_proba(test_bags)[:, 1]
p_raw = raw.predict_proba(test_bags)[:, 1]
for name, model, p in (("scaled pipeline", scaled, p_scaled), ("raw features", raw, p_raw)):
    acc = np.mean(model.predict(test_bags) == y_test)
    print(f"{name:>15}: bag accuracy {acc:.3f}, Brier score {brier_score_loss(y_test, p):.3f}")

# %%
# Reliability of the bag probabilities
# ------------------------------------
fig, (ax0, ax1) = plt.subplots(1, 2, figsize=(11, 4.2))
for name, p in (("BagTransformer(StandardScaler()) + MISVM", p_scaled), ("MISVM on raw", p_raw)):
    frac, mean = calibration_curve(y_test, p, n_bins=6, strategy="quantile")
    ax0.plot(mean, frac, marker="o", label=name)
ax0.plot([0, 1], [0, 1], "k--", lw=1, label="calibrated")
ax0.set(xlabel="predicted P(bag positive)", ylabel="share of positive bags", title="Reliability")
ax0.legend(loc="upper left", fontsize="small")
ax1.hist(p_scaled[y_test == 1], bins=15, range=(0, 1), alpha=0.6, label="positive bags")
ax1.hist(p_scaled[y_test == 0], bins=15, range=(0, 1), alpha=0.6, label="negative bags")
ax1.set(xlabel="P(bag positive), scaled pipeline", ylabel="test bags", title="By true label")
ax1.legend()
fig.tight_layout()
plt.show()

# %%
# In the instance layout (a 2-D array with a bag id per row) a plain ``StandardScaler()`` is
# enough: with scikit-learn's metadata routing on, a ``Pipeline`` routes ``groups`` to the
# multi-instance step only; see :doc:`/user_guide/multi_instance`.
