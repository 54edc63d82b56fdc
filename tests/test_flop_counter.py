"""torchlike.utils.flop_counter against PyTorch's FlopCounterMode
(tests/golden/flop_counter.json, written by scripts/golden_flop_counter.py)."""
import json
import os
import warnings

import pytest

import torchlike as torch
import torchlike.nn as nn
import torchlike.nn.functional as F
from torchlike.profiler import profile
from torchlike.utils import flop_counter
from torchlike.utils.flop_counter import FlopCounterMode

GOLDEN = json.load(open(os.path.join(os.path.dirname(__file__), "golden", "flop_counter.json")))
PROGRAMS = GOLDEN["programs"]
RESULTS = GOLDEN["results"]

def run(name, **kw):
    torch.manual_seed(0)
    scope = {"torch": torch, "nn": nn, "F": F}
    exec(PROGRAMS[name]["setup"], scope)
    with FlopCounterMode(display=False, **kw) as counter:
        exec(PROGRAMS[name]["run"], scope)
    return counter


def as_text(counts):
    return {mod: {str(op): n for op, n in ops.items()} for mod, ops in counts.items()}


# the same FLOPs per module under other op keys (see docs/profiler.md)
OTHER_KEYS = {"mha_fwd_bwd"}


def test_other_keys_same_totals():
    for name in OTHER_KEYS:
        counts = run(name).get_flop_counts()
        want = RESULTS[name]["counts"]
        assert {m: sum(ops.values()) for m, ops in counts.items()} == \
               {m: sum(ops.values()) for m, ops in want.items()}


@pytest.mark.parametrize("name", sorted(set(PROGRAMS) - OTHER_KEYS))
def test_counts_match_pytorch(name):
    counter = run(name)
    want = RESULTS[name]
    assert counter.get_total_flops() == want["total"]
    got = as_text(counter.get_flop_counts())
    assert got == want["counts"]
    for depth, rows in want["rows"].items():
        table = counter.get_table(None if depth == "None" else int(depth))
        lines = table.splitlines()
        # PyTorch's text (its tabulate drops the leading blanks of the names)
        golden = want["tables"][depth].splitlines()
        assert [ln.split() for ln in lines[:1] + lines[2:]] == \
               [ln.split() for ln in golden[:1] + golden[2:]]
        assert lines[1].split()[1:] == golden[1].split()[1:]
        # the rows PyTorch hands to tabulate, indentation included
        assert [len(ln) - len(ln.lstrip()) for ln in lines[2:]] == \
               [len(r[0]) - len(r[0].lstrip()) for r in rows]


def test_op_keys_are_aten_packets():
    counter = run("mlp_fwd_bwd")
    counts = counter.get_flop_counts()
    assert counts["Global"][torch.ops.aten.addmm] == 1920
    assert counts["Sequential.0"][torch.ops.aten.mm] == 1280
    conv = run("convnet_fwd_bwd").get_flop_counts()["Global"]
    assert torch.ops.aten.convolution_backward in conv
    with pytest.raises(NotImplementedError, match="flop counting only"):
        torch.ops.aten.convolution_backward()


def test_table_layout():
    counter = run("mlp_fwd")
    assert counter.get_table(1).splitlines() == [
        "Module           FLOP    % Total",
        "-------------  ------  ---------",
        "Sequential       1920    100.00%",
        " - aten.addmm    1920    100.00%",
    ]
    assert counter.get_table().splitlines() == [
        "Module            FLOP    % Total",
        "--------------  ------  ---------",
        "Sequential        1920    100.00%",
        " - aten.addmm     1920    100.00%",
        " Sequential.0     1280     66.67%",
        "  - aten.addmm    1280     66.67%",
        " Sequential.2      640     33.33%",
        "  - aten.addmm     640     33.33%",
    ]


def test_display_prints_table(capsys):
    torch.manual_seed(0)
    with FlopCounterMode(depth=1) as counter:
        torch.mm(torch.randn(2, 3), torch.randn(3, 4))
    assert capsys.readouterr().out == counter.get_table(1) + "\n"
    assert "aten.mm" in counter.get_table(1) and counter.get_total_flops() == 48


def test_counts_reset_per_block_and_modules_after_backward():
    lin = nn.Linear(4, 3)
    counter = FlopCounterMode(display=False)
    with counter:
        lin(torch.randn(2, 4)).sum().backward()
    first = counter.get_total_flops()
    with counter:  # a second block starts from zero
        y = lin(torch.randn(2, 4)).sum()
        y.backward()
        torch.mm(torch.randn(2, 3), torch.randn(3, 5))  # after the backward: outside Linear
    assert counter.get_total_flops() == first + 60
    counts = counter.get_flop_counts()
    assert counts["Linear"] == {torch.ops.aten.addmm: 48, torch.ops.aten.mm: 48}
    assert counts["Global"][torch.ops.aten.mm] == 48 + 60


def test_custom_mapping_and_register_flop_formula():
    seen = []

    def mm_formula(a_shape, b_shape, *args, out_shape=None, **kw):
        seen.append((tuple(a_shape), tuple(b_shape), out_shape))
        return 7

    a, b = torch.randn(2, 3), torch.randn(3, 4)
    with FlopCounterMode(display=False, custom_mapping={torch.ops.aten.mm: mm_formula}) as c:
        torch.mm(a, b)
        a @ b  # matmul of matrices is PyTorch's mm
    assert c.get_total_flops() == 14 and seen == [((2, 3), (3, 4), None)] * 2

    @flop_counter.register_flop_formula(torch.ops.aten.relu)
    def relu_flop(x_shape, *args, out_shape=None, **kw):
        return x_shape.numel()

    assert relu_flop(torch.empty(2, 3)) == 6  # the decorator returns it taking tensors

    try:
        with FlopCounterMode(display=False) as c:
            F.relu(torch.randn(3, 5))
        assert c.get_flop_counts()["Global"] == {torch.ops.aten.relu: 15}
        with pytest.raises(RuntimeError, match="duplicate"):
            flop_counter.register_flop_formula(torch.ops.aten.relu)(relu_flop)
    finally:
        del flop_counter.flop_registry[torch.ops.aten.relu]
    with pytest.raises(NotImplementedError, match="get_raw"):
        flop_counter.register_flop_formula(torch.ops.aten.relu, get_raw=True)
    with pytest.raises(ValueError, match="OpOverloadPacket"):
        flop_counter.register_flop_formula(torch.ops.aten.relu.default)(relu_flop)


@pytest.mark.parametrize("name,args,out_val,want", GOLDEN["helpers"])
def test_formula_helpers(name, args, out_val, want):
    fn = getattr(flop_counter, name)
    assert (fn(*args) if name.endswith("_count") else fn(*args, out_val=out_val)) == want
    if not name.endswith("_count"):  # registered formulas take a tensor for its shape
        assert fn(torch.empty(args[0]), *args[1:], out_val=out_val) == want


def test_formula_helper_errors():
    with pytest.raises(AssertionError, match="inner sizes"):
        flop_counter.mm_flop((2, 3), (4, 5))
    with pytest.raises(AssertionError, match="sizes differ"):
        flop_counter.bmm_flop((2, 2, 3), (3, 3, 4))


def test_mods_is_ignored_with_warning():
    with pytest.warns(UserWarning, match="mods argument is not needed"):
        FlopCounterMode(nn.Linear(2, 2), display=False)


def test_one_recorder_at_a_time():
    with profile():
        with pytest.raises(RuntimeError, match="profiler is recording"):
            FlopCounterMode(display=False).__enter__()
    with FlopCounterMode(display=False) as counter:
        with pytest.raises(RuntimeError, match="already enabled.*FlopCounterMode block"):
            profile().__enter__()
        with pytest.raises(RuntimeError, match="not reentrant"):
            counter.__enter__()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with profile(record_shapes=True) as prof:  # the recorder is free again
            torch.mm(torch.randn(2, 2), torch.randn(2, 2))
    assert any(e.name == "aten::mm" for e in prof.events())


def test_exception_in_block_releases_recorder():
    counter = FlopCounterMode(display=False)
    with pytest.raises(ValueError):
        with counter:
            torch.mm(torch.randn(2, 2), torch.randn(2, 2))
            raise ValueError("boom")
    assert counter.get_total_flops() == 16
    with profile():
        pass


def test_profiler_concrete_inputs():
    # what the counter reads a convolution's stride, padding and dilation from
    x, w = torch.randn(1, 3, 6, 6), torch.randn(4, 3, 3, 3)
    with profile(record_shapes=True) as prof:
        F.conv2d(x, w, stride=2, padding=1)
    conv = [e for e in prof.events() if e.name == "aten::convolution"]
    # as passed: PyTorch's lists are per dimension where torchlike's F.conv2d
    # passes a single int on
    got = [[v, v] if isinstance(v, int) and i in (3, 4, 5, 7) else v
           for i, v in enumerate(conv[0].concrete_inputs)]
    assert got == GOLDEN["conv_concrete_inputs"]
    assert conv[0].concrete_inputs[3] == 2


def test_counts_inside_the_block():
    a, b = torch.randn(2, 3), torch.randn(3, 4)
    with FlopCounterMode(display=False) as counter:
        torch.mm(a, b)
        assert counter.get_total_flops() == 48
        lin = nn.Linear(4, 5)
        lin(torch.mm(a, b)).sum()
        assert counter.get_flop_counts()["Linear"] == {torch.ops.aten.addmm: 80}
    assert counter.get_total_flops() == 48 + 48 + 80


def test_module_names_kept_by_the_counter():
    # a module is named on first sight and names its descendants then
    # (renaming one seen alone before); the names last for the counter's life
    inner = nn.Sequential(nn.Linear(3, 3))
    outer = nn.Sequential(nn.Sequential(inner))
    counter = FlopCounterMode(display=False)
    naming = []
    for call in (outer[0][0][0], outer, outer[0][0]):
        with counter:
            call(torch.randn(2, 3))
        naming.append(sorted(counter.get_flop_counts()))
    assert naming == GOLDEN["naming"]
