"""torchlike.nn.attention: SDPBackend and sdpa_kernel (which backend runs
F.scaled_dot_product_attention, PyTorch's errors and warnings when none
can), and flex_attention computed densely (values against PyTorch's and a
NumPy reference, gradcheck).  Recorded by scripts/golden_api_modules.py."""
import math
import warnings

import numpy as np
import pytest

import torchlike as torch
import torchlike.nn.functional as F
from torchlike.autograd import gradcheck
from torchlike.nn.attention import SDPBackend, sdpa_kernel
from torchlike.nn.attention.flex_attention import (flex_attention, create_block_mask,
                                                   create_mask, and_masks, or_masks, AuxRequest)
from api_modules_golden import GOLDEN, ours, script

DIFFERENT = {
    # an IntEnum here: its members can be listed (PyTorch's pybind enum cannot)
    "[int(b) for b in T.nn.attention.SDPBackend]": [-1, 0, 1, 2, 3, 4],
}


def _close(got, want, tol):
    if isinstance(want, float) and isinstance(got, (int, float)):
        return (math.isinf(want) and got == want) or abs(got - want) <= tol * (1 + abs(want))
    if isinstance(want, list) and isinstance(got, list):
        return len(got) == len(want) and all(_close(g, w, tol) for g, w in zip(got, want))
    return got == want


@pytest.mark.parametrize("call,expected", GOLDEN["attention"],
                         ids=[c for c, _ in GOLDEN["attention"]])
def test_matches_pytorch(call, expected):
    got = script.outcome(call, script.make_env(torch))
    if call in DIFFERENT:
        assert got == DIFFERENT[call]
        return
    # float32 kernels round differently in the last place: values agree to 2e-5
    tol = 1e-9 if call.startswith(("flex_case", "block_mask")) else 2e-5
    assert _close(got, ours(expected), tol), f"{call}:\n ours  {got}\n torch {expected}"


def _np_attention(q, k, v, mask=None, scale=None):
    s = q @ np.swapaxes(k, -1, -2) * (1 / math.sqrt(q.shape[-1]) if scale is None else scale)
    if mask is not None:
        s = np.where(mask, s, -np.inf)
    m = np.max(s, -1, keepdims=True)
    m = np.where(np.isinf(m), 0, m)
    p = np.exp(s - m)
    d = p.sum(-1, keepdims=True)
    return (p @ v) / np.where(d == 0, 1, d)


@pytest.mark.parametrize("backend", [SDPBackend.MATH, SDPBackend.FLASH_ATTENTION])
def test_sdpa_backends_agree_with_numpy(backend):
    rng = np.random.default_rng(0)
    q, k, v = (rng.standard_normal(s) for s in [(2, 3, 4, 8), (2, 3, 6, 8), (2, 3, 6, 8)])
    mask = np.tril(np.ones((4, 6), bool), 1)
    with sdpa_kernel(backend):
        out = F.scaled_dot_product_attention(torch.tensor(q), torch.tensor(k), torch.tensor(v),
                                             attn_mask=torch.tensor(mask))
    np.testing.assert_allclose(out.numpy(), _np_attention(q, k, v, mask), rtol=1e-10,
                               atol=1e-12)


def test_sdpa_math_gradcheck_and_context_restores():
    rng = np.random.default_rng(1)
    q, k, v = (torch.tensor(rng.standard_normal(s), requires_grad=True)
               for s in [(1, 2, 3, 4), (1, 2, 5, 4), (1, 2, 5, 4)])
    with sdpa_kernel([SDPBackend.MATH]):
        assert gradcheck(lambda a, b, c: F.scaled_dot_product_attention(a, b, c, is_causal=True),
                         (q, k, v))
    # outside the block every backend is allowed again (EFFICIENT alone would raise)
    F.scaled_dot_product_attention(q, k, v)
    with pytest.raises(RuntimeError, match="No viable backend"):
        with sdpa_kernel(SDPBackend.EFFICIENT_ATTENTION):
            F.scaled_dot_product_attention(q, k, v)
    F.scaled_dot_product_attention(q, k, v)


def test_sdpa_kernel_priority_and_decorator():
    calls = []
    import torchlike.nn.attention._math as math_mod
    original = math_mod.sdpa_math

    def spy(*args, **kwargs):
        calls.append(1)
        return original(*args, **kwargs)

    math_mod.sdpa_math = spy
    try:
        q = torch.randn(1, 1, 2, 4)
        with sdpa_kernel([SDPBackend.FLASH_ATTENTION, SDPBackend.MATH]):
            F.scaled_dot_product_attention(q, q, q)                   # flash first
        assert calls == []
        with sdpa_kernel([SDPBackend.MATH, SDPBackend.FLASH_ATTENTION], set_priority=True):
            F.scaled_dot_product_attention(q, q, q)                   # math first
        assert calls == [1]
        with sdpa_kernel([SDPBackend.FLASH_ATTENTION, SDPBackend.MATH]):
            F.scaled_dot_product_attention(q, q, q, dropout_p=0.5)    # flash refuses dropout
        assert calls == [1, 1]

        @sdpa_kernel(SDPBackend.MATH)
        def run():
            return F.scaled_dot_product_attention(q, q, q)
        run()
        assert calls == [1, 1, 1]
    finally:
        math_mod.sdpa_math = original


def test_flex_attention_against_numpy_with_mods():
    rng = np.random.default_rng(2)
    q, k, v = (rng.standard_normal(s) for s in [(2, 3, 4, 8), (2, 3, 6, 8), (2, 3, 6, 5)])
    bias = rng.standard_normal((3, 6))

    def causal(b, h, qi, ki):
        return qi + 2 >= ki

    bm = create_block_mask(causal, None, None, 4, 6, device="cpu", BLOCK_SIZE=2)
    bias_t = torch.tensor(bias)
    out = flex_attention(torch.tensor(q), torch.tensor(k), torch.tensor(v),
                         score_mod=lambda s, b, h, qi, ki: s + bias_t[h, ki], block_mask=bm)
    scale = 1 / math.sqrt(8)
    s = q @ np.swapaxes(k, -1, -2) * scale + bias[None, :, None, :]
    mask = np.arange(4)[:, None] + 2 >= np.arange(6)[None, :]
    s = np.where(mask, s, -np.inf)
    p = np.exp(s - s.max(-1, keepdims=True))
    np.testing.assert_allclose(out.numpy(), (p / p.sum(-1, keepdims=True)) @ v, rtol=1e-10)
    assert create_mask(causal, 1, 1, 4, 6, device="cpu").numpy()[0, 0].tolist() == \
        mask.tolist()


def test_flex_attention_gradcheck():
    rng = np.random.default_rng(3)
    q, k, v = (torch.tensor(rng.standard_normal(s), requires_grad=True)
               for s in [(1, 2, 3, 4), (1, 2, 5, 4), (1, 2, 5, 3)])
    bias = torch.tensor(rng.standard_normal(5), requires_grad=True)
    bm = create_block_mask(and_masks(lambda b, h, qi, ki: qi >= ki - 1,
                                     lambda b, h, qi, ki: ki != 3), 1, 2, 3, 5, device="cpu")

    def fn(q, k, v, bias):
        out, aux = flex_attention(q, k, v, score_mod=lambda s, b, h, qi, ki: s * 0.7 + bias[ki],
                                  block_mask=bm, return_aux=AuxRequest(lse=True))
        return out, aux.lse

    assert gradcheck(fn, (q, k, v, bias))


def test_flex_attention_empty_rows_and_gqa():
    q = torch.randn(1, 4, 3, 4, dtype=torch.float64)
    k = torch.randn(1, 2, 5, 4, dtype=torch.float64)
    v = torch.randn(1, 2, 5, 4, dtype=torch.float64)
    bm = create_block_mask(or_masks(lambda b, h, qi, ki: qi == 0, lambda b, h, qi, ki: ki < 0),
                           None, None, 3, 5, device="cpu")
    out = flex_attention(q, k, v, block_mask=bm, enable_gqa=True)
    assert out.shape == (1, 4, 3, 4)
    assert (out[:, :, 1:] == 0).all() and not out.isnan().any()
    full = flex_attention(q, k.repeat_interleave(2, 1), v.repeat_interleave(2, 1))
    np.testing.assert_allclose(flex_attention(q, k, v, enable_gqa=True).numpy(), full.numpy(),
                               rtol=1e-12)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        flex_attention(q, k, v, enable_gqa=True, return_lse=True)
    assert any(issubclass(w.category, FutureWarning) for w in seen)


@pytest.mark.parametrize("backend", [SDPBackend.MATH, SDPBackend.FLASH_ATTENTION])
def test_fully_masked_rows_give_zeros_in_every_backend(backend):
    # PyTorch's answer for a row with nothing to attend: zeros, not NaN
    q, k = torch.ones(1, 1, 2, 4), torch.ones(1, 1, 3, 4)
    v = torch.arange(12.0).reshape(1, 1, 3, 4)
    mask = torch.tensor([[False, False, False], [True, True, False]])
    with sdpa_kernel(backend):
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    assert out.flatten().tolist() == [0.0] * 4 + [2.0, 3.0, 4.0, 5.0]
