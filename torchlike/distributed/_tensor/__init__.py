"""The old import path of DTensor (``torch.distributed._tensor``), kept by
PyTorch for code written before it moved: the same objects as
torchlike.distributed.tensor."""
import sys

from .. import device_mesh as _device_mesh
from ..tensor import (DeviceMesh, DTensor, Partial, Placement, Replicate, Shard,  # noqa: F401
                      distribute_module, distribute_tensor, empty, full, init_device_mesh,
                      ones, rand, randn, zeros)
from ..tensor import placement_types  # noqa: F401

sys.modules[__name__ + ".placement_types"] = placement_types
sys.modules[__name__ + ".device_mesh"] = _device_mesh

__all__ = ["DTensor", "DeviceMesh", "distribute_tensor", "distribute_module",
           "init_device_mesh", "Shard", "Replicate", "Partial", "Placement", "ones", "empty",
           "full", "rand", "randn", "zeros"]
