"""torchlike.backends.opt_einsum, as ``torch.backends.opt_einsum`` where the
opt_einsum package is not installed: torchlike's einsum contracts its
operands left to right (as PyTorch does then), so the switches are kept for
code that sets them and change nothing."""
import contextlib

__all__ = ["is_available", "get_opt_einsum", "enabled", "strategy", "flags"]

enabled = False
strategy = None


def is_available():
    """False: einsum does not use opt_einsum's contraction paths."""
    return False


def get_opt_einsum():
    """None: there is no opt_einsum module to hand out."""
    return None


@contextlib.contextmanager
def flags(enabled=None, strategy=None):
    """Set the switches for a block and put them back after it; asking for
    path optimisation is a ValueError, as in PyTorch without opt_einsum."""
    if enabled:
        raise ValueError("opt_einsum is not available, so setting `enabled` to True will not "
                         "have einsum calculate an optimal path: torchlike's einsum contracts "
                         "from left to right.")
    if strategy is not None:
        raise ValueError(f"opt_einsum is not available, so setting `strategy` to {strategy} "
                         "will not be meaningful: torchlike's einsum contracts from left to "
                         "right.  Unset `strategy`.")
    global_names = globals()
    before = global_names["enabled"], global_names["strategy"]
    if enabled is not None:
        global_names["enabled"] = enabled
    if strategy is not None:
        global_names["strategy"] = strategy
    try:
        yield
    finally:
        global_names["enabled"], global_names["strategy"] = before
