"""Gradients of the views and shape ops (src/grad/formulas_shape.c).

Every function is gradchecked in float64 in several argument forms: method
and function calls, keyword arguments, negative dims, non-contiguous inputs.
A few are gradgradchecked, and the gradients of multi-output functions are
compared with NumPy when only some outputs are used."""
import numpy as np
import pytest

import torchlike as torch
from torchlike.autograd import gradcheck, gradgradcheck
from oracle import noncontiguous

F = torch.nn.functional

GRADCHECKED = {
    "reshape", "view", "view_as", "reshape_as", "flatten", "unflatten", "ravel", "permute",
    "transpose", "swapaxes", "swapdims", "t", "adjoint", "_linalg_adjoint", "movedim",
    "moveaxis", "squeeze", "unsqueeze", "expand", "expand_as", "broadcast_to",
    "broadcast_tensors", "diagonal", "narrow", "select", "as_strided", "unfold", "split",
    "chunk", "unbind", "tensor_split", "hsplit", "vsplit", "dsplit", "atleast_1d",
    "atleast_2d", "atleast_3d", "cat", "concat", "concatenate", "stack", "hstack", "vstack",
    "row_stack", "dstack", "column_stack", "flip", "fliplr", "flipud", "roll", "rot90",
    "repeat", "tile", "repeat_interleave", "tril", "triu", "diag", "diag_embed", "diagflat",
    "narrow_copy", "meshgrid", "block_diag", "cartesian_prod", "_pad", "select_scatter", "slice_scatter",
    "diagonal_scatter",
}

_rng = np.random.default_rng(1234)


def leaf(*shape, nc=False):
    """A float64 leaf that requires grad (nc: viewed through strides)."""
    t = torch.tensor(_rng.standard_normal(shape), dtype=torch.float64)
    if nc:
        t = noncontiguous(t)
        assert t.ndim == 0 or t.shape[-1] <= 1 or not t.is_contiguous()
    return t.requires_grad_()


# (formula name, case id, function, input shapes; a shape ending in "nc" is
# made non-contiguous)
CASES = [
    ("reshape", "method", lambda x: x.reshape(3, 4), [(2, 6)]),
    ("reshape", "func_tuple_nc", lambda x: torch.reshape(x, (-1,)), [(3, 4, "nc")]),
    ("view", "method", lambda x: x.view(4, 3), [(2, 6)]),
    ("view", "size", lambda x: x.view(torch.Size([2, 2, 3])), [(12,)]),
    ("view_as", "method", lambda x: x.view_as(torch.zeros(6)), [(2, 3)]),
    ("reshape_as", "nc", lambda x: x.reshape_as(torch.zeros(6, 1)), [(2, 3, "nc")]),
    ("flatten", "dims", lambda x: x.flatten(1, -1), [(2, 3, 2)]),
    ("flatten", "func_0d", lambda x: torch.flatten(x), [()]),
    ("unflatten", "neg", lambda x: x.unflatten(-1, (2, 3)), [(2, 6)]),
    ("unflatten", "kw", lambda x: torch.unflatten(x, dim=0, sizes=(3, -1)), [(6,)]),
    ("ravel", "nc", lambda x: x.ravel(), [(2, 3, "nc")]),
    ("permute", "varargs", lambda x: x.permute(2, 0, 1), [(2, 3, 4)]),
    ("permute", "func_kw_neg", lambda x: torch.permute(x, dims=(-1, 0, 1)), [(2, 3, 4, "nc")]),
    ("transpose", "neg", lambda x: x.transpose(0, -1), [(2, 3, 4)]),
    ("transpose", "func_kw", lambda x: torch.transpose(x, dim0=1, dim1=0), [(2, 3, "nc")]),
    ("swapaxes", "method", lambda x: x.swapaxes(-1, -2), [(2, 3, 4)]),
    ("swapdims", "func", lambda x: torch.swapdims(x, 0, 2), [(2, 3, 4)]),
    ("t", "method", lambda x: x.t(), [(2, 3)]),
    ("t", "1d", lambda x: torch.t(x), [(3,)]),
    ("adjoint", "method", lambda x: x.adjoint(), [(2, 3)]),
    ("_linalg_adjoint", "mH", lambda x: x.mH, [(2, 3, 4)]),
    ("movedim", "method", lambda x: x.movedim(0, -1), [(2, 3, 4)]),
    ("movedim", "func_lists", lambda x: torch.movedim(x, (0, 1), (2, 0)), [(2, 3, 4, "nc")]),
    ("moveaxis", "kw", lambda x: torch.moveaxis(x, source=-1, destination=0), [(2, 3, 4)]),
    ("squeeze", "all", lambda x: x.squeeze(), [(2, 1, 3, 1)]),
    ("squeeze", "dim_neg", lambda x: x.squeeze(-1), [(2, 1, 3, 1)]),
    ("squeeze", "dims_kw", lambda x: torch.squeeze(x, dim=(0, 2)), [(1, 2, 1)]),
    ("unsqueeze", "neg", lambda x: x.unsqueeze(-1), [(2, 3)]),
    ("unsqueeze", "func_kw", lambda x: torch.unsqueeze(x, dim=0), [()]),
    ("expand", "method", lambda x: x.expand(3, 2, 4), [(2, 1)]),
    ("expand", "minus1_nc", lambda x: x.expand(2, -1, 3), [(2, 1, "nc")]),
    ("expand_as", "method", lambda x: x.expand_as(torch.zeros(2, 3, 3)), [(3, 1)]),
    ("broadcast_to", "func", lambda x: torch.broadcast_to(x, (4, 3)), [(3,)]),
    ("broadcast_to", "0d", lambda x: x.broadcast_to((2, 2)), [()]),
    ("broadcast_tensors", "three", lambda x, y, z: torch.broadcast_tensors(x, y, z),
     [(2, 1), (3,), ()]),
    ("diagonal", "default", lambda x: x.diagonal(), [(3, 4)]),
    ("diagonal", "kw_neg", lambda x: torch.diagonal(x, offset=-1, dim1=-1, dim2=0), [(3, 2, 4)]),
    ("diagonal", "nc", lambda x: x.diagonal(1, 0, 2), [(3, 2, 4, "nc")]),
    ("narrow", "neg_start", lambda x: x.narrow(1, -3, 2), [(3, 4)]),
    ("narrow", "func_kw", lambda x: torch.narrow(x, dim=-2, start=1, length=2), [(3, 4, "nc")]),
    ("select", "neg", lambda x: x.select(-1, -2), [(3, 4)]),
    ("select", "func", lambda x: torch.select(x, 0, 1), [(3, 4, "nc")]),
    ("as_strided", "overlap", lambda x: x.as_strided((2, 2), (1, 2), 1), [(3, 4)]),
    ("as_strided", "func_kw", lambda x: torch.as_strided(x, size=(3,), stride=(3,)), [(3, 4)]),
    ("as_strided", "of_view", lambda x: x[1:].as_strided((2, 2), (1, 2)), [(3, 4)]),
    ("unfold", "step1", lambda x: x.unfold(1, 2, 1), [(3, 4)]),
    ("unfold", "neg_kw", lambda x: x.unfold(dimension=-2, size=2, step=2), [(5, 2, "nc")]),
    ("split", "int", lambda x: x.split(2), [(5, 2)]),
    ("split", "list_kw", lambda x: torch.split(x, [1, 3], dim=-1), [(3, 4, "nc")]),
    ("split", "one_used", lambda x: x.split(2, 1)[1], [(2, 5)]),
    ("chunk", "neg", lambda x: torch.chunk(x, 3, -1), [(2, 5)]),
    ("chunk", "method_kw", lambda x: x.chunk(chunks=2, dim=0)[0], [(3, 2)]),
    ("unbind", "method", lambda x: x.unbind(1), [(2, 3)]),
    ("unbind", "func_neg", lambda x: torch.unbind(x, dim=-1)[2], [(2, 3, "nc")]),
    ("tensor_split", "indices_unsorted", lambda x: torch.tensor_split(x, [3, 1], dim=0), [(4, 2)]),
    ("tensor_split", "sections_kw", lambda x: x.tensor_split(sections=3, dim=-1), [(2, 5)]),
    ("hsplit", "sections", lambda x: torch.hsplit(x, 2), [(2, 4)]),
    ("hsplit", "1d_indices", lambda x: x.hsplit([1, 3]), [(5,)]),
    ("vsplit", "func", lambda x: torch.vsplit(x, [1]), [(3, 2, "nc")]),
    ("dsplit", "method", lambda x: x.dsplit(2), [(1, 2, 4)]),
    ("atleast_1d", "0d", lambda x: torch.atleast_1d(x), [()]),
    ("atleast_1d", "several", lambda x, y: torch.atleast_1d(x, y), [(), (2, 2)]),
    ("atleast_2d", "0d", lambda x: torch.atleast_2d(x), [()]),
    ("atleast_2d", "list", lambda x, y: torch.atleast_2d([x, y]), [(3,), (2, 2)]),
    ("atleast_3d", "several", lambda x, y, z: torch.atleast_3d(x, y, z), [(3,), (2, 2), ()]),
    ("cat", "neg_dim", lambda x, y: torch.cat([x, y], dim=-1), [(2, 3), (2, 1, "nc")]),
    ("cat", "tuple_default", lambda x, y: torch.cat((x, y)), [(1, 3), (2, 3)]),
    ("cat", "legacy_empty", lambda x, y: torch.cat([x, torch.zeros(0, dtype=x.dtype), y]),
     [(1, 3), (2, 3)]),
    ("cat", "same_twice", lambda x: torch.cat([x, x], 0), [(2, 2)]),
    ("concat", "axis", lambda x, y: torch.concat([x, y], axis=1), [(2, 1), (2, 2)]),
    ("concatenate", "func", lambda x, y: torch.concatenate([x, y]), [(2,), (3,)]),
    ("stack", "neg", lambda x, y: torch.stack([x, y], -1), [(2, 3), (2, 3, "nc")]),
    ("stack", "kw", lambda x, y: torch.stack(tensors=(x, y), dim=1), [(2,), (2,)]),
    ("hstack", "1d", lambda x, y: torch.hstack([x, y]), [(2,), (3,)]),
    ("hstack", "2d", lambda x, y: torch.hstack((x, y)), [(2, 1), (2, 3)]),
    ("vstack", "mixed", lambda x, y: torch.vstack([x, y]), [(3,), (2, 3)]),
    ("row_stack", "func", lambda x, y: torch.row_stack([x, y]), [(3,), (3,)]),
    ("dstack", "mixed", lambda x, y, z: torch.dstack([x, y, z]), [(3,), (1, 3), (1, 3, 2)]),
    ("column_stack", "mixed", lambda x, y, z: torch.column_stack([x, y, z]), [(3,), (3, 2), (3, 1)]),
    ("flip", "varargs", lambda x: x.flip(0, -1), [(2, 3, 2)]),
    ("flip", "func_kw", lambda x: torch.flip(x, dims=[1]), [(2, 3, "nc")]),
    ("fliplr", "method", lambda x: x.fliplr(), [(2, 3)]),
    ("flipud", "func", lambda x: torch.flipud(x), [(3, 2)]),
    ("roll", "dims", lambda x: x.roll((1, -2), (0, -1)), [(3, 4)]),
    ("roll", "flat", lambda x: torch.roll(x, 2), [(3, 4, "nc")]),
    ("roll", "kw", lambda x: torch.roll(x, shifts=-1, dims=0), [(3, 2)]),
    ("rot90", "default", lambda x: x.rot90(), [(3, 4)]),
    ("rot90", "k3_dims", lambda x: torch.rot90(x, 3, (1, 0)), [(3, 4)]),
    ("rot90", "kw_neg", lambda x: torch.rot90(x, k=-1, dims=[-1, 0]), [(2, 3, 2)]),
    ("repeat", "more_dims", lambda x: x.repeat(2, 1, 3), [(2, 3)]),
    ("repeat", "tuple_nc", lambda x: x.repeat((2, 2)), [(2, 3, "nc")]),
    ("tile", "short", lambda x: x.tile((2,)), [(2, 3)]),
    ("tile", "func", lambda x: torch.tile(x, (3, 1, 2)), [(2,)]),
    ("repeat_interleave", "int_dim", lambda x: x.repeat_interleave(2, dim=0), [(2, 3)]),
    ("repeat_interleave", "flat", lambda x: torch.repeat_interleave(x, 3), [(2, 2)]),
    ("repeat_interleave", "tensor", lambda x: torch.repeat_interleave(
        x, torch.tensor([1, 0, 3]), dim=-1), [(2, 3, "nc")]),
    ("tril", "neg", lambda x: x.tril(-1), [(3, 4)]),
    ("tril", "batched_kw", lambda x: torch.tril(x, diagonal=1), [(2, 3, 3, "nc")]),
    ("triu", "kw", lambda x: torch.triu(x, diagonal=1), [(3, 4)]),
    ("diag", "1d_neg", lambda x: torch.diag(x, -1), [(3,)]),
    ("diag", "2d", lambda x: x.diag(1), [(3, 4)]),
    ("diag", "2d_kw_nc", lambda x: torch.diag(x, diagonal=-1), [(3, 4, "nc")]),
    ("diag_embed", "default", lambda x: torch.diag_embed(x), [(2, 3)]),
    ("diag_embed", "dims", lambda x: x.diag_embed(1, 0, 2), [(2, 3)]),
    ("diagflat", "neg", lambda x: torch.diagflat(x, -1), [(2, 2)]),
    ("diagflat", "kw", lambda x: x.diagflat(offset=2), [(3,)]),
    ("narrow_copy", "method", lambda x: x.narrow_copy(0, 1, 2), [(3, 4)]),
    ("narrow_copy", "func_neg", lambda x: torch.narrow_copy(x, -1, 1, 2), [(3, 4, "nc")]),
    ("meshgrid", "xy", lambda x, y, z: torch.meshgrid(x, y, z, indexing="xy"), [(2,), (3,), (2,)]),
    ("meshgrid", "ij_list", lambda x, y: torch.meshgrid([x, y], indexing="ij"), [(2,), (3,)]),
    ("meshgrid", "one_used", lambda x, y: torch.meshgrid(x, y, indexing="xy")[1], [(2,), (3,)]),
    ("block_diag", "mixed", lambda x, y, z: torch.block_diag(x, y, z), [(2, 3), (2,), ()]),
    ("cartesian_prod", "three", lambda x, y: torch.cartesian_prod(x, y, x), [(3,), (2,)]),
    ("cartesian_prod", "one", lambda x: torch.cartesian_prod(x), [(4,)]),
    ("_pad", "constant", lambda x: F.pad(x, (1, 2)), [(2, 3)]),
    ("_pad", "constant_crop", lambda x: F.pad(x, (1, -1, 2, 0), value=0.5), [(2, 3, "nc")]),
    ("_pad", "reflect", lambda x: F.pad(x, (2, 1), mode="reflect"), [(2, 4)]),
    ("_pad", "reflect_2d", lambda x: F.pad(x, (1, 1, 2, 1), "reflect"), [(1, 3, 4)]),
    ("_pad", "replicate", lambda x: F.pad(x, (2, 1, 1, 1), mode="replicate"), [(1, 2, 3)]),
    ("_pad", "circular", lambda x: F.pad(x, (2, 1), mode="circular"), [(1, 2, 3, "nc")]),
    ("select_scatter", "neg", lambda x, s: torch.select_scatter(x, s, 0, -1), [(3, 4), (4,)]),
    ("select_scatter", "method", lambda x, s: x.select_scatter(s, 1, 0), [(3, 4, "nc"), (3,)]),
    ("slice_scatter", "step", lambda x, s: torch.slice_scatter(x, s, dim=1, start=1, step=2),
     [(3, 4), (3, 2)]),
    ("slice_scatter", "default", lambda x, s: x.slice_scatter(s), [(2, 3), (2, 3)]),
    ("slice_scatter", "neg_dim", lambda x, s: torch.slice_scatter(x, s, -1, 0, 2), [(3, 4), (3, 2)]),
    ("diagonal_scatter", "offset", lambda x, s: torch.diagonal_scatter(x, s, 1), [(3, 4), (3,)]),
    ("diagonal_scatter", "kw_dims", lambda x, s: x.diagonal_scatter(s, offset=-1, dim1=1, dim2=0),
     [(3, 4), (3,)]),
]


def make(shapes):
    return [leaf(*s[:-1], nc=True) if s and s[-1] == "nc" else leaf(*s) for s in shapes]


@pytest.mark.parametrize("name,fn,shapes", [c[0:1] + c[2:] for c in CASES],
                         ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_gradcheck(name, fn, shapes):
    assert gradcheck(fn, make(shapes))


def test_gradchecked_names_are_formulas():
    formulas = torch._C._grad_formulas()
    assert {c[0] for c in CASES} == GRADCHECKED
    missing = sorted(n for n in GRADCHECKED if n in formulas and not formulas[n]
                     and n != "adjoint")  # Tensor.adjoint calls _linalg_adjoint
    assert not missing, missing


@pytest.mark.parametrize("fn,shapes", [
    (lambda x: x.reshape(3, 2) * x.reshape(3, 2), [(2, 3)]),
    (lambda x: x.permute(1, 0) * x.t(), [(2, 3)]),
    (lambda x, y: torch.cat([x, y], -1) * torch.cat([y, x], -1), [(2, 3), (2, 3)]),
    (lambda x: x.expand(3, 2) * x, [(1, 2)]),
    (lambda x: x.tile(2) * x.repeat(2), [(2,)]),
    (lambda x: F.pad(x, (1, 1), mode="reflect") * F.pad(x, (2, 0)), [(2, 3)]),
    (lambda x: torch.stack(x.split(1, 1), 0) * x.unbind(1)[0], [(2, 2)]),
], ids=["reshape", "permute", "cat", "expand", "tile_repeat", "pad", "split_stack"])
def test_gradgradcheck(fn, shapes):
    assert gradgradcheck(fn, make(shapes))


def grad_of(fn, x, seed=0):
    """d/dx of sum(fn(x) * w) for a random w (a single output or a tuple)."""
    x = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    outs = fn(x)
    outs = (outs,) if isinstance(outs, torch.Tensor) else outs
    rng = np.random.default_rng(seed)
    ws = [rng.standard_normal(tuple(o.shape)) for o in outs]
    total = sum((o * torch.tensor(w)).sum() for o, w in zip(outs, ws))
    total.backward()
    return x.grad.cpu().numpy(), ws


def test_split_unused_outputs_get_zeros():
    a = np.arange(10.0).reshape(5, 2)
    g, (w,) = grad_of(lambda x: x.split(2)[1], a)
    expected = np.zeros_like(a)
    expected[2:4] = w
    np.testing.assert_array_equal(g, expected)


def test_unbind_and_meshgrid_partial_use_matches_numpy():
    a = np.arange(6.0).reshape(2, 3)
    g, (w,) = grad_of(lambda x: x.unbind(1)[2], a)
    expected = np.zeros_like(a)
    expected[:, 2] = w
    np.testing.assert_array_equal(g, expected)

    y = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)
    g, (w,) = grad_of(lambda x: torch.meshgrid(x, y, indexing="xy")[0], np.arange(2.0))
    np.testing.assert_allclose(g, w.sum(axis=0))


def test_repeat_and_index_map_ops_add_up_repeats():
    a = np.arange(6.0).reshape(2, 3)
    g, (w,) = grad_of(lambda x: x.repeat(2, 2), a)
    np.testing.assert_allclose(g, w.reshape(2, 2, 2, 3).sum(axis=(0, 2)))
    g, (w,) = grad_of(lambda x: x.repeat_interleave(2, dim=1), a)
    np.testing.assert_allclose(g, w.reshape(2, 3, 2).sum(axis=2))
    g, (w,) = grad_of(lambda x: x.unfold(1, 2, 1), a)
    expected = np.zeros_like(a)
    for k in range(2):
        expected[:, k:k + 2] += w[:, k, :]
    np.testing.assert_allclose(g, expected)
    g, (w,) = grad_of(lambda x: F.pad(x, (2, 2), mode="reflect"), np.arange(4.0))
    expected = np.zeros(4)
    for out_i, src in enumerate([2, 1, 0, 1, 2, 3, 2, 1]):
        expected[src] += w[out_i]
    np.testing.assert_allclose(g, expected)


def test_grad_fn_names_and_edges():
    x = leaf(2, 3)
    assert x.permute(1, 0).grad_fn.name() == "PermuteBackward0"
    assert torch.cat([x, x]).grad_fn.name() == "CatBackward0"
    node = torch.stack([x, leaf(2, 3)]).grad_fn
    assert len(node.next_functions) == 2


def test_integer_results_have_no_history():
    x = leaf(2, 3)
    idx = torch.arange(6).reshape(2, 3)
    assert idx.flip(0).grad_fn is None
    assert not torch.cat([idx, idx]).requires_grad
    assert x.reshape(6).requires_grad


def _through_view(write):
    def f(x, v):
        y = x * 1
        write(y, v)
        return y
    return f


@pytest.mark.parametrize("write", [
    lambda y, v: y.view(6)[1:3].mul_(v[:2]),
    lambda y, v: y.t().select(0, 1).add_(v[:2]),
    lambda y, v: y.diagonal().mul_(v[1:]),
    lambda y, v: y.unflatten(1, (3, 1)).squeeze(-1).narrow(1, 0, 2).mul_(v[1:]),
    lambda y, v: y.transpose(0, 1)[2].sub_(v[:2]),
], ids=["view_slice", "t_select", "diagonal", "unflatten_squeeze_narrow", "transpose_sub"])
def test_inplace_through_shape_views_reaches_the_base(write):
    assert gradcheck(_through_view(write), make([(2, 3), (3,)]))


def test_inplace_through_a_view_of_a_leaf_is_refused():
    x = leaf(2, 3)
    with pytest.raises(RuntimeError, match="leaf"):
        x.view(6)[0] = 1.0
    with pytest.raises(RuntimeError, match="leaf"):
        x.t().mul_(2)


def test_version_check_on_saved_values():
    x = leaf(3)
    y = x * 1
    z = torch.diag(y) * torch.diag(y)  # mul saves the diag outputs
    y.add_(1)  # y itself is not saved by diag: fine
    z.sum().backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), 2 * x.detach().cpu().numpy())
