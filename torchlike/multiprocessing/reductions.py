"""How tensors and storages pickle for another process.

``ForkingPickler`` (what every ``multiprocessing`` queue, pipe, pool and
spawned process uses) is given a reducer for :class:`Tensor` and
:class:`UntypedStorage`: the storage moves into shared memory in place and
only its handle is pickled, an fd wrapped in ``multiprocessing.reduction.DupFd``
(``file_descriptor``) or a segment name (``file_system``).  The receiver maps
the segment once per process: a storage that arrives again, or comes back to
the process that made it, is the storage already there.

CUDA tensors travel as CUDA IPC handles of their allocation (with an event
that orders the receiver after the sender's writes).  The sender keeps each
sent storage alive while a count of its holders, an int64 in shared host
memory sent along, is above zero: one for the message in flight, taken over
by the receiver, whose storage gives it back when it is freed (src/mp)."""
import multiprocessing
import os
from multiprocessing.reduction import ForkingPickler

from .. import _C
from ..serialization import UntypedStorage, _set_state

__all__ = ["init_reductions", "reduce_tensor", "reduce_storage", "share_storage", "share_handle",
           "storage_from_handle", "tensor_from_bytes", "check_sendable", "cuda_handle",
           "cuda_storage_from_handle"]


def _strategy():
    from . import get_sharing_strategy
    return get_sharing_strategy()


# ---- the cleanup process of the file_system strategy ----------------------------------

_cleaner_fd = None  # write end of the pipe to this process tree's cleanup process


def _register_name(name):
    """Hand a segment name to this process tree's cleanup process, started on
    first use: when every process holding its pipe has exited (normally or
    not), it unlinks the names still present."""
    global _cleaner_fd
    # A forked child writes to its parent's pipe (the cleaner waits for it
    # too); a spawned one starts its own.
    if _cleaner_fd is None:
        import sys
        script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_cleanup.py")
        read_end, write_end = os.pipe()
        try:
            os.posix_spawn(sys.executable, [sys.executable, "-I", script], os.environ,
                           file_actions=[(os.POSIX_SPAWN_DUP2, read_end, 0)], setsid=True)
        except OSError:
            os.close(write_end)
            return  # no crash cleanup; a segment's last user still unlinks it
        finally:
            os.close(read_end)
        _cleaner_fd = write_end
    try:
        os.write(_cleaner_fd, name.encode() + b"\n")
    except OSError:
        pass  # the cleaner is gone: as above


# ---- handles ----------------------------------------------------------------------

def share_storage(tensor):
    """Move ``tensor``'s storage into shared memory of the current strategy,
    in place, unless it is there already."""
    if not _C._is_shared(tensor):
        _C._share_memory_(tensor, _strategy())
        kind, handle, _ = _C._shared_handle(tensor)
        if kind == "file_system":
            _register_name(handle)


def share_handle(tensor):
    """Move ``tensor``'s storage into shared memory (if it is not there) and
    return a picklable handle for it: ``("file_descriptor", DupFd, nbytes)``
    or ``("file_system", name, nbytes)``.  A name handle holds a count on the
    segment until :func:`storage_from_handle` takes it over."""
    share_storage(tensor)
    kind, handle, nbytes = _C._shared_handle(tensor)
    ident = _C._shared_id(tensor)
    if kind == "file_descriptor":
        return kind, multiprocessing.reduction.DupFd(handle), nbytes, ident
    _C._retain_name(tensor)
    return kind, handle, nbytes, ident


def storage_from_handle(kind, handle, nbytes, ident):
    """The 1-d uint8 tensor over the storage a handle names."""
    if kind == "file_system":
        return _C._storage_from_name(handle, nbytes, True)
    # Memory coming back to a process that maps it already (a child handing
    # back what its parent sent) is that storage: the sender may be gone by
    # now, so its fd is only fetched to let it go, and a failure is no loss.
    known = _C._storage_lookup(*ident)
    try:
        fd = handle.detach()
    except (OSError, EOFError):
        if known is None:
            raise RuntimeError("a shared tensor's file descriptor could not be received: the "
                               "sending process exited before the receiver took it (keep the "
                               "sender alive until the tensor is received)") from None
        return known
    try:
        return known if known is not None else _C._storage_from_fd(fd, nbytes)
    finally:
        os.close(fd)


# ---- tensors and storages -----------------------------------------------------------

def check_sendable(tensor):
    if tensor.device.type == "cuda" and not _C._cuda_ipc_available():
        raise RuntimeError(f"sending a tensor on {tensor.device} to another process needs CUDA "
                           "IPC, which this build or machine does not have")
    if tensor.device.type not in ("cpu", "cuda"):
        raise RuntimeError(f"tensors on {tensor.device} cannot be sent to another process")
    if tensor.requires_grad and not tensor.is_leaf:
        raise RuntimeError("Cowardly refusing to serialize non-leaf tensor which requires_grad, "
                           "since autograd does not support crossing process boundaries.  If "
                           "you just want to transfer the data, call detach() on the tensor "
                           "before serializing (e.g., putting it on the queue).")


def rebuild_tensor(cls, handle, dtype, offset, size, stride, requires_grad, state=None):
    t = tensor_from_bytes(storage_from_handle(*handle), cls, dtype, offset, size, stride,
                          requires_grad)
    return _set_state(t, state) if state else t


def tensor_from_bytes(byte_view, cls, dtype, offset, size, stride, requires_grad):
    """The ``cls`` view (in elements of dtype) of a received storage."""
    if byte_view.shape[0] == 0:
        t = _C.empty(size, dtype=dtype, device=byte_view.device)
    else:
        typed = byte_view.view(dtype)
        t = typed.as_strided(size, stride, offset).detach()  # no view: PyTorch's set_
    if cls is not _C.Tensor:
        return _C._make_subclass(cls, t, requires_grad)
    if requires_grad:
        t.requires_grad_(True)
    return t


# ---- CUDA tensors ---------------------------------------------------------------------

_cuda_sent = {}  # key -> (tensor keeping the sent storage alive, its holders count)


def _sweep_cuda_sent():
    """Let go of sent storages no receiver holds any more."""
    for key, (_, holders) in list(_cuda_sent.items()):
        if _C._counter_add(holders, 0) <= 0:
            del _cuda_sent[key]


def cuda_handle(tensor):
    """A picklable handle of a CUDA tensor's storage, kept alive here until
    the receiver lets go of it."""
    _sweep_cuda_sent()
    if tensor.untyped_storage().nbytes() == 0:
        return None
    holders = _C.ones(1, dtype=_C.int64, device="cpu")  # a shared host counter
    share_storage(holders)
    alias = tensor.detach()
    _cuda_sent[id(alias)] = (alias, holders)
    return os.getpid(), id(alias), _C._cuda_ipc_export(tensor), holders


def cuda_storage_from_handle(handle, device):
    """The 1-d uint8 CUDA tensor over the storage a cuda_handle names."""
    if handle is None:
        return _C.empty(0, dtype=_C.uint8, device=device)
    pid, key, ipc, holders = handle
    if pid == os.getpid() and key in _cuda_sent:
        # back in the process that sent it: CUDA cannot open its own handle,
        # and needs not; the message's count is given back at once
        alias, holders = _cuda_sent[key]
        _C._counter_add(holders, -1)
        return alias.untyped_storage()._bytes
    return _C._cuda_ipc_open(*ipc, holders)


def rebuild_cuda_tensor(cls, handle, device, dtype, offset, size, stride, requires_grad,
                        state=None):
    byte_view = cuda_storage_from_handle(handle, device)
    t = tensor_from_bytes(byte_view, cls, dtype, offset, size, stride, requires_grad)
    return _set_state(t, state) if state else t


def reduce_tensor(tensor):
    check_sendable(tensor)
    state = getattr(tensor, "__dict__", None) or None
    if tensor.device.type == "cuda":
        return (rebuild_cuda_tensor, (type(tensor), cuda_handle(tensor), str(tensor.device),
                                      tensor.dtype, tensor.storage_offset(), tuple(tensor.shape),
                                      tuple(tensor.stride()), tensor.requires_grad, state))
    handle = share_handle(tensor)
    # A subclass's attributes travel with it (pickled as usual).
    return (rebuild_tensor, (type(tensor), handle, tensor.dtype, tensor.storage_offset(),
                             tuple(tensor.shape), tuple(tensor.stride()), tensor.requires_grad,
                             state))


def rebuild_storage(handle):
    return UntypedStorage._wrap(storage_from_handle(*handle))


def rebuild_cuda_storage(handle, device):
    return UntypedStorage._wrap(cuda_storage_from_handle(handle, device))


def reduce_storage(storage):
    check_sendable(storage._bytes)
    if storage._bytes.device.type == "cuda":
        return (rebuild_cuda_storage, (cuda_handle(storage._bytes), str(storage._bytes.device)))
    return (rebuild_storage, (share_handle(storage._bytes),))


def init_reductions():
    ForkingPickler.register(_C.Tensor, reduce_tensor)
    ForkingPickler.register(UntypedStorage, reduce_storage)
    # Subclasses (nn.Parameter, user classes) are looked up by exact type:
    # ForkingPickler's table does not follow the class hierarchy.
    from ..serialization import _parameter_class
    param = _parameter_class()
    if param is not None:
        ForkingPickler.register(param, reduce_tensor)

