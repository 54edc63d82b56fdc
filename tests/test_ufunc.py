"""NumPy ufuncs on tensors (NEP 13): results are tensors with NumPy's values.

Every NumPy ufunc is called once on float64 tensors and once on the same
ndarrays; the tensor result must hold NumPy's values.  Mapped ufuncs run
torchlike ops, the rest run NumPy on zero-copy views (checked separately)."""
import re

import numpy as np
import pytest

import torchlike as tl
import torchlike.numpy as tnp
from oracle import TEST_DEVICE, assert_close, numpy_or_refused

UFUNCS = sorted(n for n in dir(np) if isinstance(getattr(np, n), np.ufunc))
# Needing inputs the float64 sample below cannot give, or not defined on floats.
NOT_FOR_FLOATS = {"bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "bitwise_invert",
                  "bitwise_count", "invert", "left_shift", "right_shift", "bitwise_left_shift",
                  "bitwise_right_shift", "gcd", "lcm", "isnat", "ldexp", "matvec", "vecmat",
                  "vecdot", "matmul"}


def sample(nin):
    rng = np.random.default_rng(nin)
    return [rng.uniform(0.1, 0.9, size=(3, 4)) for _ in range(nin)]


@pytest.mark.parametrize("name", [n for n in UFUNCS if n not in NOT_FOR_FLOATS])
def test_ufunc_call_on_tensors_matches_numpy(name):
    ufunc = getattr(np, name)
    arrays = sample(ufunc.nin)
    with np.errstate(all="ignore"):
        expected = ufunc(*arrays)
        got = numpy_or_refused(lambda: ufunc(*[tl.tensor(a) for a in arrays]), f"numpy.{name}")
    if got is None:
        return
    if ufunc.nout == 1:
        expected, got = (expected,), (got,)
    for g, e in zip(got, expected):
        assert isinstance(g, tl.Tensor), f"np.{name} returned {type(g)}"
        assert_close(g, e, check_dtype=False, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", ["bitwise_and", "bitwise_or", "bitwise_xor", "invert",
                                  "left_shift", "right_shift", "gcd", "lcm"])
def test_integer_ufuncs_match_numpy(name):
    ufunc = getattr(np, name)
    arrays = [np.arange(1, 13, dtype=np.int32).reshape(3, 4) + i for i in range(ufunc.nin)]
    expected = ufunc(*arrays)
    got = numpy_or_refused(lambda: ufunc(*[tl.tensor(a) for a in arrays]), f"numpy.{name}")
    if got is not None:
        assert_close(got, expected)


@pytest.mark.host_only  # ndarrays live on the host
def test_mixed_ndarray_and_tensor_operands_give_tensors():
    a = np.arange(4.0)
    t = tl.arange(4.0, dtype=tl.float64)
    for result in (a + t, t + a, np.add(a, t), np.multiply(t, 2), a < t):
        assert isinstance(result, tl.Tensor)


@pytest.mark.skipif(not TEST_DEVICE, reason="host data meets device tensors")
def test_ndarrays_and_device_tensors_do_not_mix():
    # CuPy's rule: no implicit host-to-device copy of an ndarray operand, mask
    # or out=; Python scalars and lists are small host values and are copied.
    a = np.arange(4.0)
    t = tl.arange(4.0, dtype=tl.float64)
    for call in (lambda: np.add(a, t), lambda: a < t, lambda: np.multiply(t, 2, out=a),
                 lambda: np.add(t, 1, out=tl.zeros(4, dtype=tl.float64), where=a > 0),
                 lambda: np.concatenate([a, t])):
        with pytest.raises(TypeError, match="host"):
            call()
    assert_close(np.add(t, [1.0, 2.0, 3.0, 4.0]), np.arange(4.0) + np.arange(1.0, 5.0))
    assert str(np.maximum(t, 2).device) == str(t.device)


@pytest.mark.skipif(not TEST_DEVICE, reason="needs a default device other than the CPU")
def test_ndarray_operands_of_cpu_tensors_stay_on_the_cpu():
    # With a device as the default, an ndarray operand once became a tensor
    # there: the forward ran, and the backward met two devices.
    x = tl.tensor([1.5, 2.0], dtype=tl.float64, device="cpu").requires_grad_()
    for y in (np.power(x, np.asarray(3)), np.emath.power(x, 3), np.add(np.ones(2), x)):
        assert y.device.type == "cpu"
        (g,) = tl.autograd.grad(y.sum(), [x])
        assert g.device.type == "cpu"
    assert_close(np.power(x, np.asarray(3)).detach(), np.array([1.5, 2.0]) ** 3)


def test_out_argument_writes_in_place():
    t = tl.arange(4.0)
    out = tl.zeros(4)
    assert np.add(t, 1, out=out) is out
    assert out.tolist() == [1.0, 2.0, 3.0, 4.0]


@pytest.mark.parametrize("ufunc", [np.exp, np.sqrt, np.negative])
def test_out_argument_on_the_fast_path_answers_as_the_first_call(ufunc):
    """The first call of a ufunc takes the Python path and enables the C one
    (py_ufunc.c), which serves out=(tensor,) too: both answer alike."""
    x = tl.arange(1.0, 5.0)
    first, second = tl.zeros(4), tl.zeros(4)
    assert ufunc(x, out=first) is first
    assert ufunc(x, out=second) is second
    assert second.tolist() == first.tolist()
    assert_close(second, ufunc(np.arange(1.0, 5.0, dtype=np.float32)))
    ints = tl.zeros(4, dtype=tl.int64)
    for _ in range(2):  # a float result into an int64 out= is refused both times, as NumPy words it
        with pytest.raises(TypeError) as caught:
            ufunc(x, out=ints)
        with pytest.raises(TypeError) as numpy_says:
            ufunc(np.arange(1.0, 5.0, dtype=np.float32), out=np.zeros(4, dtype=np.int64))
        assert str(caught.value) == str(numpy_says.value)


def test_binary_out_argument_on_the_fast_path():
    a, b = tl.arange(4.0), tl.full((4,), 2.0)
    outs = [tl.empty(4), tl.empty(4)]
    assert [np.multiply(a, b, out=o) is o for o in outs] == [True, True]
    assert outs[0].tolist() == outs[1].tolist() == [0.0, 2.0, 4.0, 6.0]
    assert np.add(a, 1.5, out=(outs[0],)) is outs[0] and outs[0].tolist() == [1.5, 2.5, 3.5, 4.5]
    leaf = tl.ones(4, requires_grad=True)
    for _ in range(2):  # autograd refuses out= as in PyTorch, on either path
        with pytest.raises(RuntimeError, match="out="):
            np.multiply(leaf, b, out=tl.empty(4))


@pytest.mark.parametrize("call", ["first", "fast"])
def test_out_larger_than_the_operands_gets_them_broadcast(call):
    """NumPy broadcasts a ufunc's operands to a larger out= (np.add(row, 1,
    out=table) fills every row); the op refused it ("output with shape [2, 3]
    doesn't match the broadcast shape [3]"), on the C fast path too."""
    row, col = tl.arange(3.0, dtype=tl.float64), tl.tensor([[10.0], [20.0]], dtype=tl.float64)
    if call == "fast":  # a first call enables the C path for these ufuncs
        np.add(row, row), np.exp(row), np.multiply(row, row)
    table = tl.zeros(2, 3, dtype=tl.float64)
    assert np.add(row, 1.0, out=table) is table
    assert_close(table, np.add(np.arange(3.0), 1.0, out=np.zeros((2, 3))))
    assert np.exp(row, out=(table,)) is table
    assert_close(table, np.exp(np.arange(3.0), out=np.zeros((2, 3))))
    cube = tl.zeros(4, 2, 3, dtype=tl.float64)
    np.multiply(row, col, out=cube)
    assert_close(cube, np.multiply(np.arange(3.0), [[10.0], [20.0]], out=np.zeros((4, 2, 3))))
    masked = tl.full((2, 3), -1.0, dtype=tl.float64)
    np.add(row, 1.0, out=masked, where=tl.tensor([True, False, True]))
    assert masked.tolist() == [[1.0, -1.0, 3.0]] * 2
    # an out= the operands cannot fill, and one smaller than theirs: NumPy's errors
    with pytest.raises(ValueError, match=re.escape(
            "operands could not be broadcast together with shapes (3,) (3,) (2,4)")):
        np.add(row, row, out=tl.zeros(2, 4, dtype=tl.float64))
    with pytest.raises(ValueError, match=re.escape(
            "non-broadcastable output operand with shape (3,) doesn't match the broadcast "
            "shape (2,3)")):
        np.add(row, col, out=tl.zeros(3, dtype=tl.float64))


_OUT_SHAPES = [((3,), (), (4,)), ((3, 4), (2, 3, 4), (3, 4)), ((1, 4), (3, 1), (3, 4)),
               ((4,), (), (3, 4)), ((2, 1, 4), (), (3, 4)), ((4,), (4,), (0, 4)),
               ((3, 4), (3, 4), (3, 4))]


def _outcome(fn):
    try:
        return "ok", tuple(fn().shape)
    except ValueError as error:
        return "ValueError", str(error).strip()


@pytest.mark.parametrize("call", ["first", "fast"])
@pytest.mark.parametrize("lib", ["numpy", "namespace"])
@pytest.mark.parametrize("shapes", _OUT_SHAPES, ids=str)
def test_out_shape_follows_numpys_rule_and_words(shapes, lib, call):
    """One rule (_ufunc.out_broadcast, with the C fast path's first test)
    answers np.add on tensors and the namespace's functions alike: a larger
    out is filled, an out the operands cannot fill or one smaller than their
    broadcast is NumPy's ValueError in its words (the op's RuntimeError
    "output with shape [3, 4] doesn't match the broadcast shape [2, 3, 4]"
    came out of np.add on tensors)."""
    a, b, o = shapes
    if call == "fast":
        np.add(tl.ones(2), tl.ones(2)), np.hypot(tl.ones(2), tl.ones(2))
    host = tnp if lib == "namespace" else np
    for name in ("add", "hypot"):
        want = _outcome(lambda: getattr(np, name)(np.ones(a), np.ones(b), out=np.zeros(o)))
        x, y, out = tl.ones(a, dtype=tl.float64), tl.ones(b, dtype=tl.float64), tl.zeros(
            o, dtype=tl.float64)
        got = _outcome(lambda: getattr(host, name)(x, y, out=out))
        assert got == want, (name, shapes)
        if got[0] == "ok":
            assert_close(out, getattr(np, name)(np.ones(a), np.ones(b), out=np.zeros(o)))


def test_namespace_ufuncs_write_an_ndarray_out():
    """torchlike.numpy's ufunc functions take an ndarray out= for CPU tensors,
    as numpy's own ufuncs and np.sum do (np.exp(t, out=buf) raised "argument
    'out' must be Tensor"): the result is written into it, cast to its dtype,
    broadcast to its shape, and it is handed back.  A device's tensors are
    refused with the device named (host memory), as numpy.exp's are."""
    import torchlike.numpy as tnp
    buf = np.zeros(3)
    if TEST_DEVICE:
        device = str(tnp.ones(1).device)
        for call in (lambda: tnp.exp(tnp.ones(3), out=buf),
                     lambda: tnp.add(tnp.ones(3), 1.0, out=(buf,))):
            with pytest.raises(TypeError, match=f"out= is an ndarray.*{device}"):
                call()
        return
    assert tnp.exp(tnp.ones(3), out=buf) is buf
    # our exp's last bit may be the vector math library's (AVX2), not NumPy's
    np.testing.assert_array_max_ulp(buf, np.exp(np.ones(3)), maxulp=2)
    table = np.zeros((2, 3))
    assert tnp.add(tnp.ones(3), tnp.arange(3.0), table) is table
    np.testing.assert_array_equal(table, np.add(np.ones(3), np.arange(3.0), out=np.zeros((2, 3))))
    f32 = np.zeros(3, dtype=np.float32)
    assert tnp.multiply(tnp.arange(3), 2, out=(f32,)) is f32 and f32.tolist() == [0.0, 2.0, 4.0]
    with pytest.raises(RuntimeError, match="requires grad"):
        tnp.exp(tl.ones(3, requires_grad=True), out=np.zeros(3))


@pytest.mark.host_only  # an ndarray out=, and NumPy's own bitwise_count on host views
def test_out_argument_ndarray_and_fallback():
    t = tl.arange(4.0)
    nd_out = np.zeros(4, dtype=np.float32)
    assert np.multiply(t, 2, out=nd_out) is nd_out
    assert nd_out.tolist() == [0.0, 2.0, 4.0, 6.0]
    count_out = tl.zeros(4, dtype=tl.uint8)
    assert np.bitwise_count(t.long(), out=count_out) is count_out  # a fallback ufunc, out= kept
    assert count_out.tolist() == [0, 1, 1, 2]


def test_dtype_argument():
    t = tl.arange(3, dtype=tl.int32)
    assert np.add(t, 1, dtype=np.float64).dtype is tl.float64


def test_outer_matches_numpy():
    a, b = np.arange(3.0), np.arange(4.0)
    assert_close(np.subtract.outer(tl.tensor(a), tl.tensor(b)), np.subtract.outer(a, b))


def test_at_writes_through_the_tensor():
    # host: NumPy itself on the zero-copy view; device: an accumulating index_put
    t = tl.zeros(3, dtype=tl.float64)
    np.add.at(t, [0, 0, 2], 1.0)
    assert t.tolist() == [2.0, 0.0, 1.0]


AT_CASES = [  # (ufunc, a, indices, b or None): repeated indices, 2-d indices, casts into a
    (np.negative, np.arange(5.0), [0, 2, 2], None),
    (np.sqrt, np.arange(5.0), [4, 4, 1], None),
    (np.logical_not, np.zeros(3, dtype=bool), [0, 0, 1], None),
    (np.divide, np.arange(5.0) + 1, [0, 2, 2, 2], np.array([2.0, 4.0, 8.0, 0.5])),
    (np.divide, np.arange(3), [0, 1, 1], 2),              # int a: each quotient truncated
    (np.power, np.arange(3.0), [1, 1, 2], np.array([2.0, 3.0, 0.5])),
    (np.floor_divide, np.array([17, 5]), [0, 0], 2),
    (np.bitwise_or, np.arange(5), [1, 1, 3], np.array([2, 4, 8])),
    (np.left_shift, np.array([1, 1], dtype=np.uint8), [0, 0, 0], 3),
    (np.fmod, np.array([100.0, 50.0]), [0, 0, 1], np.array([7.0, 5.0, 3.0])),
    (np.negative, np.arange(6.0).reshape(2, 3), (np.array([0, 1, 1]), np.array([2, 0, 0])),
     None),
    (np.true_divide, np.ones((2, 3)), (slice(None), [1, 1]), 4.0),
]


@pytest.mark.parametrize("case", range(len(AT_CASES)))
def test_at_applies_every_ufunc_once_per_index_in_order(case):
    # NumPy's unbuffered at: a repeated index works on its earlier result; on
    # a device (and when recorded) the occurrences are applied in rounds
    ufunc, a, indices, b = AT_CASES[case]
    want = a.copy()
    args = () if b is None else (b,)
    ufunc.at(want, indices, *args)
    t = tl.tensor(a)
    assert ufunc.at(t, indices, *(tl.tensor(x) if isinstance(x, np.ndarray) else x
                                  for x in args)) is None
    assert_close(t, want)


@pytest.mark.parametrize("ufunc", [np.add, np.maximum, np.divide])
def test_at_values_that_do_not_broadcast_raise_numpys_error(ufunc):
    for values in (np.array([[2.0], [4.0]]), np.array([2.0, 4.0, 5.0])):
        with pytest.raises(ValueError, match="not broadcastable"):
            ufunc.at(np.ones(2), [0, 0], values)
        with pytest.raises(ValueError, match="not broadcastable"):
            ufunc.at(tl.ones(2, dtype=tl.float64), [0, 0], tl.tensor(values))


def test_at_of_other_ufuncs_records_the_gradient():
    from torchlike.autograd import gradcheck
    x = tl.tensor([1.5, 2.0, 0.5, 3.0], dtype=tl.float64, requires_grad=True)
    b = tl.tensor([2.0, 0.5, 3.0], dtype=tl.float64, requires_grad=True)

    def divided(x, b):
        y = x * 1
        np.divide.at(y, [1, 1, 3], b)
        np.negative.at(y, [0, 3])
        return y
    assert gradcheck(divided, [x, b])
    y = divided(x, b)
    assert y.grad_fn is not None
    assert_close(y.detach(), [-1.5, 2.0, 0.5, -1.0])  # 2 / 2 / 0.5; -(3 / 3)


def test_reduceat_and_outer_take_dtype_and_out():
    a = np.arange(12).reshape(3, 4)
    t = tl.tensor(a)
    for ufunc, kw in ((np.add, {"dtype": np.float64}), (np.add, {"dtype": np.int8}),
                      (np.multiply, {"dtype": np.float32}), (np.maximum, {"dtype": np.float64}),
                      (np.minimum, {"dtype": np.float32})):
        assert_close(ufunc.reduceat(t, [0, 2, 2], axis=1, **kw),
                     ufunc.reduceat(a, [0, 2, 2], axis=1, **kw))
        assert_close(ufunc.outer(t[0], t[1, :2], **kw), ufunc.outer(a[0], a[1, :2], **kw))
    # maximum/minimum compute in dtype=: the data cast first, unsafely, as NumPy's reductions
    assert_close(np.maximum.reduceat(t.double() + 0.5, [0, 1], axis=1, dtype=np.int64),
                 np.maximum.reduceat(a + 0.5, [0, 1], axis=1, dtype=np.int64))
    assert_close(np.minimum.reduce(t.double() + 0.5, axis=0, dtype=np.int32, keepdims=True),
                 np.minimum.reduce(a + 0.5, axis=0, dtype=np.int32, keepdims=True))
    assert_close(np.maximum.accumulate(t[::-1].double() - 0.5, axis=1, dtype=np.int64),
                 np.maximum.accumulate(a[::-1] - 0.5, axis=1, dtype=np.int64))
    out = tl.zeros(2, dtype=tl.float64)
    assert np.add.reduceat(t[0].double(), [0, 2], out=out) is out
    assert_close(out, np.add.reduceat(a[0].astype(float), [0, 2]))
    with pytest.raises(ValueError):  # NumPy's: out= of another shape
        np.add.reduceat(t[0].double(), [0, 2], out=tl.zeros(3, dtype=tl.float64))
    with pytest.raises(TypeError, match="Cannot cast ufunc 'add' input 0"):
        np.add.outer(t[0].double(), t[1].double(), dtype=np.int64)  # NumPy's same_kind
    # a comparison's dtype= is its output's: the inputs are not cast to bool
    assert_close(np.equal.outer(t[0], t[1, :2], dtype=bool),
                 np.equal.outer(a[0], a[1, :2], dtype=bool))
    assert_close(np.less(t[0], t[1] - 5, dtype=bool), np.less(a[0], a[1] - 5, dtype=bool))
    with pytest.raises(TypeError, match="No loop matching"):
        np.equal(t[0], t[1], dtype=np.int64)


FOLD_CASES = [  # (ufunc, method, data, axis): ufuncs NumPy folds left, one step at a time
    (np.power, "accumulate", np.array([2.0, 3.0, 0.5]), 0),
    (np.power, "reduce", np.array([2, 3, 2]), 0),
    (np.hypot, "accumulate", np.array([3.0, 4.0, 12.0]), 0),
    (np.remainder, "accumulate", np.array([100, 30, 7]), 0),
    (np.floor_divide, "reduce", np.array([[100.0, 3.0, 2.0], [9.0, 2.0, 2.0]]), 1),
    (np.left_shift, "reduce", np.array([1, 2, 3]), None),
    (np.not_equal, "accumulate", np.array([True, False, False, True]), 0),
    (np.arctan2, "accumulate", np.arange(1.0, 7.0).reshape(2, 3), 0),
    (np.power, "accumulate", np.zeros((2, 0)), 1),
]


@pytest.mark.parametrize("case", range(len(FOLD_CASES)))
def test_folds_of_other_ufuncs_match_numpy(case):
    # host tensors run NumPy's loop; device tensors (and recorded ones) fold
    ufunc, method, a, axis = FOLD_CASES[case]
    assert_close(getattr(ufunc, method)(tl.tensor(a), axis=axis),
                 getattr(ufunc, method)(a, axis=axis))


def test_folds_of_other_ufuncs_record_and_raise_numpys_errors():
    from torchlike.autograd import gradcheck
    x = tl.tensor([[1.5, 2.0, 0.5], [1.2, 0.7, 2.5]], dtype=tl.float64, requires_grad=True)
    assert gradcheck(lambda t: np.power.accumulate(t, axis=1), [x])
    assert gradcheck(lambda t: np.power.reduce(t, axis=0, keepdims=True), [x])
    assert np.power.reduce(x, axis=1).grad_fn is not None
    with pytest.raises(ValueError, match="not reorderable"):
        np.power.reduce(x, axis=None)
    with pytest.raises(ValueError, match="accumulate does not allow multiple axes"):
        np.power.accumulate(x, axis=None)
    with pytest.raises(ValueError, match="zero-size array to reduction operation power"):
        np.power.reduce(x[:, :0], axis=1)


@pytest.mark.host_only  # NumPy itself on host views
def test_fallback_results_share_nothing_unexpected():
    t = tl.tensor([3, -1], dtype=tl.int64)
    r = np.bitwise_count(t)  # no torchlike op: NumPy runs on a zero-copy view
    assert isinstance(r, tl.Tensor) and r.dtype is tl.uint8 and r.tolist() == [2, 1]
    assert t.tolist() == [3, -1]


@pytest.mark.parametrize("name", ["add", "multiply", "maximum", "minimum"])
@pytest.mark.parametrize("axis", [0, 1, None, (0, 1)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_ufunc_reduce_matches_numpy(name, axis, keepdims):
    a = np.random.default_rng(3).uniform(0.5, 1.5, size=(3, 4))
    ufunc = getattr(np, name)
    expected = ufunc.reduce(a, axis=axis, keepdims=keepdims)
    got = ufunc.reduce(tl.tensor(a), axis=axis, keepdims=keepdims)
    assert_close(got, np.asarray(expected))


@pytest.mark.parametrize("name", ["logical_and", "logical_or"])
def test_logical_reduce_matches_numpy(name):
    a = np.array([[True, False, True], [True, True, True]])
    ufunc = getattr(np, name)
    for axis in (0, 1, None):
        assert_close(ufunc.reduce(tl.tensor(a), axis=axis),
                     np.asarray(ufunc.reduce(a, axis=axis)))


@pytest.mark.parametrize("name", ["add", "multiply"])
@pytest.mark.parametrize("axis", [0, 1])
def test_ufunc_accumulate_matches_numpy(name, axis):
    a = np.random.default_rng(4).uniform(0.5, 1.5, size=(3, 4))
    ufunc = getattr(np, name)
    assert_close(ufunc.accumulate(tl.tensor(a), axis=axis), ufunc.accumulate(a, axis=axis))


@pytest.mark.host_only  # NumPy itself on host views
def test_reduce_without_an_op_falls_back_to_numpy():
    a = np.arange(1.0, 7.0).reshape(2, 3)
    got = np.subtract.reduce(tl.tensor(a), axis=1)
    assert_close(got, np.subtract.reduce(a, axis=1))


def test_offhost_device_finds_the_first_tensor_off_the_cpu():
    # what every NumPy call on tensors asks first (_array_function, _ufunc)
    tl._C._fake_enable()
    cpu, fake = tl.ones(2, device="cpu"), tl.ones(2, device="cpu").to("fake")
    find = tl._C._offhost_device
    assert find((cpu, 1.0, [cpu, (cpu,)]), {"axis": 0, "out": (cpu,)}) is None
    assert str(find((cpu, [1, (2, fake)]), None)) == "fake:0"
    assert str(find((cpu,), {"where": cpu, "out": (fake,)})) == "fake:0"
    deep = [fake]
    for _ in range(100000):
        deep = [deep]
    with pytest.raises(RecursionError):
        find((deep,), None)
    with pytest.raises(TypeError, match="_offhost_device"):
        find([cpu], None)


GUFUNC_AXES = [
    ("matmul axes", lambda a, b: np.matmul(a, b, axes=[(1, 2), (0, 1), (0, 2)])),
    ("matmul axes, output moved", lambda a, b: np.matmul(a[0].T, b[:, :, 0].T,
                                                         axes=[(1, 0), (1, 0), (0, 1)])),
    ("vecdot axis", lambda a, b: np.vecdot(a, b.transpose(2, 1, 0), axis=1)),
    ("vecdot axes", lambda a, b: np.vecdot(a, b.transpose(2, 1, 0), axes=[-2, 1])),
    ("matvec axes", lambda a, b: np.matvec(a, b[:, 0, 0], axes=[(0, 2), 0, 0])),
]


@pytest.mark.parametrize("name, call", GUFUNC_AXES, ids=[c[0] for c in GUFUNC_AXES])
def test_gufunc_axes_and_axis_are_numpys(name, call):
    """np.matmul/np.vecdot/np.matvec with axes= or axis= dropped the keyword
    silently (np.matmul(a, b, axes=...) was a @ b); the core axes are moved
    last for the call and the output's moved where axes= puts them.  A
    keyword without an implementation here (a gufunc's keepdims=) goes on to
    NumPy rather than being dropped."""
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((2, 3, 4)), rng.standard_normal((4, 3, 2))
    want = call(a, b)
    ta = tl.tensor(a, requires_grad=True)
    got = call(ta, tl.tensor(b))
    assert tuple(got.shape) == want.shape
    assert_close(got.detach(), want, rtol=1e-12)
    assert tl.autograd.gradcheck(lambda t: call(t, tl.tensor(b)), [ta])


def test_gufunc_axes_errors_are_numpys():
    a = tl.tensor(np.ones((2, 3)))
    with pytest.raises(TypeError, match="cannot specify both 'axis' and 'axes'"):
        np.vecdot(a, a, axis=0, axes=[0, 0])
    with pytest.raises(TypeError, match="axis can only be used with a single shared core"):
        np.matmul(a, a.T, axis=0)
    with pytest.raises(TypeError, match="add\\(\\) got an unexpected keyword argument 'keepdims'"):
        np.add(a, a, keepdims=True)


_GUFUNC_OUTS = [("matmul", (3, 4), (4, 5), (2, 3, 5)), ("matmul", (1, 4), (4, 5), (3, 5)),
                ("matmul", (3, 4), (4, 5), (2, 3, 6)), ("matmul", (4,), (4, 5), (2, 1, 5)),
                ("matmul", (4,), (4,), (2,)), ("matmul", (3, 4), (4, 5), (5,)),
                ("matmul", (2, 3, 4), (4, 5), (3, 3, 5)), ("matvec", (3, 4), (4,), (2, 3)),
                ("matvec", (3, 4), (4,), (2, 2)), ("vecmat", (4,), (4, 3), (2, 3)),
                ("vecdot", (3, 4), (4,), (2, 3)), ("vecdot", (3, 4), (4,), (2, 1)),
                ("outer", (3,), (4,), (2, 3, 4)), ("matmul", (2, 4), (4, 3), (2, 3))]


@pytest.mark.parametrize("lib", ["numpy", "namespace"])
@pytest.mark.parametrize("case", _GUFUNC_OUTS, ids=str)
def test_gufunc_out_with_more_loop_dims_is_filled(case, lib):
    """A generalized ufunc's out= may have more loop dims than its operands
    (np.matmul(a, b, out=stack) fills every matrix of the stack), its core
    dims must be the result's: NumPy's values, or its ValueError (the
    namespace refused any out that was not the result's shape)."""
    name, a, b, o = case
    if not hasattr(np, name):
        pytest.skip(f"numpy {np.__version__} has no {name}")
    x, y = np.arange(1.0, 1 + np.prod(a)).reshape(a), np.arange(2.0, 2 + np.prod(b)).reshape(b)
    try:
        want = getattr(np, name)(x, y, out=np.zeros(o))
    except ValueError:
        want = None
    out = tl.zeros(o, dtype=tl.float64)
    call = lambda: getattr(tnp if lib == "namespace" else np, name)(
        tl.tensor(x), tl.tensor(y), out=out)
    if want is None:
        with pytest.raises(ValueError):
            call()
        return
    assert call() is out
    assert_close(out, want)


@pytest.mark.parametrize("lib", ["numpy", "namespace"])
@pytest.mark.parametrize("name", ["sin", "add", "hypot"])
@pytest.mark.parametrize("dtype", ["int32", "float32"])
def test_out_of_the_wrong_shape_and_dtype_is_refused_for_its_dtype_first(name, lib, dtype):
    # NumPy checks out's dtype before its shape; np.sin on tensors checked the shape first
    args = [np.ones(3)] * getattr(np, name).nin
    try:
        getattr(np, name)(*args, out=np.zeros(4, dtype))
    except (TypeError, ValueError) as error:
        want = type(error)
    host = tnp if lib == "namespace" else np
    with pytest.raises(want if want is ValueError else TypeError) as got:
        getattr(host, name)(*[tl.tensor(a) for a in args],
                            out=tl.zeros(4, dtype=getattr(tl, dtype)))
    assert isinstance(got.value, ValueError) == issubclass(want, ValueError)
