"""torchlike.library and torchlike.ops: custom operators registered in
Python, differentiable through register_autograd (gradcheck), opcheck, and
``ops.aten`` onto torchlike's functions; PyTorch's answers for the recorded
scenarios (scripts/golden_api_modules.py)."""
import gc

import numpy as np
import pytest

import torchlike as torch
from torchlike.autograd import gradcheck, gradgradcheck
from api_modules_golden import GOLDEN, check


@pytest.mark.parametrize("call,expected", GOLDEN["library"],
                         ids=[c for c, _ in GOLDEN["library"]])
def test_matches_pytorch(call, expected):
    check("library", call, expected)


@torch.library.custom_op("tl_test::scaled_tanh", mutates_args=())
def scaled_tanh(x: torch.Tensor, w: torch.Tensor, k: float = 2.0) -> torch.Tensor:
    return torch.from_numpy(np.tanh(x.numpy() * w.numpy()) * k)


def _tanh_backward(ctx, grad):
    x, w = ctx.saved_tensors
    inner = 1 - torch.tanh(x * w) ** 2
    return grad * inner * w * ctx.k, grad * inner * x * ctx.k, None


def _tanh_setup(ctx, inputs, output):
    x, w, k = inputs
    ctx.save_for_backward(x, w)
    ctx.k = k


scaled_tanh.register_autograd(_tanh_backward, setup_context=_tanh_setup)
scaled_tanh.register_fake(lambda x, w, k=2.0: torch.empty_like(x))


def test_custom_op_values_and_gradcheck():
    rng = np.random.default_rng(0)
    x = torch.tensor(rng.standard_normal((3, 4)), requires_grad=True)
    w = torch.tensor(rng.standard_normal((3, 4)), requires_grad=True)
    np.testing.assert_allclose(scaled_tanh(x, w, 0.5).detach().numpy(),
                               np.tanh(x.detach().numpy() * w.detach().numpy()) * 0.5)
    assert gradcheck(lambda a, b: scaled_tanh(a, b, 1.5), (x, w))
    # the backward is written with torchlike ops: differentiable again
    assert gradgradcheck(lambda a, b: scaled_tanh(a, b), (x, w))
    via_ops = torch.ops.tl_test.scaled_tanh.default(x, w)
    np.testing.assert_array_equal(via_ops.detach().numpy(), scaled_tanh(x, w).detach().numpy())
    assert torch.library.opcheck(scaled_tanh, (x, w)) == {
        t: "SUCCESS" for t in torch.library.DEFAULT_TEST_UTILS}


def test_kernel_runs_below_autograd_and_without_grad():
    x = torch.ones(2, requires_grad=True)
    with torch.no_grad():
        y = scaled_tanh(x, torch.ones(2))
    assert not y.requires_grad
    y = scaled_tanh(torch.ones(2), torch.ones(2))
    assert y.grad_fn is None


def test_opcheck_catches_wrong_backward_and_fake_and_mutation():
    @torch.library.custom_op("tl_test::bad_grad", mutates_args=())
    def bad_grad(x: torch.Tensor) -> torch.Tensor:
        return x * 3

    bad_grad.register_autograd(lambda ctx, g: g * 2)     # should be 3
    bad_grad.register_fake(lambda x: torch.empty_like(x))
    x = torch.randn(3, dtype=torch.float64, requires_grad=True)
    with pytest.raises(torch.library.OpCheckError, match="test_autograd_registration failed"):
        torch.library.opcheck(bad_grad, (x,))
    result = torch.library.opcheck(bad_grad, (x,), raise_exception=False)
    assert result["test_schema"] == "SUCCESS" and isinstance(
        result["test_autograd_registration"], Exception)

    bad_grad.register_fake(lambda x: torch.empty(1))     # wrong shape
    with pytest.raises(torch.library.OpCheckError, match="test_faketensor failed.*shape"):
        torch.library.opcheck(bad_grad, (x.detach(),))

    @torch.library.custom_op("tl_test::sneaky", mutates_args=())
    def sneaky(x: torch.Tensor) -> torch.Tensor:
        x.add_(1)                                          # not declared
        return x.clone()

    sneaky.register_fake(lambda x: torch.empty_like(x))
    with pytest.raises(torch.library.OpCheckError, match="test_schema failed.*mutated"):
        torch.library.opcheck(sneaky, (torch.zeros(2),))


def test_register_kernel_by_device_and_set_kernel_enabled():
    @torch.library.custom_op("tl_test::which", mutates_args=())
    def which(x: torch.Tensor) -> torch.Tensor:
        return x + 0

    which.register_kernel("cpu", lambda x: x + 100)
    assert which(torch.zeros(1)).item() == 100
    with which.set_kernel_enabled("cpu", False):
        assert which(torch.zeros(1)).item() == 0
    assert which(torch.zeros(1)).item() == 100


def test_library_registrations_removed_when_collected():
    lib = torch.library.Library("tl_test_gc", "DEF")
    lib.define("ident(Tensor x) -> Tensor")
    lib.impl("ident", lambda x: x.clone(), "CompositeExplicitAutograd")
    assert torch.ops.tl_test_gc.ident(torch.ones(1)).item() == 1
    del lib
    gc.collect()
    with pytest.raises(AttributeError):
        torch.ops.tl_test_gc.ident
    torch.library.Library("tl_test_gc", "DEF")._destroy()   # the namespace is free again


def test_aten_maps_to_same_named_functions():
    a, b = torch.randn(2, 3), torch.randn(3, 4)
    np.testing.assert_allclose(torch.ops.aten.mm.default(a, b).numpy(), a.numpy() @ b.numpy(),
                               rtol=1e-6)
    np.testing.assert_array_equal(torch.ops.aten.add.Tensor(a, a, alpha=2).numpy(),
                                  a.numpy() + 2 * a.numpy())
    t = torch.tensor([-1.0, 2.0])
    assert torch.ops.aten.relu_.default(t) is t and t.tolist() == [0.0, 2.0]
    assert torch.ops.aten.linalg_vector_norm.default(torch.tensor([3.0, 4.0])).item() == 5.0
    assert torch.ops.aten.special_erf.default(torch.tensor([0.0])).item() == 0.0
    with pytest.raises(RuntimeError, match="cannot load PyTorch C\\+\\+"):
        torch.ops.load_library("libfoo.so")


def test_list_output_and_declared_mutation():
    import typing

    @torch.library.custom_op("tl_test::split2", mutates_args=())
    def split2(x: torch.Tensor) -> typing.List[torch.Tensor]:
        return [x * 2, x * 3]

    split2.register_autograd(lambda ctx, grads: grads[0] * 2 + grads[1] * 3,
                             setup_context=lambda ctx, inputs, output: None)
    split2.register_fake(lambda x: [torch.empty_like(x), torch.empty_like(x)])
    x = torch.randn(3, dtype=torch.float64, requires_grad=True)
    out = split2(x)
    assert isinstance(out, list) and len(out) == 2
    assert gradcheck(lambda a: tuple(split2(a)), (x,))
    assert set(torch.library.opcheck(split2, (x,)).values()) == {"SUCCESS"}

    @torch.library.custom_op("tl_test::addto", mutates_args=("acc",))
    def addto(acc: torch.Tensor, x: torch.Tensor) -> None:
        acc.add_(x)

    acc = torch.zeros(2)
    addto(acc, torch.ones(2))
    assert acc.tolist() == [1.0, 1.0]
    assert str(addto._opoverload._schema) == \
        "tl_test::addto(Tensor(a0!) acc, Tensor x) -> ()"


@torch.library.custom_op("tl_test::weighted_pair", mutates_args=())
def weighted_pair(xs: list[torch.Tensor], w: torch.Tensor) -> torch.Tensor:
    return xs[0] * w + xs[1]


@weighted_pair.register_fake
def _(xs, w):
    return torch.empty_like(xs[0])


def _weighted_pair_setup(ctx, inputs, output):
    ctx.save_for_backward(inputs[0][0], inputs[1])


def _weighted_pair_backward(ctx, g):
    x0, w = ctx.saved_tensors
    return [g * w, g], g * x0


weighted_pair.register_autograd(_weighted_pair_backward, setup_context=_weighted_pair_setup)


def test_tensor_list_input_is_differentiable():
    # the tensors inside a list argument reach the tape, each with its own gradient
    rng = np.random.default_rng(5)
    a, b, w = (torch.tensor(rng.standard_normal(4), requires_grad=True) for _ in range(3))
    y = weighted_pair([a, b], w)
    np.testing.assert_allclose(y.detach().numpy(), a.detach().numpy() * w.detach().numpy()
                               + b.detach().numpy())
    y.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), w.detach().numpy())
    np.testing.assert_allclose(b.grad.numpy(), np.ones(4))
    np.testing.assert_allclose(w.grad.numpy(), a.detach().numpy())
    assert gradcheck(lambda a, b, w: weighted_pair([a, b], w), (a, b, w))
    torch.library.opcheck(weighted_pair, ([a, b], w))
