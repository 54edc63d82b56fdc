"""torchlike.testing: assert_close, assert_allclose and make_tensor.

Messages and outcomes are PyTorch's (tests/golden/api_modules.json, recorded
by scripts/golden_api_modules.py); values of make_tensor are checked against
the documented ranges."""
import math

import numpy as np
import pytest

import torchlike as torch
from torchlike.testing import assert_close, make_tensor
from api_modules_golden import GOLDEN, check

# Type names differ (torchlike.Tensor is its own class): call -> our message.
DIFFERENT = {
    "ac(np.array([1., 2.]), T.tensor([1., 2.]))": [
        "raises", "TypeError", "No comparison pair was able to handle inputs of type <class "
        "'numpy.ndarray'> and <class 'torchlike.Tensor'>."],
    "ac(T.tensor([1.]), 1.)": [
        "raises", "TypeError", "No comparison pair was able to handle inputs of type <class "
        "'torchlike.Tensor'> and <class 'float'>."],
}


@pytest.mark.parametrize("call,expected", GOLDEN["testing"], ids=[c for c, _ in GOLDEN["testing"]])
def test_matches_pytorch(call, expected):
    check("testing", call, expected, different=DIFFERENT)


def test_nested_structures_pass():
    a = {"x": [torch.ones(2), (1, 2.5)], "y": None, "z": np.arange(3.0)}
    b = {"x": [torch.ones(2) + 1e-7, (1, 2.5)], "y": None, "z": np.arange(3.0)}
    assert_close(a, b)


@pytest.mark.parametrize("dtype,rtol,atol", [
    (torch.float16, 1e-3, 1e-5), (torch.bfloat16, 1.6e-2, 1e-5), (torch.float32, 1.3e-6, 1e-5),
    (torch.float64, 1e-7, 1e-7), (torch.complex64, 1.3e-6, 1e-5)])
def test_default_tolerances_bound(dtype, rtol, atol):
    # just inside and just outside atol + rtol * |expected| (expected 4.0)
    base = torch.full((3,), 4.0, dtype=dtype)
    allowed = atol + rtol * 4.0
    step = torch.finfo(dtype).eps * 4.0
    inside = base + max(allowed - 2 * step, 0.0)
    outside = base + allowed + 4 * step
    assert_close(inside, base)
    with pytest.raises(AssertionError, match="not close"):
        assert_close(outside, base)


def test_check_device_off_and_grad_ignored():
    a = torch.ones(3, requires_grad=True)
    assert_close(a * 1, torch.ones(3), check_device=False)


def test_mismatch_statistics_against_numpy():
    rng = np.random.default_rng(0)
    e = rng.standard_normal((4, 5)).astype(np.float32)
    a = e.copy()
    a[1, 2] += 0.5
    a[3, 4] -= 0.25
    with pytest.raises(AssertionError) as info:
        assert_close(torch.tensor(a), torch.tensor(e))
    text = str(info.value)
    assert "Mismatched elements: 2 / 20 (10.0%)" in text
    abs_diff = np.abs(a - e)
    assert f"Greatest absolute difference: {abs_diff.max().item()} at index (1, 2)" in text
    rel = abs_diff / np.abs(e)
    idx = np.unravel_index(np.argmax(rel), rel.shape)
    assert f"Greatest relative difference: {rel.max().item()} at index {tuple(map(int, idx))}" \
        in text


@pytest.mark.parametrize("dtype,lo,hi", [
    (torch.uint8, 0, 10), (torch.int8, -9, 10), (torch.int64, -9, 10), (torch.float32, -9, 9),
    (torch.float64, -9, 9), (torch.bfloat16, -9, 9), (torch.complex64, -9, 9)])
def test_make_tensor_default_ranges(dtype, lo, hi):
    t = make_tensor(2000, dtype=dtype, device="cpu")
    assert t.dtype == dtype and t.shape == (2000,)
    parts = [t.real.float(), t.imag.float()] if dtype.is_complex else [t.float()]
    for p in parts:
        v = p.numpy()
        assert v.min() >= lo and v.max() < hi
        if not dtype.is_floating_point and not dtype.is_complex:
            assert set(np.unique(v)) == set(range(lo, hi))  # every value drawn
        else:
            assert v.min() < lo + 1 and v.max() > hi - 1   # the whole range is used


def test_make_tensor_bounds_and_clamping():
    t = make_tensor(500, dtype=torch.int64, device="cpu", low=2.5, high=5.5).numpy()
    assert set(np.unique(t)) == {3, 4, 5}
    t = make_tensor(3000, dtype=torch.int8, device="cpu", low=-1000, high=1000).numpy()
    assert t.min() >= -128 and t.max() <= 127 and t.min() < -100
    t = make_tensor(500, dtype=torch.uint8, device="cpu", low=-5, high=3).numpy()
    assert set(np.unique(t)) == {0, 1, 2}
    t = make_tensor(500, dtype=torch.float32, device="cpu", low=-1e40).numpy()
    assert np.isfinite(t).all() and t.min() >= np.finfo(np.float32).min and t.max() < 9
    assert (make_tensor(2, 3, dtype=torch.float32, device="cpu", low=1, high=1) == 1).all()
    b = make_tensor(100, dtype=torch.bool, device="cpu")
    assert b.dtype == torch.bool and 0 < int(b.sum()) < 100


def test_make_tensor_layouts_and_flags():
    t = make_tensor((2, 3), dtype=torch.float32, device="cpu", noncontiguous=True)
    assert t.shape == (2, 3) and not t.is_contiguous()
    one = make_tensor(1, dtype=torch.float32, device="cpu", noncontiguous=True)
    assert one.is_contiguous()
    cl = make_tensor(2, 3, 4, 5, dtype=torch.float32, device="cpu",
                     memory_format=torch.channels_last)
    assert cl.stride() == (60, 1, 15, 3)
    g = make_tensor(3, dtype=torch.float64, device="cpu", requires_grad=True)
    assert g.requires_grad and g.is_leaf
    z = make_tensor(4000, dtype=torch.int8, device="cpu", low=-1, high=2, exclude_zero=True)
    assert (z != 0).all()
    f = make_tensor(10, dtype=torch.float32, device="cpu", low=0, high=0, exclude_zero=True)
    assert (f.numpy() == np.finfo(np.float32).tiny).all()
    c = make_tensor(3, dtype=torch.complex128, device="cpu", low=0, high=0, exclude_zero=True)
    assert (c.real.numpy() == np.finfo(np.float64).tiny).all()
    assert make_tensor(dtype=torch.float32, device="cpu").shape == ()


def test_make_tensor_reproducible_with_seed():
    torch.manual_seed(3)
    a = make_tensor(5, dtype=torch.float32, device="cpu")
    torch.manual_seed(3)
    b = make_tensor(5, dtype=torch.float32, device="cpu")
    assert (a == b).all()
