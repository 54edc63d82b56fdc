"""Sparse tensors against PyTorch in the same process: sparse.mm of a COO
4096x4096 matrix at 1% density by a dense 4096x64 one, the same with CSR,
coalesce of an uncoalesced COO with duplicates, and COO -> CSR."""
import warnings

import numpy as np

import torchlike as tl

try:
    import torch
except ImportError:
    torch = None


def cases():
    if torch is None:
        return
    torch.set_num_threads(tl.get_num_threads())
    warnings.simplefilter("ignore")  # PyTorch's beta-state warning for CSR
    rng = np.random.default_rng(0)
    n, k = 4096, 64
    nnz = n * n // 100
    idx = np.stack([rng.integers(0, n, nnz), rng.integers(0, n, nnz)]).astype(np.int64)
    vals = rng.standard_normal(nnz).astype(np.float32)
    dense = rng.standard_normal((n, k)).astype(np.float32)
    s_tl = tl.sparse_coo_tensor(tl.from_numpy(idx), tl.from_numpy(vals), (n, n)).coalesce()
    s_pt = torch.sparse_coo_tensor(torch.from_numpy(idx), torch.from_numpy(vals),
                                   (n, n)).coalesce()
    d_tl, d_pt = tl.from_numpy(dense), torch.from_numpy(dense)
    yield "sparse.mm COO 4096^2 1% x 4096x64 f32", lambda: tl.sparse.mm(s_tl, d_tl), \
        lambda: torch.sparse.mm(s_pt, d_pt), "torch"
    c_tl, c_pt = s_tl.to_sparse_csr(), s_pt.to_sparse_csr()
    yield "mm CSR 4096^2 1% x 4096x64 f32", lambda: tl.mm(c_tl, d_tl), \
        lambda: torch.mm(c_pt, d_pt), "torch"
    u_tl = tl.sparse_coo_tensor(tl.from_numpy(idx), tl.from_numpy(vals), (n, n))
    u_pt = torch.sparse_coo_tensor(torch.from_numpy(idx), torch.from_numpy(vals), (n, n))
    # coalesce of a fresh uncoalesced tensor each call (a coalesced one returns itself)
    yield "coalesce COO 4096^2 nnz 167772 f32", lambda: tl._sparse.coalesce(
        tl._sparse._coo(u_tl._indices(), u_tl._values(), (n, n))), \
        lambda: torch.sparse_coo_tensor(u_pt._indices(), u_pt._values(), (n, n)).coalesce(), \
        "torch"
    yield "to_sparse_csr COO 4096^2 1% f32", lambda: s_tl.to_sparse_csr(), \
        lambda: s_pt.to_sparse_csr(), "torch"
