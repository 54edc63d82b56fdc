"""torchlike.distributed.device_mesh over 4 real processes (one world for
the module): PyTorch's meshes, slices, groups, coordinates, reprs and
errors (tests/golden/device_mesh.json, recorded by
scripts/golden_device_mesh.py from the cases in tests/device_mesh_cases.py),
and fully_shard over a mesh trains as one process on the whole batch (the
average of the gradients of equal parts of a mean loss is the gradient of
the whole batch's mean loss)."""
import datetime
import json
import os
import socket
import subprocess
import sys

import numpy as np
import pytest

import torchlike
import torchlike.distributed as dist
import torchlike.distributed.device_mesh as dm
import torchlike.distributed.fsdp as fsdp
import torchlike.distributed.fsdp.wrap as wrap
from device_mesh_cases import (BEFORE_INIT, WORLD, batch, make_model, run_flatten, run_from_group,
                               run_fsdp, run_meshes, shard_model)
from dist_helpers import close_tree as _close, put, results, spawn_world

GOLDEN = os.path.join(os.path.dirname(__file__), "golden", "device_mesh.json")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _golden():
    with open(GOLDEN) as f:
        return json.load(f)


def _loss(m, x, y):
    return ((m(x) - y) ** 2).mean()


def _whole(model):
    """The whole parameters of a fully_shard model, by name."""
    mods = [m for m in model.modules() if isinstance(m, fsdp.FSDPModule)]
    for m in mods:
        m.unshard()
    out = {}
    for name, _ in model.named_parameters():
        *path, leaf = name.split(".")
        out[name] = getattr(model.get_submodule(".".join(path)), leaf).detach().numpy().copy()
    for m in mods:
        m.reshard()
    return out


def _check_training(rank, ws):
    """3 SGD steps of an FSDP2 script over init_device_mesh equal 3 steps on
    the whole batch: a 1-D mesh of the world, the dp slice of a 2-D mesh
    (each dp coordinate sees half the rows), HSDP over a 2-D mesh and over
    a slice of a root dimension and a flattened pair; one step in two
    micro-batches, the first with gradient sync off."""
    X, Y = batch(torchlike)
    ref = make_model(torchlike)
    opt = torchlike.optim.SGD(ref.parameters(), lr=0.1, momentum=0.9)
    for _ in range(3):
        opt.zero_grad()
        _loss(ref, X, Y).backward()
        opt.step()
    want = {k: v.detach().numpy() for k, v in ref.named_parameters()}
    m2 = dm.init_device_mesh("cpu", (2, 2), mesh_dim_names=("dp", "tp"))
    # torchtitan's HSDP mesh: shard over a flattened pair of dimensions
    m3 = dm.init_device_mesh("cpu", (2, 1, 2), mesh_dim_names=("rep", "cp", "dp_shard"))
    m3["cp", "dp_shard"]._flatten("shard")
    runs = [(dm.init_device_mesh("cpu", (ws,)), rank, ws),
            (m2["dp"], m2.get_local_rank("dp"), 2),
            (dm.init_device_mesh("cpu", (2, 2), mesh_dim_names=("rep", "shard")), rank, ws),
            (m3["rep", "shard"], rank, ws)]
    for mesh, part, parts in runs:
        model = shard_model(fsdp, make_model(torchlike), mesh)
        assert model[0]._fsdp_state.pg is mesh.get_group(mesh.ndim - 1)
        opt = torchlike.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        x, y = batch(torchlike, part, parts)
        for step in range(3):
            opt.zero_grad()
            if step == 1:  # two equal micro-batches, the first without sync
                h = len(x) // 2
                model.set_requires_gradient_sync(False)
                (_loss(model, x[:h], y[:h]) / 2).backward()
                assert all(p.grad is None for p in model.parameters())
                model.set_requires_gradient_sync(True)
                (_loss(model, x[h:], y[h:]) / 2).backward()
            else:
                _loss(model, x, y).backward()
            opt.step()
        got = _whole(model)
        assert list(got) == list(want)
        for k in want:
            np.testing.assert_allclose(got[k], want[k], rtol=1e-12, atol=1e-14,
                                       err_msg=f"{mesh} {k}")


def _check_groups_talk(rank, ws):
    """The groups of a 2-D mesh reduce over the right ranks."""
    m = dm.init_device_mesh("cpu", (2, 2), mesh_dim_names=("dp", "tp"))
    for name in ("dp", "tp"):
        t = torchlike.tensor([float(rank)])
        dist.all_reduce(t, group=m.get_group(name))
        ranks = m[name].mesh.tolist()
        assert float(t) == sum(ranks) and rank in ranks
    with m as entered:
        assert entered is m


def _main(rank, ws, init, outdir):
    dist.init_process_group("gloo", init_method=init, rank=rank, world_size=ws,
                            timeout=datetime.timedelta(seconds=120))  # fail, never hang
    golden = {"meshes": run_meshes(torchlike, dist, dm),
              "flatten": run_flatten(torchlike, dist, dm),
              "from_group": run_from_group(torchlike, dist, dm),
              "fsdp": run_fsdp(torchlike, dist, dm, fsdp, wrap, rank)}
    _check_training(rank, ws)
    _check_groups_talk(rank, ws)
    put(outdir, rank, golden)
    dist.destroy_process_group()


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """The ranks' golden-case results, once every check passed on every rank."""
    outdir = spawn_world(_main, WORLD, tmp_path_factory.mktemp("device_mesh"))
    return results(outdir, WORLD)


@pytest.mark.parametrize("case", sorted(_golden()["ranks"][0]["meshes"]))
def test_meshes_match_pytorch(world, case):
    """Reprs, rank tensors, shapes, coordinates, the ranks of each
    dimension's group (and whether it is the default group), local ranks,
    equality, and the errors of misuse, on each of the 4 ranks."""
    for rank in range(WORLD):
        _close(world[rank]["meshes"][case], _golden()["ranks"][rank]["meshes"][case],
               f"rank{rank}.{case}")


@pytest.mark.parametrize("case", sorted(_golden()["ranks"][0]["flatten"]))
def test_flatten_matches_pytorch(world, case):
    """_flatten of whole meshes, slices and non-adjacent dimensions; the
    root slicing and grouping by flattened names; errors."""
    for rank in range(WORLD):
        _close(world[rank]["flatten"][case], _golden()["ranks"][rank]["flatten"][case],
               f"rank{rank}.{case}")


@pytest.mark.parametrize("case", sorted(_golden()["ranks"][0]["from_group"]))
def test_from_group_matches_pytorch(world, case):
    """Meshes over the world, over one of two disjoint groups, over the
    groups of another mesh; the errors."""
    for rank in range(WORLD):
        _close(world[rank]["from_group"][case], _golden()["ranks"][rank]["from_group"][case],
               f"rank{rank}.{case}")


@pytest.mark.parametrize("case", ["1d", "dp_slice", "hsdp", "fsdp1_dp_slice", "errors"])
def test_fully_shard_over_a_mesh_matches_pytorch(world, case):
    """Local pieces, local gradients and two Adam steps of fully_shard over
    a 1-D mesh, a 2-D mesh's dp slice and a 2-D mesh (HSDP), per rank."""
    for rank in range(WORLD):
        _close(world[rank]["fsdp"][case], _golden()["ranks"][rank]["fsdp"][case],
               f"rank{rank}.{case}")


def test_init_device_mesh_initializes_the_default_group():
    """Before init_process_group, init_device_mesh (and fully_shard) join
    the env:// world, and fail as PyTorch's without its variables, in a
    fresh process."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {k: v for k, v in os.environ.items()
           if k not in ("MASTER_ADDR", "MASTER_PORT", "RANK", "WORLD_SIZE")}
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    out = subprocess.run([sys.executable, "-c", BEFORE_INIT.replace("LIB", "torchlike"),
                          str(port)], env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout.strip().splitlines()[-1]) == _golden()["before_init"]


def test_errors_before_any_group_in_this_process():
    """Argument errors come before any group is needed."""
    with pytest.raises(RuntimeError, match="should have same length"):
        dm.init_device_mesh("cpu", (2, 2), mesh_dim_names=("a",))
    with pytest.raises(RuntimeError, match="Device type with index"):
        dm.init_device_mesh("cuda:0", (2,))
    with pytest.raises(ValueError, match="at least one dimension"):
        dm.DeviceMesh("cpu", 0)
    assert dist.DeviceMesh is dm.DeviceMesh and dist.init_device_mesh is dm.init_device_mesh
