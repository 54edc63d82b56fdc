"""Sparse tensors against PyTorch's recorded answers (scripts/golden_sparse.py
-> tests/golden/sparse.json): layouts, sizes, index and value tensors,
coalesced flags, reprs, which ops give sparse or dense results, and the
exceptions (type and first line) of bad input and unsupported ops."""
import json
import os
import re
import sys

import numpy as np
import pytest

import torchlike as T

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "scripts"))
import golden_sparse  # noqa: E402

with open(os.path.join(os.path.dirname(__file__), "golden", "sparse.json")) as f:
    CALLS = json.load(f)["calls"]

# Deliberate differences: call -> (what torchlike does, why)
DIFFERENT = {
    # PyTorch checks index bounds only with check_invariants=True; torchlike always checks
    # (an out-of-range index never reaches a kernel), so these construct nothing
    "T.sparse_csr_tensor(T.tensor([0, 1, 3]), T.tensor([0, 1, 2]), T.ones(3))":
        "raises: a CSR of inferred size takes ncols from the largest column (same as PyTorch)",
}


def _ours(x):
    return json.loads(re.sub(r"(?<![A-Za-z])torch\.", "torchlike.", json.dumps(x)))


def _same_repr(a, b):
    # the longer module name moves line breaks; the text must be the same
    return " ".join(a.split()) == " ".join(b.split())


def _close(a, b):
    np.testing.assert_allclose(np.asarray(a, dtype=complex), np.asarray(b, dtype=complex),
                               rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("call,expected", CALLS, ids=[c for c, _ in CALLS])
def test_matches_pytorch(call, expected):
    expected = _ours(expected)
    env = golden_sparse.env(T)
    if isinstance(expected, list) and expected and expected[0] == "raises":
        with pytest.raises(Exception) as e:
            eval(call, env)
        assert type(e.value).__name__ == expected[1], (call, str(e.value))
        assert str(e.value).splitlines()[0] == expected[2], call
        return
    got = golden_sparse.describe(T, eval(call, env))
    _compare(got, expected, call)


def _compare(got, expected, call):
    if isinstance(expected, list) and expected and expected[0] == "tuple":
        assert got[0] == "tuple" and len(got[1]) == len(expected[1]), call
        for g, e in zip(got[1], expected[1]):
            _compare(g, e, call)
        return
    if isinstance(expected, str):
        assert got == expected, call
        return
    assert set(got) == set(expected), (call, got)
    if expected.get("coalesced") is False:
        # an uncoalesced result: the order of its entries is PyTorch's kernel's
        # choice; the tensor they sum to must agree
        np.testing.assert_allclose(_densify(got), _densify(expected), rtol=1e-6, atol=1e-6)
        got, expected = dict(got, indices=None, values=None, repr=None), \
            dict(expected, indices=None, values=None, repr=None)
    for key, value in expected.items():
        if value is None:
            continue
        if key == "repr":
            assert _same_repr(got[key], value), (call, got[key], value)
        elif key in ("values", "dense"):
            _close(got[key], value)
        else:
            assert got[key] == value, (call, key, got[key], value)


def _densify(d):
    """A COO description's values summed into a dense NumPy array."""
    values = np.asarray(d["values"], dtype=complex)
    if values.ndim and values.shape[0] == 2 and "complex" in d["dtype"]:
        values = values[0] + 1j * values[1]
    out = np.zeros(d["size"], dtype=complex)
    idx = np.asarray(d["indices"], dtype=np.int64).reshape(len(d["indices"]), -1)
    np.add.at(out, tuple(idx), values)
    return out


def test_leaf_gradients_match_pytorch():
    """A sparse leaf's .grad: the dense gradient on its coalesced pattern
    (tests/golden/sparse_grads.json, scripts/golden_sparse.py).  PyTorch's
    flag often says uncoalesced for these unique, sorted indices; ours says
    coalesced, which they are."""
    with open(os.path.join(os.path.dirname(__file__), "golden", "sparse_grads.json")) as f:
        expected = json.load(f)
    got = golden_sparse.leaf_grads(T)
    assert sorted(got) == sorted(expected)
    for k, e in expected.items():
        assert got[k]["indices"] == e["indices"] and got[k]["coalesced"], k
        np.testing.assert_allclose(got[k]["values"], e["values"], rtol=1e-12)
