"""Pipeline-parallel training on the CPU with torchlike.distributed.pipelining,
PyTorch-style.

The model is cut into one stage per process by ``pipeline()`` at its
``pipe_split()`` calls (through torchlike.fx tracing); each process keeps
its stage's module and optimizer, and the schedule sends activations
forward and gradients back between the processes, microbatch by
microbatch.  The first process feeds the batches, the last one computes
the loss.  The data is synthetic (a noisy map), so it needs nothing else
installed.

    python -m torchlike.distributed.run --nproc-per-node=2 examples/train_pipeline.py \
        [--schedule 1F1B] [--steps 20]

With ``--check``, the last process also trains the whole model on the
whole batches in one process and prints the largest difference between
its losses and the pipeline's.
"""
import argparse

import torchlike as torch
import torchlike.distributed as dist
import torchlike.nn as nn
from torchlike.distributed.pipelining import pipe_split, pipeline
from torchlike.distributed.pipelining.schedules import get_schedule_class


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
    ap.add_argument("--schedule", default="GPipe", help="GPipe, 1F1B")
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--microbatches", type=int, default=4)
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()

    dist.init_process_group("gloo")  # RANK, WORLD_SIZE, MASTER_* from the launcher
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(0)  # every process builds the same model, then keeps its stage
    model = Net(world)
    x0 = torch.zeros(args.batch_size // args.microbatches, 16)
    pipe = pipeline(model, (x0,))
    stage = pipe.build_stage(rank, torch.device("cpu"))
    loss_fn = nn.functional.mse_loss
    schedule = get_schedule_class(args.schedule)(stage, args.microbatches, loss_fn=loss_fn)
    opt = torch.optim.SGD(stage.submod.parameters(), lr=0.05, momentum=0.9)

    history = []
    for step, (x, y) in enumerate(batches(args.steps, args.batch_size)):
        opt.zero_grad()
        if rank == 0:
            schedule.step(x)
        elif rank == world - 1:
            losses = []
            schedule.step(target=y, losses=losses)
            history.append(sum(float(v.detach()) for v in losses) / len(losses))
            if step % 5 == 0 or step == args.steps - 1:
                print(f"step {step:3d}  loss {history[-1]:.5f}", flush=True)
        else:
            schedule.step()
        opt.step()

    if args.check and rank == world - 1:
        torch.manual_seed(0)
        whole = Net(world)
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
