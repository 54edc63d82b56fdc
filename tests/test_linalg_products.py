"""Matrix products (matmul family, tensordot, kron, trace) against NumPy."""
import numpy as np
import pytest
from hypothesis import given, strategies as st

import torchlike as tl
from oracle import assert_close, check, cuda_test_devices, device_array, host_array, layouts, \
    num_threads, random_array, run_emulated, to_tensor

DEVICES, EMULATED = cuda_test_devices()

PRODUCT_DTYPES = ["float32", "float64", "complex64", "complex128", "int32", "int64"]

MATMUL_SHAPES = [
    ((3, 4), (4, 5)), ((4,), (4,)), ((4,), (4, 5)), ((3, 4), (4,)), ((2, 3, 4), (4, 5)),
    ((3, 4), (2, 4, 5)), ((2, 1, 3, 4), (5, 4, 2)), ((4,), (2, 4, 3)), ((2, 3, 4), (4,)),
    ((0, 3), (3, 2)), ((3, 0), (0, 2)), ((2, 0, 4), (4, 3)), ((1, 1), (1, 1)),
]


def tol(dtype):
    return {"float32": (1e-4, 1e-4), "complex64": (1e-4, 1e-4)}.get(dtype, (1e-10, 1e-10))


@pytest.mark.parametrize("dtype", PRODUCT_DTYPES + ["bool", "uint8", "float16"])
@pytest.mark.parametrize("sa,sb", MATMUL_SHAPES)
def test_matmul_matches_numpy(sa, sb, dtype):
    a, b = random_array(sa, dtype), random_array(sb, dtype, rng=np.random.default_rng(1))
    rtol, atol = tol(dtype)
    if dtype == "float16":
        rtol, atol = 1e-2, 5e-2
    check(tl.matmul, np.matmul, a, b, rtol=rtol, atol=atol)
    check(lambda x, y: x @ y, lambda x, y: x @ y, a, b, rtol=rtol, atol=atol)


@pytest.mark.parametrize("dtype", ["float32", "complex128", "int64"])
def test_matmul_layouts_are_not_copied_wrongly(dtype):
    a = random_array((2, 5, 6), dtype)
    b = random_array((2, 6, 3), dtype, rng=np.random.default_rng(2))
    rtol, atol = tol(dtype)
    for la, xa in layouts(a):
        for lb, xb in layouts(b):
            assert_close(tl.from_numpy(xa) @ tl.from_numpy(xb), a @ b, rtol=rtol, atol=atol)


def test_matmul_transposed_views_and_broadcast_batch():
    a = random_array((4, 7), "float64")
    t = to_tensor(a)
    assert_close(t.T @ t, a.T @ a)
    assert_close(t @ t.T, a @ a.T)
    assert_close(t.mT @ t, a.T @ a)
    big = to_tensor(random_array((3, 8, 4), "float64"))
    assert_close(big @ t, big.cpu().numpy() @ a)                     # one folded GEMM
    assert_close(big[:, ::2] @ t, big.cpu().numpy()[:, ::2] @ a)     # strided rows
    c = random_array((3, 8), "float64")
    assert_close(big.transpose(1, 2) @ to_tensor(c).T, big.cpu().numpy().swapaxes(1, 2) @ c.T)
    e = tl.tensor(np.ones((1, 4)))
    assert_close(e.expand(5, 4) @ t, np.ones((5, 4)) @ a)


def test_numpy_matmul_promotes_dtypes():
    import torchlike.numpy as tnp
    a = tl.ones(2, 3, dtype=tl.float32)
    b = tl.ones(3, 2, dtype=tl.float64)
    assert tnp.matmul(a, b).dtype == tl.float64
    assert np.matmul(a, b).dtype == tl.float64
    assert tnp.dot(tl.ones(2, 3, dtype=tl.int32), tl.ones(3, 2, dtype=tl.int64)).dtype == tl.int64
    assert tnp.matmul(tl.ones(2, 3, dtype=tl.float32),
                      tl.ones(3, 2, dtype=tl.complex64)).dtype == tl.complex64


def test_integer_matmul_wraps_like_numpy():
    a = np.full((2, 3), 2 ** 20, dtype=np.int32)
    check(tl.matmul, np.matmul, a, a.T.copy())


def test_matmul_errors_name_shapes():
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(2x3 and 4x5\)"):
        tl.mm(tl.ones(2, 3), tl.ones(4, 5))
    with pytest.raises(RuntimeError, match=r"2x3 and 4x5"):
        tl.ones(2, 3) @ tl.ones(4, 5)
    with pytest.raises(RuntimeError, match=r"\[7, 2, 3\].*\[7, 4, 5\]"):
        tl.ones(7, 2, 3) @ tl.ones(7, 4, 5)
    with pytest.raises(RuntimeError, match="at least 1D"):
        tl.matmul(tl.tensor(1.0), tl.ones(2))
    # PyTorch's words, its op's name first (what users search for)
    for call, words in [(lambda: tl.ones(2, 3) @ tl.ones(2, 3), "mm: mat1 and mat2 shapes cannot "
                         "be multiplied (2x3 and 2x3)"),
                        (lambda: tl.ones(2) @ tl.ones(3, 2), "mm: mat1 and mat2 shapes cannot be "
                         "multiplied (1x2 and 3x2)"),
                        (lambda: tl.addmm(tl.ones(2), tl.ones(2, 3), tl.ones(2, 3)), "addmm: mat1 "
                         "and mat2 shapes cannot be multiplied (2x3 and 2x3)"),
                        (lambda: tl.ones(2, 3) @ tl.ones(4), "size mismatch, got input (2), mat "
                         "(2x3), vec (4)")]:
        with pytest.raises(RuntimeError) as info:
            call()
        assert str(info.value) == words
    with pytest.raises(RuntimeError, match="same number of elements"):
        tl.dot(tl.ones(3), tl.ones(4))
    with pytest.raises(RuntimeError, match="batch"):
        tl.ones(2, 2, 3) @ tl.ones(3, 3, 4)
    with pytest.raises(RuntimeError, match="2D"):
        tl.mm(tl.ones(2, 2, 2), tl.ones(2, 2))
    with pytest.raises(RuntimeError, match="batch2"):
        tl.bmm(tl.ones(2, 2, 3), tl.ones(3, 3, 4))


_F64, _F32, _F16 = "float64", "float32", "float16"
# PyTorch 2.15's words for operands of two dtypes, product by product (each
# kernel has its own; matmul's are those of the kernel its ranks lead to):
# (call over a, b of the given dtypes, its message)
_MIXED_DTYPE_WORDS = [
    (lambda o: tl.mm(o(2, 3, _F64), o(3, 2)),
     "expected m1 and m2 to have the same dtype, but got: double != float"),
    (lambda o: tl.mm(o(2, 3, _F16), o(3, 2)),
     "expected m1 and m2 to have the same dtype, but got: c10::Half != float"),
    (lambda o: tl.matmul(o(2, 2, 3, _F64), o(3, 2)),
     "expected m1 and m2 to have the same dtype, but got: double != float"),
    (lambda o: tl.matmul(o(3), o(3, 2, _F64)),
     "expected m1 and m2 to have the same dtype, but got: float != double"),
    (lambda o: tl.bmm(o(1, 2, 3, _F64), o(1, 3, 2)), "expected scalar type Double but found Float"),
    (lambda o: tl.matmul(o(2, 3), o(2, 3, 2, _F16)), "expected scalar type Float but found Half"),
    (lambda o: tl.matmul(o(3, _F64), o(3)),
     "dot : expected both vectors to have same dtype, but found Double and Float"),
    (lambda o: tl.vdot(o(3), o(3, _F64)),
     "dot : expected both vectors to have same dtype, but found Float and Double"),
    (lambda o: tl.mv(o(2, 3, _F64), o(3)),
     "addmv input tensors must have the same dtype, but got Float, Double, and Float"),
    (lambda o: tl.matmul(o(2, 2, 3), o(3, _F64)),
     "addmv input tensors must have the same dtype, but got Double, Float, and Double"),
    (lambda o: tl.addmv(o(2), o(2, 3), o(3, _F64)),
     "addmv input tensors must have the same dtype, but got Float, Float, and Double"),
    (lambda o: tl.addmm(o(2, 2), o(2, 3, _F64), o(3, 2)),
     "mat1 and mat2 must have the same dtype, but got Double and Float"),
    (lambda o: tl.addmm(o(2, 2), o(2, 3), o(3, 2, _F64)),
     "self and mat2 must have the same dtype, but got Float and Double"),
    (lambda o: tl.addbmm(o(2, 2, _F64), o(1, 2, 3), o(1, 3, 2)),
     "self and mat2 must have the same dtype, but got Double and Float"),
    (lambda o: tl.baddbmm(o(1, 2, 2), o(1, 2, 3, _F64), o(1, 3, 2)),
     "Input dtypes must be the same, got: input float, batch1: double, batch2: float"),
    (lambda o: tl.baddbmm(o(1, 2, 2), o(1, 2, 3), o(1, 3, 2, _F64)),
     "expected scalar type Float but found Double"),
    (lambda o: tl.inner(o(2, 3, _F64), o(2, 3)), "both inputs should have same dtype"),
    (lambda o: tl.tensordot(o(2, 3), o(3, 2, _F16), 1), "both inputs should have same dtype"),
    # einsum contracts a pair with bmm (one with nothing contracted is a product: it promotes)
    (lambda o: tl.einsum("ij,jk->ik", o(2, 3), o(3, 2, _F64)),
     "expected scalar type Float but found Double"),
    (lambda o: tl.einsum("i,i->", o(3, _F64), o(3)), "expected scalar type Double but found Float"),
    (lambda o: tl.einsum("bij,bjk->bik", o(2, 2, 3), o(2, 3, 2, _F16)),
     "expected scalar type Float but found Half"),
    (lambda o: tl.linalg.multi_dot([o(2, 3), o(3, 2), o(2, _F16)]),
     "multi_dot(): all tensors must have be the same dtype but tensor 0 is float and tensor 2 "
     "c10::Half"),
]


@pytest.mark.parametrize("call,words", _MIXED_DTYPE_WORDS)
def test_products_of_mixed_dtypes_refused_in_pytorchs_words(call, words):
    assert tl.einsum("ij,ij->ij", tl.ones(2, 2), tl.ones(2, 2, dtype=tl.float64)).dtype == \
        tl.float64
    def ones(*shape):
        dtype = shape[-1] if isinstance(shape[-1], str) else _F32
        shape = shape[:-1] if isinstance(shape[-1], str) else shape
        return tl.ones(*shape, dtype=getattr(tl, dtype))
    with pytest.raises(RuntimeError) as info:
        call(ones)
    assert str(info.value) == words


def test_matmul_out():
    a, b = random_array((3, 4), "float64"), random_array((4, 2), "float64")
    out = tl.empty(3, 2, dtype=tl.float64)
    r = tl.matmul(to_tensor(a), to_tensor(b), out=out)
    assert r is out
    assert_close(out, a @ b)
    with pytest.raises(RuntimeError, match="shape"):
        tl.matmul(to_tensor(a), to_tensor(b), out=tl.empty(2, 2, dtype=tl.float64))


@pytest.mark.parametrize("dtype", PRODUCT_DTYPES)
def test_mm_bmm_mv_dot(dtype):
    rtol, atol = tol(dtype)
    rng = np.random.default_rng(3)
    m, n = random_array((3, 4), dtype, rng), random_array((4, 5), dtype, rng)
    v = random_array((4,), dtype, rng)
    b1, b2 = random_array((2, 3, 4), dtype, rng), random_array((2, 4, 5), dtype, rng)
    check(tl.mm, np.matmul, m, n, rtol=rtol, atol=atol)
    check(tl.bmm, np.matmul, b1, b2, rtol=rtol, atol=atol)
    check(tl.mv, np.matmul, m, v, rtol=rtol, atol=atol)
    check(tl.dot, np.dot, v, v, rtol=rtol, atol=atol)
    check(tl.vdot, np.vdot, v, v, rtol=rtol, atol=atol)
    check(lambda x, y: x.mm(y), np.matmul, m, n, rtol=rtol, atol=atol)


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128", "int64"])
def test_inner_outer(dtype):
    rtol, atol = tol(dtype)
    rng = np.random.default_rng(4)
    a, b = random_array((2, 3, 4), dtype, rng), random_array((5, 4), dtype, rng)
    check(tl.inner, np.inner, a, b, rtol=rtol, atol=atol)
    s = random_array((), dtype, rng)
    check(tl.inner, np.inner, s, b, rtol=rtol, atol=atol)
    u, w = random_array((3,), dtype, rng), random_array((4,), dtype, rng)
    check(tl.outer, np.outer, u, w, rtol=rtol, atol=atol)
    check(tl.ger, np.outer, u, w, rtol=rtol, atol=atol)
    with pytest.raises(RuntimeError, match=r"\[2, 3, 4\] and \[5, 3\]"):
        tl.inner(to_tensor(a), tl.ones(5, 3, dtype=getattr(tl, dtype)))


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "int64"])
def test_add_family_beta_alpha(dtype):
    rtol, atol = tol(dtype)
    rng = np.random.default_rng(5)
    c = random_array((3, 5), dtype, rng)
    m1, m2 = random_array((3, 4), dtype, rng), random_array((4, 5), dtype, rng)
    b1, b2 = random_array((6, 3, 4), dtype, rng), random_array((6, 4, 5), dtype, rng)
    v, u = random_array((4,), dtype, rng), random_array((3,), dtype, rng)
    w = random_array((5,), dtype, rng)
    check(lambda x, y, z: tl.addmm(x, y, z, beta=2, alpha=3),
          lambda x, y, z: 2 * x + 3 * (y @ z), c, m1, m2, rtol=rtol, atol=atol)
    check(lambda x, y, z: tl.addmm(x, y, z), lambda x, y, z: x + y @ z, w, m1, m2,
          rtol=rtol, atol=atol)  # input broadcasts
    check(lambda x, y, z: tl.baddbmm(x, y, z, beta=-1, alpha=2),
          lambda x, y, z: -x + 2 * (y @ z), c, b1, b2, rtol=rtol, atol=atol)
    check(lambda x, y, z: tl.addbmm(x, y, z, alpha=2),
          lambda x, y, z: x + 2 * (y @ z).sum(0), c, b1, b2, rtol=rtol, atol=atol)
    check(lambda x, y, z: tl.addmv(x, y, z, beta=2), lambda x, y, z: 2 * x + y @ z,
          u, m1, v, rtol=rtol, atol=atol)
    check(lambda x, y, z: tl.addr(x, y, z, alpha=2), lambda x, y, z: x + 2 * np.outer(y, z),
          c, u, w, rtol=rtol, atol=atol)


def test_addmm_beta_zero_ignores_nan_input():
    c = tl.tensor(np.full((2, 2), np.nan))
    r = tl.addmm(c, tl.ones(2, 3, dtype=tl.float64), tl.ones(3, 2, dtype=tl.float64), beta=0)
    assert_close(r, np.full((2, 2), 3.0))


def test_addmm_integral_rejects_float_alpha():
    with pytest.raises(RuntimeError, match="alpha"):
        tl.addmm(tl.ones(2, 2, dtype=tl.int64), tl.ones(2, 2, dtype=tl.int64),
                 tl.ones(2, 2, dtype=tl.int64), alpha=0.5)


def test_addmm_bad_input_shape():
    with pytest.raises(RuntimeError, match=r"\[3, 3\].*\[2, 2\]"):
        tl.addmm(tl.ones(3, 3), tl.ones(2, 4), tl.ones(4, 2))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_batched_row_by_column_products(dtype):
    """(B, 1, K) @ (B, K, 1) runs as one dot per batch element: strided,
    broadcast and transposed operands, a long single dot, baddbmm's beta and
    alpha (beta=0 ignores NaN), and batches split over two threads."""
    rng = np.random.default_rng(9)
    rtol, atol = tol(dtype)
    a, b = random_array((300, 1, 37), dtype, rng), random_array((300, 37, 1), dtype, rng)
    assert_close(to_tensor(a) @ to_tensor(b), a @ b, rtol=rtol, atol=atol)
    m = random_array((300, 74), dtype, rng)
    tm = to_tensor(m)
    assert_close(tm[:, None, ::2] @ tm[:, 1::2, None], m[:, None, ::2] @ m[:, 1::2, None],
                 rtol=rtol, atol=atol)                                   # stride 2 along K
    assert_close(tm[:, None, :37] @ tm[0, :37, None], m[:, None, :37] @ m[0, :37, None],
                 rtol=rtol, atol=atol)                                   # b broadcast over the batch
    assert_close(tm.T[None, :, :] @ tm[None, :, :1], m.T[None] @ m[None, :, :1], rtol=rtol, atol=atol)
    v = random_array((100000,), dtype, rng)
    assert_close(to_tensor(v)[None] @ to_tensor(v)[:, None], v[None] @ v[:, None],
                 rtol=1e-3 if dtype == "float32" else 1e-10)
    c = np.full((300, 1, 1), np.nan, dtype)
    assert_close(tl.baddbmm(to_tensor(c), to_tensor(a), to_tensor(b), beta=0, alpha=2), 2 * (a @ b),
                 rtol=rtol, atol=atol)
    c = random_array((300, 1, 1), dtype, rng)
    assert_close(tl.baddbmm(to_tensor(c), to_tensor(a), to_tensor(b), beta=0.5, alpha=-1),
                 0.5 * c - a @ b, rtol=rtol, atol=atol)
    a, b = random_array((3000, 1, 37), dtype, rng), random_array((3000, 37, 1), dtype, rng)
    with num_threads(2):  # 3000 dots of 37: several grains
        assert_close(to_tensor(a) @ to_tensor(b), a @ b, rtol=rtol, atol=atol)




def test_addbmm_empty_batch_scales_input():
    r = tl.addbmm(tl.ones(2, 2), tl.ones(0, 2, 3), tl.ones(0, 3, 2), beta=3)
    assert_close(r, np.full((2, 2), 3.0, dtype=np.float32))


@pytest.mark.parametrize("sb,dims", [((3, 4, 5), 2), ((4, 5), 1), ((2, 2), 0),
                                     ((3, 2), ([1, 0], [0, 1])), ((4, 3), ([2], [0])),
                                     ((4, 3, 5), ([2, 1], [0, 1])), ((3, 4), ([-2, -1], [0, 1]))])
def test_tensordot(sb, dims):
    rng = np.random.default_rng(6)
    a, b = random_array((2, 3, 4), "float64", rng), random_array(sb, "float64", rng)
    check(lambda x, y: tl.tensordot(x, y, dims=dims), lambda x, y: np.tensordot(x, y, dims), a, b)


def test_tensordot_mismatch_names_sizes():
    with pytest.raises(RuntimeError, match="size 3 in dim 1 and second has size 4"):
        tl.tensordot(tl.ones(2, 3), tl.ones(4, 2), dims=([1], [0]))


@pytest.mark.parametrize("sa,sb", [((2, 2), (3, 1)), ((3,), (2,)), ((2, 3), (4,)), ((1, 2, 2), (2, 3))])
@pytest.mark.parametrize("dtype", ["float64", "int64", "complex64"])
def test_kron(sa, sb, dtype):
    rng = np.random.default_rng(7)
    check(tl.kron, np.kron, random_array(sa, dtype, rng), random_array(sb, dtype, rng))


@pytest.mark.parametrize("shape", [(3, 3), (2, 5), (5, 2), (0, 3)])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "bool", "complex128"])
def test_trace(shape, dtype):
    a = random_array(shape, dtype)
    expected = np.trace(a) if dtype != "bool" else np.trace(a.astype(np.int64))
    if dtype == "int32":
        expected = expected.astype(np.int64)
    assert_close(tl.trace(to_tensor(a)), np.asarray(expected))
    with pytest.raises(RuntimeError, match="expected a matrix"):
        tl.trace(tl.ones(2, 2, 2))


def test_methods_exist():
    t = tl.ones(2, 2)
    assert_close(t.matmul(t), np.full((2, 2), 2.0, dtype=np.float32))
    assert_close(t.trace(), np.float32(2))
    assert_close(t.addmm(t, t), np.full((2, 2), 3.0, dtype=np.float32))


@st.composite
def strided_operand(draw, shape, dtype):
    """A tensor with `shape`'s values laid out as a random strided view:
    optionally stored transposed, with a step along the last dim, reversed."""
    a = random_array(shape, dtype, np.random.default_rng(draw(st.integers(0, 2 ** 16))))
    t = to_tensor(a)
    if len(shape) >= 2 and draw(st.booleans()):
        t = to_tensor(np.ascontiguousarray(np.swapaxes(a, -1, -2))).transpose(-1, -2)
    if len(shape) >= 1 and shape[-1] > 0 and draw(st.booleans()):
        step = draw(st.integers(2, 3))
        wide = np.repeat(a, step, axis=-1)
        t = to_tensor(wide)[..., ::step]
    return a, t


@given(st.data())
def test_matmul_random_shapes_and_layouts(data):
    dtype = data.draw(st.sampled_from(["float32", "float64", "complex128", "int64"]))
    m, k, n = (data.draw(st.integers(0, 6)) for _ in range(3))
    batch = data.draw(st.lists(st.integers(1, 3), max_size=2))
    a_batch = [b if data.draw(st.booleans()) else 1 for b in batch]
    b_batch = batch[data.draw(st.integers(0, len(batch))):]
    a_vec, b_vec = data.draw(st.booleans()), data.draw(st.booleans())
    sa = (k,) if a_vec and not a_batch else tuple(a_batch) + (m, k)
    sb = (k,) if b_vec and not b_batch else tuple(b_batch) + (k, n)
    a, ta = data.draw(strided_operand(sa, dtype))
    b, tb = data.draw(strided_operand(sb, dtype))
    rtol, atol = tol(dtype)
    assert_close(ta @ tb, a @ b, rtol=rtol, atol=atol)


def test_inplace_add_family():
    c = random_array((3, 5), "float64")
    m1, m2 = random_array((3, 4), "float64"), random_array((4, 5), "float64")
    t = to_tensor(c)
    r = t.addmm_(to_tensor(m1), to_tensor(m2), beta=2, alpha=0.5)
    assert r is t
    assert_close(t, 2 * c + 0.5 * (m1 @ m2))
    b1, b2 = random_array((2, 3, 4), "float64"), random_array((2, 4, 5), "float64")
    t = to_tensor(np.stack([c, c]))
    t.baddbmm_(to_tensor(b1), to_tensor(b2))
    assert_close(t, c + b1 @ b2)


# ---- the GEMM thread policy (src/ndcore/linalg/blas_threads.c) ----------------------

@pytest.mark.parametrize("m,n,k,single", [
    (64, 10, 4096, True), (64, 4096, 10, True), (128, 128, 128, True), (1, 1, 1, True),
    (128, 128, 256, True),            # 2^22 multiply-adds: the largest single-thread product
    (128, 128, 257, False), (32, 1024, 256, False), (512, 512, 512, False),
])
def test_small_products_run_on_one_blas_thread(m, n, k, single):
    assert tl._C._gemm_single_thread(m, n, k) is single


def test_a_small_product_puts_the_blas_thread_count_back():
    saved = tl.get_num_threads()
    try:
        tl.set_num_threads(2)
        assert tl._C._blas_threads() == 2
        a, b = random_array((64, 4096), "float32"), random_array((4096, 10), "float32")
        out = tl.from_numpy(a) @ tl.from_numpy(b)    # one thread inside, two after
        np.testing.assert_allclose(out.numpy(), a.astype(np.float64) @ b, rtol=1e-4, atol=1e-3)
        assert tl._C._blas_threads() == 2
        big_a = random_array((300, 300), "float64")
        np.testing.assert_allclose((tl.from_numpy(big_a) @ tl.from_numpy(big_a)).numpy(),
                                   big_a @ big_a, rtol=1e-12, atol=1e-12)
        assert tl._C._blas_threads() == 2
    finally:
        tl.set_num_threads(saved)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("m,k,n", [(300, 300, 300), (700, 160, 90), (90, 160, 700), (257, 64, 513)])
def test_large_products_cut_into_slabs_match_one_thread(dtype, m, k, n):
    """A product above the single-thread bound runs in slabs of rows (or
    columns) on the thread pool: every layout of a and b (a slab starts at a
    different offset in a transposed operand) and a strided output give
    NumPy's result on 1, 2 and 3 threads.  (Not bit for bit across thread
    counts: a slab's last rows may fall to OpenBLAS's edge kernel, as they
    did with OpenBLAS's own threads.)"""
    saved = tl.get_num_threads()
    a0, b0 = random_array((m, k), dtype), random_array((k, n), dtype)
    c0 = random_array((m, n), dtype)
    ref = c0 * 0.5 + 2.0 * (a0.astype(np.float64) @ b0.astype(np.float64))
    rtol = 1e-4 if dtype == "float32" else 1e-12
    try:
        for threads in (1, 2, 3):
            tl.set_num_threads(threads)
            for a in (a0, np.asfortranarray(a0)):
                for b in (b0, np.asfortranarray(b0)):
                    c = tl.from_numpy(np.ascontiguousarray(np.pad(c0, ((0, 0), (0, 5)))))
                    c = c[:, :n]    # row stride n + 5
                    c.addmm_(tl.from_numpy(a), tl.from_numpy(b), beta=0.5, alpha=2.0)
                    np.testing.assert_allclose(c.numpy(), ref, rtol=rtol, atol=rtol * 10)
    finally:
        tl.set_num_threads(saved)


def test_products_from_several_threads_keep_the_users_blas_count():
    # concurrent single-thread sections nest: the last one out restores the
    # count, and a set_num_threads meanwhile is what it restores
    import threading
    saved = tl.get_num_threads()
    a = tl.from_numpy(random_array((64, 512), "float32"))
    b = tl.from_numpy(random_array((512, 64), "float32"))
    ref = (a @ b).numpy()
    errors = []

    def work():
        try:
            for _ in range(200):
                np.testing.assert_array_equal((a @ b).numpy(), ref)
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)
    try:
        tl.set_num_threads(2)
        threads = [threading.Thread(target=work) for _ in range(4)]
        for t in threads:
            t.start()
        tl.set_num_threads(2)
        for t in threads:
            t.join()
        assert not errors
        assert tl._C._blas_threads() == 2
    finally:
        tl.set_num_threads(saved)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [np.float64, np.complex128, np.int64])
def test_inner_of_a_cpu_scalar_and_a_device_tensor(device, dtype):
    """inner with a 0-d operand is PyTorch's input * other, an elementwise
    product: a 0-d CPU tensor may meet a tensor on a device, on either side."""
    b = (np.arange(12).reshape(3, 4) - 5).astype(dtype)
    s = tl.tensor(np.array(3 - 2j if dtype == np.complex128 else 3, dtype=dtype), device="cpu")
    on = device_array(device, b)
    for got in (tl.inner(s, on), tl.inner(on, s)):
        assert got.device.type == device and got.shape == (3, 4)
        np.testing.assert_array_equal(host_array(got), np.inner(s.numpy(), b))
    # as a product it promotes (PyTorch's mul): a float32 0-d operand takes the tensor's kind
    half = tl.tensor(0.5, dtype=tl.float32, device="cpu")
    want_dtype = np.float32 if dtype == np.int64 else dtype
    for got in (tl.inner(half, on), tl.inner(on, half)):
        assert got.device.type == device and str(got.dtype) == "torchlike." + np.dtype(
            want_dtype).name
        np.testing.assert_array_equal(host_array(got), (b * 0.5).astype(want_dtype))


@pytest.mark.host_only  # it starts its own emulated-device process
@pytest.mark.skipif(EMULATED, reason="this is the emulated run")
def test_device_paths_on_the_emulated_fake_device():
    run_emulated(__file__)


@pytest.mark.parametrize("call", [
    lambda T, a, b: T.outer(a, b), lambda T, a, b: T.ger(a, b), lambda T, a, b: T.kron(a, b),
    lambda T, a, b: T.tensordot(a, b, 0), lambda T, a, b: a.outer(b)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_products_without_a_sum_keep_the_sign_of_zero(call, dtype):
    # outer, kron and tensordot(dims=0) are products with nothing summed:
    # PyTorch computes them elementwise, so -0.0 * x stays -0.0, where a GEMM
    # of depth 1 adds each product to a zero (0 + -0.0 is +0.0).
    a = np.array([1.0, -0.0, 0.0, -2.0], dtype)
    b = np.array([0.0, -3.0, -0.0], dtype)
    got = call(tl, tl.tensor(a), tl.tensor(b)).cpu().numpy().ravel()
    want = np.multiply.outer(a, b).ravel()
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
