"""Bools inside int-list arguments, as PyTorch binds them: a bool after the
first item is 0 or 1, a bool first or standing alone is a TypeError (sizes,
shapes, dims, repeats, pads, a pool's kernel_size/stride/padding/dilation,
unfold/fold, interpolate's size).  Held to PyTorch's answers recorded in
tests/golden/int_list_bools.json by scripts/golden_int_list_bools.py."""
import numpy as np
import pytest

import torchlike as tl
from oracle import golden_calls, golden_check

CALLS, _golden = golden_calls("int_list_bools")

# PyTorch's messages that ours contain word for word: the pools' and
# unfold/fold's bindings (torchlike/nn/_pool_checks.py speaks their words);
# the core's int lists keep their own wording ("must be a sequence of ints").
SAME_WORDING = ("max_pool", "avg_pool", "adaptive_", "fractional_max_pool", "im2col", "col2im",
                "expected size to be one of", "Given output_size")


@pytest.mark.parametrize("call,expected", CALLS, ids=[c for c, _ in CALLS])
def test_matches_pytorch(call, expected):
    golden_check(_golden, call, expected, SAME_WORDING)


def test_bool_sizes_are_ints_against_numpy():
    """zeros((2, True)) is NumPy's zeros((2, 1)); sum over (0, True) is over (0, 1)."""
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    x = tl.tensor(a)
    assert tl.zeros((2, True)).numpy().shape == (2, 1)
    np.testing.assert_array_equal(x.sum((0, True)).numpy(), a.sum((0, 1)))
    np.testing.assert_array_equal(x.permute(2, True, 0).numpy(), a.transpose(2, 1, 0))
    np.testing.assert_array_equal(x[:, :, ::2].reshape(3, True, 4).numpy(),
                                  a[:, :, ::2].reshape(3, 1, 4))


def test_bool_dims_recorded_as_ints():
    """The tape holds the bool as an int: permute's and sum's backward read it back."""
    x = tl.arange(24.0).reshape(2, 3, 4).requires_grad_()
    (x.permute(2, True, 0) * tl.arange(24.0).reshape(4, 3, 2)).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(),
                                  np.arange(24.0).reshape(4, 3, 2).transpose(2, 1, 0))
    y = tl.arange(24.0).reshape(2, 3, 4).requires_grad_()
    y.sum((0, True)).pow(2).sum().backward()
    expected = np.broadcast_to(np.arange(24.0).reshape(2, 3, 4).sum((0, 1)) * 2, (2, 3, 4))
    np.testing.assert_array_equal(y.grad.numpy(), expected)


@pytest.mark.parametrize("call", [
    "M.zeros((2, True))", "M.ones((True, 2))", "M.empty((2, True))", "M.full((2, True), 1.0)",
    "M.zeros((2, True), order='F')", "M.reshape(M.arange(6), (3, True, 2))",
    "M.broadcast_to(M.ones(3), (2, True, 3))", "M.broadcast_to(M.ones(3), (True, 3))",
    "M.resize(M.ones(3), (2, True))", "M.zeros((2, 1)).shape",
    "M.reshape(M.arange(6), (3, 1, 2)).shape",
    "M.broadcast_to(M.ones(3), (1, 3)).shape", "M.resize(M.ones(3), (2, 1)).shape",
])
def test_numpy_namespace_reads_shapes_as_numpy(call):
    """The namespace's shapes are NumPy's: a bool entry anywhere is its
    TypeError, whatever the core takes for PyTorch's API."""
    import torchlike.numpy as tnp
    try:
        expected = eval(call, {"M": np})
    except TypeError as e:
        with pytest.raises(TypeError, match=str(e)):
            eval(call, {"M": tnp})
        return
    assert tuple(eval(call, {"M": tnp})) == expected
