"""Quantization against PyTorch's recorded answers (scripts/golden_quantization.py,
PyTorch's x86 engine on the CPU): quantized tensors, observers, eager-mode
prepare/convert, quantized modules, checkpoints.

Where the answers are bit-exact (int_repr equal, floats equal):
  * quantize_per_tensor / quantize_per_channel (quint8, qint8; qint32 for
    |x / scale| < 2**24, beyond which PyTorch adds the zero point in float32)
    including NaN and infinities, dequantize, quantize_per_tensor_dynamic;
  * observers' min/max, scale and zero point (HistogramObserver's
    histogram and search too);
  * quantized Linear / LinearReLU / Conv2d / ConvReLU2d (int32 sums exact
    here; requantization rounded as PyTorch's), QFunctional add, add_relu,
    mul and cat.  add reproduces PyTorch's two dequantizations (fused
    multiply-add over blocks of 64 elements, the AVX-512 vector of its build,
    (q - zp) * scale for the rest): on a machine whose PyTorch uses 32-byte
    vectors the split differs, and results may differ by one step.
Not bit-exact: dynamic Linear's float output (PyTorch adds the float32
terms in another order): compared with rtol 1e-6, atol 1e-6."""
import io
import json
import math
import os
import pickle
import warnings
import zipfile

import numpy as np
import pytest

import torchlike as T
import torchlike.ao.quantization as tq
import torchlike.ao.nn.quantized as nnq
import torchlike.ao.nn.intrinsic.quantized as nniq
from oracle import assert_close

GOLDEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden")
with open(os.path.join(GOLDEN, "quantization.json")) as _f:
    G = json.load(_f)
DT = {"quint8": T.quint8, "qint8": T.qint8, "qint32": T.qint32}
warnings.filterwarnings("ignore", message=".*quantize_per_tensor, torch.quantize_per_channel.*")


def f32(values, shape=None):
    t = T.tensor(np.asarray(values, dtype=np.float32))
    return t.reshape(shape) if shape is not None else t


def ints(q):
    return q.int_repr().reshape(-1).tolist()


def same_floats(got, want):
    got = np.asarray(got, dtype=np.float64).reshape(-1)
    want = np.asarray(want, dtype=np.float64)
    assert got.shape == want.shape
    assert np.array_equal(got, want, equal_nan=True), (got[got != want], want[got != want])


# ---- quantized tensors ------------------------------------------------------------------------

@pytest.mark.parametrize("case", G["per_tensor"], ids=lambda c: f"{c['dtype']}-{len(c['x'])}")
def test_quantize_per_tensor_matches_pytorch(case):
    q = T.quantize_per_tensor(f32(case["x"]), case["scale"], case["zp"], DT[case["dtype"]])
    assert q.dtype is DT[case["dtype"]] and q.is_quantized
    assert q.q_scale() == case["scale"] and q.q_zero_point() == case["zp"]
    assert ints(q) == case["ints"]
    same_floats(q.dequantize(), case["dequant"])


@pytest.mark.parametrize("case", G["per_channel"], ids=lambda c: f"{c['dtype']}-{c['shape']}")
def test_quantize_per_channel_matches_pytorch(case):
    x = f32(case["x"], case["shape"])
    if case["float_zp"]:
        scales, zps = f32(case["scales"]), f32(case["zps"])
    else:
        scales = T.tensor(case["scales"], dtype=T.float64)
        zps = T.tensor([int(z) for z in case["zps"]])
    q = T.quantize_per_channel(x, scales, zps, case["axis"], DT[case["dtype"]])
    assert str(q.qscheme()) == "torchlike." + case["qscheme"]
    assert q.q_per_channel_axis() == case["axis"]
    assert q.q_per_channel_scales().dtype.name == case["scales_dtype"]
    assert q.q_per_channel_zero_points().dtype.name == case["zps_dtype"]
    same_floats(q.q_per_channel_scales().double(), case["scales_out"])
    assert ints(q) == case["ints"]
    same_floats(q.dequantize(), case["dequant"])


@pytest.mark.parametrize("case", G["dynamic"],
                         ids=lambda c: f"{c['dtype']}-{c['reduce_range']}-{c['x'][0]:.3}")
def test_quantize_per_tensor_dynamic_matches_pytorch(case):
    q = T.quantize_per_tensor_dynamic(f32(case["x"]), DT[case["dtype"]], case["reduce_range"])
    assert (q.q_scale(), q.q_zero_point()) == (case["scale"], case["zp"])
    assert ints(q) == case["ints"]


def _run(expr):
    try:
        return ["ok", eval(expr, {"T": T})]
    except Exception as e:  # noqa: BLE001
        return ["raises", type(e).__name__, str(e).split("\n")[0]]


def _words(text):
    """The repr without its layout: torchlike's names ('torchlike.quint8') are
    longer than PyTorch's, so the suffixes wrap at other places."""
    return " ".join(text.split())


@pytest.mark.parametrize("expr,want", G["reprs"], ids=[e[:60] for e, _ in G["reprs"]])
def test_repr_matches_pytorch(expr, want):
    got = _run(expr)
    assert got[0] == "ok", got
    assert _words(repr(got[1])) == _words(want[1])


@pytest.mark.parametrize("expr,want", G["values"], ids=[e[:60] for e, _ in G["values"]])
def test_values_match_pytorch(expr, want):
    got = _run(expr)
    assert got[0] == "ok", got
    value = got[1]
    if isinstance(value, str):
        value = value.replace("torchlike.", "torch.")
    if isinstance(value, T.Tensor):
        value = value.tolist()
    assert (list(value) if isinstance(value, tuple) else value) == want[1]


def _aten_base(message):
    """PyTorch names overloads ('aten::add.out'); torchlike names the op."""
    import re
    return re.sub(r"'aten::([a-z_]+)\.[A-Za-z_]+'", r"'aten::\1'", message)


@pytest.mark.parametrize("expr,want", G["errors"], ids=[e[:70] for e, _ in G["errors"]])
def test_refusals_match_pytorch(expr, want):
    got = _run(expr)
    assert got[0] == "raises", f"{expr} gave {got}"
    assert got[1] == want[1]
    # PyTorch's dispatcher adds the list of backends the op has after our sentence
    assert _aten_base(want[2]).startswith(_aten_base(got[2])), (got[2], want[2])


def test_views_share_memory_and_keep_qparams():
    q = T.quantize_per_tensor(T.arange(12.0).reshape(3, 4), 0.5, 3, T.quint8)
    v = q.t()[1:]
    assert v.q_scale() == 0.5 and v.q_zero_point() == 3
    assert v.untyped_storage().data_ptr() == q.untyped_storage().data_ptr()
    q.int_repr()  # a copy: writing it leaves q alone
    r = q.int_repr()
    r.fill_(0)
    assert ints(q) == [3 + 2 * k for k in range(12)]


def test_per_channel_views_keep_each_value():
    """Views of a per-channel tensor dequantize to the same view of its values.
    (Selecting along another dim is one PyTorch 2.15 gets wrong: its result
    cannot be dequantized, "Channel axis out of range ... Got:-1".)"""
    x = T.arange(24.0).reshape(3, 4, 2) / 7
    qc = T.quantize_per_channel(x, T.tensor([0.1, 0.2, 0.3]), T.tensor([0, 3, 5]), 0, T.quint8)
    whole = qc.dequantize()
    for index in ((Ellipsis, 1), (slice(None), 2), (slice(1, None), None, 0), (2,),
                  (slice(None, None, 2), slice(1, 3))):
        assert T.equal(qc[index].dequantize(), whole[index]), index
    assert T.equal(qc.select(1, 2).dequantize(), whole.select(1, 2))
    assert T.equal(qc.unsqueeze(1).squeeze(1).dequantize(), whole)


def test_quantized_dtypes_are_refused_by_plain_factories():
    with pytest.raises(RuntimeError, match="quantized dtype"):
        T.zeros(2, dtype=T.qint8)
    with pytest.raises(RuntimeError, match="quantized dtype"):
        T.ones(2).to(T.quint8)
    assert T.quint8 != T.uint8 and T.qint8 != T.int8


def test_quantizer_functions_refuse_plain_tensors():
    for name in ("int_repr", "q_scale", "q_zero_point", "q_per_channel_scales",
                 "q_per_channel_zero_points", "q_per_channel_axis"):
        with pytest.raises(NotImplementedError, match=f"'aten::{name}' with arguments from the "
                                                      f"'CPU' backend"):
            getattr(T, name)(T.ones(2))
    with pytest.raises(RuntimeError, match="only defined for quantized tensors"):
        T.ones(2).qscheme()


def test_quantized_dtypes_compare_and_pickle():
    assert T.quint8 != np.uint8 and T.qint8 != np.int8 and T.qint32 == "qint32"
    assert pickle.loads(pickle.dumps(T.quint8)) is T.quint8


def test_empty_quantized_takes_the_quantizer():
    q = T.quantize_per_tensor(T.ones(2), 0.25, 7, T.qint8)
    e = T.empty_quantized([3, 2], q)
    assert e.shape == (3, 2) and e.dtype is T.qint8 and (e.q_scale(), e.q_zero_point()) == (0.25, 7)


# ---- save / load ------------------------------------------------------------------------------

def test_pytorch_checkpoint_loads():
    d = T.load(os.path.join(GOLDEN, "quantized_checkpoint.pt"))
    x = T.tensor([[-1.0, 0.0, 0.5], [1.0, 2.5, 100.0]])
    assert T.equal(d["q"], T.quantize_per_tensor(x, 0.1, 10, T.quint8))
    assert T.equal(d["q32"], T.quantize_per_tensor(x, 0.5, -3, T.qint32))
    want = T.quantize_per_channel(x, T.tensor([0.1, 0.2]), T.tensor([0, 3]), 0, T.qint8)
    assert T.equal(d["qc"], want)
    assert d["qt"].stride() == (1, 3) and ints(d["qt"]) == ints(d["q"].t())


def test_save_load_round_trip_in_pytorch_format():
    x = T.tensor([[-1.0, 0.0, 0.5], [1.0, 2.5, 100.0]])
    obj = {"q": T.quantize_per_tensor(x, 0.1, 10, T.quint8),
           "qc": T.quantize_per_channel(x, T.tensor([0.1, 0.2]), T.tensor([0, 3]), 0, T.qint8)}
    buf = io.BytesIO()
    T.save(obj, buf)
    data = zipfile.ZipFile(io.BytesIO(buf.getvalue())).read("archive/data.pkl")
    assert b"_rebuild_qtensor" in data and b"QUInt8Storage" in data and b"per_tensor_affine" in data
    back = T.load(io.BytesIO(buf.getvalue()))
    assert T.equal(back["q"], obj["q"]) and T.equal(back["qc"], obj["qc"])
    assert T.equal(pickle.loads(pickle.dumps(obj["qc"])), obj["qc"])


def test_hostile_quantized_checkpoint_is_refused():
    """A data.pkl that hands _rebuild_qtensor a non-quantizer, or names
    another global beside it, raises before anything runs."""
    src = io.BytesIO()
    T.save(T.quantize_per_tensor(T.ones(3), 0.1, 0, T.quint8), src)
    z = zipfile.ZipFile(io.BytesIO(src.getvalue()))
    pkl = z.read("archive/data.pkl")
    for bad in (pkl.replace(b"torch\nper_tensor_affine", b"posix\nsystem      "),
                pkl.replace(b"torch\nper_tensor_affine", b"torch\nper_channel_affine")):
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w") as w:
            for name in z.namelist():
                w.writestr(name, bad if name.endswith("data.pkl") else z.read(name))
        with pytest.raises((pickle.UnpicklingError, RuntimeError)):
            T.load(io.BytesIO(out.getvalue()))


# ---- observers --------------------------------------------------------------------------------

@pytest.mark.parametrize("case", G["observers"], ids=lambda c: f"{c['name']}-{c['kwargs']}")
def test_observer_qparams_match_pytorch(case):
    kwargs = dict(case["kwargs"])
    for k in ("dtype", "qscheme"):
        if k in kwargs:
            kwargs[k] = getattr(T, kwargs[k])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        obs = getattr(tq, case["name"])(**kwargs)
    for x in case["xs"]:
        out = obs(f32(x, (3, 4)))
    assert isinstance(out, T.Tensor)
    assert (obs.quant_min, obs.quant_max) == (case["quant_min"], case["quant_max"])
    same_floats(obs.min_val, case["min_val"])
    same_floats(obs.max_val, case["max_val"])
    scale, zp = obs.calculate_qparams()
    same_floats(scale, case["scale"])
    same_floats(zp.double(), case["zp"])
    assert zp.dtype.name == case["zp_dtype"]
    if case["histogram"] is not None:  # [bins, [[index, count] of the nonzero bins]]
        bins, nonzero = case["histogram"]
        want = np.zeros(bins)
        for i, count in nonzero:
            want[i] = count
        same_floats(obs.histogram, want)


def test_observer_before_data_returns_defaults_and_warns():
    with pytest.warns(UserWarning, match="must run observer"):
        scale, zp = tq.MinMaxObserver().calculate_qparams()
    assert scale.tolist() == [1.0] and zp.tolist() == [0]


def test_observer_arguments_are_checked():
    with pytest.raises(NotImplementedError, match="Cannot reduce range"):
        tq.MinMaxObserver(qscheme=T.per_tensor_symmetric, reduce_range=True)
    with pytest.raises(AssertionError, match="must include 0"):
        tq.MinMaxObserver(quant_min=1, quant_max=10)
    with pytest.raises(ValueError, match="observer instance"):
        tq.QConfig(activation=tq.MinMaxObserver(), weight=tq.default_weight_observer)


def test_fake_quantize_rounds_through_the_observed_grid():
    fq = tq.default_fake_quant()
    x = T.tensor([-1.0, 0.3, 2.0, 5.0])
    y = fq(x)
    scale, zp = fq.scale.item(), int(fq.zero_point.item())
    want = T.fake_quantize_per_tensor_affine(x, scale, zp, fq.quant_min, fq.quant_max)
    assert (fq.quant_min, fq.quant_max) == (0, 127)  # reduce_range halves 0..255
    assert T.equal(y, want)
    fq.disable_fake_quant()
    assert T.equal(fq(x), x)


# ---- quantized modules ------------------------------------------------------------------------

def _weight(case, shape_key="wshape"):
    w = f32(case["w"], case[shape_key])
    if case["per_channel"]:
        n = w.shape[0]
        return T.quantize_per_channel(w, T.tensor(case["wscales"], dtype=T.float64),
                                      T.zeros(n, dtype=T.int64), 0, T.qint8)
    return T.quantize_per_tensor(w, case["wscales"][0], 0, T.qint8)


@pytest.mark.parametrize("case", G["linear"], ids=lambda c: f"{c['shape']}-{c['per_channel']}")
def test_quantized_linear_matches_pytorch(case):
    n, k = case["wshape"]
    mod = (nniq.LinearReLU if case["relu"] else nnq.Linear)(k, n)
    mod.set_weight_bias(_weight(case), f32(case["b"]))
    mod.scale, mod.zero_point = case["os"], case["oz"]
    xq = T.quantize_per_tensor(f32(case["x"], case["shape"]), case["xs"], case["xz"], T.quint8)
    y = mod(xq)
    assert (y.q_scale(), y.q_zero_point()) == (case["os"], case["oz"])
    assert ints(y) == case["ints"]


@pytest.mark.parametrize("case", G["conv2d"],
                         ids=lambda c: f"{c['shape']}-{c['per_channel']}-g{c['groups']}")
def test_quantized_conv_matches_pytorch(case):
    o, cg = case["wshape"][:2]
    if case["one_d"]:
        cls = nniq.ConvReLU1d if case["relu"] else nnq.Conv1d
    else:
        cls = nniq.ConvReLU2d if case["relu"] else nnq.Conv2d
    mod = cls(cg * case["groups"], o, tuple(case["wshape"][2:]), stride=case["stride"],
              padding=case["padding"], dilation=case["dilation"], groups=case["groups"])
    mod.set_weight_bias(_weight(case), f32(case["b"]))
    mod.scale, mod.zero_point = case["os"], case["oz"]
    xq = T.quantize_per_tensor(f32(case["x"], case["shape"]), case["xs"], case["xz"], T.quint8)
    y = mod(xq)
    assert list(y.shape) == case["yshape"]
    assert ints(y) == case["ints"]


@pytest.mark.parametrize("case", G["binary"], ids=lambda c: str(len(c["a"])))
def test_qfunctional_matches_pytorch(case):
    qa = T.quantize_per_tensor(f32(case["a"]), case["sa"], case["za"], T.quint8)
    qb = T.quantize_per_tensor(f32(case["b"]), case["sb"], case["zb"], T.quint8)
    f = nnq.QFunctional()
    f.scale, f.zero_point = case["so"], case["zo"]
    for name in ("add", "add_relu", "mul"):
        assert ints(getattr(f, name)(qa, qb)) == case[name], name
    assert ints(f.cat([qa, qb])) == case["cat"]


@pytest.mark.parametrize("case", G["dynamic_linear"],
                         ids=lambda c: f"{c['shape']}-{c['per_channel']}")
def test_dynamic_linear_matches_pytorch(case):
    n, k = case["wshape"]
    mod = nnq.dynamic.Linear(k, n)
    mod.set_weight_bias(_weight(case), f32(case["b"]))
    y = mod(f32(case["x"], case["shape"]))
    np.testing.assert_allclose(y.numpy().reshape(-1), case["y"], rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("case", G["lstm"],
                         ids=lambda c: f"l{c['layers']}-bi{c['bidirectional']}-{c['xshape']}")
def test_dynamic_lstm_matches_pytorch(case):
    """Each gate is a dynamic linear (integers exact), the cell float32: PyTorch
    evaluates sigmoid/tanh with its own vector code: outputs agree to 1e-6 (an ulp or two)."""
    lstm = T.nn.LSTM(5, 4, num_layers=case["layers"], bidirectional=case["bidirectional"],
                     batch_first=case["batch_first"])
    lstm.load_state_dict({k: f32(v, case["shapes"][k]) for k, v in case["state"].items()})
    q = tq.quantize_dynamic(T.nn.Sequential(lstm), {T.nn.LSTM}, dtype=T.qint8)[0]
    assert isinstance(q, nnq.dynamic.LSTM)
    y, (h, c) = q(f32(case["x"], case["xshape"]))
    assert list(y.shape) == case["yshape"]
    for got, want in ((y, case["y"]), (h, case["h"]), (c, case["c"])):
        np.testing.assert_allclose(got.numpy().reshape(-1), want, rtol=1e-6, atol=1e-6)


def test_quantized_module_refuses_float_input():
    with pytest.raises(RuntimeError, match="quint8 quantized input"):
        nnq.Linear(3, 2)(T.ones(1, 3))
    with pytest.raises(RuntimeError, match="qint8 quantized tensor"):
        nnq.Linear(3, 2).set_weight_bias(T.ones(2, 3), None)


@pytest.mark.parametrize("case", G["pools"], ids=lambda c: f"zp{c['zp']}-{c['expr']}")
def test_pooling_and_means_match_pytorch(case):
    """Max pooling, means and global average pooling: PyTorch's integers
    exactly.  Other average pooling: PyTorch rounds a window average that
    falls exactly on .5 up in some cases and to even in others (not one rule
    we found); torchlike rounds half to even, so such ties may differ by one
    step, and nothing else does."""
    x = G["pool_inputs"][str(case["zp"])]
    q4 = T.quantize_per_tensor(f32(x, (2, 3, 7, 9)), 0.05, case["zp"], T.quint8)
    y = eval(case["expr"], {"T": T, "F": T.nn.functional, "q4": q4, "q3": q4[:, :, 0]})
    assert list(y.shape) == case["shape"]
    assert [y.q_scale(), y.q_zero_point()] == case["qparams"]
    if "avg" not in case["expr"].lower() or "adaptive_avg_pool2d(q4, 1)" in case["expr"]:
        assert ints(y) == case["ints"]
        return
    got, want = np.array(ints(y)), np.array(case["ints"])
    assert np.abs(got - want).max() <= 1
    # every difference is at a tie of the average, which the float values show
    x = eval(case["expr"].replace("q4", "d4").replace("q3", "d3"),
             {"T": T, "F": T.nn.functional, "d4": q4.int_repr().double() - case["zp"],
              "d3": q4.int_repr().double()[:, :, 0] - case["zp"]})
    frac = np.abs(np.asarray(x).reshape(-1) % 1 - 0.5)
    assert (frac[got != want] < 1e-9).all()


def test_relu6_clamps_in_the_grid():
    q = T.quantize_per_tensor(T.tensor([-2.0, 0.5, 5.0, 9.0]), 0.05, 40, T.quint8)
    y = nnq.ReLU6()(q)
    assert y.dequantize().tolist() == [0.0, 0.5, 5.0, 6.0]


# ---- eager-mode post-training quantization ----------------------------------------------------

class _Net(T.nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = tq.QuantStub()
        self.conv = T.nn.Conv2d(2, 3, 3)
        self.bn = T.nn.BatchNorm2d(3)
        self.relu = T.nn.ReLU()
        self.fc = T.nn.Linear(3 * 4 * 4, 4)
        self.dequant = tq.DeQuantStub()

    def forward(self, x):
        x = self.relu(self.bn(self.conv(self.quant(x))))
        return self.dequant(self.fc(x.flatten(1)))


def test_fuse_prepare_convert_gives_a_quantized_model():
    T.manual_seed(0)
    model = _Net().eval()
    model.qconfig = tq.default_qconfig
    fused = tq.fuse_modules(model, [["conv", "bn", "relu"]])
    assert type(fused.conv).__name__ == "ConvReLU2d" and isinstance(fused.bn, T.nn.Identity)
    x = T.randn(3, 2, 6, 6)
    np.testing.assert_allclose(fused(x).detach().numpy(), model(x).detach().numpy(),
                               rtol=1e-4, atol=1e-5)
    prepared = tq.prepare(fused)
    assert isinstance(prepared.fc.activation_post_process, tq.MinMaxObserver)
    prepared(x)
    obs = prepared.fc.activation_post_process
    scale, zp = obs.calculate_qparams()
    converted = tq.convert(prepared)
    assert isinstance(converted.quant, nnq.Quantize) and isinstance(converted.fc, nnq.Linear)
    assert isinstance(converted.conv, nniq.ConvReLU2d)
    assert (converted.fc.scale, converted.fc.zero_point) == (float(scale), int(zp))
    assert not hasattr(converted.fc, "qconfig")
    y = converted(x)
    assert y.dtype is T.float32
    # within a few steps of the output grid of the float model
    assert float((y - fused(x)).abs().max()) < 8 * converted.fc.scale


class _PTQNet(T.nn.Module):
    """scripts/golden_quantization.py's PTQNet."""

    def __init__(self):
        super().__init__()
        self.quant = tq.QuantStub()
        self.conv = T.nn.Conv2d(2, 3, 3)
        self.relu = T.nn.ReLU()
        self.fc = T.nn.Linear(3 * 4 * 4, 4)
        self.dequant = tq.DeQuantStub()

    def forward(self, x):
        x = self.relu(self.conv(self.quant(x)))
        return self.dequant(self.fc(x.flatten(1)))


@pytest.mark.parametrize("case", G["ptq"], ids=lambda c: c["backend"] + ("-qat" if c["qat"] else ""))
def test_post_training_quantization_matches_pytorch(case):
    """PyTorch's weights, its default qconfig (histogram observer on
    activations; or its QAT qconfig through prepare_qat), fuse / prepare /
    calibrate / convert: the same input
    qparams and quantized weights exactly.  The observers after conv and fc
    see float conv / linear outputs, whose sums PyTorch (oneDNN) adds in
    another order: their scales agree to rtol 1e-5, their zero points
    exactly, and the outputs to one output step."""
    model = _PTQNet().eval()
    model.load_state_dict({k: f32(v, case["shapes"][k]) for k, v in case["state"].items()})
    if case["qat"]:  # fake-quantized training modules, observed by forward passes
        model.qconfig = tq.get_default_qat_qconfig(case["backend"])
        prepared = tq.prepare_qat(tq.fuse_modules(model, [["conv", "relu"]]).train())
        assert type(prepared.fc).__name__ == "Linear" and hasattr(prepared.fc, "weight_fake_quant")
    else:
        model.qconfig = tq.get_default_qconfig(case["backend"])
        prepared = tq.prepare(tq.fuse_modules(model, [["conv", "relu"]]))
    for b in case["batches"]:
        prepared(f32(b, (3, 2, 6, 6)))
    q = tq.convert(prepared.eval())
    assert [float(q.quant.scale), int(q.quant.zero_point)] == case["quant"]
    for mod, (scale, zp) in ((q.conv, case["conv"]), (q.fc, case["fc"])):
        assert math.isclose(mod.scale, scale, rel_tol=1e-5) and mod.zero_point == zp
    assert ints(q.conv.weight()) == case["conv_w"] and ints(q.fc.weight()) == case["fc_w"]
    y = q(f32(case["x"], (2, 2, 6, 6))).numpy().reshape(-1)
    np.testing.assert_allclose(y, case["y"], rtol=0, atol=1.01 * case["fc"][0])


def test_quantize_dynamic_swaps_linear():
    T.manual_seed(0)
    model = T.nn.Sequential(T.nn.Linear(5, 4), T.nn.ReLU(), T.nn.Linear(4, 2))
    q = tq.quantize_dynamic(model, {T.nn.Linear}, dtype=T.qint8)
    assert isinstance(q[0], nnq.dynamic.Linear) and isinstance(model[0], T.nn.Linear)
    x = T.randn(6, 5)
    np.testing.assert_allclose(q(x).detach().numpy(), model(x).detach().numpy(), atol=0.05)


def test_aliases_are_pytorchs_module_paths():
    import torchlike.quantization as old
    assert old.MinMaxObserver is tq.MinMaxObserver
    assert T.nn.quantized.Linear is nnq.Linear
    assert T.ao.quantization.QuantStub is tq.QuantStub
    assert math.isclose(T.ao.quantization.default_observer().quant_max, 127)


def test_quantized_engine_is_x86s():
    assert T.backends.quantized.engine == "x86"
    assert T.backends.quantized.supported_engines == ["x86", "fbgemm"]
    T.backends.quantized.engine = "fbgemm"
    assert T.backends.quantized.engine == "fbgemm"
    T.backends.quantized.engine = "x86"
    with pytest.raises(RuntimeError, match="not a valid value for quantized engine"):
        T.backends.quantized.engine = "qnnpack"


def _converted(model, qconfig, calibration):
    model.qconfig = qconfig
    prepared = tq.prepare(model)
    prepared(calibration)
    return tq.convert(prepared)


def test_pytorch_quantized_model_checkpoints_load():
    """State dicts PyTorch saved (tests/golden/quantized_models.pt): a static
    PTQNet, whose Linear packs (weight, bias) as _packed_params, and a dynamic
    MLP load into the same models converted here (other calibrations, other
    weights) and then give PyTorch's outputs: the static one bit for bit, the
    dynamic one to float32 rounding (its float accumulation order)."""
    golden = T.load(os.path.join(GOLDEN, "quantized_models.pt"))
    T.manual_seed(3)
    static = _converted(tq.fuse_modules(_PTQNet().eval(), [["conv", "relu"]]),
                        tq.get_default_qconfig("x86"), T.randn(4, 2, 6, 6))
    assert static.load_state_dict(golden["static"]).missing_keys == []
    assert T.equal(static(golden["x"]), golden["y"])
    mlp = T.nn.Sequential(T.nn.Linear(5, 4), T.nn.ReLU(), T.nn.Linear(4, 3))
    dynamic = tq.quantize_dynamic(mlp, {T.nn.Linear}, dtype=T.qint8)
    dynamic.load_state_dict(golden["dynamic"])
    assert_close(dynamic(golden["xd"]), golden["yd"], rtol=1e-6, atol=1e-6)
    # ours saves the same keys, kinds and values back
    for name, model in (("static", static), ("dynamic", dynamic)):
        buf = io.BytesIO()
        T.save(model.state_dict(), buf)
        ours, theirs = T.load(io.BytesIO(buf.getvalue())), golden[name]
        assert list(ours) == list(theirs), name
        for key in ours:
            a, b = ours[key], theirs[key]
            # (PyTorch's conv bias comes back a Parameter, ours a tensor)
            assert type(a) is type(b) or isinstance(a, T.Tensor) and isinstance(b, T.Tensor), key
            pairs = zip(a, b) if isinstance(a, tuple) else [(a, b)]
            assert all(x is y if not isinstance(x, T.Tensor) else T.equal(x, y)
                       for x, y in pairs), key


def test_quantized_linear_state_dict_refusals():
    q = tq.quantize_dynamic(T.nn.Sequential(T.nn.Linear(3, 2)), {T.nn.Linear}, dtype=T.qint8)
    state = q.state_dict()
    del state["0._packed_params._packed_params"]
    with pytest.raises(RuntimeError, match="Missing key.*0._packed_params._packed_params"):
        q.load_state_dict(state)
    state = q.state_dict()
    state["0._packed_params.dtype"] = T.quint8
    with pytest.raises(RuntimeError, match="packs qint8 or float16 weights, not"):
        q.load_state_dict(state)
    state["0._packed_params.dtype"] = T.float16  # a float16 layer takes float weights
    with pytest.raises(RuntimeError, match="the weight must be a float tensor, got .*qint8"):
        q.load_state_dict(state)
    static = nnq.Linear(3, 2)
    state = {k[2:]: v for k, v in q.state_dict().items()}
    state["_packed_params.dtype"] = T.float16
    with pytest.raises(RuntimeError, match="holds qint8 weights, the checkpoint has"):
        static.load_state_dict(state)


def test_quantized_model_state_dict_and_deepcopy_round_trip():
    """A converted model's state (int8 weights, biases, scales, zero points)
    saves, loads into a fresh converted model and deep-copies unchanged."""
    import copy
    T.manual_seed(0)
    model = _PTQNet().eval()
    model.qconfig = tq.default_qconfig
    prepared = tq.prepare(model)
    prepared(T.randn(4, 2, 6, 6))
    q = tq.convert(prepared)
    buf = io.BytesIO()
    T.save(q.state_dict(), buf)
    state = T.load(io.BytesIO(buf.getvalue()))
    assert state["fc._packed_params._packed_params"][0].dtype is T.qint8
    assert state["conv.weight"].dtype is T.qint8 and state["quant.scale"].dtype is T.float32
    T.manual_seed(1)
    other = _PTQNet().eval()
    other.qconfig = tq.default_qconfig
    prepared = tq.prepare(other)
    prepared(T.randn(4, 2, 6, 6))
    other = tq.convert(prepared)
    other.load_state_dict(state)
    x = T.randn(3, 2, 6, 6)
    assert T.equal(other(x), q(x))
    assert T.equal(copy.deepcopy(q)(x), q(x))
    assert T.equal(other.fc.weight(), q.fc.weight()) and other.fc.scale == q.fc.scale
