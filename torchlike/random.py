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
           "fork_rng", "default_generator"]


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices",
             device_type="cuda"):
    """Run the block with the default generator's state saved and restored after.

    Draws made inside the block do not change what is drawn after it.  CUDA
    generators are not built yet, so ``devices`` and ``device_type`` are
    accepted for compatibility and have nothing to save."""
    if not enabled:
        yield
        return
    state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(state)
