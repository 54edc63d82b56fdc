"""Adaptive average pooling to size 1 (global average pooling): PyTorch
computes it as x.mean(spatial dims, keepdim=True), and torchlike's pooling
kernel (src/nn/pool/pool_cpu.c, tl_cpu_pool_plane_mean) follows the bits of
torchlike's own mean in each of the reduction engine's orders: contiguous
planes (16 lanes, long planes split in halves), short planes in a large
batch (summed in order), channels-last planes, and the inputs it leaves to
mean itself (few long planes, non-contiguous and half-precision inputs).

Oracles: the mean op (the path this replaced, bit for bit), NumPy for the
values, finite differences for gradients; the gradient g / size in the
gradient's dtype, as mean's derivative gives it."""
import numpy as np
import pytest

import torchlike as T
import torchlike.nn.functional as F
from torchlike.autograd import gradcheck, gradgradcheck

# (shape, note): which of the kernel's orders each shape exercises
SHAPES = [
    ((4, 32, 7, 7), "16 lanes and a tail"),
    ((2, 3, 1, 1), "one element a plane"),
    ((3, 5, 48, 50), "a plane longer than one block, split in halves"),
    ((8, 16, 3, 3), "short planes in a large batch: summed in order"),
    ((2, 3, 3, 3), "short planes in a small batch: lanes"),
    ((1, 2, 200, 200), "few long planes: mean's own threads split"),
    ((5, 7, 2), "unbatched"),
    ((16, 1, 5, 4), "one channel"),
]
DTYPES = [T.float32, T.float64]


def data(shape, dtype=T.float32, seed=0):
    rng = np.random.default_rng(seed)
    # values of many magnitudes, so that the summation order shows in the bits
    x = rng.standard_normal(shape) * np.exp(rng.uniform(-8, 8, shape))
    return T.from_numpy(x).to(dtype)


def bits_equal(a, b):
    assert a.shape == b.shape and a.dtype == b.dtype
    av, bv = a.float().numpy() if a.dtype == T.bfloat16 else a.numpy(), \
        b.float().numpy() if b.dtype == T.bfloat16 else b.numpy()
    np.testing.assert_array_equal(av.view(np.uint8), bv.view(np.uint8))


@pytest.mark.parametrize("shape,note", SHAPES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_global_average_is_means_bits_and_numpys_values(shape, note, dtype):
    x = data(shape, dtype)
    y = F.adaptive_avg_pool2d(x, 1)
    bits_equal(y.contiguous(), x.mean((-2, -1), keepdim=True))
    xn = x.numpy().astype(np.float64)
    want = xn.mean(axis=(-2, -1), keepdims=True)
    # float64: sums in another order differ by rounding, up to about
    # eps * size * mean |x|
    size = xn.shape[-1] * xn.shape[-2]
    slack = 2.3e-16 * size * np.abs(xn).mean(axis=(-2, -1), keepdims=True)
    rtol = 6e-8 if dtype == T.float32 else 0
    assert np.all(np.abs(y.numpy() - want) <= rtol * np.abs(want) + slack)


@pytest.mark.parametrize("shape,note", [s for s in SHAPES if len(s[0]) == 4])
@pytest.mark.parametrize("dtype", DTYPES)
def test_channels_last_input_keeps_its_layout_and_means_bits(shape, note, dtype):
    x = data(shape, dtype, seed=1).contiguous(memory_format=T.channels_last)
    y = F.adaptive_avg_pool2d(x, (1, 1))
    if shape[1] > 1 and shape[2] * shape[3] > 1:
        assert y.is_contiguous(memory_format=T.channels_last)
    bits_equal(y.contiguous(), x.mean((-2, -1), keepdim=True))


@pytest.mark.parametrize("dtype", DTYPES + [T.bfloat16, T.float16])
def test_non_contiguous_and_half_inputs_are_means(dtype):
    x = data((4, 6, 9, 10), dtype, seed=2)
    for view in (x[:, ::2], x.transpose(2, 3), x[..., 1:], x.permute(1, 0, 2, 3)):
        bits_equal(F.adaptive_avg_pool2d(view, 1).contiguous(),
                   view.mean((-2, -1), keepdim=True))


@pytest.mark.parametrize("dtype", DTYPES)
def test_3d_global_average_is_means_bits(dtype):
    x = data((2, 20, 3, 4, 5), dtype, seed=3)
    bits_equal(F.adaptive_avg_pool3d(x, 1), x.mean((-3, -2, -1), keepdim=True))
    cl = x.contiguous(memory_format=T.channels_last_3d)
    bits_equal(F.adaptive_avg_pool3d(cl, 1).contiguous(), cl.mean((-3, -2, -1), keepdim=True))


def test_node_is_pytorchs_mean_node():
    x = data((2, 3, 4, 4)).requires_grad_()
    assert type(F.adaptive_avg_pool2d(x, 1).grad_fn).__name__ == "MeanBackward1"
    assert type(F.adaptive_avg_pool2d(x, (1, 1)).grad_fn).__name__ == "MeanBackward1"
    assert type(F.adaptive_avg_pool2d(x, 2).grad_fn).__name__ == "AdaptiveAvgPool2DBackward0"


@pytest.mark.parametrize("dtype", DTYPES + [T.bfloat16, T.float16])
@pytest.mark.parametrize("channels_last", [False, True])
def test_gradient_is_g_over_the_plane_size(dtype, channels_last):
    x = data((3, 5, 6, 7), dtype, seed=4)
    if channels_last:
        x = x.contiguous(memory_format=T.channels_last)
    x.requires_grad_()
    g = data((3, 5, 1, 1), dtype, seed=5)
    F.adaptive_avg_pool2d(x, 1).backward(g)
    bits_equal(x.grad.contiguous(), (g / 42).expand(3, 5, 6, 7).contiguous())
    wide = T.float64 if dtype == T.float64 else T.float32
    want = np.broadcast_to(g.to(wide).numpy() / 42, (3, 5, 6, 7))
    np.testing.assert_allclose(x.grad.to(wide).numpy(), want,
                               rtol={T.float32: 1e-7, T.float64: 1e-15, T.float16: 2e-3,
                                     T.bfloat16: 1.6e-2}[dtype],
                               atol=6e-8 if dtype == T.float16 else 0)  # float16's subnormals


def test_gradient_of_a_channels_last_gradient():
    x = data((2, 4, 3, 5), T.float64, seed=6).requires_grad_()
    g = data((2, 4, 1, 1), T.float64, seed=7).contiguous(memory_format=T.channels_last)
    (gx,) = T.autograd.grad(F.adaptive_avg_pool2d(x, 1), x, g)
    bits_equal(gx.contiguous(), (g.contiguous() / 15).expand(2, 4, 3, 5).contiguous())


@pytest.mark.parametrize("shape", [(2, 3, 4, 5), (3, 4, 2), (20, 3, 3, 3)])
def test_gradients_by_finite_differences(shape):
    x = data(shape, T.float64, seed=8).requires_grad_()
    assert gradcheck(lambda a: F.adaptive_avg_pool2d(a, 1), (x,))
    assert gradgradcheck(lambda a: F.adaptive_avg_pool2d(a, 1), (x,))
    cl = data((2, 3, 4, 5), T.float64, seed=9).contiguous(
        memory_format=T.channels_last).requires_grad_()
    assert gradcheck(lambda a: F.adaptive_avg_pool2d(a, 1), (cl,))


def test_empty_and_integer_inputs_keep_means_answers():
    assert T.isnan(F.adaptive_avg_pool2d(T.ones(2, 3, 0, 4), 1)).all()
    assert F.adaptive_avg_pool2d(T.ones(0, 3, 4, 4), 1).shape == (0, 3, 1, 1)
    with pytest.raises(RuntimeError):
        F.adaptive_avg_pool2d(T.ones(2, 3, 4, 4, dtype=T.int64), 1)
