"""Record PyTorch's torch.fx answers for tests/test_fx.py.

Run with an interpreter that has PyTorch:
    python scripts/golden_fx.py
writes tests/golden/fx.json: what tests/fx_cases.py's ``record(torch)``
returns - per model (tests/fx_cases.py's ``models``) the graph text, the
generated code and the node list (op, name, target, args, kwargs); the code
after fixed graph edits, a Transformer and replace_pattern; concrete_args;
ShapeProp's shapes, dtypes and strides; the errors of untraceable code."""
import json
import os
import sys

import torch
import torch.fx  # noqa: F401
import torch.fx.passes.shape_prop  # noqa: F401

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
import fx_cases  # noqa: E402

OUT = os.path.join(HERE, "..", "tests", "golden", "fx.json")


def main():
    torch.manual_seed(0)
    data = fx_cases.record(torch)
    data["torch_version"] = torch.__version__
    with open(OUT, "w") as f:
        json.dump(data, f, indent=1, sort_keys=True)
        f.write("\n")
    print("wrote", os.path.normpath(OUT))


if __name__ == "__main__":
    main()
