"""nn.functional's losses given integer and bool operands do what
PyTorch's do (recorded by scripts/golden_loss_integer_operands.py): the
result's dtype, shape and values where PyTorch promotes the operands, its
exception class and words where it refuses (a float-only kernel, an
integer mean, a bool subtracted or negated, an in-place result that cannot
hold the loss); and hinge_embedding_loss's formula for targets other than
1 and -1 (the input where the target is not -1, plus the margin term where
it is not 1)."""
import numpy as np
import pytest

import torchlike as tl
from oracle import golden_calls

CALLS, _golden = golden_calls("loss_integer_operands")


@pytest.mark.parametrize("call,expected", CALLS, ids=[c for c, _ in CALLS])
def test_loss_of_integer_and_bool_operands_matches_pytorch(call, expected):
    env = _golden._env(tl)
    if expected[0] == "raises":
        kind, words = expected[1:]
        device = env["I"].device.type
        if device != "cpu":  # the kernels our refusals name carry the device, as PyTorch's
            words = words.replace('_cpu"', f'_{device}"')
        with pytest.raises(Exception) as e:
            eval(call, env)
        assert kind in [c.__name__ for c in type(e.value).__mro__], (call, repr(e.value))
        assert str(e.value).startswith(words), (call, str(e.value))
        return
    got = _golden.describe(eval(call, env))
    assert got[:3] == expected[:3], call
    want = np.asarray(expected[3], dtype=got[1])
    if want.dtype.kind == "f":
        # exp/log/log1p of float32 come from the vector math library, whose
        # last bit can differ from PyTorch's: 2 ulp (summed over a mean, 4)
        np.testing.assert_array_max_ulp(np.asarray(got[3], dtype=got[1]), want, maxulp=4)
    else:
        np.testing.assert_array_equal(np.asarray(got[3]), want)


def test_hinge_embedding_loss_formula_against_numpy():
    # PyTorch's formula, written in NumPy: x where y != -1, plus
    # max(0, margin - x) where y != 1 (targets 0 and 2 take both terms)
    rng = np.random.default_rng(3)
    x = rng.standard_normal((4, 5)).astype(np.float32)
    y = rng.choice([-1, 0, 1, 2], size=(4, 5))
    for margin in (1.0, 0.25, 2.0):
        want = np.where(y != 1, np.maximum(margin - x, 0), 0) + np.where(y != -1, x, 0)
        got = tl.nn.functional.hinge_embedding_loss(tl.tensor(x), tl.tensor(y), margin=margin,
                                                    reduction="none")
        np.testing.assert_allclose(got.cpu().numpy(), want.astype(np.float32), rtol=1e-6)


def test_hinge_embedding_loss_gradient_by_finite_differences():
    x = tl.tensor([[0.3, -0.7, 1.6], [0.9, 0.2, -1.1]], dtype=tl.float64, requires_grad=True)
    y = tl.tensor([[1, -1, 0], [2, -1, 1]])
    assert tl.autograd.gradcheck(
        lambda x: tl.nn.functional.hinge_embedding_loss(x, y, margin=0.5), (x,))
