"""Convolution, transposed convolution and fold/unfold: the kernels of src/nn/conv.

Values against a NumPy reference written here (a sum over kernel offsets of
strided slices, einsum over channels) over 1-3 spatial dims, stride, padding
(ints, 'same', 'valid'), dilation, groups, output_padding, bias, dtypes,
0-size batches and non-contiguous operands; the 1x1, depthwise and
threaded-batch paths against the same reference; gradients and second
derivatives by finite differences (the backward ops are ops with their own
derivatives); what the tape keeps; PyTorch's error messages; the modules'
padding modes; and the kernels on the fake device (subprocess, like
tests/test_dispatch.py)."""
import itertools

import numpy as np
import pytest

import torchlike as T
import torchlike.nn as nn
import torchlike.nn.functional as F
from torchlike.autograd import gradcheck, gradgradcheck
from nn_fake_device import run_on_fake_device

# the derivatives gradchecked here (tests/test_grad_registry.py reads this)
GRADCHECKED = {"convolution", "_convolution_backward_weight", "im2col", "col2im"}

C = T._C
TOL = {T.float64: 1e-11, T.float32: 1e-4, T.float16: 1e-2, T.bfloat16: 6e-2}
CONV = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}
CONV_T = {1: F.conv_transpose1d, 2: F.conv_transpose2d, 3: F.conv_transpose3d}


def tup(v, n):
    return (v,) * n if isinstance(v, int) else tuple(v)


def windows(size, k, s, d):
    """Per kernel offset, the slice of a padded dim that its windows read."""
    out = (size - d * (k - 1) - 1) // s + 1
    return out, [slice(i * d, i * d + s * (out - 1) + 1, s) for i in range(k)]


def np_conv(x, w, b, stride, padding, dilation, groups):
    """(N, C, *sp) * (O, C/g, *k): the sum over kernel offsets of strided slices."""
    n = x.ndim - 2
    stride, padding, dilation = tup(stride, n), tup(padding, n), tup(dilation, n)
    xp = np.pad(x, [(0, 0), (0, 0)] + [(p, p) for p in padding])
    k = w.shape[2:]
    geo = [windows(xp.shape[2 + d], k[d], stride[d], dilation[d]) for d in range(n)]
    O, Cg = w.shape[0], w.shape[1]
    Og = O // groups
    out = np.zeros((x.shape[0], O) + tuple(o for o, _ in geo))
    for kidx in itertools.product(*(range(kk) for kk in k)):
        patch = xp[(slice(None), slice(None)) + tuple(geo[d][1][kidx[d]] for d in range(n))]
        for g in range(groups):
            out[:, g * Og:(g + 1) * Og] += np.einsum(
                "nc...,oc->no...", patch[:, g * Cg:(g + 1) * Cg],
                w[(slice(g * Og, (g + 1) * Og), slice(None)) + kidx])
    if b is not None:
        out += b.reshape((1, O) + (1,) * n)
    return out


def np_conv_transpose(x, w, b, stride, padding, output_padding, groups, dilation):
    """The adjoint: every input element spreads its kernel-weighted value."""
    n = x.ndim - 2
    stride, padding, dilation = tup(stride, n), tup(padding, n), tup(dilation, n)
    output_padding = tup(output_padding, n)
    Cin, Og = w.shape[0], w.shape[1]
    Cg = Cin // groups
    k = w.shape[2:]
    sp = x.shape[2:]
    size = [(sp[d] - 1) * stride[d] - 2 * padding[d] + dilation[d] * (k[d] - 1)
            + output_padding[d] + 1 for d in range(n)]
    full = [size[d] + 2 * padding[d] for d in range(n)]
    big = np.zeros((x.shape[0], Og * groups) + tuple(full))
    for kidx in itertools.product(*(range(kk) for kk in k)):
        sl = tuple(slice(kidx[d] * dilation[d], kidx[d] * dilation[d] + stride[d] * (sp[d] - 1) + 1,
                         stride[d]) for d in range(n))
        for g in range(groups):
            big[(slice(None), slice(g * Og, (g + 1) * Og)) + sl] += np.einsum(
                "nc...,co->no...", x[:, g * Cg:(g + 1) * Cg],
                w[(slice(g * Cg, (g + 1) * Cg), slice(None)) + kidx])
    out = big[(slice(None), slice(None)) + tuple(slice(padding[d], padding[d] + size[d])
                                                 for d in range(n))]
    if b is not None:
        out = out + b.reshape((1, -1) + (1,) * n)
    return out


def np_conv_weight_grad(x, g, k, stride, padding, dilation, groups):
    """dW[o, c, k] = the sum over samples and windows of g[o] * x[c] through k."""
    n = x.ndim - 2
    stride, padding, dilation = tup(stride, n), tup(padding, n), tup(dilation, n)
    xp = np.pad(x, [(0, 0), (0, 0)] + [(pp, pp) for pp in padding])
    O, Cg = g.shape[1], x.shape[1] // groups
    Og = O // groups
    ref = np.zeros((O, Cg) + tuple(k))
    axes = [0] + list(range(2, 2 + n))
    for kidx in itertools.product(*(range(kk) for kk in k)):
        sl = tuple(slice(kidx[i] * dilation[i],
                         kidx[i] * dilation[i] + stride[i] * (g.shape[2 + i] - 1) + 1, stride[i])
                   for i in range(n))
        for gi in range(groups):
            ref[(slice(gi * Og, (gi + 1) * Og), slice(None)) + kidx] = np.tensordot(
                g[:, gi * Og:(gi + 1) * Og],
                xp[(slice(None), slice(gi * Cg, (gi + 1) * Cg)) + sl], (axes, axes))
    return ref


def np_unfold(x, k, dilation, padding, stride):
    n = x.ndim - 2
    xp = np.pad(x, [(0, 0), (0, 0)] + [(p, p) for p in padding])
    geo = [windows(xp.shape[2 + d], k[d], stride[d], dilation[d]) for d in range(n)]
    cols = [xp[(slice(None), slice(None)) + tuple(geo[d][1][kidx[d]] for d in range(n))]
            for kidx in itertools.product(*(range(kk) for kk in k))]
    N, Cc = x.shape[:2]
    return np.stack(cols, 2).reshape(N, Cc * len(cols), -1)


def np_fold(cols, size, k, dilation, padding, stride):
    n = len(size)
    K = int(np.prod(k))
    N, CK, L = cols.shape
    full = [size[d] + 2 * padding[d] for d in range(n)]
    geo = [windows(full[d], k[d], stride[d], dilation[d]) for d in range(n)]
    out = np.zeros((N, CK // K) + tuple(full))
    c = cols.reshape((N, CK // K, K) + tuple(o for o, _ in geo))
    for i, kidx in enumerate(itertools.product(*(range(kk) for kk in k))):
        out[(slice(None), slice(None)) + tuple(geo[d][1][kidx[d]] for d in range(n))] += c[:, :, i]
    return out[(slice(None), slice(None)) + tuple(slice(padding[d], padding[d] + size[d])
                                                 for d in range(n))]


def rand(shape, seed):
    return np.random.default_rng(seed).standard_normal(shape)


def tl(a, dtype=T.float64, grad=False):
    return T.tensor(a, dtype=dtype, requires_grad=grad)


def back(t):
    """A tensor's values as float64 NumPy (what the reference computes on)."""
    return t.detach().double().cpu().numpy()


def close(actual, expected, dtype):
    np.testing.assert_allclose(back(actual), expected, rtol=TOL[dtype],
                               atol=TOL[dtype] * max(1.0, np.abs(expected).max(initial=0)))


# (spatial input size, out channels, kernel, stride, padding, dilation, groups, in channels)
CONV_CASES = [
    ((9,), 4, (3,), 1, 0, 1, 1, 3),
    ((10,), 6, (4,), 2, 2, 3, 3, 3),
    ((7, 6), 8, (3, 2), 1, 1, 1, 1, 4),
    ((9, 8), 8, (3, 3), (2, 1), (1, 0), (1, 2), 2, 4),
    ((6, 7), 4, (1, 1), 1, 0, 1, 1, 5),            # 1x1: straight to GEMM
    ((6, 6), 6, (1, 1), 2, 1, 1, 3, 3),            # 1x1 with stride and padding: columns
    ((8, 8), 4, (3, 3), 1, 1, 1, 4, 4),            # depthwise
    ((8, 7), 8, (3, 3), 2, 1, 1, 4, 4),            # depthwise, channel multiplier 2
    ((5, 6, 4), 4, (2, 3, 2), (1, 2, 1), (1, 0, 1), (2, 1, 1), 2, 2),
]


@pytest.mark.parametrize("dtype", list(TOL))
@pytest.mark.parametrize("case", CONV_CASES, ids=str)
def test_conv_values_match_numpy(case, dtype):
    sp, O, k, s, p, d, g, Cin = case
    x = tl(rand((2, Cin) + sp, 0), dtype)
    w = tl(rand((O, Cin // g) + k, 1), dtype)
    b = tl(rand((O,), 2), dtype)
    out = CONV[len(sp)](x, w, b, s, p, d, g)
    assert out.dtype == dtype
    close(out, np_conv(back(x), back(w), back(b), s, p, d, g), dtype)
    no_bias = CONV[len(sp)](x, w, None, s, p, d, g)
    close(no_bias, np_conv(back(x), back(w), None, s, p, d, g), dtype)


# (spatial input size, in channels, out channels per group, kernel, stride, padding,
#  output_padding, groups, dilation)
CONV_T_CASES = [
    ((5,), 4, 3, (3,), 1, 0, 0, 1, 1),
    ((6,), 4, 2, (3,), 3, 2, 1, 2, 2),
    ((4, 5), 3, 2, (3, 2), 2, 1, (1, 0), 1, 1),
    ((5, 4), 4, 3, (2, 3), (1, 2), (0, 1), (0, 1), 2, (2, 1)),
    ((4, 4), 5, 3, (1, 1), 1, 0, 0, 1, 1),         # 1x1: no col2im
    ((3, 4, 3), 2, 2, (2, 2, 3), (2, 1, 1), (1, 0, 1), (1, 0, 0), 1, 1),
]


@pytest.mark.parametrize("dtype", list(TOL))
@pytest.mark.parametrize("case", CONV_T_CASES, ids=str)
def test_conv_transpose_values_match_numpy(case, dtype):
    sp, Cin, Og, k, s, p, op, g, d = case
    x = tl(rand((2, Cin) + sp, 3), dtype)
    w = tl(rand((Cin, Og) + k, 4), dtype)
    b = tl(rand((Og * g,), 5), dtype)
    out = CONV_T[len(sp)](x, w, b, s, p, op, g, d)
    assert out.dtype == dtype
    close(out, np_conv_transpose(back(x), back(w), back(b), s, p, op, g, d), dtype)


def test_non_contiguous_operands():
    base = rand((6, 3, 10, 9), 6)
    x = T.tensor(base)[::2, :, 1::2].transpose(2, 3)      # (3, 3, 9, 5), strided
    wb = rand((3, 4, 3, 2), 7)
    w = T.tensor(wb).permute(1, 0, 2, 3)                   # (4, 3, 3, 2), not contiguous
    b = T.tensor(rand((8,), 8))[::2]
    ref = np_conv(x.cpu().numpy(), w.cpu().numpy(), b.cpu().numpy(), 2, 1, 1, 1)
    close(F.conv2d(x, w, b, 2, 1), ref, T.float64)
    wt = T.tensor(rand((2, 3, 3), 9)).transpose(0, 1)      # (3, 2, 3)
    xt = T.tensor(rand((4, 5, 3), 10)).transpose(1, 2)     # (4, 3, 5)
    close(F.conv_transpose1d(xt, wt, None, 2, 1, 1),
          np_conv_transpose(xt.cpu().numpy(), wt.cpu().numpy(), None, 2, 1, 1, 1, 1), T.float64)
    xe = T.tensor(rand((1, 2, 1, 6), 11)).expand(3, 2, 4, 6)   # broadcast (0-stride) input
    we = T.tensor(rand((3, 2, 2, 2), 12))
    close(F.conv2d(xe, we), np_conv(xe.cpu().numpy(), we.cpu().numpy(), None, 1, 0, 1, 1), T.float64)


def test_batches_split_across_threads_agree_with_one_sample_at_a_time():
    """A batch big enough to run samples on several threads (and to sum
    per-thread weight gradients) against per-sample calls and NumPy."""
    x = tl(rand((9, 4, 8, 8), 13), T.float32, grad=True)
    w = tl(rand((6, 2, 3, 3), 14), T.float32, grad=True)
    g = rand((9, 6, 4, 4), 15)
    out = F.conv2d(x, w, None, 2, 1, 1, 2)
    out.backward(tl(g, T.float32))
    one = np.concatenate([F.conv2d(x[i:i + 1], w, None, 2, 1, 1, 2).detach().cpu().numpy()
                          for i in range(9)])
    np.testing.assert_allclose(out.detach().cpu().numpy(), one, rtol=1e-5, atol=1e-5)
    # dW = sum over the batch of grad (x) window
    ref_w = np.zeros((6, 2, 3, 3))
    xa = back(x)
    for i in range(9):
        wv = tl(np.zeros((6, 2, 3, 3)), grad=True)
        F.conv2d(tl(xa[i:i + 1]), wv, None, 2, 1, 1, 2).backward(tl(g[i:i + 1]))
        ref_w += wv.grad.cpu().numpy()
    np.testing.assert_allclose(w.grad.cpu().numpy(), ref_w, rtol=1e-4, atol=1e-4)


def test_zero_size_batch_and_channels():
    w = tl(rand((4, 3, 3, 3), 16), grad=True)
    x = tl(np.zeros((0, 3, 6, 6)), grad=True)
    out = F.conv2d(x, w, padding=1)
    assert out.shape == (0, 4, 6, 6)
    out.sum().backward()
    assert x.grad.shape == (0, 3, 6, 6)
    np.testing.assert_array_equal(w.grad.cpu().numpy(), np.zeros((4, 3, 3, 3)))
    assert F.conv_transpose2d(T.zeros(0, 4, 3, 3), T.zeros(4, 2, 3, 3)).shape == (0, 2, 5, 5)
    assert F.unfold(T.zeros(0, 2, 4, 4), 2).shape == (0, 8, 9)
    assert F.fold(T.zeros(0, 8, 9), (4, 4), 2).shape == (0, 2, 4, 4)
    # no input channels: the output is the bias
    b = tl(rand((3,), 17))
    out = F.conv1d(tl(np.zeros((2, 0, 5))), tl(np.zeros((3, 0, 2))), b)
    np.testing.assert_array_equal(out.cpu().numpy(), np.broadcast_to(b.cpu().numpy()[:, None], (2, 3, 4)))
    # no output channels (fewer weight rows than groups): refused, as PyTorch does
    for w0, groups in ((T.zeros(0, 2, 2), 1), (T.zeros(0, 1, 2), 2)):
        with pytest.raises(RuntimeError, match=f"^Given groups={groups}, expected weight to be at "
                                               f"least {groups} at dimension 0, but got weight "
                                               f"of size \\[0, {2 // groups}, 2\\] instead$"):
            F.conv1d(T.zeros(1, 2, 5), w0, groups=groups)


@pytest.mark.parametrize("n", [1, 2, 3])
def test_padding_same_and_valid(n):
    x = tl(rand((2, 3) + (7,) * n, 18))
    k = (4, 3, 2)[:n]
    dil = (1, 2, 3)[:n]
    w = tl(rand((2, 3) + k, 19))
    out = CONV[n](x, w, None, 1, "same", dil)
    assert out.shape == x.shape[:1] + (2,) + x.shape[2:]
    # PyTorch's rule: total padding d*(k-1), the odd unit on the far side
    pads = [(di * (kk - 1) // 2, di * (kk - 1) - di * (kk - 1) // 2) for di, kk in zip(dil, k)]
    xp = np.pad(x.cpu().numpy(), [(0, 0), (0, 0)] + pads)
    close(out, np_conv(xp, w.cpu().numpy(), None, 1, 0, dil, 1), T.float64)
    close(CONV[n](x, w, None, 1, "valid", dil), np_conv(x.cpu().numpy(), w.cpu().numpy(), None, 1, 0, dil, 1),
          T.float64)
    xg = tl(rand((1, 3) + (5,) * n, 20), grad=True)
    wg = tl(rand((2, 3) + k, 21) / 4, grad=True)
    assert gradcheck(lambda a, b_: CONV[n](a, b_, None, 1, "same", dil), (xg, wg))


def test_unbatched_inputs():
    x = rand((3, 6, 5), 22)
    w = rand((2, 3, 2, 2), 23)
    out = F.conv2d(tl(x), tl(w), None, 1, 1)
    assert out.shape == (2, 7, 6)
    close(out, np_conv(x[None], w, None, 1, 1, 1, 1)[0], T.float64)
    xt = rand((3, 4), 24)
    wt = rand((3, 2, 3), 25)
    close(F.conv_transpose1d(tl(xt), tl(wt), None, 2),
          np_conv_transpose(xt[None], wt, None, 2, 0, 0, 1, 1)[0], T.float64)
    u = F.unfold(tl(x), 2)
    close(u, np_unfold(x[None], (2, 2), (1, 1), (0, 0), (1, 1))[0], T.float64)
    close(F.fold(u, (6, 5), 2), np_fold(u.cpu().numpy()[None], (6, 5), (2, 2), (1, 1), (0, 0),
                                        (1, 1))[0], T.float64)


@pytest.mark.parametrize("dtype", list(TOL))
@pytest.mark.parametrize("k,d,p,s", [((2, 3), (1, 2), (1, 1), (2, 1)), ((3, 3), (1, 1), (0, 0),
                                                                         (1, 1)),
                                     ((1, 2), (2, 1), (0, 2), (1, 3))])
def test_unfold_and_fold_match_numpy(k, d, p, s, dtype):
    x = tl(rand((2, 3, 7, 8), 26), dtype)
    u = F.unfold(x, k, d, p, s)
    ref = np_unfold(back(x), k, d, p, s)
    assert u.shape == ref.shape and u.dtype == dtype
    close(u, ref, dtype)
    cols = tl(rand(ref.shape, 27), dtype)
    close(F.fold(cols, (7, 8), k, d, p, s), np_fold(back(cols), (7, 8), k, d, p, s), dtype)
    assert nn.Unfold(k, d, p, s)(x).shape == u.shape
    assert nn.Fold((7, 8), k, d, p, s)(cols).shape == x.shape


def test_im2col_and_col2im_in_one_and_three_dims():
    x = rand((2, 3, 9), 28)
    u = C.im2col(tl(x), [3], [2], [1], [2])
    close(u, np_unfold(x, (3,), (2,), (1,), (2,)), T.float64)
    close(C.col2im(u, [9], [3], [2], [1], [2]), np_fold(u.cpu().numpy(), (9,), (3,), (2,), (1,), (2,)),
          T.float64)
    x3 = rand((1, 2, 4, 5, 3), 29)
    u3 = C.im2col(tl(x3), [2, 3, 2], [1], [1, 0, 1], [1, 2, 1])
    close(u3, np_unfold(x3, (2, 3, 2), (1, 1, 1), (1, 0, 1), (1, 2, 1)), T.float64)


# ---- derivatives ---------------------------------------------------------------------------

GRAD_CASES = [  # (n, N, Cin, O, sp, k, stride, padding, dilation, groups)
    (1, 2, 4, 2, (6,), (3,), 2, 1, 1, 2),
    (2, 2, 2, 3, (5, 4), (3, 2), (2, 1), (1, 0), (1, 2), 1),
    (2, 1, 4, 4, (4, 4), (1, 1), 1, 0, 1, 2),
    (2, 1, 3, 3, (5, 5), (3, 3), 1, 1, 1, 3),
    (3, 1, 2, 2, (4, 3, 3), (2, 2, 2), (2, 1, 1), (1, 0, 1), 1, 1),
]


@pytest.mark.parametrize("case", GRAD_CASES, ids=str)
def test_conv_gradients_and_second_derivatives(case):
    n, N, Cin, O, sp, k, s, p, d, g = case
    x = tl(rand((N, Cin) + sp, 30), grad=True)
    w = tl(rand((O, Cin // g) + k, 31), grad=True)
    b = tl(rand((O,), 32), grad=True)
    fn = lambda a, w_, b_: CONV[n](a, w_, b_, s, p, d, g)  # noqa: E731
    assert gradcheck(fn, (x, w, b))
    assert gradgradcheck(fn, (x, w, b))


@pytest.mark.parametrize("case", [(1, (5,), 4, 2, (3,), 2, 1, 1, 2, 1),
                                  (2, (3, 4), 2, 3, (2, 3), (2, 1), (1, 0), (1, 0), 1, (1, 2)),
                                  (2, (3, 3), 2, 2, (1, 1), 1, 0, 0, 1, 1),
                                  (3, (2, 3, 2), 2, 1, (2, 2, 2), 2, (0, 1, 0), (1, 0, 1), 1, 1)],
                         ids=str)
def test_conv_transpose_gradients_and_second_derivatives(case):
    n, sp, Cin, Og, k, s, p, op, g, d = case
    x = tl(rand((2, Cin) + sp, 33), grad=True)
    w = tl(rand((Cin, Og) + k, 34), grad=True)
    b = tl(rand((Og * g,), 35), grad=True)
    fn = lambda a, w_, b_: CONV_T[n](a, w_, b_, s, p, op, g, d)  # noqa: E731
    assert gradcheck(fn, (x, w, b))
    assert gradgradcheck(fn, (x, w, b))


@pytest.mark.parametrize("transposed", [False, True])
def test_weight_gradient_op_matches_numpy_and_has_derivatives(transposed):
    x = rand((2, 4, 5, 4), 36)
    if transposed:  # weight (C_in, C_out/g, k): grad_output is the big side
        wshape, go = [4, 1, 2, 3], rand((2, 2, 9, 8), 37)
        out_padding = [1, 1]
    else:
        wshape, go = [6, 2, 2, 3], rand((2, 6, 3, 2), 37)
    args = ([2, 2], [1, 1], [1, 1], transposed, 2)
    dw = C._convolution_backward_weight(tl(go), tl(x), wshape, *args)
    # the reference: the gradient of <go, conv(x, w)> with respect to w, by the tape
    w = tl(np.zeros(wshape), grad=True)
    if transposed:
        out = C.convolution(tl(x), w, None, [2, 2], [1, 1], [1, 1], True, out_padding, 2)
    else:
        out = C.convolution(tl(x), w, None, [2, 2], [1, 1], [1, 1], False, [0], 2)
    assert out.shape == go.shape
    # <go, conv(x, w)> is linear in w: its gradient is the op's value
    ref = np.zeros(wshape)
    for idx in itertools.product(*(range(v) for v in wshape)):
        e = np.zeros(wshape)
        e[idx] = 1
        conv = (np_conv_transpose(x, e, None, 2, 1, out_padding, 2, 1) if transposed
                else np_conv(x, e, None, 2, 1, 1, 2))
        ref[idx] = (conv * go).sum()
    close(dw, ref, T.float64)
    gt, xt = tl(go / 3, grad=True), tl(x / 3, grad=True)
    fn = lambda a, b_: C._convolution_backward_weight(a, b_, wshape, *args)  # noqa: E731
    assert gradcheck(fn, (gt, xt))
    assert gradgradcheck(fn, (gt, xt))


def test_unfold_and_fold_take_bool_tensors():
    # a copy, and overlapping windows or-ed, as PyTorch's bool kernels
    a = np.array([[[[True, False, True], [False, True, False], [True, True, False]]]])
    u = F.unfold(T.tensor(a), 2, padding=1)
    want = F.unfold(T.tensor(a.astype(np.float32)), 2, padding=1).cpu().numpy() != 0
    assert u.dtype == T.bool
    np.testing.assert_array_equal(u.cpu().numpy(), want)
    back = F.fold(u, (3, 3), 2, padding=1)
    assert back.dtype == T.bool
    np.testing.assert_array_equal(back.cpu().numpy(), a)


def test_fold_and_unfold_gradients():
    x = tl(rand((2, 2, 5, 4), 38), grad=True)
    assert gradcheck(lambda a: F.unfold(a, (2, 3), (2, 1), 1, (1, 2)), (x,))
    assert gradgradcheck(lambda a: F.unfold(a, (2, 3), (2, 1), 1, (1, 2)), (x,))
    cols = tl(rand((2, 12, 9), 39), grad=True)
    assert gradcheck(lambda a: F.fold(a, (4, 5), (2, 3), 1, 1, 2), (cols,))
    assert gradgradcheck(lambda a: F.fold(a, (4, 5), (2, 3), 1, 1, 2), (cols,))


def test_gradients_keep_the_dtype_and_half_precision_runs_through_float():
    x = tl(rand((2, 3, 6, 6), 40), T.bfloat16, grad=True)
    w = tl(rand((4, 3, 3, 3), 41), T.bfloat16, grad=True)
    F.conv2d(x, w, padding=1).float().sum().backward()
    assert x.grad.dtype == T.bfloat16 and w.grad.dtype == T.bfloat16
    ref = np_conv_transpose(np.ones((2, 4, 6, 6)), back(w), None, 1, 1, 0, 1, 1)
    close(x.grad, ref, T.bfloat16)


def test_the_tape_keeps_only_what_the_formulas_read():
    x = T.randn(2, 3, 6, 6, requires_grad=True)
    w = T.randn(4, 3, 3, 3)
    out = F.conv2d(x, w, padding=1)
    with T.no_grad():
        x.mul_(2)    # dx reads only w: x is not kept, no version error
        out.mul_(2)  # nor is the output
    out.sum().backward()
    ref = np_conv_transpose(np.ones((2, 4, 6, 6)), w.cpu().numpy().astype(np.float64), None, 1, 1, 0,
                            1, 1)
    np.testing.assert_allclose(x.grad.cpu().numpy(), ref, rtol=1e-5, atol=1e-5)
    w.requires_grad_()
    out = F.conv2d(x, w, padding=1)
    with T.no_grad():
        x.add_(1)    # dw reads x: now it is kept, and the change is caught
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()


# ---- errors ------------------------------------------------------------------------------------

@pytest.mark.parametrize("call,message", [
    (lambda: F.conv2d(T.zeros(1, 3, 5, 5), T.zeros(4, 2, 3, 3)),
     "Given groups=1, weight of size [4, 2, 3, 3], expected input[1, 3, 5, 5] to have 2 "
     "channels, but got 3 channels instead"),
    (lambda: F.conv2d(T.zeros(3, 5, 5), T.zeros(4, 2, 3, 3)),
     "Given groups=1, weight of size [4, 2, 3, 3], expected input[1, 3, 5, 5] to have 2 "
     "channels, but got 3 channels instead"),
    (lambda: F.conv2d(T.zeros(1, 4, 5, 5), T.zeros(3, 2, 3, 3), groups=2),
     "Given groups=2, expected weight to be divisible by 2 at dimension 0, but got weight of "
     "size [3, 2, 3, 3] instead"),
    (lambda: F.conv2d(T.zeros(1, 2, 2, 2), T.zeros(4, 2, 3, 3)),
     "Calculated padded input size per channel: (2 x 2). Kernel size: (3 x 3). Kernel size "
     "can't be greater than actual input size"),
    (lambda: F.conv2d(T.zeros(5, 5), T.zeros(4, 2, 3, 3)),
     "Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: [5, 5]"),
    (lambda: F.conv_transpose2d(T.zeros(1, 3, 4, 4), T.zeros(2, 2, 3, 3)),
     "Given transposed=1, weight of size [2, 2, 3, 3], expected input[1, 3, 4, 4] to have 2 "
     "channels, but got 3 channels instead"),
    (lambda: F.conv_transpose2d(T.zeros(1, 2, 5, 5), T.zeros(2, 3, 3, 3), output_padding=1),
     "output padding must be smaller than either stride or dilation, but got "
     "output_padding_height: 1 output_padding_width: 1 stride_height: 1 stride_width: 1 "
     "dilation_height: 1 dilation_width: 1"),
    (lambda: F.conv_transpose2d(T.zeros(1, 2, 1, 1), T.zeros(2, 2, 3, 3), padding=3),
     "Given input size per channel: (1 x 1). Calculated output size per channel: (-3 x -3). "
     "Output size is too small"),
    # the 1-d form is PyTorch's 2-d kernel over a height of 1, which its words show
    (lambda: F.conv_transpose1d(T.zeros(1, 4, 3), T.zeros(4, 1, 2), padding=5),
     "Given input size per channel: (1 x 3). Calculated output size per channel: (1 x -6). "
     "Output size is too small"),
    (lambda: F.conv_transpose3d(T.zeros(1, 4, 3, 3, 3), T.zeros(4, 1, 2, 2, 2), padding=5),
     "Given input size per channel: (3 x 3 x 3). Calculated output size per channel: "
     "(-6 x -6 x -6). Output size is too small"),
    (lambda: F.conv_transpose2d(T.zeros(2, 3, 0, 4), T.zeros(3, 2, 3, 3), stride=2),
     "Only zero batch or zero channel inputs are supported, but got input shape: [2, 3, 0, 4]"),
    (lambda: F.conv2d(T.zeros(1, 2, 5, 5), T.zeros(3, 2, 3, 3), T.zeros(2)),
     "Given weight of size [3, 2, 3, 3], expected bias to be 1-dimensional with 3 elements, but "
     "got bias of size [2] instead"),
    (lambda: F.conv2d(T.zeros(1, 2, 5, 5, dtype=T.float64), T.zeros(3, 2, 3, 3)),
     "expected scalar type Double but found Float"),
    (lambda: F.conv2d(T.zeros(1, 2, 5, 5), T.zeros(3, 2, 3, 3), stride=(1, 1, 1)),
     "expected stride to be a single integer value or a list of 2 values to match the "
     "convolution dimensions, but got stride=[1, 1, 1]"),
    (lambda: F.conv2d(T.zeros(1, 2, 5, 5), T.zeros(3, 2, 3, 3), stride=0),
     "non-positive stride is not supported"),
    (lambda: F.conv2d(T.zeros(1, 2, 5, 5), T.zeros(3, 2, 3, 3), padding=-1),
     "negative padding is not supported"),
    (lambda: F.conv2d(T.zeros(1, 2, 5, 5), T.zeros(3, 2, 3, 3), dilation=0),
     "dilation should be greater than zero, but got [0, 0]"),
    (lambda: F.conv2d(T.zeros(1, 2, 5, 5), T.zeros(3, 2, 3, 3), groups=0),
     "non-positive groups is not supported"),
    (lambda: F.unfold(T.zeros(1, 2, 3, 3), 5),
     "Given input with spatial size (3, 3), kernel_size=(5, 5), dilation=(1, 1), padding=(0, 0), "
     "calculated shape of the array of sliding blocks as (-1, -1), but its components must be "
     "at least one."),
    (lambda: F.fold(T.zeros(1, 7, 9), (4, 4), (2, 3)),
     "Expected size of input's dimension 1 to be divisible by the product of kernel_size, but "
     "got input.size(1)=7 and kernel_size=(2, 3)."),
    (lambda: F.fold(T.zeros(1, 8, 8), (4, 4), 2),
     "Given output_size=(4, 4), kernel_size=(2, 2), dilation=(1, 1), padding=(0, 0), "
     "stride=(1, 1), expected size of input's dimension 2 to match the calculated number of "
     "sliding blocks 3 * 3 = 9, but got input.size(2)=8."),
    (lambda: F.conv2d(T.zeros(1, 2, 5, 5), T.zeros(3, 2, 3, 3), T.zeros(3, dtype=T.float64)),
     "Input type (float) and bias type (double) should be the same"),
    (lambda: F.conv2d(T.zeros(1, 2, 5, 5, dtype=T.float64), T.zeros(3, 2, 3, 3), T.zeros(3)),
     "Input type (double) and bias type (float) should be the same"),  # bias before weight
    (lambda: F.conv_transpose2d(T.zeros(1, 2, 5, 5, dtype=T.float64), T.zeros(2, 3, 3, 3),
                                T.zeros(3)),
     "expected scalar type Double but found Float"),  # a transposed one: weight first
    (lambda: F.conv2d(T.zeros(1, 2, 5, 5, dtype=T.float16), T.zeros(3, 2, 3, 3,
                                                                    dtype=T.float16), T.zeros(3)),
     "Input type (c10::Half) and bias type (float) should be the same"),
])
def test_errors_use_pytorchs_words(call, message):
    with pytest.raises(RuntimeError) as info:
        call()
    assert str(info.value) == message


def test_a_weight_of_too_few_dims_is_refused_in_pytorchs_words():
    # PyTorch's sentence first, whatever the convolution's rank; the op and
    # the shape follow in parentheses
    for conv, x in ((F.conv1d, T.zeros(1, 4, 5)), (F.conv2d, T.zeros(1, 4, 5, 5)),
                    (F.conv_transpose1d, T.zeros(1, 4, 5))):
        for w in (T.zeros(2, 4), T.zeros(2)):
            with pytest.raises(RuntimeError, match=r"^weight should have at least three "
                                                   r"dimensions \(.*\[2"):
                conv(x, w)


def test_an_integer_input_into_a_float_layer_is_named_as_a_dtype_mismatch():
    # PyTorch's words (the bias first, in C++ type names), not a missing
    # integer kernel
    w, b = T.zeros(2, 4, 3), T.zeros(2)
    for dtype, cpp in ((T.int64, "long int"), (T.int32, "int"), (T.bool, "bool")):
        x = T.zeros(1, 4, 6, dtype=dtype)
        with pytest.raises(RuntimeError, match=f"^Input type \\({cpp}\\) and bias type "
                                               f"\\(float\\) should be the same$"):
            F.conv1d(x, w, b)
    with pytest.raises(RuntimeError, match="^expected scalar type Long but found Float$"):
        F.conv1d(T.zeros(1, 4, 6, dtype=T.int64), w)


def test_padding_string_errors_and_integer_inputs():
    # the functional form raises RuntimeErrors (the modules' constructors ValueErrors)
    with pytest.raises(RuntimeError, match="^padding='same' is not supported for strided "
                                           "convolutions$"):
        F.conv2d(T.zeros(1, 2, 5, 5), T.zeros(3, 2, 3, 3), stride=2, padding="same")
    with pytest.raises(RuntimeError, match="^Invalid padding string: 'full'$"):
        F.conv1d(T.zeros(1, 2, 5), T.zeros(3, 2, 3), padding="full")
    with pytest.raises(ValueError, match="not supported for strided convolutions"):
        nn.Conv2d(2, 3, 3, stride=2, padding="same")
    with pytest.raises(NotImplementedError, match="convolution.*int64"):
        F.conv1d(T.zeros(1, 2, 5, dtype=T.int64), T.zeros(3, 2, 3, dtype=T.int64))


# ---- modules -----------------------------------------------------------------------------------

@pytest.mark.parametrize("mode,np_mode", [("reflect", "reflect"), ("replicate", "edge"),
                                          ("circular", "wrap"), ("zeros", "constant")])
def test_conv_module_padding_modes(mode, np_mode):
    conv = nn.Conv2d(2, 3, (3, 2), padding=(1, 2), padding_mode=mode, dtype=T.float64)
    x = rand((2, 2, 5, 6), 42)
    xp = np.pad(x, [(0, 0), (0, 0), (1, 1), (2, 2)], mode=np_mode)
    ref = np_conv(xp, conv.weight.detach().cpu().numpy(), conv.bias.detach().cpu().numpy(), 1, 0, 1, 1)
    close(conv(tl(x)), ref, T.float64)


def test_padding_modules_keep_their_amounts_until_called():
    # PyTorch's padding modules repeat one number and keep a sequence as it
    # is: a wrong length is F.pad's error when the module is called
    assert nn.ZeroPad2d(2).padding == (2, 2, 2, 2)
    assert nn.CircularPad3d(1).padding == (1,) * 6
    assert nn.ReflectionPad1d([1, 2]).padding == (1, 2)
    m = nn.ConstantPad2d((1, 2, 3), 0.0)
    assert repr(m) == "ConstantPad2d(padding=(1, 2, 3), value=0.0)"
    with pytest.raises(RuntimeError, match="^Padding length must be divisible by 2$"):
        m(T.ones(1, 2, 3, 3))
    assert nn.ReplicationPad2d((1, 0, 2, 0))(T.ones(1, 1, 2, 2)).shape == (1, 1, 4, 3)


def test_conv_transpose_module_output_size():
    m = nn.ConvTranspose2d(3, 2, 3, stride=2, padding=1, dtype=T.float64)
    x = rand((1, 3, 4, 4), 43)
    out = m(tl(x), output_size=(8, 8))
    assert out.shape == (1, 2, 8, 8)
    close(out, np_conv_transpose(x, m.weight.detach().cpu().numpy(), m.bias.detach().cpu().numpy(), 2, 1, 1,
                                 1, 1), T.float64)


@pytest.mark.host_only  # runs its own fake-device subprocess
def test_fake_device_uses_the_device_kernel_and_keeps_results_there():
    run_on_fake_device("""
        import numpy as np
        import torchlike as T
        import torchlike.nn.functional as F
        C = T._C
        C._fake_enable()
        x = T.randn(2, 3, 5, 5).to("fake")
        w = T.randn(4, 3, 3, 3).to("fake")
        try:
            F.conv2d(x, w)
        except NotImplementedError as e:
            assert str(e) == "convolution(): no kernel for device fake:0 and dtype float32", e
        else:
            raise AssertionError("ran without a kernel")
        C._dispatch_lend_cpu_kernels("fake", True)
        x = T.randn(2, 3, 5, 5).to("fake")  # fake memory made while lent is host-readable
        w = T.randn(4, 3, 3, 3).to("fake")
        b = T.randn(4).to("fake")
        for fn in (lambda a, w, b: F.conv2d(a, w, b, padding=1),
                   lambda a, w, b: F.conv_transpose2d(a.transpose(2, 3), w.permute(1, 0, 2, 3), b,
                                                      stride=2),
                   lambda a, w, b: F.unfold(a, 2),
                   lambda a, w, b: F.fold(F.unfold(a, 2), (5, 5), 2)):
            y = fn(x, w, b)
            assert str(y.device) == "fake:0"
            np.testing.assert_allclose(y.cpu().numpy(), fn(x.cpu(), w.cpu(), b.cpu()).cpu().numpy(),
                                       rtol=1e-6)
        xr = x.detach().requires_grad_()
        wr = w.detach().requires_grad_()
        F.conv2d(xr, wr, b, padding=1).sum().backward()
        assert str(xr.grad.device) == "fake:0" and str(wr.grad.device) == "fake:0"
        print("ok")
    """)


def test_concurrent_convolutions_from_several_threads_agree_with_serial_ones():
    """Each call lends OpenBLAS's process-wide thread count to its samples and
    puts it back; concurrent calls must not mix buffers or results."""
    import threading
    xs = [tl(rand((8, 4, 9, 9), 50 + i), T.float32) for i in range(4)]
    w = tl(rand((6, 4, 3, 3), 49), T.float32)
    serial = [F.conv2d(x, w, padding=1).cpu().numpy() for x in xs]
    results = [None] * 4

    def run(i):
        for _ in range(3):
            results[i] = F.conv2d(xs[i], w, padding=1).cpu().numpy()
    threads = [threading.Thread(target=run, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for got, ref in zip(results, serial):
        np.testing.assert_array_equal(got, ref)


@pytest.mark.parametrize("sp,k,s,p,d", [((40, 40), (3, 3), 1, 1, 1),
                                        ((90, 41), (3, 2), (2, 1), (2, 0), (2, 1)),
                                        ((12, 11, 13), (3, 2, 3), 1, (1, 0, 1), (1, 1, 2))])
def test_images_whose_columns_take_several_chunks(sp, k, s, p, d):
    """Columns over 1 MiB are made a chunk of output lines at a time: the
    forward, the input gradient (col2im per chunk) and the weight gradient
    (accumulated over chunks) against NumPy."""
    n = len(sp)
    x = tl(rand((2, 16) + sp, 60), grad=True)
    w = tl(rand((5, 16) + k, 61), grad=True)
    out = CONV[n](x, w, None, s, p, d)
    close(out, np_conv(back(x), back(w), None, s, p, d, 1), T.float64)
    g = rand(tuple(out.shape), 62)
    out.backward(tl(g))
    # dx: the transposed convolution of g, sized back to x
    op = [x.shape[2 + i] - ((out.shape[2 + i] - 1) * tup(s, n)[i] - 2 * tup(p, n)[i]
                            + tup(d, n)[i] * (k[i] - 1) + 1) for i in range(n)]
    close(x.grad, np_conv_transpose(g, back(w), None, s, p, op, 1, d), T.float64)
    close(w.grad, np_conv_weight_grad(back(x), g, k, s, p, d, 1), T.float64)


# The direct path (conv_direct.c: float32, 2-d, stride 1, a kernel wider than
# 1x1, at least 8 output channels per group, batches of two samples per
# thread) for the forward, the input gradient (a stride-1 transposed
# convolution) and the weight gradient; on CPUs without AVX-512 the same
# calls run the GEMM path.  (spatial size, in, out, kernel, padding,
# dilation, groups)
DIRECT_CASES = [
    ((16, 16), 32, 64, (3, 3), 1, 1, 1),      # the small CNN's second layer
    ((13, 17), 8, 24, (3, 3), 2, 2, 1),       # dilation, padding wider than the kernel's reach
    ((12, 12), 16, 32, (3, 3), 1, 1, 2),      # groups
    ((9, 11), 3, 9, (5, 3), (2, 1), 1, 1),    # a rectangular kernel, 9 channels (a ragged tile)
    ((10, 10), 6, 72, (3, 3), 0, 1, 1),       # no padding; 72 channels: 64 + 8 in the weight tiles
    ((20, 21), 5, 20, (2, 2), (0, 1), (1, 2), 1),
    ((8, 9), 4, 8, (3, 3), 3, 1, 1),          # padding past the kernel's reach: no shared gap
]


@pytest.mark.parametrize("case", DIRECT_CASES, ids=str)
def test_direct_path_values_and_gradients_match_numpy(case):
    sp, Cin, O, k, p, d, groups = case
    x = tl(rand((4, Cin) + sp, 70), T.float32, grad=True)
    w = tl(rand((O, Cin // groups) + k, 71) * 0.3, T.float32, grad=True)
    b = tl(rand((O,), 72), T.float32, grad=True)
    out = F.conv2d(x, w, b, 1, p, d, groups)
    close(out, np_conv(back(x), back(w), back(b), 1, p, d, groups), T.float32)
    g = rand(tuple(out.shape), 73)
    out.backward(tl(g, T.float32))
    op = [x.shape[2 + i] - (out.shape[2 + i] - 2 * tup(p, 2)[i] + tup(d, 2)[i] * (k[i] - 1))
          for i in range(2)]
    close(x.grad, np_conv_transpose(g, back(w), None, 1, p, op, groups, d), T.float32)
    close(w.grad, np_conv_weight_grad(back(x), g, k, 1, p, d, groups), T.float32)
    close(b.grad, g.sum((0, 2, 3)), T.float32)


@pytest.mark.parametrize("case", DIRECT_CASES[:3], ids=str)
def test_direct_path_shapes_gradcheck_in_float64(case):
    """float64 runs the GEMM path on the same geometry (fewer channels, a
    smaller image): its derivatives."""
    sp, Cin, O, k, p, d, groups = case
    sp = tuple(min(s, 7) for s in sp)
    Cin, O = 2 * groups, 2 * groups
    x = tl(rand((2, Cin) + sp, 74), grad=True)
    w = tl(rand((O, Cin // groups) + k, 75), grad=True)
    b = tl(rand((O,), 76), grad=True)
    assert gradcheck(lambda x, w, b: F.conv2d(x, w, b, 1, p, d, groups), (x, w, b))


@pytest.mark.parametrize("op", [0, 1])
def test_direct_transposed_convolution_of_stride_one(op):
    """conv_transpose2d of stride 1 is the direct correlation with the kernel
    flipped; output_padding (allowed under dilation 2) pads one side more."""
    x = tl(rand((4, 16, 11, 10), 77), T.float32, grad=True)
    w = tl(rand((16, 12, 3, 3), 78) * 0.3, T.float32, grad=True)
    out = F.conv_transpose2d(x, w, None, 1, 1, op, 1, 2)
    close(out, np_conv_transpose(back(x), back(w), None, 1, 1, op, 1, 2), T.float32)
    g = rand(tuple(out.shape), 79)
    out.backward(tl(g, T.float32))
    # dx of a transposed convolution is the convolution of g (its first
    # windows: output_padding 1 adds one more at the far side)
    close(x.grad, np_conv(g, back(w), None, 1, 1, 2, 1)[:, :, :11, :10], T.float32)
    xd = tl(rand((1, 2, 4, 3), 84), grad=True)
    wd = tl(rand((2, 3, 3, 3), 85), grad=True)
    assert gradcheck(lambda x, w: F.conv_transpose2d(x, w, None, 1, 1, op, 1, 2), (xd, wd))
    assert gradgradcheck(lambda x, w: F.conv_transpose2d(x, w, None, 1, 1, op, 1, 2), (xd, wd))


def test_direct_path_takes_non_contiguous_inputs_and_padding_modes():
    base = rand((4, 16, 14, 12), 80)
    x = T.tensor(base, dtype=T.float32).transpose(2, 3)       # (4, 16, 12, 14), strided
    w = tl(rand((16, 16, 3, 3), 81) * 0.3, T.float32)
    close(F.conv2d(x, w, None, 1, 1), np_conv(back(x), back(w), None, 1, 1, 1, 1), T.float32)
    close(F.conv2d(x, w, None, 1, "same", 2),
          np_conv(back(x), back(w), None, 1, 2, 2, 1), T.float32)
    conv = nn.Conv2d(16, 16, 3, padding=1, padding_mode="reflect", bias=False)
    with T.no_grad():
        conv.weight.copy_(w)
    ref = np_conv(np.pad(back(x), [(0, 0), (0, 0), (1, 1), (1, 1)], mode="reflect"), back(w),
                  None, 1, 0, 1, 1)
    close(conv(x), ref, T.float32)


def test_direct_and_gemm_paths_agree_across_thread_counts():
    """One sample with two threads takes the GEMM path, a batch the direct
    one: the same values either way."""
    x = tl(rand((4, 8, 15, 15), 82), T.float32)
    w = tl(rand((16, 8, 3, 3), 83), T.float32)
    threads = T.get_num_threads()
    try:
        T.set_num_threads(2)
        batch = F.conv2d(x, w, None, 1, 1).cpu().numpy()
        single = np.concatenate([F.conv2d(x[i:i + 1], w, None, 1, 1).cpu().numpy() for i in range(4)])
    finally:
        T.set_num_threads(threads)
    np.testing.assert_allclose(batch, single, rtol=1e-5, atol=1e-4)


def test_valid_padding_with_a_padding_mode_pads_nothing():
    # padding='valid' with reflect/replicate/circular was padded as 'same'
    rng = np.random.default_rng(4)
    x = rng.standard_normal((2, 4, 7, 6))
    for mode in ("reflect", "replicate", "circular"):
        m = nn.Conv2d(4, 2, 3, padding="valid", padding_mode=mode).double()
        plain = nn.Conv2d(4, 2, 3).double()
        plain.load_state_dict(m.state_dict())
        got = m(T.tensor(x)).detach().cpu().numpy()
        assert got.shape == (2, 2, 5, 4)
        np.testing.assert_allclose(got, plain(T.tensor(x)).detach().cpu().numpy(), rtol=1e-12)


def test_conv_transpose_output_size_range_and_errors_as_pytorch():
    x = T.zeros(2, 4, 7, 6)
    m = nn.ConvTranspose2d(4, 2, 3, stride=2)
    # sizes from the smallest up to stride - 1 more; spatial sizes or all four
    assert tuple(m(x, output_size=[16, 13]).shape) == (2, 2, 16, 13)
    assert tuple(m(x, output_size=(2, 2, 15, 14)).shape) == (2, 2, 15, 14)
    with pytest.raises(ValueError, match=r"^requested an output size of \(30, 30\), but valid "
                                         r"sizes range from \[15, 13\] to \[16, 14\] \(for an "
                                         r"input of torchlike.Size\(\[7, 6\]\)\)$"):
        m(x, output_size=(30, 30))
    with pytest.raises(ValueError, match=r"^ConvTranspose2D: for 4D input, output_size must have "
                                         r"2 or 4 elements \(got 3\)$"):
        m(x, output_size=[1, 15, 14])
    dil = nn.ConvTranspose2d(4, 2, 3, dilation=3)  # stride 1: only the smallest size
    with pytest.raises(ValueError, match=r"valid sizes range from \[13, 12\] to \[13, 12\]"):
        dil(x, output_size=[14, 13])
    unb = nn.ConvTranspose1d(4, 2, 3, stride=3)
    assert tuple(unb(T.zeros(4, 7), output_size=[22]).shape) == (2, 22)


def test_complex_convolution_against_numpy_and_gradcheck():
    # complex-valued networks: conv of complex operands (it had no kernel)
    rng = np.random.default_rng(7)
    x = rng.standard_normal((2, 4, 7)) + 1j * rng.standard_normal((2, 4, 7))
    w = rng.standard_normal((6, 2, 3)) + 1j * rng.standard_normal((6, 2, 3))
    b = rng.standard_normal(6) + 1j * rng.standard_normal(6)
    got = F.conv1d(T.tensor(x), T.tensor(w), T.tensor(b), padding=1, groups=2).cpu().numpy()
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1)))
    want = np.empty((2, 6, 7), dtype=complex)
    for o in range(6):
        g = o // 3   # its group's input channels
        for t in range(7):
            want[:, o, t] = (xp[:, 2 * g:2 * g + 2, t:t + 3] * w[o]).sum((1, 2)) + b[o]
    np.testing.assert_allclose(got, want, rtol=1e-12)
    # gradcheck takes real inputs: the real and imaginary parts separately
    parts = [T.tensor(v.copy(), requires_grad=True) for v in
             (x[:1, :2, :5].real, x[:1, :2, :5].imag, w[:3, :, :2].real, w[:3, :, :2].imag)]

    def conv(xr, xi, wr, wi, transpose=False):
        a, k = T.complex(xr, xi), T.complex(wr, wi)
        out = F.conv_transpose1d(a, k[:2].transpose(0, 1)) if transpose else \
            F.conv1d(a, k, stride=2)
        return T.view_as_real(out)
    assert gradcheck(conv, parts)
    assert gradcheck(lambda *p: conv(*p, transpose=True), parts)
    m = nn.Conv2d(2, 3, 2, dtype=T.cfloat)
    assert m(T.ones(1, 2, 3, 3, dtype=T.cfloat)).dtype == T.complex64
    with pytest.raises(RuntimeError, match="expected scalar type Float but found ComplexFloat"):
        F.conv1d(T.ones(1, 2, 4), T.tensor(w[:1]).to(T.complex64))
