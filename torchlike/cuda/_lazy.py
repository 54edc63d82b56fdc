"""The checks every torchlike.cuda function that needs a GPU runs first
(PyTorch's ``_lazy_init``), and device arguments as indices."""
from .. import _C
from .._device import device as _device_cls

_NO_DRIVER = ("Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU "
              "and installed a driver")


def _lazy_init():
    """Raise as PyTorch does when no GPU can be used: AssertionError for a
    build without CUDA, RuntimeError for a machine without a GPU."""
    if not _C._cuda_compiled():
        raise AssertionError("torchlike not compiled with CUDA enabled")
    if _C._cuda_device_count() == 0:
        raise RuntimeError(f"no CUDA device is available: {_NO_DRIVER}")


def _get_device_index(device, optional=False):
    """The CUDA device index of ``device`` (an int, "cuda:1", a torchlike.device,
    or None/"cuda" for the current device)."""
    if device is None:
        if not optional:
            raise ValueError("Expected a cuda device with a specified index or an integer, "
                             "but got: None")
        return _C._cuda_current_device()
    if isinstance(device, int) and not isinstance(device, bool):
        return device
    if isinstance(device, str):
        device = _device_cls(device)
    if isinstance(device, _device_cls):
        if device.type != "cuda":
            raise ValueError(f"Expected a cuda device, but got: {device}")
        if device.index is None:
            if not optional:
                raise ValueError(f"Expected a cuda device with a specified index or an integer, "
                                 f"but got: {device}")
            return _C._cuda_current_device()
        return device.index
    raise ValueError(f"Expected a cuda device, an int or None, but got: {device!r}")
