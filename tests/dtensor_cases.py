"""DTensor cases run by 4 ranks under PyTorch (scripts/golden_dtensor.py
records tests/golden/dtensor.json) and under torchlike
(tests/test_dtensor.py compares).  ``lib`` is torch or torchlike.

Meshes: ``m4`` (1-D, the 4 ranks), ``m22`` (2x2, names "dp", "tp") and its
slice ``m22["tp"]`` (1-D, 2 ranks).  Every case returns plain data (local
shapes, local values as lists, placements as reprs, error types)."""

from device_mesh_cases import err  # [type name, message] of what fn() raises, or "OK"

WORLD = 4

SHAPES = [(5, 6), (3, 7), (1, 4), (0, 3), (8, 4)]




def meshes(lib):
    dm = lib.distributed.device_mesh
    m4 = dm.init_device_mesh("cpu", (WORLD,))
    m22 = dm.init_device_mesh("cpu", (2, 2), mesh_dim_names=("dp", "tp"))
    return {"m4": m4, "m22": m22, "m2": m22["tp"]}


def base(lib, shape):
    n = 1
    for s in shape:
        n *= s
    return (lib.arange(n, dtype=lib.float64).reshape(shape) * 0.5 - 3.0)


def desc(t):
    """What one rank sees of DTensor ``t``."""
    loc = t.to_local()
    return {"placements": [repr(p) for p in t.placements], "shape": list(t.shape),
            "local_shape": list(loc.shape), "local": loc.detach().tolist()}


def _pl(dt_mod, names):
    out = []
    for n in names:
        if n == "R":
            out.append(dt_mod.Replicate())
        elif n == "P":
            out.append(dt_mod.Partial())
        else:
            out.append(dt_mod.Shard(int(n[1:])))
    return out


def _make(lib, dt_mod, mesh, shape, names, rank):
    """A DTensor of global value base(shape) laid out by ``names``; a Partial
    one holds base * (k + 1) / S on the rank of coordinate k (S: the sum of
    k + 1), so its value is base."""
    x = base(lib, shape)
    if "P" not in names:
        return dt_mod.distribute_tensor(x, mesh, _pl(dt_mod, names))
    rep = ["R" if n == "P" else n for n in names]
    d = dt_mod.distribute_tensor(x, mesh, _pl(dt_mod, rep))
    loc = d.to_local()
    for k, n in enumerate(names):
        if n == "P":
            c, size = mesh.get_local_rank(k), mesh.size(k)
            loc = loc * (c + 1) / (size * (size + 1) / 2)
    return dt_mod.DTensor.from_local(loc, mesh, _pl(dt_mod, names), shape=d.shape,
                                     stride=d.stride())


def run_layouts(lib, rank):
    """Local shapes and values of uneven Shard on 1-D and 2-D meshes."""
    dt = lib.distributed.tensor
    ms = meshes(lib)
    out = {}
    for shape in SHAPES:
        key = "x".join(map(str, shape))
        for mname, lays in (("m4", [["S0"], ["S1"], ["R"]]), ("m2", [["S0"], ["S1"]]),
                            ("m22", [["S0", "S1"], ["S0", "S0"], ["S1", "R"], ["R", "S0"]])):
            for names in lays:
                d = dt.distribute_tensor(base(lib, shape), ms[mname], _pl(dt, names))
                out[f"{mname}.{key}.{''.join(names)}"] = desc(d)
    return out


PAIRS_1D = [(a, b) for a in ("S0", "S1", "R", "P") for b in ("S0", "S1", "R", "P")
            if a != b and not (b == "P" and a[0] != "S")]
PAIRS_2D = [("S0S1", "RR"), ("S0S0", "RS1"), ("PS0", "RR"), ("S1S0", "S0S1"),
            ("RR", "S0S0"), ("PP", "S0R"), ("S0S0", "S1S1"), ("S1S0", "PS0")]


def _names(s):
    out, i = [], 0
    while i < len(s):
        if s[i] == "S":
            out.append(s[i:i + 2])
            i += 2
        else:
            out.append(s[i])
            i += 1
    return out


def run_redistribute(lib, rank):
    """Every 1-D transition on 4 and 2 ranks (uneven shapes) and some 2-D
    ones: placements and local values after, and the full tensor."""
    dt = lib.distributed.tensor
    ms = meshes(lib)
    out = {}
    for mname in ("m4", "m2"):
        for shape in ((5, 6), (3, 2)):
            for a, b in PAIRS_1D:
                d = _make(lib, dt, ms[mname], shape, [a], rank)
                r = d.redistribute(ms[mname], _pl(dt, [b]))
                out[f"{mname}.{shape[0]}x{shape[1]}.{a}->{b}"] = desc(r)
    for a, b in PAIRS_2D:
        d = _make(lib, dt, ms["m22"], (5, 6), _names(a), rank)
        r = d.redistribute(ms["m22"], _pl(dt, _names(b)))
        out[f"m22.{a}->{b}"] = dict(desc(r), full=r.full_tensor().tolist())
    return out


def run_ops(lib, rank):
    """Placements, global shapes and local values of op results."""
    dt = lib.distributed.tensor
    F = lib.nn.functional
    ms = meshes(lib)
    m = ms["m4"]
    out = {}

    def mk(shape, names, mesh=m):
        return _make(lib, dt, mesh, shape, names, rank)

    cases = {
        "add_S0_S0": lambda: mk((8, 4), ["S0"]) + mk((8, 4), ["S0"]),
        "add_S0_R": lambda: mk((8, 4), ["S0"]) + mk((8, 4), ["R"]),
        "add_S1_bias": lambda: mk((8, 4), ["S1"]) + mk((4,), ["R"]),
        "add_S0_bias": lambda: mk((8, 4), ["S0"]) + mk((4,), ["R"]),
        "mul_S0_scalar": lambda: mk((5, 6), ["S0"]) * 2.5,
        "rsub_S1_scalar": lambda: 1.0 - mk((5, 6), ["S1"]),
        "mul_P_scalar": lambda: mk((5, 6), ["P"]) * 3.0,
        "add_P_P": lambda: mk((5, 6), ["P"]) + mk((5, 6), ["P"]),
        "neg_P": lambda: -mk((5, 6), ["P"]),
        "exp_P": lambda: mk((5, 6), ["P"]).exp(),
        "relu_S0": lambda: lib.relu(mk((5, 6), ["S0"])),
        "gelu_S1": lambda: F.gelu(mk((5, 6), ["S1"])),
        "add_P_scalar": lambda: mk((5, 6), ["P"]) + 1.0,
        "mm_R_S1": lambda: lib.mm(mk((5, 6), ["R"]), mk((6, 8), ["S1"])),
        "mm_S1_S0": lambda: lib.mm(mk((5, 8), ["S1"]), mk((8, 6), ["S0"])),
        "mm_S0_R": lambda: lib.mm(mk((5, 6), ["S0"]), mk((6, 4), ["R"])),
        "matmul_3d_R_S1": lambda: lib.matmul(mk((2, 3, 4), ["R"]), mk((4, 8), ["S1"])),
        "matmul_3d_S2_S0": lambda: lib.matmul(mk((2, 3, 8), ["S2"]), mk((8, 6), ["S0"])),
        "linear_colwise": lambda: F.linear(mk((5, 6), ["R"]), mk((8, 6), ["S0"]),
                                           mk((8,), ["S0"])),
        "linear_rowwise": lambda: F.linear(mk((5, 8), ["S1"]), mk((6, 8), ["S1"])),
        "addmm_R_S1": lambda: lib.addmm(mk((8,), ["S0"]), mk((5, 6), ["R"]),
                                        mk((6, 8), ["S1"])),
        "sum_all_S0": lambda: mk((5, 6), ["S0"]).sum(),
        "sum_d0_S0": lambda: mk((5, 6), ["S0"]).sum(0),
        "sum_d1_S0": lambda: mk((5, 6), ["S0"]).sum(1),
        "sum_d1_keep_S0": lambda: mk((5, 6), ["S0"]).sum(1, keepdim=True),
        "sum_d0_P": lambda: mk((5, 6), ["P"]).sum(0),
        "mean_d1_S1": lambda: mk((8, 4), ["S1"]).mean(1),
        "mean_d0_S1": lambda: mk((8, 4), ["S1"]).mean(0),
        "view_S0_merge": lambda: mk((8, 3, 2), ["S0"]).view(8, 6),
        "view_S0_flatten_even": lambda: mk((8, 3, 2), ["S0"]).reshape(48),
        "view_S1_keep": lambda: mk((2, 8, 3), ["S1"]).reshape(2, 8, 3, 1),
        "view_S0_split": lambda: mk((8, 6), ["S0"]).view(4, 2, 6),
        "transpose_S0": lambda: mk((5, 6), ["S0"]).transpose(0, 1),
        "t_S1": lambda: mk((5, 6), ["S1"]).t(),
        "permute_S2": lambda: mk((2, 3, 8), ["S2"]).permute(2, 0, 1),
        "unsqueeze_S1": lambda: mk((5, 6), ["S1"]).unsqueeze(0),
        "softmax_S0_d1": lambda: lib.softmax(mk((8, 4), ["S0"]), 1),
        "zeros_like_S0": lambda: lib.zeros_like(mk((5, 6), ["S0"])),
        "2d_add": lambda: mk((5, 6), ["S0", "S1"], ms["m22"]) * 2 + 1,
        "2d_mm": lambda: lib.mm(mk((4, 6), ["S0", "R"], ms["m22"]),
                                mk((6, 8), ["R", "S1"], ms["m22"])),
        "2d_sum": lambda: mk((4, 6), ["S0", "S1"], ms["m22"]).sum(1),
    }
    for name, fn in cases.items():
        r = fn()
        out[name] = dict(desc(r), full=r.full_tensor().tolist())
    # ops outside the rules: values only (the placements are the library's choice)
    values = {
        "cumsum_S0_d0": lambda: lib.cumsum(mk((5, 6), ["S0"]), 0),
        "cumsum_S0_d1": lambda: lib.cumsum(mk((5, 6), ["S0"]), 1),
        "amax_S0": lambda: mk((8, 6), ["S0"]).amax(1),
        "getitem_S0": lambda: mk((5, 6), ["S0"])[1:4, ::2],
        "cat_S1": lambda: lib.cat([mk((5, 6), ["S1"]), mk((5, 6), ["S1"])], 0),
    }
    for name, fn in values.items():
        r = fn()
        out["values." + name] = {"shape": list(r.shape), "full": r.full_tensor().tolist()}
    out["meta"] = _meta(lib, mk((5, 6), ["S1"]))
    out["factories"] = _factories(lib, dt, m)
    return out


def _meta(lib, d):
    return {"shape": list(d.shape), "size1": d.size(1), "dim": d.dim(), "ndim": d.ndim,
            "numel": d.numel(), "len": len(d), "dtype": str(d.dtype).split(".")[-1],
            "stride": list(d.stride()), "requires_grad": d.requires_grad,
            "is_dtensor": type(d).__name__}


def _factories(lib, dt, m):
    out = {}
    for name, fn in (("zeros", lambda: dt.zeros(5, 3, device_mesh=m, placements=[dt.Shard(0)])),
                     ("ones", lambda: dt.ones((3, 5), device_mesh=m, placements=[dt.Shard(1)])),
                     ("full", lambda: dt.full((2, 5), 7.0, device_mesh=m,
                                              placements=[dt.Replicate()])),
                     ("empty", lambda: dt.empty(6, 2, device_mesh=m, placements=[dt.Shard(0)])),
                     ("linspace", lambda: dt.linspace(-1.0, 2.0, 10, dtype=lib.float64,
                                                      device_mesh=m, placements=[dt.Shard(0)])),
                     ("logspace", lambda: dt.logspace(0.0, 1.0, 6, 2.0, dtype=lib.float64,
                                                      device_mesh=m,
                                                      placements=[dt.Replicate()]))):
        d = fn()
        rec = {"placements": [repr(p) for p in d.placements], "shape": list(d.shape),
               "local_shape": list(d.to_local().shape), "dtype": str(d.dtype).split(".")[-1]}
        if name != "empty":
            rec["local"] = d.to_local().tolist()
        out[name] = rec
    return out


def _g(t):
    return None if t is None else t.tolist()


def run_grads(lib, rank):
    """Gradients through from_local / to_local / redistribute and ops: the
    local gradients of plain inputs and the placements of DTensor leaves'
    gradients.  The data depend only on fixed numbers (every rank the same
    replicated inputs)."""
    dt = lib.distributed.tensor
    F = lib.nn.functional
    m = meshes(lib)["m4"]
    out = {}
    R, S0, S1, P = dt.Replicate(), dt.Shard(0), dt.Shard(1), dt.Partial()

    # colwise linear on a replicated input, loss on the gathered output
    x = base(lib, (3, 6)).requires_grad_()
    w = dt.distribute_tensor(base(lib, (8, 6)) * 0.1, m, [S0]).requires_grad_()
    y = F.linear(dt.DTensor.from_local(x, m, [R]), w)
    (y.full_tensor() ** 2).sum().backward()
    out["colwise"] = {"y": [repr(p) for p in y.placements], "x_grad": _g(x.grad),
                      "w_grad": [repr(p) for p in w.grad.placements],
                      "w_grad_local": _g(w.grad.to_local())}

    # rowwise: Shard(1) input piece times Shard(1) weight -> Partial -> Replicate
    xl = (base(lib, (3, 8)).chunk(WORLD, 1)[rank]).clone().requires_grad_()
    w = dt.distribute_tensor(base(lib, (5, 8)) * 0.1, m, [S1]).requires_grad_()
    b = dt.distribute_tensor(base(lib, (5,)), m, [R]).requires_grad_()
    y = F.linear(dt.DTensor.from_local(xl, m, [S1]), w, b)
    z = y.redistribute(m, [R])
    (z.to_local() ** 2).sum().backward()
    out["rowwise"] = {"y": [repr(p) for p in y.placements], "x_grad": _g(xl.grad),
                      "w_grad": [repr(p) for p in w.grad.placements],
                      "w_grad_local": _g(w.grad.to_local()),
                      "b_grad": [repr(p) for p in b.grad.placements],
                      "b_grad_local": _g(b.grad.to_local())}

    # redistribute backward: Shard -> Replicate, Partial -> Replicate, Shard -> Shard
    for name, src, dst in (("S0->R", [S0], [R]), ("P->R", [P], [R]), ("S0->S1", [S0], [S1]),
                           ("R->S0", [R], [S0]), ("P->S1", [P], [S1])):
        t = (base(lib, (5, 6)) * (rank + 1)).requires_grad_()
        if src == [S0]:
            t = t.detach()[rank * 2:rank * 2 + 2].clone().requires_grad_() if rank < 3 else \
                t.detach()[5:5].clone().requires_grad_()
            d = dt.DTensor.from_local(t, m, src, shape=(5, 6), stride=(6, 1))
        else:
            d = dt.DTensor.from_local(t, m, src)
        r = d.redistribute(m, dst)
        loc = r.to_local()
        (loc * base(lib, tuple(loc.shape))).sum().backward()
        out["redistribute." + name] = _g(t.grad)

    # to_local of a replicated DTensor, loss computed on every rank
    t = base(lib, (4, 3)).requires_grad_()
    d = dt.DTensor.from_local(t, m, [R])
    (d.to_local().sin() * 2).sum().backward()
    out["to_local_R"] = _g(t.grad)
    # to_local of a Partial DTensor
    t = (base(lib, (4, 3)) * (rank + 1)).requires_grad_()
    d = dt.DTensor.from_local(t, m, [P])
    (d.to_local() * 3).sum().backward()
    out["to_local_P"] = _g(t.grad)
    # a sum over the sharded dim (Partial) then full_tensor
    t = base(lib, (8, 3)).chunk(WORLD, 0)[rank].clone().requires_grad_()
    d = dt.DTensor.from_local(t, m, [S0])
    s = (d * d).sum(0)
    s.full_tensor().sum().backward()
    out["sum_partial"] = {"s": [repr(p) for p in s.placements], "grad": _g(t.grad)}
    # distribute_tensor leaf gradient through a pointwise op and full_tensor
    leaf = dt.distribute_tensor(base(lib, (5, 6)), m, [S1]).requires_grad_()
    (leaf.exp() * 0.5).full_tensor().sum().backward()
    out["leaf_S1"] = {"placements": [repr(p) for p in leaf.grad.placements],
                      "local": _g(leaf.grad.to_local())}
    # mean over an evenly sharded dim (Partial(avg)) and Shard -> Partial
    t = base(lib, (8, 4)).chunk(WORLD, 1)[rank].clone().requires_grad_()
    s = dt.DTensor.from_local(t, m, [S1]).mean(1)
    (s.full_tensor() * base(lib, (8,))).sum().backward()
    out["mean_avg"] = {"s": [repr(p) for p in s.placements], "grad": _g(t.grad)}
    t = base(lib, (8, 4)).chunk(WORLD, 0)[rank].clone().requires_grad_()
    s = dt.DTensor.from_local(t, m, [S0]).redistribute(m, [P])
    (s.full_tensor() * base(lib, (8, 4))).sum().backward()
    out["shard_to_partial"] = {"local": _g(s.to_local()), "grad": _g(t.grad)}
    leaf = dt.distribute_tensor(base(lib, (5, 6)), m, [R]).requires_grad_()
    d = leaf.redistribute(m, [S0])
    (d.to_local() ** 2).sum().backward()
    out["leaf_R_to_S0"] = {"placements": [repr(p) for p in leaf.grad.placements],
                           "local": _g(leaf.grad.to_local())}
    return out


def run_errors(lib, rank):
    """The errors of misuse: exception types and messages."""
    dt = lib.distributed.tensor
    ms = meshes(lib)
    m4, m2 = ms["m4"], ms["m2"]
    x = base(lib, (4, 6))
    out = {
        "placements_too_long": err(lambda: dt.distribute_tensor(x, m4, [dt.Shard(0),
                                                                         dt.Replicate()])),
        "shard_dim_out_of_range": err(lambda: dt.distribute_tensor(x, m4, [dt.Shard(2)])),
        "from_local_too_long": err(lambda: dt.DTensor.from_local(x, m4, [dt.Shard(0),
                                                                         dt.Shard(1)])),
        "from_local_dtensor": err(lambda: dt.DTensor.from_local(
            dt.distribute_tensor(x, m4, [dt.Shard(0)]), m4, [dt.Shard(0)])),
        "cross_mesh": err(lambda: dt.distribute_tensor(x, m4, [dt.Replicate()]) +
                          dt.distribute_tensor(x, m2, [dt.Replicate()])),
        "mixed_tensor": err(lambda: dt.distribute_tensor(x, m4, [dt.Shard(0)]) + x),
        "run_check_shapes": err(lambda: dt.DTensor.from_local(
            base(lib, (rank + 1, 3)), m4, [dt.Shard(0)], run_check=True)),
        "shape_without_stride": err(lambda: dt.DTensor.from_local(x, m4, [dt.Shard(0)],
                                                                  shape=(16, 6))),
        "redistribute_too_long": err(lambda: dt.distribute_tensor(x, m4, [dt.Shard(0)])
                                     .redistribute(m4, [dt.Replicate(), dt.Replicate()])),
        "distribute_other_placements": err(lambda: dt.distribute_tensor(
            dt.distribute_tensor(x, m4, [dt.Shard(0)]), m4, [dt.Shard(1)])),
    }
    return out


def make_mlp(lib, hidden):
    """Linear(6, hidden), ReLU, Linear(hidden, 6) in float64 with fixed
    weights (the two libraries' generators differ)."""
    m = lib.nn.Sequential(lib.nn.Linear(6, hidden), lib.nn.ReLU(),
                          lib.nn.Linear(hidden, 6)).double()
    with lib.no_grad():
        for i, p in enumerate(m.parameters()):
            p.copy_((base(lib, tuple(p.shape)) * (0.37 + 0.11 * i)).sin() * 0.5)
    return m


def run_parallel(lib, rank):
    """parallelize_module: each parameter's placements and local shape,
    the output's type, for colwise+rowwise on 4 and 2 ranks, with
    use_local_output=False, and SequenceParallel on a LayerNorm."""
    dt = lib.distributed.tensor
    tp = lib.distributed.tensor.parallel
    ms = meshes(lib)
    out = {}
    x = base(lib, (3, 6)) * 0.1
    for mname in ("m4", "m2"):
        model = make_mlp(lib, 8)
        tp.parallelize_module(model, ms[mname], {"0": tp.ColwiseParallel(),
                                                 "2": tp.RowwiseParallel()})
        y = model(x)
        out[mname] = {"params": {n: [[repr(q) for q in p.placements], list(p.shape),
                                     list(p.to_local().shape), type(p).__name__,
                                     isinstance(p, lib.nn.Parameter)]
                                 for n, p in model.named_parameters()},
                      "out_type": type(y).__name__, "out": y.detach().tolist()}
    model = make_mlp(lib, 8)
    tp.parallelize_module(model, ms["m4"], {"0": tp.ColwiseParallel(use_local_output=False),
                                            "2": tp.RowwiseParallel(
                                                use_local_output=False,
                                                output_layouts=dt.Shard(0))})
    h = model[0](x)
    y = model(x)
    out["dtensor_outputs"] = {"h": [repr(p) for p in h.placements], "h_shape": list(h.shape),
                              "y": [repr(p) for p in y.placements], "y_shape": list(y.shape),
                              "y_local": y.to_local().detach().tolist()}
    norm = lib.nn.LayerNorm(6).double()
    tp.parallelize_module(norm, ms["m4"], tp.SequenceParallel(sequence_dim=0))
    xs = base(lib, (8, 6)).chunk(WORLD, 0)[rank].clone().requires_grad_()
    y = norm(xs)
    (y.to_local() * base(lib, tuple(y.to_local().shape)).cos()).sum().backward()
    out["sequence_parallel"] = {"y": [repr(p) for p in y.placements], "shape": list(y.shape),
                                "local": y.to_local().detach().tolist(),
                                "weight": [repr(p) for p in norm.weight.placements],
                                "x_grad": _g(xs.grad),
                                "weight_grad": _g(norm.weight.grad.full_tensor())}
    emb = lib.nn.Embedding(8, 4).double()
    tp.parallelize_module(emb, ms["m4"], tp.ColwiseParallel())
    out["embedding_colwise"] = [repr(p) for p in emb.weight.placements]
    out["errors"] = {
        "colwise_on_relu": err(lambda: tp.parallelize_module(lib.nn.ReLU(), ms["m4"],
                                                             tp.ColwiseParallel())),
        "2d_mesh": err(lambda: tp.parallelize_module(lib.nn.Linear(4, 4), ms["m22"],
                                                     tp.ColwiseParallel())),
    }
    out["reprs"] = [repr(tp.ColwiseParallel()), repr(tp.RowwiseParallel()),
                    repr(dt.Shard(1)), str(dt.Shard(1)), repr(dt.Replicate()),
                    str(dt.Replicate()), repr(dt.Partial()), str(dt.Partial())]
    return out


def run_all(lib, rank):
    return {"layouts": run_layouts(lib, rank), "redistribute": run_redistribute(lib, rank),
            "ops": run_ops(lib, rank), "grads": run_grads(lib, rank),
            "errors": run_errors(lib, rank), "parallel": run_parallel(lib, rank),
            "loss": run_loss_parallel(lib, rank), "comm": run_comm_counts(lib, rank)}


# ---- loss_parallel and CommDebugMode (appended: run_all's "loss" and "comm" parts) -----------

def _loss_inputs(lib):
    x = (lib.arange(50, dtype=lib.float64).reshape(5, 10) * 0.37).sin() * 3.0
    return x, lib.tensor([1, 9, 0, 3, 7])


def _round(v, digits):
    if isinstance(v, list):
        return [_round(a, digits) for a in v]
    return v if digits is None else round(v, digits)


def _loss_case(lib, make_logits, target, digits=None, **kw):
    """cross_entropy inside loss_parallel on the logits make_logits() gives
    (a leaf DTensor): the loss's placements, shape and local value, the
    logits gradient's placements and local value (rounded to ``digits``
    places: float32 sums differ in their last bits)."""
    F = lib.nn.functional
    lp = lib.distributed.tensor.parallel.loss_parallel
    d = make_logits()
    with lp():
        loss = F.cross_entropy(d, target, **kw)
        (loss.sum() if loss.ndim else loss).backward()
    return {"placements": [repr(p) for p in loss.placements], "shape": list(loss.shape),
            "dtype": str(loss.dtype).split(".")[-1],
            "local": _round(loss.to_local().detach().tolist(), digits),
            "grad_placements": [repr(p) for p in d.grad.placements],
            "grad_local": _round(d.grad.to_local().tolist(), digits)}


def run_loss_parallel(lib, rank):
    """loss_parallel(): cross_entropy (and CrossEntropyLoss, log_softmax,
    nll_loss) on logits sharded on the class dim, on 4 ranks (10 classes:
    pieces of 3, 3, 3, 1) and on the 2x2 mesh; and its refusals."""
    dt = lib.distributed.tensor
    tp = lib.distributed.tensor.parallel
    F = lib.nn.functional
    ms = meshes(lib)
    m4, m22 = ms["m4"], ms["m22"]
    x, t = _loss_inputs(lib)
    S0, S1, R = dt.Shard(0), dt.Shard(1), dt.Replicate()
    w = lib.arange(1, 11, dtype=lib.float64) * 0.25

    def logits(mesh=m4, pl=(S1,), value=x):
        return lambda: dt.distribute_tensor(value, mesh, list(pl)).requires_grad_()
    x3 = (lib.arange(60, dtype=lib.float64).reshape(2, 10, 3) * 0.3).cos() * 2.0
    t3 = lib.tensor([[1, 9, 0], [3, 7, 7]])
    out = {}
    for red in ("mean", "sum", "none"):
        out[red] = _loss_case(lib, logits(), t, reduction=red)
        out["weight_ignore_" + red] = _loss_case(lib, logits(), t, weight=w, ignore_index=9,
                                                 reduction=red)
        out["3d_" + red] = _loss_case(lib, logits(pl=(S1,), value=x3), t3, reduction=red)
    out["ignore"] = _loss_case(lib, logits(), t, ignore_index=3)
    out["all_ignored"] = _loss_case(lib, logits(), lib.full((5,), -100))
    out["weight_dtensor"] = _loss_case(lib, logits(), t, weight=dt.distribute_tensor(w, m4, [R]))
    out["target_dtensor"] = _loss_case(lib, logits(), dt.distribute_tensor(t, m4, [R]))
    out["1d"] = _loss_case(lib, logits(pl=(S0,), value=x[2]), lib.tensor(4))
    out["float32"] = _loss_case(lib, logits(value=x.float()), t, digits=4)
    # the 2x2 mesh: batch sharded over "dp", classes over "tp" (any position)
    tdp = dt.distribute_tensor(lib.tensor([1, 9, 0, 3]), m22, [S0, R])
    x4 = x[:4]
    out["2d_sum"] = _loss_case(lib, logits(m22, (S0, S1), x4), tdp, reduction="sum")
    out["2d_none"] = _loss_case(lib, logits(m22, (S0, S1), x4), tdp, reduction="none")
    out["2d_tp_first"] = _loss_case(lib, logits(m22, (S1, S0), x4),
                                    dt.distribute_tensor(lib.tensor([1, 9, 0, 3]), m22, [R, S0]),
                                    reduction="sum")
    out["2d_replicated_dp"] = _loss_case(lib, logits(m22, (R, S1), x4), t[:4], reduction="sum")

    # CrossEntropyLoss, and log_softmax + nll_loss written out
    d = logits()()
    with tp.loss_parallel():
        loss = lib.nn.CrossEntropyLoss(reduction="sum")(d, t)
        lsm = F.log_softmax(d, 1)
    out["module"] = {"placements": [repr(p) for p in loss.placements],
                     "local": loss.to_local().detach().tolist()}
    out["log_softmax"] = dict(desc(lsm))
    d = logits()()
    with tp.loss_parallel():
        loss = F.nll_loss(F.log_softmax(d, 1), t, weight=w)
        loss.backward()
    out["nll_log_softmax"] = {"placements": [repr(p) for p in loss.placements],
                              "local": loss.to_local().detach().tolist(),
                              "grad_local": d.grad.to_local().tolist()}

    # a ColwiseParallel lm head keeping its DTensor output
    head = lib.nn.Linear(6, 10).double()
    with lib.no_grad():
        head.weight.copy_((base(lib, (10, 6)) * 0.21).sin())
        head.bias.copy_((base(lib, (10,)) * 0.5).cos())
    tp.parallelize_module(head, m4, tp.ColwiseParallel(use_local_output=False))
    h = (base(lib, (2, 3, 6)) * 0.1).requires_grad_()
    logit3 = head(h)
    with tp.loss_parallel():
        loss = F.cross_entropy(logit3.flatten(0, 1), lib.tensor([0, 9, 4, 2, 2, 8]))
        loss.backward()
    out["lm_head"] = {"logits": [repr(p) for p in logit3.placements],
                      "loss": loss.to_local().detach().tolist(), "h_grad": _g(h.grad),
                      "weight_grad": _g(head.weight.grad.to_local()),
                      "bias_grad": _g(head.bias.grad.to_local())}

    def ce(pl=(S1,), mesh=m4, target=t, value=x, **kw):
        def f():
            with tp.loss_parallel():
                return F.cross_entropy(dt.distribute_tensor(value, mesh, list(pl)), target, **kw)
        return err(f)
    out["errors"] = {
        "shard_batch_dim": ce(pl=(S0,)),
        "replicated": ce(pl=(R,)),
        "target_wrong_placements": ce(target=dt.distribute_tensor(t, m4, [S0])),
        "weight_wrong_placements": ce(weight=dt.distribute_tensor(w, m4, [S0])),
        "label_smoothing": ce(label_smoothing=0.1),
        "probabilities": ce(target=F.softmax(x, 1)),
        "bad_reduction": ce(reduction="avg"),
        "2d_mean": ce(pl=(S0, S1), mesh=m22, target=tdp, value=x4),
        "2d_plain_target": ce(pl=(S0, S1), mesh=m22, target=t[:4], value=x4, reduction="sum"),
        "2d_two_tp_dims": ce(pl=(S1, S1), mesh=m22, target=t[:4], value=x4, reduction="sum"),
        "log_softmax_other_dim": err(lambda: _in_lp(
            tp, lambda: F.log_softmax(dt.distribute_tensor(x, m4, [S1]), 0))),
    }
    return out


def _in_lp(tp, fn):
    with tp.loss_parallel():
        return fn()


def _counts(lib, fn):
    """The collectives CommDebugMode counts while fn() runs: {name: count}
    and the total."""
    mode = lib.distributed.tensor.debug.CommDebugMode()
    with mode:
        fn()
    return {"counts": {str(k): v for k, v in mode.get_comm_counts().items()},
            "total": mode.get_total_counts()}


def run_comm_counts(lib, rank):
    """CommDebugMode's counts for redistributions, ops, a colwise + rowwise
    MLP forward and backward, a sequence-parallel block and loss_parallel."""
    dt = lib.distributed.tensor
    tp = lib.distributed.tensor.parallel
    F = lib.nn.functional
    ms = meshes(lib)
    m4, m22 = ms["m4"], ms["m22"]
    out = {}
    for a, b in (("S0", "R"), ("P", "R"), ("P", "S0"), ("S0", "S1"), ("R", "S0"),
                 ("S0", "P"), ("R", "R")):
        d = _make(lib, dt, m4, (5, 6), [a], rank)
        out[f"{a}->{b}"] = _counts(lib, lambda: d.redistribute(m4, _pl(dt, [b])))
    for a, b in (("S0S1", "RR"), ("PP", "S0R"), ("S1S0", "S0S1")):
        d = _make(lib, dt, m22, (5, 6), _names(a), rank)
        out[f"m22.{a}->{b}"] = _counts(lib, lambda: d.redistribute(m22, _pl(dt, _names(b))))
    d = _make(lib, dt, m4, (5, 6), ["S1"], rank)
    out["full_tensor"] = _counts(lib, lambda: d.full_tensor())
    out["pointwise"] = _counts(lib, lambda: (d * 2 + d).exp())
    out["sum_full"] = _counts(lib, lambda: d.sum().full_tensor())
    a, b = _make(lib, dt, m4, (5, 8), ["S1"], rank), _make(lib, dt, m4, (8, 6), ["S0"], rank)
    out["mm_partial"] = _counts(lib, lambda: lib.mm(a, b))
    for pl in ("S0", "R"):
        out["distribute_" + pl] = _counts(
            lib, lambda: dt.distribute_tensor(base(lib, (5, 6)), m4, _pl(dt, [pl])))
    model = make_mlp(lib, 8)
    tp.parallelize_module(model, m4, {"0": tp.ColwiseParallel(), "2": tp.RowwiseParallel()})
    x = base(lib, (3, 6)) * 0.1
    out["mlp_forward"] = _counts(lib, lambda: model(x))
    y = model(x)
    out["mlp_backward"] = _counts(lib, lambda: y.sum().backward())
    mode = lib.distributed.tensor.debug.CommDebugMode()
    with mode:
        model(x)
    out["mlp_parameter_info"] = {
        m: {n: [[repr(q) for q in p.placements], list(p.to_local().shape)]
            for n, p in ps.items()} for m, ps in mode.get_parameter_info().items()}
    out["mlp_sharding_info"] = {k: [repr(q) for q in v]
                                for k, v in mode.get_sharding_info().items()}

    logits = dt.distribute_tensor(_loss_inputs(lib)[0], m4, [dt.Shard(1)]).requires_grad_()
    with tp.loss_parallel():
        out["loss_parallel_forward"] = _counts(
            lib, lambda: out.__setitem__("_loss", F.cross_entropy(logits, _loss_inputs(lib)[1])))
        out["loss_parallel_backward"] = _counts(lib, lambda: out.pop("_loss").backward())
        out["log_softmax"] = _counts(lib, lambda: F.log_softmax(logits.detach(), -1))
    # nested modes each count what runs inside them
    outer = lib.distributed.tensor.debug.CommDebugMode()
    with outer:
        d.full_tensor()
        out["nested_inner"] = _counts(lib, lambda: d.redistribute(m4, [dt.Shard(0)]))
    out["nested_outer"] = {"counts": {str(k): v for k, v in outer.get_comm_counts().items()},
                           "total": outer.get_total_counts()}
    return out
