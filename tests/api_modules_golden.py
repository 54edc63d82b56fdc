"""PyTorch's recorded answers for the modules of docs/api_modules.md
(scripts/golden_api_modules.py -> tests/golden/api_modules.json) and the
helper that runs a recorded call with torchlike and compares."""
import json
import os
import re
import sys

import torchlike as torch

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
with open(os.path.join(_ROOT, "tests", "golden", "api_modules.json")) as _f:
    GOLDEN = json.load(_f)
if os.path.join(_ROOT, "scripts") not in sys.path:
    sys.path.append(os.path.join(_ROOT, "scripts"))
import golden_api_modules as script  # noqa: E402


def ours(value):
    """PyTorch's answer with torchlike's module name."""
    return json.loads(re.sub(r"(?<![A-Za-z_])torch\.", "torchlike.", json.dumps(value)))


def check(area, call, expected, env=None, different=None):
    """Run ``call`` with torchlike and compare with PyTorch's outcome, or with
    ``different[call]`` where torchlike answers differently on purpose."""
    got = script.outcome(call, env or script.make_env(torch))
    want = different[call] if different and call in different else ours(expected)
    assert got == want, f"{call}:\n ours  {got}\n want  {want}\n torch {expected}"
