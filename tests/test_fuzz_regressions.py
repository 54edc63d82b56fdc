"""Bugs the fuzzers found (issue 9) that are not about LAPACK: unbounded work or
memory from a small call, silent promotion in the matrix products."""
import json
import math
import pathlib
import re
import time

import numpy as np
import pytest

import torchlike as tl
import torchlike.numpy as tnp


# A warning is an accepted answer of a fuzz call: deprecated functions
# (torch.lu, torch.range ...) and switches given a value that changes nothing
# warn as PyTorch's do.
pytestmark = [pytest.mark.filterwarnings("ignore:.* is deprecated:UserWarning"),
              pytest.mark.filterwarnings("ignore:.*call has no effect:UserWarning")]

ROOT = pathlib.Path(__file__).resolve().parent.parent


# ---- polygamma: bounded work for any order -----------------------------------------------

POLYGAMMA = json.loads((ROOT / "tests/golden/polygamma_large_order.json").read_text())


@pytest.mark.parametrize("row", POLYGAMMA, ids=[str(r["n"]) for r in POLYGAMMA])
def test_polygamma_large_order_matches_mpmath(row):
    # recorded by scripts/golden_polygamma.py (mpmath, 50 digits)
    x = tl.tensor(row["x"], dtype=tl.float64)
    got = tl.polygamma(row["n"], x).tolist()
    for xi, g, want in zip(row["x"], got, (float(v) for v in row["value"])):
        if math.isfinite(want) and want != 0:
            assert abs(g - want) <= 1e-11 * abs(want), (row["n"], xi, g, want)
        else:
            assert g == want, (row["n"], xi, g, want)


def test_polygamma_order_does_not_set_the_run_time():
    x = tl.linspace(0.25, 40, 20000, dtype=tl.float64)
    start = time.perf_counter()
    tl.polygamma(10 ** 9, x)
    tl.polygamma(10 ** 15, x)
    huge = time.perf_counter() - start
    start = time.perf_counter()
    tl.polygamma(101, x)
    small = time.perf_counter() - start
    assert huge < 20 * small + 0.5  # it grew linearly with n: 10^9 steps per element


def test_polygamma_float32_and_poles_at_large_order():
    x = tl.tensor([0.0, -3.0, 2.0], dtype=tl.float32)
    got = tl.polygamma(1001, x)
    assert got.dtype == tl.float32
    assert got.tolist()[:2] == [math.inf, math.inf]  # odd order: +inf at the poles
    assert tl.polygamma(1000, x).tolist()[:2] == [-math.inf, -math.inf]


# ---- sizes that cannot be allocated raise before any work --------------------------------

# the namespace's refusals are NumPy's (MemoryError below intp's byte count,
# ValueError past it), the torch side's PyTorch's RuntimeError
_NP_TOO_BIG = (ValueError, "array is too big")
_NP_NO_MEMORY = (MemoryError, "Unable to allocate")


@pytest.mark.parametrize("make,refusal", [
    (lambda: tnp.tri(619129639), _NP_NO_MEMORY),
    (lambda: tnp.tri(2 ** 40, 2 ** 40, 1), _NP_TOO_BIG),
    (lambda: tnp.eye(619129639), _NP_NO_MEMORY),
    (lambda: tnp.identity(619129639), _NP_NO_MEMORY),
    (lambda: tnp.eye(3, 2 ** 62), _NP_TOO_BIG),
    (lambda: tl.eye(619129639), (RuntimeError, "too large")),
    (lambda: tl.full((619129639, 619129639), 1.0), (RuntimeError, "too large")),
    (lambda: tl.ones(2).repeat(619129639, 619129639),
     ((ValueError, MemoryError), "too large|out of memory")),
    (lambda: tl.ones(2).tile((2 ** 40, 2 ** 40)),
     ((ValueError, MemoryError), "too large|out of memory|overflow")),
    (lambda: tnp.full((2 ** 40, 2 ** 40), 1.0), _NP_TOO_BIG),
    (lambda: tnp.zeros((2 ** 62, 4)), _NP_TOO_BIG),
], ids=["tri", "tri_nmk", "eye", "identity", "eye_wide", "tl.eye", "full", "repeat", "tile",
        "np.full", "np.zeros"])
def test_impossible_sizes_raise_at_once(make, refusal):
    start = time.perf_counter()
    with pytest.raises(refusal[0], match=refusal[1]):
        make()
    assert time.perf_counter() - start < 1.0


@pytest.mark.parametrize("fn", ["eye", "tri"])
@pytest.mark.parametrize("dtype", [None, np.int32, bool, np.complex64])
def test_eye_and_tri_match_numpy(fn, dtype):
    for n, m, k in [(0, None, 0), (1, None, 0), (3, None, 0), (3, 5, 1), (4, 2, -1), (3, 3, 7),
                    (3, 3, -7), (3, 4, -3), (4, 3, 3)]:
        got = getattr(tnp, fn)(n, m, k, dtype=dtype)
        want = getattr(np, fn)(n, m, k, dtype=dtype)
        assert got.cpu().numpy().dtype == want.dtype
        np.testing.assert_array_equal(got.cpu().numpy(), want)


# ---- matrix products take one dtype (PyTorch); NumPy's namespace promotes -----------------

PRODUCTS = {
    "mm": lambda a, b: tl.mm(a(2, 3), b(3, 2)),
    "bmm": lambda a, b: tl.bmm(a(1, 2, 3), b(1, 3, 2)),
    "matmul": lambda a, b: tl.matmul(a(2, 2, 3), b(3, 2)),
    "matmul_1d": lambda a, b: tl.matmul(a(3), b(3)),
    "operator": lambda a, b: a(2, 3) @ b(3, 2),
    "mv": lambda a, b: tl.mv(a(2, 3), b(3)),
    "dot": lambda a, b: tl.dot(a(3), b(3)),
    "vdot": lambda a, b: tl.vdot(a(3), b(3)),
    "inner": lambda a, b: tl.inner(a(3), b(3)),
    "addmm": lambda a, b: tl.addmm(a(2, 2), a(2, 3), b(3, 2)),
    "addmm_input": lambda a, b: tl.addmm(b(2, 2), a(2, 3), a(3, 2)),
    "addmv": lambda a, b: tl.addmv(a(2), a(2, 3), b(3)),
    "addbmm": lambda a, b: tl.addbmm(a(2, 2), a(1, 2, 3), b(1, 3, 2)),
    "baddbmm": lambda a, b: tl.baddbmm(a(1, 2, 2), a(1, 2, 3), b(1, 3, 2)),
    "tensordot": lambda a, b: tl.tensordot(a(2, 3), b(3, 2), 1),
    "einsum": lambda a, b: tl.einsum("ij,jk->ik", a(2, 3), b(3, 2)),
    "multi_dot": lambda a, b: tl.linalg.multi_dot([a(2, 3), b(3, 2)]),
    "linalg.cross": lambda a, b: tl.linalg.cross(a(3), b(3)),
}
PAIRS = [(tl.float32, tl.float64), (tl.float64, tl.float32), (tl.float32, tl.int64),
         (tl.int64, tl.int32), (tl.float32, tl.complex64), (tl.float32, tl.float16)]


def _maker(dtype):
    return lambda *shape: tl.ones(*shape, dtype=dtype)


@pytest.mark.parametrize("pair", PAIRS, ids=lambda p: f"{p[0].name}-{p[1].name}")
@pytest.mark.parametrize("name", sorted(set(PRODUCTS) - {"operator"}))
def test_products_refuse_mixed_dtypes(name, pair):
    # in the words of the PyTorch kernel each product reaches: they name
    # both dtypes in one of PyTorch's spellings (torch's, its scalar type's
    # or its C++ type's), or neither ("both inputs should have same dtype")
    from torchlike._dtype_names import cpp_name, scalar_type_name
    with pytest.raises(RuntimeError, match="same dtype|expected scalar type|dtypes must be the "
                                           "same") as info:
        PRODUCTS[name](_maker(pair[0]), _maker(pair[1]))
    words = str(info.value)
    if words != "both inputs should have same dtype":
        for d in pair:
            assert any(n in words for n in (d.name, scalar_type_name(d), cpp_name(d))), words
    result = PRODUCTS[name](_maker(pair[0]), _maker(pair[0]))  # one dtype: fine
    assert result.dtype == pair[0]


@pytest.mark.parametrize("pair", PAIRS, ids=lambda p: f"{p[0].name}-{p[1].name}")
def test_matmul_operator_of_two_dtypes_promotes(pair):
    # the @ operator takes NumPy's meaning where PyTorch refuses (docs/numpy.md,
    # the ndarray surface): np.matmul's promoted result; one dtype is unchanged
    a, b = _maker(pair[0])(2, 3), _maker(pair[1])(3, 2)
    result = a @ b
    assert result.dtype == (a[:1, :1] * b[:1, :1]).dtype
    np.testing.assert_allclose(result.to(tl.complex128).cpu().numpy(), np.full((2, 2), 3.0))
    assert (a @ _maker(pair[0])(3, 2)).dtype == pair[0]


@pytest.mark.parametrize("name", ["outer", "addr", "kron"])
def test_elementwise_style_products_promote(name):
    # PyTorch's outer, addr and kron are elementwise products: they promote
    f32, f64 = _maker(tl.float32), _maker(tl.float64)
    result = {"outer": lambda: tl.outer(f32(3), f64(2)),
              "addr": lambda: tl.addr(f32(3, 2), f32(3), f64(2)),
              "kron": lambda: tl.kron(f32(2), f64(2))}[name]()
    assert result.dtype == tl.float64


@pytest.mark.parametrize("fn", ["matmul", "dot", "vdot", "inner", "tensordot", "einsum"])
def test_numpy_products_promote(fn):
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.arange(6, dtype=np.float64).reshape(3, 2) + 1j * (fn == "vdot")
    call = {"matmul": lambda m, x, y: m.matmul(x, y), "dot": lambda m, x, y: m.dot(x, y),
            "vdot": lambda m, x, y: m.vdot(x, y.T), "inner": lambda m, x, y: m.inner(x, y.T),
            "tensordot": lambda m, x, y: m.tensordot(x, y, 1),
            "einsum": lambda m, x, y: m.einsum("ij,jk->ik", x, y)}[fn]
    want = call(np, a, b)
    for got in (call(tnp, tl.tensor(a), tl.tensor(b)), call(np, tl.tensor(a), tl.tensor(b))):
        assert got.cpu().numpy().dtype == np.asarray(want).dtype
        np.testing.assert_allclose(got.cpu().numpy(), want)


# ---- bad arguments are named ---------------------------------------------------------------

def test_messages_name_the_bad_argument():
    x = tl.ones(3)
    cases = [
        (lambda: tnp.einsum(x, None, x), TypeError, "argument"),
        (lambda: tl.triu(None), TypeError, r"triu\(\): argument 'input' \(position 1\) must be "
                                           r"Tensor, not NoneType"),
        (lambda: tl.tril("a"), TypeError, "tril.*'input'.*not str"),
        (lambda: tl.triu(), TypeError, "missing required positional argument 'input'"),
        (lambda: tl.detach([1]), TypeError, "detach.*'input'.*not list"),
        (lambda: tl.linalg.tensorinv(0), TypeError, "argument 'A' must be Tensor, not int"),
        (lambda: tl.linalg.tensorsolve(tl.ones(2, 2), None), TypeError, "argument 'B'"),
        (lambda: tl.linalg.multi_dot(0), TypeError, "argument 'tensors'"),
        (lambda: tl.linalg.multi_dot([x, "a"]), TypeError, r"argument 'tensors\[1\]'"),
        (lambda: tl.cross(x, None), TypeError, "argument 'other'"),
        (lambda: tl.deg2rad(None), TypeError, "deg2rad.*'input'"),
        (lambda: tnp.linalg.qr(tl.ones(2, 2), "bad"), ValueError, "Unrecognized mode 'bad'"),
        (lambda: tnp.can_cast(x, None), TypeError, "argument 'to'"),
    ]
    for call, kind, message in cases:
        with pytest.raises(kind, match=message):
            call()


@pytest.mark.parametrize("ufunc", [np.frexp, np.modf, np.divmod])
def test_two_output_ufuncs_with_where_tensor(ufunc):
    # where= given as a tensor sent NumPy's fallback straight back to us (RecursionError)
    a = np.array([1.5, -2.25, 3.0])
    mask = np.array([True, False, True])
    args = (a,) if ufunc.nin == 1 else (a, np.full(3, 2.0))
    out_dtypes = [np.float64, np.int32 if ufunc is np.frexp else np.float64]
    want = ufunc(*args, where=mask, out=tuple(np.zeros(3, d) for d in out_dtypes))
    got = ufunc(*(tl.tensor(v) for v in args), where=tl.tensor(mask),
                out=tuple(tl.tensor(np.zeros(3, d)) for d in out_dtypes))
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g.cpu().numpy(), w)


_BAD_ARGUMENTS = [None, "abc", [1, [2]], object()]
_NOT_CALLED = {"set_default_dtype", "set_num_threads", "manual_seed", "seed", "set_printoptions",
               "load", "save", "set_default_device", "use_deterministic_algorithms",
               "set_grad_enabled", "compile", "set_rng_state", "set_flush_denormal",
               "get_rng_state", "initial_seed", "enable_grad", "no_grad", "inference_mode"}


def _public_functions():
    import inspect
    modules = {"torchlike": tl, "torchlike.linalg": tl.linalg, "torchlike.numpy": tnp,
               "torchlike.numpy.linalg": tnp.linalg}
    for mname, module in modules.items():
        names = getattr(module, "__all__", None) or [n for n in dir(module) if n[0] != "_"]
        for name in sorted(set(names) - _NOT_CALLED):
            f = getattr(module, name, None)
            # nn's functional ops re-exported at the top level are tested with nn
            if (getattr(f, "__module__", None) or "").startswith("torchlike.nn"):
                continue
            # NumPy's own functions run on tensors (torchlike.numpy keeps each one it
            # was asked for): theirs to fuzz, and which are present depends on test order
            if getattr(f, "__wrapped__", None) is getattr(np, name, object()):
                continue
            if callable(f) and not inspect.isclass(f) and not inspect.ismodule(f):
                yield f"{mname}.{name}", f


@pytest.mark.parametrize("position", [0, 1])
@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # the deprecated spellings say so
def test_fuzz_bad_arguments_raise_clear_errors(position, tmp_path, monkeypatch):
    """None, strings, nested lists and plain objects as each public function's first
    or second argument: a Python exception with a message, never an internal one."""
    monkeypatch.chdir(tmp_path)  # the savers take "abc" as a file name
    internal = (AttributeError, RecursionError, UnboundLocalError, NameError, KeyError,
                ZeroDivisionError, AssertionError, SystemError)
    found = []
    for name, f in _public_functions():
        for bad in _BAD_ARGUMENTS:
            args = [tl.ones(2, 3) for _ in range(position)] + [bad]
            try:
                f(*args)
            except Exception as e:  # noqa: BLE001  (what kind is the point)
                text = str(e)
                if isinstance(e, internal) or not text.strip() or "descriptor '" in text:
                    found.append(f"{name}({'x, ' * position}{type(bad).__name__}): "
                                 f"{type(e).__name__}: {text[:80]}")
    assert not found, "\n".join(found)


def test_quantile_q_none_or_complex_is_a_type_error():
    # found by UBSan: a None or complex q was read as a bool out of an unset scalar
    import pytest
    import torchlike
    x = torchlike.tensor([1.0, 2.0, 3.0])
    for q in (None, 1j):
        with pytest.raises(TypeError, match="argument 'q' must be a real number"):
            torchlike.quantile(x, q)
    assert torchlike.quantile(x, 0.5).item() == 2.0


@pytest.mark.parametrize("call", [
    lambda: tl.full((2,), None), lambda: tl.full_like(tl.ones(2), None),
    lambda: tl.ones(2).new_full((2,), None), lambda: tl.ones(2).fill_(None),
    lambda: tl._C._fused_dropout(tl.ones(2), None),
    lambda: tl._C.native_batch_norm(tl.ones(2, 2), None, None, None, None, True, None, 1e-5),
], ids=["full", "full_like", "new_full", "fill_", "dropout_p", "batch_norm_momentum"])
def test_none_for_a_number_is_a_type_error(call):
    # found by UBSan: full_like(x, None) filled x's shape from an unset scalar
    with pytest.raises(TypeError, match="NoneType"):
        call()


# ---- scripts/fuzz_api.py findings ---------------------------------------------------------

@pytest.mark.parametrize("pool", ["adaptive_avg_pool", "adaptive_max_pool"])
@pytest.mark.parametrize("n", [1, 2, 3])
def test_adaptive_pool_huge_output_size_raises_at_once(pool, n):
    # the longest-range search looped over every output position (2**62 of them)
    # before any allocation could fail
    f = getattr(tl.nn.functional, f"{pool}{n}d")
    x = tl.ones((1, 2) + (3,) * n)
    start = time.perf_counter()
    with pytest.raises(RuntimeError, match="Storage size calculation overflowed"):
        f(x, (2 ** 62,) * n)
    with pytest.raises((MemoryError, RuntimeError)):
        f(x, (2 ** 55,) + (1,) * (n - 1))  # representable, not allocatable
    assert time.perf_counter() - start < 5


@pytest.mark.parametrize("size", [1, 2, 3, 4, 5, 7, 8, 9, 13])
@pytest.mark.parametrize("out", [1, 2, 3, 4, 5, 6, 8, 11, 16])
def test_adaptive_pool_ranges_match_numpy(size, out):
    # the window table's width now comes from a closed form: every range must
    # still be PyTorch's [floor(j*in/out), ceil((j+1)*in/out))
    a = np.random.default_rng(size * 31 + out).standard_normal((2, 3, size))
    x = tl.tensor(a)
    ranges = [(j * size // out, -(-(j + 1) * size // out)) for j in range(out)]
    mean = np.stack([a[..., s:e].mean(-1) for s, e in ranges], -1)
    peak = np.stack([a[..., s:e].max(-1) for s, e in ranges], -1)
    np.testing.assert_allclose(tl.nn.functional.adaptive_avg_pool1d(x, out).cpu().numpy(), mean,
                               rtol=1e-12)
    np.testing.assert_array_equal(tl.nn.functional.adaptive_max_pool1d(x, out).cpu().numpy(), peak)


@pytest.mark.parametrize("leaf", [True, False])
@pytest.mark.parametrize("change", ["size", "type"])
def test_tensor_hook_may_not_change_the_gradient_shape_or_dtype(leaf, change):
    # a leaf's .grad took the hook's shape ([2] for a [3] tensor), a dtype change
    # passed silently, and a node failed later naming neither hook nor shapes
    x = tl.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x if leaf else x * 2

    def bad_hook(g):
        return tl.zeros(2) if change == "size" else g.to(tl.float64)
    y.register_hook(bad_hook)
    # PyTorch's words: the size change without the sizes
    words = ("size of value" if change == "size"
             else "type of value (was torchlike.FloatTensor got torchlike.DoubleTensor)")
    with pytest.raises(RuntimeError, match=r"^hook 'bad_hook' has changed the " + re.escape(words) + "$"):
        (y * 2).sum().backward()
    assert x.grad is None


def test_tensor_hook_replacing_the_gradient_still_works():
    x = tl.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 2
    y.register_hook(lambda g: g * 10)
    x.register_hook(lambda g: g + 1)
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.cpu().numpy(), [21.0, 21.0, 21.0])


@pytest.mark.parametrize("name", ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"])
@pytest.mark.parametrize("n", [0, -1, -5])
def test_fft_length_must_be_positive(name, n):
    # n=-1 was taken as "the input's length" (only s=-1 of the n-d transforms means that)
    x = tl.ones(4, dtype=tl.complex64 if name in ("ifft", "irfft", "hfft") else tl.float32)
    with pytest.raises(RuntimeError, match=rf"invalid number of data points \({n}\)"):
        getattr(tl.fft, name)(x, n=n)


def test_fft_nd_minus_one_keeps_the_input_length():
    a = np.arange(12.0).reshape(3, 4)
    got = tl.fft.fft2(tl.tensor(a), s=(-1, 2)).cpu().numpy()
    np.testing.assert_allclose(got, np.fft.fft2(a, s=(3, 2)), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("call", [
    lambda F: F.conv1d(tl.ones(1, 1, 4), tl.ones(1, 1, 3), padding=2 ** 62),
    lambda F: F.conv1d(tl.ones(1, 1, 4), tl.ones(1, 1, 3), dilation=2 ** 62),
    lambda F: F.conv2d(tl.ones(1, 1, 4, 4), tl.ones(1, 1, 3, 3), padding=(0, 2 ** 62)),
    lambda F: F.conv_transpose1d(tl.ones(1, 1, 4), tl.ones(1, 1, 2), stride=2 ** 62),
    lambda F: F.conv_transpose1d(tl.ones(1, 1, 4), tl.ones(1, 1, 2), stride=2 ** 62,
                                 output_padding=2 ** 62 - 1),
    lambda F: F.conv_transpose1d(tl.ones(1, 1, 4), tl.ones(1, 1, 3), dilation=2 ** 62),
], ids=["pad", "dilation", "pad2d", "t-stride", "t-output_padding", "t-dilation"])
def test_conv_sizes_that_overflow_int64_raise(call):
    # the output-size arithmetic wrapped: a transposed conv with stride 2**62 and
    # output_padding 2**62-1 returned a 1-element tensor
    with pytest.raises(RuntimeError, match="convolution sizes overflow int64"):
        call(tl.nn.functional)


def test_conv_large_stride_still_gives_one_window():
    a = np.arange(4.0).reshape(1, 1, 4)
    got = tl.nn.functional.conv1d(tl.tensor(a), tl.ones(1, 1, 2, dtype=tl.float64), stride=2 ** 62)
    np.testing.assert_array_equal(got.cpu().numpy(), [[[1.0]]])


@pytest.mark.parametrize("call, exc, words", [
    (lambda F: F.pixel_shuffle(tl.ones(1, 4, 2, 2), 0), RuntimeError,
     "pixel_shuffle expects a positive upscale_factor, but got 0"),
    (lambda F: F.pixel_unshuffle(tl.ones(1, 4, 2, 2), -1), RuntimeError,
     "pixel_unshuffle expects a positive downscale_factor, but got -1"),
    (lambda F: F.pixel_shuffle(tl.ones(4, 2), 2), RuntimeError,
     "at least 3 dimensions, but got input with 2 dimension(s)"),
    (lambda F: F.pixel_shuffle(tl.ones(1, 4, 2, 2), 1.5), TypeError, "must be int, not float"),
    (lambda F: F.channel_shuffle(tl.ones(1, 4, 2, 2), 0), RuntimeError,
     "must be positive. Value of groups:0"),
    (lambda F: F.channel_shuffle(tl.ones(1, 4, 2, 2), 3), RuntimeError,
     "Got 4 channels and 3 groups"),
    (lambda F: F.channel_shuffle(tl.ones(4), 2), RuntimeError, "input with > 2 dims"),
], ids=["shuffle0", "unshuffle-1", "rank", "float", "groups0", "groups3", "1d"])
def test_shuffle_factors_are_checked(call, exc, words):
    # a 0 factor was a bare ZeroDivisionError, a 2-d input an unpacking error
    with pytest.raises(exc, match=re.escape(words)):
        call(tl.nn.functional)


def test_pixel_shuffle_takes_int_like_factors():
    a = np.arange(16.0).reshape(1, 4, 2, 2)
    want = a.reshape(1, 1, 2, 2, 2, 2).transpose(0, 1, 4, 2, 5, 3).reshape(1, 1, 4, 4)
    for r in (2, np.int64(2), tl.tensor(2)):
        np.testing.assert_array_equal(tl.nn.functional.pixel_shuffle(tl.tensor(a), r).cpu().numpy(), want)


# ---- int64 overflow in sizes and strides (UBSan under scripts/fuzz_api.py) ----------------

@pytest.mark.parametrize("shape", [(2, 3), (3,), (0,), (2, 2, 2)])
def test_slice_with_a_huge_step_takes_the_first_element(shape):
    # stride * step overflowed (and again as NumPy byte strides); x[::2**62] is x[:1]
    a = np.arange(int(np.prod(shape)), dtype=np.complex128).reshape(shape)
    x = tl.tensor(a)
    np.testing.assert_array_equal(x[::2 ** 62].cpu().numpy(), a[::2 ** 62])
    np.testing.assert_array_equal(x[::-2 ** 62].cpu().numpy(), a[::-2 ** 62])
    y = x.clone()
    y[::2 ** 62] = 7
    b = a.copy()
    b[::2 ** 62] = 7
    np.testing.assert_array_equal(y.cpu().numpy(), b)


@pytest.mark.parametrize("make", [
    # a row-major stride past int64: PyTorch's RuntimeError ("Stride calculation
    # overflowed"), as torchlike.SizeError (also NumPy's ValueError)
    lambda: tl.empty(0, 2 ** 62, 3),
    lambda: tl.zeros(1, 0, 2 ** 40, 2 ** 40),
    lambda: tl.ones(0).reshape(0, 2 ** 62, 3),
    lambda: tl.nn.functional.pixel_shuffle(tl.ones(1, 0, 3, 3), 2 ** 56 + 1),
], ids=["empty", "zeros", "reshape", "pixel_shuffle"])
def test_empty_shapes_whose_strides_overflow_raise(make):
    with pytest.raises(tl.SizeError, match="Stride calculation overflowed"):
        make()


def test_empty_shapes_with_large_sizes_still_work():
    x = tl.empty(2 ** 40, 0, 2 ** 20)
    assert x.shape == (2 ** 40, 0, 2 ** 20) and x.stride() == (2 ** 20, 2 ** 20, 1)
    # strides that fit int64 as elements, though not as bytes, as PyTorch's
    y = tl.empty(1, 0, 2 ** 62)
    assert y.stride() == (2 ** 62, 2 ** 62, 1) and y.untyped_storage().nbytes() == 0


@pytest.mark.parametrize("call", [
    lambda F: F.fold(tl.ones(1, 2, 3), (0, 0), 2 ** 62),
    lambda F: F.unfold(tl.ones(1, 2, 3, 3), (2, 2), padding=2 ** 31),
    lambda F: F.unfold(tl.ones(1, 1, 3, 3), (2 ** 32, 2 ** 32), padding=2 ** 31),
], ids=["fold-kernel", "unfold-blocks", "unfold-kernel"])
def test_fold_unfold_products_that_overflow_raise(call):
    with pytest.raises(RuntimeError, match="overflow int64"):
        call(tl.nn.functional)


def test_local_response_norm_with_a_window_wider_than_int64_arithmetic():
    a = np.random.default_rng(0).standard_normal((2, 3, 2, 2))
    x = tl.tensor(a)
    F = tl.nn.functional
    # the worker grain's size * rows overflowed; a window past every channel sums them all
    want = a / (1.0 + 1e-4 * (a ** 2).sum(1, keepdims=True) / (2 ** 62 + 4)) ** 0.75
    np.testing.assert_allclose(F.local_response_norm(x, 2 ** 62 + 4).cpu().numpy(), want, rtol=1e-12)


def test_matrix_power_of_int64_min():
    # -n overflowed for n = -2**63
    got = tl.linalg.matrix_power(tl.eye(2, dtype=tl.float64) * 2, -2 ** 63)
    np.testing.assert_array_equal(got.cpu().numpy(), np.zeros((2, 2)))
    assert tl.linalg.matrix_power(tl.zeros(0, 0), -2 ** 63).shape == (0, 0)
    with pytest.raises(RuntimeError, match="singular"):
        tl.linalg.matrix_power(tl.zeros(2, 2), -2 ** 63)


def test_chunk_with_int64_max_chunks():
    # size + chunks - 1 overflowed
    a = np.arange(4.0).reshape(4, 1)
    got = tl.tensor(a).chunk(2 ** 63 - 1)
    assert [c.cpu().numpy().tolist() for c in got] == [[[v]] for v in a.ravel()]


@pytest.mark.parametrize("pool", ["max_pool1d", "avg_pool1d"])
def test_pool_with_a_kernel_far_wider_than_the_input(pool):
    # kernel 2**31 with ceil_mode gives one window: the tap table held 2**31
    # entries per output and the run took minutes
    a = np.arange(8.0).reshape(1, 2, 4)
    start = time.perf_counter()
    got = getattr(tl.nn.functional, pool)(tl.tensor(a), 2 ** 31, ceil_mode=True)
    assert time.perf_counter() - start < 2
    want = a.max(-1, keepdims=True) if pool == "max_pool1d" else a.sum(-1, keepdims=True) / 4
    np.testing.assert_array_equal(got.cpu().numpy(), want)


@pytest.mark.parametrize("kernel, dilation, padding", [(3, 2, 1), (4, 3, 2), (5, 1, 2), (2, 5, 0)])
def test_max_pool_dilated_windows_match_numpy(kernel, dilation, padding):
    # windows that stick out of the input keep their taps in place (packing is only
    # for windows wider than the input)
    a = np.random.default_rng(kernel).standard_normal((1, 2, 9))
    got = tl.nn.functional.max_pool1d(tl.tensor(a), kernel, 1, padding, dilation, ceil_mode=True,
                                      return_indices=True)
    padded = np.pad(a, ((0, 0), (0, 0), (padding, padding)), constant_values=-np.inf)
    span = dilation * (kernel - 1) + 1
    n = padded.shape[-1] - span + 1
    windows = np.stack([padded[..., j:j + span:dilation] for j in range(n)], -2)
    np.testing.assert_array_equal(got[0].cpu().numpy(), windows.max(-1))
    np.testing.assert_array_equal(got[1].cpu().numpy(),
                                  windows.argmax(-1) * dilation + np.arange(n) - padding)


def test_pool_sizes_that_overflow_int64_raise():
    with pytest.raises(RuntimeError, match="overflow the output size's arithmetic"):
        tl.nn.functional.max_pool1d(tl.ones(1, 1, 4), 3, dilation=2 ** 62)


# ---- Python ints past int64 in nested lists -----------------------------------------------

@pytest.mark.parametrize("data, dtype", [
    ([2 ** 63], tl.float64), ([2 ** 70, -1], tl.float64), ([2 ** 64], tl.complex64),
    ([[1.5], [2 ** 70]], None), ([1j, 2 ** 70], None),
])
def test_big_python_ints_become_floats_where_a_float_is_wanted(data, dtype):
    # NumPy held them as uint64 or objects, refused as "can't convert NumPy dtype
    # uint64" (no NumPy array was given) or "its elements are not numbers"; PyTorch
    # reads them as doubles
    got = tl.tensor(data, dtype=dtype)
    want = np.asarray(data, dtype=complex if (dtype and dtype.is_complex) or 1j in
                      np.ravel(data).tolist() else float)
    assert got.dtype == (dtype or (tl.complex64 if want.dtype.kind == "c" else tl.float32))
    np.testing.assert_allclose(got.cpu().numpy(), want, rtol=1e-6)


@pytest.mark.parametrize("data, dtype", [
    ([2 ** 63], None), ([[1], [2 ** 70]], None), ([2 ** 63], tl.int64), ([1, -2 ** 64], tl.int32),
])
def test_big_python_ints_for_an_integer_tensor_name_the_int(data, dtype):
    bad = max(np.ravel(np.array(data, dtype=object)).tolist(), key=abs)
    with pytest.raises(OverflowError, match=f"Python integer {bad} is out of bounds for int64"):
        tl.tensor(data, dtype=dtype)


def test_int64_limits_still_convert_exactly():
    assert tl.tensor([-2 ** 63, 2 ** 63 - 1]).tolist() == [-2 ** 63, 2 ** 63 - 1]


@pytest.mark.parametrize("data, dtype", [
    ([True, 2 ** 63 - 1, -1.38], tl.int64), ([[2 ** 62 + 1], [1.5]], tl.int64),
    ([-2 ** 63, 0.5, 2 ** 53 + 1], tl.int64), ([(2 ** 53 + 1, 7.9)], tl.int64),
])
def test_big_ints_beside_floats_convert_each_value_to_an_integer_dtype(data, dtype):
    # float64 (NumPy's inference) rounds the int; NumPy's and PyTorch's
    # constructors convert each value: the int exact, the float truncated
    want = np.asarray(data, dtype=np.int64)
    for convert in (tl.tensor, tnp.asarray):
        got = convert(data, dtype=dtype)
        assert got.dtype == tl.int64 and got.tolist() == want.tolist()


def test_big_ints_beside_floats_still_must_fit_a_narrower_dtype():
    with pytest.raises(RuntimeError, match="value cannot be converted to type int32"):
        tl.tensor([2 ** 62 + 1, 1.5], dtype=tl.int32)


# ---- a Python number written into a dtype that cannot hold it -----------------------------

U8 = tl.uint8
CANNOT = [
    (lambda: tl.ones(2, dtype=tl.int64).fill_(math.nan), "int64_t"),
    (lambda: tl.ones(2, dtype=tl.int32).fill_(math.inf), "int"),
    (lambda: tl.ones(2, dtype=tl.int64).fill_(1e20), "int64_t"),
    (lambda: tl.ones(2, dtype=U8).fill_(300), "uint8_t"),
    (lambda: tl.ones(2, dtype=U8).fill_(-256), "uint8_t"),
    (lambda: tl.ones(2, dtype=U8).fill_(-1.0), "uint8_t"),
    (lambda: tl.ones(2, dtype=tl.float32).fill_(1e300), "float"),
    (lambda: tl.ones(2, dtype=tl.float16).fill_(100000), "c10::Half"),
    (lambda: tl.ones(2).fill_(1 + 2j), "float"),
    (lambda: tl.full((2,), math.nan, dtype=tl.int64), "int64_t"),
    (lambda: tl.full((2,), 300, dtype=U8), "uint8_t"),
    (lambda: tl.full_like(tl.ones(2, dtype=tl.int8), 1000), "int8_t"),
    (lambda: tl.ones(2, dtype=tl.int64).masked_fill(tl.tensor([True, False]), math.nan), "int64_t"),
    (lambda: tl.ones(2, dtype=tl.int64).index_fill(0, tl.tensor([0]), math.nan), "int64_t"),
    (lambda: tl.ones(2, dtype=U8).__setitem__(0, 256), "uint8_t"),
    (lambda: tl.ones(3, dtype=U8).__setitem__(tl.tensor([0]), 300), "uint8_t"),
    (lambda: tl.ones(3, dtype=U8).__setitem__(tl.tensor([True, False, True]), 300), "uint8_t"),
    (lambda: tl.ones(3, dtype=U8).__setitem__([0, 1], 1e10), "uint8_t"),
    # the constructor says "type uint8" where fill_ says "uint8_t", and checks lists too
    (lambda: tl.tensor(300, dtype=U8), "uint8"),
    (lambda: tl.tensor([300], dtype=U8), "uint8"),
    (lambda: tl.tensor([[1, 2 ** 40]], dtype=tl.int32), "int32"),
    (lambda: tl.tensor([1.5, math.nan], dtype=tl.int64), "int64"),
    (lambda: tl.tensor([2.5, -300.0], dtype=tl.int8), "int8"),
    (lambda: tl.tensor(math.nan, dtype=tl.int32), "int32"),
]


def test_advanced_setitem_takes_what_fits():
    x = tl.zeros(3, dtype=U8)
    x[[0, 1]] = 7
    x[tl.tensor([2])] = -1  # -255..255 wrap into uint8, as PyTorch
    assert x.tolist() == [7, 7, 255]


def test_constructor_takes_what_pytorch_takes():
    """torch.tensor: floats past their range are inf, an int into uint8 may
    wrap from -255, bool takes anything; complex into a real dtype is a
    TypeError (PyTorch 2.15's outputs, recorded)."""
    assert tl.tensor(1e40, dtype=tl.float32).item() == math.inf
    assert tl.tensor([1e40], dtype=tl.float32).tolist() == [math.inf]
    assert tl.tensor(70000, dtype=tl.float16).item() == math.inf
    assert tl.tensor(-1, dtype=U8).item() == 255
    assert tl.tensor([-1, 255], dtype=U8).tolist() == [255, 255]
    assert tl.tensor([True, 2], dtype=tl.bool).tolist() == [True, True]
    with pytest.raises(TypeError, match="must be real number, not complex"):
        tl.tensor(1.5 + 2j, dtype=tl.float32)
    with pytest.raises(TypeError, match="'complex' object cannot be interpreted as an integer"):
        tl.tensor([1 + 1j], dtype=tl.int64)


@pytest.mark.parametrize("call, ctype", CANNOT, ids=[str(i) for i in range(len(CANNOT))])
def test_scalar_that_does_not_fit_raises_as_pytorch(call, ctype):
    # fill_(300) on uint8 gave 44, fill_(nan) on int64 gave -2**63 (C's undefined
    # float-to-int conversion); recorded against PyTorch 2.15's messages
    with pytest.raises(RuntimeError,
                       match=re.escape(f"value cannot be converted to type {ctype} without overflow")):
        call()


@pytest.mark.parametrize("dtype, value, want", [
    (U8, -1, 255), (U8, -255, 1), (U8, 255.5, 255), (U8, True, 1), (tl.int64, 2.5, 2),
    (tl.bool, 2.5, True), (tl.float16, math.nan, math.nan), (tl.float32, -math.inf, -math.inf),
    (tl.int64, 1 + 0j, 1), (tl.int64, -2 ** 63, -2 ** 63), (tl.float16, 65504, 65504.0),
])
def test_scalar_that_fits_is_written_as_pytorch_writes_it(dtype, value, want):
    got = tl.ones(2, dtype=dtype).fill_(value).tolist()
    assert all(g == want or (g != g and want != want) for g in got), got


@pytest.mark.parametrize("size", [0, 1, 4])
def test_split_with_int64_max_split_size(size):
    # size + split_size - 1 overflowed
    a = np.arange(size * 2.0).reshape(size, 2)
    got = tl.tensor(a).split(2 ** 63 - 1)
    assert len(got) == 1
    np.testing.assert_array_equal(got[0].cpu().numpy(), a)


def test_pad_sequence_of_nothing_says_so():
    # max() of an empty generator raised "max() arg is an empty sequence"
    with pytest.raises(RuntimeError, match="received an empty list of sequences"):
        tl.nn.utils.rnn.pad_sequence([])


def test_fuzz_api_smoke():
    # a short deterministic run of scripts/fuzz_api.py (the full fuzzer runs by hand,
    # ideally under the sanitized build): every area, one child process
    import subprocess
    import sys
    r = subprocess.run([sys.executable, str(ROOT / "scripts/fuzz_api.py"), "--runs", "1",
                        "--seed", "20261129", "--calls", "80", "--per-call", "30"],
                       capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-2000:]
    assert "1 child runs, 0 problems" in r.stdout


# ---- fuzz round 12: lists written into tensors, out= of the namespace's own functions ------

@pytest.mark.parametrize("data", [[2 ** 63, 1], [1, -2 ** 63 - 1], [[2 ** 64 - 1], [0]]])
@pytest.mark.parametrize("dtype", [None, tl.int64, tl.int32])
def test_big_python_ints_beside_small_ones_name_the_int(data, dtype):
    # NumPy reads ints on both sides of int64's range as float64: tensor([2**63, 1])
    # was float32 while tensor([2**63]) raised
    bad = max(np.ravel(np.array(data, dtype=object)).tolist(), key=abs)
    with pytest.raises(OverflowError, match=f"Python integer {bad} is out of bounds for int64"):
        tl.tensor(data, dtype=dtype)


@pytest.mark.parametrize("dtype", [tl.uint8, tl.int8, tl.int32, tl.int64])
@pytest.mark.parametrize("index", [slice(0, 2), [0, 2], "mask"])
def test_big_python_ints_written_into_an_integer_tensor_raise(dtype, index):
    # t[:2] = [2**63, 1] of int64 stored INT64_MIN (uint8: 0), where 300 into
    # uint8 raises; the tensor is left as it was
    t = tl.zeros(3, dtype=dtype)
    index = tl.tensor([True, False, True]) if index == "mask" else index
    with pytest.raises(OverflowError, match="Python integer 9223372036854775808 is out of bounds"):
        t[index] = [2 ** 63, 1]
    assert t.tolist() == [0, 0, 0]


@pytest.mark.parametrize("dtype, want", [
    (tl.uint64, [2 ** 63, 1, 0]), (tl.float64, [2.0 ** 63, 1.0, 0.0]),
    (tl.complex128, [2.0 ** 63, 1.0, 0.0]),
])
def test_big_python_ints_written_into_a_tensor_that_holds_them(dtype, want):
    # the target decides how they are read: uint64 exactly (it raised), floats
    # as doubles
    for value in ([2 ** 63, 1], [2 ** 63, 1.0]):
        t = tl.zeros(3, dtype=dtype)
        t[:2] = value
        assert t.tolist() == want
    t = tl.zeros(2, dtype=tl.uint64)
    t[[1]] = [2 ** 64 - 1]
    assert t.tolist() == [0, 2 ** 64 - 1]


@pytest.mark.parametrize("dtype, value", [
    (tl.uint8, [300, 1.5]), (tl.uint8, [[1.5], [300]]), (tl.int32, [2 ** 31, 0.5]),
    (tl.int8, (-2.7, 2 ** 63 - 1)), (tl.int64, [2 ** 63, 0.5]),
])
def test_python_ints_beside_floats_written_into_an_integer_tensor_must_fit(dtype, value):
    # beside a float the list was float64, unchecked: [300, 1.5] into uint8 stored 44
    t = tl.zeros(2, 1, dtype=dtype) if isinstance(value[0], list) else tl.zeros(2, dtype=dtype)
    with pytest.raises((RuntimeError, OverflowError), match="overflow|out of bounds"):
        t[:] = value
    assert not t.any()


@pytest.mark.parametrize("dtype", [tl.int64, tl.uint64])
@pytest.mark.parametrize("index", [slice(0, 2), [0, 1], "mask"])
def test_large_python_ints_beside_floats_are_written_exactly(dtype, index):
    # the list was float64, which rounds 2**63 - 1 (written as INT64_MIN into
    # int64) and 2**53 + 1; each value is converted as the constructor converts it
    t = tl.zeros(3, dtype=dtype)
    index = tl.tensor([True, True, False]) if index == "mask" else index
    t[index] = [2 ** 63 - 1, 0.5]
    assert t.tolist() == [2 ** 63 - 1, 0, 0]
    t[index] = (2.9, 2 ** 53 + 1)
    assert t.tolist() == [2, 2 ** 53 + 1, 0]
    assert tl.tensor([2 ** 53 + 1, 0.5], dtype=dtype).tolist() == [2 ** 53 + 1, 0]


@pytest.mark.parametrize("dtype, value, want", [
    (tl.uint8, [-1, 2.5], [255, 2]), (tl.uint16, [-129, True], [65407, 1]),
    (tl.int32, [-129, 0.5], [-129, 0]),
])
def test_python_ints_beside_floats_that_fit_are_written_as_pytorch(dtype, value, want):
    # PyTorch's rule: an unsigned dtype takes -max..max, the negatives wrapping
    t = tl.zeros(2, dtype=dtype)
    t[:] = value
    assert t.tolist() == want


def _host(x):
    """An ndarray of x's values, from a device tensor too."""
    return x.cpu().numpy() if isinstance(x, tl.Tensor) else np.asarray(x)


# an ndarray out= is host memory, which a device tensor's result cannot be written into
NDARRAY_OUT = ["tensor", pytest.param("ndarray", marks=pytest.mark.host_only)]


def _numpy_out(shape, dtype, kind):
    base = np.full(shape, 7, dtype=dtype)
    return base if kind == "ndarray" else tl.tensor(base)


@pytest.mark.parametrize("kind", NDARRAY_OUT)
@pytest.mark.parametrize("name, args", [
    ("sign", [np.array([-2.5, 0.0, 3.0])]),
    ("fabs", [np.array([-2.5, 0.0, 3.0])]),
    ("rint", [np.array([-2.5, 0.5, 3.7])]),
    ("spacing", [np.array([1, 2, 3])]),
    ("nextafter", [np.array([1.0, 2.0, 3.0]), np.array([0.0, 5.0, 3.0])]),
    ("heaviside", [np.array([-1.0, 0.0, 2.0]), np.array(0.5)]),
    ("lcm", [np.array([4, 6, 9]), np.array([6, 4, 6])]),
])
@pytest.mark.parametrize("shape", [(3,), (2, 3)])
def test_namespace_functions_write_out_as_numpy(name, args, kind, shape):
    # these are torchlike's own functions, not the _unary/_binary ops: a larger
    # out= raised the op's shape error, an ndarray out= "argument 'out' must be
    # Tensor" (heaviside: an AttributeError), lcm's out= recursed without end,
    # spacing of ints with out= computed in float32
    want = getattr(np, name)(*args)
    np_out = np.full(shape, 7, dtype=want.dtype)
    getattr(np, name)(*args, out=np_out)
    out = _numpy_out(shape, want.dtype, kind)
    got = getattr(tnp, name)(*[tl.tensor(a) for a in args], out=out)
    assert got is out
    got = _host(got)
    assert got.dtype == np_out.dtype
    np.testing.assert_array_equal(got, np_out)


@pytest.mark.parametrize("kind", NDARRAY_OUT)
def test_namespace_function_out_with_where_keeps_the_rest(kind):
    x = np.array([[-2.0, 0.0, 3.0]])
    mask = np.array([True, False, True])
    np_out = np.full((2, 3), 7.0)
    np.sign(x, out=np_out, where=mask)
    out = _numpy_out((2, 3), np.float64, kind)
    tnp.sign(tl.tensor(x), out=out, where=tl.tensor(mask))
    np.testing.assert_array_equal(_host(out), np_out)


@pytest.mark.parametrize("name", ["floor_divide", "heaviside", "sign"])
def test_out_smaller_than_the_broadcast_raises_numpys_error(name):
    # floor_divide and heaviside wrote a (1, 3) result into a (3,) out
    args = [np.array([[1.0, 2.0, 3.0]]), np.array([2.0, 2.0, 2.0])][:getattr(np, name).nin]
    with pytest.raises(ValueError, match="non-broadcastable output operand"):
        getattr(np, name)(*args, out=np.zeros(3))
    with pytest.raises(ValueError, match=r"non-broadcastable output operand with shape \(3,\)"):
        getattr(tnp, name)(*[tl.tensor(a) for a in args], out=tl.zeros(3, dtype=tl.float64))


@pytest.mark.host_only
def test_numpy_ufunc_surface_hands_back_the_ndarray_out():
    # bitwise_count (NumPy's own function) wrote into the ndarray but returned a tensor
    x = np.array([1, 3, 7, 255])
    out = np.zeros(4, np.uint8)
    assert tnp.bitwise_count(tl.tensor(x), out=out) is out
    np.testing.assert_array_equal(out, np.bitwise_count(x))


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_numpy_sign_with_a_complex_dtype_runs_the_complex_loop(dtype):
    # numpy.sign(int_tensor, dtype=complex64) picked the real op for the cast
    # (complex) operands: "sign() does not support dtype complex64"
    x = np.array([77, -3, 0])
    want = np.sign(x, dtype=dtype)
    got = np.sign(tl.tensor(x), dtype=dtype)
    assert _host(got).dtype == want.dtype
    np.testing.assert_array_equal(_host(got), want)


@pytest.mark.parametrize("dtype", [np.bool_, np.uint8, np.int16, np.int64])
@pytest.mark.parametrize("kw", [{"dtype": np.int64}, {"dtype": np.float32}, {"axis": 0},
                                {"axis": -1, "keepdims": True}])
def test_nanmean_of_integers_is_their_mean(dtype, kw):
    # NumPy's nanmean of data with no NaN is its mean, an integer dtype= included;
    # the op refused an integer dtype (NotImplementedError)
    x = np.array([[3, 1, 2], [1, 1, 0]], dtype=dtype)
    want = np.nanmean(x, **kw)
    got = _host(tnp.nanmean(tl.tensor(x), **kw))
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-6)


@pytest.mark.parametrize("a, b", [
    (np.array([24, 83, 47]), np.array([-32768, 63, -93], np.int16)),
    (np.array([24, 26, 23], np.uint32), np.array([-2 ** 31, -52, 22], np.int32)),
])
def test_lcm_of_two_integer_dtypes_takes_the_magnitude_in_the_wider_one(a, b):
    # |int16(-32768)| was taken in int16 (itself) before the cast: lcm came out negative
    want = np.lcm(a, b)
    got = tnp.lcm(tl.tensor(a), tl.tensor(b))
    assert _host(got).dtype == want.dtype
    np.testing.assert_array_equal(_host(got), want)


@pytest.mark.host_only
def test_larger_out_with_casting_keyword():
    # fabs(x, casting='safe', out=larger) passed casting= on to the op
    x = np.array([[False, False, True]])
    want = np.fabs(x, casting="safe", out=np.zeros((2, 3), np.float16))
    out = np.zeros((2, 3), np.float16)
    assert tnp.fabs(tl.tensor(x), casting="safe", out=out) is out
    np.testing.assert_array_equal(out, want)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("flip", [False, True])
def test_nextafter_casts_a_weak_python_number_as_numpy(flip):
    # full((), 1e300, dtype=float16) refused the number ("without overflow"); NumPy
    # casts it (to inf) and steps towards it
    x = np.array([-3.904296875, 1.724609375, -0.0, 65504.0], np.float16)
    with np.errstate(all="ignore"):
        args = (1e300, x) if flip else (x, 1e300)
        want = np.nextafter(*args)
        got = tnp.nextafter(*[tl.tensor(a) if isinstance(a, np.ndarray) else a for a in args])
    assert _host(got).dtype == want.dtype
    np.testing.assert_array_equal(_host(got), want)


@pytest.mark.parametrize("fn, shape", [(tl.nn.functional.fractional_max_pool2d, (1, 2, 5, 6)),
                                       (tl.nn.functional.fractional_max_pool3d, (1, 1, 5, 6, 7))])
@pytest.mark.parametrize("kernel, size", [(2, 2 ** 63 - 1), (2 ** 63 - 1, 2), (2 ** 62, 2 ** 62)])
def test_fractional_pool_sizes_whose_sum_overflows_raise_the_size_error(fn, shape, kernel, size):
    # output_size + kernel_size - 1 overflowed int64 (undefined; in practice it
    # wrapped negative and passed the check, and the tap tables then raised
    # MemoryError for 2**63 - 1 taps)
    # (in PyTorch's words, naming the first dim: height in 2-d, time in 3-d)
    what = "height" if len(shape) == 4 else "time"
    with pytest.raises(RuntimeError, match=rf"fractional_max_pool{len(shape) - 2}d(_out)?\(\): "
                                           rf"pool {what} {kernel} too large relative to input "
                                           rf"{what} 5$"):
        fn(tl.randn(*shape), kernel_size=kernel, output_size=size)


@pytest.mark.host_only
def test_out_written_by_numpy_loop_when_the_function_takes_no_dtype():
    # fabs(int_array, dtype='float32', out=ndarray): the write into out called
    # fabs with dtype=, which it does not take (a TypeError); NumPy's loop computes it
    x = np.array([-11, -83, -99, 86, 67])
    want = np.fabs(x, dtype="float32", out=np.zeros(5, np.float32))
    out = np.zeros(5, np.float32)
    assert tnp.fabs(tl.tensor(x), dtype="float32", out=out) is out
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("nd", [1, 2, 3])
@pytest.mark.parametrize("dtype", [tl.float64, tl.float32])
def test_conv_same_padding_wider_than_the_input(nd, dtype):
    # padding='same' with dilation 3 and a 9-tap kernel pads 12 each side of a
    # 1-wide input: taps left of every window gave im2col a start past the row
    # (an ASan report: memset of a negative size, and zeros written past the line)
    rng = np.random.default_rng(12353)
    x = rng.standard_normal((1, 2) + (1,) * nd)
    w = rng.standard_normal((3, 2) + (9,) * nd)
    conv = getattr(tl.nn.functional, f"conv{nd}d")
    got = conv(tl.tensor(x, dtype=dtype), tl.tensor(w, dtype=dtype), padding="same", dilation=3)
    # only the centre tap meets the input
    want = np.einsum("oc,c->o", w[(slice(None), slice(None)) + (4,) * nd], x.reshape(2))
    np.testing.assert_allclose(_host(got).reshape(3), want, rtol=1e-5 if dtype == tl.float32
                               else 1e-12, atol=1e-6)


_GUFUNC_OUT_CASES = [
    ("matmul", lambda m, a, b: m.matmul(a, b, out=None), (2, 3), (3, 2), (2, 2)),
    ("matmul", lambda m, a, b: m.matmul(a, b, out=None), (2, 3), (3, 2), (4, 2, 2)),
    ("matvec", lambda m, a, b: m.matvec(a, b, out=None), (2, 3), (3,), (4, 2)),
    ("vecmat", lambda m, a, b: m.vecmat(a, b, out=None), (2,), (2, 3), (3,)),
    ("vecdot", lambda m, a, b: m.vecdot(a, b, out=None), (2, 3), (3,), (4, 2)),
    ("outer", lambda m, a, b: m.outer(a, b, out=None), (2,), (3,), (2, 3)),
]


@pytest.mark.parametrize("name, _, sa, sb, so", _GUFUNC_OUT_CASES)
@pytest.mark.parametrize("out_dtype, casting, space", [
    (dtype, casting, space) for dtype, casting in [("int64", None), ("float32", "safe"),
                                                   ("int32", "same_kind"), ("float32", None),
                                                   ("int64", "unsafe")]
    for space in ["namespace", "numpy"] if (casting, space) != ("safe", "numpy")] + [
    # numpy's own matmul with casting='safe' is NumPy's loop on the host (a
    # device tensor is refused there, as any ufunc keyword torchlike does not run)
    pytest.param("float32", "safe", "numpy", marks=pytest.mark.host_only)])
def test_gufunc_out_casts_as_numpy(name, _, sa, sb, so, out_dtype, casting, space):
    # matmul/matvec/vecmat/vecdot/outer copied a float64 result into any out=,
    # an integer one too (NumPy's UFuncTypeError under same_kind); outer's
    # refusal names multiply, as NumPy's outer is multiply with out=
    rng = np.random.default_rng(13)
    a, b = rng.standard_normal(sa), rng.standard_normal(sb)
    kw = {} if casting is None or name == "outer" else {"casting": casting}
    fn = getattr(np, name)
    try:
        want = fn(a, b, out=np.zeros(so, out_dtype), **kw)
    except TypeError as e:
        want = e
    lib = tnp if space == "namespace" else np
    out = tl.zeros(so, dtype=getattr(tl, out_dtype))
    if isinstance(want, TypeError):
        with pytest.raises(TypeError, match=re.escape(str(want))):
            getattr(lib, name)(tl.tensor(a), tl.tensor(b), out=out, **kw)
        return
    assert getattr(lib, name)(tl.tensor(a), tl.tensor(b), out=out, **kw) is out
    np.testing.assert_allclose(_host(out), want, rtol=1e-6)


@pytest.mark.parametrize("shape, dtype", [((0, 2 ** 62), "float64"), ((2 ** 62, 0), "float64"),
                                          ((0, 2 ** 62, 4), "int8"), ((3, 0, 2 ** 61), "int32")])
@pytest.mark.parametrize("fn", ["zeros", "ones", "empty"])
def test_namespace_empty_shape_whose_other_sizes_overflow_bytes(shape, dtype, fn):
    # NumPy multiplies the sizes that are not 0 (its ValueError); the
    # namespace multiplied them all, got 0 and answered MemoryError
    with pytest.raises(ValueError) as want:
        getattr(np, fn)(shape, dtype)
    with pytest.raises(ValueError, match=re.escape(str(want.value))):
        getattr(tnp, fn)(shape, dtype)


@pytest.mark.parametrize("shape", [[2, True], [True], (np.bool_(False), 3), [3, np.bool_(True)]])
@pytest.mark.parametrize("call", [lambda m, s: m.zeros(s), lambda m, s: m.full(s, 1.0),
                                  lambda m, s: m.empty_like(m.ones(2), shape=s),
                                  lambda m, s: m.ones(s, dtype="int32")])
def test_namespace_shape_list_with_a_bool_is_refused(shape, call):
    # a list with a bool entry was read as ints (zeros([2, True]) made (2, 1))
    with pytest.raises(TypeError) as want:
        call(np, shape)
    with pytest.raises(TypeError, match=re.escape(str(want.value))):
        call(tnp, shape)


@pytest.mark.parametrize("sorter", [np.array([1, 2, 0, 4, 3], np.uint64), np.array([True] * 5),
                                    np.array([[1], [2], [0], [4], [3]]), np.array(1),
                                    np.array([1, 2, 0, 4, 3], np.float32), [True] * 5,
                                    np.zeros((5, 1), np.uint64), np.array([], np.uint64)])
@pytest.mark.parametrize("complex_data", [False, True])
def test_searchsorted_reads_its_sorter_as_numpy(sorter, complex_data):
    # a uint64 or bool sorter was cast to int64 and used, a 2-d one met the
    # op's RuntimeError and the complex path took any sorter that indexed
    x = np.array([3., 1., 2., 5., 4.]) + (0j if complex_data else 0)
    with pytest.raises((TypeError, ValueError)) as want:
        np.searchsorted(x, 2.5, sorter=sorter)
    given = tl.tensor(sorter) if isinstance(sorter, np.ndarray) else sorter
    with pytest.raises(want.type, match=re.escape(str(want.value))):
        tnp.searchsorted(tl.tensor(x), 2.5, sorter=given)


@pytest.mark.parametrize("call", [lambda m, x: m.sort(x, kind=b"stable"),
                                  lambda m, x: m.argsort(x, kind=b"Q"),
                                  lambda m, x: m.sort(m.partition(x, 2, kind=b"introselect")),
                                  lambda m, x: m.sort(m.argpartition(x, [0, 3], kind=b"introselect"))])
def test_sort_kind_given_as_bytes_is_read_as_numpy(call):
    # NumPy reads a bytes kind as its text; the namespace refused it as not a str
    x = np.array([3., 1., 2., 5., 4., -0.5])
    np.testing.assert_array_equal(_host(call(tnp, tl.tensor(x))), call(np, x))


_SCALAR_NAMES = {tl.bool: "Bool", tl.uint8: "Byte", tl.int8: "Char", tl.int16: "Short",
                 tl.int32: "Int", tl.int64: "Long", tl.complex64: "ComplexFloat",
                 tl.complex128: "ComplexDouble"}


@pytest.mark.parametrize("p_dtype", list(_SCALAR_NAMES))
@pytest.mark.parametrize("self_dtype", [tl.float32, tl.int64, tl.bool])
def test_bernoulli_inplace_refuses_probabilities_that_are_not_float(p_dtype, self_dtype):
    # x.bernoulli_(p) with an integer, bool or complex p drew from p cast to
    # float64; PyTorch 2.15's kernel refuses it in these words (whatever x's dtype)
    x = tl.zeros(4, dtype=self_dtype)
    p = tl.ones(4, dtype=p_dtype)
    with pytest.raises(NotImplementedError, match=re.escape(
            f"\"bernoulli_tensor_cpu_p_\" not implemented for '{_SCALAR_NAMES[p_dtype]}'")):
        x.bernoulli_(p)
    assert not x.bool().any()  # untouched
    x.bernoulli_(tl.ones(4, dtype=tl.float16))  # float probabilities still draw
    assert x.bool().all()


@pytest.mark.parametrize("dtype", [tl.bool, tl.uint8, tl.int32, tl.int64])
def test_orthogonal_init_of_an_integer_tensor_is_refused_as_pytorch(dtype):
    # orthogonal_ drew in float32 and copied truncated values (mostly zeros) into
    # an integer tensor; PyTorch 2.15 draws in the tensor's dtype and its
    # normal_ refuses (these words)
    w = tl.full((3, 4), 7, dtype=dtype)
    kept = w.clone()
    with pytest.raises(NotImplementedError, match=re.escape(
            f"\"normal_kernel_cpu\" not implemented for '{_SCALAR_NAMES[dtype]}'")):
        tl.nn.init.orthogonal_(w)
    assert bool((w == kept).all())


@pytest.mark.parametrize("value", [2 ** 64 - 1, 2 ** 63, -2 ** 63 - 1, 2 ** 64, 2 ** 63 - 1, -2 ** 63])
@pytest.mark.parametrize("call", [lambda m, v: m.full_like(m.zeros((), dtype=bool), v),
                                  lambda m, v: m.full_like(m.zeros((2, 3), dtype=bool), v,
                                                           order="F"),
                                  lambda m, v: m.full((2,), v, dtype=bool)])
def test_bool_fill_with_an_int_past_int64_is_numpy_overflow_error(value, call):
    # a bool array filled with a Python int past int64 was True (NumPy converts
    # the int through a C long and raises); full() then turned that OverflowError
    # into a MemoryError, as its message says "too large"
    try:
        want = call(np, value)
    except OverflowError as e:
        with pytest.raises(OverflowError, match=re.escape(str(e))):
            call(tnp, value)
        return
    got = call(tnp, value)
    assert _host(got).dtype == want.dtype
    np.testing.assert_array_equal(_host(got), want)
