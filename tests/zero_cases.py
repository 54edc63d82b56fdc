"""Cases run by 2 ranks under PyTorch (scripts/golden_zero.py records
tests/golden/zero.json) and under torchlike (tests/test_distributed_zero.py
compares): ZeroRedundancyOptimizer, the Join context manager with DDP and
ZeRO on uneven inputs, the autograd-aware collectives of
``distributed.nn.functional`` and the smaller c10d functions.  ``lib`` is
torch or torchlike; every value is built from exact arithmetic so that both
libraries start from the same bits."""
import copy
import importlib

from distributed_cases import _run  # an outcome: ["OK", value] or [error type, message]


def _mod(lib, name):
    return importlib.import_module(f"{lib.__name__}.{name}")


def vals(lib, n, k=3, off=0):
    """n float64 values in [-0.5, 0.5], the same in every library."""
    return ((lib.arange(n, dtype=lib.float64) * k + off) % 11 - 5) / 10


def model(lib, bn=False):
    """Linear(3, 5) - Tanh - Linear(5, 4) [- BatchNorm1d(4)] - Tanh - Linear(4, 2),
    float64, weights from ``vals``."""
    nn = lib.nn
    layers = [nn.Linear(3, 5), nn.Tanh(), nn.Linear(5, 4)]
    if bn:
        layers.append(nn.BatchNorm1d(4))
    layers += [nn.Tanh(), nn.Linear(4, 2)]
    m = nn.Sequential(*layers).double()
    with lib.no_grad():
        for i, p in enumerate(m.parameters()):
            p.copy_(vals(lib, p.numel(), k=i + 2, off=i).reshape(p.shape))
    return m


def batch(lib, rank, step, rows=4):
    x = vals(lib, rows * 3, k=5, off=7 * step + 13 * rank).reshape(rows, 3)
    y = vals(lib, rows * 2, k=7, off=3 * step + 5 * rank).reshape(rows, 2)
    return x, y


def params_of(m):
    return [p.detach().reshape(-1).tolist() for p in m.parameters()]


def _state_tree(lib, sd):
    """An optimizer state dict as JSON: tensors as lists."""
    def conv(v):
        if isinstance(v, lib.Tensor):
            return v.tolist()
        if isinstance(v, dict):
            return {str(k): conv(x) for k, x in v.items()}
        if isinstance(v, (list, tuple)):
            return [conv(x) for x in v]
        return v
    return conv(sd)


# ---- ZeroRedundancyOptimizer -------------------------------------------------------------
def zero_cases(lib, rank, ws):
    dist = lib.distributed
    ZeRO = _mod(lib, "distributed.optim").ZeroRedundancyOptimizer
    DDP = lib.nn.parallel.DistributedDataParallel
    out = {}

    # the partition: greedy over sizes sorted large to small, per group
    sizes = [6, 20, 15, 8, 5, 4, 2, 20, 1]
    ps = [lib.zeros(n, dtype=lib.float64, requires_grad=True) for n in sizes]
    index = {id(p): i for i, p in enumerate(ps)}
    z = ZeRO(ps[:6], lib.optim.SGD, lr=0.1)

    def partition():
        got = []
        for r in range(ws):
            got.append([[index[id(p)] for p in g["params"]]
                        for g in z._partition_parameters()[r]])
        return {"ranks": got, "local_groups": len(z.optim.param_groups),
                "local_sizes": [len(g["params"]) for g in z.optim.param_groups]}
    out["partition"] = partition()
    z.add_param_group({"params": ps[6:], "lr": 0.5})
    out["partition_added"] = partition()
    out["partition_added_lr"] = [g["lr"] for g in z.param_groups]
    z2 = ZeRO([{"params": ps[:4]}, {"params": ps[4:], "momentum": 0.5}], lib.optim.SGD, lr=0.1)
    index2 = index
    out["partition_groups"] = [[[index2[id(p)] for p in g["params"]]
                                for g in z2._partition_parameters()[r]] for r in range(ws)]
    out["errors"] = {
        "empty": _run(lambda: ZeRO([], lib.optim.SGD, lr=0.1)),
        "tensor": _run(lambda: ZeRO(ps[0], lib.optim.SGD, lr=0.1)),
        "mixed": _run(lambda: ZeRO([ps[0], {"params": [ps[1]]}], lib.optim.SGD, lr=0.1)),
        "dtypes": _run(lambda: ZeRO([ps[0], lib.zeros(2, requires_grad=True)],
                                    lib.optim.SGD, lr=0.1)),
        "no_consolidate": _run(lambda: z.state_dict()),
    }

    # training: DDP + ZeRO against the recorded run, then the full state dict
    for name, cls, kw, bucket in (("sgd", lib.optim.SGD, {"lr": 0.1, "momentum": 0.9}, False),
                                  ("adam", lib.optim.Adam, {"lr": 0.05}, False),
                                  ("adam_bucket", lib.optim.Adam, {"lr": 0.05}, True)):
        m = model(lib)
        ddp = DDP(m)
        opt = ZeRO(ddp.parameters(), cls, parameters_as_bucket_view=bucket, **kw)
        losses = []
        for step in range(3):
            x, y = batch(lib, rank, step)
            opt.zero_grad()
            loss = ((ddp(x) - y) ** 2).mean()
            loss.backward()
            opt.step()
            losses.append(loss.item())
        rec = {"params": params_of(m), "losses": losses,
               "local_state": sorted(len(opt.optim.state[p]) for p in opt.optim.state)}
        opt.consolidate_state_dict(to=1)
        if rank == 1:
            sd = opt.state_dict()
            rec["state_dict"] = _state_tree(lib, sd)
        else:
            rec["state_dict"] = _run(lambda: opt.state_dict())
        # load the full state into a fresh optimizer everywhere; one more step
        # must equal a fourth step of the original
        box = [sd if rank == 1 else None]
        dist.broadcast_object_list(box, src=1)
        # a copy: PyTorch's state dict (and so a load from it) aliases the live
        # state tensors on the rank that consolidated
        box[0] = copy.deepcopy(box[0])
        m2 = model(lib)
        with lib.no_grad():
            for p, q in zip(m2.parameters(), m.parameters()):
                p.copy_(q)
        ddp2 = DDP(m2)
        opt2 = ZeRO(ddp2.parameters(), cls, parameters_as_bucket_view=bucket, **kw)
        opt2.load_state_dict(box[0])
        for d, o in ((ddp, opt), (ddp2, opt2)):
            x, y = batch(lib, rank, 3)
            o.zero_grad()
            ((d(x) - y) ** 2).mean().backward()
            o.step()
        rec["after_load"] = params_of(m2)
        rec["continued"] = params_of(m)
        out[name] = rec
    return out


# ---- Join ---------------------------------------------------------------------------------
def _uneven_loop(lib, ddp, opt, rank, nbatches):
    done = 0
    for step in range(nbatches):
        x, y = batch(lib, rank, step)
        opt.zero_grad()
        ((ddp(x) - y) ** 2).mean().backward()
        opt.step()
        done += 1
    return done


def join_cases(lib, rank, ws):
    Join = _mod(lib, "distributed.algorithms.join").Join
    ZeRO = _mod(lib, "distributed.optim").ZeroRedundancyOptimizer
    DDP = lib.nn.parallel.DistributedDataParallel
    out = {}
    nb = [2, 4][rank]
    for divide in (True, False):
        m = model(lib, bn=True)
        ddp = DDP(m)
        opt = lib.optim.SGD(ddp.parameters(), lr=0.1)
        with ddp.join(divide_by_initial_world_size=divide):
            _uneven_loop(lib, ddp, opt, rank, nb)
        out[f"ddp_divide_{divide}"] = {
            "params": params_of(m),
            "buffers": [b.reshape(-1).tolist() for b in m.buffers()]}
    # a communication hook: the joined rank runs it on zeros
    hooks = _mod(lib, "distributed.algorithms.ddp_comm_hooks.default_hooks")
    m = model(lib)
    ddp = DDP(m, bucket_cap_mb=0.0001)
    ddp.register_comm_hook(None, hooks.allreduce_hook)
    opt = lib.optim.SGD(ddp.parameters(), lr=0.1)
    with ddp.join(divide_by_initial_world_size=False):
        _uneven_loop(lib, ddp, opt, rank, nb)
    out["ddp_comm_hook"] = params_of(m)
    # find_unused_parameters and a Join over the module only
    m = model(lib)
    ddp = DDP(m, find_unused_parameters=True)
    opt = lib.optim.SGD(ddp.parameters(), lr=0.1)
    with Join([ddp]):
        _uneven_loop(lib, ddp, opt, rank, [1, 3][rank])
    out["ddp_unused"] = params_of(m)
    # DDP + ZeRO: the joined rank keeps stepping its shard with the gradients it has
    for after in (False, True):
        m = model(lib)
        ddp = DDP(m)
        opt = ZeRO(ddp.parameters(), lib.optim.SGD, lr=0.1, momentum=0.9)
        with Join([ddp, opt]):
            for step in range([2, 3][rank]):
                x, y = batch(lib, rank, step)
                opt.zero_grad()
                ((ddp(x) - y) ** 2).mean().backward()
                opt.step()
                if after:
                    opt.zero_grad()  # grads None: the joined rank's shard holds still
        out[f"zero_join_{after}"] = params_of(m)
    # throw_on_early_termination: every rank raises when the first runs out
    m = model(lib)
    ddp = DDP(m)
    opt = lib.optim.SGD(ddp.parameters(), lr=0.1)
    done = [0]

    def throwing():
        with ddp.join(throw_on_early_termination=True):
            for step in range(nb):
                x, y = batch(lib, rank, step)
                opt.zero_grad()
                ((ddp(x) - y) ** 2).mean().backward()
                opt.step()
                done[0] += 1
    out["throw"] = [_run(throwing), done[0]]
    out["throw_params"] = params_of(m)
    out["no_joinables"] = _run(lambda: Join([]))
    # a Joinable of one's own: one all-reduce per iteration, shadowed by zeros
    JoinHook = _mod(lib, "distributed.algorithms.join").JoinHook
    Joinable = _mod(lib, "distributed.algorithms.join").Joinable

    class Counter(Joinable):
        def __init__(self):
            super().__init__()
            self.log = []

        def step(self):
            Join.notify_join_context(self)
            t = lib.ones(1)
            lib.distributed.all_reduce(t)
            self.log.append(["step", t.item()])

        def join_hook(self, **kwargs):
            counter = self

            class Hook(JoinHook):
                def main_hook(self):
                    t = lib.zeros(1)
                    lib.distributed.all_reduce(t)
                    counter.log.append(["shadow", t.item(), kwargs.get("tag")])

                def post_hook(self, is_last_joiner):
                    counter.log.append(["post", is_last_joiner])
            return Hook()

        @property
        def join_device(self):
            return lib.device("cpu")

        @property
        def join_process_group(self):
            return lib.distributed.group.WORLD

    c = Counter()
    with Join([c], tag="x"):
        for _ in range([1, 3][rank]):
            c.step()
    out["custom_joinable"] = c.log
    return out


# ---- distributed.nn.functional --------------------------------------------------------------
def functional_cases(lib, rank, ws):
    F = _mod(lib, "distributed.nn.functional")
    R = lib.distributed.ReduceOp
    out = {}

    def leaf(n, k, off):
        return vals(lib, n, k, off + 17 * rank).requires_grad_(True)

    def weight(n, k):
        return vals(lib, n, k, 3 + 5 * rank) + 1

    def single(name, fn, n=3):
        x = leaf(n, 3, 1)
        y = fn(x)
        (y * weight(y.numel(), 7).reshape(y.shape)).sum().backward()
        out[name] = {"y": y.tolist(), "grad": x.grad.tolist()}

    single("all_reduce_sum", lambda x: F.all_reduce(x))
    single("all_reduce_avg", lambda x: F.all_reduce(x, op=R.AVG))
    single("broadcast", lambda x: F.broadcast(x, 1))
    single("reduce", lambda x: F.reduce(x, 0))
    single("all_to_all_single", lambda x: F.all_to_all_single(
        lib.zeros([3, 4][rank], dtype=lib.float64), x, [[1, 2], [2, 2]][rank],
        [[1, 2], [2, 2]][rank]), n=[3, 4][rank])

    def multi(name, fn, n=6):
        x = leaf(n, 5, 2)
        ys = fn(x)
        loss = sum((y * weight(y.numel(), 3 + i).reshape(y.shape)).sum() for i, y in
                   enumerate(ys))
        loss.backward()
        out[name] = {"y": [y.tolist() for y in ys], "grad": x.grad.tolist()}

    multi("all_gather", lambda x: F.all_gather(x))
    multi("gather", lambda x: F.gather(x, dst=1))
    multi("all_to_all", lambda x: F.all_to_all(
        [lib.zeros(3, dtype=lib.float64) for _ in range(ws)], list(x.view(ws, 3))))
    multi("scatter", lambda x: [F.scatter(list(x.view(ws, 3)), src=0)])
    multi("reduce_scatter", lambda x: [F.reduce_scatter(
        lib.zeros(3, dtype=lib.float64), list(x.view(ws, 3)))])
    return out


# ---- c10d odds and ends ----------------------------------------------------------------------
def c10d_cases(lib, rank, ws):
    dist = lib.distributed
    out = {}
    objs = [1, "two", {"x": [3.5, None]}, (4, 5)]
    if rank == 0:
        dist.send_object_list(objs, dst=1)
        got = [None]
        src = dist.recv_object_list(got, src=1)
        out["objects"] = [got, src]
    else:
        got = [None] * 4
        src = dist.recv_object_list(got, src=0)
        out["objects"] = [[list(o) if isinstance(o, tuple) else o for o in got], src]
        dist.send_object_list([{"back": rank}], dst=0)
    if rank == 0:
        dist.send_object_list([{"w": lib.arange(3.0)}], dst=1, weights_only=True)
    else:
        box = [None]
        dist.recv_object_list(box, src=0, weights_only=True)
        out["weights_only"] = box[0]["w"].tolist()

    def describe(g):
        if g is dist.GroupMember.NON_GROUP_MEMBER:
            return "NON_GROUP_MEMBER"
        if g is None:
            return None
        return [dist.get_process_group_ranks(g), dist.get_rank(g), dist.get_world_size(g)]

    cur, groups = dist.new_subgroups(group_size=1)
    out["subgroups_1"] = [describe(cur), [describe(g) for g in groups]]
    t = lib.tensor([float(rank + 1)])
    dist.all_reduce(t, group=cur)
    out["subgroup_reduce"] = t.tolist()
    cur, groups = dist.new_subgroups(group_size=2)
    out["subgroups_2"] = [describe(cur), [describe(g) for g in groups]]
    out["subgroups_bad"] = [_run(lambda: dist.new_subgroups(group_size=3)),
                            _run(lambda: dist.new_subgroups(group_size=0))]
    cur, groups = dist.new_subgroups_by_enumeration([[1], [0]])
    out["enumeration"] = [describe(cur), [describe(g) for g in groups]]
    out["enumeration_bad"] = [_run(lambda: dist.new_subgroups_by_enumeration([])),
                              _run(lambda: dist.new_subgroups_by_enumeration([[0, 1], [1]]))]
    out["split"] = _run(lambda: describe(dist.split_group(split_ranks=[[1], [0]])))
    out["split_bad"] = _run(lambda: dist.split_group(split_ranks=[]))
    a = [lib.tensor([1.0, 2.0]) * (rank + 1), lib.tensor([[3.0]]) * (rank + 1)]
    dist.all_reduce_coalesced(a)
    out["all_reduce_coalesced"] = [x.tolist() for x in a]
    b = [lib.tensor([5, 6]) + rank, lib.tensor([7]) + rank]
    dist.all_reduce_coalesced(b, op=dist.ReduceOp.MAX)
    out["all_reduce_coalesced_max"] = [x.tolist() for x in b]
    outs = [[lib.zeros(2), lib.zeros(1, 2)] for _ in range(ws)]
    dist.all_gather_coalesced(outs, [lib.tensor([1.0, 2.0]) + rank,
                                     lib.tensor([[3.0, 4.0]]) - rank])
    out["all_gather_coalesced"] = [[x.tolist() for x in o] for o in outs]
    out["object_self"] = _run(lambda: dist.send_object_list([1], dst=rank))
    return out


def api_cases(lib):
    """Single-process facts."""
    import os
    dist = lib.distributed
    L = dist.DebugLevel
    out = {"levels": [[repr(v), str(v), int(v)] for v in (L.OFF, L.INFO, L.DETAIL)]}
    steps = [str(dist.get_debug_level())]
    dist.set_debug_level(L.DETAIL)
    steps.append(str(dist.get_debug_level()))
    old = os.environ.get("TORCH_DISTRIBUTED_DEBUG")
    try:
        os.environ["TORCH_DISTRIBUTED_DEBUG"] = "info"
        dist.set_debug_level_from_env()
        steps.append(str(dist.get_debug_level()))
        os.environ["TORCH_DISTRIBUTED_DEBUG"] = "loud"
        steps.append(_run(dist.set_debug_level_from_env))
        steps.append(str(dist.get_debug_level()))
        del os.environ["TORCH_DISTRIBUTED_DEBUG"]
        dist.set_debug_level_from_env()
        steps.append(str(dist.get_debug_level()))
    finally:
        if old is None:
            os.environ.pop("TORCH_DISTRIBUTED_DEBUG", None)
        else:
            os.environ["TORCH_DISTRIBUTED_DEBUG"] = old
    out["debug_steps"] = steps
    out["backends"] = {b: dist.is_backend_available(b)
                       for b in ["gloo", "GLOO", "mpi", "ucc", "bogus", "cpu:gloo"]}
    old = os.environ.pop("LOCAL_RANK", None)
    try:
        out["local_rank"] = [dist.get_node_local_rank(fallback_rank=3),
                             _run(dist.get_node_local_rank)]
        os.environ["LOCAL_RANK"] = "2"
        out["local_rank"].append(dist.get_node_local_rank(fallback_rank=5))
    finally:
        os.environ.pop("LOCAL_RANK", None)
        if old is not None:
            os.environ["LOCAL_RANK"] = old
    out["join_all"] = _mod(lib, "distributed.algorithms.join").__all__
    out["grad_bucket"] = hasattr(dist, "GradBucket")
    return out


def all_cases(lib, rank, ws):
    return {"zero": zero_cases(lib, rank, ws), "join": join_cases(lib, rank, ws),
            "functional": functional_cases(lib, rank, ws), "c10d": c10d_cases(lib, rank, ws)}
