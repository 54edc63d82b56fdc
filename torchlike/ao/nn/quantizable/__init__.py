"""torch.ao.nn.quantizable: float modules laid out so eager quantization can
observe and convert them.  MultiheadAttention runs its projections as
separate Linear layers (linear_Q, linear_K, linear_V, out_proj), scales q
through a FloatFunctional and marks where the attention leaves and re-enters
the quantized domain with (De)QuantStubs; the attention products and softmax
stay float.  prepare takes it through ``float_to_observed_custom_module_class``
and convert through ``observed_to_quantized_custom_module_class``
(ao.nn.quantized.MultiheadAttention), as in PyTorch."""
from .activation import MultiheadAttention

__all__ = ["MultiheadAttention"]
