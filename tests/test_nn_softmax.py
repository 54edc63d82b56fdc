"""softmax, log_softmax and softmin: the fused kernels of src/nn/softmax.

Values against a NumPy reference over dtypes, dims, 0-d, empty,
non-contiguous and broadcast inputs; gradients and second derivatives by
finite differences; the backward ops on their own; errors; and the kernel
on the fake device (subprocess, like tests/test_dispatch.py)."""

import numpy as np
import pytest

import torchlike as T
import torchlike.nn.functional as F
from torchlike.autograd import gradcheck, gradgradcheck
from nn_fake_device import run_on_fake_device

# the derivatives gradchecked here (tests/test_grad_registry.py reads this)
GRADCHECKED = {"softmax", "log_softmax", "_softmax_backward_data", "_log_softmax_backward_data"}


def np_softmax(x, dim, log=False):
    x = np.asarray(x, dtype=np.float64)
    if x.ndim == 0:
        return np.zeros_like(x) if log else np.ones_like(x)
    m = np.max(x, axis=dim, keepdims=True) if x.shape[dim] else 0
    e = np.exp(x - m)
    s = e.sum(axis=dim, keepdims=True)
    with np.errstate(divide="ignore"):
        return x - m - np.log(s) if log else e / s


TOL = {T.float64: 1e-12, T.float32: 2e-6, T.float16: 2e-3, T.bfloat16: 1.6e-2}


def to_numpy(t):
    return t.float().cpu().numpy() if t.dtype in (T.float16, T.bfloat16) else t.cpu().numpy()


@pytest.mark.parametrize("log", [False, True])
@pytest.mark.parametrize("dtype", list(TOL))
@pytest.mark.parametrize("shape,dim", [((), 0), ((7,), 0), ((3, 5), 1), ((3, 5), 0),
                                       ((2, 3, 130), 1), ((4, 70, 3), -2), ((2, 0, 3), 1),
                                       ((0, 4), 1), ((2, 3, 4, 5), 3), ((1, 200), 0)])
def test_values_match_numpy(shape, dim, dtype, log):
    x = np.random.default_rng(0).standard_normal(shape) * 4
    t = T.tensor(x, dtype=dtype)
    ref = np_softmax(to_numpy(t).astype(np.float64), dim, log)
    y = (F.log_softmax if log else F.softmax)(t, dim)
    assert y.dtype == dtype and y.shape == t.shape
    np.testing.assert_allclose(to_numpy(y), ref, rtol=TOL[dtype], atol=TOL[dtype])


@pytest.mark.parametrize("log", [False, True])
def test_non_contiguous_and_broadcast_inputs(log):
    base = np.random.default_rng(1).standard_normal((6, 8, 5))
    fn = F.log_softmax if log else F.softmax
    for view in (lambda a: a[:, ::2, :], lambda a: a.transpose(2, 0, 1), lambda a: a[::-1, :, 1:4]):
        x = view(base)
        t = view(T.tensor(base)) if not isinstance(view(T.tensor(base)), np.ndarray) else None
        for dim in range(3):
            np.testing.assert_allclose(fn(t, dim).cpu().numpy(), np_softmax(x, dim, log), rtol=1e-12,
                                       atol=1e-12)
    row = np.random.default_rng(2).standard_normal(5)
    t = T.tensor(row).expand(4, 5)
    np.testing.assert_allclose(fn(t, 1).cpu().numpy(), np_softmax(np.broadcast_to(row, (4, 5)), 1, log),
                               rtol=1e-12, atol=1e-12)


def test_extreme_values_stay_finite_and_nan_propagates():
    x = T.tensor([[1000.0, 0.0, -1000.0], [-1e30, -1e30, 5.0], [float("-inf"), 0.0, 1.0]])
    y = F.softmax(x, 1).cpu().numpy()
    np.testing.assert_allclose(y, np_softmax(x.cpu().numpy().astype(np.float64), 1), atol=1e-7)
    ly = F.log_softmax(x, 1).cpu().numpy()
    assert ly[0, 2] == np.float32(-2000.0) and ly[2, 0] == -np.inf
    nan = F.softmax(T.tensor([[1.0, float("nan"), 2.0], [1.0, 2.0, 3.0]]), 1).cpu().numpy()
    assert np.isnan(nan[0]).all() and np.isfinite(nan[1]).all()


def test_dtype_argument_casts_the_input_first():
    x = T.tensor([[1.0, 2.0, 3.0]], dtype=T.float16)
    y = F.softmax(x, 1, dtype=T.float64)
    assert y.dtype == T.float64
    np.testing.assert_allclose(y.cpu().numpy(), np_softmax(x.float().cpu().numpy(), 1), rtol=1e-12)
    xi = T.tensor([[1, 2, 3]])
    assert F.log_softmax(xi, 1, dtype=T.float32).dtype == T.float32
    assert T.softmax(x, 1).dtype == T.float16 and x.softmax(1).dtype == T.float16


def test_softmin_is_softmax_of_the_negation():
    x = np.random.default_rng(3).standard_normal((3, 4))
    np.testing.assert_allclose(F.softmin(T.tensor(x), 1).cpu().numpy(), np_softmax(-x, 1), rtol=1e-12)


@pytest.mark.parametrize("log", [False, True])
@pytest.mark.parametrize("shape,dim", [((5,), 0), ((3, 4), 1), ((3, 4), 0), ((2, 3, 4), 1), ((), 0)])
def test_gradients_and_second_derivatives(shape, dim, log):
    fn = F.log_softmax if log else F.softmax
    x = T.tensor(np.random.default_rng(4).standard_normal(shape), requires_grad=True)
    assert gradcheck(lambda a: fn(a, dim), (x,))
    assert gradgradcheck(lambda a: fn(a, dim), (x,))


@pytest.mark.parametrize("log", [False, True])
def test_backward_ops_match_the_formula_and_have_derivatives(log):
    rng = np.random.default_rng(5)
    x, g = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    y = np_softmax(x, 1, log)
    ref = g - np.exp(y) * g.sum(1, keepdims=True) if log else y * (g - (g * y).sum(1, keepdims=True))
    op = T._C._log_softmax_backward_data if log else T._C._softmax_backward_data
    out = op(T.tensor(g), T.tensor(y), 1, T.float64)
    np.testing.assert_allclose(out.cpu().numpy(), ref, rtol=1e-12)
    assert op(T.tensor(g), T.tensor(y), 1, T.float32).dtype == T.float32
    gt = T.tensor(g, requires_grad=True)
    yt = T.tensor(y, requires_grad=True)
    assert gradcheck(lambda a, b: op(a, b, 1, T.float64), (gt, yt))


# Contiguous rows up to 256 long go by tiles of up to 64 rows and 4096
# elements (src/nn/softmax/softmax_cpu.c); 257 is the first on the row path.
SHORT_LENS = [1, 2, 7, 10, 16, 40, 63, 64, 65, 100, 255, 256, 257]


def np_softmax_backward(g, y, dim, log):
    if log:
        return g - np.exp(y) * g.sum(dim, keepdims=True)
    return y * (g - (g * y).sum(dim, keepdims=True))


@pytest.mark.parametrize("log", [False, True])
@pytest.mark.parametrize("dtype", list(TOL))
@pytest.mark.parametrize("length", SHORT_LENS)
def test_short_rows_forward_and_backward_match_numpy(length, dtype, log):
    # row counts below, at and around a tile (64 rows, or 4096 // length)
    rng = np.random.default_rng(length)
    for rows in (1, 3, 64, 65, 130, 4096 // length + 1):
        x = T.tensor(rng.standard_normal((rows, length)) * 4, dtype=dtype)
        g = T.tensor(rng.standard_normal((rows, length)), dtype=dtype)
        y = (F.log_softmax if log else F.softmax)(x, -1)
        ref = np_softmax(to_numpy(x).astype(np.float64), -1, log)
        assert y.dtype == dtype
        np.testing.assert_allclose(to_numpy(y), ref, rtol=TOL[dtype], atol=TOL[dtype])
        op = T._C._log_softmax_backward_data if log else T._C._softmax_backward_data
        y64 = to_numpy(y).astype(np.float64)
        dx = op(g, y, 1, dtype)
        ref = np_softmax_backward(to_numpy(g).astype(np.float64), y64, -1, log)
        scale = 1 + np.abs(ref).max()
        np.testing.assert_allclose(to_numpy(dx), ref, rtol=TOL[dtype], atol=TOL[dtype] * scale)


@pytest.mark.parametrize("log", [False, True])
def test_short_rows_of_non_contiguous_inputs(log):
    base = np.random.default_rng(6).standard_normal((40, 70, 12))
    fn = F.log_softmax if log else F.softmax
    for view in (lambda a: a.transpose(1, 0, 2), lambda a: a[:, ::3, ::2], lambda a: a[::-1, 5:]):
        x = view(base)
        for dt in (T.float64, T.float32):
            y = fn(view(T.tensor(base, dtype=dt)), -1)
            np.testing.assert_allclose(to_numpy(y), np_softmax(x, -1, log), rtol=TOL[dt],
                                       atol=TOL[dt])


@pytest.mark.parametrize("dtype", [T.float32, T.float64])
@pytest.mark.parametrize("length", [3, 40, 65])
def test_short_rows_with_minus_inf_and_all_minus_inf_rows(length, dtype):
    # as PyTorch: a row of -inf gives NaN (softmax and log_softmax, and both
    # gradients); a -inf entry elsewhere gives 0 / -inf.
    rng = np.random.default_rng(7)
    x = rng.standard_normal((70, length))
    x[rng.random(x.shape) < 0.3] = -np.inf
    x[::7] = -np.inf
    x[:, 0] = np.where(np.arange(70) % 7 == 0, -np.inf, x[:, 0] if length > 1 else 0.0)
    for log in (False, True):
        with np.errstate(invalid="ignore"):
            ref = np_softmax(x, -1, log)
        t = T.tensor(x, dtype=dtype, requires_grad=True)
        y = (F.log_softmax if log else F.softmax)(t, -1)
        np.testing.assert_allclose(y.detach().cpu().numpy(), ref, rtol=TOL[dtype], atol=TOL[dtype])
        assert np.isnan(y.detach().cpu().numpy()[::7]).all()
        y.backward(T.ones(x.shape, dtype=dtype))
        with np.errstate(invalid="ignore"):
            gref = np_softmax_backward(np.ones(x.shape), ref, -1, log)
        np.testing.assert_allclose(t.grad.cpu().numpy(), gref, rtol=TOL[dtype], atol=TOL[dtype])


@pytest.mark.parametrize("log", [False, True])
@pytest.mark.parametrize("shape", [(70, 1), (67, 7), (5, 64), (3, 65), (2, 3, 257)])
def test_short_rows_gradients(shape, log):
    fn = F.log_softmax if log else F.softmax
    x = T.tensor(np.random.default_rng(8).standard_normal(shape), requires_grad=True)
    assert gradcheck(lambda a: fn(a, -1), (x,))
    if x.numel() <= 500:
        assert gradgradcheck(lambda a: fn(a, -1), (x,))


def test_grad_of_softmax_with_dtype_comes_back_in_the_inputs_dtype():
    x = T.tensor([[0.5, 1.0, -1.0]], dtype=T.float32, requires_grad=True)
    F.softmax(x, 1, dtype=T.float64)[0, 0].backward()
    assert x.grad.dtype == T.float32
    y = np_softmax(np.array([[0.5, 1.0, -1.0]]), 1)
    np.testing.assert_allclose(x.grad.cpu().numpy()[0], y[0, 0] * (np.eye(3)[0] - y[0]), rtol=1e-6)


def test_the_tape_keeps_the_output_not_the_input():
    x = T.randn(4, 5, requires_grad=True)
    y = F.softmax(x, 1)
    with T.no_grad():
        x.mul_(2)  # the formula reads only y: no version error
    y.sum().backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), np.zeros((4, 5)), atol=1e-6)


def test_errors_name_the_problem():
    # a result dtype that is not floating: PyTorch's words, naming the CPU
    # kernel (the last-dim one when dim is the last, or the input 0-d)
    for call, words in [
            (lambda: T._C.softmax(T.tensor([1, 2]), 0), '"softmax_lastdim_kernel_impl" not implemented for \'Long\''),
            (lambda: F.softmax(T.tensor([[1, 2]]), 0), '"softmax_kernel_impl" not implemented for \'Long\''),
            (lambda: F.log_softmax(T.tensor([[1, 2]]), 0), '"log_softmax_kernel_impl" not implemented for \'Long\''),
            (lambda: F.log_softmax(T.tensor([True]), -1), '"log_softmax_lastdim_kernel_impl" not implemented for \'Bool\''),
            (lambda: F.softmax(T.tensor(3), 0), '"softmax_lastdim_kernel_impl" not implemented for \'Long\''),
            (lambda: F.softmax(T.tensor([1.0]), 0, dtype=T.int32), '"softmax_lastdim_kernel_impl" not implemented for \'Int\''),
            (lambda: F.softmin(T.tensor([1, 2]), 0), '"softmax_lastdim_kernel_impl" not implemented for \'Long\'')]:
        with pytest.raises(NotImplementedError) as info:
            call()
        assert str(info.value) == words
    # an integer input with a floating dtype= is cast first
    np.testing.assert_allclose(F.log_softmax(T.tensor([1, 1]), 0, dtype=T.float32).cpu().numpy(),
                               np.log([0.5, 0.5]), rtol=1e-6)
    with pytest.raises(IndexError, match="Dimension out of range"):
        F.softmax(T.randn(2, 3), 2)
    with pytest.raises(RuntimeError, match=r"grad_output of shape \[2, 3\] does not match output of "
                                           r"shape \[3, 2\]"):
        T._C._softmax_backward_data(T.randn(2, 3), T.randn(3, 2), 1, T.float32)
    with pytest.raises(TypeError, match="input_dtype"):
        T._C._softmax_backward_data(T.randn(2, 3), T.randn(2, 3), 1, None)


def test_implicit_dim_warns_as_pytorch():
    with pytest.warns(UserWarning, match="Implicit dimension choice"):
        y = F.softmax(T.randn(2, 3))
    np.testing.assert_allclose(y.sum(1).cpu().numpy(), np.ones(2), rtol=1e-6)


@pytest.mark.host_only  # runs its own fake-device subprocess
def test_fake_device_uses_the_device_kernel_and_keeps_results_there():
    run_on_fake_device("""
        import numpy as np
        import torchlike as T
        C = T._C
        C._fake_enable()
        x = T.randn(3, 4).to("fake")
        try:
            C.softmax(x, 1)
        except NotImplementedError as e:
            assert str(e) == "softmax(): no kernel for device fake:0 and dtype float32", e
        else:
            raise AssertionError("ran without a kernel")
        C._dispatch_lend_cpu_kernels("fake", True)
        x = T.randn(3, 4).to("fake")  # fake memory made while lent is host-readable
        for fn in (C.softmax, C.log_softmax):
            y = fn(x, 1)
            assert str(y.device) == "fake:0"
            np.testing.assert_array_equal(y.cpu().numpy(), fn(x.cpu(), 1).cpu().numpy())
        xr = x.detach().requires_grad_()
        C.log_softmax(xr, 0).sum().backward()
        assert str(xr.grad.device) == "fake:0"
        print("ok")
    """)
