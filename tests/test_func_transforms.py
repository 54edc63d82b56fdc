"""torchlike.func's transforms (torchlike/func/): grad, grad_and_value, vjp,
jvp, linearize, jacrev, jacfwd, hessian, vmap, stack_module_state.

PyTorch's recorded results (tests/golden/func.json, scripts/golden_func.py)
for the same code run with torch bound to torchlike: elementwise, matmul,
reductions, softmax, nn.Linear and an MLP through functional_call, per-sample
gradients through vmap(grad), nested transforms, closures over an outer
transform's input, has_aux, argnums, dict/tuple inputs, in_dims/out_dims, which
results stay attached to the user's graph; PyTorch's messages for bad calls.
Central differences in float64 for gradients, Jacobians and Hessians, and
gradcheck/gradgradcheck through grad; randomness modes of vmap."""
import json
import os
import sys

import numpy as np
import pytest

import torchlike as T
from torchlike import func

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
from golden_func import leaves, run_case, structure  # noqa: E402

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden", "func.json")) as _f:
    GOLDEN = json.load(_f)
INPUTS = {k: np.asarray(v) for k, v in GOLDEN["inputs"].items()}


def _host(t):
    return t.detach().cpu().numpy()


@pytest.mark.parametrize("name,code,shape,want", GOLDEN["cases"],
                         ids=[c[0] for c in GOLDEN["cases"]])
def test_matches_pytorch(name, code, shape, want):
    result = run_case(T, code, INPUTS)
    assert structure(result, T.Tensor) == shape, name
    got = leaves(result)
    assert len(got) == len(want), name
    for g, w in zip(got, want):
        if isinstance(w, list) and len(w) == 2 and isinstance(w[0], list):
            shape, values = w
            assert isinstance(g, T.Tensor), (name, g)
            assert list(g.shape) == shape, (name, g.shape, shape)
            want = np.asarray(values, dtype=np.float64).reshape(shape)
            np.testing.assert_allclose(_host(g), want, rtol=1e-10, atol=1e-12, err_msg=name)
        else:
            assert g == w, (name, g, w)


@pytest.mark.parametrize("code,etype,msg", GOLDEN["errors"], ids=[e[0] for e in GOLDEN["errors"]])
def test_errors_match_pytorch(code, etype, msg):
    with pytest.raises(Exception) as info:
        run_case(T, "result = " + code, INPUTS)
    assert type(info.value).__name__ == etype
    assert str(info.value).replace("torchlike.", "torch.") == msg


# ---- central differences ---------------------------------------------------------------

def _fd_jacobian(f, x, eps=1e-6):
    """d f(x) / d x by central differences: f(x).shape + x.shape."""
    x0 = _host(x).copy()
    cols = []
    for i in range(x0.size):
        d = np.zeros(x0.size)
        d[i] = eps
        hi = _host(f(T.tensor((x0 + d.reshape(x0.shape)).tolist(), dtype=T.float64)))
        lo = _host(f(T.tensor((x0 - d.reshape(x0.shape)).tolist(), dtype=T.float64)))
        cols.append((hi - lo) / (2 * eps))
    out = np.stack(cols, -1)
    return out.reshape(out.shape[:-1] + x0.shape)


FUNCTIONS = {
    "sin_mul": lambda x: x.sin() * x.roll(1),
    "softmax": lambda x: T.softmax(x * 2, 0),
    "matvec": lambda x: (x.reshape(2, 3) @ T.arange(3.0, dtype=T.float64).exp()).tanh(),
    "norm": lambda x: x / x.norm(),
    "logsumexp": lambda x: x.reshape(2, 3).logsumexp(1),
}
_rng = np.random.default_rng(5)
_X6 = _rng.standard_normal(6)


def _x6():
    """The point the derivatives are taken at, made on the default device when
    the test runs (another test file may change it between collection and run)."""
    return T.tensor(_X6.tolist(), dtype=T.float64)


@pytest.mark.parametrize("name", FUNCTIONS)
def test_jacobians_match_central_differences(name):
    f, X6 = FUNCTIONS[name], _x6()
    want = _fd_jacobian(f, X6)
    np.testing.assert_allclose(_host(func.jacrev(f)(X6)), want, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(_host(func.jacfwd(f)(X6)), want, rtol=1e-6, atol=1e-8)
    v = T.tensor(_rng.standard_normal(6).tolist(), dtype=T.float64)
    _, jv = func.jvp(f, (X6,), (v,))
    np.testing.assert_allclose(_host(jv), want @ _host(v), rtol=1e-6, atol=1e-8)
    _, fn = func.vjp(f, X6)
    u = T.tensor(_rng.standard_normal(tuple(want.shape[:-1])).tolist(), dtype=T.float64)
    np.testing.assert_allclose(_host(fn(u)[0]), _host(u).reshape(-1) @ want.reshape(-1, 6),
                               rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("name", FUNCTIONS)
def test_grad_and_hessian_match_central_differences(name):
    def scalar(x):
        return (FUNCTIONS[name](x) ** 2).sum()
    X6 = _x6()
    np.testing.assert_allclose(_host(func.grad(scalar)(X6)), _fd_jacobian(scalar, X6),
                               rtol=1e-6, atol=1e-8)
    want = _fd_jacobian(func.grad(scalar), X6, eps=1e-5)
    np.testing.assert_allclose(_host(func.hessian(scalar)(X6)), want, rtol=1e-5, atol=1e-7)


def test_grad_results_pass_gradcheck():
    def f(x):
        return (x.sin() * x.exp()).sum() * x.norm()
    x = _x6().requires_grad_()
    assert T.autograd.gradcheck(func.grad(f), (x,))
    assert T.autograd.gradgradcheck(func.grad(f), (x,))
    assert T.autograd.gradcheck(lambda x: func.vmap(func.grad(f))(x.reshape(2, 3)), (x,))


# ---- vmap specifics --------------------------------------------------------------------

def test_vmap_is_torch_vmap_and_matches_a_loop():
    assert T.vmap is func.vmap
    X = T.tensor(_rng.standard_normal((5, 2, 3)).tolist(), dtype=T.float64)
    got = T.vmap(lambda m: m @ m.T, in_dims=0)(X)
    want = np.stack([a @ a.T for a in _host(X)])
    np.testing.assert_allclose(_host(got), want, rtol=1e-12)
    got = T.vmap(lambda c: c.sum(), in_dims=2, out_dims=0)(X)
    np.testing.assert_allclose(_host(got), _host(X).sum((0, 1)), rtol=1e-12)


def test_vmap_randomness_modes():
    x = T.zeros(4, 3)
    same = func.vmap(lambda a: a + T.rand(3), randomness="same")(x)
    assert all(bool((same[i] == same[0]).all()) for i in range(4))
    diff = func.vmap(lambda a: a + T.rand(3), randomness="different")(x)
    assert not bool((diff[1] == diff[0]).all())
    # 'same' draws what one draw outside vmap would, and moves the generator once
    T.manual_seed(3)
    same = func.vmap(lambda a: a + T.rand(3), randomness="same")(x)
    after = T.rand(2)
    T.manual_seed(3)
    np.testing.assert_array_equal(_host(same[2]), _host(T.rand(3)))
    np.testing.assert_array_equal(_host(after), _host(T.rand(2)))
    with pytest.raises(RuntimeError, match="randomness error mode"):
        func.vmap(lambda a: T.nn.functional.dropout(a, 0.5))(x)
    # chunk_size changes nothing about the result
    np.testing.assert_array_equal(_host(func.vmap(T.exp, chunk_size=3)(x)), _host(x.exp()))


def test_vmap_out_dims_none_returns_the_unbatched_tensor():
    x = T.ones(3)
    c = T.arange(4.0)
    out = func.vmap(lambda a: (a * 2, c), out_dims=(0, None))(x)
    assert out[1] is c


def test_stack_module_state_leaves_the_models_alone():
    models = [T.nn.Linear(3, 2) for _ in range(3)]
    params, buffers = func.stack_module_state(models)
    assert set(params) == {"weight", "bias"} and buffers == {}
    assert params["weight"].shape == (3, 2, 3) and params["weight"].is_leaf
    assert params["weight"].requires_grad
    params["weight"].sum().backward()
    assert models[0].weight.grad is None
    bn = [T.nn.BatchNorm1d(2) for _ in range(2)]
    _, buffers = func.stack_module_state(bn)
    assert buffers["running_mean"].shape == (2, 2) and not buffers["running_mean"].requires_grad


_GLOBAL_BUFFER = None


def test_vmap_refuses_in_place_writes_into_unbatched_tensors():
    """Batched: a batched value written into an unbatched tensor raises
    PyTorch's error, an unbatched one is written once (as PyTorch's).  Per
    element (the fallback path), such a write would repeat: refused after the
    element."""
    global _GLOBAL_BUFFER
    _GLOBAL_BUFFER = T.zeros(3)  # on the default device of the run
    x = T.ones(4, 3)
    captured = T.zeros(3)
    for call in [lambda: func.vmap(lambda a: captured.add_(a))(x),
                 lambda: func.vmap(lambda a, c: c.add_(a), in_dims=(0, None))(x, captured)]:
        with pytest.raises(RuntimeError, match=r"vmap: inplace arithmetic\(self, \*extra_args\) is not "
                                               "possible because there exists a Tensor `other`"):
            call()
    out = func.vmap(lambda a: captured[:2].mul_(2).add_(1) + a[0])(x)
    np.testing.assert_array_equal(_host(captured), [1.0, 1.0, 0.0])
    np.testing.assert_array_equal(_host(out), np.full((4, 2), 2.0))
    func.vmap(lambda a: _GLOBAL_BUFFER.add_(1) * a)(x)
    np.testing.assert_array_equal(_host(_GLOBAL_BUFFER), np.ones(3))
    from torchlike.func import _batched
    _batched.enabled = False
    try:
        for call in [lambda: func.vmap(lambda a: captured.add_(a))(x),
                     lambda: func.vmap(lambda a: captured[:2].mul_(2) + a[0])(x),
                     lambda: func.vmap(lambda a: _GLOBAL_BUFFER.add_(1) * a)(x),
                     lambda: func.vmap(lambda a, c: c.add_(a), in_dims=(0, None))(x, captured)]:
            with pytest.raises(RuntimeError,
                               match="wrote in place into a Tensor that is not batched"):
                call()
    finally:
        _batched.enabled = True
    # the element's own slice is batched: written as PyTorch writes it, through to x
    out = func.vmap(lambda a: a.mul_(3))(x)
    np.testing.assert_array_equal(_host(out), np.full((4, 3), 3.0))
    np.testing.assert_array_equal(_host(x), np.full((4, 3), 3.0))
