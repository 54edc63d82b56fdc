"""torchlike.utils.benchmark against PyTorch's torch.utils.benchmark.

What does not depend on the clock (Measurement and Compare on fixed times,
select_unit, trim_sigfig, TaskSpec, what Timer keeps and runs, the autorange
methods on a fake clock) is compared with PyTorch's recorded answers
(scripts/golden_benchmark_utils.py); the rest times real statements and
checks what must hold whatever the clock says."""
import importlib
import pickle
import re
import time

import pytest

import torchlike
from torchlike.utils import benchmark
from oracle import golden_calls, golden_check

CALLS, GOLDEN = golden_calls("benchmark_utils")

# Messages we share word for word with PyTorch.
SAME_WORDING = (
    "Currently only a `str` stmt", "global_setup is C++ only", "Invalid language",
    "See `Timer.blocked_autorange", "Expected an instance of `Measurement`",
    "Number of significant figures", "cannot convert float", "'Measurement' object has no",
    "unhashable type", "division by zero", "name 'x' is not defined", "TaskSpec.__init__()",
    "cannot assign to field", "invalid syntax", "'m'")

# Where PyTorch fails on an internal error (len(None), comparing None with a
# str), ours says what is missing; same exception type.
_NO_DESCRIPTION = ("TypeError", "every Measurement needs a description")
DIFFERENT = {
    "table([M(TIGHT, 100)])": _NO_DESCRIPTION,
    "table(grid(cols=(None,)))": _NO_DESCRIPTION,
    "table([M(TIGHT, 1, sub_label='s')])": _NO_DESCRIPTION,
    "table([M(TIGHT, 1, stmt='', sub_label=None)])": _NO_DESCRIPTION,
    "table(grid(envs=('a', None)))": ("TypeError", "mix env=None with named envs ['a']"),
}


@pytest.mark.parametrize("call,expected", CALLS, ids=[c for c, _ in CALLS])
def test_matches_pytorch(call, expected):
    golden_check(GOLDEN, call, expected, same_wording=SAME_WORDING, different=DIFFERENT)


# ---- Timer on the real clock --------------------------------------------------------------

def counting_timer(number_of_threads=1, stmt="log.append('stmt')"):
    log = []
    t = benchmark.Timer(stmt, "log.append('setup')", globals={"log": log},
                        num_threads=number_of_threads)
    return t, log


@pytest.mark.parametrize("number", [1, 5, 300])
def test_timeit_runs_stmt_number_times_after_a_warmup(number):
    t, log = counting_timer()
    m = t.timeit(number)
    warmup = max(number // 100, 2)
    # each of the two timed loops (warm-up, measurement) runs setup once
    assert log == (["setup"] + ["stmt"] * warmup) + (["setup"] + ["stmt"] * number)
    assert m.number_per_run == number and len(m.raw_times) == 1 and m.raw_times[0] > 0


def test_timeit_measures_the_statement():
    m = benchmark.Timer("time.sleep(0.002)", "import time").timeit(3)
    assert m.raw_times[0] >= 3 * 0.002
    assert m.median == pytest.approx(m.raw_times[0] / 3)


def test_blocked_autorange_reaches_min_run_time():
    seen = []
    m = benchmark.Timer("sum(range(50))").blocked_autorange(
        callback=lambda number, took: seen.append((number, took)), min_run_time=0.02)
    assert sum(m.raw_times) >= 0.02
    assert seen == [(m.number_per_run, took) for took in m.raw_times]
    assert m.times == [took / m.number_per_run for took in m.raw_times]


def test_adaptive_autorange_stops_once_steady():
    # any spread meets this threshold: it stops at the first allowed point, 4 replicates
    m = benchmark.Timer("sum(range(50))").adaptive_autorange(threshold=1e9, min_run_time=1e-6)
    assert len(m.raw_times) == 4


def test_adaptive_autorange_stops_at_max_run_time():
    # no spread meets threshold 0: it stops after the block that passes max_run_time
    m = benchmark.Timer("sum(range(50))").adaptive_autorange(threshold=0.0, max_run_time=0.02)
    assert sum(m.raw_times) > 0.02 >= sum(m.raw_times[:-1])


@pytest.mark.parametrize("method,kw", [("timeit", {"number": 3}),
                                       ("blocked_autorange", {"min_run_time": 0.002}),
                                       ("adaptive_autorange", {"max_run_time": 0.002})])
@pytest.mark.parametrize("raises", [False, True])
def test_num_threads_is_applied_and_restored(method, kw, raises):
    before = torchlike.get_num_threads()
    stmt = "log.append(torch.get_num_threads())" + ("; 1/0" if raises else "")
    log = []
    t = benchmark.Timer(stmt, globals={"log": log}, num_threads=3)
    if raises:
        with pytest.raises(ZeroDivisionError):
            getattr(t, method)(**kw)
    else:
        getattr(t, method)(**kw)
    assert set(log) == {3}
    assert torchlike.get_num_threads() == before


@pytest.mark.parametrize("method,kw", [("timeit", {"number": 3}),
                                       ("blocked_autorange", {"min_run_time": 0.002}),
                                       ("adaptive_autorange", {"max_run_time": 0.002})])
def test_errors_of_stmt_and_setup_propagate(method, kw):
    with pytest.raises(KeyError, match="from setup"):
        getattr(benchmark.Timer("pass", "raise KeyError('from setup')"), method)(**kw)
    with pytest.raises(NameError, match="undefined_name"):
        getattr(benchmark.Timer("undefined_name + 1"), method)(**kw)


def test_globals_are_copied_and_torch_is_torchlike():
    g = {"box": [0]}
    benchmark.Timer("box[0] += 1; rebound = torch", globals=g).timeit(4)
    assert sorted(g) == ["box"]  # names the statement binds stay inside
    assert g["box"][0] == 4 + 2  # objects it mutates are the caller's (4 runs + warm-up 2)
    seen = []
    benchmark.Timer("seen.append(torch)", globals={"seen": seen}).timeit(1)
    assert seen[0] is torchlike


def test_timer_and_custom_clock():
    assert abs(benchmark.timer() - time.perf_counter()) < 1.0
    ticks = iter(range(100))
    m = benchmark.Timer(timer=lambda: next(ticks)).timeit(1)
    assert m.raw_times == [1]  # one tick between start and stop


def test_cpp_and_callgrind_are_refused_saying_why():
    for language in ("c++", "cpp", benchmark.Language.CPP):
        with pytest.raises(NotImplementedError, match="cannot time C\\+\\+ statements"):
            benchmark.Timer("x", language=language)
    with pytest.raises(NotImplementedError, match="Callgrind"):
        benchmark.Timer("pass").collect_callgrind()


def test_reached_from_a_plain_import_and_under_pytorchs_paths():
    assert torchlike.utils.benchmark is benchmark
    common = importlib.import_module("torchlike.utils.benchmark.utils.common")
    assert common.Measurement is benchmark.Measurement
    assert importlib.import_module("torchlike.utils.benchmark.utils.compare").Compare \
        is benchmark.Compare


def test_measurement_pickles():
    m = benchmark.Timer("pass", label="L", description="d").timeit(10)
    back = pickle.loads(pickle.dumps(m))
    assert back == m

    def strip(r):
        return re.sub(r"0x[0-9a-f]+", "", r)
    assert strip(repr(back)) == strip(repr(m))


def test_compare_of_real_timings():
    results = [benchmark.Timer(f"sum(range({n}))", label="sum", sub_label=kind,
                               description=f"n={n}").timeit(20)
               for kind in ("a", "b") for n in (10, 1000)]
    lines = str(benchmark.Compare(results)).splitlines()
    assert lines[0].startswith("[") and " sum " in lines[0]
    assert lines[1].split("|")[1:] and "n=10" in lines[1] and "n=1000" in lines[1]
    assert lines[2].startswith("1 threads: ")
    assert [line.split("|")[0].strip() for line in lines[3:5]] == ["a", "b"]
    assert re.match(r"Times are in \w+seconds \((ns|us|ms|s)\)\.", lines[6])
