"""Attention composed from matmul and softmax: the MATH backend of
``sdpa_kernel`` and the dense computation of ``flex_attention``.

Legend: B batch dims, Hq/Hkv heads, L target length, S source length,
E head size, Ev value size.  Every step is a differentiable op, so
gradients (and second derivatives) come from the tape."""
import math

from ... import _C


def repeat_kv_heads(query, key, value):
    """Grouped-query attention: key (B, Hk, S, *) and value (B, Hv, S, *),
    Hk and Hv each dividing the query's Hq (they may differ, as PyTorch
    allows), with each head repeated to (B, Hq, S, *)."""
    hq, hk, hv = query.shape[-3], key.shape[-3], value.shape[-3]
    if hk == 0 or hv == 0 or hq % hk or hq % hv:
        raise RuntimeError("Number of heads in key and value must divide the number of heads in "
                           "query")
    return (key if hk == hq else key.repeat_interleave(hq // hk, -3),
            value if hv == hq else value.repeat_interleave(hq // hv, -3))


def scores(query, key, scale):
    """(B, H, L, S) = Q K^T * scale (scale None: 1/sqrt(E))."""
    s = 1.0 / math.sqrt(query.shape[-1]) if scale is None else scale
    return _C.matmul(query, key.transpose(-2, -1)) * s


def safe_softmax(s):
    """(softmax(s) over the last dim, logsumexp(s)) where a row that is all
    -inf gives zero weights and lse -inf (not NaN), as PyTorch's attention
    does.  The row max is detached: it only keeps exp in range, and both
    results are exact functions of s without it."""
    m = s.amax(-1, keepdim=True).detach()                        # B, H, L, 1
    m = _C.where(_C.isinf(m) & (m < 0), _C.zeros_like(m), m)
    p = (s - m).exp()                                            # B, H, L, S
    denom = p.sum(-1, keepdim=True)                              # B, H, L, 1
    weights = p / _C.where(denom == 0, _C.ones_like(denom), denom)
    return weights, (m + denom.log()).squeeze(-1)


def sdpa_math(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
              enable_gqa=False):
    """softmax(Q K^T * scale + mask) V, dropout on the weights; a bool mask
    marks with True the positions that may be attended."""
    from ..functional import dropout
    if enable_gqa and query.ndim >= 3 and key.ndim >= 3 and value.ndim >= 3 and \
            not (key.shape[-3] == value.shape[-3] == query.shape[-3]):
        key, value = repeat_kv_heads(query, key, value)
    s = scores(query, key, scale)
    L, S = query.shape[-2], key.shape[-2]
    if is_causal:
        allowed = _C.ones((L, S), dtype=_C.bool, device=query.device).tril()
        s = s.masked_fill(~allowed, float("-inf"))
    if attn_mask is not None:
        s = s.masked_fill(~attn_mask, float("-inf")) if attn_mask.dtype == _C.bool \
            else s + attn_mask
    weights, _ = safe_softmax(s)
    if dropout_p > 0.0:
        weights = dropout(weights, dropout_p, True)
    return _C.matmul(weights, value)
