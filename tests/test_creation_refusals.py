"""Creation and random sampling refuse impossible calls as each namespace's
own library does.

The torch side (torchlike.zeros, Tensor.new_*, the random draws) raises
PyTorch's exception class in PyTorch's words, recorded by
scripts/golden_creation_refusals.py: a negative size is a RuntimeError
(torch.zeros words it its own way), a byte count past int64 PyTorch's
overflow RuntimeError, and a random draw into a dtype its distribution has
no kernel for is PyTorch's NotImplementedError naming its kernel (or the
exponential and Cauchy distributions' RuntimeError).  The NumPy namespace
calls the same factories and raises what live NumPy raises: ValueError
"negative dimensions are not allowed", or "array is too big" past intp."""
import numpy as np
import pytest

import torchlike as tl
import torchlike.numpy as tnp
from oracle import golden_calls

CALLS, _golden = golden_calls("creation_refusals")

# Calls where ours keep the class and say more than PyTorch's words:
_OUR_WORDS = {
    # PyTorch resizes out= first and trips on the product of sizes; ours refuse the size
    "T.zeros(-1, out=T.empty(0))": "zeros: Dimension size must be non-negative.",
    "T.arange(-1)": "arange(): upper bound -1 and lower bound 0 are inconsistent with the sign "
                    "of step 1",
    # the bounds and the dtype named ("to - 1 is out of bounds for bool")
    "T.randint(0, 5, (3,), dtype=T.bool)": "random_ expects 'from' and 'to' - 1 to be in [0, 1] "
                                           "for dtype bool, but got from=0, to - 1=4",
    "T.randint(0, 300, (3,), dtype=T.uint8)": "random_ expects 'from' and 'to' - 1 to be in "
                                              "[0, 255] for dtype uint8, but got from=0, "
                                              "to - 1=299",
    "T.randint(-1, 2, (3,), dtype=T.uint8)": "random_ expects 'from' and 'to' - 1 to be in "
                                             "[0, 255] for dtype uint8, but got from=-1, "
                                             "to - 1=1",
    "T.randperm(300, dtype=T.int8)": "randperm: int8 cannot hold a permutation of 300 values",
}
# Calls PyTorch answers and ours do not yet: (class, words)
_NOT_YET = {
}


def _outcome(call):
    try:
        return _golden.describe(eval(call, _golden.inputs(tl)))
    except Exception as e:  # noqa: BLE001 - the exception is the answer
        return ["raises", type(e).__name__, str(e).splitlines()[0]]


@pytest.mark.parametrize("call,expected", CALLS, ids=[c for c, _ in CALLS])
def test_refusals_are_pytorchs(call, expected):
    got = _outcome(call)
    if call in _NOT_YET:
        kind, words = _NOT_YET[call]
        assert got == ["raises", kind.__name__, words], (call, got)
    elif call in _OUR_WORDS:
        assert expected[0] == "raises", call
        assert got == ["raises", expected[1], _OUR_WORDS[call]], (call, got, expected)
    else:
        assert got == expected, call


def test_the_grid_covers_every_sized_creation_function():
    # each torch-side factory that takes a size is asked for a negative one
    negative = " ".join(c for c, _ in CALLS if "-1" in c or "-2" in c or "-3" in c)
    for name in ("T.zeros(", "T.ones(", "T.empty(", "T.full(", "T.rand(", "T.randn(",
                 "T.randint(", "T.randperm(", "T.normal(", "T.empty_strided(", "T.eye(",
                 "T.linspace(", "T.logspace(", "T.Tensor(", "X.new_zeros(", "X.new_ones(",
                 "X.new_empty(", "X.new_full(", "X.new_empty_strided(", "T.nn.Linear("):
        assert name in negative, name


def test_sizes_past_the_cores_limit_are_pytorchs_class():
    # below int64's byte count PyTorch would try the allocation and fail with a
    # RuntimeError; ours stop at the core's element limit with torchlike.SizeError,
    # that class and NumPy's ValueError (its "array is too big")
    for make in (lambda: tl.zeros(2 ** 57, dtype=tl.uint8), lambda: tl.empty(2 ** 30, 2 ** 27),
                 lambda: tl.zeros(2).new_ones(2 ** 58, dtype=tl.bool)):
        with pytest.raises(RuntimeError, match="too large") as e:
            make()
        assert type(e.value) is tl.SizeError and isinstance(e.value, ValueError)


# ---- the NumPy namespace: live NumPy's answers ------------------------------------------------

_NP_CALLS = [f"{f}({s})" for f in ("zeros", "ones", "empty") for s in (
    "-1", "(2, -1)", "(-1, 3), dtype=xp.int32", "-2, order='F'", "(2, -1), order='C'",
    "2 ** 62", "(2 ** 40, 2 ** 40)", "(2 ** 31, 2 ** 31, 2), dtype=xp.int8", "[3, -1]",
    "xp.int64(-4)")] + [
    "full(-1, 1.5)", "full((2, -1), 7)", "full((-1,), 2, dtype=xp.int32)", "full(-1, 2 ** 70)",
    "full((-1,), [1.0])", "full((2 ** 40, 2 ** 40), 1.0)", "full(-3, 1.5, order='F')",
    "eye(-1)", "eye(2, -1)", "eye(-1, 2)", "eye(2 ** 40)", "identity(-1)",
    "zeros_like(A, shape=(-1,))", "ones_like(A, shape=-1)", "empty_like(A, shape=(2, -1))",
    "full_like(A, 1, shape=(-1,))", "zeros_like(A, shape=(2 ** 62,))",
    "zeros_like(A, shape=(-1, 2), order='F')", "zeros(2 ** 63)", "ones((2, 2 ** 70))",
    # NumPy's ndarray constructor (torchlike.Tensor's legacy one reads (-1,) as data)
    "ndarray((-1,))", "ndarray(-1)", "ndarray((2, -1))", "ndarray((2 ** 40, 2 ** 40))",
    "ndarray(2 ** 63)", "ndarray(None)", "ndarray((2,), strides=(16,))",
    "ndarray((2,), buffer=bytearray(16), offset=8)", "ndarray((2,), order='X')",
    # shapes that are no integers or sequences of them: NumPy's TypeError and words
    "zeros(None)", "zeros((1.5,))", "zeros(1.5)", "zeros(True)", "zeros((True, 2))",
    "zeros([1, None])", "ones(('a',))", "empty('3')", "full((1.5,), 1.0)", "full(None, 2)",
    "eye(1.5)", "ndarray((1.5,))", "ndarray(True)", "zeros_like(A, shape=(1.5,))",
    "zeros((1.5, -1))",
    # neighbours that succeed
    "zeros(0)", "ones((2, 0))", "eye(0)", "full((0, 3), 1.5)", "zeros_like(A, shape=(0,))",
    "tri(-1)", "ndarray(3)", "ndarray((2, 3), dtype=xp.int32)", "ndarray((2, 3), order='F')",
    "ndarray(shape=[2, 0], dtype='f4')", "ndarray(())", "ndarray((2,), buffer=bytearray(16))"]


def _np_outcome(xp, call):
    a = xp.zeros(2)
    try:
        r = eval(call, {"xp": xp, "A": a, **{k: getattr(xp, k) for k in (
            "zeros", "ones", "empty", "full", "eye", "identity", "zeros_like", "ones_like",
            "empty_like", "full_like", "tri", "ndarray")}})
    except Exception as e:  # noqa: BLE001 - the exception is the answer
        return ["raises", type(e).__name__, str(e)]
    # the layout (C or F) of a non-empty result; an empty one's strides are
    # NumPy's own choice (docs/numpy.md)
    strides = r.strides if xp is np else tuple(s * r.itemsize for s in r.stride())
    return ["shape", list(r.shape), str(r.dtype).rsplit(".", 1)[-1],
            list(strides) if r.size else None]


@pytest.mark.parametrize("call", _NP_CALLS)
def test_numpy_namespace_refuses_as_numpy(call):
    want, got = _np_outcome(np, call), _np_outcome(tnp, call)
    assert got == want, call


@pytest.mark.host_only  # NumPy's MemoryError: the host allocator's limit
def test_numpy_namespace_past_the_cores_limit_is_a_memory_error():
    # NumPy tries the allocation and fails with its MemoryError; ours stop first
    with pytest.raises(MemoryError, match=r"^Unable to allocate .* for an array with shape "
                                          r"\(144115188075855872,\) and data type float64"):
        tnp.zeros(2 ** 57)
    with pytest.raises(MemoryError):
        np.zeros(2 ** 57)


def test_ndarray_is_every_tensors_type_and_tensor_keeps_pytorchs_constructor():
    t = tl.zeros(2)
    assert isinstance(t, tnp.ndarray) and issubclass(tl.Tensor, tnp.ndarray)
    assert issubclass(tl.nn.Parameter, tnp.ndarray) and not isinstance(np.zeros(2), tnp.ndarray)
    assert not isinstance([1.0], tnp.ndarray)
    # the same spelling is data to PyTorch's legacy constructor
    assert tl.Tensor((-1,)).tolist() == [-1.0]
    assert tnp.ndarray((2, 3)).shape == (2, 3)


@pytest.mark.host_only  # the tensor shares the host buffer's memory
def test_ndarray_over_a_buffer_shares_its_memory():
    buf = bytearray(np.arange(4.0).tobytes())
    a = tnp.ndarray((2,), dtype=np.float64, buffer=buf, offset=16)
    assert a.tolist() == [2.0, 3.0]
    a[0] = 7.0
    assert np.frombuffer(buf)[2] == 7.0


def test_numpy_namespace_keeps_other_refusals():
    # a refusal that is not about the size passes through unchanged
    with pytest.raises(TypeError, match="Cannot interpret 'bogus' as a data type"):
        tnp.zeros((2, -1), dtype="bogus")
    with pytest.raises(ValueError, match="only 'C' or 'F' order is permitted"):
        tnp.zeros(2, order="K")
    with pytest.raises(OverflowError, match="out of bounds for int32"):
        tnp.full(2, 2 ** 70, dtype=np.int32)
