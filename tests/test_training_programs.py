"""What ordinary PyTorch training scripts touch around the model: formatting
losses into log lines, optional imports (torch.onnx), whole-model
checkpoints, schedulers, DataLoader use. Each test is a short program of our
own in the shape such scripts have; exact PyTorch facts it needs come from
Python's own formatting or from tests/golden/ where noted."""
import io
import pickle

import numpy as np
import pytest

import torchlike as torch
import torchlike.nn as nn
import torchlike.nn.functional as F
from oracle import golden_calls, host_spelling

CALLS, _golden = golden_calls("training_programs")
# messages compared where PyTorch's are its own words (not its C++ argument parser's)
_SAME_MESSAGE = ("T.Tensor(2.5)", "T.Tensor(-1)", "format(x, '.2f')")


@pytest.mark.parametrize("call,expected", CALLS, ids=[c for c, _ in CALLS])
def test_script_calls_match_pytorch(call, expected):
    """Tensor(...) as the legacy constructor, tensor() of deques and other
    Python sequences, 0-d tensors in format strings, spmm."""
    env = _golden.inputs(torch)
    if expected[0] == "raises":
        with pytest.raises(Exception) as e:
            eval(call, env)
        assert type(e.value).__name__ == expected[1], (call, str(e.value))
        if call in _SAME_MESSAGE:
            assert str(e.value).replace("torchlike.", "") == expected[2]
        return
    assert host_spelling(_golden.describe(eval(call, env))) == expected, call


def test_legacy_constructor_in_a_module():
    """An old-style layer: Parameter(torch.Tensor(n, m)) then an initialiser."""
    class Dense(nn.Module):
        def __init__(self, n, m):
            super().__init__()
            self.weight = nn.Parameter(torch.Tensor(n, m))
            self.bias = nn.Parameter(torch.Tensor(m))
            nn.init.xavier_uniform_(self.weight)
            nn.init.zeros_(self.bias)

        def forward(self, x):
            return x @ self.weight + self.bias

    # the legacy constructor makes host tensors whatever the default device
    # (PyTorch's rule), so the layer moves as a script moves its model
    layer = Dense(3, 2).to(torch.get_default_device())
    assert [tuple(p.shape) for p in layer.parameters()] == [(3, 2), (2,)]
    assert layer.weight.dtype == torch.float32 and layer.weight.requires_grad
    layer(torch.ones(4, 3)).sum().backward()
    np.testing.assert_allclose(layer.bias.grad.cpu().numpy(), [4.0, 4.0])
    np.testing.assert_allclose(layer.weight.grad.cpu().numpy(), np.full((3, 2), 4.0))


def test_tensor_alias_shares_storage_and_graph():
    x = torch.ones(3, requires_grad=True)
    y = torch.Tensor(x)
    (y * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
    np.testing.assert_array_equal(x.grad.cpu().numpy(), [1.0, 2.0, 3.0])
    z = torch.tensor([1.0, 2.0])
    torch.Tensor(z).mul_(2)
    np.testing.assert_array_equal(z.cpu().numpy(), [2.0, 4.0])


# ---- formatting tensors into log lines ---------------------------------------------------

@pytest.mark.parametrize("spec", ["", ".2f", "+.3e", ">12", "5.1%"])
@pytest.mark.parametrize("value", [1.5, -0.25, 3])
def test_zero_dim_tensor_formats_as_its_number(value, spec):
    t = torch.tensor(value)
    assert format(t, spec) == format(t.item(), spec)
    assert "{:{}}".format(t, spec) == "{:{}}".format(t.item(), spec)


def test_format_of_other_tensors_is_objects():
    t = torch.tensor([1.5])
    assert format(t) == str(t)
    with pytest.raises(TypeError, match="unsupported format string"):
        format(t, ".2f")
    p = nn.Parameter(torch.tensor(1.5))  # PyTorch formats only plain 0-d tensors as numbers
    assert format(p) == str(p)
    with pytest.raises(TypeError):
        format(p, ".2f")
    # a 0-d result of autograd is a plain tensor: formats as its number
    assert "{:.3f}".format(p * 2) == "3.000"


# ---- optional imports ------------------------------------------------------------------

def test_onnx_imports_and_export_says_why_not():
    import torchlike.onnx as onnx
    assert onnx.is_in_onnx_export() is False
    with pytest.raises(NotImplementedError, match="ONNX"):
        onnx.export(nn.Linear(2, 2), (torch.zeros(1, 2),), io.BytesIO())


# ---- whole-model checkpoints -------------------------------------------------------------

class _TinyLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(11, 8)
        self.enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, 0.0), 1,
                                         enable_nested_tensor=False)
        self.out = nn.Linear(8, 11)

    def forward(self, x):
        return F.log_softmax(self.out(self.enc(self.emb(x))), -1)


def test_transformer_layer_default_activation_is_public_relu():
    layer = nn.TransformerEncoderLayer(8, 2, 16, 0.0)
    assert layer.activation is F.relu
    assert nn.TransformerDecoderLayer(8, 2, 16, 0.0).activation is F.relu
    clone = pickle.loads(pickle.dumps(layer))
    assert clone.activation is F.relu


def test_whole_model_save_load_with_safe_globals():
    model = _TinyLM().eval()
    x = torch.tensor([[1, 2, 3], [4, 5, 6]])
    buf = io.BytesIO()
    torch.save(model, buf)
    allowed = [_TinyLM, F.relu, nn.Embedding, nn.Linear, nn.LayerNorm, nn.Dropout,
               nn.TransformerEncoder, nn.TransformerEncoderLayer, nn.MultiheadAttention,
               nn.ModuleList, nn.modules.linear.NonDynamicallyQuantizableLinear]
    buf.seek(0)
    with pytest.raises(pickle.UnpicklingError, match="relu"):
        with torch.serialization.safe_globals([a for a in allowed if a is not F.relu]):
            torch.load(buf)
    buf.seek(0)
    with torch.serialization.safe_globals(allowed):
        loaded = torch.load(buf)
    assert loaded.enc.layers[0].activation is F.relu
    np.testing.assert_array_equal(loaded(x).detach().cpu().numpy(), model(x).detach().cpu().numpy())


# ---- activation checkpointing inside autocast -----------------------------------------------

@pytest.mark.parametrize("use_reentrant", [False, True])
def test_checkpoint_reruns_under_the_forwards_autocast(use_reentrant):
    """The usual mixed-precision loop: forward (with a checkpointed block) in
    an autocast region, backward outside it. The rerun must cast as the
    forward did: same saved tensors, the same gradients as without
    checkpointing."""
    from torchlike.utils.checkpoint import checkpoint
    torch.manual_seed(0)
    block = nn.Sequential(nn.Linear(8, 16), nn.GELU(), nn.Linear(16, 8))
    x = torch.randn(4, 8, requires_grad=True)

    def grads(use_checkpoint):
        block.zero_grad()
        x.grad = None
        with torch.autocast("cpu", dtype=torch.bfloat16):
            y = checkpoint(block, x, use_reentrant=use_reentrant) if use_checkpoint else block(x)
            assert y.dtype == torch.bfloat16
        (y.float() ** 2).sum().backward()
        return [x.grad.cpu().numpy().copy()] + [p.grad.float().cpu().numpy().copy()
                                          for p in block.parameters()]

    for want, got in zip(grads(False), grads(True)):
        np.testing.assert_array_equal(got, want)


# ---- custom Functions under autocast ------------------------------------------------------------

class _MatMul32(torch.autograd.Function):
    """A Function that wants float32 inputs whatever the region casts to."""

    @staticmethod
    @torch.amp.custom_fwd(device_type="cpu", cast_inputs=torch.float32)
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        ctx.seen = (a.dtype, b.dtype, torch.is_autocast_enabled("cpu"))
        return a @ b

    @staticmethod
    @torch.amp.custom_bwd(device_type="cpu")
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        ctx.seen_backward = (g.dtype, torch.is_autocast_enabled("cpu"))
        return g @ b.t(), a.t() @ g


class _Double(torch.autograd.Function):
    """A Function that runs under the region's autocast state."""

    @staticmethod
    @torch.amp.custom_fwd(device_type="cpu")
    def forward(ctx, a):
        ctx.seen = (torch.is_autocast_enabled("cpu"), torch.get_autocast_dtype("cpu"))
        return a * 2

    @staticmethod
    @torch.amp.custom_bwd(device_type="cpu")
    def backward(ctx, g):
        ctx.seen_backward = (torch.is_autocast_enabled("cpu"), torch.get_autocast_dtype("cpu"))
        return g * 2


def test_custom_fwd_casts_inputs_and_custom_bwd_replays_the_state():
    a = torch.ones(2, 3, requires_grad=True)
    b = torch.ones(3, 2, dtype=torch.bfloat16, requires_grad=True)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        out = _MatMul32.apply(a.to(torch.bfloat16), b)
        twice = _Double.apply(a)
    assert out.dtype == torch.float32
    (out.sum() + twice.sum()).backward()
    np.testing.assert_array_equal(a.grad.cpu().numpy(), np.full((2, 3), 4.0))  # 2 from each term
    assert b.grad.dtype == torch.bfloat16
    np.testing.assert_array_equal(b.grad.float().cpu().numpy(), np.full((3, 2), 2.0))
    # outside a region both decorators change nothing
    plain = _MatMul32.apply(a, b.float())
    assert plain.dtype == torch.float32
    with pytest.raises(ValueError, match="device_type"):
        torch.amp.custom_fwd(device_type=None)
    with pytest.warns(FutureWarning, match="custom_fwd"):
        torch.cuda.amp.custom_fwd(lambda ctx, x: x)


def test_custom_fwd_states_seen_inside():
    seen = {}

    class Probe(torch.autograd.Function):
        @staticmethod
        @torch.amp.custom_fwd(device_type="cpu", cast_inputs=torch.float32)
        def forward(ctx, x):
            seen["fwd"] = (x.dtype, torch.is_autocast_enabled("cpu"))
            return x.clone()

        @staticmethod
        @torch.amp.custom_bwd(device_type="cpu")
        def backward(ctx, g):
            seen["bwd"] = torch.is_autocast_enabled("cpu")
            return g

    class Follow(Probe):
        @staticmethod
        @torch.amp.custom_fwd(device_type="cpu")
        def forward(ctx, x):
            seen["follow"] = (x.dtype, torch.is_autocast_enabled("cpu"))
            return x.clone()

    x = torch.ones(2, requires_grad=True)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        y = Probe.apply(x.to(torch.bfloat16))
        z = Follow.apply(x)
    assert seen["fwd"] == (torch.float32, False)   # cast, and autocast off inside
    assert seen["follow"] == (torch.float32, True)  # no cast, the region's state
    y.sum().backward()
    assert seen["bwd"] is False                    # replays the forward's (off) state
    z.sum().backward()
    assert seen["bwd"] is True
