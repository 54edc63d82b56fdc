"""2-d convolutions of channels-last operands (src/nn/conv/conv_nhwc.c): the
forward, the input gradient (a stride-1 one gathers, a strided one
scatters), the weight gradient and conv_transpose2d, each run on the
(N, H, W, C) memory without layout copies.

Values against a NumPy float64 reference written here and against the
row-major path's float64 result; results and input gradients laid out
channels-last (strides checked); gradients of input, weight and bias by
finite differences in float64 at small sizes; the thread pool's split; and
the cases that stay on the row-major path (groups, half dtypes) still
right and channels-last."""
import numpy as np
import pytest

import torchlike as T
import torchlike.nn.functional as F
from torchlike.autograd import gradcheck

CL = T.channels_last
TOL = {T.float32: 2e-4, T.float64: 1e-11}


def np_conv2d(x, w, b, stride, padding, dilation):
    """x (N, C, H, W) * w (O, C, kh, kw), float64: a sum over kernel offsets
    of strided slices of the padded input, einsum over the channels."""
    x, w = x.astype(np.float64), w.astype(np.float64)
    (sh, sw), (ph, pw), (dh, dw) = stride, padding, dilation
    xp = np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)))
    kh, kw = w.shape[2:]
    ho = (xp.shape[2] - dh * (kh - 1) - 1) // sh + 1
    wo = (xp.shape[3] - dw * (kw - 1) - 1) // sw + 1
    out = np.zeros((x.shape[0], w.shape[0], ho, wo))
    for i in range(kh):
        for j in range(kw):
            xs = xp[:, :, i * dh:i * dh + sh * (ho - 1) + 1:sh, j * dw:j * dw + sw * (wo - 1) + 1:sw]
            out += np.einsum("nchw,oc->nohw", xs, w[:, :, i, j])
    if b is not None:
        out += b.astype(np.float64)[None, :, None, None]
    return out


def is_cl(t):
    """Dense channels-last strides, as PyTorch lays them out."""
    n, c, h, w = t.shape
    want = (h * w * c, 1, w * c, c)
    return all(s == e for s, e, d in zip(t.stride(), want, t.shape) if d > 1)


# (N, C, O, H, W, kernel, stride, padding, dilation, bias)
CASES = [
    (1, 3, 5, 7, 9, (3, 3), 1, 1, 1, True),
    (3, 17, 4, 8, 6, (1, 1), 1, 0, 1, False),   # pointwise: no patches
    (3, 1, 6, 9, 11, (2, 3), 2, 2, 2, True),    # non-square, strided, dilated
    (2, 3, 3, 10, 10, (5, 5), 1, 2, 1, True),
    (1, 17, 3, 7, 7, (3, 3), 2, 0, 1, False),
    (3, 4, 17, 6, 7, (1, 1), 2, 1, 1, True),    # 1x1 that is not pointwise
    (2, 5, 2, 9, 8, (3, 3), 1, 2, 2, False),    # stride-1 gather, dilated and wide padding
    # whole vectors of input channels: float32's weight gradient reads the runs in place
    # (80: a panel of 64 and one of 16; 70 output channels: a short tile of rows)
    (2, 32, 7, 6, 7, (3, 3), 1, 1, 1, True),
    (1, 80, 70, 5, 6, (2, 3), 2, 1, 2, False),
]
IDS = ["3x3", "1x1", "2x3s2p2d2", "5x5p2", "3x3s2", "1x1s2p1", "3x3p2d2", "c32", "c80"]


def laid(a, dtype, requires_grad=False):
    t = T.from_numpy(a).to(dtype).contiguous(memory_format=CL)
    return t.requires_grad_() if requires_grad else t


def make(case, seed=0):
    n, c, o, h, w, k, s, p, d, bias = case
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, c, h, w))
    wt = rng.standard_normal((o, c) + k)
    b = rng.standard_normal(o) if bias else None
    return x, wt, b, (s, s), (p, p), (d, d)


@pytest.mark.parametrize("dtype", [T.float32, T.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_forward_and_gradients_match_numpy_and_row_major(case, dtype):
    x, w, b, s, p, d = make(case)
    xt = laid(x, dtype, True)
    wt = T.from_numpy(w).to(dtype).requires_grad_()
    bt = T.from_numpy(b).to(dtype).requires_grad_() if b is not None else None
    y = F.conv2d(xt, wt, bt, stride=s, padding=p, dilation=d)
    # one input channel: channels-last strides are row-major ones too, and the
    # result is row-major (PyTorch's suggest_memory_format); the row-major kernels run
    assert y.dtype == dtype and (is_cl(y) if x.shape[1] > 1 else y.is_contiguous())
    np.testing.assert_allclose(y.detach().numpy(), np_conv2d(x, w, b, s, p, d),
                               rtol=TOL[dtype], atol=TOL[dtype])
    gy = np.random.default_rng(1).standard_normal(tuple(y.shape))
    y.backward(laid(gy, dtype))
    assert is_cl(xt.grad)
    # the row-major path in float64 is the gradients' reference
    x2 = T.from_numpy(x).requires_grad_()
    w2 = T.from_numpy(w).requires_grad_()
    b2 = T.from_numpy(b).requires_grad_() if b is not None else None
    y2 = F.conv2d(x2, w2, b2, stride=s, padding=p, dilation=d)
    assert y2.is_contiguous()
    y2.backward(T.from_numpy(gy))
    pairs = [(xt, x2), (wt, w2)] + ([(bt, b2)] if b is not None else [])
    for got, want in pairs:
        np.testing.assert_allclose(got.grad.numpy(), want.grad.numpy(),
                                   rtol=TOL[dtype], atol=TOL[dtype] * 10)


@pytest.mark.parametrize("case", [CASES[0], CASES[2], CASES[5], CASES[6]],
                         ids=["3x3", "2x3s2p2d2", "1x1s2p1", "3x3p2d2"])
def test_gradients_by_finite_differences(case):
    n, c, o, h, w, k, s, p, d, bias = case
    case = (1, min(c, 3), min(o, 3), min(h, 6), min(w, 6), k, s, p, d, bias)
    x, wt, b, s, p, d = make(case, seed=2)
    args = (laid(x, T.float64, True), T.from_numpy(wt).requires_grad_())
    if b is not None:
        args += (T.from_numpy(b).requires_grad_(),)
    assert gradcheck(lambda *a: F.conv2d(*a, stride=s, padding=p, dilation=d), args)


@pytest.mark.parametrize("dtype", [T.float32, T.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("stride,padding,output_padding", [(1, 1, 0), (2, 1, 1), (3, 0, 2)])
def test_conv_transpose2d(stride, padding, output_padding, dtype):
    """conv_transpose2d's forward is conv2d's input gradient: the gather
    (stride 1) and the scatter (strided), with a bias; its value is the
    adjoint of the NumPy convolution."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 4, 5, 6))
    w = rng.standard_normal((4, 3, 3, 2))
    b = rng.standard_normal(3)
    y = F.conv_transpose2d(laid(x, dtype), T.from_numpy(w).to(dtype), T.from_numpy(b).to(dtype),
                           stride=stride, padding=padding, output_padding=output_padding)
    assert is_cl(y)
    want = F.conv_transpose2d(T.from_numpy(x), T.from_numpy(w), T.from_numpy(b), stride=stride,
                              padding=padding, output_padding=output_padding).numpy()
    np.testing.assert_allclose(y.numpy(), want, rtol=TOL[dtype], atol=TOL[dtype])
    # <conv_t(x), z> = <x, conv(z)>: the adjoint identity against NumPy's convolution
    z = rng.standard_normal(want.shape)
    lhs = np.sum((want - b[None, :, None, None]) * z)
    conv = np_conv2d(z, w, None, (stride,) * 2, (padding,) * 2, (1, 1))
    rhs = np.sum(x * conv[:, :, :x.shape[2], :x.shape[3]])
    np.testing.assert_allclose(lhs, rhs, rtol=1e-10)


def test_channels_last_weight_and_row_major_input():
    """A channels-last weight is read where it lies; a row-major input with
    it gives a channels-last result (PyTorch's rule) from the row-major
    kernels, and both agree with NumPy."""
    x, w, b, s, p, d = make(CASES[0])
    want = np_conv2d(x, w, b, s, p, d)
    wcl = T.from_numpy(w).contiguous(memory_format=CL)
    for xin in (laid(x, T.float64), T.from_numpy(x)):
        y = F.conv2d(xin, wcl, T.from_numpy(b), padding=p)
        assert is_cl(y)
        np.testing.assert_allclose(y.numpy(), want, rtol=1e-11, atol=1e-11)


def test_threads_split_the_batch():
    """With two threads and a batch of several chunks per thread, each slot
    works on its own patch buffer and weight-gradient sums."""
    threads = T.get_num_threads()
    try:
        T.set_num_threads(2)
        for case, dtype in ((CASES[0], T.float64), (CASES[2], T.float64), (CASES[7], T.float32)):
            case = (6,) + case[1:]
            x, w, b, s, p, d = make(case, seed=4)
            xt = laid(x, dtype, True)
            wt = T.from_numpy(w).to(dtype).requires_grad_()
            y = F.conv2d(xt, wt, None, stride=s, padding=p, dilation=d)
            tol = TOL[dtype] * 10
            np.testing.assert_allclose(y.detach().numpy(), np_conv2d(x, w, None, s, p, d),
                                       rtol=tol, atol=tol)
            y.sum().backward()
            x2 = T.from_numpy(x).requires_grad_()
            w2 = T.from_numpy(w).requires_grad_()
            F.conv2d(x2, w2, None, stride=s, padding=p, dilation=d).sum().backward()
            np.testing.assert_allclose(xt.grad.numpy(), x2.grad.numpy(), rtol=tol, atol=tol)
            np.testing.assert_allclose(wt.grad.numpy(), w2.grad.numpy(), rtol=tol, atol=tol)
    finally:
        T.set_num_threads(threads)


@pytest.mark.parametrize("groups,dtype", [(2, T.float64), (1, T.float16)], ids=["groups", "f16"])
def test_row_major_path_cases_stay_channels_last(groups, dtype):
    """groups != 1 and half dtypes are not this path's: the row-major
    kernels run and the result is laid out channels-last after."""
    rng = np.random.default_rng(5)
    x = rng.standard_normal((2, 4, 6, 5))
    w = rng.standard_normal((6, 4 // groups, 3, 3))
    y = F.conv2d(laid(x, dtype), T.from_numpy(w).to(dtype), padding=1, groups=groups)
    assert y.dtype == dtype and is_cl(y)
    want = np.concatenate([np_conv2d(x[:, g * 4 // groups:(g + 1) * 4 // groups],
                                     w[g * 6 // groups:(g + 1) * 6 // groups], None, (1, 1),
                                     (1, 1), (1, 1)) for g in range(groups)], axis=1)
    tol = 2e-2 if dtype == T.float16 else 1e-11
    np.testing.assert_allclose(y.double().numpy(), want, rtol=tol, atol=tol)


def test_empty_channels_and_batch():
    """No input channels: the products have nothing to add (the result is the
    bias); an empty batch: an empty channels-last result."""
    b = np.array([1.5, -2.0])
    x = np.zeros((2, 0, 4, 4))
    y = F.conv2d(laid(x, T.float64), T.from_numpy(np.zeros((2, 0, 3, 3))), T.from_numpy(b),
                 padding=1)
    np.testing.assert_array_equal(y.numpy(), np.broadcast_to(b[None, :, None, None], (2, 2, 4, 4)))
    y = F.conv2d(laid(np.zeros((0, 3, 4, 4)), T.float32), T.from_numpy(np.ones((2, 3, 3, 3))).float())
    assert tuple(y.shape) == (0, 2, 2, 2)
