"""Record PyTorch's nn.utils.parametrizations.orthogonal, linalg.matrix_exp,
linalg.householder_product and geqrf for fixed inputs.

Run with a Python that has real PyTorch: it writes
tests/golden/nn/orthogonal.npz, which tests/test_nn_orthogonal.py reads
(the tests never import torch)."""
import os

import numpy as np
import torch
from torch.nn.utils import parametrizations as P

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "golden", "nn",
                   "orthogonal.npz")
rng = np.random.default_rng(7)
rec = {}

# matrix_exp over norms that pick each Pade degree and scaling, and a batch
for i, scale in enumerate((1e-3, 0.1, 0.5, 1.5, 4.0, 40.0)):
    a = rng.standard_normal((5, 5)) * scale
    rec[f"expm_{i}_in"] = a
    rec[f"expm_{i}_out"] = torch.linalg.matrix_exp(torch.tensor(a)).numpy()
a = rng.standard_normal((2, 3, 3))
rec["expm_batch_in"] = a
rec["expm_batch_out"] = torch.matrix_exp(torch.tensor(a)).numpy()
x = torch.tensor(rng.standard_normal((3, 3)), requires_grad=True)
torch.linalg.matrix_exp(x).pow(2).sum().backward()
rec["expm_grad_in"], rec["expm_grad"] = x.detach().numpy(), x.grad.numpy()

# geqrf and householder_product (with its gradient)
for shape in ((5, 3), (3, 5), (2, 4, 4)):
    key = "x".join(map(str, shape))
    a = rng.standard_normal(shape)
    qa, tau = torch.geqrf(torch.tensor(a))
    rec[f"geqrf_{key}_in"], rec[f"geqrf_{key}_a"], rec[f"geqrf_{key}_tau"] = a, qa.numpy(), tau.numpy()
    if shape[-2] >= shape[-1]:
        A = qa.clone().requires_grad_()
        T = tau.clone().requires_grad_()
        Q = torch.linalg.householder_product(A, T)
        (Q * torch.tensor(np.cos(np.arange(Q.numel())).reshape(Q.shape))).sum().backward()
        rec[f"hh_{key}_q"], rec[f"hh_{key}_ga"], rec[f"hh_{key}_gt"] = (
            Q.detach().numpy(), A.grad.numpy(), T.grad.numpy())

# orthogonal: the map of a given unconstrained X, with and without a base
for shape in ((4, 4), (5, 3), (3, 5)):
    key = "x".join(map(str, shape))
    X = rng.standard_normal(shape)
    base_n = max(shape)
    base = np.linalg.qr(rng.standard_normal((base_n, base_n)))[0]
    rec[f"orth_{key}_X"], rec[f"orth_{key}_base"] = X, base
    for m in ("matrix_exp", "cayley", "householder"):
        for triv in (True, False):
            lin = torch.nn.Linear(shape[1], shape[0], bias=False, dtype=torch.float64)
            orth = P._Orthogonal(lin.weight, P._OrthMaps[m], use_trivialization=triv)
            if triv:
                orth.base = torch.tensor(base)
            rec[f"orth_{key}_{m}_{int(triv)}"] = orth(torch.tensor(X)).detach().numpy()
    # initialisation from a given weight: square weights keep or orthogonalise
    # it (deterministic); householder without trivialization stores reflectors
    W = rng.standard_normal(shape)
    rec[f"init_{key}_W"] = W
    lin = torch.nn.Linear(shape[1], shape[0], bias=False, dtype=torch.float64)
    with torch.no_grad():
        lin.weight.copy_(torch.tensor(W))
    P.orthogonal(lin, orthogonal_map="householder", use_trivialization=False)
    rec[f"init_{key}_hh_weight"] = lin.weight.detach().numpy()
    rec[f"init_{key}_hh_original"] = lin.parametrizations.weight.original.detach().numpy()
    if shape[0] == shape[1]:
        for m in ("matrix_exp", "cayley", "householder"):
            lin = torch.nn.Linear(shape[1], shape[0], bias=False, dtype=torch.float64)
            with torch.no_grad():
                lin.weight.copy_(torch.tensor(W))
            P.orthogonal(lin, orthogonal_map=m)
            rec[f"init_{key}_{m}_weight"] = lin.weight.detach().numpy()
            rec[f"init_{key}_{m}_base"] = lin.parametrizations.weight[0].base.numpy()
            rec[f"init_{key}_{m}_original"] = lin.parametrizations.weight.original.detach().numpy()

np.savez_compressed(OUT, **rec)
print(f"wrote {OUT}: {len(rec)} arrays")
