"""Write torchlike/_aten_overloads.json: PyTorch's overload names of each
ATen operator that torchlike answers (torchlike._ops.aten_function finds a
function of the same name), for ``torchlike.ops.aten``.

Run with an interpreter that has PyTorch, with torchlike importable:
    PYTHONPATH=. python scripts/gen_aten_overloads.py"""
import json
import os

import torch

from torchlike._ops import aten_function


def main():
    names = sorted({op.name.split("::", 1)[1].split(".")[0]
                    for op in torch._C._jit_get_all_schemas()
                    if op.name.startswith("aten::")})
    table = {}
    for name in names:
        if aten_function(name) is None:
            continue
        try:
            table[name] = getattr(torch.ops.aten, name).overloads()
        except (AttributeError, RuntimeError):
            continue
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "torchlike",
                        "_aten_overloads.json")
    with open(path, "w") as f:
        json.dump(table, f, separators=(",", ":"), sort_keys=True)
        f.write("\n")
    print(f"wrote {len(table)} operators to {path}")


if __name__ == "__main__":
    main()
