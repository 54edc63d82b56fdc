"""Autograd node names and classes against PyTorch's (tests/golden/grad_fn_names.json,
recorded by scripts/golden_grad_fn_names.py): the overload a call picks
(SumBackward1 for sum(dim)), aliases under the canonical op's name, and one
class per name.  OWN_NAMES are the calls whose op PyTorch builds from others
(its node is the last of them) while torchlike's node computes the whole op
under the op's own name (docs/autograd.md, "Node names")."""
import json
import os
import re
import sys
import warnings

import pytest

import torchlike as T

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "scripts"))
from golden_grad_fn_names import describe, inputs  # noqa: E402

with open(os.path.join(HERE, "golden", "grad_fn_names.json")) as f:
    GOLDEN = json.load(f)["calls"]

OWN_NAMES = {
    'x.tensor_split(2)',
    'x.diag()',
    'm.diag()',
    'x.logit()',
    'x.deg2rad()',
    'T.rsub(x, y)',
    'x.lerp(y, 0.5)',
    'x.lerp(y, x)',
    'x.addcmul(x, y)',
    'x.addcdiv(x, y)',
    'F.celu(x)',
    'F.softsign(x)',
    'F.tanhshrink(x)',
    'F.linear(x[None], m)',
    'F.linear(x[None], m, v)',
    'T.outer(v, v)',
    'T.kron(v, v)',
    'T.tensordot(x, m, 1)',
    "T.einsum('ij,jk->ik', x, m)",
    "T.einsum('ij->j', x)",
    'T.cdist(x, y)',
    'F.pairwise_distance(x, y)',
    'T.trapezoid(x)',
    'T.logdet(m)',
    'T.linalg.matrix_power(m, 3)',
    'T.linalg.matrix_exp(m)',
    'T.cholesky_solve(v[:, None], m.tril())',
    'F.l1_loss(x, y)',
    'F.cross_entropy(x, k)',
    'F.cross_entropy(x, k, label_smoothing=0.1)',
    'F.kl_div(x, y)',
    'F.soft_margin_loss(x, y.detach().sign())',
    'F.rms_norm(x, (4,))',
    'F.local_response_norm(img, 2)',
    "F.pad(img, (1, 1, 1, 1), mode='circular')",
    'F.avg_pool1d(x[None], 2)',
    'F.max_pool1d(x[None], 2)',
    'F.adaptive_avg_pool1d(x[None], 2)',
    'F.pixel_shuffle(T.cat([img, img], 1), 2)',
    'T.polar(x, y)',
    'T.complex(x, y)',
    'T.real(z)',
    'T.imag(z)',
    'z.conj()',
    'T.fft.fft(x)',
    'T.stft(v.repeat(8), 8, return_complex=True)',
    'T.cartesian_prod(v, v)',
    'T.atleast_2d(v)',
    'T.std_mean(x, 0)',
    'T.var_mean(x)',
    'T.cov(x)',
    'x.renorm(2, 0, 1)',
    'x.nanmean()',
    'F.celu(x, inplace=True)',
}


def run(call):
    env = inputs(T)
    env["x"] = env["x"] * 1  # in-place calls need a non-leaf to write into
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return describe(eval(call, env))


@pytest.mark.parametrize("call,want", [c for c in GOLDEN if c[1] and c[1][0] != "raises"],
                         ids=[c[0] for c in GOLDEN if c[1] and c[1][0] != "raises"])
def test_node_name_as_pytorch(call, want):
    got = run(call)
    assert got is not None, f"{call}: no grad_fn (PyTorch: {want[0]})"
    name, cls = got
    if call in OWN_NAMES:
        assert name != want[0], f"{call} now matches PyTorch: drop it from OWN_NAMES"
        assert re.fullmatch(r"(torch::autograd::)?[A-Z][A-Za-z0-9]*Backwards?\d?", name), name
        assert cls == name.rsplit("::", 1)[-1]
    else:
        assert [name, cls] == want


def test_every_listed_call_is_recorded():
    assert OWN_NAMES <= {c for c, _ in GOLDEN}


def test_node_classes():
    x = T.ones(2, requires_grad=True)
    y = x * 2
    node = y.grad_fn
    assert type(node).__name__ == "MulBackward0" and type(node).__module__ == "builtins"
    assert isinstance(node, T.autograd.graph.Node)
    assert repr(node).startswith("<MulBackward0 object at 0x")
    assert type(x.mul(3).grad_fn) is type(node)  # one class per name
    acc = node.next_functions[0][0]
    assert type(acc).__name__ == "AccumulateGrad"
    assert acc.name() == "torch::autograd::AccumulateGrad"
    assert repr(y).endswith(", grad_fn=<MulBackward0>)")
    with pytest.raises(TypeError):
        type(node)()


def test_custom_function_node_name():
    class Square(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * x

        @staticmethod
        def backward(ctx, g):
            return g

    out = Square.apply(T.ones(2, requires_grad=True))
    assert out.grad_fn.name() == type(out.grad_fn).__name__ == "SquareBackward"


def test_cartesian_prod_gradient_values():
    """(gradchecked in test_grad_shape.py)"""
    a = T.tensor([1.0, 2.0, 3.0], dtype=T.float64, requires_grad=True)
    b = T.tensor([0.5, -1.0], dtype=T.float64, requires_grad=True)
    out = T.cartesian_prod(a, b)
    (out * T.arange(12.0, dtype=T.float64).reshape(6, 2)).sum().backward()
    # column 0 holds a[i] for rows 2i, 2i+1 (weights 0, 2 / 4, 6 / 8, 10)
    assert a.grad.tolist() == [2.0, 10.0, 18.0]
    assert b.grad.tolist() == [1.0 + 5.0 + 9.0, 3.0 + 7.0 + 11.0]
