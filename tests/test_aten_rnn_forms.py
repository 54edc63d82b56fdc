"""torch.lstm / gru / rnn_tanh / rnn_relu (input and packed forms) and the
batch-norm primitives against PyTorch's recorded answers
(tests/golden/aten_rnn.json, scripts/golden_aten_rnn.py); the RNN forms
against nn.LSTM/GRU/RNN with the same weights and their gradients by finite
differences; the CUDA-only (in PyTorch) batch-norm primitives against their
formulas in NumPy float64 and against whole-batch batch norm when the batch
is split over "ranks"."""
import numpy as np
import pytest

import torchlike as T
from torchlike.autograd import gradcheck
from numextra_golden import check
from oracle import golden_calls

CALLS, _golden = golden_calls("aten_rnn")
_TYPE_ONLY = set(_golden.TYPE_ONLY)


@pytest.mark.parametrize("call,expected", CALLS, ids=[c[:80] for c, _ in CALLS])
def test_matches_pytorch(call, expected):
    # TYPE_ONLY: PyTorch's exception type, torchlike's own message
    # float16/bfloat16 results: within one unit in the last place (torchlike
    # rounds bfloat16 variances correctly where PyTorch's CPU kernel may not)
    loose = (1e-2, 1e-3) if ".half()" in call or ".bfloat16()" in call else (2e-6, 1e-6)
    check(_golden, call, expected, loose=loose, prefix=0 if call in _TYPE_ONLY else None)


def _np(t):
    return t.detach().cpu().numpy()


def _module_params(m):
    return [getattr(m, n) for n in m._flat_weights_names]


@pytest.mark.parametrize("kind,fn", [("LSTM", T.lstm), ("GRU", T.gru), ("RNN", T.rnn_tanh)])
def test_same_as_module(kind, fn):
    T.manual_seed(3)
    extra = {"proj_size": 2} if kind == "LSTM" else {}
    m = getattr(T.nn, kind)(3, 4, num_layers=2, bidirectional=True, batch_first=True,
                            **extra).double()
    x = T.randn(2, 5, 3, dtype=T.float64)
    h = T.randn(4, 2, 2 if kind == "LSTM" else 4, dtype=T.float64)
    hx = (h, T.randn(4, 2, 4, dtype=T.float64)) if kind == "LSTM" else h
    want_out, want_h = m(x, hx)
    got = fn(x, hx, _module_params(m), True, 2, 0.0, False, True, True)
    want = (want_out,) + (tuple(want_h) if kind == "LSTM" else (want_h,))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(_np(g), _np(w), rtol=1e-12, atol=1e-12)
    # packed: the module's PackedSequence path, hx in sorted order
    from torchlike.nn.utils.rnn import pack_padded_sequence
    packed = pack_padded_sequence(x, T.tensor([5, 3]), batch_first=True)
    want_out, want_h = m(packed, hx)
    got = fn(packed.data, packed.batch_sizes, hx, _module_params(m), True, 2, 0.0, False, True)
    np.testing.assert_allclose(_np(got[0]), _np(want_out.data),
                               rtol=1e-12, atol=1e-12)


def test_gradients_by_finite_differences():
    T.manual_seed(5)
    r = lambda *s: T.randn(*s, dtype=T.float64).mul_(0.5).requires_grad_()  # noqa: E731
    x, h, c = r(3, 2, 2), r(2, 2, 2), r(2, 2, 3)
    # one layer, two directions, proj_size 2 (h 2, c 3)
    ps = [r(12, 2), r(12, 2), r(12), r(12), r(2, 3), r(12, 2), r(12, 2), r(12), r(12), r(2, 3)]
    assert gradcheck(lambda x, h, c, *ps: T.lstm(x, (h, c), list(ps), True, 1, 0.0, False,
                                                 True, False), (x, h, c, *ps))
    data, bs, hg = r(5, 2), T.tensor([2, 2, 1]), r(2, 2, 3)
    pg = [r(9, 2), r(9, 3), r(9, 3), r(9, 3)]
    assert gradcheck(lambda d, h, *ps: T.gru(d, bs, h, list(ps), False, 2, 0.0, False, False),
                     (data, hg, *pg))


def test_dropout_between_layers_only_when_training():
    T.manual_seed(0)
    x, h = T.randn(4, 2, 3), T.zeros(2, 2, 3)
    ps = _module_params(T.nn.RNN(3, 3, num_layers=2))
    plain = T.rnn_relu(x, h, ps, True, 2, 0.0, False, False, False)[0]
    np.testing.assert_array_equal(
        _np(T.rnn_relu(x, h, ps, True, 2, 0.9, False, False, False)[0]),
        _np(plain))
    dropped = T.rnn_relu(x, h, ps, True, 2, 0.9, True, False, False)[0]
    assert not np.allclose(_np(dropped), _np(plain))


# ---- batch-norm primitives (CUDA-only in PyTorch) against NumPy ----------

def _np_stats(x):
    dims = (0,) + tuple(range(2, x.ndim))
    return x.mean(dims), x.var(dims), dims


@pytest.fixture
def bn():
    rng = np.random.default_rng(7)
    x = rng.standard_normal((6, 3, 4)) * 2 + 0.5
    return {"x": x, "dy": rng.standard_normal(x.shape), "w": rng.standard_normal(3),
            "b": rng.standard_normal(3)}


def test_batch_norm_stats_and_elemt(bn):
    x = bn["x"]
    mean, var, _ = _np_stats(x)
    m, iv = T.batch_norm_stats(T.tensor(x), 1e-3)
    np.testing.assert_allclose(_np(m), mean, rtol=1e-12)
    np.testing.assert_allclose(_np(iv), 1 / np.sqrt(var + 1e-3), rtol=1e-12)
    strided = T.tensor(x).transpose(0, 2).contiguous().transpose(0, 2)   # not contiguous
    y = T.batch_norm_elemt(strided, T.tensor(bn["w"]), T.tensor(bn["b"]), m, iv, 1e-3)
    s = (1, 3, 1)
    want = (x - mean.reshape(s)) / np.sqrt(var.reshape(s) + 1e-3) * bn["w"].reshape(s) + \
        bn["b"].reshape(s)
    np.testing.assert_allclose(_np(y), want, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(_np(T.batch_norm_elemt(T.tensor(x), None, None, m, iv, 0.0)),
                               (x - mean.reshape(s)) / np.sqrt(var.reshape(s) + 1e-3), rtol=1e-12)
    with pytest.raises(IndexError):
        T.batch_norm_stats(T.tensor(x[0, 0]), 1e-5)


@pytest.mark.parametrize("with_counts", [True, False])
def test_gather_stats_merges_ranks(bn, with_counts):
    # ranks of 8 and 16 (and 0) values per channel: the merge equals the whole batch's statistics
    x, eps, mom = bn["x"], 1e-4, 0.2
    parts = [x[:2], x[2:]] if with_counts else [x[:3], x[3:]]
    stats = [T.batch_norm_stats(T.tensor(p), eps) for p in parts]
    means = T.stack([s[0] for s in stats])
    invstds = T.stack([s[1] for s in stats])
    rm, rv = T.full((3,), 0.5, dtype=T.float64), T.full((3,), 2.0, dtype=T.float64)
    if with_counts:
        means = T.cat([means, T.full((1, 3), 9.0, dtype=T.float64)])   # an empty rank
        invstds = T.cat([invstds, T.zeros(1, 3, dtype=T.float64)])
        m, iv = T.batch_norm_gather_stats_with_counts(T.tensor(x), means, invstds, rm, rv, mom,
                                                      eps, T.tensor([8.0, 16.0, 0.0]))
    else:
        m, iv = T.batch_norm_gather_stats(T.tensor(x), means, invstds, rm, rv, mom, eps, 12)
    mean, var, _ = _np_stats(x)
    n = x.shape[0] * x.shape[2]
    np.testing.assert_allclose(_np(m), mean, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(_np(iv), 1 / np.sqrt(var + eps), rtol=1e-10)
    np.testing.assert_allclose(_np(rm), 0.5 * (1 - mom) + mom * mean, rtol=1e-12)
    np.testing.assert_allclose(_np(rv), 2.0 * (1 - mom) + mom * var * n / (n - 1), rtol=1e-10)


def test_backward_reduce_and_elemt_give_batch_norm_gradient(bn):
    x, dy, w = bn["x"], bn["dy"], bn["w"]
    mean, var, dims = _np_stats(x)
    eps = 1e-5
    invstd = 1 / np.sqrt(var + eps)
    m_t, iv_t, w_t = T.tensor(mean), T.tensor(invstd), T.tensor(w)
    sdy, sdyx, gw, gb = T.batch_norm_backward_reduce(T.tensor(dy), T.tensor(x), m_t, iv_t, w_t,
                                                     True, True, True)
    s = (1, 3, 1)
    np.testing.assert_allclose(_np(sdy), dy.sum(dims), rtol=1e-12)
    np.testing.assert_allclose(_np(sdyx), (dy * (x - mean.reshape(s))).sum(dims), rtol=1e-12)
    np.testing.assert_allclose(_np(gw), (dy * (x - mean.reshape(s))).sum(dims) * invstd,
                               rtol=1e-12)
    np.testing.assert_allclose(_np(gb), dy.sum(dims), rtol=1e-12)
    assert T.batch_norm_backward_reduce(T.tensor(dy), T.tensor(x), m_t, iv_t, w_t,
                                        False, False, True)[:3] == (None, None, None)
    # two ranks: their sums all-reduced, each rank's rows of the whole gradient
    halves = [slice(0, 2), slice(2, 6)]
    sums = [T.batch_norm_backward_reduce(T.tensor(dy[h]), T.tensor(x[h]), m_t, iv_t, w_t,
                                         True, False, False)[:2] for h in halves]
    sdy = sums[0][0] + sums[1][0]
    sdyx = sums[0][1] + sums[1][1]
    counts = T.tensor([8, 16], dtype=T.int32)
    got = T.cat([T.batch_norm_backward_elemt(T.tensor(dy[h]), T.tensor(x[h]), m_t, iv_t, w_t,
                                             sdy, sdyx, counts) for h in halves])
    xt = T.tensor(x).requires_grad_()
    T.nn.functional.batch_norm(xt, None, None, T.tensor(w), None, True, 0.1, eps).backward(
        T.tensor(dy))
    np.testing.assert_allclose(_np(got), _np(xt.grad), rtol=1e-10, atol=1e-12)


def test_batch_norm_update_stats_and_legit_float32(bn):
    x = bn["x"].astype(np.float32)
    rm, rv = T.zeros(3), T.ones(3)
    mean, var = T.batch_norm_update_stats(T.tensor(x), rm, rv, 0.5)
    want_m, want_v, _ = _np_stats(x.astype(np.float64))
    assert mean.dtype == T.float32
    np.testing.assert_allclose(_np(mean), want_m, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(_np(var), want_v, rtol=1e-5)
    np.testing.assert_allclose(_np(rv), 0.5 + 0.5 * want_v * 24 / 23, rtol=1e-5)
    with pytest.raises(RuntimeError):   # running statistics of another size
        T.batch_norm_update_stats(T.tensor(x), T.zeros(2), T.ones(2), 0.5)
    out, sm, si = T._native_batch_norm_legit_no_training(T.tensor(x), None, None, rm, rv, 0.1,
                                                         1e-5)
    assert sm.shape == si.shape == (0,)
    np.testing.assert_allclose(_np(out), (x - _np(rm).reshape(1, 3, 1))
                               / np.sqrt(_np(rv).reshape(1, 3, 1) + 1e-5), rtol=1e-5, atol=1e-6)
