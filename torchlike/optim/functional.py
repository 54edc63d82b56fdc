"""torch.optim.functional: the public name of the functional optimizer
steps (torchlike.optim._functional holds them)."""
from ._functional import *  # noqa: F401,F403
from ._functional import __all__  # noqa: F401
