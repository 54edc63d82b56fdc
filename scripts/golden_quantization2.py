"""Record what PyTorch's dynamic quantization of recurrent layers and
float16 dynamic quantization give, for tests/test_quantization2.py: for
each float model its state dict, an input, PyTorch's quantized state dict
(its own layout: CellParamsBase / LinearPackedParamsBase objects), repr and
outputs.

Run with an interpreter that has PyTorch:
    python scripts/golden_quantization2.py
writes tests/golden/quantized_rnn.pt (load it with weights_only=False: the
packed RNN weights are TorchScript objects, which PyTorch's weights-only
loader refuses too) and tests/golden/quantized_embedding.pt (weight-only
quantized Embedding / EmbeddingBag: weights, state dicts, lookups) and
tests/golden/quantized_ops.pt (activations, norms, Conv3d, ConvTranspose:
modules built directly on fixed inputs, and float models through
prepare / convert)."""
import os
import warnings

import torch

warnings.simplefilter("ignore")
torch.backends.quantized.engine = "x86"
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "tests", "golden")
nn = torch.nn

# name: (float module factory, input shape, hidden state shapes or None)
MODELS = {
    "lstm": (lambda: nn.LSTM(5, 4), (6, 3, 5), None),
    "lstm2": (lambda: nn.LSTM(5, 4, num_layers=2, bidirectional=True, batch_first=True),
              (3, 6, 5), [(4, 3, 4), (4, 3, 4)]),
    "gru": (lambda: nn.GRU(5, 4), (6, 3, 5), None),
    "gru2": (lambda: nn.GRU(5, 4, num_layers=2, bidirectional=True, batch_first=True),
             (3, 6, 5), [(4, 3, 4)]),
    "lstmcell": (lambda: nn.LSTMCell(5, 4), (3, 5), [(3, 4), (3, 4)]),
    "grucell": (lambda: nn.GRUCell(5, 4), (3, 5), [(3, 4)]),
    "rnncell": (lambda: nn.RNNCell(5, 4), (3, 5), None),
    "rnncell_relu": (lambda: nn.RNNCell(5, 4, nonlinearity="relu"), (3, 5), [(3, 4)]),
    "linear": (lambda: nn.Linear(5, 4), (3, 5), None),
}


def record(name, dtype):
    make, xshape, hshapes = MODELS[name]
    fmod = make()
    if name == "linear":  # float16 saturates at 65504 and flushes tiny values
        with torch.no_grad():
            fmod.weight[0, :3] = torch.tensor([1e6, -7e4, 1e-9])
    fstate = {k: v.detach().clone() for k, v in fmod.state_dict().items()}
    q = torch.ao.quantization.quantize_dynamic(nn.Sequential(fmod), dtype=dtype)
    x = torch.randn(*xshape)
    hx = None if hshapes is None else [torch.randn(*s) for s in hshapes]
    args = (x,) if hx is None else (x, hx[0] if len(hx) == 1 else tuple(hx))
    with torch.no_grad():
        out = q[0](*args)
    entry = {"float": fstate, "x": x, "hx": hx, "out": out, "repr": repr(q[0]),
             "quant": q.state_dict()}
    if dtype is torch.qint8 and name not in ("linear",):
        entry["weights"] = {k: v for k, v in q[0].get_weight().items()}
    return entry


def errors():
    """PyTorch's messages for bad input to the dynamic modules."""
    torch.manual_seed(1)
    cell = torch.ao.quantization.quantize_dynamic(nn.Sequential(nn.LSTMCell(3, 2)))[0]
    gru = torch.ao.quantization.quantize_dynamic(nn.Sequential(nn.GRU(3, 2)))[0]
    cases = {
        "cell_double": lambda: cell(torch.randn(4, 3).double()),
        "cell_size": lambda: cell(torch.randn(4, 5)),
        "cell_batch": lambda: cell(torch.randn(4, 3), (torch.randn(3, 2), torch.randn(3, 2))),
        "gru_ndim": lambda: gru(torch.randn(4, 3)),
        "gru_size": lambda: gru(torch.randn(4, 2, 5)),
        "gru_hidden": lambda: gru(torch.randn(4, 2, 3), torch.randn(1, 3, 2)),
        "bias_false": lambda: torch.ao.quantization.quantize_dynamic(
            nn.Sequential(nn.GRUCell(3, 2, bias=False))),
        "dtype_quint4": lambda: torch.ao.quantization.quantize_dynamic(
            nn.Sequential(nn.GRU(3, 2)), dtype=torch.qint32),
    }
    out = {}
    for k, f in cases.items():
        try:
            f()
            out[k] = None
        except Exception as e:  # noqa: BLE001
            out[k] = (type(e).__name__, str(e).split("\n")[0])
    return out


def _embedding_state(model):
    """model.state_dict() with each weight rebuilt from copies of its
    integers and qparams: PyTorch's unpacked embedding weight keeps its
    scales and zero points in memory it frees (saving the state dict as it
    is writes garbage qparams for some rows)."""
    state = model.state_dict()
    for k, w in state.items():
        if isinstance(w, torch.Tensor) and w.is_quantized:
            ints = w.int_repr().clone()
            scales = w.q_per_channel_scales().clone()
            zps = w.q_per_channel_zero_points().clone()
            state[k] = torch._make_per_channel_quantized_tensor(ints, scales, zps, 0)
    return state


def embedding_cases():
    """Embedding / EmbeddingBag quantized through quantize_dynamic(dtype=quint8)
    and through prepare/convert with float_qparams_weight_only_qconfig."""
    tq = torch.ao.quantization
    emb, bag = nn.Embedding(10, 70), nn.EmbeddingBag(10, 70, mode="mean")
    bag_sum = nn.EmbeddingBag(10, 7, mode="sum", include_last_offset=True)
    with torch.no_grad():
        emb.weight[4] = 0.75  # a constant row: the observer's eps scale
        bag.weight[2, :5] = torch.tensor([1e3, -1e3, 1e-8, 0.0, 3.0])
    model = nn.Sequential(emb, bag, bag_sum)
    fstate = {k: v.detach().clone() for k, v in model.state_dict().items()}
    q = tq.quantize_dynamic(model, dtype=torch.quint8)
    model.qconfig = tq.float_qparams_weight_only_qconfig
    converted = tq.convert(tq.prepare(model))
    idx2 = torch.tensor([[1, 2, 9], [0, 0, 3], [4, 4, 8]])
    idx1 = torch.tensor([1, 2, 9, 0, 0, 3, 5, 2, 2], dtype=torch.int32)
    offsets = torch.tensor([0, 3, 3, 7])
    psw = torch.randn(9)
    outs = {"emb2": q[0](idx2), "emb1": q[0](idx1), "bag_offsets": q[1](idx1, offsets),
            "bag_2d": q[1](idx2), "bag_psw": q[1](idx1, offsets, per_sample_weights=psw),
            "bagsum_last": q[2](idx1, torch.tensor([0, 2, 2, 9]), per_sample_weights=psw),
            "conv_emb": converted[0](idx2), "conv_bag": converted[1](idx1, offsets)}
    errs = {}
    for name, f in {"no_offsets": lambda: q[1](idx1),
                    "float_idx": lambda: q[0](torch.tensor([1.0])),
                    "idx_0d": lambda: q[0](torch.tensor(3))}.items():
        try:
            f()
            errs[name] = None
        except Exception as e:  # noqa: BLE001
            errs[name] = (type(e).__name__, str(e).split("\n")[0])
    m = nn.Sequential(nn.Embedding(5, 3))
    m[0].qconfig = tq.default_qconfig
    try:
        tq.convert(tq.prepare(m))
    except Exception as e:  # noqa: BLE001
        errs["qconfig"] = (type(e).__name__, str(e).split("\n")[0])
    return {"float": fstate, "quant": _embedding_state(q), "converted": _embedding_state(converted),
            "reprs": [repr(q[i]) for i in range(3)], "idx2": idx2, "idx1": idx1,
            "offsets": offsets, "psw": psw, "outs": outs, "errors": errs}


# Quantized modules built directly: expressions over nnq, P (Parameter) and
# the tensors of PARAMS, each applied to the input named second.
DIRECT = [
    ("nnq.Hardswish(0.03, 100)", "q4"), ("nnq.ELU(0.03, 100, 0.7)", "q4"),
    ("nnq.LeakyReLU(0.03, 100, 0.1)", "q4"), ("nnq.Sigmoid(1 / 256, 0)", "q4"),
    ("nnq.Softmax(1, 1 / 256, 0)", "q4"), ("nnq.Softmax(-1, 1 / 256, 0)", "q4"),
    ("nnq.LayerNorm([5, 7], P(w57), P(b57), 0.03, 100)", "q4"),
    ("nnq.LayerNorm([7], None, None, 0.02, 120, elementwise_affine=False)", "q4"),
    ("nnq.GroupNorm(3, 6, P(w6), P(b6), 0.03, 100)", "q4"),
    ("nnq.InstanceNorm2d(6, P(w6), P(b6), 0.03, 100, affine=True)", "q4"),
    ("nnq.InstanceNorm1d(6, None, None, 0.03, 100)", "q3"),
    ("nnq.InstanceNorm3d(6, P(w6), P(b6), 0.03, 100, affine=True)", "q5"),
    ("nnq.Dropout(0.5)", "q4"),
]


def op_cases():
    tq = torch.ao.quantization
    nnq = torch.ao.nn.quantized
    F_ = torch.nn.functional
    x4 = torch.randn(2, 6, 5, 7) * 3
    x5 = torch.randn(2, 6, 3, 4, 5) * 2
    inputs = {"q4": torch.quantize_per_tensor(x4, 0.05, 128, torch.quint8),
              "q3": torch.quantize_per_tensor(x4[:, :, 0], 0.05, 128, torch.quint8),
              "q5": torch.quantize_per_tensor(x5, 0.04, 120, torch.quint8)}
    params = {"w57": torch.randn(5, 7), "b57": torch.randn(5, 7), "w6": torch.randn(6),
              "b6": torch.randn(6)}
    env = {"nnq": nnq, "P": torch.nn.Parameter, **params}
    direct = []
    with torch.no_grad():
        for expr, name in DIRECT:
            mod = eval(expr, env)
            y = mod(inputs[name])
            direct.append({"expr": expr, "input": name, "repr": repr(mod),
                           "keys": list(mod.state_dict()), "ints": y.int_repr(),
                           "qparams": [y.q_scale(), y.q_zero_point()]})
        bn_state = {"weight": torch.randn(6), "bias": torch.randn(6),
                    "running_mean": torch.randn(6), "running_var": torch.rand(6) + 0.5,
                    "num_batches_tracked": torch.tensor(3), "scale": torch.tensor(0.03),
                    "zero_point": torch.tensor(100)}
        for cls, name in (("BatchNorm2d", "q4"), ("BatchNorm3d", "q5")):
            bn = getattr(nnq, cls)(6)
            bn.load_state_dict(bn_state)
            y = bn(inputs[name])
            direct.append({"expr": f"nnq.{cls}(6)", "input": name, "repr": repr(bn),
                           "keys": list(bn.state_dict()), "ints": y.int_repr(),
                           "qparams": [y.q_scale(), y.q_zero_point()], "state": bn_state})
        convs = []
        for ctor, wshape, name in (
                ("nnq.Conv3d(6, 4, 3, stride=(1, 2, 1), padding=1)", (4, 6, 3, 3, 3), "q5"),
                ("nnq.ConvTranspose2d(6, 4, 3, stride=2, padding=1, output_padding=1)",
                 (6, 4, 3, 3), "q4"),
                ("nnq.ConvTranspose2d(6, 4, (2, 3), groups=2, dilation=2)", (6, 2, 2, 3), "q4"),
                ("nnq.ConvTranspose2d(6, 6, 3)", (6, 6, 3, 3), "q4"),
                ("nnq.ConvTranspose1d(6, 3, 4, stride=3)", (6, 3, 4), "q3")):
            mod = eval(ctor, env)
            w = torch.quantize_per_tensor(torch.randn(*wshape) * 0.3, 0.01, 0, torch.qint8)
            b = torch.randn(mod.out_channels)
            mod.set_weight_bias(w, b)
            mod.scale, mod.zero_point = 0.08, 110
            y = mod(inputs[name])
            # the transposed (or plain) convolution of the dequantized operands, in
            # float64, quantized: PyTorch's quantized ConvTranspose kernel departs
            # from it in most configurations (see docs/quantization.md)
            xd, wd = inputs[name].dequantize().double(), w.dequantize().double()
            if "Transpose" in ctor:
                fn = F_.conv_transpose1d if xd.dim() == 3 else F_.conv_transpose2d
                f = fn(xd, wd, b.double(), mod.stride, mod.padding, mod.output_padding,
                       mod.groups, mod.dilation)
            else:
                f = F_.conv3d(xd, wd, b.double(), mod.stride, mod.padding, mod.dilation,
                              mod.groups)
            ref = torch.quantize_per_tensor(f.float(), 0.08, 110, torch.quint8).int_repr()
            convs.append({"expr": ctor, "input": name, "w": w, "b": b, "repr": repr(mod),
                          "keys": list(mod.state_dict()), "ints": y.int_repr(),
                          "float_ref_ints": ref,
                          "pytorch_agrees": bool(torch.equal(ref, y.int_repr()))})
    # float models through prepare / convert (default_qconfig: per-tensor weights,
    # which ConvTranspose needs on x86)
    nn_ = torch.nn

    def model2d():
        return nn_.Sequential(tq.QuantStub(), nn_.Conv2d(3, 6, 3, padding=1),
                              nn_.BatchNorm2d(6), nn_.Hardswish(),
                              nn_.ConvTranspose2d(6, 4, 3, stride=2, padding=1, output_padding=1),
                              nn_.LeakyReLU(0.2), nn_.GroupNorm(2, 4), nn_.ELU(),
                              nn_.LayerNorm([12]),
                              nn_.InstanceNorm2d(4, affine=True), nn_.Dropout(0.3),
                              tq.DeQuantStub())

    def model3d():
        return nn_.Sequential(tq.QuantStub(), nn_.Conv3d(2, 4, 2), nn_.BatchNorm3d(4),
                              nn_.InstanceNorm3d(4), tq.DeQuantStub())

    def model1d():
        return nn_.Sequential(tq.QuantStub(), nn_.Conv1d(3, 5, 3, stride=2),
                              nn_.InstanceNorm1d(5), tq.DeQuantStub())
    models = {}
    for name, make, shape in (("m2d", model2d, (2, 3, 6, 6)), ("m3d", model3d, (2, 2, 4, 4, 4)),
                              ("m1d", model1d, (2, 3, 8))):
        model = make().eval()
        with torch.no_grad():  # running statistics that do something
            for m in model.modules():
                if isinstance(m, nn_.modules.batchnorm._BatchNorm):
                    m.running_mean.copy_(torch.randn(m.num_features) * 0.1)
                    m.running_var.copy_(torch.rand(m.num_features) + 0.5)
                    m.weight.copy_(torch.randn(m.num_features))
                if isinstance(m, (nn_.GroupNorm, nn_.LayerNorm, nn_.InstanceNorm2d)) and \
                        getattr(m, "weight", None) is not None:
                    m.weight.copy_(torch.randn(m.weight.shape))
                    m.bias.copy_(torch.randn(m.bias.shape))
        fstate = {k: v.detach().clone() for k, v in model.state_dict().items()}
        model.qconfig = tq.default_qconfig
        prepared = tq.prepare(model)
        batches = [torch.randn(*shape) for _ in range(2)]
        for b in batches:
            prepared(b)
        q = tq.convert(prepared)
        x = torch.randn(*shape)
        models[name] = {"float": fstate, "batches": batches, "x": x, "y": q(x),
                        "quant": q.state_dict(), "repr": repr(q)}
    return {"inputs": inputs, "params": params, "direct": direct, "convs": convs,
            "models": models}


def main():
    torch.manual_seed(0)
    golden = {f"{name}_{str(dtype).split('.')[1]}": record(name, dtype)
              for dtype in (torch.qint8, torch.float16) for name in MODELS}
    golden["errors"] = errors()
    torch.save(golden, os.path.join(OUT, "quantized_rnn.pt"))
    torch.manual_seed(2)
    torch.save(embedding_cases(), os.path.join(OUT, "quantized_embedding.pt"))
    torch.manual_seed(3)
    torch.save(op_cases(), os.path.join(OUT, "quantized_ops.pt"))


if __name__ == "__main__":
    main()
