"""uint16, uint32 and uint64 on a device: the copy and cast kernels, the
generated elementwise tables, reductions, scans, sort and indexing, against
NumPy.

Device-parametrised as tests/test_cuda_kernels.py: "cpu" runs everywhere and
checks the tests themselves, "cuda" runs where a GPU is present (make
gpu-check) and skips with "requires a CUDA device" elsewhere, and "emulated"
(the fake device given the CPU's kernels, in a process of its own) runs the
op layer's device paths for these dtypes."""
import numpy as np
import pytest

import torchlike as tl
from oracle import cuda_test_devices, run_emulated

DEVICES, EMULATED = cuda_test_devices()
UNSIGNED = ["uint16", "uint32", "uint64"]


def data(dtype, shape, seed):
    info = np.iinfo(dtype)
    a = np.random.default_rng(seed).integers(0, info.max, size=shape, dtype=dtype, endpoint=True)
    a.reshape(-1)[:2] = info.max, 0
    return a


def on(device, a):
    t = tl.from_numpy(np.ascontiguousarray(a))
    return t.to(device) if device != "cpu" else t


def same(t, want):
    got = t.cpu().numpy() if t.device.type != "cpu" else t.numpy()
    want = np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", UNSIGNED)
def test_elementwise_tables(device, dtype):
    a, b = data(dtype, (5, 7), 1), data(dtype, (5, 7), 2) | 1
    x, y = on(device, a), on(device, b)
    same(x + y, a + b)
    same(x - y, a - b)
    same(x * y, a * b)
    same(x // y, a // b)
    same(x % y, a % b)
    same(x & y, a & b)
    same(x >> 3, a >> 3)
    same(tl.maximum(x, y), np.maximum(a, b))
    same(x < y, a < b)
    same(tl.where(x > y, x, y), np.where(a > b, a, b))
    same(x.t() + y.t(), a.T + b.T)  # non-contiguous
    same(x + y[:1], a + b[:1])  # broadcast


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", UNSIGNED)
def test_casts_both_ways(device, dtype):
    a = data(dtype, (4, 6), 3)
    x = on(device, a)
    for to in ["uint8", "int32", "int64", "float64", "bool", "uint16", "uint64"]:
        same(x.to(getattr(tl, to)), a.astype(to))
    small = np.arange(24, dtype=np.int64).reshape(4, 6) * 1000
    same(on(device, small).to(getattr(tl, dtype)), small.astype(dtype))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", UNSIGNED)
def test_reductions_scans_and_sort(device, dtype):
    a = data(dtype, (6, 9), 4)
    x = on(device, a)
    same(x.amax(1), a.max(1))
    same(x.amin(0), a.min(0))
    same(x.argmax(1), a.argmax(1))
    same(x.max(), a.max())
    same(x.sum(0), a.astype(np.int64).sum(0, dtype=np.int64))  # PyTorch's int64 (wrapping)
    same(x.cumsum(1, dtype=getattr(tl, "uint64")), np.cumsum(a, 1, dtype=np.uint64))
    same(x.sort(1).values, np.sort(a, 1))
    same(x.sort(0, descending=True).values, np.sort(a, 0)[::-1])
    same(x.topk(3, 1).values, np.sort(a, 1)[:, ::-1][:, :3])


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", UNSIGNED)
def test_indexing_and_fill(device, dtype):
    a = data(dtype, (5, 4), 5)
    x = on(device, a)
    same(x[[3, 0, 3]], a[[3, 0, 3]])
    same(x[x > a.mean()], a[a > a.mean()])
    idx = np.array([[4, 1, 0, 2]])
    same(x.gather(0, on(device, idx)), np.take_along_axis(a, idx, 0))
    y = x.clone()
    y[1] = 7
    b = a.copy()
    b[1] = 7
    same(y, b)
    top = int(np.iinfo(dtype).max)
    same(tl.full((3,), top, dtype=getattr(tl, dtype), device=x.device),
         np.full(3, top, dtype=dtype))


@pytest.mark.skipif(EMULATED, reason="this is the emulated run")
def test_device_paths_on_the_emulated_fake_device():
    run_emulated(__file__)
