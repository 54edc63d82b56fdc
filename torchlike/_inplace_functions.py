"""PyTorch's torch-level spellings of in-place Tensor methods
(``torch.abs_(x)`` is ``x.abs_()``), and ``torch.fill``.

The list is the in-place functions of PyTorch's namespace that torchlike's
Tensor has as methods (found by comparing ``dir(torch)`` with
``dir(torchlike)``); each function is its method behind PyTorch's check of
the ``input`` argument, so arguments and errors past it are the method's."""
from . import _C

Tensor = _C.Tensor

__all__ = ["fill"]

INPLACE = """abs_ acos_ acosh_ addmv_ arccos_ arccosh_ arcsin_ arcsinh_ arctan_ arctanh_
    as_strided_ asin_ asinh_ atan_ atanh_ ceil_ clamp_ clamp_max_ clamp_min_ clip_
    conj_physical_ cos_ cosh_ deg2rad_ detach_ erf_ erfc_ exp2_ exp_ expm1_ fill_ fix_ floor_
    frac_ gcd_ i0_ index_put_ lcm_ ldexp_ log10_ log1p_ log2_ log_ logit_ nan_to_num_ neg_
    negative_ rad2deg_ reciprocal_ resize_as_ round_ rsqrt_ sigmoid_ sin_ sinc_ sinh_ sqrt_
    square_ tan_ tanh_ trunc_ xlogy_ zero_""".split()


def take_input(name, args, kwargs):
    """The ``input`` tensor of a torch-level function (first positional or
    keyword), with PyTorch's errors, and the remaining arguments."""
    if args:
        input, args = args[0], args[1:]
        where = "(position 1) "
    elif "input" in kwargs:
        kwargs = dict(kwargs)
        input = kwargs.pop("input")
        where = ""
    else:
        raise TypeError(f'{name}() missing 1 required positional arguments: "input"')
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}(): argument 'input' {where}must be Tensor, not "
                        f"{type(input).__name__}")
    return input, args, kwargs


def _function_of(name):
    def function(*args, **kwargs):
        input, args, kwargs = take_input(name, args, kwargs)
        return getattr(input, name)(*args, **kwargs)
    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"``{name}(input, ...)``: ``input.{name}(...)``, in place."
    return function


def fill(input, value):
    """``torch.fill(input, value)``: a new tensor like ``input`` (dtype, shape,
    device) holding ``value`` (a number or a 0-d tensor, which gets the gradient)."""
    input, _, _ = take_input("fill", (input,), {})
    return input.clone().fill_(value)


def _install(namespace):
    for name in INPLACE:
        if name not in namespace:
            namespace[name] = _function_of(name)
            __all__.append(name)


_install(globals())
