"""einsum's fused sum of products (_C._sumprod): two operands with the same
labels, some summed ('ij,ij->j', 'bij,bji->b', 'i,i->'), computed in one
pass on the host.  Values and dtypes against NumPy's einsum over dtypes and
layouts (empty, 0-d results, non-contiguous, broadcast size-1 dims, rows
longer than the kernel's pairwise block), the same bits whatever the thread
count, and gradients (through the unfused path) against finite
differences of NumPy's einsum."""
import numpy as np
import pytest

import torchlike as tl
from oracle import assert_close, noncontiguous, random_array, to_tensor

DTYPES = ["float32", "float64", "complex64", "complex128", "int8", "int32", "int64", "uint8",
          "bool", "float16"]

CASES = [
    ("ij,ij->j", (5, 7), (5, 7)), ("ij,ij->i", (5, 7), (5, 7)), ("ij,ij->", (5, 7), (5, 7)),
    ("ij,ij", (5, 7), (5, 7)), ("bij,bij->b", (3, 4, 5), (3, 4, 5)), ("i,i->", (9,), (9,)),
    ("ij,ji->", (4, 6), (6, 4)), ("bij,bji->b", (2, 3, 4), (2, 4, 3)),
    ("ijk,ikj->ki", (3, 4, 5), (3, 5, 4)), ("bij,bij->jb", (3, 4, 5), (3, 4, 5)),
    # size-1 dims broadcast, kept or summed, as in NumPy
    ("ij,ij->j", (3, 1), (3, 4)), ("ij,ij->", (1, 4), (3, 4)), ("ij,ij->i", (3, 4), (3, 1)),
    ("...i,...i->...", (5, 1, 4), (1, 3, 4)),
    # empty: a kept dim of 0, a summed dim of 0 (zeros)
    ("ij,ij->j", (0, 4), (0, 4)), ("ij,ij->i", (3, 0), (3, 0)), ("i,i->", (0,), (0,)),
    # long rows: several pairwise blocks, and enough work for the threads
    ("ij,ij->i", (3, 5000), (3, 5000)), ("ij,ij->j", (300, 130), (300, 130)),
    ("ij,ij->", (300, 130), (300, 130)),
    # rows strided in one operand: element-wise gathered vectors, pairwise
    ("ij,ji->i", (3, 3000), (3000, 3)), ("bij,bji->b", (2, 40, 50), (2, 50, 40)),
]


WIDE = {"float16": np.float64, "float32": np.float64, "complex64": np.complex128}


def _tol(dtype):
    return {"float16": 1e-3, "float32": 1e-6, "complex64": 1e-6}.get(dtype, 1e-12)


@pytest.mark.parametrize("eq,sa,sb", CASES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_values_and_dtype_match_numpy(eq, sa, sb, dtype):
    a = random_array(sa, dtype, np.random.default_rng(1))
    b = random_array(sb, dtype, np.random.default_rng(2))
    got = tl.einsum(eq, to_tensor(a), to_tensor(b))
    ref = np.einsum(eq, a, b)
    if dtype in WIDE:  # NumPy sums in the dtype's steps; ours rounds the wide sum once
        wide = np.einsum(eq, a.astype(WIDE[dtype]), b.astype(WIDE[dtype])).astype(a.dtype)
        np.testing.assert_allclose(wide, ref, rtol=100 * _tol(dtype), atol=1000 * _tol(dtype))
        ref = wide
    # integers wrap in both (int8 products overflow here); bool is OR of ANDs
    assert_close(got, ref, dtype=dtype, rtol=_tol(dtype), atol=_tol(dtype) * 10)


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128", "int32"])
def test_noncontiguous_operands(dtype):
    a = random_array((6, 8), dtype, np.random.default_rng(3))
    b = random_array((8, 6), dtype, np.random.default_rng(4))
    ta, tb = to_tensor(a), to_tensor(b)
    for eq, x, y, xs, ys in [("ij,ij->i", ta[:, ::2], tb.T[:, ::2], a[:, ::2], b.T[:, ::2]),
                             ("ij,ij->j", ta.T, tb, a.T, b),
                             ("ij,ij->", ta[::-1], tb.T, a[::-1], b.T),
                             ("ij,ij->i", noncontiguous(ta), noncontiguous(tb.T), a, b.T),
                             ("bi,bi->b", ta[:, None, 0].expand(6, 5), tb[:5].T, None, None)]:
        if xs is None:  # a stride-0 (expanded) operand
            xs, ys = np.broadcast_to(a[:, None, 0], (6, 5)), b[:5].T
        assert_close(tl.einsum(eq, x, y), np.einsum(eq, xs, ys), dtype=dtype,
                     rtol=_tol(dtype), atol=_tol(dtype) * 10)


def test_zero_dim_result_and_scalar_like_operands():
    a = random_array((1, 1), "float64", np.random.default_rng(5))
    got = tl.einsum("ij,ij->", to_tensor(a), to_tensor(a))
    assert got.ndim == 0
    assert_close(got, np.einsum("ij,ij->", a, a))


@pytest.mark.parametrize("eq,shape", [("ij,ij->", (400, 300)), ("ij,ij->j", (400, 300)),
                                      ("ij,ij->i", (3, 40000)), ("ij,ij->j", (40000, 3))])
def test_same_bits_whatever_the_thread_count(eq, shape):
    """Work is cut by size alone (reduce.c), so the bits do not depend on
    how many threads run it."""
    a = to_tensor(random_array(shape, "float32", np.random.default_rng(6)))
    b = to_tensor(random_array(shape, "float32", np.random.default_rng(7)))
    before = tl.get_num_threads()
    try:
        tl.set_num_threads(1)
        one = tl.einsum(eq, a, b).cpu().numpy()
        tl.set_num_threads(4)
        four = tl.einsum(eq, a, b).cpu().numpy()
    finally:
        tl.set_num_threads(before)
    np.testing.assert_array_equal(one, four)
    ref = np.einsum(eq, a.cpu().numpy().astype(np.float64), b.cpu().numpy().astype(np.float64))
    np.testing.assert_allclose(one, ref, rtol=1e-6, atol=1e-3)


def test_float32_sums_in_double():
    """float32 products (exact here) are summed in double and rounded
    once: exact where a float32 running sum is not."""
    a = np.full(1 << 18, 1.0, np.float32)
    b = np.full(1 << 18, 1.0 + 2.0 ** -20, np.float32)
    got = tl.einsum("i,i->", to_tensor(a), to_tensor(b))
    want = np.float32(np.dot(a.astype(np.float64), b.astype(np.float64)))
    assert got.item() == want


def _numeric_grad(eq, arrays, k, w, eps=1e-6):
    """d/d arrays[k] of sum(w * einsum(eq, *arrays)), by central differences."""
    x = arrays[k]
    g = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        hi = [a.copy() for a in arrays]
        lo = [a.copy() for a in arrays]
        hi[k][idx] += eps
        lo[k][idx] -= eps
        g[idx] = (np.sum(w * np.einsum(eq, *hi)) - np.sum(w * np.einsum(eq, *lo))) / (2 * eps)
    return g


@pytest.mark.parametrize("eq,sa,sb", [("ij,ij->j", (3, 4), (3, 4)), ("bij,bji->b", (2, 3, 4), (2, 4, 3)),
                                      ("ij,ij->", (3, 1), (3, 4)), ("i,i->", (5,), (5,))])
def test_gradients_match_finite_differences(eq, sa, sb):
    rng = np.random.default_rng(8)
    a, b = rng.standard_normal(sa), rng.standard_normal(sb)
    ta, tb = to_tensor(a).requires_grad_(), to_tensor(b).requires_grad_()
    out = tl.einsum(eq, ta, tb)
    w = rng.standard_normal(tuple(out.shape))
    (out * to_tensor(w)).sum().backward()
    np.testing.assert_allclose(ta.grad.cpu().numpy(), _numeric_grad(eq, [a, b], 0, w), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(tb.grad.cpu().numpy(), _numeric_grad(eq, [a, b], 1, w), rtol=1e-6, atol=1e-8)
    # the same values without a tape (the fused forward)
    with tl.no_grad():
        assert_close(tl.einsum(eq, ta, tb), np.einsum(eq, a, b))


def test_sumprod_refuses_mismatched_operands():
    a, b = tl.ones(2, 3), tl.ones(2, 3, dtype=tl.float64)
    with pytest.raises(RuntimeError, match="float32 and float64"):
        tl._C._sumprod(a, b, [1])
    with pytest.raises(RuntimeError, match=r"\[2, 3\].*\[2, 4\]"):
        tl._C._sumprod(a, tl.ones(2, 4), [1])
    with pytest.raises(RuntimeError, match="line up"):
        tl._C._sumprod(a, tl.ones(3), [0])
    with pytest.raises(RuntimeError, match="size"):  # einsum names the label
        tl.einsum("ij,ij->i", tl.ones(2, 3), tl.ones(2, 4))


@pytest.mark.parametrize("dtype", ["bool", "int8", "int32", "uint8", "float32"])
def test_unfused_path_agrees(dtype, monkeypatch):
    """The path devices and recorded gradients take (a product, then a sum
    in the operands' dtype, or a matmul) gives the fused path's dtypes and
    NumPy's values."""
    from torchlike import _einsum
    monkeypatch.setattr(_einsum, "_fusable", lambda a, b: False)
    a = random_array((4, 6), dtype, np.random.default_rng(9))
    b = random_array((4, 6), dtype, np.random.default_rng(10))
    for eq in ("ij,ij->j", "ij,ij->i", "ij,ij->"):
        got = tl.einsum(eq, to_tensor(a), to_tensor(b))
        assert_close(got, np.einsum(eq, a, b), dtype=dtype, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_long_reversed_and_strided_rows(dtype):
    """Rows past the 16 lanes and the pairwise block read through negative
    and non-unit strides (the vector dot gathers them)."""
    a = random_array((3, 6000), dtype, np.random.default_rng(11))
    b = random_array((3, 6000), dtype, np.random.default_rng(12))
    ta, tb = to_tensor(a), to_tensor(b)
    wide = np.float64
    for x, y, xs, ys in [(ta[:, ::-1], tb, a[:, ::-1], b),
                         (ta[::-1, ::-3], tb[:, ::3], a[::-1, ::-3], b[:, ::3])]:
        got = tl.einsum("ij,ij->i", x, y)
        want = np.einsum("ij,ij->i", xs.astype(wide), ys.astype(wide)).astype(dtype)
        assert_close(got, want, dtype=dtype, rtol=_tol(dtype), atol=_tol(dtype) * 100)
