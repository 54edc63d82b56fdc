"""CUDA kernels: what the kernel table holds for device cuda (checked on every
machine), the device-neutral iterator plan (checked on the fake device, whose
data no host code may touch), and CUDA results against NumPy and the CPU.

The result tests take a `device` parameter.  On "cpu" they run everywhere and
check the tests themselves (the same inputs, the same NumPy references); on
"cuda" they run only where a GPU is present (scripts/gpu_check.sh) and skip
with one reason, "requires a CUDA device", elsewhere.  On "emulated" (the
fake device given the CPU's kernels as device kernels, _C._fake_emulate_device,
in a process of their own) they run the op layer's device paths: inputs cast
on the device, scratch outputs, CPU scalars by value, the reductions' device
passes and finishes, same-device casts and strided copies."""
import re
from pathlib import Path

import numpy as np
import pytest

import torchlike as tl
from torchlike import _C
from oracle import (ALL_DTYPES, FLOAT8, INT_DTYPES, NP_DTYPES, TOL, assert_close, cuda_test_devices,
                    random_array, run_emulated, to_tensor)

try:  # the elementwise oracle (its tables, values and references) needs SciPy and Hypothesis
    import test_elementwise as ew
except ImportError as e:  # a GPU machine without them still runs the other CUDA tests
    ew = None
    EW_MISSING = pytest.mark.skip(reason=f"test_elementwise's oracle cannot be imported: {e}")


def oracle_names(table):
    return sorted(getattr(ew, table)) if ew else [pytest.param("-", marks=EW_MISSING)]

DEVICES, EMULATED = cuda_test_devices()
ELEMENTWISE_KINDS = ("unary", "binary", "where", "clamp")
DOC = Path(__file__).resolve().parent.parent / "docs" / "gpu.md"

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")


def table():
    return _C._dispatch_table()


def built_with_cuda():
    return bool(table()["add"][1]["cuda"])


needs_cuda_build = pytest.mark.skipif(not built_with_cuda(), reason="built without CUDA")


# ---- the table's CUDA rows -----------------------------------------------------------

def cuda_gaps():
    """(families with no CUDA kernel at all, {elementwise op: dtypes the CPU runs
    and CUDA does not}, [other ops with no CUDA kernel])."""
    t = table()
    by_kind = {}
    for name, (kind, row) in t.items():
        by_kind.setdefault(kind, []).append((name, row))
    families = sorted(k for k, ops in by_kind.items()
                      if k not in ELEMENTWISE_KINDS and not any(row["cuda"] for _, row in ops))
    elementwise = {}
    others = []
    for name, (kind, row) in t.items():
        if kind in ELEMENTWISE_KINDS:
            missing = [d for d in ALL_DTYPES if d in row["cpu"] and d not in row["cuda"]]
            if missing:
                elementwise[name] = missing
        elif kind not in families and not row["cuda"]:
            others.append(name)
    return families, elementwise, sorted(others)


def documented_gaps():
    """The same three, as docs/gpu.md lists them under "What has no CUDA kernel"."""
    text = DOC.read_text()
    section = text.split("### What has no CUDA kernel", 1)[1].split("\n## ", 1)[0]
    families = re.search(r"Whole families[^:]*: ([\w,\s]+)\.", section).group(1)
    rows = re.findall(r"^\| `(\w+)` \| ([\w, ]+) \|", section, re.M)
    others = re.search(r"Other ops[^:]*: ([`\w,\s]*)[.(]", section).group(1)
    return (sorted(f.strip() for f in families.split(",") if f.strip() != "none"),
            {name: [d.strip() for d in dtypes.split(",")] for name, dtypes in rows},
            sorted(o.strip(" `\n") for o in others.split(",") if o.strip() not in ("", "none")))


@needs_cuda_build
def test_every_op_without_a_cuda_kernel_is_listed_in_the_docs():
    families, elementwise, others = cuda_gaps()
    print("families with no CUDA kernel:", ", ".join(families))
    for name, dtypes in sorted(elementwise.items()):
        print(f"{name}: no CUDA kernel for {', '.join(dtypes)}")
    print("other ops with no CUDA kernel:", ", ".join(others))
    assert (families, elementwise, others) == documented_gaps()


@needs_cuda_build
def test_cuda_elementwise_rows_are_device_kernels_and_gaps_refuse():
    """An op on a CUDA tensor finds the CUDA launcher (a whole-plan kernel,
    not a CPU inner loop); a dtype without one is the table's one error."""
    t = table()
    checked = 0
    for name, (kind, row) in t.items():
        if kind not in ELEMENTWISE_KINDS:
            continue
        for dtype in row["cpu"]:
            assert _C._dispatch_lookup(name, "cpu", dtype) == "loop"
            if dtype in row["cuda"]:
                assert _C._dispatch_lookup(name, "cuda", dtype) == "set", (name, dtype)
                checked += 1
            else:
                # float8 is refused in PyTorch's words ("where" not implemented for 'Float8_e4m3fn')
                words = (rf"^\"{name}\" not implemented for 'Float8_" if dtype.startswith("float8")
                         else rf"^{name}\(\): no kernel for device cuda:0 and dtype {dtype}$")
                with pytest.raises(NotImplementedError, match=words):
                    _C._dispatch_lookup(name, "cuda", dtype)
    assert checked > 500


@needs_cuda_build
def test_cuda_copy_and_creation_rows_take_every_dtype():
    t = table()
    for name in ("copy_", "full", "arange", "linspace", "eye"):
        # arange and linspace refuse float8, as PyTorch's do
        dtypes = ALL_DTYPES + ([] if name in ("arange", "linspace") else FLOAT8)
        assert sorted(t[name][1]["cuda"]) == sorted(dtypes), name
        for dtype in dtypes:
            assert _C._dispatch_lookup(name, "cuda", dtype) == "set"


@pytest.mark.skipif(EMULATED, reason="the fake device has emulated kernels in this process")
def test_the_fake_device_still_has_no_kernels_of_its_own():
    t = table()
    assert {n for n, (_, row) in t.items() if row["fake"]} == {"copy_"}


# ---- the iterator plan for non-CPU operands ---------------------------------------------

def plan_offsets(plan):
    """{output byte offset: (input byte offsets)} over the plan's index space."""
    shape, strides, base = plan["shape"], plan["strides"], plan["offsets"]
    visits = {}
    for idx in np.ndindex(*shape):
        offs = tuple(b + sum(i * s for i, s in zip(idx, st)) for b, st in zip(base, strides))
        assert offs[0] not in visits, "an output element is visited twice"
        visits[offs[0]] = offs[1:]
    return visits


def reference_offsets(out, inputs):
    """The same map from the tensors' own shapes and strides, NumPy-broadcast."""
    visits = {}
    item = [t.element_size() for t in (out, *inputs)]
    for idx in np.ndindex(*out.shape):
        offs = []
        for k, t in enumerate((out, *inputs)):
            lead = out.dim() - t.dim()
            o = t.storage_offset()
            for d in range(t.dim()):
                i = 0 if t.shape[d] == 1 else idx[lead + d]
                o += i * t.stride()[d]
            offs.append(o * item[k])
        visits[offs[0]] = tuple(offs[1:])
    return visits


def fake(shape, dtype=tl.float32):
    return tl.zeros(shape, dtype=dtype).to("fake")


PLAN_CASES = {
    "contiguous": lambda: (fake((3, 4, 5)), [fake((3, 4, 5)), fake((3, 4, 5))]),
    "broadcast": lambda: (fake((2, 3, 4)), [fake((3, 1)), fake((4,))]),
    "expanded": lambda: (fake((4, 6)), [fake((4, 1)).expand(4, 6)]),
    "transposed out": lambda: (fake((5, 3)).t(), [fake((3, 5)), fake((5, 3)).t()]),
    "sliced": lambda: (fake((4, 6)), [fake((8, 12))[::2, 1::2]]),
    "reversed": lambda: (fake((6,)), [fake((6,))[::-1]]),
    "mixed dtypes": lambda: (fake((3, 4), tl.float64), [fake((3, 4), tl.int8)]),
    "0-d": lambda: (fake(()), [fake(())]),
    "empty": lambda: (fake((2, 0, 3)), [fake((1, 0, 3))]),
    "size-1 dims": lambda: (fake((1, 5, 1, 2)), [fake((5, 1, 2))]),
}


@pytest.mark.parametrize("case", sorted(PLAN_CASES))
def test_plan_on_the_fake_device_visits_what_broadcasting_says(case):
    out, inputs = PLAN_CASES[case]()
    plan = _C._iter_plan([out, *inputs])
    assert plan["host_scalar"] == 0
    assert len(plan["shape"]) == plan["ndim"] >= 1
    if out.numel():
        assert plan_offsets(plan) == reference_offsets(out, inputs)


def test_plan_coalesces_contiguous_operands_and_puts_the_smallest_stride_last():
    plan = _C._iter_plan([fake((3, 4, 5)), fake((3, 4, 5))])
    assert plan["shape"] == (60,) and plan["strides"] == ((4,), (4,))
    plan = _C._iter_plan([fake((5, 3)).t(), fake((3, 5))])
    # not mergeable; the output's memory order wins: its unit stride innermost
    assert plan["shape"] == (5, 3) and plan["strides"] == ((12, 4), (4, 20))
    plan = _C._iter_plan([fake((4, 6)), fake((4, 1)).expand(4, 6)])
    assert plan["shape"] == (4, 6) and plan["strides"][1] == (4, 0)


def test_plan_marks_a_cpu_scalar_among_fake_operands():
    plan = _C._iter_plan([fake((2, 3)), fake((2, 3)), tl.tensor(2.0)])
    assert plan["host_scalar"] == 0b100
    assert plan["strides"][2] == (0,)
    with pytest.raises(RuntimeError, match="same device"):
        _C._iter_plan([fake((2, 3)), tl.ones(2, 3)])


# ---- results on the device against NumPy and the CPU -----------------------------------

def on(device, t):
    return t.to(device) if device != "cpu" else t


def back(t):
    return t.cpu() if t.device.type != "cpu" else t


def cuda_dtypes(name):
    """The dtypes whose CUDA kernel the result tests run: the table's, or on a
    CPU-only run the CPU's minus the documented gaps (the same list a GPU
    machine runs, so the tests are checked here)."""
    t = table()
    _, gaps, _ = documented_gaps()
    return [d for d in t[name][1]["cpu"] if d not in gaps.get(name, [])]


def loose(res, rtol, atol):
    """CUDA's libm is within a few ulp, not always NumPy's rounding."""
    base = TOL.get(res, (0, 0))
    return max(rtol or 0, base[0] * 4), max(atol or 0, base[1] * 4)


def shapes_for(device):
    return [(), (0,), (7,), (3, 4), (2, 0, 3), (2, 3, 33)]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", oracle_names("UNARY"))
def test_unary_on_device(device, name):
    _, dtypes, _ = ew.UNARY[name]
    for dtype in dtypes:
        if dtype not in cuda_dtypes(name) and not (dtype in ("float16", "bfloat16") and
                                                  "float32" in cuda_dtypes(name)):
            continue
        fn = getattr(tl, name)
        for shape in shapes_for(device):
            x = ew.unary_values(name, shape, dtype)
            expected, res = ew.unary_expected(name, x, dtype)
            rtol, atol = loose(res, *ew.tolerance(name, res))
            t = on(device, to_tensor(x, dtype))
            got = fn(t)
            assert got.device == t.device
            assert_close(back(got), expected, dtype=res, rtol=rtol, atol=atol)
            assert_close(back(got), fn(back(t)).numpy() if res != "bfloat16" else
                         fn(back(t)).float().numpy(), dtype=res, rtol=rtol, atol=atol)
            if t.ndim and t.numel():
                assert_close(back(fn(t.transpose(0, -1))), expected.transpose(), dtype=res,
                             rtol=rtol, atol=atol)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", oracle_names("BINARY"))
def test_binary_on_device(device, name):
    _, dtypes, _ = ew.BINARY[name]
    rng = np.random.default_rng(5)
    pairs = [((), (3,)), ((4, 1), (3,)), ((2, 1, 4), (3, 1)), ((5, 0), (1, 0)), ((2, 3, 33),) * 2,
             ((), ())]
    for dtype in dtypes:
        if name == "nextafter" and dtype == "bfloat16":
            continue
        if dtype not in cuda_dtypes(name) and not (dtype in ("float16", "bfloat16") and
                                                  "float32" in cuda_dtypes(name)):
            continue
        for sa, sb in pairs:
            a = ew.binary_values(name, sa, dtype, rng)
            b = ew.binary_values(name, sb, dtype, rng, second=True)
            expected, res = ew.binary_expected(name, a, b, dtype, host=device != "cuda")
            rtol, atol = loose(res, None, None)
            ta, tb = on(device, to_tensor(a, dtype)), on(device, to_tensor(b, dtype))
            assert_close(back(ew.binary_call(name, ta, tb)), expected, dtype=res, rtol=rtol,
                         atol=atol)
            if ta.ndim > 1 and ta.numel():  # a strided left operand
                wide = on(device, to_tensor(np.repeat(a, 2, axis=-1), dtype))[..., ::2]
                assert_close(back(ew.binary_call(name, wide, tb)), expected, dtype=res,
                             rtol=rtol, atol=atol)


@pytest.mark.parametrize("device", DEVICES)
def test_python_scalars_and_cpu_scalars_with_device_tensors(device):
    a = np.arange(12, dtype=np.float32).reshape(3, 4) - 5
    t = on(device, tl.from_numpy(a.copy()))
    assert_close(back(t + 2.5), a + np.float32(2.5))
    assert_close(back(2 * t), 2 * a)
    assert_close(back(t * tl.tensor(3.0)), a * 3)  # a 0-d CPU tensor goes with any device
    assert_close(back(tl.add(t, t, alpha=2)), a + 2 * a)
    assert_close(back(tl.sub(t, 1, alpha=3)), a - 3)
    i = on(device, tl.arange(6, dtype=tl.int32))
    assert_close(back(i + 1.5), np.arange(6, dtype=np.float32) + np.float32(1.5))  # promotes


GUARD_CHECK = """
import ctypes
import torchlike as tl
from torchlike import _C
_C._fake_enable()
_C._fake_emulate_device()
t = tl.arange(8.0).to("fake")
print((t * 2).cpu().tolist()[:3], flush=True)  # kernels and copies open the memory
ctypes.string_at(t.data_ptr(), 8)  # a host read outside them
print("read", flush=True)
"""


@pytest.mark.skipif(EMULATED, reason="starts emulated processes of its own")
@pytest.mark.parametrize("guard", ["0", "1"])
def test_the_emulated_devices_memory_faults_on_a_host_read(guard):
    """TORCHLIKE_FAKE_GUARD=1 (run_emulated sets it) keeps the emulated
    device's memory unreadable outside its kernels and copies, so a host read
    of device memory faults in the tests as it would on a GPU."""
    import os
    import subprocess
    import sys
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    p = subprocess.run([sys.executable, "-c", GUARD_CHECK], capture_output=True, text=True,
                       env={**os.environ, "TORCHLIKE_FAKE_GUARD": guard}, cwd=root)
    assert p.stdout.splitlines()[0] == "[0.0, 2.0, 4.0]", p.stdout + p.stderr
    if guard == "1":  # SIGSEGV; AddressSanitizer reports it and aborts (SIGABRT)
        assert p.returncode in (-11, -6) and "read" not in p.stdout.splitlines()[1:]
    else:
        assert p.returncode == 0 and p.stdout.splitlines()[1] == "read"


@pytest.mark.parametrize("device", DEVICES)
def test_integer_pow_checks_a_device_exponent(device):
    """Integer pow looks for a negative exponent before it runs: on a device
    through a host copy of the exponent (reading it in place would touch
    device memory from the host)."""
    base = np.arange(-3, 5, dtype=np.int64).reshape(2, 4)
    exp = np.array([[0, 1, 2, 3], [3, 2, 1, 0]], dtype=np.int32)
    b, e = on(device, tl.from_numpy(base.copy())), on(device, tl.from_numpy(exp.copy()))
    assert_close(back(b ** e), base ** exp.astype(np.int64))
    assert_close(back(b.t() ** e.t()), (base ** exp.astype(np.int64)).T)  # transposed views
    with pytest.raises(ValueError, match="negative integer powers"):
        b ** on(device, tl.tensor([[1, 1, -1, 1]], dtype=tl.int8))


@pytest.mark.parametrize("device", DEVICES)
def test_mixed_dtypes_cast_on_the_device(device):
    rng = np.random.default_rng(6)
    for da, db in [("int32", "float64"), ("uint8", "int8"), ("float16", "float32"),
                   ("bfloat16", "float32"), ("bool", "int64"), ("float32", "complex128")]:
        a, b = random_array((4, 5), da, rng), random_array((4, 5), db, rng)
        ta, tb = on(device, to_tensor(a, da)), on(device, to_tensor(b, db))
        got = back(tl.mul(ta, tb))
        exp = back(tl.mul(back(ta), back(tb)))
        assert got.dtype == exp.dtype
        assert_close(got, exp.float().numpy() if exp.dtype == tl.bfloat16 else exp.numpy())


@pytest.mark.parametrize("device", DEVICES)
def test_where_clamp_round_nan_to_num_on_device(device):
    rng = np.random.default_rng(7)
    for dtype in ALL_DTYPES:
        c = rng.integers(0, 2, size=(3, 5)).astype(bool)
        a, b = random_array((3, 5), dtype, rng), random_array((5,), dtype, rng)
        got = back(tl.where(on(device, tl.from_numpy(c)), on(device, to_tensor(a, dtype)),
                            on(device, to_tensor(b, dtype))))
        exp = np.where(c, a, b)
        assert_close(got, exp, dtype=dtype)
    x = rng.uniform(-5, 5, size=(4, 6)).astype(np.float32)
    t = on(device, tl.from_numpy(x))
    assert_close(back(tl.clamp(t, -1, 2)), np.clip(x, -1, 2))
    assert_close(back(tl.clamp(t, min=0.5)), np.maximum(x, np.float32(0.5)))
    assert_close(back(tl.clamp(t, max=-0.5)), np.minimum(x, np.float32(-0.5)))
    lo, hi = rng.uniform(-3, 0, size=(6,)).astype(np.float32), np.float32(1)
    assert_close(back(tl.clamp(t, on(device, tl.from_numpy(lo)), hi)),
                 np.minimum(np.maximum(x, lo), hi))
    assert_close(back(tl.round(t * 100, decimals=-1)), np.round(x * 100, -1))
    assert_close(back(tl.round(t, decimals=2)), np.round(x, 2))
    i = np.array([1234, -5678, 15, 25], dtype=np.int64)
    assert_close(back(tl.round(on(device, tl.from_numpy(i)), decimals=-1)), np.round(i, -1))
    for dtype in ("float32", "float64", "float16", "complex64"):
        v = np.array([np.nan, np.inf, -np.inf, 1.5], dtype=NP_DTYPES[dtype])
        tv = on(device, to_tensor(v, dtype))
        assert_close(back(tl.nan_to_num(tv)), np.nan_to_num(v), dtype=dtype)
        assert_close(back(tl.nan_to_num(tv, nan=0.5, posinf=9.0, neginf=-9.0)),
                     np.nan_to_num(v, nan=0.5, posinf=9.0, neginf=-9.0), dtype=dtype)


@pytest.mark.parametrize("device", DEVICES)
def test_in_place_and_out_on_device(device):
    a = np.arange(6, dtype=np.float32)
    t = on(device, tl.from_numpy(a.copy()))
    t.add_(1)
    t.mul_(on(device, tl.full((6,), 2.0)))
    assert_close(back(t), (a + 1) * 2)
    out = on(device, tl.empty(6, dtype=tl.float64))
    tl.exp(t, out=out)
    assert_close(back(out), np.exp(((a + 1) * 2).astype(np.float32)).astype(np.float64),
                 rtol=1e-6)  # computed in float32
    f16 = on(device, tl.zeros(6, dtype=tl.float16))
    tl.add(t, 0.5, out=f16)  # computed in float32, cast into the half output
    assert_close(back(f16), ((a + 1) * 2 + 0.5).astype(np.float16), dtype="float16")


# ---- copies, casts and creation on the device -------------------------------------------

@pytest.mark.parametrize("device", DEVICES)
def test_every_cast_pair_on_device(device):
    rng = np.random.default_rng(8)
    for src in ALL_DTYPES:
        x = random_array((3, 7), src, rng, low=-3, high=100)
        t = on(device, to_tensor(x, src))
        for dst in ALL_DTYPES:
            if src in ("float16", "bfloat16", "float32", "float64") and dst == "uint8":
                continue  # negative floats to uint8 are undefined in C
            got = back(t.to(getattr(tl, dst)))
            exp = back(t).to(getattr(tl, dst))  # the CPU's cast
            assert got.dtype == exp.dtype
            a, e = (got.float(), exp.float()) if dst == "bfloat16" else (got, exp)
            np.testing.assert_array_equal(a.numpy(), e.numpy(), err_msg=f"{src} -> {dst}")
            # a strided source through the same kernel
            np.testing.assert_array_equal(back(t[:, ::3].to(getattr(tl, dst))).numpy()
                                          if dst != "bfloat16" else
                                          back(t[:, ::3].to(tl.bfloat16)).float().numpy(),
                                          e.numpy()[:, ::3], err_msg=f"{src} -> {dst} strided")


@pytest.mark.parametrize("device", DEVICES)
def test_non_contiguous_copies_on_and_to_the_device(device):
    x = np.arange(60, dtype=np.float64).reshape(3, 4, 5)
    t = tl.from_numpy(x.copy())
    for view, ref in [(t.transpose(0, 2), np.swapaxes(x, 0, 2)), (t[:, ::2, 1:], x[:, ::2, 1:]),
                      (t.flip(1), x[:, ::-1]), (t[1].expand(3, 4, 5), np.broadcast_to(x[1], x.shape))]:
        d = on(device, view)  # host to device from a strided view
        np.testing.assert_array_equal(back(d).numpy(), ref)
        np.testing.assert_array_equal(back(d.contiguous()).numpy(), ref)
        dev = on(device, t)
        v = {0: dev.transpose(0, 2), 1: dev[:, ::2, 1:], 2: dev.flip(1),
             3: dev[1].expand(3, 4, 5)}
        for k, r in enumerate([np.swapaxes(x, 0, 2), x[:, ::2, 1:], x[:, ::-1],
                               np.broadcast_to(x[1], x.shape)]):
            np.testing.assert_array_equal(back(v[k].contiguous()).numpy(), r)
            np.testing.assert_array_equal(back(v[k].clone()).numpy(), r)
    dst = on(device, tl.zeros(4, 3))
    dst.t().copy_(on(device, tl.from_numpy(np.arange(12.0, dtype=np.float32).reshape(3, 4))))
    np.testing.assert_array_equal(back(dst).numpy(), np.arange(12.0).reshape(3, 4).T)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_creation_on_device(device, dtype):
    dt = getattr(tl, dtype)
    npdt = NP_DTYPES[dtype]
    kw = {"dtype": dt, "device": device}
    for shape in [(), (0,), (5,), (3, 4)]:
        assert_close(back(tl.zeros(shape, **kw)), np.zeros(shape, npdt), dtype=dtype)
        assert_close(back(tl.ones(shape, **kw)), np.ones(shape, npdt), dtype=dtype)
        fill = True if dtype == "bool" else 3
        assert_close(back(tl.full(shape, fill, **kw)), np.full(shape, fill, npdt), dtype=dtype)
    for n, m in [(3, None), (2, 5), (4, 1), (0, 3)]:
        assert_close(back(tl.eye(n, m, **kw)), np.eye(n, m, dtype=npdt), dtype=dtype)
    if dtype != "bool":
        assert_close(back(tl.arange(0, 10, 3, **kw)), np.arange(0, 10, 3).astype(npdt), dtype=dtype)
        assert_close(back(tl.arange(7, **kw)), np.arange(7).astype(npdt), dtype=dtype)
    if dtype not in ("bool",) + tuple(INT_DTYPES):
        assert_close(back(tl.arange(-1.5, 2.0, 0.5, **kw)),
                     np.arange(-1.5, 2.0, 0.5).astype(npdt), dtype=dtype)
        for n in (0, 1, 5, 50):
            assert_close(back(tl.linspace(-2, 3, n, **kw)),
                         np.linspace(-2, 3, n).astype(npdt), dtype=dtype)
        assert_close(back(tl.logspace(0, 2, 5, **kw)), np.logspace(0, 2, 5).astype(npdt),
                     dtype=dtype)
    t = tl.zeros((2, 6), **kw)
    t[:, ::2].fill_(1)  # a strided fill
    exp = np.zeros((2, 6), npdt)
    exp[:, ::2] = 1
    assert_close(back(t), exp, dtype=dtype)


# ---- reductions on the device ----------------------------------------------------------

REDUCTIONS = {
    "sum": np.sum, "nansum": np.nansum, "prod": np.prod, "mean": np.mean, "nanmean": np.nanmean,
    "amax": np.amax, "amin": np.amin, "all": np.all, "any": np.any,
    "count_nonzero": np.count_nonzero,
}


def reduce_reference(name, x, dims, keepdim, dtype):
    fn = REDUCTIONS[name]
    if name == "count_nonzero":
        r = np.count_nonzero(x, axis=dims)
        return np.asarray(r).astype(np.int64)
    kw = {"axis": dims, "keepdims": keepdim}
    if name in ("sum", "prod") and dtype in ("bool",) + tuple(INT_DTYPES):
        kw["dtype"] = np.int64
    r = np.asarray(fn(x, **kw))
    if name in ("all", "any"):
        return r.astype(np.uint8 if dtype == "uint8" else np.bool_)
    if name in ("sum", "prod", "nansum") and dtype in ("float16", "bfloat16", "float32"):
        r = np.asarray(fn(x.astype(np.float64), **kw)).astype(np.float32)
    return r


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", sorted(REDUCTIONS))
def test_reductions_on_device(device, name):
    rng = np.random.default_rng(9)
    dtypes = {"mean": ["float32", "float64", "complex64"], "nanmean": ["float32", "float64"],
              "nansum": ["float32", "float64", "int32"], "amax": ["bool", "uint8", "int8", "int32",
              "int64", "float32", "float64"], "amin": ["int16", "float32", "float64"]}.get(
        name, ["bool", "uint8", "int32", "int64", "float32", "float64", "complex64", "complex128"])
    for dtype in dtypes:
        if name in ("amax", "amin") and dtype.startswith("complex"):
            continue
        for shape, dims in [((3, 4, 5), None), ((3, 4, 5), 1), ((3, 4, 5), (0, 2)), ((7,), 0),
                            ((), None), ((2, 0, 3), 2), ((6, 300), 1), ((300, 6), 0)]:
            if name in ("amax", "amin") and 0 in shape:
                continue
            x = random_array(shape, dtype, rng, low=-3, high=4)
            if name.startswith("nan") and dtype.startswith("float") and x.size:
                x.flat[::3] = np.nan
            if name == "prod" and dtype.startswith(("float", "complex")):
                lo, hi = (0.6, 0.8) if dtype.startswith("complex") else (0.9, 1.1)
                x = random_array(shape, dtype, rng, low=lo, high=hi)  # |x| near 1: finite products
            t = on(device, to_tensor(x, dtype))
            for keepdim in (False, True):
                if name == "count_nonzero" and keepdim:
                    continue
                args = {} if dims is None else ({"dim": dims} if name == "count_nonzero" else
                                                {"dim": dims, "keepdim": keepdim})
                if dims is None and keepdim and name != "count_nonzero":
                    continue
                got = back(getattr(tl, name)(t, **args))
                exp = reduce_reference(name, x, dims, keepdim or False, dtype)
                rtol = 1e-5 if dtype in ("float32", "complex64") else 1e-12
                assert_close(got, exp, rtol=rtol, atol=1e-6, check_dtype=False)
                assert_close(got, back(getattr(tl, name)(back(t), **args)).numpy(), rtol=rtol,
                             atol=1e-6)
            if t.ndim >= 2 and t.numel():  # a transposed input
                got = back(getattr(tl, name)(t.transpose(0, -1)))
                exp = reduce_reference(name, np.swapaxes(x, 0, -1), None, False, dtype)
                assert_close(got, exp, rtol=1e-5, atol=1e-6, check_dtype=False)


@pytest.mark.parametrize("device", DEVICES)
def test_var_std_and_dtype_on_device(device):
    rng = np.random.default_rng(10)
    for dtype in ("float32", "float64", "complex64"):
        x = random_array((4, 50), dtype, rng)
        t = on(device, to_tensor(x, dtype))
        for dims in (None, 0, 1):
            for correction in (0, 1):
                assert_close(back(tl.var(t, dim=dims, correction=correction)),
                             np.var(x, axis=dims, ddof=correction), rtol=1e-5, atol=1e-6)
                assert_close(back(tl.std(t, dim=dims, correction=correction)),
                             np.std(x, axis=dims, ddof=correction), rtol=1e-5, atol=1e-6)
    i = on(device, tl.arange(10, dtype=tl.int32))
    assert_close(back(tl.sum(i, dtype=tl.float64)), np.float64(45))
    assert_close(back(tl.mean(i, dtype=tl.float32)), np.float32(4.5))


# ---- float maximum/minimum: the CPU's bits for ties of 0.0 and -0.0 and NaNs ---------------

def _extrema_cases(dt):
    """(name, x1, x2, out dtype or None) with many ties and NaNs, in the
    layouts whose runs the CPU cuts differently: rows, vector blocks and
    their remainders, threads' chunks (past 32768 elements), buffer pieces
    (mixed dtypes), broadcasts and scalars."""
    rng = np.random.default_rng(7)
    pool = np.array([0.0, -0.0, np.nan, 1.0, -1.0, 0.0, -0.0], dtype=dt)

    def arr(*shape):
        return rng.choice(pool, size=shape)

    other = np.float64 if dt == np.float32 else np.float32
    yield "one", arr(1), arr(1), None
    for n in (7, 16, 17, 40, 1000, 2053, 70001):
        yield f"flat{n}", arr(n), arr(n), None
    yield "transposed", arr(37, 21).T, arr(21, 37), None
    yield "rows", arr(9, 45), arr(45), None
    yield "column", arr(33, 1), arr(1, 50), None
    yield "scalar_tensor", arr(100), np.array(-0.0, dtype=dt), None
    yield "python_scalar", arr(100), -0.0, None
    yield "python_scalar_first", 0.0, arr(100), None
    yield "mixed_dtypes", arr(3000), arr(3000).astype(other), None
    yield "mixed_big", arr(40000), arr(40000).astype(other), None
    yield "out_other", arr(2100), arr(2100), other


def _extrema_tensor(v, device):
    return on(device, tl.from_numpy(v.copy() if not v.flags.c_contiguous else v)) \
        if isinstance(v, np.ndarray) and v.ndim else (
            on(device, tl.from_numpy(np.array(v))) if isinstance(v, np.ndarray) else v)


def _bits(a):
    a = np.ascontiguousarray(a)
    return a.view(np.uint32 if a.dtype == np.float32 else np.uint64)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dt", [np.float32, np.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("op", ["maximum", "minimum"])
def test_float_extrema_give_the_cpus_bits_for_ties_and_nans(device, dt, op):
    """torch.maximum/minimum give the CPU's bits (PyTorch's CPU rule: by an
    element's place in its run, tl_extrema_rule.h) on the device too;
    _C._maximum_plain gives the first of a tie and an input's own NaN, and
    torchlike.numpy's maximum NumPy's answer (the second of a tie), on every
    device.  Transposed inputs keep their layout on the device (.to copies
    strides), so the device iterates as the CPU does."""
    import torchlike.numpy as tnp
    fn, plain, np_fn = getattr(tl, op), getattr(_C, f"_{op}_plain"), getattr(tnp, op)
    for name, x1, x2, out_dt in _extrema_cases(dt):
        if name == "transposed":
            c1 = tl.from_numpy(np.ascontiguousarray(x1.T)).t()
            d1 = on(device, tl.from_numpy(np.ascontiguousarray(x1.T))).t()
        else:
            c1, d1 = _extrema_tensor(x1, "cpu"), _extrema_tensor(x1, device)
        c2, d2 = _extrema_tensor(x2, "cpu"), _extrema_tensor(x2, device)
        if out_dt is not None:
            want = tl.empty(c1.shape, dtype=getattr(tl, np.dtype(out_dt).name))
            fn(c1, c2, out=want)
            got = on(device, tl.empty(c1.shape, dtype=want.dtype))
            fn(d1, d2, out=got)
        else:
            want, got = fn(c1, c2), fn(d1, d2)
        assert np.array_equal(_bits(back(got).numpy()), _bits(want.numpy())), (op, name)
        if isinstance(x1, np.ndarray) and isinstance(x2, np.ndarray) and out_dt is None \
                and x1.dtype == x2.dtype:
            for f in (plain, np_fn):
                w, g = f(c1, c2), f(d1, d2)
                assert np.array_equal(_bits(back(g).numpy()), _bits(w.numpy())), (op, name, f)
    # the plain rule itself, spelled out: first of a tie, an input's own NaN
    a = np.array([0.0, -0.0, np.nan, 1.0], dtype=dt)
    b = np.array([-0.0, 0.0, 2.0, np.nan], dtype=dt)
    nan_bits = _bits(np.array([np.nan], dtype=dt))[0]
    r = _bits(back(plain(on(device, tl.from_numpy(a)), on(device, tl.from_numpy(b)))).numpy())
    np.testing.assert_array_equal(r[:2], _bits(a[:2]))
    assert r[2] == nan_bits and r[3] == _bits(b[3:])[0]


# ---- the device paths, emulated --------------------------------------------------------

@pytest.mark.skipif(EMULATED, reason="this is the emulated run")
def test_device_paths_on_the_emulated_fake_device():
    """Every device-parametrised test above, on the fake device with the CPU's
    kernels as its device kernels, in a process of its own (the emulation
    cannot be undone)."""
    run_emulated(__file__)
