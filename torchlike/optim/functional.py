"""torch.optim.functional: the public name of the functional optimizer
steps (torchlike.optim._functional holds them; SGD, Adam and AdamW)."""
from ._functional import adam, adamw, sgd  # noqa: F401

__all__ = ["sgd", "adam", "adamw"]
