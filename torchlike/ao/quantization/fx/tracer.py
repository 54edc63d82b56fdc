"""The tracer of FX graph mode quantization: torchlike.nn's modules and the
quantization modules (fused, QAT) stay leaves, and every node remembers the
module it was traced in (its scope: PyTorch names the qparams attributes
convert makes after it)."""
from ....fx import Tracer, GraphModule
from ....nn.modules.container import Sequential


class QuantizationTracer(Tracer):
    def __init__(self, skipped_module_names=(), skipped_module_classes=()):
        super().__init__()
        self.skipped_module_names = list(skipped_module_names)
        self.skipped_module_classes = tuple(skipped_module_classes)
        self.node_name_to_scope = {}

    def is_leaf_module(self, m, module_qualified_name):
        name = type(m).__module__
        library = name.startswith("torchlike.nn") or name.startswith("torchlike.ao.nn")
        return (library and type(m) is not Sequential) or \
            module_qualified_name in self.skipped_module_names or \
            isinstance(m, self.skipped_module_classes)

    def create_node(self, kind, target, args, kwargs, name=None, type_expr=None):
        node = super().create_node(kind, target, args, kwargs, name, type_expr)
        stack = node.meta.get("nn_module_stack")
        self.node_name_to_scope[node.name] = next(reversed(stack.values())) if stack \
            else ("", None)
        return node


def trace(model, prepare_custom_config=None):
    """(GraphModule, node name -> (module path, module type))."""
    config = prepare_custom_config or {}
    if not isinstance(config, dict):
        config = config.to_dict()
    tracer = QuantizationTracer(config.get("non_traceable_module_name", ()),
                                config.get("non_traceable_module_class", ()))
    graph = tracer.trace(model)
    gm = GraphModule(model, graph)
    return gm, dict(tracer.node_name_to_scope)


def modules_of(gm):
    """{target: module} of gm's call_module nodes and its children (a module
    called under two names, or held by a fused module too, is found under
    each: named_modules() would list it once)."""
    out = dict(gm.named_children())
    for node in gm.graph.nodes:
        if node.op == "call_module":
            out[node.target] = gm.get_submodule(node.target)
    return out
