"""Attention: scaled dot-product attention and the multi-head attention
forward used by ``nn.MultiheadAttention``, composed from matmul and softmax.

Legend: N batch, H heads, L target length, S source length, E embedding
size, hd = E / H head size."""
import math

from .. import _C

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


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, scale=None, enable_gqa=False):
    """``softmax(Q K^T * scale + mask) V``.  query (*, L, E), key (*, S, E),
    value (*, S, Ev) -> (*, L, Ev).  A bool ``attn_mask`` marks with True the
    positions that MAY be attended; a float one is added to the scores."""
    from .functional import softmax, dropout
    L, S = query.shape[-2], key.shape[-2]
    scale = 1.0 / math.sqrt(query.shape[-1]) if scale is None else scale
    if enable_gqa and key.ndim >= 3 and key.shape[-3] != query.shape[-3]:
        rep = query.shape[-3] // key.shape[-3]
        key = key.repeat_interleave(rep, dim=-3)
        value = value.repeat_interleave(rep, dim=-3)
    scores = _C.matmul(query, key.transpose(-2, -1)) * scale
    if is_causal:
        allowed = _C.ones((L, S), dtype=_C.bool, device=query.device).tril()
        scores = scores.masked_fill(~allowed, float("-inf"))
    if attn_mask is not None:
        if attn_mask.dtype == _C.bool:
            scores = scores.masked_fill(~attn_mask, float("-inf"))
        else:
            scores = scores + attn_mask
    weights = softmax(scores, -1)
    if dropout_p > 0.0:
        weights = dropout(weights, dropout_p, True)
    return _C.matmul(weights, value)


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
        q = linear(query, q_proj_weight, bq)
        k = linear(key, k_proj_weight, bk)
        v = linear(value, v_proj_weight, bv)
    else:
        wq, wk, wv = in_proj_weight.chunk(3)
        bq, bk, bv = in_proj_bias.chunk(3) if in_proj_bias is not None else (None,) * 3
        q, k, v = linear(query, wq, bq), linear(key, wk, bk), linear(value, wv, bv)
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
    q = q.reshape(L, N * H, hd).transpose(0, 1)               # N*H, L, hd
    k = (static_k if static_k is not None else
         k.reshape(k.shape[0], N * H, hd).transpose(0, 1))    # N*H, S, hd
    v = (static_v if static_v is not None else
         v.reshape(v.shape[0], N * H, hd).transpose(0, 1))
    if add_zero_attn:
        k = _C.cat([k, _C.zeros((N * H, 1, hd), dtype=k.dtype, device=k.device)], 1)
        v = _C.cat([v, _C.zeros((N * H, 1, hd), dtype=v.dtype, device=v.device)], 1)
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))
    S = k.shape[1]
    if key_padding_mask is not None:
        if tuple(key_padding_mask.shape) != (N, S):
            raise AssertionError(f"expecting key_padding_mask shape of {(N, S)}, but got "
                                 f"{_shape(key_padding_mask)}")
        kpm = key_padding_mask.reshape(N, 1, 1, S).expand(N, H, 1, S).reshape(N * H, 1, S)
        attn_mask = kpm if attn_mask is None else attn_mask + kpm
    if not training:
        dropout_p = 0.0
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
