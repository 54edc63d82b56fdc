"""embedding and embedding_bag: the kernels of src/nn/embedding.

Values against NumPy lookups and bag reductions over dtypes, index dtypes,
empty and non-contiguous inputs; the weight's gradient against a NumPy
scatter-add (padding row, scale_grad_by_freq, bag modes, per-sample
weights); gradcheck/gradgradcheck of the ops and of their backward ops;
max_norm's in-place renormalisation; errors; and the kernels on the fake
device (subprocess)."""
import numpy as np
import pytest

import torchlike as T
import torchlike.nn as nn
import torchlike.nn.functional as F
from torchlike.autograd import gradcheck, gradgradcheck

from nn_fake_device import run_on_fake_device

GRADCHECKED = {"embedding", "embedding_dense_backward", "_embedding_bag",
               "_embedding_bag_dense_backward"}

TOL = {T.float64: 1e-12, T.float32: 1e-6, T.float16: 1e-3, T.bfloat16: 1e-2}


def to_numpy(t):
    return t.float().cpu().numpy() if t.dtype in (T.float16, T.bfloat16) else t.cpu().numpy()


def np_dense_backward(g, idx, V, pad=-1, freq=False):
    idx = idx.reshape(-1)
    g = g.reshape(len(idx), -1)
    out = np.zeros((V, g.shape[1]))
    counts = np.bincount(idx, minlength=V)
    for i, v in enumerate(idx):
        if v != pad:
            out[v] += g[i] / (counts[v] if freq else 1)
    return out


def np_bags(w, idx, bounds, mode, psw=None, pad=-1):
    out = np.zeros((len(bounds) - 1, w.shape[1]))
    for b in range(len(bounds) - 1):
        rows = [(i, v) for i, v in enumerate(idx[bounds[b]:bounds[b + 1]], bounds[b]) if v != pad]
        if not rows:
            continue
        vals = np.stack([w[v] * (psw[i] if psw is not None else 1) for i, v in rows])
        out[b] = {"sum": vals.sum(0), "mean": vals.mean(0), "max": vals.max(0)}[mode]
    return out


@pytest.mark.parametrize("dtype", list(TOL) + [T.int64])
@pytest.mark.parametrize("index_dtype", [T.int64, T.int32])
@pytest.mark.parametrize("shape", [(), (0,), (5,), (3, 4), (2, 0, 3)])
def test_lookup_matches_numpy(shape, dtype, index_dtype):
    rng = np.random.default_rng(0)
    w = rng.standard_normal((11, 6)) * 10
    idx = rng.integers(0, 11, shape)
    wt = T.tensor(w, dtype=dtype)
    y = F.embedding(T.tensor(idx, dtype=index_dtype), wt)
    assert y.dtype == dtype and tuple(y.shape) == shape + (6,)
    np.testing.assert_array_equal(to_numpy(y) if dtype != T.int64 else y.cpu().numpy(), to_numpy(wt)[idx]
                                  if dtype != T.int64 else wt.cpu().numpy()[idx])


def test_non_contiguous_weight_and_indices():
    rng = np.random.default_rng(1)
    w = rng.standard_normal((6, 9))
    idx = rng.integers(0, 9, (4, 6))
    y = F.embedding(T.tensor(idx).t(), T.tensor(w).t())
    np.testing.assert_array_equal(y.cpu().numpy(), w.T[idx.T])


@pytest.mark.parametrize("pad,freq", [(None, False), (3, False), (-2, False), (None, True), (3, True)])
@pytest.mark.parametrize("dtype", [T.float64, T.float32, T.bfloat16])
def test_weight_gradient_is_a_scatter_add(pad, freq, dtype):
    rng = np.random.default_rng(2)
    idx = rng.integers(0, 8, (5, 7))
    idx[0, :3] = 3
    w = T.tensor(rng.standard_normal((8, 4)), dtype=dtype, requires_grad=True)
    g = rng.standard_normal((5, 7, 4))
    y = F.embedding(T.tensor(idx), w, padding_idx=pad, scale_grad_by_freq=freq)
    y.backward(T.tensor(g, dtype=dtype))
    ref = np_dense_backward(to_numpy(T.tensor(g, dtype=dtype)).astype(np.float64), idx, 8,
                            -1 if pad is None else pad % 8, freq)
    assert w.grad.dtype == dtype
    np.testing.assert_allclose(to_numpy(w.grad), ref, rtol=TOL[dtype] * 10, atol=TOL[dtype] * 10)


def test_gradcheck_and_double_backward():
    rng = np.random.default_rng(3)
    idx = T.tensor(rng.integers(0, 6, (3, 4)))
    w = T.tensor(rng.standard_normal((6, 3)), requires_grad=True)
    assert gradcheck(lambda a: F.embedding(idx, a), (w,))
    assert gradgradcheck(lambda a: F.embedding(idx, a), (w,))
    g = T.tensor(rng.standard_normal((3, 4, 3)), requires_grad=True)
    for pad, freq in ((-1, False), (2, True)):
        assert gradcheck(lambda a: T._C.embedding_dense_backward(a, idx, 6, pad, freq), (g,))
    # the padding row's gradient and the frequency scaling are what PyTorch gives
    out = T._C.embedding_dense_backward(g.detach(), idx, 6, 2, True).cpu().numpy()
    np.testing.assert_allclose(out, np_dense_backward(g.detach().cpu().numpy(), idx.cpu().numpy(), 6, 2, True))


def test_max_norm_renormalises_the_picked_rows_in_place():
    rng = np.random.default_rng(4)
    w0 = rng.standard_normal((5, 3)) * 3
    w = T.tensor(w0)
    idx = np.array([0, 2, 2])
    y = F.embedding(T.tensor(idx), w, max_norm=1.0)
    wn = w.cpu().numpy()
    for r in range(5):
        n = np.linalg.norm(w0[r])
        expect = w0[r] * (1.0 / (n + 1e-7)) if r in idx and n > 1 else w0[r]
        np.testing.assert_allclose(wn[r], expect, rtol=1e-12)
    np.testing.assert_allclose(y.cpu().numpy(), wn[idx])
    m = nn.Embedding(5, 3, max_norm=0.5)
    m(T.tensor([1, 4]))
    assert np.linalg.norm(m.weight.detach().cpu().numpy()[[1, 4]], axis=1).max() <= 0.5 + 1e-6


def test_module_padding_idx_and_from_pretrained():
    m = nn.Embedding(10, 4, padding_idx=0)
    assert (m.weight.detach().cpu().numpy()[0] == 0).all()
    m(T.tensor([[0, 1, 0]])).sum().backward()
    assert (m.weight.grad.cpu().numpy()[0] == 0).all() and (m.weight.grad.cpu().numpy()[1] == 1).all()
    w = T.randn(3, 2)
    e = nn.Embedding.from_pretrained(w)
    np.testing.assert_array_equal(e(T.tensor([2])).cpu().numpy(), w.cpu().numpy()[[2]])


def _bounds(offsets, n, include_last):
    return list(offsets) if include_last else list(offsets) + [n]


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("dtype", [T.float64, T.float32, T.float16])
@pytest.mark.parametrize("include_last,pad", [(False, None), (True, None), (False, 4)])
def test_bags_match_numpy(mode, dtype, include_last, pad):
    rng = np.random.default_rng(5)
    w = T.tensor(rng.standard_normal((10, 5)), dtype=dtype)
    idx = np.array([1, 2, 4, 5, 4, 3, 2, 9, 4, 4])
    offsets = np.array([0, 2, 2, 5, 9]) if not include_last else np.array([0, 2, 2, 5, 9, 10])
    out = F.embedding_bag(T.tensor(idx), w, T.tensor(offsets), mode=mode,
                          include_last_offset=include_last, padding_idx=pad)
    ref = np_bags(to_numpy(w).astype(np.float64), idx, _bounds(offsets, 10, include_last), mode,
                  pad=-1 if pad is None else pad)
    assert out.dtype == dtype and tuple(out.shape) == ref.shape
    np.testing.assert_allclose(to_numpy(out), ref, rtol=TOL[dtype] * 4, atol=TOL[dtype] * 4)
    idx2 = rng.integers(0, 10, (3, 4))
    out2 = F.embedding_bag(T.tensor(idx2), w, mode=mode)
    np.testing.assert_allclose(to_numpy(out2), np_bags(to_numpy(w).astype(np.float64),
                                                        idx2.reshape(-1), [0, 4, 8, 12], mode),
                               rtol=TOL[dtype] * 4, atol=TOL[dtype] * 4)


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_bag_gradients(mode):
    rng = np.random.default_rng(6)
    w = T.tensor(rng.standard_normal((8, 3)), requires_grad=True)
    idx = T.tensor([1, 2, 4, 5, 4, 3, 2, 7])
    off = T.tensor([0, 2, 2, 5])
    fn = lambda a: F.embedding_bag(idx, a, off, mode=mode, padding_idx=4)  # noqa: E731
    assert gradcheck(fn, (w,))
    assert gradgradcheck(fn, (w,))
    # the weight gradient against NumPy: rows of each bag's gradient
    g = rng.standard_normal((4, 3))
    fn(w).backward(T.tensor(g))
    expect = np.zeros((8, 3))
    wn = w.detach().cpu().numpy()
    bounds = [0, 2, 2, 5, 8]
    for b in range(4):
        rows = [int(v) for v in idx.cpu().numpy()[bounds[b]:bounds[b + 1]] if v != 4]
        for k, v in enumerate(rows):
            if mode == "sum":
                expect[v] += g[b]
            elif mode == "mean":
                expect[v] += g[b] / len(rows)
        if mode == "max" and rows:
            arg = np.array(rows)[np.argmax(wn[rows], axis=0)]
            for e in range(3):
                expect[arg[e], e] += g[b, e]
    np.testing.assert_allclose(w.grad.cpu().numpy(), expect, rtol=1e-12)


@pytest.mark.parametrize("mode", ["sum", "mean"])
def test_bag_scale_grad_by_freq_divides_rows_by_their_count(mode):
    """PyTorch divides row v's gradient by v's count among all the indices
    (padding included); max bags refuse the option."""
    rng = np.random.default_rng(9)
    w = T.tensor(rng.standard_normal((8, 3)), requires_grad=True)
    idx = np.array([1, 2, 1, 4, 1, 0, 2, 2])
    off = T.tensor([0, 3, 5])
    fn = lambda a: F.embedding_bag(T.tensor(idx), a, off, mode=mode,  # noqa: E731
                                   scale_grad_by_freq=True, padding_idx=4)
    g = rng.standard_normal((3, 3))
    fn(w).backward(T.tensor(g))
    expect = np.zeros((8, 3))
    bounds = [0, 3, 5, 8]
    for b in range(3):
        rows = [int(v) for v in idx[bounds[b]:bounds[b + 1]] if v != 4]
        for v in rows:
            expect[v] += g[b] / (len(rows) if mode == "mean" else 1)
    counts = np.bincount(idx, minlength=8)
    expect /= np.maximum(counts, 1)[:, None]
    np.testing.assert_allclose(w.grad.cpu().numpy(), expect, rtol=1e-12)
    np.testing.assert_array_equal(fn(w).detach().cpu().numpy(),
                                  F.embedding_bag(T.tensor(idx), w, off, mode=mode,
                                                  padding_idx=4).detach().cpu().numpy())
    with pytest.raises(ValueError, match="max mode does not support scaling the gradient"):
        F.embedding_bag(T.tensor(idx), w, off, mode="max", scale_grad_by_freq=True)


def test_per_sample_weights_values_and_gradients():
    rng = np.random.default_rng(7)
    w = T.tensor(rng.standard_normal((8, 3)), requires_grad=True)
    idx = np.array([1, 2, 4, 5, 4, 3, 2, 7])
    psw = T.tensor(rng.standard_normal(8), requires_grad=True)
    off = T.tensor([0, 3, 6])
    out = F.embedding_bag(T.tensor(idx), w, off, mode="sum", per_sample_weights=psw, padding_idx=4)
    np.testing.assert_allclose(out.detach().cpu().numpy(), np_bags(w.detach().cpu().numpy(), idx, [0, 3, 6, 8],
                                                             "sum", psw.detach().cpu().numpy(), 4))
    fn = lambda a, p: F.embedding_bag(T.tensor(idx), a, off, mode="sum",  # noqa: E731
                                      per_sample_weights=p, padding_idx=4)
    assert gradcheck(fn, (w, psw))
    assert gradgradcheck(fn, (w, psw))
    psw2 = T.tensor(rng.standard_normal((2, 4)), requires_grad=True)
    fn2 = lambda a, p: F.embedding_bag(T.tensor(idx.reshape(2, 4)), a, mode="sum",  # noqa: E731
                                       per_sample_weights=p)
    assert gradcheck(fn2, (w, psw2))


def test_bag_backward_op_has_its_own_derivative():
    rng = np.random.default_rng(8)
    w = T.tensor(rng.standard_normal((10, 3)))
    idx, off = T.tensor([1, 2, 4, 5, 4, 3, 2, 9]), T.tensor([0, 2, 5])
    g = T.tensor(rng.standard_normal((3, 3)), requires_grad=True)
    psw = T.tensor(rng.standard_normal(8), requires_grad=True)
    for mode in (0, 1, 2):
        r = T._C._embedding_bag(w, idx, off, mode, None, False, 4)
        assert gradcheck(lambda a: T._C._embedding_bag_dense_backward(a, idx, r[1], r[2], r[3], 10,
                                                                      mode, None, 4), (g,))
    r = T._C._embedding_bag(w, idx, off, 0, psw.detach(), False, 4)
    assert gradcheck(lambda a, p: T._C._embedding_bag_dense_backward(a, idx, r[1], r[2], r[3], 10,
                                                                     0, p, 4), (g, psw))


def test_embedding_bag_module():
    m = nn.EmbeddingBag(10, 3, mode="max")
    out = m(T.tensor([1, 2, 3, 4]), T.tensor([0, 2]))
    wn = m.weight.detach().cpu().numpy()
    np.testing.assert_allclose(out.detach().cpu().numpy(), np.stack([wn[[1, 2]].max(0), wn[[3, 4]].max(0)]))


def test_errors_in_pytorch_wording():
    w = T.randn(5, 3)
    with pytest.raises(IndexError, match="index out of range in self"):
        F.embedding(T.tensor([5]), w)
    with pytest.raises(IndexError, match="index out of range in self"):
        F.embedding(T.tensor([-1]), w)
    with pytest.raises(RuntimeError, match="Expected tensor for argument #1 'indices' to have one of "
                                           "the following scalar types: Long, Int; but got "
                                           "torchlike.FloatTensor instead"):
        F.embedding(T.tensor([1.0]), w)
    with pytest.raises(RuntimeError, match="'weight' must be 2-D"):
        F.embedding(T.tensor([1]), T.randn(5))
    with pytest.raises(AssertionError, match="Padding_idx must be within num_embeddings"):
        F.embedding(T.tensor([1]), w, padding_idx=5)
    with pytest.raises(ValueError, match="offsets has to be a 1D Tensor but got None"):
        F.embedding_bag(T.tensor([1, 2]), w)
    with pytest.raises(ValueError) as info:
        F.embedding_bag(T.tensor([[1, 2]]), w, T.tensor([0]))
    assert str(info.value) == ("if input is 2D, then offsets has to be None, as input is treated "
                               "is a mini-batch of fixed length sequences. However, found offsets "
                               "of type <class 'torchlike.Tensor'>")
    with pytest.raises(ValueError, match="found offsets of type <class 'list'>"):
        F.embedding_bag(T.tensor([[1, 2]]), w, [0])
    # an index out of range: the sum/mean path names its position, the max
    # and padding_idx path the value only (RuntimeError, as PyTorch's kernels)
    for mode in ("sum", "mean"):
        with pytest.raises(RuntimeError) as info:
            F.embedding_bag(T.tensor([0, 3, 7, 9]), w, T.tensor([0, 2]), mode=mode)
        assert str(info.value) == ("Index 2 of input takes value 7 which is not in the valid "
                                   "range [0, 5)")
        with pytest.raises(RuntimeError, match=r"^Index 1 of input takes value -1 which"):
            F.embedding_bag(T.tensor([[0, -1]]), w, mode=mode)
    with pytest.raises(RuntimeError) as info:
        F.embedding_bag(T.tensor([0, 3, 7, 9]), w, T.tensor([0, 2]), mode="max")
    assert str(info.value) == ("embedding_bag: Expected idx >= 0 && idx < num_embeddings but "
                               "found idx to be 7")
    with pytest.raises(RuntimeError, match="but found idx to be -2$"):
        F.embedding_bag(T.tensor([[1, -2]]), w, mode="sum", padding_idx=1)
    # PyTorch's order: the offsets (their dtype named 'indices' too, the first
    # and the last), then per_sample_weights' dtype, then the indices' range
    with pytest.raises(RuntimeError) as info:
        F.embedding_bag(T.tensor([1, 9]), w, T.tensor([0, 3]))
    assert str(info.value) == ("offsets[-1] can not be greater than input's length 2 but got "
                               "offsets[-1] of 3")
    with pytest.raises(RuntimeError, match="^offsets\\[0\\] has to be 0"):
        F.embedding_bag(T.tensor([1, 9]), w, T.tensor([1, 3]))
    with pytest.raises(RuntimeError,
                       match="argument #1 'indices' .* but got torchlike.FloatTensor"):
        F.embedding_bag(T.tensor([1, 2]), w, T.tensor([0.0]))
    with pytest.raises(RuntimeError) as info:
        F.embedding_bag(T.tensor([1, 9]), w, T.tensor([0]), mode="sum",
                        per_sample_weights=T.ones(2, dtype=T.float64))
    assert str(info.value) == (
        "Expected tensor for argument #1 'weight' to have the same type as tensor for argument #1 "
        "'per_sample_weights'; but type torchlike.FloatTensor does not equal "
        "torchlike.DoubleTensor (while checking arguments for embedding_bag)")
    with pytest.raises(AssertionError,
                       match="Embeddings parameter is expected to be 2-dimensional"):
        nn.EmbeddingBag.from_pretrained(T.ones(3))
    with pytest.raises(AssertionError, match="Shape of weight does not match num_embeddings"):
        nn.EmbeddingBag(5, 2, _weight=T.ones(4, 2))
    with pytest.raises(RuntimeError, match="offsets\\[0\\] has to be 0"):
        F.embedding_bag(T.tensor([1, 2]), w, T.tensor([1]))
    with pytest.raises(NotImplementedError, match="only supported for mode='sum'"):
        F.embedding_bag(T.tensor([1, 2]), w, T.tensor([0]), mode="mean",
                        per_sample_weights=T.ones(2))
    with pytest.raises(ValueError, match="mode has to be one of sum, mean or max"):
        F.embedding_bag(T.tensor([1, 2]), w, T.tensor([0]), mode="min")
    # the weights' shape is PyTorch's first check (before the mode's), its
    # sizes printed as Size objects
    for mode in ("sum", "mean"):
        with pytest.raises(ValueError) as info:
            F.embedding_bag(T.tensor([1, 2]), w, T.tensor([0]), mode=mode,
                            per_sample_weights=T.ones(3))
        assert str(info.value) == (
            "embedding_bag: If per_sample_weights (torchlike.Size([3])) is not None, then it "
            "must have the same shape as the input (torchlike.Size([2]))")


@pytest.mark.host_only  # runs its own fake-device subprocess
def test_fake_device_uses_the_device_kernel_and_keeps_results_there():
    run_on_fake_device("""
        expect_no_kernel(lambda: F.embedding(T.tensor([[1, 2]]).to("fake"), T.randn(6, 3).to("fake")),
                         "embedding")
        C._dispatch_lend_cpu_kernels("fake", True)
        w = T.randn(6, 3).to("fake")
        i = T.tensor([[1, 2], [5, 0]]).to("fake")
        y = F.embedding(i, w)
        assert str(y.device) == "fake:0"
        np.testing.assert_array_equal(y.cpu().numpy(), F.embedding(i.cpu(), w.cpu()).cpu().numpy())
        wr = w.detach().requires_grad_()
        F.embedding_bag(i, wr, mode="mean").sum().backward()
        assert str(wr.grad.device) == "fake:0"
        print("ok")
    """)


def test_padding_idx_refusals_in_pytorch_words():
    # Embedding's assertion capitalizes the word, EmbeddingBag's does not, and
    # the functional embedding_bag is refused by PyTorch's kernel
    with pytest.raises(AssertionError, match="^Padding_idx must be within num_embeddings$"):
        nn.Embedding(4, 2, padding_idx=4)
    for pad in (4, -5):
        with pytest.raises(AssertionError, match="^padding_idx must be within num_embeddings$"):
            nn.EmbeddingBag(4, 2, padding_idx=pad)
        with pytest.raises(RuntimeError, match=rf"^padding_idx must be within the number of "
                                               rf"embeddings, -4 through 3, but got {pad}$"):
            T.nn.functional.embedding_bag(T.tensor([1]), T.zeros(4, 2), T.tensor([0]),
                                          padding_idx=pad)
    assert nn.EmbeddingBag(4, 2, padding_idx=-1).padding_idx == 3
