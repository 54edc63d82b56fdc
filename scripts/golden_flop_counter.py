"""Record what PyTorch's FlopCounterMode counts, for tests/test_flop_counter.py.

Run with an interpreter that has PyTorch:
    python scripts/golden_flop_counter.py
writes tests/golden/flop_counter.json: for each program of PROGRAMS (run inside
FlopCounterMode(display=False)),
  total:  get_total_flops();
  counts: get_flop_counts() with the op packets written as str (``aten.mm``);
  rows:   for each depth of DEPTHS, the rows get_table(depth) lays out (module
          or " - op" name, FLOP with its suffix, % of the total).  PyTorch
          hands the rows to the tabulate package; a stand-in module records
          them, so the oracle needs no tabulate;
  tables: get_table(depth) text for each depth, when the tabulate package can
          be imported (PYTHONPATH to a `pip install --target` of it will do).
  conv_concrete_inputs: the profiler's concrete_inputs of one convolution;
  naming: module names one counter reports over three blocks;
  helpers: the formula helpers' results on fixed shapes (HELPER_CALLS);
Flop counts depend on shapes only, so the programs use random values."""
import json
import os
import sys
import types

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils import flop_counter
from torch.utils.flop_counter import FlopCounterMode

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "golden",
                   "flop_counter.json")

DEPTHS = (1, 2, None)

# Each program builds its inputs and runs; `torch`, `nn` and `F` are bound to
# the library under test.  `setup` runs outside the counter.
PROGRAMS = {
    "mlp_fwd": {
        "setup": "m = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))\n"
                 "x = torch.randn(5, 8)",
        "run": "m(x)",
    },
    "mlp_fwd_bwd": {
        "setup": "m = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))\n"
                 "x = torch.randn(5, 8)",
        "run": "m(x).sum().backward()",
    },
    "mlp_fwd_bwd_input_grad": {
        "setup": "m = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))\n"
                 "x = torch.randn(5, 8, requires_grad=True)",
        "run": "m(x).sum().backward()",
    },
    "nested_modules": {
        "setup": ("class Block(nn.Module):\n"
                  "    def __init__(self):\n"
                  "        super().__init__()\n"
                  "        self.proj = nn.Linear(6, 6)\n"
                  "        self.act = nn.Tanh()\n"
                  "    def forward(self, x):\n"
                  "        return self.act(self.proj(x)) @ torch.ones(6, 6)\n"
                  "class Net(nn.Module):\n"
                  "    def __init__(self):\n"
                  "        super().__init__()\n"
                  "        self.blocks = nn.Sequential(Block(), Block())\n"
                  "        self.head = nn.Linear(6, 2, bias=False)\n"
                  "    def forward(self, x):\n"
                  "        return self.head(self.blocks(x))\n"
                  "m = Net()\n"
                  "x = torch.randn(3, 6, requires_grad=True)"),
        "run": "y = m(x)\ny = torch.mm(y, torch.ones(2, 3))\ny.sum().backward()",
    },
    "convnet_fwd": {
        "setup": ("m = nn.Sequential(nn.Conv2d(3, 4, 3, stride=2, padding=1), nn.ReLU(),\n"
                  "                  nn.Conv2d(4, 6, 3, padding=2, dilation=2, groups=2),\n"
                  "                  nn.Flatten(), nn.Linear(6 * 4 * 4, 5))\n"
                  "x = torch.randn(2, 3, 8, 8)"),
        "run": "m(x)",
    },
    "convnet_fwd_bwd": {
        "setup": ("m = nn.Sequential(nn.Conv2d(3, 4, 3, stride=2, padding=1), nn.ReLU(),\n"
                  "                  nn.Conv2d(4, 6, 3, padding=2, dilation=2, groups=2),\n"
                  "                  nn.Flatten(), nn.Linear(6 * 4 * 4, 5))\n"
                  "x = torch.randn(2, 3, 8, 8, requires_grad=True)"),
        "run": "m(x).sum().backward()",
    },
    "conv_functional": {
        "setup": ("x1 = torch.randn(2, 3, 11)\nw1 = torch.randn(4, 3, 3)\n"
                  "x2 = torch.randn(1, 4, 5, 5, requires_grad=True)\n"
                  "w2 = torch.randn(4, 3, 3, 3, requires_grad=True)\n"
                  "x3 = torch.randn(1, 2, 4, 5, 6)\nw3 = torch.randn(3, 2, 2, 3, 3)"),
        "run": ("F.conv1d(x1, w1, None, 2)\n"
                "F.conv_transpose2d(x2, w2, stride=2, padding=1, output_padding=1).sum()"
                ".backward()\n"
                "F.conv3d(x3, w3, stride=(1, 2, 1), padding=1)"),
    },
    "batched_products": {
        "setup": ("a = torch.randn(3, 4, 5)\nb = torch.randn(3, 5, 6)\nc = torch.randn(3, 4, 6)\n"
                  "a4 = torch.randn(2, 3, 4, 5)\nb4 = torch.randn(2, 3, 5, 6)\n"
                  "v = torch.randn(5)"),
        "run": ("torch.bmm(a, b)\ntorch.baddbmm(c, a, b)\ntorch.matmul(a, b)\na4 @ b4\n"
                "a @ b[0]\nb[0].t() @ a.transpose(1, 2)\na4 @ b[0]\ntorch.randn(4, 5) @ b\n"
                "torch.einsum('bij,bjk->bik', a, b)\ntorch.mm(a[0], b[0])\n"
                "torch.addmm(c[0], a[0], b[0])\nv @ b[0]\nv @ b\na[0] @ v\nv @ v"),
    },
    "other_products": {
        "setup": "m = torch.randn(4, 5)\nv = torch.randn(5)\nt = torch.randn(2, 3, 5)",
        "run": ("torch.inner(m, torch.randn(6, 5))\ntorch.inner(v, m)\ntorch.inner(m, v)\n"
                "torch.inner(t, m)\ntorch.inner(v, v)\ntorch.inner(torch.tensor(2.0), m)\n"
                "torch.mv(m, v)\ntorch.dot(v, v)\ntorch.outer(v, v)\n"
                "torch.addbmm(torch.randn(3, 4), torch.randn(2, 3, 5), torch.randn(2, 5, 4))\n"
                "torch.linalg.matmul(m, torch.randn(5, 2))"),
    },
    "products_bwd": {
        "setup": ("a = torch.randn(3, 4, 5, requires_grad=True)\n"
                  "b = torch.randn(3, 5, 6, requires_grad=True)\n"
                  "c = torch.randn(3, 4, 6, requires_grad=True)\n"
                  "m = torch.randn(4, 5, requires_grad=True)"),
        "run": ("(torch.bmm(a, b).sum() + torch.baddbmm(c, a, b).sum()"
                " + torch.mm(m, b[0]).sum()).backward()"),
    },
    "sdpa_fwd_bwd": {
        "setup": "q = torch.randn(2, 3, 4, 8, requires_grad=True)\n"
                 "k = torch.randn(2, 3, 5, 8, requires_grad=True)\n"
                 "v = torch.randn(2, 3, 5, 8, requires_grad=True)",
        "run": "F.scaled_dot_product_attention(q, k, v).sum().backward()",
    },
    "mha_fwd_bwd": {  # torchlike's in-projection is addmm where PyTorch's is mm
        "setup": "m = nn.MultiheadAttention(8, 2, batch_first=True)\n"
                 "x = torch.randn(2, 4, 8, requires_grad=True)",
        "run": "m(x, x, x)[0].sum().backward()",
    },
    "no_flops": {
        "setup": "x = torch.randn(4, 4)",
        "run": "(x + 1).relu().sum()",
    },
}


HELPER_CALLS = [
    ("mm_flop", [[2, 3], [3, 4]], None),
    ("addmm_flop", [[4], [2, 3], [3, 4]], None),
    ("bmm_flop", [[5, 2, 3], [5, 3, 4]], None),
    ("baddbmm_flop", [[5, 2, 4], [5, 2, 3], [5, 3, 4]], None),
    ("conv_flop_count", [[2, 3, 8, 8], [6, 3, 3, 3], [2, 6, 4, 4], False], None),
    ("conv_flop_count", [[2, 3, 5], [3, 2, 3], [2, 4, 11], True], None),
    ("conv_flop", [[2, 4, 8, 8], [6, 2, 3, 3], None, [2, 2], [1, 1], [1, 1], False, [0, 0], 2],
     [2, 6, 4, 4]),
    ("conv_backward_flop", [[2, 6, 4, 4], [2, 4, 8, 8], [6, 2, 3, 3], None, [2, 2], [1, 1],
                            [1, 1], False, [0, 0], 2, [True, True, False]],
     [[2, 4, 8, 8], [6, 2, 3, 3], None]),
    ("conv_backward_flop", [[2, 4, 11], [2, 3, 5], [3, 2, 3], None, [2], [0], [1], True, [0],
                            1, [False, True, True]],
     [None, [3, 2, 3], [2]]),
    ("sdpa_flop_count", [[1, 2, 4, 8], [1, 2, 5, 8], [1, 2, 5, 6]], None),
    ("sdpa_flop", [[1, 2, 4, 8], [1, 2, 5, 8], [1, 2, 5, 6]], [1, 2, 4, 6]),
    ("sdpa_backward_flop_count", [[1, 2, 4, 6], [1, 2, 4, 8], [1, 2, 5, 8], [1, 2, 5, 6]],
     None),
    ("sdpa_backward_flop", [[1, 2, 4, 6], [1, 2, 4, 8], [1, 2, 5, 8], [1, 2, 5, 6]],
     [[1, 2, 4, 8], [1, 2, 5, 8], [1, 2, 5, 6]]),
]


class _RowRecorder(types.ModuleType):
    """Stands in for the tabulate package: keeps the rows PyTorch lays out."""

    def __init__(self):
        super().__init__("tabulate")
        self.rows = None
        self.PRESERVE_WHITESPACE = False

    def tabulate(self, values, headers=None, colalign=None):
        self.rows = [list(map(str, r)) for r in values]
        return ""


def main():
    recorder = _RowRecorder()
    try:
        import tabulate as real_tabulate
    except ImportError:
        real_tabulate = None
    out = {}
    for name, prog in PROGRAMS.items():
        torch.manual_seed(0)
        scope = {"torch": torch, "nn": nn, "F": F}
        exec(prog["setup"], scope)
        with FlopCounterMode(display=False) as counter:
            exec(prog["run"], scope)
        tables = {}
        if real_tabulate is not None:
            for depth in DEPTHS:
                tables[str(depth)] = counter.get_table(depth)
        rows = {}
        sys.modules["tabulate"] = recorder  # only while tables are laid out
        for depth in DEPTHS:
            counter.get_table(depth)
            rows[str(depth)] = recorder.rows
        if real_tabulate is not None:
            sys.modules["tabulate"] = real_tabulate
        else:
            del sys.modules["tabulate"]
        out[name] = {
            "total": counter.get_total_flops(),
            "counts": {mod: {str(op): n for op, n in ops.items()}
                       for mod, ops in counter.get_flop_counts().items()},
            "rows": rows,
            "tables": tables,
        }
    # the profiler's concrete_inputs of a convolution, where the counter reads
    # stride, padding and dilation
    with torch.profiler.profile(record_shapes=True) as prof:
        F.conv2d(torch.randn(1, 3, 6, 6), torch.randn(4, 3, 3, 3), stride=2, padding=1)
    concrete = [e.concrete_inputs for e in prof.events() if e.name == "aten::convolution"][0]
    # module names across blocks of one counter: a grandchild called alone, the
    # outer module, the grandchild alone again
    inner = nn.Sequential(nn.Linear(3, 3))
    outer = nn.Sequential(nn.Sequential(inner))
    counter = FlopCounterMode(display=False)
    naming = []
    for call in (outer[0][0][0], outer, outer[0][0]):
        with counter:
            call(torch.randn(2, 3))
        naming.append(sorted(counter.get_flop_counts()))
    # the formula helpers on fixed shapes: [name, args, out_val, result]; the
    # registered ones (not *_count) take out_val, as the counter calls them
    helpers = []
    for name, args, out_val in HELPER_CALLS:
        fn = getattr(flop_counter, name)
        result = fn(*args) if name.endswith("_count") else fn(*args, out_val=out_val)
        helpers.append([name, args, out_val, result])
    with open(OUT, "w") as f:
        json.dump({"programs": PROGRAMS, "results": out, "conv_concrete_inputs": concrete,
                   "naming": naming, "helpers": helpers}, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
