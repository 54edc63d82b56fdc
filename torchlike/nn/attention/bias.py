"""torch.nn.attention.bias: causal masks for scaled_dot_product_attention
when the query and key lengths differ (a decoder step against a cache).

``causal_upper_left(L, S)`` lets query i see keys 0..i (the mask is
aligned to the top-left corner); ``causal_lower_right(L, S)`` aligns it to
the bottom-right corner, so the last query sees every key and query i sees
keys 0..i + S - L.  Passed as ``attn_mask`` they give PyTorch's results; a
query row that sees no key (lower-right with L > S) gives zeros and no
gradient, as PyTorch's.

PyTorch's CausalBias is a placeholder tensor that only its attention
kernels understand; here it is the materialised (L, S) bool mask itself
(a Tensor subclass), so scaled_dot_product_attention takes it as any bool
mask and other functions see that mask (PyTorch refuses most of them)."""
import warnings
from enum import IntEnum, auto

from ..._tensor import Tensor

__all__ = ["causal_upper_left", "causal_lower_right", "CausalVariant", "CausalBias"]


class CausalVariant(IntEnum):
    """Which corner of the (L, S) score matrix the causal triangle starts from."""
    UPPER_LEFT = auto()
    LOWER_RIGHT = auto()


def _mask(variant, seq_len_q, seq_len_kv, device=None):
    from ... import ones, bool as bool_
    full = ones(seq_len_q, seq_len_kv, dtype=bool_, device=device)
    shift = 0 if variant == CausalVariant.UPPER_LEFT else seq_len_kv - seq_len_q
    return full.tril(diagonal=shift)


class CausalBias(Tensor):
    """A causal attention mask of the given variant for seq_len_q queries
    and seq_len_kv keys: an (L, S) bool tensor, True where attention is
    allowed."""

    def __new__(cls, variant, seq_len_q, seq_len_kv):
        variant = CausalVariant(variant)
        if variant == CausalVariant.LOWER_RIGHT and seq_len_q > seq_len_kv:
            # PyTorch's words; its kernels' rows that see no key may give NaN
            # there, where the materialised mask gives zeros here
            warnings.warn("Lower right causal bias will produce NaNs in the output when "
                          "seq_len_q > seq_len_kv!", stacklevel=3)
        self = Tensor._make_subclass(cls, _mask(variant, seq_len_q, seq_len_kv))
        self.variant, self.seq_len_q, self.seq_len_kv = variant, seq_len_q, seq_len_kv
        return self

    def __init__(self, variant, seq_len_q, seq_len_kv):
        pass  # made by __new__

    def _upper_left(self, device):
        return _mask(CausalVariant.UPPER_LEFT, self.seq_len_q, self.seq_len_kv, device)

    def _lower_right(self, device):
        return _mask(CausalVariant.LOWER_RIGHT, self.seq_len_q, self.seq_len_kv, device)

    def _materialize(self, device=None):
        """The mask as a plain bool tensor (on ``device`` if given)."""
        return _mask(self.variant, self.seq_len_q, self.seq_len_kv, device)

    def __repr__(self):
        return repr(self._materialize())   # printed as the plain mask, as PyTorch prints it

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        from ... import _C
        from .. import functional as F
        kwargs = kwargs or {}
        if func is F.scaled_dot_product_attention and (
                kwargs.get("is_causal") or (len(args) > 5 and args[5])):
            raise ValueError("CausalBias should not be used with causal=True")
        with _C.DisableTorchFunctionSubclass():   # the results are plain tensors
            return func(*args, **kwargs)


def _check_2d(name, size):
    if len(size) != 2:
        raise AssertionError(f"{name} only supports 2D tensors")


def causal_upper_left(*size):
    """A CausalBias for ``size = (seq_len_q, seq_len_kv)`` aligned top-left."""
    _check_2d("causal_upper_left", size)
    return CausalBias(CausalVariant.UPPER_LEFT, size[0], size[1])


def causal_lower_right(*size):
    """A CausalBias for ``size = (seq_len_q, seq_len_kv)`` aligned bottom-right."""
    _check_2d("causal_lower_right", size)
    return CausalBias(CausalVariant.LOWER_RIGHT, size[0], size[1])
