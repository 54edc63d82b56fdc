"""The one helper every test uses: run an op in torchlike and in NumPy, compare.

`check(fn_tl, fn_np, *arrays)` converts the NumPy inputs to tensors (copies, so
the oracle never sees our writes), runs both, and compares values, dtype and
shape.  `layouts(a)` gives the same values in the layouts that break naive
kernels: contiguous, transposed, strided, negative-stride, broadcast."""
import ast
import math
import os
import warnings

import numpy as np

import torchlike as tl

# torchlike dtype name -> NumPy dtype (bfloat16 has none; compared as float32)
NP_DTYPES = {
    "bool": np.bool_, "uint8": np.uint8, "int8": np.int8, "int16": np.int16,
    "int32": np.int32, "int64": np.int64, "float16": np.float16,
    "bfloat16": np.float32, "float32": np.float32, "float64": np.float64,
    "complex64": np.complex64, "complex128": np.complex128,
    "uint16": np.uint16, "uint32": np.uint32, "uint64": np.uint64,
}
ALL_DTYPES = list(NP_DTYPES)
INT_DTYPES = ["uint8", "int8", "int16", "int32", "int64", "uint16", "uint32", "uint64"]
FLOAT_DTYPES = ["float16", "bfloat16", "float32", "float64"]
COMPLEX_DTYPES = ["complex64", "complex128"]
# the float8 formats, which NumPy has no dtype for (not in ALL_DTYPES)
FLOAT8 = ["float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e8m0fnu"]

# Shapes covering 0-d, empty, size-1 and ordinary cases.
SHAPES = [(), (0,), (1,), (5,), (3, 4), (2, 0, 3), (2, 3, 4), (1, 1, 7)]
# Pairs that broadcast, NumPy-style.
BROADCAST_PAIRS = [((), (3,)), ((3,), ()), ((4, 1), (3,)), ((2, 1, 4), (3, 1)),
                   ((1,), (0,)), ((5, 0), (1, 0)), ((2, 3), (2, 3))]

# The device the tests' tensors live on (tests/conftest.py); None: the CPU.
TEST_DEVICE = os.environ.get("TORCHLIKE_TEST_DEVICE")


def _device_refusals():
    """The NumPy calls of the tests that refuse on a device, one per line of
    tests/golden/device_refusals.txt: functions with no torchlike
    implementation, and NumPy's own code that builds host arrays."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden",
                        "device_refusals.txt")
    with open(path) as f:
        return {line.strip() for line in f if line.strip() and not line.startswith("#")}


DEVICE_REFUSALS = _device_refusals()


def numpy_or_refused(call, name):
    """call(), a NumPy function on tensors.  On a device, one that would need
    the host (no torchlike implementation, or NumPy's own code building host
    arrays) must refuse with a TypeError naming it rather than copy: None then.
    Which calls refuse is listed (DEVICE_REFUSALS): a listed call that runs,
    or an unlisted one that refuses, fails, so that neither a new refusal nor
    a new device path goes unnoticed."""
    if not TEST_DEVICE:
        return call()
    try:
        result = call()
    except TypeError as error:
        if f"{name} has no torchlike implementation" not in str(error):
            raise
        assert name in DEVICE_REFUSALS, f"{name} refused on {TEST_DEVICE}, and is not listed " \
                                        f"in tests/golden/device_refusals.txt: {error}"
        return None
    assert name not in DEVICE_REFUSALS, f"{name} ran on {TEST_DEVICE}: take it off " \
                                        f"tests/golden/device_refusals.txt"
    return result


# Tolerances per dtype for float results (rtol, atol).
TOL = {
    "float16": (1e-2, 1e-3), "bfloat16": (2e-2, 1e-2), "float32": (1e-5, 1e-6),
    "float64": (1e-12, 1e-14), "complex64": (1e-5, 1e-6), "complex128": (1e-12, 1e-14),
}


def random_array(shape, dtype, rng=None, low=-5, high=5):
    """Values of `dtype` (a torchlike dtype name) that NumPy can hold."""
    rng = rng or np.random.default_rng(0)
    npdt = NP_DTYPES[dtype]
    if dtype == "bool":
        return rng.integers(0, 2, size=shape).astype(np.bool_)
    if dtype in INT_DTYPES:
        lo = 0 if dtype.startswith("uint") else low
        return rng.integers(lo, high, size=shape).astype(npdt)
    x = rng.uniform(low, high, size=shape)
    if dtype in COMPLEX_DTYPES:
        x = x + 1j * rng.uniform(low, high, size=shape)
    x = x.astype(npdt)
    if dtype == "bfloat16":  # keep only values bfloat16 represents exactly
        x = tl.tensor(x, dtype=tl.bfloat16).float().cpu().numpy()
    return x


def to_tensor(a, dtype=None):
    """A tensor holding a copy of ndarray `a` (dtype: a torchlike dtype name)."""
    t = tl.tensor(np.array(a, copy=True))
    if dtype is not None and t.dtype.name != dtype:
        t = t.to(getattr(tl, dtype))
    return t


def layouts(a):
    """(label, ndarray view) pairs with the same values as `a` in other layouts."""
    out = [("contiguous", a)]
    if a.ndim >= 2:
        out.append(("transposed", np.ascontiguousarray(a.swapaxes(-1, -2)).swapaxes(-1, -2)))
    if a.ndim >= 1 and a.shape[-1] > 0:
        big = np.repeat(a, 2, axis=-1)
        out.append(("strided", big[..., ::2]))
        out.append(("reversed", np.ascontiguousarray(a[..., ::-1])[..., ::-1]))
    return out


def noncontiguous(t):
    """The same values as tensor `t`, viewed through a strided, non-contiguous layout."""
    if t.ndim == 0 or t.shape[-1] == 0:
        return t
    wide = tl.zeros(*t.shape[:-1], 2 * t.shape[-1], dtype=t.dtype)
    wide[..., ::2] = t
    return wide[..., ::2]


def assert_close(actual, expected, dtype=None, rtol=None, atol=None, check_dtype=True,
                 equal_nan=True):
    """Compare a tensor with an ndarray: shape, dtype and values."""
    assert isinstance(actual, tl.Tensor), f"expected a Tensor, got {type(actual)}"
    expected = np.asarray(expected)
    assert tuple(actual.shape) == expected.shape, \
        f"shape {tuple(actual.shape)} != expected {expected.shape}"
    name = actual.dtype.name
    if check_dtype:
        want = dtype or expected.dtype.name
        if want in ("float32",) and name == "bfloat16" and dtype is None:
            want = "bfloat16"
        assert name == want, f"dtype {name} != expected {want}"
    host = actual.cpu()  # results on any device are compared on the host
    got = host.float().cpu().numpy() if name == "bfloat16" else host.cpu().numpy()
    if name in TOL or expected.dtype.kind in "fc":
        r, a = TOL.get(name, TOL["float64"])
        np.testing.assert_allclose(got, expected, rtol=rtol if rtol is not None else r,
                                   atol=atol if atol is not None else a, equal_nan=equal_nan)
    else:
        np.testing.assert_array_equal(got, expected)


def check(fn_tl, fn_np, *arrays, dtype=None, rtol=None, atol=None, check_dtype=True):
    """Run fn_tl on tensors and fn_np on the ndarrays; compare the results."""
    tensors = [to_tensor(a) if isinstance(a, np.ndarray) else a for a in arrays]
    expected = fn_np(*arrays)
    actual = fn_tl(*tensors)
    if isinstance(expected, tuple):
        for x, e in zip(actual, expected):
            assert_close(x, e, dtype=dtype, rtol=rtol, atol=atol, check_dtype=check_dtype)
    else:
        assert_close(actual, expected, dtype=dtype, rtol=rtol, atol=atol, check_dtype=check_dtype)
    return actual


# ---- memory -----------------------------------------------------------------------

# AddressSanitizer keeps freed memory in quarantine, so RSS says nothing there.
UNDER_ASAN = "libasan" in os.environ.get("LD_PRELOAD", "")


class num_threads:
    """torchlike's pool at n threads for a with block, then as it was."""

    def __init__(self, n):
        self.n = n

    def __enter__(self):
        self.old = tl.get_num_threads()
        tl.set_num_threads(self.n)

    def __exit__(self, *exc):
        tl.set_num_threads(self.old)


def rss_bytes():
    """The process's resident anonymous memory (heap, mappings), in bytes.
    File-backed pages (code, libraries) are left out: on a busy machine the
    kernel drops them and they come back as soon as they run again, which
    showed as growth in loops that leak nothing."""
    with open("/proc/self/statm") as f:
        fields = f.read().split()
    return (int(fields[1]) - int(fields[2])) * os.sysconf("SC_PAGE_SIZE")


def assert_rss_flat(before, slack=2 << 20, label=""):
    """RSS grew by less than `slack` since `before` (not checked under ASan)."""
    grown = rss_bytes() - before
    if not UNDER_ASAN:
        assert grown < slack, f"{label}: RSS grew by {grown} bytes"


def device_bytes_allocated():
    """Bytes the test device's allocator hands out now (tests/conftest.py's
    TORCHLIKE_TEST_DEVICE), exact; None on the host."""
    if not TEST_DEVICE:
        return None
    import torchlike
    device = str(torchlike.get_default_device())
    return torchlike._C._memory_stats(device)["allocated_bytes.all.current"]


def assert_loop_rss_flat(call, n=1000, rounds=3, slack=2 << 20, label=""):
    """call() n times per round leaves RSS flat in at least one of `rounds`
    rounds.  A leak grows every round; the allocator taking a new arena or
    block once (seen in whole-suite runs after unrelated tests) grows one.

    On a test device a leaked buffer does not show in RSS (a GPU's memory is
    not the process's), but the allocator's count of live bytes is exact:
    n // 10 calls must leave it where it was.  The host side of the same
    calls was checked by the host run of the suite, so the RSS rounds shrink
    to n // 10 calls there (a device call through the guarded emulation costs
    milliseconds)."""
    import gc
    if TEST_DEVICE:
        n = max(1, n // 10)
        gc.collect()
        before = device_bytes_allocated()
        for _ in range(n):
            call()
        gc.collect()
        after = device_bytes_allocated()
        assert after == before, f"{label}: {after - before} bytes left allocated on " \
                                f"{TEST_DEVICE} by {n} calls"
    grown = []
    for _ in range(rounds):
        gc.collect()
        before = rss_bytes()
        for _ in range(n):
            call()
        gc.collect()
        grown.append(rss_bytes() - before)
        if UNDER_ASAN or grown[-1] < slack:
            return
    raise AssertionError(f"{label}: RSS grew by {grown} bytes in {rounds} rounds of {n} calls")


def golden_calls(name):
    """The [call, outcome] pairs that scripts/golden_<name>.py recorded from
    PyTorch into tests/golden/<name>.json, and that script as a module (its
    describe() puts torchlike's results in the same form)."""
    import json
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with open(os.path.join(root, "tests", "golden", name + ".json")) as f:
        calls = json.load(f)["calls"]
    return calls, script("golden_" + name)


def program_result(golden, call):
    """A golden script's program ``call`` (an expression over T and the
    script's inputs) run on torchlike and described as the script describes
    PyTorch's result; warnings silenced (the programs' own are PyTorch's)."""
    import warnings
    import torchlike
    env = golden.inputs(torchlike)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return host_spelling(golden.describe(eval(call, env)))


def assert_program_matches(golden, call, expected, tol):
    """A training program's result on torchlike equal to PyTorch's recorded
    one (floats within tol); every recorded program ran under PyTorch."""
    assert expected[0] != "raises", expected
    got = program_result(golden, call)
    assert described_same(got, expected, tol), (call, described_difference(got, expected, tol))


# (rtol, atol) of a float32 training program's values (rounds four on):
# PyTorch's BLAS, conv and vectorised exp/tanh/log round in another order
# than ours (a few ulp per op), and a few optimizer steps carry that along.
FLOAT32_PROGRAMS = (2e-5, 1e-6)


def program_test(name, tolerance=None):
    """The test of one round of training programs, tests/golden/<name>.json:
    each program's result against PyTorch's, within tolerance[call] (None:
    exactly) or FLOAT32_PROGRAMS for a program not listed."""
    import pytest
    calls, golden = golden_calls(name)
    tolerance = tolerance or {}

    @pytest.mark.parametrize("call,expected", calls, ids=[c for c, _ in calls])
    def test_program_matches_pytorch(call, expected):
        assert_program_matches(golden, call, expected,
                               tolerance.get(call, FLOAT32_PROGRAMS))
    return test_program_matches_pytorch


def host_spelling(described):
    """A described result with the test device's ", device='fake:0'" taken
    out of its strings: under TORCHLIKE_TEST_DEVICE a printed tensor names
    its device (as PyTorch's name cuda:0), where the answer recorded on the
    CPU names none.  Only that exact suffix goes; the rest of what was
    printed is compared as strictly as on the CPU."""
    if not TEST_DEVICE:
        return described
    import torchlike
    suffix = f", device='{torchlike.empty(0).device}'"
    if isinstance(described, str):
        return described.replace(suffix, "")
    if isinstance(described, list):
        return [host_spelling(d) for d in described]
    if isinstance(described, dict):
        return {k: host_spelling(v) for k, v in described.items()}
    return described


def described_same(got, want, tol):
    """Two described results (golden_calls' form) equal: NaN equal to NaN,
    floats within tol = (rtol, atol), or exactly when tol is None."""
    if isinstance(want, float) and isinstance(got, float):
        if math.isnan(want) or math.isnan(got):
            return math.isnan(want) and math.isnan(got)
        if tol is None or math.isinf(want) or math.isinf(got):
            return got == want
        return abs(got - want) <= tol[0] * abs(want) + tol[1]
    if isinstance(want, list) and isinstance(got, list):
        return len(got) == len(want) and all(described_same(g, w, tol) for g, w in zip(got, want))
    if isinstance(want, dict) and isinstance(got, dict):
        return got.keys() == want.keys() and all(described_same(got[k], want[k], tol)
                                                 for k in want)
    return got == want


def described_difference(got, want, tol, path="result"):
    """The first place two described results differ beyond tol (for a
    failure message)."""
    if isinstance(want, list) and isinstance(got, list) and len(got) == len(want):
        for i, (g, w) in enumerate(zip(got, want)):
            if not described_same(g, w, tol):
                return described_difference(g, w, tol, f"{path}[{i}]")
    if isinstance(want, dict) and isinstance(got, dict) and got.keys() == want.keys():
        for k in want:
            if not described_same(got[k], want[k], tol):
                return described_difference(got[k], want[k], tol, f"{path}[{k!r}]")
    return f"{path}: {str(got)[:300]} != {str(want)[:300]}"


def script(name):
    """scripts/<name>.py as a module (the golden recorders, the fuzzers)."""
    import importlib
    import sys
    scripts = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                           "scripts")
    if scripts not in sys.path:
        sys.path.append(scripts)
    return importlib.import_module(name)


def _nan_equal(d):
    """A described result with NaNs made equal to themselves."""
    if isinstance(d, float) and math.isnan(d):
        return "nan"
    if isinstance(d, list):
        return [_nan_equal(x) for x in d]
    return d


def described_close(got, want, rtol):
    """Two described results (nested lists of plain values) equal, their
    floats within rtol (relative to max(1, |want|))."""
    if isinstance(got, float) and isinstance(want, float):
        return got == want or abs(got - want) <= rtol * max(1.0, abs(want))
    if isinstance(got, list) and isinstance(want, list):
        return len(got) == len(want) and all(described_close(g, w, rtol)
                                             for g, w in zip(got, want))
    return got == want


def golden_check(golden, call, expected, same_wording=(), different=None):
    """One call golden_calls recorded, run with torchlike as T: an exception
    of the same class (the except clause PyTorch code has catches it), with PyTorch's words where a message starts with one of
    `same_wording`; or the same described result (NaNs equal).  different
    maps a call to what ours gives on purpose instead: (exception name,
    words of our message), or the dtype of our result."""
    import pytest
    different = different or {}
    env = {"T": tl, **golden.inputs(tl)}
    if expected[0] == "raises":
        kind, message = different.get(call, expected[1:])
        with pytest.raises(Exception) as e:
            eval(call, env)
        # of that class: torchlike's BroadcastError is a ValueError and a RuntimeError
        assert kind in [c.__name__ for c in type(e.value).__mro__], (call, str(e.value))
        if message.startswith(tuple(same_wording)) or call in different:
            assert message in str(e.value), (call, str(e.value))
        return
    got = golden.describe(eval(call, env))
    if call in different:
        assert got[1] == different[call], call
        got[1] = expected[1]
    assert _nan_equal(got) == _nan_equal(expected), call


def _calls(expr, name):
    return [n for n in ast.walk(ast.parse(expr, mode="eval"))
            if isinstance(n, ast.Call) and getattr(n.func, "attr", None) == name]


def _align(call):
    return next((k.value for k in call.keywords if k.arg == "align_corners"), None)


def golden_eval(expr, env):
    """Evaluate a recorded PyTorch expression with torchlike, checking the
    UserWarnings PyTorch gives for it: grid_sample/affine_grid without
    align_corners (the default changed in PyTorch 1.3) must warn, and
    affine_grid with align_corners=True may warn about unit-size grids, and
    PyTorch's once-per-process notices (_ONCE_NOTICES) may come on a first
    call.  Any other warning fails."""
    grid_calls = _calls(expr, "grid_sample") + _calls(expr, "affine_grid")
    must = any(_align(c) is None for c in grid_calls)
    may_unit = any(getattr(_align(c), "value", None) is True for c in _calls(expr, "affine_grid"))
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        out = eval(expr, env)
    texts = [str(w.message) for w in seen]
    default = [t for t in texts if "align_corners=False since 1.3.0" in t]
    unit = [t for t in texts if "for unit-size grids when align_corners=True" in t]
    once = [t for t in texts if t.startswith(_ONCE_NOTICES)]
    assert bool(default) == must, (expr, texts)
    assert may_unit or not unit, (expr, texts)
    assert len(default) + len(unit) + len(once) == len(texts), (expr, texts)
    return out


# PyTorch's notices given once per process (whichever call comes first)
_ONCE_NOTICES = ("Using padding='same' with even kernel lengths and odd dilation",
                 "index_reduce() is in beta", "Sparse CSR tensor support is in beta")
# ---- device-parametrised tests (tests/test_cuda_*.py) ------------------------------

def cuda_test_devices():
    """(DEVICES, EMULATED) for a device-parametrised test file: "cpu" always,
    "cuda" skipped without a GPU ("requires a CUDA device"), and "emulated"
    (the fake device given the CPU's kernels, _C._fake_emulate_device) in the
    process run_emulated starts.  The emulation cannot be undone: it is set
    up only in that process."""
    import pytest
    from torchlike import _C
    _C._fake_enable()
    emulated = os.environ.get("TL_TEST_EMULATED_DEVICE") == "1"
    if emulated:
        _C._fake_emulate_device()
    devices = ["cpu", pytest.param("cuda", marks=pytest.mark.skipif(
        not tl.cuda.is_available(), reason="requires a CUDA device"))]
    if emulated:
        devices.append(pytest.param("fake", id="emulated"))
    return devices, emulated


def device_array(device, a):
    """ndarray a as a tensor on a test's device ("cpu", "cuda" or "fake")."""
    t = tl.from_numpy(np.ascontiguousarray(a))
    return t.to(device) if device != "cpu" else t


def host_array(t):
    """A device-parametrised test's result as an ndarray (through the host)."""
    assert t.device.type in ("cpu", "cuda", "fake")
    return np.asarray(t.cpu() if t.device.type != "cpu" else t)


def run_emulated(test_file):
    """Run test_file's "emulated" cases in a process of their own; the
    assertion carries that run's output.  pytest exits 5 if nothing ran."""
    import subprocess
    import sys
    from pathlib import Path
    p = subprocess.run([sys.executable, "-m", "pytest", test_file, "-q", "-x", "-p",
                        "no:cacheprovider", "-k", "emulated"],
                       # the guard: host reads of the device's memory fault, as on a GPU
                       env={**os.environ, "TL_TEST_EMULATED_DEVICE": "1",
                            "TORCHLIKE_FAKE_GUARD": "1"},
                       capture_output=True, text=True, cwd=Path(test_file).resolve().parent.parent)
    assert p.returncode == 0, p.stdout[-4000:] + p.stderr[-2000:]
