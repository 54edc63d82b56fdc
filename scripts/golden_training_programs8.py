"""Record PyTorch's answers for an eighth round of training programs, for
tests/test_training_programs8.py, from the layers and utilities the first
seven rounds left out or touched only once: sub-pixel convolution
(pixel_shuffle / pixel_unshuffle), lazy modules, max-unpooling, the rarer
activations and paddings (their gradients at the kinks, their in-place
forms), convolutions with padding modes, groups and output_padding, 3-D
convolutions, dilated causal stacks, locally connected layers by
Fold/Unfold, cumulative and tracked normalisation statistics,
local response normalisation, conv+bn fusion's helpers, the losses of
ranking, multi-label margins, heteroscedastic and count regression and
segmentation, module initialisation (skip_init, apply, the deterministic
nn.init schemes and the properties of the random ones), state-dict
reports and non-persistent buffers, gradient accumulation, weight EMAs,
and the data utilities a script leans on (random_split by fractions,
weighted and distributed sampling, batch samplers, nested collation);
the subgradients picked at ties and kinks, empty batches, attention rows
that see no key, and losses and layers given operands of another dtype;
with the refusals a script meets there, in PyTorch's words.

As in rounds three to seven, every program takes the library as T and
builds its parameters and data from NumPy (moved to the default device),
so the test runs the very same code on torchlike.  torchlike's random
numbers are not PyTorch's (docs/random.md): where a program draws (the
random inits, dropout in training, samplers with a generator), it
returns only what does not depend on the stream (shapes, bounds, sets,
orthogonality, reproducibility under one seed).

Run with an interpreter that has PyTorch:
    python scripts/golden_training_programs8.py
writes tests/golden/training_programs8.json ([call, outcome] pairs over T)."""
import collections

import numpy as np

from golden_calls import record
from golden_training_programs3 import _arr, _data, _init, _raised
from golden_training_programs6 import _broadcast, describe  # noqa: F401 - describe: the test's
from golden_training_programs7 import _fit, _mlp, _raised_head, _t


def _train(T, model, opt, loss_fn, steps=3):
    """steps of opt on loss_fn(model) (a closure computing the loss); the losses."""
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = loss_fn(model)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


# ---- sub-pixel convolution --------------------------------------------------------------------

def pixel_shuffle_superres(T):
    """An ESPCN-style upsampler (conv to r*r*C channels, PixelShuffle(r))
    fitted to a high-resolution target by Adam; its PixelUnshuffle inverse
    round trip, the functional forms on batched 5-D and unbatched 3-D
    inputs, an empty batch, and their gradients."""
    nn = T.nn
    F = nn.functional
    model = _init(T, nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.Tanh(),
                                   nn.Conv2d(8, 4, 3, padding=1), nn.PixelShuffle(2)), 1)
    lo, hi = _t(T, 2, 1, 5, 5, seed=2), _t(T, 2, 1, 10, 10, seed=3)
    opt = T.optim.Adam(model.parameters(), lr=0.01)
    losses = _train(T, model, opt, lambda m: F.mse_loss(m(lo), hi))
    x = _t(T, 2, 3, 8, 4, 6, seed=4).requires_grad_()
    down = F.pixel_unshuffle(x, 2)
    back = F.pixel_shuffle(down, 2)
    (down * _t(T, *down.shape, seed=5)).sum().backward()
    un = nn.PixelUnshuffle(3)(_t(T, 9, 6, 3, seed=6))
    empty = F.pixel_shuffle(T.zeros(0, 8, 2, 3), 2)
    return [losses, model[2].weight[0, 0], list(down.shape), T.equal(back, x.detach()),
            x.grad[0, 1, 0], un.shape, un[:, 0], empty.shape,
            repr(nn.PixelShuffle(2)), repr(nn.PixelUnshuffle(3))]


def pixel_shuffle_refusals(T):
    """pixel_shuffle with channels not divisible by r*r, a 2-D input, a
    zero factor; pixel_unshuffle with a size not divisible by r."""
    F = T.nn.functional
    return [_raised_head(lambda: F.pixel_shuffle(T.zeros(1, 6, 2, 2), 2)),
            _raised_head(lambda: F.pixel_shuffle(T.zeros(4, 4), 2)),
            _raised_head(lambda: F.pixel_shuffle(T.zeros(1, 4, 2, 2), 0)),
            _raised_head(lambda: F.pixel_unshuffle(T.zeros(1, 1, 5, 4), 2)),
            _raised_head(lambda: F.pixel_unshuffle(T.zeros(1, 1, 4, 5), 2)),
            _raised_head(lambda: F.pixel_unshuffle(T.zeros(4, 4), 2))]


# ---- lazy modules -----------------------------------------------------------------------------

def lazy_modules(T):
    """LazyLinear / LazyConv1d / LazyConv2d / LazyConvTranspose2d /
    LazyBatchNorm1d materialised by a first forward (their in_features
    and weight shapes then, their class names before and after),
    re-initialised from NumPy and trained; has_uninitialized_params, and
    the shape of an uninitialised parameter refused."""
    nn = T.nn
    F = nn.functional
    before = nn.LazyLinear(3)
    info = [type(before).__name__, before.has_uninitialized_params(),
            type(before.weight).__name__, _raised(lambda: before.weight.shape[0] + 1)]
    conv = nn.Sequential(nn.LazyConv2d(4, 3, padding=1), nn.ReLU(),
                         nn.LazyConvTranspose2d(2, 2, stride=2), nn.Flatten(),
                         nn.LazyLinear(5), nn.LazyBatchNorm1d(), nn.Tanh(), nn.LazyLinear(2))
    x = _t(T, 4, 3, 3, 3, seed=1)
    conv(x)
    _init(T, conv, 2)
    conv[5].reset_running_stats()  # the first forward ran on the random init
    seq = nn.LazyConv1d(3, 2)
    seq(_t(T, 2, 5, 4, seed=3))
    info += [[type(m).__name__ for m in conv], conv[0].weight.shape, conv[2].weight.shape,
             conv[4].in_features, conv[5].num_features, conv[5].running_mean.shape,
             seq.in_channels, seq.weight.shape]
    y = _t(T, 4, 2, seed=4)
    opt = T.optim.SGD(conv.parameters(), lr=0.05, momentum=0.9)
    losses = _train(T, conv, opt, lambda m: F.mse_loss(m(x), y))
    return [info, losses, conv[7].weight, conv[5].running_var, sorted(conv.state_dict())]


def lazy_state_dict(T):
    """A LazyLinear loading a trained Linear's state dict before any
    forward (it takes the shapes), then predicting the same; a lazy
    module's state dict before materialisation; a LazyConv2d that saw
    3 channels refusing an input with 2."""
    nn = T.nn
    src = _init(T, nn.Linear(4, 3), 5)
    lazy = nn.LazyLinear(3)
    keys = sorted(lazy.state_dict())
    kinds = [type(v).__name__ for v in lazy.state_dict().values()]
    lazy.load_state_dict(src.state_dict())
    x = _t(T, 2, 4, seed=1)
    conv = nn.LazyConv2d(2, 1)
    conv(T.zeros(1, 3, 2, 2))
    return [keys, kinds, type(lazy).__name__, lazy.in_features, lazy.weight.shape,
            T.allclose(lazy(x), src(x)), _raised_head(lambda: conv(T.zeros(1, 2, 2, 2)))]


# ---- max-unpooling --------------------------------------------------------------------------

def max_unpool_autoencoder(T):
    """A SegNet-style autoencoder: MaxPool2d(return_indices=True) in the
    encoder, MaxUnpool2d with those indices in the decoder, trained by
    SGD; MaxUnpool1d with an output_size, MaxUnpool3d, and the unpooled
    gradient flowing back through the indices."""
    nn = T.nn
    F = nn.functional

    class SegNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.enc = nn.Conv2d(2, 4, 3, padding=1)
            self.pool = nn.MaxPool2d(2, return_indices=True)
            self.unpool = nn.MaxUnpool2d(2)
            self.dec = nn.Conv2d(4, 2, 3, padding=1)

        def forward(self, x):
            h, idx = self.pool(T.relu(self.enc(x)))
            return self.dec(self.unpool(h, idx, output_size=x.shape[-2:]))

    model = _init(T, SegNet(), 1)
    x = _t(T, 2, 2, 5, 6, seed=2)
    opt = T.optim.SGD(model.parameters(), lr=0.1)
    losses = _train(T, model, opt, lambda m: F.mse_loss(m(x), x))
    w = _t(T, 1, 2, 7, seed=3).requires_grad_()
    p, i = F.max_pool1d(w, 2, stride=2, return_indices=True)
    u = nn.MaxUnpool1d(2, stride=2)(p, i, output_size=[7])
    (u * _t(T, 1, 2, 7, seed=4)).sum().backward()
    v = _t(T, 1, 1, 4, 4, 4, seed=5)
    p3, i3 = F.max_pool3d(v, 2, return_indices=True)
    u3 = F.max_unpool3d(p3, i3, 2)
    return [losses, model.dec.weight[0, 0], i, u, w.grad, u3.shape, u3.sum(), i3.flatten()]


def max_unpool_refusals(T):
    """max_unpool2d with an output_size outside the allowed range, indices
    of another shape, and a bad output_size length."""
    F = T.nn.functional
    p, i = F.max_pool2d(_t(T, 1, 1, 4, 4, seed=1), 2, return_indices=True)
    return [_raised_head(lambda: F.max_unpool2d(p, i, 2, output_size=(7, 7))),
            _raised_head(lambda: F.max_unpool2d(p, i[..., :1], 2)),
            _raised_head(lambda: F.max_unpool2d(p, i, 2, output_size=(4, 4, 4, 4, 4)))]


# ---- activations ------------------------------------------------------------------------------

_ACTIVATIONS = ["Softsign", "Tanhshrink", "Hardshrink", "Softshrink", "CELU", "SELU", "ReLU6",
                "Hardsigmoid", "LogSigmoid", "Hardtanh", "Hardswish", "Mish", "SiLU", "ELU",
                "GELU", "Softplus", "LeakyReLU", "Sigmoid", "Tanh", "ReLU"]


def activation_zoo(T):
    """For each of the rarer activations, a small MLP trained by SGD for
    three steps: the losses and the first layer's weight afterwards."""
    nn = T.nn
    F = nn.functional
    x, y = _t(T, 8, 3, seed=1, scale=2.0), _t(T, 8, 1, seed=2)
    out = []
    for k, name in enumerate(_ACTIVATIONS):
        model = _init(T, nn.Sequential(nn.Linear(3, 6), getattr(nn, name)(), nn.Linear(6, 1)),
                      10 + k, scale=0.8)
        opt = T.optim.SGD(model.parameters(), lr=0.1)
        losses = _train(T, model, opt, lambda m: F.mse_loss(m(x), y))
        out.append([name, losses, model[0].weight[0]])
    return out


def activation_kinks(T):
    """The activations' values and gradients exactly at their kinks and
    thresholds (hardshrink's and softshrink's lambda, relu6's 0 and 6,
    hardsigmoid's and hardswish's +-3, hardtanh's bounds, threshold's
    threshold, leaky_relu and relu at 0, softplus past its threshold, elu
    and celu at 0), with arguments given by keyword."""
    F = T.nn.functional
    x = T.tensor([-6.0, -3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 3.0, 6.0, 25.0], requires_grad=True)
    fns = [lambda v: F.hardshrink(v, lambd=0.5), lambda v: F.softshrink(v, lambd=1.0),
           F.relu6, F.hardsigmoid, F.hardswish,
           lambda v: F.hardtanh(v, min_val=-1.0, max_val=3.0),
           lambda v: F.threshold(v, 0.5, -2.0), lambda v: F.leaky_relu(v, 0.2), F.relu,
           lambda v: F.softplus(v, beta=2.0, threshold=6.0), lambda v: F.elu(v, alpha=0.5),
           lambda v: F.celu(v, alpha=2.0), F.selu, F.softsign, F.tanhshrink, F.logsigmoid,
           lambda v: F.rrelu(v, 0.1, 0.3, training=False), F.mish, F.silu]
    out = []
    for fn in fns:
        x.grad = None
        y = fn(x)
        y.sum().backward()
        out.append([y, x.grad])
    return out


def inplace_activations(T):
    """A network whose activations act in place (ReLU6, Hardtanh, SELU,
    CELU, LeakyReLU, ELU after BatchNorm and Linear layers with
    inplace=True), trained by Adam: in-place activations on outputs
    autograd saved must still give the right gradients; their reprs."""
    nn = T.nn
    F = nn.functional
    model = _init(T, nn.Sequential(
        nn.Linear(4, 8), nn.ReLU6(inplace=True), nn.Linear(8, 8), nn.BatchNorm1d(8),
        nn.Hardtanh(-0.5, 0.5, inplace=True), nn.Linear(8, 8), nn.SELU(inplace=True),
        nn.Linear(8, 8), nn.CELU(0.7, inplace=True), nn.Linear(8, 8),
        nn.LeakyReLU(0.1, inplace=True), nn.Linear(8, 8), nn.ELU(inplace=True),
        nn.Linear(8, 2)), 3, scale=0.6)
    x, y = _t(T, 6, 4, seed=1, scale=2.0), _t(T, 6, 2, seed=2)
    opt = T.optim.Adam(model.parameters(), lr=0.01)
    losses = _train(T, model, opt, lambda m: F.mse_loss(m(x), y), steps=4)
    return [losses, model[0].weight[0], model[13].weight,
            [repr(m) for m in model if not isinstance(m, (nn.Linear, nn.BatchNorm1d))]]


def softmax_family(T):
    """Softmin, Softmax2d, LogSoftmax and softmax with dtype=float64 as the
    outputs of small trained models (a per-pixel classifier by
    Softmax2d + NLL of the log, a ranking by Softmin), and Softmax2d's
    refusal of a 2-D input."""
    nn = T.nn
    F = nn.functional
    conv = _init(T, nn.Conv2d(2, 3, 1), 1)
    x = _t(T, 2, 2, 3, 3, seed=2)
    target = T.tensor([[[0, 1, 2], [2, 1, 0], [1, 1, 1]], [[2, 2, 0], [0, 1, 2], [1, 0, 1]]])
    opt = T.optim.SGD(conv.parameters(), lr=0.5)
    sm2 = nn.Softmax2d()
    losses = _train(T, conv, opt, lambda m: F.nll_loss(sm2(m(x)).log(), target))
    scorer = _init(T, nn.Linear(3, 1), 2)
    items = _t(T, 5, 3, seed=3)
    opt2 = T.optim.SGD(scorer.parameters(), lr=0.5)
    costs = lambda m: -nn.Softmin(dim=0)(m(items).squeeze(1))[2].log()  # noqa: E731
    losses2 = _train(T, scorer, opt2, costs)
    z = _t(T, 2, 4, seed=4).requires_grad_()
    p64 = F.softmax(z, dim=1, dtype=T.float64)
    (p64[:, 0]).sum().backward()
    return [losses, conv.weight, losses2, scorer.weight, p64.dtype, z.grad,
            nn.LogSoftmax(dim=0)(_t(T, 3, seed=5)),
            _raised_head(lambda: sm2(T.zeros(2, 3)))]


def dropout_variants_eval(T):
    """Dropout1d / Dropout2d / Dropout3d / AlphaDropout / FeatureAlphaDropout
    and RReLU: identity (RReLU its mean slope) in eval mode, the
    stream-independent facts in training mode (whole channels zeroed or
    kept and the survivors scaled by 1/(1-p); p=0 and p=1; RReLU's slopes
    within [lower, upper]); their refusals of a bad p."""
    nn = T.nn
    F = nn.functional
    x = _t(T, 4, 6, 5, seed=1) + 3.0
    out = []
    for mod in [nn.Dropout1d(0.5), nn.Dropout2d(0.5), nn.Dropout3d(0.5), nn.AlphaDropout(0.3),
                nn.FeatureAlphaDropout(0.3)]:
        mod.eval()
        out.append([repr(mod), T.equal(mod(x), x)])
    d1 = nn.Dropout1d(0.5)
    y = d1(x)
    kept = (y != 0).all(dim=2)
    dropped = (y == 0).all(dim=2)
    out.append([bool((kept | dropped).all()), T.allclose(y[kept], x[kept] * 2)])
    out.append([T.equal(nn.Dropout1d(0.0)(x), x), T.count_nonzero(nn.Dropout1d(1.0)(x)).item(),
                T.count_nonzero(F.dropout2d(x.unsqueeze(0), 1.0)).item()])
    r = nn.RReLU(0.1, 0.3)
    r.eval()
    neg = -T.ones(3, 4)
    out.append(r(neg))
    r.train()
    slopes = -r(neg)
    out.append([bool(((slopes >= 0.1) & (slopes <= 0.3)).all()), repr(r)])
    out += [_raised(lambda: nn.Dropout1d(1.5)), _raised(lambda: nn.AlphaDropout(-0.1)),
            _raised(lambda: F.dropout1d(T.zeros(2, 3, 4, 5), 0.5))]
    return out


# ---- paddings ---------------------------------------------------------------------------------

def padding_layers(T):
    """ReplicationPad1d/2d/3d, CircularPad1d/2d/3d, ConstantPad1d/2d/3d,
    ReflectionPad3d and ZeroPad1d/3d, each before a convolution trained
    for two steps: the losses, and the padded gradient of an input."""
    nn = T.nn
    F = nn.functional
    pads = [(nn.ReplicationPad1d((2, 1)), 1), (nn.CircularPad1d(2), 1),
            (nn.ConstantPad1d((1, 3), 0.5), 1), (nn.ZeroPad1d((0, 2)), 1),
            (nn.ReplicationPad2d((1, 0, 2, 1)), 2), (nn.CircularPad2d((1, 2, 0, 1)), 2),
            (nn.ConstantPad2d(1, -1.0), 2), (nn.ReplicationPad3d(1), 3),
            (nn.CircularPad3d((1, 0, 0, 1, 1, 0)), 3), (nn.ReflectionPad3d((1, 1, 2, 0, 1, 0)), 3),
            (nn.ConstantPad3d((0, 1, 1, 0, 0, 1), 2.0), 3), (nn.ZeroPad3d(1), 3)]
    conv = {1: nn.Conv1d, 2: nn.Conv2d, 3: nn.Conv3d}
    out = []
    for k, (pad, d) in enumerate(pads):
        shape = (2, 2) + (4,) * d
        x = _t(T, *shape, seed=k).requires_grad_()
        model = _init(T, nn.Sequential(pad, conv[d](2, 1, 3)), 30 + k)
        opt = T.optim.SGD(model.parameters(), lr=0.1)
        target = T.zeros_like(model(x))
        losses = _train(T, model, opt, lambda m: F.mse_loss(m(x), target), steps=2)
        g = T.autograd.grad(pad(x).pow(2).sum() + pad(x)[..., 0].sum(), x)[0]
        out.append([repr(pad), losses, g.flatten()[:12]])
    return out


def padding_refusals(T):
    """Paddings a script gets wrong: reflection as wide as the input,
    circular wider than it, a pad tuple of odd length, negative
    reflection, replication and circular pads that empty a dimension (of
    one, two and three padded dims); cropping by negative constant and
    circular pads.  (PyTorch's refusal of a non-constant mode on an input
    without batch and channel dims is left out: torchlike pads any
    trailing dims, docs/nn.md.)"""
    F = T.nn.functional
    x = T.zeros(1, 2, 3)
    return [_raised_head(lambda: F.pad(x, (3, 0), mode="reflect")),
            _raised_head(lambda: F.pad(x, (4, 0), mode="circular")),
            _raised_head(lambda: F.pad(x, (1, 2, 3))),
            _raised_head(lambda: F.pad(x, (-4, 0), mode="replicate")),
            _raised_head(lambda: F.pad(x, (1, 1, 1, 1), mode="replicate")),
            _raised_head(lambda: F.pad(T.zeros(1, 1, 3, 3), (0, 0, -3, 0), mode="reflect")),
            _raised_head(lambda: F.pad(T.zeros(1, 1, 2, 3, 3), (-1, -2, 0, 0, 0, 0),
                                       mode="replicate")),
            _raised_head(lambda: F.pad(x, (-3, 0), mode="circular")),
            F.pad(x, (-1, 2)).shape, F.pad(_t(T, 1, 2, 4, seed=1), (-1, -1), mode="circular")]


# ---- convolutions -----------------------------------------------------------------------------

def conv_padding_modes(T):
    """Conv2d with padding_mode circular / reflect / replicate / zeros
    trained side by side; Conv1d with padding='same' and an even kernel
    with dilation (the asymmetric split); their reprs."""
    nn = T.nn
    F = nn.functional
    x = _t(T, 2, 2, 5, 5, seed=1)
    out = []
    for k, mode in enumerate(["circular", "reflect", "replicate", "zeros"]):
        conv = _init(T, nn.Conv2d(2, 3, 3, padding=(1, 2), padding_mode=mode, stride=(1, 2)),
                     40 + k)
        target = T.zeros(2, 3, 5, 4)
        opt = T.optim.SGD(conv.parameters(), lr=0.1, momentum=0.5)
        out.append([repr(conv), _train(T, conv, opt, lambda m: F.mse_loss(m(x), target)),
                    conv.weight[0, 0]])
    same = _init(T, nn.Conv1d(2, 2, 4, padding="same", dilation=2), 45)
    w = _t(T, 2, 2, 9, seed=2).requires_grad_()
    y = same(w)
    y.pow(2).sum().backward()
    out += [repr(same), y.shape, y[0], w.grad[0]]
    return out


def conv_transpose_groups(T):
    """ConvTranspose2d with groups, output_padding and dilation, and
    ConvTranspose1d called with an output_size, in a decoder trained by
    Adam; ConvTranspose3d's output shape; the refusal of an
    output_padding not below the stride or dilation."""
    nn = T.nn
    F = nn.functional
    dec = _init(T, nn.Sequential(
        nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2, dilation=1),
        nn.Tanh(), nn.ConvTranspose2d(6, 2, 2, stride=(1, 2), groups=2, dilation=2,
                                      output_padding=(0, 1))), 1)
    z = _t(T, 2, 4, 3, 3, seed=2)
    target = T.zeros_like(dec(z))
    opt = T.optim.Adam(dec.parameters(), lr=0.01)
    losses = _train(T, dec, opt, lambda m: F.mse_loss(m(z), target + 0.1))
    up = _init(T, nn.ConvTranspose1d(3, 2, 3, stride=3, padding=1), 3)
    s = _t(T, 1, 3, 4, seed=4)
    sizes = [up(s, output_size=[n]).shape for n in (10, 11, 12)]
    t3 = _init(T, nn.ConvTranspose3d(2, 1, (2, 3, 2), stride=(2, 1, 2), output_padding=(1, 0, 1)),
               5)
    v = t3(_t(T, 1, 2, 2, 3, 2, seed=6))
    return [losses, dec[0].weight.shape, dec[2].weight[1, 0], sizes, up(s, output_size=[11]),
            v.shape, v.sum(), repr(dec[0]), repr(dec[2]),
            _raised_head(lambda: up(s, output_size=[14])),
            _raised_head(lambda: nn.ConvTranspose2d(2, 2, 3, stride=2, output_padding=2)(
                T.zeros(1, 2, 3, 3)))]


def conv3d_volume_classifier(T):
    """A small volumetric classifier: Conv3d with stride and padding,
    BatchNorm3d, MaxPool3d, AvgPool3d with ceil_mode, AdaptiveAvgPool3d,
    cross entropy, trained by SGD with Nesterov momentum; then eval."""
    nn = T.nn
    F = nn.functional
    model = _init(T, nn.Sequential(
        nn.Conv3d(1, 4, 3, stride=(1, 2, 2), padding=1), nn.BatchNorm3d(4), nn.ReLU(),
        nn.MaxPool3d(2, stride=1), nn.AvgPool3d(2, ceil_mode=True, count_include_pad=False),
        nn.AdaptiveAvgPool3d((1, 2, 1)), nn.Flatten(), nn.Linear(8, 3)), 1)
    x = _t(T, 3, 1, 5, 6, 6, seed=2)
    y = T.tensor([0, 2, 1])
    opt = T.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, nesterov=True)
    losses = _train(T, model, opt, lambda m: F.cross_entropy(m(x), y))
    model.eval()
    return [losses, model(x), model[1].running_mean, model[1].num_batches_tracked,
            model[0].weight[0, 0, 1]]


def dilated_causal_stack(T):
    """A WaveNet-like stack: causal Conv1d layers with dilations 1, 2, 4
    (left padding by F.pad), gated tanh*sigmoid units, residual and skip
    sums, then a strided Conv1d head; trained by AdamW to predict the
    next sample; the receptive field checked by an impulse's gradient."""
    nn = T.nn
    F = nn.functional

    class Stack(nn.Module):
        def __init__(self):
            super().__init__()
            self.inp = nn.Conv1d(1, 4, 1)
            self.filt = nn.ModuleList(nn.Conv1d(4, 4, 2, dilation=d) for d in (1, 2, 4))
            self.gate = nn.ModuleList(nn.Conv1d(4, 4, 2, dilation=d) for d in (1, 2, 4))
            self.head = nn.Conv1d(4, 1, 3, stride=2, padding=1)

        def forward(self, x):
            h = self.inp(x)
            skip = 0
            for f, g in zip(self.filt, self.gate):
                p = F.pad(h, (f.dilation[0], 0))
                z = T.tanh(f(p)) * T.sigmoid(g(p))
                h = h + z
                skip = skip + z
            return self.head(skip)

    model = _init(T, Stack(), 1, scale=0.5)
    wave = _t(T, 2, 1, 17, seed=2)
    x, y = wave[..., :-1], wave[..., 1::2]
    opt = T.optim.AdamW(model.parameters(), lr=0.01, weight_decay=0.05)
    losses = _train(T, model, opt, lambda m: F.mse_loss(m(x), y), steps=4)
    imp = T.zeros(1, 1, 16, requires_grad=True)
    model(imp)[0, 0, 5].backward()
    return [losses, model.head.weight, (imp.grad[0, 0] != 0).tolist()]


def locally_connected_fold(T):
    """A locally connected layer (no weight sharing) built from Unfold,
    a per-location weight and einsum, followed by Fold summing
    overlapping patches back; trained by SGD; Unfold with dilation,
    stride and padding; Fold's refusal of a block count that does not
    match its output size."""
    nn = T.nn
    F = nn.functional

    class LocallyConnected(nn.Module):
        def __init__(self):
            super().__init__()
            self.unfold = nn.Unfold(2, stride=1)
            self.weight = nn.Parameter(T.zeros(16, 2 * 4, 3))  # L, C*k*k, out
            self.fold = nn.Fold((5, 5), 2)

        def forward(self, x):
            cols = self.unfold(x)  # N, C*k*k, L
            y = T.einsum("ncl,lco->nol", cols, self.weight)
            return self.fold(y.repeat(1, 4, 1)[:, :12])

    model = _init(T, LocallyConnected(), 1)
    x = _t(T, 2, 2, 5, 5, seed=2)
    target = _t(T, 2, 3, 5, 5, seed=3)
    opt = T.optim.SGD(model.parameters(), lr=0.05)
    losses = _train(T, model, opt, lambda m: F.mse_loss(m(x), target))
    u = F.unfold(_t(T, 1, 2, 6, 7, seed=4), (2, 3), dilation=(2, 1), padding=1, stride=(2, 3))
    ones = F.fold(T.ones(1, 4, 9), (4, 4), 2, stride=1)
    return [losses, model.weight[3], u.shape, u[0, :, 1], ones,
            _raised_head(lambda: F.fold(T.ones(1, 4, 8), (4, 4), 2)),
            _raised_head(lambda: F.fold(T.ones(1, 5, 9), (4, 4), 2)),
            repr(model.unfold), repr(model.fold)]


# ---- normalisation statistics ------------------------------------------------------------------

def cumulative_batchnorm(T):
    """BatchNorm1d with momentum=None keeps a cumulative average of the
    batch statistics: after four batches its running mean/var are their
    plain averages (var unbiased), num_batches_tracked counts them;
    reset_running_stats, then eval; BatchNorm2d with
    track_running_stats=False normalising by batch stats in eval too."""
    nn = T.nn
    bn = nn.BatchNorm1d(3, momentum=None)
    batches = [_t(T, 5, 3, seed=k, scale=1 + k) + k for k in range(4)]
    for b in batches:
        bn(b)
    means = T.stack([b.mean(0) for b in batches]).mean(0)
    vars_ = T.stack([b.var(0) for b in batches]).mean(0)
    out = [bn.running_mean, bn.running_var, bn.num_batches_tracked,
           T.allclose(bn.running_mean, means, atol=1e-6), T.allclose(bn.running_var, vars_,
                                                                      atol=1e-5)]
    bn.eval()
    out.append(bn(batches[0]))
    bn.reset_running_stats()
    out += [bn.running_mean, bn.running_var, bn.num_batches_tracked, repr(bn)]
    free = nn.BatchNorm2d(2, track_running_stats=False, affine=False).eval()
    x = _t(T, 2, 2, 2, 2, seed=9)
    out += [free.running_mean, free(x)[0, 0], sorted(free.state_dict())]
    return out


def tracked_instance_group_norm(T):
    """InstanceNorm2d with track_running_stats and affine, trained three
    steps then used in eval (its running stats); InstanceNorm1d on an
    unbatched (C, L) input; GroupNorm trained inside a conv net; the
    InstanceNorm refusal of a one-element spatial size in training."""
    nn = T.nn
    F = nn.functional
    # no bias before the instance norm: its gradient is zero up to rounding,
    # which Adam would turn into steps of either sign
    model = _init(T, nn.Sequential(nn.Conv2d(2, 4, 3, padding=1, bias=False),
                                   nn.InstanceNorm2d(4, affine=True, track_running_stats=True,
                                                     momentum=0.3),
                                   nn.ReLU(), nn.Conv2d(4, 4, 1), nn.GroupNorm(2, 4, eps=1e-3),
                                   nn.Conv2d(4, 1, 1)), 1)
    x = _t(T, 2, 2, 4, 4, seed=2)
    y = _t(T, 2, 1, 4, 4, seed=3)
    opt = T.optim.Adam(model.parameters(), lr=0.01)
    losses = _train(T, model, opt, lambda m: F.mse_loss(m(x), y))
    inorm = model[1]
    eval_out = model.eval()(x)[0, 0, 0]
    one = nn.InstanceNorm1d(3, affine=True)
    one_out = _init(T, one, 4)(_t(T, 3, 5, seed=5))
    return [losses, inorm.running_mean, inorm.running_var, inorm.num_batches_tracked,
            eval_out, model[4].weight, one_out, sorted(model.state_dict()),
            _raised_head(lambda: nn.InstanceNorm1d(2)(T.zeros(2, 2, 1)))]


def local_response_norms(T):
    """LocalResponseNorm and CrossMapLRN2d (AlexNet's normalisation) after a
    convolution, trained by SGD; LocalResponseNorm on a 3-D and a 5-D
    input; the gradient of each."""
    nn = T.nn
    F = nn.functional
    out = []
    for k, norm in enumerate([nn.LocalResponseNorm(3, alpha=0.1, beta=0.75, k=1.0),
                              nn.CrossMapLRN2d(3, alpha=0.1, beta=0.75, k=1.0)]):
        model = _init(T, nn.Sequential(nn.Conv2d(2, 5, 3), norm, nn.Flatten(), nn.Linear(20, 1)),
                      k + 1, scale=0.8)
        x, y = _t(T, 2, 2, 4, 4, seed=2, scale=2.0), _t(T, 2, 1, seed=3)
        opt = T.optim.SGD(model.parameters(), lr=0.05)
        out.append([repr(norm), _train(T, model, opt, lambda m: F.mse_loss(m(x), y)),
                    model[0].weight[1, 0]])
    for shape in [(2, 5, 6), (1, 4, 2, 3, 2)]:
        z = _t(T, *shape, seed=7, scale=3.0).requires_grad_()
        r = F.local_response_norm(z, 2, alpha=0.5, beta=0.5, k=2.0)
        r.pow(2).sum().backward()
        out.append([r.flatten()[:8], z.grad.flatten()[:8]])
    return out


def fusion_helpers(T):
    """torch.nn.utils.fusion's helpers: fuse_conv_bn_weights for a conv
    with and without bias, a ConvTranspose2d fused (transpose=True), and
    fuse_linear_bn_eval; each fused layer's output against the unfused
    pair in eval."""
    nn = T.nn
    fu = T.nn.utils.fusion
    out = []
    x = _t(T, 2, 3, 5, 5, seed=1)
    for k, (conv, transpose) in enumerate([(nn.Conv2d(3, 4, 3, bias=False), False),
                                           (nn.ConvTranspose2d(3, 4, 2, stride=2), True)]):
        _init(T, conv, 2 + k)
        bn = nn.BatchNorm2d(4)
        _init(T, bn, 4 + k)
        with T.no_grad():
            bn.running_mean.copy_(_t(T, 4, seed=6 + k))
            bn.running_var.copy_(_t(T, 4, seed=8 + k).abs() + 0.5)
        bn.eval()
        w, b = fu.fuse_conv_bn_weights(conv.weight, conv.bias, bn.running_mean,
                                       bn.running_var, bn.eps, bn.weight, bn.bias,
                                       transpose=transpose)
        fused = type(conv)(3, 4, conv.kernel_size, stride=conv.stride)
        fused.weight, fused.bias = w, b
        out.append([type(w).__name__, w.requires_grad, w.shape, b,
                    (fused(x) - bn(conv(x))).abs().max().item() < 1e-4])
    lin, bn1 = _init(T, nn.Linear(4, 3), 10).eval(), _init(T, nn.BatchNorm1d(3), 11).eval()
    with T.no_grad():
        bn1.running_var.fill_(2.0)
    f = fu.fuse_linear_bn_eval(lin, bn1)
    z = _t(T, 5, 4, seed=12)
    out.append([f.weight, f.bias, T.allclose(f(z), bn1(lin(z)), atol=1e-5),
                _raised_head(lambda: fu.fuse_linear_bn_eval(lin.train(), bn1))])
    return out


# ---- losses -----------------------------------------------------------------------------------

def multilabel_margin_training(T):
    """A multi-label tagger trained by MultiLabelMarginLoss (targets listed
    up to a -1), a multi-class one by MultiMarginLoss with p=2, margin
    and class weights, and one by MultiLabelSoftMarginLoss with weight;
    the values with reduction='none'."""
    nn = T.nn
    x = _t(T, 4, 5, seed=1)
    tags = T.tensor([[3, 0, -1, 1], [1, -1, 0, 0], [0, 1, 2, 3], [-1, 2, 2, 2]])
    multi = T.zeros(4, 4)
    multi[0, [0, 3]] = 1
    multi[1, 1] = 1
    multi[2] = 1
    cls = T.tensor([2, 0, 3, 1])
    losses = [nn.MultiLabelMarginLoss(), nn.MultiMarginLoss(p=2, margin=0.5,
                                                            weight=T.tensor([1., 2., .5, 1.])),
              nn.MultiLabelSoftMarginLoss(weight=T.tensor([1.0, 0.5, 2.0, 1.0]))]
    targets = [tags, cls, multi]
    out = []
    for k, (loss_fn, target) in enumerate(zip(losses, targets)):
        model = _init(T, nn.Linear(5, 4), 20 + k)
        opt = T.optim.SGD(model.parameters(), lr=0.2)
        hist = _train(T, model, opt, lambda m: loss_fn(m(x), target))
        loss_fn.reduction = "none"
        out.append([hist, model.weight[0], loss_fn(model(x), target)])
    vec = nn.MultiLabelMarginLoss(reduction="none")(_t(T, 4, seed=2), T.tensor([2, -1, 0, 1]))
    return out + [vec, _raised_head(lambda: nn.MultiLabelMarginLoss()(T.zeros(2, 3),
                                                                      T.tensor([[0, 5, -1]] * 2)))]


def segmentation_losses(T):
    """A per-pixel classifier on (N, C, H, W) trained by cross entropy with
    class weights, ignore_index and label smoothing together, and by
    nll_loss with weights and reduction 'sum'; 'none' reductions' shapes;
    a 5-D (volumetric) target; the refusal of a target with the wrong
    spatial size or rank."""
    nn = T.nn
    F = nn.functional
    x = _t(T, 2, 3, 4, 4, seed=1)
    target = _data(T, np.random.default_rng(2).integers(0, 4, (2, 4, 4)))
    target[0, 0, :2] = -100
    target[1, 3, 3] = 255
    weight = T.tensor([1.0, 2.0, 0.5, 1.5])
    net = _init(T, nn.Conv2d(3, 4, 1), 3)
    opt = T.optim.SGD(net.parameters(), lr=0.5)
    ce = lambda m: F.cross_entropy(m(x), target.masked_fill(target == 255, -100),  # noqa: E731
                                   weight=weight, label_smoothing=0.2)
    h1 = _train(T, net, opt, ce)
    net2 = _init(T, nn.Conv2d(3, 4, 1), 3)
    opt2 = T.optim.SGD(net2.parameters(), lr=0.01)
    nll = lambda m: F.nll_loss(F.log_softmax(m(x), 1), target, weight=weight,  # noqa: E731
                               ignore_index=255, reduction="sum")
    target[0, 0, :2] = 0
    h2 = _train(T, net2, opt2, nll)
    none = F.cross_entropy(net(x), target.clamp(max=3), reduction="none", label_smoothing=0.1)
    vol = F.cross_entropy(_t(T, 1, 3, 2, 2, 2, seed=4), T.tensor([[[[0, 1], [2, 0]],
                                                                   [[1, 1], [2, 2]]]]))
    return [h1, net.weight, h2, net2.bias, none.shape, none[1, 0], vol,
            _raised_head(lambda: F.cross_entropy(T.zeros(2, 4, 3, 3),
                                                 T.zeros(2, 3, 4, dtype=T.long))),
            _raised_head(lambda: F.nll_loss(T.zeros(2, 4, 3, 3), T.zeros(2, 3, dtype=T.long))),
            _raised_head(lambda: F.nll_loss(T.zeros(2, 4, 3, 3, 2),
                                            T.zeros(2, 3, 3, dtype=T.long)))]


def ranking_losses_trained(T):
    """A pairwise ranker by MarginRankingLoss, a siamese encoder by
    CosineEmbeddingLoss with a margin, and an embedding by
    TripletMarginLoss with swap and p=1, each trained by Adam; their
    reduction='none' values after; HingeEmbeddingLoss on the distances."""
    nn = T.nn
    enc = _init(T, nn.Sequential(nn.Linear(4, 6), nn.Tanh(), nn.Linear(6, 3)), 1)
    a, b, c = (_t(T, 6, 4, seed=k) for k in (2, 3, 4))
    sign = T.tensor([1.0, -1.0, 1.0, 1.0, -1.0, -1.0])
    rank = nn.MarginRankingLoss(margin=0.3)
    cos = nn.CosineEmbeddingLoss(margin=0.2)
    trip = nn.TripletMarginLoss(margin=0.5, p=1, swap=True)
    hinge = nn.HingeEmbeddingLoss(margin=1.5)
    opt = T.optim.Adam(enc.parameters(), lr=0.02)

    def loss(m):
        ea, eb, ec = m(a), m(b), m(c)
        return (rank(ea[:, 0], eb[:, 0], sign) + cos(ea, eb, sign) + trip(ea, eb, ec)
                + hinge((ea - eb).norm(dim=1), sign))

    hist = _train(T, enc, opt, loss, steps=4)
    with T.no_grad():
        ea, eb, ec = enc(a), enc(b), enc(c)
        for fn in (rank, cos, trip, hinge):
            fn.reduction = "none"
        vals = [rank(ea[:, 0], eb[:, 0], sign), cos(ea, eb, sign), trip(ea, eb, ec),
                hinge((ea - eb).norm(dim=1), sign)]
    return [hist, enc[2].weight, vals,
            _broadcast(lambda: cos(ea, eb, sign[:4])),
            _broadcast(lambda: rank(ea[:, 0], eb[:3, 0], sign))]


def heteroscedastic_regression(T):
    """A network predicting mean and variance trained by GaussianNLLLoss
    (full=True, a per-sample scalar variance, then a per-feature one),
    and a count model trained by PoissonNLLLoss with log_input=False
    (rates through softplus) and full=True; the refusals of a negative
    variance and of a variance of the wrong size."""
    nn = T.nn
    F = nn.functional
    x = _t(T, 8, 3, seed=1)
    y = _t(T, 8, 2, seed=2)
    net = _init(T, nn.Linear(3, 3), 3)
    opt = T.optim.Adam(net.parameters(), lr=0.05)
    g = nn.GaussianNLLLoss(full=True, eps=1e-4)

    def gauss(m):
        out = m(x)
        return g(out[:, :2], y, F.softplus(out[:, 2:]))

    h1 = _train(T, net, opt, gauss)
    net2 = _init(T, nn.Linear(3, 4), 4)
    opt2 = T.optim.Adam(net2.parameters(), lr=0.05)
    h2 = _train(T, net2, opt2, lambda m: F.gaussian_nll_loss(
        m(x)[:, :2], y, F.softplus(m(x)[:, 2:]), reduction="sum"))
    counts = _data(T, np.random.default_rng(5).poisson(2.0, (8, 1)).astype(np.float32))
    net3 = _init(T, nn.Linear(3, 1), 6)
    opt3 = T.optim.SGD(net3.parameters(), lr=0.05)
    p = nn.PoissonNLLLoss(log_input=False, full=True, eps=1e-6)
    h3 = _train(T, net3, opt3, lambda m: p(F.softplus(m(x)), counts))
    return [h1, net.weight, h2, net2.bias, h3, net3.weight,
            F.poisson_nll_loss(T.tensor([0.5, 2.0, 0.0]), T.tensor([0.0, 3.0, 1.0]),
                               log_input=False, full=True, reduction="none"),
            _raised_head(lambda: g(y, y, -T.ones(8, 1))),
            _raised_head(lambda: g(y, y, T.ones(8, 3)))]


# ---- initialisation ---------------------------------------------------------------------------

def init_schemes_apply(T):
    """model.apply with an init function by layer type: the deterministic
    schemes (constant_, zeros_, ones_, eye_, dirac_ with groups) as values,
    the random ones (xavier/kaiming uniform and normal, orthogonal_ with a
    gain, trunc_normal_, sparse_, uniform_/normal_ with a generator) by
    what does not depend on the stream: bounds, orthogonality, zeros per
    column, reproducibility under one seed; calculate_gain's table and
    fan computation; the refusals of eye_ on 3-D and dirac_ on 2-D."""
    nn = T.nn
    init = nn.init

    def scheme(m):
        if isinstance(m, nn.Conv2d):
            init.dirac_(m.weight, groups=2)
            init.zeros_(m.bias)
        elif isinstance(m, nn.Linear) and m.out_features == m.in_features:
            init.eye_(m.weight)
            init.constant_(m.bias, 0.25)
        elif isinstance(m, nn.LayerNorm):
            init.ones_(m.weight)
            init.constant_(m.bias, -0.5)

    model = nn.Sequential(nn.Conv2d(4, 4, 3, padding=1, groups=1), nn.Flatten(),
                          nn.Linear(16, 16), nn.LayerNorm(16))
    model.apply(scheme)
    x = _t(T, 2, 4, 2, 2, seed=1)
    out = [model[0].weight[:, :, 1, 1], model[2].bias[:3], T.allclose(model[0](x), x),
           model(x)[0, :4]]
    g = T.Generator().manual_seed(3)
    w = T.empty(6, 4)
    lim = (6.0 / 10) ** 0.5 * init.calculate_gain("tanh")
    init.xavier_uniform_(w, gain=init.calculate_gain("tanh"), generator=g)
    out.append(bool((w.abs() <= lim).all()))
    k = T.empty(5, 3, 2)
    init.kaiming_uniform_(k, a=0.1, mode="fan_out", nonlinearity="leaky_relu")
    bound = init.calculate_gain("leaky_relu", 0.1) * (3.0 / 10) ** 0.5
    out.append(bool((k.abs() <= bound).all()))
    q = T.empty(4, 6)
    init.orthogonal_(q, gain=2.0)
    out.append(T.allclose(q @ q.T, 4 * T.eye(4), atol=1e-4))
    t = T.empty(200)
    init.trunc_normal_(t, mean=1.0, std=2.0, a=-0.5, b=1.5)
    out.append(bool(((t >= -0.5) & (t <= 1.5)).all()))
    s = T.empty(10, 4)
    init.sparse_(s, sparsity=0.3)
    out.append((s == 0).sum(0).tolist())
    runs = []
    for _ in range(2):
        gen = T.Generator().manual_seed(11)
        a = T.empty(3, 3)
        init.normal_(a, 0.0, 1.0, generator=gen)
        init.uniform_(a[0], -1.0, 1.0, generator=gen)
        runs.append(a)
    out.append(T.equal(*runs))
    out.append([init.calculate_gain(n) for n in ("linear", "conv2d", "sigmoid", "tanh", "relu",
                                                 "selu")] + [init.calculate_gain("leaky_relu")])
    out.append(init._calculate_fan_in_and_fan_out(T.empty(8, 3, 2, 5)))
    out += [_raised_head(lambda: init.eye_(T.empty(2, 2, 2))),
            _raised_head(lambda: init.dirac_(T.empty(2, 2))),
            _raised_head(lambda: init.calculate_gain("swish")),
            _raised_head(lambda: init.xavier_uniform_(T.empty(3)))]
    return out


def skip_init_modules(T):
    """nn.utils.skip_init builds a module without running its init (the
    parameters' shapes, dtype and device as asked), then a NumPy init and
    training; its refusal of a class without a device argument."""
    nn = T.nn
    # skip_init builds on the CPU unless given a device (PyTorch's rule),
    # whatever the default device: the data's device is asked for
    lin = nn.utils.skip_init(nn.Linear, 4, 2, bias=True, dtype=T.float64,
                             device=T.get_default_device())
    conv = nn.utils.skip_init(nn.Conv1d, 2, 3, kernel_size=2)
    info = [lin.weight.shape, lin.weight.dtype, lin.bias.shape, conv.weight.shape,
            str(conv.weight.device), type(lin).__name__, lin.weight.device == _t(T, 1).device]
    _init(T, lin, 1)
    x, y = _t(T, 5, 4, seed=2).double(), _t(T, 5, 2, seed=3).double()
    opt = T.optim.SGD(lin.parameters(), lr=0.1)
    losses = _train(T, lin, opt, lambda m: nn.functional.mse_loss(m(x), y))

    class NoDevice(nn.Module):
        def __init__(self, n):
            super().__init__()

    return [info, losses, lin.weight, _raised_head(lambda: nn.utils.skip_init(NoDevice, 3))]


# ---- state dicts and buffers ------------------------------------------------------------------

def state_dict_reports(T):
    """load_state_dict(strict=False)'s report (missing and unexpected keys,
    its repr and truth value), a shape mismatch refused even then, a
    non-persistent buffer (kept out of the state dict, moved by .to and
    .double), a buffer registered as None, and strict=True's message."""
    nn = T.nn

    class Net(nn.Module):
        def __init__(self, extra=False):
            super().__init__()
            self.body = nn.Linear(3, 4)
            self.head = nn.Linear(4, 2)
            self.register_buffer("scale", T.tensor(2.0))
            self.register_buffer("cache", T.zeros(4), persistent=False)
            self.register_buffer("nothing", None)
            if extra:
                self.aux = nn.Linear(4, 1)

        def forward(self, x):
            h = self.body(x)
            self.cache.copy_(h.detach().mean(0))
            return self.head(h) * self.scale

    src = _init(T, Net(extra=True), 1)
    dst = _init(T, Net(), 2)
    sd = src.state_dict()
    sd.pop("head.bias")
    report = dst.load_state_dict(sd, strict=False)
    out = [sorted(src.state_dict()), sorted(report.missing_keys), sorted(report.unexpected_keys),
           bool(report), T.equal(dst.body.weight, src.body.weight), dst.head.bias,
           [n for n, _ in dst.named_buffers()]]
    x = _t(T, 5, 3, seed=3)
    dst(x)
    out.append(dst.cache)
    dst.double()
    out += [dst.cache.dtype, dst.scale.dtype, "cache" in dst.state_dict()]
    bad = src.state_dict()
    bad["head.weight"] = T.zeros(3, 4)
    out.append(_raised_head(lambda: Net(extra=True).load_state_dict(bad, strict=False)))
    out.append(_raised_head(lambda: Net().load_state_dict(src.state_dict())))
    clean = Net().load_state_dict(Net().state_dict())
    out += [repr(clean), bool(clean), repr(report).startswith("_IncompatibleKeys")]
    return out


def param_vector_roundtrip(T):
    """A model trained by hand on its flat parameter vector:
    parameters_to_vector, a step on the vector, vector_to_parameters back
    (the parameters' data replaced, grads untouched); the same steps by
    SGD agree; refusals of a vector of the wrong size and of a non-tensor."""
    nn = T.nn
    U = nn.utils
    F = nn.functional
    x, y = _t(T, 6, 4, seed=1), _t(T, 6, 2, seed=2)
    a, b = _mlp(T, 3), _mlp(T, 3)
    opt = T.optim.SGD(b.parameters(), lr=0.1)
    losses = []
    for _ in range(3):
        a.zero_grad()
        loss = F.mse_loss(a(x), y)
        loss.backward()
        with T.no_grad():
            vec = U.parameters_to_vector(a.parameters())
            grad = U.parameters_to_vector(p.grad for p in a.parameters())
            U.vector_to_parameters(vec - 0.1 * grad, a.parameters())
        losses.append(loss.item())
    _fit(T, b, opt, x, y, 3)
    vec = U.parameters_to_vector(a.parameters())
    return [losses, vec.shape, vec[:5], T.allclose(vec, U.parameters_to_vector(b.parameters())),
            a[0].weight.grad is not None, a[0].weight.is_leaf,
            _raised_head(lambda: U.vector_to_parameters(vec[:-1], a.parameters())),
            _raised_head(lambda: U.vector_to_parameters(vec.tolist(), a.parameters()))]


# ---- optimizer handling ------------------------------------------------------------------------

def unfreeze_mid_training(T):
    """Fine-tuning that trains the head first, then unfreezes the backbone
    by add_param_group with its own lr and betas at step 3; zero_grad with
    set_to_none=False leaving zero tensors, clip_grad_value_ on every
    step (foreach and not), and the optimizer's groups afterwards."""
    nn = T.nn
    F = nn.functional
    model = _mlp(T, 4, sizes=(4, 6, 6, 2))
    x, y = _t(T, 8, 4, seed=1), _t(T, 8, 2, seed=2)
    for p in model[0].parameters():
        p.requires_grad_(False)
    opt = T.optim.Adam(list(model[2].parameters()) + list(model[4].parameters()), lr=0.02)
    losses, grads = [], []
    for step in range(6):
        if step == 3:
            for p in model[0].parameters():
                p.requires_grad_(True)
            opt.add_param_group({"params": model[0].parameters(), "lr": 0.005,
                                 "betas": (0.5, 0.9)})
        opt.zero_grad(set_to_none=False)
        grads.append(None if model[0].weight.grad is None else model[0].weight.grad.abs().sum())
        loss = F.mse_loss(model(x), y)
        loss.backward()
        nn.utils.clip_grad_value_(model.parameters(), 0.05, foreach=step % 2 == 0)
        opt.step()
        losses.append(loss.item())
    return [losses, grads, model[0].weight, model[4].bias,
            [[g["lr"], g["betas"], len(g["params"])] for g in opt.param_groups],
            opt.state[model[0].weight]["step"]]


def ema_of_weights(T):
    """An exponential moving average of a model's weights kept three ways:
    by p.lerp_ under no_grad, by torch._foreach_lerp_, and by AveragedModel
    with get_ema_multi_avg_fn (buffers too); the three agree, and the EMA
    model's eval loss."""
    nn = T.nn
    F = nn.functional
    from copy import deepcopy
    model = _init(T, nn.Sequential(nn.Linear(4, 6), nn.BatchNorm1d(6), nn.Tanh(),
                                   nn.Linear(6, 2)), 1)
    ema1, ema2 = deepcopy(model), deepcopy(model)
    avg = T.optim.swa_utils.AveragedModel(
        model, multi_avg_fn=T.optim.swa_utils.get_ema_multi_avg_fn(0.9), use_buffers=True)
    x, y = _t(T, 8, 4, seed=2), _t(T, 8, 2, seed=3)
    opt = T.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    for _ in range(4):
        _fit(T, model, opt, x, y, 1)
        with T.no_grad():
            for e, p in zip(ema1.state_dict().values(), model.state_dict().values()):
                if e.is_floating_point():
                    e.lerp_(p, 0.1)
                else:
                    e.copy_(p)
            fl = [t for t in ema2.state_dict().values() if t.is_floating_point()]
            src = [t for t in model.state_dict().values() if t.is_floating_point()]
            T._foreach_lerp_(fl, src, 0.1)
        avg.update_parameters(model)
    w1, w2, w3 = ema1[0].weight, ema2[0].weight, avg.module[0].weight
    ema1.eval()
    return [w1, T.allclose(w1, w2), T.allclose(w1, w3, atol=1e-6), ema1[1].running_mean,
            avg.module[1].running_mean, avg.n_averaged, F.mse_loss(ema1(x), y)]


def accumulation_no_sync(T):
    """Gradient accumulation over four micro-batches with a DDP-like
    wrapper whose no_sync() context skips a (here, local) all-reduce
    hook on all but the last micro-batch; the accumulated step equals the
    full-batch step; the loss scaled by the number of micro-batches."""
    nn = T.nn
    F = nn.functional
    import contextlib

    class LocalDDP(nn.Module):
        def __init__(self, module):
            super().__init__()
            self.module = module
            self.sync = True
            self.reduced = 0

        @contextlib.contextmanager
        def no_sync(self):
            self.sync = False
            try:
                yield
            finally:
                self.sync = True

        def forward(self, x):
            out = self.module(x)
            if self.sync and T.is_grad_enabled():
                out.register_hook(self._count)
            return out

        def _count(self, g):
            self.reduced += 1
            return g

    x, y = _t(T, 8, 4, seed=1), _t(T, 8, 2, seed=2)
    ddp = LocalDDP(_mlp(T, 5))
    full = _mlp(T, 5)
    opt = T.optim.SGD(ddp.parameters(), lr=0.1, momentum=0.9)
    opt_full = T.optim.SGD(full.parameters(), lr=0.1, momentum=0.9)
    losses = []
    for _ in range(2):
        opt.zero_grad()
        total = 0.0
        for k in range(4):
            ctx = ddp.no_sync() if k < 3 else contextlib.nullcontext()
            with ctx:
                loss = F.mse_loss(ddp(x[2 * k:2 * k + 2]), y[2 * k:2 * k + 2]) / 4
                loss.backward()
            total += loss.item()
        opt.step()
        losses.append(total)
    full_losses = _fit(T, full, opt_full, x, y, 2)
    return [losses, full_losses, ddp.reduced, ddp.module[0].weight,
            (ddp.module[2].weight - full[2].weight).abs().max().item() < 1e-6]


# ---- data utilities ---------------------------------------------------------------------------

def random_split_fractions(T):
    """random_split by fractions (the remainder dealt round-robin), by
    lengths, with a seeded generator: the sizes, the subsets' union and
    disjointness, the same split twice under one seed; refusals of
    fractions not summing to 1 and of lengths not summing to the size."""
    D = T.utils.data
    ds = D.TensorDataset(T.arange(11))
    out = []
    for lengths in ([0.5, 0.3, 0.2], [0.34, 0.33, 0.33], [3, 8], [1.0, 0.0]):
        parts = D.random_split(ds, lengths, generator=T.Generator().manual_seed(1))
        idx = [list(p.indices) for p in parts]
        again = D.random_split(ds, lengths, generator=T.Generator().manual_seed(1))
        out.append([[len(p) for p in parts], sorted(sum(idx, [])) == list(range(11)),
                    idx == [list(p.indices) for p in again], type(parts[0]).__name__])
    out += [_raised_head(lambda: D.random_split(ds, [0.5, 0.4])),
            _raised_head(lambda: D.random_split(ds, [3, 4])),
            _raised_head(lambda: D.random_split(ds, [0.5, -0.1, 0.6]))]
    return out


def weighted_and_batch_samplers(T):
    """WeightedRandomSampler with and without replacement (the drawn
    indices only where weights are positive, each at most once without
    replacement), fed to a DataLoader through a BatchSampler with and
    without drop_last (their lengths and batch sizes); the refusals of
    negative weights, too many draws without replacement, a bad
    num_samples and a bad batch size."""
    D = T.utils.data
    weights = [0.0, 1.0, 3.0, 0.0, 2.0, 1.0]
    with_rep = list(D.WeightedRandomSampler(weights, 10, replacement=True))
    without = list(D.WeightedRandomSampler(T.tensor(weights, dtype=T.float64), 4,
                                           replacement=False))
    ds = D.TensorDataset(T.arange(6.0) * 10)
    out = [len(with_rep), set(with_rep) <= {1, 2, 4, 5}, sorted(without),
           type(with_rep[0]).__name__]
    for drop in (False, True):
        bs = D.BatchSampler(D.WeightedRandomSampler(weights, 7), 3, drop_last=drop)
        dl = D.DataLoader(ds, batch_sampler=bs)
        sizes = [len(b[0]) for b in dl]
        out.append([len(bs), len(dl), sizes])
    out += [_raised_head(lambda: list(D.WeightedRandomSampler([1.0, -1.0], 2))),
            _raised_head(lambda: list(D.WeightedRandomSampler(weights, 5, replacement=False))),
            _raised_head(lambda: D.WeightedRandomSampler(weights, 0)),
            _raised_head(lambda: D.WeightedRandomSampler(weights, 3, replacement=1)),
            _raised_head(lambda: D.BatchSampler(range(4), 0, False)),
            _raised_head(lambda: D.BatchSampler(range(4), 2, drop_last=None))]
    return out


def distributed_sampler_shards(T):
    """DistributedSampler given num_replicas and rank (no process group):
    each rank's shard without shuffling, padded by wrapping or trimmed
    with drop_last, the shards' union; shuffled shards by seed and epoch
    (set_epoch) as sets that together cover the data; its refusal of a
    rank out of range; a DataLoader over one shard."""
    D = T.utils.data
    ds = D.TensorDataset(T.arange(10))
    out = []
    for drop in (False, True):
        shards = [list(D.DistributedSampler(ds, num_replicas=3, rank=r, shuffle=False,
                                            drop_last=drop)) for r in range(3)]
        out.append([shards, len(D.DistributedSampler(ds, num_replicas=3, rank=0,
                                                     drop_last=drop))])
    cover = []
    for epoch in (0, 1):
        seen = []
        for r in range(4):
            s = D.DistributedSampler(ds, num_replicas=4, rank=r, shuffle=True, seed=7)
            s.set_epoch(epoch)
            seen += list(s)
        cover.append([len(seen), sorted(set(seen)) == list(range(10))])
    a = D.DistributedSampler(ds, num_replicas=2, rank=1, seed=3)
    b = D.DistributedSampler(ds, num_replicas=2, rank=1, seed=3)
    out += [cover, list(a) == list(b)]
    dl = D.DataLoader(ds, batch_size=2, sampler=D.DistributedSampler(ds, 3, 2, shuffle=False))
    out.append([b[0].tolist() for b in dl])
    out += [_raised_head(lambda: D.DistributedSampler(ds, num_replicas=2, rank=2)),
            _raised_head(lambda: D.DistributedSampler(ds, num_replicas=2, rank=-1))]
    return out


def nested_collate(T):
    """default_collate of samples that are dicts of namedtuples of tensors,
    NumPy arrays, Python numbers, strings and lists; default_convert of
    the same; a DataLoader with batch_size=None (no batching) over them;
    the refusals of tensors of different sizes and of an unknown type."""
    D = T.utils.data
    Item = collections.namedtuple("Item", "image label")

    def sample(k):
        return {"x": Item(T.full((2, 2), float(k)), k),
                "meta": {"id": f"s{k}", "w": 0.5 * k, "arr": np.arange(3) + k},
                "pair": [T.tensor(k), (k, float(k))]}

    batch = D.default_collate([sample(k) for k in range(3)])
    out = [type(batch["x"]).__name__, batch["x"].image.shape, batch["x"].label,
           batch["meta"]["id"], batch["meta"]["w"], batch["meta"]["arr"], batch["pair"][0],
           batch["pair"][1]]
    conv = D.default_convert(sample(2))
    out += [type(conv["meta"]["arr"]).__name__, conv["meta"]["arr"].dtype, conv["meta"]["w"]]

    class Samples(D.Dataset):
        def __len__(self):
            return 2

        def __getitem__(self, i):
            return sample(i)

    unbatched = list(D.DataLoader(Samples(), batch_size=None))
    out += [type(unbatched[1]["meta"]["arr"]).__name__, unbatched[1]["x"].label]
    out += [_raised_head(lambda: D.default_collate([T.zeros(2), T.zeros(3)])),
            _raised_head(lambda: D.default_collate([object(), object()])),
            _raised_head(lambda: D.default_collate([{"a": 1}, {"b": 2}]))]
    return out


# ---- compile, attention, embeddings ------------------------------------------------------------

def compile_as_identity(T):
    """torch.compile used as a decorator on a training step and on a model
    (the compiled module's state-dict keys carry _orig_mod.), model.compile()
    in place (keys unchanged), torch.compiler.is_compiling and
    torch.compiler.disable; the trained result equals the uncompiled one."""
    nn = T.nn
    F = nn.functional
    x, y = _t(T, 6, 4, seed=1), _t(T, 6, 2, seed=2)
    plain = _mlp(T, 3)
    wrapped = T.compile(_mlp(T, 3))
    inplace = _mlp(T, 3)
    inplace.compile()
    opt = T.optim.SGD(wrapped.parameters(), lr=0.1)

    @T.compile(fullgraph=True)
    def step(model, x, y):
        return F.mse_loss(model(x), y)

    losses = []
    for _ in range(3):
        opt.zero_grad()
        loss = step(wrapped, x, y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    ref = _fit(T, plain, T.optim.SGD(plain.parameters(), lr=0.1), x, y, 3)
    off = T.compiler.disable(lambda v: v * 2)
    return [losses, ref, sorted(wrapped.state_dict())[:2], sorted(inplace.state_dict())[:2],
            type(wrapped).__name__, type(wrapped._orig_mod).__name__, T.compiler.is_compiling(),
            off(T.ones(2)), T.allclose(inplace(x), _mlp(T, 3)(x))]


def encoder_padding_fast_path(T):
    """A TransformerEncoder (post-norm layers, key-padding mask, a final
    LayerNorm) trained by Adam, then run for inference under no_grad in
    eval: with enable_nested_tensor the padded positions leave the layers
    as zeros (PyTorch's nested fast path), so the final LayerNorm makes
    them its bias; the unpadded ones as in training mode's maths; a
    boolean and a float mask give the same result."""
    nn = T.nn
    F = nn.functional
    layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True, norm_first=False)
    enc = _init(T, nn.TransformerEncoder(layer, 2, norm=nn.LayerNorm(8),
                                         enable_nested_tensor=True), 1)
    x = _t(T, 3, 5, 8, seed=2)
    pad = T.tensor([[False] * 5, [False] * 3 + [True] * 2, [False] * 4 + [True]])
    target = _t(T, 3, 8, seed=3)
    opt = T.optim.Adam(enc.parameters(), lr=0.01)

    def loss(m):
        h = m(x, src_key_padding_mask=pad)
        keep = (~pad).unsqueeze(-1).float()
        return F.mse_loss((h * keep).sum(1) / keep.sum(1), target)

    losses = _train(T, enc, opt, loss)
    train_out = enc(x, src_key_padding_mask=pad)
    enc.eval()
    with T.no_grad():
        fast = enc(x, src_key_padding_mask=pad)
        fmask = T.zeros(3, 5).masked_fill(pad, float("-inf"))
        ffast = enc(x, src_key_padding_mask=fmask)
    return [losses, fast[1, 3:], T.allclose(fast[~pad], train_out[~pad].detach(), atol=1e-5),
            T.allclose(fast, ffast, atol=1e-6), fast[0, 0]]



# ---- pooling variants -------------------------------------------------------------------------

def pooling_variants(T):
    """AdaptiveMaxPool1d/2d with return_indices, FractionalMaxPool2d with
    its random samples given (so deterministic), LPPool1d/2d of norms 1,
    2 and 3 with ceil_mode, AvgPool2d with divisor_override, each in a
    small model trained by SGD; the indices and gradients."""
    nn = T.nn
    F = nn.functional
    x = _t(T, 2, 2, 7, 6, seed=1)
    y = _t(T, 2, 1, seed=2)
    frac = nn.FractionalMaxPool2d(2, output_size=(4, 3),
                                  _random_samples=_data(T, np.array([[[0.2, 0.7], [0.5, 0.1]],
                                                                     [[0.9, 0.3], [0.4, 0.6]]],
                                                                    dtype=np.float32)))
    pools = [nn.AdaptiveMaxPool2d((3, 2)), frac, nn.LPPool2d(1, 2), nn.LPPool2d(2, (3, 2),
                                                                                stride=2),
             nn.LPPool2d(3, 2, ceil_mode=True), nn.AvgPool2d(3, stride=2, padding=1,
                                                             divisor_override=4)]
    out = []
    for k, pool in enumerate(pools):
        conv = nn.Conv2d(2, 2, 2)
        model = nn.Sequential(conv, nn.Softplus(), pool, nn.Flatten(), nn.LazyLinear(1))
        model(x)
        _init(T, model, 50 + k)
        opt = T.optim.SGD(model.parameters(), lr=0.05)
        out.append([repr(pool), _train(T, model, opt, lambda m: F.mse_loss(m(x), y)),
                    conv.weight[0, 0]])
    s = _t(T, 1, 2, 9, seed=3).requires_grad_()
    v, i = F.adaptive_max_pool1d(s, 4, return_indices=True)
    v.sum().backward()
    v2, i2 = nn.AdaptiveMaxPool2d(2, return_indices=True)(_t(T, 1, 1, 5, 5, seed=4))
    return out + [v, i, s.grad, i2]


def shufflenet_block(T):
    """A ShuffleNet-style block: grouped 1x1 conv, ChannelShuffle,
    depthwise 3x3 conv (groups = channels) with stride, BatchNorm and a
    residual average-pooled shortcut concatenated; trained by SGD with
    momentum and weight decay; channel_shuffle's refusal of a group count
    that does not divide the channels."""
    nn = T.nn
    F = nn.functional

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.g1 = nn.Conv2d(4, 8, 1, groups=2, bias=False)
            self.bn1 = nn.BatchNorm2d(8)
            self.shuffle = nn.ChannelShuffle(2)
            self.dw = nn.Conv2d(8, 8, 3, stride=2, padding=1, groups=8, bias=False)
            self.bn2 = nn.BatchNorm2d(8)
            self.g2 = nn.Conv2d(8, 4, 1, groups=4, bias=False)
            self.head = nn.Linear(8, 3)

        def forward(self, x):
            h = self.shuffle(F.relu(self.bn1(self.g1(x))))
            h = self.g2(self.bn2(self.dw(h)))
            h = T.cat([h, F.avg_pool2d(x, 3, stride=2, padding=1)], dim=1)
            return self.head(F.relu(h).mean((2, 3)))

    model = _init(T, Block(), 1, scale=0.5)
    x = _t(T, 3, 4, 6, 6, seed=2)
    y = T.tensor([0, 2, 1])
    opt = T.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-3)
    losses = _train(T, model, opt, lambda m: F.cross_entropy(m(x), y))
    return [losses, model.dw.weight[0, 0], model.g1.weight[:, :, 0, 0], model.bn2.running_var,
            F.channel_shuffle(T.arange(12.0).reshape(1, 6, 2, 1), 3).flatten(),
            repr(model.shuffle), _raised_head(lambda: F.channel_shuffle(T.zeros(1, 5, 2, 2), 2))]


def channels_last_training(T):
    """A conv net moved to channels_last (model and input) and trained by
    Adam beside the same net in the default layout: the losses agree, the
    weights stay channels_last after the optimizer's steps, the outputs
    of the convolutions and batch norm come out channels_last, and their
    gradients too."""
    nn = T.nn
    F = nn.functional
    cl = T.channels_last

    def make():
        return _init(T, nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.BatchNorm2d(4),
                                      nn.ReLU(), nn.Conv2d(4, 2, 1), nn.AdaptiveAvgPool2d(1),
                                      nn.Flatten()), 1)

    a, b = make(), make().to(memory_format=cl)
    x = _t(T, 2, 3, 5, 5, seed=2)
    y = _t(T, 2, 2, seed=3)
    oa, ob = T.optim.Adam(a.parameters(), lr=0.01), T.optim.Adam(b.parameters(), lr=0.01)
    la = _train(T, a, oa, lambda m: F.mse_loss(m(x), y))
    xc = x.to(memory_format=cl)
    lb = _train(T, b, ob, lambda m: F.mse_loss(m(xc), y))
    feats = b[1](b[0](xc))
    return [la, lb, T.allclose(a[0].weight, b[0].weight, atol=1e-6),
            b[0].weight.is_contiguous(memory_format=cl), b[0].weight.grad.is_contiguous(
                memory_format=cl), feats.is_contiguous(memory_format=cl),
            b[3].weight.is_contiguous(), xc.is_contiguous()]


def interpolate_decoder(T):
    """A U-Net-like decoder upsampling by F.interpolate (nearest-exact with
    a scale factor, bilinear with align_corners, bicubic) and
    downsampling by antialiased bilinear and area modes with
    recompute_scale_factor, trained by Adam; Upsample modules' reprs."""
    nn = T.nn
    F = nn.functional

    class Decoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.c1 = nn.Conv2d(2, 3, 3, padding=1)
            self.c2 = nn.Conv2d(3, 2, 3, padding=1)
            self.up = nn.Upsample(scale_factor=1.5, mode="bicubic", align_corners=False)

        def forward(self, x):
            h = F.interpolate(x, scale_factor=2, mode="nearest-exact")
            h = T.tanh(self.c1(h))
            h = F.interpolate(h, size=(9, 7), mode="bilinear", align_corners=True)
            h = self.up(h)
            h = F.interpolate(h, scale_factor=0.5, mode="bilinear", antialias=True,
                              recompute_scale_factor=True)
            h = F.interpolate(self.c2(h), size=(4, 3), mode="area")
            return h

    model = _init(T, Decoder(), 1)
    x = _t(T, 2, 2, 3, 3, seed=2)
    y = _t(T, 2, 2, 4, 3, seed=3)
    opt = T.optim.Adam(model.parameters(), lr=0.02)
    losses = _train(T, model, opt, lambda m: F.mse_loss(m(x), y))
    return [losses, model.c1.weight[0, 0], model(x)[0, 0], repr(model.up),
            repr(nn.Upsample(size=(2, 3), mode="nearest")),
            repr(nn.UpsamplingBilinear2d(scale_factor=2))]


# ---- losses at their edges -------------------------------------------------------------------

def robust_regression_losses(T):
    """SmoothL1Loss with beta=0 (plain L1) and beta=0.5, HuberLoss with a
    small delta, and L1Loss, each fitting a line to data with outliers by
    SGD; the gradients exactly at the beta/delta threshold and at zero
    residual; SmoothL1's refusal of a negative beta."""
    nn = T.nn
    F = nn.functional
    x = _t(T, 10, 1, seed=1)
    y = 2 * x + 0.5
    y[3] += 8.0
    y[7] -= 5.0
    out = []
    for k, loss_fn in enumerate([nn.SmoothL1Loss(beta=0.0), nn.SmoothL1Loss(beta=0.5),
                                 nn.HuberLoss(delta=0.3), nn.L1Loss()]):
        lin = _init(T, nn.Linear(1, 1), 60 + k)
        opt = T.optim.SGD(lin.parameters(), lr=0.1)
        out.append([repr(loss_fn), _train(T, lin, opt, lambda m: loss_fn(m(x), y), steps=5),
                    lin.weight, lin.bias])
    r = T.tensor([-0.5, -0.3, 0.0, 0.3, 0.5, 1.0], requires_grad=True)
    z = T.zeros(6)
    g = [T.autograd.grad(F.smooth_l1_loss(r, z, beta=0.5, reduction="sum"), r)[0],
         T.autograd.grad(F.huber_loss(r, z, delta=0.3, reduction="sum"), r)[0],
         T.autograd.grad(F.smooth_l1_loss(r, z, beta=0.0, reduction="sum"), r)[0],
         T.autograd.grad(F.l1_loss(r, z, reduction="sum"), r)[0]]
    return out + [g, _raised_head(lambda: F.smooth_l1_loss(r, z, beta=-1.0)),
                  _raised_head(lambda: F.huber_loss(r, z, delta=0.0))]


def all_ignored_targets(T):
    """cross_entropy / nll_loss when every target of a batch is the
    ignore_index: the mean is nan (0/0) in PyTorch, the sum 0, 'none' all
    zeros; the gradient of the nan mean; with label smoothing and with
    class weights; a batch of half ignored targets for comparison."""
    F = T.nn.functional
    logits = _t(T, 3, 4, seed=1).requires_grad_()
    ign = T.tensor([-100, -100, -100])
    half = T.tensor([1, -100, 3])
    w = T.tensor([1.0, 2.0, 3.0, 4.0])
    out = []
    for kw in ({}, {"label_smoothing": 0.2}, {"weight": w}, {"weight": w,
                                                             "label_smoothing": 0.1}):
        mean = F.cross_entropy(logits, ign, **kw)
        mean.backward()
        out.append([mean, F.cross_entropy(logits, ign, reduction="sum", **kw),
                    F.cross_entropy(logits, ign, reduction="none", **kw), logits.grad,
                    F.cross_entropy(logits, half, **kw)])
        logits.grad = None
    out.append([F.nll_loss(F.log_softmax(logits, 1), T.tensor([2, 2, 2]), ignore_index=2),
                F.nll_loss(F.log_softmax(logits, 1), half, weight=w, reduction="sum")])
    return out


def distance_based_siamese(T):
    """A siamese network trained by a contrastive loss on
    F.pairwise_distance (with keepdim and eps), a cosine similarity head
    with zero vectors in the batch (eps keeps it finite), pdist and cdist
    (p=1 and p=inf) gradients; cosine_similarity's broadcasting."""
    nn = T.nn
    F = nn.functional
    enc = _init(T, nn.Sequential(nn.Linear(3, 5), nn.ReLU(), nn.Linear(5, 2)), 1)
    a, b = _t(T, 6, 3, seed=2), _t(T, 6, 3, seed=3)
    same = T.tensor([1.0, 0.0, 1.0, 0.0, 0.0, 1.0])
    opt = T.optim.Adam(enc.parameters(), lr=0.02)

    def contrastive(m):
        d = F.pairwise_distance(m(a), m(b), keepdim=True, eps=1e-6).squeeze(1)
        return (same * d.pow(2) + (1 - same) * F.relu(1.0 - d).pow(2)).mean()

    losses = _train(T, enc, opt, contrastive, steps=4)
    u = T.tensor([[0.0, 0.0, 0.0], [1.0, 2.0, 2.0]], requires_grad=True)
    v = T.tensor([[1.0, 0.0, 0.0]])
    cs = F.cosine_similarity(u, v, dim=1, eps=1e-8)
    cs.sum().backward()
    e = enc(a).detach().requires_grad_()
    pd = F.pdist(e)
    c1 = T.cdist(e, e[:2], p=1.0)
    ci = T.cdist(e, e[:2], p=float("inf"))
    (pd.sum() + c1.sum() + ci.sum()).backward()
    return [losses, enc[2].weight, cs, u.grad, pd, c1, ci, e.grad,
            F.cosine_similarity(_t(T, 2, 1, 3, seed=4), _t(T, 4, 3, seed=5), dim=-1)]


def uncertainty_weighted_multitask(T):
    """Two task losses (regression and classification) weighted by learned
    log-variances (Kendall et al.), the weights in their own parameter
    group without weight decay under AdamW; the log-variances after."""
    nn = T.nn
    F = nn.functional

    class MultiTask(nn.Module):
        def __init__(self):
            super().__init__()
            self.trunk = nn.Linear(4, 6)
            self.reg = nn.Linear(6, 1)
            self.cls = nn.Linear(6, 3)
            self.log_vars = nn.Parameter(T.zeros(2))

        def forward(self, x):
            h = T.relu(self.trunk(x))
            return self.reg(h), self.cls(h)

    model = _init(T, MultiTask(), 1)
    with T.no_grad():
        model.log_vars.zero_()
    x, yr = _t(T, 8, 4, seed=2), _t(T, 8, 1, seed=3)
    yc = T.tensor([0, 1, 2, 0, 1, 2, 2, 1])
    decay = [p for n, p in model.named_parameters() if n != "log_vars"]
    opt = T.optim.AdamW([{"params": decay}, {"params": [model.log_vars], "weight_decay": 0.0,
                                             "lr": 0.05}], lr=0.01, weight_decay=0.1)

    def loss(m):
        r, c = m(x)
        lv = m.log_vars
        return (T.exp(-lv[0]) * F.mse_loss(r, yr) + lv[0] +
                T.exp(-lv[1]) * F.cross_entropy(c, yc) + lv[1])

    losses = _train(T, model, opt, loss, steps=5)
    return [losses, model.log_vars, model.trunk.weight[0],
            [g["weight_decay"] for g in opt.param_groups]]


def gumbel_softmax_straight_through(T):
    """F.gumbel_softmax with hard=True (straight-through): one-hot outputs
    whose gradient is the soft sample's; with hard=False rows summing to
    one; tau's effect; the stream-independent facts only."""
    F = T.nn.functional
    logits = _t(T, 4, 5, seed=1).requires_grad_()
    hard = F.gumbel_softmax(logits, tau=0.5, hard=True)
    (hard * T.arange(5.0)).sum().backward()
    soft = F.gumbel_softmax(logits, tau=2.0, hard=False, dim=0)
    return [hard.shape, hard.sum(1), bool(((hard == 0) | (hard == 1)).all()),
            logits.grad.shape, T.allclose(logits.grad.sum(1), T.zeros(4), atol=1e-5),
            T.allclose(soft.sum(0), T.ones(5), atol=1e-6), hard.requires_grad]


# ---- parameters shared and tied --------------------------------------------------------------

def tied_shared_parameters(T):
    """A model whose encoder and decoder share one weight (the decoder's
    Linear given the encoder's Parameter) and a block used twice:
    parameters() lists each once, named_parameters(remove_duplicate=False)
    lists both names, the state dict holds both keys, the optimizer steps
    each tensor once and the shared gradient is the sum of both uses."""
    nn = T.nn
    F = nn.functional

    class Tied(nn.Module):
        def __init__(self):
            super().__init__()
            self.enc = nn.Linear(4, 3, bias=False)
            self.dec = nn.Linear(3, 4, bias=False)
            self.block = nn.Linear(3, 3)
            self.dec.weight = nn.Parameter(T.zeros(4, 3))

        def tie(self):
            self.dec.weight = self.enc.weight

        def forward(self, x):
            h = self.block(T.tanh(self.block(self.enc(x))))
            return F.linear(h, self.dec.weight.t())

    model = _init(T, Tied(), 1)
    model.tie()
    x = _t(T, 5, 4, seed=2)
    opt = T.optim.SGD(model.parameters(), lr=0.1)
    losses = _train(T, model, opt, lambda m: F.mse_loss(m(x), x))
    return [losses, len(list(model.parameters())),
            [n for n, _ in model.named_parameters()],
            [n for n, _ in model.named_parameters(remove_duplicate=False)],
            list(model.state_dict()), model.enc.weight, model.dec.weight is model.enc.weight,
            model.block.bias]


def embedding_renorm_training(T):
    """An Embedding with max_norm and norm_type=1 trained by SGD: the rows
    looked up are renormalised in place by every forward (the others
    untouched); padding_idx given negative; scale_grad_by_freq on a dense
    gradient; F.embedding with max_norm on a weight outside a module."""
    nn = T.nn
    F = nn.functional
    emb = _init(T, nn.Embedding(6, 3, max_norm=0.5, norm_type=1.0, padding_idx=-1,
                                scale_grad_by_freq=True), 1, scale=1.0)
    untouched = emb.weight[2].clone()
    idx = T.tensor([[0, 1, 1, 5], [3, 5, 0, 0]])
    target = _t(T, 2, 4, 3, seed=2)
    opt = T.optim.SGD(emb.parameters(), lr=0.5)
    losses, grads = [], []
    for _ in range(3):
        opt.zero_grad()
        loss = F.mse_loss(emb(idx), target)
        loss.backward()
        grads.append(emb.weight.grad.clone())
        opt.step()
        losses.append(loss.item())
    w = _t(T, 4, 2, seed=3, scale=3.0)
    F.embedding(T.tensor([1, 3]), w, max_norm=1.0)
    return [losses, emb.weight, grads[0], emb.padding_idx, T.equal(emb.weight[2], untouched),
            emb.weight.abs().sum(1), w, repr(emb)]


# ---- the loader --------------------------------------------------------------------------------

def loader_generator_reproducible(T):
    """A shuffling DataLoader given a seeded generator: the same order
    twice under one seed, every sample once per epoch, epochs differing
    in order; shuffle with a sampler refused; batch_sampler with
    batch_size refused; a drop_last loader's length."""
    D = T.utils.data
    ds = D.TensorDataset(T.arange(10), T.arange(10) * 2)

    def orders(seed):
        dl = D.DataLoader(ds, batch_size=3, shuffle=True, generator=T.Generator().manual_seed(
            seed))
        return [[b[0].tolist() for b in dl] for _ in range(2)]

    a, b = orders(5), orders(5)
    flat = [sorted(sum(ep, [])) for ep in a]
    return [a == b, flat, a[0] != a[1], [len(x) for x in a[0]],
            len(D.DataLoader(ds, batch_size=3, drop_last=True)),
            _raised_head(lambda: D.DataLoader(ds, shuffle=True,
                                              sampler=D.SequentialSampler(ds))),
            _raised_head(lambda: D.DataLoader(ds, batch_size=2,
                                              batch_sampler=D.BatchSampler(range(10), 2, False))),
            _raised_head(lambda: D.DataLoader(ds, drop_last=True,
                                              batch_sampler=D.BatchSampler(range(10), 2, False)))]


def adaptive_softmax_head_bias(T):
    """AdaptiveLogSoftmaxWithLoss with head_bias=True trained by Adam on a
    small vocabulary: the losses, log_prob's rows summing to one in
    probability, predict() against log_prob's argmax, the output's
    per-target log-probabilities matching log_prob; the refusals of a
    target out of range and of a batch-size mismatch."""
    nn = T.nn
    asm = _init(T, nn.AdaptiveLogSoftmaxWithLoss(5, 12, cutoffs=[3, 7], div_value=2.0,
                                                 head_bias=True), 1)
    h = _t(T, 8, 5, seed=2)
    y = T.tensor([0, 2, 4, 7, 11, 3, 9, 1])
    opt = T.optim.Adam(asm.parameters(), lr=0.05)
    losses = _train(T, asm, opt, lambda m: m(h, y).loss)
    res = asm(h, y)
    lp = asm.log_prob(h)
    return [losses, res.output, T.allclose(lp.exp().sum(1), T.ones(8), atol=1e-5),
            T.equal(asm.predict(h), lp.argmax(1)), T.allclose(lp.gather(1, y[:, None])[:, 0],
                                                              res.output, atol=1e-5),
            asm.head.bias, [n for n, _ in asm.named_parameters()],
            _raised_head(lambda: asm(h, T.tensor([0, 1, 2, 3, 4, 5, 6, 12]))),
            _raised_head(lambda: asm(h, y[:5]))]



# ---- normalised weights ----------------------------------------------------------------------

def _unit(T, n, seed):
    a = _arr(n, seed=seed)
    return _data(T, a / np.linalg.norm(a))


def spectral_norm_discriminator(T):
    """A GAN discriminator whose layers carry spectral norm, the hook-based
    nn.utils.spectral_norm on one and the parametrization on the other,
    their power-iteration vectors set from NumPy (so the run does not
    depend on the random start), trained three steps by Adam with a hinge
    loss; the estimated sigma, the vectors after, eval's frozen vectors,
    and the state dicts' keys."""
    nn = T.nn
    F = nn.functional
    old = nn.utils.spectral_norm(_init(T, nn.Linear(4, 6), 1), n_power_iterations=2)
    new = nn.utils.parametrizations.spectral_norm(_init(T, nn.Linear(6, 1), 2))
    with T.no_grad():
        old.weight_u.copy_(_unit(T, 6, 3))
        old.weight_v.copy_(_unit(T, 4, 4))
        sn = new.parametrizations.weight[0]
        sn._u.copy_(_unit(T, 1, 5))
        sn._v.copy_(_unit(T, 6, 6))
    disc = nn.Sequential(old, nn.LeakyReLU(0.2), new)
    real, fake = _t(T, 6, 4, seed=7), _t(T, 6, 4, seed=8, scale=2.0)
    opt = T.optim.Adam(disc.parameters(), lr=0.01, betas=(0.0, 0.9))
    losses = _train(T, disc, opt, lambda m: F.relu(1 - m(real)).mean() + F.relu(1 + m(fake))
                    .mean())
    w = old.weight_orig.detach()
    sigma = T.dot(old.weight_u, w @ old.weight_v)
    disc.eval()
    u_before = old.weight_u.clone()
    out = disc(real)
    return [losses, sigma, old.weight_u, old.weight_v, sn._u, old.weight,
            T.equal(u_before, old.weight_u), out[:3], sorted(disc.state_dict())]


def weight_norm_hooks_training(T):
    """The older hook-based nn.utils.weight_norm on a conv (dim=0) and a
    linear (dim=None) trained by SGD: weight_g/weight_v's gradients and
    values, the recomputed weight; remove_weight_norm afterwards leaving a
    plain parameter of the same value; its refusal of a second
    weight_norm on the same name."""
    nn = T.nn
    F = nn.functional
    conv = nn.utils.weight_norm(_init(T, nn.Conv1d(2, 3, 2), 1), dim=0)
    lin = nn.utils.weight_norm(_init(T, nn.Linear(12, 1), 2), dim=None)
    model = nn.Sequential(conv, nn.Tanh(), nn.Flatten(), lin)
    x, y = _t(T, 4, 2, 5, seed=3), _t(T, 4, 1, seed=4)
    opt = T.optim.SGD(model.parameters(), lr=0.1)
    losses = _train(T, model, opt, lambda m: F.mse_loss(m(x), y))
    info = [conv.weight_g.shape, conv.weight_g.flatten(), lin.weight_g, conv.weight_v.grad[0],
            T.allclose(conv.weight, conv.weight_g * conv.weight_v /
                       conv.weight_v.norm(dim=(1, 2), keepdim=True))]
    before = conv.weight.detach().clone()
    nn.utils.remove_weight_norm(conv)
    info += [sorted(n for n, _ in conv.named_parameters()), T.equal(conv.weight, before),
             _raised_head(lambda: nn.utils.weight_norm(lin)),
             _raised_head(lambda: nn.utils.remove_weight_norm(conv))]
    return [losses, info]


# ---- random state -----------------------------------------------------------------------------

def dropout_rng_state(T):
    """Reproducible dropout by the generator's state: get_rng_state before a
    training step and set_rng_state after give the same masks (and so the
    same loss and gradients) on a rerun; torch.random.fork_rng leaves the
    outer stream untouched; manual_seed twice gives the same masks."""
    nn = T.nn
    F = nn.functional
    model = _init(T, nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Dropout(0.5),
                                   nn.Linear(16, 1)), 1)
    x, y = _t(T, 8, 4, seed=2), _t(T, 8, 1, seed=3)
    state = T.get_rng_state()
    a = F.mse_loss(model(x), y)
    ga = T.autograd.grad(a, model[0].weight)[0]
    T.set_rng_state(state)
    b = F.mse_loss(model(x), y)
    gb = T.autograd.grad(b, model[0].weight)[0]
    T.manual_seed(4)
    m1 = F.dropout(T.ones(20), 0.3)
    T.manual_seed(4)
    with T.random.fork_rng():
        T.rand(5)
    m2 = F.dropout(T.ones(20), 0.3)
    vals = set(m1.tolist())
    return [a.item() == b.item(), T.equal(ga, gb), T.equal(m1, m2),
            vals <= {0.0, 1 / 0.7}, type(state).__name__, state.dtype]


# ---- sequence models ---------------------------------------------------------------------------

def gru_scheduled_sampling(T):
    """A GRUCell decoder trained with scheduled sampling that is
    deterministic: teacher forcing on even steps, its own argmax on odd
    ones (fed back through an Embedding), losses summed over time; then
    greedy decoding; an LSTMCell variant with its (h, c) carried and
    detached every two steps (truncated backpropagation)."""
    nn = T.nn
    F = nn.functional
    emb = _init(T, nn.Embedding(6, 4), 1)
    cell = _init(T, nn.GRUCell(4, 5), 2)
    out = _init(T, nn.Linear(5, 6), 3)
    params = list(emb.parameters()) + list(cell.parameters()) + list(out.parameters())
    opt = T.optim.Adam(params, lr=0.02)
    tgt = T.tensor([[1, 2, 3, 4, 5], [2, 2, 4, 4, 1], [5, 4, 3, 2, 1]])
    losses = []
    for _ in range(3):
        opt.zero_grad()
        h = T.zeros(3, 5)
        tok = T.zeros(3, dtype=T.long)
        loss = 0
        for t in range(5):
            h = cell(emb(tok), h)
            logits = out(h)
            loss = loss + F.cross_entropy(logits, tgt[:, t])
            tok = tgt[:, t] if t % 2 == 0 else logits.argmax(1)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    with T.no_grad():
        h, tok, seq = T.zeros(3, 5), T.zeros(3, dtype=T.long), []
        for _ in range(5):
            h = cell(emb(tok), h)
            tok = out(h).argmax(1)
            seq.append(tok)
    lstm = _init(T, nn.LSTMCell(3, 4), 4)
    head = _init(T, nn.Linear(4, 1), 5)
    opt2 = T.optim.SGD(list(lstm.parameters()) + list(head.parameters()), lr=0.1)
    xs, ys = _t(T, 6, 2, 3, seed=6), _t(T, 6, 2, 1, seed=7)
    hc = (T.zeros(2, 4), T.zeros(2, 4))
    tb = []
    for t0 in range(0, 6, 2):
        opt2.zero_grad()
        hc = (hc[0].detach(), hc[1].detach())
        loss = 0
        for t in range(t0, t0 + 2):
            hc = lstm(xs[t], hc)
            loss = loss + F.mse_loss(head(hc[0]), ys[t])
        loss.backward()
        opt2.step()
        tb.append(loss.item())
    return [losses, T.stack(seq, 1), cell.weight_hh[0], tb, lstm.bias_ih[:4], hc[1]]


def kl_distillation_log_target(T):
    """Knowledge distillation with KLDivLoss(log_target=True,
    reduction='batchmean') at a temperature, mixed with the hard-label
    cross entropy, a student trained by SGD; the same loss by
    log_target=False agrees; 'mean' reduction's value (with PyTorch's
    warning left out) against 'batchmean'."""
    nn = T.nn
    F = nn.functional
    teacher = _init(T, nn.Linear(4, 5), 1, scale=1.0)
    student = _init(T, nn.Linear(4, 5), 2)
    x = _t(T, 8, 4, seed=3)
    y = T.tensor([0, 1, 2, 3, 4, 0, 1, 2])
    kl = nn.KLDivLoss(reduction="batchmean", log_target=True)
    temp = 2.0
    with T.no_grad():
        soft_t = F.log_softmax(teacher(x) / temp, 1)
    opt = T.optim.SGD(student.parameters(), lr=0.2, momentum=0.5)

    def loss(m):
        s = m(x)
        return 0.7 * temp ** 2 * kl(F.log_softmax(s / temp, 1), soft_t) + \
            0.3 * F.cross_entropy(s, y)

    losses = _train(T, student, opt, loss, steps=4)
    ls = F.log_softmax(student(x) / temp, 1)
    a = F.kl_div(ls, soft_t, reduction="batchmean", log_target=True)
    b = F.kl_div(ls, soft_t.exp(), reduction="batchmean")
    return [losses, student.weight, a, T.allclose(a, b, atol=1e-6),
            F.kl_div(ls, soft_t, reduction="sum", log_target=True),
            F.kl_div(ls, soft_t, reduction="none", log_target=True)[0]]


# ---- refusals -------------------------------------------------------------------------------

def conv_argument_refusals(T):
    """Convolution layers built or called wrongly: groups not dividing the
    channels (in and out), padding='valid' accepted and 'same' with
    dilation, a padding_mode other than zeros on a transposed conv, a zero
    stride, a kernel larger than the padded input, a weight of the wrong
    rank to F.conv1d, a bias of the wrong size, a transposed weight whose
    channels do not match.  (Left out: an unknown padding_mode, whose
    message prints a set in an order that changes from process to
    process; a padding tuple of the wrong length, which torchlike's
    module refuses when built, PyTorch's only when called.)"""
    nn = T.nn
    F = nn.functional
    x = T.zeros(1, 4, 5)
    return [_raised_head(lambda: nn.Conv1d(4, 6, 3, groups=3)),
            _raised_head(lambda: nn.Conv1d(4, 6, 3, groups=4)),
            nn.Conv1d(4, 2, 3, padding="valid")(x).shape,
            nn.Conv1d(4, 2, 4, padding="same", dilation=2)(x).shape,
            _raised_head(lambda: nn.ConvTranspose1d(4, 2, 3, padding_mode="reflect")),
            _raised_head(lambda: F.conv1d(x, T.zeros(2, 4, 3), stride=0)),
            _raised_head(lambda: F.conv1d(x, T.zeros(2, 4, 7))),
            _raised_head(lambda: F.conv1d(x, T.zeros(2, 4))),
            _raised_head(lambda: F.conv1d(x, T.zeros(2, 4, 3), bias=T.zeros(3))),
            _raised_head(lambda: F.conv_transpose1d(x, T.zeros(3, 2, 3)))]


def norm_argument_refusals(T):
    """Normalisation layers given the wrong input: BatchNorm1d a 4-D batch,
    BatchNorm2d the wrong channel count, GroupNorm groups not dividing the
    channels, InstanceNorm1d a 4-D input, LayerNorm a mismatched shape,
    BatchNorm over a single value per channel in training; the eval-mode
    single value accepted.  (LocalResponseNorm's refusal of a 2-D input is
    left out: PyTorch's message carries its source's line-continuation
    spaces.)"""
    nn = T.nn
    bn = nn.BatchNorm1d(3)
    return [_raised_head(lambda: bn(T.zeros(2, 3, 2, 2))),
            _raised_head(lambda: nn.BatchNorm2d(3)(T.zeros(2, 4, 2, 2))),
            _raised_head(lambda: nn.GroupNorm(3, 4)),
            _raised_head(lambda: nn.GroupNorm(2, 4)(T.zeros(2, 3, 5))),
            _raised_head(lambda: nn.InstanceNorm1d(3)(T.zeros(2, 3, 2, 2))),
            _raised_head(lambda: nn.LayerNorm((3, 4))(T.zeros(2, 4, 3))),
            _raised_head(lambda: bn(T.zeros(1, 3))),
            bn.eval()(T.ones(1, 3)).shape]


def rnn_cell_refusals(T):
    """Recurrent cells called wrongly: an input of the wrong feature size,
    a hidden state of the wrong batch or size, an LSTMCell given one
    tensor for (h, c), a 3-D input to a cell, and an unbatched input with
    a batched state; the unbatched call that works."""
    nn = T.nn
    gru, lstm = nn.GRUCell(3, 4), nn.LSTMCell(3, 4)
    x = T.zeros(2, 3)
    return [_raised_head(lambda: gru(T.zeros(2, 5))),
            _raised_head(lambda: gru(x, T.zeros(3, 4))),
            _raised_head(lambda: gru(x, T.zeros(2, 5))),
            _raised_head(lambda: lstm(x, T.zeros(2, 4))),
            _raised_head(lambda: lstm(T.zeros(2, 2, 3))),
            _raised_head(lambda: gru(T.zeros(3), T.zeros(2, 4))),
            gru(T.zeros(3)).shape, [t.shape for t in lstm(T.zeros(3))],
            _raised_head(lambda: nn.RNNCell(3, 4, nonlinearity="gelu"))]



# ---- windows at their edges ------------------------------------------------------------------

def pooling_window_edges(T):
    """Pooling where the windows meet the edges: ceil_mode's last window
    (kept when it starts inside the input or left padding, dropped when
    it would start in the right padding), count_include_pad with
    ceil_mode (the divisor clipped to the padded input), dilated max
    pooling with ceil_mode, and adaptive pooling with overlapping windows
    (sizes that do not divide); values and gradients, in 1-d, 2-d and 3-d."""
    F = T.nn.functional
    out = []
    x1 = _t(T, 1, 2, 7, seed=1).requires_grad_()
    cases1 = [lambda v: F.avg_pool1d(v, 3, stride=2, padding=1, ceil_mode=True),
              lambda v: F.avg_pool1d(v, 3, stride=2, padding=1, ceil_mode=True,
                                     count_include_pad=False),
              lambda v: F.avg_pool1d(v, 2, stride=3, ceil_mode=True),
              lambda v: F.max_pool1d(v, 2, stride=2, padding=1, dilation=2, ceil_mode=True),
              lambda v: F.max_pool1d(v, 3, stride=3, padding=1, ceil_mode=True),
              lambda v: F.lp_pool1d(v, 2, 3, stride=2, ceil_mode=True),
              lambda v: F.adaptive_avg_pool1d(v, 5),
              lambda v: F.adaptive_max_pool1d(v, 4)]
    for fn in cases1:
        x1.grad = None
        y = fn(x1)
        (y * T.arange(1.0, 1.0 + y.numel()).reshape(y.shape)).sum().backward()
        out.append([y, x1.grad])
    x2 = _t(T, 1, 1, 5, 6, seed=2).requires_grad_()
    cases2 = [lambda v: F.avg_pool2d(v, (3, 2), stride=(2, 3), padding=(1, 1), ceil_mode=True),
              lambda v: F.avg_pool2d(v, 3, stride=2, padding=1, ceil_mode=True,
                                     divisor_override=2),
              lambda v: F.max_pool2d(v, 2, stride=(2, 3), padding=1, dilation=(2, 1),
                                     ceil_mode=True),
              lambda v: F.adaptive_avg_pool2d(v, (3, 4)),
              lambda v: F.adaptive_max_pool2d(v, (4, None))]
    for fn in cases2:
        x2.grad = None
        y = fn(x2)
        (y * T.arange(1.0, 1.0 + y.numel()).reshape(y.shape)).sum().backward()
        out.append([y.shape, y.flatten(), x2.grad.flatten()])
    x3 = _t(T, 1, 1, 3, 4, 5, seed=3).requires_grad_()
    for fn in [lambda v: F.avg_pool3d(v, 2, stride=2, padding=1, ceil_mode=True),
               lambda v: F.max_pool3d(v, 2, stride=2, ceil_mode=True),
               lambda v: F.adaptive_avg_pool3d(v, (2, 3, 3))]:
        x3.grad = None
        y = fn(x3)
        y.pow(2).sum().backward()
        out.append([y.shape, y.flatten(), x3.grad.flatten()])
    return out


def stn_grid_sample_modes(T):
    """A spatial transformer: a localisation net predicting an affine theta
    for affine_grid, then grid_sample in each mode (bilinear, nearest,
    bicubic) and padding mode (zeros, border, reflection), align_corners
    both ways, trained by SGD to undo a fixed shift; the gradients with
    respect to the input and the grid of one call.  In float64: the grid's
    gradient sums terms of both signs over every pixel, and in float32 the
    bias moved by those sums differs from float64's by ~1e-3 of its step
    in PyTorch and here alike (float64 agrees to 12 digits)."""
    nn = T.nn
    F = nn.functional
    img = _t(T, 2, 1, 6, 5, seed=1).double()
    target = T.roll(img, 1, dims=3)
    out = []
    for k, (mode, pad, ac) in enumerate([("bilinear", "zeros", False),
                                         ("bilinear", "border", True),
                                         ("bilinear", "reflection", False),
                                         ("bicubic", "reflection", True),
                                         ("bicubic", "border", False),
                                         ("nearest", "reflection", False)]):
        loc = _init(T, nn.Linear(30, 6), 70 + k, scale=0.01).double()
        with T.no_grad():
            loc.bias.copy_(T.tensor([1.0, 0.0, 0.1, 0.0, 1.0, 0.0]))
        opt = T.optim.SGD(loc.parameters(), lr=0.05)

        def loss(m):
            theta = m(img.flatten(1)).view(-1, 2, 3)
            grid = F.affine_grid(theta, list(img.shape), align_corners=ac)
            return F.mse_loss(F.grid_sample(img, grid, mode=mode, padding_mode=pad,
                                            align_corners=ac), target)

        out.append([mode, pad, ac, _train(T, loc, opt, loss), loc.bias])
    x = _t(T, 1, 2, 4, 4, seed=2).requires_grad_()
    g = (_t(T, 1, 3, 3, 2, seed=3) * 0.8).requires_grad_()
    y = F.grid_sample(x, g, mode="bicubic", padding_mode="reflection", align_corners=False)
    y.pow(2).sum().backward()
    out.append([y.flatten(), x.grad.flatten(), g.grad.flatten()])
    return out


def functional_norms(T):
    """The functional normalisations with running statistics a script
    keeps itself: F.batch_norm in training updating the tensors passed in
    (momentum 0.2) then in eval, F.instance_norm with use_input_stats and
    running stats, F.group_norm and F.layer_norm with a weight but no bias,
    in a model trained by Adam."""
    nn = T.nn
    F = nn.functional
    w1 = nn.Parameter(_t(T, 4, 3, seed=1))
    gamma = nn.Parameter(T.ones(4))
    ln_w = nn.Parameter(_t(T, 4, seed=2) + 1)
    gn_w = nn.Parameter(_t(T, 4, seed=3) + 1)
    head = nn.Parameter(_t(T, 1, 4, seed=4))
    rm, rv = T.zeros(4), T.ones(4)
    im, iv = T.zeros(2), T.ones(2)
    x, y = _t(T, 6, 3, seed=5), _t(T, 6, 1, seed=6)
    opt = T.optim.Adam([w1, gamma, ln_w, gn_w, head], lr=0.02)

    def forward(training):
        h = F.linear(x, w1)
        h = F.batch_norm(h, rm, rv, gamma, None, training=training, momentum=0.2, eps=1e-3)
        h = F.group_norm(h.unsqueeze(-1), 2, gn_w, None).squeeze(-1)
        h = F.layer_norm(T.tanh(h), (4,), ln_w, None)
        h2 = F.instance_norm(h.reshape(3, 2, 4), im, iv, use_input_stats=training, momentum=0.5)
        return F.linear(h2.reshape(6, 4), head)

    losses = []
    for _ in range(3):
        opt.zero_grad()
        loss = F.mse_loss(forward(True), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    with T.no_grad():
        ev = forward(False)
    return [losses, rm, rv, im, iv, ev.flatten(), gamma, ln_w]


def cosine_margin_classifier(T):
    """An ArcFace/CosFace-style classifier: features and class weights
    L2-normalised by F.normalize, an additive cosine margin on the true
    class, a scale, cross entropy; trained by SGD; F.normalize of a zero
    row (eps keeps it zero) and its gradient, p=1 and dim=0 forms."""
    nn = T.nn
    F = nn.functional
    enc = _init(T, nn.Linear(4, 3), 1)
    W = nn.Parameter(_t(T, 5, 3, seed=2))
    x = _t(T, 8, 4, seed=3)
    y = T.tensor([0, 1, 2, 3, 4, 0, 1, 2])
    opt = T.optim.SGD(list(enc.parameters()) + [W], lr=0.1, momentum=0.9)

    def loss(m):
        cos = F.normalize(m(x), dim=1) @ F.normalize(W, dim=1).t()
        margin = F.one_hot(y, 5) * 0.35
        return F.cross_entropy(16.0 * (cos - margin), y)

    losses = _train(T, enc, opt, loss, steps=4)
    z = T.tensor([[0.0, 0.0, 0.0], [3.0, -4.0, 0.0]], requires_grad=True)
    n = F.normalize(z, dim=1)
    (n * T.tensor([1.0, 2.0, 3.0])).sum().backward()
    return [losses, W, enc.weight, n, z.grad, F.normalize(z.detach(), p=1, dim=0),
            F.normalize(z.detach(), p=float("inf"), dim=1)]


def pretrained_embeddings(T):
    """Embedding.from_pretrained frozen and not (with padding_idx and
    max_norm), EmbeddingBag.from_pretrained with mode='max' and
    per-sample weights under 'sum', a classifier on top trained by Adam:
    the frozen table unchanged, the unfrozen one's pad row unchanged; the
    refusal of a 1-D table."""
    nn = T.nn
    F = nn.functional
    table = _t(T, 7, 3, seed=1)
    frozen = nn.Embedding.from_pretrained(table.clone())
    tuned = nn.Embedding.from_pretrained(table.clone(), freeze=False, padding_idx=0, max_norm=2.0)
    bag = nn.EmbeddingBag.from_pretrained(table.clone(), mode="max")
    wbag = nn.EmbeddingBag.from_pretrained(table.clone(), freeze=False, mode="sum")
    head = _init(T, nn.Linear(12, 2), 2)
    idx = T.tensor([[1, 0, 3], [4, 5, 0]])
    flat = T.tensor([1, 2, 3, 4, 5, 6])
    offsets = T.tensor([0, 2])
    psw = T.tensor([0.5, 1.0, 2.0, 1.0, 0.5, 0.25])
    y = T.tensor([0, 1])
    params = list(tuned.parameters()) + list(wbag.parameters()) + list(head.parameters())
    opt = T.optim.Adam(params, lr=0.05)
    pad_row = tuned.weight[0].clone()

    def loss(_):
        feats = T.cat([frozen(idx).mean(1), tuned(idx).sum(1), bag(flat, offsets),
                       wbag(flat, offsets, per_sample_weights=psw)], dim=1)
        return F.cross_entropy(head(feats), y)

    losses = _train(T, head, opt, loss)
    return [losses, frozen.weight.requires_grad, T.equal(frozen.weight, table),
            T.equal(tuned.weight[0], pad_row), tuned.weight, wbag.weight[1], repr(tuned),
            repr(bag), _raised_head(lambda: nn.Embedding.from_pretrained(T.zeros(4)))]


def grad_mode_refusals(T):
    """Grad modes a training script mixes: a tensor made under
    inference_mode used in a graph (refused when saved), an in-place update
    of an inference tensor outside it, no_grad as a decorator,
    enable_grad inside no_grad, set_grad_enabled as a function and a
    context; is_inference, requires_grad of the results."""
    w = T.ones(3, requires_grad=True)
    with T.inference_mode():
        inf = T.ones(3) * 2
    out = [inf.is_inference(), inf.requires_grad]
    out.append(_raised_head(lambda: (w * inf).sum().backward()))
    out.append(_raised_head(lambda: (inf * w).sum().backward()))

    def bump():
        inf.add_(1)
    out.append(_raised_head(bump))

    @T.no_grad()
    def frozen(v):
        return v * 2

    out.append(frozen(w).requires_grad)
    with T.no_grad():
        with T.enable_grad():
            inner = w * 2
        outer = w * 2
    out += [inner.requires_grad, outer.requires_grad]
    T.set_grad_enabled(False)
    off = (w * 2).requires_grad
    T.set_grad_enabled(True)
    with T.set_grad_enabled(False):
        ctx = (w * 2).requires_grad
    out += [off, ctx, T.is_grad_enabled(), (w + inf).requires_grad]
    return out


def interpolate_1d_3d(T):
    """interpolate on 1-d signals (linear with and without align_corners,
    nearest-exact, area with a non-integer scale) and 3-d volumes
    (trilinear, nearest), each in a small model trained by SGD; Upsample's
    refusal of a scale factor and size together and linear's of a 4-D
    input."""
    nn = T.nn
    F = nn.functional
    sig = _t(T, 2, 2, 7, seed=1)
    vol = _t(T, 1, 2, 3, 4, 3, seed=2)
    out = []
    for k, (x, kw) in enumerate([(sig, dict(scale_factor=1.7, mode="linear")),
                                 (sig, dict(size=11, mode="linear", align_corners=True)),
                                 (sig, dict(scale_factor=2.5, mode="nearest-exact")),
                                 (sig, dict(scale_factor=0.6, mode="area")),
                                 (vol, dict(scale_factor=(1.5, 1.0, 2.0), mode="trilinear")),
                                 (vol, dict(size=(5, 2, 4), mode="nearest"))]):
        conv = _init(T, (nn.Conv1d if x.ndim == 3 else nn.Conv3d)(2, 2, 1), 80 + k)
        opt = T.optim.SGD(conv.parameters(), lr=0.1)
        y = F.interpolate(x, **kw)
        target = T.zeros_like(y) + 0.5
        out.append([y.shape, _train(T, conv, opt, lambda m: F.mse_loss(
            F.interpolate(m(x), **kw), target)), conv.weight.flatten()])
    out += [_raised_head(lambda: F.interpolate(sig, size=4, scale_factor=2.0)),
            _raised_head(lambda: F.interpolate(vol[0], scale_factor=2, mode="linear")),
            _raised_head(lambda: F.interpolate(sig, scale_factor=(2.0, 2.0)))]
    return out



# ---- gradients at ties and kinks -------------------------------------------------------------

def tie_gradients(T):
    """The subgradients PyTorch picks where a loss written by hand meets a
    tie or a kink: clamp at its bounds, maximum/minimum of equal values,
    max/min/amax/amin reductions over tied values (whole tensor and along
    a dim), abs and sign at 0, norm of a zero vector, median and topk
    over ties, sort of tied values (stable), cummax/cummin, logsumexp.
    (kthvalue over ties is left out: which tied index PyTorch returns
    follows its quickselect's partitioning, neither the first nor the
    k-th in order.)"""
    x = T.tensor([[1.0, 3.0, 3.0, -2.0], [0.0, 0.0, 5.0, 5.0]], requires_grad=True)
    fns = [lambda v: v.clamp(0.0, 3.0), lambda v: v.clamp(min=0.0),
           lambda v: T.maximum(v, T.tensor([1.0, 3.0, 0.0, 5.0])),
           lambda v: T.minimum(v, T.tensor([1.0, 0.0, 5.0, -2.0])),
           lambda v: v.max(), lambda v: v.min(), lambda v: v.amax(1), lambda v: v.amin(0),
           lambda v: v.max(1).values, lambda v: v.min(1).values,
           lambda v: v.abs(), lambda v: v.sign() * v, lambda v: (v * 0).norm(dim=1),
           lambda v: v.median(), lambda v: v.median(1).values, lambda v: v.nanmedian(),
           lambda v: v.topk(2, 1).values,
           lambda v: v.sort(dim=1, stable=True).values * T.arange(1.0, 5.0),
           lambda v: v.logsumexp(1), lambda v: T.relu(v) + T.nn.functional.relu6(v * 2),
           lambda v: v.cummax(1).values, lambda v: v.cummin(1).values]
    out = []
    for fn in fns:
        x.grad = None
        y = fn(x)
        (y * T.arange(1.0, 1.0 + y.numel()).reshape(y.shape)).sum().backward()
        out.append([y, x.grad])
    out.append([x.max(1).indices, x.min(1).indices, x.median(1).indices, x.topk(2, 1).indices,
                x.sort(dim=1, stable=True).indices, x.detach().median()])
    return out


def hinge_points_losses(T):
    """The margin losses exactly at their hinge points (MarginRanking's
    x1 - x2 = margin, HingeEmbedding's distance = margin, Triplet's
    d(a, p) + margin = d(a, n), MultiMargin's and MultiLabelMargin's
    margins met, SoftMargin and BCE at 0 and 1 (its log clamped at -100)):
    values and gradients."""
    nn = T.nn
    F = nn.functional
    out = []
    a = T.tensor([1.5, 0.5, 2.0], requires_grad=True)
    b = T.tensor([0.5, 0.5, 3.0], requires_grad=True)
    loss = F.margin_ranking_loss(a, b, T.tensor([1.0, 1.0, -1.0]), margin=1.0, reduction="sum")
    loss.backward()
    out.append([loss, a.grad, b.grad])
    d = T.tensor([1.0, 0.5, 2.0, 1.0], requires_grad=True)
    loss = F.hinge_embedding_loss(d, T.tensor([-1.0, -1.0, -1.0, 1.0]), margin=1.0,
                                  reduction="sum")
    loss.backward()
    out.append([loss, d.grad])
    anc = T.tensor([[0.0, 0.0]], requires_grad=True)
    pos = T.tensor([[3.0, 4.0]], requires_grad=True)
    neg = T.tensor([[6.0, 8.0]], requires_grad=True)
    loss = F.triplet_margin_loss(anc, pos, neg, margin=5.0, eps=0.0)
    loss.backward()
    out.append([loss, anc.grad, pos.grad, neg.grad])
    s = T.tensor([[1.0, 0.0, 0.5], [0.2, 1.2, 0.2]], requires_grad=True)
    loss = F.multi_margin_loss(s, T.tensor([0, 1]), margin=1.0)
    loss.backward()
    out.append([loss, s.grad])
    s.grad = None
    loss = F.multilabel_margin_loss(s, T.tensor([[0, -1, 2], [1, 0, -1]]))
    loss.backward()
    out.append([loss, s.grad])
    p = T.tensor([0.0, 1.0, 0.5, 1.0, 0.0], requires_grad=True)
    t = T.tensor([1.0, 0.0, 1.0, 1.0, 0.0])
    loss = F.binary_cross_entropy(p, t, reduction="none")
    loss.sum().backward()
    out.append([loss, p.grad])
    z = T.tensor([0.0, 40.0, -40.0, 100.0], requires_grad=True)
    loss = F.soft_margin_loss(z, T.tensor([1.0, -1.0, 1.0, 1.0]), reduction="none")
    loss.sum().backward()
    out.append([loss, z.grad])
    z.grad = None
    loss = F.binary_cross_entropy_with_logits(z, T.tensor([1.0, 0.0, 1.0, 0.5]),
                                              pos_weight=T.tensor([2.0]), reduction="none")
    loss.sum().backward()
    out.append([loss, z.grad])
    return out


def custom_optimizer_class(T):
    """A custom optimizer written as PyTorch's docs show: an Optimizer
    subclass with defaults, state made lazily per parameter, a step under
    no_grad taking a closure, parameters updated through p.data and
    in-place ops; its state_dict round trip into a fresh instance, a
    group added later with a missing default filled in, hooks registered
    on it, and its repr."""
    nn = T.nn
    O = T.optim

    class SignMomentum(O.Optimizer):
        def __init__(self, params, lr=0.01, beta=0.9, decay=0.0):
            if lr < 0:
                raise ValueError(f"Invalid learning rate: {lr}")
            super().__init__(params, dict(lr=lr, beta=beta, decay=decay))

        @T.no_grad()
        def step(self, closure=None):
            loss = None
            if closure is not None:
                with T.enable_grad():
                    loss = closure()
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    st = self.state[p]
                    if not st:
                        st["step"] = 0
                        st["buf"] = T.zeros_like(p)
                    st["step"] += 1
                    st["buf"].mul_(group["beta"]).add_(p.grad, alpha=1 - group["beta"])
                    p.data.mul_(1 - group["lr"] * group["decay"])
                    p.add_(st["buf"].sign(), alpha=-group["lr"])
            return loss

    m = _mlp(T, 7)
    x, y = _t(T, 6, 4, seed=1), _t(T, 6, 2, seed=2)
    opt = SignMomentum(m[0].parameters(), lr=0.05, decay=0.1)
    calls = []
    opt.register_step_pre_hook(lambda o, a, k: calls.append("pre"))
    opt.register_step_post_hook(lambda o, a, k: calls.append("post"))

    def closure():
        opt.zero_grad()
        loss = T.nn.functional.mse_loss(m(x), y)
        loss.backward()
        return loss

    losses = [opt.step(closure).item() for _ in range(2)]
    opt.add_param_group({"params": m[2].parameters(), "lr": 0.01})
    losses += [opt.step(closure).item() for _ in range(2)]
    sd = opt.state_dict()
    fresh = SignMomentum(_mlp(T, 7)[0].parameters())
    fresh.add_param_group({"params": _mlp(T, 7)[2].parameters()})
    fresh.load_state_dict(sd)
    return [losses, m[0].weight, m[2].bias, calls, sd["state"][0]["step"], sd["param_groups"],
            fresh.param_groups[1]["lr"], fresh.param_groups[1]["decay"],
            T.equal(fresh.state[fresh.param_groups[0]["params"][0]]["buf"],
                    opt.state[m[0].weight]["buf"]), repr(opt).splitlines(),
            _raised_head(lambda: SignMomentum([nn.Parameter(T.ones(2))], lr=-1.0))]



# ---- edges a training script walks into -------------------------------------------------------

def softmax_implicit_dim(T):
    """softmax / log_softmax / softmin and their modules called without a
    dim (deprecated: PyTorch picks 0 for 0-, 1- and 3-d inputs, 1
    otherwise), on 1-d to 4-d inputs; and a classifier trained with
    nn.Softmax() left without a dim."""
    nn = T.nn
    F = nn.functional
    out = []
    for shape in [(4,), (2, 3), (2, 3, 2), (2, 2, 2, 2)]:
        x = _t(T, *shape, seed=len(shape))
        out.append([F.softmax(x).flatten()[:6], F.log_softmax(x).flatten()[:6],
                    F.softmin(x).flatten()[:6], nn.Softmax()(x).sum(-1).flatten()[:4],
                    nn.LogSoftmax()(x).flatten()[:4]])
    model = _init(T, nn.Sequential(nn.Linear(3, 4), nn.Softmax()), 1)
    x, y = _t(T, 5, 3, seed=5), T.tensor([0, 1, 2, 3, 1])
    opt = T.optim.SGD(model.parameters(), lr=0.5)
    out.append(_train(T, model, opt, lambda m: F.nll_loss(m(x).log(), y)))
    out.append(model[0].weight[0])
    return out


def empty_batch_through_model(T):
    """A batch of zero samples through a model (Linear, Conv2d, LayerNorm,
    GroupNorm, BatchNorm in eval, pooling): the shapes; the losses of an
    empty batch (mean: nan, sum: 0) and the zero gradients they give;
    BatchNorm's refusal of an empty batch in training."""
    nn = T.nn
    F = nn.functional
    model = _init(T, nn.Sequential(nn.Conv2d(2, 3, 3, padding=1), nn.GroupNorm(1, 3),
                                   nn.MaxPool2d(2), nn.Flatten(), nn.Linear(12, 4),
                                   nn.LayerNorm(4), nn.BatchNorm1d(4).eval(), nn.Linear(4, 3)), 1)
    x = T.zeros(0, 2, 4, 4)
    y = T.zeros(0, dtype=T.long)
    out = model(x)
    ce = F.cross_entropy(out, y)
    ce_sum = F.cross_entropy(out, y, reduction="sum")
    ce_sum.backward()
    mse = F.mse_loss(T.zeros(0, 3), T.zeros(0, 3))
    bce = F.binary_cross_entropy_with_logits(T.zeros(0), T.zeros(0), reduction="sum")
    return [out.shape, ce, ce_sum, model[0].weight.grad.abs().sum(), model[7].bias.grad,
            mse, bce, F.l1_loss(T.zeros(0), T.zeros(0), reduction="none").shape,
            _raised_head(lambda: nn.BatchNorm1d(4)(T.zeros(0, 4))),
            nn.InstanceNorm1d(2)(T.zeros(0, 2, 3)).shape]


def masked_attention_rows(T):
    """Attention where a query sees no key: a key-padding mask masking a
    whole sequence, and a float attn_mask row of -inf, through
    MultiheadAttention (its output rows and averaged weights NaN in
    PyTorch's math path) and scaled_dot_product_attention; a boolean
    attn_mask with a fully masked row; the usable rows unaffected; a
    training step that masks the NaN rows out before the loss."""
    nn = T.nn
    F = nn.functional
    mha = _init(T, nn.MultiheadAttention(4, 2, batch_first=True), 1)
    q = _t(T, 2, 3, 4, seed=2)
    pad = T.tensor([[False, False, True], [True, True, True]])
    out, w = mha(q, q, q, key_padding_mask=pad)
    fmask = T.zeros(3, 3)
    fmask[1] = float("-inf")
    out2, w2 = mha(q, q, q, attn_mask=fmask, average_attn_weights=False)
    bmask = T.tensor([[True, False, True], [False, False, False], [True, True, True]])
    s = F.scaled_dot_product_attention(q.view(2, 3, 2, 2).transpose(1, 2),
                                       q.view(2, 3, 2, 2).transpose(1, 2),
                                       q.view(2, 3, 2, 2).transpose(1, 2), attn_mask=bmask)
    opt = T.optim.SGD(mha.parameters(), lr=0.1)

    def loss(m):
        o, _ = m(q, q, q, attn_mask=fmask, need_weights=False)
        keep = T.tensor([True, False, True])
        return o[:, keep].pow(2).mean()

    losses = _train(T, mha, opt, loss)
    return [out, w, out2[0], w2[0, 0], s[0, 0], s[1, 1], losses, mha.in_proj_weight[0]]


def batchnorm_momentum_edges(T):
    """BatchNorm's momentum at its edges: 1.0 (the running stats become the
    last batch's), 0.0 (never updated, though num_batches_tracked counts),
    None on (N, C, L) inputs (averaged over N and L, unbiased by N*L);
    batch norm over a batch of one with a length > 1 in training; eval
    outputs after each."""
    nn = T.nn
    out = []
    for mom in (1.0, 0.0, None):
        bn = nn.BatchNorm1d(2, momentum=mom)
        for k in range(3):
            bn(_t(T, 3, 2, 4, seed=10 + k, scale=1 + k) + k)
        bn.eval()
        out.append([bn.running_mean, bn.running_var, bn.num_batches_tracked,
                    bn(_t(T, 2, 2, 4, seed=20))[0, 0]])
    one = nn.BatchNorm1d(2)
    y = one(_t(T, 1, 2, 5, seed=21))
    out.append([y, one.running_var])
    return out


def target_dtype_refusals(T):
    """Class targets of the wrong dtype (int32, uint8, float indices),
    one_hot of a negative index and of an int32 tensor, BCE with an
    integer target, MSE between float32 and float64, embedding indices
    of a float or unsigned dtype; in PyTorch's words; the int32
    embedding indices that PyTorch takes."""
    F = T.nn.functional
    logits = _t(T, 3, 4, seed=1)
    emb = T.nn.Embedding(5, 2)
    return [_raised_head(lambda: F.cross_entropy(logits, T.tensor([0, 1, 3], dtype=T.int32))),
            _raised_head(lambda: F.nll_loss(logits, T.tensor([0, 1, 3], dtype=T.int32))),
            _raised_head(lambda: F.cross_entropy(logits, T.tensor([0, 1, 3], dtype=T.uint8))),
            _raised_head(lambda: F.cross_entropy(logits, T.tensor([0.0, 1.0, 3.0]))),
            _raised_head(lambda: F.one_hot(T.tensor([1, -1]), 3)),
            _raised_head(lambda: F.one_hot(T.tensor([1, 2], dtype=T.int32), 3)),
            _raised_head(lambda: F.one_hot(T.tensor([1, 3]), 3)),
            _raised_head(lambda: F.binary_cross_entropy(T.full((2,), 0.5), T.tensor([0, 1]))),
            _raised_head(lambda: F.binary_cross_entropy_with_logits(T.zeros(2),
                                                                    T.tensor([0, 1]))),
            _raised_head(lambda: F.mse_loss(T.zeros(2), T.zeros(2, dtype=T.float64))),
            _raised_head(lambda: emb(T.tensor([1.0, 2.0]))),
            _raised_head(lambda: emb(T.tensor([1, 2], dtype=T.uint8))),
            emb(T.tensor([1, 2], dtype=T.int32)).shape,
            F.one_hot(T.tensor([[0, 2], [1, 1]])).tolist()]



def _outcome(fn):
    """fn()'s result as [dtype, value rounded to 4 places] for a tensor, or
    its refusal as _raised_head gives it."""
    try:
        r = fn()
    except Exception:  # noqa: BLE001 - the refusal is the answer
        return _raised_head(fn)
    return [str(r.dtype).split(".")[-1], round(float(r.double().sum()), 4)]


def loss_target_dtypes(T):
    """Each regression and margin loss given a float32 input and a target
    of another dtype (float64, int64, int32, bool): the loss's dtype and
    value, or PyTorch's refusal; and an invalid reduction string.  (A bool
    target of the losses PyTorch computes by subtracting it, l1, Gaussian
    NLL and multi-label soft margin, is left out: PyTorch refuses any bool operand of `-`,
    torchlike subtracts a bool from a number as NumPy does,
    docs/elementwise.md.)"""
    F = T.nn.functional
    x = _t(T, 6, seed=1).abs() * 0.4 + 0.1
    base = T.tensor([1.0, 0.0, 1.0, 1.0, 0.0, 1.0])
    losses = {
        "mse": lambda t: F.mse_loss(x, t), "l1": lambda t: F.l1_loss(x, t),
        "smooth_l1": lambda t: F.smooth_l1_loss(x, t, beta=0.5),
        "huber": lambda t: F.huber_loss(x, t, delta=0.5),
        "soft_margin": lambda t: F.soft_margin_loss(x, t * 2 - 1),
        "kl_div": lambda t: F.kl_div(x.log(), t, reduction="sum"),
        "poisson": lambda t: F.poisson_nll_loss(x, t),
        "gaussian": lambda t: F.gaussian_nll_loss(x, t, T.ones(6)),
        "hinge": lambda t: F.hinge_embedding_loss(x, t * 2 - 1),
        "margin_ranking": lambda t: F.margin_ranking_loss(x, x.flip(0), t * 2 - 1),
        "multilabel_soft": lambda t: F.multilabel_soft_margin_loss(x.view(2, 3),
                                                                   t.view(2, 3)),
    }
    out = {}
    subtracting = ("l1", "gaussian", "multilabel_soft")
    for name, fn in losses.items():
        dtypes = (T.float64, T.int64, T.int32) + (() if name in subtracting else (T.bool,))
        out[name] = [_outcome(lambda: fn(base.to(dt))) for dt in dtypes]
    out["bad_reduction"] = [_raised_head(lambda: F.mse_loss(x, base, reduction="avg")),
                            _raised_head(lambda: F.cross_entropy(x.view(2, 3), T.tensor([0, 1]),
                                                                 reduction="avg"))]
    return out


def layer_input_dtypes(T):
    """A float64 (and an int64) input into float32 layers: Linear, Conv1d,
    Bilinear, PReLU, an LSTMCell, an Embedding given float indices;
    PyTorch's refusals or results; and the float16 input into a float32
    Linear.  (Left out: LayerNorm and GroupNorm, which take an input of
    another float dtype than their weights here, docs/nn.md; and
    MultiheadAttention, whose refusal PyTorch words by the matmul path its
    in-projection takes for the layout.)"""
    nn = T.nn
    x64 = _t(T, 2, 4, 6, seed=1).double()
    mods = {"linear": (nn.Linear(6, 3), x64), "conv1d": (nn.Conv1d(4, 2, 3), x64),
            "prelu": (nn.PReLU(), x64), "lstm_cell": (nn.LSTMCell(6, 2), x64[0]),
            "embedding": (nn.Embedding(10, 2), T.tensor([1, 2]))}
    out = {}
    for name, (m, x) in mods.items():
        _init(T, m, 1)
        out[name] = [_outcome(lambda: m(x) if name != "lstm_cell" else m(x)[0]),
                     _outcome(lambda: m(x.long()) if name != "embedding" else m(x.double()))]
    bil = _init(T, nn.Bilinear(6, 6, 2), 2)
    out["bilinear"] = _outcome(lambda: bil(x64[0], x64[0].float()))
    out["half_linear"] = _outcome(lambda: nn.Linear(6, 3)(x64.half()))
    return out



def functional_integer_inputs(T):
    """The functional layers given integer (int64) and bool inputs, as a
    preprocessing script might pass raw counts: the result's dtype and
    values where PyTorch computes, or the kind of exception where it
    refuses (the class only: PyTorch's messages name its kernels).  Bool
    inputs are left out of two: reflect padding (torchlike's pads any
    dtype, docs/nn.md) and one_hot of abs() % 3 (torchlike's abs keeps
    bool, docs/elementwise.md)."""
    F = T.nn.functional
    x = T.tensor([[[3, -1, 4, 1], [5, -9, 2, 6]]])  # (1, 2, 4) int64

    def kind(fn):
        try:
            r = fn()
        except Exception as e:  # noqa: BLE001 - the refusal's class is the answer
            return type(e).__name__
        return [str(r.dtype).split(".")[-1], r.flatten().tolist()[:6]]

    fns = {"relu": F.relu, "relu6": F.relu6, "leaky_relu": F.leaky_relu, "gelu": F.gelu,
           "sigmoid": T.sigmoid, "tanh": T.tanh, "silu": F.silu, "hardtanh": F.hardtanh,
           "softmax": lambda v: F.softmax(v, -1), "log_softmax": lambda v: F.log_softmax(v, -1),
           "max_pool1d": lambda v: F.max_pool1d(v, 2), "avg_pool1d": lambda v: F.avg_pool1d(v, 2),
           "adaptive_avg": lambda v: F.adaptive_avg_pool1d(v, 2),
           "adaptive_max": lambda v: F.adaptive_max_pool1d(v, 2),
           "pad_reflect": lambda v: F.pad(v, (1, 1), mode="reflect"),
           "pad_constant": lambda v: F.pad(v, (1, 1), value=7),
           "interp_nearest": lambda v: F.interpolate(v, scale_factor=2),
           "interp_linear": lambda v: F.interpolate(v, scale_factor=2, mode="linear"),
           "dropout_eval": lambda v: F.dropout(v, 0.5, training=False),
           "normalize": lambda v: F.normalize(v, dim=-1),
           "layer_norm": lambda v: F.layer_norm(v, (4,)),
           "threshold": lambda v: F.threshold(v, 2, 0), "hardshrink": F.hardshrink,
           "softplus": F.softplus, "elu": F.elu, "glu": lambda v: F.glu(v, -1),
           "pixel_shuffle": lambda v: F.pixel_shuffle(v.reshape(1, 4, 1, 2), 2),
           "unfold": lambda v: F.unfold(v.reshape(1, 2, 2, 2), 1),
           "one_hot": lambda v: F.one_hot(v.abs() % 3, 3)}
    out = {}
    for name, fn in fns.items():
        out[name] = [kind(lambda: fn(x))]
        if name not in ("pad_reflect", "one_hot"):
            out[name].append(kind(lambda: fn(x > 0)))
    return out



def collate_scalar_kinds(T):
    """default_collate of the scalar kinds a Dataset returns: Python ints,
    floats and bools, NumPy scalars and 0-d arrays of several dtypes,
    NumPy string arrays, bytes, None, tensors of different dtypes and of
    different devices' placement; the dtype each batch gets, or the
    refusal; default_convert of the same."""
    D = T.utils.data
    cases = {"int": [1, 2], "float": [1.5, 2.0], "bool": [True, False],
             "np_float32": [np.float32(1.5), np.float32(2)], "np_int16": [np.int16(3),
                                                                          np.int16(4)],
             "np_bool": [np.bool_(True), np.bool_(False)], "np_0d": [np.array(1.5),
                                                                     np.array(2.5)],
             "np_uint8": [np.arange(3, dtype=np.uint8), np.arange(3, dtype=np.uint8)],
             "mixed_tensors": [T.tensor([1, 2]), T.tensor([1.5, 2.5])],
             "tensor_0d": [T.tensor(1.0), T.tensor(2.0)],
             "bytes": [b"ab", b"cd"], "none": [None, None],
             "np_str": [np.array(["a", "b"]), np.array(["c", "d"])],
             "mixed_kinds": [1, 2.5], "lists": [[1, 2], [3, 4]],
             "ragged_lists": [[1, 2], [3]], "sets": [{1}, {2}]}
    out = {}
    for name, batch in cases.items():
        try:
            r = D.default_collate(batch)
            if hasattr(r, "dtype"):
                out[name] = [str(r.dtype).split(".")[-1], r.tolist()]
            else:
                out[name] = [type(r).__name__, str(r)[:60] if not isinstance(r, list)
                             else [type(v).__name__ for v in r]]
        except Exception:  # noqa: BLE001 - the refusal is the answer
            out[name] = _raised_head(lambda: D.default_collate(batch))
        conv = D.default_convert(batch[0])
        out[name + "_convert"] = type(conv).__name__
    return out



def module_reprs_and_conversions(T):
    """What a notebook prints of a model: nested reprs with repeated
    blocks in a ModuleList and a Sequential (PyTorch folds identical
    neighbours into "(0-2): 3 x ..."), a ModuleDict, ParameterList and
    ParameterDict, extra_repr of a custom module; then the conversions a
    script applies (half(), type(float64), to(dtype, non_blocking),
    requires_grad_(False) on a submodule) and their effect on the
    parameters' dtypes and flags; a float32 input into the half model
    refused."""
    nn = T.nn

    class Block(nn.Module):
        def __init__(self, scale):
            super().__init__()
            self.lin = nn.Linear(3, 3)
            self.scale = scale

        def extra_repr(self):
            return f"scale={self.scale}"

    model = nn.Sequential(
        nn.ModuleList([Block(1.0) for _ in range(3)] + [Block(2.0)]),
        nn.Sequential(nn.ReLU(), nn.ReLU(), nn.Tanh(), nn.ReLU()),
        nn.ModuleDict({"a": nn.Linear(3, 2), "b": nn.Dropout(0.1)}),
    )
    holder = nn.Module()
    holder.plist = nn.ParameterList([nn.Parameter(T.zeros(2, 3)), nn.Parameter(T.zeros(4))])
    holder.pdict = nn.ParameterDict({"w": nn.Parameter(T.zeros(3, dtype=T.float64))})
    out = [repr(model).splitlines(), repr(holder).splitlines()]
    model.half()
    out.append(sorted({str(p.dtype) for p in model.parameters()}))
    out.append(_raised_head(lambda: model[0][0].lin(T.zeros(2, 3))))
    model.type(T.float64)
    out.append(sorted({str(p.dtype) for p in model.parameters()}))
    model.to(T.float32, non_blocking=True)
    model[0].requires_grad_(False)
    out.append([[n, p.dtype == T.float32, p.requires_grad] for n, p in model.named_parameters()
                if n.endswith("weight")])
    return out



def utils_odd_inputs(T):
    """torch.nn.utils given the inputs a script stumbles into:
    parameters_to_vector over parameters of two dtypes, clip_grad_norm_ of
    no parameters, of parameters without gradients, with norm_type 0, 1,
    inf and a fraction, clip_grad_value_ with a negative value,
    get_total_norm of an empty list; pad_sequence with an empty sequence
    among them, padding on the left, of an empty list; pack_sequence of
    1-d tensors and unpack_sequence back."""
    nn = T.nn
    U = nn.utils
    R = U.rnn
    a = nn.Parameter(T.tensor([1.0, -2.0]))
    b = nn.Parameter(T.tensor([3.0], dtype=T.float64))
    out = [_raised_head(lambda: U.parameters_to_vector([a, b]))]
    out.append(U.clip_grad_norm_([], 1.0))
    out.append(U.clip_grad_norm_([nn.Parameter(T.ones(2))], 1.0))
    norms = []
    for nt in (0, 1, float("inf"), 0.5, 3):
        p = nn.Parameter(T.tensor([3.0, 0.0, -4.0]))
        p.grad = T.tensor([3.0, 0.0, -4.0])
        norms.append([U.clip_grad_norm_([p], 2.0, norm_type=nt), p.grad])
    out.append(norms)
    p = nn.Parameter(T.tensor([3.0, -4.0]))
    p.grad = T.tensor([3.0, -4.0])
    out.append(_raised_head(lambda: U.clip_grad_value_([p], -1.0)))
    out.append(p.grad)
    out.append(_raised_head(lambda: U.get_total_norm([])))
    seqs = [T.tensor([1, 2, 3]), T.zeros(0, dtype=T.long), T.tensor([4])]
    out += [R.pad_sequence(seqs, batch_first=True, padding_value=-1),
            R.pad_sequence(seqs, batch_first=True, padding_side="left"),
            _raised_head(lambda: R.pad_sequence([])),
            _raised_head(lambda: R.pack_sequence([T.tensor([1.0, 2.0]), T.zeros(0)],
                                                 enforce_sorted=False))]
    packed = R.pack_sequence([T.tensor([1.0, 2.0, 3.0]), T.tensor([4.0])])
    out += [packed.data, packed.batch_sizes, R.unpack_sequence(packed)]
    return out



def embedding_argument_edges(T):
    """Embedding and EmbeddingBag at their argument edges: padding_idx out
    of range either way, an index past the table and a negative one,
    max_norm with norm_type inf (the rows renormalised in place),
    EmbeddingBag offsets that do not start at 0, include_last_offset,
    per_sample_weights with mode 'mean' and of the wrong shape (refused
    for the shape first), an empty bag under each mode.  (Decreasing
    offsets are left out: PyTorch refuses them by an internal assertion,
    "Expected i < index_size to be true".)"""
    nn = T.nn
    F = nn.functional
    table = _t(T, 5, 3, seed=1, scale=2.0)
    out = [_raised_head(lambda: nn.Embedding(5, 2, padding_idx=5)),
           _raised_head(lambda: nn.Embedding(5, 2, padding_idx=-6)),
           nn.Embedding(5, 2, padding_idx=-2).padding_idx,
           _raised_head(lambda: F.embedding(T.tensor([5]), table)),
           _raised_head(lambda: F.embedding(T.tensor([-1]), table))]
    w = table.clone()
    r = F.embedding(T.tensor([0, 2, 2]), w, max_norm=1.0, norm_type=float("inf"))
    out += [r, w]
    bag_w = _t(T, 6, 2, seed=2)
    idx = T.tensor([1, 2, 4, 5, 3])
    out += [F.embedding_bag(idx, bag_w, T.tensor([0, 2, 2]), mode="sum"),
            F.embedding_bag(idx, bag_w, T.tensor([0, 2, 2]), mode="mean"),
            F.embedding_bag(idx, bag_w, T.tensor([0, 2, 2]), mode="max"),
            F.embedding_bag(idx, bag_w, T.tensor([0, 2, 5]), mode="sum",
                            include_last_offset=True),
            _raised_head(lambda: F.embedding_bag(idx, bag_w, T.tensor([1, 3]))),
            _raised_head(lambda: F.embedding_bag(idx, bag_w, T.tensor([0, 2]), mode="mean",
                                                 per_sample_weights=T.ones(5))),
            _raised_head(lambda: F.embedding_bag(idx, bag_w, T.tensor([0, 2]),
                                                 per_sample_weights=T.ones(4)))]
    return out



def transformer_construction_warnings(T):
    """The warnings a Transformer script sees when it builds its encoder
    (enable_nested_tensor with norm_first layers, with batch_first=False,
    with an odd number of heads), the causal mask generator's values, dtype
    and device arguments, and a layer given activation as a callable; the
    warnings' messages as PyTorch words them."""
    nn = T.nn
    F = nn.functional
    from golden_training_programs3 import _warned
    out = []
    for kw in (dict(norm_first=True), dict(batch_first=False), dict(batch_first=True),
               dict(batch_first=True, activation=F.gelu)):
        layer = nn.TransformerEncoderLayer(4, 2, 8, dropout=0.0, **kw)
        _, msgs = _warned(lambda: nn.TransformerEncoder(layer, 2, enable_nested_tensor=True))
        out.append([sorted(kw), msgs])
    mask = nn.Transformer.generate_square_subsequent_mask(3)
    m64 = nn.Transformer.generate_square_subsequent_mask(2, dtype=T.float64)
    enc = _init(T, nn.TransformerEncoderLayer(4, 2, 8, dropout=0.0, batch_first=True,
                                              activation=F.gelu), 1)
    y = enc(_t(T, 1, 3, 4, seed=2), src_mask=mask, is_causal=True)
    out += [mask, m64.dtype, y[0, 0], enc.activation is F.gelu]
    return out



def gradients_at_zero(T):
    """Gradients where a loss or layer meets zero: lp_pool over a window of
    zeros, a vector norm of zeros (p = 2, 1, inf), cdist and pdist between
    identical points, pairwise_distance of equal vectors, sqrt and pow(0.5)
    at 0, layer_norm and group_norm of a constant row, batch norm of a
    channel of zeros, std and var of one element, cosine_similarity of a
    zero vector; the values and input gradients as PyTorch computes them
    (nan and inf included)."""
    F = T.nn.functional
    out = []

    def grad_of(fn, x):
        x = x.clone().requires_grad_()
        y = fn(x)
        (y * T.arange(1.0, 1.0 + y.numel()).reshape(y.shape)).sum().backward()
        return [y, x.grad]

    z = T.zeros(1, 1, 4)
    out.append(grad_of(lambda v: F.lp_pool1d(v, 2, 2), z))
    out.append(grad_of(lambda v: F.lp_pool1d(v, 1, 2), z))
    for p in (2, 1, float("inf")):
        out.append(grad_of(lambda v: v.norm(p=p, dim=1), T.tensor([[0.0, 0.0], [3.0, 4.0]])))
    pts = T.tensor([[1.0, 2.0], [1.0, 2.0], [0.0, 1.0]])
    out.append(grad_of(lambda v: T.cdist(v, v), pts))
    out.append(grad_of(lambda v: T.cdist(v, v, p=1), pts))
    out.append(grad_of(lambda v: F.pdist(v), pts))
    out.append(grad_of(lambda v: F.pairwise_distance(v, pts), pts))
    out.append(grad_of(lambda v: v.sqrt(), T.tensor([0.0, 4.0])))
    out.append(grad_of(lambda v: v.pow(0.5), T.tensor([0.0, 4.0])))
    out.append(grad_of(lambda v: v.pow(2).sqrt(), T.tensor([0.0, -3.0])))
    const = T.full((2, 4), 3.0)
    out.append(grad_of(lambda v: F.layer_norm(v, (4,)), const))
    out.append(grad_of(lambda v: F.group_norm(v.view(2, 4, 1), 2), const))
    # a channel of zeros: PyTorch's CPU batch norm applies x * rstd - mean * rstd,
    # which for another constant leaves half an ulp of their size (~3e-5 for 3)
    out.append(grad_of(lambda v: F.batch_norm(v, None, None, training=True), T.zeros(2, 4)))
    out.append(grad_of(lambda v: v.std(dim=1, keepdim=True), T.tensor([[2.0]])))
    out.append(grad_of(lambda v: v.var(dim=1, correction=0), T.tensor([[2.0]])))
    out.append(grad_of(lambda v: F.cosine_similarity(v, T.tensor([[1.0, 1.0]])),
                       T.tensor([[0.0, 0.0], [1.0, 2.0]])))
    return out



def loss_operand_edges(T):
    """The losses given operands at their edges: probability targets
    (float64, with weights and label smoothing, unbatched, of the wrong
    width), a 0-d class target for a batch, broadcast weights and targets,
    a 0-d ranking target, variances of another shape, all-zero class
    weights, and integer operands on both sides (refused by PyTorch's
    kernels, or computed as integers by its composite l1); values or
    PyTorch's refusals."""
    F = T.nn.functional
    x = _t(T, 3, 4, seed=1)
    p = T.softmax(_t(T, 3, 4, seed=2), 1)
    w = T.tensor([1.0, 2.0, 3.0, 4.0])
    i, j = T.tensor([1, 2]), T.tensor([0, 5])
    calls = {
        "ce_prob_f64": lambda: F.cross_entropy(x, p.double()),
        "ce_prob_ls_w": lambda: F.cross_entropy(x, p, weight=w, label_smoothing=0.3),
        "ce_prob_none": lambda: F.cross_entropy(x, p, reduction="none"),
        "ce_idx_ls_w_sum": lambda: F.cross_entropy(x, T.tensor([0, 3, 1]), weight=w,
                                                   label_smoothing=0.3, reduction="sum"),
        "nll_1d": lambda: F.nll_loss(F.log_softmax(x[0], 0), T.tensor(2)),
        "ce_1d_prob": lambda: F.cross_entropy(x[0], p[0]),
        "ce_0d_target_batched": lambda: F.cross_entropy(x, T.tensor(1)),
        "bce_weight_bcast": lambda: F.binary_cross_entropy(T.sigmoid(x), (x > 0).float(),
                                                           weight=w),
        "kl_batchmean_1d": lambda: F.kl_div(F.log_softmax(x[0], 0), p[0],
                                            reduction="batchmean"),
        "margin_rank_0d_target": lambda: F.margin_ranking_loss(x[:, 0], x[:, 1], T.tensor(1.0)),
        "cos_emb_1d": lambda: F.cosine_embedding_loss(x[0], x[1], T.tensor(1)),
        "triplet_1d": lambda: F.triplet_margin_loss(x[0], x[1], x[2]),
        "multi_margin_1d": lambda: F.multi_margin_loss(x[0], T.tensor(1)),
        "gauss_var_bcast": lambda: F.gaussian_nll_loss(x, T.zeros(3, 4), T.ones(3, 1)),
        "gauss_var_1d": lambda: F.gaussian_nll_loss(x, T.zeros(3, 4), T.ones(3)),
        "nll_weight_all_zero": lambda: F.nll_loss(F.log_softmax(x, 1), T.tensor([0, 1, 2]),
                                                  weight=T.zeros(4)),
        "ce_prob_wrong_width": lambda: F.cross_entropy(x, p[:, :3]),
    }
    for name in ("mse_loss", "huber_loss", "smooth_l1_loss", "l1_loss", "soft_margin_loss"):
        fn = getattr(F, name)
        for a, b, label in ((i, p[0, :2], "int_float"), (p[0, :2], i, "float_int"),
                            (i, j, "int_int")):
            for red in ("mean", "sum", "none"):
                calls[f"{name}_{label}_{red}"] = (lambda fn, a, b, red:
                                                  lambda: fn(a, b, reduction=red))(fn, a, b, red)
    # a refused kernel is named for its device ("mse_cpu", "mse_cuda"): the
    # CPU's name is compared, whatever the device the data is on
    kernel = f'_{x.device.type}"'
    out = {k: _outcome(f) for k, f in calls.items()}
    return {k: [r[0], r[1].replace(kernel, '_cpu"')] if r[0].endswith("Error") else r
            for k, r in out.items()}



def layer_argument_edges(T):
    """Layers built or called with degenerate arguments: zero and negative
    output sizes for adaptive pooling and interpolation, a divisor of 0,
    zero features, tables and channels, zero layers, a bad dropout
    probability, a norm type of 0, an empty normalized shape, heads that
    do not divide the model width, a bad bag mode, a CTC blank past the
    classes, a convolution with no output channels: the output's shape or PyTorch's refusal.  (Left out: the
    pooling windows' zero kernel, stride, dilation and negative padding,
    whose refusals PyTorch words differently per op and rank; unfold's
    zero kernel; adaptive pooling's negative size; a
    BatchNorm of no features.)"""
    nn = T.nn
    F = nn.functional
    x = T.arange(100.0).reshape(2, 2, 5, 5) / 10
    s = T.arange(24.0).reshape(2, 2, 6) / 10

    def shape_or_refusal(fn):
        try:
            r = fn()
        except Exception:  # noqa: BLE001 - the refusal is the answer
            return _raised_head(fn)
        return [list(r.shape), str(r.dtype).split(".")[-1]] if hasattr(r, "shape") \
            else type(r).__name__

    calls = {
        "avgpool_div0": lambda: F.avg_pool2d(x, 2, divisor_override=0),
        "adaptive_0": lambda: F.adaptive_avg_pool2d(x, 0),
        "adaptive_max_0": lambda: F.adaptive_max_pool1d(s, 0),
        "upsample_scale0": lambda: F.interpolate(x, scale_factor=0.0),
        "upsample_size0": lambda: F.interpolate(x, size=(0, 2)),
        "upsample_neg": lambda: F.interpolate(x, scale_factor=-1.0),
        "linear_0in": lambda: nn.Linear(0, 3)(T.zeros(2, 0)),
        "embedding_0": lambda: nn.Embedding(0, 3).weight,
        "lstm_h0": lambda: nn.LSTM(3, 0),
        "gru_layers0": lambda: nn.GRU(3, 2, num_layers=0),
        "dropout_p1_train": lambda: F.dropout(x, 1.0),
        "dropout_pneg": lambda: F.dropout(x, -0.1),
        "pixel_shuffle_neg": lambda: F.pixel_shuffle(x, -1),
        "lp_pool_p0": lambda: F.lp_pool1d(s, 0, 2),
        "lp_pool_neg": lambda: F.lp_pool1d(s, -1.0, 2),
        "layernorm_empty_shape": lambda: F.layer_norm(x, ()),
        "groupnorm_0": lambda: nn.GroupNorm(0, 4),
        "softmax_dim_out": lambda: F.softmax(x, 4),
        "mha_heads_indivisible": lambda: nn.MultiheadAttention(5, 2),
        "transformer_dmodel_heads": lambda: nn.TransformerEncoderLayer(6, 4),
        "bilinear_0": lambda: nn.Bilinear(0, 2, 3),
        "conv_groups0": lambda: nn.Conv1d(2, 2, 2, groups=0),
        "conv_0out": lambda: F.conv1d(s, T.zeros(0, 2, 2)),
        "conv_k0": lambda: nn.Conv1d(2, 2, 0),
        "convT_s0": lambda: F.conv_transpose1d(s, T.zeros(2, 2, 2), stride=0),
        "embedding_bag_mode": lambda: nn.EmbeddingBag(5, 2, mode="median"),
        "ctc_blank_out": lambda: F.ctc_loss(T.zeros(5, 1, 3).log_softmax(2), T.tensor([[1]]),
                                            T.tensor([5]), T.tensor([1]), blank=3),
    }
    return {k: shape_or_refusal(f) for k, f in calls.items()}


def inputs(T):
    return {"T": T, **{name: globals()[name] for name in _PROGRAMS}}


_PROGRAMS = [
    "pixel_shuffle_superres", "pixel_shuffle_refusals", "lazy_modules", "lazy_state_dict",
    "max_unpool_autoencoder", "max_unpool_refusals", "activation_zoo", "activation_kinks",
    "inplace_activations", "softmax_family", "dropout_variants_eval", "padding_layers",
    "padding_refusals", "conv_padding_modes", "conv_transpose_groups",
    "conv3d_volume_classifier", "dilated_causal_stack", "locally_connected_fold",
    "cumulative_batchnorm", "tracked_instance_group_norm", "local_response_norms",
    "fusion_helpers", "multilabel_margin_training", "segmentation_losses",
    "ranking_losses_trained", "heteroscedastic_regression", "init_schemes_apply",
    "skip_init_modules", "state_dict_reports", "param_vector_roundtrip",
    "unfreeze_mid_training", "ema_of_weights", "accumulation_no_sync",
    "random_split_fractions", "weighted_and_batch_samplers", "distributed_sampler_shards",
    "nested_collate", "compile_as_identity", "encoder_padding_fast_path", "pooling_variants",
    "shufflenet_block", "channels_last_training", "interpolate_decoder",
    "robust_regression_losses", "all_ignored_targets", "distance_based_siamese",
    "uncertainty_weighted_multitask", "gumbel_softmax_straight_through",
    "tied_shared_parameters", "embedding_renorm_training", "loader_generator_reproducible",
    "adaptive_softmax_head_bias", "spectral_norm_discriminator", "weight_norm_hooks_training",
    "dropout_rng_state", "gru_scheduled_sampling", "kl_distillation_log_target",
    "conv_argument_refusals", "norm_argument_refusals", "rnn_cell_refusals",
    "pooling_window_edges", "stn_grid_sample_modes", "functional_norms",
    "cosine_margin_classifier", "pretrained_embeddings", "grad_mode_refusals",
    "interpolate_1d_3d", "tie_gradients", "hinge_points_losses", "custom_optimizer_class",
    "softmax_implicit_dim", "empty_batch_through_model", "masked_attention_rows",
    "batchnorm_momentum_edges", "target_dtype_refusals", "loss_target_dtypes",
    "layer_input_dtypes", "functional_integer_inputs", "collate_scalar_kinds",
    "module_reprs_and_conversions", "utils_odd_inputs", "embedding_argument_edges",
    "transformer_construction_warnings", "gradients_at_zero", "loss_operand_edges",
    "layer_argument_edges",
]
CALLS = [name + "(T)" for name in _PROGRAMS]


def main():
    record(CALLS, inputs, describe, "training_programs8", messages=True)


if __name__ == "__main__":
    main()
