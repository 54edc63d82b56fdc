"""get_state_dict / set_state_dict: one way to take the state of a model
and its optimizers out and put it back, whatever wraps the model (nothing,
DistributedDataParallel, FSDP1 units, fully_shard).

Keys are the original module's names (no ``module.`` or
``_fsdp_wrapped_module.``); the optimizer's state is keyed by those names
too: ``{"state": {"0.weight": {"step": ..., "exp_avg": ...}},
"param_groups": [{"lr": ..., "params": ["0.weight", ...]}]}``.

``StateDictOptions(full_state_dict=False)``: a sharded model gives each
rank its ``chunk(world, dim=0)`` piece of every parameter (and of every
per-element optimizer state), recorded as a piece of its global tensor so
that distributed.checkpoint saves and loads it as one; ``True``: whole
tensors on every rank (``cpu_offload=True`` as well: on rank 0 only, the
other ranks get ``{}``).  An optimizer that has not stepped is given its
state first (one step with zero gradients and a learning rate of 0), so
that a state dict to load into has its tensors."""
from dataclasses import dataclass

from ... import _C
from ... import distributed as dist
from ...autograd.grad_mode import no_grad
from .. import _shard_spec

__all__ = ["StateDictOptions", "get_model_state_dict", "get_optimizer_state_dict",
           "get_state_dict", "set_model_state_dict", "set_optimizer_state_dict",
           "set_state_dict"]

Tensor = _C.Tensor


@dataclass
class StateDictOptions:
    full_state_dict: bool = False
    cpu_offload: bool = False
    ignore_frozen_params: bool = False
    keep_submodule_prefixes: bool = True
    strict: bool = True
    broadcast_from_rank0: bool = False
    flatten_optimizer_state_dict: bool = False
    dsd_fqn_modifiers: str = "_fqn_modifiers"


# ---- what wraps the model ------------------------------------------------------------
def _fsdp1():
    from ..fsdp import FullyShardedDataParallel
    return FullyShardedDataParallel


def _fsdp2():
    from ..fsdp._fully_shard import FSDPModule
    return FSDPModule


class _Model:
    """The model with its wrappers named: ``inner`` (DDP unwrapped),
    ``kind`` ("fsdp1", "fsdp2" or "plain")."""

    def __init__(self, model):
        from ...nn.parallel.distributed import DistributedDataParallel
        self.model = model
        self.inner = model.module if isinstance(model, DistributedDataParallel) else model
        mods = list(self.inner.modules())
        if any(isinstance(m, _fsdp1()) for m in mods):
            self.kind = "fsdp1"
        elif any(isinstance(m, _fsdp2()) for m in mods):
            self.kind = "fsdp2"
        else:
            self.kind = "plain"
        self._pieces = None

    def fsdp1_root(self):
        return _fsdp1().fsdp_modules(self.inner, root_only=True)[0]

    def pieces(self):
        """fully_shard: {clean key: (_State, _Param)} and {id(local piece): same}."""
        if self._pieces is None:
            by_key, by_id = {}, {}
            names = {id(m): (n + "." if n else "") for n, m in self.inner.named_modules()}
            for m in self.inner.modules():
                if isinstance(m, _fsdp2()):
                    st = m._fsdp_state
                    for sp in st.params:
                        by_id[id(sp.local)] = (st, sp)
                        for sub, name in sp.places():
                            by_key[names.get(id(sub), "") + name] = (st, sp)
            self._pieces = by_key, by_id
        return self._pieces

    def param_names(self):
        """{id(parameter the optimizer holds): [clean names]}."""
        if self.kind == "fsdp1":
            return self.fsdp1_root()._fqns()
        out = {}
        for name, p in self.inner.named_parameters(remove_duplicate=False):
            out.setdefault(id(p), []).append(name)
        return out

    def frozen(self):
        """Clean names of the parameters that do not require grad."""
        if self.kind == "fsdp1":
            root, out = self.fsdp1_root(), set()
            fqns = root._fqns()
            for h in root._handles():
                names = fqns[id(h.flat_param)]
                out.update(n for e, n in zip(h.entries, names) if not e.requires_grad)
            return out
        return {n for n, p in self.inner.named_parameters() if not p.requires_grad}


def _options(options):
    if options is None:
        return StateDictOptions()
    if not isinstance(options, StateDictOptions):
        raise TypeError(f"options must be a StateDictOptions, got {type(options).__name__}")
    return options


def _optims(optimizers):
    from ...optim.optimizer import Optimizer
    if isinstance(optimizers, Optimizer):
        return [optimizers]
    optims = list(optimizers)
    for o in optims:
        if not isinstance(o, Optimizer):
            raise TypeError(f"expected optimizers, got a {type(o).__name__}")
    return optims


def _rank():
    return dist.get_rank() if dist.is_initialized() else 0


def _gather_piece(piece, global_size, group):
    """The whole tensor from every rank's dim-0 piece (torch.chunk's cut)."""
    world = dist.get_world_size(group)
    rank = dist.get_rank(group)
    n = global_size[0]
    rows = -(-n // world) if n else 0
    row = 1
    for s in global_size[1:]:
        row *= s
    send = _C.zeros(rows * row, dtype=piece.dtype)
    lo, k = _shard_spec.dim0_piece(global_size, rank, world)
    if k:
        send[:k * row] = piece.detach().reshape(-1)
    out = _C.empty(world * rows * row, dtype=piece.dtype)
    dist.all_gather_into_tensor(out, send, group=group)
    return out.reshape((world * rows,) + tuple(global_size[1:]))[:n].clone()


def _piece_of(whole, rank, world):
    """Rank's dim-0 piece of ``whole``, recorded as such."""
    lo, k = _shard_spec.dim0_piece(tuple(whole.shape), rank, world)
    piece = whole.detach()[lo:lo + k].clone()
    return _shard_spec.tag(piece, tuple(whole.shape), (lo,) + (0,) * (whole.dim() - 1))


def _rank0_only(opts):
    return opts.full_state_dict and opts.cpu_offload and dist.is_initialized() and _rank() != 0


# ---- the model -----------------------------------------------------------------------
def get_model_state_dict(model, *, submodules=None, options=None):
    """The model's state dict under its original keys (see the module doc)."""
    opts = _options(options)
    if submodules is not None:
        raise NotImplementedError("get_model_state_dict: submodules= is not supported "
                                  "(deprecated in PyTorch)")
    w = _Model(model)
    with no_grad():
        if w.kind == "fsdp1":
            from ..fsdp import FullStateDictConfig, ShardedStateDictConfig, StateDictType
            if opts.full_state_dict:
                kind, cfg = StateDictType.FULL_STATE_DICT, FullStateDictConfig(
                    offload_to_cpu=opts.cpu_offload, rank0_only=opts.cpu_offload)
            else:
                kind, cfg = StateDictType.SHARDED_STATE_DICT, ShardedStateDictConfig(
                    offload_to_cpu=opts.cpu_offload)
            with _fsdp1().state_dict_type(w.inner, kind, cfg):
                sd = w.inner.state_dict()
        else:
            sd = w.inner.state_dict()
            if w.kind == "fsdp2" and opts.full_state_dict:
                by_key, _ = w.pieces()
                for k, (st, sp) in by_key.items():
                    if k in sd:
                        sd[k] = _gather_piece(sd[k], sp.shape, st.pg)
    if _rank0_only(opts):
        return {}
    out = {}
    frozen = w.frozen() if opts.ignore_frozen_params else ()
    for k, v in sd.items():
        if k in frozen:
            continue
        if isinstance(v, Tensor) and opts.cpu_offload and v.device.type != "cpu":
            v = v.cpu()
        out[k] = v
    return out


def _broadcast(obj):
    box = [obj]
    dist.broadcast_object_list(box, src=0)
    return box[0]


def set_model_state_dict(model, model_state_dict, *, options=None):
    """Load ``model_state_dict`` (original keys; pieces or whole tensors)
    into the model; returns the missing and unexpected keys."""
    opts = _options(options)
    if opts.broadcast_from_rank0 and dist.is_initialized():
        model_state_dict = _broadcast(model_state_dict if _rank() == 0 else None)
    w = _Model(model)
    sd = dict(model_state_dict)
    if w.kind == "fsdp1":
        from ..fsdp import StateDictType
        sharded = any(isinstance(v, Tensor) and _shard_spec.spec_of(v) is not None
                      for v in sd.values())
        kind = StateDictType.SHARDED_STATE_DICT if sharded else StateDictType.FULL_STATE_DICT
        with _fsdp1().state_dict_type(w.inner, kind):
            return w.inner.load_state_dict(sd, strict=opts.strict)
    if w.kind == "fsdp2":
        by_key, _ = w.pieces()
        for k, (st, sp) in by_key.items():
            v = sd.get(k)
            if isinstance(v, Tensor) and _shard_spec.spec_of(v) is None and \
                    tuple(v.shape) == sp.shape and sp.shape != tuple(sp.local.shape):
                sd[k] = _piece_of(v, st.rank, st.world)
    return w.inner.load_state_dict(sd, strict=opts.strict)


# ---- the optimizers ------------------------------------------------------------------
@no_grad()
def _init_optim_state(optim):
    """Give an optimizer that has not stepped its state: a step with zero
    gradients and a learning rate of 0 (as PyTorch does here)."""
    if optim.state:
        return
    params = [p for g in optim.param_groups for p in g["params"]]
    if any(p.grad is not None for p in params):
        return
    for p in params:
        if p.requires_grad:
            p.grad = _C.zeros_like(p)
    lrs = []
    for g in optim.param_groups:
        if "lr" in g:
            lrs.append(g["lr"])
            g["lr"] = _C.tensor(0.0) if isinstance(g["lr"], Tensor) else 0.0
    optim.step()
    for g in optim.param_groups:
        if "lr" in g:
            g["lr"] = lrs.pop(0)
    optim.zero_grad(set_to_none=True)


def _by_name(w, optim):
    """optim.state_dict() with parameter names for indices."""
    names = w.param_names()
    osd = optim.state_dict()
    order, seen = [], set()
    for g in optim.param_groups:
        for p in g["params"]:
            if id(p) not in seen:
                seen.add(id(p))
                order.append(p)
    name_of = {i: names[id(p)][0] for i, p in enumerate(order)}
    state = {name_of[i]: dict(v) for i, v in osd["state"].items()}
    groups = []
    for g in osd["param_groups"]:
        entry = {k: v for k, v in g.items() if k != "params"}
        entry["params"] = [name_of[i] for i in g["params"]]
        groups.append(entry)
    return {"state": state, "param_groups": groups}, order


def _fsdp1_optim(w, optim, opts):
    from ..fsdp import FullOptimStateDictConfig, FullStateDictConfig, StateDictType
    FSDP = _fsdp1()
    root = w.fsdp1_root()
    # whole on every rank whatever the user set (cut below when sharded)
    with FSDP.state_dict_type(w.inner, StateDictType.FULL_STATE_DICT, FullStateDictConfig(),
                              FullOptimStateDictConfig()):
        full = FSDP.optim_state_dict(w.inner, optim)
    if opts.full_state_dict:
        return full
    for st in full["state"].values():
        for k, v in st.items():
            if isinstance(v, Tensor) and v.dim() > 0:
                st[k] = _piece_of(v, root.rank, root.world_size)
    return full


def get_optimizer_state_dict(model, optimizers, *, submodules=None, options=None):
    """The optimizers' state keyed by parameter names (several optimizers:
    their states merged, their groups concatenated)."""
    opts = _options(options)
    if submodules is not None:
        raise NotImplementedError("get_optimizer_state_dict: submodules= is not supported")
    w = _Model(model)
    state, groups = {}, []
    for optim in _optims(optimizers):
        _init_optim_state(optim)
        if w.kind == "fsdp1":
            osd = _fsdp1_optim(w, optim, opts)
        else:
            osd, _ = _by_name(w, optim)
            if w.kind == "fsdp2":
                _, by_id = w.pieces()
                names = w.param_names()
                by_name = {names[i][0]: v for i, v in by_id.items() if i in names}
                for name, st in osd["state"].items():
                    if name not in by_name:
                        continue
                    s, sp = by_name[name]
                    lo = min(sp.dim0, s.rank * sp.rows)
                    for k, v in st.items():
                        if isinstance(v, Tensor) and tuple(v.shape) == tuple(sp.local.shape) \
                                and v.dim() > 0:
                            st[k] = _gather_piece(v, sp.shape, s.pg) if opts.full_state_dict \
                                else _shard_spec.tag(v, sp.shape,
                                                     (lo,) + (0,) * (len(sp.shape) - 1))
        state.update(osd["state"])
        groups.extend(osd["param_groups"])
    if _rank0_only(opts):
        return {}
    if opts.cpu_offload:
        for st in state.values():
            for k, v in st.items():
                if isinstance(v, Tensor) and v.device.type != "cpu":
                    st[k] = v.cpu()
    if opts.flatten_optimizer_state_dict:
        return _flatten_optim(state, groups)
    return {"state": state, "param_groups": groups}


def _flatten_optim(state, groups):
    """PyTorch's flat optimizer layout: ``state.<name>.<key>`` for each
    state value, ``param_groups.<name>.<key>`` for each parameter's group
    settings."""
    out = {}
    for name, st in state.items():
        for k, v in st.items():
            out[f"state.{name}.{k}"] = v
    for g in groups:
        for name in g["params"]:
            for k, v in g.items():
                if k != "params":
                    out[f"param_groups.{name}.{k}"] = v
    return out


def _unflatten_optim(flat, optims, names):
    """The nested layout of a flat optimizer state dict, for ``optims``
    (parameter names from ``names``)."""
    state, groups = {}, []
    for optim in optims:
        for g in optim.param_groups:
            mine = [n for p in g["params"] for n in names.get(id(p), [])]
            for n in mine:
                pre = f"state.{n}."
                st = {k[len(pre):]: v for k, v in flat.items() if k.startswith(pre)}
                if st:
                    state[n] = st
            pre = f"param_groups.{mine[0]}." if mine else None
            entry = {k[len(pre):]: v for k, v in flat.items() if pre and k.startswith(pre)}
            entry["params"] = mine
            groups.append(entry)
    return {"state": state, "param_groups": groups}


def _whole(v, group):
    """A state tensor whole: gathered if it is a recorded piece."""
    spec = _shard_spec.spec_of(v) if isinstance(v, Tensor) else None
    if spec is None:
        return v
    return _gather_piece(v, spec.global_size, group)


def set_optimizer_state_dict(model, optimizers, optim_state_dict, *, options=None):
    """Load ``optim_state_dict`` (keyed by parameter names, as
    get_optimizer_state_dict gives) into the optimizers."""
    opts = _options(options)
    if opts.broadcast_from_rank0 and dist.is_initialized():
        optim_state_dict = _broadcast(optim_state_dict if _rank() == 0 else None)
    w = _Model(model)
    if opts.flatten_optimizer_state_dict or (optim_state_dict and "state" not in
                                             optim_state_dict and "param_groups" not in
                                             optim_state_dict):
        optim_state_dict = _unflatten_optim(optim_state_dict, _optims(optimizers),
                                            w.param_names())
    saved_state = optim_state_dict.get("state", {})
    saved_groups = optim_state_dict.get("param_groups", [])
    with no_grad():
        for optim in _optims(optimizers):
            _init_optim_state(optim)
            names = w.param_names()
            if w.kind == "fsdp1":
                root = w.fsdp1_root()
                mine = [n for g in optim.param_groups for p in g["params"]
                        for n in names.get(id(p), [])]
                full = {"state": {n: {k: _whole(v, root.process_group)
                                      for k, v in saved_state[n].items()}
                                  for n in mine if n in saved_state},
                        "param_groups": _match_groups(optim, saved_groups, names)}
                optim.load_state_dict(_fsdp1().optim_state_dict_to_load(w.inner, optim, full))
                continue
            osd, order = _by_name(w, optim)
            by_id = w.pieces()[1] if w.kind == "fsdp2" else {}
            state = {}
            for i, p in enumerate(order):
                name = names[id(p)][0]
                if name not in saved_state:
                    continue
                st = dict(saved_state[name])
                if id(p) in by_id:
                    s, sp = by_id[id(p)]
                    for k, v in st.items():
                        if isinstance(v, Tensor) and _shard_spec.spec_of(v) is None and \
                                v.dim() > 0 and tuple(v.shape) == sp.shape and \
                                sp.shape != tuple(sp.local.shape):
                            st[k] = _piece_of(v, s.rank, s.world)
                state[i] = st
            groups = _match_groups(optim, saved_groups, names)
            index = {n: i for i, p in enumerate(order) for n in names[id(p)][:1]}
            for g in groups:
                g["params"] = [index[n] for n in g["params"]]
            optim.load_state_dict({"state": state, "param_groups": groups})


def _match_groups(optim, saved_groups, names):
    """For each of the optimizer's groups, the saved group holding its
    parameters (its hyperparameters, the names of its parameters)."""
    out = []
    for g in optim.param_groups:
        mine = [names[id(p)][0] for p in g["params"]]
        src = next((s for s in saved_groups if mine and mine[0] in s.get("params", ())), None)
        if src is None:
            raise ValueError(f"the optimizer state dict has no parameter group holding "
                             f"{mine[0] if mine else 'an empty group'}")
        entry = {k: v for k, v in src.items() if k != "params"}
        entry["params"] = mine
        out.append(entry)
    return out


# ---- both ----------------------------------------------------------------------------
def get_state_dict(model, optimizers, *, submodules=None, options=None):
    """(get_model_state_dict(model), get_optimizer_state_dict(model, optimizers))."""
    return (get_model_state_dict(model, submodules=submodules, options=options),
            get_optimizer_state_dict(model, optimizers, submodules=submodules,
                                     options=options))


def set_state_dict(model, optimizers, *, model_state_dict, optim_state_dict, options=None):
    """Load both; returns the model's missing and unexpected keys."""
    keys = set_model_state_dict(model, model_state_dict, options=options)
    # with broadcast_from_rank0 the other ranks pass {} and still take part
    if optim_state_dict or _options(options).broadcast_from_rank0:
        set_optimizer_state_dict(model, optimizers, optim_state_dict, options=options)
    return keys
