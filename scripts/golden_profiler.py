"""Record what PyTorch's profiler reports, for tests/test_profiler.py.

Run with an interpreter that has PyTorch:
    python scripts/golden_profiler.py
writes tests/golden/profiler.json:
  programs: {name: [[event name, parent name or null, input shapes], ...]} for small
            programs run inside record_function("prog") with record_shapes=True;
  schedules: {config: [action names for steps 0..11]};
  windows:  for a scheduled run of 10 steps, per on_trace_ready call: step_num and the
            sorted step ranges (ProfilerStep#N names of the chrome trace) it holds;
  tables:   table() text of a hand-built EventList (fixed times), for format checks;
  trace:    keys of an exported chrome trace and of one op's "X" event;
  errors:   [code, exception type, message] of misuse."""
import json
import os
import tempfile

import torch
from torch.autograd.profiler_util import EventList, FunctionEvent
from torch.profiler import ProfilerActivity, profile, record_function, schedule

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "golden",
                   "profiler.json")

PROGRAMS = {
    "add": "torch.add(a, b)",
    "add_op": "a + b",
    "matmul": "a @ m",
    "sum": "a.sum()",
    "mul_method": "a.mul(b)",
    "getitem": "a[0]",
    "linear_fwd_bwd": "lin(w).sum().backward()",
    "mul_bwd": "(wa * b).sum().backward()",
    "nested": ("with record_function('inner'):\n    a.exp()\n    with record_function('deep'):"
               "\n        a.neg()"),
}


def run_program(code):
    torch.manual_seed(0)
    env = {"torch": torch, "record_function": record_function, "a": torch.randn(3, 4),
           "b": torch.randn(3, 4), "m": torch.randn(4, 5), "lin": torch.nn.Linear(4, 2),
           "w": torch.randn(3, 4, requires_grad=True),
           "wa": torch.randn(3, 4, requires_grad=True)}
    with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
        with record_function("prog"):
            exec(code, env)
    return [[e.name, e.cpu_parent.name if e.cpu_parent else None, e.input_shapes]
            for e in prof.events() if e.name != "prog"]


def schedule_actions():
    configs = {"w1_u1_a2_r1_s1": dict(wait=1, warmup=1, active=2, repeat=1, skip_first=1),
               "w0_u0_a1": dict(wait=0, warmup=0, active=1),
               "w2_u1_a3_r2": dict(wait=2, warmup=1, active=3, repeat=2),
               "w2_u1_a2_r2_sfw": dict(wait=2, warmup=1, active=2, repeat=2, skip_first_wait=1),
               "w2_u1_a2_s1_sfw": dict(wait=2, warmup=1, active=2, skip_first=1,
                                       skip_first_wait=1)}
    return {k: [schedule(**c)(i).name for i in range(12)] for k, c in configs.items()}


def windows():
    got = []

    def ready(p):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "t.json")
            p.export_chrome_trace(path)
            with open(path) as f:
                names = [e["name"] for e in json.load(f)["traceEvents"] if e.get("ph") == "X"]
        got.append([p.step_num, sorted(n for n in names if n.startswith("ProfilerStep")),
                    sorted({e.name for e in p.events() if e.name.startswith("ProfilerStep")})])

    with profile(schedule=schedule(wait=1, warmup=1, active=2, repeat=2), on_trace_ready=ready) as p:
        for i in range(10):
            torch.add(torch.ones(2), i)
            p.step()
    return got


def tables():
    # a parent (10us..110us) with two children, one of them twice, on one thread
    ev = [FunctionEvent(0, "outer", 1, 10.0, 110.0, input_shapes=[], stack=[]),
          FunctionEvent(1, "aten::add", 1, 20.0, 50.0, input_shapes=[[3, 4], [3, 4], []], stack=[]),
          FunctionEvent(2, "aten::add", 1, 60.0, 70.0, input_shapes=[[2], [2], []], stack=[]),
          FunctionEvent(3, "aten::mm", 1, 75.0, 100.5, input_shapes=[[3, 4], [4, 5]], stack=[])]
    el = EventList(ev)
    el._build_tree()  # children by time containment, as the profiler does
    ka = el.key_averages()
    kg = el.key_averages(group_by_input_shapes=True)
    return {"default": ka.table(),
            "sort_self": ka.table(sort_by="self_cpu_time_total", row_limit=2),
            "sort_total": ka.table(sort_by="cpu_time_total"),
            "header": ka.table(sort_by="cpu_time_total", header="HEADER"),
            "shapes": kg.table(sort_by="cpu_time_total"),
            "averages": [[a.key, a.count, a.cpu_time_total, a.self_cpu_time_total, a.cpu_time,
                          a.input_shapes] for a in kg]}


def trace_keys():
    with tempfile.TemporaryDirectory() as d:
        with profile(record_shapes=True) as prof:
            torch.add(torch.ones(2), 1)
        path = os.path.join(d, "t.json")
        prof.export_chrome_trace(path)
        with open(path) as f:
            t = json.load(f)
    op = next(e for e in t["traceEvents"] if e.get("name") == "aten::add")
    return {"top": sorted(t), "op": sorted(op), "op_args": sorted(op["args"]),
            "op_cat": op["cat"], "op_ph": op["ph"]}


def errors():
    out = []
    for code in ["profile().stop()", "profile().key_averages()", "profile().events()",
                 "schedule(wait=0, warmup=0, active=0)",
                 "schedule(wait=-1, warmup=0, active=1)"]:
        try:
            eval(code)
        except Exception as e:  # noqa: BLE001 - recording whatever PyTorch raises
            out.append([code, type(e).__name__, str(e)])
    return out


def main():
    golden = {"programs": {k: run_program(c) for k, c in PROGRAMS.items()},
              "program_code": PROGRAMS, "schedules": schedule_actions(), "windows": windows(),
              "tables": tables(), "trace": trace_keys(), "errors": errors()}
    with open(OUT, "w") as f:
        json.dump(golden, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
