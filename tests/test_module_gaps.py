"""torchlike.functional, torchlike.__future__'s module conversion switches,
torchlike.xpu and torchlike.mps (no such devices), torchlike.utils.weak and
torchlike.backends.opt_einsum (einsum contracts left to right): PyTorch's
answers recorded by scripts/golden_module_gaps.py into
tests/golden/module_gaps.json, on a machine with neither device and without
the opt_einsum package; the switches' effect on a training step and the
weak dictionaries' behaviour under collection checked directly."""
import gc

import numpy as np
import pytest

import torchlike as T
import torchlike.__future__ as future
from oracle import golden_calls, golden_check

CALLS, _golden = golden_calls("module_gaps")
# PyTorch's messages that ours repeat word for word.
SAME_WORDING = ("Cannot execute", "Tried to instantiate dummy base class")


@pytest.mark.parametrize("call,expected", CALLS, ids=[c for c, _ in CALLS])
def test_matches_pytorch(call, expected):
    golden_check(_golden, call, expected, SAME_WORDING)


@pytest.fixture
def switches():
    yield future
    future.set_overwrite_module_params_on_conversion(False)
    future.set_swap_module_params_on_conversion(False)


@pytest.mark.parametrize("mode", ["default", "swap"])
def test_converted_parameters_keep_training_with_the_same_optimizer(switches, mode):
    # The optimizer holds the Parameter objects: when a conversion keeps them,
    # its steps reach the converted module, in float64 afterwards.
    switches.set_swap_module_params_on_conversion(mode == "swap")
    m = T.nn.Linear(3, 1)
    opt = T.optim.SGD(m.parameters(), lr=0.1)
    m.double()
    x = T.ones(4, 3, dtype=T.float64)
    before = m.weight.detach().clone()
    m(x).sum().backward()
    opt.step()
    assert m.weight.dtype == T.float64
    np.testing.assert_allclose(m.weight.detach().numpy(), before.numpy() - 0.1 * 4.0)


def test_overwritten_parameters_leave_the_optimizer_with_the_old_ones(switches):
    switches.set_overwrite_module_params_on_conversion(True)
    m = T.nn.Linear(3, 1)
    opt = T.optim.SGD(m.parameters(), lr=0.1)
    old = m.weight
    m.double()
    assert opt.param_groups[0]["params"][0] is old and old.dtype == T.float32
    assert m.weight is not old and isinstance(m.weight, T.nn.Parameter)


def test_swap_refuses_a_parameter_with_a_weak_reference(switches):
    import weakref
    switches.set_swap_module_params_on_conversion(True)
    m = T.nn.Linear(2, 2)
    ref = weakref.ref(m.weight)  # noqa: F841 - held for the refusal
    with pytest.raises(RuntimeError, match="Couldn't swap Linear.weight"):
        m.double()


def test_weak_dictionary_tells_equal_tensors_apart_and_forgets_dead_keys():
    d = T.utils.weak.WeakIdKeyDictionary()
    keys = [T.zeros(2) for _ in range(5)]
    for i in range(5):
        d[keys[i]] = i
    assert [d[keys[i]] for i in range(5)] == list(range(5)) and len(d) == 5
    del keys[::2]
    gc.collect()
    assert sorted(d.values()) == [1, 3] and len(d.keyrefs()) == 2
    assert keys[0] in d and keys[1] in d
