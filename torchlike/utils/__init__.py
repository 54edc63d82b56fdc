"""torchlike.utils: ``data`` (datasets, loaders), ``hooks``, ``dlpack``,
``safetensors``, ``benchmark`` (timing), and ``swap_tensors``."""
import copyreg
import weakref

__all__ = ["swap_tensors"]


def swap_tensors(t1, t2):
    """Swap the contents of two tensors in place, keeping each object's
    identity: afterwards ``t1`` has ``t2``'s data, dtype, shape, class,
    attributes, ``requires_grad`` and ``grad``, and ``t2`` has ``t1``'s (what
    ``Module.load_state_dict(assign=True)``-style code uses to replace a
    parameter that other objects hold a reference to).

    As in PyTorch it refuses tensors with weak references or different
    ``__slots__``.  torchlike swaps the data through ``.data`` (PyTorch swaps
    the whole C++ tensor), so a tensor that is part of an autograd graph
    (has a ``grad_fn``) cannot be swapped: that raises."""
    from .. import _C
    if weakref.getweakrefs(t1):
        raise RuntimeError("Cannot swap t1 because it has weakref associated with it")
    if weakref.getweakrefs(t2):
        raise RuntimeError("Cannot swap t2 because it has weakref associated with it")
    t1_slots = set(copyreg._slotnames(t1.__class__))
    t2_slots = set(copyreg._slotnames(t2.__class__))
    if t1_slots != t2_slots:
        raise RuntimeError("Cannot swap t1 and t2 if they have different slots")
    for t, name in ((t1, "t1"), (t2, "t2")):
        if not isinstance(t, _C.Tensor):
            raise TypeError(f"swap_tensors(): {name} must be a Tensor, not {type(t).__name__}")
        if t.grad_fn is not None:
            raise RuntimeError(f"swap_tensors(): {name} is the output of an autograd graph "
                               "(has a grad_fn); torchlike can only swap leaf tensors")

    def swap_attr(name):
        tmp = getattr(t1, name)
        setattr(t1, name, getattr(t2, name))
        setattr(t2, name, tmp)

    swap_attr("__class__")
    swap_attr("__dict__")
    for slot in t1_slots:
        if hasattr(t1, slot) and hasattr(t2, slot):
            swap_attr(slot)
        elif hasattr(t1, slot):
            setattr(t2, slot, getattr(t1, slot))
            delattr(t1, slot)
        elif hasattr(t2, slot):
            setattr(t1, slot, getattr(t2, slot))
            delattr(t2, slot)
    g1, g2 = t1.grad, t2.grad
    r1, r2 = t1.requires_grad, t2.requires_grad
    t1.grad = t2.grad = None
    d1, d2 = t1.data, t2.data
    t1.data, t2.data = d2, d1
    t1.requires_grad_(r2)
    t2.requires_grad_(r1)
    t1.grad, t2.grad = g2, g1


def __getattr__(name):
    # torchlike.utils.checkpoint (and _pytree) after a plain `import torchlike`, as in PyTorch;
    # imported on first use (it needs torchlike.autograd, imported after utils).  benchmark
    # too, though PyTorch wants `import torch.utils.benchmark` first: reaching it is harmless.
    # weak, as PyTorch imports it with torch.
    if name in ("checkpoint", "_pytree", "benchmark", "weak"):
        import importlib
        return importlib.import_module("." + name, __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
