"""torchlike.utils.data against torch.utils.data: collation of nested
structures, sequential loading, lengths, split sizes, distributed shards and
error messages, recorded with PyTorch by scripts/golden_data.py."""
import importlib.util
import json
import os
import sys

import pytest

import torchlike

ROOT = os.path.join(os.path.dirname(__file__), "..")
sys.path.insert(0, os.path.join(ROOT, "scripts"))
_spec = importlib.util.spec_from_file_location("golden_data",
                                               os.path.join(ROOT, "scripts", "golden_data.py"))
golden = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(golden)

with open(os.path.join(ROOT, "tests", "golden", "data", "expected.json")) as _f:
    EXPECTED = json.load(_f)

golden.LIB[0] = torchlike
CASES = golden.cases(torchlike)


def test_every_recorded_case_is_run():
    assert set(CASES) == set(EXPECTED) - {"torch_version"}


@pytest.mark.parametrize("name", sorted(CASES))
def test_case_matches_pytorch(name):
    assert golden.run(CASES[name]) == EXPECTED[name]
