"""Pipeline-parallel training on the CPU with torchlike.distributed.pipelining,
PyTorch-style.

The model is cut into stages by ``pipeline()`` at its ``pipe_split()``
calls (through torchlike.fx tracing): one per process for GPipe and 1F1B,
two per process for the multi-stage schedules (Interleaved1F1B, LoopedBFS,
InterleavedZeroBubble: process ``r`` keeps stages ``r`` and ``r + P``;
ZBVZeroBubble, DualPipeV: stages ``r`` and ``2P - 1 - r``, a V).  Each
process keeps its stages' modules and one optimizer, and the schedule sends
activations forward and gradients back between the processes, microbatch
by microbatch.  The process with the first stage feeds the batches, the
one with the last stage computes the loss.  The data is synthetic (a noisy
map), so it needs nothing else installed.

    python -m torchlike.distributed.run --nproc-per-node=2 examples/train_pipeline.py \
        [--schedule 1F1B|ZBVZeroBubble|...] [--steps 20]

With ``--check``, the process with the last stage also trains the whole
model on the whole batches in one process and prints the largest
difference between its losses and the pipeline's.
"""
import argparse

import torchlike as torch
import torchlike.distributed as dist
import torchlike.nn as nn
from torchlike.distributed.pipelining import pipe_split, pipeline
from torchlike.distributed.pipelining.schedules import PipelineScheduleMulti, get_schedule_class

V_SHAPED = ("zbvzerobubble", "dualpipev")


class Net(nn.Module):
    """An MLP of ``depth`` residual blocks, a stage boundary between blocks."""

    def __init__(self, stages, width=64, per_stage=2):
        super().__init__()
        self.stages = stages
        self.inp = nn.Linear(16, width)
        self.blocks = nn.ModuleList([nn.Linear(width, width) for _ in range(stages * per_stage)])
        self.out = nn.Linear(width, 4)
        self.per_stage = per_stage

    def forward(self, x):
        h = torch.tanh(self.inp(x))
        for k, block in enumerate(self.blocks):
            if k and k % self.per_stage == 0:
                pipe_split()
            h = h + torch.tanh(block(h))
        return self.out(h)


def batches(steps, batch_size, seed=0):
    g = torch.Generator()
    g.manual_seed(seed)
    w = torch.randn(16, 4, generator=g)
    for _ in range(steps):
        x = torch.randn(batch_size, 16, generator=g)
        yield x, torch.sin(x @ w) + 0.05 * torch.randn(batch_size, 4, generator=g)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--schedule", default="GPipe",
                    help="GPipe, 1F1B, Interleaved1F1B, LoopedBFS, InterleavedZeroBubble, "
                         "ZBVZeroBubble, DualPipeV")
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--microbatches", type=int, default=4)
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()

    dist.init_process_group("gloo")  # RANK, WORLD_SIZE, MASTER_* from the launcher
    rank, world = dist.get_rank(), dist.get_world_size()
    cls = get_schedule_class(args.schedule)
    n_stages = 2 * world if issubclass(cls, PipelineScheduleMulti) else world
    if n_stages == world:
        mine = [rank]
    elif args.schedule.lower() in V_SHAPED:
        mine = [rank, 2 * world - 1 - rank]
    else:
        mine = [rank, rank + world]
    torch.manual_seed(0)  # every process builds the same model, then keeps its stages
    model = Net(n_stages)
    x0 = torch.zeros(args.batch_size // args.microbatches, 16)
    pipe = pipeline(model, (x0,))
    stages = [pipe.build_stage(s, torch.device("cpu")) for s in mine]
    loss_fn = nn.functional.mse_loss
    schedule = cls(stages if n_stages > world else stages[0], args.microbatches,
                   loss_fn=loss_fn)
    opt = torch.optim.SGD([p for st in stages for p in st.submod.parameters()], lr=0.05,
                          momentum=0.9)
    first, last = 0 in mine, n_stages - 1 in mine

    history = []
    for step, (x, y) in enumerate(batches(args.steps, args.batch_size)):
        opt.zero_grad()
        losses = []
        kwargs = {"target": y, "losses": losses} if last else {}
        schedule.step(x, **kwargs) if first else schedule.step(**kwargs)
        if last:
            history.append(sum(float(v.detach()) for v in losses) / len(losses))
            if step % 5 == 0 or step == args.steps - 1:
                print(f"step {step:3d}  loss {history[-1]:.5f}", flush=True)
        opt.step()

    if args.check and last:
        torch.manual_seed(0)
        whole = Net(n_stages)
        opt = torch.optim.SGD(whole.parameters(), lr=0.05, momentum=0.9)
        diff = 0.0
        for got, (x, y) in zip(history, batches(args.steps, args.batch_size)):
            opt.zero_grad()
            loss = loss_fn(whole(x), y)
            loss.backward()
            opt.step()
            diff = max(diff, abs(float(loss) - got))
        print(f"largest loss difference from one process: {diff:.2e}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
