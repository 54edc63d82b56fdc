"""DistributedDataParallel, SyncBatchNorm and DistributedSampler over 2 real
processes, against single-process training on the whole batch (the
oracle: averaged gradients of equal halves are the gradient of the mean
loss), and the launcher ``python -m torchlike.distributed.run``."""
import datetime
import os
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import torchlike
import torchlike.distributed as dist
from dist_helpers import put, results, spawn_world
from torchlike import nn
from torchlike.nn.parallel import DistributedDataParallel as DDP

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _model(seed=0):
    torchlike.manual_seed(seed)
    return nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 8), nn.Tanh(),
                         nn.Linear(8, 2)).double()


def _batch(n=8, seed=1):
    g = torchlike.Generator()
    g.manual_seed(seed)
    return (torchlike.randn(n, 4, generator=g, dtype=torchlike.float64),
            torchlike.randn(n, 2, generator=g, dtype=torchlike.float64))


def _max_diff(a, b):
    return max(float((p - q).abs().max()) for p, q in zip(a.parameters(), b.parameters()))


def _check_training(rank, ws):
    """3 SGD steps with momentum, several buckets; rank 1 starts from other
    weights, which the construction's broadcast replaces by rank 0's."""
    X, Y = _batch()
    local = _model()
    if rank == 1:
        with torchlike.no_grad():
            for p in local.parameters():
                p.add_(1.0)
    ddp = DDP(local, bucket_cap_mb=0.0005)
    assert len(ddp._buckets) > 2
    assert list(ddp.state_dict())[:2] == ["module.0.weight", "module.0.bias"]
    assert ddp.module is local
    ref = _model()
    assert _max_diff(local, ref) == 0.0
    opt = torchlike.optim.SGD(ddp.parameters(), lr=0.1, momentum=0.9)
    ref_opt = torchlike.optim.SGD(ref.parameters(), lr=0.1, momentum=0.9)
    half = slice(4 * rank, 4 * rank + 4)
    for _ in range(3):
        opt.zero_grad()
        ref_opt.zero_grad()
        ((ddp(X[half]) - Y[half]) ** 2).mean().backward()
        ((ref(X) - Y) ** 2).mean().backward()
        for p, q in zip(local.parameters(), ref.parameters()):
            np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-12, atol=1e-14)
        opt.step()
        ref_opt.step()
    assert _max_diff(local, ref) < 1e-13


def _check_no_sync(rank, ws):
    """Two micro-batches under no_sync, then a synchronised one: the sum of
    the three local gradients, averaged over ranks."""
    X, Y = _batch(12, seed=2)
    local, ref = _model(3), _model(3)
    ddp = DDP(local)
    rows = [slice(2 * k + 6 * rank, 2 * k + 6 * rank + 2) for k in range(3)]
    with ddp.no_sync():
        for s in rows[:2]:
            ((ddp(X[s]) - Y[s]) ** 2).sum().backward()
    mid = [p.grad.clone() for p in local.parameters()]
    ((ddp(X[rows[2]]) - Y[rows[2]]) ** 2).sum().backward()
    ((ref(X) - Y) ** 2).sum().backward()
    for p, q, m in zip(local.parameters(), ref.parameters(), mid):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy() / ws, rtol=1e-12, atol=1e-14)
        assert not np.allclose(m.numpy(), p.grad.numpy())  # no_sync did not reduce


class _Branchy(nn.Module):
    def __init__(self):
        super().__init__()
        torchlike.manual_seed(4)
        self.a = nn.Linear(3, 2).double()
        self.b = nn.Linear(3, 2).double()
        self.never = nn.Linear(3, 2).double()

    def forward(self, x, use_b):
        return self.a(x) + (self.b(x) if use_b else 0)


def _check_unused(rank, ws):
    """find_unused_parameters: ``b`` is used on rank 0 only (rank 1 gives
    zeros), ``never`` on no rank (its grad stays None)."""
    x = torchlike.arange(6.0, dtype=torchlike.float64).reshape(2, 3) + rank
    m = _Branchy()
    ddp = DDP(m, find_unused_parameters=True)
    ddp(x, use_b=rank == 0).sum().backward()
    xs = [torchlike.arange(6.0, dtype=torchlike.float64).reshape(2, 3) + r for r in range(ws)]
    ref = _Branchy()
    for r in range(ws):
        ref(xs[r], use_b=r == 0).sum().backward()
    for name in ("a.weight", "a.bias", "b.weight", "b.bias"):
        got = dict(m.named_parameters())[name].grad.numpy()
        want = dict(ref.named_parameters())[name].grad.numpy() / ws
        np.testing.assert_allclose(got, want, rtol=1e-12)
    assert m.never.weight.grad is None and m.never.bias.grad is None
    # without the flag a parameter that gets no gradient is an error at the next forward
    plain = DDP(_Branchy())
    plain(x, use_b=True).sum().backward()
    with pytest.raises(RuntimeError, match="Expected to have finished reduction"):
        plain(x, use_b=True)


def _check_buffers_and_syncbn(rank, ws):
    """broadcast_buffers copies rank 0's running stats at each forward;
    SyncBatchNorm normalises with the statistics of the whole batch."""
    bn = nn.BatchNorm1d(3).double()
    with torchlike.no_grad():
        bn.running_mean.fill_(float(rank))
    ddp = DDP(nn.Sequential(nn.Linear(3, 3).double(), bn))
    ddp.eval()
    ddp(torchlike.ones(2, 3, dtype=torchlike.float64))
    assert bn.running_mean.tolist() == [0.0, 0.0, 0.0]
    g = torchlike.Generator()
    g.manual_seed(5)
    X = torchlike.randn(6, 3, 4, generator=g, dtype=torchlike.float64)
    W = torchlike.randn(6, 3, 4, generator=g, dtype=torchlike.float64)
    sync = nn.SyncBatchNorm.convert_sync_batchnorm(
        nn.Sequential(nn.BatchNorm1d(3, momentum=None).double()))
    ref = nn.BatchNorm1d(3, momentum=None).double()
    with torchlike.no_grad():
        for m in (sync[0], ref):
            m.weight.copy_(torchlike.tensor([1.0, -2.0, 0.5]))
            m.bias.copy_(torchlike.tensor([0.1, 0.2, 0.3]))
    rows = [slice(0, 2), slice(2, 6)][rank]  # unequal shares
    x = X[rows].clone().requires_grad_(True)
    xr = X.clone().requires_grad_(True)
    for _ in range(2):
        y = sync(x)
        yr = ref(xr)
    (y * W[rows]).sum().backward()
    (yr * W).sum().backward()
    np.testing.assert_allclose(y.detach().numpy(), yr.detach().numpy()[rows], rtol=1e-12,
                               atol=1e-13)
    np.testing.assert_allclose(x.grad.numpy(), xr.grad.numpy()[rows], rtol=1e-10, atol=1e-12)
    for name in ("running_mean", "running_var"):
        np.testing.assert_allclose(getattr(sync[0], name).numpy(), getattr(ref, name).numpy(),
                                   rtol=1e-12)
    gw = sync[0].weight.grad.clone()
    dist.all_reduce(gw)  # local sums, as in PyTorch: their sum is the whole batch's
    np.testing.assert_allclose(gw.numpy(), ref.weight.grad.numpy(), rtol=1e-12, atol=1e-13)
    sync.eval()  # eval uses the running statistics, no communication
    np.testing.assert_allclose(sync(X[rows]).detach().numpy(),
                               ref.eval()(X).detach().numpy()[rows], rtol=1e-12)


def _check_comm_hooks(rank, ws):
    """PyTorch's default hooks average as DDP does (float16 compression to
    its precision); a custom hook sees the buckets in order and its value is
    what lands in the gradients."""
    from torchlike.distributed.algorithms.ddp_comm_hooks import default_hooks
    X, Y = _batch(seed=7)
    half = slice(4 * rank, 4 * rank + 4)
    ref = _model(8)
    ((ref(X) - Y) ** 2).mean().backward()
    seen = []

    def summing(state, bucket):
        seen.append((bucket.index(), bucket.is_last(), len(bucket.parameters()),
                     [tuple(g.shape) for g in bucket.gradients()] ==
                     [tuple(p.shape) for p in bucket.parameters()]))
        return dist.all_reduce(bucket.buffer(), async_op=True).get_future().then(
            lambda fut: fut.value()[0])

    for hook, scale, tol in ((default_hooks.allreduce_hook, 1, 1e-12),
                             (default_hooks.fp16_compress_hook, 1, 2e-3),
                             (summing, ws, 1e-12)):
        local = _model(8)
        ddp = DDP(local, bucket_cap_mb=0.0005)
        ddp.register_comm_hook(None, hook)
        ((ddp(X[half]) - Y[half]) ** 2).mean().backward()
        for p, q in zip(local.parameters(), ref.parameters()):
            np.testing.assert_allclose(p.grad.numpy(), scale * q.grad.numpy(), rtol=tol,
                                       atol=tol * 1e-2)
    n = len(ddp._buckets)
    assert [s[0] for s in seen] == list(range(n))
    assert [s[1] for s in seen] == [False] * (n - 1) + [True] and all(s[3] for s in seen)
    assert sum(s[2] for s in seen) == len(list(local.parameters()))
    with pytest.raises(RuntimeError, match="can only be called once"):
        ddp.register_comm_hook(None, summing)


def _check_sampler(rank, ws):
    from torchlike.utils.data import DistributedSampler
    s = DistributedSampler(list(range(11)), shuffle=False)
    assert (s.num_replicas, s.rank) == (ws, rank)
    assert list(s) == list(range(11))[rank::ws] + ([0] if rank == 1 else [])


def _ddp_main(rank, ws, init, outdir):
    dist.init_process_group("gloo", init_method=init, rank=rank, world_size=ws,
                            timeout=datetime.timedelta(seconds=120))  # fail, never hang
    _check_training(rank, ws)
    _check_no_sync(rank, ws)
    _check_unused(rank, ws)
    _check_buffers_and_syncbn(rank, ws)
    _check_comm_hooks(rank, ws)
    _check_sampler(rank, ws)
    put(outdir, rank, "done")
    dist.destroy_process_group()


def test_ddp_syncbn_sampler_two_ranks(tmp_path):
    outdir = spawn_world(_ddp_main, 2, tmp_path)
    assert results(outdir, 2) == ["done", "done"]


def test_ddp_and_sampler_need_a_group():
    with pytest.raises(ValueError, match="Default process group has not been initialized"):
        DDP(nn.Linear(2, 2))
    from torchlike.utils.data import DistributedSampler
    with pytest.raises(ValueError, match="Default process group has not been initialized"):
        DistributedSampler(list(range(4)))
    dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
    try:
        with pytest.raises(RuntimeError, match="doesn't have any parameter"):
            DDP(nn.ReLU())
        with pytest.raises(ValueError, match="device_ids and output_device"):
            DDP(nn.Linear(2, 2), device_ids=[0])
        m = nn.Linear(2, 2)
        DDP(m)(torchlike.ones(1, 2)).sum().backward()  # one rank: the local gradient
        assert m.weight.grad.tolist() == [[1.0, 1.0], [1.0, 1.0]]
    finally:
        dist.destroy_process_group()
    # SyncBatchNorm without a group is BatchNorm
    torchlike.manual_seed(0)
    x = torchlike.randn(4, 3)
    np.testing.assert_allclose(nn.SyncBatchNorm(3)(x).detach().numpy(),
                               nn.BatchNorm1d(3)(x).detach().numpy(), rtol=1e-6)


# ---- the launcher ------------------------------------------------------------------------
def _launch(tmp_path, body, *extra, timeout=120):
    script = tmp_path / "train.py"
    script.write_text(textwrap.dedent(body))
    env = dict(os.environ, PYTHONPATH=ROOT)
    cmd = [sys.executable, "-m", "torchlike.distributed.run", "--nproc-per-node=2",
           "--standalone", *extra, str(script), "--flag", str(tmp_path)]
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)


def test_launcher_sets_the_environment(tmp_path):
    proc = _launch(tmp_path, """
        import json, os, sys
        import torchlike, torchlike.distributed as dist
        dist.init_process_group()
        t = torchlike.tensor([float(dist.get_rank() + 1)])
        dist.all_reduce(t)
        keys = ["RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "MASTER_ADDR",
                "MASTER_PORT"]
        out = {k: os.environ[k] for k in keys}
        out.update(sum=t.item(), argv=sys.argv[1:], launched=dist.is_torchelastic_launched())
        with open(os.path.join(sys.argv[2], f"env{dist.get_rank()}.json"), "w") as f:
            json.dump(out, f)
        dist.destroy_process_group()
        """)
    assert proc.returncode == 0, proc.stderr
    import json
    envs = [json.loads((tmp_path / f"env{r}.json").read_text()) for r in range(2)]
    for r, e in enumerate(envs):
        assert (e["RANK"], e["LOCAL_RANK"], e["WORLD_SIZE"], e["LOCAL_WORLD_SIZE"]) == \
            (str(r), str(r), "2", "2")
        assert e["MASTER_ADDR"] == "127.0.0.1" and int(e["MASTER_PORT"]) > 0
        assert e["sum"] == 3.0 and e["argv"] == ["--flag", str(tmp_path)] and e["launched"]


def test_launcher_propagates_the_first_failure_and_stops_the_rest(tmp_path):
    t0 = time.monotonic()
    proc = _launch(tmp_path, """
        import os, sys, time
        if os.environ["RANK"] == "1":
            sys.exit(7)
        time.sleep(60)
        """)
    assert proc.returncode == 7
    assert time.monotonic() - t0 < 40
    assert "local_rank=1" in proc.stderr and "exit code 7" in proc.stderr


def test_launcher_arguments():
    from torchlike.distributed.run import parse_args
    a = parse_args(["--nproc_per_node", "3", "--master-port", "1234", "-m", "pkg.mod", "x"])
    assert (a.nproc_per_node, a.master_port, a.module, a.training_script,
            a.training_script_args) == ("3", 1234, True, "pkg.mod", ["x"])
    with pytest.raises(SystemExit):
        parse_args(["--max-restarts", "2", "s.py"])
