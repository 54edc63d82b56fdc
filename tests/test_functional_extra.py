"""The functional forms of torchlike/_functional_extra.py: PyTorch's recorded
answers and messages (tests/golden/functional_extra.json,
scripts/golden_functional_extra.py); binomial's distribution against the
exact pmf by a chi-square test (small n by inversion, large n through the
beta recursion), generator reproducibility; NumPy references for
segment_reduce (every reduction, batched lengths, non-contiguous data);
the RNN cells against the nn modules and gradcheck; grid samplers against
F.grid_sample."""
import math

import numpy as np
import pytest

import torchlike as T
import torchlike.nn.functional as F
from torchlike.autograd import gradcheck
from numextra_golden import check
from oracle import golden_calls

CALLS, _golden = golden_calls("functional_extra")


@pytest.mark.parametrize("call,expected", CALLS, ids=[c for c, _ in CALLS])
def test_matches_pytorch(call, expected):
    check(_golden, call, expected)


# ---- binomial -------------------------------------------------------------------

def _chi_square_pvalue(stat, dof):
    try:
        from scipy.stats import chi2
        return chi2.sf(stat, dof)
    except ImportError:   # Wilson-Hilferty
        z = ((stat / dof) ** (1 / 3) - (1 - 2 / (9 * dof))) / math.sqrt(2 / (9 * dof))
        return 0.5 * math.erfc(z / math.sqrt(2))


def _binom_pmf(n, p, k):
    return math.exp(math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)
                    + k * math.log(p) + (n - k) * math.log1p(-p))


@pytest.mark.parametrize("n,p", [(1, 0.3), (7, 0.5), (20, 0.3), (50, 0.97), (400, 0.7),
                                 (100000, 0.02), (3000, 0.5)])
def test_binomial_matches_pmf(n, p):
    draws = 40000
    g = T.Generator().manual_seed(1234 + n)
    x = T.binomial(T.full((draws,), float(n), dtype=T.float64),
                   T.full((draws,), p, dtype=T.float64), generator=g).numpy()
    assert np.all(x == np.round(x)) and x.min() >= 0 and x.max() <= n
    ks = np.arange(n + 1)
    pmf = np.array([_binom_pmf(n, p, k) for k in ks])
    observed = np.bincount(x.astype(np.int64), minlength=n + 1)
    # merge cells so that each expects at least 5 draws
    bins_o, bins_e, acc_o, acc_e = [], [], 0, 0.0
    for o, e in zip(observed, pmf * draws):
        acc_o, acc_e = acc_o + o, acc_e + e
        if acc_e >= 5:
            bins_o.append(acc_o)
            bins_e.append(acc_e)
            acc_o, acc_e = 0, 0.0
    if bins_e:
        bins_o[-1] += acc_o
        bins_e[-1] += acc_e
    bins_o, bins_e = np.array(bins_o), np.array(bins_e)
    if len(bins_e) < 2:
        assert bins_o.sum() == draws
        return
    stat = ((bins_o - bins_e) ** 2 / bins_e).sum()
    assert _chi_square_pvalue(stat, len(bins_e) - 1) > 1e-4, (stat, len(bins_e))
    np.testing.assert_allclose(x.mean(), n * p, atol=6 * math.sqrt(n * p * (1 - p) / draws) + 1e-12)


def test_binomial_broadcasts_and_reproduces():
    count = T.tensor([[10.0], [200.0]])
    prob = T.tensor([0.1, 0.5, 0.9])
    a = T.binomial(count, prob, generator=T.Generator().manual_seed(5))
    b = T.binomial(count, prob, generator=T.Generator().manual_seed(5))
    assert a.shape == (2, 3) and a.dtype == T.float32
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    T.manual_seed(9)
    c = T.binomial(count, prob)
    T.manual_seed(9)
    np.testing.assert_array_equal(c.numpy(), T.binomial(count, prob).numpy())
    # counts are truncated, as PyTorch's
    assert set(T.binomial(T.full((500,), 2.9), T.full((500,), 0.5)).numpy().tolist()) <= {0, 1, 2}
    with pytest.raises(TypeError, match="must be Tensor"):
        T.binomial(3.0, T.tensor(0.5))


# ---- segment_reduce -----------------------------------------------------------------

def _np_segment(data, reduce, lengths, initial):
    out = []
    start = 0
    for n in lengths:
        seg = data[start:start + n]
        start += n
        if reduce == "mean":
            v = ((seg.sum(0) + initial) / n if n else np.full(data.shape[1:], initial, float)) \
                if initial is not None else (seg.mean(0) if n else np.full(data.shape[1:], np.nan))
        else:
            fn = {"sum": np.sum, "prod": np.prod, "max": np.max, "min": np.min}[reduce]
            ident = {"sum": 0.0, "prod": 1.0, "max": -np.inf, "min": np.inf}[reduce]
            first = ident if initial is None else initial
            v = np.full(data.shape[1:], first) if n == 0 else \
                {"sum": lambda: seg.sum(0) + first, "prod": lambda: seg.prod(0) * first,
                 "max": lambda: np.maximum(seg.max(0), first),
                 "min": lambda: np.minimum(seg.min(0), first)}[reduce]()
            del fn
        out.append(v)
    return np.stack(out)


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "max", "min"])
@pytest.mark.parametrize("initial", [None, 1.5])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_segment_reduce_matches_numpy(reduce, initial, dtype):
    rng = np.random.default_rng(0)
    data = rng.standard_normal((3, 9)).astype(dtype).T          # (9, 3) non-contiguous
    lengths = [3, 0, 1, 4, 1]
    got = T.segment_reduce(T.tensor(data.T.copy()).T, reduce, lengths=T.tensor(lengths),
                           initial=initial).numpy()
    want = _np_segment(data.astype(np.float64), reduce, lengths, initial)
    np.testing.assert_allclose(got, want, rtol=1e-5 if dtype == np.float32 else 1e-12)


def test_segment_reduce_batched_lengths_matches_rows():
    rng = np.random.default_rng(1)
    data = rng.standard_normal((2, 7, 3))
    lengths = np.array([[2, 5, 0], [0, 3, 4]])
    got = T.segment_reduce(T.tensor(data), "max", lengths=T.tensor(lengths), axis=1).numpy()
    for r in range(2):
        np.testing.assert_array_equal(got[r], _np_segment(data[r], "max", lengths[r], None))
    offsets = np.concatenate([np.zeros((2, 1), int), lengths.cumsum(1)], 1)
    np.testing.assert_array_equal(
        T.segment_reduce(T.tensor(data), "max", offsets=T.tensor(offsets), axis=1).numpy(), got)


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "max", "min"])
def test_segment_reduce_gradcheck(reduce):
    rng = np.random.default_rng(2)
    data = T.tensor(rng.standard_normal((7, 2)), requires_grad=True)
    assert gradcheck(lambda d: T.segment_reduce(d, reduce, lengths=T.tensor([2, 1, 4])), (data,))
    assert gradcheck(lambda d: T.segment_reduce(d, reduce, lengths=T.tensor([2, 1, 4]),
                                                initial=0.5), (data,))


def test_segment_reduce_unsafe_ignores_the_tail():
    d = T.arange(6.0)
    np.testing.assert_array_equal(
        T.segment_reduce(d, "sum", lengths=T.tensor([2, 1]), unsafe=True).numpy(), [1.0, 2.0])


# ---- the cells, the samplers, the rest -----------------------------------------------------

@pytest.mark.parametrize("kind", ["tanh", "relu", "lstm", "gru"])
def test_cells_match_modules(kind):
    T.manual_seed(0)
    mod = {"tanh": lambda: T.nn.RNNCell(4, 5), "relu": lambda: T.nn.RNNCell(4, 5, nonlinearity="relu"),
           "lstm": lambda: T.nn.LSTMCell(4, 5), "gru": lambda: T.nn.GRUCell(4, 5)}[kind]()
    x, h, c = T.randn(3, 4), T.randn(3, 5), T.randn(3, 5)
    args = (mod.weight_ih, mod.weight_hh, mod.bias_ih, mod.bias_hh)
    if kind == "lstm":
        got, want = T.lstm_cell(x, (h, c), *args), mod(x, (h, c))
        for g, w in zip(got, want):
            np.testing.assert_allclose(g.detach().numpy(), w.detach().numpy(), rtol=1e-6)
        return
    fn = {"tanh": T.rnn_tanh_cell, "relu": T.rnn_relu_cell, "gru": T.gru_cell}[kind]
    np.testing.assert_allclose(fn(x, h, *args).detach().numpy(), mod(x, h).detach().numpy(),
                               rtol=1e-6)


def test_cells_gradcheck():
    rng = np.random.default_rng(3)

    def r(*s):
        return T.tensor(rng.standard_normal(s), requires_grad=True)
    x, h, c = r(2, 3), r(2, 4), r(2, 4)
    assert gradcheck(lambda x, h, wi, wh, b: T.rnn_tanh_cell(x, h, wi, wh, b, None),
                     (x, h, r(4, 3), r(4, 4), r(4)))
    assert gradcheck(lambda x, h, c, wi, wh: T.lstm_cell(x, (h, c), wi, wh),
                     (x, h, c, r(16, 3), r(16, 4)))
    assert gradcheck(lambda x, h, wi, wh, b: T.gru_cell(x, h, wi, wh, None, b),
                     (x, h, r(12, 3), r(12, 4), r(12)))


@pytest.mark.parametrize("mode,m", [("bilinear", 0), ("nearest", 1), ("bicubic", 2)])
@pytest.mark.parametrize("padding,p", [("zeros", 0), ("border", 1), ("reflection", 2)])
def test_grid_sampler_2d_is_grid_sample(mode, m, padding, p):
    T.manual_seed(1)
    img, grid = T.randn(2, 3, 5, 4), T.rand(2, 3, 6, 2) * 2.4 - 1.2
    np.testing.assert_array_equal(
        T.grid_sampler_2d(img, grid, m, p, True).numpy(),
        F.grid_sample(img, grid, mode=mode, padding_mode=padding, align_corners=True).numpy())


def test_grid_sampler_bad_modes():
    with pytest.raises(RuntimeError, match="interpolation_mode"):
        T.grid_sampler_2d(T.ones(1, 1, 2, 2), T.zeros(1, 1, 1, 2), 5, 0, False)
    with pytest.raises(RuntimeError, match="interpolation_mode"):
        T.grid_sampler_3d(T.ones(1, 1, 2, 2, 2), T.zeros(1, 1, 1, 1, 3), 2, 0, False)
    with pytest.raises(RuntimeError, match="padding_mode"):
        T.grid_sampler_2d(T.ones(1, 1, 2, 2), T.zeros(1, 1, 1, 2), 0, 7, False)


def test_empty_permuted_memory_order():
    t = T.empty_permuted((2, 3, 4, 5), (0, 2, 3, 1), dtype=T.float64, requires_grad=True)
    assert t.shape == (2, 3, 4, 5) and t.dtype == T.float64 and t.requires_grad
    assert t.permute(0, 2, 3, 1).is_contiguous()
    assert t.stride() == (60, 1, 15, 3)


def test_set_flush_denormal_is_honest():
    assert T.set_flush_denormal(True) is False
    tiny = np.float32(1e-40)      # a float32 denormal survives arithmetic
    assert (T.tensor([tiny]) * 1.0).numpy()[0] == tiny
    assert T.set_flush_denormal(False) is False


def test_constant_pad_nd_gradcheck():
    x = T.tensor(np.random.default_rng(4).standard_normal((2, 3)), requires_grad=True)
    assert gradcheck(lambda v: T.constant_pad_nd(v, (1, -1, 2, 0), 0.5), (x,))


def test_deprecated_norms_warn():
    with pytest.warns(UserWarning, match="frobenius_norm is deprecated"):
        T.frobenius_norm(T.ones(2, 2), (0, 1))
    with pytest.warns(UserWarning, match="nuclear_norm is deprecated"):
        T.nuclear_norm(T.ones(2, 2))


def test_norm_nuc_is_the_matrix_nuclear_norm():
    # old code's torch.norm(W, p='nuc') regulariser (it raised NotImplementedError)
    a = np.random.default_rng(5).standard_normal((2, 3, 4))
    t = T.tensor(a, requires_grad=True)
    np.testing.assert_allclose(T.norm(t[0], p="nuc").item(), np.linalg.norm(a[0], "nuc"))
    got = t.norm("nuc", dim=(0, 2), keepdim=True)
    assert got.shape == (1, 3, 1)
    np.testing.assert_allclose(got.detach().numpy().ravel(),
                               np.linalg.norm(a.transpose(1, 0, 2), "nuc", axis=(1, 2)))
    assert gradcheck(lambda v: T.norm(v, p="nuc", dim=(1, 2)), (t,))
    with pytest.raises(RuntimeError, match="dim must be a 2-tuple. Got 0 1 2"):
        T.norm(t, p="nuc")
    with pytest.raises(RuntimeError, match="must have at least 2 dimensions"):
        T.norm(T.ones(3), "nuc")
    np.testing.assert_allclose(T.norm(t[0], 2, 1).detach().numpy(),
                               np.linalg.norm(a[0], axis=1))   # other p: the op as before


def test_chain_matmul_warns_once_per_process():
    import subprocess
    import sys
    code = ("import warnings, torchlike as T\n"
            "with warnings.catch_warnings(record=True) as w:\n"
            "    warnings.simplefilter('always')\n"
            "    T.chain_matmul(T.eye(2), T.eye(2)); T.chain_matmul(T.eye(2), T.eye(2))\n"
            "print(len(w), str(w[0].message)[:39])\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "1 torch.chain_matmul is deprecated and wi"


@pytest.mark.parametrize("pad", [0, 2, -1])
def test_conv_tbc_against_numpy(pad):
    rng = np.random.default_rng(3)
    x, w, b = rng.standard_normal((9, 2, 3)), rng.standard_normal((3, 3, 5)), \
        rng.standard_normal(5)
    xp = np.pad(x, ((pad, pad), (0, 0), (0, 0))) if pad >= 0 else x[-pad:pad]
    want = b + sum(np.einsum("tnc,co->tno", xp[k:k + len(xp) - 2], w[k]) for k in range(3))
    t = T.tensor(x.transpose(1, 0, 2)).transpose(0, 1)  # non-contiguous input
    got = T.conv_tbc(t, T.tensor(w), T.tensor(b), pad)
    assert got.dtype == T.float64 and tuple(got.shape) == want.shape
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12, atol=1e-12)
    xs, ws = T.tensor(x, requires_grad=True), T.tensor(w, requires_grad=True)
    assert T.autograd.gradcheck(lambda a, c: T.conv_tbc(a, c, T.tensor(b), pad), (xs, ws))


def test_module_load_and_deprecated_classes():
    dst, src = T.zeros(3), T.arange(3.0, requires_grad=True)
    got = dst.module_load(src)
    assert got is not dst and got.data_ptr() == dst.data_ptr() and not got.requires_grad
    np.testing.assert_array_equal(dst.detach().numpy(), [0.0, 1.0, 2.0])
    got = dst.module_load(src * 2, assign=True)
    assert got.data_ptr() != dst.data_ptr() and got.tolist() == [0.0, 2.0, 4.0]
    assert dst.const_data_ptr() == dst.data_ptr()
    with pytest.warns(FutureWarning, match="Container"):
        c = T.nn.Container(a=T.nn.Linear(2, 3), b=T.nn.ReLU())
    assert list(dict(c.named_children())) == ["a", "b"]
    with pytest.warns(FutureWarning, match="NLLLoss2d"):
        loss = T.nn.NLLLoss2d(ignore_index=1, reduction="sum")
    assert isinstance(loss, T.nn.NLLLoss) and loss.ignore_index == 1
    logp = T.log_softmax(T.arange(24.0).reshape(2, 3, 2, 2) / 7, 1)
    tgt = T.tensor([[[0, 1], [2, 0]], [[1, 1], [2, 2]]])
    assert loss(logp, tgt).item() == T.nn.functional.nll_loss(
        logp, tgt, ignore_index=1, reduction="sum").item()
