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
            if isinstance(mod, torch.nn.BatchNorm2d):
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
    cnn = cases.models(torch)["cnn"][0]()
    cnn.load_state_dict(golden["cnn"]["float"])
    fused = torch.ao.quantization.quantize_fx.fuse_fx(cnn.eval())
    golden["fuse_cnn"] = {"code": fused.code, "state": _copy_state(fused.state_dict()),
                          "out": fused(golden["cnn"]["x"]).detach()}
    golden["errors"] = errors()
    golden["fixed_ops"] = fixed_ops()
    torch.save(golden, os.path.join(OUT, "quantized_fx.pt"))


if __name__ == "__main__":
    main()
