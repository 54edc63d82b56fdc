"""Batch normalisation whose statistics are those of the whole batch spread
over the ranks of a process group (SyncBatchNorm's training forward).

Forward: each rank takes its per-channel count, mean and sum of squared
deviations (M2), all-gathers them and merges them (Chan's formula: the
global mean, and M2 = sum of local M2 + count (local mean - mean)^2), so
every rank normalises with the same mean and biased variance.  Backward:
the per-channel sums of dy and dy * (x - mean) are all-reduced, giving each
rank its rows of the whole-batch input gradient; the weight and bias
gradients stay local sums (DistributedDataParallel averages them), as in
PyTorch.  Legend: x is (N, C, *), statistics are (C,), ``n`` the global count
per channel."""
from ... import _C
from ...autograd.function import Function


def _stat_shape(x):
    return (1, x.shape[1]) + (1,) * (x.ndim - 2)


def _reduce_dims(x):
    return [0] + list(range(2, x.ndim))


class SyncBatchNormFunction(Function):
    @staticmethod
    def forward(ctx, x, weight, bias, eps, pg):
        from ... import distributed as dist
        dims = _reduce_dims(x)
        C = x.shape[1]
        count = x.numel() // C if C else 0
        mean_l = x.mean(dims) if count else _C.zeros((C,), dtype=x.dtype)       # (C,)
        m2_l = ((x - mean_l.reshape(_stat_shape(x))) ** 2).sum(dims)           # (C,)
        mine = _C.cat([mean_l, m2_l, _C.full((1,), float(count), dtype=x.dtype)])
        every = _C.zeros((pg.size(), 2 * C + 1), dtype=x.dtype)
        dist.all_gather_into_tensor(every, mine, group=pg)
        counts = every[:, 2 * C:2 * C + 1]                                      # (P, 1)
        n = float(counts.sum())
        if n <= 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got "
                             f"{int(n)} over the process group")
        means = every[:, :C]
        mean = (means * counts).sum(0) / n                                      # (C,)
        m2 = (every[:, C:2 * C] + counts * (means - mean) ** 2).sum(0)          # (C,)
        invstd = 1.0 / (m2 / n + eps).sqrt()
        shape = _stat_shape(x)
        xhat = (x - mean.reshape(shape)) * invstd.reshape(shape)
        y = xhat
        if weight is not None:
            y = y * weight.reshape(shape)
        if bias is not None:
            y = y + bias.reshape(shape)
        ctx.save_for_backward(x, weight, mean, invstd)
        ctx.n, ctx.pg = n, pg
        ctx.has_bias = bias is not None
        return y, mean, m2 / (n - 1)

    @staticmethod
    def backward(ctx, dy, _dmean, _dvar):
        from ... import distributed as dist
        x, weight, mean, invstd = ctx.saved_tensors
        dims, shape = _reduce_dims(x), _stat_shape(x)
        xmu = x - mean.reshape(shape)
        sum_dy = dy.sum(dims)                                                   # (C,)
        sum_dy_xmu = (dy * xmu).sum(dims)                                       # (C,)
        grad_weight = (sum_dy_xmu * invstd) if weight is not None else None
        grad_bias = sum_dy.clone() if ctx.has_bias else None
        both = _C.cat([sum_dy, sum_dy_xmu])
        dist.all_reduce(both, group=ctx.pg)
        C = x.shape[1]
        g_dy, g_dy_xmu = both[:C] / ctx.n, both[C:] / ctx.n
        scale = invstd if weight is None else invstd * weight
        dx = (dy - g_dy.reshape(shape) - xmu * (invstd ** 2 * g_dy_xmu).reshape(shape)) \
            * scale.reshape(shape)
        return dx, grad_weight, grad_bias, None, None
