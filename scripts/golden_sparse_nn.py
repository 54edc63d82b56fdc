"""Record PyTorch's sparse gradients and optimizer steps into
tests/golden/sparse_nn.json (read by tests/test_sparse_nn.py), and a
checkpoint of sparse tensors saved by PyTorch into
tests/golden/serialization/sparse.pt:
Embedding/EmbeddingBag(sparse=True) gradients (indices, values, coalesced),
SGD / Adagrad / SparseAdam trajectories on them, clip_grad_norm_.

    python scripts/golden_sparse_nn.py   (an interpreter with PyTorch)"""
import json
import os
import warnings

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BATCHES = ([[1, 2], [1, 4]], [[0, 5, 5]], [[3]], [[5, 2, 2, 0]])


def weight(T):
    return (T.arange(12., dtype=T.float64).reshape(6, 2) / 10 - 0.3)


def sparse_desc(g):
    return {"indices": g._indices().tolist(), "values": g._values().tolist(),
            "size": list(g.shape), "coalesced": g.is_coalesced()}


def embedding_grads(T):
    out = {}
    F = T.nn.functional
    for name, kw in (("plain", {}), ("padding", {"padding_idx": 1}),
                     ("scale", {"scale_grad_by_freq": True})):
        w = weight(T).requires_grad_()
        x = T.tensor([[1, 2], [1, 4]])
        try:
            (F.embedding(x, w, sparse=True, **kw) ** 2).sum().backward()
            (F.embedding(T.tensor([5, 1]), w, sparse=True, **kw) * 3).sum().backward()
            out[f"embedding_{name}"] = sparse_desc(w.grad)
        except RuntimeError as e:
            out[f"embedding_{name}"] = ["raises", str(e)]
    for mode in ("sum", "mean"):
        for kw_name, kw in (("plain", {}), ("padding", {"padding_idx": 2}),
                            ("scale", {"scale_grad_by_freq": True}),
                            ("psw", {"per_sample_weights": T.tensor([1., 2., 3., 4., .5],
                                                                    dtype=T.float64)})):
            if kw_name == "psw" and mode != "sum":
                continue
            w = weight(T).requires_grad_()
            try:
                y = F.embedding_bag(T.tensor([1, 2, 1, 4, 2]), w, T.tensor([0, 2, 2]),
                                    mode=mode, sparse=True, **kw)
                (y * T.arange(6., dtype=T.float64).reshape(3, 2)).sum().backward()
                out[f"bag_{mode}_{kw_name}"] = sparse_desc(w.grad)
            except RuntimeError as e:
                out[f"bag_{mode}_{kw_name}"] = ["raises", str(e)]
    w = weight(T).requires_grad_()
    y = F.embedding_bag(T.tensor([[1, 2], [3, 3]]), w, mode="mean", sparse=True)
    y.sum().backward()
    out["bag_2d"] = sparse_desc(w.grad)
    return out


def trajectory(T, make_opt, clip=None):
    w = T.nn.Parameter(weight(T))
    opt = make_opt([w])
    norms = []
    for batch in BATCHES:
        opt.zero_grad()
        y = T.nn.functional.embedding(T.tensor(batch), w, sparse=True)
        (y * y * T.tensor([1.0, -2.0], dtype=T.float64)).sum().backward()
        if clip is not None:
            norms.append(float(T.nn.utils.clip_grad_norm_([w], clip)))
        opt.step()
    return {"weight": w.detach().tolist(), "norms": norms}


OPTIMIZERS = {
    "sgd": "T.optim.SGD(p, lr=0.1)",
    "sgd_momentum": "T.optim.SGD(p, lr=0.1, momentum=0.9, dampening=0.1)",
    "sgd_nesterov_max": "T.optim.SGD(p, lr=0.1, momentum=0.5, nesterov=True, maximize=True)",
    "adagrad": "T.optim.Adagrad(p, lr=0.1)",
    "adagrad_decay": "T.optim.Adagrad(p, lr=0.1, lr_decay=0.1, initial_accumulator_value=0.2)",
    "sparse_adam": "T.optim.SparseAdam(p, lr=0.1)",
    "sparse_adam_max": "T.optim.SparseAdam(p, lr=0.05, betas=(0.8, 0.9), maximize=True)",
    "sgd_clip": "T.optim.SGD(p, lr=0.1)",
}


def optimizer_runs(T):
    out = {}
    for name, expr in OPTIMIZERS.items():
        out[name] = trajectory(T, lambda p, e=expr: eval(e, {"T": T, "p": p}),
                               clip=0.5 if "clip" in name else None)
    return out


def main():
    import torch
    warnings.simplefilter("ignore")
    data = {"torch": torch.__version__, "grads": embedding_grads(torch),
            "optim": optimizer_runs(torch)}
    with open(os.path.join(HERE, "tests", "golden", "sparse_nn.json"), "w") as f:
        json.dump(data, f, indent=0)
        f.write("\n")
    i = torch.tensor([[1, 0, 1], [2, 0, 2]])
    s = torch.sparse_coo_tensor(i, torch.tensor([3., 4., 5.]), (2, 3))
    h = torch.sparse_coo_tensor(torch.tensor([[2, 0]]), torch.tensor([[1, 2], [3, 4]]), (4, 2))
    torch.save({"coo": s, "coalesced": s.coalesce(), "hybrid": h,
                "csr": s.coalesce().to_sparse_csr().double(),
                "csc": s.coalesce().to_sparse_csc(),
                "bsr": s.to_dense().to_sparse_bsr((1, 3))},
               os.path.join(HERE, "tests", "golden", "serialization", "sparse.pt"))
    print("wrote tests/golden/sparse_nn.json and tests/golden/serialization/sparse.pt")


if __name__ == "__main__":
    main()
