"""FX graph mode quantization (prepare_fx / prepare_qat_fx / convert_fx /
fuse_fx with QConfigMapping) and the fixed-qparams quantized ops, against
PyTorch's recorded answers (scripts/golden_quantization3.py, x86, the
models of tests/quantization_fx_cases.py).

Exact: the prepared and converted graphs' code (PyTorch's node and
attribute names, up to the library's spelling of functions), the modules,
which observers are shared, the state-dict keys, the quantized weights,
and the outputs of our converted model holding PyTorch's state dict (a
PyTorch checkpoint loads and computes PyTorch's integers).  The
calibrated qparams agree to 1e-5 (scales) and one step (zero points): the
observers watch float conv / linear outputs, summed in another order."""
import io
import os
import re
import sys
import warnings

import pytest

import torchlike as T
import torchlike.ao.quantization as tq
from torchlike.ao.quantization import quantize_fx as qfx
from oracle import assert_close

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import quantization_fx_cases as cases  # noqa: E402

warnings.filterwarnings("ignore", message=".*quantize_per_tensor, torch.quantize_per_channel.*")
GOLDEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden")
# weights_only=False: a packed F.linear weight is a torch.ScriptObject
G = T.load(os.path.join(GOLDEN, "quantized_fx.pt"), weights_only=False)
MODELS = sorted(cases.models(T))


def _code(src):
    """Generated code with the library's spellings made PyTorch's."""
    src = re.sub(r"torchlike__ops_(\w+)\(", r"torch.ops.quantized.\1(", src)
    src = src.replace("torchlike.", "torch.").replace("torch._C._nn.", "torch.nn.functional.")
    # torchlike's torch.relu is F.relu (one function): the graph names it so
    src = src.replace(" torch.relu(", " torch.nn.functional.relu(")
    src = src.replace(", inplace = False)", ")")
    return [line.rstrip() for line in src.strip().splitlines() if line.strip()]


def _run(name):
    g = G[name]
    return cases.run(T, name, g["float"], g["batches"])


@pytest.fixture(scope="module")
def converted():
    return {name: _run(name) for name in MODELS}


@pytest.mark.parametrize("name", MODELS)
def test_prepared_graph(name, converted):
    g = G[name]
    prepared, _ = converted[name]
    assert _code(prepared.code) == _code(g["prepared_code"])
    assert [(n, type(m).__name__) for n, m in prepared.named_children()] == \
        g["prepared_children"]
    qparams, shared = cases.observers(prepared)
    assert shared == g["shared"]
    assert sorted(qparams) == sorted(g["observers"])
    for key, (scales, zps) in g["observers"].items():
        ours_s, ours_z = qparams[key]
        assert_close(T.tensor(ours_s), T.tensor(scales), rtol=1e-5, atol=0)
        assert max(abs(a - b) for a, b in zip(ours_z, zps)) <= 1, key


@pytest.mark.parametrize("name", MODELS)
def test_converted_graph(name, converted):
    g = G[name]
    _, q = converted[name]
    assert _code(q.code) == _code(g["code"])
    assert [(n, type(m).__name__) for n, m in q.named_children()] == g["children"]
    state = q.state_dict()
    assert list(state) == list(g["quant"])
    for key, theirs in g["quant"].items():
        ours = state[key]
        if isinstance(theirs, T.Tensor) and theirs.is_quantized:
            assert ours.dtype == theirs.dtype and ours.qscheme() == theirs.qscheme(), key
        elif isinstance(theirs, T.Tensor):
            assert ours.dtype == theirs.dtype and ours.shape == theirs.shape, key


def _weights(value):
    """The quantized weights inside a state dict entry."""
    if isinstance(value, tuple):
        return [w for w in value if isinstance(w, T.Tensor) and w.is_quantized]
    if type(value).__name__ == "ScriptObject":  # a packed Linear: (weight, bias)
        return _weights(value._payload)
    return [value] if isinstance(value, T.Tensor) and value.is_quantized else []


@pytest.mark.parametrize("name", MODELS)
def test_quantized_weights_equal(name, converted):
    """The int8 weights come from observers of the float weights: exact
    (batch norm folded first in float32, as PyTorch)."""
    _, q = converted[name]
    state = q.state_dict()
    for key, theirs in G[name]["quant"].items():
        for ours_w, their_w in zip(_weights(state[key]), _weights(theirs)):
            assert T.equal(ours_w.int_repr(), their_w.int_repr()), key
            assert ours_w.qscheme() == their_w.qscheme(), key
            if ours_w.qscheme() == T.per_tensor_affine:
                assert ours_w.q_scale() == their_w.q_scale(), key
            else:
                assert_close(ours_w.q_per_channel_scales(), their_w.q_per_channel_scales(),
                             rtol=0, atol=0)


@pytest.mark.parametrize("name", MODELS)
def test_pytorch_checkpoint_gives_pytorch_outputs(name, converted):
    g = G[name]
    _, q = converted[name]
    q.load_state_dict(g["quant"])
    with T.no_grad():
        out = q(g["x"])
    assert T.equal(out, g["out"]), (out, g["out"])
    theirs = re.sub(r"\btorch\.", "torchlike.", g["repr"])
    assert repr(q) == theirs


@pytest.mark.parametrize("name", MODELS)
def test_state_dict_round_trip(name):
    g = G[name]
    _, q = _run(name)
    buf = io.BytesIO()
    T.save(q.state_dict(), buf)
    buf.seek(0)
    _, again = _run(name)
    again.load_state_dict(g["quant"])  # other values first, then ours
    again.load_state_dict(T.load(buf, weights_only=False))
    assert T.equal(again(g["x"]), q(g["x"]))


def test_fuse_fx():
    g = G["fuse_cnn"]
    model = cases.models(T)["cnn"][0]()
    model.load_state_dict(G["cnn"]["float"])
    fused = qfx.fuse_fx(model.eval())
    assert _code(fused.code) == _code(g["code"])
    state = fused.state_dict()
    assert list(state) == list(g["state"])
    for key, value in g["state"].items():
        assert_close(state[key], value, rtol=1e-6, atol=1e-7)
    assert_close(fused(G["cnn"]["x"]).detach(), g["out"], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("key", sorted(G["fixed_ops"], key=str))
def test_fixed_qparams_ops(key):
    """Quantized sigmoid / tanh / hardsigmoid at PyTorch's fixed output
    qparams: every quint8 input value."""
    name, scale, zp = key
    ints, out_scale, out_zp = G["fixed_ops"][key]
    q = T._make_per_tensor_quantized_tensor(T.arange(256, dtype=T.uint8), scale, zp)
    results = [getattr(T.nn.functional, name)(q)]
    if name != "hardsigmoid":  # PyTorch has no Tensor.hardsigmoid
        results += [getattr(q, name)(), getattr(T, name)(q)]
    for r in results:
        assert T.equal(r.int_repr(), ints)
        assert r.q_scale() == out_scale and r.q_zero_point() == out_zp


def _mlp():
    return cases.models(T)["mlp"][0]().eval()


def test_errors_as_pytorch():
    errors = G["errors"]
    with pytest.raises(LookupError) as e:
        qfx.prepare_fx(_mlp(), tq.QConfigMapping().set_object_type(T.nn.Linear,
                                                                    tq.default_qconfig),
                       (T.randn(2, 5),))
    kind, msg = errors["fusion_qconfigs"]
    assert kind == "LookupError" and str(e.value).split(" in ")[0] == msg.split(" in ")[0]
    assert str(e.value).endswith("offending type: <class 'torchlike.nn.modules.activation."
                                 "ReLU'>")
    with pytest.raises(AssertionError, match=errors["convert_float"][1]):
        qfx.convert_fx(T.fx.symbolic_trace(_mlp()))
    # PyTorch prepares an eval-mode model for QAT without complaint
    assert errors["qat_eval"] is None
    qfx.prepare_qat_fx(_mlp(), tq.get_default_qat_qconfig_mapping(), (T.randn(2, 5),))


def test_bad_calls():
    mapping = tq.get_default_qconfig_mapping()
    with pytest.raises(TypeError, match="example_inputs must be a tuple"):
        qfx.prepare_fx(_mlp(), mapping, T.randn(2, 5))
    with pytest.raises(TypeError, match="QConfigMapping"):
        qfx.prepare_fx(_mlp(), tq.default_qconfig, (T.randn(2, 5),))
    with pytest.raises(TypeError, match="torch.nn.Module"):
        qfx.prepare_fx(lambda x: x, mapping, (T.randn(2, 5),))
    from torchlike.ao.quantization.backend_config import BackendConfig
    with pytest.raises(NotImplementedError, match="native / x86 / fbgemm"):
        qfx.prepare_fx(_mlp(), mapping, (T.randn(2, 5),),
                       backend_config=BackendConfig("qnnpack"))
    dynamic = tq.QConfigMapping().set_global(tq.default_dynamic_qconfig)
    with pytest.raises(NotImplementedError, match="static int8 only"):
        qfx.prepare_fx(_mlp(), dynamic, (T.randn(2, 5),))
    with pytest.raises(NotImplementedError, match="qconfig_mapping"):
        qfx.convert_fx(qfx.prepare_fx(_mlp(), mapping, (T.randn(2, 5),)),
                       qconfig_mapping=mapping)


def test_qconfig_mapping_precedence_and_dict_form():
    q1, q2, q3 = tq.default_qconfig, tq.get_default_qconfig("x86"), tq.default_qat_qconfig
    m = (tq.QConfigMapping().set_global(q1).set_object_type(T.nn.Linear, q2)
         .set_module_name("a.b", q3).set_module_name_regex("x.*", None))
    assert m._for_type_or_name(T.nn.Linear, "a.b.c", q1) is q3  # longest name prefix
    assert m._for_type_or_name(T.nn.Linear, "a", q1) is q2      # type over global
    assert m._for_type_or_name(T.nn.Conv2d, "", q1) is q1
    assert m._for_type_or_name(T.nn.Linear, "xy", q1) is None   # regex over type
    again = tq.QConfigMapping.from_dict(m.to_dict())
    assert again.to_dict() == m.to_dict()
    with pytest.raises(ValueError, match="Unknown key"):
        tq.QConfigMapping.from_dict({"bogus": []})
    with pytest.warns(FutureWarning):
        prepared = qfx.prepare_fx(_mlp(), {"": q1, "module_name": [("l2", None)]},
                                  (T.randn(2, 5),))
    assert "l2 = self.l2(activation_post_process_1)" in prepared.code


def test_prepare_leaves_the_model_alone():
    model = _mlp()
    before = {k: v.clone() for k, v in model.state_dict().items()}
    qfx.prepare_fx(model, tq.get_default_qconfig_mapping(), (T.randn(2, 5),))
    assert [type(m).__name__ for m in model.children()] == ["Linear"] * 3
    assert all(T.equal(model.state_dict()[k], v) for k, v in before.items())


def test_no_pt2e_as_pytorch_2_15():
    """PyTorch 2.15 moved the PT2E flow out to torchao: neither has it."""
    with pytest.raises(ModuleNotFoundError):
        import torchlike.ao.quantization.quantize_pt2e  # noqa: F401
    with pytest.raises(ModuleNotFoundError):
        import torchlike.ao.quantization.quantizer  # noqa: F401


# ---- fused, 3-d and PReLU modules (built directly and through eager convert) -------------

M = G["modules"]
nnq = T.ao.nn.quantized
nniq = T.ao.nn.intrinsic.quantized


def _torch_repr(text):
    return re.sub(r"\btorch\.", "torchlike.", text)


@pytest.mark.parametrize("name", ["prelu3", "prelu1", "prelu3_big"])
def test_prelu_integers(name):
    """PyTorch's integer prelu kernel, bit for bit; its state dict is empty
    (weight and qparams are plain attributes), as PyTorch's."""
    g = M[name]
    m = nnq.PReLU(0.02, 90, g["w"].numel())
    m.set_weight(g["w"])
    out = m(g["x"])
    assert T.equal(out.int_repr(), g["out"].int_repr())
    assert (out.q_scale(), out.q_zero_point()) == (g["out"].q_scale(), g["out"].q_zero_point())
    assert list(m.state_dict()) == list(g["state"]) == []
    assert repr(m) == g["repr"]


@pytest.mark.parametrize("dims", [2, 3])
def test_bn_relu(dims):
    g = M[f"bnrelu{dims}d"]
    m = getattr(nniq, f"BNReLU{dims}d")(3)
    m.load_state_dict(g["state"])
    out = m(g["x"])
    assert T.equal(out.int_repr(), g["out"].int_repr())
    assert list(m.state_dict()) == list(g["state"])
    assert repr(m) == g["repr"]


def test_conv_relu3d():
    g = M["convrelu3d"]
    m = nniq.ConvReLU3d(4, 3, 3, padding=1)
    m.load_state_dict(g["state"])
    m.scale = 0.1  # as the golden set it (a float64; the state dict holds float32)
    assert T.equal(m(g["x"]).int_repr(), g["out"].int_repr())
    assert repr(m) == _torch_repr(g["repr"])


@pytest.mark.parametrize("name", ["ct3_plain", "ct3_stride", "ct3_groups"])
def test_conv_transpose3d(name):
    """Equal to PyTorch's kernel and to its float64 transposed convolution of
    the dequantized operands (the two agree on these cases)."""
    g = M[name]
    m = nnq.ConvTranspose3d(4, 4, (2, 3, 3), **g["kw"])
    m.load_state_dict(g["state"])
    m.scale = 0.2  # as the golden set it (a float64; the state dict holds float32)
    out = m(g["x"])
    assert T.equal(out.int_repr(), g["out"].int_repr())
    assert T.equal(out.int_repr(), g["ref"].int_repr())
    assert repr(m) == _torch_repr(g["repr"])
    assert list(m.state_dict()) == list(g["state"])


def _eager3d():
    tq_ = tq
    model = T.nn.Sequential(tq_.QuantStub(), T.nn.Conv3d(2, 3, 3), T.nn.BatchNorm3d(3),
                            T.nn.ReLU(), T.nn.ConvTranspose3d(3, 2, 2, stride=2),
                            T.nn.PReLU(2), tq_.DeQuantStub())
    model.load_state_dict(M["eager3d"]["float"])
    model.eval()
    model.qconfig = tq_.get_default_qconfig("x86")
    model[4].qconfig = tq_.QConfig(activation=model.qconfig.activation,
                                   weight=tq_.default_weight_observer)
    model[5].qconfig = tq_.QConfig(activation=tq_.HistogramObserver, weight=tq_.MinMaxObserver)
    prepared = tq_.prepare(tq_.fuse_modules(model, [["1", "2", "3"]]))
    for b in M["eager3d"]["batches"]:
        prepared(b)
    return tq_.convert(prepared)


def test_eager_conv3d_bn_relu_conv_transpose3d_prelu():
    """fuse_modules (Conv3d + BatchNorm3d + ReLU -> ConvReLU3d), prepare,
    convert: PyTorch's modules and state dict keys; with PyTorch's state dict
    (and its PReLU weight, which the state dict does not hold) the outputs
    are PyTorch's."""
    g = M["eager3d"]
    q = _eager3d()
    assert list(q.state_dict()) == list(g["state"])
    # PyTorch's PReLU weight is not in its state dict: the quantized weights agree
    assert T.equal(q[5].weight.int_repr(), g["prelu_w"].int_repr())
    assert q[5].weight.q_scale() == g["prelu_w"].q_scale()
    q.load_state_dict(g["state"])
    q[5].set_weight(g["prelu_w"])
    q[5].scale, q[5].zero_point = g["prelu_qparams"]
    h3 = q[3](q[2](q[1](q[0](g["x"]))))
    assert T.equal(h3.int_repr(), g["h3"].int_repr())
    # PyTorch's transposed-convolution kernel departs from its float64 transposed
    # convolution on this layer; ours is the latter
    assert not T.equal(g["h4"].int_repr(), g["ref4"].int_repr())
    assert T.equal(q[4](h3).int_repr(), g["ref4"].int_repr())
    assert T.equal(q[6](q[5](g["h4"])), g["out"])
    assert repr(q) == _torch_repr(g["repr"])


def test_eager_bn_relu():
    g = M["eager_bnrelu"]
    model = T.nn.Sequential(tq.QuantStub(), T.nn.BatchNorm2d(3), T.nn.ReLU(),
                            tq.DeQuantStub()).eval()
    model.load_state_dict(g["float"])
    model.qconfig = tq.get_default_qconfig("x86")
    fused = tq.fuse_modules(model, [["1", "2"]])
    assert repr(fused) == g["fused_repr"]
    prepared = tq.prepare(fused)
    prepared(g["calib"])
    q = tq.convert(prepared)
    assert list(q.state_dict()) == list(g["state"])
    q.load_state_dict(g["state"])
    assert T.equal(q(g["x"]), g["out"])
    assert repr(q) == _torch_repr(g["repr"])


@pytest.mark.parametrize("name", ["linear_leaky_relu", "linear_tanh", "conv_add",
                                  "conv_add_relu", "prelu_channels", "prelu_0d"])
def test_module_errors_as_pytorch(name):
    """The onednn-only fused modules have no x86 kernel in PyTorch: the same
    RuntimeError; PReLU's bad shapes."""
    lin = T.quantize_per_tensor(T.randn(2, 4), 0.05, 128, T.quint8)
    img = T.quantize_per_tensor(T.randn(1, 2, 5, 5), 0.05, 128, T.quint8)
    calls = {"linear_leaky_relu": lambda: nniq.LinearLeakyReLU(4, 3, 0.1)(lin),
             "linear_tanh": lambda: nniq.LinearTanh(4, 3)(lin),
             "conv_add": lambda: nniq.ConvAdd2d(2, 2, 3, padding=1)(img, img),
             "conv_add_relu": lambda: nniq.ConvAddReLU2d(2, 2, 3, padding=1)(img, img),
             "prelu_0d": lambda: nnq.PReLU(0.1, 0)(
                 T.quantize_per_tensor(T.tensor(1.0), 0.1, 0, T.quint8)),
             "prelu_channels": lambda: nnq.PReLU(0.1, 0, 3)(img)}
    kind, msg = M["errors"][name]
    with pytest.raises(RuntimeError) as e:
        calls[name]()
    assert kind == "RuntimeError"
    if name != "prelu_0d":  # PyTorch's words there name a type promotion; ours the cause
        assert str(e.value) == msg
    else:
        assert "zero-dim" in str(e.value)


@pytest.mark.parametrize("name", ["linear_leaky_relu", "linear_tanh", "conv_add"])
def test_onednn_module_reprs(name):
    made = {"linear_leaky_relu": lambda: nniq.LinearLeakyReLU(4, 3, 0.1),
            "linear_tanh": lambda: nniq.LinearTanh(4, 3),
            "conv_add": lambda: nniq.ConvAdd2d(2, 2, 3, padding=1)}[name]()
    assert repr(made) == _torch_repr(M["reprs"][name])


# ---- QAT embeddings ------------------------------------------------------------------------

QE = G["qat_embeddings"]


def test_prepare_qat_leaves_embeddings_float_as_pytorch():
    """PyTorch 2.15's default QAT mapping has no embeddings: prepare_qat keeps
    them float (observed by a NoopObserver) and convert quantizes their
    weights with the qconfig's fake quantizer."""
    model = T.nn.Sequential(T.nn.Embedding(10, 12), T.nn.EmbeddingBag(10, 12, mode="sum"))
    model.load_state_dict(QE["float"])
    model.qconfig = tq.default_embedding_qat_qconfig
    prepared = tq.prepare_qat(model.train())
    assert repr(prepared) == QE["prepared_repr"]
    assert list(prepared.state_dict()) == list(QE["prepared_state"])
    run = [(prepared[0](QE["idx"]), prepared[1](QE["flat"], QE["offsets"]))]
    with T.no_grad():
        prepared[0].weight.mul_(1.5)
        prepared[1].weight.add_(0.25)
    run.append((prepared[0](QE["idx"]), prepared[1](QE["flat"], QE["offsets"])))
    for ours, theirs in zip(run, QE["train"]):
        for a, b in zip(ours, theirs):
            assert_close(a.detach(), b, rtol=1e-6, atol=1e-6)
    q = tq.convert(prepared.eval())
    assert repr(q) == _torch_repr(QE["repr"])
    state = q.state_dict()
    assert list(state) == list(QE["state"])
    for key in ("0._packed_params._packed_weight", "1._packed_params._packed_weight"):
        assert T.equal(state[key].int_repr(), QE["state"][key].int_repr())
    outs = (q[0](QE["idx"]), q[1](QE["flat"], QE["offsets"]))
    for a, b in zip(outs, QE["out"]):
        assert T.equal(a, b)


@pytest.mark.parametrize("which", [0, 1])
def test_qat_embedding_modules(which):
    """torch.ao.nn.qat.Embedding / EmbeddingBag: lookups through the weight's
    per-row float-qparams fake quantization (equal to PyTorch's), their state
    dicts, and the quantized module made from them."""
    g = QE["qat_modules"][which]
    nnqat = T.ao.nn.qat
    if which == 0:
        float_mod, cls, qcls = T.nn.Embedding(10, 12), nnqat.Embedding, nnq.Embedding
        args = (QE["idx"],)
    else:
        float_mod = T.nn.EmbeddingBag(10, 12, mode="sum")
        cls, qcls, args = nnqat.EmbeddingBag, nnq.EmbeddingBag, (QE["flat"], QE["offsets"])
    with T.no_grad():
        float_mod.weight.copy_(g["weight"])
    float_mod.qconfig = tq.default_embedding_qat_qconfig
    qat = cls.from_float(float_mod)
    outs = [qat(*args).detach()]
    with T.no_grad():
        qat.weight.mul_(-2.0)
    outs.append(qat(*args).detach())
    for a, b in zip(outs, g["outs"]):
        assert T.equal(a, b)
    state = qat.state_dict()
    assert list(state) == list(g["state"])
    qq = qcls.from_float(qat)  # runs the fake quantizer's observer once more, as PyTorch's
    state = qat.state_dict()
    for key, value in g["state"].items():
        assert T.equal(state[key], value), key
    assert list(qq.state_dict()) == list(g["q_state"])
    w, theirs = qq.state_dict()["_packed_params._packed_weight"], \
        g["q_state"]["_packed_params._packed_weight"]
    assert T.equal(w.int_repr(), theirs.int_repr())
    assert T.equal(w.q_per_channel_scales(), theirs.q_per_channel_scales())
    assert T.equal(w.q_per_channel_zero_points(), theirs.q_per_channel_zero_points())
    assert T.equal(qq(*args), g["q_out"])


def test_qat_embedding_needs_float_qparams():
    bad = T.nn.Embedding(3, 2)
    bad.qconfig = tq.get_default_qat_qconfig()
    kind, msg = QE["errors"]["qat_qconfig"]
    with pytest.raises(AssertionError) as e:
        T.ao.nn.qat.Embedding.from_float(bad)
    assert kind == "AssertionError" and str(e.value) == _torch_repr(msg)


# ---- dynamic LSTM / GRU on packed sequences -------------------------------------------------

PR = G["packed_rnns"]
PACKED = sorted(k for k in PR if k != "proj_size")


def _dynamic(name, state, dtype):
    make = {"lstm": lambda: T.nn.LSTM(5, 4, num_layers=2, bidirectional=True),
            "gru": lambda: T.nn.GRU(5, 4, num_layers=2, bidirectional=True),
            "lstm1": lambda: T.nn.LSTM(5, 3)}[name]
    fmod = make()
    fmod.load_state_dict(state)
    return tq.quantize_dynamic(T.nn.Sequential(fmod), dtype=dtype)[0]


@pytest.mark.parametrize("key", PACKED, ids=lambda k: f"{k[0]}-{k[1]}")
def test_dynamic_rnn_packed_sequence(key):
    """PyTorch's packed layers: the input projection over all packed rows, each
    step on the sequences still running; unsorted lengths, with and without
    an initial state.  1e-6, as the padded form (PyTorch's own sigmoid/tanh)."""
    from torchlike.nn.utils.rnn import pack_padded_sequence, PackedSequence
    name, dtype = key
    g = PR[key]
    q = _dynamic(name, g["float"], T.qint8 if dtype == "torch.qint8" else T.float16)
    packed = pack_padded_sequence(g["x"], [3, 6, 1, 4], enforce_sorted=False)
    for hx, (data, hidden) in ((None, g["out"]), (g["hx"], g["out_hx"])):
        out, h = q(packed, hx)
        assert isinstance(out, PackedSequence)
        assert T.equal(out.batch_sizes, g["batch_sizes"])
        assert T.equal(out.unsorted_indices, packed.unsorted_indices)
        assert_close(out.data, data, rtol=1e-6, atol=1e-6)
        for a, b in zip(h if isinstance(h, tuple) else (h,),
                        hidden if isinstance(hidden, tuple) else (hidden,)):
            assert_close(a, b, rtol=1e-6, atol=1e-6)


def test_dynamic_rnn_packed_bad_input():
    from torchlike.nn.utils.rnn import pack_padded_sequence
    key = PACKED[0]
    q = _dynamic(key[0], PR[key]["float"], T.qint8)
    with pytest.raises(RuntimeError, match="input_size"):
        q(pack_padded_sequence(T.randn(3, 2, 6), [3, 2]))
    with pytest.raises(TypeError, match="PackedSequence"):
        q([T.randn(3, 2, 5)])


def test_dynamic_lstm_proj_size_refused():
    """PyTorch's quantize_dynamic drops an LSTM's projection and the module it
    makes fails when called; torchlike refuses to make it."""
    kind, msg = PR["proj_size"]
    assert kind == "RuntimeError" and "packB" in msg
    with pytest.raises(NotImplementedError, match="proj_size"):
        tq.quantize_dynamic(T.nn.Sequential(T.nn.LSTM(5, 4, proj_size=2)))


# ---- reference modules and reference conversion ---------------------------------------------

RF = G["references"]
nnqr = T.ao.nn.quantized.reference


@pytest.mark.parametrize("name", ["mixed", "cnn"])
def test_convert_to_reference_fx(name):
    """PyTorch's reference graph (quantize / dequantize around the float ops,
    reference modules inside fused ones), names and state dict keys; the
    weights' qparams equal; outputs within one output step (the float ops
    between quantize nodes sum in another order)."""
    g, case = RF[name], G[name]
    prepared = cases.prepare(T, name, case["float"], case["batches"])
    ref = qfx.convert_to_reference_fx(prepared)
    assert _code(ref.code) == _code(g["code"])
    assert [(n, type(m).__name__) for n, m in ref.named_children()] == g["children"]
    state = ref.state_dict()
    assert list(state) == list(g["state"])
    for key, theirs in g["state"].items():
        if key.endswith(("weight_scale", "weight_zero_point", "weight_axis")):
            assert T.equal(state[key], theirs), key
        elif key.endswith(("weight_qscheme", "weight_dtype")):
            assert str(state[key]) == str(theirs).replace("torch.", "torchlike."), key
    ref.load_state_dict(g["state"])
    out = ref(case["x"])
    step = max(float(v) for k, v in g["state"].items()  # the activations' scales
               if "scale" in k and isinstance(v, T.Tensor) and v.ndim == 0 and "." not in k)
    assert_close(out.detach(), g["out"], rtol=0, atol=step * 1.001)
    assert float((out.detach() == g["out"]).float().mean()) > 0.9


def test_eager_convert_is_reference():
    """convert(is_reference=True): PyTorch's modules and state dict (PyTorch's
    own such model cannot run: its Quantize hands a quantized tensor to the
    float reference module; ours raises the same way)."""
    g = RF["eager"]
    model = T.nn.Sequential(tq.QuantStub(), T.nn.Linear(4, 3), T.nn.Conv2d(1, 2, 2),
                            tq.DeQuantStub()).eval()
    model.load_state_dict(g["float"])
    model.qconfig = tq.get_default_qconfig("x86")
    prepared = tq.prepare(model)
    prepared[0](g["calib"])
    ref = tq.convert(prepared, is_reference=True)
    assert repr(ref) == _torch_repr(g["repr"])
    with pytest.raises(RuntimeError):
        ref(T.randn(2, 4))
    assert list(ref.state_dict()) == list(g["state"])
    for ours, theirs in zip((ref[1].get_weight(), ref[2].get_weight()), g["weights"]):
        assert T.equal(ours, theirs)


@pytest.mark.parametrize("key", sorted(RF["direct"]), ids=lambda k: f"{k[0]}-{k[1]}")
def test_reference_modules(key):
    """from_float with get_qparam_dict: state dict (qscheme, dtype, scale,
    zero point, axis) and the quantized-dequantized weight equal to
    PyTorch's; forward is the float op on it (1e-6); a state dict round trip."""
    g = RF["direct"][key]
    name, scheme = key
    make = {"linear": lambda: T.nn.Linear(5, 4),
            "conv2d": lambda: T.nn.Conv2d(2, 3, 3, padding=1),
            "convt2d": lambda: T.nn.ConvTranspose2d(2, 3, 3, stride=2)}[name]
    mod = make()
    mod.load_state_dict(g["float"])
    if scheme == "per_tensor":
        obs = tq.default_weight_observer()
    elif name == "convt2d":
        obs = tq.PerChannelMinMaxObserver(ch_axis=1, dtype=T.qint8,
                                          qscheme=T.per_channel_symmetric)
    else:
        obs = tq.default_per_channel_weight_observer()
    obs(mod.weight)
    cls = {"linear": nnqr.Linear, "conv2d": nnqr.Conv2d, "convt2d": nnqr.ConvTranspose2d}[name]
    ref = cls.from_float(mod, tq.utils.get_qparam_dict(obs))
    assert repr(ref) == g["repr"]
    state = ref.state_dict()
    assert list(state) == list(g["state"])
    for k in ("weight_scale", "weight_zero_point", "weight_axis"):
        assert state[k].dtype == g["state"][k].dtype and T.equal(state[k], g["state"][k]), k
    assert T.equal(ref.get_weight(), g["weight"])
    assert_close(ref(g["x"]).detach(), g["out"], rtol=1e-6, atol=1e-6)
    again = cls(*((5, 4) if name == "linear" else (2, 3, 3)))
    again.load_state_dict(g["state"])
    assert str(again.weight_qscheme) == str(g["state"]["weight_qscheme"]).replace("torch.",
                                                                                  "torchlike.")
    assert T.equal(again.get_weight(), g["weight"])


@pytest.mark.parametrize("key", sorted(G["scalar_ops"], key=str), ids=str)
def test_scalar_add_mul(key):
    """torch.ops.quantized.add / mul (and _relu) with a number, every quint8
    value: PyTorch's output qparams and integers."""
    op, scale, zp, c = key
    ints, out_scale, out_zp = G["scalar_ops"][key]
    q = T._make_per_tensor_quantized_tensor(T.arange(256, dtype=T.uint8), scale, zp)
    r = getattr(T.ops.quantized, op)(q, c)
    assert r.q_zero_point() == out_zp
    assert r.q_scale() == pytest.approx(out_scale, rel=1e-12)
    assert T.equal(r.int_repr(), ints)


def test_fx_leaves_embeddings_float():
    """Under a static int8 qconfig an Embedding stays float and its output is
    quantized for the next op, as in PyTorch's graph."""
    g = G["embedding_fx"]
    model = cases.embedding_model(T).eval()
    model.load_state_dict(g["float"])
    prepared = qfx.prepare_fx(model, tq.get_default_qconfig_mapping(), (g["idx"],))
    prepared(g["idx"])
    q = qfx.convert_fx(prepared)
    assert _code(q.code) == _code(g["code"])
    assert list(q.state_dict()) == list(g["state"])
    q.load_state_dict(g["state"])
    assert T.equal(q(g["idx"]), g["out"])


# ---- MultiheadAttention: the quantizable / quantized custom-module flow ------------------

MHA = G["mha"]


@pytest.mark.parametrize("name", sorted(MHA))
def test_quantized_multihead_attention(name):
    """prepare with float_to_observed_custom_module_class (the quantizable MHA,
    its in_proj split into linear_Q/K/V), calibrate, convert with
    observed_to_quantized_custom_module_class: PyTorch's modules, state dict
    keys and, holding PyTorch's state dict, its outputs (the attention
    products and softmax are float between quantize steps: to one output
    step, almost all equal)."""
    g = MHA[name]
    model = cases.mha_model(T, **g["kw"])
    model.load_state_dict(g["float"])
    prepared, q = cases.quantize_mha(T, model, g["batches"])
    assert repr(prepared).count("activation_post_process") == \
        g["prepared_repr"].count("activation_post_process")
    assert list(prepared.state_dict()) == g["prepared_state"]
    assert list(q.state_dict()) == list(g["state"])
    theirs_repr = _torch_repr(g["repr"])
    q.load_state_dict(g["state"])
    if "bias_kv" in name:  # quantized bias_k / bias_v are attributes, outside the state dict
        for ours, theirs in zip((q.mha.bias_k, q.mha.bias_v), g["bias_kv"]):
            assert T.equal(ours.int_repr(), theirs.int_repr())
            assert (ours.q_scale(), ours.q_zero_point()) == \
                (theirs.q_scale(), theirs.q_zero_point())
    else:
        assert repr(q) == theirs_repr
    out, weights = q(g["x"], g["y"])
    for ours, theirs, scale in ((out, g["out"][0], float(g["state"]["mha.out_proj.scale"])),
                                (weights, g["out"][1],
                                 float(g["state"]["mha.quant_attn_output_weights.scale"]))):
        assert ours.shape == theirs.shape
        assert_close(ours, theirs, rtol=0, atol=2 * scale + 1e-6)
        assert float((ours == theirs).float().mean()) > 0.8


def test_quantizable_mha_needs_qconfig():
    with pytest.raises(AssertionError, match="qconfig"):
        T.ao.nn.quantizable.MultiheadAttention.from_float(T.nn.MultiheadAttention(8, 2))
    with pytest.raises(NotImplementedError, match="non-observed"):
        nnq.MultiheadAttention.from_float(T.nn.MultiheadAttention(8, 2))
