"""Record PyTorch's float8 dtypes for tests/test_float8.py.

Two files under tests/golden/:

  float8.json        [call, outcome] pairs (golden_calls.record): creation,
                     casts of chosen values, views, the ops PyTorch runs on
                     float8 and those it refuses (the exception and its first
                     line), promotion, finfo, repr, item/tolist, save/load.
  float8_checkpoint.pt  torch.save of checkpoint_object(): float8 tensors
                     as PyTorch writes them, for torchlike.load.
  float8_casts.json  the bits of the casts, over inputs this module makes
                     (so the file holds outputs only, zlib+base64): all 256
                     bytes of each format to every dtype, and to float8 from
                     float32 (every exponent, every 5-bit mantissa head, with
                     and without a tail), float64 (ties that rounding to
                     float first decides), float16 and bfloat16 bit patterns,
                     and integers.

Run with an interpreter that has PyTorch:
    python scripts/golden_float8.py"""
import base64
import json
import os
import zlib

from golden_calls import record

FLOAT8 = ["float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e8m0fnu"]
# the dtypes a float8 byte is cast to (complex: real part)
TARGETS = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
           "float64", "complex64", "complex128", "uint16", "uint32", "uint64"]


# ---- the cast inputs (the test makes the same ones) ---------------------------------------

def float32_bits():
    """uint32 patterns: every exponent x every 5-bit mantissa head x a tail of
    0, 1 or 0x3ffff (ties, just past ties, just below), both signs; and NaNs."""
    out = []
    for sign in (0, 1 << 31):
        for exp in range(256):
            for head in range(32):
                for tail in (0, 1, 0x3FFFF):
                    out.append(sign | exp << 23 | head << 18 | tail)
    return out + [0x7FC00000, 0xFFC00000, 0x7F800001, 0xFFFFFFFF]


def float64_values():
    """Doubles near float8 ties: float32 rounding decides them first, as in
    PyTorch (1.0625 + 2^-52 is a float32 tie, then even: 1.0)."""
    out = []
    for base in (1.0625, 1.125, 1.1875, 0.001953125 * 1.5, 240.0, 248.0, 464.0, 57344.0, 61440.0,
                 1.5, 3.0, 2.0 ** -127 * 1.5, 2.0 ** -9 * 0.5, 2.0 ** -16 * 0.5):
        for delta in (0.0, 2.0 ** -52, -(2.0 ** -52), 2.0 ** -30, -(2.0 ** -30), 2.0 ** -20):
            for sign in (1.0, -1.0):
                out.append(sign * base * (1.0 + delta))
    return out + [1e300, -1e300, 1e-300, -1e-300, 3.5e38, 5e-324, float("inf"), float("-inf"),
                  float("nan"), 0.0, -0.0]


def half_bits():
    """Every float16 / bfloat16 pattern whose low 4 bits are 0, 1, 7, 8, 9 or 15."""
    return [hi << 4 | lo for hi in range(4096) for lo in (0, 1, 7, 8, 9, 15)]


def int_values():
    return [0, 1, -1, 2, 3, 7, 9, 15, 17, 100, 127, -128, 239, 240, 241, 247, 248, 255, 256, 300,
            448, 449, 464, 465, 480, 1000, -1000, 57344, 61439, 61440, 65535, 10 ** 6, -(10 ** 6),
            2 ** 31 - 1, -(2 ** 31), 2 ** 53 + 1, 2 ** 63 - 1, -(2 ** 63)]


def pack(data):
    return base64.b64encode(zlib.compress(bytes(data), 9)).decode()


def unpack(text):
    return zlib.decompress(base64.b64decode(text))


def casts(T):
    """{name: packed bytes} of the casts over library T (the test runs it on ours)."""
    def raw(t):
        """The bytes of t (a CPU tensor), through a uint8 view."""
        flat = t.contiguous().reshape(-1)
        if flat.dtype.is_complex:
            flat = T.view_as_real(flat).reshape(-1)
        return flat.view(T.uint8).tolist()

    out = {}
    bits32 = T.tensor(float32_bits(), dtype=T.int64).to(T.uint32).view(T.float32)
    f64 = T.tensor(float64_values(), dtype=T.float64)
    halves = T.tensor(half_bits(), dtype=T.int32).to(T.int16)
    ints = T.tensor(int_values(), dtype=T.int64)
    small = T.arange(256, dtype=T.int64)
    for name in FLOAT8:
        d = getattr(T, name)
        every = T.arange(256, dtype=T.uint8).view(d)
        for target in TARGETS + FLOAT8:
            out[f"{name}->{target}"] = pack(raw(every.to(getattr(T, target))))
        out[f"float32->{name}"] = pack(raw(bits32.to(d)))
        out[f"float64->{name}"] = pack(raw(f64.to(d)))
        out[f"float16->{name}"] = pack(raw(halves.view(T.float16).to(d)))
        out[f"bfloat16->{name}"] = pack(raw(halves.view(T.bfloat16).to(d)))
        out[f"int64->{name}"] = pack(raw(ints.to(d)))
        for small_dtype in ("uint8", "int8", "bool"):
            out[f"{small_dtype}->{name}"] = pack(raw(small.to(getattr(T, small_dtype)).to(d)))
    return out


# ---- a checkpoint PyTorch writes ---------------------------------------------------------

def checkpoint_object(T):
    """What float8_checkpoint.pt holds: every byte of each format, a strided
    view sharing the first one's storage, a 0-d tensor."""
    every = {name: T.arange(256, dtype=T.uint8).view(getattr(T, name)) for name in FLOAT8}
    first = every[FLOAT8[0]]
    return {**every, "view": first.view(16, 16)[::2, 1::3], "scalar": first[60]}


# ---- the calls ------------------------------------------------------------------------------

def inputs(T):
    def f8(values, name="float8_e4m3fn"):
        return T.tensor(values, dtype=getattr(T, name))

    def bits(t):
        return t.view(T.uint8).tolist()

    def saved(t):
        import io
        buf = io.BytesIO()
        T.save(t, buf)
        buf.seek(0)
        return T.load(buf)

    def fill(name, value, n=4):
        return T.empty(n, dtype=getattr(T, name)).fill_(value)

    def finfo(name):
        fi = T.finfo(getattr(T, name))
        return [fi.bits, fi.eps, fi.max, fi.min, fi.tiny, fi.smallest_normal, fi.resolution,
                fi.dtype, repr(fi).replace("torchlike", "torch")]

    a = T.tensor([1.5, -2.0, 0.25, 448.0], dtype=T.float8_e4m3fn)
    return {"T": T, "f8": f8, "bits": bits, "saved": saved, "fill": fill, "finfo": finfo,
            "a": a, "m": a.view(2, 2), "i": T.tensor([1, 0]),
            "mask": T.tensor([True, False, True, False]),
            # _scaled_mm's operands: every product and sum is exact in float32
            "x": a.view(2, 2), "y": f8([[1.0, 0.5], [2.0, -1.0]]), "one": T.tensor(1.0)}


def _per_dtype(template):
    return [template.format(d=d) for d in FLOAT8]


CALLS = [
    # creation
    *_per_dtype("T.zeros(3, dtype=T.{d})"), *_per_dtype("T.ones(2, 2, dtype=T.{d})"),
    *_per_dtype("T.full((3,), 3.3, dtype=T.{d})"), *_per_dtype("T.empty(2, dtype=T.{d}).shape"),
    *_per_dtype("T.eye(2, dtype=T.{d})"), *_per_dtype("T.zeros_like(a, dtype=T.{d})"),
    *_per_dtype("f8([0.1, -0.0, 1e-3, 300.0, 1e6, float('inf'), float('nan')], '{d}')"),
    *_per_dtype("f8([[1, 2], [3, 4]], '{d}')"),
    *_per_dtype("T.tensor(1.5, dtype=T.{d})"),
    # fill's overflow check (on more than one element, as PyTorch checks)
    *[f"fill('{d}', {v})" for d in FLOAT8
      for v in ("449.0", "1000", "-1.0", "0.0", "1e6", "1e39", "float('inf')", "float('nan')",
                "57344.0", "60000.0", "240.5", "True")],
    "fill('float8_e4m3fn', 1000, n=1)",
    "T.full((4,), 1000.0, dtype=T.float8_e4m3fn)",
    # dtype objects and finfo
    *_per_dtype("T.{d}.itemsize"), *_per_dtype("T.{d}.is_floating_point"),
    *_per_dtype("T.{d}.is_signed"), *_per_dtype("T.{d}.is_complex"), *_per_dtype("finfo('{d}')"),
    *_per_dtype("str(T.{d}).replace('torchlike', 'torch')"),
    *_per_dtype("T.iinfo(T.{d})"), *_per_dtype("T.set_default_dtype(T.{d})"),
    # views, moves, indexing
    "bits(a)", "a.view(T.int8)", "T.tensor([56, 1, 255], dtype=T.uint8).view(T.float8_e4m3fn)",
    "a.view(T.float8_e5m2)", "a.view(T.float16)", "a.clone()", "a.view(2, 2).t().contiguous()",
    "T.cat([a, a])", "T.stack([a, a])", "a[1:3]", "a[mask]", "a[T.tensor([3, 1])]", "a[-1]",
    "a.index_select(0, i)", "a.masked_select(mask)", "a.roll(1)", "a.repeat(2)", "a[:1].expand(3)",
    "m.diag()", "a.narrow(0, 1, 2)", "a.chunk(2)", "a.unbind()", "a.flatten()",
    "a.clone().index_put_((i,), f8([2.0, 3.0]))", "a.clone().copy_(T.tensor([1.0, 2, 3, 4]))",
    # accumulate rounds each sum to float8: 16 + 0.75 is 16, twice
    "a.clone().index_put_((T.tensor([1, 1, 0]),), f8([1.0, 2.0, 3.0]), accumulate=True)",
    "T.full((2,), 16.0, dtype=T.float8_e4m3fn).index_put_((T.tensor([0, 0, 1]),), "
    "f8([0.75, 0.75, 1.0]), accumulate=True)",
    "T.empty(4).copy_(a)", "a.clone().zero_()",
    # the ops PyTorch runs
    "a * a", "a.abs()", "a == a", "a != a", "a == 1.5", "a != 1.5", "a.isnan()", "a.isinf()",
    "a.isfinite()", "T.where(mask, a, a * a)", "T.where(mask, a, 0.0)", "a.any()", "a.all()",
    "m.any(0)", "T.matmul(m, m)", "T.mm(m, m)", "T.addmm(m, m, m)", "T.matmul(m[None], m)",
    "T.outer(a, a)", "T.kron(m, m)", "T.tensordot(m, m, 1)", "T.nn.functional.linear(m, m)",
    "a.repeat_interleave(2)", "T.diag_embed(a)", "T.nn.functional.pad(a, (1, 1))",
    "T.bincount(T.tensor([1, 0, 1]), weights=a[:3])",
    "a.sum(dtype=T.float32)",
    "m.mean(dtype=T.float32)", "m.sum(0, dtype=T.float32)", "a.float()", "a.double()",
    "a.to(T.float8_e5m2)", "a.to(T.bool)", "a.to(T.complex64)", "a.real",
    "T.result_type(a, 1.0)", "T.result_type(a, 1)", "T.promote_types(a.dtype, a.dtype)",
    "a == T.tensor(2.0)",
    # what PyTorch refuses
    "a + a", "a + 1", "a - a", "-a", "a / a", "a < a", "a <= a", "a.exp()", "a.sqrt()",
    "a.sign()", "a ** 2", "T.maximum(a, a)", "a.clamp(0, 1)", "a.sum()", "a.mean()", "a.max()",
    "a.min()", "a.argmax()", "a.prod()", "a.cumsum(0)", "a.sort()", "a.topk(1)", "a.unique()",
    "a.flip(0)", "a.nonzero()", "T.count_nonzero(a)", "a.masked_fill(mask, 1.0)",
    "a.gather(0, i)", "a.clone().scatter_(0, i, a[:2])", "a.take(i)", "m.tril()", "m.trace()",
    "a @ a", "T.bmm(m[None], m[None])", "T.mv(m, a[:2])", "T.equal(a, a)", "T.allclose(a, a)",
    "T.arange(3, dtype=T.float8_e4m3fn)", "T.linspace(0, 1, 3, dtype=T.float8_e4m3fn)",
    "T.rand(3, dtype=T.float8_e4m3fn)", "T.randn(3, dtype=T.float8_e4m3fn)", "a.numpy()",
    "T.relu(a)", "T.softmax(a, 0)", "a.cummax(0)", "T.searchsorted(a, a)",
    "T.matmul(m[None], m[None])", "T.nn.functional.embedding(i, m)", "T.frexp(a)",
    # promotion
    "a + T.ones(4)", "a * T.ones(4)", "a == T.ones(4)", "T.promote_types(a.dtype, T.float32)",
    "T.promote_types(a.dtype, T.float8_e5m2)", "T.promote_types(T.int64, a.dtype)",
    "T.cat([a, T.ones(2)])", "T.cat([a, a.to(T.float8_e5m2)])", "T.where(mask, a, T.zeros(4))",
    "a * a.to(T.float8_e5m2)", "a * 1j", "a == 1j", "T.result_type(a, 1j)",
    "T.float8_e4m3fn.to_complex()", "T.float8_e4m3fn.to_real()",
    # scalars and printing
    "a[0].item()", "a.tolist()", "m.tolist()", "f8([float('nan')]).item()",
    "f8([2.0], 'float8_e8m0fnu').item()",
    *_per_dtype("repr(T.arange(256, dtype=T.uint8).view(T.{d}))"),
    *_per_dtype("repr(f8([1.0, 2.0, 3.0], '{d}'))"),
    "repr(f8([float('nan'), 0.001953125, -0.0, 1e-3, 300]))",
    "repr(f8([float('inf'), 57344, 1.5e-5, -0.0], 'float8_e5m2'))",
    "repr(T.zeros(0, dtype=T.float8_e4m3fn))", "repr(T.tensor(1.5, dtype=T.float8_e4m3fn))",
    "repr(T.ones(2, dtype=T.float8_e4m3fn, requires_grad=True))",
    "a.type()",
    # autograd, serialization
    "T.ones(2, requires_grad=True).to(T.float8_e4m3fn)",
    "T.ones(2, dtype=T.float8_e4m3fn, requires_grad=True).clone()",
    *_per_dtype("saved(f8([1.5, -2.0, 0.25], '{d}'))"),
    "saved({'w': a, 'v': a[1:]})",
    # _scaled_mm
    "T._scaled_mm(x, y.t(), one, one)", "T._scaled_mm(x, y, one, one)",
    "T._scaled_mm(x, y.t(), one, one, out_dtype=T.float32)",
    "T._scaled_mm(x, y, T.tensor(2.0), T.tensor(0.25), out_dtype=T.bfloat16)",
    "T._scaled_mm(x, y, T.tensor(2.0), T.tensor(0.25), out_dtype=T.float16)",
    "T._scaled_mm(x, y, T.tensor([[1.0], [2.0]]), T.tensor([[1.0, 3.0]]), out_dtype=T.float32)",
    "T._scaled_mm(x, y, one, one, bias=T.tensor([1.0, 2.0]), out_dtype=T.float32)",
    "T._scaled_mm(x, y, one, one, bias=T.tensor([1.0, 2.0], dtype=T.bfloat16), "
    "out_dtype=T.bfloat16)",
    "T._scaled_mm(x, y.t(), one, T.tensor(1.03))", "T._scaled_mm(x, y.t(), one, T.tensor(1.04))",
    "T._scaled_mm(x, y.t(), one, one, out_dtype=T.float8_e5m2)",
    "T._scaled_mm(x, y.t(), T.tensor(200.0), one, out_dtype=T.float8_e5m2)",
    "T._scaled_mm(x.to(T.float8_e5m2), y, one, one, out_dtype=T.float32)",
    "T._scaled_mm(x, y.to(T.float8_e5m2), one, one, out_dtype=T.float32)",
    "T._scaled_mm(x, y, one, one, scale_result=T.tensor(2.0))",
    "T._scaled_mm(x, y, one, one, use_fast_accum=True)",
    "T._scaled_mm(x.float(), y, one, one)", "T._scaled_mm(x[None], y, one, one)",
    "T._scaled_mm(x, T.ones(3, 2, dtype=T.float8_e4m3fn), one, one)",
    "T._scaled_mm(x, y, T.tensor([1.0, 2.0]), one)", "T._scaled_mm(x, y, T.tensor(1), one)",
    "T._scaled_mm(x, y, one, one, bias=T.ones(3), out_dtype=T.float32)",
    "T._scaled_mm(x, y, one, one, out_dtype=T.int32)",
    "T._scaled_mm(x.to(T.float8_e4m3fnuz), y.to(T.float8_e4m3fnuz), one, one)",
]


def describe(r):
    """Tensors by dtype, shape and bytes (float8 exactly), the rest as plain values."""
    if type(r).__name__ == "dtype":
        return ["dtype", str(r).split(".")[-1]]
    if hasattr(r, "dtype") and hasattr(r, "tolist") and hasattr(r, "shape"):
        v = r.detach()
        dtype = str(v.dtype).split(".")[-1]
        if dtype.startswith("float8"):
            values = v.contiguous().view(_library(v).uint8).tolist()
        else:
            values = (v.real if v.is_complex() else v).tolist()
        return ["tensor", dtype, list(v.shape), values, bool(r.requires_grad)]
    if isinstance(r, (tuple, list)):
        return ["list", [describe(x) for x in r]]
    if isinstance(r, dict):
        return ["dict", {k: describe(x) for k, x in r.items()}]
    if isinstance(r, str):
        return ["value", r.replace("torchlike", "torch")]
    if r is None or isinstance(r, (bool, int, float)):
        return ["value", r]
    if type(r).__name__ == "Size":
        return ["value", list(r)]
    return ["repr", repr(r).replace("torchlike", "torch")]


def _library(t):
    """torch or torchlike, whichever made t."""
    import sys
    return sys.modules[type(t).__module__.split(".")[0]]


def main():
    import torch
    record(CALLS, inputs, describe, "float8", messages=True)
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests",
                        "golden", "float8_casts.json")
    with open(path, "w") as f:
        json.dump({"torch": torch.__version__, "casts": casts(torch)}, f, indent=0, sort_keys=True)
        f.write("\n")
    print("wrote", path)
    path = os.path.join(os.path.dirname(path), "float8_checkpoint.pt")
    torch.save(checkpoint_object(torch), path)
    print("wrote", path)


if __name__ == "__main__":
    main()
