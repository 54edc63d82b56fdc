"""nn.utils: gradient clipping, parameter vectors, padded and packed sequences
(and RNN layers on packed input)."""
import math

import numpy as np
import pytest

import torchlike as torch
import torchlike.nn as nn
from torchlike.nn.utils import (clip_grad_norm_, clip_grad_value_, parameters_to_vector,
                                vector_to_parameters)
from torchlike.nn.utils.rnn import (pack_padded_sequence, pack_sequence, pad_packed_sequence,
                                    pad_sequence, unpack_sequence)

rng = np.random.default_rng(11)


def with_grads(*shapes):
    params = [nn.Parameter(torch.zeros(*s)) for s in shapes]
    grads = [rng.standard_normal(s) for s in shapes]
    for p, g in zip(params, grads):
        p.grad = torch.tensor(g.astype(np.float32))
    return params, grads


@pytest.mark.parametrize("norm_type", [2.0, 1.0, 3.0, math.inf])
def test_clip_grad_norm_scales_all_gradients_together(norm_type):
    params, grads = with_grads((3, 4), (5,))
    flat = np.concatenate([g.ravel() for g in grads])
    total = np.abs(flat).max() if norm_type == math.inf else \
        (np.abs(flat) ** norm_type).sum() ** (1 / norm_type)
    returned = clip_grad_norm_(params, 0.5, norm_type)
    assert float(returned) == pytest.approx(total, rel=1e-5)
    scale = min(1.0, 0.5 / (total + 1e-6))
    for p, g in zip(params, grads):
        np.testing.assert_allclose(p.grad.cpu().numpy(), g * scale, rtol=1e-5)


def test_clip_grad_norm_leaves_small_gradients_and_flags_non_finite():
    params, grads = with_grads((4,))
    clip_grad_norm_(params, 100.0)
    np.testing.assert_allclose(params[0].grad.cpu().numpy(), grads[0], rtol=1e-6)
    params[0].grad = torch.tensor([1.0, float("nan"), 0.0, 0.0])
    with pytest.raises(RuntimeError, match="non-finite"):
        clip_grad_norm_(params, 1.0, error_if_nonfinite=True)


def test_clip_grad_value_and_parameter_vectors():
    params, grads = with_grads((2, 3), (4,))
    clip_grad_value_(params, 0.3)
    for p, g in zip(params, grads):
        np.testing.assert_allclose(p.grad.cpu().numpy(), np.clip(g, -0.3, 0.3), rtol=1e-6)
    model = nn.Linear(3, 2)
    vec = parameters_to_vector(model.parameters())
    assert vec.shape == (8,)
    vector_to_parameters(torch.arange(8, dtype=torch.float32), model.parameters())
    np.testing.assert_array_equal(model.weight.detach().cpu().numpy(), np.arange(6).reshape(2, 3))
    np.testing.assert_array_equal(model.bias.detach().cpu().numpy(), [6, 7])


def test_pad_and_pack_round_trip():
    seqs = [torch.tensor(rng.standard_normal((n, 2)).astype(np.float32)) for n in (3, 5, 1)]
    padded = pad_sequence(seqs, batch_first=True, padding_value=-1.0)
    assert padded.shape == (3, 5, 2)
    assert float(padded[2, 1:].max()) == -1.0
    packed = pack_sequence(seqs, enforce_sorted=False)
    assert packed.batch_sizes.tolist() == [3, 2, 2, 1, 1]
    assert packed.sorted_indices.tolist() == [1, 0, 2]
    back, lengths = pad_packed_sequence(packed, batch_first=True)
    assert lengths.tolist() == [3, 5, 1]
    np.testing.assert_array_equal(back.cpu().numpy(), np.where(padded.cpu().numpy() == -1, 0,
                                                         padded.cpu().numpy()))
    for a, b in zip(unpack_sequence(packed), seqs):
        np.testing.assert_array_equal(a.cpu().numpy(), b.cpu().numpy())
    with pytest.raises(RuntimeError, match="sorted in decreasing order"):
        pack_padded_sequence(padded, [3, 5, 1], batch_first=True)


@pytest.mark.parametrize("cls", [nn.LSTM, nn.GRU, nn.RNN])
def test_rnn_on_packed_input_equals_running_each_sequence_alone(cls):
    torch.manual_seed(0)
    m = cls(2, 3, num_layers=2, bidirectional=True)
    seqs = [torch.randn(n, 2) for n in (4, 6, 2)]
    out, state = m(pack_sequence(seqs, enforce_sorted=False))
    padded, _ = pad_packed_sequence(out)
    h = state[0] if cls is nn.LSTM else state
    for i, s in enumerate(seqs):
        o, st = m(s)
        hs = st[0] if cls is nn.LSTM else st
        np.testing.assert_allclose(padded[:len(s), i].detach().cpu().numpy(), o.detach().cpu().numpy(),
                                   rtol=1e-5, atol=1e-6)
        np.testing.assert_array_equal(padded[len(s):, i].detach().cpu().numpy(), 0)
        np.testing.assert_allclose(h[:, i].detach().cpu().numpy(), hs.detach().cpu().numpy(), rtol=1e-5,
                                   atol=1e-6)


def test_register_parametrization_and_remove():
    from torchlike.nn.utils import parametrize

    class Symmetric(nn.Module):
        def forward(self, x):
            return x.triu() + x.triu(1).transpose(0, 1)

    m = nn.Linear(3, 3)
    parametrize.register_parametrization(m, "weight", Symmetric())
    assert type(m).__name__ == "ParametrizedLinear" and parametrize.is_parametrized(m, "weight")
    w = m.weight.detach().cpu().numpy()
    np.testing.assert_array_equal(w, w.T)
    assert list(m.state_dict()) == ["bias", "parametrizations.weight.original"]
    m(torch.randn(2, 3)).sum().backward()
    assert m.parametrizations.weight.original.grad is not None
    parametrize.remove_parametrizations(m, "weight")
    assert type(m) is nn.Linear and isinstance(m.weight, nn.Parameter)
    np.testing.assert_array_equal(m.weight.detach().cpu().numpy(), w)


def test_weight_norm_keeps_the_weight_and_splits_magnitude_and_direction():
    torch.manual_seed(0)
    lin = nn.Linear(4, 3)
    w = lin.weight.detach().cpu().numpy().copy()
    nn.utils.parametrizations.weight_norm(lin)
    np.testing.assert_allclose(lin.weight.detach().cpu().numpy(), w, rtol=1e-6)
    g = lin.parametrizations.weight.original0.detach().cpu().numpy()
    np.testing.assert_allclose(g[:, 0], np.linalg.norm(w, axis=1), rtol=1e-6)


def test_weight_norm_refuses_a_dim_out_of_range():
    # PyTorch's norm_except_dim: -1 is "every dim", other dims must exist
    with pytest.raises(IndexError, match=r"^Dimension out of range \(expected to be in range of "
                                         r"\[-2, 1\], but got 5\)$"):
        nn.utils.parametrizations.weight_norm(nn.Linear(3, 3), dim=5)
    g = nn.utils.parametrizations.weight_norm(nn.Linear(3, 2), dim=-2).parametrizations.weight
    assert tuple(g.original0.shape) == (2, 1)
    assert nn.utils.parametrizations.weight_norm(nn.Linear(3, 2), dim=-1) \
        .parametrizations.weight.original0.shape == ()


def test_functional_call_swaps_tensors_for_one_call_only():
    lin = nn.Linear(3, 2)
    x = torch.randn(4, 3)
    w = torch.ones(2, 3, requires_grad=True)
    out = torch.func.functional_call(lin, {"weight": w}, (x,))
    np.testing.assert_allclose(out.detach().cpu().numpy(),
                               x.cpu().numpy().sum(1, keepdims=True) + lin.bias.detach().cpu().numpy(),
                               rtol=1e-6)
    out.sum().backward()
    assert w.grad is not None and lin.weight.grad is None
    assert isinstance(lin.weight, nn.Parameter)
    with pytest.raises(RuntimeError, match=r"^Error\(s\) in reparametrizing for Linear:\n\t"
                                           r"Missing key\(s\): 'bias'\.$"):
        torch.func.functional_call(lin, {"weight": w}, (x,), strict=True)
    with pytest.raises(RuntimeError, match=r"for Linear:\n\tUnexpected key\(s\): 'aa', 'zz'\.\n"
                                           r"\tMissing key\(s\): 'bias'\.$"):
        torch.func.functional_call(lin, {"weight": w, "zz": w, "aa": w}, (x,), strict=True)


def test_fuse_conv_bn_eval_matches_the_pair():
    torch.manual_seed(0)
    conv, bn = nn.Conv2d(2, 3, 3, bias=False).eval(), nn.BatchNorm2d(3).eval()
    with torch.no_grad():
        bn.running_mean.normal_()
        bn.running_var.uniform_(0.5, 2.0)
        bn.weight.normal_()
    x = torch.randn(2, 2, 6, 6)
    fused = nn.utils.fuse_conv_bn_eval(conv, bn)
    np.testing.assert_allclose(fused(x).detach().cpu().numpy(), bn(conv(x)).detach().cpu().numpy(),
                               rtol=1e-5, atol=1e-5)
    with pytest.raises(AssertionError, match="eval"):
        nn.utils.fuse_conv_bn_eval(conv.train(), bn)


def test_torch_func_functional_call_and_the_deprecated_stateless_one():
    import torchlike
    m = torchlike.nn.Linear(2, 1)
    out = torchlike.func.functional_call(m, {"weight": torchlike.ones(1, 2), "bias": torchlike.zeros(1)},
                                         (torchlike.tensor([[1.0, 2.0]]),))
    assert out.tolist() == [[3.0]]
    # PyTorch's parameter names differ between the two spellings, and the
    # nn.utils one warns that it is deprecated
    out = torchlike.func.functional_call(
        m, parameter_and_buffer_dicts=({"weight": torchlike.ones(1, 2)}, {"bias": torchlike.ones(1)}),
        args=torchlike.tensor([[1.0, 2.0]]))
    assert out.tolist() == [[4.0]]
    with pytest.warns(FutureWarning, match="stateless.functional_call` is deprecated"):
        out = nn.utils.stateless.functional_call(
            m, parameters_and_buffers={"weight": torchlike.ones(1, 2), "bias": torchlike.zeros(1)},
            args=torchlike.tensor([[1.0, 2.0]]))
    assert out.tolist() == [[3.0]]


class _Tied(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(2, 2, bias=False)
        self.b = nn.Linear(2, 2, bias=False)
        self.b.weight = self.a.weight
        self.scale = 1.0

    def forward(self, x):
        return (self.a(x) + self.b(x)) * getattr(self, "extra", 1.0)


def test_functional_call_ties_weights_and_sets_other_names_as_attributes():
    m, x = _Tied(), torch.ones(1, 2)
    w0 = m.a.weight
    # tie_weights: the value given for a.weight is also b.weight's
    out = torch.func.functional_call(m, {"a.weight": torch.ones(2, 2)}, x)
    np.testing.assert_array_equal(out.cpu().numpy(), [[4.0, 4.0]])
    out = torch.func.functional_call(m, {"a.weight": torch.ones(2, 2),
                                         "b.weight": torch.full((2, 2), 2.0)}, x,
                                     tie_weights=False)
    np.testing.assert_array_equal(out.cpu().numpy(), [[6.0, 6.0]])
    with pytest.raises(ValueError, match=r"^functional_call got multiple values for keys "
                                         r"\['a.weight', 'b.weight'\], which are tied"):
        torch.func.functional_call(m, {"a.weight": torch.ones(2, 2),
                                       "b.weight": torch.full((2, 2), 2.0)}, x)
    # a name that is no parameter or buffer is an attribute during the call
    out = torch.func.functional_call(m, {"a.weight": torch.ones(2, 2),
                                         "extra": torch.tensor(10.0)}, x)
    np.testing.assert_array_equal(out.cpu().numpy(), [[40.0, 40.0]])
    assert not hasattr(m, "extra") and m.a.weight is w0 and m.b.weight is w0
    with pytest.raises(AttributeError, match="Linear has no attribute `c`"):
        torch.func.functional_call(m, {"a.c.weight": torch.ones(2, 2)}, x)


def test_packed_sequence_conversions_follow_tensor_to():
    from torchlike.nn.utils.rnn import invert_permutation
    seqs = [torch.tensor(rng.standard_normal((n, 2)).astype(np.float32)) for n in (2, 4, 1)]
    p = pack_sequence(seqs, enforce_sorted=False)
    for name, dtype in [("double", torch.float64), ("float", torch.float32),
                        ("half", torch.float16), ("long", torch.int64), ("int", torch.int32),
                        ("short", torch.int16), ("char", torch.int8), ("byte", torch.uint8)]:
        q = getattr(p, name)()
        assert type(q) is type(p) and q.data.dtype == dtype
        assert q.batch_sizes.tolist() == [3, 2, 1, 1]
        assert q.sorted_indices.tolist() == [1, 0, 2] and q.unsorted_indices.tolist() == [1, 0, 2]
    np.testing.assert_array_equal(p.double().data.cpu().numpy(), p.data.cpu().numpy().astype(np.float64))
    assert p.float() is p and p.to(torch.float32) is p
    # cpu() is a no-op on the host; from a device it moves data and permutations
    on_host = p.cpu()
    assert (on_host is p) == (p.data.device.type == "cpu")
    assert on_host.data.device.type == on_host.sorted_indices.device.type == "cpu"
    np.testing.assert_array_equal(on_host.data.numpy(), p.data.cpu().numpy())
    assert not p.is_pinned() and not p.is_cuda
    assert invert_permutation(None) is None
    assert invert_permutation(torch.tensor([2, 0, 3, 1])).tolist() == [1, 3, 0, 2]


def test_parametrize_checks_shape_and_dtype_unless_unsafe():
    from torchlike.nn.utils import parametrize as P

    class Rows(nn.Module):
        def forward(self, x):
            return x[:2]

    class ToDouble(nn.Module):
        def forward(self, x):
            return x.double()
    m = nn.Linear(4, 3)
    with pytest.raises(ValueError, match=r"^Registering a parametrization may not change the "
                                         r"shape of the tensor, unless `unsafe` flag is enabled"
                                         r"\.\nunparametrized shape: torchlike\.Size\(\[3, 4\]\)\n"
                                         r"parametrized shape: torchlike\.Size\(\[2, 4\]\)$"):
        P.register_parametrization(m, "weight", Rows())
    assert type(m) is nn.Linear and isinstance(m.weight, nn.Parameter)  # left as it was
    with pytest.raises(ValueError, match="may not change the dtype"):
        P.register_parametrization(m, "weight", ToDouble())
    P.register_parametrization(m, "weight", Rows(), unsafe=True)
    assert tuple(m.weight.shape) == (2, 4)

    m = nn.Linear(4, 3)
    P.register_parametrization(m, "weight", nn.Tanh())
    with pytest.raises(ValueError, match=r"module\.weight\.shape: torchlike\.Size\(\[3, 4\]\)\n"
                                         r"parametrization\(module\.weight\)\.shape"):
        P.register_parametrization(m, "weight", Rows())
    # assigning needs a right_inverse on every parametrization
    with pytest.raises(RuntimeError, match="^parametrization Tanh does not implement "
                                           "right_inverse.$"):
        m.weight = torch.zeros(3, 4)


def test_remove_parametrizations_keeps_the_original_object_and_kind():
    from torchlike.nn.utils import parametrize as P
    m = nn.Linear(3, 3)
    w = m.weight
    P.register_parametrization(m, "weight", nn.Tanh())
    assert m.parametrizations.weight.original is w  # optimizers hold this object
    expected = np.tanh(w.detach().cpu().numpy())
    P.remove_parametrizations(m, "weight")
    assert m.weight is w
    np.testing.assert_allclose(m.weight.detach().cpu().numpy(), expected, rtol=1e-6)
    bn = nn.BatchNorm1d(2)
    P.register_parametrization(bn, "running_var", nn.Softplus())
    P.remove_parametrizations(bn, "running_var", leave_parametrized=False)
    assert "running_var" in bn._buffers and "running_var" not in bn._parameters
    np.testing.assert_array_equal(bn.running_var.cpu().numpy(), np.ones(2))
    wn = nn.utils.parametrizations.weight_norm(nn.Linear(2, 2))
    with pytest.raises(ValueError, match="Cannot leave unparametrized"):
        P.remove_parametrizations(wn, "weight", leave_parametrized=False)


def test_type_before_and_transfer_parametrizations():
    from torchlike.nn.utils import parametrize as P
    src, dst = nn.Linear(3, 3), nn.Linear(3, 3)
    assert P.type_before_parametrizations(src) is nn.Linear
    P.register_parametrization(src, "weight", nn.Tanh())
    assert P.type_before_parametrizations(src) is nn.Linear and type(src) is not nn.Linear
    P.transfer_parametrizations_and_params(src, dst)
    assert P.is_parametrized(dst, "weight")
    assert dst.parametrizations.weight.original is src.parametrizations.weight.original
    np.testing.assert_array_equal(dst.weight.detach().cpu().numpy(), src.weight.detach().cpu().numpy())


def test_fusion_keeps_dtypes_bias_grad_flags_and_checks_the_pair():
    from torchlike.nn.utils import fuse_linear_bn_weights
    torch.manual_seed(0)
    conv, bn = nn.Conv2d(3, 4, 3, bias=False).double().eval(), nn.BatchNorm2d(4).double().eval()
    with torch.no_grad():
        bn.running_mean.uniform_(-1, 1)
        bn.running_var.uniform_(0.5, 2.0)
    fused = nn.utils.fuse_conv_bn_eval(conv, bn)
    x = torch.tensor(rng.standard_normal((2, 3, 5, 5)))
    np.testing.assert_allclose(fused(x).detach().cpu().numpy(), bn(conv(x)).detach().cpu().numpy(),
                               rtol=1e-12, atol=1e-12)
    # PyTorch: the new bias requires grad only if the conv had one that did
    assert fused.weight.requires_grad and not fused.bias.requires_grad
    half = nn.utils.fuse_conv_bn_eval(nn.Conv2d(3, 4, 3).half().eval(), nn.BatchNorm2d(4).eval())
    assert half.weight.dtype == torch.float16 and half.bias.dtype == torch.float16
    # a one-feature BatchNorm scales every output of the linear layer
    w, b = fuse_linear_bn_weights(torch.ones(2, 3), None, torch.zeros(1), torch.full((1,), 4.0),
                                  0.0, torch.full((1,), 2.0), torch.ones(1))
    np.testing.assert_allclose(w.detach().cpu().numpy(), np.ones((2, 3)))
    np.testing.assert_allclose(b.detach().cpu().numpy(), np.ones(1))  # as PyTorch: zeros_like(mean)
    assert not w.requires_grad and not b.requires_grad  # as the inputs
    with pytest.raises(AssertionError, match="linear.out_features=4 and bn.num_features=3"):
        nn.utils.fuse_linear_bn_eval(nn.Linear(3, 4).eval(), nn.BatchNorm1d(3).eval())
    with pytest.raises(AssertionError, match="running_mean and bn.running_var must not be None"):
        nn.utils.fuse_conv_bn_eval(nn.Conv2d(3, 4, 1).eval(),
                                   nn.BatchNorm2d(4, track_running_stats=False).eval())


def test_parametrized_modules_refuse_pickling_but_deep_copy():
    import copy
    import pickle
    from torchlike.nn.utils import parametrize as P
    m = nn.Linear(2, 2)
    P.register_parametrization(m, "weight", nn.Tanh())
    with pytest.raises(RuntimeError, match="^Serialization of parametrized modules is only "
                                           "supported through state_dict"):
        pickle.dumps(m)
    c = copy.deepcopy(m)
    assert type(c) is type(m) and list(c.state_dict()) == list(m.state_dict())
    assert c.parametrizations.weight.original is not m.parametrizations.weight.original
    np.testing.assert_array_equal(c.weight.detach().cpu().numpy(), m.weight.detach().cpu().numpy())


def test_pack_padded_sequence_refuses_a_length_past_the_input():
    # PyTorch's CPU kernel reads past the input (its batch_sizes then do not
    # add up to its data); an IndexError from deep inside here before, now a
    # message naming the length (docs/nn.md; training programs, round seven)
    x = torch.zeros(4, 3, 2)
    with pytest.raises(RuntimeError, match="a length of 5 is longer than the input's 4 time "
                                           "steps"):
        pack_padded_sequence(x, torch.tensor([5, 2, 1]))


@pytest.mark.parametrize("lengths,ndim", [
    (torch.tensor([[4, 2, 1]]), 2), ([[4.0, 2.0, 1.0]], 2), (torch.tensor(3), 0), (3, 0)])
def test_pack_padded_sequence_refuses_lengths_that_are_not_1d(lengths, ndim):
    # PyTorch's kernel reads the lengths as a CPU int64 tensor and refuses one
    # of another rank in these words (a nested list failed in int()'s)
    with pytest.raises(RuntimeError, match=rf"^'lengths' argument should be a 1D CPU int64 "
                                           rf"tensor, but got {ndim}D cpu Long tensor$"):
        pack_padded_sequence(torch.zeros(4, 3, 2), lengths)
    # 1-d forms still pack
    assert pack_padded_sequence(torch.zeros(4, 3, 2), (4, 2, 1)).batch_sizes.tolist() == [3, 2, 1, 1]


def test_pad_sequence_result_has_the_first_sequence_dtype():
    # PyTorch copies every sequence into an output made with the first's
    # dtype (a float64 sequence after a float32 one is rounded, not promoted)
    out = pad_sequence([torch.ones(2), torch.full((3,), 1 / 3, dtype=torch.float64)])
    assert out.dtype == torch.float32 and tuple(out.shape) == (3, 2)
    np.testing.assert_array_equal(out[:, 1].cpu().numpy(), np.full(3, 1 / 3, dtype=np.float32))
    ints = pad_sequence([torch.tensor([1, 2]), torch.tensor([0.5])], batch_first=True,
                        padding_value=7)
    assert ints.dtype == torch.int64 and ints.tolist() == [[1, 2], [0, 7]]
