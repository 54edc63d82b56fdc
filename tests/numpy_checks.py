"""Checks shared by the tests that hold torchlike.numpy against NumPy itself
on the same inputs (the fuzzers' regression tests)."""
import warnings

import numpy
import pytest

import torchlike.numpy as np


def same(got, want):
    """got (a tensor, or a tuple of them) has want's (NumPy's) dtype, shape
    and values (NaN where NaN)."""
    if isinstance(want, (tuple, list)):
        assert isinstance(got, (tuple, list)) and len(got) == len(want)
        for g, w in zip(got, want):
            same(g, w)
        return
    want = numpy.asarray(want)
    assert str(got.dtype).rsplit(".", 1)[-1] == want.dtype.name, (got.dtype, want.dtype)
    assert tuple(got.shape) == want.shape
    numpy.testing.assert_array_equal(numpy.asarray(got), want)


def both(fn, *arrays):
    """fn(numpy, *ndarrays) and fn(torchlike.numpy, *tensors of them)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(numpy, *arrays), fn(np, *[np.asarray(a) for a in arrays])


def raises_as_numpy(fn, *arrays):
    """Both raise, torchlike an instance of the built-in classes NumPy's
    exception derives from."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(Exception) as want:
            fn(numpy, *arrays)
        bases = tuple(c for c in type(want.value).__mro__ if c.__module__ == "builtins"
                      and c not in (Exception, BaseException, object))
        with pytest.raises(bases):
            fn(np, *[np.asarray(a) for a in arrays])
