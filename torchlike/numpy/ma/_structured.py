"""The names of ``numpy.ma`` that are about NumPy's structured (record) dtypes
and its own test suite, which torchlike has no analogue of: a tensor's dtype
is one number type, never a record of fields, and there is no object dtype.

What is kept: ``make_mask_descr`` of a number dtype (bool, as NumPy's),
``fromflex`` of NumPy's flexible ``(_data, _mask)`` record array (a masked
array of its two fields) and ``masked_print_option`` (NumPy's own object:
our ``repr`` is NumPy's printing, so it applies).  What raises, saying why:
``flatten_structured_array``, ``mvoid``, a structured ``make_mask_descr``
and ``test``."""
import numpy

from ... import _C
from ..._array_function import tl_dtype
from ._core import MaskedArray, MaskType

masked_print_option = numpy.ma.masked_print_option

_NO_RECORDS = "torchlike tensors have no structured (record) dtypes"


def make_mask_descr(ndtype):
    """The dtype of a mask for ``ndtype``: bool (a structured NumPy dtype,
    whose mask would be a record of bools, raises TypeError)."""
    if isinstance(ndtype, numpy.dtype) and ndtype.names is not None:
        raise TypeError(f"make_mask_descr: {_NO_RECORDS}; a mask is one bool per element")
    if not isinstance(ndtype, _C.dtype):
        tl_dtype(ndtype)  # NumPy's TypeError for what is no dtype
    return MaskType


def flatten_structured_array(a):
    """NumPy's flattens the fields of a structured array; a tensor has none."""
    raise TypeError(f"flatten_structured_array: {_NO_RECORDS}, so there are no fields "
                    "to flatten")


def fromflex(fxarray):
    """A masked array of NumPy's flexible record array (``MaskedArray.toflex``:
    fields ``_data`` and ``_mask``), its data on the default device."""
    names = getattr(getattr(fxarray, "dtype", None), "names", None)
    if not names or "_data" not in names or "_mask" not in names:
        raise TypeError("fromflex expects NumPy's record array with the fields '_data' "
                        "and '_mask' (what MaskedArray.toflex gives)")
    data, mask = numpy.asarray(fxarray["_data"]), numpy.asarray(fxarray["_mask"])
    if data.dtype.names is not None:
        raise TypeError(f"fromflex: the '_data' field is itself structured; {_NO_RECORDS}")
    return MaskedArray(numpy.ma.MaskedArray(data, mask=mask))


def toflex(self):
    """NumPy's flexible record array of the data and mask (fields ``_data``
    and ``_mask``): a host copy, as ``to_numpy``."""
    return self.to_numpy().toflex()


class mvoid(MaskedArray):
    """NumPy's masked element of a structured array; torchlike has none."""
    __slots__ = ()

    def __new__(cls, *args, **kwargs):
        raise TypeError(f"mvoid: {_NO_RECORDS}, so there is no masked record element")


def test(*args, **kwargs):
    """NumPy's ``numpy.ma.test`` runs NumPy's own tests of ``numpy.ma`` on
    ndarrays; torchlike's masked arrays are tested by its test suite."""
    raise NotImplementedError("torchlike.numpy.ma has no bundled test runner: its "
                              "masked arrays are checked against numpy.ma by the project's "
                              "test suite (tests/test_numpy_ma*.py)")


MaskedArray.toflex = toflex
MaskedArray.torecords = toflex
