"""fuse_fx: the traced model with conv / linear (+ batch norm) (+ relu)
chains folded into one module, as fuse_modules does by name: the chain is
found in the graph (a relu may be nn.ReLU, F.relu or torch.relu), the fused
module takes the first module's name and the other nodes go."""
from ....nn.modules.conv import Conv1d, Conv2d, Conv3d
from ....nn.modules.linear import Linear
from ....nn.modules.normalization import BatchNorm1d, BatchNorm2d, BatchNorm3d
from ....nn.modules.activation import ReLU
from ..fuse_modules import get_fuser_method
from .tracer import modules_of
from .patterns import is_relu

# the module types a chain starts with -> the batch norm that may follow (None: none)
_BN = {Conv1d: BatchNorm1d, Conv2d: BatchNorm2d, Conv3d: BatchNorm3d, Linear: BatchNorm1d,
       BatchNorm2d: None, BatchNorm3d: None}


def _single_user(node):
    users = list(node.users)
    return users[0] if len(users) == 1 else None


def _set_module(gm, name, module):
    parent, _, leaf = name.rpartition(".")
    setattr(gm.get_submodule(parent) if parent else gm, leaf, module)


def fuse_graph(gm, is_qat):
    """Fuses gm's chains in place; returns gm."""
    modules = modules_of(gm)
    for node in list(gm.graph.nodes):
        if node.op != "call_module" or type(modules.get(node.target)) not in _BN:
            continue
        first = modules[node.target]
        chain, mods, cur = [node], [first], node
        nxt = _single_user(cur)
        if nxt is not None and nxt.op == "call_module" and _BN[type(first)] is not None and \
                type(modules.get(nxt.target)) is _BN[type(first)]:
            chain.append(nxt)
            mods.append(modules[nxt.target])
            cur = nxt
            nxt = _single_user(cur)
        if nxt is not None and is_relu(nxt, modules) and nxt.args[0] is cur:
            chain.append(nxt)
            mods.append(modules[nxt.target] if nxt.op == "call_module" else ReLU())
        if len(chain) == 1:
            continue
        try:
            fuser = get_fuser_method(tuple(type(m) for m in mods))
        except AssertionError:  # a chain fuse_modules has no fused module for (Conv3d)
            continue
        fused = fuser(is_qat, *mods)
        _set_module(gm, node.target, fused)
        chain[-1].replace_all_uses_with(node)
        for n in reversed(chain[1:]):
            gm.graph.erase_node(n)
    gm.graph.lint()
    gm.recompile()
    return gm
