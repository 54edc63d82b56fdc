"""vmap's batched path (torchlike/func/_batched.py, _batching_rules.py): each
rule against the per-element reference (vmap with the batched path off: f
called once per element, results stacked) and against NumPy, with checks
that the batched path really ran (no per-op loop, no per-element rerun)."""
import contextlib
import json
import os

import numpy as np
import pytest

import torchlike as T
from torchlike import func
from torchlike.func import _batched

F = T.nn.functional


@contextlib.contextmanager
def per_element():
    _batched.enabled = False
    try:
        yield
    finally:
        _batched.enabled = True


def _counts():
    return _batched.stats["batched"], _batched.stats["fallback"], \
        sum(_batched.stats["op_loops"].values())


def run_batched(f, args, loops_ok=False, runs=1, **kw):
    """vmap(f, **kw)(*args), asserting ``runs`` batched runs (nested vmaps
    count one each) without fallbacks."""
    b0, f0, l0 = _counts()
    out = func.vmap(f, **kw)(*args)
    b1, f1, l1 = _counts()
    assert (b1 - b0, f1 - f0) == (runs, 0), "the batched path did not run"
    if not loops_ok:
        assert l1 == l0, f"an op ran per element: {_batched.stats['op_loops']}"
    return out


def reference(f, args, **kw):
    with per_element():
        return func.vmap(f, **kw)(*args)


def assert_close(a, b, tol=1e-6):
    la, lb = func._pytree.tree_flatten(a)[0], func._pytree.tree_flatten(b)[0]
    assert len(la) == len(lb)
    for x, y in zip(la, lb):
        if isinstance(x, T.Tensor):
            assert type(x) is T.Tensor, "a BatchedTensor escaped vmap"
            assert tuple(x.shape) == tuple(y.shape), (x.shape, y.shape)
            assert x.dtype == y.dtype
            np.testing.assert_allclose(x.detach().numpy(), y.detach().numpy(), rtol=tol,
                                       atol=tol)
        else:
            assert x == y


def check(f, args, tol=1e-6, loops_ok=False, runs=1, **kw):
    out = run_batched(f, args, loops_ok=loops_ok, runs=runs, **kw)
    assert_close(out, reference(f, args, **kw), tol)
    return out


rng = np.random.default_rng(0)


def rand(*shape, dtype=np.float64):
    return T.tensor(rng.standard_normal(shape).astype(dtype))


W = rand(5, 4)
V = rand(4)

# (name, f, argument shapes with the batch at dim 0, in_dims)
CASES = [
    ("add_unbatched_rank", lambda a: a + V, [(3, 4)], 0),
    ("sub_rank_align", lambda a, b: a - b, [(3, 4), (3, 2, 4)], 0),
    ("mul_scalar_rsub", lambda a: 2.0 - a * 3, [(3, 4)], 0),
    ("pow_div", lambda a, b: (a.abs() + 1) ** b / (b.abs() + 1), [(3, 4), (3, 4)], 0),
    ("unary_chain", lambda a: a.exp().log1p().sin().tanh().sigmoid().sqrt(), [(3, 2, 4)], 0),
    ("compare_where", lambda a, b: T.where(a > b, a, b * 2), [(3, 4), (3, 4)], 0),
    ("clamp", lambda a: a.clamp(-0.5, 0.5) + T.clamp(a, min=0.1), [(3, 4)], 0),
    ("in_dims_1_none", lambda a, b: a * b, [(4, 3), (4,)], (1, None)),
    ("in_dims_neg", lambda a, b: a + b, [(4, 3), (3, 4)], (-1, 0)),
    ("sum_dims", lambda a: (a.sum(), a.sum(0), a.sum(-1, keepdim=True), a.sum((0, 1))),
     [(3, 2, 4)], 0),
    ("mean_var_std", lambda a: (a.mean(), a.var(1), a.std(), a.var(0, correction=0)),
     [(3, 2, 4)], 0),
    ("max_min", lambda a: (a.max(), a.max(1).values, a.min(0)[1], a.amax(-1), a.amin()),
     [(3, 2, 4)], 0),
    ("argmax_prod", lambda a: (a.argmax(), a.argmax(1), a.prod(), a.prod(0)), [(3, 2, 4)], 0),
    ("logsumexp_norm", lambda a: (a.logsumexp(1), a.norm(), a.norm(dim=0),
                                  T.linalg.vector_norm(a) * 0 + a.norm(p=1)), [(3, 2, 4)], 0),
    ("softmax", lambda a: (a.softmax(0), F.log_softmax(a, -1), T.softmax(a, dim=1)),
     [(3, 2, 4)], 0),
    ("scalar_reduce", lambda a: (a.sum(), a.sum(0), a.softmax(0), a.mean()), [(3,)], 0),
    ("matmul_mv", lambda a: (W @ a, T.mv(W, a), a @ W.T), [(3, 4)], 0),
    ("matmul_batched_both", lambda a, b: (a @ b, T.mm(a, b), a.matmul(b[:, 0])),
     [(3, 2, 4), (3, 4, 5)], 0),
    ("dot_bmm", lambda a, b: (T.dot(a[0], b[:, 0]), T.bmm(a[None], b[None])),
     [(3, 2, 4), (3, 4, 5)], 0),
    ("matmul_unbatched_right", lambda a, b: (a @ b, b.T @ a), [(3, 4), (4, 2)], (0, None)),
    ("linear_addmm", lambda a, w: (F.linear(a, w), F.linear(a, W, V[:1].expand(5)),
                                   T.addmm(W[:2, :1], a[:2], w.T, beta=0.5, alpha=2)),
     [(3, 2, 4), (3, 5, 4)], 0),
    ("einsum", lambda a, b: (T.einsum("ij,jk->ik", a, b), T.einsum("ij,jk", a, b),
                             T.einsum("...j,jk->...k", a, W.T), T.einsum("ii", a[:, :2])),
     [(3, 2, 4), (3, 4, 5)], 0),
    ("reshape_view", lambda a: (a.reshape(8), a.view(4, 2), a.reshape(-1, 4), a.flatten(),
                                a.view_as(W[:2])), [(3, 2, 4)], 0),
    ("permute_transpose", lambda a: (a.permute(1, 0), a.transpose(0, 1), a.T, a.mT, a.t(),
                                     a.movedim(0, 1)), [(3, 2, 4)], 0),
    ("unsqueeze_squeeze", lambda a: (a.unsqueeze(0), a.unsqueeze(-1).squeeze(-1), a[None].squeeze(),
                                     a[:, :1].squeeze(1)), [(3, 2, 4)], 0),
    ("expand_repeat", lambda a: (a[:1].expand(3, 4), a.expand(2, 2, 4), a.repeat(2, 1),
                                 a[0].expand_as(W[:2, :4])), [(3, 2, 4)], 0),
    ("index_narrow_select", lambda a: (a[0], a[:, 1:3], a[..., 0], a[None, 1], a.select(1, 2),
                                       a.narrow(1, 1, 2), a[:, T.tensor([0, 2])]),
     [(3, 2, 4)], 0),
    ("cat_stack", lambda a, b: (T.cat([a, b]), T.stack([a, b], 1), T.cat([a, W[:1, :4]]),
                                T.stack([V, a[0]])), [(3, 2, 4), (3, 2, 4)], 0),
    ("split_unbind", lambda a: (a.split(1, 1), a.unbind(0), a.chunk(2, 1)), [(3, 2, 4)], 0),
    ("flip_roll_cumsum", lambda a: (a.flip(0), a.roll(1, 1), a.roll(1), a.cumsum(1),
                                    a.sort(0).values, a.topk(2).indices),
     [(3, 2, 4)], 0),
    ("like_creation", lambda a: (T.zeros_like(a) + 1, T.ones_like(a), T.full_like(a, 2.0),
                                 a.new_zeros(2) + T.zeros(2)), [(3, 2, 4)], 0),
    ("shape_facts", lambda a: a * (a.shape[0] + a.size(-1) + a.dim() + a.numel() + len(a)),
     [(3, 2, 4)], 0),
    ("activations", lambda a: (F.relu(a), F.gelu(a), F.silu(a), F.elu(a), F.leaky_relu(a, 0.1),
                               F.softplus(a), T.tanh(a), F.sigmoid(a)), [(3, 2, 4)], 0),
    ("layer_norm", lambda a, w: (F.layer_norm(a, (4,)), F.layer_norm(a, (4,), w, w * 2)),
     [(3, 2, 4), (3, 4)], 0),
    ("losses", lambda a, b: (F.mse_loss(a, b), F.l1_loss(a, b, reduction="sum"),
                             F.mse_loss(a, b, reduction="none"), F.smooth_l1_loss(a, b)),
     [(3, 2, 4), (3, 2, 4)], 0),
    ("max_other_gather", lambda a, b: (a.max(b), T.minimum(a, b), a.gather(1, (b > 0).long()),
                                       T.take_along_dim(a, (b > 0).long(), 1)),
     [(3, 2, 4), (3, 2, 4)], 0),
    ("class_losses", lambda a, b: (F.cross_entropy(a, (b[:, 0] > 0).long()),
                                   F.cross_entropy(a, (b[:, 0] > 0).long(), weight=V.abs(),
                                                   ignore_index=1, label_smoothing=0.1),
                                   F.cross_entropy(a, b.softmax(-1)),
                                   F.cross_entropy(a[0], (b[0, 0] > 0).long(), reduction="none"),
                                   F.nll_loss(a.log_softmax(-1), (b[:, 1] > 0).long(),
                                              reduction="sum"),
                                   F.binary_cross_entropy_with_logits(a, b.sigmoid())),
     [(3, 2, 4), (3, 2, 4)], 0),
    ("conv_sdpa", lambda a, q: (F.conv2d(a, W[:1, :4].reshape(1, 1, 2, 2), padding=1),
                                F.conv1d(a[:, 0], W[:2, :2].reshape(2, 1, 2)),
                                F.scaled_dot_product_attention(q, q, q),
                                F.scaled_dot_product_attention(q, q * 2, q, is_causal=True)),
     [(3, 1, 3, 4), (3, 2, 5, 4)], 0),
    ("transforms_inside", lambda a: (func.jvp(lambda v: v.sin() * v.sum(), (a,), (V,))[1],
                                     func.vjp(lambda v: v.exp(), a)[1](V)[0],
                                     func.hessian(lambda v: (v.exp() * v.roll(1)).sum())(a),
                                     func.jacfwd(lambda v: v.tanh())(a)), [(3, 4)], 0),
    ("int_dtype", lambda a: (a.long() * 2 + 1, (a > 0).sum(), a.to(T.float32)), [(3, 4)], 0),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name,f,shapes,in_dims", CASES, ids=[c[0] for c in CASES])
def test_rule_matches_per_element(name, f, shapes, in_dims, dtype):
    args = [rand(*s, dtype=dtype) for s in shapes]
    if dtype == np.float32:
        global W, V
        saved = W, V
        W, V = W.float(), V.float()
    try:
        check(f, args, tol=1e-5 if dtype == np.float32 else 1e-10, in_dims=in_dims)
    finally:
        if dtype == np.float32:
            W, V = saved


def test_non_contiguous_and_empty_batch():
    base = rand(4, 6, 3)
    x = base.transpose(0, 1)[:, ::2]  # (6, 2, 3), strided
    check(lambda a: (a @ W[:3, :3] if False else a.sum(0) * a.softmax(-1).mean(), a.T.reshape(-1)),
          [x])
    empty = rand(0, 4)
    out = run_batched(lambda a: (W @ a).tanh(), [empty])
    assert tuple(out.shape) == (0, 5)


def test_numpy_reference_mlp():
    """The matvec chain of the benchmark against NumPy."""
    w = rand(8, 8)
    x = rand(16, 8)
    out = run_batched(lambda v: (w @ (w @ v).tanh()).softmax(0), [x])
    wn, xn = w.numpy(), x.numpy()
    h = np.tanh(xn @ wn.T) @ wn.T
    e = np.exp(h - h.max(1, keepdims=True))
    np.testing.assert_allclose(out.numpy(), e / e.sum(1, keepdims=True), rtol=1e-12)


def test_out_dims_and_pytrees():
    x, y = rand(3, 4), rand(4, 3)

    def f(d):
        return d["a"] + d["b"], (d["a"].sum(), V)
    out = check(f, [{"a": x, "b": y}], in_dims=({"a": 0, "b": 1},), out_dims=(1, (0, None)))
    assert tuple(out[0].shape) == (4, 3)
    assert out[1][1] is V
    check(lambda a: (a, a.sum()), [x], out_dims=(-1, 0))
    # an output not batched is expanded (as PyTorch's)
    out = run_batched(lambda a: V * 2, [x])
    np.testing.assert_array_equal(out.numpy(), np.broadcast_to(V.numpy() * 2, (3, 4)))
    with pytest.raises(ValueError, match="can not return a BatchedTensor when out_dim is None"):
        func.vmap(lambda a: a * 2, out_dims=None)(x)


def test_nested_vmap():
    x = rand(2, 3, 4)
    y = rand(3, 4)
    check(lambda a, b: func.vmap(lambda u, v: (u * v).sum() + u @ W.T[:, 0])(a, b), [x, y],
          in_dims=(0, None), runs=2)
    check(lambda a: func.vmap(lambda u: u.softmax(0), in_dims=1, out_dims=1)(a), [x], runs=2)
    outer = run_batched(lambda a: func.vmap(lambda u: (W @ u).sum(0), in_dims=0)(a), [x],
                        runs=2)
    np.testing.assert_allclose(outer.numpy(), (x.numpy() @ W.numpy().T).sum(-1))


def test_chunk_size():
    x = rand(7, 4)
    out = func.vmap(lambda a: (W @ a).tanh(), chunk_size=3)(x)
    np.testing.assert_allclose(out.numpy(), np.tanh(x.numpy() @ W.numpy().T))


def _mlp_loss():
    model = T.nn.Sequential(T.nn.Linear(4, 6), T.nn.Tanh(), T.nn.Linear(6, 3)).double()
    params = {k: v.detach() for k, v in model.named_parameters()}

    def loss(p, xi, yi):
        out = func.functional_call(model, p, (xi[None],))
        return F.cross_entropy(out, yi[None])
    return params, loss


def test_per_sample_grads_match_loop_of_grad():
    params, loss = _mlp_loss()
    x = rand(5, 4)
    y = T.tensor(rng.integers(0, 3, 5))
    out = run_batched(func.grad(loss), [params, x, y], in_dims=(None, 0, 0))
    for k in params:
        assert not out[k].requires_grad
        expect = T.stack([func.grad(loss)(params, x[i], y[i])[k] for i in range(5)])
        np.testing.assert_allclose(out[k].numpy(), expect.numpy(), rtol=1e-12, atol=1e-14)


def test_grad_of_batched_input_and_jacrev_inside():
    x = rand(4, 3)
    check(func.grad(lambda v: (v.sin() * v).sum()), [x])
    check(func.jacrev(lambda v: (W[:3, :3] @ v).tanh()), [x])
    check(func.grad(lambda w, v: (w @ v).pow(2).sum()), [W[:3, :3], x], in_dims=(None, 0))


def test_grad_of_vmap_and_gradcheck():
    w = rand(3, 3).requires_grad_()
    x = rand(5, 3).requires_grad_()

    def f(w, x):
        return func.vmap(lambda v: (w @ v).tanh().softmax(0), in_dims=0)(x).sum(0).pow(2).sum()
    assert T.autograd.gradcheck(f, (w, x))
    g = func.grad(f, argnums=(0, 1))(w, x)
    with per_element():
        h = func.grad(f, argnums=(0, 1))(w, x)
    assert_close(g, h, 1e-12)


def test_ensemble_with_stack_module_state():
    models = [T.nn.Linear(4, 2).double() for _ in range(3)]
    params, buffers = func.stack_module_state(models)
    base = models[0]
    x = rand(5, 4)
    out = run_batched(lambda p, b, xx: func.functional_call(base, (p, b), (xx,)),
                      [params, buffers, x], in_dims=(0, 0, None))
    expect = T.stack([m(x) for m in models])
    np.testing.assert_allclose(out.detach().numpy(), expect.detach().numpy(), rtol=1e-12)


def test_in_place_on_batched():
    x = rand(3, 4)
    y = x.clone()
    check(lambda a: a.clone().mul_(2).add_(V), [x])
    out = run_batched(lambda a: a.add_(1), [y])
    np.testing.assert_allclose(y.numpy(), x.numpy() + 1)
    assert_close(out, y)

    def setitem(a):
        b = a.clone()
        b[0] = 5.0
        b[1:3] = a[:2] * 2
        return b
    check(setitem, [x])


def test_randomness_modes():
    x = T.zeros(4, 3)
    with pytest.raises(RuntimeError, match="called random operation while in randomness error"):
        func.vmap(lambda a: a + T.randn(3))(x)
    with pytest.raises(RuntimeError, match="called random operation while in randomness error"):
        func.vmap(lambda a: F.dropout(a + 1, 0.5))(x)
    same = run_batched(lambda a: a + T.randn(3), [x], randomness="same")
    assert np.all(same.numpy() == same.numpy()[0])
    diff = run_batched(lambda a: a + T.randn(3), [x], randomness="different")
    assert len({tuple(r) for r in diff.numpy()}) == 4
    same = run_batched(lambda a: F.dropout(a + 1, 0.5), [x], randomness="same")
    assert np.all(same.numpy() == same.numpy()[0]) and set(np.unique(same.numpy())) <= {0, 2}
    diff = run_batched(lambda a: T.rand_like(a), [x], randomness="different")
    assert len({tuple(r) for r in diff.numpy()}) == 4


def test_value_dependent_calls_rerun_per_element():
    x = rand(4, 3)
    b0, f0, _ = _counts()
    out = func.vmap(lambda a: a * 2 if a.sum().item() > 0 else a)(x)
    assert _counts()[1] == f0 + 1
    expect = T.stack([r * 2 if r.sum().item() > 0 else r for r in x])
    np.testing.assert_array_equal(out.numpy(), expect.numpy())
    out = func.vmap(lambda a: T.where(a > 0)[0].sum())(x)  # nonzero: sizes differ
    assert _counts()[1] == f0 + 2
    np.testing.assert_array_equal(out.numpy(), [np.nonzero(r > 0)[0].sum() for r in x.numpy()])


def test_differentiated_autograd_function_reruns_per_element():
    # per-sample gradients through a Function (generate_vmap_rule): its
    # backward must see one element's gradient, not the whole batch's (the
    # batched path gave batch-size times the gradient)
    class Cube(T.autograd.Function):
        generate_vmap_rule = True

        @staticmethod
        def forward(x):
            return x ** 3, 3 * x ** 2

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(output[1])

        @staticmethod
        def backward(ctx, g, g_unused):
            return g * ctx.saved_tensors[0]

    x = rand(4, 3)
    f0 = _counts()[1]
    got = func.vmap(func.grad(lambda r: Cube.apply(r)[0].sum()))(x)
    assert _counts()[1] == f0 + 1
    np.testing.assert_allclose(got.numpy(), 3 * x.numpy() ** 2, rtol=1e-6)
    # forward only (nothing recorded): the batched path runs it
    out = run_batched(lambda r: Cube.apply(r)[0].sum(), [x], loops_ok=True)
    np.testing.assert_allclose(out.numpy(), (x.numpy() ** 3).sum(1), rtol=1e-5)


def test_op_without_rule_runs_per_element():
    x = rand(4, 3, 3)
    before = dict(_batched.stats["op_loops"])
    out = run_batched(lambda a: T.linalg.det(a) + a.sum(), [x], loops_ok=True)
    assert _batched.stats["op_loops"] != before
    np.testing.assert_allclose(out.numpy(), np.linalg.det(x.numpy()) + x.numpy().sum((1, 2)))


GOLDEN = json.load(open(os.path.join(os.path.dirname(__file__), "golden", "vmap_batched.json")))


def _golden_env():
    return {"torch": T, "func": func, "F": F, "x": T.zeros(4, 3), "c": T.zeros(3)}


@pytest.mark.parametrize("code,etype,msg", GOLDEN["errors"], ids=[e[0] for e in GOLDEN["errors"]])
def test_errors_match_pytorch(code, etype, msg):
    with pytest.raises(Exception) as info:
        exec("result = " + code, _golden_env())
    assert type(info.value).__name__ == etype
    if "c.add_" not in code:  # PyTorch's add_ reports the broadcast, torchlike vmap's rule
        assert str(info.value) == msg


@pytest.mark.parametrize("code,value", GOLDEN["facts"], ids=[e[0] for e in GOLDEN["facts"]])
def test_semantics_match_pytorch(code, value):
    env = _golden_env()
    exec(code, env)
    assert env["result"] == value


def test_embedding_and_dropout_module():
    emb = T.nn.Embedding(10, 4).double()
    idx = T.tensor(rng.integers(0, 10, (3, 5)))
    check(lambda i: emb(i).sum(0), [idx])
    check(lambda i: W[i] * 2, [idx[:, :2] % 5])
    x = T.ones(4, 50)
    out = run_batched(lambda a: T.nn.Dropout(0.5)(a), [x], randomness="same")
    assert np.all(out.numpy() == out.numpy()[0])
    out = run_batched(lambda a: T.nn.Dropout(0.5)(a), [x], randomness="different")
    assert not np.all(out.numpy() == out.numpy()[0]) and set(np.unique(out.numpy())) <= {0, 2}


def test_autograd_grad_inside_vmap():
    """torch.autograd.grad on batched tensors gives batched gradients."""
    x = rand(4, 3)

    def f(v):
        v = v.detach().requires_grad_()
        y = (v.sin() * v).sum()
        return T.autograd.grad(y, v)[0] + T.autograd.grad(v.exp(), v, T.ones(3))[0]
    check(f, [x])


def test_out_argument_and_numpy_fall_back_per_element():
    x = rand(4, 3)
    f0 = _counts()[1]
    out = func.vmap(lambda a: T.add(a, 1, out=T.empty(3, dtype=T.float64)) * 1)(x)
    assert _counts()[1] == f0 + 1
    np.testing.assert_allclose(out.numpy(), x.numpy() + 1)
    out = func.vmap(lambda a: a * float(a.numpy().sum()))(x)
    assert _counts()[1] == f0 + 2
    np.testing.assert_allclose(out.numpy(), x.numpy() * x.numpy().sum(1, keepdims=True))
    # NumPy reading the buffer would see the whole batch: it is refused, and
    # the per-element rerun gives each element its own sum
    for read in (np.asarray, lambda a: np.frombuffer(memoryview(a), dtype=np.float64)):
        out = func.vmap(lambda a: a * float(read(a).sum()))(x)
        np.testing.assert_allclose(out.numpy(), x.numpy() * x.numpy().sum(1, keepdims=True))
    assert _counts()[1] == f0 + 4


def test_per_sample_grads_are_differentiable():
    """vmap(grad(f)) of a parameter that requires grad keeps its graph:
    gradcheck and gradgradcheck through it."""
    w = rand(3, 3).requires_grad_()
    x = rand(4, 3).requires_grad_()

    def loss(w, v):
        return (w @ v).tanh().pow(2).sum()

    def f(w, x):
        return func.vmap(func.grad(loss), in_dims=(None, 0))(w, x).pow(2).sum()
    b0, f0, _ = _counts()
    assert T.autograd.gradcheck(f, (w, x))
    assert T.autograd.gradgradcheck(f, (w, x))
    assert _counts()[0] > b0 and _counts()[1] == f0, "the batched path did not run"
    with per_element():
        expect = T.autograd.grad(f(w, x), (w, x))
    assert_close(T.autograd.grad(f(w, x), (w, x)), expect, 1e-12)


def test_renorm_runs_per_element():
    """renorm's norms span every dim but one: no dim shift can batch it."""
    check(lambda a: a.renorm(2, 0, 1.0), [rand(3, 2, 4)], loops_ok=True)


def test_writes_then_give_up_is_refused():
    """A write into an input before a value-dependent call: rerunning per
    element would write twice, so vmap raises instead."""
    x = rand(4, 3)
    before = x.clone()

    def f(a):
        a.mul_(2)
        return a * 2 if a.sum().item() > 0 else a
    with pytest.raises(RuntimeError, match="wrote in place into an input or a captured Tensor"):
        func.vmap(f)(x)
    np.testing.assert_array_equal(x.numpy(), before.numpy() * 2)  # written once


def test_chunks_of_a_nested_vmap():
    x = rand(2, 5, 3)
    check(lambda a: func.vmap(lambda r: (W[:, :3] @ r).tanh(), chunk_size=2)(a), [x], runs=2)


def test_training_batch_norm_with_unbatched_running_stats_is_refused():
    # PyTorch's rule: the running stats would be updated once per element;
    # refused as vmap's own error (no per-element retry), after the size
    # check each element's shape meets; without running stats, or in eval,
    # it runs, and matches the per-sample computation
    nn = T.nn
    x = T.from_numpy(np.random.default_rng(0).standard_normal((3, 2, 4)).astype(np.float32))
    net = nn.Sequential(nn.Linear(4, 2), nn.BatchNorm1d(2))
    before = net[1].running_mean.clone()
    with pytest.raises(RuntimeError, match="^Batch norm got a batched tensor as input while the "
                                           "running_mean or running_var, which will be updated "
                                           "in place, were not batched.$"):
        func.vmap(net)(x)
    assert T.equal(net[1].running_mean, before)
    with pytest.raises(RuntimeError, match="running_mean should contain 4 elements not 2"):
        func.vmap(nn.BatchNorm1d(2))(x)
    f = func.vmap(lambda u: nn.functional.batch_norm(u, None, None, training=True))
    want = T.stack([nn.functional.batch_norm(u, None, None, training=True) for u in x])
    assert T.allclose(f(x), want, rtol=0, atol=0)
    net.eval()
    assert T.equal(func.vmap(net)(x), T.stack([net(u) for u in x]))
