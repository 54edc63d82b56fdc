"""One recorded PyTorch call (scripts/golden_<name>.py) run with torchlike
and compared with a tolerance: floats to 2e-4 relative, as the recording
keeps 5 digits and float32 FFTs and sums may differ in the last bits.  An
expected exception must match in type and in the first 60 characters of
PyTorch's message.  Used by the test files of torchlike's later
compositions (stft, histogram, lu, the extra functions).  With a device as
the default device (tests/conftest.py), a message that names the input's
type names that device ("istft(CUDAComplexFloatType[...") as PyTorch's does:
it is compared as the CPU's."""
import math
import re
import warnings

import pytest

import torchlike as T


def close(got, want, rtol=2e-4):
    """Described results equal, floats to rtol relative (absolute below 1)."""
    if isinstance(want, float) and isinstance(got, float):
        if math.isnan(want):
            return math.isnan(got)
        return got == want or abs(got - want) <= rtol * max(1.0, abs(want))
    if isinstance(want, list) and isinstance(got, list):
        return len(got) == len(want) and all(close(g, w, rtol) for g, w in zip(got, want))
    return got == want


def recorded_params(calls, cpu_only=()):
    """pytest params for the recorded calls; those whose recorded error starts
    with one of cpu_only (checks PyTorch makes in its CPU kernels only) are
    host_only: skipped with a device as the default device."""
    return [pytest.param(c, e, id=c, marks=pytest.mark.host_only)
            if e[0] == "raises" and e[2].startswith(tuple(cpu_only)) else pytest.param(c, e, id=c)
            for c, e in calls]


def _as_on_the_cpu(msg):
    device = T.get_default_device().type
    if device == "cpu":
        return msg
    return re.sub(rf"\b{device.upper()}(?=[A-Za-z]+Type\b)", "CPU", msg)


def check_recorded(golden, call, expected):
    env = golden.inputs(T)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the warnings have tests of their own
        if expected[0] == "raises":
            with pytest.raises(Exception) as e:
                eval(call, env)
            assert type(e.value).__name__ == expected[1], (call, str(e.value))
            assert expected[2][:60] in _as_on_the_cpu(str(e.value)), (call, str(e.value))
            return
        got = golden.describe(eval(call, env))
    assert close(got, expected), (call, got, expected)
