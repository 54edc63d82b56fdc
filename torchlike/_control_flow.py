"""torchlike.cond and torchlike.while_loop: PyTorch's structured control
flow, run eagerly.  PyTorch traces both into a graph with torch.compile, so
a branch on a device tensor stays on the device; torchlike has no compiler,
so a tensor predicate is read on the host (a sync on a GPU) and the chosen
function runs as plain Python, with gradients through it as usual."""
from ._C import Tensor

__all__ = ["cond", "while_loop"]


def _truth(pred, what):
    if isinstance(pred, Tensor):
        if pred.numel() != 1:
            raise RuntimeError(f"Expected {what} to be bool or single-element tensor, but got "
                               f"{pred}.")
        return bool(pred.item())
    if isinstance(pred, (bool, int, float)):
        return bool(pred)
    raise RuntimeError(f"Expected {what} to be bool or single-element tensor, but got {pred}.")


def cond(pred, true_fn, false_fn, operands=()):
    """true_fn(*operands) if pred else false_fn(*operands)."""
    chosen = true_fn if _truth(pred, "pred") else false_fn
    return chosen(*operands)


def while_loop(cond_fn, body_fn, carried_inputs):
    """Run body_fn on the carried values while cond_fn(*values) is true; the
    final values (what body_fn returned last: a tuple, or one tensor when it
    returns one; the inputs as a tuple when it never ran)."""
    if not isinstance(carried_inputs, (tuple, list)):
        raise RuntimeError(f"carried_inputs must be a tuple or list, got {type(carried_inputs)}")
    carried, out = tuple(carried_inputs), tuple(carried_inputs)
    while _truth(cond_fn(*carried), "cond_fn's output"):
        out = body_fn(*carried)
        carried = out if isinstance(out, tuple) else (out,)
        if len(carried) != len(carried_inputs):
            raise RuntimeError(f"body_fn should return as many values as carried_inputs "
                               f"({len(carried_inputs)}), but returned {len(carried)}")
    return out
