"""Sparse gradients in nn and optim, against PyTorch's recorded answers
(scripts/golden_sparse_nn.py -> tests/golden/sparse_nn.json):
Embedding/EmbeddingBag(sparse=True) give PyTorch's uncoalesced COO
gradients (indices in input order, padding dropped, accumulated by
concatenation); SGD, Adagrad and SparseAdam step them as PyTorch does;
clip_grad_norm_ scales them; torchlike.save/load round-trip sparse tensors
and read PyTorch's checkpoint of them."""
import io
import json
import os
import pickle
import sys

import numpy as np
import pytest

import torchlike as T

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "scripts"))
import golden_sparse_nn as G  # noqa: E402

GOLDEN = os.path.join(os.path.dirname(__file__), "golden")
with open(os.path.join(GOLDEN, "sparse_nn.json")) as f:
    DATA = json.load(f)


def _run_grads():
    """G.embedding_grads with torchlike, case by case (each may raise)."""
    out = {}
    F = T.nn.functional
    for name, kw in (("plain", {}), ("padding", {"padding_idx": 1}),
                     ("scale", {"scale_grad_by_freq": True})):
        w = G.weight(T).requires_grad_()
        try:
            (F.embedding(T.tensor([[1, 2], [1, 4]]), w, sparse=True, **kw) ** 2).sum().backward()
            (F.embedding(T.tensor([5, 1]), w, sparse=True, **kw) * 3).sum().backward()
            out[f"embedding_{name}"] = G.sparse_desc(w.grad)
        except RuntimeError as e:
            out[f"embedding_{name}"] = ["raises", str(e)]
    return out


@pytest.mark.parametrize("name", sorted(DATA["grads"]))
def test_embedding_sparse_grads(name):
    if name.startswith("bag") and not name.endswith("scale"):
        got = G.embedding_grads(T)[name]
    elif name.startswith("embedding"):
        got = _run_grads()[name]
    elif name.endswith("scale"):
        w = G.weight(T).requires_grad_()
        mode = name.split("_")[1]
        y = T.nn.functional.embedding_bag(T.tensor([1, 2, 1, 4, 2]), w, T.tensor([0, 2, 2]),
                                          mode=mode, sparse=True, scale_grad_by_freq=True)
        with pytest.raises(RuntimeError) as e:
            y.sum().backward()
        got = ["raises", str(e.value)]
    expected = DATA["grads"][name]
    if isinstance(expected, list):
        assert got == expected
        return
    assert got["indices"] == expected["indices"] and got["size"] == expected["size"]
    assert got["coalesced"] == expected["coalesced"]
    np.testing.assert_allclose(got["values"], expected["values"], rtol=1e-12)


def test_embedding_module_and_dense_equivalence():
    e = T.nn.Embedding(6, 2, sparse=True)
    d = T.nn.Embedding(6, 2)
    with T.no_grad():
        d.weight.copy_(e.weight)
    x = T.tensor([[1, 2, 2], [0, 5, 1]])
    (e(x) * T.tensor([1., -3.])).sum().backward()
    (d(x) * T.tensor([1., -3.])).sum().backward()
    assert e.weight.grad.layout is T.sparse_coo and d.weight.grad.layout is T.strided
    np.testing.assert_allclose(e.weight.grad.to_dense().numpy(), d.weight.grad.numpy())
    # autograd.grad gets the dense gradient (nothing accumulates into .grad)
    w = G.weight(T).requires_grad_()
    (g,) = T.autograd.grad(T.nn.functional.embedding(T.tensor([0, 0, 3]), w, sparse=True).sum(),
                           w)
    assert g.layout is T.strided
    np.testing.assert_allclose(g.numpy()[:, 0], [2, 0, 0, 1, 0, 0])


def test_embedding_bag_max_refuses_sparse():
    w = G.weight(T).requires_grad_()
    with pytest.raises(ValueError, match="max mode does not support sparse weights"):
        T.nn.functional.embedding_bag(T.tensor([1, 2]), w, T.tensor([0]), mode="max",
                                      sparse=True)


@pytest.mark.parametrize("name", sorted(DATA["optim"]))
def test_optimizers_step_sparse_grads(name):
    got = G.trajectory(T, lambda p: eval(G.OPTIMIZERS[name], {"T": T, "p": p}),
                       clip=0.5 if "clip" in name else None)
    expected = DATA["optim"][name]
    np.testing.assert_allclose(got["weight"], expected["weight"], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(got["norms"], expected["norms"], rtol=1e-10)


def test_dense_grads_keep_working_in_sparse_adam():
    w = T.nn.Parameter(G.weight(T))
    opt = T.optim.SparseAdam([w], lr=0.1)
    (w[1] * 2).sum().backward()
    before = w.detach().clone()
    opt.step()
    changed = (w.detach() != before).any(1).tolist()
    assert changed == [False, True, False, False, False, False]


def test_sgd_weight_decay_with_sparse_grad_raises_as_pytorch():
    w = T.nn.Parameter(G.weight(T))
    opt = T.optim.SGD([w], lr=0.1, weight_decay=0.1)
    T.nn.functional.embedding(T.tensor([1]), w, sparse=True).sum().backward()
    with pytest.raises(RuntimeError, match="add\\(sparse, dense\\) is not supported"):
        opt.step()
    opt = T.optim.Adagrad([w], lr=0.1, weight_decay=0.1)
    with pytest.raises(RuntimeError, match="weight_decay option is not compatible"):
        opt.step()


# ---- serialization ------------------------------------------------------------------------

def _same(a, b):
    assert a.layout is b.layout and a.shape == b.shape and a.dtype == b.dtype
    np.testing.assert_array_equal(a.to_dense().numpy(), b.to_dense().numpy())
    if a.layout is T.sparse_coo:
        assert a._indices().tolist() == b._indices().tolist()
        assert a.is_coalesced() == b.is_coalesced()


def _tensors():
    s = T.sparse_coo_tensor(T.tensor([[1, 0, 1], [2, 0, 2]]), T.tensor([3., 4., 5.]), (2, 3))
    h = T.sparse_coo_tensor(T.tensor([[2, 0]]), T.tensor([[1, 2], [3, 4]]), (4, 2))
    return {"coo": s, "coalesced": s.coalesce(), "hybrid": h,
            "csr": s.coalesce().to_sparse_csr().double(), "csc": s.coalesce().to_sparse_csc(),
            "bsr": s.to_dense().to_sparse_bsr((1, 3))}


def test_save_load_roundtrip_and_pickle():
    data = _tensors()
    buf = io.BytesIO()
    T.save(data, buf)
    buf.seek(0)
    back = T.load(buf)  # weights_only=True accepts sparse tensors, as PyTorch's does
    for k in data:
        _same(back[k], data[k])
        _same(pickle.loads(pickle.dumps(data[k])), data[k])


def test_load_pytorch_checkpoint_of_sparse_tensors():
    back = T.load(os.path.join(GOLDEN, "serialization", "sparse.pt"))
    ours = _tensors()
    assert sorted(back) == sorted(ours)
    for k in ours:
        _same(back[k], ours[k])


def test_load_checks_invariants():
    from torchlike import serialization
    with pytest.raises(RuntimeError, match="size is inconsistent"):
        serialization._rebuild_sparse_tensor(T.sparse_coo, (T.tensor([[0, 7]]), T.ones(2),
                                                             T.Size([3]), False))


def test_weight_shared_by_sparse_embedding_and_dense_layer():
    # the gradient of a table used sparsely and densely is the dense sum, in
    # either order of arrival (PyTorch's AccumulateGrad: dense + sparse is dense)
    for order in (0, 1):
        w = G.weight(T).requires_grad_()
        ref = G.weight(T).requires_grad_()
        x = T.tensor([1, 4, 1])
        h = T.arange(2., dtype=T.float64) + 1
        for table, sparse in ((w, True), (ref, False)):
            emb = T.nn.functional.embedding(x, table, sparse=sparse).sum()
            dense = (table @ h).pow(2).sum()
            (emb + dense if order else dense + emb).backward()
        assert w.grad.layout is T.strided
        np.testing.assert_allclose(w.grad.numpy(), ref.grad.numpy(), rtol=1e-12)
        # and a later sparse gradient adds into the dense one
        T.nn.functional.embedding(T.tensor([0]), w, sparse=True).sum().backward()
        T.nn.functional.embedding(T.tensor([0]), ref).sum().backward()
        np.testing.assert_allclose(w.grad.numpy(), ref.grad.numpy(), rtol=1e-12)


def test_custom_function_returning_a_sparse_gradient_gives_its_dense_form():
    class Pick(T.autograd.Function):
        @staticmethod
        def forward(ctx, w):
            return w[1].clone()

        @staticmethod
        def backward(ctx, g):
            return T.sparse_coo_tensor(T.tensor([[1]]), g.unsqueeze(0), (3, 2))
    w = T.ones(3, 2, dtype=T.float64, requires_grad=True)
    (Pick.apply(w) * T.tensor([2., 3.], dtype=T.float64)).sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), [[0, 0], [2, 3], [0, 0]])


def test_optimizer_steps_a_sparse_parameter():
    # a sparse leaf as a parameter: its gradient has its pattern, SGD steps its values
    s = T.sparse_coo_tensor(T.tensor([[0, 1, 1], [0, 0, 2]]), T.tensor([1., 2., 3.]), (2, 3),
                            requires_grad=True, is_coalesced=True)
    d = T.arange(6.).reshape(3, 2)
    opt = T.optim.SGD([s], lr=0.5)
    T.sparse.mm(s, d).sum().backward()
    opt.step()
    assert s.is_leaf and s.requires_grad and s.layout is T.sparse_coo
    np.testing.assert_allclose(s._values().detach().numpy(),
                               np.array([1., 2., 3.]) - 0.5 * d.sum(1).numpy()[[0, 0, 2]])
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        s.add_(T.sparse_coo_tensor(T.tensor([[0], [0]]), T.tensor([1.]), (2, 3)))


@pytest.mark.parametrize("mode", ["sum", "mean"])
@pytest.mark.parametrize("kw", [{}, {"include_last_offset": True}, {"padding_idx": 3},
                                {"per_sample_weights": True}, {"two_d": True}])
def test_embedding_bag_sparse_grad_equals_dense(mode, kw):
    kw = dict(kw)
    if kw.pop("per_sample_weights", False):
        if mode != "sum":
            pytest.skip("per_sample_weights needs mode='sum'")
        kw["per_sample_weights"] = T.tensor([0.5, 2., -1., 3., 1.5, 0.25], dtype=T.float64)
    if kw.pop("two_d", False):
        x, offsets = T.tensor([[1, 3, 3], [0, 5, 1]]), None
    else:
        x, offsets = T.tensor([3, 1, 3, 0, 5, 1]), T.tensor([0, 2, 2, 5])
        if kw.get("include_last_offset"):
            offsets = T.tensor([0, 2, 2, 6])
    grads = []
    for sparse in (True, False):
        w = G.weight(T).requires_grad_()
        y = T.nn.functional.embedding_bag(x, w, offsets, mode=mode, sparse=sparse, **kw)
        (y * T.sin(T.arange(y.numel(), dtype=T.float64)).reshape(y.shape)).sum().backward()
        grads.append(w.grad)
    assert grads[0].layout is T.sparse_coo and grads[1].layout is T.strided
    np.testing.assert_allclose(grads[0].to_dense().numpy(), grads[1].numpy(), rtol=1e-12,
                               atol=1e-15)
