"""torchlike.distributed.checkpoint (DCP) and its state_dict helpers.

PyTorch's layout (tests/golden/dcp.json, recorded by scripts/golden_dcp.py
from the cases in tests/dcp_cases.py): the keys and local shapes of
get_state_dict for a plain model, DDP, FSDP1 (flat and use_orig_params)
and fully_shard, the optimizer state keyed by parameter names, the full
values after one Adam step, and the chunks a 2-rank save records.  Round
trips are checked bit for bit against the state before the save: in the
same world, from 2 ranks into 1 process and into 4 ranks, from 1 process
into 2 ranks; hostile and truncated checkpoints raise Python exceptions."""
import datetime
import json
import os
import shutil
import warnings

import numpy as np
import pytest

import torchlike
import torchlike.distributed as dist
import torchlike.distributed.checkpoint as dcp
import torchlike.distributed.checkpoint.state_dict as sdmod
from dcp_cases import WRAPPINGS, batch, errors, run_all, wrap_model
from dist_helpers import close_tree, put, results, spawn_world
from torchlike.distributed.checkpoint.format_utils import dcp_to_torch_save, torch_save_to_dcp

GOLDEN = os.path.join(os.path.dirname(__file__), "golden", "dcp.json")
Opts = sdmod.StateDictOptions
Tensor = torchlike.Tensor


def _golden():
    with open(GOLDEN) as f:
        return json.load(f)


# ---- helpers --------------------------------------------------------------------------
def _make(kind, rank=None):
    model = wrap_model(torchlike, kind, {})
    return model, torchlike.optim.Adam(model.parameters(), lr=0.01)


def _train(model, opt, rank, steps=1):
    x, y = batch(torchlike, rank)
    for _ in range(steps):
        opt.zero_grad()
        ((model(x) - y) ** 2).mean().backward()
        opt.step()


def _full(model, opt):
    """Whole model and optimizer state, copied."""
    msd, osd = sdmod.get_state_dict(model, opt, options=Opts(full_state_dict=True))
    return _copy({"model": msd, "optim": osd})


def _copy(tree):
    if isinstance(tree, Tensor):
        return tree.detach().clone()
    if isinstance(tree, dict):
        return {k: _copy(v) for k, v in tree.items()}
    if isinstance(tree, list):
        return [_copy(v) for v in tree]
    return tree


def _same_bits(got, want, path="sd"):
    """Equal trees; tensors of the same dtype and shape, bit for bit."""
    if isinstance(want, Tensor):
        assert isinstance(got, Tensor), path
        assert got.dtype == want.dtype and tuple(got.shape) == tuple(want.shape), \
            (path, got.dtype, want.dtype, tuple(got.shape), tuple(want.shape))
        a = got.detach().contiguous().reshape(-1).view(torchlike.uint8).numpy()
        b = want.detach().contiguous().reshape(-1).view(torchlike.uint8).numpy()
        assert np.array_equal(a, b), path
    elif isinstance(want, dict):
        assert sorted(map(str, got)) == sorted(map(str, want)), (path, list(got), list(want))
        for k in want:
            _same_bits(got[k], want[k], f"{path}.{k}")
    elif isinstance(want, (list, tuple)):
        assert len(got) == len(want), path
        for i, (a, b) in enumerate(zip(got, want)):
            _same_bits(a, b, f"{path}[{i}]")
    else:
        assert got == want, (path, got, want)


def _load_into(kind, path, rank=None):
    """A fresh model and optimizer of ``kind`` loaded from ``path``
    through get_state_dict / dcp.load / set_state_dict."""
    model, opt = _make(kind)
    msd, osd = sdmod.get_state_dict(model, opt)
    sd = {"model": msd, "optim": osd, "epoch": -1}
    dcp.load(sd, checkpoint_id=path)
    assert sd["epoch"] == 7
    keys = sdmod.set_state_dict(model, opt, model_state_dict=sd["model"],
                                optim_state_dict=sd["optim"])
    assert keys.missing_keys == [] and keys.unexpected_keys == []
    return model, opt


def _save_trained(kind, rank, path):
    """Train ``kind`` one step, save its sharded state; returns the whole state.
    A plain model is replicated: it trains on the whole batch on each rank."""
    model, opt = _make(kind)
    _train(model, opt, None if kind == "plain" else rank)
    msd, osd = sdmod.get_state_dict(model, opt)
    dcp.save({"model": msd, "optim": osd, "epoch": 7}, checkpoint_id=path)
    return _full(model, opt), (model, opt)


# ---- the 2-rank world ------------------------------------------------------------------
def _check_roundtrip(rank, ws, outdir):
    """Every wrapping: save, load into a fresh model, same state bit for bit
    and the next step the same too; rank 0 keeps the whole state of the
    FSDP saves for the resharding tests."""
    for kind in WRAPPINGS:
        path = os.path.join(outdir, f"rt_{kind}")
        want, (model, opt) = _save_trained(kind, rank, path)
        assert sorted(os.listdir(path)) == [".metadata", "__0_0.distcp", "__1_0.distcp"]
        model2, opt2 = _load_into(kind, path)
        _same_bits(_full(model2, opt2), want, kind)
        _train(model, opt, None if kind == "plain" else rank)
        _train(model2, opt2, None if kind == "plain" else rank)
        _same_bits(_full(model2, opt2), _full(model, opt), kind + " after a step")
        if rank == 0:
            torchlike.save(want, os.path.join(outdir, f"rt_{kind}.want"))


def _check_async(rank, ws, outdir):
    path = os.path.join(outdir, "async")
    model, opt = _make("fsdp2")
    _train(model, opt, rank)
    want = _full(model, opt)
    msd, osd = sdmod.get_state_dict(model, opt)
    fut = dcp.async_save({"model": msd, "optim": osd, "epoch": 7}, checkpoint_id=path)
    _train(model, opt, rank)  # the save wrote the state as it was
    assert isinstance(fut.result(timeout=60), dcp.Metadata)  # complete on every rank
    assert os.path.exists(os.path.join(path, ".metadata"))
    dist.barrier()  # each rank removes its own note before its Future completes
    assert not [f for f in os.listdir(path) if f.endswith(".done")]
    model2, opt2 = _load_into("fsdp2", path)
    _same_bits(_full(model2, opt2), want, "async")


def _check_from_one_process(rank, ws, outdir):
    """A checkpoint one process saved (no_dist) loads into 2-rank FSDP1 and
    fully_shard models."""
    path = os.path.join(outdir, "single")
    model, opt = _make("plain")
    _train(model, opt, None, steps=2)  # the whole batch, the same on both ranks
    want = _full(model, opt)
    if rank == 0:
        msd, osd = sdmod.get_state_dict(model, opt)
        dcp.save({"model": msd, "optim": osd, "epoch": 7}, checkpoint_id=path, no_dist=True)
    dist.barrier()
    for kind in ("fsdp1", "fsdp2"):
        model2, opt2 = _load_into(kind, path)
        _same_bits(_full(model2, opt2), want, kind)


def _check_full_state_dicts(rank, ws, outdir):
    """Whole state dicts load into sharded models (set_state_dict cuts them),
    and broadcast_from_rank0 sends rank 0's."""
    ref, ref_opt = _make("plain")
    _train(ref, ref_opt, None)
    want = _full(ref, ref_opt)
    for kind in ("fsdp1", "fsdp2"):
        model, opt = _make(kind)
        given = _copy(want) if rank == 0 else {"model": {}, "optim": {}}
        sdmod.set_state_dict(model, opt, model_state_dict=given["model"],
                             optim_state_dict=given["optim"],
                             options=Opts(full_state_dict=True, broadcast_from_rank0=True))
        _same_bits(_full(model, opt), want, kind)


def _check_module_state_dicts(rank, ws, outdir):
    """Without the helpers: a fully_shard model's state_dict() and an FSDP1
    model's SHARDED_STATE_DICT hold pieces that save and load as such."""
    import torchlike.distributed.fsdp as fsdp
    FSDP, SDT = fsdp.FullyShardedDataParallel, fsdp.StateDictType
    for kind in ("fsdp1", "fsdp2"):
        path = os.path.join(outdir, f"module_{kind}")
        model, opt = _make(kind)
        _train(model, opt, rank)
        want = _full(model, opt)["model"]
        fresh, _ = _make(kind)
        if kind == "fsdp1":
            with FSDP.state_dict_type(model, SDT.SHARDED_STATE_DICT):
                dcp.save({"model": model.state_dict()}, checkpoint_id=path)
            with FSDP.state_dict_type(fresh, SDT.SHARDED_STATE_DICT):
                sd = {"model": fresh.state_dict()}
                dcp.load(sd, checkpoint_id=path)
                fresh.load_state_dict(sd["model"])
        else:
            dcp.save({"model": model.state_dict()}, checkpoint_id=path)
            sd = {"model": fresh.state_dict()}
            dcp.load(sd, checkpoint_id=path)
            fresh.load_state_dict(sd["model"])
        _same_bits(sdmod.get_model_state_dict(fresh, options=Opts(full_state_dict=True)),
                   want, kind)


def _check_failures_reach_every_rank(rank, ws, outdir):
    """One rank's failure raises the same CheckpointException on every rank."""
    with pytest.raises(dcp.CheckpointException, match="ranks disagree on the key 'x'"):
        dcp.save({"x": torchlike.zeros(rank + 1)}, checkpoint_id=os.path.join(outdir, "bad"))
    sd = {"model": {"0.bias": torchlike.zeros(3)}}
    if rank == 1:
        sd["nope"] = torchlike.zeros(1)
    with pytest.raises(dcp.CheckpointException) as info:
        dcp.load(sd, checkpoint_id=os.path.join(outdir, "rt_plain"))
    assert list(info.value.failures) == [1]
    assert "Missing key in checkpoint state_dict: nope." in str(info.value)


def _main(rank, ws, init, outdir):
    dist.init_process_group("gloo", init_method=init, rank=rank, world_size=ws,
                            timeout=datetime.timedelta(seconds=120))  # fail, never hang
    golden = run_all(torchlike, dcp, sdmod, rank, {}, os.path.join(outdir, "golden"))
    for check in (_check_roundtrip, _check_async, _check_from_one_process,
                  _check_full_state_dicts, _check_module_state_dicts,
                  _check_failures_reach_every_rank):
        check(rank, ws, outdir)
    put(outdir, rank, golden)
    dist.destroy_process_group()


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """(the ranks' golden-case results, the world's directory), once every
    check passed on both ranks."""
    outdir = spawn_world(_main, 2, tmp_path_factory.mktemp("dcp"))
    return results(outdir, 2), outdir


@pytest.mark.parametrize("kind", WRAPPINGS)
def test_state_dict_layout_and_saved_chunks_match_pytorch(world, kind):
    """Keys, local shapes, optimizer state by parameter name (initialised
    on a fresh optimizer), whole values after a step, cpu_offload on rank 0
    only, and the chunks of every saved tensor."""
    got = world[0]
    for rank in range(2):
        close_tree(got[rank][kind], _golden()["ranks"][rank][kind], f"rank{rank}.{kind}")


def test_errors_match_pytorch(tmp_path):
    got = errors(torchlike, dcp, str(tmp_path))
    want = _golden()["errors"]
    got["size"][2] = got["size"][2].replace("torchlike.Size", "torch.Size")
    assert got == want


@pytest.mark.parametrize("kind", ["fsdp1", "fsdp2"])
def test_two_rank_checkpoint_loads_into_one_process(world, kind, tmp_path):
    """2-rank sharded saves into a plain model and optimizer, no process group."""
    _, outdir = world
    want = torchlike.load(os.path.join(outdir, f"rt_{kind}.want"))
    model, opt = _load_into("plain", os.path.join(outdir, f"rt_{kind}"))
    _same_bits(_full(model, opt), want, kind)
    # and as one torchlike.save file
    dcp_to_torch_save(os.path.join(outdir, f"rt_{kind}"), tmp_path / "one.pt")
    whole = torchlike.load(tmp_path / "one.pt")
    assert whole["epoch"] == 7
    _same_bits(whole["model"], want["model"], "model")
    _same_bits(whole["optim"]["state"], want["optim"]["state"], "optim")


def _four_ranks(rank, ws, init, outdir):
    from fsdp_cases import make_model
    import torchlike.distributed.fsdp as fsdp
    dist.init_process_group("gloo", init_method=init, rank=rank, world_size=ws,
                            timeout=datetime.timedelta(seconds=120))
    for kind in ("fsdp1", "fsdp2"):
        want = torchlike.load(os.path.join(outdir, f"rt_{kind}.want"))
        model, opt = _load_into(kind, os.path.join(outdir, f"rt_{kind}"))
        _same_bits(_full(model, opt), want, kind)
    # HSDP: pieces cut over "shard", replicated over "rep"
    mesh = dist.init_device_mesh("cpu", (2, 2), mesh_dim_names=("rep", "shard"))
    model, _ = make_model(torchlike)
    for m in (model[0], model[2].lin1, model[2], model):
        fsdp.fully_shard(m, mesh=mesh)
    opt = torchlike.optim.Adam(model.parameters(), lr=0.01)
    _train(model, opt, None)
    msd, osd = sdmod.get_state_dict(model, opt)
    dcp.save({"model": msd, "optim": osd, "epoch": 7},
             checkpoint_id=os.path.join(outdir, "hsdp"))
    want = _full(model, opt)  # collective: every rank
    if rank == 0:
        torchlike.save(want, os.path.join(outdir, "hsdp.want"))
    dist.destroy_process_group()


def test_two_rank_checkpoint_loads_into_four_ranks(world, tmp_path):
    """Resharding 2 → 4 ranks (the last ranks hold empty pieces of the
    3-row and 2-row parameters); an HSDP save on a (2, 2) mesh writes each
    piece once and loads into one process."""
    _, outdir = world
    for kind in ("fsdp1", "fsdp2"):
        shutil.copytree(os.path.join(outdir, f"rt_{kind}"), tmp_path / f"rt_{kind}")
        shutil.copy(os.path.join(outdir, f"rt_{kind}.want"), tmp_path / f"rt_{kind}.want")
    spawn_world(_four_ranks, 4, tmp_path)
    md = dcp.FileSystemReader(tmp_path / "hsdp").read_metadata()
    weight = md.state_dict_metadata["model.0.weight"]
    assert sorted(tuple(c.offsets) for c in weight.chunks) == [(0, 0), (2, 0)]
    assert len(md.storage_data) == sum(
        len(m.chunks) if isinstance(m, dcp.TensorStorageMetadata) else 1
        for m in md.state_dict_metadata.values())
    model, opt = _load_into("plain", tmp_path / "hsdp")
    _same_bits(_full(model, opt), torchlike.load(tmp_path / "hsdp.want"), "hsdp")


# ---- one process -----------------------------------------------------------------------
def _odd_state():
    base = torchlike.arange(12, dtype=torchlike.float64).reshape(3, 4) - 5.5
    return {
        "nested": [torchlike.tensor([1.5, -0.0, float("inf")]),
                   {"b": torchlike.tensor([[True, False]]), "n": 4}],
        "transposed": base.t(),                       # not contiguous
        "bf16": torchlike.tensor([1.25, -3.5], dtype=torchlike.bfloat16),
        "c64": torchlike.tensor([1 + 2j, -3j], dtype=torchlike.complex64),
        "i64": torchlike.tensor([2 ** 40, -7]),
        "u8": torchlike.tensor([0, 255], dtype=torchlike.uint8),
        "scalar": torchlike.tensor(2.5),
        "empty": torchlike.zeros(0, 3),
        "words": "epoch 3", "pair": (1, 2.5), "none": None, "nums": [1, 2, 3],
    }


def _zeroed(tree):
    if isinstance(tree, Tensor):
        return torchlike.zeros_like(tree)
    if isinstance(tree, dict):
        return {k: _zeroed(v) for k, v in tree.items()}
    if isinstance(tree, list) and any(isinstance(v, (Tensor, dict)) for v in tree):
        return [_zeroed(v) for v in tree]
    return "placeholder"


def test_values_of_every_kind_round_trip_in_place(tmp_path):
    want = _odd_state()
    md = dcp.save(want, checkpoint_id=tmp_path)
    assert md.state_dict_metadata["transposed"].size == torchlike.Size([4, 3])
    assert isinstance(md.state_dict_metadata["words"], dcp.BytesStorageMetadata)
    target = _zeroed(want)
    before = target["transposed"]
    dcp.load(target, checkpoint_id=tmp_path)
    assert target["transposed"] is before          # loaded in place
    _same_bits(target, want)


def test_async_save_and_the_older_names(tmp_path):
    want = _odd_state()
    fut = dcp.async_save(want, checkpoint_id=tmp_path / "a")
    assert isinstance(fut.result(timeout=30), dcp.Metadata)
    with pytest.warns(FutureWarning):
        dcp.save_state_dict(want, dcp.FileSystemWriter(tmp_path / "b"))
    for d in ("a", "b"):
        target = _zeroed(want)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            dcp.load_state_dict(target, dcp.FileSystemReader(tmp_path / d))
        _same_bits(target, want)
    assert not [f for f in os.listdir(tmp_path / "a") if f.endswith(".done")]


def test_planners_and_writer_options(tmp_path):
    flat = {"a.b": torchlike.ones(2), "c": 3}
    dcp.save(flat, storage_writer=dcp.FileSystemWriter(tmp_path),
             planner=dcp.DefaultSavePlanner(flatten_state_dict=False))
    md = dcp.FileSystemReader(tmp_path).read_metadata()
    assert list(md.state_dict_metadata) == ["a.b", "c"] and md.planner_data is None
    target = {"a.b": torchlike.zeros(2), "c": 0}
    dcp.load(target, checkpoint_id=tmp_path,
             planner=dcp.DefaultLoadPlanner(flatten_state_dict=False))
    assert target["c"] == 3 and target["a.b"].tolist() == [1.0, 1.0]
    with pytest.raises(dcp.CheckpointException, match="overwrite=False"):
        dcp.save(flat, storage_writer=dcp.FileSystemWriter(tmp_path, overwrite=False))
    # only the keys the state dict asks for are read
    part = {"c": 0}
    dcp.load(part, checkpoint_id=tmp_path,
             planner=dcp.DefaultLoadPlanner(flatten_state_dict=False))
    assert part == {"c": 3}


def test_plain_model_through_torch_save_file(tmp_path):
    """torch_save_to_dcp of a torchlike.save file, loaded into a model."""
    model, opt = _make("plain")
    _train(model, opt, None)
    torchlike.save(model.state_dict(), tmp_path / "m.pt")
    torch_save_to_dcp(tmp_path / "m.pt", tmp_path / "ckpt")
    fresh, _ = _make("plain")
    sd = sdmod.get_model_state_dict(fresh)
    dcp.load(sd, checkpoint_id=tmp_path / "ckpt")
    sdmod.set_model_state_dict(fresh, sd)
    _same_bits(fresh.state_dict(), model.state_dict())


# ---- hostile and damaged checkpoints ------------------------------------------------
def _saved(tmp_path):
    dcp.save({"w": torchlike.arange(6.0), "n": 3}, checkpoint_id=tmp_path)
    with open(tmp_path / ".metadata") as f:
        return json.load(f)


def _load_fails(tmp_path, match, exc=dcp.CheckpointException):
    with pytest.raises(exc) as info:
        dcp.load({"w": torchlike.zeros(6), "n": 0}, checkpoint_id=tmp_path)
    assert match in str(info.value), str(info.value)


def _edit_metadata(tmp_path, fn):
    doc = _saved(tmp_path)
    fn(doc)
    with open(tmp_path / ".metadata", "w") as f:
        json.dump(doc, f)


def _overlapping_chunks(doc):
    """w's 6 elements as chunks [0, 3) and [1, 4): six elements counted, yet
    4 and 5 never read (a load left them as they were)."""
    w = next(e for e in doc["storage_data"] if e["fqn"] == "w")
    doc["state_dict_metadata"]["w"]["chunks"] = [{"offsets": [o], "sizes": [3]} for o in (0, 1)]
    doc["storage_data"] = [e for e in doc["storage_data"] if e["fqn"] != "w"] + \
        [dict(w, offset=[o], length=w["length"] // 2) for o in (0, 1)]


def test_truncated_and_damaged_data_files(tmp_path):
    _saved(tmp_path)
    data = tmp_path / "__0_0.distcp"
    raw = data.read_bytes()
    data.write_bytes(raw[:-5])
    _load_fails(tmp_path, "truncated?")
    data.write_bytes(b"XXXXXXXX" + raw[8:])
    _load_fails(tmp_path, "is not a torchlike checkpoint file")
    data.unlink()
    _load_fails(tmp_path, "No such file")
    (tmp_path / ".metadata").unlink()
    _load_fails(tmp_path, "has no .metadata file")


@pytest.mark.parametrize("edit, match", [
    (lambda d: d["storage_data"][0].update(path="../outside"), "storage file name"),
    (lambda d: d["storage_data"][0].update(path="/etc/passwd"), "storage file name"),
    (lambda d: d["storage_data"][0].update(start=-1), "the extent of"),
    (lambda d: [e.update(length=e["length"] - 8) for e in d["storage_data"]
                if e["fqn"] == "w"], "needs 24"),
    (lambda d: d["state_dict_metadata"]["w"].update(dtype="object"), "unknown dtype"),
    (lambda d: d["state_dict_metadata"]["w"]["chunks"][0].update(sizes=[7]), "lies outside"),
    (lambda d: d["state_dict_metadata"]["w"].update(chunks=[]), "does not hold all of w"),
    (lambda d: d.update(version=99), "format version 99"),
    (lambda d: d.update(format="pickle"), "not a torchlike checkpoint"),
    (lambda d: d["state_dict_metadata"].update(w={"type": 5}), "neither a tensor"),
    (lambda d: _overlapping_chunks(d), "overlap"),
])
def test_hostile_metadata_raises_a_clear_error(tmp_path, edit, match):
    _edit_metadata(tmp_path, edit)
    _load_fails(tmp_path, match)


def test_metadata_that_is_not_json(tmp_path):
    _saved(tmp_path)
    (tmp_path / ".metadata").write_bytes(b"\x80\x04\x95 not json")
    _load_fails(tmp_path, "the metadata is not JSON")
    with pytest.raises(ValueError, match="not a valid distributed checkpoint"):
        dcp.FileSystemReader(tmp_path).read_metadata()


class _Evil:
    def __init__(self, path):
        self.path = path

    def __reduce__(self):
        return (os.mkdir, (self.path,))


def test_loading_never_runs_code_from_the_checkpoint(tmp_path):
    marker = str(tmp_path / "ran")
    dcp.save({"x": _Evil(marker), "w": torchlike.ones(2)}, checkpoint_id=tmp_path / "c")
    target = {"x": None, "w": torchlike.zeros(2)}
    with pytest.raises(dcp.CheckpointException, match="Weights only load failed"):
        dcp.load(target, checkpoint_id=tmp_path / "c")
    assert not os.path.exists(marker)


def test_state_dict_options_without_a_process_group():
    model, opt = _make("plain")
    model[0].weight.requires_grad_(False)
    keys = list(sdmod.get_model_state_dict(model, options=Opts(ignore_frozen_params=True)))
    assert "0.weight" not in keys and "0.bias" in keys
    # cpu_offload with full_state_dict keeps everything in one process
    msd, osd = sdmod.get_state_dict(model, opt,
                                    options=Opts(full_state_dict=True, cpu_offload=True))
    assert "0.weight" in msd and "0.weight" not in osd["state"]  # frozen: no state
    with pytest.raises(RuntimeError, match="Missing key"):
        sdmod.set_model_state_dict(model, {"0.bias": msd["0.bias"]})
    keys = sdmod.set_model_state_dict(model, {"0.bias": msd["0.bias"]},
                                      options=Opts(strict=False))
    assert "0.weight" in keys.missing_keys


def _leaves(doc, path=()):
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield from _leaves(v, path + (k,))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield from _leaves(v, path + (i,))
    yield path


def _survives(fn):
    """fn() returns or raises a Python exception that is not MemoryError."""
    try:
        fn()
    except dcp.CheckpointException as e:
        assert not any(isinstance(x, MemoryError) for x, _ in e.failures.values()), e
    except MemoryError:
        raise
    except Exception:
        pass


def test_mutated_checkpoints_raise_python_exceptions(tmp_path):
    """200 mutations of the metadata's fields and of the data file's bytes:
    load and dcp_to_torch_save return or raise a Python exception, never
    allocate what the files do not hold."""
    rng = np.random.RandomState(0)
    good = tmp_path / "good"
    dcp.save({"w": torchlike.arange(6.0).reshape(2, 3), "l": [torchlike.ones(2), 5],
              "n": {"k": "v"}}, checkpoint_id=good)
    doc = json.loads((good / ".metadata").read_text())
    raw = (good / "__0_0.distcp").read_bytes()
    paths = list(_leaves(doc))
    junk = [-1, 0, 2 ** 62, "x", None, [], {}, "../a", 1.5, True, [2 ** 40], ["a", -3]]
    for case in range(200):
        d = tmp_path / f"m{case}"
        shutil.copytree(good, d)
        if case % 2:
            mutated = json.loads(json.dumps(doc))
            path = paths[rng.randint(len(paths))]
            if not path:
                continue
            node = mutated
            for k in path[:-1]:
                node = node[k]
            node[path[-1]] = junk[rng.randint(len(junk))]
            (d / ".metadata").write_text(json.dumps(mutated))
        else:
            data = bytearray(raw)
            for _ in range(rng.randint(1, 4)):
                data[rng.randint(len(data))] = rng.randint(256)
            (d / "__0_0.distcp").write_bytes(bytes(data[:rng.randint(len(data) + 1)]))
        target = {"w": torchlike.zeros(2, 3), "l": [torchlike.zeros(2), 0], "n": {"k": ""}}
        _survives(lambda: dcp.load(target, checkpoint_id=d))
        _survives(lambda: dcp_to_torch_save(d, tmp_path / "out.pt"))


class _AppState:
    """A user's Stateful: the model and optimizer through the helpers."""

    def __init__(self, model, opt):
        self.model, self.opt = model, opt

    def state_dict(self):
        msd, osd = sdmod.get_state_dict(self.model, self.opt)
        return {"model": msd, "optim": osd}

    def load_state_dict(self, sd):
        sdmod.set_state_dict(self.model, self.opt, model_state_dict=sd["model"],
                             optim_state_dict=sd["optim"])


def test_stateful_values_save_and_load_themselves(tmp_path):
    model, opt = _make("plain")
    _train(model, opt, None)
    want = _full(model, opt)
    assert isinstance(model, dcp.Stateful) and isinstance(_AppState(model, opt), dcp.Stateful)
    dcp.save({"app": _AppState(model, opt), "net": model, "step": 1}, checkpoint_id=tmp_path)
    model2, opt2 = _make("plain")
    net = _make("plain")[0]
    target = {"app": _AppState(model2, opt2), "net": net, "step": 0}
    dcp.load(target, checkpoint_id=tmp_path)
    assert target["step"] == 1 and target["net"] is net
    _same_bits(_full(model2, opt2), want)
    _same_bits(net.state_dict(), model.state_dict())


def test_flat_optimizer_layout_round_trips(tmp_path):
    """flatten_optimizer_state_dict=True (torchtitan's layout): saved and
    loaded back, two parameter groups keep their own settings."""
    flat_opts = Opts(flatten_optimizer_state_dict=True)
    model = wrap_model(torchlike, "plain", {})
    opt = torchlike.optim.Adam([{"params": model[0].parameters(), "lr": 0.1},
                                {"params": model[2].parameters()}], lr=0.01)
    _train(model, opt, None)
    osd = sdmod.get_optimizer_state_dict(model, opt, options=flat_opts)
    assert osd["param_groups.0.weight.lr"] == 0.1 and osd["param_groups.2.lin1.bias.lr"] == 0.01
    dcp.save({"optim": osd}, checkpoint_id=tmp_path)
    model2 = wrap_model(torchlike, "plain", {})
    opt2 = torchlike.optim.Adam([{"params": model2[0].parameters(), "lr": 0.5},
                                 {"params": model2[2].parameters()}], lr=0.5)
    target = {"optim": sdmod.get_optimizer_state_dict(model2, opt2, options=flat_opts)}
    dcp.load(target, checkpoint_id=tmp_path)
    sdmod.set_optimizer_state_dict(model2, opt2, target["optim"], options=flat_opts)
    _same_bits(opt2.state_dict(), opt.state_dict())


@pytest.mark.parametrize("offsets", [
    [0, 6],  # two chunks whose records are the same bytes of the data file
    [0, 0],  # one chunk listed twice
])
def test_dcp_to_torch_save_allocates_only_bytes_the_files_hold(tmp_path, offsets):
    """Chunks reading shared bytes would let a small hostile checkpoint make
    dcp_to_torch_save allocate (and write) many times the size of its files."""
    _saved(tmp_path)  # w: 6 float32 elements, one record
    doc = json.loads((tmp_path / ".metadata").read_text())
    w = next(e for e in doc["storage_data"] if e["fqn"] == "w")
    doc["state_dict_metadata"]["w"].update(
        size=[12], chunks=[{"offsets": [o], "sizes": [6]} for o in offsets])
    doc["storage_data"] = [e for e in doc["storage_data"] if e["fqn"] != "w"] + \
        [dict(w, offset=[o]) for o in offsets]
    (tmp_path / ".metadata").write_text(json.dumps(doc))
    with pytest.raises(ValueError, match="not a valid distributed checkpoint"):
        dcp_to_torch_save(tmp_path, tmp_path / "out.pt")
    assert not (tmp_path / "out.pt").exists()


def _row_pieces(rows, extra=()):
    """Save plans of one (rows, 4) tensor, a rank per row piece, plus extra
    (offsets, sizes) pieces."""
    from torchlike.distributed.checkpoint.metadata import (
        ChunkStorageMetadata, MetadataIndex, TensorProperties)
    from torchlike.distributed.checkpoint.planner import (
        SavePlan, TensorWriteData, WriteItem, WriteItemType)
    pieces = [((r, 0), (1, 4)) for r in range(rows)] + list(extra)
    return [SavePlan([WriteItem(MetadataIndex("w", offsets), WriteItemType.SHARD,
                                TensorWriteData(ChunkStorageMetadata(offsets, sizes),
                                                TensorProperties(torchlike.float32), (rows, 4)))])
            for offsets, sizes in pieces]


def test_save_plan_refuses_overlapping_pieces():
    # the global plan checks the pieces with the load's sweep (sorted by
    # offset), not all pairs: 20000 row pieces are checked in one pass
    from torchlike.distributed.checkpoint.default_planner import create_default_global_save_plan
    _, md = create_default_global_save_plan(_row_pieces(20000))
    assert len(md.state_dict_metadata["w"].chunks) == 20000
    with pytest.raises(ValueError, match=r"the pieces of 'w' overlap: offsets \[7, 0\] sizes "
                                         r"\[1, 4\] and offsets \[7, 2\] sizes \[2, 1\]"):
        create_default_global_save_plan(_row_pieces(20, extra=[((7, 2), (2, 1))]))
    # an empty piece overlaps nothing
    create_default_global_save_plan(_row_pieces(20, extra=[((7, 2), (0, 1))]))
