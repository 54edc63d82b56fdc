"""CUDA kernels of scaled dot-product attention (src/gpu/seq: attention.cu,
attention_gpu.c, and the device-neutral driver
src/nn/attention/attention_device.c): _scaled_dot_product_flash_attention_for_cpu
and its backward on a device.

Each test takes a `device`.  Outputs (out and the logsumexp the backward
reads) are compared with a NumPy reference (tests/test_nn_attention.py's)
and with the CPU's kernel; gradients through autograd with the CPU's, and by
gradcheck in float64 on the device; dropout's mask with the CPU's, zero for
zero (the same Philox words).  On "cpu" the tests run everywhere and check
themselves; on "cuda" they need a GPU and skip elsewhere with "requires a
CUDA device".  On "emulated" (the fake device, in a process of its own) the
driver CUDA runs (tiles of query rows, grouped heads as one batched GEMM,
masks' offsets on the device, the backward's accumulation over tiles) runs
on host primitives with tiles of 4096 scores, so the shapes below cross
tile and batch-chunk boundaries."""
import numpy as np
import pytest

import torchlike as T
import torchlike.nn.functional as F
from torchlike import _C as C
from torchlike.autograd import gradcheck, gradgradcheck
from oracle import cuda_test_devices, run_emulated
from test_nn_attention import np_sdpa

DEVICES, EMULATED = cuda_test_devices()
FLASH = C._scaled_dot_product_flash_attention_for_cpu
FLASH_BACKWARD = C._scaled_dot_product_flash_attention_for_cpu_backward
# device against NumPy and the CPU: float32 sums in another order
TOL = {T.float64: 1e-10, T.float32: 2e-5, T.float16: 5e-3, T.bfloat16: 4e-2}

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")


def host(t):
    return t.detach().cpu().double().numpy()


def close(actual, expected, dtype, scale=1.0):
    tol = TOL[dtype] * scale
    np.testing.assert_allclose(host(actual), expected if isinstance(expected, np.ndarray)
                               else host(expected), rtol=tol, atol=tol)


def tensors(device, dtype, arrays, grad=False):
    out = [T.tensor(a, dtype=dtype).to(device) for a in arrays]
    return [t.requires_grad_() for t in out] if grad else out


def is_on(t, device):
    return t.device.type == T.device(device).type


@pytest.mark.skipif(not C._dispatch_table()["add"][1]["cuda"], reason="built without CUDA")
@pytest.mark.parametrize("op", ["_scaled_dot_product_flash_attention_for_cpu",
                                "_scaled_dot_product_flash_attention_for_cpu_backward"])
def test_cuda_rows_are_registered(op):
    assert C._dispatch_table()[op][1]["cuda"], f"{op} has no CUDA row"
    assert C._dispatch_lookup(op, "cuda", "float32") == "set"


# B, H, L, S, E, Ev: several query tiles (130 x 200), batch rows in chunks
# (16 rows of 20 x 50), one of each, empty batch, no queries, no keys, a key
# sequence longer than a tile (the emulated device's tiles hold 4096 scores)
SHAPES = [(2, 3, 5, 7, 4, 6), (1, 2, 130, 200, 16, 8), (4, 4, 20, 50, 8, 4), (1, 1, 1, 1, 3, 2),
          (0, 2, 4, 4, 4, 4), (1, 2, 0, 5, 4, 4), (1, 1, 3, 0, 4, 2), (1, 1, 3, 5000, 4, 2)]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [T.float32, T.float64, T.bfloat16])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("B,H,L,S,E,Ev", SHAPES)
def test_values_and_gradients(device, B, H, L, S, E, Ev, causal, dtype):
    rng = np.random.default_rng(B * 1000 + L + S)
    arrays = [rng.standard_normal(s) for s in ((B, H, L, E), (B, H, S, E), (B, H, S, Ev))]
    q, k, v = tensors(device, dtype, arrays, grad=True)
    out, lse = FLASH(q, k, v, 0.0, causal)
    assert is_on(out, device) and out.dtype == dtype and tuple(out.shape) == (B, H, L, Ev)
    assert tuple(lse.shape) == (B, H, L)
    close(out, np_sdpa(*(host(t) for t in (q, k, v)), causal=causal), dtype)
    cq, ck, cv = tensors("cpu", dtype, arrays, grad=True)
    c_out, c_lse = FLASH(cq, ck, cv, 0.0, causal)
    close(out, c_out, dtype)
    np.testing.assert_allclose(host(lse), host(c_lse), rtol=TOL[dtype], atol=TOL[dtype])
    g = rng.standard_normal((B, H, L, Ev))
    out.backward(T.tensor(g, dtype=dtype).to(device))
    c_out.backward(T.tensor(g, dtype=dtype))
    for a, b in zip((q, k, v), (cq, ck, cv)):
        assert is_on(a.grad, device)
        close(a.grad, b.grad, dtype, scale=4)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [T.float32, T.float64])
@pytest.mark.parametrize("B,H,Hkv,L,S", [(2, 6, 2, 70, 90), (3, 8, 2, 6, 40)])
def test_masks_scale_gqa_and_layouts(device, dtype, B, H, Hkv, L, S):
    """Bool and float masks (broadcast), a scale, grouped heads, and inputs
    that are non-contiguous views: values against NumPy, gradients against
    the CPU.  (Emulated, the first shape's tiles cut through a group of
    heads, the second's batch rows come in chunks of 4.)"""
    rng = np.random.default_rng(1)
    q, k, v = (rng.standard_normal(s) for s in ((B, H, L, 8), (B, Hkv, S, 8), (B, Hkv, S, 5)))
    bmask = rng.random((L, S)) > 0.4
    fmask = rng.standard_normal((H, 1, S))
    for mask, scale in ((bmask, None), (fmask, 0.37)):
        results = []
        for d in ("cpu", device):
            # (B, L, H, E) permuted to (B, H, L, E): non-contiguous views
            ts = [T.tensor(np.ascontiguousarray(a.transpose(0, 2, 1, 3)), dtype=dtype).to(d)
                  .permute(0, 2, 1, 3).requires_grad_() for a in (q, k, v)]
            assert not ts[0].is_contiguous()
            m = T.tensor(mask, dtype=None if mask.dtype == bool else dtype).to(d)
            out = F.scaled_dot_product_attention(*ts, attn_mask=m, scale=scale, enable_gqa=True)
            out.backward(T.tensor(np.cos(np.arange(out.numel())).reshape(tuple(out.shape)),
                                  dtype=dtype).to(d))
            lse = FLASH(*ts, 0.0, False, attn_mask=m, scale=scale)[1]
            results.append((out, [t.grad for t in ts] + [lse]))
        (c_out, c_g), (d_out, d_g) = results
        ref = np_sdpa(q, k, v, mask, scale=scale)
        close(d_out, ref, dtype, scale=5)
        close(d_out, c_out, dtype)
        for a, b in zip(d_g, c_g):
            assert is_on(a, device)
            close(a, b, dtype, scale=4)


@pytest.mark.parametrize("device", DEVICES)
def test_fully_masked_rows_give_zeros(device):
    rng = np.random.default_rng(2)
    q, k, v = tensors(device, T.float64, [rng.standard_normal(s) for s in
                                          ((1, 2, 6, 4), (1, 2, 9, 4), (1, 2, 9, 3))], grad=True)
    mask = rng.random((6, 9)) > 0.5
    mask[2] = False
    out, lse = FLASH(q, k, v, 0.0, False, attn_mask=T.tensor(mask).to(device))
    assert np.all(host(out)[:, :, 2] == 0) and np.all(host(lse)[:, :, 2] == -np.inf)
    close(out, np_sdpa(host(q), host(k), host(v), mask), T.float64)
    out.sum().backward()
    assert np.all(host(q.grad)[:, :, 2] == 0)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [T.float32, T.float64])
def test_dropout_matches_the_cpu(device, dtype):
    """The same rng_state drops the same scores on both devices (Philox
    words compared zero for zero), and the backward draws them again."""
    rng = np.random.default_rng(6)
    shapes = ((2, 2, 40, 8), (2, 2, 150, 8), (2, 2, 150, 150))
    arrays = [rng.standard_normal(s) for s in shapes[:2]] + [np.broadcast_to(np.eye(150),
                                                                          shapes[2]).copy()]
    rs = T.tensor([123456789, -987654321])
    got, want = [], []
    for d, into in ((device, got), ("cpu", want)):
        q, k, v = tensors(d, dtype, arrays, grad=True)
        out = FLASH(q, k, v, 0.3, False, rng_state=rs)[0]   # V = I: out is the dropped P
        out.backward(T.tensor(np.sin(np.arange(out.numel())).reshape(tuple(out.shape)),
                              dtype=dtype).to(d))
        into.extend([out, q.grad, k.grad, v.grad])
    np.testing.assert_array_equal(host(got[0]) == 0, host(want[0]) == 0)
    assert 0.6 < (host(want[0]) != 0).mean() < 0.8
    for a, b in zip(got, want):
        close(a, b, dtype, scale=4)
    assert np.all(host(FLASH(*tensors(device, dtype, arrays), 1.0, False, rng_state=rs)[0]) == 0)
    # an rng_state on the device is read through a host copy
    on_dev = FLASH(*tensors(device, dtype, arrays), 0.3, False, rng_state=rs.to(device))[0]
    np.testing.assert_array_equal(host(on_dev), host(got[0]))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("kind", ["causal", "bool_mask_gqa", "float_mask", "dropout"])
def test_gradcheck(device, kind):
    rng = np.random.default_rng(4)
    qh = 4 if kind == "bool_mask_gqa" else 2
    q, k, v = tensors(device, T.float64, [rng.standard_normal(s) for s in
                                          ((1, qh, 5, 3), (1, 2, 6, 3), (1, 2, 6, 2))], grad=True)
    if kind == "causal":
        fn = lambda a, b, c: F.scaled_dot_product_attention(a, b, c, is_causal=True)  # noqa: E731
    elif kind == "bool_mask_gqa":
        m = T.tensor(rng.random((5, 6)) > 0.3).to(device)

        def fn(a, b, c):
            return F.scaled_dot_product_attention(a, b, c, attn_mask=m, scale=0.7, enable_gqa=True)
    elif kind == "float_mask":
        fm = T.tensor(rng.standard_normal((2, 1, 6))).to(device).requires_grad_()
        assert gradcheck(lambda a, b, c, m: F.scaled_dot_product_attention(a, b, c, attn_mask=m),
                         (q, k, v, fm))
        return
    else:
        rs = T.tensor([5, 6])
        fn = lambda a, b, c: FLASH(a, b, c, 0.4, False, rng_state=rs)[0]  # noqa: E731
    assert gradcheck(fn, (q, k, v))
    if kind != "dropout":  # double backward: the math path, on the device too
        assert gradgradcheck(fn, (q, k, v))


@pytest.mark.parametrize("device", DEVICES)
def test_backward_op_on_its_own(device):
    rng = np.random.default_rng(8)
    arrays = [rng.standard_normal(s) for s in ((2, 3, 4), (2, 5, 4), (2, 5, 2))]
    q, k, v = tensors(device, T.float64, arrays)
    o, lse = FLASH(q, k, v)
    g = T.tensor(rng.standard_normal((2, 3, 2))).to(device)
    got = FLASH_BACKWARD(g, q, k, v, o, lse, 0.0, False)
    want = FLASH_BACKWARD(g.cpu(), *(t.cpu() for t in (q, k, v, o, lse)), 0.0, False)
    s = arrays[0] @ arrays[1].transpose(0, 2, 1) / 2
    p = np.exp(s - host(lse)[..., None])
    close(got[2], p.transpose(0, 2, 1) @ host(g), T.float64)
    for a, b in zip(got, want):
        assert is_on(a, device)
        close(a, b, T.float64)


@pytest.mark.parametrize("device", DEVICES)
def test_multihead_attention_fast_path(device):
    T.manual_seed(0)
    cpu = T.nn.MultiheadAttention(8, 2).double()
    dev = T.nn.MultiheadAttention(8, 2).double()
    dev.load_state_dict(cpu.state_dict())
    dev.to(device)
    x = np.random.default_rng(3).standard_normal((7, 3, 8))
    outs = []
    for m, d in ((cpu, "cpu"), (dev, device)):
        t = T.tensor(x).to(d).requires_grad_()
        out, w = m(t, t, t, need_weights=False)
        assert w is None
        out.sum().backward()
        outs.append((out, t.grad, m.in_proj_weight.grad))
    for a, b in zip(outs[1], outs[0]):
        close(a, b, T.float64)


# ---- the device paths, emulated --------------------------------------------------------

@pytest.mark.skipif(EMULATED, reason="this is the emulated run")
def test_device_paths_on_the_emulated_fake_device():
    """Every device-parametrised test above, on the fake device running the
    device-neutral driver on host primitives, in a process of its own."""
    run_emulated(__file__)
