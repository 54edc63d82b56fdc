"""Attention: scaled dot-product attention (the blocked kernel of
src/nn/attention) and the multi-head attention forward used by
``nn.MultiheadAttention`` (through that kernel when no weights are asked
for, composed from matmul and softmax when they are).

Legend: N batch, H heads, L target length, S source length, E embedding
size, hd = E / H head size."""
import math
import warnings

from .. import _C
from .._dtype_names import cpp_name, scalar_type_name
from .attention import _backends

Tensor = _C.Tensor


def _batch_expand(t, batch):
    """t (*, R, C) with its batch dims expanded (a view) to ``batch``."""
    want = tuple(batch) + tuple(t.shape[-2:])
    return t if tuple(t.shape) == want else t.expand(*want)


def _broadcast_check(a, b):
    """Shapes a and b broadcast (the result), or PyTorch's words where its
    math path meets them (q @ k^T, attn @ v, the mask added to the scores):
    the rightmost dim that differs, in the aligned shape's numbering."""
    n = max(len(a), len(b))
    pa, pb = (1,) * (n - len(a)) + tuple(a), (1,) * (n - len(b)) + tuple(b)
    for i in range(n - 1, -1, -1):
        if pa[i] != pb[i] and pa[i] != 1 and pb[i] != 1:
            raise _C.BroadcastError(f"The size of tensor a ({pa[i]}) must match the size of tensor "
                                    f"b ({pb[i]}) at non-singleton dimension {i}: shapes "
                                    f"{list(a)} and {list(b)} cannot be broadcast together")
    return tuple(x if x != 1 else y for x, y in zip(pa, pb))


def _mask_check(scores, mask):
    """The mask added in place to scores of shape ``scores``: PyTorch's
    refusal of a mask that does not broadcast to them or would enlarge them."""
    full = _broadcast_check(scores, mask)
    if full != tuple(scores):
        raise RuntimeError(f"output with shape {list(scores)} doesn't match the broadcast shape "
                           f"{list(full)}")


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
    # PyTorch's checks in its order, its dtypes named as its C++ types
    if not (query.dtype == key.dtype == value.dtype):
        raise RuntimeError(f"Expected query, key, and value to have the same dtype, but got "
                           f"query.dtype: {cpp_name(query.dtype)} key.dtype: "
                           f"{cpp_name(key.dtype)} and value.dtype: {cpp_name(value.dtype)} "
                           f"instead.")
    if query.ndim < 2 or key.ndim < 2 or value.ndim < 2:
        raise RuntimeError(f"Expected query, key, and value to all be  at least 2 dimensional, "
                           f"but got query.dim: {query.ndim} key.dim: {key.ndim} and value.dim: "
                           f"{value.ndim} instead.")
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set "
                           "when is_causal=True")
    if attn_mask is not None and attn_mask.dtype not in (_C.bool, _C.float32, query.dtype):
        raise RuntimeError(f"Expected attn_mask dtype to be bool or float or to match query "
                           f"dtype, but got attn_mask.dtype: {cpp_name(attn_mask.dtype)} and  "
                           f"query.dtype: {cpp_name(query.dtype)} instead.")
    if query.dtype.is_complex:
        raise NotImplementedError(f'"softmax_lastdim_kernel_impl" not implemented for '
                                  f"'{scalar_type_name(query.dtype)}'")
    if not query.dtype.is_floating_point:
        raise RuntimeError(f"expected scalar type Float but found "
                           f"{scalar_type_name(query.dtype)}")
    # inside torchlike.nn.attention.sdpa_kernel: "math" composes the result (below)
    backend = _backends.choose(query, key, value, dropout_p, enable_gqa)
    qb, kb, vb = (tuple(t.shape[:-2]) for t in (query, key, value))
    gqa = enable_gqa and query.ndim >= 3 and key.ndim >= 3 and value.ndim >= 3 and \
        not (qb[-1] == kb[-1] == vb[-1])
    if gqa:
        hq, hk, hv = qb[-1], kb[-1], vb[-1]
        if hk == 0 or hv == 0 or hq % hk or hq % hv:
            raise RuntimeError("Number of heads in key and value must divide the number of heads "
                               "in query")
        if hk != hv:   # (the kernel takes one head count for both: each repeated to the query's)
            from .attention._math import repeat_kv_heads
            key, value = repeat_kv_heads(query, key, value)
            kb, vb = tuple(key.shape[:-2]), tuple(value.shape[:-2])
        outer = _C.broadcast_shapes(qb[:-1], kb[:-1], vb[:-1])
        query = _batch_expand(query, tuple(outer) + qb[-1:])
        key = _batch_expand(key, tuple(outer) + kb[-1:])
        value = _batch_expand(value, tuple(outer) + vb[-1:])
    elif not (qb == kb == vb):
        _broadcast_check(_broadcast_check(qb, kb), vb)  # PyTorch's words for a mismatch
        batch = _C.broadcast_shapes(qb, kb, vb)
        query, key, value = (_batch_expand(t, batch) for t in (query, key, value))
    if attn_mask is not None and query.ndim >= 2 and key.ndim >= 2:
        scores = tuple(query.shape[:-1]) + (key.shape[-2],)
        if tuple(attn_mask.shape) != scores:
            _mask_check(scores, tuple(attn_mask.shape))
    if attn_mask is not None and attn_mask.dtype not in (_C.bool, query.dtype):
        # PyTorch takes a float32 mask with any query dtype ("float" in its
        # message is float32): added in the query's dtype
        attn_mask = attn_mask.to(query.dtype)
    if backend == "math":
        from .attention._math import sdpa_math
        return sdpa_math(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa)
    rng_state = None
    if dropout_p > 0.0:
        # the seed is host data whatever the default device (the kernel reads it there)
        rng_state = _C.randint(-2 ** 63, 2 ** 63 - 1, (2,), dtype=_C.int64, device="cpu")
    return _C._scaled_dot_product_flash_attention_for_cpu(
        query, key, value, float(dropout_p), bool(is_causal), attn_mask=attn_mask, scale=scale,
        rng_state=rng_state)[0]


# ---- PyTorch's private helpers of torch.nn.functional ------------------------------------
# Model code (and PyTorch's own attention modules) calls these by name:
# F._canonical_mask, F._none_or_dtype, F._in_projection_packed,
# F._in_projection, F._mha_shape_check.  Same arguments, results and errors.

def _none_or_dtype(input):
    """The dtype of a tensor, or None for None."""
    if input is None:
        return None
    if isinstance(input, Tensor):
        return input.dtype
    raise RuntimeError("input to _none_or_dtype() must be None or torch.Tensor")


def _canonical_mask(mask, mask_name, other_type, other_name, target_type, check_other=True):
    """An attention mask as an additive float mask: a bool mask becomes
    zeros of ``target_type`` with -inf where True; a float mask is returned
    as it is.  Other dtypes are refused; with ``check_other``, a mask whose
    dtype differs from ``other_type`` (its partner mask's) gives PyTorch's
    deprecation warning."""
    if mask is None:
        return None
    is_float = mask.is_floating_point()
    if mask.dtype != _C.bool and not is_float:
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask.dtype != other_type:
        warnings.warn(f"Support for mismatched {mask_name} and {other_name} is deprecated. Use "
                      f"same type for both instead.", UserWarning, stacklevel=3)
    if is_float:
        return mask
    return _C.zeros(tuple(mask.shape), dtype=target_type, device=mask.device).masked_fill_(
        mask, float("-inf"))


def _in_projection_packed(q, k, v, w, b=None):
    """q, k, v projected by the rows of the packed (3E, E) weight ``w`` (and
    the packed bias): one product for self-attention (q is k is v), two for
    encoder-decoder attention (k is v), three otherwise.  Each result is
    contiguous."""
    E = q.shape[-1]
    from .functional import linear
    if k is v and q is k:
        parts = linear(q, w, b).unflatten(-1, (3, E))
        return tuple(parts.select(-2, i).contiguous() for i in range(3))
    if k is v:
        w_q, w_kv = w.split([E, 2 * E])
        b_q, b_kv = (None, None) if b is None else b.split([E, 2 * E])
        kv = linear(k, w_kv, b_kv).unflatten(-1, (2, E))
        return linear(q, w_q, b_q), kv.select(-2, 0).contiguous(), kv.select(-2, 1).contiguous()
    w_q, w_k, w_v = w.chunk(3)
    b_q, b_k, b_v = (None,) * 3 if b is None else b.chunk(3)
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


def _check_projections(q, k, v, w_q, w_k, w_v, b_q, b_k, b_v):
    """Separate projections' shapes: weights (Eq, Eq), (Eq, Ek), (Eq, Ev),
    biases (Eq,), for q (*, Eq), k (*, Ek), v (*, Ev)."""
    Eq, Ek, Ev = q.shape[-1], k.shape[-1], v.shape[-1]
    for kind, weight, want in (("query", w_q, (Eq, Eq)), ("key", w_k, (Eq, Ek)),
                               ("value", w_v, (Eq, Ev))):
        if tuple(weight.shape) != want:
            raise AssertionError(f"expecting {kind} weights shape of {want}, but got "
                                 f"{weight.shape}")
    for kind, bias in (("query", b_q), ("key", b_k), ("value", b_v)):
        if bias is not None and tuple(bias.shape) != (Eq,):
            raise AssertionError(f"expecting {kind} bias shape of {(Eq,)}, but got {bias.shape}")


def _in_projection(q, k, v, w_q, w_k, w_v, b_q=None, b_k=None, b_v=None):
    """Three separate projections to the query's size, shapes checked."""
    from .functional import linear
    _check_projections(q, k, v, w_q, w_k, w_v, b_q, b_k, b_v)
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


def _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads):
    """Whether multi-head attention's inputs are batched (3-D query) or not
    (2-D); raises AssertionError, as PyTorch, when the dims of key, value and
    the masks do not fit the query's."""
    if query.ndim not in (2, 3):
        raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received "
                             f"{query.ndim}-D query tensor")
    batched, n = query.ndim == 3, query.ndim
    kind = f"{'batched' if batched else 'unbatched'} ({n}-D) `query`"
    if key.ndim != n or value.ndim != n:
        raise AssertionError(f"For {kind}, expected `key` and `value` to be {n}-D but found "
                             f"{key.ndim}-D and {value.ndim}-D tensors respectively")
    if key_padding_mask is not None and key_padding_mask.ndim != n - 1:
        raise AssertionError(f"For {kind}, expected `key_padding_mask` to be `None` or {n - 1}-D "
                             f"but found {key_padding_mask.ndim}-D tensor instead")
    if attn_mask is not None and attn_mask.ndim not in (2, 3):
        raise AssertionError(f"For {kind}, expected `attn_mask` to be `None`, 2-D or 3-D but "
                             f"found {attn_mask.ndim}-D tensor instead")
    want = (num_heads, query.shape[0], key.shape[0])
    if not batched and attn_mask is not None and attn_mask.ndim == 3 and \
            tuple(attn_mask.shape) != want:
        raise AssertionError(f"Expected `attn_mask` shape to be {want} but got "
                             f"{attn_mask.shape}")
    return batched


def _check_key_padding_mask(key_padding_mask, src_len, bsz):
    for i, want in ((0, bsz), (1, src_len)):
        if key_padding_mask.shape[i] != want:
            raise AssertionError(f"Expected key_padded_mask.shape[{i}] to be {want}, but got "
                                 f"{key_padding_mask.shape[i]}")


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


def _static_heads(t, name, N, H, hd):
    """static_k / static_v (N * H, S, hd) as (N, H, S, hd), checked."""
    if t.shape[0] != N * H:
        raise AssertionError(f"expecting {name}.size(0) of {N * H}, but got {t.shape[0]}")
    if t.shape[2] != hd:
        raise AssertionError(f"expecting {name}.size(2) of {hd}, but got {t.shape[2]}")
    return t.reshape(N, H, t.shape[1], hd)


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads,
                                 in_proj_weight, in_proj_bias, bias_k, bias_v, add_zero_attn,
                                 dropout_p, out_proj_weight, out_proj_bias, training=True,
                                 key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None,
                                 k_proj_weight=None, v_proj_weight=None, static_k=None,
                                 static_v=None, average_attn_weights=True, is_causal=False):
    """Multi-head attention on sequence-first inputs: query (L, N, E) or (L, E),
    key/value (S, N, Ek/Ev).  Returns (output (L, N, E), weights (N, L, S)
    averaged over heads, or (N, H, L, S), or None).

    The checks, their order and the masks' handling are PyTorch's: masks
    are made additive (_canonical_mask); ``is_causal`` needs ``attn_mask``
    and, with no padding mask and no weights asked for, stands for it (the
    kernel's causal mode, whatever the mask holds)."""
    from .functional import linear, softmax, dropout, pad
    batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    L, N, E = query.shape
    S0 = key.shape[0]
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask",
                                       _none_or_dtype(attn_mask), "attn_mask", query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the "
                           "Transformer module method `generate_square_subsequent_mask` to "
                           "create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None   # the kernel's causal mode stands for the mask
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype,
                                    check_other=False)
        if key_padding_mask is not None:
            is_causal = False   # merged with the padding mask, no longer causal
    if E != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, "
                             f"but got {E}")
    H = num_heads
    hd = E // H
    if hd * H != E:
        raise AssertionError(f"embed_dim {E} not divisible by num_heads {H}")
    if use_separate_proj_weight:
        if tuple(key.shape[:2]) != tuple(value.shape[:2]):
            raise AssertionError(f"key's sequence and batch dims {key.shape[:2]} do not match "
                                 f"value's {value.shape[:2]}")
    elif tuple(key.shape) != tuple(value.shape):
        raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")
    if use_separate_proj_weight:
        for name, w in (("q", q_proj_weight), ("k", k_proj_weight), ("v", v_proj_weight)):
            if w is None:
                raise AssertionError(f"use_separate_proj_weight is True but {name}_proj_weight "
                                     f"is None")
        bq = bk = bv = None
        if in_proj_bias is not None:
            bq, bk, bv = in_proj_bias.chunk(3)
        _check_projections(query, key, value, q_proj_weight, k_proj_weight, v_proj_weight,
                           bq, bk, bv)
        q = _project(query, q_proj_weight, bq)
        k = _project(key, k_proj_weight, bk)
        v = _project(value, v_proj_weight, bv)
    else:
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        if query is key and key is value:
            # self-attention: one (E -> 3E) product, q, k, v views of it (no copies)
            q, k, v = _project(query, in_proj_weight, in_proj_bias).chunk(3, -1)
        else:
            wq, wk, wv = in_proj_weight.chunk(3)
            bq, bk, bv = in_proj_bias.chunk(3) if in_proj_bias is not None else (None,) * 3
            q, k, v = _project(query, wq, bq), _project(key, wk, bk), _project(value, wv, bv)
    if attn_mask is not None:
        if attn_mask.ndim == 2:
            if tuple(attn_mask.shape) != (L, S0):
                raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, but "
                                   f"should be {(L, S0)}.")
            attn_mask = attn_mask.unsqueeze(0)
        elif attn_mask.ndim == 3:
            if tuple(attn_mask.shape) != (N * H, L, S0):
                raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but "
                                   f"should be {(N * H, L, S0)}.")
        else:
            raise RuntimeError(f"attn_mask's dimension {attn_mask.ndim} is not supported")
    if bias_k is not None and bias_v is not None:
        if static_k is not None:
            raise AssertionError("bias cannot be added to static key.")
        if static_v is not None:
            raise AssertionError("bias cannot be added to static value.")
        k = _C.cat([k, bias_k.reshape(1, 1, E).expand(1, N, E)])
        v = _C.cat([v, bias_v.reshape(1, 1, E).expand(1, N, E)])
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))
    elif bias_k is not None:
        raise AssertionError("bias_k is set but bias_v is None")
    elif bias_v is not None:
        raise AssertionError("bias_v is set but bias_k is None")
    # heads as views (N, H, *, hd) of the projections: no copy before the kernel
    q = _heads(q, N, H, hd)
    # explicit sizes, not -1: an empty batch must reshape too
    k = _heads(k, N, H, hd) if static_k is None else _static_heads(static_k, "static_k", N, H, hd)
    v = _heads(v, N, H, hd) if static_v is None else _static_heads(static_v, "static_v", N, H, hd)
    if add_zero_attn:
        k = _C.cat([k, _C.zeros((N, H, 1, hd), dtype=k.dtype, device=k.device)], 2)
        v = _C.cat([v, _C.zeros((N, H, 1, hd), dtype=v.dtype, device=v.device)], 2)
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))
    S = k.shape[2]
    if key_padding_mask is not None:
        _check_key_padding_mask(key_padding_mask, S, N)
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
        out = scaled_dot_product_attention(q, k, v, mask4, dropout_p, is_causal=is_causal)
        out = out.permute(2, 0, 1, 3).reshape(L * N, E)   # N, H, L, hd -> L * N, E
        out = linear(out, out_proj_weight, out_proj_bias).reshape(L, N, E)
        return (out if batched else out.squeeze(1)), None
    q, k, v = (t.reshape(N * H, t.shape[2], hd) for t in (q, k, v))   # N*H, L or S, hd
    # PyTorch's scale, sqrt(1 / hd), and its baddbmm: same rounding
    q = q * math.sqrt(1.0 / float(hd))
    if attn_mask is not None:
        scores = _C.baddbmm(attn_mask, q, k.transpose(1, 2))           # N*H, L, S
    else:
        scores = _C.bmm(q, k.transpose(1, 2))
    weights = softmax(scores, -1)
    if dropout_p > 0.0:
        weights = dropout(weights, dropout_p, True)
    out = _C.bmm(weights, v)                                          # N*H, L, hd
    out = out.transpose(0, 1).reshape(L * N, E)
    out = linear(out, out_proj_weight, out_proj_bias).reshape(L, N, E)
    weights = weights.reshape(N, H, L, S)
    if average_attn_weights:
        weights = weights.mean(dim=1)
    if not batched:
        out, weights = out.squeeze(1), weights.squeeze(0)
    return out, weights


def _shape(t):
    return tuple(int(s) for s in t.shape)
