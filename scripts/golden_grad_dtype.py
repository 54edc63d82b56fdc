"""Record PyTorch's Tensor.grad_dtype for tests/test_grad_dtype.py: its
default, None and set values, the dtype backward and autograd.grad give a
leaf through built-in ops, casts and custom Functions, .grad assignment
against it, and the messages of bad settings.

Run with an interpreter that has PyTorch:
    python scripts/golden_grad_dtype.py
writes tests/golden/grad_dtype.json ([call, outcome] pairs over T, the library)."""
from golden_calls import record


def inputs(T):
    def leaf(dtype=None, grad_dtype="same", requires_grad=True):
        x = T.ones(3, dtype=dtype or T.float32, requires_grad=requires_grad)
        if grad_dtype != "same":
            x.grad_dtype = grad_dtype
        return x

    def backward(x, f, times=1):
        for _ in range(times):
            f(x).sum().backward()
        return x.grad

    def grad(x, f):
        return T.autograd.grad(f(x).sum(), x)[0]

    def assign(x, g):
        x.grad = g
        return x.grad

    def setting(x, value):
        x.grad_dtype = value
        return x.grad_dtype

    def set_then_require_grad():
        x = leaf(requires_grad=False)
        x.grad_dtype = T.float64
        x.requires_grad_()
        return backward(x, lambda x: x * 2)

    def set_with_grad(value):
        x = leaf()
        x.grad = T.ones(3)
        x.grad_dtype = value
        return x.grad_dtype

    class Double(T.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, g):
            return g.double()

    return {"T": T, "leaf": leaf, "backward": backward, "grad": grad, "assign": assign,
            "setting": setting, "Double": Double, "set_then_require_grad": set_then_require_grad,
            "set_with_grad": set_with_grad}


CALLS = [
    # reading it
    "leaf().grad_dtype", "leaf(T.float16).grad_dtype", "leaf(grad_dtype=None).grad_dtype",
    "leaf(grad_dtype=T.float64).grad_dtype", "(leaf() * 2).grad_dtype",
    "leaf(T.float64).detach().grad_dtype", "leaf(grad_dtype=T.float16).clone().grad_dtype",
    "leaf(requires_grad=False).grad_dtype",
    # gradients into a leaf
    "backward(leaf(grad_dtype=T.float64), lambda x: x * 2)",
    "backward(leaf(grad_dtype=T.float16), lambda x: x * 3, 2)",
    "backward(leaf(grad_dtype=None), lambda x: x * 2)",
    "backward(leaf(T.float16, grad_dtype=None), lambda x: x.float() * 2)",
    "backward(leaf(grad_dtype=None), lambda x: x.double() * 2)",
    "backward(leaf(grad_dtype=T.float64), lambda x: x.double() ** 2)",
    "backward(leaf(grad_dtype=T.complex64), lambda x: x * 2)",
    "grad(leaf(grad_dtype=T.float64), lambda x: x * 3)",
    "grad(leaf(grad_dtype=None), lambda x: x * 3)",
    "backward(leaf(), lambda x: Double.apply(x))",
    "backward(leaf(grad_dtype=None), lambda x: Double.apply(x))",
    "backward(leaf(grad_dtype=T.float16), lambda x: Double.apply(x))",
    "set_then_require_grad()",
    # .grad assignment against it
    "assign(leaf(), T.ones(3, dtype=T.float64))",
    "assign(leaf(grad_dtype=T.float64), T.ones(3, dtype=T.float64))",
    "assign(leaf(grad_dtype=T.float64), T.ones(3))",
    "assign(leaf(grad_dtype=None), T.ones(3, dtype=T.float16))",
    "assign(leaf(T.float16), T.ones(3))",
    # setting it
    "set_with_grad(T.float64)", "set_with_grad(T.float32)", "set_with_grad(None)",
    "set_with_grad(T.float16)",
    "setting(leaf(), 'float')", "setting(leaf(), 3)", "setting(leaf() * 2, None)",
    "setting(leaf() * 2, T.float64)", "setting(leaf(), T.int64)", "setting(leaf(), None)",
]


def describe(r):
    if hasattr(r, "dtype") and hasattr(r, "tolist") and hasattr(r, "shape"):
        v = r.detach()
        return ["tensor", str(r.dtype).split(".")[-1],
                (v.real if v.is_complex() else v).tolist()]
    if r is None:
        return ["None"]
    return ["dtype", str(r).split(".")[-1]] if type(r).__name__ == "dtype" else [type(r).__name__]


def main():
    record(CALLS, inputs, describe, "grad_dtype", messages=True)


if __name__ == "__main__":
    main()
