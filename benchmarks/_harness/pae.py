"""What the PAE experiments share: the two baselines (VAE, WGAN-GP) in compact PyTorch, one
chunked training interface for all three models, the run records and the report writers.
Needs torch. ``make_mlp`` and ``Affine`` are the library's own layers (the PAE's), so that the
baselines and the mode classifiers are built and initialised as the PAE is.

Baselines (thesis Appendix B architectures, ReLU hidden layers, Glorot-uniform weights):
- VAE (Kingma & Welling 2014): encoder d-H-2h (mean, log-variance), decoder h-H-d with a learned
  per-coordinate output log-variance (Gaussian likelihood); prior N(0, I); samples are decoder
  means plus output noise (the model's own generative law); one Adam over all parameters.
- WGAN-GP (Gulrajani et al. 2017): generator h-H-d fed N(0, I) noise, critic d-H-1 with linear
  output, 5 critic steps per generator step, gradient penalty 10 on random interpolates.
Same data, batch size, Adam betas (0.5, 0.9) and number of (generator) steps as the PAE, and the
same fixed standardising input / de-standardising output layers as PAE's ``scale_data=True``.
"""

from __future__ import annotations

import os
import platform
import subprocess
import time

import numpy as np
import torch

from unlabeled.generative import PlummerAutoencoder
from unlabeled.generative._torch_ops import Affine, make_mlp

from . import command, output, parser, written

torch.set_num_threads(1)


def cpu_name() -> str:
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
    except OSError:
        return platform.processor()
    name = [ln.split(":", 1)[1].strip() for ln in out.splitlines() if "Model name" in ln]
    return f"{name[0] if name else platform.processor()}, {len(os.sched_getaffinity(0))} cores"


class PAEModel:
    def __init__(self, X, h, hidden, lam, lr, batch, seed, init="random"):
        self.X = X
        self.name = "PAE" if init == "random" else f"PAE-{init}"
        self.est = PlummerAutoencoder(
            n_components=h,
            hidden_layer_sizes=hidden,
            lam=lam,
            learning_rate=lr,
            betas=(0.5, 0.9),
            batch_size=batch,
            max_iter=1,
            device="cpu",
            random_state=seed,
            warm_start=True,
            init=init,
        )

    def train(self, n_iter):
        self.est.set_params(max_iter=n_iter).fit(self.X)

    def scale_lr(self, factor):
        self.est.set_params(learning_rate=self.est.learning_rate * factor)

    def sample(self, n, seed):
        return self.est.sample(n, random_state=seed)


class _TorchModel:
    """Shared plumbing: data tensor, batches, Adam and a seeded generator."""

    def __init__(self, X, h, batch, seed):
        self.X = torch.tensor(X, dtype=torch.float32)
        X = np.asarray(X)
        self.h, self.batch = h, min(batch, len(X))
        self.gen = torch.Generator().manual_seed(seed)
        self.init = torch.Generator().manual_seed(seed + 10_000)
        # the PAE's scale_data=True: fixed standardising input / de-standardising output layers
        std = X.std(0)
        self.shift, self.scale = X.mean(0), np.where(std > 0, std, 1.0)

    def data_in(self, net):
        net.insert(0, Affine(self.shift, self.scale, inverse=False))
        return net

    def data_out(self, net):
        net.append(Affine(self.shift, self.scale, inverse=True))
        return net

    def scale_lr(self, factor):
        for opt in self.optimizers:
            for group in opt.param_groups:
                group["lr"] *= factor

    def batch_x(self):
        n = self.X.shape[0]
        if self.batch == n:
            return self.X
        return self.X[torch.randperm(n, generator=self.gen)[: self.batch]]

    def noise(self, n, gen=None):
        return torch.randn((n, self.h), generator=gen or self.gen)


class VAEModel(_TorchModel):
    name = "VAE"

    def __init__(self, X, h, hidden, lr, batch, seed):
        super().__init__(X, h, batch, seed)
        d = X.shape[1]
        self.enc = self.data_in(make_mlp((d, *hidden, 2 * h), "linear", self.init))
        self.dec = self.data_out(make_mlp((h, *hidden[::-1], d), "linear", self.init))
        self.log_var = torch.zeros(d, requires_grad=True)
        params = [*self.enc.parameters(), *self.dec.parameters(), self.log_var]
        self.opt = torch.optim.Adam(params, lr=lr, betas=(0.5, 0.9))
        self.optimizers = [self.opt]

    def train(self, n_iter):
        for _ in range(n_iter):
            x = self.batch_x()
            mu, lv = self.enc(x).chunk(2, dim=1)
            z = mu + torch.exp(0.5 * lv) * self.noise(len(x))
            xr = self.dec(z)
            nll = 0.5 * (((x - xr) ** 2) / self.log_var.exp() + self.log_var).sum(1)
            kl = 0.5 * (mu**2 + lv.exp() - 1 - lv).sum(1)
            loss = (nll + kl).mean()
            self.opt.zero_grad(set_to_none=True)
            loss.backward()
            self.opt.step()

    def sample(self, n, seed):
        g = torch.Generator().manual_seed(seed)
        with torch.no_grad():
            mean = self.dec(self.noise(n, g))
            out = mean + torch.randn(mean.shape, generator=g) * (0.5 * self.log_var).exp()
        return out.double().numpy()


class WGANGPModel(_TorchModel):
    name = "WGAN-GP"

    def __init__(self, X, h, hidden, lr, batch, seed, n_critic=5, gp=10.0):
        super().__init__(X, h, batch, seed)
        d = X.shape[1]
        self.G = self.data_out(make_mlp((h, *hidden, d), "linear", self.init))
        self.D = self.data_in(make_mlp((d, *hidden, 1), "linear", self.init))
        self.opt_g = torch.optim.Adam(self.G.parameters(), lr=lr, betas=(0.5, 0.9))
        self.opt_d = torch.optim.Adam(self.D.parameters(), lr=lr, betas=(0.5, 0.9))
        self.optimizers = [self.opt_g, self.opt_d]
        self.n_critic, self.gp = n_critic, gp

    def _critic_step(self):
        x = self.batch_x()
        with torch.no_grad():
            fake = self.G(self.noise(len(x)))
        t = torch.rand((len(x), 1), generator=self.gen)
        mix = (t * x + (1 - t) * fake).requires_grad_(True)
        grad = torch.autograd.grad(self.D(mix).sum(), mix, create_graph=True)[0]
        penalty = ((grad.norm(dim=1) - 1) ** 2).mean()
        loss = self.D(fake).mean() - self.D(x).mean() + self.gp * penalty
        self.opt_d.zero_grad(set_to_none=True)
        loss.backward()
        self.opt_d.step()

    def train(self, n_iter):
        for _ in range(n_iter):
            for _ in range(self.n_critic):
                self._critic_step()
            loss = -self.D(self.G(self.noise(self.batch))).mean()
            self.opt_g.zero_grad(set_to_none=True)
            loss.backward()
            self.opt_g.step()

    def sample(self, n, seed):
        g = torch.Generator().manual_seed(seed)
        with torch.no_grad():
            return self.G(self.noise(n, g)).double().numpy()


def run_model(model, n_iter, n_chunks, evaluate, log, decay_chunks=1, final_chunks=0):
    """Train in ``n_chunks`` equal chunks, evaluating after each, the last ``decay_chunks`` at a
    tenth of the learning rate and the last ``final_chunks`` at a further tenth; returns the
    curve and the training time (evaluation excluded)."""
    curve, train_s, done = [], 0.0, 0
    for k in range(n_chunks):
        step = n_iter * (k + 1) // n_chunks - done
        if k == n_chunks - decay_chunks:
            model.scale_lr(0.1)
        if final_chunks and k == n_chunks - final_chunks:
            model.scale_lr(0.1)
        t0 = time.perf_counter()
        model.train(step)
        train_s += time.perf_counter() - t0
        done += step
        res = evaluate(model, final=k == n_chunks - 1)
        res["iteration"] = done
        curve.append(res)
        log(
            f"  {model.name} it {done}: "
            + ", ".join(f"{k}={v:.4g}" for k, v in res.items() if isinstance(v, float))
            + f" ({train_s:.0f}s)"
        )
    return curve, train_s


def schedule_steps(n_iter, n_chunks, decay_chunks, final_chunks=0):
    """Where :func:`run_model`'s rate drops, for the run records: ``lr_decay_from`` and, with a
    third phase, ``lr_final_from``."""
    steps = {"lr_decay_from": n_iter * (n_chunks - decay_chunks) // n_chunks}
    if final_chunks:
        steps["lr_final_from"] = n_iter * (n_chunks - final_chunks) // n_chunks
    return steps


def fmt(values, digits=2):
    values = np.asarray(values, float)
    return f"{values.mean():.{digits}f} ± {values.std():.{digits}f}"


def save_run(runs_dir, model, name, seed, iters, lr, seconds, curve, samples, extra=None):
    """One (model, seed) record as JSON plus its samples (for the plots)."""
    import json

    runs_dir.mkdir(parents=True, exist_ok=True)
    stem = runs_dir / f"{name}_seed{seed}"
    np.save(stem.with_suffix(".npy"), samples.astype(np.float32))
    written(stem.with_suffix(".npy"))
    record = {
        "model": name,
        "seed": seed,
        "iters": iters,
        "lr": lr,
        "train_seconds": seconds,
        "it_per_s": iters / seconds,
        "curve": curve,
        "final": curve[-1],
        "machine": cpu_name(),
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "command": command(),
        **(extra or {}),
    }
    stem.with_suffix(".json").write_text(json.dumps(record, indent=1))
    written(stem.with_suffix(".json"))


def load_runs(runs_dir):
    import json

    runs = [json.loads(p.read_text()) for p in sorted(runs_dir.glob("*.json"))]
    order = {"PAE": 0, "PAE-pca": 1, "WGAN-GP": 2, "VAE": 3}
    return sorted(runs, key=lambda r: (order.get(r["model"], 9), r["seed"]))


def summary_rows(runs, columns):
    """Markdown rows: one per model, mean ± std over seeds of each (title, key, scale, digits)."""
    lines = [
        "| model | seeds | iterations | "
        + " | ".join(c[0] for c in columns)
        + " | it/s | train time |",
        "|---" * (len(columns) + 5) + "|",
    ]
    for name in dict.fromkeys(r["model"] for r in runs):
        rs = [r for r in runs if r["model"] == name]
        cells = [fmt([scale * r["final"][key] for r in rs], dg) for _, key, scale, dg in columns]
        lines.append(
            f"| {name} | {len(rs)} | {rs[0]['iters']} | "
            + " | ".join(cells)
            + f" | {fmt([r['it_per_s'] for r in rs], 0)} | "
            f"{fmt([r['train_seconds'] / 60 for r in rs], 1)} min |"
        )
    return lines


def experiment_parser(doc, iters, pae_lr, name):
    """The command line both experiments share: the harness's (``--quick``, ``--out``,
    ``--name``: the report's stem and its runs folder ``<name>_runs``) and the training
    schedule."""
    ap = parser(
        doc,
        quick="a smoke run: one seed, a few dozen steps, small evaluations",
        name=name,
    )
    ap.add_argument("--models", nargs="+", default=["PAE", "WGAN-GP", "VAE"])
    ap.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    ap.add_argument("--iters", type=int, default=iters, help="PAE and VAE steps")
    ap.add_argument(
        "--wgan-iters",
        type=int,
        default=None,
        help="WGAN-GP generator steps (default iters/5: as many critic steps as the "
        "others take steps, about the same time)",
    )
    ap.add_argument("--chunks", type=int, default=5, help="evaluations along the run")
    ap.add_argument(
        "--decay-chunks",
        type=int,
        default=1,
        help="final chunks at a tenth of the learning rate (0: constant rate)",
    )
    ap.add_argument(
        "--final-chunks",
        type=int,
        default=0,
        help="final chunks at a further tenth (a third rate phase; 0: none)",
    )
    ap.add_argument("--lr", type=float, default=1e-3, help="the baselines' learning rate")
    ap.add_argument("--pae-lr", type=float, default=pae_lr)
    ap.add_argument("--report", action="store_true", help="only rebuild the report")
    return ap


def quick_schedule(args, iters=40):
    """``--quick``: seed 0, ``iters`` steps (WGAN-GP a fifth), two evaluations."""
    args.seeds, args.iters, args.wgan_iters = [0], iters, max(1, iters // 5)
    args.chunks, args.decay_chunks, args.final_chunks = 2, 1, 0


def stem(args) -> str:
    """The report's stem: ``--name``, with ``-quick`` for ``--quick``; its runs are in
    ``<out>/<stem>_runs``."""
    return output(args, args.name, "").name


def commands_line(runs):
    """The commands that made the runs, for the report's header."""
    cmds = dict.fromkeys(r.get("command", "?") for r in runs)
    return "Commands (each adds its runs; the report is rebuilt from all of them): " + "; ".join(
        f"`{c}`" for c in cmds
    )


def planned_runs(args):
    """(seed, model, steps, learning rate), seed-major: every model of a seed before the next."""
    for seed in args.seeds:
        for name in args.models:
            if name == "WGAN-GP":
                yield seed, name, args.wgan_iters or args.iters // 5, args.lr
            else:
                yield seed, name, args.iters, args.pae_lr if name.startswith("PAE") else args.lr
