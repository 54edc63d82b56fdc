"""torchlike.cuda memory management: the caching allocator's statistics and
controls, shaped like ``torch.cuda.memory``.

Each device's caching pool lives in C (src/ndcore/tensor/alloc_pool.c, over
cudaMalloc in src/gpu/backend_cuda.c).  On a machine without a GPU these
functions answer as PyTorch's do there: the statistics are empty or zero,
``empty_cache`` does nothing, and the functions that need a device raise."""
import collections
import contextlib
import itertools
import os
import pickle
import sys
import threading
import warnings

from .. import _C

__all__ = ["OutOfMemoryError", "memory_stats", "memory_stats_as_nested_dict", "memory_allocated",
           "max_memory_allocated", "memory_reserved", "max_memory_reserved",
           "reset_peak_memory_stats", "reset_max_memory_allocated",
           "reset_accumulated_memory_stats", "memory_summary", "empty_cache",
           "set_per_process_memory_fraction", "get_per_process_memory_fraction", "mem_get_info",
           "get_allocator_backend", "memory_cached", "max_memory_cached",
           "reset_max_memory_cached", "memory_snapshot", "caching_allocator_alloc",
           "caching_allocator_delete", "host_memory_stats", "list_gpu_processes", "MemPool",
           "use_mem_pool"]

OutOfMemoryError = _C.OutOfMemoryError

_NO_DRIVER = ("Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU "
              "and installed a driver")


def _available():
    return _C._cuda_device_count() > 0


def _device(device):
    """The cuda device a memory function is about: None and "cuda" name the
    thread's current device (torchlike.cuda.set_device), as in PyTorch."""
    if isinstance(device, int) and not isinstance(device, bool):
        return f"cuda:{device}"
    name = "cuda" if device is None else str(device)
    return f"cuda:{_C._cuda_current_device()}" if name == "cuda" else name


def memory_stats(device=None):
    """The caching allocator's statistics for ``device``, with PyTorch's key names
    (``"allocated_bytes.all.current"``, ``"num_ooms"`` ...), sorted by key.  Empty
    without a GPU."""
    if not _available():
        return collections.OrderedDict()
    return collections.OrderedDict(sorted(_C._memory_stats(_device(device)).items()))


def memory_stats_as_nested_dict(device=None):
    """memory_stats with the dotted keys split into nested dicts."""
    nested = {}
    for key, value in memory_stats(device).items():
        *path, last = key.split(".")
        d = nested
        for part in path:
            d = d.setdefault(part, {})
        d[last] = value
    return nested


def memory_allocated(device=None):
    """Bytes of device memory held by tensors (rounded block sizes)."""
    return memory_stats(device).get("allocated_bytes.all.current", 0)


def max_memory_allocated(device=None):
    """The peak of memory_allocated since start or reset_peak_memory_stats."""
    return memory_stats(device).get("allocated_bytes.all.peak", 0)


def memory_reserved(device=None):
    """Bytes the caching allocator holds from the device (used or cached)."""
    return memory_stats(device).get("reserved_bytes.all.current", 0)


def max_memory_reserved(device=None):
    """The peak of memory_reserved since start or reset_peak_memory_stats."""
    return memory_stats(device).get("reserved_bytes.all.peak", 0)


def reset_peak_memory_stats(device=None):
    """Start the ``peak`` figures again from the current ones."""
    if not _available():
        raise RuntimeError("invalid argument to reset_peak_memory_stats")
    _C._pool_control("reset_peak", _device(device))


def reset_max_memory_allocated(device=None):
    """Same as reset_peak_memory_stats (it resets every peak, as in PyTorch)."""
    reset_peak_memory_stats(device)


def reset_accumulated_memory_stats(device=None):
    """Zero the ``allocated``/``freed`` totals and the event counters."""
    if not _available():
        raise RuntimeError("invalid argument to reset_accumulated_memory_stats")
    _C._pool_control("reset_accumulated", _device(device))


def memory_summary(device=None, abbreviated=False):
    """A readable table of the allocator's statistics for ``device``."""
    if not _available():
        # PyTorch reads the (empty) statistics and fails the same way
        raise KeyError("allocated_bytes.all.current")
    return _C._memory_summary(_device(device))


def empty_cache():
    """Give cached, unused device memory back to the driver (every device)."""
    for i in range(_C._cuda_device_count()):
        _C._pool_control("empty_cache", f"cuda:{i}")


def mem_get_info(device=None):
    """(free, total) bytes of a device as its driver counts them: other
    processes' memory and this pool's cached blocks are not free."""
    if not _available():
        raise RuntimeError(_NO_DRIVER)
    return _C._mem_get_info(_device(device))


_fractions = {}  # device name -> the fraction set_per_process_memory_fraction set


def get_per_process_memory_fraction(device=None):
    """The fraction of a device's memory the pool may reserve (1.0 unless set)."""
    if not _available():
        raise RuntimeError(_NO_DRIVER)
    return _fractions.get(_device(device), 1.0)


def get_allocator_backend():
    """The allocator in use: "native", torchlike's caching pool (the only one)."""
    return "native"


def _renamed(old, new):
    def alias(device=None):
        warnings.warn(f"torchlike.cuda.{old} has been renamed to torchlike.cuda.{new.__name__}",
                      FutureWarning, stacklevel=2)
        return new(device)
    alias.__name__ = old
    alias.__doc__ = f"Deprecated name of {new.__name__}."
    return alias


def set_per_process_memory_fraction(fraction, device=None):
    """Cap what the caching allocator may reserve on ``device`` at ``fraction``
    of its total memory; past it, allocations raise OutOfMemoryError."""
    if not isinstance(fraction, float):
        raise TypeError("Invalid type for fraction argument, must be `float`")
    if not 0 <= fraction <= 1:
        raise ValueError(f"Invalid fraction value: {fraction}. Allowed range: 0~1")
    if not _available():
        raise RuntimeError(_NO_DRIVER)
    _C._set_memory_fraction(fraction, _device(device))
    _fractions[_device(device)] = fraction


# ---- history and snapshots ---------------------------------------------------------------
#
# The pool (C) lists its segments and blocks and keeps the trace; what it
# stores for a stack is an id that _record below hands out, and the stacks
# themselves live here, in _frames.  Ids no block or trace entry of a
# recording device mentions any more are dropped every _PRUNE_EVERY records.

_frames = {}            # context id -> [{"filename", "line", "name"}], innermost first
_next_id = 1
_recording = set()      # device names whose pools may hold context ids
_PRUNE_EVERY = 4096


def _record():
    """The pools' capture callback: store the calling Python stack, return its id."""
    global _next_id
    frames = []
    f = sys._getframe(1)  # the caller of the op that allocates or frees
    while f is not None:
        frames.append({"filename": f.f_code.co_filename, "line": f.f_lineno,
                       "name": f.f_code.co_name})
        f = f.f_back
    cid = _next_id
    _next_id += 1
    _frames[cid] = frames
    if cid % _PRUNE_EVERY == 0:
        _prune()
    return cid


def _ids(obj, out):
    for seg in obj[0]:
        out.add(seg["frames"])
        out.update(b["frames"] for b in seg["blocks"])
    out.update(e["frames"] for e in obj[1])


def _prune():
    live = set()
    for name in list(_recording):
        _ids(_C._memory_snapshot(name), live)
    for cid in [c for c in _frames if c not in live]:
        del _frames[cid]


def _history_device(device):
    if device is None or str(device).startswith("cuda") or isinstance(device, int):
        if not _available():
            raise RuntimeError(_NO_DRIVER)
    return _device(device)


def _record_memory_history(enabled="all", context="all", stacks="all", max_entries=sys.maxsize,
                           device=None, clear_history=False, compile_context=False,
                           global_record_annotations=False, skip_actions=None,
                           record_pinned_host_memory=False, record_cuda=True):
    """Record what allocated each block, and (``enabled="all"``) a trace of the
    caching allocator's actions, for :func:`_snapshot`.

    enabled: ``"all"`` (block stacks and the trace), ``"state"`` (block stacks
    only) or None (stop; the trace kept so far stays unless ``clear_history``).
    context: ``"all"`` (stacks of allocations and frees), ``"alloc"``,
    ``"state"`` (allocations only) or None (no stacks).  stacks: ``"python"``
    or ``"all"``; torchlike records Python frames only, so both record the
    same.  max_entries: the trace keeps the newest this many entries.
    compile_context, global_record_annotations, skip_actions,
    record_pinned_host_memory: accepted for PyTorch's signature; not recorded."""
    if enabled not in ("all", "state", None):
        raise ValueError(f"_record_memory_history: enabled must be 'all', 'state' or None, got "
                         f"{enabled!r}")
    if context not in ("all", "alloc", "state", None):
        raise ValueError(f"_record_memory_history: context must be 'all', 'alloc', 'state' or "
                         f"None, got {context!r}")
    if stacks not in ("python", "all"):
        raise ValueError(f"_record_memory_history: stacks must be 'python' or 'all', got "
                         f"{stacks!r}")
    if not isinstance(max_entries, int) or max_entries < 0:
        raise ValueError(f"_record_memory_history: max_entries must be an int >= 0, got "
                         f"{max_entries!r}")
    if not record_cuda:
        return
    name = _history_device(device)
    on = enabled is not None
    _C._record_memory_history(name, on, enabled == "all", on and context is not None,
                              on and context == "all", min(max_entries, sys.maxsize),
                              bool(clear_history), _record)
    if on:
        _recording.add(name)
    elif clear_history:  # a stopped device's trace keeps its stacks until cleared
        _recording.discard(name)


def _with_frames(obj):
    """Swap the pool's context ids for the stacks they name."""
    for item in obj:
        item["frames"] = list(_frames.get(item["frames"], ()))
    return obj


def _snapshot(device=None, augment_with_fx_traces=False):
    """The caching allocator's state: ``{"segments": [...], "device_traces":
    [[...] per device], ...}`` as PyTorch's (see docs/gpu.md).  Segments are
    sorted by address, each with its blocks in address order; a block's
    ``frames`` (innermost first) are where it was allocated, while history is
    recorded.  ``device``: None for every CUDA device; a device (the fake one
    in tests) for that one only."""
    if device is None:
        names = [f"cuda:{i}" for i in range(_C._cuda_device_count())]
    else:
        names = [_device(device)]
    segments, traces = [], []
    for name in names:
        segs, trace = _C._memory_snapshot(name)
        for seg in _with_frames(segs):
            _with_frames(seg["blocks"])
        segments.extend(segs)
        traces.append(_with_frames(trace))
    conf = os.environ.get("TORCHLIKE_CUDA_ALLOC_CONF", "")
    try:
        settings = _C._alloc_config(conf or None)
    except ValueError:
        settings = _C._alloc_config(None)
    return {"segments": segments, "device_traces": traces,
            "allocator_settings": {"PYTORCH_CUDA_ALLOC_CONF": conf, **settings},
            "external_annotations": [], "host_segments": [], "host_traces": []}


def _allocation_traceback(data_ptr, device=None):
    """The frames (innermost first) that allocated the live block starting at
    ``data_ptr``, or None when there is none or no stack was recorded
    (history off, or context=None).  ``device``: None for every CUDA device."""
    segments = _snapshot(device)["segments"]
    for seg in segments:
        if seg["address"] <= data_ptr < seg["address"] + seg["total_size"]:
            for b in seg["blocks"]:
                if b["address"] == data_ptr and b["state"] == "active_allocated":
                    return b["frames"] or None
    return None


def memory_snapshot(mempool_id=None, include_traces=True):
    """The segments of :func:`_snapshot` (every CUDA device); with
    ``mempool_id`` (a MemPool's ``id``) those of that private pool only."""
    segments = _snapshot()["segments"]
    if mempool_id is not None:
        segments = [s for s in segments if s["segment_pool_id"] == tuple(mempool_id)]
    return segments


def _dump_snapshot(filename="dump_snapshot.pickle", augment_with_fx_traces=False):
    """Pickle :func:`_snapshot` into ``filename`` (PyTorch's memory_viz reads it)."""
    with open(filename, "wb") as f:
        pickle.dump(_snapshot(), f)


# ---- private pools -------------------------------------------------------------------------

_pool_ids = itertools.count(1)
_routes = threading.local()  # .stack: the (device, id) routes of this thread's use_mem_pool


class MemPool:
    """A private pool of the caching allocator: allocations made inside
    ``use_mem_pool(pool)`` come from segments of its own, which serve no
    other request and survive empty_cache while the pool lives; when it is
    garbage collected its wholly free segments go back to the device.

    ``allocator`` (a custom allocator), ``use_on_oom`` and ``no_split`` are
    PyTorch's options torchlike does not have: only their defaults."""

    def __init__(self, allocator=None, use_on_oom=False, no_split=False):
        if allocator is not None or use_on_oom or no_split:
            raise NotImplementedError("MemPool: torchlike supports neither a custom allocator "
                                      "nor use_on_oom=True nor no_split=True")
        if not _available():
            raise RuntimeError(_NO_DRIVER)
        self._id = (0, next(_pool_ids))
        self._devices = set()  # the devices whose pools know the id
        self._uses = 0

    @property
    def id(self):
        """The pool's id, a tuple of two ints (``segment_pool_id`` in snapshots)."""
        return self._id

    def use_count(self):
        """References to the pool: this object and each use_mem_pool open on it."""
        return 1 + self._uses

    def snapshot(self, include_traces=True):
        """The segments of this pool (:func:`memory_snapshot` with its id)."""
        return memory_snapshot(self._id, include_traces=include_traces)

    def __del__(self):
        for name in getattr(self, "_devices", ()):
            try:
                _C._mem_pool_private(name, self._id[1], False)
            except Exception:  # noqa: BLE001 - the device may be gone at exit
                pass


@contextlib.contextmanager
def use_mem_pool(pool, device=None):
    """Route this thread's allocations on ``device`` (None: the current CUDA
    device) to ``pool`` for the block.  One route per thread: an inner
    use_mem_pool replaces the outer one until it exits."""
    if not isinstance(pool, MemPool):
        raise TypeError(f"use_mem_pool: expected a MemPool, got {type(pool).__name__}")
    name = _device(device)
    if name not in pool._devices:
        _C._mem_pool_private(name, pool._id[1], True)
        pool._devices.add(name)
    stack = _routes.__dict__.setdefault("stack", [])
    stack.append((name, pool._id[1]))
    pool._uses += 1
    _C._mem_pool_route(name, pool._id[1])
    try:
        yield
    finally:
        stack.pop()
        pool._uses -= 1
        _C._mem_pool_route(*(stack[-1] if stack else (name, 0)))


# ---- raw blocks and the rest of torch.cuda's memory surface ----------------------------

def _stream_handle(stream, device):
    if stream is None:
        if str(device).startswith("fake"):
            return 0
        return _C._cuda_current_stream(int(device.split(":")[1]))
    if hasattr(stream, "cuda_stream"):
        return stream.cuda_stream
    if not isinstance(stream, int) or isinstance(stream, bool):
        raise TypeError("Invalid type for stream argument, must be `torch.cuda.Stream` or `int` "
                        "representing a pointer to an existing stream")
    return stream


def caching_allocator_alloc(size, device=None, stream=None):
    """``size`` bytes from the caching allocator of ``device`` for use on
    ``stream`` (None: the current one); returns the address, an int.  Give it
    back with :func:`caching_allocator_delete`."""
    if not isinstance(size, int) or isinstance(size, bool):
        raise TypeError(f"caching_allocator_alloc: size must be an int, got "
                        f"{type(size).__name__}")
    name = _history_device(device)
    return _C._caching_allocator_alloc(name, size, _stream_handle(stream, name))


def caching_allocator_delete(mem_ptr):
    """Give back a block that :func:`caching_allocator_alloc` returned; an
    address no CUDA device handed out does nothing, as in PyTorch."""
    names = [f"cuda:{i}" for i in range(_C._cuda_device_count())]
    if _C._fake_enabled():
        names.append("fake")
    for name in names:
        if _C._caching_allocator_delete(name, int(mem_ptr)):
            return


def host_memory_stats():
    """The pinned host allocator's statistics (PyTorch's keys: "allocations.current",
    "allocated_bytes.peak", "segment.current", "reserved_bytes.current",
    "num_host_alloc", "num_host_free" ...).  Empty without a GPU."""
    if not _available():
        return collections.OrderedDict()
    return collections.OrderedDict(sorted(_C._host_memory_stats().items()))


def list_gpu_processes(device=None):
    """A readable list of the processes using ``device``, from NVML
    (the ``pynvml`` module); a message saying so when it is not installed."""
    try:
        import pynvml
    except ModuleNotFoundError:
        return "pynvml module not found, please install nvidia-ml-py"
    from pynvml import NVMLError_DriverNotLoaded
    try:
        pynvml.nvmlInit()
    except NVMLError_DriverNotLoaded:
        return "cuda driver can't be loaded, is cuda enabled?"
    index = int(_device(device).split(":")[1])
    handle = pynvml.nvmlDeviceGetHandleByIndex(index)
    procs = pynvml.nvmlDeviceGetComputeRunningProcesses(handle)
    lines = [f"GPU:{index}"]
    if not procs:
        lines.append("no processes are running")
    for p in procs:
        lines.append(f"process {p.pid:>10d} uses {p.usedGpuMemory / (1024 * 1024):>12.3f} MB "
                     f"GPU memory")
    return "\n".join(lines)


def _check_config():
    text = os.environ.get("TORCHLIKE_CUDA_ALLOC_CONF")
    if text:
        try:
            _C._alloc_config(text)
        except ValueError as e:
            warnings.warn(f"{e}; the caching allocator uses its defaults", RuntimeWarning,
                          stacklevel=3)


_check_config()


memory_cached = _renamed("memory_cached", memory_reserved)
max_memory_cached = _renamed("max_memory_cached", max_memory_reserved)
reset_max_memory_cached = _renamed("reset_max_memory_cached", reset_peak_memory_stats)
