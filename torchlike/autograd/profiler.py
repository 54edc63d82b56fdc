"""torch.autograd.profiler: record_function and the legacy profile.

Events come from torchlike._C's recorder: registry ops, Tensor methods and
operators, t[i], the functions of grad_fns.def and every node the backward
engine runs open an event when a profiler is on (see docs/profiler.md)."""
import contextlib
import time

from torchlike import _C
from torchlike.autograd.profiler_util import (DeviceType, EventList, FunctionEvent,  # noqa: F401
                                              FunctionEventAvg, _export_chrome_trace,
                                              _matmul_flops)

__all__ = ["EventList", "FunctionEvent", "FunctionEventAvg", "profile", "record_function"]

_KIND_PREFIX = {0: "aten::", 1: "", 2: "", 3: "autograd::engine::evaluate_function: "}


class record_function(contextlib.ContextDecorator):
    """A named range around user code; nests with other ranges and the ops
    inside it.  Costs nothing recorded when no profiler runs."""

    def __init__(self, name, args=None):
        if not isinstance(name, str):
            raise TypeError(f"record_function(): name must be str, not {type(name).__name__}")
        self.name = name
        self.args = args
        self._handles = []

    def __enter__(self):
        self._handles.append(_C._profiler_push(self.name))
        return self

    def __exit__(self, *exc):
        _C._profiler_pop(self._handles.pop())
        return False


# who holds the recorder when it is not a profiler (FlopCounterMode says so
# here), for the error of a profiler started meanwhile
_holder = None


def _start(record_shapes):
    if _C._profiler_enabled():
        raise RuntimeError("Profiler is already enabled on this thread" +
                           (f" ({_holder})" if _holder else ""))
    _C._profiler_enable(bool(record_shapes))
    return time.monotonic_ns()


def _stop(base_ns, with_flops=False):
    """The recorded events as an EventList, times in microseconds since the start."""
    raw = _C._profiler_disable()
    events = EventList(with_flops=with_flops)
    for i, (kind, name, start, end, tid, parent, inputs, device) in enumerate(raw):
        full = _KIND_PREFIX[kind] + name
        trace_name = full
        if kind == 1 and full.startswith("ProfilerStep#"):
            full = "ProfilerStep*"  # PyTorch's key for every step range
        shapes, dtypes, concrete = [], [], []  # PyTorch's for ranges without recorded inputs
        if inputs is not None:
            shapes = [list(s) for s, _, _ in inputs]
            dtypes = [d for _, d, _ in inputs]
            # int lists come as tuples (a copy); PyTorch lists them as lists
            concrete = [list(v) if isinstance(v, tuple) else v for _, _, v in inputs]
        dev_type = DeviceType.CUDA if device.startswith("cuda") else DeviceType.CPU
        e = FunctionEvent(i + 1, full, tid, (start - base_ns) / 1e3, (end - base_ns) / 1e3,
                          input_shapes=shapes, input_dtypes=dtypes, stack=[],
                          device_type=dev_type, trace_name=trace_name,
                          is_user_annotation=kind == 1, device=device,
                          flops=_matmul_flops(full, shapes) if with_flops else None,
                          concrete_inputs=concrete)
        if parent >= 0:
            e.set_cpu_parent(events[parent])
            events[parent].append_cpu_child(e)
        events.append(e)
    events._tree_built = True
    return events


class profile:
    """The legacy context manager (torch.autograd.profiler.profile).  CPU ranges
    only: use_cuda/use_device are accepted, no device kernel is timed."""

    def __init__(self, enabled=True, *, use_cuda=False, use_device=None, record_shapes=False,
                 with_flops=False, profile_memory=False, with_stack=False, with_modules=False,
                 use_kineto=False, use_cpu=True, experimental_config=None, acc_events=False,
                 custom_trace_id_callback=None):
        self.enabled = enabled
        self.use_device = use_device or ("cuda" if use_cuda else None)
        self.record_shapes = record_shapes or with_flops
        self.with_flops = with_flops
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.function_events = None
        self.entered = False
        self._base = 0

    def __enter__(self):
        if not self.enabled:
            return self
        if self.entered:
            raise RuntimeError("Profiler context manager is not reentrant")
        self.entered = True
        self._base = _start(self.record_shapes)
        return self

    def __exit__(self, *exc):
        if not self.enabled:
            return False
        self.function_events = _stop(self._base, self.with_flops)
        return False

    def _check_finished(self):
        if self.function_events is None:
            raise RuntimeError("Profiler didn't finish running")

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75,
              max_name_column_width=55, max_shapes_column_width=80, header=None,
              top_level_events_only=False):
        self._check_finished()
        return self.function_events.table(
            sort_by=sort_by, row_limit=row_limit, max_name_column_width=max_name_column_width,
            max_shapes_column_width=max_shapes_column_width, header=header,
            top_level_events_only=top_level_events_only)

    table.__doc__ = EventList.table.__doc__

    def export_chrome_trace(self, path):
        self._check_finished()
        _export_chrome_trace(self.function_events, path, self._base)

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0,
                     group_by_overload_name=False):
        self._check_finished()
        return self.function_events.key_averages(group_by_input_shape, group_by_stack_n,
                                                 group_by_overload_name)

    def total_average(self):
        self._check_finished()
        return self.function_events.total_average()

    @property
    def self_cpu_time_total(self):
        self._check_finished()
        return self.function_events.self_cpu_time_total

    def __str__(self):
        self._check_finished()
        return str(self.function_events)

