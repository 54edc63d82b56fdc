"""torch.profiler: profile with activities, a step schedule and on_trace_ready,
record_function, ProfilerActivity, schedule, tensorboard_trace_handler.

CPU ranges only (ops, user ranges, backward nodes); device kernels are not
timed (see docs/profiler.md)."""
import enum
import os
import socket
import time
import warnings

from torchlike.autograd import profiler as _legacy
from torchlike.autograd.profiler import record_function
from torchlike.autograd.profiler_util import EventList, _export_chrome_trace

__all__ = ["ProfilerAction", "ProfilerActivity", "profile", "record_function", "schedule",
           "supported_activities", "tensorboard_trace_handler"]


class ProfilerActivity(enum.Enum):
    CPU = 0
    CUDA = 2
    XPU = 3
    MTIA = 4
    PrivateUse1 = 5


class ProfilerAction(enum.Enum):
    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


_RECORDING = (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE)


def supported_activities():
    return {ProfilerActivity.CPU}


def schedule(*, wait, warmup, active, repeat=0, skip_first=0, skip_first_wait=0):
    """The action for each step: skip_first steps, then cycles of wait, warmup
    and active steps (the last active step saves), repeat cycles (0: forever).
    skip_first_wait drops the wait of the first cycle."""
    if not (wait >= 0 and warmup >= 0 and active > 0 and repeat >= 0 and skip_first >= 0):
        raise AssertionError(
            f"Invalid profiler schedule arguments. Got wait={wait} (need >= 0), "
            f"warmup={warmup} (need >= 0), active={active} (need > 0), repeat={repeat} "
            f"(need >= 0), skip_first={skip_first} (need >= 0).")
    if warmup == 0:
        warnings.warn("Profiler won't be using warmup, this can skew profiler results")

    def schedule_fn(step):
        if step < 0:
            raise AssertionError(f"Step must be non-negative. Got {step}.")
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        cycle = wait + warmup + active
        if skip_first_wait:
            step += wait  # as if the first cycle's wait had passed
        if repeat > 0 and step // cycle >= repeat:
            return ProfilerAction.NONE
        pos = step % cycle
        if pos < wait:
            return ProfilerAction.NONE
        if pos < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if pos < cycle - 1 else ProfilerAction.RECORD_AND_SAVE

    return schedule_fn


def _always_record(step):
    return ProfilerAction.RECORD


def tensorboard_trace_handler(dir_name, worker_name=None, use_gzip=False):
    """on_trace_ready that writes each trace as <worker>.<ns>.pt.trace.json[.gz]
    into dir_name, the files TensorBoard's profiler plugin reads."""

    def handler_fn(prof):
        os.makedirs(dir_name, exist_ok=True)
        name = worker_name or f"{socket.gethostname()}_{os.getpid()}"
        path = os.path.join(dir_name, f"{name}.{time.time_ns()}.pt.trace.json")
        prof.export_chrome_trace(path + ".gz" if use_gzip else path)

    return handler_fn


class profile:
    """The profiler: a context manager (or start()/stop()) that records CPU
    ranges of the steps its schedule marks, calling on_trace_ready after each
    recorded window.  Without a schedule everything between start and stop is
    one window."""

    def __init__(self, *, activities=None, schedule=None, on_trace_ready=None,
                 record_shapes=False, profile_memory=False, with_stack=False, with_flops=False,
                 with_modules=False, experimental_config=None, execution_trace_observer=None,
                 acc_events=False, custom_trace_id_callback=None, post_processing_timeout_s=None,
                 use_cuda=None):
        self.activities = set(activities) if activities else supported_activities()
        self.record_steps = schedule is not None
        self.schedule = schedule or _always_record
        self.on_trace_ready = on_trace_ready
        self.record_shapes = record_shapes or with_flops
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.with_flops = with_flops
        self.acc_events = acc_events
        self.step_num = 0
        self.current_action = self.schedule(0)
        self._events = None  # the last finished window
        self._base = 0
        self._started = False
        self._recording = False
        self._step_range = None

    # ---- the recorder ----
    def _start_trace(self):
        self._base = _legacy._start(self.record_shapes)
        self._recording = True

    def _stop_trace(self):
        events = _legacy._stop(self._base, self.with_flops)
        self._recording = False
        if self.acc_events and self._events is not None:
            events = EventList(list(self._events) + list(events), with_flops=self.with_flops)
        self._events = events
        if self.on_trace_ready:
            self.on_trace_ready(self)

    def _transit(self, prev, cur):
        if prev == ProfilerAction.RECORD_AND_SAVE or (prev == ProfilerAction.RECORD and
                                                      cur not in _RECORDING):
            if self._recording:
                self._stop_trace()
        if cur in _RECORDING and not self._recording:
            self._start_trace()

    def _open_step(self):
        if self.record_steps:
            self._step_range = record_function(f"ProfilerStep#{self.step_num}")
            self._step_range.__enter__()

    def _close_step(self):
        if self._step_range is not None:
            self._step_range.__exit__(None, None, None)
            self._step_range = None

    # ---- API ----
    def start(self):
        self._started = True
        self._transit(ProfilerAction.NONE, self.current_action)
        self._open_step()

    def stop(self):
        if not self._started:
            raise AssertionError("Profiler must be initialized before stopping trace")
        self._close_step()
        if self._recording:
            self._stop_trace()
        self._started = False

    def step(self):
        """Marks the end of a training step: the schedule decides what the next
        step records."""
        if not self._started:
            self.step_num += 1
            self.current_action = self.schedule(self.step_num)
            return
        self._close_step()
        prev = self.current_action
        self.step_num += 1
        self.current_action = self.schedule(self.step_num)
        self._transit(prev, self.current_action)
        self._open_step()

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()
        return False

    def events(self):
        if self._events is None:
            raise AssertionError("Profiler must be initialized before accessing events")
        return self._events

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0,
                     group_by_overload_name=False):
        if self._events is None:
            raise AssertionError("Profiler must be initialized before getting key averages")
        return self._events.key_averages(group_by_input_shape, group_by_stack_n,
                                         group_by_overload_name)

    def export_chrome_trace(self, path):
        if self._events is None:
            raise AssertionError("Profiler must be initialized before exporting chrome trace")
        _export_chrome_trace(self._events, path, self._base)

    def export_stacks(self, path, metric="self_cpu_time_total"):
        raise NotImplementedError("export_stacks: with_stack is not recorded by torchlike's "
                                  "profiler (see docs/profiler.md)")

