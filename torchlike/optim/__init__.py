"""torchlike.optim: optimizers and learning-rate schedules, as torch.optim.

Each optimizer follows PyTorch's update formula, defaults and state-dict
layout.  On the CPU a group's step runs in one C call over all its
parameters (the multi-tensor path, bit-identical to the per-parameter one);
`foreach=False` selects the per-parameter path."""
from .optimizer import Optimizer  # noqa: F401
from .sgd import SGD  # noqa: F401
from .adam import Adam, AdamW  # noqa: F401
from . import lr_scheduler  # noqa: F401
from . import swa_utils  # noqa: F401

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "lr_scheduler", "swa_utils"]
