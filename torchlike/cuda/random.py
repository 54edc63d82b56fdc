"""torchlike.cuda.random: the CUDA devices' default generators (torch.cuda.random).

Each device has one Philox4x32-10 generator (``default_generators[i]``), the
same generator type as the CPU's, and draws on the GPU use the CPU's counter
mapping and arithmetic (src/gpu/random/tl_philox.h): a CUDA generator with
the CPU generator's state draws the same numbers.  Seeding is lazy as in
PyTorch: manual_seed, manual_seed_all, seed and seed_all (and
torchlike.manual_seed and torchlike.seed, which seed every device too) are
kept until CUDA's first use makes the generators, so seeding neither starts
the driver nor needs a GPU (without one there is nothing to seed); reading or setting one CUDA generator's state needs a GPU and raises
without one, while get_rng_state_all/set_rng_state_all cover every device
there is (none)."""
from .. import _C
from ._lazy import _get_device_index, _lazy_init

__all__ = ["manual_seed", "manual_seed_all", "seed", "seed_all", "initial_seed",
           "get_rng_state", "get_rng_state_all", "set_rng_state", "set_rng_state_all",
           "default_generators"]



def __getattr__(name):
    # default_generators is made on first use, as PyTorch's: counting the
    # devices starts the CUDA driver, which importing must not do (a process
    # forked after that cannot use CUDA)
    if name == "default_generators":
        return _C._cuda_default_generators()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _generator(device=None):
    _lazy_init()
    index = _get_device_index(device, optional=True)
    generators = _C._cuda_default_generators()
    if not 0 <= index < len(generators):
        raise RuntimeError(f"Invalid device index cuda:{index}: this process sees "
                           f"{len(generators)} CUDA devices")
    return generators[index]


# Seeding before CUDA's first use is kept and applied when the generators are
# made (PyTorch's queued calls), so that seeding does not start the driver.

def manual_seed(seed):
    """Seed the current CUDA device's generator (nothing to seed without a GPU)."""
    _C._cuda_manual_seed(seed, False)


def manual_seed_all(seed):
    """Seed every CUDA device's generator (nothing to seed without a GPU)."""
    _C._cuda_manual_seed(seed, True)


def seed():
    """Seed the current CUDA device's generator from the OS (no-op without a GPU)."""
    _C._cuda_manual_seed(_C.Generator().seed(), False)


def seed_all():
    """Seed every CUDA device's generator with one seed from the OS (no-op without a GPU)."""
    _C._cuda_manual_seed(_C.Generator().seed(), True)


def initial_seed():
    """The seed the current CUDA device's generator was last seeded with."""
    return _generator().initial_seed()


def get_rng_state(device="cuda"):
    """A device's generator state: 16 uint8 bytes, seed then counter offset."""
    return _generator(device).get_state()


def get_rng_state_all():
    """The state of every CUDA device's generator: one per device, so an empty
    list without a GPU (as in PyTorch, not an error: checkpoint code saves it
    unconditionally)."""
    return [g.get_state() for g in _C._cuda_default_generators()]


def set_rng_state(new_state, device="cuda"):
    """Restore a device's generator from get_rng_state()."""
    _generator(device).set_state(new_state)


def set_rng_state_all(new_states):
    """Set each CUDA device's generator from get_rng_state_all()'s list."""
    for i, state in enumerate(new_states):
        set_rng_state(state, i)
