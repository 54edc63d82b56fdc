"""torchlike.utils.benchmark: PyTorch's torch.utils.benchmark for timing code.

``Timer`` runs a statement with the standard library's ``timeit`` (warming
up, choosing a block size, fixing the thread count); ``Measurement`` holds
what it measured and prints PyTorch's summary; ``Compare`` lays many
measurements out as PyTorch's table.  Instruction counting under Callgrind
(``Timer.collect_callgrind``), C++ statements and the fuzzers are not here:
see docs/api_modules.md."""
from .utils.common import *  # noqa: F401,F403
from .utils.compare import *  # noqa: F401,F403
from .utils.timer import *  # noqa: F401,F403
from .utils import common as _common, compare as _compare, timer as _timer

__all__ = _common.__all__ + _compare.__all__ + _timer.__all__
