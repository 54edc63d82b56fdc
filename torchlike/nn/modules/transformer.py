"""Transformer, its encoder and decoder stacks, and their layers.

Submodule names and registration order follow PyTorch's (self_attn, linear1,
dropout, linear2, norm1, norm2, dropout1, dropout2 ...), so state-dict keys
and the repr match."""
import copy
import warnings

from ... import _C
from .. import functional as F
from .. import init
from .activation import MultiheadAttention, fused_inference_allowed
from .container import ModuleList
from .dropout import Dropout
from .linear import Linear
from .module import Module
from .normalization import LayerNorm

__all__ = ["Transformer", "TransformerEncoder", "TransformerDecoder", "TransformerEncoderLayer",
           "TransformerDecoderLayer"]


def _get_clones(module, n):
    return ModuleList([copy.deepcopy(module) for _ in range(n)])


def _get_activation_fn(activation):
    if activation == "relu":
        return F.relu
    if activation == "gelu":
        return F.gelu
    raise RuntimeError(f"activation should be relu/gelu, not {activation}")


def _public_fn(fn):
    """The defaults ``activation=F.relu`` were bound before torchlike.overrides
    put F's functions behind their __torch_function__ wrappers: store the
    public object instead, so a pickled layer names ``F.relu`` and
    ``layer.activation is F.relu`` holds, as in PyTorch."""
    public = getattr(F, getattr(fn, "__name__", ""), None)
    return public if getattr(public, "__wrapped__", None) is fn else fn


def _generate_square_subsequent_mask(sz, device=None, dtype=None):
    """(sz, sz) float mask: -inf above the diagonal (future positions), 0 elsewhere."""
    dtype = dtype or _C.get_default_dtype()
    mask = _C.full((sz, sz), float("-inf"), dtype=dtype, device=device)
    return mask.triu(1)


def _build_layer(layer, n_attn, d_model, nhead, dim_feedforward, dropout, activation,
                 layer_norm_eps, batch_first, norm_first, bias, kw):
    """Register an encoder (n_attn = 1) or decoder (2) layer's submodules in
    PyTorch's order: attentions, feed-forward, norms, dropouts."""
    for name in ("self_attn", "multihead_attn")[:n_attn]:
        setattr(layer, name, MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias,
                                                batch_first=batch_first, **kw))
    layer.linear1 = Linear(d_model, dim_feedforward, bias=bias, **kw)
    layer.dropout = Dropout(dropout)
    layer.linear2 = Linear(dim_feedforward, d_model, bias=bias, **kw)
    layer.norm_first = norm_first
    for i in range(1, n_attn + 2):
        setattr(layer, f"norm{i}", LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw))
    for i in range(1, n_attn + 2):
        setattr(layer, f"dropout{i}", Dropout(dropout))
    layer.activation = _get_activation_fn(activation) if isinstance(activation, str) \
        else _public_fn(activation)
    if n_attn == 1:
        # PyTorch's flag for its fused encoder layer: 1 relu, 2 gelu, 0 other
        from .activation import GELU, ReLU
        act = layer.activation
        layer.activation_relu_or_gelu = (1 if act is F.relu or isinstance(act, ReLU) else
                                         2 if act is F.gelu or isinstance(act, GELU) else 0)


def _get_seq_len(src, batch_first):
    """The sequence length of a (L, E), (L, N, E) or (N, L, E) input."""
    if src.ndim == 2:
        return src.shape[0]
    return src.shape[1 if batch_first else 0]


def _detect_is_causal_mask(mask, is_causal=None, size=None):
    """is_causal when given; otherwise whether ``mask`` is the causal mask
    of ``size`` (generate_square_subsequent_mask's, compared elementwise)."""
    if is_causal is not None or mask is None:
        return is_causal is True
    sz = size if size is not None else mask.shape[-2]
    causal = _generate_square_subsequent_mask(sz, device=mask.device, dtype=mask.dtype)
    if tuple(mask.shape) != tuple(causal.shape):
        return False
    return bool((mask == causal).all())


def _why_no_nested(layer, norm_first_counts=True):
    """Why an encoder over copies of ``layer`` cannot take PyTorch's
    nested-tensor path ('' when it can); without ``norm_first_counts``, the
    layer's own fused kernel's conditions (it takes norm_first layers)."""
    name = "encoder_layer"
    if not isinstance(layer, TransformerEncoderLayer):
        return f"{name} was not TransformerEncoderLayer"
    if layer.norm_first and norm_first_counts:
        return f"{name}.norm_first was True"
    if not layer.self_attn.batch_first:
        return (f"{name}.self_attn.batch_first was not True(use batch_first for better "
                f"inference performance)")
    if not layer.self_attn._qkv_same_embed_dim:
        return f"{name}.self_attn._qkv_same_embed_dim was not True"
    if layer.self_attn.in_proj_bias is None:
        return f"{name}.self_attn was passed bias=False"
    if not layer.activation_relu_or_gelu:
        return f"{name}.activation_relu_or_gelu was not True"
    if layer.norm1.eps != layer.norm2.eps:
        return f"{name}.norm1.eps was not equal to {name}.norm2.eps"
    if layer.self_attn.num_heads % 2 == 1:
        return f"{name}.self_attn.num_heads is odd"
    return ""


class TransformerEncoderLayer(Module):
    """Self-attention then a feed-forward block, each with a residual
    connection and layer norm (after, or before with ``norm_first``)."""

    __constants__ = ["norm_first"]

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=F.relu,
                 layer_norm_eps=1e-5, batch_first=False, norm_first=False, bias=True,
                 device=None, dtype=None):
        super().__init__()
        _build_layer(self, 1, d_model, nhead, dim_feedforward, dropout, activation,
                     layer_norm_eps, batch_first, norm_first, bias,
                     dict(device=device, dtype=dtype))

    def __setstate__(self, state):
        super().__setstate__(state)
        if not hasattr(self, "activation"):
            self.activation = F.relu

    def forward(self, src, src_mask=None, src_key_padding_mask=None, is_causal=False):
        src_key_padding_mask = F._canonical_mask(src_key_padding_mask, "src_key_padding_mask",
                                                 F._none_or_dtype(src_mask), "src_mask",
                                                 src.dtype)
        src_mask = F._canonical_mask(src_mask, "src_mask", None, "", src.dtype,
                                     check_other=False)
        if self._takes_fast_path(src):
            return self._fast_forward(src, src_mask, src_key_padding_mask, is_causal)
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal)
            x = x + self._ff_block(self.norm2(x))
        else:
            x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal))
            x = self.norm2(x + self._ff_block(x))
        return x

    def _takes_fast_path(self, src):
        """Whether PyTorch would run this call through its fused encoder-layer
        kernel: the conditions of its TransformerEncoderLayer.forward (those
        of _why_no_nested but norm_first, plus eval mode, a batched input, no
        autocast, no hooks on the layer or its submodules, no gradients
        wanted)."""
        if src.ndim != 3 or self.training or _why_no_nested(self, norm_first_counts=False):
            return False
        if any(m._forward_hooks or m._forward_pre_hooks for m in self.modules()):
            return False
        attn = self.self_attn
        return fused_inference_allowed(
            [src, attn.in_proj_weight, attn.in_proj_bias, attn.out_proj.weight,
             attn.out_proj.bias] + [t for m in (self.norm1, self.norm2, self.linear1,
                                                self.linear2) for t in (m.weight, m.bias)])

    def _fast_forward(self, src, src_mask, src_key_padding_mask, is_causal=False):
        """The layer as PyTorch's fused kernel computes it: attention through
        MultiheadAttention._fast_forward (hard masks, whatever their dtype;
        is_causal unread; a row with no key to attend to is NaN, and so is
        everything computed from it), dropout off, relu or exact gelu as
        activation_relu_or_gelu says (a GELU('tanh') module runs as exact
        gelu there).  ``is_causal`` only speeds up a mask that is causal."""
        act = F.gelu if self.activation_relu_or_gelu == 2 else F.relu

        def sa(x):
            return self.self_attn._fast_forward(x, src_mask, src_key_padding_mask,
                                                is_causal=is_causal)[0]

        def ff(x):
            return self.linear2(act(self.linear1(x)))

        x = src
        if self.norm_first:
            x = x + sa(self.norm1(x))
            return x + ff(self.norm2(x))
        x = self.norm1(x + sa(x))
        return self.norm2(x + ff(x))

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal=False):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                           need_weights=False, is_causal=is_causal)[0]
        return self.dropout1(x)

    def _ff_block(self, x):
        return self.dropout2(self.linear2(self.dropout(self.activation(self.linear1(x)))))


class TransformerDecoderLayer(Module):
    """Self-attention, attention over the encoder's memory, feed-forward."""

    __constants__ = ["norm_first"]

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=F.relu,
                 layer_norm_eps=1e-5, batch_first=False, norm_first=False, bias=True,
                 device=None, dtype=None):
        super().__init__()
        _build_layer(self, 2, d_model, nhead, dim_feedforward, dropout, activation,
                     layer_norm_eps, batch_first, norm_first, bias,
                     dict(device=device, dtype=dtype))

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=False, memory_is_causal=False):
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask, tgt_is_causal)
            x = x + self._mha_block(self.norm2(x), memory, memory_mask,
                                    memory_key_padding_mask, memory_is_causal)
            x = x + self._ff_block(self.norm3(x))
        else:
            x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask, tgt_is_causal))
            x = self.norm2(x + self._mha_block(x, memory, memory_mask, memory_key_padding_mask,
                                               memory_is_causal))
            x = self.norm3(x + self._ff_block(x))
        return x

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal=False):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                           is_causal=is_causal, need_weights=False)[0]
        return self.dropout1(x)

    def _mha_block(self, x, mem, attn_mask, key_padding_mask, is_causal=False):
        x = self.multihead_attn(x, mem, mem, attn_mask=attn_mask,
                                key_padding_mask=key_padding_mask, is_causal=is_causal,
                                need_weights=False)[0]
        return self.dropout2(x)

    def _ff_block(self, x):
        return self.dropout3(self.linear2(self.dropout(self.activation(self.linear1(x)))))


class TransformerEncoder(Module):
    """``num_layers`` copies of ``encoder_layer``, then an optional norm.

    PyTorch's nested-tensor inference path is reproduced in what it
    returns: in eval mode, without gradients, given a padding mask and no
    attention mask (and ``use_nested_tensor``, set at construction), each
    sequence is run on its first n tokens, n its count of unpadded ones, and
    the output is zero past them (before ``norm``)."""

    def __init__(self, encoder_layer, num_layers, norm=None, enable_nested_tensor=True,
                 mask_check=True):
        super().__init__()
        self.layers = _get_clones(encoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm
        self.enable_nested_tensor = enable_nested_tensor
        self.use_nested_tensor = enable_nested_tensor
        self.mask_check = mask_check
        why = _why_no_nested(encoder_layer)
        if enable_nested_tensor and why:
            warnings.warn(f"enable_nested_tensor is True, but self.use_nested_tensor is False "
                          f"because {why}", UserWarning, stacklevel=2)
            self.use_nested_tensor = False

    def _nested_lengths(self, src, padding_mask, mask):
        """The kept length of each sequence when PyTorch would take its
        nested-tensor path here, else None."""
        from ... import backends
        first = self.layers[0]
        if not backends.mha.get_fastpath_enabled() or not getattr(self, "use_nested_tensor",
                                                                  False):
            return None
        if first.training or src.ndim != 3 or padding_mask is None or mask is not None:
            return None
        keep = padding_mask.logical_not()           # a float mask: its zeros are kept
        lengths = keep.sum(1)
        if getattr(self, "mask_check", True):
            # left aligned: each row's kept positions are its first ones
            pos = _C.arange(keep.shape[1], device=keep.device)
            if not bool((keep == (pos < lengths.unsqueeze(1))).all()):
                return None
        from ...amp import is_autocast_enabled
        if is_autocast_enabled():
            return None
        attn, ff = first.self_attn, (first.linear1, first.linear2, first.norm1, first.norm2)
        tensors = [src, attn.in_proj_weight, attn.in_proj_bias, attn.out_proj.weight,
                   attn.out_proj.bias] + [t for m in ff for t in (m.weight, m.bias)]
        if _C.is_grad_enabled() and any(t is not None and t.requires_grad for t in tensors):
            return None
        return lengths

    def forward(self, src, mask=None, src_key_padding_mask=None, is_causal=None):
        src_key_padding_mask = F._canonical_mask(src_key_padding_mask, "src_key_padding_mask",
                                                 F._none_or_dtype(mask), "mask", src.dtype)
        mask = F._canonical_mask(mask, "mask", None, "", src.dtype, check_other=False)
        lengths = self._nested_lengths(src, src_key_padding_mask, mask)
        padded = None
        if lengths is not None:
            # each sequence cut to its first `length` tokens: the padding
            # mask that keeps just those, and zeros past them afterwards
            if not bool((lengths > 0).any()):
                raise RuntimeError("to_padded_tensor: at least one constituent tensor should "
                                   "have non-zero numel")
            pos = _C.arange(src.shape[1], device=src.device)
            padded = pos >= lengths.unsqueeze(1)
            # bool, as the layers' own masks would be (their fast path takes
            # it; a sequence with no token comes out NaN there, zeroed below)
            src_key_padding_mask = padded
        batch_first = self.layers[0].self_attn.batch_first
        is_causal = _detect_is_causal_mask(mask, is_causal, _get_seq_len(src, batch_first))
        output = src
        for mod in self.layers:
            output = mod(output, src_mask=mask, src_key_padding_mask=src_key_padding_mask,
                         is_causal=is_causal)
        if padded is not None:
            output = output.masked_fill(padded.unsqueeze(-1), 0.0)
        if self.norm is not None:
            output = self.norm(output)
        return output


class TransformerDecoder(Module):
    """``num_layers`` copies of ``decoder_layer``, then an optional norm."""

    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = _get_clones(decoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=None, memory_is_causal=False):
        output = tgt
        seq_len = _get_seq_len(tgt, self.layers[0].self_attn.batch_first)
        tgt_is_causal = _detect_is_causal_mask(tgt_mask, tgt_is_causal, seq_len)
        for mod in self.layers:
            output = mod(output, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                         tgt_key_padding_mask=tgt_key_padding_mask,
                         memory_key_padding_mask=memory_key_padding_mask,
                         tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)
        if self.norm is not None:
            output = self.norm(output)
        return output


class Transformer(Module):
    """The encoder-decoder model of "Attention Is All You Need"; every matrix
    parameter is re-drawn with xavier_uniform_, as in PyTorch."""

    def __init__(self, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6,
                 dim_feedforward=2048, dropout=0.1, activation=F.relu, custom_encoder=None,
                 custom_decoder=None, layer_norm_eps=1e-5, batch_first=False, norm_first=False,
                 bias=True, device=None, dtype=None):
        super().__init__()
        kw = dict(device=device, dtype=dtype)
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            layer = TransformerEncoderLayer(d_model, nhead, dim_feedforward, dropout, activation,
                                            layer_norm_eps, batch_first, norm_first, bias, **kw)
            norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
            self.encoder = TransformerEncoder(layer, num_encoder_layers, norm)
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            layer = TransformerDecoderLayer(d_model, nhead, dim_feedforward, dropout, activation,
                                            layer_norm_eps, batch_first, norm_first, bias, **kw)
            norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
            self.decoder = TransformerDecoder(layer, num_decoder_layers, norm)
        self._reset_parameters()
        self.d_model = d_model
        self.nhead = nhead
        self.batch_first = batch_first

    def forward(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None,
                src_key_padding_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, src_is_causal=None, tgt_is_causal=None,
                memory_is_causal=False):
        is_batched = src.ndim == 3
        if (not self.batch_first and src.shape[1] != tgt.shape[1] and is_batched) or \
                (self.batch_first and src.shape[0] != tgt.shape[0] and is_batched):
            raise RuntimeError("the batch number of src and tgt must be equal")
        if src.shape[-1] != self.d_model or tgt.shape[-1] != self.d_model:
            raise RuntimeError("the feature number of src and tgt must be equal to d_model")
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask,
                              is_causal=src_is_causal)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask,
                            tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)

    @staticmethod
    def generate_square_subsequent_mask(sz, device=None, dtype=None):
        return _generate_square_subsequent_mask(sz, device, dtype)

    def _reset_parameters(self):
        for p in self.parameters():
            if p.ndim > 1:
                init.xavier_uniform_(p)
