r"""Class-prior estimation from positive and unlabeled data.

Every estimator here answers one question: given ``p`` labeled positives ``P`` and ``n``
unlabeled points ``U`` (labels ``s``: 1 = labeled positive, 0 or -1 = unlabeled, as for
:class:`~unlabeled.PUSVC`), what proportion ``pi`` of the unlabeled points is positive? That
``pi`` is the ``prior`` of :class:`~unlabeled.PUSVC`.

Two families of methods, two views of the same data:

* **Mixture proportion estimation** (case-control view): ``U`` is a sample of the mixture
  ``F = pi H + (1 - pi) G`` and ``P`` a sample of the component ``H`` (the positives).
  :class:`KM1`, :class:`KM2` (Ramaswamy, Scott and Tewari, ICML 2016) and :class:`PenalizedL1`
  (du Plessis, Niu and Sugiyama, ACML 2015) estimate ``pi`` directly.
* **Label frequency** (single-training-set view, "selected completely at random"): every
  positive of the data set was labeled with the same probability ``c = P(s=1 | y=1)``.
  :class:`ElkanNoto` (KDD 2008) and :class:`TIcE` (Bekker and Davis, AAAI 2018) estimate ``c``;
  then, since the ``p`` labeled positives are a fraction ``c`` of all ``p / c`` positives, the
  unlabeled points hold ``p / c - p`` positives and

  .. math::  \pi = \frac{p/c - p}{n} = \frac{p (1 - c)}{c\, n}.

* **Combinations** of an estimate that errs high (best-bin estimation, :class:`BestBin`, Garg
  et al., NeurIPS 2021) and one that errs low with few labels (:class:`TIcE`):
  :class:`Blend`, the mean of the two averaged over repeated splits (``PUSVC``'s
  ``prior="auto"``), and :class:`Bracket`.

All estimators share ``fit(X, s)``, the fitted ``prior_``, and a bootstrap interval: with
``n_bootstrap > 0`` the estimate is repeated on ``n_bootstrap`` resamples that draw ``P`` and
``U`` separately with replacement (keeping ``p`` and ``n``), and ``prior_interval_`` holds the
percentile interval at level ``confidence``. It quantifies the sampling spread of the estimator,
not its bias: a biased estimator can have a narrow interval that misses the truth, and for a
skewed bootstrap distribution the interval need not contain ``prior_`` (:class:`TIcE`'s
docstring gives its coverage on generated data).

Example
-------
>>> import numpy as np
>>> from unlabeled.pu.priors import KM2
>>> rng = np.random.default_rng(0)
>>> Xp = rng.normal(2, 1, (200, 2))                                   # labeled positives
>>> Xu = np.r_[rng.normal(2, 1, (120, 2)), rng.normal(-2, 1, (280, 2))]  # 30% positives
>>> X, s = np.r_[Xp, Xu], np.r_[np.ones(200), np.zeros(400)]
>>> est = KM2(random_state=0).fit(X, s)
>>> round(est.prior_, 1)
0.3

The estimators are written in one private module per family; this module is their public
home: their model files and pickles name them here.
"""

from ..registry import exported
from ._priors_base import prior_from_label_frequency as prior_from_label_frequency
from ._priors_bins import BestBin as BestBin
from ._priors_bins import Bracket as Bracket
from ._priors_blend import Blend as Blend
from ._priors_frequency import ElkanNoto as ElkanNoto
from ._priors_frequency import TIcE as TIcE
from ._priors_km import KM1 as KM1
from ._priors_km import KM2 as KM2
from ._priors_l1 import PenalizedL1 as PenalizedL1

__all__ = [*exported(__name__), "prior_from_label_frequency"]
