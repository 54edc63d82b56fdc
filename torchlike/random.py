"""torchlike.random: seeding and state of the default generator (torch.random).

The generator is Philox4x32-10 (src/ndcore/random.c); its state is a 16-byte
uint8 tensor, seed then counter offset (see docs/random.md)."""
import contextlib

from . import _C

default_generator = _C.default_generator
manual_seed = _C.manual_seed
seed = _C.seed
initial_seed = _C.initial_seed
get_rng_state = _C.get_rng_state
set_rng_state = _C.set_rng_state

__all__ = ["manual_seed", "seed", "initial_seed", "get_rng_state", "set_rng_state",
           "fork_rng", "default_generator", "thread_safe_generator"]


def thread_safe_generator():
    """The generator of the DataLoader thread worker calling it, or None (the
    default generator then serves the caller), as PyTorch's.  DataLoader
    workers here are processes (as PyTorch 2.15's are: its WorkerInfo only
    names a "thread" method), so this is None everywhere today; a transform
    can pass it as ``generator=`` unconditionally."""
    from .utils.data import get_worker_info
    info = get_worker_info()
    if (info is not None and getattr(info, "worker_method", None) == "thread"
            and getattr(info, "rng", None) is not None):
        return info.rng.torch_generator
    return None


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices",
             device_type="cuda"):
    """Run the block with the default generators' states saved and restored after.

    Draws made inside the block do not change what is drawn after it.  The
    CPU's default generator is saved, and with ``device_type="cuda"`` those of
    ``devices`` (every CUDA device when None; none without a GPU)."""
    if not enabled:
        yield
        return
    from . import cuda
    if device_type == "cuda" and devices is None:
        devices = range(cuda.device_count())
    devices = list(devices or []) if device_type == "cuda" else []
    state = get_rng_state()
    cuda_states = [cuda.get_rng_state(d) for d in devices]
    try:
        yield
    finally:
        set_rng_state(state)
        for d, s in zip(devices, cuda_states):
            cuda.set_rng_state(s, d)
