"""Record PyTorch's recurrent layers for tests/test_nn_rnn_layer.py
(tests/golden/nn_rnn): an LSTM with proj_size, a batch_first GRU and a packed
(unsorted lengths) bidirectional LSTM, in float64.  For each case: its state
dict (and the key names, in order), the inputs, the outputs and final states,
and the gradients of sum(out * wo) + sum(h_n * wh) (+ sum(c_n * wc)) with
respect to the input, the initial states and every parameter.

Run with an interpreter that has PyTorch:  python scripts/golden_rnn.py"""
import json
import os

import numpy as np
import torch
from torch.nn.utils.rnn import pack_padded_sequence

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "golden", "nn_rnn")

# name: (module class, constructor kwargs, input shape, packed lengths or None)
CASES = {
    "lstm_proj": ("LSTM", dict(input_size=5, hidden_size=6, num_layers=2, proj_size=3),
                  (4, 2, 5), None),
    "gru": ("GRU", dict(input_size=4, hidden_size=5, num_layers=2, batch_first=True),
            (2, 6, 4), None),
    "lstm_packed_bi": ("LSTM", dict(input_size=3, hidden_size=4, bidirectional=True),
                       (5, 3, 3), [2, 5, 3]),
}


def record(name, kind, kw, shape, lengths, rng, arrays):
    torch.manual_seed(0)
    m = getattr(torch.nn, kind)(dtype=torch.float64, **kw)
    D = 2 if m.bidirectional else 1
    P = m.proj_size or m.hidden_size
    N = shape[0] if m.batch_first else shape[1]
    x = torch.tensor(rng.standard_normal(shape), requires_grad=True)
    h0 = torch.tensor(rng.standard_normal((m.num_layers * D, N, P)), requires_grad=True)
    states = [h0]
    if kind == "LSTM":
        states.append(torch.tensor(rng.standard_normal((m.num_layers * D, N, m.hidden_size)),
                                   requires_grad=True))
    hx = tuple(states) if kind == "LSTM" else h0
    if lengths is None:
        out, fin = m(x, hx)
    else:
        packed = pack_padded_sequence(x, torch.tensor(lengths), enforce_sorted=False)
        out, fin = m(packed, hx)
        arrays[f"{name}.batch_sizes"] = out.batch_sizes.numpy()
        arrays[f"{name}.sorted_indices"] = out.sorted_indices.numpy()
        out = out.data
    fin = fin if kind == "LSTM" else (fin,)
    loss = 0
    for key, t in [("out", out), ("hn", fin[0])] + ([("cn", fin[1])] if kind == "LSTM" else []):
        w = torch.tensor(rng.standard_normal(tuple(t.shape)))
        arrays[f"{name}.w_{key}"] = w.numpy()
        arrays[f"{name}.{key}"] = t.detach().numpy()
        loss = loss + (t * w).sum()
    loss.backward()
    arrays[f"{name}.x"] = x.detach().numpy()
    arrays[f"{name}.grad_x"] = x.grad.numpy()
    for i, s in enumerate(states):
        arrays[f"{name}.state{i}"] = s.detach().numpy()
        arrays[f"{name}.grad_state{i}"] = s.grad.numpy()
    for key, p in m.named_parameters():
        arrays[f"{name}.param.{key}"] = p.detach().numpy()
        arrays[f"{name}.grad.{key}"] = p.grad.numpy()
    return list(m.state_dict().keys())


def main():
    os.makedirs(OUT, exist_ok=True)
    rng = np.random.default_rng(20261128)
    arrays, keys = {}, {}
    for name, (kind, kw, shape, lengths) in CASES.items():
        keys[name] = {"kind": kind, "kwargs": kw, "lengths": lengths,
                      "state_dict_keys": record(name, kind, kw, shape, lengths, rng, arrays)}
    np.savez_compressed(os.path.join(OUT, "data.npz"), **arrays)
    with open(os.path.join(OUT, "cases.json"), "w") as f:
        json.dump(keys, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
