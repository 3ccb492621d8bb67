"""The 25-Gaussian grid (thesis section 4.4.1, spec pae.md 7.1 and 8): PAE against a VAE and a
WGAN-GP on the same 500 points and budget, several seeds; the thesis' KDE log-likelihood and
the GAN literature's counts (modes, high-quality samples, reverse KL of the mode histogram).

    python benchmarks/bench_pae_grid.py                      # scaled-down protocol, all runs
    python benchmarks/bench_pae_grid.py --models PAE --seeds 0
    python benchmarks/bench_pae_grid.py --report             # only rebuild the report
    python benchmarks/bench_pae_grid.py --quick              # smoke: 40 steps, seed 0
    python benchmarks/bench_pae_grid.py --models PAE PAE-pca --iters 150000 --chunks 5 \
        --decay-chunks 4 --name pae_grid_150k    # a longer budget, its own report (archived)
    python benchmarks/bench_pae_grid.py --models PAE-pca --iters 210000 --chunks 7 \
        --decay-chunks 6 --final-chunks 2 --name pae_grid_210k  # a third phase at 3e-5

Models: PAE (the thesis' random start), PAE-pca (``init="pca"``), WGAN-GP, VAE. Each (model,
seed) run is written to benchmarks/results/<name>_runs/ when it ends, and the report
(<name>.md, <name>_samples.png, <name>_curves.png; name pae_grid by default) is rebuilt from
every run found there, so runs can be done one at a time. ``--quick`` trains every model for 40
steps on seed 0 and evaluates on few samples (``<name>-quick`` in ``--out``).
"""

from __future__ import annotations

from pathlib import Path

import _harness as bench
import numpy as np
from _harness.pae import (
    PAEModel,
    VAEModel,
    WGANGPModel,
    commands_line,
    experiment_parser,
    fmt,
    load_runs,
    planned_runs,
    quick_schedule,
    run_model,
    save_run,
    schedule_steps,
    stem,
)

from unlabeled.generative import (
    grid_centres,
    grid_mode_metrics,
    kde_log_likelihood,
    make_gaussian_grid,
)

STD = np.sqrt(0.1)
IDEAL_LL = -np.log(25) - np.log(2 * np.pi * np.e * 0.1)
HIDDEN = (128, 128)
# the scaled-down protocol: steps, PAE rate, evaluations, and the final ones at a tenth of the
# rate (it drops from step 30,000 of 60,000)
ITERS, PAE_LR, CHUNKS, DECAY_CHUNKS = 60_000, 3e-3, 6, 3
# thesis Table 4.1 (2e6 iterations) and PacGAN's best grid result (Lin et al. 2018, Table 2)
ANCHORS = {"PAE": -4.8, "WGAN-GP": -4.1, "VAE": -5.5}


def make_model(name, X, seed, lr):
    if name in ("PAE", "PAE-pca"):
        init = "pca" if name == "PAE-pca" else "random"
        return PAEModel(X, 2, HIDDEN, lam=10.0, lr=lr, batch=500, seed=seed, init=init)
    if name == "VAE":
        return VAEModel(X, 2, HIDDEN, lr=lr, batch=500, seed=seed)
    return WGANGPModel(X, 2, HIDDEN, lr=lr, batch=500, seed=seed)


def evaluator(seed, small=False):
    """The evaluation after each chunk (``small``: a smoke run's, on few samples)."""
    test, _ = make_gaussian_grid(5_000, random_state=10_000 + seed, balanced=False)
    quick_test = test[:1000]

    def evaluate(model, final):
        counts = grid_mode_metrics(model.sample(2500, seed + 1), grid_centres(), STD)
        n_gen, n_held, t = (15_000, 2_000, test) if final else (2_000, 1_000, quick_test)
        if small:
            n_gen, n_held, t = 1000, 500, test[:500]
        ll = kde_log_likelihood(model.sample(n_gen, seed + 2), model.sample(n_held, seed + 3), t)
        return {
            "ll": ll["mean"],
            "ll_std": ll["std"],
            "bandwidth": ll["bandwidth"],
            "modes": float(counts["modes"]),
            "high_quality": counts["high_quality"],
            "reverse_kl": counts["reverse_kl"],
        }

    return evaluate


def run(runs_dir, name, seed, iters, chunks, lr, decay_chunks, final_chunks, small=False):
    X, _ = make_gaussian_grid(500, random_state=seed)
    model = make_model(name, X, seed, lr)
    print(f"{name} seed {seed}: {iters} iterations", flush=True)
    log = lambda line: print(line, flush=True)  # noqa: E731
    curve, seconds = run_model(
        model, iters, chunks, evaluator(seed, small), log, decay_chunks, final_chunks
    )
    extra = schedule_steps(iters, chunks, decay_chunks, final_chunks)
    save_run(
        runs_dir, model, name, seed, iters, lr, seconds, curve, model.sample(2500, seed + 1), extra
    )


def table(runs):
    lines = [
        "| model | seeds | iterations | test LL (KDE) | thesis LL | modes (of 25) | "
        "high-quality | reverse KL | it/s | train time |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name in dict.fromkeys(r["model"] for r in runs):
        rs = [r for r in runs if r["model"] == name]
        f = [r["final"] for r in rs]
        lines.append(
            f"| {name} | {len(rs)} | {rs[0]['iters']} | {fmt([x['ll'] for x in f])} | "
            f"{ANCHORS.get(name, '-')} | {fmt([x['modes'] for x in f], 1)} | "
            f"{fmt([100 * x['high_quality'] for x in f], 1)} % | "
            f"{fmt([x['reverse_kl'] for x in f], 3)} | {fmt([r['it_per_s'] for r in rs], 0)} | "
            f"{fmt([r['train_seconds'] / 60 for r in rs], 1)} min |"
        )
    lines += [
        "",
        "Every run (final checkpoint):",
        "",
        "| model | seed | test LL ± std over 10 test batches | bandwidth | modes | "
        "high-quality | reverse KL | train time |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in runs:
        x = r["final"]
        lines.append(
            f"| {r['model']} | {r['seed']} | {x['ll']:.2f} ± {x['ll_std']:.2f} | "
            f"{x['bandwidth']:.3g} | {x['modes']:.0f} | {100 * x['high_quality']:.1f} % | "
            f"{x['reverse_kl']:.3f} | {r['train_seconds'] / 60:.1f} min |"
        )
    return lines


def goals(runs):
    """Issue 15's goals for each PAE variant, seed by seed, and whether this run reached them."""
    pae = [r for r in runs if r["model"].startswith("PAE")]
    if not pae:
        return []
    reduced = pae[0]["iters"] < 60_000
    lines = [
        f"**Reduced protocol**: {pae[0]['iters']:,} PAE steps per run, not the spec's scaled-down "
        "60,000-100,000 (nor the thesis' 2e6). The full scaled-down protocol: "
        "`python benchmarks/bench_pae_grid.py`."
        if reduced
        else f"**Budget**: {pae[0]['iters']:,} PAE steps per run (the spec's scaled-down "
        "protocol, section 8: 60,000-100,000; the thesis: 2e6).",
        "",
    ]
    for name in dict.fromkeys(r["model"] for r in pae):
        rs = [r for r in pae if r["model"] == name]
        cells = [
            f"seed {r['seed']}: LL {r['final']['ll']:.2f}, {r['final']['modes']:.0f} modes, "
            f"{100 * r['final']['high_quality']:.1f} % high quality"
            for r in rs
        ]
        met = all(
            r["final"]["ll"] >= -4.1
            and r["final"]["modes"] == 25
            and r["final"]["high_quality"] >= 0.94
            for r in rs
        )
        lines.append(
            f"- **Goals, {name}** (test LL >= -4.1, 25 of 25 modes and >= 94 % high-quality "
            f"samples in every seed): {'met' if met else 'not met'} at this budget "
            f"({'; '.join(cells)})."
        )
    return lines


def plots(runs, runs_dir, out, stem):
    plt = bench.pyplot()
    if plt is None:
        return
    names = list(dict.fromkeys(r["model"] for r in runs))
    seeds = sorted({r["seed"] for r in runs})
    fig, axes = plt.subplots(
        len(seeds),
        len(names) + 1,
        figsize=(3.2 * (len(names) + 1), 3.2 * len(seeds)),
        squeeze=False,
    )
    for i, seed in enumerate(seeds):
        X, _ = make_gaussian_grid(500, random_state=seed)
        axes[i, 0].scatter(*X.T, s=2, c="k")
        axes[i, 0].set_title(f"training data (seed {seed})", fontsize=9)
        for j, name in enumerate(names, 1):
            ax = axes[i, j]
            path = runs_dir / f"{name}_seed{seed}.npy"
            if path.exists():
                S = np.load(path)
                ax.scatter(*S.T, s=1, alpha=0.4)
                fin = next(r for r in runs if (r["model"], r["seed"]) == (name, seed))["final"]
                ax.set_title(
                    f"{name}: LL {fin['ll']:.2f}, {fin['modes']:.0f} modes, "
                    f"{100 * fin['high_quality']:.0f}% HQ",
                    fontsize=9,
                )
        for ax in axes[i]:
            ax.set_xlim(-27, 27)
            ax.set_ylim(-27, 27)
            ax.set_aspect("equal")
            ax.tick_params(labelsize=7)
    bench.save_figure(fig, out / f"{stem}_samples.png", dpi=90)
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    for r in runs:
        per = 5 if r["model"] == "WGAN-GP" else 1  # critic steps: the budget's unit
        it = [per * c["iteration"] for c in r["curve"]]
        color = f"C{names.index(r['model'])}"
        axes[0].plot(
            it,
            [c["ll"] for c in r["curve"]],
            "o-",
            color=color,
            ms=3,
            label=r["model"] if r["seed"] == seeds[0] else None,
        )
        axes[1].plot(it, [100 * c["high_quality"] for c in r["curve"]], "o-", color=color, ms=3)
    axes[0].axhline(IDEAL_LL, color="k", ls=":", label="true density (-3.75)")
    axes[0].axhline(-4.1, color="gray", ls="--", label="goal / thesis WGAN-GP (-4.1)")
    axes[0].set_ylim(-12, -3.5)
    axes[0].set_ylabel("test log-likelihood (quick KDE; last point: full)")
    axes[1].axhline(94, color="gray", ls="--")
    axes[1].set_ylabel("high-quality samples (%)")
    for ax in axes:
        ax.set_xlabel("steps (WGAN-GP: critic steps, 5 per generator step)")
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=8)
    bench.save_figure(fig, out / f"{stem}_curves.png", dpi=90)


def report(out, name):
    """``<out>/<name>.md`` and its plots, from every run in ``<out>/<name>_runs``."""
    runs_dir = out / f"{name}_runs"
    runs = load_runs(runs_dir)
    if not runs:
        return
    plots(runs, runs_dir, out, name)
    r0 = runs[0]
    lrs = ", ".join(
        f"{n} {next(r['lr'] for r in runs if r['model'] == n):g}"
        for n in dict.fromkeys(r["model"] for r in runs)
    )
    text = [
        "# 25-Gaussian grid: Plummer autoencoder against VAE and WGAN-GP",
        "",
        commands_line(runs) + "  ",
        f"Machine: {'; '.join(dict.fromkeys(r['machine'] for r in runs))} (one torch thread "
        "per run; runs share the cores with each other and with other jobs, so train times "
        "depend on the load: compare them only within a report); last run "
        f"{max(r['date'] for r in runs)}.",
        "",
        "Protocol (spec `pae.md` section 8, scaled down from the thesis' 2e6 iterations): "
        "code-hint geometry (centres {-21,-10.5,0,10.5,21}^2, covariance 0.1 I), 500 training "
        "points (20 per mode, drawn with the run's seed), full batch N = 500, Adam(betas "
        f"0.5/0.9, lr {lrs}) , thesis Appendix B.1 architectures "
        "(hidden 128,128; PAE E 2-2 tanh, G 2-2; VAE E 2-4, G 2-2; WGAN-GP G 2-2, D 2-1, 5 "
        "critic steps per generator step, penalty 10). PAE: lam 10, eps 1e-4, beta 1, "
        "uniform prior on [-1,1]^2; PAE starts from the thesis' random weights, PAE-pca is the "
        'same model with `init="pca"` (before training, the encoder alone is fitted for '
        "1,000 Adam steps to the empirical quantiles of the standardised coordinates, so the "
        "modes' latent cells start as a lattice aligned with the square; a deviation from the "
        "thesis). Every model has fixed standardising input and "
        "de-standardising output layers (PAE's `scale_data=True`). PAE's learning rate 3e-3 "
        "was chosen over the spec's 1e-3 in two 8,000-step trials on seed 0 (24 vs 3 modes); "
        "the baselines keep the spec's 1e-3 (not tuned). Budget: PAE and VAE take the same "
        "number of steps; "
        "WGAN-GP takes a fifth as many generator steps, i.e. as many critic steps as the "
        "others take steps (about the same time). Deviation from the thesis' constant rate: "
        f"from step {r0['lr_decay_from']} of {r0['iters']} (PAE/VAE; the same share for "
        "WGAN-GP) every model runs at a tenth of the learning rate, which the "
        f"{2e6 / r0['iters']:.0f}x shorter budget needs to settle (the curve shows the checkpoint "
        "before the decay). Where the decay starts was chosen on PAE seed 0 at 60,000 steps: "
        "from step 30,000, 88.0 % high-quality samples; from step 50,000, 85.1 %."
        + (
            f" From step {r0['lr_final_from']} the rate drops by another tenth (a third phase)."
            if "lr_final_from" in r0
            else ""
        ),
        "",
        "- **Test LL**: Gaussian KDE on 15,000 generated samples, bandwidth from "
        "`logspace(-3, 1.5, 10)` by the mean log-density of 2,000 more generated samples, "
        "score = mean log-density of 5,000 fresh true samples; `±` across seeds in the "
        "summary, across 10 test batches in the per-run table. The true density scores "
        f"{IDEAL_LL:.2f}.",
        "- **Counts** (VEEGAN/PacGAN): 2,500 samples; high-quality = within 3 standard "
        "deviations (3 sqrt(0.1)) of the nearest centre; a mode is covered with >= 20 "
        "high-quality samples; reverse KL = KL(histogram of high-quality samples over the 25 "
        "modes || uniform). True samples: 25 modes, 98.9 % high quality, KL ~0.005.",
        "- **Anchors**: thesis Table 4.1 (2e6 iterations): PAE -4.8 ± 0.4, WGAN-GP -4.1 ± 0.1 "
        "(best), VAE -5.5 ± 0.2. PacGAN (Lin et al. 2018) best grid result: 24.8 modes, "
        "93.6 % high-quality samples.",
        "",
        *goals(runs),
        "",
        *table(runs),
        "",
        f"![samples]({name}_samples.png)",
        "",
        f"![curves]({name}_curves.png)",
        "",
    ]
    (out / f"{name}.md").write_text("\n".join(text))
    bench.written(out / f"{name}.md")


def main():
    ap = experiment_parser(__doc__, ITERS, PAE_LR, "pae_grid")
    ap.set_defaults(
        chunks=CHUNKS, decay_chunks=DECAY_CHUNKS, models=["PAE", "PAE-pca", "WGAN-GP", "VAE"]
    )
    args = bench.parse(ap)
    if args.quick:
        quick_schedule(args)
    name, out = stem(args), Path(args.out)
    if not args.report:
        for seed, model, iters, lr in planned_runs(args):
            run(
                out / f"{name}_runs",
                model,
                seed,
                iters,
                args.chunks,
                lr,
                args.decay_chunks,
                args.final_chunks,
                small=args.quick,
            )
            if not args.quick:  # a report after every run, so that a cut run leaves one
                report(out, name)
    report(out, name)


if __name__ == "__main__":
    main()
