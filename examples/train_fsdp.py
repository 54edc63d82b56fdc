"""Fully sharded data-parallel training on the CPU, PyTorch-style.

Ordinary PyTorch FSDP code after `import torchlike as torch`: a small
transformer whose encoder layers each become an FSDP unit
(transformer_auto_wrap_policy), so every process keeps only its shard of
the parameters, gradients and optimizer state; gradient clipping over the
shards; a full checkpoint (model and optimizer) gathered on rank 0, or a
distributed checkpoint that every rank writes its shards into (--dcp),
from which training resumes on any number of processes (--resume).  The
data is synthetic (each token's successor), so it needs nothing else.

    python -m torchlike.distributed.run --nproc-per-node=2 examples/train_fsdp.py [--steps 30]
    ... --nproc-per-node=2 examples/train_fsdp.py --dcp ckpt
    ... --nproc-per-node=3 examples/train_fsdp.py --resume ckpt
"""
import argparse
import functools
import os

import torchlike as torch
import torchlike.distributed as dist
import torchlike.distributed.checkpoint as dcp
import torchlike.nn as nn
from torchlike.distributed.checkpoint.state_dict import get_state_dict, set_state_dict
from torchlike.distributed.fsdp import FullStateDictConfig, StateDictType
from torchlike.distributed.fsdp import FullyShardedDataParallel as FSDP
from torchlike.distributed.fsdp.wrap import transformer_auto_wrap_policy

VOCAB, DIM, LEN = 32, 32, 12


class TinyLM(nn.Module):
    def __init__(self, layers=2):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, DIM)
        self.layers = nn.ModuleList([
            nn.TransformerEncoderLayer(DIM, 4, 4 * DIM, dropout=0.0, batch_first=True)
            for _ in range(layers)])
        self.head = nn.Linear(DIM, VOCAB)
        self.head.weight = self.emb.weight  # tied: both live in the root unit

    def forward(self, x):                     # x: (B, T) token ids
        h = self.emb(x)                       # (B, T, DIM)
        for layer in self.layers:
            h = layer(h)
        return self.head(h)                   # (B, T, VOCAB)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=40)
    ap.add_argument("--batch-size", type=int, default=16, help="per process")
    ap.add_argument("--out", default=None, help="where rank 0 saves the checkpoint")
    ap.add_argument("--dcp", default=None, help="a directory for a distributed checkpoint")
    ap.add_argument("--resume", default=None, help="a distributed checkpoint to start from")
    args = ap.parse_args()

    dist.init_process_group("gloo")  # RANK, WORLD_SIZE, MASTER_* from the launcher
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(0)  # the same initial weights on every rank
    policy = functools.partial(transformer_auto_wrap_policy,
                               transformer_layer_cls={nn.TransformerEncoderLayer})
    model = FSDP(TinyLM(), auto_wrap_policy=policy)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    start = 0
    if args.resume:  # saved by any number of processes: each reads its shards
        model_sd, optim_sd = get_state_dict(model, opt)
        state = {"model": model_sd, "optim": optim_sd, "step": 0}
        dcp.load(state, checkpoint_id=args.resume)
        set_state_dict(model, opt, model_state_dict=state["model"],
                       optim_state_dict=state["optim"])
        start = state["step"]
    g = torch.Generator()
    g.manual_seed(100 + rank + 1000 * start)  # each rank draws its own data
    for step in range(start, start + args.steps):
        x = torch.randint(0, VOCAB, (args.batch_size, LEN), generator=g)
        opt.zero_grad()
        y = (x + 1) % VOCAB                  # the task: each token's successor
        loss = nn.functional.cross_entropy(model(x).reshape(-1, VOCAB), y.reshape(-1))
        loss.backward()
        model.clip_grad_norm_(1.0)
        opt.step()
        total = loss.detach().reshape(1)
        dist.all_reduce(total, op=dist.ReduceOp.AVG)
        if rank == 0 and step % 10 == 9:
            print(f"step {step + 1}: loss {total.item():.4f} ({world} processes)", flush=True)
    if args.dcp:  # every rank writes its own shards
        model_sd, optim_sd = get_state_dict(model, opt)
        dcp.save({"model": model_sd, "optim": optim_sd, "step": start + args.steps},
                 checkpoint_id=args.dcp)
    cfg = FullStateDictConfig(offload_to_cpu=True, rank0_only=True)
    with FSDP.state_dict_type(model, StateDictType.FULL_STATE_DICT, cfg):
        state = model.state_dict()                   # whole tensors, on rank 0 only
    optim_state = FSDP.optim_state_dict(model, opt)  # every rank takes part
    if rank == 0 and args.out:
        os.makedirs(args.out, exist_ok=True)
        torch.save({"model": state, "optim": optim_state},
                   os.path.join(args.out, "fsdp_checkpoint.pt"))
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
