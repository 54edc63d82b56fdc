"""Record PyTorch's answers to the calls training scripts make around their
models, for tests/test_training_programs.py: the legacy Tensor(...)
constructor (sizes, data, tensors, bad forms), the dtype that tensor() gives
Python sequences other than lists (a deque of returns, array.array), 0-d
tensors in format strings, spmm, the schedulers' state_dict keys and
torch.version.

Run with an interpreter that has PyTorch:
    python scripts/golden_training_programs.py
writes tests/golden/training_programs.json ([call, outcome] pairs over T)."""
from golden_calls import record


class Seq:
    """A Python sequence that is neither list nor tuple nor array-like."""

    def __len__(self):
        return 3

    def __getitem__(self, i):
        if i >= 3:
            raise IndexError(i)
        return 0.5 * i


def inputs(T):
    import array
    import collections
    import numpy as np
    return {"T": T, "np": np, "deque": collections.deque, "array": array.array, "Seq": Seq,
            "x": T.tensor([1.5, -2.0]), "i": T.tensor([1, 2]),
            "g": T.ones(2, requires_grad=True), "s": T.tensor(2.25), "n": T.tensor(7),
            "o": T.optim.SGD([T.zeros(1, requires_grad=True)], lr=0.1, momentum=0.9),
            "L": T.optim.lr_scheduler, "Sub": type("Sub", (T.Tensor,), {})}


CALLS = [
    # Tensor(...) as PyTorch's legacy constructor
    "T.Tensor(2, 3).shape", "T.Tensor(2, 3).dtype", "T.Tensor(0).shape", "T.Tensor().shape",
    "T.Tensor(T.Size([4, 1])).shape", "T.Tensor(np.int64(3)).shape", "T.Tensor((2, 3))",
    "T.Tensor([[1, 2]])", "T.Tensor([True, False])", "T.Tensor(np.array([1, 2]))",
    "T.Tensor(np.array([1.5], dtype=np.float64))", "T.Tensor(i)", "T.Tensor(x).data_ptr() == x.data_ptr()",
    "T.Tensor(g).requires_grad", "T.Tensor(2, device='cpu').shape",
    "Sub(x).data_ptr() == x.data_ptr()", "Sub(g).requires_grad", "type(Sub(x)).__name__",
    "Sub([1, 2])", "type(Sub(2, 3)).__name__",
    "T.Tensor(data=[1.0, 2.0])", "T.Tensor(other=x).data_ptr() == x.data_ptr()", "T.Tensor(size=(2, 3)).shape",
    "T.Tensor(data=[1.0], size=(2,))", "T.Tensor(2, data=[1.0])",
    "T.Tensor(2.5)", "T.Tensor(-1)", "T.Tensor(2, 'a')", "T.Tensor(2, device='meta')",
    # tensor() of Python sequences other than lists: Python numbers, default dtype
    "T.tensor(deque([1.0, 2.5]))", "T.tensor(deque([1, 2]))", "T.tensor(Seq())",
    "T.tensor([deque([1.0]), deque([2.0])])", "T.tensor(array('d', [1.0, 2.0]))",
    "T.as_tensor(deque([0.5]))", "T.tensor(deque([np.float64(1.0)]))", "T.tensor(range(3))",
    # 0-d tensors in format strings
    "'{:.3f}'.format(s)", "'{:+.2e}'.format(s)", "'{:>8}'.format(n)", "'{:5.1%}'.format(s)",
    "'{}'.format(s)", "format(x, '')", "format(x, '.2f')", "'{:.2f}'.format(g.sum() * 2)",
    "format(T.nn.Parameter(T.tensor(1.0)), '.1f')",
    # spmm
    "T.spmm(T.ones(2, 3), T.ones(3, 2))", "T.spmm(T.eye(3).to_sparse(), T.ones(3, 2))",
    "T.spmm(T.ones(2, 3), T.ones(2, 2))",
    # schedulers' state_dict keys (checkpoints carry them between the libraries)
    "sorted(L.StepLR(o, 2).state_dict())", "sorted(L.LambdaLR(o, lambda e: 1.0).state_dict())",
    "sorted(L.OneCycleLR(o, 0.5, total_steps=10).state_dict())",
    "sorted(L.SequentialLR(o, [L.LinearLR(o), L.StepLR(o, 2)], [2]).state_dict())",
    "sorted(L.ReduceLROnPlateau(o).state_dict())",
    # torch.version
    "[T.version.hip, T.version.debug, T.version.__version__ == T.__version__]",
    # device probes and old names scripts use
    "[T.backends.mps.is_available(), T.backends.mps.is_built()]",
    "__import__(T.__name__ + '.utils.model_zoo', fromlist=['x']).load_url is T.hub.load_state_dict_from_url",
]


def describe(r):
    if isinstance(r, str):
        return ["str", r.replace("torchlike.", "torch.")]
    if hasattr(r, "numpy") and hasattr(r, "dtype"):
        a = r.detach()
        if getattr(a, "is_sparse", False):
            a = a.to_dense()
        return ["tensor", str(r.dtype).split(".")[-1], list(r.shape),
                a.tolist() if r.numel() else None]
    if type(r).__name__ == "dtype":
        return ["dtype", str(r).split(".")[-1]]
    if isinstance(r, tuple):
        return ["tuple", list(r)]
    return [type(r).__name__, r]


def main():
    record(CALLS, inputs, describe, "training_programs", messages=True)


if __name__ == "__main__":
    main()
