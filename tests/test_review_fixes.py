"""Regression tests for bugs found in review: the autograd-aware
collectives' device, and numpy.ma's comparisons and writes through them."""
import operator
import subprocess
import sys
import textwrap

import numpy
import pytest

import torchlike
import torchlike.numpy.ma as tma


def test_all_to_all_gradients_stay_on_the_inputs_device():
    """distributed.nn.functional.all_to_all(_single)'s backward made its
    receive buffers on the default device, so a device input's gradient
    came back on the CPU.  A 1-rank world on the emulated device, in a
    subprocess (enabling the fake device changes the process)."""
    code = textwrap.dedent("""
        import tempfile
        import torchlike as tl, torchlike.distributed as dist
        import torchlike.distributed.nn.functional as DF
        tl._C._fake_enable()
        tl._C._fake_emulate_device()
        dist.init_process_group("gloo", init_method="file://" + tempfile.mktemp(),
                                rank=0, world_size=1)
        x = tl.arange(4.0).to("fake").requires_grad_()
        y = DF.all_to_all_single(tl.empty(4, device="fake"), x)
        (y * y).sum().backward()
        assert x.grad.device == x.device, x.grad.device
        assert x.grad.cpu().tolist() == [0.0, 2.0, 4.0, 6.0]
        x.grad = None
        (out,) = DF.all_to_all([tl.empty(4, device="fake")], [x])
        (out * 3).sum().backward()
        assert x.grad.device == x.device, x.grad.device
        assert x.grad.cpu().tolist() == [3.0] * 4
        dist.destroy_process_group()
        print("ok")
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and "ok" in r.stdout, r.stdout + r.stderr


# ---- numpy.ma comparisons --------------------------------------------------------------
_COMPARISONS = [operator.lt, operator.le, operator.gt, operator.ge, operator.eq, operator.ne]


def _pair(data, mask):
    return (numpy.ma.masked_array(data, mask=mask),
            tma.masked_array(torchlike.tensor(data), mask=torchlike.tensor(mask)))


@pytest.mark.parametrize("op", _COMPARISONS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("other", [4.0, "array"])
def test_masked_comparisons_give_numpys_data_under_the_mask(op, other):
    """NumPy compares the data under the mask too (the ufuncs' copy of the
    first operand is not made for the operators), so ``x[x > t]`` leaves
    masked elements out."""
    data = numpy.array([[1.0, -2.0, 3.0], [5.0, 9.0, 4.0]]).T  # non-contiguous
    mask = numpy.array([[False, True, False], [False, False, True]]).T
    na, ta = _pair(data, mask)
    if other == "array":
        no, to = _pair(numpy.array([4.0, 4.0]), numpy.array([False, True]))
    else:
        no = to = other
    expected, got = op(na, no), op(ta, to)
    assert got.data.tolist() == expected.data.tolist()
    assert tma.getmaskarray(got).tolist() == numpy.ma.getmaskarray(expected).tolist()
    assert ta[op(ta, to)].data.tolist() == na[op(na, no)].data.tolist()


@pytest.mark.parametrize("op", _COMPARISONS, ids=lambda f: f.__name__)
def test_comparing_a_masked_element_leaves_the_masked_constant_alone(op):
    """A masked 0-d comparison is the ``masked`` singleton: the comparison
    must not write its data or fill value (it did: ``x[0] != 4`` made
    ``ma.masked.data`` 1)."""
    before = (tma.masked.data.tolist(), tma.masked._fill_value)
    x = tma.masked_array(torchlike.tensor([5.0, 6.0]), mask=torchlike.tensor([True, False]))
    assert op(x[0], 4.0) is tma.masked
    assert op(x[0], x[0]) is tma.masked
    assert (tma.masked.data.tolist(), tma.masked._fill_value) == before
    assert tma.masked.data.tolist() == numpy.ma.masked.data.tolist()


@pytest.mark.parametrize("op", _COMPARISONS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("value", ["number", "masked array"])
def test_writing_through_a_masked_condition_keeps_the_mask_as_numpy(op, value):
    """``x[x > t] = v``: NumPy writes the data at the condition's data and,
    for a value that is not a masked array, leaves the mask as it is (a
    masked element stays masked); a masked array value brings its mask."""
    data = numpy.array([[1.0, -2.0, 3.0], [5.0, 9.0, 4.0]]).T
    mask = numpy.array([[False, True, False], [False, False, True]]).T
    na, ta = _pair(data, mask)
    nv, tv = (0.0, 0.0) if value == "number" else \
        _pair(numpy.array([7.0]), numpy.array([True]))
    na[op(na, 4.0)] = nv
    ta[op(ta, 4.0)] = tv
    assert ta.data.tolist() == na.data.tolist()
    assert tma.getmaskarray(ta).tolist() == numpy.ma.getmaskarray(na).tolist()
