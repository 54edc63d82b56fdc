"""torchlike.nested (torchlike/nested/): PyTorch's recorded answers
(tests/golden/nested.json, scripts/golden_nested.py) for construction,
reprs, sizes, padding, narrow, the per-layout ops and their refusals;
values per component against NumPy; gradients to the components (and to
the tensors they came from) by finite differences."""
import re

import numpy as np
import pytest

import torchlike as T
from oracle import described_close, golden_calls

N = T.nested
F = T.nn.functional
CALLS, _golden = golden_calls("nested")

# messages that are ours on purpose (the type still matches)
OWN_WORDING = {
    "a.to_padded_tensor(0)",      # PyTorch lists its dispatch keys
}


def _norm(message):
    message = message.replace("torchlike.", "torch.")
    return re.sub(r"\bj\d+\b", "j?", message)


@pytest.mark.parametrize("call,expected", CALLS, ids=[c for c, _ in CALLS])
def test_matches_pytorch(call, expected):
    env = _golden.inputs(T)
    if expected[0] == "raises":
        with pytest.raises(Exception) as e:
            eval(call, env)
        assert type(e.value).__name__ == expected[1], (call, repr(e.value))
        got, want = _norm(str(e.value).splitlines()[0]), _norm(expected[2])
        if want.startswith("aten.") and call not in OWN_WORDING:
            # a jagged tensor's refusal: PyTorch names the overload (var.correction)
            assert got.split(".")[:2] == want.split(".")[:2], (call, got)
        elif want.startswith("Could not run 'aten::") and call not in OWN_WORDING:
            # PyTorch names the overload (pow.Tensor_Scalar) and lists its backends after
            # the first sentences, which ours repeats
            want = re.sub(r"aten::(\w+)\.\w+'", r"aten::\1'", want)
            got = re.sub(r"aten::(\w+)\.\w+'", r"aten::\1'", got)
            assert want.startswith(got), (call, got)
        elif call not in OWN_WORDING:
            assert got == want, call
        return
    got = _golden.describe(eval(call, env))
    if got[0] == "device":   # recorded on the CPU; the tests may run on a device
        expected = ["device", str(T.ones(0).device)]
    if got[0] == "nested":   # a component's repr names a device other than the CPU
        got[-1] = re.sub(r",\s*device='[^']*'", "", got[-1])
    assert described_close(got, expected, 2e-4), (call, got, expected)


# ---- values per component against NumPy ------------------------------------------------

def _ragged(seed, shapes, dtype=np.float64):
    rng = np.random.default_rng(seed)
    return [rng.uniform(-2, 2, size=s).astype(dtype) for s in shapes]


SHAPES = [[(2, 3), (4, 3), (1, 3)], [(3, 2, 2), (1, 4, 2)], [(5,), (2,), (0,)]]


def _pad(arrays, value):
    dims = [max(a.shape[d] for a in arrays) for d in range(arrays[0].ndim)]
    out = np.full([len(arrays)] + dims, value, dtype=arrays[0].dtype)
    for i, a in enumerate(arrays):
        out[(i,) + tuple(slice(0, s) for s in a.shape)] = a
    return out


@pytest.mark.parametrize("shapes", SHAPES)
def test_to_padded_tensor_and_unbind(shapes):
    arrays = _ragged(1, shapes)
    nt = N.nested_tensor([T.tensor(a) for a in arrays])
    assert nt.is_nested and not T.tensor(arrays[0]).is_nested
    assert nt.dim() == arrays[0].ndim + 1 and nt.size(0) == len(arrays)
    np.testing.assert_array_equal(nt.to_padded_tensor(-3.0).cpu().numpy(), _pad(arrays, -3.0))
    np.testing.assert_array_equal(N.to_padded_tensor(nt, 0.0).cpu().numpy(), _pad(arrays, 0.0))
    for got, want in zip(nt.unbind(), arrays):
        np.testing.assert_array_equal(got.cpu().numpy(), want)


@pytest.mark.parametrize("layout", ["strided", "jagged"])
def test_elementwise_ops_per_component(layout):
    arrays = _ragged(2, [(2, 3), (4, 3), (1, 3)])
    others = _ragged(3, [(2, 3), (4, 3), (1, 3)])
    lay = getattr(T, layout)
    x = N.nested_tensor([T.tensor(a) for a in arrays], layout=lay)
    y = N.nested_tensor([T.tensor(a) for a in others], layout=lay) if layout == "strided" \
        else N.nested_tensor_from_jagged(T.tensor(np.concatenate(others)), x.offsets())
    if layout == "jagged":   # combining jagged tensors needs a shared ragged size
        y = N.nested_tensor_from_jagged(y.values(), x.offsets())
        y._nt_j = x._nt_j
    cases = [(x + y, np.add), (x * y, np.multiply), (x - y, np.subtract),
             (x / (y.abs() + 1), lambda p, q: p / (np.abs(q) + 1)),
             (x * 2.5 + 1, lambda p, q: p * 2.5 + 1), (x.sin(), lambda p, q: np.sin(p)),
             (F.relu(x), lambda p, q: np.maximum(p, 0)), (x.tanh(), lambda p, q: np.tanh(p)),
             (x.softmax(-1), lambda p, q: np.exp(p) / np.exp(p).sum(-1, keepdims=True))]
    for got, fn in cases:
        assert got.is_nested and got.layout is lay
        for g, p, q in zip(got.unbind(), arrays, others):
            np.testing.assert_allclose(g.cpu().numpy(), fn(p, q), rtol=1e-12, atol=1e-14)


def test_products_linear_transpose_per_component():
    arrays = _ragged(4, [(2, 3), (4, 3)])
    mats = _ragged(5, [(3, 5), (3, 2)])
    w, bias = _ragged(6, [(4, 3), (4,)])
    x = N.nested_tensor([T.tensor(a) for a in arrays])
    m = N.nested_tensor([T.tensor(a) for a in mats])
    for got in (T.bmm(x, m), T.matmul(x, m), x @ m):
        for g, p, q in zip(got.unbind(), arrays, mats):
            np.testing.assert_allclose(g.cpu().numpy(), p @ q, rtol=1e-12)
    got = F.linear(x, T.tensor(w), T.tensor(bias))
    for g, p in zip(got.unbind(), arrays):
        np.testing.assert_allclose(g.cpu().numpy(), p @ w.T + bias, rtol=1e-12)
    for g, p in zip(x.transpose(1, 2).unbind(), arrays):
        np.testing.assert_array_equal(g.cpu().numpy(), p.T)
    dense = _ragged(7, [(2, 3, 2)])[0]
    for g, p, q in zip(T.bmm(x, T.tensor(dense)).unbind(), arrays, dense):
        np.testing.assert_allclose(g.cpu().numpy(), p @ q, rtol=1e-12)


def test_jagged_parts():
    values = T.tensor(_ragged(8, [(7, 2)])[0])
    nj = N.nested_tensor_from_jagged(values, T.tensor([0, 3, 3, 7]))
    assert nj.layout is T.jagged and nj.size(0) == 3 and nj.size(2) == 2
    assert nj.shape[1] is nj.size(1) and repr(nj.size(1)).startswith("j")
    assert nj.values() is values
    lens = [c.shape[0] for c in nj.unbind()]
    assert lens == [3, 0, 4]
    base = T.tensor(_ragged(9, [(3, 5)])[0])
    holes = N.narrow(base, 1, T.tensor([1, 0, 2]), T.tensor([2, 5, 3]), layout=T.jagged)
    for g, row, s, n in zip(holes.unbind(), base.cpu().numpy(), [1, 0, 2], [2, 5, 3]):
        np.testing.assert_array_equal(g.cpu().numpy(), row[s:s + n])


@pytest.mark.parametrize("causal", [False, True])
def test_attention_per_component_matches_numpy(causal):
    lens = [3, 5]
    arrays = [_ragged(19 + i, [(n, 2, 4)])[0] for i, n in enumerate(lens)]
    q = N.nested_tensor([T.tensor(a) for a in arrays], layout=T.jagged).transpose(1, 2)
    out = F.scaled_dot_product_attention(q, q * 0.5, q, is_causal=causal)
    assert out.is_nested and out.transpose(1, 2).size(2) == 2
    for got, a in zip(out.unbind(), arrays):
        x = a.transpose(1, 0, 2)                      # (H, L, D)
        s = x @ (0.5 * x).transpose(0, 2, 1) / np.sqrt(4)
        if causal:
            s = np.where(np.tril(np.ones(s.shape[-2:], dtype=bool)), s, -np.inf)
        w = np.exp(s - s.max(-1, keepdims=True))
        np.testing.assert_allclose(got.cpu().numpy(), (w / w.sum(-1, keepdims=True)) @ x,
                                   rtol=1e-10)


# ---- gradients ---------------------------------------------------------------------------

def _numeric_grad(f, arrays, eps=1e-6):
    grads = []
    for k, a in enumerate(arrays):
        g = np.zeros_like(a)
        for i in np.ndindex(a.shape):
            hi = [x.copy() for x in arrays]
            lo = [x.copy() for x in arrays]
            hi[k][i] += eps
            lo[k][i] -= eps
            g[i] = (f(hi) - f(lo)) / (2 * eps)
        grads.append(g)
    return grads


GRAD_CASES = {
    "elementwise": lambda x, m: (x * x + x.sin() * 2 - x / 3).tanh(),
    "softmax": lambda x, m: x.softmax(-1) * x,
    "bmm": lambda x, m: T.bmm(x, m),
    "linear": lambda x, m: F.linear(F.gelu(x), T.ones(2, 3, dtype=T.float64) * 0.5,
                                    T.tensor([0.1, -0.2], dtype=T.float64)),
    "transpose": lambda x, m: x.transpose(1, 2) * 3,
    "reductions": lambda x, m: x.sum(-1, keepdim=True).sin(),
    "attention": lambda x, m: F.scaled_dot_product_attention(x, x * 0.5, x.cos()),
    "layer_norm": lambda x, m: F.layer_norm(x, (3,), T.tensor([1.0, 0.5, -2.0], dtype=T.float64),
                                            T.tensor([0.1, 0.0, 0.3], dtype=T.float64)),
}


@pytest.mark.parametrize("layout", ["strided", "jagged"])
@pytest.mark.parametrize("name", list(GRAD_CASES))
def test_gradients_to_components(name, layout):
    if layout == "jagged" and name == "bmm":
        pytest.skip("bmm takes strided nested tensors (as PyTorch's)")
    arrays = _ragged(10, [(2, 3), (3, 3)])
    mats = [T.tensor(a) for a in _ragged(11, [(3, 2), (3, 4)])]
    m = N.nested_tensor(mats)
    lay = getattr(T, layout)
    fn = GRAD_CASES[name]
    weights = None

    def scalar(arrs, grad=False):
        nonlocal weights
        x = N.nested_tensor([T.tensor(a) for a in arrs], layout=lay, requires_grad=grad)
        out = fn(x, m)
        if not out.is_contiguous():   # a transposed one pads from a contiguous copy
            out = N.as_nested_tensor([c.contiguous() for c in out.unbind()])
        padded = out.to_padded_tensor(0.0)
        if weights is None:
            weights = T.tensor(np.random.default_rng(12).standard_normal(tuple(padded.shape)))
        return x, (padded * weights).sum()

    x, s = scalar(arrays, grad=True)
    s.backward()
    grad = x.grad
    assert grad.is_nested and grad.layout is lay
    num = _numeric_grad(lambda arrs: float(scalar(arrs)[1].cpu().numpy()), arrays)
    for g, n in zip(grad.unbind(), num):
        np.testing.assert_allclose(g.cpu().numpy(), n, rtol=1e-6, atol=1e-8)


def test_jagged_operands_broadcast_over_regular_dims():
    arrays = _ragged(18, [(2, 3), (4, 3)])
    nj = N.nested_tensor([T.tensor(a) for a in arrays], layout=T.jagged)
    out = nj * nj.sum(-1, keepdim=True)
    for got, a in zip(out.unbind(), arrays):
        np.testing.assert_allclose(got.cpu().numpy(), a * a.sum(-1, keepdims=True), rtol=1e-12)


def test_jagged_reductions_match_numpy():
    arrays = _ragged(17, [(2, 3), (5, 3), (1, 3)])
    nj = N.nested_tensor([T.tensor(a) for a in arrays], layout=T.jagged)
    np.testing.assert_allclose(nj.sum(1).cpu().numpy(), [a.sum(0) for a in arrays], rtol=1e-12)
    np.testing.assert_allclose(nj.mean(1).cpu().numpy(), [a.mean(0) for a in arrays],
                               rtol=1e-12)
    np.testing.assert_allclose(nj.amax(1, keepdim=True).cpu().numpy(),
                               [a.max(0, keepdims=True) for a in arrays])
    for got, a in zip(nj.mean(-1).unbind(), arrays):
        np.testing.assert_allclose(got.cpu().numpy(), a.mean(-1), rtol=1e-12)
    np.testing.assert_allclose(float(nj.sum()), sum(a.sum() for a in arrays), rtol=1e-12)


def test_as_nested_tensor_gradients_reach_the_inputs():
    a = T.tensor(_ragged(13, [(2, 3)])[0], requires_grad=True)
    b = T.tensor(_ragged(14, [(4, 3)])[0], requires_grad=True)
    nt = N.as_nested_tensor([a, b])
    assert nt.requires_grad and not nt.is_leaf
    (nt.sin() * 2).to_padded_tensor(0.0).sum().backward()
    for leaf in (a, b):
        np.testing.assert_allclose(leaf.grad.cpu().numpy(),
                                   2 * np.cos(leaf.detach().cpu().numpy()), rtol=1e-12)
    values = T.tensor(_ragged(15, [(6, 2)])[0], requires_grad=True)
    nj = N.nested_tensor_from_jagged(values, T.tensor([0, 2, 6]))
    (nj * nj).to_padded_tensor(0.0).sum().backward()
    np.testing.assert_allclose(values.grad.cpu().numpy(), 2 * values.detach().cpu().numpy(),
                               rtol=1e-12)


@pytest.mark.parametrize("layout", ["strided", "jagged"])
def test_copies_and_pickles(layout):
    import copy
    import pickle
    arrays = _ragged(16, [(2, 3), (1, 3)])
    nt = N.nested_tensor([T.tensor(a) for a in arrays], layout=getattr(T, layout))
    for other in (copy.deepcopy(nt), pickle.loads(pickle.dumps(nt))):
        assert other.is_nested and other.layout is nt.layout
        for g, a in zip(other.unbind(), arrays):
            np.testing.assert_array_equal(g.cpu().numpy(), a)
    with pytest.raises(RuntimeError, match="doesn't support sizes"):
        np.asarray(nt)
