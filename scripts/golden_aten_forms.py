"""Record PyTorch's answers for torchlike/_fake_quantize.py
(fake_quantize_per_tensor_affine, fake_quantize_per_channel_affine: values,
dtypes, the straight-through gradients, the checks) and
torchlike/_aten_forms.py (norm_except_dim, native_dropout's deterministic
cases, max_pool1d_with_indices, embedding_renorm_, hash_tensor, ormqr) and
torchlike/nn/grad.py (conv*_input, conv*_weight), for
tests/test_aten_forms.py: values at full precision and the messages of bad
calls.

Run with an interpreter that has PyTorch:
    python scripts/golden_aten_forms.py
writes tests/golden/aten_forms.json ([call, outcome] pairs over T, the library)."""
import functools

from golden_calls import det as golden_det, record
from golden_signal_windows import describe  # noqa: F401  (full-precision values)


def inputs(T):
    det = functools.partial(golden_det, T)
    # values on and between the grid's points, ties of the rounding, the ends
    grid = T.tensor([-3.0, -1.25, -0.75, -0.25, 0.0, 0.25, 0.3, 0.75, 1.25, 1.6, 2.5, 3.75, 9.0])
    odd = T.tensor([float("nan"), float("inf"), -float("inf"), 1e20, -1e20, 0.3])
    # well-conditioned: every Householder reflector is determined
    qr = T.geqrf(det(4, 3, s=0.7) + 2 * T.eye(4, 3))
    qr_wide = T.geqrf(det(3, 5, s=0.9) + 2 * T.eye(3, 5))
    d64 = functools.partial(golden_det, T, dtype=T.float64)  # float64 inputs made in float64
    qr_c = T.geqrf(T.complex(d64(4, 3, s=0.4), d64(4, 3, s=0.8)) + 2 * T.eye(4, 3))
    qr_b = T.geqrf(d64(2, 4, 3, s=0.35) + 2 * T.eye(4, 3))
    # exact inputs for the bit hashes (det's sin may differ in the last bit)
    h = T.arange(60.0).reshape(3, 4, 5) / 7

    def grad_of(fn, x):
        x = x.detach().clone().requires_grad_()
        fn(x).sum().backward()
        return x.grad
    return {"T": T, "det": det, "d64": d64, "grid": grid, "odd": odd, "grad_of": grad_of,
            "m": det(3, 4, s=0.9) * 2, "v": T.arange(12.0).reshape(3, 4), "h": h,
            "qr": qr, "qr_wide": qr_wide, "qr_c": qr_c, "qr_b": qr_b,
            "i32": lambda *v: T.tensor(v, dtype=T.int32), "G": T.nn.grad}


FQ = "T.fake_quantize_per_tensor_affine"
FC = "T.fake_quantize_per_channel_affine"
CALLS = [
    # per tensor: dtypes, grids, tensor qparams
    f"{FQ}(grid, 0.5, 3, 0, 7)", f"{FQ}(grid, 0.3, 2, -128, 127)", f"{FQ}(grid, 0.25, 0, 0, 255)",
    f"{FQ}(grid, 1.0, 0, -4, 3)", f"{FQ}(grid.double(), 0.1, 5, 0, 15)",
    f"{FQ}(grid.half(), 0.5, 3, 0, 7)", f"{FQ}(grid.bfloat16(), 0.5, 3, 0, 7)",
    f"{FQ}(grid.double() * 1e-9, 3e-10, 0, -128, 127)", f"{FQ}(det(2, 3, 4), 0.07, -3, -8, 7)",
    f"{FQ}(det(2, 3, 4).transpose(0, 2), 0.07, -3, -8, 7)", f"{FQ}(T.zeros(0, 3), 0.5, 0, 0, 7)",
    f"{FQ}(T.tensor(0.8), 0.5, 1, 0, 7)", f"{FQ}(odd, 0.5, 3, 0, 7)", f"{FQ}(grid, 0.5, 3, 5, 5)",
    f"{FQ}(grid, T.tensor(0.5), T.tensor(3, dtype=T.int32), 0, 7)",
    f"{FQ}(grid, T.tensor([0.5]), T.tensor([3.0]), 0, 7)",
    f"{FQ}(grid, T.tensor(0.3, dtype=T.float64), T.tensor(2), -128, 127)",
    f"grad_of(lambda x: {FQ}(x, 0.5, 3, 0, 7), grid)",
    f"grad_of(lambda x: {FQ}(x, T.tensor(0.5), T.tensor(3), 0, 7), grid)",
    f"grad_of(lambda x: {FQ}(x, 0.5, 3, 0, 7), odd)",
    f"{FQ}(grid.requires_grad_(), 0.5, 3, 0, 7).grad_fn.name()",
    f"{FQ}(grid.requires_grad_(), T.tensor(0.5), T.tensor(3), 0, 7).grad_fn.name()",
    f"{FQ}(grid, 0.5, 3, 7, 0)", f"{FQ}(grid, 0.5, 9, 0, 7)", f"{FQ}(grid, 0.5, -1, 0, 7)",
    f"{FQ}(grid.int(), 0.5, 3, 0, 7)", f"{FQ}(grid, T.tensor([0.5, 0.2]), T.tensor([3, 3]), 0, 7)",
    # per channel
    f"{FC}(m, T.tensor([0.1, 0.2, 0.3]), i32(0, 1, 2), 0, -8, 7)",
    f"{FC}(m, T.tensor([0.1, 0.2, 0.3, 0.4]), i32(0, 1, 2, -1), 1, -8, 7)",
    f"{FC}(m, T.tensor([0.1, 0.2, 0.3, 0.4]), i32(0, 1, 2, -1), -1, -8, 7)",
    f"{FC}(m, T.tensor([0.1, 0.2, 0.3]), T.tensor([0.4, 1.6, -0.5]), 0, -8, 7)",
    f"{FC}(m, T.tensor([0.1, 0.2, 0.3]), T.tensor([0.5, -0.5, 1.5]), 0, -8, 7)",
    f"{FC}(m, T.tensor([0.1, 0.2, 0.3]), T.tensor([0.5, -0.5, 1.5]).half(), 0, -8, 7)",
    f"{FC}(m.double(), T.tensor([0.1, 0.2, 0.3]), i32(0, 1, 2), 0, -8, 7)",
    f"{FC}(m.half(), T.tensor([0.1, 0.2, 0.3]), i32(0, 1, 2), 0, -8, 7)",
    f"{FC}(det(2, 3, 4).permute(2, 0, 1), T.tensor([0.1, 0.05, 0.2, 0.3]), i32(0, 1, 2, 3), 0, 0, 15)",
    f"grad_of(lambda x: {FC}(x, T.tensor([0.1, 0.2, 0.3]), i32(0, 1, 2), 0, -2, 2), m)",
    f"grad_of(lambda x: {FC}(x, T.tensor([0.1, 0.2, 0.3]), T.tensor([0.4, 0.6, -0.5]), 0, -2, 2), m)",
    f"{FC}(m.requires_grad_(), T.tensor([0.1, 0.2, 0.3]), i32(0, 1, 2), 0, -8, 7).grad_fn.name()",
    f"{FC}(m, T.tensor([0.1, 0.2, 0.3]).double(), i32(0, 1, 2), 0, -8, 7)",
    f"{FC}(m, T.tensor([0.1, 0.2, 0.3]), T.tensor([0, 1, 2]), 0, -8, 7)",
    f"{FC}(m, T.tensor([0.1, 0.2, 0.3]), i32(0, 1, 2), 1, -8, 7)",
    f"{FC}(m, T.tensor([0.1, 0.2, 0.3]), i32(0, 1, 9), 0, -8, 7)",
    f"{FC}(m, T.tensor([0.1, 0.2, 0.3]), i32(0, 1, 2), 2, -8, 7)",
    f"{FC}(m, T.tensor([[0.1, 0.2, 0.3]]), i32(0, 1, 2), 0, -8, 7)",
    f"{FC}(m, T.tensor([0.1, 0.2, 0.3]), i32(0, 1), 0, -8, 7)",
    f"{FC}(m, T.tensor([0.1, 0.2, 0.3]), i32(0, 1, 2), 0, 7, -8)",
    f"{FC}(m.int(), T.tensor([0.1, 0.2, 0.3]), i32(0, 1, 2), 0, -8, 7)",
    # norm_except_dim
    "T.norm_except_dim(v, 2, 0)", "T.norm_except_dim(v, 2, 1)", "T.norm_except_dim(v, 2, -1)",
    "T.norm_except_dim(v, 1, 0)", "T.norm_except_dim(v, 3, 1)", "T.norm_except_dim(v)",
    "T.norm_except_dim(v.reshape(3, 2, 2), 2, 1)", "T.norm_except_dim(v.double(), 2, 0)",
    "T.norm_except_dim(v[0], 2, 0)", "T.norm_except_dim(v, 2, 2)",
    # native_dropout: the cases without randomness, and the checks
    "T.native_dropout(v, 0.0, True)", "T.native_dropout(v, 0.3, False)", "T.native_dropout(v, 1.0, True)",
    "T.native_dropout(v.double(), 0.0, None)", "T.native_dropout(v, 1.5, True)",
    "T.native_dropout(v.int(), 0.5, True)",
    # max_pool1d_with_indices
    "T.max_pool1d_with_indices(v[None], 2)", "T.max_pool1d_with_indices(v, 3, 1, 1, 1, True)",
    "T.max_pool1d_with_indices(det(2, 3, 9), 3, 2, 1, 2)", "T.max_pool1d_with_indices(det(2, 3, 9), 2, (), 0, 1, True)",
    # embedding_renorm_
    "T.embedding_renorm_(v.clone(), T.tensor([0, 2, 2]), 5.0, 2.0)",
    "T.embedding_renorm_(v.clone(), T.tensor([1]), 1.0, 1.0)",
    "T.embedding_renorm_(v.clone(), T.tensor([[1, 0], [2, 2]]), 9.0, 3.0)",
    "T.embedding_renorm_(v.double(), T.tensor([0, 1, 2]), 100.0, 2.0)",
    # hash_tensor
    "T.hash_tensor(T.tensor([1.0, 2.0]))", "T.hash_tensor(T.tensor([1, -2]))",
    "T.hash_tensor(T.tensor([True, False, True]))", "T.hash_tensor(T.tensor([[1.5, 2.0], [3.0, 4.0]]), 1)",
    "T.hash_tensor(T.tensor([[1.5, 2.0], [3.0, 4.0]]), (0,), keepdim=True)",
    "T.hash_tensor(h, (0, 2))", "T.hash_tensor(h, [2, 0], keepdim=True)",
    "T.hash_tensor(h.reshape(6, 10).T)", "T.hash_tensor(h[0, 0].half())", "T.hash_tensor(T.tensor(2.5))",
    "T.hash_tensor(h.reshape(12, 5), -2)", "T.hash_tensor((h * 7).long(), 1)",
    "T.hash_tensor(T.tensor([1, 2], dtype=T.uint8))", "T.hash_tensor(T.tensor([-1, 5], dtype=T.int8))",
    "T.hash_tensor(T.zeros(0, 3), 0)", "T.hash_tensor(T.zeros(3, 0), 1)",
    "T.hash_tensor(T.tensor([1 + 2j]))", "T.hash_tensor(T.zeros(0))",
    "T.hash_tensor(T.tensor([255], dtype=T.uint64))", "T.hash_tensor(T.tensor([1.0]), mode=1)",
    "T.hash_tensor(det(2, 3), 2)",
    # ormqr
    "T.ormqr(qr[0], qr[1], det(4, 2, s=0.5))", "T.ormqr(qr[0], qr[1], det(4, 2, s=0.5), transpose=True)",
    "T.ormqr(qr[0], qr[1], det(2, 4, s=0.5), left=False)",
    "T.ormqr(qr[0], qr[1], det(2, 4, s=0.5), left=False, transpose=True)",
    "T.ormqr(qr_wide[0], qr_wide[1], det(3, 3, s=0.2))", "T.ormqr(qr_wide[0], qr_wide[1], det(4, 3, s=0.2), left=False)",
    "T.ormqr(qr_c[0], qr_c[1], T.complex(d64(4, 2), d64(4, 2, s=0.6)), transpose=True)",
    "T.ormqr(qr_b[0], qr_b[1], d64(2, 4, 3, s=0.1))",
    "T.ormqr(qr[0], qr[1][:2], det(4, 2, s=0.5))", "qr[0].ormqr(qr[1], det(4, 2, s=0.5))",
    "T.ormqr(T.ones(3), T.ones(1), T.ones(3, 2))", "T.ormqr(T.ones(3, 2), T.ones(3), T.ones(3, 2))",
    "T.ormqr(T.ones(3, 2), T.ones(2), T.ones(3, 2).double())",
    "T.ormqr(T.ones(3, 2), T.ones(2).double(), T.ones(3, 2))",
    "T.ormqr(T.ones(3, 2), T.ones(2, 1), T.ones(3, 2))", "T.ormqr(T.ones(2, 3, 2), T.ones(2, 2), T.ones(3, 2))",
    "T.ormqr(T.ones(3, 2), T.ones(2), T.ones(4, 2))", "T.ormqr(T.ones(3, 2), T.ones(2), T.ones(2, 4), left=False)",
    "T.ormqr(T.ones(2, 3, 2), T.ones(3, 2), T.ones(2, 3, 2))",
    # nn.grad
    "G.conv1d_input((1, 2, 5), T.ones(3, 2, 2), T.ones(1, 3, 4))",
    "G.conv1d_weight(det(2, 2, 7), (3, 2, 3), det(2, 3, 3, s=0.2), stride=2)",
    "G.conv2d_input((1, 2, 5, 5), det(3, 2, 2, 2), det(1, 3, 2, 2), stride=2)",
    "G.conv2d_weight(det(1, 2, 4, 4), (3, 2, 2, 2), det(1, 3, 3, 3, s=0.2))",
    "G.conv2d_input((2, 4, 6, 5), det(4, 2, 3, 3), det(2, 4, 6, 5, s=0.2), padding=1, groups=2)",
    "G.conv2d_weight(det(2, 4, 6, 5), (4, 2, 3, 3), det(2, 4, 2, 1, s=0.2), dilation=2, groups=2)",
    "G.conv3d_input((1, 1, 3, 4, 4), det(2, 1, 2, 2, 2), det(1, 2, 2, 3, 3))",
    "G.conv3d_weight(det(1, 1, 3, 4, 4), (2, 1, 2, 2, 2), det(1, 2, 2, 3, 3), stride=(1, 2, 2), padding=(0, 1, 1))",
    "G.conv3d_weight(det(1, 1, 3, 4, 4), (2, 1, 2, 2, 2), det(1, 2, 2, 2, 2), stride=(1, 2, 2), padding=(0, 1, 1))",
    "G.conv2d_input((1, 2, 5, 5), det(3, 2, 2, 2), det(1, 3, 3, 2), stride=2)",
]


def main():
    record(CALLS, inputs, describe, "aten_forms", messages=True)


if __name__ == "__main__":
    main()
