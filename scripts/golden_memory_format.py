"""Record how PyTorch lays out new tensors, for tests/test_memory_format.py:
the strides of elementwise results on transposed, permuted, sliced and
broadcast operands (the first operand that tells two dims apart decides),
of clone/empty_like/zeros_like/rand_like/to/double (preserve_format keeps a
dense input's strides), of contiguous/clone/to/empty with channels_last and
channels_last_3d, when to() and contiguous() return self, and the errors of
wrong ranks, preserve_format where nothing is preserved, and bad arguments.

Run with an interpreter that has PyTorch:
    python scripts/golden_memory_format.py
writes tests/golden/memory_format.json ([call, outcome] pairs over T, the library)."""
from golden_calls import record


def inputs(T):
    g = T.Generator().manual_seed(0)

    def r(*shape):
        return T.rand(*shape, generator=g)

    x4 = r(2, 3, 4, 5)

    def grad_of(leaf, f):
        """The strides of a leaf's .grad after backward through f."""
        leaf = leaf.detach().requires_grad_()
        f(leaf).sum().backward()
        return leaf.grad.stride()

    return {"grad_of": grad_of, "T": T, "x": r(3, 4), "y": r(4, 3), "z": r(3), "x3": r(2, 3, 4), "x4": x4,
            "cl": x4.contiguous(memory_format=T.channels_last), "x5": r(2, 3, 2, 3, 4),
            "x1": r(3, 1, 4), "e": r(0, 3)}


CALLS = [
    # elementwise results take their operands' layout
    "(x.t() * 2).stride()", "x.t().exp().stride()", "(x.t() + y).stride()",
    "(y + x.t()).stride()", "(x.t() + z).stride()", "(z + x.t()).stride()",
    "x3.permute(1, 2, 0).mul(2).stride()", "x3.permute(2, 0, 1).sub(x3.permute(2, 0, 1)).stride()",
    "(x[:, ::2] * 2).stride()", "(x.t()[::2] + 1).stride()", "(x.t()[:, :1] * 2).stride()",
    "(e.t() * 2).stride()", "T.where(x.t() > 0.5, x.t(), 0.0).stride()",
    "(x.t() > 0.5).stride()", "T.maximum(x.t(), y).stride()", "(cl + 1).stride()",
    "(cl + x4).stride()", "(x4 + cl).stride()", "T.relu(cl).stride()", "T.sigmoid(cl).stride()",
    "T.nn.functional.gelu(cl).stride()", "T.nn.functional.silu(x.t()).stride()",
    "T.nn.functional.leaky_relu(cl, 0.1).stride()",
    # preserve_format: copies keep a dense input's strides, or its dims' order
    "x.t().clone().stride()", "x.t()[::2].clone().stride()", "x1.transpose(0, 2).clone().stride()",
    "x.expand(2, 3, 4).clone().stride()", "z.expand(4, 3).t().clone().stride()",
    "T.empty_like(x.t()).stride()", "T.zeros_like(x.t()).stride()", "T.ones_like(cl).stride()",
    "T.full_like(x.t(), 2.0).stride()", "T.rand_like(x.t()).stride()",
    "T.randn_like(cl).stride()", "T.randint_like(x.t(), 3).stride()",
    "x.t().double().stride()", "x.t().to(T.float64).stride()", "x.t().to(T.int64).stride()",
    "x.t().bool().stride()", "cl.to(T.float64).stride()", "cl.cpu().stride()",
    "x4.permute(0, 2, 3, 1).to(T.float64).stride()", "x.t().new_empty((3, 4)).stride()",
    "x.t().contiguous().stride()", "x.t().clone(memory_format=T.contiguous_format).stride()",
    # cat: channels-last when every joined tensor is
    "T.cat([cl, cl], 1).stride()", "T.cat([cl, cl], 0).stride()", "T.cat([cl, x4], 1).stride()",
    "T.cat([x4, cl], 1).stride()", "T.cat([x.t(), x.t()], 0).stride()",
    "T.cat([cl, x4[:0]], 0).stride()",
    "T.cat([x5.contiguous(memory_format=T.channels_last_3d)] * 2, 2).stride()",
    # channels_last and channels_last_3d
    "x4.contiguous(memory_format=T.channels_last).stride()",
    "x4.clone(memory_format=T.channels_last).stride()",
    "x4.to(memory_format=T.channels_last).stride()",
    "x4.to(T.float64, memory_format=T.channels_last).stride()",
    "T.empty(2, 3, 4, 5, memory_format=T.channels_last).stride()",
    "T.empty(2, 3, 2, 3, 4, memory_format=T.channels_last_3d).stride()",
    "T.empty_like(x4, memory_format=T.channels_last).stride()",
    "T.zeros_like(x4, memory_format=T.channels_last).stride()",
    "T.randn_like(x4, memory_format=T.channels_last).stride()",
    "x5.contiguous(memory_format=T.channels_last_3d).stride()",
    "cl.contiguous().stride()", "cl.is_contiguous()",
    "cl.is_contiguous(memory_format=T.channels_last)",
    "T.empty(2, 1, 4, 5).contiguous(memory_format=T.channels_last).stride()",
    "T.empty(2, 3, 1, 1).contiguous(memory_format=T.channels_last).stride()",
    "x4.permute(0, 2, 3, 1).to(memory_format=T.contiguous_format).stride()",
    # when nothing needs copying, self comes back
    "x4.to(memory_format=T.channels_last) is x4", "x4.to(memory_format=T.contiguous_format) is x4",
    "cl.to(memory_format=T.channels_last) is cl", "x4.contiguous() is x4",
    "cl.contiguous(memory_format=T.channels_last) is cl", "x.t().to(T.float32) is x",
    "x.contiguous(memory_format=T.preserve_format).stride()",
    # a leaf's .grad follows the leaf's layout when the leaf is dense
    "grad_of(x.t(), lambda t: t * 2)", "grad_of(cl, lambda t: t.exp())",
    "grad_of(cl, lambda t: t.sum(1))", "grad_of(x4.permute(0, 2, 3, 1), lambda t: t * t)",
    "grad_of(T.rand(4, 6)[:, ::2], lambda t: t * 2)", "grad_of(x.t(), lambda t: t @ y.t())",
    # errors
    "x.contiguous(memory_format=T.channels_last)", "x.clone(memory_format=T.channels_last)",
    "x4.contiguous(memory_format=T.channels_last_3d)",
    "T.empty(2, 3, memory_format=T.channels_last)",
    "T.empty_like(x, memory_format=T.channels_last)",
    "x.t().contiguous(memory_format=T.preserve_format)",
    "T.empty(2, 3, memory_format=T.preserve_format)",
    "T.empty(2, 3, 4, 5, memory_format=T.channels_last, out=T.empty(2, 3, 4, 5))",
    "x.clone(memory_format='channels_last')", "x.clone(T.channels_last)",
    "x.contiguous(T.channels_last)",
]


def describe(r):
    if isinstance(r, tuple):
        return ["tuple", list(r)]
    return [type(r).__name__, r]


def main():
    record(CALLS, inputs, describe, "memory_format", messages=True)


if __name__ == "__main__":
    main()
