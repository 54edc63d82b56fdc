"""Record PyTorch's answers for torchlike/_aten_rnn.py (lstm, gru, rnn_tanh,
rnn_relu in their input and packed forms: outputs, final states, gradients
and the checks) and for the parts of torchlike/_aten_batch_norm.py that
PyTorch runs on CPU (batch_norm_update_stats, _native_batch_norm_legit,
_native_batch_norm_legit_no_training), for tests/test_aten_rnn_forms.py.
The other batch-norm primitives are CUDA-only in PyTorch; the test checks
them against NumPy.

Run with an interpreter that has PyTorch:
    python scripts/golden_aten_rnn.py
writes tests/golden/aten_rnn.json ([call, outcome] pairs over T, the library)."""
import functools

from golden_calls import det as golden_det, record
from golden_signal_windows import describe  # noqa: F401  (full-precision values)

_GATES = {"LSTM": 4, "GRU": 3, "RNN": 1}


def inputs(T):
    d64 = functools.partial(golden_det, T, dtype=T.float64)

    def P(mode, I, H, layers=1, D=1, bias=True, proj=0):
        """Flat params in PyTorch's order, deterministic and small."""
        G, out, ps, k = _GATES[mode] * H, proj or H, [], 0
        for layer in range(layers):
            for _ in range(D):
                shapes = [(G, I if layer == 0 else D * out), (G, out)]
                shapes += [(G,), (G,)] if bias else []
                shapes += [(proj, H)] if proj else []
                for shape in shapes:
                    k += 1
                    ps.append(d64(*shape, s=0.37 + 0.11 * k) * 0.6)
        return ps

    def h(*shape, s=0.7):
        return d64(*shape, s=s) * 0.5

    def grads(fn, *leaves):
        """d(sum of sin of every output) / d(each leaf; a list of params
        counts as its tensors)."""
        flat, rebuilt = [], []
        for a in leaves:
            if isinstance(a, (list, tuple)):
                c = [t.detach().clone().requires_grad_() for t in a]
                flat += c
                rebuilt.append(c if isinstance(a, list) else tuple(c))
            else:
                c = a.detach().clone().requires_grad_()
                flat.append(c)
                rebuilt.append(c)
        loss = sum(o.sin().sum() for o in fn(*rebuilt))
        return tuple(T.autograd.grad(loss, flat))

    def bn_stats(fn, *args, dtype=T.float64):
        """fn(*args, running_mean, running_var, ...) and the running
        statistics (of dtype) after it."""
        rm, rv = (d64(3, s=0.2) * 0.1).to(dtype), (d64(3, s=0.4).abs() + 0.5).to(dtype)
        return tuple(fn(*args, rm, rv)) + (rm, rv)

    return {"T": T, "d64": d64, "P": P, "h": h, "grads": grads, "bn_stats": bn_stats,
            "x": d64(5, 2, 3, s=0.9), "xb": d64(2, 5, 3, s=0.9),
            "data": d64(8, 3, s=0.45), "bs": T.tensor([3, 2, 2, 1]),
            "xn": d64(4, 3, 5, s=0.8) * 2 + 0.3, "w": d64(3, s=1.3), "b": d64(3, s=0.6)}


L = "T.lstm"
CALLS = [
    # lstm: layers, directions, biases, projections, batch_first, train
    f"{L}(x, (h(1, 2, 4), h(1, 2, 4, s=0.2)), P('LSTM', 3, 4), True, 1, 0.0, False, False, False)",
    f"{L}(x, (h(4, 2, 2), h(4, 2, 4, s=0.2)), P('LSTM', 3, 4, 2, 2, True, 2), True, 2, 0.0, False, True, False)",
    f"{L}(x, [h(2, 2, 4), h(2, 2, 4, s=0.2)], P('LSTM', 3, 4, 2, 1, False), False, 2, 0.0, False, False, False)",
    f"{L}(xb, (h(2, 2, 4), h(2, 2, 4, s=0.2)), P('LSTM', 3, 4, 1, 2), True, 1, 0.0, True, True, True)",
    f"{L}(x, (h(1, 2, 2), h(1, 2, 4, s=0.2)), P('LSTM', 3, 4, 1, 1, False, 2), False, 1, 0.0, False, False, False)",
    # gru, rnn_tanh, rnn_relu
    "T.gru(x, h(1, 2, 4), P('GRU', 3, 4), True, 1, 0.0, False, False, False)",
    "T.gru(x, h(4, 2, 3), P('GRU', 3, 3, 2, 2), True, 2, 0.0, False, True, False)",
    "T.gru(xb, h(2, 2, 4), P('GRU', 3, 4, 2, 1, False), False, 2, 0.0, False, False, True)",
    "T.rnn_tanh(x, h(4, 2, 4), P('RNN', 3, 4, 2, 2), True, 2, 0.0, False, True, False)",
    "T.rnn_relu(x, h(4, 2, 4), P('RNN', 3, 4, 2, 2), True, 2, 0.0, False, True, False)",
    "T.rnn_relu(xb, h(1, 2, 4), P('RNN', 3, 4, 1, 1, False), False, 1, 0.0, False, False, True)",
    # train with dropout 0 (no randomness) and 1 (the upper layer sees zeros)
    "T.gru(x, h(2, 2, 4), P('GRU', 3, 4, 2), True, 2, 0.0, True, False, False)",
    "T.rnn_tanh(x, h(2, 2, 4), P('RNN', 3, 4, 2), True, 2, 1.0, True, False, False)",
    "T.gru(x, h(2, 2, 4), P('GRU', 3, 4, 2), True, 2, 0.7, False, False, False)",
    # packed: (data, batch_sizes, hx, ...), rows sorted by length
    f"{L}(data, bs, (h(1, 3, 4), h(1, 3, 4, s=0.2)), P('LSTM', 3, 4), True, 1, 0.0, False, False)",
    f"{L}(data, bs, (h(2, 3, 2), h(2, 3, 4, s=0.2)), P('LSTM', 3, 4, 1, 2, True, 2), True, 1, 0.0, False, True)",
    "T.gru(data, bs, h(4, 3, 4), P('GRU', 3, 4, 2, 2), True, 2, 0.0, False, True)",
    "T.rnn_tanh(data, bs, h(2, 3, 4), P('RNN', 3, 4, 2, 1, False), False, 2, 0.0, False, False)",
    "T.rnn_relu(data, bs, h(2, 3, 4), P('RNN', 3, 4, 1, 2), True, 1, 0.0, False, True)",
    "T.gru(data[:5], T.tensor([2, 2, 1]), h(1, 2, 4), P('GRU', 3, 4), True, 1, 0.0, False, False)",
    # keywords
    "T.gru(input=x, hx=h(1, 2, 4), params=P('GRU', 3, 4), has_biases=True, num_layers=1, "
    "dropout=0.0, train=False, bidirectional=False, batch_first=False)",
    "T.rnn_tanh(xb, h(1, 2, 4), P('RNN', 3, 4), True, 1, 0.0, False, False, batch_first=True)",
    f"{L}(data, bs, (h(1, 3, 4), h(1, 3, 4, s=0.2)), P('LSTM', 3, 4), True, 1, 0.0, False, "
    f"bidirectional=False)",
    # gradients of sum(sin(outputs)) with respect to input, states and params
    f"grads(lambda x, hc, ps: {L}(x, hc, ps, True, 2, 0.0, False, True, False), x, "
    f"(h(4, 2, 2), h(4, 2, 3, s=0.2)), P('LSTM', 3, 3, 2, 2, True, 2))",
    "grads(lambda x, h0, ps: T.gru(x, h0, ps, True, 2, 0.0, False, False, True), xb, h(2, 2, 3), "
    "P('GRU', 3, 3, 2))",
    "grads(lambda x, h0, ps: T.rnn_tanh(x, h0, ps, False, 1, 0.0, False, True, False), x, "
    "h(2, 2, 3), P('RNN', 3, 3, 1, 2, False))",
    "grads(lambda d, h0, ps: T.gru(d, bs, h0, ps, True, 1, 0.0, False, True), data, h(2, 3, 3), "
    "P('GRU', 3, 3, 1, 2))",
    f"grads(lambda d, hc, ps: {L}(d, bs, hc, ps, True, 2, 0.0, False, False), data, "
    f"(h(2, 3, 3), h(2, 3, 3, s=0.2)), P('LSTM', 3, 3, 2))",
    # the checks, with PyTorch's messages
    f"{L}(x, (h(1, 2, 4), h(1, 2, 4)), P('LSTM', 3, 4)[:-1], True, 1, 0.0, False, False, False)",
    f"{L}(x, (h(1, 2, 4),), P('LSTM', 3, 4), True, 1, 0.0, False, False, False)",
    f"{L}(x, (h(1, 2, 4), h(1, 2, 4), h(1, 2, 4)), P('LSTM', 3, 4), True, 1, 0.0, False, False, False)",
    f"{L}(x, (h(1, 2, 2), h(1, 2, 4)), P('LSTM', 3, 4), True, 1, 0.0, False, False, False)",
    "T.gru(x, h(2, 2, 4), P('GRU', 3, 4, 2)[:4], True, 2, 0.0, False, False, False)",
    "T.gru(x, h(2, 2, 4), P('GRU', 3, 4, 2), True, 1, 0.0, False, False, False)",
    "T.gru(x, h(3, 2, 4), P('GRU', 3, 4, 2), True, 2, 0.0, False, False, False)",
    "T.gru(x, h(2, 2, 4), P('GRU', 3, 4, 2), True, 2, 0.0, False, True, False)",
    "T.gru(x, h(2, 2, 4), P('GRU', 3, 4, 2)[:7], True, 2, 0.0, False, False, False)",
    "T.gru(x, h(1, 2, 4), P('GRU', 3, 4)[:2], True, 1, 0.0, False, False, False)",
    "T.gru(x[:0], h(1, 2, 4), P('GRU', 3, 4), True, 1, 0.0, False, False, False)",
    "T.gru(x, h(2, 2, 4), P('GRU', 3, 4, 2), True, 2, 1.5, True, False, False)",
    "T.gru(data, bs.float(), h(1, 3, 4), P('GRU', 3, 4), True, 1, 0.0, False, False)",
]

# checks whose type is PyTorch's but whose message is torchlike's own (the
# shape and dtype messages of the layer op name what it found; the argument
# parser's)
TYPE_ONLY = [
    f"{L}(x.float(), (h(1, 2, 4), h(1, 2, 4)), P('LSTM', 3, 4), True, 1, 0.0, False, False, False)",
    f"{L}(x[..., :2], (h(1, 2, 4), h(1, 2, 4)), P('LSTM', 3, 4), True, 1, 0.0, False, False, False)",
    "T.gru(x, h(1, 2, 5), P('GRU', 3, 4), True, 1, 0.0, False, False, False)",
    "T.gru(x, h(1, 1, 4), P('GRU', 3, 4), True, 1, 0.0, False, False, False)",
    "T.rnn_tanh(x, h(1, 2, 4), P('GRU', 3, 4), True, 1, 0.0, False, False, False)",
    "T.gru(data[:7], bs, h(1, 3, 4), P('GRU', 3, 4), True, 1, 0.0, False, False)",
    # too few, unknown, too many arguments: PyTorch's message lists its overloads
    "T.gru(x, h(1, 2, 4), P('GRU', 3, 4), True, 1, 0.0, False, False)",
    "T.gru(x, h(1, 2, 4), P('GRU', 3, 4), True, 1, 0.0, False, False, False, nope=1)",
    "T.gru(x, h(1, 2, 4), P('GRU', 3, 4), True, 1, 0.0, False, False, False, False)",
]
CALLS += TYPE_ONLY

CALLS += [
    # the batch-norm forms PyTorch runs on CPU
    "bn_stats(lambda x, a, c: T.batch_norm_update_stats(x, a, c, 0.1), xn)",
    "T.batch_norm_update_stats(xn, None, None, 0.1)",
    "bn_stats(lambda x, a, b: T.batch_norm_update_stats(x, a, b, 0.3), xn[:, :, 0])",
    "bn_stats(lambda x, a, b: T.batch_norm_update_stats(x, a, b, 0.1), xn.reshape(2, 3, 2, 5))",
    "bn_stats(lambda x, a, b: T.batch_norm_update_stats(x, a, b, 0.1), d64(5, 3, 4, s=1.1).transpose(0, 2))",
    "T.batch_norm_update_stats(xn[0, 0], None, None, 0.1)",
    "T.batch_norm_update_stats(xn.float(), d64(3), d64(3), 0.1)",
    "T.batch_norm_update_stats(xn.int(), None, None, 0.1)",
    "T.batch_norm_update_stats(xn.half(), None, None, 0.1)",
    "T.batch_norm_update_stats(xn.bfloat16(), None, None, 0.1)",
    "bn_stats(lambda x, a, c: T.batch_norm_update_stats(x, a, c, 0.1), xn.half(), dtype=T.float32)",
    "bn_stats(lambda x, a, c: T.batch_norm_update_stats(x, a, c, 0.1), xn.float(), dtype=T.float32)",
    "T.batch_norm_update_stats(xn.half(), None, T.ones(3, dtype=T.float64), 0.1)",
    "T._native_batch_norm_legit(xn.half(), None, None, True, 0.1, 1e-5)",
    "T._native_batch_norm_legit(xn.float(), w.float(), None, True, 0.1, 1e-5)",
    "bn_stats(lambda x, a, c: T._native_batch_norm_legit(x, None, None, a, c, False, 0.1, 1e-5), "
    "xn.half(), dtype=T.float32)",
    "bn_stats(lambda x, a, c: T._native_batch_norm_legit(x, None, None, a, c, True, 0.1, 1e-5), "
    "xn.bfloat16(), dtype=T.float32)",
    "bn_stats(lambda x, a, c: T._native_batch_norm_legit(x, w, b + 1, a, c, True, 0.1, 1e-5), xn)",
    "bn_stats(lambda x, a, c: T._native_batch_norm_legit(x, w, b, a, c, False, 0.1, 1e-5), xn)",
    "bn_stats(lambda x, a, c: T._native_batch_norm_legit_no_training(x, w, b, a, c, 0.1, 1e-3), xn)",
    "bn_stats(lambda x, a, c: T._native_batch_norm_legit_no_training(x, None, None, a, c, 0.1, 1e-3), xn)",
    "T._native_batch_norm_legit(xn, w, b, True, 0.1, 1e-5)",
    "T._native_batch_norm_legit(xn, None, None, True, 0.2, 1e-2)",
    "T._native_batch_norm_legit(xn, w, b, False, 0.1, 1e-5)",
    "grads(lambda x, w, b: T._native_batch_norm_legit(x, w, b, True, 0.1, 1e-5)[:1], xn, w, b)",
]


def main():
    record(CALLS, inputs, describe, "aten_rnn", messages=True)


if __name__ == "__main__":
    main()
