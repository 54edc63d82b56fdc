"""GPU rows (issue "The CUDA backend"), against PyTorch on the same GPU in
the same process; nothing runs without a CUDA device and PyTorch.

Today's rows are what the CUDA backend does without kernels: the caching
allocator (alloc+free of a cached 1 MiB block) and copies between pinned
host memory and the device.  Kernel rows (elementwise, sum, GEMM, sort,
the launch-overhead chain) are listed with the reason they do not run yet,
so the report shows the gap instead of hiding it."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import torchlike  # noqa: E402

try:
    import torch
except ImportError:
    torch = None


def cases():
    if torch is None or not torchlike.cuda.is_available() or not torch.cuda.is_available():
        return
    mib = 1 << 18  # float32 elements in 1 MiB

    yield ("cuda cached alloc+free 1 MiB", lambda: torchlike.empty(mib, device="cuda"),
           lambda: torch.empty(mib, device="cuda"), "torch")
    n = 1 << 26  # 256 MiB of float32
    tl_host = torchlike.empty(n).pin_memory()
    pt_host = torch.empty(n).pin_memory()
    yield "cuda pinned h2d 256 MiB", lambda: tl_host.to("cuda"), \
        lambda: (pt_host.to("cuda"), torch.cuda.synchronize()), "torch"
    tl_dev, pt_dev = tl_host.to("cuda"), pt_host.to("cuda")
    yield "cuda d2h 256 MiB", lambda: tl_dev.cpu(), lambda: pt_dev.cpu(), "torch"
    for name, fn in (("add 2^28 f32", lambda x: x + x), ("sum 2^28 f32", lambda x: x.sum())):
        try:
            fn(torchlike.ones(4, device="cuda"))
        except NotImplementedError as e:
            print(f"cuda {name:43s} not run: {e}")
