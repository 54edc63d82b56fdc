"""Dynamic quantization of recurrent layers (LSTM, GRU, LSTMCell, GRUCell,
RNNCell) and float16 dynamic quantization (Linear and the recurrent ones)
against PyTorch's recorded answers (scripts/golden_quantization2.py, x86).

Exact: the int8 weights (integers and scales) and the float16 ones, reprs,
state-dict keys and the packed layout.  Not bit-exact: the float outputs
(PyTorch's GEMMs add the float32 terms in another order and its sigmoid
and tanh are its own vector code): compared with rtol 1e-6, atol 1e-6."""
import io
import math
import re
import os
import warnings
import zipfile

import pytest

import torchlike as T
import torchlike.ao.quantization as tq
import torchlike.ao.nn.quantized as nnq
import torchlike.ao.nn.quantized.dynamic as nnqd
from oracle import assert_close

warnings.filterwarnings("ignore", message=".*quantize_per_tensor, torch.quantize_per_channel.*")
GOLDEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden")
# weights_only=False: the packed RNN weights are torch.ScriptObjects, which
# PyTorch's weights-only loader refuses as well.
G = T.load(os.path.join(GOLDEN, "quantized_rnn.pt"), weights_only=False)
CASES = sorted(k for k in G if k != "errors")
nn = T.nn
FLOAT = {
    "lstm": lambda: nn.LSTM(5, 4),
    "lstm2": lambda: nn.LSTM(5, 4, num_layers=2, bidirectional=True, batch_first=True),
    "gru": lambda: nn.GRU(5, 4),
    "gru2": lambda: nn.GRU(5, 4, num_layers=2, bidirectional=True, batch_first=True),
    "lstmcell": lambda: nn.LSTMCell(5, 4), "grucell": lambda: nn.GRUCell(5, 4),
    "rnncell": lambda: nn.RNNCell(5, 4),
    "rnncell_relu": lambda: nn.RNNCell(5, 4, nonlinearity="relu"),
    "linear": lambda: nn.Linear(5, 4),
}
DYNAMIC = {"lstm": nnqd.LSTM, "gru": nnqd.GRU, "lstmcell": nnqd.LSTMCell,
           "grucell": nnqd.GRUCell, "rnncell": nnqd.RNNCell, "linear": nnqd.Linear}


def _split(key):
    name, dtype = key.rsplit("_", 1)
    return name, getattr(T, dtype)


def _quantized(key):
    name, dtype = _split(key)
    f = FLOAT[name]()
    f.load_state_dict(G[key]["float"])
    return tq.quantize_dynamic(nn.Sequential(f), dtype=dtype)


def _args(e):
    if e["hx"] is None:
        return (e["x"],)
    return (e["x"], e["hx"][0] if len(e["hx"]) == 1 else tuple(e["hx"]))


def _flat(o):
    return [o] if isinstance(o, T.Tensor) else [t for x in o for t in _flat(x)]


def _check_outputs(got, want):
    got, want = _flat(got), _flat(want)
    assert len(got) == len(want)
    for a, b in zip(got, want):
        assert tuple(a.shape) == tuple(b.shape) and a.dtype is T.float32
        scale = max(1.0, float(b.abs().max()))  # the saturated float16 Linear reaches 1e5
        assert_close(a, b, rtol=1e-6, atol=1e-6 * scale)


@pytest.mark.parametrize("key", CASES)
def test_dynamic_modules_match_pytorch(key):
    e = G[key]
    q = _quantized(key)
    mod = q[0]
    assert repr(mod) == e["repr"].replace("torch.", "torchlike.")
    with T.no_grad():
        _check_outputs(mod(*_args(e)), e["out"])
    assert list(q.state_dict()) == list(e["quant"])


@pytest.mark.parametrize("key", [k for k in CASES if "weights" in G[k]])
def test_int8_weights_equal_pytorchs(key):
    mod = _quantized(key)[0]
    ours = mod.get_weight()
    assert list(ours) == list(G[key]["weights"])
    for name, want in G[key]["weights"].items():
        got = ours[name]
        assert got.dtype is T.qint8 and got.qscheme() is T.per_tensor_affine
        assert got.q_scale() == want.q_scale() and got.q_zero_point() == want.q_zero_point()
        assert T.equal(got.int_repr(), want.int_repr())


def test_float16_weights_round_and_saturate_as_pytorch():
    """PyTorch's float16 packing: saturated at +-65504, rounded to float16
    (1e-9 flushes to 0), unpacked as float32."""
    key = "linear_float16"
    mod = _quantized(key)[0]
    want, _ = G[key]["quant"]["0._packed_params._packed_params"]
    assert mod.weight().dtype is T.float32 and T.equal(mod.weight(), want)
    assert float(mod.weight()[0, 0]) == 65504.0 and float(mod.weight()[0, 1]) == -65504.0
    assert float(mod.weight()[0, 2]) == 0.0
    assert G[key]["quant"]["0._packed_params.dtype"] is T.float16
    assert _quantized(key).state_dict()["0._packed_params.dtype"] is T.float16


def _fresh(key):
    """The dynamic module built directly (placeholder weights), as PyTorch's
    load_state_dict target would be."""
    name, dtype = _split(key)
    base = name.rstrip("2").replace("_relu", "")
    kw = {"dtype": dtype}
    if name.endswith("2"):
        kw.update(num_layers=2, bidirectional=True, batch_first=True)
    if name == "rnncell_relu":
        kw["nonlinearity"] = "relu"
    if base == "linear":
        return nnqd.Linear(5, 4, dtype=dtype)
    return DYNAMIC[base](5, 4, **kw)


@pytest.mark.parametrize("key", CASES)
def test_pytorch_state_dict_loads(key):
    """PyTorch's state dict (its packed layout) loads into a module built
    directly and gives PyTorch's outputs."""
    e = G[key]
    q = nn.Sequential(_fresh(key))
    q.load_state_dict(e["quant"])
    with T.no_grad():
        _check_outputs(q[0](*_args(e)), e["out"])


@pytest.mark.parametrize("key", ["lstm2_qint8", "gru2_float16", "lstmcell_qint8",
                                 "rnncell_float16", "linear_float16"])
def test_state_dict_save_load_round_trip(key):
    """Ours saves PyTorch's layout (torch.ScriptObject, NEWOBJ + BUILD of
    (payload, class name)) and loads back unchanged."""
    e = G[key]
    q = _quantized(key)
    buf = io.BytesIO()
    T.save(q.state_dict(), buf)
    data = zipfile.ZipFile(io.BytesIO(buf.getvalue()))
    pkl = data.read([n for n in data.namelist() if n.endswith("data.pkl")][0])
    if "linear" not in key:
        assert b"ctorch\nScriptObject\n" in pkl and b"\x81" in pkl  # GLOBAL, NEWOBJ
        assert b"__torch__.torch.classes.quantized.LinearPackedParamsBase" in pkl
    buf.seek(0)
    state = T.load(buf, weights_only=False)
    for k, v in state.items():  # the payloads are laid out as PyTorch's
        want = e["quant"][k]
        if hasattr(want, "_payload"):
            assert v._qualified_name == want._qualified_name
            p, w = v._payload, want._payload
            if isinstance(w[0], str):
                assert p[0] == w[0] and [len(a) for a in p[1:]] == [len(a) for a in w[1:]]
                assert p[3] == w[3]
    target = nn.Sequential(_fresh(key))
    target.load_state_dict(state)
    with T.no_grad():
        _check_outputs(target[0](*_args(e)), e["out"])
    buf.seek(0)
    if "linear" not in key:
        with pytest.raises(Exception, match="ScriptObject"):
            T.load(buf)  # weights_only refuses TorchScript objects, as PyTorch does


def test_bad_input_errors_match_pytorch():
    errs = G["errors"]
    T.manual_seed(1)
    cell = tq.quantize_dynamic(nn.Sequential(nn.LSTMCell(3, 2)))[0]
    gru = tq.quantize_dynamic(nn.Sequential(nn.GRU(3, 2)))[0]
    cases = {
        "cell_size": lambda: cell(T.randn(4, 5)),
        "cell_batch": lambda: cell(T.randn(4, 3), (T.randn(3, 2), T.randn(3, 2))),
        "gru_ndim": lambda: gru(T.randn(4, 3)),
        "gru_size": lambda: gru(T.randn(4, 2, 5)),
        "gru_hidden": lambda: gru(T.randn(4, 2, 3), T.randn(1, 3, 2)),
        "bias_false": lambda: tq.quantize_dynamic(nn.Sequential(nn.GRUCell(3, 2, bias=False))),
        "dtype_quint4": lambda: tq.quantize_dynamic(nn.Sequential(nn.GRU(3, 2)), dtype=T.qint32),
    }
    for name, f in cases.items():
        kind, msg = errs[name]
        with pytest.raises(Exception) as info:
            f()
        assert type(info.value).__name__ == kind and str(info.value) == msg.replace(
            "torch.", "torchlike."), name
    with pytest.raises(RuntimeError, match="float32 input, got torchlike.float64"):
        cell(T.randn(4, 3).double())  # PyTorch: "expected scalar type Float but found Double"
    with pytest.raises(RuntimeError, match=r"input must be \(batch, input_size\), got 1"):
        cell(T.randn(3))
    with pytest.raises(RuntimeError, match="float32 input"):
        gru(T.quantize_per_tensor(T.randn(4, 2, 3), 0.1, 0, T.quint8))


def test_quantize_dynamic_specs():
    """The default spec of each dtype, a set with a dtype, a per-type qconfig;
    modules without a dynamic counterpart (nn.RNN) stay float, as in PyTorch."""
    T.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.GRUCell(4, 2), nn.RNN(3, 2), nn.LSTM(3, 2))
    q = tq.quantize_dynamic(model)
    assert [type(m) for m in q] == [nnqd.Linear, nnqd.GRUCell, nn.RNN, nnqd.LSTM]
    q16 = tq.quantize_dynamic(model, dtype=T.float16)
    assert q16[0]._packed_dtype() is T.float16 and q16[1].weight_dtype is T.float16
    assert q16[3].dtype is T.float16
    qs = tq.quantize_dynamic(model, {nn.LSTM}, dtype=T.float16)
    assert [type(m) for m in qs] == [nn.Linear, nn.GRUCell, nn.RNN, nnqd.LSTM]
    assert qs[3].dtype is T.float16
    qd = tq.quantize_dynamic(model, {nn.Linear: tq.float16_dynamic_qconfig,
                                     nn.GRUCell: tq.default_dynamic_qconfig})
    assert qd[0]._packed_dtype() is T.float16 and qd[1].weight_dtype is T.qint8
    with pytest.raises(RuntimeError, match="Unknown dtype specified for quantize_dynamic"):
        tq.quantize_dynamic(model, {nn.Linear}, dtype=T.qint32)
    with pytest.raises(RuntimeError, match="Unsupported dtype for dynamic RNN quantization"):
        tq.quantize_dynamic(model, {nn.LSTM: tq.default_qconfig.__class__(
            activation=tq.default_dynamic_quant_observer,
            weight=tq.MinMaxObserver.with_args(dtype=T.quint8))})


def test_set_weight_bias_checks_dtypes():
    lstm = nnqd.LSTM(3, 2)
    wb = {"weight": lstm.get_weight(), "bias": lstm.get_bias()}
    wb["weight"]["weight_ih_l0"] = T.zeros(8, 3)
    with pytest.raises(RuntimeError, match="qint8 quantized weights, got torchlike.float32"):
        lstm.set_weight_bias(wb)
    cell = nnqd.GRUCell(3, 2, dtype=T.float16)
    wb = {"weight": cell.get_weight(), "bias": cell.get_bias()}
    wb["weight"]["weight_hh"] = T.quantize_per_tensor(T.zeros(6, 2), 1.0, 0, T.qint8)
    with pytest.raises(RuntimeError, match="float32 weights, got torchlike.qint8"):
        cell.set_weight_bias(wb)
    with pytest.raises(ValueError, match="Unsupported dtype for dynamic RNN quantization"):
        nnqd.GRU(3, 2, dtype=T.quint8)
    with pytest.raises(RuntimeError, match="Unsupported dtype specified for dynamic quantized"):
        nnqd.Linear(3, 2, dtype=T.quint8)
    state = tq.quantize_dynamic(nn.Sequential(nn.GRU(3, 2)), dtype=T.float16).state_dict()
    with pytest.raises(RuntimeError, match="weights are torchlike.float16, the module's "
                                           "torchlike.qint8"):
        nn.Sequential(nnqd.GRU(3, 2)).load_state_dict(state)


# ---- weight-only quantized Embedding / EmbeddingBag ---------------------------------------

E = T.load(os.path.join(GOLDEN, "quantized_embedding.pt"))


def _float_embeddings():
    model = nn.Sequential(nn.Embedding(10, 70), nn.EmbeddingBag(10, 70, mode="mean"),
                          nn.EmbeddingBag(10, 7, mode="sum", include_last_offset=True))
    model.load_state_dict(E["float"])
    return model


def _lookups(q):
    """The recorded lookups, run on q (PyTorch's quantized EmbeddingBag sums
    whatever its mode says: the golden's mode="mean" bag sums too)."""
    idx1, idx2, offsets, psw = E["idx1"], E["idx2"], E["offsets"], E["psw"]
    return {"emb2": q[0](idx2), "emb1": q[0](idx1), "bag_offsets": q[1](idx1, offsets),
            "bag_2d": q[1](idx2), "bag_psw": q[1](idx1, offsets, per_sample_weights=psw),
            "bagsum_last": q[2](idx1, T.tensor([0, 2, 2, 9]), per_sample_weights=psw)}


def test_quantized_embeddings_match_pytorch_bit_for_bit():
    q = tq.quantize_dynamic(_float_embeddings(), dtype=T.quint8)
    assert [repr(m) for m in q] == [r.replace("torch.", "torchlike.") for r in E["reprs"]]
    state = q.state_dict()
    assert list(state) == list(E["quant"])
    for k, want in E["quant"].items():
        got = state[k]
        if k.endswith("dtype"):
            assert got is T.quint8 and want is T.quint8
            continue
        assert got.qscheme() is T.per_channel_affine_float_qparams and got.dtype is T.quint8
        assert T.equal(got.int_repr(), want.int_repr())
        assert T.equal(got.q_per_channel_scales(), want.q_per_channel_scales())
        assert T.equal(got.q_per_channel_zero_points(), want.q_per_channel_zero_points())
        assert got.q_per_channel_scales().dtype is T.float32
    for name, got in _lookups(q).items():
        want = E["outs"][name]
        assert tuple(got.shape) == tuple(want.shape) and got.dtype is T.float32, name
        assert T.equal(got, want), name


def test_embeddings_prepare_convert_and_state_dict_round_trip():
    model = _float_embeddings()
    model.qconfig = tq.float_qparams_weight_only_qconfig
    prepared = tq.prepare(model)
    assert type(prepared[0].activation_post_process).__name__ == "PlaceholderObserver"
    converted = tq.convert(prepared)
    assert isinstance(converted[0], nnq.Embedding) and isinstance(converted[1], nnq.EmbeddingBag)
    assert T.equal(converted[0](E["idx2"]), E["outs"]["conv_emb"])
    assert T.equal(converted[1](E["idx1"], E["offsets"]), E["outs"]["conv_bag"])
    # PyTorch's state dict loads into modules built directly; ours saves and loads back
    fresh = nn.Sequential(nnq.Embedding(10, 70), nnq.EmbeddingBag(10, 70),
                          nnq.EmbeddingBag(10, 7, include_last_offset=True))
    fresh.load_state_dict(E["converted"] | {k: v for k, v in E["quant"].items()
                                            if k.startswith("2.")})
    for name, got in _lookups(fresh).items():
        assert T.equal(got, E["outs"][name]), name
    buf = io.BytesIO()
    T.save(fresh.state_dict(), buf)
    buf.seek(0)
    again = nn.Sequential(nnq.Embedding(10, 70), nnq.EmbeddingBag(10, 70),
                          nnq.EmbeddingBag(10, 7, include_last_offset=True))
    again.load_state_dict(T.load(buf))  # plain tensors: weights_only loads it
    for name, got in _lookups(again).items():
        assert T.equal(got, E["outs"][name]), name


def test_quantized_embedding_bad_input():
    errs = E["errors"]
    q = tq.quantize_dynamic(_float_embeddings(), dtype=T.quint8)
    with pytest.raises(RuntimeError, match=errs["no_offsets"][1]):
        q[1](E["idx1"])
    with pytest.raises(RuntimeError, match="Expect 32 or 64 bit indices, but found "):
        q[0](T.tensor([1.0]))
    with pytest.raises(RuntimeError, match=errs["idx_0d"][1]):
        q[0](T.tensor(3))
    with pytest.raises(IndexError, match="index 10 is out of range for 10 embeddings"):
        q[0](T.tensor([1, 10]))
    with pytest.raises(IndexError, match="index -1 is out of range"):
        q[1](T.tensor([1, -1]), T.tensor([0]))
    with pytest.raises(RuntimeError, match=r"per_sample_weights must be float32 of the indices' "
                                           r"shape \(2,\)"):
        q[1](T.tensor([1, 2]), T.tensor([0]), per_sample_weights=T.ones(3))
    with pytest.raises(RuntimeError, match="offsets .* must be non-decreasing"):
        q[1](T.tensor([1, 2]), T.tensor([0, 3]))
    m = nn.Sequential(nn.Embedding(5, 3))
    m[0].qconfig = tq.default_qconfig
    kind, msg = errs["qconfig"]
    with pytest.raises(AssertionError, match=msg):
        tq.convert(tq.prepare(m))
    with pytest.raises(RuntimeError, match="quint8 quantized per row with float qparams"):
        nnq.Embedding(3, 2).set_weight(T.quantize_per_tensor(T.zeros(3, 2), 0.1, 0, T.quint8))
    with pytest.raises(AssertionError, match=r"expected \[3, 2\], got \[4, 2\]"):
        nnq.Embedding(3, 2).set_weight(T.quantize_per_channel(
            T.zeros(4, 2), T.ones(4), T.zeros(4), 0, T.quint8))
    with pytest.raises(NotImplementedError, match="quint4x2"):
        nnq.Embedding(3, 2, dtype=T.quint4x2)


# ---- activations, norms, Conv3d, ConvTranspose ---------------------------------------------

O = T.load(os.path.join(GOLDEN, "quantized_ops.pt"))


def _env():
    return {"nnq": nnq, "P": nn.Parameter, **O["params"]}


def _steps_off(got, want_ints):
    return (got.int_repr().int() - want_ints.int()).abs()


@pytest.mark.parametrize("case", O["direct"], ids=lambda c: c["expr"])
def test_quantized_float_op_modules_match_pytorch(case):
    """Hardswish, ELU, LeakyReLU, Sigmoid, Softmax, the norms, Dropout: the
    output integers and qparams PyTorch gives, module reprs and state-dict keys."""
    mod = eval(case["expr"], _env())
    if "state" in case:
        mod.load_state_dict(case["state"])
    assert repr(mod) == case["repr"]
    assert list(mod.state_dict()) == case["keys"]
    with T.no_grad():
        y = mod(O["inputs"][case["input"]])
    assert y.dtype is T.quint8 and tuple(y.shape) == tuple(case["ints"].shape)
    assert [y.q_scale(), y.q_zero_point()] == case["qparams"]
    assert int(_steps_off(y, case["ints"]).max()) == 0


@pytest.mark.parametrize("case", O["convs"], ids=lambda c: c["expr"])
def test_quantized_conv3d_and_conv_transpose_match_pytorch(case):
    """The output integers are those of PyTorch's float64 convolution (or
    transposed one) of the dequantized operands, quantized; and PyTorch's
    quantized kernel's where it agrees with that (Conv3d and some transposed
    configurations: PyTorch's x86 ConvTranspose departs from its own float
    transposed convolution in the others)."""
    mod = eval(case["expr"], _env())
    mod.set_weight_bias(case["w"], case["b"])
    mod.scale, mod.zero_point = 0.08, 110
    assert repr(mod) == case["repr"]
    assert list(mod.state_dict()) == case["keys"]
    y = mod(O["inputs"][case["input"]])
    assert tuple(y.shape) == tuple(case["ints"].shape)
    assert T.equal(y.int_repr(), case["float_ref_ints"])
    if case["pytorch_agrees"]:
        assert T.equal(y.int_repr(), case["ints"])
    fresh = eval(case["expr"], _env())  # state dict round trip
    fresh.load_state_dict(mod.state_dict())
    assert T.equal(fresh(O["inputs"][case["input"]]).int_repr(), case["float_ref_ints"])


FLOAT_MODELS = {
    "m2d": lambda: nn.Sequential(tq.QuantStub(), nn.Conv2d(3, 6, 3, padding=1), nn.BatchNorm2d(6),
                                 nn.Hardswish(),
                                 nn.ConvTranspose2d(6, 4, 3, stride=2, padding=1, output_padding=1),
                                 nn.LeakyReLU(0.2), nn.GroupNorm(2, 4), nn.ELU(),
                                 nn.LayerNorm([12]), nn.InstanceNorm2d(4, affine=True),
                                 nn.Dropout(0.3), tq.DeQuantStub()),
    "m3d": lambda: nn.Sequential(tq.QuantStub(), nn.Conv3d(2, 4, 2), nn.BatchNorm3d(4),
                                 nn.InstanceNorm3d(4), tq.DeQuantStub()),
    "m1d": lambda: nn.Sequential(tq.QuantStub(), nn.Conv1d(3, 5, 3, stride=2),
                                 nn.InstanceNorm1d(5), tq.DeQuantStub()),
}


def _scale_of(value):
    return float(value.reshape(-1)[0]) if isinstance(value, T.Tensor) else float(value)


@pytest.mark.parametrize("name", sorted(FLOAT_MODELS))
def test_prepare_convert_of_new_modules_matches_pytorch(name):
    """A float model through prepare / convert (default_qconfig): every layer
    swapped as PyTorch swaps it, the same qparams and weights, and the output
    within one output step of PyTorch's (the observers watch float conv
    outputs summed in another order)."""
    g = O["models"][name]
    model = FLOAT_MODELS[name]().eval()
    model.load_state_dict(g["float"])
    model.qconfig = tq.default_qconfig
    prepared = tq.prepare(model)
    for b in g["batches"]:
        prepared(b)
    q = tq.convert(prepared)
    def masked(r):  # scales after a float conv may differ in the last bits (compared below)
        return re.sub(r"scale=[0-9.e-]+", "scale=S", r.replace("torchlike.", "torch."))
    assert masked(repr(q)) == masked(g["repr"])
    state = q.state_dict()
    assert list(state) == list(g["quant"])
    for k, want in g["quant"].items():
        got = state[k]
        if isinstance(want, T.Tensor) and want.is_quantized:
            assert T.equal(got.int_repr(), want.int_repr()), k
        elif k.endswith("scale"):
            assert math.isclose(_scale_of(got), _scale_of(want), rel_tol=1e-5), k
        elif isinstance(want, T.Tensor):
            assert_close(got.detach().float(), want.detach().float(), rtol=1e-6, atol=1e-6)
    y = q(g["x"])
    last_scale = [_scale_of(v) for k, v in state.items() if k.endswith("scale")][-1]
    assert float((y - g["y"]).abs().max()) <= last_scale + 1e-6


def test_new_modules_bad_input():
    hs = nnq.Hardswish(0.1, 10)
    with pytest.raises(RuntimeError, match="quantized::hardswish: expected a quint8 quantized"):
        hs(T.randn(3))
    with pytest.raises(ValueError, match=r"Input shape must be `\(N, C, D, H, W\)`!"):
        nnq.Conv3d(2, 2, 1)(T.quantize_per_tensor(T.randn(1, 2, 3, 3), 0.1, 0, T.quint8))
    with pytest.raises(ValueError, match=r"Input shape must be `\(N, C, H, W\)`!"):
        nnq.BatchNorm2d(2)(T.quantize_per_tensor(T.randn(1, 2, 3), 0.1, 0, T.quint8))
    ct = nnq.ConvTranspose2d(2, 2, 1)
    with pytest.raises(RuntimeError, match="Per Channel Quantization is currently disabled"):
        ct.set_weight_bias(T.quantize_per_channel(T.randn(2, 2, 1, 1), T.ones(2) * 0.1,
                                                  T.zeros(2, dtype=T.int64), 0, T.qint8), None)
        ct(T.quantize_per_tensor(T.randn(1, 2, 3, 3), 0.1, 0, T.quint8))
    with pytest.raises(ValueError, match='Only "zeros" padding mode'):
        nnq.ConvTranspose1d(2, 2, 1, padding_mode="reflect")
    q = T.quantize_per_tensor(T.randn(2, 3), 0.1, 3, T.quint8)
    assert nnq.Dropout(0.9).train()(q) is q  # a pass-through in training mode too


def test_packed_state_dict_refusals():
    """A state dict entry that is not the packed object PyTorch writes is
    refused with a message naming the key and what was expected."""
    from torchlike._quantized.script_object import ScriptObject, pack_linear
    q = nn.Sequential(nnqd.LSTM(3, 2))
    state = q.state_dict()
    state["0._all_weight_values.0.param"] = pack_linear(T.zeros(8, 3), None)
    with pytest.raises(RuntimeError, match="0._all_weight_values.0.param: expected a "
                                           "torch.ScriptObject of CellParamsBase, got "
                                           ".*LinearPackedParamsBase"):
        q.load_state_dict(state)
    state["0._all_weight_values.0.param"] = ScriptObject(
        ("quantized_weird", [], [], [], []), "__torch__.torch.classes.rnn.CellParamsBase")
    with pytest.raises(RuntimeError, match="unsupported CellParamsBase"):
        q.load_state_dict(state)
    cell = nn.Sequential(nnqd.GRUCell(3, 2))
    state = cell.state_dict()
    state["0._packed_weight_hh"] = T.zeros(6, 2)
    with pytest.raises(RuntimeError, match="0._packed_weight_hh: expected a torch.ScriptObject "
                                           "of LinearPackedParamsBase, got Tensor"):
        cell.load_state_dict(state)
    with pytest.raises(RuntimeError, match="expected the state \\(payload, qualified"):
        ScriptObject().__setstate__(("no name",))
    del state["0._packed_weight_hh"]
    with pytest.raises(RuntimeError, match="Missing key.*0._packed_weight_hh"):
        cell.load_state_dict(state)


def test_legacy_namespaces_export_the_new_modules():
    assert T.nn.quantized.dynamic.GRU is nnqd.GRU and T.nn.quantized.EmbeddingBag is \
        nnq.EmbeddingBag
    assert T.nn.quantized.LayerNorm is nnq.LayerNorm
    assert tq.get_default_dynamic_quant_module_mappings()[nn.GRUCell] is nnqd.GRUCell
    assert tq.get_default_static_quant_module_mappings()[nn.ConvTranspose2d] is \
        nnq.ConvTranspose2d
