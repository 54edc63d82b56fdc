"""torch.func transforms against PyTorch's (when installed).

Both libraries' vmap run batching rules, one batched call of the function
(torchlike's falls back to one call per element only for value-dependent
functions).  The rows measure the common uses: per-sample gradients of a small MLP (vmap(grad(loss)) through
functional_call, batch 64), a batched function (vmap of a matrix-vector
chain, batch 64), and Jacobians (jacrev / jacfwd of a 32-vector map and of
a small MLP, autograd.functional.jacobian with vectorize=True, hessian of a
scalar of 16 inputs): PyTorch vmaps the vjp (or jvp) over the basis;
torchlike makes one batched reverse pass (f recorded again under vmap)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import numpy as np  # noqa: E402
import torchlike  # noqa: E402

try:
    import torch
except ImportError:
    torch = None

BATCH = 64


def _per_sample_grads(lib):
    rng = np.random.default_rng(0)
    model = lib.nn.Sequential(lib.nn.Linear(16, 32), lib.nn.Tanh(), lib.nn.Linear(32, 4))
    params = {k: v.detach() for k, v in model.named_parameters()}
    x = lib.tensor(rng.standard_normal((BATCH, 16)).astype(np.float32))
    y = lib.tensor(rng.integers(0, 4, BATCH))

    def loss(p, xi, yi):
        out = lib.func.functional_call(model, p, (xi[None],))
        return lib.nn.functional.cross_entropy(out, yi[None])

    per_sample = lib.func.vmap(lib.func.grad(loss), in_dims=(None, 0, 0))
    return lambda: per_sample(params, x, y)


def _batched_matvec(lib):
    rng = np.random.default_rng(1)
    w = lib.tensor(rng.standard_normal((32, 32)).astype(np.float32))
    x = lib.tensor(rng.standard_normal((BATCH, 32)).astype(np.float32))
    fn = lib.func.vmap(lambda v: (w @ (w @ v).tanh()).softmax(0))
    return lambda: fn(x)


def _jacrev(lib):
    x = lib.linspace(-1, 1, 32)
    fn = lib.func.jacrev(lambda v: v.sin() * v.sum())
    return lambda: fn(x)


def _jacfwd(lib):
    x = lib.linspace(-1, 1, 32)
    fn = lib.func.jacfwd(lambda v: v.sin() * v.sum())
    return lambda: fn(x)


def _jacrev_mlp(lib):
    rng = np.random.default_rng(2)
    w1 = lib.tensor(rng.standard_normal((32, 16)).astype(np.float32))
    w2 = lib.tensor(rng.standard_normal((64, 32)).astype(np.float32))
    x = lib.tensor(rng.standard_normal(16).astype(np.float32))
    fn = lib.func.jacrev(lambda v: (w2 @ (w1 @ v).tanh()).softmax(0))
    return lambda: fn(x)


def _jacobian_vectorize(lib):
    x = lib.linspace(-1, 1, 32)
    return lambda: lib.autograd.functional.jacobian(lambda v: v.sin() * v.sum(), x,
                                                    vectorize=True)


def _hessian(lib):
    x = lib.linspace(-1, 1, 16)
    fn = lib.func.hessian(lambda v: (v.exp() * v.roll(1)).sum())
    return lambda: fn(x)


def cases():
    if torch is None:
        return
    for name, make in [("func per-sample grads MLP b64", _per_sample_grads),
                       ("func vmap matvec chain b64", _batched_matvec),
                       ("func jacrev 32->32", _jacrev),
                       ("func jacfwd 32->32", _jacfwd),
                       ("func jacrev MLP 16->32->64", _jacrev_mlp),
                       ("func autograd jacobian vectorize 32->32", _jacobian_vectorize),
                       ("func hessian 16", _hessian)]:
        yield name, make(torchlike), make(torch), "torch"
