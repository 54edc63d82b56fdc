"""shape_prop.py - ShapeProp: run a GraphModule on example inputs and record,
on each node whose value holds tensors, ``node.meta['tensor_meta']`` (a
TensorMetadata, or the same container of them the value is) and
``node.meta['type']`` (the value's type)."""
from typing import Any, NamedTuple, Optional, Tuple

import torchlike

from ..interpreter import Interpreter
from ..node import map_aggregate

__all__ = ["TensorMetadata", "ShapeProp"]


class TensorMetadata(NamedTuple):
    """What ShapeProp records of one tensor."""
    shape: Any
    dtype: Any
    requires_grad: bool
    stride: Tuple[int, ...]
    memory_format: Optional[Any]
    is_quantized: bool
    qparams: dict


def _extract_tensor_metadata(result):
    memory_format = None
    for fmt in (torchlike.contiguous_format, torchlike.channels_last,
                torchlike.channels_last_3d):
        try:
            if result.is_contiguous(memory_format=fmt):
                memory_format = fmt
                break
        except (RuntimeError, ValueError):
            continue
    return TensorMetadata(result.shape, result.dtype, result.requires_grad, result.stride(),
                          memory_format, False, {})


class ShapeProp(Interpreter):
    """``ShapeProp(gm).propagate(*example_inputs)`` runs ``gm`` and fills
    ``node.meta['tensor_meta']`` for every node that produced tensors."""

    def __init__(self, gm, fake_mode=None):
        super().__init__(gm)
        self.fake_mode = fake_mode

    def run_node(self, n):
        result = super().run_node(n)
        found_tensor = False

        def extract(obj):
            nonlocal found_tensor
            if isinstance(obj, torchlike.Tensor):
                found_tensor = True
                return _extract_tensor_metadata(obj)
            return obj

        meta = map_aggregate(result, extract)
        if found_tensor:
            n.meta["tensor_meta"] = meta
        n.meta["type"] = type(result)
        return result

    def propagate(self, *args):
        """Run on ``args``; returns the module's output."""
        return super().run(*args)
