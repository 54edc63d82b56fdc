"""Shape manipulation benchmarks: joining, reordering, repeating, triangles, padding."""
import numpy as np

import torchlike as tl
import torchlike.nn.functional as F

try:
    import torch
except ImportError:  # the PyTorch rows are skipped
    torch = None


def cases():
    rng = np.random.default_rng(0)
    m_np = rng.standard_normal((2048, 2048), dtype=np.float32)
    m_tl = tl.from_numpy(m_np)
    yield "cat 2x 2048x2048 float32 dim=1", lambda: tl.cat([m_tl, m_tl], 1), \
        lambda: np.concatenate([m_np, m_np], 1), "numpy"
    small_np = [rng.standard_normal((16, 16), dtype=np.float32) for _ in range(256)]
    small_tl = [tl.from_numpy(x) for x in small_np]
    yield "stack 256x 16x16 float32", lambda: tl.stack(small_tl), lambda: np.stack(small_np), "numpy"
    yield "flip dim=1 2048x2048 (copy)", lambda: m_tl.flip(1), \
        lambda: np.flip(m_np, 1).copy(), "numpy"
    yield "roll 7 dims=0 2048x2048", lambda: m_tl.roll(7, 0), lambda: np.roll(m_np, 7, 0), "numpy"
    v_np = rng.standard_normal((512, 512), dtype=np.float32)
    v_tl = tl.from_numpy(v_np)
    yield "repeat (4, 4) of 512x512", lambda: v_tl.repeat(4, 4), lambda: np.tile(v_np, (4, 4)), "numpy"
    yield "repeat_interleave 4 dim=1 512x512", lambda: v_tl.repeat_interleave(4, 1), \
        lambda: np.repeat(v_np, 4, 1), "numpy"
    yield "tril 2048x2048", lambda: m_tl.tril(), lambda: np.tril(m_np), "numpy"
    img_np = rng.standard_normal((8, 3, 224, 224), dtype=np.float32)
    img_tl = tl.from_numpy(img_np)
    w = ((0, 0), (0, 0), (2, 2), (2, 2))
    yield "pad constant 2 on 8x3x224x224", lambda: F.pad(img_tl, (2, 2, 2, 2)), \
        lambda: np.pad(img_np, w), "numpy"
    yield "pad reflect 2 on 8x3x224x224", lambda: F.pad(img_tl, (2, 2, 2, 2), "reflect"), \
        lambda: np.pad(img_np, w, mode="reflect"), "numpy"
    yield from per_call_cases()
    yield from view_cases()
    yield from layout_cases()


def layout_cases():
    """Results laid out as their operands (docs/shapes.md, "Memory layouts"):
    elementwise ops on transposed and channels-last operands run as
    contiguous loops, against NumPy (its K order) and PyTorch."""
    rng = np.random.default_rng(1)
    a_np = rng.standard_normal((2048, 2048))
    a = tl.from_numpy(a_np)
    yield "layout transposed a.T * 2 2048^2 float64", lambda: a.T * 2, lambda: a_np.T * 2, "numpy"
    yield "layout transposed a.T + a.T 2048^2 float64", lambda: a.T + a.T, \
        lambda: a_np.T + a_np.T, "numpy"
    yield "layout transposed exp(a.T) 2048^2 float64", lambda: tl.exp(a.T), \
        lambda: np.exp(a_np.T), "numpy"
    yield "layout transposed a.T.astype(float32)", lambda: a.T.to(tl.float32), \
        lambda: a_np.T.astype(np.float32), "numpy"
    if torch is None:
        return
    img_pt = torch.randn(32, 64, 56, 56).contiguous(memory_format=torch.channels_last)
    img = tl.from_numpy(img_pt.permute(0, 2, 3, 1).numpy()).permute(0, 3, 1, 2)
    yield "layout channels_last relu 32x64x56x56", lambda: tl.relu(img), \
        lambda: torch.relu(img_pt), "torch"
    yield "layout channels_last x * 2 + 1 32x64x56x56", lambda: img * 2 + 1, \
        lambda: img_pt * 2 + 1, "torch"
    yield "layout channels_last clone 32x64x56x56", lambda: img.clone(), \
        lambda: img_pt.clone(), "torch"
    # copies from a broadcast source: one value stored along each run
    three, three_pt = tl.arange(3.0), torch.arange(3.0)
    yield "repeat_interleave 2^22 of 3 float32", lambda: three.repeat_interleave(1 << 22), \
        lambda: three_pt.repeat_interleave(1 << 22), "torch"
    row, row_pt = tl.ones(1, 1000), torch.ones(1, 1000)
    yield "expand(5000, 1000).clone() float32", lambda: row.expand(5000, 1000).clone(), \
        lambda: row_pt.expand(5000, 1000).clone(), "torch"


def per_call_cases():
    """Small inputs, where the time is the call's argument binding: the
    functions bound from Tensor..., *Tensor, *int[] and to's overloads."""
    a_np, b_np = np.arange(3, dtype=np.float32), np.arange(4, dtype=np.float32)
    a, b = tl.from_numpy(a_np), tl.from_numpy(b_np)
    dst_np, dst = np.empty(3, np.float32), tl.empty(3)
    yield "shapes per-call meshgrid(a, b)", lambda: tl.meshgrid(a, b, indexing="ij"), \
        lambda: np.meshgrid(a_np, b_np, indexing="ij", copy=False), "numpy"
    yield "shapes per-call meshgrid([a, b])", lambda: tl.meshgrid([a, b], indexing="ij"), \
        lambda: np.meshgrid(*[a_np, b_np], indexing="ij", copy=False), "numpy"
    yield "shapes per-call broadcast_tensors(a, a)", lambda: tl.broadcast_tensors(a, a), \
        lambda: np.broadcast_arrays(a_np, a_np), "numpy"
    yield "shapes per-call atleast_2d(a)", lambda: tl.atleast_2d(a), \
        lambda: np.atleast_2d(a_np), "numpy"
    yield "shapes per-call cat([a, a])", lambda: tl.cat([a, a]), \
        lambda: np.concatenate([a_np, a_np]), "numpy"
    yield "shapes per-call broadcast_shapes((3, 1), (4,))", \
        lambda: tl.broadcast_shapes((3, 1), (4,)), lambda: np.broadcast_shapes((3, 1), (4,)), \
        "numpy"
    yield "shapes per-call tril_indices(4, 4)", lambda: tl.tril_indices(4, 4), \
        lambda: np.tril_indices(4), "numpy"
    yield "shapes per-call t.to(float64)", lambda: a.to(tl.float64), \
        lambda: a_np.astype(np.float64), "numpy"
    yield "shapes per-call t.to('cpu') (self)", lambda: a.to("cpu"), \
        lambda: a_np.astype(np.float32, copy=False), "numpy"
    yield "shapes per-call t.copy_(a)", lambda: dst.copy_(a), \
        lambda: np.copyto(dst_np, a_np), "numpy"


def view_cases():
    """Tiny views, where the time is making the view object (and recording
    its base): x[0], x.T, x.view(...) and the multi-output unbind."""
    x_np = np.arange(12, dtype=np.float32).reshape(3, 4)
    x = tl.from_numpy(x_np)
    yield "views per-call x[0]", lambda: x[0], lambda: x_np[0], "numpy"
    yield "views per-call x[1:, ::2]", lambda: x[1:, ::2], lambda: x_np[1:, ::2], "numpy"
    yield "views per-call x.T", lambda: x.T, lambda: x_np.T, "numpy"
    yield "views per-call x.transpose(0, 1)", lambda: x.transpose(0, 1), \
        lambda: x_np.swapaxes(0, 1), "numpy"
    yield "views per-call x.view(12)", lambda: x.view(12), lambda: x_np.reshape(12), "numpy"
    yield "views per-call x.unbind(0)", lambda: x.unbind(0), lambda: tuple(x_np), "numpy"
