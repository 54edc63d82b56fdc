"""CUDA kernels of src/nn, part 2 (src/gpu/nn: softmax.cu, activation.cu,
embedding.cu, loss.cu): softmax and log_softmax, every activation, embedding
and embedding_bag, nll_loss, the elementwise losses and cross_entropy, with
their backward ops.

Each test takes a `device`.  The device's outputs and gradients (through
autograd, which runs the backward ops on the device) are compared with the
CPU's results, which tests/test_nn_*.py check against NumPy and PyTorch;
where a short NumPy reference exists the result is checked against it too.
On "cpu" the tests run everywhere and check themselves (inputs, references,
tolerances); on "cuda" they need a GPU and skip elsewhere with "requires a
CUDA device" (scripts/gpu_check.sh runs them).  On "emulated" (the fake
device given the CPU's kernels as device kernels, in a process of its own,
src/nn/nn_emulate.c) they run the op layers' device paths: inputs cast on
the device, embedding_bag's offsets read back, ctc's targets read back.  The kernel table's CUDA rows
of these ops are checked on every CUDA build."""

import numpy as np
import pytest

import torchlike as T
import torchlike.nn.functional as F
from torchlike import _C
from oracle import cuda_test_devices, run_emulated

DEVICES, EMULATED = cuda_test_devices()
FLOATS = [T.float32, T.float64, T.float16, T.bfloat16]
# device against CPU: the sums run in another order (and embedding's
# backward adds with atomics), so allow a few ulps of the work type
TOL = {T.float64: 1e-10, T.float32: 2e-5, T.float16: 4e-3, T.bfloat16: 3e-2}

pytestmark = [pytest.mark.filterwarnings("ignore::RuntimeWarning"),
              pytest.mark.filterwarnings("ignore:Since version 1.3.0, affine_grid:UserWarning")]


def host(t):
    """t as a float64 (or int64) NumPy array on the host."""
    t = t.detach().cpu()
    if t.dtype in (T.float16, T.bfloat16, T.float32):
        t = t.double()
    return t.numpy()


def close(actual, expected, dtype, scale=1.0):
    tol = TOL[dtype] * scale
    np.testing.assert_allclose(host(actual), host(expected) if isinstance(expected, T.Tensor)
                               else expected, rtol=tol, atol=tol)


def leaf(a, dtype, device, grad=True):
    t = T.tensor(a, dtype=dtype).to(device)
    return t.requires_grad_() if grad else t


def both(fn, arrays, dtype, device, grads=None, seed=0):
    """fn on the CPU and on device over tensors made of arrays (those whose
    index is in grads require grad); then sum(out * g) backward.  Returns
    ((out_cpu, grads_cpu), (out_dev, grads_dev))."""
    grads = range(len(arrays)) if grads is None else grads
    results = []
    for dev in ("cpu", device):
        ts = [leaf(a, dtype if np.asarray(a).dtype.kind == "f" else None, dev, i in grads)
              if not isinstance(a, T.Tensor) else a.to(dev) for i, a in enumerate(arrays)]
        out = fn(*ts)
        g = T.tensor(np.random.default_rng(seed).standard_normal(tuple(out.shape)),
                     dtype=out.dtype).to(dev)
        if grads:
            (out * g).sum().backward()
        results.append((out, [ts[i].grad for i in grads]))
    return results


def assert_same(fn, arrays, dtype, device, grads=None, scale=1.0):
    (out_c, g_c), (out_d, g_d) = both(fn, arrays, dtype, device, grads)
    assert out_d.device.type == device and out_d.dtype == out_c.dtype
    assert tuple(out_d.shape) == tuple(out_c.shape)
    close(out_d, out_c, dtype, scale)
    for a, b in zip(g_d, g_c):
        assert (a is None) == (b is None)
        if a is not None:
            assert a.dtype == b.dtype and tuple(a.shape) == tuple(b.shape)
            close(a, b, dtype, scale)
    return out_d, g_d


def randn(*shape, seed=0, scale=3.0):
    return np.random.default_rng(seed).standard_normal(shape) * scale


# ---- the kernel table ------------------------------------------------------------------

OPS = ["softmax", "log_softmax", "_softmax_backward_data", "_log_softmax_backward_data",
       "relu", "threshold", "threshold_backward", "gelu", "gelu_backward", "_prelu_kernel",
       "_prelu_kernel_backward", "glu", "glu_backward", "embedding", "embedding_dense_backward",
       "_embedding_bag", "_embedding_bag_dense_backward", "nll_loss_nd", "nll_loss_backward",
       "_pointwise_loss", "_pointwise_loss_backward", "_cross_entropy", "_cross_entropy_backward",
       "_multi_margin_loss", "_multi_margin_loss_backward", "_multilabel_margin_loss",
       "_multilabel_margin_loss_backward", "_ctc_loss", "_ctc_loss_backward", "grid_sampler",
       "grid_sampler_backward", "affine_grid_generator", "affine_grid_generator_backward"]


@pytest.mark.skipif(not _C._dispatch_table()["add"][1]["cuda"], reason="built without CUDA")
@pytest.mark.parametrize("op", OPS)
def test_cuda_rows_are_registered(op):
    table = _C._dispatch_table()
    assert op in table, op
    assert table[op][1]["cuda"], f"{op} has no CUDA row"
    assert _C._dispatch_lookup(op, "cuda", "float32") == "set"


# ---- softmax -----------------------------------------------------------------------------

def np_softmax(x, dim, log):
    m = np.max(x, axis=dim, keepdims=True) if x.shape[dim] else 0
    e = np.exp(x - m)
    s = e.sum(axis=dim, keepdims=True)
    return x - m - np.log(s) if log else e / s


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("log", [False, True])
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape,dim", [((7,), 0), ((3, 5), 1), ((3, 5), 0), ((2, 3, 130), 1),
                                       ((4, 70, 3), -2), ((2, 0, 3), 1), ((0, 4), 1),
                                       ((5, 2000), 1), ((3, 9000), -1), ((2, 3, 4, 5), 3),
                                       ((1, 200), 0), ((), 0)])
def test_softmax_matches_cpu_and_numpy(shape, dim, dtype, log, device):
    x = randn(*shape)
    fn = (lambda t: F.log_softmax(t, dim)) if log else (lambda t: F.softmax(t, dim))
    out, _ = assert_same(fn, [x], dtype, device)
    if shape:
        ref = np_softmax(host(T.tensor(x, dtype=dtype)), dim, log)
        close(out, ref, dtype, 4)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("log", [False, True])
def test_softmax_dtype_argument_and_half_results(device, log):
    x = randn(4, 33)
    fn = F.log_softmax if log else F.softmax
    for src, dst in ((T.float16, T.float32), (T.bfloat16, T.float32), (T.float32, T.float64)):
        out, (g,) = assert_same(lambda t: fn(t, 1, dtype=dst), [x], src, device)
        assert out.dtype == dst and g.dtype == src


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("log", [False, True])
def test_softmax_non_contiguous_and_extreme_rows(device, log):
    fn = F.log_softmax if log else F.softmax
    base = randn(6, 8, 40)
    for dim in range(3):
        for view in (lambda t: t[:, ::2, :], lambda t: t.transpose(2, 0)):
            outs = [fn(view(T.tensor(base).to(d)), dim) for d in ("cpu", device)]
            close(outs[1], outs[0], T.float64)
    rows = np.array([[1000.0, 1000.0, -1000.0], [-np.inf, 0.0, 1.0], [np.nan, 0.0, 1.0]])
    outs = [fn(T.tensor(rows).to(d), 1) for d in ("cpu", device)]
    np.testing.assert_array_equal(np.isnan(host(outs[1])), np.isnan(host(outs[0])))
    close(outs[1][:2], outs[0][:2], T.float64)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("log", [False, True])
def test_softmax_backward_ops(device, log):
    op = T._C._log_softmax_backward_data if log else T._C._softmax_backward_data
    g, y = randn(3, 50, 4, seed=1), randn(3, 50, 4, seed=2)
    y = np_softmax(y, 1, log)
    for dim, in_dtype in ((1, T.float32), (2, T.float64), (0, T.float16)):
        outs = [op(T.tensor(g).to(d), T.tensor(y).to(d), dim, in_dtype) for d in ("cpu", device)]
        assert outs[1].dtype == in_dtype
        close(outs[1], outs[0], in_dtype)


# ---- activations -------------------------------------------------------------------------

ACTS = {
    "relu": F.relu,
    "threshold": lambda t: F.threshold(t, 0.5, -2.0),
    "leaky_relu": lambda t: F.leaky_relu(t, 0.2),
    "elu": lambda t: F.elu(t, 1.3),
    "selu": F.selu,
    "celu": lambda t: F.celu(t, 0.7),
    "gelu": F.gelu,
    "gelu_tanh": lambda t: F.gelu(t, approximate="tanh"),
    "silu": F.silu,
    "mish": F.mish,
    "softplus": lambda t: F.softplus(t, beta=2.0, threshold=3.0),
    "softsign": F.softsign,
    "hardtanh": lambda t: F.hardtanh(t, -0.5, 2.0),
    "hardsigmoid": F.hardsigmoid,
    "hardswish": F.hardswish,
    "hardshrink": lambda t: F.hardshrink(t, 0.7),
    "softshrink": lambda t: F.softshrink(t, 0.7),
    "tanhshrink": F.tanhshrink,
    "logsigmoid": F.logsigmoid,
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name", sorted(ACTS))
def test_activation_values_and_gradients(name, dtype, device):
    x = randn(5, 37)
    assert_same(ACTS[name], [x], dtype, device)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", sorted(ACTS))
def test_activation_non_contiguous_and_empty(name, device):
    fn = ACTS[name]
    base = randn(6, 9, 4)
    for view in (lambda t: t[:, ::3], lambda t: t.transpose(0, 2), lambda t: t[..., :0]):
        outs, grads = [], []
        for d in ("cpu", device):
            x = T.tensor(base).to(d).requires_grad_()
            y = fn(view(x))
            y.sum().backward()
            outs.append(y)
            grads.append(x.grad)
        close(outs[1], outs[0], T.float64)
        close(grads[1], grads[0], T.float64)


@pytest.mark.parametrize("device", DEVICES)
def test_activation_reference_values(device):
    x = randn(3, 11)
    t = T.tensor(x).to(device)
    close(F.relu(t), np.maximum(x, 0), T.float64)
    close(F.silu(t), x / (1 + np.exp(-x)), T.float64)
    close(F.gelu(t, approximate="tanh"),
          0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3))), T.float64)
    close(F.softshrink(t, 0.5), np.where(x > 0.5, x - 0.5, np.where(x < -0.5, x + 0.5, 0)),
          T.float64)


@pytest.mark.parametrize("device", DEVICES)
def test_activation_in_place_and_out(device):
    x = randn(4, 10)
    for name, fn in (("relu", lambda t: F.relu(t, inplace=True)),
                     ("elu", lambda t: F.elu(t, inplace=True)),
                     ("hardtanh", lambda t: F.hardtanh(t, inplace=True))):
        outs = []
        for d in ("cpu", device):
            t = T.tensor(x).to(d)
            view = t[:, ::2]
            r = fn(view)
            outs.append(t)
            assert r.data_ptr() == view.data_ptr(), name
        close(outs[1], outs[0], T.float64)
    outs = []
    for d in ("cpu", device):
        o = T.zeros(10, 4, dtype=T.float32).to(d).transpose(0, 1)
        T._C.relu(T.tensor(x, dtype=T.float32).to(d), out=o)
        outs.append(o)
    close(outs[1], outs[0], T.float32)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", FLOATS)
def test_prelu_weight_broadcast_over_channels(dtype, device):
    x = randn(4, 3, 5, 2)
    for w in (np.array([0.25]), np.array([0.1, -0.3, 0.6])):
        assert_same(lambda a, b: F.prelu(a, b), [x, w], dtype, device)
    assert_same(lambda a, b: F.prelu(a, b), [randn(7, 3), np.array([0.1, 0.2, 0.3])], dtype, device)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", FLOATS)
def test_glu_along_every_dim(dtype, device):
    x = randn(4, 6, 8)
    for dim in (0, 1, 2, -1):
        assert_same(lambda t: F.glu(t, dim), [x], dtype, device)
    assert_same(lambda t: F.glu(t[:, ::2], 1), [randn(4, 12, 2)], dtype, device)


@pytest.mark.parametrize("device", DEVICES)
def test_activation_backward_ops_directly(device):
    g, x = randn(3, 8, seed=1), randn(3, 8, seed=2)
    for op, args in (("threshold_backward", (0.3,)), ("elu_backward", (1.5, 1.2, 0.8)),
                     ("softplus_backward", (2.0, 3.0)), ("hardtanh_backward", (-0.5, 2.0)),
                     ("gelu_backward", ()), ("mish_backward", ()), ("log_sigmoid_backward", ())):
        outs = [getattr(T._C, op)(T.tensor(g).to(d), T.tensor(x).to(d), *args)
                for d in ("cpu", device)]
        close(outs[1], outs[0], T.float64)
    w = np.array([0.1, -0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8])
    outs = [T._C._prelu_kernel_backward(T.tensor(g).to(d), T.tensor(x).to(d), T.tensor(w).to(d))
            for d in ("cpu", device)]
    for a, b in zip(outs[1], outs[0]):
        close(a, b, T.float64)


# ---- embedding ---------------------------------------------------------------------------

def idx(a, device="cpu", dtype=T.int64):
    return T.tensor(np.asarray(a), dtype=dtype).to(device)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("padding_idx,freq", [(None, False), (2, False), (None, True), (0, True)])
def test_embedding_and_its_backward(dtype, padding_idx, freq, device):
    w = randn(6, 5)
    ids = idx([[0, 2, 5, 2], [1, 2, 0, 3], [2, 2, 4, 0]])
    out, (gw,) = assert_same(lambda weight: F.embedding(ids.to(weight.device), weight,
                                                         padding_idx=padding_idx,
                                                         scale_grad_by_freq=freq),
                             [w], dtype, device, scale=4)
    close(out, host(T.tensor(w, dtype=dtype))[host(ids)], dtype)


@pytest.mark.parametrize("device", DEVICES)
def test_embedding_any_dtype_empty_and_int32_indices(device):
    for dtype in (T.int64, T.int16, T.uint8, T.bool, T.complex128, T.float32):
        w = T.tensor(np.arange(24).reshape(8, 3) % 5, dtype=dtype)
        outs = [F.embedding(idx([[7, 0], [3, 3]], d, T.int32), w.to(d)) for d in ("cpu", device)]
        np.testing.assert_array_equal(outs[1].cpu().numpy(), outs[0].numpy())
    outs = [F.embedding(idx(np.zeros((0, 3), np.int64), d), T.ones(4, 2).to(d)) for d in ("cpu", device)]
    assert tuple(outs[1].shape) == (0, 3, 2)
    w = randn(3, 8)  # a transposed (non-contiguous) weight of 8 rows
    outs = [F.embedding(idx([[7, 0, 2]], d), T.tensor(w).to(d).t()) for d in ("cpu", device)]
    close(outs[1], w.T[[7, 0, 2]][None], T.float64)
    close(outs[0], w.T[[7, 0, 2]][None], T.float64)


@pytest.mark.parametrize("device", DEVICES)
def test_embedding_out_of_range_raises_like_the_cpu(device):
    w = T.ones(5, 3).to(device)
    for bad in (5, -1, 100):
        with pytest.raises(IndexError, match="index out of range in self"):
            F.embedding(idx([0, bad, 1], device), w).cpu()  # a device raises at its next sync
    with pytest.raises(IndexError, match="index out of range in self"):
        T._C.embedding_dense_backward(T.ones(2, 3).to(device), idx([0, 9], device), 5, -1,
                                      False).cpu()
    # the device is still usable after the error
    close(F.embedding(idx([4], device), w), np.ones((1, 3)), T.float32)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [T.float32, T.float64, T.float16])
@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("include_last_offset", [False, True])
def test_embedding_bag_with_offsets(mode, include_last_offset, dtype, device):
    w = randn(10, 4)
    ids = idx([1, 2, 4, 5, 4, 3, 2, 9, 0, 0])
    offsets = idx([0, 3, 3, 7] + ([10] if include_last_offset else []))
    psw = randn(10, seed=3) if mode == "sum" else None
    for padding_idx in (None, 4):
        arrays = [w] + ([psw] if psw is not None else [])

        def fn(weight, *rest):
            d = weight.device
            return F.embedding_bag(ids.to(d), weight, offsets.to(d), mode=mode,
                                   per_sample_weights=rest[0] if rest else None,
                                   include_last_offset=include_last_offset, padding_idx=padding_idx)
        assert_same(fn, arrays, dtype, device, grads=list(range(len(arrays))), scale=4)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_embedding_bag_2d_input_and_errors(mode, device):
    w = randn(7, 3)
    ids = idx([[0, 1, 2], [6, 6, 5], [3, 0, 3]])
    assert_same(lambda weight: F.embedding_bag(ids.to(weight.device), weight, mode=mode),
                [w], T.float64, device)
    # PyTorch's words: the sum/mean kernel names the index, the max kernel its check
    words = "Expected idx >= 0 && idx < num_embeddings" if mode == "max" else \
        r"Index 1 of input takes value 7 which is not in the valid range \[0, 7\)"
    with pytest.raises(RuntimeError, match=words):
        F.embedding_bag(idx([[0, 7]], device), T.tensor(w).to(device), mode=mode).cpu()
    with pytest.raises(RuntimeError, match="offsets\\[0\\] has to be 0"):
        F.embedding_bag(idx([0, 1, 2], device), T.tensor(w).to(device), idx([1, 2], device),
                        mode=mode)


# ---- losses ------------------------------------------------------------------------------

REDUCTIONS = ["none", "mean", "sum"]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
def test_nll_loss(reduction, weighted, dtype, device):
    x = np.log(np_softmax(randn(6, 5), 1, False))
    tgt = idx([0, 4, -100, 2, 2, 1])
    w = np.array([0.5, 1.0, 2.0, 0.1, 3.0]) if weighted else None
    arrays = [x] + ([w] if weighted else [])
    fn = lambda a, *r: F.nll_loss(a, tgt.to(a.device), weight=r[0] if r else None,
                                  reduction=reduction)
    out, _ = assert_same(fn, arrays, dtype, device, grads=[0])
    if reduction == "sum" and not weighted:
        xs = host(T.tensor(x, dtype=dtype))
        close(out, -(xs[0, 0] + xs[1, 4] + xs[3, 2] + xs[4, 2] + xs[5, 1]), dtype)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_nll_loss_spatial_and_errors(reduction, device):
    x = randn(2, 4, 3, 5)
    tgt = idx(np.random.default_rng(1).integers(0, 4, (2, 3, 5)))
    assert_same(lambda a: F.nll_loss(a, tgt.to(a.device), reduction=reduction, ignore_index=1),
                [x], T.float32, device)
    with pytest.raises(IndexError, match="Target 7 is out of bounds."):
        F.nll_loss(T.tensor(randn(2, 4)).to(device), idx([0, 7], device)).cpu()
    out = F.nll_loss(T.tensor(randn(0, 4)).to(device), idx(np.zeros(0, np.int64), device))
    assert np.isnan(host(out))


POINTWISE = {
    "mse": lambda x, t, r: F.mse_loss(x, t, reduction=r),
    "l1": lambda x, t, r: F.l1_loss(x, t, reduction=r),
    "smooth_l1": lambda x, t, r: F.smooth_l1_loss(x, t, reduction=r, beta=0.7),
    "huber": lambda x, t, r: F.huber_loss(x, t, reduction=r, delta=1.3),
    "bce": lambda x, t, r: F.binary_cross_entropy(T.sigmoid(x), T.sigmoid(t), reduction=r),
    "bce_logits": lambda x, t, r: F.binary_cross_entropy_with_logits(x, T.sigmoid(t), reduction=r),
    "kl_div": lambda x, t, r: F.kl_div(x, T.sigmoid(t), reduction=r if r != "mean" else "batchmean"),
    "kl_div_log": lambda x, t, r: F.kl_div(x, t, reduction=r, log_target=True),
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name", sorted(POINTWISE))
def test_pointwise_losses(name, reduction, dtype, device):
    x, t = randn(4, 7, scale=1.0), randn(4, 7, seed=1, scale=1.0)
    assert_same(lambda a, b: POINTWISE[name](a, b, reduction), [x, t], dtype, device, scale=4)


@pytest.mark.parametrize("device", DEVICES)
def test_pointwise_losses_weights_broadcast_and_empty(device):
    x, t = randn(3, 5, scale=1.0), randn(3, 5, seed=1, scale=1.0)
    w, pw = np.abs(randn(5, seed=2)), np.abs(randn(5, seed=3))
    assert_same(lambda a, b, c, d: F.binary_cross_entropy_with_logits(
        a, T.sigmoid(b), weight=c, pos_weight=d), [x, t, w, pw], T.float64, device)
    assert_same(lambda a, b: F.mse_loss(a[:, ::2], b[:, ::2]), [x, t], T.float32, device)
    outs = [F.mse_loss(T.zeros(0, 3).to(d), T.zeros(0, 3).to(d)) for d in ("cpu", device)]
    assert np.isnan(host(outs[1])) and np.isnan(host(outs[0]))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("smoothing", [0.0, 0.2])
@pytest.mark.parametrize("weighted", [False, True])
def test_cross_entropy_class_indices(reduction, smoothing, weighted, dtype, device):
    x = randn(6, 5)
    tgt = idx([0, 4, -100, 2, 2, 1])
    w = np.array([0.5, 1.0, 2.0, 0.1, 3.0]) if weighted else None
    arrays = [x] + ([w] if weighted else [])
    fn = lambda a, *r: F.cross_entropy(a, tgt.to(a.device), weight=r[0] if r else None,
                                       reduction=reduction, label_smoothing=smoothing)
    out, _ = assert_same(fn, arrays, dtype, device, grads=[0], scale=2)
    if reduction == "none" and smoothing == 0 and not weighted:
        xs = host(T.tensor(x, dtype=dtype))
        ref = -np_softmax(xs, 1, True)[np.arange(6), np.where(host(tgt) < 0, 0, host(tgt))]
        ref[2] = 0
        close(out, ref, dtype, 2)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("smoothing", [0.0, 0.3])
def test_cross_entropy_probabilities_and_spatial(reduction, smoothing, device):
    x = randn(3, 4, 2, 5)
    p = np_softmax(randn(3, 4, 2, 5, seed=1), 1, False)
    assert_same(lambda a, b: F.cross_entropy(a, b, reduction=reduction, label_smoothing=smoothing),
                [x, p], T.float64, device)
    tgt = idx(np.random.default_rng(1).integers(0, 4, (3, 2, 5)))
    assert_same(lambda a: F.cross_entropy(a, tgt.to(a.device), reduction=reduction,
                                          label_smoothing=smoothing, ignore_index=3),
                [x], T.float32, device)
    # a long row: the warp strides over many classes
    assert_same(lambda a: F.cross_entropy(a, idx([3, 2999]).to(a.device), reduction=reduction),
                [randn(2, 3000)], T.float32, device)


@pytest.mark.parametrize("device", DEVICES)
def test_cross_entropy_errors_and_non_contiguous(device):
    with pytest.raises(IndexError, match="Target 5 is out of bounds."):
        F.cross_entropy(T.tensor(randn(2, 5)).to(device), idx([0, 5], device)).cpu()
    x = randn(5, 8)
    assert_same(lambda a: F.cross_entropy(a[:, ::2], idx([0, 1, 2, 3, 0]).to(a.device)),
                [x], T.float32, device)
    assert_same(lambda a: F.cross_entropy(a.t(), idx([0, 1, 2, 3, 4, 0, 1, 2]).to(a.device)),
                [x], T.float32, device)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("p,weighted", [(1, False), (2, False), (1, True), (2, True)])
def test_multi_margin_loss(p, weighted, reduction, dtype, device):
    x = randn(6, 5, scale=1.0)
    tgt = idx([0, 4, 3, 2, 2, 1])
    w = np.array([0.5, 1.0, 2.0, 0.1, 3.0]) if weighted else None
    arrays = [x] + ([w] if weighted else [])
    fn = lambda a, *r: F.multi_margin_loss(a, tgt.to(a.device), p=p, margin=0.8,
                                           weight=r[0] if r else None, reduction=reduction)
    out, _ = assert_same(fn, arrays, dtype, device, grads=[0], scale=2)
    if reduction == "none" and not weighted:
        xs = host(T.tensor(x, dtype=dtype))
        y = host(tgt)
        z = np.maximum(0.8 - xs[np.arange(6), y][:, None] + xs, 0) ** p
        z[np.arange(6), y] = 0
        close(out, z.sum(1) / 5, dtype, 2)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_multilabel_margin_loss(reduction, dtype, device):
    x = randn(4, 5, scale=1.0)
    tgt = idx([[3, 0, -1, 1, 1], [1, 2, 3, 4, 0], [-1, 2, 3, 0, 0], [4, -1, 0, 0, 0]])
    assert_same(lambda a: F.multilabel_margin_loss(a, tgt.to(a.device), reduction=reduction),
                [x], dtype, device, scale=2)
    assert_same(lambda a: F.multilabel_margin_loss(a, idx([2, 0, -1, 3, 3]).to(a.device),
                                                   reduction=reduction),
                [randn(5, scale=1.0)], dtype, device, scale=2)


@pytest.mark.parametrize("device", DEVICES)
def test_margin_losses_check_their_targets(device):
    x = T.tensor(randn(2, 4)).to(device)
    with pytest.raises(RuntimeError, match="target out of range"):
        F.multi_margin_loss(x, idx([0, 4], device)).cpu()
    with pytest.raises(RuntimeError, match="argument #2 'target' is out of range"):
        F.multilabel_margin_loss(x, idx([[0, -2, 1, 1], [1, 2, -1, 0]], device)).cpu()
    outs = [F.multi_margin_loss(T.zeros(0, 3).to(d), idx(np.zeros(0, np.int64), d))
            for d in ("cpu", device)]
    assert np.isnan(host(outs[1])) == np.isnan(host(outs[0]))


# Each op with a bad index or class target, the CPU's words and type, the op
# the device names and the bad value (a device raises at its next sync).
BAD_TARGETS = [
    ("embedding", IndexError, r"index out of range in self", 7,
     lambda d: F.embedding(idx([0, 7, 1], d), T.ones(5, 3).to(d))),
    ("embedding_bag", RuntimeError, r"Index 1 of input takes value -3 which is not in the "
     r"valid range \[0, 5\)", -3,
     lambda d: F.embedding_bag(idx([[0, -3]], d), T.ones(5, 3).to(d), mode="sum")),
    ("nll_loss", IndexError, r"Target 9 is out of bounds\.", 9,
     lambda d: F.nll_loss(T.zeros(3, 4).to(d), idx([0, 9, -100], d))),
    ("cross_entropy", IndexError, r"Target -2 is out of bounds\.", -2,
     lambda d: F.cross_entropy(T.zeros(2, 4).to(d), idx([-2, 1], d))),
    ("multi_margin_loss", RuntimeError, r"target out of range", 6,
     lambda d: F.multi_margin_loss(T.zeros(2, 4).to(d), idx([6, 1], d))),
]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("op, exc, words, value, run", BAD_TARGETS, ids=[b[0] for b in BAD_TARGETS])
def test_bad_targets_are_raised_at_the_next_synchronization(device, op, exc, words, value, run):
    """On the CPU at once.  On a device the check is a kernel whose result
    the host does not wait for (a wait per call would stall a training
    loop): the bad value goes to the device's error record and is raised at
    the next synchronization in the CPU's words, naming the op and the
    value, once; the op's kernels read a stand-in, so nothing is read out of
    bounds and the device stays usable."""
    import os
    if device == "cpu" or os.environ.get("CUDA_LAUNCH_BLOCKING") == "1":
        with pytest.raises(exc, match=words):
            run(device)
        return
    out = run(device)  # queued: no error yet
    assert out.device.type == T.device(device).type
    with pytest.raises(exc, match=words) as info:
        T.zeros(1).to(device).cpu()  # any copy to the host is a synchronization
    assert f"found by {op}" in str(info.value) and str(value) in str(info.value)
    T.zeros(1).to(device).cpu()  # raised once: the record is clear again
    close(F.embedding(idx([4], device), T.ones(5, 3).to(device)), np.ones((1, 3)), T.float32)


@pytest.mark.parametrize("device", DEVICES)
def test_good_targets_do_not_read_back(device):
    """With good indices nothing is copied to the host by the ops (the
    emulated device counts its copies; on CUDA the check was a read-back per
    call and is not any more)."""
    if device != "fake":
        pytest.skip("the fake device counts its copies")
    x, w = T.zeros(3, 4).to(device), T.ones(5, 3).to(device)
    t, i = idx([0, 3, -100], device), idx([4, 0], device)
    before = _C._fake_counters()["copies_out"]
    F.embedding(i, w)
    F.nll_loss(x, t)
    F.cross_entropy(x, t)
    assert _C._fake_counters()["copies_out"] == before


@pytest.mark.parametrize("device", DEVICES)
def test_a_bad_target_on_another_stream_waits_for_that_stream(device):
    """A wait for one stream raises only errors no other stream can still
    be recording: a check queued on stream 2 may not have run when a copy on
    the default stream returns, so that copy leaves the record (and stream
    2's count) alone, and a wait for stream 2 raises the error, which is not
    lost.  The default stream's wait settles its own launches, so that they
    do not hold back the wait for stream 2.  (The fake device runs kernels
    at once but reports other streams busy, as a GPU may.)"""
    if device != "fake":
        pytest.skip("the fake device's streams")
    w = T.ones(5, 3).to(device)
    ids = idx([0, 8], device)
    F.embedding(idx([1], device), w)  # a good check queued on the default stream
    _C._fake_set_stream(2)
    try:
        F.embedding(ids, w)  # its check is queued on stream 2
    finally:
        _C._fake_set_stream(0)
    T.zeros(1).to(device).cpu()  # stream 0's wait: stream 2 may still be running
    T.zeros(1).to(device).cpu()
    _C._fake_set_stream(2)
    try:
        with pytest.raises(IndexError, match="index out of range in self.*found by embedding"):
            T.zeros(1).to(device).cpu()  # a wait for stream 2
        T.zeros(1).to(device).cpu()
    finally:
        _C._fake_set_stream(0)
    T.zeros(1).to(device).cpu()


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [T.float32, T.float64])
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("padded", [True, False])
def test_ctc_loss(padded, reduction, dtype, device):
    logits = randn(12, 3, 5, scale=1.0)
    in_len, tg_len = [12, 10, 7], [4, 2, 3]
    rows = [[1, 2, 2, 3], [4, 4, 0, 0], [3, 1, 3, 0]]
    tgt = idx(rows) if padded else idx([v for r, k in zip(rows, tg_len) for v in r[:k]])

    def fn(a):
        return F.ctc_loss(F.log_softmax(a, 2), tgt.to(a.device), in_len, tg_len, blank=0,
                          reduction=reduction)
    assert_same(fn, [logits], dtype, device, scale=10)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("zero_infinity", [False, True])
def test_ctc_loss_infeasible_and_empty_samples(zero_infinity, device):
    logits = randn(4, 3, 6, scale=1.0)
    # sample 0 cannot align (3 repeated labels need 5 frames), sample 1 has
    # no frames and an empty target, sample 2 a blank other than 0
    tgt = idx([[2, 2, 2], [0, 0, 0], [1, 5, 1]])

    def fn(a):
        return F.ctc_loss(F.log_softmax(a, 2), tgt.to(a.device), [4, 0, 4], [3, 0, 2], blank=3,
                          reduction="sum", zero_infinity=zero_infinity)
    out, _ = assert_same(fn, [logits], T.float64, device)
    with pytest.raises(IndexError, match="Target 9 is out of bounds."):
        F.ctc_loss(T.tensor(logits).to(device), idx([[9]], device).expand(3, 1), [4, 4, 4], [1, 1, 1])


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("where", [(0, 0, 0), (2, 0, 1)])
def test_ctc_loss_nan_log_probs(where, device):
    """A NaN log-probability makes its sample's loss NaN on every device, as
    PyTorch's (the first frame's blank is a NaN beside two -inf states)."""
    lp = np.log(np.full((5, 2, 4), 0.25))
    lp[where] = np.nan
    tgt = idx([[1, 2], [3, 3]])
    losses = [host(F.ctc_loss(T.tensor(lp).to(d), tgt.to(d), [5, 5], [2, 2], reduction="none"))
              for d in ("cpu", device)]
    assert np.isnan(losses[0][0]) and np.isfinite(losses[0][1])
    np.testing.assert_array_equal(np.isnan(losses[1]), np.isnan(losses[0]))
    np.testing.assert_allclose(losses[1][1], losses[0][1], rtol=1e-12)


# ---- sampling grids ----------------------------------------------------------------------

@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [T.float32, T.float64])
@pytest.mark.parametrize("mode", ["bilinear", "nearest", "bicubic"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align_corners", [False, True])
def test_grid_sample_2d(mode, padding_mode, align_corners, dtype, device):
    x = randn(2, 3, 5, 7, scale=1.0)
    grid = np.random.default_rng(1).uniform(-1.3, 1.3, (2, 4, 6, 2))
    grads = [0, 1] if mode != "nearest" else [0]
    assert_same(lambda a, g: F.grid_sample(a, g, mode=mode, padding_mode=padding_mode,
                                           align_corners=align_corners),
                [x, grid], dtype, device, grads=grads, scale=20)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
def test_grid_sample_3d_and_odd_grids(mode, padding_mode, device):
    x = randn(2, 2, 3, 4, 5, scale=1.0)
    grid = np.random.default_rng(2).uniform(-1.2, 1.2, (2, 3, 2, 4, 3))
    grid[0, 0, 0, 0] = [np.nan, 0.5, 0.1]  # a point that reads nothing
    grid[1, 2, 1, 3] = [40.0, -40.0, 1e9]
    grads = [0, 1] if mode != "nearest" else [0]
    assert_same(lambda a, g: F.grid_sample(a, g, mode=mode, padding_mode=padding_mode,
                                           align_corners=False),
                [x, grid], T.float64, device, grads=grads)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("size", [(2, 3, 4, 5), (1, 1, 1, 6), (2, 2, 3, 4, 5)])
def test_affine_grid_and_its_backward(size, align_corners, dtype, device):
    n = len(size) - 2
    theta = randn(size[0], n, n + 1, scale=1.0)
    assert_same(lambda t: F.affine_grid(t, list(size), align_corners=align_corners),
                [theta], dtype, device, scale=4)


# ---- the device paths, emulated ----------------------------------------------------------

@pytest.mark.skipif(EMULATED, reason="this is the emulated run")
def test_device_paths_on_the_emulated_fake_device():
    """Every device-parametrised test above on the fake device with the CPU's
    kernels as its device kernels, in a process of its own (the emulation
    cannot be undone)."""
    run_emulated(__file__)
