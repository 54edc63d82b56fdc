"""Shared by the scripts that record PyTorch's answers to argument forms
(golden_create_args.py, golden_spread_args.py): each call is a Python
expression, its outcome the script's describe() of the result or the
exception it raises; the pairs go to tests/golden/<name>.json."""
import json
import os
import warnings


def det(T, *shape, s=0.3, dtype=None):
    """A deterministic input of the given shape over library T:
    sin(s k + 0.1) for k = 0, 1, ... (dtype float32 unless given)."""
    n = 1
    for k in shape:
        n *= k
    return T.sin(T.arange(n, dtype=dtype or T.float32) * s + 0.1).reshape(shape)


def describe_plain(r):
    """A JSON form of a call's result for the calls whose answers are plain
    values, sequences of them, or objects known by their repr."""
    if isinstance(r, (tuple, list)):
        return ["list", [describe_plain(x) for x in r]]
    if r is None or isinstance(r, (bool, int, float, str)):
        return ["value", r]
    return ["repr", repr(r)]


def record(calls, make_env, describe, name, messages=False):
    """Evaluate each call in a fresh make_env() under PyTorch and write
    [call, outcome] pairs; messages: keep an exception's first line too."""
    import torch
    out = []
    for call in calls:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # e.g. meshgrid's indexing= warning
                out.append([call, describe(eval(call, make_env(torch)))])
        except Exception as e:  # noqa: BLE001 - the exception is the answer
            raised = ["raises", type(e).__name__]
            out.append([call, raised + [str(e).splitlines()[0]] if messages else raised])
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests",
                        "golden", name + ".json")
    with open(path, "w") as f:
        json.dump({"torch": torch.__version__, "calls": out}, f, indent=0)
        f.write("\n")
    print(f"wrote {len(out)} calls to {path}")


def record_cases(cases, name):
    """Write what tests/<cases>.py's record(torch) returns (a dict) under
    PyTorch, seeded, to tests/golden/<name>.json, with PyTorch's version."""
    import importlib
    import sys
    import torch
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    sys.path.insert(0, os.path.join(root, "tests"))
    torch.manual_seed(0)
    data = importlib.import_module(cases).record(torch)
    data["torch_version"] = torch.__version__
    path = os.path.join(root, "tests", "golden", name + ".json")
    with open(path, "w") as f:
        json.dump(data, f, indent=1, sort_keys=True)
        f.write("\n")
    print("wrote", os.path.normpath(path))
