"""linalg.matrix_exp, linalg.householder_product, geqrf and
nn.utils.parametrizations.orthogonal: values against SciPy/NumPy and
PyTorch's recorded outputs (tests/golden/nn/orthogonal.npz, written by
scripts/golden_orthogonal.py), gradients by finite differences."""
import os

import numpy as np
import pytest
import scipy.linalg as sl

import torchlike as torch
from torchlike.autograd import gradcheck, gradgradcheck
from torchlike.nn.utils import parametrizations as P

GOLD = np.load(os.path.join(os.path.dirname(__file__), "golden", "nn", "orthogonal.npz"))
MAPS = ("matrix_exp", "cayley", "householder")


def T(a, **kw):
    return torch.tensor(np.asarray(a), **kw)


# ---- matrix_exp ------------------------------------------------------------------------

@pytest.mark.parametrize("i", range(6))
def test_matrix_exp_matches_pytorch_and_scipy_across_pade_degrees(i):
    a = GOLD[f"expm_{i}_in"]
    out = torch.linalg.matrix_exp(T(a)).cpu().numpy()
    np.testing.assert_allclose(out, GOLD[f"expm_{i}_out"], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(out, sl.expm(a), rtol=1e-10, atol=1e-12)


def test_matrix_exp_batches_dtypes_and_edge_shapes():
    np.testing.assert_allclose(torch.matrix_exp(T(GOLD["expm_batch_in"])).cpu().numpy(),
                               GOLD["expm_batch_out"], rtol=1e-10)
    a = np.random.default_rng(0).standard_normal((3, 3)).astype(np.float32)
    out = T(a).matrix_exp()
    assert out.dtype == torch.float32
    np.testing.assert_allclose(out.cpu().numpy(), sl.expm(a.astype(np.float64)), rtol=1e-5, atol=1e-6)
    c = np.random.default_rng(1).standard_normal((3, 3)) + 1j * np.random.default_rng(2).standard_normal((3, 3))
    np.testing.assert_allclose(torch.linalg.matrix_exp(T(c)).cpu().numpy(), sl.expm(c), rtol=1e-10)
    assert torch.linalg.matrix_exp(torch.zeros(0, 2, 2)).shape == (0, 2, 2)
    np.testing.assert_allclose(torch.linalg.matrix_exp(T([[2.0]])).cpu().numpy(), [[np.e ** 2]])
    b = np.random.default_rng(3).standard_normal((4, 4))  # a non-contiguous input
    np.testing.assert_allclose(torch.linalg.matrix_exp(T(b).mT).cpu().numpy(), sl.expm(b.T), rtol=1e-10)


def test_matrix_exp_gradient_matches_pytorch_and_finite_differences():
    x = T(GOLD["expm_grad_in"], requires_grad=True)
    torch.linalg.matrix_exp(x).pow(2).sum().backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), GOLD["expm_grad"], rtol=1e-8, atol=1e-10)
    for scale in (0.05, 1.0, 10.0):
        a = T(np.random.default_rng(4).standard_normal((3, 3)) * scale, requires_grad=True)
        assert gradcheck(torch.linalg.matrix_exp, (a,))
    assert gradgradcheck(torch.linalg.matrix_exp, (T(np.eye(2) * 0.3 + 0.1, requires_grad=True),))


def test_matrix_exp_errors():
    with pytest.raises(RuntimeError, match="must be batches of square matrices"):
        torch.linalg.matrix_exp(torch.randn(2, 3))
    with pytest.raises(RuntimeError, match="floating point or complex"):
        torch.linalg.matrix_exp(torch.ones(2, 2, dtype=torch.int64))
    with pytest.raises(TypeError, match="must be Tensor"):
        torch.linalg.matrix_exp([[1.0]])


# ---- geqrf and householder_product -------------------------------------------------------

@pytest.mark.parametrize("key", ["5x3", "3x5", "2x4x4"])
def test_geqrf_matches_pytorch(key):
    a, tau = torch.geqrf(T(GOLD[f"geqrf_{key}_in"]))
    np.testing.assert_allclose(a.cpu().numpy(), GOLD[f"geqrf_{key}_a"], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(tau.cpu().numpy(), GOLD[f"geqrf_{key}_tau"], rtol=1e-10, atol=1e-12)
    assert a.dtype == torch.float64 and tau.shape == GOLD[f"geqrf_{key}_tau"].shape


@pytest.mark.parametrize("key", ["5x3", "2x4x4"])
def test_householder_product_and_its_gradient_match_pytorch(key):
    A = T(GOLD[f"geqrf_{key}_a"], requires_grad=True)
    tau = T(GOLD[f"geqrf_{key}_tau"], requires_grad=True)
    Q = torch.linalg.householder_product(A, tau)
    np.testing.assert_allclose(Q.detach().cpu().numpy(), GOLD[f"hh_{key}_q"], rtol=1e-10, atol=1e-12)
    (Q * T(np.cos(np.arange(Q.numel())).reshape(tuple(Q.shape)))).sum().backward()
    np.testing.assert_allclose(A.grad.cpu().numpy(), GOLD[f"hh_{key}_ga"], rtol=1e-9, atol=1e-11)
    np.testing.assert_allclose(tau.grad.cpu().numpy(), GOLD[f"hh_{key}_gt"], rtol=1e-9, atol=1e-11)


def test_householder_product_is_lapacks_orgqr_and_checks_shapes():
    a = np.random.default_rng(5).standard_normal((6, 4))
    qr, tau = sl.lapack.dgeqrf(a)[:2]
    np.testing.assert_allclose(torch.orgqr(T(qr), T(tau)).cpu().numpy(), sl.lapack.dorgqr(qr, tau)[0],
                               atol=1e-13)
    # fewer reflectors than columns
    np.testing.assert_allclose(torch.linalg.householder_product(T(qr), T(tau[:2])).cpu().numpy(),
                               _orgqr_k(qr, tau[:2]), atol=1e-13)
    A = T(qr, requires_grad=True)
    tt = T(tau, requires_grad=True)
    assert gradcheck(torch.linalg.householder_product, (A, tt))
    with pytest.raises(RuntimeError, match="greater than or equal to input.shape\\[-1\\]"):
        torch.linalg.householder_product(torch.randn(2, 3), torch.randn(2))
    with pytest.raises(RuntimeError, match="one dimension less"):
        torch.linalg.householder_product(torch.randn(3, 2), torch.randn(1, 2))


def _orgqr_k(qr, tau):
    m, n = qr.shape
    Q = np.eye(m)[:, :n]
    for i in reversed(range(len(tau))):
        v = np.zeros(m)
        v[i] = 1
        v[i + 1:] = qr[i + 1:, i]
        Q = Q - tau[i] * np.outer(v, v @ Q)
    return Q


# ---- orthogonal ----------------------------------------------------------------------------

@pytest.mark.parametrize("key", ["4x4", "5x3", "3x5"])
@pytest.mark.parametrize("orth_map", MAPS)
@pytest.mark.parametrize("triv", [True, False])
def test_orthogonal_maps_match_pytorch(key, orth_map, triv):
    X, base = GOLD[f"orth_{key}_X"], GOLD[f"orth_{key}_base"]
    lin = torch.nn.Linear(X.shape[1], X.shape[0], bias=False)
    orth = P._Orthogonal(lin.weight, orth_map, use_trivialization=triv)
    if triv:
        orth.base = T(base)
    Q = orth(T(X)).detach().cpu().numpy()
    np.testing.assert_allclose(Q, GOLD[f"orth_{key}_{orth_map}_{int(triv)}"], rtol=1e-9, atol=1e-11)
    if orth_map != "householder":  # householder reads +-1 off X's diagonal: random X has none
        G = Q.T @ Q if X.shape[0] >= X.shape[1] else Q @ Q.T
        np.testing.assert_allclose(G, np.eye(len(G)), atol=1e-12)


@pytest.mark.parametrize("key", ["4x4", "5x3", "3x5"])
def test_orthogonal_initialisation_matches_pytorch(key):
    W = GOLD[f"init_{key}_W"]
    lin = torch.nn.Linear(W.shape[1], W.shape[0], bias=False, dtype=torch.float64)
    with torch.no_grad():
        lin.weight.copy_(T(W))
    P.orthogonal(lin, orthogonal_map="householder", use_trivialization=False)
    np.testing.assert_allclose(lin.weight.detach().cpu().numpy(), GOLD[f"init_{key}_hh_weight"], atol=1e-12)
    np.testing.assert_allclose(lin.parametrizations.weight.original.detach().cpu().numpy(),
                               GOLD[f"init_{key}_hh_original"], atol=1e-12)
    if W.shape[0] != W.shape[1]:
        return
    for m in MAPS:
        lin = torch.nn.Linear(4, 4, bias=False, dtype=torch.float64)
        with torch.no_grad():
            lin.weight.copy_(T(W))
        P.orthogonal(lin, orthogonal_map=m)
        for what in ("weight", "original"):
            got = (lin.weight if what == "weight" else lin.parametrizations.weight.original)
            np.testing.assert_allclose(got.detach().cpu().numpy(), GOLD[f"init_{key}_{m}_{what}"],
                                       atol=1e-12)
        np.testing.assert_allclose(lin.parametrizations.weight[0].base.cpu().numpy(),
                                   GOLD[f"init_{key}_{m}_base"], atol=1e-12)


@pytest.mark.parametrize("orth_map", MAPS)
def test_orthogonal_stays_orthogonal_while_training(orth_map):
    torch.manual_seed(0)
    lin = torch.nn.Linear(3, 6, dtype=torch.float64)
    P.orthogonal(lin, orthogonal_map=orth_map)
    opt = torch.optim.SGD(lin.parameters(), lr=0.5)
    for _ in range(5):
        opt.zero_grad()
        lin(torch.randn(8, 3, dtype=torch.float64)).pow(2).sum().backward()
        opt.step()
    W = lin.weight.detach().cpu().numpy()
    np.testing.assert_allclose(W.T @ W, np.eye(3), atol=1e-12)
    assert orth_map == "householder" or lin.parametrizations.weight[0].base.shape == (6, 6)
    orig = lin.parametrizations.weight.original.detach().clone()
    # householder reads the +-1 signs off the diagonal (a step function):
    # differentiate with respect to the reflectors below it only
    free = torch.ones_like(orig).tril(-1) if orth_map == "householder" else torch.ones_like(orig)
    x = orig.clone().requires_grad_()
    assert gradcheck(lambda o: lin.parametrizations.weight[0](o * free + orig * (1 - free)), (x,))


def test_orthogonal_defaults_assignment_and_errors():
    lin = torch.nn.Linear(4, 4)
    P.orthogonal(lin)
    assert lin.parametrizations.weight[0].orthogonal_map == "matrix_exp"
    tall = torch.nn.Linear(2, 5)
    P.orthogonal(tall)
    assert tall.parametrizations.weight[0].orthogonal_map == "householder"
    q = np.linalg.qr(np.random.default_rng(6).standard_normal((4, 4)))[0].astype(np.float32)
    lin.weight = T(q)
    np.testing.assert_allclose(lin.weight.detach().cpu().numpy(), q, atol=1e-6)
    with pytest.raises(ValueError, match="Expected a matrix or batch of matrices of shape"):
        lin.weight = torch.randn(3, 3)
    with pytest.raises(ValueError, match="Got a tensor of 1 dimensions"):
        P.orthogonal(torch.nn.Linear(3, 3), "bias")
    with pytest.raises(ValueError, match='orthogonal_map has to be one of'):
        P.orthogonal(torch.nn.Linear(3, 3), orthogonal_map="qr")
    # registering skips the right_inverse that cannot be (PyTorch catches its
    # NotImplementedError); assigning through it raises
    cay = P.orthogonal(torch.nn.Linear(3, 3), orthogonal_map="cayley", use_trivialization=False)
    w = cay.weight.detach().cpu().numpy().astype(np.float64)
    np.testing.assert_allclose(w @ w.T, np.eye(3), atol=1e-5)
    with pytest.raises(NotImplementedError, match="use_trivialization=False"):
        cay.weight = torch.randn(3, 3)
    with pytest.raises(ValueError, match="householder parametrization does not support complex"):
        P._Orthogonal(torch.randn(3, 3, dtype=torch.complex64), "householder")
