"""Data-parallel training on the CPU with torchlike.distributed, PyTorch-style.

Ordinary PyTorch DDP code after `import torchlike as torch`: each process
takes its share of the data (DistributedSampler), the model is wrapped in
DistributedDataParallel (gradients averaged across processes during
backward), BatchNorm is converted to SyncBatchNorm, and rank 0 saves the
checkpoint.  The data is synthetic (a noisy linear map), so it needs nothing
else installed.

    python -m torchlike.distributed.run --nproc-per-node=2 examples/train_ddp.py [--epochs 5]
"""
import argparse
import os

import torchlike as torch
import torchlike.distributed as dist
import torchlike.nn as nn
from torchlike.nn.parallel import DistributedDataParallel as DDP
from torchlike.utils.data import DataLoader, DistributedSampler, TensorDataset


def make_data(n=2048, seed=0):
    g = torch.Generator()
    g.manual_seed(seed)
    x = torch.randn(n, 16, generator=g)
    w = torch.randn(16, 4, generator=g)
    y = x @ w + 0.1 * torch.randn(n, 4, generator=g)
    return TensorDataset(x, y)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--epochs", type=int, default=5)
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--out", default=None, help="where rank 0 saves the checkpoint")
    args = ap.parse_args()

    dist.init_process_group("gloo")  # RANK, WORLD_SIZE, MASTER_* from the launcher
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(0)  # the same initial weights (DDP broadcasts rank 0's anyway)
    model = nn.Sequential(nn.Linear(16, 64), nn.BatchNorm1d(64), nn.ReLU(), nn.Linear(64, 4))
    model = DDP(nn.SyncBatchNorm.convert_sync_batchnorm(model))
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    data = make_data()
    sampler = DistributedSampler(data, shuffle=True, seed=0)
    loader = DataLoader(data, batch_size=args.batch_size, sampler=sampler)
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        total = torch.zeros(2)
        for x, y in loader:
            opt.zero_grad()
            loss = nn.functional.mse_loss(model(x), y)
            loss.backward()
            opt.step()
            total += torch.tensor([loss.item() * len(x), len(x)])
        dist.all_reduce(total)  # the epoch's mean loss over every process
        if rank == 0:
            print(f"epoch {epoch}: loss {total[0].item() / total[1].item():.4f} "
                  f"({world} processes)", flush=True)
    if rank == 0 and args.out:
        os.makedirs(args.out, exist_ok=True)
        torch.save(model.module.state_dict(), os.path.join(args.out, "ddp_model.pt"))
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
