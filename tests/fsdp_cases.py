"""FSDP cases run by 2 ranks under PyTorch (scripts/golden_fsdp.py records
tests/golden/fsdp.json) and under torchlike (tests/test_fsdp.py compares).
``lib`` is torch or torchlike; the model, its weights and the batch are
built from closed formulas so both libraries start from the same numbers."""
import functools
import math

CONFIGS = ["root", "module", "size", "transformer", "orig", "grad_op", "no_shard"]


def make_model(lib):
    nn = lib.nn

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin1 = nn.Linear(3, 3)
            self.lin2 = nn.Linear(3, 2)

        def forward(self, x):
            return self.lin2(lib.tanh(self.lin1(x)))

    model = nn.Sequential(nn.Linear(4, 3), nn.Tanh(), Block()).double()
    with lib.no_grad():
        for k, p in enumerate(model.parameters()):
            n = p.numel()
            vals = [((i * 0.37 + k * 0.11) % 1.0) - 0.5 for i in range(n)]
            p.copy_(lib.tensor(vals, dtype=lib.float64).reshape(p.shape))
    return model, Block


def batch(lib, part=None, parts=2):
    """8 rows of (x, target); ``part`` of ``parts`` (a rank of 2 by default)
    takes its equal share."""
    x = lib.tensor([[math.cos(i * 4 + j) for j in range(4)] for i in range(8)],
                   dtype=lib.float64)
    y = lib.tensor([[math.sin(i * 2 + j) for j in range(2)] for i in range(8)],
                   dtype=lib.float64)
    if part is None:
        return x, y
    n = 8 // parts
    return x[n * part:n * part + n], y[n * part:n * part + n]


def wrap_config(lib, fsdp, wrap, name, Block):
    """FSDP keyword arguments for configuration ``name``."""
    S = fsdp.ShardingStrategy
    kw = {}
    if name in ("module", "orig", "grad_op", "no_shard"):
        kw["auto_wrap_policy"] = wrap.ModuleWrapPolicy({lib.nn.Linear})
    elif name == "size":
        kw["auto_wrap_policy"] = functools.partial(wrap.size_based_auto_wrap_policy,
                                                   min_num_params=13)
    elif name == "transformer":
        kw["auto_wrap_policy"] = functools.partial(wrap.transformer_auto_wrap_policy,
                                                   transformer_layer_cls={Block})
    if name == "orig":
        kw["use_orig_params"] = True
    if name == "grad_op":
        kw["sharding_strategy"] = S.SHARD_GRAD_OP
    if name == "no_shard":
        kw["sharding_strategy"] = S.NO_SHARD
    return kw


def _vals(t):
    return [round(float(v), 12) for v in t.detach().reshape(-1).tolist()]


def local_shape(v):
    """The shape this rank holds of a state-dict value (a ShardedTensor or
    DTensor in PyTorch, a plain tensor in torchlike)."""
    if hasattr(v, "local_shards"):
        shards = v.local_shards()
        return list(shards[0].tensor.shape) if shards else [0]
    if hasattr(v, "to_local"):
        return list(v.to_local().shape)
    return list(v.shape)


def _optim_json(osd):
    state = {k: {s: (_vals(t) if t.dim() else float(t)) for s, t in v.items()}
             for k, v in osd["state"].items()}
    groups = [{"params": list(g["params"]), "lr": g["lr"]} for g in osd["param_groups"]]
    return {"state": state, "param_groups": groups}


def run_config(lib, dist, fsdp, wrap, rank, name, device_kw):
    """What one rank sees of configuration ``name``: parameter names and
    shapes, flat shard values, state-dict keys, gradients, optimizer state."""
    FSDP = fsdp.FullyShardedDataParallel
    SDT = fsdp.StateDictType
    model, Block = make_model(lib)
    m = FSDP(model, **wrap_config(lib, fsdp, wrap, name, Block), **device_kw)
    out = {"named_parameters": [[n, list(p.shape)] for n, p in m.named_parameters()],
           "values": [_vals(p) for p in m.parameters()],
           "modules": [n for n, _ in m.named_modules()],
           "repr": repr(m).replace("torchlike.", "torch.")}
    full = m.state_dict()
    out["full_keys"] = list(full)
    out["full_shapes"] = [list(v.shape) for v in full.values()]
    with FSDP.state_dict_type(m, SDT.SHARDED_STATE_DICT):
        sd = m.state_dict()
        out["sharded"] = [[k, local_shape(v)] for k, v in sd.items()]
    if name != "orig":
        with FSDP.state_dict_type(m, SDT.LOCAL_STATE_DICT):
            sd = m.state_dict()
            out["local"] = [[k, local_shape(v)] for k, v in sd.items()]
    x, y = batch(lib, rank)
    opt = (lib.optim.SGD(m.parameters(), lr=0.1, momentum=0.9) if name == "root"
           else lib.optim.Adam(m.parameters(), lr=0.01))
    for _ in range(2):
        opt.zero_grad()
        ((m(x) - y) ** 2).mean().backward()
        if _ == 0:
            out["grads"] = [_vals(p.grad) if p.grad is not None else None
                            for p in m.parameters()]
        opt.step()
    out["after"] = [_vals(p) for p in m.parameters()]
    out["optim"] = _optim_json(FSDP.optim_state_dict(m, opt))
    with FSDP.state_dict_type(m, SDT.FULL_STATE_DICT):
        out["trained"] = {k: _vals(v) for k, v in m.state_dict().items()}
    if name == "module":
        def nosync_inner():
            with m.module[0].no_sync():
                pass

        def summon_rank0_writeback():
            with FSDP.summon_full_params(m, rank0_only=True, writeback=True):
                pass

        for key, fn in (("clip_nonroot", lambda: m.module[0].clip_grad_norm_(1.0)),
                        ("nosync_nonroot", nosync_inner),
                        ("summon_rank0_writeback", summon_rank0_writeback)):
            try:
                fn()
                out[key] = "OK"
            except Exception as e:
                out[key] = [type(e).__name__, str(e)]
    return out


def run_all(lib, dist, fsdp, wrap, rank, device_kw):
    return {name: run_config(lib, dist, fsdp, wrap, rank, name, device_kw) for name in CONFIGS}


def no_group_error(lib, fsdp, device_kw):
    try:
        fsdp.FullyShardedDataParallel(lib.nn.Linear(2, 2), **device_kw)
    except Exception as e:
        return [type(e).__name__, str(e)]
    return "OK"


def _local(t):
    """A DTensor's local piece in PyTorch; the parameter itself in torchlike."""
    return t.to_local() if hasattr(t, "to_local") else t


def run_fully_shard(lib, fsdp, rank):
    """FSDP2: fully_shard on the layers, then the root; local pieces, local
    gradients and two Adam steps."""
    model, _ = make_model(lib)
    for m in (model[0], model[2].lin1, model[2], model):
        fsdp.fully_shard(m)
    out = {"classes": [type(m).__name__ for m in (model, model[0], model[2], model[2].lin2)],
           "is_fsdp": [isinstance(m, fsdp.FSDPModule) for m in (model, model[1], model[2].lin2)],
           "local": [[n, list(_local(p).shape), _vals(_local(p))]
                     for n, p in model.named_parameters()]}
    x, y = batch(lib, rank)
    opt = lib.optim.Adam(model.parameters(), lr=0.01)
    for step in range(2):
        opt.zero_grad()
        ((model(x) - y) ** 2).mean().backward()
        if step == 0:
            out["grads"] = [_vals(_local(p.grad)) for p in model.parameters()]
        opt.step()
    out["after"] = [_vals(_local(p)) for p in model.parameters()]
    return out
