"""Timer: time a Python statement with the standard library's timeit, the
way PyTorch's torch.utils.benchmark.Timer does: warm up, fix torchlike's
thread count for the run, choose a block size that makes the timer's own
overhead negligible, and return a Measurement of replicates.

PyTorch's C++ statements (compiled against libtorch) and Callgrind
instruction counts (hooks compiled into libtorch) have no torchlike
counterpart: asking for them raises NotImplementedError saying so."""
import enum
import statistics
import textwrap
import timeit

import torchlike
from . import common

__all__ = ["Timer", "timer", "Language"]


def timer() -> float:
    """The default clock: timeit's, after waiting for queued accelerator
    work, so that a statement's asynchronous kernels are inside the time."""
    if torchlike.accelerator.is_available():
        torchlike.accelerator.synchronize()
    return timeit.default_timer()


class Language(enum.Enum):
    PYTHON = 0
    CPP = 1


_NO_CPP = ("torchlike.utils.benchmark.Timer cannot time C++ statements: PyTorch compiles them "
           "against libtorch's C++ API (through torch.utils.cpp_extension), and torchlike has "
           "no C++ API to compile them against. Time the Python call instead.")

_NO_CALLGRIND = ("Timer.collect_callgrind is not supported by torchlike: PyTorch runs the "
                 "statement under Valgrind's Callgrind in a subprocess and switches collection "
                 "on and off through hooks compiled into libtorch, which torchlike does not "
                 "have. Use blocked_autorange() or adaptive_autorange() for wall times.")


def _tidy(code: str) -> str:
    """`code` dedented, without the newline that opens a triple-quoted
    block and without trailing whitespace (what Timer stores and prints)."""
    code = textwrap.dedent(code)
    return (code[1:] if code.startswith("\n") else code).rstrip()


class Timer:
    """Measure how long `stmt` takes, after running `setup`.

    Like ``timeit.Timer`` (which it uses) with PyTorch's differences: each
    measurement runs with torchlike's thread pool set to `num_threads`
    (default 1, for comparable single-thread figures) and puts the previous
    count back; results are Measurements of many replicates (see
    ``blocked_autorange`` and ``adaptive_autorange``); `label`,
    `sub_label`, `description` and `env` name the result for printing and
    for ``Compare`` (rows by sub_label, columns by description, tables by
    label, env separating A/B runs).  `globals` is copied (the statement's
    assignments do not leak out) and gets ``torch`` (torchlike) unless it
    has one.  `global_setup` and ``language="c++"`` are C++ only, which
    torchlike cannot run."""

    def __init__(self, stmt="pass", setup="pass", global_setup="", timer=timer, globals=None,
                 label=None, sub_label=None, description=None, env=None, num_threads=1,
                 language=Language.PYTHON):
        if not isinstance(stmt, str):
            raise ValueError("Currently only a `str` stmt is supported.")
        self._globals = dict(globals or {})
        if language in (Language.PYTHON, "py", "python"):
            self._globals.setdefault("torch", torchlike)
            self._language = Language.PYTHON
            if global_setup:
                raise ValueError(f"global_setup is C++ only, got `{global_setup}`. Most likely "
                                 "this code can simply be moved to `setup`.")
        elif language in (Language.CPP, "cpp", "c++"):
            raise NotImplementedError(_NO_CPP)
        else:
            raise ValueError(f"Invalid language `{language}`.")
        stmt, setup = _tidy(stmt), _tidy(setup)
        self._timer = timeit.Timer(stmt=stmt, setup=setup, timer=timer, globals=self._globals)
        self._task_spec = common.TaskSpec(
            stmt=stmt, setup=setup, global_setup=global_setup, label=label, sub_label=sub_label,
            description=description, env=env, num_threads=num_threads)

    def _timeit(self, number: int) -> float:
        # Floor at 1 ns: nothing real is faster, and later divisions need it nonzero.
        return max(self._timer.timeit(number), 1e-9)

    def _measurement(self, number, times):
        return common.Measurement(number_per_run=number, raw_times=times,
                                  task_spec=self._task_spec)

    def timeit(self, number: int = 1000000) -> common.Measurement:
        """Run `setup` then `stmt` `number` times and time it (one replicate),
        after a warm-up of max(number // 100, 2) executions (its own setup
        run; lazily initialised state would otherwise be in the time)."""
        with common.set_torch_threads(self._task_spec.num_threads):
            self._timeit(max(number // 100, 2))
            return self._measurement(number, [self._timeit(number)])

    def repeat(self, repeat=-1, number=-1):
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def autorange(self, callback=None):
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def _estimate_block_size(self, min_run_time: float) -> int:
        """The number of executions per replicate: grown tenfold from 1
        until the timer's overhead (an empty run) is at most 1e-4 of a block
        and a block takes at least min_run_time / 1000, or a block alone
        exceeds min_run_time.  Doubles as the warm-up."""
        with common.set_torch_threads(self._task_spec.num_threads):
            overhead = statistics.median(self._timeit(0) for _ in range(5))
            number = 1
            while True:
                took = self._timeit(number)
                if overhead / took <= 1e-4 and took >= min_run_time / 1000:
                    break
                if took > min_run_time or number * 10 > 2147483647:
                    break
                number *= 10
        return number

    def _measure_blocks(self, number, done, min_run_time, max_run_time=None, callback=None):
        """Replicates of `number` executions until at least min_run_time has
        been spent and done(times) holds, or more than max_run_time has."""
        times = []
        total = 0.0
        with common.set_torch_threads(self._task_spec.num_threads):
            while True:
                took = self._timeit(number)
                times.append(took)
                total += took
                if callback:
                    callback(number, took)
                if total >= min_run_time and done(times):
                    break
                if max_run_time and total > max_run_time:
                    break
        return times

    def blocked_autorange(self, callback=None, min_run_time=0.2) -> common.Measurement:
        """Replicates of one block size (chosen so the timer's overhead is
        negligible, see _estimate_block_size) until `min_run_time` seconds
        have been measured.  callback(number, seconds) is called after each
        block."""
        number = self._estimate_block_size(min_run_time)
        times = self._measure_blocks(number, lambda times: True, min_run_time,
                                     callback=callback)
        return self._measurement(number, times)

    def adaptive_autorange(self, threshold=0.1, *, min_run_time=0.01, max_run_time=10.0,
                           callback=None) -> common.Measurement:
        """Like blocked_autorange, but keeps measuring until there are more
        than 3 replicates whose interquartile range is under `threshold` of
        their median (and at least `min_run_time` seconds), or until
        `max_run_time` seconds.  The block size is chosen as for
        blocked_autorange(min_run_time=0.05)."""
        number = self._estimate_block_size(min_run_time=0.05)

        def steady(times):
            return len(times) > 3 and self._measurement(number, times).meets_confidence(threshold)

        times = self._measure_blocks(number, steady, min_run_time, max_run_time, callback)
        return self._measurement(number, times)

    def collect_callgrind(self, number=100, *, repeats=None, collect_baseline=True,
                          retain_out_file=False):
        raise NotImplementedError(_NO_CALLGRIND)
