"""nll_loss (the fused kernel of src/nn/loss) and cross_entropy (its own
fused op, tests/test_nn_class_loss.py has the rest), checked against
log_softmax then nll; the elementwise losses of one fused op (mse, l1,
smooth_l1, huber, binary_cross_entropy (with logits), kl_div).

Values against a NumPy reference over reductions, weights, ignore_index,
(N, C, d1, ...) and unbatched inputs, dtypes, 0-size batches and
non-contiguous inputs; gradients and second derivatives by finite
differences; errors in PyTorch's wording; the kernel on the fake device."""

import numpy as np
import pytest

import torchlike as T
import torchlike.nn as nn
import torchlike.nn.functional as F
from torchlike.autograd import gradcheck, gradgradcheck
from nn_fake_device import run_on_fake_device

C = T._C

# the derivatives gradchecked here (tests/test_grad_registry.py reads this)
GRADCHECKED = {"nll_loss_nd", "nll_loss_backward", "_pointwise_loss", "_pointwise_loss_backward"}

rng = np.random.default_rng(11)


def np_nll(x, t, w=None, ignore=-100, reduction="mean"):
    """x (N, C, *) or (C,), t (N, *) or ()."""
    x = np.asarray(x, np.float64)
    unbatched = x.ndim == 1
    if unbatched:
        x, t = x[None], np.asarray(t)[None]
    C_ = x.shape[1]
    w = np.ones(C_) if w is None else np.asarray(w, np.float64)
    valid = t != ignore
    safe = np.where(valid, t, 0)
    picked = np.take_along_axis(x, safe[:, None], 1)[:, 0]
    wt = w[safe] * valid
    loss = -picked * wt
    if reduction == "none":
        return loss[0] if unbatched else loss
    with np.errstate(invalid="ignore"):  # an empty mean is NaN, as in PyTorch
        return loss.sum() / wt.sum() if reduction == "mean" else loss.sum()


def np_log_softmax(x, axis):
    m = x.max(axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis, keepdims=True))


CASES = [((6, 5), (6,)), ((3, 4, 5), (3, 5)), ((2, 3, 2, 4), (2, 2, 4)), ((4,), ()),
         ((0, 3), (0,))]


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("shape,tshape", CASES)
@pytest.mark.parametrize("weighted", [False, True])
def test_nll_loss_matches_numpy(reduction, shape, tshape, weighted):
    Cn = shape[1] if len(shape) > 1 else shape[0]
    x = rng.standard_normal(shape)
    t = rng.integers(0, Cn, tshape)
    if t.size > 1:
        t.reshape(-1)[0] = -100
    w = rng.random(Cn) + 0.1 if weighted else None
    y = F.nll_loss(T.tensor(x), T.tensor(t), None if w is None else T.tensor(w),
                   reduction=reduction)
    ref = np_nll(x, t, w, reduction=reduction)
    assert tuple(y.shape) == np.shape(ref)
    np.testing.assert_allclose(y.cpu().numpy(), ref, rtol=1e-12)


@pytest.mark.parametrize("dtype,tol", [(T.float32, 1e-6), (T.bfloat16, 1e-2),
                                       (T.float16, 1e-3)])
def test_cross_entropy_dtypes(dtype, tol):
    x = T.tensor(rng.standard_normal((8, 10))).to(dtype)
    t = rng.integers(0, 10, (8,))
    y = F.cross_entropy(x, T.tensor(t))
    assert y.dtype == dtype
    ref = np_nll(np_log_softmax(x.double().cpu().numpy(), 1), t)
    np.testing.assert_allclose(y.double().item(), ref, rtol=tol)


def test_cross_entropy_non_contiguous_and_ignore_index():
    x = rng.standard_normal((5, 4, 3))
    xt = T.tensor(x).permute(0, 2, 1).permute(0, 2, 1)[:, :, ::2]  # (5, 4, 2) strided
    t = rng.integers(0, 4, (5, 2))
    t[1, 1] = 2
    y = F.cross_entropy(xt, T.tensor(t), ignore_index=2, reduction="sum")
    ref = np_nll(np_log_softmax(x[:, :, ::2], 1), t, ignore=2, reduction="sum")
    np.testing.assert_allclose(y.item(), ref, rtol=1e-12)


def test_mean_of_all_ignored_targets_is_nan():
    y = F.nll_loss(T.tensor(rng.standard_normal((2, 3))), T.tensor([-100, -100]))
    assert np.isnan(y.item())


def test_module_matches_functional():
    x, t = T.tensor(rng.standard_normal((4, 5))), T.tensor([0, 1, 4, 2])
    w = T.tensor(rng.random(5))
    np.testing.assert_allclose(nn.NLLLoss(weight=w, reduction="sum")(x, t).item(),
                               F.nll_loss(x, t, w, reduction="sum").item())
    np.testing.assert_allclose(nn.CrossEntropyLoss(label_smoothing=0.2)(x, t).item(),
                               F.cross_entropy(x, t, label_smoothing=0.2).item())


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_gradcheck_and_gradgradcheck(reduction):
    x = T.tensor(rng.standard_normal((4, 3, 2)), requires_grad=True)
    t = T.tensor([[0, 2], [1, -100], [2, 2], [0, 1]])
    w = T.tensor(rng.random(3) + 0.2)
    for fn in (lambda x: F.nll_loss(x, t, w, reduction=reduction),
               lambda x: F.cross_entropy(x, t, w, reduction=reduction, label_smoothing=0.1)):
        assert gradcheck(fn, (x,))
        assert gradgradcheck(fn, (x,))


def test_backward_op_differentiates_in_grad_output():
    x = T.tensor(rng.standard_normal((3, 4)))
    t = T.tensor([1, 3, 0])
    _, tw = C.nll_loss_nd(x, t, None, 0, -100)
    g = T.tensor(rng.standard_normal(3), requires_grad=True)
    assert gradcheck(lambda g: C.nll_loss_backward(g, x, t, None, 0, -100, tw), (g,))


def test_errors_name_the_shapes():
    with pytest.raises(ValueError, match=r"^Expected input batch_size \(3\) to match target "
                                         r"batch_size \(2\)\.$"):
        F.nll_loss(T.zeros(3, 4), T.tensor([0, 1]))
    with pytest.raises(IndexError, match=r"^Target 4 is out of bounds\.$"):
        F.nll_loss(T.zeros(2, 4), T.tensor([0, 4]))
    with pytest.raises(IndexError, match=r"^Target -1 is out of bounds\.$"):
        C.nll_loss_nd(T.zeros(2, 4), T.tensor([-1, 0]))
    with pytest.raises(RuntimeError, match=r"weight tensor should be defined either for all 4 "
                                           r"classes or no classes but got weight tensor of "
                                           r"shape: \[3\]"):
        F.nll_loss(T.zeros(2, 4), T.tensor([0, 1]), T.ones(3))
    with pytest.raises(RuntimeError, match=r"Expected target size \[2, 5\], got \[2, 4\]"):
        C.nll_loss_nd(T.zeros(2, 3, 5), T.zeros(2, 4, dtype=T.int64))


# ---- elementwise losses ------------------------------------------------------------------

def np_sigmoid_log(x):
    return np.where(x < 0, x - np.log1p(np.exp(x)), -np.log1p(np.exp(-x)))


def np_pointwise(name, x, t, **kw):
    d = x - t
    if name == "mse_loss":
        return d * d
    if name == "l1_loss":
        return np.abs(d)
    if name == "smooth_l1_loss":
        b = kw.get("beta", 1.0)
        return np.where(np.abs(d) < b, 0.5 * d * d / b, np.abs(d) - 0.5 * b)
    if name == "huber_loss":
        b = kw.get("delta", 1.0)
        return np.where(np.abs(d) < b, 0.5 * d * d, b * (np.abs(d) - 0.5 * b))
    w = kw.get("weight", 1.0)
    if name == "binary_cross_entropy":
        return -w * (t * np.maximum(np.log(x), -100) + (1 - t) * np.maximum(np.log1p(-x), -100))
    if name == "binary_cross_entropy_with_logits":
        p = kw.get("pos_weight", 1.0)
        return -w * (p * t * np_sigmoid_log(x) + (1 - t) * np_sigmoid_log(-x))
    if kw.get("log_target"):
        return np.exp(t) * (t - x)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(t > 0, t * (np.log(np.where(t > 0, t, 1)) - x), 0.0)


def loss_inputs(name, shape):
    x = rng.standard_normal(shape)
    t = rng.standard_normal(shape)
    if name == "binary_cross_entropy":
        x = rng.uniform(0.05, 0.95, shape)
    if name.startswith("binary"):
        t = rng.uniform(0, 1, shape)
    if name == "kl_div":
        t = rng.uniform(0, 1, shape)
        t.reshape(-1)[:1] = 0  # a zero target contributes 0
    return x, t


POINTWISE = [("mse_loss", {}), ("l1_loss", {}), ("smooth_l1_loss", {"beta": 0.7}),
             ("huber_loss", {"delta": 0.6}), ("binary_cross_entropy", {}),
             ("binary_cross_entropy_with_logits", {}), ("kl_div", {}),
             ("kl_div", {"log_target": True})]


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("name,kw", POINTWISE)
def test_pointwise_losses_match_numpy(name, kw, reduction):
    x, t = loss_inputs(name, (3, 4))
    y = getattr(F, name)(T.tensor(x), T.tensor(t), reduction=reduction, **kw)
    ref = np_pointwise(name, x, t, **kw)
    ref = {"none": ref, "mean": ref.mean(), "sum": ref.sum()}[reduction]
    np.testing.assert_allclose(y.cpu().numpy(), ref, rtol=1e-12, atol=1e-14)


def test_bce_weight_and_pos_weight_broadcast():
    x, t = rng.standard_normal((4, 3)), rng.uniform(0, 1, (4, 3))
    w, p = rng.random(3) + 0.5, rng.random(3) + 0.5
    y = F.binary_cross_entropy_with_logits(T.tensor(x), T.tensor(t), T.tensor(w),
                                           pos_weight=T.tensor(p), reduction="sum")
    ref = np_pointwise("binary_cross_entropy_with_logits", x, t, weight=w, pos_weight=p).sum()
    np.testing.assert_allclose(y.item(), ref, rtol=1e-12)
    xp = rng.uniform(0.1, 0.9, (4, 3))
    y = F.binary_cross_entropy(T.tensor(xp), T.tensor(t), T.tensor(w))
    np.testing.assert_allclose(y.item(), np_pointwise("binary_cross_entropy", xp, t, weight=w)
                               .mean(), rtol=1e-12)
    # the logs are clamped at -100: x = 0 with t = 1 costs 100
    y = F.binary_cross_entropy(T.tensor([0.0, 1.0]), T.tensor([1.0, 0.0]), reduction="none")
    np.testing.assert_array_equal(y.cpu().numpy(), [100.0, 100.0])


@pytest.mark.parametrize("dtype,tol", [(T.float32, 1e-6), (T.bfloat16, 1e-2), (T.float16, 2e-3)])
def test_pointwise_losses_dtypes_and_non_contiguous(dtype, tol):
    x, t = rng.standard_normal((5, 4)), rng.standard_normal((4, 5))
    xt = T.tensor(x).to(dtype)
    tt = T.tensor(t).to(dtype).t()  # non-contiguous
    y = F.smooth_l1_loss(xt, tt, beta=0.5)
    assert y.dtype == dtype
    ref = np_pointwise("smooth_l1_loss", xt.double().cpu().numpy(), tt.double().cpu().numpy(), beta=0.5)
    np.testing.assert_allclose(y.double().item(), ref.mean(), rtol=tol)


def test_pointwise_losses_broadcast_and_promote():
    x, t = rng.standard_normal((3, 4)), rng.standard_normal(4)
    with pytest.warns(UserWarning, match="different to the input size"):
        y = F.mse_loss(T.tensor(x, dtype=T.float32), T.tensor(t), reduction="sum")
    assert y.dtype == T.float64
    np.testing.assert_allclose(y.item(), ((x.astype(np.float32) - t) ** 2).sum(), rtol=1e-12)
    y = F.l1_loss(T.zeros(0, 3), T.zeros(0, 3), reduction="sum")
    assert y.item() == 0


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("name,kw", POINTWISE)
def test_pointwise_losses_gradcheck_and_gradgradcheck(name, kw, reduction):
    x, t = loss_inputs(name, (2, 3))
    if name == "kl_div" and not kw:
        t = t + 0.1  # log(t) + 1 - x is the target's gradient: away from t = 0
    if name in ("l1_loss", "smooth_l1_loss", "huber_loss"):
        x = x + np.sign(x - t) * 0.1  # away from the kinks
    xl = T.tensor(x, requires_grad=True)
    tl = T.tensor(t, requires_grad=True)
    fn = getattr(F, name)
    assert gradcheck(lambda a, b: fn(a, b, reduction=reduction, **kw), (xl, tl))
    assert gradgradcheck(lambda a, b: fn(a, b, reduction=reduction, **kw), (xl, tl))


def test_pointwise_backward_op_differentiates_on_its_own():
    x = T.tensor(rng.standard_normal((2, 3)), requires_grad=True)
    t = T.tensor(rng.uniform(0, 1, (2, 3)), requires_grad=True)
    w = T.tensor(rng.random((2, 3)) + 0.5, requires_grad=True)
    g = T.tensor(rng.standard_normal((2, 3)), requires_grad=True)
    assert gradcheck(lambda g, x, t, w: C._pointwise_loss_backward(g, x, t, w, None, 5, 0.0, 0),
                     (g, x, t, w))


@pytest.mark.host_only  # runs its own fake-device subprocess
def test_fake_device_uses_the_device_kernel_and_keeps_results_there():
    run_on_fake_device("""
        import numpy as np
        import torchlike as T
        import torchlike.nn.functional as F
        C = T._C
        C._fake_enable()
        C._dispatch_lend_cpu_kernels("fake", True)
        x = T.randn(3, 4).to("fake")
        t = T.tensor([0, 3, 1]).to("fake")
        y = F.cross_entropy(x, t)
        assert str(y.device) == "fake:0"
        np.testing.assert_allclose(y.cpu().numpy(), F.cross_entropy(x.cpu(), t.cpu()).cpu().numpy(),
                                   rtol=1e-6)
        xr = x.detach().requires_grad_()
        F.nll_loss(xr, t).backward()
        assert str(xr.grad.device) == "fake:0"
        u = T.rand(3, 4).to("fake")
        for fn in (F.mse_loss, F.binary_cross_entropy_with_logits):
            y = fn(x, u)
            assert str(y.device) == "fake:0"
            np.testing.assert_allclose(y.cpu().numpy(), fn(x.cpu(), u.cpu()).cpu().numpy(), rtol=1e-6)
        print("ok")
    """)


def test_kl_div_mean_warns_as_pytorch():
    import warnings
    x = T.tensor(np.log(np.full((2, 3), 1 / 3)))
    y = T.tensor(np.full((2, 3), 1 / 3))
    with pytest.warns(UserWarning, match="^reduction: 'mean' divides the total loss by both the "
                                         "batch size and the support size.'batchmean'"):
        F.kl_div(x, y)
    with pytest.warns(UserWarning, match="reduction: 'mean' divides"):
        nn.KLDivLoss()(x, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        F.kl_div(x, y, reduction="batchmean")
    # the legacy arguments get their own deprecation warning instead
    with pytest.warns(UserWarning, match="^size_average and reduce args will be deprecated, "
                                         "please use reduction='mean' instead.$") as record:
        F.kl_div(x, y, size_average=True)
    assert len(record) == 1


def test_target_shape_errors_in_pytorchs_words():
    # nll_loss and cross_entropy: a (N, C) input with a 2-d target, and
    # spatial targets of the wrong size (lists; 2-d and up: "size mismatch (")
    for loss in (F.nll_loss, F.cross_entropy):
        with pytest.raises(RuntimeError, match=r"^0D or 1D target tensor expected, multi-target"):
            loss(T.ones(2, 3), T.zeros(2, 1, dtype=T.long))
        with pytest.raises(RuntimeError, match=r"^Expected target size \[2, 4\], got \[2, 1\]$"):
            loss(T.ones(2, 3, 4), T.zeros(2, 1, dtype=T.long))
        with pytest.raises(RuntimeError) as info:
            loss(T.ones(2, 3, 4, 5), T.zeros(2, 4, 4, dtype=T.long))
        assert str(info.value) == "size mismatch (got input: [2, 3, 4, 5] , target: [2, 4, 4]"
        # the 2-d spatial case names a target of another rank first; 3-d and
        # up spatial inputs use the 1-d case's words
        with pytest.raises(RuntimeError, match=r"^only batches of spatial targets supported \(3D "
                                               r"tensors\) but got targets of dimension: 2$"):
            loss(T.ones(2, 3, 4, 5), T.zeros(2, 4, dtype=T.long))
        with pytest.raises(RuntimeError, match=r"^Expected target size \[2, 4, 5, 2\], got "
                                               r"\[2, 4, 5\]$"):
            loss(T.ones(2, 3, 4, 5, 2), T.zeros(2, 4, 5, dtype=T.long))


def test_cross_entropy_probabilities_refuse_a_class_to_ignore():
    # PyTorch's check: a non-negative ignore_index with probability targets
    probs = T.tensor([[0.5, 0.5, 0.0], [1.0, 0.0, 0.0]])
    with pytest.raises(RuntimeError, match="^ignore_index is not supported for floating point "
                                           "target$"):
        F.cross_entropy(T.ones(2, 3), probs, ignore_index=1)
    for ignored in (-100, -1):   # negative ones are no class: accepted
        np.testing.assert_allclose(F.cross_entropy(T.ones(2, 3), probs,
                                                   ignore_index=ignored).item(), np.log(3),
                                   rtol=1e-6)


@pytest.mark.parametrize("shape", [(), (3,), (2, 3, 4)])
def test_cross_entropy_integer_target_shaped_like_the_input(shape):
    # PyTorch reads a target of the input's shape as probabilities and
    # refuses an integer one; here it was read as class indices and refused
    # in other words (training programs, round seven)
    import torchlike
    x = torchlike.ones(shape)
    with pytest.raises(RuntimeError, match="^Expected floating point type for target with "
                                           "class probabilities, got Long$"):
        torchlike.nn.functional.cross_entropy(x, torchlike.zeros(shape, dtype=torchlike.long))


def test_bce_target_dtypes_as_pytorch():
    x = T.tensor([0.3, -1.2, 2.0], dtype=T.float64)
    t = T.tensor([1.0, 0.0, 0.5])
    # binary_cross_entropy takes a target of the input's dtype only
    for target, name in ((t.long(), "Long"), (t.bool(), "Bool"), (t, "Float")):
        with pytest.raises(RuntimeError, match=f"^Found dtype {name} but expected Double$"):
            F.binary_cross_entropy(x.sigmoid(), target)
    # with logits: integer and bool targets refused as PyTorch's (1 - target)
    # product refuses them; a float target's dtype is the loss's
    with pytest.raises(RuntimeError, match="^result type Double can't be cast to the desired "
                                           "output type Int$"):
        F.binary_cross_entropy_with_logits(x, t.int())
    with pytest.raises(NotImplementedError, match="^Subtraction, the `-` operator, with two bool"):
        F.binary_cross_entropy_with_logits(x, t.bool())
    want = np.mean(np.logaddexp(0, x.cpu().numpy()) - t.double().cpu().numpy() * x.cpu().numpy())
    for tt, xx in ((t, x), (t.half(), x.float()), (t.double(), x.float())):
        loss = F.binary_cross_entropy_with_logits(xx, tt)
        assert loss.dtype == tt.dtype
        np.testing.assert_allclose(loss.item(), want, rtol=2e-3 if tt.dtype == T.float16
                                   else 1e-6)
    xs = x.float().requires_grad_()
    F.binary_cross_entropy_with_logits(xs, t.double(), pos_weight=T.tensor([2.0])).backward()
    assert xs.grad.dtype == T.float32


def test_one_hot_takes_int64_indices_only():
    for dtype in (T.int32, T.uint8, T.int16, T.bool, T.float32):
        with pytest.raises(RuntimeError, match="^one_hot is only applicable to index tensor of "
                                               "type LongTensor.$"):
            F.one_hot(T.tensor([1, 0], dtype=dtype), 3)
    assert F.one_hot(T.tensor([1, 0]), 3).tolist() == [[0, 1, 0], [1, 0, 0]]


def test_huber_and_soft_margin_give_the_inputs_dtype_and_kl_div_refuses_integers():
    x = T.tensor([0.2, -0.7, 1.5])
    t = T.tensor([1.0, -1.0, 1.0], dtype=T.float64)
    d = x.double().cpu().numpy() - t.cpu().numpy()
    huber = np.where(np.abs(d) < 0.5, 0.5 * d ** 2, 0.5 * (np.abs(d) - 0.25)).mean()
    margin = np.log1p(np.exp(-t.cpu().numpy() * x.double().cpu().numpy())).mean()
    # computed into a tensor made like the input, as PyTorch's kernels do
    for target in (t, t.long()):
        out = F.huber_loss(x, target, delta=0.5)
        assert out.dtype == T.float32
        np.testing.assert_allclose(out.item(), huber, rtol=1e-6)
        out = F.soft_margin_loss(x, target)
        assert out.dtype == T.float32
        np.testing.assert_allclose(out.item(), margin, rtol=1e-6)
    assert F.huber_loss(x.double(), t.float()).dtype == T.float64
    for a, b in ((x, T.tensor([1, 0, 1])), (T.tensor([1, 0, 1]), x), (x, x > 0)):
        with pytest.raises(RuntimeError, match="^kl_div: Integral inputs not supported.$"):
            F.kl_div(a, b, reduction="batchmean")


def test_integer_operands_of_the_regression_losses_as_pytorch():
    i, j, f = T.tensor([1, 2]), T.tensor([0, 5]), T.tensor([0.5, 0.0])
    # no integer kernels for mse, smooth_l1 and huber: both operands integer
    # is refused; one float operand computes in float
    for fn, name in ((F.mse_loss, "mse"), (F.smooth_l1_loss, "smooth_l1"),
                     (F.huber_loss, "huber")):
        with pytest.raises(NotImplementedError,
                           match=f"^\"{name}_{i.device.type}\" not implemented for 'Long'$"):
            fn(i, j)
        assert fn(f, i).dtype == T.float32
    np.testing.assert_allclose(F.mse_loss(i, f).item(), (0.25 + 4) / 2)
    # huber and soft margin compute into a tensor made like the input
    for fn in (F.huber_loss, F.soft_margin_loss):
        with pytest.raises(RuntimeError, match="^result type Float can't be cast to the desired "
                                               "output type Long$"):
            fn(i, f)
    # l1 is |input - target|: integers stay integers, and their mean is refused
    assert F.l1_loss(i, j, reduction="sum").item() == 4
    assert F.l1_loss(i, j, reduction="none").tolist() == [1, 3]
    with pytest.raises(NotImplementedError, match="^mean\\(\\): could not infer output dtype"):
        F.l1_loss(i, j)


def test_margin_ranking_wants_operands_of_one_rank():
    with pytest.raises(RuntimeError, match="^margin_ranking_loss : All input tensors should have "
                                           "same dimension but got sizes: input1: "
                                           "torchlike.Size\\(\\[3\\]\\), input2: "
                                           "torchlike.Size\\(\\[3\\]\\), target: "
                                           "torchlike.Size\\(\\[\\]\\) $"):
        F.margin_ranking_loss(T.zeros(3), T.zeros(3), T.tensor(1.0))
    assert F.margin_ranking_loss(T.zeros(3), T.ones(3), T.ones(3), margin=2.0).item() == 3.0
