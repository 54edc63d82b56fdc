"""torchlike.fx: PyTorch's torch.fx - capture a module's forward as a graph
of operations (symbolic tracing), edit it, and run it again as Python code.

    gm = torchlike.fx.symbolic_trace(model)   # a GraphModule
    print(gm.graph)                           # the nodes
    print(gm.code)                            # the generated forward

See docs/fx.md for what exists and what does not.
"""
from .node import Node, map_arg, map_aggregate, has_side_effect
from .graph import Graph, PythonCode, CodeGen
from .proxy import Proxy, Attribute, TraceError, GraphAppendingTracer
from ._symbolic_trace import Tracer, symbolic_trace, wrap, PH, ProxyableClassMeta
from .graph_module import GraphModule
from .interpreter import Interpreter, Transformer
from .subgraph_rewriter import replace_pattern
from . import passes  # noqa: F401
from . import annotate as _annotate_module  # noqa: F401  (torchlike.fx.annotate.annotate)

__all__ = ["symbolic_trace", "Tracer", "wrap", "Graph", "GraphModule", "Interpreter",
           "Transformer", "Node", "Proxy", "replace_pattern", "has_side_effect", "map_arg",
           "map_aggregate", "PythonCode", "CodeGen", "Attribute", "TraceError",
           "GraphAppendingTracer", "PH", "ProxyableClassMeta"]
