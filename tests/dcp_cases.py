"""distributed.checkpoint cases run by 2 ranks under PyTorch
(scripts/golden_dcp.py records tests/golden/dcp.json) and under torchlike
(tests/test_distributed_checkpoint.py compares).  ``lib`` is torch or
torchlike; the model and batch are fsdp_cases' closed-formula ones.

For each wrapping of the model (plain, DDP, FSDP1 with flat parameters,
FSDP1 with use_orig_params, fully_shard): get_state_dict on a fresh
optimizer (its state initialised), after one Adam step (sharded and
full), what the ranks get with cpu_offload, and the metadata of a
dcp.save of the sharded state (keys, sizes, chunks)."""
import os

from fsdp_cases import batch, local_shape, make_model

WRAPPINGS = ["plain", "ddp", "fsdp1", "fsdp1_orig", "fsdp2", "fsdp1_frozen", "fsdp2_frozen"]


def _local(t):
    if hasattr(t, "local_shards"):
        shards = t.local_shards()
        return shards[0].tensor if shards else None
    return t.to_local() if hasattr(t, "to_local") else t


def _vals(t):
    t = _local(t)
    return [] if t is None else [round(float(v), 12) for v in t.detach().reshape(-1).tolist()]


def _json(v):
    if isinstance(v, tuple):
        return [_json(x) for x in v]
    if isinstance(v, list):
        return [_json(x) for x in v]
    return v


def wrap_model(lib, name, device_kw):
    model, _ = make_model(lib)
    if name.endswith("_frozen"):  # the first layer fine-tuned away
        name = name[:-len("_frozen")]
        model[0].requires_grad_(False)
    if name == "ddp":
        return lib.nn.parallel.DistributedDataParallel(model)
    if name in ("fsdp1", "fsdp1_orig"):
        from importlib import import_module
        fsdp = import_module(lib.__name__ + ".distributed.fsdp")
        wrap = import_module(lib.__name__ + ".distributed.fsdp.wrap")
        return fsdp.FullyShardedDataParallel(
            model, auto_wrap_policy=wrap.ModuleWrapPolicy({lib.nn.Linear}),
            use_orig_params=name == "fsdp1_orig", **device_kw)
    if name == "fsdp2":
        from importlib import import_module
        fsdp = import_module(lib.__name__ + ".distributed.fsdp")
        for m in (model[0], model[2].lin1, model[2], model):
            fsdp.fully_shard(m)
    return model


def describe(msd, osd, values=False, groups=False):
    """Keys, local shapes (and values, and the parameter groups) of a model
    and an optimizer state dict."""
    out = {"model": [[k, local_shape(v)] + ([_vals(v)] if values else [])
                     for k, v in msd.items()]}
    if osd is not None:
        out["optim_state"] = {
            k: {s: ([local_shape(t)] + ([_vals(t)] if values else []) if local_shape(t)
                    else float(_local(t))) for s, t in st.items()}
            for k, st in osd.get("state", {}).items()}
        if groups:
            out["param_groups"] = [{k: _json(v) for k, v in g.items()}
                                   for g in osd.get("param_groups", [])]
    return out


def metadata_json(md):
    out = {}
    for k, m in md.state_dict_metadata.items():
        if hasattr(m, "chunks"):
            chunks = sorted([list(c.offsets), list(c.sizes)] for c in m.chunks)
            out[k] = ["tensor", str(m.properties.dtype).split(".")[-1], list(m.size), chunks]
        else:
            out[k] = ["bytes"]
    return out


def run_wrapping(lib, dcp, sdmod, rank, name, device_kw, ckpt_dir):
    """What one rank sees of get_state_dict for wrapping ``name``, and the
    metadata of a save of the sharded state (on rank 0)."""
    Opts = sdmod.StateDictOptions
    model = wrap_model(lib, name, device_kw)
    opt = lib.optim.Adam(model.parameters(), lr=0.01)
    out = {"fresh": describe(*sdmod.get_state_dict(model, opt))}
    x, y = batch(lib, rank)
    opt.zero_grad()
    ((model(x) - y) ** 2).mean().backward()
    opt.step()
    msd, osd = sdmod.get_state_dict(model, opt)
    out["sharded"] = describe(msd, osd, groups=True)
    out["full"] = describe(*sdmod.get_state_dict(model, opt,
                                                 options=Opts(full_state_dict=True)),
                           values=True)
    off = sdmod.get_state_dict(model, opt, options=Opts(full_state_dict=True, cpu_offload=True))
    out["offload_keys"] = [list(off[0]), list(off[1])]
    frozen = sdmod.get_model_state_dict(model, options=Opts(ignore_frozen_params=True))
    out["ignore_frozen_keys"] = list(frozen)
    flat = sdmod.get_optimizer_state_dict(model, opt,
                                          options=Opts(flatten_optimizer_state_dict=True))
    out["flat_optim"] = {k: local_shape(v) if hasattr(v, "shape") else _json(v)
                         for k, v in flat.items()}   # (PyTorch's order varies by wrapping)
    path = os.path.join(ckpt_dir, name)
    dcp.save({"model": msd, "optim": osd, "epoch": 7}, checkpoint_id=path)
    if rank == 0:
        out["metadata"] = metadata_json(dcp.FileSystemReader(path).read_metadata())
    return out


def run_all(lib, dcp, sdmod, rank, device_kw, ckpt_dir):
    return {name: run_wrapping(lib, dcp, sdmod, rank, name, device_kw, ckpt_dir)
            for name in WRAPPINGS}


def errors(lib, dcp, ckpt_dir):
    """Single-process error cases: their type and message."""
    out = {}
    path = os.path.join(ckpt_dir, "errors")
    w = lib.arange(12, dtype=lib.float32).reshape(4, 3)
    dcp.save({"w": w, "n": 3}, checkpoint_id=path, no_dist=True)

    def attempt(key, fn):
        try:
            fn()
            out[key] = "OK"
        except BaseException as e:  # CheckpointException is a BaseException
            inner = getattr(e, "failures", {}) or {}
            exc = next(iter(inner.values()), e)
            if isinstance(exc, tuple):  # PyTorch keeps (exception, frames)
                exc = exc[0]
            out[key] = [type(e).__name__, type(exc).__name__, str(exc)]
    attempt("missing", lambda: dcp.load({"w": lib.zeros(4, 3), "x": lib.zeros(2)},
                                        checkpoint_id=path, no_dist=True))
    attempt("partial", lambda: dcp.load(
        {"w": lib.zeros(4, 3), "x": lib.zeros(2)}, checkpoint_id=path, no_dist=True,
        planner=dcp.DefaultLoadPlanner(allow_partial_load=True)))
    attempt("size", lambda: dcp.load({"w": lib.zeros(5, 3)}, checkpoint_id=path,
                                     no_dist=True))
    attempt("no_id", lambda: dcp.load({"w": lib.zeros(4, 3)}, no_dist=True))
    return out
