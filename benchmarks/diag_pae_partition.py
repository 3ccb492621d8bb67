"""Where do the PAE's low-quality grid samples come from? A diagnostic of issue 15's 94 %
high-quality goal.

Trains the PAE of bench_pae_grid.py (same data, model, budget and rate schedule) and decodes a
fine regular grid over the latent square [-1, 1]^2 (the uniform prior). Each latent point gets
the grid mode nearest its decoded point and its distance from that centre in standard
deviations; a point is low-quality beyond 3 (the counts of bench_pae_grid.py, here as shares of
the prior's area rather than of 2,500 samples). The latent square is thereby cut into cells,
one per mode. Reported per seed:

- the total length of the cell boundaries (a 5 x 5 grid of cells has 16);
- the share of the prior that is low-quality, split by distance from a boundary;
- how far the training codes stay from the boundaries (the loss sees the decoder only there).

    python benchmarks/diag_pae_partition.py --seeds 0 1 2      # about 5 min per seed

Writes benchmarks/results/pae_partition.md and pae_partition.png (``--name``).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
from scipy import ndimage

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common as bench  # noqa: E402
from _pae_common import run_model  # noqa: E402
from bench_pae_grid import (  # noqa: E402
    CHUNKS,
    DECAY_CHUNKS,
    ITERS,
    PAE_LR,
    STD,
    evaluator,
    make_model,
)

from unlabeled.generative import grid_centres, make_gaussian_grid  # noqa: E402

BANDS = (0.005, 0.01, 0.02, 0.04)


def partition(est, size):
    """(mode label, distance in sd) of the decoded centre of every pixel of a size x size grid
    over [-1, 1]^2."""
    axis = (np.arange(size) + 0.5) / size * 2 - 1
    Z = np.stack(np.meshgrid(axis, axis, indexing="ij"), -1).reshape(-1, 2)
    out = est.inverse_transform(Z)
    d2 = ((out[:, None, :] - grid_centres()[None]) ** 2).sum(-1)
    return d2.argmin(1).reshape(size, size), np.sqrt(d2.min(1)).reshape(size, size) / STD


def analyse(est, X, size):
    label, dist = partition(est, size)
    pixel = 2.0 / size
    changes = [label[1:] != label[:-1], label[:, 1:] != label[:, :-1]]
    edge = np.zeros(label.shape, bool)
    edge[1:] |= changes[0]
    edge[:-1] |= changes[0]
    edge[:, 1:] |= changes[1]
    edge[:, :-1] |= changes[1]
    to_edge = ndimage.distance_transform_edt(~edge) * pixel
    low = dist >= 3
    codes = est.transform(X)
    idx = np.clip(((codes + 1) / pixel).astype(int), 0, size - 1)
    row = {
        "boundary": float(sum(c.sum() for c in changes) * pixel),
        "low": float(low.mean()),
        "low_3_6": float((low & (dist < 6)).mean()),
        "low_6": float((dist >= 6).mean()),
        "code_gap": float(np.median(to_edge[idx[:, 0], idx[:, 1]])),
    }
    for w in BANDS:
        band = to_edge <= w
        row[f"area_{w}"] = float(band.mean())
        row[f"low_{w}"] = float((low & band).mean())
    return row, label, dist, codes


def main():
    ap = bench.parser(__doc__, quick="one seed, 3,000 steps", name="pae_partition")
    ap.add_argument("--seeds", type=int, nargs="+", default=[0])
    ap.add_argument("--iters", type=int, default=ITERS)
    ap.add_argument("--size", type=int, default=800, help="pixels per side of the latent grid")
    args = bench.parse(ap)
    if args.quick:
        args.seeds, args.iters = args.seeds[:1], 3000
    start = time.perf_counter()
    rows, maps = [], []
    for seed in args.seeds:
        X, _ = make_gaussian_grid(500, random_state=seed)
        model = make_model("PAE", X, seed, PAE_LR)
        curve, _ = run_model(
            model, args.iters, CHUNKS, evaluator(seed), print, decay_chunks=DECAY_CHUNKS
        )
        row, label, dist, codes = analyse(model.est, X, args.size)
        row["seed"], row["sampled_hq"] = seed, curve[-1]["high_quality"]
        rows.append(row)
        maps.append((seed, label, dist, codes))
    took = f"{(time.perf_counter() - start) / 60:.1f} min"

    plt = bench.pyplot()
    fig, axes = plt.subplots(2, len(maps), figsize=(4.2 * len(maps), 8.4), squeeze=False)
    for j, (seed, label, dist, codes) in enumerate(maps):
        for i, (img, cmap) in enumerate(((label, "tab20"), (np.minimum(dist, 10), "viridis"))):
            ax = axes[i, j]
            ax.imshow(img.T, origin="lower", cmap=cmap, extent=(-1, 1, -1, 1))
            ax.scatter(*codes.T, s=1.5, c="k" if i == 0 else "w")
            ax.set_title(
                f"seed {seed}: " + ("nearest mode" if i == 0 else "distance in sd (capped 10)"),
                fontsize=9,
            )
    fig.tight_layout()
    fig.savefig(bench.output(args, args.name, ".png"), dpi=80)
    plt.close(fig)

    lines = bench.header("PAE on the 25-Gaussian grid: the latent cells and their boundaries", took)
    lines += [
        f"The PAE of `bench_pae_grid.py` ({args.iters:,} steps, its rate schedule), decoded on "
        f"a {args.size} x {args.size} grid over the latent square. Shares are of the prior's "
        "area; low quality = decoded beyond 3 sd of the nearest centre. Plot: "
        f"`{bench.output(args, args.name, '.png').name}` (training codes as dots).",
        "",
        "| seed | high quality (2,500 samples) | low-quality share of the prior | at 3-6 sd | "
        "beyond 6 sd | boundary length (5 x 5 grid: 16) | "
        + " | ".join(f"low within {w} of a boundary (band area)" for w in BANDS)
        + " | median distance of a training code from a boundary |",
        "|---|---|---|---|---|---|" + "---|" * len(BANDS) + "---|",
    ]
    for r in rows:
        bands = " | ".join(f"{r[f'low_{w}']:.3f} ({r[f'area_{w}']:.3f})" for w in BANDS)
        lines.append(
            f"| {r['seed']} | {100 * r['sampled_hq']:.1f} % | {r['low']:.3f} | "
            f"{r['low_3_6']:.3f} | {r['low_6']:.3f} | {r['boundary']:.1f} | {bands} | "
            f"{r['code_gap']:.3f} |"
        )
    bench.write_markdown(args, args.name, lines)


if __name__ == "__main__":
    main()
