"""The activations of src/nn/activation: fused forward and backward ops.

Values against NumPy references over dtypes, 0-d, empty and non-contiguous
inputs; gradients and second derivatives by finite differences (the
backward ops are gradchecked themselves); the in-place spellings under
autograd; errors; and the kernels on the fake device (subprocess)."""
import math
import numpy as np
import pytest

import torchlike as T
import torchlike.nn as nn
import torchlike.nn.functional as F
from torchlike.autograd import gradcheck, gradgradcheck

from nn_fake_device import run_on_fake_device

GRADCHECKED = {
    "relu", "threshold", "leaky_relu", "elu", "gelu", "silu", "mish", "softplus", "softsign",
    "hardtanh", "hardsigmoid", "hardswish", "hardshrink", "softshrink", "tanhshrink",
    "log_sigmoid", "_prelu_kernel", "glu",
    "threshold_backward", "leaky_relu_backward", "elu_backward", "gelu_backward",
    "silu_backward", "mish_backward", "softplus_backward", "softsign_backward",
    "hardtanh_backward", "hardsigmoid_backward", "hardswish_backward", "hardshrink_backward",
    "softshrink_backward", "tanhshrink_backward", "log_sigmoid_backward",
    "_prelu_kernel_backward", "glu_backward",
}

SELU_A, SELU_S = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946


def _erf(x):
    return np.vectorize(math.erf, otypes=[np.float64])(x) if np.size(x) else np.zeros_like(x)


def _sig(x):
    return 1 / (1 + np.exp(-x))


def _softplus(x, beta=1.0, th=20.0):
    with np.errstate(over="ignore"):
        return np.where(beta * x > th, x, np.log1p(np.exp(beta * x)) / beta)


# name -> (torchlike call, NumPy reference)
CASES = {
    "relu": (F.relu, lambda x: np.maximum(x, 0)),
    "relu6": (F.relu6, lambda x: np.clip(x, 0, 6)),
    "threshold": (lambda x: F.threshold(x, 0.3, -2.0), lambda x: np.where(x > 0.3, x, -2.0)),
    "leaky_relu": (lambda x: F.leaky_relu(x, 0.2), lambda x: np.where(x > 0, x, 0.2 * x)),
    "elu": (lambda x: F.elu(x, 1.5), lambda x: np.where(x > 0, x, 1.5 * np.expm1(x))),
    "selu": (F.selu, lambda x: SELU_S * np.where(x > 0, x, SELU_A * np.expm1(x))),
    "celu": (lambda x: F.celu(x, 0.7), lambda x: np.where(x > 0, x, 0.7 * np.expm1(x / 0.7))),
    "gelu": (F.gelu, lambda x: 0.5 * x * (1 + _erf(x / math.sqrt(2)))),
    "gelu_tanh": (lambda x: F.gelu(x, approximate="tanh"),
                  lambda x: 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))),
    "silu": (F.silu, lambda x: x * _sig(x)),
    "mish": (F.mish, lambda x: x * np.tanh(_softplus(x))),
    "softplus": (lambda x: F.softplus(x, 2.0, 3.0), lambda x: _softplus(x, 2.0, 3.0)),
    "softsign": (F.softsign, lambda x: x / (1 + np.abs(x))),
    "hardtanh": (lambda x: F.hardtanh(x, -0.5, 2.0), lambda x: np.clip(x, -0.5, 2.0)),
    "hardsigmoid": (F.hardsigmoid, lambda x: np.clip(x / 6 + 0.5, 0, 1)),
    "hardswish": (F.hardswish, lambda x: x * np.clip(x + 3, 0, 6) / 6),
    "hardshrink": (lambda x: F.hardshrink(x, 0.7), lambda x: np.where(np.abs(x) > 0.7, x, 0)),
    "softshrink": (lambda x: F.softshrink(x, 0.7),
                   lambda x: np.where(x > 0.7, x - 0.7, np.where(x < -0.7, x + 0.7, 0))),
    "tanhshrink": (F.tanhshrink, lambda x: x - np.tanh(x)),
    "logsigmoid": (F.logsigmoid, lambda x: -_softplus(-x)),
    "glu": (lambda x: F.glu(x, -1), lambda x: x[..., :x.shape[-1] // 2] * _sig(x[..., x.shape[-1] // 2:])),
}
SMOOTH = {"elu", "selu", "celu", "gelu", "gelu_tanh", "silu", "mish", "softplus", "softsign",
          "tanhshrink", "logsigmoid", "glu"}

TOL = {T.float64: 1e-12, T.float32: 2e-6, T.float16: 2e-3, T.bfloat16: 1.6e-2}


def to_numpy(t):
    return t.float().cpu().numpy() if t.dtype in (T.float16, T.bfloat16) else t.cpu().numpy()


def sample(shape, seed=0):
    # no point within 1e-3 of a kink, so finite differences and casts agree
    x = np.random.default_rng(seed).uniform(-5, 5, shape)
    for k in (0.0, 0.3, -0.5, 0.5, -0.7, 0.7, 2.0, -3.0, 3.0, 1.5, 6.0, -1.0, 1.0):
        x = np.where(np.abs(x - k) < 1e-2, x + 3e-2, x)
    return x


@pytest.mark.parametrize("dtype", list(TOL))
@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("shape", [(), (0,), (7,), (3, 4), (2, 3, 130)])
def test_values_match_numpy(name, dtype, shape):
    fn, ref = CASES[name]
    if name == "glu" and (shape == () or shape[-1] % 2):
        shape = shape[:-1] + (8,) if shape else (4,)
    t = T.tensor(sample(shape), dtype=dtype)
    y = fn(t)
    expected = ref(to_numpy(t).astype(np.float64))
    assert y.dtype == dtype and tuple(y.shape) == expected.shape
    tol = TOL[dtype] * (4 if name in SMOOTH else 1)
    np.testing.assert_allclose(to_numpy(y), expected, rtol=tol, atol=tol)


@pytest.mark.parametrize("name", sorted(CASES))
def test_non_contiguous_inputs(name):
    fn, ref = CASES[name]
    base = sample((6, 8, 4), 1)
    t = T.tensor(base)
    for view, nview in ((lambda a: a[:, ::2, :], lambda a: a[:, ::2, :]),
                        (lambda a: a.transpose(2, 0), lambda a: a.transpose(2, 1, 0)[:, :, :]),
                        (lambda a: a.expand(2, 6, 8, 4), lambda a: np.broadcast_to(a, (2, 6, 8, 4)))):
        if name == "glu":
            continue
        np.testing.assert_allclose(fn(view(t)).cpu().numpy(), ref(nview(base)), rtol=1e-12, atol=1e-12)
    if name == "glu":  # halves along a strided dim
        bt = base.transpose(2, 1, 0)
        np.testing.assert_allclose(F.glu(t.transpose(0, 2), 0).cpu().numpy(), bt[:2] * _sig(bt[2:]),
                                   rtol=1e-12)


def test_nan_propagates_like_pytorch():
    nan = T.tensor([float("nan")])
    for fn in (F.relu, F.gelu, F.silu, F.elu, F.leaky_relu, F.hardtanh, F.softplus, F.mish,
               F.hardshrink, F.softshrink, F.softsign, F.tanhshrink, F.logsigmoid):
        assert np.isnan(fn(nan).cpu().numpy()).all(), fn
    big = T.tensor([1000.0, -1000.0])
    np.testing.assert_allclose(F.logsigmoid(big).cpu().numpy(), [0.0, -1000.0])
    np.testing.assert_allclose(F.softplus(big).cpu().numpy(), [1000.0, 0.0])
    np.testing.assert_allclose(F.mish(big).cpu().numpy(), [1000.0, 0.0], atol=1e-30)


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradients_and_second_derivatives(name):
    fn, _ = CASES[name]
    x = T.tensor(sample((3, 4), 2), requires_grad=True)
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


def test_prelu_values_gradients_and_per_channel_weight():
    rng = np.random.default_rng(3)
    x = sample((2, 3, 4), 3)
    w = rng.uniform(0.1, 0.5, 3)
    ref = np.where(x > 0, x, w[None, :, None] * x)
    np.testing.assert_allclose(F.prelu(T.tensor(x), T.tensor(w)).cpu().numpy(), ref, rtol=1e-12)
    np.testing.assert_allclose(F.prelu(T.tensor(x), T.tensor(w[:1])).cpu().numpy(),
                               np.where(x > 0, x, w[0] * x), rtol=1e-12)
    xt, wt = T.tensor(x, requires_grad=True), T.tensor(w, requires_grad=True)
    assert gradcheck(F.prelu, (xt, wt))
    assert gradgradcheck(F.prelu, (xt, wt))
    F.prelu(xt, wt).sum().backward()
    np.testing.assert_allclose(wt.grad.cpu().numpy(), np.where(x > 0, 0, x).sum((0, 2)), rtol=1e-12)
    m = nn.PReLU(3).double()
    assert m(T.tensor(x)).shape == (2, 3, 4)
    with pytest.raises(RuntimeError, match="Mismatch of parameter numbers and input channel size"):
        F.prelu(T.tensor(x), T.tensor(w[:2]))


def test_rrelu_training_draws_slopes_in_range_and_eval_is_fixed():
    x = T.tensor(-np.ones((1000,)))
    T.manual_seed(0)
    y = F.rrelu(x, 0.1, 0.3, training=True).cpu().numpy()
    assert (y <= -0.1).all() and (y >= -0.3).all() and y.std() > 0.03
    T.manual_seed(0)
    np.testing.assert_array_equal(F.rrelu(x, 0.1, 0.3, training=True).cpu().numpy(), y)
    np.testing.assert_allclose(F.rrelu(x, 0.1, 0.3).cpu().numpy(), -0.2 * np.ones(1000))
    xr = T.tensor(sample((5,), 4), requires_grad=True)
    out = F.rrelu(xr, training=True)
    out.sum().backward()
    xn = xr.detach().cpu().numpy()
    np.testing.assert_allclose(xr.grad.cpu().numpy()[xn > 0], 1.0)
    slopes = out.detach().cpu().numpy()[xn < 0] / xn[xn < 0]
    np.testing.assert_allclose(xr.grad.cpu().numpy()[xn < 0], slopes, rtol=1e-12)


@pytest.mark.parametrize("op,args", [
    ("threshold_backward", (0.3,)), ("leaky_relu_backward", (0.2,)),
    ("elu_backward", (1.5, 1.2, 0.8)), ("softplus_backward", (2.0, 3.0)),
    ("hardtanh_backward", (-0.5, 2.0)), ("hardshrink_backward", (0.7,)),
    ("softshrink_backward", (0.7,)), ("gelu_backward", ()), ("silu_backward", ()),
    ("mish_backward", ()), ("softsign_backward", ()), ("hardsigmoid_backward", ()),
    ("hardswish_backward", ()), ("tanhshrink_backward", ()), ("log_sigmoid_backward", ())])
def test_backward_ops_have_their_own_derivatives(op, args):
    rng = np.random.default_rng(5)
    g = T.tensor(rng.standard_normal((3, 4)), requires_grad=True)
    x = T.tensor(sample((3, 4), 6), requires_grad=True)
    fn = getattr(T._C, op)
    assert gradcheck(lambda a, b: fn(a, b, *args), (g, x))
    if op == "gelu_backward":
        assert gradcheck(lambda a, b: fn(a, b, approximate="tanh"), (g, x))


def test_prelu_and_glu_backward_ops_have_derivatives():
    rng = np.random.default_rng(7)
    g = T.tensor(rng.standard_normal((2, 3, 4)), requires_grad=True)
    x = T.tensor(sample((2, 3, 4), 8), requires_grad=True)
    w = T.tensor(rng.uniform(0.1, 0.5, (3, 1)), requires_grad=True)
    assert gradcheck(lambda a, b, c: T._C._prelu_kernel_backward(a, b, c), (g, x, w))
    gh = T.tensor(rng.standard_normal((2, 3, 2)), requires_grad=True)
    assert gradcheck(lambda a, b: T._C.glu_backward(a, b, 2), (gh, x))
    assert gradgradcheck(lambda b: F.glu(b, 1), (T.tensor(sample((2, 4, 3), 9), requires_grad=True),))


def test_relu_keeps_its_output_not_its_input():
    x = T.randn(4, 5, requires_grad=True)
    h = x * 1
    y = F.relu(h)
    assert repr(y.grad_fn).startswith("<ReluBackward0")
    with T.no_grad():
        h.mul_(-1)  # relu's formula reads y only
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.cpu().numpy(), (y.detach().cpu().numpy() > 0).astype(np.float32))


@pytest.mark.parametrize("name,fn,ref", [
    ("relu", F.relu_, lambda x: np.maximum(x, 0)),
    ("leaky_relu", lambda t: F.leaky_relu(t, 0.2, inplace=True), lambda x: np.where(x > 0, x, 0.2 * x)),
    ("elu", lambda t: F.elu(t, inplace=True), lambda x: np.where(x > 0, x, np.expm1(x))),
    ("hardtanh", lambda t: F.hardtanh(t, inplace=True), lambda x: np.clip(x, -1, 1)),
    ("silu", lambda t: F.silu(t, inplace=True), lambda x: x * _sig(x)),
    ("selu", F.selu_, lambda x: SELU_S * np.where(x > 0, x, SELU_A * np.expm1(x))),
    ("threshold", lambda t: F.threshold_(t, 0.3, -2.0), lambda x: np.where(x > 0.3, x, -2.0)),
    ("hardswish", lambda t: F.hardswish(t, True), lambda x: x * np.clip(x + 3, 0, 6) / 6)])
def test_inplace_spellings_write_the_input_and_differentiate(name, fn, ref):
    base = sample((3, 4), 10)
    t = T.tensor(base)
    assert fn(t) is t
    np.testing.assert_allclose(t.cpu().numpy(), ref(base), rtol=1e-6, atol=1e-6)
    tv = T.tensor(base)
    view = tv[:, ::2]
    fn(view)  # a strided view: written through
    np.testing.assert_allclose(tv.cpu().numpy()[:, ::2], ref(base[:, ::2]), rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(tv.cpu().numpy()[:, 1::2], base[:, 1::2])
    leaf = T.tensor(base, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        fn(leaf)
    h = leaf * 1.0
    out = fn(h)
    assert out is h and h.grad_fn is not None
    (h * T.tensor(np.arange(12.0).reshape(3, 4))).sum().backward()
    x2 = T.tensor(base, requires_grad=True)
    CASE = {"relu": lambda a: F.relu(a), "leaky_relu": lambda a: F.leaky_relu(a, 0.2),
            "elu": F.elu, "hardtanh": F.hardtanh, "silu": F.silu, "selu": F.selu,
            "threshold": lambda a: F.threshold(a, 0.3, -2.0), "hardswish": F.hardswish}[name]
    (CASE(x2) * T.tensor(np.arange(12.0).reshape(3, 4))).sum().backward()
    np.testing.assert_allclose(leaf.grad.cpu().numpy(), x2.grad.cpu().numpy(), rtol=1e-12)
    # the in-place result is differentiable twice
    assert gradgradcheck(lambda a: fn(a * 1.0), (T.tensor(base, requires_grad=True),))


def test_modules_use_the_fused_ops():
    x = T.tensor(sample((2, 6), 11))
    for m, fn in ((nn.ReLU(), F.relu), (nn.GELU("tanh"), lambda a: F.gelu(a, approximate="tanh")),
                  (nn.SiLU(), F.silu), (nn.Mish(), F.mish), (nn.ELU(0.5), lambda a: F.elu(a, 0.5)),
                  (nn.Softplus(2.0), lambda a: F.softplus(a, 2.0)), (nn.GLU(), F.glu),
                  (nn.Hardswish(), F.hardswish), (nn.ReLU6(), F.relu6), (nn.SELU(), F.selu),
                  (nn.CELU(), F.celu), (nn.LogSigmoid(), F.logsigmoid), (nn.Tanhshrink(), F.tanhshrink)):
        np.testing.assert_array_equal(m(x).cpu().numpy(), fn(x).cpu().numpy())
    x2 = T.tensor(sample((2, 6), 12))
    before = x2.cpu().numpy().copy()
    nn.ReLU(inplace=True)(x2)
    np.testing.assert_array_equal(x2.cpu().numpy(), np.maximum(before, 0))
    assert T.relu(T.tensor([-1.0, 2.0])).tolist() == [0.0, 2.0]
    assert T.tensor([-1.0, 2.0]).relu().tolist() == [0.0, 2.0]
    assert T.relu(T.tensor([-1, 2])).tolist() == [0, 2]  # integers stay integers


def test_integer_inputs_clamp_and_threshold_bool_ones_are_refused():
    # PyTorch's relu, hardtanh (relu6) and threshold take integer tensors, the
    # scalars converted to the dtype by truncation; bool tensors are refused
    a = np.array([3, -1, 4, 1, 5, -9])
    x = T.tensor(a)
    np.testing.assert_array_equal(F.hardtanh(x, -0.5, 2.7).cpu().numpy(), np.clip(a, 0, 2))
    np.testing.assert_array_equal(F.relu6(x).cpu().numpy(), np.clip(a, 0, 6))
    np.testing.assert_array_equal(F.threshold(x, 2.5, -1.7).cpu().numpy(), np.where(a > 2, a, -1))
    assert F.relu6(x).dtype == T.int64 and F.threshold(x.int(), 0, 0).dtype == T.int32
    F.hardtanh(x, -1, 3, inplace=True)
    np.testing.assert_array_equal(x.cpu().numpy(), np.clip(a, -1, 3))
    b = T.tensor([True, False])
    for fn, words in ((F.relu, "Boolean inputs not supported for relu"),
                      (F.relu6, "Bool inputs not supported for hardtanh"),
                      (lambda v: F.threshold(v, 0, 0), "\"threshold_cpu\" not implemented for "
                                                      "'Bool'")):
        with pytest.raises(NotImplementedError) as info:
            fn(b)
        assert str(info.value) == words
    # the float-only layers refuse integers as PyTorch's NotImplementedError
    for fn in (F.gelu, F.silu, F.elu, lambda v: F.softmax(v, -1),
               lambda v: F.layer_norm(v, (2,)), lambda v: F.group_norm(v, 1),
               lambda v: F.batch_norm(v, None, None, training=True),
               lambda v: F.grid_sample(v.view(1, 1, 2, 2), T.zeros(1, 1, 1, 2),
                                       align_corners=False)):
        with pytest.raises(NotImplementedError):
            fn(T.tensor([[[1, 2], [3, 4]]]))


def test_errors_in_pytorch_wording():
    with pytest.raises(RuntimeError, match="approximate argument must be either none or tanh"):
        F.gelu(T.randn(3), approximate="fast")
    with pytest.raises(RuntimeError, match="\"gelu\" not implemented for 'Long'"):
        F.gelu(T.tensor([1, 2]))
    with pytest.raises(RuntimeError, match="lambda must be greater or equal to 0, but found to be -1.0"):
        F.softshrink(T.randn(3), -1.0)
    with pytest.raises(ValueError, match="min_val cannot be greater than max_val"):
        F.hardtanh(T.randn(3), 2.0, 1.0)
    with pytest.raises(RuntimeError, match="Halving dimension must be even, but dimension 1 is size 3"):
        F.glu(T.randn(2, 3), 1)
    with pytest.raises(RuntimeError, match="glu does not support scalars"):
        F.glu(T.tensor(1.0))
    with pytest.raises(RuntimeError, match=r"grad_output of shape \[2, 3\] does not match input of "
                                           r"shape \[3, 2\]"):
        T._C.silu_backward(T.randn(2, 3), T.randn(3, 2))
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        F.relu_(T.randn(3).expand(2, 3))


@pytest.mark.host_only  # runs its own fake-device subprocess
def test_fake_device_uses_the_device_kernel_and_keeps_results_there():
    run_on_fake_device("""
        expect_no_kernel(lambda: C.gelu(T.randn(3, 4).to("fake")), "gelu")
        C._dispatch_lend_cpu_kernels("fake", True)
        x = T.randn(3, 4).to("fake")
        for fn in (F.relu, F.gelu, F.silu, F.elu, F.glu, F.softplus):
            y = fn(x)
            assert str(y.device) == "fake:0"
            np.testing.assert_array_equal(y.cpu().numpy(), fn(x.cpu()).cpu().numpy())
        xr = x.detach().requires_grad_()
        F.gelu(xr).sum().backward()
        assert str(xr.grad.device) == "fake:0"
        print("ok")
    """)


@pytest.mark.parametrize("fn", [
    lambda x: F.relu6(x), lambda x: F.leaky_relu(x, 0.1), lambda x: F.hardtanh(x, -2.0, 1.0),
    F.hardsigmoid, lambda x: F.hardshrink(x, 0.7), lambda x: F.softshrink(x, 0.7),
    lambda x: F.threshold(x, 0.5, -1.0), lambda x: F.rrelu(x, training=False)])
def test_piecewise_linear_second_derivative_is_zero_not_unused(fn):
    # PyTorch's backward ops send zeros to x (f'' = 0), so differentiating a
    # gradient again with respect to x gives zeros; it must not raise that
    # x was unused (a gradient penalty taken with respect to the input)
    x = T.tensor(np.random.default_rng(3).standard_normal((3, 4)) * 3, requires_grad=True)
    y = fn(x)
    g, = T.autograd.grad((y * y.detach()).sum(), x, create_graph=True)
    gg, = T.autograd.grad((g * g.detach()).sum(), x)
    np.testing.assert_array_equal(gg.cpu().numpy(), np.zeros((3, 4)))


def test_celu_and_rrelu_refuse_bad_parameters_in_pytorch_words():
    # CELU divides by alpha; rrelu checks its bounds in evaluation too (it
    # computed a slope from bounds the wrong way round)
    x = T.tensor([-1.0, 1.0])
    with pytest.raises(RuntimeError, match=r"^ZeroDivisionError: alpha cannot be 0 for CELU$"):
        F.celu(x, alpha=0.0)
    for training in (False, True):
        with pytest.raises(RuntimeError, match=r"^Lower bound should be less than or equal to "
                                               r"the upper bound$"):
            F.rrelu(x, lower=0.5, upper=0.2, training=training)
    np.testing.assert_allclose(F.rrelu(x, 0.2, 0.2).cpu().numpy(), [-0.2, 1.0], rtol=1e-6)
