"""Record PyTorch's answers to bools inside int-list arguments, for
tests/test_int_list_bools.py.

PyTorch's binding of an int list (sizes, shapes, dims, repeats, pads, a
pool's kernel_size/stride/padding/dilation ...) checks the type of the
first item only and reads the later ones as Python ints: a bool after the
first is 0 or 1 (zeros((2, True)) is (2, 1)), a bool first or standing
alone is a TypeError.  The pools, unfold/fold and interpolate reach that
binding through Python code of their own (F.unfold pairs its arguments
first, adaptive pooling fills in None sizes, interpolate checks a size's
types), so each is called here too.

Run with an interpreter that has PyTorch:
    python scripts/golden_int_list_bools.py
writes tests/golden/int_list_bools.json: [call, outcome] pairs, the call a
Python expression over T (the library), F (T.nn.functional), X (a (2, 3, 4)
float32 tensor of exact values) and X4 (X with a batch dim)."""
from golden_calls import record

CALLS = [
    # creation: sizes given as a sequence, spread, by keyword
    "T.zeros((2, True))", "T.zeros((True, 2))", "T.zeros(2, True)", "T.zeros(True, 2)",
    "T.zeros(True)", "T.zeros((True,))", "T.zeros([True])", "T.zeros((2, False))",
    "T.zeros((2, True, True))", "T.zeros((2, 3, True))", "T.zeros(size=(2, True))",
    "T.zeros((2, True), dtype=T.int32)", "T.ones(2, True)", "T.empty((3, True)).shape",
    "T.full((2, True), 1.5)", "T.full((True, 2), 1.5)", "T.randn(2, True).shape",
    "T.rand((True, 2))", "T.randint(5, (2, True)).shape", "X.new_zeros((2, True))",
    "X.new_zeros((True, 2))", "X.new_ones(2, True)", "X.new_empty((2, True)).shape",
    "T.empty_strided((2, True), (1, True)).shape", "T.empty_strided((2, 2), (True, 2))",
    "T.empty_strided((True, 2), (1, 1))", "T.Tensor(2, True).shape", "T.Tensor(True, 2)",
    "T.zeros((2, 1.5))", "T.zeros((2, None))", "T.zeros((2, '3'))",
    "T.zeros((2, True), requires_grad=True)",
    # shapes and dims
    "X.reshape(3, True, 8)", "X.reshape(True, 24)", "X.reshape((3, True, 8))",
    "X.reshape(3, 8, True)", "X.reshape(True)", "T.reshape(X, (3, True, 8))",
    "T.reshape(X, (True, 24))", "X.view(3, True, 8)", "X.view(True, 24)", "X.view((3, True, 8))",
    "X.view(-1, True)", "X.permute(2, True, 0)", "X.permute(True, 0, 2)",
    "X.permute((2, True, 0))", "T.permute(X, (2, True, 0))", "T.permute(X, (True, 0, 2))",
    "X.permute(0, False, 2)", "X.expand(2, 3, 4)", "T.ones(1, 1).expand(3, True)",
    "T.ones(1, 1).expand(True, 3)", "T.ones(1, 1).expand((3, True))", "X.expand(True, 2, 3, 4)",
    "T.ones(2).repeat(2, True)", "T.ones(2).repeat(True, 2)", "T.ones(2).repeat((2, True))",
    "X.flip((0, True))", "X.flip((True, 0))", "X.squeeze((0, True))", "T.tile(X, (2, True))",
    "T.tile(X, (True, 2))", "X.unflatten(1, (3, True))", "X.unflatten(1, (True, 3))",
    "X.movedim((0, True), (1, 2))", "X.roll((1, True), (0, 1))", "X.roll((True, 1), (0, 1))",
    "T.broadcast_to(X, (True, 2, 3, 4))", "T.split(X, [1, True])", "T.split(X, [True, 1])",
    "T.as_strided(X, (2, True), (1, True))", "X.transpose(0, True)", "X.unsqueeze(True)",
    # reductions over dim lists
    "X.sum((0, True))", "X.sum((True, 0))", "X.sum(dim=(0, True))", "X.sum(True)",
    "T.sum(X, (0, True))", "X.sum([0, True])", "X.sum(dim=[0, True], keepdim=True)",
    "X.sum((0, 1, True))", "X.mean((0, True))", "X.amax((0, True))", "X.amax((True, 0))",
    "X.std((0, True))", "X.var(dim=(0, True))", "T.linalg.vector_norm(X, dim=(0, True))",
    # pads
    "F.pad(X, (1, True))", "F.pad(X, (True, 1))", "F.pad(X, [1, True])",
    "F.pad(X, (1, True), mode='reflect')",
    # pooling: kernel_size, stride, padding, dilation
    "F.max_pool2d(X, True)", "F.max_pool2d(X, 2)", "F.max_pool2d(X, (2, True))",
    "F.max_pool2d(X, (True, 2))", "F.max_pool2d(X, [2, True])", "F.max_pool2d(X, 2, True)",
    "F.max_pool2d(X, 2, stride=True)", "F.max_pool2d(X, 2, 1, True)",
    "F.max_pool2d(X, 2, 1, 0, True)", "F.max_pool2d(X, 2, (True, 1))",
    "F.max_pool2d(X, (2,), (True,))", "F.max_pool2d(X, 2, 2, False)",
    "F.max_pool2d(X, 2, padding=False)", "F.max_pool2d(X, kernel_size=True)",
    "F.max_pool2d(X, True, return_indices=True)", "F.max_pool2d_with_indices(X, True)",
    "F.max_pool2d(X, 2, None)", "F.max_pool2d(X, 2, ())", "F.max_pool2d(X, 2, 2, 0, 1, True)",
    "F.max_pool2d(X, 2.0)", "F.max_pool2d(X, (2, 2.0))", "F.max_pool2d(X, (2, None))",
    "F.max_pool2d(X, (None, 2))", "F.max_pool2d(X, 'ab')", "F.max_pool2d(X, None)",
    "F.max_pool2d(X, 2, padding=None)", "F.max_pool2d(X, 2, dilation=None)",
    "F.max_pool2d(X, range(2, 4))", "F.max_pool2d(X, T.Size([2, 2]))", "F.max_pool2d(X, 2, 2.0)",
    "F.max_pool2d(X, 2, (2, 1.5))", "F.max_pool2d(X, T.tensor(2))",
    "F.max_pool2d(X, T.tensor(True))", "F.max_pool2d(X, T.tensor([2]))",
    "F.max_pool2d(X, T.tensor([2, 2]))", "F.max_pool2d(X, T.tensor(2.0))",
    "F.max_pool2d(X, (T.tensor(2.0), 2))", "F.max_pool2d(X, (2, T.tensor(2.0)))",
    "F.max_pool2d(X, (T.tensor(True), 2))", "F.max_pool2d(X, (2, T.tensor(True)))",
    "F.max_pool2d(X, T.tensor(2), T.tensor(True))",
    "F.max_pool1d(X, True)", "F.max_pool1d(X, True, 1)", "F.max_pool1d(X, (True,))",
    "F.max_pool1d(X, (2,), True)", "F.max_pool1d(X, 2, 1, 0, True)",
    "F.max_pool1d_with_indices(X, True)", "F.max_pool3d(X4, True)", "F.max_pool3d(X4, 2, True)",
    "F.max_pool3d(X4, 2, 1, True)", "F.avg_pool2d(X, True)", "F.avg_pool2d(X, (2, True))",
    "F.avg_pool2d(X, 2, (1, True))", "F.avg_pool2d(X, 2, 2, False)", "F.avg_pool2d(X, 2, 2, True)",
    "F.avg_pool2d(X, 2, None, True)", "F.avg_pool1d(X, True)", "F.avg_pool1d(X, 2, True)",
    "F.avg_pool1d(X, 2, 1, True)", "F.avg_pool1d(X, (2, True))", "F.avg_pool1d(X, [True])",
    "F.avg_pool3d(X4, True)", "F.avg_pool3d(X4, 2, 2, (True, 0, 0))",
    "F.avg_pool3d(X4, (2, 2, 2), 2, (0, True, 0))", "F.lp_pool2d(X, 2, True)",
    "F.lp_pool2d(X, 2, (True, 2))", "F.lp_pool2d(X, 2, (2, True))", "F.lp_pool2d(X, 2, 2, True)",
    "F.lp_pool1d(X, 2, True)", "F.lp_pool1d(X, 2, (True,))", "F.lp_pool1d(X, 2, 2, True)",
    "F.lp_pool3d(X4, 2, True)", "T.nn.MaxPool2d(True)(X)", "T.nn.MaxPool2d(2, True)(X)",
    "T.nn.AvgPool2d(True)(X)", "T.nn.LPPool2d(2, True)(X)", "T.max_pool2d(X, True)",
    "T.max_pool2d(X, (2, True))", "T.avg_pool1d(X, True)",
    # adaptive and fractional pooling, unpooling
    "F.adaptive_avg_pool2d(X, True)", "F.adaptive_max_pool2d(X, True)",
    "F.adaptive_avg_pool2d(X, (2, True))", "F.adaptive_avg_pool2d(X, (True, 2))",
    "F.adaptive_avg_pool2d(X, (None, True))", "F.adaptive_avg_pool2d(X, (True, None))",
    "F.adaptive_max_pool2d(X, (True, 2))", "F.adaptive_avg_pool2d(X, (2, 2.0))",
    "F.adaptive_avg_pool2d(X, 2.0)", "F.adaptive_avg_pool3d(X4, True)",
    "F.adaptive_max_pool3d(X4, (2, True, 2))", "F.adaptive_avg_pool1d(X, True)",
    "F.adaptive_max_pool1d(X, True)", "F.adaptive_avg_pool1d(X, (True,))",
    "F.adaptive_avg_pool1d(X, T.tensor(2))", "T.nn.AdaptiveAvgPool2d(True)(X)",
    "T.adaptive_avg_pool1d(X, True)",
    "F.fractional_max_pool2d(X4, True, output_size=1)",
    "F.fractional_max_pool2d(X4, 2, output_size=True)",
    "F.fractional_max_pool2d(X4, 2, output_size=(True, 2))",
    "F.fractional_max_pool2d(X4, 2, output_size=(2, True)).shape",
    "F.fractional_max_pool2d(X4, (2, True), output_size=(2, 2)).shape",
    "F.fractional_max_pool2d(X4, (True, 2), output_size=(2, 2))",
    "F.max_unpool2d(X, T.zeros(2, 3, 4, dtype=T.long), True)",
    # unfold, fold, convolution, interpolate
    "F.unfold(X4, True)", "F.unfold(X4, (2, True))", "F.unfold(X4, 2, True)",
    "F.unfold(X4, 2, 1, True)", "F.unfold(X4, 2, 1, 0, True)", "F.unfold(X4, 2.0)",
    "F.unfold(X4, (2, 2.0))", "F.unfold(X4, T.tensor(2))", "T.nn.Unfold(True)(X4)",
    "F.fold(T.ones(1, 4, 4), True, 2)", "F.fold(T.ones(1, 4, 4), (3, 3), True)",
    "F.fold(T.ones(1, 4, 4), (3, True), 1)", "F.fold(T.ones(1, 4, 4), (3, 3), 2.0)",
    "F.conv2d(X4, T.ones(1, 2, 1, 1), None, True)",
    "F.conv2d(X4, T.ones(1, 2, 1, 1), None, 1, True)",
    "F.conv2d(X4, T.ones(1, 2, 1, 1), None, (1, True))",
    "F.interpolate(X4, size=(2, True))", "F.interpolate(X4, size=(True, 2))",
    "F.interpolate(X4, size=True)", "F.interpolate(X, size=True)", "F.interpolate(X, size=(True,))",
    "F.interpolate(X4, size=(True, 2), mode='bilinear')", "F.interpolate(X4, scale_factor=True)",
    "F.interpolate(X4, size=2.0)", "F.interpolate(X4, size=(2.0, 2))",
]


def inputs(T):
    # exact binary values, so sums and pools are exact in any order
    x = (T.arange(24, dtype=T.float32) * 0.5 - 3.0).reshape(2, 3, 4)
    return {"F": T.nn.functional, "X": x, "X4": x[None]}


def describe(r):
    """A JSON form of a call's result, for PyTorch's and torchlike's alike."""
    if type(r).__name__ == "Size":
        return ["size", [int(x) for x in r]]
    if isinstance(r, (tuple, list)):
        return ["tuple", [describe(x) for x in r]]
    a = r.detach().cpu().numpy()
    return ["tensor", str(r.dtype).split(".")[-1], list(a.shape),
            [round(float(v), 4) for v in a.reshape(-1)]]  # std, norms: 4 places


def main():
    record(CALLS, lambda T: {"T": T, **inputs(T)}, describe, "int_list_bools", messages=True)


if __name__ == "__main__":
    main()
