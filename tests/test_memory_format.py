"""Memory layouts (docs/shapes.md, "Memory layouts"): new results take their
operands' layout as PyTorch's and NumPy's do, clone/_like/to keep a dense
input's strides (preserve_format), and memory_format= asks for
channels_last.  PyTorch's strides and messages come from
tests/golden/memory_format.json (scripts/golden_memory_format.py); NumPy is
the oracle for its own namespace's layouts, and every result's values are
checked against the row-major computation."""
import numpy as np
import pytest

import torchlike as torch
import torchlike.nn.functional as F
import torchlike.numpy as tnp
from oracle import golden_calls, golden_check

CALLS, _golden = golden_calls("memory_format")
# PyTorch's words where ours are the same; ours name the function and say
# why a new tensor cannot preserve a layout, and our types are torchlike's
_SAME = ("required rank", "'memory_format' argument", "preserve memory format")
_DIFFERENT = {
    "T.empty(2, 3, memory_format=T.preserve_format)":
        ("RuntimeError", "unsupported memory format preserve_format"),
    "x.clone(memory_format='channels_last')":
        ("TypeError", "argument 'memory_format' must be torchlike.memory_format, not str"),
    "x.clone(T.channels_last)": ("TypeError", "positional"),
    "x.contiguous(T.channels_last)": ("TypeError", "positional"),
}


@pytest.mark.parametrize("call,expected", CALLS, ids=[c for c, _ in CALLS])
def test_layouts_match_pytorch(call, expected):
    golden_check(_golden, call, expected, same_wording=_SAME, different=_DIFFERENT)


def _values(t):
    return np.asarray(t.detach().contiguous())


# ---- values do not depend on the layout ---------------------------------------------

X4 = torch.randn(2, 3, 4, 5, generator=torch.Generator().manual_seed(1))
CL = X4.contiguous(memory_format=torch.channels_last)
XT = torch.randn(5, 4, generator=torch.Generator().manual_seed(2)).t()


@pytest.mark.parametrize("f", [
    lambda t: t * 2 + 1, torch.exp, torch.relu, torch.sigmoid, F.silu,
    lambda t: F.leaky_relu(t, 0.2), F.hardswish, F.elu, lambda t: t.to(torch.float64),
    torch.clone, lambda t: torch.where(t > 0, t, -t), lambda t: t > 0,
    lambda t: torch.cat([t, t], 1), lambda t: torch.cat([t, t.contiguous(), t], 0),
], ids=["affine", "exp", "relu", "sigmoid", "silu", "leaky_relu", "hardswish", "elu", "to",
        "clone", "where", "gt", "cat", "cat_mixed"])
@pytest.mark.parametrize("x", [CL, XT, X4.permute(3, 1, 0, 2), X4[:, ::2, :, 1:]],
                         ids=["channels_last", "transposed", "permuted", "sliced"])
def test_values_are_the_row_major_ones(f, x):
    got, want = f(x), f(x.contiguous())
    np.testing.assert_allclose(_values(got), _values(want), rtol=1e-6, atol=1e-7)
    assert got.dtype == want.dtype and got.shape == want.shape


def test_gradients_of_permuted_inputs_match_row_major_ones():
    w = torch.randn(3, dtype=torch.float64, requires_grad=True)
    for make in (lambda t: t.contiguous(memory_format=torch.channels_last),
                 lambda t: t.permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2)):
        base = torch.randn(2, 3, 4, 5, dtype=torch.float64)
        a = make(base).requires_grad_()
        b = base.clone().requires_grad_()
        for x in (a, b):
            (F.gelu(x) * F.prelu(x, w) + x.exp()).sum().backward()
        np.testing.assert_allclose(_values(a.grad), _values(b.grad), rtol=1e-12)
    assert torch.autograd.gradcheck(
        lambda t: F.silu(t.contiguous(memory_format=torch.channels_last) * 3).sum(),
        (torch.randn(1, 2, 2, 3, dtype=torch.float64, requires_grad=True),))


def test_in_place_and_out_writes_keep_the_target_layout():
    y = CL.clone()
    y.mul_(2).relu_()
    assert y.stride() == CL.stride()
    np.testing.assert_allclose(_values(y), _values(torch.relu(X4 * 2)))
    out = torch.empty(2, 3, 4, 5, memory_format=torch.channels_last)
    F.relu(X4, inplace=False)
    torch.add(X4, 1, out=out)
    assert out.stride() == CL.stride()
    np.testing.assert_allclose(_values(out), _values(X4 + 1))


def test_device_copies_keep_layouts():
    """A device with only a byte copy (the fake backend) moves a dense
    permuted tensor as one block each way, in its layout; a clone there
    keeps it too.  (Run in a subprocess: a host read of fake memory would
    kill the interpreter.)"""
    from nn_fake_device import run_on_fake_device
    run_on_fake_device("""
        x = T.rand(2, 3, 4, 5).contiguous(memory_format=T.channels_last)
        for src in (x, T.rand(5, 4).t()):
            t = src.to("fake")
            assert t.stride() == src.stride(), t.stride()
            c = t.clone()
            assert c.stride() == src.stride(), c.stride()
            back = c.cpu()
            assert back.stride() == src.stride() and T.equal(back, src)
        # a change of layout on the device is a strided copy: a kernel the
        # fake device lacks, refused by name rather than done byte-wise
        expect_no_kernel(lambda: T.rand(2, 3, 4, 5).to("fake").to(
            memory_format=T.channels_last), "copy_")
        print("ok")
    """)


# ---- NumPy's namespace: its results keep layouts as NumPy's K order does --------------

A = np.arange(12.0).reshape(3, 4)


@pytest.mark.parametrize("expr", [
    "np.exp(a.T)", "a.T * 2", "np.negative(a.T)", "a.T + a.T", "np.copy(a.T)",
    "np.empty_like(a.T)", "a.T.astype(np.float32)", "np.sqrt(np.asfortranarray(a))",
    "np.ones((2, 3, 4)).transpose(2, 0, 1) * 3", "np.ascontiguousarray(a.T) * 2",
    "a.T.copy()", "np.array(a.T)", "np.zeros_like(a.T)", "np.where(a.T > 3, a.T, 0)",
    "np.clip(a.T, 1, 5)", "np.add(a.T, 1, order='C')", "np.square(a[:, ::2].T)",
    "a.T.astype(np.float32, order='C')", "a.T.astype(np.float32, order='A')",
    "a.astype(np.float32, order='A')", "a.T.astype(np.float32, order='F')",
], ids=lambda e: e)
def test_numpy_namespace_layouts_match_numpy(expr):
    want = eval(expr, {"np": np, "a": A})
    got = eval(expr, {"np": tnp, "a": tnp.asarray(A)})
    assert got.strides == want.strides, expr
    if "empty_like" not in expr:
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-15)
