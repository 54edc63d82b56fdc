"""avg_pool2d and max_pool2d given plain ints call the kernel before the
Python argument checks (torchlike/nn/_pool.py), which then run only for
what the kernel refuses.  These tests hold that path to the checked one
(the same arguments as tuples, which take the checks first): the same bits
and indices, the same gradients, and the same refusals in PyTorch's words;
and the values to NumPy."""
import numpy as np
import pytest

import torchlike as T
import torchlike.nn.functional as F

# (kernel, stride, padding, dilation, ceil_mode)
ARGS = [(2, None, 0, 1, False), (3, 2, 1, 1, False), (3, 2, 1, 1, True), (2, 1, 1, 2, False),
        (5, 3, 2, 1, True), (1, 1, 0, 1, False)]


def rand(shape, dtype=T.float32, seed=0):
    return T.from_numpy(np.random.default_rng(seed).standard_normal(shape)).to(dtype)


def same_bits(a, b):
    assert a.shape == b.shape and a.dtype == b.dtype and a.stride() == b.stride()
    np.testing.assert_array_equal(a.float().numpy() if a.dtype == T.bfloat16 else a.numpy(),
                                  b.float().numpy() if b.dtype == T.bfloat16 else b.numpy())


def np_pool(x, k, s, kind):
    """No padding, floor mode: the windows' max or mean over the last 2 dims."""
    H, W = x.shape[-2:]
    oh, ow = (H - k) // s + 1, (W - k) // s + 1
    out = np.empty(x.shape[:-2] + (oh, ow), x.dtype)
    for i in range(oh):
        for j in range(ow):
            win = x[..., i * s:i * s + k, j * s:j * s + k]
            out[..., i, j] = win.max(axis=(-2, -1)) if kind == "max" else win.mean(axis=(-2, -1))
    return out


def tup(v):
    return None if v is None else (v, v)


@pytest.mark.parametrize("k,s,p,d,ceil", ARGS)
@pytest.mark.parametrize("dtype", [T.float32, T.float64, T.bfloat16])
@pytest.mark.parametrize("layout", ["contiguous", "channels_last", "strided", "unbatched"])
def test_int_arguments_give_the_checked_paths_results(k, s, p, d, ceil, dtype, layout):
    x = rand((2, 3, 9, 11), dtype)
    if layout == "channels_last":
        x = x.contiguous(memory_format=T.channels_last)
    elif layout == "strided":
        x = rand((2, 6, 9, 22), dtype)[:, ::2, :, ::2]
    elif layout == "unbatched":
        x = x[0]
    if d == 1:
        for cip in (True, False):
            same_bits(F.avg_pool2d(x, k, s, p, ceil, cip),
                      F.avg_pool2d(x, (k, k), tup(s), (p, p), ceil, cip))
    v, i = F.max_pool2d(x, k, s, p, d, ceil, return_indices=True)
    v2, i2 = F.max_pool2d(x, (k, k), tup(s), (p, p), (d, d), ceil, return_indices=True)
    same_bits(v, v2)
    same_bits(i, i2)
    same_bits(F.max_pool2d(x, k, s, p, d, ceil), v2)


@pytest.mark.parametrize("dtype", [T.float32, T.float64])
def test_int_arguments_match_numpy(dtype):
    x = rand((2, 3, 10, 9), dtype, seed=1)
    for k, s in ((2, 2), (3, 2), (3, 1)):
        want = np_pool(x.numpy().astype(np.float64), k, s, "avg")  # float32: a rounding
        np.testing.assert_allclose(F.avg_pool2d(x, k, s).numpy(), want,
                                   rtol=1e-6 if dtype == T.float32 else 1e-14,
                                   atol=1e-7 if dtype == T.float32 else 1e-16)
        np.testing.assert_array_equal(F.max_pool2d(x, k, s).numpy(),
                                      np_pool(x.numpy(), k, s, "max"))


def test_int_arguments_give_the_same_gradients():
    x = rand((2, 3, 7, 8), T.float64, seed=2).requires_grad_()
    for pool, args in ((F.avg_pool2d, (3, 2, 1)), (F.max_pool2d, (3, 2, 1))):
        (g1,) = T.autograd.grad(pool(x, *args).sum(), x)
        (g2,) = T.autograd.grad(pool(x, *(tup(a) for a in args)).sum(), x)
        same_bits(g1, g2)
        assert T.autograd.gradcheck(lambda a: pool(a, *args), (x,))


REFUSED = [
    ((2, 3, 0, 4), (2,)),          # an empty plane
    ((2, 0, 4, 4), (2,)),          # no channels
    ((4, 4), (2,)),                # a 2-d input
    ((5,), (2,)),                  # 1-d
    ((1, 2, 3, 3), (5,)),          # windows larger than the input
    ((1, 2, 5, 0), (1,)),          # an empty row
]


@pytest.mark.parametrize("shape,args", REFUSED)
@pytest.mark.parametrize("pool", ["avg_pool2d", "max_pool2d"])
def test_int_arguments_are_refused_in_the_checked_paths_words(shape, args, pool):
    fn = getattr(F, pool)
    x = T.zeros(shape)
    with pytest.raises(Exception) as plain:
        fn(x, *args)
    with pytest.raises(Exception) as checked:
        fn(x, *(tup(a) for a in args))
    assert type(plain.value) is type(checked.value)
    assert str(plain.value) == str(checked.value)


def test_integer_inputs_are_refused_alike():
    x = T.zeros((1, 2, 4, 4), dtype=T.int32)
    for args in ((2,), (5,)):
        with pytest.raises(Exception) as plain:
            F.avg_pool2d(x, *args)
        with pytest.raises(Exception) as checked:
            F.avg_pool2d(x, *(tup(a) for a in args))
        assert type(plain.value) is type(checked.value)
        assert str(plain.value) == str(checked.value)
    with pytest.raises(RuntimeError, match="divisor must be not zero"):
        F.avg_pool2d(T.zeros((1, 2, 4, 4)), 2, divisor_override=0)
