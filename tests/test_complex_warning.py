"""A complex-to-real cast drops the imaginary parts: NumPy warns with its
ComplexWarning, PyTorch with a UserWarning.  torchlike gives
torchlike.ComplexWarning, which is both, from the core's one check
(tl_dtype_check_discard) on every cast a user asks for: conversions,
copies and assignments, a reduction's or scan's dtype=, ufuncs' dtype= and
unsafe out=.  PyTorch's answers are recorded by
scripts/golden_complex_warning.py; NumPy's are computed here."""
import warnings

import numpy
import pytest

import torchlike as torch
import torchlike.numpy as tnp
from oracle import golden_calls

CALLS, _golden = golden_calls("complex_warning")
MESSAGE = _golden.MESSAGE

# Where PyTorch and NumPy part, torchlike takes NumPy's rule: an assignment
# through a mask or an index array casts the values (with the warning), where
# PyTorch's index_put refuses another dtype; an empty cast warns too, where
# PyTorch returns before its check.
NUMPYS_RULE = {
    "W(lambda: e.float())": ["tensor", [0], "float32", [], 1],
    "W(lambda: put(T.zeros(3), T.tensor([True, False, True]), c[:2]))":
        ["tensor", [3], "float32", [1.0, 0.0, 3.0], 1],
    "W(lambda: put(T.zeros(4), T.tensor([0, 2, 3]), c))":
        ["tensor", [4], "float32", [1.0, 0.0, 3.0, -0.5], 1],
}


@pytest.mark.parametrize("call,expected", CALLS, ids=[c for c, _ in CALLS])
def test_matches_pytorch(call, expected):
    env = _golden.inputs(torch)
    expected = NUMPYS_RULE.get(call, expected)
    if expected[0] == "raises":
        with pytest.raises(Exception) as e:
            eval(call, env)
        assert type(e.value).__name__ == expected[1] or \
            expected[1] in [k.__name__ for k in type(e.value).__mro__], (call, str(e.value))
        return
    assert _golden.describe(eval(call, env)) == expected, call


def test_the_warning_is_numpys_class_and_pytorchs():
    c = torch.tensor([1 + 2j])
    with pytest.warns(numpy.exceptions.ComplexWarning, match=MESSAGE):
        c.float()
    with pytest.warns(UserWarning, match=MESSAGE):
        c.float()
    assert issubclass(torch.ComplexWarning, numpy.exceptions.ComplexWarning)
    assert issubclass(torch.ComplexWarning, UserWarning)


def _numpy_side(np):
    """NumPy calls that cast complex values to real, over module np."""
    c = np.array([1 + 2j, 3 - 1j, -0.5 + 0.25j])

    def setitem(key, v, n=3):
        a = np.zeros(n)
        a[key] = v
        return a

    def copyto(casting="unsafe"):
        a = np.zeros(3)
        np.copyto(a, c, casting=casting)
        return a

    def out():
        a = np.zeros(3)
        np.add(c, c, out=a, casting="unsafe")
        return a

    return [
        ("astype", lambda: c.astype(np.float64)),
        ("astype int8", lambda: c.astype(np.int8)),
        ("astype float16", lambda: c.astype(np.float16)),
        ("astype bool", lambda: c.astype(bool)),
        ("astype complex64", lambda: c.astype(np.complex64)),
        ("astype strided", lambda: c[::-2].astype(np.float32)),
        ("asarray dtype", lambda: np.asarray(c, dtype=np.float32)),
        ("array dtype", lambda: np.array(c, dtype=np.int32)),
        ("setitem slice", lambda: setitem(slice(None), c)),
        ("setitem broadcast", lambda: setitem(slice(None), c[:1])),
        ("setitem mask", lambda: setitem(np.array([True, False, True]), c[:2])),
        ("setitem fancy", lambda: setitem(np.array([0, 2, 3]), c, 4)),
        ("copyto", copyto),
        ("ufunc out unsafe", out),
        ("ufunc dtype", lambda: np.add(c, c, dtype=np.float64, casting="unsafe")),
        ("sum dtype", lambda: np.sum(c, dtype=np.float64)),
        ("sum axis dtype", lambda: np.sum(c.reshape(3, 1), axis=1, dtype=np.float32)),
        ("mean dtype", lambda: np.mean(c, dtype=np.float64)),
        ("cumsum dtype", lambda: np.cumsum(c, dtype=np.float64)),
        ("full", lambda: np.full(2, 1 + 2j, dtype=float)),
        ("real", lambda: c.real),
        ("abs", lambda: np.abs(c)),
        ("real_if_close", lambda: np.real_if_close(c + 0j)),
        ("astype empty", lambda: c[:0].astype(np.float32)),
    ]


@pytest.mark.parametrize("case", [name for name, _ in _numpy_side(numpy)])
def test_numpy_calls_warn_as_numpy(case):
    def run(np):
        f = dict(_numpy_side(np))[case]
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            r = f()
        return r, [w for w in seen if issubclass(w.category, numpy.exceptions.ComplexWarning)]
    want, want_warned = run(numpy)
    got, got_warned = run(tnp)
    got = got.cpu().numpy() if hasattr(got, "cpu") else numpy.asarray(got)
    assert got.dtype == want.dtype and got.shape == want.shape
    numpy.testing.assert_array_equal(got, want)
    assert len(got_warned) == len(want_warned), case
    assert all(str(w.message) == MESSAGE for w in got_warned)


@pytest.mark.parametrize("write", [
    lambda a, c: a.copy_(c),
    lambda a, c: a.__setitem__(slice(None), c),
    lambda a, c: a.__setitem__(torch.tensor([True, False, True]), c[:2]),
    lambda a, c: a.fill_(c[0]),
    lambda a, c: tnp.copyto(a, c, casting="unsafe"),
])
def test_a_warning_made_an_error_stops_the_write(write):
    a = torch.zeros(3)
    c = torch.tensor([1 + 2j, 3 - 1j, 5j])
    with warnings.catch_warnings():
        warnings.simplefilter("error", numpy.exceptions.ComplexWarning)
        with pytest.raises(numpy.exceptions.ComplexWarning, match=MESSAGE):
            write(a, c)
    assert a.tolist() == [0.0, 0.0, 0.0] and a._version == 0
    assert torch._C._core_error() is None  # nothing left pending in the core


@pytest.mark.parametrize("make", [
    lambda c: c.float(), lambda c: c.to(torch.int64), lambda c: c.sum(dtype=torch.float32),
    lambda c: c.cumsum(0, dtype=torch.float64), lambda c: torch.as_tensor(c, dtype=torch.float32),
    lambda c: tnp.asarray(c, dtype=tnp.float32), lambda c: c.astype(tnp.float64),
])
def test_a_warning_made_an_error_returns_nothing(make):
    c = torch.tensor([1 + 2j, 3 - 1j])
    with warnings.catch_warnings():
        warnings.simplefilter("error", numpy.exceptions.ComplexWarning)
        with pytest.raises(numpy.exceptions.ComplexWarning):
            make(c)
    assert torch._C._core_error() is None
    assert make(c.real).dtype != torch.complex64  # a real input casts quietly


def test_grad_of_a_cast_keeps_flowing_and_warns_once():
    c = torch.tensor([1 + 2j, 3 - 1j], requires_grad=True)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        y = c.float()
    assert len([w for w in seen if issubclass(w.category, torch.ComplexWarning)]) == 1
    y.sum().backward()
    assert c.grad.tolist() == [1 + 0j, 1 + 0j]


@pytest.mark.parametrize("write", [
    lambda a, v: a.__setitem__(0, v), lambda a, v: a.__setitem__(slice(None), v),
    lambda a, v: a.fill_(v), lambda a, v: a[1:].fill_(v),
])
@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.float16])
def test_a_python_complex_without_imaginary_part_is_written_quietly(write, dtype):
    # PyTorch: a Python number is checked to fit (1 + 0j fits a real dtype,
    # 1 + 1j does not) and then nothing is dropped, so nothing is said
    a = torch.zeros(3, dtype=dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        write(a, 2 + 0j)
    assert 2 in a.tolist() and a.dtype == dtype
    with pytest.raises(RuntimeError, match="cannot be converted to type"):
        write(a, 2 + 1j)
