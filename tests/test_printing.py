# Exact-string tests for torchlike's PyTorch-compatible tensor printing.
# The module is loaded straight from its file so these run without the C
# extension being built.  Expected strings are PyTorch's output with
# "torch." spelled "torchlike.".
import importlib.util
import math
import pathlib

import numpy as np
import pytest

_PATH = pathlib.Path(__file__).resolve().parents[1] / "torchlike" / "_tensor_str.py"
_spec = importlib.util.spec_from_file_location("torchlike_tensor_str", _PATH)
ts = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ts)
tensor_repr = ts.tensor_repr

f32, f64 = np.float32, np.float64
nan, inf = float("nan"), float("inf")


@pytest.fixture(autouse=True)
def _default_printoptions():
    ts.set_printoptions(profile="default")
    yield
    ts.set_printoptions(profile="default")


def r(values, dtype_name, **kw):
    return tensor_repr(np.asarray(values), dtype_name, **kw)


# ---- 0-d -----------------------------------------------------------------

@pytest.mark.parametrize("values, dtype, expected", [
    (np.array(3.5, f32), "float32", "tensor(3.5000)"),
    (np.array(3.0, f32), "float32", "tensor(3.)"),
    (np.array(-0.0, f32), "float32", "tensor(-0.)"),
    (np.array(3, np.int64), "int64", "tensor(3)"),
    (np.array(True), "bool", "tensor(True)"),
    (np.array(nan, f32), "float32", "tensor(nan)"),
    (np.array(1e-4, f32), "float32", "tensor(1.0000e-04)"),  # f32(1e-4) < 1e-4
    (np.array(2.5, f64), "float64", "tensor(2.5000, dtype=torchlike.float64)"),
    (np.array(1 + 2j, np.complex64), "complex64", "tensor(1.+2.j)"),
])
def test_scalar(values, dtype, expected):
    assert r(values, dtype) == expected


# ---- 1-d floats ----------------------------------------------------------

@pytest.mark.parametrize("values, expected", [
    ([1.0, 2.0, 3.0], "tensor([1., 2., 3.])"),
    ([1.5, 2.0], "tensor([1.5000, 2.0000])"),
    ([0.0, 0.0, 0.0], "tensor([0., 0., 0.])"),
    ([0.0, 10.0], "tensor([ 0., 10.])"),
    ([-1.0, 2.0], "tensor([-1.,  2.])"),
    ([-1.5, 2.25], "tensor([-1.5000,  2.2500])"),
    ([0.1, 100.0], "tensor([  0.1000, 100.0000])"),
    ([1.0, 1000.0], "tensor([   1., 1000.])"),
    # sci mode: ratio > 1000, max > 1e8, or (non-integral) min < 1e-4
    ([1e-5, 1e10], "tensor([1.0000e-05, 1.0000e+10])"),
    ([-1e-5, 1e10], "tensor([-1.0000e-05,  1.0000e+10])"),
    ([1.0, 10000.0], "tensor([1.0000e+00, 1.0000e+04])"),
    ([1e9], "tensor([1.0000e+09])"),
    ([1e-5, 2e-5], "tensor([1.0000e-05, 2.0000e-05])"),
    # non-finite values
    ([1.0, nan, inf, -inf], "tensor([1., nan, inf, -inf])"),
    ([1.5, nan], "tensor([1.5000,    nan])"),
    ([nan], "tensor([nan])"),
    ([0.0, nan, -inf], "tensor([0., nan, -inf])"),
])
def test_float_1d(values, expected):
    assert r(np.array(values, f32), "float32") == expected


def test_float_line_wrap():
    assert r(np.arange(20, dtype=f32), "float32") == (
        "tensor([ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10., 11., 12., 13.,\n"
        "        14., 15., 16., 17., 18., 19.])")


def test_float64_suffix_same_line_after_wrap():
    assert r(np.arange(10, dtype=f64) * 1.5, "float64") == (
        "tensor([ 0.0000,  1.5000,  3.0000,  4.5000,  6.0000,  7.5000,  9.0000, 10.5000,\n"
        "        12.0000, 13.5000], dtype=torchlike.float64)")


def test_suffix_wraps_when_line_too_long():
    assert r(np.arange(14, dtype=f64), "float64") == (
        "tensor([ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10., 11., 12., 13.],\n"
        "       dtype=torchlike.float64)")


# ---- ints / bools ---------------------------------------------------------

@pytest.mark.parametrize("values, dtype, expected", [
    (np.arange(10), "int64", "tensor([0, 1, 2, 3, 4, 5, 6, 7, 8, 9])"),
    (np.array([-1, 20]), "int64", "tensor([-1, 20])"),
    (np.array([1, 2], np.int32), "int32", "tensor([1, 2], dtype=torchlike.int32)"),
    (np.array([1, 2], np.uint8), "uint8", "tensor([1, 2], dtype=torchlike.uint8)"),
    (np.array([-3, 4], np.int8), "int8", "tensor([-3,  4], dtype=torchlike.int8)"),
    (np.array([1, 2], np.int16), "int16", "tensor([1, 2], dtype=torchlike.int16)"),
    (np.array([True, False]), "bool", "tensor([ True, False])"),
    (np.array([True, True]), "bool", "tensor([True, True])"),
])
def test_int_bool(values, dtype, expected):
    assert r(values, dtype) == expected


# ---- multi-dimensional ----------------------------------------------------

def test_2d():
    assert r(np.array([[1.0, 2.0], [3.0, 4.0]], f32), "float32") == (
        "tensor([[1., 2.],\n"
        "        [3., 4.]])")


def test_2d_mixed_widths():
    assert r(np.array([[1.5, -2.0], [30.25, 4.0]], f32), "float32") == (
        "tensor([[ 1.5000, -2.0000],\n"
        "        [30.2500,  4.0000]])")


def test_2d_dtype_suffix_on_last_line():
    assert r(np.array([[1.0, 2.0], [3.0, 4.0]]), "float64") == (
        "tensor([[1., 2.],\n"
        "        [3., 4.]], dtype=torchlike.float64)")


def test_3d():
    assert r(np.arange(8, dtype=f32).reshape(2, 2, 2), "float32") == (
        "tensor([[[0., 1.],\n"
        "         [2., 3.]],\n"
        "\n"
        "        [[4., 5.],\n"
        "         [6., 7.]]])")


def test_4d_two_blank_lines():
    assert r(np.arange(4).reshape(2, 1, 1, 2), "int64") == (
        "tensor([[[[0, 1]]],\n"
        "\n"
        "\n"
        "        [[[2, 3]]]])")


def test_2d_row_wrap_indent():
    vals = np.arange(24, dtype=f32).reshape(2, 12) + 0.5
    assert r(vals, "float32") == (
        "tensor([[ 0.5000,  1.5000,  2.5000,  3.5000,  4.5000,  5.5000,  6.5000,  7.5000,\n"
        "          8.5000,  9.5000, 10.5000, 11.5000],\n"
        "        [12.5000, 13.5000, 14.5000, 15.5000, 16.5000, 17.5000, 18.5000, 19.5000,\n"
        "         20.5000, 21.5000, 22.5000, 23.5000]])")


# ---- summarisation --------------------------------------------------------

def test_summarised_1d():
    assert r(np.arange(2000), "int64") == (
        "tensor([   0,    1,    2,  ..., 1997, 1998, 1999])")


def test_threshold_boundary():
    assert "..." not in r(np.arange(1000), "int64")
    assert r(np.arange(1001), "int64") == "tensor([   0,    1,    2,  ...,  998,  999, 1000])"


def test_summarised_float_widths_from_shown_values_only():
    vals = np.arange(2000, dtype=f32)
    vals[1000] = 1e20  # hidden, so it must not force sci mode
    assert r(vals, "float32") == (
        "tensor([0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 1.9970e+03, 1.9980e+03,\n"
        "        1.9990e+03])")


def test_summarised_2d():
    assert r(np.arange(10000).reshape(100, 100), "int64") == (
        "tensor([[   0,    1,    2,  ...,   97,   98,   99],\n"
        "        [ 100,  101,  102,  ...,  197,  198,  199],\n"
        "        [ 200,  201,  202,  ...,  297,  298,  299],\n"
        "        ...,\n"
        "        [9700, 9701, 9702,  ..., 9797, 9798, 9799],\n"
        "        [9800, 9801, 9802,  ..., 9897, 9898, 9899],\n"
        "        [9900, 9901, 9902,  ..., 9997, 9998, 9999]])")


def test_summarised_2d_few_rows():
    assert r(np.arange(2000).reshape(2, 1000), "int64") == (
        "tensor([[   0,    1,    2,  ...,  997,  998,  999],\n"
        "        [1000, 1001, 1002,  ..., 1997, 1998, 1999]])")


def test_summarised_3d():
    out = r(np.arange(2000).reshape(20, 10, 10), "int64")
    lines = out.split("\n")
    assert lines[0] == "tensor([[[   0,    1,    2,  ...,    7,    8,    9],"
    assert lines[3] == "         ...,"
    assert lines[6] == "         [  90,   91,   92,  ...,   97,   98,   99]],"
    assert "\n\n        ...,\n\n        [[1700, 1701, 1702,  ..., 1707, 1708, 1709],\n" in out
    assert lines[-1] == "         [1990, 1991, 1992,  ..., 1997, 1998, 1999]]])"
    assert len(lines) == 6 * 7 + 6 + 1  # 6 blocks of 7 lines, 6 blank gaps, "...,"


# ---- complex --------------------------------------------------------------

@pytest.mark.parametrize("values, dtype, expected", [
    (np.array([1 + 2j, 3 - 4j], np.complex64), "complex64", "tensor([1.+2.j, 3.-4.j])"),
    (np.array([1.5 + 2j], np.complex64), "complex64", "tensor([1.5000+2.j])"),
    (np.array([1 + 2j]), "complex128", "tensor([1.+2.j], dtype=torchlike.complex128)"),
    (np.array([-1 - 0.5j, 2 + 0j], np.complex64), "complex64",
     "tensor([-1.-0.5000j,  2.+0.0000j])"),
])
def test_complex(values, dtype, expected):
    assert r(values, dtype) == expected


# ---- dtype / device / grad suffixes ----------------------------------------

def test_half_and_bfloat16():
    assert r(np.array([1.5, 2.0], np.float16), "float16") == (
        "tensor([1.5000, 2.0000], dtype=torchlike.float16)")
    assert r(np.array([1.5, 2.0], f32), "bfloat16") == (
        "tensor([1.5000, 2.0000], dtype=torchlike.bfloat16)")
    # printed via the float32 widening of the half value
    assert r(np.array([0.1], np.float16), "float16") == (
        "tensor([0.1000], dtype=torchlike.float16)")


def test_default_float64():
    assert r(np.array([1.0, 2.0]), "float64", default_float="float64") == "tensor([1., 2.])"
    assert r(np.array([1.0, 2.0], f32), "float32", default_float="float64") == (
        "tensor([1., 2.], dtype=torchlike.float32)")
    assert r(np.array([1 + 1j]), "complex128", default_float="float64") == "tensor([1.+1.j])"
    assert r(np.array([1 + 1j], np.complex64), "complex64", default_float="float64") == (
        "tensor([1.+1.j], dtype=torchlike.complex64)")


def test_device_grad_suffixes():
    x = np.array([1.0, 2.0], f32)
    assert r(x, "float32", device="cuda:0") == "tensor([1., 2.], device='cuda:0')"
    assert r(np.array([1.0, 2.0]), "float64", device="cuda:0") == (
        "tensor([1., 2.], device='cuda:0', dtype=torchlike.float64)")
    assert r(x, "float32", requires_grad=True) == "tensor([1., 2.], requires_grad=True)"
    assert r(x, "float32", requires_grad=True, grad_fn_name="MulBackward0") == (
        "tensor([1., 2.], grad_fn=<MulBackward0>)")
    assert r(np.array([1.0, 2.0]), "float64", device="cuda:0",
             grad_fn_name="AddBackward0") == (
        "tensor([1., 2.], device='cuda:0', dtype=torchlike.float64,\n"
        "       grad_fn=<AddBackward0>)")  # too long for one 80-column line


def test_custom_prefix_indent():
    out = r(np.array([[1.0, 2.0], [3.0, 4.0]], f32), "float32", prefix="Parameter(")
    assert out == "Parameter([[1., 2.],\n           [3., 4.]])"


# ---- empty ----------------------------------------------------------------

@pytest.mark.parametrize("shape, dtype, expected", [
    ((0,), "float32", "tensor([])"),
    ((0, 3), "float32", "tensor([], size=(0, 3))"),
    ((2, 0), "float32", "tensor([], size=(2, 0))"),
    ((0,), "int64", "tensor([], dtype=torchlike.int64)"),
    ((0,), "bool", "tensor([], dtype=torchlike.bool)"),
    ((0,), "complex64", "tensor([], dtype=torchlike.complex64)"),
    ((0, 3), "float64", "tensor([], size=(0, 3), dtype=torchlike.float64)"),
])
def test_empty(shape, dtype, expected):
    np_dtype = {"bool": np.bool_, "int64": np.int64, "float64": f64,
                "complex64": np.complex64}.get(dtype, f32)
    assert r(np.zeros(shape, np_dtype), dtype) == expected


def test_empty_requires_grad():
    assert r(np.zeros((0,), f32), "float32", requires_grad=True) == (
        "tensor([], requires_grad=True)")


# ---- print options --------------------------------------------------------

def test_printoption_defaults_and_profiles():
    assert ts.get_printoptions() == {"precision": 4, "threshold": 1000, "edgeitems": 3,
                                     "linewidth": 80, "sci_mode": None}
    ts.set_printoptions(profile="short")
    assert ts.get_printoptions()["precision"] == 2
    assert ts.get_printoptions()["edgeitems"] == 2
    ts.set_printoptions(profile="full")
    assert ts.get_printoptions()["threshold"] == math.inf
    assert "..." not in r(np.arange(2000), "int64")


def test_precision_option():
    ts.set_printoptions(precision=2)
    assert r(np.array([1.2345, 2.0], f32), "float32") == "tensor([1.23, 2.00])"


def test_sci_mode_option():
    ts.set_printoptions(sci_mode=True)
    assert r(np.array([1.5, 2.0], f32), "float32") == "tensor([1.5000e+00, 2.0000e+00])"
    ts.set_printoptions(sci_mode=False)
    # PyTorch sizes columns before applying the override, so only check notation.
    out = r(np.array([1e-5, 1.0], f32), "float32")
    assert out.replace(" ", "") == "tensor([0.0000,1.0000])"
    ts.set_printoptions()  # sci_mode omitted -> automatic again
    assert ts.get_printoptions()["sci_mode"] is None


def test_edgeitems_and_linewidth_options():
    ts.set_printoptions(threshold=5, edgeitems=1)
    assert r(np.arange(10), "int64") == "tensor([0,  ..., 9])"
    ts.set_printoptions(profile="default", linewidth=20)
    assert r(np.arange(8), "int64") == "tensor([0, 1, 2, 3,\n        4, 5, 6, 7])"


def test_tensor_str_matches_repr():
    x = np.array([[1.5, 2.0], [3.0, 4.0]], f32)
    assert ts.tensor_str(x, "float32") == tensor_repr(x, "float32")
