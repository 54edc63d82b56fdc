"""DataParallel and data_parallel: the wrapper ordinary training scripts put
around a model, and its functional form.

Both run PyTorch's algorithm: split the batch across ``device_ids``
(``scatter_kwargs``), copy the module to each of them (``replicate``), run
the copies in threads (``parallel_apply``) and join their outputs on
``output_device`` (``gather``); with one device the module itself runs on
the one chunk.  DataParallel with no GPU calls the module as it is, as
PyTorch's does.  The functional ``data_parallel`` also takes the devices
of another type (the fake test device) explicitly, so the whole path is
tested without a GPU.

The module is registered as ``module``, so state-dict keys are prefixed
``module.`` as in PyTorch."""
from ... import _C
from ..._device import device as _device
from ... import cuda
from ...cuda._lazy import _get_device_index
from ..modules.module import Module
from .parallel_apply import parallel_apply
from .replicate import replicate
from .scatter_gather import _target_device, gather, scatter_kwargs

__all__ = ["DataParallel", "data_parallel"]


def _check_module_device(module, src):
    for t in list(module.parameters()) + list(module.buffers()):
        if t.device != src:
            raise RuntimeError(
                "module must have its parameters and buffers on device "
                f"{src} (device_ids[0]) but found one of them on device: {t.device}")


def _gather_device(d):
    """PyTorch's output_device: an int (-1 the host) or a device, "cpu" allowed."""
    if isinstance(d, int) and not isinstance(d, bool):
        return d
    d = d if isinstance(d, _device) else _device(d)
    return "cpu" if d.type == "cpu" else d


class DataParallel(Module):
    """``DataParallel(module, device_ids=None, output_device=None, dim=0)``:
    ``forward(*inputs)`` splits the inputs along ``dim`` across
    ``device_ids`` (all CUDA devices by default), runs a replica of the
    module on each part and gathers the outputs on ``output_device``
    (``device_ids[0]`` by default).  Without a GPU it calls the module."""

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
        self.device_ids = [_get_device_index(d, True) for d in device_ids]
        self.output_device = _gather_device(output_device)
        self.src_device_obj = _device("cuda", self.device_ids[0])
        if len(self.device_ids) == 1:
            self.module.to(self.src_device_obj)

    def forward(self, *inputs, **kwargs):
        if not self.device_ids:
            return self.module(*inputs, **kwargs)
        _check_module_device(self.module, self.src_device_obj)
        inputs, module_kwargs = self.scatter(inputs, kwargs, self.device_ids)
        if not inputs and not module_kwargs:
            inputs, module_kwargs = ((),), ({},)
        if len(self.device_ids) == 1:
            return self.module(*inputs[0], **module_kwargs[0])
        replicas = self.replicate(self.module, self.device_ids[:len(inputs)])
        outputs = self.parallel_apply(replicas, inputs, module_kwargs)
        return self.gather(outputs, self.output_device)

    def replicate(self, module, device_ids):
        return replicate(module, device_ids, not _C.is_grad_enabled())

    def scatter(self, inputs, kwargs, device_ids):
        return scatter_kwargs(inputs, kwargs, device_ids, dim=self.dim)

    def parallel_apply(self, replicas, inputs, kwargs):
        return parallel_apply(replicas, inputs, kwargs, self.device_ids[:len(replicas)])

    def gather(self, outputs, output_device):
        return gather(outputs, output_device, dim=self.dim)


def data_parallel(module, inputs, device_ids=None, output_device=None, dim=0,
                  module_kwargs=None):
    """``module(inputs)`` evaluated as DataParallel evaluates it, across
    ``device_ids`` (all CUDA devices by default), the result on
    ``output_device`` (``device_ids[0]`` by default; -1 or "cpu": the host)."""
    if not isinstance(inputs, tuple):
        inputs = (inputs,) if inputs is not None else ()
    # the device type: CUDA's when a GPU is there, else that of devices of
    # another type named explicitly (the fake test device)
    named = [_target_device(d) for d in device_ids or ()]
    if not cuda.is_available() and not (named and named[0].type not in ("cuda", "cpu")):
        raise RuntimeError("device type could not be determined")
    if device_ids is None:
        named = [_target_device(d) for d in range(cuda.device_count())]
    if not named:
        raise RuntimeError("no available devices were found")
    targets = named
    if output_device is None:
        output_device = targets[0]
    _check_module_device(module, targets[0])
    inputs, module_kwargs = scatter_kwargs(inputs, module_kwargs, targets, dim)
    if not inputs and not module_kwargs:
        inputs, module_kwargs = ((),), ({},)
    if len(targets) == 1:
        return module(*inputs[0], **module_kwargs[0])
    used = targets[:len(inputs)]
    replicas = replicate(module, used)
    outputs = parallel_apply(replicas, inputs, module_kwargs, used)
    return gather(outputs, _gather_device(output_device), dim)
