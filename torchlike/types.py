"""torch.types: the type aliases annotations in model code import."""
from typing import List, Optional, Sequence, Tuple, Union

from . import Size, Tensor
from . import device as _device
from . import dtype as _dtype

_int = int
_float = float
_bool = bool
_complex = complex
_size = Union[Size, List[int], Tuple[int, ...]]
_dispatchkey = str
Number = Union[int, float, bool]
Device = Optional[Union[_device, str, int]]
_TensorOrTensors = Union[Tensor, Sequence[Tensor]]

__all__ = ["Number", "Device"]
