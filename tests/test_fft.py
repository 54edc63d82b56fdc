"""torchlike.fft and np.fft on tensors: values against NumPy's pocketfft, dtypes
and argument rules against PyTorch (golden files from scripts/golden_fft.py),
gradients against finite differences to second order."""
import json
import os

import numpy as np
import pytest

import torchlike as tl
from torchlike.autograd import gradcheck, gradgradcheck

from fft_cases import CASES
from oracle import host_array

GOLDEN = os.path.join(os.path.dirname(__file__), "golden", "fft")
with open(os.path.join(GOLDEN, "torch_fft.json")) as f:
    META = json.load(f)
DATA = np.load(os.path.join(GOLDEN, "torch_fft.npz"))

INPUTS = {"real64": lambda: tl.tensor(DATA["input_real"]),
          "real32": lambda: tl.tensor(DATA["input_real"].astype(np.float32)),
          "complex128": lambda: tl.tensor(DATA["input_cplx"]),
          "int64": lambda: tl.tensor(DATA["input_ints"])}

@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("inp", sorted(INPUTS))
def test_matches_pytorch(case, inp):
    key = f"{case}__{inp}"
    got = CASES[case](tl.fft, INPUTS[inp]())
    want = META[key]
    assert got.dtype.name == want["dtype"]
    assert list(got.shape) == want["shape"]
    single = got.dtype in (tl.float32, tl.complex64)
    np.testing.assert_allclose(host_array(got), DATA[key], rtol=1e-5 if single else 1e-11,
                               atol=1e-5 if single else 1e-11)


def test_frequencies_match_pytorch():
    assert tl.fft.fftfreq(5).dtype.name == META["fftfreq"]["dtype"]
    np.testing.assert_allclose(host_array(tl.fft.fftfreq(5)), DATA["fftfreq_5"])
    np.testing.assert_allclose(host_array(tl.fft.fftfreq(6, d=0.5)), DATA["fftfreq_6_d"])
    np.testing.assert_allclose(host_array(tl.fft.rfftfreq(7)), DATA["rfftfreq_7"])


# ---- layouts: non-contiguous, broadcast, empty batch ---------------------------------

def test_non_contiguous_and_expanded_inputs():
    a = np.random.default_rng(1).standard_normal((6, 5))
    t = tl.tensor(a)
    np.testing.assert_allclose(host_array(tl.fft.fft(t.T)), np.fft.fft(a.T), atol=1e-12)
    np.testing.assert_allclose(host_array(tl.fft.rfft(t[:, ::2], dim=0)),
                               np.fft.rfft(a[:, ::2], axis=0), atol=1e-12)
    row = tl.tensor(a[0]).expand(3, 5)
    np.testing.assert_allclose(host_array(tl.fft.fft(row)), np.fft.fft(np.broadcast_to(a[0],
                                                                                       (3, 5))),
                               atol=1e-12)


def test_empty_batch_and_one_point():
    z = tl.zeros(0, 4, dtype=tl.float64)
    assert tl.fft.fft(z).shape == (0, 4) and tl.fft.rfft(z).shape == (0, 3)
    one = tl.tensor([2.5], dtype=tl.float64)
    np.testing.assert_allclose(host_array(tl.fft.fft(one)), [2.5 + 0j])


def test_errors_name_the_problem():
    t = tl.ones(4, dtype=tl.float64)
    with pytest.raises(ValueError, match="Invalid normalization mode"):
        tl.fft.fft(t, norm="sideways")
    with pytest.raises(IndexError, match="out of range"):
        tl.fft.fft(t, dim=3)
    with pytest.raises(RuntimeError, match="invalid number of data points"):
        tl.fft.fft(t, n=0)
    with pytest.raises(RuntimeError, match="same length"):
        tl.fft.fftn(tl.ones(2, 2), s=(2,), dim=(0, 1))
    with pytest.raises(RuntimeError, match="expects a real input"):
        tl.fft.rfft(t * 1j)
    with pytest.raises(TypeError, match="must be Tensor"):
        tl.fft.fft([1.0, 2.0])


# ---- gradients ---------------------------------------------------------------------

RNG = np.random.default_rng(5)
# On the host whatever the default device: finite differences on a device run
# thousands of small ops (tests/test_cuda_fft.py checks device gradients).
RE = tl.from_numpy(RNG.standard_normal((3, 6))).requires_grad_()
IM = tl.from_numpy(RNG.standard_normal((3, 6))).requires_grad_()


def _real_view(z):
    return tl.stack([z.real, z.imag]) if z.is_complex() else z


GRAD_CASES = {
    "fft": (lambda z: tl.fft.fft(z), True),
    "ifft_n": (lambda z: tl.fft.ifft(z, n=8, norm="ortho"), True),
    "fftn_forward": (lambda z: tl.fft.fftn(z, norm="forward"), True),
    "fft2_trim": (lambda z: tl.fft.fft2(z, s=(2, 4)), True),
    "rfft": (lambda x: tl.fft.rfft(x), False),
    "rfft_pad_ortho": (lambda x: tl.fft.rfft(x, n=9, norm="ortho"), False),
    "rfftn": (lambda x: tl.fft.rfftn(x), False),
    "irfft_even": (lambda z: tl.fft.irfft(z), True),
    "irfft_odd": (lambda z: tl.fft.irfft(z, n=7), True),
    "irfft_long": (lambda z: tl.fft.irfft(z, n=12, norm="forward"), True),
    "irfftn": (lambda z: tl.fft.irfftn(z, s=(3, 6)), True),
    "hfft": (lambda z: tl.fft.hfft(z), True),
    "ihfft": (lambda x: tl.fft.ihfft(x), False),
    "ihfft2": (lambda x: tl.fft.ihfft2(x), False),
    "fftshift": (lambda x: tl.fft.fftshift(x), False),
}


@pytest.mark.parametrize("case", sorted(GRAD_CASES))
def test_gradients_first_and_second_order(case):
    op, complex_input = GRAD_CASES[case]
    if complex_input:
        def f(re, im):
            return _real_view(op(re + im * 1j))
        inputs = (RE, IM)
    else:
        def f(x):
            return _real_view(op(x))
        inputs = (RE,)
    assert gradcheck(f, inputs)
    assert gradgradcheck(f, inputs)


# ---- NumPy's np.fft on tensors ------------------------------------------------------

@pytest.mark.parametrize("name, call", [
    ("fft", lambda m, a: m.fft(a)),
    ("ifft_n_axis", lambda m, a: m.ifft(a, n=5, axis=0)),
    ("rfft", lambda m, a: m.rfft(a, norm="ortho")),
    ("irfft", lambda m, a: m.irfft(m.rfft(a))),
    ("fft2", lambda m, a: m.fft2(a, s=(2, 4))),
    ("rfftn_axes", lambda m, a: m.rfftn(a, axes=(0,))),
    ("hfft", lambda m, a: m.hfft(a)),
    ("ihfft", lambda m, a: m.ihfft(a, norm="forward")),
])
def test_numpy_fft_on_tensors(name, call):
    a = np.random.default_rng(2).standard_normal((4, 6))
    got = call(np.fft, tl.tensor(a))
    want = call(np.fft, a)
    assert isinstance(got, tl.Tensor)
    assert got.dtype == want.dtype
    np.testing.assert_allclose(host_array(got), want, atol=1e-12)


def test_numpy_fft_dtypes_follow_numpy():
    import torchlike.numpy as tnp
    ints = tnp.asarray([1, 2, 3, 4])
    assert tnp.fft.fft(ints).dtype == tnp.complex128   # NumPy: integers in double
    assert tl.fft.fft(tl.tensor([1, 2, 3, 4])).dtype == tl.complex64   # PyTorch: default float
    assert tnp.fft.rfft(tnp.asarray([1.0, 2.0], dtype=tnp.float32)).dtype == tnp.complex64


def test_numpy_fft_differentiates():
    """A loss written with np.fft on a tensor that requires grad backpropagates."""
    x = tl.tensor(np.random.default_rng(3).standard_normal(8)).requires_grad_()

    def power(t):
        return np.sum(np.abs(np.fft.rfft(t)) ** 2)
    assert gradcheck(power, (x,))
    power(x).backward()
    # Parseval for the one-sided spectrum: d/dx sum |X_k|^2 over k = 0..4 of an
    # 8-point signal equals 2 * (F^H P^T P F x), checked against NumPy directly.
    a = host_array(x.detach())
    spec = np.fft.rfft(a)
    want = 2 * np.real(np.fft.ifft(np.concatenate([spec, np.zeros(3)]), norm="forward"))
    np.testing.assert_allclose(host_array(x.grad), want, atol=1e-10)


@pytest.mark.parametrize("norm", ["forward", "ortho", "backward"])
@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")  # inf - inf
def test_infinities_scale_part_by_part_as_numpy(norm):
    """The normalisation multiplies each part by the real factor, as NumPy's
    and PyTorch's do: a complex product would make NaN of an infinite part's
    0 * inf (fft of [-inf, a, b] has finite imaginary parts)."""
    x = np.array([[-np.inf, 0.94, -0.45, 2.0], [1.0, np.inf, 0.5, -1.0]], dtype=np.complex128)
    for fn in ("fft", "ifft", "fft2", "ifftn"):
        got = getattr(tl.fft, fn)(tl.from_numpy(x), norm=norm).numpy()
        want = getattr(np.fft, fn)(x, norm=norm)
        np.testing.assert_array_equal(got, want)
    r = np.array([-np.inf, 0.5, 2.0, 1.0])
    np.testing.assert_array_equal(tl.fft.rfft(tl.from_numpy(r), norm=norm).numpy(),
                                  np.fft.rfft(r, norm=norm))
