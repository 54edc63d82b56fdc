"""Events of the profiler and their summaries (PyTorch's
torch.autograd.profiler_util): FunctionEvent, FunctionEventAvg, EventList with
key_averages(), table() and export_chrome_trace().  Times are microseconds."""
import enum
import gzip
import json
import os

from .._dtype_names import CPP_NAMES as _CPP_NAMES  # the C++ type names traces give dtypes

__all__ = ["DeviceType", "EventList", "FunctionEvent", "FunctionEventAvg", "Interval"]


class DeviceType(enum.IntEnum):
    CPU = 0
    CUDA = 1


class Interval:
    def __init__(self, start, end):
        self.start = start
        self.end = end

    def elapsed_us(self):
        return self.end - self.start


def _format_time(time_us):
    if time_us >= 1e6:
        return f"{time_us / 1e6:.3f}s"
    if time_us >= 1e3:
        return f"{time_us / 1e3:.3f}ms"
    return f"{time_us:.3f}us"


def _matmul_flops(name, shapes):
    """2*M*K*N per product (times the batch) for the matrix products, from the
    recorded input shapes; None for anything else."""
    if not shapes:
        return None
    if name == "aten::addmm" and len(shapes) >= 3:
        shapes = shapes[1:3]
    if name not in ("aten::mm", "aten::matmul", "aten::addmm", "aten::bmm") or len(shapes) < 2:
        return None
    a, b = shapes[0], shapes[1]
    if len(a) < 2 or len(b) < 2:
        return None
    batch = 1
    for d in (a[:-2] if len(a) >= len(b) else b[:-2]):
        batch *= d
    return 2 * batch * a[-2] * a[-1] * b[-1]


class _TimeStrings:
    """cpu_time and the formatted times, shared by FunctionEvent and FunctionEventAvg."""

    @property
    def cpu_time(self):
        return self.cpu_time_total / max(1, self.count)

    @property
    def cpu_time_str(self):
        return _format_time(self.cpu_time)

    @property
    def cpu_time_total_str(self):
        return _format_time(self.cpu_time_total)

    @property
    def self_cpu_time_total_str(self):
        return _format_time(self.self_cpu_time_total)


class FunctionEvent(_TimeStrings):
    """One recorded range: an op ("aten::add"), a record_function range or a
    backward node, with its children (the ranges it contains on its thread)."""

    def __init__(self, id, name, thread, start_us, end_us, overload_name=None, fwd_thread=None,
                 input_shapes=None, stack=None, scope=0, use_device=None, cpu_memory_usage=0,
                 device_memory_usage=0, is_async=False, is_remote=False, sequence_nr=-1,
                 node_id=-1, device_type=DeviceType.CPU, device_index=0,
                 device_resource_id=None, is_legacy=False, flops=None, trace_name=None,
                 concrete_inputs=None, kwinputs=None, is_user_annotation=False,
                 input_dtypes=None, device=None, **unused):
        self.id = id
        self.node_id = node_id
        self.name = name
        self.overload_name = overload_name
        self.trace_name = trace_name if trace_name is not None else name
        self.time_range = Interval(start_us, end_us)
        self.thread = thread
        self.fwd_thread = fwd_thread
        self.kernels = []
        self.count = 1
        self.cpu_children = []
        self.cpu_parent = None
        self.input_shapes = input_shapes
        self.input_dtypes = input_dtypes
        self.concrete_inputs = concrete_inputs
        self.kwinputs = kwinputs or {}
        self.stack = stack
        self.scope = scope
        self.use_device = use_device
        self.cpu_memory_usage = cpu_memory_usage
        self.device_memory_usage = device_memory_usage
        self.is_async = is_async
        self.is_remote = is_remote
        self.sequence_nr = sequence_nr
        self.device_type = device_type
        self.device_index = device_index
        self.device_resource_id = device_resource_id if device_resource_id is not None else thread
        self.is_legacy = is_legacy
        self.flops = flops
        self.is_user_annotation = is_user_annotation
        self.device = device if device is not None else "cpu"  # torchlike: the tensors' device

    def append_cpu_child(self, child):
        assert isinstance(child, FunctionEvent)
        assert child.id != self.id
        self.cpu_children.append(child)

    def set_cpu_parent(self, parent):
        assert isinstance(parent, FunctionEvent)
        self.cpu_parent = parent

    @property
    def key(self):
        return self.name

    @property
    def cpu_time_total(self):
        return self.time_range.elapsed_us()

    @property
    def self_cpu_time_total(self):
        return self.cpu_time_total - sum(c.cpu_time_total for c in self.cpu_children)

    # no device kernels are timed: these stay 0 (see docs/profiler.md)
    device_time_total = cuda_time_total = self_device_time_total = self_cuda_time_total = 0
    device_time = cuda_time = 0
    self_cpu_memory_usage = self_device_memory_usage = 0

    def __repr__(self):
        return (f"<FunctionEvent id={self.id} name={self.name} thread={self.thread} "
                f"cpu_time={self.cpu_time_str} start_us={self.time_range.start:.3f} "
                f"end_us={self.time_range.end:.3f} input_shapes={self.input_shapes} "
                f"cpu_children={[c.id for c in self.cpu_children]}>")


class FunctionEventAvg(_TimeStrings):
    """The sum of the events that share a key (and input shapes, when grouped)."""

    def __init__(self):
        self.key = None
        self.count = 0
        self.node_id = 0
        self.is_async = False
        self.is_remote = False
        self.use_device = None
        self.cpu_time_total = 0
        self.self_cpu_time_total = 0
        self.device_time_total = self.self_device_time_total = 0
        self.input_shapes = None
        self.overload_name = None
        self.stack = None
        self.scope = None
        self.cpu_memory_usage = self.device_memory_usage = 0
        self.self_cpu_memory_usage = self.self_device_memory_usage = 0
        self.cpu_children = None
        self.cpu_parent = None
        self.device_type = DeviceType.CPU
        self.is_legacy = False
        self.flops = 0
        self.is_user_annotation = False

    def add(self, other):
        if self.key is None:
            self.key = other.key
            self.node_id = other.node_id
            self.is_async = other.is_async
            self.is_remote = other.is_remote
            self.cpu_parent = other.cpu_parent
            self.cpu_children = other.cpu_children
            self.overload_name = other.overload_name
            self.stack = other.stack
            self.scope = other.scope
            self.device_type = other.device_type
            self.is_legacy = other.is_legacy
            self.use_device = other.use_device
            self.is_user_annotation = other.is_user_annotation
        assert isinstance(other, (FunctionEvent, FunctionEventAvg))
        assert other.key == self.key
        self.cpu_time_total += other.cpu_time_total
        self.self_cpu_time_total += other.self_cpu_time_total
        self.count += other.count
        if other.flops is not None:
            self.flops = (self.flops or 0) + other.flops
        return self

    def __iadd__(self, other):
        return self.add(other)

    device_time = cuda_time = 0

    def __repr__(self):
        return (f"<FunctionEventAvg key={self.key} self_cpu_time={self.self_cpu_time_total_str} "
                f"cpu_time={self.cpu_time_str} input_shapes={self.input_shapes}>")


class EventList(list):
    """A list of FunctionEvent (or FunctionEventAvg) with the summaries."""

    def __init__(self, *args, use_device=None, profile_memory=False, with_flops=False, **kw):
        super().__init__(*args)
        self._use_device = use_device
        self._profile_memory = profile_memory
        self._with_flops = with_flops
        self._tree_built = False

    def _build_tree(self):
        """Parents and children from time containment on each thread (for lists
        built by hand; the profiler's own lists come with their nesting)."""
        by_thread = {}
        for e in self:
            by_thread.setdefault(e.thread, []).append(e)
        for events in by_thread.values():
            events.sort(key=lambda e: (e.time_range.start, -e.time_range.end))
            stack = []
            for e in events:
                while stack and stack[-1].time_range.end <= e.time_range.start:
                    stack.pop()
                if stack and e.time_range.end <= stack[-1].time_range.end:
                    e.set_cpu_parent(stack[-1])
                    stack[-1].append_cpu_child(e)
                stack.append(e)
        self._tree_built = True

    @property
    def self_cpu_time_total(self):
        return sum(e.self_cpu_time_total for e in self)

    def key_averages(self, group_by_input_shapes=False, group_by_stack_n=0,
                     group_by_overload_name=False):
        stats = {}
        for e in self:
            k = (e.key, str(e.input_shapes) if group_by_input_shapes else None,
                 e.overload_name if group_by_overload_name else None)
            avg = stats.get(k)
            if avg is None:
                avg = stats[k] = FunctionEventAvg()
            avg.add(e)
            if group_by_input_shapes:
                avg.input_shapes = e.input_shapes
        return EventList(stats.values(), use_device=self._use_device,
                         profile_memory=self._profile_memory, with_flops=self._with_flops)

    def total_average(self):
        total = FunctionEventAvg()
        for e in self:
            total.cpu_time_total += e.cpu_time_total
            total.self_cpu_time_total += e.self_cpu_time_total
            total.count += e.count
        total.key = "Total"
        return total

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75,
              max_name_column_width=55, max_shapes_column_width=80, header=None,
              top_level_events_only=False, time_unit=None):
        return _build_table(self, sort_by=sort_by, row_limit=row_limit, header=header,
                            max_name_column_width=max_name_column_width,
                            max_shapes_column_width=max_shapes_column_width,
                            top_level_events_only=top_level_events_only,
                            with_flops=self._with_flops)

    def __str__(self):
        return self.table()

    def export_chrome_trace(self, path):
        _export_chrome_trace(self, path)


def _build_table(events, sort_by, row_limit, header, max_name_column_width,
                 max_shapes_column_width, top_level_events_only, with_flops):
    if not events:
        return ""
    rows = list(events)
    if sort_by is not None:
        rows.sort(key=lambda e: getattr(e, sort_by.replace("cuda", "device")), reverse=True)
    if top_level_events_only:
        rows = [e for e in rows if e.cpu_parent is None]
    if row_limit is not None and row_limit > 0:
        rows = rows[:row_limit]
    has_shapes = any(e.input_shapes for e in events)
    has_flops = with_flops and any(e.flops for e in events)
    name_w = max(len(e.key) for e in events) + 4
    if max_name_column_width is not None:
        name_w = min(name_w, max_name_column_width)
    shapes_w = max(len(str(e.input_shapes)) for e in events) + 4
    if max_shapes_column_width is not None:
        shapes_w = min(shapes_w, max_shapes_column_width)
    cols = [("Name", name_w), ("Self CPU %", 12), ("Self CPU", 12), ("CPU total %", 12),
            ("CPU total", 12), ("CPU time avg", 12), ("# of Calls", 12)]
    if has_shapes:
        cols.append(("Input Shapes", shapes_w))
    if has_flops:
        cols.append(("Total FLOPs", 12))
    spacing = "  "
    fmt = "".join("{: >%d}%s" % (w, spacing) for _, w in cols)
    sep = "".join("-" * w + spacing for _, w in cols)
    line_length = sum(w for _, w in cols) + len(spacing) * (len(cols) - 1)
    total = sum(e.self_cpu_time_total for e in events)

    def cut(text, width):
        return text[:width - 3] + "..." if len(text) > width else text

    def pct(x):
        return f"{100.0 * x / total:.2f}%" if total else "0.00%"

    out = []
    if header is not None:
        out += ["=" * line_length, header]
    out += [sep, fmt.format(*(name for name, _ in cols)), sep]
    for e in rows:
        cells = [cut(e.key, name_w), pct(e.self_cpu_time_total),
                 _format_time(e.self_cpu_time_total), pct(e.cpu_time_total),
                 _format_time(e.cpu_time_total), _format_time(e.cpu_time), e.count]
        if has_shapes:
            cells.append(cut(str(e.input_shapes), shapes_w))
        if has_flops:
            cells.append(e.flops or "--")
        out.append(fmt.format(*cells))
    out += [sep, f"Self CPU time total: {_format_time(total)}"]
    return "\n".join(out) + "\n"


def _trace_events(events):
    pid = os.getpid()
    out = []
    for i, e in enumerate(events):
        args = {"External id": e.id, "Ev Idx": i, "Record function id": 0}
        if e.input_shapes is not None and not e.is_user_annotation:
            args["Input Dims"] = e.input_shapes
            args["Input type"] = [_CPP_NAMES.get(d, d) if d else "Scalar"
                                  for d in (e.input_dtypes or [None] * len(e.input_shapes))]
        if e.device != "cpu":
            args["Device"] = e.device
        if e.flops:
            args["flops"] = e.flops
        out.append({"ph": "X", "cat": "user_annotation" if e.is_user_annotation else "cpu_op",
                    "name": e.trace_name, "pid": pid, "tid": e.thread,
                    "ts": e.time_range.start, "dur": e.time_range.elapsed_us(), "args": args})
    return out


def _export_chrome_trace(events, path, base_ns=0):
    trace = {"schemaVersion": 1, "deviceProperties": [], "record_shapes": True,
             "displayTimeUnit": "ms", "baseTimeNanoseconds": base_ns,
             "traceEvents": _trace_events(events), "traceName": os.fspath(path)}
    data = json.dumps(trace).encode()
    opener = gzip.open if os.fspath(path).endswith(".gz") else open
    with opener(path, "wb") as f:
        f.write(data)

