"""The Plummer autoencoder from the inside (``unlabeled.generative._torch_ops`` and
``_pae``): the blocked kernel sum and its gradient against double loops and finite
differences, the loss gradient through the networks the estimator builds, the PCA quantile
codes of init="pca", and score() in blocks."""

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the PAE tests need torch: pip install '.[torch]'")
torch.set_num_threads(1)
from oracle import EPS, np_kernel, np_mmd2_u  # noqa: E402

from unlabeled.generative import (  # noqa: E402
    PlummerAutoencoder,
    _pae,  # noqa: E402
    make_gaussian_grid,
    pae_loss,
    plummer_kernel,
)
from unlabeled.generative._pae import pca_quantile_codes  # noqa: E402
from unlabeled.generative._torch_ops import make_mlp, plummer_sum  # noqa: E402


def t64(a):
    return torch.as_tensor(np.asarray(a, dtype=np.float64))


# ---------------------------------------------------------------------------- the kernel sum
@pytest.mark.parametrize("beta,eps", [(1.0, 1e-4), (2.5, 0.3)])
def test_plummer_sum_against_a_double_loop(beta, eps):
    rng = np.random.default_rng(0)
    z, q = rng.uniform(-1, 1, (9, 3)), rng.normal(size=(9, 3))
    q[4] = z[4]  # a zero distance on the cross diagonal
    full = np_kernel(z, q, eps, beta)
    np.testing.assert_allclose(
        float(plummer_sum(t64(z), t64(q), eps, beta, exclude_diagonal=False)), full.sum()
    )


def test_plummer_sum_gradient_against_finite_differences():
    rng = np.random.default_rng(1)
    a = t64(rng.uniform(-1, 1, (7, 2))).requires_grad_()
    b = t64(rng.uniform(-1, 1, (7, 2))).requires_grad_()
    with torch.no_grad():
        b[2] = a[2]  # k at zero distance: the gradient there must be finite (exactly 0)
    for excl in (True, False):
        assert torch.autograd.gradcheck(
            lambda x, y, e=excl: plummer_sum(x, y, 0.05, 1.3, e), (a, b)
        )
    # the same tensor in both slots (the code-code term): both contributions are summed
    assert torch.autograd.gradcheck(lambda x: plummer_sum(x, x, EPS, 1.0), (a,))
    # and the result agrees with autograd through the explicit kernel matrix
    g1 = torch.autograd.grad(plummer_sum(a, a, EPS, 1.0), a)[0]
    off = 1 - torch.eye(7, dtype=torch.float64)
    g2 = torch.autograd.grad((plummer_kernel(a, a, EPS, 1.0) * off).sum(), a)[0]
    np.testing.assert_allclose(g1, g2, rtol=1e-10)
    assert torch.isfinite(g1).all()


# ---------------------------------------------------------------------------- the loss
def test_loss_gradient_against_finite_differences():
    gen = torch.Generator().manual_seed(0)
    enc = make_mlp((3, 5, 2), "tanh", gen).double()
    dec = make_mlp((2, 5, 3), "linear", gen).double()
    # Data from the seeded generator, not the global one: with global draws the test depended on
    # which tests ran before it, and a ReLU pre-activation within h of zero made it fail.
    x = torch.randn(6, 3, dtype=torch.float64, generator=gen)
    zp = torch.rand(6, 2, dtype=torch.float64, generator=gen) * 2 - 1
    with torch.no_grad():
        pre = [enc[0](x), dec[0](enc(x))]
    assert min(t.abs().min().item() for t in pre) > 1e-4, "a ReLU kink lies within the FD step"
    params = [*enc.parameters(), *dec.parameters()]
    loss = pae_loss(x, zp, enc, dec, lam=3.0, eps=0.01)[0]
    grads = torch.autograd.grad(loss, params)
    h = 1e-6
    for p, g in zip(params, grads, strict=True):
        flat, gflat = p.data.view(-1), g.view(-1)
        for k in range(0, flat.numel(), max(1, flat.numel() // 4)):
            old = flat[k].item()
            flat[k] = old + h
            up = pae_loss(x, zp, enc, dec, 3.0, 0.01)[0].item()
            flat[k] = old - h
            down = pae_loss(x, zp, enc, dec, 3.0, 0.01)[0].item()
            flat[k] = old
            assert abs((up - down) / (2 * h) - gflat[k].item()) <= 1e-6 * (1 + abs(gflat[k]))


def test_loss_is_reconstruction_plus_lam_mmd():
    gen = torch.Generator().manual_seed(3)
    enc, dec = (
        make_mlp((2, 4, 2), "tanh", gen).double(),
        make_mlp((2, 4, 2), "linear", gen).double(),
    )
    x, zp = (
        torch.randn(5, 2, dtype=torch.float64, generator=gen),
        torch.rand(5, 2, dtype=torch.float64, generator=gen),
    )
    loss, rec, mmd = (t.item() for t in pae_loss(x, zp, enc, dec, 7.0))
    with torch.no_grad():
        xn, q = x.numpy(), enc(x).numpy()
        rec_ref = np.mean(
            [np.sum((xn[i] - dec(enc(x[i : i + 1]))[0].numpy()) ** 2) for i in range(5)]
        )
    assert rec == pytest.approx(rec_ref, rel=1e-12)
    assert mmd == pytest.approx(np_mmd2_u(zp.numpy(), q), rel=1e-12)
    assert loss == pytest.approx(rec_ref + 7.0 * mmd, rel=1e-12)


# ---------------------------------------------------------------------------- init="pca"
def test_pca_quantile_codes():
    """Each column is a permutation of the quantile grid 2 (k - 1/2) / n - 1 (the prior's
    uniform marginals); with h = d the ranks are the columns' own; with h < d they are those of
    the standardised data's leading principal component (numpy's SVD, up to sign)."""
    rng = np.random.default_rng(0)
    n = 200
    t = rng.normal(size=n)
    X = np.c_[3 * t, 3 * t, 0.1 * rng.normal(size=n)] + 0.01 * rng.normal(size=(n, 3))
    grid = 2 * (np.arange(1, n + 1) - 0.5) / n - 1
    C = pca_quantile_codes(X, 1)
    np.testing.assert_allclose(np.sort(C[:, 0]), grid)
    Z = (X - X.mean(0)) / X.std(0)
    order = np.argsort(np.argsort(Z @ np.linalg.svd(Z)[2][0]))
    assert np.array_equal(C[:, 0], grid[order]) or np.array_equal(C[:, 0], grid[::-1][order])
    assert abs(np.corrcoef(C[:, 0], np.argsort(np.argsort(t)))[0, 1]) > 0.99  # Spearman
    C3 = pca_quantile_codes(X, 3)
    for j in range(3):
        np.testing.assert_allclose(C3[:, j], grid[np.argsort(np.argsort(X[:, j]))])
    ties = pca_quantile_codes(np.array([[0.0], [1.0], [1.0], [2.0]]), 1)[:, 0]
    np.testing.assert_allclose(ties, [-0.75, 0.0, 0.0, 0.75])


# ---------------------------------------------------------------------------- score in blocks
def test_score_in_blocks_is_the_direct_u_statistic(monkeypatch):
    """score() sums the kernel in blocks of rows: with more rows than a block (7 here) it is
    still minus the reconstruction error minus lam times the direct U-statistic."""
    X, _ = make_gaussian_grid(40, random_state=0)
    pae = PlummerAutoencoder(
        n_components=2,
        hidden_layer_sizes=(32, 32),
        lam=10.0,
        learning_rate=3e-3,
        batch_size=200,
        max_iter=5,
        device="cpu",
        random_state=0,
    ).fit(X)
    q = pae.transform(X)
    zp = np.random.RandomState(0).uniform(-1, 1, size=q.shape)
    rec = ((X - pae.inverse_transform(q)) ** 2).sum(1).mean()
    monkeypatch.setattr(_pae, "_SCORE_BLOCK", 7)
    assert pae.score(X) == pytest.approx(-(rec + 10.0 * np_mmd2_u(zp, q)), rel=1e-9)


def test_score_over_m_rows_is_the_grouped_u_statistic(monkeypatch):
    """With more rows than m (16 here), score's MMD counts the pairs within groups of at most
    m rows of a fixed random order: the sum over those pairs (a double loop per group) over
    their number; unbiased, as the full U-statistic is."""
    X, _ = make_gaussian_grid(40, random_state=0)
    pae = PlummerAutoencoder(
        hidden_layer_sizes=(32,), lam=10.0, batch_size=40, max_iter=5, device="cpu", random_state=0
    ).fit(X)
    q = pae.transform(X)
    rec = ((X - pae.inverse_transform(q)) ** 2).sum(1).mean()
    rs = np.random.RandomState(0)
    zp = rs.uniform(-1, 1, size=q.shape)
    groups = np.array_split(rs.permutation(40), 3)  # ceil(40 / 16) groups of 13 or 14
    pair_sum = sum(np_mmd2_u(zp[g], q[g]) * len(g) * (len(g) - 1) for g in groups)
    mmd = pair_sum / sum(len(g) * (len(g) - 1) for g in groups)
    monkeypatch.setattr(_pae, "_SCORE_ROWS", 16)
    assert pae.score(X) == pytest.approx(-(rec + 10.0 * mmd), rel=1e-9)


def test_score_work_is_linear_in_the_rows(monkeypatch):
    """score on n rows evaluates at most 3 n m kernel values (m = _SCORE_ROWS), not 3 n^2:
    30,000 rows took 84 s before."""
    X, _ = make_gaussian_grid(40, random_state=0)
    pae = PlummerAutoencoder(
        hidden_layer_sizes=(8,), batch_size=40, max_iter=2, device="cpu", random_state=0
    ).fit(X)
    counted = []
    kernel = _pae.import_torch_ops().plummer_kernel

    def counting(a, b, eps, beta):
        counted.append(a.shape[0] * b.shape[0])
        return kernel(a, b, eps, beta)

    monkeypatch.setattr(_pae.import_torch_ops(), "plummer_kernel", counting)
    n, m = 9000, _pae._SCORE_ROWS
    assert np.isfinite(pae.score(np.random.default_rng(0).normal(size=(n, 2))))
    assert 3 * n * m / 2 < sum(counted) <= 3 * n * m  # groups of more than m / 2 rows
