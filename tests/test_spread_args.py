"""Functions whose tensors come spread, bound from signatures.txt's Tensor...
(f(a, b) or f([a, b])) and *Tensor (f(a, b) only) parameters, and
broadcast_shapes' *int[] and tril/triu_indices.

Values against NumPy (meshgrid, broadcast_arrays, atleast_*d, block_diag,
itertools.product) for every argument form, including empty, 0-size,
non-contiguous and 0-d inputs; semantics (which forms are taken, what a
wrong type raises) against PyTorch's answers recorded in
tests/golden/spread_args.json by scripts/golden_spread_args.py."""
import itertools
import warnings

import numpy as np
import pytest

import torchlike as tl
from oracle import assert_close, golden_calls, golden_check, noncontiguous

CALLS, _golden = golden_calls("spread_args")

# Answers that differ from PyTorch's on purpose, each with its reason.
DIFFERENT = {
}
# PyTorch's messages that ours contain word for word (after "func(): ").
SAME_WORDING = ("expected Tensor as element", "got an unexpected keyword argument",
                "Attempting to broadcast", "indexing must be one of", "must be non-negative")


@pytest.mark.parametrize("call,expected", CALLS, ids=[c for c, _ in CALLS])
def test_matches_pytorch(call, expected):
    golden_check(_golden, call, expected, SAME_WORDING, DIFFERENT)


# ---- values against NumPy, in every argument form ---------------------------------

def vectors(*sizes, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(n).astype(np.float32) for n in sizes]


def forms(arrays, seq_ok):
    """The ways of passing the tensors: spread, and as one list or tuple
    where the function takes that."""
    ts = [tl.tensor(a) for a in arrays]
    out = [("spread", lambda f: f(*ts))]
    if seq_ok:
        out += [("list", lambda f: f(list(ts))), ("tuple", lambda f: f(tuple(ts)))]
    return out


@pytest.mark.parametrize("sizes", [(3,), (3, 4), (2, 0, 3), (1, 5, 2)])
@pytest.mark.parametrize("indexing", [None, "ij", "xy"])
def test_meshgrid_forms(sizes, indexing):
    arrays = vectors(*sizes)
    expected = np.meshgrid(*arrays, indexing=indexing or "ij")
    kw = {} if indexing is None else {"indexing": indexing}
    for label, call in forms(arrays, seq_ok=True):
        got = call(lambda *a: tl.meshgrid(*a, **kw))
        assert isinstance(got, tuple) and len(got) == len(arrays), label
        for g, e in zip(got, expected):
            assert_close(g, e)


def test_meshgrid_non_contiguous_and_0d():
    a, b = vectors(4, 3)
    ta = noncontiguous(tl.tensor(a))
    assert not ta.is_contiguous()
    for g, e in zip(tl.meshgrid(ta, tl.tensor(b), indexing="xy"), np.meshgrid(a, b)):
        assert_close(g, e)
    # a 0-d tensor counts as a vector of one
    for g, e in zip(tl.meshgrid(tl.tensor(2.5), tl.tensor(b)), np.meshgrid([2.5], b, indexing="ij")):
        assert_close(g, e.astype(np.float32))


@pytest.mark.parametrize("shapes", [[(3, 1), (4,), ()], [(2, 0), (1,)], [(5,)], []])
def test_broadcast_tensors_spread(shapes):
    rng = np.random.default_rng(1)
    arrays = [rng.standard_normal(s).astype(np.float64) for s in shapes]
    got = tl.broadcast_tensors(*[tl.tensor(a) for a in arrays])
    expected = np.broadcast_arrays(*arrays)
    assert isinstance(got, tuple) and len(got) == len(arrays)
    for g, e in zip(got, expected):
        assert_close(g, e)


@pytest.mark.parametrize("ndim", [1, 2, 3])
def test_atleast_forms(ndim):
    fn, ref = getattr(tl, f"atleast_{ndim}d"), getattr(np, f"atleast_{ndim}d")
    rng = np.random.default_rng(2)
    arrays = [np.float32(1.5), rng.standard_normal(3).astype(np.float32),
              rng.standard_normal((2, 3)).astype(np.float32),
              rng.standard_normal((2, 0, 1)).astype(np.float32)]
    for label, call in forms(arrays, seq_ok=True):
        got = call(fn)
        assert isinstance(got, tuple), label
        for g, e in zip(got, ref(*arrays)):
            assert_close(g, e)
    # one tensor alone gives a tensor, one in a list a tuple of one
    for a in arrays:
        assert_close(fn(tl.tensor(a)), ref(a))
        (only,) = fn([tl.tensor(a)])
        assert_close(only, ref(a))
    assert fn() == () and fn([]) == () and fn(()) == ()


def test_block_diag_spread():
    rng = np.random.default_rng(3)
    blocks = [rng.standard_normal((2, 3)), rng.standard_normal(2), np.float64(4.0),
              rng.standard_normal((0, 2))]
    expected = np.zeros((4, 8))  # the (0, 2) block adds two columns, as in scipy
    expected[0:2, 0:3] = blocks[0]
    expected[2, 3:5] = blocks[1]
    expected[3, 5] = 4.0
    assert_close(tl.block_diag(*[tl.tensor(b) for b in blocks]), expected)
    t = noncontiguous(tl.tensor(blocks[0]))
    assert_close(tl.block_diag(t, t), np.kron(np.eye(2), np.ones((2, 3))) *
                 np.tile(blocks[0], (2, 2)))
    assert tl.block_diag().shape == (1, 0)


def test_cartesian_prod_spread():
    a, b, c = vectors(2, 3, 0)
    expected = np.array(list(itertools.product(a, b)), dtype=np.float32)
    assert_close(tl.cartesian_prod(tl.tensor(a), tl.tensor(b)), expected)
    assert_close(tl.cartesian_prod(tl.tensor(a)), a)  # one vector is itself
    assert tl.cartesian_prod(tl.tensor(a), tl.tensor(c)).shape == (0, 2)


# ---- errors: TypeErrors naming the function; spreads take no keyword ----------------

@pytest.mark.parametrize("name", ["meshgrid", "broadcast_tensors", "atleast_1d", "block_diag",
                                  "cartesian_prod"])
def test_wrong_types_name_the_function_and_element(name):
    fn, a = getattr(tl, name), tl.zeros(2)
    with pytest.raises(TypeError, match=rf"^{name}\(\): expected Tensor as element 1 in "
                                        r"argument 0, but got float$"):
        fn(a, 1.5)
    with pytest.raises(TypeError, match=rf"^{name}\(\) got an unexpected keyword argument "
                                        r"'tensors'$"):
        fn(tensors=[a])
    with pytest.raises(TypeError, match=rf"^{name}\(\) got an unexpected keyword argument 'foo'$"):
        fn(a, foo=1)


@pytest.mark.parametrize("name", ["broadcast_tensors", "block_diag", "cartesian_prod"])
def test_spread_only_refuses_a_list(name):
    a = tl.zeros(2)
    with pytest.raises(TypeError, match=r"expected Tensor as element 0 in argument 0, but got list"):
        getattr(tl, name)([a, a])


def test_sequence_taken_only_alone():
    a = tl.zeros(2)
    with pytest.raises(TypeError, match=r"meshgrid\(\): expected Tensor as element 1 in argument "
                                        r"0, but got list"):
        tl.meshgrid(a, [a])
    with pytest.raises(TypeError, match=r"element 1 in argument 0, but got int"):
        tl.atleast_2d([a, 1])


def test_signatures_declare_the_spread_types():
    sigs = {name: params for name, _, params, _ in tl._C._signatures()}
    assert sigs["meshgrid"][0][:2] == ("tensors", "Tensor...")
    assert sigs["meshgrid"][1][0] == "indexing" and sigs["meshgrid"][1][4]  # keyword-only
    assert sigs["broadcast_tensors"][0][:2] == ("tensors", "*Tensor")
    assert sigs["broadcast_shapes"][0][:2] == ("shapes", "*int[]")


# ---- broadcast_shapes ---------------------------------------------------------------

@pytest.mark.parametrize("shapes", [[(2, 3), (3,)], [(0, 1), (4,)], [5, (1,)], [], [()],
                                    [(2, 1, 3), (4, 1)], [(1, 4), (2, 1), (3, 1, 4)]])
def test_broadcast_shapes_is_numpys(shapes):
    got = tl.broadcast_shapes(*shapes)
    assert isinstance(got, tl.Size)
    assert tuple(got) == np.broadcast_shapes(*shapes)


def test_broadcast_shapes_int_forms():
    # ints as NumPy ints and 0-d integer tensors, lists as 1-d tensors
    assert tl.broadcast_shapes(np.int64(3), (np.int32(2), 1)) == tl.Size([2, 3])
    assert tl.broadcast_shapes(tl.tensor([4, 1]), tl.tensor(3)) == tl.Size([4, 3])
    assert tl.broadcast_shapes(tl.Size([2, 1]), None, (3,)) == tl.Size([2, 3])
    # bools are not ints here (PyTorch takes True as 1)
    with pytest.raises(TypeError, match=r"broadcast_shapes\(\): argument 'shapes' must be an int "
                                        r"or a sequence of ints, not bool"):
        tl.broadcast_shapes(True)


# ---- tril/triu_indices --------------------------------------------------------------

@pytest.mark.parametrize("row,col,offset", [(3, 3, 0), (4, 2, 1), (2, 5, -1), (0, 3, 0), (3, 0, 0)])
def test_tri_indices_are_numpys(row, col, offset):
    for upper, ref in ((False, np.tril_indices), (True, np.triu_indices)):
        fn = tl.triu_indices if upper else tl.tril_indices
        expected = np.array(ref(row, offset, col), dtype=np.int64).reshape(2, -1)
        assert_close(fn(row, col, offset), expected)
        assert_close(fn(np.int64(row), tl.tensor(col), offset=offset, dtype=tl.int32),
                     expected.astype(np.int32))


def test_tri_indices_follow_the_default_device():
    tl._C._fake_enable()
    tl.set_default_device("fake")
    try:
        got = tl.tril_indices(3, 3)
    finally:
        tl.set_default_device(None)
    assert got.device.type == "fake"
    assert_close(got.cpu(), np.array(np.tril_indices(3)))
    assert tl.triu_indices(2, 2, device="fake").device.type == "fake"


# ---- references: a list's tuple and a spread's tensors are let go on every path ------

def _call_or_error(fn):
    try:
        fn()
    except (TypeError, RuntimeError, ValueError):
        pass


def test_spread_binders_do_not_leak():
    import gc
    import sys
    x, y = tl.zeros(3), tl.ones(2)
    seq, bad = [x, y], [x, 1]
    calls = [lambda: tl.meshgrid(x, y), lambda: tl.meshgrid(seq, indexing="xy"),
             lambda: tl.atleast_2d(seq), lambda: tl.cat(seq), lambda: tl.stack([x, x]),
             lambda: tl.broadcast_tensors(x, x), lambda: tl.broadcast_shapes((3,), seq[0].shape),
             lambda: _call_or_error(lambda: tl.meshgrid(bad)),
             lambda: _call_or_error(lambda: tl.cat(bad)),
             lambda: _call_or_error(lambda: tl.meshgrid(x, indexing="no")),
             lambda: _call_or_error(lambda: tl.broadcast_shapes((3,), (4,)))]
    # more tensors than fit in place: the array goes to the heap
    many = [tl.zeros(1)] * 20
    calls += [lambda: tl.block_diag(*many), lambda: tl.atleast_1d(many)]
    for call in calls:
        call()
    gc.collect()
    refs = [sys.getrefcount(o) for o in (x, y, seq, bad, many[0])]
    for _ in range(300):
        for call in calls:
            call()
    gc.collect()
    assert [sys.getrefcount(o) for o in (x, y, seq, bad, many[0])] == refs
