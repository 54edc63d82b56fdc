"""Pipeline schedules: the order in which each rank runs the forward (F)
and backward (B) of its stages' microbatches, and the runtime that runs it.

Single-stage schedules (one stage per rank; stage ``i`` on group rank ``i``):

* ``ScheduleGPipe``: every forward, then every backward (in microbatch order).
* ``Schedule1F1B``: stage ``i`` runs ``num_stages - i`` forwards, then
  alternates one backward and one forward; needs ``n_microbatches >=
  num_stages``.

Multi-stage schedules (``PipelineScheduleMulti``; rank ``r`` holds stages
``r, r + P, r + 2P, ...`` of a group of ``P`` ranks):

* ``ScheduleInterleaved1F1B``: microbatches go through a rank's stages in
  rounds of ``n_microbatches // rounds`` (rounds = ``max(1, n // P)``);
  ``(v - 1) * per_round + 2 (P - 1 - r)`` warm-up forwards, then
  one forward and one backward alternately, then the remaining backwards.
* ``ScheduleLoopedBFS``: all microbatches through each local stage in turn,
  then the backwards, last stage first and last microbatch first.

Zero-bubble schedules (Qi et al., 2023) split each backward into I, the
gradients of the stage's inputs (sent upstream at once), and W, the
gradients of its parameters, which can wait and fill the time a rank would
otherwise spend waiting (stage.py):

* ``ScheduleInterleavedZeroBubble``: looped placement as above.
* ``ScheduleZBVZeroBubble``: exactly 2 stages per rank in a V: rank ``r``
  holds stages ``r`` and ``2P - 1 - r`` (the first and the last stage on
  rank 0, so the loss is computed where the batch enters).
* ``ScheduleDualPipeV``: the V placement too, with full backwards in the
  steady state and split ones in the warm-up and cooldown (DualPipe's
  choice, which decides which losses come back detached);
  ``n_microbatches >= num_stages``.  The F/B overlap of DualPipe (one
  microbatch's forward computed while another's backward communicates)
  is not modelled: actions run one after another.

Their orders are torchlike's own (``_greedy_order``): every rank's actions
are simulated in unit time steps, each rank taking, of what is ready, the
oldest microbatch's I (or B), else its oldest F, else a deferred W; a
stage keeps at most ``num_stages - stage + 1`` microbatches between F and
W (1F1B's count plus one).  PyTorch derives its own lists from the paper
and DeepSeek's code; the actions differ in order, not in what is computed.

The runtime.  Stage ``s``'s outputs go to stage ``s + 1`` and the gradients
of its inputs to stage ``s - 1``: a function call when both stages are on
this rank, else point-to-point messages with tags of their own (one per
kind, receiving stage and microbatch), so they never mix with the user's.
Sends never wait for the receiver (docs/distributed.md, Transport), so a
rank runs its list of actions in order, blocking only on receives; every
list here is a valid order (``_simulate`` checks one).

Before the first step the stages exchange their tensors' metadata
(stage.py).  When anything fails on a rank during a step (bad input, a
shape that differs from the metadata, the module raising), the rank still
sends a message for each one its peers expect from it in the rest of the
step (an empty tensor of another dtype, which the receiver reports as an
error naming the stage and microbatch), receives and drops the ones it was
to receive, and raises.  So every rank of the pipeline raises instead of
waiting for its timeout, and the message counts stay in step: the group can
run the next step.

Gradients: each microbatch's loss is backpropagated as it is, then, with
``scale_grads=True`` (the default), every gradient of the stage's module
is divided by ``n_microbatches``: with a mean loss over equal microbatches
this is the gradient of the mean loss over the whole batch, as PyTorch."""
import json
import warnings

import torchlike
import torchlike.distributed as dist

from ._utils import PipeliningMetadataError, TensorMeta, as_tuple
from .microbatch import TensorChunkSpec, _split_tensor, merge_chunks, \
    split_args_kwargs_into_chunks
from .stage import PipelineStage

__all__ = ["PipelineScheduleSingle", "PipelineScheduleMulti", "ScheduleGPipe",
           "Schedule1F1B", "ScheduleInterleaved1F1B", "ScheduleLoopedBFS",
           "ScheduleInterleavedZeroBubble", "ScheduleZBVZeroBubble", "ScheduleDualPipeV",
           "get_schedule_class"]

_TARGET_SPEC = TensorChunkSpec(0)
_TAG_BASE = 0x5050 << 36            # pipelining's tags, far from the user's
_META, _FWD, _BWD = 0, 1, 2


def _tag(kind, stage, mb):
    return _TAG_BASE + (kind << 32) + (stage << 20) + (mb & 0xFFFFF)


class _Failed(Exception):
    """A message a peer sent in place of the data: it failed."""


# ---- the orders ------------------------------------------------------------------------

def _gpipe_order(stage, n):
    return [("F", stage, i) for i in range(n)] + [("B", stage, i) for i in range(n)]


def _1f1b_order(stage, num_stages, n):
    warmup = min(n, num_stages - stage)
    order = [("F", stage, i) for i in range(warmup)]
    f, b = warmup, 0
    while b < n:
        order.append(("B", stage, b))
        b += 1
        if f < n:
            order.append(("F", stage, f))
            f += 1
    return order


def _interleaved_order(rank, P, v, n):
    rounds = max(1, n // P)
    per_round = n // rounds
    total = v * n
    warmup = min((v - 1) * per_round + 2 * (P - 1 - rank), total)

    def fwd_stage(k):
        return ((k // per_round) % v) * P + rank

    def bwd_stage(k):
        return (v - 1 - ((k - warmup) // per_round) % v) * P + rank

    next_f, next_b = {}, {}
    order = []

    def push(kind, stage, nxt):
        mb = nxt.get(stage, 0)
        nxt[stage] = mb + 1
        order.append((kind, stage, mb))

    for k in range(warmup):
        push("F", fwd_stage(k), next_f)
    for k in range(warmup, total):
        push("F", fwd_stage(k), next_f)
        push("B", bwd_stage(k), next_b)
    for k in range(total, total + warmup):
        push("B", bwd_stage(k), next_b)
    return order


def _looped_bfs_order(rank, P, v, n):
    stages = [rank + j * P for j in range(v)]
    order = [("F", s, i) for s in stages for i in range(n)]
    order += [("B", s, i) for s in reversed(stages) for i in reversed(range(n))]
    return order


def _stage_to_rank(P, S, style):
    """PyTorch's placements: "loop" (stage ``s`` on rank ``s % P``) or "v"
    (down the ranks and back: 0, 1, .., P - 1, P - 1, .., 0, 0, ..)."""
    if style == "loop":
        return {s: s % P for s in range(S)}
    if S % P:
        raise ValueError(f"num_stages {S} must be evenly divisible by pp_size {P} for V "
                         f"schedules")
    return {s: (s % P if (s // P) % 2 == 0 else P - 1 - s % P) for s in range(S)}


def _greedy_order(rank_of, P, S, n, full_backward=None):
    """Zero-bubble orders ({rank: [actions]}) by simulating the pipeline in
    unit time steps (F, I, W and B one step each, messages free).  At each
    step each rank runs one ready action: the oldest microbatch's I (latest
    stage first on a tie), else its oldest F (latest stage first: the
    microbatch reaches the loss sooner), else the oldest deferred W.  An F
    waits while its stage holds ``S - s + 1`` microbatches not yet through W.
    ``full_backward(rank, stage, mb, f_left)``, when given, says whether a
    backward is a full B instead of an I then a W (``f_left``: forwards the
    rank still has).
    Some action is always ready (the oldest unfinished microbatch's next F,
    I or W has everything it needs), so this ends; the lists are in the
    order of a timed run, so they cannot deadlock."""
    INF = float("inf")
    local = {r: [s for s in range(S) if rank_of[s] == r] for r in range(P)}
    f_next, g_next, w_next = [0] * S, [0] * S, [0] * S
    finished = {}                      # (kind, stage, mb) -> step it finished; kind F or G
    deferred = {r: [] for r in range(P)}
    orders = {r: [] for r in range(P)}
    left = 2 * S * n
    t = 0
    while left:
        picks = {}
        for r in range(P):
            ready_b = [(g_next[s], -s) for s in local[r]
                       if g_next[s] < f_next[s] and finished[("F", s, g_next[s])] <= t
                       and (s == S - 1 or finished.get(("G", s + 1, g_next[s]), INF) <= t)]
            ready_f = [(f_next[s], -s) for s in local[r]
                       if f_next[s] < n and f_next[s] - w_next[s] < S - s + 1
                       and (s == 0 or finished.get(("F", s - 1, f_next[s]), INF) <= t)]
            if ready_b:
                mb, s = min(ready_b)
                f_left = sum(n - f_next[k] for k in local[r])
                full = full_backward is not None and full_backward(r, -s, mb, f_left)
                picks[r] = ("B" if full else "I", -s, mb)
            elif ready_f:
                mb, s = min(ready_f)
                picks[r] = ("F", -s, mb)
            elif deferred[r]:
                picks[r] = ("W",) + deferred[r].pop(0)
        if not picks:
            raise RuntimeError("pipeline order: no action is ready (a bug in _greedy_order)")
        for r, (kind, s, mb) in picks.items():
            orders[r].append((kind, s, mb))
            if kind == "F":
                f_next[s] += 1
                finished[("F", s, mb)] = t + 1
                left -= 1
            elif kind in ("B", "I"):
                g_next[s] += 1
                finished[("G", s, mb)] = t + 1
                left -= 1
                if kind == "B":
                    w_next[s] += 1
                else:
                    deferred[r].append((s, mb))
            else:
                w_next[s] += 1
        t += 1
    for r in range(P):  # what no bubble took
        orders[r] += [("W", s, mb) for s, mb in deferred[r]]
    return orders


def _simulate(orders, num_stages, has_backward=True):
    """Run the per-rank ``orders`` ({rank: [actions]}) with sends that never
    wait and receives that do; True when every action completes.  Actions:
    F, B (full backward), I (input gradients) and W (weights, after I)."""
    P = len(orders)
    done = set()
    pos = {r: 0 for r in orders}
    progress = True
    while progress:
        progress = False
        for r, acts in orders.items():
            while pos[r] < len(acts):
                kind, s, i = acts[pos[r]]
                if kind == "F":
                    ready = s == 0 or ("F", s - 1, i) in done
                elif kind == "W":
                    ready = ("I", s, i) in done
                else:
                    ready = ("F", s, i) in done and (s == num_stages - 1 or
                                                     ("G", s + 1, i) in done)
                if not ready:
                    break
                done.add((kind, s, i))
                if kind in ("B", "I"):
                    done.add(("G", s, i))
                pos[r] += 1
                progress = True
    return all(pos[r] == len(orders[r]) for r in orders) and P > 0


# ---- the runtime -----------------------------------------------------------------------

class _Runner:
    """One step on this rank: its actions, their messages, and the fallback
    that sends or drops every message left when something fails."""

    def __init__(self, schedule, stages, order):
        self.sch = schedule
        self.stages = {s.stage_index: s for s in stages}
        self.order = order
        first = stages[0]
        self.group = first.group
        self.num_stages = first.num_stages
        self.rank_of = first._rank_of
        self.me = first.group_rank
        self.backward = schedule._has_backward
        self.ops = self._plan()
        self.done = set()
        self.local_out = {}    # (stage, mb) -> outputs handed to the next local stage
        self.local_grad = {}   # (stage, mb) -> input grads handed to the previous one

    # -- what will be sent and received --
    def _remote(self, s):
        return self.rank_of(s) != self.me

    def _plan(self):
        ops = []
        for s in sorted(self.stages):
            st = self.stages[s]
            if not st.is_first and st.inputs_meta is None and self._remote(s - 1):
                ops.append(("meta_recv", s))
            if not st.is_last and not st._meta_sent and self._remote(s + 1):
                ops.append(("meta_send", s))
        for kind, s, i in self.order:
            st = self.stages[s]
            if kind == "F":
                if not st.is_first and self._remote(s - 1):
                    ops.append(("fwd_recv", s, i))
                if not st.is_last and self._remote(s + 1):
                    ops.append(("fwd_send", s, i))
            elif kind in ("B", "I"):
                if not st.is_last and self._remote(s + 1):
                    ops.append(("bwd_recv", s, i))
                if not st.is_first and self._remote(s - 1):
                    ops.append(("bwd_send", s, i))
        return ops

    def _peer(self, op):
        s = op[1]
        return self.stages[s]._global_rank_of(s + 1 if op[0] in ("meta_send", "fwd_send",
                                                                 "bwd_recv") else s - 1)

    def _edge_meta(self, op):
        """The metadata of the tensors an op moves (None: not agreed yet)."""
        st = self.stages[op[1]]
        if op[0] in ("fwd_send", "bwd_recv"):
            meta = st.outputs_meta if st._meta_sent else None
        else:
            meta = st.inputs_meta
        if meta is not None and op[0] in ("bwd_recv", "bwd_send"):
            meta = tuple(m for m in meta if m.requires_grad)
        return meta

    def _tag(self, op):
        kind = _META if op[0].startswith("meta") else _FWD if op[0].startswith("fwd") else _BWD
        recv_stage = op[1] + 1 if op[0] in ("meta_send", "fwd_send") else \
            op[1] - 1 if op[0] == "bwd_send" else op[1]
        return _tag(kind, recv_stage, op[2] if len(op) > 2 else 0)

    # -- messages --
    def _send_tensors(self, op, tensors):
        peer, tag = self._peer(op), self._tag(op)
        for t in tensors:
            dist.send(t.detach().contiguous(), dst=peer, group=self.group, tag=tag)

    def _recv_tensors(self, op, metas):
        """The tensors of ``op``; every message is received even when one is a
        failure notice, so that the counts stay in step."""
        peer, tag = self._peer(op), self._tag(op)
        out, failed = [], None
        for m in metas:
            t = m.empty()
            try:
                dist.recv(t, src=peer, group=self.group, tag=tag)
            except dist.DistBackendError as e:
                # a message of another size or dtype (the transport's words);
                # anything else is a timeout or a lost peer
                if "bytes of" not in str(e):
                    raise
                failed = e
            out.append(t)
        if failed is not None:
            raise _Failed(str(failed))
        return out

    def _send_meta(self, op, payload):
        data = json.dumps(payload).encode()
        peer, tag = self._peer(op), self._tag(op)
        dist.send(torchlike.tensor([len(data)], dtype=torchlike.int64), dst=peer,
                  group=self.group, tag=tag)
        dist.send(torchlike.frombuffer(bytearray(data), dtype=torchlike.uint8), dst=peer,
                  group=self.group, tag=tag)

    def _recv_meta(self, op):
        peer, tag = self._peer(op), self._tag(op)
        n = torchlike.zeros(1, dtype=torchlike.int64)
        dist.recv(n, src=peer, group=self.group, tag=tag)
        data = torchlike.zeros(int(n.item()), dtype=torchlike.uint8)
        dist.recv(data, src=peer, group=self.group, tag=tag)
        return json.loads(data.numpy().tobytes().decode())

    def _do(self, op, fn):
        self.done.add(op)  # counted as done once started: never sent twice
        return fn()

    # -- the step --
    def run(self, arg_mbs, kwarg_mbs, target_mbs, loss_kwargs):
        self._init_meta(arg_mbs, kwarg_mbs)
        for kind, s, i in self.order:
            st = self.stages[s]
            if kind == "F":
                self._run_forward(st, i, arg_mbs, kwarg_mbs, target_mbs, loss_kwargs)
            elif kind == "W":
                st._backward_weight(i)
            else:
                self._run_backward(st, i, full=kind == "B")

    def _init_meta(self, arg_mbs, kwarg_mbs):
        for s in sorted(self.stages):
            st = self.stages[s]
            if st.outputs_meta is not None and (st.is_last or not self._remote(s + 1)
                                                or st._meta_sent):
                continue
            if st.outputs_meta is None:
                if st.is_first:
                    inputs = None
                elif st.inputs_meta is not None:  # agreed in a step that failed later
                    inputs = st.inputs_meta
                elif self._remote(s - 1):
                    op = ("meta_recv", s)
                    got = self._do(op, lambda: self._recv_meta(op))
                    if "error" in got:
                        raise PipeliningMetadataError(
                            f"Stage {s} got no metadata from stage {s - 1} (rank "
                            f"{self._peer(op)}): {got['error']}")
                    inputs = tuple(TensorMeta.from_json(j) for j in got["meta"])
                    st.inputs_meta = inputs
                else:
                    inputs = self.stages[s - 1].outputs_meta
                st._infer(arg_mbs[0] if st.is_first else (), kwarg_mbs[0], inputs)
            if not st.is_last and self._remote(s + 1):
                op = ("meta_send", s)
                self._do(op, lambda: self._send_meta(
                    op, {"meta": [m.to_json() for m in st.outputs_meta]}))
                st._meta_sent = True

    def _inputs_for(self, st, i, arg_mbs):
        s = st.stage_index
        if st.is_first:
            return arg_mbs[i]
        if not self._remote(s - 1):
            outs = self.local_out.pop((s - 1, i))
            return tuple(o.detach().requires_grad_(m.requires_grad and self.backward)
                         for o, m in zip(outs, st.inputs_meta))
        op = ("fwd_recv", s, i)
        try:
            got = self._do(op, lambda: self._recv_tensors(op, st.inputs_meta))
        except _Failed as e:
            raise PipeliningMetadataError(
                f"Stage {s}: the activations of microbatch {i} from stage {s - 1} (rank "
                f"{self._peer(op)}) did not arrive as agreed "
                f"({[m.describe() for m in st.inputs_meta]}): that rank failed or sent "
                f"tensors of other shapes ({e})") from None
        return tuple(t.requires_grad_(m.requires_grad and self.backward)
                     for t, m in zip(got, st.inputs_meta))

    def _run_forward(self, st, i, arg_mbs, kwarg_mbs, target_mbs, loss_kwargs):
        s = st.stage_index
        args = self._inputs_for(st, i, arg_mbs)
        out = st._forward(i, args, kwarg_mbs[i])
        if st.is_last:
            if self.sch._loss_fn is not None and target_mbs is not None:
                loss = self.sch._compute_loss(out, target_mbs[i], loss_kwargs)
                self.sch._internal_losses.append(loss)
            return
        outs = as_tuple(out)
        st._check_outputs(outs, i)
        if self._remote(s + 1):
            op = ("fwd_send", s, i)
            self._do(op, lambda: self._send_tensors(op, outs))
        else:
            self.local_out[(s, i)] = outs

    def _run_backward(self, st, i, full=True):
        """B (``full``) or I of microbatch ``i``: its input gradients go
        upstream at once."""
        s = st.stage_index
        if st.is_last:
            grads = st._backward(i, loss=self.sch._internal_losses[i], full=full)
        else:
            if self._remote(s + 1):
                op = ("bwd_recv", s, i)
                metas = self._edge_meta(op)
                try:
                    got = self._do(op, lambda: self._recv_tensors(op, metas))
                except _Failed as e:
                    raise PipeliningMetadataError(
                        f"Stage {s}: the gradients of microbatch {i} from stage {s + 1} "
                        f"(rank {self._peer(op)}) did not arrive as agreed: that rank "
                        f"failed ({e})") from None
            else:
                got = self.local_grad.pop((s + 1, i))
            grads = st._backward(i, output_grads=got, full=full)
        if st.is_first:
            return
        if self._remote(s - 1):
            op = ("bwd_send", s, i)
            self._do(op, lambda: self._send_tensors(op, grads))
        else:
            self.local_grad[(s, i)] = grads

    # -- when something failed --
    def abort(self):
        """Settle every message left of this step: the metadata ones in
        order (as the peers wait for them), then a failure notice for each
        tensor message owed, then receive and drop each one due."""
        left = [op for op in self.ops if op not in self.done]
        for op in left:
            if op[0] == "meta_send":
                self._send_meta(op, {"error": "it failed before its metadata was known"})
            elif op[0] == "meta_recv":
                got = self._recv_meta(op)
                if "meta" in got:  # the link is agreed even though this step failed
                    self.stages[op[1]].inputs_meta = tuple(TensorMeta.from_json(j)
                                                           for j in got["meta"])
        for op in left:
            if op[0] in ("fwd_send", "bwd_send"):
                metas = self._edge_meta(op)
                for m in (metas if metas is not None else (None,)):
                    bad = torchlike.int8 if m is not None and m.dtype == torchlike.uint8 \
                        else torchlike.uint8
                    dist.send(torchlike.empty(0, dtype=bad), dst=self._peer(op),
                              group=self.group, tag=self._tag(op))
        for op in left:
            if op[0] in ("fwd_recv", "bwd_recv"):
                metas = self._edge_meta(op)
                if metas is None:
                    metas = (TensorMeta((0,), torchlike.uint8, False),)
                try:
                    self._recv_tensors(op, metas)
                except _Failed:
                    pass


class _PipelineSchedule:
    """What the schedules share: microbatches, the loss, ``step``."""

    def __init__(self, n_microbatches, loss_fn=None, args_chunk_spec=None,
                 kwargs_chunk_spec=None, output_merge_spec=None, scale_grads=True):
        if not isinstance(n_microbatches, int) or n_microbatches < 1:
            raise ValueError(f"n_microbatches must be a positive int, got {n_microbatches!r}")
        self._n_microbatches = n_microbatches
        self._loss_fn = loss_fn
        self._args_chunk_spec = args_chunk_spec
        self._kwargs_chunk_spec = kwargs_chunk_spec
        self._output_merge_spec = output_merge_spec
        self.scale_grads = scale_grads
        self._has_backward = loss_fn is not None
        self._internal_losses = []

    def _compute_loss(self, output, target, loss_kwargs=None):
        return self._loss_fn(output, target, **(loss_kwargs or {}))

    def _microbatches(self, args, kwargs, target, arg_mbs, kwarg_mbs, target_mbs):
        n = self._n_microbatches
        pre_split = any(m is not None for m in (arg_mbs, kwarg_mbs, target_mbs))
        if pre_split:
            if args:
                raise ValueError("When using pre-split inputs, pass pre-split positional "
                                 "inputs through arg_mbs=... instead of positional args.")
            if kwargs:
                raise ValueError(f"Unexpected keyword arguments with pre-split inputs: "
                                 f"{', '.join(sorted(kwargs))}. Pass pre-split keyword "
                                 f"inputs through kwarg_mbs=...")
            if target is not None:
                raise ValueError("When using pre-split inputs, pass pre-split targets through "
                                 "target_mbs=... instead of target=...")
        else:
            if args or kwargs:
                arg_mbs, kwarg_mbs = split_args_kwargs_into_chunks(
                    args, kwargs, n, self._args_chunk_spec, self._kwargs_chunk_spec)
            if target is not None:
                target_mbs = _split_tensor(target, _TARGET_SPEC, n)
        for mbs, name in ((arg_mbs, "arg_mbs"), (kwarg_mbs, "kwarg_mbs"),
                          (target_mbs, "target_mbs")):
            if mbs is not None:
                if not isinstance(mbs, list):
                    raise TypeError(f"{name} must be a list but got a {type(mbs)}")
                if len(mbs) != n:
                    raise ValueError(f"Expecting {n} {name} but got {len(mbs)}")
        arg_mbs = arg_mbs if arg_mbs is not None else [()] * n
        kwarg_mbs = kwarg_mbs if kwarg_mbs is not None else [{}] * n
        if pre_split:
            for i, (a, k) in enumerate(zip(arg_mbs, kwarg_mbs)):
                if not isinstance(a, tuple):
                    raise TypeError(f"arg_mbs must be a list of tuples, but arg_mbs[{i}] is a "
                                    f"{type(a)}")
                if not isinstance(k, dict):
                    raise TypeError(f"kwarg_mbs must be a list of dicts, but kwarg_mbs[{i}] is "
                                    f"a {type(k)}")
        return arg_mbs, kwarg_mbs, target_mbs

    def _local_stages(self):
        raise NotImplementedError

    def _order(self):
        raise NotImplementedError

    def step(self, *args, target=None, losses=None, return_outputs=True, loss_kwargs=None,
             arg_mbs=None, kwarg_mbs=None, target_mbs=None, finalize_gradients=True, **kwargs):
        """One training iteration over the microbatches of a batch.

        ``args`` / ``kwargs``: the whole batch's inputs, on the rank of the
        first stage (kwargs go to every local stage); ``target`` and
        ``losses`` (a list, filled with one loss per microbatch) on the rank
        of the last stage.  Returns the merged output of the last stage on its
        rank, None elsewhere.  Gradients accumulate in the stages' modules.
        ``finalize_gradients`` concerns FSDP stage modules (not supported)
        and changes nothing."""
        if self._has_backward and not torchlike.is_grad_enabled():
            raise RuntimeError("step() requires gradients to be enabled for backward "
                               "computation; it should not be used under torch.no_grad() "
                               "context. Please call eval() instead.")
        stages = self._local_stages()
        if losses is not None and not isinstance(losses, list):
            raise TypeError(f"losses must be a list but got a {type(losses)}")
        if (args or arg_mbs is not None) and not any(s.is_first for s in stages):
            warnings.warn(f"step() got positional inputs on a rank without the first stage "
                          f"(stages {[s.stage_index for s in stages]}): only the first stage "
                          f"takes them; they are ignored", stacklevel=2)
        for st in stages:
            st._clear()
            st.has_backward = self._has_backward
        self._internal_losses = []
        runner = _Runner(self, stages, self._order())
        try:
            arg_mbs, kwarg_mbs, target_mbs = self._microbatches(
                args, kwargs, target, arg_mbs, kwarg_mbs, target_mbs)
            if any(s.is_first for s in stages) and not arg_mbs[0] and not kwarg_mbs[0]:
                raise ValueError("Stage 0 is on this rank: step() needs the batch's inputs "
                                 "here (step(x))")
            last = [s for s in stages if s.is_last]
            if last and self._has_backward and target_mbs is None:
                raise ValueError(f"Stage {last[0].stage_index} is the last stage and the "
                                 f"schedule has a loss_fn: step() needs target= there")
            runner.run(arg_mbs, kwarg_mbs, target_mbs, loss_kwargs)
        except Exception:  # (an interrupt leaves at once: no settling that could wait)
            for st in stages:
                st._clear()
            self._internal_losses = []
            try:
                runner.abort()
            except Exception:  # noqa: BLE001 - a lost peer: the first error is the one to see
                pass
            raise
        if self._has_backward:
            for st in stages:
                st._scale_grads(self._n_microbatches if self.scale_grads else 1)
        if any(s.is_last for s in stages):
            if losses is not None and self._internal_losses:
                losses.clear()
                losses.extend(self._internal_losses)
            last = [s for s in stages if s.is_last][0]
            out = merge_chunks(last.output_chunks, self._output_merge_spec) \
                if return_outputs else None
        else:
            out = None
        self._internal_losses = []
        for st in stages:
            st._clear()
        return out

    def eval(self, *args, target=None, losses=None, arg_mbs=None, kwarg_mbs=None,
             target_mbs=None, **kwargs):
        """``step`` without the backward (and without losses)."""
        saved = self._has_backward
        self._has_backward = False
        try:
            return self.step(*args, target=target, losses=losses, arg_mbs=arg_mbs,
                             kwarg_mbs=kwarg_mbs, target_mbs=target_mbs, **kwargs)
        finally:
            self._has_backward = saved


class PipelineScheduleSingle(_PipelineSchedule):
    """A schedule of one stage per rank of the pipeline group."""

    def __init__(self, stage, n_microbatches, loss_fn=None, args_chunk_spec=None,
                 kwargs_chunk_spec=None, output_merge_spec=None, scale_grads=True):
        super().__init__(n_microbatches, loss_fn, args_chunk_spec, kwargs_chunk_spec,
                         output_merge_spec, scale_grads)
        if not isinstance(stage, PipelineStage):
            raise TypeError(f"expected a PipelineStage, got {type(stage).__name__}")
        if stage.num_stages != stage.group_size:
            raise ValueError(f"{type(self).__name__} runs one stage per rank: the pipeline "
                             f"has {stage.num_stages} stages for a group of "
                             f"{stage.group_size} ranks (use a PipelineScheduleMulti)")
        self._stage = stage
        self._num_stages = stage.num_stages

    def _local_stages(self):
        return [self._stage]


class _ScheduleForwardOnly(PipelineScheduleSingle):
    """Forwards only, without a loss."""

    def step(self, *args, target=None, losses=None, **kwargs):
        if target is not None or losses is not None:
            raise RuntimeError("Forward-only schedule does not support loss computation")
        saved = self._has_backward
        self._has_backward = False
        try:
            return super().step(*args, **kwargs)
        finally:
            self._has_backward = saved

    def _order(self):
        return [("F", self._stage.stage_index, i) for i in range(self._n_microbatches)]


class ScheduleGPipe(PipelineScheduleSingle):
    """All forwards, then all backwards."""

    def _order(self):
        if not self._has_backward:
            return [("F", self._stage.stage_index, i) for i in range(self._n_microbatches)]
        return _gpipe_order(self._stage.stage_index, self._n_microbatches)


class Schedule1F1B(PipelineScheduleSingle):
    """One forward, one backward in the steady state."""

    def __init__(self, stage, n_microbatches, loss_fn=None, args_chunk_spec=None,
                 kwargs_chunk_spec=None, output_merge_spec=None, scale_grads=True):
        super().__init__(stage, n_microbatches, loss_fn, args_chunk_spec, kwargs_chunk_spec,
                         output_merge_spec, scale_grads)
        if n_microbatches < self._num_stages:
            raise ValueError(f"Number of microbatches ({n_microbatches}) must be greater than "
                             f"or equal to the number of stages ({self._num_stages}).")

    def _order(self):
        if not self._has_backward:
            return [("F", self._stage.stage_index, i) for i in range(self._n_microbatches)]
        return _1f1b_order(self._stage.stage_index, self._num_stages, self._n_microbatches)


class PipelineScheduleMulti(_PipelineSchedule):
    """A schedule of several stages per rank: rank ``r`` of ``P`` holds stages
    ``r, r + P, ...`` (``stages``, in any order), or for the V schedules
    ``r`` and ``2P - 1 - r``."""

    _placement = "loop"       # or "v"
    _stages_per_rank = None   # a number the schedule requires

    def __init__(self, stages, n_microbatches, loss_fn=None, args_chunk_spec=None,
                 kwargs_chunk_spec=None, output_merge_spec=None, scale_grads=True):
        super().__init__(n_microbatches, loss_fn, args_chunk_spec, kwargs_chunk_spec,
                         output_merge_spec, scale_grads)
        if not stages or not all(isinstance(s, PipelineStage) for s in stages):
            raise TypeError("stages must be a non-empty list of PipelineStage")
        stages = sorted(stages, key=lambda s: s.stage_index)
        P, r, S = stages[0].group_size, stages[0].group_rank, stages[0].num_stages
        if any(s.num_stages != S for s in stages):
            raise ValueError("the stages disagree on num_stages")
        if self._placement == "loop" and S % P:
            raise ValueError(f"{S} stages cannot be spread over a group of {P} ranks evenly")
        rank_of = _stage_to_rank(P, S, self._placement)
        if self._stages_per_rank is not None and len(stages) != self._stages_per_rank:
            raise ValueError(f"ZBV requires exactly {self._stages_per_rank} stages per rank, "
                             f"but got {len(stages)}.")
        want = [s for s in range(S) if rank_of[s] == r]
        if [s.stage_index for s in stages] != want:
            where = ("looped placement" if self._placement == "loop" else
                     f"V placement: stages r and {2 * P - 1} - r")
            raise ValueError(f"rank {r} of a pipeline group of {P} must hold stages {want} "
                             f"({where}), got {[s.stage_index for s in stages]}")
        for st in stages:  # where each stage's peers are
            st.stage_index_to_group_rank = dict(rank_of)
        self.stage_index_to_group_rank = rank_of
        self._stages = stages
        self._num_stages = S
        self.pp_group_size = P
        self.rank = r
        self.n_local_stages = len(stages)

    def _local_stages(self):
        return self._stages

    def _order(self):
        if not self._has_backward:
            return [("F", s.stage_index, i) for s in self._stages
                    for i in range(self._n_microbatches)]
        return self._backward_order()


def _check_rounds(name, n_microbatches, group_size):
    """The looped schedules run microbatches in rounds of the group's size:
    their number must be a multiple of the number of rounds."""
    rounds = max(1, n_microbatches // group_size)
    if n_microbatches % rounds:
        raise ValueError(f"{name} requires the number of microbatches to be a multiple of the "
                         f"number of rounds ({rounds}), but got {n_microbatches}.")


class ScheduleInterleaved1F1B(PipelineScheduleMulti):
    """Interleaved 1F1B (Narayanan et al., 2021), looped stages."""

    def __init__(self, stages, n_microbatches, loss_fn=None, args_chunk_spec=None,
                 kwargs_chunk_spec=None, output_merge_spec=None, scale_grads=True):
        super().__init__(stages, n_microbatches, loss_fn, args_chunk_spec, kwargs_chunk_spec,
                         output_merge_spec, scale_grads)
        _check_rounds("Interleaved 1F1B", n_microbatches, self.pp_group_size)

    def _backward_order(self):
        return _interleaved_order(self.rank, self.pp_group_size, self.n_local_stages,
                                  self._n_microbatches)


class ScheduleLoopedBFS(PipelineScheduleMulti):
    """Breadth-first: each local stage takes every microbatch in turn."""

    def _backward_order(self):
        return _looped_bfs_order(self.rank, self.pp_group_size, self.n_local_stages,
                                 self._n_microbatches)


class _ZeroBubble(PipelineScheduleMulti):
    """The zero-bubble schedules' constructor: PyTorch's arguments (the
    FSDP and transport knobs are accepted and change nothing here)."""

    def __init__(self, stages, n_microbatches, loss_fn=None, args_chunk_spec=None,
                 kwargs_chunk_spec=None, output_merge_spec=None, scale_grads=True,
                 backward_requires_autograd=True, defer_pp_recv=False, max_active_stages=3,
                 unshard_lookahead="full", *, defer_reduce_grad_wait=False,
                 max_outstanding_sends=None):
        if max_outstanding_sends is not None and (not isinstance(max_outstanding_sends, int)
                                                  or max_outstanding_sends < 0):
            raise ValueError("max_outstanding_sends must be a non-negative integer")
        super().__init__(stages, n_microbatches, loss_fn, args_chunk_spec, kwargs_chunk_spec,
                         output_merge_spec, scale_grads)
        self._check_microbatches(n_microbatches)
        self._backward_requires_autograd = backward_requires_autograd
        self._orders = None

    def _check_microbatches(self, n_microbatches):
        """Each schedule's own rule on the number of microbatches."""

    def _backward_order(self):
        if self._orders is None:
            self._orders = _greedy_order(self.stage_index_to_group_rank, self.pp_group_size,
                                         self._num_stages, self._n_microbatches,
                                         self._full_backward())
        return self._orders[self.rank]

    def _full_backward(self):
        return None


class ScheduleInterleavedZeroBubble(_ZeroBubble):
    """Zero bubble (ZB1P) over looped stages: rank ``r`` of ``P`` holds stages
    ``r, r + P, ...``; backwards split into I and W."""

    def _check_microbatches(self, n_microbatches):
        _check_rounds("Zero bubble", n_microbatches, self.pp_group_size)


class ScheduleZBVZeroBubble(_ZeroBubble):
    """Zero bubble in a V (ZB-V): exactly 2 stages per rank, rank ``r`` holding
    stages ``r`` and ``2P - 1 - r``; backwards split into I and W."""

    _placement = "v"
    _stages_per_rank = 2


class ScheduleDualPipeV(_ZeroBubble):
    """DualPipeV (DeepSeek-V3's DualPipe folded into a V): the V placement of
    ZB-V, full backwards while the rank still has forwards to run, split ones
    (I, then W in the bubbles) in the cooldown; ``n_microbatches >=
    num_stages``."""

    _placement = "v"
    _stages_per_rank = 2

    def _check_microbatches(self, n_microbatches):
        if n_microbatches < self._num_stages:
            raise ValueError("DualPipeV requires at least as many microbatches as stages, but "
                             f"got {n_microbatches} microbatches and {self._num_stages} "
                             f"stages.")

    def _full_backward(self):
        """DualPipe's split backwards: on a rank's second stage (``s >= P``)
        those of its first ``P - 1 - r`` microbatches (warm-up) and of its last
        ``(r + 1) // 2`` (cooldown), as PyTorch's (so the losses of the first
        ``P - 1`` microbatches come back detached, the others with their
        graph); on its first stage those it runs once its forwards are done."""
        P, n = self.pp_group_size, self._n_microbatches

        def full(rank, stage, mb, forwards_left):
            if stage >= P:
                return P - 1 - rank <= mb < n - (rank + 1) // 2
            return forwards_left > 0
        return full


def get_schedule_class(schedule_name):
    """The schedule class of that name, case-insensitively: "1F1B",
    "Interleaved1F1B", "GPipe", "LoopedBFS", "InterleavedZeroBubble",
    "PipelineScheduleSingle", "PipelineScheduleMulti", "ZBVZeroBubble",
    "DualPipeV"."""
    classes = {"1F1B": Schedule1F1B, "Interleaved1F1B": ScheduleInterleaved1F1B,
               "GPipe": ScheduleGPipe, "LoopedBFS": ScheduleLoopedBFS,
               "InterleavedZeroBubble": ScheduleInterleavedZeroBubble,
               "PipelineScheduleSingle": PipelineScheduleSingle,
               "PipelineScheduleMulti": PipelineScheduleMulti,
               "ZBVZeroBubble": ScheduleZBVZeroBubble, "DualPipeV": ScheduleDualPipeV}
    for name, cls in classes.items():
        if name.lower() == str(schedule_name).lower():
            return cls
    raise ValueError(f"Unknown schedule name '{schedule_name}'. The valid options are "
                     f"{list(classes)}")
