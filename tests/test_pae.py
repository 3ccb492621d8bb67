"""Plummer autoencoder: kernel, unbiased MMD, loss, estimator, data and evaluation measures.

References are independent of the code under test: double loops in NumPy, finite differences,
the closed forms of the thesis' Theorem 1(b), a Monte Carlo estimate of the population MMD, and
scikit-learn's KernelDensity. The private torch operations (the blocked kernel sum, the loss
through the estimator's networks), the PCA codes and score() in blocks:
tests/internals/test_torch_ops.py.
"""

import pickle
import re
import subprocess
import sys
import warnings

import numpy as np
import pytest

from unlabeled.generative import (
    PlummerAutoencoder,
    gaussian_kde_logpdf,
    grid_centres,
    grid_mode_metrics,
    kde_log_likelihood,
    make_embedded_gaussians,
    make_gaussian_grid,
    make_stacked_mnist,
    mode_histogram_metrics,
    stacked_mnist_modes,
)

torch = pytest.importorskip("torch", reason="the PAE tests need torch: pip install '.[torch]'")
torch.set_num_threads(1)
from conftest import assert_same_state, raise_on_call  # noqa: E402
from oracle import np_kernel, np_mmd2_u  # noqa: E402
from sklearn.exceptions import NotFittedError  # noqa: E402
from sklearn.utils.estimator_checks import check_estimator  # noqa: E402

from unlabeled.exceptions import InvalidParameterError  # noqa: E402
from unlabeled.generative import mmd2_u, plummer_kernel  # noqa: E402


def t64(a):
    return torch.as_tensor(np.asarray(a, dtype=np.float64))


# ---------------------------------------------------------------------------- torch-free import
def test_import_unlabeled_does_not_import_torch():
    code = "import sys, unlabeled, unlabeled.generative; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_without_torch_the_error_says_how_to_install():
    code = (
        "import sys\n"
        "class NoTorch:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] == 'torch':\n"
        "            raise ModuleNotFoundError('No module named torch', name='torch')\n"
        "sys.meta_path.insert(0, NoTorch())\n"
        "import numpy as np, unlabeled\n"
        "from unlabeled import PlummerAutoencoder\n"
        "m = PlummerAutoencoder()\n"
        "for f in (lambda: m.fit(np.zeros((5, 2))), lambda: unlabeled.generative.mmd2_u):\n"
        "    try:\n        f()\n    except ImportError as e:\n        print(e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    lines = out.stdout.strip().splitlines()
    assert len(lines) == 2 and all("pip install 'torch>=2.2" in line for line in lines)


# ---------------------------------------------------------------------------- kernel and MMD
@pytest.mark.parametrize("beta,eps", [(1.0, 1e-4), (2.5, 0.3)])
def test_kernel_and_u_statistic_against_double_loops(beta, eps):
    rng = np.random.default_rng(0)
    z, q = rng.uniform(-1, 1, (9, 3)), rng.normal(size=(9, 3))
    q[4] = z[4]  # a zero distance on the cross diagonal
    np.testing.assert_allclose(
        plummer_kernel(t64(z), t64(q), eps, beta), np_kernel(z, q, eps, beta)
    )
    np.testing.assert_allclose(
        float(mmd2_u(t64(z), t64(q), eps, beta)), np_mmd2_u(z, q, eps, beta), rtol=1e-12
    )


@pytest.mark.parametrize("seed", range(5))
def test_theorem_1b_identity_and_lower_bound(seed):
    """MMD_u^2 = N/(N-1) Int (p~ - q~)^2 - 2K/(N-1) + 2/(N(N-1)) sum_i k(z_i, q_i), where the
    integral is the V-statistic (all pairs, Mercer), hence MMD_u^2 >= -2K/(N-1)."""
    rng = np.random.default_rng(seed)
    n, h, eps, beta = 12, 2, [1e-4, 1e-2][seed % 2], [1.0, 2.0][seed % 2]
    big_k = eps ** (-beta / 2)
    z = rng.uniform(-1, 1, (n, h))
    q = z + rng.normal(scale=[0.0, 0.3, 1e-3, 1.0, 0.05][seed], size=(n, h))
    u = float(mmd2_u(t64(z), t64(q), eps, beta))
    v = np_kernel(z, z, eps, beta) - 2 * np_kernel(z, q, eps, beta) + np_kernel(q, q, eps, beta)
    v = v.sum() / n**2
    cross = sum(np_kernel(z[i : i + 1], q[i : i + 1], eps, beta)[0, 0] for i in range(n))
    assert v >= -1e-9
    assert u == pytest.approx(n / (n - 1) * v - 2 * big_k / (n - 1) + 2 * cross / (n * (n - 1)))
    assert u >= -2 * big_k / (n - 1)
    # a batch of codes that is a permutation of the prior batch: the smoothed densities agree
    # and the closed form is MMD_u^2 = 2 (sum_i k(z_i, z_perm(i)) - N K) / (N (N - 1)) < 0
    perm = rng.permutation(n)
    u_perm = float(mmd2_u(t64(z), t64(z[perm]), eps, beta))
    closed = (
        2
        * (
            sum(
                np_kernel(z[i : i + 1], z[perm[i] : perm[i] + 1], eps, beta)[0, 0] for i in range(n)
            )
            - n * big_k
        )
        / (n * (n - 1))
    )
    assert u_perm == pytest.approx(closed, rel=1e-10)
    assert -2 * big_k / (n - 1) <= u_perm < 0


def test_batch_mmd_is_unbiased():
    """Mean of the N = 6 batch estimate over many batches = the large-sample value (and the
    biased V-statistic, the diagonal kept, is far off: the test can fail)."""
    gen = torch.Generator().manual_seed(0)
    eps = 1e-2

    def draw(n, m):
        z = torch.rand((m, n, 2), generator=gen, dtype=torch.float64) * 2 - 1
        q = torch.rand((m, n, 2), generator=gen, dtype=torch.float64) * 1.4 - 0.4
        return z, q

    z, q = draw(6, 8000)
    est = np.array([float(mmd2_u(z[i], q[i], eps)) for i in range(z.shape[0])])
    zl, ql = draw(3000, 1)
    large = float(mmd2_u(zl[0], ql[0], eps))
    se = est.std() / np.sqrt(est.size)
    assert abs(est.mean() - large) < 4 * se, (est.mean(), large, se)

    def vstat(a, b):  # all pairs, the diagonal kept: the biased estimate
        return ((((a[:, :, None] - b[:, None]) ** 2).sum(-1) + eps) ** -0.5).sum((1, 2)) / 36

    biased = (vstat(z, z) - 2 * vstat(z, q) + vstat(q, q)).numpy()
    assert abs(biased.mean() - large) > 20 * se


# ---------------------------------------------------------------------------- the estimator
def small_pae(**kw):
    params = dict(
        n_components=2,
        hidden_layer_sizes=(32, 32),
        lam=10.0,
        learning_rate=3e-3,
        batch_size=200,
        max_iter=300,
        device="cpu",
        random_state=0,
    )
    params.update(kw)
    return PlummerAutoencoder(**params)


def near_modes(pae, centres):
    S = pae.sample(2000, random_state=1)
    d = np.linalg.norm(S[:, None] - centres[None], axis=2)
    near = d.min(1) < 1.5  # 5 standard deviations
    return near.mean(), np.bincount(d.argmin(1)[near], minlength=len(centres)) / len(S)


def test_fits_a_two_dimensional_toy_distribution():
    """Four Gaussians on a square: after 400 steps the samples cover all four with balance
    (a continuous decoder of a uniform square leaves some mass on the bridges between them);
    the untrained model puts almost nothing there."""
    rng = np.random.default_rng(0)
    centres = np.array([[-3, -3], [-3, 3], [3, -3], [3, 3]], float)
    y = np.arange(400) % 4
    X = centres[y] + 0.3 * rng.normal(size=(400, 2))
    pae = small_pae(max_iter=400, learning_rate=1e-2).fit(X)
    assert pae.loss_history_[-50:].mean() < 0.1 * pae.loss_history_[:10].mean()
    rec = ((X - pae.inverse_transform(pae.transform(X))) ** 2).sum(1).mean()
    assert rec < 0.1 * X.var(0).sum()
    near, shares = near_modes(pae, centres)
    assert near > 0.6 and shares.min() > 0.1, (near, shares)
    codes = pae.transform(X)
    assert np.abs(codes).max() < 1 and np.abs(codes.mean(0)).max() < 0.2
    assert near_modes(small_pae(max_iter=1, learning_rate=1e-2).fit(X), centres)[0] < 0.2


def test_reproducible_with_random_state():
    X, _ = make_gaussian_grid(100, random_state=0)
    a = small_pae(max_iter=20, batch_size=30).fit(X)
    b = small_pae(max_iter=20, batch_size=30).fit(X)
    c = small_pae(max_iter=20, batch_size=30, random_state=1).fit(X)
    np.testing.assert_array_equal(a.loss_history_, b.loss_history_)
    np.testing.assert_array_equal(a.transform(X), b.transform(X))
    np.testing.assert_array_equal(a.sample(5, random_state=3), b.sample(5, random_state=3))
    assert not np.array_equal(a.loss_history_, c.loss_history_)
    assert a.loss_history_.shape == (20,) and a.n_iter_ == 20


def test_warm_start_continues_exactly():
    """20 steps, then 20 more with warm_start, equal 40 steps in one fit (same Adam state and
    random stream); a changed learning rate reaches the optimiser."""
    X, _ = make_gaussian_grid(100, random_state=0)
    one = small_pae(max_iter=40, batch_size=30).fit(X)
    two = small_pae(max_iter=20, batch_size=30, warm_start=True).fit(X).fit(X)
    np.testing.assert_array_equal(one.loss_history_, two.loss_history_)
    np.testing.assert_array_equal(one.transform(X), two.transform(X))
    assert two.n_iter_ == 40
    two.set_params(learning_rate=0.5, max_iter=1).fit(X)
    assert two._optimizer.param_groups[0]["lr"] == 0.5 and two.n_iter_ == 41
    cold = small_pae(max_iter=20, batch_size=30).fit(X).fit(X)
    np.testing.assert_array_equal(cold.loss_history_, one.loss_history_[:20])


def test_pca_init_prefits_the_encoder():
    """init="pca": before the first step the encoder maps the data close to the quantile codes
    (one step at a negligible rate keeps that start); the random start is nowhere near them;
    the start is reproducible, on full batches and minibatches."""
    X, _ = make_gaussian_grid(200, random_state=0)
    # the codes with h = d: each column's ranks on the quantile grid 2 (k - 1/2) / n - 1 (the
    # code itself against this definition: tests/internals/test_torch_ops.py)
    grid = 2 * (np.arange(1, len(X) + 1) - 0.5) / len(X) - 1
    target = np.column_stack([grid[np.argsort(np.argsort(X[:, j]))] for j in range(X.shape[1])])
    pca = small_pae(init="pca", max_iter=1, learning_rate=1e-9).fit(X)
    rand = small_pae(max_iter=1, learning_rate=1e-9).fit(X)
    err = lambda est: ((est.transform(X) - target) ** 2).sum(1).mean()  # noqa: E731
    assert err(pca) < 0.05 < 0.5 < err(rand), (err(pca), err(rand))
    again = small_pae(init="pca", max_iter=1, learning_rate=1e-9).fit(X)
    np.testing.assert_array_equal(pca.transform(X), again.transform(X))
    minibatch = [small_pae(init="pca", batch_size=50, max_iter=2).fit(X) for _ in range(2)]
    np.testing.assert_array_equal(minibatch[0].transform(X), minibatch[1].transform(X))
    assert err(minibatch[0]) < 0.1, err(minibatch[0])
    with pytest.raises(ValueError, match="needs n_components <= n_features"):
        small_pae(init="pca", n_components=3).fit(X)


def test_device_and_progress_bar(capsys):
    X, _ = make_gaussian_grid(50, random_state=0)
    pae = small_pae(device="auto", max_iter=3, verbose=True).fit(X)
    want = "cuda" if torch.cuda.is_available() else "cpu"
    assert pae.device_.startswith(want)
    assert "PlummerAutoencoder" in capsys.readouterr().err
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="CUDA is not available"):
            small_pae(device="cuda").fit(X)


def test_progress_shows_steps_eta_and_threads(capsys):
    X, _ = make_gaussian_grid(50, random_state=0)
    small_pae(max_iter=4, verbose=True, n_jobs=1, init="pca").fit(X)
    err = capsys.readouterr().err
    assert "init='pca' (cpu, 1 thread)" in err  # the encoder's pre-fit has its own bar
    assert "PlummerAutoencoder cpu, 1 thread" in err and "4/4" in err
    assert "<00:00" in err  # tqdm's [elapsed<remaining]: the estimated time left


@pytest.mark.parametrize("n_jobs", [1, 2, -1, None])
def test_threads_follow_n_jobs_and_are_restored(n_jobs):
    """Every forward pass of fit, transform, sample and score runs on the threads n_jobs
    gives (clipped to the cores the process may use; None: at most torch's own setting); the
    process's count is restored."""
    import os

    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    want = {-1: cores, None: 1}.get(n_jobs) or min(n_jobs, cores)
    process = 1 if n_jobs is None else 3
    seen = []
    hook = torch.nn.modules.module.register_module_forward_hook(
        lambda *_: seen.append(torch.get_num_threads())
    )
    before = torch.get_num_threads()
    torch.set_num_threads(process)
    try:
        X, _ = make_gaussian_grid(40, random_state=0)
        pae = small_pae(max_iter=2, n_jobs=n_jobs).fit(X)
        assert torch.get_num_threads() == process
        pae.transform(X), pae.sample(3, random_state=0), pae.score(X)
        assert torch.get_num_threads() == process
    finally:
        hook.remove()
        torch.set_num_threads(before)
    assert seen and set(seen) == {want}
    with pytest.raises(ValueError, match="n_jobs"):
        small_pae(n_jobs=0).fit(X)
    pae.set_params(n_jobs=0)
    with pytest.raises(ValueError, match="n_jobs"):
        pae.transform(X)


def test_feature_names_out_and_set_output():
    pd = pytest.importorskip("pandas")
    X, _ = make_gaussian_grid(40, random_state=0)
    df = pd.DataFrame(X, columns=["u", "v"])
    pae = small_pae(max_iter=2, n_components=1).fit(df)
    np.testing.assert_array_equal(pae.feature_names_in_, ["u", "v"])
    np.testing.assert_array_equal(pae.get_feature_names_out(), ["plummerautoencoder0"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "X does not have valid feature names"
        Z = pae.set_output(transform="pandas").transform(df)
        pae.score(df)
    assert list(Z.columns) == list(pae.get_feature_names_out())
    np.testing.assert_array_equal(Z.to_numpy(), pae.set_output(transform="default").transform(df))
    with pytest.raises(ValueError, match="feature names"):
        pae.transform(pd.DataFrame(X, columns=["v", "u"]))
    with pytest.raises(NotFittedError):
        small_pae().get_feature_names_out()


def test_score_is_minus_the_full_batch_loss():
    X, _ = make_gaussian_grid(40, random_state=0)
    pae = small_pae(max_iter=5).fit(X)
    q = pae.transform(X)
    zp = np.random.RandomState(0).uniform(-1, 1, size=q.shape)
    rec = ((X - pae.inverse_transform(q)) ** 2).sum(1).mean()
    assert pae.score(X) == pytest.approx(-(rec + 10.0 * np_mmd2_u(zp, q)), rel=1e-9)


def test_save_load_and_pickle(tmp_path):
    X, _ = make_gaussian_grid(60, random_state=0)
    pae = small_pae(max_iter=10, out_activation="linear", init="pca").fit(X)
    path = tmp_path / "pae.pt"
    pae.save(path)
    back = PlummerAutoencoder.load(path, device="cpu")
    np.testing.assert_array_equal(back.transform(X), pae.transform(X))
    np.testing.assert_array_equal(back.sample(4, random_state=0), pae.sample(4, random_state=0))
    np.testing.assert_array_equal(back.loss_history_, pae.loss_history_)
    assert back.get_params() == pae.get_params()
    again = pickle.loads(pickle.dumps(pae))
    np.testing.assert_array_equal(again.transform(X), pae.transform(X))


class Evil:
    pass


def test_load_refuses_pickled_objects_and_foreign_files(tmp_path):
    bad = tmp_path / "bad.pt"
    torch.save({"format": "unlabeled-pae", "payload": Evil()}, bad)
    with pytest.raises(ValueError, match="not a PlummerAutoencoder file"):
        PlummerAutoencoder.load(bad)
    other = tmp_path / "other.pt"
    torch.save({"weights": torch.zeros(2)}, other)
    with pytest.raises(ValueError, match="not a PlummerAutoencoder file"):
        PlummerAutoencoder.load(other)


@pytest.mark.parametrize(
    "params,err,match",
    [
        (dict(lam=-1.0), ValueError, "lam must be >= 0"),
        (dict(eps=0.0), ValueError, "eps must be > 0"),
        (dict(n_components=0), ValueError, "n_components must be >= 1"),
        (dict(beta=-1), ValueError, "beta must be > 0"),
        (dict(betas=(0.5, 1.0)), ValueError, r"betas\[1\] must be < 1"),
        (dict(batch_size=1), ValueError, "batch_size must be >= 2"),
        (dict(out_activation="relu"), ValueError, "out_activation must be one of"),
        (dict(init="svd"), ValueError, "init must be one of"),
        (dict(hidden_layer_sizes=(8, 0)), ValueError, "hidden_layer_sizes"),
        (dict(device="tpu"), ValueError, "device must be"),
        (dict(learning_rate="fast"), TypeError, "learning_rate must be a real number"),
        (dict(n_jobs=0), ValueError, "n_jobs"),
        (dict(n_jobs=1.5), TypeError, "n_jobs"),
    ],
)
def test_bad_parameters_fail_before_training(params, err, match):
    with pytest.raises(err, match=match):
        small_pae(**params).fit(np.zeros((10, 2)))


def test_bad_data_gets_clear_errors():
    X = np.random.default_rng(0).normal(size=(30, 3))
    Xn = X.copy()
    Xn[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        small_pae().fit(Xn)
    with pytest.raises(ValueError, match="1 sample"):
        small_pae().fit(X[:1])
    pae = small_pae(max_iter=2).fit(X)
    with pytest.raises(ValueError, match="X has 2 features, but PlummerAutoencoder is expecting 3"):
        pae.transform(X[:, :2])
    with pytest.raises(ValueError, match="Z has 3 columns, but PlummerAutoencoder is expecting 2"):
        pae.inverse_transform(X)
    with pytest.raises(ValueError, match="n_samples must be >= 1"):
        pae.sample(0)
    Xc = X.copy()
    pae.fit(Xc)
    np.testing.assert_array_equal(Xc, X)  # never modified in place


# check_estimator: expected failures, with reasons
PAE_EXPECTED_FAILURES = {}


def test_check_estimator():
    est = PlummerAutoencoder(
        hidden_layer_sizes=(8,),
        max_iter=3,
        batch_size=20,
        device="cpu",
        random_state=0,
        learning_rate=1e-3,
    )
    results = check_estimator(est, expected_failed_checks=PAE_EXPECTED_FAILURES, on_fail=None)
    failed = [
        (r["check_name"], str(r["exception"])[:200]) for r in results if r["status"] == "failed"
    ]
    assert not failed, failed


# ---------------------------------------------------------------------------- data and measures
def test_grid_and_embedding_generators():
    X, y = make_gaussian_grid(500, random_state=0)
    assert X.shape == (500, 2) and np.all(np.bincount(y) == 20)
    c = grid_centres()
    assert set(np.unique(c)) == {-21.0, -10.5, 0.0, 10.5, 21.0}
    np.testing.assert_allclose((X - c[y]).var(0), 0.1, rtol=0.2)
    E, ye = make_embedded_gaussians(500, random_state=0)
    assert E.shape == (500, 1000) and np.all(np.bincount(ye) == 50)
    assert np.all((E != 0).sum(1) == 10)
    assert np.abs(E[ye == 9][:, 990:].mean() - 5) < 0.2 and np.all(E[ye == 9][:, :990] == 0)


def test_kde_against_a_direct_sum_and_scikit_learn():
    from scipy.special import logsumexp
    from sklearn.neighbors import KernelDensity

    rng = np.random.default_rng(0)
    train, test = rng.normal(size=(300, 3)), rng.normal(size=(50, 3)) * 1.5
    for bw in (0.05, 0.7):
        ref = [
            logsumexp(-((t - train) ** 2).sum(1) / (2 * bw**2))
            - np.log(300)
            - 1.5 * np.log(2 * np.pi * bw**2)
            for t in test
        ]
        np.testing.assert_allclose(gaussian_kde_logpdf(train, test, bw, block=16), ref, rtol=1e-8)
    both = gaussian_kde_logpdf(train, test, np.array([0.05, 0.7]))
    np.testing.assert_allclose(both[0], gaussian_kde_logpdf(train, test, 0.05), rtol=1e-12)
    # scikit-learn agrees where its tree does not underflow (a wide bandwidth)
    ref = KernelDensity(bandwidth=0.7).fit(train).score_samples(test)
    np.testing.assert_allclose(gaussian_kde_logpdf(train, test, 0.7), ref, rtol=1e-8)


def test_log_likelihood_protocol_on_the_true_grid():
    """A KDE on true grid samples scores near the ideal -log 25 - log(2 pi e 0.1) = -3.75."""
    gen, _ = make_gaussian_grid(5000, random_state=1, balanced=False)
    held, _ = make_gaussian_grid(2000, random_state=2, balanced=False)
    test, _ = make_gaussian_grid(2000, random_state=3, balanced=False)
    res = kde_log_likelihood(gen, held, test)
    ideal = -np.log(25) - np.log(2 * np.pi * np.e * 0.1)
    assert ideal - 0.25 < res["mean"] < ideal + 0.05
    assert 0.05 < res["bandwidth"] < 1


def test_grid_mode_counts():
    X, _ = make_gaussian_grid(2500, random_state=0, balanced=False)
    m = grid_mode_metrics(X, grid_centres(), np.sqrt(0.1))
    assert m["modes"] == 25
    assert m["high_quality"] == pytest.approx(1 - np.exp(-4.5), abs=0.01)  # chi2_2 within 3 sd
    assert m["reverse_kl"] < 0.02
    collapsed = np.r_[X[:500] * 0 + grid_centres()[7], X[:100] * 0 + 100.0]
    m = grid_mode_metrics(collapsed, grid_centres(), np.sqrt(0.1))
    assert m["modes"] == 1 and m["high_quality"] == pytest.approx(500 / 600)
    assert m["reverse_kl"] == pytest.approx(np.log(25))


def test_mode_histogram_closed_form():
    m = mode_histogram_metrics([0, 0, 1, 1, 1, 1, -1], 4, min_count=2)
    q = np.array([2, 4]) / 6
    assert m["modes"] == 2 and list(m["counts"]) == [2, 4, 0, 0]
    assert m["reverse_kl"] == pytest.approx(np.sum(q * np.log(q * 4)))


def synthetic_mnist(m, rng):
    """Fake 28 x 28 'digits': digit d lights the pixel row 2d + 1 (noise elsewhere)."""
    labels = rng.integers(0, 10, m)
    imgs = rng.integers(0, 60, (m, 28, 28)).astype(np.uint8)
    imgs[np.arange(m), 2 * labels + 1, :] = 255
    return imgs, labels


def read_digit(flat):
    return np.asarray(flat).reshape(-1, 28, 28).mean(2)[:, 1:21:2].argmax(1)


def test_stacked_mnist_builder_and_mode_count():
    rng = np.random.default_rng(0)
    imgs, labels = synthetic_mnist(500, rng)
    X, y = make_stacked_mnist(imgs, labels, 20000, random_state=0)
    assert X.shape == (20000, 2352) and X.dtype == np.float32 and 0 <= X.min() and X.max() == 1
    for c in range(3):
        np.testing.assert_array_equal(read_digit(X[:, c * 784 : (c + 1) * 784]), (y // 10**c) % 10)
    m = stacked_mnist_modes(X, read_digit)
    np.testing.assert_array_equal(m["counts"], np.bincount(y, minlength=1000))
    q = np.bincount(y, minlength=1000) / y.size
    assert m["modes"] == len(np.unique(y)) and m["modes"] > 990
    assert m["reverse_kl"] == pytest.approx(np.sum(q[q > 0] * np.log(q[q > 0] * 1000)))
    # a generator that always draws the same first two digits covers 10 modes
    X2 = X.copy()
    X2[:, :1568] = X[:1, :1568]
    m2 = stacked_mnist_modes(X2, read_digit)
    assert m2["modes"] == 10
    q3 = np.bincount(y // 100, minlength=10) / y.size
    assert m2["reverse_kl"] == pytest.approx(np.sum(q3[q3 > 0] * np.log(q3[q3 > 0] * 1000)))
    with pytest.raises(ValueError, match="images must have shape"):
        make_stacked_mnist(imgs[:, :27], labels, 5)
    with pytest.raises(ValueError, match="labels must be digits"):
        make_stacked_mnist(imgs, labels + 1, 5)


def _pae(**kw):
    from unlabeled.generative import PlummerAutoencoder

    params = dict(hidden_layer_sizes=(8,), learning_rate=1e-3, batch_size=20, max_iter=5)
    return PlummerAutoencoder(**{**params, "device": "cpu", "random_state": 0, **kw})


def _weights(pae):
    return {
        name: {k: v.detach().clone() for k, v in getattr(pae, name).state_dict().items()}
        for name in ("encoder_", "decoder_")
    }


def _same_weights(a, b):
    for name in a:
        for k in a[name]:
            assert torch_equal(a[name][k], b[name][k]), (name, k)


def torch_equal(a, b):
    return bool((a == b).all())


@pytest.fixture(scope="module")
def pae_data():
    pytest.importorskip("torch")
    return np.random.default_rng(0).normal(size=(60, 3))


@pytest.mark.parametrize("warm_start", [False, True], ids=["refit", "warm_start"])
def test_pae_fit_interrupted_leaves_it_as_it_was(monkeypatch, pae_data, warm_start):
    """Before: a refit interrupted in training kept the new, half-trained networks (and a
    warm start's networks and Adam state were trained in place)."""
    from unlabeled.generative import import_torch_ops, pae_loss

    X = pae_data
    est = _pae(warm_start=warm_start).fit(X)
    before, weights = dict(vars(est)), _weights(est)
    adam = {k: v.clone() for k, v in est._optimizer.state_dict()["state"][0].items()}
    ops = import_torch_ops()
    calls = raise_on_call(monkeypatch, ops, "pae_loss", 3, KeyboardInterrupt())
    assert ops.pae_loss is not pae_loss
    with pytest.raises(KeyboardInterrupt):
        est.fit(X if warm_start else X[:, :2])
    assert calls[0] == 3
    assert_same_state(est, before)
    _same_weights(_weights(est), weights)
    after = est._optimizer.state_dict()["state"][0]
    assert all(torch_equal(after[k], v) for k, v in adam.items())
    monkeypatch.undo()
    if warm_start:  # and the warm start continues as if never interrupted
        again = _pae(warm_start=True).fit(X).fit(X)
        np.testing.assert_array_equal(est.fit(X).loss_history_, again.loss_history_)


@pytest.mark.parametrize(
    "params, scale, likely",
    [
        ({"scale_data": False}, 1e20, r"Likely here: the data's scale: features up to \S+e\+20"),
        ({}, 1e20, r"Likely here: the data's scale: the features' variances sum"),
        ({"eps": 1e-300}, 1.0, r"Likely here: eps=1e-300: below float32's smallest"),
        ({"lam": 1e36, "eps": 1e-8, "beta": 1.0}, 1.0, r"Likely here: lam=1e\+36"),
    ],
    ids=["unscaled", "scaled", "eps", "lam"],
)
def test_pae_divergence_names_the_likely_cause(pae_data, params, scale, likely):
    """Before: every divergence blamed learning_rate ("lower learning_rate"), also on
    features of 1e20, where lowering it changes nothing."""
    from unlabeled.generative import TrainingDivergedError

    est = _pae(max_iter=30, **params)
    with pytest.raises(TrainingDivergedError) as info:
        est.fit(pae_data * scale)
    message = str(info.value)
    for cause in ("learning_rate", "the data's scale", "eps", "beta", "lam"):
        assert cause in message
    assert "at training step" in message
    assert re.search(likely, message), message
    assert not hasattr(est, "encoder_")  # and nothing half-fitted


def test_pae_batch_memory_is_checked_before_the_work(pae_data):
    """Before: no guard; a batch_size of 10^6 on as many rows asked torch for 32 TB."""
    from unlabeled import config_context
    from unlabeled.exceptions import MemoryBudgetError

    X = np.random.default_rng(0).normal(size=(600, 2))
    est = _pae(batch_size=500)
    with config_context(max_dense_bytes=1e6):
        with pytest.raises(MemoryBudgetError, match=r"batch_size=500.*lower batch_size"):
            est.fit(X)
        assert not hasattr(est, "encoder_")
        _pae(batch_size=100).fit(X)  # 32 * 100^2 bytes: within the budget
    big = _pae(batch_size=10**6)
    with pytest.raises(MemoryBudgetError, match="batches of 600 codes"):  # min(batch, n)
        with config_context(max_dense_bytes=1e7):
            big.fit(X)


def test_pae_random_state_validated(pae_data):
    a = _pae(random_state=3).fit(pae_data)
    b = _pae(random_state=np.random.RandomState(3)).fit(pae_data)
    np.testing.assert_array_equal(a.loss_history_, b.loss_history_)
    for bad in (np.random.default_rng(0), 1.5, "0", -1):
        with pytest.raises(InvalidParameterError, match="random_state"):
            _pae(random_state=bad).fit(pae_data)
        with pytest.raises(InvalidParameterError, match="random_state"):
            a.sample(2, random_state=bad)  # before: NumPy's error, or a Generator's
    same = a.sample(3, random_state=np.random.RandomState(1))
    np.testing.assert_array_equal(a.sample(3, random_state=1), same)


def test_pae_huge_max_iter_refused_before_the_work(pae_data):
    """Before: max_iter=2**31 - 1 asked torch for 52 GB of loss history at the start (a raw
    allocator error, or swapping)."""
    from unlabeled.exceptions import MemoryBudgetError

    est = _pae(max_iter=2**31 - 1)
    with pytest.raises(MemoryBudgetError, match="max_iter=2,147,483,647.*lower max_iter"):
        est.fit(pae_data)
    assert not hasattr(est, "encoder_")


def test_pae_batch_memory_checked_against_the_gpu(pae_data, monkeypatch):
    """On CUDA, the batch's MMD is checked against the device's free memory too (simulated
    here: torch's report of free memory replaced)."""
    import torch

    from unlabeled.exceptions import MemoryBudgetError

    est = _pae(batch_size=100)
    monkeypatch.setattr(torch.cuda, "mem_get_info", lambda dev=None: (1000, 2000))
    with pytest.raises(MemoryBudgetError, match=r"on cuda:0: .* free on the device; lower batch"):
        est._check_batch_memory(100, torch, torch.device("cuda:0"))
    est._check_batch_memory(100, torch, torch.device("cpu"))  # the host's check is fit's


def test_pae_diverged_refit_keeps_the_fitted_model(pae_data):
    """Before: a refit that diverged kept the NaN networks of the failed run."""
    from unlabeled.generative import TrainingDivergedError

    est = _pae().fit(pae_data)
    before, weights = dict(vars(est)), _weights(est)
    Z = est.transform(pae_data)
    with pytest.raises(TrainingDivergedError):
        est.set_params(eps=1e-300).fit(pae_data)
    before["eps"] = 1e-300
    assert_same_state(est, before)
    _same_weights(_weights(est), weights)
    np.testing.assert_array_equal(est.transform(pae_data), Z)
