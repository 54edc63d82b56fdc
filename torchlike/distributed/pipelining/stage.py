"""A pipeline stage: one part of a model, on one rank of the pipeline group.

``PipelineStage(submodule, stage_index, num_stages, device, input_args=None,
output_args=None, group=None)``: stage ``i`` runs on group rank
``i % group_size`` (one stage per rank, or several "looped" ones for the
multi-stage schedules).  Stage ``i``'s outputs (a tensor or a tuple of
tensors) are stage ``i + 1``'s positional inputs.

Before the first step the stages agree on the tensors between them, as
PyTorch 2.x does: the first stage runs its module on microbatch 0, and each
stage sends the shapes, dtypes and requires_grad of its outputs to the next,
which runs its module on empty tensors of those shapes to learn its own
(``TensorMeta``; grad enabled, buffers and random state restored after).
``input_args`` / ``output_args``, when given, are checked against what was
learnt (PipeliningMetadataError).  Every later microbatch is checked against
the same metadata before it is sent.

The schedules (schedules.py) drive a stage with ``_forward`` and
``_backward`` per microbatch; the messages are theirs.

Split backward (the zero-bubble schedules).  ``_backward(..., full=False)``
is the input step (I): the gradients of the stage's inputs only
(``autograd.grad`` on the retained graph), which go upstream at once; the
parameters' gradients wait for ``_backward_weight`` (W), which runs the
same backward from the same roots and output gradients with ``inputs=`` the
parameters, accumulating into ``.grad`` exactly what a plain backward
would.  NOTE: W walks the graph again (PyTorch resumes from the gradients
I left at the nodes that feed the weights; torchlike's engine takes
tensors, not graph edges, as roots), so a split backward costs one more
backward pass and the graph lives until W.  The first stage, which sends
no gradients upstream, does all its backward in W (as PyTorch's).

``dw_builder`` (PyTorch's): a callable returning a callable.  With it, the
I step is a full backward and the built runner is called at W; a full
backward builds and calls it at once."""
import torchlike
import torchlike.distributed as dist
from torchlike.utils._pytree import tree_map

from ._utils import PipeliningMetadataError, TensorMeta, as_tuple, check_metas

__all__ = ["PipelineStage", "build_stage"]


def _is_tensor(v):
    return isinstance(v, torchlike.Tensor)


class PipelineStage:
    """One stage of a pipeline (see the module docstring)."""

    def __init__(self, submodule, stage_index, num_stages, device, input_args=None,
                 output_args=None, output_grads=None, input_grads=None, group=None,
                 dw_builder=None):
        if not isinstance(num_stages, int) or num_stages < 1:
            raise ValueError(f"num_stages must be a positive int, got {num_stages!r}")
        if not isinstance(stage_index, int) or not 0 <= stage_index < num_stages:
            raise ValueError(f"Stage index {stage_index} is out of range of {num_stages}")
        if dw_builder is not None and not callable(dw_builder):
            raise TypeError(f"dw_builder must be callable, got {type(dw_builder).__name__}")
        self.submod = submodule
        self.stage_index = stage_index
        self.num_stages = num_stages
        self.device = torchlike.device(device) if isinstance(device, str) else device
        self.group = group
        self.group_rank = dist.get_rank(group)
        self.group_size = dist.get_world_size(group)
        if self.group_rank < 0:
            raise ValueError("this process is not a member of the stage's group")
        if self.group_size > num_stages:
            raise RuntimeError(f"Pipeline group size {self.group_size} cannot be larger than "
                               f"number of stages {num_stages}")
        self.stage_index_to_group_rank = {i: i % self.group_size for i in range(num_stages)}
        # gradients have their tensors' shapes: given ones are checked as those
        self._user_inputs = self._user_meta(input_args, "input_args")
        self._user_outputs = self._user_meta(output_args, "output_args")
        self._user_input_grads = self._user_meta(input_grads, "input_grads")
        self._user_output_grads = self._user_meta(output_grads, "output_grads")
        self.inputs_meta = None   # tuple of TensorMeta once agreed
        self.outputs_meta = None
        self._meta_sent = False   # outputs_meta went to the next stage's rank
        self.has_backward = False
        self.output_chunks = []   # the last stage's outputs, one per microbatch
        self._chunk_pos = {}      # microbatch -> its place in output_chunks
        self._cache = {}          # microbatch -> (outputs tuple, input tensors)
        self.dw_builder = dw_builder
        self._pending_w = {}      # microbatch -> what its W step needs (split backward)

    @staticmethod
    def _user_meta(args, what):
        if args is None:
            return None
        args = as_tuple(args)
        if not all(_is_tensor(a) for a in args):
            raise TypeError(f"{what} must be a tensor or a tuple of tensors")
        return tuple(TensorMeta.of(a) for a in args)

    @property
    def is_first(self):
        return self.stage_index == 0

    @property
    def is_last(self):
        return self.stage_index == self.num_stages - 1

    def __repr__(self):
        return (f"PipelineStage(stage_index={self.stage_index}, num_stages={self.num_stages}, "
                f"group_rank={self.group_rank})")

    # ---- peers -----------------------------------------------------------------------
    def _rank_of(self, stage_index):
        """The group rank that runs ``stage_index``."""
        return self.stage_index_to_group_rank[stage_index]

    def _global_rank_of(self, stage_index):
        return dist.get_global_rank(self.group, self._rank_of(stage_index)) \
            if self.group is not None else self._rank_of(stage_index)

    # ---- metadata --------------------------------------------------------------------
    def _infer(self, args, kwargs, inputs_meta):
        """Learn this stage's output metadata by running its module once:
        on ``args`` (the first stage) or on empty tensors of ``inputs_meta``."""
        if self.is_first:
            tensors = [a for a in args if _is_tensor(a)]
            inputs_meta = tuple(TensorMeta.of(a) for a in tensors)
            run_args = tuple(a.detach().requires_grad_(a.requires_grad) if _is_tensor(a) else a
                             for a in args)
        else:
            run_args = tuple(m.empty().zero_().requires_grad_(m.requires_grad)
                             for m in inputs_meta)
        if self._user_inputs is not None:
            check_metas(f"Stage {self.stage_index} input", self._user_inputs, inputs_meta)
        if self._user_input_grads is not None and not self.is_first:
            check_metas(f"Stage {self.stage_index} input_grad", self._user_input_grads,
                        tuple(m for m in inputs_meta if m.requires_grad))
        buffers = [(b, b.detach().clone()) for b in self.submod.buffers()]
        try:
            with torchlike.random.fork_rng(devices=[]), torchlike.enable_grad():
                out = self.submod(*run_args, **(kwargs or {}))
        except Exception as e:
            raise RuntimeError(f"[Stage {self.stage_index}] failed to run forward on "
                               f"inputs {[m.describe() for m in inputs_meta]}: {e}") from e
        finally:
            with torchlike.no_grad():
                for b, saved in buffers:
                    b.copy_(saved)
        outs = as_tuple(out)
        if not self.is_last:
            for k, o in enumerate(outs):
                if not _is_tensor(o):
                    raise PipeliningMetadataError(
                        f"Stage {self.stage_index} output[{k}] is a {type(o).__name__}: only "
                        f"tensors can be sent to the next stage")
        outputs_meta = tuple(TensorMeta.of(o) for o in outs if _is_tensor(o))
        if self._user_outputs is not None:
            check_metas(f"Stage {self.stage_index} output", self._user_outputs, outputs_meta)
        if self._user_output_grads is not None and not self.is_last:
            check_metas(f"Stage {self.stage_index} output_grad", self._user_output_grads,
                        tuple(m for m in outputs_meta if m.requires_grad))
        self.inputs_meta = inputs_meta
        self.outputs_meta = outputs_meta
        return outputs_meta

    def _check_outputs(self, outs, mb):
        """Outputs of microbatch ``mb`` against the agreed metadata."""
        if len(outs) != len(self.outputs_meta):
            raise PipeliningMetadataError(
                f"Stage {self.stage_index} returned {len(outs)} outputs for microbatch {mb} "
                f"where the first microbatch gave {len(self.outputs_meta)}")
        for k, (o, m) in enumerate(zip(outs, self.outputs_meta)):
            if not _is_tensor(o) or tuple(o.shape) != m.shape or o.dtype != m.dtype:
                got = (TensorMeta.of(o).describe() if _is_tensor(o) else type(o).__name__)
                raise PipeliningMetadataError(
                    f"Stage {self.stage_index} output[{k}] of microbatch {mb}: {got} differs "
                    f"from the metadata agreed on the first microbatch ({m.describe()}); "
                    f"every microbatch must give the next stage tensors of the same shapes "
                    f"(is the batch divisible by the number of microbatches?)")

    # ---- compute ---------------------------------------------------------------------
    def _forward(self, mb, args, kwargs):
        """Run microbatch ``mb``; the module's output as it is (the last
        stage also keeps it in ``output_chunks``; with a backward to come,
        the outputs and the inputs that require grad are kept for it)."""
        try:
            out = self.submod(*args, **(kwargs or {}))
        except Exception as e:
            raise RuntimeError(f"[Stage {self.stage_index}] failed to run forward on "
                               f"microbatch {mb}: {e}") from e
        if self.is_last:
            self._chunk_pos[mb] = len(self.output_chunks)
            self.output_chunks.append(out)
        if self.has_backward:
            inputs = [a for a in args if _is_tensor(a) and a.requires_grad]
            self._cache[mb] = (as_tuple(out), inputs)
        return out

    def _backward(self, mb, loss=None, output_grads=None, full=True):
        """Backward of microbatch ``mb`` from ``loss`` (the last stage) or from
        the gradients of the outputs that require grad; the gradients of the
        inputs that require grad (zeros for one the outputs do not use).
        ``full=False``: the input step only; ``_backward_weight(mb)`` follows."""
        outputs, inputs = self._cache.pop(mb)
        if loss is not None:
            roots, grads = [loss], None
        else:
            pairs = [(o, g) for o, g in zip((o for o in outputs if o.requires_grad),
                                            output_grads)]
            roots = [o for o, _ in pairs]
            grads = [g for _, g in pairs]
        if self.is_last and mb in self._chunk_pos:  # kept for the caller, without its graph
            pos = self._chunk_pos[mb]
            self.output_chunks[pos] = tree_map(
                lambda t: t.detach() if _is_tensor(t) else t, self.output_chunks[pos])
        if full or self.dw_builder is not None:
            if roots:
                torchlike.autograd.backward(roots, grads)
            in_grads = [i.grad for i in inputs]
            if self.dw_builder is not None:
                runner = self.dw_builder()
                if full:
                    runner()
                else:
                    self._pending_w[mb] = runner
        else:
            in_grads = [None] * len(inputs)
            if roots and inputs and not self.is_first:
                in_grads = list(torchlike.autograd.grad(roots, inputs, grads, retain_graph=True,
                                                        allow_unused=True))
            self._pending_w[mb] = (roots, grads)
        return [g if g is not None else torchlike.zeros_like(i)
                for g, i in zip(in_grads, inputs)]

    def _backward_weight(self, mb):
        """The W step of microbatch ``mb``: its parameters' gradients, from
        the roots its input step kept (or its dw_builder's runner)."""
        if mb not in self._pending_w:
            raise RuntimeError(f"[Stage {self.stage_index}] Attempted to run the weight "
                               f"backward of microbatch {mb} without first running its input "
                               f"backward (full_backward=False)")
        work = self._pending_w.pop(mb)
        if callable(work):
            work()
            return
        roots, grads = work
        if self.is_first:  # all of it, as a plain backward (inputs the user made require grad too)
            if roots:
                torchlike.autograd.backward(roots, grads)
        else:
            params = [p for p in self.submod.parameters() if p.requires_grad]
            if roots and params:
                torchlike.autograd.backward(roots, grads, inputs=params)
        if self.is_last:  # the loss, done with: PyTorch's losses list holds it detached
            for r in roots:
                r.detach_()

    def _scale_grads(self, factor):
        if factor != 1:
            with torchlike.no_grad():
                for p in self.submod.parameters():
                    if p.grad is not None:
                        p.grad.div_(factor)

    def _clear(self):
        self.output_chunks = []
        self._chunk_pos = {}
        self._cache = {}
        self._pending_w = {}


def build_stage(stage_module, stage_index, pipe_info, device, group=None):
    """A stage from a module of ``pipeline()``'s Pipe (``pipe.info()``)."""
    return PipelineStage(stage_module, stage_index, pipe_info.num_stages, device, group=group)
