"""NumPy functions that used to fail on tensors (issue: NumPy code on tensors,
all of it): each runs on tensors, matches NumPy's values and dtypes, and
differentiates (gradcheck against finite differences)."""
import numpy as np
import pytest

import torchlike as tl
from torchlike.autograd import gradcheck

RNG = np.random.default_rng(11)
X = np.array([0.5, 1.5, 2.0, 0.75])
M = RNG.standard_normal((3, 4))

CASES = {
    "einsum_sublist_transpose": lambda m, x, M: m.einsum(M, [0, 1], [1, 0]),
    "einsum_sublist_product": lambda m, x, M: m.einsum(M, [0, 1], M, [2, 1], [0, 2]),
    "einsum_sublist_implicit": lambda m, x, M: m.einsum(M, [0, 1], M, [0, 1]),
    "einsum_sublist_ellipsis": lambda m, x, M: m.einsum(M, [Ellipsis, 1], x, [1]),
    "rad2deg": lambda m, x, M: m.rad2deg(M),
    "deg2rad": lambda m, x, M: m.deg2rad(x),
    "degrees": lambda m, x, M: m.degrees(x),
    "radians": lambda m, x, M: m.radians(M),
    "linspace_tensor_ends": lambda m, x, M: m.linspace(x[0], x[2], 5),
    "linspace_array_ends_axis": lambda m, x, M: m.linspace(M[0], M[1], 3, axis=1),
    "linspace_no_endpoint": lambda m, x, M: m.linspace(x[0], x[2], 4, endpoint=False),
    "linspace_one": lambda m, x, M: m.linspace(x[0], x[2], 1),
    "logspace": lambda m, x, M: m.logspace(x[0], x[1], 4),
    "logspace_base": lambda m, x, M: m.logspace(x[:2], x[2:], 3, base=2.0),
    "geomspace": lambda m, x, M: m.geomspace(x[0], x[2], 4),
    "geomspace_negative": lambda m, x, M: m.geomspace(-x[0], -x[2], 3),
    "vander": lambda m, x, M: m.vander(x, 3),
    "vander_increasing": lambda m, x, M: m.vander(x, increasing=True),
    "insert_scalar": lambda m, x, M: m.insert(x, 1, 5.0),
    "insert_block": lambda m, x, M: m.insert(x, 4, [5.0, 6.0]),
    "insert_sequence": lambda m, x, M: m.insert(x, [2, 0, 2], [7.0, 8.0, 9.0]),
    "insert_axis": lambda m, x, M: m.insert(M, 1, [4.0, 5.0, 6.0], axis=1),
    "insert_axis0_broadcast": lambda m, x, M: m.insert(M, 2, 0.0, axis=0),
    "insert_flat": lambda m, x, M: m.insert(M, -1, 3.0),
    "delete": lambda m, x, M: m.delete(x, 1),
    "delete_axis": lambda m, x, M: m.delete(M, [0, 2], axis=1),
    "delete_slice": lambda m, x, M: m.delete(x, slice(0, 2)),
    "delete_mask": lambda m, x, M: m.delete(x, np.array([True, False, True, False])),
    "block_2x2": lambda m, x, M: m.block([[M, M], [M, M]]),
    "block_1d": lambda m, x, M: m.block([x, x]),
    "block_mixed_ndim": lambda m, x, M: m.block([[M], [x]]),
    "select": lambda m, x, M: m.select([x > 1, x > 0.6], [x, x * 2], 0.0),
    "piecewise": lambda m, x, M: m.piecewise(x, [x < 1, x >= 1], [lambda v: v ** 2,
                                                                  lambda v: 2 * v]),
    "piecewise_otherwise": lambda m, x, M: m.piecewise(x, [x < 1], [lambda v: v ** 2, 3.0]),
    "piecewise_sqrt_guarded": lambda m, x, M: m.piecewise(x - 1, [x - 1 >= 0],
                                                          [m.sqrt, 0.0]),
    "corrcoef": lambda m, x, M: m.corrcoef(M),
    "corrcoef_xy": lambda m, x, M: m.corrcoef(M[0], M[1]),
    "corrcoef_cols": lambda m, x, M: m.corrcoef(M, rowvar=False),
    "real_part": lambda m, x, M: m.real(x + 1j * x ** 2),
    "imag_part": lambda m, x, M: m.imag(M * (1 + 2j)),
    "pow_array_exponent": lambda m, x, M: x ** np.array([0.3, 0.7, 1.0, 2.5]),
    "max_complex": lambda m, x, M: m.real(m.max(M + 1j * M[::-1])),
    "min_complex_axis": lambda m, x, M: m.imag(m.min(M + 1j * M[::-1], axis=1)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_and_dtypes_match_numpy(name):
    f = CASES[name]
    want = f(np, X, M)
    got = f(np, tl.from_numpy(X.copy()), tl.from_numpy(M.copy()))
    assert isinstance(got, tl.Tensor)
    assert got.dtype == want.dtype
    assert got.shape == want.shape
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradients(name):
    f = CASES[name]
    x = tl.from_numpy(X.copy()).requires_grad_()
    m = tl.from_numpy(M.copy()).requires_grad_()
    assert f(np, x, m).requires_grad
    assert gradcheck(lambda x, m: f(np, x, m), (x, m))


def test_partition_keeps_numpys_contract():
    a = RNG.standard_normal((4, 7))
    t = tl.from_numpy(a.copy())
    for kth in (0, 3, -1):
        p = np.asarray(np.partition(t, kth, axis=1))
        k = kth % 7
        np.testing.assert_allclose(p[:, k], np.sort(a, axis=1)[:, k])
        assert (p[:, :k] <= p[:, k:k + 1]).all() and (p[:, k + 1:] >= p[:, k:k + 1]).all()
        idx = np.asarray(np.argpartition(t, kth, axis=1))
        np.testing.assert_allclose(np.take_along_axis(a, idx, 1)[:, k], p[:, k])
    with pytest.raises(ValueError, match="out of bounds"):
        np.partition(t, 7, axis=1)


def test_complex_max_min_order_like_numpy():
    z = np.array([[1 + 2j, 3 - 1j, 3 + 5j], [np.nan + 0j, 0, 1]])
    t = tl.from_numpy(z.copy())
    for call in (lambda m, a: m.max(a), lambda m, a: m.min(a[:1]),
                 lambda m, a: m.max(a, axis=1), lambda m, a: m.min(a, axis=0, keepdims=True)):
        np.testing.assert_array_equal(np.asarray(call(np, t)), call(np, z))


def test_errors_name_the_argument():
    x = tl.from_numpy(X.copy())
    with pytest.raises(ValueError, match="subscript"):
        np.einsum(x, [60])
    with pytest.raises(TypeError, match="argument 1 must be a list"):
        np.einsum(x, None, x)
    with pytest.raises(IndexError, match="out of bounds"):
        np.delete(x, 9)
    with pytest.raises(ValueError, match="same length"):
        np.select([x > 0], [x, x])
    with pytest.raises(ValueError, match="Geometric sequence cannot include zero"):
        np.geomspace(x[0] * 0, x[1], 3)


def test_torchlike_rad2deg_follows_pytorch():
    t = tl.tensor([1, 2])
    assert tl.rad2deg(t).dtype == tl.float32          # integers: the default float
    np.testing.assert_allclose(np.asarray(t.deg2rad().cpu()), np.deg2rad([1, 2]), rtol=1e-6)
    with pytest.raises(RuntimeError, match="complex"):
        tl.rad2deg(tl.tensor([1j]))


def test_lists_of_grad_tensors_say_what_works():
    """NumPy converts a list's elements itself (no __array_function__ call), so
    np.array([t1, t2]) cannot be recorded; the error names the spelling that can."""
    a = tl.ones(2, requires_grad=True)
    b = tl.ones(2, requires_grad=True)
    for call in (lambda: np.array([a, b]), lambda: np.mean([a, b]), lambda: np.sum([a, b])):
        with pytest.raises(RuntimeError, match="np.stack"):
            call()
    np.mean(np.stack([a, b])).backward()
    np.testing.assert_allclose(np.asarray(a.grad.cpu()), [0.25, 0.25])
    if a.is_cpu:  # host memory only: a device tensor is not NumPy's to read
        with tl.no_grad():  # nothing to record: NumPy may take the memory
            np.testing.assert_array_equal(np.array([a, b]), np.ones((2, 2)))


@pytest.mark.parametrize("uplo", ["L", "U"])
def test_numpy_eigh_reads_one_triangle(uplo):
    """np.linalg.eigh follows NumPy: only the triangle named by UPLO is read, so
    the other triangle's gradient is zero; torchlike.linalg.eigh keeps
    PyTorch's symmetric gradient."""
    a = np.array([[2.0, 5.0, 0.5], [1.0, 3.0, -1.0], [0.25, 2.0, 1.0]])
    t = tl.from_numpy(a.copy()).requires_grad_()
    w, v = np.linalg.eigh(t, UPLO=uplo)
    np.testing.assert_allclose(np.asarray(w.detach()), np.linalg.eigh(a, UPLO=uplo)[0])
    np.testing.assert_allclose(np.asarray(np.linalg.eigvalsh(t, UPLO=uplo).detach()),
                               np.linalg.eigvalsh(a, UPLO=uplo))
    w[-1].backward()
    g = np.asarray(t.grad)
    unread = np.triu(g, 1) if uplo == "L" else np.tril(g, -1)
    assert np.all(unread == 0)
    assert gradcheck(lambda x: np.linalg.eigh(x, UPLO=uplo)[0], (t,))
    s = tl.from_numpy(a.copy()).requires_grad_()
    tl.linalg.eigh(s)[0][-1].backward()
    np.testing.assert_allclose(np.asarray(s.grad), np.asarray(s.grad).T)


def test_numpy_cholesky_reads_one_triangle():
    a = np.array([[4.0, 9.0, 0.5], [1.0, 3.0, -1.0], [0.25, 0.5, 2.0]])
    t = tl.from_numpy(a.copy()).requires_grad_()
    np.testing.assert_allclose(np.asarray(np.linalg.cholesky(t).detach()),
                               np.linalg.cholesky(a))
    assert gradcheck(np.linalg.cholesky, (t,))
    np.linalg.cholesky(t).sum().backward()
    assert np.all(np.triu(np.asarray(t.grad), 1) == 0)
