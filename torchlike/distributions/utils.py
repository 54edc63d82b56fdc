"""Helpers shared by the distribution families: broadcasting of parameters,
cached properties, and the conversions between probabilities and logits."""
import numbers
from functools import update_wrapper

import torchlike

__all__ = ["broadcast_all", "lazy_property", "logits_to_probs", "probs_to_logits",
           "clamp_probs", "tiny", "eps"]

_EPS = {"float16": 0.0009765625, "bfloat16": 0.0078125, "float32": 1.1920928955078125e-07,
        "float64": 2.220446049250313e-16}
_TINY = {"float16": 6.103515625e-05, "bfloat16": 1.1754943508222875e-38,
         "float32": 1.1754943508222875e-38, "float64": 2.2250738585072014e-308}


def _dtype_name(dtype):
    return str(dtype).rsplit(".", 1)[-1]


def eps(dtype):
    """Machine epsilon of a floating dtype (PyTorch's ``finfo(dtype).eps``)."""
    return _EPS[_dtype_name(dtype)]


def tiny(dtype):
    """Smallest normal number of a floating dtype (``finfo(dtype).tiny``)."""
    return _TINY[_dtype_name(dtype)]


def broadcast_all(*values):
    """Broadcast tensors and Python numbers to one shape. Numbers become
    tensors of the dtype and device of the first tensor argument (the default
    float dtype when there is none)."""
    tensors = [v for v in values if isinstance(v, torchlike.Tensor)]
    for v in values:
        if not isinstance(v, (torchlike.Tensor, numbers.Number)):
            raise ValueError("Input arguments must all be instances of numbers.Number, "
                             f"torchlike.Tensor or objects implementing __torch_function__; got {type(v).__name__}")
    if tensors:
        ref = tensors[0]
        dtype = ref.dtype if ref.is_floating_point() else torchlike.get_default_dtype()
        values = [v if isinstance(v, torchlike.Tensor)
                  else torchlike.tensor(v, dtype=dtype, device=ref.device) for v in values]
    else:
        values = [torchlike.tensor(float(v), dtype=torchlike.get_default_dtype()) for v in values]
    return tuple(torchlike.broadcast_tensors(*values))


def probs_or_logits(dist, probs, logits, *others):
    """Set dist.probs or dist.logits, whichever is given (PyTorch's error when
    both or neither are), broadcast with `others`, and dist._param to it.
    Returns whether it was a Python number and the broadcast `others`."""
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")
    name, given = ("probs", probs) if probs is not None else ("logits", logits)
    *rest, param = broadcast_all(*others, given)
    setattr(dist, name, param)
    dist._param = param
    return isinstance(given, numbers.Number), rest


def broadcast_params(*values):
    """:func:`broadcast_all` plus the batch shape: empty when every value is a
    Python number (PyTorch's families give 0-d parameters then)."""
    tensors = broadcast_all(*values)
    if all(isinstance(v, numbers.Number) for v in values):
        return tensors, torchlike.Size()
    return tensors, tensors[0].size()


def _standard_normal(shape, dtype, device):
    return torchlike.randn(tuple(shape), dtype=dtype, device=device)


def _sum_rightmost(value, dim):
    """Sum out the ``dim`` rightmost dimensions of ``value``."""
    if dim == 0:
        return value
    return value.reshape(tuple(value.shape[:value.dim() - dim]) + (-1,)).sum(-1)


def logits_to_probs(logits, is_binary=False):
    """Binary logits go through a sigmoid, categorical ones through a softmax
    over the last dimension."""
    if is_binary:
        return torchlike.sigmoid(logits)
    return torchlike.exp(logits - torchlike.logsumexp(logits, -1).unsqueeze(-1))


def clamp_probs(probs):
    """Keep probabilities inside (0, 1) so their logarithms stay finite."""
    e = eps(probs.dtype)
    return probs.clamp(e, 1.0 - e)


def probs_to_logits(probs, is_binary=False):
    """The inverse of :func:`logits_to_probs` (up to a constant for the
    categorical case: log-probabilities are returned)."""
    p = clamp_probs(probs)
    if is_binary:
        return torchlike.log(p) - torchlike.log1p(-p)
    return torchlike.log(p)


class lazy_property:
    """A property computed on first access and then stored on the instance,
    as PyTorch's ``lazy_property``: ``Bernoulli(probs=p).logits`` is derived
    once from ``probs``."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        update_wrapper(self, wrapped)

    def __get__(self, instance, obj_type=None):
        if instance is None:
            return self
        with torchlike.enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value
