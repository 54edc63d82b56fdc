"""replicate: copies of a module, one per device, as ``torch.nn.parallel``
makes them for DataParallel.

Every replica is a shallow copy of each submodule (``_replicate_for_data_
parallel``) whose parameters are plain tensors, not Parameters: on the first
device they are differentiable aliases of the original parameters, on the
others differentiable copies, so a backward through any replica accumulates
into the original module's ``.grad``.  ``detach=True`` gives copies with no
history.  Buffers are copied without history unless they require grad.
Replicas own no parameters (``replica.parameters()`` is empty), as in
PyTorch.  Host tensors cannot be replicated (PyTorch's Broadcast refuses
them), so the module must sit on a device; the fake test device counts."""
from collections import OrderedDict

from .scatter_gather import _target_device

__all__ = ["replicate"]


def _broadcast(tensors, devices, detach):
    """copies[j][i]: tensors[i] on devices[j]."""
    for t in tensors:
        if t.device.type == "cpu":
            raise AssertionError("Broadcast function not implemented for CPU tensors")
    copies = []
    for j, dev in enumerate(devices):
        row = []
        for t in tensors:
            src = t.detach() if detach or not t.requires_grad else t
            if j == 0 and dev == t.device:
                # the source device keeps the data: an alias, with history
                # when the original requires grad (PyTorch's Broadcast returns
                # its inputs there)
                row.append(src.view_as(src))
            else:
                row.append(src.to(dev, copy=True))
        copies.append(row)
    return copies


def replicate(network, devices, detach=False):
    """One replica of ``network`` per entry of ``devices``."""
    if not devices:
        return []
    devices = [_target_device(d) for d in devices]
    n = len(devices)

    params = list(network.parameters())
    param_index = {id(p): i for i, p in enumerate(params)}
    param_copies = _broadcast(params, devices, detach) if params else [[] for _ in devices]

    buffers = list(network.buffers())
    buffer_index = {id(b): i for i, b in enumerate(buffers)}
    buffer_copies = _broadcast(buffers, devices, detach) if buffers else [[] for _ in devices]

    modules = list(network.modules())
    module_index = {id(m): i for i, m in enumerate(modules)}
    copies = [[m._replicate_for_data_parallel() for m in modules] for _ in range(n)]
    for j in range(n):
        for replica in copies[j]:
            replica._former_parameters = OrderedDict()

    for i, module in enumerate(modules):
        for j in range(n):
            replica = copies[j][i]
            for key, child in module._modules.items():
                if child is None:
                    replica._modules[key] = None
                else:
                    setattr(replica, key, copies[j][module_index[id(child)]])
            for key, param in module._parameters.items():
                if param is None:
                    replica._parameters[key] = None
                else:
                    copy = param_copies[j][param_index[id(param)]]
                    setattr(replica, key, copy)
                    replica._former_parameters[key] = copy
            for key, buf in module._buffers.items():
                if buf is None:
                    replica._buffers[key] = None
                else:
                    setattr(replica, key, buffer_copies[j][buffer_index[id(buf)]])
    return [copies[j][0] for j in range(n)]
