"""The meta device (PyTorch's): tensors with a shape, dtype and strides and
no data.  Each call of scripts/golden_meta.py is compared with what PyTorch
gave (tests/golden/meta.json): a result's device, shape, dtype, strides and
grad state, or the exception's class (and PyTorch's words for the errors
users meet: copying out, reading values, mixing with CPU tensors,
data-dependent shapes).  Then the recipes meta tensors exist for: building
a big model without memory and materialising it (to_empty, then
load_state_dict or reset_parameters; load_state_dict(assign=True)), and the
stateless base module of model ensembling (tests/test_training_programs4.py
runs that one against PyTorch's numbers)."""
import copy

import numpy as np
import pytest

import torchlike as torch
from oracle import golden_calls, golden_check

CALLS, _golden = golden_calls("meta")

# PyTorch's words, kept where users meet them
_WORDING = ("Cannot copy out of meta tensor", "Tensor.item() cannot be called on meta tensors",
            "can't convert meta device type tensor to numpy", "Tensor on device",
            "The register_meta function for torch.nonzero()", "aten::masked_select",
            "a Tensor with 6 elements cannot be converted to Scalar")
# What ours gives on purpose instead (exception class, words of our message),
# or the dtype of our result:
_DIFFERENT = {
    # families with no meta kernel here: the kernel table's NotImplementedError
    "T.unique(M)": ("NotImplementedError", "device meta"),
    "T.bincount(T.empty(3, dtype=T.int64, device='meta'))": ("NotImplementedError", "device meta"),
    "T.equal(M, M)": ("RuntimeError", "Tensor.item() cannot be called on meta tensors"),
    "T.linalg.inv(T.empty(3, 3, device='meta'))": ("NotImplementedError", "device meta"),
    # torchlike's own broadcasting and product messages (ValueError and RuntimeError)
    "M + T.empty(4, device='meta')": ("RuntimeError", "broadcast"),
    "M @ T.empty(2, 4, device='meta')": ("RuntimeError", "cannot be multiplied"),
    # the start of PyTorch's words (the rest names its torch.fx settings)
    **{c: ("NotImplementedError", "The register_meta function for torch.nonzero() raises "
                                  "unimplemented by default")
       for c in ("T.nonzero(M)", "M.nonzero()", "M[M > 0]", "T.where(M > 0)", "T.argwhere(M)")},
    "T.masked_select(M, M > 0)": ("NotImplementedError", "aten::masked_select: attempted to run "
                                                         "this operator with Meta tensors"),
}
# Calls PyTorch answers and ours refuses, with (exception class, words):
_REFUSED = {
    # the decompositions have no meta kernel here (docs/devices.md)
    "T.linalg.inv(T.empty(3, 3, device='meta'))": (NotImplementedError,
                                                   "no kernel for device meta"),
    # PyTorch's meta mm does not check devices; every other op does, and so do ours
    "T.matmul(M, C.t())": (RuntimeError, "Tensor on device cpu is not on the expected device meta!"),
}


@pytest.mark.parametrize("call,expected", [(c, e) for c, e in CALLS if c not in _REFUSED],
                         ids=[c for c, _ in CALLS if c not in _REFUSED])
def test_meta_matches_pytorch(call, expected):
    golden_check(_golden, call, expected, same_wording=_WORDING, different=_DIFFERENT)


@pytest.mark.parametrize("call", sorted(_REFUSED))
def test_meta_refusals_name_the_meta_device(call):
    kind, words = _REFUSED[call]
    env = {"T": torch, **_golden.inputs(torch)}
    with pytest.raises(kind) as e:
        eval(call, env)
    assert words in str(e.value)


def test_golden_covers_errors_and_results():
    # the recorded calls hold both results and refusals: the test above can fail either way
    kinds = {e[0] for _, e in CALLS}
    assert kinds >= {"tensor", "raises", "value"}


# ---- big-model initialisation ---------------------------------------------------------

class _Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(5, 7)
        self.norm = torch.nn.BatchNorm1d(7)
        self.fc2 = torch.nn.Linear(7, 3)

    def forward(self, x):
        return self.fc2(torch.relu(self.norm(self.fc1(x))))


def _state(seed):
    torch.manual_seed(seed)
    return {k: v.clone() for k, v in _Net().state_dict().items()}


def test_module_built_under_meta_device_has_meta_params_and_no_data():
    with torch.device("meta"):
        net = _Net()
    tensors = list(net.parameters()) + list(net.buffers())
    assert tensors and all(t.is_meta and t.device.type == "meta" for t in tensors)
    assert net.fc1.weight.shape == (7, 5) and net.fc1.weight.dtype == torch.float32
    assert net.norm.num_batches_tracked.dtype == torch.int64
    # the forward pass runs for its shapes
    out = net(torch.empty(4, 5, device="meta"))
    assert out.is_meta and out.shape == (4, 3)
    with pytest.raises(NotImplementedError, match="Cannot copy out of meta tensor"):
        net.fc1.weight.cpu()


def test_to_empty_then_load_state_dict_gives_the_checkpoint():
    sd = _state(1)
    with torch.device("meta"):
        net = _Net()
    net.to_empty(device="cpu")
    assert all(t.device.type == "cpu" for t in net.state_dict().values())
    net.load_state_dict(sd)
    for k, v in net.state_dict().items():
        np.testing.assert_array_equal(v.numpy(), sd[k].numpy(), err_msg=k)
    x = torch.from_numpy(np.random.default_rng(0).standard_normal((4, 5)).astype(np.float32))
    ref = _Net()
    ref.load_state_dict(sd)
    np.testing.assert_array_equal(net(x).detach().numpy(), ref(x).detach().numpy())


def test_to_empty_then_reset_parameters_draws_as_on_the_cpu():
    with torch.device("meta"):
        net = _Net()
    net.to_empty(device="cpu")
    torch.manual_seed(5)
    for m in net.modules():
        if hasattr(m, "reset_parameters"):
            m.reset_parameters()
    torch.manual_seed(5)
    ref = _Net()
    torch.manual_seed(5)
    for m in ref.modules():
        if hasattr(m, "reset_parameters"):
            m.reset_parameters()
    for (k, v), w in zip(net.state_dict().items(), ref.state_dict().values()):
        np.testing.assert_array_equal(v.numpy(), w.numpy(), err_msg=k)


def test_load_state_dict_assign_onto_meta_module_takes_the_tensors():
    sd = _state(2)
    with torch.device("meta"):
        net = _Net()
    net.load_state_dict(sd, assign=True)
    assert isinstance(net.fc1.weight, torch.nn.Parameter) and net.fc1.weight.requires_grad
    for k, v in net.state_dict().items():
        assert v.device.type == "cpu", k
        np.testing.assert_array_equal(v.numpy(), sd[k].numpy(), err_msg=k)


def test_meta_model_moves_and_copies():
    net = _Net()
    base = copy.deepcopy(net).to("meta")
    assert all(p.is_meta for p in base.parameters())
    assert all(not p.is_meta for p in net.parameters())
    assert str(base.fc1.weight.device) == "meta"
    assert base.fc1.weight.untyped_storage().nbytes() == 7 * 5 * 4


def test_skip_init_under_meta_gives_an_uninitialised_cpu_module():
    lin = torch.nn.utils.skip_init(torch.nn.Linear, 4, 3)
    assert lin.weight.device.type == "cpu" and lin.weight.shape == (3, 4)
