"""torch.cuda's small device queries: peer access, CUDA error codes, stream
capture, the build's capabilities, and what NVML (the driver's management
library, through the ``pynvml`` module of nvidia-ml-py) reports about a
device: memory in use, utilisation, temperature, power, clock.

Without pynvml the NVML queries raise ModuleNotFoundError, and with it but
no driver RuntimeError, as PyTorch's do.  NVML numbers the devices of the
machine, CUDA those of ``CUDA_VISIBLE_DEVICES``: the device index is mapped
through that variable (ordinals or UUIDs) as PyTorch maps it."""
import os

from .. import _C
from ._lazy import _get_device_index, _lazy_init

__all__ = ["CudaError", "can_device_access_peer", "check_error", "device_memory_used",
           "memory_usage", "utilization", "temperature", "power_draw", "clock_rate",
           "is_current_stream_capturing", "caching_allocator_enable", "has_half", "has_magma"]

has_half = True    # float16 tensors and kernels on CUDA
has_magma = False  # torchlike's GPU linear algebra is cuSOLVER's, not MAGMA's


# The CUDA runtime's descriptions of the error codes a user meets
# (cudaGetErrorString); other codes read "unrecognized error code".
_CUDA_ERRORS = {
    0: "no error", 1: "invalid argument", 2: "out of memory", 3: "initialization error",
    4: "driver shutting down", 9: "invalid configuration argument",
    35: "CUDA driver version is insufficient for CUDA runtime version",
    46: "CUDA-capable device(s) is/are busy or unavailable",
    100: "no CUDA-capable device is detected", 101: "invalid device ordinal",
    200: "device kernel image is invalid", 201: "invalid device context",
    209: "no kernel image is available for execution on the device",
    400: "invalid resource handle", 500: "named symbol not found",
    600: "device not ready", 700: "an illegal memory access was encountered",
    701: "too many resources requested for launch", 702: "the launch timed out and was terminated",
    704: "peer access is already enabled", 705: "peer access has not been enabled",
    710: "device-side assert triggered", 719: "unspecified launch failure",
    900: "operation not permitted when stream is capturing", 999: "unknown error",
}


class CudaError(RuntimeError):
    """A CUDA runtime error code, with the runtime's description."""

    def __init__(self, code):
        msg = _CUDA_ERRORS.get(code, "unrecognized error code")
        super().__init__(f"{msg} ({code})")


def check_error(res):
    """Raise CudaError unless ``res`` is cudaSuccess (0)."""
    if res != 0:
        raise CudaError(res)


def can_device_access_peer(device, peer_device):
    """Whether ``device`` can read and write ``peer_device``'s memory directly."""
    _lazy_init()
    device = _get_device_index(device, optional=True)
    peer_device = _get_device_index(peer_device)
    n = _C._cuda_device_count()
    if device < 0 or device >= n:
        raise AssertionError("Invalid device id")
    if peer_device < 0 or peer_device >= n:
        raise AssertionError("Invalid peer device id")
    return _C._cuda_can_access_peer(device, peer_device)


def is_current_stream_capturing():
    """Whether the current stream is capturing a CUDA graph: never, as
    torchlike records no graphs (and no GPU is needed to say so)."""
    return False


def caching_allocator_enable(value=True):
    """PyTorch turns its caching allocator off and on here.  torchlike's CUDA
    allocator always caches (``empty_cache()`` hands the cached blocks back
    to the driver): enabling is a no-op; disabling raises where a GPU is
    used, and does nothing where none is (PyTorch's answer before CUDA is
    initialized)."""
    if not _C._cuda_compiled() or _C._cuda_device_count() == 0 or value:
        return None
    raise NotImplementedError("torchlike's CUDA caching allocator cannot be disabled; "
                              "torchlike.cuda.empty_cache() returns its cached blocks to the "
                              "driver")


# ---- NVML -------------------------------------------------------------------------------

def _pynvml():
    try:
        import pynvml
    except ImportError as e:
        raise ModuleNotFoundError("nvidia-ml-py does not seem to be installed or it can't be "
                                  "imported.") from e
    return pynvml


def _leading_int(text):
    """The integer ``text`` starts with (an optional sign, then digits), as
    strtoul reads it ("1gpu" is 1); -1 when it starts with none."""
    n = 1 if text[:1] in ("+", "-") else 0
    while n < len(text) and text[n].isdigit():
        n += 1
    return int(text[:n]) if n and text[:n] not in ("+", "-") else -1


def _visible_devices():
    """CUDA_VISIBLE_DEVICES as CUDA reads it: a list of ordinals, or of UUID
    prefixes ("GPU-..." / "MIG-..."); an entry CUDA rejects ends the list,
    and a repeated one makes it empty."""
    var = os.environ.get("CUDA_VISIBLE_DEVICES")
    if var is None:
        return list(range(64))
    out = []
    prefix = var[:4] if var.startswith(("GPU-", "MIG-")) else None
    for entry in var.split(","):
        if prefix is None:
            entry = _leading_int(entry.strip())
            if entry < 0:
                break
        elif not entry.startswith(prefix):
            break
        if entry in out:
            return []
        out.append(entry)
    return out


def _uuid_ordinals(prefixes, uuids):
    """The NVML ordinals of the devices whose UUIDs start with ``prefixes``;
    a prefix matching no device or several ends the list."""
    out = []
    for prefix in prefixes:
        hits = [i for i, u in enumerate(uuids) if u.startswith(prefix)]
        if len(hits) != 1:
            break
        if hits[0] in out:
            return []
        out.append(hits[0])
    return out


def _nvml_index(pynvml, device):
    """The NVML index of CUDA device ``device`` (the current one for None)."""
    index = _get_device_index(device, optional=True)
    visible = _visible_devices()
    if visible and isinstance(visible[0], str):
        handles = [pynvml.nvmlDeviceGetHandleByIndex(i) for i in range(pynvml.nvmlDeviceGetCount())]
        uuids = [pynvml.nvmlDeviceGetUUID(h) for h in handles]
        visible = _uuid_ordinals(visible, [u.decode() if isinstance(u, bytes) else u
                                           for u in uuids])
    if index < 0 or index >= len(visible):
        raise RuntimeError(f"device {index} is not visible (CUDA_VISIBLE_DEVICES={visible})")
    return visible[index]


def _handle(device):
    pynvml = _pynvml()
    try:
        pynvml.nvmlInit()
    except pynvml.NVMLError_DriverNotLoaded as e:
        raise RuntimeError("cuda driver can't be loaded, is cuda enabled?") from e
    return pynvml, pynvml.nvmlDeviceGetHandleByIndex(_nvml_index(pynvml, device))


def device_memory_used(device=None):
    """Bytes of the device's memory in use (by every process), as nvidia-smi."""
    pynvml, h = _handle(device)
    return pynvml.nvmlDeviceGetMemoryInfo(h).used


def memory_usage(device=None):
    """Percent of the last sample period during which device memory was read
    or written."""
    pynvml, h = _handle(device)
    return pynvml.nvmlDeviceGetUtilizationRates(h).memory


def utilization(device=None):
    """Percent of the last sample period during which a kernel ran."""
    pynvml, h = _handle(device)
    return pynvml.nvmlDeviceGetUtilizationRates(h).gpu


def temperature(device=None):
    """The GPU die's temperature in degrees Celsius."""
    pynvml, h = _handle(device)
    return pynvml.nvmlDeviceGetTemperature(h, 0)  # NVML_TEMPERATURE_GPU


def power_draw(device=None):
    """The board's power draw in milliwatts."""
    pynvml, h = _handle(device)
    return pynvml.nvmlDeviceGetPowerUsage(h)


def clock_rate(device=None):
    """The streaming multiprocessors' clock in MHz."""
    pynvml, h = _handle(device)
    return pynvml.nvmlDeviceGetClockInfo(h, 1)  # NVML_CLOCK_SM
