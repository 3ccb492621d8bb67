"""
Plummer autoencoder: the latent space
=====================================

The encoder of a :class:`unlabeled.PlummerAutoencoder` maps the data into ``(-1, 1)^h``,
where the Plummer-kernel MMD pushes the codes towards the uniform law; the decoder maps the
square back into data space. Here, on the 25-Gaussian grid after the short run of
:doc:`plot_autoencoder_grid` (6,000 steps, about 20 seconds on one core; all 25 modes
covered, 79 % of the samples within 3 standard deviations of a mode):

* left, ``transform(X)``: the codes of the data, coloured by the mode each point came from
  (20 colours for 25 modes: some repeat). Each mode occupies its own compact region, and the
  regions spread over the whole square, as the MMD to the uniform law asks;
* right, ``inverse_transform`` of a regular grid of codes: the decoder's image of the
  square, with the data behind. Regions of the square that no mode occupies decode to points
  between the modes.
"""

# %%
import matplotlib.pyplot as plt
import numpy as np

from unlabeled import PlummerAutoencoder
from unlabeled.generative import grid_centres, grid_mode_metrics, make_gaussian_grid

X, mode = make_gaussian_grid(2000, random_state=0)
pae = PlummerAutoencoder(
    hidden_layer_sizes=(64, 64, 64),
    lam=30.0,
    init="pca",
    batch_size=200,
    learning_rate=1e-2,
    max_iter=4000,
    random_state=4,
    n_jobs=1,
).fit(X)
pae.set_params(warm_start=True, learning_rate=1e-3, max_iter=2000).fit(X)  # 2,000 more
modes = grid_mode_metrics(pae.sample(2500, random_state=0), grid_centres(), np.sqrt(0.1))
print(f"modes covered: {modes['modes']} of 25")
Z = pae.transform(X)
print(f"codes in [{Z.min():.2f}, {Z.max():.2f}]; feature names {pae.get_feature_names_out()}")

# %%
# Codes of the data, and the decoder's image of the square
# --------------------------------------------------------
u = np.linspace(-0.95, 0.95, 25)
grid = np.array([[a, b] for a in u for b in u])
decoded = pae.inverse_transform(grid)
fig, (ax0, ax1) = plt.subplots(1, 2, figsize=(12, 5.5))
ax0.scatter(*Z.T, c=mode, cmap="tab20", s=5)
ax0.set(xlim=(-1, 1), ylim=(-1, 1), aspect="equal", title="transform(X), coloured by mode")
ax0.set(xlabel="code 0", ylabel="code 1")
ax1.scatter(*X.T, c="0.8", s=4, label="data")
ax1.scatter(*decoded.T, c=grid[:, 0], cmap="viridis", s=6, label="decoded grid of codes")
ax1.set(aspect="equal", title="inverse_transform(regular grid)")
ax1.set(xlabel="feature 0", ylabel="feature 1")
ax1.legend(loc="lower left", fontsize="small", markerscale=3)
fig.tight_layout()
plt.show()
