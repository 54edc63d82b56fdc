"""dropout, dropout1d/2d/3d, alpha_dropout and feature_alpha_dropout: the
fused kernel of src/nn/dropout.

The mask is checked against the library's own Bernoulli draws
(bernoulli_(1 - p) after the same seed makes the same trials), the values
against NumPy from that mask, the statistics over large draws; gradients by
finite differences with the seed fixed; train/eval and in-place semantics;
and the kernel on the fake device (subprocess)."""
import math
import numpy as np
import pytest

import torchlike as T
import torchlike.nn as nn
import torchlike.nn.functional as F
from torchlike.autograd import gradcheck, gradgradcheck

from nn_fake_device import run_on_fake_device

GRADCHECKED = {"_fused_dropout", "native_dropout_backward"}

ALPHA_P = -1.6732632423543772848170429916717 * 1.0507009873554804934193349852946
TOL = {T.float64: 1e-12, T.float32: 1e-6, T.float16: 1e-3, T.bfloat16: 1e-2}


def to_numpy(t):
    return t.float().cpu().numpy() if t.dtype in (T.float16, T.bfloat16) else t.cpu().numpy()


def reference_mask(shape, p, seed):
    T.manual_seed(seed)
    return T.empty(shape).bernoulli_(1 - p).cpu().numpy() != 0


@pytest.mark.parametrize("dtype", list(TOL))
@pytest.mark.parametrize("shape", [(), (0,), (7,), (3, 5), (4, 3, 1000)])
@pytest.mark.parametrize("p", [0.1, 0.5, 0.9])
def test_dropout_matches_the_bernoulli_mask(shape, dtype, p):
    x = np.random.default_rng(0).standard_normal(shape)
    t = T.tensor(x, dtype=dtype)
    T.manual_seed(11)
    y = F.dropout(t, p)
    keep = reference_mask(shape, p, 11)
    assert y.dtype == dtype and tuple(y.shape) == shape
    ref = np.where(keep, to_numpy(t).astype(np.float64) / (1 - p), 0)
    np.testing.assert_allclose(to_numpy(y), ref, rtol=TOL[dtype], atol=TOL[dtype])


def test_seed_reproduces_and_calls_differ():
    x = T.ones(1000)
    T.manual_seed(5)
    a, b = F.dropout(x, 0.5).cpu().numpy(), F.dropout(x, 0.5).cpu().numpy()
    T.manual_seed(5)
    np.testing.assert_array_equal(F.dropout(x, 0.5).cpu().numpy(), a)
    assert (a != b).any()
    g = T.Generator().manual_seed(3)
    m1 = T._C._fused_dropout(x, 0.5, generator=g)[1].cpu().numpy()
    g.manual_seed(3)
    np.testing.assert_array_equal(T._C._fused_dropout(x, 0.5, generator=g)[1].cpu().numpy(), m1)


def test_statistics_of_large_draws():
    T.manual_seed(0)
    y = F.dropout(T.ones(1 << 20), 0.1).cpu().numpy()
    assert abs((y == 0).mean() - 0.1) < 3e-3
    assert abs(y.mean() - 1.0) < 5e-3


def test_non_contiguous_input():
    base = np.random.default_rng(1).standard_normal((6, 8, 4))
    t = T.tensor(base).transpose(0, 2)[:, ::2]
    T.manual_seed(2)
    y = F.dropout(t, 0.3).cpu().numpy()
    keep = reference_mask(tuple(t.shape), 0.3, 2)
    np.testing.assert_allclose(y, np.where(keep, base.transpose(2, 1, 0)[:, ::2] / 0.7, 0), rtol=1e-12)


@pytest.mark.parametrize("fn,ndim", [(F.dropout1d, 3), (F.dropout2d, 4), (F.dropout3d, 5)])
def test_feature_dropout_zeroes_whole_channels(fn, ndim):
    shape = (4, 6) + (3,) * (ndim - 2)
    x = np.random.default_rng(2).standard_normal(shape)
    T.manual_seed(7)
    y = fn(T.tensor(x), 0.4).cpu().numpy()
    keep = reference_mask((4, 6) + (1,) * (ndim - 2), 0.4, 7)
    np.testing.assert_allclose(y, np.where(keep, x / 0.6, 0), rtol=1e-12)
    T.manual_seed(7)
    if fn is F.dropout2d:
        # PyTorch reads a 3-D input to dropout2d as (N, C, L), not (C, H, W)
        with pytest.warns(UserWarning, match="interpreted as shape \\(N, C, L\\)"):
            y1 = fn(T.tensor(x[0]), 0.4).cpu().numpy()
        keep1 = reference_mask((6, 3, 1), 0.4, 7)
    else:
        y1 = fn(T.tensor(x[0]), 0.4).cpu().numpy()  # unbatched: one draw per channel
        keep1 = reference_mask((6,) + (1,) * (ndim - 2), 0.4, 7)
    np.testing.assert_allclose(y1, np.where(keep1, x[0] / 0.6, 0), rtol=1e-12)
    bad = T.randn(*(2,) * (ndim - 2))
    if fn is F.dropout1d:
        with pytest.raises(RuntimeError, match="Expected 2D or 3D input, but received a 1D "
                           "input. Note that dropout1d exists"):
            fn(bad, 0.5)
    else:  # PyTorch only warns (deprecated), and draws per (dim 0, dim 1)
        with pytest.warns(UserWarning, match=f"Received a {ndim - 2}-D input to"):
            assert fn(bad, 0.5).shape == bad.shape


@pytest.mark.parametrize("feature", [False, True])
def test_alpha_dropout_values_and_moments(feature):
    p = 0.2
    a = 1 / math.sqrt((ALPHA_P ** 2 * p + 1) * (1 - p))
    b = -a * ALPHA_P * p
    x = np.random.default_rng(3).standard_normal((8, 5, 6))
    T.manual_seed(4)
    fn = F.feature_alpha_dropout if feature else F.alpha_dropout
    y = fn(T.tensor(x), p, training=True).cpu().numpy()
    keep = reference_mask((8, 5, 1) if feature else (8, 5, 6), p, 4)
    np.testing.assert_allclose(y, np.where(keep, x * a + b, ALPHA_P * a + b), rtol=1e-12)
    T.manual_seed(0)
    big = F.alpha_dropout(T.randn(1 << 20, dtype=T.float64), p, True).cpu().numpy()
    assert abs(big.mean()) < 5e-3 and abs(big.std() - 1) < 5e-3


def test_eval_p0_p1_and_bad_p():
    x = T.randn(3, 4)
    assert F.dropout(x, 0.5, training=False) is x
    assert F.dropout(x, 0.0) is x
    assert F.alpha_dropout(x, 0.5) is x  # training defaults to False
    np.testing.assert_array_equal(F.dropout(x, 1.0).cpu().numpy(), np.zeros((3, 4)))
    np.testing.assert_array_equal(F.alpha_dropout(x, 1.0, True).cpu().numpy(), np.zeros((3, 4)))
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got 1.5"):
        F.dropout(x, 1.5)
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1"):
        nn.Dropout(-0.1)
    with pytest.raises(RuntimeError, match="expected a floating point input, got int64"):
        T._C._fused_dropout(T.tensor([1, 2]), 0.5)
    with pytest.raises(RuntimeError, match=r"mask of shape \[2, 3\]"):
        T._C.native_dropout_backward(T.randn(3, 2), T.ones(2, 3, dtype=T.bool), 2.0)


def test_modules_train_and_eval():
    m = nn.Dropout(0.5)
    x = T.ones(1000)
    assert (m(x).cpu().numpy() == 0).any()
    m.eval()
    assert m(x) is x
    m2 = nn.Dropout2d(0.5).eval()
    assert m2(T.ones(2, 3, 4, 4)).cpu().numpy().all()
    assert repr(nn.Dropout(0.2, inplace=True)) == "Dropout(p=0.2, inplace=True)"


def test_inplace_writes_the_input_and_differentiates():
    x = T.ones(4, 100)
    T.manual_seed(9)
    assert F.dropout(x, 0.3, inplace=True) is x
    keep = reference_mask((4, 100), 0.3, 9)
    np.testing.assert_allclose(x.cpu().numpy(), np.where(keep, 1 / 0.7, 0), rtol=1e-6)
    leaf = T.ones(4, 100, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        F.dropout(leaf, 0.3, inplace=True)
    h = leaf * 2.0
    T.manual_seed(9)
    out = F.dropout(h, 0.3, inplace=True)
    assert out is h
    h.sum().backward()
    np.testing.assert_allclose(leaf.grad.cpu().numpy(), np.where(keep, 2 / 0.7, 0), rtol=1e-6)


@pytest.mark.parametrize("fn", [lambda a: F.dropout(a, 0.3), lambda a: F.dropout2d(a, 0.4),
                                lambda a: F.alpha_dropout(a, 0.3, True),
                                lambda a: F.feature_alpha_dropout(a, 0.3, True)])
def test_gradients_reuse_the_mask(fn):
    x = T.tensor(np.random.default_rng(5).standard_normal((2, 3, 4, 2)), requires_grad=True)

    def seeded(a):
        T.manual_seed(123)
        return fn(a)
    assert gradcheck(seeded, (x,))
    assert gradgradcheck(seeded, (x,))


def test_backward_op_and_tape_keeps_the_mask():
    g = T.tensor(np.random.default_rng(6).standard_normal((3, 4)), requires_grad=True)
    mask = T.tensor(np.random.default_rng(7).random((3, 1)) > 0.5)
    out = T._C.native_dropout_backward(g, mask, 2.5)
    np.testing.assert_allclose(out.detach().cpu().numpy(), g.detach().cpu().numpy() * mask.cpu().numpy() * 2.5)
    assert gradcheck(lambda a: T._C.native_dropout_backward(a, mask, 2.5), (g,))
    x = T.randn(4, 5, requires_grad=True)
    h = x * 1
    y = F.dropout(h, 0.5)
    with T.no_grad():
        h.mul_(3)  # the formula reads the mask only
    y.sum().backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), (y.detach().cpu().numpy() != 0) * 2.0)


@pytest.mark.host_only  # runs its own fake-device subprocess
def test_fake_device_uses_the_device_kernel_and_keeps_results_there():
    run_on_fake_device("""
        expect_no_kernel(lambda: F.dropout(T.randn(3, 4).to("fake"), 0.5), "_fused_dropout")
        C._dispatch_lend_cpu_kernels("fake", True)
        x = T.randn(3, 4).to("fake")
        T.manual_seed(1)
        y = F.dropout(x, 0.5)
        assert str(y.device) == "fake:0"
        T.manual_seed(1)
        np.testing.assert_array_equal(y.cpu().numpy(), F.dropout(x.cpu(), 0.5).cpu().numpy())
        xr = x.detach().requires_grad_()
        F.dropout(xr, 0.5).sum().backward()
        assert str(xr.grad.device) == "fake:0"
        print("ok")
    """)


def test_the_tape_keeps_only_the_byte_mask():
    # the gradient reads the mask alone: neither the input nor the output is kept
    T.manual_seed(7)
    x = T.randn(64, 32, requires_grad=True)
    y = F.dropout(x * 2, 0.25)
    saved = y.grad_fn._saved_tensors
    assert len(saved) == 1 and saved[0].shape == (64, 32) and saved[0].element_size() == 1
    mask = saved[0].cpu().numpy().astype(bool)
    np.testing.assert_array_equal(mask, y.detach().cpu().numpy() != 0)
    y.backward(T.ones(64, 32))
    np.testing.assert_allclose(x.grad.cpu().numpy(), np.where(mask, 2 / 0.75, 0.0), rtol=1e-6)
