"""Autograd: forward + backward of op chains, against PyTorch when installed.

The chain is 100 elementwise ops; on a 1-element tensor it measures the cost
of recording and replaying the tape, on 10^6 elements the kernels' share.
Without PyTorch the peer is the same forward in torchlike with recording off,
so the ratio is then the fraction of time not spent on autograd.

`python benchmarks/bench_autograd.py` prints the per-op recording overhead
(time with grad minus time without, per op) for torchlike and PyTorch."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import numpy as np  # noqa: E402
import torchlike  # noqa: E402

try:
    import torch
except ImportError:
    torch = None

CHAIN = 100


def chain(x):
    for i in range(CHAIN // 4):
        x = x * 1.0001
        x = x + 0.001
        x = x.sin()
        x = x - 0.002
    return x


def mlp(x, weights):
    for w in weights[:-1]:
        x = (x @ w).tanh()
    return (x @ weights[-1]).sum()


def _make(lib, n, requires_grad):
    x = lib.full((n,), 0.5, dtype=lib.float32)
    if requires_grad:
        x.requires_grad_(True)
    return x


def _chain_case(lib, n, grad):
    x = _make(lib, n, grad)

    def run():
        y = chain(x)
        if grad:
            y.sum().backward() if n > 1 else y.backward(lib.ones_like(y))
            x.grad = None
    return run


def _mlp_case(lib):
    rng = np.random.default_rng(0)
    x = lib.tensor(rng.standard_normal((64, 256)), dtype=lib.float32)
    ws = [lib.tensor(rng.standard_normal((256, 256)) / 16, dtype=lib.float32)
          for _ in range(4)]
    for w in ws:
        w.requires_grad_(True)

    def run():
        mlp(x, ws).backward()
        for w in ws:
            w.grad = None
    return run


def cases():
    for n in (1, 10 ** 6):
        label = f"chain of {CHAIN} ops fwd+bwd, {n} float32"
        if torch is not None:
            yield label, _chain_case(torchlike, n, True), _chain_case(torch, n, True), "torch"
        else:
            yield label, _chain_case(torchlike, n, True), _chain_case(torchlike, n, False), \
                "torchlike fwd, no grad"
    if torch is not None:
        yield "MLP 4x(64x256 @ 256x256, tanh) fwd+bwd", _mlp_case(torchlike), _mlp_case(torch), \
            "torch"


def _per_op_overhead(lib):
    from run import best_time
    with_grad = best_time(_chain_case(lib, 1, True))
    without = best_time(_chain_case(lib, 1, False))
    return (with_grad - without) / CHAIN


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    print(f"{'library':12s} {'recording overhead per op (fwd+bwd)':>40s}")
    for lib in (torchlike, torch):
        if lib is not None:
            print(f"{lib.__name__:12s} {_per_op_overhead(lib) * 1e6:37.2f} us")
