"""PyTorch's API at a few dtype edges: normal() with a complex mean, integers
drawn into half-precision floats past the ones they hold exactly (PyTorch's
warning), nn.init.orthogonal_ of half-precision and complex tensors,
x.view(dtype) of another width, aminmax's single recorded node.  Held to
PyTorch's answers recorded in tests/golden/dtype_edges.json by
scripts/golden_dtype_edges.py; the draws' statistics against NumPy."""
import numpy as np
import pytest

import torchlike as tl
from oracle import golden_calls, golden_check

CALLS, _golden = golden_calls("dtype_edges")

# PyTorch's messages that ours contain word for word
SAME_WORDING = ("normal expects standard deviation", "normal does not support",
                "check_random_bounds", '"geqrf_cpu"', "Unlike NumPy", "self.")


# the draws past 2^digits warn (the W(...) calls check the words)
@pytest.mark.filterwarnings("ignore:.*is out of bounds:UserWarning")
@pytest.mark.parametrize("call,expected", CALLS, ids=[c for c, _ in CALLS])
def test_matches_pytorch(call, expected):
    golden_check(_golden, call, expected, SAME_WORDING)


def test_complex_normal_moments():
    """mean + std z, each part of z of variance 1/2 (PyTorch's complex normal)."""
    tl.manual_seed(3)
    mean = tl.full((200000,), 1 + 2j, dtype=tl.complex64)
    z = tl.normal(mean, 2.0).numpy()
    np.testing.assert_allclose([z.real.mean(), z.imag.mean()], [1.0, 2.0], atol=0.02)
    np.testing.assert_allclose([z.real.var(), z.imag.var()], [2.0, 2.0], rtol=0.02)
    std = tl.full((200000,), 3.0)
    z = tl.normal(mean, std).numpy()
    np.testing.assert_allclose([z.real.var(), z.imag.var()], [4.5, 4.5], rtol=0.02)


def test_bfloat16_draw_past_256_covers_the_range():
    """The draw is the integers' (rounded to bfloat16), not clipped at 256."""
    tl.manual_seed(0)
    with pytest.warns(UserWarning, match="out of bounds"):
        r = tl.randint(0, 300, (4000,), dtype=tl.bfloat16).float().numpy()
    assert r.min() >= 0 and r.max() <= 300 and (r > 256).any()


def test_aminmax_gradcheck():
    x = tl.tensor(np.random.default_rng(1).standard_normal((3, 4)), requires_grad=True)
    for kw in ({}, {"dim": 1}, {"dim": 0, "keepdim": True}, {"dim": -1}):
        assert tl.autograd.gradcheck(lambda t: tuple(tl.aminmax(t, **kw)), (x,))
