"""Record PyTorch's torch.fx answers for tests/test_fx.py.

Run with an interpreter that has PyTorch:
    python scripts/golden_fx.py
writes tests/golden/fx.json: what tests/fx_cases.py's ``record(torch)``
returns - per model (tests/fx_cases.py's ``models``) the graph text, the
generated code and the node list (op, name, target, args, kwargs); the code
after fixed graph edits, a Transformer and replace_pattern; concrete_args;
ShapeProp's shapes, dtypes and strides; the errors of untraceable code."""
import torch.fx  # noqa: F401
import torch.fx.passes.shape_prop  # noqa: F401

from golden_calls import record_cases

if __name__ == "__main__":
    record_cases("fx_cases", "fx")
