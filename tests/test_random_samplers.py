"""The gamma and binomial samplers (src/gpu/random/tl_px_samplers.h):
torchlike._standard_gamma, _log_standard_gamma and binomial.

`_C._sample_reference` computes each element from scratch with
tl_px_sample_one, the function the CUDA kernel runs per element, so the
tests comparing it with the CPU's chunked, vectorised kernel prove, without
a GPU, that the two produce the same draws.  The distributions are checked
against SciPy's (Kolmogorov-Smirnov for gamma, chi-square for binomial),
the edge values against PyTorch's rules.  Device-parametrised as
tests/test_cuda_kernels.py: "cpu" everywhere, "cuda" where a GPU is present,
"emulated" (the fake device with the CPU's kernels) in a process of its own."""
import math

import numpy as np
import pytest
from scipy import stats

import torchlike as tl
from torchlike import _C
from oracle import cuda_test_devices, run_emulated

DEVICES, EMULATED = cuda_test_devices()

GAMMA, LOG_GAMMA, BINOMIAL = range(3)  # tl_random_sample_kind
TINY64 = np.finfo(np.float64).tiny
SIZES = [0, 1, 2, 7, 256, 257, 1031]  # 256: one chunk; odd sizes: a partner block past the end


def gen(seed):
    return tl.Generator().manual_seed(seed)


def same_bits(a, b):
    np.testing.assert_array_equal(a.cpu().numpy(), b.cpu().numpy(), strict=True)


def gamma_shapes(n, seed=0):
    """Shapes of every kind the sampler branches on, in runs and alone."""
    rng = np.random.default_rng(seed)
    pool = np.array([0.0, -1.0, np.nan, np.inf, 1e-3, 0.3, 0.999, 1.0, 1.5, 4.0, 1e6])
    a = np.where(rng.random(n) < 0.5, rng.choice(pool, n), rng.gamma(1.0, 2.0, n))
    a[: n // 3] = 2.5  # a run of equal shapes: the set-up is cached
    return tl.tensor(a)


def binomial_params(n, seed=0):
    rng = np.random.default_rng(seed)
    counts = rng.choice([0.0, -2.0, 3.7, 5.0, 30.0, 1000.0, 1e9], n)
    probs = rng.choice([0.0, 1.0, 0.3, 0.9, 1e-9, np.nan, -0.5, 1.5, 0.5], n)
    counts[: n // 3], probs[: n // 3] = 40.0, 0.45  # a run (BTRS set up once)
    return tl.tensor(counts), tl.tensor(probs)


# ---- the CPU's chunked kernel against the per-element function (the GPU's) -------------------

@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("floor", [TINY64, math.nan])
def test_gamma_kernel_equals_the_per_element_function(n, floor):
    a = gamma_shapes(n, seed=n)
    g1, g2 = gen(n), gen(n)
    ref = _C._sample_reference(g1, GAMMA, a, None, floor)
    got = _C._standard_gamma(a, g2) if floor == floor else tl.exp(_C._log_standard_gamma(a, g2))
    if floor == floor:
        same_bits(got, ref)
    else:  # exp of the logarithm: the reference of the log kind below is exact
        np.testing.assert_allclose(got.numpy(), ref.numpy(), rtol=1e-13, atol=0)
    same_bits(g1.get_state(), g2.get_state())


@pytest.mark.parametrize("n", SIZES)
def test_log_gamma_kernel_equals_the_per_element_function(n):
    a = gamma_shapes(n, seed=n + 1)
    g1, g2 = gen(7), gen(7)
    same_bits(_C._log_standard_gamma(a, g2), _C._sample_reference(g1, LOG_GAMMA, a, None, math.nan))


@pytest.mark.parametrize("n", SIZES)
def test_binomial_kernel_equals_the_per_element_function(n):
    count, prob = binomial_params(n, seed=n)
    g1, g2 = gen(11), gen(11)
    same_bits(_C._binomial(count, prob, g2), _C._sample_reference(g1, BINOMIAL, count, prob, math.nan))
    same_bits(g1.get_state(), g2.get_state())


@pytest.mark.parametrize("kind", ["gamma", "binomial"])
def test_draws_do_not_depend_on_the_thread_count(kind):
    a = gamma_shapes(20001)
    count, prob = binomial_params(20001)
    draw = (lambda g: tl._standard_gamma(a, g)) if kind == "gamma" else \
        (lambda g: tl.binomial(count, prob, g))
    threads = tl.get_num_threads()
    try:
        tl.set_num_threads(1)
        one = draw(gen(5))
        tl.set_num_threads(max(2, threads))
        many = draw(gen(5))
    finally:
        tl.set_num_threads(threads)
    same_bits(one, many)


def test_reference_hook_refuses_bad_arguments():
    with pytest.raises(ValueError, match="contiguous float64"):
        _C._sample_reference(gen(0), BINOMIAL, tl.ones(3, dtype=tl.float64), None, math.nan)
    with pytest.raises(ValueError, match="contiguous float64"):
        _C._sample_reference(gen(0), GAMMA, tl.ones(3), None, math.nan)
    with pytest.raises(ValueError, match="kind 9"):
        _C._sample_reference(gen(0), 9, tl.ones(3, dtype=tl.float64), None, math.nan)


# ---- the distributions ------------------------------------------------------------------------

@pytest.mark.parametrize("alpha", [0.05, 0.5, 0.999, 1.0, 2.5, 30.0, 1e5])
def test_gamma_follows_scipys_distribution(alpha):
    x = tl._standard_gamma(tl.full((100000,), alpha, dtype=tl.float64), gen(int(alpha * 100)))
    x = x.numpy()
    if alpha < 0.1:  # values lifted to the smallest normal number: compare above it
        assert stats.kstest(x[x > 1e-300], lambda v: (stats.gamma.cdf(v, alpha) -
                                                        stats.gamma.cdf(1e-300, alpha)) /
                            stats.gamma.sf(1e-300, alpha)).pvalue > 1e-3
    else:
        assert stats.kstest(x, "gamma", args=(alpha,)).pvalue > 1e-3


@pytest.mark.parametrize("alpha", [1e-3, 0.2, 3.0])
def test_log_gamma_follows_scipys_loggamma(alpha):
    x = _C._log_standard_gamma(tl.full((100000,), alpha, dtype=tl.float64), gen(3)).numpy()
    assert np.isfinite(x).all()
    assert stats.kstest(x, "loggamma", args=(alpha,)).pvalue > 1e-3


@pytest.mark.parametrize("n,p", [(10, 0.5), (200, 0.04), (25, 0.9), (30, 0.4), (1000, 0.4),
                                 (1e9, 1e-8), (10**6, 0.5), (50, 0.999)])
def test_binomial_follows_scipys_distribution(n, p):
    size = 200000
    x = tl.binomial(tl.full((size,), float(n), dtype=tl.float64),
                    tl.full((size,), p, dtype=tl.float64), gen(int(n) % 1000 + 1)).numpy()
    assert (x == np.floor(x)).all() and x.min() >= 0 and x.max() <= n
    dist = stats.binom(int(n), p)
    lo, hi = int(dist.ppf(1e-4)), int(dist.ppf(1 - 1e-4))
    ks = np.arange(lo, hi + 1)
    observed = np.array([(x == k).sum() for k in ks] + [((x < lo) | (x > hi)).sum()])
    expected = np.append(dist.pmf(ks), 1 - dist.pmf(ks).sum()) * size
    keep = expected > 5  # chi-square needs populated cells: fold the thin ones together
    observed = np.append(observed[keep], observed[~keep].sum())
    expected = np.append(expected[keep], expected[~keep].sum())
    if expected[-1] == 0:
        observed, expected = observed[:-1], expected[:-1]
    assert stats.chisquare(observed, expected * observed.sum() / expected.sum()).pvalue > 1e-3


# ---- PyTorch's rules --------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
def test_standard_gamma_lifts_to_the_smallest_normal_number(dtype):
    d = getattr(tl, dtype)
    tiny = tl.finfo(d).tiny
    x = tl._standard_gamma(tl.tensor([0.0, 1e-30, math.nan, -1.0, math.inf, 2.0]).to(d))
    assert x.dtype == d and x.shape == (6,)
    v = x.float().numpy()
    np.testing.assert_array_equal(v[:4], np.float32(tiny))  # as PyTorch: below or NaN -> tiny
    assert v[4] == math.inf and v[5] > 0


def test_log_standard_gamma_edges():
    x = _C._log_standard_gamma(tl.tensor([0.0, -1.0, math.nan, math.inf, 1e-300],
                                         dtype=tl.float64), gen(0))
    v = x.numpy()
    assert v[0] == -math.inf and np.isnan(v[1]) and np.isnan(v[2]) and v[3] == math.inf
    assert np.isfinite(v[4]) and v[4] < -1e200  # the logarithm of an underflowing draw


def test_standard_gamma_shapes_and_layouts():
    base = tl.rand(6, 5, dtype=tl.float64) * 3
    strided = base.t()  # non-contiguous: drawn as its row-major copy
    same_bits(tl._standard_gamma(strided, gen(1)), tl._standard_gamma(strided.contiguous(), gen(1)))
    assert tl._standard_gamma(tl.tensor(2.0)).shape == ()
    assert tl._standard_gamma(tl.ones(0, 3)).shape == (0, 3)
    with pytest.raises(NotImplementedError, match="_standard_gamma.*int64"):
        tl._standard_gamma(tl.ones(3, dtype=tl.int64))
    with pytest.raises(TypeError):
        tl._standard_gamma([1.0, 2.0])


def test_binomial_reads_its_arguments_as_pytorch():
    count = tl.tensor([[0.0], [5.0], [3.7], [-2.0]])
    prob = tl.tensor([0.0, 1.0, 1.5, -0.5, math.nan])
    x = tl.binomial(count.expand(4, 5).contiguous(), prob.expand(4, 5).contiguous())
    assert x.dtype == tl.float32 and x.shape == (4, 5)
    v = x.numpy()
    n = np.array([0, 5, 3, 0], dtype=np.float32)[:, None]
    np.testing.assert_array_equal(v[:, :4], np.concatenate([0 * n, n, n, 0 * n], axis=1))
    assert np.isnan(v[:, 4]).all()
    # counts are truncated: 3.7 trials succeed at most 3 times
    assert tl.binomial(tl.full((1000,), 3.7), tl.full((1000,), 0.9)).max().item() == 3


def test_binomial_broadcasts_its_arguments():
    x = _C._binomial(tl.full((3, 1), 20.0, dtype=tl.float64),
                     tl.tensor([0.1, 0.5, 0.9, 0.0], dtype=tl.float64), gen(2))
    assert x.shape == (3, 4) and x.dtype == tl.float64
    assert (x[:, 3] == 0).all()
    with pytest.raises(ValueError, match=r"shapes \[3\] and \[4\] cannot be broadcast"):
        _C._binomial(tl.ones(3, dtype=tl.float64), tl.ones(4, dtype=tl.float64))


# ---- users of the samplers --------------------------------------------------------------------

def test_numpy_standard_gamma_keeps_numpys_zeros():
    import torchlike.numpy as tnp
    rng = tnp.random.default_rng(0)
    assert float(rng.standard_gamma(0.0)) == 0.0
    x = np.asarray(rng.standard_gamma(1e-3, size=20000))
    ours = (x == 0).mean()
    theirs = (np.random.default_rng(0).standard_gamma(1e-3, size=20000) == 0).mean()
    assert abs(ours - theirs) < 0.02 and ours > 0.3  # about half the draws underflow


def test_distribution_binomial_samples_with_the_sampler():
    d = tl.distributions.Binomial(total_count=tl.tensor([10.0, 1000.0]), probs=tl.tensor([0.3, 0.7]))
    x = d.sample((20000,))
    assert x.shape == (20000, 2)
    np.testing.assert_allclose(x.mean(0).numpy(), [3.0, 700.0], rtol=0.01)
    np.testing.assert_allclose(x.var(0).numpy(), [2.1, 210.0], rtol=0.05)


# ---- devices ----------------------------------------------------------------------------------

@pytest.mark.parametrize("device", DEVICES)
def test_device_draws_equal_the_reference(device):
    a = gamma_shapes(1031, seed=3)
    count, prob = binomial_params(1031, seed=3)
    on = (lambda t: t.to(device)) if device != "cpu" else (lambda t: t)
    tl.manual_seed(9)
    got = tl._standard_gamma(on(a))
    ref = _C._sample_reference(gen(9), GAMMA, a, None, TINY64)
    tl.manual_seed(9)
    counts = tl.binomial(on(count), on(prob))
    ref_counts = _C._sample_reference(gen(9), BINOMIAL, count, prob, math.nan)
    assert got.device.type == on(a).device.type and counts.device.type == got.device.type
    if device == "cuda":  # CUDA's log/exp may move a draw whose test is on its boundary
        assert (got.cpu() == ref).float().mean().item() > 0.999
        np.testing.assert_allclose(got.cpu().numpy(), ref.numpy(), rtol=1e-12)
        assert (counts.cpu().nan_to_num(-1) == ref_counts.nan_to_num(-1)).float().mean().item() > 0.999
    else:
        same_bits(got.cpu(), ref)
        same_bits(counts.cpu(), ref_counts)


@pytest.mark.skipif(EMULATED, reason="this is the emulated run")
def test_emulated_device_cases():
    """The "emulated" cases above, in a process where the fake device runs
    the CPU's kernels (run_emulated)."""
    run_emulated(__file__)
