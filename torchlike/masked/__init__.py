"""torch.masked: reductions and normalisations that skip masked-out
elements, and the MaskedTensor type (docs/masked.md)."""
from ._ops import (sum, prod, cumsum, cumprod, amax, amin, argmax, argmin, mean,  # noqa: F401
                   median, norm, var, std, logsumexp, softmax, log_softmax, softmin,
                   normalize, logaddexp)
from .maskedtensor import (MaskedTensor, masked_tensor, as_masked_tensor,  # noqa: F401
                           is_masked_tensor)

__all__ = ["sum", "prod", "cumsum", "cumprod", "amax", "amin", "argmax", "argmin", "mean",
           "median", "norm", "var", "std", "logsumexp", "softmax", "log_softmax", "softmin",
           "normalize", "logaddexp", "MaskedTensor", "masked_tensor", "as_masked_tensor",
           "is_masked_tensor"]
