"""Pipeline-parallel cases run by 2 and by 4 ranks under PyTorch
(scripts/golden_pipelining.py records tests/golden/pipelining.json) and under
torchlike (tests/test_pipelining.py compares).  ``lib`` is torch or
torchlike, ``pp`` its distributed.pipelining.

The model: ``blocks(n)``, a Sequential of n blocks (Linear + Tanh, the last
block a Linear alone) with weights set from a formula (no random numbers,
so both libraries start equal), in float64; stage ``k`` is block ``k``."""
N_MB = 4
STEPS = 3
SCHEDULES = ("ScheduleGPipe", "Schedule1F1B", "ScheduleInterleaved1F1B", "ScheduleLoopedBFS",
             "ScheduleInterleavedZeroBubble", "ScheduleZBVZeroBubble", "ScheduleDualPipeV")
LOOPED = ("ScheduleInterleaved1F1B", "ScheduleLoopedBFS", "ScheduleInterleavedZeroBubble")
V_SHAPED = ("ScheduleZBVZeroBubble", "ScheduleDualPipeV")
LR = 0.1
WIDTH = 5


def err(fn):
    """``[type name, message]`` of what ``fn()`` raises, or ["OK", None]."""
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the exception is the result
        return [type(e).__name__, str(e).replace("torchlike.", "torch.")]
    return ["OK", None]


def blocks(lib, n):
    nn = lib.nn
    dims = [4] + [WIDTH] * (n - 1) + [3]
    mods = []
    for k in range(n):
        lin = nn.Linear(dims[k], dims[k + 1])
        mods.append(nn.Sequential(lin, nn.Tanh()) if k < n - 1 else nn.Sequential(lin))
    model = nn.Sequential(*mods).double()
    with lib.no_grad():
        for i, p in enumerate(model.parameters()):
            v = lib.arange(p.numel(), dtype=lib.float64)
            p.copy_((lib.sin(v * 0.7 + i) * 0.6).reshape(p.shape))
    return model


def batch(lib, rows=8):
    x = lib.cos(lib.arange(rows * 4, dtype=lib.float64) * 0.3).reshape(rows, 4)
    y = lib.sin(lib.arange(rows * 3, dtype=lib.float64) * 0.5).reshape(rows, 3)
    return x, y


def _flat(mod):
    return [v for p in mod.parameters() for v in p.detach().reshape(-1).tolist()]


def _losses(ls):
    return [[float(v.item()) for v in ls], [list(v.shape) for v in ls],
            [bool(v.requires_grad) for v in ls]]


def layout(name, rank, ws):
    """(number of stages, this rank's stages, microbatches) of schedule
    ``name`` on ``ws`` ranks: one stage per rank, looped (r, r + ws) or V
    (r, 2 ws - 1 - r); DualPipeV needs as many microbatches as stages."""
    if name in LOOPED:
        return 2 * ws, [rank, rank + ws], N_MB
    if name in V_SHAPED:
        return 2 * ws, [rank, 2 * ws - 1 - rank], max(N_MB, 2 * ws) \
            if name == "ScheduleDualPipeV" else N_MB
    return ws, [rank], N_MB


def train(lib, pp, rank, ws, name, steps=STEPS, group=None):
    """Train ``blocks`` pipelined under schedule ``name`` for ``steps`` SGD
    steps: what this rank sees (step's return, losses, its parameters)."""
    F = lib.nn.functional
    n_stages, mine, n_mb = layout(name, rank, ws)
    multi = len(mine) > 1
    model = blocks(lib, n_stages)
    dev = lib.device("cpu")
    stages = [pp.PipelineStage(model[s], s, n_stages, dev, group=group) for s in mine]
    cls = getattr(pp, name)
    sch = cls(stages if multi else stages[0], n_mb, loss_fn=F.mse_loss)
    params = [p for s in mine for p in model[s].parameters()]
    opt = lib.optim.SGD(params, lr=LR)
    x, y = batch(lib)
    out = {"returns": [], "losses": []}
    for _ in range(steps):
        opt.zero_grad()
        losses = []
        kwargs = {}
        if 0 in mine:
            args = (x,)
        else:
            args = ()
        if n_stages - 1 in mine:
            kwargs = {"target": y, "losses": losses}
        ret = sch.step(*args, **kwargs)
        out["returns"].append(None if ret is None else
                              [ret.detach().tolist(), bool(ret.requires_grad)])
        out["losses"].append(_losses(losses))
        opt.step()
    out["params"] = {str(s): _flat(model[s]) for s in mine}
    return out


def run_schedules(lib, pp, rank, ws, group=None):
    """Each schedule over ``ws`` ranks (``rank``: the rank in ``group``)."""
    return {name: train(lib, pp, rank, ws, name, group=group) for name in SCHEDULES}


def _split_model(lib, pipe_split):
    nn = lib.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Linear(4, WIDTH)
            self.layers = nn.ModuleList([nn.Linear(WIDTH, WIDTH) for _ in range(3)])
            self.head = nn.Linear(WIDTH, 3)

        def forward(self, x):
            h = lib.tanh(self.emb(x))
            pipe_split()
            for layer in self.layers:
                h = lib.tanh(layer(h)) + h
            return self.head(h)

    net = Net().double()
    with lib.no_grad():
        for i, p in enumerate(net.parameters()):
            v = lib.arange(p.numel(), dtype=lib.float64)
            p.copy_((lib.cos(v * 0.9 + i) * 0.5).reshape(p.shape))
    return net


def run_pipe(lib, pp, rank, ws, group=None):
    """pipeline(): the Pipe's structure (pipe_split and split_spec), then
    two GPipe steps over stages built from it."""
    x, y = batch(lib)
    net = _split_model(lib, pp.pipe_split)
    spec = {f"layers.{k}": pp.SplitPoint.BEGINNING for k in range(1, ws - 1)}
    pipe = pp.pipeline(net, (x[:2],), split_spec=spec)
    out = {"num_stages": pipe.num_stages,
           "params": [[n for n, _ in pipe.get_stage_module(i).named_parameters()]
                      for i in range(pipe.num_stages)],
           "children": [[n for n, _ in pipe.get_stage_module(i).named_children()]
                        for i in range(pipe.num_stages)],
           "split_gm_children": [n for n, _ in pipe.split_gm.named_children()],
           "bad_index": err(lambda: pipe.get_stage_module(pipe.num_stages))}
    whole = pipe(x)
    out["whole_type"] = type(whole).__name__
    out["whole"] = (whole[0] if isinstance(whole, tuple) else whole).detach().tolist()
    seq = lib.nn.Sequential(lib.nn.Linear(4, 6), lib.nn.ReLU(), lib.nn.Linear(6, 3)).double()
    out["seq_begin"] = [[n for n, _ in m.named_parameters()] for m in (
        lambda p: [p.get_stage_module(i) for i in range(p.num_stages)])(
        pp.pipeline(seq, (x[:2],), split_spec={"2": pp.SplitPoint.BEGINNING}))]
    seq = lib.nn.Sequential(lib.nn.Linear(4, 6), lib.nn.ReLU(), lib.nn.Linear(6, 3)).double()
    out["seq_end"] = [[n for n, _ in m.named_parameters()] for m in (
        lambda p: [p.get_stage_module(i) for i in range(p.num_stages)])(
        pp.pipeline(seq, (x[:2],), split_spec={"1": pp.SplitPoint.END}))]
    if pipe.num_stages == ws:
        stage = pipe.build_stage(rank, lib.device("cpu"), group=group)
        sch = pp.ScheduleGPipe(stage, N_MB, loss_fn=lib.nn.functional.mse_loss)
        opt = lib.optim.SGD(stage.submod.parameters(), lr=LR)
        out["train"] = []
        for _ in range(2):
            opt.zero_grad()
            losses = []
            ret = sch.step(x) if rank == 0 else \
                sch.step(target=y, losses=losses) if rank == ws - 1 else sch.step()
            opt.step()
            out["train"].append([None if ret is None else ret.detach().tolist(),
                                 _losses(losses)])
        out["trained"] = {n: p.detach().reshape(-1).tolist()
                          for n, p in stage.submod.named_parameters()}
    return out


def _scaled(lib):
    class Scaled(lib.nn.Module):
        """A block whose output is scaled row by row by a keyword input."""

        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, x, scale=None):
            return self.inner(x) * scale
    return Scaled


def run_inputs(lib, pp, rank, ws, group=None):
    """Keyword inputs (cut into microbatches, given to every stage), and
    pre-split microbatches (arg_mbs / kwarg_mbs / target_mbs)."""
    F = lib.nn.functional
    x, y = batch(lib)
    scale = (lib.arange(8, dtype=lib.float64) * 0.25 + 0.5).reshape(8, 1)
    model = blocks(lib, ws)
    mod = _scaled(lib)(model[rank])
    sch = pp.ScheduleGPipe(pp.PipelineStage(mod, rank, ws, lib.device("cpu"), group=group),
                           N_MB, loss_fn=F.mse_loss)
    out = {}
    for way in ("kwargs", "pre_split"):
        losses = []
        if way == "kwargs":
            kw = {"scale": scale}
            if rank == 0:
                ret = sch.step(x, **kw)
            elif rank == ws - 1:
                ret = sch.step(target=y, losses=losses, **kw)
            else:
                ret = sch.step(**kw)
        else:
            kws = [{"scale": s} for s in scale.tensor_split(N_MB)]
            if rank == 0:
                ret = sch.step(arg_mbs=[(a,) for a in x.tensor_split(N_MB)], kwarg_mbs=kws)
            elif rank == ws - 1:
                ret = sch.step(target_mbs=list(y.tensor_split(N_MB)), losses=losses,
                               kwarg_mbs=kws)
            else:
                ret = sch.step(kwarg_mbs=kws)
        out[way] = [None if ret is None else ret.tolist(), _losses(losses),
                    [v for p in mod.parameters() for v in p.grad.reshape(-1).tolist()]]
        for p in mod.parameters():
            p.grad = None
    out["mixed"] = err(lambda: sch.step(x, arg_mbs=[(x,)] * N_MB))
    out["bad_arg_mbs"] = err(lambda: sch.step(arg_mbs=(x,) * N_MB))
    return out


def run_errors(lib, pp, rank, ws, group=None):
    """Errors every rank raises before any message (so that the world stays
    usable), and the eval() of a trained schedule."""
    F = lib.nn.functional
    model = blocks(lib, ws)
    dev = lib.device("cpu")
    out = {}
    out["stage_oob"] = err(lambda: pp.PipelineStage(model[0], ws, ws, dev, group=group))
    stage = pp.PipelineStage(model[rank], rank, ws, dev, group=group)
    out["1f1b_few"] = err(lambda: pp.Schedule1F1B(stage, ws - 1, loss_fn=F.mse_loss))
    sch = pp.ScheduleGPipe(stage, N_MB, loss_fn=F.mse_loss)

    def no_grad_step():
        with lib.no_grad():
            sch.step()
    out["no_grad"] = err(no_grad_step)
    if ws == 2:  # every rank knows the batch: both raise before sending
        x3, y3 = batch(lib, 3)
        out["few_rows"] = err(lambda: sch.step(x3) if rank == 0 else sch.step(target=y3))
    x, y = batch(lib)
    ev = pp.ScheduleGPipe(pp.PipelineStage(blocks(lib, ws)[rank], rank, ws, dev, group=group),
                          N_MB)
    ret = ev.step(x) if rank == 0 else ev.step()
    out["forward_only"] = None if ret is None else [ret.tolist(), bool(ret.requires_grad)]
    fo = pp._ScheduleForwardOnly(
        pp.PipelineStage(blocks(lib, ws)[rank], rank, ws, dev, group=group), N_MB)
    out["forward_only_losses"] = err(lambda: fo.step(x, losses=[]))
    ret = fo.step(x) if rank == 0 else fo.step()
    out["forward_only_cls"] = None if ret is None else [ret.tolist(), bool(ret.requires_grad)]
    losses = []
    ret = sch.eval(x) if rank == 0 else sch.eval(target=y, losses=losses)
    out["eval"] = [None if ret is None else [ret.tolist(), bool(ret.requires_grad)],
                   _losses(losses)]
    return out


def run_microbatch(lib, mb):
    """split_args_kwargs_into_chunks and merge_chunks in one process."""
    x = lib.arange(10, dtype=lib.float64).reshape(5, 2)
    m = lib.arange(6, dtype=lib.float64).reshape(2, 3)
    args, kwargs = mb.split_args_kwargs_into_chunks(
        (x, 7), {"mask": m, "flag": True}, 2, None,
        {"mask": mb.TensorChunkSpec(1), "flag": mb._Replicate()})
    out = {"args": [[a[0].tolist(), a[1]] for a in args],
           "kwargs": [[k["mask"].tolist(), k["flag"]] for k in kwargs]}
    args, _ = mb.split_args_kwargs_into_chunks((x,), None, 8)
    out["fewer"] = [a[0].tolist() for a in args]
    out["merged"] = mb.merge_chunks([lib.ones(2, 2), lib.zeros(1, 2)], None).tolist()
    out["merged_dim1"] = mb.merge_chunks(
        [(lib.ones(2, 1), 3), (lib.zeros(2, 2), 3)],
        (mb.TensorChunkSpec(1), None))
    out["merged_dim1"] = [out["merged_dim1"][0].tolist(), out["merged_dim1"][1]]
    out["spec_str"] = [str(mb.TensorChunkSpec(1)), repr(mb.TensorChunkSpec(2)).replace(
        "torchlike", "torch")]
    out["from_tuple"] = [s.split_dim for s in mb.TensorChunkSpec.from_tuple((0, 1))]
    return out


def run_zero_bubble(lib, pp, rank, ws, group=None):
    """The zero-bubble schedules' refusals (wrong number of stages per rank,
    microbatches, placement: PyTorch builds a schedule from misplaced stages
    and fails in step(), torchlike refuses at once) and a ZB-V step whose
    stages have a dw_builder (how often it and its runners are called, the
    gradients)."""
    F = lib.nn.functional
    dev = lib.device("cpu")
    model = blocks(lib, 3 * ws)

    def st(i, n=2 * ws, **kw):
        return pp.PipelineStage(model[i], i, n, dev, group=group, **kw)

    def make(name, idx, n_mb=N_MB, n=2 * ws, **kw):
        return lambda: getattr(pp, name)([st(i, n) for i in idx], n_mb, loss_fn=F.mse_loss,
                                         **kw)
    v = [rank, 2 * ws - 1 - rank]
    out = {"zbv_one": err(make("ScheduleZBVZeroBubble", [rank], n=ws)),
           "zbv_three": err(make("ScheduleZBVZeroBubble", [rank, rank + ws, rank + 2 * ws],
                                 n=3 * ws)),
           "zbv_swapped": err(make("ScheduleZBVZeroBubble", v[::-1])),
           "zbv_looped": err(make("ScheduleZBVZeroBubble", [rank, rank + ws])),
           "izb_v": err(make("ScheduleInterleavedZeroBubble", v)),
           "izb_one": err(make("ScheduleInterleavedZeroBubble", [rank], n=ws)),
           "izb_rounds": err(make("ScheduleInterleavedZeroBubble", [rank, rank + ws],
                                  n_mb=2 * ws + 1)),
           "izb_sends": err(make("ScheduleInterleavedZeroBubble", [rank, rank + ws],
                                 max_outstanding_sends=-1)),
           "dpv_one": err(make("ScheduleDualPipeV", [rank], n=ws)),
           "dpv_few": err(make("ScheduleDualPipeV", v, n_mb=2 * ws - 1))}
    model = blocks(lib, 2 * ws)
    calls = {s: [0, 0] for s in v}

    def builder(s):
        def build():
            calls[s][0] += 1

            def run():
                calls[s][1] += 1
            return run
        return build
    stages = [pp.PipelineStage(model[s], s, 2 * ws, dev, group=group, dw_builder=builder(s))
              for s in v]
    sch = pp.ScheduleZBVZeroBubble(stages, N_MB, loss_fn=F.mse_loss)
    x, y = batch(lib)
    losses = []
    if rank == 0:
        sch.step(x, target=y, losses=losses)
    else:
        sch.step()
    out["dw_builder"] = {"calls": {str(s): calls[s] for s in v}, "losses": _losses(losses),
                         "grads": {str(s): [g for p in model[s].parameters()
                                            for g in p.grad.reshape(-1).tolist()] for s in v}}
    return out
