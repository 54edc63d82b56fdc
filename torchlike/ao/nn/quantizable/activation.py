"""The quantizable MultiheadAttention (see the package docstring)."""
import warnings

import torchlike as _t  # the public functions: they dispatch quantized tensors
from .... import _C
from ....nn import functional as F
from ....nn.modules.activation import MultiheadAttention as _FloatMHA
from ....nn.modules.linear import Linear
from ....nn.parameter import Parameter
from ...quantization.stubs import QuantStub, DeQuantStub
from ..quantized.modules import FloatFunctional


class MultiheadAttention(_FloatMHA):
    _FLOAT_MODULE = _FloatMHA

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False,
                 add_zero_attn=False, kdim=None, vdim=None, batch_first=False, device=None,
                 dtype=None):
        super().__init__(embed_dim, num_heads, dropout, bias, add_bias_kv, add_zero_attn,
                         kdim, vdim, batch_first)
        self.linear_Q = Linear(self.embed_dim, self.embed_dim, bias=bias)
        self.linear_K = Linear(self.kdim, self.embed_dim, bias=bias)
        self.linear_V = Linear(self.vdim, self.embed_dim, bias=bias)
        self.out_proj = Linear(self.embed_dim, self.embed_dim, bias=bias)
        self.q_scaling_product = FloatFunctional()
        self.quant_attn_output = QuantStub()
        self.quant_attn_output_weights = QuantStub()
        self.dequant_q, self.dequant_k, self.dequant_v = DeQuantStub(), DeQuantStub(), \
            DeQuantStub()

    def _get_name(self):
        return "QuantizableMultiheadAttention"

    @classmethod
    def from_float(cls, other):
        """The observed module of a float nn.MultiheadAttention with a qconfig
        (its packed in_proj split into linear_Q / K / V), prepared."""
        if type(other) is not cls._FLOAT_MODULE:
            raise AssertionError(f"Expected type {cls._FLOAT_MODULE}, got {type(other)}")
        if not hasattr(other, "qconfig"):
            raise AssertionError("The float module must have 'qconfig'")
        observed = cls(other.embed_dim, other.num_heads, other.dropout,
                       other.in_proj_bias is not None, other.bias_k is not None,
                       other.add_zero_attn, other.kdim, other.vdim, other.batch_first)
        observed.bias_k, observed.bias_v = other.bias_k, other.bias_v
        observed.qconfig = other.qconfig
        observed.out_proj.weight, observed.out_proj.bias = other.out_proj.weight, \
            other.out_proj.bias
        e = other.embed_dim
        if other._qkv_same_embed_dim:
            weights = [other.in_proj_weight[i * e:(i + 1) * e, :] for i in range(3)]
        else:
            weights = [other.q_proj_weight, other.k_proj_weight, other.v_proj_weight]
        bias = other.in_proj_bias
        for i, lin in enumerate((observed.linear_Q, observed.linear_K, observed.linear_V)):
            lin.weight = Parameter(weights[i].detach(), weights[i].requires_grad)
            lin.bias = None if bias is None else \
                Parameter(bias[i * e:(i + 1) * e].detach(), bias.requires_grad)
        observed.eval()
        from ...quantization.quantize import prepare
        return prepare(observed, inplace=True)

    @classmethod
    def from_observed(cls, other):
        raise NotImplementedError("It looks like you are trying to prepare an MHA module. "
                                  "Please, see the examples on quantizable MHAs.")

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True,
                attn_mask=None, average_attn_weights=True, is_causal=False):
        return self._forward_impl(query, key, value, key_padding_mask, need_weights,
                                  attn_mask, average_attn_weights, is_causal)

    def _forward_impl(self, query, key, value, key_padding_mask=None, need_weights=True,
                      attn_mask=None, average_attn_weights=True, is_causal=False):
        if attn_mask is not None and is_causal:
            raise AssertionError("Only allow causal mask or attn_mask")
        if is_causal:
            raise AssertionError("causal mask not supported by AO MHA module")
        if self.batch_first:
            query, key, value = (x.transpose(0, 1) for x in (query, key, value))
        tgt_len, bsz, embed_dim = query.size()
        if self.embed_dim != embed_dim:
            raise AssertionError(f"embed_dim mismatch: {self.embed_dim} != {embed_dim}")
        if key.size(0) != value.size(0) or key.size(1) != value.size(1):
            raise AssertionError(f"key and value size mismatch: key.size()={key.size()}, "
                                 f"value.size()={value.size()}")
        head_dim = self.embed_dim // self.num_heads
        q = self.q_scaling_product.mul_scalar(self.linear_Q(query), float(head_dim) ** -0.5)
        k, v = self.linear_K(key), self.linear_V(value)
        attn_mask = self._check_attn_mask(attn_mask, query, key, bsz)
        if key_padding_mask is not None and key_padding_mask.dtype is _C.uint8:
            warnings.warn("Byte tensor for `key_padding_mask` in `nn.MultiheadAttention` is "
                          "deprecated. Use bool tensor instead.", stacklevel=3)
            key_padding_mask = key_padding_mask.to(_C.bool)
        if self.bias_k is not None and self.bias_v is not None:
            k = _t.cat([k, self.bias_k.repeat(1, bsz, 1)])
            v = _t.cat([v, self.bias_v.repeat(1, bsz, 1)])
            attn_mask = None if attn_mask is None else F.pad(attn_mask, (0, 1))
            key_padding_mask = None if key_padding_mask is None else \
                F.pad(key_padding_mask, (0, 1))
        heads = bsz * self.num_heads
        q = q.contiguous().view(tgt_len, heads, head_dim).transpose(0, 1)
        k = k.contiguous().view(-1, heads, head_dim).transpose(0, 1)
        v = v.contiguous().view(-1, heads, head_dim).transpose(0, 1)
        src_len = k.size(1)
        if key_padding_mask is not None and tuple(key_padding_mask.shape[:2]) != (bsz, src_len):
            raise AssertionError(f"key_padding_mask must be ({bsz}, {src_len}), got "
                                 f"{tuple(key_padding_mask.shape)}")
        if self.add_zero_attn:
            src_len += 1
            k, v = self._zero_attn(k), self._zero_attn(v)
            attn_mask = None if attn_mask is None else F.pad(attn_mask, (0, 1))
            key_padding_mask = None if key_padding_mask is None else \
                F.pad(key_padding_mask, (0, 1))
        q, k, v = self.dequant_q(q), self.dequant_k(k), self.dequant_v(v)
        weights = _t.bmm(q, k.transpose(1, 2))
        if attn_mask is not None:
            if attn_mask.dtype is _C.bool:
                weights = weights.masked_fill(attn_mask, float("-inf"))
            else:
                weights = weights + attn_mask
        if key_padding_mask is not None:
            weights = weights.view(bsz, self.num_heads, tgt_len, src_len).masked_fill(
                key_padding_mask.unsqueeze(1).unsqueeze(2), float("-inf")).view(
                heads, tgt_len, src_len)
        weights = F.dropout(F.softmax(weights, dim=-1), p=self.dropout, training=self.training)
        out = _t.bmm(weights, v)
        if self.batch_first:
            out = out.view(bsz, tgt_len, self.embed_dim)
        else:
            out = out.transpose(0, 1).contiguous().view(tgt_len, bsz, self.embed_dim)
        out = self.out_proj(self.quant_attn_output(out))
        weights = self.quant_attn_output_weights(weights)
        if not need_weights:
            return out, None
        weights = weights.view(bsz, self.num_heads, tgt_len, src_len)
        return out, (weights.mean(dim=1) if average_attn_weights else weights)

    def _check_attn_mask(self, attn_mask, query, key, bsz):
        if attn_mask is None:
            return None
        if attn_mask.dtype is _C.uint8:
            warnings.warn("Byte tensor for `attn_mask` in `nn.MultiheadAttention` is "
                          "deprecated. Use bool tensor instead.", stacklevel=4)
            attn_mask = attn_mask.to(_C.bool)
        if not attn_mask.is_floating_point() and attn_mask.dtype is not _C.bool:
            raise AssertionError(f"Only float and bool types are supported for attn_mask, "
                                 f"not {attn_mask.dtype}")
        if attn_mask.dim() == 2:
            attn_mask = attn_mask.unsqueeze(0)
            if list(attn_mask.size()) != [1, query.size(0), key.size(0)]:
                raise RuntimeError("The size of the 2D attn_mask is not correct.")
        elif attn_mask.dim() == 3:
            if list(attn_mask.size()) != [bsz * self.num_heads, query.size(0), key.size(0)]:
                raise RuntimeError("The size of the 3D attn_mask is not correct.")
        else:
            raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")
        return attn_mask

    @staticmethod
    def _zero_attn(t):
        zeros = _t.zeros((t.size(0), 1) + tuple(t.size()[2:]))
        if t.is_quantized:
            from .... import _quantized as _q
            zeros = _q.quantize_per_tensor(zeros, t.q_scale(), t.q_zero_point(), t.dtype)
        return _t.cat([t, zeros], dim=1)
