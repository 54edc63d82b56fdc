"""Record what PyTorch's quantization gives, for tests/test_quantization.py:
quantized tensors (integers, qparams, reprs, refusals), observers' qparams,
and the integer results of the quantized kernels (x86 engine), for fixed
inputs that are stored beside the answers.

Run with an interpreter that has PyTorch:
    python scripts/golden_quantization.py
writes tests/golden/quantization.json and tests/golden/quantized_checkpoint.pt."""
import json
import os
import warnings

import numpy as np
import torch

warnings.simplefilter("ignore")
torch.backends.quantized.engine = "x86"
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "tests", "golden")
rng = np.random.default_rng(20261201)
DT = {"quint8": torch.quint8, "qint8": torch.qint8, "qint32": torch.qint32}


def fl(a):
    return [float(v) for v in np.asarray(a, dtype=np.float64).reshape(-1)]


def ints(t):
    return [int(v) for v in t.int_repr().reshape(-1).tolist()]


def values(n, scale):
    x = (rng.integers(-400, 400, n) * scale / 2).astype(np.float32)  # many ties
    m = rng.random(n) < 0.5
    x[m] = rng.normal(0, 60 * scale, m.sum()).astype(np.float32)
    return x


def per_tensor_cases():
    cases = []
    for dtype, zr in (("quint8", (0, 255)), ("qint8", (-128, 127)), ("qint32", (-1000, 1000))):
        for n in (1, 7, 64, 65, 130, 200):
            scale = float(rng.choice([0.1, 0.05, 1 / 3, 0.0123, 2.0, 1e-3]))
            zp = int(rng.integers(zr[0], zr[1] + 1))
            x = values(n, scale)
            if n >= 7:
                x[[0, 3, n - 1]] = [np.nan, np.inf, -np.inf]
            q = torch.quantize_per_tensor(torch.from_numpy(x), scale, zp, DT[dtype])
            cases.append({"x": fl(x), "scale": scale, "zp": zp, "dtype": dtype, "ints": ints(q),
                          "dequant": fl(q.dequantize().numpy())})
    return cases


def per_channel_cases():
    cases = []
    for dtype, shape, axis, float_zp in (("qint8", (4, 5), 0, False), ("quint8", (3, 4, 5), 1, False),
                                         ("quint8", (2, 3, 70), 2, False), ("qint32", (5, 3), 0, False),
                                         ("quint8", (4, 6), 0, True), ("quint8", (3, 66), 1, True)):
        c = shape[axis]
        scales = rng.uniform(0.01, 0.3, c)
        if float_zp:
            zps = rng.uniform(-10, 100, c).astype(np.float32)
            st, zt = torch.tensor(scales, dtype=torch.float32), torch.from_numpy(zps)
        else:
            lo, hi = {"qint8": (-128, 127), "quint8": (0, 255), "qint32": (-500, 500)}[dtype]
            zps = rng.integers(lo, hi + 1, c)
            st, zt = torch.tensor(scales), torch.tensor(zps)
        x = values(int(np.prod(shape)), 0.1).reshape(shape)
        q = torch.quantize_per_channel(torch.from_numpy(x), st, zt, axis, DT[dtype])
        cases.append({"x": fl(x), "shape": list(shape), "scales": fl(st.double().numpy()),
                      "zps": fl(zt.double().numpy()), "float_zp": float_zp, "axis": axis,
                      "dtype": dtype, "ints": ints(q), "dequant": fl(q.dequantize().numpy()),
                      "scales_out": fl(q.q_per_channel_scales().double().numpy()),
                      "scales_dtype": str(q.q_per_channel_scales().dtype).split(".")[1],
                      "zps_dtype": str(q.q_per_channel_zero_points().dtype).split(".")[1],
                      "qscheme": str(q.qscheme()).split(".")[1]})
    return cases


def dynamic_cases():
    cases = []
    for dtype in ("quint8", "qint8"):
        for reduce_range in (False, True):
            for spread in (1e-6, 0.01, 1.0, 300.0):
                x = (rng.normal(0.3, spread, 50)).astype(np.float32)
                q = torch.quantize_per_tensor_dynamic(torch.from_numpy(x), DT[dtype], reduce_range)
                cases.append({"x": fl(x), "dtype": dtype, "reduce_range": reduce_range,
                              "scale": q.q_scale(), "zp": q.q_zero_point(), "ints": ints(q)})
    return cases


X = "T.tensor([[-1.0, 0.0, 0.5], [1.0, 2.5, 100.0]])"
Q = f"T.quantize_per_tensor({X}, 0.1, 10, T.quint8)"
QC = f"T.quantize_per_channel({X}, T.tensor([0.1, 0.2]), T.tensor([0, 3]), 0, T.qint8)"
QC3 = ("T.quantize_per_channel(T.arange(12.).reshape(3, 4), T.tensor([0.1, 0.2, 0.3]), "
       "T.tensor([0, 3, 5]), 0, T.quint8)")
REPRS = [
    "T.quint8", "T.qint8", "T.qint32", "T.per_tensor_affine", "T.per_channel_affine",
    "T.per_tensor_symmetric", "T.per_channel_symmetric", "T.per_channel_affine_float_qparams",
    Q, QC, f"{Q}[0]", f"{Q}[:, 1:]", f"{Q}.t()", f"{Q}.reshape(3, 2)", f"{Q}.view(-1)",
    f"{Q}.flatten()", f"{Q}.permute(1, 0)", f"{Q}.clone()", f"{Q}.t().contiguous()",
    f"{Q}.unsqueeze(0)", f"{Q}.unsqueeze(0).squeeze()", f"{Q}.unsqueeze(1).squeeze(1)",
    f"T.cat([{Q}, {Q}])", f"T.cat([{Q}, {Q}], 1)", f"T.relu({Q})", f"T.nn.functional.relu({Q})",
    f"{Q}.dequantize()", f"{Q}.int_repr()", f"{Q}[0, 0]", f"{Q}.detach()",
    f"T.clamp({Q}, 0.3, 2.0)", f"{Q}.clamp(min=0.26)", f"{Q}.clamp(max=-0.04)",
    f"T.nn.ReLU()({Q})", f"T.nn.ReLU(inplace=True)({Q})",
    f"{QC}[0]", f"{QC}[:, 1:]", f"{QC}.contiguous()", f"{QC3}[1:]", f"{QC3}[1:2]",
    f"{QC3}[::2]", f"{QC3}[:, None][1:]", f"{QC}.unsqueeze(0)", f"{QC}.clone()",
    f"{QC}.q_per_channel_scales()", f"{QC}.q_per_channel_zero_points()",
    "T.quantize_per_tensor(T.tensor(1.5), 0.1, 0, T.quint8)",
    "T.quantize_per_tensor(T.tensor([]), 0.1, 0, T.quint8)",
    "T.quantize_per_tensor(T.arange(2000.) / 100, 0.1, 0, T.qint32)",
    f"T.quantize_per_tensor({X}, T.tensor(0.1), T.tensor(10), T.quint8)",
    f"T.quantize_per_tensor([{X}, {X}], T.tensor([0.1, 0.2]), T.tensor([1, 2]), T.quint8)",
    f"T.quantize_per_channel({X}, T.tensor([0.1, 0.2, 0.3]), T.tensor([0., 1., 2.]), 1, T.quint8)",
    "T._make_per_tensor_quantized_tensor(T.tensor([1, 2], dtype=T.uint8), 0.5, 1)",
    "T._make_per_channel_quantized_tensor(T.tensor([[1, 2]], dtype=T.int8), "
    "T.tensor([0.5], dtype=T.float64), T.tensor([1]), 0)",
    f"T.dequantize([{Q}, {Q}])",
]
VALUES = [
    "T.quint8.itemsize", "T.qint32.itemsize", "T.quint8.is_floating_point", "T.qint8.is_complex",
    f"{Q}.is_quantized", f"{X}.is_quantized", f"{Q}.q_scale()", f"{Q}.q_zero_point()",
    f"str({Q}.qscheme())", f"str({QC}.qscheme())", f"{QC}.q_per_channel_axis()",
    f"{Q}.element_size()", f"{Q}.stride()", f"{Q}.t().stride()", f"{Q}.t().is_contiguous()",
    f"tuple({Q}.shape)", f"{Q}.numel()", f"{Q}.dim()", f"len({Q})", f"{Q}[1:].storage_offset()",
    f"{Q}.int_repr().dtype == T.uint8", f"{QC}.int_repr().dtype == T.int8",
    f"{Q}.dtype == T.quint8", f"{Q}.dtype == T.uint8", f"T.equal({Q}, {Q})",
    f"{QC}.unsqueeze(0).q_per_channel_axis()", f"{Q}[0, 0].item()", f"{X}.dequantize().tolist()",
    f"T.quantize_per_tensor({X}.t(), 0.1, 0, T.quint8).stride()",
    f"T.quantize_per_channel({X}.t(), T.tensor([0.1, 0.2]), T.tensor([0, 0]), 1, "
    f"T.qint8).stride()",
    f"{Q}.requires_grad",
]
ERRORS = [
    f"T.add({Q}, {Q})", f"{Q} + {Q}", f"{Q} * 2", f"{Q} + 1", f"{Q}.sum()", f"{Q}.abs()",
    f"{Q}.exp()", f"{Q} @ {Q}.t()", f"{Q}.float()", f"{Q}.to(T.float32)", f"{Q}.numpy()",
    f"{Q}.requires_grad_()", f"{QC}.q_scale()", f"{Q}.q_per_channel_scales()", f"{QC}.t()",
    f"{QC}.permute(1, 0)", f"{QC}.reshape(3, 2)", f"{QC}.view(6)", f"T.cat([{QC}, {QC}])",
    f"T.quantize_per_tensor({X}.int(), 0.1, 0, T.quint8)",
    f"T.quantize_per_tensor({X}.double(), 0.1, 0, T.quint8)",
    f"T.quantize_per_tensor({X}, 0.1, 0, T.float32)",
    f"T.quantize_per_tensor({X}, 0.1, 300, T.quint8)",
    f"T.quantize_per_tensor({X}, 0.1, -1, T.quint8)",
    f"T.quantize_per_channel({X}, T.tensor([0.1, 0.2]), T.tensor([0, 0]), 2, T.qint8)",
    f"T.quantize_per_channel({X}, T.tensor([0.1, 0.2]), T.tensor([0, 0]), -1, T.qint8)",
    f"T.quantize_per_channel({X}, T.tensor([0.1, 0.2, 0.3]), T.tensor([0, 0, 0]), 0, T.quint8)",
    f"T.quantize_per_channel({X}.int(), T.tensor([0.1, 0.2]), T.tensor([0, 0]), 0, T.quint8)",
    f"{X}.int_repr()", f"{X}.q_scale()", "T.qint8.is_signed",
    "T.ao.quantization.quantize_dynamic(T.nn.Sequential(T.nn.LSTM(3, 2)), {T.nn.LSTM}, "
    "dtype=T.qint8)(T.ones(4, 3))",
]


def run(expr, mode):
    try:  # PyTorch may make a per-channel tensor it cannot print: that raises too
        r = eval(expr, {"T": torch})
        if mode == "repr":
            return ["repr", repr(r).replace("torch.", "torchlike.")]
        if isinstance(r, torch.Tensor):
            r = repr(r).replace("torch.", "torchlike.") if r.is_quantized else r.tolist()
    except Exception as e:  # noqa: BLE001
        return ["raises", type(e).__name__, str(e).split("\n")[0]]
    return ["value", list(r) if isinstance(r, tuple) else r]


def _sparse(hist):
    """A histogram as its length and its nonzero bins ([index, count] pairs)."""
    nz = np.nonzero(hist)[0]
    return [len(hist), [[int(i), float(hist[i])] for i in nz]]


def observer_cases():
    from torch.ao import quantization as tq
    configs = [
        ("MinMaxObserver", {}), ("MinMaxObserver", {"reduce_range": True}),
        ("MinMaxObserver", {"dtype": "qint8", "qscheme": "per_tensor_symmetric"}),
        ("MinMaxObserver", {"dtype": "quint8", "qscheme": "per_tensor_symmetric"}),
        ("MinMaxObserver", {"quant_min": 0, "quant_max": 127}),
        ("MinMaxObserver", {"dtype": "qint8", "qscheme": "per_tensor_symmetric",
                            "quant_min": -127, "quant_max": 127, "eps": 2 ** -12}),
        ("MinMaxObserver", {"dtype": "qint32"}),
        ("MovingAverageMinMaxObserver", {}),
        ("MovingAverageMinMaxObserver", {"averaging_constant": 0.3, "dtype": "qint8"}),
        ("PerChannelMinMaxObserver", {"dtype": "qint8", "qscheme": "per_channel_symmetric"}),
        ("PerChannelMinMaxObserver", {"ch_axis": 1}),
        ("PerChannelMinMaxObserver", {"dtype": "quint8",
                                      "qscheme": "per_channel_affine_float_qparams"}),
        ("MovingAveragePerChannelMinMaxObserver", {"ch_axis": 1, "averaging_constant": 0.2}),
        ("HistogramObserver", {}), ("HistogramObserver", {"reduce_range": True}),
        ("HistogramObserver", {"dtype": "qint8", "qscheme": "per_tensor_symmetric"}),
        ("HistogramObserver", {"bins": 64}),
    ]
    cases = []
    for name, kw in configs:
        args = dict(kw)
        for k in ("dtype", "qscheme"):
            if k in args:
                args[k] = getattr(torch, args[k])
        obs = getattr(tq, name)(**args)
        xs = [rng.normal(rng.uniform(-1, 1), rng.uniform(0.1, 3), (3, 4)).astype(np.float32)
              for _ in range(3)]
        if name == "MinMaxObserver" and kw == {}:
            xs[1][:] = np.abs(xs[1]) + 1  # all positive: the range still holds zero
        if name == "HistogramObserver" and kw.get("bins") == 64:
            xs[0][:] = 0.7  # one value first: the histogram of a point is re-binned
        for x in xs:
            obs(torch.from_numpy(x))
        scale, zp = obs.calculate_qparams()
        cases.append({"name": name, "kwargs": kw, "xs": [fl(x) for x in xs],
                      "min_val": fl(obs.min_val.numpy()), "max_val": fl(obs.max_val.numpy()),
                      "scale": fl(scale.numpy()), "zp": fl(zp.double().numpy()),
                      "zp_dtype": str(zp.dtype).split(".")[1],
                      "quant_min": obs.quant_min, "quant_max": obs.quant_max,
                      "histogram": _sparse(obs.histogram.numpy()) if hasattr(obs, "histogram")
                      else None})
    return cases


def kernel_cases():
    nnq = torch.ao.nn.quantized
    out = {"linear": [], "conv2d": [], "binary": [], "dynamic_linear": []}
    for i in range(8):
        m, k, n = int(rng.integers(1, 5)), int(rng.integers(1, 40)), int(rng.integers(1, 9))
        xshape = (2, m, k) if i in (2, 5) else (m, k)  # a batch of sequences too
        x = rng.normal(0, 2, xshape).astype(np.float32)
        w = rng.normal(0, 0.5, (n, k)).astype(np.float32)
        b = rng.normal(0, 1, n).astype(np.float32)
        xs, xz = float(rng.choice([0.02, 0.05, 0.037])), int(rng.integers(0, 256))
        os_, oz = float(rng.choice([0.05, 0.1, 0.0173])), int(rng.integers(0, 256))
        if i % 2:
            wsc = rng.uniform(0.005, 0.02, n)
            wq = torch.quantize_per_channel(torch.from_numpy(w), torch.tensor(wsc),
                                            torch.zeros(n, dtype=torch.long), 0, torch.qint8)
        else:
            wsc = [0.01]
            wq = torch.quantize_per_tensor(torch.from_numpy(w), 0.01, 0, torch.qint8)
        relu = i % 3 == 0
        lin = (torch.ao.nn.intrinsic.quantized.LinearReLU if relu else nnq.Linear)(k, n)
        lin.set_weight_bias(wq, torch.from_numpy(b))
        lin.scale, lin.zero_point = os_, oz
        xq = torch.quantize_per_tensor(torch.from_numpy(x), xs, xz, torch.quint8)
        y = lin(xq)
        out["linear"].append({"x": fl(x), "shape": list(xshape), "w": fl(w), "wshape": [n, k],
                              "wscales": fl(wsc), "per_channel": bool(i % 2), "b": fl(b),
                              "xs": xs, "xz": xz, "os": os_, "oz": oz, "relu": relu,
                              "ints": ints(y)})
        dyn = nnq.dynamic.Linear(k, n)
        dyn.set_weight_bias(wq, torch.from_numpy(b))
        out["dynamic_linear"].append({"x": fl(x), "shape": list(xshape), "w": fl(w), "wshape": [n, k],
                                      "wscales": fl(wsc), "per_channel": bool(i % 2),
                                      "b": fl(b), "y": fl(dyn(torch.from_numpy(x)).numpy())})
    convs = [(2, 1, 1, False)] * 6 + [(2, 2, 2, False), (2, 1, 1, True), (1, 2, 1, True)]
    for i, (dims, groups, dilation, one_d) in enumerate(convs):
        c = int(rng.integers(1, 4)) * groups
        o = int(rng.integers(1, 3)) * groups
        h = int(rng.integers(5, 9))
        stride, pad = int(rng.integers(1, 3)), int(rng.integers(0, 2))
        kernel = (3,) if one_d else (3, 2)
        xshape = (2, c, h) if one_d else (2, c, h, h + 1)
        x = rng.normal(0, 1, xshape).astype(np.float32)
        w = rng.normal(0, 0.3, (o, c // groups) + kernel).astype(np.float32)
        b = rng.normal(0, 0.5, o).astype(np.float32)
        xs, xz = 0.03, int(rng.integers(0, 256))
        os_, oz = float(rng.choice([0.05, 0.1])), int(rng.integers(0, 256))
        if i % 2:
            wsc = rng.uniform(0.002, 0.01, o)
            wq = torch.quantize_per_channel(torch.from_numpy(w), torch.tensor(wsc),
                                            torch.zeros(o, dtype=torch.long), 0, torch.qint8)
        else:
            wsc = [0.005]
            wq = torch.quantize_per_tensor(torch.from_numpy(w), 0.005, 0, torch.qint8)
        relu = i % 3 == 1
        nniq = torch.ao.nn.intrinsic.quantized
        cls = ((nniq.ConvReLU1d if relu else nnq.Conv1d) if one_d else
               (nniq.ConvReLU2d if relu else nnq.Conv2d))
        conv = cls(c, o, kernel, stride=stride, padding=pad, dilation=dilation, groups=groups)
        conv.set_weight_bias(wq, torch.from_numpy(b))
        conv.scale, conv.zero_point = os_, oz
        xq = torch.quantize_per_tensor(torch.from_numpy(x), xs, xz, torch.quint8)
        y = conv(xq)
        out["conv2d"].append({"x": fl(x), "shape": list(x.shape), "w": fl(w),
                              "wshape": list(w.shape), "wscales": fl(wsc),
                              "per_channel": bool(i % 2), "b": fl(b), "stride": stride,
                              "padding": pad, "dilation": dilation, "groups": groups,
                              "one_d": one_d, "xs": xs, "xz": xz, "os": os_, "oz": oz,
                              "relu": relu, "yshape": list(y.shape), "ints": ints(y)})
    for n in (5, 64, 100, 130):
        a = rng.normal(0, 2, n).astype(np.float32)
        b = rng.normal(0, 2, n).astype(np.float32)
        sa, za, sb, zb = 0.013, int(rng.integers(0, 256)), 0.07, int(rng.integers(0, 256))
        so, zo = 0.123, int(rng.integers(0, 256))
        qa = torch.quantize_per_tensor(torch.from_numpy(a), sa, za, torch.quint8)
        qb = torch.quantize_per_tensor(torch.from_numpy(b), sb, zb, torch.quint8)
        f = nnq.QFunctional()
        f.scale, f.zero_point = so, zo
        out["binary"].append({"a": fl(a), "b": fl(b), "sa": sa, "za": za, "sb": sb, "zb": zb,
                              "so": so, "zo": zo, "add": ints(f.add(qa, qb)),
                              "add_relu": ints(f.add_relu(qa, qb)), "mul": ints(f.mul(qa, qb)),
                              "cat": ints(f.cat([qa, qb]))})
    return out


class PTQNet(torch.nn.Module):
    """The model of the end-to-end case (tests/test_quantization.py builds the same)."""

    def __init__(self):
        super().__init__()
        self.quant = torch.ao.quantization.QuantStub()
        self.conv = torch.nn.Conv2d(2, 3, 3)
        self.relu = torch.nn.ReLU()
        self.fc = torch.nn.Linear(3 * 4 * 4, 4)
        self.dequant = torch.ao.quantization.DeQuantStub()

    def forward(self, x):
        x = self.relu(self.conv(self.quant(x)))
        return self.dequant(self.fc(x.flatten(1)))


POOLS = [
    "F.max_pool2d(q4, 2)", "F.max_pool2d(q4, 3, 2, 1)", "F.max_pool2d(q4, 2, ceil_mode=True)",
    "F.max_pool1d(q3, 3, 2)", "T.nn.MaxPool2d(2)(q4)", "F.avg_pool2d(q4, 2)",
    "F.avg_pool2d(q4, 3, 2, 1)", "F.avg_pool2d(q4, 3, 2, 1, count_include_pad=False)",
    "F.avg_pool1d(q3, 2)", "T.nn.AvgPool2d(3, 2)(q4)", "F.adaptive_avg_pool2d(q4, 1)",
    "F.adaptive_avg_pool2d(q4, (3, 4))", "T.nn.AdaptiveAvgPool2d((2, 5))(q4)",
    "F.adaptive_avg_pool1d(q3, 4)", "q4.mean()", "q4.mean((2, 3))", "q4.mean(1, keepdim=True)",
    "T.mean(q4, 3)", "T.nn.Dropout(0.3).eval()(q4)",
]


def pool_cases():
    """Pooling and means of quantized tensors: PyTorch's integers and qparams;
    the input of each zero point is stored once ("pool_inputs")."""
    cases, inputs = [], {}
    for zp in (3, 200):
        x = rng.normal(0, 2, (2, 3, 7, 9)).astype(np.float32)
        inputs[str(zp)] = fl(x)
        q4 = torch.quantize_per_tensor(torch.from_numpy(x), 0.05, zp, torch.quint8)
        q3 = q4[:, :, 0]
        for expr in POOLS:
            y = eval(expr, {"T": torch, "F": torch.nn.functional, "q4": q4, "q3": q3})
            cases.append({"zp": zp, "expr": expr, "shape": list(y.shape),
                          "qparams": [y.q_scale(), y.q_zero_point()], "ints": ints(y)})
    return cases, inputs


def ptq_cases():
    """Post-training quantization of PTQNet with each backend's default qconfig."""
    tq = torch.ao.quantization
    cases = []
    for backend, qat in (("x86", False), ("qnnpack", False), ("x86", True)):
        torch.backends.quantized.engine = "x86"  # the kernels: x86's (qnnpack only names a qconfig)
        model = PTQNet().eval()
        state = {k: fl(v.numpy()) for k, v in model.state_dict().items()}
        shapes = {k: list(v.shape) for k, v in model.state_dict().items()}
        if qat:  # fake quantization in training mode, observed by forward passes only
            model.qconfig = tq.get_default_qat_qconfig(backend)
            prepared = tq.prepare_qat(tq.fuse_modules(model, [["conv", "relu"]]).train())
        else:
            model.qconfig = tq.get_default_qconfig(backend)
            prepared = tq.prepare(tq.fuse_modules(model, [["conv", "relu"]]))
        batches = [rng.normal(0, 1, (3, 2, 6, 6)).astype(np.float32) for _ in range(2)]
        for b in batches:
            prepared(torch.from_numpy(b))
        q = tq.convert(prepared.eval())
        x = rng.normal(0, 1, (2, 2, 6, 6)).astype(np.float32)
        y = q(torch.from_numpy(x))
        cases.append({"backend": backend, "qat": qat, "state": state, "shapes": shapes,
                      "batches": [fl(b) for b in batches], "x": fl(x), "y": fl(y.numpy()),
                      "quant": [float(q.quant.scale), int(q.quant.zero_point)],
                      "conv": [q.conv.scale, q.conv.zero_point],
                      "fc": [q.fc.scale, q.fc.zero_point],
                      "conv_w": ints(q.conv.weight()), "fc_w": ints(q.fc.weight())})
    return cases


def lstm_cases():
    """quantize_dynamic of an nn.LSTM: its float weights, an input, PyTorch's outputs."""
    cases = []
    for layers, bidirectional, batch_first, unbatched in ((1, False, False, False),
                                                          (2, True, True, False)):
        lstm = torch.nn.LSTM(5, 4, num_layers=layers, bidirectional=bidirectional,
                             batch_first=batch_first)
        state = {k: fl(v.detach().numpy()) for k, v in lstm.state_dict().items()}
        shapes = {k: list(v.shape) for k, v in lstm.state_dict().items()}
        q = torch.ao.quantization.quantize_dynamic(torch.nn.Sequential(lstm), {torch.nn.LSTM},
                                                   dtype=torch.qint8)[0]
        xshape = (6, 5) if unbatched else ((3, 6, 5) if batch_first else (6, 3, 5))
        x = rng.normal(0, 1, xshape).astype(np.float32)
        y, (h, c) = q(torch.from_numpy(x))
        cases.append({"layers": layers, "bidirectional": bidirectional,
                      "batch_first": batch_first, "state": state, "shapes": shapes,
                      "x": fl(x), "xshape": list(xshape), "y": fl(y.numpy()),
                      "yshape": list(y.shape), "h": fl(h.numpy()), "c": fl(c.numpy())})
    return cases


def checkpoint():
    x = torch.tensor([[-1.0, 0.0, 0.5], [1.0, 2.5, 100.0]])
    obj = {"q": torch.quantize_per_tensor(x, 0.1, 10, torch.quint8),
           "qc": torch.quantize_per_channel(x, torch.tensor([0.1, 0.2]), torch.tensor([0, 3]),
                                            0, torch.qint8),
           "q32": torch.quantize_per_tensor(x, 0.5, -3, torch.qint32)}
    obj["qt"] = obj["q"].t()
    torch.save(obj, os.path.join(OUT, "quantized_checkpoint.pt"))


def model_checkpoint():
    """PyTorch's state dicts of a post-training quantized PTQNet (static conv
    and Linear, whose (weight, bias) PyTorch packs as _packed_params) and of a
    dynamically quantized MLP, with an input and PyTorch's output for each."""
    tq = torch.ao.quantization
    model = PTQNet().eval()
    model.qconfig = tq.get_default_qconfig("x86")
    prepared = tq.prepare(tq.fuse_modules(model, [["conv", "relu"]]))
    prepared(torch.from_numpy(rng.normal(0, 1, (4, 2, 6, 6)).astype(np.float32)))
    static = tq.convert(prepared)
    mlp = torch.nn.Sequential(torch.nn.Linear(5, 4), torch.nn.ReLU(), torch.nn.Linear(4, 3))
    dynamic = tq.quantize_dynamic(mlp, {torch.nn.Linear}, dtype=torch.qint8)
    x = torch.from_numpy(rng.normal(0, 1, (2, 2, 6, 6)).astype(np.float32))
    xd = torch.from_numpy(rng.normal(0, 1, (3, 5)).astype(np.float32))
    torch.save({"static": static.state_dict(), "dynamic": dynamic.state_dict(), "x": x,
                "y": static(x), "xd": xd, "yd": dynamic(xd)},
               os.path.join(OUT, "quantized_models.pt"))


def main():
    torch.manual_seed(0)  # the models' initial weights: the same file on every run
    golden = {"per_tensor": per_tensor_cases(), "per_channel": per_channel_cases(),
              "dynamic": dynamic_cases(),
              "reprs": [[e, run(e, "repr")] for e in REPRS],
              "values": [[e, run(e, "value")] for e in VALUES],
              "errors": [[e, run(e, "value")] for e in ERRORS],
              "observers": observer_cases(), **kernel_cases(), "ptq": ptq_cases(), "lstm": lstm_cases()}
    golden["pools"], golden["pool_inputs"] = pool_cases()
    with open(os.path.join(OUT, "quantization.json"), "w") as f:
        json.dump(golden, f, separators=(",", ":"))
    checkpoint()
    model_checkpoint()


if __name__ == "__main__":
    main()
