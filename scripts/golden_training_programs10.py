"""Record PyTorch's answers for a tenth round of training programs, for
tests/test_training_programs10.py, about the areas the first nine rounds
touched least: attention (MultiheadAttention with kdim/vdim, add_bias_kv,
add_zero_attn and its masks; the Transformer family with padding and
causal masks; scaled_dot_product_attention's corners), convolutions with
groups, dilation, 'same' padding and padding modes, transposed ones with
output_padding, EmbeddingBag's modes with offsets and per-sample weights,
the normalisation layers' switches, torch.nn.utils (parametrize, weight
norm, pruning, clipping, flat vectors), nn.init with generators, chains of
schedulers, torch.utils.data's datasets, samplers and collation,
load_state_dict's reports, module hooks with kwargs and always_call, the
module tree's accessors, and torch.save/torch.load round trips.

As in rounds three to nine, every program takes the library as T and
builds its parameters and data from NumPy, so the test runs the very same
code on torchlike; what draws random numbers is compared only by what
does not depend on the stream.

Run with an interpreter that has PyTorch:
    python scripts/golden_training_programs10.py
writes tests/golden/training_programs10.json ([call, outcome] pairs over T)."""
import collections
import importlib
import io

import numpy as np

from golden_calls import record
from golden_training_programs3 import _data, _init, _raised, _warned
from golden_training_programs6 import describe  # noqa: F401 - describe: the test's
from golden_training_programs7 import _fit, _mlp, _raised_head, _t


def _long(T, a):
    return _data(T, np.asarray(a, dtype=np.int64))


def _bool(T, a):
    return _data(T, np.asarray(a, dtype=bool))


# ---- MultiheadAttention -----------------------------------------------------------------------

def mha_kdim_vdim(T):
    """Cross-attention with keys and values of other widths (kdim, vdim:
    separate projection weights), batch_first; the output, the averaged
    and the per-head weights, and the projections' gradients."""
    nn = T.nn
    mha = _init(T, nn.MultiheadAttention(8, 2, kdim=5, vdim=3, batch_first=True), 1)
    q, k, v = _t(T, 2, 4, 8, seed=2), _t(T, 2, 6, 5, seed=3), _t(T, 2, 6, 3, seed=4)
    out, w = mha(q, k, v)
    _, wh = mha(q, k, v, average_attn_weights=False)
    out.square().sum().backward()
    return [out, w, wh.shape, wh.mean(1), mha.q_proj_weight.grad, mha.k_proj_weight.grad,
            mha.v_proj_weight.grad, mha.in_proj_bias.grad, mha.in_proj_weight,
            mha._qkv_same_embed_dim, sorted(n for n, _ in mha.named_parameters())]


def mha_bias_kv_zero_attn(T):
    """add_bias_kv and add_zero_attn together with a key_padding_mask: the
    extra key/value columns the weights gain, and training steps."""
    nn = T.nn
    mha = _init(T, nn.MultiheadAttention(6, 3, add_bias_kv=True, add_zero_attn=True), 2)
    q, kv = _t(T, 3, 2, 6, seed=5), _t(T, 4, 2, 6, seed=6)
    mask = _bool(T, [[False, False, True, True], [False, False, False, False]])
    out, w = mha(q, kv, kv, key_padding_mask=mask)
    opt = T.optim.SGD(mha.parameters(), lr=0.1)
    losses = []
    for _ in range(3):
        opt.zero_grad()
        o, _ = mha(q, kv, kv, key_padding_mask=mask)
        loss = o.square().mean()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return [out, w, mha.bias_k.shape, mha.bias_v, losses, mha.bias_k.grad]


def mha_mask_kinds(T):
    """A float additive attn_mask against the bool one it stands for, a 3-d
    per-head mask, a float key_padding_mask, and need_weights=False."""
    nn = T.nn
    mha = _init(T, nn.MultiheadAttention(4, 2, batch_first=True), 3)
    x = _t(T, 2, 3, 4, seed=7)
    bmask = _bool(T, [[False, True, True], [False, False, True], [False, False, False]])
    fmask = T.zeros(3, 3).masked_fill(bmask, float("-inf"))
    ob, wb = mha(x, x, x, attn_mask=bmask)
    of, wf = mha(x, x, x, attn_mask=fmask)
    m3 = bmask.unsqueeze(0).repeat(4, 1, 1)
    o3, _ = mha(x, x, x, attn_mask=m3)
    kpm = T.zeros(2, 3)
    kpm[1, 2] = float("-inf")
    ok, wk = mha(x, x, x, key_padding_mask=kpm)
    on, wn = mha(x, x, x, need_weights=False)
    return [ob, wb, (ob - of).abs().max(), (wb - wf).abs().max(), (o3 - ob).abs().max(),
            ok, wk, wn, on]


def mha_unbatched_and_causal(T):
    """An unbatched (L, E) call, is_causal with its mask given (a hint), and
    the weights of a causal mask."""
    nn = T.nn
    mha = _init(T, nn.MultiheadAttention(4, 1), 4)
    x = _t(T, 3, 4, seed=8)
    out, w = mha(x, x, x)
    mask = nn.Transformer.generate_square_subsequent_mask(3)
    oc, wc = mha(x, x, x, attn_mask=mask, is_causal=True)
    oc2, _ = mha(x, x, x, attn_mask=mask)
    return [out.shape, w.shape, out, wc, (oc - oc2).abs().max(),
            _raised(lambda: mha(x, x, x, is_causal=True))]


def mha_refusals(T):
    """What MultiheadAttention refuses: heads not dividing the width, a
    key_padding_mask of the wrong shape, a mask of the wrong size, keys of
    another length than values, a batched query with unbatched keys."""
    nn = T.nn
    mha = _init(T, nn.MultiheadAttention(4, 2), 5)
    x = _t(T, 3, 2, 4, seed=9)
    return [_raised(lambda: nn.MultiheadAttention(5, 2)),
            _raised_head(lambda: mha(x, x, x, key_padding_mask=T.zeros(3, 2, dtype=T.bool))),
            _raised_head(lambda: mha(x, x, x, attn_mask=T.zeros(2, 3, dtype=T.bool))),
            _raised_head(lambda: mha(x, _t(T, 4, 2, 4, seed=1), x)),
            _raised_head(lambda: mha(x, x[:, 0], x[:, 0])),
            _raised(lambda: nn.MultiheadAttention(4, 2, dropout=1.5))]


def mha_self_attention_training(T):
    """A self-attention block (MHA + residual + LayerNorm) trained with
    Adam on a padded batch, the padding masked; in eval under no_grad."""
    nn = T.nn

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.attn = nn.MultiheadAttention(6, 2, batch_first=True)
            self.norm = nn.LayerNorm(6)
            self.out = nn.Linear(6, 1)

        def forward(self, x, pad):
            a, _ = self.attn(x, x, x, key_padding_mask=pad, need_weights=False)
            h = self.norm(x + a)
            h = h.masked_fill(pad.unsqueeze(-1), 0.0).sum(1)
            return self.out(h)

    net = _init(T, Block(), 6)
    x, y = _t(T, 3, 5, 6, seed=10), _t(T, 3, 1, seed=11)
    pad = _bool(T, [[0, 0, 0, 1, 1], [0, 0, 0, 0, 0], [0, 1, 1, 1, 1]])
    opt = T.optim.Adam(net.parameters(), lr=0.01)
    losses = []
    for _ in range(4):
        opt.zero_grad()
        loss = T.nn.functional.mse_loss(net(x, pad), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    net.eval()
    with T.no_grad():
        ev = net(x, pad)
    return [losses, ev, net.attn.out_proj.weight]


# ---- the Transformer family -------------------------------------------------------------------

def encoder_layer_norm_first_gelu(T):
    """A pre-norm encoder layer with gelu, batch_first and a padding mask,
    trained; its output at the padded positions kept."""
    nn = T.nn
    layer = _init(T, nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0,
                                                activation="gelu", batch_first=True,
                                                norm_first=True), 7)
    x = _t(T, 2, 4, 8, seed=12)
    pad = _bool(T, [[0, 0, 1, 1], [0, 0, 0, 0]])
    opt = T.optim.SGD(layer.parameters(), lr=0.05)
    losses = []
    for _ in range(3):
        opt.zero_grad()
        loss = layer(x, src_key_padding_mask=pad).square().mean()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return [losses, layer(x, src_key_padding_mask=pad), layer.norm_first,
            layer.activation_relu_or_gelu]


def encoder_causal_stack(T):
    """A two-layer TransformerEncoder with a final norm under a causal mask
    (is_causal=True), no nested tensors; the output's first position does
    not depend on later ones (the gradient of position 0 w.r.t. x)."""
    nn = T.nn
    layer = nn.TransformerEncoderLayer(4, 2, dim_feedforward=8, dropout=0.0)
    enc = _init(T, nn.TransformerEncoder(layer, 2, norm=nn.LayerNorm(4),
                                         enable_nested_tensor=False), 8)
    x = _t(T, 5, 2, 4, seed=13).requires_grad_()
    mask = nn.Transformer.generate_square_subsequent_mask(5)
    out = enc(x, mask=mask, is_causal=True)
    out[0].sum().backward()
    return [out, x.grad[1:].abs().max(), x.grad[0], len(enc.layers),
            enc.layers[0] is layer, enc.layers[0].self_attn.in_proj_weight is
            enc.layers[1].self_attn.in_proj_weight]


def decoder_layer_masks(T):
    """A decoder layer with a causal tgt_mask, a memory_key_padding_mask and
    a tgt_key_padding_mask, norm_first off and on."""
    nn = T.nn
    out = []
    for nf in (False, True):
        dec = _init(T, nn.TransformerDecoderLayer(4, 2, dim_feedforward=8, dropout=0.0,
                                                  batch_first=True, norm_first=nf), 9)
        tgt, mem = _t(T, 2, 3, 4, seed=14), _t(T, 2, 5, 4, seed=15)
        tmask = nn.Transformer.generate_square_subsequent_mask(3)
        mpad = _bool(T, [[0, 0, 0, 1, 1], [0, 0, 0, 0, 0]])
        tpad = _bool(T, [[0, 0, 1], [0, 0, 0]])
        out.append(dec(tgt, mem, tgt_mask=tmask, memory_key_padding_mask=mpad,
                       tgt_key_padding_mask=tpad, tgt_is_causal=True))
    return out


def transformer_seq2seq_masks(T):
    """nn.Transformer trained a few steps on a copy task with every mask
    (src/tgt/memory key padding, a causal tgt mask); greedy-free scoring in
    eval."""
    nn = T.nn
    model = _init(T, nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1,
                                    num_decoder_layers=1, dim_feedforward=16, dropout=0.0,
                                    batch_first=True), 10)
    emb = _init(T, nn.Embedding(7, 8), 11)
    head = _init(T, nn.Linear(8, 7), 12)
    src = _long(T, [[1, 2, 3, 0], [4, 5, 0, 0]])
    tgt_in = _long(T, [[6, 1, 2, 3], [6, 4, 5, 0]])
    tgt_out = _long(T, [[1, 2, 3, 0], [4, 5, 0, 0]])
    params = list(model.parameters()) + list(emb.parameters()) + list(head.parameters())
    opt = T.optim.Adam(params, lr=0.01)
    tmask = model.generate_square_subsequent_mask(4)
    losses = []
    for _ in range(3):
        opt.zero_grad()
        h = model(emb(src), emb(tgt_in), tgt_mask=tmask, src_key_padding_mask=src == 0,
                  tgt_key_padding_mask=tgt_in == 0, memory_key_padding_mask=src == 0,
                  tgt_is_causal=True)
        loss = nn.functional.cross_entropy(head(h).reshape(-1, 7), tgt_out.reshape(-1),
                                           ignore_index=0)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return [losses, head.weight]


def square_subsequent_mask_forms(T):
    """generate_square_subsequent_mask's values, dtype and device
    arguments, and a size of one and zero."""
    G = T.nn.Transformer.generate_square_subsequent_mask
    return [G(3), G(2, dtype=T.float64), G(1), G(0).shape, G(3).dtype]


def transformer_refusals(T):
    """The Transformer family's refusals: an unknown activation, d_model
    mismatched with the inputs, a src/tgt batch mismatch, an encoder layer
    given a mask of the wrong size."""
    nn = T.nn
    tr = _init(T, nn.Transformer(4, 2, 1, 1, 8, dropout=0.0), 13)
    layer = _init(T, nn.TransformerEncoderLayer(4, 2, 8, dropout=0.0), 14)
    x = _t(T, 3, 2, 4, seed=16)
    return [_raised(lambda: nn.TransformerEncoderLayer(4, 2, activation="swish")),
            _raised(lambda: tr(x, _t(T, 3, 3, 4, seed=1))),
            _raised(lambda: tr(x, _t(T, 3, 2, 6, seed=1))),
            _raised_head(lambda: layer(x, src_mask=T.zeros(2, 2)))]


def encoder_layer_callable_activation(T):
    """An encoder layer given a callable activation (F.silu) and a module
    one (nn.GELU('tanh')); one training step each."""
    nn = T.nn
    F = nn.functional
    out = []
    for act in (F.silu, nn.GELU("tanh")):
        layer = _init(T, nn.TransformerEncoderLayer(4, 1, 6, dropout=0.0, activation=act), 15)
        x = _t(T, 3, 2, 4, seed=17)
        opt = T.optim.SGD(layer.parameters(), lr=0.1)
        out.append(_fit(T, layer, opt, x, x, steps=2))
        out.append(layer(x))
    return out


# ---- scaled_dot_product_attention -------------------------------------------------------------

def sdpa_corners(T):
    """scaled_dot_product_attention with an explicit scale, is_causal with
    fewer queries than keys (top-left aligned), a bool and a float mask,
    broadcast heads, grouped-query attention (enable_gqa)."""
    F = T.nn.functional
    q, k, v = _t(T, 2, 2, 3, 4, seed=18), _t(T, 2, 2, 5, 4, seed=19), _t(T, 2, 2, 5, 4, seed=20)
    bmask = _bool(T, np.tril(np.ones((3, 5)), 1))
    fmask = _t(T, 3, 5, seed=21)
    qg = _t(T, 1, 4, 3, 4, seed=22)
    kg, vg = _t(T, 1, 2, 5, 4, seed=23), _t(T, 1, 2, 5, 4, seed=24)
    return [F.scaled_dot_product_attention(q, k, v, scale=0.1),
            F.scaled_dot_product_attention(q, k, v, is_causal=True),
            F.scaled_dot_product_attention(q, k, v, attn_mask=bmask),
            F.scaled_dot_product_attention(q, k, v, attn_mask=fmask),
            F.scaled_dot_product_attention(q[:1], k[:1], v, attn_mask=bmask).shape,
            F.scaled_dot_product_attention(qg, kg, vg, enable_gqa=True)]


def sdpa_gradients(T):
    """Gradients through scaled_dot_product_attention (causal and masked,
    with an extra leading dim), checked in float64 by finite differences."""
    F = T.nn.functional
    q = _t(T, 2, 3, 4, seed=25).double().requires_grad_()
    k = _t(T, 2, 3, 4, seed=26).double().requires_grad_()
    v = _t(T, 2, 3, 4, seed=27).double().requires_grad_()
    m = _t(T, 3, 3, seed=28).double()
    F.scaled_dot_product_attention(q, k, v, is_causal=True).square().sum().backward()
    return [q.grad, k.grad, v.grad,
            T.autograd.gradcheck(lambda a, b, c: F.scaled_dot_product_attention(
                a, b, c, attn_mask=m), (q, k, v))]


def sdpa_refusals(T):
    """scaled_dot_product_attention's refusals: is_causal with a mask,
    mismatched head widths, GQA heads not dividing."""
    F = T.nn.functional
    q, k = _t(T, 1, 2, 3, 4, seed=29), _t(T, 1, 2, 5, 4, seed=30)
    return [_kind_raised(lambda: F.scaled_dot_product_attention(
                q, k, k, attn_mask=T.ones(3, 5, dtype=T.bool), is_causal=True)),
            _kind_raised(lambda: F.scaled_dot_product_attention(q, k[..., :3], k)),
            _kind_raised(lambda: F.scaled_dot_product_attention(
                _t(T, 1, 3, 3, 4, seed=1), k, k, enable_gqa=True))]


def sdpa_fully_masked_rows(T):
    """A row whose bool mask hides every key: scaled_dot_product_attention
    gives NaN there (softmax of all -inf) in PyTorch's math path, and the
    other rows stay finite."""
    F = T.nn.functional
    q, k, v = _t(T, 1, 2, 4, seed=31), _t(T, 1, 3, 4, seed=32), _t(T, 1, 3, 4, seed=33)
    m = _bool(T, [[True, True, False], [False, False, False]])
    return F.scaled_dot_product_attention(q, k, v, attn_mask=m)


def _kind_raised(fn):
    out = _raised(fn)
    return out if isinstance(out, str) else out[0]


# ---- convolutions -----------------------------------------------------------------------------

def conv1d_groups_dilation(T):
    """A depthwise-separable 1-d block (groups = channels, dilation 2,
    'same' padding, then a pointwise conv) trained a few steps."""
    nn = T.nn
    net = _init(T, nn.Sequential(nn.Conv1d(4, 4, 3, groups=4, dilation=2, padding="same"),
                                 nn.ReLU(), nn.Conv1d(4, 2, 1)), 16)
    x, y = _t(T, 2, 4, 9, seed=34), _t(T, 2, 2, 9, seed=35)
    opt = T.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
    return [_fit(T, net, opt, x, y, steps=3), net[0].weight.shape, net[0].weight.grad]


def conv2d_same_even_kernel(T):
    """padding='same' with an even kernel (the extra padding goes on the
    right/bottom) and with dilation, against explicit F.pad."""
    nn = T.nn
    F = nn.functional
    conv = _init(T, nn.Conv2d(2, 3, (2, 4), padding="same"), 17)
    x = _t(T, 1, 2, 5, 6, seed=36)
    ref = F.conv2d(F.pad(x, (1, 2, 0, 1)), conv.weight, conv.bias)
    conv2 = _init(T, nn.Conv2d(2, 2, 3, padding="same", dilation=(1, 2)), 18)
    return [conv(x).shape, (conv(x) - ref).abs().max(), conv2(x), conv.padding,
            conv._reversed_padding_repeated_twice]


def conv_padding_modes(T):
    """Every padding_mode of a Conv2d with padding 1 (reflect, replicate,
    circular) and 'same' with circular; their gradients."""
    nn = T.nn
    x = _t(T, 1, 1, 4, 4, seed=37)
    out = []
    for mode in ("zeros", "reflect", "replicate", "circular"):
        conv = _init(T, nn.Conv2d(1, 1, 3, padding=1, padding_mode=mode, bias=False), 19)
        xx = x.clone().requires_grad_()
        y = conv(xx)
        y.square().sum().backward()
        out.append([y, xx.grad])
    conv = _init(T, nn.Conv1d(1, 1, 4, padding="same", padding_mode="circular"), 20)
    out.append(conv(_t(T, 1, 1, 6, seed=38)))
    return out


def conv_transpose_output_padding(T):
    """ConvTranspose2d with stride 2, output_padding 1, groups 2 and
    dilation; output_size= picking the padding; the refusal of an
    output_padding not smaller than stride or dilation."""
    nn = T.nn
    up = _init(T, nn.ConvTranspose2d(4, 2, 3, stride=2, padding=1, output_padding=1,
                                     groups=2, dilation=1), 21)
    x = _t(T, 1, 4, 3, 3, seed=39)
    y = up(x)
    up2 = _init(T, nn.ConvTranspose2d(4, 2, 3, stride=2, padding=1), 22)
    return [y, up2(x, output_size=[6, 6]).shape, up2(x).shape,
            _raised(lambda: nn.ConvTranspose2d(4, 2, 3, stride=2, output_padding=2)(x)),
            _raised(lambda: up2(x, output_size=[9, 9]))]


def conv_transpose1d_dilated_training(T):
    """A 1-d upsampler (ConvTranspose1d with dilation 2 and output_padding)
    trained to match a target; its weight's gradient."""
    nn = T.nn
    up = _init(T, nn.ConvTranspose1d(2, 1, 3, stride=3, dilation=2, output_padding=1), 23)
    x = _t(T, 2, 2, 4, seed=40)
    y = _t(T, 2, 1, up(x).shape[-1], seed=41)
    opt = T.optim.Adam(up.parameters(), lr=0.01)
    return [_fit(T, up, opt, x, y, steps=3), up.weight, up(x).shape]


def conv_refusals(T):
    """Convolutions' refusals: 'same' with stride, channels not divisible
    by groups, a kernel larger than the
    padded input, the wrong channel count."""
    nn = T.nn
    return [_raised(lambda: nn.Conv2d(2, 2, 3, stride=2, padding="same")),
            _raised(lambda: nn.Conv2d(3, 4, 3, groups=2)),
            _raised(lambda: nn.Conv2d(4, 3, 3, groups=2)),
            _raised_head(lambda: _init(T, nn.Conv1d(1, 1, 5), 1)(_t(T, 1, 1, 3, seed=1))),
            _raised_head(lambda: _init(T, nn.Conv1d(2, 1, 3), 1)(_t(T, 1, 3, 5, seed=1)))]


def conv3d_groups_training(T):
    """A grouped, strided Conv3d with a bias-free BatchNorm3d after it,
    trained a few steps."""
    nn = T.nn
    net = _init(T, nn.Sequential(nn.Conv3d(2, 4, 2, stride=(1, 2, 2), groups=2),
                                 nn.BatchNorm3d(4, affine=False)), 24)
    x = _t(T, 2, 2, 3, 4, 4, seed=42)
    y = _t(T, 2, 4, 2, 2, 2, seed=43)
    opt = T.optim.SGD(net.parameters(), lr=0.1)
    return [_fit(T, net, opt, x, y, steps=3), net[1].running_mean, net[1].running_var,
            net[1].num_batches_tracked]


# ---- EmbeddingBag -----------------------------------------------------------------------------

def embedding_bag_modes(T):
    """EmbeddingBag's sum, mean and max over bags given by offsets (an
    empty bag among them), include_last_offset, and padding_idx skipped."""
    nn = T.nn
    out = []
    idx = _long(T, [1, 2, 4, 5, 4, 3, 2, 9])
    offsets = _long(T, [0, 2, 2, 5])
    for mode in ("sum", "mean", "max"):
        bag = _init(T, nn.EmbeddingBag(10, 3, mode=mode), 25)
        out.append(bag(idx, offsets))
    bag = _init(T, nn.EmbeddingBag(10, 3, mode="sum", include_last_offset=True), 25)
    out.append(bag(idx, _long(T, [0, 2, 5, 8])))
    bag = _init(T, nn.EmbeddingBag(10, 3, mode="mean", padding_idx=2), 25)
    out.append(bag(idx, offsets))
    return out


def embedding_bag_per_sample_weights(T):
    """per_sample_weights with mode='sum' over 1-d input with offsets and a
    2-d input; the gradients of the weight and of the per-sample weights;
    their refusal with mode='mean'."""
    nn = T.nn
    bag = _init(T, nn.EmbeddingBag(6, 2, mode="sum"), 26)
    idx = _long(T, [0, 1, 1, 5, 3])
    psw = _t(T, 5, seed=44).requires_grad_()
    o = bag(idx, _long(T, [0, 3]), per_sample_weights=psw)
    o.square().sum().backward()
    idx2 = _long(T, [[0, 2], [4, 4]])
    psw2 = _t(T, 2, 2, seed=45)
    mean = _init(T, nn.EmbeddingBag(6, 2, mode="mean"), 26)
    return [o, psw.grad, bag.weight.grad, bag(idx2, per_sample_weights=psw2),
            _raised(lambda: mean(idx2, per_sample_weights=psw2))]


def embedding_bag_classifier(T):
    """A bag-of-words classifier (EmbeddingBag mean + Linear) trained with
    Adagrad on offsets batches; from_pretrained with freeze and max mode."""
    nn = T.nn
    bag = _init(T, nn.EmbeddingBag(12, 4, mode="mean"), 27)
    lin = _init(T, nn.Linear(4, 3), 28)
    text = _long(T, [1, 4, 7, 2, 2, 9, 11, 3, 5])
    offsets = _long(T, [0, 3, 4, 7])
    labels = _long(T, [0, 2, 1, 0])
    opt = T.optim.Adagrad(list(bag.parameters()) + list(lin.parameters()), lr=0.1)
    losses = []
    for _ in range(3):
        opt.zero_grad()
        loss = nn.functional.cross_entropy(lin(bag(text, offsets)), labels)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    pre = nn.EmbeddingBag.from_pretrained(_t(T, 5, 2, seed=46), mode="max")
    return [losses, lin.weight, pre(_long(T, [[0, 3], [4, 1]])), pre.weight.requires_grad,
            pre.mode]


def embedding_bag_refusals(T):
    """EmbeddingBag's refusals: offsets with a 2-d input, a 1-d input
    without offsets, an unknown mode (taken when built, refused when
    called), an index out of range (in the words
    of the sum/mean path and of the max / padding_idx path)."""
    nn = T.nn
    bag = _init(T, nn.EmbeddingBag(4, 2), 29)
    mx = _init(T, nn.EmbeddingBag(4, 2, mode="max"), 29)
    pad = _init(T, nn.EmbeddingBag(4, 2, mode="sum", padding_idx=0), 29)
    return [_raised(lambda: bag(_long(T, [[0, 1]]), _long(T, [0]))),
            _raised(lambda: bag(_long(T, [0, 1]))),
            _raised(lambda: nn.EmbeddingBag(4, 2, mode="median")),
            _raised(lambda: nn.EmbeddingBag(4, 2, mode="median")(_long(T, [[0, 1]]))),
            _raised(lambda: bag(_long(T, [0, 7]), _long(T, [0]))),
            _raised(lambda: bag(_long(T, [[0, 9]]))),
            _raised(lambda: bag(_long(T, [0, -1]), _long(T, [0]))),
            _raised(lambda: mx(_long(T, [0, 1, 4]), _long(T, [0, 2]))),
            _raised(lambda: pad(_long(T, [[3, 5]])))]


# ---- normalisation ----------------------------------------------------------------------------

def norm_layer_switches(T):
    """LayerNorm without affine parameters and with bias=False, GroupNorm
    without affine, RMSNorm with eps=None: their parameters, outputs and
    state-dict keys."""
    nn = T.nn
    x = _t(T, 2, 4, 3, seed=47)
    ln0 = nn.LayerNorm(3, elementwise_affine=False)
    ln1 = _init(T, nn.LayerNorm([4, 3], bias=False), 30)
    gn = nn.GroupNorm(2, 4, affine=False)
    rms = _init(T, nn.RMSNorm(3), 31)
    return [ln0(x), list(ln0.state_dict()), ln0.weight, ln1(x), list(ln1.state_dict()),
            ln1.bias, gn(x), list(gn.state_dict()), rms(x), rms.eps,
            repr(ln0), repr(ln1), repr(gn), repr(rms)]


def group_norm_training(T):
    """A conv net with GroupNorm (groups 1, 2 and 4 channels) trained; its
    affine parameters' gradients."""
    nn = T.nn
    out = []
    for g in (1, 2, 4):
        net = _init(T, nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.GroupNorm(g, 4),
                                     nn.ReLU(), nn.Conv2d(4, 1, 1)), 32)
        x, y = _t(T, 2, 1, 4, 4, seed=48), _t(T, 2, 1, 4, 4, seed=49)
        opt = T.optim.SGD(net.parameters(), lr=0.1)
        out.append(_fit(T, net, opt, x, y, steps=2))
        out.append(net[1].weight.grad)
    return out


def instance_norm_tracked(T):
    """InstanceNorm1d with track_running_stats (train updates them, eval
    uses them) and affine; the state dict; InstanceNorm2d given an input
    without batch dim."""
    nn = T.nn
    inn = _init(T, nn.InstanceNorm1d(3, affine=True, track_running_stats=True, momentum=0.2),
                33)
    x = _t(T, 2, 3, 5, seed=50)
    y1 = inn(x)
    y2 = inn(x * 2 + 1)
    inn.eval()
    y3 = inn(x)
    in2 = nn.InstanceNorm2d(2)
    return [y1, y2, y3, inn.running_mean, inn.running_var, inn.num_batches_tracked,
            list(inn.state_dict()), in2(_t(T, 2, 3, 3, seed=51))]


def batch_norm_cumulative_training(T):
    """BatchNorm1d with momentum=None (a cumulative average) over a few
    training batches, then eval; running stats against the means by hand."""
    nn = T.nn
    bn = _init(T, nn.BatchNorm1d(3, momentum=None), 34)
    xs = [_t(T, 4, 3, seed=52 + k) for k in range(3)]
    for x in xs:
        bn(x)
    bn.eval()
    means = T.stack([x.mean(0) for x in xs]).mean(0)
    return [bn.running_mean, (bn.running_mean - means).abs().max(), bn.running_var,
            bn.num_batches_tracked, bn(xs[0])]


def sync_batch_norm_conversion(T):
    """SyncBatchNorm.convert_sync_batchnorm over a model: the converted
    types, the state dict carried, the layers left alone, and eval output."""
    nn = T.nn
    net = _init(T, nn.Sequential(nn.Conv1d(2, 3, 1), nn.BatchNorm1d(3),
                                 nn.Sequential(nn.BatchNorm1d(3, affine=False)),
                                 nn.LayerNorm(4)), 35)
    net[1].running_mean.fill_(0.5)
    sd = {k: v.clone() for k, v in net.state_dict().items()}
    sync = nn.SyncBatchNorm.convert_sync_batchnorm(net)
    sync.eval()
    x = _t(T, 2, 2, 4, seed=55)
    same = all(bool((sd[k] == v).all()) for k, v in sync.state_dict().items())
    return [[type(m).__name__ for m in sync.modules()], same, sync(x), sync[1].running_mean,
            sync[2][0].affine]


def norm_refusals(T):
    """The normalisation layers' refusals: GroupNorm with groups not
    dividing channels, BatchNorm1d given a 4-d input, LayerNorm's
    normalized_shape not ending the input's shape, BatchNorm's training
    batch of one value per channel, GroupNorm given no spatial positions
    (refused even for an empty batch)."""
    nn = T.nn
    return [_raised(lambda: nn.GroupNorm(3, 4)),
            _raised(lambda: nn.BatchNorm1d(3)(_t(T, 2, 3, 2, 2, seed=1))),
            _raised_head(lambda: nn.LayerNorm(4)(_t(T, 2, 3, seed=1))),
            _raised(lambda: nn.BatchNorm1d(3)(_t(T, 1, 3, seed=1))),
            _raised_head(lambda: nn.GroupNorm(2, 4)(_t(T, 2, 3, 5, seed=1))),
            _raised(lambda: nn.GroupNorm(2, 4)(_t(T, 2, 4, 0, seed=1))),
            _raised(lambda: nn.GroupNorm(2, 4)(_t(T, 0, 4, 0, seed=1))),
            nn.GroupNorm(2, 4)(_t(T, 0, 4, 3, seed=1)).shape]


# ---- torch.nn.utils ---------------------------------------------------------------------------

def parametrize_symmetric_training(T):
    """A custom parametrization (symmetric weights) registered, trained,
    cached, and removed with and without keeping the parametrized value;
    the state dict's keys with one."""
    nn = T.nn
    P = nn.utils.parametrize

    class Symmetric(nn.Module):
        def forward(self, w):
            return w.triu() + w.triu(1).transpose(0, 1)

    lin = _init(T, nn.Linear(3, 3), 36)
    P.register_parametrization(lin, "weight", Symmetric())
    x, y = _t(T, 4, 3, seed=56), _t(T, 4, 3, seed=57)
    opt = T.optim.SGD(lin.parameters(), lr=0.1)
    losses = _fit(T, lin, opt, x, y, steps=3)
    w = lin.weight
    with P.cached():
        cached_same = lin.weight is lin.weight
    keys = list(lin.state_dict())
    orig = lin.parametrizations.weight.original.clone()
    P.remove_parametrizations(lin, "weight", leave_parametrized=True)
    lin2 = _init(T, nn.Linear(3, 3), 36)
    P.register_parametrization(lin2, "weight", Symmetric())
    P.remove_parametrizations(lin2, "weight", leave_parametrized=False)
    return [losses, w, (w - w.T).abs().max(), cached_same, keys, orig, lin.weight,
            P.is_parametrized(lin), type(lin).__name__, lin2.weight]


def parametrize_chain_and_refusals(T):
    """Two parametrizations chained on one tensor, right_inverse used when
    assigning, unsafe=True changing the shape, and the refusals of a
    parametrization changing dtype or removing a tensor not parametrized."""
    nn = T.nn
    P = nn.utils.parametrize

    class Scale(nn.Module):
        def forward(self, w):
            return w * 2

        def right_inverse(self, w):
            return w / 2

    class Plus(nn.Module):
        def forward(self, w):
            return w + 1

        def right_inverse(self, w):
            return w - 1

    class ToDouble(nn.Module):
        def forward(self, w):
            return w.double()

    class Flat(nn.Module):
        def forward(self, w):
            return w.reshape(-1)

    lin = _init(T, nn.Linear(2, 2), 37)
    P.register_parametrization(lin, "weight", Scale())
    P.register_parametrization(lin, "weight", Plus())
    before = lin.weight.clone()
    with T.no_grad():
        lin.weight = _t(T, 2, 2, seed=58)
    after = [lin.weight, lin.parametrizations.weight.original]
    lin3 = _init(T, nn.Linear(2, 2), 38)
    P.register_parametrization(lin3, "weight", Flat(), unsafe=True)
    return [before, after, len(lin.parametrizations.weight), lin3.weight.shape,
            _raised(lambda: P.register_parametrization(_init(T, nn.Linear(2, 2), 1), "weight",
                                                       ToDouble())),
            _raised(lambda: P.remove_parametrizations(_init(T, nn.Linear(2, 2), 1), "weight"))]


def weight_norm_parametrization(T):
    """parametrizations.weight_norm with dim 0 and dim=None: original0/1's
    shapes and values, a training run, and removal keeping the weight."""
    nn = T.nn
    out = []
    for dim in (0, None):
        lin = _init(T, nn.Linear(3, 2), 39)
        nn.utils.parametrizations.weight_norm(lin, dim=dim)
        pw = lin.parametrizations.weight
        out.append([pw.original0, pw.original1.shape, sorted(lin.state_dict())])
        x, y = _t(T, 4, 3, seed=59), _t(T, 4, 2, seed=60)
        opt = T.optim.SGD(lin.parameters(), lr=0.1)
        out.append(_fit(T, lin, opt, x, y, steps=3))
        w = lin.weight.detach().clone()
        nn.utils.parametrize.remove_parametrizations(lin, "weight")
        out.append((lin.weight - w).abs().max())
    return out


def prune_methods(T):
    """l1_unstructured by count and fraction, ln_structured over rows,
    custom_from_mask, pruning twice (the masks combined), is_pruned, and
    remove making it permanent; a step keeps pruned weights zero."""
    nn = T.nn
    prune = importlib.import_module(T.__name__ + ".nn.utils.prune")
    lin = _init(T, nn.Linear(4, 3), 40)
    prune.l1_unstructured(lin, "weight", amount=3)
    m1 = lin.weight_mask.clone()
    prune.l1_unstructured(lin, "weight", amount=0.25)
    m2 = lin.weight_mask.clone()
    conv = _init(T, nn.Conv1d(2, 4, 2), 41)
    prune.ln_structured(conv, "weight", amount=0.5, n=2, dim=0)
    prune.custom_from_mask(lin, "bias", _bool(T, [1, 0, 1]))
    names = [sorted(n for n, _ in lin.named_parameters()),
             sorted(n for n, _ in lin.named_buffers())]
    x, y = _t(T, 5, 4, seed=61), _t(T, 5, 3, seed=62)
    opt = T.optim.SGD(lin.parameters(), lr=0.1)
    _fit(T, lin, opt, x, y, steps=2)
    pruned = prune.is_pruned(lin)
    prune.remove(lin, "weight")
    return [m1, m2, conv.weight_mask, names, lin.weight, lin.bias, pruned,
            sorted(n for n, _ in lin.named_parameters()), prune.is_pruned(conv)]


def global_prune_and_refusals(T):
    """global_unstructured across two layers by L1, the resulting sparsity
    per layer; refusals of an amount over 1, of a negative count, of an
    amount bigger than the tensor."""
    nn = T.nn
    prune = importlib.import_module(T.__name__ + ".nn.utils.prune")
    net = _init(T, nn.Sequential(nn.Linear(3, 4), nn.Linear(4, 2)), 42)
    prune.global_unstructured([(net[0], "weight"), (net[1], "weight")],
                              pruning_method=prune.L1Unstructured, amount=6)
    return [net[0].weight_mask, net[1].weight_mask,
            float((net[0].weight == 0).sum() + (net[1].weight == 0).sum()),
            _raised(lambda: prune.l1_unstructured(nn.Linear(2, 2), "weight", amount=1.5)),
            _raised(lambda: prune.l1_unstructured(nn.Linear(2, 2), "weight", amount=-1)),
            _raised(lambda: prune.l1_unstructured(nn.Linear(2, 2), "weight", amount=9))]


def clip_grad_norm_variants(T):
    """clip_grad_norm_ with foreach on and off (the same), norm inf, a
    max_norm not reached (unchanged), and error_if_nonfinite on an inf
    gradient (refused, gradients untouched) and off (NaN scaling)."""
    nn = T.nn
    U = nn.utils
    out = []
    for foreach in (False, True):
        net = _mlp(T, 43, (3, 4, 2))
        x = _t(T, 5, 3, seed=63)
        net(x).square().sum().backward()
        tot = U.clip_grad_norm_(net.parameters(), 0.5, foreach=foreach)
        out.append([tot, net[0].weight.grad])
    net = _mlp(T, 43, (3, 4, 2))
    net(_t(T, 5, 3, seed=63)).square().sum().backward()
    out.append(U.clip_grad_norm_(net.parameters(), 0.5, norm_type="inf"))
    out.append(U.clip_grad_norm_(net.parameters(), 1e6))
    lin = _init(T, nn.Linear(2, 1), 44)
    lin.weight.grad = _data(T, np.array([[np.inf, 1.0]], dtype=np.float32))
    lin.bias.grad = _data(T, np.array([1.0], dtype=np.float32))
    out.append(_raised(lambda: U.clip_grad_norm_(lin.parameters(), 1.0,
                                                 error_if_nonfinite=True)))
    out.append(lin.bias.grad)
    out.append(U.clip_grad_norm_(lin.parameters(), 1.0))
    out.append(lin.bias.grad)
    return out


def grad_norm_helpers(T):
    """get_total_norm and clip_grads_with_norm_ (the split clip), and
    clip_grad_value_ with foreach, on the same gradients."""
    U = T.nn.utils
    net = _mlp(T, 45, (3, 4, 2))
    net(_t(T, 4, 3, seed=64)).sum().backward()
    grads = [p.grad for p in net.parameters()]
    tot = U.get_total_norm(grads, norm_type=2.0)
    U.clip_grads_with_norm_(net.parameters(), 0.1, tot)
    clipped = [g.clone() for g in grads]
    U.clip_grad_value_(net.parameters(), 0.01, foreach=True)
    return [tot, clipped, [p.grad for p in net.parameters()]]


def flat_vectors(T):
    """parameters_to_vector / vector_to_parameters round trip after a step
    (a flat-space update), and their refusals."""
    nn = T.nn
    U = nn.utils
    net = _mlp(T, 46, (2, 3, 1))
    v = U.parameters_to_vector(net.parameters())
    net(_t(T, 4, 2, seed=65)).sum().backward()
    g = U.parameters_to_vector([p.grad for p in net.parameters()])
    U.vector_to_parameters(v - 0.1 * g, net.parameters())
    return [v.shape, g, [p for p in net.parameters()],
            _raised(lambda: U.vector_to_parameters([1.0], net.parameters())),
            _raised_head(lambda: U.vector_to_parameters(v[:3], net.parameters()))]


# ---- nn.init ----------------------------------------------------------------------------------

def init_with_generators(T):
    """nn.init's random schemes given a seeded Generator: the same seed
    gives the same tensor, another seed another; bounds and shapes hold
    (the values are the library's own stream).  sparse_ is left out: PyTorch
    draws its zero pattern from the global stream, not the generator."""
    init = T.nn.init
    out = []
    for fn, kw in ((init.uniform_, {"a": -0.5, "b": 0.5}), (init.normal_, {"std": 0.1}),
                   (init.xavier_uniform_, {}), (init.kaiming_normal_, {"mode": "fan_out"}),
                   (init.trunc_normal_, {"a": -0.1, "b": 0.1}), (init.orthogonal_, {})):
        a = fn(T.empty(4, 6), generator=T.Generator().manual_seed(3), **kw)
        b = fn(T.empty(4, 6), generator=T.Generator().manual_seed(3), **kw)
        c = fn(T.empty(4, 6), generator=T.Generator().manual_seed(4), **kw)
        out.append([bool((a == b).all()), bool((a == c).all()), list(a.shape)])
    u = init.uniform_(T.empty(1000), -0.5, 0.5, generator=T.Generator().manual_seed(1))
    t = init.trunc_normal_(T.empty(1000), std=1.0, a=-0.3, b=0.2,
                           generator=T.Generator().manual_seed(1))
    q = init.orthogonal_(T.empty(3, 5), gain=2.0, generator=T.Generator().manual_seed(1))
    s = init.sparse_(T.empty(6, 3), 0.5, generator=T.Generator().manual_seed(1))
    xb = 2.0 * (6 / 10) ** 0.5
    x = init.xavier_uniform_(T.empty(4, 6), gain=2.0, generator=T.Generator().manual_seed(1))
    return [out, bool(u.min() >= -0.5), bool(u.max() <= 0.5), bool(t.min() >= -0.3),
            bool(t.max() <= 0.2), (q @ q.T - 4 * T.eye(3)).abs().max().item() < 1e-5,
            (s == 0).sum(0).tolist(), bool(x.abs().max() <= xb)]


def init_deterministic_schemes(T):
    """The deterministic initialisers (constant_, ones_, zeros_, eye_,
    dirac_ with groups), calculate_gain for every nonlinearity, the fan
    computation, and the refusals of fans on a 1-d tensor and of an unknown
    nonlinearity or mode."""
    init = T.nn.init
    gains = [init.calculate_gain(n) for n in ("linear", "conv2d", "sigmoid", "tanh", "relu",
                                              "selu", "conv_transpose1d")]
    gains += [init.calculate_gain("leaky_relu"), init.calculate_gain("leaky_relu", 0.2)]
    return [init.constant_(T.empty(2, 2), 0.3), init.eye_(T.empty(2, 3)),
            init.dirac_(T.empty(4, 2, 3), groups=2), gains,
            init._calculate_fan_in_and_fan_out(T.empty(5, 3, 2, 2)),
            _raised(lambda: init.xavier_uniform_(T.empty(3))),
            _raised(lambda: init.calculate_gain("swish")),
            _raised(lambda: init.kaiming_uniform_(T.empty(3, 3), mode="fan_mid")),
            _raised(lambda: init.eye_(T.empty(2, 2, 2))),
            _raised(lambda: init.calculate_gain("leaky_relu", "x"))]


def init_through_apply(T):
    """A model initialised by model.apply(fn) with a generator per kind of
    layer: zeros for biases, ones for norms, a seeded xavier for weights;
    the apply order seen."""
    nn = T.nn
    net = nn.Sequential(nn.Linear(3, 4), nn.LayerNorm(4), nn.Sequential(nn.Linear(4, 2)))
    g = T.Generator().manual_seed(0)
    seen = []

    def fn(m):
        seen.append(type(m).__name__)
        if isinstance(m, nn.Linear):
            nn.init.xavier_normal_(m.weight, generator=g)
            nn.init.zeros_(m.bias)
        elif isinstance(m, nn.LayerNorm):
            nn.init.ones_(m.weight)
            nn.init.constant_(m.bias, 0.1)

    r = net.apply(fn)
    return [seen, r is net, net[0].bias, net[1].bias, net[2][0].bias]


# ---- schedulers -------------------------------------------------------------------------------

def _sched_opt(T, lr=0.1, **kw):
    p = T.nn.Parameter(T.zeros(2))
    return T.optim.SGD([p], lr=lr, **kw)


def _lrs(opt, sched, n):
    out = []
    for _ in range(n):
        opt.step()
        sched.step()
        out.append(opt.param_groups[0]["lr"])
    return out


def sequential_warmup_then_step(T):
    """SequentialLR: a LinearLR warmup then StepLR, its last_lr and state
    dict's keys, resumed into a fresh chain."""
    S = T.optim.lr_scheduler
    opt = _sched_opt(T)
    s = S.SequentialLR(opt, [S.LinearLR(opt, 0.1, total_iters=3), S.StepLR(opt, 2, 0.5)],
                       milestones=[3])
    lrs = _lrs(opt, s, 4)
    sd = s.state_dict()
    opt2 = _sched_opt(T)
    s2 = S.SequentialLR(opt2, [S.LinearLR(opt2, 0.1, total_iters=3), S.StepLR(opt2, 2, 0.5)],
                        milestones=[3])
    s2.load_state_dict(sd)
    opt2.param_groups[0]["lr"] = opt.param_groups[0]["lr"]
    return [lrs, s.get_last_lr(), sorted(sd), _lrs(opt, s, 3), _lrs(opt2, s2, 3)]


def chained_schedulers(T):
    """ChainedScheduler of ExponentialLR and a ConstantLR factor, and
    MultiplicativeLR; the lrs and the chain's state dict."""
    S = T.optim.lr_scheduler
    opt = _sched_opt(T, lr=1.0)
    s = S.ChainedScheduler([S.ConstantLR(opt, factor=0.5, total_iters=2),
                            S.ExponentialLR(opt, gamma=0.9)])
    lrs = _lrs(opt, s, 4)
    opt2 = _sched_opt(T, lr=1.0)
    m = S.MultiplicativeLR(opt2, lambda e: 0.95)
    return [lrs, s.get_last_lr(), sorted(s.state_dict()), _lrs(opt2, m, 3)]


def one_cycle_variants(T):
    """OneCycleLR with linear annealing and with cycled momentum, by
    epochs x steps_per_epoch; the lrs and Adam's betas over the cycle, and
    its refusal past the last step."""
    S = T.optim.lr_scheduler
    opt = _sched_opt(T, lr=0.1, momentum=0.9)
    s = S.OneCycleLR(opt, max_lr=1.0, epochs=2, steps_per_epoch=3, anneal_strategy="linear",
                     pct_start=0.5)
    lrs, moms = [], []
    for _ in range(5):
        opt.step()
        s.step()
        lrs.append(opt.param_groups[0]["lr"])
        moms.append(opt.param_groups[0]["momentum"])
    p = T.nn.Parameter(T.zeros(1))
    adam = T.optim.Adam([p], lr=0.1)
    s2 = S.OneCycleLR(adam, max_lr=0.5, total_steps=4)
    betas = []
    for _ in range(3):
        adam.step()
        s2.step()
        betas.append(list(adam.param_groups[0]["betas"]))
    s2.step()
    return [lrs, moms, betas, _raised(lambda: s2.step()),
            _raised(lambda: S.OneCycleLR(_sched_opt(T), max_lr=1.0))]


def cyclic_lr_modes(T):
    """CyclicLR's triangular2 and a scale_fn by cycle, with cycled momentum;
    the lrs over two cycles."""
    S = T.optim.lr_scheduler
    opt = _sched_opt(T, lr=0.1, momentum=0.9)
    s = S.CyclicLR(opt, 0.1, 1.0, step_size_up=2, mode="triangular2")
    lrs = _lrs(opt, s, 8)
    opt2 = _sched_opt(T, lr=0.1, momentum=0.9)
    s2 = S.CyclicLR(opt2, 0.1, 1.0, step_size_up=1, step_size_down=2,
                    scale_fn=lambda c: 1 / c, scale_mode="cycle")
    return [lrs, _lrs(opt2, s2, 6), opt2.param_groups[0]["momentum"]]


def warm_restarts_t_mult(T):
    """CosineAnnealingWarmRestarts with T_mult=2 and eta_min, over three
    restarts; T_cur and T_i as it goes."""
    S = T.optim.lr_scheduler
    opt = _sched_opt(T, lr=1.0)
    s = S.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=2, eta_min=0.1)
    out = []
    for _ in range(7):
        opt.step()
        s.step()
        out.append([opt.param_groups[0]["lr"], s.T_cur, s.T_i])
    return [out, _raised(lambda: S.CosineAnnealingWarmRestarts(_sched_opt(T), T_0=2,
                                                                T_mult=1.5))]


def lambda_lr_state(T):
    """LambdaLR's state dict: a plain function's lambda is left out (None),
    a callable object's __dict__ kept; two groups with two lambdas."""
    S = T.optim.lr_scheduler

    class Decay:
        def __init__(self, r):
            self.r = r

        def __call__(self, e):
            return self.r ** e

    p, q = T.nn.Parameter(T.zeros(1)), T.nn.Parameter(T.zeros(1))
    opt = T.optim.SGD([{"params": [p]}, {"params": [q], "lr": 0.5}], lr=0.1)
    s = S.LambdaLR(opt, [lambda e: 1.0 / (e + 1), Decay(0.5)])
    for _ in range(2):
        opt.step()
        s.step()
    sd = s.state_dict()
    s2 = S.LambdaLR(opt, [lambda e: 1.0, Decay(0.9)])
    s2.load_state_dict(sd)
    return [s.get_last_lr(), sd["lr_lambdas"], sd["last_epoch"], sd["base_lrs"],
            s2.lr_lambdas[1].r,
            _raised(lambda: S.LambdaLR(opt, [lambda e: 1.0]))]


def polynomial_and_linear(T):
    """PolynomialLR with power 2, LinearLR from 1 to a quarter, and
    ConstantLR's refusal of a factor over 1."""
    S = T.optim.lr_scheduler
    opt = _sched_opt(T, lr=1.0)
    a = _lrs(opt, S.PolynomialLR(opt, total_iters=4, power=2.0), 5)
    opt = _sched_opt(T, lr=1.0)
    b = _lrs(opt, S.LinearLR(opt, 1.0, 0.25, total_iters=3), 4)
    return [a, b, _raised(lambda: S.ConstantLR(_sched_opt(T), factor=1.5)),
            _raised(lambda: S.LinearLR(_sched_opt(T), start_factor=0.0))]


# ---- torch.utils.data -------------------------------------------------------------------------

def datasets_composed(T):
    """ConcatDataset of two TensorDatasets and a list, its cumulative sizes
    and negative indices; a Subset of a Subset; their lengths and items."""
    D = T.utils.data
    a = D.TensorDataset(T.arange(3), T.arange(3) * 10)
    b = D.TensorDataset(T.arange(2) + 100, T.arange(2))
    c = D.ConcatDataset([a, b, [(T.tensor(7), T.tensor(8))]])
    s = D.Subset(D.Subset(c, [4, 2, 0, 5]), [1, 3])
    return [len(c), c.cumulative_sizes, c[3], c[-1], c[-6], len(s), s[0], s[1],
            _raised(lambda: c[6]), _raised(lambda: c[-7]),
            _raised(lambda: D.ConcatDataset([]))]


def dataset_refusals(T):
    """TensorDataset with tensors of different lengths, and an iterable
    dataset in ConcatDataset."""
    D = T.utils.data

    class It(D.IterableDataset):
        def __iter__(self):
            return iter(range(3))

    return [_raised(lambda: D.TensorDataset(T.zeros(3), T.zeros(2))),
            _raised(lambda: D.ConcatDataset([It()])),
            len(D.ChainDataset([It(), It()]).datasets) if hasattr(D, "ChainDataset") else None,
            list(D.ChainDataset([It(), It()]))]


def random_split_fractions(T):
    """random_split by fractions (remainders spread round-robin) and by
    lengths with a seeded generator: the sizes, the split being a
    partition, the same seed the same split; the refusals of lengths not
    summing and fractions not summing to 1."""
    D = T.utils.data
    ds = list(range(11))
    parts = D.random_split(ds, [0.5, 0.3, 0.2], generator=T.Generator().manual_seed(0))
    again = D.random_split(ds, [0.5, 0.3, 0.2], generator=T.Generator().manual_seed(0))
    union = sorted(i for p in parts for i in p)
    return [[len(p) for p in parts], union == ds,
            [list(p.indices) == list(q.indices) for p, q in zip(parts, again)],
            [len(p) for p in D.random_split(range(5), [0.1, 0.1, 0.8])],
            _raised(lambda: D.random_split(ds, [5, 5])),
            _raised(lambda: D.random_split(ds, [0.5, 0.6]))]


def samplers_with_generators(T):
    """RandomSampler with a generator (reproducible, a permutation),
    with replacement and num_samples, SubsetRandomSampler's draws from its
    indices, BatchSampler's drop_last over them, SequentialSampler."""
    D = T.utils.data
    r1 = list(D.RandomSampler(range(6), generator=T.Generator().manual_seed(1)))
    r2 = list(D.RandomSampler(range(6), generator=T.Generator().manual_seed(1)))
    rr = list(D.RandomSampler(range(3), replacement=True, num_samples=8,
                              generator=T.Generator().manual_seed(2)))
    sub = list(D.SubsetRandomSampler([10, 20, 30], generator=T.Generator().manual_seed(0)))
    bs = D.BatchSampler(D.SequentialSampler(range(7)), 3, drop_last=False)
    bd = D.BatchSampler(D.SequentialSampler(range(7)), 3, drop_last=True)
    return [r1 == r2, sorted(r1), len(rr), all(0 <= i < 3 for i in rr), sorted(sub),
            list(bs), len(bs), list(bd), len(bd),
            _raised(lambda: D.BatchSampler(range(3), 0, False)),
            _raised(lambda: D.RandomSampler(range(3), num_samples=0)),
            _raised(lambda: D.BatchSampler(range(3), 2, drop_last=1))]


def default_collate_structures(T):
    """default_collate of dicts of tensors and numbers, namedtuples (kept as
    their type), nested lists, strings, numpy arrays, and its refusal of
    None and of ragged lists."""
    D = T.utils.data
    Pt = collections.namedtuple("Pt", ["x", "y"])
    dicts = [{"a": T.tensor([1.0, 2.0]), "b": 3, "c": "s"},
             {"a": T.tensor([3.0, 4.0]), "b": 4, "c": "t"}]
    nts = D.default_collate([Pt(T.tensor(1), 2.5), Pt(T.tensor(3), 4.5)])
    return [D.default_collate(dicts), type(nts).__name__, nts.x, nts.y,
            D.default_collate([[1, 2], [3, 4]]),
            D.default_collate([np.array([1, 2], dtype=np.int32), np.array([3, 4], dtype=np.int32)]),
            D.default_collate([(1.0, True), (2.0, False)]),
            _raised(lambda: D.default_collate([None, None])),
            _raised(lambda: D.default_collate([[1, 2], [3]]))]


def dataloader_batching_forms(T):
    """A DataLoader with batch_size=None (no batching, default_convert),
    with a batch_sampler, with drop_last, with a custom collate_fn padding
    sequences; their batches."""
    D = T.utils.data
    ds = D.TensorDataset(T.arange(5.0), T.arange(5) * 2)
    a = [list(b) for b in D.DataLoader(ds, batch_size=None)][:2]
    b = list(D.DataLoader(ds, batch_sampler=[[0, 4], [1, 2, 3]]))
    c = list(D.DataLoader(ds, batch_size=2, drop_last=True))
    seqs = [T.arange(k + 1) for k in range(4)]

    def pad(batch):
        return T.nn.utils.rnn.pad_sequence(batch, batch_first=True)

    d = list(D.DataLoader(seqs, batch_size=2, collate_fn=pad))
    dl = D.DataLoader(ds, batch_size=2)
    return [a, b, c, d, len(dl), len(D.DataLoader(ds, batch_size=2, drop_last=True)),
            _raised(lambda: D.DataLoader(ds, batch_size=2, batch_sampler=[[0]])),
            _raised(lambda: D.DataLoader(ds, shuffle=True, sampler=[0, 1]))]


def training_from_dataloader(T):
    """A regression trained through a DataLoader over a TensorDataset
    (sequential batches of 3), two epochs, the losses per batch."""
    D = T.utils.data
    x, y = _t(T, 8, 3, seed=66), _t(T, 8, 1, seed=67)
    dl = D.DataLoader(D.TensorDataset(x, y), batch_size=3)
    net = _mlp(T, 47, (3, 4, 1))
    opt = T.optim.SGD(net.parameters(), lr=0.1, momentum=0.5, nesterov=True)
    losses = []
    for _ in range(2):
        for xb, yb in dl:
            opt.zero_grad()
            loss = T.nn.functional.mse_loss(net(xb), yb)
            loss.backward()
            opt.step()
            losses.append(loss.item())
    return [losses, [p for p in net.parameters()]]


# ---- state dicts ------------------------------------------------------------------------------

def load_state_dict_reports(T):
    """load_state_dict(strict=False)'s report (missing and unexpected keys,
    a namedtuple), strict=True's refusal, a shape mismatch refused even
    with strict=False, assign=True keeping the given tensor."""
    nn = T.nn
    net = _mlp(T, 48, (2, 3, 1))
    sd = net.state_dict()
    sd2 = {k: v for k, v in sd.items() if k != "0.bias"}
    sd2["extra.weight"] = T.zeros(1)
    fresh = _mlp(T, 49, (2, 3, 1))
    rep = fresh.load_state_dict(sd2, strict=False)
    bad = dict(sd)
    bad["2.weight"] = T.zeros(2, 3)
    t = T.ones(3, 2)
    m3 = _mlp(T, 50, (2, 3, 1))
    m3.load_state_dict({**sd, "0.weight": t}, assign=True)
    return [type(rep).__name__, rep.missing_keys, rep.unexpected_keys, repr(rep),
            fresh[0].weight,
            _raised(lambda: _mlp(T, 49, (2, 3, 1)).load_state_dict(sd2)),
            _raised(lambda: _mlp(T, 49, (2, 3, 1)).load_state_dict(bad, strict=False)),
            m3[0].weight.data_ptr() == t.data_ptr(), type(m3[0].weight).__name__,
            m3[0].weight.requires_grad,
            _raised(lambda: _mlp(T, 49, (2, 3, 1)).load_state_dict([1]))]


def state_dict_prefix_and_buffers(T):
    """state_dict(prefix=, keep_vars=True) of a nested model with a
    persistent and a non-persistent buffer; load into a wrapper by the
    prefix; buffers carried."""
    nn = T.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(2, 2)
            self.register_buffer("count", T.tensor(3))
            self.register_buffer("scratch", T.zeros(2), persistent=False)

    net = _init(T, Net(), 51)
    sd = net.state_dict(prefix="model.")
    kv = net.state_dict(keep_vars=True)

    class Wrap(nn.Module):
        def __init__(self):
            super().__init__()
            self.model = Net()

    w = Wrap()
    rep = w.load_state_dict(sd)
    return [list(sd), type(kv["lin.weight"]).__name__, kv["lin.weight"].requires_grad,
            sd["model.lin.weight"].requires_grad, rep.missing_keys, w.model.count,
            w.model.lin.weight, [n for n, _ in net.named_buffers()]]


def optimizer_resume_roundtrip(T):
    """torch.save / torch.load of a model's and an optimizer's state dicts
    in a buffer mid-training, resumed into fresh ones: the continued
    losses equal the uninterrupted run's."""
    net = _mlp(T, 52, (3, 4, 1))
    x, y = _t(T, 6, 3, seed=68), _t(T, 6, 1, seed=69)
    opt = T.optim.AdamW(net.parameters(), lr=0.01, weight_decay=0.1)
    _fit(T, net, opt, x, y, steps=2)
    buf = io.BytesIO()
    T.save({"model": net.state_dict(), "opt": opt.state_dict(), "epoch": 2}, buf)
    rest = _fit(T, net, opt, x, y, steps=2)
    buf.seek(0)
    ck = T.load(buf, weights_only=True)
    net2 = _mlp(T, 99, (3, 4, 1))
    net2.load_state_dict(ck["model"])
    opt2 = T.optim.AdamW(net2.parameters(), lr=0.5)
    opt2.load_state_dict(ck["opt"])
    rest2 = _fit(T, net2, opt2, x, y, steps=2)
    return [rest, rest2, ck["epoch"], opt2.param_groups[0]["lr"], sorted(ck["opt"]["state"][0])]


def save_whole_module(T):
    """torch.save of a whole module (weights_only=False to load it), its
    type, parameters and training flag; shared tensors saved once (a view
    and its base stay sharing after load)."""
    nn = T.nn
    net = _mlp(T, 53, (2, 3, 1))
    net.eval()
    buf = io.BytesIO()
    T.save(net, buf)
    buf.seek(0)
    back = T.load(buf, weights_only=False)
    base = T.arange(6.0)
    buf2 = io.BytesIO()
    T.save({"base": base, "view": base[2:5]}, buf2)
    buf2.seek(0)
    d = T.load(buf2)
    d["base"][3] = 100.0
    return [type(back).__name__, back.training, [p for p in back.parameters()],
            back(_t(T, 2, 2, seed=70)), d["view"], d["view"].storage_offset(),
            _kind_raised(lambda: (buf.seek(0), T.load(buf, weights_only=True)))]


def save_load_misc_objects(T):
    """torch.save of the objects a checkpoint holds besides tensors: ints,
    floats, strings, nested lists, a dtype, a bool tensor, an int64 one,
    a 0-d one, an empty one; loaded with weights_only."""
    buf = io.BytesIO()
    obj = {"step": 5, "loss": 0.25, "name": "run", "hist": [[1, 2], (3.5,)],
           "dtype": T.float16, "mask": T.tensor([True, False]), "ids": T.arange(3),
           "scalar": T.tensor(2.5), "empty": T.zeros(0, 3), "none": None}
    T.save(obj, buf)
    buf.seek(0)
    back = T.load(buf, weights_only=True)
    return [sorted(back), back["step"], back["hist"], back["dtype"], back["mask"], back["ids"],
            back["scalar"], back["empty"].shape, back["none"]]


# ---- hooks and the module tree ----------------------------------------------------------------

def forward_hooks_with_kwargs(T):
    """A forward pre-hook with kwargs rewriting an argument and a keyword,
    a forward hook with kwargs seeing them and replacing the output,
    prepend=True ordering, and handles removed."""
    nn = T.nn
    order = []

    class Scaled(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(2, 2)

        def forward(self, x, scale=1.0):
            return self.lin(x) * scale

    m = _init(T, Scaled(), 54)

    def pre(mod, args, kwargs):
        order.append("pre")
        return (args[0] + 1,), {**kwargs, "scale": 2.0}

    def post(mod, args, kwargs, out):
        order.append(["post", sorted(kwargs), kwargs["scale"]])
        return out + 10

    def first(mod, args, out):
        order.append("first")

    h1 = m.register_forward_pre_hook(pre, with_kwargs=True)
    h2 = m.register_forward_hook(post, with_kwargs=True)
    h3 = m.register_forward_hook(first, prepend=True)
    x = _t(T, 1, 2, seed=71)
    y = m(x, scale=0.5)
    for h in (h1, h2, h3):
        h.remove()
    return [y, order, m(x, scale=0.5)]


def forward_hook_always_call(T):
    """A forward hook with always_call=True runs when forward raises (and
    the exception goes on), one without does not; a hook's exception."""
    nn = T.nn
    seen = []

    class Boom(nn.Module):
        def forward(self, x):
            raise ValueError("boom")

    m = Boom()
    m.register_forward_hook(lambda mod, a, o: seen.append(["always", o]), always_call=True)
    m.register_forward_hook(lambda mod, a, o: seen.append("plain"))
    err = _raised(lambda: m(T.zeros(1)))
    ok = nn.Identity()

    def bad(mod, a, o):
        raise RuntimeError("hook failed")

    ok.register_forward_hook(bad)
    return [err, seen, _raised(lambda: ok(T.zeros(1)))]


def global_module_hooks(T):
    """register_module_forward_pre_hook / register_module_forward_hook apply
    to every module's call, before the module's own hooks; removed."""
    nn = T.nn
    M = nn.modules.module
    seen = []
    h1 = M.register_module_forward_pre_hook(lambda m, a: seen.append(["gpre", type(m).__name__]))
    h2 = M.register_module_forward_hook(lambda m, a, o: seen.append(["gpost", type(m).__name__]))
    net = _mlp(T, 55, (2, 2))
    net[0].register_forward_hook(lambda m, a, o: seen.append("own"))
    try:
        net(_t(T, 1, 2, seed=72))
    finally:
        h1.remove()
        h2.remove()
    net(_t(T, 1, 2, seed=72))
    return seen


def module_tree_accessors(T):
    """named_modules with and without remove_duplicate over a model sharing
    a submodule, named_parameters(remove_duplicate=False), get_submodule,
    set_submodule, get_parameter, get_buffer and their refusals."""
    nn = T.nn
    shared = nn.Linear(2, 2)
    net = nn.Sequential(shared, nn.ReLU(), nn.Sequential(shared, nn.BatchNorm1d(2)))
    out = [[n for n, _ in net.named_modules()],
           [n for n, _ in net.named_modules(remove_duplicate=False)],
           [n for n, _ in net.named_parameters(remove_duplicate=False)],
           [n for n, _ in net.named_parameters()],
           [n for n, _ in net.named_modules(prefix="root")],
           net.get_submodule("2.0") is shared, net.get_submodule("") is net,
           list(net.get_parameter("2.1.weight").shape), net.get_buffer("2.1.num_batches_tracked")]
    net.set_submodule("2.1", nn.Identity())
    out.append(type(net[2][1]).__name__)
    out += [_raised(lambda: net.get_submodule("2.5")),
            _raised(lambda: net.get_submodule("1.weight")),
            _raised(lambda: net.get_parameter("0.nothing")),
            _raised(lambda: net.get_parameter("1")),
            _raised(lambda: net.get_buffer("0.weight")),
            _raised(lambda: net.set_submodule("3.x", nn.Identity()))]
    return out


def module_children_and_containers(T):
    """ModuleDict/ModuleList/ParameterDict/ParameterList edits inside a
    model that is then trained; named_children, insert, pop, update and
    extend; the parameters' order."""
    nn = T.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.heads = nn.ModuleDict({"a": nn.Linear(2, 1), "b": nn.Linear(2, 1)})
            self.blocks = nn.ModuleList([nn.Linear(2, 2)])
            self.scales = nn.ParameterDict({"a": nn.Parameter(T.ones(1))})
            self.extra = nn.ParameterList([nn.Parameter(T.zeros(1))])

        def forward(self, x):
            for b in self.blocks:
                x = T.tanh(b(x))
            return sum(self.heads[k](x) * self.scales[k] for k in self.heads) + self.extra[0]

    net = Net()
    net.blocks.insert(0, nn.Linear(2, 2))
    net.blocks.extend([nn.Linear(2, 2)])
    popped = net.blocks.pop(1)
    net.heads.update({"c": nn.Linear(2, 1)})
    del net.heads["b"]
    net.scales.update({"c": nn.Parameter(T.full((1,), 0.5))})
    net.extra.append(nn.Parameter(T.ones(2)))
    _init(T, net, 56)
    x, y = _t(T, 4, 2, seed=73), _t(T, 4, 1, seed=74)
    opt = T.optim.SGD(net.parameters(), lr=0.1)
    losses = _fit(T, net, opt, x, y, steps=3)
    return [[n for n, _ in net.named_children()], [n for n, _ in net.named_parameters()],
            list(net.heads.keys()), type(popped).__name__, len(net.blocks), losses,
            _raised(lambda: net.heads["b"]), _raised(lambda: net.blocks[5])]


def module_state_toggles(T):
    """train(False)/eval propagation, requires_grad_(False) on a part,
    zero_grad on the module, half()/double() round trips of a model, and
    the refusal of train("yes")."""
    nn = T.nn
    net = nn.Sequential(nn.Linear(2, 2), nn.Dropout(0.5), nn.Sequential(nn.BatchNorm1d(2)))
    net.train(False)
    flags = [m.training for m in net.modules()]
    net.train()
    net[0].requires_grad_(False)
    rg = [p.requires_grad for p in net.parameters()]
    _init(T, net, 57)
    d = net.double()
    dt = [p.dtype for p in d.parameters()] + [b.dtype for b in d.buffers()]
    h = net.half()
    ht = [p.dtype for p in h.parameters()]
    return [flags, rg, dt, ht, d is net, _raised(lambda: net.train("yes"))]


def extra_repr_and_printing(T):
    """The repr of a model of the layers this round uses (attention,
    transformer layers, embedding bags, convs with every option, norms)."""
    nn = T.nn
    net = nn.ModuleDict({
        "mha": nn.MultiheadAttention(4, 2, kdim=3, vdim=5, batch_first=True),
        "bag": nn.EmbeddingBag(10, 3, mode="max", padding_idx=0),
        "conv": nn.Conv2d(2, 4, 3, stride=2, padding=1, dilation=2, groups=2, bias=False,
                          padding_mode="reflect"),
        "up": nn.ConvTranspose1d(2, 2, 3, stride=2, output_padding=1),
        "same": nn.Conv1d(1, 1, 4, padding="same"),
        "gn": nn.GroupNorm(2, 4, eps=1e-3, affine=False),
        "inn": nn.InstanceNorm1d(3, track_running_stats=True),
        "bn": nn.BatchNorm2d(3, momentum=None),
        "ln": nn.LayerNorm((2, 3), elementwise_affine=False),
    })
    return repr(net)


def transformer_repr(T):
    """The repr of an encoder-decoder Transformer (the repeated layers
    folded)."""
    nn = T.nn
    return repr(nn.Transformer(4, 2, 2, 2, 8, dropout=0.0))


# ---- programs that combine them ---------------------------------------------------------------

def vit_patch_classifier(T):
    """A tiny vision transformer: patches by a strided Conv2d, a class
    token and position embeddings as Parameters, one pre-norm encoder
    layer, a head on the class token; trained with AdamW and a
    warmup+cosine SequentialLR."""
    nn = T.nn

    class ViT(nn.Module):
        def __init__(self):
            super().__init__()
            self.patch = nn.Conv2d(1, 8, 2, stride=2)
            self.cls = nn.Parameter(T.zeros(1, 1, 8))
            self.pos = nn.Parameter(T.zeros(1, 5, 8))
            self.enc = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True,
                                                  norm_first=True)
            self.head = nn.Linear(8, 3)

        def forward(self, x):
            p = self.patch(x).flatten(2).transpose(1, 2)
            h = T.cat([self.cls.expand(x.shape[0], -1, -1), p], 1) + self.pos
            return self.head(self.enc(h)[:, 0])

    net = _init(T, ViT(), 58)
    x = _t(T, 4, 1, 4, 4, seed=75)
    y = _long(T, [0, 1, 2, 1])
    opt = T.optim.AdamW(net.parameters(), lr=0.01)
    S = T.optim.lr_scheduler
    sched = S.SequentialLR(opt, [S.LinearLR(opt, 0.5, total_iters=2),
                                 S.CosineAnnealingLR(opt, T_max=3)], milestones=[2])
    losses, lrs = [], []
    for _ in range(4):
        opt.zero_grad()
        loss = nn.functional.cross_entropy(net(x), y, label_smoothing=0.1)
        loss.backward()
        opt.step()
        sched.step()
        losses.append(loss.item())
        lrs.append(sched.get_last_lr()[0])
    return [losses, lrs, net.cls, net.head.bias]


def gpt_block_causal_lm(T):
    """A one-block causal language model with a tied embedding and
    F.scaled_dot_product_attention(is_causal=True), gradient clipping and
    a OneCycleLR; the losses and the tied weight."""
    nn = T.nn
    F = nn.functional

    class LM(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(9, 8)
            self.pos = nn.Embedding(6, 8)
            self.qkv = nn.Linear(8, 24)
            self.proj = nn.Linear(8, 8)
            self.ln1, self.ln2 = nn.LayerNorm(8), nn.LayerNorm(8)
            self.mlp = nn.Sequential(nn.Linear(8, 16), nn.GELU(), nn.Linear(16, 8))

        def forward(self, idx):
            B, L = idx.shape
            h = self.emb(idx) + self.pos(T.arange(L))
            q, k, v = self.qkv(self.ln1(h)).split(8, dim=-1)
            q, k, v = (t.reshape(B, L, 2, 4).transpose(1, 2) for t in (q, k, v))
            a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            h = h + self.proj(a.transpose(1, 2).reshape(B, L, 8))
            h = h + self.mlp(self.ln2(h))
            return h @ self.emb.weight.T

    lm = _init(T, LM(), 59)
    idx = _long(T, [[1, 2, 3, 4, 5, 6], [8, 7, 6, 5, 4, 3]])
    opt = T.optim.AdamW(lm.parameters(), lr=0.02, betas=(0.9, 0.95))
    sched = T.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.05, total_steps=4)
    losses, norms = [], []
    for _ in range(4):
        opt.zero_grad()
        logits = lm(idx[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, 9), idx[:, 1:].reshape(-1))
        loss.backward()
        norms.append(nn.utils.clip_grad_norm_(lm.parameters(), 1.0).item())
        opt.step()
        sched.step()
        losses.append(loss.item())
    return [losses, norms, lm.emb.weight]


def unet_like_same_padding(T):
    """A small U-Net: 'same' convolutions with reflect padding, GroupNorm,
    a strided downsample and a ConvTranspose2d upsample with
    output_padding, a skip by concatenation; trained with Adam."""
    nn = T.nn

    class UNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.enc = nn.Sequential(nn.Conv2d(1, 4, 3, padding="same", padding_mode="reflect"),
                                     nn.GroupNorm(2, 4), nn.SiLU())
            self.down = nn.Conv2d(4, 8, 3, stride=2, padding=1)
            self.up = nn.ConvTranspose2d(8, 4, 3, stride=2, padding=1, output_padding=1)
            self.dec = nn.Conv2d(8, 1, 3, padding="same")

        def forward(self, x):
            e = self.enc(x)
            u = self.up(T.relu(self.down(e)))
            return self.dec(T.cat([e, u], 1))

    net = _init(T, UNet(), 60)
    x, y = _t(T, 2, 1, 6, 6, seed=76), _t(T, 2, 1, 6, 6, seed=77)
    opt = T.optim.Adam(net.parameters(), lr=0.01)
    return [_fit(T, net, opt, x, y, steps=3), net.up.weight.grad.shape, net.dec.bias]


def pruned_finetune_with_masks(T):
    """Iterative magnitude pruning during training: prune 30% then 50% of
    a layer between epochs (the mask compounding), the optimizer stepping
    weight_orig; the final sparsity and weights."""
    nn = T.nn
    prune = importlib.import_module(T.__name__ + ".nn.utils.prune")
    net = _mlp(T, 61, (4, 6, 2))
    x, y = _t(T, 8, 4, seed=78), _t(T, 8, 2, seed=79)
    losses = []
    for amount in (0.3, 0.5):
        prune.l1_unstructured(net[0], "weight", amount=amount)
        opt = T.optim.SGD(net.parameters(), lr=0.1)
        losses += _fit(T, net, opt, x, y, steps=2)
    zeros = int((net[0].weight == 0).sum())
    return [losses, zeros, net[0].weight_mask, net[0].weight_orig.grad is not None,
            len(net[0]._forward_pre_hooks)]


def attention_pooling_classifier(T):
    """Attention pooling over variable-length sets: a learned query through
    MultiheadAttention(batch_first) with a key_padding_mask built from the
    lengths, trained with RMSprop; the pooled weights of padded items are
    zero."""
    nn = T.nn
    mha = _init(T, nn.MultiheadAttention(4, 1, batch_first=True), 62)
    query = nn.Parameter(_t(T, 1, 1, 4, seed=80))
    head = _init(T, nn.Linear(4, 2), 63)
    x = _t(T, 3, 5, 4, seed=81)
    lengths = _long(T, [5, 2, 3])
    pad = T.arange(5).unsqueeze(0) >= lengths.unsqueeze(1)
    y = _long(T, [1, 0, 1])
    opt = T.optim.RMSprop(list(mha.parameters()) + [query] + list(head.parameters()), lr=0.01)
    losses = []
    for _ in range(3):
        opt.zero_grad()
        pooled, w = mha(query.expand(3, -1, -1), x, x, key_padding_mask=pad)
        loss = nn.functional.cross_entropy(head(pooled[:, 0]), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return [losses, w, query]


# ---- round ten, more corners ------------------------------------------------------------------

def mha_state_dict_and_bias_off(T):
    """MultiheadAttention's state-dict keys with shared and separate
    projections, bias=False (no in_proj_bias, out_proj without bias), and a
    state dict loaded across two modules giving equal outputs."""
    nn = T.nn
    a = _init(T, nn.MultiheadAttention(4, 2, bias=False), 64)
    b = _init(T, nn.MultiheadAttention(4, 2, kdim=2, vdim=2), 65)
    c = nn.MultiheadAttention(4, 2, bias=False)
    c.load_state_dict(a.state_dict())
    x = _t(T, 2, 1, 4, seed=82)
    return [list(a.state_dict()), list(b.state_dict()), a.in_proj_bias, a.out_proj.bias,
            b.in_proj_weight, (a(x, x, x)[0] - c(x, x, x)[0]).abs().max()]


def functional_conv_forms(T):
    """F.conv1d/conv2d with padding='valid' and 'same' strings, a tuple
    padding, stride and dilation tuples, and F.conv_transpose2d's
    output_padding and groups; the functional refusal of 'same' with a
    stride and of an unknown padding string."""
    F = T.nn.functional
    x = _t(T, 1, 2, 5, 5, seed=83)
    w = _t(T, 4, 1, 3, 2, seed=84)
    wt = _t(T, 2, 2, 3, 3, seed=85)
    return [F.conv2d(x, w, groups=2, padding="same"), F.conv2d(x, w, groups=2, padding="valid"),
            F.conv2d(x, w, groups=2, padding=(1, 0), stride=(2, 1), dilation=(1, 2)),
            F.conv_transpose2d(x, wt, stride=2, output_padding=1, groups=1, padding=1),
            F.conv1d(x[:, :, 0], w[:, :, :, 0], groups=2, padding="same", dilation=2),
            _raised(lambda: F.conv2d(x, w, groups=2, padding="same", stride=2)),
            _raised(lambda: F.conv2d(x, w, groups=2, padding="full"))]


def embedding_bag_gradients(T):
    """The weight gradient of EmbeddingBag's max mode (only the winning
    rows), of mean with an empty bag, with include_last_offset, and of
    padding_idx rows (none)."""
    nn = T.nn
    out = []
    idx = _long(T, [0, 1, 2, 2, 3])
    for mode, kw, off in (("max", {}, [0, 2]), ("mean", {}, [0, 0, 3]),
                          ("sum", {"include_last_offset": True}, [0, 1, 5]),
                          ("mean", {"padding_idx": 2}, [0, 2])):
        bag = _init(T, nn.EmbeddingBag(5, 3, mode=mode, **kw), 66)
        y = bag(idx, _long(T, off))
        (y * _t(T, *y.shape, seed=86)).sum().backward()
        out.append([y, bag.weight.grad])
    return out


def module_attribute_refusals(T):
    """What Module's attribute machinery refuses: a plain tensor assigned
    over a parameter, a buffer name with a dot or empty, a parameter under
    an existing attribute, a non-Module assigned over a child, add_module
    with a dotted name; and what it takes: None over a parameter."""
    nn = T.nn
    lin = nn.Linear(2, 2)
    out = [_raised_head(lambda: setattr(lin, "weight", T.zeros(2, 2))),
           _raised(lambda: lin.register_buffer("a.b", T.zeros(1))),
           _raised(lambda: lin.register_buffer("", T.zeros(1))),
           _raised(lambda: lin.register_parameter("in_features", nn.Parameter(T.zeros(1)))),
           _raised(lambda: lin.register_buffer("weight", T.zeros(1))),
           _raised(lambda: nn.Sequential(nn.ReLU()).add_module("a.b", nn.ReLU())),
           _raised(lambda: nn.Sequential(nn.ReLU()).add_module("", nn.ReLU())),
           _raised(lambda: lin.register_buffer(3, T.zeros(1))),
           _raised_head(lambda: lin.register_buffer("buf", [1.0]))]
    seq = nn.Sequential(nn.ReLU())
    out.append(_raised_head(lambda: setattr(seq, "0", 3)))
    lin.bias = None
    out += [lin.bias, [n for n, _ in lin.named_parameters()], lin(T.ones(1, 2)).shape]
    return out


def functional_call_and_stateless(T):
    """torch.func.functional_call with a replacement parameter dict (a
    tied-weight pair given once, tie_weights), strict=True refusing
    missing keys, and buffers swapped; the module's own tensors
    unchanged."""
    nn = T.nn

    class Tied(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Linear(2, 2, bias=False)
            self.b = nn.Linear(2, 2, bias=False)
            self.b.weight = self.a.weight
            self.register_buffer("shift", T.ones(2))

        def forward(self, x):
            return self.b(self.a(x)) + self.shift

    m = _init(T, Tied(), 67)
    x = _t(T, 1, 2, seed=87)
    w = _t(T, 2, 2, seed=88)
    fc = T.func.functional_call
    return [fc(m, {"a.weight": w}, (x,)), fc(m, {"a.weight": w, "shift": T.zeros(2)}, x),
            fc(m, {"a.weight": w}, (x,), tie_weights=False), m.a.weight,
            _raised(lambda: fc(m, {"a.weight": w}, (x,), strict=True)),
            fc(m, ({"a.weight": w}, {"shift": T.zeros(2)}), (x,))]


def scheduler_resume_refusals(T):
    """A scheduler built with last_epoch on an optimizer without
    initial_lr (refused), then with it; MultiStepLR with a repeated
    milestone (gamma applied twice); ReduceLROnPlateau in max mode with
    an absolute threshold."""
    S = T.optim.lr_scheduler
    opt = _sched_opt(T, lr=1.0)
    err = _raised(lambda: S.StepLR(opt, 2, last_epoch=3))
    opt.param_groups[0]["initial_lr"] = 1.0
    s = S.StepLR(opt, 2, gamma=0.5, last_epoch=3)
    opt2 = _sched_opt(T, lr=1.0)
    m = S.MultiStepLR(opt2, [2, 2, 4], gamma=0.1)
    opt3 = _sched_opt(T, lr=1.0)
    r = S.ReduceLROnPlateau(opt3, mode="max", threshold=0.1, threshold_mode="abs", patience=1,
                            factor=0.5)
    lr3 = []
    for acc in (0.5, 0.55, 0.58, 0.59, 0.75, 0.76, 0.77):
        r.step(acc)
        lr3.append(opt3.param_groups[0]["lr"])
    return [err, s.last_epoch, opt.param_groups[0]["lr"], _lrs(opt, s, 3), _lrs(opt2, m, 5),
            lr3, r.num_bad_epochs, r.best]


def distributed_sampler_partitions(T):
    """DistributedSampler with explicit replicas and ranks: unshuffled
    padding by wrap-around, drop_last, set_epoch with shuffle (the ranks
    still a partition), and its refusal of a rank out of range."""
    D = T.utils.data
    ds = list(range(10))
    plain = [list(D.DistributedSampler(ds, num_replicas=3, rank=r, shuffle=False))
             for r in range(3)]
    dropped = [list(D.DistributedSampler(ds, num_replicas=3, rank=r, shuffle=False,
                                         drop_last=True)) for r in range(3)]
    shuffled = []
    for r in range(2):
        s = D.DistributedSampler(ds, num_replicas=2, rank=r, shuffle=True, seed=5)
        s.set_epoch(1)
        shuffled += list(s)
    return [plain, dropped, sorted(shuffled), len(D.DistributedSampler(ds, 4, 0)),
            _raised(lambda: D.DistributedSampler(ds, num_replicas=2, rank=2))]


def collate_refusals_and_forms(T):
    """default_collate of tensors of different shapes (refused in stack's
    words), of tuples of different lengths, of bytes, of a mapping
    subclass (kept), of tensors already batched; default_convert of numpy
    arrays inside a dict."""
    D = T.utils.data

    class MyDict(dict):
        pass

    return [_raised(lambda: D.default_collate([T.zeros(2), T.zeros(3)])),
            _raised(lambda: D.default_collate([(1, 2), (3,)])),
            D.default_collate([b"ab", b"cd"]),
            type(D.default_collate([MyDict(a=T.tensor(1.0)), MyDict(a=T.tensor(2.0))])).__name__,
            D.default_collate([T.ones(2, 2), T.zeros(2, 2)]).shape,
            D.default_convert({"x": np.array([1.5, 2.5], dtype=np.float32), "n": 3}),
            D.default_collate([np.float64(1.5), np.float64(2.5)]),
            D.default_collate([T.tensor(1), T.tensor(2)])]


def dataset_add_and_loader_generator(T):
    """Datasets joined by + (a ConcatDataset), a shuffling DataLoader given a
    seeded generator (the same seed the same order, a permutation), and a
    loader over a Subset with a sampler."""
    D = T.utils.data
    a = D.TensorDataset(T.arange(4))
    b = D.TensorDataset(T.arange(4, 7))
    c = a + b
    o1 = [t[0].tolist() for t in D.DataLoader(c, batch_size=3, shuffle=True,
                                              generator=T.Generator().manual_seed(7))]
    o2 = [t[0].tolist() for t in D.DataLoader(c, batch_size=3, shuffle=True,
                                              generator=T.Generator().manual_seed(7))]
    sub = D.Subset(c, [6, 0, 3])
    o3 = [t[0].tolist() for t in D.DataLoader(sub, batch_size=2, sampler=[2, 0, 1])]
    return [type(c).__name__, len(c), o1 == o2, sorted(sum(o1, [])), o3, [len(x) for x in o1]]


def backward_hooks_on_attention(T):
    """A full backward hook on a MultiheadAttention (its grad_output and
    grad_input shapes, a grad_input scaled by the hook) and a backward
    pre-hook on its out_proj."""
    nn = T.nn
    mha = _init(T, nn.MultiheadAttention(4, 2, batch_first=True), 68)
    seen = []

    def hook(mod, gin, gout):
        seen.append([[None if g is None else list(g.shape) for g in gin],
                     [None if g is None else list(g.shape) for g in gout]])
        return tuple(None if g is None else g * 2 for g in gin)

    def pre(mod, gout):
        seen.append(["pre", list(gout[0].shape)])

    mha.register_full_backward_hook(hook)
    mha.out_proj.register_full_backward_pre_hook(pre)
    q = _t(T, 1, 3, 4, seed=89).requires_grad_()
    k = _t(T, 1, 2, 4, seed=90).requires_grad_()
    out, _ = mha(q, k, k)
    out.sum().backward()
    return [seen, q.grad, k.grad]


def state_dict_hooks_and_metadata(T):
    """A load_state_dict post hook seeing the report (and clearing an
    expected missing key), a state-dict pre hook, and _metadata's versions
    for the norms and the module tree."""
    nn = T.nn
    net = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2), nn.LayerNorm(2))
    seen = []

    def post(mod, keys):
        seen.append([list(keys.missing_keys), list(keys.unexpected_keys)])
        if "0.bias" in keys.missing_keys:
            keys.missing_keys.remove("0.bias")

    net.register_load_state_dict_post_hook(post)
    net.register_state_dict_pre_hook(lambda mod, prefix, keep_vars: seen.append(["pre", prefix]))
    sd = net.state_dict()
    meta = {k: v for k, v in sd._metadata.items()}
    del sd["0.bias"]
    rep = net.load_state_dict(sd)
    return [seen, meta, rep.missing_keys]


def conv_weight_standardized_parametrization(T):
    """Weight standardisation as a parametrization on a Conv2d (zero-mean,
    unit-variance filters) followed by GroupNorm, trained with SGD; the
    parametrized weight's per-filter statistics after training."""
    nn = T.nn
    P = nn.utils.parametrize

    class Standardize(nn.Module):
        def forward(self, w):
            m = w.mean(dim=(1, 2, 3), keepdim=True)
            v = w.var(dim=(1, 2, 3), keepdim=True, unbiased=False)
            return (w - m) / T.sqrt(v + 1e-5)

    net = _init(T, nn.Sequential(nn.Conv2d(2, 4, 3, padding=1), nn.GroupNorm(2, 4),
                                 nn.ReLU(), nn.Conv2d(4, 1, 1)), 69)
    P.register_parametrization(net[0], "weight", Standardize())
    x, y = _t(T, 2, 2, 4, 4, seed=91), _t(T, 2, 1, 4, 4, seed=92)
    opt = T.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
    losses = _fit(T, net, opt, x, y, steps=3)
    w = net[0].weight
    return [losses, w.mean(dim=(1, 2, 3)).abs().max().item() < 1e-6,
            w.var(dim=(1, 2, 3), unbiased=False), sorted(net.state_dict())]


def sdpa_dtype_refusals(T):
    """scaled_dot_product_attention's dtype and rank refusals in PyTorch's
    order and words (its C++ type names): q/k/v of different dtypes, a
    1-d query, a mask with is_causal before the mask's dtype, masks of an
    integer, half and double dtype with a float query, integer and complex
    queries; a float32 mask taken with a float64 query."""
    F = T.nn.functional
    q = _t(T, 1, 2, 3, 4, seed=93)
    qd = q.double()
    out = [_raised(lambda: F.scaled_dot_product_attention(q, q.double(), q.long())),
           _raised(lambda: F.scaled_dot_product_attention(q[0, 0, 0], q[0, 0], q[0, 0])),
           _raised(lambda: F.scaled_dot_product_attention(
               q, q, q, is_causal=True, attn_mask=T.zeros(3, 3, dtype=T.int32)))]
    for dt in (T.int64, T.int32, T.uint8, T.float16, T.float64):
        out.append(_raised(lambda: F.scaled_dot_product_attention(
            q, q, q, attn_mask=T.zeros(3, 3, dtype=dt))))
    qi = T.ones(1, 2, 3, 4, dtype=T.int32)
    qc = T.ones(1, 2, 3, 4, dtype=T.complex64)
    out += [_raised(lambda: F.scaled_dot_product_attention(qi, qi, qi)),
            _raised(lambda: F.scaled_dot_product_attention(qc, qc, qc)),
            F.scaled_dot_product_attention(qd, qd, qd, attn_mask=_t(T, 3, 3, seed=94))]
    return out


def embedding_bag_argument_checks(T):
    """EmbeddingBag's checks of its arguments in PyTorch's order: float
    offsets (named 'indices' too), a last offset past the input, the first
    offset not 0 before it, per_sample_weights of another dtype than the
    table (before an index out of range), a 1-d pretrained table and a
    _weight of the wrong shape; RMSNorm given the wrong trailing shape."""
    nn = T.nn
    F = nn.functional
    w = _t(T, 5, 2, seed=95)
    fl = _data(T, np.zeros(1, np.float32))
    return [_raised(lambda: F.embedding_bag(_long(T, [1, 2]), w, fl)),
            _raised(lambda: F.embedding_bag(_long(T, [1, 9]), w, _long(T, [0, 3]))),
            _raised(lambda: F.embedding_bag(_long(T, [1, 9]), w, _long(T, [1, 3]))),
            _raised(lambda: F.embedding_bag(_long(T, [1, 9]), w, _long(T, [0]), mode="sum",
                                            per_sample_weights=T.ones(2, dtype=T.float64))),
            _raised(lambda: F.embedding_bag(_long(T, [1, 2]), w.double(), _long(T, [0]),
                                            mode="sum", per_sample_weights=T.ones(2))),
            F.embedding_bag(_long(T, [1, 2]), w, _data(T, np.zeros(1, np.int32)), mode="sum"),
            _raised(lambda: nn.EmbeddingBag.from_pretrained(_t(T, 3, seed=1))),
            _raised(lambda: nn.EmbeddingBag(5, 2, _weight=_t(T, 4, 2, seed=1))),
            _raised(lambda: nn.RMSNorm(3)(_t(T, 2, 4, seed=1))),
            _raised(lambda: nn.RMSNorm([2, 3])(_t(T, 2, 4, seed=1))),
            _raised(lambda: nn.LayerNorm([2, 3])(_t(T, 2, 4, seed=1)))]


def init_and_flatten_refusals(T):
    """What a script meets initialising and flattening: trunc_normal_ with
    its bounds swapped (uniform_'s refusal), uniform_ with from > to, an
    empty parameter list flattened (cat's ValueError), clip_grad_norm_
    over no parameters, and the init of an empty tensor (a warning)."""
    nn = T.nn
    return [_raised(lambda: nn.init.trunc_normal_(T.empty(3), a=1.0, b=-1.0)),
            _raised(lambda: nn.init.uniform_(T.empty(3), 0.5, -0.25)),
            _raised(lambda: nn.utils.parameters_to_vector([])),
            _raised(lambda: T.cat([])),
            nn.utils.clip_grad_norm_([], 1.0),
            _warned(lambda: nn.init.kaiming_uniform_(T.empty(0, 3)).shape),
            nn.init.trunc_normal_(T.empty(4), a=0.5, b=0.5)]


def checkpoint_target_refusals(T):
    """torch.save into a directory not made yet (the checkpoint-dir mistake),
    to a target without write(), torch.load of raw bytes and of an int;
    then the same save into a temporary directory that exists, loaded
    back."""
    import os
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        missing = os.path.join(d, "runs", "ckpt.pt")
        kind, msg = _raised(lambda: T.save({"a": T.ones(1)}, missing))
        out = [kind, msg.replace(d, "<tmp>")]
        buf = io.BytesIO()
        T.save([1], buf)
        out += [_raised(lambda: T.save(T.ones(1), 3)),
                _raised(lambda: T.load(buf.getvalue())),
                _raised(lambda: T.load(5))]
        os.makedirs(os.path.dirname(missing))
        T.save({"a": T.arange(3)}, missing)
        out.append(T.load(missing)["a"])
    return out


def spectral_norm_parametrization_checks(T):
    """The spectral-norm parametrization's argument checks (a dim out of
    range on either side, no power iterations, the dim checked first) and
    a discriminator step with a negative in-range dim on a Conv1d."""
    nn = T.nn
    P = nn.utils.parametrizations
    conv = _init(T, nn.Conv1d(2, 3, 2), 70)
    P.spectral_norm(conv, dim=-3)
    with T.no_grad():
        conv.parametrizations.weight[0]._u.copy_(_t(T, 3, seed=96))
        conv.parametrizations.weight[0]._v.copy_(_t(T, 4, seed=97))
    conv.eval()
    return [_raised(lambda: P.spectral_norm(nn.Linear(3, 2), dim=2)),
            _raised(lambda: P.spectral_norm(nn.Linear(3, 2), dim=-3)),
            _raised(lambda: P.spectral_norm(nn.Linear(3, 2), n_power_iterations=0)),
            _raised(lambda: P.spectral_norm(nn.Linear(3, 2), dim=5, n_power_iterations=-1)),
            conv(_t(T, 1, 2, 4, seed=98)), sorted(conv.state_dict())]


def backward_hook_replacement_checks(T):
    """A module's full backward hook and backward pre-hook returning
    gradients of another size, another dtype or another count (refused by
    PyTorch's engine in its words), and a same-shaped replacement taken
    (the input's gradient scaled)."""
    nn = T.nn
    x = _t(T, 1, 2, seed=99).requires_grad_()
    out = []
    for hook in (lambda m, gi, go: (T.ones(3),), lambda m, gi, go: (gi[0].double(),),
                 lambda m, gi, go: (gi[0], None)):
        lin = _init(T, nn.Linear(2, 2), 71)
        lin.register_full_backward_hook(hook)
        out.append(_raised(lambda: lin(x).sum().backward()))
    lin = _init(T, nn.Linear(2, 2), 71)
    lin.register_full_backward_pre_hook(lambda m, go: (T.ones(3),))
    out.append(_raised(lambda: lin(x).sum().backward()))
    lin = _init(T, nn.Linear(2, 2), 71)
    lin.register_full_backward_pre_hook(lambda m, go: 5)
    out.append(_raised(lambda: lin(x).sum().backward()))
    x.grad = None
    lin = _init(T, nn.Linear(2, 2), 71)
    lin.register_full_backward_hook(lambda m, gi, go: (gi[0] * 5,))
    lin(x).sum().backward()
    out += [x.grad, lin.weight.grad]
    return out


def gqa_key_value_heads_apart(T):
    """Grouped-query attention with key and value head counts that differ
    (each dividing the query's), causal and not, its gradients, and the
    refusal of counts that do not divide."""
    F = T.nn.functional
    q = _t(T, 1, 6, 3, 4, seed=100)
    out = []
    for hk, hv in ((2, 3), (3, 2), (1, 6)):
        k = _t(T, 1, hk, 5, 4, seed=101).requires_grad_()
        v = _t(T, 1, hv, 5, 2, seed=102).requires_grad_()
        y = F.scaled_dot_product_attention(q, k, v, enable_gqa=True, is_causal=hk == 3)
        y.square().sum().backward()
        out.append([y, k.grad, v.grad])
    out.append(_raised(lambda: F.scaled_dot_product_attention(
        q, _t(T, 1, 4, 5, 4, seed=1), _t(T, 1, 2, 5, 2, seed=1), enable_gqa=True)))
    return out


def inputs(T):
    return {"T": T, **{name: globals()[name] for name in _PROGRAMS}}


_PROGRAMS = [
    "mha_kdim_vdim", "mha_bias_kv_zero_attn", "mha_mask_kinds", "mha_unbatched_and_causal",
    "mha_refusals", "mha_self_attention_training", "encoder_layer_norm_first_gelu",
    "encoder_causal_stack", "decoder_layer_masks", "transformer_seq2seq_masks",
    "square_subsequent_mask_forms", "transformer_refusals", "encoder_layer_callable_activation",
    "sdpa_corners", "sdpa_gradients", "sdpa_refusals", "sdpa_fully_masked_rows",
    "conv1d_groups_dilation", "conv2d_same_even_kernel", "conv_padding_modes",
    "conv_transpose_output_padding", "conv_transpose1d_dilated_training", "conv_refusals",
    "conv3d_groups_training", "embedding_bag_modes", "embedding_bag_per_sample_weights",
    "embedding_bag_classifier", "embedding_bag_refusals", "norm_layer_switches",
    "group_norm_training", "instance_norm_tracked", "batch_norm_cumulative_training",
    "sync_batch_norm_conversion", "norm_refusals", "parametrize_symmetric_training",
    "parametrize_chain_and_refusals", "weight_norm_parametrization", "prune_methods",
    "global_prune_and_refusals", "clip_grad_norm_variants", "grad_norm_helpers", "flat_vectors",
    "init_with_generators", "init_deterministic_schemes", "init_through_apply",
    "sequential_warmup_then_step", "chained_schedulers", "one_cycle_variants",
    "cyclic_lr_modes", "warm_restarts_t_mult", "lambda_lr_state", "polynomial_and_linear",
    "datasets_composed", "dataset_refusals", "random_split_fractions",
    "samplers_with_generators", "default_collate_structures", "dataloader_batching_forms",
    "training_from_dataloader", "load_state_dict_reports", "state_dict_prefix_and_buffers",
    "optimizer_resume_roundtrip", "save_whole_module", "save_load_misc_objects",
    "forward_hooks_with_kwargs", "forward_hook_always_call", "global_module_hooks",
    "module_tree_accessors", "module_children_and_containers", "module_state_toggles",
    "extra_repr_and_printing", "transformer_repr", "vit_patch_classifier",
    "gpt_block_causal_lm", "unet_like_same_padding", "pruned_finetune_with_masks",
    "attention_pooling_classifier", "mha_state_dict_and_bias_off", "functional_conv_forms",
    "embedding_bag_gradients", "module_attribute_refusals", "functional_call_and_stateless",
    "scheduler_resume_refusals", "distributed_sampler_partitions", "collate_refusals_and_forms",
    "dataset_add_and_loader_generator", "backward_hooks_on_attention",
    "state_dict_hooks_and_metadata", "conv_weight_standardized_parametrization",
    "sdpa_dtype_refusals", "embedding_bag_argument_checks", "init_and_flatten_refusals",
    "checkpoint_target_refusals", "spectral_norm_parametrization_checks",
    "backward_hook_replacement_checks", "gqa_key_value_heads_apart",
]
CALLS = [name + "(T)" for name in _PROGRAMS]


def main():
    record(CALLS, inputs, describe, "training_programs10", messages=True)


if __name__ == "__main__":
    main()
