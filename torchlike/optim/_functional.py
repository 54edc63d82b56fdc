"""torch.optim._functional: the optimizers' functional steps (one step over
lists of parameters, gradients and caller-kept state), for code written
against PyTorch's functional API.  Each is declared beside its optimizer."""
from .sgd import sgd  # noqa: F401
from .adam import adam  # noqa: F401
from .adamw import adamw  # noqa: F401
from .adagrad import adagrad  # noqa: F401
from .rmsprop import rmsprop  # noqa: F401
from .adadelta import adadelta  # noqa: F401
from .adamax import adamax  # noqa: F401
from .nadam import nadam  # noqa: F401
from .radam import radam  # noqa: F401
from .rprop import rprop  # noqa: F401
from .asgd import asgd  # noqa: F401
from .sparse_adam import sparse_adam  # noqa: F401
from .adafactor import adafactor  # noqa: F401
from .muon import muon  # noqa: F401

__all__ = ["sgd", "adam", "adamw", "adagrad", "rmsprop", "adadelta", "adamax", "nadam", "radam",
           "rprop", "asgd", "sparse_adam", "adafactor", "muon"]
