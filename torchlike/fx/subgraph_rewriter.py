"""subgraph_rewriter.py - replace_pattern: find a pattern's graph in a
GraphModule's graph and put a replacement's graph in its place.

Matching: the pattern's returned node is the anchor; a graph node matches
when op and target agree and its arguments match the pattern's one by one
(nodes recursively, other values by equality).  Pattern placeholders match
any value, the same one everywhere they appear; the match is one-to-one
(two pattern values never stand for the same graph node, so ``u + v`` does
not match ``x + x``).  A match is refused when a
node inside it (other than the anchor) is read outside it, and matches do
not overlap: the graph is scanned in order and nodes of an earlier match
are not used again.
"""
from typing import Dict, NamedTuple

from .graph_module import GraphModule
from .node import Node
from ._symbolic_trace import symbolic_trace

__all__ = ["Match", "replace_pattern"]


class Match(NamedTuple):
    """One replaced occurrence: the anchor (the pattern's returned node; its
    graph node is ``nodes_map[anchor]``) and {pattern node: graph node}."""
    anchor: Node
    nodes_map: Dict[Node, Node]


def _as_graph_module(f):
    return f if isinstance(f, GraphModule) else symbolic_trace(f)


def _match(pn, gn, nodes_map, taken):
    """Does graph node/value ``gn`` match pattern node/value ``pn``?  Extends
    ``nodes_map``; on failure the caller discards it."""
    if isinstance(pn, Node) and pn.op == "placeholder":
        if pn not in nodes_map:
            if isinstance(gn, Node) and _bound(nodes_map, gn):
                return False  # two pattern values never stand for one graph node
            nodes_map[pn] = gn
            return True
        bound = nodes_map[pn]
        if isinstance(bound, Node) or isinstance(gn, Node):
            return bound is gn
        return type(bound) is type(gn) and bound == gn
    if isinstance(pn, Node):
        if not isinstance(gn, Node) or gn in taken:
            return False
        if pn in nodes_map:
            return nodes_map[pn] is gn
        if _bound(nodes_map, gn):
            return False
        if pn.op != gn.op or len(pn.args) != len(gn.args) or \
                set(pn.kwargs) != set(gn.kwargs):
            return False
        if pn.op == "get_attr" or pn.op == "call_module":
            pass  # attribute and module paths differ between pattern and graph
        elif pn.target != gn.target:
            return False
        nodes_map[pn] = gn
        if not all(_match(a, b, nodes_map, taken) for a, b in zip(pn.args, gn.args)):
            return False
        return all(_match(pn.kwargs[k], gn.kwargs[k], nodes_map, taken) for k in pn.kwargs)
    if isinstance(pn, (tuple, list)):
        return isinstance(gn, (tuple, list)) and len(pn) == len(gn) and \
            all(_match(a, b, nodes_map, taken) for a, b in zip(pn, gn))
    if isinstance(gn, Node):
        return False
    return type(pn) is type(gn) and pn == gn


def _bound(nodes_map, gn):
    return any(v is gn for v in nodes_map.values())


def _outputs(graph):
    """The returned nodes of a pattern or replacement: [node] or a tuple's."""
    out = next(n for n in graph.nodes if n.op == "output").args[0]
    items = list(out) if isinstance(out, (tuple, list)) else [out]
    if not all(isinstance(n, Node) for n in items):
        raise NotImplementedError("torchlike.fx.replace_pattern: patterns and replacements "
                                  "must return a node or a tuple of nodes")
    return items


def replace_pattern(gm, pattern, replacement):
    """Replace each non-overlapping occurrence of ``pattern`` (a function or
    GraphModule returning a value or a tuple of them) in ``gm``'s graph by
    ``replacement`` (taking the same arguments, returning as many values),
    recompile ``gm``, and return the list of Matches."""
    pattern_gm = _as_graph_module(pattern)
    replacement_gm = _as_graph_module(replacement)
    pattern_graph, graph = pattern_gm.graph, gm.graph
    anchors = _outputs(pattern_graph)
    r_outputs = _outputs(replacement_gm.graph)
    if len(anchors) != len(r_outputs):
        raise ValueError(f"replace_pattern: the pattern returns {len(anchors)} values but "
                         f"the replacement returns {len(r_outputs)}")
    p_placeholders = [n for n in pattern_graph.nodes if n.op == "placeholder"]
    r_placeholders = [n for n in replacement_gm.graph.nodes if n.op == "placeholder"]
    if len(p_placeholders) != len(r_placeholders):
        raise ValueError(f"replace_pattern: the pattern takes {len(p_placeholders)} "
                         f"arguments but the replacement takes {len(r_placeholders)}")
    pattern_inner = [n for n in pattern_graph.nodes if n.op not in ("placeholder", "output")]
    position = {n: i for i, n in enumerate(graph.nodes)}
    candidates = list(graph.nodes)

    def match_rest(i, nodes_map, taken):
        """nodes_map extended so anchors[i:] match too (in any graph nodes), or None."""
        if i == len(anchors):
            return nodes_map
        if anchors[i] in nodes_map:
            return match_rest(i + 1, nodes_map, taken)
        for gn in candidates:
            trial = dict(nodes_map)
            if gn not in taken and _match(anchors[i], gn, trial, taken):
                done = match_rest(i + 1, trial, taken)
                if done is not None:
                    return done
        return None

    matches = []
    taken = set()
    for gn in candidates:
        nodes_map = {}
        if gn in taken or not _match(anchors[0], gn, nodes_map, taken):
            continue
        nodes_map = match_rest(1, nodes_map, taken)
        if nodes_map is None:
            continue
        inner = {nodes_map[p] for p in pattern_inner}
        returned = {nodes_map[a] for a in anchors}
        if len(inner) != len(pattern_inner):
            continue
        if any(u not in inner for n in inner if n not in returned for u in n.users):
            continue  # an intermediate value is read outside the match
        # the replacement goes before the first returned node: its inputs must be there
        first = min(returned, key=position.__getitem__)
        bound = [nodes_map[p] for p in p_placeholders]
        if any(isinstance(b, Node) and position[b] > position[first] for b in bound):
            continue
        taken |= inner
        matches.append(Match(anchor=anchors[0], nodes_map=nodes_map))

    replaced = {}  # a graph node an earlier replacement removed -> what stands for it now
    for match in matches:
        returned = [match.nodes_map[a] for a in anchors]
        first = min(returned, key=position.__getitem__)
        val_map = {r: replaced.get(match.nodes_map[p], match.nodes_map[p])
                   for r, p in zip(r_placeholders, p_placeholders)}
        with graph.inserting_before(first):
            new_out = graph.graph_copy(replacement_gm.graph, val_map)
        new_out = list(new_out) if isinstance(new_out, (tuple, list)) else [new_out]
        for old, new in zip(returned, new_out):
            old.replace_all_uses_with(new)
            replaced[old] = new
        # copy the attributes the replacement reads
        for r_node in replacement_gm.graph.nodes:
            if r_node.op in ("get_attr", "call_module"):
                _copy_target(replacement_gm, gm, r_node.target)
        for p in reversed(pattern_inner):
            g = match.nodes_map[p]
            if len(g.users) == 0:
                graph.erase_node(g)
    gm.recompile()
    return matches


def _copy_target(src, dst, target):
    from .graph_module import _copy_attr
    if not _has_path(dst, target):
        _copy_attr(src, dst, target)


def _has_path(mod, target):
    for atom in target.split("."):
        if not hasattr(mod, atom):
            return False
        mod = getattr(mod, atom)
    return True

