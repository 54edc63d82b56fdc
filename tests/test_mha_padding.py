"""Attention rows that see no key, against PyTorch 2.15's answers
(tests/golden/mha_padding.json, recorded by scripts/golden_mha_padding.py from
tests/mha_padding_cases.py, which runs the very same code here).

PyTorch's fused inference kernels (MultiheadAttention's and
TransformerEncoderLayer's "fast path") give NaN for a query whose keys are all
masked, their general path zeros (then out_proj's bias), the encoder's
nested-tensor path zeros at each padded position; the fused kernels read any
nonzero mask entry as masked and do not read is_causal.  Values agree to
float32 rounding (the two libraries sum in other orders); where PyTorch has
NaN, so must torchlike, and nowhere else."""
import json
import math
import os

import numpy as np
import pytest

import mha_padding_cases
import torchlike as torch

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden",
                       "mha_padding.json")) as _f:
    GOLDEN = json.load(_f)
GOLDEN.pop("torch_version")
OURS = mha_padding_cases.record(torch)


def _nan_rows(value):
    """The (batch, position) pairs whose output row is NaN."""
    a = np.asarray(value, dtype=np.float64)
    return sorted(map(tuple, np.argwhere(np.isnan(a).any(-1)).tolist()))


@pytest.mark.parametrize("case", sorted(GOLDEN))
def test_matches_pytorch(case):
    want, got = GOLDEN[case], OURS[case]
    assert got[0] == want[0], (got, want)
    if want[0] == "raises":
        assert got == want
        return
    assert len(got[1]) == len(want[1])
    for w, g in zip(want[1], got[1]):       # the output, and the weights if any
        if w is None:
            assert g is None
            continue
        w, g = np.asarray(w), np.asarray(g)
        assert g.shape == w.shape
        np.testing.assert_array_equal(np.isnan(g), np.isnan(w))
        np.testing.assert_allclose(g, w, rtol=2e-5, atol=2e-6, equal_nan=True)


def test_fast_path_nan_rows_are_the_rows_with_no_key():
    """The fused kernel's NaN rows are exactly the fully padded sequence
    (sequence 1 here) and the query with a fully masked attn_mask row."""
    assert set(_nan_rows(OURS["mha_fast_kpm"][1][0])) == {(1, p) for p in range(4)}
    assert set(_nan_rows(OURS["mha_fast_row"][1][0])) == {(n, 1) for n in range(3)}
    assert _nan_rows(OURS["mha_fast_per_head"][1][0]) == [(0, 2)]
    # the general path: no NaN, the padded sequence's rows are out_proj's bias
    bias = np.asarray(OURS["mha_float_kpm"][1][0])[1]
    assert not np.isnan(bias).any() and np.ptp(bias, axis=0).max() == 0


def test_nested_path_zeros_padded_positions():
    out = np.asarray(OURS["enc_nested_kpm"][1][0])
    assert (out[1] == 0).all() and (out[2, 2:] == 0).all()
    assert not np.isnan(out).any()


def test_is_causal_without_mask_on_fast_path_is_no_error():
    """PyTorch's fused kernel ignores is_causal; with the fast path off the
    hint needs a mask."""
    assert OURS["mha_fast_is_causal_no_mask"][0] == "ok"
    assert OURS["fastpath_off_mha_fast_is_causal_no_mask"][0] == "raises"
    assert math.isfinite(OURS["mha_fast_is_causal_no_mask"][1][0][0][0][0])
