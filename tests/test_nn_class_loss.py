"""The fused losses of class scores of src/nn/loss: cross_entropy (one op,
class indices or probabilities, weight, ignore_index, label smoothing),
multi_margin_loss, multilabel_margin_loss and ctc_loss.

Values against NumPy references written here over reductions, (N, C, d1,
...) and unbatched inputs, float32/float64, 0-size batches and
non-contiguous inputs; derivatives by finite differences (gradcheck, and
gradgradcheck where PyTorch has a double backward; where it has none, its
error); PyTorch's exact semantics are in tests/test_nn_norm_loss_golden.py
(tests/golden/nn_class_loss)."""
import numpy as np
import pytest

import torchlike as T
import torchlike.nn as nn
import torchlike.nn.functional as F
from torchlike.autograd import gradcheck, gradgradcheck

C = T._C

# the derivatives gradchecked here (tests/test_grad_registry.py reads this)
GRADCHECKED = {"_cross_entropy", "_cross_entropy_backward", "_multi_margin_loss",
               "_multi_margin_loss_backward", "_multilabel_margin_loss", "_ctc_loss"}

rng = np.random.default_rng(5)


# ---- cross_entropy ---------------------------------------------------------------------

def np_log_softmax(x, axis):
    m = x.max(axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis, keepdims=True))


def np_cross_entropy(x, t, w=None, ignore=-100, reduction="mean", eps=0.0):
    """x (N, C, *) or (C,); t class indices (N, *) / () or probabilities like x."""
    x, t = np.asarray(x, np.float64), np.asarray(t)
    unbatched = x.ndim == 1
    if unbatched:
        x, t = x[None], t[None]
    n_cls = x.shape[1]
    w = np.ones(n_cls) if w is None else np.asarray(w, np.float64)
    wb = w.reshape((1, n_cls) + (1,) * (x.ndim - 2))
    logp = np_log_softmax(x, 1)
    if np.issubdtype(t.dtype, np.floating):
        q = t * (1 - eps) + eps / n_cls
        denom = x.size // n_cls
    else:
        valid = t != ignore
        safe = np.where(valid, t, 0)
        hot = np.moveaxis(np.eye(n_cls)[safe], -1, 1)
        q = (hot * (1 - eps) + eps / n_cls) * valid[:, None]
        denom = (w[safe] * valid).sum()
    loss = -(wb * q * logp).sum(1)
    if reduction == "none":
        return loss[0] if unbatched else loss
    if reduction == "sum":
        return loss.sum()
    with np.errstate(invalid="ignore"):  # an empty mean is NaN, as in PyTorch
        return loss.sum() / denom


def np_probs(shape, axis):
    e = np.exp(rng.standard_normal(shape))
    return e / e.sum(axis, keepdims=True)


SHAPES = [((6, 5), (6,)), ((3, 4, 5), (3, 5)), ((2, 3, 2, 4), (2, 2, 4)), ((4,), ()),
          ((0, 3), (0,))]


def ce_inputs(shape, tshape, probs):
    n_cls = shape[1] if len(shape) > 1 else shape[0]
    x = rng.standard_normal(shape)
    if probs:
        return x, np_probs(shape, 1 if len(shape) > 1 else 0), n_cls
    t = rng.integers(0, n_cls, tshape)
    if t.size > 1:
        t.reshape(-1)[0] = 1  # the ignored class below
    return x, t, n_cls


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("shape,tshape", SHAPES)
@pytest.mark.parametrize("probs", [False, True])
@pytest.mark.parametrize("weighted,eps", [(False, 0.0), (True, 0.0), (True, 0.3)])
def test_cross_entropy_matches_numpy(reduction, shape, tshape, probs, weighted, eps):
    x, t, n_cls = ce_inputs(shape, tshape, probs)
    w = rng.random(n_cls) + 0.1 if weighted else None
    ignore = -100 if probs else 1   # probabilities refuse a class to ignore (PyTorch's)
    y = F.cross_entropy(T.tensor(x), T.tensor(t), None if w is None else T.tensor(w),
                        ignore_index=ignore, reduction=reduction, label_smoothing=eps)
    ref = np_cross_entropy(x, t, w, ignore, reduction, eps)
    assert tuple(y.shape) == np.shape(ref)
    np.testing.assert_allclose(y.cpu().numpy(), ref, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("probs", [False, True])
def test_cross_entropy_float32_non_contiguous(probs):
    x = rng.standard_normal((5, 6, 3)).astype(np.float32)
    t = np_probs((5, 3, 6), 2).astype(np.float32) if probs else rng.integers(0, 6, (5, 3))
    xt = T.tensor(x.transpose(0, 2, 1)).permute(0, 2, 1)  # (5, 6, 3), class dim strided
    tt = T.tensor(t).permute(0, 2, 1) if probs else T.tensor(t.T).t()
    assert not xt.is_contiguous() and not tt.is_contiguous()
    y = F.cross_entropy(xt, tt, reduction="none", label_smoothing=0.1)
    assert y.dtype == T.float32
    ref = np_cross_entropy(x, t.transpose(0, 2, 1) if probs else t, reduction="none", eps=0.1)
    np.testing.assert_allclose(y.cpu().numpy(), ref, rtol=2e-5, atol=1e-6)


@pytest.mark.parametrize("dtype,tol", [(T.bfloat16, 1e-2), (T.float16, 2e-3)])
def test_cross_entropy_half_dtypes_work_in_float32(dtype, tol):
    x = T.tensor(rng.standard_normal((8, 10))).to(dtype)
    t = rng.integers(0, 10, (8,))
    y = F.cross_entropy(x, T.tensor(t), label_smoothing=0.1)
    assert y.dtype == dtype
    ref = np_cross_entropy(x.double().cpu().numpy(), t, eps=0.1)
    np.testing.assert_allclose(y.double().item(), ref, rtol=tol)
    xg = x.detach().requires_grad_()
    F.cross_entropy(xg, T.tensor(t)).backward()
    assert xg.grad.dtype == dtype


def test_cross_entropy_probabilities_of_another_dtype_promote():
    x, p = rng.standard_normal((3, 4)), np_probs((3, 4), 1)
    y = F.cross_entropy(T.tensor(x).float(), T.tensor(p))
    assert y.dtype == T.float64
    np.testing.assert_allclose(y.item(), np_cross_entropy(x.astype(np.float32), p), rtol=1e-6)


def test_cross_entropy_gradient_matches_numpy():
    # softmax - target, weighted and scaled, checked against the closed form
    x, t = rng.standard_normal((4, 5)), np.array([0, 3, 1, 3])
    w = rng.random(5) + 0.1
    xt = T.tensor(x, requires_grad=True)
    F.cross_entropy(xt, T.tensor(t), T.tensor(w), ignore_index=1, label_smoothing=0.2).backward()
    p = np.exp(np_log_softmax(x, 1))
    q = (np.eye(5)[t] * 0.8 + 0.2 / 5) * (t != 1)[:, None]
    wq = w * q
    ref = (p * wq.sum(1, keepdims=True) - wq) / (w[t] * (t != 1)).sum()
    np.testing.assert_allclose(xt.grad.cpu().numpy(), ref, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_cross_entropy_gradcheck_and_gradgradcheck(reduction):
    x = T.tensor(rng.standard_normal((4, 3, 2)), requires_grad=True)
    t = T.tensor([[0, 2], [1, -100], [2, 2], [0, 1]])
    p = T.tensor(np_probs((4, 3, 2), 1), requires_grad=True)
    w = T.tensor(rng.random(3) + 0.2)
    for fn, args in ((lambda x: F.cross_entropy(x, t, w, reduction=reduction,
                                                label_smoothing=0.1), (x,)),
                     (lambda x, p: F.cross_entropy(x, p, w, reduction=reduction,
                                                   label_smoothing=0.2), (x, p))):
        assert gradcheck(fn, args)
        assert gradgradcheck(fn, args)


def test_cross_entropy_backward_op_differentiates_in_grad_output():
    x = T.tensor(rng.standard_normal((3, 4)))
    t = T.tensor([1, 3, 0])
    _, lse, tw = C._cross_entropy(x, t, None, 0, -100, 0.1)
    np.testing.assert_allclose(lse.cpu().numpy(), np.log(np.exp(x.cpu().numpy()).sum(1)), rtol=1e-14)
    g = T.tensor(rng.standard_normal(3), requires_grad=True)
    assert gradcheck(lambda g: C._cross_entropy_backward(g, x, t, None, 0, -100, 0.1, lse,
                                                         tw)[0], (g,))
    # class indices have no gradient
    assert C._cross_entropy_backward(g, x, t, None, 0, -100, 0.1, lse, tw)[1] is None


def test_cross_entropy_module_and_errors():
    x, t = T.tensor(rng.standard_normal((4, 5))), T.tensor([0, 1, 4, 2])
    np.testing.assert_allclose(nn.CrossEntropyLoss(label_smoothing=0.2)(x, t).item(),
                               np_cross_entropy(x.cpu().numpy(), t.cpu().numpy(), eps=0.2), rtol=1e-12)
    with pytest.raises(ValueError, match=r"^Expected input batch_size \(4\) to match target "
                                         r"batch_size \(3\)\.$"):
        F.cross_entropy(x, t[:3])
    with pytest.raises(IndexError, match=r"^Target 5 is out of bounds\.$"):
        F.cross_entropy(x, T.tensor([0, 1, 5, 2]))
    with pytest.raises(RuntimeError, match="weight tensor should be defined either for all 5"):
        F.cross_entropy(x, t, T.ones(4, dtype=T.float64))
    with pytest.raises(ValueError, match="^bad is not a valid value for reduction$"):
        F.cross_entropy(x, t, reduction="bad")


# ---- margin losses -----------------------------------------------------------------------

def np_multi_margin(x, t, p=1, margin=1.0, w=None, reduction="mean"):
    x, t = np.asarray(x, np.float64), np.asarray(t)
    n_cls = x.shape[-1]
    x2, t1 = x.reshape(-1, n_cls), t.reshape(-1)
    rows = np.arange(len(t1))
    h = np.maximum(margin - x2[rows, t1][:, None] + x2, 0) ** p
    h[rows, t1] = 0
    if w is not None:
        h = h * np.asarray(w)[t1][:, None]
    loss = h.sum(1) / n_cls
    if reduction == "none":
        return loss if t.ndim else loss[0]
    with np.errstate(invalid="ignore"):
        return loss.sum() if reduction == "sum" else loss.sum() / len(loss)


def np_multilabel_margin(x, t, reduction="mean"):
    x, t = np.asarray(x, np.float64), np.asarray(t)
    n_cls = x.shape[-1]
    x2, t2 = x.reshape(-1, n_cls), t.reshape(-1, n_cls)
    loss = np.zeros(len(x2))
    for n in range(len(x2)):
        targets = []
        for v in t2[n]:
            if v < 0:
                break
            targets.append(v)
        others = [i for i in range(n_cls) if i not in targets]
        loss[n] = sum(max(0.0, 1 - x2[n, j] + x2[n, i]) for j in targets for i in others) / n_cls
    if reduction == "none":
        return loss if t.ndim == 2 else loss[0]
    with np.errstate(invalid="ignore"):
        return loss.sum() if reduction == "sum" else loss.sum() / len(loss)


def multilabel_targets(n, n_cls):
    t = np.stack([rng.permutation(n_cls) for _ in range(n)]) if n else np.zeros((0, n_cls), int)
    for row in t:
        row[rng.integers(0, n_cls + 1):][:1] = -1  # a -1 somewhere (or none)
    return t


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("n", [5, 0])
@pytest.mark.parametrize("p,margin,weighted", [(1, 1.0, False), (2, 0.6, True)])
def test_multi_margin_matches_numpy(reduction, n, p, margin, weighted):
    x, t = rng.standard_normal((n, 6)) * 0.6, rng.integers(0, 6, n)
    w = rng.random(6) + 0.1 if weighted else None
    y = F.multi_margin_loss(T.tensor(x), T.tensor(t), p, margin,
                            None if w is None else T.tensor(w), reduction=reduction)
    ref = np_multi_margin(x, t, p, margin, w, reduction)
    assert tuple(y.shape) == np.shape(ref)
    np.testing.assert_allclose(y.cpu().numpy(), ref, rtol=1e-12)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("n", [5, 0])
def test_multilabel_margin_matches_numpy(reduction, n):
    x, t = rng.standard_normal((n, 6)) * 0.6, multilabel_targets(n, 6)
    y = F.multilabel_margin_loss(T.tensor(x), T.tensor(t), reduction=reduction)
    ref = np_multilabel_margin(x, t, reduction)
    assert tuple(y.shape) == np.shape(ref)
    np.testing.assert_allclose(y.cpu().numpy(), ref, rtol=1e-12)


def test_margin_losses_unbatched_float32_non_contiguous():
    x = rng.standard_normal((7, 4)).astype(np.float32) * 0.6
    xt = T.tensor(x.T.copy()).t()  # (7, 4) transposed storage
    t = rng.integers(0, 4, 7)
    y = F.multi_margin_loss(xt, T.tensor(t), p=2, reduction="none")
    assert y.dtype == T.float32 and not xt.is_contiguous()
    np.testing.assert_allclose(y.cpu().numpy(), np_multi_margin(x, t, 2, reduction="none"), rtol=1e-5)
    tl = multilabel_targets(7, 4)
    y = F.multilabel_margin_loss(xt, T.tensor(tl.T.copy()).t(), reduction="none")
    np.testing.assert_allclose(y.cpu().numpy(), np_multilabel_margin(x, tl, "none"), rtol=1e-5)
    y = F.multi_margin_loss(T.tensor(x[0]), T.tensor(t[0]), reduction="none")
    assert y.shape == ()
    np.testing.assert_allclose(y.item(), np_multi_margin(x[0], t[0], reduction="none"),
                               rtol=1e-6)
    y = F.multilabel_margin_loss(T.tensor(x[0]), T.tensor(tl[0]), reduction="none")
    np.testing.assert_allclose(y.item(), np_multilabel_margin(x[0], tl[0], "none"), rtol=1e-6)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_margin_losses_gradcheck(reduction):
    x = T.tensor(rng.standard_normal((4, 5)) * 0.6, requires_grad=True)
    t = T.tensor(rng.integers(0, 5, 4))
    w = T.tensor(rng.random(5) + 0.1)
    for p in (1, 2):
        fn = lambda x: F.multi_margin_loss(x, t, p, 0.8, w, reduction=reduction)  # noqa: E731
        assert gradcheck(fn, (x,))
        assert gradgradcheck(fn, (x,))
    tl = T.tensor(multilabel_targets(4, 5))
    assert gradcheck(lambda x: F.multilabel_margin_loss(x, tl, reduction=reduction), (x,))


def test_multi_margin_backward_op_differentiates_in_grad_output():
    x, t = T.tensor(rng.standard_normal((3, 4))), T.tensor([1, 3, 0])
    g = T.tensor(rng.standard_normal(3), requires_grad=True)
    assert gradcheck(lambda g: C._multi_margin_loss_backward(g, x, t, 2, 1.0, None, 0), (g,))


def test_multilabel_margin_has_no_double_backward_as_in_pytorch():
    x = T.tensor(rng.standard_normal((3, 4)), requires_grad=True)
    y = F.multilabel_margin_loss(x, T.tensor(multilabel_targets(3, 4)))
    (g,) = T.autograd.grad(y, x, create_graph=True)
    with pytest.raises(RuntimeError, match="derivative for aten::multilabel_margin_loss_backward "
                                           "is not implemented"):
        T.autograd.grad(g.sum(), x)


# ---- ctc_loss ----------------------------------------------------------------------------

def np_ctc_nll(lp, labels, frames, blank):
    """-log p(labels | lp[:frames]) by the alpha recursion, lp (T, C)."""
    ext = [blank]
    for v in labels:
        ext += [int(v), blank]
    if frames == 0:
        return 0.0 if len(ext) == 1 else np.inf
    a = np.full(len(ext), -np.inf)
    a[:2] = lp[0, ext[:2]]
    with np.errstate(divide="ignore"):
        for t in range(1, frames):
            new = np.full(len(ext), -np.inf)
            for s in range(len(ext)):
                v = a[s]
                if s > 0:
                    v = np.logaddexp(v, a[s - 1])
                if s > 1 and ext[s] != ext[s - 2]:
                    v = np.logaddexp(v, a[s - 2])
                new[s] = v + lp[t, ext[s]]
            a = new
        return -(np.logaddexp(a[-1], a[-2]) if len(ext) > 1 else a[-1])


def np_ctc(lp, targets, il, tl, blank=0, reduction="mean", zero_infinity=False):
    """lp (T, N, C); targets a list of label lists."""
    nll = np.array([np_ctc_nll(lp[:, n], targets[n], il[n], blank) for n in range(len(il))])
    if zero_infinity:
        nll = np.where(np.isinf(nll), 0, nll)
    if reduction == "none":
        return nll
    if reduction == "sum":
        return nll.sum()
    with np.errstate(invalid="ignore"):
        return (nll / np.maximum(np.asarray(tl, float), 1)).mean()


def ctc_case(T_, N, n_cls, blank=0):
    x = rng.standard_normal((T_, N, n_cls))
    lp = np_log_softmax(x, 2)
    tl = rng.integers(0, 4, N)
    il = rng.integers(T_ - 2, T_ + 1, N)  # T_ >= 8: every target (<= 3 labels) fits
    labels = [[int(v) for v in rng.choice([c for c in range(n_cls) if c != blank], k)]
              for k in tl]
    return lp, labels, il, tl


def padded(labels, width=4):
    return np.array([row + [0] * (width - len(row)) for row in labels], dtype=np.int64)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("blank", [0, 3])
def test_ctc_matches_numpy_padded_and_concatenated(reduction, blank):
    lp, labels, il, tl = ctc_case(9, 4, 5, blank)
    ref = np_ctc(lp, labels, il, tl, blank, reduction)
    concat = np.array([v for row in labels for v in row], dtype=np.int64)
    for targets in (padded(labels), concat):
        y = F.ctc_loss(T.tensor(lp), T.tensor(targets), T.tensor(il), list(tl), blank,
                       reduction)
        np.testing.assert_allclose(y.cpu().numpy(), ref, rtol=1e-12)


def test_ctc_float32_non_contiguous_and_unbatched():
    lp, labels, il, tl = ctc_case(8, 3, 4)
    x = T.tensor(lp.transpose(1, 0, 2).astype(np.float32)).transpose(0, 1)  # (T, N, C) strided
    assert not x.is_contiguous()
    y = F.ctc_loss(x, T.tensor(padded(labels)), il, tl, reduction="none")
    assert y.dtype == T.float32
    np.testing.assert_allclose(y.cpu().numpy(), np_ctc(lp.astype(np.float32), labels, il, tl,
                                                 reduction="none"), rtol=1e-5)
    y = F.ctc_loss(T.tensor(lp[:, 0]), T.tensor(padded(labels)[0]), int(il[0]), int(tl[0]),
                   reduction="sum")
    assert y.shape == ()
    np.testing.assert_allclose(y.item(), np_ctc_nll(lp[:, 0], labels[0], il[0], 0), rtol=1e-12)


def test_ctc_zero_infinity_and_empty_batch():
    lp = np_log_softmax(rng.standard_normal((4, 2, 3)), 2)
    targets, il, tl = np.array([[1, 1, 2], [1, 2, 0]]), [4, 4], [3, 2]  # 1 1 2 needs 4 frames
    tg = T.tensor(targets)
    y = F.ctc_loss(T.tensor(lp), tg, [3, 4], tl, reduction="none")
    assert np.isinf(y[0].item())
    x = T.tensor(lp, requires_grad=True)
    y = F.ctc_loss(x, tg, [3, 4], tl, reduction="sum", zero_infinity=True)
    ref = np_ctc(lp, [[1, 1, 2], [1, 2]], [3, 4], tl, reduction="sum", zero_infinity=True)
    np.testing.assert_allclose(y.item(), ref, rtol=1e-12)
    y.backward()
    assert np.all(x.grad.cpu().numpy()[:, 0] == 0) and np.all(np.isfinite(x.grad.cpu().numpy()))
    y = F.ctc_loss(T.tensor(lp), tg, il, tl, zero_infinity=True)
    np.testing.assert_allclose(y.item(), np_ctc(lp, [[1, 1, 2], [1, 2]], il, tl), rtol=1e-12)
    empty = F.ctc_loss(T.zeros(4, 0, 3, dtype=T.float64), T.zeros(0, 2, dtype=T.int64), [], [],
                       reduction="none")
    assert tuple(empty.shape) == (0,)


def test_ctc_gradient_is_pytorchs_in_raw_log_probs():
    # PyTorch's gradient in log_probs is that of the logits under log_softmax:
    # the true derivative plus g * exp(log_probs)
    lp, labels, il, tl = ctc_case(8, 2, 4)
    x = T.tensor(lp, requires_grad=True)
    F.ctc_loss(x, T.tensor(padded(labels)), il, tl, reduction="sum").backward()
    numeric, h = np.zeros_like(lp), 1e-6
    for i in np.ndindex(lp.shape):
        up, down = lp.copy(), lp.copy()
        up[i] += h
        down[i] -= h
        numeric[i] = (np_ctc(up, labels, il, tl, reduction="sum") -
                      np_ctc(down, labels, il, tl, reduction="sum")) / (2 * h)
    frames = np.arange(8)[:, None, None] < il[None, :, None]
    np.testing.assert_allclose(x.grad.cpu().numpy(), numeric + np.exp(lp) * frames, atol=1e-7)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_ctc_gradcheck_and_no_double_backward(reduction):
    _, labels, il, tl = ctc_case(8, 3, 4)
    logits = T.tensor(rng.standard_normal((8, 3, 4)), requires_grad=True)
    tg = T.tensor(padded(labels))
    fn = lambda z: F.ctc_loss(z.log_softmax(2), tg, il, tl, reduction=reduction)  # noqa: E731
    assert gradcheck(fn, (logits,))
    (g,) = T.autograd.grad(fn(logits).sum(), logits, create_graph=True)
    with pytest.raises(RuntimeError, match="derivative for aten::_ctc_loss_backward is not "
                                           "implemented"):
        T.autograd.grad(g.sum(), logits)


def test_ctc_errors():
    lp = T.zeros(5, 2, 4, dtype=T.float64)
    with pytest.raises(IndexError, match=r"^Target 4 is out of bounds\.$"):
        F.ctc_loss(lp, T.tensor([[1, 4], [1, 1]]), [5, 5], [2, 2])
    with pytest.raises(RuntimeError, match="Expected input_lengths to have value at least 0"):
        F.ctc_loss(lp, T.tensor([[1, 2], [1, 1]]), [5, -1], [2, 2])
    with pytest.raises(RuntimeError, match="Expected 3-dimensional tensor"):
        C._ctc_loss(T.zeros(5, 4), T.tensor([[1]]), [5], [1])


# ---- ctc_loss: the kernel at sizes past its vector width ----------------------------------
# The CPU kernel runs each time step as one SIMD loop over a sample's states,
# padded to a multiple of 16, with the skip rule held in a mask; the backward
# writes each frame's gradient from two rows of beta.  These cases reach the
# padding (targets longer and shorter than the widest in the batch), many
# samples over the thread pool, and the edge states: empty targets, repeated
# labels that need blanks, inputs too short, -inf and NaN log-probabilities.

def np_ctc_tables(lp, labels, frames, blank):
    """(ext, alpha (frames, L), beta (frames, L)) of one sample, lp (T, C)."""
    ext = np.full(2 * len(labels) + 1, blank)
    ext[1::2] = labels
    L = len(ext)
    skip = np.zeros(L, bool)
    skip[2:] = ext[2:] != ext[:-2]
    a = np.full((frames, L), -np.inf)
    b = np.full((frames, L), -np.inf)
    if frames == 0:
        return ext, a, b
    none = np.full(2, -np.inf)
    with np.errstate(divide="ignore", invalid="ignore"):
        a[0, :2] = lp[0, ext[:2]]
        for t in range(1, frames):
            p = a[t - 1]
            one, two = np.concatenate([none[:1], p])[:L], np.concatenate([none, p])[:L]
            a[t] = np.logaddexp(np.logaddexp(p, one), np.where(skip, two, -np.inf)) + lp[t, ext]
        b[-1, -2:] = lp[frames - 1, ext[-2:]]
        for t in range(frames - 2, -1, -1):
            n = b[t + 1]
            one, two = np.concatenate([n[1:], none])[:L], np.concatenate([n[2:], none])[:L]
            skip2 = np.concatenate([skip[2:], [False, False]])[:L]
            b[t] = np.logaddexp(np.logaddexp(n, one), np.where(skip2, two, -np.inf)) + lp[t, ext]
    return ext, a, b


def np_ctc_grad(lp, labels, frames, blank, T_):
    """torchlike's gradient of one sample's loss in its raw log_probs (T, C):
    exp(lp) minus the state occupancies of each class, for t < frames; exp(lp)
    alone when no alignment exists; 0 after the input."""
    ext, a, b = np_ctc_tables(lp, labels, frames, blank)
    g = np.zeros_like(lp)
    if frames == 0:
        return g
    g[:frames] = np.exp(lp[:frames])
    nll = -np.logaddexp.reduce(a[-1, -2:]) if len(ext) > 1 else -a[-1, 0]
    if np.isinf(nll):
        return g
    with np.errstate(invalid="ignore"):
        for t in range(frames):
            lpe = lp[t, ext]
            occ = np.where(lpe == -np.inf, 0, np.exp(a[t] + b[t] + nll - lpe))
            np.subtract.at(g[t], ext, occ)
    return g


def long_ctc_case(N, T_, n_cls, blank, seed):
    r = np.random.default_rng(seed)
    lp = np_log_softmax(r.standard_normal((T_, N, n_cls)), 2)
    tl = r.integers(0, 15, N)
    tl[:3] = [0, 14, 21]                      # empty, long, and past one vector of states
    il = r.integers(0, T_ + 1, N)
    il[:3] = [T_, T_, T_]
    il[3] = 1
    others = [c for c in range(n_cls) if c != blank]
    # few classes: runs of repeated labels, which need a blank between them
    labels = [[int(v) for v in r.choice(others[:3], k)] for k in tl]
    labels[4] = [others[0]] * 6               # needs 11 frames
    tl[4] = 6
    il[4] = 10                                # one short: infinite loss
    return lp, labels, il, tl


@pytest.mark.parametrize("blank", [0, 6])
def test_ctc_many_samples_long_targets_match_numpy(blank):
    N, T_, n_cls = 37, 44, 7
    lp, labels, il, tl = long_ctc_case(N, T_, n_cls, blank, seed=11)
    width = max(len(v) for v in labels)
    targets = np.array([v + [blank] * (width - len(v)) for v in labels], dtype=np.int64)
    x = T.tensor(lp, requires_grad=True)
    y = F.ctc_loss(x, T.tensor(targets), il, tl, blank, reduction="none")
    ref = np.array([np_ctc_nll(lp[:, n], labels[n], il[n], blank) for n in range(N)])
    assert np.isinf(ref[4]) and np.isinf(y[4].item())
    np.testing.assert_allclose(y.detach().cpu().numpy(), ref, rtol=1e-11)
    g = rng.standard_normal(N)
    y.backward(T.tensor(g))
    ref_grad = np.stack([np_ctc_grad(lp[:, n], labels[n], il[n], blank, T_) * g[n]
                         for n in range(N)], 1)
    np.testing.assert_allclose(x.grad.cpu().numpy(), ref_grad, rtol=1e-9, atol=1e-12)
    # log_alpha: the recursion's table, -inf past each sample's states and frames
    _, la = C._ctc_loss(T.tensor(lp), T.tensor(targets), list(il), list(tl), blank, False)
    assert tuple(la.shape) == (N, T_, 2 * width + 1)
    la = la.cpu().numpy()
    for n in range(N):
        _, a, _ = np_ctc_tables(lp[:, n], labels[n], il[n], blank)
        expect = np.full((T_, 2 * width + 1), -np.inf)
        expect[:il[n], :a.shape[1]] = a
        np.testing.assert_allclose(la[n], expect, rtol=1e-11)


def test_ctc_float32_long_targets_and_thread_count():
    # float32 against the float64 reference; each sample is computed alone, so
    # the result does not depend on how the samples are split over threads
    N, T_, n_cls = 37, 44, 7
    lp, labels, il, tl = long_ctc_case(N, T_, n_cls, 0, seed=12)
    concat = np.array([v for row in labels for v in row], dtype=np.int64)
    lp32 = lp.astype(np.float32)
    ref = np.array([np_ctc_nll(lp32[:, n].astype(np.float64), labels[n], il[n], 0)
                    for n in range(N)])
    ref_grad = np.stack([np_ctc_grad(lp32[:, n].astype(np.float64), labels[n], il[n], 0, T_)
                         for n in range(N)], 1)
    threads = T.get_num_threads()
    results = []
    try:
        for k in (1, 2, 3):
            T.set_num_threads(k)
            x = T.tensor(lp32, requires_grad=True)
            y = F.ctc_loss(x, T.tensor(concat), T.tensor(il.astype(np.int32)),
                           T.tensor(tl.astype(np.int32)), reduction="none")
            y.sum().backward()
            results.append((y.detach().cpu().numpy(), x.grad.cpu().numpy()))
    finally:
        T.set_num_threads(threads)
    y, grad = results[0]
    assert y.dtype == np.float32 and grad.dtype == np.float32
    np.testing.assert_allclose(y, ref, rtol=2e-5)
    np.testing.assert_allclose(grad, ref_grad, rtol=1e-3, atol=2e-5)
    for other in results[1:]:
        np.testing.assert_array_equal(other[0], y)
        np.testing.assert_array_equal(other[1], grad)


def test_ctc_empty_target_and_repeated_labels():
    lp = np_log_softmax(rng.standard_normal((5, 3, 4)), 2)
    targets = T.tensor([[0, 0, 0], [2, 2, 2], [2, 2, 2]])
    x = T.tensor(lp, requires_grad=True)
    # sample 0: empty target, all blanks; 1: 2 2 2 in 5 frames, the one path
    # 2 b 2 b 2; 2: the same in 4 frames, no alignment
    y = F.ctc_loss(x, targets, [5, 5, 4], [0, 3, 3], reduction="none")
    np.testing.assert_allclose(y[0].item(), -lp[:, 0, 0].sum(), rtol=1e-12)
    np.testing.assert_allclose(y[1].item(), -lp[np.arange(5), 1, [2, 0, 2, 0, 2]].sum(),
                               rtol=1e-12)
    assert y[2].item() == np.inf
    y[:2].sum().backward()
    expect = np.exp(lp[:, :2])
    expect[:, 0, 0] -= 1                                 # the one path's states, occupancy 1
    expect[np.arange(5), 1, [2, 0, 2, 0, 2]] -= 1
    np.testing.assert_allclose(x.grad.cpu().numpy()[:, :2], expect, atol=1e-12)
    assert np.all(x.grad.cpu().numpy()[:, 2] == 0)
    x.grad = None
    y = F.ctc_loss(x, targets, [5, 5, 4], [0, 3, 3], reduction="sum", zero_infinity=True)
    np.testing.assert_allclose(y.item(), -lp[:, 0, 0].sum() - lp[np.arange(5), 1, [2, 0, 2, 0, 2]].sum(),
                               rtol=1e-12)
    y.backward()
    np.testing.assert_allclose(x.grad.cpu().numpy()[:, :2], expect, atol=1e-12)
    assert np.all(x.grad.cpu().numpy()[:, 2] == 0)


@pytest.mark.parametrize("dtype", [T.float32, T.float64])
def test_ctc_neg_inf_and_nan_log_probs(dtype):
    lp = np_log_softmax(rng.standard_normal((6, 3, 5)), 2)
    lp[2, 0, 1] = -np.inf      # label 1 impossible at frame 2 of sample 0: other paths remain
    lp[3, 1, 2] = np.nan       # NaN in sample 1
    labels = [[1, 2], [2, 3], [1, 1]]
    x = T.tensor(lp, dtype=dtype, requires_grad=True)
    y = F.ctc_loss(x, T.tensor(labels), [6, 6, 3], [2, 2, 2], reduction="none")
    out = y.detach().cpu().numpy()
    tol = 1e-5 if dtype == T.float32 else 1e-12
    for n in (0, 2):
        np.testing.assert_allclose(out[n], np_ctc_nll(lp[:, n], labels[n], [6, 6, 3][n], 0),
                                   rtol=tol)
    assert np.isnan(out[1])    # NaN in, NaN out (not an infinite loss zero_infinity would hide)
    y[0].backward()
    grad = x.grad.cpu().numpy()[:, 0].astype(np.float64)
    assert grad[2, 1] == 0 and np.all(np.isfinite(grad))
    np.testing.assert_allclose(grad, np_ctc_grad(lp[:, 0], labels[0], 6, 0, 6),
                               rtol=10 * tol, atol=tol)


def test_reduction_module_of_old_loss_classes():
    # torch.nn._reduction, which loss classes of PyTorch 0.3 import
    from torchlike.nn import _reduction as R
    assert [R.get_enum(r) for r in ("none", "mean", "sum")] == [0, 1, 2]
    with pytest.warns(UserWarning, match="elementwise_mean' is deprecated"):
        assert R.get_enum("elementwise_mean") == 1
    with pytest.raises(ValueError, match="max is not a valid value for reduction"):
        R.get_enum("max")
    assert [R.legacy_get_string(s, r, emit_warning=False)
            for s, r in ((None, None), (False, None), (True, False), (None, False))] == \
        ["mean", "sum", "none", "none"]
    with pytest.warns(UserWarning, match="reduction='sum' instead"):
        assert R.legacy_get_enum(False, True) == 2
    assert F._Reduction is R


def test_ctc_loss_reads_targets_as_int64_and_refuses_cpu_half():
    # PyTorch casts the targets to int64 (float or bool targets included)
    # and its CPU kernel takes float and double log_probs only
    lp = T.zeros(3, 2, 3).log_softmax(2)
    want = F.ctc_loss(lp, T.tensor([[1, 1], [2, 1]]), [3, 3], [2, 2])
    for targets in (T.tensor([[1.7, 1.0], [2.0, 1.0]]), T.tensor([[1, 1], [2, 1]], dtype=T.int16)):
        np.testing.assert_allclose(float(F.ctc_loss(lp, targets, [3, 3], [2, 2])), float(want),
                                   rtol=1e-6)
    if lp.device.type == "cpu":
        for dtype, name in ((T.float16, "Half"), (T.bfloat16, "BFloat16"), (T.int64, "Long")):
            with pytest.raises(NotImplementedError,
                               match=rf"^\"ctc_loss_cpu\" not implemented for '{name}'$"):
                F.ctc_loss(lp.to(dtype), T.tensor([[1, 1], [2, 1]]), [3, 3], [2, 2])


def test_label_smoothing_bounded_above_only_and_triplet_margins():
    # PyTorch refuses label_smoothing > 1 only; a negative one smooths nothing
    x = T.tensor([[1.0, 2.0, 3.0], [0.0, 1.0, 5.0]])
    for target in (T.tensor([0, 1]), x.softmax(1)):
        plain = float(F.cross_entropy(x, target))
        assert float(F.cross_entropy(x, target, label_smoothing=-0.1)) == plain
        with pytest.raises(RuntimeError, match=r"^label_smoothing must be between 0\.0 and 1\.0\. "
                                               r"Got: 1\.5$"):
            F.cross_entropy(x, target, label_smoothing=1.5)
    # the triplet losses refuse a margin that is not positive, before any other check
    a = T.zeros(2, 3)
    for fn in (F.triplet_margin_loss, F.triplet_margin_with_distance_loss):
        with pytest.raises(ValueError, match=r"^margin must be greater than 0, got 0\.0$"):
            fn(a, a, T.zeros(2, 4), margin=0.0)
    with pytest.raises(ValueError, match=r"^TripletMarginWithDistanceLoss: expected margin to be "
                                         r"greater than 0, got -1\.0 instead$"):
        nn.TripletMarginWithDistanceLoss(margin=-1.0)


def test_triplet_with_distance_defaults_to_a_pairwise_distance_child():
    # PyTorch's module holds a PairwiseDistance when given no function: it
    # prints and is listed among the modules; a function given is kept
    m = nn.TripletMarginWithDistanceLoss(margin=0.3)
    assert isinstance(m.distance_function, nn.PairwiseDistance)
    assert [n for n, _ in m.named_modules()] == ["", "distance_function"]
    assert repr(m) == ("TripletMarginWithDistanceLoss(\n  (distance_function): PairwiseDistance()\n)")
    a = T.tensor([[0.5, -1.0], [2.0, 0.25]])
    assert float(m(a, a + 1, a - 0.5)) == float(F.triplet_margin_with_distance_loss(
        a, a + 1, a - 0.5, margin=0.3))
    fn = lambda x, y: (x - y).abs().sum(1)  # noqa: E731
    assert nn.TripletMarginWithDistanceLoss(distance_function=fn).distance_function is fn


def test_one_hot_of_an_empty_tensor_needs_the_class_count():
    for n in (-1, 0):
        with pytest.raises(RuntimeError, match=r"^Can not infer total number of classes from "
                                               r"empty tensor\.$"):
            F.one_hot(T.zeros(0, 2, dtype=T.int64), n)
    assert tuple(F.one_hot(T.zeros(0, dtype=T.int64), 3).shape) == (0, 3)


def test_unbatched_input_takes_a_target_of_one_element():
    # PyTorch: a (C,) input takes a 0-d target or a 1-d one of size 1 (the
    # 'none' loss 0-d either way); a longer or deeper target is refused
    x = T.tensor([0.3, -1.2, 2.0, 0.5])
    lp = x.log_softmax(0)
    for reduction in ("none", "mean", "sum"):
        for fn, inp in ((F.nll_loss, lp), (F.cross_entropy, x)):
            a = fn(inp, T.tensor(1), reduction=reduction)
            b = fn(inp, T.tensor([1]), reduction=reduction)
            assert a.shape == b.shape == () and float(a) == float(b) == -float(lp[1])
    for fn, inp in ((F.nll_loss, lp), (F.cross_entropy, x)):
        with pytest.raises(ValueError, match=r"^For 1D input, 1D target must have size 1, but got "
                                             r"target size: 2$"):
            fn(inp, T.tensor([1, 2]))
        with pytest.raises(RuntimeError, match=r"^0D or 1D target tensor expected, multi-target "
                                               r"not supported$"):
            fn(inp, T.tensor([[1]]))


def test_cosine_embedding_loss_checks_the_target_rank_as_pytorch():
    x = T.ones(3, 4)
    with pytest.raises(RuntimeError, match=r"^0D or 1D target tensor expected, multi-target not "
                                           r"supported$"):
        F.cosine_embedding_loss(x, x, T.ones(3, 1))
    with pytest.raises(RuntimeError, match=r"^0D target tensor expects 1D input tensors, but found "
                                           r"inputs with sizes \[3, 4\] and \[3, 4\]\.$"):
        F.cosine_embedding_loss(x, x, T.ones(()))
    with pytest.raises(RuntimeError, match=r"^1D target tensor expects 2D input tensors"):
        F.cosine_embedding_loss(x[0], x[0], T.ones(2))
    assert F.cosine_embedding_loss(x[0], -x[0], T.tensor(-1.0), reduction="none").shape == ()


def test_class_weights_in_another_dtype_are_refused_for_class_indices():
    # PyTorch's kernels read the weights in the input's dtype; probabilities
    # take weights of any floating dtype
    x = T.tensor([[0.3, -1.2, 2.0], [0.5, 0.1, -0.4]])
    y = T.tensor([0, 2])
    w = T.tensor([1.0, 2.0, 0.5], dtype=T.float64)
    for call in (lambda: F.nll_loss(x.log_softmax(1), y, weight=w),
                 lambda: F.cross_entropy(x, y, weight=w),
                 lambda: F.cross_entropy(x, y, weight=w, label_smoothing=0.1)):
        with pytest.raises(RuntimeError, match=r"^expected scalar type Float but found Double$"):
            call()
    assert F.cross_entropy(x, x.softmax(1), weight=w).dtype == T.float64
    assert F.cross_entropy(x.double(), y, weight=w).dtype == T.float64


def test_probability_targets_promote_with_the_weight():
    # PyTorch composes this loss of promoting ops: float64 weights give a
    # float64 loss of a float32 input
    x = T.tensor([[0.3, -1.2, 2.0], [0.5, 0.1, -0.4]])
    w = T.tensor([1.0, 2.0, 0.5], dtype=T.float64)
    got = F.cross_entropy(x, x.softmax(1), weight=w)
    assert got.dtype == T.float64
    ref = F.cross_entropy(x.double(), x.softmax(1).double(), weight=w)
    assert abs(float(got) - float(ref)) < 1e-12
