"""Attention: scaled dot-product attention (the blocked kernel of
src/nn/attention) and the multi-head attention forward used by
``nn.MultiheadAttention`` (through that kernel when no weights are asked
for, composed from matmul and softmax when they are).

Legend: N batch, H heads, L target length, S source length, E embedding
size, hd = E / H head size."""
import math
import warnings

from .. import _C
from .attention import _backends

Tensor = _C.Tensor


def _additive_mask(mask, like):
    """A float mask to add to attention scores; a bool mask marks with True the
    positions that may NOT be attended (MultiheadAttention's convention)."""
    if mask is None:
        return None
    if mask.dtype == _C.bool:
        zeros = _C.zeros(tuple(mask.shape), dtype=like.dtype, device=like.device)
        return zeros.masked_fill(mask, float("-inf"))
    return mask.to(dtype=like.dtype)


def _batch_expand(t, batch):
    """t (*, R, C) with its batch dims expanded (a view) to ``batch``."""
    want = tuple(batch) + tuple(t.shape[-2:])
    return t if tuple(t.shape) == want else t.expand(*want)


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, scale=None, enable_gqa=False):
    """``softmax(Q K^T * scale + mask) V``.  query (*, L, E), key (*, S, E),
    value (*, S, Ev) -> (*, L, Ev).  A bool ``attn_mask`` marks with True the
    positions that MAY be attended; a float one is added to the scores.

    Runs the blocked (flash-style) kernel of src/nn/attention, which never
    holds the L x S scores: memory is O(L + S) per head.  Dropout draws its
    seed from the default generator (so ``manual_seed`` reproduces it).
    Grouped-query attention (``enable_gqa``): key/value may have fewer heads
    (dim -3) than the query, a divisor of them."""
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set "
                           "when is_causal=True")
    if query.ndim < 2 or key.ndim < 2 or value.ndim < 2:
        raise RuntimeError(f"scaled_dot_product_attention(): expected query, key and value with "
                           f"at least 2 dims, got {_shape(query)}, {_shape(key)} and "
                           f"{_shape(value)}")
    # inside torchlike.nn.attention.sdpa_kernel: "math" composes the result (below)
    backend = _backends.choose(query, key, value, dropout_p, enable_gqa)
    qb, kb, vb = (tuple(t.shape[:-2]) for t in (query, key, value))
    gqa = enable_gqa and query.ndim >= 3 and key.ndim >= 3 and qb[-1] != kb[-1]
    if gqa:
        if key.shape[-3] != value.shape[-3] or key.shape[-3] == 0 or \
                query.shape[-3] % key.shape[-3]:
            raise RuntimeError("Number of heads in key and value must divide the number of heads "
                               "in query")
        outer = _C.broadcast_shapes(qb[:-1], kb[:-1], vb[:-1])
        query = _batch_expand(query, tuple(outer) + qb[-1:])
        key = _batch_expand(key, tuple(outer) + kb[-1:])
        value = _batch_expand(value, tuple(outer) + vb[-1:])
    elif not (qb == kb == vb):
        batch = _C.broadcast_shapes(qb, kb, vb)
        query, key, value = (_batch_expand(t, batch) for t in (query, key, value))
    if attn_mask is not None and attn_mask.dtype != _C.bool and attn_mask.dtype != query.dtype:
        raise RuntimeError(f"Expected attn_mask dtype to be bool or float or to match query "
                           f"dtype, but got attn_mask.dtype: {attn_mask.dtype} and  query.dtype: "
                           f"{query.dtype} instead.")
    if backend == "math":
        from .attention._math import sdpa_math
        return sdpa_math(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa)
    rng_state = None
    if dropout_p > 0.0:
        rng_state = _C.randint(-2 ** 63, 2 ** 63 - 1, (2,), dtype=_C.int64)
    return _C._scaled_dot_product_flash_attention_for_cpu(
        query, key, value, float(dropout_p), bool(is_causal), attn_mask=attn_mask, scale=scale,
        rng_state=rng_state)[0]


def _warn_mismatched_masks(mask, name, other, other_name, dtype=None):
    """PyTorch's deprecation warning for a padding mask and an attention mask
    of different dtypes (a bool padding mask with a float causal mask).
    Given dtype, the two masks are returned as additive masks of that dtype
    (True -> -inf), so the layers inside see one type and warn no more, as
    PyTorch's Transformer modules do."""
    if mask is None or other is None or mask.dtype == other.dtype:
        return mask, other
    warnings.warn(f"Support for mismatched {name} and {other_name} is deprecated. Use same "
                  f"type for both instead.", UserWarning, stacklevel=3)
    if dtype is None:
        return mask, other

    def additive(m):
        if m.dtype == _C.bool:
            return _C.zeros(m.shape, dtype=dtype, device=m.device).masked_fill(m, -math.inf)
        return m.to(dtype)

    return additive(mask), additive(other)


def _project(x, weight, bias):
    """linear(x, weight, bias) for x (*, in) whose leading dims are a
    permutation of a contiguous tensor's (a batch-first input seen
    sequence-first): the product runs on the contiguous layout and the result
    is permuted back, a view, so no copy of x is made."""
    from .functional import linear
    lead = x.ndim - 1
    if x.is_contiguous() or lead < 2 or x.stride(-1) != 1:
        return linear(x, weight, bias)
    order = sorted(range(lead), key=lambda d: -x.stride(d))
    inner = x.permute(*order, lead)
    if not inner.is_contiguous():
        return linear(x, weight, bias)
    back = [order.index(d) for d in range(lead)]
    return linear(inner, weight, bias).permute(*back, lead)


def _heads(t, N, H, hd):
    """(S, N, E) -> (N, H, S, hd), a view."""
    return t.reshape(t.shape[0], N, H, hd).permute(1, 2, 0, 3)


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads,
                                 in_proj_weight, in_proj_bias, bias_k, bias_v, add_zero_attn,
                                 dropout_p, out_proj_weight, out_proj_bias, training=True,
                                 key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None,
                                 k_proj_weight=None, v_proj_weight=None, static_k=None,
                                 static_v=None, average_attn_weights=True, is_causal=False):
    """Multi-head attention on sequence-first inputs: query (L, N, E) or (L, E),
    key/value (S, N, Ek/Ev).  Returns (output (L, N, E), weights (N, L, S)
    averaged over heads, or (N, H, L, S), or None)."""
    from .functional import linear, softmax, dropout, pad
    _warn_mismatched_masks(key_padding_mask, "key_padding_mask", attn_mask, "attn_mask")
    unbatched = query.ndim == 2
    if unbatched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    L, N, E = query.shape
    if E != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, "
                             f"but got {E}")
    H = num_heads
    hd = E // H
    if hd * H != E:
        raise AssertionError(f"embed_dim {E} not divisible by num_heads {H}")
    if use_separate_proj_weight:
        bq = bk = bv = None
        if in_proj_bias is not None:
            bq, bk, bv = in_proj_bias.chunk(3)
        q = _project(query, q_proj_weight, bq)
        k = _project(key, k_proj_weight, bk)
        v = _project(value, v_proj_weight, bv)
    elif query is key and key is value:
        # self-attention: one (E -> 3E) product, q, k, v views of it
        q, k, v = _project(query, in_proj_weight, in_proj_bias).chunk(3, -1)
    else:
        wq, wk, wv = in_proj_weight.chunk(3)
        bq, bk, bv = in_proj_bias.chunk(3) if in_proj_bias is not None else (None,) * 3
        q, k, v = _project(query, wq, bq), _project(key, wk, bk), _project(value, wv, bv)
    if attn_mask is not None:
        if attn_mask.ndim == 2:
            if tuple(attn_mask.shape) != (L, key.shape[0]):
                raise RuntimeError(f"The shape of the 2D attn_mask is {_shape(attn_mask)}, but "
                                   f"should be {(L, key.shape[0])}.")
            attn_mask = attn_mask.unsqueeze(0)
        elif attn_mask.ndim == 3:
            if tuple(attn_mask.shape) != (N * H, L, key.shape[0]):
                raise RuntimeError(f"The shape of the 3D attn_mask is {_shape(attn_mask)}, but "
                                   f"should be {(N * H, L, key.shape[0])}.")
        else:
            raise RuntimeError(f"attn_mask's dimension {attn_mask.ndim} is not supported")
        attn_mask = _additive_mask(attn_mask, q)
    elif is_causal:
        S0 = key.shape[0]
        attn_mask = _additive_mask(
            ~_C.ones((L, S0), dtype=_C.bool, device=q.device).tril(), q).unsqueeze(0)
    if key_padding_mask is not None:
        key_padding_mask = _additive_mask(key_padding_mask, q)
    if bias_k is not None:
        k = _C.cat([k, bias_k.reshape(1, 1, E).expand(1, N, E)])
        v = _C.cat([v, bias_v.reshape(1, 1, E).expand(1, N, E)])
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))
    # heads as views (N, H, *, hd) of the projections: no copy before the kernel
    q = _heads(q, N, H, hd)
    # explicit sizes, not -1: an empty batch must reshape too
    k = static_k.reshape(N, H, static_k.shape[1], hd) if static_k is not None else \
        _heads(k, N, H, hd)
    v = static_v.reshape(N, H, static_v.shape[1], hd) if static_v is not None else \
        _heads(v, N, H, hd)
    if add_zero_attn:
        k = _C.cat([k, _C.zeros((N, H, 1, hd), dtype=k.dtype, device=k.device)], 2)
        v = _C.cat([v, _C.zeros((N, H, 1, hd), dtype=v.dtype, device=v.device)], 2)
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))
    S = k.shape[2]
    if key_padding_mask is not None:
        if tuple(key_padding_mask.shape) != (N, S):
            raise AssertionError(f"expecting key_padding_mask shape of {(N, S)}, but got "
                                 f"{_shape(key_padding_mask)}")
        kpm = key_padding_mask.reshape(N, 1, 1, S).expand(N, H, 1, S).reshape(N * H, 1, S)
        attn_mask = kpm if attn_mask is None else attn_mask + kpm
    if not training:
        dropout_p = 0.0
    if not need_weights:
        # the fast path: the blocked kernel, with heads as a batch dim
        mask4 = None
        if attn_mask is not None:
            rows = attn_mask.shape[0] if attn_mask.ndim == 3 else 1
            mask4 = attn_mask.reshape(rows, attn_mask.shape[-2], S)
            mask4 = (mask4.reshape(N, H, mask4.shape[-2], S) if mask4.shape[0] == N * H
                     else mask4.unsqueeze(0))
        out = scaled_dot_product_attention(q, k, v, mask4, dropout_p)   # N, H, L, hd
        out = out.permute(2, 0, 1, 3).reshape(L * N, E)
        out = linear(out, out_proj_weight, out_proj_bias).reshape(L, N, E)
        return (out.squeeze(1) if unbatched else out), None
    q, k, v = (t.reshape(N * H, t.shape[2], hd) for t in (q, k, v))   # N*H, L or S, hd
    scores = _C.matmul(q * (1.0 / math.sqrt(hd)), k.transpose(1, 2))   # N*H, L, S
    if attn_mask is not None:
        scores = scores + attn_mask
    weights = softmax(scores, -1)
    if dropout_p > 0.0:
        weights = dropout(weights, dropout_p, True)
    out = _C.matmul(weights, v)                                       # N*H, L, hd
    out = out.transpose(0, 1).reshape(L * N, E)
    out = linear(out, out_proj_weight, out_proj_bias).reshape(L, N, E)
    if need_weights:
        weights = weights.reshape(N, H, L, S)
        if average_attn_weights:
            weights = weights.mean(dim=1)
        if unbatched:
            out, weights = out.squeeze(1), weights.squeeze(0)
        return out, weights
    return (out.squeeze(1) if unbatched else out), None


def _shape(t):
    return tuple(int(s) for s in t.shape)
