"""Record what PyTorch's meta device gives, for tests/test_meta.py: for each
call, a result's device type, shape, dtype, strides and grad state (a meta
tensor has no values), or the exception it raises with its first line.

Run with an interpreter that has PyTorch:
    python scripts/golden_meta.py
writes tests/golden/meta.json: [call, outcome] pairs, the call a Python
expression over T (the library) and the tensors inputs() makes."""
from golden_calls import record

M = "T.empty(2, 3, device='meta')"
CALLS = [
    # the device and creation
    "T.device('meta')", "T.device('meta:0')", "T.device('meta', 0)", "str(T.device('meta'))",
    "M.device", "M.is_meta", "C.is_meta", "M.device.type == 'meta'", "M.device.index",
    "T.empty(3, device='meta')", "T.empty((), device='meta')", "T.empty(0, 4, device='meta')",
    "T.zeros(2, 3, device='meta', dtype=T.int64)", "T.ones(4, device=T.device('meta'))",
    "T.full((2, 2), 7.0, device='meta')", "T.arange(5, device='meta')",
    "T.arange(0.0, 1.0, 0.25, device='meta')", "T.linspace(0, 1, 7, device='meta')",
    "T.eye(3, device='meta')", "T.rand(2, 3, device='meta')", "T.randn(4, device='meta')",
    "T.randint(0, 5, (3,), device='meta')", "T.randperm(6, device='meta')",
    "T.zeros_like(C, device='meta')", "T.empty_like(M)", "T.ones_like(M, dtype=T.float64)",
    "T.rand_like(M)", "M.new_zeros(4)", "M.new_empty((2, 2))", "M.new_full((3,), 1.5)",
    "T.empty_strided((2, 3), (1, 2), device='meta')",
    "T.tensor([1.0, 2.0], device='meta')",
    # moving to and from the device
    "C.to('meta')", "C.t().to('meta')", "C.to('meta', dtype=T.float64)", "M.to('meta') is M",
    "M.to(T.float64)", "M.to('cpu')", "M.cpu()", "T.empty(0, device='meta').cpu()",
    "M.clone()", "M.t().contiguous()", "M.t().clone()", "M.copy_(C)", "C.clone().copy_(M)",
    "M.untyped_storage().nbytes()", "M[1:].untyped_storage().nbytes()", "M.data_ptr()",
    "M.element_size()", "M.storage_offset()", "M[1].storage_offset()",
    # reading values
    "M.item()", "M1.item()", "M.tolist()", "M.numpy()", "M.__array__()", "bool(M1)",
    "float(M1)", "int(M1)", "bool(M)", "T.equal(M, M)", "T.allclose(M, M)", "M1 == 0",
    # printing
    "repr(M)", "repr(T.empty((), device='meta'))", "repr(T.empty(0, device='meta'))",
    "repr(T.empty(2, device='meta', dtype=T.int64))", "repr(M1 > 0)",
    "repr(T.empty(2, device='meta', requires_grad=True))",
    "repr(T.empty(2, device='meta', requires_grad=True) * 2)",
    # elementwise, broadcasting, promotion, scalars
    "M + M", "M * 2", "2.0 - M", "M + 1j", "M.exp()", "T.sin(M)", "M.t() + 1", "M.t() * M.t()",
    "M + T.empty(3, device='meta')", "M + T.empty(4, 2, 1, device='meta', dtype=T.float64)",
    "M > 0", "T.where(M > 0, M, 0.0)", "M.clamp(0, 1)", "M.add_(1)", "M.mul_(M)", "M.neg_()",
    "M + T.tensor(1.0)", "T.tensor(1.0) + M", "MI + MI", "MI / MI", "MI // 2", "M.to(T.int32) & 3",
    "M + M.to(T.float16)", "M + T.empty(4, device='meta')",
    # mixing with CPU tensors
    "M + C", "C + M", "M.copy_(C[0])", "T.matmul(M, C.t())", "T.cat([M, C])",
    # reductions and scans
    "M.sum()", "M.sum(0)", "M.sum(1, keepdim=True)", "M.mean(dtype=T.float64)", "MI.sum()",
    "M.max()", "M.max(0)", "M.min(1, keepdim=True)", "M.argmax()", "M.argmax(1)",
    "M.std(0)", "M.var()", "M.norm()", "M.prod(1)", "M.any()", "M.all(0)", "M.cumsum(1)",
    "M.logsumexp(1)", "M.amax((0, 1))", "T.count_nonzero(M, 0)", "T.linalg.vector_norm(M, dim=1)",
    # products
    "M @ M.t()", "T.mm(M, T.empty(3, 4, device='meta'))", "T.matmul(M, T.empty(3, device='meta'))",
    "T.bmm(T.empty(5, 2, 3, device='meta'), T.empty(5, 3, 4, device='meta'))",
    "T.matmul(T.empty(5, 2, 3, device='meta'), T.empty(3, 4, device='meta'))",
    "T.addmm(T.empty(4, device='meta'), M, T.empty(3, 4, device='meta'))",
    "T.outer(T.empty(3, device='meta'), T.empty(4, device='meta'))",
    "T.dot(T.empty(3, device='meta'), T.empty(3, device='meta'))",
    "M @ T.empty(2, 4, device='meta')", "T.einsum('ij,jk->ik', M, T.empty(3, 4, device='meta'))",
    # shape ops and views
    "M.view(6)", "M.reshape(3, 2)", "M.t()", "M.t().reshape(6)", "M.permute(1, 0)",
    "M.unsqueeze(0)", "M.expand(4, 2, 3)", "M[0]", "M[:, 1:]", "M[..., None]", "M[:, ::2]",
    "T.cat([M, M], 1)", "T.stack([M, M])", "M.flatten()", "T.flip(M, [0])", "M.repeat(2, 1)",
    "M.chunk(2, 1)", "M.split([1, 2], 1)", "T.tril(M)", "M.roll(1, 0)", "M.narrow(1, 0, 2)",
    "T.nn.functional.pad(M, (1, 1))", "M.transpose(0, 1).contiguous()", "M.squeeze()",
    "M.view(T.int32)", "M.unbind(0)", "M.diagonal()", "T.broadcast_to(M, (2, 2, 3))",
    # index ops
    "M[T.tensor([0, 1])]", "M[T.tensor([0, 1], device='meta')]", "M[[1, 0], [2, 1]]",
    "M.index_select(1, T.tensor([0, 2], device='meta'))",
    "T.gather(M, 1, T.empty(2, 2, dtype=T.int64, device='meta'))",
    "M.scatter(1, T.empty(2, 2, dtype=T.int64, device='meta'), 1.0)",
    "M.masked_fill(M > 0, 0.0)", "M.index_add(0, T.zeros(2, dtype=T.int64, device='meta'), M)",
    "M.__setitem__(0, 1.0)", "M.__setitem__((0, 1), M1)", "M.__setitem__(T.tensor([0, 1]), 1.0)",
    "M.index_select(0, T.tensor([0, 1]))", "T.gather(M, 0, T.zeros(2, 3, dtype=T.int64))",
    "M.index_add(0, T.tensor([0, 1]), M)",
    # data-dependent shapes
    "T.nonzero(M)", "M.nonzero()", "M[M > 0]", "T.masked_select(M, M > 0)", "T.unique(M)",
    "T.where(M > 0)", "T.argwhere(M)", "T.bincount(T.empty(3, dtype=T.int64, device='meta'))",
    "T.repeat_interleave(T.empty(3, dtype=T.int64, device='meta'))",
    "T.repeat_interleave(M, 2, dim=0)", "T.nn.functional.one_hot(MI.abs(), 5)",
    # random draws with tensor parameters
    "T.bernoulli(M)", "T.normal(M, 1.0)", "M.bernoulli_(0.3)", "T.poisson(M)",
    "T.multinomial(M, 2)", "T.multinomial(M[0], 5, replacement=True)", "T.multinomial(M, 4)",
    "T.poisson(MI)",
    # sort family
    "T.sort(M, 1)", "M.argsort(0)", "M.topk(2)", "M.topk(2, dim=0)", "M.kthvalue(2)",
    "M.median(1)", "M.median()", "M.nanmedian(0, keepdim=True)", "M.mode(1)", "M.cummax(1)",
    "M.cummin(0)", "T.quantile(M, 0.5, dim=1)", "T.quantile(M, T.tensor([0.25, 0.75]))",
    "T.searchsorted(T.empty(5, device='meta'), M)", "T.histc(M, 10)", "M.msort()",
    "T.unique_consecutive(M)",
    # linalg
    "T.linalg.inv(T.empty(3, 3, device='meta'))", "T.linalg.inv(T.empty(2, 3, 3, device='meta'))",
    "T.linalg.inv(M)", "T.linalg.det(T.empty(2, 3, 3, device='meta'))",
    "T.linalg.slogdet(T.empty(3, 3, device='meta'))", "T.logdet(T.empty(3, 3, device='meta'))",
    "T.linalg.solve(T.empty(3, 3, device='meta'), T.empty(3, 2, device='meta'))",
    "T.linalg.solve(T.empty(3, 3, device='meta'), T.empty(3, device='meta'))",
    "T.linalg.qr(T.empty(4, 3, device='meta'))", "T.linalg.qr(T.empty(4, 3, device='meta'), 'complete')",
    "T.linalg.lu_factor(T.empty(3, 3, device='meta'))", "T.linalg.lu(T.empty(4, 3, device='meta'))",
    "T.linalg.solve_triangular(T.empty(3, 3, device='meta'), T.empty(3, 2, device='meta'), upper=True)",
    "T.linalg.cross(T.empty(2, 3, device='meta'), T.empty(2, 3, device='meta'))",
    "T.trace(T.empty(3, 3, device='meta'))", "T.kron(M, M)",
    "T.tensordot(M, T.empty(3, 4, device='meta'), 1)", "T.linalg.svd(T.empty(4, 3, device='meta'))",
    # the spectral decompositions and what is made of them
    "T.linalg.svd(T.empty(2, 3, 5, device='meta'), full_matrices=False)",
    "T.linalg.svd(T.empty(3, 4, device='meta', dtype=T.complex64))",
    "T.linalg.svdvals(T.empty(5, 4, device='meta', dtype=T.float64))", "T.svd(T.empty(3, 4, device='meta'))",
    "T.linalg.eigh(T.empty(2, 3, 3, device='meta'))", "T.linalg.eigvalsh(T.empty(3, 3, device='meta', dtype=T.complex128))",
    "T.linalg.eig(T.empty(3, 3, device='meta'))", "T.linalg.eigvals(T.empty(2, 3, 3, device='meta', dtype=T.float64))",
    "T.linalg.eigh(T.empty(3, 4, device='meta'))", "T.linalg.svd(T.empty(3, device='meta'))",
    "T.linalg.matrix_rank(T.empty(2, 3, 4, device='meta'))", "T.linalg.matrix_rank(T.empty(3, 3, device='meta'), hermitian=True)",
    "T.linalg.pinv(T.empty(3, 4, device='meta'))", "T.linalg.pinv(T.empty(3, 3, device='meta'), hermitian=True)",
    "T.linalg.matrix_norm(T.empty(3, 4, device='meta'), ord=2)", "T.linalg.matrix_norm(T.empty(3, 4, device='meta'), ord='nuc')",
    "T.linalg.cond(T.empty(3, 3, device='meta'))",
    "T.linalg.ldl_factor(T.empty(2, 3, 3, device='meta'))", "T.linalg.ldl_factor_ex(T.empty(3, 3, device='meta'))",
    "T.linalg.ldl_solve(T.empty(3, 3, device='meta'), T.empty(3, dtype=T.int32, device='meta'), T.empty(3, 2, device='meta'))",
    "T.linalg.lstsq(T.empty(5, 3, device='meta'), T.empty(5, 2, device='meta'))",
    # nn
    "T.nn.functional.linear(M, T.empty(4, 3, device='meta'), T.empty(4, device='meta'))",
    "T.nn.functional.relu(M)", "T.nn.functional.gelu(M)", "T.softmax(M, 1)",
    "T.log_softmax(M, 0)", "T.nn.functional.dropout(M, 0.5)",
    "T.nn.functional.conv2d(T.empty(1, 3, 8, 8, device='meta'), T.empty(4, 3, 3, 3, device='meta'))",
    "T.nn.functional.conv2d(T.empty(1, 3, 8, 8, device='meta'), T.empty(4, 3, 3, 3, device='meta'), stride=2, padding=1)",
    "T.nn.functional.max_pool2d(T.empty(1, 3, 8, 8, device='meta'), 2)",
    "T.nn.functional.avg_pool2d(T.empty(1, 3, 8, 8, device='meta'), 2)",
    "T.nn.functional.layer_norm(M, (3,))",
    "T.nn.functional.batch_norm(T.empty(4, 3, device='meta'), None, None, training=True)",
    "T.nn.functional.embedding(T.empty(2, 5, dtype=T.int64, device='meta'), T.empty(10, 3, device='meta'))",
    "T.nn.functional.cross_entropy(M, T.empty(2, dtype=T.int64, device='meta'))",
    "T.nn.functional.mse_loss(M, M)", "T.nn.LSTM(3, 4, device='meta')(T.empty(5, 2, 3, device='meta'))",
    "T.nn.GRU(3, 4, batch_first=True, device='meta')(T.empty(2, 5, 3, device='meta'))",
    "T.nn.MultiheadAttention(8, 2, device='meta')(*[T.empty(3, 2, 8, device='meta')] * 3)",
    "T.nn.functional.scaled_dot_product_attention(*[T.empty(2, 4, 8, device='meta')] * 3)",
    "T.nn.functional.scaled_dot_product_attention(*[T.empty(2, 4, 8, device='meta')] * 3, dropout_p=0.5)",
    "T.nn.TransformerEncoderLayer(8, 2, 16, device='meta')(T.empty(3, 2, 8, device='meta'))",
    "T.nn.functional.embedding_bag(T.empty(2, 3, dtype=T.int64, device='meta'), T.empty(10, 4, device='meta'))",
    "T.nn.functional.embedding_bag(T.empty(7, dtype=T.int64, device='meta'), T.empty(10, 3, device='meta'), T.empty(3, dtype=T.int64, device='meta'), mode='max')",
    "T.nn.functional.embedding_bag(T.empty(7, dtype=T.int64, device='meta'), T.empty(10, 3, device='meta'), T.empty(3, dtype=T.int64, device='meta'), include_last_offset=True)",
    "T.nn.functional.embedding_bag(T.empty(7, dtype=T.int64, device='meta'), T.empty(10, 3, device='meta'), T.empty(3, dtype=T.int64, device='meta'), per_sample_weights=T.empty(7, device='meta'), mode='sum')",
    "T.nn.EmbeddingBag(10, 3, mode='mean', device='meta')(T.empty(2, 4, dtype=T.int64, device='meta'))",
    "T.nn.functional.ctc_loss(T.empty(5, 2, 4, device='meta'), T.empty(2, 3, dtype=T.int64, device='meta'), T.tensor([5, 5]), T.tensor([3, 2]))",
    "T.nn.functional.interpolate(T.empty(1, 3, 4, 4, device='meta'), scale_factor=2)",
    "T.nn.functional.group_norm(T.empty(2, 4, 5, device='meta'), 2)",
    "T.nn.functional.conv_transpose2d(T.empty(1, 3, 5, 5, device='meta'), T.empty(3, 4, 3, 3, device='meta'))",
    "T.nn.functional.max_pool2d(T.empty(1, 3, 8, 8, device='meta'), 2, return_indices=True)",
    "T.nn.functional.adaptive_avg_pool2d(T.empty(1, 3, 8, 8, device='meta'), 1)", "T.nn.functional.nll_loss(M, T.empty(2, dtype=T.int64, device='meta'))",
    "T.nn.functional.grid_sample(T.empty(1, 3, 4, 4, device='meta'), T.empty(1, 5, 5, 2, device='meta'), align_corners=False)",
    "T.nn.functional.affine_grid(T.empty(1, 2, 3, device='meta'), (1, 3, 4, 4), align_corners=False)",
    "T.nn.functional.multi_margin_loss(M, T.empty(2, dtype=T.int64, device='meta'))",
    "T.nn.functional.binary_cross_entropy(M, M)", "T.nn.functional.kl_div(M, M, reduction='batchmean')",
    "T.cdist(T.empty(4, 3, device='meta'), T.empty(5, 3, device='meta'))",
    "T.nn.functional.unfold(T.empty(1, 3, 4, 4, device='meta'), 2)",
    "T.nn.functional.pixel_shuffle(T.empty(1, 4, 3, 3, device='meta'), 2)",
    # FFTs
    "T.fft.fft(M)", "T.fft.fft(M, dim=0)", "T.fft.rfft(M)", "T.fft.irfft(M)",
    "T.fft.fft2(T.empty(2, 4, 5, device='meta'))",
    # dtypes
    "M.half() @ T.empty(3, 2, device='meta', dtype=T.float16)",
    "T.empty(2, 2, dtype=T.complex64, device='meta') @ T.empty(2, 2, dtype=T.complex64, device='meta')",
    "M.to(T.float8_e4m3fn)", "M.bfloat16().sum(0)",
    # autograd
    "_backward(T)", *[f"_grad(T, '{name}')" for name in (
        "layer_norm", "conv2d", "lstm", "cross_entropy", "embedding", "attention", "index",
        "sort", "inv", "max")],
    # optimizers and clipping on meta parameters
    *[f"_step(T, '{name}')" for name in ("SGD", "Adam", "AdamW", "RMSprop")],
    "T.nn.utils.clip_grad_norm_([_with_grad(T)], 1.0)",
    # pickling and checkpoints keep the metadata only; other host-side uses
    "_pickled(T, M.t())", "_pickled(T, T.nn.Parameter(M))", "_saved(T, {'w': M.t(), 'n': MI})",
    "_saved(T, T.nn.Linear(2, 3, device='meta').state_dict())",
    "M.get_device()", "M.type()", "M.share_memory_()", "T.testing.assert_close(M, M)",
    "T.testing.assert_close(M, M.double())", "T.nn.Linear(2, 3, device='meta').to('cpu')",
    "T.nn.Linear(2, 3).to('meta').weight", "f'{M1.reshape(())}'", "M.is_shared()",
]


def _pickled(T, t):
    import pickle
    return pickle.loads(pickle.dumps(t))


def _saved(T, obj):
    import io
    buf = io.BytesIO()
    T.save(obj, buf)
    buf.seek(0)
    return list(T.load(buf).values()) if isinstance(obj, dict) else T.load(buf)


def _grad(T, name):
    """The gradient backward gives a meta leaf through one op."""
    F = T.nn.functional
    x = T.empty(3, 4, device="meta", requires_grad=True)
    if name == "conv2d":
        x = T.empty(4, 3, 3, 3, device="meta", requires_grad=True)
        out = F.conv2d(T.empty(1, 3, 8, 8, device="meta"), x)
    elif name == "lstm":
        m = T.nn.LSTM(4, 5, device="meta")
        x = m.weight_hh_l0
        out = m(T.empty(6, 2, 4, device="meta"))[0]
    elif name == "attention":
        x = T.empty(2, 5, 8, device="meta", requires_grad=True)
        out = F.scaled_dot_product_attention(x, x, x)
    elif name == "embedding":
        out = F.embedding(T.empty(7, dtype=T.int64, device="meta"), x)
    elif name == "inv":
        x = T.empty(2, 4, 4, device="meta", requires_grad=True)
        out = T.linalg.inv(x)
    else:
        out = {"layer_norm": lambda: F.layer_norm(x, (4,)),
               "cross_entropy": lambda: F.cross_entropy(x, T.empty(3, dtype=T.int64,
                                                                   device="meta")),
               "index": lambda: x[T.tensor([0, 2, 2])],
               "sort": lambda: x.sort(1)[0], "max": lambda: x.max(1)[0]}[name]()
    out.sum().backward()
    return x.grad


def _with_grad(T):
    p = T.nn.Parameter(T.empty(2, 3, device="meta"))
    p.grad = T.empty(2, 3, device="meta")
    return p


def _step(T, name):
    """One optimizer step on meta parameters: they stay meta tensors."""
    p = _with_grad(T)
    opt = getattr(T.optim, name)([p], lr=0.1)
    opt.step()
    return [p, sorted(opt.state[p])]


def _backward(T):
    """Forward records on meta tensors; backward gives meta gradients."""
    w = T.empty(3, 4, device="meta", requires_grad=True)
    x = T.empty(2, 3, device="meta")
    loss = (x @ w).relu().sum()
    loss.backward()
    return [loss, w.grad, loss.grad_fn is not None]


def inputs(T):
    return {"M": T.empty(2, 3, device="meta"), "M1": T.empty(1, device="meta"),
            "MI": T.empty(2, 3, dtype=T.int64, device="meta"),
            "C": T.arange(6.0).reshape(2, 3), "_backward": _backward, "_grad": _grad,
            "_step": _step, "_with_grad": _with_grad, "_pickled": _pickled, "_saved": _saved}


def describe(r):
    """A tensor by its place and layout (meta tensors have no values); a
    sequence by its items; anything else by its value or repr."""
    if hasattr(r, "untyped_storage") and hasattr(r, "stride"):
        return ["tensor", r.device.type, list(r.shape), str(r.dtype).split(".")[-1],
                list(r.stride()), r.requires_grad]
    if isinstance(r, (tuple, list)):
        return ["list", [describe(x) for x in r]]
    if r is None or isinstance(r, (bool, int, float, str)):
        return ["value", r.replace("torchlike.", "torch.") if isinstance(r, str) else r]
    return ["repr", repr(r).replace("torchlike.", "torch.")]


def main():
    record(CALLS, lambda T: {"T": T, **inputs(T)}, describe, "meta", messages=True)
    # a checkpoint of meta tensors as PyTorch writes it, for test_meta.py to load
    import os
    import torch
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests",
                        "golden", "meta_checkpoint.pt")
    torch.save({"w": torch.empty(2, 3, device="meta").t(),
                "p": torch.nn.Parameter(torch.empty(4, device="meta", dtype=torch.float64)),
                "i": torch.empty(5, dtype=torch.int64, device="meta")}, path)


if __name__ == "__main__":
    main()
