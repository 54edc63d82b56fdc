"""Record PyTorch's answers for the functional forms of
torchlike/_functional_extra.py (segment_reduce, embedding_bag,
constant_pad_nd, frobenius_norm, nuclear_norm, empty_permuted, the RNN cell
functions, grid_sampler_2d/3d, native_channel_shuffle, binomial's
deterministic cases and checks) and of torchlike/_tensor_storage.py
(Tensor.set_, resize, resize_as, storage, the legacy storage classes; not
set_ past a storage's end, where PyTorch grows the storage and we raise,
nor resize((2, 3)), which PyTorch's Resize rejects and we take, nor
a resize to another element count, NumPy's in-place resize here), for
tests/test_functional_extra.py and tests/test_tensor_storage.py:
values at full precision, strides, and the messages of bad calls.

Run with an interpreter that has PyTorch:
    python scripts/golden_functional_extra.py
writes tests/golden/functional_extra.json ([call, outcome] pairs over T, the library)."""
import functools

from golden_calls import det as golden_det, record
from golden_signal_windows import describe  # noqa: F401  (full-precision values)


def inputs(T):
    det = functools.partial(golden_det, T)
    return {
        "T": T, "det": det,
        "d": T.arange(12.0).reshape(6, 2), "L": T.tensor([2, 0, 3, 1]),
        "O": T.tensor([0, 2, 2, 5, 6]), "L2": T.tensor([[2, 0, 3, 1], [1, 1, 1, 3]]),
        "w": T.tensor([[0.5, 1.0], [2.0, -1.0], [3.0, 0.25], [-2.0, 4.0], [1.5, 1.5],
                       [0.0, -3.0]]),
        "i": T.tensor([1, 2, 4, 5, 4, 3, 2, 0]), "o": T.tensor([0, 2, 2, 5]),
        "x": T.arange(6.0).reshape(2, 3),
        "img": det(2, 3, 4, 5), "vol": det(1, 2, 3, 4, 5),
        "grid": det(2, 3, 2, 2, s=0.7) * 1.2, "grid3": det(1, 2, 3, 2, 3, s=0.9) * 1.1,
        "xin": det(3, 4, s=0.5), "h": det(3, 5, s=0.25), "c": det(3, 5, s=0.15),
        "wi1": det(5, 4, s=0.11), "wh1": det(5, 5, s=0.13), "bi1": det(5, s=0.7),
        "bh1": det(5, s=0.9),
        "wi4": det(20, 4, s=0.11), "wh4": det(20, 5, s=0.13), "bi4": det(20, s=0.7),
        "bh4": det(20, s=0.9),
        "wi3": det(15, 4, s=0.11), "wh3": det(15, 5, s=0.13), "bi3": det(15, s=0.7),
        "bh3": det(15, s=0.9),
    }


CALLS = [
    # segment_reduce
    *[f"T.segment_reduce(d, '{r}', lengths=L)" for r in ("sum", "max", "min", "mean", "prod",
                                                         "amax", "amin")],
    "T.segment_reduce(d, 'max', lengths=L, initial=-1)", "T.segment_reduce(d, 'sum', lengths=L, initial=2)",
    "T.segment_reduce(d, 'prod', lengths=L, initial=2)", "T.segment_reduce(d, 'mean', lengths=L, initial=5)",
    "T.segment_reduce(d, 'min', lengths=L, initial=3)",
    "T.segment_reduce(d, 'sum', offsets=O)", "T.segment_reduce(d, 'mean', offsets=O)",
    "T.segment_reduce(d.T, 'sum', lengths=L2, axis=1)", "T.segment_reduce(d.T, 'max', lengths=L2, axis=-1)",
    "T.segment_reduce(d.double(), 'mean', lengths=L)", "T.segment_reduce(d, 'sum', lengths=L.int())",
    "T.segment_reduce(d, 'sum', lengths=T.tensor([6]), axis=-2)",
    "T.segment_reduce(d.reshape(6, 1, 2), 'sum', lengths=L)",
    "T.segment_reduce(d, 'sum', lengths=T.tensor([2, 0, 3]))", "T.segment_reduce(d, 'avg', lengths=L)",
    "T.segment_reduce(d, 'sum')", "T.segment_reduce(d, 'sum', lengths=L.float())",
    "T.segment_reduce(d, 'sum', lengths=T.tensor([2, -1, 4, 1]))",
    "T.segment_reduce(d, 'sum', lengths=L, axis=1)", "T.segment_reduce(d, 'sum', lengths=L, indices=L)",
    "T.segment_reduce(d.int(), 'sum', lengths=L)",
    # embedding_bag (mode 0's auxiliary results are PyTorch's CPU fast path: output only)
    "T.embedding_bag(w, i, o, False, 0)[0]", "T.embedding_bag(w, i, o, False, 1)",
    "T.embedding_bag(w, i, o, False, 2)", "T.embedding_bag(w, i, T.tensor([0, 2, 2, 5, 8]), False, 1, False, None, True)",
    "T.embedding_bag(w, i, T.tensor([0, 2, 2, 5, 8]), False, 2, False, None, True)",
    "T.embedding_bag(w, i, o, False, 0, False, T.linspace(0.5, 2.0, 8))[0]",
    "T.embedding_bag(w, i, o, False, 1, False, None, False, 4)",
    "T.embedding_bag(w, i, o, False, 1, False, T.ones(8))",
    # constant_pad_nd
    "T.constant_pad_nd(x, (1, 2))", "T.constant_pad_nd(x, (1, -1), 2.5)", "T.constant_pad_nd(x, (0, 0, 2, 1), -1)",
    "T.constant_pad_nd(x, [])", "T.constant_pad_nd(x.int(), (1, 1), 7)", "T.constant_pad_nd(x, (1,))",
    "T.constant_pad_nd(x, (1, 1, 1, 1, 1, 1))", "T.constant_pad_nd(x, (-2, -2))",
    # norms
    "T.frobenius_norm(x, (0, 1))", "T.frobenius_norm(x, 1, True)", "T.frobenius_norm(x, [0])",
    "T.frobenius_norm(x.double(), (1, 0))", "T.frobenius_norm(x, (0, 1, 0))", "T.frobenius_norm(x.int(), 0)",
    "T.nuclear_norm(x)", "T.nuclear_norm(x, True)", "T.nuclear_norm(x, (0, 1))", "T.nuclear_norm(img, (1, 3))",
    "T.nuclear_norm(img, (0, 2), True)", "T.nuclear_norm(x[0])", "T.nuclear_norm(x.int())",
    # empty_permuted
    "T.empty_permuted((2, 3, 4), (0, 2, 1)).stride()", "T.empty_permuted((2, 3, 4, 5), (0, 2, 3, 1)).stride()",
    "T.empty_permuted((2, 3), (1, 0)).shape", "T.empty_permuted((2, 3), (0, 1), dtype=T.int32).dtype",
    "T.empty_permuted((2, 3, 4), (0, 2))", "T.empty_permuted((2, 3, 4), (0, 2, 2))",
    # RNN cells
    "T.rnn_tanh_cell(xin, h, wi1, wh1, bi1, bh1)", "T.rnn_tanh_cell(xin, h, wi1, wh1)",
    "T.rnn_relu_cell(xin, h, wi1, wh1, bi1, bh1)", "T.lstm_cell(xin, (h, c), wi4, wh4, bi4, bh4)",
    "T.lstm_cell(xin, [h, c], wi4, wh4)", "T.gru_cell(xin, h, wi3, wh3, bi3, bh3)",
    "T.gru_cell(xin, h, wi3, wh3)", "T.rnn_tanh_cell(xin[0], h[0], wi1, wh1)",
    "T.rnn_tanh_cell(xin, h, wi1[:, :3], wh1)", "T.lstm_cell(xin, h, wi4, wh4)",
    "T.gru_cell(xin, h[:2], wi3, wh3)",
    # grid samplers
    *[f"T.grid_sampler_2d(img, grid, {m}, {p}, {a})" for m in (0, 1, 2) for p in (0, 1, 2)
      for a in (False, True)],
    *[f"T.grid_sampler_3d(vol, grid3, {m}, {p}, {a})" for m in (0, 1) for p in (0, 1, 2)
      for a in (False, True)],
    "T.grid_sampler_2d(img, grid[..., :1], 0, 0, False)", "T.grid_sampler_2d(vol, grid3, 0, 0, False)",
    "T.grid_sampler_3d(img, grid, 0, 0, False)",
    # channel shuffle
    "T.native_channel_shuffle(T.arange(16.0).reshape(1, 4, 2, 2), 2)",
    "T.native_channel_shuffle(T.arange(12.0).reshape(2, 6, 1), 3)",
    "T.native_channel_shuffle(T.arange(8.0).reshape(1, 4, 2), 3)",
    "T.native_channel_shuffle(T.arange(8.0).reshape(4, 2), 2)",
    "T.native_channel_shuffle(T.arange(8.0).reshape(1, 4, 2), 0)",
    "T.nn.functional.native_channel_shuffle(T.arange(12.0).reshape(2, 6, 1), 3)",
    # conv_tbc: (time, batch, channel) layout; pad crops when negative
    *[f"T.conv_tbc(det(7, 2, 3), det(3, 3, 4, s=0.7), det(4, s=1.1), {p})" for p in (0, 1, 2, -1)],
    "T.nn.functional.conv_tbc(det(1, 1, 1), det(1, 1, 1), det(1))",
    "T.conv_tbc(det(0, 2, 3), det(1, 3, 4), det(4))",
    "T.conv_tbc(det(2, 2, 3), det(5, 3, 4), det(4))",
    "T.conv_tbc(det(7, 3), det(3, 3, 4), det(4))",
    "T.conv_tbc(det(7, 2, 3), det(3, 4), det(4))",
    "T.conv_tbc(det(7, 2, 3), det(3, 3, 4), det(2, 2))",
    "T.conv_tbc(det(7, 2, 3), det(3, 3, 4), det(3))",
    "T.conv_tbc(det(7, 2, 3), det(3, 5, 4), det(4))",
    # binomial: the cases without randomness, and the checks
    "T.binomial(T.tensor([5.0, 10.0, 0.0, -3.0, 7.0]), T.tensor([0.0, 1.0, 0.5, 0.5, 1.5]))",
    "T.binomial(T.tensor([5.0, 4.0]), T.tensor([float('nan'), 0.0]))",
    "T.binomial(T.tensor([5.0, 4.0], dtype=T.float64), T.tensor([1.0, 0.0], dtype=T.float64))",
    "T.binomial(T.tensor([3.0, 2.0]), T.tensor(1.0)).shape",
    "T.binomial(T.tensor([5, 4]), T.tensor([0.5, 0.5]))",
    "T.binomial(T.tensor([5.0, 4.0]), T.tensor([0.5, 0.5], dtype=T.float64))",
    "T.binomial(T.tensor([5.0]).half(), T.tensor([0.5]).half())",
    # Tensor.set_ / resize / resize_as / storage (torchlike/_tensor_storage.py)
    "T.zeros(3).set_(x[:, 1:])", "T.zeros(3).set_(x[:, 1:]).stride()", "T.zeros(3).set_(x.double())",
    "T.zeros(3).set_(T.arange(6.0).untyped_storage())",
    "T.zeros(3).set_(T.arange(6.0).untyped_storage(), 1, (2, 2))",
    "T.zeros(3).set_(T.arange(6.0).untyped_storage(), 1, (2, 2), (1, 2))",
    "T.zeros(3).set_(T.arange(6.0).untyped_storage(), 0, (2, 2), (1,))",
    "T.zeros(3).set_()", "T.zeros(2, requires_grad=True).set_(x)",
    "T.arange(6.0).resize(3, 2)",
    "T.zeros(3).resize_as(T.zeros(3, 1))", "T.zeros(3).resize_as(x)",
    "T.arange(6.0)[2:].storage().tolist()", "T.arange(6.0).storage().size()",
    "T.arange(6.0).storage()[2]", "isinstance(T.arange(6.0).storage(), T.FloatStorage)",
    "isinstance(T.arange(6.0).storage(), T.DoubleStorage)", "T.DoubleStorage(4).size()",
    "T.LongStorage([3, 1, 2]).tolist()",
    # Tensor.is_set_to / storage_type and the predicates of devices torchlike lacks
    "x.is_set_to(x)", "x.is_set_to(x.view(x.shape))", "x.is_set_to(x.t())",
    "x.is_set_to(x.clone())", "x[:, 1:].is_set_to(x[:, 1:])", "x[:, 1:].is_set_to(x[:, :2])",
    "x.storage_type() is T.FloatStorage", "T.ones(2, dtype=T.int64).storage_type() is T.LongStorage",
    "T.ones(2, dtype=T.bfloat16).storage_type() is T.BFloat16Storage",
    "[getattr(x, n) for n in ('is_xpu', 'is_mps', 'is_meta', 'is_ipu', 'is_vulkan', 'is_xla', "
    "'is_mtia', 'is_maia', 'is_mkldnn', 'is_nested', 'is_quantized')]",
    "x.is_distributed()", "x.volatile",
]


def main():
    record(CALLS, inputs, describe, "functional_extra", messages=True)


if __name__ == "__main__":
    main()
