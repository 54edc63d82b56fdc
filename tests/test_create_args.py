"""The argument forms of the creation and random functions, whose binding is
generated from src/ndcore/bindings/signatures.txt, against PyTorch's answers
recorded in tests/golden/create_args.json (scripts/golden_create_args.py):
sizes as varargs, one sequence or size=; ints as NumPy ints or 0-d tensors;
the dtype inferred by full/arange/linspace; the factory keywords; errors.

The few forms where torchlike answers on purpose differently from PyTorch
are tested at the end, each with the reason."""

import numpy as np
import pytest

import torchlike as tl
from oracle import golden_calls

CALLS, _golden = golden_calls("create_args")
describe = _golden.describe


@pytest.mark.parametrize("call,expected", CALLS, ids=[c for c, _ in CALLS])
def test_matches_pytorch(call, expected):
    env = {"T": tl, "np": np}
    if expected[0] == "raises":
        with pytest.raises(Exception) as e:
            eval(call, env)
        got = type(e.value).__name__
        # PyTorch raises RuntimeError where a dtype= and out= disagree, and
        # for a bad int it raises TypeError as we do
        assert got == expected[1], (call, got, str(e.value))
        assert str(e.value), call  # never an empty message
        return
    got = describe(eval(call, env))
    if got[0] == "tensor" and expected[0] == "tensor" and got[1:3] == expected[1:3]:
        np.testing.assert_allclose(np.array(got[3], dtype=float),
                                   np.array(expected[3], dtype=float), rtol=1e-6, err_msg=call)
    else:
        assert got == expected, call


def test_errors_name_the_argument():
    cases = [
        (lambda: tl.zeros(2, 3.0), TypeError, "zeros(): argument 'size' must be a sequence of "
         "ints, but element 1 is float"),
        (lambda: tl.zeros(2, size=3), TypeError, "zeros() got multiple values for argument "
         "'size'"),
        (lambda: tl.full((2,)), TypeError, "full() missing required argument 'fill_value'"),
        (lambda: tl.full((2,), "a"), TypeError, "full(): argument 'fill_value' must be a number, "
         "not str"),
        (lambda: tl.arange(1j), TypeError, "arange(): argument 'end' must be a real number, not "
         "complex"),
        (lambda: tl.linspace(0, 1, 2.0), TypeError, "linspace(): argument 'steps' must be int, "
         "not float"),
        (lambda: tl.linspace(0, 1, -1), RuntimeError, "number of steps must be non-negative"),
        (lambda: tl.eye(2, -3), RuntimeError, "m must be greater or equal to 0, got -3"),
        (lambda: tl.rand(2, generator=1), TypeError, "rand(): argument 'generator' must be "
         "torchlike.Generator, not int"),
        (lambda: tl.zeros_like(tl.ones(1), out=tl.ones(1)), TypeError, "zeros_like() got an "
         "unexpected keyword argument 'out'"),
        (lambda: tl.zeros(2, dtype=tl.int64, requires_grad=True), RuntimeError,
         "Only Tensors of floating point and complex dtype can require gradients (got int64)"),
        (lambda: tl.zeros(2, out=tl.empty(2, dtype=tl.float64), dtype=tl.float32), TypeError,
         "zeros(): dtype float32 does not match the dtype of out= (float64)"),
        (lambda: tl.randint(10, (3,), high=4), TypeError, "randint() got multiple values for "
         "argument 'high'"),
        (lambda: tl.randint(3, high=10), TypeError, "randint() missing required argument "
         "'size'"),
        (lambda: tl.empty(2).geometric_(), TypeError, "geometric_() missing required argument "
         "'p'"),
        (lambda: tl.empty(2).uniform_(1j), TypeError, "uniform_(): argument 'from' must be a "
         "real number, not complex"),
        (lambda: tl.empty(2).random_(5, 2), RuntimeError, "random_ expects 'from' to be less "
         "than 'to', but got from=5 >= to=2"),
        (lambda: tl.multinomial(tl.ones(2), 1.5), TypeError, "multinomial(): argument "
         "'num_samples' must be int, not float"),
        (lambda: tl.zeros(*([1] * 33)), ValueError, "zeros(): tensors have at most 32 "
         "dimensions, got 33"),
    ]
    for fn, exc, message in cases:
        with pytest.raises(exc) as e:
            fn()
        assert str(e.value) == message


def test_sizes_in_every_form_give_one_shape():
    forms = [(2, 3), ((2, 3),), ([2, 3],), (tl.Size([2, 3]),), (np.int64(2), tl.tensor(3)),
             (tl.tensor([2, 3]),), (np.array([2, 3]),), (range(2, 4),)]
    for fn in (tl.zeros, tl.ones, tl.empty, tl.rand, tl.randn):
        for args in forms:
            assert tuple(fn(*args).shape) == (2, 3), (fn, args)
        assert tuple(fn(size=[2, 3]).shape) == (2, 3)
    t = tl.ones(1, dtype=tl.float64)
    for args in forms:
        assert tuple(t.new_zeros(*args).shape) == (2, 3)
        assert t.new_ones(*args).dtype == tl.float64


def test_random_draws_follow_the_generator_in_every_form():
    """The same seed gives the same numbers whichever way the arguments come."""
    def draw(fn, *args, **kwargs):
        g = tl.Generator().manual_seed(7)
        return fn(*args, generator=g, **kwargs).cpu().numpy()
    np.testing.assert_array_equal(draw(tl.rand, 2, 3), draw(tl.rand, (2, 3)))
    np.testing.assert_array_equal(draw(tl.randn, 4), draw(tl.randn, size=[4]))
    np.testing.assert_array_equal(draw(tl.randint, 10, (5,)), draw(tl.randint, 0, 10, (5,)))
    np.testing.assert_array_equal(draw(tl.randint, 10, size=(5,)),
                                  draw(tl.randint, low=0, high=10, size=(5,)))
    np.testing.assert_array_equal(draw(tl.randperm, 6), draw(tl.randperm, np.int64(6)))
    x = tl.zeros(2, 2, dtype=tl.float64)
    np.testing.assert_array_equal(draw(tl.rand_like, x), draw(tl.rand, 2, 2, dtype=tl.float64))
    np.testing.assert_array_equal(draw(tl.randint_like, x, 5), draw(tl.randint_like, x, 0, 5))
    g1, g2 = tl.Generator().manual_seed(3), tl.Generator().manual_seed(3)
    np.testing.assert_array_equal(tl.empty(4).uniform_(2, 3, generator=g1).cpu().numpy(),
                                  tl.empty(4).uniform_(to=3, generator=g2, **{"from": 2}).cpu().numpy())
    g1, g2 = tl.Generator().manual_seed(3), tl.Generator().manual_seed(3)
    np.testing.assert_array_equal(tl.empty(4, dtype=tl.int64).random_(9, generator=g1).cpu().numpy(),
                                  tl.empty(4, dtype=tl.int64).random_(0, 9, generator=g2).cpu().numpy())
    assert tl.empty(100, dtype=tl.int64).random_(9).max().item() < 9
    # random_(from=..., to=None): up to the dtype's largest value
    r = tl.empty(200, dtype=tl.uint8).random_(**{"from": 250})
    assert r.min().item() >= 250 and r.max().item() <= 255


def test_out_and_factory_keywords():
    out = tl.empty(2, 2)
    assert tl.ones(2, 2, out=out) is out and out.tolist() == [[1.0, 1.0], [1.0, 1.0]]
    r = tl.rand(3, out=tl.empty(3, dtype=tl.float64))
    assert r.dtype == tl.float64
    for fn in (tl.zeros, tl.ones, tl.empty, tl.rand, tl.randn):
        t = fn(2, layout=tl.strided, pin_memory=False, memory_format=None, device="cpu",
               requires_grad=True)
        assert t.requires_grad and t.device.type == "cpu"
    assert tl.arange(3, dtype=tl.float64, requires_grad=True).requires_grad
    # device=None: the default device, as in PyTorch
    assert tl.full((1,), 2, device=None).device == tl.get_default_device()


# ---- where torchlike answers differently from PyTorch, on purpose -------------

def test_deliberate_differences():
    # zeros() with no size is a 0-d tensor, as NumPy's np.zeros(()) (PyTorch
    # raises); arange(end, step=) is accepted (PyTorch asks for the start)
    assert tl.zeros().shape == () and tl.ones().item() == 1.0
    assert tl.arange(5, step=2).tolist() == [0, 2, 4]
    # a size given as one int or a NumPy array is taken (PyTorch asks for a tuple)
    assert tuple(tl.full(2, 7).shape) == (2,)
    assert tuple(tl.randint(10, 3).shape) == (3,)
    assert tuple(tl.zeros(np.array([2, 3])).shape) == (2, 3)
