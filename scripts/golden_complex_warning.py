"""Record which of PyTorch's casts warn that a complex-to-real cast drops
the imaginary parts, for tests/test_complex_warning.py: each call is run
through W(), which keeps the result and the warnings' messages (PyTorch
warns once per process; set_warn_always makes it warn every time, so that
each call is seen on its own).

Run with an interpreter that has PyTorch:
    python scripts/golden_complex_warning.py
writes tests/golden/complex_warning.json ([call, outcome] pairs over T)."""
import warnings

from golden_calls import record

MESSAGE = "Casting complex values to real discards the imaginary part"


def inputs(T):
    """c: a complex64 vector; z: a 0-d complex128; e: an empty complex64;
    W(f): f() and whether it warned that imaginary parts were dropped;
    put(a, key, v): a after a[key] = v."""
    T.set_warn_always(True)

    def W(f):
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            r = f()
        return r, sum(str(w.message).startswith(MESSAGE) for w in seen)

    def put(a, key, v):
        a[key] = v
        return a

    return {"T": T, "W": W, "put": put, "c": T.tensor([1 + 2j, 3 - 1j, -0.5 + 0.25j]),
            "z": T.tensor(2.5 - 1j, dtype=T.complex128), "e": T.zeros(0, dtype=T.complex64)}


CALLS = [
    # conversions
    "W(lambda: c.float())", "W(lambda: c.double())", "W(lambda: c.half())",
    "W(lambda: c.bfloat16())", "W(lambda: c.int())", "W(lambda: c.long())",
    "W(lambda: c.short())", "W(lambda: c.byte())", "W(lambda: c.char())",
    "W(lambda: c.bool())", "W(lambda: c.cdouble())", "W(lambda: c.to(T.float32))",
    "W(lambda: c.to(T.float64, copy=True))", "W(lambda: c.to(T.bool))",
    "W(lambda: c.to(T.zeros(1, dtype=T.int16)))", "W(lambda: c.type(T.float64))",
    "W(lambda: z.float())", "W(lambda: e.float())", "W(lambda: c[::2].float())",
    "W(lambda: T.as_tensor(c, dtype=T.float32))", "W(lambda: T.ones(2).double())",
    # copies and assignments
    "W(lambda: T.zeros(3).copy_(c))", "W(lambda: T.zeros(3, dtype=T.int32).copy_(c))",
    "W(lambda: T.zeros(2, 3).copy_(c))", "W(lambda: T.zeros(3, dtype=T.bool).copy_(c))",
    "W(lambda: put(T.zeros(3), slice(None), c))", "W(lambda: put(T.zeros(3), 1, z))",
    "W(lambda: put(T.zeros(3), T.tensor([True, False, True]), c[:2]))",
    "W(lambda: put(T.zeros(4), T.tensor([0, 2, 3]), c))",
    "W(lambda: T.zeros(3).index_put_((T.tensor([2, 0]),), c[:2]))",
    "W(lambda: T.zeros(3).fill_(z))",
    # reductions with a real dtype=
    "W(lambda: c.sum(dtype=T.float32))", "W(lambda: c.sum(0, dtype=T.float64))",
    "W(lambda: c.prod(dtype=T.float64))", "W(lambda: c.cumsum(0, dtype=T.float64))",
    "W(lambda: c.cumprod(0, dtype=T.float32))", "W(lambda: c.mean(dtype=T.float32))",
    "W(lambda: c.sum(dtype=T.complex128))",
    # what keeps the imaginary parts or refuses
    "W(lambda: c.real)", "W(lambda: c.abs())", "W(lambda: c.angle())",
    "W(lambda: T.view_as_real(c))", "W(lambda: c + 1)", "W(lambda: c == 1)",
    "W(lambda: T.add(c, c, out=T.zeros(3)))", "W(lambda: T.zeros(3).add_(c))",
    "W(lambda: T.zeros(3).index_copy_(0, T.tensor([0, 1, 2]), c))",
    "W(lambda: float(z))",
]


def describe(r):
    value, warned = r
    if hasattr(value, "dtype") and hasattr(value, "shape"):
        flat = []
        for x in value.detach().reshape(-1).tolist():
            flat += [x.real, x.imag] if isinstance(x, complex) else [x]
        vals = [round(x, 5) if isinstance(x, float) else x for x in flat]
        return ["tensor", list(value.shape), str(value.dtype).split(".")[-1], vals, warned]
    return [type(value).__name__, value if isinstance(value, (bool, int, float)) else repr(value),
            warned]


def main():
    record(CALLS, inputs, describe, "complex_warning", messages=True)


if __name__ == "__main__":
    main()
