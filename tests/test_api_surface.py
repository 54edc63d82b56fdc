"""Small pieces of PyTorch's API surface: finfo/iinfo, the constants,
torch-level in-place functions and *_copy ops, tensor predicates and
utilities, determinism and precision flags, post-accumulate-grad hooks.

PyTorch's answers are recorded in tests/golden/api_surface.json by
scripts/golden_api_surface.py; here the same calls run with torchlike and
must agree: values, reprs, exception types and messages (PyTorch's words
with torchlike's module name).  NumPy references cover the values."""
import json
import math

import numpy as np
import pytest

import torchlike as torch
from oracle import golden_calls, _nan_equal

CALLS, _golden = golden_calls("api_surface")


def _ours(value):
    """PyTorch's recorded answer with torchlike's module name."""
    return json.loads(json.dumps(value).replace("torch.", "torchlike."))


@pytest.mark.parametrize("call,expected", CALLS, ids=[c for c, _ in CALLS])
def test_matches_pytorch(call, expected):
    expected = _ours(expected)
    env = {"T": torch, **_golden.inputs(torch)}
    if expected[0] == "raises":
        with pytest.raises(Exception) as e:
            eval(call, env)
        assert type(e.value).__name__ == expected[1], (call, str(e.value))
        assert str(e.value).splitlines()[0] == expected[2], call
        return
    assert _nan_equal(_golden.describe(eval(call, env))) == _nan_equal(expected), call


# ---- finfo / iinfo ---------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [torch.float16, torch.float32, torch.float64])
def test_finfo_is_numpys_limits(dtype):
    ref = np.finfo(np.dtype(dtype.name))
    info = torch.finfo(dtype)
    assert (info.bits, info.eps, info.max, info.min, info.tiny) == \
        (ref.bits, float(ref.eps), float(ref.max), float(ref.min), float(ref.tiny))
    assert info.resolution == 10.0 ** -ref.precision


def test_finfo_bfloat16_is_float32_with_7_mantissa_bits():
    info = torch.finfo(torch.bfloat16)
    # the largest bfloat16 is float32's max with the low 16 bits cleared
    top = np.array([0x7F7F0000], dtype=np.uint32).view(np.float32)[0]
    assert info.max == float(top)
    assert info.eps == float(torch.tensor(1.0, dtype=torch.bfloat16).nextafter(
        torch.tensor(2.0, dtype=torch.bfloat16)).float() - 1)
    assert info.tiny == float(np.finfo(np.float32).tiny)


@pytest.mark.parametrize("dtype", [torch.uint8, torch.int8, torch.int16, torch.int32,
                                   torch.int64])
def test_iinfo_is_numpys_limits(dtype):
    ref = np.iinfo(np.dtype(dtype.name))
    info = torch.iinfo(dtype)
    assert (info.bits, info.min, info.max, info.dtype) == (ref.bits, ref.min, ref.max,
                                                            dtype.name)
    assert type(info.max) is int


def test_finfo_default_follows_default_dtype():
    torch.set_default_dtype(torch.float64)
    try:
        assert torch.finfo().dtype == "float64"
    finally:
        torch.set_default_dtype(torch.float32)
    assert torch.finfo().dtype == "float32"


def test_info_types_are_final():
    with pytest.raises(TypeError, match="not an acceptable base type"):
        type("Sub", (torch.finfo,), {})


def test_numpy_namespace_keeps_array_api_finfo():
    import torchlike.numpy as tnp
    assert tnp.finfo(torch.float32).dtype == torch.float32
    assert np.finfo(torch.float32).eps == torch.finfo(torch.float32).eps


def test_constants_are_pythons():
    assert torch.e is math.e and torch.pi is math.pi
    assert torch.inf == math.inf and math.isnan(torch.nan) and torch.newaxis is None
