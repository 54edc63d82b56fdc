"""torchlike.fft on devices (src/gpu/fft: cuFFT on CUDA) against NumPy's
pocketfft and PyTorch's answers (tests/golden/fft, the cases of
tests/fft_cases.py).

Device-parametrised as tests/test_cuda_kernels.py: "cpu" runs everywhere and
checks the tests themselves; "cuda" runs where a GPU is present and skips with
"requires a CUDA device" elsewhere; "emulated" (the fake device whose FFT
executor is pocketfft on its host bytes, in a process of its own) runs the op
layer's device path: dims moved last, work copies, passes of at most three
dims, c2r's self-conjugate entries cleaned, and the autograd formulas on a
device."""
import json
import os

import numpy as np
import pytest

import torchlike as tl
from torchlike import _C
from torchlike.autograd import gradcheck, gradgradcheck
from fft_cases import CASES
from oracle import cuda_test_devices, device_array, host_array, run_emulated

DEVICES, EMULATED = cuda_test_devices()

GOLDEN = os.path.join(os.path.dirname(__file__), "golden", "fft")
with open(os.path.join(GOLDEN, "torch_fft.json")) as f:
    META = json.load(f)
DATA = np.load(os.path.join(GOLDEN, "torch_fft.npz"))
INPUTS = {"real64": DATA["input_real"], "real32": DATA["input_real"].astype(np.float32),
          "complex128": DATA["input_cplx"], "int64": DATA["input_ints"]}
TOL = {np.float32: 2e-5, np.complex64: 2e-5, np.float64: 1e-11, np.complex128: 1e-11}


on, host = device_array, host_array


def close(t, want, device):
    assert t.device.type == ("cpu" if device == "cpu" else tl.device(device).type)
    got = host(t)
    assert got.shape == want.shape, (got.shape, want.shape)
    tol = TOL.get(got.dtype.type, 0.0)  # fftshift keeps integers: exact
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * max(1.0, np.abs(want).max(
        initial=0.0)))


def rand(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(dtype)


# ---- PyTorch's answers: every transform, norm and size rule ----------------------------

@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("inp", sorted(INPUTS))
def test_matches_pytorch(device, case, inp):
    got = CASES[case](tl.fft, on(device, INPUTS[inp]))
    want = META[f"{case}__{inp}"]
    assert got.dtype.name == want["dtype"]
    assert list(got.shape) == want["shape"]
    close(got, DATA[f"{case}__{inp}"].astype(got.dtype.name), device)


# ---- NumPy's answers: layouts, many dims, dtypes ----------------------------------------

C2C = {"fftn": np.fft.fftn, "ifftn": np.fft.ifftn}
NDIM_CASES = [
    ((3, 4, 5, 6), None),           # four dims: a pass of three, then one
    ((2, 3, 2, 3, 4), (4, 0, 2)),   # unordered dims, batch dims between them
    ((5, 4), (0,)),                 # the transform dim first, the batch last
    ((2, 3, 4, 5, 2), (0, 1, 2, 3, 4)),
]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("shape,dims", NDIM_CASES)
@pytest.mark.parametrize("name", sorted(C2C))
@pytest.mark.parametrize("norm", [None, "ortho", "forward"])
def test_c2c_over_any_dims(device, dtype, shape, dims, name, norm):
    a = rand(shape, dtype)
    got = getattr(tl.fft, name)(on(device, a), dim=dims, norm=norm)
    assert got.dtype.name == np.dtype(dtype).name
    close(got, C2C[name](a, axes=dims, norm=norm), device)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape,dims", NDIM_CASES)
def test_real_transforms_over_any_dims(device, dtype, shape, dims):
    a = rand(shape, dtype)
    spec = tl.fft.rfftn(on(device, a), dim=dims)
    assert spec.dtype == (tl.complex64 if dtype == np.float32 else tl.complex128)
    close(spec, np.fft.rfftn(a, axes=dims), device)
    axes = dims or tuple(range(a.ndim))
    s = [a.shape[d] for d in axes]
    back = tl.fft.irfftn(spec, s=s, dim=dims, norm="ortho")
    assert back.dtype.name == np.dtype(dtype).name
    close(back, np.fft.irfftn(np.fft.rfftn(a, axes=dims), s=s, axes=axes, norm="ortho"), device)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("n", [7, 8])
def test_c2r_reads_only_the_real_part_of_self_conjugate_entries(device, n):
    """irfft of a one-sided signal whose DC (and, n even, Nyquist) entries
    have imaginary parts: pocketfft reads their real parts only; every
    device must too (cuFFT's c2r leaves it undefined, fft.c cleans it).
    The input is not Hermitian in its other dim either (irfft2)."""
    a = rand((3, n // 2 + 1), np.complex128, seed=3)
    t = on(device, a)
    close(tl.fft.irfft(t, n=n), np.fft.irfft(a, n=n), device)
    close(tl.fft.irfft2(t, s=(3, n)), np.fft.irfft2(a, s=(3, n)), device)
    close(tl.fft.hfft(t, n=n), np.fft.hfft(a, n=n), device)
    # the input is not changed (c2r works on a copy: cuFFT writes over its input)
    np.testing.assert_array_equal(host(t), a)


@pytest.mark.parametrize("device", DEVICES)
def test_non_contiguous_expanded_and_empty(device):
    a = rand((6, 5), np.float64, seed=1)
    t = on(device, a)
    close(tl.fft.fft(t.T), np.fft.fft(a.T), device)
    close(tl.fft.rfft(t[:, ::2], dim=0), np.fft.rfft(a[:, ::2], axis=0), device)
    row = on(device, a[0]).expand(3, 5)
    close(tl.fft.fft(row), np.fft.fft(np.broadcast_to(a[0], (3, 5))), device)
    c = rand((4, 6), np.complex64, seed=2)
    tc = on(device, c)
    close(tl.fft.ifft(tc[::-1, 1::2], dim=0), np.fft.ifft(c[::-1, 1::2], axis=0), device)
    z = on(device, np.zeros((0, 4)))
    for got, want in [(tl.fft.fft(z), np.fft.fft(np.zeros((0, 4)))),
                      (tl.fft.rfft(z), np.fft.rfft(np.zeros((0, 4)))),
                      (tl.fft.irfft(tl.fft.rfft(z)), np.zeros((0, 4)))]:
        assert tuple(got.shape) == want.shape
    close(tl.fft.fft(on(device, np.array([2.5]))), np.array([2.5 + 0j]), device)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_real_input_at_an_odd_element_offset(device, dtype):
    """A contiguous real view one element into its storage is not aligned to
    the complex size, which cuFFT's r2c needs (its executor copies it)."""
    a = rand((3, 9), dtype, seed=4)
    t = on(device, a.ravel())
    close(tl.fft.rfft(t[1:]), np.fft.rfft(a.ravel()[1:]), device)
    close(tl.fft.rfftn(t[1:].reshape(2, 13)), np.fft.rfftn(a.ravel()[1:].reshape(2, 13)), device)
    np.testing.assert_array_equal(host(t), a.ravel())  # the input is not touched


@pytest.mark.parametrize("device", DEVICES)
def test_half_and_integer_inputs_compute_in_float(device):
    a = np.arange(8, dtype=np.int64)
    close(tl.fft.rfft(on(device, a)), np.fft.rfft(a.astype(np.float32)).astype(np.complex64),
          device)
    h = on(device, a.astype(np.float32)).to(tl.float16)
    close(tl.fft.fft(h), np.fft.fft(a.astype(np.float32)).astype(np.complex64), device)


# ---- gradients through the transforms' formulas ------------------------------------------

GRADS = {  # (transform, takes a complex input)
    "fft": (lambda z: tl.fft.fft(z, n=6), True),
    "ifft2": (lambda z: tl.fft.ifft2(z, norm="ortho"), True),
    "fftn4": (lambda z: tl.fft.fftn(z.reshape(2, 2, 2, 3)), True),
    "rfft": (lambda x: tl.fft.rfft(x, n=5), False),
    "rfftn": (lambda x: tl.fft.rfftn(x, dim=(1, 0)), False),
    "irfft": (lambda z: tl.fft.irfft(z, n=8), True),
    "irfft2": (lambda z: tl.fft.irfft2(z, norm="forward"), True),
    "hfft": (lambda z: tl.fft.hfft(z, n=7), True),
    "ihfft": (lambda x: tl.fft.ihfft(x), False),
}


def real_view(z):
    return tl.stack([z.real, z.imag]) if z.is_complex() else z


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", sorted(GRADS))
def test_gradients(device, name):
    """First and second order against finite differences (gradcheck takes
    real inputs: a complex input is re + 1j * im)."""
    op, complex_input = GRADS[name]
    re = on(device, rand((4, 6), np.float64, seed=5)).requires_grad_()
    im = on(device, rand((4, 6), np.float64, seed=6)).requires_grad_()
    if complex_input:
        f, inputs = (lambda a, b: real_view(op(a + b * 1j))), (re, im)
    else:
        f, inputs = (lambda a: real_view(op(a))), (re,)
    assert gradcheck(f, inputs)
    assert gradgradcheck(f, inputs)
    out = f(*inputs)
    grads = tl.autograd.grad(out, inputs, tl.ones_like(out))
    assert all(g.device == re.device for g in grads)


# ---- errors --------------------------------------------------------------------------------

@pytest.mark.parametrize("device", DEVICES)
def test_primitive_checks(device):
    if device == "cpu":
        pytest.skip("the primitives' C entry points serve devices only")
    x = on(device, np.ones((2, 4)))
    with pytest.raises(RuntimeError, match=r"_fft_c2c\(\): expected a complex64 or complex128 "
                                           r"input, got float64"):
        _C._fft_c2c(x, [1], False)
    with pytest.raises(RuntimeError, match=r"_fft_r2c\(\): dims must be distinct"):
        _C._fft_r2c(x, [1, 1])
    c = on(device, np.ones((2, 3), dtype=np.complex128))
    with pytest.raises(RuntimeError, match=r"_fft_c2r\(\): the one-sided dim has 3 entries, "
                                           r"expected 5 for a real signal of 8"):
        _C._fft_c2r(c, [1], 8)


@pytest.mark.skipif(EMULATED, reason="the emulated fake device has an FFT executor")
def test_a_device_without_an_executor_raises():
    x = tl.ones(4, dtype=tl.float64).to("fake")
    with pytest.raises(NotImplementedError, match=r"_fft_r2c\(\): no FFT kernel for device fake"):
        tl.fft.rfft(x)


# ---- the device paths, emulated ------------------------------------------------------------

@pytest.mark.skipif(EMULATED, reason="this is the emulated run")
def test_device_paths_on_the_emulated_fake_device():
    """The "emulated" cases above, in a process of their own (the emulation
    cannot be undone)."""
    run_emulated(__file__)
