"""Record what PyTorch's FX graph mode quantization gives for
tests/test_quantization3.py: for each model of tests/quantization_fx_cases.py
its float state dict, the calibration batches and a test input, the
prepared GraphModule (code, children, observer qparams, shared observers),
convert_fx's GraphModule (code, children, repr, state dict) and its output;
fuse_fx's code; PyTorch's errors for bad calls.

Run with an interpreter that has PyTorch:
    python scripts/golden_quantization3.py
writes tests/golden/quantized_fx.pt (load it with weights_only=False: a
packed F.linear weight is a TorchScript object)."""
import os
import sys
import warnings

import torch

warnings.simplefilter("ignore")
torch.backends.quantized.engine = "x86"
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
import quantization_fx_cases as cases  # noqa: E402

OUT = os.path.join(HERE, "..", "tests", "golden")


def _copy_state(state):
    return {k: (v.clone() if isinstance(v, torch.Tensor) else v) for k, v in state.items()}


def record(name):
    torch.manual_seed(sum(map(ord, name)))
    make, shape, _ = cases.models(torch)[name]
    model = make()
    with torch.no_grad():  # batch norm statistics that are not the identity
        for mod in model.modules():
            if isinstance(mod, (torch.nn.BatchNorm2d, torch.nn.BatchNorm3d)):
                mod.running_mean.uniform_(-0.5, 0.5)
                mod.running_var.uniform_(0.5, 2.0)
                mod.weight.uniform_(0.5, 1.5)
                mod.bias.uniform_(-0.2, 0.2)
    fstate = _copy_state(model.state_dict())
    batches = [torch.randn(*shape) for _ in range(3)]
    x = torch.randn(*shape)
    prepared, q = cases.run(torch, name, fstate, batches)
    qparams, groups = cases.observers(prepared)
    with torch.no_grad():
        out = q(x)
    return {"float": fstate, "batches": batches, "x": x, "out": out,
            "prepared_code": prepared.code, "observers": qparams, "shared": groups,
            "prepared_children": [(n, type(m).__name__) for n, m in
                                  prepared.named_children()],
            "code": q.code, "repr": repr(q), "quant": _copy_state(q.state_dict()),
            "children": [(n, type(m).__name__) for n, m in q.named_children()]}


def fixed_ops():
    """sigmoid / tanh / hardsigmoid of every quint8 value at three qparams:
    PyTorch's quantized kernels (fixed output qparams)."""
    ints = torch.arange(256, dtype=torch.uint8)
    out = {}
    for scale, zp in ((0.05, 128), (0.013, 3), (0.1, 200)):
        q = torch._make_per_tensor_quantized_tensor(ints, scale, zp)
        for name in ("sigmoid", "tanh", "hardsigmoid"):
            fn = getattr(torch.nn.functional, name)
            r = fn(q)
            out[(name, scale, zp)] = (r.int_repr(), r.q_scale(), r.q_zero_point())
    return out


def _q(shape, scale, zp, dtype=torch.quint8, mul=2.0):
    return torch.quantize_per_tensor(torch.randn(*shape) * mul, scale, zp, dtype)


def modules():
    """The fused / 3-d / PReLU modules built directly on fixed inputs, and
    float models through fuse_modules / prepare / convert."""
    nnq, nniq = torch.ao.nn.quantized, torch.ao.nn.intrinsic.quantized
    tq = torch.ao.quantization
    torch.manual_seed(3)
    out = {}
    x4, x5 = _q((2, 3, 4, 4), 0.03, 120), _q((1, 3, 16, 16), 0.05, 100)
    for name, x, w in (("prelu3", x4, torch.tensor([0.25, -0.3, 1.7])),
                       ("prelu1", x5, torch.tensor([0.1])),
                       ("prelu3_big", x5, torch.tensor([-2.0, 0.5, 0.03]))):
        m = nnq.PReLU(0.02, 90, w.numel())
        m.set_weight(torch.quantize_per_tensor(w, 0.013, 100, torch.quint8))
        out[name] = {"x": x, "w": m.weight, "out": m(x), "state": m.state_dict(),
                     "repr": repr(m)}
    for dims, cls in ((2, nniq.BNReLU2d), (3, nniq.BNReLU3d)):
        m = cls(3)
        with torch.no_grad():
            m.weight.uniform_(0.5, 1.5), m.bias.uniform_(-0.3, 0.3)
            m.running_mean.uniform_(-0.5, 0.5), m.running_var.uniform_(0.5, 2.0)
        m.scale, m.zero_point = torch.tensor(0.02), torch.tensor(60)
        x = _q((2, 3) + (4,) * dims, 0.04, 110)
        out[f"bnrelu{dims}d"] = {"x": x, "out": m(x), "state": m.state_dict(), "repr": repr(m)}
    x3 = _q((2, 4, 3, 5, 5), 0.05, 128)
    conv = nniq.ConvReLU3d(4, 3, 3, padding=1)
    conv.set_weight_bias(torch.quantize_per_channel(torch.randn(3, 4, 3, 3, 3),
                                                    torch.tensor([0.02, 0.03, 0.01]).double(),
                                                    torch.zeros(3).long(), 0, torch.qint8),
                         torch.randn(3))
    conv.scale, conv.zero_point = 0.1, 70
    out["convrelu3d"] = {"x": x3, "out": conv(x3), "state": conv.state_dict(),
                         "repr": repr(conv)}
    for name, kw in (("ct3_plain", dict()), ("ct3_stride", dict(stride=2, padding=1,
                                                                output_padding=1)),
                     ("ct3_groups", dict(groups=2, dilation=(1, 2, 1)))):
        m = nnq.ConvTranspose3d(4, 4, (2, 3, 3), **kw)
        w = torch.quantize_per_tensor(torch.randn(4, 4 // m.groups, 2, 3, 3) * 0.3, 0.01, 0,
                                      torch.qint8)
        b = torch.randn(4)
        m.set_weight_bias(w, b)
        m.scale, m.zero_point = 0.2, 64
        ref = torch.nn.functional.conv_transpose3d(
            x3.dequantize().double(), w.dequantize().double(), b.double(), m.stride,
            m.padding, m.output_padding, m.groups, m.dilation)
        ref = torch.quantize_per_tensor(ref.float(), 0.2, 64, torch.quint8)
        out[name] = {"x": x3, "out": m(x3), "ref": ref, "state": m.state_dict(),
                     "repr": repr(m), "kw": kw}
    # through fuse_modules / prepare / convert
    model = torch.nn.Sequential(tq.QuantStub(), torch.nn.Conv3d(2, 3, 3),
                                torch.nn.BatchNorm3d(3), torch.nn.ReLU(),
                                torch.nn.ConvTranspose3d(3, 2, 2, stride=2),
                                torch.nn.PReLU(2), tq.DeQuantStub())
    with torch.no_grad():
        model[2].running_mean.uniform_(-0.5, 0.5), model[2].running_var.uniform_(0.5, 2.0)
    fstate = {k: v.clone() for k, v in model.state_dict().items()}
    model.eval()
    model.qconfig = tq.get_default_qconfig("x86")
    model[4].qconfig = tq.QConfig(activation=model.qconfig.activation,
                                  weight=tq.default_weight_observer)
    model[5].qconfig = tq.QConfig(activation=tq.HistogramObserver, weight=tq.MinMaxObserver)
    fused = tq.fuse_modules(model, [["1", "2", "3"]])
    prepared = tq.prepare(fused)
    batches = [torch.randn(2, 2, 4, 5, 5) for _ in range(2)]
    for b in batches:
        prepared(b)
    q = tq.convert(prepared)
    x = torch.randn(2, 2, 4, 5, 5)
    # PyTorch's transposed-convolution kernel departs from its own float64
    # transposed convolution here (docs/quantization.md): record both
    h3 = q[3](q[2](q[1](q[0](x))))
    w4, b4 = q[4].weight(), q[4].bias()
    ref4 = torch.nn.functional.conv_transpose3d(h3.dequantize().double(), w4.dequantize().double(),
                                                b4.double(), 2)
    ref4 = torch.quantize_per_tensor(ref4.float(), q[4].scale, q[4].zero_point, torch.quint8)
    out["eager3d"] = {"float": fstate, "batches": batches, "x": x, "out": q(x), "h3": h3,
                      "h4": q[4](h3), "ref4": ref4,
                      "state": dict(q.state_dict()), "repr": repr(q),
                      "prelu_w": q[5].weight, "prelu_qparams": (q[5].scale, q[5].zero_point)}
    model = torch.nn.Sequential(tq.QuantStub(), torch.nn.BatchNorm2d(3), torch.nn.ReLU(),
                                tq.DeQuantStub()).eval()
    fstate = {k: v.clone() for k, v in model.state_dict().items()}
    model.qconfig = tq.get_default_qconfig("x86")
    fused = tq.fuse_modules(model, [["1", "2"]])
    prepared = tq.prepare(fused)
    prepared(batches[0][:, :, 0].repeat(1, 2, 1, 1)[:, :3])
    q = tq.convert(prepared)
    x = torch.randn(2, 3, 4, 4)
    out["eager_bnrelu"] = {"float": fstate, "calib": batches[0][:, :, 0].repeat(1, 2, 1, 1)[:, :3],
                           "x": x, "out": q(x), "state": dict(q.state_dict()), "repr": repr(q),
                           "fused_repr": repr(fused)}
    errs = {}
    lin = torch.quantize_per_tensor(torch.randn(2, 4), 0.05, 128, torch.quint8)
    img = torch.quantize_per_tensor(torch.randn(1, 2, 5, 5), 0.05, 128, torch.quint8)
    for name, f in {"linear_leaky_relu": lambda: nniq.LinearLeakyReLU(4, 3, 0.1)(lin),
                    "linear_tanh": lambda: nniq.LinearTanh(4, 3)(lin),
                    "conv_add": lambda: nniq.ConvAdd2d(2, 2, 3, padding=1)(img, img),
                    "conv_add_relu": lambda: nniq.ConvAddReLU2d(2, 2, 3, padding=1)(img, img),
                    "prelu_0d": lambda: nnq.PReLU(0.1, 0)(
                        torch.quantize_per_tensor(torch.tensor(1.0), 0.1, 0, torch.quint8)),
                    "prelu_channels": lambda: nnq.PReLU(0.1, 0, 3)(img)}.items():
        try:
            f()
            errs[name] = None
        except Exception as e:  # noqa: BLE001
            errs[name] = (type(e).__name__, str(e).split("\n")[0])
    out["errors"] = errs
    out["reprs"] = {"linear_leaky_relu": repr(nniq.LinearLeakyReLU(4, 3, 0.1)),
                    "linear_tanh": repr(nniq.LinearTanh(4, 3)),
                    "conv_add": repr(nniq.ConvAdd2d(2, 2, 3, padding=1))}
    return out


def _embedding_state(module):
    """module.state_dict() with each quantized weight rebuilt from copies of
    its integers and qparams: PyTorch's quantized Embedding hands out a weight
    whose qparams live in memory it frees (see golden_quantization2.py)."""
    state = dict(module.state_dict())
    for k, w in state.items():
        if isinstance(w, torch.Tensor) and w.is_quantized:
            state[k] = torch._make_per_channel_quantized_tensor(
                w.int_repr().clone(), w.q_per_channel_scales().clone(),
                w.q_per_channel_zero_points().clone(), 0)
    return state


def qat_embeddings():
    """prepare_qat of Embedding / EmbeddingBag with default_embedding_qat_qconfig:
    the fake-quantized lookups while training, then convert."""
    tq = torch.ao.quantization
    torch.manual_seed(5)
    model = torch.nn.Sequential(torch.nn.Embedding(10, 12),
                                torch.nn.EmbeddingBag(10, 12, mode="sum"))
    fstate = {k: v.clone() for k, v in model.state_dict().items()}
    model.qconfig = tq.default_embedding_qat_qconfig
    prepared = tq.prepare_qat(model.train())
    idx = torch.tensor([[1, 2, 9], [0, 0, 3]])
    offsets = torch.tensor([0, 2, 2])
    flat = torch.tensor([1, 4, 9, 3, 3])
    train = [(prepared[0](idx).detach(), prepared[1](flat, offsets).detach())]
    with torch.no_grad():
        prepared[0].weight.mul_(1.5)
        prepared[1].weight.add_(0.25)
    train.append((prepared[0](idx).detach(), prepared[1](flat, offsets).detach()))
    q = tq.convert(prepared.eval())
    # the QAT modules themselves (PyTorch's default QAT mapping leaves embeddings float)
    qat_mods = []
    for float_mod, cls, qcls, args in (
            (torch.nn.Embedding(10, 12), torch.ao.nn.qat.Embedding,
             torch.ao.nn.quantized.Embedding, (idx,)),
            (torch.nn.EmbeddingBag(10, 12, mode="sum"), torch.ao.nn.qat.EmbeddingBag,
             torch.ao.nn.quantized.EmbeddingBag, (flat, offsets))):
        float_mod.qconfig = tq.default_embedding_qat_qconfig
        fw = float_mod.weight.detach().clone()
        qat = cls.from_float(float_mod)
        outs = [qat(*args).detach()]
        with torch.no_grad():
            qat.weight.mul_(-2.0)
        outs.append(qat(*args).detach())
        qq = qcls.from_float(qat)
        qat_mods.append({"weight": fw, "outs": outs, "repr": repr(qat),
                         "state": dict(qat.state_dict()), "q_state": _embedding_state(qq),
                         "q_out": qq(*args)})
    errs = {}
    bad = torch.nn.Embedding(3, 2)
    bad.qconfig = tq.get_default_qat_qconfig()
    try:
        torch.ao.nn.qat.Embedding.from_float(bad)
        errs["qat_qconfig"] = None
    except Exception as e:  # noqa: BLE001
        errs["qat_qconfig"] = (type(e).__name__, str(e).split("\n")[0])
    return {"float": fstate, "idx": idx, "offsets": offsets, "flat": flat, "train": train,
            "prepared_repr": repr(prepared), "prepared_state": dict(prepared.state_dict()),
            "repr": repr(q), "state": _embedding_state(q),
            "out": (q[0](idx), q[1](flat, offsets)), "errors": errs, "qat_modules": qat_mods}


def packed_rnns():
    """Dynamic LSTM / GRU (int8 and float16) on packed sequences: unsorted
    lengths, given and default hidden states."""
    from torch.nn.utils.rnn import pack_padded_sequence
    torch.manual_seed(7)
    out = {}
    for name, make in (("lstm", lambda: torch.nn.LSTM(5, 4, num_layers=2, bidirectional=True)),
                       ("gru", lambda: torch.nn.GRU(5, 4, num_layers=2, bidirectional=True)),
                       ("lstm1", lambda: torch.nn.LSTM(5, 3))):
        for dtype in (torch.qint8, torch.float16):
            fmod = make()
            fstate = {k: v.detach().clone() for k, v in fmod.state_dict().items()}
            q = torch.ao.quantization.quantize_dynamic(torch.nn.Sequential(fmod), dtype=dtype)[0]
            x = torch.randn(6, 4, 5)
            packed = pack_padded_sequence(x, [3, 6, 1, 4], enforce_sorted=False)
            D = 2 if fmod.bidirectional else 1
            h = torch.randn(fmod.num_layers * D, 4, fmod.hidden_size)
            hx = (h, torch.randn_like(h)) if name.startswith("lstm") else h
            with torch.no_grad():
                o1, h1 = q(packed)
                o2, h2 = q(packed, hx)
            out[(name, str(dtype))] = {"float": fstate, "x": x, "hx": hx,
                                       "out": (o1.data, h1), "out_hx": (o2.data, h2),
                                       "batch_sizes": o1.batch_sizes}
    mod = torch.nn.LSTM(5, 4, proj_size=2)
    q = torch.ao.quantization.quantize_dynamic(torch.nn.Sequential(mod))[0]
    try:
        q(torch.randn(3, 2, 5))
        out["proj_size"] = None
    except Exception as e:  # noqa: BLE001
        out["proj_size"] = (type(e).__name__, str(e).split("\n")[0])
    return out


def references():
    """convert_to_reference_fx, eager convert(is_reference=True) and the
    reference modules themselves."""
    qfx, tq = torch.ao.quantization.quantize_fx, torch.ao.quantization
    nnqr = torch.ao.nn.quantized.reference
    out = {}
    for name in ("mixed", "cnn"):
        g = GOLDEN_CASES[name]
        prepared = cases.prepare(torch, name, g["float"], g["batches"])
        ref = qfx.convert_to_reference_fx(prepared)
        with torch.no_grad():
            y = ref(g["x"])
        out[name] = {"code": ref.code, "repr": repr(ref), "state": _copy_state(ref.state_dict()),
                     "out": y, "children": [(n, type(m).__name__) for n, m in
                                            ref.named_children()]}
    model = torch.nn.Sequential(tq.QuantStub(), torch.nn.Linear(4, 3), torch.nn.Conv2d(1, 2, 2),
                                tq.DeQuantStub()).eval()
    model.qconfig = tq.get_default_qconfig("x86")
    prepared = tq.prepare(model)
    calib = torch.randn(2, 4)
    prepared[0](calib)
    eager = tq.convert(prepared, is_reference=True)
    out["eager"] = {"float": {k: v.clone() for k, v in model.state_dict().items()},
                    "calib": calib,
                    "repr": repr(eager), "state": _copy_state(eager.state_dict()),
                    "weights": [eager[1].get_weight(), eager[2].get_weight()]}
    torch.manual_seed(11)
    direct = {}
    for name, mod, x in (("linear", torch.nn.Linear(5, 4), torch.randn(3, 5)),
                         ("conv2d", torch.nn.Conv2d(2, 3, 3, padding=1), torch.randn(1, 2, 5, 5)),
                         ("convt2d", torch.nn.ConvTranspose2d(2, 3, 3, stride=2),
                          torch.randn(1, 2, 4, 4))):
        for scheme in ("per_tensor", "per_channel"):
            obs = (tq.default_weight_observer if scheme == "per_tensor"
                   else tq.default_per_channel_weight_observer)()
            if name == "convt2d" and scheme == "per_channel":
                obs = tq.PerChannelMinMaxObserver(ch_axis=1, dtype=torch.qint8,
                                                  qscheme=torch.per_channel_symmetric)
            obs(mod.weight)
            qparams = tq.utils.get_qparam_dict(obs)
            cls = {"linear": nnqr.Linear, "conv2d": nnqr.Conv2d,
                   "convt2d": nnqr.ConvTranspose2d}[name]
            ref = cls.from_float(mod, qparams)
            with torch.no_grad():
                direct[(name, scheme)] = {
                    "float": {k: v.clone() for k, v in mod.state_dict().items()}, "x": x,
                    "state": _copy_state(ref.state_dict()), "weight": ref.get_weight(),
                    "out": ref(x), "repr": repr(ref)}
    out["direct"] = direct
    return out


def mha_cases():
    """The eager custom-module flow of MultiheadAttention (quantizable, then
    quantized), seq-first and batch-first with bias_k / bias_v."""
    out = {}
    for name, kw, shapes in (("mha", {}, ((5, 2, 8), (6, 2, 8))),
                             ("mha_bf_biaskv", {"batch_first": True, "add_bias_kv": True},
                              ((2, 5, 8), (2, 6, 8)))):
        torch.manual_seed(13)
        model = cases.mha_model(torch, **kw)
        fstate = _copy_state(model.state_dict())
        batches = [(torch.randn(*shapes[0]), torch.randn(*shapes[1])) for _ in range(2)]
        prepared, q = cases.quantize_mha(torch, model, batches)
        x, y = torch.randn(*shapes[0]), torch.randn(*shapes[1])
        out[name] = {"kw": kw, "float": fstate, "batches": batches, "x": x, "y": y,
                     "prepared_repr": repr(prepared),
                     "prepared_state": list(prepared.state_dict()),
                     "repr": repr(q), "state": _copy_state(q.state_dict()), "out": q(x, y),
                     "bias_kv": (q.mha.bias_k, q.mha.bias_v)}
    return out


GOLDEN_CASES = {}


def scalar_ops():
    """quantized::add / mul (and _relu) of a quantized tensor and a number:
    integers and the output qparams the kernels choose."""
    out = {}
    ints = torch.arange(256, dtype=torch.uint8)
    for scale, zp in ((0.1, 10), (0.05, 250), (0.02, 128)):
        q = torch._make_per_tensor_quantized_tensor(ints, scale, zp)
        for op, values in (("add", (1.0, -1.0, 3.7, -30.0, 0.0, 2.5, -0.5, 0.15)),
                           ("mul", (2.0, -2.0, 0.0, 0.3, -1.5))):
            for relu in ("", "_relu"):
                for c in values:
                    r = getattr(torch.ops.quantized, op + relu)(q, c)
                    out[(op + relu, scale, zp, c)] = (r.int_repr(), r.q_scale(), r.q_zero_point())
    return out


def errors():
    qfx = torch.ao.quantization.quantize_fx
    tq = torch.ao.quantization
    mlp = cases.models(torch)["mlp"][0]().eval()
    cases_ = {
        "fusion_qconfigs": lambda: qfx.prepare_fx(
            mlp, tq.QConfigMapping().set_object_type(torch.nn.Linear, tq.default_qconfig),
            (torch.randn(2, 5),)),
        "qat_eval": lambda: qfx.prepare_qat_fx(mlp, tq.get_default_qat_qconfig_mapping(),
                                               (torch.randn(2, 5),)),
        "convert_float": lambda: qfx.convert_fx(torch.fx.symbolic_trace(mlp)),
    }
    out = {}
    for k, f in cases_.items():
        try:
            f()
            out[k] = None
        except Exception as e:  # noqa: BLE001
            out[k] = (type(e).__name__, str(e).split("\n")[0])
    return out


def main():
    golden = {name: record(name) for name in cases.models(torch)}
    GOLDEN_CASES.update(golden)
    cnn = cases.models(torch)["cnn"][0]()
    cnn.load_state_dict(golden["cnn"]["float"])
    fused = torch.ao.quantization.quantize_fx.fuse_fx(cnn.eval())
    golden["fuse_cnn"] = {"code": fused.code, "state": _copy_state(fused.state_dict()),
                          "out": fused(golden["cnn"]["x"]).detach()}
    golden["errors"] = errors()
    torch.manual_seed(2)
    emb = cases.embedding_model(torch).eval()
    idx = torch.tensor([[1, 2], [7, 7]])
    prepared = torch.ao.quantization.quantize_fx.prepare_fx(
        emb, torch.ao.quantization.get_default_qconfig_mapping(), (idx,))
    prepared(idx)
    q = torch.ao.quantization.quantize_fx.convert_fx(prepared)
    golden["embedding_fx"] = {"float": _copy_state(emb.state_dict()), "idx": idx,
                              "code": q.code, "state": _copy_state(q.state_dict()), "out": q(idx)}
    golden["fixed_ops"] = fixed_ops()
    golden["modules"] = modules()
    golden["qat_embeddings"] = qat_embeddings()
    golden["packed_rnns"] = packed_rnns()
    golden["references"] = references()
    golden["scalar_ops"] = scalar_ops()
    golden["mha"] = mha_cases()
    torch.save(golden, os.path.join(OUT, "quantized_fx.pt"))


if __name__ == "__main__":
    main()
