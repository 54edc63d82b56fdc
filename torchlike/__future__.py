"""torchlike.__future__, as ``torch.__future__``: switches for how
``nn.Module`` conversions (``module.to()``, ``.double()``, ``.cuda()`` ...)
put the converted values into the module.

By default a parameter keeps its object and takes the new values through
``.data``.  With ``set_overwrite_module_params_on_conversion(True)`` each
parameter is replaced by a new Parameter object; with
``set_swap_module_params_on_conversion(True)`` the object is kept and its
contents swapped with the converted tensor's (``torch.utils.swap_tensors``),
gradient included."""

_overwrite_module_params_on_conversion = False
_swap_module_params_on_conversion = False


def set_overwrite_module_params_on_conversion(value: bool) -> None:
    """Whether a converted module's parameters are new Parameter objects."""
    global _overwrite_module_params_on_conversion
    _overwrite_module_params_on_conversion = value


def get_overwrite_module_params_on_conversion() -> bool:
    """See set_overwrite_module_params_on_conversion (default False)."""
    return _overwrite_module_params_on_conversion


def set_swap_module_params_on_conversion(value: bool) -> None:
    """Whether a converted module's parameters swap contents with the converted
    tensors, keeping their identity (wins over overwrite)."""
    global _swap_module_params_on_conversion
    _swap_module_params_on_conversion = value


def get_swap_module_params_on_conversion() -> bool:
    """See set_swap_module_params_on_conversion (default False)."""
    return _swap_module_params_on_conversion
