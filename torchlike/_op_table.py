"""A table of implementations for a tensor subclass whose every op is its
own (the sparse and the quantized tensors): ops are named as
``overrides.resolve_name`` names them, without the ``torchlike.`` prefix
("add", "Tensor.add", "nn.functional.relu", "Tensor.shape.__get__"), and
``__torch_function__`` routes each call to its entry or raises the refusal
the subclass words (PyTorch's "Could not run ... backend" message)."""


def op_name(func):
    """The table's name of a torchlike function or method."""
    from .overrides import resolve_name
    full = resolve_name(func) or getattr(func, "__name__", str(func))
    return full[len("torchlike."):] if full.startswith("torchlike.") else full


def registrar(table):
    """A decorator ``@op("name", ...)`` putting a function in ``table`` under those names."""
    def op(*names):
        def deco(f):
            for n in names:
                table[n] = f
            return f
        return deco
    return op


def route(table, func, args, kwargs, refusal):
    """func(*args, **kwargs) by the table, or NotImplementedError(refusal(name, args, kwargs))."""
    name = op_name(func)
    impl = table.get(name)
    if impl is None:
        raise NotImplementedError(refusal(name, args, kwargs))
    return impl(*args, **kwargs)
