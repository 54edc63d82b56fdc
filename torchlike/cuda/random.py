"""torchlike.cuda.random: seeding of the CUDA generators (torch.cuda.random).

No CUDA generator is built yet.  As in PyTorch, seeding is lazy: manual_seed,
manual_seed_all, seed and seed_all are accepted without a GPU and do nothing
there (so ordinary "seed everything" code runs on the CPU); reading or setting
one CUDA generator's state needs a GPU and raises RuntimeError without one,
while get_rng_state_all/set_rng_state_all cover every device there is (none).
When the GPU generator lands it uses the same Philox counter mapping as the
CPU one (docs/random.md)."""
from .. import _C

__all__ = ["manual_seed", "manual_seed_all", "seed", "seed_all", "initial_seed",
           "get_rng_state", "get_rng_state_all", "set_rng_state", "set_rng_state_all"]


def _check_seed(seed):
    # The same rule as the CPU generator: an int in [-2**63, 2**64).
    _C.Generator().manual_seed(seed)


def _no_cuda(name):
    raise RuntimeError(f"torchlike.cuda.{name}(): no CUDA device is available "
                       f"(torchlike.cuda.is_available() is False)")


def manual_seed(seed):
    """Seed the current CUDA device's generator (nothing to seed without a GPU)."""
    _check_seed(seed)


def manual_seed_all(seed):
    """Seed every CUDA device's generator (nothing to seed without a GPU)."""
    _check_seed(seed)


def seed():
    """Seed the current CUDA device's generator from the OS (no-op without a GPU)."""


def seed_all():
    """Seed every CUDA device's generator from the OS (no-op without a GPU)."""


def initial_seed():
    _no_cuda("initial_seed")


def get_rng_state(device="cuda"):
    _no_cuda("get_rng_state")


def get_rng_state_all():
    """The state of every CUDA device's generator: one per device, so an empty
    list without a GPU (as in PyTorch, not an error: checkpoint code saves it
    unconditionally)."""
    return [get_rng_state(i) for i in range(_C._cuda_device_count())]


def set_rng_state(new_state, device="cuda"):
    _no_cuda("set_rng_state")


def set_rng_state_all(new_states):
    """Set each CUDA device's generator from get_rng_state_all()'s list."""
    for i, state in enumerate(new_states):
        set_rng_state(state, i)
