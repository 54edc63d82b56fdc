"""The float8 dtypes against PyTorch's recorded answers (scripts/golden_float8.py):

- tests/golden/float8_casts.json: the bits of every cast to and from the five
  formats (all 256 bytes of each to every dtype; float32, float64, float16,
  bfloat16 and integer inputs to each), compared byte for byte;
- tests/golden/float8.json: creation, views, the ops PyTorch runs on float8,
  those it refuses (the exception class, and PyTorch's words where ours are
  the same), promotion, finfo, repr, item/tolist, save/load.

Elementwise ops PyTorch has no float8 kernel for compute in float32 here
(docs/dtypes.md): those calls are checked against NumPy's float32 result
rounded to float8 instead of PyTorch's NotImplementedError."""
import io
import json
import math
import os
import pickletools
import zipfile

import numpy as np
import pytest

import torchlike as T
from oracle import FLOAT8, cuda_test_devices, golden_calls, run_emulated

CALLS, _golden = golden_calls("float8")
DEVICES, EMULATED = cuda_test_devices()
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden",
                       "float8_casts.json")) as _f:
    _THEIR_CASTS = json.load(_f)["casts"]
_OUR_CASTS = {}


def _our_casts():
    """Ours, over the script's inputs, computed once."""
    if not _OUR_CASTS:
        _OUR_CASTS.update(_golden.casts(T))
    return _OUR_CASTS


def _decode_table(name):
    """The float32 value of each of the 256 bytes, as PyTorch gives them."""
    return np.frombuffer(_golden.unpack(_THEIR_CASTS[f"{name}->float32"]), dtype=np.float32)


# ---- casts, bit for bit ---------------------------------------------------------------------

def _undefined_bytes(key, want, got):
    """want and got with the bytes C leaves undefined made equal: a float8
    NaN or inf converted to an integer (PyTorch's answers there are its
    compiler's), and the payload of a NaN converted to float16 or bfloat16
    (PyTorch keeps it in one, not the other; NaN stays NaN)."""
    source, target = key.split("->")
    if source not in FLOAT8 or target in FLOAT8 or target.startswith(("float3", "float6",
                                                                      "complex")):
        return want, got
    width = len(want) // 256
    values = _decode_table(source)
    want, got = bytearray(want), bytearray(got)
    for k in np.flatnonzero(~np.isfinite(values)):
        w, g = want[k * width:(k + 1) * width], got[k * width:(k + 1) * width]
        if target in ("float16", "bfloat16"):
            as_float = (lambda b: np.frombuffer(b, np.float16)[0]) if target == "float16" else \
                (lambda b: np.frombuffer(b"\0\0" + bytes(b), np.float32)[0])
            if np.isnan(values[k]) and np.isnan(as_float(w)) and np.isnan(as_float(g)):
                got[k * width:(k + 1) * width] = w
        elif target != "bool":
            got[k * width:(k + 1) * width] = w
    return bytes(want), bytes(got)


@pytest.mark.parametrize("key", sorted(_THEIR_CASTS))
def test_cast_bits_match_pytorch(key):
    want, got = _golden.unpack(_THEIR_CASTS[key]), _golden.unpack(_our_casts()[key])
    assert len(got) == len(want), key
    want, got = _undefined_bytes(key, want, got)
    if got != want:
        bad = next(i for i in range(len(want)) if got[i] != want[i])
        pytest.fail(f"{key}: byte {bad} is {got[bad]}, PyTorch's is {want[bad]} "
                    f"({sum(g != w for g, w in zip(got, want))} bytes differ)")


@pytest.mark.parametrize("name", FLOAT8)
def test_every_byte_round_trips_through_float32(name):
    d = getattr(T, name)
    every = T.arange(256, dtype=T.uint8).view(d)
    wide = every.float()
    back = wide.to(d).view(T.uint8).numpy()
    nan = np.isnan(wide.numpy())
    assert (back[~nan] == np.arange(256)[~nan]).all()
    # a NaN stays a NaN (the formats with one NaN give that one)
    assert np.isnan(T.tensor(back[nan], dtype=T.uint8).view(d).float().numpy()).all()
    assert np.array_equal(wide.numpy(), _decode_table(name), equal_nan=True)


@pytest.mark.parametrize("name", FLOAT8)
def test_casts_follow_strides_and_shapes(name):
    """Non-contiguous, broadcast, 0-d and empty float8 tensors cast as their
    elements do (NumPy indexing the decode table is the oracle)."""
    d = getattr(T, name)
    table = _decode_table(name)
    raw = np.arange(256, dtype=np.uint8).reshape(16, 16)
    x = T.tensor(raw).view(d)
    for view, idx in [(x.t(), raw.T), (x[::3, 1::2], raw[::3, 1::2]), (x[::-1], raw[::-1]),
                      (x[2, 5], raw[2, 5]), (x[:0], raw[:0]),
                      (x[:1].expand(3, 16), np.broadcast_to(raw[:1], (3, 16)))]:
        got = view.to(T.float64).numpy()
        assert got.shape == idx.shape
        with np.errstate(invalid="ignore"):  # a signalling NaN widened
            want = table[idx].astype(np.float64)
        assert np.array_equal(got, want, equal_nan=True)
        # and back, into a strided destination
        dst = T.zeros(view.shape, dtype=d)
        dst.copy_(view.float())
        assert np.array_equal(dst.float().numpy(), table[idx], equal_nan=True)


def test_float64_reaches_float8_through_float32():
    # 1.0625 + 2^-52 rounds to the float32 tie 1.0625, then to even: 1.0
    # (straight from the double it would be 1.125); PyTorch does the same
    x = T.tensor([1.0625 + 2.0 ** -52], dtype=T.float64).to(T.float8_e4m3fn)
    assert x.float().item() == 1.0


# ---- the recorded calls ---------------------------------------------------------------------

def _f32(fn):
    """fn computed in NumPy float32 on a's values, rounded to a's dtype."""
    def run(env):
        a = env["a"]
        got = fn(a.float().numpy())
        return T.tensor(got, dtype=T.float32).to(a.dtype) if got.dtype != np.bool_ \
            else T.tensor(got)
    return run


# Elementwise ops PyTorch lacks a float8 kernel for: computed in float32 here.
LENIENT = {
    "a + a": _f32(lambda x: x + x), "a + 1": _f32(lambda x: x + np.float32(1)),
    "a - a": _f32(lambda x: x - x), "-a": _f32(lambda x: -x), "a / a": _f32(lambda x: x / x),
    "a < a": _f32(lambda x: x < x), "a <= a": _f32(lambda x: x <= x),
    "a.exp()": _f32(np.exp), "a.sqrt()": _f32(np.sqrt), "a.sign()": _f32(np.sign),
    "a ** 2": _f32(lambda x: x * x), "T.maximum(a, a)": _f32(lambda x: np.maximum(x, x)),
    "a.clamp(0, 1)": _f32(lambda x: np.clip(x, 0, 1)),
    "T.allclose(a, a)": lambda env: True, "a @ a": _f32(lambda x: np.dot(x, x)),
    "T.matmul(m[None], m[None])": lambda env: T.tensor(
        np.matmul(env["m"].float().numpy()[None], env["m"].float().numpy()[None])).to(
            env["m"].dtype),
    "T.frexp(a)": lambda env: (T.tensor(np.frexp(env["a"].float().numpy())[0]).to(env["a"].dtype),
                               T.tensor(np.frexp(env["a"].float().numpy())[1].astype(np.int32))),
    # moves PyTorch refuses, which cost nothing here
    "a.flip(0)": lambda env: env["a"].view(T.uint8).numpy()[::-1].copy(),
    "m.tril()": lambda env: np.tril(env["m"].view(T.uint8).numpy()),
    "T.equal(a, a)": lambda env: True,
}
# On purpose: (exception, our words) or our result
DIFFERENT = {
    # 0-d tensors are not weak here (design.md): float32 meets float8
    "a == T.tensor(2.0)": ("RuntimeError", "Promotion for Float8 Types is not supported"),
    # the embedding kernels take no float8 here (docs/dtypes.md)
    "T.nn.functional.embedding(i, m)": ("NotImplementedError",
                                        "\"embedding\" not implemented for 'Float8_e4m3fn'"),
    # PyTorch's CPU _scaled_mm raises oneDNN's words there
    "T._scaled_mm(x, y, one, one, out_dtype=T.int32)": ("RuntimeError", "out_dtype must be"),
    "T._scaled_mm(x.to(T.float8_e4m3fnuz), y.to(T.float8_e4m3fnuz), one, one)": (
        "RuntimeError", "Expected mat1 to be Float8 matrix got Float8_e4m3fnuz"),
    # PyTorch skips its overflow check for one element
    "fill('float8_e4m3fn', 1000, n=1)": ("RuntimeError", "without overflow"),
}
def _described_equal(got, want):
    def norm(d):
        if isinstance(d, float) and math.isnan(d):
            return "nan"
        if isinstance(d, list):
            return [norm(x) for x in d]
        if isinstance(d, dict):
            return {k: norm(v) for k, v in d.items()}
        return d
    return norm(got) == norm(want)


@pytest.mark.parametrize("call,expected", CALLS, ids=[c for c, _ in CALLS])
def test_matches_pytorch(call, expected):
    env = {"T": T, **_golden.inputs(T)}
    if call in LENIENT:
        assert expected[0] == "raises" and expected[1] == "NotImplementedError", call
        with np.errstate(all="ignore"):
            want = LENIENT[call](env)
        got = eval(call, env)
        if isinstance(want, np.ndarray):  # the bytes of a moved float8 tensor
            assert got.dtype == env["a"].dtype and (got.view(T.uint8).numpy() == want).all()
        else:
            assert _described_equal(_golden.describe(got), _golden.describe(want)), call
        return
    if call in DIFFERENT:  # (a result or an exception recorded)
        kind, words = DIFFERENT[call]
        with pytest.raises(Exception) as e:
            eval(call, env)
        assert type(e.value).__name__ == kind and words in str(e.value), (call, str(e.value))
        return
    if expected[0] == "raises":
        kind, message = expected[1:]
        with pytest.raises(Exception) as e:
            eval(call, env)
        assert type(e.value).__name__ == kind, (call, str(e.value))
        if kind == "NotImplementedError":
            tail = message[message.index(" not implemented for"):]
            assert tail in str(e.value), (call, str(e.value))
        elif not message.startswith("torch."):  # ours names torchlike
            assert message in str(e.value), (call, str(e.value))
        return
    got = _golden.describe(eval(call, env))
    assert _described_equal(got, expected), (call, got, expected)


# ---- interop --------------------------------------------------------------------------------

@pytest.mark.parametrize("name", FLOAT8)
def test_dlpack_keeps_dtype_and_memory(name):
    x = T.tensor([1.0, 2.0, 0.5], dtype=getattr(T, name))
    y = T.from_dlpack(x)
    assert y.dtype == x.dtype
    assert y.view(T.uint8).tolist() == x.view(T.uint8).tolist()
    assert y.data_ptr() == x.data_ptr()


def test_save_writes_pytorchs_records():
    """An untyped storage plus the dtype, through _rebuild_tensor_v3, as
    PyTorch writes float8 tensors (it has no typed storage class for them)."""
    buf = io.BytesIO()
    T.save(T.ones(2, dtype=T.float8_e5m2), buf)
    with zipfile.ZipFile(io.BytesIO(buf.getvalue())) as z:
        pkl = z.read(next(n for n in z.namelist() if n.endswith("data.pkl")))
    text = io.StringIO()
    pickletools.dis(pkl, out=text)
    dis = text.getvalue()
    for name in ("torch._utils _rebuild_tensor_v3", "torch.storage UntypedStorage",
                 "torch float8_e5m2"):
        assert name in dis, dis


def test_pytorch_checkpoint_loads():
    """float8_checkpoint.pt, written by torch.save: the same dtypes, bytes,
    shapes and strides, and the view still shares its base's storage."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden",
                        "float8_checkpoint.pt")
    got, want = T.load(path), _golden.checkpoint_object(T)
    assert sorted(got) == sorted(want)
    for key, w in want.items():
        g = got[key]
        assert (g.dtype, g.shape, g.stride()) == (w.dtype, w.shape, w.stride()), key
        assert g.contiguous().view(T.uint8).tolist() == w.contiguous().view(T.uint8).tolist()
    assert got["view"].untyped_storage().data_ptr() == \
        got[FLOAT8[0]].untyped_storage().data_ptr()


def test_numpy_refuses_float8():
    with pytest.raises(TypeError, match="Got unsupported ScalarType Float8_e4m3fn"):
        np.asarray(T.ones(2, dtype=T.float8_e4m3fn))


def test_requires_grad_flows_through_the_cast():
    x = T.tensor([1.5, -3.0], requires_grad=True)
    y = x.to(T.float8_e4m3fn).float() * T.tensor([2.0, 5.0])
    y.sum().backward()
    assert x.grad.tolist() == [2.0, 5.0]


# ---- devices ------------------------------------------------------------------------------

DEVICE_OPS = {
    "to": lambda x, w: x.to(T.float8_e5m2).float(),
    "from_float": lambda x, w: w.to(x.dtype).float(),
    "mul": lambda x, w: (x * x).float(), "add": lambda x, w: (x + 1.5).float(),
    "eq": lambda x, w: x == x,
    "where": lambda x, w: T.where(w > 0, x, x * x).float(),
    "index_select": lambda x, w: x.index_select(0, T.tensor([2, 0], device=x.device)).float(),
    "mm": lambda x, w: T.mm(x.view(2, 3), x.view(3, 2)).float(),
    "any": lambda x, w: x.any(), "sum_f32": lambda x, w: x.sum(dtype=T.float32),
    "accumulate": lambda x, w: x.clone().index_put_(
        (T.tensor([1, 1, 0], device=x.device),), x[:3], accumulate=True).float(),
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", FLOAT8)
@pytest.mark.parametrize("op", sorted(DEVICE_OPS))
def test_device_gives_the_cpus_answer(op, name, device):
    """On a device (CUDA, or the fake device running the op layer's device
    paths), float8 tensors give the CPU's bytes."""
    w = T.tensor([0.3, -1.75, 2.5, 100.0, -0.01, 7.0])
    x = w.to(getattr(T, name))
    want = DEVICE_OPS[op](x, w)
    got = DEVICE_OPS[op](x.to(device), w.to(device)).cpu()
    assert got.dtype == want.dtype
    assert np.array_equal(got.numpy(), want.numpy(), equal_nan=True), (got, want)


@pytest.mark.skipif(EMULATED, reason="this is the emulated run")
def test_device_paths_on_the_emulated_fake_device():
    run_emulated(__file__)
