"""Models and FX quantization calls for tests/test_quantization3.py, written
against a library passed in (PyTorch in scripts/golden_quantization3.py,
torchlike in the test), so both quantize the same models.

``models(torch)`` -> {name: (float module factory, input shape, is_qat)}.
``qconfig_mapping(torch, name)`` -> the QConfigMapping the case uses.
``run(torch, name, float_state, batches)`` -> the prepared (calibrated or
trained) GraphModule, then convert_fx's result, as a dict."""


def models(torch):
    nn, F = torch.nn, torch.nn.functional

    class CNN(nn.Module):  # conv-bn-relu, conv, pooling, torch.flatten, linear
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 4, 3)
            self.bn = nn.BatchNorm2d(4)
            self.relu = nn.ReLU()
            self.conv2 = nn.Conv2d(4, 4, 3, padding=1)
            self.pool = nn.AdaptiveAvgPool2d(1)
            self.fc = nn.Linear(4, 2)

        def forward(self, x):
            x = self.relu(self.bn(self.conv(x)))
            x = self.pool(self.conv2(x))
            return self.fc(torch.flatten(x, 1))

    class MLP(nn.Module):  # functional relu (fused into LinearReLU), add, cat
        def __init__(self):
            super().__init__()
            self.l1 = nn.Linear(5, 6)
            self.l2 = nn.Linear(6, 6)
            self.l3 = nn.Linear(12, 3)

        def forward(self, x):
            a = F.relu(self.l1(x))
            b = self.l2(a) + a
            return self.l3(torch.cat([a, b], 1))

    class Block(nn.Module):  # traced through: its ops are named after "blk"
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(torch.randn(4, 6))
            self.b = nn.Parameter(torch.randn(4))

        def forward(self, x):
            y = F.linear(x, self.w, self.b)
            return F.relu(y * y), torch.relu(y + y)

    class Functional(nn.Module):  # torch.flatten, F.linear (+relu), mul_relu, add_relu
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(torch.randn(6, 6))
            self.b = nn.Parameter(torch.randn(6))
            self.blk = Block()
            self.fc = nn.Linear(4, 2)

        def forward(self, x):
            x = torch.flatten(x, 1)
            x = F.relu(F.linear(x, self.w, self.b))
            m, a = self.blk(x)
            return self.fc(m + a).sigmoid()

    class QAT(nn.Module):  # prepare_qat_fx: conv + relu, linear + relu
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(2, 3, 3)
            self.fc = nn.Linear(12, 4)
            self.fc2 = nn.Linear(4, 3)

        def forward(self, x):
            x = F.relu(self.conv(x))
            x = torch.flatten(x, 1)
            return self.fc2(F.relu(self.fc(x)))

    class ResNetish(nn.Module):  # Sequential stem, a residual block, view(size(0), -1)
        def __init__(self):
            super().__init__()
            self.stem = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.BatchNorm2d(4),
                                      nn.ReLU(inplace=True))
            self.pool = nn.MaxPool2d(2)
            self.conv1 = nn.Conv2d(4, 4, 3, padding=1)
            self.bn1 = nn.BatchNorm2d(4)
            self.relu = nn.ReLU(inplace=True)
            self.conv2 = nn.Conv2d(4, 4, 3, padding=1)
            self.bn2 = nn.BatchNorm2d(4)
            self.avg = nn.AdaptiveAvgPool2d((1, 1))
            self.drop = nn.Dropout(0.5)
            self.fc = nn.Linear(4, 3)

        def forward(self, x):
            x = self.pool(self.stem(x))
            identity = x
            out = self.relu(self.bn1(self.conv1(x)))
            out = self.bn2(self.conv2(out))
            out += identity
            out = self.relu(out)
            out = self.avg(out)
            out = out.view(out.size(0), -1)
            return self.fc(self.drop(out)).tanh()

    class Fused3d(nn.Module):  # conv3d-bn3d-relu, PReLU, bn2d-relu
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv3d(2, 3, 3)
            self.bn = nn.BatchNorm3d(3)
            self.relu = nn.ReLU()
            self.prelu = nn.PReLU(3)
            self.bn2 = nn.BatchNorm2d(3)

        def forward(self, x):
            x = self.prelu(self.relu(self.bn(self.conv(x))))
            return F.relu(self.bn2(x.mean(2)))

    class Mixed(nn.Module):  # linear + F.relu, conv1d, F.linear: also as a reference model
        def __init__(self):
            super().__init__()
            self.l = nn.Linear(4, 6)
            self.c = nn.Conv1d(1, 2, 2)
            self.w = nn.Parameter(torch.randn(3, 5))

        def forward(self, x):
            y = F.relu(self.l(x))
            return F.linear(self.c(y.unsqueeze(1)), self.w)

    class Misc(nn.Module):  # scalar add / mul, conv + F.relu, norms, activations, sigmoid
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(2, 4, 3, padding=1)
            self.hs = nn.Hardswish()
            self.ln = nn.LayerNorm([4, 5, 5])
            self.lrelu = nn.LeakyReLU(0.2)
            self.pool = nn.MaxPool2d(2)

        def forward(self, x):
            x = F.relu(self.conv(x * 2.0 + 1.0))
            x = self.lrelu(self.ln(self.hs(x)))
            x = self.pool(x).transpose(2, 3).contiguous()
            return torch.sigmoid(x.reshape(x.shape[0], -1))

    class FlattenMethod(nn.Module):  # x.flatten(): observed, left float (PyTorch's)
        def __init__(self, transposed=False):
            super().__init__()
            self.conv = nn.ConvTranspose2d(3, 3, 2, stride=2) if transposed else \
                nn.Conv2d(3, 3, 3, padding=2, dilation=2)
            self.relu = nn.ReLU()
            self.pool = nn.AvgPool2d(2)
            self.fc = nn.Linear(48, 5)  # 3 channels, 4 x 4 after the pool

        def forward(self, x):
            x = self.pool(self.relu(self.conv(x)))
            return self.fc(x.flatten(1))

    return {"cnn": (CNN, (2, 3, 8, 8), False), "mixed": (Mixed, (3, 4), False),
            "flatten_method": (FlattenMethod, (2, 3, 8, 8), False),
            # the default mapping's per-tensor weights for transposed convolutions
            "transposed": (lambda: FlattenMethod(True), (2, 3, 4, 4), False),
            "misc": (Misc, (2, 2, 5, 5), False), "fused3d": (Fused3d, (2, 2, 5, 6, 6), False),
            "resnet": (ResNetish, (2, 3, 8, 8), False), "mlp": (MLP, (3, 5), False),
            "mlp_mapping": (MLP, (3, 5), False), "functional": (Functional, (3, 2, 3), False),
            "qat": (QAT, (2, 2, 4, 4), True)}


def embedding_model(torch):
    """An Embedding feeding a Linear: a static qconfig leaves the lookup float."""
    nn = torch.nn

    class Embed(nn.Module):
        def __init__(self):
            super().__init__()
            self.e = nn.Embedding(10, 4)
            self.l = nn.Linear(4, 2)

        def forward(self, i):
            return self.l(self.e(i))
    return Embed()


def mha_model(torch, batch_first=False, add_bias_kv=False):
    """A quantized-input MultiheadAttention (eager, custom module flow)."""
    nn, tq = torch.nn, torch.ao.quantization

    class Attention(nn.Module):
        def __init__(self):
            super().__init__()
            self.q = tq.QuantStub()
            self.mha = nn.MultiheadAttention(8, 2, batch_first=batch_first,
                                             add_bias_kv=add_bias_kv)
            self.dq, self.dqw = tq.DeQuantStub(), tq.DeQuantStub()

        def forward(self, x, y):
            x, y = self.q(x), self.q(y)
            out, weights = self.mha(x, y, y)
            return self.dq(out), self.dqw(weights)
    return Attention()


def quantize_mha(torch, model, batches):
    """prepare with the quantizable MHA, calibrate, convert to the quantized one."""
    tq = torch.ao.quantization
    nn = torch.nn
    model.eval()
    model.qconfig = tq.default_qconfig
    prepared = tq.prepare(model, prepare_custom_config_dict={
        "float_to_observed_custom_module_class":
            {nn.MultiheadAttention: torch.ao.nn.quantizable.MultiheadAttention}})
    for x, y in batches:
        prepared(x, y)
    return prepared, tq.convert(prepared, convert_custom_config_dict={
        "observed_to_quantized_custom_module_class":
            {torch.ao.nn.quantizable.MultiheadAttention: torch.ao.nn.quantized.MultiheadAttention}})


def qconfig_mapping(torch, name):
    tq = torch.ao.quantization
    if name == "mlp_mapping":  # l2 stays float; Linear (and fused LinearReLU) per tensor
        return (tq.QConfigMapping().set_global(tq.get_default_qconfig("x86"))
                .set_object_type(torch.nn.Linear, tq.default_qconfig)
                .set_object_type(torch.nn.ReLU, tq.default_qconfig)
                .set_module_name("l2", None))
    if name == "qat":
        return tq.get_default_qat_qconfig_mapping("x86")
    return tq.get_default_qconfig_mapping("x86")


def prepare(torch, name, float_state, batches):
    """The prepared GraphModule, calibrated (or trained) on batches, in eval mode."""
    from importlib import import_module
    qfx = import_module(torch.__name__ + ".ao.quantization.quantize_fx")
    make, _, is_qat = models(torch)[name]
    model = make()
    model.load_state_dict(float_state)
    model.train(is_qat)
    prepare_fn = qfx.prepare_qat_fx if is_qat else qfx.prepare_fx
    prepared = prepare_fn(model, qconfig_mapping(torch, name), (batches[0],))
    for x in batches:
        prepared(x)
    return prepared.eval()


def run(torch, name, float_state, batches):
    """prepare (calibrate / train on batches), convert: the prepared and
    quantized GraphModules (PyTorch's convert_fx edits the prepared one's
    graph: prepare again for another conversion)."""
    from importlib import import_module
    qfx = import_module(torch.__name__ + ".ao.quantization.quantize_fx")
    prepared = prepare(torch, name, float_state, batches)
    return prepared, qfx.convert_fx(prepared)


def observers(prepared):
    """{observer name: (scale, zero point)} after calibration and groups of
    names that are one shared observer."""
    qparams, groups, seen = {}, [], {}
    for name, mod in prepared._modules.items():
        if not name.startswith("activation_post_process_"):
            continue
        if id(mod) in seen:
            groups[seen[id(mod)]].append(name)
        else:
            seen[id(mod)] = len(groups)
            groups.append([name])
        scale, zp = mod.calculate_qparams()
        qparams[name] = ([float(v) for v in scale.reshape(-1).tolist()],
                         [int(v) for v in zp.reshape(-1).tolist()])
    return qparams, [g for g in groups if len(g) > 1]
