"""torch.nn._reduction: the reductions of the losses by name and number
(none 0, mean 1, sum 2), and the size_average/reduce flags of before
PyTorch 0.4 as a reduction -- what loss classes written then import
(``from torch.nn import _reduction as _Reduction``)."""
import warnings

_ENUMS = {"none": 0, "mean": 1, "sum": 2}


def get_enum(reduction):
    """The number of a reduction name; 'elementwise_mean' is mean's old name."""
    if reduction == "elementwise_mean":
        warnings.warn("reduction='elementwise_mean' is deprecated. Please use reduction='mean' "
                      "instead.", stacklevel=2)
        return 1
    if reduction not in _ENUMS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return _ENUMS[reduction]


def legacy_get_string(size_average, reduce, emit_warning=True, stacklevel=2):
    """The reduction the old flags meant (None counts as True): no reduce is
    'none', reduce without size_average 'sum', else 'mean'."""
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    r = "none" if not reduce else "mean" if size_average else "sum"
    if emit_warning:
        warnings.warn("size_average and reduce args will be deprecated, please use "
                      f"reduction='{r}' instead.", stacklevel=stacklevel)
    return r


def legacy_get_enum(size_average, reduce, emit_warning=True):
    return get_enum(legacy_get_string(size_average, reduce, emit_warning, stacklevel=3))
