"""The 1-d few-channel convolution path (src/nn/conv/conv_line.c): stride-1
conv1d with few output channels or a short Ci*K, its transposed form (the
input gradient) and its weight gradient, read without columns.

Values against the NumPy reference of tests/test_nn_conv.py and against
np.convolve/np.correlate (every mode, odd/even lengths, kernel longer than
the signal); shapes that take the path and shapes that do not (stride 2,
many channels), groups, dilation, padding wider than the kernel,
non-contiguous inputs, lengths that end in a partial block; gradients by
finite differences."""
import numpy as np
import pytest

import torchlike as T
import torchlike.nn.functional as F
from torchlike.autograd import gradcheck
from test_nn_conv import np_conv, np_conv_transpose, np_conv_weight_grad, rand

TOL = {T.float64: 1e-11, T.float32: 1e-4}


def close(actual, expected, dtype):
    got = actual.detach().cpu().numpy()
    assert got.dtype == np.dtype(str(dtype).split(".")[-1])
    np.testing.assert_allclose(got.astype(np.float64), expected, rtol=TOL[dtype],
                               atol=TOL[dtype] * max(1.0, np.abs(expected).max(initial=0)))


# (N, Cin, L, Cout, K, stride, padding, dilation, groups)
CASES = [
    (1, 1, 1000, 1, 50, 1, 0, 1, 1),     # one channel, long line: the path
    (2, 1, 77, 1, 4, 1, 3, 1, 1),        # partial last block, padding
    (2, 3, 130, 5, 3, 1, 1, 2, 1),       # Co 5: a tile of four and one left over
    (2, 4, 67, 8, 3, 1, 5, 1, 2),        # groups, padding wider than the kernel
    (3, 6, 65, 6, 5, 1, 2, 3, 6),        # depthwise with dilation
    (2, 2, 9, 3, 7, 1, 0, 1, 1),         # output shorter than a block
    (2, 3, 40, 4, 3, 2, 1, 1, 1),        # stride 2: the columns path
    (2, 16, 50, 32, 5, 1, 2, 1, 1),      # many channels: the columns path
]


@pytest.mark.parametrize("dtype", list(TOL))
@pytest.mark.parametrize("case", CASES, ids=str)
def test_conv1d_matches_numpy(case, dtype):
    N, Cin, L, O, K, s, p, d, g = case
    x = T.tensor(rand((N, Cin, L), 0), dtype=dtype)
    w = T.tensor(rand((O, Cin // g, K), 1), dtype=dtype)
    b = T.tensor(rand((O,), 2), dtype=dtype)
    ref = np_conv(rand((N, Cin, L), 0), rand((O, Cin // g, K), 1), rand((O,), 2), s, p, d, g)
    close(F.conv1d(x, w, b, s, p, d, g), ref, dtype)
    ref = np_conv(rand((N, Cin, L), 0), rand((O, Cin // g, K), 1), None, s, p, d, g)
    close(F.conv1d(x, w, None, s, p, d, g), ref, dtype)


@pytest.mark.parametrize("dtype", list(TOL))
@pytest.mark.parametrize("case", CASES, ids=str)
def test_conv1d_input_and_weight_gradients_match_numpy(case, dtype):
    """The gradients are a transposed convolution and the weight kernel."""
    N, Cin, L, O, K, s, p, d, g = case
    xn, wn = rand((N, Cin, L), 0), rand((O, Cin // g, K), 1)
    x = T.tensor(xn, dtype=dtype, requires_grad=True)
    w = T.tensor(wn, dtype=dtype, requires_grad=True)
    y = F.conv1d(x, w, None, s, p, d, g)
    gn = rand(tuple(y.shape), 3)
    y.backward(T.tensor(gn, dtype=dtype))
    close(w.grad, np_conv_weight_grad(xn, gn, (K,), s, p, d, g), dtype)
    # dx = conv_transpose1d(gy, w) cropped/extended to the input's length
    op = L - ((y.shape[2] - 1) * s - 2 * p + d * (K - 1) + 1)
    close(x.grad, np_conv_transpose(gn, wn, None, s, p, op, g, d), dtype)


@pytest.mark.parametrize("dtype", list(TOL))
def test_conv_transpose1d_stride_one_matches_numpy(dtype):
    xn, wn, bn = rand((2, 4, 33), 4), rand((4, 3, 5), 5), rand((6,), 6)
    out = F.conv_transpose1d(T.tensor(xn, dtype=dtype), T.tensor(wn, dtype=dtype),
                             T.tensor(bn, dtype=dtype), 1, 2, 0, 2, 2)
    close(out, np_conv_transpose(xn, wn, bn, 1, 2, 0, 2, 2), dtype)


def test_non_contiguous_operands():
    xn, wn = rand((2, 3, 200), 7), rand((2, 3, 4), 8)
    x = T.tensor(xn)[:, :, ::2]                        # a strided line
    w = T.tensor(np.ascontiguousarray(wn[:, :, ::-1])).flip(2)
    assert not x.is_contiguous()
    close(F.conv1d(x, w, None, 1, 1), np_conv(xn[:, :, ::2], wn, None, 1, 1, 1, 1), T.float64)


@pytest.mark.parametrize("fn", [np.convolve, np.correlate])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n,m", [(101, 7), (100, 8), (5, 12), (1, 1), (64, 64), (200, 65)])
def test_convolve_and_correlate_match_numpy(fn, dtype, n, m):
    a = rand((n,), 9).astype(dtype)
    v = rand((m,), 10).astype(dtype)
    for mode in ("full", "same", "valid"):
        got = fn(T.from_numpy(a), T.from_numpy(v), mode).cpu().numpy()
        want = fn(a, v, mode)
        assert got.dtype == want.dtype and got.shape == want.shape
        tol = 1e-4 if dtype == np.float32 else 1e-12
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol * np.abs(want).max())


def test_convolve_of_a_strided_view():
    a = rand((301,), 11)
    v = rand((9,), 12)
    got = np.convolve(T.from_numpy(a)[::3], T.from_numpy(v)[::-1], "same").cpu().numpy()
    np.testing.assert_allclose(got, np.convolve(a[::3], v[::-1], "same"), rtol=1e-12,
                               atol=1e-12)


@pytest.mark.parametrize("case", [
    (1, 1, 40, 1, 6, 1, 2, 1, 1),
    (2, 2, 23, 3, 3, 1, 4, 2, 1),
    (1, 4, 19, 4, 3, 1, 1, 1, 4),
], ids=str)
def test_gradients_by_finite_differences(case):
    N, Cin, L, O, K, s, p, d, g = case
    x = T.tensor(rand((N, Cin, L), 13), requires_grad=True)
    w = T.tensor(rand((O, Cin // g, K), 14), requires_grad=True)
    b = T.tensor(rand((O,), 15), requires_grad=True)
    assert gradcheck(lambda x, w, b: F.conv1d(x, w, b, s, p, d, g), (x, w, b))


def test_convolve_gradient_by_finite_differences():
    a = T.tensor(rand((30,), 16), requires_grad=True)
    v = T.tensor(rand((7,), 17), requires_grad=True)
    for mode in ("full", "same", "valid"):
        assert gradcheck(lambda a, v: np.convolve(a, v, mode), (a, v))
        assert gradcheck(lambda a, v: np.correlate(a, v, mode), (a, v))


@pytest.mark.parametrize("batch", [1, 6])
def test_threads_agree_with_the_reference(batch):
    """One long line splits its blocks across threads; a batch its samples."""
    xn, wn, bn = rand((batch, 2, 3001), 18), rand((3, 2, 9), 19), rand((3,), 20)
    before = T.get_num_threads()
    T.set_num_threads(2)
    try:
        x = T.tensor(xn, requires_grad=True)
        w = T.tensor(wn, requires_grad=True)
        y = F.conv1d(x, w, T.tensor(bn), 1, 4)
        gn = rand(tuple(y.shape), 21)
        y.backward(T.tensor(gn))
    finally:
        T.set_num_threads(before)
    close(y, np_conv(xn, wn, bn, 1, 4, 1, 1), T.float64)
    close(w.grad, np_conv_weight_grad(xn, gn, (9,), 1, 4, 1, 1), T.float64)
    close(x.grad, np_conv_transpose(gn, wn, None, 1, 4, 0, 1, 1), T.float64)
