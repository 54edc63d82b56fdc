"""Top-level functions PyTorch exposes as ATen's functional forms, composed
of torchlike's existing ops: binomial (its checks; the draws are the C
sampler's, random_samplers.c), segment_reduce,
embedding_bag, constant_pad_nd, the deprecated frobenius_norm /
nuclear_norm, empty_permuted, set_flush_denormal, the RNN cell functions,
grid_sampler_2d / grid_sampler_3d and native_channel_shuffle.

Each checks its arguments with PyTorch's words and then calls the op that
already does the maths (the nn modules' fused cells, grid_sampler,
scatter_reduce ...), so gradients and devices come from those ops."""
import math
import warnings

from . import _C
from ._composites import _dtype_name, _need_tensor
from .nn import functional as F

__all__ = ["binomial", "segment_reduce", "embedding_bag", "constant_pad_nd", "frobenius_norm",
           "nuclear_norm", "empty_permuted", "set_flush_denormal", "rnn_tanh_cell",
           "rnn_relu_cell", "lstm_cell", "gru_cell", "grid_sampler_2d", "grid_sampler_3d",
           "native_channel_shuffle"]


# ---- binomial ----------------------------------------------------------------

def binomial(count, prob, generator=None):
    """Draws of Binomial(count, prob), elementwise (count and prob
    broadcast), in count's floating dtype; count is truncated to an integer
    and counts below zero give 0, prob is clamped to [0, 1] and a NaN prob
    gives NaN.  Not differentiable: as PyTorch's, a draw from parameters that
    require grad has a NotImplemented node whose backward raises."""
    _need_tensor("binomial", "count", count, 1)
    _need_tensor("binomial", "prob", prob, 2)
    if not count.is_floating_point():
        raise ValueError(f"binomial only supports floating-point dtypes for count, got: "
                         f"{_dtype_name(count.dtype)}")
    if prob.dtype != count.dtype:
        raise RuntimeError(f"Found dtype {_dtype_name(prob.dtype)} but expected "
                           f"{_dtype_name(count.dtype)}")
    if count.dtype in (_C.float16, _C.bfloat16):
        raise NotImplementedError(f"\"binomial_cpu\" not implemented for "
                                  f"'{_dtype_name(count.dtype)}'")
    return _C._binomial(count, prob, generator)


# ---- segment_reduce ------------------------------------------------------------

_SEGMENT_REDUCE = {"sum": "sum", "prod": "prod", "mean": "mean", "max": "amax", "amax": "amax",
                   "min": "amin", "amin": "amin"}
_EMPTY = {"sum": 0.0, "prod": 1.0, "amax": -math.inf, "amin": math.inf}


def segment_reduce(data, reduce, *, lengths=None, indices=None, offsets=None, axis=0,
                   unsafe=False, initial=None):
    """Reduce consecutive segments of ``data`` along ``axis``: segment j of
    each row holds lengths[..., j] elements (or offsets[..., j] to
    offsets[..., j + 1]).  lengths / offsets have data's leading dimensions
    up to axis.  Empty segments give ``initial`` if given, else the
    reduction's identity (0, 1, -inf, inf; NaN for mean); with ``initial``
    every segment starts from it (mean: (initial + sum) / length).
    Differentiable in data (through scatter_reduce)."""
    _need_tensor("segment_reduce", "data", data, 1)
    if reduce not in _SEGMENT_REDUCE:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, "
                           f"got {reduce}")
    if indices is not None:
        raise RuntimeError("segment_reduce(): indices based reduction is not supported yet.")
    if lengths is None and offsets is None:
        raise RuntimeError("segment_reduce(): Either lengths or offsets must be defined.")
    if not data.is_floating_point():
        raise NotImplementedError(f"\"_segment_reduce_cpu\" not implemented for "
                                  f"'{_dtype_name(data.dtype)}'")
    axis = axis + data.ndim if axis < 0 else axis
    if lengths is None:
        if offsets.is_floating_point():
            raise NotImplementedError(f"\"_segment_reduce_offsets_cpu_kernel1\" not implemented "
                                      f"for '{_dtype_name(offsets.dtype)}'")
        lengths = offsets.narrow(-1, 1, offsets.shape[-1] - 1) - \
            offsets.narrow(-1, 0, offsets.shape[-1] - 1)
    elif lengths.is_floating_point() or lengths.dtype == _C.bool:
        raise NotImplementedError(f"\"_segment_reduce_lengths_cpu_kernel1\" not implemented for "
                                  f"'{_dtype_name(lengths.dtype)}'")
    if axis != lengths.ndim - 1:
        raise RuntimeError(f"segment_reduce(): Expected axis to be the last dimension of "
                           f"lengths but got {axis}.")
    lengths = lengths.to(_C.int64)
    if not unsafe:
        if bool((lengths < 0).any()):
            raise RuntimeError("lengths contains negative value!")
        if bool((lengths.sum(-1) != data.shape[axis]).any()):
            raise RuntimeError(f"segment_reduce(): Expected all rows of lengths along axis to "
                               f"sum to data.size(lengths.dim()-1) when !unsafe.")
    op = _SEGMENT_REDUCE[reduce]
    S, L = lengths.shape[-1], data.shape[axis]
    # segment id of each position: how many segment ends lie at or before it;
    # positions past the last segment (unsafe) land in a spare slot S
    ends = _C.cumsum(lengths, -1)
    pos = _C.arange(L, device=data.device).expand(tuple(lengths.shape[:-1]) + (L,))
    ids = _C.clamp(_C.searchsorted(ends.contiguous(), pos.contiguous(), right=True), max=S)
    trailing = tuple(data.shape[axis + 1:])
    index = ids.reshape(tuple(ids.shape) + (1,) * len(trailing)).expand(tuple(data.shape))
    out_shape = tuple(data.shape[:axis]) + (S + 1,) + trailing
    if op == "mean":
        counts = lengths.to(data.dtype).reshape(tuple(lengths.shape) + (1,) * len(trailing))
        total = _C.zeros(out_shape, dtype=data.dtype, device=data.device).scatter_reduce(
            axis, index, data, "sum").narrow(axis, 0, S)
        if initial is not None:
            total = total + initial
            return _C.where(counts == 0, _C.full_like(total, initial), total / counts)
        return total / counts
    fill = _EMPTY[op] if initial is None else initial
    start = _C.full(out_shape, fill, dtype=data.dtype, device=data.device)
    return start.scatter_reduce(axis, index, data, op, include_self=True).narrow(axis, 0, S)


# ---- embedding_bag -------------------------------------------------------------

_BAG_MODES = {0: "sum", 1: "mean", 2: "max"}


def embedding_bag(weight, indices, offsets, scale_grad_by_freq=False, mode=0, sparse=False,
                  per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """ATen's embedding_bag: (output, offset2bag, bag_size, max_indices).
    output is F.embedding_bag's (mode 0 sum, 1 mean, 2 max); offset2bag is
    the bag of each index, bag_size the number of (non-padding) indices in
    each bag, max_indices the row chosen by max (mode 2, (B, D)) and
    otherwise bag_size again.  PyTorch's CPU fast path for sums returns an
    empty offset2bag and zero bag_size / max_indices; these auxiliary
    results serve its backward and are not part of the documented API."""
    if mode not in _BAG_MODES:
        raise RuntimeError(f"embedding_bag: mode must be 0 (sum), 1 (mean) or 2 (max), got {mode}")
    if per_sample_weights is not None and mode != 0:
        raise RuntimeError("embedding_bag: per_sample_weights only supported with "
                                  "mode='sum'")
    output = F.embedding_bag(indices, weight, offsets, scale_grad_by_freq=scale_grad_by_freq,
                             mode=_BAG_MODES[mode], sparse=sparse,
                             per_sample_weights=per_sample_weights,
                             include_last_offset=include_last_offset, padding_idx=padding_idx)
    n_bags = output.shape[0]
    flat = indices.reshape(-1)
    if indices.ndim == 2:
        bag_of = _C.arange(indices.shape[0], device=flat.device).repeat_interleave(
            indices.shape[1])
    else:
        starts = offsets.to(_C.int64)
        pos = _C.arange(flat.shape[0], device=flat.device)
        bag_of = _C.searchsorted(starts.contiguous(), pos, right=True) - 1
    kept = _C.ones_like(flat, dtype=_C.int64) if padding_idx is None else \
        (flat != padding_idx).to(_C.int64)
    bag_size = _C.zeros(n_bags + 1, dtype=_C.int64, device=flat.device).index_add(
        0, _C.clamp(bag_of, max=n_bags), kept).narrow(0, 0, n_bags)
    if mode == 2:   # the first index attaining each bag's maximum, per column
        n, D = flat.shape[0], weight.shape[1]
        bag = _C.clamp(bag_of, max=n_bags).unsqueeze(1).expand(n, D)
        rows = weight.detach().index_select(0, flat)                          # (n, D)
        best = _C.full((n_bags + 1, D), -math.inf, dtype=weight.dtype, device=flat.device)
        best = best.scatter_reduce(0, bag, rows, "amax")                      # (B + 1, D)
        hit = rows == best.gather(0, bag)
        at = _C.where(hit, _C.arange(n, device=flat.device).unsqueeze(1).expand(n, D),
                      _C.full((n, D), n, dtype=_C.int64, device=flat.device))
        first = _C.full((n_bags + 1, D), n, dtype=_C.int64, device=flat.device)
        first = first.scatter_reduce(0, bag, at, "amin").narrow(0, 0, n_bags)  # (B, D)
        chosen = flat.index_select(0, _C.clamp(first, max=n - 1).reshape(-1)).reshape(
            first.shape) if n else first
        max_indices = _C.where(first < n, chosen, _C.zeros_like(first))
    else:
        max_indices = bag_size
    return output, bag_of, bag_size, max_indices


# ---- padding, norms, creation ----------------------------------------------------

def constant_pad_nd(input, pad, value=0):
    """Pad the last len(pad) // 2 dimensions with ``value`` (negative pads crop)."""
    _need_tensor("constant_pad_nd", "input", input, 1)
    pad = list(pad)
    if len(pad) % 2:
        raise RuntimeError(f"Length of pad must be even but instead it equals {len(pad)}")
    if len(pad) > 2 * input.ndim:
        raise RuntimeError(f"Length of pad should be no more than twice the number of dimensions "
                           f"of the input. Pad length is {len(pad)}while the input has "
                           f"{input.ndim}dimensions.")
    for i in range(len(pad) // 2):
        size = input.shape[input.ndim - 1 - i]
        if size + pad[2 * i] + pad[2 * i + 1] < 0 or size + min(pad[2 * i], 0) < 0 or \
                size + min(pad[2 * i + 1], 0) < 0:
            raise RuntimeError("narrow(): length must be non-negative.")
    return F.pad(input, pad, mode="constant", value=value)


def frobenius_norm(input, dim, keepdim=False):
    """Deprecated: ``linalg.vector_norm(input, 2, dim, keepdim)`` over at most two dims."""
    from .linalg import vector_norm
    warnings.warn("at::frobenius_norm is deprecated and it is just left for JIT compatibility. "
                  "It will be removed in a future PyTorch release. Please use "
                  "`linalg.vector_norm(A, 2., dim, keepdim)` instead", UserWarning, stacklevel=2)
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    if len(dims) > 2:
        raise RuntimeError(f"Expected at most 2 dimensions, but got {len(dims)} dimensions "
                           f"instead.")
    if not (input.is_floating_point() or input.is_complex()):
        raise NotImplementedError(f"norm(): input dtype should be either floating point or "
                                  f"complex. Got {_dtype_name(input.dtype)} instead.")
    return vector_norm(input, 2, dims, keepdim)


def nuclear_norm(input, dim=None, keepdim=False):
    """Deprecated: ``linalg.matrix_norm(input, 'nuc', dim, keepdim)``;
    ``nuclear_norm(input, keepdim)`` reduces the last two dimensions."""
    from .linalg import matrix_norm
    warnings.warn("at::nuclear_norm is deprecated and it is just left for JIT compatibility. "
                  "It will be removed in a future PyTorch release. Please use "
                  "`linalg.matrix_norm(A, 'nuc', dim, keepdim)` instead", UserWarning,
                  stacklevel=2)
    if isinstance(dim, bool):
        dim, keepdim = None, dim
    dims = (-2, -1) if dim is None else tuple(dim)
    _need_tensor("nuclear_norm", "input", input, 1)
    if input.ndim >= 2 and not (input.is_floating_point() or input.is_complex()):
        raise NotImplementedError(f"linalg.matrix_norm: Expected a floating point or complex "
                                  f"tensor as input. Got {_dtype_name(input.dtype)}")
    return matrix_norm(input, "nuc", dims, keepdim)


def empty_permuted(size, physical_layout, *, dtype=None, layout=None, device=None,
                   requires_grad=False, pin_memory=False):
    """An uninitialised tensor of shape ``size`` whose memory runs in the
    order ``physical_layout`` (outermost first): empty_permuted((N, C, H, W),
    (0, 2, 3, 1)) is channels-last."""
    size, order = tuple(size), tuple(physical_layout)
    if len(size) != len(order):
        raise RuntimeError(f"Number of dimensions in size does not match the length of the "
                           f"physical_layout; i.e. len(size) = {len(size)} is not equal to "
                           f"len(physical_layout) = {len(order)}")
    if sorted(order) != list(range(len(size))):
        raise RuntimeError("Duplicate dim not allowed" if len(set(order)) != len(order) else
                           f"Dimension out of range (got {order})")
    physical = _C.empty(tuple(size[d] for d in order), dtype=dtype, device=device,
                        pin_memory=pin_memory) if pin_memory else \
        _C.empty(tuple(size[d] for d in order), dtype=dtype, device=device)
    inverse = [0] * len(order)
    for i, d in enumerate(order):
        inverse[d] = i
    out = physical.permute(inverse)
    if requires_grad:
        out.requires_grad_(True)
    return out


def set_flush_denormal(mode):
    """Whether flushing denormals could be switched: always False here.

    Flush-to-zero lives in each thread's MXCSR register; torchlike's kernels
    run on a pool of worker threads that a switch on the calling thread
    would not reach, so threaded and unthreaded results would differ.  As
    PyTorch on a CPU without the feature, nothing changes and False is
    returned."""
    del mode
    return False


# ---- RNN cells -------------------------------------------------------------------

def _cell_checks(input, hx, w_ih, w_hh):
    from .nn.modules.rnn import _check_cell_shapes
    if input.ndim != 2:
        raise RuntimeError(f"Expected 2D input (batch x feature), but got {input.ndim}D input")
    _check_cell_shapes(input, hx, w_ih.shape[1], w_hh.shape[1])


def _rnn_cell(input, hx, w_ih, w_hh, b_ih, b_hh, relu):
    from .nn.modules.rnn import _rnn_step
    _cell_checks(input, (hx,), w_ih, w_hh)
    return _rnn_step(F.linear(input, w_ih, b_ih), hx, w_hh, b_hh, relu)


def rnn_tanh_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh): (N, in), (N, H) -> (N, H)."""
    return _rnn_cell(input, hx, w_ih, w_hh, b_ih, b_hh, False)


def rnn_relu_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """h' = relu(x W_ih^T + b_ih + h W_hh^T + b_hh): (N, in), (N, H) -> (N, H)."""
    return _rnn_cell(input, hx, w_ih, w_hh, b_ih, b_hh, True)


def lstm_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One LSTM step: (N, in), (h, c) each (N, H) -> (h', c'); gates i, f, g, o."""
    from .nn.modules.rnn import _lstm_step
    if not isinstance(hx, (tuple, list)) or not all(isinstance(h, _C.Tensor) for h in hx):
        raise TypeError(f"lstm_cell(): argument 'hx' (position 2) must be tuple of Tensors, not "
                        f"{type(hx).__name__}")
    if len(hx) != 2:
        raise RuntimeError(f"lstm_cell expects two hidden states, got {len(hx)}")
    _cell_checks(input, hx, w_ih, w_hh)
    return _lstm_step(F.linear(input, w_ih, b_ih), hx[0], hx[1], w_hh, b_hh, None)


def gru_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One GRU step: (N, in), (N, H) -> (N, H); gates r, z, n."""
    from .nn.modules.rnn import _gru_step
    _cell_checks(input, (hx,), w_ih, w_hh)
    return _gru_step(F.linear(input, w_ih, b_ih), hx, w_hh, b_hh)


# ---- grid samplers, channel shuffle -------------------------------------------------

def _grid_sampler(fn, dims, input, grid, interpolation_mode, padding_mode, align_corners):
    if input.ndim != dims or grid.ndim != dims:
        raise RuntimeError(f"grid_sampler(): expected {dims}D input and grid with same number of "
                           f"dimensions, but got input with sizes {list(input.shape)} and grid "
                           f"with sizes {list(grid.shape)}")
    if interpolation_mode not in ((0, 1, 2) if dims == 4 else (0, 1)):
        raise RuntimeError(f"{fn}(): interpolation_mode must be 0 (bilinear), 1 (nearest)"
                           f"{' or 2 (bicubic)' if dims == 4 else ''}, got {interpolation_mode}")
    if padding_mode not in (0, 1, 2):
        raise RuntimeError(f"{fn}(): padding_mode must be 0 (zeros), 1 (border) or 2 "
                           f"(reflection), got {padding_mode}")
    return _C.grid_sampler(input, grid, interpolation_mode, padding_mode, bool(align_corners))


def grid_sampler_2d(input, grid, interpolation_mode, padding_mode, align_corners):
    """F.grid_sample on (N, C, H, W) with the modes as ints (0 bilinear,
    1 nearest, 2 bicubic; padding 0 zeros, 1 border, 2 reflection)."""
    return _grid_sampler("grid_sampler_2d", 4, input, grid, interpolation_mode, padding_mode,
                         align_corners)


def grid_sampler_3d(input, grid, interpolation_mode, padding_mode, align_corners):
    """F.grid_sample on (N, C, D, H, W) (0 trilinear, 1 nearest)."""
    return _grid_sampler("grid_sampler_3d", 5, input, grid, interpolation_mode, padding_mode,
                         align_corners)


def native_channel_shuffle(input, groups):
    """nn.functional.channel_shuffle: (N, g * k, *) -> channels interleaved."""
    return F.channel_shuffle(input, groups)
