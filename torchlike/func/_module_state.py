"""stack_module_state: the parameters and buffers of same-shaped modules,
stacked along a new leading dimension, for vmap over an ensemble
(``vmap(lambda p, b, x: functional_call(base, (p, b), (x,)))``)."""
from .. import _C

__all__ = ["stack_module_state"]


def _stacked(tensors):
    """A new leaf: the tensors stacked, requiring grad if they all do (as
    PyTorch's: detached from the modules, so training it leaves them alone)."""
    leaf = _C.stack([t.detach() for t in tensors])
    if all(t.requires_grad for t in tensors):
        leaf.requires_grad_()
    return leaf


def stack_module_state(models):
    """(params, buffers): dicts from each dotted name to the models' tensors
    stacked along dimension 0."""
    models = list(models)
    if not models:
        raise RuntimeError(f"stack_module_state: Expected at least one model, got {len(models)}.")
    if not (all(m.training for m in models) or not any(m.training for m in models)):
        raise RuntimeError("stack_module_state: Expected all models to have the same "
                           "training/eval mode.")
    if any(type(m) is not type(models[0]) for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    params = {name: _stacked([dict(m.named_parameters())[name] for m in models])
              for name, _ in models[0].named_parameters()}
    buffers = {name: _stacked([dict(m.named_buffers())[name] for m in models])
               for name, _ in models[0].named_buffers()}
    return params, buffers
