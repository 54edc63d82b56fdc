"""np.matmul's shapes as NumPy sizes its generalized ufunc
(n?,k),(k,m?)->(n?,m?): operands of 0 to 3 dims, with no out= and with
out= of many shapes, through torchlike.numpy and through NumPy's own
ufunc on tensors, must give NumPy's result (shape and values) or its
exception and words (NumPy is the live oracle).

The cases that need NumPy's rules rather than PyTorch's: an out= with
fewer dims than the product drops the optional n (then m), so a (1, k) x
(k, m) product fills a 1-d out; loop dims that do not broadcast, an out
that would be broadcast or reduced, and core dims that disagree are each
NumPy's ValueError in its own words."""
import itertools
import warnings

import numpy as np
import pytest

import torchlike as torch
import torchlike.numpy as tnp

A_SHAPES = [(), (4,), (1, 4), (3, 4), (2, 3, 4), (2, 1, 4)]
B_SHAPES = [(4,), (1, 4), (4, 1), (4, 3), (4, 4), (2, 4, 3)]
OUT_SHAPES = [None, (), (1,), (3,), (4,), (1, 1), (3, 3), (2, 3), (1, 3), (3, 1), (2, 3, 3),
              (2, 2, 3, 3), (5, 3, 3)]


def _outcome(f):
    """(the shape, the values) of the result, or (the exception's builtin
    type name, its message)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = f()
        return ("ok", tuple(r.shape), np.asarray(r).tolist())
    except Exception as e:  # noqa: BLE001 - the exception is the answer
        kind = type(e)
        while kind.__module__ != "builtins":
            kind = kind.__base__
        return (kind.__name__, str(e))


def _operands(sa, sb, dtype):
    rng = np.random.default_rng(len(sa) * 10 + len(sb))
    return (rng.integers(0, 5, sa).astype(dtype), rng.integers(0, 5, sb).astype(dtype))


@pytest.mark.parametrize("path", ["namespace", "ufunc"])
@pytest.mark.parametrize("casting", ["same_kind", "unsafe"])
@pytest.mark.parametrize("sa,sb", list(itertools.product(A_SHAPES, B_SHAPES)))
def test_matmul_shapes_match_numpy(sa, sb, casting, path):
    a, b = _operands(sa, sb, np.float64)
    module = tnp if path == "namespace" else np
    kw = {} if casting == "same_kind" else {"casting": casting}
    for out_shape in OUT_SHAPES:
        want = _outcome(lambda: np.matmul(
            a, b, out=None if out_shape is None else np.zeros(out_shape), **kw))
        got = _outcome(lambda: module.matmul(
            torch.tensor(a), torch.tensor(b),
            out=None if out_shape is None else torch.zeros(out_shape, dtype=torch.float64), **kw))
        assert got == want, out_shape


@pytest.mark.parametrize("sa,sb,out_shape", [
    ((1, 4), (4, 3), (3,)), ((4,), (1, 4), ()), ((1, 4), (4, 1), (1,)), ((3, 4), (4,), (2, 3)),
])
@pytest.mark.parametrize("out_dtype", [np.int64, np.int32, np.bool_])
def test_matmul_dropped_core_dim_with_int_data(sa, sb, out_shape, out_dtype):
    """An out= that drops a core dim (NumPy fills it), int data, and an out
    dtype that same_kind refuses or takes (NumPy's TypeError first)."""
    a, b = _operands(sa, sb, np.int64)
    for kw in ({}, {"casting": "unsafe"}):
        want = _outcome(lambda: np.matmul(a, b, out=np.zeros(out_shape, out_dtype), **kw))
        for module in (tnp, np):
            got = _outcome(lambda: module.matmul(
                torch.tensor(a), torch.tensor(b),
                out=torch.from_numpy(np.zeros(out_shape, out_dtype)), **kw))
            assert got == want
