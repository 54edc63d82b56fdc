"""CUDA kernels of the conv, pool and norm families (src/gpu/nn): outputs and
gradients against the CPU's (themselves checked against PyTorch in
test_nn_conv / test_nn_pool / test_nn_resample / test_nn_norm).

Each case runs an op with the inputs on `device`, in a dtype and layout
(contiguous, or a transposed view), and compares its outputs and the
gradients of its inputs with the same op run on the CPU in float64 on
contiguous inputs; indices (max pooling) must equal the CPU's of the same
dtype exactly.  On "cpu" the cases run everywhere and check the tests (and
the CPU's lower-precision and strided paths); on "cuda" they run only where
a GPU is present (scripts/gpu_check.sh) and skip with "requires a CUDA
device" elsewhere; on "emulated" (the fake device given the CPU's kernels as
device kernels, _C._fake_emulate_device, in a process of their own) they
run the op layer's device paths: work copies and allocations on the
input's device, the derivatives, fractional pooling's samples read back."""

import numpy as np
import pytest

import torchlike as tl
import torchlike.nn.functional as F
from torchlike import _C
from oracle import cuda_test_devices, run_emulated

DEVICES, EMULATED = cuda_test_devices()
# |got - want| <= TOL * (1 + max |want|): float16/bfloat16 are computed in
# float32 but stored (inputs, outputs) in their own precision.
TOL = {"float64": 1e-10, "float32": 2e-5, "float16": 4e-3, "bfloat16": 3e-2}
FLOATS = ("float32", "float64")
HALVES = ("float16", "bfloat16")


def to_device(a, dtype, device, transposed=False):
    """ndarray a as a tensor of dtype on device; transposed: the same values
    seen through a transposed (non-contiguous) view of the last two dims."""
    if transposed and a.ndim >= 2:
        t = tl.tensor(np.ascontiguousarray(a.swapaxes(-1, -2)))
        return t.to(getattr(tl, dtype)).to(device).transpose(-1, -2)
    return tl.tensor(np.ascontiguousarray(a)).to(getattr(tl, dtype)).to(device)


def to_numpy(t):
    return t.detach().to("cpu").to(tl.float64).numpy()


def run(fn, arrays, device="cpu", dtype="float64", transposed=False, grad=True, seed=1):
    """fn(*tensors) -> (outputs, gradients of the float inputs) as float64 ndarrays.
    Inputs given as ("int", array) pass through as int64 tensors, without grad."""
    tensors = []
    for a in arrays:
        if isinstance(a, tuple):
            tensors.append(tl.tensor(a[1]).to(device))
        elif a is None:
            tensors.append(None)
        else:
            t = to_device(a, dtype, device, transposed)
            if grad:
                t.requires_grad_(True)
            tensors.append(t)
    out = fn(*tensors)
    outs = out if isinstance(out, (tuple, list)) else (out,)
    rng = np.random.default_rng(seed)
    grads = []
    if grad:
        loss = None
        for o in outs:
            if o.dtype.is_floating_point and o.numel() > 0:
                w = to_device(rng.uniform(-1, 1, tuple(o.shape)), o.dtype.name, device)
                term = (o * w).sum()
                loss = term if loss is None else loss + term
        if loss is not None:
            loss.backward()
        grads = [None if t is None or not getattr(t, "requires_grad", False) or t.grad is None
                 else to_numpy(t.grad) for t in tensors if not isinstance(t, tuple)]
    return [to_numpy(o) if o.dtype.is_floating_point else o.to("cpu").numpy()
            for o in outs], grads


def assert_near(got, want, dtype, what=""):
    assert got.shape == want.shape, f"{what}: shape {got.shape} != {want.shape}"
    if got.size == 0:
        return
    scale = 1 + np.abs(want).max()
    err = np.abs(got - want).max()
    assert err <= TOL[dtype] * scale, f"{what}: max error {err} > {TOL[dtype]} * {scale}"


def compare(fn, arrays, device, dtype, transposed=False, grad=True, exact_ints=True):
    """fn on device/dtype/layout against the CPU in float64 (values, gradients)
    and against the CPU in dtype (integer outputs: indices)."""
    outs, grads = run(fn, arrays, device, dtype, transposed, grad)
    ref_outs, ref_grads = run(fn, arrays, "cpu", "float64", False, grad)
    same_outs, _ = run(fn, arrays, "cpu", dtype, False, False)
    for i, (o, r, s) in enumerate(zip(outs, ref_outs, same_outs)):
        if o.dtype.kind in "iu":
            if exact_ints:
                np.testing.assert_array_equal(o, s, err_msg=f"output {i}")
        else:
            assert_near(o, r, dtype, f"output {i}")
    for i, (g, r) in enumerate(zip(grads, ref_grads)):
        assert (g is None) == (r is None), f"gradient {i}"
        if g is not None:
            assert_near(g, r, dtype, f"gradient {i}")
    return outs


def has_kernel(op, device):
    """Whether device ("cpu", "cuda", "fake") has a kernel for op: some
    derivatives go through ops of families other than these three."""
    return bool(_C._dispatch_table()[op][1][device])


def rand(*shape, seed=0, low=-2, high=2):
    return np.random.default_rng(seed + sum(shape)).uniform(low, high, shape)


# ---- the table --------------------------------------------------------------------------

CONV_OPS = ("convolution", "_convolution_backward_weight", "im2col", "col2im")
POOL_OPS = ("_max_pool", "_max_pool_backward", "_adaptive_max_pool", "_fractional_max_pool",
            "_max_unpool", "_avg_pool", "_avg_pool_backward", "_adaptive_avg_pool",
            "_adaptive_avg_pool_backward", "_upsample", "_upsample_backward")
NORM_OPS = ("native_batch_norm", "native_batch_norm_backward", "native_layer_norm",
            "native_layer_norm_backward", "native_group_norm", "native_group_norm_backward",
            "_fused_rms_norm", "_fused_rms_norm_backward", "_local_response_norm",
            "_local_response_norm_backward")


def built_with_cuda():
    return bool(_C._dispatch_table()["add"][1]["cuda"])


@pytest.mark.skipif(not built_with_cuda(), reason="built without CUDA")
@pytest.mark.parametrize("op", CONV_OPS + POOL_OPS + NORM_OPS)
def test_cuda_rows_match_the_cpu(op):
    row = _C._dispatch_table()[op][1]
    assert sorted(row["cuda"]) == sorted(row["cpu"]), op


def test_cudnn_flags_round_trip():
    cudnn = tl.backends.cudnn
    assert (cudnn.enabled, cudnn.benchmark, cudnn.deterministic, cudnn.allow_tf32) == \
        (True, False, False, True)  # PyTorch's defaults
    with cudnn.flags(enabled=True, benchmark=True, deterministic=True, allow_tf32=False):
        assert _C._cudnn_flags() == (True, True, True, False)
        assert cudnn.benchmark and cudnn.deterministic and not cudnn.allow_tf32
    assert _C._cudnn_flags() == (True, False, False, True)
    cudnn.benchmark = True
    try:
        assert _C._cudnn_flags()[1] is True
    finally:
        cudnn.benchmark = False
    assert cudnn.is_available() == (cudnn.version() is not None)


# ---- convolution ------------------------------------------------------------------------

CONV_CASES = {
    "conv1d": (lambda x, w, b: F.conv1d(x, w, b, stride=2, padding=1, dilation=2),
               [(2, 3, 11), (4, 3, 3), (4,)]),
    "conv2d": (lambda x, w, b: F.conv2d(x, w, b, stride=(2, 1), padding=(1, 2), dilation=(1, 2),
                                        groups=2), [(2, 4, 9, 8), (6, 2, 3, 3), (6,)]),
    "conv2d_1x1": (lambda x, w, b: F.conv2d(x, w, b), [(2, 5, 4, 6), (3, 5, 1, 1), (3,)]),
    "conv2d_depthwise": (lambda x, w, b: F.conv2d(x, w, b, padding=1, groups=4),
                         [(2, 4, 6, 5), (8, 1, 3, 3), (8,)]),
    "conv3d": (lambda x, w, b: F.conv3d(x, w, b, padding=1, stride=(1, 2, 1)),
               [(1, 2, 5, 6, 4), (3, 2, 2, 3, 2), (3,)]),
    "conv_transpose1d": (lambda x, w, b: F.conv_transpose1d(x, w, b, stride=3, padding=1,
                                                            output_padding=2),
                         [(2, 3, 5), (3, 2, 4), (2,)]),
    "conv_transpose2d": (lambda x, w, b: F.conv_transpose2d(x, w, b, stride=2, padding=1,
                                                            output_padding=1, groups=2),
                         [(2, 4, 5, 4), (4, 3, 3, 3), (6,)]),
    "conv_transpose3d": (lambda x, w, b: F.conv_transpose3d(x, w, b, stride=(2, 1, 2)),
                         [(1, 2, 3, 4, 3), (2, 3, 2, 2, 2), (3,)]),
    "no_bias": (lambda x, w: F.conv2d(x, w, None, padding=1), [(2, 3, 5, 5), (4, 3, 3, 3)]),
    "empty_batch": (lambda x, w, b: F.conv2d(x, w, b, padding=1), [(0, 3, 5, 5), (4, 3, 3, 3), (4,)]),
    "resnet_block": (lambda x, w, b: F.conv2d(x, w, b, padding=1), [(2, 16, 14, 14), (32, 16, 3, 3), (32,)]),
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("case", sorted(CONV_CASES))
def test_convolution(device, dtype, case):
    fn, shapes = CONV_CASES[case]
    arrays = [rand(*s, seed=i) for i, s in enumerate(shapes)]
    with tl.backends.cudnn.flags(enabled=True, allow_tf32=False):
        compare(fn, arrays, device, dtype, transposed=case in ("conv2d", "conv3d"))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", HALVES)
def test_convolution_half(device, dtype):
    fn, shapes = CONV_CASES["conv2d"]
    arrays = [rand(*s, seed=i, low=-1, high=1) for i, s in enumerate(shapes)]
    compare(fn, arrays, device, dtype)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("flags", ["benchmark", "deterministic", "tf32"])
def test_convolution_flags(device, flags):
    """Each algorithm choice gives the same convolution (TF32: to its 10-bit mantissa)."""
    fn, shapes = CONV_CASES["resnet_block"]
    arrays = [rand(*s, seed=i, low=-1, high=1) for i, s in enumerate(shapes)]
    with tl.backends.cudnn.flags(enabled=True, benchmark=flags == "benchmark",
                                 deterministic=flags == "deterministic",
                                 allow_tf32=flags == "tf32"):
        outs, grads = run(fn, arrays, device, "float32")
    ref_outs, ref_grads = run(fn, arrays, "cpu", "float64")
    tol = "float16" if flags == "tf32" else "float32"
    for got, want in zip(outs + grads, ref_outs + ref_grads):
        assert_near(got, want, tol)


UNFOLD = dict(kernel_size=(2, 3), dilation=(1, 2), padding=1, stride=(2, 1))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", FLOATS + HALVES)
def test_unfold_fold(device, dtype):
    x = rand(2, 3, 7, 6, low=-1, high=1)
    compare(lambda t: F.unfold(t, **UNFOLD), [x], device, dtype, transposed=True)
    cols = rand(2, 3 * 6, 4 * 4, low=-1, high=1)
    compare(lambda t: F.fold(t, (7, 6), **UNFOLD), [cols], device, dtype)


# ---- pooling ----------------------------------------------------------------------------

POOL_CASES = {
    "max_pool1d": (lambda x: F.max_pool1d(x, 3, 2, 1, return_indices=True), (2, 3, 10)),
    "max_pool2d": (lambda x: F.max_pool2d(x, 3, 2, 1, dilation=(1, 2), return_indices=True),
                   (2, 3, 9, 11)),
    "max_pool2d_ceil": (lambda x: F.max_pool2d(x, 2, 2, ceil_mode=True, return_indices=True),
                        (2, 3, 7, 7)),
    "max_pool3d": (lambda x: F.max_pool3d(x, 2, (1, 2, 2), return_indices=True), (1, 2, 4, 5, 6)),
    "max_pool2d_unbatched": (lambda x: F.max_pool2d(x, 2, return_indices=True), (3, 6, 6)),
    "max_pool2d_empty": (lambda x: F.max_pool2d(x, 2, return_indices=True), (0, 3, 6, 6)),
    "adaptive_max_pool2d": (lambda x: F.adaptive_max_pool2d(x, (4, 3), return_indices=True),
                            (2, 3, 9, 7)),
    "adaptive_max_pool1d": (lambda x: F.adaptive_max_pool1d(x, 4, return_indices=True), (2, 3, 10)),
    "avg_pool1d": (lambda x: F.avg_pool1d(x, 3, 2, 1), (2, 3, 10)),
    "avg_pool2d": (lambda x: F.avg_pool2d(x, 3, 2, 1, count_include_pad=False, ceil_mode=True),
                   (2, 3, 9, 8)),
    "avg_pool2d_divisor": (lambda x: F.avg_pool2d(x, 2, divisor_override=3), (2, 3, 6, 6)),
    "avg_pool3d": (lambda x: F.avg_pool3d(x, 2, 2, 1), (1, 2, 5, 4, 6)),
    "adaptive_avg_pool2d": (lambda x: F.adaptive_avg_pool2d(x, (3, 4)), (2, 3, 9, 7)),
    "adaptive_avg_pool2d_global": (lambda x: F.adaptive_avg_pool2d(x, 1), (2, 8, 7, 7)),
    "adaptive_avg_pool3d": (lambda x: F.adaptive_avg_pool3d(x, (2, 3, 2)), (1, 2, 5, 6, 4)),
    "avg_pool2d_empty": (lambda x: F.avg_pool2d(x, 2), (0, 3, 6, 6)),
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("case", sorted(POOL_CASES))
def test_pooling(device, dtype, case):
    fn, shape = POOL_CASES[case]
    compare(fn, [rand(*shape)], device, dtype, transposed=shape[-1] > 1 and "empty" not in case)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", HALVES)
def test_pooling_half(device, dtype):
    # distinct values far apart, so that every dtype has the same maxima
    x = np.random.default_rng(3).permutation(2 * 3 * 9 * 11).reshape(2, 3, 9, 11) / 16.0
    compare(POOL_CASES["max_pool2d"][0], [x], device, dtype)
    compare(POOL_CASES["avg_pool2d"][0], [rand(2, 3, 9, 8, low=-1, high=1)], device, dtype)


@pytest.mark.parametrize("device", DEVICES)
def test_integer_averaging_and_resampling(device):
    """int64 average pooling and uint8 interpolation, as PyTorch's CPU
    kernels run them (test_nn_pool.py checks the CPU against PyTorch): the
    CPU's results on a device that lends its kernels; on CUDA, uint8 nearest
    modes agree and the others raise, as PyTorch's CUDA kernels take neither."""
    rng = np.random.default_rng(5)
    x = tl.tensor(rng.integers(-50, 50, (2, 3, 7, 8)))
    u = tl.tensor(rng.integers(0, 256, (1, 3, 5, 6)).astype(np.uint8))
    for mode in ("nearest", "nearest-exact"):
        got = F.interpolate(u.to(device), scale_factor=1.5, mode=mode)
        assert got.dtype == tl.uint8
        np.testing.assert_array_equal(got.cpu().numpy(),
                                      F.interpolate(u, scale_factor=1.5, mode=mode).numpy())
    pooled = lambda t: F.avg_pool2d(t, 3, 2, 1, count_include_pad=False)  # noqa: E731
    resized = lambda t: F.interpolate(t, size=(7, 4), mode="bicubic", antialias=True)  # noqa: E731
    if device == "cuda":
        with pytest.raises(NotImplementedError, match="avg_pool2d_out_cuda_frame"):
            pooled(x.to(device))
        with pytest.raises(NotImplementedError, match="uint8 bilinear and bicubic"):
            resized(u.to(device))
        return
    for fn, t in ((pooled, x), (resized, u)):
        got = fn(t.to(device))
        assert got.dtype == t.dtype
        np.testing.assert_array_equal(got.cpu().numpy(), fn(t).numpy())


@pytest.mark.parametrize("device", DEVICES)
def test_max_pool_nan_wins(device):
    x = rand(1, 2, 6, 6)
    x[0, 0, 1, 1] = np.nan
    x[0, 1, 4, 3] = np.nan
    outs, _ = run(lambda t: F.max_pool2d(t, 3, 1, 1, return_indices=True), [x], device,
                  "float32", grad=False)
    ref, _ = run(lambda t: F.max_pool2d(t, 3, 1, 1, return_indices=True), [x], "cpu",
                 "float32", grad=False)
    np.testing.assert_array_equal(outs[1], ref[1])
    np.testing.assert_array_equal(np.isnan(outs[0]), np.isnan(ref[0]))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("n", [2, 3])
def test_fractional_max_pool(device, dtype, n):
    shape = (2, 3, 9, 8) if n == 2 else (1, 2, 7, 6, 8)
    samples = np.random.default_rng(5).uniform(0, 1, (shape[0], shape[1], n))
    pool = F.fractional_max_pool2d if n == 2 else F.fractional_max_pool3d
    out_size = (4, 5) if n == 2 else (3, 4, 5)

    def fn(x, s):
        return pool(x, 2, output_size=out_size, return_indices=True, _random_samples=s)

    def with_samples(x):
        s = tl.tensor(samples).to(x.dtype).to(x.device)
        return fn(x, s)
    compare(with_samples, [rand(*shape)], device, dtype)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", FLOATS)
def test_max_unpool(device, dtype):
    x = rand(2, 3, 8, 6)
    _, idx = F.max_pool2d(tl.tensor(x), 2, return_indices=True)
    idx = idx.numpy()
    vals = rand(2, 3, 4, 3, seed=9)
    # its derivative gathers grad_output at the indices (the index family)
    compare(lambda v, i: F.max_unpool2d(v, i, 2), [vals, ("int", idx)], device, dtype,
            grad=has_kernel("gather", device))
    bad = idx.copy()
    bad[0, 0, 0, 0] = 1000
    with pytest.raises(RuntimeError, match="Found an invalid max index: 1000"):
        # a device raises it at its next synchronization, naming the op
        F.max_unpool2d(to_device(vals, dtype, device), tl.tensor(bad).to(device), 2).cpu()
    if device != "cpu":
        out = F.max_unpool2d(to_device(vals, dtype, device), tl.tensor(bad).to(device), 2)
        with pytest.raises(RuntimeError, match=r"Found an invalid max index: 1000 \(output "
                           r"volumes are of size 8x6\) \(found by max_unpool on "):
            out.cpu()
        out.cpu()  # raised once


RESAMPLE_CASES = {
    "nearest": (lambda x: F.interpolate(x, scale_factor=(1.7, 0.6), mode="nearest"), (2, 3, 5, 7)),
    "nearest_exact": (lambda x: F.interpolate(x, size=(8, 3), mode="nearest-exact"), (2, 3, 5, 7)),
    "nearest_1d": (lambda x: F.interpolate(x, size=9, mode="nearest"), (2, 3, 4)),
    "nearest_3d": (lambda x: F.interpolate(x, scale_factor=2, mode="nearest"), (1, 2, 3, 2, 4)),
    "linear": (lambda x: F.interpolate(x, size=11, mode="linear"), (2, 3, 6)),
    "linear_corners": (lambda x: F.interpolate(x, size=4, mode="linear", align_corners=True),
                       (2, 3, 9)),
    "bilinear": (lambda x: F.interpolate(x, scale_factor=2, mode="bilinear"), (2, 3, 5, 4)),
    "bilinear_corners": (lambda x: F.interpolate(x, size=(7, 3), mode="bilinear",
                                                 align_corners=True), (2, 3, 5, 4)),
    "bilinear_antialias": (lambda x: F.interpolate(x, size=(4, 3), mode="bilinear",
                                                   antialias=True), (2, 3, 11, 9)),
    "bicubic": (lambda x: F.interpolate(x, size=(9, 6), mode="bicubic"), (2, 3, 5, 4)),
    "bicubic_corners": (lambda x: F.interpolate(x, size=(3, 7), mode="bicubic",
                                                align_corners=True), (2, 3, 5, 4)),
    "bicubic_antialias": (lambda x: F.interpolate(x, size=(4, 3), mode="bicubic",
                                                  antialias=True), (2, 3, 10, 9)),
    "trilinear": (lambda x: F.interpolate(x, size=(3, 5, 4), mode="trilinear"), (1, 2, 2, 3, 6)),
    "trilinear_corners": (lambda x: F.interpolate(x, scale_factor=1.5, mode="trilinear",
                                                  align_corners=True), (1, 2, 2, 3, 4)),
    "empty_batch": (lambda x: F.interpolate(x, scale_factor=2, mode="bilinear"), (0, 3, 5, 4)),
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("case", sorted(RESAMPLE_CASES))
def test_resample(device, dtype, case):
    fn, shape = RESAMPLE_CASES[case]
    compare(fn, [rand(*shape)], device, dtype, transposed="empty" not in case)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", HALVES)
def test_resample_half(device, dtype):
    fn, shape = RESAMPLE_CASES["bicubic"]
    compare(fn, [rand(*shape, low=-1, high=1)], device, dtype)


# ---- normalisation ----------------------------------------------------------------------

@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", FLOATS + HALVES)
@pytest.mark.parametrize("shape", [(4, 3, 5, 6), (8, 5), (3, 4, 7)])
def test_batch_norm_training(device, dtype, shape):
    C = shape[1]
    x = rand(*shape)
    stats = {}

    def fn(x, w, b):
        rm = tl.tensor(np.linspace(-1, 1, C)).to(x.dtype).to(x.device)
        rv = tl.tensor(np.linspace(0.5, 2, C)).to(x.dtype).to(x.device)
        y = F.batch_norm(x, rm, rv, w, b, training=True, momentum=0.2, eps=1e-3)
        stats[(x.device.type, x.dtype.name)] = (to_numpy(rm), to_numpy(rv))
        return y
    compare(fn, [x, rand(C, seed=4), rand(C, seed=5)], device, dtype,
            transposed=len(shape) > 2)
    dev = "cuda" if device == "cuda" else "cpu"
    for got, want in zip(stats[(dev, dtype)], stats[("cpu", "float64")]):
        assert_near(got, want, dtype, "running statistics")
    # and the CPU's running statistics against NumPy
    axes = tuple(i for i in range(len(shape)) if i != 1)
    D = x.size // C
    mean_rm = 0.8 * np.linspace(-1, 1, C) + 0.2 * x.mean(axis=axes)
    mean_rv = 0.8 * np.linspace(0.5, 2, C) + 0.2 * x.var(axis=axes) * D / (D - 1)
    assert_near(stats[("cpu", "float64")][0], mean_rm, "float64")
    assert_near(stats[("cpu", "float64")][1], mean_rv, "float64")


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("affine", [True, False])
def test_batch_norm_eval(device, dtype, affine):
    C = 3

    def fn(x, *wb):
        rm = tl.tensor(np.linspace(-1, 1, C)).to(x.dtype).to(x.device)
        rv = tl.tensor(np.linspace(0.5, 2, C)).to(x.dtype).to(x.device)
        return F.batch_norm(x, rm, rv, *wb, training=False, eps=1e-3)
    args = [rand(2, C, 4, 5)] + ([rand(C, seed=4), rand(C, seed=5)] if affine else [])
    out = compare(fn, args, device, dtype, transposed=True)[0]
    # against NumPy
    w, b = (args[1], args[2]) if affine else (1, 0)
    rm = np.linspace(-1, 1, C)[:, None, None]
    rv = np.linspace(0.5, 2, C)[:, None, None]
    want = (args[0] - rm) / np.sqrt(rv + 1e-3) * np.reshape(w, (-1, 1, 1)) + np.reshape(b, (-1, 1, 1))
    assert_near(out, want, dtype)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", FLOATS + HALVES)
@pytest.mark.parametrize("affine", [True, False])
def test_layer_norm(device, dtype, affine):
    x = rand(3, 4, 6)
    args = [x] + ([rand(4, 6, seed=2), rand(4, 6, seed=3)] if affine else [])
    out = compare(lambda x, *wb: F.layer_norm(x, (4, 6), *wb, eps=1e-4), args, device, dtype,
                  transposed=True)[0]
    flat = x.reshape(3, -1)
    want = ((flat - flat.mean(1, keepdims=True)) /
            np.sqrt(flat.var(1, keepdims=True) + 1e-4)).reshape(x.shape)
    if affine:
        want = want * args[1] + args[2]
    assert_near(out, want, dtype)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", FLOATS + HALVES)
def test_layer_norm_wide_rows(device, dtype):
    """Rows longer than a block (1000 elements) and many of them."""
    compare(lambda x, w, b: F.layer_norm(x, (1000,), w, b), [rand(40, 1000, low=0, high=3),
                                                          rand(1000, seed=1), rand(1000, seed=2)],
            device, dtype)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("op", ["batch_train", "batch_eval", "group", "layer", "rms"])
def test_norm_rows_shared_by_blocks(device, dtype, op):
    """Few statistics rows of 40000 elements: on CUDA each row is split over
    several blocks (partial sums folded in order, tl_gpu_norm_parts)."""
    C = 3
    rm = np.linspace(-1, 1, C)
    rv = np.linspace(0.5, 2, C)
    fns = {
        "batch_train": lambda x, w, b: F.batch_norm(
            x, tl.tensor(rm).to(x.dtype).to(x.device), tl.tensor(rv).to(x.dtype).to(x.device),
            w, b, training=True),
        "batch_eval": lambda x, w, b: F.batch_norm(
            x, tl.tensor(rm).to(x.dtype).to(x.device), tl.tensor(rv).to(x.dtype).to(x.device),
            w, b, training=False),
        "group": lambda x, w, b: F.group_norm(x, 1, w, b),
        "layer": lambda x, w, b: F.layer_norm(x, (C, 100, 100), w.reshape(C, 1, 1).expand(
            C, 100, 100), b.reshape(C, 1, 1).expand(C, 100, 100)),
        "rms": lambda x, w, b: F.rms_norm(x, (C, 100, 100), w.reshape(C, 1, 1).expand(
            C, 100, 100), eps=1e-3) + b.sum(),
    }
    compare(fns[op], [rand(4, C, 100, 100, low=1, high=3), rand(C, seed=1), rand(C, seed=2)],
            device, dtype)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(2, 6, 5), (3, 4, 3, 2), (0, 6, 5)])
def test_group_norm(device, dtype, shape):
    C = shape[1]
    compare(lambda x, w, b: F.group_norm(x, 2, w, b, eps=1e-4),
            [rand(*shape), rand(C, seed=2), rand(C, seed=3)], device, dtype,
            transposed=shape[0] > 0)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", FLOATS + HALVES)
def test_rms_norm(device, dtype):
    x = rand(3, 7)
    out = compare(lambda x, w: F.rms_norm(x, (7,), w), [x, rand(7, seed=2)], device, dtype)[0]
    if dtype == "float64":
        want = x / np.sqrt((x * x).mean(1, keepdims=True) + np.finfo(np.float64).eps)
        assert_near(out, want * rand(7, seed=2), dtype)
    compare(lambda x: F.rms_norm(x, (2, 7), eps=1e-3), [rand(2, 2, 7)], device, dtype,
            transposed=True)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", FLOATS)
def test_layer_norm_empty(device, dtype):
    compare(lambda x, w, b: F.layer_norm(x, (6,), w, b), [rand(0, 6), rand(6), rand(6, seed=1)],
            device, dtype)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", FLOATS)
def test_instance_norm(device, dtype):
    # the derivative of repeating the weight and bias sums with index_add
    compare(lambda x, w, b: F.instance_norm(x, weight=w, bias=b),
            [rand(2, 3, 4, 5), rand(3, seed=1), rand(3, seed=2)], device, dtype, transposed=True,
            grad=has_kernel("index_add", device))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", FLOATS + HALVES)
@pytest.mark.parametrize("size", [1, 3, 4])
def test_local_response_norm(device, dtype, size):
    compare(lambda x: F.local_response_norm(x, size, alpha=0.5, beta=0.75, k=2.0),
            [rand(2, 6, 5, 4)], device, dtype, transposed=True)


# ---- the device paths, emulated --------------------------------------------------------

@pytest.mark.skipif(EMULATED, reason="this is the emulated run")
def test_device_paths_on_the_emulated_fake_device():
    """Every device-parametrised test above, on the fake device with the CPU's
    kernels as its device kernels, in a process of its own (the emulation
    cannot be undone)."""
    run_emulated(__file__)
