"""torchlike.distributed.tensor (DTensor) and .tensor.parallel over 4 real
processes (one world for the module): the local pieces of uneven Shard on
1-D meshes of 4 and 2 ranks and a 2x2 mesh, every redistribution, the
placements and values of op results, gradients through from_local /
to_local / redistribute, errors and parallelize_module match PyTorch's
(tests/golden/dtensor.json, recorded by scripts/golden_dtensor.py from the
cases in tests/dtensor_cases.py); a colwise + rowwise MLP trains as the
unparallelised one on 4 and on 2 ranks."""
import copy
import datetime
import json
import os
import pickle

import numpy as np
import pytest

import torchlike
import torchlike.distributed as dist
import torchlike.distributed.tensor as dt
import torchlike.distributed.tensor.debug  # noqa: F401  (CommDebugMode, for the cases)
import torchlike.distributed.tensor.parallel as tp
from dist_helpers import close_tree, put, results, spawn_world
from dtensor_cases import WORLD, base, make_mlp, meshes, run_all

GOLDEN = os.path.join(os.path.dirname(__file__), "golden", "dtensor.json")

# where torchlike deliberately differs (docs/distributed.md, DTensor)
_OWN_ERRORS = {
    # PyTorch: an IndexError from inside / no error at all (zip truncates)
    "from_local_too_long": "ValueError",
    "redistribute_too_long": "ValueError",
}


_F = "c10d_functional."
# CommDebugMode counts where torchlike deliberately sends other collectives
# (docs/distributed.md, DTensor): {case: (torchlike's counts, PyTorch's)}
_OWN_COMM = {
    # PyTorch's CPU (gloo) path gathers and cuts; it sends all_to_all_single on CUDA
    "S0->S1": ({_F + "all_to_all_single": 1}, {_F + "all_gather_into_tensor": 1}),
    "nested_inner": ({_F + "all_to_all_single": 1}, {_F + "all_gather_into_tensor": 1}),
    "nested_outer": ({_F + "all_gather_into_tensor": 1, _F + "all_to_all_single": 1},
                     {_F + "all_gather_into_tensor": 2}),
    # distribute_tensor broadcasts the whole tensor and cuts it (PyTorch scatters pieces)
    "distribute_S0": ({"c10d.broadcast_": 1}, {"c10d.scatter_": 1}),
    # the gradient of a replicated output arrives as partial sums (the adjoint
    # layout): the rowwise all_reduce's backward and the replicated bias
    # reduce it; PyTorch keeps such gradients replicated / Partial
    "mlp_backward": ({_F + "all_reduce": 2}, {}),
    "loss_parallel_backward": ({_F + "all_reduce": 1}, {}),
}


def _golden():
    with open(GOLDEN) as f:
        return json.load(f)


def _close(got, want, path):
    """got equals want (trees of dicts and lists), floats to 1e-12 relative;
    errors compare by exception type."""
    close_tree(got, want, path, tol=1e-12, errors_by_type=True)


# ---- checks run inside the world (torchlike only) -------------------------------------------

def _train_mlp(mesh, rank, opt):
    """3 optimizer steps of a colwise + rowwise MLP equal those of the plain
    MLP: outputs, gathered gradients and parameters (with gradient
    clipping for Adam)."""
    ref, par = make_mlp(torchlike, 8), make_mlp(torchlike, 8)
    tp.parallelize_module(par, mesh, {"0": tp.ColwiseParallel(), "2": tp.RowwiseParallel()})
    o_ref, o_par = opt(ref.parameters()), opt(par.parameters())
    x = base(torchlike, (4, 6)).sin()
    for _ in range(3):
        o_ref.zero_grad()
        o_par.zero_grad()
        y_ref, y_par = ref(x), par(x)
        assert type(y_par) is torchlike.Tensor
        np.testing.assert_allclose(y_par.detach().numpy(), y_ref.detach().numpy(),
                                   rtol=1e-12, atol=1e-13)
        (y_ref ** 2).mean().backward()
        (y_par ** 2).mean().backward()
        for (name, a), b in zip(ref.named_parameters(), par.parameters()):
            assert isinstance(b, dt.DTensor) and isinstance(b.grad, dt.DTensor), name
            np.testing.assert_allclose(b.grad.full_tensor().numpy(), a.grad.numpy(),
                                       rtol=1e-12, atol=1e-13, err_msg=name)
        if isinstance(o_ref, torchlike.optim.AdamW):
            n_ref = torchlike.nn.utils.clip_grad_norm_(ref.parameters(), 0.1)
            n_par = torchlike.nn.utils.clip_grad_norm_(par.parameters(), 0.1)
            np.testing.assert_allclose(float(n_par), float(n_ref), rtol=1e-12)
        o_ref.step()
        o_par.step()
    for (name, a), b in zip(ref.named_parameters(), par.parameters()):
        np.testing.assert_allclose(b.full_tensor().detach().numpy(), a.detach().numpy(),
                                   rtol=1e-12, atol=1e-13, err_msg=name)
    # the state dict holds the DTensors; a deep copy keeps them parameters
    sd = par.state_dict()
    assert all(isinstance(v, dt.DTensor) for v in sd.values())
    assert tuple(sd["0.weight"].shape) == (8, 6)
    twin = copy.deepcopy(par)
    assert isinstance(twin[0].weight, torchlike.nn.Parameter)
    assert twin[0].weight.placements == (dt.Shard(0),)
    np.testing.assert_array_equal(twin(x).detach().numpy(), par(x).detach().numpy())


def _check_sequence_parallel(mesh, rank):
    """torchtitan's block: LayerNorm under SequenceParallel (sequence dim
    sharded), a colwise Linear gathering the sequence, a rowwise Linear
    reduce-scattering it back; outputs and gathered gradients equal the
    plain block's."""
    def block():
        torchlike.manual_seed(4)
        return torchlike.nn.Sequential(torchlike.nn.LayerNorm(6), torchlike.nn.Linear(6, 8),
                                       torchlike.nn.GELU(), torchlike.nn.Linear(8, 6)).double()
    ref, par = block(), block()
    tp.parallelize_module(par, mesh, {
        "0": tp.SequenceParallel(),
        "1": tp.ColwiseParallel(input_layouts=dt.Shard(1)),
        "3": tp.RowwiseParallel(output_layouts=dt.Shard(1), use_local_output=False)})
    x = base(torchlike, (2, 8, 6)).cos()
    y = par(x.chunk(WORLD, 1)[rank])
    assert y.placements == (dt.Shard(1),) and tuple(y.shape) == (2, 8, 6)
    y_ref = ref(x)
    np.testing.assert_allclose(y.full_tensor().detach().numpy(), y_ref.detach().numpy(),
                               rtol=1e-12, atol=1e-13)
    (y ** 2).sum().full_tensor().backward()
    (y_ref ** 2).sum().backward()
    for (name, a), b in zip(ref.named_parameters(), par.parameters()):
        np.testing.assert_allclose(b.grad.full_tensor().numpy(), a.grad.numpy(), rtol=1e-11,
                                   atol=1e-12, err_msg=name)


def _check_checkpoint(ms, rank, outdir):
    """dcp.save of a tensor-parallel model writes each DTensor's pieces as
    chunks of the global tensor; they load into another parallelised model
    (4 ranks, or 2 on a mesh slice), into plain modules, and a plain
    model's checkpoint loads into DTensor parameters."""
    import torchlike.distributed.checkpoint as dcp

    def par(mesh, hidden=8):
        m = make_mlp(torchlike, hidden)
        return tp.parallelize_module(m, mesh, {"0": tp.ColwiseParallel(),
                                               "2": tp.RowwiseParallel()})
    ref = make_mlp(torchlike, 8)
    src = par(ms["m4"])
    path = os.path.join(outdir, "tp_ckpt")
    dcp.save({"model": src.state_dict()}, checkpoint_id=path)
    for target in (par(ms["m4"]), par(ms["m2"]), make_mlp(torchlike, 8)):
        with torchlike.no_grad():
            for p in target.parameters():
                p.zero_()
        sd = target.state_dict()
        dcp.load({"model": sd}, checkpoint_id=path)
        for (name, a), b in zip(ref.named_parameters(), target.parameters()):
            got = b.full_tensor() if isinstance(b, dt.DTensor) else b
            np.testing.assert_array_equal(got.detach().numpy(), a.detach().numpy(), name)
    plain_path = os.path.join(outdir, "plain_ckpt")
    with torchlike.no_grad():
        for p in ref.parameters():
            p.mul_(-2.0)
    dcp.save({"model": ref.state_dict()}, checkpoint_id=plain_path)
    target = par(ms["m2"])
    dcp.load({"model": target.state_dict()}, checkpoint_id=plain_path)
    for (name, a), b in zip(ref.named_parameters(), target.parameters()):
        np.testing.assert_array_equal(b.full_tensor().detach().numpy(), a.detach().numpy(),
                                      name)
    assert isinstance(target[0].weight, dt.DTensor)


def _train_2d(m22, rank):
    """On the 2x2 mesh: parameters Shard over "tp" and replicated over
    "dp"; each "dp" row gets its half of the batch through a
    [Shard(0), Replicate] input; the gradients equal the whole batch's."""
    ref = make_mlp(torchlike, 8)
    w1 = dt.distribute_tensor(ref[0].weight.detach(), m22, [dt.Replicate(), dt.Shard(0)])
    b1 = dt.distribute_tensor(ref[0].bias.detach(), m22, [dt.Replicate(), dt.Shard(0)])
    w2 = dt.distribute_tensor(ref[2].weight.detach(), m22, [dt.Replicate(), dt.Shard(1)])
    for t in (w1, b1, w2):
        t.requires_grad_()
    x = base(torchlike, (4, 6)).cos()
    xd = dt.distribute_tensor(x, m22, [dt.Shard(0), dt.Replicate()])
    h = torchlike.relu(torchlike.nn.functional.linear(xd, w1, b1))
    assert h.placements == (dt.Shard(0), dt.Shard(1))
    y = torchlike.nn.functional.linear(h, w2)
    assert y.placements == (dt.Shard(0), dt.Partial())
    loss = (y ** 2).sum()
    loss.full_tensor().backward()
    (ref(x)[:, :] - ref[2].bias).pow(2).sum().backward()
    for t, p in ((w1, ref[0].weight), (b1, ref[0].bias), (w2, ref[2].weight)):
        np.testing.assert_allclose(t.grad.full_tensor().numpy(), p.grad.numpy(), rtol=1e-12,
                                   atol=1e-13)


def _rep(mesh, t):
    return dt.distribute_tensor(t, mesh, [dt.Replicate()] * mesh.ndim)


# op -> f(t, other): run on a DTensor (other: a maker of DTensors) and on the
# plain tensor (other: identity); the whole values must agree
_OPS_VS_PLAIN = {
    "squeeze": lambda t, o: t.unsqueeze(0).squeeze(0),
    "squeeze_all": lambda t, o: t.unsqueeze(2).squeeze(),
    "flatten": lambda t, o: t.flatten(1), "flatten_all": lambda t, o: t.flatten(),
    "permute": lambda t, o: t.permute((2, 0, 1)), "mT": lambda t, o: t.transpose(-1, -2),
    "softmax": lambda t, o: torchlike.softmax(t, -1),
    "log_softmax_sharded_dim": lambda t, o: torchlike.nn.functional.log_softmax(t, dim=1),
    "layer_norm": lambda t, o: torchlike.nn.functional.layer_norm(t, (4,)),
    "new_zeros": lambda t, o: t.new_zeros(t.shape) + t, "new_ones": lambda t, o: t.new_ones((5,)),
    "cat": lambda t, o: torchlike.cat([t, t], 1),
    "where": lambda t, o: torchlike.where(t > 3, t, t * 2),
    "clamp": lambda t, o: t.clamp(2, 10), "sum_dtype": lambda t, o: t.sum(1, dtype=torchlike.float64),
    "mean_keep": lambda t, o: t.mean((1, 2), keepdim=True), "mean_all": lambda t, o: t.mean(),
    "rpow": lambda t, o: 2 ** t, "abs": lambda t, o: abs(t - 5), "getitem": lambda t, o: t[:, 1],
    "max": lambda t, o: t.max(), "max_dim": lambda t, o: t.max(1).values,
    "to": lambda t, o: t.to(torchlike.float64), "view": lambda t, o: t.view(6, 4),
    "reshape_m1": lambda t, o: t.reshape(2, -1),
    "matmul_vec": lambda t, o: t @ o(torchlike.ones(4)),
    "bmm": lambda t, o: torchlike.bmm(t, o(torchlike.ones(2, 4, 5))),
    "add_broadcast": lambda t, o: t + o(torchlike.arange(4.0)),
    "mul_broadcast_mid": lambda t, o: t * o(torchlike.arange(3.0).reshape(3, 1)),
    "eq": lambda t, o: (t == t), "expand": lambda t, o: t[:, :1].expand(2, 3, 4),
    "norm": lambda t, o: t.norm(), "cumsum": lambda t, o: t.cumsum(1), "T": lambda t, o: t[0].T,
}


def _check_ops_vs_plain(mesh):
    """Ops on a tensor sharded unevenly along dim 1 (3 over 4 ranks: 1, 1,
    1, 0) give the plain tensor's values, in place ones too."""
    x = torchlike.arange(24.0).reshape(2, 3, 4)
    for pl in ([dt.Shard(1)], [dt.Shard(2)]):
        d = dt.distribute_tensor(x, mesh, pl)
        for name, f in _OPS_VS_PLAIN.items():
            got, want = f(d, lambda t: _rep(mesh, t)), f(x, lambda t: t)
            if isinstance(got, dt.DTensor):
                assert tuple(got.shape) == tuple(want.shape), name
                got = got.full_tensor()
            np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6, err_msg=name)
        for name, f in {"add_": lambda t, o: t.add_(1), "clamp_": lambda t, o: t.clamp_(0, 5),
                        "zero_": lambda t, o: t.zero_(), "fill_": lambda t, o: t.fill_(3.0),
                        "setitem": lambda t, o: t.__setitem__((0, 1), 7.0),
                        "iadd": lambda t, o: t.__iadd__(o(torchlike.ones(4))),
                        "copy_": lambda t, o: t.copy_(o(torchlike.ones(2, 3, 4)))}.items():
            a, b = x.clone(), dt.distribute_tensor(x, mesh, pl)
            f(a, lambda t: t)
            assert f(b, lambda t: _rep(mesh, t)) is b or name == "setitem", name
            assert b.placements == tuple(pl), name
            np.testing.assert_array_equal(b.full_tensor().numpy(), a.numpy(), err_msg=name)


_NO_GRAD = {"eq", "new_ones", "max_dim"}


def _check_grads_vs_plain(mesh):
    """The gradients of those ops (a leaf sharded unevenly; the loss a
    weighted sum of the gathered result) are the plain tensor's."""
    x = (torchlike.arange(24.0, dtype=torchlike.float64).reshape(2, 3, 4) * 0.37).sin()
    for pl in ([dt.Shard(1)], [dt.Shard(2)], [dt.Replicate()]):
        for name, f in _OPS_VS_PLAIN.items():
            if name in _NO_GRAD:
                continue
            a = x.clone().requires_grad_()
            want = f(a, lambda t: t.double())
            (want * want.detach().cos()).sum().backward()
            leaf = dt.distribute_tensor(x, mesh, pl).requires_grad_()
            got = f(leaf, lambda t: _rep(mesh, t.double()))
            full = got.full_tensor() if isinstance(got, dt.DTensor) else got
            (full * full.detach().cos()).sum().backward()
            assert leaf.grad.placements == tuple(pl), name
            np.testing.assert_allclose(leaf.grad.full_tensor().numpy(), a.grad.numpy(),
                                       rtol=1e-10, atol=1e-12, err_msg=f"{name} {pl}")


def _check_values(ms, rank):
    """Values against NumPy: uneven pieces put back together, random
    factories the same whole tensor on every rank, in-place ops."""
    m4 = ms["m4"]
    x = base(torchlike, (7, 5))
    want = x.numpy()
    for pl in ([dt.Shard(0)], [dt.Shard(1)], [dt.Replicate()]):
        d = dt.distribute_tensor(x, m4, pl)
        np.testing.assert_array_equal(d.full_tensor().numpy(), want)
        np.testing.assert_allclose((d * d).sum().full_tensor().numpy(), (want * want).sum())
    mine = x * (rank + 1)
    np.testing.assert_array_equal(  # the values of the rank given, or each its own
        dt.distribute_tensor(mine, m4, [dt.Shard(0)], src_data_rank=2).full_tensor().numpy(),
        want * 3)
    np.testing.assert_array_equal(
        dt.distribute_tensor(mine, m4, [dt.Replicate()], src_data_rank=None).to_local()
        .numpy(), want * (rank + 1))
    torchlike.manual_seed(5)
    r = dt.randn(6, 4, device_mesh=m4, placements=[dt.Shard(0)])
    torchlike.manual_seed(5)
    np.testing.assert_array_equal(r.full_tensor().numpy(), torchlike.randn(6, 4).numpy())
    d = dt.distribute_tensor(x, m4, [dt.Shard(1)])
    d.mul_(2).add_(1)
    d[0, 0] = 100.0  # the fallback's in-place path writes back into the piece
    w = want * 2 + 1
    w[0, 0] = 100.0
    np.testing.assert_array_equal(d.full_tensor().numpy(), w)
    assert d.placements == (dt.Shard(1),)
    assert np.asarray(d.to_local()).shape == (7, [2, 2, 1, 0][rank])
    assert repr(d).startswith("DTensor(local_tensor=tensor(") and "Shard(dim=1)" in repr(d)
    if rank == 0:  # printing is local: one rank alone may do it
        assert f"{d}" == repr(d)
    assert f"{d.sum():.1f}" == f"{float(w.sum()):.1f}"
    with m4:  # the mesh of the innermost with-block is the default
        assert dt.distribute_tensor(x, placements=[dt.Shard(0)]).device_mesh is m4
    with pytest.raises(RuntimeError, match="full_tensor"):
        np.asarray(d)
    with pytest.raises(RuntimeError, match="full_tensor"):
        d.numpy()
    with pytest.raises(TypeError, match="cannot be pickled"):
        pickle.dumps(d)
    assert d.sum().item() == pytest.approx(float(w.sum()))  # item() of the whole value
    drop = torchlike.nn.functional.dropout(d, 0.5, training=True)  # on each piece
    assert drop.placements == d.placements and tuple(drop.shape) == tuple(d.shape)
    kept = drop.to_local().numpy() != 0
    np.testing.assert_allclose(drop.to_local().numpy()[kept], 2 * d.to_local().numpy()[kept])
    from torchlike.distributed.tensor.experimental import implicit_replication
    with pytest.raises(RuntimeError, match="mixed torch.Tensor and DTensor"):
        dt.distribute_tensor(x, m4, [dt.Shard(0)]) + x
    with implicit_replication():  # the plain tensor is taken as replicated
        s = dt.distribute_tensor(x, m4, [dt.Shard(0)]) + x
    assert s.placements == (dt.Shard(0),)
    np.testing.assert_array_equal(s.full_tensor().numpy(), 2 * want)
    # run_check makes replicated pieces the first rank's; the gradient of a
    # replicated from_local input is whole on every rank
    mine = (base(torchlike, (3, 2)) * (rank + 1)).requires_grad_()
    r = dt.DTensor.from_local(mine, m4, [dt.Replicate()], run_check=True)
    np.testing.assert_array_equal(r.to_local().detach().numpy(), want_r := base(
        torchlike, (3, 2)).numpy())
    h = r * r
    h.retain_grad()
    (h.sum() * 3).full_tensor().backward()
    np.testing.assert_allclose(mine.grad.numpy(), 6 * want_r)
    assert h.grad.placements == (dt.Partial(),)  # a non-leaf's gradient: the adjoint layout
    np.testing.assert_array_equal(h.grad.full_tensor().numpy(), np.full((3, 2), 3.0))
    # embeddings parallelised either way look up the same rows (colwise:
    # this rank's column of them) and get the same gradients; 10 rows over
    # 4 ranks are 3, 3, 3, 1
    ids = torchlike.tensor([[0, 3, 9], [5, 5, 1]])
    for style, cols in ((tp.ColwiseParallel(), slice(rank, rank + 1)),
                        (tp.RowwiseParallel(input_layouts=dt.Replicate()), slice(None))):
        torchlike.manual_seed(2)
        ref = torchlike.nn.Embedding(10, 4).double()
        emb = copy.deepcopy(ref)
        tp.parallelize_module(emb, m4, style)
        got, want = emb(ids), ref(ids)[..., cols]
        np.testing.assert_array_equal(got.detach().numpy(), want.detach().numpy())
        (got * got).sum().backward()
        (want * want).sum().backward()
        g = emb.weight.grad.full_tensor().numpy()[:, cols]
        np.testing.assert_allclose(g, ref.weight.grad.numpy()[:, cols], rtol=1e-12)


def _check_partial_max_min(m4, rank):
    """Partial(max / min / product) meets only maps that commute with its
    reduction: negation, scaling, differences and sums of two such Partials
    give the value of the op on the reduced value (NumPy), not the
    reduction of the op on the pieces; so does a matmul by a replicated
    factor."""
    x = np.arange(6.0) - 10.0
    pieces = np.stack([x * (r + 1) for r in range(m4.size())])
    reduce = {"max": pieces.max(0), "min": pieces.min(0), "product": pieces.prod(0)}
    for op, val in reduce.items():
        def p():
            return dt.DTensor.from_local(torchlike.tensor(x * (rank + 1)), m4, [dt.Partial(op)])
        r = dt.distribute_tensor(torchlike.tensor(-x), m4, [dt.Replicate()])
        for got, want in [(-p(), -val), (p() * -2.0, val * -2.0), (p() + p(), 2 * val),
                          (p() - r, val + x), (r - p(), -x - val), (p() * r, val * -x),
                          (p() + r, val - x), (p().clone(), val)]:
            np.testing.assert_allclose(got.full_tensor().numpy(), want, rtol=1e-12, err_msg=op)
        # a replicated factor with negative entries: (max of pieces) @ w
        w = np.array([[1.0, -2.0], [-0.5, 3.0], [2.0, -1.0]])
        rw = dt.distribute_tensor(torchlike.tensor(w), m4, [dt.Replicate()])
        got = p().reshape(2, 3) @ rw
        np.testing.assert_allclose(got.full_tensor().numpy(), val.reshape(2, 3) @ w,
                                   rtol=1e-12, err_msg=op)


def _check_loss_parallel(ms, rank):
    """loss_parallel's losses and logits gradients equal the unsharded
    cross_entropy's (float64): uneven class pieces (10 classes: 3, 3, 3, 1;
    3 classes: 1, 1, 1 and an empty piece), every reduction, ignore_index,
    weight, (N, C, d) logits, the 2x2 mesh with the batch sharded over
    "dp"; log_softmax alone (its own backward, which PyTorch leaves to
    nll_loss) and nll_loss on it; outside the context the ops are
    unchanged (the logits gathered)."""
    F = torchlike.nn.functional
    m4, m22 = ms["m4"], ms["m22"]
    S0, S1, R = dt.Shard(0), dt.Shard(1), dt.Replicate()

    def both(x, t, mesh, pl, target=None, **kw):
        ref = x.clone().requires_grad_()
        want = F.cross_entropy(ref, t, **kw)
        gw = (want.detach() * 0 + 1).cumsum(0) if want.ndim else 1.0  # one per row
        (want * gw).sum().backward()
        d = dt.distribute_tensor(x, mesh, pl).requires_grad_()
        with tp.loss_parallel():
            got = F.cross_entropy(d, t if target is None else target, **kw)
        assert isinstance(got, dt.DTensor) and tuple(got.shape) == tuple(want.shape), kw
        (got.full_tensor() * gw).sum().backward()
        np.testing.assert_allclose(got.full_tensor().detach().numpy(), want.detach().numpy(),
                                   rtol=1e-13, atol=1e-14, err_msg=str(kw))
        assert d.grad.placements == tuple(pl), kw
        np.testing.assert_allclose(d.grad.full_tensor().numpy(), ref.grad.numpy(),
                                   rtol=1e-12, atol=1e-14, err_msg=str(kw))

    x = (base(torchlike, (6, 10)) * 0.73).sin() * 4.0
    t = torchlike.tensor([1, 9, 0, 3, 7, 9])
    w = torchlike.linspace(0.5, 2.0, 10, dtype=torchlike.float64)
    for kw in ({}, {"reduction": "sum"}, {"reduction": "none"}, {"ignore_index": 9},
               {"weight": w, "reduction": "mean"}, {"weight": w, "ignore_index": 3,
                                                    "reduction": "none"}):
        both(x, t, m4, [S1], **kw)
    both(x[:, :3], torchlike.tensor([0, 2, 1, 1, 0, 2]), m4, [S1])   # a rank holds no class
    both(x[:, :3], torchlike.tensor([0, 2, 1, 1, 0, 2]), m4, [S1], reduction="none")
    both(x * 50, t, m4, [S1])  # large logits: the shift by the global max keeps them finite
    x3 = (base(torchlike, (2, 10, 3)) * 0.41).cos()
    both(x3, torchlike.tensor([[1, 9, 0], [3, 7, -100]]), m4, [S1], reduction="none")
    both(x3, torchlike.tensor([[1, 9, 0], [3, 7, -100]]), m4, [S1])
    both(x[0], torchlike.tensor(6), m4, [S0])
    tdp = dt.distribute_tensor(t[:4], m22, [S0, R])
    both(x[:4], t[:4], m22, [S0, S1], target=tdp, reduction="sum")
    both(x[:4], t[:4], m22, [S1, S0], target=dt.distribute_tensor(t[:4], m22, [R, S0]),
         reduction="sum")
    both(x[:4], t[:4], m22, [R, S1], reduction="sum")

    # log_softmax alone: a backward of its own (one all_reduce), right for
    # any downstream gradient; nll_loss on it
    ref = x.float().double().requires_grad_()
    g = (base(torchlike, (6, 10)) * 0.3).cos()
    (F.log_softmax(ref, 1) * g).sum().backward()
    d = dt.distribute_tensor(x.float(), m4, [S1]).requires_grad_()
    with tp.loss_parallel():
        y = d.log_softmax(1, torchlike.float64)  # the method, its dtype given second
        assert y.placements == (S1,) and y.dtype == torchlike.float64
        (y * dt.distribute_tensor(g, m4, [S1])).sum().full_tensor().backward()
    np.testing.assert_allclose(y.full_tensor().detach().numpy(),
                               F.log_softmax(x.float().double(), 1).numpy(), rtol=1e-13)
    np.testing.assert_allclose(d.grad.full_tensor().numpy(), ref.grad.numpy(),
                               rtol=1e-6, atol=1e-7)
    ref = x.clone().requires_grad_()
    F.nll_loss(F.log_softmax(ref, 1), t, weight=w, reduction="sum").backward()
    d = dt.distribute_tensor(x, m4, [S1]).requires_grad_()
    with tp.loss_parallel():
        got = F.nll_loss(F.log_softmax(d, 1), t, weight=w, reduction="sum")
    got.backward()  # outside the context too (PyTorch refuses it there)
    np.testing.assert_allclose(d.grad.full_tensor().numpy(), ref.grad.numpy(), rtol=1e-12,
                               atol=1e-14)
    # a target out of range names it
    with tp.loss_parallel(), pytest.raises(IndexError, match="Target 10 is out of bounds"):
        F.cross_entropy(dt.distribute_tensor(x, m4, [S1]), t + 1)
    # outside: unchanged (PyTorch's mixed-tensor refusal; with a DTensor
    # target the logits are gathered, and the value is the same)
    with pytest.raises(RuntimeError, match="mixed torch.Tensor and DTensor"):
        F.cross_entropy(dt.distribute_tensor(x, m4, [S1]), t)
    plain_ce = F.cross_entropy(dt.distribute_tensor(x, m4, [S1]),
                               dt.distribute_tensor(t, m4, [R]))
    np.testing.assert_allclose(plain_ce.full_tensor().numpy(), F.cross_entropy(x, t).numpy(),
                               rtol=1e-13)


def _check_input_reshard(ms, rank):
    """input_reshard on an activation-checkpointed colwise + rowwise block:
    outputs and gradients are the plain block's; with the reentrant
    checkpoint the saved input is kept as this rank's piece (4 rows over
    4 ranks, or 3: 1, 1, 1, 0) and all-gathered in the backward, which
    CommDebugMode sees; with None nothing is gathered."""
    from torchlike.distributed.tensor.debug import CommDebugMode
    from torchlike.distributed.tensor.parallel.input_reshard import input_reshard
    from torchlike.utils.checkpoint import checkpoint
    m4 = ms["m4"]
    gather = torchlike.ops.c10d_functional.all_gather_into_tensor
    for rows, reentrant, dim in ((4, True, 0), (3, True, -2), (4, True, None), (4, False, 1)):
        ref, blk = make_mlp(torchlike, 8), make_mlp(torchlike, 8)
        tp.parallelize_module(blk, m4, {"0": tp.ColwiseParallel(), "2": tp.RowwiseParallel()})

        class Wrapped(torchlike.nn.Module):
            def __init__(self):
                super().__init__()
                self.blk = blk

            def forward(self, x):
                return checkpoint(self.blk, x, use_reentrant=reentrant)
        model = input_reshard(Wrapped(), m4, dim)
        x = (base(torchlike, (rows, 6)) * 0.3).sin()
        xr, xp = x.clone().requires_grad_(), x.clone().requires_grad_()
        want = ref(xr)
        (want ** 2).sum().backward()
        got = model(xp)
        np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-12)
        mode = CommDebugMode()
        with mode:
            (got ** 2).sum().backward()
        gathered = mode.get_comm_counts().get(gather, 0)
        assert gathered == (1 if reentrant and dim is not None else 0), (rows, dim, gathered)
        np.testing.assert_allclose(xp.grad.numpy(), xr.grad.numpy(), rtol=1e-12, atol=1e-14)
        for (name, a), b in zip(ref.named_parameters(), blk.parameters()):
            np.testing.assert_allclose(b.grad.full_tensor().numpy(), a.grad.numpy(),
                                       rtol=1e-12, atol=1e-14, err_msg=name)
    with pytest.raises(ValueError, match="1-D tensor-parallel mesh"):
        input_reshard(torchlike.nn.Linear(2, 2), ms["m22"], 0)


def _main(rank, ws, init, outdir):
    dist.init_process_group("gloo", init_method=init, rank=rank, world_size=ws,
                            timeout=datetime.timedelta(seconds=120))  # fail, never hang
    golden = run_all(torchlike, rank)
    ms = meshes(torchlike)
    _train_mlp(ms["m4"], rank, lambda p: torchlike.optim.SGD(p, lr=0.05, momentum=0.9))
    _train_mlp(ms["m2"], rank, lambda p: torchlike.optim.AdamW(p, lr=0.01))
    _check_sequence_parallel(ms["m4"], rank)
    _train_2d(ms["m22"], rank)
    _check_values(ms, rank)
    _check_ops_vs_plain(ms["m4"])
    _check_partial_max_min(ms["m4"], rank)
    _check_grads_vs_plain(ms["m4"])
    _check_checkpoint(ms, rank, outdir)
    _check_loss_parallel(ms, rank)
    _check_input_reshard(ms, rank)
    put(outdir, rank, golden)
    dist.destroy_process_group()


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """The ranks' case results, once every in-world check passed on every rank."""
    outdir = spawn_world(_main, WORLD, tmp_path_factory.mktemp("dtensor"))
    return results(outdir, WORLD)


@pytest.mark.parametrize("part", ["layouts", "redistribute", "ops", "grads", "loss"])
def test_matches_pytorch(world, part):
    """Local shapes and values per rank, placements, global shapes and
    gradients, as PyTorch's on each of the 4 ranks."""
    for rank in range(WORLD):
        _close(world[rank][part], _golden()["ranks"][rank][part], f"rank{rank}.{part}")


def test_errors_match_pytorch(world):
    for rank in range(WORLD):
        got, want = dict(world[rank]["errors"]), dict(_golden()["ranks"][rank]["errors"])
        for key, typ in _OWN_ERRORS.items():
            assert got.pop(key)[0] == typ, key
            want.pop(key)
        _close(got, want, f"rank{rank}.errors")


def test_comm_counts_match_pytorch(world):
    """CommDebugMode counts the collectives of moves, ops, a parallel MLP,
    loss_parallel and nested modes as PyTorch's does, but where
    torchlike's deliberately differ (_OWN_COMM: asserted both ways)."""
    for rank in range(WORLD):
        got, want = dict(world[rank]["comm"]), dict(_golden()["ranks"][rank]["comm"])
        for key, (ours, theirs) in _OWN_COMM.items():
            g, w = got.pop(key), want.pop(key)
            assert (g["counts"], g["total"]) == (ours, sum(ours.values())), (rank, key, g)
            assert (w["counts"], w["total"]) == (theirs, sum(theirs.values())), (rank, key, w)
        _close(got, want, f"rank{rank}.comm")


def test_comm_debug_mode_keys():
    """The count keys are torchlike.ops packets printed as PyTorch's; they
    name collectives and refuse to run."""
    from torchlike.distributed.tensor.debug import CommDebugMode
    key = torchlike.ops.c10d_functional.all_reduce
    assert str(key) == "c10d_functional.all_reduce" and key is \
        torchlike.ops.c10d_functional.all_reduce
    assert str(torchlike.ops.c10d.broadcast_) == "c10d.broadcast_"
    with pytest.raises(NotImplementedError, match="CommDebugMode"):
        key(torchlike.ones(2), "sum", "0")
    mode = CommDebugMode()
    with mode:
        torchlike.ones(3).sum()
    assert mode.get_total_counts() == 0 and dict(mode.get_comm_counts()) == {}


def test_parallelize_module_matches_pytorch(world):
    """Parameter placements and shapes, output types and values of
    colwise / rowwise / sequence parallel modules."""
    for rank in range(WORLD):
        want = json.loads(json.dumps(_golden()["ranks"][rank]["parallel"]).replace(
            "AsyncCollectiveTensor", "Tensor"))
        _close(world[rank]["parallel"], want, f"rank{rank}.parallel")


def test_placements_outside_a_world():
    """Placements, reprs and argument errors need no process group."""
    assert dt.Shard(1) == dt.Shard(1) and dt.Shard(0) != dt.Shard(1)
    assert dt.Replicate() == dt.Replicate() and dt.Partial() == dt.Partial("sum")
    assert {dt.Shard(0), dt.Shard(0), dt.Replicate()} == {dt.Shard(0), dt.Replicate()}
    assert dt.Partial().is_partial() and dt.Shard(2).is_shard(2) and not dt.Shard(2).is_shard(1)
    with pytest.raises(ValueError, match="reduce_op"):
        dt.Partial("mean")
    with pytest.raises(TypeError, match="dim must be an int"):
        dt.Shard(0.5)
    from torchlike.distributed._tensor import DTensor as OldPath
    from torchlike.distributed._tensor.placement_types import Shard as OldShard
    assert OldPath is dt.DTensor and OldShard is dt.Shard  # PyTorch's old import path
    from torchlike.distributed.tensor.placement_types import chunk_sizes
    for n, parts in ((5, 4), (3, 4), (0, 2), (8, 4), (1, 4), (7, 3), (10, 4)):
        got = chunk_sizes(n, parts)
        # torch.chunk's cut: pieces of ceil(n / parts), the last ones shorter or empty
        pieces = [c.shape[0] for c in torchlike.arange(n).chunk(parts)] if n else []
        assert got[:len(pieces)] == pieces and sum(got) == n and len(got) == parts, (n, parts)
        assert all(s == 0 for s in got[len(pieces):]), (n, parts)
