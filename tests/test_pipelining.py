"""torchlike.distributed.pipelining over 4 real processes (one world for the
module): each schedule trains the cases of tests/pipelining_cases.py on the
4 ranks and, at the same time, on the pairs {0, 1} and {2, 3} (groups);
step's returns, the losses, the parameters after 3 SGD steps, the Pipe of
pipeline() and the errors match PyTorch's (tests/golden/pipelining.json,
scripts/golden_pipelining.py) and the parameters match the whole model
trained in one process.  In the same world: failures on one rank (a shape
that differs from the agreed metadata, a module that raises) make every
rank of the pipeline raise a clear error, and the group runs the next step
(GPipe and 1F1B, and ZB-V with its V placement); a stage's split backward
gives a plain backward's gradients bit for bit."""
import datetime
import json
import os
import warnings

import numpy as np
import pytest

import torchlike
import torchlike.distributed as dist
import torchlike.distributed.pipelining as pp
import torchlike.distributed.pipelining.microbatch as mb
from torchlike.distributed.pipelining import schedules as S
from torchlike.distributed.pipelining._utils import PipeliningMetadataError
from dist_helpers import close_tree, put, results, spawn_world
from pipelining_cases import (LR, N_MB, SCHEDULES, STEPS, batch, blocks, layout, run_errors,
                              run_inputs, run_microbatch, run_pipe, run_schedules,
                              run_zero_bubble)

WORLD = 4
GOLDEN = os.path.join(os.path.dirname(__file__), "golden", "pipelining.json")
F = torchlike.nn.functional


def _golden():
    with open(GOLDEN) as f:
        return json.load(f)


def _reference(n_stages, steps, n_mb=N_MB):
    """The whole model after ``steps`` SGD steps on the whole batch (mean
    loss), and the per-microbatch losses before each step."""
    model = blocks(torchlike, n_stages)
    opt = torchlike.optim.SGD(model.parameters(), lr=LR)
    x, y = batch(torchlike)
    losses = []
    for _ in range(steps):
        with torchlike.no_grad():
            losses.append([float(F.mse_loss(model(a), b)) for a, b in
                           zip(x.tensor_split(n_mb), y.tensor_split(n_mb))])
        opt.zero_grad()
        F.mse_loss(model(x), y).backward()
        opt.step()
    return model, losses


def _step(sch, rank, last, x, y, losses=None):
    if rank == 0:
        return sch.step(x)
    if rank == last:
        return sch.step(target=y, losses=losses)
    return sch.step()


def _check_local_errors(rank, group):
    """Misuse caught on each rank alone, before any message."""
    dev = torchlike.device("cpu")
    lin = torchlike.nn.Linear(2, 2)
    with pytest.raises(RuntimeError, match="Pipeline group size 2 cannot be larger than "
                                           "number of stages 1"):
        pp.PipelineStage(lin, 0, 1, dev, group=group)
    with pytest.raises(ValueError, match="Stage index -1 is out of range of 2"):
        pp.PipelineStage(lin, -1, 2, dev, group=group)
    with pytest.raises(ValueError, match="ScheduleGPipe runs one stage per rank: the pipeline "
                                         "has 4 stages for a group of 2 ranks"):
        pp.ScheduleGPipe(pp.PipelineStage(lin, rank, 4, dev, group=group), 4)
    wrong = [pp.PipelineStage(lin, 1 - rank, 4, dev, group=group)]
    with pytest.raises(ValueError, match=rf"rank {rank} of a pipeline group of 2 must hold "
                                         rf"stages \[{rank}, {rank + 2}\]"):
        pp.ScheduleInterleaved1F1B(wrong, 4)
    looped = [pp.PipelineStage(lin, s, 4, dev, group=group) for s in (rank, rank + 2)]
    with pytest.raises(ValueError, match=rf"rank {rank} of a pipeline group of 2 must hold "
                                         rf"stages \[{rank}, {3 - rank}\] \(V placement"):
        pp.ScheduleZBVZeroBubble(looped, 4)
    with pytest.raises(TypeError, match="dw_builder must be callable, got int"):
        pp.PipelineStage(lin, rank, 2, dev, group=group, dw_builder=3)
    with pytest.raises(TypeError, match="input_args must be a tensor or a tuple of tensors"):
        pp.PipelineStage(lin, rank, 2, dev, input_args=[3], group=group)


def _check_pair_failures(rank, group):
    """On a pair: stage 1 declares inputs of the wrong shape; a batch whose
    microbatches differ in shape from the agreed ones; inputs given to the
    second stage.  Each failing step raises on both ranks, the next works."""
    x, y = batch(torchlike)
    dev = torchlike.device("cpu")
    model = blocks(torchlike, 2)
    kw = {"input_args": torchlike.zeros(2, 7, dtype=torchlike.float64)} if rank == 1 else {}
    sch = pp.ScheduleGPipe(pp.PipelineStage(model[rank], rank, 2, dev, group=group, **kw),
                           N_MB, loss_fn=F.mse_loss)
    with pytest.raises(PipeliningMetadataError) as e:
        _step(sch, rank, 1, x, y)
    want = (r"Stage 1 input[0]: shape mismatch: torch.Size([2, 7]) vs torch.Size([2, 5])"
            if rank == 1 else "Stage 0: the gradients of microbatch 0 from stage 1")
    assert want in str(e.value).replace("torchlike.", "torch."), str(e.value)
    assert all(p.grad is None for p in model.parameters())

    model = blocks(torchlike, 2)
    kw = {"input_args": torchlike.zeros(2, 5, dtype=torchlike.float64)} if rank == 1 else {}
    stage = pp.PipelineStage(model[rank], rank, 2, dev, group=group, **kw)
    sch = pp.ScheduleGPipe(stage, N_MB, loss_fn=F.mse_loss)
    opt = torchlike.optim.SGD(model[rank].parameters(), lr=LR)
    ref, ref_losses = _reference(2, 3)
    for k in range(3):
        opt.zero_grad()
        losses = []
        if k == 1:  # 10 rows: microbatches of 3, 3, 2, 2 rows, where 2 were agreed
            x10, y10 = batch(torchlike, 10)
            with pytest.raises(PipeliningMetadataError) as e:
                _step(sch, rank, 1, x10, y10)
            want = ("Stage 0 output[0] of microbatch 0: shape (3, 5)" if rank == 0 else
                    "Stage 1: the activations of microbatch 0 from stage 0")
            assert want in str(e.value), str(e.value)
            opt.zero_grad()
        if k == 2:  # the first stage's rank forgets its inputs
            with pytest.raises((ValueError, PipeliningMetadataError)) as e:
                sch.step() if rank == 0 else sch.step(target=y)
            want = ("Stage 0 is on this rank: step() needs the batch's inputs" if rank == 0
                    else "Stage 1: the activations of microbatch 0 from stage 0 (rank")
            assert want in str(e.value), str(e.value)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            ret = sch.step(x, target=y, losses=losses)  # x is ignored on rank 1
        assert [str(m.message).startswith("step() got positional inputs on a rank") for m in w] \
            == ([True] if rank == 1 else []), [str(m.message) for m in w]
        if rank == 1:
            np.testing.assert_allclose([float(v) for v in losses], ref_losses[k], rtol=1e-12)
            assert ret.shape == (8, 3) and not ret.requires_grad
        opt.step()
    for a, b in zip(model[rank].parameters(), ref[rank].parameters()):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-12,
                                   atol=1e-14)


class _Boom(torchlike.nn.Module):
    """A block that raises while ``armed``."""

    def __init__(self, inner):
        super().__init__()
        self.inner = inner
        self.armed = False

    def forward(self, x):
        if self.armed:
            raise ValueError("boom")
        return self.inner(x)


def _check_chain_failure(rank):
    """4 ranks, 1F1B: stage 2's module raises in the second step; every rank
    raises (stage 2 the module's error, the others the news of it), and the
    third step trains as if the second had not happened."""
    x, y = batch(torchlike)
    model = blocks(torchlike, 4)
    mod = _Boom(model[rank])
    sch = pp.Schedule1F1B(pp.PipelineStage(mod, rank, 4, torchlike.device("cpu")), N_MB,
                          loss_fn=F.mse_loss)
    opt = torchlike.optim.SGD(mod.parameters(), lr=LR)
    ref, ref_losses = _reference(4, 2)
    for k in range(3):
        opt.zero_grad()
        losses = []
        if k == 1:
            mod.armed = rank == 2
            with pytest.raises(RuntimeError) as e:
                _step(sch, rank, 3, x, y, losses)
            msg = str(e.value)
            if rank == 2:
                assert "[Stage 2] failed to run forward on microbatch 0: boom" in msg, msg
            else:
                assert isinstance(e.value, PipeliningMetadataError), msg
                assert "from stage" in msg and "did not arrive as agreed" in msg, msg
            mod.armed = False
            continue
        _step(sch, rank, 3, x, y, losses)
        if rank == 3:
            np.testing.assert_allclose([float(v) for v in losses], ref_losses[min(k, 1)],
                                       rtol=1e-12)
        opt.step()
    for a, b in zip(model[rank].parameters(), ref[rank].parameters()):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-12,
                                   atol=1e-14)


def _check_split_backward(rank, group):
    """A stage's input step then weight step give the parameters bit for bit
    the gradients of one plain backward, and the inputs' gradients too; the
    first stage's W backpropagates into an input that requires grad; a W
    without its I is refused."""
    dev = torchlike.device("cpu")
    x = torchlike.cos(torchlike.arange(12, dtype=torchlike.float64)).reshape(3, 4)
    g = torchlike.sin(torchlike.arange(15, dtype=torchlike.float64)).reshape(3, 5)
    grads = {}
    for full in (True, False):
        mod = blocks(torchlike, 3)[0]
        st = pp.PipelineStage(mod, 1, 2, dev, group=group)
        st.has_backward = True
        inp = x.detach().requires_grad_(True)
        st._forward(0, (inp,), {})
        in_grads = st._backward(0, output_grads=[g], full=full)
        assert all(p.grad is None for p in mod.parameters()) != full
        if not full:
            st._backward_weight(0)
            with pytest.raises(RuntimeError, match="without first running its input backward"):
                st._backward_weight(0)
        grads[full] = [p.grad.numpy().copy() for p in mod.parameters()] + [in_grads[0].numpy()]
    for a, b in zip(grads[True], grads[False]):
        np.testing.assert_array_equal(a, b)
    mod = blocks(torchlike, 3)[0]
    st = pp.PipelineStage(mod, 0, 2, dev, group=group)
    st.has_backward = True
    inp = x.detach().requires_grad_(True)
    st._forward(0, (inp,), {})
    st._backward(0, output_grads=[g], full=False)
    assert inp.grad is None
    st._backward_weight(0)
    np.testing.assert_array_equal(inp.grad.numpy(), grads[True][-1])


def _check_zbv_failure(rank, group):
    """On a pair, ZB-V (stages r and 3 - r; the loss on rank 0): stage 2's
    module raises in the second step, both ranks raise, and the third step
    trains as if the second had not happened; eval() then gives the whole
    model's output and losses."""
    x, y = batch(torchlike)
    model = blocks(torchlike, 4)
    mods = {s: _Boom(model[s]) for s in (rank, 3 - rank)}
    stages = [pp.PipelineStage(mods[s], s, 4, torchlike.device("cpu"), group=group)
              for s in (rank, 3 - rank)]
    sch = pp.ScheduleZBVZeroBubble(stages, N_MB, loss_fn=F.mse_loss)
    opt = torchlike.optim.SGD([p for m in mods.values() for p in m.parameters()], lr=LR)
    ref, ref_losses = _reference(4, 2)
    for k in range(3):
        opt.zero_grad()
        losses = []
        if k == 1:
            mods[3 - rank].armed = rank == 1
            with pytest.raises(RuntimeError) as e:
                sch.step(x, target=y, losses=losses) if rank == 0 else sch.step()
            msg = str(e.value)
            if rank == 1:
                assert "[Stage 2] failed to run forward on microbatch 0: boom" in msg, msg
            else:
                assert isinstance(e.value, PipeliningMetadataError), msg
                assert "did not arrive as agreed" in msg, msg
            mods[3 - rank].armed = False
            continue
        sch.step(x, target=y, losses=losses) if rank == 0 else sch.step()
        if rank == 0:
            np.testing.assert_allclose([float(v) for v in losses], ref_losses[min(k, 1)],
                                       rtol=1e-12)
            assert not any(v.requires_grad for v in losses)
        opt.step()
    for s in (rank, 3 - rank):
        for a, b in zip(model[s].parameters(), ref[s].parameters()):
            np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-12,
                                       atol=1e-14)
    losses = []
    out = sch.eval(x, target=y, losses=losses) if rank == 0 else sch.eval()
    if rank == 0:
        with torchlike.no_grad():
            want = ref(x)
        np.testing.assert_allclose(out.detach().numpy(), want.numpy(), rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose([float(v) for v in losses],
                                   [float(F.mse_loss(a, b)) for a, b in
                                    zip(want.tensor_split(N_MB), y.tensor_split(N_MB))],
                                   rtol=1e-12)
    else:
        assert out is None


def _main(rank, ws, init, outdir):
    dist.init_process_group("gloo", init_method=init, rank=rank, world_size=ws,
                            timeout=datetime.timedelta(seconds=60))  # fail, never hang
    pairs = [dist.new_group([0, 1]), dist.new_group([2, 3])]
    group, r2 = pairs[rank // 2], rank % 2
    out = {"4": {"schedules": run_schedules(torchlike, pp, rank, ws),
                 "pipe": run_pipe(torchlike, pp, rank, ws),
                 "errors": run_errors(torchlike, pp, rank, ws),
                 "inputs": run_inputs(torchlike, pp, rank, ws),
                 "zero_bubble": run_zero_bubble(torchlike, pp, rank, ws)},
           "2": {"schedules": run_schedules(torchlike, pp, r2, 2, group),
                 "pipe": run_pipe(torchlike, pp, r2, 2, group),
                 "errors": run_errors(torchlike, pp, r2, 2, group),
                 "inputs": run_inputs(torchlike, pp, r2, 2, group),
                 "zero_bubble": run_zero_bubble(torchlike, pp, r2, 2, group)}}
    _check_local_errors(r2, group)
    _check_split_backward(r2, group)
    _check_pair_failures(r2, group)
    _check_zbv_failure(r2, group)
    _check_chain_failure(rank)
    put(outdir, rank, out)
    dist.destroy_process_group()


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """Each rank's results, once every in-process check passed on every rank;
    as {"2": [rank 0, rank 1] of each pair, "4": [ranks 0..3]}."""
    res = results(spawn_world(_main, WORLD, tmp_path_factory.mktemp("pipelining")), WORLD)
    return {"4": [r["4"] for r in res],
            "2": [[res[0]["2"], res[1]["2"]], [res[2]["2"], res[3]["2"]]]}


def _per_rank(world, ws):
    """(rank in the pipeline, torchlike's result, PyTorch's) for every rank of
    every pipeline of ``ws`` ranks."""
    golden = _golden()[ws]
    pipes = [world["4"]] if ws == "4" else world["2"]
    return [(r, p[r], golden[r]) for p in pipes for r in range(int(ws))]


@pytest.mark.parametrize("ws", ["2", "4"])
@pytest.mark.parametrize("name", SCHEDULES)
def test_schedules_match_pytorch(world, ws, name):
    """step's return (the merged output on the last stage, detached; None
    elsewhere), the losses list (one 0-d loss per microbatch that requires
    grad) and the parameters after 3 steps, per rank."""
    for r, got, want in _per_rank(world, ws):
        close_tree(got["schedules"][name], want["schedules"][name], f"rank{r}.{name}")


@pytest.mark.parametrize("ws", ["2", "4"])
@pytest.mark.parametrize("name", SCHEDULES)
def test_schedules_train_as_one_process(world, ws, name):
    """Each stage's parameters after 3 pipelined steps equal the whole
    model's after 3 steps on the whole batch with the mean loss; the last
    stage's losses are the microbatches' losses."""
    n_stages, _, n_mb = layout(name, 0, int(ws))
    ref, ref_losses = _reference(n_stages, STEPS, n_mb)
    seen = set()
    for r, got, _ in _per_rank(world, ws):
        for s, flat in got["schedules"][name]["params"].items():
            want = np.concatenate([p.detach().numpy().reshape(-1)
                                   for p in ref[int(s)].parameters()])
            np.testing.assert_allclose(flat, want, rtol=1e-12, atol=1e-14, err_msg=s)
            seen.add(int(s))
        if str(n_stages - 1) in got["schedules"][name]["params"]:  # the last stage's rank
            got_losses = [step[0] for step in got["schedules"][name]["losses"]]
            np.testing.assert_allclose(got_losses, ref_losses, rtol=1e-12)
    assert seen == set(range(n_stages))


@pytest.mark.parametrize("ws", ["2", "4"])
def test_pipeline_matches_pytorch(world, ws):
    """pipeline(): the number of stages, each stage module's parameters and
    children (the original qualified names), split_gm's submod_pp_<i>,
    Pipe's output (a tuple), the index error; two GPipe steps over the
    stages built from it."""
    for r, got, want in _per_rank(world, ws):
        close_tree(got["pipe"], want["pipe"], f"rank{r}.pipe")


@pytest.mark.parametrize("ws", ["2", "4"])
def test_errors_match_pytorch(world, ws):
    """Stage index out of range, too few microbatches for 1F1B, step under
    no_grad, a batch with fewer rows than microbatches (the last stage:
    ValueError where PyTorch raises AssertionError, with PyTorch's words
    first), then eval() and a forward-only schedule."""
    for r, got, want in _per_rank(world, ws):
        got, want = dict(got["errors"]), dict(want["errors"])
        if want.get("few_rows", [""])[0] == "AssertionError":
            kind, msg = got.pop("few_rows")
            assert kind == "ValueError" and msg.startswith(want.pop("few_rows")[1]), msg
        close_tree(got, want, f"rank{r}.errors")


@pytest.mark.parametrize("ws", ["2", "4"])
def test_inputs_match_pytorch(world, ws):
    """Keyword inputs cut into microbatches and given to every stage, the
    same step from pre-split microbatches (returns, losses, gradients), and
    the errors of mixing the two or passing a tuple."""
    for r, got, want in _per_rank(world, ws):
        close_tree(got["inputs"], want["inputs"], f"rank{r}.inputs")


@pytest.mark.parametrize("ws", ["2", "4"])
def test_zero_bubble_matches_pytorch(world, ws):
    """The zero-bubble schedules' refusals carry PyTorch's words (2 stages
    per rank for ZB-V and DualPipeV, the rounds of microbatches, DualPipeV's
    microbatches); stages in a placement the schedule does not use are
    refused at construction, where PyTorch builds the schedule and its
    step() then fails on one rank and waits forever on the other; a
    dw_builder is built at each I and its runner called at each W, and the
    gradients are PyTorch's."""
    for r, got, want in _per_rank(world, ws):
        got, want = dict(got["zero_bubble"]), dict(want["zero_bubble"])
        for key in ("zbv_looped", "izb_v"):
            assert want.pop(key) == ["OK", None]
            kind, msg = got.pop(key)
            assert kind == "ValueError" and "placement" in msg, msg
        close_tree(got, want, f"rank{r}.zero_bubble", tol=1e-12)


def test_microbatch_matches_pytorch():
    """split_args_kwargs_into_chunks (specs per kwarg, replicated values,
    fewer chunks than asked for a short tensor) and merge_chunks."""
    close_tree(run_microbatch(torchlike, mb), _golden()["microbatch"], "microbatch")


@pytest.mark.parametrize("P,v,n", [(2, 2, 4), (4, 2, 4), (4, 2, 8), (3, 3, 6), (2, 3, 2),
                                   (4, 1, 4)])
def test_multi_stage_orders_complete(P, v, n):
    """Every rank's order of the multi-stage schedules holds each forward and
    backward of its stages once and runs to the end with waiting receives."""
    for order_fn in (S._interleaved_order, S._looped_bfs_order):
        orders = {r: order_fn(r, P, v, n) for r in range(P)}
        for r, acts in orders.items():
            want = {(k, s, i) for k in "FB" for s in range(r, P * v, P) for i in range(n)}
            assert sorted(acts) == sorted(want), (order_fn.__name__, r)
        assert S._simulate(orders, P * v), (order_fn.__name__, P, v, n)
    for stages in (2, 4):
        orders = {r: S._1f1b_order(r, stages, n) for r in range(stages)} if n >= stages \
            else None
        if orders:
            assert S._simulate(orders, stages)
        assert S._simulate({r: S._gpipe_order(r, n) for r in range(stages)}, stages)


_ZB_GRID = [(P, v, n, placement) for P, v, n in [(2, 2, 1), (2, 2, 4), (4, 2, 4), (4, 2, 8),
                                                   (3, 3, 6), (4, 1, 4), (4, 2, 3)]
            for placement in ("loop", "v") if placement == "loop" or v == 2]


@pytest.mark.parametrize("P,v,n,placement", _ZB_GRID)
@pytest.mark.parametrize("dual", [False, True])
def test_zero_bubble_orders_complete(P, v, n, placement, dual):
    """The zero-bubble orders: each rank's stages are the placement's, every
    F once, every backward once as a B or as an I followed later by its W,
    and the lists run to the end with waiting receives."""
    rank_of = S._stage_to_rank(P, P * v, placement)
    orders = S._greedy_order(rank_of, P, P * v, n,
                             (lambda r, s, i, f: f > 0 and i % 2 == 0) if dual else None)
    for r, acts in orders.items():
        mine = [s for s in range(P * v) if rank_of[s] == r]
        assert sorted((s, i) for k, s, i in acts if k == "F") == \
            [(s, i) for s in mine for i in range(n)]
        assert sorted((s, i) for k, s, i in acts if k in "BI") == \
            [(s, i) for s in mine for i in range(n)]
        for k, s, i in acts:
            if k == "W":
                assert acts.index(("I", s, i)) < acts.index(("W", s, i))
        assert {i for k, s, i in acts if k == "I"} == {i for k, s, i in acts if k == "W"}
        assert dual or not any(k == "B" for k, _, _ in acts)
    assert S._simulate(orders, P * v), (P, v, n, placement)
    assert rank_of == {s: (s % P if placement == "loop" or (s // P) % 2 == 0
                           else P - 1 - s % P) for s in range(P * v)}


def test_v_placement_matches_pytorch():
    """V placement: rank r holds stages r and 2P - 1 - r (PyTorch's mapping
    for 2 stages per rank; beyond, down and up again)."""
    assert S._stage_to_rank(4, 8, "v") == {0: 0, 1: 1, 2: 2, 3: 3, 4: 3, 5: 2, 6: 1, 7: 0}
    assert S._stage_to_rank(2, 6, "v") == {0: 0, 1: 1, 2: 1, 3: 0, 4: 0, 5: 1}
    with pytest.raises(ValueError, match="num_stages 5 must be evenly divisible by pp_size 2 "
                                         "for V schedules"):
        S._stage_to_rank(2, 5, "v")


def test_simulate_finds_a_deadlock():
    """The check itself: backwards before forwards on the last stage never run."""
    orders = {0: S._gpipe_order(0, 2), 1: [("B", 1, 0), ("F", 1, 0), ("F", 1, 1), ("B", 1, 1)]}
    assert not S._simulate(orders, 2)
    # a W before its own I, and an I upstream before the I downstream it needs
    orders = {0: [("F", 0, 0), ("I", 0, 0), ("W", 0, 0)],
              1: [("F", 1, 0), ("W", 1, 0), ("I", 1, 0)]}
    assert not S._simulate(orders, 2)
    orders[1] = [("F", 1, 0), ("I", 1, 0), ("W", 1, 0)]
    assert S._simulate(orders, 2)


def test_pipeline_passes_values_through_stages():
    """A value made in stage 0 and used in stage 2 goes through stage 1;
    the stages run one after another compute the model; the split markers
    do nothing outside tracing; split_spec naming no module is an error."""
    nn = torchlike.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.a, self.b, self.c = nn.Linear(4, 4), nn.Linear(4, 4), nn.Linear(4, 2)

        def forward(self, x):
            h = torchlike.relu(self.a(x))
            pp.pipe_split()
            g = self.b(h) * 2.0
            pp.pipe_split()
            return self.c(g + h) + x.sum()

    net = Net()
    x = torchlike.randn(3, 4)
    pipe = pp.pipeline(net, (x,))
    assert pipe.num_stages == 3
    s0, s1, s2 = (pipe.get_stage_module(i) for i in range(3))
    outs0 = s0(x)
    assert isinstance(outs0, tuple) and len(outs0) == 2  # x and h
    outs1 = s1(*outs0)
    np.testing.assert_allclose(s2(*outs1).detach().numpy(), net(x).detach().numpy(),
                               rtol=1e-6)
    np.testing.assert_allclose(pipe(x)[0].detach().numpy(), net(x).detach().numpy(),
                               rtol=1e-6)
    assert [n for n, _ in s1.named_parameters()] == ["b.weight", "b.bias"]
    with pytest.raises(ValueError, match=r"split_spec names modules the model does not "
                                         r"have: \['zz'\]"):
        pp.pipeline(net, (x,), split_spec={"zz": pp.SplitPoint.END})
    with pytest.raises(NotImplementedError, match="split_policy"):
        pp.pipeline(net, (x,), split_policy=lambda gm: gm)


def test_get_schedule_class():
    """PyTorch's names, any case; an unknown one lists the valid ones."""
    assert S.get_schedule_class("1f1b") is pp.Schedule1F1B
    assert S.get_schedule_class("GPipe") is pp.ScheduleGPipe
    assert S.get_schedule_class("interleaved1F1B") is pp.ScheduleInterleaved1F1B
    assert S.get_schedule_class("LoopedBFS") is pp.ScheduleLoopedBFS
    assert S.get_schedule_class("zbvzerobubble") is pp.ScheduleZBVZeroBubble
    assert S.get_schedule_class("InterleavedZeroBubble") is pp.ScheduleInterleavedZeroBubble
    assert S.get_schedule_class("DualPipeV") is pp.ScheduleDualPipeV
    with pytest.raises(ValueError, match=r"Unknown schedule name 'ZB'. The valid options are "
                                         r"\['1F1B', 'Interleaved1F1B', 'GPipe', 'LoopedBFS', "
                                         r"'InterleavedZeroBubble', 'PipelineScheduleSingle', "
                                         r"'PipelineScheduleMulti', 'ZBVZeroBubble', "
                                         r"'DualPipeV'\]"):
        S.get_schedule_class("ZB")
