"""``python -m torchlike.distributed.run --nproc-per-node=N script.py args``:
start N copies of a training script on this node, as ``torchrun``.

Each copy gets ``RANK``, ``LOCAL_RANK``, ``WORLD_SIZE``, ``LOCAL_WORLD_SIZE``,
``GROUP_RANK``, ``MASTER_ADDR``, ``MASTER_PORT`` and ``TORCHELASTIC_RUN_ID``
in its environment, so ``init_process_group()`` (``env://``) needs no
arguments.  The launcher waits for all of them; the first to fail makes it
stop the others (SIGTERM, then SIGKILL after a grace period) and exit with
that copy's exit code (128 + the signal's number for one killed by a
signal).  SIGINT and SIGTERM sent to the launcher are passed on.

No elastic restarts: ``--max-restarts`` is accepted and must be 0."""
import argparse
import os
import signal
import socket
import subprocess
import sys
import time
import uuid

__all__ = ["main", "parse_args"]


def _free_port():
    with socket.socket() as s:
        s.bind(("", 0))
        return s.getsockname()[1]


def parse_args(argv):
    p = argparse.ArgumentParser(prog="python -m torchlike.distributed.run",
                                description="Start a multi-process training job on this node")
    p.add_argument("--nproc-per-node", "--nproc_per_node", default="1",
                   help="processes on this node (an integer, or 'cpu'/'auto': one per core)")
    p.add_argument("--nnodes", default="1", help="nodes in the job (an integer)")
    p.add_argument("--node-rank", "--node_rank", type=int, default=0)
    p.add_argument("--master-addr", "--master_addr", default="127.0.0.1")
    p.add_argument("--master-port", "--master_port", type=int, default=29500)
    p.add_argument("--standalone", action="store_true",
                   help="one node, a free port chosen for the rendezvous")
    p.add_argument("--rdzv-id", "--rdzv_id", "--run-id", "--run_id", default=None)
    p.add_argument("--max-restarts", "--max_restarts", type=int, default=0)
    p.add_argument("-m", "--module", action="store_true",
                   help="run the script as a module (python -m)")
    p.add_argument("--no-python", "--no_python", action="store_true",
                   help="run the script as an executable, not through python")
    p.add_argument("training_script")
    p.add_argument("training_script_args", nargs=argparse.REMAINDER)
    args = p.parse_args(argv)
    if args.max_restarts:
        p.error("torchlike.distributed.run does not restart workers (--max-restarts 0)")
    return args


def _nproc(value):
    if value in ("cpu", "auto"):
        return os.cpu_count() or 1
    n = int(value)
    if n < 1:
        raise ValueError(f"--nproc-per-node must be at least 1, got {n}")
    return n


def _command(args):
    if args.no_python:
        return [args.training_script] + args.training_script_args
    if args.module:
        return [sys.executable, "-u", "-m", args.training_script] + args.training_script_args
    return [sys.executable, "-u", args.training_script] + args.training_script_args


def _stop(procs, grace=5.0):
    for p in procs:
        if p.poll() is None:
            p.terminate()
    deadline = time.monotonic() + grace
    for p in procs:
        try:
            p.wait(max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def _exit_code(code):
    return 128 - code if code < 0 else code


def run(args):
    """Start the workers, wait, and return the exit code."""
    nproc = _nproc(args.nproc_per_node)
    nnodes = int(args.nnodes)
    port = _free_port() if args.standalone else args.master_port
    world = nproc * nnodes
    run_id = args.rdzv_id or uuid.uuid4().hex[:8]
    base = dict(os.environ)
    base.update(MASTER_ADDR=args.master_addr, MASTER_PORT=str(port), WORLD_SIZE=str(world),
                LOCAL_WORLD_SIZE=str(nproc), GROUP_RANK=str(args.node_rank),
                ROLE_WORLD_SIZE=str(world), TORCHELASTIC_RUN_ID=run_id,
                TORCHELASTIC_RESTART_COUNT="0", TORCHELASTIC_MAX_RESTARTS="0")
    if nproc > 1 and "OMP_NUM_THREADS" not in base:
        base["OMP_NUM_THREADS"] = "1"  # as torchrun: N processes should not each take every core
    procs = []
    for local in range(nproc):
        rank = args.node_rank * nproc + local
        env = dict(base, RANK=str(rank), LOCAL_RANK=str(local), ROLE_RANK=str(rank))
        procs.append(subprocess.Popen(_command(args), env=env))

    def forward(signum, frame):
        for p in procs:
            if p.poll() is None:
                p.send_signal(signum)
    old = {s: signal.signal(s, forward) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        while True:
            codes = [p.poll() for p in procs]
            failed = [(i, c) for i, c in enumerate(codes) if c not in (None, 0)]
            if failed:
                local, code = failed[0]
                _stop(procs)
                print(f"torchlike.distributed.run: worker local_rank={local} (rank "
                      f"{args.node_rank * nproc + local}) failed with exit code "
                      f"{_exit_code(code)}; the other workers were stopped",
                      file=sys.stderr, flush=True)
                return _exit_code(code)
            if all(c == 0 for c in codes):
                return 0
            time.sleep(0.05)
    finally:
        for s, h in old.items():
            signal.signal(s, h)


def main(argv=None):
    sys.exit(run(parse_args(sys.argv[1:] if argv is None else argv)))


if __name__ == "__main__":
    main()
