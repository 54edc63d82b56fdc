"""QAT Embedding / EmbeddingBag (torch.ao.nn.qat): the float lookups on a
weight fake-quantized per row with float qparams (the qconfig's weight must
use per_channel_affine_float_qparams, as default_embedding_qat_qconfig's);
convert turns them into the weight-only quantized modules."""
from ....nn import functional as F
from ....nn.modules.sparse import Embedding as _Embedding, EmbeddingBag as _EmbeddingBag
from .... import _quantized as _q

__all__ = ["Embedding", "EmbeddingBag"]


def _check_qconfig(qconfig, name):
    if qconfig is None:
        raise AssertionError("qconfig must be provided for QAT module")
    scheme = qconfig.weight().qscheme
    if scheme is not _q.per_channel_affine_float_qparams:
        raise AssertionError(f"{name} weights requires a qscheme of "
                             f"{_q.per_channel_affine_float_qparams} Got {scheme}")
    return qconfig


class Embedding(_Embedding):
    _FLOAT_MODULE = _Embedding

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None,
                 norm_type=2.0, scale_grad_by_freq=False, sparse=False, _weight=None,
                 device=None, dtype=None, qconfig=None):
        super().__init__(num_embeddings, embedding_dim, padding_idx, max_norm, norm_type,
                         scale_grad_by_freq, sparse, _weight, device=device, dtype=dtype)
        self.qconfig = _check_qconfig(qconfig, "Embedding")
        self.weight_fake_quant = qconfig.weight()

    def forward(self, input):
        return F.embedding(input, self.weight_fake_quant(self.weight), self.padding_idx,
                           self.max_norm, self.norm_type, self.scale_grad_by_freq, self.sparse)

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        if type(mod) is not cls._FLOAT_MODULE:
            raise AssertionError(f" qat.{cls.__name__}.from_float only works for "
                                 f"{cls._FLOAT_MODULE.__name__}")
        qconfig = _check_qconfig(getattr(mod, "qconfig", None), cls.__name__)
        return cls(mod.num_embeddings, mod.embedding_dim, mod.padding_idx, mod.max_norm,
                   mod.norm_type, mod.scale_grad_by_freq, mod.sparse, mod.weight,
                   qconfig=qconfig)


class EmbeddingBag(_EmbeddingBag):
    _FLOAT_MODULE = _EmbeddingBag

    def __init__(self, num_embeddings, embedding_dim, max_norm=None, norm_type=2.0,
                 scale_grad_by_freq=False, mode="mean", sparse=False, _weight=None,
                 include_last_offset=False, padding_idx=None, qconfig=None, device=None,
                 dtype=None):
        super().__init__(num_embeddings, embedding_dim, max_norm, norm_type,
                         scale_grad_by_freq, mode, sparse, _weight, include_last_offset,
                         padding_idx, device=device, dtype=dtype)
        self.qconfig = _check_qconfig(qconfig, "Embedding Bag")
        self.weight_fake_quant = qconfig.weight()

    def forward(self, input, offsets=None, per_sample_weights=None):
        return F.embedding_bag(input, self.weight_fake_quant(self.weight), offsets,
                               self.max_norm, self.norm_type, self.scale_grad_by_freq,
                               self.mode, self.sparse, per_sample_weights,
                               self.include_last_offset, self.padding_idx)

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        if type(mod) is not cls._FLOAT_MODULE:
            raise AssertionError(f" qat.{cls.__name__}.from_float only works for "
                                 f"{cls._FLOAT_MODULE.__name__}")
        qconfig = _check_qconfig(getattr(mod, "qconfig", None), "Embedding Bag")
        return cls(mod.num_embeddings, mod.embedding_dim, mod.max_norm, mod.norm_type,
                   mod.scale_grad_by_freq, mod.mode, mod.sparse, mod.weight,
                   mod.include_last_offset, mod.padding_idx, qconfig=qconfig)
