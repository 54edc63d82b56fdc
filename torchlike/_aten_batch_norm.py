"""The batch-norm primitives SyncBatchNorm is made of, at torch's top level:
batch_norm_stats, batch_norm_gather_stats(_with_counts), batch_norm_elemt,
batch_norm_backward_reduce, batch_norm_backward_elemt and
batch_norm_update_stats; and _native_batch_norm_legit(_no_training), the
export forms of native_batch_norm.  Composed of torchlike's ops, so they run
on any device and are differentiable.

PyTorch implements the first six only for CUDA (on CPU they raise
NotImplementedError "Could not run 'aten::batch_norm_stats' with arguments
from the 'CPU' backend"); torchlike gives their mathematical result on every
device.  Legend: x is (N, C, *), per-channel statistics are (C,), W is the
number of ranks whose statistics are gathered (rows of (W, C) tensors),
``n`` the total count per channel; invstd = 1 / sqrt(biased var + eps)."""
from . import _C
from ._composites import _dtype_name, _need_tensor
from .autograd.grad_mode import no_grad

__all__ = ["batch_norm_stats", "batch_norm_gather_stats", "batch_norm_gather_stats_with_counts",
           "batch_norm_elemt", "batch_norm_backward_reduce", "batch_norm_backward_elemt",
           "batch_norm_update_stats", "_native_batch_norm_legit",
           "_native_batch_norm_legit_no_training"]


def _channel_dims(name, x):
    """The dims reduced per channel (all but 1) and the shape that broadcasts
    a (C,) tensor against x."""
    _need_tensor(name, "input", x, 1)
    if x.ndim < 2:
        raise IndexError(f"Dimension out of range (expected to be in range of "
                         f"[{-max(x.ndim, 1)}, {max(x.ndim, 1) - 1}], but got 1)")
    if not x.is_floating_point():
        raise NotImplementedError(f"\"{name}\" not implemented for '{_dtype_name(x.dtype)}'")
    return [0] + list(range(2, x.ndim)), (1, x.shape[1]) + (1,) * (x.ndim - 2)


_REDUCED = (_C.float16, _C.bfloat16)


def _opmath(x):
    """x in the dtype statistics are taken in: float32 for float16/bfloat16."""
    return x.float() if x.dtype in _REDUCED else x


def batch_norm_stats(input, eps):
    """(mean, invstd), each (C,): this rank's batch statistics, float32 for
    float16/bfloat16 input (as PyTorch's CUDA kernel)."""
    dims, _ = _channel_dims("batch_norm_stats", input)
    x = _opmath(input)
    mean = x.mean(dims)
    var = x.var(dims, correction=0)
    return mean, (var + eps).rsqrt()


def batch_norm_gather_stats_with_counts(input, mean, invstd, running_mean, running_var, momentum,
                                        eps, counts):
    """(mean, invstd) of the whole batch from W ranks' (W, C) means and
    invstds and their (W,) counts (Chan's merge: M2 = sum over ranks of
    count * (var + (mean_r - mean)^2)); running_mean and running_var (when
    given) move by momentum towards the mean and the unbiased variance.
    The results are in mean's dtype; ranks with count 0 are left out."""
    _need_tensor("batch_norm_gather_stats_with_counts", "input", input, 1)
    for position, (n, t) in enumerate((("mean", mean), ("invstd", invstd)), 2):
        _need_tensor("batch_norm_gather_stats_with_counts", n, t, position)
    _need_tensor("batch_norm_gather_stats_with_counts", "counts", counts, 8)
    if mean.ndim != 2 or invstd.shape != mean.shape or counts.numel() != mean.shape[0]:
        raise RuntimeError(f"batch_norm_gather_stats_with_counts: expected mean and invstd of "
                           f"shape (W, C) and W counts, got mean {list(mean.shape)}, invstd "
                           f"{list(invstd.shape)}, counts {list(counts.shape)}")
    for t in (running_mean, running_var):
        if t is not None and t.shape != (mean.shape[1],):
            raise RuntimeError(f"batch_norm_gather_stats_with_counts: expected running "
                               f"statistics of shape [{mean.shape[1]}], got {list(t.shape)}")
    c = counts.reshape(-1, 1).to(mean.dtype)                                    # (W, 1)
    n = c.sum()
    mean_all = (c * mean).sum(0) / n                                            # (C,)
    # a rank without rows has no statistics: its invstd may be anything
    var_r = _C.where(c > 0, invstd.reciprocal() ** 2 - eps, _C.zeros_like(invstd))
    dev = _C.where(c > 0, (mean - mean_all) ** 2, _C.zeros_like(mean))
    var = (c * (var_r + dev)).sum(0) / n                                        # (C,)
    with no_grad():
        if running_mean is not None:
            running_mean.mul_(1 - momentum).add_(mean_all.to(running_mean.dtype) * momentum)
        if running_var is not None:
            unbiased = var * n / (n - 1)
            running_var.mul_(1 - momentum).add_(unbiased.to(running_var.dtype) * momentum)
    return mean_all, (var + eps).rsqrt()


def batch_norm_gather_stats(input, mean, invstd, running_mean, running_var, momentum, eps, count):
    """batch_norm_gather_stats_with_counts with every rank counting ``count``
    rows."""
    _need_tensor("batch_norm_gather_stats", "mean", mean, 2)
    counts = _C.full((mean.shape[0] if mean.ndim else 1,), float(count), dtype=mean.dtype,
                     device=mean.device)
    return batch_norm_gather_stats_with_counts(input, mean, invstd, running_mean, running_var,
                                               momentum, eps, counts)


def batch_norm_elemt(input, weight, bias, mean, invstd, eps, *, out=None):
    """(input - mean) * invstd * weight + bias, per channel (eps unused:
    invstd already holds it)."""
    _, shape = _channel_dims("batch_norm_elemt", input)
    y = (input - mean.reshape(shape)) * invstd.reshape(shape)
    if weight is not None:
        y = y * weight.reshape(shape)
    if bias is not None:
        y = y + bias.reshape(shape)
    if out is not None:
        out.resize_(y.shape).copy_(y)
        return out
    return y


def batch_norm_backward_reduce(grad_out, input, mean, invstd, weight, input_g, weight_g, bias_g):
    """(sum_dy, sum_dy_xmu, grad_weight, grad_bias), each (C,): this rank's
    sums of dy and dy * (x - mean) (when input_g), the weight gradient
    sum_dy_xmu * invstd (weight_g) and the bias gradient sum_dy (bias_g);
    None for those not asked for."""
    dims, shape = _channel_dims("batch_norm_backward_reduce", input)
    _need_tensor("batch_norm_backward_reduce", "grad_out", grad_out, 1)
    if grad_out.shape != input.shape:
        raise RuntimeError(f"batch_norm_backward_reduce: grad_out's shape {list(grad_out.shape)} "
                           f"differs from input's {list(input.shape)}")
    sum_dy = grad_out.sum(dims)
    sum_dy_xmu = (grad_out * (input - mean.reshape(shape))).sum(dims)
    return (sum_dy if input_g else None, sum_dy_xmu if input_g else None,
            sum_dy_xmu * invstd if weight_g else None, sum_dy if bias_g else None)


def batch_norm_backward_elemt(grad_out, input, mean, invstd, weight, sum_dy, sum_dy_xmu, count):
    """The input gradient given the whole batch's sums (all-reduced
    batch_norm_backward_reduce results) and every rank's row count:
    (dy - sum_dy / n - (x - mean) invstd^2 sum_dy_xmu / n) invstd weight,
    n = count.sum()."""
    _, shape = _channel_dims("batch_norm_backward_elemt", input)
    _need_tensor("batch_norm_backward_elemt", "count", count, 8)
    n = count.to(_C.float64).sum().item()
    r = lambda t: t.reshape(shape)  # noqa: E731
    scale = invstd if weight is None else invstd * weight
    return (grad_out - r(sum_dy) / n - (input - r(mean)) * r(invstd ** 2 * sum_dy_xmu) / n) \
        * r(scale)


def _mixed_ok(x, t):
    """PyTorch's CPU rule for statistics beside the input: the input's dtype,
    or float32 beside a float16/bfloat16 input."""
    return t is None or t.dtype == x.dtype or (t.dtype == _C.float32 and x.dtype in _REDUCED)


def batch_norm_update_stats(input, running_mean, running_var, momentum):
    """(mean, biased var), each (C,), of input's batch; running_mean and
    running_var (when given) move by momentum towards the mean and the
    unbiased variance, in place.  float16/bfloat16 input is reduced in
    float32; the results are float32 beside float32 running statistics,
    else in input's dtype (as PyTorch's CPU kernel)."""
    dims, _ = _channel_dims("batch_norm_update_stats_cpu", input)
    for t in (running_mean, running_var):
        if not _mixed_ok(input, t):
            raise RuntimeError(f"mixed dtype (CPU): expect parameter to have scalar type of "
                               f"{_dtype_name(_opmath(input[:0]).dtype)}")
        # PyTorch does not check this (and writes past the end on CPU)
        if t is not None and t.shape != (input.shape[1],):
            raise RuntimeError(f"batch_norm_update_stats: expected running statistics of shape "
                               f"[{input.shape[1]}] for input {list(input.shape)}, got "
                               f"{list(t.shape)}")
    given = running_mean if running_mean is not None else running_var
    out_dtype = given.dtype if given is not None else input.dtype
    with no_grad():
        x = _opmath(input)
        mean = x.mean(dims)
        var = x.var(dims, correction=0)
        n = input.numel() // input.shape[1] if input.shape[1] else 0
        if running_mean is not None:
            running_mean.mul_(1 - momentum).add_((mean * momentum).to(running_mean.dtype))
        if running_var is not None:
            unbiased = var * (n / (n - 1)) if n > 1 else var
            running_var.mul_(1 - momentum).add_((unbiased * momentum).to(running_var.dtype))
    return mean.to(out_dtype), var.to(out_dtype)


def _native_batch_norm_legit(input, weight, bias, *args):
    """native_batch_norm as (input, weight, bias, running_mean, running_var,
    training, momentum, eps), or without running statistics as (input,
    weight, bias, training, momentum, eps): (output, save_mean,
    save_invstd); not training, the saved statistics are empty."""
    if len(args) == 5:
        running_mean, running_var, training, momentum, eps = args
    elif len(args) == 3:
        running_mean = running_var = None
        training, momentum, eps = args
        if not training:
            raise ValueError("running_mean must be defined in evaluation mode")
    else:
        raise TypeError(f"_native_batch_norm_legit() takes 8 arguments (input, weight, bias, "
                        f"running_mean, running_var, training, momentum, eps) or 6 (input, "
                        f"weight, bias, training, momentum, eps); got {3 + len(args)}")
    out = _C.native_batch_norm(input, weight, bias, running_mean, running_var, training,
                               momentum, eps)
    if training:
        if input.dtype not in _REDUCED:
            return out
        # float16/bfloat16 input: statistics taken in float32, saved in the
        # running statistics' dtype (float32 beside float32 ones), as PyTorch
        dims, _ = _channel_dims("_native_batch_norm_legit", input)
        x = _opmath(input.detach())
        keep = running_mean.dtype if running_mean is not None else input.dtype
        return (out[0], x.mean(dims).to(keep),
                (x.var(dims, correction=0) + eps).rsqrt().to(keep))
    empty = _C.empty((0,), dtype=out[1].dtype, device=input.device)
    return out[0], empty, empty.clone()


def _native_batch_norm_legit_no_training(input, weight, bias, running_mean, running_var,
                                         momentum, eps):
    """Batch norm with the running statistics: (output, empty, empty)."""
    return _native_batch_norm_legit(input, weight, bias, running_mean, running_var, False,
                                    momentum, eps)
