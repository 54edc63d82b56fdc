"""DeviceMesh cases run by 4 ranks under PyTorch (scripts/golden_device_mesh.py
records tests/golden/device_mesh.json) and under torchlike
(tests/test_device_mesh.py compares).  ``lib`` is torch or torchlike, ``dist``
its distributed package, ``dm`` its distributed.device_mesh module."""
from fsdp_cases import batch  # 8 rows of (x, target), and a part's share

WORLD = 4

# init_device_mesh and fully_shard before init_process_group, in a fresh
# process (argv: a free port): without the env:// variables, then with those
# of a world of one.  ``LIB`` is replaced by torch or torchlike.
BEFORE_INIT = """
import json, os, sys
import LIB.distributed as dist
from LIB.distributed.device_mesh import init_device_mesh
from LIB.distributed.fsdp import fully_shard
from LIB import nn
out = {}
for key, fn in (("no_env", lambda: init_device_mesh("cpu", (1,))),
                ("fully_shard_no_env", lambda: fully_shard(nn.Linear(2, 2)))):
    try:
        fn()
        out[key] = "OK"
    except Exception as e:
        out[key] = [type(e).__name__, str(e)]
os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=sys.argv[1], RANK="0", WORLD_SIZE="1")
m = init_device_mesh("cpu", (1,))
out["env"] = [dist.is_initialized(), dist.get_world_size(), repr(m),
              m.get_group() is dist.group.WORLD]
print(json.dumps(out))
"""


def err(fn):
    """``[type name, message]`` of what ``fn()`` raises, or "OK"."""
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the exception is the result
        return [type(e).__name__, str(e)]
    return "OK"


def _maybe(fn):
    try:
        return fn()
    except Exception as e:  # noqa: BLE001
        return [type(e).__name__, str(e)]


def _group(dist, g):
    """Global ranks of ``g`` and whether it is the default group."""
    return [dist.get_process_group_ranks(g), g is dist.group.WORLD]


def describe(lib, dist, m):
    """What one rank sees of mesh ``m``."""
    coord = m.get_coordinate()
    return {
        "repr": repr(m),
        "mesh": _maybe(lambda: m.mesh.tolist()),
        "mesh_dtype": _maybe(lambda: str(m.mesh.dtype).split(".")[-1]),
        "shape": list(m.shape), "ndim": m.ndim, "size": m.size(),
        "sizes": [m.size(i) for i in range(m.ndim)],
        "coordinate": None if coord is None else list(coord),
        "names": None if m.mesh_dim_names is None else list(m.mesh_dim_names),
        "device_type": m.device_type,
        "groups": [_maybe(lambda i=i: _group(dist, m.get_group(i))) for i in range(m.ndim)],
        "local_ranks": [_maybe(lambda i=i: m.get_local_rank(i)) for i in range(m.ndim)],
        "get_rank": m.get_rank(),
    }


def run_meshes(lib, dist, dm):
    """Meshes of 1, 2 and 3 dimensions, slices, custom rank layouts, a mesh
    over part of the world, equality, and the errors of misuse."""
    init = dm.init_device_mesh
    out = {}
    m1 = init("cpu", (WORLD,))
    out["1d"] = describe(lib, dist, m1)
    out["1d_default"] = [_group(dist, m1.get_group()), m1.get_local_rank()]
    m2 = init("cpu", (2, 2), mesh_dim_names=("dp", "tp"))
    out["2d"] = describe(lib, dist, m2)
    out["2d_named"] = [_group(dist, m2.get_group("dp")), _group(dist, m2.get_group("tp")),
                       m2.get_local_rank("dp"), m2.get_local_rank("tp"),
                       [_group(dist, g) for g in m2.get_all_groups()]]
    out["2d_dp"] = describe(lib, dist, m2["dp"])
    out["2d_tp"] = describe(lib, dist, m2["tp"])
    out["2d_dp_group"] = _group(dist, m2["dp"].get_group())
    out["2d_whole_is_self"] = m2["dp", "tp"] is m2
    m3 = init("cpu", (1, 2, 2), mesh_dim_names=("pp", "dp", "tp"))
    out["3d"] = describe(lib, dist, m3)
    out["3d_dp_tp"] = describe(lib, dist, m3["dp", "tp"])
    out["3d_pp_tp"] = describe(lib, dist, m3["pp", "tp"])
    out["3d_slice_of_slice"] = describe(lib, dist, m3["dp", "tp"]["tp"])
    out["3d_slice_of_slice_same"] = [m3["dp", "tp"]["tp"] == m3["tp"],
                                     m3["tp"]["tp"] is not None]
    # rank layouts given as lists and tensors
    cols = dm.DeviceMesh("cpu", [[0, 2], [1, 3]], mesh_dim_names=("a", "b"))
    out["columns"] = describe(lib, dist, cols)
    out["columns_a"] = describe(lib, dist, cols["a"])
    rev = dm.DeviceMesh("cpu", lib.tensor([3, 2, 1, 0]))
    out["reversed"] = describe(lib, dist, rev)
    # a mesh over part of the world: the other ranks are outside it
    part = dm.DeviceMesh("cpu", [1, 2])
    out["part"] = describe(lib, dist, part)
    part2 = init("cpu", (2,), mesh_dim_names=("x",))
    out["part_init"] = describe(lib, dist, part2)
    out["part_2d"] = describe(lib, dist, dm.DeviceMesh("cpu", [[0], [2]],
                                                       mesh_dim_names=("r", "c")))
    # equality and hashing
    same = [
        m1 == init("cpu", (WORLD,)),
        m1 == dm.DeviceMesh("cpu", list(range(WORLD))),
        m1 == dm.DeviceMesh("cpu", list(range(WORLD)), mesh_dim_names=("x",)),
        m1 == init("cpu", (WORLD,), mesh_dim_names=("x",)),
        m2["dp"] == m2["dp"], m2["dp"] == m2["tp"],
        m2 == init("cpu", (2, 2), mesh_dim_names=("dp", "tp")),
        m2 == init("cpu", (2, 2)),
        # (every rank builds the same meshes: new_group is collective)
        m2["tp"] == dm.DeviceMesh("cpu", [0, 1], mesh_dim_names=("tp",)),
        m1 == rev, m1 == "mesh",
        hash(m2["dp"]) == hash(m2["dp"]),
        hash(m1) == hash(init("cpu", (WORLD,))),
        len({m1, init("cpu", (WORLD,)), rev}),
    ]
    out["equal"] = same
    out["errors"] = {
        "bigger": err(lambda: init("cpu", (WORLD * 2,))),
        "names_length": err(lambda: init("cpu", (2, 2), mesh_dim_names=("dp",))),
        "names_repeated": err(lambda: init("cpu", (2, 2), mesh_dim_names=("dp", "dp"))),
        "device_index": err(lambda: init("cpu:0", (WORLD,))),
        "unknown_name": err(lambda: m2["xx"]),
        "unknown_in_tuple": err(lambda: m2["dp", "xx"]),
        "descending": err(lambda: m2["tp", "dp"]),
        "no_names": err(lambda: m1["x"]),
        "group_of_2d": err(lambda: m2.get_group()),
        "group_unknown": err(lambda: m2.get_group("xx")),
        "group_no_names": err(lambda: m1.get_group("x")),
        "local_rank_of_2d": err(lambda: m2.get_local_rank()),
        "size_out_of_range": err(lambda: m2.size(2)),
        "repeated_rank": err(lambda: dm.DeviceMesh("cpu", [0, 0, 1, 2])),
        "out_of_range_rank": err(lambda: dm.DeviceMesh("cpu", [0, 1, 2, 9])),
    }
    return out


def run_flatten(lib, dist, dm):
    """``_flatten``: sub-meshes made 1-D with their own groups, found again by
    name from the root (torchtitan's ``mesh["dp_shard", "cp"]._flatten()``)."""
    init = dm.init_device_mesh
    out = {}
    m2 = init("cpu", (2, 2), mesh_dim_names=("dp", "tp"))
    whole = m2._flatten()
    out["whole"] = describe(lib, dist, whole)
    m3 = init("cpu", (2, 1, 2), mesh_dim_names=("a", "b", "c"))
    ab = m3["a", "b"]._flatten()
    out["ab"] = describe(lib, dist, ab)
    out["ac"] = describe(lib, dist, m3["a", "c"]._flatten("ac"))
    out["bc"] = describe(lib, dist, m3["b", "c"]._flatten())
    out["root_ab"] = describe(lib, dist, m3["a_b"])
    out["root_ab_c"] = describe(lib, dist, m3["a_b", "c"])
    out["root_a_bc"] = describe(lib, dist, m3["a", "b_c"])
    out["root_groups"] = [_group(dist, m3.get_group(n)) for n in ("a_b", "ac", "b_c")]
    out["root_local_ranks"] = [m3.get_local_rank(n) for n in ("a_b", "ac", "b_c")]
    out["same"] = [ab == m3["a_b"], m3["a", "b"]._flatten() is ab, m3["a"]._flatten("a") is
                   m3["a"], m3["a"]._flatten() == m3["a"], ab == m3["a"]]
    out["errors"] = {
        "existing_dim": err(lambda: m3["a", "b"]._flatten("c")),
        "other_layout": err(lambda: m3["b", "c"]._flatten("a_b")),
        "no_names": err(lambda: init("cpu", (WORLD,))._flatten()),
        "slice_flat_from_sub": err(lambda: m3["a", "b"]["a_b"]),
        "overlap": err(lambda: m3["a_b", "a"]),
        "descending": err(lambda: m3["c", "a_b"]),
    }
    return out


def run_from_group(lib, dist, dm):
    """DeviceMesh.from_group: meshes over groups that exist (no new groups)."""
    DM = dm.DeviceMesh
    out = {}
    world = DM.from_group(dist.group.WORLD, "cpu")
    out["world"] = describe(lib, dist, world)
    out["world_same"] = [world == dm.init_device_mesh("cpu", (WORLD,)),
                         world.get_group() is dist.group.WORLD]
    low, high = dist.new_group([0, 1]), dist.new_group([2, 3])
    pair = DM.from_group(low if dist.get_rank() < 2 else high, "cpu", mesh_dim_names=("x",))
    out["pair"] = describe(lib, dist, pair)
    m2 = dm.init_device_mesh("cpu", (2, 2), mesh_dim_names=("dp", "tp"))
    two = DM.from_group([m2.get_group(0), m2.get_group(1)], "cpu", mesh=m2.mesh,
                        mesh_dim_names=("a", "b"))
    out["two"] = describe(lib, dist, two)
    out["two_sliced"] = describe(lib, dist, two["b"])
    groups = [m2.get_group(0), m2.get_group(1)]
    out["errors"] = {
        "wrong_mesh": err(lambda: DM.from_group(dist.group.WORLD, "cpu", mesh=[0, 1])),
        "none": err(lambda: DM.from_group([], "cpu")),
        "no_mesh": err(lambda: DM.from_group(groups, "cpu")),
        "no_names": err(lambda: DM.from_group(groups, "cpu", mesh=[[0, 1], [2, 3]])),
        "ndim": err(lambda: DM.from_group(groups, "cpu", mesh=[0, 1, 2, 3],
                                          mesh_dim_names=("a", "b"))),
    }
    return out


# ---- FSDP2 over a mesh -------------------------------------------------------------------
def make_model(lib):
    nn = lib.nn
    model = nn.Sequential(nn.Linear(4, 5), nn.Tanh(), nn.Linear(5, 3), nn.Tanh(),
                          nn.Linear(3, 2)).double()
    with lib.no_grad():
        for k, p in enumerate(model.parameters()):
            vals = [((i * 0.37 + k * 0.11) % 1.0) - 0.5 for i in range(p.numel())]
            p.copy_(lib.tensor(vals, dtype=lib.float64).reshape(p.shape))
    return model


def _vals(t):
    t = t.to_local() if hasattr(t, "to_local") else t
    return [round(float(v), 12) for v in t.detach().reshape(-1).tolist()]


def shard_model(fsdp, model, mesh):
    for i in (0, 2, 4):
        fsdp.fully_shard(model[i], mesh=mesh)
    fsdp.fully_shard(model, mesh=mesh)
    return model


def train(lib, fsdp, model, mesh, part, parts, steps=2):
    """Local pieces, local gradients and the pieces after ``steps`` Adam steps."""
    shard_model(fsdp, model, mesh)
    x, y = batch(lib, part, parts)
    out = {"local": [[n, list((p.to_local() if hasattr(p, "to_local") else p).shape),
                      _vals(p)] for n, p in model.named_parameters()]}
    opt = lib.optim.Adam(model.parameters(), lr=0.01)
    for step in range(steps):
        opt.zero_grad()
        ((model(x) - y) ** 2).mean().backward()
        if step == 0:
            out["grads"] = [_vals(p.grad) for p in model.parameters()]
        opt.step()
    out["after"] = [_vals(p) for p in model.parameters()]
    return out


def run_fsdp(lib, dist, dm, fsdp, wrap, rank):
    """fully_shard over a 1-D mesh of the world, over the dp slice of a 2-D
    mesh (the tp ranks of one dp coordinate see the same rows), and over a
    2-D mesh (HSDP: replicated over dim 0, sharded over dim 1); FSDP1 over
    the dp slice."""
    init = dm.init_device_mesh
    out = {}
    mesh = init("cpu", (WORLD,))
    out["1d"] = train(lib, fsdp, make_model(lib), mesh, rank, WORLD)
    m2 = init("cpu", (2, 2), mesh_dim_names=("dp", "tp"))
    out["dp_slice"] = train(lib, fsdp, make_model(lib), m2["dp"], m2.get_local_rank("dp"), 2)
    hsdp = init("cpu", (2, 2), mesh_dim_names=("replicate", "shard"))
    out["hsdp"] = train(lib, fsdp, make_model(lib), hsdp, rank, WORLD)
    # FSDP1 over a mesh: the group of the mesh's dim 0
    FSDP = fsdp.FullyShardedDataParallel
    cpu = {"device_id": lib.device("cpu")}  # PyTorch's FSDP1 wants it without a GPU
    wrapped = FSDP(make_model(lib), device_mesh=m2["dp"], **cpu,
                   auto_wrap_policy=wrap.ModuleWrapPolicy({lib.nn.Linear}))
    x, y = batch(lib, m2.get_local_rank("dp"), 2)
    opt = lib.optim.Adam(wrapped.parameters(), lr=0.01)
    fsdp1 = {"flat": [_vals(p) for p in wrapped.parameters()]}
    for _ in range(2):
        opt.zero_grad()
        ((wrapped(x) - y) ** 2).mean().backward()
        opt.step()
    fsdp1["after"] = [_vals(p) for p in wrapped.parameters()]
    out["fsdp1_dp_slice"] = fsdp1
    out["errors"] = {
        "fsdp1_both": err(lambda: FSDP(lib.nn.Linear(2, 2), process_group=dist.group.WORLD,
                                       device_mesh=mesh, **cpu)),
        "3d": err(lambda: fsdp.fully_shard(
            lib.nn.Linear(2, 2), mesh=init("cpu", (1, 2, 2), mesh_dim_names=("a", "b", "c")))),
        "2d_unnamed": err(lambda: fsdp.fully_shard(lib.nn.Linear(2, 2),
                                                   mesh=init("cpu", (2, 2)))),
    }
    return out
