"""Pooling, adaptive pooling, unfold and fold refuse bad arguments as
PyTorch does: its exception class and its words (recorded by
scripts/golden_pool_refusals.py), and accept the neighbouring good calls
with PyTorch's result shapes.  Where PyTorch's words name no shape (the
rank refusals of max_pool2d/3d, avg_pool3d), ours add it after them."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import torchlike as tl
from oracle import golden_calls

CALLS, _golden = golden_calls("pool_refusals")


@pytest.mark.parametrize("call,expected", CALLS, ids=[c for c, _ in CALLS])
def test_pool_arguments_are_refused_in_pytorchs_words(call, expected):
    env = _golden.inputs(tl)
    if expected[0] == "raises":
        kind, words = expected[1:]
        with pytest.raises(Exception) as e:
            eval(call, env)
        assert kind in [c.__name__ for c in type(e.value).__mro__], (call, repr(e.value))
        assert str(e.value).startswith(words), (call, str(e.value))
    else:
        assert _golden.describe(eval(call, env)) == expected, call


def test_sizes_past_int64_still_raise_an_overflow():
    # the Python checks leave sizes past int64 to the kernels' overflow refusal
    F = tl.nn.functional
    with pytest.raises(RuntimeError, match="overflow"):
        F.max_pool2d(tl.ones(1, 1, 4, 4), 3, dilation=2 ** 62)
    with pytest.raises(RuntimeError, match="overflow"):
        F.avg_pool1d(tl.ones(1, 1, 4), 2 ** 62, padding=2 ** 61)


def test_a_one_sized_adaptive_average_is_the_mean_of_the_window():
    # PyTorch's 1x1 adaptive average is a mean over the last dims, for any
    # rank: of an empty window NaN, and the gradient spreads evenly
    F = tl.nn.functional
    a = np.arange(24.0, dtype=np.float32).reshape(2, 3, 4)
    x = tl.tensor(a).requires_grad_()
    out = F.adaptive_avg_pool2d(x, 1)
    np.testing.assert_allclose(out.detach().cpu().numpy(), a.mean((-2, -1), keepdims=True),
                               rtol=1e-6)
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.cpu().numpy(), np.full_like(a, np.float32(1 / 12)))
    assert tl.isnan(F.adaptive_avg_pool1d(tl.ones(2, 3, 0), 1)).all()


_small = st.integers(-1, 4)


@settings(max_examples=400, deadline=None)
@given(n=st.integers(1, 3), rank_extra=st.integers(0, 2), size=st.integers(0, 6),
       k=_small, s=_small, p=_small, d=_small, ceil_mode=st.booleans(), kind=st.sampled_from(
           ["max", "avg"]))
def test_the_quick_check_agrees_with_the_full_one(n, rank_extra, size, k, s, p, d, ceil_mode,
                                                   kind):
    """Plain ints are checked without building PyTorch's words (the common
    call); NumPy ints take the full checks.  Both must accept the same calls
    with the same windows, and refuse the same ones."""
    from torchlike.nn import _pool_checks
    x = tl.ones(*([2] * rank_extra + [size] * n)) if rank_extra + n else tl.ones(())
    args = (k, s, p, d)[:4 if kind == "max" else 3]

    def check(values):
        try:
            if kind == "max":
                return tuple(map(tuple, _pool_checks.max_pool(x, *values, ceil_mode, n)))
            return tuple(map(tuple, _pool_checks.avg_pool(x, *values, ceil_mode, None, n)))
        except (RuntimeError, IndexError, ValueError) as error:
            return type(error), str(error)

    assert check(args) == check(tuple(np.int64(v) for v in args))
