"""Record PyTorch's answers for the pieces of nn.parallel, cpu,
autograd.graph, utils.hooks, func, accelerator, random, optim and cuda that
tests/test_namespace_gaps.py checks, on a machine without a GPU: signatures,
results that need no GPU (scatter to the host, the CPU device module,
saved-tensor mutation, end-of-backward callbacks, module backward hooks,
optimizer swap-in) and what raises.

Run with an interpreter that has PyTorch:
    python scripts/golden_namespace_gaps.py
writes tests/golden/namespace_gaps.json: [call, outcome] pairs, the call a
Python expression over T (the library) and the helpers inputs() gives."""
import collections
import copy
import inspect
import io
import math
import pickle
import warnings

from golden_calls import describe_plain as describe, det, record

P = "T.nn.parallel."
SIGNATURES = [P + f for f in ("replicate", "scatter", "gather", "parallel_apply", "data_parallel",
                              "scatter_gather.scatter_kwargs")] + [
    "T.cpu." + f for f in ("current_stream", "stream", "set_device", "is_initialized",
                           "get_capabilities", "Stream", "StreamContext", "synchronize")] + [
    "T.autograd.graph.queue_callback", "T.autograd.graph.allow_mutation_on_saved_tensors",
    "T.utils.hooks.BackwardHook", "T.utils.hooks.unserializable_hook",
    "T.utils.hooks.warn_if_has_hooks", "T.func.debug_unwrap",
    "T.accelerator.get_device_capability", "T.random.thread_safe_generator",
    "T.optim.swap_in_optimizer_params_and_state"] + [
    "T.cuda." + f for f in ("can_device_access_peer", "check_error", "device_memory_used",
                            "memory_usage", "utilization", "temperature", "power_draw",
                            "clock_rate", "is_current_stream_capturing",
                            "caching_allocator_enable")]

SK = P + "scatter_gather.scatter_kwargs"
CALLS = [f"params({f})" for f in SIGNATURES] + [
    # nn.parallel: the host as -1 is the one device these run on without a GPU
    f"sorted({P}__all__)",
    f"struct({P}scatter(X, [-1, -1, -1, -1]))", f"struct({P}scatter(X, [-1] * 3, dim=1))",
    f"struct({P}scatter(X, [-1] * 7))",
    f"{P}scatter(X, [-1, -1])[0].data_ptr() == X.data_ptr()",
    f"struct({P}scatter((X, 3, 'a'), [-1, -1]))",
    f"struct({P}scatter({{'a': X, 'b': [X, 2]}}, [-1, -1]))",
    f"struct({P}scatter(Pt(X, 7), [-1, -1]))",
    f"struct({P}scatter([], [-1, -1]))", f"struct({P}scatter((), [-1, -1]))",
    f"struct({P}scatter(None, [-1, -1]))", f"struct({P}scatter(X, []))",
    f"{P}scatter(T.tensor(3.), [-1, -1])", f"{P}scatter(X, ['cpu'])",
    f"{P}scatter(X, [T.device('cpu')])",
    f"struct({SK}((X,), {{'k': X, 'n': 1}}, [-1, -1]))",
    f"struct({SK}((), {{'k': X}}, [-1, -1]))", f"struct({SK}((X,), None, [-1] * 4))",
    f"struct({SK}((X, X[:2]), {{'n': 1}}, [-1] * 4))",
    f"struct({SK}((X,), {{'k': X[:2]}}, [-1] * 4))",
    f"scatter_grad(T)",
    f"{P}gather([X, X], 'cpu')", f"{P}gather([X, X], -1)",
    f"{P}replicate(LIN(T), [])", f"{P}replicate(LIN(T), [-1])",
    f"{P}replicate(LIN(T), ['cpu'])", f"{P}replicate(LIN(T), [-1], detach=True)",
    f"{P}parallel_apply([LIN(T), LIN(T)], [X])",
    f"{P}parallel_apply([LIN(T)], [X], [{{}}, {{}}])",
    f"{P}parallel_apply([LIN(T)], [X], None, [0, 1])",
    f"{P}data_parallel(LIN(T), X)", f"{P}data_parallel(LIN(T), X, device_ids=[])",
    f"struct({P}DataParallel(LIN(T))(X))", f"{P}DataParallel(LIN(T)).device_ids",
    "replica_facts(T)",
    # cpu
    "sorted(T.cpu.__all__)", "T.cpu.is_initialized()", "T.cpu.set_device(0)",
    "T.cpu.set_device('cpu')", "T.cpu.device_count()", "T.cpu.current_device()",
    "T.cpu.current_stream() is T.cpu._default_cpu_stream", "cpu_stream_switch(T)",
    "T.cpu.StreamContext(None).__enter__()", "T.cpu.Event().query()",
    "[T.cpu.Event().record(), T.cpu.Event().synchronize(), T.cpu.Event().wait()]",
    "[T.cpu.Stream(priority=0).wait_stream(None), T.cpu.Stream().record_event(), "
    "T.cpu.Stream().wait_event(None)]",
    "type(T.cpu.get_capabilities()).__name__",
    "T.cpu.get_capabilities() is T.cpu.get_capabilities()",
    "T.cpu.get_capabilities()['architecture']", "cap_types(T)",
    "setitem(T.cpu.get_capabilities(), 'avx', 1)",
    # autograd.graph
    "mutation_grads(T)", "mutation_view_grads(T)", "mutation_function_grads(T)",
    "mutation_nested(T)", "mutation_outside(T)", "mutation_none(T)",
    "T.autograd.graph.queue_callback(lambda: None)",
    "T.autograd.Variable._execution_engine.queue_callback(lambda: None)",
    "callback_order(T)", "callback_after_error(T)",
    "creation_names(T)", "creation_nested(T)", "creation_inside_hook(T)",
    "creation_function_and_double_backward(T)", "creation_prehooks(T)",
    "params(T.autograd.graph.node_creation_hook)",
    # utils.hooks
    "sorted(T.utils.hooks.__all__)", "T.utils.hooks.unserializable_hook(F1) is F1",
    "T.utils.hooks.unserializable_hook(F1).__torch_unserializable__",
    "warned(T, lambda: T.utils.hooks.warn_if_has_hooks(hooked(T)))",
    "warned(T, lambda: T.utils.hooks.warn_if_has_hooks(hooked(T, marked=True)))",
    "warned(T, lambda: T.utils.hooks.warn_if_has_hooks(T.ones(2)))",
    "warned(T, lambda: T.save(hooked(T), io.BytesIO()))",
    "warned(T, lambda: pickle.dumps(hooked(T)))",
    "backward_hook_direct(T)", "backward_hook_no_input_grad(T)", "hook_registered_late(T)",
    "backward_hook_bad_count(T)", "module_hook_mixed(T)",
    # func, accelerator, random
    "unwrap_shapes(T)", "T.func.debug_unwrap(T.ones(2)).shape",
    "T.accelerator.get_device_capability()", "T.accelerator.get_device_capability('cpu')",
    "T.random.thread_safe_generator()", "'thread_safe_generator' in T.random.__all__",
    # optim
    "swap_in(T)", "swap_in_fresh(T)", "swap_in_bad(T, 'groups')", "swap_in_bad(T, 'extra')",
    "swap_in_bad(T, 'keys')", "swap_in_bad(T, 'count')", "swap_in_bad(T, 'tensor_keys')",
    "swap_in_bad(T, 'not_dict')",
    # cuda
    "T.cuda.check_error(0)", "T.cuda.check_error(1)", "T.cuda.check_error(2)",
    "T.cuda.check_error(100)", "isinstance(T.cuda.CudaError(1), RuntimeError)",
    "T.cuda.device_memory_used()", "T.cuda.memory_usage(0)", "T.cuda.utilization(0)",
    "T.cuda.temperature(0)", "T.cuda.power_draw(0)", "T.cuda.clock_rate(0)",
    "T.cuda.can_device_access_peer(0, 1)", "T.cuda.is_current_stream_capturing()",
    "T.cuda.caching_allocator_enable(False)", "T.cuda.caching_allocator_enable()",
    "T.cuda.has_half", "T.cuda.has_magma",
]


def params(f):
    """A callable's parameters as [name, kind, repr(default) or '-']."""
    return [[p.name, str(p.kind), "-" if p.default is p.empty else repr(p.default)]
            for p in inspect.signature(f).parameters.values()]


def struct(obj):
    """obj with each tensor as ['T', shape, device type, values rounded]."""
    if hasattr(obj, "shape") and hasattr(obj, "device"):
        return ["T", list(obj.shape), obj.device.type,
                [round(v, 6) for v in obj.detach().reshape(-1).tolist()]]
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return [type(obj).__name__, [struct(o) for o in obj]]
    if isinstance(obj, (list, tuple)):
        return [type(obj).__name__, [struct(o) for o in obj]]
    if isinstance(obj, dict):
        return ["dict", [[k, struct(v)] for k, v in obj.items()]]
    return obj


Pt = collections.namedtuple("Pt", "x n")


def LIN(T):  # noqa: N802 -- reads as the module it makes
    m = T.nn.Linear(2, 3)
    with T.no_grad():
        m.weight.copy_(det(T, 3, 2, s=0.7))
        m.bias.copy_(det(T, 3, s=0.4))
    return m


def scatter_grad(T):
    """Gradients flow back through scatter's chunks (to the host: -1)."""
    x = det(T, 5, 2).requires_grad_()
    parts = T.nn.parallel.scatter(x, [-1, -1])
    (parts[0].sum() * 2 + (parts[1] ** 2).sum()).backward()
    return struct(x.grad)


def replica_facts(T):
    m = LIN(T)
    r = m._replicate_for_data_parallel()
    return [r._is_replica, len(r._parameters), r is m, r._modules is m._modules,
            r._buffers is m._buffers, type(r).__name__]


def cpu_stream_switch(T):
    s = T.cpu.Stream()
    with T.cpu.stream(s) as r:
        inside = T.cpu.current_stream() is s
    return [r, inside, T.cpu.current_stream() is T.cpu._default_cpu_stream]


def cap_types(T):
    """Each capability's value type (the values are the machine's own)."""
    return sorted([k, type(v).__name__] for k, v in T.cpu.get_capabilities().items())


def setitem(mapping, key, value):
    mapping[key] = value


def mutation_grads(T):
    """b saved by mul and exp, then written in place three ways."""
    g = T.autograd.graph
    a = det(T, 3, dtype=T.float64).requires_grad_()
    with g.allow_mutation_on_saved_tensors():
        b = a.clone()
        out = (b * b).sum() + b.exp().sum()
        b.sin_()
        b[0] = 5
        b += 1
        out.backward()
    return [round(v, 10) for v in a.grad.tolist()] + [round(v, 10) for v in b.tolist()]


def mutation_view_grads(T):
    """A write through a view at offset 0, and out= into the saved tensor."""
    g = T.autograd.graph
    a = det(T, 2, 3, dtype=T.float64).requires_grad_()
    with g.allow_mutation_on_saved_tensors():
        b = a.clone()
        out = (b.tanh() * b).sum()
        b[0].mul_(3)
        with T.no_grad():
            T.add(b, 1, out=b)
        out.backward()
    return [round(v, 10) for v in a.grad.reshape(-1).tolist()]


class _Square:
    @staticmethod
    def make(T):
        class Square(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x

            @staticmethod
            def backward(ctx, go):
                (x,) = ctx.saved_tensors
                return 2 * x * go
        return Square


def mutation_function_grads(T):
    """A custom Function's save_for_backward, the input then zeroed."""
    g = T.autograd.graph
    Square = _Square.make(T)
    a = det(T, 4, dtype=T.float64).requires_grad_()
    with g.allow_mutation_on_saved_tensors():
        b = a.clone()
        y = Square.apply(b)
        b.zero_()
        y.sum().backward()
    return [round(v, 10) for v in a.grad.tolist()]


def mutation_nested(T):
    g = T.autograd.graph
    with g.allow_mutation_on_saved_tensors():
        with g.allow_mutation_on_saved_tensors():
            pass


def mutation_outside(T):
    g = T.autograd.graph
    a = det(T, 3).requires_grad_()
    with g.allow_mutation_on_saved_tensors():
        b = a.clone()
        out = (b * b).sum()
    out.backward()


def mutation_none(T):
    a = det(T, 3).requires_grad_()
    b = a.clone()
    out = (b * b).sum()
    b.sin_()
    out.backward()


def callback_order(T):
    log = []
    x = det(T, 3).requires_grad_()

    def later():
        log.append(["cb1", x.grad is not None])
        T.autograd.graph.queue_callback(lambda: log.append(["cb3"]))

    def hook(grad):
        log.append(["hook"])
        T.autograd.graph.queue_callback(later)
        T.autograd.Variable._execution_engine.queue_callback(lambda: log.append(["cb2"]))

    x.register_hook(hook)
    (x * 2).sum().backward()
    log.append(["after"])
    (x * 3).sum().backward()
    return log


def callback_after_error(T):
    log = []
    x = det(T, 3).requires_grad_()

    def hook(grad):
        T.autograd.graph.queue_callback(lambda: log.append("cb"))
        raise ValueError("hook fails")

    x.register_hook(hook)
    try:
        (x * 2).sum().backward()
    except ValueError:
        log.append("raised")
    return log


def _name(node):
    return node.name().replace("torch::autograd::", "")


def creation_names(T):
    """Every node made in the block, in order, AccumulateGrad included; none after."""
    a = det(T, 3).requires_grad_()
    log = []
    with T.autograd.graph.node_creation_hook(lambda n: log.append(_name(n))):
        b = a * 2
        c = (b.exp() + a).sum()
    c2 = c * 2
    return log + [len(log), c2.grad_fn.name()]


def creation_nested(T):
    a = det(T, 3).requires_grad_()
    keep = a * 1  # a's AccumulateGrad exists: not made again below
    log = []
    g = T.autograd.graph
    with g.node_creation_hook(lambda n: log.append(["outer", _name(n)])):
        # the node is complete: its edges lead to a's AccumulateGrad
        with g.node_creation_hook(lambda n: log.append(["inner", _name(n),
                                                        _name(n.next_functions[0][0])])):
            a * 3
        a * 4
    return log + [keep.grad_fn.name()]


def creation_inside_hook(T):
    a = det(T, 3).requires_grad_()
    with T.autograd.graph.node_creation_hook(lambda n: a * 5):
        a * 4


def creation_function_and_double_backward(T):
    class Sq(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * x

        @staticmethod
        def backward(ctx, g):
            return g

    a = det(T, 3).requires_grad_()
    keep = a * 1
    log = []
    with T.autograd.graph.node_creation_hook(lambda n: log.append(_name(n))):
        Sq.apply(a)
        gr, = T.autograd.grad((a * a).sum(), a, create_graph=True)
    # the create_graph backward's own nodes are made in the block too
    return log[:3] + [len(log) > 3, keep is not None]


def creation_prehooks(T):
    """A hook registers a pre-hook on each node: backward runs them in
    reverse order of creation."""
    a = det(T, 3).requires_grad_()
    keep = a * 1
    order = []

    def hook(node):
        name = _name(node)
        node.register_prehook(lambda grads: order.append(name))

    with T.autograd.graph.node_creation_hook(hook):
        out = (a.sin() * 3).sum()
    out.backward()
    return order + [keep is not None]


def F1(grad):  # noqa: N802 -- a fixed hook for the marker tests
    return grad


def hooked(T, marked=False):
    t = T.ones(2, requires_grad=True)

    def hook(grad):
        return grad

    t.register_hook(T.utils.hooks.unserializable_hook(hook) if marked else hook)
    return t


def warned(T, fn):
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter("always")
        fn()
    msgs = [str(w.message) for w in ws if "will not be serialized" in str(w.message)]
    return [len(msgs)] + [m.split(" on tensor ")[1] for m in msgs]


def _rounded(ts):
    return [None if t is None else [round(v, 8) for v in t.reshape(-1).tolist()] for t in ts]


def backward_hook_direct(T):
    """BackwardHook used by hand around a Linear: the hook sees grad_input
    for (x, 2.0) and grad_output, the pre-hook scales grad_output."""
    log = []
    m = LIN(T)

    def pre(mod, gout):
        log.append(["pre", _rounded(gout)])
        return (gout[0] * 2,)

    def hook(mod, gin, gout):
        log.append(["hook", _rounded(gin), _rounded(gout), mod is m])
        return (gin[0] * 10, None)

    x = det(T, 4, 2).requires_grad_()
    bw = T.utils.hooks.BackwardHook(m, [hook], [pre])
    args = bw.setup_input_hook((x, 2.0))
    out = bw.setup_output_hook(m(args[0]) * args[1])
    out.sum().backward()
    return log + [_rounded([x.grad]), [bw.n_inputs, bw.input_tensors_index, bw.n_outputs,
                                       bw.output_tensors_index]]


def backward_hook_no_input_grad(T):
    log = []
    m = LIN(T)
    m.register_full_backward_hook(lambda mod, gin, gout: log.append([list(gin),
                                                                    _rounded(gout)]))
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter("always")
        m(det(T, 2, 2)).sum().backward()
    return log + [sum("Full backward hook is firing" in str(w.message) for w in ws)]


def hook_registered_late(T):
    """Hooks registered between forward and backward do not run for that call."""
    calls = []
    m = LIN(T)
    m.register_full_backward_hook(lambda *a: calls.append("early"))
    out = m(det(T, 2, 2).requires_grad_())
    m.register_full_backward_hook(lambda *a: calls.append("late"))
    out.sum().backward()
    m(det(T, 2, 2).requires_grad_()).sum().backward()
    return calls


def module_hook_mixed(T):
    """A module of (tensor requiring grad, constant tensor, float) returning
    (used, unused, int): None for the unused output and the float, zeros
    for the constant tensor."""
    class M(T.nn.Module):
        def forward(self, x, y, z):
            return x * y, x * 2, 5

    m, log = M(), []
    m.register_full_backward_pre_hook(lambda mod, go: log.append(["pre", _rounded(go)]))
    m.register_full_backward_hook(lambda mod, gi, go: log.append(["hook", _rounded(gi),
                                                                  _rounded(go)]))
    x = det(T, 2).requires_grad_()
    a, b, c = m(x, T.full((2,), 3.0), 1.0)
    seen = [x.requires_grad, b.requires_grad, c]
    a.sum().backward()
    return log + [seen, _rounded([x.grad])]


def backward_hook_bad_count(T):
    m = LIN(T)
    m.register_full_backward_hook(lambda mod, gin, gout: (None, None))
    m(det(T, 2, 2).requires_grad_()).sum().backward()


def unwrap_shapes(T):
    seen = []

    def f(x):
        full = T.func.debug_unwrap(x)
        one = T.func.debug_unwrap(x, recurse=False)
        seen.append([list(full.shape), list(one.shape), list(x.shape),
                     T.func.debug_unwrap(full) is full])
        return x.sum()

    T.func.vmap(T.func.vmap(f))(det(T, 2, 3, 4))
    return seen[:1]


def _trained(T):
    m = LIN(T)
    opt = T.optim.Adam(m.parameters(), lr=0.1)
    m(det(T, 4, 2)).sum().backward()
    opt.step()
    return m, opt


def swap_in(T):
    m, opt = _trained(T)
    osd = copy.deepcopy(opt.state_dict())
    osd["param_groups"][0]["lr"] = 0.5
    params = {n: p.detach().clone().requires_grad_() for n, p in m.named_parameters()}
    for p in params.values():
        p.grad = T.ones_like(p)
    live = [p.detach().clone() for p in m.parameters()]
    live_list = opt.param_groups[0]["params"]
    with T.optim.swap_in_optimizer_params_and_state(opt, params, osd):
        inside = [opt.param_groups[0]["lr"], len(opt.state),
                  opt.param_groups[0]["params"][0] is params["weight"]]
        opt.step()
    return [inside, _rounded(list(params.values())),
            all(bool((p.detach() == q).all()) for p, q in zip(m.parameters(), live)),
            opt.param_groups[0]["params"] is live_list, opt.param_groups[0]["lr"],
            float(osd["state"][0]["step"]), float(opt.state_dict()["state"][0]["step"])]


def swap_in_fresh(T):
    m = LIN(T)
    opt = T.optim.Adam(m.parameters())
    with T.optim.swap_in_optimizer_params_and_state(opt, dict(m.named_parameters()),
                                                    opt.state_dict()):
        pass


def swap_in_bad(T, how):
    m, opt = _trained(T)
    osd = copy.deepcopy(opt.state_dict())
    if how == "groups":
        osd["param_groups"] = osd["param_groups"] * 2
    elif how == "extra":
        osd["state"][7] = {}
    elif how == "keys":
        osd["param_groups"][0]["zeta"] = 1
    elif how == "count":
        osd["param_groups"][0]["params"] = [0]
    elif how == "tensor_keys":
        osd["state"] = {p: {} for p in m.parameters()}
    elif how == "not_dict":
        osd = [osd]
    with T.optim.swap_in_optimizer_params_and_state(opt, dict(m.named_parameters()), osd):
        pass


# the sym_* helpers (eager answers) and the old build flags
SYM = ["T.sym_int(3.7)", "T.sym_int(-3.7)", "T.sym_int(5)", "T.sym_int(True)", "T.sym_int('3')",
       "T.sym_int(float('inf'))", "T.sym_int(T.tensor(2.5))", "T.sym_float(3)",
       "T.sym_float('2.5')", "T.sym_float(T.tensor(2))", "T.sym_max(2, 3.5)", "T.sym_max(2.0, 3)",
       "T.sym_max(4, 3)", "T.sym_max(True, 0)", "math.isnan(T.sym_max(float('nan'), 1))",
       "T.sym_max(T.tensor(2), 3)", "T.sym_max(2, 'a')", "T.sym_min(2, 3.5)", "T.sym_min(2.5, 3)",
       "T.sym_min(1, float('nan'))", "T.sym_not(True)", "T.sym_not(0)", "T.sym_not('')",
       "T.sym_not(T.tensor(True))", "T.sym_ite(True, 1, 2)", "T.sym_ite(False, 'a', 'b')",
       "T.sym_ite(0, 1, 2)", "T.sym_ite(True, 1, 2.0)", "T.sym_sum([1, 2, 3])",
       "T.sym_sum([1, 2.5])", "T.sym_sum([])", "T.sym_sum()", "T.sym_sum(5)", "T.sym_sum(1, 2)",
       "T.sym_sum((1, 2))", "T.sym_sum([1, 2], [3])", "T.sym_sum(x for x in [1, 2])",
       "T.sym_sum([True, True])", "T.sym_sqrt(4)", "T.sym_sqrt(2.0)", "T.sym_sqrt(-1)",
       "T.sym_fresh_size(3)", "T.sym_fresh_size(2.5)", "T.sym_constrain_range(3)",
       "T.sym_constrain_range(3, min=0, max=5)", "T.sym_constrain_range(3, min=4, max=5)",
       "T.sym_constrain_range(3, max=2)", "T.sym_constrain_range(size=3, min=0)",
       "T.sym_constrain_range(2.5, min=0, max=5)", "T.sym_constrain_range_for_size(3)",
       "T.sym_constrain_range_for_size(-1)", "T.sym_constrain_range_for_size(3, min=5)",
       "[T.has_lapack, T.has_mkl, T.has_openmp, T.has_spectral]",
       "T.compiled_with_cxx11_abi()", "T.init_num_threads()"]
CALLS += SYM


def inputs(T):
    env = {name: obj for name, obj in globals().items() if callable(obj) or name == "Pt"}
    env.update(T=T, X=det(T, 5, 2), io=io, pickle=pickle, math=math)
    return env


def main():
    record(CALLS, inputs, describe, "namespace_gaps", messages=True)


if __name__ == "__main__":
    main()
