"""torch.optim._functional: the optimizers' functional steps (one step over
lists of parameters, gradients and caller-kept state), for code written
against PyTorch's functional API.  Each is declared beside its optimizer;
SGD, Adam and AdamW have one here (the other optimizers' functional forms
are not provided)."""
from .sgd import sgd  # noqa: F401
from .adam import adam  # noqa: F401
from .adamw import adamw  # noqa: F401

__all__ = ["sgd", "adam", "adamw"]
