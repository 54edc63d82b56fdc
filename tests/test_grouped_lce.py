"""nn.functional.grouped_mm and nn.functional.linear_cross_entropy /
nn.LinearCrossEntropyLoss: PyTorch's recorded answers and messages
(tests/golden/grouped_lce.json, scripts/golden_grouped_lce.py); NumPy
references for grouped_mm's four forms (empty groups, the ignored tail,
non-contiguous operands); the chunked linear cross entropy against the
reference composition for every reduction / weight / smoothing / chunk
size; gradcheck (and gradgradcheck) in float64."""
import numpy as np
import pytest

import torchlike as T
import torchlike.nn.functional as F
from torchlike.autograd import gradcheck, gradgradcheck
from numextra_golden import check
from oracle import golden_calls

CALLS, _golden = golden_calls("grouped_lce")


@pytest.mark.parametrize("call,expected", CALLS, ids=[c for c, _ in CALLS])
def test_matches_pytorch(call, expected):
    check(_golden, call, expected)


def _r(*shape, seed=0, dtype=np.float64):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_grouped_mm_forms_match_numpy(dtype):
    tol = dict(rtol=1e-5, atol=1e-5) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-12)
    ends = [2, 2, 7]                                       # an empty middle group, a tail of 2
    offs = T.tensor(ends, dtype=T.int32)
    a, b = _r(9, 5, dtype=dtype), _r(3, 5, 4, seed=1, dtype=dtype)
    want = np.zeros((9, 4), dtype)
    for g, (s, e) in enumerate(zip([0] + ends[:-1], ends)):
        want[s:e] = a[s:e] @ b[g]
    bt = T.tensor(np.ascontiguousarray(np.swapaxes(b, 1, 2))).transpose(1, 2)   # column-major
    np.testing.assert_allclose(F.grouped_mm(T.tensor(a), bt, offs=offs).numpy(), want, **tol)
    # (G, M, K) x (K, T): columns split
    a3, bk = _r(3, 2, 5, seed=2, dtype=dtype), _r(5, 9, seed=3, dtype=dtype)
    want = np.zeros((2, 9), dtype)
    for g, (s, e) in enumerate(zip([0] + ends[:-1], ends)):
        want[:, s:e] = a3[g] @ bk[:, s:e]
    np.testing.assert_allclose(F.grouped_mm(T.tensor(a3), T.tensor(bk), offs=offs).numpy(),
                               want, **tol)
    # (M, T) x (T, N): the contraction split
    m, n = _r(3, 9, seed=4, dtype=dtype), _r(9, 2, seed=5, dtype=dtype)
    want = np.stack([m[:, s:e] @ n[s:e] for s, e in zip([0] + ends[:-1], ends)])
    np.testing.assert_allclose(F.grouped_mm(T.tensor(m), T.tensor(n), offs=offs).numpy(),
                               want, **tol)
    # (G, M, K) x (G, K, N): batched
    np.testing.assert_allclose(F.grouped_mm(T.tensor(a3), T.tensor(b)).numpy(), a3 @ b, **tol)


def test_grouped_mm_checks_offsets():
    a, b = T.ones(6, 4), T.ones(2, 4, 3)
    with pytest.raises(RuntimeError, match="nondecreasing"):
        F.grouped_mm(a, b, offs=T.tensor([4, 2], dtype=T.int32))
    with pytest.raises(RuntimeError, match="within"):
        F.grouped_mm(a, b, offs=T.tensor([2, 9], dtype=T.int32))


def test_grouped_mm_gradcheck():
    offs = T.tensor([1, 4, 5], dtype=T.int32)
    a = T.tensor(_r(6, 3), requires_grad=True)
    b = T.tensor(_r(3, 3, 2, seed=1), requires_grad=True)
    assert gradcheck(lambda a, b: F.grouped_mm(a, b, offs=offs), (a, b))
    m = T.tensor(_r(2, 5, seed=2), requires_grad=True)
    n = T.tensor(_r(5, 3, seed=3), requires_grad=True)
    assert gradcheck(lambda m, n: F.grouped_mm(m, n, offs=offs), (m, n))
    a3 = T.tensor(_r(3, 2, 3, seed=4), requires_grad=True)
    bk = T.tensor(_r(3, 6, seed=5), requires_grad=True)
    assert gradcheck(lambda a, b: F.grouped_mm(a, b, offs=offs), (a3, bk))


def _lce_inputs(N=9, C=6, D=4, seed=0):
    x = T.tensor(_r(N, D, seed=seed), requires_grad=True)
    W = T.tensor(_r(C, D, seed=seed + 1), requires_grad=True)
    b = T.tensor(_r(C, seed=seed + 2), requires_grad=True)
    t = T.tensor(np.random.default_rng(seed).integers(0, C, N))
    t[2] = -100
    cw = T.tensor(np.random.default_rng(seed + 3).uniform(0.2, 2.0, C))
    return x, W, b, t, cw


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("smoothing", [0.0, 0.3])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("chunk", [1, 4, 100])
def test_chunked_equals_reference(reduction, smoothing, weighted, chunk):
    x, W, b, t, cw = _lce_inputs()
    kw = dict(linear_bias=b, weight=cw if weighted else None, reduction=reduction,
              label_smoothing=smoothing)
    ref = F.linear_cross_entropy(x, W, t, **kw)
    options = T.nn.LinearCrossEntropyOptions(batch_chunk_size=chunk)
    if smoothing:   # PyTorch ignores options with label smoothing, and says so
        with pytest.warns(UserWarning, match="``options`` ignored"):
            got = F.linear_cross_entropy(x, W, t, options=options, **kw)
    else:
        got = F.linear_cross_entropy(x, W, t, options=options, **kw)
    np.testing.assert_allclose(got.detach().numpy(), ref.detach().numpy(), rtol=1e-12, atol=1e-13)
    g = T.tensor(_r(*ref.shape, seed=7)) if reduction == "none" else None
    want = T.autograd.grad(ref, (x, W, b), g)
    have = T.autograd.grad(got, (x, W, b), g)
    for h, w in zip(have, want):
        np.testing.assert_allclose(h.numpy(), w.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("reduction", ["mean", "none"])
def test_chunked_gradcheck(reduction):
    x, W, b, t, cw = _lce_inputs(N=5, C=4, D=3)
    opts = T.nn.LinearCrossEntropyOptions(batch_chunk_size=2)

    def f(x, W, b):
        return F.linear_cross_entropy(x, W, t, linear_bias=b, weight=cw, reduction=reduction,
                                      options=opts)
    assert gradcheck(f, (x, W, b))
    assert gradgradcheck(f, (x, W, b))


def test_chunk_rows_heuristic():
    o = T.nn.LinearCrossEntropyOptions()
    assert o.chunk_rows(1000, 50000, 512) == 16          # next_pow2(ceil(1000 / 98))
    assert T.nn.LinearCrossEntropyOptions(chunking_method="aspect_ratio:4").chunk_rows(
        1000, 50000, 512) == 4
    assert T.nn.LinearCrossEntropyOptions(chunking_method=None).chunk_rows(30, 5, 4) == 30


def test_options_pytorch_ignores_fall_back_with_its_warning():
    """PyTorch ignores options (and says so) for label smoothing, not for a
    probability target; either way the values are the reference path's."""
    import warnings
    x, W, b, t, cw = _lce_inputs()
    probs = T.softmax(T.tensor(_r(9, 6, seed=8)), 1)
    options = T.nn.LinearCrossEntropyOptions()
    with pytest.warns(UserWarning, match=r"^linear_cross_entropy: ``options`` ignored; chunked "
                                         r"path needs .* Got reduction='sum', "
                                         r"label_smoothing=0.2, target.dtype=torchlike.int64"):
        got = F.linear_cross_entropy(x, W, t, label_smoothing=0.2, reduction="sum",
                                     options=options)
    np.testing.assert_allclose(got.detach().numpy(), F.linear_cross_entropy(
        x, W, t, label_smoothing=0.2, reduction="sum").detach().numpy(), rtol=1e-6)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = F.linear_cross_entropy(x, W, probs, options=options)
    np.testing.assert_allclose(got.detach().numpy(),
                               F.linear_cross_entropy(x, W, probs).detach().numpy())


def test_module_matches_functional():
    T.manual_seed(0)
    m = T.nn.LinearCrossEntropyLoss(4, 5, out_features=(3,), bias=True, label_smoothing=0.1)
    x, t = T.randn(6, 4), T.randint(0, 5, (6, 3))
    logits = F.linear(x, m.linear.weight, m.linear.bias).reshape(6, 5, 3)
    np.testing.assert_allclose(m(x, t).detach().numpy(),
                               F.cross_entropy(logits, t, label_smoothing=0.1).detach().numpy(),
                               rtol=1e-6)
    m(x, t).backward()
    assert m.linear.weight.grad.shape == (15, 4)


def test_module_and_options_at_pytorch_paths():
    """torch.nn.modules exports LinearCrossEntropyLoss and
    LinearCrossEntropyOptions, as torch.nn does."""
    import torchlike.nn.modules as modules
    assert modules.LinearCrossEntropyLoss is T.nn.LinearCrossEntropyLoss
    assert modules.LinearCrossEntropyOptions is T.nn.LinearCrossEntropyOptions
