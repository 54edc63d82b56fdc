"""Record PyTorch's answers for a thirteenth round of training programs,
for tests/test_training_programs13.py: the module arguments, optimizer and
scheduler options, state-dict paths, hooks, function transforms, data
utilities and refusals the first twelve rounds used only in their common
forms -- transformer layers without biases and with their own epsilon,
InstanceNorm3d and BatchNorm3d between train and eval, adaptive pools with
None sizes, grouped and dilated 2-d convolutions in every padding mode,
Upsample's modes and scale forms, LPPool's norms, embeddings with max_norm
and scale_grad_by_freq, recurrent layers with dropout in eval, optimizers
resumed from state dicts across dtypes, schedulers built with last_epoch,
load_state_dict with assign and strict=False, autograd graph nodes' hooks,
torch.func over module parameters, samplers, collate and loader lengths,
parametrizations moved between modules, initialisers judged by what does
not depend on the random stream, and messages for bad input.

As in rounds three to twelve, every program takes the library as T and
builds its parameters and data from NumPy, so the test runs the very same
code on torchlike; what draws random numbers is compared only by what
does not depend on the stream (docs/random.md: torchlike's generator is
not PyTorch's).

Run with an interpreter that has PyTorch:
    python scripts/golden_training_programs13.py
writes tests/golden/training_programs13.json ([call, outcome] pairs over T)."""
import io

import numpy as np

from golden_calls import record
from golden_training_programs3 import _data, _init, _raised
from golden_training_programs6 import describe  # noqa: F401 - describe: the test's
from golden_training_programs7 import _fit, _mlp, _t
from golden_training_programs10 import _long


def _step(opt, loss):
    opt.zero_grad()
    loss.backward()
    opt.step()
    return loss.item()


# ---- transformer pieces ------------------------------------------------------------------------

def encoder_layer_bias_free_eps(T):
    """A TransformerEncoderLayer without biases (bias=False reaches the
    attention's projections, the feed-forward and the norms), with its own
    layer_norm_eps and a relu feed-forward, trained two Adam steps; the
    parameter names and the norms' eps."""
    nn = T.nn
    layer = _init(T, nn.TransformerEncoderLayer(4, 2, dim_feedforward=6, dropout=0.0,
                                                layer_norm_eps=1e-3, bias=False,
                                                batch_first=True), 40)
    x = _t(T, 2, 3, 4, seed=41)
    y = _t(T, 2, 3, 4, seed=42)
    opt = T.optim.Adam(layer.parameters(), lr=0.01)
    losses = [_step(opt, nn.functional.mse_loss(layer(x), y)) for _ in range(2)]
    return [losses, [n for n, _ in layer.named_parameters()], layer.norm1.eps,
            layer.norm2.bias, layer.self_attn.in_proj_bias, layer(x)[1]]


def decoder_layer_norm_first_memory_mask(T):
    """A norm_first TransformerDecoderLayer with gelu, a causal target mask
    given with tgt_is_causal, a memory key padding mask and a memory mask;
    a TransformerDecoder of two such layers with a final norm."""
    nn = T.nn
    layer = nn.TransformerDecoderLayer(4, 2, dim_feedforward=8, dropout=0.0, norm_first=True,
                                       activation="gelu", batch_first=True)
    dec = _init(T, nn.TransformerDecoder(layer, 2, norm=nn.LayerNorm(4)), 43)
    tgt = _t(T, 2, 3, 4, seed=44)
    mem = _t(T, 2, 5, 4, seed=45)
    causal = nn.Transformer.generate_square_subsequent_mask(3)
    mkpm = T.tensor([[False] * 5, [False, False, False, True, True]])
    mmask = T.zeros(3, 5)
    mmask[0, 4] = float("-inf")
    out = dec(tgt, mem, tgt_mask=causal, tgt_is_causal=True, memory_key_padding_mask=mkpm,
              memory_mask=mmask)
    out.sum().backward()
    return [out, dec.layers[1].norm3.weight.grad, dec.norm.bias.grad,
            bool(dec.layers[0].norm_first)]


def transformer_encoder_final_norm_no_nested(T):
    """A TransformerEncoder with enable_nested_tensor=False and a final
    norm over a padded batch in eval: padded positions keep their values
    (no nested-tensor zeros), and the unpadded rows match a batch of one."""
    nn = T.nn
    layer = nn.TransformerEncoderLayer(4, 1, dim_feedforward=5, dropout=0.0, batch_first=True)
    enc = _init(T, nn.TransformerEncoder(layer, 2, norm=nn.LayerNorm(4),
                                         enable_nested_tensor=False), 46).eval()
    x = _t(T, 2, 4, 4, seed=47)
    pad = T.tensor([[False, False, False, True], [False, False, False, False]])
    with T.no_grad():
        out = enc(x, src_key_padding_mask=pad)
        one = enc(x[:1, :3])
    return [out, bool(T.allclose(out[0, :3], one[0], atol=1e-5)), out[0, 3].abs().sum().item() > 0]


def multihead_attention_no_weights_batch_first(T):
    """MultiheadAttention with batch_first, need_weights=False (None
    weights), per-head weights unaveraged, a float key padding mask added
    to the scores; the bias-free out projection; gradients of the queries."""
    nn = T.nn
    mha = _init(T, nn.MultiheadAttention(4, 2, batch_first=True, bias=False), 48)
    q = _t(T, 2, 3, 4, seed=49).requires_grad_()
    kv = _t(T, 2, 5, 4, seed=50)
    kpm = T.zeros(2, 5)
    kpm[1, 3:] = -1.0
    out, w = mha(q, kv, kv, need_weights=False)
    out2, w2 = mha(q, kv, kv, key_padding_mask=kpm, average_attn_weights=False)
    (out.sum() + out2.pow(2).sum()).backward()
    return [w is None, out, list(w2.shape), w2[1, 0], q.grad, mha.out_proj.bias]


# ---- normalisation in train and eval -----------------------------------------------------------

def instance_norm3d_tracked(T):
    """InstanceNorm3d with affine and running stats: two training batches
    update them (momentum 0.3), eval normalises with them; the buffers,
    num_batches_tracked and a reset."""
    nn = T.nn
    inn = _init(T, nn.InstanceNorm3d(2, affine=True, track_running_stats=True, momentum=0.3), 51)
    for s in (52, 53):
        inn(_t(T, 2, 2, 2, 3, 2, seed=s) * 2 + 1)
    x = _t(T, 1, 2, 2, 2, 2, seed=54)
    inn.eval()
    ev = inn(x)
    stats = [inn.running_mean.clone(), inn.running_var.clone(), int(inn.num_batches_tracked)]
    inn.reset_running_stats()
    return [stats, ev, inn.running_mean, inn.running_var, int(inn.num_batches_tracked)]


def batch_norm3d_momentum_none_eval(T):
    """BatchNorm3d with momentum=None (a cumulative average) over three
    batches, then eval; a BatchNorm1d on (N, C, L) without affine; SGD
    steps of a small volume classifier through them."""
    nn = T.nn
    bn = nn.BatchNorm3d(2, momentum=None)
    for s in (55, 56, 57):
        bn(_t(T, 2, 2, 2, 2, 2, seed=s) + s % 3)
    bn1 = nn.BatchNorm1d(3, affine=False)
    z = bn1(_t(T, 4, 3, 5, seed=58))
    conv = _init(T, nn.Conv3d(1, 2, 2), 59)
    model = nn.Sequential(conv, nn.BatchNorm3d(2), nn.ReLU(), nn.Flatten(), nn.LazyLinear(2))
    x = _t(T, 3, 1, 3, 3, 3, seed=60)
    model(x)
    _init(T, model, 61)
    opt = T.optim.SGD(model.parameters(), lr=0.1)
    y = _t(T, 3, 2, seed=62)
    losses = _fit(T, model, opt, x, y, steps=3)
    model.eval()
    return [bn.running_mean, bn.running_var, int(bn.num_batches_tracked), z.mean((0, 2)),
            bn1.running_var, losses, model(x)]


def group_and_layer_norm_forms(T):
    """GroupNorm with one group against LayerNorm over (C, H, W) without
    affine, GroupNorm with as many groups as channels against
    InstanceNorm2d, LayerNorm with bias=False and elementwise_affine=False,
    RMSNorm with and without eps; gradients of the GroupNorm input."""
    nn = T.nn
    x = _t(T, 2, 4, 3, 3, seed=63).requires_grad_()
    g1 = nn.GroupNorm(1, 4, affine=False)(x)
    ln = nn.LayerNorm([4, 3, 3], elementwise_affine=False)(x)
    g4 = nn.GroupNorm(4, 4, eps=1e-3)(x)
    inn = nn.InstanceNorm2d(4, eps=1e-3)(x)
    lnb = nn.LayerNorm(3, bias=False)
    rms = nn.RMSNorm([3, 3])
    rms2 = nn.RMSNorm(3, eps=0.5, elementwise_affine=False)
    (g1 * x.detach()).sum().backward()
    return [bool(T.allclose(g1, ln, atol=1e-5)), bool(T.allclose(g4, inn, atol=1e-5)),
            lnb.bias is None, [n for n, _ in lnb.named_parameters()], rms(x)[0, 0],
            rms.eps, rms2(x)[1, 2], x.grad[0, 0]]


# ---- convolutions, padding and pools ------------------------------------------------------------

def conv2d_grouped_dilated_padding_modes(T):
    """Conv2d with groups=2, dilation=(1, 2), stride=(2, 1) and an uneven
    tuple padding in each padding mode, a step of Adam each; the circular
    mode against padding by F.pad by hand."""
    nn = T.nn
    F = nn.functional
    x = _t(T, 2, 4, 6, 7, seed=64)
    out = []
    for mode in ("zeros", "reflect", "replicate", "circular"):
        conv = _init(T, nn.Conv2d(4, 6, (3, 2), stride=(2, 1), padding=(1, 2), dilation=(1, 2),
                                  groups=2, padding_mode=mode), 65)
        y = conv(x)
        opt = T.optim.Adam(conv.parameters(), lr=0.01)
        loss = _step(opt, y.pow(2).mean())
        out.append([mode, list(y.shape), loss, y[1, 5, 0]])
    conv = _init(T, nn.Conv2d(4, 6, (3, 2), padding=(1, 2), dilation=(1, 2), groups=2,
                              padding_mode="circular"), 65)
    by_hand = F.conv2d(F.pad(x, (2, 2, 1, 1), mode="circular"), conv.weight, conv.bias,
                       dilation=(1, 2), groups=2)
    out.append(bool(T.allclose(conv(x), by_hand, atol=1e-5)))
    return out


def conv3d_padding_modes_same(T):
    """Conv3d with padding='same' in reflect and circular modes and an even
    kernel, ConvTranspose3d refusing a non-zeros padding mode, Conv1d with
    padding='valid', a negative padding refused.  An unknown padding string
    is left out: PyTorch's message prints a set of strings, whose order
    follows string hashing."""
    nn = T.nn
    x = _t(T, 1, 2, 4, 4, 3, seed=66)
    outs = []
    for mode in ("reflect", "circular", "replicate"):
        conv = _init(T, nn.Conv3d(2, 3, (2, 3, 2), padding="same", padding_mode=mode), 67)
        y = conv(x)
        y.sum().backward()
        outs.append([list(y.shape), y[0, 1, 0], conv.weight.grad.sum().item()])
    return [outs, _raised(lambda: nn.ConvTranspose3d(2, 3, 2, padding_mode="reflect")),
            list(nn.Conv1d(2, 3, 3, padding="valid")(_t(T, 1, 2, 7, seed=68)).shape),
            _raised(lambda: nn.Conv2d(2, 3, 3, padding=-1))]


def adaptive_pools_none_sizes(T):
    """Adaptive pools given None for a size (the input's kept): 2-d average
    and max, 3-d average; AdaptiveMaxPool1d with indices over a length it
    does not divide; their gradients."""
    nn = T.nn
    x = _t(T, 1, 2, 5, 7, seed=69).requires_grad_()
    a = nn.AdaptiveAvgPool2d((None, 3))(x)
    m = nn.AdaptiveMaxPool2d((2, None))(x)
    v = nn.AdaptiveAvgPool3d((None, 2, None))(_t(T, 1, 3, 4, 5, seed=70))
    p1, i1 = nn.AdaptiveMaxPool1d(3, return_indices=True)(_t(T, 2, 7, seed=71))
    (a.sum() + m.pow(2).sum()).backward()
    return [a, list(m.shape), m, list(v.shape), v, p1, i1, x.grad[0, 1]]


def pools_dilation_ceil_divisor(T):
    """MaxPool2d with dilation, ceil_mode and padding and its indices;
    AvgPool2d with count_include_pad=False and with divisor_override;
    AvgPool1d in ceil mode; LPPool1d/2d of norms 1, 2 and 3 with ceil
    mode; gradients of each."""
    nn = T.nn
    x = _t(T, 1, 1, 7, 6, seed=72).requires_grad_()
    mp, mi = nn.MaxPool2d(3, stride=2, padding=1, dilation=2, ceil_mode=True,
                          return_indices=True)(x)
    ap = nn.AvgPool2d(3, stride=2, padding=1, count_include_pad=False)(x)
    ad = nn.AvgPool2d(2, divisor_override=3)(x)
    a1 = nn.AvgPool1d(3, stride=2, ceil_mode=True)(x[0])
    lp = [nn.LPPool2d(p, 2, stride=2, ceil_mode=True)(x.abs() + 0.1) for p in (1, 2, 3)]
    lp1 = nn.LPPool1d(2, 3, stride=2)(x[0])
    total = mp.sum() + ap.sum() + ad.sum() + a1.sum() + sum(t.sum() for t in lp) + lp1.sum()
    total.backward()
    return [mp, mi, ap, ad, a1, lp, lp1, x.grad]


def padding_layers_3d_and_crop(T):
    """ZeroPad1d/3d, CircularPad1d/2d/3d, ReflectionPad3d, ReplicationPad3d
    and ConstantPad3d with tuple paddings; F.pad with negative amounts
    (cropping) in constant and replicate modes; gradients through
    circular padding count each wrapped element."""
    nn = T.nn
    F = nn.functional
    x = _t(T, 1, 1, 2, 3, 3, seed=73).requires_grad_()
    outs = [nn.ZeroPad3d((1, 0, 0, 1, 1, 0))(x), nn.CircularPad3d(1)(x),
            nn.ReflectionPad3d((1, 1, 0, 0, 1, 0))(x), nn.ReplicationPad3d((0, 2, 1, 0, 0, 1))(x),
            nn.ConstantPad3d((1, 0, 0, 0, 0, 1), 2.5)(x)]
    y = _t(T, 1, 2, 4, seed=74)
    one = [nn.ZeroPad1d((2, 1))(y), nn.CircularPad1d((1, 3))(y), nn.CircularPad2d((1, 0, 1, 1))(y[None])]
    crop = [F.pad(y, (-1, 2)), F.pad(y, (1, -2), mode="replicate"), F.pad(y, (-1, -1), value=3.0)]
    outs[1].sum().backward()
    return [[list(o.shape) for o in outs], outs[2][0, 0, 0], outs[4][0, 0, 2], one, crop, x.grad]


def upsample_modes_and_scales(T):
    """nn.Upsample by tuple scale factors in nearest, nearest-exact,
    bilinear (both align_corners), bicubic and trilinear modes;
    UpsamplingNearest2d and UpsamplingBilinear2d (align_corners=True);
    F.interpolate with recompute_scale_factor and antialias downsampling;
    gradients of bicubic."""
    nn = T.nn
    F = nn.functional
    x = _t(T, 1, 1, 3, 4, seed=75).requires_grad_()
    outs = [nn.Upsample(scale_factor=(2, 1.5), mode="nearest")(x),
            nn.Upsample(scale_factor=(1.5, 2), mode="nearest-exact")(x),
            nn.Upsample(size=(5, 6), mode="bilinear", align_corners=True)(x),
            nn.Upsample(scale_factor=1.7, mode="bilinear")(x),
            nn.Upsample(scale_factor=2, mode="bicubic")(x),
            nn.UpsamplingNearest2d(size=(4, 5))(x),
            nn.UpsamplingBilinear2d(scale_factor=2)(x)]
    v = nn.Upsample(scale_factor=(1, 2, 1.5), mode="trilinear")(_t(T, 1, 1, 2, 2, 2, seed=76))
    r = F.interpolate(x, scale_factor=1.7, mode="bilinear", recompute_scale_factor=True)
    d = F.interpolate(_t(T, 1, 1, 8, 8, seed=77), size=(3, 5), mode="bilinear", antialias=True)
    outs[4].pow(2).sum().backward()
    return [[list(o.shape) for o in outs], outs[1], outs[3], outs[4][0, 0, 1], outs[6],
            v, r, d, x.grad, repr(nn.Upsample(scale_factor=2, mode="bicubic"))]


def unfold_dilated_strided_fold_back(T):
    """nn.Unfold with dilation, padding and stride over a non-square input,
    nn.Fold putting the blocks back (the count of blocks covering each
    pixel from folding ones), Tensor.unfold on a sequence, and Unfold's
    refusal of a 3-d input's wrong kernel."""
    nn = T.nn
    x = _t(T, 2, 2, 5, 6, seed=78)
    kw = dict(kernel_size=(2, 3), dilation=(2, 1), padding=(1, 0), stride=(1, 2))
    cols = nn.Unfold(**kw)(x)
    back = nn.Fold(output_size=(5, 6), **kw)(cols)
    counts = nn.Fold(output_size=(5, 6), **kw)(T.ones_like(cols))
    s = T.arange(10.0)
    return [list(cols.shape), cols[1, :, 3], bool(T.allclose(back, x * counts, atol=1e-5)),
            counts[0, 0], s.unfold(0, 4, 3), s.view(2, 5).unfold(1, 2, 2),
            _raised(lambda: nn.Unfold(3)(T.ones(1, 2, 2, 2)))]


# ---- activations, dropout and reshaping modules ------------------------------------------------

def activation_arguments_training(T):
    """Activations with their less common arguments in one model trained
    by Adamax: PReLU with per-channel slopes and init, Threshold, Hardtanh
    with bounds, Softshrink/Hardshrink with lambd, GLU over dim 1, Softmin
    over a dim, Softmax2d over (C, H, W), CELU's alpha, ELU's alpha; the
    final slopes."""
    nn = T.nn
    x = _t(T, 3, 4, 2, 2, seed=79)
    prelu = nn.PReLU(4, init=0.1)
    acts = [nn.Threshold(0.2, -1.0), nn.Hardtanh(-0.5, 0.7), nn.Softshrink(0.3), nn.Hardshrink(0.4),
            nn.CELU(0.5), nn.ELU(2.0)]
    conv = _init(T, nn.Conv2d(4, 8, 1), 80)
    opt = T.optim.Adamax([*conv.parameters(), *prelu.parameters()], lr=0.05, weight_decay=0.01)
    losses = []
    for _ in range(3):
        h = nn.GLU(dim=1)(conv(prelu(x)))
        for a in acts:
            h = h + a(h) * 0.5
        loss = nn.Softmin(dim=1)(h).pow(2).sum() + nn.Softmax2d()(h).max()
        losses.append(_step(opt, loss))
    return [losses, prelu.weight, nn.Softmax2d()(x[0]).sum(0), nn.GLU()(x[0, 0])]


def alpha_dropout_and_channel_dropout(T):
    """AlphaDropout and FeatureAlphaDropout in eval (identity) and with
    p=0 in train, Dropout1d/2d/3d in eval on unbatched inputs, the whole
    channels Dropout2d zeroes together in train (a stream-free check), and
    p outside [0, 1] refused."""
    nn = T.nn
    x = _t(T, 2, 3, 4, 4, seed=81)
    T.manual_seed(0)
    d2 = nn.Dropout2d(0.5)(x)
    per_channel = (d2 == 0).flatten(2).all(2) | (d2 != 0).flatten(2).all(2)
    kept = (d2 != 0).flatten(2).all(2)
    scaled = bool(T.allclose(d2[kept], (x * 2)[kept]))
    return [bool(T.equal(nn.AlphaDropout(0.3).eval()(x), x)),
            bool(T.equal(nn.AlphaDropout(0.0)(x), x)),
            bool(T.equal(nn.FeatureAlphaDropout(0.4).eval()(x), x)),
            bool(T.equal(nn.Dropout1d(0.5).eval()(x[0, 0]), x[0, 0])),
            bool(T.equal(nn.Dropout3d(0.5).eval()(x), x)),
            bool(per_channel.all()), scaled,
            _raised(lambda: nn.AlphaDropout(1.5)), _raised(lambda: nn.Dropout2d(-0.1)),
            repr(nn.FeatureAlphaDropout(0.2, inplace=True))]


def reshaping_modules(T):
    """Flatten over a middle range, Unflatten with a tuple and with -1,
    ChannelShuffle, PixelUnshuffle and PixelShuffle round trips, Identity
    ignoring its arguments; their reprs and gradients through the
    shuffles."""
    nn = T.nn
    x = _t(T, 2, 6, 4, 4, seed=82).requires_grad_()
    f = nn.Flatten(1, 2)(x)
    u = nn.Unflatten(1, (3, 2))(x)
    um = nn.Unflatten(2, (2, -1))(x)
    cs = nn.ChannelShuffle(3)(x)
    pu = nn.PixelUnshuffle(2)(x)
    back = nn.PixelShuffle(2)(pu)
    (cs * T.arange(6.0).view(1, 6, 1, 1)).sum().backward()
    return [list(f.shape), list(u.shape), list(um.shape), cs[0, :, 0, 0], list(pu.shape),
            bool(T.equal(back, x)), x.grad[0, :, 0, 0],
            bool(T.equal(nn.Identity(3, foo=2)(x), x)),
            [repr(m) for m in (nn.Flatten(1, 2), nn.Unflatten(1, (3, 2)), nn.ChannelShuffle(3),
                               nn.PixelUnshuffle(2), nn.Identity())]]


def distance_modules(T):
    """PairwiseDistance with p, eps and keepdim, CosineSimilarity over a
    dim with eps, F.pdist with p, cdist with p=1 and p=inf, and a siamese
    step through PairwiseDistance with SGD; cosine similarity of a zero
    vector (eps keeps it finite)."""
    nn = T.nn
    F = nn.functional
    a = _t(T, 4, 3, seed=83)
    b = _t(T, 4, 3, seed=84)
    pd = nn.PairwiseDistance(p=3, eps=1e-4, keepdim=True)
    cs = nn.CosineSimilarity(dim=0, eps=1e-3)
    enc = _init(T, nn.Linear(3, 2), 85)
    opt = T.optim.SGD(enc.parameters(), lr=0.1)
    losses = [_step(opt, nn.PairwiseDistance()(enc(a), enc(b)).mean()) for _ in range(2)]
    return [pd(a, b), cs(a, b), F.pdist(a, p=1.5), T.cdist(a, b, p=1), T.cdist(a, b, p=float("inf")),
            losses, F.cosine_similarity(T.zeros(3), T.ones(3), dim=0),
            nn.PairwiseDistance(p=1)(a[0], b[0])]


# ---- embeddings and recurrent options -----------------------------------------------------------

def embedding_max_norm_and_freq(T):
    """Embedding with max_norm and norm_type 1 (rows renormalised in place
    by the lookup, the others untouched), scale_grad_by_freq (a repeated
    index's gradient divided by its count), a negative padding_idx, and
    from_pretrained(freeze=False) trained a step."""
    nn = T.nn
    emb = _init(T, nn.Embedding(6, 3, max_norm=0.5, norm_type=1.0), 86, scale=1.0)
    before = emb.weight.detach().clone()
    out = emb(_long(T, [[1, 3], [3, 5]]))
    row_norms = emb.weight.detach().abs().sum(1)
    sg = _init(T, nn.Embedding(5, 2, scale_grad_by_freq=True), 87)
    sg(_long(T, [1, 1, 1, 2, 4])).sum().backward()
    neg = nn.Embedding(5, 2, padding_idx=-2)
    pre = nn.Embedding.from_pretrained(_t(T, 4, 2, seed=88), freeze=False, padding_idx=0)
    opt = T.optim.SGD(pre.parameters(), lr=0.5)
    _step(opt, pre(_long(T, [0, 1, 1, 3])).pow(2).sum())
    return [out, row_norms, bool(T.equal(emb.weight[0], before[0])), sg.weight.grad,
            neg.padding_idx, neg.weight[3], pre.weight, pre.weight.requires_grad]


def rnn_dropout_eval_and_weights(T):
    """Two-layer LSTM and GRU with dropout between layers: eval is
    deterministic (two calls equal); the weights' names and shapes in
    all_weights; an RNN with tanh given a zero initial state explicitly
    equals the default; RNN's dropout warning for one layer is PyTorch's."""
    nn = T.nn
    lstm = _init(T, nn.LSTM(3, 4, num_layers=2, dropout=0.5, batch_first=True), 89).eval()
    gru = _init(T, nn.GRU(3, 4, num_layers=2, dropout=0.3, bidirectional=True), 90).eval()
    x = _t(T, 2, 5, 3, seed=91)
    with T.no_grad():
        a, _ = lstm(x)
        b, _ = lstm(x)
        g, hg = gru(x.transpose(0, 1))
    rnn = _init(T, nn.RNN(3, 2, num_layers=2), 92)
    o1, h1 = rnn(x.transpose(0, 1))
    o2, h2 = rnn(x.transpose(0, 1), T.zeros(2, 2, 2))
    import warnings
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        nn.GRU(3, 4, dropout=0.2)
    return [bool(T.equal(a, b)), a[1, -1], list(g.shape), hg[-1],
            [[list(w.shape) for w in layer] for layer in gru.all_weights],
            bool(T.equal(o1, o2)), [str(w.message) for w in caught]]


def lstm_proj_state_dict_roundtrip(T):
    """An LSTM with proj_size's state dict (weight_hr names), loaded into a
    fresh LSTM, the same output; loading it into an LSTM without proj_size
    refused with PyTorch's report."""
    nn = T.nn
    a = _init(T, nn.LSTM(2, 4, proj_size=3, num_layers=2), 93)
    b = nn.LSTM(2, 4, proj_size=3, num_layers=2)
    b.load_state_dict(a.state_dict())
    x = _t(T, 3, 1, 2, seed=94)
    return [list(a.state_dict()), bool(T.equal(a(x)[0], b(x)[0])), list(a(x)[1][0].shape),
            _raised(lambda: nn.LSTM(2, 4, num_layers=2).load_state_dict(a.state_dict()))]


# ---- optimizers --------------------------------------------------------------------------------

def adam_family_decoupled_options(T):
    """NAdam with momentum_decay and decoupled_weight_decay, RAdam with
    decoupled_weight_decay, Adamax and Adagrad with lr_decay and eps, each
    trained three steps on the same MLP; the step counts in their states."""
    x = _t(T, 8, 4, seed=95)
    y = _t(T, 8, 2, seed=96)
    out = []
    for make in (lambda p: T.optim.NAdam(p, lr=0.02, momentum_decay=0.01, weight_decay=0.1,
                                         decoupled_weight_decay=True),
                 lambda p: T.optim.RAdam(p, lr=0.02, weight_decay=0.1, decoupled_weight_decay=True),
                 lambda p: T.optim.Adamax(p, lr=0.02, betas=(0.8, 0.9), eps=1e-6),
                 lambda p: T.optim.Adagrad(p, lr=0.1, lr_decay=0.1, eps=1e-3)):
        model = _mlp(T, 97)
        opt = make(model.parameters())
        losses = _fit(T, model, opt, x, y, steps=3)
        st = opt.state[model[0].weight]
        out.append([losses, float(st["step"]), sorted(st), model[2].bias])
    return out


def sgd_dampening_and_refusals(T):
    """SGD with dampening and weight decay, maximize, nesterov (refused with
    dampening or without momentum), the momentum buffer after steps, and
    foreach=False equal to the default."""
    x = _t(T, 6, 4, seed=98)
    y = _t(T, 6, 2, seed=99)
    out = []
    for kw in (dict(momentum=0.9, dampening=0.3, weight_decay=0.05),
               dict(momentum=0.5, maximize=True), dict(momentum=0.9, nesterov=True, foreach=False)):
        model = _mlp(T, 100)
        opt = T.optim.SGD(model.parameters(), lr=0.05, **kw)
        out.append([_fit(T, model, opt, x, y, steps=3), opt.state[model[2].bias]["momentum_buffer"]])
    p = [T.zeros(2, requires_grad=True)]
    out.append(_raised(lambda: T.optim.SGD(p, lr=0.1, momentum=0.9, dampening=0.1, nesterov=True)))
    out.append(_raised(lambda: T.optim.SGD(p, lr=0.1, nesterov=True)))
    out.append(_raised(lambda: T.optim.SGD(p, lr=-0.1)))
    out.append(_raised(lambda: T.optim.SGD(p, lr=0.1, momentum=-1)))
    return out


def asgd_rprop_states(T):
    """ASGD with t0 reached during training (averaging starts), lambd and
    alpha, its eta/mu/ax; Rprop with custom etas and step_sizes bounds,
    its prev and step_size states; both resumed from their state dicts."""
    x = _t(T, 6, 4, seed=101)
    y = _t(T, 6, 2, seed=102)
    model = _mlp(T, 103)
    opt = T.optim.ASGD(model.parameters(), lr=0.05, lambd=1e-3, alpha=0.5, t0=2, weight_decay=0.01)
    la = _fit(T, model, opt, x, y, steps=4)
    st = opt.state[model[2].bias]
    model2 = _mlp(T, 103)
    opt2 = T.optim.Rprop(model2.parameters(), lr=0.02, etas=(0.3, 1.5), step_sizes=(1e-3, 0.05))
    lr_ = _fit(T, model2, opt2, x, y, steps=4)
    st2 = opt2.state[model2[2].bias]
    opt3 = T.optim.Rprop(model2.parameters(), lr=0.02)
    opt3.load_state_dict(opt2.state_dict())
    return [la, st["eta"], st["mu"], st["ax"], lr_, st2["prev"], st2["step_size"],
            opt3.param_groups[0]["etas"], opt3.param_groups[0]["step_sizes"],
            _raised(lambda: T.optim.Rprop(model2.parameters(), etas=(1.2, 0.5)))]


def optimizer_state_cast_on_load(T):
    """An AdamW (amsgrad) state saved from float32 parameters and loaded
    into a float64 model's optimizer: the moments are cast to the
    parameters' dtype and the step stays float32; training continues the
    same as uninterrupted training (to float32 precision)."""
    x = _t(T, 6, 4, seed=104)
    y = _t(T, 6, 2, seed=105)
    model = _mlp(T, 106)
    opt = T.optim.AdamW(model.parameters(), lr=0.02, amsgrad=True)
    _fit(T, model, opt, x, y, steps=2)
    m64 = _mlp(T, 106).double()
    m64.load_state_dict(model.state_dict())
    o64 = T.optim.AdamW(m64.parameters(), lr=0.02, amsgrad=True)
    o64.load_state_dict(opt.state_dict())
    st = o64.state[m64[0].weight]
    l32 = _fit(T, model, opt, x, y, steps=2)
    l64 = _fit(T, m64, o64, x.double(), y.double(), steps=2)
    return [st["exp_avg"].dtype, st["max_exp_avg_sq"].dtype, st["step"].dtype,
            bool(np.allclose(l32, l64, rtol=1e-4)), m64[2].bias.dtype, float(st["step"])]


def optimizer_load_state_dict_refusals(T):
    """Optimizer.load_state_dict refusing a state dict with another number
    of groups and one whose group sizes differ, in PyTorch's words; a
    state dict's param ids and group keys."""
    a = T.nn.Linear(2, 2)
    b = T.nn.Linear(2, 3)
    opt = T.optim.Adam([{"params": [a.weight]}, {"params": [a.bias], "lr": 0.1}], lr=0.01)
    sd = opt.state_dict()
    one = T.optim.Adam(a.parameters())
    sizes = T.optim.Adam([{"params": [a.weight, a.bias]}, {"params": [b.weight]}])
    return [[g["params"] for g in sd["param_groups"]], sorted(sd["param_groups"][1]),
            _raised(lambda: one.load_state_dict(sd)), _raised(lambda: sizes.load_state_dict(sd))]


def lbfgs_history_and_tolerances(T):
    """LBFGS with a short history, max_iter and max_eval, tolerance_grad
    ending early on a quadratic; the closure's call count, the state's
    n_iter and func_evals, the solution."""
    w = T.zeros(3, requires_grad=True)
    A = T.tensor([[3.0, 0.5, 0.0], [0.5, 2.0, 0.2], [0.0, 0.2, 1.0]])
    b = T.tensor([1.0, -1.0, 0.5])
    opt = T.optim.LBFGS([w], lr=1, history_size=2, max_iter=7, max_eval=9, tolerance_grad=1e-4,
                        tolerance_change=1e-12)
    calls = []

    def closure():
        opt.zero_grad()
        loss = 0.5 * (w @ A @ w) - b @ w
        loss.backward()
        calls.append(loss.item())
        return loss

    first = opt.step(closure)
    opt.step(closure)
    st = opt.state[w]
    return [first.item(), len(calls), st["n_iter"], st["func_evals"], w, len(st["old_dirs"])]


# ---- learning-rate schedulers ------------------------------------------------------------------

def schedulers_built_with_last_epoch(T):
    """Schedulers constructed with last_epoch > -1: refused without
    initial_lr in the groups (PyTorch's KeyError), and with it set they
    start where a fresh one stepped that many times is, for StepLR,
    ExponentialLR and CosineAnnealingLR."""
    S = T.optim.lr_scheduler
    out = []
    for make in (lambda o, e: S.StepLR(o, 2, gamma=0.5, last_epoch=e),
                 lambda o, e: S.ExponentialLR(o, 0.9, last_epoch=e),
                 lambda o, e: S.CosineAnnealingLR(o, 6, eta_min=0.01, last_epoch=e)):
        p = [T.zeros(1, requires_grad=True)]
        o1 = T.optim.SGD(p, lr=0.1)
        s1 = make(o1, -1)
        for _ in range(3):
            o1.step()
            s1.step()
        o2 = T.optim.SGD(p, lr=0.1)
        o2.param_groups[0]["initial_lr"] = 0.1
        o2.param_groups[0]["lr"] = o1.param_groups[0]["lr"]
        s2 = make(o2, 2)
        o2.step()
        s2.step()
        o1.step()
        s1.step()
        out.append([s1.get_last_lr(), s2.get_last_lr(), s2.last_epoch])
    o3 = T.optim.SGD([T.zeros(1, requires_grad=True)], lr=0.1)
    out.append(_raised(lambda: S.StepLR(o3, 2, last_epoch=3)))
    return out


def plateau_abs_threshold_cooldown(T):
    """ReduceLROnPlateau in abs threshold mode with cooldown, per-group
    min_lr, eps keeping tiny reductions from happening; the lr trace, the
    bad-epoch counter and the state dict."""
    p1 = [T.zeros(1, requires_grad=True)]
    p2 = [T.zeros(1, requires_grad=True)]
    opt = T.optim.SGD([{"params": p1}, {"params": p2, "lr": 1e-3}], lr=0.1)
    s = T.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=1, factor=0.5, threshold=0.05,
                                               threshold_mode="abs", cooldown=2,
                                               min_lr=[0.02, 0.0], eps=6e-4)
    trace = []
    for v in (1.0, 0.98, 0.97, 0.96, 0.9, 0.89, 0.88, 0.87, 0.86, 0.85):
        opt.step()
        s.step(v)
        trace.append([g["lr"] for g in opt.param_groups] + [s.num_bad_epochs, s.cooldown_counter])
    sd = s.state_dict()
    return [trace, sd["best"], sd["min_lrs"], sd["mode_worse"], s.get_last_lr(),
            _raised(lambda: T.optim.lr_scheduler.ReduceLROnPlateau(opt, min_lr=[0.1]))]


def cyclic_custom_scale_fn(T):
    """CyclicLR with a custom scale_fn by iterations, step_size_down
    different from step_size_up and cycle_momentum off for Adam; a second
    CyclicLR with base_momentum/max_momentum cycling SGD's momentum."""
    S = T.optim.lr_scheduler
    p = [T.zeros(1, requires_grad=True)]
    opt = T.optim.Adam(p, lr=0.1)
    s = S.CyclicLR(opt, base_lr=0.01, max_lr=0.1, step_size_up=2, step_size_down=3,
                   scale_fn=lambda x: 1 / (1 + 0.1 * x), scale_mode="iterations",
                   cycle_momentum=False)
    trace = []
    for _ in range(9):
        opt.step()
        s.step()
        trace.append(round(s.get_last_lr()[0], 10))
    opt2 = T.optim.SGD(p, lr=0.1, momentum=0.9)
    s2 = S.CyclicLR(opt2, 0.01, 0.1, step_size_up=2, base_momentum=0.7, max_momentum=0.95)
    moms = []
    for _ in range(5):
        opt2.step()
        s2.step()
        moms.append(opt2.param_groups[0]["momentum"])
    return [trace, moms, _raised(lambda: S.CyclicLR(T.optim.Adam(p), 0.01, 0.1))]


def one_cycle_total_steps_and_past_end(T):
    """OneCycleLR given total_steps, with div_factor, final_div_factor,
    pct_start and linear annealing: the trace, the final lr, and the
    refusal to step past the total in PyTorch's words; epochs times
    steps_per_epoch naming the same total."""
    S = T.optim.lr_scheduler
    p = [T.zeros(1, requires_grad=True)]
    opt = T.optim.SGD(p, lr=0.1, momentum=0.9)
    s = S.OneCycleLR(opt, max_lr=0.5, total_steps=6, pct_start=0.4, div_factor=5,
                     final_div_factor=50, anneal_strategy="linear", base_momentum=0.8,
                     max_momentum=0.9)
    trace = [opt.param_groups[0]["lr"]]
    for _ in range(5):
        opt.step()
        s.step()
        trace.append([opt.param_groups[0]["lr"], opt.param_groups[0]["momentum"]])
    opt.step()

    def past():
        s.step()
    err = _raised(past)
    opt2 = T.optim.SGD(p, lr=0.1)
    s2 = S.OneCycleLR(opt2, max_lr=0.5, epochs=2, steps_per_epoch=3)
    return [trace, err, s2.total_steps, _raised(lambda: S.OneCycleLR(opt2, max_lr=0.5)),
            _raised(lambda: S.OneCycleLR(opt2, max_lr=0.5, total_steps=4, pct_start=1.5))]


def custom_scheduler_closed_form(T):
    """A user LRScheduler subclass with get_lr and _get_closed_form_lr,
    stepped plainly and with an explicit epoch (the deprecated form uses
    the closed form); MultiplicativeLR with a per-group list of lambdas
    and its state dict (lambdas are not saved)."""
    S = T.optim.lr_scheduler

    class Halving(S.LRScheduler):
        def get_lr(self):
            return [g["lr"] * (0.5 if self.last_epoch % 2 == 0 and self.last_epoch else 1.0)
                    for g in self.optimizer.param_groups]

        def _get_closed_form_lr(self):
            return [b * 0.5 ** (self.last_epoch // 2) for b in self.base_lrs]

    p = [T.zeros(1, requires_grad=True)]
    opt = T.optim.SGD(p, lr=0.8)
    s = Halving(opt)
    trace = []
    for _ in range(4):
        opt.step()
        s.step()
        trace.append(s.get_last_lr()[0])
    s.step(7)
    trace.append(s.get_last_lr()[0])
    q = [T.zeros(1, requires_grad=True)]
    opt2 = T.optim.SGD([{"params": p}, {"params": q, "lr": 0.5}], lr=0.1)
    m = S.MultiplicativeLR(opt2, [lambda e: 0.9, lambda e: 0.5 if e < 3 else 1.0])
    for _ in range(4):
        opt2.step()
        m.step()
    return [trace, m.get_last_lr(), sorted(m.state_dict()), m.state_dict()["lr_lambdas"]]


def polynomial_constant_linear_traces(T):
    """PolynomialLR with power 2 and total_iters past which it stays,
    ConstantLR's factor released after total_iters, LinearLR's
    start/end factors, chained together with ChainedScheduler; the traces."""
    S = T.optim.lr_scheduler
    p = [T.zeros(1, requires_grad=True)]
    opt = T.optim.SGD(p, lr=1.0)
    sched = S.ChainedScheduler([S.PolynomialLR(opt, total_iters=4, power=2.0),
                                S.ConstantLR(opt, factor=0.5, total_iters=2),
                                S.LinearLR(opt, start_factor=0.2, end_factor=0.8, total_iters=3)])
    trace = []
    for _ in range(6):
        opt.step()
        sched.step()
        trace.append(round(opt.param_groups[0]["lr"], 10))
    return [trace, _raised(lambda: S.ConstantLR(opt, factor=1.5)),
            _raised(lambda: S.LinearLR(opt, start_factor=0.0))]


# ---- state dicts ---------------------------------------------------------------------------------

def load_state_dict_assign_and_report(T):
    """load_state_dict(strict=False)'s report (missing and unexpected keys,
    as a named tuple), assign=True making the module's parameters the
    given tensors (requires_grad kept from the module), a size mismatch and
    a missing key refused in PyTorch's words."""
    nn = T.nn
    m = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
    sd = {k: v.clone() for k, v in _init(T, nn.Sequential(nn.Linear(2, 3), nn.ReLU(),
                                                          nn.Linear(3, 1)), 107).state_dict().items()}
    sd["extra.weight"] = T.zeros(1)
    del sd["2.bias"]
    rep = m.load_state_dict(sd, strict=False)
    fresh = nn.Linear(2, 3)
    w = T.ones(3, 2)
    fresh.load_state_dict({"weight": w, "bias": T.zeros(3)}, assign=True)
    bad = {"weight": T.zeros(3, 3), "bias": T.zeros(3)}
    return [rep.missing_keys, rep.unexpected_keys, repr(rep), m[0].weight,
            fresh.weight.data_ptr() == w.data_ptr(), fresh.weight.requires_grad,
            type(fresh.weight).__name__,
            _raised(lambda: nn.Linear(2, 3).load_state_dict(bad)),
            _raised(lambda: nn.Linear(2, 3).load_state_dict({"weight": T.zeros(3, 2)}))]


def state_dict_keep_vars_prefix_buffers(T):
    """state_dict(keep_vars=True) giving the parameters themselves,
    state_dict(prefix=...), a non-persistent buffer left out, a buffer set
    to None left out, and a BatchNorm's num_batches_tracked kept as
    int64 through a save and load."""
    nn = T.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(2, 2)
            self.bn = nn.BatchNorm1d(2)
            self.register_buffer("scratch", T.ones(2), persistent=False)
            self.register_buffer("nothing", None)

    net = Net()
    kv = net.state_dict(keep_vars=True)
    buf = io.BytesIO()
    T.save(net.state_dict(prefix="model."), buf)
    buf.seek(0)
    loaded = T.load(buf)
    return [kv["lin.weight"] is net.lin.weight, list(loaded), loaded["model.bn.num_batches_tracked"],
            [n for n, _ in net.named_buffers()], type(kv["lin.bias"]).__name__]


def parametrizations_transfer_and_types(T):
    """transfer_parametrizations_and_params moving an orthogonal map and a
    custom parametrization to a fresh module, type_before_parametrizations,
    remove_parametrizations with leave_parametrized=False restoring the
    original, and is_parametrized by tensor name."""
    nn = T.nn
    P = nn.utils.parametrize

    class Scale(nn.Module):
        def forward(self, w):
            return w * 2

    src = _init(T, nn.Linear(3, 3), 108)
    P.register_parametrization(src, "weight", Scale())
    P.register_parametrization(src, "bias", Scale())
    dst = nn.Linear(3, 3)
    P.transfer_parametrizations_and_params(src, dst, "weight")
    orig = src.parametrizations.weight.original.detach().clone()
    before = [P.is_parametrized(dst), P.is_parametrized(dst, "weight"),
              P.is_parametrized(dst, "bias"), P.type_before_parametrizations(dst).__name__,
              type(dst).__name__]
    same = bool(T.equal(dst.weight, src.weight))
    P.remove_parametrizations(src, "weight", leave_parametrized=False)
    return [before, same, bool(T.equal(src.weight, orig)), P.is_parametrized(src),
            P.is_parametrized(src, "weight"), type(src).__name__ == "Linear"]


def module_accessors_and_refusals(T):
    """get_submodule, get_parameter and get_buffer with dotted paths and
    their refusals, named_modules with and without duplicates,
    named_parameters without recursion, set_submodule replacing a layer."""
    nn = T.nn
    shared = nn.Linear(2, 2)
    m = nn.Sequential(nn.Sequential(shared, nn.BatchNorm1d(2)), shared)
    out = [type(m.get_submodule("0.1")).__name__, list(m.get_parameter("0.0.weight").shape),
           m.get_buffer("0.1.num_batches_tracked").dtype,
           [n for n, _ in m.named_modules()], [n for n, _ in m.named_modules(remove_duplicate=False)],
           [n for n, _ in m[0][1].named_parameters(prefix="bn", recurse=False)],
           _raised(lambda: m.get_submodule("0.5")), _raised(lambda: m.get_parameter("0.1.running_mean")),
           _raised(lambda: m.get_buffer("0.0.weight")), _raised(lambda: m.get_parameter("0.0.nope"))]
    m.set_submodule("0.1", nn.Identity())
    out.append(type(m[0][1]).__name__)
    return out


# ---- hooks and the autograd graph ----------------------------------------------------------------

def grad_fn_node_hooks(T):
    """Hooks on autograd graph nodes: a grad_fn's register_prehook scaling
    the incoming gradient, register_hook seeing the outputs' and inputs'
    gradients, the node's name() and next_functions, a removed handle.
    The product is of two tensors: x * x is one edge in torchlike, two in
    PyTorch (docs/autograd.md)."""
    x = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
    c = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * c
    z = y.sum()
    seen = []
    h1 = y.grad_fn.register_prehook(lambda gout: (gout[0] * 3,))
    y.grad_fn.register_hook(lambda gin, gout: seen.append([gin[0].tolist(), gout[0].tolist()]))
    h3 = z.grad_fn.register_hook(lambda gin, gout: seen.append("removed"))
    h3.remove()
    z.backward()
    g1 = x.grad.clone()
    h1.remove()
    x.grad = None
    (x * c).sum().backward()
    return [g1, seen, x.grad, y.grad_fn.name(), z.grad_fn.name(),
            [f.name() if f is not None else None for f, _ in y.grad_fn.next_functions],
            [f.name() if f is not None else None for f, _ in z.grad_fn.next_functions]]


def forward_pre_hooks_kwargs_prepend(T):
    """Forward pre-hooks with kwargs rewriting a keyword argument,
    prepend=True running first, a forward hook with always_call seeing
    the output, a full backward hook changing the input gradient; the
    order of calls and the result."""
    nn = T.nn

    class Scaled(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(2, 2)

        def forward(self, x, scale=1.0):
            return self.lin(x) * scale

    m = _init(T, Scaled(), 109)
    order = []

    def kw_hook(mod, args, kwargs):
        order.append("kw")
        kwargs = dict(kwargs, scale=kwargs.get("scale", 1.0) * 2)
        return args, kwargs

    def first(mod, args):
        order.append("first")

    m.register_forward_pre_hook(kw_hook, with_kwargs=True)
    m.register_forward_pre_hook(first, prepend=True)
    m.register_forward_hook(lambda mod, a, o: order.append("fwd"), always_call=True)
    m.register_full_backward_hook(lambda mod, gi, go: (gi[0] * 0 + 1,))
    x = _t(T, 3, 2, seed=110).requires_grad_()
    out = m(x, scale=0.5)
    out.sum().backward()
    return [order, out, x.grad]


def tensor_hooks_on_intermediates(T):
    """Tensor.register_hook on an intermediate replacing its gradient,
    retain_grad seeing the gradient before or after the hook depending on
    order, a hook on a leaf and its removal, and hooks on a view."""
    x = T.tensor([1.0, -2.0, 3.0], requires_grad=True)
    y = x * 2
    y.retain_grad()
    y.register_hook(lambda g: g * 10)
    z = (y ** 2).sum()
    h = x.register_hook(lambda g: g + 1)
    z.backward()
    first = [x.grad.clone(), y.grad.clone()]
    h.remove()
    x.grad = None
    w = x[1:]
    w.register_hook(lambda g: g * -1)
    (w * 3).sum().backward()
    return [first, x.grad]


# ---- autograd.functional and torch.func ---------------------------------------------------------

def autograd_functional_vhp_hvp_strict(T):
    """torch.autograd.functional's vhp and hvp of a non-quadratic function
    (equal for a symmetric Hessian), jvp and vjp with create_graph, the
    jacobian with vectorize and the forward-mode strategy, and strict=True
    refusing an output independent of the input."""
    AF = T.autograd.functional

    def f(x):
        return (x.sin() * x.pow(2)).sum()

    x = T.tensor([0.5, -1.0, 2.0])
    v = T.tensor([1.0, 0.5, -1.0])
    fv, vh = AF.vhp(f, x, v)
    _, hv = AF.hvp(f, x, v)
    _, jv = AF.jvp(lambda t: t.exp() * t, x, v, create_graph=True)

    def g(t):
        return T.stack([t[0] * t[1], t[2].exp(), t.sum()])
    jf = AF.jacobian(g, x, vectorize=True, strategy="forward-mode")
    jr = AF.jacobian(g, x)
    return [fv, vh, bool(T.allclose(vh, hv)), jv, jv.requires_grad, jf, bool(T.allclose(jf, jr)),
            _raised(lambda: AF.vjp(lambda t: T.ones(2), x, T.ones(2), strict=True)),
            AF.hessian(f, x, vectorize=True)]


def func_over_module_params(T):
    """torch.func.jacrev of a module's output w.r.t. its parameter dict via
    functional_call, hessian of a loss w.r.t. one parameter, jacfwd with
    has_aux, and stack_module_state + vmap evaluating an ensemble equal to
    the members one by one."""
    nn = T.nn
    fn = T.func
    model = _init(T, nn.Linear(3, 2), 111)
    params = {k: v.detach() for k, v in model.named_parameters()}
    x = _t(T, 4, 3, seed=112)
    jac = fn.jacrev(lambda p: fn.functional_call(model, p, (x,)).sum(0))(params)

    def loss(b):
        return fn.functional_call(model, {"weight": params["weight"], "bias": b}, (x,)).tanh().pow(2).sum()
    hess = fn.hessian(loss)(params["bias"])
    jf, aux = fn.jacfwd(lambda t: (t.sin(), t.cos().sum()), has_aux=True)(T.tensor([0.1, 0.2]))
    members = [_init(T, nn.Linear(3, 2), s) for s in (113, 114, 115)]
    sp, sb = fn.stack_module_state(members)
    base = nn.Linear(3, 2).to("meta")
    ens = fn.vmap(lambda p, b: fn.functional_call(base, (p, b), (x,)))(sp, sb)
    one_by_one = T.stack([m(x) for m in members])
    return [jac["weight"].shape, jac["bias"], hess, jf, aux,
            bool(T.allclose(ens, one_by_one, atol=1e-6)), sorted(sp), sp["weight"].shape]


def autograd_grad_unused_and_batched(T):
    """torch.autograd.grad with allow_unused (None) and materialize_grads
    (zeros), refusing an unused input otherwise, is_grads_batched giving
    a whole Jacobian, and grad_outputs of another shape refused."""
    x = T.tensor([1.0, 2.0], requires_grad=True)
    u = T.tensor([3.0], requires_grad=True)
    y = x.pow(3)
    a = T.autograd.grad(y.sum(), [x, u], allow_unused=True, retain_graph=True)
    b = T.autograd.grad(y.sum(), [x, u], materialize_grads=True, retain_graph=True)
    jac = T.autograd.grad(y, x, grad_outputs=T.eye(2), is_grads_batched=True, retain_graph=True)
    return [a[0], a[1] is None, b[1], jac[0],
            _raised(lambda: T.autograd.grad(y.sum(), [x, u], retain_graph=True)),
            _raised(lambda: T.autograd.grad(y, x, grad_outputs=T.ones(3), retain_graph=True))]


def checkpoint_sequential_segments(T):
    """checkpoint_sequential over a Sequential of six layers in two and
    three segments (non-reentrant): the same output and gradients as
    without checkpointing; checkpoint with a dropout layer and
    preserve_rng_state recomputing the same mask."""
    nn = T.nn
    from importlib import import_module
    ck = import_module(T.__name__ + ".utils.checkpoint")
    model = _init(T, nn.Sequential(*[nn.Linear(3, 3) if i % 2 == 0 else nn.Tanh()
                                     for i in range(6)]), 136)
    x = _t(T, 4, 3, seed=137).requires_grad_()
    plain = model(x)
    gp = T.autograd.grad(plain.sum(), [x, model[4].weight])
    out = []
    for segments in (2, 3):
        y = ck.checkpoint_sequential(model, segments, x, use_reentrant=False)
        g = T.autograd.grad(y.sum(), [x, model[4].weight])
        out.append([bool(T.allclose(y, plain)), bool(T.allclose(g[0], gp[0], atol=1e-6)),
                    bool(T.allclose(g[1], gp[1], atol=1e-6))])
    drop = nn.Sequential(nn.Linear(3, 3), nn.Dropout(0.5))
    _init(T, drop, 138)
    T.manual_seed(3)
    z = ck.checkpoint(drop, x, use_reentrant=False, preserve_rng_state=True)
    z.sum().backward()
    expected = ((z != 0).float() * 2) @ drop[0].weight
    return [out, bool(T.allclose(x.grad, expected, atol=1e-6))]


# ---- data utilities ------------------------------------------------------------------------------

def samplers_lengths_and_refusals(T):
    """RandomSampler with replacement and num_samples (its length, values
    in range), SequentialSampler over a dataset, SubsetRandomSampler's
    length, BatchSampler's lengths with and without drop_last, and their
    refusals of bad arguments in PyTorch's words."""
    D = T.utils.data
    data = list(range(7))
    g = T.Generator().manual_seed(0)
    rs = D.RandomSampler(data, replacement=True, num_samples=11, generator=g)
    drawn = list(rs)
    return [len(rs), len(drawn), all(0 <= i < 7 for i in drawn), list(D.SequentialSampler(data)),
            len(D.SubsetRandomSampler([1, 3, 5])), sorted(D.SubsetRandomSampler([1, 3, 5])),
            len(D.BatchSampler(range(10), 3, drop_last=False)),
            len(D.BatchSampler(range(10), 3, drop_last=True)),
            list(D.BatchSampler(D.SequentialSampler(range(7)), 3, drop_last=True)),
            _raised(lambda: D.RandomSampler(data, num_samples=0)),
            _raised(lambda: D.RandomSampler(data, replacement=1)),
            _raised(lambda: D.BatchSampler(range(5), 0, False)),
            _raised(lambda: D.BatchSampler(range(5), 2, drop_last="no")),
            _raised(lambda: D.WeightedRandomSampler([0.1, 0.9], num_samples=-1))]


def collate_numpy_and_strings(T):
    """default_collate of NumPy arrays (made tensors), NumPy scalars, strings,
    dicts of tuples and nested lists; default_convert leaving Python
    numbers alone and making arrays tensors; a NumPy object array refused."""
    D = T.utils.data
    batch = [{"x": np.array([1.0, 2.0], dtype=np.float32), "n": np.int32(3), "s": "a",
              "t": (1, 2.5)},
             {"x": np.array([3.0, 4.0], dtype=np.float32), "n": np.int32(4), "s": "b",
              "t": (3, 4.5)}]
    c = D.default_collate(batch)
    conv = D.default_convert([np.arange(3), 2, "z", np.float64(1.5)])
    return [c["x"], c["n"], c["s"], c["t"], D.default_collate([[1, 2], [3, 4]]),
            D.default_collate([np.bool_(True), np.bool_(False)]), conv[0], conv[1:3],
            type(conv[3]).__name__, D.default_collate([1.5, 2.5]),
            _raised(lambda: D.default_collate([np.array(["a"], dtype=object)]))]


def loader_lengths_and_drop_last(T):
    """DataLoader's len with and without drop_last, over a sampler, with a
    batch_sampler; an IterableDataset with __len__ giving len(loader) and
    batches; Subset of a ConcatDataset indexing through both; sampler and
    shuffle together refused."""
    D = T.utils.data
    ds = D.TensorDataset(T.arange(10.0), T.arange(10) % 3)

    class Counted(D.IterableDataset):
        def __iter__(self):
            return iter(range(5))

        def __len__(self):
            return 5

    cat = D.ConcatDataset([D.TensorDataset(T.arange(3.0)), D.TensorDataset(T.arange(10.0, 14.0))])
    sub = D.Subset(cat, [0, 4, 6, -1])
    it = D.DataLoader(Counted(), batch_size=2)
    return [len(D.DataLoader(ds, batch_size=4)), len(D.DataLoader(ds, batch_size=4, drop_last=True)),
            [b[0].tolist() for b in D.DataLoader(ds, batch_size=4, drop_last=True)],
            len(D.DataLoader(ds, batch_sampler=D.BatchSampler(range(10), 3, False))),
            len(it), [b.tolist() for b in it], [sub[i][0].item() for i in range(4)], len(sub),
            _raised(lambda: D.DataLoader(ds, sampler=range(10), shuffle=True)),
            _raised(lambda: D.DataLoader(ds, batch_size=None, drop_last=True))]


def random_split_generators_and_subsets(T):
    """random_split with integer lengths and a seeded generator (a
    partition whatever the stream), with fractions that do not divide the
    length (the remainder spread round-robin), Subset's indices; lengths
    not summing to the dataset refused."""
    D = T.utils.data
    data = list(range(10))
    g = T.Generator().manual_seed(1)
    parts = D.random_split(data, [3, 3, 4], generator=g)
    fr = D.random_split(range(11), [0.3, 0.3, 0.4], generator=T.Generator().manual_seed(2))
    return [[len(p) for p in parts], sorted(i for p in parts for i in p.indices),
            [len(p) for p in fr], type(parts[0]).__name__,
            _raised(lambda: D.random_split(data, [3, 3])),
            _raised(lambda: D.random_split(data, [0.5, 0.6]))]


# ---- initialisers (what does not depend on the stream) ------------------------------------------

def init_bounds_and_gains(T):
    """Initialisers judged by what PyTorch's stream does not decide:
    xavier_uniform_ and kaiming_uniform_ stay within their bounds (fan_out,
    leaky_relu's a), trunc_normal_ within [a, b], sparse_ zeroes the given
    fraction of each column, orthogonal_ with a gain gives gain^2 I,
    calculate_gain for each nonlinearity and the fan computation."""
    init = T.nn.init
    T.manual_seed(0)
    w = T.empty(30, 20)
    init.xavier_uniform_(w, gain=2.0)
    xb = 2.0 * (6 / 50) ** 0.5
    k = T.empty(10, 4, 3, 3)
    init.kaiming_uniform_(k, a=0.2, mode="fan_out", nonlinearity="leaky_relu")
    kb = init.calculate_gain("leaky_relu", 0.2) * (3 / 90) ** 0.5
    t = init.trunc_normal_(T.empty(1000), mean=1.0, std=2.0, a=-0.5, b=1.5)
    s = init.sparse_(T.empty(10, 6), sparsity=0.3, std=0.1)
    o = init.orthogonal_(T.empty(3, 5), gain=1.5)
    return [bool(w.abs().max() <= xb), bool(k.abs().max() <= kb + 1e-6),
            bool(t.min() >= -0.5), bool(t.max() <= 1.5), (s == 0).sum(0),
            bool(T.allclose(o @ o.T, 2.25 * T.eye(3), atol=1e-5)),
            [init.calculate_gain(n) for n in ("linear", "conv2d", "sigmoid", "tanh", "relu", "selu")],
            init.calculate_gain("leaky_relu"), init._calculate_fan_in_and_fan_out(k),
            _raised(lambda: init.calculate_gain("swish")),
            _raised(lambda: init.kaiming_uniform_(T.empty(3, 3), mode="fan_avg"))]


def init_deterministic_values(T):
    """The initialisers that draw nothing: constant_, ones_, zeros_, eye_
    on a non-square matrix, dirac_ with groups, and uniform_/normal_ with
    a generator giving the same tensor twice (one stream, two draws)."""
    init = T.nn.init
    d = init.dirac_(T.empty(4, 2, 3), groups=2)
    g1 = T.Generator().manual_seed(5)
    g2 = T.Generator().manual_seed(5)
    a = init.uniform_(T.empty(4), -1, 1, generator=g1)
    b = init.uniform_(T.empty(4), -1, 1, generator=g2)
    return [init.constant_(T.empty(2, 2), 0.25), init.ones_(T.empty(3)), init.eye_(T.empty(2, 4)),
            d, bool(T.equal(a, b)), bool(a.abs().max() <= 1),
            _raised(lambda: init.eye_(T.empty(2, 2, 2))), _raised(lambda: init.dirac_(T.empty(4, 3, 2), groups=3))]


# ---- clipping ------------------------------------------------------------------------------------

def clip_grad_norms_and_errors(T):
    """clip_grad_norm_ with norm types 1, 3 and 'inf' (string), foreach,
    the total norm it returns, error_if_nonfinite's message, clip_grad_value_
    on a generator of parameters, and parameters without gradients
    skipped."""
    U = T.nn.utils

    def params():
        ps = [T.tensor([3.0, -4.0], requires_grad=True), T.tensor([[1.0, 2.0]], requires_grad=True),
              T.tensor([5.0], requires_grad=True)]
        ps[0].grad = T.tensor([3.0, -4.0])
        ps[1].grad = T.tensor([[1.0, 2.0]])
        return ps
    out = []
    for nt in (1, 3.0, "inf"):
        ps = params()
        out.append([U.clip_grad_norm_(ps, 2.0, norm_type=nt, foreach=True), ps[0].grad, ps[2].grad])
    bad = params()
    bad[1].grad[0, 0] = float("nan")
    out.append(_raised(lambda: U.clip_grad_norm_(bad, 1.0, error_if_nonfinite=True)))
    ps = params()
    U.clip_grad_value_((p for p in ps), 1.5)
    out.append([ps[0].grad, ps[1].grad])
    return out


# ---- losses --------------------------------------------------------------------------------------

def rare_loss_arguments(T):
    """MultiMarginLoss with p=2, a margin and class weights,
    MultiLabelSoftMarginLoss with weights, HuberLoss with a small delta,
    SoftMarginLoss, PoissonNLLLoss with full=True on counts and
    log_input=False, each with reduction 'none' and 'sum'; a few Adam
    steps of a classifier through MultiMarginLoss."""
    nn = T.nn
    x = _t(T, 4, 3, seed=116)
    y = _long(T, [0, 2, 1, 2])
    w = T.tensor([1.0, 2.0, 0.5])
    mm = nn.MultiMarginLoss(p=2, margin=0.7, weight=w, reduction="none")
    ml = nn.MultiLabelSoftMarginLoss(weight=w, reduction="sum")
    lab = T.tensor([[1.0, 0.0, 1.0], [0.0, 0.0, 1.0], [1.0, 1.0, 0.0], [0.0, 1.0, 0.0]])
    hub = nn.HuberLoss(delta=0.3, reduction="none")
    sm = nn.SoftMarginLoss(reduction="sum")
    pn = nn.PoissonNLLLoss(log_input=False, full=True, reduction="none")
    lin = _init(T, nn.Linear(3, 3), 117)
    opt = T.optim.Adam(lin.parameters(), lr=0.05)
    losses = [_step(opt, nn.MultiMarginLoss(p=2, weight=w)(lin(x), y)) for _ in range(3)]
    return [mm(x, y), ml(x, lab), hub(x, lab), sm(x, lab * 2 - 1),
            pn(x.abs() + 0.5, T.tensor([[0.0, 1.0, 3.0]] * 4)), losses,
            _raised(lambda: nn.MultiMarginLoss(p=3)(x, y))]


def loss_reductions_grads(T):
    """Gradients through losses with reduction='sum' against 'mean' times
    the count, for L1, smooth L1 with beta, BCE with weights, cosine
    embedding and margin ranking; KLDivLoss's batchmean against sum/N."""
    nn = T.nn
    F = nn.functional
    a = _t(T, 3, 4, seed=118).requires_grad_()
    b = _t(T, 3, 4, seed=119)
    out = []
    for fn in (lambda r: F.l1_loss(a, b, reduction=r),
               lambda r: F.smooth_l1_loss(a, b, beta=0.4, reduction=r),
               lambda r: F.binary_cross_entropy(a.sigmoid(), (b > 0).float(),
                                                weight=T.tensor([1.0, 2.0, 0.5, 1.0]), reduction=r),
               lambda r: F.cosine_embedding_loss(a, b, T.tensor([1.0, -1.0, 1.0]), margin=0.2,
                                                 reduction=r),
               lambda r: F.margin_ranking_loss(a[:, 0], b[:, 0], T.tensor([1.0, -1.0, 1.0]),
                                               margin=0.1, reduction=r)):
        gs = T.autograd.grad(fn("sum"), a)[0]
        gm = T.autograd.grad(fn("mean"), a)[0]
        out.append([fn("sum").item(), bool(gs.abs().sum() > 0), gm])
    lp = a.log_softmax(1)
    q = b.softmax(1)
    out.append([F.kl_div(lp, q, reduction="batchmean").item(), (F.kl_div(lp, q, reduction="sum") / 3).item()])
    return out


# ---- messages for bad input ------------------------------------------------------------------------

def new_layer_input_refusals(T):
    """Bad inputs to the layers of this round, in PyTorch's words:
    PixelUnshuffle of a size the factor does not divide, ChannelShuffle
    of channels the groups do not divide, Unflatten of a wrong size, GLU
    of an odd dim, RMSNorm of a wrong trailing shape, LPPool1d of a 4-d
    input, interpolate with both size and scale_factor and with a mode for
    another rank, reflect padding with a value or wider than the input;
    negative pads cropping a dim to nothing.  An unknown interpolation
    mode is left out: PyTorch 2.15's message lists its 'lanczos' mode,
    which torchlike does not have.  A
    negative pad past the input's size is left out: PyTorch 2.15 answers
    in narrow()'s words, where earlier versions (and torchlike) name the
    input size and the paddings; and so is a non-constant mode padding
    fewer dims than the input's rank allows, which torchlike pads
    (docs/nn.md)."""
    nn = T.nn
    F = nn.functional
    x = T.ones(1, 4, 3, 3)
    return [_raised(lambda: nn.PixelUnshuffle(2)(x)), _raised(lambda: nn.ChannelShuffle(3)(x)),
            _raised(lambda: nn.Unflatten(1, (3, 2))(x)), _raised(lambda: nn.GLU(2)(x)),
            _raised(lambda: nn.RMSNorm(4)(x)), _raised(lambda: nn.LPPool1d(2, 2)(x[None])),
            _raised(lambda: F.interpolate(x, size=(4, 4), scale_factor=2.0)),
            _raised(lambda: F.interpolate(x, mode="linear", scale_factor=2.0)),
            list(F.pad(x, (-3, 0)).shape), list(F.pad(x, (-1, -2, 1, -1)).shape),
            _raised(lambda: F.pad(x, (1, 1), mode="reflect", value=1.0)),
            _raised(lambda: F.pad(x, (3, 3, 0, 0), mode="reflect"))]


def new_module_argument_refusals(T):
    """Bad constructor arguments, in PyTorch's words: GroupNorm groups not
    dividing the channels, a TransformerEncoderLayer activation by an
    unknown name, MultiheadAttention heads not dividing the width,
    Embedding's padding_idx out of range, LSTM proj_size not smaller than
    hidden_size, a dropout above one in RNNs, Fold without output_size,
    Conv2d with zero groups, ConstantPad2d with three amounts.  An unknown
    padding_mode is left out: PyTorch's message prints a set of strings,
    whose order follows string hashing."""
    nn = T.nn
    return [_raised(lambda: nn.GroupNorm(3, 4)),
            _raised(lambda: nn.TransformerEncoderLayer(4, 2, activation="swish")),
            _raised(lambda: nn.MultiheadAttention(5, 2)),
            _raised(lambda: nn.Embedding(4, 2, padding_idx=4)),
            _raised(lambda: nn.Embedding(4, 2, padding_idx=-5)),
            _raised(lambda: nn.LSTM(2, 3, proj_size=3)),
            _raised(lambda: nn.LSTM(2, 3, proj_size=-1)),
            _raised(lambda: nn.GRU(2, 3, dropout=1.5)),
            _raised(lambda: nn.RNN(2, 3, nonlinearity="gelu")),
            _raised(lambda: nn.Fold(kernel_size=2)),
            _raised(lambda: nn.Conv2d(4, 4, 3, groups=0)),
            _raised(lambda: nn.ConstantPad2d((1, 2, 3), 0.0))]


# ---- whole programs ------------------------------------------------------------------------------

def bias_free_transformer_lm(T):
    """A small causal language model: embedding with padding_idx, a
    bias-free norm-first encoder layer stack with is_causal, RMSNorm
    before a tied output head, trained by AdamW with a LinearLR warmup and
    label smoothing ignoring padding; the losses and the tied gradient."""
    nn = T.nn
    F = nn.functional

    class LM(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(12, 8, padding_idx=0)
            layer = nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0, bias=False,
                                               norm_first=True, batch_first=True, activation="gelu")
            self.enc = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
            self.norm = nn.RMSNorm(8)
            self.head = nn.Linear(8, 12, bias=False)
            self.head.weight = self.emb.weight

        def forward(self, tok):
            mask = nn.Transformer.generate_square_subsequent_mask(tok.shape[1])
            return self.head(self.norm(self.enc(self.emb(tok), mask=mask, is_causal=True)))

    lm = _init(T, LM(), 120)
    tok = _long(T, [[1, 5, 7, 3, 2, 0], [4, 4, 9, 11, 0, 0]])
    opt = T.optim.AdamW(lm.parameters(), lr=0.01, weight_decay=0.05)
    sched = T.optim.lr_scheduler.LinearLR(opt, start_factor=0.25, total_iters=3)
    losses = []
    for _ in range(4):
        logits = lm(tok[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, 12), tok[:, 1:].reshape(-1), ignore_index=0,
                               label_smoothing=0.1)
        losses.append(_step(opt, loss))
        sched.step()
    return [losses, lm.head.weight is lm.emb.weight, lm.emb.weight[0], len(list(lm.parameters())),
            sched.get_last_lr()]


def upsampling_decoder_with_lp_pool(T):
    """An encoder-decoder over images: grouped dilated convs with reflect
    padding, LPPool2d down, bilinear Upsample up (align_corners=True),
    InstanceNorm with affine, trained by NAdam; the losses and the output's
    shape."""
    nn = T.nn
    model = nn.Sequential(
        nn.Conv2d(2, 4, 3, padding=2, dilation=2, padding_mode="reflect"),
        nn.InstanceNorm2d(4, affine=True), nn.Softplus(beta=2.0),
        nn.LPPool2d(2, 2),
        nn.Conv2d(4, 4, 3, padding=1, groups=2, padding_mode="replicate"), nn.SiLU(),
        nn.Upsample(scale_factor=2, mode="bilinear", align_corners=True),
        nn.Conv2d(4, 2, 1))
    _init(T, model, 121)
    x = _t(T, 2, 2, 6, 6, seed=122)
    opt = T.optim.NAdam(model.parameters(), lr=0.01)
    losses = _fit(T, model, opt, x, x, steps=3)
    return [losses, list(model(x).shape), model[1].weight]


def gru_tagger_with_embedding_options(T):
    """A bidirectional GRU tagger over embeddings with max_norm, trained
    by Adagrad with initial_accumulator_value over a padded batch with
    cross-entropy ignoring padding; sequence-wise masks; clip_grad_norm_
    with norm type 2 each step; the losses and the total norms."""
    nn = T.nn
    F = nn.functional
    emb = _init(T, nn.Embedding(10, 4, padding_idx=0, max_norm=1.0), 123)
    gru = _init(T, nn.GRU(4, 3, batch_first=True, bidirectional=True), 124)
    head = _init(T, nn.Linear(6, 3), 125)
    tok = _long(T, [[3, 4, 5, 0], [6, 7, 0, 0], [1, 2, 8, 9]])
    tags = _long(T, [[0, 1, 2, -100], [1, 1, -100, -100], [2, 0, 1, 0]])
    params = [*emb.parameters(), *gru.parameters(), *head.parameters()]
    opt = T.optim.Adagrad(params, lr=0.1, initial_accumulator_value=0.1)
    losses, norms = [], []
    for _ in range(3):
        out, _ = gru(emb(tok))
        loss = F.cross_entropy(head(out).reshape(-1, 3), tags.reshape(-1))
        opt.zero_grad()
        loss.backward()
        norms.append(nn.utils.clip_grad_norm_(params, 0.5).item())
        opt.step()
        losses.append(loss.item())
    return [losses, norms, emb.weight.norm(dim=1)]


def siamese_with_plateau_and_cosine(T):
    """A siamese encoder trained with CosineEmbeddingLoss, SGD with
    dampened momentum and ReduceLROnPlateau (abs mode) on the epoch's loss;
    the lr and loss traces."""
    nn = T.nn
    enc = _mlp(T, 126, (4, 6, 3))
    a = _t(T, 8, 4, seed=127)
    b = a + _t(T, 8, 4, seed=128, scale=0.3)
    b[4:] = _t(T, 4, 4, seed=129)
    y = T.tensor([1.0] * 4 + [-1.0] * 4)
    opt = T.optim.SGD(enc.parameters(), lr=0.2, momentum=0.8, dampening=0.5)
    sched = T.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=0, threshold=0.01,
                                                   threshold_mode="abs", factor=0.3)
    loss_fn = nn.CosineEmbeddingLoss(margin=0.1)
    trace = []
    for _ in range(5):
        loss = _step(opt, loss_fn(enc(a), enc(b), y))
        sched.step(loss)
        trace.append([loss, opt.param_groups[0]["lr"]])
    return trace


def resumed_training_bytesio_with_scheduler(T):
    """A model, its NAdam optimizer and a CosineAnnealingWarmRestarts
    scheduler saved to BytesIO after two steps, loaded into fresh objects
    and trained on: the same losses as an uninterrupted run."""
    x = _t(T, 6, 4, seed=130)
    y = _t(T, 6, 2, seed=131)

    def make():
        model = _mlp(T, 132)
        opt = T.optim.NAdam(model.parameters(), lr=0.05, momentum_decay=0.01)
        sched = T.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=2, eta_min=0.001)
        return model, opt, sched
    m1, o1, s1 = make()
    whole = _fit(T, m1, o1, x, y, steps=5, sched=s1)
    m2, o2, s2 = make()
    _fit(T, m2, o2, x, y, steps=2, sched=s2)
    buf = io.BytesIO()
    T.save({"m": m2.state_dict(), "o": o2.state_dict(), "s": s2.state_dict()}, buf)
    buf.seek(0)
    ck = T.load(buf)
    m3, o3, s3 = make()
    m3.load_state_dict(ck["m"])
    o3.load_state_dict(ck["o"])
    s3.load_state_dict(ck["s"])
    rest = _fit(T, m3, o3, x, y, steps=3, sched=s3)
    return [whole, rest, bool(np.allclose(whole[2:], rest, rtol=1e-5)), s3.get_last_lr(), s3.T_cur]


def func_per_sample_grads_conv(T):
    """Per-sample gradients of a small conv net with torch.func: vmap over
    grad of functional_call, checked against a loop of ordinary backward
    passes, then a clipped-and-averaged update (DP-SGD without noise)."""
    nn = T.nn
    fn = T.func
    model = _init(T, nn.Sequential(nn.Conv1d(1, 2, 3), nn.Tanh(), nn.Flatten(), nn.Linear(16, 1)), 133)
    params = {k: v.detach() for k, v in model.named_parameters()}
    x = _t(T, 4, 1, 10, seed=134)
    y = _t(T, 4, 1, seed=135)

    def loss(p, xi, yi):
        return nn.functional.mse_loss(fn.functional_call(model, p, (xi[None],)), yi[None])
    g = fn.vmap(fn.grad(loss), in_dims=(None, 0, 0))(params, x, y)
    loop = []
    for i in range(4):
        model.zero_grad()
        nn.functional.mse_loss(model(x[i:i + 1]), y[i:i + 1]).backward()
        loop.append(model[0].weight.grad.clone())
    norms = T.stack([T.cat([g[k][i].flatten() for k in g]).norm() for i in range(4)])
    scale = (1.0 / norms).clamp(max=1.0)
    upd = {k: (g[k] * scale.view(-1, *[1] * (g[k].dim() - 1))).mean(0) for k in g}
    return [bool(T.allclose(g["0.weight"], T.stack(loop), atol=1e-6)), norms, upd["3.bias"],
            list(g["3.weight"].shape)]


def loader_training_with_weighted_sampler(T):
    """A classifier trained through a DataLoader whose sampler is a
    BatchSampler over a SequentialSampler, a custom collate_fn that pads
    variable-length sequences and returns lengths, and a
    WeightedRandomSampler's length; the losses (no stream involved)."""
    nn = T.nn
    D = T.utils.data
    R = nn.utils.rnn
    seqs = [_t(T, n, 2, seed=140 + n) for n in (3, 5, 2, 4, 1, 3)]
    labels = [0, 1, 0, 1, 1, 0]

    class Seqs(D.Dataset):
        def __len__(self):
            return 6

        def __getitem__(self, i):
            return seqs[i], labels[i]

    def collate(batch):
        xs, ys = zip(*batch)
        return R.pad_sequence(list(xs), batch_first=True), T.tensor([len(s) for s in xs]), T.tensor(ys)

    loader = D.DataLoader(D.TensorDataset(T.arange(6.0)),
                          sampler=D.BatchSampler(D.SequentialSampler(range(6)), 4, False),
                          batch_size=None)
    loader2 = D.DataLoader(Seqs(), batch_size=2, collate_fn=collate)
    gru = _init(T, nn.GRU(2, 3, batch_first=True), 146)
    head = _init(T, nn.Linear(3, 2), 147)
    opt = T.optim.Adam([*gru.parameters(), *head.parameters()], lr=0.02)
    losses = []
    for xb, lb, yb in loader2:
        packed = R.pack_padded_sequence(xb, lb, batch_first=True, enforce_sorted=False)
        _, h = gru(packed)
        losses.append(_step(opt, nn.functional.cross_entropy(head(h[0]), yb)))
    ws = D.WeightedRandomSampler([1.0, 0.0, 2.0], num_samples=5)
    return [losses, [b[0].tolist() for b in loader], len(ws), len(loader2)]


def channel_shuffle_net_training(T):
    """A ShuffleNet-like block: grouped 1x1 conv, ChannelShuffle, a
    depthwise 3x3 conv with circular padding, BatchNorm2d, a residual;
    trained with RAdam and a PolynomialLR; eval output after training."""
    nn = T.nn

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.g1 = nn.Conv2d(6, 6, 1, groups=3, bias=False)
            self.shuffle = nn.ChannelShuffle(3)
            self.dw = nn.Conv2d(6, 6, 3, padding=1, groups=6, padding_mode="circular")
            self.bn = nn.BatchNorm2d(6)
            self.out = nn.Linear(6, 2)

        def forward(self, x):
            h = self.bn(self.dw(self.shuffle(self.g1(x)))).relu() + x
            return self.out(h.mean((2, 3)))

    m = _init(T, Block(), 148)
    x = _t(T, 4, 6, 5, 5, seed=149)
    y = _t(T, 4, 2, seed=150)
    opt = T.optim.RAdam(m.parameters(), lr=0.01)
    sched = T.optim.lr_scheduler.PolynomialLR(opt, total_iters=3, power=1.5)
    losses = _fit(T, m, opt, x, y, steps=4, sched=sched)
    m.eval()
    return [losses, m(x), m.bn.running_mean, sched.get_last_lr()]


# ---- a second pass: containers, transforms and corner cases --------------------------------------

def container_editing_and_indexing(T):
    """Sequential's slicing, insert, append, extend, pop, del and +;
    ModuleList insert and extend (a negative index is left out: PyTorch's
    insert reads a key '-1' and raises KeyError); ModuleDict update
    from pairs, pop and keys order; ParameterList turning plain tensors
    into Parameters; ParameterDict's setdefault and its repr; the edited
    model still trains a step."""
    nn = T.nn
    seq = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 2))
    seq.insert(1, nn.Tanh())
    seq.append(nn.Identity())
    seq.extend([nn.Sigmoid()])
    popped = seq.pop(4)
    del seq[-1]
    both = seq[:2] + nn.Sequential(nn.Linear(3, 1))
    ml = nn.ModuleList([nn.ReLU(), nn.Tanh()])
    ml.insert(1, nn.GELU())
    ml.extend([nn.SiLU()])
    md = nn.ModuleDict({"b": nn.ReLU()})
    md.update([("a", nn.Tanh()), ("c", nn.GELU())])
    md.pop("b")
    pl = nn.ParameterList([T.ones(2), nn.Parameter(T.zeros(1))])
    pd = nn.ParameterDict({"w": T.ones(2)})
    pd.setdefault("v", nn.Parameter(T.zeros(3)))
    _init(T, both, 151)
    opt = T.optim.SGD(both.parameters(), lr=0.1)
    loss = _step(opt, both(_t(T, 4, 2, seed=152)).pow(2).mean())
    return [[type(m).__name__ for m in seq], type(popped).__name__, [type(m).__name__ for m in both],
            [type(m).__name__ for m in ml], list(md.keys()), [type(p).__name__ for p in pl],
            pl[0].requires_grad, sorted(pd.keys()), type(pd["w"]).__name__, loss,
            type(seq[1:3]).__name__, _raised(lambda: seq[10]), _raised(lambda: ml[5])]


def func_transforms_with_aux(T):
    """torch.func.grad_and_value with has_aux, vjp with has_aux, jvp with
    has_aux, jacrev over two argnums with aux, and vmap of a function
    returning a tuple with out_dims per output."""
    fn = T.func

    def f(x, y):
        s = (x.sin() * y).sum()
        return s, {"norm": x.norm()}
    x = T.tensor([0.3, -0.7, 1.2])
    y = T.tensor([1.0, 2.0, 0.5])
    (gx, gy), (val, aux) = fn.grad_and_value(f, argnums=(0, 1), has_aux=True)(x, y)
    out, vjp_fn, aux2 = fn.vjp(lambda t: (t.exp(), t.sum()), x, has_aux=True)
    (ct,) = vjp_fn(T.ones(3))
    po, tan, aux3 = fn.jvp(lambda t: (t * t, t.max()), (x,), (y,), has_aux=True)
    jac, aux4 = fn.jacrev(lambda a, b: (a * b, a.sum()), argnums=(0, 1), has_aux=True)(x, y)
    m, s = fn.vmap(lambda r: (r * 2, r.sum()), out_dims=(1, 0))(T.arange(6.0).view(2, 3))
    return [gx, gy, val, aux["norm"], out, ct, aux2, po, tan, aux3, jac[0], jac[1], aux4, m, s]


def function_with_vmap_rule(T):
    """An autograd.Function with generate_vmap_rule=True under vmap and
    under grad (setup_context form), and one with a hand-written vmap
    staticmethod; both against the plain computation."""
    fn = T.func

    class Cube(T.autograd.Function):
        generate_vmap_rule = True

        @staticmethod
        def forward(x):
            return x ** 3

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(inputs[0])

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 3 * x ** 2 * g

    class Twice(T.autograd.Function):
        @staticmethod
        def forward(x):
            return x * 2

        @staticmethod
        def setup_context(ctx, inputs, output):
            pass

        @staticmethod
        def backward(ctx, g):
            return g * 2

        @staticmethod
        def vmap(info, in_dims, x):
            return x * 2, in_dims[0]

    x = T.tensor([[1.0, -2.0], [0.5, 3.0]])
    return [fn.vmap(Cube.apply)(x), fn.vmap(fn.grad(lambda t: Cube.apply(t).sum()))(x),
            fn.vmap(Twice.apply)(x), fn.vmap(fn.grad(lambda t: Twice.apply(t).sum()))(x),
            fn.vmap(Twice.apply, in_dims=1)(x)]


def nll_and_cross_entropy_kd_corners(T):
    """NLLLoss over (N, C, d1, d2) with class weights and ignore_index where
    every target is ignored (mean is nan, sum 0), CrossEntropyLoss with
    probability targets on K-d inputs with weights and label smoothing in
    each reduction, BCEWithLogitsLoss with pos_weight broadcast over the
    class dim of a K-d input; their gradients."""
    nn = T.nn
    F = nn.functional
    x = _t(T, 2, 3, 2, 2, seed=153).requires_grad_()
    tgt = _long(T, [[[0, 2], [1, -1]], [[2, 2], [-1, 0]]])
    w = T.tensor([0.5, 1.0, 2.0])
    lp = x.log_softmax(1)
    ign = T.full((2, 2, 2), -1, dtype=T.int64)
    probs = _t(T, 2, 3, 2, 2, seed=154).softmax(1)
    ce = [F.cross_entropy(x, probs, weight=w, label_smoothing=0.2, reduction=r) for r in ("mean", "sum")]
    ce_none = F.cross_entropy(x, probs, weight=w, label_smoothing=0.2, reduction="none")
    y = (_t(T, 2, 3, 2, 2, seed=155) > 0).float()
    bce = F.binary_cross_entropy_with_logits(x, y, pos_weight=T.tensor([1.0, 3.0, 0.5]).view(3, 1, 1))
    total = F.nll_loss(lp, tgt, weight=w, ignore_index=-1) + ce[0] + bce
    total.backward()
    return [F.nll_loss(lp, tgt, weight=w, ignore_index=-1),
            F.nll_loss(lp, ign, weight=w, ignore_index=-1),
            F.nll_loss(lp, ign, ignore_index=-1, reduction="sum"), ce, ce_none, bce, x.grad[0, :, 0, 0],
            F.cross_entropy(x, tgt, weight=w, ignore_index=-1, label_smoothing=0.3)]


def dataset_getitems_batched_fetch(T):
    """A map-style dataset with __getitems__ (the DataLoader fetches each
    batch with one call), its calls recorded; a Subset forwarding to it;
    collate_fn given the list it returns; StackDataset of a dict."""
    D = T.utils.data
    calls = []

    class Batched(D.Dataset):
        def __len__(self):
            return 7

        def __getitem__(self, i):
            calls.append(("item", i))
            return T.tensor([float(i)])

        def __getitems__(self, idx):
            calls.append(("items", list(idx)))
            return [T.tensor([float(i) * 10]) for i in idx]

    ds = Batched()
    a = [b.flatten().tolist() for b in D.DataLoader(ds, batch_size=3)]
    sub = D.Subset(ds, [6, 5, 4])
    b = [b.flatten().tolist() for b in D.DataLoader(sub, batch_size=2)]
    st = D.StackDataset(x=D.TensorDataset(T.arange(7.0)), y=ds)
    c = D.default_collate([st[0], st[2]])
    return [a, b, calls, sorted(c), c["y"], len(st)]


def samplers_weighted_refusals(T):
    """WeightedRandomSampler without replacement drawing more than it has,
    with float64 tensor weights, with a 2-d weight list; SubsetRandomSampler
    of a tensor of indices; RandomSampler's num_samples with replacement
    off beyond the length (it cycles), its length."""
    D = T.utils.data
    g = T.Generator().manual_seed(3)
    s = D.RandomSampler(range(4), num_samples=10, generator=g)
    drawn = list(s)
    w = D.WeightedRandomSampler(T.tensor([0.2, 0.0, 0.8], dtype=T.float64), 4, generator=g)
    wd = list(w)
    return [len(s), sorted(drawn[:4]), sorted(drawn[4:8]), len(drawn), len(wd), 1 not in wd,
            sorted(D.SubsetRandomSampler(T.tensor([4, 2, 9]), generator=g)),
            _raised(lambda: list(D.WeightedRandomSampler([0.5, 0.5], 3, replacement=False))),
            _raised(lambda: D.WeightedRandomSampler([[0.5, 0.5]], 1)),
            _raised(lambda: D.WeightedRandomSampler([0.5, 0.5], 1, replacement="yes"))]


def scheduler_groups_and_warnings(T):
    """A scheduler's base_lrs with a group added after it was made (not
    followed), get_lr() called outside step (PyTorch's warning),
    LambdaLR saving a callable object's state but not a function's, and
    an Adam with tensor betas and lr trained a step."""
    import warnings
    S = T.optim.lr_scheduler
    a = T.zeros(1, requires_grad=True)
    b = T.zeros(1, requires_grad=True)
    opt = T.optim.SGD([a], lr=0.1)
    sch = S.StepLR(opt, 1, gamma=0.5)
    opt.add_param_group({"params": [b], "lr": 0.3})
    opt.step()
    err = _raised(lambda: sch.step())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sch.get_lr()

    class Decay:
        def __init__(self):
            self.rate = 0.9

        def __call__(self, e):
            return self.rate ** e
    o2 = T.optim.SGD([a], lr=1.0)
    lam = S.LambdaLR(o2, Decay())
    sd = lam.state_dict()
    o3 = T.optim.SGD([a], lr=1.0)
    lam2 = S.LambdaLR(o3, lambda e: 1.0)
    a.grad = T.ones(1)
    adam = T.optim.Adam([a], lr=T.tensor(0.1), betas=(T.tensor(0.8), T.tensor(0.9)))
    adam.step()
    return [sch.base_lrs, err, [g["lr"] for g in opt.param_groups],
            [str(w.message) for w in caught], sd["lr_lambdas"], lam2.state_dict()["lr_lambdas"], a]


def runtime_shape_refusals_more(T):
    """Messages for bad inputs at call time, in PyTorch's words:
    BatchNorm1d training on one value per channel, GRU given the wrong
    input size, LSTM given an h0 of the wrong batch, a Conv2d given a
    float64 input with float32 weights, Embedding given float indices,
    cross_entropy with targets of another batch size, PixelShuffle of
    channels the square does not divide, Linear of a 0-d tensor.  Shapes
    that do not broadcast are left out: torchlike raises its BroadcastError,
    a RuntimeError and a ValueError at once (docs/elementwise.md)."""
    nn = T.nn
    F = nn.functional
    return [_raised(lambda: nn.BatchNorm1d(3)(T.ones(1, 3))),
            _raised(lambda: nn.GRU(3, 2)(T.ones(4, 1, 5))),
            _raised(lambda: nn.LSTM(3, 2)(T.ones(4, 2, 3), (T.zeros(1, 3, 2), T.zeros(1, 3, 2)))),
            _raised(lambda: nn.Conv2d(1, 1, 1)(T.ones(1, 1, 2, 2, dtype=T.float64))),
            _raised(lambda: nn.Embedding(4, 2)(T.tensor([1.0]))),
            _raised(lambda: F.cross_entropy(T.ones(3, 4), T.tensor([0, 1]))),
            _raised(lambda: nn.PixelShuffle(2)(T.ones(1, 6, 2, 2))),
            _raised(lambda: nn.Linear(3, 2)(T.tensor(1.0))),
            _raised(lambda: nn.LayerNorm(4)(T.ones(2, 3))),
            _raised(lambda: F.embedding(T.tensor([4]), T.ones(4, 2))),
            _raised(lambda: nn.Bilinear(2, 3, 4)(T.ones(5, 2), T.ones(4, 3)))]


def functional_call_strict_and_ties(T):
    """torch.func.functional_call with strict=True refusing missing and
    unexpected keys (PyTorch's words), tie_weights replacing a tied
    parameter through either name, tie_weights=False leaving the tie, and
    a buffer passed as a tensor."""
    nn = T.nn
    fn = T.func

    class Tied(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Linear(2, 2, bias=False)
            self.b = nn.Linear(2, 2, bias=False)
            self.b.weight = self.a.weight
            self.register_buffer("shift", T.ones(2))

        def forward(self, x):
            return self.b(self.a(x)) + self.shift

    m = _init(T, Tied(), 156)
    x = _t(T, 1, 2, seed=157)
    eye = T.eye(2)
    return [fn.functional_call(m, {"a.weight": eye}, (x,)),
            fn.functional_call(m, {"b.weight": eye * 2}, (x,)),
            fn.functional_call(m, {"a.weight": eye}, (x,), tie_weights=False),
            fn.functional_call(m, {"shift": T.zeros(2)}, (x,)),
            _raised(lambda: fn.functional_call(m, {"a.weight": eye}, (x,), strict=True)),
            _raised(lambda: fn.functional_call(m, {"a.weight": eye, "shift": T.zeros(2), "c": eye},
                                               (x,), strict=True)),
            _raised(lambda: fn.functional_call(m, {"a.weight": eye, "b.weight": eye * 2}, (x,)))]


def parametrize_unsafe_and_right_inverse(T):
    """register_parametrization with unsafe=True changing the shape, with a
    right_inverse that sets the original from an assignment, the refusal of
    a shape change without unsafe, and assignment to a parametrized weight
    going through right_inverse."""
    nn = T.nn
    P = nn.utils.parametrize

    class Double(nn.Module):
        def forward(self, w):
            return T.cat([w, w], 0)

    class Pos(nn.Module):
        def forward(self, w):
            return w.exp()

        def right_inverse(self, w):
            return w.log()

    lin = _init(T, nn.Linear(2, 3), 158)
    P.register_parametrization(lin, "weight", Double(), unsafe=True)
    shape = list(lin.weight.shape)
    err = _raised(lambda: P.register_parametrization(nn.Linear(2, 3), "weight", Double()))
    pos = nn.Linear(2, 2)
    P.register_parametrization(pos, "weight", Pos())
    with T.no_grad():
        pos.weight = T.tensor([[1.0, 2.0], [3.0, 4.0]])
    return [shape, err, pos.parametrizations.weight.original, pos.weight,
            _raised(lambda: setattr(lin, "weight", T.ones(6, 2)))]


def averaged_model_custom_avg(T):
    """AveragedModel with a custom avg_fn (a running max of the weights),
    with get_ema_multi_avg_fn over buffers (use_buffers=True), n_averaged,
    and update_parameters skipping nothing on the first call."""
    nn = T.nn
    swa = T.optim.swa_utils
    model = _init(T, nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2)), 159)
    mx = swa.AveragedModel(model, avg_fn=lambda avg, new, n: T.maximum(avg, new))
    ema = swa.AveragedModel(model, multi_avg_fn=swa.get_ema_multi_avg_fn(0.5), use_buffers=True)
    opt = T.optim.SGD(model.parameters(), lr=0.2)
    x = _t(T, 4, 2, seed=160)
    for _ in range(3):
        _step(opt, model(x).pow(2).mean())
        mx.update_parameters(model)
        ema.update_parameters(model)
    return [mx.module[0].weight, int(mx.n_averaged), ema.module[0].bias, ema.module[1].running_mean,
            int(ema.n_averaged), model[1].running_mean]


# ---- a third pass: higher derivatives and forward mode through layers ---------------------------

def _layer_ops(T):
    """Functional layer calls of one (2, 3, 4, 4) float32 input, each to a
    tensor, for the derivative programs below.  Bicubic scales by 2, whose
    weights are exact in float32: at 1.5 PyTorch's float32 weights round
    (its double backward is 7e-5 off float64's, torchlike's 7e-8)."""
    F = T.nn.functional
    w = _t(T, 3, 1, 3, 3, seed=161)
    g = _t(T, 3, seed=162) + 1.5
    b = _t(T, 3, seed=163)
    ct = _t(T, 3, 2, 2, 2, seed=164)
    return [
        ("group_norm", lambda x: F.group_norm(x, 3, g, b)),
        ("instance_norm", lambda x: F.instance_norm(x, weight=g, bias=b)),
        ("layer_norm", lambda x: F.layer_norm(x, (4, 4))),
        ("rms_norm", lambda x: F.rms_norm(x, (4,), eps=1e-3)),
        ("batch_norm_train", lambda x: F.batch_norm(x, None, None, g, b, training=True)),
        ("conv_grouped_dilated", lambda x: F.conv2d(x, w, padding=2, dilation=2, groups=3)),
        ("conv_transpose_stride", lambda x: F.conv_transpose2d(x, ct, stride=2, groups=1)),
        ("max_pool_pad", lambda x: F.max_pool2d(x, 3, stride=2, padding=1)),
        ("avg_pool_ceil", lambda x: F.avg_pool2d(x, 3, stride=2, ceil_mode=True, count_include_pad=False)),
        ("lp_pool", lambda x: F.lp_pool2d(x.abs() + 0.5, 2, 2)),
        ("adaptive_avg", lambda x: F.adaptive_avg_pool2d(x, (3, 2))),
        ("adaptive_max", lambda x: F.adaptive_max_pool2d(x, (3, 2))),
        ("bicubic", lambda x: F.interpolate(x, scale_factor=2, mode="bicubic")),
        ("bilinear_ac", lambda x: F.interpolate(x, size=(5, 3), mode="bilinear", align_corners=True)),
        ("area", lambda x: F.interpolate(x, size=(3, 3), mode="area")),
        ("reflect_pad", lambda x: F.pad(x, (1, 2, 2, 1), mode="reflect")),
        ("circular_pad", lambda x: F.pad(x, (1, 2, 2, 1), mode="circular")),
        ("unfold", lambda x: F.unfold(x, 2, dilation=2, stride=1)),
        ("pixel_unshuffle", lambda x: F.pixel_unshuffle(x, 2)),
        ("softmin", lambda x: F.softmin(x, dim=1)),
        ("glu", lambda x: F.glu(x, dim=2)),
        ("elu_selu", lambda x: F.elu(x, 0.7) + F.selu(x)),
        ("mish_hardswish", lambda x: F.mish(x) + F.hardswish(x)),
        ("softplus_beta", lambda x: F.softplus(x, beta=2.0, threshold=1.0)),
        ("local_response", lambda x: F.local_response_norm(x, 2)),
        ("normalize_p1", lambda x: F.normalize(x, p=1.0, dim=1)),
    ]


def jvp_through_layers(T):
    """Forward-mode derivatives (torch.func.jvp) of the layer calls of
    _layer_ops along one tangent: the tangent outputs."""
    x = _t(T, 2, 3, 4, 4, seed=165)
    v = _t(T, 2, 3, 4, 4, seed=166)
    out = []
    for name, f in _layer_ops(T):
        try:
            out.append([name, T.func.jvp(f, (x,), (v,))[1]])
        except Exception as e:  # noqa: BLE001 - the refusal is the answer
            out.append([name, type(e).__name__])
    return out


def double_backward_through_layers(T):
    """Hessian-vector products by double backward (grad with create_graph,
    then the gradient of <grad, v>) of <f(x), c> + sum(f(x)^3) / 10 for the
    layer calls of _layer_ops (c fixed, so no gradient is a near-zero
    difference of large terms)."""
    v = _t(T, 2, 3, 4, 4, seed=166)
    out = []
    for name, f in _layer_ops(T):
        x = _t(T, 2, 3, 4, 4, seed=165).requires_grad_()
        try:
            y = f(x)
            c = _data(T, np.cos(np.arange(y.numel(), dtype=np.float32)).reshape(tuple(y.shape)))
            (g,) = T.autograd.grad((y * c).sum() + y.pow(3).sum() / 10, x, create_graph=True)
            (hv,) = T.autograd.grad((g * v).sum(), x)
            out.append([name, hv])
        except Exception as e:  # noqa: BLE001 - the refusal is the answer
            out.append([name, type(e).__name__])
    return out


def _loss_ops(T):
    F = T.nn.functional
    y = _t(T, 4, 3, seed=167)
    cls = _long(T, [0, 2, 1, 2])
    lab = (y > 0).float()
    return [
        ("smooth_l1", lambda x: F.smooth_l1_loss(x, y, beta=0.5)),
        ("huber", lambda x: F.huber_loss(x, y, delta=0.4)),
        ("kl_div_log_target", lambda x: F.kl_div(x.log_softmax(1), y.log_softmax(1), reduction="batchmean",
                                                 log_target=True)),
        ("soft_margin", lambda x: F.soft_margin_loss(x, lab * 2 - 1)),
        ("multilabel_soft_margin", lambda x: F.multilabel_soft_margin_loss(x, lab)),
        ("bce_logits_pos_weight", lambda x: F.binary_cross_entropy_with_logits(
            x, lab, pos_weight=T.tensor([1.0, 2.0, 0.5]))),
        ("cross_entropy_smooth", lambda x: F.cross_entropy(x, cls, label_smoothing=0.2)),
        ("cross_entropy_probs", lambda x: F.cross_entropy(x, y.softmax(1))),
        ("poisson_full", lambda x: F.poisson_nll_loss(x, y.abs(), full=True)),
        ("gaussian_nll", lambda x: F.gaussian_nll_loss(x, y, x.exp() + 0.1)),
        ("cosine_embedding", lambda x: F.cosine_embedding_loss(x, y, T.tensor([1.0, -1.0, 1.0, -1.0]))),
        ("triplet_swap", lambda x: F.triplet_margin_loss(x, y, y.flip(0), swap=True, p=1.5)),
        ("hinge_embedding", lambda x: F.hinge_embedding_loss(x, lab * 2 - 1, margin=0.5)),
        ("margin_ranking", lambda x: F.margin_ranking_loss(x[:, 0], x[:, 1], T.tensor([1.0, -1.0, 1.0, 1.0]))),
        ("nll_weighted", lambda x: F.nll_loss(x.log_softmax(1), cls, weight=T.tensor([1.0, 0.5, 2.0]))),
    ]


def loss_hessians_and_jvps(T):
    """For the losses of _loss_ops: the Hessian-vector product by double
    backward and the forward-mode derivative along a tangent.
    multi_margin_loss is left out: PyTorch has neither derivative
    (torchlike's pass gradgradcheck in float64)."""
    v = _t(T, 4, 3, seed=168)
    out = []
    for name, f in _loss_ops(T):
        x = _t(T, 4, 3, seed=169).requires_grad_()
        row = [name]
        try:
            (g,) = T.autograd.grad(f(x), x, create_graph=True)
            row.append(T.autograd.grad((g * v).sum(), x)[0])
        except Exception as e:  # noqa: BLE001 - the refusal is the answer
            row.append(type(e).__name__)
        try:
            row.append(T.func.jvp(f, (x.detach(),), (v,))[1])
        except Exception as e:  # noqa: BLE001 - the refusal is the answer
            row.append(type(e).__name__)
        out.append(row)
    return out


def vmap_batched_weights_and_modules(T):
    """vmap over per-example conv2d weights (in_dims on the weight),
    over a Linear's input with a chunk_size, over embedding indices, and
    jacrev of an LSTMCell's output w.r.t. its input."""
    nn = T.nn
    F = nn.functional
    fn = T.func
    x = _t(T, 2, 3, 5, 5, seed=170)
    ws = _t(T, 4, 2, 3, 3, 3, seed=171)
    per_w = fn.vmap(lambda w: F.conv2d(x, w, padding=1))(ws)
    lin = _init(T, nn.Linear(3, 2), 172)
    chunked = fn.vmap(lin, chunk_size=2)(_t(T, 5, 3, seed=173))
    emb = _t(T, 6, 2, seed=174)
    looked = fn.vmap(lambda i: F.embedding(i, emb), in_dims=1)(_long(T, [[0, 5], [3, 3], [1, 2]]))
    cell = _init(T, nn.LSTMCell(2, 3), 175)
    h = (_t(T, 3, seed=176), _t(T, 3, seed=177))
    jac = fn.jacrev(lambda i: cell(i, h)[0])(_t(T, 2, seed=178))
    return [list(per_w.shape), per_w[3, 1, 1, 2], chunked, looked, jac]


# ---- a fourth pass: what the layers of this round print -----------------------------------------

def reprs_of_this_rounds_layers(T):
    """print() of the layers this round uses with their less common
    arguments: convolutions with groups, dilation, padding modes and no
    bias; LSTM/GRU with proj_size, dropout, bidirectional; Embedding with
    max_norm and scale_grad_by_freq; EmbeddingBag; norms with eps,
    momentum=None, affine off, bias off; RMSNorm; pools with dilation,
    ceil_mode, divisor_override, None sizes; LPPool; Upsample forms;
    activations with arguments; a bias-free transformer layer; PReLU;
    Softmax2d; Threshold; Hardtanh."""
    nn = T.nn
    mods = [nn.Conv2d(4, 6, (3, 2), stride=(2, 1), padding=(1, 2), dilation=(1, 2), groups=2,
                      bias=False, padding_mode="circular"),
            nn.Conv1d(2, 3, 3, padding="same", padding_mode="reflect"),
            nn.Conv3d(2, 3, 2, padding="valid"),
            nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2, dilation=2),
            nn.LSTM(3, 5, num_layers=2, dropout=0.5, proj_size=2, bidirectional=True, batch_first=True),
            nn.GRU(3, 4, bias=False), nn.RNN(2, 3, nonlinearity="relu"),
            nn.LSTMCell(2, 3, bias=False), nn.GRUCell(2, 3),
            nn.Embedding(6, 3, max_norm=0.5, norm_type=1.0, scale_grad_by_freq=True, padding_idx=-2),
            nn.Embedding(4, 2, sparse=True),
            nn.EmbeddingBag(10, 3, mode="max", include_last_offset=True, padding_idx=2),
            nn.BatchNorm3d(2, momentum=None), nn.BatchNorm1d(3, affine=False, track_running_stats=False),
            nn.InstanceNorm3d(2, affine=True, track_running_stats=True, momentum=0.3),
            nn.GroupNorm(2, 4, eps=1e-3, affine=False), nn.LayerNorm([4, 3], bias=False),
            nn.LayerNorm(3, elementwise_affine=False, eps=1e-4), nn.RMSNorm([3, 3]),
            nn.RMSNorm(3, eps=0.5, elementwise_affine=False), nn.LocalResponseNorm(2, alpha=0.01),
            nn.MaxPool2d(3, stride=2, padding=1, dilation=2, ceil_mode=True, return_indices=True),
            nn.AvgPool2d(2, divisor_override=3), nn.AvgPool1d(3, stride=2, ceil_mode=True),
            nn.AvgPool3d(2, count_include_pad=False),
            nn.AdaptiveAvgPool2d((None, 3)), nn.AdaptiveMaxPool1d(3, return_indices=True),
            nn.AdaptiveAvgPool3d((None, 2, None)), nn.LPPool2d(3, 2, stride=2, ceil_mode=True),
            nn.LPPool1d(2, 3), nn.MaxUnpool2d(3, stride=2, padding=1),
            nn.Upsample(scale_factor=(2, 1.5), mode="nearest"),
            nn.Upsample(size=(5, 6), mode="bilinear", align_corners=True),
            nn.UpsamplingNearest2d(size=(4, 5)), nn.UpsamplingBilinear2d(scale_factor=2),
            nn.PReLU(4, init=0.1), nn.Threshold(0.2, -1.0), nn.Hardtanh(-0.5, 0.7),
            nn.Softshrink(0.3), nn.Hardshrink(0.4), nn.CELU(0.5), nn.ELU(2.0, inplace=True),
            nn.GLU(dim=1), nn.Softmin(dim=1), nn.Softmax2d(), nn.LogSoftmax(dim=-1),
            nn.Softplus(beta=2.0, threshold=10.0), nn.LeakyReLU(0.2, inplace=True), nn.RReLU(0.1, 0.3),
            nn.Dropout2d(0.3), nn.AlphaDropout(0.2), nn.Dropout(0.1, inplace=True),
            nn.Fold((5, 6), (2, 3), dilation=(2, 1), padding=(1, 0), stride=(1, 2)),
            nn.Unfold((2, 3), dilation=(2, 1), padding=(1, 0), stride=(1, 2)),
            nn.PairwiseDistance(p=3, eps=1e-4, keepdim=True), nn.CosineSimilarity(dim=0, eps=1e-3),
            nn.Bilinear(2, 3, 4, bias=False), nn.Linear(3, 2, bias=False),
            nn.MultiheadAttention(4, 2, batch_first=True, bias=False, kdim=3, vdim=5),
            nn.TransformerEncoderLayer(4, 2, dim_feedforward=6, dropout=0.0, layer_norm_eps=1e-3,
                                       bias=False, batch_first=True, norm_first=True)]
    return [repr(m) for m in mods]


def reprs_of_losses_and_containers(T):
    """print() of losses with their arguments, and of containers holding
    them: ModuleDict, ModuleList, ParameterList/ParameterDict of mixed
    shapes and dtypes, a Sequential with an OrderedDict of names."""
    nn = T.nn
    from collections import OrderedDict
    losses = [nn.CrossEntropyLoss(weight=T.ones(3), ignore_index=0, label_smoothing=0.1),
              nn.NLLLoss(reduction="sum"), nn.MultiMarginLoss(p=2, margin=0.7),
              nn.HuberLoss(delta=0.3), nn.SmoothL1Loss(beta=0.5), nn.KLDivLoss(reduction="batchmean",
                                                                                 log_target=True),
              nn.PoissonNLLLoss(log_input=False, full=True), nn.GaussianNLLLoss(full=True, eps=1e-3),
              nn.BCEWithLogitsLoss(pos_weight=T.ones(2)), nn.CTCLoss(blank=3, zero_infinity=True),
              nn.TripletMarginLoss(margin=0.5, p=1.0, swap=True), nn.CosineEmbeddingLoss(margin=0.1),
              nn.MarginRankingLoss(margin=0.2), nn.HingeEmbeddingLoss(margin=0.5),
              nn.TripletMarginWithDistanceLoss(margin=0.3)]
    seq = nn.Sequential(OrderedDict([("enc", nn.Linear(2, 3)), ("act", nn.GELU(approximate="tanh")),
                                     ("drop", nn.Dropout(0.2))]))
    md = nn.ModuleDict({"a": nn.ReLU(), "b": nn.Sequential(nn.Tanh(), nn.Identity())})
    ml = nn.ModuleList([nn.Linear(1, 1) for _ in range(3)])
    pl = nn.ParameterList([nn.Parameter(T.ones(2)), nn.Parameter(T.zeros(2, 3, dtype=T.float64))])
    pd = nn.ParameterDict({"w": nn.Parameter(T.ones(2, 2)), "b": nn.Parameter(T.zeros(1), requires_grad=False)})
    return [repr(m) for m in losses] + [repr(seq), repr(md), repr(ml), repr(pl), repr(pd)]


# ---- a fifth pass: what a probe of these layers' corners found ---------------------------------

def norm_statistics_and_dtype_refusals(T):
    """Normalisation given missing running statistics or parameters of
    another dtype, in PyTorch's words: one statistic without the other in
    training, each named in evaluation, instance_norm without them and
    use_input_stats=False, momentum=None to the functions (the modules'
    cumulative average is theirs), float64 input beside float32 weights,
    a float32 input beside float64 ones, a bias of another dtype than
    the weight; float32 parameters beside a bfloat16 input still run."""
    nn = T.nn
    F = nn.functional
    x = _t(T, 2, 4, 6, seed=179)
    w = T.ones(6)
    out = [_raised(lambda: F.batch_norm(x, None, T.ones(4), training=True)),
           _raised(lambda: F.batch_norm(x, T.zeros(4), None, training=True)),
           _raised(lambda: F.batch_norm(x, None, None, training=False)),
           _raised(lambda: F.batch_norm(x, T.zeros(4), None, training=False)),
           _raised(lambda: F.instance_norm(x, T.zeros(4), None, use_input_stats=False)),
           _raised(lambda: F.instance_norm(x, T.zeros(4), None)),
           _raised(lambda: F.batch_norm(x, T.zeros(4), T.ones(4), training=True, momentum=None)),
           _raised(lambda: F.instance_norm(x, T.zeros(4), T.ones(4), momentum=None)),
           _raised(lambda: nn.LayerNorm(6)(x.double())),
           _raised(lambda: F.layer_norm(x, (6,), w.double())),
           _raised(lambda: F.layer_norm(x, (6,), w, w.double())),
           _raised(lambda: nn.GroupNorm(2, 4)(x.double())),
           _raised(lambda: nn.BatchNorm1d(4)(x.double())),
           _raised(lambda: nn.BatchNorm1d(4).eval()(x.double())),
           _raised(lambda: nn.InstanceNorm1d(4, affine=True)(x.double())),
           _raised(lambda: F.batch_norm(x, T.zeros(4, dtype=T.float64), T.ones(4, dtype=T.float64))),
           _raised(lambda: F.layer_norm(x.double(), (5,), w))]
    bn = nn.BatchNorm1d(4, momentum=None)
    bn(x)
    ln = F.layer_norm(x.bfloat16(), (6,), w, T.zeros(6))
    return out + [bn.running_mean, ln.dtype, nn.GroupNorm(2, 4)(x.bfloat16()).dtype]


def module_corner_refusals_found(T):
    """Further corners a probe found: recurrent layers given no time steps
    (after the hidden-state checks, as PyTorch's kernel), LBFGS stepped
    without its closure, interpolate to an empty size in 1-d, 2-d and
    3-d, an InstanceNorm loading an old checkpoint's running stats it
    does not track, TripletMarginWithDistanceLoss's default distance as
    a child module, a padding module keeping a wrong-length padding
    until called."""
    nn = T.nn
    F = nn.functional
    inorm = nn.InstanceNorm1d(3, affine=True)
    old = {"weight": T.ones(3), "bias": T.zeros(3), "running_mean": T.zeros(3),
           "running_var": T.ones(3)}
    loss = nn.TripletMarginWithDistanceLoss(margin=0.5)
    pad = nn.ReflectionPad2d((1, 2, 3))
    return [_raised(lambda: nn.GRU(3, 2)(T.zeros(0, 3))),
            _raised(lambda: nn.LSTM(3, 2, batch_first=True)(T.zeros(2, 0, 3))),
            _raised(lambda: nn.RNN(3, 2)(T.zeros(0, 2, 3), T.zeros(1, 5, 2))),
            [list(t.shape) for t in nn.RNN(3, 2)(T.zeros(2, 0, 3))],
            _raised(lambda: T.optim.LBFGS([T.zeros(2, requires_grad=True)]).step()),
            _raised(lambda: F.interpolate(T.ones(1, 2, 3), size=0, mode="linear")),
            _raised(lambda: F.interpolate(T.ones(1, 2, 0, 4), size=(2, 2), mode="bilinear")),
            _raised(lambda: F.interpolate(T.ones(1, 2, 3, 4, 5), scale_factor=0.1, mode="trilinear")),
            _raised(lambda: F.interpolate(T.ones(1, 2, 3, 4), scale_factor=-1.0)),
            _raised(lambda: inorm.load_state_dict(old)),
            _raised(lambda: inorm.load_state_dict(old, strict=False)),
            repr(loss), [n for n, _ in loss.named_modules()],
            loss(_t(T, 2, 3, seed=180), _t(T, 2, 3, seed=181), _t(T, 2, 3, seed=182)),
            repr(pad), _raised(lambda: pad(T.ones(1, 1, 4, 4)))]



def hook_and_argument_refusals_found(T):
    """A tensor hook returning something that is not a gradient of the
    same size and dtype, and layers given a non-tensor (a forward that
    forgot its return value, a tuple where a tensor goes), in PyTorch's
    words; a hook returning None keeps the gradient."""
    nn = T.nn
    F = nn.functional

    def backward_with(hook, leaf=True):
        x = T.tensor([1.0, 2.0], requires_grad=True)
        y = x if leaf else x * 2
        y.register_hook(hook)
        (y * 3).sum().backward()
        return x.grad

    return [_raised(lambda: backward_with(lambda g: 3)),
            _raised(lambda: backward_with(lambda g: g[:1])),
            _raised(lambda: backward_with(lambda g: g.double(), leaf=False)),
            _raised(lambda: backward_with(lambda g: T.ones(3), leaf=False)),
            backward_with(lambda g: None),
            _raised(lambda: nn.Linear(2, 2)(None)),
            _raised(lambda: F.linear(T.ones(2), 5)),
            _raised(lambda: F.relu((T.ones(1),))),
            _raised(lambda: F.batch_norm([1.0, 2.0], None, None))]



def functional_api_refusals_found(T):
    """torch.autograd.functional given an integer input (PyTorch makes
    every input require grad, so it refuses), weight_norm over a dim the
    weight does not have; the forms that work beside them (a negative
    dim, dim=None and dim=-1 meaning the whole tensor).  The messages are
    compared up to torchlike's parenthesised dtype."""
    AF = T.autograd.functional
    P = T.nn.utils.parametrizations

    def head(fn):
        out = _raised(fn)
        return out if isinstance(out, str) else [out[0], out[1].split(" (got")[0]]
    i = T.ones(2, dtype=T.int64)
    return [head(lambda: AF.jacobian(lambda a: a * 2, i)),
            head(lambda: AF.vjp(lambda a, b: a * b, (T.ones(2), i), T.ones(2))),
            head(lambda: AF.hessian(lambda a: a.sum(), i)),
            head(lambda: AF.jvp(lambda a: a, i, i)),
            _raised(lambda: P.weight_norm(T.nn.Linear(3, 3), dim=5)),
            _raised(lambda: P.weight_norm(T.nn.Conv1d(3, 2, 2), dim=-4)),
            list(P.weight_norm(T.nn.Linear(3, 2), dim=-2).parametrizations.weight.original0.shape),
            list(P.weight_norm(T.nn.Linear(3, 2), dim=None).parametrizations.weight.original0.shape),
            list(P.weight_norm(T.nn.Conv1d(3, 2, 2), dim=2).parametrizations.weight.original0.shape)]



def loss_target_forms_found(T):
    """Losses' target forms a probe found answering otherwise: an unbatched
    (C,) input with a 1-d target of one element (the 'none' loss 0-d) and
    with longer or deeper targets, cosine_embedding_loss's target rank
    against its inputs', class weights of another dtype than the input
    for class indices (refused) and for probabilities (taken)."""
    F = T.nn.functional
    x = _t(T, 4, seed=183)
    lp = x.log_softmax(0)
    b = _t(T, 3, 4, seed=184)
    w64 = T.tensor([1.0, 2.0, 0.5, 1.5], dtype=T.float64)
    return [[F.nll_loss(lp, t, reduction=r) for t in (T.tensor(1), T.tensor([1]))
             for r in ("none", "mean", "sum")],
            [F.cross_entropy(x, t, reduction=r) for t in (T.tensor(2), T.tensor([2]))
             for r in ("none", "mean", "sum")],
            F.cross_entropy(x, T.tensor([1]), ignore_index=1),
            _raised(lambda: F.cross_entropy(x, T.tensor([1, 2]))),
            _raised(lambda: F.nll_loss(lp, T.tensor([[1]]))),
            _raised(lambda: F.cosine_embedding_loss(b, b, T.ones(3, 1))),
            _raised(lambda: F.cosine_embedding_loss(b, b, T.ones(()))),
            _raised(lambda: F.cosine_embedding_loss(b[0], b[0], T.ones(2))),
            F.cosine_embedding_loss(b[0], b[1], T.tensor(-1.0), margin=-0.5, reduction="none"),
            _raised(lambda: F.nll_loss(b.log_softmax(1), T.tensor([0, 3, 1]), weight=w64)),
            _raised(lambda: F.cross_entropy(b, T.tensor([0, 3, 1]), weight=w64)),
            _raised(lambda: F.cross_entropy(b.double(), T.tensor([0, 3, 1]), weight=w64.float())),
            F.cross_entropy(b, b.softmax(1), weight=w64)]


def inputs(T):
    return {"T": T, **{name: globals()[name] for name in _PROGRAMS}}


_PROGRAMS = [name for name, f in list(globals().items())
             if callable(f) and getattr(f, "__module__", None) == __name__
             and not name.startswith("_") and name not in ("inputs", "describe", "main",
                                                            "record")]
CALLS = [name + "(T)" for name in _PROGRAMS]


def main():
    record(CALLS, inputs, describe, "training_programs13", messages=True)


if __name__ == "__main__":
    main()
