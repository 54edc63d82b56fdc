"""Inference tensors outside inference_mode, against PyTorch's recorded
answers (scripts/golden_inference_tensors.py): every kind of write -- an
in-place method, indexing, out=, an in-place activation or initialiser,
an in-place change of shape or storage -- is refused, as is keeping one's
values for backward; reading, cloning and ops that keep no values run.

The refusal is the storage's: a storage made in inference mode is written
only in inference mode (tl_storage_check_write), so every view and alias
of an inference tensor is covered, whichever kernel writes.  Unlike
PyTorch, x.detach().add_(1) is refused too: PyTorch lets that write
through to the inference tensor x, which its own rule forbids."""
import numpy as np
import pytest

import torchlike as torch
from oracle import golden_calls

CALLS, _golden = golden_calls("inference_tensors")


def _first_sentence(message):
    return message.split(".")[0]


@pytest.mark.parametrize("call,expected", CALLS, ids=[c for c, _ in CALLS])
def test_matches_pytorch(call, expected):
    env = _golden.inputs(torch)
    if expected[0] == "raises":
        with pytest.raises(Exception) as e:
            eval(call, env)
        assert type(e.value).__name__ == expected[1], (call, str(e.value))
        assert _first_sentence(str(e.value)) == _first_sentence(expected[2]), (call, str(e.value))
        return
    assert _golden.describe(eval(call, env)) == expected, call


def test_a_refused_write_leaves_the_tensor_as_it_was():
    with torch.inference_mode():
        x = torch.arange(6.0).reshape(2, 3)
    for write in (lambda: x.add_(1), lambda: x.resize_(4, 4), lambda: x.unsqueeze_(0),
                  lambda: torch.mul(x, 2, out=x), lambda: x.__setitem__(0, 9.0)):
        with pytest.raises(RuntimeError, match="Inplace update to inference tensor"):
            write()
    assert x.shape == (2, 3) and x._version == 0
    np.testing.assert_array_equal(x.numpy(), np.arange(6.0).reshape(2, 3))


def test_inside_inference_mode_everything_is_written():
    with torch.inference_mode():
        x = torch.zeros(3)
    with torch.inference_mode():
        x.add_(1)
        x.resize_(4)
        x[3] = 7.0
        torch.nn.functional.relu(x, inplace=True)
    np.testing.assert_array_equal(x.numpy(), [1.0, 1.0, 1.0, 7.0])
    with torch.inference_mode(False):  # a disabled inference_mode is normal mode
        with pytest.raises(RuntimeError, match="Inplace update to inference tensor"):
            x.add_(1)


def test_normal_tensors_stay_writable_after_inference_mode():
    """Only storages made in inference mode are fenced: a normal tensor
    written, viewed or resized inside keeps its normal storage."""
    a, b = torch.zeros(4), torch.zeros(2)
    with torch.inference_mode():
        a.add_(1)
        v = a[1:3]
        b.resize_(8)  # grows into a new storage: still a normal one
    v.add_(1)
    b.fill_(2.0)
    np.testing.assert_array_equal(a.numpy(), [1.0, 2.0, 2.0, 1.0])
    np.testing.assert_array_equal(b.numpy(), np.full(8, 2.0))


def test_the_fence_speaks_pytorchs_words():
    with torch.inference_mode():
        x = torch.ones(3)
    with pytest.raises(RuntimeError) as info:
        x.mul_(2)
    assert str(info.value) == ("Inplace update to inference tensor outside InferenceMode is not "
                               "allowed.You can make a clone to get a normal tensor before doing "
                               "inplace update.See https://github.com/pytorch/rfcs/pull/17 for "
                               "more details.")


def test_detach_and_untracked_aliases_keep_the_fence():
    with torch.inference_mode():
        x = torch.ones(3)
    with pytest.raises(RuntimeError, match="Inplace update to inference tensor"):
        x.detach().add_(1)  # PyTorch lets this one through (see the module doc)
    with pytest.raises(RuntimeError, match="Inplace update to inference tensor"):
        torch._C._untracked_alias(x).add_(1)


def test_optimizer_state_made_in_inference_mode_is_refused():
    """Adam's moments made by a step inside inference_mode are inference
    tensors; the next step outside writes them, and is refused as in
    PyTorch, before any parameter moves."""
    p = torch.nn.Parameter(torch.ones(3))
    opt = torch.optim.Adam([p], lr=0.1)
    p.grad = torch.ones(3)
    with torch.inference_mode():
        opt.step()
    before = p.detach().clone()
    with pytest.raises(RuntimeError, match="Inplace update to inference tensor"):
        opt.step()
    np.testing.assert_array_equal(p.detach().numpy(), before.numpy())


def test_out_arguments_of_read_only_tensors_are_refused_by_every_kernel():
    """out= is checked where its argument is bound, so the kernels that
    write it directly (the nn activations, whose in-place forms write
    through out=) refuse a read-only tensor too."""
    ro = -torch.ones(3)
    ro._set_readonly(True)
    F = torch.nn.functional
    for call in (lambda: F.relu(ro, inplace=True), lambda: F.elu(ro, inplace=True),
                 lambda: F.hardtanh(ro, inplace=True), lambda: torch.exp(ro, out=ro),
                 lambda: torch.cumsum(torch.ones(3), 0, out=ro)):
        with pytest.raises(ValueError, match="read-only"):
            call()
    np.testing.assert_array_equal(ro.numpy(), -np.ones(3))
