"""Shape manipulation against NumPy: joining, splitting, reordering, repeating,
triangles/diagonals, padding, the view family (movedim, narrow, unfold,
as_strided ...), meshgrid and broadcasting helpers.

Each op is checked for values, dtype and shape (0-d, empty and non-contiguous
inputs included), for whether it returns a view or a copy (writes through a
view must show in the base), and for PyTorch's error messages."""
import numpy as np
import pytest
from hypothesis import given, strategies as st
from numpy.lib.stride_tricks import sliding_window_view

import torchlike as tl
from oracle import assert_loop_rss_flat
import torchlike.nn.functional as F
from oracle import ALL_DTYPES, assert_close, check, noncontiguous, random_array, to_tensor

REPRESENTATIVE = ["bool", "uint8", "int32", "int64", "float16", "bfloat16", "float32",
                  "float64", "complex64"]


def arr(shape, dtype="float32", seed=0):
    return random_array(shape, dtype, rng=np.random.default_rng(seed))


def shares_memory(a, b):
    """Do tensors a and b view the same storage? (a write through one shows in the other).
    On a device (the device suites): do they view one storage at all."""
    if a.device.type != "cpu":
        return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()
    return np.shares_memory(a.numpy(), b.numpy())


# ---- view / reshape ------------------------------------------------------------------

def test_view_refuses_incompatible_strides():
    t = tl.tensor(arr((3, 4))).t()
    with pytest.raises(RuntimeError, match="view size is not compatible with input tensor's size "
                                           r"and stride.*Use \.reshape"):
        t.view(12)
    r = t.reshape(12)  # copies
    assert_close(r, arr((3, 4)).T.reshape(12))
    assert not shares_memory(r, t)


def test_reshape_views_when_possible():
    base = tl.tensor(arr((2, 3, 4)))
    r = base.reshape(6, 4)
    r[0, 0] = 100.0
    assert base[0, 0, 0].item() == 100.0
    # a transposed tensor can still be viewed when the merged dims stay contiguous
    t = base.permute(2, 0, 1)  # (4, 2, 3): dims 1, 2 are contiguous together
    v = t.view(4, 6)
    assert_close(v, np.transpose(base.cpu().numpy(), (2, 0, 1)).reshape(4, 6))
    assert shares_memory(v, base)
    assert t.reshape(4, 6).storage_offset() == v.storage_offset()
    assert shares_memory(t.reshape(4, 6), base)


@pytest.mark.parametrize("shape,new", [((2, 3), (-1,)), ((2, 3), (3, -1)), ((0, 3), (-1, 3)),
                                       ((), (1, 1)), ((1,), ()), ((4,), (2, 1, 2))])
def test_reshape_matches_numpy(shape, new):
    check(lambda t: t.reshape(new), lambda a: a.reshape(new), arr(shape))
    check(lambda t: t.view(*new) if new else t.view(()), lambda a: a.reshape(new), arr(shape))


def test_reshape_errors():
    t = tl.zeros(2, 3)
    with pytest.raises(RuntimeError, match=r"shape '\[4, 2\]' is invalid for input of size 6"):
        t.reshape(4, 2)
    with pytest.raises(RuntimeError, match="only one dimension can be inferred"):
        t.reshape(-1, -1)
    with pytest.raises(RuntimeError, match="invalid shape dimension -2"):
        t.view(-2, 3)
    with pytest.raises(RuntimeError, match=r"cannot reshape tensor of 0 elements into shape "
                                           r"\[0, -1\] because the unspecified dimension size -1 "
                                           "can be any value and is ambiguous"):
        tl.zeros(0, 3).reshape(0, -1)
    with pytest.raises(RuntimeError, match="invalid for input of size 6"):
        t.reshape(2**40, 2**40, 2**40)


def test_view_method_keywords():
    a = arr((1, 3, 1))
    check(lambda t: t.squeeze(dim=0), lambda x: x.squeeze(0), a)
    check(lambda t: tl.squeeze(t, dim=(0, 2)), lambda x: x.squeeze((0, 2)), a)
    check(lambda t: t.unsqueeze(dim=1), lambda x: x[:, None], a)
    check(lambda t: tl.transpose(t, dim0=0, dim1=2), lambda x: x.swapaxes(0, 2), a)
    check(lambda t: t.transpose(0, dim1=1), lambda x: x.swapaxes(0, 1), a)
    check(lambda t: t.permute(dims=(2, 0, 1)), lambda x: x.transpose(2, 0, 1), a)
    with pytest.raises(TypeError):
        tl.zeros(2).unsqueeze(0, dim=0)
    with pytest.raises(TypeError):
        tl.zeros(2).unsqueeze()


# ---- flatten / unflatten / movedim / squeeze ----------------------------------------

def test_flatten_and_unflatten():
    a = arr((2, 3, 4))
    check(lambda t: tl.flatten(t, 1), lambda x: x.reshape(2, 12), a)
    check(lambda t: t.flatten(0, 1), lambda x: x.reshape(6, 4), a)
    check(lambda t: t.unflatten(2, (2, 2)), lambda x: x.reshape(2, 3, 2, 2), a)
    check(lambda t: tl.unflatten(t, -1, (-1, 2)), lambda x: x.reshape(2, 3, 2, 2), a)
    base = tl.tensor(a)
    u = base.unflatten(1, (3, 1))
    u[1, 2, 0, 3] = 7.0
    assert base[1, 2, 3].item() == 7.0
    with pytest.raises(RuntimeError, match=r"unflatten: Provided sizes \[2, 2\] don't multiply "
                                           r"up to the size of dim 1 \(3\)"):
        base.unflatten(1, (2, 2))


@pytest.mark.parametrize("src,dst", [(0, 2), (-1, 0), ((0, 1), (2, 0)), ([0, 2], [1, 0]),
                                     ((), ())])
def test_movedim_matches_moveaxis(src, dst):
    a = arr((2, 3, 4))
    t = check(lambda t: tl.movedim(t, src, dst), lambda x: np.moveaxis(x, src, dst), a)
    check(lambda t: t.moveaxis(src, dst), lambda x: np.moveaxis(x, src, dst), a)
    base = tl.tensor(a)
    assert shares_memory(tl.movedim(base, src, dst), base)
    del t


def test_movedim_errors():
    t = tl.zeros(2, 3)
    with pytest.raises(RuntimeError, match="repeated dim in `source`"):
        t.movedim((0, 0), (0, 1))
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of "
                                         r"\[-2, 1\], but got 2\)"):
        t.movedim(2, 0)
    with pytest.raises(RuntimeError, match="same number of dims"):
        t.movedim((0, 1), (0,))


def test_squeeze_unsqueeze_multi_dim():
    a = arr((1, 3, 1, 2))
    check(lambda t: t.squeeze((0, 2)), lambda x: x.squeeze((0, 2)), a)
    check(lambda t: tl.squeeze(t, 0), lambda x: x.squeeze(0), a)
    check(lambda t: t.squeeze(1), lambda x: x, a)  # not size 1: unchanged
    check(lambda t: tl.unsqueeze(t, -1), lambda x: x[..., None], a)
    check(lambda t: tl.squeeze(t), lambda x: x.squeeze(), a)


# ---- expand / broadcast ----------------------------------------------------------------

def test_expand_family_are_views():
    a = arr((3, 1))
    base = tl.tensor(a)
    e = base.expand(2, 3, 4)
    assert_close(e, np.broadcast_to(a, (2, 3, 4)))
    assert e.stride() == (0, 1, 0)
    assert_close(base.expand(-1, 5), np.broadcast_to(a, (3, 5)))
    assert_close(base.expand_as(tl.zeros(3, 2)), np.broadcast_to(a, (3, 2)))
    b = tl.broadcast_to(base, (2, 3, 4))
    assert_close(b, np.broadcast_to(a, (2, 3, 4)))
    base[1, 0] = 9.0
    assert b[1, 1, 3].item() == 9.0
    with pytest.raises(RuntimeError, match=r"The expanded size of the tensor \(4\) must match "
                                           r"the existing size \(3\) at non-singleton dimension 0"):
        base.expand(4, 2)


def test_broadcast_tensors_and_shapes():
    xs = [arr((3, 1)), arr((4,), seed=1), arr((), seed=2)]
    outs = tl.broadcast_tensors(*[tl.tensor(x) for x in xs])
    for o, e in zip(outs, np.broadcast_arrays(*xs)):
        assert_close(o, e)
    assert tl.broadcast_shapes((3, 1), (4,), ()) == tl.Size([3, 4])
    assert tl.broadcast_shapes() == tl.Size([])
    with pytest.raises(RuntimeError, match=r"Attempting to broadcast a dimension of length 4 at "
                                           r"-1! Mismatching argument at index 1 had \(4,\); but "
                                           r"expected shape should be broadcastable to \[3\]"):
        tl.broadcast_shapes((3,), (4,))
    with pytest.raises(ValueError, match="cannot be broadcast"):
        tl.broadcast_tensors(tl.zeros(3), tl.zeros(4))


# ---- cat / stack -------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", REPRESENTATIVE)
def test_cat_dtypes(dtype):
    a, b = arr((2, 3), dtype), arr((4, 3), dtype, seed=1)
    check(lambda x, y: tl.cat([x, y]), lambda x, y: np.concatenate([x, y]), a, b)
    check(lambda x, y: tl.cat((x, y), dim=-1), lambda x, y: np.concatenate([x, x], -1),
          a, a)


@pytest.mark.parametrize("name", ["cat", "concatenate", "concat"])
def test_cat_aliases_and_noncontiguous(name):
    a, b = arr((3, 4)), arr((3, 2), seed=1)
    fn = getattr(tl, name)
    out = fn([noncontiguous(to_tensor(a)), to_tensor(b).t().t()], 1)
    assert_close(out, np.concatenate([a, b], 1))
    assert_close(fn([to_tensor(a.T), to_tensor(a.T)], dim=0), np.concatenate([a.T, a.T]))
    assert_close(fn([to_tensor(a)], axis=1), a)


def test_cat_promotes_dtypes():
    i = tl.tensor([[1, 2]], dtype=tl.int32)
    f = tl.tensor([[0.5, 1.5]], dtype=tl.float16)
    out = tl.cat([i, f, tl.tensor([[True, False]])])
    assert out.dtype == tl.float16
    assert_close(out, np.array([[1, 2], [0.5, 1.5], [1, 0]], np.float16))
    assert tl.cat([tl.tensor([1], dtype=tl.uint8), tl.tensor([-1], dtype=tl.int8)]).dtype == tl.int16


def test_cat_skips_legacy_empty():
    a = arr((2, 3))
    out = tl.cat([tl.tensor(np.zeros(0, np.float64)), to_tensor(a), tl.zeros(0)], dim=1)
    assert_close(out, a.astype(np.float64))
    assert_close(tl.cat([tl.zeros(0), tl.zeros(0)]), np.zeros(0, np.float32))
    assert_close(tl.cat([tl.zeros(2, 0), tl.ones(2, 3)], 1), np.ones((2, 3), np.float32))
    assert_close(tl.cat([tl.zeros(0, 3), tl.ones(2, 3)]), np.ones((2, 3), np.float32))


def test_cat_result_is_a_copy():
    a = tl.tensor(arr((2, 2)))
    out = tl.cat([a])
    out[0, 0] = 42.0
    assert a[0, 0].item() != 42.0


def test_cat_out():
    a = tl.tensor(arr((2, 2)))
    out = tl.empty(4, 2, dtype=tl.float64)
    r = tl.cat([a, a], out=out)
    assert r is out
    assert_close(out, np.concatenate([arr((2, 2))] * 2).astype(np.float64))


def test_cat_errors():
    a, b = tl.zeros(2, 3), tl.zeros(2, 4)
    with pytest.raises(RuntimeError, match=r"Sizes of tensors must match except in dimension 0. "
                                           r"Expected size 3 but got size 4 for tensor number 1"):
        tl.cat([a, b])
    with pytest.raises(RuntimeError, match="Tensors must have same number of dimensions: got 2 "
                                           "and 3"):
        tl.cat([a, tl.zeros(1, 2, 3)])
    with pytest.raises(RuntimeError, match=r"zero-dimensional tensor \(at position 1\) cannot be "
                                           "concatenated"):
        tl.cat([tl.zeros(1), tl.tensor(1.0)])
    # (a ValueError in PyTorch 2.15)
    with pytest.raises(ValueError, match="expected a non-empty list of Tensors"):
        tl.cat([])
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of "
                                         r"\[-2, 1\], but got 2\)"):
        tl.cat([a, a], 2)
    with pytest.raises(TypeError, match="expected Tensor as element 1"):
        tl.cat([a, 3])
    with pytest.raises(TypeError, match="tuple or list of Tensors"):
        tl.cat(a)


def test_cat_mismatch_message_dim1():
    with pytest.raises(RuntimeError, match=r"Sizes of tensors must match except in dimension 1. "
                                           r"Expected size 3 but got size 4 for tensor number 1 "
                                           r"in the list."):
        tl.cat([tl.zeros(3, 2), tl.zeros(4, 2)], dim=1)


@pytest.mark.parametrize("dim", [0, 1, 2, -1, -3])
def test_stack(dim):
    xs = [arr((2, 3), seed=i) for i in range(3)]
    check(lambda *ts: tl.stack(ts, dim), lambda *a: np.stack(a, dim), *xs)
    check(lambda *ts: tl.stack(list(ts), dim=dim), lambda *a: np.stack(a, axis=dim), *xs)


def test_stack_0d_empty_and_errors():
    check(lambda a, b: tl.stack([a, b]), lambda a, b: np.stack([a, b]),
          np.ones((), np.float32), np.zeros((), np.float32))
    check(lambda a, b: tl.stack([a, b], 1), lambda a, b: np.stack([a, b], 1),
          np.zeros((2, 0)), np.zeros((2, 0)))
    assert tl.stack([tl.zeros(2, dtype=tl.int8), tl.zeros(2)]).dtype == tl.float32
    with pytest.raises(RuntimeError, match=r"stack expects each tensor to be equal size, but got "
                                           r"\[2, 3\] at entry 0 and \[2, 4\] at entry 1"):
        tl.stack([tl.zeros(2, 3), tl.zeros(2, 4)])
    with pytest.raises(RuntimeError, match="stack expects a non-empty TensorList"):
        tl.stack([])
    with pytest.raises(IndexError, match=r"\[-3, 2\], but got 3"):
        tl.stack([tl.zeros(2, 3)], 3)


@pytest.mark.parametrize("shapes", [[(), ()], [(3,), (2,)], [(2, 3), (2, 1)], [(2, 2, 2), (2, 1, 2)],
                                    [(0,), (3,)]])
def test_hstack(shapes):
    xs = [arr(s, seed=i) for i, s in enumerate(shapes)]
    check(lambda *ts: tl.hstack(ts), lambda *a: np.hstack(a), *xs)


@pytest.mark.parametrize("shapes", [[(), ()], [(3,), (3,)], [(2, 3), (1, 3)], [(1, 2, 2), (3, 2, 2)]])
def test_vstack_row_stack(shapes):
    xs = [arr(s, seed=i) for i, s in enumerate(shapes)]
    check(lambda *ts: tl.vstack(ts), lambda *a: np.vstack(a), *xs)
    check(lambda *ts: tl.row_stack(list(ts)), lambda *a: np.vstack(a), *xs)


@pytest.mark.parametrize("shapes", [[(), ()], [(3,), (3,)], [(2, 3), (2, 3)], [(2, 2, 1), (2, 2, 3)]])
def test_dstack(shapes):
    xs = [arr(s, seed=i) for i, s in enumerate(shapes)]
    check(lambda *ts: tl.dstack(ts), lambda *a: np.dstack(a), *xs)


@pytest.mark.parametrize("shapes", [[(), ()], [(3,), (3,)], [(3,), (3, 2)], [(2, 3), (2, 1)]])
def test_column_stack(shapes):
    xs = [arr(s, seed=i) for i, s in enumerate(shapes)]
    check(lambda *ts: tl.column_stack(ts), lambda *a: np.column_stack(a), *xs)


def test_atleast_nd():
    for fn, nfn in [(tl.atleast_1d, np.atleast_1d), (tl.atleast_2d, np.atleast_2d),
                    (tl.atleast_3d, np.atleast_3d)]:
        for shape in [(), (3,), (2, 3), (2, 3, 4)]:
            check(fn, nfn, arr(shape))
        outs = fn(tl.zeros(()), tl.zeros(2))
        assert isinstance(outs, tuple) and len(outs) == 2


# ---- split family ----------------------------------------------------------------

def assert_pieces(pieces, expected):
    assert isinstance(pieces, tuple)
    assert len(pieces) == len(expected)
    for p, e in zip(pieces, expected):
        assert_close(p, e)


@pytest.mark.parametrize("size,split", [(7, 3), (6, 2), (2, 5), (0, 2), (5, 1)])
def test_split_by_size(size, split):
    a = arr((size, 2))
    expected = [a[i:i + split] for i in range(0, size, split)] or [a]
    assert_pieces(to_tensor(a).split(split), expected)
    assert_pieces(tl.split(to_tensor(a.T), split, dim=1), [e.T for e in expected])
    assert_pieces(to_tensor(a).split(split_size=split), expected)
    assert_pieces(tl.split(to_tensor(a), split_size_or_sections=split, dim=0), expected)


def test_split_by_sizes_are_views():
    base = tl.tensor(arr((6, 2)))
    pieces = tl.split(base, [1, 0, 5])
    assert_pieces(pieces, np.split(arr((6, 2)), [1, 1]))
    pieces[2][0, 0] = 50.0
    assert base[1, 0].item() == 50.0
    with pytest.raises(RuntimeError, match=r"split_with_sizes expects split_sizes to sum exactly "
                                           r"to 6 .*split_sizes=\[1, 2\]"):
        base.split([1, 2])
    with pytest.raises(RuntimeError, match="non-negative"):
        base.split(-1)
    with pytest.raises(IndexError, match=r"\[-2, 1\], but got 2"):
        base.split(2, 2)


@pytest.mark.parametrize("size,chunks", [(7, 3), (6, 3), (5, 5), (2, 4), (0, 3), (6, 4)])
def test_chunk(size, chunks):
    a = np.arange(size)
    got = to_tensor(a).chunk(chunks)
    step = -(-size // chunks)
    expected = [a[i:i + step] for i in range(0, size, step)] if size else [a[:0]] * chunks
    assert_pieces(got, expected)
    with pytest.raises(RuntimeError, match="chunk expects `chunks` to be greater than 0, got: 0"):
        tl.chunk(to_tensor(a), 0)
    with pytest.raises(RuntimeError, match="chunk expects at least a 1-dimensional tensor"):
        tl.tensor(1.0).chunk(1)


def test_unbind():
    a = arr((2, 3))
    assert_pieces(to_tensor(a).unbind(1), [a[:, i] for i in range(3)])
    assert_pieces(tl.unbind(to_tensor(a)), list(a))
    assert tl.unbind(tl.zeros(0, 2)) == ()
    with pytest.raises(IndexError, match="Dimension specified as 0 but tensor has no dimensions"):
        tl.tensor(1.0).unbind()


@pytest.mark.parametrize("arg", [3, 4, 1, [2, 5], [-2, 10], [4, 2], [], (1, 1)])
def test_tensor_split_matches_array_split(arg):
    a = arr((7, 3))
    assert_pieces(tl.tensor_split(to_tensor(a), arg), np.array_split(a, arg))
    assert_pieces(to_tensor(a.T).tensor_split(arg, dim=1), [p.T for p in np.array_split(a, arg)])
    t = tl.tensor(arg, dtype=tl.int64)
    assert_pieces(tl.tensor_split(to_tensor(a), t), np.array_split(a, arg))


def test_tensor_split_errors():
    with pytest.raises(RuntimeError, match="number of sections must be larger than 0, got 0"):
        tl.tensor_split(tl.zeros(3), 0)
    with pytest.raises(RuntimeError, match="at least a 1-dimensional"):
        tl.tensor_split(tl.tensor(1.0), 1)
    with pytest.raises(RuntimeError, match="integer dtype"):
        tl.tensor_split(tl.zeros(3), tl.tensor([1.0]))


def test_hsplit_vsplit_dsplit():
    a = arr((4, 6, 2))
    assert_pieces(tl.hsplit(to_tensor(a), 3), np.hsplit(a, 3))
    assert_pieces(to_tensor(a).hsplit([1, 4]), np.hsplit(a, [1, 4]))
    assert_pieces(tl.vsplit(to_tensor(a), 2), np.vsplit(a, 2))
    assert_pieces(tl.dsplit(to_tensor(a), [1]), np.dsplit(a, [1]))
    assert_pieces(tl.hsplit(to_tensor(np.arange(6)), 2), np.hsplit(np.arange(6), 2))
    with pytest.raises(RuntimeError, match=r"torch.hsplit attempted to split along dimension 1, "
                                           r"but the size of the dimension 6 is not divisible by "
                                           r"the split_size 4!"):
        tl.hsplit(to_tensor(a), 4)
    with pytest.raises(RuntimeError, match="torch.vsplit requires a tensor with at least 2 "
                                           "dimensions, but got a tensor with 1 dimensions!"):
        tl.vsplit(tl.zeros(3), 1)


# ---- flip / roll / rot90 -------------------------------------------------------------

@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_flip_all_dtypes(dtype):
    a = arr((3, 4, 2), dtype)
    check(lambda t: tl.flip(t, (0, 2)), lambda x: np.flip(x, (0, 2)), a)
    check(lambda t: t.flip(-1), lambda x: np.flip(x, -1), a)


def test_flip_is_a_copy_and_handles_layouts():
    a = arr((3, 4))
    base = tl.tensor(a)
    f = base.flip(0)
    f[0, 0] = 99.0
    assert base[2, 0].item() != 99.0  # PyTorch: flip copies (NumPy would view)
    assert_close(noncontiguous(to_tensor(a)).flip(0, 1), np.flip(a))
    assert_close(base.t().flip(dims=(0,)), np.flip(a.T, 0))
    assert_close(base[::-1].flip(0), a)
    check(lambda t: t.flip(()), lambda x: x.copy(), a)
    check(lambda t: t.flip(0), lambda x: x.copy(), np.array(3.0))
    check(lambda t: t.flip(1), lambda x: np.flip(x, 1), np.zeros((2, 0)))
    with pytest.raises(RuntimeError, match="dim 0 appears multiple times"):
        base.flip(0, -2)
    with pytest.raises(IndexError, match=r"\[-2, 1\], but got 2"):
        base.flip(2)


def test_fliplr_flipud():
    a = arr((3, 4, 2))
    check(tl.fliplr, np.fliplr, a)
    check(lambda t: t.flipud(), np.flipud, a)
    with pytest.raises(RuntimeError, match="Input must be >= 2-d."):
        tl.fliplr(tl.zeros(3))
    with pytest.raises(RuntimeError, match="Input must be >= 1-d."):
        tl.flipud(tl.tensor(1.0))


@pytest.mark.parametrize("shifts,dims", [(1, None), (-3, None), (2, 0), (5, 1), ((1, -2), (0, 1)),
                                         ((1, 1), (1, 1)), (13, -1)])
def test_roll(shifts, dims):
    a = arr((3, 4))
    check(lambda t: tl.roll(t, shifts, dims), lambda x: np.roll(x, shifts, dims), a)
    check(lambda t: noncontiguous(t).roll(shifts, dims=dims), lambda x: np.roll(x, shifts, dims), a)


def test_roll_edge_cases():
    check(lambda t: t.roll(1), lambda x: np.roll(x, 1), np.zeros((0, 3)))
    check(lambda t: t.roll(1, 1), lambda x: np.roll(x, 1, 1), np.zeros((2, 0)))
    check(lambda t: t.roll(2), lambda x: np.roll(x, 2), np.array(5.0))
    with pytest.raises(RuntimeError, match="shifts and dimensions must align. shifts: 2, dims:1"):
        tl.roll(tl.zeros(3, 3), (1, 2), (0,))
    with pytest.raises(IndexError, match=r"but got 2\)"):
        tl.roll(tl.zeros(3, 3), 1, 2)


@pytest.mark.parametrize("k", [0, 1, 2, 3, 4, -1, -6])
@pytest.mark.parametrize("dims", [(0, 1), (1, 0), (2, 0), (-1, -2)])
def test_rot90(k, dims):
    a = arr((2, 3, 4))
    check(lambda t: tl.rot90(t, k, dims), lambda x: np.rot90(x, k, dims), a)


def test_rot90_errors():
    with pytest.raises(RuntimeError, match="expected total rotation dims == 2, but got dims = 3"):
        tl.rot90(tl.zeros(2, 2, 2), 1, (0, 1, 2))
    with pytest.raises(RuntimeError, match="expected total dims >= 2, but got total dims = 1"):
        tl.zeros(3).rot90()
    with pytest.raises(RuntimeError, match="expected rotation dims to be different"):
        tl.zeros(2, 2).rot90(1, (1, -1))


# ---- repeat / tile / repeat_interleave ------------------------------------------------

@pytest.mark.parametrize("dtype", REPRESENTATIVE)
def test_repeat_dtypes(dtype):
    a = arr((2, 3), dtype)
    check(lambda t: t.repeat(2, 1, 3), lambda x: np.tile(x, (2, 1, 3)), a)


@pytest.mark.parametrize("shape,reps", [((), (2,)), ((), ()), ((3,), (2,)), ((2, 1), (1, 4)),
                                        ((2, 3), (0, 2)), ((0, 2), (3, 1)), ((1, 2), (2, 1, 1))])
def test_repeat(shape, reps):
    a = arr(shape)
    check(lambda t: t.repeat(reps), lambda x: np.tile(x, reps) if reps else x, a)
    check(lambda t: noncontiguous(t).repeat(*reps) if reps else t.repeat(()),
          lambda x: np.tile(x, reps) if reps else x, a)


def test_repeat_errors_and_copy():
    base = tl.tensor(arr((2, 3)))
    r = base.repeat(1, 1)
    r[0, 0] = 5.0
    assert base[0, 0].item() != 5.0
    with pytest.raises(RuntimeError, match="Number of dimensions of repeat dims can not be smaller "
                                           "than number of dimensions of tensor"):
        base.repeat(2)
    with pytest.raises(RuntimeError, match=r"negative dimension -1"):
        base.repeat(-1, 2)


@pytest.mark.parametrize("shape,reps", [((2, 3), (2,)), ((2, 3), (2, 2)), ((3,), (2, 2)),
                                        ((), (3,)), ((2, 1, 2), (1, 2))])
def test_tile(shape, reps):
    a = arr(shape)
    check(lambda t: tl.tile(t, reps), lambda x: np.tile(x, reps), a)
    check(lambda t: t.tile(*reps), lambda x: np.tile(x, reps), a)


@pytest.mark.parametrize("repeats,dim", [(2, None), (3, 0), (2, 1), (0, 1), (1, -1),
                                         ([1, 0, 2], 0), ([2], 1), ([3, 1, 0, 2], 1),
                                         ([1, 2, 0, 1, 1, 0], None)])
def test_repeat_interleave(repeats, dim):
    a = arr((3, 4)) if not (isinstance(repeats, list) and len(repeats) == 6) else arr((2, 3))
    if isinstance(repeats, list) and len(repeats) == 4:
        a = arr((3, 4))
    rt = tl.tensor(repeats) if isinstance(repeats, list) else repeats
    rn = np.array(repeats) if isinstance(repeats, list) else repeats
    check(lambda t: tl.repeat_interleave(t, rt, dim=dim), lambda x: np.repeat(x, rn, axis=dim), a)
    check(lambda t: noncontiguous(t).repeat_interleave(rt, dim),
          lambda x: np.repeat(x, rn, axis=dim), a)


def test_repeat_interleave_forms_and_errors():
    assert_close(tl.repeat_interleave(tl.tensor([2, 0, 1])), np.array([0, 0, 2]))
    assert_close(tl.tensor(3.0).repeat_interleave(2), np.array([3.0, 3.0], np.float32))
    assert_close(tl.tensor([1, 2]).repeat_interleave(tl.tensor(2)), np.array([1, 1, 2, 2]))
    with pytest.raises(RuntimeError, match="repeats can not be negative"):
        tl.zeros(3).repeat_interleave(-1)
    with pytest.raises(RuntimeError, match=r"repeats must have the same size as input along dim, "
                                           r"but got repeats.size\(0\) = 2 and input.size\(0\) = 3"):
        tl.zeros(3).repeat_interleave(tl.tensor([1, 2]), dim=0)
    with pytest.raises(RuntimeError, match="integer tensor"):
        tl.zeros(3).repeat_interleave(tl.tensor([1.0, 2.0, 1.0]))


# ---- tril / triu / diagonal / diag / diag_embed -------------------------------------------

@pytest.mark.parametrize("k", [0, 1, -1, 3, -5])
@pytest.mark.parametrize("shape", [(4, 4), (3, 5), (5, 2), (2, 3, 4), (0, 3), (3, 0)])
def test_tril_triu(shape, k):
    a = arr(shape)
    check(lambda t: tl.tril(t, k), lambda x: np.tril(x, k), a)
    check(lambda t: t.triu(diagonal=k), lambda x: np.triu(x, k), a)
    check(lambda t: noncontiguous(t).tril(k), lambda x: np.tril(x, k), a)


@pytest.mark.parametrize("dtype", REPRESENTATIVE)
def test_tril_dtypes(dtype):
    a = arr((3, 3), dtype)
    check(lambda t: t.tril(), np.tril, a)
    check(lambda t: t.t().triu(), lambda x: np.triu(x.T), a)


def test_tril_errors_and_copy():
    with pytest.raises(RuntimeError, match="tril: input tensor must have at least 2 dimensions"):
        tl.tril(tl.zeros(3))
    base = tl.tensor(arr((2, 2)))
    t = base.triu()
    t[0, 0] = 3.0
    assert base[0, 0].item() != 3.0


@pytest.mark.parametrize("offset,d1,d2", [(0, 0, 1), (1, 0, 1), (-1, 0, 1), (0, 1, 0), (2, -1, 0),
                                          (10, 0, 1), (-10, 1, 2), (0, 0, 2)])
def test_diagonal_is_a_view(offset, d1, d2):
    a = arr((3, 4, 5))
    t = check(lambda t: tl.diagonal(t, offset, d1, d2),
              lambda x: np.diagonal(x, offset, d1, d2), a)
    base = tl.tensor(a)
    d = base.diagonal(offset=offset, dim1=d1, dim2=d2)
    if d.numel():
        d.fill_(-1.0)
        expected = a.copy()
        idx = np.diagonal(np.arange(a.size).reshape(a.shape), offset, d1, d2).ravel()
        expected.reshape(-1)[idx] = -1.0
        assert_close(base, expected)
    del t


def test_diagonal_errors():
    with pytest.raises(RuntimeError, match="diagonal dimensions cannot be identical 0, 0"):
        tl.zeros(2, 2).diagonal(0, 0, 0)
    with pytest.raises(IndexError, match=r"but got 2\)"):
        tl.zeros(2, 2).diagonal(0, 0, 2)
    with pytest.raises(IndexError, match=r"\[-1, 0\], but got 1\)"):
        tl.zeros(3).diagonal()
    with pytest.raises((IndexError, RuntimeError)):
        tl.tensor(1.0).diagonal()
    with pytest.raises(RuntimeError, match="diagonal dimensions cannot be identical"):
        tl.zeros(3).diagonal(0, 0, -1)


@pytest.mark.parametrize("shape,k", [((3,), 0), ((3,), 2), ((3,), -1), ((0,), 1), ((3, 4), 0),
                                     ((3, 4), 1), ((3, 4), -2), ((2, 2), 5)])
def test_diag(shape, k):
    a = arr(shape)
    t = check(lambda t: tl.diag(t, k), lambda x: np.diag(x, k), a)
    base = tl.tensor(a)
    if len(shape) == 2 and t.numel():  # torch.diag of a matrix copies
        out = base.diag(k)
        out[0] = 123.0
        assert 123.0 not in base.cpu().numpy()
    with pytest.raises(RuntimeError, match=r"diag\(\): Supports 1D or 2D tensors. Got 3D"):
        tl.diag(tl.zeros(2, 2, 2))


@pytest.mark.parametrize("offset,d1,d2", [(0, -2, -1), (1, 0, 2), (-2, -1, 0), (0, 1, 2)])
def test_diag_embed(offset, d1, d2):
    a = arr((2, 3))
    out = tl.diag_embed(to_tensor(a), offset, d1, d2)
    # the diagonal of the result is the input, everything else is zero
    assert_close(out.diagonal(offset, d1, d2), a)
    nz = np.count_nonzero(out.cpu().numpy())
    assert nz == np.count_nonzero(a)
    n = 3 + abs(offset)
    assert out.shape[d1] == n and out.shape[d2] == n and out.ndim == 3
    # batched 1-d -> 2-d agrees with np.diag row by row in the default dims
    if (offset, d1, d2) == (0, -2, -1):
        for i in range(2):
            assert_close(out[i], np.diag(a[i]))
    with pytest.raises(RuntimeError, match="diagonal dimensions cannot be identical"):
        tl.diag_embed(to_tensor(a), 0, 1, 1)


# ---- narrow / unfold / as_strided -------------------------------------------------------

def test_narrow_is_a_view():
    a = arr((4, 5))
    check(lambda t: tl.narrow(t, 1, 1, 3), lambda x: x[:, 1:4], a)
    check(lambda t: t.narrow(0, -2, 2), lambda x: x[2:4], a)
    check(lambda t: t.narrow(-1, 5, 0), lambda x: x[:, 5:5], a)
    base = tl.tensor(a)
    base.narrow(1, 2, 2)[0, 0] = 77.0
    assert base[0, 2].item() == 77.0
    with pytest.raises(RuntimeError, match=r"start \(3\) \+ length \(3\) exceeds dimension size "
                                           r"\(5\)."):
        base.narrow(1, 3, 3)
    with pytest.raises(IndexError, match=r"start out of range \(expected to be in range of "
                                         r"\[-5, 5\], but got 6\)"):
        base.narrow(1, 6, 0)
    with pytest.raises(RuntimeError, match="narrow\\(\\) cannot be applied to a 0-dim tensor."):
        tl.tensor(1.0).narrow(0, 0, 1)


@pytest.mark.parametrize("dim,size,step", [(0, 2, 1), (1, 3, 2), (-1, 5, 1), (1, 1, 3), (0, 0, 1),
                                           (1, 2, 10)])
def test_unfold_matches_sliding_window(dim, size, step):
    a = arr((4, 5))
    expected = sliding_window_view(a, size, axis=dim)
    expected = np.take(expected, np.arange(0, expected.shape[dim], step), axis=dim)
    t = check(lambda t: t.unfold(dim, size, step), lambda x: expected, a)
    base = tl.tensor(a)
    u = base.unfold(dim, size, step)
    assert shares_memory(u, base) or u.numel() == 0
    del t


def test_unfold_writes_through_and_errors():
    base = tl.arange(6.0)
    u = base.unfold(0, 2, 2)
    u[1, 1] = -1.0
    assert base[3].item() == -1.0
    assert_close(tl.tensor(5.0).unfold(0, 1, 1), np.array([5.0], np.float32))
    with pytest.raises(RuntimeError, match="maximum size for tensor at dimension 0 is 6 but size "
                                           "is 7"):
        base.unfold(0, 7, 1)
    with pytest.raises(RuntimeError, match="step is 0 but must be > 0"):
        base.unfold(0, 2, 0)


def test_as_strided():
    a = np.arange(12, dtype=np.float32)
    base = to_tensor(a)
    v = tl.as_strided(base, (3, 3), (3, 1), 1)
    assert_close(v, np.lib.stride_tricks.as_strided(a[1:], (3, 3), (12, 4)))
    w = base.as_strided((2, 2), (0, 4))
    assert_close(w, np.array([[0, 4], [0, 4]], np.float32))
    v[0, 0] = 100.0
    assert base[1].item() == 100.0
    # storage_offset defaults to the input's own offset
    assert_close(base[2:].as_strided((2,), (1,)), np.array([2.0, 3.0], np.float32))
    assert base.as_strided((0, 5), (100, 100), 11).shape == (0, 5)


def test_as_strided_bounds_checked():
    base = tl.arange(12.0)
    with pytest.raises(RuntimeError, match="storage"):
        base.as_strided((4, 4), (4, 1))
    with pytest.raises(RuntimeError, match="storage"):
        base.as_strided((2,), (1,), 11)
    with pytest.raises(RuntimeError, match="storage"):
        base[:2].as_strided((2,), (2**62,))
    with pytest.raises(RuntimeError, match="Negative strides are not supported"):
        base.as_strided((2,), (-1,), 5)
    with pytest.raises(RuntimeError, match="Negative storage offset"):
        base.as_strided((2,), (1,), -1)
    with pytest.raises(RuntimeError, match=r"negative dimension -1: \[2, -1\]"):
        base.as_strided((2, -1), (1, 1))
    with pytest.raises(RuntimeError, match="mismatch in length of strides and shape"):
        base.as_strided((2, 2), (1,))


def test_as_strided_reach_past_int64_is_named_not_wrapped():
    """The furthest element a view reaches, computed in int64, used to wrap: a
    reach of 2 * 2**62 + 1 was reported as needing 'at least 1 elements', one of
    2**63 - 1 as needing -2**63."""
    base = tl.arange(4.0)
    with pytest.raises(RuntimeError, match=r"sizes \[3, 2\], strides \[4611686018427387904, 1\] "
                                           r"and storage offset 0 reach an element past int64"):
        base.as_strided((3, 2), (2 ** 62, 1))
    with pytest.raises(RuntimeError, match=r"offset 3 reach an element past int64"):
        base.as_strided((2,), (2 ** 63 - 1,), 3)
    with pytest.raises(RuntimeError, match="at least 9223372036854775808 elements, but the "
                                           "storage holds only 4"):
        base.as_strided((2,), (2 ** 63 - 1,))


# ---- pad ----------------------------------------------------------------------------------

NP_MODE = {"constant": "constant", "reflect": "reflect", "replicate": "edge", "circular": "wrap"}


def np_pad(x, pad, mode, value=0):
    widths = [(0, 0)] * x.ndim
    for j in range(len(pad) // 2):
        widths[x.ndim - 1 - j] = (pad[2 * j], pad[2 * j + 1])
    if mode == "constant":
        return np.pad(x, widths, mode="constant", constant_values=value)
    return np.pad(x, widths, mode=NP_MODE[mode])


@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
@pytest.mark.parametrize("pad", [(1, 2), (0, 0), (2, 1, 1, 0), (1, 1, 2, 2, 0, 1), (3, 0)])
def test_pad_modes(mode, pad):
    a = arr((2, 3, 4))
    check(lambda t: F.pad(t, pad, mode), lambda x: np_pad(x, pad, mode), a)
    check(lambda t: F.pad(noncontiguous(t), pad, mode=mode), lambda x: np_pad(x, pad, mode), a)


@pytest.mark.parametrize("dtype", REPRESENTATIVE)
def test_pad_dtypes(dtype):
    a = arr((3, 4), dtype)
    check(lambda t: F.pad(t, (1, 1, 1, 0)), lambda x: np_pad(x, (1, 1, 1, 0), "constant"), a)
    check(lambda t: F.pad(t, (2, 1), "reflect"), lambda x: np_pad(x, (2, 1), "reflect"), a)


def test_pad_constant_value_and_negative():
    a = arr((3, 4))
    check(lambda t: F.pad(t, (1, 1), value=2.5), lambda x: np_pad(x, (1, 1), "constant", 2.5), a)
    check(lambda t: F.pad(t, [-1, 2, 0, -2]), lambda x: np_pad(x[:1, 1:], (0, 2), "constant"), a)
    i = to_tensor(np.arange(4))
    assert_close(F.pad(i, (1, 0), value=7), np.array([7, 0, 1, 2, 3]))
    check(lambda t: F.pad(t, (1, 1)), lambda x: np.pad(x, 1), np.zeros(0, np.float32))
    check(lambda t: F.pad(t, ()), lambda x: x.copy(), np.array(2.0))
    # circular with a negative amount indexes modulo the original size
    assert_close(F.pad(tl.arange(5), (-1, 2), "circular"), np.array([1, 2, 3, 4, 0, 1]))
    assert_close(F.pad(tl.arange(5.0), (-1, 2), "reflect"), np.array([1, 2, 3, 4, 3, 2], np.float32))


def test_pad_is_a_copy():
    base = tl.tensor(arr((2, 2)))
    for mode in NP_MODE:
        out = F.pad(base, (0, 0), mode)
        out[0, 0] = 9.0
        assert base[0, 0].item() != 9.0


def test_pad_errors():
    t = tl.zeros(1, 3)
    with pytest.raises(RuntimeError, match="Padding length must be divisible by 2"):
        F.pad(t, (1,))
    with pytest.raises(RuntimeError, match="Padding length should be less than or equal to two "
                                           "times the input dimension but got padding length 6 "
                                           "and input of dimension 2"):
        F.pad(t, (1,) * 6)
    with pytest.raises(RuntimeError, match=r"Padding size should be less than the corresponding "
                                           r"input dimension, but got: padding \(3, 3\) at "
                                           r"dimension 1 of input \[1, 3\]"):
        F.pad(t, (3, 3), "reflect")
    with pytest.raises(RuntimeError, match="wrapping around more than once"):
        F.pad(t, (4, 0), "circular")
    with pytest.raises(RuntimeError, match="negative output size"):
        F.pad(t, (-2, -2))
    with pytest.raises(RuntimeError, match="doesn't take in value"):
        F.pad(t, (1, 1), "reflect", 1.0)
    with pytest.raises(NotImplementedError, match="Unrecognised padding mode"):
        F.pad(t, (1, 1), "mirror")
    with pytest.raises(RuntimeError, match="too large"):
        F.pad(tl.zeros(3), (2, -2), "reflect")


def test_pad_refuses_emptying_a_dimension_in_pytorchs_words():
    # the non-constant modes want every padded size >= 1 (circular: >= 0),
    # worded by how many of the last three dims are padded
    x = tl.zeros(1, 2, 3)
    for mode in ("reflect", "replicate"):
        with pytest.raises(RuntimeError, match=r"^input \(W: 3\) is too small\. Calculated "
                                               r"output W: -1$"):
            F.pad(x, (-4, 0), mode)
        with pytest.raises(RuntimeError, match=r"^input \(W: 3\) is too small\. Calculated "
                                               r"output W: 0$"):
            F.pad(x, (0, -3), mode)
        with pytest.raises(RuntimeError, match=r"^Calculated output H: -1 W: 3 must be >= 1 in "
                                               r"every dimension \(input H: 3, W: 3\)$"):
            F.pad(tl.zeros(1, 1, 3, 3), (0, 0, -4, 0), mode)
        with pytest.raises(RuntimeError, match=r"^Calculated output D: 2 H: 3 W: 0 must be >= 1 "
                                               r"in every dimension \(input D: 2, H: 3, W: 3\)$"):
            F.pad(tl.zeros(1, 1, 2, 3, 3), (-1, -2, 0, 0, 0, 0), mode)
    with pytest.raises(RuntimeError, match="^Negative padding value is resulting in an empty "
                                           "dimension$"):
        F.pad(x, (-4, 0), "circular")
    assert F.pad(x, (-3, 0), "circular").shape == (1, 2, 0)
    with pytest.raises(RuntimeError, match=r"^pad: negative padding \(0, -2\) leaves dimension 0 "
                                           r"of size 2 with 0 elements, where replicate padding "
                                           r"needs at least 1$"):
        F.pad(tl.zeros(2, 1, 1, 1), (0, 0) * 3 + (0, -2), "replicate")
    assert F.pad(x, (-2, 0), "reflect").shape == (1, 2, 1)
    with pytest.raises(RuntimeError, match=r"^Padding value causes wrapping around more than "
                                           r"once\. \("):
        F.pad(x, (4, 0), "circular")


# ---- meshgrid -------------------------------------------------------------------------

@pytest.mark.parametrize("indexing", ["ij", "xy"])
@pytest.mark.parametrize("shapes", [[(3,), (4,)], [(2,), (3,), (4,)], [(), (3,)], [(5,)],
                                    [(0,), (2,)]])
def test_meshgrid(indexing, shapes):
    xs = [arr(s, seed=i) for i, s in enumerate(shapes)]
    outs = tl.meshgrid(*[to_tensor(x) for x in xs], indexing=indexing)
    for o, e in zip(outs, np.meshgrid(*xs, indexing=indexing)):
        assert_close(o, e)
    outs = tl.meshgrid([to_tensor(x) for x in xs], indexing=indexing)
    assert len(outs) == len(xs)


def test_meshgrid_views_and_errors():
    x = tl.tensor([1.0, 2.0, 3.0])
    gx, gy = tl.meshgrid(x, tl.tensor([0.0, 1.0]))
    assert gx.stride() == (1, 0) and shares_memory(gx, x)
    with pytest.raises(RuntimeError, match=r"Expected 0D or 1D tensor in the tensor list but "
                                           r"got: \[2, 2\]"):
        tl.meshgrid(tl.zeros(2, 2))
    with pytest.raises(RuntimeError, match="indexing must be one of"):  # PyTorch's class
        tl.meshgrid(x, indexing="xx")
    with pytest.raises(RuntimeError, match="same dtype"):
        tl.meshgrid(x, tl.tensor([1, 2]))


# ---- view functions and methods are one callable ---------------------------------------

@pytest.mark.parametrize("name", ["permute", "transpose", "swapaxes", "swapdims", "t", "squeeze",
                                  "unsqueeze", "flatten", "ravel", "flip", "roll", "narrow",
                                  "diagonal", "tril", "movedim", "split", "chunk"])
def test_module_function_is_the_method(name):
    assert getattr(tl, name) is getattr(tl.Tensor, name)


def test_method_functions_reject_non_tensors():
    with pytest.raises(TypeError):
        tl.flip([1, 2], 0)


# ---- round trips (hypothesis) ---------------------------------------------------------

shapes = st.lists(st.integers(0, 4), min_size=0, max_size=4).map(tuple)


@given(shapes, st.randoms(use_true_random=False))
def test_reshape_permute_flatten_roundtrip(shape, rnd):
    a = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)
    t = to_tensor(a)
    perm = list(range(len(shape)))
    rnd.shuffle(perm)
    p = t.permute(*perm)
    assert_close(p, np.transpose(a, perm))
    inv = np.argsort(perm).tolist()
    assert_close(p.permute(inv), a)
    flat = p.flatten()
    assert_close(flat, np.transpose(a, perm).ravel())
    assert_close(flat.reshape(p.shape), np.transpose(a, perm))
    assert_close(t.reshape(-1).view(shape) if a.size else t.reshape(shape), a)


@given(shapes, st.integers(0, 3), st.integers(1, 3))
def test_cat_split_roundtrip(shape, dim_seed, parts):
    if not shape:
        shape = (2,)
    dim = dim_seed % len(shape)
    a = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    pieces = to_tensor(a).chunk(parts, dim) if shape[dim] else (to_tensor(a),)
    assert_close(tl.cat(pieces, dim), a)
    sizes = [p.shape[dim] for p in pieces]
    assert_close(tl.cat(to_tensor(a).split(sizes, dim), dim), a)
    stacked = tl.stack(to_tensor(a).unbind(dim), dim) if shape[dim] else to_tensor(a)
    assert_close(stacked, a)


# ---- huge arguments are refused before any arithmetic or allocation -----------------------

@pytest.mark.parametrize("call", [
    lambda: tl.zeros(3).repeat(2**62),
    lambda: tl.tile(tl.zeros(2, 3), (2**40, 2**40)),
    lambda: tl.zeros(3).repeat_interleave(2**62),
    lambda: tl.diag(tl.zeros(3), -2**63),
    lambda: tl.diag_embed(tl.zeros(3), 2**62),
    lambda: tl.zeros(3).tensor_split(2**62),
    lambda: F.pad(tl.zeros(3), (2**62, 2**62)),
    lambda: tl.zeros(3).unflatten(0, (2**62, 2**62, -1)),
    lambda: tl.zeros(1).expand(2**62, 2**62),
    lambda: tl.zeros(4).as_strided((2, 2), (2**62, 2**62)),
])
def test_huge_arguments_raise(call):
    with pytest.raises((ValueError, RuntimeError)):
        call()


def test_extreme_offsets_are_empty_or_full():
    a = arr((3, 3))
    check(lambda t: t.diagonal(-2**63), lambda x: np.diagonal(x, -3), a)
    check(lambda t: t.diagonal(2**62), lambda x: np.diagonal(x, 3), a)
    check(lambda t: t.tril(-2**63), lambda x: np.zeros_like(x), a)
    check(lambda t: t.triu(-2**63), lambda x: x.copy(), a)
    check(lambda t: t.roll(-2**63), lambda x: np.roll(x, -2**63 % 9), a)


def factorizations(n, parts):
    """Shapes of `parts` dims whose product is n (n > 0)."""
    if parts == 1:
        return [(n,)]
    out = []
    for d in range(1, n + 1):
        if n % d == 0:
            out += [(d,) + rest for rest in factorizations(n // d, parts - 1)]
    return out


@given(st.lists(st.integers(1, 4), min_size=1, max_size=4), st.randoms(use_true_random=False),
       st.integers(1, 4), st.sampled_from([1, 2]))
def test_view_succeeds_exactly_when_numpy_avoids_a_copy(shape, rnd, parts, step):
    perm = list(range(len(shape)))
    rnd.shuffle(perm)
    base = np.arange(int(np.prod(shape)) * step, dtype=np.int32)
    a = base[::step].reshape(shape).transpose(perm)  # a view of base
    t = tl.tensor(base)[::step].view(shape).permute(perm)  # the same layout on our side
    assert [s for s, n in zip(t.stride(), t.shape) if n > 1] == \
        [s // 4 for s, n in zip(a.strides, a.shape) if n > 1]
    new = rnd.choice(factorizations(a.size, parts))
    try:
        expected = np.reshape(a, new, copy=False)
    except ValueError:
        expected = None
    if expected is None:
        with pytest.raises(RuntimeError, match="view size is not compatible"):
            t.view(new)
        r = t.reshape(new)
        assert_close(r, np.reshape(a, new))
        assert not shares_memory(r, t)
    else:
        v = t.view(new)
        assert_close(v, expected)
        assert shares_memory(v, t)
        assert shares_memory(t.reshape(new), t)


# ---- every dtype through the copying ops -----------------------------------------------

@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_copying_ops_all_dtypes(dtype):
    a, b = arr((3, 4), dtype), arr((3, 4), dtype, seed=1)
    check(lambda x, y: tl.cat([x, y], 1), lambda x, y: np.concatenate([x, y], 1), a, b)
    check(lambda x, y: tl.stack([x, y], 1), lambda x, y: np.stack([x, y], 1), a, b)
    check(lambda x: x.roll((1, -1), (0, 1)), lambda x: np.roll(x, (1, -1), (0, 1)), a)
    check(lambda x: tl.rot90(x), np.rot90, a)
    check(lambda x: x.repeat(2, 1), lambda x: np.tile(x, (2, 1)), a)
    check(lambda x: x.repeat_interleave(2, 0), lambda x: np.repeat(x, 2, 0), a)
    check(lambda x: x.triu(), np.triu, a)
    check(lambda x: tl.diag(x, 1), lambda x: np.diag(x, 1), a)
    check(lambda x: F.pad(x, (1, 1), "replicate"), lambda x: np_pad(x, (1, 1), "replicate"), a)
    check(lambda x: F.pad(x, (1, 2), "circular"), lambda x: np_pad(x, (1, 2), "circular"), a)


@pytest.mark.parametrize("shape", [(0,), (2, 0), (0, 3, 2)])
def test_copying_ops_on_empty_tensors(shape):
    a = arr(shape)
    check(lambda x: tl.cat([x, x], -1), lambda x: np.concatenate([x, x], -1), a)
    check(lambda x: tl.stack([x, x]), lambda x: np.stack([x, x]), a)
    check(lambda x: x.flip(-1), lambda x: np.flip(x, -1), a)
    check(lambda x: x.roll(2, -1), lambda x: np.roll(x, 2, -1), a)
    check(lambda x: x.repeat(*([2] * len(shape))), lambda x: np.tile(x, [2] * len(shape)), a)
    check(lambda x: x.repeat_interleave(3, -1), lambda x: np.repeat(x, 3, -1), a)
    check(lambda x: F.pad(x, (1, 1)), lambda x: np_pad(x, (1, 1), "constant"), a)
    if len(shape) >= 2:
        check(lambda x: x.tril(), np.tril, a)
        check(lambda x: tl.rot90(x, 1, (0, -1)), lambda x: np.rot90(x, 1, (0, -1)), a)


# ---- view(dtype) and the in-place view methods -----------------------------------------

@pytest.mark.parametrize("src,dst", [("float32", "int32"), ("float32", "uint8"), ("uint8", "float32"),
                                     ("float32", "float64"), ("int16", "float16"),
                                     ("float32", "complex64"), ("complex128", "float64"),
                                     ("int8", "bool")])
def test_view_dtype_matches_numpy(src, dst):
    a = arr((2, 8), src)
    if src == "int8":
        a = (a != 0).astype(np.int8)
    base = tl.tensor(a)
    v = base.view(getattr(tl, dst))
    if dst == "float16":  # compare the bits: the values are subnormals
        np.testing.assert_array_equal(v.cpu().numpy().view(np.int16), a)
    else:
        assert_close(v, a.view(np.dtype(dst)))
    assert shares_memory(v, base)
    assert_close(base[:, 4:].view(getattr(tl, dst)), a[:, 4:].view(np.dtype(dst)))


def test_view_dtype_errors():
    t = tl.zeros(2, 3)
    with pytest.raises(RuntimeError, match=r"self.size\(-1\) must be divisible by 2 to view "
                                           "Float as Double"):
        t.view(tl.float64)
    with pytest.raises(RuntimeError, match=r"self.stride\(-1\) must be 1 to view Float as "
                                           "Double"):
        tl.zeros(4, 4).t().view(tl.float64)
    with pytest.raises(RuntimeError, match=r"self.dim\(\) cannot be 0"):
        tl.tensor(1.0).view(tl.float64)
    with pytest.raises(RuntimeError, match=r"self.storage_offset\(\) must be divisible"):
        tl.zeros(5)[1:].view(tl.float64)
    assert tl.tensor(1.0).view(tl.int32).item() == 1065353216


def test_view_dtype_refusals_are_numpys_value_error_and_pytorchs_runtime_error():
    # x.view(dtype) is both libraries' spelling: a refusal is torchlike.ViewError,
    # NumPy's ValueError and PyTorch's RuntimeError, so either except clause holds
    m = np.arange(12, dtype=np.int32).reshape(3, 4)
    t = tl.tensor(m)
    for make, to in [(lambda x: x[:, ::2], "int64"), (lambda x: x[:, :3], "complex128"),
                     (lambda x: x[0, 0], "int64"), (lambda x: x.T, "int16")]:
        with pytest.raises(ValueError):
            make(m).view(np.dtype(to))
        with pytest.raises(tl.ViewError) as e:
            make(t).view(getattr(tl, to))
        assert isinstance(e.value, ValueError) and isinstance(e.value, RuntimeError)
        # in PyTorch's words, which name its scalar types
        assert "Int as " + {"int64": "Long", "complex128": "ComplexDouble",
                            "int16": "Short"}[to] in str(e.value)
    assert issubclass(tl.ViewError, ValueError) and issubclass(tl.ViewError, RuntimeError)
    # an empty tensor reads no memory: its other strides need not divide (NumPy
    # views these; PyTorch refused the strides of the first)
    for shape, to in [((2, 0), "int64"), ((0, 2), "int64"), ((0, 4), "int8"), ((3, 0, 2), "int64")]:
        a = np.zeros(shape, dtype=np.int32)
        v = tl.tensor(a).view(getattr(tl, to))
        assert v.shape == a.view(np.dtype(to)).shape and v.dtype == getattr(tl, to)
        assert v.is_contiguous()
    with pytest.raises(ValueError):  # the last dim's bytes must still divide
        np.zeros((0, 3), dtype=np.int32).view(np.int64)
    with pytest.raises(tl.ViewError, match="divisible by 2"):
        tl.zeros((0, 3), dtype=tl.int32).view(tl.int64)


@pytest.mark.parametrize("dtype", ["complex128", "float64", "int64", "float16"])
def test_view_dtype_is_not_differentiable(dtype):
    """As PyTorch's view(dtype): reinterpreted bytes carry no gradient (its
    backward reshaped the gradient to the input's shape, which fails when the
    element size changes); a view by shape still records."""
    x = tl.randn(4, dtype=tl.float64, requires_grad=True)
    y = x.view(getattr(tl, dtype))
    assert not y.requires_grad and y.grad_fn is None
    assert x.view(2, 2).grad_fn is not None and x.view(-1).requires_grad


def test_inplace_view_methods():
    base = tl.tensor(arr((1, 3, 1)))
    t = base.view(1, 3, 1)
    assert t.squeeze_() is t and t.shape == (3,)
    assert t.unsqueeze_(dim=1).shape == (3, 1)
    assert t.t_().shape == (1, 3)
    assert t.transpose_(0, 1).shape == (3, 1)
    assert t.swapaxes_(0, 1).shape == (1, 3)
    assert t.swapdims_(0, 1).shape == (3, 1)
    t.squeeze_(1)[0] = 5.0
    assert base[0, 0, 0].item() == 5.0  # still a view of base
    c = tl.arange(6.0)
    c.as_strided_((2, 2), (1, 2))
    assert_close(c, np.array([[0, 2], [1, 3]], np.float32))
    with pytest.raises(IndexError):
        c.unsqueeze_(5)
    assert c.shape == (2, 2)  # unchanged after an error


# ---- block_diag, diagflat, tril/triu_indices, cartesian_prod ------------------------------

def test_block_diag():
    import scipy.linalg
    xs = [arr((2, 3)), arr((), seed=1), arr((4,), seed=2), arr((0, 2), seed=3), arr((1, 1), seed=4)]
    check(lambda *ts: tl.block_diag(*ts), lambda *a: scipy.linalg.block_diag(*a), *xs)
    out = tl.block_diag(tl.tensor([[1, 2]], dtype=tl.int8), tl.tensor([[0.5]]))
    assert out.dtype == tl.float32
    assert tl.block_diag().shape == (1, 0)
    with pytest.raises(RuntimeError, match="Input tensors must have 2 or fewer dimensions. Input 1 "
                                           "has 3 dimensions"):
        tl.block_diag(tl.zeros(2), tl.zeros(1, 1, 1))


@pytest.mark.parametrize("shape,k", [((3,), 0), ((2, 2), 1), ((2, 3), -2), ((), 0), ((0,), 1)])
def test_diagflat(shape, k):
    a = arr(shape)
    check(lambda t: tl.diagflat(t, k), lambda x: np.diagflat(x, k), a)
    check(lambda t: noncontiguous(t).diagflat(offset=k), lambda x: np.diagflat(x, k), a)


@pytest.mark.parametrize("row,col,k", [(3, 3, 0), (3, 4, 1), (4, 3, -1), (0, 3, 0), (3, 0, 0),
                                       (2, 5, -4), (2, 2, 9)])
def test_tril_triu_indices(row, col, k):
    assert_close(tl.tril_indices(row, col, k), np.array(np.tril_indices(row, k, col)).reshape(2, -1))
    assert_close(tl.triu_indices(row, col, offset=k),
                 np.array(np.triu_indices(row, k, col)).reshape(2, -1))
    assert tl.tril_indices(row, col, k, dtype=tl.int32).dtype == tl.int32
    with pytest.raises(RuntimeError, match="not implemented for 'float32'"):
        tl.tril_indices(2, 2, dtype=tl.float32)


def test_cartesian_prod():
    a, b, c = np.array([1, 2]), np.array([3, 4, 5]), np.array([6])
    expected = np.array([(x, y, z) for x in a for y in b for z in c])
    assert_close(tl.cartesian_prod(to_tensor(a), to_tensor(b), to_tensor(c)), expected)
    assert_close(tl.cartesian_prod(to_tensor(a)), a)
    with pytest.raises(RuntimeError, match=r"Expect a 1D vector, but got shape \[2, 2\]"):
        tl.cartesian_prod(tl.zeros(2, 2), tl.zeros(2))


# ---- no leaks: inputs' refcounts and the process's memory stay flat ------------------------

def _swallow(fn):
    def call():
        try:
            fn()
        except (RuntimeError, IndexError, ValueError, TypeError):
            pass
    return call


_X = tl.tensor(np.arange(24.0, dtype=np.float32).reshape(4, 6))
_Y = tl.tensor(np.arange(24.0, dtype=np.float64).reshape(4, 6))
_R = tl.tensor([1, 0, 2, 1])
LEAK_CALLS = {
    "cat": lambda: tl.cat([_X, _Y], 1),
    "stack": lambda: tl.stack((_X, _X)),
    "hstack": lambda: tl.hstack([_X, _Y]),
    "split": lambda: _X.split([1, 3]),
    "tensor_split": lambda: tl.tensor_split(_X, _R, 1),
    "unbind": lambda: _X.unbind(1),
    "flip": lambda: _X.flip(0, 1),
    "roll": lambda: _X.roll((1, 2), (0, 1)),
    "rot90": lambda: _X.rot90(),
    "repeat": lambda: _X.repeat(2, 1, 2),
    "repeat_interleave": lambda: _X.repeat_interleave(_R, 0),
    "tril": lambda: _X.tril(1),
    "diag_embed": lambda: tl.diag_embed(_X),
    "block_diag": lambda: tl.block_diag(_X, _Y),
    "cartesian_prod": lambda: tl.cartesian_prod(_R, _R),
    "pad": lambda: F.pad(_X, (1, 2, 1, 0), "reflect"),
    "meshgrid": lambda: tl.meshgrid(_R, _R, indexing="xy"),
    "broadcast_tensors": lambda: tl.broadcast_tensors(_X, _R[:1]),
    "views": lambda: (_X.unfold(1, 2, 2), _X.diagonal(1), _X.narrow(0, 1, 2), _X.movedim(0, 1),
                      _X.as_strided((2, 2), (1, 2)), _X.view(tl.int32), _X.unflatten(1, (2, 3))),
    "inplace views": lambda: _X.view(4, 6).unsqueeze_(0).squeeze_(0).t_(),
    "errors": _swallow(lambda: tl.cat([_X, tl.zeros(3)])),
    "errors 2": _swallow(lambda: _X.split([1, 1])),
    "errors 3": _swallow(lambda: F.pad(_X, (9, 9), "reflect")),
    "errors 4": _swallow(lambda: tl.stack([_X, 1])),
    "errors 5": _swallow(lambda: _X.view(-1, -1)),
}


@pytest.mark.parametrize("name", list(LEAK_CALLS))
def test_shape_ops_do_not_leak(name):
    import gc
    import sys
    call = LEAK_CALLS[name]
    for _ in range(50):
        call()
    gc.collect()
    refs = [sys.getrefcount(o) for o in (_X, _Y, _R)]
    assert_loop_rss_flat(call, label=name)
    assert [sys.getrefcount(o) for o in (_X, _Y, _R)] == refs


# ---- select, narrow_copy and the *_scatter inverses of views ------------------------------

def test_select_is_a_view():
    a = arr((3, 4, 5))
    check(lambda t: tl.select(t, 1, -1), lambda x: x[:, -1], a)
    check(lambda t: t.select(dim=2, index=0), lambda x: x[..., 0], a)
    base = tl.tensor(a)
    base.select(0, 2)[1, 1] = 42.0
    assert base[2, 1, 1].item() == 42.0
    with pytest.raises(IndexError, match="index 3 is out of bounds for dimension 0 with size 3"):
        base.select(0, 3)
    with pytest.raises(IndexError, match="select\\(\\) cannot be applied to a 0-dim tensor."):
        tl.tensor(1.0).select(0, 0)


def test_narrow_copy_is_a_copy():
    base = tl.tensor(arr((4, 5)))
    c = tl.narrow_copy(base, 1, 1, 3)
    assert_close(c, arr((4, 5))[:, 1:4])
    c[0, 0] = 100.0
    assert base[0, 1].item() != 100.0


def _np_scatter(a, view, src):
    out = a.copy()
    view(out)[...] = src
    return out


@pytest.mark.parametrize("dim,index", [(0, 1), (1, -1), (-1, 0)])
def test_select_scatter(dim, index):
    a = arr((3, 4, 2))
    src_shape = tuple(s for i, s in enumerate(a.shape) if i != dim % 3)
    src = arr(src_shape, seed=1)
    expected = a.copy()
    idx = [slice(None)] * 3
    idx[dim] = index
    expected[tuple(idx)] = src
    check(lambda x, s: tl.select_scatter(x, s, dim, index), lambda x, s: expected, a, src)


@pytest.mark.parametrize("dim,start,end,step", [(0, None, None, 1), (1, 1, 3, 1), (1, -3, None, 2),
                                                (0, 2, 100, 1), (1, 3, 1, 1)])
def test_slice_scatter(dim, start, end, step):
    a = arr((4, 5))
    idx = [slice(None)] * 2
    idx[dim] = slice(start, end, step)
    src = arr(a[tuple(idx)].shape, seed=1)
    check(lambda x, s: x.slice_scatter(s, dim, start, end, step),
          lambda x, s: _np_scatter(x, lambda o: o[tuple(idx)], s), a, src)


@pytest.mark.parametrize("offset,d1,d2", [(0, 0, 1), (1, 0, 1), (-1, 1, 0), (0, 0, 2)])
def test_diagonal_scatter(offset, d1, d2):
    a = arr((3, 4, 3))
    src = arr(np.diagonal(a, offset, d1, d2).shape, seed=1)
    idx = np.diagonal(np.arange(a.size).reshape(a.shape), offset, d1, d2)
    expected = a.copy()
    expected.reshape(-1)[idx.ravel()] = src.ravel()
    check(lambda x, s: tl.diagonal_scatter(x, s, offset, d1, d2), lambda x, s: expected, a, src)


def test_scatter_errors_and_input_untouched():
    base = tl.zeros(3, 4)
    out = base.select_scatter(tl.ones(4), 0, 0)
    assert base.cpu().numpy().sum() == 0.0 and out.cpu().numpy().sum() == 4.0
    with pytest.raises(RuntimeError, match=r"select_scatter: expected src to have a size equal to "
                                           r"the slice of self. src size = \[3\], slice size = \[4\]"):
        tl.select_scatter(base, tl.ones(3), 0, 0)
    with pytest.raises(RuntimeError, match="slice step must be positive"):
        base.slice_scatter(tl.ones(3, 4), step=0)
    with pytest.raises(TypeError, match="argument 'src' must be Tensor"):
        base.diagonal_scatter([1, 2, 3])


# ---- hypothesis: pad, roll, flip and tensor_split against NumPy on random shapes -----------

@given(st.lists(st.integers(1, 4), min_size=1, max_size=3), st.randoms(use_true_random=False),
       st.sampled_from(["constant", "reflect", "replicate", "circular"]))
def test_pad_random(shape, rnd, mode):
    a = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    pad = []
    for d in range(rnd.randint(1, len(shape))):
        n = shape[len(shape) - 1 - d]
        hi = n - 1 if mode == "reflect" else n if mode in ("circular", "replicate") else 3
        pad += [rnd.randint(0, hi), rnd.randint(0, hi)]
    assert_close(F.pad(to_tensor(a), pad, mode), np_pad(a, pad, mode))


@given(st.lists(st.integers(0, 5), min_size=1, max_size=4), st.randoms(use_true_random=False),
       st.sampled_from(["reflect", "replicate"]),
       st.sampled_from([np.int8, np.float32, np.complex128]), st.booleans())
def test_pad_crop_random(shape, rnd, mode, dtype, transposed):
    """Negative amounts crop before the mirror or edge is taken, on every
    element size and on transposed inputs: the result is NumPy's pad of the
    cropped array."""
    a = (np.arange(int(np.prod(shape))) % 97).astype(dtype).reshape(shape)
    t = to_tensor(a)
    if transposed:
        t = to_tensor(np.ascontiguousarray(a.T)).T
    pad, crop = [], [slice(None)] * len(shape)
    for j in range(rnd.randint(1, len(shape))):
        d = len(shape) - 1 - j
        left, right = rnd.randint(-2, 3), rnd.randint(-2, 3)
        keep = shape[d] - max(-left, 0) - max(-right, 0)
        if keep < 0:  # cropping more than there is: refused (test_pad_errors)
            left, right, keep = max(left, 0), max(right, 0), shape[d]
        most = max(keep - 1, 0) if mode == "reflect" else 3 if keep else 0  # what it can add
        left, right = min(left, most), min(right, most)
        pad += [left, right]
        crop[d] = slice(max(-left, 0), shape[d] - max(-right, 0))
    if any(min(pad[2 * j:2 * j + 2]) < 0 and shape[-1 - j] + sum(pad[2 * j:2 * j + 2]) < 1
           for j in range(len(pad) // 2)):  # cropped to nothing: refused, as PyTorch does
        with pytest.raises(RuntimeError, match="too small|must be >= 1|needs at least 1"):
            F.pad(t, pad, mode)
        return
    want = np_pad(a[tuple(crop)], [max(p, 0) for p in pad], mode)
    assert_close(F.pad(t, pad, mode), want)


@given(st.lists(st.integers(0, 4), min_size=1, max_size=3), st.randoms(use_true_random=False))
def test_roll_flip_split_random(shape, rnd):
    a = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)
    t = to_tensor(a)
    dims = rnd.sample(range(len(shape)), rnd.randint(0, len(shape)))
    shifts = [rnd.randint(-9, 9) for _ in dims]
    assert_close(t.flip(dims), np.flip(a, dims) if dims else a)
    if dims:
        assert_close(t.roll(shifts, dims), np.roll(a, shifts, dims))
    dim = rnd.randrange(len(shape))
    cuts = sorted(rnd.randint(-5, 6) for _ in range(rnd.randint(0, 3)))
    assert_pieces(t.tensor_split(cuts, dim), np.array_split(a, cuts, axis=dim))
    k = rnd.randint(1, 5)
    assert_pieces(t.tensor_split(k, dim), np.array_split(a, k, axis=dim))
