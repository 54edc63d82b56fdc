"""Quantized Embedding and EmbeddingBag (torch.ao.nn.quantized): weight-only
quantization, uint8 rows with a float32 scale and zero point each
(per_channel_affine_float_qparams, axis 0; float_qparams_weight_only_qconfig);
float32 out.  The arithmetic is that of PyTorch's fbgemm lookups, bit for
bit: each row keeps its scale s and bias b = float32(-zp * s), and

    Embedding     out[i] = fma(s, q, b)               (q the row's integers)
    EmbeddingBag  buf = 0; for each index of a bag:   buf = fma(s, q, buf + b)
                  with per_sample_weights w:  s = float32(s * w), b = float32(b * w)

PyTorch's module passes mode 0 to its kernel whatever ``mode`` says: its
quantized EmbeddingBag always sums; this one does the same."""
from .... import _C, _quantized as _q
from ....nn.modules.module import Module

__all__ = ["Embedding", "EmbeddingBag"]


def _check_indices(indices, what):
    if not isinstance(indices, _C.Tensor) or indices.dtype not in (_C.int32, _C.int64):
        got = indices.dtype if isinstance(indices, _C.Tensor) else type(indices).__name__
        raise RuntimeError(f"{what}: Expect 32 or 64 bit indices, but found {got} instead.")
    if indices.ndim not in (1, 2):
        raise RuntimeError(f"qembedding/qembedding_bag operator supports 1 or 2d indices, got "
                           f"{indices.ndim}")


def _rows(weight, indices, what):
    """The integers (n, D) float64, scales and biases (n, 1) float32 of the rows indices name."""
    flat = indices.reshape(-1).long()
    n = weight.shape[0]
    if flat.numel() and (int(flat.min()) < 0 or int(flat.max()) >= n):
        bad = int(flat.min()) if int(flat.min()) < 0 else int(flat.max())
        raise IndexError(f"{what}: index {bad} is out of range for {n} embeddings")
    scales = weight.q_per_channel_scales().float()
    bias = (-weight.q_per_channel_zero_points().float() * scales).float()
    return (weight._int.index_select(0, flat).double(), scales.index_select(0, flat).unsqueeze(1),
            bias.index_select(0, flat).unsqueeze(1))


def _fma(s, q, c):
    """float32 fma(s, q, c): s * q is exact in float64 (24 + 8 bits)."""
    return (s.double() * q + c.double()).float()


def embedding_byte(weight, indices):
    """Rows of a quantized (quint8, float qparams) weight, dequantized: indices.shape + (D,)."""
    _check_indices(indices, "quantized::embedding_byte")
    q, s, b = _rows(weight, indices, "quantized::embedding_byte")
    return _fma(s, q, b).reshape(tuple(indices.shape) + (weight.shape[1],))


def embedding_bag_byte(weight, indices, offsets=None, per_sample_weights=None,
                       include_last_offset=False):
    """Sums of dequantized rows over bags (see the module docstring): (bags, D)."""
    what = "quantized::embedding_bag_byte"
    _check_indices(indices, what)
    if indices.ndim == 2:  # each row one bag, as PyTorch's kernel reads 2-d indices
        offsets = _C.arange(0, indices.numel(), max(1, indices.shape[1]))
        indices = indices.reshape(-1)
    elif offsets is None:
        raise RuntimeError("embedding_bag_byte expects offsets to be set for 1D indices.")
    if not isinstance(offsets, _C.Tensor) or offsets.dtype not in (_C.int32, _C.int64) or \
            offsets.ndim != 1:
        raise RuntimeError(f"{what}: offsets must be a 1-d int32 or int64 tensor, got "
                           f"{getattr(offsets, 'dtype', type(offsets).__name__)}")
    n = indices.numel()
    starts = [int(v) for v in offsets.tolist()]
    ends = starts[1:] + [n]
    if include_last_offset:
        starts, ends = starts[:-1], ends[:-1]
    if any(a > e or a < 0 or e > n for a, e in zip(starts, ends)):
        raise RuntimeError(f"{what}: offsets {starts + ([n] if not include_last_offset else [])} "
                           f"must be non-decreasing and within the {n} indices")
    q, s, b = _rows(weight, indices, what)
    if per_sample_weights is not None:
        if not isinstance(per_sample_weights, _C.Tensor) or \
                per_sample_weights.dtype is not _C.float32 or \
                tuple(per_sample_weights.shape) != (n,):
            raise RuntimeError(f"{what}: per_sample_weights must be float32 of the indices' shape "
                               f"({n},), got {getattr(per_sample_weights, 'dtype', None)} "
                               f"{tuple(getattr(per_sample_weights, 'shape', ()))}")
        w = per_sample_weights.unsqueeze(1)
        s, b = (s * w).float(), (b * w).float()
    bags = len(starts)
    out = _C.zeros(bags, weight.shape[1])
    longest = max([e - a for a, e in zip(starts, ends)], default=0)
    for k in range(longest):  # the k-th index of every bag that has one, in order
        live = [i for i in range(bags) if ends[i] - starts[i] > k]
        rows = _C.tensor([starts[i] + k for i in live], dtype=_C.int64)
        bag = _C.tensor(live, dtype=_C.int64)
        acc = out.index_select(0, bag)
        out = out.index_copy(0, bag, _fma(s.index_select(0, rows), q.index_select(0, rows),
                                          acc + b.index_select(0, rows)))
    return out


def _check_weight(w, num_embeddings, embedding_dim, what):
    if not isinstance(w, _q.QTensor) or w.dtype is not _C.quint8 or \
            w.qscheme() is not _q.per_channel_affine_float_qparams or w.q_per_channel_axis() != 0:
        desc = f"{w.dtype} {w.qscheme()}" if isinstance(w, _q.QTensor) else \
            getattr(w, "dtype", type(w).__name__)
        raise RuntimeError(f"{what}: the weight must be quint8 quantized per row with float "
                           f"qparams (per_channel_affine_float_qparams, axis 0), got {desc}")
    if tuple(w.shape) != (num_embeddings, embedding_dim):
        raise AssertionError(f"Shape of weight does not match num_embeddings and embedding_dim: "
                             f"expected {[num_embeddings, embedding_dim]}, got {list(w.shape)}")
    return w


def _observed_float_qparams_weight(mod, name):
    """mod's weight quantized by its qconfig's weight observer, which must use
    float qparams (float_qparams_weight_only_qconfig's when it has none)."""
    from ...quantization.qconfig import float_qparams_weight_only_qconfig
    from .modules import _quantize_weight
    observer = getattr(mod, "weight_fake_quant", None)
    if observer is None:
        qconfig = getattr(mod, "qconfig", None)
        factory = qconfig.weight if qconfig is not None and qconfig.weight is not None else \
            float_qparams_weight_only_qconfig.weight
        observer = factory()
    if observer.qscheme is not _q.per_channel_affine_float_qparams:
        raise AssertionError(f"{name} quantization is only supported with "
                             f"float_qparams_weight_only_qconfig.")
    if observer.dtype is not _C.quint8:
        raise NotImplementedError(f"torchlike's quantized {name} takes torch.quint8 weights "
                                  f"(quint4x2 is not supported), got {observer.dtype}")
    observer(mod.weight)  # a QAT module's fake quantizer too, as PyTorch
    return _quantize_weight(mod.weight.detach().float(), observer)


class Embedding(Module):
    """A lookup table of uint8 rows: indices (any shape of int32/int64) ->
    indices.shape + (embedding_dim,) float32.  padding_idx, max_norm and the
    gradient options are accepted and unused, as in PyTorch's."""
    _version = 1

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None,
                 norm_type=2.0, scale_grad_by_freq=False, sparse=False, _weight=None,
                 dtype=_C.quint8):
        super().__init__()
        if dtype is not _C.quint8:
            raise NotImplementedError(f"Unsupported dtype on quantized embedding! torchlike "
                                      f"supports quint8. Got dtype: {dtype}")
        self.num_embeddings, self.embedding_dim, self.dtype = num_embeddings, embedding_dim, dtype
        if _weight is None:
            _weight = _q.quantize_per_channel(_C.zeros(num_embeddings, embedding_dim),
                                              _C.ones(num_embeddings), _C.zeros(num_embeddings),
                                              0, _C.quint8)
        self.set_weight(_weight)

    def _get_name(self):
        return "QuantizedEmbedding"

    def extra_repr(self):
        return (f"num_embeddings={self.num_embeddings}, embedding_dim={self.embedding_dim}, "
                f"dtype={self.dtype}, qscheme={self._weight.qscheme()}")

    def set_weight(self, w):
        self._weight = _check_weight(w, self.num_embeddings, self.embedding_dim,
                                     self._get_name())

    def weight(self):
        return self._weight

    def forward(self, indices):
        return embedding_byte(self._weight, indices)

    # PyTorch keeps the weight in an EmbeddingPackedParams child: its state
    # dict has _packed_params.dtype and _packed_params._packed_weight.
    def _save_to_state_dict(self, destination, prefix, keep_vars):
        super()._save_to_state_dict(destination, prefix, keep_vars)
        destination[prefix + "_packed_params.dtype"] = self.dtype
        destination[prefix + "_packed_params._packed_weight"] = self._weight

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        keys = [prefix + "_packed_params.dtype", prefix + "_packed_params._packed_weight"]
        present = [k in state_dict for k in keys]
        if all(present):
            dtype, weight = state_dict.pop(keys[0]), state_dict.pop(keys[1])
            try:
                if dtype is not _C.quint8:
                    raise RuntimeError(f"{keys[0]}: torchlike's quantized embeddings hold quint8 "
                                       f"weights, the checkpoint has {dtype}")
                self.set_weight(weight)
            except (RuntimeError, AssertionError) as e:
                error_msgs.append(str(e))
        elif strict:
            missing_keys.extend(k for k, p in zip(keys, present) if not p)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                      unexpected_keys, error_msgs)

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        from ....nn.modules.sparse import Embedding as _FloatEmbedding
        from ..qat import Embedding as _QATEmbedding
        if type(mod) not in (_FloatEmbedding, _QATEmbedding):
            raise AssertionError("nnq.Embedding.from_float only works for Embedding")
        return cls(mod.num_embeddings, mod.embedding_dim,
                   _weight=_observed_float_qparams_weight(mod, "Embedding"))


class EmbeddingBag(Embedding):
    """Sums of uint8 rows over bags: indices 1-d with offsets (or 2-d, a
    bag per row), optional per_sample_weights -> (bags, embedding_dim) float32."""
    _version = 1

    def __init__(self, num_embeddings, embedding_dim, max_norm=None, norm_type=2.0,
                 scale_grad_by_freq=False, mode="sum", sparse=False, _weight=None,
                 include_last_offset=False, dtype=_C.quint8):
        super().__init__(num_embeddings, embedding_dim, _weight=_weight, dtype=dtype)
        self.mode, self.pruned_weights = mode, False
        self.include_last_offset = include_last_offset

    def _get_name(self):
        return "QuantizedEmbeddingBag"

    def forward(self, indices, offsets=None, per_sample_weights=None,
                compressed_indices_mapping=None):
        if compressed_indices_mapping is not None:
            raise NotImplementedError("quantized EmbeddingBag: pruned weights "
                                      "(compressed_indices_mapping) are not supported by torchlike")
        return embedding_bag_byte(self._weight, indices, offsets, per_sample_weights,
                                  self.include_last_offset)

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        from ....nn.modules.sparse import EmbeddingBag as _FloatBag
        from ..qat import EmbeddingBag as _QATBag
        if type(mod) not in (_FloatBag, _QATBag):
            raise AssertionError("nnq.EmbeddingBag.from_float only works for EmbeddingBag")
        return cls(mod.num_embeddings, mod.embedding_dim, mod.max_norm, mod.norm_type,
                   mod.scale_grad_by_freq, mod.mode, mod.sparse,
                   _observed_float_qparams_weight(mod, "EmbeddingBag"), mod.include_last_offset)
