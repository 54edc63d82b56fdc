"""Global switches PyTorch code sets: determinism, float32 matmul precision,
warn-always, anomaly mode, inter-op threads, and the deprecated
set_default_tensor_type; plus is_storage.

What each switch changes here:
- determinism: nothing to change, the flags are kept for code that reads
  them: every CPU kernel here is deterministic, and no op consults them.
- float32 matmul precision: 'high' and 'medium' turn on
  ``backends.cuda.matmul.allow_tf32`` (which the cuBLAS products read) and
  'highest' turns it off; setting allow_tf32 sets the precision to
  'high'/'highest'.  PyTorch's CPU (oneDNN) matmul setting, which 'medium'
  sets to bf16, is tracked only to raise PyTorch's error when the legacy
  allow_tf32 switch and the precision disagree.
- warn-always: makes set_default_tensor_type's once-per-process warning
  repeat; anomaly mode: the flags of torchlike.autograd.anomaly_mode (src/grad/anomaly.c).
- inter-op threads: no inter-op pool exists; the number is kept, and may be
  set once, as in PyTorch."""
import importlib
import warnings

from . import _C

__all__ = ["use_deterministic_algorithms", "are_deterministic_algorithms_enabled",
           "is_deterministic_algorithms_warn_only_enabled", "set_deterministic_debug_mode",
           "get_deterministic_debug_mode", "set_float32_matmul_precision",
           "get_float32_matmul_precision", "set_warn_always", "is_warn_always_enabled",
           "set_anomaly_enabled", "is_anomaly_enabled", "is_anomaly_check_nan_enabled",
           "get_num_interop_threads", "set_num_interop_threads", "is_storage",
           "set_default_tensor_type"]

_state = {"deterministic": False, "warn_only": False, "warn_always": False, "interop": None,
          "precision": "highest", "cpu_matmul": "none", "warned_default_type": False}


def _bool_arg(func, name, value):
    if not isinstance(value, bool):
        raise TypeError(f"{func}(): argument '{name}' (position 1) must be bool, not "
                        f"{type(value).__name__}")
    return value


# ---- determinism ---------------------------------------------------------------------------

def use_deterministic_algorithms(mode, *, warn_only=False):
    """Ask for deterministic algorithms (``warn_only``: warn instead of raising)."""
    _state["deterministic"] = _bool_arg("_set_deterministic_algorithms", "mode", mode)
    _state["warn_only"] = bool(warn_only)


def are_deterministic_algorithms_enabled():
    """Whether use_deterministic_algorithms(True) is in force."""
    return _state["deterministic"]


def is_deterministic_algorithms_warn_only_enabled():
    """Whether use_deterministic_algorithms was given warn_only=True."""
    return _state["warn_only"]


_DEBUG_MODES = ("default", "warn", "error")


def set_deterministic_debug_mode(debug_mode):
    """0/'default': off; 1/'warn': deterministic, warn only; 2/'error': deterministic."""
    if isinstance(debug_mode, str):
        if debug_mode not in _DEBUG_MODES:
            raise RuntimeError(f"invalid value of debug_mode, expected one of `default`, `warn`, "
                               f"`error`, but got {debug_mode}")
        debug_mode = _DEBUG_MODES.index(debug_mode)
    elif not isinstance(debug_mode, int):
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode)}")
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got "
                           f"{debug_mode}")
    use_deterministic_algorithms(debug_mode != 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode():
    """The mode set_deterministic_debug_mode names: 0, 1 (warn only) or 2."""
    if not _state["deterministic"]:
        return 0
    return 1 if _state["warn_only"] else 2


# ---- float32 matmul precision ----------------------------------------------------------------

# precision -> (cuBLAS TF32, PyTorch's CPU matmul setting)
_PRECISIONS = {"highest": (False, "ieee"), "high": (True, "tf32"), "medium": (True, "bf16")}

_MIXED = ("PyTorch is checking the matmul precision without a specific backend name,Current "
          "status indicate that you have used mix of the legacy and new APIs to set the matmul "
          "precision. We suggest only using the new API for matmul precision. See also: "
          "https://pytorch.org/docs/main/notes/cuda.html#tensorfloat-32-tf32-on-ampere-and-"
          "later-devices")


def set_float32_matmul_precision(precision):
    """'highest' (full float32), 'high' or 'medium' (TF32 products on CUDA)."""
    if not isinstance(precision, str):
        raise RuntimeError(f"set_float32_matmul_precision expects a str, but got "
                           f"{type(precision).__name__}")
    if precision not in _PRECISIONS:
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
                      f"setFloat32MatmulPrecision call has no effect.", UserWarning, stacklevel=2)
        return
    tf32, _state["cpu_matmul"] = _PRECISIONS[precision]
    _state["precision"] = precision
    _C._cublas_allow_tf32(tf32)


def get_float32_matmul_precision():
    """The precision set last, by set_float32_matmul_precision or allow_tf32."""
    precision, cpu = _state["precision"], _state["cpu_matmul"]
    if ((_C._cublas_allow_tf32() and precision == "highest")
            or (cpu == "bf16" and precision != "medium")
            or (cpu == "tf32" and precision != "high")):
        raise RuntimeError(_MIXED)
    return precision


def allow_tf32_set(value):
    """backends.cuda.matmul.allow_tf32 = value: PyTorch's legacy switch also
    sets the precision ('high' or 'highest')."""
    _C._cublas_allow_tf32(bool(value))
    _state["precision"] = "high" if value else "highest"


# ---- warnings, anomaly mode, threads ---------------------------------------------------------

def set_warn_always(b):
    """Repeat warnings PyTorch gives once per process (kept for code that reads it)."""
    if not isinstance(b, bool):
        raise RuntimeError(f"setWarnOnlyOnce expects a bool, but got {type(b).__name__}")
    _state["warn_always"] = b


def is_warn_always_enabled():
    """Whether set_warn_always(True) is in force."""
    return _state["warn_always"]


def set_anomaly_enabled(enabled, check_nan=True):
    """Turn autograd's anomaly detection on or off (torchlike.autograd.anomaly_mode)."""
    _C._set_anomaly_enabled(_bool_arg("set_anomaly_enabled", "enabled", enabled),
                            bool(check_nan))


def is_anomaly_enabled():
    """Whether anomaly detection is on."""
    return _C._is_anomaly_enabled()


def is_anomaly_check_nan_enabled():
    """Whether anomaly detection checks gradients for NaN (True at start)."""
    return _C._is_anomaly_check_nan_enabled()


def get_num_interop_threads():
    """The inter-op thread count (the intra-op default until set)."""
    return _state["interop"] or _C.get_num_threads()


def set_num_interop_threads(num):
    """Set the inter-op thread count: once, as in PyTorch."""
    if not isinstance(num, int) or isinstance(num, bool):
        raise RuntimeError(f"set_num_interop_threads expects an int, but got "
                           f"{type(num).__name__}")
    if num <= 0:
        raise RuntimeError("set_num_interop_threads expects a positive integer")
    if _state["interop"] is not None:
        raise RuntimeError("Error: cannot set number of interop threads after parallel work has "
                           "started or set_num_interop_threads called")
    _state["interop"] = num


# ---- storages and the legacy default type ----------------------------------------------------

def is_storage(obj):
    """Whether obj is a storage (UntypedStorage or TypedStorage)."""
    from .serialization import TypedStorage, UntypedStorage
    return isinstance(obj, (UntypedStorage, TypedStorage))


def set_default_tensor_type(t):
    """Deprecated: set the default dtype (and device, for a cuda type) from a
    legacy tensor type or its name."""
    if _state["warn_always"] or not _state["warned_default_type"]:  # once, as PyTorch's
        _state["warned_default_type"] = True
        warnings.warn("torchlike.set_default_tensor_type() is deprecated as of PyTorch 2.1, "
                      "please use torchlike.set_default_dtype() and torchlike.set_default_device() "
                      "as alternatives.", UserWarning, stacklevel=2)
    from . import _legacy_types
    from ._device import get_default_device, set_default_device
    if isinstance(t, str):
        try:
            dtype, device = _legacy_types._parse(t)
        except ValueError:
            # PyTorch imports the dotted name: a missing module is its error
            importlib.import_module(t.rpartition(".")[0] or t)
            raise TypeError("invalid type object: only floating-point types are supported as "
                            "the default type") from None
    elif isinstance(t, _legacy_types.tensortype):
        dtype, device = t.dtype, t._device_type
    else:
        raise TypeError("invalid type object: only floating-point types are supported as the "
                        "default type")
    if not dtype.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    _C.set_default_dtype(dtype)
    if device != get_default_device().type:
        set_default_device(None if device == "cpu" else device)
