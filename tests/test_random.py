"""Random numbers: the Philox generator, its API, and the distributions.

Determinism (same seed, same numbers; independent of threads and layout),
generator independence and state round trips, ranges, shapes and dtypes, and
statistical checks against scipy.stats with fixed seeds (so they never flake)."""
import numpy as np
import pytest
from scipy import stats

import torchlike as tl

FLOATS = ["float16", "bfloat16", "float32", "float64"]


def gen(seed=1234):
    return tl.Generator().manual_seed(seed)


def f64(t):
    return t.to(tl.float64).cpu().numpy()


# ---- the generator ---------------------------------------------------------------

def test_philox_known_answers():
    # Known-answer vectors of Philox4x32-10 from the Random123 distribution.
    p = tl._C._philox4x32_10
    assert p((0, 0, 0, 0), (0, 0)) == (0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8)
    assert p((0xffffffff,) * 4, (0xffffffff,) * 2) == (0x408f276d, 0x41c83b0e, 0xa20bc7c6,
                                                      0x6d5451fd)
    assert p((0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344), (0xa4093822, 0x299f31d0)) == \
        (0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1)


@pytest.mark.host_only  # the CPU's kernel
@pytest.mark.parametrize("first", [0, 3, 2**32 - 9, 2**64 - 21])
@pytest.mark.parametrize("nblocks", [1, 15, 16, 17, 40])
def test_block_words_match_single_blocks(first, nblocks):
    # The CPU runs many blocks at once (SIMD lanes, 16 at a time on AVX-512);
    # each word must equal that of its block computed alone, whatever the group
    # boundaries and across the carry into the counter's high word.  float32
    # draws show the top 24 bits of every word.
    seed = 0x0123_4567_89ab_cdef
    g = tl.Generator()
    g.set_state(tl.tensor(list(seed.to_bytes(8, "little") + first.to_bytes(8, "little")),
                          dtype=tl.uint8))
    got = tl.rand(4 * nblocks, generator=g).numpy()
    p = tl._C._philox4x32_10
    words = [w for b in range(nblocks)
             for w in p((((first + b) % 2**64) & 0xffffffff, ((first + b) % 2**64) >> 32, 0, 0),
                        (seed & 0xffffffff, seed >> 32))]
    np.testing.assert_array_equal(got, np.array([(w >> 8) * 2.0 ** -24 for w in words],
                                                dtype=np.float32))


def test_manual_seed_returns_default_generator_and_repeats():
    g = tl.manual_seed(7)
    assert g is tl.default_generator
    assert tl.initial_seed() == 7
    a = [tl.rand(5), tl.randn(3, 2), tl.randint(0, 100, (4,)), tl.randperm(6)]
    tl.manual_seed(7)
    b = [tl.rand(5), tl.randn(3, 2), tl.randint(0, 100, (4,)), tl.randperm(6)]
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x.cpu().numpy(), y.cpu().numpy())
    c = tl.rand(5)
    assert not np.array_equal(c.cpu().numpy(), a[0].cpu().numpy())  # the stream moves on


def test_generator_methods():
    g = tl.Generator()
    assert g.device.type == "cpu"
    assert g.manual_seed(3) is g
    assert g.initial_seed() == 3
    s = g.seed()
    assert isinstance(s, int) and g.initial_seed() == s
    assert tl.Generator(device="cpu").initial_seed() == tl.Generator().initial_seed()
    g.manual_seed(-1)
    assert g.initial_seed() == 2 ** 64 - 1
    g.manual_seed(2 ** 64 - 1)
    assert g.initial_seed() == 2 ** 64 - 1
    with pytest.raises(ValueError):
        g.manual_seed(2 ** 64)
    with pytest.raises(TypeError):
        g.manual_seed(1.5)
    with pytest.raises(RuntimeError, match="cuda"):
        tl.Generator(device="cuda")


def test_seed_function():
    s = tl.seed()
    assert isinstance(s, int) and tl.initial_seed() == s
    tl.manual_seed(0)


def test_generators_are_independent():
    g1, g2 = gen(5), gen(5)
    tl.manual_seed(0)
    before = tl.get_rng_state()
    a = tl.rand(100, generator=g1)
    _ = tl.rand(50, generator=gen(99))
    b = tl.rand(100, generator=g2)
    np.testing.assert_array_equal(a.cpu().numpy(), b.cpu().numpy())
    np.testing.assert_array_equal(tl.get_rng_state().cpu().numpy(), before.cpu().numpy())
    c = tl.rand(100, generator=gen(6))
    assert not np.array_equal(a.cpu().numpy(), c.cpu().numpy())
    # draws from one generator do not repeat
    d = tl.rand(100, generator=g1)
    assert not np.array_equal(a.cpu().numpy(), d.cpu().numpy())


def test_state_round_trip():
    g = gen(11)
    tl.rand(3, generator=g)
    state = g.get_state()
    assert state.dtype == tl.uint8 and state.shape == (16,)
    a = tl.randn(50, generator=g)
    g.set_state(state)
    b = tl.randn(50, generator=g)
    np.testing.assert_array_equal(a.cpu().numpy(), b.cpu().numpy())
    # the state is a copy: later draws don't change it
    assert not np.array_equal(state.cpu().numpy(), g.get_state().cpu().numpy())
    # into another generator
    h = tl.Generator()
    h.set_state(state)
    np.testing.assert_array_equal(tl.randn(50, generator=h).cpu().numpy(), a.cpu().numpy())


def test_generator_pickles_and_copies():
    import copy
    import pickle
    g = gen(5)
    tl.rand(3, generator=g)
    clones = [pickle.loads(pickle.dumps(g)), copy.deepcopy(g), copy.copy(g)]
    expected = tl.rand(10, generator=g).cpu().numpy()
    for c in clones:
        assert c is not g and c.initial_seed() == 5
        np.testing.assert_array_equal(tl.rand(10, generator=c).cpu().numpy(), expected)
    with pytest.raises(TypeError):
        g.__setstate__(b"short")


def test_rng_state_functions():
    tl.manual_seed(21)
    state = tl.get_rng_state()
    a = tl.rand(10)
    assert tl.set_rng_state(state) is None
    np.testing.assert_array_equal(tl.rand(10).cpu().numpy(), a.cpu().numpy())
    with pytest.raises(TypeError, match="uint8"):
        tl.set_rng_state(state.to(tl.int64))
    with pytest.raises(RuntimeError, match="16 bytes"):
        tl.set_rng_state(tl.zeros(8, dtype=tl.uint8))
    with pytest.raises(TypeError):
        tl.set_rng_state(np.zeros(16, np.uint8))


def test_results_do_not_depend_on_thread_count():
    n = tl.get_num_threads()
    try:
        tl.set_num_threads(1)
        a = [tl.rand(200_000, generator=gen()), tl.randn(100_001, dtype=tl.float64,
                                                         generator=gen()),
             tl.randint(0, 1000, (70_000,), generator=gen())]
        tl.set_num_threads(4)
        b = [tl.rand(200_000, generator=gen()), tl.randn(100_001, dtype=tl.float64,
                                                         generator=gen()),
             tl.randint(0, 1000, (70_000,), generator=gen())]
    finally:
        tl.set_num_threads(n)
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x.cpu().numpy(), y.cpu().numpy())


def test_results_do_not_depend_on_layout():
    a = tl.empty(6, 4).uniform_(generator=gen())
    t = tl.empty(4, 6).T  # the same logical shape, transposed memory
    assert not t.is_contiguous()
    t.normal_(generator=gen())
    b = tl.empty(6, 4).normal_(generator=gen())
    np.testing.assert_array_equal(t.cpu().numpy(), b.cpu().numpy())
    assert a.shape == (6, 4)


def test_generator_argument_errors():
    with pytest.raises(TypeError, match="generator"):
        tl.rand(3, generator=np.random.default_rng())
    with pytest.raises(TypeError, match="generator"):
        tl.zeros(3).uniform_(generator=1)
    assert tl.rand(2, generator=None).shape == (2,)


# ---- rand / randn -------------------------------------------------------------------

@pytest.mark.parametrize("fn", [tl.rand, tl.randn])
def test_shapes_and_default_dtype(fn):
    for t, shape in [(fn(2, 3), (2, 3)), (fn((2, 3)), (2, 3)), (fn(size=[4]), (4,)),
                     (fn(()), ()), (fn(0), (0,)), (fn(2, 0, 3), (2, 0, 3))]:
        assert t.shape == shape and t.dtype == tl.float32 and t.is_contiguous()
    with pytest.raises(TypeError):
        fn(2.5)
    with pytest.raises(RuntimeError, match=r"negative dimension -2: \[3, -2\]"):
        fn(3, -2)
    assert fn(2, requires_grad=True).requires_grad
    kernel = "check_uniform_bounds" if fn is tl.rand else "normal_kernel_cpu"  # PyTorch's words
    with pytest.raises(NotImplementedError, match=f"^\"{kernel}\" not implemented for 'Long'$"):
        fn(3, dtype=tl.int64)
    with pytest.raises(TypeError, match="unexpected keyword"):
        fn(3, bogus=1)


@pytest.mark.parametrize("dtype", FLOATS)
def test_rand_range_and_dtype(dtype):
    t = tl.rand(100_000, dtype=getattr(tl, dtype), generator=gen())
    assert t.dtype == getattr(tl, dtype)
    x = f64(t)
    assert x.min() >= 0.0 and x.max() < 1.0
    assert x.min() < 0.01 and x.max() > 0.99
    assert abs(x.mean() - 0.5) < 0.01


def test_rand_follows_uniform_distribution():
    x = f64(tl.rand(20_000, dtype=tl.float64, generator=gen(1)))
    assert stats.kstest(x, "uniform").pvalue > 1e-3
    x = f64(tl.rand(20_000, generator=gen(2)))
    assert stats.kstest(x, "uniform").pvalue > 1e-3


@pytest.mark.parametrize("dtype", FLOATS)
def test_randn_follows_normal_distribution(dtype):
    x = f64(tl.randn(20_000, dtype=getattr(tl, dtype), generator=gen(3)))
    assert abs(x.mean()) < 0.03 and abs(x.std() - 1) < 0.03
    if dtype in ("float32", "float64"):
        assert stats.kstest(x, "norm").pvalue > 1e-3
    assert abs(stats.skew(x)) < 0.1 and abs(stats.kurtosis(x)) < 0.2


def test_randn_moments_float64():
    x = f64(tl.randn(200_000, dtype=tl.float64, generator=gen(4)))
    assert abs(x.mean()) < 0.01 and abs(x.var() - 1) < 0.015
    assert np.isfinite(x).all()


def test_complex_outputs():
    z = tl.randn(50_000, dtype=tl.complex64, generator=gen(5)).cpu().numpy()
    assert z.dtype == np.complex64
    assert abs(z.real.var() - 0.5) < 0.02 and abs(z.imag.var() - 0.5) < 0.02
    assert abs(np.corrcoef(z.real, z.imag)[0, 1]) < 0.03
    u = tl.rand(1000, dtype=tl.complex128, generator=gen()).cpu().numpy()
    assert (u.real >= 0).all() and (u.real < 1).all() and (u.imag >= 0).all()


def test_like_forms():
    src = tl.zeros(3, 4, dtype=tl.float64)
    assert tl.rand_like(src).dtype == tl.float64 and tl.rand_like(src).shape == (3, 4)
    assert tl.randn_like(src, dtype=tl.float16).dtype == tl.float16
    a = tl.rand_like(src, generator=gen())
    b = tl.rand(3, 4, dtype=tl.float64, generator=gen())
    np.testing.assert_array_equal(a.cpu().numpy(), b.cpu().numpy())
    r = tl.randint_like(tl.zeros(5, dtype=tl.int32), 10)
    assert r.dtype == tl.int32 and (f64(r) >= 0).all() and (f64(r) < 10).all()
    r = tl.randint_like(src, 3, 6)
    assert r.dtype == tl.float64 and set(np.unique(r.cpu().numpy())) <= {3.0, 4.0, 5.0}
    r = tl.randint_like(src, low=-2, high=0)
    assert set(np.unique(r.cpu().numpy())) <= {-2.0, -1.0}
    with pytest.raises(TypeError):
        tl.rand_like([1.0])
    with pytest.raises(TypeError, match="high"):
        tl.randint_like(src)


def test_out_argument():
    out = tl.empty(2, 3)
    assert tl.rand(2, 3, out=out, generator=gen()) is out
    np.testing.assert_array_equal(out.cpu().numpy(), tl.rand(2, 3, generator=gen()).cpu().numpy())
    with pytest.raises(RuntimeError, match=r"\[4\]"):
        tl.rand(2, 3, out=tl.empty(4))


# ---- randint / random_ ------------------------------------------------------------------

def test_randint_forms():
    assert tl.randint(10, (3,)).dtype == tl.int64
    t = tl.randint(3, 10, (2, 5), generator=gen())
    assert t.shape == (2, 5) and (t.cpu().numpy() >= 3).all() and (t.cpu().numpy() < 10).all()
    assert tl.randint(high=5, size=(4,)).shape == (4,)
    assert tl.randint(2, 5, size=(4,)).shape == (4,)
    assert tl.randint(low=2, high=5, size=(4,)).shape == (4,)
    assert tl.randint(5, size=(4,)).shape == (4,)
    assert tl.randint(0, 2, (3,), dtype=tl.bool).dtype == tl.bool
    f = tl.randint(-5, 5, (100,), dtype=tl.float32, generator=gen())
    assert f.dtype == tl.float32 and (f.cpu().numpy() == np.round(f.cpu().numpy())).all()
    with pytest.raises(RuntimeError, match="from=5 >= to=5"):
        tl.randint(5, 5, (3,))
    with pytest.raises(RuntimeError, match="uint8"):
        tl.randint(0, 300, (3,), dtype=tl.uint8)
    with pytest.raises(RuntimeError, match="int8"):
        tl.randint(-200, 0, (3,), dtype=tl.int8)
    with pytest.raises(TypeError):
        tl.randint(0, 5.5, (3,))
    with pytest.raises(TypeError, match="size"):
        tl.randint(5)
    with pytest.raises(TypeError, match="multiple"):
        tl.randint(1, 5, (2,), high=4)


def test_randint_is_uniform():
    x = tl.randint(-3, 7, (50_000,), generator=gen(8)).cpu().numpy()
    counts = np.bincount(x + 3, minlength=10)
    assert counts.min() > 0 and len(counts) == 10
    assert stats.chisquare(counts).pvalue > 1e-3


def test_randint_full_int64_range():
    x = tl.randint(-2 ** 63, 2 ** 63 - 1, (1000,), generator=gen()).cpu().numpy()
    assert (x < 0).any() and (x > 0).any()
    y = tl.empty(1000, dtype=tl.int64).random_(-2 ** 63, None, generator=gen()).cpu().numpy()
    assert (y < -2 ** 62).any() and (y > 2 ** 62).any()


@pytest.mark.parametrize("dtype, hi", [("bool", 1), ("uint8", 255), ("int8", 127),
                                       ("int16", 32767), ("int32", 2 ** 31 - 1),
                                       ("float16", 2 ** 11), ("bfloat16", 2 ** 8),
                                       ("float32", 2 ** 24)])
def test_random_default_range(dtype, hi):
    t = tl.empty(20_000, dtype=getattr(tl, dtype)).random_(generator=gen())
    x = f64(t)
    assert x.min() >= 0 and x.max() <= hi and (x == np.floor(x)).all()
    assert x.max() > hi * 0.9


def test_random_forms():
    t = tl.empty(1000, dtype=tl.int32)
    assert t.random_(5) is t
    assert set(np.unique(t.cpu().numpy())) == {0, 1, 2, 3, 4}
    t.random_(2, 5)
    assert set(np.unique(t.cpu().numpy())) == {2, 3, 4}
    t.random_(-3, to=0)
    assert set(np.unique(t.cpu().numpy())) == {-3, -2, -1}
    s = tl.empty(2000, dtype=tl.int8).random_(100)
    assert s.cpu().numpy().max() < 100
    s.random_(120, None)
    assert s.cpu().numpy().min() >= 120 and s.cpu().numpy().max() == 127
    f = tl.empty(100, dtype=tl.float64).random_(-10, 10)
    assert (f.cpu().numpy() >= -10).all() and (f.cpu().numpy() < 10).all()
    with pytest.raises(RuntimeError):
        tl.empty(3, dtype=tl.int8).random_(0, 1000)
    with pytest.raises(RuntimeError):
        tl.empty(3).random_(5, 5)
    with pytest.raises(RuntimeError):
        tl.empty(3, dtype=tl.complex64).random_()


# ---- in-place samplers --------------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOATS)
def test_uniform_(dtype):
    t = tl.empty(20_000, dtype=getattr(tl, dtype))
    assert t.uniform_(-2, 3, generator=gen(9)) is t
    x = f64(t)
    assert x.min() >= -2 and x.max() <= 3 and abs(x.mean() - 0.5) < 0.05
    if dtype in ("float32", "float64"):
        assert x.max() < 3
        assert stats.kstest(x, stats.uniform(-2, 5).cdf).pvalue > 1e-3
    assert tl.empty(3).uniform_(to=2.0).cpu().numpy().max() < 2
    with pytest.raises(RuntimeError, match=r"^uniform_ expects to return a \[from, to\) range, "
                                           r"but found from=3 > to=2$"):
        t.uniform_(3, 2)
    with pytest.raises(RuntimeError, match="finite"):
        t.uniform_(0, float("inf"))
    with pytest.raises(RuntimeError):
        tl.empty(3, dtype=tl.int32).uniform_()


def test_normal_():
    t = tl.empty(20_000, dtype=tl.float64)
    assert t.normal_(3.0, 2.0, generator=gen(10)) is t
    assert stats.kstest(t.cpu().numpy(), stats.norm(3.0, 2.0).cdf).pvalue > 1e-3
    z = tl.empty(10).normal_(5.0, 0.0)
    assert (z.cpu().numpy() == 5.0).all()
    with pytest.raises(RuntimeError, match="std"):
        t.normal_(0, -1)
    with pytest.raises(RuntimeError):
        tl.empty(3, dtype=tl.int64).normal_()


def test_exponential_():
    t = tl.empty(20_000, dtype=tl.float64).exponential_(2.0, generator=gen(11))
    x = t.cpu().numpy()
    assert (x > 0).all()
    assert stats.kstest(x, stats.expon(0, 0.5).cdf).pvalue > 1e-3
    f = tl.empty(20_000).exponential_(generator=gen(12)).cpu().numpy()
    assert (f > 0).all() and abs(f.mean() - 1) < 0.03
    with pytest.raises(RuntimeError, match="lambd"):
        tl.empty(3).exponential_(0)


def test_cauchy_and_log_normal_():
    c = tl.empty(20_000, dtype=tl.float64).cauchy_(1.0, 2.0, generator=gen(13)).cpu().numpy()
    assert stats.kstest(c, stats.cauchy(1.0, 2.0).cdf).pvalue > 1e-3
    ln = tl.empty(20_000, dtype=tl.float64).log_normal_(0.5, 0.75, generator=gen(14)).cpu().numpy()
    assert (ln > 0).all()
    assert stats.kstest(ln, stats.lognorm(0.75, 0, np.exp(0.5)).cdf).pvalue > 1e-3
    d = tl.empty(1000).log_normal_().cpu().numpy()  # defaults mean=1, std=2
    assert (d > 0).all()
    with pytest.raises(RuntimeError, match="sigma"):
        tl.empty(3).cauchy_(0, 0)


def test_geometric_():
    t = tl.empty(30_000, dtype=tl.int64).geometric_(0.25, generator=gen(15))
    x = t.cpu().numpy()
    assert x.min() >= 1
    counts = np.bincount(x)[1:9]
    expected = stats.geom.pmf(np.arange(1, 9), 0.25) * len(x)
    assert stats.chisquare(counts, expected * counts.sum() / expected.sum()).pvalue > 1e-3
    assert abs(x.mean() - 4) < 0.1
    f = tl.empty(100).geometric_(p=0.5)
    assert f.dtype == tl.float32 and (f.cpu().numpy() >= 1).all()
    with pytest.raises(RuntimeError, match="p"):
        tl.empty(3).geometric_(1.5)
    with pytest.raises(TypeError, match="p"):
        tl.empty(3).geometric_()


def test_overlapping_tensor_is_rejected():
    t = tl.zeros(3).expand(4, 3)
    with pytest.raises(RuntimeError, match="stride-0"):
        t.uniform_()
    with pytest.raises(RuntimeError, match="stride-0"):
        t.bernoulli_(0.5)
    assert tl.zeros(1).expand(1, 1).normal_().shape == (1, 1)  # size-1 dims are fine


def test_read_only_tensor_is_rejected():
    a = np.zeros(4)
    a.setflags(write=False)
    with pytest.raises(ValueError, match="read-only"):
        tl.from_numpy(a).uniform_()
    assert (a == 0).all()


# ---- bernoulli --------------------------------------------------------------------------------

def test_bernoulli_inplace_and_scalar_p():
    t = tl.empty(50_000)
    assert t.bernoulli_(0.3, generator=gen(16)) is t
    x = t.cpu().numpy()
    assert set(np.unique(x)) == {0.0, 1.0}
    assert abs(x.mean() - 0.3) < 0.01
    assert tl.zeros(10, dtype=tl.bool).bernoulli_(1.0).cpu().numpy().all()
    assert not tl.ones(10, dtype=tl.int32).bernoulli_(0.0).cpu().numpy().any()
    with pytest.raises(RuntimeError, match="p"):
        t.bernoulli_(1.5)


def test_bernoulli_with_probability_tensors():
    p = tl.tensor([0.0, 1.0, 0.0, 1.0])
    np.testing.assert_array_equal(tl.bernoulli(p).cpu().numpy(), p.cpu().numpy())
    probs = tl.full((40_000,), 0.7, dtype=tl.float64)
    x = tl.bernoulli(probs, generator=gen(17))
    assert x.dtype == tl.float64 and abs(x.cpu().numpy().mean() - 0.7) < 0.01
    m = probs.bernoulli()
    assert m.dtype == tl.float64 and m.shape == probs.shape
    # a probability tensor broadcast over self
    t = tl.empty(20_000, 2).bernoulli_(tl.tensor([0.1, 0.9]), generator=gen(18))
    np.testing.assert_allclose(t.cpu().numpy().mean(axis=0), [0.1, 0.9], atol=0.02)
    # a scalar p with an input tensor giving only the shape and dtype
    s = tl.bernoulli(tl.zeros(10_000), 0.5, generator=gen())
    assert abs(s.cpu().numpy().mean() - 0.5) < 0.03
    out = tl.empty(4)
    assert tl.bernoulli(p, out=out) is out
    with pytest.raises(NotImplementedError, match="not implemented for 'Long'"):
        tl.bernoulli(tl.tensor([0, 1]))
    with pytest.raises(RuntimeError, match="p"):
        tl.bernoulli(tl.tensor([0.5, 2.0]))
    with pytest.raises(TypeError):
        tl.bernoulli([0.5])


# ---- normal -------------------------------------------------------------------------------------

def test_normal_forms():
    t = tl.normal(2.0, 3.0, (20_000,), generator=gen(19))
    assert t.dtype == tl.float32 and t.shape == (20_000,)
    assert stats.kstest(f64(t), stats.norm(2.0, 3.0).cdf).pvalue > 1e-3
    assert tl.normal(0.0, 1.0, size=(2, 3)).shape == (2, 3)
    assert tl.normal(0, 1, (4,), dtype=tl.float64).dtype == tl.float64
    mean = tl.tensor([[0.0], [100.0]], dtype=tl.float64)
    std = tl.tensor([1.0, 2.0, 0.0], dtype=tl.float64)
    r = tl.normal(mean, std, generator=gen())
    assert r.shape == (2, 3) and r.dtype == tl.float64
    assert r[0, 2].item() == 0.0 and r[1, 2].item() == 100.0
    assert abs(r[1, 0].item() - 100) < 10
    assert tl.normal(mean).shape == (2, 1)
    s = tl.normal(5.0, tl.zeros(3))
    assert s.dtype == tl.float32 and s.tolist() == [5.0, 5.0, 5.0]
    big = tl.normal(tl.zeros(20_000, dtype=tl.float64), 2.0, generator=gen(20))
    assert stats.kstest(big.cpu().numpy(), stats.norm(0, 2.0).cdf).pvalue > 1e-3
    with pytest.raises(RuntimeError, match="std"):
        tl.normal(tl.zeros(3), -1.0)
    with pytest.raises(RuntimeError, match="std"):
        tl.normal(tl.zeros(3), tl.tensor([1.0, -1.0, 1.0]))
    with pytest.raises(RuntimeError):
        tl.normal(tl.zeros(3, dtype=tl.int64))
    with pytest.raises(TypeError, match="size"):
        tl.normal(0.0, 1.0)
    with pytest.raises((RuntimeError, ValueError), match=r"\[2\].*\[3\]"):
        tl.normal(tl.zeros(2), tl.ones(3))
    out = tl.empty(2, 3, dtype=tl.float64)
    assert tl.normal(mean, std, out=out) is out


# ---- randperm ----------------------------------------------------------------------------------

def test_randperm():
    for n in (0, 1, 2, 7, 1000):
        p = tl.randperm(n, generator=gen(n))
        assert p.dtype == tl.int64 and p.shape == (n,)
        np.testing.assert_array_equal(np.sort(p.cpu().numpy()), np.arange(n))
    f = tl.randperm(10, dtype=tl.float32)
    assert f.dtype == tl.float32 and sorted(f.tolist()) == list(range(10))
    assert tl.randperm(n=5).shape == (5,)
    with pytest.raises(RuntimeError, match="-1"):
        tl.randperm(-1)
    with pytest.raises(TypeError):
        tl.randperm(2.5)
    with pytest.raises(RuntimeError, match="int8"):
        tl.randperm(300, dtype=tl.int8)


@pytest.mark.parametrize("n", [2, 3, 2048, 2049, 2050, 4100])
def test_randperm_follows_the_counter_mapping(n):
    # Fisher-Yates from the top; step k swaps slot n-1-k with
    # (wide slot k * (n - k)) >> 64, wide slot k being block k // 2's words
    # 2 (k % 2) and 2 (k % 2) + 1.  Sizes around the kernel's batches of picks.
    seed = 1234
    g = gen(seed)
    got = tl.randperm(n, generator=g).cpu().numpy()
    offset = int.from_bytes(bytes(g.get_state().tolist()[8:16]), "little")
    assert offset == n // 2  # the counters reserved: what later draws start after
    blocks = _blocks(seed, 0, (n + 1) // 2)
    perm = list(range(n))
    for k in range(n - 1):
        i = n - 1 - k
        j = (_wide(blocks[k // 2], k % 2) * (i + 1)) >> 64
        perm[i], perm[j] = perm[j], perm[i]
    np.testing.assert_array_equal(got, perm)


def test_randperm_is_uniform():
    g = gen(21)
    counts = {}
    for _ in range(3000):
        key = tuple(tl.randperm(3, generator=g).tolist())
        counts[key] = counts.get(key, 0) + 1
    assert len(counts) == 6
    assert stats.chisquare(list(counts.values())).pvalue > 1e-3


# ---- multinomial -------------------------------------------------------------------------------

def test_multinomial_with_replacement():
    w = tl.tensor([1.0, 0.0, 3.0, 6.0])
    x = tl.multinomial(w, 20_000, replacement=True, generator=gen(22))
    assert x.dtype == tl.int64 and x.shape == (20_000,)
    counts = np.bincount(x.cpu().numpy(), minlength=4)
    assert counts[1] == 0
    assert stats.chisquare(counts[[0, 2, 3]], np.array([0.1, 0.3, 0.6]) * 20_000).pvalue > 1e-3


def test_multinomial_without_replacement():
    w = tl.tensor([[0.2, 0.0, 0.3, 0.5], [1.0, 1.0, 1.0, 1.0]])
    x = w.multinomial(3, generator=gen(23))
    assert x.shape == (2, 3)
    assert 1 not in x[0].tolist() and len(set(x[0].tolist())) == 3
    assert len(set(x[1].tolist())) == 3
    # the first draw follows the weights
    first = [tl.multinomial(w[0], 1, generator=gen(s)).item() for s in range(2000)]
    counts = np.bincount(first, minlength=4)
    assert counts[1] == 0
    assert stats.chisquare(counts[[0, 2, 3]], np.array([0.2, 0.3, 0.5]) * 2000).pvalue > 1e-3
    full = tl.multinomial(tl.ones(6), 6, generator=gen())
    assert sorted(full.tolist()) == list(range(6))


def test_multinomial_without_replacement_takes_zero_weights_last():
    # fewer nonzero weights than draws is no error (PyTorch's rule): the
    # positive-weight categories come first, then the zero-weight ones
    w = tl.tensor([[0.0, 2.0, 0.0, 1.0, 0.0], [3.0, 0.0, 0.0, 0.0, 0.0]])
    for seed in range(20):
        x = tl.multinomial(w, 4, generator=gen(seed)).tolist()
        assert sorted(x[0][:2]) == [1, 3] and set(x[0][2:]) <= {0, 2, 4}
        assert x[1][0] == 0 and len(set(x[1])) == 4
    assert sorted(tl.multinomial(w[0], 5, generator=gen()).tolist()) == list(range(5))


def test_multinomial_errors():
    with pytest.raises(RuntimeError, match="without replacement"):
        tl.multinomial(tl.ones(3), 4)
    # PyTorch's words for a negative, a non-finite and an all-zero row
    with pytest.raises(RuntimeError, match=r"^invalid multinomial distribution \(encountering "
                                           r"probability entry < 0"):
        tl.multinomial(tl.tensor([1.0, -1.0]), 1)
    with pytest.raises(RuntimeError, match="^probability tensor contains either `inf`, `nan` or "
                                           "element < 0"):
        tl.multinomial(tl.tensor([1.0, float("nan")]), 1)
    with pytest.raises(RuntimeError, match=r"^invalid multinomial distribution \(sum of "
                                           r"probabilities <= 0"):
        tl.multinomial(tl.zeros(3), 1, True)
    # PyTorch's words, which name no sizes
    with pytest.raises(RuntimeError, match="^multinomial only supports floating-point dtypes for "
                                           "input, got: Long$"):
        tl.multinomial(tl.tensor([1, 2]), 1)
    with pytest.raises(RuntimeError, match="^prob_dist must be 1 or 2 dim$"):
        tl.multinomial(tl.ones(2, 2, 2), 1)
    with pytest.raises(RuntimeError, match="^cannot sample n_sample <= 0 samples$"):
        tl.multinomial(tl.ones(3), 0)
    for probs in (tl.ones(2), tl.ones(0), tl.ones(4, 2)):
        with pytest.raises(RuntimeError, match=r"^cannot sample n_sample > prob_dist\.size\(-1\) "
                                               r"samples without replacement$"):
            tl.multinomial(probs, 3)
    with pytest.raises(TypeError, match="num_samples"):
        tl.multinomial(tl.ones(3))


def test_multinomial_out_must_hold_indices():
    # fuzzing: a float32 (or int32) out= took the sampled indices cast to its
    # dtype; PyTorch refuses any out= but int64 ("expects Long tensor out")
    probs = tl.tensor([0.2, 0.3, 0.5])
    for dtype in (tl.float32, tl.int32, tl.float64):
        out = tl.full((2,), -7, dtype=dtype)
        with pytest.raises(RuntimeError, match=f"out= must be an int64 tensor .*got {dtype.name}"):
            tl.multinomial(probs, 2, out=out)
        assert out.tolist() == [-7, -7]  # not written
    out = tl.empty(2, dtype=tl.int64)
    got = tl.multinomial(probs, 2, out=out)
    assert got is out and len(set(out.tolist())) == 2 and set(out.tolist()) <= {0, 1, 2}


# ---- torchlike.random ---------------------------------------------------------------------------

def test_random_module():
    import torchlike.random as tr
    assert tr.manual_seed(4) is tl.default_generator is tr.default_generator
    assert tr.initial_seed() == 4
    a = tl.rand(3)
    tr.manual_seed(4)
    with tr.fork_rng():
        tl.randn(100)
    np.testing.assert_array_equal(tl.rand(3).cpu().numpy(), a.cpu().numpy())
    tr.manual_seed(4)
    with tr.fork_rng(enabled=False):
        tl.rand(3)
    assert not np.array_equal(tl.rand(3).cpu().numpy(), a.cpu().numpy())
    with pytest.raises(KeyError):
        with tr.fork_rng():
            raise KeyError("state is restored on the way out")


def test_cuda_seeding_without_a_gpu():
    if tl.cuda.is_available():
        pytest.skip("checks the no-GPU behaviour")
    tl.manual_seed(3)
    before = tl.get_rng_state()
    tl.cuda.manual_seed(1)
    tl.cuda.manual_seed_all(2)
    tl.cuda.seed()
    tl.cuda.seed_all()
    np.testing.assert_array_equal(tl.get_rng_state().cpu().numpy(), before.cpu().numpy())
    with pytest.raises(TypeError):
        tl.cuda.manual_seed(1.5)
    # PyTorch's errors: AssertionError in a build without CUDA, else RuntimeError
    error = RuntimeError if tl.backends.cuda.is_built() else AssertionError
    with pytest.raises(error, match="CUDA"):
        tl.cuda.get_rng_state()
    with pytest.raises(error, match="CUDA"):
        tl.cuda.initial_seed()


# ---- poisson -------------------------------------------------------------------------------------

@pytest.mark.parametrize("lam", [0.5, 4.0, 9.9, 10.0, 60.0, 5000.0])
def test_poisson_matches_distribution(lam):
    x = tl.poisson(tl.full((20_000,), lam, dtype=tl.float64), generator=gen(int(lam * 10))).cpu().numpy()
    assert (x >= 0).all() and (x == np.floor(x)).all()
    ks = np.arange(max(0, int(lam - 4 * lam ** 0.5)), int(lam + 4 * lam ** 0.5) + 2)
    counts = np.array([(x == k).sum() for k in ks])
    expected = stats.poisson.pmf(ks, lam) * len(x)
    keep = expected > 5
    assert stats.chisquare(counts[keep], expected[keep] * counts[keep].sum()
                           / expected[keep].sum()).pvalue > 1e-3


def test_poisson_shapes_dtypes_and_errors():
    rates = tl.tensor([[0.0, 1.0], [2.5, 100.0]])
    a = tl.poisson(rates, generator=gen())
    assert a.dtype == tl.float32 and a.shape == (2, 2) and a[0, 0].item() == 0
    np.testing.assert_array_equal(a.cpu().numpy(), tl.poisson(rates, gen()).cpu().numpy())
    assert tl.poisson(tl.ones(3, dtype=tl.float16)).dtype == tl.float16
    with pytest.raises(RuntimeError, match="non-negative"):
        tl.poisson(tl.tensor([-1.0]))
    with pytest.raises(NotImplementedError, match="not implemented for 'Long'"):
        tl.poisson(tl.tensor([1, 2]))
    with pytest.raises(TypeError):
        tl.poisson([1.0])


# ---- the counter mapping, recomputed from Philox blocks (the spec a GPU port must meet) ----

def _blocks(seed, first, count):
    p = tl._C._philox4x32_10
    key = (seed & 0xffffffff, seed >> 32)
    return [p(((first + b) & 0xffffffff, (first + b) >> 32, 0, 0), key) for b in range(count)]


def _wide(block, slot):
    return block[2 * slot + 1] << 32 | block[2 * slot]


def test_counter_mapping_reference():
    seed = 0x1234_5678_9abc_def0
    g = tl.Generator().manual_seed(seed)
    # float32: one word per value, 4 per block, 24 bits
    got = tl.rand(7, generator=g).cpu().numpy()
    words = [w for b in _blocks(seed, 0, 2) for w in b]
    np.testing.assert_array_equal(got, np.array([(w >> 8) * 2.0 ** -24 for w in words[:7]],
                                                dtype=np.float32))
    # float64: two words per value, 2 per block, 53 bits; the offset moved past 2 blocks
    got = tl.rand(3, dtype=tl.float64, generator=g).cpu().numpy()
    bl = _blocks(seed, 2, 2)
    np.testing.assert_array_equal(got, [(_wide(bl[i // 2], i % 2) >> 11) * 2.0 ** -53
                                        for i in range(3)])
    # integers: low + (x * range) >> 64
    got = tl.randint(-5, 1000, (5,), generator=g).cpu().numpy()
    bl = _blocks(seed, 4, 3)
    np.testing.assert_array_equal(got, [-5 + ((_wide(bl[i // 2], i % 2) * 1005) >> 64)
                                        for i in range(5)])
    # float64 normals: Box-Muller on (open u1, u2) from one block per pair
    got = tl.randn(4, dtype=tl.float64, generator=g).cpu().numpy()
    ref = []
    for b in _blocks(seed, 7, 2):
        u1 = ((_wide(b, 0) >> 11) + 0.5) * 2.0 ** -53
        u2 = (_wide(b, 1) >> 11) * 2.0 ** -53
        r = np.sqrt(-2 * np.log(u1))
        ref += [r * np.cos(2 * np.pi * u2), r * np.sin(2 * np.pi * u2)]
    np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-12)
    state = g.get_state().cpu().numpy()
    assert int.from_bytes(state[:8].tobytes(), "little") == seed
    assert int.from_bytes(state[8:].tobytes(), "little") == 9


@pytest.mark.parametrize("dtype,scalar,cpp", [(tl.int64, "Long", "long int"),
                                              (tl.int32, "Int", "int"),
                                              (tl.uint8, "Byte", "unsigned char"),
                                              (tl.bool, "Bool", "bool")])
def test_continuous_draws_into_non_float_tensors_in_pytorchs_words(dtype, scalar, cpp):
    # nn.init.normal_ / uniform_ on an integer parameter meet these; PyTorch
    # names its kernels (NotImplementedError) or the distribution
    t = tl.zeros(2, dtype=dtype)
    cases = [("normal_", NotImplementedError, f'"normal_kernel_cpu" not implemented for '
                                              f"'{scalar}'"),
             ("uniform_", NotImplementedError, f'"check_uniform_bounds" not implemented for '
                                               f"'{scalar}'"),
             ("log_normal_", NotImplementedError, f"\"log_normal_cpu\" not implemented for "
                                                  f"'{scalar}'"),
             ("exponential_", RuntimeError, "Exponential distribution is a continuous "
                                            "probability distribution. dtype must be a floating "
                                            f"point but you specified {scalar}"),
             ("cauchy_", RuntimeError, "Cauchy distribution is a continuous probability "
                                       "distribution. dtype must be a floating point but you "
                                       f"specified {cpp}")]
    for method, cls, words in cases:
        with pytest.raises(cls) as info:
            getattr(t, method)()
        assert str(info.value) == words
    assert (t == 0).all()
