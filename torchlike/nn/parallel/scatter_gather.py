"""scatter / scatter_kwargs / gather: split a batch across devices and join
the replicas' outputs again, as ``torch.nn.parallel`` does.

Devices are named as PyTorch names them: an int is a CUDA ordinal (``-1`` the
host), anything else is parsed as a torchlike device.  Naming the host as a
device (``"cpu"``) is refused as PyTorch refuses it; so is gathering host
tensors.  Other device types (the fake test device) are accepted, so the
whole path runs without a GPU in the tests.

Both are differentiable: a scattered chunk is a view (or a copy on another
device) of the input, a gathered tensor the concatenation of the copies,
so gradients flow back to the input and to each replica's output."""
import warnings

from ... import _C
from ..._device import device as _device

__all__ = ["scatter", "scatter_kwargs", "gather"]

Tensor = _C.Tensor


def _is_namedtuple(obj):
    return isinstance(obj, tuple) and hasattr(obj, "_asdict") and hasattr(obj, "_fields")


def _target_device(d):
    """The torchlike device that PyTorch's device argument ``d`` names: an int
    is a CUDA ordinal and -1 the host; ``"cpu"`` itself is refused (PyTorch's
    ``_get_device_index`` without ``allow_cpu``); an index-less device means
    the current one."""
    if isinstance(d, bool):
        raise TypeError(f"a device is an int, str or torchlike.device, not {d!r}")
    if isinstance(d, int):
        return _device("cpu") if d == -1 else _device("cuda", d)
    dev = d if isinstance(d, _device) else _device(d)
    if dev.type == "cpu":
        raise ValueError(f"Expected a non cpu device, but got: {d}")
    if dev.index is None:
        if dev.type == "cuda":
            from ... import cuda
            return _device("cuda", cuda.current_device())
        return _device(dev.type, 0)
    return dev


def _gather_target(d):
    """gather's destination: "cpu" and -1 are the host (PyTorch allows it
    there), anything else as in scatter."""
    if isinstance(d, str) and d == "cpu" or isinstance(d, _device) and d.type == "cpu":
        return _device("cpu")
    return _target_device(d)


def _scatter_tensor(t, devices, dim):
    if not devices:
        raise RuntimeError("Expected at least one device to scatter to")
    # torch.chunk's split: ceil(n / len(devices)) per chunk, so fewer chunks
    # than devices when the dimension is short (PyTorch's Scatter does this).
    chunks = t.chunk(len(devices), dim)
    return tuple(c.to(dev) for c, dev in zip(chunks, devices))


def scatter(inputs, target_gpus, dim=0):
    """Split the tensors in ``inputs`` (through tuples, lists, dicts and
    namedtuples) into chunks along ``dim``, one per device of
    ``target_gpus``; other objects are repeated.  Returns one structure per
    device (fewer when a tensor has fewer rows than devices)."""
    devices = [_target_device(d) for d in target_gpus]

    def scatter_map(obj):
        if isinstance(obj, Tensor):
            return _scatter_tensor(obj, devices, dim)
        if _is_namedtuple(obj):
            return [type(obj)(*args) for args in zip(*map(scatter_map, obj))]
        if isinstance(obj, tuple) and len(obj) > 0:
            return list(zip(*map(scatter_map, obj)))
        if isinstance(obj, list) and len(obj) > 0:
            return [list(i) for i in zip(*map(scatter_map, obj))]
        if isinstance(obj, dict) and len(obj) > 0:
            return [type(obj)(i) for i in zip(*map(scatter_map, obj.items()))]
        return [obj for _ in devices]

    return scatter_map(inputs)


def scatter_kwargs(inputs, kwargs, target_gpus, dim=0):
    """``scatter`` of the positional arguments and of the keyword arguments:
    ``(inputs_per_device, kwargs_per_device)``, the shorter padded with
    ``()`` / ``{}`` (PyTorch's rule, which pads the keywords only while they
    are fewer than the positional arguments given)."""
    scattered_inputs = scatter(inputs, target_gpus, dim) if inputs else []
    scattered_kwargs = scatter(kwargs, target_gpus, dim) if kwargs else []
    if len(scattered_inputs) < len(scattered_kwargs):
        scattered_inputs.extend(() for _ in range(len(scattered_kwargs) - len(scattered_inputs)))
    elif len(scattered_kwargs) < len(inputs):
        scattered_kwargs.extend({} for _ in range(len(scattered_inputs) - len(scattered_kwargs)))
    return tuple(scattered_inputs), tuple(scattered_kwargs)


def _gather_tensors(tensors, target, dim):
    if any(t.device.type == "cpu" for t in tensors):
        raise AssertionError("Gather function not implemented for CPU tensors")
    if dim == 0 and all(t.dim() == 0 for t in tensors):
        warnings.warn("Was asked to gather along dimension 0, but all input tensors were "
                      "scalars; will instead unsqueeze and return a vector.", stacklevel=3)
        tensors = [t.view(1) for t in tensors]
    return _C.cat([t.to(target) for t in tensors], dim)


def gather(outputs, target_device, dim=0):
    """Join the replicas' ``outputs`` (one structure per replica) into one on
    ``target_device`` (``"cpu"`` or -1 for the host), concatenating tensors
    along ``dim``."""
    target = _gather_target(target_device)

    def gather_map(outputs):
        out = outputs[0]
        if isinstance(out, Tensor):
            return _gather_tensors(outputs, target, dim)
        if out is None:
            return None
        if isinstance(out, dict):
            if not all(len(out) == len(d) for d in outputs):
                raise ValueError("All dicts must have the same number of keys")
            return type(out)((k, gather_map([d[k] for d in outputs])) for k in out)
        if _is_namedtuple(out):
            return type(out)._make(map(gather_map, zip(*outputs, strict=True)))
        return type(out)(map(gather_map, zip(*outputs, strict=True)))

    return gather_map(outputs)
