"""Device ops from several Python threads at once.

A kernel that lets go of the GIL (a convolution, a matmul) lets another
thread start its own op meanwhile; each thread's view of the device (which
memory its host code may read) must stay its own.  On the emulated device a
kernel marks the fake device's memory readable for its duration: a mark
shared by all threads, saved and restored around each kernel, could be left
on by two kernels that overlap, and every later op would then run its host
path on device memory (a segfault under the guard).

Device-parametrised as tests/test_cuda_kernels.py: "cpu" everywhere, "cuda"
where a GPU is present, "emulated" (the fake device given the CPU's kernels,
its memory unreadable by host code outside them) in a process of its own."""
import threading

import numpy as np
import pytest

import torchlike as tl
import torchlike.nn.functional as F
from oracle import cuda_test_devices, device_array, host_array, run_emulated

DEVICES, EMULATED = cuda_test_devices()


@pytest.mark.parametrize("device", DEVICES)
def test_overlapping_kernels_from_several_threads_leave_later_ops_on_the_device_path(device):
    rng = np.random.default_rng(0)
    xs = [rng.standard_normal((8, 4, 12, 12)).astype(np.float32) for _ in range(6)]
    w = rng.standard_normal((6, 4, 3, 3)).astype(np.float32)
    wt = device_array(device, w)
    serial = [host_array(F.conv2d(device_array(device, x), wt, padding=1)) for x in xs]
    results = [None] * len(xs)

    def run(i):
        x = device_array(device, xs[i])
        for _ in range(60):
            results[i] = host_array(F.conv2d(x, wt, padding=1))
    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(xs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for got, ref in zip(results, serial):
        np.testing.assert_array_equal(got, ref)
    # ops after the threads: a reduction and an elementwise op on the device
    a = rng.standard_normal((5, 7))
    t = device_array(device, a)
    np.testing.assert_allclose(host_array(t.sum(0)), a.sum(0), rtol=1e-12)
    np.testing.assert_allclose(host_array(t * 2 + 1), a * 2 + 1, rtol=1e-12)


@pytest.mark.skipif(EMULATED, reason="this is the emulated run")
def test_device_paths_on_the_emulated_fake_device():
    run_emulated(__file__)
