"""Record PyTorch's answers for torch.functional, torch.__future__'s module
conversion switches, torch.xpu and torch.mps on a machine with neither
device, torch.utils.weak and torch.backends.opt_einsum without the
opt_einsum package, for tests/test_module_gaps.py.

Run with an interpreter that has PyTorch (and no opt_einsum):
    python scripts/golden_module_gaps.py
writes tests/golden/module_gaps.json: [call, outcome] pairs, the call a
Python expression over T (the library) and the helpers below."""
import gc

from golden_calls import describe_plain as describe, record

XPU = ["is_available()", "device_count()", "manual_seed(0)", "manual_seed_all(0)", "seed()",
       "seed_all()", "empty_cache()", "synchronize()", "current_device()", "is_initialized()",
       "get_device_name()", "memory_allocated()", "memory_reserved()",
       "max_memory_allocated()", "max_memory_reserved()", "is_bf16_supported()",
       "is_tf32_supported()", "get_rng_state()", "set_rng_state(T.zeros(1))", "init()",
       "Stream()", "Event()", "device(0).idx", "set_device(0)", "get_device_properties(0)",
       "get_device_capability()", "initial_seed()"]
MPS = ["is_available()", "device_count()", "manual_seed(0)", "seed()", "empty_cache()",
       "synchronize()", "get_rng_state()", "set_rng_state(T.zeros(1))",
       "current_allocated_memory()", "driver_allocated_memory()", "recommended_max_memory()",
       "set_per_process_memory_fraction(0.5)", "Stream()"]
FUNCTIONAL = ["atleast_1d", "atleast_2d", "atleast_3d", "broadcast_shapes", "broadcast_tensors",
              "cartesian_prod", "block_diag", "cdist", "chain_matmul", "einsum", "istft", "lu",
              "norm", "meshgrid", "pca_lowrank", "split", "stft", "svd_lowrank", "tensordot",
              "unique", "unique_consecutive", "unravel_index"]
CALLS = (["T.xpu." + c for c in XPU] + ["T.mps." + c for c in MPS] + [
    "sorted(T.functional.__all__)",
    "[getattr(T.functional, f) is getattr(T, f) for f in T.functional.__all__]",
    "T.functional.einsum('ij,jk->ik', T.ones(2, 3), T.ones(3, 2)).tolist()",
    # the conversion switches: identity, dtypes and gradients after .double()
    "converted(T, 'default')", "converted(T, 'overwrite')", "converted(T, 'swap')",
    "converted(T, 'both')", "switch_defaults(T)",
    # utils.weak
    "weak_dict(T)", "weak_refs(T)", "T.utils.weak.WeakTensorKeyDictionary is "
    "T.utils.weak.WeakIdKeyDictionary", "T.utils.weak.TensorWeakRef(3)",
    # opt_einsum without the package
    "T.backends.opt_einsum.is_available()", "T.backends.opt_einsum.get_opt_einsum()",
    "[T.backends.opt_einsum.enabled, T.backends.opt_einsum.strategy]", "opt_flags(T)",
    "T.backends.opt_einsum.flags(enabled=True).__enter__()",
    "T.backends.opt_einsum.flags(strategy='greedy').__enter__()",
    "T.einsum('ij,jk,kl->il', T.ones(2, 3), T.ones(3, 4), T.ones(4, 2)).tolist()",
    # openmp and mkl: whether they are used depends on the build (neither is
    # here), so only the answers' form is PyTorch's
    "type(T.backends.openmp.is_available())", "type(T.backends.mkl.is_available())",
    "[T.backends.mkl.VERBOSE_OFF, T.backends.mkl.VERBOSE_ON]",
    "[type(T.backends.mkl.verbose(1)).__name__, T.backends.mkl.verbose(1).__exit__(None, "
    "None, None)]",
])


def converted(T, mode):
    """A Linear with a gradient and a buffer, converted to float64 under one
    setting of the torch.__future__ switches: what kept its identity, and
    the dtypes after."""
    import importlib
    future = importlib.import_module(T.__name__ + ".__future__")
    future.set_overwrite_module_params_on_conversion(mode in ("overwrite", "both"))
    future.set_swap_module_params_on_conversion(mode in ("swap", "both"))
    try:
        m = T.nn.Linear(2, 2)
        m.register_buffer("b", T.ones(2))
        m.weight.grad = T.ones(2, 2)
        w, g, b = m.weight, m.weight.grad, m.b
        m.double()
        facts = [m.weight is w, m.weight.grad is g, m.b is b, _name(m.weight.dtype),
                 _name(w.dtype), _name(g.dtype), _name(m.weight.grad.dtype),
                 type(m.weight).__name__, m.weight.requires_grad]
        m.weight.requires_grad_(False)
        m.float()
        return facts + [m.weight.requires_grad, _name(m.weight.grad.dtype)]
    finally:
        future.set_overwrite_module_params_on_conversion(False)
        future.set_swap_module_params_on_conversion(False)


def _name(dtype):
    return str(dtype).split(".")[-1]


def switch_defaults(T):
    import importlib
    future = importlib.import_module(T.__name__ + ".__future__")
    return [future.get_overwrite_module_params_on_conversion(),
            future.get_swap_module_params_on_conversion()]


def weak_dict(T):
    w = T.utils.weak
    d = w.WeakIdKeyDictionary()
    a, b = T.ones(1), T.ones(1)
    d[a], d[b] = 1, 2
    out = [len(d), d[a], a in d, T.ones(1) in d, 3 in d]
    del a
    gc.collect()
    out += [len(d), list(d.values()), d == w.WeakIdKeyDictionary({b: 2}), d == {b: 2}]
    c = d.copy()
    out += [type(c).__name__, len(c), c[b], d.get(T.ones(1), "none"), d.setdefault(b, 5),
            d.pop(b), len(d), len(c)]
    try:
        d[T.ones(1)]
    except KeyError:
        out.append("KeyError")
    return out


def weak_refs(T):
    w = T.utils.weak
    t = T.ones(2)
    r = w.TensorWeakRef(t)
    x, y = w.WeakIdRef(t), w.WeakIdRef(t)
    out = [r() is t, x == y, hash(x) == hash(y), x() is t, x == w.WeakIdRef(T.ones(2))]
    del t
    gc.collect()
    return out + [r() is None, x() is None, x == y, x == x]


def opt_flags(T):
    oe = T.backends.opt_einsum
    with oe.flags(enabled=False):
        inside = [oe.enabled, oe.strategy]
    return inside + [oe.enabled, oe.strategy]


def inputs(T):
    return {"converted": converted, "switch_defaults": switch_defaults, "weak_dict": weak_dict,
            "weak_refs": weak_refs, "opt_flags": opt_flags}


def main():
    import torch.utils.weak  # noqa: F401 - T.utils.weak below
    import torch.__future__  # noqa: F401
    record(CALLS, lambda T: {"T": T, **inputs(T)}, describe, "module_gaps", messages=True)


if __name__ == "__main__":
    main()
