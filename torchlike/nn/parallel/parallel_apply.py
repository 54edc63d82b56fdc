"""parallel_apply: run replica i on inputs[i] in a thread of its own, as
``torch.nn.parallel`` does, and return the outputs in order.

Each thread gets the caller's grad mode and autocast state (both are per
thread) and, for a CUDA device, that device as the current one; an
exception in a replica is raised again in the caller as the same type,
naming the replica and its device.  Unlike PyTorch's, it also runs where
there is no accelerator: host and fake-device replicas run in their
threads all the same (PyTorch stops with "No available accelerator")."""
import contextlib
import sys
import threading

from ... import _C
from ..._device import device as _device
from ...utils.data._worker import ExceptionWrapper

__all__ = ["get_a_var", "parallel_apply"]

Tensor = _C.Tensor


def get_a_var(obj):
    """The first tensor in ``obj`` (through lists, tuples and dicts), or None."""
    if isinstance(obj, Tensor):
        return obj
    if isinstance(obj, (list, tuple)):
        for result in map(get_a_var, obj):
            if isinstance(result, Tensor):
                return result
    if isinstance(obj, dict):
        for result in map(get_a_var, obj.items()):
            if isinstance(result, Tensor):
                return result
    return None


def _resolve(device):
    if device is None:
        return None
    if isinstance(device, int) and not isinstance(device, bool):
        return _device("cpu") if device == -1 else _device("cuda", device)
    return device if isinstance(device, _device) else _device(device)


def _device_scope(device):
    """The current-device (and current-stream) scope a replica runs in."""
    if device.type != "cuda":
        return contextlib.nullcontext()
    from ... import cuda
    return cuda.device(device.index if device.index is not None else cuda.current_device())


def parallel_apply(modules, inputs, kwargs_tup=None, devices=None):
    """``[modules[i](*inputs[i], **kwargs_tup[i]) for i ...]``, each call in
    its own thread on ``devices[i]`` (by default the device of the first
    tensor in ``inputs[i]``).  An input that is not a list or tuple is the
    module's only argument."""
    if len(modules) != len(inputs):
        raise AssertionError(f"The number of modules {len(modules)} is not equal to "
                             f"the number of inputs {len(inputs)}")
    if kwargs_tup is not None:
        if len(modules) != len(kwargs_tup):
            raise AssertionError(f"The number of modules {len(modules)} is not equal to "
                                 f"the number of kwargs_tup {len(kwargs_tup)}")
    else:
        kwargs_tup = ({},) * len(modules)
    if devices is not None:
        if len(modules) != len(devices):
            raise AssertionError(f"The number of modules {len(modules)} is not equal to "
                                 f"the number of devices {len(devices)}")
    else:
        devices = [None] * len(modules)
    devices = [_resolve(d) for d in devices]

    from ...amp import autocast_mode as amp
    grad_enabled = _C.is_grad_enabled()
    autocast_on = [(dt, amp.get_autocast_dtype(dt)) for dt in ("cpu", "cuda")
                   if amp.is_autocast_enabled(dt)]
    lock = threading.Lock()
    results = {}

    def worker(i, module, input, kwargs, device):
        _C._set_grad_enabled(grad_enabled)
        if device is None:
            t = get_a_var(input)
            if t is None:
                with lock:
                    results[i] = ExceptionWrapper(
                        (RuntimeError, RuntimeError("device cannot be resolved"), None),
                        f"in replica {i}, no device was provided and no tensor input was "
                        "found; device cannot be resolved")
                return
            device = t.device
        try:
            with contextlib.ExitStack() as stack:
                stack.enter_context(_device_scope(device))
                for dt, dtype in autocast_on:
                    stack.enter_context(amp.autocast(dt, dtype=dtype))
                if not isinstance(input, (list, tuple)):
                    input = (input,)
                output = module(*input, **kwargs)
            with lock:
                results[i] = output
        except Exception:
            with lock:
                results[i] = ExceptionWrapper(sys.exc_info(), f"in replica {i} on device {device}")

    if len(modules) > 1:
        threads = [threading.Thread(target=worker, args=(i, m, x, kw, d))
                   for i, (m, x, kw, d) in enumerate(zip(modules, inputs, kwargs_tup, devices))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    elif modules:
        worker(0, modules[0], inputs[0], kwargs_tup[0], devices[0])

    outputs = []
    for i in range(len(inputs)):
        output = results[i]
        if isinstance(output, ExceptionWrapper):
            output.reraise()
        outputs.append(output)
    return outputs
