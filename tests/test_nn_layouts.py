"""Memory layouts through the nn layers (docs/shapes.md, "Memory layouts"):
conv, pooling, batch/group norm, interpolation, shuffles, dropout and
padding give a channels-last input a channels-last result (conv: the input
or the weight), and their input gradients follow, as PyTorch's do.
PyTorch's strides come from tests/golden/nn_layouts.json
(scripts/golden_nn_layouts.py); values are checked against the row-major
computation, and gradients by finite differences."""
import numpy as np
import pytest

import torchlike as torch
import torchlike.nn.functional as F
from oracle import golden_calls, golden_check

CALLS, _golden = golden_calls("nn_layouts")


@pytest.mark.parametrize("call,expected", CALLS, ids=[c for c, _ in CALLS])
def test_layouts_match_pytorch(call, expected):
    golden_check(_golden, call, expected, same_wording=("required rank", "Given groups"))


# ---- values do not depend on the layout --------------------------------------------

def _host(t):
    """A result as a row-major ndarray, read through the host."""
    return t.detach().cpu().numpy().copy()


_G = torch.Generator().manual_seed(3)
_X4 = torch.randn(2, 4, 7, 6, generator=_G, dtype=torch.float64)
_X5 = torch.randn(2, 4, 4, 5, 3, generator=_G, dtype=torch.float64)
_W = torch.randn(6, 4, 3, 3, generator=_G, dtype=torch.float64)
_W5 = torch.randn(3, 4, 2, 2, 2, generator=_G, dtype=torch.float64)

_OPS4 = {
    "conv2d": lambda t: F.conv2d(t, _W, padding=1, stride=(2, 1)),
    "conv_transpose2d": lambda t: F.conv_transpose2d(t, _W.transpose(0, 1), stride=2),
    "max_pool2d": lambda t: F.max_pool2d(t, 3, 2, 1, return_indices=True),
    "avg_pool2d": lambda t: F.avg_pool2d(t, 2, ceil_mode=True),
    "adaptive_max_pool2d": lambda t: F.adaptive_max_pool2d(t, (3, 4), return_indices=True),
    "adaptive_avg_pool2d": lambda t: F.adaptive_avg_pool2d(t, (3, 4)),
    "batch_norm": lambda t: F.batch_norm(t, None, None, training=True),
    "group_norm": lambda t: F.group_norm(t, 2),
    "lrn": lambda t: F.local_response_norm(t, 3),
    "bilinear": lambda t: F.interpolate(t, scale_factor=1.5, mode="bilinear"),
    "bicubic": lambda t: F.interpolate(t, size=(5, 9), mode="bicubic", align_corners=True),
    "nearest": lambda t: F.interpolate(t, scale_factor=2),
    "pixel_shuffle": lambda t: F.pixel_shuffle(t, 2),
    "pixel_unshuffle": lambda t: F.pixel_unshuffle(t[..., :6, :], 2),
    "pad_constant": lambda t: F.pad(t, (1, 2, -1, 1), value=0.5),
    "pad_reflect": lambda t: F.pad(t, (2, 1, 1, 2), mode="reflect"),
    "pad_replicate": lambda t: F.pad(t, (2, 1, 1, 2), mode="replicate"),
}
_OPS5 = {
    "conv3d": lambda t: F.conv3d(t.float(), _W5.float(), padding=1),
    "max_pool3d": lambda t: F.max_pool3d(t, 2, return_indices=True),
    "trilinear": lambda t: F.interpolate(t, scale_factor=2, mode="trilinear"),
    "batch_norm3d": lambda t: F.batch_norm(t, None, None, training=True),
    "pad_replicate3d": lambda t: F.pad(t, (1, 0, 2, 1, 0, 1), mode="replicate"),
}


# computed by their own channels-last kernels, which add the same products in
# another order: equal to rounding (float64) rather than bit for bit
_REORDERED = {"conv2d", "conv_transpose2d"}


def _check_same(f, x, fmt, exact=True):
    laid = x.contiguous(memory_format=fmt)
    got, want = f(laid), f(x)
    got, want = (got, want) if isinstance(got, tuple) else ((got,), (want,))
    for g, w in zip(got, want):
        assert g.is_contiguous(memory_format=fmt)
        assert w.is_contiguous()
        if exact:
            np.testing.assert_array_equal(_host(g), _host(w))
        else:
            np.testing.assert_allclose(_host(g), _host(w), rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize("name", list(_OPS4))
def test_channels_last_values_are_the_row_major_ones(name):
    _check_same(_OPS4[name], _X4, torch.channels_last, exact=name not in _REORDERED)


@pytest.mark.parametrize("name", list(_OPS5))
def test_channels_last_3d_values_are_the_row_major_ones(name):
    _check_same(_OPS5[name], _X5, torch.channels_last_3d)


def test_dropout_keeps_the_layout_and_the_draws():
    laid = _X4.contiguous(memory_format=torch.channels_last)
    for f in (lambda t: F.dropout(t, 0.4), lambda t: F.dropout2d(t, 0.4),
              lambda t: F.feature_alpha_dropout(t, 0.4, True)):
        torch.manual_seed(7)
        got = f(laid)
        torch.manual_seed(7)
        want = f(_X4)
        assert got.is_contiguous(memory_format=torch.channels_last)
        np.testing.assert_array_equal(_host(got), _host(want))


@pytest.mark.parametrize("name", ["conv2d", "max_pool2d", "batch_norm", "bilinear", "group_norm",
                                  "pad_reflect", "pad_replicate"])
def test_channels_last_gradients(name):
    """Finite differences on a small channels-last input, and the gradient
    equal to the row-major input's and laid out as it."""
    f = _OPS4[name]
    x = _X4[:1, :, :5, :4].contiguous(memory_format=torch.channels_last).requires_grad_()

    def out(t):
        y = f(t)
        return y[0] if isinstance(y, tuple) else y
    assert torch.autograd.gradcheck(out, (x,))
    y = out(x)
    gy = torch.randn(y.shape, generator=torch.Generator().manual_seed(5), dtype=y.dtype)
    gx, = torch.autograd.grad(y, x, gy.contiguous(memory_format=torch.channels_last))
    xr = x.detach().contiguous().requires_grad_()
    gr, = torch.autograd.grad(out(xr), xr, gy)
    assert gx.is_contiguous(memory_format=torch.channels_last)
    np.testing.assert_allclose(_host(gx), _host(gr), rtol=1e-12, atol=1e-12)


def test_convert_conv_weights_keeps_values_and_parameters():
    m = torch.nn.Sequential(torch.nn.Conv2d(4, 5, 3), torch.nn.ReLU(), torch.nn.Conv2d(5, 2, 1))
    x = _X4.float()
    want = _host(m(x))
    w = m[0].weight
    torch.nn.utils.convert_conv2d_weight_memory_format(m, torch.channels_last)
    assert m[0].weight is w and isinstance(w, torch.nn.Parameter)
    assert w.is_contiguous(memory_format=torch.channels_last)
    y = m(x)  # a row-major input, channels-last weights: a channels-last result
    assert y.is_contiguous(memory_format=torch.channels_last) and not y.is_contiguous()
    np.testing.assert_allclose(_host(y), want, rtol=1e-5, atol=1e-6)
    y.sum().backward()
    assert w.grad is not None and w.grad.shape == w.shape


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int64, torch.float16])
@pytest.mark.parametrize("args", [(3, 2, 1), (2, 1, 0, 2), (3, 2, 1, 1, True)],
                         ids=["pad", "dilated", "ceil"])
@pytest.mark.parametrize("C", [5, 37])
def test_max_pool_channels_last_kernel_matches_planar(dtype, args, C):
    """The channels-last max pooling kernel: ties (the first maximum), NaNs
    (a later NaN wins), integers; values, indices and the scattered gradient
    the same as the planar kernel's.  37 channels: blocks of vector registers
    (16 floats, 8 doubles or int64s) and a tail of channels left over."""
    a = np.round(np.random.default_rng(2).standard_normal((2, C, 7, 6)) * 2)
    if dtype.is_floating_point:
        a[0, 1, 2:4, 1:3] = np.nan
        a[1, 3, 4, 4] = np.nan
        a[1, C - 1, 0:2, 3] = np.nan
        a[0, C // 2, 5, 0:5] = np.nan
    x = torch.tensor(a).to(dtype)
    laid = x.contiguous(memory_format=torch.channels_last)
    got = F.max_pool2d(laid, *args, return_indices=True)
    want = F.max_pool2d(x, *args, return_indices=True)
    for g, w in zip(got, want):
        assert g.is_contiguous(memory_format=torch.channels_last)
        np.testing.assert_array_equal(_host(g), _host(w))
    if dtype in (torch.float32, torch.float64):
        gy = torch.randn(got[0].shape, generator=torch.Generator().manual_seed(1), dtype=dtype)
        xs = [t.detach().requires_grad_() for t in (laid, x)]
        gl, gr = (torch.autograd.grad(F.max_pool2d(t, *args), t, g)[0]
                  for t, g in zip(xs, (gy.contiguous(memory_format=torch.channels_last), gy)))
        assert gl.is_contiguous(memory_format=torch.channels_last)
        np.testing.assert_array_equal(_host(gl), _host(gr))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16])
@pytest.mark.parametrize("train", [True, False])
@pytest.mark.parametrize("shape", [(2, 19, 40, 30), (3, 4, 5, 3, 2)], ids=["2d", "3d"])
def test_batch_norm_channels_last_kernel_matches_planar(dtype, train, shape):
    """The channels-last batch norm loops (a channel's sums taken in the
    planar loops' order; 1200 positions span two of their chunks): output,
    running statistics and all three gradients bit for bit."""
    gen = torch.Generator().manual_seed(4)
    x = torch.randn(shape, generator=gen).to(dtype)
    gy = torch.randn(shape, generator=gen).to(dtype)
    fmt = torch.channels_last if len(shape) == 4 else torch.channels_last_3d
    C = shape[1]
    # parameters and statistics in the input's dtype, float32 beside bfloat16
    # (PyTorch's CPU rule for the mix)
    pdtype = torch.float32 if dtype == torch.bfloat16 else dtype
    outs = []
    for t, g in ((x.contiguous(memory_format=fmt), gy.contiguous(memory_format=fmt)), (x, gy)):
        t = t.detach().requires_grad_()
        w = torch.linspace(0.5, 1.5, C).to(pdtype).requires_grad_()
        b = torch.linspace(-1, 1, C).to(pdtype).requires_grad_()
        rm = torch.linspace(-0.2, 0.2, C).to(pdtype)
        rv = torch.linspace(0.5, 2, C).to(pdtype)
        y = F.batch_norm(t, rm, rv, w, b, training=train, momentum=0.3)
        grads = torch.autograd.grad(y, (t, w, b), g)
        outs.append((y, rm, rv) + grads)
    for got, want in zip(*outs):
        np.testing.assert_array_equal(_host(got.float()), _host(want.float()))
    assert outs[0][0].is_contiguous(memory_format=fmt) and outs[0][3].is_contiguous(memory_format=fmt)


_WEIGHTED = {
    "avg_pool2d": lambda t: F.avg_pool2d(t, 3, 2, 1, count_include_pad=False),
    "adaptive_avg_pool2d": lambda t: F.adaptive_avg_pool2d(t, (4, 3)),
    "bilinear": lambda t: F.interpolate(t, scale_factor=1.7, mode="bilinear"),
    "bicubic_ac": lambda t: F.interpolate(t, size=(9, 5), mode="bicubic", align_corners=True),
    "nearest": lambda t: F.interpolate(t, size=(11, 4)),
    "antialias": lambda t: F.interpolate(t, size=(3, 4), mode="bilinear", antialias=True),
    "area": lambda t: F.interpolate(t, size=(3, 2), mode="area"),
}


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("name", list(_WEIGHTED))
def test_weighted_channels_last_passes_match_planar(name, dtype):
    """The separable passes run over a channels-last input with the channels
    innermost: outputs and gradients bit for bit the planar ones."""
    gen = torch.Generator().manual_seed(6)
    x = torch.randn(2, 19, 7, 8, generator=gen, dtype=dtype)
    f = _WEIGHTED[name]
    y = f(x)
    gy = torch.randn(y.shape, generator=gen, dtype=dtype)
    res = []
    for t, g in ((x.contiguous(memory_format=torch.channels_last),
                  gy.contiguous(memory_format=torch.channels_last)), (x, gy)):
        t = t.detach().requires_grad_()
        out = f(t)
        res.append((out, torch.autograd.grad(out, t, g)[0]))
    assert res[0][0].is_contiguous(memory_format=torch.channels_last)
    for got, want in zip(*res):
        np.testing.assert_array_equal(_host(got), _host(want))


_ROWS = {
    "bilinear_x2": lambda t: F.interpolate(t, scale_factor=2, mode="bilinear"),
    "bilinear_down": lambda t: F.interpolate(t, size=(9, 23), mode="bilinear",
                                             align_corners=True),
    "antialias_down": lambda t: F.interpolate(t, size=(6, 7), mode="bilinear", antialias=True),
    "avg_pool5": lambda t: F.avg_pool2d(t, 5, 1, 2, count_include_pad=False),
}


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("name", list(_ROWS))
def test_weighted_channels_last_rows_match_planar(name, threads):
    """Two spatial dims run a row at a time, each row's sources cached
    (several to a row when downsampling) and the rows split over threads:
    still bit for bit the planar passes, forward and backward."""
    gen = torch.Generator().manual_seed(8)
    x = torch.randn(3, 5, 31, 37, generator=gen)
    f = _ROWS[name]
    gy = torch.randn(f(x).shape, generator=gen)
    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        res = []
        for fmt in (torch.channels_last, torch.contiguous_format):
            t = x.contiguous(memory_format=fmt).requires_grad_()
            out = f(t)
            res.append((out, torch.autograd.grad(out, t, gy.contiguous(memory_format=fmt))[0]))
    finally:
        torch.set_num_threads(before)
    assert res[0][1].is_contiguous(memory_format=torch.channels_last)
    for got, want in zip(*res):
        assert _host(got).tobytes() == _host(want).tobytes()


def test_channels_last_pad_errors_are_the_row_major_ones():
    laid = _X4.contiguous(memory_format=torch.channels_last)
    for args in (((7, 7, 0, 0), "reflect"), ((1, 2, 3), "replicate"), ((1, 1), "bogus")):
        with pytest.raises(Exception) as want:
            F.pad(_X4, *args)
        with pytest.raises(Exception) as got:
            F.pad(laid, *args)
        assert type(got.value) is type(want.value) and str(got.value) == str(want.value)


@pytest.mark.parametrize("name", ["max_pool2d", "avg_pool2d", "batch_norm", "bilinear", "conv2d"])
def test_channels_last_views_that_are_not_dense(name):
    """A channel slice of an NHWC tensor suggests channels-last without
    being dense: the kernels take their fallback, the values stay."""
    base = torch.randn(2, 7, 6, 8, generator=torch.Generator().manual_seed(8),
                       dtype=torch.float64)
    view = base.permute(0, 3, 1, 2)[:, ::2]  # (2, 4, 7, 6), channels strided by 2
    got, want = _OPS4[name](view), _OPS4[name](view.contiguous())
    got, want = (got, want) if isinstance(got, tuple) else ((got,), (want,))
    for g, w in zip(got, want):
        assert g.is_contiguous(memory_format=torch.channels_last)
        np.testing.assert_array_equal(_host(g), _host(w))


def test_max_pool3d_channels_last_window_of_many_taps_matches_planar():
    """A window of 75 taps (over the kernel's 64 kept on the stack): the
    channels-last max takes its tap offsets from the heap, same values and
    indices as the planar kernel's."""
    a = np.round(np.random.default_rng(3).standard_normal((2, 20, 6, 7, 5)) * 2)
    x = torch.tensor(a).float()
    got = F.max_pool3d(x.contiguous(memory_format=torch.channels_last_3d), (5, 5, 3), 1, (2, 2, 1),
                       return_indices=True)
    want = F.max_pool3d(x, (5, 5, 3), 1, (2, 2, 1), return_indices=True)
    for g, w in zip(got, want):
        assert g.is_contiguous(memory_format=torch.channels_last_3d)
        np.testing.assert_array_equal(_host(g), _host(w))
