"""torchlike.profiler against PyTorch's profiler (tests/golden/profiler.json,
scripts/golden_profiler.py): op names, nesting, backward node names, schedule
windows, table format, chrome trace structure, misuse errors; plus timing
sanity, threads and a leak check."""
import gc
import json
import os
import threading
import time

import pytest

import torchlike as tl
from oracle import UNDER_ASAN, rss_bytes
from torchlike.autograd import profiler as legacy
from torchlike.autograd.profiler_util import EventList, FunctionEvent
from torchlike.profiler import (ProfilerAction, ProfilerActivity, profile, record_function,
                                schedule, tensorboard_trace_handler)

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden",
                       "profiler.json")) as _f:
    GOLDEN = json.load(_f)


def run_program(code):
    tl.manual_seed(0)
    env = {"torch": tl, "record_function": record_function, "a": tl.randn(3, 4),
           "b": tl.randn(3, 4), "m": tl.randn(4, 5), "lin": tl.nn.Linear(4, 2),
           "w": tl.randn(3, 4, requires_grad=True), "wa": tl.randn(3, 4, requires_grad=True)}
    with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
        with record_function("prog"):
            exec(code, env)
    return [[e.name, e.cpu_parent.name if e.cpu_parent else None, e.input_shapes]
            for e in prof.events() if e.name != "prog"]


# events both libraries must record for each program: [name, parent]
EXPECTED = {
    "add": [["aten::add", "prog"]],
    "add_op": [["aten::add", "prog"]],
    "matmul": [["aten::matmul", "prog"]],
    "sum": [["aten::sum", "prog"]],
    "mul_method": [["aten::mul", "prog"]],
    "linear_fwd_bwd": [["aten::t", None], ["aten::addmm", None], ["aten::sum", "prog"],
                       ["autograd::engine::evaluate_function: SumBackward0", "prog"],
                       ["SumBackward0", "autograd::engine::evaluate_function: SumBackward0"],
                       ["autograd::engine::evaluate_function: AddmmBackward0", "prog"],
                       ["AddmmBackward0", "autograd::engine::evaluate_function: AddmmBackward0"],
                       ["autograd::engine::evaluate_function: TBackward0", "prog"]],
    "mul_bwd": [["aten::mul", "prog"], ["aten::sum", "prog"],
                ["autograd::engine::evaluate_function: MulBackward0", "prog"],
                ["MulBackward0", "autograd::engine::evaluate_function: MulBackward0"],
                ["aten::mul", "MulBackward0"]],
    "nested": [["inner", "prog"], ["aten::exp", "inner"], ["deep", "inner"],
               ["aten::neg", "deep"]],
}


@pytest.mark.parametrize("prog", sorted(EXPECTED))
def test_program_events_match_pytorch(prog):
    ours = run_program(GOLDEN["program_code"][prog])
    theirs = GOLDEN["programs"][prog]
    for name, parent in EXPECTED[prog]:
        for who, events in (("PyTorch", theirs), ("torchlike", ours)):
            got = [p for n, p, _ in events if n == name]
            assert got, f"{who} has no {name} in {prog}"
            if parent is not None:
                assert parent in got, f"{who}: {name} not under {parent} in {prog}"
    # every op name we report is one PyTorch reports for the same program
    # (as a child op or a backward node), except our own composite spellings
    names = {n for n, _, _ in theirs}
    allowed = {"aten::reshape", "aten::matmul", "aten::transpose", "aten::index"}
    assert {n for n, _, _ in ours} - names <= allowed


def test_input_shapes_match_pytorch_for_tensors():
    for prog, name in [("add", "aten::add"), ("matmul", "aten::matmul"), ("sum", "aten::sum")]:
        theirs = next(s for n, _, s in GOLDEN["programs"][prog] if n == name)
        ours = next(s for n, _, s in run_program(GOLDEN["program_code"][prog]) if n == name)
        # PyTorch lists its defaulted scalars (alpha, dtype) too: tensors agree
        assert [s for s in ours if s] == [s for s in theirs if s]


def test_record_shapes_off_records_no_shapes():
    a = tl.ones(2, 3)
    with profile() as prof:
        a + a
    (e,) = prof.events()
    assert e.name == "aten::add" and e.input_shapes == []


@pytest.mark.parametrize("config", sorted(GOLDEN["schedules"]))
def test_schedule_actions(config):
    parts = dict(wait=0, warmup=0, active=0, repeat=0, skip_first=0, skip_first_wait=0)
    keys = {"w": "wait", "u": "warmup", "a": "active", "r": "repeat", "s": "skip_first"}
    for part in config.split("_"):
        if part == "sfw":
            parts["skip_first_wait"] = 1
        else:
            parts[keys[part[0]]] = int(part[1:])
    with pytest.warns(UserWarning) if parts["warmup"] == 0 else _nothing():
        fn = schedule(**parts)
    assert [fn(i).name for i in range(12)] == GOLDEN["schedules"][config]


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_schedule_windows_match_pytorch(tmp_path):
    got = []

    def ready(p):
        path = tmp_path / f"t{p.step_num}.json"
        p.export_chrome_trace(str(path))
        names = [e["name"] for e in json.loads(path.read_text())["traceEvents"]
                 if e.get("ph") == "X"]
        got.append([p.step_num, sorted(n for n in names if n.startswith("ProfilerStep")),
                    sorted({e.name for e in p.events() if e.name.startswith("ProfilerStep")})])

    with profile(schedule=schedule(wait=1, warmup=1, active=2, repeat=2),
                 on_trace_ready=ready) as p:
        for i in range(10):
            tl.add(tl.ones(2), i)
            p.step()
    assert got == GOLDEN["windows"]


def _table_events():
    ev = [FunctionEvent(0, "outer", 1, 10.0, 110.0, input_shapes=[], stack=[]),
          FunctionEvent(1, "aten::add", 1, 20.0, 50.0, input_shapes=[[3, 4], [3, 4], []],
                        stack=[]),
          FunctionEvent(2, "aten::add", 1, 60.0, 70.0, input_shapes=[[2], [2], []], stack=[]),
          FunctionEvent(3, "aten::mm", 1, 75.0, 100.5, input_shapes=[[3, 4], [4, 5]], stack=[])]
    el = EventList(ev)
    el._build_tree()
    return el


def test_table_text_matches_pytorch():
    el = _table_events()
    ka, kg = el.key_averages(), el.key_averages(group_by_input_shapes=True)
    t = GOLDEN["tables"]
    assert ka.table() == t["default"]
    assert ka.table(sort_by="self_cpu_time_total", row_limit=2) == t["sort_self"]
    assert ka.table(sort_by="cpu_time_total") == t["sort_total"]
    assert ka.table(sort_by="cpu_time_total", header="HEADER") == t["header"]
    assert kg.table(sort_by="cpu_time_total") == t["shapes"]
    assert [[a.key, a.count, a.cpu_time_total, a.self_cpu_time_total, a.cpu_time,
             a.input_shapes] for a in kg] == t["averages"]


def test_chrome_trace_structure(tmp_path):
    with profile(record_shapes=True) as prof:
        tl.add(tl.ones(2), 1)
    path = tmp_path / "t.json"
    prof.export_chrome_trace(str(path))
    t = json.loads(path.read_text())
    g = GOLDEN["trace"]
    assert {"traceEvents", "displayTimeUnit", "schemaVersion", "traceName"} <= set(t)
    assert set(t) <= set(g["top"])
    op = next(e for e in t["traceEvents"] if e["name"] == "aten::add")
    assert sorted(op) == g["op"] and op["ph"] == g["op_ph"] and op["cat"] == g["op_cat"]
    assert {"External id", "Ev Idx", "Input Dims", "Input type"} <= set(op["args"])
    assert set(op["args"]) <= set(g["op_args"])
    assert op["args"]["Input Dims"] == [[2], []] and op["args"]["Input type"] == ["float",
                                                                                    "Scalar"]
    assert op["dur"] >= 0 and op["tid"] == threading.get_native_id()


def test_tensorboard_trace_handler(tmp_path):
    with profile(schedule=schedule(wait=0, warmup=1, active=1, repeat=1),
                 on_trace_ready=tensorboard_trace_handler(str(tmp_path / "tb"), "w0")) as p:
        for _ in range(3):
            tl.ones(2).exp()
            p.step()
    (f,) = os.listdir(tmp_path / "tb")
    assert f.startswith("w0.") and f.endswith(".pt.trace.json")
    names = [e["name"] for e in json.loads((tmp_path / "tb" / f).read_text())["traceEvents"]]
    assert "aten::exp" in names and "ProfilerStep#1" in names


@pytest.mark.parametrize("code,exc,msg", GOLDEN["errors"])
def test_misuse_errors_match_pytorch(code, exc, msg):
    with pytest.raises(Exception) as info:
        eval(code)
    assert type(info.value).__name__ == exc and str(info.value) == msg


def test_step_without_schedule_and_before_start():
    p = profile()
    p.step()  # fine in PyTorch too
    with profile() as prof:
        tl.ones(2).neg()
        prof.step()
        tl.ones(2).exp()
    names = [e.name for e in prof.events()]
    assert "aten::neg" in names and "aten::exp" in names
    assert not any(n.startswith("ProfilerStep") for n in names)


def test_nested_profilers_refused():
    with profile():
        with pytest.raises(RuntimeError, match="already enabled"):
            profile().start()


def test_timing_sanity():
    x = tl.randn(64, 64)
    with profile() as prof:
        with record_function("sleepy"):
            time.sleep(0.02)
            (x @ x).sum()
    events = prof.events()
    for e in events:
        assert 0 <= e.self_cpu_time_total <= e.cpu_time_total
        for c in e.cpu_children:
            assert e.time_range.start <= c.time_range.start <= c.time_range.end <= \
                e.time_range.end
    sleepy = next(e for e in events if e.name == "sleepy")
    assert sleepy.cpu_time_total >= 20000
    assert {c.name for c in sleepy.cpu_children} == {"aten::matmul", "aten::sum"}
    avg = {a.key: a for a in prof.key_averages()}
    assert avg["sleepy"].self_cpu_time_total >= 20000 - 1


def test_record_function_decorator_and_off():
    @record_function("deco")
    def f(x):
        return x * 2

    f(tl.ones(2))  # no profiler: nothing recorded, nothing raised
    with profile() as prof:
        f(tl.ones(2))
    deco = next(e for e in prof.events() if e.name == "deco")
    assert [c.name for c in deco.cpu_children] == ["aten::mul"]
    with pytest.raises(TypeError, match="must be str"):
        record_function(3)


def test_stop_inside_open_range_closes_it():
    p = profile()
    p.start()
    r = record_function("open")
    r.__enter__()
    p.stop()
    r.__exit__(None, None, None)  # a range of a finished trace: ignored
    (e,) = [e for e in p.events() if e.name == "open"]
    assert e.cpu_time_total >= 0


def test_threads_record_their_own_nesting():
    def work():
        with record_function("worker"):
            for _ in range(50):
                tl.ones(4).exp()

    with profile() as prof:
        threads = [threading.Thread(target=work) for _ in range(4)]
        for t in threads:
            t.start()
        work()
        for t in threads:
            t.join()
    events = prof.events()
    workers = [e for e in events if e.name == "worker"]
    assert len(workers) == 5 and len({w.thread for w in workers}) == 5
    exps = [e for e in events if e.name == "aten::exp"]
    assert len(exps) == 250
    assert all(e.cpu_parent is not None and e.cpu_parent.name == "worker" and
               e.cpu_parent.thread == e.thread for e in exps)


def test_fake_device_named():
    tl._C._fake_enable()  # the test device (host memory, its own backend)
    x = tl.ones(3).to("fake")
    with profile() as prof:
        try:
            x.add(x)
        except Exception:  # noqa: BLE001 - the fake device may lack the kernel
            pass
    (e,) = [e for e in prof.events() if e.name == "aten::add"]
    assert e.device == "fake:0"


def test_flops_for_matrix_products():
    a, b = tl.randn(3, 4), tl.randn(4, 5)
    with profile(with_flops=True) as prof:
        tl.mm(a, b)
        a.exp()
    flops = {e.name: e.flops for e in prof.events()}
    assert flops["aten::mm"] == 2 * 3 * 4 * 5 and flops["aten::exp"] is None


def test_legacy_profile():
    with legacy.profile(use_cuda=False, record_shapes=True) as prof:
        with legacy.record_function("r"):
            tl.ones(2, 2).sum()
    (r,) = [e for e in prof.function_events if e.name == "r"]
    assert [c.name for c in r.cpu_children][-1] == "aten::sum"
    assert r.cpu_children[-1].input_shapes == [[2, 2]]
    assert "aten::sum" in prof.table()
    p = legacy.profile()
    with pytest.raises(RuntimeError, match="didn't finish"):
        p.key_averages()


def test_modules_reachable_as_in_pytorch():
    assert tl.profiler.profile is profile and tl.autograd.profiler.profile is legacy.profile
    assert tl.profiler.record_function is legacy.record_function


def test_profiler_action_names():
    assert [a.name for a in ProfilerAction] == ["NONE", "WARMUP", "RECORD", "RECORD_AND_SAVE"]


@pytest.mark.skipif(UNDER_ASAN, reason="RSS is meaningless under ASan")
def test_profiling_a_loop_does_not_grow_memory():
    x = tl.ones(8, 8, requires_grad=True)

    def once():
        with profile(record_shapes=True) as prof:
            with record_function("r"):
                for _ in range(50):
                    (x * 2).sum().backward()
        prof.key_averages().table()

    for _ in range(40):  # the event buffer and the allocators reach their high-water mark
        once()
    gc.collect()
    objects, rss = [len(gc.get_objects())], [rss_bytes()]
    for _ in range(2):  # two windows: a leak grows both; the allocator's late growth, one
        for _ in range(40):
            once()
        gc.collect()
        objects.append(len(gc.get_objects()))
        rss.append(rss_bytes())
    assert objects[2] - objects[0] < 100  # 4000 profiled backwards hold no events
    assert min(rss[1] - rss[0], rss[2] - rss[1]) < 1 << 20
