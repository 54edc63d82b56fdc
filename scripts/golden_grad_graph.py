"""Record the shape of the autograd graph PyTorch builds for common calls:
each result's node name and its next_functions, two levels down, as
[name or None, output_nr, children] trees.  Graph-walking tools (graph
drawings, hooks on grad_fn nodes, next_functions[i][0] navigation) see this
shape, so tests/test_grad_graph.py compares torchlike's against it.

Run with an interpreter that has PyTorch:
    python scripts/golden_grad_graph.py
writes tests/golden/grad_graph.json: [call, tree] pairs, the call a Python
expression over T (the library) and the inputs below; and
tests/golden/grad_graph_hooks.json: for the HOOKED calls, the grad_inputs a
hook on the result's node sees in a backward (a shape, or None per entry)."""
from golden_calls import det, record

DEPTH = 2


def inputs(T):
    a = (det(T, 3, 4) + 1.5).requires_grad_()
    b = (det(T, 3, 4, s=0.7) + 1.5).requires_grad_()
    m = (det(T, 4, 4, s=0.4) + T.eye(4) * 4).requires_grad_()
    v = det(T, 4, s=0.9).requires_grad_()
    s = T.tensor(1.5, requires_grad=True)  # 0-d with grad
    img = det(T, 1, 2, 4, 4).requires_grad_()
    w = det(T, 3, 2, 3, 3).requires_grad_()
    return {"T": T, "F": T.nn.functional, "a": a, "b": b, "m": m, "v": v, "s": s,
            "c": T.tensor(2.0),  # 0-d without grad
            "img": img, "w": w, "i": T.tensor([0, 2]), "k": T.tensor([0, 1, 2]),
            "n": a * 1}  # a non-leaf to write into


def tree(fn, depth):
    """[name, children] for node fn; children are [name or None, output_nr,
    subtree-children] for each next_functions entry, depth levels deep."""
    if depth == 0:
        return []
    return [[None if f is None else f.name(), nr, [] if f is None else tree(f, depth - 1)]
            for f, nr in fn.next_functions]


def describe(r):
    if isinstance(r, (tuple, list)):
        return ["many", [describe(x) for x in r]]
    fn = r.grad_fn
    if fn is None:
        return None
    return [fn.name(), tree(fn, DEPTH)]


CALLS = """a + b|a + 1|1 + a|a - b|a - 1|1 - a|a * b|a * 2|2 * a|a / b|a / 2|2 / a|a ** 2|2 ** a
a ** b|a * a|a + a|a * T.tensor(2)|a * 2.5|a + True|a * s|a + s|a * c|a + c|s * 2
a.add(1, alpha=2)|T.add(a, 1, alpha=2)|T.add(a, b, alpha=2)|a.sub(b, alpha=3)|T.mul(a, 2)
T.div(a, 2)|a.div(2, rounding_mode='floor')|T.rsub(a, 1)|-a|a.exp()|a.abs()|a.pow(2.5)
a.neg().exp()|(a * b).sum()|(a + 1) * 2|a.sum()|a.sum(0)|a.sum(1, keepdim=True)|a.mean()
a.mean(0, keepdim=True)|a.max()|a.max(0)|a.amax(1)|a.prod()|a.std(0)|a.var()|a.norm()
a.logsumexp(1)|a.cumsum(0)|T.where(a > 1.5, a, 0.)|T.where(a > 1.5, 0., a)|T.where(a > 1.5, a, b)
T.where(a > 1.5, a, c)|a.where(a > 1.5, b)|T.where(a > 1.5, 1., a)|a.masked_fill(a > 1.5, c)
a.clamp(min=b)|a.index_put((i,), b[:2])|T.sub(a, 1, alpha=2)|a.div(2, rounding_mode='trunc')
a.masked_fill(a > 1.5, 0.)|a.masked_fill(a > 1.5, s)|a.clamp(0.5, 2)|a.clamp(min=1.0)
a.clamp(b, b + 1)|a.clamp(max=b)|a.clip(0, 1)|T.maximum(a, b)|a.lerp(b, 0.3)|a[0]|a[:, 1]|a[1:]
a[i]|a[a > 1.5]|a[None]|a[..., ::2]|a.index_select(0, i)|a.gather(1, k[:, None] % 4)|a.view(12)
a.view(2, 6).view(12)|a.t()|a.transpose(0, 1)|a.expand(2, 3, 4)|a.narrow(1, 1, 2)|a.unbind()
a.unbind(1)|a.split(2, 1)|a.chunk(2)|a.split([1, 2])|a.reshape(4, 3)|a.flatten()|a.permute(1, 0)
a.unsqueeze(0)|a[None].squeeze(0)|a.contiguous()|a.clone()|a.flip(0)|T.cat([a, b])
T.cat([a, b], 1)|T.cat([a, a])|T.stack([a, b])|T.hstack([a, b])|T.cat([a, b.detach()])|a @ m|m @ v
v @ v|T.mm(a, m)|T.matmul(a, m)|T.bmm(a[None], m[None])|T.addmm(v, a, m)|T.mv(m, v)|T.dot(v, v)
a[None] @ m|T.einsum('ij,jk->ik', a, m)|F.linear(a, m)|F.linear(a, m, v)|F.linear(a[None], m, v)
F.conv2d(img, w)|F.conv2d(img, w, v[:3])|F.layer_norm(a, (4,))|F.layer_norm(a, (4,), v, v)
F.softmax(a, 1)|F.log_softmax(a, 1)|F.cross_entropy(a, k)|F.nll_loss(a, k)|F.mse_loss(a, b)
F.relu(a)|F.gelu(a)|F.dropout(a, 0.5, training=False)|F.dropout(a, 0.0)|F.embedding(i, m)
F.batch_norm(img, None, None, training=True)|a.to(T.float64)|a.double()|a.float()|a.half()
a.type(T.float64)|a.to(T.float64) * 2|n.mul_(2)|n.add_(b)|n.add_(1)|n.exp_()|n.clamp_(0, 1)
n.zero_()|n.copy_(b)|n.masked_fill_(n > 1.5, 0.)|(n[0].mul_(2), n)[1]|(n[:, 1].zero_(), n)[1]
(n.t().add_(1), n)[1]|n.__setitem__(0, 1.0) or n|n.__setitem__((slice(None), 1), b[:, 0]) or n
n.__setitem__(i, b[:2]) or n|n.relu_()|F.relu(n, inplace=True)|F.dropout(a, 0.5)
a.unbind()[2] * b[0]|a.split(2, 1)[1].exp()|a.chunk(2)[1].sum()|a.max(0)[0].exp()
T.cat(a.unbind(1)[1:])|a.to(T.float64).sum()""".replace("\n", "|").split("|")


def hooked(r):
    seen = []
    r.grad_fn.register_hook(
        lambda gin, gout: seen.append([None if g is None else list(g.shape) for g in gin]))
    r.sum().backward()
    return seen


HOOKED = """a * b|a * 2|a + 1|T.where(a > 1.5, a, 0.)|T.where(a > 1.5, a, b)|a.clamp(max=b)
a.masked_fill(a > 1.5, s)|a[i]|a.gather(1, k[:, None] % 4)|F.layer_norm(a, (4,))
F.conv2d(img, w)""".replace("\n", "|").split("|")


if __name__ == "__main__":
    record(CALLS, inputs, describe, "grad_graph")
    record(HOOKED, inputs, hooked, "grad_graph_hooks")
