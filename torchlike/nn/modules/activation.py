"""Activation modules, each a thin wrapper over its functional op, plus
Softmax/LogSoftmax/Softmin and MultiheadAttention."""
import warnings

from ... import _C
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .linear import NonDynamicallyQuantizableLinear
from .module import Module

__all__ = ["Threshold", "ReLU", "RReLU", "Hardtanh", "ReLU6", "Sigmoid", "Hardsigmoid", "Tanh",
           "SiLU", "Mish", "Hardswish", "ELU", "CELU", "SELU", "GLU", "GELU", "Hardshrink",
           "LeakyReLU", "LogSigmoid", "Softplus", "Softshrink", "MultiheadAttention", "PReLU",
           "Softsign", "Tanhshrink", "Softmin", "Softmax", "Softmax2d", "LogSoftmax"]


def _inplace_str(inplace, first=False):
    if not inplace:
        return ""
    return "inplace=True" if first else ", inplace=True"


class Threshold(Module):
    """``y = x if x > threshold else value``."""

    def __init__(self, threshold, value, inplace=False):
        super().__init__()
        self.threshold, self.value, self.inplace = threshold, value, inplace

    def forward(self, input):
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self):
        return f"threshold={self.threshold}, value={self.value}{_inplace_str(self.inplace)}"


class _InplaceActivation(Module):
    """An activation whose only option is ``inplace``."""

    _fn = None

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return type(self)._fn(input, inplace=self.inplace)

    def extra_repr(self):
        return _inplace_str(self.inplace, first=True)


class ReLU(_InplaceActivation):
    """``max(0, x)``."""
    _fn = staticmethod(F.relu)


class SiLU(_InplaceActivation):
    """``x * sigmoid(x)``."""
    _fn = staticmethod(F.silu)


class Mish(_InplaceActivation):
    """``x * tanh(softplus(x))``."""
    _fn = staticmethod(F.mish)


class SELU(_InplaceActivation):
    """Scaled ELU with the self-normalising constants."""
    _fn = staticmethod(F.selu)


class Hardsigmoid(_InplaceActivation):
    """``clamp(x / 6 + 1/2, 0, 1)``."""
    _fn = staticmethod(F.hardsigmoid)

    def extra_repr(self):
        return ""


class Hardswish(_InplaceActivation):
    """``x * relu6(x + 3) / 6``."""
    _fn = staticmethod(F.hardswish)

    def extra_repr(self):
        return ""


class RReLU(Module):
    """Randomised leaky ReLU (slope from U(lower, upper) in training)."""

    def __init__(self, lower=1.0 / 8, upper=1.0 / 3, inplace=False):
        super().__init__()
        self.lower, self.upper, self.inplace = lower, upper, inplace

    def forward(self, input):
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self):
        return f"lower={self.lower}, upper={self.upper}{_inplace_str(self.inplace)}"


class Hardtanh(Module):
    """``clamp(x, min_val, max_val)``."""

    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False, min_value=None,
                 max_value=None):
        super().__init__()
        if min_value is not None:
            warnings.warn("keyword argument `min_value` is deprecated and renamed to `min_val`",
                          FutureWarning, stacklevel=2)
            min_val = min_value
        if max_value is not None:
            warnings.warn("keyword argument `max_value` is deprecated and renamed to `max_val`",
                          FutureWarning, stacklevel=2)
            max_val = max_value
        self.min_val, self.max_val, self.inplace = min_val, max_val, inplace
        if self.max_val <= self.min_val:
            raise AssertionError(f"max_val ({self.max_val}) must be greater than min_val "
                                 f"({self.min_val})")

    def forward(self, input):
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self):
        return f"min_val={self.min_val}, max_val={self.max_val}{_inplace_str(self.inplace)}"


class ReLU6(Hardtanh):
    """``min(max(0, x), 6)``."""

    def __init__(self, inplace=False):
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self):
        return _inplace_str(self.inplace, first=True)


class _Plain(Module):
    """An activation with no options."""

    _fn = None

    def forward(self, input):
        return type(self)._fn(input)


class Sigmoid(_Plain):
    _fn = staticmethod(_C.sigmoid)


class Tanh(_Plain):
    _fn = staticmethod(_C.tanh)


class LogSigmoid(_Plain):
    _fn = staticmethod(F.logsigmoid)


class Softsign(_Plain):
    _fn = staticmethod(F.softsign)


class Tanhshrink(_Plain):
    _fn = staticmethod(F.tanhshrink)


class ELU(Module):
    """``x if x > 0 else alpha (exp(x) - 1)``."""

    _fn = staticmethod(F.elu)

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__()
        self.alpha, self.inplace = alpha, inplace

    def forward(self, input):
        return type(self)._fn(input, self.alpha, self.inplace)

    def extra_repr(self):
        return f"alpha={self.alpha}{_inplace_str(self.inplace)}"


class CELU(ELU):
    """``max(0, x) + min(0, alpha (exp(x / alpha) - 1))``."""
    _fn = staticmethod(F.celu)


class GLU(Module):
    """``a * sigmoid(b)`` over the two halves of ``dim``."""

    def __init__(self, dim=-1):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.glu(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


class GELU(Module):
    """``x * Phi(x)``; ``approximate='tanh'`` for the tanh form."""

    def __init__(self, approximate="none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, input):
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self):
        return f"approximate={self.approximate!r}"


class Hardshrink(Module):
    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = lambd

    def forward(self, input):
        return F.hardshrink(input, self.lambd)

    def extra_repr(self):
        return f"{self.lambd}"


class Softshrink(Hardshrink):
    def forward(self, input):
        return F.softshrink(input, self.lambd)

    def extra_repr(self):
        return str(self.lambd)


class LeakyReLU(Module):
    """``x if x >= 0 else negative_slope * x``."""

    def __init__(self, negative_slope=1e-2, inplace=False):
        super().__init__()
        self.negative_slope, self.inplace = negative_slope, inplace

    def forward(self, input):
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self):
        return f"negative_slope={self.negative_slope}{_inplace_str(self.inplace)}"


class Softplus(Module):
    """``log(1 + exp(beta x)) / beta``, linear above ``threshold``."""

    def __init__(self, beta=1.0, threshold=20.0):
        super().__init__()
        self.beta, self.threshold = beta, threshold

    def forward(self, input):
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self):
        return f"beta={self.beta}, threshold={self.threshold}"


class PReLU(Module):
    """Leaky ReLU with a learnt slope (one, or one per channel), initially ``init``."""

    def __init__(self, num_parameters=1, init=0.25, device=None, dtype=None):
        super().__init__()
        self.num_parameters = num_parameters
        self.init = init
        self.weight = Parameter(_C.empty((num_parameters,), device=device, dtype=dtype))
        self.reset_parameters()

    def reset_parameters(self):
        init.constant_(self.weight, self.init)

    def forward(self, input):
        return F.prelu(input, self.weight)

    def extra_repr(self):
        return f"num_parameters={self.num_parameters}"


class _SoftmaxBase(Module):
    _fn = None

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def __setstate__(self, state):
        super().__setstate__(state)
        if not hasattr(self, "dim"):
            self.dim = None

    def forward(self, input):
        return type(self)._fn(input, self.dim, _stacklevel=5)

    def extra_repr(self):
        return f"dim={self.dim}"


class Softmax(_SoftmaxBase):
    _fn = staticmethod(F.softmax)


class LogSoftmax(_SoftmaxBase):
    _fn = staticmethod(F.log_softmax)


class Softmin(_SoftmaxBase):
    _fn = staticmethod(F.softmin)


class Softmax2d(Module):
    """Softmax over the channels of (N, C, H, W) or (C, H, W)."""

    def forward(self, input):
        if input.ndim not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.ndim}D "
                             "instead")
        return F.softmax(input, -3, _stacklevel=5)


def fused_inference_allowed(tensors):
    """The conditions every fused inference kernel of PyTorch's attention
    shares: the fast-path switch on (torch.backends.mha), no autocast, no
    __torch_function__ subclass among the tensors, no gradient wanted."""
    from ... import backends
    from ...amp import is_autocast_enabled
    tensors = [t for t in tensors if t is not None]
    if not backends.mha.get_fastpath_enabled() or is_autocast_enabled():
        return False
    if _C._has_torch_function(tensors):
        return False
    return not (_C.is_grad_enabled() and any(t.requires_grad for t in tensors))


class MultiheadAttention(Module):
    r"""Attention over ``num_heads`` heads: ``concat(head_i) W_o`` with
    ``head_i = softmax(Q W_q^i (K W_k^i)^T / sqrt(hd)) V W_v^i``.

    Inputs (L, N, E) query, (S, N, kdim) key, (S, N, vdim) value, or
    batch-first with ``batch_first=True``, or unbatched (L, E).  Returns
    (output, weights) with weights (N, L, S) averaged over heads, or
    (N, H, L, S) with ``average_attn_weights=False``, or None."""

    __constants__ = ["batch_first"]

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False,
                 add_zero_attn=False, kdim=None, vdim=None, batch_first=False, device=None,
                 dtype=None):
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got "
                             f"embed_dim={embed_dim} and num_heads={num_heads} instead")
        super().__init__()
        kw = dict(device=device, dtype=dtype)
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")
        if not self._qkv_same_embed_dim:
            self.q_proj_weight = Parameter(_C.empty((embed_dim, embed_dim), **kw))
            self.k_proj_weight = Parameter(_C.empty((embed_dim, self.kdim), **kw))
            self.v_proj_weight = Parameter(_C.empty((embed_dim, self.vdim), **kw))
            self.register_parameter("in_proj_weight", None)
        else:
            self.in_proj_weight = Parameter(_C.empty((3 * embed_dim, embed_dim), **kw))
            self.register_parameter("q_proj_weight", None)
            self.register_parameter("k_proj_weight", None)
            self.register_parameter("v_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(_C.empty((3 * embed_dim,), **kw))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias, **kw)
        if add_bias_kv:
            self.bias_k = Parameter(_C.empty((1, 1, embed_dim), **kw))
            self.bias_v = Parameter(_C.empty((1, 1, embed_dim), **kw))
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self):
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            init.xavier_normal_(self.bias_v)

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True,
                attn_mask=None, average_attn_weights=True, is_causal=False):
        float_mask = any(m is not None and m.is_floating_point()
                         for m in (attn_mask, key_padding_mask))
        # both masks additive (and the mismatch warning given) here, as PyTorch
        key_padding_mask = F._canonical_mask(key_padding_mask, "key_padding_mask",
                                             F._none_or_dtype(attn_mask), "attn_mask",
                                             query.dtype)
        attn_mask = F._canonical_mask(attn_mask, "attn_mask", None, "", query.dtype,
                                      check_other=False)
        batched = query.ndim == 3
        if not float_mask and self._takes_fast_path(query, key, value):
            return self._fast_forward(query, attn_mask, key_padding_mask, need_weights,
                                      average_attn_weights, is_causal)
        if self.batch_first and batched:
            # self-attention stays one object (the in-projection is then one product)
            same_k, same_v = key is query, value is key
            query = query.transpose(0, 1)
            key = query if same_k else key.transpose(0, 1)
            value = key if same_v else value.transpose(0, 1)
        out, weights = F.multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight,
            self.in_proj_bias, self.bias_k, self.bias_v, self.add_zero_attn, self.dropout,
            self.out_proj.weight, self.out_proj.bias, training=self.training,
            key_padding_mask=key_padding_mask, need_weights=need_weights,
            attn_mask=attn_mask, use_separate_proj_weight=not self._qkv_same_embed_dim,
            q_proj_weight=self.q_proj_weight, k_proj_weight=self.k_proj_weight,
            v_proj_weight=self.v_proj_weight, average_attn_weights=average_attn_weights,
            is_causal=is_causal)
        if self.batch_first and batched:
            out = out.transpose(0, 1)
        return out, weights

    def _takes_fast_path(self, query, key, value):
        """Whether PyTorch would run this call through its fused inference
        kernel (its MultiheadAttention.forward's conditions, bool masks aside):
        batch-first self-attention (query is key is value) in eval mode,
        without gradients, an even number of heads, packed projections with
        a bias, no bias_k/bias_v/zero attention, no autocast, no
        __torch_function__ subclass."""
        if query.ndim != 3 or query is not key or key is not value:
            return False
        w, b = self.in_proj_weight, self.in_proj_bias
        if w is None or b is None or query.dtype != w.dtype or query.dtype != b.dtype:
            return False
        if self.training or self.num_heads % 2 or not self.batch_first:
            return False
        if self.bias_k is not None or self.bias_v is not None or self.add_zero_attn:
            return False
        return fused_inference_allowed((query, w, b, self.out_proj.weight, self.out_proj.bias))

    def _fast_forward(self, x, attn_mask, key_padding_mask, need_weights=False,
                      average_attn_weights=True, is_causal=False):
        """Self-attention of batch-first x (N, L, E) as PyTorch's fused
        inference kernel computes it, in what a program can see:

        - the masks are hard: an entry is masked where it is nonzero (a
          float mask's -1.0 masks as -inf does; the kernel turns it to bool);
        - ``is_causal`` is not read (the mask given is the mask used; no mask
          is no mask);
        - a query row whose keys are all masked, in any head, is NaN across
          the output row (the kernel's softmax divides 0 by 0), where the
          slow path's attention kernel gives zeros.

        ``is_causal`` only lets a mask that is the causal one run as the
        attention kernel's causal mode (the same result, faster)."""
        am = None if attn_mask is None else attn_mask != 0
        kpm = None if key_padding_mask is None else key_padding_mask != 0
        L = x.shape[1]
        causal = (is_causal and kpm is None and not need_weights and am is not None and
                  tuple(am.shape) == (L, L) and
                  bool((am == _C.ones((L, L), dtype=_C.bool, device=am.device).triu(1)).all()))
        xt = x.transpose(0, 1)
        out, weights = F.multi_head_attention_forward(
            xt, xt, xt, self.embed_dim, self.num_heads, self.in_proj_weight, self.in_proj_bias,
            None, None, False, 0.0, self.out_proj.weight, self.out_proj.bias, training=False,
            key_padding_mask=kpm, need_weights=need_weights, attn_mask=am,
            average_attn_weights=average_attn_weights, is_causal=causal)
        out = out.transpose(0, 1)
        if causal or (am is None and kpm is None):   # a causal mask leaves no row keyless
            return out, weights
        N, L, S = x.shape[0], x.shape[1], x.shape[1]
        masked = None
        if am is not None:   # (L, S) or (N * H, L, S) -> (1 or N, 1 or H, L, S)
            masked = am.view(N, -1, L, S) if am.ndim == 3 else am.view(1, 1, L, S)
        if kpm is not None:
            pad = kpm.view(N, 1, 1, S)
            masked = pad if masked is None else masked | pad
        dead = masked.all(-1).any(1)                 # (1 or N, 1 or L): rows with no key
        return out.masked_fill(dead.unsqueeze(-1), float("nan")), weights

    def merge_masks(self, attn_mask, key_padding_mask, query):
        """One (N, H, L, L) additive mask from an attention mask ((L, L) or
        (N * H, L, L)) and a padding mask (N, L), and its kind: 1 the padding
        mask alone, 2 a merged mask, None neither (PyTorch's fast path's
        mask_type)."""
        mask_type, merged = None, None
        if key_padding_mask is not None:
            mask_type, merged = 1, key_padding_mask
        if attn_mask is not None:
            N, L = query.shape[0], query.shape[1]
            mask_type = 2
            if attn_mask.ndim == 3:
                merged = attn_mask.view(N, -1, L, L)
            else:
                merged = attn_mask.view(1, 1, L, L).expand(N, self.num_heads, -1, -1)
            if key_padding_mask is not None:
                merged = merged + key_padding_mask.view(N, 1, 1, L).expand(
                    -1, self.num_heads, -1, -1)
        return merged, mask_type
