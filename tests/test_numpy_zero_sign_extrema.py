"""Which of 0.0 and -0.0 np.maximum/np.minimum give where the operands tie,
through torchlike.numpy and through NumPy's ufuncs on tensors, against NumPy
itself on ndarrays (the live oracle): its float32 and float64 loops give
the second operand in every layout, its float16 loop the first.  The op
(torch.maximum's) answers as PyTorch's, by the element's place in its vector
blocks (tests/test_binary_extrema_zero.py); its plain form
(_C._maximum_plain) gives the first at every place, and the namespace swaps
the operands into it for the loops NumPy answers with the second
(torchlike/numpy/_elementwise.py, numpy_tie).  fmax/fmin are not here: NumPy's answer there follows its SIMD
blocks and their remainders."""
import math

import numpy as np
import pytest

import torchlike as torch
import torchlike.numpy as tnp


def _signs(x):
    x = np.asarray(x, dtype=np.float64).reshape(-1)
    return "".join("1" if v != 0 else "-" if math.copysign(1.0, v) < 0 else "+" for v in x)


def _layouts(a, b):
    """(name, x1, x2) as ndarrays: the same calls are made with tensors."""
    a2, b2 = np.stack([a, b]), np.stack([b, a])
    return [("contiguous", a, b), ("stepped", np.repeat(a, 2)[::2], np.repeat(b, 2)[::2]),
            ("transposed", a2.T, b2.T), ("broadcast", a[None, :], b2),
            ("0-d second", a, np.array(0.0, a.dtype)), ("0-d first", np.array(-0.0, a.dtype), a),
            ("number second", a, 0.0), ("number first", -0.0, a)]


def _tensor(x):
    if isinstance(x, np.ndarray):
        t = torch.tensor(np.ascontiguousarray(x))
        # the views themselves: a transposed or stepped tensor, not a copy
        if x.ndim == 2 and not x.flags.c_contiguous:
            t = torch.tensor(np.ascontiguousarray(x.T)).t()
        elif x.ndim == 1 and x.strides[0] != x.itemsize:
            t = torch.tensor(np.repeat(x, 2))[::2]
        return t
    return x


CASES = [(n, dt) for n in (1, 3, 8, 16, 17, 33, 100, 1001)
         for dt in ("float32", "float64", "float16")]


@pytest.mark.parametrize("name", ["maximum", "minimum"])
@pytest.mark.parametrize("n,dtype", CASES)
def test_ties_as_numpy(name, n, dtype):
    rs = np.random.RandomState(n)
    a = np.where(rs.rand(n) < 0.5, -0.0, 0.0).astype(dtype)
    b = -a  # every element a tie of opposite signs
    for layout, x1, x2 in _layouts(a, b):
        want = _signs(getattr(np, name)(x1, x2))
        t1, t2 = _tensor(x1), _tensor(x2)
        assert _signs(getattr(tnp, name)(t1, t2).numpy()) == want, ("namespace", layout)
        assert _signs(getattr(np, name)(t1, t2).numpy()) == want, ("ufunc", layout)
        if isinstance(x1, np.ndarray) and isinstance(x2, np.ndarray):
            shape = np.broadcast_shapes(x1.shape, x2.shape)
            out = torch.empty(shape, dtype=getattr(torch, dtype))
            for _ in range(2):  # the Python path, then the C fast path it enables
                assert getattr(np, name)(t1, t2, out=out) is out
                assert _signs(out.numpy()) == want, ("ufunc out=", layout)
            out = torch.empty(shape, dtype=getattr(torch, dtype))
            getattr(tnp, name)(t1, t2, out=out)
            assert _signs(out.numpy()) == want, ("namespace out=", layout)


def test_numpy_loops_differ_by_dtype():
    """NumPy's float32 loop gives the second operand, its float16 loop the
    first (so neither rule alone passes the test above)."""
    one = np.array([0.0], np.float32), np.array([-0.0], np.float32)
    half = np.array([0.0], np.float16), np.array([-0.0], np.float16)
    assert _signs(np.maximum(*one)) == "-" and _signs(np.maximum(*half)) == "+"


def test_torch_api_keeps_the_first_on_small_inputs():
    """torch.maximum is PyTorch's (not NumPy's): below its vector width a
    tie gives the first operand, and the swap stays in the namespace."""
    x, y = torch.tensor([0.0, -0.0]), torch.tensor([-0.0, 0.0])
    assert _signs(torch.maximum(x, y).numpy()) == "+-"
    assert _signs(torch.minimum(x, y).numpy()) == "+-"
    assert _signs(tnp.maximum(x, y).numpy()) == "-+"


def test_errors_name_the_operands_in_order():
    """The swap is undone for an error: the first operand is named first."""
    with pytest.raises(ValueError) as ours:
        tnp.maximum(torch.zeros(3), torch.zeros(4))
    assert "tensor a (3)" in str(ours.value) and "tensor b (4)" in str(ours.value)


def test_namespace_keeps_an_input_nan():
    """NumPy's maximum gives an input's own NaN (its sign and payload); the
    op's vector blocks give PyTorch's NaN of all one bits instead, so the
    namespace's plain form must not."""
    a = np.array([-np.nan] * 20 + [1.0] * 20, dtype=np.float32)
    b = np.array([0.0] * 40, dtype=np.float32)
    for name in ("maximum", "minimum"):
        want = getattr(np, name)(a, b).view(np.uint32)
        got = getattr(tnp, name)(torch.tensor(a), torch.tensor(b)).numpy().view(np.uint32)
        np.testing.assert_array_equal(got, want)
