"""Record PyTorch's torch.func results for tests/test_func_transforms.py.

Run with an interpreter that has PyTorch:
    python scripts/golden_func.py
writes tests/golden/func.json:
  inputs: named float64 arrays (nested lists; JSON keeps float64 exactly);
  cases:  [name, code, structure, leaves] -- the code is run with ``torch`` bound to the
          library, ``func`` to its func module, ``nn``, ``F`` and the inputs as
          float64 tensors, and sets ``result``; leaves are the leaves of
          ``result`` in pytree order (tuples, lists, dicts by key order),
          a tensor as [shape, values]; structure is the containers as text;
  errors: [code, exception type, message] of calls that must fail."""
import json
import os

import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "golden",
                   "func.json")

rng = np.random.default_rng(2024)
INPUTS = {
    "x": rng.standard_normal(3), "y": rng.standard_normal(3), "s": np.array(0.7),
    "A": rng.standard_normal((3, 3)), "A2": rng.standard_normal((3, 3)),
    "B": rng.standard_normal((2, 3)),
    "X": rng.standard_normal((4, 3)), "X2": rng.standard_normal((4, 3)),
    "X3": rng.standard_normal((2, 4, 3)), "tgt": rng.standard_normal((4, 2)),
    "W": rng.standard_normal((2, 3)), "b": rng.standard_normal(2),
    "W1": rng.standard_normal((4, 3)), "b1": rng.standard_normal(4),
    "W2": rng.standard_normal((3, 4)), "b2": rng.standard_normal(3),
    "Ws": rng.standard_normal((2, 2, 3)), "bs": rng.standard_normal((2, 2)),
    "labels": np.array([0, 2, 1, 2], dtype=np.int64),
    # Jacobians with 8 or more rows: torchlike's batched rows (below, its loop)
    "z": rng.standard_normal(10), "Z": rng.standard_normal((3, 4)),
    "Zw": rng.standard_normal((3, 9)),
}

# name, code setting ``result``
CASES = [
    ("grad_sin", "result = func.grad(lambda x: x.sin().sum())(x)"),
    ("grad_argnums", "result = func.grad(lambda x, y: (x * y).exp().sum(), argnums=(0, 1))(x, y)"),
    ("grad_argnum1", "result = func.grad(lambda x, y: (x * y.cos()).sum(), argnums=1)(x, y)"),
    ("grad_dict", "result = func.grad(lambda d: (d['a'] ** 2 * d['b']).sum())({'a': x, 'b': y})"),
    ("grad_tuple_arg", "result = func.grad(lambda t: (t[0] @ t[1]).tanh())((x, y))"),
    ("grad_has_aux", "result = func.grad(lambda x: ((x ** 3).sum(), x.cos()), has_aux=True)(x)"),
    ("grad_and_value", "result = func.grad_and_value(lambda x: (x.tanh() ** 2).sum())(x)"),
    ("grad_and_value_aux",
     "result = func.grad_and_value(lambda x: (x.exp().sum(), {'m': x.max()}), has_aux=True)(x)"),
    ("grad_kwargs", "result = func.grad(lambda x, w=None: (x * w).sin().sum())(x, w=y)"),
    ("grad_unused", "result = func.grad(lambda x, y: y.sum(), argnums=(0, 1))(x, y)"),
    ("grad_grad", "result = func.grad(func.grad(lambda s: s.sin() * s ** 3))(s)"),
    ("grad_grad_grad", "result = func.grad(func.grad(func.grad(lambda s: s.exp() * s.sin())))(s)"),
    ("grad_closure_outer",
     "result = func.grad(lambda x: (func.grad(lambda y: (x * y ** 2).sum())(x) * x).sum())(x)"),
    ("grad_closure_only",
     "result = func.grad(lambda x: func.grad(lambda y: (x * y).sum())(y).sum())(x)"),
    ("grad_matmul", "result = func.grad(lambda A: (A @ x).square().sum() + A.trace())(A)"),
    ("grad_softmax", "result = func.grad(lambda x: (torch.softmax(x, 0) * y).sum())(x)"),
    ("grad_logsumexp", "result = func.grad(lambda B: B.logsumexp(1).mean())(B)"),
    ("grad_linear",
     "model = nn.Linear(3, 2)\n"
     "result = func.grad(lambda p: F.mse_loss(func.functional_call(model, p, (X,)), tgt))"
     "({'weight': W, 'bias': b})"),
    ("jacrev_matvec", "result = func.jacrev(lambda A: A @ x)(A)"),
    ("jacrev_argnums", "result = func.jacrev(lambda A, v: (A @ v).sin(), argnums=(0, 1))(A, x)"),
    ("jacrev_softmax2d", "result = func.jacrev(lambda B: torch.softmax(B, -1))(B)"),
    ("jacrev_out_tuple", "result = func.jacrev(lambda x: (x.exp(), x.sum(), x[:2] * 3))(x)"),
    ("jacrev_has_aux", "result = func.jacrev(lambda x: (x.sin() * x, x.norm()), has_aux=True)(x)"),
    ("jacrev_dict", "result = func.jacrev(lambda d: d['a'] * d['b'].sum())({'a': x, 'b': y})"),
    ("jacrev_chunk", "result = func.jacrev(lambda A: A.exp() @ x, chunk_size=2)(A)"),
    ("jacrev_scalar_in", "result = func.jacrev(lambda s: torch.stack([s.sin(), s.cos()]))(s)"),
    ("jacfwd_softmax", "result = func.jacfwd(lambda x: torch.softmax(x, 0))(x)"),
    ("jacfwd_argnums", "result = func.jacfwd(lambda x, y: x.outer(y), argnums=(0, 1))(x, y)"),
    ("jacfwd_has_aux", "result = func.jacfwd(lambda x: (x.cumsum(0), x.prod()), has_aux=True)(x)"),
    ("jacrev_grad", "result = func.jacrev(func.grad(lambda x: (x.sin() * x.roll(1)).sum()))(x)"),
    ("jacfwd_jacrev", "result = func.jacfwd(func.jacrev(lambda x: x.sin() * x.sum()))(x)"),
    ("hessian", "result = func.hessian(lambda x: (x.sin() * x).sum() ** 2)(x)"),
    ("hessian_matrix", "result = func.hessian(lambda A: (A @ A).trace().tanh())(A)"),
    ("hessian_argnums",
     "result = func.hessian(lambda x, y: (x.exp() * y.sin()).sum(), argnums=(0, 1))(x, y)"),
    ("vjp_one", "out, fn = func.vjp(lambda x: x.sin() * x, x)\nresult = (out, fn(y))"),
    ("vjp_two", "out, fn = func.vjp(lambda x, y: (x * y, x.exp().sum()), x, y)\n"
                "result = (out, fn((y, s)))"),
    ("vjp_has_aux", "out, fn, aux = func.vjp(lambda A: (A @ x, A.sum()), A, has_aux=True)\n"
                    "result = (out, fn(y), aux)"),
    ("vjp_dict", "out, fn = func.vjp(lambda d: d['a'] * d['b'], {'a': x, 'b': y})\n"
                 "result = (out, fn(x))"),
    ("jvp_one", "result = func.jvp(lambda x: x.sin() * x, (x,), (y,))"),
    ("jvp_two", "result = func.jvp(lambda A, v: A @ v, (A, x), (A2, y))"),
    ("jvp_softmax", "result = func.jvp(lambda B: torch.softmax(B, 1), (B,), (B.cos(),))"),
    ("jvp_has_aux", "result = func.jvp(lambda x: (x.exp(), x.sum()), (x,), (y,), has_aux=True)"),
    ("jvp_tuple_out", "result = func.jvp(lambda x: (x ** 2, x.sum()), (x,), (y,))"),
    ("jvp_of_grad", "result = func.jvp(func.grad(lambda x: (x.sin() ** 2).sum()), (x,), (y,))"),
    ("grad_of_jvp",
     "result = func.grad(lambda x: func.jvp(lambda z: z.exp() * z, (x,), (y,))[1].sum())(x)"),
    ("linearize", "out, fn = func.linearize(lambda x: x.tanh() * x, x)\n"
                  "result = (out, fn(y), fn(x))"),
    ("vmap_dot", "result = func.vmap(torch.dot)(X, X2)"),
    ("vmap_in_dims", "result = func.vmap(lambda a, b: a * b, in_dims=(1, None))(A, x)"),
    ("vmap_in_dims_neg", "result = func.vmap(lambda a: a.softmax(0), in_dims=-1)(X)"),
    ("vmap_out_dims", "result = func.vmap(lambda a: a.outer(y), out_dims=1)(X)"),
    ("vmap_out_dims_neg", "result = func.vmap(lambda a: a.expand(2, 3), out_dims=-1)(X)"),
    ("vmap_out_tuple",
     "result = func.vmap(lambda a: (a.sum(), a * 2, x), out_dims=(0, 1, None))(X)"),
    ("vmap_nested", "result = func.vmap(func.vmap(torch.dot, (None, 0)), (0, None))(X, A)"),
    ("vmap_nested_3d", "result = func.vmap(func.vmap(lambda r: r / r.norm()), in_dims=1)(X3)"),
    ("vmap_dict", "result = func.vmap(lambda d: d['a'] * d['b'], in_dims=({'a': 0, 'b': None},))"
                  "({'a': X, 'b': y})"),
    ("vmap_tuple_arg", "result = func.vmap(lambda t: t[0] - t[1], in_dims=((0, None),))((X, x))"),
    ("vmap_kwargs", "result = func.vmap(lambda a, b=None: a + b)(X, b=x)"),
    ("vmap_reduce", "result = func.vmap(lambda r: (r.sum(0) / r.norm(), r.max()))(X3)"),
    ("vmap_chunk", "result = func.vmap(lambda a: a.exp() @ A, chunk_size=3)(X)"),
    ("vmap_matmul", "result = func.vmap(torch.matmul, in_dims=(None, 0))(A, X)"),
    ("vmap_grad", "result = func.vmap(func.grad(lambda a: (a.sin() * a).sum()))(X)"),
    ("vmap_jacrev", "result = func.vmap(func.jacrev(lambda a: a.softmax(0)))(X)"),
    ("vmap_hessian", "result = func.vmap(func.hessian(lambda a: (a ** 3).sum() * a[0]))(X)"),
    ("vmap_vjp", "result = func.vmap(lambda a, v: func.vjp(torch.sin, a)[1](v)[0])(X, X2)"),
    ("vmap_jvp", "result = func.vmap(lambda a, v: func.jvp(torch.tanh, (a,), (v,)))(X, X2)"),
    ("jacrev_vmap", "result = func.jacrev(func.vmap(lambda a: a.sin() * a.sum()))(B)"),
    ("grad_vmap", "result = func.grad(lambda X: func.vmap(lambda r: r @ A @ r)(X).sum())(X)"),
    ("per_sample_linear",
     "model = nn.Linear(3, 2)\n"
     "def loss(p, xi, ti):\n"
     "    return F.mse_loss(func.functional_call(model, p, (xi[None],)), ti[None])\n"
     "result = func.vmap(func.grad(loss), in_dims=(None, 0, 0))({'weight': W, 'bias': b}, X, tgt)"),
    ("per_sample_mlp",
     "model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 3))\n"
     "p = {'0.weight': W1, '0.bias': b1, '2.weight': W2, '2.bias': b2}\n"
     "def loss(p, xi, li):\n"
     "    return F.cross_entropy(func.functional_call(model, p, (xi[None],)), li[None])\n"
     "result = func.vmap(func.grad_and_value(loss), in_dims=(None, 0, 0))(p, X, labels)"),
    ("ensemble",
     "models = [nn.Linear(3, 2, dtype=torch.float64) for _ in range(2)]\n"
     "with torch.no_grad():\n"
     "    for m, w_, b_ in zip(models, Ws, bs):\n"
     "        m.weight.copy_(w_)\n"
     "        m.bias.copy_(b_)\n"
     "params, buffers = func.stack_module_state(models)\n"
     "base = models[0]\n"
     "out = func.vmap(lambda p, bu, xx: func.functional_call(base, (p, bu), (xx,)),"
     " in_dims=(0, 0, None))(params, buffers, X)\n"
     "result = (params, [params['weight'].requires_grad, params['weight'].is_leaf], out)"),
    ("vmap_empty_batch", "result = func.vmap(lambda a: (a.sum(), a * 2), out_dims=(0, 1))"
                         "(torch.ones(0, 3, dtype=torch.float64))"),
    ("grad_under_no_grad",
     "with torch.no_grad():\n    result = func.grad(lambda x: x.exp().sum())(x)"),
    ("no_grad_inside",
     "result = func.grad(lambda x: x.exp().sum() + torch.no_grad()(torch.sin)(x).sum())(x)"),
    ("top_level_detached",
     "g, (v, aux) = func.grad_and_value(lambda x: ((x ** 2).sum(), x * 3), has_aux=True)(x)\n"
     "o, fn = func.vjp(torch.sin, x)\n"
     "jo, jt = func.jvp(torch.sin, (x,), (y,))\n"
     "result = [g.requires_grad, v.requires_grad, aux.requires_grad, o.requires_grad,"
     " fn(y)[0].requires_grad, jo.requires_grad, jt.requires_grad,"
     " func.jacrev(torch.sin)(x).requires_grad, func.vmap(torch.sin)(X).requires_grad]"),
    ("outer_leaf",
     "w = y.clone().requires_grad_()\n"
     "g = func.grad(lambda x: (x ** 2 * w).sum())(x)\n"
     "j = func.jacrev(lambda x: x.sin() * w)(x)\n"
     "jt = func.jvp(lambda x: x.exp() * w, (x,), (x,))[1]\n"
     "result = [g.requires_grad, j.requires_grad, jt.requires_grad,"
     " torch.autograd.grad((g.sum(), j.sum(), jt.sum()), w)[0]]"),
    ("input_requires_grad",
     "w = x.clone().requires_grad_()\n"
     "g = func.grad(lambda x: (x ** 3).sum())(w)\n"
     "result = [g.requires_grad, g, torch.autograd.grad(g.sum(), w)[0]]"),
    ("grad_of_per_sample",
     "result = func.grad(lambda X: func.vmap(func.grad(lambda r: (r.sin() * r).sum()))(X)"
     ".pow(2).sum())(X)"),
    ("jvp_of_jvp", "result = func.jvp(lambda a: func.jvp(lambda b: b.sin() * b, (a,), (y,))[1],"
                   " (x,), (x,))"),
    ("jacrev_vjp_closure", "result = func.jacrev(lambda a: func.vjp(lambda b: a * b * b, a)[1]"
                           "(torch.ones(3, dtype=torch.float64))[0])(x)"),
    ("hessian_params",
     "model = nn.Linear(3, 2)\n"
     "result = func.hessian(lambda p: func.functional_call(model, p, (X,)).pow(2).sum())"
     "({'weight': W, 'bias': b})"),
    ("vmap_jacfwd_argnums",
     "result = func.vmap(func.jacfwd(lambda a, c: a * c.sum(), argnums=(0, 1)))(X, X2)"),
    ("vmap_grad_unbatched_arg", "result = func.vmap(func.grad(lambda a, c: (a * c).sin().sum(),"
                                " argnums=1), in_dims=(0, None))(X, x)"),
    ("grad_int_output", "result = func.grad(lambda x: x.argmax())(x)"),
    ("jvp_int_output", "result = func.jvp(lambda x: (x.argmax(), x * 2), (x,), (y,))"),
    ("grad_const_output",
     "result = func.grad(lambda x: torch.tensor(2.0, dtype=torch.float64))(x)"),
    # Jacobians of 8 or more rows (torchlike: one batched reverse pass)
    ("jacrev_rows10", "result = func.jacrev(lambda v: v.sin() * v.sum())(z)"),
    ("jacrev_rows10_chunk3", "result = func.jacrev(lambda v: v.exp() * v[0], chunk_size=3)(z)"),
    ("jacrev_rows10_chunk1", "result = func.jacrev(lambda v: v.tanh() * v[1], chunk_size=1)(z)"),
    ("jacrev_rows_pytrees",
     "result = func.jacrev(lambda A, v: {'e': (A * v[:4]).exp(), 's': (A.sum() * v[4:],)},"
     " argnums=(0, 1))(Z, z)"),
    ("jacrev_rows_has_aux",
     "result = func.jacrev(lambda v: (v.cumsum(0) * v[2], {'n': v.norm()}), has_aux=True)(z)"),
    ("jacrev_rows_dict_in",
     "result = func.jacrev(lambda d: d['a'].outer(d['b']))({'a': z[:4], 'b': x})"),
    ("jacrev_empty_out", "result = func.jacrev(lambda v: v[:0] * 2)(z)"),
    ("jacrev_scalar_out", "result = func.jacrev(lambda v: (v ** 3).sum())(z)"),
    ("jacrev_scalar_in_rows9",
     "result = func.jacrev(lambda s: torch.stack([s * k for k in range(1, 10)]).sin())(s)"),
    ("jacrev_unused_arg",
     "result = func.jacrev(lambda v, w: v.sin() * 2, argnums=(0, 1))(z, x)"),
    ("jacrev_const_out",
     "result = func.jacrev(lambda v: (v.sin(), torch.ones(3, dtype=torch.float64)))(z)"),
    ("jacrev_no_rule_det",
     "result = func.jacrev(lambda A: A * torch.linalg.det(A[:, :3]))(Z)"),
    ("jacrev_item", "result = func.jacrev(lambda v: v.sin() * v.max().item())(z)"),
    ("jacrev_float32_out",
     "J = func.jacrev(lambda v: v.float() * v[0].float())(z)\n"
     "result = [J, J.dtype == torch.float64]"),
    ("jacfwd_rows10", "result = func.jacfwd(lambda v: v.cumsum(0) * v[0])(z)"),
    ("hessian_rows10", "result = func.hessian(lambda v: (v.exp() * v.roll(1)).sum())(z)"),
    ("jacrev_jacrev_rows16",
     "result = func.jacrev(func.jacrev(lambda v: v.sin() * v.sum()))(z[:4])"),
    ("vmap_jacrev_rows9", "result = func.vmap(func.jacrev(lambda r: r.softmax(0) * r.sum()))(Zw)"),
    ("grad_of_jacrev_rows10",
     "result = func.grad(lambda v: func.jacrev(lambda u: u.sin() * u.sum())(v).sum())(z)"),
    ("jacrev_outer_leaf_rows10",
     "w = z.clone().requires_grad_()\n"
     "J = func.jacrev(lambda v: v.sin() * w)(z)\n"
     "result = [J.requires_grad, torch.autograd.grad(J.sum(), w)[0]]"),
    ("grad_is_grads_batched",
     "w = z.clone().requires_grad_()\n"
     "out = (w.sin() * w.sum(), w[:3].exp())\n"
     "result = torch.autograd.grad(out, (w, x.clone().requires_grad_()),"
     " (torch.eye(10, dtype=torch.float64), torch.ones(10, 3, dtype=torch.float64)),"
     " is_grads_batched=True, retain_graph=True, allow_unused=True)"),
    ("functional_jacobian_vectorize",
     "result = torch.autograd.functional.jacobian(lambda a, b: (a.sum() * b, a.exp() * b.sin()),"
     " (z, z), vectorize=True)"),
    ("functional_jacobian_forward_mode",
     "result = torch.autograd.functional.jacobian(lambda a: a.cumsum(0) * a[3], z,"
     " vectorize=True, strategy='forward-mode')"),
    ("functional_jacobian_vectorize_graph",
     "J = torch.autograd.functional.jacobian(lambda a: a.sin() * a.sum(), z, vectorize=True,"
     " create_graph=True)\n"
     "result = [J.requires_grad, J]"),
    ("functional_hessian_vectorize",
     "result = torch.autograd.functional.hessian(lambda v: (v.exp() * v.roll(1)).sum(), z,"
     " vectorize=True)"),
    ("functional_hessian_forward",
     "result = torch.autograd.functional.hessian(lambda a, b: (a.exp() * b.sin()).sum(), (z, z),"
     " vectorize=True, outer_jacobian_strategy='forward-mode')"),
]

ERRORS = [
    "func.grad(lambda x: x)(x)",
    "func.grad(lambda x: x[None])(x.reshape(1, 3))",
    "func.grad(lambda x: 1.0)(x)",
    "func.grad(lambda x: x.sum(), argnums=2)(x)",
    "func.grad(lambda x: x.sum(), argnums=())(x)",
    "func.grad(lambda x: x.sum(), argnums=1.0)(x)",
    "func.grad(lambda x, y: x.sum(), argnums=(0, 0))(x, x)",
    "func.grad(lambda x: x.sum(), has_aux=True)(x)",
    "func.grad(lambda x: (x, 1), has_aux=True)(x)",
    "func.grad(lambda x: x)(1.0)",
    "func.grad(lambda x: x.mul_(2).sum())(x)",
    "func.vjp(lambda x: 1.0, x)",
    "func.vjp(lambda x: x, 1.0)",
    "func.vjp(torch.sin, x)[1](torch.ones(2, dtype=torch.float64))",
    "func.vjp(torch.sin, x)[1]((torch.ones(3, dtype=torch.float64),))",
    "func.jvp(torch.sin, x, x)",
    "func.jvp(torch.sin, (x,), (x, x))",
    "func.jvp(torch.sin, (x,), (torch.ones(2, dtype=torch.float64),))",
    "func.jvp(torch.sin, (), ())",
    "func.jvp(lambda x: 1.0, (x,), (x,))",
    "func.jacrev(torch.sin, chunk_size=0)(x)",
    "func.jacrev(lambda x: 1.0)(x)",
    "func.jacrev(lambda x: (x * 2).argmax())(x)",
    "func.vjp(lambda x: (x, x.argmax()), x)",
    "func.jacfwd(lambda a: a + torch.randn(3), randomness='foo')(x)",
    "func.jacfwd(lambda a: a + torch.randn(3))(x)",
    "func.vmap(torch.add)(torch.ones(2), torch.ones(3))",
    "func.vmap(torch.sin, in_dims=1)(x)",
    "func.vmap(torch.sin, in_dims=(2,))(torch.ones(2, 3))",
    "func.vmap(torch.sin, in_dims=1.0)(x)",
    "func.vmap(torch.sin, in_dims=None)(x)",
    "func.vmap(torch.add, in_dims=(0,))(x, x)",
    "func.vmap(lambda a, b: a, in_dims=(0, 0))(x, 1.0)",
    "func.vmap(torch.sin, in_dims=(None,))(x)",
    "func.vmap(lambda: x)()",
    "func.vmap(lambda a: 1.0)(x)",
    "func.vmap(lambda a: a, out_dims=2)(x)",
    "func.vmap(lambda a: (a, a), out_dims=(0, 0, 0))(x)",
    "func.vmap(lambda a: a, out_dims=None)(x)",
    "func.vmap(torch.sin, out_dims=1.0)(x)",
    "func.vmap(lambda a: a + torch.randn(()))(x)",
    "func.vmap(lambda a: torch.rand_like(a))(x)",
    "func.vmap(torch.sin, randomness='foo')",
    "func.vmap(torch.sin, chunk_size=0)",
    "func.vmap(torch.sin)(torch.tensor(1.0))",
    "func.stack_module_state([])",
    "func.stack_module_state([nn.Linear(2, 2), nn.Linear(2, 2).eval()])",
    "func.stack_module_state([nn.Linear(2, 2), nn.Conv1d(2, 2, 1)])",
    "func.jacrev(lambda v: v.argmax(), chunk_size=3)(z)",
    "torch.autograd.grad((w := z.clone().requires_grad_()).sin(), w,"
    " torch.ones(2, 2, dtype=torch.float64), is_grads_batched=True)",
    "torch.autograd.grad(((w := z.clone().requires_grad_()).sin(), w.exp()), w,"
    " (torch.ones(2, 10, dtype=torch.float64), torch.ones(3, 10, dtype=torch.float64)),"
    " is_grads_batched=True)",
    "torch.autograd.grad((w := z.clone().requires_grad_()).sin(), w, None, is_grads_batched=True)",
    "torch.autograd.grad((w := z.clone().requires_grad_()).sum(), w, None, is_grads_batched=True)",
    "torch.autograd.grad((w := z.clone().requires_grad_()).sin(), w,"
    " torch.ones(0, 10, dtype=torch.float64), is_grads_batched=True)",
    "func.jacrev(lambda a, b: a * b.abs())(x, x * 1j)",
    "func.jacrev(lambda a: (a, {'q': a * 1j}))(x)",
    "func.jacfwd(lambda a: a * 1j)(x)",
    "func.jacfwd(lambda a: a.abs(), argnums=3)(x * 1j)",
    "func.hessian(lambda a: a.abs().sum())(x * 1j)",
    "func.jacrev(torch.sin, chunk_size=-1)(z)",
    "torch.autograd.functional.jacobian(torch.sin, z, strict=True, vectorize=True)",
    "torch.autograd.functional.jacobian(torch.sin, z, strategy='forward-mode')",
    "torch.autograd.functional.jacobian(torch.sin, z, strategy='forward-mode', vectorize=True,"
    " create_graph=True)",
    "torch.autograd.functional.jacobian(torch.sin, z, strategy='forward-mode', vectorize=True,"
    " strict=True)",
    "torch.autograd.functional.jacobian(torch.sin, z, strategy='sideways')",
    "torch.autograd.functional.hessian(lambda v: v.exp().sum(), z, strict=True, vectorize=True)",
    "torch.autograd.functional.hessian(lambda v: v.exp().sum(), z,"
    " outer_jacobian_strategy='forward-mode')",
    "torch.autograd.functional.hessian(lambda v: v.exp().sum(), z, outer_jacobian_strategy='up')",
]


def environment(torch, inputs):
    """The names a case's code sees, ``torch`` being the library under test."""
    env = {"torch": torch, "func": torch.func, "nn": torch.nn, "F": torch.nn.functional}
    for k, v in inputs.items():
        arr = np.asarray(v)
        env[k] = torch.tensor(arr.tolist(), dtype=torch.int64 if arr.dtype.kind == "i"
                              else torch.float64)
    return env


def run_case(torch, code, inputs):
    env = environment(torch, inputs)
    exec(code, env)
    return env["result"]


def leaves(tree):
    """The pytree's leaves in order (dicts by insertion order)."""
    if isinstance(tree, dict):
        return [leaf for v in tree.values() for leaf in leaves(v)]
    if isinstance(tree, (tuple, list)):
        return [leaf for v in tree for leaf in leaves(v)]
    return [tree]


def structure(tree, tensor_type):
    """The pytree's shape as text: containers, T for a tensor, else the type."""
    if isinstance(tree, dict):
        return "{" + ", ".join(f"{k!r}: {structure(v, tensor_type)}" for k, v in tree.items()) + "}"
    if isinstance(tree, (tuple, list)):
        inner = ", ".join(structure(v, tensor_type) for v in tree)
        return f"({inner},)" if isinstance(tree, tuple) else f"[{inner}]"
    return "T" if isinstance(tree, tensor_type) else type(tree).__name__


def main():
    import torch
    torch.manual_seed(0)
    inputs = {k: v.tolist() for k, v in INPUTS.items()}
    cases = []
    for name, code in CASES:
        result = run_case(torch, code, INPUTS)
        out = [[list(x.shape), x.detach().numpy().tolist()] if isinstance(x, torch.Tensor)
               else x for x in leaves(result)]
        cases.append([name, code, structure(result, torch.Tensor), out])
    errors = []
    for code in ERRORS:
        try:
            run_case(torch, "result = " + code, INPUTS)
        except Exception as e:  # noqa: BLE001  (recording whatever PyTorch raises)
            errors.append([code, type(e).__name__, str(e)])
        else:
            raise AssertionError(f"PyTorch did not raise for {code}")
    with open(OUT, "w") as f:
        json.dump({"inputs": inputs, "cases": cases, "errors": errors}, f, indent=0)
        f.write("\n")


if __name__ == "__main__":
    main()
