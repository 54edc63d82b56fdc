"""scaled_dot_product_attention: the blocked (flash-style) kernel of
src/nn/attention, its backward op, and MultiheadAttention's fast path.

Values against a NumPy reference (dtypes, shapes with L != S and several
blocks, 0-size batches, non-contiguous and broadcast inputs, causal, bool and
float masks, scale, grouped heads, fully masked rows); dropout reproduced by
a seed and consistent between forward and backward; gradients and second
derivatives by finite differences (double backward goes through the math
path); errors; and the kernels on the fake device."""

import numpy as np
import pytest

import torchlike as T
import torchlike.nn as nn
import torchlike.nn.functional as F
from torchlike import _C as C
from torchlike.autograd import gradcheck, gradgradcheck
from nn_fake_device import run_on_fake_device

# the derivatives gradchecked here (tests/test_grad_registry.py reads this)
GRADCHECKED = {"_scaled_dot_product_flash_attention_for_cpu"}

TOL = {T.float64: 1e-12, T.float32: 2e-6, T.float16: 5e-3, T.bfloat16: 4e-2}
FLASH = C._scaled_dot_product_flash_attention_for_cpu


def np_sdpa(q, k, v, mask=None, causal=False, scale=None):
    """The math path; a row with nothing to attend gives 0 (PyTorch's safe softmax)."""
    if k.ndim >= 3 and k.shape[-3] != q.shape[-3]:
        rep = q.shape[-3] // k.shape[-3]
        k, v = np.repeat(k, rep, -3), np.repeat(v, rep, -3)
    s = q @ np.swapaxes(k, -1, -2) * (1 / np.sqrt(q.shape[-1]) if scale is None else scale)
    L, S = s.shape[-2:]
    if causal:
        s = np.where(np.tril(np.ones((L, S), bool)), s, -np.inf)
    if mask is not None:
        s = np.where(mask, s, -np.inf) if mask.dtype == bool else s + mask
    m = s.max(-1, keepdims=True) if S else np.zeros(s.shape[:-1] + (1,))
    m = np.where(np.isfinite(m), m, 0)
    e = np.exp(s - m)
    d = e.sum(-1, keepdims=True)
    p = np.divide(e, d, out=np.zeros_like(e), where=d > 0)
    return p @ v


def to64(t):
    return t.detach().double().cpu().numpy()


SHAPES = [(2, 3, 5, 7, 4, 6), (1, 2, 130, 200, 16, 8), (2, 1, 64, 64, 32, 32),
          (1, 1, 1, 1, 3, 2), (0, 2, 4, 4, 4, 4), (1, 2, 0, 5, 4, 4), (1, 1, 65, 257, 128, 5)]


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("dtype", list(TOL))
@pytest.mark.parametrize("B,H,L,S,E,Ev", SHAPES)
def test_values_match_numpy(B, H, L, S, E, Ev, dtype, causal):
    rng = np.random.default_rng(B * 1000 + L + S)
    q, k, v = (T.tensor(rng.standard_normal(s), dtype=dtype)
               for s in ((B, H, L, E), (B, H, S, E), (B, H, S, Ev)))
    out = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
    assert out.dtype == dtype and tuple(out.shape) == (B, H, L, Ev)
    ref = np_sdpa(to64(q), to64(k), to64(v), causal=causal)
    np.testing.assert_allclose(to64(out), ref, rtol=TOL[dtype], atol=TOL[dtype])


@pytest.mark.parametrize("dtype", [T.float32, T.float64])
def test_masks_scale_and_broadcasting(dtype):
    rng = np.random.default_rng(1)
    q, k, v = (rng.standard_normal(s) for s in ((2, 3, 70, 8), (2, 3, 90, 8), (2, 3, 90, 5)))
    tq, tk, tv = (T.tensor(a, dtype=dtype) for a in (q, k, v))
    tol = TOL[dtype]
    bmask = rng.random((70, 90)) > 0.4
    out = F.scaled_dot_product_attention(tq, tk, tv, attn_mask=T.tensor(bmask))
    np.testing.assert_allclose(to64(out), np_sdpa(q, k, v, bmask), rtol=tol, atol=tol)
    fmask = rng.standard_normal((3, 1, 90))          # broadcast over batch and query rows
    out = F.scaled_dot_product_attention(tq, tk, tv, attn_mask=T.tensor(fmask, dtype=dtype),
                                         scale=0.37)
    ref = np_sdpa(q, k, v, fmask.astype(np.float32 if dtype == T.float32 else np.float64), scale=0.37)
    np.testing.assert_allclose(to64(out), ref, rtol=tol * 10, atol=tol * 10)
    # a fully masked row gives zeros, as PyTorch's safe softmax
    bmask[3] = False
    out = F.scaled_dot_product_attention(tq, tk, tv, attn_mask=T.tensor(bmask))
    assert np.all(to64(out)[:, :, 3] == 0)
    np.testing.assert_allclose(to64(out), np_sdpa(q, k, v, bmask), rtol=tol, atol=tol)
    # key/value batch dims broadcast against the query's
    out = F.scaled_dot_product_attention(tq, tk[:1], tv[:1])
    np.testing.assert_allclose(to64(out), np_sdpa(q, np.broadcast_to(k[:1], k.shape),
                                                  np.broadcast_to(v[:1], v.shape)), rtol=tol, atol=tol)
    # 2-d inputs (no batch) and non-contiguous ones
    out = F.scaled_dot_product_attention(tq[0, 0], tk[0, 0], tv[0, 0])
    np.testing.assert_allclose(to64(out), np_sdpa(q[0, 0], k[0, 0], v[0, 0]), rtol=tol, atol=tol)
    qt = T.tensor(q.transpose(0, 2, 1, 3).copy(), dtype=dtype).transpose(1, 2)
    assert not qt.is_contiguous()
    out = F.scaled_dot_product_attention(qt, tk, tv, is_causal=True)
    np.testing.assert_allclose(to64(out), np_sdpa(q, k, v, causal=True), rtol=tol, atol=tol)


def test_grouped_query_attention():
    rng = np.random.default_rng(2)
    q, k, v = (rng.standard_normal(s) for s in ((2, 6, 9, 4), (2, 2, 11, 4), (2, 2, 11, 3)))
    out = F.scaled_dot_product_attention(T.tensor(q), T.tensor(k), T.tensor(v), enable_gqa=True)
    np.testing.assert_allclose(out.cpu().numpy(), np_sdpa(q, k, v), rtol=1e-12, atol=1e-12)
    with pytest.raises(RuntimeError, match="must divide the number of heads in query"):
        F.scaled_dot_product_attention(T.tensor(q), T.tensor(k[:, :1].repeat(4, 1)[:, :4]),
                                       T.tensor(v[:, :1].repeat(4, 1)[:, :4]), enable_gqa=True)


@pytest.mark.parametrize("causal", [False, True])
def test_gradients_and_second_derivatives(causal):
    rng = np.random.default_rng(3)
    q, k, v = (T.tensor(rng.standard_normal(s), requires_grad=True)
               for s in ((1, 2, 5, 3), (1, 2, 6, 3), (1, 2, 6, 4)))
    fn = lambda a, b, c: F.scaled_dot_product_attention(a, b, c, is_causal=causal)  # noqa: E731
    assert gradcheck(fn, (q, k, v))
    assert gradgradcheck(fn, (q, k, v))


def test_gradients_with_masks_gqa_and_scale():
    rng = np.random.default_rng(4)
    q = T.tensor(rng.standard_normal((1, 4, 5, 3)), requires_grad=True)
    k, v = (T.tensor(rng.standard_normal(s), requires_grad=True) for s in ((1, 2, 6, 3), (1, 2, 6, 2)))
    bmask = T.tensor(rng.random((5, 6)) > 0.3)
    fn = lambda a, b, c: F.scaled_dot_product_attention(a, b, c, attn_mask=bmask, scale=0.7,  # noqa: E731
                                                        enable_gqa=True)
    assert gradcheck(fn, (q, k, v))
    assert gradgradcheck(fn, (q, k, v))
    fmask = T.tensor(rng.standard_normal((4, 1, 6)), requires_grad=True)
    fn = lambda a, b, c, m: F.scaled_dot_product_attention(a, b, c, attn_mask=m,  # noqa: E731
                                                           enable_gqa=True)
    assert gradcheck(fn, (q, k, v, fmask))
    assert gradgradcheck(fn, (q, k, v, fmask))


def test_long_blocks_backward_matches_the_math_path():
    """Several query and key blocks, causal: the fused backward against the math one."""
    rng = np.random.default_rng(5)
    q, k, v = (rng.standard_normal(s) for s in ((1, 2, 150, 16), (1, 2, 170, 16), (1, 2, 170, 8)))
    g = rng.standard_normal((1, 2, 150, 8))
    ts = [T.tensor(a, requires_grad=True) for a in (q, k, v)]
    F.scaled_dot_product_attention(*ts, is_causal=True).backward(T.tensor(g))
    # the math path's gradients, by NumPy
    s = q @ np.swapaxes(k, -1, -2) / 4
    s = np.where(np.tril(np.ones((150, 170), bool)), s, -np.inf)
    p = np.exp(s - s.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    dv = np.swapaxes(p, -1, -2) @ g
    dp = g @ np.swapaxes(v, -1, -2)
    ds = p * (dp - (dp * p).sum(-1, keepdims=True))
    for t, ref in zip(ts, (ds @ k / 4, np.swapaxes(ds, -1, -2) @ q / 4, dv)):
        np.testing.assert_allclose(t.grad.cpu().numpy(), ref, rtol=1e-10, atol=1e-12)


def test_dropout_is_reproducible_and_consistent():
    rng = np.random.default_rng(6)
    q, k, v = (T.tensor(rng.standard_normal(s)) for s in ((2, 2, 40, 8), (2, 2, 50, 8), (2, 2, 50, 8)))
    T.manual_seed(7)
    a = F.scaled_dot_product_attention(q, k, v, dropout_p=0.3)
    T.manual_seed(7)
    b = F.scaled_dot_product_attention(q, k, v, dropout_p=0.3)
    c = F.scaled_dot_product_attention(q, k, v, dropout_p=0.3)
    np.testing.assert_array_equal(a.cpu().numpy(), b.cpu().numpy())
    assert not np.array_equal(a.cpu().numpy(), c.cpu().numpy())
    # with V = identity the output is the dropped-out probability matrix itself
    eye = T.eye(50, dtype=T.float64).expand(2, 2, 50, 50)
    rs = T.tensor([123, 456])
    pd = FLASH(q, k, eye, 0.25, False, rng_state=rs)[0].cpu().numpy()
    p = np_sdpa(q.cpu().numpy(), k.cpu().numpy(), np.broadcast_to(np.eye(50), (2, 2, 50, 50)))
    kept = pd != 0
    assert 0.7 < kept.mean() < 0.8
    np.testing.assert_allclose(pd[kept], p[kept] / 0.75, rtol=1e-12)
    assert np.all(FLASH(q, k, v, 1.0, False, rng_state=rs)[0].cpu().numpy() == 0)
    # forward and backward draw the same mask: gradcheck through a fixed rng_state
    qs, ks, vs = (T.tensor(rng.standard_normal(s), requires_grad=True)
                  for s in ((1, 1, 6, 3), (1, 1, 7, 3), (1, 1, 7, 2)))
    assert gradcheck(lambda a, b, c: FLASH(a, b, c, 0.4, False, rng_state=rs)[0], (qs, ks, vs))
    with pytest.raises(NotImplementedError, match="dropout_p > 0"):
        gradgradcheck(lambda a, b, c: FLASH(a, b, c, 0.4, False, rng_state=rs)[0], (qs, ks, vs))


# ---- block boundaries of the CPU kernel ------------------------------------------------
# Key blocks hold 128 keys at E = 64 and 102 at E = 80 (2^19 / (64 E), so
# blocks that start off a multiple of 4 keys, dropout's Philox word groups);
# query blocks hold 64 rows; the forward reads K as transposed panels once
# two query blocks of a key/value row share them (L >= 128, or grouped heads).

def np_sdpa_grads(q, k, v, g, scale, keep=None, p=0.0, mask=None, causal=False):
    """out, dq, dk, dv by the math path's formulas (float64), with dropout's
    kept-score pattern `keep` (1 / (1 - p) where kept)."""
    s = q @ np.swapaxes(k, -1, -2) * scale
    L, S = s.shape[-2:]
    if causal:
        s = np.where(np.tril(np.ones((L, S), bool)), s, -np.inf)
    if mask is not None:
        s = np.where(mask, s, -np.inf) if mask.dtype == bool else s + mask
    m = s.max(-1, keepdims=True)
    m = np.where(np.isfinite(m), m, 0)
    e = np.exp(s - m)
    d = e.sum(-1, keepdims=True)
    pr = np.divide(e, d, out=np.zeros_like(e), where=d > 0)
    z = np.ones_like(pr) if keep is None else keep / (1 - p)
    out = (pr * z) @ v
    dv = np.swapaxes(pr * z, -1, -2) @ g
    dp = (g @ np.swapaxes(v, -1, -2)) * z
    ds = pr * (dp - (dp * pr).sum(-1, keepdims=True))
    return out, ds @ k * scale, np.swapaxes(ds, -1, -2) @ q * scale, dv


BOUNDARY_LS = [(1, 1), (63, 63), (64, 64), (65, 65), (127, 129), (128, 128), (257, 257),
               (65, 257), (257, 65), (1, 300)]


@pytest.mark.parametrize("dtype", [T.float32, T.float64])
@pytest.mark.parametrize("E", [64, 80])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("L,S", BOUNDARY_LS)
def test_block_boundaries_values_and_gradients(L, S, causal, E, dtype):
    rng = np.random.default_rng(L * 1000 + S + E)
    q, k, v, g = (rng.standard_normal(s) for s in ((1, 2, L, E), (1, 2, S, E), (1, 2, S, 7),
                                                    (1, 2, L, 7)))
    ts = [T.tensor(a, dtype=dtype, requires_grad=True) for a in (q, k, v)]
    out = F.scaled_dot_product_attention(*ts, is_causal=causal)
    out.backward(T.tensor(g, dtype=dtype))
    want = np_sdpa_grads(q, k, v, g, 1 / np.sqrt(E), causal=causal)
    tol = 1e-12 if dtype == T.float64 else 2e-5
    for got, ref in zip([out] + [t.grad for t in ts], want):
        np.testing.assert_allclose(to64(got), ref, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", [T.float32, T.float64])
def test_block_boundaries_with_masks_and_grouped_heads(dtype):
    """Bool and float masks, contiguous and transposed (a key stride other than
    1), grouped heads (the key panels at L = 65) and causal with L != S, whose
    mask PyTorch aligns top-left (query i sees keys 0 .. i)."""
    rng = np.random.default_rng(11)
    L, S, E = 65, 257, 80
    q, k, v, g = (rng.standard_normal(s) for s in ((1, 4, L, E), (1, 2, S, E), (1, 2, S, 5),
                                                    (1, 4, L, 5)))
    rep = lambda a: np.repeat(a, 2, 1)  # noqa: E731
    bmask = rng.random((L, S)) > 0.3
    bmask[7] = False                                  # a row with nothing to attend
    fmask = rng.standard_normal((S, L)).T             # a transposed view: key stride L
    tol = 1e-12 if dtype == T.float64 else 3e-5
    for mask in (bmask, fmask, None):
        tm = None if mask is None else T.tensor(mask if mask.dtype == bool else mask.T,
                                                dtype=None if mask.dtype == bool else dtype)
        if tm is not None and mask.dtype != bool:
            tm = tm.t()
            assert not tm.is_contiguous()
        ts = [T.tensor(a, dtype=dtype, requires_grad=True) for a in (q, k, v)]
        out = F.scaled_dot_product_attention(*ts, attn_mask=tm, is_causal=mask is None,
                                             enable_gqa=True)
        out.backward(T.tensor(g, dtype=dtype))
        o, dq, dk, dv = np_sdpa_grads(q, rep(k), rep(v), g, 1 / np.sqrt(E), mask=mask,
                                      causal=mask is None)
        dk, dv = dk[:, 0::2] + dk[:, 1::2], dv[:, 0::2] + dv[:, 1::2]
        for got, ref in zip([out] + [t.grad for t in ts], (o, dq, dk, dv)):
            np.testing.assert_allclose(to64(got), ref, rtol=tol, atol=tol)
        if mask is bmask:
            assert np.all(to64(out)[:, :, 7] == 0) and np.all(to64(ts[0].grad)[:, :, 7] == 0)


def test_block_boundaries_gradients_by_finite_differences():
    """A directional finite difference of sum(out * g) in float64 against the
    analytic gradients, over several key and query blocks, causal and masked."""
    rng = np.random.default_rng(12)
    L, S, E = 130, 205, 80
    x = [rng.standard_normal(s) for s in ((1, 2, L, E), (1, 2, S, E), (1, 2, S, 6))]
    d = [rng.standard_normal(a.shape) for a in x]
    g = T.tensor(rng.standard_normal((1, 2, L, 6)))
    mask = T.tensor(rng.standard_normal((L, S)))
    for kw in ({"is_causal": True}, {"attn_mask": mask}):
        f = lambda arrays: float((F.scaled_dot_product_attention(  # noqa: E731
            *(T.tensor(a) for a in arrays), **kw) * g).sum())
        ts = [T.tensor(a, requires_grad=True) for a in x]
        (F.scaled_dot_product_attention(*ts, **kw) * g).sum().backward()
        analytic = sum(float((t.grad * T.tensor(di)).sum()) for t, di in zip(ts, d))
        h = 1e-5
        fd = (f([a + h * di for a, di in zip(x, d)]) - f([a - h * di for a, di in zip(x, d)])) / (2 * h)
        assert abs(fd - analytic) <= 1e-7 * max(1.0, abs(analytic)), (kw.keys(), fd, analytic)


def attention_keep(rs, B, L, S, p):
    """Dropout's kept scores by the documented rule, from Philox itself: key j
    of query i in batch row b reads word j % 4 of block (j / 4, i, b, b >> 32)
    under the seed w0 ^ rotate(w1, 32); kept when its top 24 bits / 2^24 >= p."""
    w0, w1 = (int(x) % 2 ** 64 for x in rs)
    seed = w0 ^ (((w1 << 32) | (w1 >> 32)) & (2 ** 64 - 1))
    key = (seed & 0xffffffff, seed >> 32)
    keep = np.zeros((B, L, S), bool)
    for b in range(B):
        for i in range(L):
            for j4 in range((S + 3) // 4):
                words = C._philox4x32_10((j4, i, b & 0xffffffff, b >> 32), key)
                for slot, w in enumerate(words[:S - 4 * j4]):
                    keep[b, i, 4 * j4 + slot] = (w >> 8) / 2 ** 24 >= p
    return keep


@pytest.mark.parametrize("dtype", [T.float32, T.float64])
def test_dropout_draws_the_documented_philox_words(dtype):
    """The kept scores across key blocks of 102 (group boundaries off a
    multiple of 4) equal the Philox rule's, and the backward applies the same
    ones: values and gradients against the formulas with that pattern."""
    rng = np.random.default_rng(13)
    L, S, E, p = 5, 257, 80, 0.3
    q, k, v, g = (rng.standard_normal(s) for s in ((1, 2, L, E), (1, 2, S, E), (1, 2, S, 4),
                                                    (1, 2, L, 4)))
    words = (123456789, -987654321)
    rs = T.tensor(words)
    keep = attention_keep(words, 2, L, S, p).reshape(1, 2, L, S)
    eye = T.eye(S, dtype=dtype).expand(1, 2, S, S)
    pd = to64(FLASH(T.tensor(q, dtype=dtype), T.tensor(k, dtype=dtype), eye, p, False,
                    rng_state=rs)[0])
    np.testing.assert_array_equal(pd != 0, keep)
    ts = [T.tensor(a, dtype=dtype, requires_grad=True) for a in (q, k, v)]
    out = FLASH(*ts, p, False, rng_state=rs)[0]
    out.backward(T.tensor(g, dtype=dtype))
    want = np_sdpa_grads(q, k, v, g, 1 / np.sqrt(E), keep=keep, p=p)
    tol = 1e-12 if dtype == T.float64 else 3e-5
    for got, ref in zip([out] + [t.grad for t in ts], want):
        np.testing.assert_allclose(to64(got), ref, rtol=tol, atol=tol)


def test_backward_op_on_its_own():
    rng = np.random.default_rng(8)
    q, k, v = (T.tensor(rng.standard_normal(s)) for s in ((1, 3, 4), (1, 5, 4), (1, 5, 2)))
    o, lse = FLASH(q, k, v)
    s = q.cpu().numpy() @ k.cpu().numpy().transpose(0, 2, 1) / 2
    np.testing.assert_allclose(lse.cpu().numpy(), np.log(np.exp(s).sum(-1)), rtol=1e-12)
    g = T.tensor(rng.standard_normal((1, 3, 2)))
    dq, dk, dv = C._scaled_dot_product_flash_attention_for_cpu_backward(g, q, k, v, o, lse, 0.0,
                                                                         False)
    p = np.exp(s - lse.cpu().numpy()[..., None])
    np.testing.assert_allclose(dv.cpu().numpy(), p.transpose(0, 2, 1) @ g.cpu().numpy(), rtol=1e-12)
    assert dq.shape == q.shape and dk.shape == k.shape


def test_errors_name_the_problem():
    q = T.randn(2, 3, 4)
    with pytest.raises(RuntimeError, match="Expected query, key, and value to have the same dtype"):
        F.scaled_dot_product_attention(q, q.double(), q)
    with pytest.raises(RuntimeError, match="Explicit attn_mask should not be set when is_causal"):
        F.scaled_dot_product_attention(q, q, q, attn_mask=T.ones(3, 3, dtype=T.bool),
                                       is_causal=True)
    # PyTorch's words: its math path's q @ k^T (bmm over the batch, mm for 2-d)
    with pytest.raises(RuntimeError, match=r"Expected size for first two dimensions of batch2 "
                                           r"tensor to be: \[2, 4\] but got: \[2, 5\]\."):
        F.scaled_dot_product_attention(q, T.randn(2, 3, 5), T.randn(2, 3, 5))
    with pytest.raises(RuntimeError, match=r"mm: mat1 and mat2 shapes cannot be multiplied "
                                           r"\(3x4 and 5x3\)"):
        F.scaled_dot_product_attention(q[0], T.randn(3, 5), T.randn(3, 4))
    with pytest.raises(RuntimeError, match=r"Expected size for first two dimensions of batch2 "
                                           r"tensor to be: \[4, 4\] but got: \[4, 5\]\."):
        F.scaled_dot_product_attention(T.randn(1, 4, 3, 4), T.randn(1, 2, 3, 5),
                                       T.randn(1, 2, 3, 4), enable_gqa=True)
    with pytest.raises(RuntimeError, match="Expected attn_mask dtype to be bool or float"):
        F.scaled_dot_product_attention(q, q, q, attn_mask=T.ones(3, 3, dtype=T.int64))
    with pytest.raises(RuntimeError, match=r"attn_mask of shape \[4, 3\] cannot be broadcast"):
        FLASH(q, q, q, attn_mask=T.ones(4, 3, dtype=T.bool))
    with pytest.raises(RuntimeError, match="needs rng_state"):
        FLASH(q, q, q, 0.5)


def test_errors_in_pytorch_words_and_order():
    # PyTorch 2.15's checks: dtypes alike, then at least 2 dims, then a mask
    # with is_causal, then the mask's dtype, then a float query; the dtypes
    # named as its C++ types (ScalarType names for the float check)
    q = T.randn(2, 3, 4)
    with pytest.raises(RuntimeError) as info:
        F.scaled_dot_product_attention(q, q.double(), q.long())
    assert str(info.value) == ("Expected query, key, and value to have the same dtype, but got "
                               "query.dtype: float key.dtype: double and value.dtype: long int "
                               "instead.")
    with pytest.raises(RuntimeError) as info:
        F.scaled_dot_product_attention(T.randn(4), T.randn(2, 4), T.randn(2, 4), is_causal=True,
                                       attn_mask=T.ones(2, dtype=T.int32))
    assert str(info.value) == ("Expected query, key, and value to all be  at least 2 dimensional, "
                               "but got query.dim: 1 key.dim: 2 and value.dim: 2 instead.")
    with pytest.raises(RuntimeError, match="Explicit attn_mask should not be set"):
        F.scaled_dot_product_attention(q, q, q, is_causal=True,
                                       attn_mask=T.ones(3, 3, dtype=T.int8))
    for dt, name in ((T.int32, "int"), (T.float16, "c10::Half"), (T.float64, "double")):
        with pytest.raises(RuntimeError) as info:
            F.scaled_dot_product_attention(q, q, q, attn_mask=T.zeros(3, 3, dtype=dt))
        assert str(info.value) == ("Expected attn_mask dtype to be bool or float or to match "
                                   f"query dtype, but got attn_mask.dtype: {name} and  "
                                   "query.dtype: float instead.")
    qi = T.ones(1, 2, 3, 4, dtype=T.int64)
    with pytest.raises(RuntimeError, match="^expected scalar type Float but found Long$"):
        F.scaled_dot_product_attention(qi, qi, qi)
    qc = T.ones(1, 2, 3, 4, dtype=T.complex64)
    with pytest.raises(NotImplementedError, match="not implemented for 'ComplexFloat'"):
        F.scaled_dot_product_attention(qc, qc, qc)
    # a float32 mask is taken with a float64 query (added in float64)
    qd = q.double()
    np.testing.assert_allclose(
        F.scaled_dot_product_attention(qd, qd, qd, attn_mask=T.zeros(3, 3)).cpu().numpy(),
        F.scaled_dot_product_attention(qd, qd, qd).cpu().numpy(), rtol=1e-15)


def test_multihead_attention_fast_path_matches_the_weights_path():
    T.manual_seed(9)
    mha = T.nn.MultiheadAttention(8, 2, dtype=T.float64)
    rng = np.random.default_rng(10)
    x = T.tensor(rng.standard_normal((5, 3, 8)))
    kpm = T.tensor(np.array([[False] * 5, [False, False, True, True, False], [True] + [False] * 4]))
    am = T.tensor(rng.random((5, 5)) > 0.8)
    # is_causal is a hint that attn_mask is the causal mask: the fast path
    # then runs the kernel's causal mode (whatever the mask), as PyTorch
    causal = T.ones(5, 5, dtype=T.bool).triu(1)
    with T.no_grad():
        for kw in ({}, {"key_padding_mask": kpm}, {"attn_mask": am}, {"is_causal": True,
                                                                      "attn_mask": causal}):
            fast, none = mha(x, x, x, need_weights=False, **kw)
            slow, _ = mha(x, x, x, need_weights=True, **kw)
            assert none is None
            np.testing.assert_allclose(fast.cpu().numpy(), slow.cpu().numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.host_only  # runs its own fake-device subprocess
def test_fake_device_uses_the_device_kernels():
    run_on_fake_device("""
        import numpy as np
        import torchlike as T
        C = T._C
        C._fake_enable()
        q = T.randn(2, 3, 4).to("fake")
        try:
            C._scaled_dot_product_flash_attention_for_cpu(q, q, q)
        except NotImplementedError as e:
            assert "no kernel for device fake:0" in str(e), e
        else:
            raise AssertionError("ran without a kernel")
        C._dispatch_lend_cpu_kernels("fake", True)
        q = T.randn(2, 3, 4).to("fake").requires_grad_()
        out = T.nn.functional.scaled_dot_product_attention(q, q, q, is_causal=True)
        assert str(out.device) == "fake:0"
        ref = T.nn.functional.scaled_dot_product_attention(*(q.detach().cpu(),) * 3,
                                                           is_causal=True)
        np.testing.assert_array_equal(out.detach().cpu().numpy(), ref.cpu().numpy())
        out.sum().backward()
        assert str(q.grad.device) == "fake:0"
        print("ok")
    """)


def np_mha(q, k, v, wq, wk, wv, bq, bk, bv, wo, bo, H):
    """MultiheadAttention on sequence-first (L, N, E) inputs, written out."""
    L, N, E = q.shape
    hd = E // H
    heads = lambda t: t.reshape(t.shape[0], N, H, hd).transpose(1, 2, 0, 3)  # noqa: E731
    out = np_sdpa(heads(q @ wq.T + bq), heads(k @ wk.T + bk), heads(v @ wv.T + bv))
    return out.transpose(2, 0, 1, 3).reshape(L, N, E) @ wo.T + bo


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("kind", ["self", "cross", "kdim"])
def test_multihead_attention_values_and_gradients(batch_first, kind):
    T.manual_seed(3)
    E, H, L, S, N = 8, 2, 5, 4, 3
    kdim = 6 if kind == "kdim" else E
    mha = T.nn.MultiheadAttention(E, H, kdim=kdim, vdim=kdim, batch_first=batch_first,
                                  dtype=T.float64)
    with T.no_grad():
        for p in mha.parameters():
            p.copy_(T.randn(*p.shape, dtype=T.float64) * 0.5)
    rng = np.random.default_rng(4)
    q = rng.standard_normal((L, N, E))
    kv = q if kind == "self" else rng.standard_normal((S, N, kdim))
    if kind == "kdim":
        wq, wk, wv = (getattr(mha, f"{c}_proj_weight").detach().cpu().numpy() for c in "qkv")
    else:
        wq, wk, wv = np.split(mha.in_proj_weight.detach().cpu().numpy(), 3)
    bq, bk, bv = np.split(mha.in_proj_bias.detach().cpu().numpy(), 3)
    want = np_mha(q, kv, kv, wq, wk, wv, bq, bk, bv, mha.out_proj.weight.detach().cpu().numpy(),
                  mha.out_proj.bias.detach().cpu().numpy(), H)
    bf = (lambda a: a.transpose(1, 0, 2)) if batch_first else (lambda a: a)  # noqa: E731
    x = T.tensor(bf(q).copy(), requires_grad=True)
    y = x if kind == "self" else T.tensor(bf(kv).copy(), requires_grad=True)
    out, _ = mha(x, y, y, need_weights=False)
    np.testing.assert_allclose(bf(out.detach().cpu().numpy()), want, rtol=1e-10, atol=1e-12)
    if kind == "self":
        assert gradcheck(lambda a: mha(a, a, a, need_weights=False)[0], (x,))
    else:
        assert gradcheck(lambda a, b: mha(a, b, b, need_weights=False)[0], (x, y))


def _node(t, name):
    """The first node called `name` on t's graph."""
    return next(n for n in _graph(t) if n.name() == name)


def test_self_attention_saves_one_projection_and_no_copy_of_its_input():
    T.manual_seed(5)
    N, L, E, H = 2, 6, 8, 2
    mha = T.nn.MultiheadAttention(E, H, batch_first=True)
    x = T.randn(N, L, E, requires_grad=True)
    out, _ = mha(x, x, x, need_weights=False)
    sdpa = _node(out, "ScaledDotProductFlashAttentionForCpuBackward0")
    q, k, v = sdpa._saved_tensors[:3]
    # q, k and v are views of the one (E -> 3E) in-projection, not copies
    assert q.untyped_storage().data_ptr() == k.untyped_storage().data_ptr() \
        == v.untyped_storage().data_ptr()
    assert q.untyped_storage().nbytes() == N * L * 3 * E * 4
    inproj = [n for n in _graph(out) if n.name() == "AddmmBackward0" and any(
        t.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
        for t in n._saved_tensors)]
    assert len(inproj) == 1      # the batch-first input is read in place by one product
    out.sum().backward()
    assert sdpa._saved_tensors == ()


def _graph(t):
    todo, seen, nodes = [t.grad_fn], set(), []
    while todo:
        n = todo.pop()
        if n is None or id(n) in seen:
            continue
        seen.add(id(n))
        nodes.append(n)
        todo.extend(f for f, _ in n.next_functions)
    return nodes


def test_transformer_step_gives_every_byte_back():
    T.manual_seed(6)
    layer = T.nn.TransformerEncoderLayer(64, 4, dim_feedforward=128, dropout=0.1,
                                         batch_first=True)
    x = T.randn(4, 16, 64)

    def step():
        out = layer(x)
        out.square().mean().backward()
        layer.zero_grad(set_to_none=True)

    step()
    base = C._cpu_memory_stats()["allocated"]
    for _ in range(3):
        step()
        assert C._cpu_memory_stats()["allocated"] == base


def test_multihead_attention_accepts_an_empty_batch():
    # PyTorch returns empty outputs (and weights) for a 0-size batch
    m = nn.MultiheadAttention(4, 2, batch_first=True)
    x = T.zeros(0, 3, 4)
    out, w = m(x, x, x)
    assert tuple(out.shape) == (0, 3, 4) and tuple(w.shape) == (0, 3, 3)
    assert tuple(m(x, x, x, attn_mask=T.zeros(3, 3))[0].shape) == (0, 3, 4)
    assert tuple(m(x, x, x, need_weights=False)[0].shape) == (0, 3, 4)
    kv = nn.MultiheadAttention(4, 2, add_bias_kv=True, add_zero_attn=True)
    assert tuple(kv(T.zeros(3, 0, 4), T.zeros(3, 0, 4), T.zeros(3, 0, 4))[0].shape) == (3, 0, 4)
    tr = nn.Transformer(4, 2, 1, 1, 8, batch_first=True)
    assert tuple(tr(T.zeros(0, 3, 4), T.zeros(0, 2, 4)).shape) == (0, 2, 4)


def test_attention_submodules_found_as_attributes():
    """torch.nn.attention.bias and .flex_attention reached as attributes of
    the package (no import of the submodule first) are those submodules;
    in a fresh interpreter, since an earlier import would set them."""
    import os
    import subprocess
    import sys
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    code = ("import torchlike as T\n"
            "print(T.nn.attention.bias.__name__, T.nn.attention.flex_attention.__name__,\n"
            "      callable(T.nn.attention.bias.causal_lower_right))\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([root, os.environ.get("PYTHONPATH", "")]))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         timeout=120)
    assert out.stdout.split() == ["torchlike.nn.attention.bias",
                                  "torchlike.nn.attention.flex_attention", "True"], out.stderr


def test_grouped_query_attention_with_key_and_value_head_counts_apart():
    # PyTorch takes key and value head counts that differ, each dividing the
    # query's: the same as each repeated to the query's head count
    rng = np.random.default_rng(4)
    q = T.tensor(rng.standard_normal((2, 6, 3, 4)))
    for hk, hv in ((2, 3), (3, 2), (1, 6), (6, 2)):
        k = T.tensor(rng.standard_normal((2, hk, 5, 4)), requires_grad=True)
        v = T.tensor(rng.standard_normal((2, hv, 5, 2)), requires_grad=True)
        for causal in (False, True):
            y = F.scaled_dot_product_attention(q, k, v, enable_gqa=True, is_causal=causal)
            ref = F.scaled_dot_product_attention(q, k.repeat_interleave(6 // hk, 1),
                                                 v.repeat_interleave(6 // hv, 1), is_causal=causal)
            np.testing.assert_allclose(y.detach().cpu().numpy(), ref.detach().cpu().numpy(),
                                       rtol=1e-12, atol=1e-12)
        assert gradcheck(lambda a, b: F.scaled_dot_product_attention(q, a, b, enable_gqa=True),
                         (k, v))
    for hk, hv in ((4, 2), (2, 4), (5, 1)):
        with pytest.raises(RuntimeError, match="^Number of heads in key and value must divide"):
            F.scaled_dot_product_attention(q, T.zeros(2, hk, 5, 4, dtype=T.float64),
                                           T.zeros(2, hv, 5, 2, dtype=T.float64), enable_gqa=True)


def test_batch_and_mask_mismatches_in_pytorchs_broadcast_words():
    # PyTorch's math path meets these at q @ k^T, attn @ v and the mask's
    # in-place add: the rightmost dim that differs, numbered in the aligned
    # shape (torchlike's BroadcastError, a RuntimeError, adds both shapes)
    q = T.ones(1, 4, 3, 8)
    cases = [((q, T.ones(1, 2, 3, 8), T.ones(1, 2, 3, 8)), {}, 4, 2, 1),
             ((q, T.ones(2, 4, 3, 8), T.ones(1, 3, 3, 8)), {}, 4, 3, 1),
             ((q, q, q), {"attn_mask": T.ones(2, 3, dtype=T.bool)}, 3, 2, 2),
             ((q, q, q), {"attn_mask": T.zeros(1, 4, 3, 2)}, 3, 2, 3),
             ((q, q, q), {"attn_mask": T.zeros(3, 3, 3)}, 4, 3, 1)]
    for args, kwargs, a, b, dim in cases:
        with pytest.raises(RuntimeError, match=rf"^The size of tensor a \({a}\) must match the "
                                               rf"size of tensor b \({b}\) at non-singleton "
                                               rf"dimension {dim}: shapes "):
            F.scaled_dot_product_attention(*args, **kwargs)
    with pytest.raises(RuntimeError, match=r"^output with shape \[1, 4, 3, 3\] doesn't match the "
                                           r"broadcast shape \[2, 4, 3, 3\]$"):
        F.scaled_dot_product_attention(q, q, q, attn_mask=T.zeros(2, 1, 3, 3))
    # what broadcasts still runs: key/value batch 1 against the query's, a 2-d mask
    out = F.scaled_dot_product_attention(T.ones(2, 4, 3, 8), q, q,
                                         attn_mask=T.zeros(3, 3))
    assert tuple(out.shape) == (2, 4, 3, 8)
