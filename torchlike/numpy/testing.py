"""``np.testing``: NumPy's testing module whose array assertions accept
tensors on any device (their values are copied to the host and compared by
NumPy's own assertion, with its messages).  Everything else is NumPy's."""
import numpy.testing as _testing

from .. import _C

# the assertions whose arguments are arrays (assert_raises & co. take callables)
_ARRAY_ASSERTIONS = [
    "assert_", "assert_allclose", "assert_almost_equal", "assert_approx_equal",
    "assert_array_almost_equal", "assert_array_almost_equal_nulp", "assert_array_compare",
    "assert_array_equal", "assert_array_less", "assert_array_max_ulp", "assert_equal",
    "assert_string_equal"]


def _host(x):
    """Tensors (also inside lists, tuples and dicts) as ndarrays; bfloat16 as float32."""
    if isinstance(x, _C.Tensor):
        x = x.detach().cpu()
        return (x.to(_C.float32) if x.dtype == _C.bfloat16 else x).numpy()
    if isinstance(x, (list, tuple)) and not hasattr(x, "_fields"):
        return type(x)(_host(e) for e in x)
    if isinstance(x, dict):
        return {k: _host(v) for k, v in x.items()}
    return x


def _on_host(assertion):
    def check(*args, **kwargs):
        __tracebackhide__ = True  # pytest shows the caller's line
        return assertion(*[_host(a) for a in args], **{k: _host(v) for k, v in kwargs.items()})
    check.__name__ = check.__qualname__ = assertion.__name__
    check.__doc__ = assertion.__doc__
    return check


for _name in _ARRAY_ASSERTIONS:
    globals()[_name] = _on_host(getattr(_testing, _name))
del _name


def __getattr__(name):
    return getattr(_testing, name)


def __dir__():
    return sorted(set(dir(_testing)) | set(globals()))


