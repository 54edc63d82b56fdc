"""torchlike's PyTorch API against PyTorch's recorded outcomes.

tests/golden/torch_api_fuzz.json holds fixed-seed cases of
scripts/fuzz_torch_api.py (elementwise ops in every form, operators,
in-place, out=, alpha=, rounding_mode=, every CPU dtype pair, Python
scalars, 0-d/empty/broadcast/non-contiguous tensors, reductions, a few shape
ops) with PyTorch 2.15's outcome of each, written by the script's --record
mode under PyTorch; here they are replayed on torchlike alone.
"""
import json

import numpy
import pytest

import torchlike as tl
from oracle import script


def _fuzzer():
    return script("fuzz_torch_api")


FUZZ = _fuzzer()
with open(FUZZ.GOLDEN) as f:
    GOLDEN = json.load(f)["cases"]


def replay(cases):
    failures = []
    for case in cases:
        got = FUZZ.run(case["spec"], tl)
        try:
            FUZZ.compare(case["want"], got, case["spec"])
        except FUZZ.Mismatch as m:
            failures.append(f"case {case['id']}: {FUZZ.describe(case['spec'])}\n{m}")
    return failures


def test_golden_cases_agree_with_pytorch():
    assert len(GOLDEN) >= 300
    failures = replay(GOLDEN)
    assert not failures, "\n".join(failures[:10])


def test_golden_cases_cover_the_forms():
    forms = {c["spec"]["form"] for c in GOLDEN}
    assert forms >= {"fn", "method", "inplace", "out", "op", "rop", "iop"}
    ops = {c["spec"]["op"] for c in GOLDEN}
    assert ops >= {"add", "sub", "div", "sum", "max", "cat", "where", "gather"}
    assert any("exc" in c["want"] for c in GOLDEN)  # refusals are replayed too


def test_a_planted_difference_is_caught(monkeypatch):
    """The comparison is live: a sum that adds one more, a sum of another
    dtype, and a refusal where PyTorch computes are each reported."""
    real_sum = tl.sum
    sums = [c for c in GOLDEN if c["spec"]["op"] == "sum" and c["spec"]["form"] == "fn"
            and "exc" not in c["want"]]
    assert sums and not replay(sums)
    monkeypatch.setattr(tl, "sum", lambda *a, **k: real_sum(*a, **k) + 1)
    assert any("values differ" in m for m in replay(sums))
    monkeypatch.setattr(tl, "sum", lambda *a, **k: real_sum(*a, **k).to(tl.complex128))
    assert all("dtype complex128" in m for m in replay(sums))
    monkeypatch.setattr(tl, "sum", lambda *a, **k: 1 / 0)
    assert all("torchlike raised ZeroDivisionError" in m for m in replay(sums))


def test_compare_is_exact_for_integers_and_zero_signs():
    spec = {"op": "neg", "form": "fn", "args": [], "kw": {}}
    rec = {"dtype": "int64", "shape": [2], "vals": [1, 2]}
    with pytest.raises(FUZZ.Mismatch, match="values differ"):
        FUZZ.compare({"res": rec}, {"res": dict(rec, vals=[1, 3])}, spec)
    frec = {"dtype": "float32", "shape": [1], "vals": [0.0]}
    with pytest.raises(FUZZ.Mismatch, match="signs of zeros"):
        FUZZ.compare({"res": frec}, {"res": dict(frec, vals=[-0.0])}, spec)
    FUZZ.compare({"res": dict(frec, vals=[float("nan")])},
                 {"res": dict(frec, vals=[float("nan")])}, spec)


# ---- regressions: findings of the fuzzer -----------------------------------------------------

def test_fixed_findings_are_in_the_golden_cases():
    # findings of other seeds and the hand-drawn calls of their fixes
    # (--record refuses to write while one of them differs): half floor/trunc
    # divisions by a tensor rounding each step, bfloat16 fmax/fmin of equal
    # zeros, out= of a wider dtype than a half result, complex var/std
    # without degrees of freedom
    ids = {c["id"] for c in GOLDEN}
    fixed = set(FUZZ.RECORD_FOUND) | {key for key, _ in FUZZ.fixed_specs()}
    assert len(fixed) > 40 and fixed <= ids
    assert not replay([c for c in GOLDEN if c["id"] in fixed])


@pytest.mark.parametrize("op", ["floor_divide", "remainder", "fmod"])
@pytest.mark.parametrize("dtype", [tl.int16, tl.uint8, tl.int64])
def test_integer_division_by_a_false_bool_raises(op, dtype):
    # int16 // tensor([False]) divided by zero silently (0); PyTorch's CPU
    # raises RuntimeError: ZeroDivisionError, as for an integer zero
    x = tl.tensor([-25, 51, 70], dtype=dtype)
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        getattr(tl, op)(x, tl.tensor([True, False, True])[1:2])
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        x.clone().__ifloordiv__(tl.tensor(False)) if op == "floor_divide" else \
            getattr(x.clone(), op + "_")(tl.tensor([False]))
    # a True divisor divides by one, NumPy's answer
    got = getattr(tl, op)(x, tl.tensor([True]))
    want = getattr(numpy, op)(numpy.asarray(x), numpy.array([1], dtype=numpy.asarray(x).dtype))
    assert got.dtype == dtype and numpy.array_equal(numpy.asarray(got), want)


@pytest.mark.parametrize("op", ["floor_divide", "remainder"])
def test_integer_division_of_an_empty_tensor_by_zero_raises_nothing(op):
    # PyTorch divides nothing and raises nothing; torchlike raised
    x = tl.zeros((2, 0), dtype=tl.int32)
    got = getattr(tl, op)(x, 0)
    assert got.shape == (2, 0) and got.dtype == tl.int32
    assert getattr(x, op + "_")(tl.tensor([False])) is x
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        getattr(tl, op)(tl.zeros(1, dtype=tl.int32), 0)  # not empty: refused


@pytest.mark.parametrize("dtype", [tl.float16, tl.bfloat16, tl.float32])
@pytest.mark.parametrize("op", ["add", "sub"])
def test_bool_alpha_of_a_half_tensor_is_refused(dtype, op):
    # float16/bfloat16 rounded alpha to the half dtype before its kind was
    # checked: add_(2, alpha=True) was accepted (PyTorch: RuntimeError)
    x = tl.ones(2, dtype=dtype)
    for call in (lambda: getattr(tl, op)(x, 2, alpha=True),
                 lambda: getattr(x, op + "_")(tl.tensor([1.5], dtype=dtype), alpha=True)):
        with pytest.raises(RuntimeError, match="Boolean alpha only supported"):
            call()
    assert x.tolist() == [1.0, 1.0]
    got = getattr(tl, op)(x, 2, alpha=3)  # an int alpha is taken
    assert got.tolist() == ([7.0, 7.0] if op == "add" else [-5.0, -5.0])


@pytest.mark.parametrize("a,b,dtype", [(2j, True, tl.complex64), (2j, 1, tl.complex64),
                                       (2j, 1.5, tl.complex64), (1.5, True, tl.float32),
                                       (1, 2, tl.int64), (True, False, tl.bool)])
def test_where_of_two_python_scalars_takes_the_default_dtypes(a, b, dtype):
    # a Python complex was complex128 here; PyTorch's is the default complex
    c = tl.tensor([True, False])
    got = tl.where(c, a, b)
    assert got.dtype == dtype
    assert numpy.array_equal(numpy.asarray(got), numpy.where([True, False], a, b).astype(
        numpy.asarray(got).dtype))
    old = tl.get_default_dtype()
    tl.set_default_dtype(tl.float64)  # the default float's complex: complex128
    try:
        assert tl.where(c, a, b).dtype == {tl.complex64: tl.complex128,
                                           tl.float32: tl.float64}.get(dtype, dtype)
    finally:
        tl.set_default_dtype(old)


@pytest.mark.parametrize("src,out", [(tl.float16, tl.bool), (tl.float32, tl.int32),
                                     (tl.int32, tl.bool), (tl.complex64, tl.float32)])
def test_cat_into_an_out_of_a_lower_kind_is_refused(src, out):
    # cat/stack cast floats into a bool or int out= silently; PyTorch refuses
    x = tl.tensor([0, 2]).to(src)
    o = tl.zeros(2, dtype=out)
    with pytest.raises(TypeError, match="can't be cast to the desired output type"):
        tl.cat([x], out=o)
    with pytest.raises(TypeError, match="can't be cast to the desired output type"):
        tl.stack([x], out=tl.zeros((1, 2), dtype=out))
    assert o.tolist() == [0, 0] or o.tolist() == [False, False]
    wide = tl.zeros(2, dtype=tl.complex128)  # a higher kind is fine
    assert tl.cat([x], out=wide) is wide and wide.real.tolist() == [0.0, 2.0]


@pytest.mark.parametrize("bounds", [dict(min=32768, max=2.68), dict(min=4.22, max=-2 ** 63),
                                    dict(min=-2 ** 40, max=tl.tensor(50.0))])
def test_clamp_int_bound_past_the_dtype_with_a_float_bound(bounds):
    # the int bound was checked against int8's range although the float bound
    # makes the result float32 (PyTorch computes it); NumPy's clip is the oracle
    x = tl.tensor([-87, 5, 100], dtype=tl.int8)
    got = tl.clamp(x, **bounds)
    lo, hi = (float(b) for b in bounds.values())
    assert got.dtype == tl.float32
    assert numpy.array_equal(numpy.asarray(got), numpy.minimum(numpy.maximum(
        numpy.asarray(x).astype(numpy.float32), numpy.float32(lo)), numpy.float32(hi)))
    with pytest.raises(RuntimeError, match="outside the representable range"):
        tl.clamp(x, min=300)  # an integer result: still refused
