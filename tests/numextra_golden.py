"""The comparison the numerical-extras tests (signal windows, polar, low
rank, functional forms) make with their recorded PyTorch answers
(scripts/golden_<name>.py keep full-precision values): float64 results to
rtol 1e-10, other floats to rtol 2e-6 (PyTorch computes float32 in float32,
we often round float64 once); an expected exception must match in type
and message (PyTorch's dtype names spelled torch.* or torchlike.*)."""
import warnings

import pytest

import torchlike as T


def close(got, want, rtol, atol):
    if isinstance(want, float) and isinstance(got, float):
        if want != want:
            return got != got
        return got == want or abs(got - want) <= atol + rtol * abs(want)
    if isinstance(want, list) and isinstance(got, list):
        return len(got) == len(want) and all(close(g, w, rtol, atol) for g, w in zip(got, want))
    return got == want


def _tolerance(expected, tight, loose):
    """tight for results all float64/complex128 tensors, else loose."""
    def doubles(e):
        if e[0] == "tensor":
            return e[1] in ("float64", "complex128")
        if e[0] == "tuple":
            return all(doubles(v) for v in e[1])
        return True
    return tight if doubles(expected) else loose


def check(golden, call, expected, tight=(1e-10, 1e-12), loose=(2e-6, 1e-6), prefix=None):
    """Run call in golden.inputs(T) and compare with the recorded outcome;
    prefix: compare only that many characters of an exception's message."""
    env = golden.inputs(T)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if expected[0] == "raises":
            with pytest.raises(Exception) as e:
                eval(call, env)
            msg = str(e.value).replace("torchlike.", "torch.")
            assert type(e.value).__name__ == expected[1], (call, msg)
            assert msg[:prefix] == expected[2][:prefix], (call, msg, expected[2])
            return
        got = golden.describe(eval(call, env))
    rtol, atol = _tolerance(expected, tight, loose)
    assert close(got, expected, rtol, atol), (call, got, expected)
