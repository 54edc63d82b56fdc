"""``pipeline()``: cut a model into pipeline stages through torchlike.fx.

The model's forward is traced symbolically (torchlike.fx.Tracer; torchlike's
own nn modules stay single ``call_module`` nodes).  A call of
``pipe_split()`` in the forward, or a submodule named in ``split_spec``
(``SplitPoint.BEGINNING``: before its call, ``END``: after), leaves a marker
node; the nodes between markers make one stage each.

Stage ``k`` is a GraphModule over the original model (its submodules and
parameters keep their qualified names: ``layers.1.weight``) whose inputs are
the values made before it and used by it or by a later stage, in the order
they were made, and whose outputs are the values made up to it and used
after it (one value alone, several as a tuple).  A value a later stage needs
passes through the stages between, so stage ``k``'s outputs are exactly
stage ``k + 1``'s inputs, which is what ``PipelineStage`` sends.  The
model's inputs are stage 0's.  Parameters read directly (``get_attr``) are
copied into each stage that reads them.

``Pipe.split_gm`` calls ``submod_pp_0``, ``submod_pp_1``, ... in turn: run
in one process it computes what the model does."""
import enum
import operator

import torchlike
from torchlike import fx
from torchlike.nn import Module

from .stage import PipelineStage

__all__ = ["Pipe", "SplitPoint", "pipe_split", "pipeline", "PipeInfo"]

_active_tracer = None  # the tracer of the pipeline() call under way


class SplitPoint(enum.Enum):
    """Where ``split_spec`` cuts: before or after the named submodule's call."""
    BEGINNING = 1
    END = 2


def pipe_split():
    """Mark a stage boundary in a forward that ``pipeline()`` traces; run
    eagerly it does nothing."""
    if _active_tracer is not None:
        _active_tracer.create_node("call_function", pipe_split, (), {})


class _SplitTracer(fx.Tracer):
    """A tracer that leaves a ``pipe_split`` node around the submodules
    ``split_spec`` names."""

    def __init__(self, split_spec):
        super().__init__()
        self.split_spec = dict(split_spec or {})
        self.seen = set()

    def call_module(self, m, forward, args, kwargs):
        name = self.path_of_module(m)
        point = self.split_spec.get(name)
        if point is not None:
            self.seen.add(name)
        if point is SplitPoint.BEGINNING:
            self.create_node("call_function", pipe_split, (), {})
        out = super().call_module(m, forward, args, kwargs)
        if point is SplitPoint.END:
            self.create_node("call_function", pipe_split, (), {})
        return out


class PipeInfo:
    """What ``build_stage`` needs to know of a Pipe."""

    def __init__(self, graph, num_stages, has_loss_and_backward=False):
        self.graph = graph
        self.num_stages = num_stages
        self.has_loss_and_backward = has_loss_and_backward


class Pipe(Module):
    """A model cut into stages: ``split_gm`` holds them as ``submod_pp_<i>``."""

    def __init__(self, split_gm, num_stages, has_loss_and_backward=False, loss_spec=None):
        super().__init__()
        self.split_gm = split_gm
        self.num_stages = num_stages
        self.has_loss_and_backward = has_loss_and_backward
        self.loss_spec = loss_spec

    def forward(self, *args, **kwargs):
        return self.split_gm(*args, **kwargs)

    def get_stage_module(self, stage_idx):
        """The module of stage ``stage_idx`` (a GraphModule)."""
        if not isinstance(stage_idx, int) or not 0 <= stage_idx < self.num_stages:
            raise ValueError(f"Invalid stage index {stage_idx}!")
        return getattr(self.split_gm, f"submod_pp_{stage_idx}")

    def info(self):
        return PipeInfo(self.split_gm.graph, self.num_stages, self.has_loss_and_backward)

    def build_stage(self, stage_index, device, group=None):
        """A PipelineStage running stage ``stage_index`` of this Pipe."""
        return PipelineStage(self.get_stage_module(stage_index), stage_index,
                             self.num_stages, device, group=group)


def _trace(module, split_spec):
    global _active_tracer
    unknown = sorted(set(split_spec or {}) - {n for n, _ in module.named_modules()})
    if unknown:
        raise ValueError(f"split_spec names modules the model does not have: {unknown}")
    for name, point in (split_spec or {}).items():
        if not isinstance(point, SplitPoint):
            raise TypeError(f"split_spec[{name!r}] must be a SplitPoint, got {point!r}")
    tracer = _SplitTracer(split_spec)
    _active_tracer = tracer
    try:
        graph = tracer.trace(module)
    finally:
        _active_tracer = None
    missed = sorted(set(tracer.split_spec) - tracer.seen)
    if missed:
        raise ValueError(f"split_spec names modules the forward never calls: {missed}")
    return graph


def _cut(graph):
    """(nodes of each stage, stage of each value node, number of stages)."""
    stage_nodes = [[]]
    stage_of = {}
    for n in graph.nodes:
        if n.op == "call_function" and n.target is pipe_split:
            stage_nodes.append([])
        elif n.op in ("placeholder", "get_attr"):
            stage_of[n] = 0
        elif n.op != "output":
            stage_nodes[-1].append(n)
            stage_of[n] = len(stage_nodes) - 1
    return stage_nodes, stage_of, len(stage_nodes)


def _stage_graphs(graph):
    """One Graph per stage (see the module docstring)."""
    stage_nodes, stage_of, S = _cut(graph)
    order = {n: k for k, n in enumerate(graph.nodes)}
    output = next(n for n in graph.nodes if n.op == "output")
    placeholders = [n for n in graph.nodes if n.op == "placeholder"]
    # the last stage that uses each value (the output counts as the last stage)
    last_use = {}
    for n in graph.nodes:
        users = [S - 1 if u.op == "output" else stage_of[u] for u in n.users
                 if u.op != "call_function" or u.target is not pipe_split]
        if n.op in ("placeholder",) or (n in stage_of and n.op != "get_attr"):
            last_use[n] = max(users, default=stage_of[n])
    crossing = [sorted((v for v in last_use if stage_of[v] <= k < last_use[v]),
                       key=order.__getitem__) for k in range(S - 1)]
    graphs = []
    for k in range(S):
        g = fx.Graph()
        env = {}
        if k == 0:
            for p in placeholders:
                env[p] = g.node_copy(p)
        else:
            for v in crossing[k - 1]:
                env[v] = g.placeholder(v.name)

        def lookup(a):
            if a not in env and a.op == "get_attr":  # read again where it is used
                env[a] = g.node_copy(a)
            return env[a]
        for n in stage_nodes[k]:
            env[n] = g.node_copy(n, lookup)
        if k == S - 1:
            g.output(fx.map_arg(output.args[0], lookup))
        else:
            outs = [lookup(v) for v in crossing[k]]
            g.output(outs[0] if len(outs) == 1 else tuple(outs))
        graphs.append((g, len(crossing[k]) if k < S - 1 else None))
    return graphs, placeholders


def pipeline(module, mb_args, mb_kwargs=None, split_spec=None, split_policy=None):
    """Cut ``module`` into stages at its ``pipe_split()`` calls and at the
    submodules ``split_spec`` names ({qualified name: SplitPoint}).
    ``mb_args`` / ``mb_kwargs``: a microbatch's example inputs (the forward
    is run on them once through the stages to check the cut)."""
    if split_policy is not None:
        raise NotImplementedError("split_policy is not supported: use split_spec or "
                                  "pipe_split()")
    if not isinstance(mb_args, tuple):
        mb_args = (mb_args,)
    graph = _trace(module, split_spec)
    graphs, placeholders = _stage_graphs(graph)
    graphs_out = next(n for n in graph.nodes if n.op == "output").args[0]
    root = Module()
    top = fx.Graph()
    env = {p: top.node_copy(p) for p in placeholders}
    values = [env[p] for p in placeholders]
    for k, (g, n_out) in enumerate(graphs):
        sub = fx.GraphModule(module, g, "GraphModule")
        root.add_module(f"submod_pp_{k}", sub)
        call = top.call_module(f"submod_pp_{k}", tuple(values))
        if n_out is None:  # PyTorch's Pipe returns the model's outputs as a tuple
            top.output(call if isinstance(graphs_out, (tuple, list)) else (call,))
        elif n_out == 1:
            values = [call]
        else:
            values = [top.call_function(operator.getitem, (call, j)) for j in range(n_out)]
    split_gm = fx.GraphModule(root, top, "GraphModule")
    with torchlike.no_grad():
        split_gm(*mb_args, **(mb_kwargs or {}))  # the cut must run as the model does
    return Pipe(split_gm, len(graphs))
