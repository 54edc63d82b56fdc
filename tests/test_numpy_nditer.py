"""torchlike.numpy.nditer against numpy.nditer on the same data: the same
items in the same order (as tensors), multi_index / c_index / f_index,
broadcasting, orders, external_loop chunks, readwrite / writeonly /
allocate writing the tensors, iternext loops, the with context, errors."""
import numpy
import pytest

import torchlike as tl
import torchlike.numpy as tnp

pytestmark = pytest.mark.host_only  # a Python loop over host views of CPU tensors


def items(it, index=None):
    out = []
    for x in it:
        vals = x if isinstance(x, tuple) else (x,)
        row = [numpy.asarray(v).tolist() for v in vals]
        assert all(isinstance(v, (tl.Tensor, numpy.ndarray)) for v in vals)
        if index:
            row.append(getattr(it, index))
        out.append(row)
    return out


DATA = [numpy.arange(6).reshape(2, 3), numpy.arange(24.0).reshape(2, 3, 4)[:, ::2, 1:],
        numpy.arange(6).reshape(3, 2).T, numpy.array(5.0), numpy.zeros((0, 3))]


@pytest.mark.parametrize("a", DATA, ids=["2d", "strided", "transposed", "0d", "empty"])
@pytest.mark.parametrize("order", ["K", "C", "F"])
@pytest.mark.parametrize("flags,index", [([], None), (["multi_index"], "multi_index"),
                                         (["c_index"], "index"), (["f_index"], "index"),
                                         (["zerosize_ok"], None)])
def test_items_and_indices(a, order, flags, index):
    t = tnp.asarray(a.copy()) if a.ndim < 2 or a.flags.c_contiguous else \
        tnp.asarray(a)  # strided views of the same memory
    try:
        want = items(numpy.nditer(a, flags=flags, order=order), index)
    except ValueError as error:
        with pytest.raises(type(error)):
            items(tnp.nditer(t, flags=flags, order=order), index)
        return
    got = items(tnp.nditer(t, flags=flags, order=order), index)
    assert got == want
    for x in tnp.nditer(t, flags=flags + ["zerosize_ok"], order=order):
        assert isinstance(x, tl.Tensor) and x.ndim == 0


def test_readwrite_writes_the_tensor():
    a = numpy.arange(6.0).reshape(2, 3)
    t = tnp.asarray(a.copy())
    with tnp.nditer(t, op_flags=["readwrite"]) as it:
        for x in it:
            x[...] = 2 * x + 1
    with numpy.nditer(a, op_flags=["readwrite"]) as it:
        for x in it:
            x[...] = 2 * x + 1
    numpy.testing.assert_array_equal(t.numpy(), a)
    # a view: the base is written
    base = tnp.zeros((3, 4))
    with tnp.nditer(base[:, 1], op_flags=["writeonly"]) as it:
        for x in it:
            x[...] = 7.0
    assert base[:, 1].tolist() == [7.0, 7.0, 7.0] and float(base.sum()) == 21.0
    # readonly (the default) refuses
    with pytest.raises(ValueError):
        for x in tnp.nditer(t):
            x[...] = 0


def test_broadcast_and_allocate():
    a = numpy.arange(3.0)
    b = numpy.arange(2.0).reshape(2, 1)
    want_it = numpy.nditer([a, b, None])
    with want_it:
        for x, y, z in want_it:
            z[...] = x * y + x
        want = want_it.operands[2]
    ta, tb = tnp.asarray(a), tnp.asarray(b)
    it = tnp.nditer([ta, tb, None])
    with it:
        assert items(tnp.nditer([ta, tb])) == items(numpy.nditer([a, b]))
        for x, y, z in it:
            z[...] = x * y + x
        ops = it.operands
    assert ops[0] is ta and ops[1] is tb
    assert isinstance(ops[2], tl.Tensor)
    numpy.testing.assert_array_equal(ops[2].numpy(), want)
    # op_dtypes and casting as NumPy's, with torchlike dtypes
    it = tnp.nditer([ta, None], op_flags=[["readonly"], ["writeonly", "allocate"]],
                    op_dtypes=[None, tnp.float32])
    with it:
        for x, y in it:
            y[...] = x
        assert it.operands[1].dtype == tl.float32
        assert it.dtypes == (tl.float64, tl.float32)
    with pytest.raises(ValueError):
        tnp.nditer([tnp.zeros(3), tnp.zeros(2)])
    with pytest.raises(ValueError):
        numpy.nditer([numpy.zeros(3), numpy.zeros(2)])


@pytest.mark.parametrize("order", ["C", "F", "K"])
def test_external_loop_chunks(order):
    a = numpy.arange(12).reshape(3, 4)
    for data in (a, a.T, a[:, ::2]):
        got = [c.tolist() for c in tnp.nditer(tnp.asarray(data), flags=["external_loop"],
                                              order=order)]
        want = [c.tolist() for c in numpy.nditer(data, flags=["external_loop"], order=order)]
        assert got == want
    chunks = list(tnp.nditer(tnp.asarray(a), flags=["external_loop", "buffered"],
                             buffersize=5))
    assert [c.tolist() for c in chunks] == [c.tolist() for c in numpy.nditer(
        a, flags=["external_loop", "buffered"], buffersize=5)]
    assert all(isinstance(c, tl.Tensor) and c.ndim == 1 for c in chunks)


def test_iternext_loop_and_state():
    a = numpy.arange(6).reshape(2, 3)
    it = tnp.nditer(tnp.asarray(a), flags=["multi_index"])
    theirs = numpy.nditer(a, flags=["multi_index"])
    assert it.itersize == theirs.itersize == 6
    assert it.ndim == theirs.ndim == 2 and it.nop == 1 and it.shape == theirs.shape == (2, 3)
    got, want = [], []
    while not it.finished:
        got.append((it.multi_index, int(it[0])))
        it.iternext()
    while not theirs.finished:
        want.append((theirs.multi_index, int(theirs[0])))
        theirs.iternext()
    assert got == want
    it.reset()
    it.multi_index = (1, 1)
    assert int(it.value) == 4
    it.remove_multi_index()
    assert not it.has_multi_index


def test_device_rules():
    t = tnp.arange(3.0)
    t.requires_grad_(True)
    with pytest.raises(TypeError, match="autograd"):
        tnp.nditer(t)
    with pytest.raises(TypeError, match="bfloat16"):
        tnp.nditer(tnp.zeros(2, dtype=tnp.bfloat16))


def test_ndenumerate_ndindex():
    a = numpy.arange(6).reshape(2, 3)
    assert list(tnp.ndindex(2, 3)) == list(numpy.ndindex(2, 3))
    got = [(i, int(v)) for i, v in tnp.ndenumerate(tnp.asarray(a))]
    assert got == [(i, int(v)) for i, v in numpy.ndenumerate(a)]


def test_nested_iters():
    a = numpy.arange(12).reshape(2, 3, 2)
    i, j = tnp.nested_iters(tnp.asarray(a), [[0], [1, 2]], flags=["multi_index"])
    ti, tj = numpy.nested_iters(a, [[0], [1, 2]], flags=["multi_index"])
    got, want = [], []
    for x in i:
        got.append([int(y) for y in j])
    for x in ti:
        want.append([int(y) for y in tj])
    assert got == want
