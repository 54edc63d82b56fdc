"""Optimizer state of FSDP models keyed by the original parameters' names.

The optimizer holds state for what it steps: flat shards (each state tensor
of the shard's length) or, with use_orig_params, the 1-D views of the
original parameters into the shard.  ``full_optim_state_dict`` rebuilds a
unit's local flat state (zeros in the padding and where a view holds no
state), all-gathers it and cuts it into whole per-parameter tensors;
``to_load`` does the reverse with no communication.  A state entry that is
a 0-d tensor or a number (Adam's ``step``) is the same on every rank and
is copied.  Which keys a unit's state has is agreed between ranks first
(one all_gather_object), since a rank whose views are all empty holds none."""
import copy

from ... import _C
from ... import distributed as dist
from ...autograd.grad_mode import no_grad

Tensor = _C.Tensor


def _is_flat_state(v):
    return isinstance(v, Tensor) and v.dim() > 0


def _handle_params(h):
    return [h.flat_param] if not h.use_orig_params else [e.orig for e in h.entries]


class _States:
    """The optimizer's per-parameter state: ``optim.state``, or a given
    ``optim.state_dict()`` (keyed by position in the parameter groups)."""

    def __init__(self, optim, osd):
        self.optim, self.by_id = optim, None
        if osd is not None:
            params = [p for g in optim.param_groups for p in g["params"]]
            self.by_id = {id(p): osd["state"].get(i, osd["state"].get(str(i), {}))
                          for i, p in enumerate(params)}

    def get(self, p, default=None):
        if self.by_id is None:
            return self.optim.state.get(p, default)
        return self.by_id.get(id(p), default)


def _local_flat(h, states, key, dtype):
    """The unit's flat state ``key`` on this rank (shard length)."""
    if not h.use_orig_params:
        return states.get(h.flat_param)[key].detach().to(dtype).reshape(-1)
    out = _C.zeros(h.chunk, dtype=dtype)
    for e in h.entries:
        a, b = e.local
        st = states.get(e.orig, {})
        if b > a and key in st:
            out[a:b] = st[key].detach().reshape(-1)
    return out


def _schema(model, states):
    """{unit index: {key: ("flat", dtype name) | ("scalar", value)}} agreed by all ranks."""
    handles = model._handles()
    mine = {}
    for i, h in enumerate(handles):
        keys = {}
        for p in _handle_params(h):
            for k, v in states.get(p, {}).items():
                if _is_flat_state(v):
                    keys[k] = ("flat", str(v.dtype))
                elif k not in keys:
                    keys[k] = ("scalar", v)
        mine[i] = keys
    every = [None] * model.world_size
    if model.world_size > 1:
        dist.all_gather_object(every, mine, group=model.process_group)
    else:
        every = [mine]
    out = {}
    for per_rank in every:
        for i, keys in per_rank.items():
            for k, v in keys.items():
                out.setdefault(i, {}).setdefault(k, v)
    return handles, out


def _dtype(name):
    return getattr(_C, name.split(".")[-1])


def _scalar_copy(v):
    return v.detach().clone() if isinstance(v, Tensor) else copy.deepcopy(v)


@no_grad()
def full_optim_state_dict(model, optim, optim_state_dict=None):
    states = _States(optim, optim_state_dict)
    handles, schema = _schema(model, states)
    fqns = model._fqns()
    state = {}
    for i, h in enumerate(handles):
        per_param = {}
        for key, (kind, info) in schema.get(i, {}).items():
            if kind == "scalar":
                for e in h.entries:
                    per_param.setdefault(e, {})[key] = _scalar_copy(info)
                continue
            dtype = _dtype(info)
            local = _local_flat(h, states, key, dtype).contiguous()
            if h.sharded:
                full = _C.empty(h.padded, dtype=dtype)
                dist.all_gather_into_tensor(full, local, group=h.pg)
            else:
                full = local
            for e in h.entries:
                per_param.setdefault(e, {})[key] = \
                    full[e.offset:e.offset + e.numel].reshape(e.shape).clone()
        names = fqns[id(h.flat_param)]
        for e, name in zip(h.entries, names):
            if e in per_param:
                state[name] = per_param[e]
    cfg = model._optim_state_dict_config
    groups = []
    for g in optim.param_groups:
        entry = {k: copy.deepcopy(v) for k, v in g.items() if k != "params"}
        names = []
        for p in g["params"]:
            names.extend(fqns.get(id(p), [_plain_name(model, p)]))
        entry["params"] = names
        groups.append(entry)
    if getattr(cfg, "rank0_only", False) and model.rank != 0:
        return {}
    return {"state": state, "param_groups": groups}


def _plain_name(model, p):
    for name, q in model.named_parameters():
        if q is p:
            return name.replace("_fsdp_wrapped_module.", "")
    raise ValueError("a parameter of the optimizer is not a parameter of the model")


@no_grad()
def to_load(model, optim, osd):
    fqns = model._fqns()
    full_state = osd.get("state", {})
    index = {}
    param_groups = optim.param_groups if optim is not None else \
        [{"params": list(model.parameters())}]
    for g in param_groups:
        for p in g["params"]:
            index[id(p)] = len(index)
    state = {}
    for h in model._handles():
        names = fqns[id(h.flat_param)]
        sts = [full_state.get(n, {}) for n in names]
        keys = []
        for st in sts:
            keys.extend(k for k in st if k not in keys)
        if not keys:
            continue
        local = {}
        for key in keys:
            sample = next(st[key] for st in sts if key in st)
            if not _is_flat_state(sample):
                local[key] = ("scalar", _scalar_copy(sample))
                continue
            flat = _C.zeros(h.padded, dtype=sample.dtype)
            for e, st in zip(h.entries, sts):
                if key in st:
                    flat[e.offset:e.offset + e.numel] = st[key].reshape(-1).to(sample.dtype)
            local[key] = ("flat", flat[h.start:h.start + h.chunk])
        if not h.use_orig_params:
            if id(h.flat_param) in index:
                state[index[id(h.flat_param)]] = {
                    k: (v.clone() if kind == "flat" else _scalar_copy(v))
                    for k, (kind, v) in local.items()}
            continue
        for e in h.entries:
            a, b = e.local
            if b <= a or id(e.orig) not in index:
                continue
            state[index[id(e.orig)]] = {
                k: (v[a:b].clone() if kind == "flat" else _scalar_copy(v))
                for k, (kind, v) in local.items()}
    groups = []
    osd_groups = osd.get("param_groups", [])
    for j, g in enumerate(param_groups):
        src = osd_groups[j] if j < len(osd_groups) else {}
        entry = {k: copy.deepcopy(v) for k, v in src.items() if k != "params"}
        for k, v in g.items():
            if k != "params":
                entry.setdefault(k, v)
        entry["params"] = [index[id(p)] for p in g["params"]]
        groups.append(entry)
    return {"state": state, "param_groups": groups}
