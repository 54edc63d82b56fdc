"""Check that PyTorch reads what torchlike.save writes.

    python scripts/check_torch_roundtrip.py [--torch-python PATH]

Run with the interpreter that has torchlike.  Each golden checkpoint that
PyTorch wrote (tests/golden/serialization, see golden_serialization.py) is
loaded by torchlike and saved again by torchlike (zip format, and the legacy
format); then PyTorch loads those files with ``torch.load(weights_only=True)``
(and ``mmap=True`` for zip files) and the result must equal, exactly, what
PyTorch loaded from its own file: values bit for bit, dtypes, shapes, strides,
offsets, requires_grad and which tensors share storage.

PyTorch runs in a child process: this interpreter when it imports torch,
else --torch-python or $TORCH_PYTHON.  Without PyTorch the check says so and
exits 0."""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))  # the repository root: torchlike as built in place
import golden_serialization as golden  # noqa: E402

TORCH_SIDE = """
import json, sys
sys.path.insert(0, {here!r})
import torch, golden_serialization as golden
out = {{}}
for path, mmap in json.loads(sys.argv[1]):
    obj = torch.load(path, weights_only=True, mmap=mmap)
    out[path + (" (mmap)" if mmap else "")] = golden.skeleton(obj, torch)
print(json.dumps(out))
"""


def torch_python(explicit):
    candidates = [explicit, os.environ.get("TORCH_PYTHON"), sys.executable]
    for exe in candidates:
        if exe and subprocess.run([exe, "-c", "import torch"], capture_output=True).returncode == 0:
            return exe
    return None


def normalise(skel, has_parameter):
    """Without torchlike.nn.Parameter, a Parameter is saved as a leaf tensor
    that requires grad: PyTorch then reads class Tensor."""
    if has_parameter:
        return skel
    text = json.dumps(skel).replace('"class": "Parameter"', '"class": "Tensor"')
    return json.loads(text)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--torch-python", help="a Python interpreter with PyTorch installed")
    args = parser.parse_args()
    exe = torch_python(args.torch_python)
    if exe is None:
        print("PyTorch is not installed here (nor given with --torch-python): nothing checked")
        return 0
    import torchlike

    has_parameter = hasattr(torchlike.nn, "Parameter")
    with open(os.path.join(golden.GOLDEN, "expected.json")) as f:
        expected = json.load(f)
    with tempfile.TemporaryDirectory() as tmp:
        jobs, wanted = [], {}
        for name in golden.FILES:
            obj = torchlike.load(os.path.join(golden.GOLDEN, name))
            for fmt, zip_format in (("zip", True), ("legacy", False)):
                path = os.path.join(tmp, f"{fmt}_{name}")
                torchlike.save(obj, path, _use_new_zipfile_serialization=zip_format)
                for mmap in ((False, True) if zip_format else (False,)):
                    jobs.append((path, mmap))
                    wanted[path + (" (mmap)" if mmap else "")] = name
        run = subprocess.run([exe, "-c", TORCH_SIDE.format(here=HERE), json.dumps(jobs)],
                             capture_output=True, text=True)
        if run.returncode:
            print(run.stderr)
            print("FAILED: PyTorch could not load torchlike's checkpoints")
            return 1
        got = json.loads(run.stdout)
    failures = 0
    for key, name in wanted.items():
        ok = got[key] == normalise(expected[name], has_parameter)
        failures += not ok
        print(f"{'ok  ' if ok else 'FAIL'} torch.load {os.path.basename(key)} (from {name})")
    torch_version = subprocess.run([exe, "-c", "import torch; print(torch.__version__)"],
                                   capture_output=True, text=True).stdout.strip()
    print(f"{len(wanted) - failures}/{len(wanted)} checkpoints written by torchlike load in "
          f"PyTorch {torch_version} as PyTorch's own did"
          + ("" if has_parameter else " (Parameters compared as tensors: torchlike.nn has "
                                      "no Parameter yet)"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
