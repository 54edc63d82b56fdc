"""Random numbers on CUDA: the same Philox streams as the CPU, bit for bit.

The CUDA kernel (src/gpu/random/random.cu) computes each value with
tl_px_value (src/gpu/random/tl_philox.h).  `_C._random_reference` runs that
same function on the host, value by value, so the tests here that compare it
with the CPU's chunked kernels prove - without a GPU - that the GPU's element
mapping and arithmetic reproduce the CPU's stream.  The "cuda" cases then
compare real GPU draws with CPU draws and skip with "requires a CUDA device"
where there is none."""
import math

import numpy as np
import pytest

import torchlike as tl
from torchlike import _C

GPU = tl.cuda.is_available()
CUDA = pytest.param("cuda", marks=pytest.mark.skipif(not GPU, reason="requires a CUDA device"))

# tl_random_kind
UNIFORM, NORMAL, INTEGER, BERNOULLI, EXPONENTIAL, CAUCHY, LOG_NORMAL, GEOMETRIC = range(8)
FLOATS = ["float16", "bfloat16", "float32", "float64"]
SHAPES = [(0,), (1,), (7,), (3, 5), (1030,)]  # 1030: past one 512-value chunk, odd tail


def gen(seed, device="cpu"):
    return tl.Generator(device=device).manual_seed(seed)


def bits(t):
    """The values of t as an exactly comparable NumPy array (float16 and
    bfloat16 widen to float64 exactly; complex as its real pairs)."""
    t = t.detach().cpu().contiguous()
    if t.dtype in (tl.float16, tl.bfloat16):
        t = t.to(tl.float64)
    a = t.numpy()
    if np.iscomplexobj(a):
        a = a.view(a.real.dtype)
    return a.reshape(-1)


def reference(seed, like, kind, a=0.0, b=1.0, low=0, range_=0):
    """What a fill of `like` draws, per tl_px_value, stored as like's dtype."""
    ref = _C._random_reference(gen(seed), like, kind, a, b, low, range_)
    real = {tl.complex64: tl.float32, tl.complex128: tl.float64}.get(like.dtype, like.dtype)
    return bits(ref.to(real))


def assert_bits_equal(actual, expected):
    assert actual.shape == expected.shape
    np.testing.assert_array_equal(actual, expected, strict=True)


# ---- the GPU's function against the CPU's stream (runs everywhere) ---------------------------

@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", FLOATS + ["complex64", "complex128"])
def test_rand_follows_the_reference(dtype, shape):
    d = getattr(tl, dtype)
    got = tl.rand(shape, generator=gen(11), dtype=d)
    assert_bits_equal(bits(got), reference(11, tl.empty(shape, dtype=d), UNIFORM))


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", FLOATS)
def test_randn_follows_the_reference(dtype, shape):
    d = getattr(tl, dtype)
    got = tl.randn(shape, generator=gen(12), dtype=d)
    assert_bits_equal(bits(got), reference(12, tl.empty(shape, dtype=d), NORMAL))


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_randn_follows_the_reference(dtype):
    # Each part has variance 1/2: b = 1 is scaled by 1/sqrt(2) inside the draw.
    like = tl.empty((9,), dtype=getattr(tl, dtype))
    got = bits(tl.randn(9, generator=gen(5), dtype=like.dtype))
    ref = _C._random_reference(gen(5), like, NORMAL, 0.0, 1.0, 0, 0)
    real = tl.float32 if dtype == "complex64" else tl.float64
    assert_bits_equal(got, bits(ref.to(real)))
    # the parts are the real dtype's normals times 1/sqrt(2)
    unscaled = tl.randn(18, generator=gen(5), dtype=real).to(tl.float64).numpy()
    np.testing.assert_allclose(got, unscaled * math.sqrt(0.5),
                               rtol=1e-6 if dtype == "complex64" else 1e-15)


@pytest.mark.parametrize("dtype", ["uint8", "int8", "int16", "int32", "int64", "float32",
                                   "float64", "bool"])
@pytest.mark.parametrize("shape", [(0,), (5,), (4, 3), (1031,)])
def test_randint_follows_the_reference(dtype, shape):
    d = getattr(tl, dtype)
    low, high = (0, 2) if dtype == "bool" else (-3 if dtype != "uint8" else 0, 100)
    got = tl.randint(low, high, shape, generator=gen(21), dtype=d)
    like = tl.empty(shape, dtype=d)
    assert_bits_equal(bits(got), reference(21, like, INTEGER, low=low, range_=high - low))


def test_int64_random_follows_the_reference():
    t = tl.empty(101, dtype=tl.int64).random_(generator=gen(3))  # [0, 2**63)
    assert_bits_equal(bits(t), reference(3, t, INTEGER, low=0, range_=2 ** 63))


@pytest.mark.parametrize("dtype", ["bool", "uint8", "float16", "float32", "float64"])
@pytest.mark.parametrize("p", [0.0, 0.3, 1.0])
def test_bernoulli_follows_the_reference(dtype, p):
    t = tl.empty(1029, dtype=getattr(tl, dtype))
    t.bernoulli_(p, generator=gen(31))
    assert_bits_equal(bits(t), reference(31, t, BERNOULLI, a=p))


@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16"])
@pytest.mark.parametrize("kind,method,a,b", [
    (UNIFORM, "uniform_", -2.0, 3.5), (NORMAL, "normal_", 1.5, 2.0),
    (EXPONENTIAL, "exponential_", 2.5, None), (CAUCHY, "cauchy_", 0.5, 2.0),
    (LOG_NORMAL, "log_normal_", 0.25, 0.5), (GEOMETRIC, "geometric_", 0.3, None)])
def test_inplace_distributions_follow_the_reference(kind, method, a, b, dtype):
    t = tl.empty(777, dtype=getattr(tl, dtype))
    args = (a,) if b is None else (a, b)
    getattr(t, method)(*args, generator=gen(41))
    assert_bits_equal(bits(t), reference(41, t, kind, a=a, b=0.0 if b is None else b))


def test_noncontiguous_outputs_draw_in_row_major_order():
    base = tl.empty((6, 8), dtype=tl.float32)
    view = base.t()[1:5]  # (4, 6) with strides (1, 8)
    assert not view.is_contiguous()
    view.uniform_(generator=gen(51))
    assert_bits_equal(bits(view), reference(51, tl.empty((4, 6)), UNIFORM))


def test_reference_advances_the_generator_like_a_fill():
    g1, g2 = gen(61), gen(61)
    tl.rand(10, generator=g1)
    _C._random_reference(g2, tl.empty(10), UNIFORM, 0.0, 1.0, 0, 0)
    np.testing.assert_array_equal(g1.get_state().numpy(), g2.get_state().numpy())


# ---- the shared Box-Muller against NumPy's libm ---------------------------------------------

def philox_block(seed, counter):
    return _C._philox4x32_10((counter & 0xffffffff, counter >> 32, 0, 0),
                             (seed & 0xffffffff, seed >> 32))


@pytest.mark.parametrize("seed", [0, 123456789, 2 ** 64 - 1])
def test_box_muller_matches_numpy_in_float64(seed):
    # The log and sincos of tl_philox.h, from + - * / only, against libm.
    n = 4000
    z = tl.randn(n, generator=gen(seed), dtype=tl.float64).numpy()
    u1 = np.empty(n // 2)
    u2 = np.empty(n // 2)
    for p in range(n // 2):
        w = philox_block(seed, p)
        u1[p] = ((((w[1] << 32) | w[0]) >> 11) + 0.5) * 2.0 ** -53
        u2[p] = (((w[3] << 32) | w[2]) >> 11) * 2.0 ** -53
    r = np.sqrt(-2 * np.log(u1))
    expected = np.empty(n)
    expected[0::2] = r * np.cos(2 * np.pi * u2)
    expected[1::2] = r * np.sin(2 * np.pi * u2)
    np.testing.assert_allclose(z, expected, rtol=1e-14, atol=1e-14)


def test_box_muller_matches_numpy_in_float32():
    # narrow normals are computed in float32 (tl_px_normal_pair_narrow):
    # u1 = 1 - a 24-bit uniform, u2 a 24-bit uniform, log and sincos from
    # float32 polynomials; they stay within 4 float32 ulp of Box-Muller in
    # float64 on the same uniforms
    n, seed = 4000, 99
    z = tl.randn(n, generator=gen(seed), dtype=tl.float32).numpy()
    words = np.array([philox_block(seed, b) for b in range(n // 4)], dtype=np.uint64).reshape(-1)
    u1 = 1 - (words[0::2] >> 8).astype(np.float64) * 2.0 ** -24
    u2 = (words[1::2] >> 8).astype(np.float64) * 2.0 ** -24
    r = np.sqrt(-2 * np.log(u1))
    expected = np.empty(n)
    expected[0::2] = r * np.cos(2 * np.pi * u2)
    expected[1::2] = r * np.sin(2 * np.pi * u2)
    ulp = np.spacing(np.abs(expected).astype(np.float32)).astype(np.float64)
    err = np.abs(z.astype(np.float64) - expected)
    assert np.all(err <= 4 * ulp + 2.0 ** -26), (err / ulp).max()


def test_exponential_matches_numpy():
    t = tl.empty(3000, dtype=tl.float64).exponential_(1.7, generator=gen(8))
    ref = _C._random_reference(gen(8), tl.empty(3000, dtype=tl.float64), EXPONENTIAL, 1.7, 0.0,
                               0, 0)
    u = np.empty(3000)
    for b in range(1500):
        w = philox_block(8, b)
        u[2 * b] = ((((w[1] << 32) | w[0]) >> 11) + 0.5) * 2.0 ** -53
        u[2 * b + 1] = ((((w[3] << 32) | w[2]) >> 11) + 0.5) * 2.0 ** -53
    np.testing.assert_allclose(t.numpy(), -np.log(u) / 1.7, rtol=1e-14)
    np.testing.assert_array_equal(t.numpy(), ref.numpy())


# ---- generators per device -----------------------------------------------------------------

def test_cuda_default_generators_are_made_on_first_use():
    """Counting the devices starts the CUDA driver, which importing must not
    do (a process forked after it cannot use CUDA): the tuple is made on the
    first look and the same one is handed out after."""
    import subprocess
    import sys
    code = ("import torchlike.cuda as c, torchlike.cuda.random as r; "
            "print('default_generators' in vars(c), 'default_generators' in vars(r))")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["False", "False"]
    first = _C._cuda_default_generators()
    assert isinstance(first, tuple) and _C._cuda_default_generators() is first
    assert tl.cuda.default_generators is first and tl.cuda.random.default_generators is first
    assert len(first) == tl.cuda.device_count()
    assert all(g.device == tl.device("cuda", i) for i, g in enumerate(first))
    with pytest.raises(AttributeError):
        tl.cuda.no_such_attribute


SEEDING = """
import torchlike as tl
from torchlike import _C
print(_C._cuda_pending_seeds())
tl.manual_seed(5); print(_C._cuda_pending_seeds())        # every device, as torch.manual_seed
tl.cuda.manual_seed(7); print(_C._cuda_pending_seeds())   # the current one, after all of them
tl.cuda.manual_seed_all(9); print(_C._cuda_pending_seeds())  # replaces both
s = tl.seed(); print(_C._cuda_pending_seeds() == (s, None), s == tl.initial_seed())
tl.cuda.manual_seed(11)
gens = tl.cuda.default_generators   # made now: the kept seeds applied in order
print(_C._cuda_pending_seeds())
print([g.initial_seed() for g in gens] == ([11] + [s] * (len(gens) - 1) if gens else []))
"""


def test_seeding_before_cuda_is_kept_until_the_generators_are_made():
    """torchlike.manual_seed/seed seed the CUDA devices too (as PyTorch's);
    before CUDA's first use the seeds are kept, not applied, so seeding does
    not start the driver; making the generators applies them in order
    (without a GPU there are none to apply them to)."""
    import subprocess
    import sys
    p = subprocess.run([sys.executable, "-c", SEEDING], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines() == ["(None, None)", "(5, None)", "(5, (0, 7))", "(9, None)",
                                     "True True", "(None, None)", "True"]


@pytest.mark.skipif(not GPU, reason="requires a CUDA device")
def test_manual_seed_seeds_the_cuda_default_generator():
    code = ("import torchlike as tl\n"
            "tl.manual_seed(3)\n"  # before CUDA's first use: kept, then applied
            "a = tl.randn(6, device='cuda')\n"
            "g = tl.Generator(device='cuda'); g.manual_seed(3)\n"
            "b = tl.randn(6, device='cuda', generator=g)\n"
            "tl.manual_seed(4); c = tl.randn(6, device='cuda')\n"
            "print(bool((a == b).all()), bool((a == c).all()))\n")
    import subprocess
    import sys
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["True", "False"]


def test_cuda_generators_without_a_gpu():
    if GPU:
        pytest.skip("checks the no-GPU behaviour")
    assert tl.cuda.default_generators == ()
    with pytest.raises(RuntimeError, match="cuda"):
        tl.Generator(device="cuda")
    # as PyTorch: a build without CUDA asserts, a machine without a GPU raises
    error, text = ((RuntimeError, "no CUDA device") if tl.backends.cuda.is_built()
                   else (AssertionError, "not compiled with CUDA"))
    with pytest.raises(error, match=text):
        tl.cuda.initial_seed()


def test_generator_none_uses_the_default_of_the_device():
    tl.manual_seed(17)
    a = tl.rand(5)
    b = tl.rand(5, generator=gen(17))
    np.testing.assert_array_equal(a.numpy(), b.numpy())


# ---- on the GPU ------------------------------------------------------------------------------

DRAWS = [
    ("rand", lambda g, d, dt: tl.rand(1030, generator=g, device=d, dtype=dt)),
    ("randn", lambda g, d, dt: tl.randn(3, 345, generator=g, device=d, dtype=dt)),
    ("randint", lambda g, d, dt: tl.randint(-7, 1000, (1031,), generator=g, device=d)),
    ("bernoulli", lambda g, d, dt: tl.empty(1029, device=d, dtype=dt).bernoulli_(0.4, generator=g)),
    ("uniform_", lambda g, d, dt: tl.empty(5, 7, device=d, dtype=dt).t().uniform_(-1, 2, generator=g)),
    ("normal_", lambda g, d, dt: tl.empty(999, device=d, dtype=dt).normal_(2, 3, generator=g)),
    ("exponential_", lambda g, d, dt: tl.empty(999, device=d, dtype=dt).exponential_(3, generator=g)),
    ("randperm", lambda g, d, dt: tl.randperm(500, generator=g, device=d)),
]


@pytest.mark.parametrize("device", [CUDA])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("name,draw", DRAWS, ids=[n for n, _ in DRAWS])
def test_gpu_draws_are_the_cpus_bit_for_bit(device, dtype, name, draw):
    dt = getattr(tl, dtype)
    on_gpu = draw(gen(1234, device), device, dt)
    on_cpu = draw(gen(1234), "cpu", dt)
    assert on_gpu.device.type == "cuda"
    assert_bits_equal(bits(on_gpu), bits(on_cpu))


@pytest.mark.parametrize("device", [CUDA])
def test_gpu_complex_and_integer_dtypes(device):
    for dt in (tl.complex64, tl.complex128):
        assert_bits_equal(bits(tl.randn(77, generator=gen(3, device), device=device, dtype=dt)),
                          bits(tl.randn(77, generator=gen(3), dtype=dt)))
    for dt in (tl.uint8, tl.int8, tl.int16, tl.int32, tl.bool):
        hi = 2 if dt == tl.bool else 100
        assert_bits_equal(bits(tl.randint(0, hi, (300,), generator=gen(4, device), device=device,
                                          dtype=dt)),
                          bits(tl.randint(0, hi, (300,), generator=gen(4), dtype=dt)))


@pytest.mark.parametrize("device", [CUDA])
def test_gpu_default_generator_and_state(device):
    tl.cuda.manual_seed(5)
    assert tl.cuda.initial_seed() == 5
    tl.manual_seed(5)
    assert_bits_equal(bits(tl.rand(100, device=device)), bits(tl.rand(100)))
    state = tl.cuda.get_rng_state()
    a = tl.randn(64, device=device)
    tl.cuda.set_rng_state(state)
    assert_bits_equal(bits(tl.randn(64, device=device)), bits(a))
    assert len(tl.cuda.get_rng_state_all()) == tl.cuda.device_count()
    with pytest.raises(RuntimeError, match="Expected a 'cuda' device type for generator"):
        tl.rand(3, device=device, generator=gen(1))
    with pytest.raises(RuntimeError, match="Expected a 'cpu' device type for generator"):
        tl.rand(3, generator=gen(1, device))


@pytest.mark.parametrize("device", [CUDA])
def test_gpu_tensor_parameters_poisson_multinomial(device):
    mean = tl.linspace(-3, 3, 50)
    std = tl.linspace(0.1, 2, 50)
    assert_bits_equal(bits(tl.normal(mean.to(device), std.to(device), generator=gen(9, device))),
                      bits(tl.normal(mean, std, generator=gen(9))))
    rates = tl.linspace(0, 40, 64)
    assert_bits_equal(bits(tl.poisson(rates.to(device), generator=gen(8, device))),
                      bits(tl.poisson(rates, generator=gen(8))))
    probs = tl.rand(4, 10, generator=gen(1))
    for replacement in (True, False):
        got = tl.multinomial(probs.to(device), 5, replacement, generator=gen(2, device))
        assert got.device.type == "cuda"
        assert_bits_equal(bits(got), bits(tl.multinomial(probs, 5, replacement,
                                                          generator=gen(2))))


@pytest.mark.parametrize("device", [CUDA])
@pytest.mark.parametrize("batch_dims", [0, 1])
def test_gpu_dropout_mask_is_the_cpus(device, batch_dims):
    x = tl.randn(33, 65, generator=gen(0))
    y_gpu, m_gpu = _C._fused_dropout(x.to(device), 0.3, batch_dims, generator=gen(77, device))
    y_cpu, m_cpu = _C._fused_dropout(x, 0.3, batch_dims, generator=gen(77))
    assert_bits_equal(bits(m_gpu), bits(m_cpu))
    assert_bits_equal(bits(y_gpu), bits(y_cpu))
    g = tl.randn(33, 65, generator=gen(1))
    assert_bits_equal(bits(_C.native_dropout_backward(g.to(device), m_gpu, 1 / 0.7)),
                      bits(_C.native_dropout_backward(g, m_cpu, 1 / 0.7)))
