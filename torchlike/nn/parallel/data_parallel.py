"""DataParallel: the wrapper ordinary training scripts put around a model.

PyTorch's splits each batch across several GPUs, runs a replica of the module
on each and gathers the outputs on ``output_device``.  With no GPU it calls
the module as it is, and with one it moves the inputs to that GPU and calls
the module there; torchlike does the same.  With several GPUs torchlike
still runs the whole batch on ``device_ids[0]`` (no replicas): the outputs
are those of one replica on the whole batch, which equal PyTorch's gathered
ones except for layers that mix rows of a batch (batch norm statistics).

The module is registered as ``module``, so state-dict keys are prefixed
``module.`` as in PyTorch."""
from ... import _C
from ... import cuda
from ..modules.module import Module

__all__ = ["DataParallel"]

Tensor = _C.Tensor


def _to_device(obj, device):
    """``obj`` with every tensor in it (through tuples, lists, dicts) moved to
    ``device``."""
    if isinstance(obj, Tensor):
        return obj.to(device)
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):  # namedtuple
        return type(obj)(*(_to_device(o, device) for o in obj))
    if isinstance(obj, (list, tuple)):
        return type(obj)(_to_device(o, device) for o in obj)
    if isinstance(obj, dict):
        return type(obj)((k, _to_device(v, device)) for k, v in obj.items())
    return obj


def _device_index(d):
    if isinstance(d, int):
        return d
    d = _C.device(d) if not isinstance(d, _C.device) else d
    return 0 if d.index is None else d.index


class DataParallel(Module):
    """``DataParallel(module, device_ids=None, output_device=None, dim=0)``:
    ``forward(*inputs)`` returns ``module(*inputs)`` run on ``device_ids[0]``
    (all CUDA devices by default), or on the module's own device when there
    is no GPU."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        self.module = module
        if not cuda.is_available():
            self.device_ids = []
            return
        if device_ids is None:
            device_ids = list(range(cuda.device_count()))
        if not device_ids:
            raise RuntimeError("no available devices were found")
        if output_device is None:
            output_device = device_ids[0]
        self.dim = dim
        self.device_ids = [_device_index(d) for d in device_ids]
        self.output_device = _device_index(output_device)
        self.src_device_obj = _C.device("cuda", self.device_ids[0])
        if len(self.device_ids) == 1:
            self.module.to(self.src_device_obj)

    def forward(self, *inputs, **kwargs):
        if not self.device_ids:
            return self.module(*inputs, **kwargs)
        for t in list(self.module.parameters()) + list(self.module.buffers()):
            if t.device != self.src_device_obj:
                raise RuntimeError(
                    "module must have its parameters and buffers on device "
                    f"{self.src_device_obj} (device_ids[0]) but found one of them on device: "
                    f"{t.device}")
        inputs = _to_device(inputs, self.src_device_obj)
        kwargs = _to_device(kwargs, self.src_device_obj)
        output = self.module(*inputs, **kwargs)
        if self.output_device != self.device_ids[0]:
            output = _to_device(output, _C.device("cuda", self.output_device))
        return output
