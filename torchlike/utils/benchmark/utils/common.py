"""What a benchmark measured: TaskSpec (what was timed), Measurement (the
times and their statistics, PyTorch's repr and warnings) and the number
formatting both Measurement and Compare use (select_unit, trim_sigfig).

The statistics are computed with torchlike tensors in the dtypes PyTorch
uses (float64 quantiles, float32 for the significant-figure estimate and the
logarithms that pick units), so figures near a boundary round as PyTorch's
do."""
import contextlib
import dataclasses
import math
import textwrap

import torchlike

__all__ = ["TaskSpec", "Measurement", "select_unit", "unit_to_english", "trim_sigfig",
           "ordered_unique", "set_torch_threads"]

_MAX_SIGNIFICANT_FIGURES = 4
_MIN_CONFIDENCE_INTERVAL = 25e-9  # no timer resolves better than ~25 ns
# A Measurement warns when its interquartile range exceeds these fractions of
# its median: some spread is normal, this much suggests interference.
_IQR_WARN_THRESHOLD = 0.1
_IQR_GROSS_WARN_THRESHOLD = 0.25


def _indented(text):
    return textwrap.indent(text, "  ")


@dataclasses.dataclass(frozen=True, repr=False)
class TaskSpec:
    """What a Timer runs and how it is labelled (everything but its globals).
    Frozen and hashable: Measurement.merge and Compare group by it."""
    stmt: str
    setup: str
    global_setup: str = ""
    label: str | None = None
    sub_label: str | None = None
    description: str | None = None
    env: str | None = None
    num_threads: int = 1

    @property
    def title(self) -> str:
        """The label (or a one-line stmt), with the sub_label after a colon;
        a multi-line stmt is shown indented under ``stmt:``."""
        if self.label is not None or "\n" not in self.stmt:
            head = self.label if self.label is not None else self.stmt
            return head + (f": {self.sub_label}" if self.sub_label else "")
        sub = f" ({self.sub_label})" if self.sub_label else ""
        return f"stmt:{sub}\n{_indented(self.stmt)}"

    def setup_str(self) -> str:
        if not self.setup or self.setup == "pass":
            return ""
        if "\n" in self.setup:
            return f"setup:\n{_indented(self.setup)}"
        return f"setup: {self.setup}"

    def summarize(self) -> str:
        """Title, description and setup, one per line; a multi-line section
        is followed by a blank line."""
        sections = [s for s in (self.title, self.description or "", self.setup_str()) if s]
        return "\n".join(s + "\n" if "\n" in s else s for s in sections)


_TASKSPEC_FIELDS = frozenset(f.name for f in dataclasses.fields(TaskSpec))


@dataclasses.dataclass(repr=False)
class Measurement:
    """The times of one timed statement: ``raw_times[i]`` is the wall time of
    ``number_per_run`` executions.  Statistics (``times``, ``median``,
    ``mean``, ``iqr``) are per execution; TaskSpec's fields (``stmt``,
    ``label``, ``num_threads`` ...) read through.  ``metadata`` is the
    user's and is not used here."""
    number_per_run: int
    raw_times: list[float]
    task_spec: TaskSpec
    metadata: dict | None = None

    def __post_init__(self) -> None:
        # Filled on first use by _lazy_init; the -1 sentinels are what an
        # empty Measurement reports, as in PyTorch.
        self._sorted_times: tuple[float, ...] = ()
        self._warnings: tuple[str, ...] = ()
        self._median = self._mean = self._p25 = self._p75 = -1.0

    def __getattr__(self, name):
        if name in _TASKSPEC_FIELDS:
            return getattr(self.task_spec, name)
        return object.__getattribute__(self, name)

    @property
    def times(self) -> list[float]:
        """Per-execution times: each raw time over number_per_run."""
        return [t / self.number_per_run for t in self.raw_times]

    @property
    def median(self) -> float:
        self._lazy_init()
        return self._median

    @property
    def mean(self) -> float:
        self._lazy_init()
        return self._mean

    @property
    def iqr(self) -> float:
        self._lazy_init()
        return self._p75 - self._p25

    @property
    def significant_figures(self) -> int:
        """How many leading digits of the median the spread leaves
        meaningful (1 to 4): a 90% interval (z = 1.645) of the mean of the
        interquartile points, against the median.  Used by Compare's
        trim_significant_figures."""
        self._lazy_init()
        n = len(self._sorted_times)
        middle = self._sorted_times[n // 4:math.ceil(3 * n / 4)]
        std = torchlike.tensor(middle).std(unbiased=False).item()
        sqrt_n = torchlike.tensor(len(middle)).sqrt().item()
        interval = max(1.645 * std / sqrt_n, _MIN_CONFIDENCE_INTERVAL)
        digits = int(torchlike.tensor(self._median / interval).log10().floor().item())
        return min(max(digits, 1), _MAX_SIGNIFICANT_FIGURES)

    @property
    def has_warnings(self) -> bool:
        self._lazy_init()
        return bool(self._warnings)

    def meets_confidence(self, threshold: float = _IQR_WARN_THRESHOLD) -> bool:
        """Whether the interquartile range is under `threshold` of the median."""
        return self.iqr / self.median < threshold

    def _lazy_init(self) -> None:
        if not self.raw_times or self._sorted_times:
            return
        self._sorted_times = tuple(sorted(self.times))
        t = torchlike.tensor(self._sorted_times, dtype=torchlike.float64)
        self._median = t.quantile(0.5).item()
        self._mean = t.mean().item()
        self._p25 = t.quantile(0.25).item()
        self._p75 = t.quantile(0.75).item()
        if not self.meets_confidence(_IQR_GROSS_WARN_THRESHOLD):
            self._warn("This suggests significant environmental influence.")
        elif not self.meets_confidence(_IQR_WARN_THRESHOLD):
            self._warn("This could indicate system fluctuation.")

    def _warn(self, why: str) -> None:
        percent = self.iqr / self.median * 100
        self._warnings += (f"  WARNING: Interquartile range is {percent:.1f}% of the median "
                           f"measurement.\n           {why}",)

    @property
    def title(self) -> str:
        return self.task_spec.title

    @property
    def env(self) -> str | None:
        # PyTorch's property means to say "Unspecified env" for None, but it
        # reads a misspelt attribute and falls back to the TaskSpec's field:
        # what users see is None, and Compare relies on that.
        return self.task_spec.env

    @property
    def as_row_name(self) -> str:
        """The row a Compare table puts this in: sub_label, else stmt."""
        return self.sub_label or self.stmt or "[Unknown]"

    def __repr__(self) -> str:
        self._lazy_init()
        n = len(self._sorted_times)
        unit, scale = select_unit(self._median)

        def scaled(x):
            return f"{x / scale:.2f} {unit}"

        lines = [object.__repr__(self), self.task_spec.summarize(),
                 f"  {'Median: ' if n > 1 else ''}{scaled(self._median)}"]
        if n >= 4:
            lines.append(f"  IQR:    {scaled(self.iqr)} ({self._p25 / scale:.2f} to "
                         f"{self._p75 / scale:.2f})")
        threads = self.num_threads
        lines.append(f"  {n} measurement{'s' if n > 1 else ''}, {self.number_per_run} runs "
                     f"{'per measurement,' if n > 1 else ','} "
                     f"{threads} thread{'s' if threads > 1 else ''}")
        lines.extend(self._warnings)
        return "\n".join(lines).strip()

    @staticmethod
    def merge(measurements):
        """One Measurement per distinct TaskSpec, in first-seen order, holding
        the per-execution times of all its replicates (number_per_run=1, no
        metadata: replicates may disagree on it)."""
        groups: dict[TaskSpec, list[float]] = {}
        for m in measurements:
            groups.setdefault(m.task_spec, []).extend(m.times)
        return [Measurement(number_per_run=1, raw_times=times, task_spec=spec, metadata=None)
                for spec, times in groups.items()]


def select_unit(t: float) -> tuple[str, float]:
    """The unit (ns, us, ms, s) whose scale puts `t` seconds in [1, 1000),
    and that scale; times below a nanosecond or from 1000 s up are in s."""
    exponent = int(torchlike.tensor(t).log10().item() // 3)
    unit = {-3: "ns", -2: "us", -1: "ms"}.get(exponent, "s")
    return unit, {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1}[unit]


def unit_to_english(u: str) -> str:
    return {"ns": "nanosecond", "us": "microsecond", "ms": "millisecond", "s": "second"}[u]


def trim_sigfig(x: float, n: int) -> float:
    """`x` rounded to `n` significant figures (in float32, as PyTorch does:
    trim_sigfig(3.14159, 2) is 3.1000001430511475)."""
    if n != int(n):
        raise AssertionError("Number of significant figures must be an integer")
    magnitude = int(torchlike.tensor(x).abs().log10().ceil().item())
    scale = 10 ** (magnitude - n)
    return float(torchlike.tensor(x / scale).round() * scale)


def ordered_unique(elements) -> list:
    """The distinct elements, in first-seen order."""
    return list(dict.fromkeys(elements))


@contextlib.contextmanager
def set_torch_threads(n: int):
    """Run the block with torchlike's intra-op thread count set to `n`,
    restoring the previous count afterwards (also on an exception)."""
    before = torchlike.get_num_threads()
    try:
        torchlike.set_num_threads(n)
        yield
    finally:
        torchlike.set_num_threads(before)
