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
            "aten::", "cannot repeat_interleave a meta tensor without output_size",
            "can't convert meta device type tensor to numpy", "Tensor on device",
            "The register_meta function for torch.nonzero()", "aten::masked_select",
            "a Tensor with 6 elements cannot be converted to Scalar")
# What ours gives on purpose instead (exception class, words of our message),
# or the dtype of our result:
_DIFFERENT = {
    "T.equal(M, M)": ("RuntimeError", "Tensor.item() cannot be called on meta tensors"),
    # torchlike's own broadcasting and product messages (ValueError and RuntimeError)
    "M + T.empty(4, device='meta')": ("RuntimeError", "broadcast"),
    "M @ T.empty(2, 4, device='meta')": ("RuntimeError", "cannot be multiplied"),
    # the start of PyTorch's words (the rest names its torch.fx settings)
    **{c: ("NotImplementedError", "The register_meta function for torch.nonzero() raises "
                                  "unimplemented by default")
       for c in ("T.nonzero(M)", "M.nonzero()", "M[M > 0]", "T.where(M > 0)", "T.argwhere(M)")},
    **{c: ("NotImplementedError", f"aten::{aten}: attempted to run this operator with Meta "
                                  f"tensors") for c, aten in (
        ("T.masked_select(M, M > 0)", "masked_select"), ("T.unique(M)", "_unique2"),
        ("T.unique_consecutive(M)", "unique_consecutive"),
        ("T.bincount(T.empty(3, dtype=T.int64, device='meta'))", "bincount"))},
    "M.index_add(0, T.tensor([0, 1]), M)": ("RuntimeError", "Tensor on device cpu is not on "
                                                            "the expected device meta!"),
    # no meta kernel in either library: ours names the op and the device, and
    # ctc_loss stops at its first read of the targets' values
    "T.linalg.lstsq(T.empty(5, 3, device='meta'), T.empty(5, 2, device='meta'))": (
        "NotImplementedError", "linalg.lstsq(): no kernel for device meta and dtype float32"),
    "T.nn.functional.ctc_loss(T.empty(5, 2, 4, device='meta'), T.empty(2, 3, dtype=T.int64, "
    "device='meta'), T.tensor([5, 5]), T.tensor([3, 2]))": (
        "NotImplementedError", "Cannot copy out of meta tensor; no data!"),
    # our message names torchlike's class
    "T.nn.Linear(2, 3, device='meta').to('cpu')": (
        "NotImplementedError", "Cannot copy out of meta tensor; no data! Please use "
                               "torchlike.nn.Module.to_empty() instead of torchlike.nn.Module.to()"),
}
# Calls PyTorch answers and ours refuses, with (exception class, words):
_REFUSED = {
    # PyTorch's meta kernels skip these checks its CPU kernels make; ours keep them
    "T.multinomial(M, 4)": (RuntimeError, "cannot sample n_sample > prob_dist.size(-1) "
                                          "samples without replacement"),
    "T.poisson(MI)": (NotImplementedError, "\"poisson_cpu\" not implemented for 'Long'"),
    # PyTorch's meta mm, index_select and gather do not check devices; ours do, as
    # its other ops and its CPU kernels do
    **{c: (RuntimeError, "Tensor on device cpu is not on the expected device meta!") for c in (
        "T.matmul(M, C.t())", "M.index_select(0, T.tensor([0, 1]))",
        "T.gather(M, 0, T.zeros(2, 3, dtype=T.int64))")},
}


# Calls whose CPU result torchlike lays out otherwise than PyTorch (LAPACK's
# column-major factors): the meta result has PyTorch's shapes and dtypes and
# the layout of torchlike's CPU result (test_meta_layout_is_the_cpus).
_CPU_LAYOUT = {"T.linalg.lu(T.empty(4, 3, device='meta'))",
               # PyTorch's meta Vh and eig's V are row-major where its CPU's
               # are column-major, as ours; our CPU pinv is column-major
               "T.linalg.svd(T.empty(4, 3, device='meta'))",
               "T.linalg.svd(T.empty(2, 3, 5, device='meta'), full_matrices=False)",
               "T.linalg.svd(T.empty(3, 4, device='meta', dtype=T.complex64))",
               "T.svd(T.empty(3, 4, device='meta'))", "T.linalg.eig(T.empty(3, 3, device='meta'))",
               "T.linalg.pinv(T.empty(3, 4, device='meta'))"}


def _without_strides(d):
    if d[0] == "tensor":
        return d[:4] + d[5:]
    if d[0] == "list":
        return ["list", [_without_strides(x) for x in d[1]]]
    return d


@pytest.mark.parametrize("call,expected", [(c, e) for c, e in CALLS if c not in _REFUSED],
                         ids=[c for c, _ in CALLS if c not in _REFUSED])
def test_meta_matches_pytorch(call, expected):
    if call in _CPU_LAYOUT:
        got = _golden.describe(eval(call, {"T": torch, **_golden.inputs(torch)}))
        assert _without_strides(got) == _without_strides(expected)
        return
    golden_check(_golden, call, expected, same_wording=_WORDING, different=_DIFFERENT)


# Ops whose meta result must be laid out as torchlike's CPU result of the
# same op (the CPU twin: the same call on random CPU inputs).
_LAYOUT_CALLS = [
    "T.linalg.lu(T.empty(4, 3, device='meta'))", "T.linalg.lu(T.empty(2, 3, 5, device='meta'))",
    "T.linalg.lu_factor(T.empty(2, 3, 3, device='meta'))",
    "T.linalg.inv(T.empty(2, 3, 3, device='meta'))",
    "T.linalg.cholesky(T.eye(3, device='meta'))",
    "T.linalg.solve(T.empty(3, 3, device='meta'), T.empty(2, 3, 4, device='meta'))",
    "T.linalg.solve(T.empty(3, 3, device='meta'), T.empty(2, 3, device='meta'), left=False)",
    "T.linalg.qr(T.empty(2, 5, 3, device='meta'), 'r')",
    "T.linalg.lu_solve(*T.linalg.lu_factor(T.empty(3, 3, device='meta')), T.empty(3, 2, device='meta'))",
    "T.linalg.solve_triangular(T.empty(3, 3, device='meta'), T.empty(2, 3, device='meta'), upper=False, left=False)",
    "T.linalg.slogdet(T.empty(4, 2, 2, device='meta'))",
    "T.nn.functional.conv2d(T.empty(2, 3, 6, 6, device='meta').to(memory_format=T.channels_last), T.empty(4, 3, 3, 3, device='meta'))",
    "T.nn.functional.batch_norm(T.empty(2, 3, 4, 4, device='meta').to(memory_format=T.channels_last), None, None, training=True)",
    "T.nn.functional.max_pool2d(T.empty(2, 3, 6, 6, device='meta').to(memory_format=T.channels_last), 2)",
    "T.nn.functional.layer_norm(T.empty(2, 3, 4, device='meta').transpose(0, 1), (4,))",
    "T.sort(T.empty(3, 4, device='meta').t(), 0)", "T.exp(T.empty(3, 4, device='meta').t())",
    "T.empty(2, 3, 4, device='meta').permute(2, 0, 1).sum(1)",
]


@pytest.mark.parametrize("call", _LAYOUT_CALLS)
def test_meta_layout_is_the_cpus(call):
    def layout(r):
        return [layout(x) for x in r] if isinstance(r, (tuple, list)) else \
            (tuple(r.shape), r.dtype, r.stride(), r.device.type)
    torch.manual_seed(0)
    meta = layout(eval(call, {"T": torch}))
    cpu = layout(eval(call.replace("device='meta'", "device='cpu'").replace("T.empty(", "T.rand("),
                      {"T": torch}))
    flat = meta if isinstance(meta, list) else [meta]
    assert all(t[3] == "meta" for t in flat)
    strip = (lambda x: [strip(y) for y in x] if isinstance(x, list) else x[:3])
    assert strip(meta) == strip(cpu)


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


def test_pytorch_checkpoint_of_meta_tensors_loads_as_meta_tensors():
    import os
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden",
                        "meta_checkpoint.pt")
    sd = torch.load(path)
    assert {k: (v.device.type, tuple(v.shape), v.stride(), v.dtype) for k, v in sd.items()} == {
        "w": ("meta", (3, 2), (1, 3), torch.float32), "p": ("meta", (4,), (1,), torch.float64),
        "i": ("meta", (5,), (1,), torch.int64)}
    assert isinstance(sd["p"], torch.nn.Parameter) and sd["p"].requires_grad


def test_load_state_dict_into_meta_module_warns_that_it_copies_nothing():
    with torch.device("meta"):
        net = torch.nn.Linear(2, 3)
    with pytest.warns(UserWarning) as record:
        net.load_state_dict(torch.nn.Linear(2, 3).state_dict())
    assert [str(w.message).split(":")[0] for w in record] == ["for weight", "for bias"]
    assert all("copying from a non-meta parameter in the checkpoint to a meta parameter"
               in str(w.message) for w in record)
    assert net.weight.is_meta


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
