"""More NumPy programs, of kinds tests/test_numpy_programs.py does not cover
(fitting and integration of integer data, array methods with NumPy's
keywords, printing, casting rules, ...), run once with NumPy and once with
``torchlike.numpy``; NumPy is the oracle for values, dtypes and shapes.
Each program is a function of the namespace ``np`` returning its results
(docs/numpy.md, "NumPy programs")."""
import threading

import numpy
import pytest

import torchlike
import torchlike.numpy as tnp
from test_numpy_programs import _run, _same


# ---- NumPy's Python code computes with NumPy's float64 default ------------------

def integer_fits(np):
    """Integer measurements fitted and integrated: NumPy's polyfit adds 0.0
    to its integer input and trapezoid divides by 2.0, both float64 in NumPy
    (its code runs on tensors here, with PyTorch's float32 default before)."""
    t = np.arange(6)
    counts = np.asarray([1, 3, 6, 10, 15, 21])
    grid = np.asarray([[1, 4, 2, 8], [3, 3, 5, 1], [0, 2, 9, 4]])
    coef = np.polyfit(t, counts, 2)
    return (coef, np.polyval(coef, t), np.trapezoid(counts), np.trapezoid(counts, dx=2),
            np.trapezoid(grid, axis=0), np.trapezoid(grid[:, ::2], x=np.arange(2)),
            np.trapezoid(counts, t), np.cov(grid), np.corrcoef(grid[:, 1:]))


def test_numpys_python_code_promotes_integers_to_float64():
    _run(integer_fits)


def test_the_float64_default_is_local_to_numpys_code_and_its_thread():
    assert torchlike.get_default_dtype() == torchlike.float32
    assert (torchlike.arange(3) / 2).dtype == torchlike.float32
    # the override is restored after a call, and after one that fails
    tnp.polyfit(tnp.arange(4), tnp.arange(4), 1)
    with pytest.raises(Exception):
        tnp.polyfit(tnp.arange(4), tnp.arange(3), 1)
    assert (torchlike.arange(3) / 2).dtype == torchlike.float32
    # and another thread keeps the process-wide default meanwhile
    seen = []
    previous = torchlike._C._local_default_dtype(torchlike.float64)
    try:
        assert (torchlike.arange(3) / 2).dtype == torchlike.float64
        worker = threading.Thread(target=lambda: seen.append((torchlike.arange(3) / 2).dtype))
        worker.start()
        worker.join()
    finally:
        torchlike._C._local_default_dtype(previous)
    assert previous is None and seen == [torchlike.float32]
    with pytest.raises(TypeError, match="floating-point"):
        torchlike._C._local_default_dtype(torchlike.int32)


def fibonacci(np):
    """Integer matrix powers stay integers (Fibonacci numbers, path counts)."""
    q = np.asarray([[1, 1], [1, 0]])
    adj = np.asarray([[0, 1, 1], [1, 0, 0], [1, 1, 0]])
    reach = np.asarray([[True, False], [True, True]])
    return (np.linalg.matrix_power(q, 30), np.linalg.matrix_power(adj, 4)[0],
            np.linalg.matrix_power(adj, 0), np.linalg.matrix_power(reach, 3),
            np.linalg.matrix_power(np.asarray([[2, 0], [0, 4]]), -1),
            np.linalg.matrix_power(np.eye(2, dtype=np.float32) * 3, 2))


def test_integer_matrix_powers_keep_their_dtype():
    _run(fibonacci)


# ---- NumPy's keywords on array methods -------------------------------------------

def rankings(np):
    """Stable rankings with the method spellings of NumPy code."""
    scores = np.asarray([3, 1, 2, 3, 1, 0, 2])
    table = np.asarray([[3, 1, 2], [0, 5, 4]])
    return (scores.argsort(kind="stable"), (-scores).argsort(kind="mergesort"),
            table.argsort(axis=None), table.argsort(axis=0, kind="stable"),
            table[:, ::-1].argsort(), scores.argsort().argsort())


def test_argsort_method_takes_numpys_keywords():
    _run(rankings)
    # PyTorch's spelling keeps PyTorch's method
    x = torchlike.tensor([3, 1, 2])
    assert x.argsort(descending=True).tolist() == [0, 2, 1]


def test_inplace_sort_with_axis_none_refuses_as_numpy():
    with pytest.raises(TypeError):
        numpy.arange(4).reshape(2, 2).sort(axis=None)
    t = tnp.arange(4).reshape(2, 2)
    with pytest.raises(TypeError, match="np.sort"):
        t.sort(axis=None)
    assert t.tolist() == [[0, 1], [2, 3]]


def castings(np):
    """astype under each casting rule: what passes, and which rule refuses."""
    f = np.asarray([[1.5, -2.25], [300.0, 7.0]])
    b = np.asarray([0, 200], dtype=np.uint8)
    results = []
    for src, dst in ((f, np.int32), (f, np.float32), (b, np.int8), (b, np.int16),
                     (b, np.float32), (f[:, 0], np.complex64), (f.T, np.float64)):
        for casting in ("no", "equiv", "safe", "same_kind", "unsafe"):
            try:
                results.append(src.astype(dst, casting=casting))
            except TypeError:
                results.append(f"TypeError {casting}")
    results.append(f.astype(np.float32, order="F"))
    return results


def test_astype_follows_the_casting_rule():
    _run(castings)
    with pytest.raises(TypeError, match=r"dtype\('float64'\) to dtype\('int32'\).*'safe'"):
        tnp.ones(2).astype(tnp.int32, casting="safe")
    with pytest.raises(ValueError, match="casting must be one of"):
        tnp.ones(2).astype(tnp.int32, casting="sometimes")
    x = tnp.ones(3)
    assert x.astype(tnp.float64, copy=False) is x
    assert x.astype(tnp.float64) is not x
    assert tnp.ones((2, 3)).astype(tnp.float32, order="F").flags.f_contiguous


# ---- printing the NumPy way ------------------------------------------------------

def reports(np):
    grid = np.arange(6).reshape(2, 3)
    return (np.array_repr(grid), np.array_repr(np.asarray([1.5, 2.0])),
            np.array_repr(np.zeros(2, dtype=np.float32)), np.array_repr(np.asarray([True])),
            np.array_repr(np.asarray(3.0)), np.array_repr(np.arange(3, dtype=np.int8)),
            np.array_repr(grid.T, precision=2), np.array_repr(np.asarray([1 + 2j])),
            np.array_repr(np.linspace(0, 1, 3), max_line_width=10),
            np.array_str(grid[:, 1:]), np.array2string(grid, separator=", "))


def test_array_repr_writes_numpys_text():
    _run(reports)


# ---- bytes read with NumPy's dtype strings ---------------------------------------

def foreign_bytes(np):
    """Bytes written by another machine (big-endian) or a file format, read
    with NumPy's dtype strings: the values NumPy reads, in a native tensor."""
    be16 = numpy.arange(-3, 5, dtype=">i2").tobytes()
    be64 = numpy.linspace(0, 1, 4, dtype=">f8").tobytes()
    le32 = numpy.arange(6, dtype="<f4").tobytes()
    return (np.frombuffer(be16, dtype=">i2"), np.frombuffer(be64, dtype=numpy.dtype(">f8")),
            np.frombuffer(be64, dtype=">f8", count=2, offset=8),
            np.frombuffer(le32, dtype="<f4").reshape(2, 3), np.frombuffer(le32, dtype=np.float32),
            np.frombuffer(be16, dtype="i2"), np.frombuffer(be16, dtype=">i2").astype(np.int64).sum())


def test_frombuffer_reads_numpys_byte_orders():
    e, g = foreign_bytes(numpy), foreign_bytes(tnp)
    # the values as NumPy reads them; the tensors are native-endian
    for i, (want, got) in enumerate(zip(e, g)):
        _same(numpy.asarray(want).astype(numpy.asarray(want).dtype.newbyteorder("=")), got,
              f"foreign_bytes[{i}]")
    for dtype in ("u2", ">u4", "<u8"):  # the unsigned dtypes, either byte order
        _same(numpy.frombuffer(bytes(range(16)), dtype=dtype).astype(
            numpy.dtype(dtype).newbyteorder("=")), tnp.frombuffer(bytes(range(16)), dtype=dtype),
            dtype)


def steps(np):
    return (np.linspace(0, 1, 5, retstep=True), np.linspace(2, 2, 3, retstep=True),
            np.linspace(0, 1j, 3, retstep=True), np.linspace(0, 10, 4, endpoint=False, retstep=True))


def test_linspace_step_is_numpys_scalar():
    _run(steps)
    _, step = tnp.linspace(0, 1, 1, retstep=True)
    assert isinstance(step, float) and step != step   # NumPy's Python nan


# ---- ufunc methods with an array where= -------------------------------------------

def masked_totals(np):
    """Totals over the valid entries only, with the reduce method's where= and
    initial= (a mask array used to be compared elementwise with the default)."""
    sales = np.arange(12).reshape(3, 4)
    valid = sales % 3 != 0
    return (np.add.reduce(sales, axis=1, where=valid), np.add.reduce(sales.ravel(), where=valid.ravel()),
            np.maximum.reduce(sales, axis=0, initial=5), np.add.reduce(sales, axis=0, initial=100),
            np.multiply.reduce(np.arange(1.0, 5.0), where=np.asarray([True, False, True, True])),
            np.add.reduce(sales, axis=0, where=True))


def test_ufunc_reduce_with_a_mask():
    _run(masked_totals)


# ---- a.shape = ... ------------------------------------------------------------------

def reshaped_in_place(np):
    """Old-style NumPy code reshapes by assigning the shape attribute."""
    frames = np.arange(24.0)
    frames.shape = (4, -1)
    column = np.arange(6)
    column.shape = (6, 1)
    flat = np.arange(6).reshape(2, 3)
    flat.shape = 6
    empty = np.zeros(0)
    empty.shape = (3, 0)
    rows = np.arange(12).reshape(3, 4)[:, :2].copy()
    rows.shape = (2, 3)
    errors = []
    for make, shape in ((lambda: np.arange(6), (4,)), (lambda: np.arange(6).reshape(2, 3).T, (6,)),
                        (lambda: np.arange(12)[::2], (2, 3, 1))):
        a = make()
        try:
            a.shape = shape
            errors.append(tuple(a.shape))
        except (ValueError, AttributeError) as error:
            errors.append(type(error).__name__)
    return frames, frames.sum(axis=1), column * np.arange(3), flat, empty, rows, errors


def test_assigning_shape_reshapes_the_view_in_place():
    _run(reshaped_in_place)
    base = tnp.arange(6.0)
    view = base[1:5]
    view.shape = (2, 2)
    view[0, 0] = 100.0
    assert base.tolist() == [0.0, 100.0, 2.0, 3.0, 4.0, 5.0] and view.base is base
    # a recorded reshape: the gradient flows back to the values
    x = torchlike.arange(6.0, requires_grad=True)
    y = x * 2
    y.shape = (2, 3)
    (y * torchlike.tensor([[1.0, 2.0, 3.0]])).sum().backward()
    assert x.grad.tolist() == [2.0, 4.0, 6.0, 2.0, 4.0, 6.0]
    with pytest.raises(AttributeError, match="cannot delete"):
        del y.shape


# ---- fills and the errors programs catch ---------------------------------------------

def fills(np):
    """np.full with array-like and NumPy-scalar fill values (a row pattern, a
    float32 constant kept float32)."""
    return (np.full((3, 2), [1, 2]), np.full((2, 2), numpy.asarray([1.5, 2.0])),
            np.full((2, 2), [[1], [2]], dtype=float), np.full(2, numpy.float32(2)),
            np.full(3, numpy.int8(-2)), np.full(2, numpy.bool_(True)), np.full((), 3),
            np.full_like(np.zeros((2, 2)), [1, 2]), np.full_like(np.zeros((2, 2), dtype=int), [1.5, 2]),
            np.full((2, 3), 5, order="F"), np.full((2, 3), np.arange(3)))


def test_full_takes_array_likes_and_numpy_scalars():
    _run(fills)


def caught_errors(np):
    """Programs catch NumPy's exception classes (LinAlgError is a ValueError):
    which class each mistake raises."""
    cases = [lambda: np.linalg.inv(np.ones((2, 3))), lambda: np.linalg.det(np.ones((3, 2))),
             lambda: np.linalg.eigh(np.ones((2, 3))), lambda: np.linalg.eigvalsh(np.ones((2, 3))),
             lambda: np.linalg.cholesky(np.ones((2, 3))), lambda: np.linalg.eig(np.ones((2, 3))),
             lambda: np.linalg.eigvals(np.ones((1, 2))), lambda: np.linalg.slogdet(np.ones((2, 3))),
             lambda: np.linalg.matrix_power(np.ones((2, 3)), 2),
             lambda: np.linalg.matrix_power(np.ones((2, 3), dtype=int), 2),
             lambda: np.linalg.solve(np.ones((2, 3)), np.ones(2)),
             lambda: np.linalg.solve(np.eye(2), np.ones(3)),
             lambda: np.linalg.solve(np.eye(2), np.ones((3, 1))),
             lambda: np.linalg.lstsq(np.ones((3, 2)), np.ones(4), rcond=None),
             lambda: np.broadcast_to(np.ones(3), (2, 4)), lambda: np.broadcast_to(np.ones(3), (-1, 3)),
             lambda: np.tile(np.ones(2), -1), lambda: np.full((2,), [1, 2, 3]),
             lambda: np.full_like(np.zeros(2), [1, 2, 3]),
             lambda: np.full(2, -1, dtype=np.uint8), lambda: np.full(3, 300, dtype=np.uint8),
             lambda: np.reshape(np.arange(6), (4, 2)), lambda: np.dot(np.ones(3), np.ones(4)),
             lambda: np.dot(np.ones((2, 3)), np.ones((2, 3))), lambda: np.matmul(np.ones(3), np.ones(4)),
             lambda: np.inner(np.ones(3), np.ones(2)),
             lambda: np.tensordot(np.ones((2, 3)), np.ones((2, 3)), axes=1),
             lambda: np.repeat(np.ones(3), [1, 2]), lambda: np.linalg.multi_dot([np.ones(2)]),
             lambda: np.fft.fft(np.ones(3), n=0), lambda: np.fft.fft2(np.ones((2, 2)), s=(0, 2))]
    caught = []
    for case in cases:
        try:
            case()
            caught.append("no error")
        except np.linalg.LinAlgError:
            caught.append("LinAlgError")
        except ValueError:
            caught.append("ValueError")
        except OverflowError:
            caught.append("OverflowError")
    try:
        np.take_along_axis(np.ones((2, 2)), np.zeros((2, 2)), 0)
    except IndexError:
        caught.append("IndexError")
    return (caught, np.linalg.solve(np.eye(2), np.ones(2)), np.linalg.solve(np.eye(2), np.ones((2, 3))),
            np.tri(-1), np.tri(2, -1))


def test_mistakes_raise_numpys_exception_classes():
    _run(caught_errors)


@pytest.mark.host_only  # the buffer protocol: host memory
def test_bytes_of_a_tensor_are_its_memory():
    # bytes(x) asks for an index first and reads the buffer only after a
    # TypeError: a tensor of several elements refuses the index with
    # PyTorch's TypeError (it was a RuntimeError, which bytes() passed on)
    for data in (numpy.arange(5, dtype=numpy.uint8), numpy.arange(6, dtype=numpy.int16).reshape(2, 3),
                 numpy.linspace(0, 1, 3), numpy.zeros(0, dtype=numpy.int64)):
        assert bytes(tnp.asarray(data)) == bytes(data)


def test_index_of_a_tensor_takes_one_integer_element():
    import operator
    for bad in (tnp.arange(3), tnp.zeros(0, dtype=tnp.int64), tnp.asarray(1.5)):
        with pytest.raises(TypeError, match="single element"):
            operator.index(bad)
    assert operator.index(tnp.asarray([2])) == 2


# ---- reduction methods with where=/initial=, diagonal(axis1=, axis2=) ----------------

def stacked_reports(np):
    """Per-matrix traces and masked totals, written with the array methods."""
    stack = np.arange(24.0).reshape(2, 3, 4)
    valid = stack % 5 != 0
    return (stack.diagonal(axis1=1, axis2=2), stack.diagonal(1, axis1=2, axis2=0),
            stack.sum(where=valid), stack.sum(axis=1, keepdims=True, where=valid),
            stack.prod(axis=0, initial=2.0), stack.sum(initial=100), (stack > 3).sum(where=valid),
            stack.any(where=stack > 22), stack.all(axis=2, where=valid),
            stack.astype(np.int8).sum(initial=1), stack.prod(where=stack < 5))


def test_reduction_methods_take_where_and_initial():
    _run(stacked_reports)
    x = torchlike.arange(6.0).reshape(2, 3)   # PyTorch's spellings keep PyTorch's methods
    assert x.sum(1).tolist() == [3.0, 12.0] and x.diagonal(dim1=0, dim2=1).tolist() == [0.0, 4.0]


def lookups(np):
    """Method spellings of NumPy code: bin lookups with a list of values,
    running products over the flattened array, layout-keeping copies."""
    edges = np.asarray([1.0, 3.0, 5.0, 7.0])
    grid = np.arange(1, 7).reshape(2, 3)
    cols = np.arange(6.0).reshape(2, 3).T
    return (edges.searchsorted([2, 6, 7]), edges.searchsorted([2, 6, 7], "right"),
            edges.searchsorted(np.asarray([3.0]), side="right"), edges.searchsorted(4.0),
            edges[::-1].searchsorted([5, 1], sorter=[3, 2, 1, 0]), grid.cumprod(None),
            grid.cumsum(None), grid.cumsum(axis=None), cols.copy(order="K").flags.f_contiguous,
            cols.copy(order="A").flags.f_contiguous, cols.copy().flags.c_contiguous, cols.copy("K"))


def test_searchsorted_cumulative_and_copy_methods_as_numpy():
    _run(lookups)
    x = torchlike.tensor([1.0, 3.0, 5.0])   # PyTorch's spellings keep PyTorch's methods
    assert x.searchsorted(torchlike.tensor([3.0]), right=True).tolist() == [2]
    assert torchlike.arange(4).cumsum(0).tolist() == [0, 1, 3, 6]


# ---- clipping integer data to bounds beyond its dtype -----------------------------------

def saturate(np):
    """Pixel and sensor code clips integer data to bounds written for any
    data: NumPy ignores a bound beyond the dtype's range on its open side
    (np.clip(pixels, -5, 100) gave 100 everywhere: -5 wrapped to 251)."""
    pixels = np.asarray([10, 200, 250], dtype=np.uint8)
    codes = np.asarray([1, 100, -100], dtype=np.int8)
    results = [np.clip(pixels, -5, 100), np.clip(pixels, 0, 300), np.clip(pixels, None, 1000),
               np.clip(pixels, -1, None), np.clip(codes, -200, 50), np.clip(codes, -128, 127),
               np.clip(np.arange(4), -2**70, 2), np.clip(np.arange(3.0), -2**70, 1),
               np.clip(pixels, 100, 50), pixels.clip(-5, 100)]
    for lo, hi in ((300, 400), (-10, -5)):
        try:
            results.append(np.clip(pixels, lo, hi))
        except OverflowError as error:
            results.append(str(error))
    return results


def test_clip_bounds_beyond_the_dtype():
    _run(saturate)
    # PyTorch's clamp has the same rule, with its RuntimeError (checked against PyTorch 2.15)
    u = torchlike.tensor([10, 200, 250], dtype=torchlike.uint8)
    assert u.clamp(-5, 100).tolist() == [10, 100, 100] and u.clamp(max=1000).tolist() == [10, 200, 250]
    assert u.clone().clamp_(-5, 300).tolist() == [10, 200, 250]
    for kwargs, words in (({"min": 300}, "Clamp min value 300 .* Byte"),
                          ({"max": -1}, "Clamp max value -1 .* Byte")):
        with pytest.raises(RuntimeError, match=words):
            u.clamp(**kwargs)
    with pytest.raises(RuntimeError, match="Clamp min value 200 .* Char"):
        torchlike.tensor([1], dtype=torchlike.int8).clamp(min=200)
